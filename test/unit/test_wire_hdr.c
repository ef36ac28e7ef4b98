/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Level-1 header accessors: for every field, set then get on buffers
 * pre-filled with 0x00 and 0xff, at an odd address, and compare the whole
 * buffer with one where only the field's bits (as placed by IBTA 9.2, 9.3
 * and 13.4.3) were written by a generic big-endian bit writer.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "roce_hdr.h"
#include "test_common.h"

struct field {
	const char *name;
	unsigned int byte;	/* first byte of the field */
	unsigned int bit;	/* first bit, 0 = MSB of that byte */
	unsigned int width;	/* bits */
	void (*set)(void *h, uint64_t v);
	uint64_t (*get)(const void *h);
};

/* Wrappers with one signature around each typed accessor pair. */
#define ACC(hdr, fld)							\
static void set_##hdr##_##fld(void *h, uint64_t v)			\
{ roce_##hdr##_set_##fld(h, v); }					\
static uint64_t get_##hdr##_##fld(const void *h)			\
{ return roce_##hdr##_##fld(h); }
#define F(hdr, fld, byte, bit, width) \
	{ #hdr "." #fld, byte, bit, width, set_##hdr##_##fld, get_##hdr##_##fld }

ACC(bth, opcode) ACC(bth, se) ACC(bth, mig) ACC(bth, pad) ACC(bth, tver)
ACC(bth, pkey) ACC(bth, fecn) ACC(bth, becn) ACC(bth, resv6) ACC(bth, dqpn)
ACC(bth, ackreq) ACC(bth, resv7) ACC(bth, psn)
ACC(reth, va) ACC(reth, rkey) ACC(reth, len)
ACC(aeth, syndrome) ACC(aeth, msn)
ACC(atmeth, va) ACC(atmeth, rkey) ACC(atmeth, swap_add) ACC(atmeth, compare)
ACC(atmack, orig) ACC(immdt, imm) ACC(ieth, rkey)
ACC(deth, qkey) ACC(deth, sqpn)
ACC(mad, base_version) ACC(mad, mgmt_class) ACC(mad, class_version)
ACC(mad, method) ACC(mad, status) ACC(mad, class_specific) ACC(mad, tid)
ACC(mad, attr_id) ACC(mad, resv) ACC(mad, attr_mod)
ACC(ipv4, dscp) ACC(ipv4, ecn)

static void
set_mad_resp(void *h, uint64_t v)
{
	roce_mad_set_resp(h, v);
}

static uint64_t
get_mad_resp(const void *h)
{
	return roce_mad_is_resp(h);
}

static const struct field fields[] = {
	/* BTH, IBTA 9.2 figure 94 */
	F(bth, opcode, 0, 0, 8), F(bth, se, 1, 0, 1), F(bth, mig, 1, 1, 1),
	F(bth, pad, 1, 2, 2), F(bth, tver, 1, 4, 4), F(bth, pkey, 2, 0, 16),
	F(bth, fecn, 4, 0, 1), F(bth, becn, 4, 1, 1), F(bth, resv6, 4, 2, 6),
	F(bth, dqpn, 5, 0, 24), F(bth, ackreq, 8, 0, 1),
	F(bth, resv7, 8, 1, 7), F(bth, psn, 9, 0, 24),
	/* RETH 9.3.3, AETH 9.3.5, AtomicETH 9.3.4, AtomicAckETH 9.3.6 */
	F(reth, va, 0, 0, 64), F(reth, rkey, 8, 0, 32), F(reth, len, 12, 0, 32),
	F(aeth, syndrome, 0, 0, 8), F(aeth, msn, 1, 0, 24),
	F(atmeth, va, 0, 0, 64), F(atmeth, rkey, 8, 0, 32),
	F(atmeth, swap_add, 12, 0, 64), F(atmeth, compare, 20, 0, 64),
	F(atmack, orig, 0, 0, 64),
	/* ImmDt 9.3.7, IETH 9.3.8, DETH 9.3.2 */
	F(immdt, imm, 0, 0, 32), F(ieth, rkey, 0, 0, 32),
	F(deth, qkey, 0, 0, 32), F(deth, sqpn, 5, 0, 24),
	/* MAD common header, IBTA 13.4.3 figure 145 */
	F(mad, base_version, 0, 0, 8), F(mad, mgmt_class, 1, 0, 8),
	F(mad, class_version, 2, 0, 8), F(mad, resp, 3, 0, 1),
	F(mad, method, 3, 1, 7), F(mad, status, 4, 0, 16),
	F(mad, class_specific, 6, 0, 16), F(mad, tid, 8, 0, 64),
	F(mad, attr_id, 16, 0, 16), F(mad, resv, 18, 0, 16),
	F(mad, attr_mod, 20, 0, 32),
	/* IPv4 TOS: DSCP (RFC 2474) and ECN (RFC 3168) */
	F(ipv4, dscp, 1, 0, 6), F(ipv4, ecn, 1, 6, 2),
};

/* Reference writer: bit i of the field is bit (bit + i) after byte's MSB. */
static void
put_bits(uint8_t *buf, unsigned int byte, unsigned int bit,
	 unsigned int width, uint64_t v)
{
	unsigned int i, pos;

	for (i = 0; i < width; i++) {
		pos = byte * 8 + bit + i;
		if ((v >> (width - 1 - i)) & 1)
			buf[pos / 8] |= (uint8_t)(0x80 >> (pos % 8));
		else
			buf[pos / 8] &= (uint8_t)~(0x80 >> (pos % 8));
	}
}

static uint64_t
ones(unsigned int width)
{
	return width == 64 ? UINT64_MAX : (1ULL << width) - 1;
}

static void
check_field(const struct field *f, uint8_t fill, uint64_t v)
{
	uint8_t buf[48], ref[48];
	/* 1-bit fields have bool setters: any non-zero value sets them */
	uint64_t want = f->width == 1 ? v != 0 : v & ones(f->width);
	void *h = buf + 3;	/* odd address: packed structs */

	memset(buf, fill, sizeof(buf));
	memset(ref, fill, sizeof(ref));
	f->set(h, v);
	put_bits(ref + 3, f->byte, f->bit, f->width, want);
	if (f->get(h) != want || memcmp(buf, ref, sizeof(buf)) != 0) {
		fprintf(stderr, "%s fill %02x value %#" PRIx64 ": got %#" PRIx64
			"\n", f->name, fill, v, f->get(h));
		CU_FAIL("field round trip");
		return;
	}
	CU_PASS("field round trip");
	/* The getter reads only its bits: flip all others. */
	memset(buf, (uint8_t)~fill, sizeof(buf));
	put_bits(buf + 3, f->byte, f->bit, f->width, want);
	CU_ASSERT_EQUAL(f->get(h), want);
}

static void
test_field_round_trips(void)
{
	static const uint64_t values[] = {
		0, UINT64_MAX, 0xa5a5a5a5a5a5a5a5ULL, 0x5a5a5a5a5a5a5a5aULL,
		0x0123456789abcdefULL, 1, 0x800000ULL, 0xffffffULL,
	};
	unsigned int i, j;

	for (i = 0; i < RTE_DIM(fields); i++)
		for (j = 0; j < RTE_DIM(values); j++) {
			check_field(&fields[i], 0x00, values[j]);
			check_field(&fields[i], 0xff, values[j]);
		}
}

/* Offsets of the struct members match the fields table. */
static void
test_layouts(void)
{
	CU_ASSERT_EQUAL(offsetof(struct roce_bth, pkey), 2);
	CU_ASSERT_EQUAL(offsetof(struct roce_bth, qpn), 4);
	CU_ASSERT_EQUAL(offsetof(struct roce_bth, apsn), 8);
	CU_ASSERT_EQUAL(offsetof(struct roce_atmeth, swap_add), 12);
	CU_ASSERT_EQUAL(offsetof(struct roce_atmeth, compare), 20);
	CU_ASSERT_EQUAL(offsetof(struct roce_mad_hdr, tid), 8);
	CU_ASSERT_EQUAL(offsetof(struct roce_mad_hdr, attr_id), 16);
	CU_ASSERT_EQUAL(offsetof(struct roce_mad_hdr, attr_mod), 20);
	CU_ASSERT_EQUAL(sizeof(struct roce_reth) + sizeof(struct roce_bth), 28);
}

/* IBTA 9.3.5 tables 43/44 and the vectors' syndromes. */
static void
test_syndrome(void)
{
	unsigned int t, v;

	for (t = 0; t < 8; t++)
		for (v = 0; v < 32; v++) {
			uint8_t s = roce_syndrome(t, v);

			CU_ASSERT_EQUAL(s, t << 5 | v);
			CU_ASSERT_EQUAL(roce_syndrome_type(s), t);
			CU_ASSERT_EQUAL(roce_syndrome_value(s), v);
		}
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_ACK, ROCE_AETH_CREDIT_INVALID), 0x1f);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR), 0x60);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_INVALID_REQ), 0x61);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_REM_ACCESS_ERR), 0x62);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_REM_OP_ERR), 0x63);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_INVALID_RD_REQ), 0x64);
	CU_ASSERT_EQUAL(roce_syndrome(ROCE_AETH_RNR_NAK, 14), 0x2e);
	CU_ASSERT_EQUAL(roce_syndrome_type(0x40), ROCE_AETH_RSVD);
}

static void
test_vlan_and_ip(void)
{
	uint8_t raw[64];
	struct rte_ipv6_hdr *ip6 = (void *)(raw + 1);
	struct rte_ipv4_hdr *ip4 = (void *)(raw + 1);
	uint16_t tci = roce_vlan_tci(5, true, 0xabc);

	CU_ASSERT_EQUAL(tci, 0xbabc);
	CU_ASSERT_EQUAL(roce_vlan_pcp(tci), 5);
	CU_ASSERT(roce_vlan_dei(tci));
	CU_ASSERT_EQUAL(roce_vlan_vid(tci), 0xabc);
	CU_ASSERT_EQUAL(roce_vlan_tci(7, false, 0xffff), 0xefff);

	memset(raw, 0xff, sizeof(raw));
	roce_ipv6_set_vtc_flow(ip6, 0x2a, 0xbcde);	/* as the vectors */
	CU_ASSERT_EQUAL(raw[1], 0x62);
	CU_ASSERT_EQUAL(raw[2], 0xa0);
	CU_ASSERT_EQUAL(raw[3], 0xbc);
	CU_ASSERT_EQUAL(raw[4], 0xde);
	CU_ASSERT_EQUAL(raw[5], 0xff);
	CU_ASSERT_EQUAL(roce_ip_version(ip6), 6);
	CU_ASSERT_EQUAL(roce_ipv6_tc(ip6), 0x2a);
	CU_ASSERT_EQUAL(roce_ipv6_flow(ip6), 0xbcde);
	roce_ipv6_set_vtc_flow(ip6, 0xff, 0xfffffff);
	CU_ASSERT_EQUAL(roce_ipv6_flow(ip6), 0xfffff);
	CU_ASSERT_EQUAL(roce_ip_version(ip6), 6);

	memset(raw, 0, sizeof(raw));
	roce_ipv4_set_version_hlen(ip4, 24);
	CU_ASSERT_EQUAL(raw[1], 0x46);
	CU_ASSERT_EQUAL(roce_ipv4_hlen(ip4), 24);
	CU_ASSERT_FALSE(roce_ipv4_is_fragment(ip4));
	ip4->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	CU_ASSERT_FALSE(roce_ipv4_is_fragment(ip4));
	ip4->fragment_offset = RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	CU_ASSERT(roce_ipv4_is_fragment(ip4));
	ip4->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG | 1);
	CU_ASSERT(roce_ipv4_is_fragment(ip4));
}

static CU_TestInfo hdr_tests[] = {
	{ "every field: set, get, neighbours untouched", test_field_round_trips },
	{ "struct layouts", test_layouts },
	{ "AETH syndrome helpers", test_syndrome },
	{ "802.1Q and IP sub-byte fields", test_vlan_and_ip },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "wire_hdr", NULL, NULL, NULL, NULL, hdr_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
