/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

/**
 * @file
 * The BTH opcode table (IBTA vol. 1 9.2.1 table 38, 9.3 and annex A17) as
 * data: one entry per 8-bit opcode saying what the packet is, which
 * extension headers follow the BTH and where.
 *
 * Extension headers always appear in IBTA order (9.3): DETH, RETH,
 * AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; a CNP has 16 reserved bytes
 * instead. enum roce_ext_hdr follows that order, and the offsets in the
 * table are computed from the header flags when the table is compiled
 * (never written by hand).
 *
 * Supported: RC (0x00-0x14, 0x16, 0x17), UC (0x20-0x2b), UD (0x64, 0x65)
 * and the RoCEv2 CNP (0x81). Reliable Datagram, XRC and the IBTA 1.5/1.6
 * additions (FLUSH, ATOMIC_WRITE) are not: their entries are invalid.
 */

#include <stdbool.h>
#include <stdint.h>

#include "roce_hdr.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Transport service of an opcode (bits 7-5 of the opcode, IBTA 9.2.1). */
enum roce_transport {
	ROCE_TRANSPORT_INVALID = 0,	/**< no such (supported) opcode */
	ROCE_TRANSPORT_RC,		/**< reliable connection, 0x00-0x1f */
	ROCE_TRANSPORT_UC,		/**< unreliable connection, 0x20-0x3f */
	ROCE_TRANSPORT_RD,		/**< reliable datagram, 0x40 (unsupported) */
	ROCE_TRANSPORT_UD,		/**< unreliable datagram, 0x60-0x7f */
	ROCE_TRANSPORT_CNP,		/**< congestion notification, 0x80-0x9f */
	ROCE_TRANSPORT_XRC,		/**< extended RC, 0xa0 (unsupported) */
};

/** BTH opcodes (IBTA 9.2.1 table 38; CNP: annex A17). */
enum roce_opcode {
	ROCE_OP_RC_SEND_FIRST = 0x00,
	ROCE_OP_RC_SEND_MIDDLE = 0x01,
	ROCE_OP_RC_SEND_LAST = 0x02,
	ROCE_OP_RC_SEND_LAST_IMM = 0x03,
	ROCE_OP_RC_SEND_ONLY = 0x04,
	ROCE_OP_RC_SEND_ONLY_IMM = 0x05,
	ROCE_OP_RC_RDMA_WRITE_FIRST = 0x06,
	ROCE_OP_RC_RDMA_WRITE_MIDDLE = 0x07,
	ROCE_OP_RC_RDMA_WRITE_LAST = 0x08,
	ROCE_OP_RC_RDMA_WRITE_LAST_IMM = 0x09,
	ROCE_OP_RC_RDMA_WRITE_ONLY = 0x0a,
	ROCE_OP_RC_RDMA_WRITE_ONLY_IMM = 0x0b,
	ROCE_OP_RC_RDMA_READ_REQUEST = 0x0c,
	ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST = 0x0d,
	ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE = 0x0e,
	ROCE_OP_RC_RDMA_READ_RESPONSE_LAST = 0x0f,
	ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY = 0x10,
	ROCE_OP_RC_ACK = 0x11,
	ROCE_OP_RC_ATOMIC_ACK = 0x12,
	ROCE_OP_RC_COMPARE_SWAP = 0x13,
	ROCE_OP_RC_FETCH_ADD = 0x14,
	ROCE_OP_RC_SEND_LAST_INV = 0x16,
	ROCE_OP_RC_SEND_ONLY_INV = 0x17,

	ROCE_OP_UC_SEND_FIRST = 0x20,
	ROCE_OP_UC_SEND_MIDDLE = 0x21,
	ROCE_OP_UC_SEND_LAST = 0x22,
	ROCE_OP_UC_SEND_LAST_IMM = 0x23,
	ROCE_OP_UC_SEND_ONLY = 0x24,
	ROCE_OP_UC_SEND_ONLY_IMM = 0x25,
	ROCE_OP_UC_RDMA_WRITE_FIRST = 0x26,
	ROCE_OP_UC_RDMA_WRITE_MIDDLE = 0x27,
	ROCE_OP_UC_RDMA_WRITE_LAST = 0x28,
	ROCE_OP_UC_RDMA_WRITE_LAST_IMM = 0x29,
	ROCE_OP_UC_RDMA_WRITE_ONLY = 0x2a,
	ROCE_OP_UC_RDMA_WRITE_ONLY_IMM = 0x2b,

	ROCE_OP_UD_SEND_ONLY = 0x64,
	ROCE_OP_UD_SEND_ONLY_IMM = 0x65,

	ROCE_OP_CNP = 0x81,
};

/** Extension headers after the BTH, in their IBTA wire order (9.3). */
enum roce_ext_hdr {
	ROCE_EXT_DETH,		/**< struct roce_deth */
	ROCE_EXT_RETH,		/**< struct roce_reth */
	ROCE_EXT_ATMETH,	/**< struct roce_atmeth */
	ROCE_EXT_AETH,		/**< struct roce_aeth */
	ROCE_EXT_ATMACK,	/**< struct roce_atmack */
	ROCE_EXT_IMMDT,		/**< struct roce_immdt */
	ROCE_EXT_IETH,		/**< struct roce_ieth */
	ROCE_EXT_CNP,		/**< struct roce_cnp (reserved bytes) */
	ROCE_EXT_MAX,		/**< number of extension headers */
};

/** Opcode flags (struct roce_opcode_info::flags). */
enum roce_op_flag {
	/* Which extension headers follow the BTH: bit n is enum roce_ext_hdr n. */
	ROCE_OPF_DETH = 1u << ROCE_EXT_DETH,	/**< DETH present */
	ROCE_OPF_RETH = 1u << ROCE_EXT_RETH,	/**< RETH present */
	ROCE_OPF_ATMETH = 1u << ROCE_EXT_ATMETH, /**< AtomicETH present */
	ROCE_OPF_AETH = 1u << ROCE_EXT_AETH,	/**< AETH present */
	ROCE_OPF_ATMACK = 1u << ROCE_EXT_ATMACK, /**< AtomicAckETH present */
	ROCE_OPF_IMMDT = 1u << ROCE_EXT_IMMDT,	/**< carries immediate data */
	ROCE_OPF_IETH = 1u << ROCE_EXT_IETH,	/**< carries an R_Key to invalidate */
	ROCE_OPF_CNP = 1u << ROCE_EXT_CNP,	/**< CNP reserved bytes present */
	ROCE_OPF_EXT_MASK = (1u << ROCE_EXT_MAX) - 1, /**< all header bits */

	ROCE_OPF_REQ = 1u << 8,		/**< request: requester to responder */
	ROCE_OPF_RESP = 1u << 9,	/**< response: ACK/NAK, read response, atomic ACK */
	ROCE_OPF_FIRST = 1u << 10,	/**< first packet of a message */
	ROCE_OPF_MIDDLE = 1u << 11,	/**< middle packet of a message */
	ROCE_OPF_LAST = 1u << 12,	/**< last packet of a message */
	ROCE_OPF_ONLY = ROCE_OPF_FIRST | ROCE_OPF_LAST, /**< single packet */
	ROCE_OPF_PAYLOAD = 1u << 13,	/**< may carry payload (possibly 0 bytes) */
	ROCE_OPF_RWR = 1u << 14,	/**< consumes a receive WQE (fetched here) */
	ROCE_OPF_RCOMP = 1u << 15,	/**< completes a receive WQE (CQE here) */
	ROCE_OPF_ACKED = 1u << 16,	/**< RC request: needs an ACK (IBTA 9.7.5) */
	ROCE_OPF_SEND = 1u << 17,	/**< SEND operation */
	ROCE_OPF_WRITE = 1u << 18,	/**< RDMA WRITE operation */
	ROCE_OPF_READ = 1u << 19,	/**< RDMA READ request or response */
	ROCE_OPF_ATOMIC = 1u << 20,	/**< atomic request or atomic ACK */
	ROCE_OPF_ACK = 1u << 21,	/**< ACK/NAK (RC_ACK) */
	/**
	 * Selective-repeat variant (roce_opcode_srx_table): a softernic
	 * extension of ROCE_SRX_REQ_LEN / ROCE_SRX_SACK_LEN bytes follows the
	 * IBTA extension headers (roce_sr.h). Never in roce_opcode_table.
	 */
	ROCE_OPF_SRX = 1u << 30,
};

/**
 * Selective repeat (softernic extension, only between two softernic ends
 * that negotiated it, roce_sr.h): BTH bit 30 of the AckReq/PSN word (the
 * top bit of resv7, sent as 0 by IBTA senders) says the packet carries
 * the SR extension header after its IBTA extension headers; the parser
 * then uses roce_opcode_srx_table instead of roce_opcode_table.
 */
enum roce_srx_wire {
	ROCE_BTH_APSN_SRX = 1u << 30,	/**< in host order of roce_bth::apsn */
	/** WRITE packets: be64 target address of this packet, be32 R_Key. */
	ROCE_SRX_REQ_LEN = 12,
	/** ACK/NAK: be32 base PSN, then a 256-bit bitmap (bit i: base + i). */
	ROCE_SRX_SACK_LEN = 36,
};

/** One opcode of the table. */
struct roce_opcode_info {
	const char *name;	/**< e.g. "RC_SEND_ONLY"; NULL when invalid */
	uint32_t flags;		/**< enum roce_op_flag */
	uint8_t transport;	/**< enum roce_transport */
	/** BTH + extension headers: offset of the payload from the BTH. */
	uint8_t hdr_len;
	/** Offset from the BTH start of each extension header, 0 if absent. */
	uint8_t off[ROCE_EXT_MAX];
};

/** The 256 opcodes; invalid ones have name NULL and transport INVALID. */
extern const struct roce_opcode_info roce_opcode_table[256];

/**
 * Selective-repeat variants: RC WRITE (0x06-0x0b) and RC_ACK with
 * ROCE_OPF_SRX and hdr_len grown by the extension; other entries invalid.
 */
extern const struct roce_opcode_info roce_opcode_srx_table[256];

/** SR-variant entry of @p opcode (name NULL when it has none). */
static inline const struct roce_opcode_info *
roce_opcode_srx_info(uint8_t opcode)
{
	return &roce_opcode_srx_table[opcode];
}

/** Table entry of @p opcode (never NULL; check roce_opcode_valid()). */
static inline const struct roce_opcode_info *
roce_opcode_info(uint8_t opcode)
{
	return &roce_opcode_table[opcode];
}

/** True when @p opcode is one this library implements. */
static inline bool
roce_opcode_valid(uint8_t opcode)
{
	return roce_opcode_table[opcode].name != NULL;
}

/** True when @p opcode has every flag of @p flags. */
static inline bool
roce_opcode_has(uint8_t opcode, uint32_t flags)
{
	return (roce_opcode_table[opcode].flags & flags) == flags;
}

/**
 * Name of @p opcode.
 *
 * @return the table name, or "INVALID" for an unsupported opcode
 */
const char *roce_opcode_name(uint8_t opcode);

/**
 * Opcode of a table name (exact match, e.g. "UD_SEND_ONLY_IMM").
 *
 * @return the opcode (0-255), or -ENOENT
 */
int roce_opcode_from_name(const char *name);

/**
 * Size in bytes of extension header @p ext.
 *
 * @return the size, 0 for an out-of-range @p ext
 */
uint8_t roce_ext_hdr_len(enum roce_ext_hdr ext);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_OPCODE_H */
