/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_HDR_H
#define ROCE_HDR_H

/**
 * @file
 * RoCEv2 wire formats, level 1: header layouts and raw-pointer accessors.
 *
 * A RoCEv2 frame (IBTA vol. 1 annex A17) is Ethernet (optionally one
 * 802.1Q tag), IPv4 or IPv6, UDP to port 4791, the IB Base Transport
 * Header (BTH, IBTA 9.2), the extension headers the opcode calls for
 * (IBTA 9.3), the payload, 0-3 pad bytes and the 4-byte ICRC.
 *
 * The Ethernet, 802.1Q, IPv4, IPv6 and UDP layouts are DPDK's (rte_ether.h,
 * rte_ip.h, rte_udp.h); this file adds accessors for their sub-byte
 * fields. The InfiniBand headers are defined here as packed byte layouts
 * of big-endian words: every bit field is read and written by mask and
 * shift on the host-order value, never through C bit fields, and every
 * accessor takes and returns host-order values. Setters change only the
 * bits of their field. The structures are packed (alignment 1), so they
 * may sit at any address in a frame.
 *
 * Level 2 (accessors on a parsed packet, e.g. roce_pkt_bth()) lives in
 * roce_parse.h; the opcode table in roce_opcode.h.
 */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCEv2 (IANA; IBTA annex A17). */
#define ROCE_UDP_PORT 4791

/** Header sizes in bytes. */
enum roce_hdr_size {
	ROCE_ETH_HLEN = 14,	/**< Ethernet II header */
	ROCE_VLAN_HLEN = 4,	/**< one 802.1Q tag */
	ROCE_IPV4_HLEN = 20,	/**< IPv4 without options */
	ROCE_IPV4_HLEN_MAX = 60, /**< IPv4 with 40 bytes of options */
	ROCE_IPV6_HLEN = 40,	/**< IPv6 fixed header */
	ROCE_UDP_HLEN = 8,	/**< UDP header */
	ROCE_BTH_LEN = 12,	/**< Base Transport Header, IBTA 9.2 */
	ROCE_RDETH_LEN = 4,	/**< Reliable Datagram ETH, IBTA 9.3.1 */
	ROCE_DETH_LEN = 8,	/**< Datagram ETH, IBTA 9.3.2 */
	ROCE_RETH_LEN = 16,	/**< RDMA ETH, IBTA 9.3.3 */
	ROCE_ATMETH_LEN = 28,	/**< Atomic ETH, IBTA 9.3.4 */
	ROCE_AETH_LEN = 4,	/**< ACK ETH, IBTA 9.3.5 */
	ROCE_ATMACK_LEN = 8,	/**< Atomic Acknowledge ETH, IBTA 9.3.6 */
	ROCE_IMMDT_LEN = 4,	/**< Immediate data, IBTA 9.3.7 */
	ROCE_IETH_LEN = 4,	/**< Invalidate ETH, IBTA 9.3.8 */
	ROCE_CNP_RSVD_LEN = 16,	/**< reserved bytes of a CNP (annex A17) */
	ROCE_MAD_HDR_LEN = 24,	/**< MAD common header, IBTA 13.4.3 */
	ROCE_MAD_LEN = 256,	/**< a whole MAD */
};

/** ECN codepoints of the IP TOS / traffic class low 2 bits (RFC 3168). */
enum roce_ecn {
	ROCE_ECN_NOT_ECT = 0,	/**< not ECN-capable */
	ROCE_ECN_ECT1 = 1,	/**< ECN-capable, ECT(1) */
	ROCE_ECN_ECT0 = 2,	/**< ECN-capable, ECT(0): what RoCEv2 sends */
	ROCE_ECN_CE = 3,	/**< congestion experienced */
};

/* ---------------------------------------------------------------------- */
/* Internal helpers: a field of a host-order word under a mask.           */

/** @internal Read the field @p mask (shifted by @p shift) of big-endian @p w. */
static inline uint32_t
roce_be32_field(rte_be32_t w, uint32_t mask, unsigned int shift)
{
	return (rte_be_to_cpu_32(w) & mask) >> shift;
}

/** @internal Return @p w with field @p mask (at @p shift) replaced by @p v. */
static inline rte_be32_t
roce_be32_with(rte_be32_t w, uint32_t mask, unsigned int shift, uint32_t v)
{
	return rte_cpu_to_be_32((rte_be_to_cpu_32(w) & ~mask) |
				((v << shift) & mask));
}

/** @internal Return byte @p b with field @p mask (at @p shift) set to @p v. */
static inline uint8_t
roce_u8_with(uint8_t b, uint8_t mask, unsigned int shift, uint32_t v)
{
	return (uint8_t)((b & ~mask) | ((v << shift) & mask));
}

/* ---------------------------------------------------------------------- */
/* 802.1Q tag control information (host order TCI).                       */

/** Priority code point (3 bits) of a host-order 802.1Q TCI. */
static inline uint8_t
roce_vlan_pcp(uint16_t tci)
{
	return tci >> 13;
}

/** Drop eligible indicator of a host-order 802.1Q TCI. */
static inline bool
roce_vlan_dei(uint16_t tci)
{
	return (tci >> 12) & 1;
}

/** VLAN identifier (12 bits) of a host-order 802.1Q TCI. */
static inline uint16_t
roce_vlan_vid(uint16_t tci)
{
	return tci & 0xfff;
}

/** Compose a host-order 802.1Q TCI from PCP, DEI and VID. */
static inline uint16_t
roce_vlan_tci(uint8_t pcp, bool dei, uint16_t vid)
{
	return (uint16_t)((pcp & 7) << 13 | (dei ? 1 << 12 : 0) | (vid & 0xfff));
}

/* ---------------------------------------------------------------------- */
/* IPv4 sub-byte fields (RFC 791, RFC 2474, RFC 3168).                     */

/** IP version nibble of an IPv4 (or IPv6: same position) header. */
static inline uint8_t
roce_ip_version(const void *ip)
{
	return *(const uint8_t *)ip >> 4;
}

/** IPv4 header length in bytes (IHL * 4). */
static inline uint8_t
roce_ipv4_hlen(const struct rte_ipv4_hdr *ip)
{
	return (ip->version_ihl & 0xf) * 4;
}

/** Set IPv4 version 4 and header length @p hlen bytes (multiple of 4). */
static inline void
roce_ipv4_set_version_hlen(struct rte_ipv4_hdr *ip, uint8_t hlen)
{
	ip->version_ihl = (uint8_t)(4 << 4 | ((hlen / 4) & 0xf));
}

/** DSCP (6 bits) of an IPv4 header. */
static inline uint8_t
roce_ipv4_dscp(const struct rte_ipv4_hdr *ip)
{
	return ip->type_of_service >> 2;
}

/** ECN (2 bits, enum roce_ecn) of an IPv4 header. */
static inline uint8_t
roce_ipv4_ecn(const struct rte_ipv4_hdr *ip)
{
	return ip->type_of_service & 3;
}

/** Set the DSCP of an IPv4 header (the ECN bits are kept). */
static inline void
roce_ipv4_set_dscp(struct rte_ipv4_hdr *ip, uint8_t dscp)
{
	ip->type_of_service = roce_u8_with(ip->type_of_service, 0xfc, 2, dscp);
}

/** Set the ECN of an IPv4 header (the DSCP is kept; checksum not updated). */
static inline void
roce_ipv4_set_ecn(struct rte_ipv4_hdr *ip, uint8_t ecn)
{
	ip->type_of_service = roce_u8_with(ip->type_of_service, 3, 0, ecn);
}

/** True when an IPv4 header is a fragment (MF set or offset non-zero). */
static inline bool
roce_ipv4_is_fragment(const struct rte_ipv4_hdr *ip)
{
	return (rte_be_to_cpu_16(ip->fragment_offset) &
		(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0;
}

/* ---------------------------------------------------------------------- */
/* IPv6 version / traffic class / flow label word (RFC 8200).              */

/** Traffic class (8 bits) of an IPv6 header. */
static inline uint8_t
roce_ipv6_tc(const struct rte_ipv6_hdr *ip)
{
	return (uint8_t)roce_be32_field(ip->vtc_flow, 0x0ff00000, 20);
}

/** Flow label (20 bits) of an IPv6 header. */
static inline uint32_t
roce_ipv6_flow(const struct rte_ipv6_hdr *ip)
{
	return roce_be32_field(ip->vtc_flow, 0x000fffff, 0);
}

/** Write the IPv6 version 6, traffic class @p tc and flow label @p flow. */
static inline void
roce_ipv6_set_vtc_flow(struct rte_ipv6_hdr *ip, uint8_t tc, uint32_t flow)
{
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tc << 20 |
					(flow & 0xfffff));
}

/* ---------------------------------------------------------------------- */
/* BTH: Base Transport Header, IBTA 9.2.                                   */

/** Base Transport Header (12 bytes). */
struct roce_bth {
	uint8_t opcode;		/**< OpCode, IBTA 9.2.1 */
	uint8_t flags;		/**< SE(7) M(6) PadCnt(5:4) TVer(3:0) */
	rte_be16_t pkey;	/**< partition key */
	rte_be32_t qpn;		/**< FECN(31) BECN(30) resv6(29:24) DestQP(23:0) */
	rte_be32_t apsn;	/**< AckReq(31) resv7(30:24) PSN(23:0) */
} __rte_packed;

/** @internal Masks of the BTH words. */
enum {
	ROCE_BTH_SE = 0x80,
	ROCE_BTH_MIG = 0x40,
	ROCE_BTH_PAD = 0x30,
	ROCE_BTH_TVER = 0x0f,
	ROCE_BTH_FECN = 1u << 31,
	ROCE_BTH_BECN = 1u << 30,
	ROCE_BTH_RESV6 = 0x3f000000,
	ROCE_BTH_QPN = 0x00ffffff,
	ROCE_BTH_ACKREQ = 1u << 31,
	ROCE_BTH_RESV7 = 0x7f000000,
	ROCE_BTH_PSN = 0x00ffffff,
};

/** BTH OpCode (IBTA 9.2.1: bits 7-5 transport, 4-0 operation). */
static inline uint8_t
roce_bth_opcode(const struct roce_bth *bth)
{
	return bth->opcode;
}

/** Set the BTH OpCode. */
static inline void
roce_bth_set_opcode(struct roce_bth *bth, uint8_t opcode)
{
	bth->opcode = opcode;
}

/** Solicited Event bit (IBTA 9.2.2). */
static inline bool
roce_bth_se(const struct roce_bth *bth)
{
	return (bth->flags & ROCE_BTH_SE) != 0;
}

/** Set the Solicited Event bit. */
static inline void
roce_bth_set_se(struct roce_bth *bth, bool se)
{
	bth->flags = roce_u8_with(bth->flags, ROCE_BTH_SE, 7, se);
}

/** MigReq bit (IBTA 9.2.3). */
static inline bool
roce_bth_mig(const struct roce_bth *bth)
{
	return (bth->flags & ROCE_BTH_MIG) != 0;
}

/** Set the MigReq bit. */
static inline void
roce_bth_set_mig(struct roce_bth *bth, bool mig)
{
	bth->flags = roce_u8_with(bth->flags, ROCE_BTH_MIG, 6, mig);
}

/** Pad count, 0-3 bytes after the payload (IBTA 9.2.4). */
static inline uint8_t
roce_bth_pad(const struct roce_bth *bth)
{
	return (bth->flags & ROCE_BTH_PAD) >> 4;
}

/** Set the pad count (2 bits). */
static inline void
roce_bth_set_pad(struct roce_bth *bth, uint8_t pad)
{
	bth->flags = roce_u8_with(bth->flags, ROCE_BTH_PAD, 4, pad);
}

/** Transport header version, 0 in this version of the spec (IBTA 9.2.5). */
static inline uint8_t
roce_bth_tver(const struct roce_bth *bth)
{
	return bth->flags & ROCE_BTH_TVER;
}

/** Set the transport header version (4 bits). */
static inline void
roce_bth_set_tver(struct roce_bth *bth, uint8_t tver)
{
	bth->flags = roce_u8_with(bth->flags, ROCE_BTH_TVER, 0, tver);
}

/** Partition key (IBTA 9.2.6). */
static inline uint16_t
roce_bth_pkey(const struct roce_bth *bth)
{
	return rte_be_to_cpu_16(bth->pkey);
}

/** Set the partition key. */
static inline void
roce_bth_set_pkey(struct roce_bth *bth, uint16_t pkey)
{
	bth->pkey = rte_cpu_to_be_16(pkey);
}

/** Forward ECN bit (IBTA annex A10; unused by RoCEv2, which uses IP ECN). */
static inline bool
roce_bth_fecn(const struct roce_bth *bth)
{
	return roce_be32_field(bth->qpn, ROCE_BTH_FECN, 31);
}

/** Set the FECN bit. */
static inline void
roce_bth_set_fecn(struct roce_bth *bth, bool v)
{
	bth->qpn = roce_be32_with(bth->qpn, ROCE_BTH_FECN, 31, v);
}

/** Backward ECN bit (set in a CNP, annex A17). */
static inline bool
roce_bth_becn(const struct roce_bth *bth)
{
	return roce_be32_field(bth->qpn, ROCE_BTH_BECN, 30);
}

/** Set the BECN bit. */
static inline void
roce_bth_set_becn(struct roce_bth *bth, bool v)
{
	bth->qpn = roce_be32_with(bth->qpn, ROCE_BTH_BECN, 30, v);
}

/** The 6 reserved bits after BECN (sent as 0, ignored on receive). */
static inline uint8_t
roce_bth_resv6(const struct roce_bth *bth)
{
	return (uint8_t)roce_be32_field(bth->qpn, ROCE_BTH_RESV6, 24);
}

/** Set the 6 reserved bits after BECN. */
static inline void
roce_bth_set_resv6(struct roce_bth *bth, uint8_t v)
{
	bth->qpn = roce_be32_with(bth->qpn, ROCE_BTH_RESV6, 24, v);
}

/** Destination QP number, 24 bits (IBTA 9.2.7). */
static inline uint32_t
roce_bth_dqpn(const struct roce_bth *bth)
{
	return roce_be32_field(bth->qpn, ROCE_BTH_QPN, 0);
}

/** Set the destination QP number (24 bits). */
static inline void
roce_bth_set_dqpn(struct roce_bth *bth, uint32_t qpn)
{
	bth->qpn = roce_be32_with(bth->qpn, ROCE_BTH_QPN, 0, qpn);
}

/** Acknowledge Request bit (IBTA 9.2.8). */
static inline bool
roce_bth_ackreq(const struct roce_bth *bth)
{
	return roce_be32_field(bth->apsn, ROCE_BTH_ACKREQ, 31);
}

/** Set the AckReq bit. */
static inline void
roce_bth_set_ackreq(struct roce_bth *bth, bool v)
{
	bth->apsn = roce_be32_with(bth->apsn, ROCE_BTH_ACKREQ, 31, v);
}

/** The 7 reserved bits after AckReq. */
static inline uint8_t
roce_bth_resv7(const struct roce_bth *bth)
{
	return (uint8_t)roce_be32_field(bth->apsn, ROCE_BTH_RESV7, 24);
}

/** Set the 7 reserved bits after AckReq. */
static inline void
roce_bth_set_resv7(struct roce_bth *bth, uint8_t v)
{
	bth->apsn = roce_be32_with(bth->apsn, ROCE_BTH_RESV7, 24, v);
}

/** Packet sequence number, 24 bits (IBTA 9.2.9). */
static inline uint32_t
roce_bth_psn(const struct roce_bth *bth)
{
	return roce_be32_field(bth->apsn, ROCE_BTH_PSN, 0);
}

/** Set the PSN (24 bits; higher bits of @p psn are ignored). */
static inline void
roce_bth_set_psn(struct roce_bth *bth, uint32_t psn)
{
	bth->apsn = roce_be32_with(bth->apsn, ROCE_BTH_PSN, 0, psn);
}

/* ---------------------------------------------------------------------- */
/* RDETH, IBTA 9.3.1 (Reliable Datagram; layout only, RD is unsupported).  */

/** Reliable Datagram Extended Transport Header (4 bytes). */
struct roce_rdeth {
	rte_be32_t een;		/**< resv8(31:24) EE context(23:0) */
} __rte_packed;

/* ---------------------------------------------------------------------- */
/* DETH, IBTA 9.3.2.                                                       */

/** Datagram Extended Transport Header (8 bytes). */
struct roce_deth {
	rte_be32_t qkey;	/**< queue key */
	rte_be32_t sqpn;	/**< resv8(31:24) SrcQP(23:0) */
} __rte_packed;

/** DETH Q_Key. */
static inline uint32_t
roce_deth_qkey(const struct roce_deth *deth)
{
	return rte_be_to_cpu_32(deth->qkey);
}

/** Set the DETH Q_Key. */
static inline void
roce_deth_set_qkey(struct roce_deth *deth, uint32_t qkey)
{
	deth->qkey = rte_cpu_to_be_32(qkey);
}

/** DETH source QP number (24 bits). */
static inline uint32_t
roce_deth_sqpn(const struct roce_deth *deth)
{
	return roce_be32_field(deth->sqpn, 0x00ffffff, 0);
}

/** Set the DETH source QP number (24 bits; the reserved byte is kept). */
static inline void
roce_deth_set_sqpn(struct roce_deth *deth, uint32_t qpn)
{
	deth->sqpn = roce_be32_with(deth->sqpn, 0x00ffffff, 0, qpn);
}

/* ---------------------------------------------------------------------- */
/* RETH, IBTA 9.3.3.                                                       */

/** RDMA Extended Transport Header (16 bytes). */
struct roce_reth {
	rte_be64_t va;		/**< virtual address */
	rte_be32_t rkey;	/**< remote key */
	rte_be32_t len;		/**< DMA length of the whole message */
} __rte_packed;

/** RETH virtual address. */
static inline uint64_t
roce_reth_va(const struct roce_reth *reth)
{
	return rte_be_to_cpu_64(reth->va);
}

/** Set the RETH virtual address. */
static inline void
roce_reth_set_va(struct roce_reth *reth, uint64_t va)
{
	reth->va = rte_cpu_to_be_64(va);
}

/** RETH R_Key. */
static inline uint32_t
roce_reth_rkey(const struct roce_reth *reth)
{
	return rte_be_to_cpu_32(reth->rkey);
}

/** Set the RETH R_Key. */
static inline void
roce_reth_set_rkey(struct roce_reth *reth, uint32_t rkey)
{
	reth->rkey = rte_cpu_to_be_32(rkey);
}

/** RETH DMA length. */
static inline uint32_t
roce_reth_len(const struct roce_reth *reth)
{
	return rte_be_to_cpu_32(reth->len);
}

/** Set the RETH DMA length. */
static inline void
roce_reth_set_len(struct roce_reth *reth, uint32_t len)
{
	reth->len = rte_cpu_to_be_32(len);
}

/* ---------------------------------------------------------------------- */
/* AtomicETH, IBTA 9.3.4.                                                  */

/** Atomic Extended Transport Header (28 bytes). */
struct roce_atmeth {
	rte_be64_t va;		/**< virtual address, 8-byte aligned */
	rte_be32_t rkey;	/**< remote key */
	rte_be64_t swap_add;	/**< swap (CmpSwap) or add (FetchAdd) data */
	rte_be64_t compare;	/**< compare data (CmpSwap) */
} __rte_packed;

/** AtomicETH virtual address. */
static inline uint64_t
roce_atmeth_va(const struct roce_atmeth *a)
{
	return rte_be_to_cpu_64(a->va);
}

/** Set the AtomicETH virtual address. */
static inline void
roce_atmeth_set_va(struct roce_atmeth *a, uint64_t va)
{
	a->va = rte_cpu_to_be_64(va);
}

/** AtomicETH R_Key. */
static inline uint32_t
roce_atmeth_rkey(const struct roce_atmeth *a)
{
	return rte_be_to_cpu_32(a->rkey);
}

/** Set the AtomicETH R_Key. */
static inline void
roce_atmeth_set_rkey(struct roce_atmeth *a, uint32_t rkey)
{
	a->rkey = rte_cpu_to_be_32(rkey);
}

/** AtomicETH swap (CmpSwap) or add (FetchAdd) data. */
static inline uint64_t
roce_atmeth_swap_add(const struct roce_atmeth *a)
{
	return rte_be_to_cpu_64(a->swap_add);
}

/** Set the AtomicETH swap/add data. */
static inline void
roce_atmeth_set_swap_add(struct roce_atmeth *a, uint64_t v)
{
	a->swap_add = rte_cpu_to_be_64(v);
}

/** AtomicETH compare data. */
static inline uint64_t
roce_atmeth_compare(const struct roce_atmeth *a)
{
	return rte_be_to_cpu_64(a->compare);
}

/** Set the AtomicETH compare data. */
static inline void
roce_atmeth_set_compare(struct roce_atmeth *a, uint64_t v)
{
	a->compare = rte_cpu_to_be_64(v);
}

/* ---------------------------------------------------------------------- */
/* AETH, IBTA 9.3.5.                                                       */

/** ACK Extended Transport Header (4 bytes). */
struct roce_aeth {
	rte_be32_t smsn;	/**< Syndrome(31:24) MSN(23:0) */
} __rte_packed;

/** AETH syndrome types: bits 7-5 of the syndrome (IBTA 9.3.5, table 43). */
enum roce_aeth_type {
	ROCE_AETH_ACK = 0,	/**< 0b000: ACK, low 5 bits credit count */
	ROCE_AETH_RNR_NAK = 1,	/**< 0b001: RNR NAK, low 5 bits timer code */
	ROCE_AETH_RSVD = 2,	/**< 0b010: reserved */
	ROCE_AETH_NAK = 3,	/**< 0b011: NAK, low 5 bits enum roce_nak_code */
};

/** NAK codes, the low 5 bits of a NAK syndrome (IBTA 9.3.5, table 44). */
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,	/**< PSN sequence error */
	ROCE_NAK_INVALID_REQ = 1,	/**< invalid request */
	ROCE_NAK_REM_ACCESS_ERR = 2,	/**< remote access error */
	ROCE_NAK_REM_OP_ERR = 3,	/**< remote operational error */
	ROCE_NAK_INVALID_RD_REQ = 4,	/**< invalid RD request */
};

/** Credit count meaning "no credit information" in an ACK (IBTA 9.7.7.2). */
#define ROCE_AETH_CREDIT_INVALID 0x1f

/** AETH syndrome (8 bits). */
static inline uint8_t
roce_aeth_syndrome(const struct roce_aeth *aeth)
{
	return (uint8_t)roce_be32_field(aeth->smsn, 0xff000000, 24);
}

/** Set the AETH syndrome. */
static inline void
roce_aeth_set_syndrome(struct roce_aeth *aeth, uint8_t syn)
{
	aeth->smsn = roce_be32_with(aeth->smsn, 0xff000000, 24, syn);
}

/** AETH message sequence number (24 bits). */
static inline uint32_t
roce_aeth_msn(const struct roce_aeth *aeth)
{
	return roce_be32_field(aeth->smsn, 0x00ffffff, 0);
}

/** Set the AETH MSN (24 bits). */
static inline void
roce_aeth_set_msn(struct roce_aeth *aeth, uint32_t msn)
{
	aeth->smsn = roce_be32_with(aeth->smsn, 0x00ffffff, 0, msn);
}

/** Type (enum roce_aeth_type; 4-7 are reserved) of syndrome @p syn. */
static inline uint8_t
roce_syndrome_type(uint8_t syn)
{
	return syn >> 5;
}

/**
 * Value (low 5 bits) of syndrome @p syn: the credit count of an ACK, the
 * RNR timer code of an RNR NAK, or the enum roce_nak_code of a NAK.
 */
static inline uint8_t
roce_syndrome_value(uint8_t syn)
{
	return syn & 0x1f;
}

/** Compose a syndrome from a type (enum roce_aeth_type) and 5-bit value. */
static inline uint8_t
roce_syndrome(uint8_t type, uint8_t value)
{
	return (uint8_t)((type & 7) << 5 | (value & 0x1f));
}

/* ---------------------------------------------------------------------- */
/* AtomicAckETH, ImmDt, IETH: IBTA 9.3.6 - 9.3.8.                          */

/** Atomic Acknowledge Extended Transport Header (8 bytes). */
struct roce_atmack {
	rte_be64_t orig;	/**< original remote data */
} __rte_packed;

/** AtomicAckETH original remote data. */
static inline uint64_t
roce_atmack_orig(const struct roce_atmack *a)
{
	return rte_be_to_cpu_64(a->orig);
}

/** Set the AtomicAckETH original remote data. */
static inline void
roce_atmack_set_orig(struct roce_atmack *a, uint64_t v)
{
	a->orig = rte_cpu_to_be_64(v);
}

/** Immediate Data Extended Transport Header (4 bytes). */
struct roce_immdt {
	rte_be32_t imm;		/**< immediate data */
} __rte_packed;

/**
 * Immediate data, host order (verbs carry it in network order: convert
 * with rte_cpu_to_be_32() when filling a work completion).
 */
static inline uint32_t
roce_immdt_imm(const struct roce_immdt *i)
{
	return rte_be_to_cpu_32(i->imm);
}

/** Set the immediate data from a host-order value. */
static inline void
roce_immdt_set_imm(struct roce_immdt *i, uint32_t imm)
{
	i->imm = rte_cpu_to_be_32(imm);
}

/** Invalidate Extended Transport Header (4 bytes). */
struct roce_ieth {
	rte_be32_t rkey;	/**< R_Key to invalidate */
} __rte_packed;

/** IETH R_Key. */
static inline uint32_t
roce_ieth_rkey(const struct roce_ieth *i)
{
	return rte_be_to_cpu_32(i->rkey);
}

/** Set the IETH R_Key. */
static inline void
roce_ieth_set_rkey(struct roce_ieth *i, uint32_t rkey)
{
	i->rkey = rte_cpu_to_be_32(rkey);
}

/** The 16 reserved bytes following the BTH of a CNP (annex A17). */
struct roce_cnp {
	uint8_t rsvd[ROCE_CNP_RSVD_LEN];	/**< sent as 0 */
} __rte_packed;

/* ---------------------------------------------------------------------- */
/* MAD common header, IBTA 13.4.3 (payload of a UD SEND on QP1).           */

/** MAD common header (24 bytes). */
struct roce_mad_hdr {
	uint8_t base_version;	/**< 1 */
	uint8_t mgmt_class;	/**< enum roce_mgmt_class */
	uint8_t class_version;	/**< 2 for CM */
	uint8_t method;		/**< R(7) Method(6:0) */
	rte_be16_t status;	/**< status */
	rte_be16_t class_specific; /**< class-specific */
	rte_be64_t tid;		/**< transaction ID */
	rte_be16_t attr_id;	/**< attribute ID */
	rte_be16_t resv;	/**< reserved */
	rte_be32_t attr_mod;	/**< attribute modifier */
} __rte_packed;

/** Management classes (IBTA 13.4.4, table 132), as far as RoCE uses them. */
enum roce_mgmt_class {
	ROCE_MGMT_CLASS_SUBN_ADM = 0x03,	/**< subnet administration */
	ROCE_MGMT_CLASS_PERF = 0x04,		/**< performance management */
	ROCE_MGMT_CLASS_BM = 0x05,		/**< baseboard management */
	ROCE_MGMT_CLASS_DEV_MGT = 0x06,		/**< device management */
	ROCE_MGMT_CLASS_CM = 0x07,		/**< communication management */
};

/** Methods (IBTA 13.4.5, table 134); the R bit is not included. */
enum roce_mad_method {
	ROCE_MAD_METHOD_GET = 0x01,
	ROCE_MAD_METHOD_SET = 0x02,
	ROCE_MAD_METHOD_SEND = 0x03,
	ROCE_MAD_METHOD_TRAP = 0x05,
	ROCE_MAD_METHOD_REPORT = 0x06,
	ROCE_MAD_METHOD_TRAP_REPRESS = 0x07,
};

/** The response bit of the method byte. */
#define ROCE_MAD_METHOD_RESP 0x80

/** CM attribute IDs (IBTA 12.11, table 103). */
enum roce_cm_attr_id {
	ROCE_CM_ATTR_CLASS_PORT_INFO = 0x0001,
	ROCE_CM_ATTR_REQ = 0x0010,
	ROCE_CM_ATTR_MRA = 0x0011,
	ROCE_CM_ATTR_REJ = 0x0012,
	ROCE_CM_ATTR_REP = 0x0013,
	ROCE_CM_ATTR_RTU = 0x0014,
	ROCE_CM_ATTR_DREQ = 0x0015,
	ROCE_CM_ATTR_DREP = 0x0016,
	ROCE_CM_ATTR_SIDR_REQ = 0x0017,
	ROCE_CM_ATTR_SIDR_REP = 0x0018,
	ROCE_CM_ATTR_LAP = 0x0019,
	ROCE_CM_ATTR_APR = 0x001a,
};

/** MAD base version. */
static inline uint8_t
roce_mad_base_version(const struct roce_mad_hdr *h)
{
	return h->base_version;
}

/** Set the MAD base version. */
static inline void
roce_mad_set_base_version(struct roce_mad_hdr *h, uint8_t v)
{
	h->base_version = v;
}

/** MAD management class. */
static inline uint8_t
roce_mad_mgmt_class(const struct roce_mad_hdr *h)
{
	return h->mgmt_class;
}

/** Set the MAD management class. */
static inline void
roce_mad_set_mgmt_class(struct roce_mad_hdr *h, uint8_t v)
{
	h->mgmt_class = v;
}

/** MAD class version. */
static inline uint8_t
roce_mad_class_version(const struct roce_mad_hdr *h)
{
	return h->class_version;
}

/** Set the MAD class version. */
static inline void
roce_mad_set_class_version(struct roce_mad_hdr *h, uint8_t v)
{
	h->class_version = v;
}

/** MAD method without the R bit (7 bits, enum roce_mad_method). */
static inline uint8_t
roce_mad_method(const struct roce_mad_hdr *h)
{
	return h->method & 0x7f;
}

/** Set the MAD method (7 bits; the R bit is kept). */
static inline void
roce_mad_set_method(struct roce_mad_hdr *h, uint8_t m)
{
	h->method = roce_u8_with(h->method, 0x7f, 0, m);
}

/** MAD R bit: the MAD is a response. */
static inline bool
roce_mad_is_resp(const struct roce_mad_hdr *h)
{
	return (h->method & ROCE_MAD_METHOD_RESP) != 0;
}

/** Set the MAD R bit. */
static inline void
roce_mad_set_resp(struct roce_mad_hdr *h, bool r)
{
	h->method = roce_u8_with(h->method, ROCE_MAD_METHOD_RESP, 7, r);
}

/** MAD status. */
static inline uint16_t
roce_mad_status(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->status);
}

/** Set the MAD status. */
static inline void
roce_mad_set_status(struct roce_mad_hdr *h, uint16_t v)
{
	h->status = rte_cpu_to_be_16(v);
}

/** MAD class-specific field. */
static inline uint16_t
roce_mad_class_specific(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->class_specific);
}

/** Set the MAD class-specific field. */
static inline void
roce_mad_set_class_specific(struct roce_mad_hdr *h, uint16_t v)
{
	h->class_specific = rte_cpu_to_be_16(v);
}

/** MAD transaction ID. */
static inline uint64_t
roce_mad_tid(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_64(h->tid);
}

/** Set the MAD transaction ID. */
static inline void
roce_mad_set_tid(struct roce_mad_hdr *h, uint64_t v)
{
	h->tid = rte_cpu_to_be_64(v);
}

/** MAD attribute ID. */
static inline uint16_t
roce_mad_attr_id(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->attr_id);
}

/** Set the MAD attribute ID. */
static inline void
roce_mad_set_attr_id(struct roce_mad_hdr *h, uint16_t v)
{
	h->attr_id = rte_cpu_to_be_16(v);
}

/** MAD reserved field after the attribute ID. */
static inline uint16_t
roce_mad_resv(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_16(h->resv);
}

/** Set the MAD reserved field. */
static inline void
roce_mad_set_resv(struct roce_mad_hdr *h, uint16_t v)
{
	h->resv = rte_cpu_to_be_16(v);
}

/** MAD attribute modifier. */
static inline uint32_t
roce_mad_attr_mod(const struct roce_mad_hdr *h)
{
	return rte_be_to_cpu_32(h->attr_mod);
}

/** Set the MAD attribute modifier. */
static inline void
roce_mad_set_attr_mod(struct roce_mad_hdr *h, uint32_t v)
{
	h->attr_mod = rte_cpu_to_be_32(v);
}

/* Layouts are part of the wire format: check them at compile time. */
static_assert(sizeof(struct roce_bth) == ROCE_BTH_LEN, "BTH size");
static_assert(sizeof(struct roce_rdeth) == ROCE_RDETH_LEN, "RDETH size");
static_assert(sizeof(struct roce_deth) == ROCE_DETH_LEN, "DETH size");
static_assert(sizeof(struct roce_reth) == ROCE_RETH_LEN, "RETH size");
static_assert(sizeof(struct roce_atmeth) == ROCE_ATMETH_LEN, "AtomicETH size");
static_assert(sizeof(struct roce_aeth) == ROCE_AETH_LEN, "AETH size");
static_assert(sizeof(struct roce_atmack) == ROCE_ATMACK_LEN, "AtomicAckETH size");
static_assert(sizeof(struct roce_immdt) == ROCE_IMMDT_LEN, "ImmDt size");
static_assert(sizeof(struct roce_ieth) == ROCE_IETH_LEN, "IETH size");
static_assert(sizeof(struct roce_cnp) == ROCE_CNP_RSVD_LEN, "CNP size");
static_assert(sizeof(struct roce_mad_hdr) == ROCE_MAD_HDR_LEN, "MAD header size");

#ifdef __cplusplus
}
#endif

#endif /* ROCE_HDR_H */
