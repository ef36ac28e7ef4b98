/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_PARSE_H
#define ROCE_PARSE_H

/**
 * @file
 * RoCEv2 receive parser and wire formats, level 2: accessors on a parsed
 * packet.
 *
 * roce_parse() validates the structure of a frame (every length and every
 * field that decides where the next header is) and fills a struct roce_pkt
 * view: offsets of each layer, the opcode entry, addresses, ECN and the
 * payload position. It does not check the ICRC (roce_icrc.h) nor anything
 * that needs QP state (PSN, P_Key, Q_Key, PMTU).
 *
 * Headers are read in place when they lie in the first segment (the usual
 * case: no copy). When the first segment of a chained mbuf is too short
 * for all headers, the first ROCE_PARSE_HDR_MAX bytes are copied into the
 * view's bounce buffer and the header accessors point there; the payload
 * is always located by offset (roce_pkt::payload_off) from the start of
 * the packet data, so it can be copied out of any segment.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Largest header stack: Ethernet + 802.1Q + IPv4 with options + UDP + BTH
 * + the longest extension headers (AtomicETH, 28 bytes), rounded up.
 */
#define ROCE_PARSE_HDR_MAX 128

/**
 * Why roce_parse() did not accept a frame. roce_parse() returns the
 * negated value; each has a counter name (roce_parse_reason_name()).
 */
enum roce_parse_reason {
	ROCE_PARSE_OK = 0,		/**< a RoCEv2 packet: "rx_ok" */
	/** Not RoCEv2 (not IP, not UDP, not port 4791): for the application. */
	ROCE_PARSE_NOT_ROCE,
	ROCE_DROP_TRUNC_ETH,		/**< shorter than Ethernet (+ 802.1Q) */
	ROCE_DROP_TRUNC_IP,		/**< shorter than the IP header */
	ROCE_DROP_BAD_IP_VERSION,	/**< IP version not that of the ethertype */
	ROCE_DROP_BAD_IHL,		/**< IPv4 IHL below 5 */
	ROCE_DROP_IP_LEN,		/**< IP length beyond the frame, or too small */
	ROCE_DROP_IP_CSUM,		/**< IPv4 header checksum wrong */
	ROCE_DROP_IP_FRAG,		/**< IPv4 UDP fragment (RoCEv2 sets DF) */
	ROCE_DROP_TRUNC_UDP,		/**< IP payload shorter than a UDP header */
	ROCE_DROP_UDP_LEN,		/**< UDP length differs from the IP payload */
	ROCE_DROP_TRUNC_BTH,		/**< UDP payload shorter than a BTH */
	ROCE_DROP_BAD_TVER,		/**< BTH TVer not 0 (IBTA 9.2.5) */
	ROCE_DROP_BAD_OPCODE,		/**< opcode reserved or unsupported */
	ROCE_DROP_TRUNC_EXT_HDR,	/**< too short for the opcode's headers */
	ROCE_DROP_TRUNC_ICRC,		/**< no room left for the 4-byte ICRC */
	/** Pad count beyond the payload, or non-zero before the last packet. */
	ROCE_DROP_BAD_PAD,
	/** Payload on an opcode without one, or not a multiple of 4 with pad. */
	ROCE_DROP_BAD_LEN,
	ROCE_PARSE_REASON_MAX,		/**< number of reasons */
};

/** roce_pkt::flags */
enum roce_pkt_flag {
	ROCE_PKT_VLAN = 1 << 0,		/**< an 802.1Q tag was present */
	ROCE_PKT_BOUNCED = 1 << 1,	/**< headers read from the bounce buffer */
};

/** A parsed RoCEv2 packet (filled by roce_parse()). */
struct roce_pkt {
	const struct rte_mbuf *m;	/**< the packet */
	/** Headers in the first segment; NULL when bounced (use accessors). */
	const uint8_t *hdr;
	const struct roce_opcode_info *op; /**< opcode table entry */
	uint32_t len;		/**< Ethernet through ICRC (Ethernet padding excluded) */
	uint32_t payload_off;	/**< payload offset from the frame start */
	uint32_t payload_len;	/**< payload bytes, pad and ICRC excluded */
	uint16_t l3_off;	/**< IP header offset */
	uint16_t l4_off;	/**< UDP header offset */
	uint16_t bth_off;	/**< BTH offset */
	uint16_t vlan_tci;	/**< host-order 802.1Q TCI, 0 without a tag */
	uint16_t udp_sport;	/**< UDP source port (flow entropy) */
	uint8_t opcode;		/**< BTH opcode */
	uint8_t pad;		/**< BTH pad count */
	uint8_t ip_ver;		/**< 4 or 6 */
	uint8_t dscp;		/**< DSCP of TOS / traffic class */
	uint8_t ecn;		/**< enum roce_ecn */
	uint8_t ttl;		/**< IPv4 TTL or IPv6 hop limit */
	uint8_t flags;		/**< enum roce_pkt_flag */
	uint32_t flow_label;	/**< IPv6 flow label, 0 for IPv4 */
	/** Source GID: IPv6 address, or IPv4-mapped ::ffff:a.b.c.d. */
	uint8_t sgid[16];
	uint8_t dgid[16];	/**< destination GID, same form */
	rte_be32_t saddr4;	/**< IPv4 source address (0 for IPv6) */
	rte_be32_t daddr4;	/**< IPv4 destination address (0 for IPv6) */
	/** Copy of the headers when the first segment is too short. */
	uint8_t bounce[ROCE_PARSE_HDR_MAX] __rte_aligned(8);
};

/**
 * Parse and validate the structure of a RoCEv2 frame.
 *
 * Checks, in order: Ethernet (one optional 802.1Q tag), ethertype
 * IPv4/IPv6, IP version, IHL >= 5, IP length within the frame, protocol
 * UDP, IPv4 header checksum (unless the mbuf says it was checked), not a
 * fragment, UDP length equal to the IP payload, destination port 4791,
 * BTH present, TVer 0, opcode supported, room for the opcode's extension
 * headers and the ICRC, and a pad count consistent with the payload. No
 * byte outside the packet is read, whatever its lengths claim; a chain
 * whose segments hold fewer bytes than its pkt_len is -ROCE_DROP_TRUNC_ETH,
 * so that a parsed packet's readers may trust pkt_len.
 *
 * @param m the frame, data starting at the Ethernet header; may be chained
 * @param[out] pkt the view (valid only when 0 is returned; may be partly
 *   written otherwise)
 * @return 0, or the negated enum roce_parse_reason: -ROCE_PARSE_NOT_ROCE
 *   for traffic that is not RoCEv2, -ROCE_DROP_* for a malformed packet
 */
int roce_parse(const struct rte_mbuf *m, struct roce_pkt *pkt);

/**
 * Counter name of a parse result, e.g. "rx_drop_bad_opcode".
 *
 * @param reason an enum roce_parse_reason or its negation (what
 *   roce_parse() returns)
 * @return a static string; "rx_drop_unknown" when out of range
 */
const char *roce_parse_reason_name(int reason);

/* ---------------------------------------------------------------------- */
/* Level 2: header accessors on a parsed packet.                           */

/** Start of the parsed headers (first segment or bounce buffer). */
static inline const uint8_t *
roce_pkt_hdr(const struct roce_pkt *pkt)
{
	return pkt->hdr != NULL ? pkt->hdr : pkt->bounce;
}

/** Ethernet header. */
static inline const struct rte_ether_hdr *
roce_pkt_eth(const struct roce_pkt *pkt)
{
	return (const struct rte_ether_hdr *)roce_pkt_hdr(pkt);
}

/** IPv4 header, NULL for an IPv6 packet. */
static inline const struct rte_ipv4_hdr *
roce_pkt_ipv4(const struct roce_pkt *pkt)
{
	return pkt->ip_ver == 4 ? (const struct rte_ipv4_hdr *)
		(roce_pkt_hdr(pkt) + pkt->l3_off) : NULL;
}

/** IPv6 header, NULL for an IPv4 packet. */
static inline const struct rte_ipv6_hdr *
roce_pkt_ipv6(const struct roce_pkt *pkt)
{
	return pkt->ip_ver == 6 ? (const struct rte_ipv6_hdr *)
		(roce_pkt_hdr(pkt) + pkt->l3_off) : NULL;
}

/** UDP header. */
static inline const struct rte_udp_hdr *
roce_pkt_udp(const struct roce_pkt *pkt)
{
	return (const struct rte_udp_hdr *)(roce_pkt_hdr(pkt) + pkt->l4_off);
}

/** Base Transport Header. */
static inline const struct roce_bth *
roce_pkt_bth(const struct roce_pkt *pkt)
{
	return (const struct roce_bth *)(roce_pkt_hdr(pkt) + pkt->bth_off);
}

/** Extension header @p ext, NULL when the opcode has none. */
static inline const void *
roce_pkt_ext(const struct roce_pkt *pkt, enum roce_ext_hdr ext)
{
	uint8_t off = pkt->op->off[ext];

	return off != 0 ? roce_pkt_hdr(pkt) + pkt->bth_off + off : NULL;
}

/** DETH, NULL when absent. */
static inline const struct roce_deth *
roce_pkt_deth(const struct roce_pkt *pkt)
{
	return (const struct roce_deth *)roce_pkt_ext(pkt, ROCE_EXT_DETH);
}

/** RETH, NULL when absent. */
static inline const struct roce_reth *
roce_pkt_reth(const struct roce_pkt *pkt)
{
	return (const struct roce_reth *)roce_pkt_ext(pkt, ROCE_EXT_RETH);
}

/** AtomicETH, NULL when absent. */
static inline const struct roce_atmeth *
roce_pkt_atmeth(const struct roce_pkt *pkt)
{
	return (const struct roce_atmeth *)roce_pkt_ext(pkt, ROCE_EXT_ATMETH);
}

/** AETH, NULL when absent. */
static inline const struct roce_aeth *
roce_pkt_aeth(const struct roce_pkt *pkt)
{
	return (const struct roce_aeth *)roce_pkt_ext(pkt, ROCE_EXT_AETH);
}

/** AtomicAckETH, NULL when absent. */
static inline const struct roce_atmack *
roce_pkt_atmack(const struct roce_pkt *pkt)
{
	return (const struct roce_atmack *)roce_pkt_ext(pkt, ROCE_EXT_ATMACK);
}

/** ImmDt, NULL when absent. */
static inline const struct roce_immdt *
roce_pkt_immdt(const struct roce_pkt *pkt)
{
	return (const struct roce_immdt *)roce_pkt_ext(pkt, ROCE_EXT_IMMDT);
}

/** IETH, NULL when absent. */
static inline const struct roce_ieth *
roce_pkt_ieth(const struct roce_pkt *pkt)
{
	return (const struct roce_ieth *)roce_pkt_ext(pkt, ROCE_EXT_IETH);
}

/** CNP reserved bytes, NULL unless the packet is a CNP. */
static inline const struct roce_cnp *
roce_pkt_cnp(const struct roce_pkt *pkt)
{
	return (const struct roce_cnp *)roce_pkt_ext(pkt, ROCE_EXT_CNP);
}

/** Payload length in bytes (pad and ICRC excluded). */
static inline uint32_t
roce_pkt_payload_len(const struct roce_pkt *pkt)
{
	return pkt->payload_len;
}

/**
 * The payload, when it lies entirely in the first segment.
 *
 * @return a pointer into the mbuf, or NULL when the payload continues in
 *   a later segment: copy it from roce_pkt::payload_off with
 *   rte_pktmbuf_read() (the parser checked the segments against pkt_len)
 */
static inline const void *
roce_pkt_payload(const struct roce_pkt *pkt)
{
	if (pkt->payload_off + pkt->payload_len > rte_pktmbuf_data_len(pkt->m))
		return NULL;
	return rte_pktmbuf_mtod_offset(pkt->m, const uint8_t *,
				       pkt->payload_off);
}

/**
 * MAD common header of a UD packet to QP1 (the GSI, IBTA 13.5.1), when
 * the payload holds one and it lies in the first segment; NULL otherwise.
 */
static inline const struct roce_mad_hdr *
roce_pkt_mad_hdr(const struct roce_pkt *pkt)
{
	if (!(pkt->op->flags & ROCE_OPF_DETH) ||
	    roce_bth_dqpn(roce_pkt_bth(pkt)) != 1 ||
	    pkt->payload_len < ROCE_MAD_HDR_LEN ||
	    pkt->payload_off + ROCE_MAD_HDR_LEN > rte_pktmbuf_data_len(pkt->m))
		return NULL;
	return rte_pktmbuf_mtod_offset(pkt->m, const struct roce_mad_hdr *,
				       pkt->payload_off);
}

#ifdef __cplusplus
}
#endif

#endif /* ROCE_PARSE_H */
