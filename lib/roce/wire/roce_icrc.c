/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 ICRC, IBTA vol. 1 annex A17 (A17.3.3): CRC32 (reflected IEEE,
 * zlib convention, ISA-L crc32_gzip_refl) over an all-ones LRH stand-in,
 * the IP/UDP/BTH headers with their variant fields masked to ones, and the
 * rest of the packet up to the ICRC, which is stored least significant
 * byte first.
 */
#include "roce_icrc.h"
#include "roce_icrc_priv.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <isa-l/crc.h>
#include <rte_byteorder.h>
#include <rte_common.h>

#define ICRC_IPV4_MIN_HDR	20
#define ICRC_IPV6_HDR		40
#define ICRC_IPPROTO_UDP	17

/* Bytes after the IP header that the masked copy holds: UDP + BTH. */
#define ICRC_L4_HDR		(ROCE_ICRC_UDP_LEN + ROCE_ICRC_BTH_LEN)

/* Where the masked headers go in the copy, after the LRH stand-in. */
#define ICRC_IP_IN_COPY		ROCE_ICRC_LRH_LEN

/*
 * Length of the headers covered by the masked copy (IP + UDP + BTH), from
 * the first byte of the IP header; negative errno when the version is
 * unknown or IHL is below 5.
 */
static int
icrc_hdr_len(uint8_t ver_ihl)
{
	switch (ver_ihl >> 4) {
	case 4:
		if ((ver_ihl & 0x0f) * 4 < ICRC_IPV4_MIN_HDR)
			return -EINVAL;
		return (ver_ihl & 0x0f) * 4 + ICRC_L4_HDR;
	case 6:
		return ICRC_IPV6_HDR + ICRC_L4_HDR;
	default:
		return -EPROTONOSUPPORT;
	}
}

/*
 * Check the IP header at @p ip (version 4 or 6, icrc_hdr_len() gave
 * @p hdr_len: IP header, UDP and BTH): next protocol UDP, and an IP
 * datagram length that holds the headers and the ICRC within @p avail
 * (bytes from the IP header to the end of the frame). On success *dgram
 * is that length: the ICRC slot is its last 4 bytes.
 */
static inline int
icrc_check(const uint8_t *ip, uint32_t hdr_len, uint32_t avail,
	   uint32_t *dgram)
{
	uint32_t len;

	if ((ip[0] >> 4) == 6) {
		if (ip[6] != ICRC_IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		len = ICRC_IPV6_HDR + ((uint32_t)ip[4] << 8 | ip[5]);
	} else {
		if (ip[9] != ICRC_IPPROTO_UDP)
			return -EPROTONOSUPPORT;
		len = (uint32_t)ip[2] << 8 | ip[3];
	}
	if (len < hdr_len + ROCE_ICRC_LEN || len > avail)
		return -EINVAL;
	*dgram = len;
	return 0;
}

/*
 * @p copy holds the LRH stand-in slot then @p hdr_len header bytes (from
 * a header icrc_check() accepted): fill the LRH stand-in and set the
 * invariant-exempt fields to all ones (IBTA annex A17.3.3).
 */
static inline void
icrc_mask(uint8_t *copy, uint32_t hdr_len)
{
	uint8_t *ip = copy + ICRC_IP_IN_COPY;
	uint32_t ip_hl = hdr_len - ICRC_L4_HDR;
	uint8_t *udp = ip + ip_hl, *bth = udp + ROCE_ICRC_UDP_LEN;

	if ((ip[0] >> 4) == 6) {
		/* Traffic class (4 + 4 bits), flow label (20), hop limit. */
		ip[0] |= 0x0f;
		ip[1] = 0xff;
		ip[2] = 0xff;
		ip[3] = 0xff;
		ip[7] = 0xff;
	} else {
		/* TOS (DSCP + ECN), TTL, header checksum. */
		ip[1] = 0xff;
		ip[8] = 0xff;
		ip[10] = 0xff;
		ip[11] = 0xff;
	}
	memset(copy, 0xff, ROCE_ICRC_LRH_LEN);
	/* UDP checksum. */
	udp[6] = 0xff;
	udp[7] = 0xff;
	/* BTH byte 4: FECN, BECN and the 6 reserved bits. */
	bth[4] = 0xff;
}

static inline uint32_t
icrc_crc(uint32_t crc, const void *p, uint32_t n)
{
	return crc32_gzip_refl(crc, (const unsigned char *)p, n);
}

static inline uint32_t
icrc_load_le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

static inline void
icrc_store_le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Up to this many CRC input bytes the datagram is copied whole. */
#define ICRC_COPY_MAX	256

#ifdef RTE_ARCH_X86
/* PCLMULQDQ and SSE4.1 on this CPU: probed once, when the library loads. */
static bool icrc_has_clmul;

RTE_INIT(icrc_probe_clmul)
{
	icrc_has_clmul = roce_icrc_clmul_usable();
}
#endif

/*
 * The x86 kernel, where it applies: PCLMULQDQ present, IPv4 without
 * options or IPv6 (the kernel's masks are fixed), and the 8 bytes it reads
 * in front of the IP header within the same buffer (@p before bytes are).
 * True when it computed the CRC of the first @p n input bytes of the
 * packet at @p ip (the whole input, or its LRH stand-in and headers: the
 * zlib convention chains) into *crc.
 */
static inline bool
icrc_try_clmul(const uint8_t *ip, uint32_t before, uint32_t n,
	       uint32_t *crc)
{
#ifdef RTE_ARCH_X86
	if (before < ROCE_ICRC_LRH_LEN ||
	    (ip[0] != 0x45 && (ip[0] >> 4) != 6) || !icrc_has_clmul)
		return false;
	*crc = roce_icrc_clmul(ip, n, (ip[0] >> 4) == 6);
	return true;
#else
	RTE_SET_USED(ip);
	RTE_SET_USED(before);
	RTE_SET_USED(n);
	RTE_SET_USED(crc);
	return false;
#endif
}

/*
 * CRC of the LRH stand-in and the @p hdr_len header bytes at @p hdr,
 * masked in @p copy (at least ROCE_ICRC_HDR_MAX bytes; @p hdr may already
 * be its IP header slot).
 */
static uint32_t
icrc_hdr_crc_copy(uint8_t *copy, const uint8_t *hdr, uint32_t hdr_len)
{
	if (hdr != copy + ICRC_IP_IN_COPY)
		memcpy(copy + ICRC_IP_IN_COPY, hdr, hdr_len);
	icrc_mask(copy, hdr_len);
	return icrc_crc(0, copy, ROCE_ICRC_LRH_LEN + hdr_len);
}

/*
 * The ICRC of the packet at @p ip through a masked copy of its headers:
 * up to ICRC_COPY_MAX input bytes the datagram (@p dgram bytes, the
 * headers @p hdr_len) is copied once behind the LRH stand-in and masked
 * there (one ISA-L call); above, only the headers are copied and the rest
 * is read in place (two calls).
 */
static inline uint32_t
icrc_calc_copy(const uint8_t *ip, uint32_t hdr_len, uint32_t dgram)
{
	uint8_t copy[ICRC_COPY_MAX] __rte_aligned(64);
	uint32_t n = ROCE_ICRC_LRH_LEN + dgram - ROCE_ICRC_LEN, crc;

	static_assert(ROCE_ICRC_HDR_MAX <= ICRC_COPY_MAX,
		      "the masked headers fit the copy");
	if (n <= ICRC_COPY_MAX) {
		memcpy(copy + ICRC_IP_IN_COPY, ip, dgram - ROCE_ICRC_LEN);
		icrc_mask(copy, hdr_len);
		return icrc_crc(0, copy, n);
	}
	crc = icrc_hdr_crc_copy(copy, ip, hdr_len);
	return icrc_crc(crc, ip + hdr_len, dgram - hdr_len - ROCE_ICRC_LEN);
}

/*
 * The ICRC of a packet the kernel does not take whole (longer than
 * ROCE_ICRC_CLMUL_MAX input bytes, or a layout or CPU it does not serve):
 * the kernel for the LRH stand-in and the headers where it applies, then
 * ISA-L's lanes over the rest in place; icrc_calc_copy() otherwise. Out of
 * line, so that the short path saves no registers for it.
 */
static __rte_noinline uint32_t
icrc_calc_long(const uint8_t *ip, uint32_t before, uint32_t dgram)
{
	uint32_t hdr_len = (uint32_t)icrc_hdr_len(ip[0]), crc;

	if (dgram + ROCE_ICRC_LRH_LEN - ROCE_ICRC_LEN > ROCE_ICRC_CLMUL_MAX &&
	    icrc_try_clmul(ip, before, ROCE_ICRC_LRH_LEN + hdr_len, &crc))
		return icrc_crc(crc, ip + hdr_len,
				dgram - hdr_len - ROCE_ICRC_LEN);
	return icrc_calc_copy(ip, hdr_len, dgram);
}

/*
 * The ICRC of the @p dgram byte IP datagram at @p ip (@p before bytes in
 * front of it in the buffer), whose header and length were checked:
 * icrc_check(), roce_parse(), or one of the builders.
 */
static inline uint32_t
icrc_calc_valid(const uint8_t *ip, uint32_t before, uint32_t dgram)
{
	uint32_t n = ROCE_ICRC_LRH_LEN + dgram - ROCE_ICRC_LEN, crc;

	if (n > ROCE_ICRC_CLMUL_MAX || !icrc_try_clmul(ip, before, n, &crc))
		crc = icrc_calc_long(ip, before, dgram);
	return crc;
}

/*
 * Contiguous core: on success *slot_off is the offset of the ICRC slot.
 */
static int
icrc_calc_flat(const uint8_t *f, uint32_t l3_off, uint32_t len,
	       uint32_t *icrc, uint32_t *slot_off)
{
	uint32_t avail, dgram;
	const uint8_t *ip;
	int hdr_len, ret;

	if (f == NULL || icrc == NULL || l3_off >= len)
		return -EINVAL;
	avail = len - l3_off;
	ip = f + l3_off;
	hdr_len = icrc_hdr_len(ip[0]);
	if (hdr_len < 0)
		return hdr_len;
	if (avail < (uint32_t)hdr_len + ROCE_ICRC_LEN)
		return -EINVAL;
	ret = icrc_check(ip, hdr_len, avail, &dgram);
	if (ret != 0)
		return ret;
	*icrc = icrc_calc_valid(ip, l3_off, dgram);
	*slot_off = l3_off + dgram - ROCE_ICRC_LEN;
	return 0;
}

int
roce_icrc_calc(const void *frame, uint32_t l3_off, uint32_t len,
	       uint32_t *icrc)
{
	uint32_t slot;

	return icrc_calc_flat(frame, l3_off, len, icrc, &slot);
}

uint32_t
roce_icrc_compute(const void *frame, uint32_t l3_off, uint32_t len)
{
	uint32_t icrc, slot;

	if (icrc_calc_flat(frame, l3_off, len, &icrc, &slot) != 0)
		return 0;
	return icrc;
}

int
roce_icrc_verify(const void *frame, uint32_t l3_off, uint32_t len)
{
	uint32_t icrc, slot;
	int ret;

	ret = icrc_calc_flat(frame, l3_off, len, &icrc, &slot);
	if (ret != 0)
		return ret;
	return icrc_load_le((const uint8_t *)frame + slot) == icrc ?
		0 : -EBADMSG;
}

int
roce_icrc_fill(void *frame, uint32_t l3_off, uint32_t len)
{
	uint32_t icrc, slot;
	int ret;

	ret = icrc_calc_flat(frame, l3_off, len, &icrc, &slot);
	if (ret != 0)
		return ret;
	icrc_store_le((uint8_t *)frame + slot, icrc);
	return 0;
}

/*
 * Chained mbufs. A cursor (segment, offset in it) moves forward only; every
 * step checks that the chain really holds the bytes, so an mbuf whose
 * pkt_len overstates its segments yields -EINVAL instead of an overrun.
 */
struct icrc_cursor {
	const struct rte_mbuf *seg;
	uint32_t off;		/* within seg's data */
};

/* Move @p c forward by @p n bytes. */
static int
icrc_skip(struct icrc_cursor *c, uint32_t n)
{
	while (c->seg != NULL) {
		uint32_t left = c->seg->data_len - c->off;

		if (n < left) {
			c->off += n;
			return 0;
		}
		n -= left;
		c->seg = c->seg->next;
		c->off = 0;
	}
	return n == 0 ? 0 : -EINVAL;
}

/* Visit the next @p n bytes in place, one contiguous run at a time. */
#define ICRC_WALK(c, n, ptr, run, body) do {				\
	while ((n) > 0) {						\
		uint32_t run;						\
		uint8_t *ptr;						\
		if ((c)->seg == NULL)					\
			return -EINVAL;					\
		run = RTE_MIN((uint32_t)(c)->seg->data_len - (c)->off, (n)); \
		ptr = rte_pktmbuf_mtod_offset((c)->seg, uint8_t *,	\
					      (c)->off);		\
		body;							\
		(n) -= run;						\
		if ((c)->off + run == (c)->seg->data_len) {		\
			(c)->seg = (c)->seg->next;			\
			(c)->off = 0;					\
		} else {						\
			(c)->off += run;				\
		}							\
	}								\
} while (0)

static int
icrc_gather(struct icrc_cursor *c, uint8_t *dst, uint32_t n)
{
	ICRC_WALK(c, n, p, run, { memcpy(dst, p, run); dst += run; });
	return 0;
}

static int
icrc_scatter(struct icrc_cursor *c, const uint8_t *src, uint32_t n)
{
	ICRC_WALK(c, n, p, run, { memcpy(p, src, run); src += run; });
	return 0;
}

static int
icrc_crc_walk(struct icrc_cursor *c, uint32_t n, uint32_t *crc)
{
	uint32_t v = *crc;

	ICRC_WALK(c, n, p, run, { if (run != 0) v = icrc_crc(v, p, run); });
	*crc = v;
	return 0;
}

/*
 * Mbuf core: on success *slot is a cursor on the first byte of the ICRC
 * slot, which may continue into the next segment.
 */
static int
icrc_calc_chain(const struct rte_mbuf *m, uint32_t l3_off, uint32_t *icrc,
		struct icrc_cursor *slot)
{
	uint8_t copy[ROCE_ICRC_HDR_MAX];
	struct icrc_cursor c;
	uint32_t len, avail, end, crc, left, before;
	const uint8_t *first, *hdr;
	int hdr_len, ret;

	if (m == NULL || icrc == NULL)
		return -EINVAL;
	len = rte_pktmbuf_pkt_len(m);
	if (l3_off >= len)
		return -EINVAL;
	avail = len - l3_off;
	c.seg = m;
	c.off = 0;
	if (icrc_skip(&c, l3_off) != 0)
		return -EINVAL;
	/* the cursor is inside a segment: the version/IHL byte is there */
	first = rte_pktmbuf_mtod_offset(c.seg, const uint8_t *, c.off);
	left = c.seg->data_len - c.off;
	hdr_len = icrc_hdr_len(first[0]);
	if (hdr_len < 0)
		return hdr_len;
	if (avail < (uint32_t)hdr_len + ROCE_ICRC_LEN)
		return -EINVAL;
	if (likely(left >= (uint32_t)hdr_len)) {
		/* the headers in one segment (zero-copy frames): read in place */
		hdr = first;
		before = c.off;
		c.off += hdr_len;
		if (c.off == c.seg->data_len) {
			c.seg = c.seg->next;
			c.off = 0;
		}
	} else {
		if (icrc_gather(&c, copy + ICRC_IP_IN_COPY, hdr_len) != 0)
			return -EINVAL;
		hdr = copy + ICRC_IP_IN_COPY;
		before = ICRC_IP_IN_COPY;
	}
	ret = icrc_check(hdr, hdr_len, avail, &end);
	if (ret != 0)
		return ret;
	if (!icrc_try_clmul(hdr, before, ROCE_ICRC_LRH_LEN + hdr_len, &crc))
		crc = icrc_hdr_crc_copy(copy, hdr, hdr_len);
	if (icrc_crc_walk(&c, end - hdr_len - ROCE_ICRC_LEN, &crc) != 0)
		return -EINVAL;
	*icrc = crc;
	*slot = c;
	return 0;
}

/*
 * The ICRC of a chained packet whose checked headers (IP, UDP and BTH,
 * @p hdr_len bytes from @p l3_off) lie in its first segment, the datagram
 * @p dgram bytes: a builder's zero-copy frame (headers, attached payload,
 * pad and ICRC) or a packet roce_parse() took in place. The first
 * segment's bytes (the headers, and the extension headers after them) go
 * through the kernel in place where it takes them, every further segment
 * through ISA-L once, without icrc_calc_chain()'s cursor, header length
 * and IP checks (the builder or roce_parse() made them). Returns the ICRC
 * slot when its 4 bytes lie in one segment, else NULL (also for a chain
 * that holds fewer bytes than its datagram): icrc_calc_chain() takes
 * those.
 */
static inline uint8_t *
icrc_calc_segs(const struct rte_mbuf *m, uint32_t l3_off, uint32_t hdr_len,
	       uint32_t dgram, uint32_t *icrc)
{
	uint8_t copy[ROCE_ICRC_HDR_MAX];
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	/* the first segment's input: headers and what follows them there */
	uint32_t first = RTE_MIN((uint32_t)m->data_len - l3_off,
				 dgram - ROCE_ICRC_LEN);
	uint32_t left, off, run, crc;

	if (first + ROCE_ICRC_LRH_LEN > ROCE_ICRC_CLMUL_MAX)
		first = hdr_len;
	if (!icrc_try_clmul(ip, l3_off, ROCE_ICRC_LRH_LEN + first, &crc)) {
		first = hdr_len;
		crc = icrc_hdr_crc_copy(copy, ip, hdr_len);
	}
	off = l3_off + first;
	left = dgram - first - ROCE_ICRC_LEN;
	for (;;) {
		run = RTE_MIN((uint32_t)m->data_len - off, left);
		if (run != 0)
			crc = icrc_crc(crc, rte_pktmbuf_mtod_offset(m,
					const uint8_t *, off), run);
		left -= run;
		off += run;
		if (left == 0 && off < m->data_len)
			break;
		m = m->next;
		off = 0;
		if (m == NULL)
			return NULL;
		if (left == 0 && m->data_len != 0)
			break;
	}
	if (m->data_len - off < ROCE_ICRC_LEN)
		return NULL;
	*icrc = crc;
	return rte_pktmbuf_mtod_offset(m, uint8_t *, off);
}

/* One segment holding the whole packet: use the contiguous code. */
static inline bool
icrc_flat(const struct rte_mbuf *m)
{
	return m != NULL && m->data_len >= m->pkt_len;
}

int
roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t *icrc)
{
	struct icrc_cursor slot;
	uint32_t off;

	if (icrc_flat(m))
		return icrc_calc_flat(rte_pktmbuf_mtod(m, const uint8_t *),
				      l3_off, m->pkt_len, icrc, &off);
	return icrc_calc_chain(m, l3_off, icrc, &slot);
}

uint32_t
roce_icrc_compute_mbuf(const struct rte_mbuf *m, uint32_t l3_off)
{
	uint32_t icrc;

	if (roce_icrc_calc_mbuf(m, l3_off, &icrc) != 0)
		return 0;
	return icrc;
}

int
roce_icrc_verify_mbuf(const struct rte_mbuf *m, uint32_t l3_off)
{
	struct icrc_cursor slot;
	uint8_t wire[ROCE_ICRC_LEN];
	uint32_t icrc;
	int ret;

	if (icrc_flat(m))
		return roce_icrc_verify(rte_pktmbuf_mtod(m, const uint8_t *),
					l3_off, m->pkt_len);
	ret = icrc_calc_chain(m, l3_off, &icrc, &slot);
	if (ret != 0)
		return ret;
	if (icrc_gather(&slot, wire, ROCE_ICRC_LEN) != 0)
		return -EINVAL;
	return icrc_load_le(wire) == icrc ? 0 : -EBADMSG;
}

int
roce_icrc_verify_pkt(const struct roce_pkt *pkt)
{
	const struct rte_mbuf *m = pkt->m;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	/* roce_parse() checked the IP header and that pkt->len holds it all */
	if (m->data_len < pkt->len) {
		const uint8_t *slot;
		uint32_t icrc;

		if (pkt->hdr == NULL)
			return roce_icrc_verify_mbuf(m, pkt->l3_off);
		slot = icrc_calc_segs(m, pkt->l3_off, pkt->bth_off +
				      ROCE_ICRC_BTH_LEN - pkt->l3_off,
				      pkt->len - pkt->l3_off, &icrc);
		if (slot == NULL)
			return roce_icrc_verify_mbuf(m, pkt->l3_off);
		return icrc_load_le(slot) == icrc ? 0 : -EBADMSG;
	}
	return icrc_load_le(f + pkt->len - ROCE_ICRC_LEN) ==
		icrc_calc_valid(f + pkt->l3_off, pkt->l3_off,
				pkt->len - pkt->l3_off) ? 0 : -EBADMSG;
}

int
roce_icrc_fill_built(struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t l3 = m->l2_len;

	/* the builders' frames end with the ICRC slot: no Ethernet padding */
	if (m->data_len < m->pkt_len) {
		int hdr_len = icrc_hdr_len(f[l3]);
		uint8_t *slot;
		uint32_t icrc;

		/* all headers in the first segment (roce_txbuf_attach()) */
		if (hdr_len < 0 || m->data_len < l3 + (uint32_t)hdr_len)
			return roce_icrc_fill_mbuf(m, l3);
		slot = icrc_calc_segs(m, l3, (uint32_t)hdr_len,
				      m->pkt_len - l3, &icrc);
		if (slot == NULL)
			return roce_icrc_fill_mbuf(m, l3);
		icrc_store_le(slot, icrc);
		return 0;
	}
	icrc_store_le(f + m->pkt_len - ROCE_ICRC_LEN,
		      icrc_calc_valid(f + l3, l3, m->pkt_len - l3));
	return 0;
}

int
roce_icrc_fill_mbuf(struct rte_mbuf *m, uint32_t l3_off)
{
	struct icrc_cursor slot, probe;
	uint8_t wire[ROCE_ICRC_LEN];
	uint32_t icrc, n = ROCE_ICRC_LEN;
	int ret;

	if (icrc_flat(m))
		return roce_icrc_fill(rte_pktmbuf_mtod(m, uint8_t *), l3_off,
				      m->pkt_len);
	ret = icrc_calc_chain(m, l3_off, &icrc, &slot);
	if (ret != 0)
		return ret;
	/* The slot lies within pkt_len, but check the chain holds it all
	 * before writing any of it.
	 */
	probe = slot;
	if (icrc_skip(&probe, n) != 0)
		return -EINVAL;
	icrc_store_le(wire, icrc);
	return icrc_scatter(&slot, wire, n);
}
