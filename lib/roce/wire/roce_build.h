/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

/**
 * @file
 * RoCEv2 transmit header builder.
 *
 * From a struct roce_hdr_fields (path, BTH and extension header values)
 * the builder writes Ethernet (+ 802.1Q), IPv4 or IPv6, UDP and the IB
 * headers the opcode calls for (roce_opcode.h), with every length, the
 * BTH pad count and the IPv4 header checksum computed. The UDP checksum is
 * 0 (annex A17 allows it) and the 4-byte ICRC slot is zeroed: fill it last
 * with roce_icrc_fill() / roce_icrc_fill_mbuf() (roce_icrc.h), once all
 * other bytes are final. IPv4 packets have DF set (RoCEv2 is never
 * fragmented); reserved fields and TVer are sent as 0.
 *
 * A requester keeps one struct roce_hdr_fields per QP with the path filled
 * in once, and updates the opcode, PSN and extension fields per packet.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_opcode.h"
#include "roce_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Everything the builder writes. Fields of absent headers are ignored. */
struct roce_hdr_fields {
	/* Ethernet */
	struct rte_ether_addr dst_mac;	/**< destination MAC */
	struct rte_ether_addr src_mac;	/**< source MAC */
	bool vlan;			/**< insert an 802.1Q tag */
	uint16_t vlan_tci;		/**< its host-order TCI (roce_vlan_tci()) */
	/* IP */
	uint8_t ip_ver;			/**< 4 or 6 */
	uint8_t tos;			/**< IPv4 TOS / IPv6 traffic class (DSCP << 2 | ECN) */
	uint8_t ttl;			/**< IPv4 TTL / IPv6 hop limit */
	uint16_t ip_id;			/**< IPv4 identification */
	uint32_t flow_label;		/**< IPv6 flow label (20 bits) */
	/** Source GID: IPv6 address, or ::ffff:a.b.c.d for IPv4 (bytes 12-15 used). */
	uint8_t sgid[16];
	uint8_t dgid[16];		/**< destination GID, same form */
	/* UDP */
	uint16_t udp_sport;		/**< source port (flow entropy) */
	/* BTH (IBTA 9.2) */
	uint8_t opcode;			/**< enum roce_opcode */
	bool se;			/**< solicited event */
	bool mig;			/**< MigReq */
	bool fecn;			/**< FECN (unused by RoCEv2) */
	bool becn;			/**< BECN (set in CNPs) */
	bool ackreq;			/**< AckReq */
	uint16_t pkey;			/**< partition key */
	uint32_t dqpn;			/**< destination QP (24 bits) */
	uint32_t psn;			/**< PSN (24 bits) */
	/* Extension headers (IBTA 9.3) */
	uint64_t va;			/**< RETH / AtomicETH virtual address */
	uint32_t rkey;			/**< RETH / AtomicETH R_Key */
	uint32_t dma_len;		/**< RETH DMA length */
	uint64_t swap_add;		/**< AtomicETH swap or add data */
	uint64_t compare;		/**< AtomicETH compare data */
	uint8_t syndrome;		/**< AETH syndrome (roce_syndrome()) */
	uint32_t msn;			/**< AETH MSN (24 bits) */
	uint64_t orig;			/**< AtomicAckETH original data */
	uint32_t imm;			/**< ImmDt, host order */
	uint32_t inv_rkey;		/**< IETH R_Key to invalidate */
	uint32_t qkey;			/**< DETH Q_Key */
	uint32_t src_qpn;		/**< DETH source QP (24 bits) */
	/**
	 * Selective repeat (roce_sr.h): NULL for IBTA packets; else the
	 * SR extension bytes (ROCE_SRX_REQ_LEN or ROCE_SRX_SACK_LEN, by
	 * opcode): the BTH SRX bit is set and roce_opcode_srx_table used.
	 */
	const uint8_t *srx;
};

/**
 * Bytes of headers roce_build_hdr() writes for @p f: Ethernet (+ tag), IP,
 * UDP, BTH and the opcode's extension headers.
 *
 * @return the length, or -EINVAL (unsupported opcode or IP version)
 */
int roce_build_hdr_len(const struct roce_hdr_fields *f);

/**
 * Write the headers of a packet carrying @p payload_len payload bytes.
 *
 * The lengths cover the payload, the pad (computed: payload + pad is a
 * multiple of 4, and the BTH pad count says how many) and the ICRC; the
 * caller places the payload right after the headers, then the zero pad
 * bytes and the ICRC slot.
 *
 * @param buf where to write
 * @param size bytes available at @p buf
 * @param f field values
 * @param payload_len payload bytes (pad excluded)
 * @return the header length written, -EINVAL (unsupported opcode or IP
 *   version, payload on an opcode without one, or a first/middle packet
 *   payload that is not a multiple of 4), -ENOSPC (@p size too
 *   small) or -EMSGSIZE (packet beyond the IP length limit)
 */
int roce_build_hdr(void *buf, uint32_t size, const struct roce_hdr_fields *f,
		   uint32_t payload_len);

/**
 * Turn an mbuf holding just the payload into a complete frame: prepend the
 * headers in the first segment's headroom, append the zero pad bytes and a
 * zeroed ICRC slot in the last segment's tailroom, and set l2_len, l3_len
 * and l4_len (the ICRC fill needs the L3 offset, which is l2_len).
 *
 * @param m the payload (pkt_len bytes; may be chained, may be empty)
 * @param f field values
 * @return 0, or an error of roce_build_hdr(); -ENOSPC also when the
 *   headroom or tailroom is too small. On error @p m is unchanged.
 */
int roce_build_mbuf(struct rte_mbuf *m, const struct roce_hdr_fields *f);

/**
 * roce_build_mbuf() from a prebuilt Ethernet/IP/UDP header: copy @p tmpl
 * (the path part of a header that roce_build_hdr() made for the same path,
 * as a QP keeps in roce_qp::hdr_tmpl), patch its IP and UDP lengths (IPv4:
 * the header checksum incrementally, RFC 1624) and write the BTH and
 * extension headers from @p f. Only the opcode, BTH and extension fields
 * of @p f are read. The frame is byte for byte what roce_build_mbuf()
 * makes from the full fields of that path; the per-packet cost is a fixed
 * copy instead of rebuilding every header.
 *
 * @param m the payload (as for roce_build_mbuf())
 * @param tmpl the Ethernet (+ 802.1Q), IP and UDP headers of the path
 * @param tmpl_len their length: 42 or 46 (IPv4), 62 or 66 (IPv6)
 * @param f opcode, BTH and extension fields
 * @return 0, -EINVAL (unsupported opcode, template length, payload on an
 *   opcode without one, padding on a first/middle packet), -ENOSPC
 *   (headroom or tailroom too small), -EMSGSIZE (beyond the IP length
 *   limit). On error @p m is unchanged.
 */
int roce_build_mbuf_tmpl(struct rte_mbuf *m, const uint8_t *tmpl,
			 uint16_t tmpl_len, const struct roce_hdr_fields *f);

/**
 * Fill @p f with the values of a parsed packet, so that building it again
 * reproduces the headers of @p pkt (reserved bits, sent as 0, aside). A
 * responder starts a reply from this and swaps the addresses.
 *
 * @param f fields to fill (every member is written)
 * @param pkt a packet accepted by roce_parse()
 */
void roce_build_fields_from_pkt(struct roce_hdr_fields *f,
				const struct roce_pkt *pkt);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_BUILD_H */
