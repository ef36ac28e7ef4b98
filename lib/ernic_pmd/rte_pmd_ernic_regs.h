/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_REGS_H
#define RTE_PMD_ERNIC_REGS_H

/**
 * @file
 * The ERNIC (AMD/Xilinx PG332 v4.x) register window of a net_ernic port,
 * and the hardware handshake ports (doc/guides/ernic.rst).
 *
 * Every net_ernic port has a 2 MB register window laid out as PG332's:
 * the PD table at 0x0 + i * 0x100 (i < 2048), the global block at
 * 0x100000, per-QP blocks at 0x180000 + (qpn - 1) * 0x100. Software that
 * drives an ERNIC by register reads and writes (the PG332 software flow:
 * global configuration, PD table, QP1, RC QPs, WQEs at SQBA + i * 64 rung
 * with SQPI, RQ buffers, CQHEAD and CQEs, QP deletion, fatal error
 * recovery) drives the port's lib/roce engines through it: a WQE written at
 * SQBA + i * 64 ends up in the same send queue as a roce_post_send() and is
 * executed by the same requester.
 *
 * Addresses programmed in the window (SQBA, RQBA, CQBA, doorbell addresses,
 * BUFBASEADDR, WQE local addresses) are the engine's DMA addresses: in
 * this software model, virtual addresses of the process.
 *
 * The RoCE engines run in the port's workers: poll them (service lcores or
 * rte_pmd_ernic_poll()) for anything to move.
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Read the 32-bit register at @p off of the port's window.
 *
 * @return 0, -ENODEV (not a net_ernic port), -EINVAL (@p val NULL, offset
 *   not 4-byte aligned, beyond the window or not a register: counted)
 */
__rte_experimental
int rte_pmd_ernic_reg_read(uint16_t port_id, uint32_t off, uint32_t *val);

/**
 * Write the 32-bit register at @p off. Writes have PG332 semantics:
 * doorbells (SQPI posts WQEs, RQCI returns RQ buffers), write-1-to-clear
 * INTSTS, hardware-owned registers (CQHEAD, STAT*, counters, write
 * pointers) writable only while XRNICADCONF[0] (SW override) is set.
 *
 * @return 0; -ENODEV; -EINVAL (unmapped or misaligned offset, or a value
 *   the model refuses, e.g. an SQPI beyond the queue); -EPERM (read-only
 *   register without SW override); -EAGAIN (an action that needs the
 *   started port: QP enable, PD table publication are applied at start);
 *   -EBUSY or -ENOMEM (lib/roce refused to create the QP). Every refused
 *   access is counted (rte_pmd_ernic_reg_counter()).
 */
__rte_experimental
int rte_pmd_ernic_reg_write(uint16_t port_id, uint32_t off, uint32_t val);

/**
 * Offset of the register named @p name ("QPCONF", "CQHEAD", "INTSTS",
 * "BUFRKEY", ...; PG332 names, case-insensitive): @p index is the QPN for
 * per-QP registers (1..2048), the entry for PD table registers (0..2047),
 * the bank for "CNPSCHDSTS" (1..64: CNPSCHDSTS1..64), ignored for other
 * global ones.
 *
 * @return 0 and *off, -ENOENT (no such name), -EINVAL (index out of range
 *   or NULL argument)
 */
__rte_experimental
int rte_pmd_ernic_reg_by_name(const char *name, uint32_t index,
			      uint32_t *off);

/**
 * Name of the register at @p off (the inverse of rte_pmd_ernic_reg_by_name;
 * the PD entry or QPN goes to *index when @p index is not NULL).
 *
 * @return the name, or NULL when @p off is not a register
 */
__rte_experimental
const char *rte_pmd_ernic_reg_name(uint32_t off, uint32_t *index);

/** Counters of the window model (rte_pmd_ernic_reg_counter()). */
enum rte_pmd_ernic_reg_cnt {
	RTE_PMD_ERNIC_RCNT_READS,		/**< register reads */
	RTE_PMD_ERNIC_RCNT_WRITES,		/**< register writes */
	RTE_PMD_ERNIC_RCNT_BAD_READ,		/**< unmapped/misaligned reads */
	RTE_PMD_ERNIC_RCNT_BAD_WRITE,		/**< unmapped/misaligned writes */
	RTE_PMD_ERNIC_RCNT_RO_WRITE,		/**< read-only without override */
	RTE_PMD_ERNIC_RCNT_REFUSED,		/**< writes the flow refused */
	RTE_PMD_ERNIC_RCNT_WQE_POSTED,		/**< WQEs handed to lib/roce */
	RTE_PMD_ERNIC_RCNT_ILLEGAL_WQE,		/**< illegal opcodes (INTSTS[5]) */
	RTE_PMD_ERNIC_RCNT_WQE_LOCAL_ERR,	/**< WQEs completed in error locally */
	RTE_PMD_ERNIC_RCNT_DB_FATAL,		/**< SQPI rung on a fatal/disabled QP */
	RTE_PMD_ERNIC_RCNT_CQE,			/**< send completions (CQHEAD steps) */
	RTE_PMD_ERNIC_RCNT_CQE_ORDER,		/**< completion not at CQHEAD (bug) */
	RTE_PMD_ERNIC_RCNT_RQ_PKT,		/**< RQ buffers filled */
	RTE_PMD_ERNIC_RCNT_RQ_FLUSH,		/**< receive WRs flushed (not shown) */
	RTE_PMD_ERNIC_RCNT_QP_FATAL,		/**< QPs gone fatal */
	RTE_PMD_ERNIC_RCNT_PDT_PUBLISH,		/**< PD table entries published */
	RTE_PMD_ERNIC_RCNT_PDT_FAIL,		/**< PD table entries not usable */
	RTE_PMD_ERNIC_RCNT_MAX,
};

/**
 * Value of window counter @p c of the port.
 *
 * @return the value, or UINT64_MAX for a bad port or counter
 */
__rte_experimental
uint64_t rte_pmd_ernic_reg_counter(uint16_t port_id,
				   enum rte_pmd_ernic_reg_cnt c);

/** WQE opcodes of the PG332 64-byte WQE. */
enum rte_pmd_ernic_wqe_op {
	RTE_PMD_ERNIC_OP_WRITE = 0x00,
	RTE_PMD_ERNIC_OP_WRITE_IMM = 0x01,
	RTE_PMD_ERNIC_OP_SEND = 0x02,
	RTE_PMD_ERNIC_OP_SEND_IMM = 0x03,
	RTE_PMD_ERNIC_OP_READ = 0x04,
	RTE_PMD_ERNIC_OP_SEND_INV = 0x0c,
};

/**
 * The 64-byte PG332 WQE, written at SQBA + index * 64 (or passed to
 * rte_pmd_ernic_hs_post()). Little-endian fields; @c imm is the immediate
 * value (sent in network order on the wire) or the R_Key to invalidate.
 */
struct rte_pmd_ernic_wqe {
	uint16_t wrid;
	uint16_t rsvd0;
	uint64_t laddr;		/**< local buffer (DMA address) */
	uint32_t length;
	uint8_t opcode;		/**< enum rte_pmd_ernic_wqe_op */
	uint8_t rsvd1[3];
	uint64_t raddr;		/**< remote virtual address */
	uint32_t rkey;
	uint8_t inline_data[16];	/**< not used by this model */
	uint32_t imm;
	uint8_t rsvd2[12];
} __rte_packed;

/**
 * Descriptor the model writes in the last 16 bytes of every filled RQ
 * buffer (our addition: PG332 leaves immediates to the packet headers);
 * the payload room of a buffer is its size minus these 16 bytes.
 */
struct rte_pmd_ernic_rq_desc {
	uint32_t byte_len;	/**< payload bytes */
	uint32_t imm;		/**< immediate (host order) or invalidated R_Key */
	uint8_t opcode;		/**< SEND, SEND_IMM, SEND_INV or WRITE_IMM */
	uint8_t rsvd[7];
} __rte_packed;

/** Bytes of struct rte_pmd_ernic_rq_desc at the end of an RQ buffer. */
#define RTE_PMD_ERNIC_RQ_DESC_LEN 16

/**
 * Code [15:0] of an incoming packet error status queue entry ([31:16] is
 * the QPN): below 0x100 the lib/roce cause (enum roce_err: 9 remote access
 * error, 12 retries exceeded...), 0x100 | opcode for an illegal WQE opcode.
 */
#define RTE_PMD_ERNIC_ERR_ILLEGAL_OPCODE 0x100

/* ------------------------------------------------------------------ */
/* Hardware handshake ports                                           */
/* ------------------------------------------------------------------ */

/** One completion word of a handshake port. */
struct rte_pmd_ernic_hs_cqe {
	uint16_t wrid;
	uint8_t opcode;		/**< enum rte_pmd_ernic_wqe_op of the WQE */
	uint8_t status;		/**< 0 success, else the roce_wc_status */
};

/**
 * A handshake port: the PG332 hardware handshake signals of one QP as
 * lock-free single-producer single-consumer rings. The external
 * application (any one lcore at a time) owns the "app" indexes, the
 * port's worker the "engine" ones; each side publishes with release and
 * reads the other's with acquire. No register access on this path.
 */
struct rte_pmd_ernic_hs_port {
	/* application side */
	uint32_t sq_prod __rte_cache_aligned;	/**< SQ doorbell (WQEs posted) */
	uint32_t cq_cons;			/**< completions taken */
	uint32_t rq_cons;			/**< RQ entries released */
	uint64_t post_full;			/**< posts refused (queue full) */
	/* engine side */
	uint32_t sq_cons __rte_cache_aligned;	/**< WQEs taken by the engine */
	uint32_t cq_prod;			/**< completions written */
	uint32_t rq_prod;			/**< RQ buffers filled */
	/* constant while attached */
	uint8_t *wqe __rte_cache_aligned;	/**< size WQE slots of 64 bytes */
	struct rte_pmd_ernic_hs_cqe *cq;	/**< size completion words */
	uint32_t size;				/**< ring slots (power of two) */
	uint32_t sq_depth;			/**< WQEs outstanding at most */
	uint32_t rq_depth;			/**< RQ buffers */
	uint32_t rq_base;			/**< RQ buffer of entry 0 */
	uint32_t rq_bufsz;
	uint32_t qpn;
	uint64_t rqba;
};

/**
 * The handshake port of QP @p qpn, once the PG332 enable sequence ran on
 * it (SW override, SQPI/CQHEAD/STATCURSQPTR zeroed, STATRQPIDB[15:0] =
 * RQ buffers still pending, QPCONF[4] cleared, override cleared).
 *
 * @return 0, -ENODEV, -EINVAL (no such QP or NULL), -ENOTCONN (the QP is
 *   not in handshake mode)
 */
__rte_experimental
int rte_pmd_ernic_hs_attach(uint16_t port_id, uint32_t qpn,
			    struct rte_pmd_ernic_hs_port **hs);

/**
 * Post one 64-byte PG332 WQE (struct rte_pmd_ernic_wqe) and ring the
 * doorbell. Lock-free; one application thread per port.
 *
 * @return 0, or -ENOSPC when sq_depth WQEs are outstanding (not yet taken
 *   by rte_pmd_ernic_hs_poll_cq(); counted in post_full)
 */
__rte_experimental
int rte_pmd_ernic_hs_post(struct rte_pmd_ernic_hs_port *hs, const void *wqe);

/**
 * Take up to @p n completions, in WQE order.
 *
 * @return the number taken
 */
__rte_experimental
unsigned int rte_pmd_ernic_hs_poll_cq(struct rte_pmd_ernic_hs_port *hs,
				      struct rte_pmd_ernic_hs_cqe *c,
				      unsigned int n);

/**
 * RQ producer updates: the number of filled RQ buffers not released yet;
 * the oldest is RQ buffer *@p buf_idx (at RQBA + *buf_idx * buffer size,
 * its struct rte_pmd_ernic_rq_desc at the end), the next ones follow
 * modulo the RQ depth.
 */
__rte_experimental
uint32_t rte_pmd_ernic_hs_rq(struct rte_pmd_ernic_hs_port *hs,
			     uint32_t *buf_idx);

/** Give the @p n oldest RQ buffers back to the engine (n <= pending). */
__rte_experimental
void rte_pmd_ernic_hs_rq_release(struct rte_pmd_ernic_hs_port *hs,
				 uint32_t n);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_REGS_H */
