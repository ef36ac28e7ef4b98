/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

/**
 * @file
 * RoCEv2 Invariant CRC (IBTA vol. 1 annex A17, "RoCEv2", A17.3.3).
 *
 * The ICRC is the reflected IEEE CRC32 (zlib/gzip convention: initial value
 * and final XOR all ones) over
 *  - 8 bytes of 0xff standing in for the absent LRH,
 *  - the IP header with the variant fields set to all ones: IPv4 TOS
 *    (DSCP+ECN), TTL and header checksum; IPv6 traffic class, flow label
 *    and hop limit,
 *  - the UDP header with the checksum set to all ones,
 *  - the BTH with byte 4 (FECN, BECN, resv6) set to 0xff,
 *  - every byte after the BTH up to the 4-byte ICRC slot,
 * and is appended least significant byte first. The masking is done in
 * registers (short packets on x86 CPUs with PCLMULQDQ) or on a private copy
 * of the at most 8 + 60 + 8 + 12 header bytes: the packet is never
 * modified (except the slot by the fill functions).
 *
 * Every function takes the offset of the IP header (L3) in the frame; the
 * IP version comes from the version nibble, the IPv4 header length from
 * IHL (options included), so an 802.1Q tag is just a different offset.
 * The end of the RoCE packet is taken from the IP length (IPv4 total
 * length, IPv6 payload length): the ICRC slot is the last 4 bytes of the
 * IP datagram, and bytes after it (Ethernet padding of short frames) are
 * ignored. A datagram longer than the frame, a frame too short to hold
 * IP + UDP + BTH + ICRC, or an l3 offset past the end is -EINVAL; no byte
 * outside the frame (or outside the mbuf chain) is ever read.
 *
 * The functions are thread-safe and do not log.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_ICRC_LEN		4	/**< bytes of the ICRC trailer */
#define ROCE_ICRC_LRH_LEN	8	/**< all-ones LRH stand-in */
#define ROCE_ICRC_UDP_LEN	8	/**< UDP header */
#define ROCE_ICRC_BTH_LEN	12	/**< Base Transport Header */
/** Largest masked prefix: LRH stand-in + IPv4 with options + UDP + BTH. */
#define ROCE_ICRC_HDR_MAX \
	(ROCE_ICRC_LRH_LEN + 60 + ROCE_ICRC_UDP_LEN + ROCE_ICRC_BTH_LEN)

/**
 * Compute the ICRC of a frame in one contiguous buffer, with error report.
 *
 * @param frame the frame (Ethernet header first, or anything up to L3)
 * @param l3_off offset of the IP header in @p frame
 * @param len bytes available in @p frame, including the 4-byte ICRC slot
 *   (and any Ethernet padding after the IP datagram)
 * @param[out] icrc the CRC over everything before the slot; its
 *   little-endian encoding is what goes on the wire
 * @return 0, -EINVAL (NULL argument, frame too short, IP length
 *   inconsistent with @p len or too small for UDP + BTH + ICRC),
 *   -EPROTONOSUPPORT (IP version not 4 or 6, or next protocol not UDP:
 *   IPv6 extension headers are not supported)
 */
int roce_icrc_calc(const void *frame, uint32_t l3_off, uint32_t len,
		   uint32_t *icrc);

/**
 * Compute the ICRC of a frame in one contiguous buffer.
 *
 * Same as roce_icrc_calc() but returns the value directly; on a malformed
 * frame it returns 0, which cannot be told from a genuine ICRC of 0: use
 * roce_icrc_calc(), roce_icrc_verify() or roce_icrc_fill() when the frame
 * has not been validated.
 *
 * @param frame the frame
 * @param l3_off offset of the IP header in @p frame
 * @param len frame length including the 4-byte ICRC slot
 * @return the ICRC over everything before the slot, 0 on error
 */
uint32_t roce_icrc_compute(const void *frame, uint32_t l3_off, uint32_t len);

/**
 * Check the ICRC trailer of a frame in one contiguous buffer.
 *
 * @param frame the frame
 * @param l3_off offset of the IP header in @p frame
 * @param len frame length including the 4-byte ICRC slot
 * @return 0 when the slot holds the ICRC, -EBADMSG when it does not, or an
 *   error of roce_icrc_calc()
 */
int roce_icrc_verify(const void *frame, uint32_t l3_off, uint32_t len);

/**
 * Compute the ICRC and write it, least significant byte first, into the
 * slot (the last 4 bytes of the IP datagram). The IP length fields must
 * already be final.
 *
 * @param frame the frame
 * @param l3_off offset of the IP header in @p frame
 * @param len frame length including the 4-byte ICRC slot
 * @return 0 or an error of roce_icrc_calc() (nothing written then)
 */
int roce_icrc_fill(void *frame, uint32_t l3_off, uint32_t len);

/**
 * Compute the ICRC of a frame held in a (possibly chained) mbuf, with
 * error report. Segments are walked in place, without linearising; any
 * header, and the ICRC slot, may straddle segments. The frame length is
 * rte_pktmbuf_pkt_len(@p m); a chain holding fewer bytes than that is
 * detected (-EINVAL) rather than overrun.
 *
 * @param m first segment of the packet, data starting at the frame
 * @param l3_off offset of the IP header from the start of the data
 * @param[out] icrc the CRC over everything before the slot
 * @return 0 or an error as for roce_icrc_calc()
 */
int roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off,
			uint32_t *icrc);

/**
 * Compute the ICRC of a frame held in a (possibly chained) mbuf.
 *
 * @param m first segment of the packet
 * @param l3_off offset of the IP header from the start of the data
 * @return the ICRC, 0 on error (see roce_icrc_compute())
 */
uint32_t roce_icrc_compute_mbuf(const struct rte_mbuf *m, uint32_t l3_off);

/**
 * Check the ICRC trailer of a frame held in a (possibly chained) mbuf.
 *
 * @param m first segment of the packet
 * @param l3_off offset of the IP header from the start of the data
 * @return 0, -EBADMSG on mismatch, or an error of roce_icrc_calc_mbuf()
 */
int roce_icrc_verify_mbuf(const struct rte_mbuf *m, uint32_t l3_off);

/**
 * Compute the ICRC and write it into the slot of a (possibly chained)
 * mbuf; the slot may straddle the last two segments. The data must be
 * writable (a direct mbuf, not shared).
 *
 * @param m first segment of the packet
 * @param l3_off offset of the IP header from the start of the data
 * @return 0 or an error of roce_icrc_calc_mbuf() (nothing written then)
 */
int roce_icrc_fill_mbuf(struct rte_mbuf *m, uint32_t l3_off);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ICRC_H */
