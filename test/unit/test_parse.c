/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_parse() on the shared vectors (IPv4 and IPv6, every opcode, the
 * captured CM MADs), in one segment and chained, truncated at every
 * length, and on malformed frames that must each give their own reason.
 * Frames sit flush with the end of their allocation (wire_mbuf_exact), so
 * a read past the data is caught by the sanitizer build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_mbuf.h"
#include "roce_parse.h"
#include "test_common.h"
#include "wire_util.h"

static struct test_vector *vec, *cm;
static int nvec, ncm;

static int
suite_init(void)
{
	nvec = test_load_vectors("rocev2-frames.hex", &vec);
	ncm = test_load_vectors("rxe-cm-mads.hex", &cm);
	return nvec > 0 && ncm > 0 ? 0 : -1;
}

/* Parse @p len bytes at @p d from an exact mbuf; only scalars of pkt stay valid. */
static int
parse_bytes(const void *d, size_t len, struct roce_pkt *pkt)
{
	struct rte_mbuf *m = wire_mbuf_exact(d, len);
	int ret;

	if (m == NULL) {
		CU_FAIL_FATAL("mbuf");
		return 1;
	}
	ret = roce_parse(m, pkt);
	rte_pktmbuf_free(m);
	return ret;
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Addresses of the vectors (README): 198.18.0.1 / 2001:db8::1 -> ...2. */
static void
check_addresses(const struct roce_pkt *pkt, bool v6)
{
	static const uint8_t v4src[16] = { [10] = 0xff, [11] = 0xff,
		198, 18, 0, 1 };
	static const uint8_t v6src[16] = { 0x20, 0x01, 0x0d, 0xb8,
		[15] = 1 };
	static const struct rte_ether_addr smac = {{ 2, 0, 0, 0, 0, 1 }};
	static const struct rte_ether_addr dmac = {{ 2, 0, 0, 0, 0, 2 }};
	uint8_t dst[16];

	memcpy(dst, v6 ? v6src : v4src, 16);
	dst[15] = 2;
	CU_ASSERT(memcmp(pkt->sgid, v6 ? v6src : v4src, 16) == 0);
	CU_ASSERT(memcmp(pkt->dgid, dst, 16) == 0);
	CU_ASSERT(rte_is_same_ether_addr(&roce_pkt_eth(pkt)->src_addr, &smac));
	CU_ASSERT(rte_is_same_ether_addr(&roce_pkt_eth(pkt)->dst_addr, &dmac));
	if (!v6) {
		/* 198.18.0.1 and 198.18.0.2 */
		CU_ASSERT_EQUAL(pkt->saddr4, RTE_BE32(0xc6120001));
		CU_ASSERT_EQUAL(pkt->daddr4, RTE_BE32(0xc6120002));
		CU_ASSERT_PTR_NOT_NULL(roce_pkt_ipv4(pkt));
		CU_ASSERT_PTR_NULL(roce_pkt_ipv6(pkt));
	} else {
		CU_ASSERT_PTR_NOT_NULL(roce_pkt_ipv6(pkt));
		CU_ASSERT_PTR_NULL(roce_pkt_ipv4(pkt));
	}
}

/* AETH of ACK-type vectors (IBTA 9.3.5 tables 43, 44). */
static void
check_aeth(const char *name, const struct roce_aeth *aeth)
{
	uint8_t syn = roce_aeth_syndrome(aeth);

	if (strstr(name, "NAK_PSN_SEQ_ERR") != NULL) {
		CU_ASSERT_EQUAL(roce_syndrome_type(syn), ROCE_AETH_NAK);
		CU_ASSERT_EQUAL(roce_syndrome_value(syn), ROCE_NAK_PSN_SEQ_ERR);
	} else if (strstr(name, "NAK_REMOTE_ACCESS") != NULL) {
		CU_ASSERT_EQUAL(roce_syndrome_type(syn), ROCE_AETH_NAK);
		CU_ASSERT_EQUAL(roce_syndrome_value(syn), ROCE_NAK_REM_ACCESS_ERR);
	} else if (strstr(name, "RNR_NAK_t14") != NULL) {
		CU_ASSERT_EQUAL(roce_syndrome_type(syn), ROCE_AETH_RNR_NAK);
		CU_ASSERT_EQUAL(roce_syndrome_value(syn), 14);
	} else {
		CU_ASSERT_EQUAL(roce_syndrome_type(syn), ROCE_AETH_ACK);
	}
}

static void
check_vector(const struct test_vector *v, const struct roce_pkt *pkt)
{
	bool v6 = has_suffix(v->name, "_v6");
	const struct roce_bth *bth = roce_pkt_bth(pkt);
	const uint32_t f = pkt->op->flags;
	unsigned int e;

	CU_ASSERT_EQUAL(pkt->opcode, wire_vector_opcode(v->name));
	CU_ASSERT_EQUAL(roce_bth_opcode(bth), pkt->opcode);
	CU_ASSERT_PTR_EQUAL(pkt->op, roce_opcode_info(pkt->opcode));
	CU_ASSERT_EQUAL(pkt->ip_ver, v6 ? 6 : 4);
	CU_ASSERT_EQUAL(pkt->l3_off, 14);
	CU_ASSERT_EQUAL(pkt->l4_off, v6 ? 54 : 34);
	CU_ASSERT_EQUAL(pkt->bth_off, pkt->l4_off + 8);
	CU_ASSERT_EQUAL(pkt->len, v->len);
	CU_ASSERT_EQUAL(pkt->payload_off, pkt->bth_off + pkt->op->hdr_len);
	CU_ASSERT_EQUAL(pkt->payload_off + pkt->payload_len + pkt->pad + 4,
			v->len);
	CU_ASSERT_EQUAL(roce_pkt_payload_len(pkt), pkt->payload_len);
	CU_ASSERT_EQUAL(pkt->pad, (-pkt->payload_len) & 3);
	CU_ASSERT_EQUAL(pkt->pad, has_suffix(v->name, "_pad3_v4") ||
			has_suffix(v->name, "_pad3_v6") ? 3 : pkt->pad);
	CU_ASSERT_PTR_EQUAL(roce_pkt_payload(pkt),
		rte_pktmbuf_mtod_offset(pkt->m, uint8_t *, pkt->payload_off));
	CU_ASSERT_EQUAL(pkt->flags & ROCE_PKT_VLAN, 0);
	CU_ASSERT_EQUAL(roce_bth_tver(bth), 0);
	CU_ASSERT_EQUAL(roce_pkt_udp(pkt)->dst_port, RTE_BE16(ROCE_UDP_PORT));
	CU_ASSERT_EQUAL(pkt->ttl, 64);
	CU_ASSERT_EQUAL(pkt->dscp, 0);
	CU_ASSERT_EQUAL(pkt->ecn, strstr(v->name, "ecn_ce") ? ROCE_ECN_CE :
			ROCE_ECN_ECT0);
	CU_ASSERT_EQUAL(roce_bth_pkey(bth), strstr(v->name, "pkey_8001") ?
			0x8001 : 0xffff);
	if (v6)
		CU_ASSERT_EQUAL(pkt->flow_label, 0xabcde);
	check_addresses(pkt, v6);
	for (e = 0; e < ROCE_EXT_MAX; e++)
		CU_ASSERT_EQUAL(roce_pkt_ext(pkt, e) != NULL, !!(f & (1u << e)));

	if (f & ROCE_OPF_AETH)
		check_aeth(v->name, roce_pkt_aeth(pkt));
	/* A single-packet WRITE's RETH length is its payload (IBTA 9.4.2). */
	if ((f & ROCE_OPF_WRITE) && (f & ROCE_OPF_ONLY) == ROCE_OPF_ONLY)
		CU_ASSERT_EQUAL(roce_reth_len(roce_pkt_reth(pkt)),
				pkt->payload_len);
	if (pkt->opcode == ROCE_OP_CNP) {
		static const uint8_t zero[ROCE_CNP_RSVD_LEN];

		CU_ASSERT(roce_bth_becn(bth));
		CU_ASSERT(memcmp(roce_pkt_cnp(pkt), zero, sizeof(zero)) == 0);
		CU_ASSERT_EQUAL(pkt->payload_len, 0);
	}
	if (strncmp(v->name, "GSI_MAD", 7) == 0) {
		/* QP1 with the well-known GSI Q_Key (IBTA 9.6.1.1.1). */
		CU_ASSERT_EQUAL(roce_bth_dqpn(bth), 1);
		CU_ASSERT_EQUAL(roce_deth_sqpn(roce_pkt_deth(pkt)), 1);
		CU_ASSERT_EQUAL(roce_deth_qkey(roce_pkt_deth(pkt)), 0x80010000);
		CU_ASSERT_EQUAL(pkt->payload_len, ROCE_MAD_LEN);
		CU_ASSERT_PTR_NOT_NULL(roce_pkt_mad_hdr(pkt));
	} else {
		CU_ASSERT_PTR_NULL(roce_pkt_mad_hdr(pkt));
	}
}

static void
test_vectors(void)
{
	struct roce_pkt pkt;
	int i, ret;

	CU_ASSERT(nvec >= 60);
	for (i = 0; i < nvec; i++) {
		struct rte_mbuf *m = wire_mbuf_exact(vec[i].data, vec[i].len);

		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT_NOT_EQUAL(wire_vector_opcode(vec[i].name), -1);
		ret = roce_parse(m, &pkt);
		if (ret != 0) {
			fprintf(stderr, "%s: %s\n", vec[i].name,
				roce_parse_reason_name(ret));
			CU_FAIL("vector rejected");
		} else {
			CU_ASSERT_PTR_EQUAL(pkt.hdr, rte_pktmbuf_mtod(m, uint8_t *));
			check_vector(&vec[i], &pkt);
		}
		rte_pktmbuf_free(m);
	}
}

static int
cm_attr(const char *name)
{
	static const struct {
		const char *prefix;
		int attr;
	} map[] = {
		{ "CM_REQ_", ROCE_CM_ATTR_REQ }, { "CM_REP_", ROCE_CM_ATTR_REP },
		{ "CM_RTU_", ROCE_CM_ATTR_RTU }, { "CM_REJ_", ROCE_CM_ATTR_REJ },
		{ "CM_DREQ_", ROCE_CM_ATTR_DREQ },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(map); i++)
		if (strncmp(name, map[i].prefix, strlen(map[i].prefix)) == 0)
			return map[i].attr;
	return -1;
}

/* Linux rxe CM MADs: UD SEND_ONLY to QP1 carrying a 256-byte CM MAD. */
static void
test_cm_mads(void)
{
	const struct roce_mad_hdr *mad;
	struct roce_pkt pkt;
	int i;

	CU_ASSERT(ncm >= 5);
	for (i = 0; i < ncm; i++) {
		struct rte_mbuf *m = wire_mbuf_exact(cm[i].data, cm[i].len);

		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT_EQUAL_FATAL(roce_parse(m, &pkt), 0);
		CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_UD_SEND_ONLY);
		CU_ASSERT_EQUAL(roce_bth_dqpn(roce_pkt_bth(&pkt)), 1);
		CU_ASSERT_EQUAL(roce_deth_sqpn(roce_pkt_deth(&pkt)), 1);
		CU_ASSERT_EQUAL(roce_deth_qkey(roce_pkt_deth(&pkt)), 0x80010000);
		CU_ASSERT_EQUAL(pkt.payload_len, ROCE_MAD_LEN);
		CU_ASSERT_EQUAL(pkt.len, cm[i].len);
		mad = roce_pkt_mad_hdr(&pkt);
		CU_ASSERT_FATAL(mad != NULL);
		CU_ASSERT_EQUAL(roce_mad_base_version(mad), 1);
		CU_ASSERT_EQUAL(roce_mad_mgmt_class(mad), ROCE_MGMT_CLASS_CM);
		CU_ASSERT_EQUAL(roce_mad_class_version(mad), 2);
		CU_ASSERT_EQUAL(roce_mad_method(mad), ROCE_MAD_METHOD_SEND);
		CU_ASSERT_FALSE(roce_mad_is_resp(mad));
		CU_ASSERT_EQUAL(roce_mad_status(mad), 0);
		CU_ASSERT_NOT_EQUAL(roce_mad_tid(mad), 0);
		CU_ASSERT_EQUAL(roce_mad_attr_id(mad), cm_attr(cm[i].name));
		CU_ASSERT_EQUAL(roce_mad_attr_mod(mad), 0);
		rte_pktmbuf_free(m);
	}
}

/*
 * The same frames chained in small segments: same view; the headers are
 * bounced only when they do not all lie in the first segment.
 */
static void
test_chained(void)
{
	static const size_t segs[] = { 1, 5, 17, 60, 127, 128, 200 };
	struct roce_pkt a, b;
	unsigned int s;
	int i;

	for (i = 0; i < nvec; i++) {
		struct rte_mbuf *m0 = wire_mbuf_exact(vec[i].data, vec[i].len);

		CU_ASSERT_FATAL(m0 != NULL && roce_parse(m0, &a) == 0);
		for (s = 0; s < RTE_DIM(segs); s++) {
			struct rte_mbuf *m = test_mbuf_from(vec[i].data,
							    vec[i].len, segs[s]);
			bool bounce = segs[s] < a.payload_off;

			CU_ASSERT_FATAL(m != NULL);
			CU_ASSERT_EQUAL_FATAL(roce_parse(m, &b), 0);
			CU_ASSERT_EQUAL(!!(b.flags & ROCE_PKT_BOUNCED), bounce);
			CU_ASSERT_EQUAL(b.opcode, a.opcode);
			CU_ASSERT_EQUAL(b.bth_off, a.bth_off);
			CU_ASSERT_EQUAL(b.payload_off, a.payload_off);
			CU_ASSERT_EQUAL(b.payload_len, a.payload_len);
			CU_ASSERT_EQUAL(b.len, a.len);
			CU_ASSERT(memcmp(b.sgid, a.sgid, 16) == 0);
			CU_ASSERT(memcmp(roce_pkt_hdr(&b), vec[i].data,
					 b.payload_off) == 0);
			CU_ASSERT_EQUAL(roce_bth_psn(roce_pkt_bth(&b)),
					roce_bth_psn(roce_pkt_bth(&a)));
			if (b.payload_off + b.payload_len > segs[s])
				CU_ASSERT_PTR_NULL(roce_pkt_payload(&b));
			rte_pktmbuf_free(m);
		}
		rte_pktmbuf_free(m0);
	}
}

/*
 * A chain whose pkt_len claims more than its segments hold (a driver's
 * bug, not a wire input), with headers to bounce: refused as truncated,
 * nothing read past the last segment (ASan would see it); the same chain
 * with its length right parses.
 */
static void
test_chain_short_of_pkt_len(void)
{
	const struct test_vector *v = test_find_vector(vec, nvec,
						       "RC_SEND_ONLY_v4");
	static const size_t segs[] = { 5, 17, 40 };
	struct roce_pkt pkt;
	unsigned int s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (s = 0; s < RTE_DIM(segs); s++) {
		/* a chain of the frame's first 100 bytes */
		struct rte_mbuf *m = test_mbuf_from(v->data, 100, segs[s]);

		CU_ASSERT_FATAL(m != NULL);
		m->pkt_len = v->len;
		CU_ASSERT_EQUAL(roce_parse(m, &pkt), -ROCE_DROP_TRUNC_ETH);
		m->pkt_len = 100;
		CU_ASSERT_NOT_EQUAL(roce_parse(m, &pkt), -ROCE_DROP_TRUNC_ETH);
		rte_pktmbuf_free(m);
	}
}

/*
 * The whole frame, its headers in the first segment (read in place), one
 * byte short of pkt_len: refused before any reader trusts pkt_len. One
 * segment, two, and three with an empty middle one; the same chains with
 * the right pkt_len parse.
 */
static void
test_in_place_short_of_pkt_len(void)
{
	const struct test_vector *v = test_find_vector(vec, nvec,
						       "RC_RDMA_WRITE_ONLY_v4");
	struct roce_pkt pkt;
	unsigned int k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (k = 0; k < 3; k++) {
		struct rte_mbuf *m = k == 0 ? test_mbuf_from(v->data, v->len, 0) :
				     k == 1 ? test_mbuf_split(v->data, v->len, 70) :
				     test_mbuf_split3(v->data, v->len, 70, 70);

		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT_EQUAL(roce_parse(m, &pkt), 0);
		CU_ASSERT_PTR_NOT_NULL(pkt.hdr);	/* in place */
		m->pkt_len++;
		CU_ASSERT_EQUAL(roce_parse(m, &pkt), -ROCE_DROP_TRUNC_ETH);
		rte_pktmbuf_free(m);
	}
}

/*
 * roce_mbuf_gather() and roce_mbuf_read() at every offset and length of a
 * frame cut in three (empty middle segment too) match the flat bytes; with
 * pkt_len overstating the chain they return what the segments hold, and
 * roce_mbuf_holds() says no.
 */
static void
test_mbuf_segment_reads(void)
{
	const struct test_vector *v = test_find_vector(vec, nvec,
						       "RC_SEND_ONLY_v4");
	static const size_t cuts[][2] = { { 0, 0 }, { 1, 1 }, { 20, 20 },
					  { 20, 45 }, { 63, 64 } };
	uint8_t buf[256];
	unsigned int c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_FATAL(v->len <= sizeof(buf) && v->len > 64);
	for (c = 0; c < RTE_DIM(cuts); c++) {
		struct rte_mbuf *m = test_mbuf_split3(v->data, v->len,
						      cuts[c][0], cuts[c][1]);
		uint32_t off, len, n = (uint32_t)v->len;
		const uint8_t *r;

		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT(roce_mbuf_holds(m));
		for (off = 0; off <= n; off++) {
			for (len = 0; off + len <= n + 2; len++) {
				uint32_t want = off + len <= n ? len : n - off;

				memset(buf, 0, sizeof(buf));
				CU_ASSERT_EQUAL(roce_mbuf_gather(m, off, len,
								 buf), want);
				CU_ASSERT_EQUAL(memcmp(buf, v->data + off,
						       want), 0);
				r = roce_mbuf_read(m, off, len, buf);
				if (off + len > n) {
					CU_ASSERT_PTR_NULL(r);
				} else {
					CU_ASSERT_FATAL(r != NULL);
					CU_ASSERT_EQUAL(memcmp(r, v->data + off,
							       len), 0);
				}
			}
		}
		/* pkt_len past the segments: only what they hold */
		m->pkt_len = n + 40;
		CU_ASSERT(!roce_mbuf_holds(m));
		CU_ASSERT_EQUAL(roce_mbuf_gather(m, 10, n, buf), n - 10);
		CU_ASSERT_EQUAL(roce_mbuf_gather(m, n + 5, 4, buf), 0);
		CU_ASSERT_PTR_NULL(roce_mbuf_read(m, n - 4, 8, buf));
		rte_pktmbuf_free(m);
	}
}

/* Reason for a vector cut to len bytes: its IP length claims more. */
static int
trunc_reason(const struct test_vector *v, size_t len)
{
	size_t l3 = wire_l3_off(v->data);

	if (len < l3)
		return -ROCE_DROP_TRUNC_ETH;
	if (len < wire_l4_off(v->data))
		return -ROCE_DROP_TRUNC_IP;
	return -ROCE_DROP_IP_LEN;
}

static void
test_truncated(void)
{
	struct roce_pkt pkt;
	size_t len;
	int i, ret;

	for (i = 0; i < nvec + ncm; i++) {
		const struct test_vector *v = i < nvec ? &vec[i] : &cm[i - nvec];

		for (len = 0; len < v->len; len++) {
			ret = parse_bytes(v->data, len, &pkt);
			if (ret != trunc_reason(v, len)) {
				fprintf(stderr, "%s cut at %zu: %s\n", v->name,
					len, roce_parse_reason_name(ret));
				CU_FAIL("truncated frame");
			}
			if (len < 200 || len % 97 == 0 || len + 8 > v->len) {
				struct rte_mbuf *m = test_mbuf_from(v->data,
								    len, 7);

				CU_ASSERT_FATAL(m != NULL);
				CU_ASSERT_EQUAL(roce_parse(m, &pkt),
						trunc_reason(v, len));
				rte_pktmbuf_free(m);
			}
		}
	}
}

/* Consistent IP/UDP lengths, RoCE segment cut inside BTH/ext/ICRC. */
static void
test_truncated_roce(void)
{
	static uint8_t buf[512];
	struct roce_pkt pkt;
	size_t bth, k, hdr;
	int i, want;

	for (i = 0; i < nvec; i++) {
		bth = wire_bth_off(vec[i].data);
		hdr = roce_opcode_info(vec[i].data[bth])->hdr_len;
		for (k = 0; k < hdr + 4; k++) {
			memcpy(buf, vec[i].data, bth + k);
			wire_set_roce_len(buf, k);
			want = k < 12 ? -ROCE_DROP_TRUNC_BTH :
			       k < hdr ? -ROCE_DROP_TRUNC_EXT_HDR :
			       -ROCE_DROP_TRUNC_ICRC;
			CU_ASSERT_EQUAL(parse_bytes(buf, bth + k, &pkt), want);
		}
	}
}

static uint8_t fb[8192];
static size_t flen;

/* Copy vector @p name into fb; returns fb. */
static uint8_t *
frame(const char *name)
{
	const struct test_vector *v = test_find_vector(vec, nvec, name);

	CU_ASSERT_FATAL(v != NULL);
	memcpy(fb, v->data, v->len);
	flen = v->len;
	return fb;
}

static int
parse_fb(void)
{
	struct roce_pkt pkt;

	return parse_bytes(fb, flen, &pkt);
}

/* Insert n bytes at off in fb. */
static void
insert(size_t off, const void *bytes, size_t n)
{
	memmove(fb + off + n, fb + off, flen - off);
	memcpy(fb + off, bytes, n);
	flen += n;
}

static void
test_bad_l2_l3(void)
{
	static const uint8_t arp[2] = { 0x08, 0x06 }, qinq[4] = { 0x88, 0xa8, 0, 1 };
	static const uint8_t tag[4] = { 0x81, 0x00, 0x00, 0x01 };

	frame("RC_ACK_v4");
	memcpy(fb + 12, arp, 2);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_ACK_v4")[14] = 0x55;			/* version 5 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_IP_VERSION);
	frame("RC_ACK_v6")[14] = 0x40;			/* v4 in v6 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_IP_VERSION);
	frame("RC_ACK_v4")[13] = 0xdd;			/* 0x08dd */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_ACK_v4")[12] = 0x86;			/* v4 header, v6 type */
	fb[13] = 0xdd;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_IP_VERSION);
	frame("RC_ACK_v4")[14] = 0x44;			/* IHL 4 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_IHL);
	frame("RC_ACK_v4")[14] = 0x40;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_IHL);
	frame("RC_ACK_v4")[14] = 0x4f;			/* 60 bytes > frame */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_TRUNC_IP);
	frame("RC_SEND_ONLY_v4")[14] = 0x4f;		/* longer than IP len */
	fb[16] = 0;
	fb[17] = 40;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_LEN);
	frame("RC_ACK_v4")[17] += 1;			/* total length + 1 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_LEN);
	frame("RC_ACK_v4")[17] = 19;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_LEN);
	frame("RC_ACK_v6")[18] = 0;			/* payload length 0 */
	fb[19] = 0;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_LEN);
	frame("RC_ACK_v6")[19] += 1;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_LEN);

	frame("RC_ACK_v4")[24] ^= 1;			/* checksum */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_CSUM);
	frame("RC_ACK_v4")[22] = 63;			/* TTL, no csum fix */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_CSUM);
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_fb(), 0);

	frame("RC_ACK_v4")[20] |= 0x20;			/* MF */
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_FRAG);
	frame("RC_ACK_v4")[21] = 1;			/* offset 8 */
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_IP_FRAG);
	frame("RC_ACK_v4")[23] = 6;			/* TCP */
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	fb[24] ^= 1;		/* not UDP: the host checks its checksum */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_ACK_v6")[20] = 6;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_ACK_v6")[20] = 0;			/* hop-by-hop options */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);

	/* One 802.1Q tag is fine; QinQ and double tags are not RoCE. */
	frame("RC_SEND_ONLY_v6");
	insert(12, tag, 4);
	CU_ASSERT_EQUAL(parse_fb(), 0);
	frame("RC_SEND_ONLY_v6");
	insert(12, tag, 4);
	insert(12, tag, 4);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_SEND_ONLY_v4");
	insert(12, tag, 4);
	fb[12] = qinq[0];
	fb[13] = qinq[1];
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_SEND_ONLY_v4");
	insert(12, tag, 4);
	flen = 17;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_TRUNC_ETH);
}

static void
test_vlan_options_padding(void)
{
	static const uint8_t tag[4] = { 0x81, 0x00, 0xa0, 0x7b };
	static const uint8_t nops[4] = { 1, 1, 1, 1 };
	const struct test_vector *v = test_find_vector(vec, nvec,
						       "RC_SEND_ONLY_IMM_v4");
	struct rte_mbuf *m;
	struct roce_pkt pkt, ref;
	rte_be32_t imm;

	CU_ASSERT_FATAL(v != NULL && parse_bytes(v->data, v->len, &ref) == 0);
	frame(v->name);
	insert(12, tag, 4);
	m = wire_mbuf_exact(fb, flen);
	CU_ASSERT_EQUAL_FATAL(roce_parse(m, &pkt), 0);
	CU_ASSERT(pkt.flags & ROCE_PKT_VLAN);
	CU_ASSERT_EQUAL(pkt.vlan_tci, 0xa07b);
	CU_ASSERT_EQUAL(roce_vlan_vid(pkt.vlan_tci), 0x07b);
	CU_ASSERT_EQUAL(roce_vlan_pcp(pkt.vlan_tci), 5);
	CU_ASSERT_EQUAL(pkt.l3_off, 18);
	CU_ASSERT_EQUAL(pkt.payload_off, ref.payload_off + 4);
	CU_ASSERT_EQUAL(pkt.payload_len, ref.payload_len);
	memcpy(&imm, v->data + ref.bth_off + ROCE_BTH_LEN, 4);
	CU_ASSERT_EQUAL(roce_immdt_imm(roce_pkt_immdt(&pkt)),
			rte_be_to_cpu_32(imm));
	rte_pktmbuf_free(m);

	/* IPv4 options (IHL 6): UDP moves, the rest follows. */
	frame(v->name);
	insert(34, nops, 4);
	fb[14] = 0x46;
	fb[17] += 4;
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_bytes(fb, flen, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.l4_off, 38);
	CU_ASSERT_EQUAL(pkt.payload_off, ref.payload_off + 4);
	CU_ASSERT_EQUAL(pkt.payload_len, ref.payload_len);
	CU_ASSERT_EQUAL(pkt.len, flen);

	/* Ethernet padding after the datagram is not part of the packet. */
	frame("RC_ACK_v6");
	memset(fb + flen, 0, 6);
	flen += 6;
	CU_ASSERT_EQUAL(parse_bytes(fb, flen, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.len, flen - 6);
	CU_ASSERT_EQUAL(pkt.payload_len, 0);
}

static void
test_ip_csum_flags(void)
{
	struct roce_pkt pkt;
	struct rte_mbuf *m;

	frame("RC_ACK_v4")[24] ^= 0xff;			/* bad checksum */
	m = wire_mbuf_exact(fb, flen);
	CU_ASSERT_FATAL(m != NULL);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;	/* the NIC checked it */
	CU_ASSERT_EQUAL(roce_parse(m, &pkt), 0);
	rte_pktmbuf_free(m);
	frame("RC_ACK_v4");
	m = wire_mbuf_exact(fb, flen);
	CU_ASSERT_FATAL(m != NULL);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	CU_ASSERT_EQUAL(roce_parse(m, &pkt), -ROCE_DROP_IP_CSUM);
	rte_pktmbuf_free(m);
}

static void
test_bad_udp_bth(void)
{
	static const uint8_t bad_ops[] = { 0x15, 0x18, 0x1c, 0x40, 0x55, 0x60,
					   0x66, 0x80, 0x82, 0xa0, 0xff };
	size_t bth, i;

	frame("RC_ACK_v4")[37] = 0xb8;			/* port 4792 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_PARSE_NOT_ROCE);
	frame("RC_ACK_v6")[59] += 1;			/* UDP length + 1 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_UDP_LEN);
	frame("RC_ACK_v4")[39] -= 1;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_UDP_LEN);
	frame("RC_ACK_v4")[39] = 4;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_UDP_LEN);
	frame("RC_ACK_v4")[17] = 20 + 4;		/* IP payload 4 bytes */
	flen = 14 + 24;
	wire_fix_ipv4_csum(fb);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_TRUNC_UDP);

	bth = wire_bth_off(frame("RC_SEND_ONLY_v6"));
	fb[bth + 1] |= 1;				/* TVer 1 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_TVER);
	fb[bth + 1] |= 0xf;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_TVER);
	for (i = 0; i < RTE_DIM(bad_ops); i++) {
		frame("RC_SEND_ONLY_v4")[wire_bth_off(fb)] = bad_ops[i];
		CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_OPCODE);
	}
}

static void
test_bad_pad_len(void)
{
	struct roce_pkt pkt;
	size_t bth;

	bth = wire_bth_off(frame("RC_RDMA_WRITE_ONLY_zero_v4"));
	fb[bth + 1] |= 1 << 4;				/* pad 1 > payload 0 */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_PAD);
	bth = wire_bth_off(frame("RC_ACK_v6"));
	fb[bth + 1] |= 3 << 4;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_PAD);
	bth = wire_bth_off(frame("RC_SEND_FIRST_v4"));
	fb[bth + 1] |= 1 << 4;				/* pad before last */
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_PAD);
	bth = wire_bth_off(frame("RC_SEND_MIDDLE_v6"));
	fb[bth + 1] |= 2 << 4;
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_PAD);
	bth = wire_bth_off(frame("RC_SEND_ONLY_v4"));	/* 64 bytes, pad 2 */
	fb[bth + 1] |= 2 << 4;
	CU_ASSERT_EQUAL(parse_bytes(fb, flen, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.payload_len, 62);

	/* Four bytes of payload on an ACK, on a CNP; a length not 4-aligned. */
	bth = wire_bth_off(frame("RC_ACK_v4"));
	memset(fb + flen, 0, 4);
	flen += 4;
	wire_set_roce_len(fb, flen - bth);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_LEN);
	bth = wire_bth_off(frame("CNP_v6"));
	memset(fb + flen, 0, 4);
	flen += 4;
	wire_set_roce_len(fb, flen - bth);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_LEN);
	bth = wire_bth_off(frame("RC_SEND_ONLY_v4"));
	fb[flen++] = 0;
	wire_set_roce_len(fb, flen - bth);
	CU_ASSERT_EQUAL(parse_fb(), -ROCE_DROP_BAD_LEN);
}

/* Random frames and random mutations: a known reason, never a crash. */
static void
test_garbage(void)
{
	uint64_t seed = 0x5eed0f50f7e41cULL;
	uint8_t buf[512];
	struct roce_pkt pkt;
	unsigned int n, j, seen[ROCE_PARSE_REASON_MAX] = { 0 };
	size_t len;
	int ret;

	for (n = 0; n < 30000; n++) {
		const struct test_vector *v = &vec[wire_rand(&seed) % nvec];

		len = wire_rand(&seed) % sizeof(buf);
		for (j = 0; j < len; j++)
			buf[j] = (uint8_t)wire_rand(&seed);
		if (n % 3 != 0 && v->len <= sizeof(buf)) {
			/* a real frame with 1-4 bytes of its headers changed */
			len = v->len;
			memcpy(buf, v->data, len);
			for (j = 0; j < 1 + n % 4; j++)
				buf[wire_rand(&seed) % RTE_MIN(len, (size_t)90)] =
					(uint8_t)wire_rand(&seed);
			if (n % 2)
				wire_fix_ipv4_csum(buf);
		} else if (n % 2 && len >= 14) {
			buf[12] = 0x08;		/* random IPv4 */
			buf[13] = 0x00;
			buf[14] = 0x45;
		}
		ret = parse_bytes(buf, len, &pkt);
		CU_ASSERT(ret <= 0 && ret > -ROCE_PARSE_REASON_MAX);
		if (ret > 0 || ret <= -ROCE_PARSE_REASON_MAX)
			continue;
		seen[-ret]++;
		if (ret == 0) {
			CU_ASSERT(pkt.len <= len);
			CU_ASSERT_EQUAL(pkt.payload_off + pkt.payload_len +
					pkt.pad + 4, pkt.len);
			CU_ASSERT(roce_opcode_valid(pkt.opcode));
		}
	}
	for (j = 0; j < ROCE_PARSE_REASON_MAX; j++)
		printf("\n    %-24s %u", roce_parse_reason_name(j), seen[j]);
	CU_ASSERT(seen[ROCE_PARSE_OK] > 0);
	CU_ASSERT(seen[ROCE_DROP_BAD_OPCODE] > 0);
}

static void
test_reason_names(void)
{
	int i, j;

	for (i = 0; i < ROCE_PARSE_REASON_MAX; i++) {
		const char *n = roce_parse_reason_name(-i);

		CU_ASSERT(strncmp(n, "rx_", 3) == 0);
		CU_ASSERT_STRING_NOT_EQUAL(n, "rx_drop_unknown");
		CU_ASSERT_STRING_EQUAL(n, roce_parse_reason_name(i));
		for (j = 0; j < i; j++)
			CU_ASSERT_STRING_NOT_EQUAL(n, roce_parse_reason_name(j));
		if (i > ROCE_PARSE_NOT_ROCE)
			CU_ASSERT(strncmp(n, "rx_drop_", 8) == 0);
	}
	CU_ASSERT_STRING_EQUAL(roce_parse_reason_name(-ROCE_DROP_BAD_OPCODE),
			       "rx_drop_bad_opcode");
	CU_ASSERT_STRING_EQUAL(roce_parse_reason_name(ROCE_PARSE_REASON_MAX),
			       "rx_drop_unknown");
	CU_ASSERT_STRING_EQUAL(roce_parse_reason_name(-1000), "rx_drop_unknown");
}

static CU_TestInfo parse_tests[] = {
	{ "every vector parses with sane fields", test_vectors },
	{ "CM MADs of Linux rxe", test_cm_mads },
	{ "chained in small segments", test_chained },
	{ "chain shorter than its pkt_len", test_chain_short_of_pkt_len },
	{ "headers in place, chain short of pkt_len", test_in_place_short_of_pkt_len },
	{ "segment reads of a chain", test_mbuf_segment_reads },
	{ "truncated at every length", test_truncated },
	{ "RoCE segment cut in BTH/ext/ICRC", test_truncated_roce },
	{ "bad Ethernet/IP", test_bad_l2_l3 },
	{ "802.1Q, IPv4 options, Ethernet padding", test_vlan_options_padding },
	{ "IP checksum offload flags", test_ip_csum_flags },
	{ "bad UDP/BTH", test_bad_udp_bth },
	{ "bad pad and length", test_bad_pad_len },
	{ "random garbage", test_garbage },
	{ "reason names", test_reason_names },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "parse", suite_init, NULL, NULL, NULL, parse_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
