/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The opcode table. Each row gives the name, transport and flags of an
 * opcode; the header length and extension header offsets are derived from
 * the flags at compile time by the macros below, which walk the headers
 * in IBTA order (9.3): DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
 * IETH, then the CNP reserved bytes.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "roce_opcode.h"

/* Size of header X when flags f have it, else 0. */
#define HLEN(f, X, len)	(((f) & ROCE_OPF_##X) ? (len) : 0)

/* End offset (from the BTH start) of each header: start + own size. */
#define END_DETH(f)	(ROCE_BTH_LEN + HLEN(f, DETH, ROCE_DETH_LEN))
#define END_RETH(f)	(END_DETH(f) + HLEN(f, RETH, ROCE_RETH_LEN))
#define END_ATMETH(f)	(END_RETH(f) + HLEN(f, ATMETH, ROCE_ATMETH_LEN))
#define END_AETH(f)	(END_ATMETH(f) + HLEN(f, AETH, ROCE_AETH_LEN))
#define END_ATMACK(f)	(END_AETH(f) + HLEN(f, ATMACK, ROCE_ATMACK_LEN))
#define END_IMMDT(f)	(END_ATMACK(f) + HLEN(f, IMMDT, ROCE_IMMDT_LEN))
#define END_IETH(f)	(END_IMMDT(f) + HLEN(f, IETH, ROCE_IETH_LEN))
#define END_CNP(f)	(END_IETH(f) + HLEN(f, CNP, ROCE_CNP_RSVD_LEN))

/* Offset of header X: the end of the one before it, 0 when absent. */
#define OFF(f, X, start) (((f) & ROCE_OPF_##X) ? (start) : 0)

#define OP(code, nm, tp, f) [code] = {					\
	.name = nm,							\
	.flags = (f),							\
	.transport = ROCE_TRANSPORT_##tp,				\
	.hdr_len = END_CNP(f),						\
	.off = {							\
		[ROCE_EXT_DETH] = OFF(f, DETH, ROCE_BTH_LEN),		\
		[ROCE_EXT_RETH] = OFF(f, RETH, END_DETH(f)),		\
		[ROCE_EXT_ATMETH] = OFF(f, ATMETH, END_RETH(f)),	\
		[ROCE_EXT_AETH] = OFF(f, AETH, END_ATMETH(f)),		\
		[ROCE_EXT_ATMACK] = OFF(f, ATMACK, END_AETH(f)),	\
		[ROCE_EXT_IMMDT] = OFF(f, IMMDT, END_ATMACK(f)),	\
		[ROCE_EXT_IETH] = OFF(f, IETH, END_IMMDT(f)),		\
		[ROCE_EXT_CNP] = OFF(f, CNP, END_IETH(f)),		\
	},								\
}

/* Message kinds shared by RC and UC (IBTA 9.4.1 SEND, 9.4.2 RDMA WRITE). */
#define SEND_F		(ROCE_OPF_REQ | ROCE_OPF_SEND | ROCE_OPF_PAYLOAD)
#define WRITE_F		(ROCE_OPF_REQ | ROCE_OPF_WRITE | ROCE_OPF_PAYLOAD)
#define RECV_F		(ROCE_OPF_RWR | ROCE_OPF_RCOMP)
#define ACKED		ROCE_OPF_ACKED
#define RRESP_F		(ROCE_OPF_RESP | ROCE_OPF_READ | ROCE_OPF_PAYLOAD)

/* A SEND takes its receive WQE on the first packet, completes it on the last. */
#define SEND_FIRST	(SEND_F | ROCE_OPF_FIRST | ROCE_OPF_RWR)
#define SEND_MIDDLE	(SEND_F | ROCE_OPF_MIDDLE)
#define SEND_LAST	(SEND_F | ROCE_OPF_LAST | ROCE_OPF_RCOMP)
#define SEND_ONLY	(SEND_F | ROCE_OPF_ONLY | RECV_F)
/* A WRITE consumes a receive WQE only when it carries immediate data. */
#define WRITE_FIRST	(WRITE_F | ROCE_OPF_FIRST | ROCE_OPF_RETH)
#define WRITE_MIDDLE	(WRITE_F | ROCE_OPF_MIDDLE)
#define WRITE_LAST	(WRITE_F | ROCE_OPF_LAST)
#define WRITE_ONLY	(WRITE_F | ROCE_OPF_ONLY | ROCE_OPF_RETH)
#define IMM		(ROCE_OPF_IMMDT | RECV_F)
#define ATOMIC_REQ	(ROCE_OPF_REQ | ACKED | ROCE_OPF_ATOMIC | ROCE_OPF_ONLY | \
			 ROCE_OPF_ATMETH)

const struct roce_opcode_info roce_opcode_table[256] = {
	/* RC, IBTA 9.2.1 table 38 (0x15 is reserved). */
	OP(0x00, "RC_SEND_FIRST", RC, ACKED | SEND_FIRST),
	OP(0x01, "RC_SEND_MIDDLE", RC, ACKED | SEND_MIDDLE),
	OP(0x02, "RC_SEND_LAST", RC, ACKED | SEND_LAST),
	OP(0x03, "RC_SEND_LAST_IMM", RC, ACKED | SEND_LAST | ROCE_OPF_IMMDT),
	OP(0x04, "RC_SEND_ONLY", RC, ACKED | SEND_ONLY),
	OP(0x05, "RC_SEND_ONLY_IMM", RC, ACKED | SEND_ONLY | ROCE_OPF_IMMDT),
	OP(0x06, "RC_RDMA_WRITE_FIRST", RC, ACKED | WRITE_FIRST),
	OP(0x07, "RC_RDMA_WRITE_MIDDLE", RC, ACKED | WRITE_MIDDLE),
	OP(0x08, "RC_RDMA_WRITE_LAST", RC, ACKED | WRITE_LAST),
	OP(0x09, "RC_RDMA_WRITE_LAST_IMM", RC, ACKED | WRITE_LAST | IMM),
	OP(0x0a, "RC_RDMA_WRITE_ONLY", RC, ACKED | WRITE_ONLY),
	OP(0x0b, "RC_RDMA_WRITE_ONLY_IMM", RC, ACKED | WRITE_ONLY | IMM),
	OP(0x0c, "RC_RDMA_READ_REQUEST", RC, ROCE_OPF_REQ | ACKED | ROCE_OPF_READ |
	   ROCE_OPF_ONLY | ROCE_OPF_RETH),
	OP(0x0d, "RC_RDMA_READ_RESPONSE_FIRST", RC, RRESP_F | ROCE_OPF_FIRST |
	   ROCE_OPF_AETH),
	OP(0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", RC, RRESP_F | ROCE_OPF_MIDDLE),
	OP(0x0f, "RC_RDMA_READ_RESPONSE_LAST", RC, RRESP_F | ROCE_OPF_LAST |
	   ROCE_OPF_AETH),
	OP(0x10, "RC_RDMA_READ_RESPONSE_ONLY", RC, RRESP_F | ROCE_OPF_ONLY |
	   ROCE_OPF_AETH),
	OP(0x11, "RC_ACK", RC, ROCE_OPF_RESP | ROCE_OPF_ACK | ROCE_OPF_ONLY |
	   ROCE_OPF_AETH),
	OP(0x12, "RC_ATOMIC_ACK", RC, ROCE_OPF_RESP | ROCE_OPF_ATOMIC |
	   ROCE_OPF_ONLY | ROCE_OPF_AETH | ROCE_OPF_ATMACK),
	OP(0x13, "RC_COMPARE_SWAP", RC, ATOMIC_REQ),
	OP(0x14, "RC_FETCH_ADD", RC, ATOMIC_REQ),
	OP(0x16, "RC_SEND_LAST_INV", RC, ACKED | SEND_LAST | ROCE_OPF_IETH),
	OP(0x17, "RC_SEND_ONLY_INV", RC, ACKED | SEND_ONLY | ROCE_OPF_IETH),

	/* UC: the RC SEND and WRITE opcodes without acknowledgement. */
	OP(0x20, "UC_SEND_FIRST", UC, SEND_FIRST),
	OP(0x21, "UC_SEND_MIDDLE", UC, SEND_MIDDLE),
	OP(0x22, "UC_SEND_LAST", UC, SEND_LAST),
	OP(0x23, "UC_SEND_LAST_IMM", UC, SEND_LAST | ROCE_OPF_IMMDT),
	OP(0x24, "UC_SEND_ONLY", UC, SEND_ONLY),
	OP(0x25, "UC_SEND_ONLY_IMM", UC, SEND_ONLY | ROCE_OPF_IMMDT),
	OP(0x26, "UC_RDMA_WRITE_FIRST", UC, WRITE_FIRST),
	OP(0x27, "UC_RDMA_WRITE_MIDDLE", UC, WRITE_MIDDLE),
	OP(0x28, "UC_RDMA_WRITE_LAST", UC, WRITE_LAST),
	OP(0x29, "UC_RDMA_WRITE_LAST_IMM", UC, WRITE_LAST | IMM),
	OP(0x2a, "UC_RDMA_WRITE_ONLY", UC, WRITE_ONLY),
	OP(0x2b, "UC_RDMA_WRITE_ONLY_IMM", UC, WRITE_ONLY | IMM),

	/* UD: single-packet SENDs with a DETH (IBTA 9.3.2). */
	OP(0x64, "UD_SEND_ONLY", UD, SEND_ONLY | ROCE_OPF_DETH),
	OP(0x65, "UD_SEND_ONLY_IMM", UD, SEND_ONLY | ROCE_OPF_DETH |
	   ROCE_OPF_IMMDT),

	/* RoCEv2 congestion notification packet (annex A17). */
	OP(0x81, "CNP", CNP, ROCE_OPF_CNP),
};

/*
 * Selective repeat (roce_sr.h): the same headers plus the softernic
 * extension after them; only the opcodes that may carry it.
 */
#define OPX(code, nm, f, xlen) [code] = {				\
	.name = nm,							\
	.flags = (f) | ROCE_OPF_SRX,					\
	.transport = ROCE_TRANSPORT_RC,					\
	.hdr_len = END_CNP(f) + (xlen),					\
	.off = {							\
		[ROCE_EXT_DETH] = OFF(f, DETH, ROCE_BTH_LEN),		\
		[ROCE_EXT_RETH] = OFF(f, RETH, END_DETH(f)),		\
		[ROCE_EXT_ATMETH] = OFF(f, ATMETH, END_RETH(f)),	\
		[ROCE_EXT_AETH] = OFF(f, AETH, END_ATMETH(f)),		\
		[ROCE_EXT_ATMACK] = OFF(f, ATMACK, END_AETH(f)),	\
		[ROCE_EXT_IMMDT] = OFF(f, IMMDT, END_ATMACK(f)),	\
		[ROCE_EXT_IETH] = OFF(f, IETH, END_IMMDT(f)),		\
		[ROCE_EXT_CNP] = OFF(f, CNP, END_IETH(f)),		\
	},								\
}

const struct roce_opcode_info roce_opcode_srx_table[256] = {
	OPX(0x06, "RC_RDMA_WRITE_FIRST", ACKED | WRITE_FIRST, ROCE_SRX_REQ_LEN),
	OPX(0x07, "RC_RDMA_WRITE_MIDDLE", ACKED | WRITE_MIDDLE,
	    ROCE_SRX_REQ_LEN),
	OPX(0x08, "RC_RDMA_WRITE_LAST", ACKED | WRITE_LAST, ROCE_SRX_REQ_LEN),
	OPX(0x09, "RC_RDMA_WRITE_LAST_IMM", ACKED | WRITE_LAST | IMM,
	    ROCE_SRX_REQ_LEN),
	OPX(0x0a, "RC_RDMA_WRITE_ONLY", ACKED | WRITE_ONLY, ROCE_SRX_REQ_LEN),
	OPX(0x0b, "RC_RDMA_WRITE_ONLY_IMM", ACKED | WRITE_ONLY | IMM,
	    ROCE_SRX_REQ_LEN),
	OPX(0x11, "RC_ACK", ROCE_OPF_RESP | ROCE_OPF_ACK | ROCE_OPF_ONLY |
	    ROCE_OPF_AETH, ROCE_SRX_SACK_LEN),
};

const char *
roce_opcode_name(uint8_t opcode)
{
	const char *name = roce_opcode_table[opcode].name;

	return name != NULL ? name : "INVALID";
}

int
roce_opcode_from_name(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return -ENOENT;
	for (i = 0; i < RTE_DIM(roce_opcode_table); i++)
		if (roce_opcode_table[i].name != NULL &&
		    strcmp(roce_opcode_table[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

uint8_t
roce_ext_hdr_len(enum roce_ext_hdr ext)
{
	static const uint8_t len[ROCE_EXT_MAX] = {
		[ROCE_EXT_DETH] = ROCE_DETH_LEN,
		[ROCE_EXT_RETH] = ROCE_RETH_LEN,
		[ROCE_EXT_ATMETH] = ROCE_ATMETH_LEN,
		[ROCE_EXT_AETH] = ROCE_AETH_LEN,
		[ROCE_EXT_ATMACK] = ROCE_ATMACK_LEN,
		[ROCE_EXT_IMMDT] = ROCE_IMMDT_LEN,
		[ROCE_EXT_IETH] = ROCE_IETH_LEN,
		[ROCE_EXT_CNP] = ROCE_CNP_RSVD_LEN,
	};

	return (unsigned int)ext < ROCE_EXT_MAX ? len[ext] : 0;
}
