/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 ICRC (IBTA annex A17) against ../shared/vectors/rocev2-frames.hex:
 * verify, compute and fill over contiguous buffers and chained mbufs, every
 * single-bit flip of the covered bytes, the masked fields, truncation and
 * malformed headers, and a bitwise reference CRC32 independent of ISA-L.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "roce_icrc.h"
#include "roce_icrc_priv.h"
#include "roce_parse.h"
#include "test_common.h"

#define VECTORS_FILE	"rocev2-frames.hex"
#define MAX_FRAME	8192

static struct test_vector *vec;
static int nvec;

/* Reflected IEEE CRC32, bit by bit, zlib convention (chainable). */
static uint32_t
ref_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	size_t i;
	int b;

	crc = ~crc;
	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Offset of the IP header: Ethernet plus any 802.1Q/802.1ad tags. */
static uint32_t
l3_offset(const uint8_t *f, size_t len)
{
	uint32_t off = 12;

	while (off + 4 <= len &&
	       (be16(f + off) == 0x8100 || be16(f + off) == 0x88a8))
		off += 4;
	return off + 2;
}

static int
ip_version(const uint8_t *f, uint32_t l3)
{
	return f[l3] >> 4;
}

/* IP header length: IHL for IPv4, 40 for IPv6. */
static uint32_t
ip_hlen(const uint8_t *f, uint32_t l3)
{
	return ip_version(f, l3) == 4 ? (f[l3] & 0x0f) * 4u : 40u;
}

/* IP datagram length (where the ICRC slot ends), relative to l3. */
static uint32_t
ip_dgram(const uint8_t *f, uint32_t l3)
{
	return ip_version(f, l3) == 4 ? be16(f + l3 + 2) :
		40u + be16(f + l3 + 4);
}

/*
 * Bits of the byte at @p rel (from the IP header) that annex A17 replaces
 * by ones: the reference for the masked-bit tests.
 */
static uint8_t
masked_bits(const uint8_t *f, uint32_t l3, uint32_t rel)
{
	uint32_t l4 = ip_hlen(f, l3);

	if (ip_version(f, l3) == 4) {
		if (rel == 1 || rel == 8 || rel == 10 || rel == 11)
			return 0xff;	/* TOS, TTL, header checksum */
	} else {
		if (rel == 0)
			return 0x0f;	/* traffic class, high nibble */
		if (rel >= 1 && rel <= 3)
			return 0xff;	/* traffic class low, flow label */
		if (rel == 7)
			return 0xff;	/* hop limit */
	}
	if (rel == l4 + 6 || rel == l4 + 7)
		return 0xff;		/* UDP checksum */
	if (rel == l4 + 8 + 4)
		return 0xff;		/* BTH FECN/BECN/resv6 */
	return 0;
}

/* Reference ICRC: ones LRH + covered bytes with masked bits set. */
static uint32_t
ref_icrc(const uint8_t *f, uint32_t l3)
{
	static uint8_t buf[8 + MAX_FRAME];
	uint32_t n = ip_dgram(f, l3) - 4, i;

	memset(buf, 0xff, 8);
	for (i = 0; i < n; i++)
		buf[8 + i] = f[l3 + i] | masked_bits(f, l3, i);
	return ref_crc32(0, buf, 8 + n);
}

static uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

/* The vector called @p name (the test stops without it), its IP offset. */
static const struct test_vector *
named_vector(const char *name, uint32_t *l3)
{
	const struct test_vector *v = test_find_vector(vec, nvec, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	*l3 = l3_offset(v->data, v->len);
	return v;
}

/* Pointer to byte @p off of a chained mbuf. */
static uint8_t *
mbuf_byte(struct rte_mbuf *m, uint32_t off)
{
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	return m == NULL ? NULL : rte_pktmbuf_mtod_offset(m, uint8_t *, off);
}

static int
mbuf_equals(const struct rte_mbuf *m, const uint8_t *data, size_t len)
{
	static uint8_t buf[MAX_FRAME];
	const void *p;

	if (rte_pktmbuf_pkt_len(m) != len)
		return 0;
	p = rte_pktmbuf_read(m, 0, len, buf);
	return p != NULL && memcmp(p, data, len) == 0;
}

static void
test_reference_crc32(void)
{
	/* The CRC-32/ISO-HDLC check value. */
	CU_ASSERT_EQUAL(ref_crc32(0, (const uint8_t *)"123456789", 9),
			0xcbf43926u);
	CU_ASSERT_EQUAL(ref_crc32(ref_crc32(0, (const uint8_t *)"1234", 4),
				  (const uint8_t *)"56789", 5), 0xcbf43926u);
}

static void
test_vectors_loaded(void)
{
	int i, v4 = 0, v6 = 0;

	CU_ASSERT_FATAL(nvec > 0);
	for (i = 0; i < nvec; i++) {
		uint32_t l3 = l3_offset(vec[i].data, vec[i].len);

		CU_ASSERT_FATAL(vec[i].len <= MAX_FRAME - 64);
		/* No Ethernet padding in the vectors: IP ends the frame. */
		CU_ASSERT_EQUAL(l3 + ip_dgram(vec[i].data, l3), vec[i].len);
		if (ip_version(vec[i].data, l3) == 4)
			v4++;
		else if (ip_version(vec[i].data, l3) == 6)
			v6++;
	}
	CU_ASSERT(v4 > 0);
	CU_ASSERT(v6 > 0);
	CU_ASSERT_EQUAL(v4 + v6, nvec);
}

/*
 * Annex A17 spelt out with literal offsets on a hand-built masked buffer,
 * against the bitwise reference CRC (no ISA-L) and the library.
 */
static void
test_masking_by_hand(void)
{
	static const char *const names[] = {
		"RC_SEND_ONLY_v4", "RC_SEND_ONLY_v6",
		"RC_SEND_ONLY_ecn_ce_pkey_8001_v4",
		"RC_SEND_ONLY_ecn_ce_pkey_8001_v6",
	};
	uint8_t buf[8 + MAX_FRAME];
	unsigned int k;

	for (k = 0; k < RTE_DIM(names); k++) {
		const struct test_vector *v = test_find_vector(vec, nvec,
							       names[k]);
		uint32_t n, crc;

		CU_ASSERT_PTR_NOT_NULL_FATAL(v);
		/* Untagged Ethernet: IP at 14, copied to buf + 8. */
		CU_ASSERT_EQUAL_FATAL(l3_offset(v->data, v->len), 14);
		n = v->len - 14 - 4;
		memset(buf, 0xff, 8);
		memcpy(buf + 8, v->data + 14, n);
		if ((buf[8] >> 4) == 4) {
			CU_ASSERT_EQUAL_FATAL(buf[8], 0x45);
			buf[8 + 1] = 0xff;		/* TOS */
			buf[8 + 8] = 0xff;		/* TTL */
			buf[8 + 10] = 0xff;		/* checksum */
			buf[8 + 11] = 0xff;
			buf[8 + 20 + 6] = 0xff;		/* UDP checksum */
			buf[8 + 20 + 7] = 0xff;
			buf[8 + 28 + 4] = 0xff;		/* BTH byte 4 */
		} else {
			buf[8 + 0] |= 0x0f;		/* traffic class */
			buf[8 + 1] = 0xff;		/* TC + flow label */
			buf[8 + 2] = 0xff;
			buf[8 + 3] = 0xff;
			buf[8 + 7] = 0xff;		/* hop limit */
			buf[8 + 40 + 6] = 0xff;		/* UDP checksum */
			buf[8 + 40 + 7] = 0xff;
			buf[8 + 48 + 4] = 0xff;		/* BTH byte 4 */
		}
		crc = ref_crc32(0, buf, 8 + n);
		CU_ASSERT_EQUAL(crc, load_le32(v->data + v->len - 4));
		CU_ASSERT_EQUAL(crc, roce_icrc_compute(v->data, 14, v->len));
		/* Without the masks the CRC differs (the masks matter). */
		memcpy(buf + 8, v->data + 14, n);
		CU_ASSERT_NOT_EQUAL(ref_crc32(0, buf, 8 + n), crc);
	}
}

/* Every vector: the reference, the library and the stored bytes agree. */
static void
test_vectors_contiguous(void)
{
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len), icrc = 0;
		uint32_t want = load_le32(v->data + v->len - 4);
		uint8_t copy[MAX_FRAME];

		memcpy(copy, v->data, v->len);
		CU_ASSERT_EQUAL(roce_icrc_verify(copy, l3, v->len), 0);
		CU_ASSERT_EQUAL(roce_icrc_calc(copy, l3, v->len, &icrc), 0);
		CU_ASSERT_EQUAL(icrc, want);
		CU_ASSERT_EQUAL(roce_icrc_compute(copy, l3, v->len), want);
		CU_ASSERT_EQUAL(ref_icrc(copy, l3), want);
		/* Computing never touches the frame. */
		CU_ASSERT_EQUAL(memcmp(copy, v->data, v->len), 0);
		/* Fill rebuilds the exact bytes from a zeroed slot. */
		memset(copy + v->len - 4, 0, 4);
		CU_ASSERT_EQUAL(roce_icrc_verify(copy, l3, v->len), -EBADMSG);
		CU_ASSERT_EQUAL(roce_icrc_fill(copy, l3, v->len), 0);
		CU_ASSERT_EQUAL(memcmp(copy, v->data, v->len), 0);
		if (memcmp(copy, v->data, v->len) != 0)
			fprintf(stderr, "ICRC mismatch: %s\n", v->name);
	}
}

/*
 * Build an Ethernet + IP (@p ver; IPv4 with @p ihl words) + UDP + BTH frame
 * with @p plen bytes after the BTH, random contents; returns its length.
 */
static uint32_t
frame_of_len(uint8_t *f, int ver, uint32_t ihl, uint32_t plen, uint32_t *l3)
{
	uint32_t iph = ver == 4 ? ihl * 4 : 40, udp_len, i, len;
	uint8_t *ip = f + 14, *udp;

	len = 14 + iph + 8 + 12 + plen + 4;
	for (i = 0; i < len; i++)
		f[i] = (uint8_t)rand();
	f[12] = ver == 4 ? 0x08 : 0x86;
	f[13] = ver == 4 ? 0x00 : 0xdd;
	udp_len = 8 + 12 + plen + 4;
	if (ver == 4) {
		ip[0] = (uint8_t)(0x40 | ihl);
		ip[2] = (uint8_t)((iph + udp_len) >> 8);
		ip[3] = (uint8_t)(iph + udp_len);
		ip[9] = 17;
	} else {
		ip[0] = (uint8_t)(0x60 | (ip[0] & 0x0f));
		ip[4] = (uint8_t)(udp_len >> 8);
		ip[5] = (uint8_t)udp_len;
		ip[6] = 17;
	}
	udp = ip + iph;
	udp[2] = 0x12;
	udp[3] = 0xb7;		/* 4791 */
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	*l3 = 14;
	return len;
}

/*
 * roce_icrc_verify_pkt(), the worker's check after roce_parse(): every
 * vector, in one segment (the x86 kernel where it applies) and in chains
 * of 7 and 64-byte segments (roce_icrc_verify_mbuf()), verifies, and with
 * its ICRC slot zeroed it is -EBADMSG.
 */
static void
test_vectors_parsed(void)
{
	static const size_t segs[] = { 0, 7, 64 };
	uint8_t zeroed[MAX_FRAME];
	unsigned int s, parsed = 0;
	struct roce_pkt pkt;
	struct rte_mbuf *m;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];

		memcpy(zeroed, v->data, v->len);
		memset(zeroed + v->len - 4, 0, 4);
		for (s = 0; s < RTE_DIM(segs); s++) {
			m = test_mbuf_from(v->data, v->len, segs[s]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			if (roce_parse(m, &pkt) == 0) {
				parsed++;
				CU_ASSERT_EQUAL(roce_icrc_verify_pkt(&pkt), 0);
			}
			rte_pktmbuf_free(m);
			m = test_mbuf_from(zeroed, v->len, segs[s]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL_FATAL(roce_parse(m, &pkt), 0);
			CU_ASSERT_EQUAL(roce_icrc_verify_pkt(&pkt), -EBADMSG);
			rte_pktmbuf_free(m);
		}
	}
	CU_ASSERT_EQUAL(parsed, nvec * RTE_DIM(segs));
}

/*
 * Every CRC input length from headers only to past 512 bytes, IPv4 (with
 * and without options; IHL 10 is a 40-byte header, IPv6's size, told
 * apart by the version only) and IPv6: the library's x86 kernel (short
 * IPv4 without options and IPv6, on CPUs with PCLMULQDQ), one-call copy
 * and two-call paths against the bitwise reference, fill then verify, and
 * a flipped payload byte caught.
 */
static void
test_every_length(void)
{
	static const struct { int ver; uint32_t ihl; } ip[] = {
		{ 4, 5 }, { 4, 10 }, { 4, 15 }, { 6, 0 },
	};
	static uint8_t f[MAX_FRAME];
	uint32_t k, plen, len, l3, want;
	unsigned int bad = 0;

	srand(7);
	for (k = 0; k < RTE_DIM(ip); k++) {
		for (plen = 0; plen <= 520; plen++) {
			len = frame_of_len(f, ip[k].ver, ip[k].ihl, plen, &l3);
			want = ref_icrc(f, l3);
			if (roce_icrc_compute(f, l3, len) != want ||
			    roce_icrc_fill(f, l3, len) != 0 ||
			    load_le32(f + len - 4) != want ||
			    roce_icrc_verify(f, l3, len) != 0)
				bad++;
			f[len - 5] ^= 0x01;	/* last byte before the ICRC */
			if (roce_icrc_verify(f, l3, len) != -EBADMSG)
				bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * The IP header 0 to 16 bytes into an allocation of exactly the frame's
 * length: the x86 kernel reads the 8 bytes in front of the IP header, so
 * it must stand aside below 8 (the copy path computes those), and nothing
 * outside the buffer is read (the sanitizer stage's ASan sees each byte).
 */
static void
test_ip_near_buffer_start(void)
{
	static uint8_t f[MAX_FRAME];
	uint32_t plen, l3, len, off, n, want, at;
	unsigned int bad = 0;
	uint8_t *b;
	int ver;

	srand(11);
	for (ver = 4; ver <= 6; ver += 2) {
		/* every residue mod 16 (the kernel's padding), twice;
		 * and the copy path's lengths
		 */
		for (plen = 0; plen <= 400; plen += plen < 32 ? 1 : 92) {
			len = frame_of_len(f, ver, 5, plen, &l3);
			want = ref_icrc(f, l3);
			for (off = 0; off <= 16; off++) {
				/* off bytes of whatever, then the IP datagram */
				n = off + len - l3;
				b = malloc(n);
				if (b == NULL)
					break;
				for (at = 0; at < off; at++)
					b[at] = (uint8_t)rand();
				memcpy(b + off, f + l3, len - l3);
				at = n - ROCE_ICRC_LEN;
				if (roce_icrc_compute(b, off, n) != want ||
				    roce_icrc_fill(b, off, n) != 0 ||
				    load_le32(b + at) != want ||
				    roce_icrc_verify(b, off, n) != 0)
					bad++;
				free(b);
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_vectors_mbuf(void)
{
	static const size_t segs[] = { 0, 1, 7, 64, 100, 1000 };
	uint8_t zeroed[MAX_FRAME];
	unsigned int s;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len);
		uint32_t want = load_le32(v->data + v->len - 4);

		memcpy(zeroed, v->data, v->len);
		memset(zeroed + v->len - 4, 0, 4);
		for (s = 0; s < RTE_DIM(segs); s++) {
			struct rte_mbuf *m;
			uint32_t icrc = 0;

			m = test_mbuf_from(v->data, v->len, segs[s]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3), 0);
			CU_ASSERT_EQUAL(roce_icrc_calc_mbuf(m, l3, &icrc), 0);
			CU_ASSERT_EQUAL(icrc, want);
			CU_ASSERT_EQUAL(roce_icrc_compute_mbuf(m, l3), want);
			CU_ASSERT(mbuf_equals(m, v->data, v->len));
			rte_pktmbuf_free(m);

			m = test_mbuf_from(zeroed, v->len, segs[s]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3), -EBADMSG);
			CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, l3), 0);
			CU_ASSERT(mbuf_equals(m, v->data, v->len));
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3), 0);
			rte_pktmbuf_free(m);
		}
	}
}

/*
 * Two segments split at every byte of the headers and of the ICRC slot:
 * the masked copy and the slot are gathered/scattered across the boundary.
 */
static void
test_mbuf_every_split(void)
{
	static const char *const names[] = {
		"RC_SEND_ONLY_v4", "RC_SEND_ONLY_v6", "RC_ACK_v4",
		"UD_SEND_ONLY_v6", "CNP_v4",
	};
	uint8_t zeroed[MAX_FRAME];
	unsigned int k;
	size_t split;

	for (k = 0; k < RTE_DIM(names); k++) {
		uint32_t l3;
		const struct test_vector *v = named_vector(names[k], &l3);

		memcpy(zeroed, v->data, v->len);
		memset(zeroed + v->len - 4, 0, 4);
		for (split = 1; split < v->len; split++) {
			struct rte_mbuf *m = test_mbuf_split(v->data, v->len, split);

			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3), 0);
			rte_pktmbuf_free(m);
			m = test_mbuf_split(zeroed, v->len, split);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, l3), 0);
			CU_ASSERT(mbuf_equals(m, v->data, v->len));
			rte_pktmbuf_free(m);
		}
	}
}

/*
 * The chained paths of the worker's check after roce_parse()
 * (roce_icrc_verify_pkt()) and of the builders' fill
 * (roce_icrc_fill_built()): three segments, the first split at every byte
 * and the second empty, one byte or reaching into the ICRC slot. Where the
 * first segment holds the headers they walk the segments themselves (the
 * zero-copy frame's shape); a slot split across segments, or headers
 * across them, go to the cursor code. Every verify of the frame succeeds,
 * of the frame with a payload or slot byte changed fails, and every fill
 * writes the vector's ICRC.
 */
static void
test_chain_parsed_and_built(void)
{
	static const char *const names[] = {
		"RC_RDMA_WRITE_ONLY_v4", "RC_RDMA_WRITE_ONLY_v6",
		"RC_SEND_ONLY_pad3_v4", "RC_RDMA_READ_RESPONSE_ONLY_v6",
		"RC_ACK_v4", "UD_SEND_ONLY_IMM_v6", "CNP_v4",
		"RC_RDMA_WRITE_ONLY_zero_v4",
	};
	unsigned int k, bad = 0, runs = 0;
	uint8_t f[MAX_FRAME];
	size_t a, j;

	for (k = 0; k < RTE_DIM(names); k++) {
		uint32_t l3;
		const struct test_vector *v = named_vector(names[k], &l3);

		for (a = 1; a < v->len; a++) {
			const size_t mid[] = { 0, 1, v->len - 2 - a };

			for (j = 0; j < RTE_DIM(mid); j++) {
				size_t b = a + mid[j];
				struct roce_pkt pkt;
				struct rte_mbuf *m;
				int rc;

				if (b >= v->len || (j == 2 && b <= a))
					continue;
				runs++;
				m = test_mbuf_split3(v->data, v->len, a, b);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				rc = roce_parse(m, &pkt);
				if (rc != 0 || roce_icrc_verify_pkt(&pkt) != 0)
					bad++;
				/* a payload byte, else the first of the slot */
				*mbuf_byte(m, v->len > 90 ? 90 : v->len - 4) ^= 1;
				if (rc == 0 &&
				    roce_icrc_verify_pkt(&pkt) != -EBADMSG)
					bad++;
				rte_pktmbuf_free(m);

				memcpy(f, v->data, v->len);
				memset(f + v->len - 4, 0, 4);
				m = test_mbuf_split3(f, v->len, a, b);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				m->l2_len = l3;
				if (roce_icrc_fill_built(m) != 0 ||
				    !mbuf_equals(m, v->data, v->len))
					bad++;
				rte_pktmbuf_free(m);
			}
		}
	}
	CU_ASSERT(runs > 1000);
	CU_ASSERT_EQUAL(bad, 0);
}

/*
 * Flip every bit of every frame: covered unmasked bits (IP header through
 * the ICRC slot) must fail verification, masked bits and the Ethernet
 * header must not change anything.
 */
static void
test_every_bit_flip(void)
{
	uint8_t f[MAX_FRAME];
	unsigned long caught = 0, masked = 0, missed = 0, wrong = 0;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len), off;
		int bit;

		memcpy(f, v->data, v->len);
		for (off = 0; off < v->len; off++) {
			uint8_t mask = off >= l3 ?
				masked_bits(v->data, l3, off - l3) : 0xff;

			for (bit = 0; bit < 8; bit++) {
				int ret;

				f[off] ^= 1u << bit;
				ret = roce_icrc_verify(f, l3, v->len);
				f[off] ^= 1u << bit;
				if (mask & (1u << bit)) {
					if (ret == 0)
						masked++;
					else
						wrong++;
				} else if (ret != 0) {
					caught++;
				} else {
					missed++;
					fprintf(stderr, "%s: flip %u.%d undetected\n",
						v->name, off, bit);
				}
			}
		}
		CU_ASSERT_EQUAL(memcmp(f, v->data, v->len), 0);
	}
	CU_ASSERT_EQUAL(missed, 0);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(caught > 100000);
	CU_ASSERT(masked > 0);
}

/* The same over a chain of 7-byte segments, flipping bits in place. */
static void
test_every_bit_flip_mbuf(void)
{
	unsigned long missed = 0, wrong = 0, tested = 0;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len), off;
		struct rte_mbuf *m;
		int bit;

		if (v->len > 200)
			continue;
		m = test_mbuf_from(v->data, v->len, 7);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (off = l3; off < v->len; off++) {
			uint8_t *p = mbuf_byte(m, off);
			uint8_t mask = masked_bits(v->data, l3, off - l3);

			CU_ASSERT_PTR_NOT_NULL_FATAL(p);
			for (bit = 0; bit < 8; bit++) {
				int ret;

				*p ^= 1u << bit;
				ret = roce_icrc_verify_mbuf(m, l3);
				*p ^= 1u << bit;
				tested++;
				if ((mask & (1u << bit)) && ret != 0)
					wrong++;
				else if (!(mask & (1u << bit)) && ret == 0)
					missed++;
			}
		}
		CU_ASSERT(mbuf_equals(m, v->data, v->len));
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(missed, 0);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(tested > 10000);
}

/* All masked fields at once, to random values: the ICRC does not move. */
static void
test_masked_fields_random(void)
{
	uint8_t f[MAX_FRAME];
	unsigned int seed = 12345, round;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len), rel, n = 0;
		uint32_t want = load_le32(v->data + v->len - 4);

		for (round = 0; round < 16; round++) {
			memcpy(f, v->data, v->len);
			for (rel = 0; rel < 64 && l3 + rel < v->len; rel++) {
				uint8_t mask = masked_bits(v->data, l3, rel);

				seed = seed * 1103515245u + 12345u;
				f[l3 + rel] ^= (uint8_t)(seed >> 16) & mask;
			}
			n += memcmp(f, v->data, v->len) != 0;
			CU_ASSERT_EQUAL(roce_icrc_compute(f, l3, v->len), want);
			CU_ASSERT_EQUAL(roce_icrc_verify(f, l3, v->len), 0);
		}
		CU_ASSERT(n > 0);
	}
}

/* Truncated frames, bad offsets and malformed IP headers are errors. */
static void
test_truncated_and_malformed(void)
{
	uint8_t f[MAX_FRAME];
	uint32_t icrc;
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len), len;

		for (len = 0; len < v->len; len++) {
			CU_ASSERT_EQUAL(roce_icrc_verify(v->data, l3, len),
					-EINVAL);
			CU_ASSERT_EQUAL(roce_icrc_calc(v->data, l3, len, &icrc),
					-EINVAL);
			CU_ASSERT_EQUAL(roce_icrc_compute(v->data, l3, len), 0);
		}
		/* Copy into the fill buffer: fill on a short length writes
		 * nothing.
		 */
		memcpy(f, v->data, v->len);
		CU_ASSERT_EQUAL(roce_icrc_fill(f, l3, v->len - 1), -EINVAL);
		CU_ASSERT_EQUAL(memcmp(f, v->data, v->len), 0);
		CU_ASSERT_EQUAL(roce_icrc_verify(v->data, v->len, v->len),
				-EINVAL);
		CU_ASSERT_EQUAL(roce_icrc_verify(v->data, UINT32_MAX, v->len),
				-EINVAL);
		/* Short frames over chained mbufs too. */
		if (v->len <= 200) {
			for (len = 0; len < v->len; len++) {
				struct rte_mbuf *m;

				m = test_mbuf_from(v->data, len, 13);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3),
						-EINVAL);
				CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, l3),
						-EINVAL);
				CU_ASSERT(mbuf_equals(m, v->data, len));
				rte_pktmbuf_free(m);
			}
		}
	}
	CU_ASSERT_EQUAL(roce_icrc_verify(NULL, 14, 100), -EINVAL);
	CU_ASSERT_EQUAL(roce_icrc_calc(vec[0].data, 14, vec[0].len, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(NULL, 14), -EINVAL);

	/* Malformed IP: version, IHL, next protocol, lengths. */
	{
		const struct test_vector *v4 = test_find_vector(vec, nvec,
							"RC_SEND_ONLY_v4");
		const struct test_vector *v6 = test_find_vector(vec, nvec,
							"RC_SEND_ONLY_v6");

		CU_ASSERT_PTR_NOT_NULL_FATAL(v4);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v6);
		memcpy(f, v4->data, v4->len);
		f[14] = 0x55;
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v4->len),
				-EPROTONOSUPPORT);
		f[14] = 0x44;
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v4->len), -EINVAL);
		f[14] = 0x4f;	/* 60-byte header: still fits, but lengths */
		CU_ASSERT_NOT_EQUAL(roce_icrc_verify(f, 14, v4->len), 0);
		f[14] = 0x45;
		f[14 + 9] = 6;	/* TCP */
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v4->len),
				-EPROTONOSUPPORT);
		f[14 + 9] = 17;
		f[14 + 2] = 0;	/* total length 20 + 8 + 12 + 3 */
		f[14 + 3] = 43;
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v4->len), -EINVAL);
		f[14 + 3] = 44;	/* smallest: empty payload, ICRC at 54 */
		CU_ASSERT_EQUAL(roce_icrc_fill(f, 14, v4->len), 0);
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v4->len), 0);
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, 14 + 44), 0);
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, 14 + 43), -EINVAL);
		CU_ASSERT_EQUAL(roce_icrc_compute(f, 14, 58), ref_icrc(f, 14));

		memcpy(f, v6->data, v6->len);
		f[14 + 6] = 0;	/* hop-by-hop extension header */
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v6->len),
				-EPROTONOSUPPORT);
		f[14 + 6] = 17;
		f[14 + 4] = 0xff;	/* payload length past the frame */
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, v6->len), -EINVAL);
	}
}

/* Ethernet padding after the IP datagram is ignored. */
static void
test_ethernet_padding(void)
{
	uint8_t f[MAX_FRAME];
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		uint32_t l3 = l3_offset(v->data, v->len);
		uint32_t want = load_le32(v->data + v->len - 4);
		struct rte_mbuf *m;

		memcpy(f, v->data, v->len);
		memset(f + v->len, 0xa5, 23);
		CU_ASSERT_EQUAL(roce_icrc_verify(f, l3, v->len + 23), 0);
		CU_ASSERT_EQUAL(roce_icrc_compute(f, l3, v->len + 23), want);
		m = test_mbuf_from(f, v->len + 23, 64);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, l3), 0);
		rte_pktmbuf_free(m);
		memset(f + v->len - 4, 0, 4);
		CU_ASSERT_EQUAL(roce_icrc_fill(f, l3, v->len + 23), 0);
		CU_ASSERT_EQUAL(memcmp(f, v->data, v->len), 0);
		CU_ASSERT_EQUAL(f[v->len], 0xa5);
	}
}

/* A VLAN tag only moves L3: the ICRC is unchanged. */
static void
test_vlan(void)
{
	uint8_t f[MAX_FRAME];
	int i;

	for (i = 0; i < nvec; i++) {
		const struct test_vector *v = &vec[i];
		struct rte_mbuf *m;

		memcpy(f, v->data, 12);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = 0x20;	/* PCP 1, VID 5 */
		f[15] = 0x05;
		memcpy(f + 16, v->data + 12, v->len - 12);
		CU_ASSERT_EQUAL_FATAL(l3_offset(f, v->len + 4), 18);
		CU_ASSERT_EQUAL(roce_icrc_verify(f, 18, v->len + 4), 0);
		m = test_mbuf_from(f, v->len + 4, 17);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, 18), 0);
		rte_pktmbuf_free(m);
		/* The untagged offset is now wrong and must not pass. */
		CU_ASSERT_NOT_EQUAL(roce_icrc_verify(f, 14, v->len + 4), 0);
	}
}

/* IPv4 options are covered (unmasked) and skipped via IHL. */
static void
test_ipv4_options(void)
{
	static const char *const names[] = {
		"RC_SEND_ONLY_v4", "RC_RDMA_WRITE_FIRST_v4", "CNP_v4",
	};
	uint8_t f[MAX_FRAME];
	unsigned int k, opt;

	for (k = 0; k < RTE_DIM(names); k++) {
		const struct test_vector *v = test_find_vector(vec, nvec,
							       names[k]);
		uint32_t len, tot, off;
		struct rte_mbuf *m;
		int bit;

		CU_ASSERT_PTR_NOT_NULL_FATAL(v);
		for (opt = 4; opt <= 40; opt += 36) {
			len = v->len + opt;
			memcpy(f, v->data, 34);
			memset(f + 34, 0x01, opt);	/* NOP options */
			memcpy(f + 34 + opt, v->data + 34, v->len - 34);
			f[14] = 0x45 + opt / 4;
			tot = be16(f + 16) + opt;
			f[16] = tot >> 8;
			f[17] = tot & 0xff;
			memset(f + len - 4, 0, 4);
			CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, len), -EBADMSG);
			CU_ASSERT_EQUAL(roce_icrc_fill(f, 14, len), 0);
			CU_ASSERT_EQUAL(load_le32(f + len - 4), ref_icrc(f, 14));
			CU_ASSERT_EQUAL(roce_icrc_verify(f, 14, len), 0);
			m = test_mbuf_from(f, len, 5);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, 14), 0);
			rte_pktmbuf_free(m);
			/* Options, UDP and BTH bits past them are covered,
			 * BTH byte 4 (now at 34 + opt + 8 + 4) is not.
			 */
			for (off = 34; off < 34 + opt + 20; off++) {
				for (bit = 0; bit < 8; bit++) {
					int ret, exempt;

					exempt = off == 34 + opt + 6 ||
						 off == 34 + opt + 7 ||
						 off == 34 + opt + 12;
					f[off] ^= 1u << bit;
					ret = roce_icrc_verify(f, 14, len);
					f[off] ^= 1u << bit;
					CU_ASSERT(exempt ? ret == 0 : ret != 0);
				}
			}
		}
	}
}

/* A chain whose pkt_len overstates its segments is caught, not overrun. */
static void
test_mbuf_short_chain(void)
{
	const struct test_vector *v = test_find_vector(vec, nvec,
						       "RC_SEND_ONLY_v4");
	struct rte_mbuf *m, *last, *cut;
	uint8_t before[MAX_FRAME];
	struct roce_pkt pkt;
	uint32_t tot;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	m = test_mbuf_from(v->data, v->len, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	tot = be16(v->data + 16) + 64;
	*mbuf_byte(m, 16) = tot >> 8;
	*mbuf_byte(m, 17) = tot & 0xff;
	m->pkt_len += 64;
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, 14), -EINVAL);
	CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, 14), -EINVAL);
	m->pkt_len -= 64;
	*mbuf_byte(m, 16) = v->data[16];
	*mbuf_byte(m, 17) = v->data[17];
	CU_ASSERT(mbuf_equals(m, v->data, v->len));
	/* Slot cut short by the chain (last segment 2 bytes short). */
	for (last = m; last->next != NULL; last = last->next)
		;
	last->data_len -= 2;
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, 14), -EINVAL);
	memcpy(before, v->data, v->len);
	CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, 14), -EINVAL);
	last->data_len += 2;
	CU_ASSERT(mbuf_equals(m, before, v->len));
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, 14), 0);
	/*
	 * The worker's check and the builders' fill walk the segments
	 * themselves (headers in the first): a slot cut short and a chain
	 * cut after a segment are refused by the cursor code they fall
	 * back to, and nothing is written.
	 */
	CU_ASSERT_EQUAL_FATAL(roce_parse(m, &pkt), 0);
	CU_ASSERT_PTR_NOT_NULL(pkt.hdr);
	m->l2_len = 14;
	last->data_len -= 2;
	CU_ASSERT_EQUAL(roce_icrc_verify_pkt(&pkt), -EINVAL);
	CU_ASSERT_EQUAL(roce_icrc_fill_built(m), -EINVAL);
	last->data_len += 2;
	for (cut = m; cut->next != last; cut = cut->next)
		;
	cut->next = NULL;
	CU_ASSERT_EQUAL(roce_icrc_verify_pkt(&pkt), -EINVAL);
	CU_ASSERT_EQUAL(roce_icrc_fill_built(m), -EINVAL);
	cut->next = last;
	CU_ASSERT(mbuf_equals(m, before, v->len));
	CU_ASSERT_EQUAL(roce_icrc_verify_pkt(&pkt), 0);
	rte_pktmbuf_free(m);
}

static int
icrc_suite_init(void)
{
	nvec = test_load_vectors(VECTORS_FILE, &vec);
	return nvec > 0 ? 0 : -1;
}

static CU_TestInfo icrc_tests[] = {
	{ "bitwise reference CRC32", test_reference_crc32 },
	{ "vectors loaded, v4 and v6", test_vectors_loaded },
	{ "annex A17 masking by hand", test_masking_by_hand },
	{ "vectors: contiguous verify/compute/fill", test_vectors_contiguous },
	{ "vectors: chained mbufs 1/7/64/100/1000", test_vectors_mbuf },
	{ "vectors: parsed, the worker's check", test_vectors_parsed },
	{ "every length 0-520 B after the BTH, v4/v4+options/v6",
	  test_every_length },
	{ "IP header 0-16 bytes into an exact buffer",
	  test_ip_near_buffer_start },
	{ "mbuf split at every byte", test_mbuf_every_split },
	{ "parsed and built chains, three segments split everywhere",
	  test_chain_parsed_and_built },
	{ "every single-bit flip", test_every_bit_flip },
	{ "every single-bit flip, mbuf", test_every_bit_flip_mbuf },
	{ "masked fields do not matter", test_masked_fields_random },
	{ "truncated and malformed", test_truncated_and_malformed },
	{ "ethernet padding ignored", test_ethernet_padding },
	{ "vlan tag", test_vlan },
	{ "ipv4 options", test_ipv4_options },
	{ "mbuf chain shorter than pkt_len", test_mbuf_short_chain },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "icrc", icrc_suite_init, NULL, NULL, NULL, icrc_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
