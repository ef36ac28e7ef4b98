/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_ENGINE_H
#define ROCE_ENGINE_H

/*
 * Internal helpers shared by the requester (roce_req.c) and the completer
 * (roce_comp.c). Not installed.
 *
 * Division of work on the send queue (indexes are free-running uint32_t):
 *
 *   sq.cons          req.wqe_idx          req.wqe_hwm          sq.prod
 *     |  started, not   |  being sent / to    |  never started     |
 *     |  yet completed  |  be resent          |                    |
 *
 * - the requester starts WQEs at req.wqe_hwm (assigning their PSNs), sends
 *   packets for req.wqe_idx and rewinds req.wqe_idx on go-back-N;
 * - the completer marks started WQEs ROCE_WQE_DONE (ACKed, response placed,
 *   UC/UD sent, local operation executed) or ROCE_WQE_ERROR, and
 *   roce_comp_retire() completes them strictly in SQ order from sq.cons.
 * PSNs: comp.psn is the oldest PSN not acknowledged, req.psn the next PSN
 * to send, req.psn_hwm the PSN after the highest ever sent; a response is
 * in the window when its PSN lies in [comp.psn, req.psn_hwm).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "roce_psn.h"
#include "roce_qp.h"

/**
 * Requester defaults (per QP, in struct roce_req_state; the control path
 * may change them before the QP reaches RTS).
 * - AckReq: set on the last packet of every RC message and at least every
 *   ROCE_REQ_ACKREQ_EVERY packets inside long messages, so that a
 *   responder coalescing ACKs still acknowledges long messages early
 *   (IBTA 9.7.5.1.1: the responder may coalesce, AckReq forces an ACK).
 * - Window: at most ROCE_REQ_MAX_INFLIGHT unacknowledged PSNs; never more
 *   than ROCE_REQ_MAX_INFLIGHT_LIMIT, so that every outstanding PSN stays
 *   within half the PSN space of comp.psn (IBTA 9.7.1 modular PSN rules).
 *   A READ larger than the window is issued only when nothing else is
 *   outstanding.
 */
enum roce_req_defaults {
	ROCE_REQ_ACKREQ_EVERY = 64,
	ROCE_REQ_MAX_INFLIGHT = 1024,
	ROCE_REQ_MAX_INFLIGHT_LIMIT = ROCE_PSN_HALF - 1,
	/** Packets one roce_req_run() call builds before yielding. */
	ROCE_REQ_BUDGET = 32,
	/**
	 * Payload bytes one roce_req_run() call sends before yielding: 16
	 * packets of 4 KB. Large packets leave, and the ACKs that free the
	 * window come back, after half the work; small ones keep the packet
	 * budget. (READ responses keep theirs: a byte budget there cost
	 * read_bw; performance.rst, "What was tried and what it gave".)
	 */
	ROCE_REQ_BUDGET_BYTES = 64 * 1024,
	/** Loss window (PSNs) of a QP that reaches RTS. */
	ROCE_REQ_CWND_INIT = 128,
	/** Loss window floor: after a local ACK timeout, never below. */
	ROCE_REQ_CWND_MIN = 8,
};

/** Path MTU used for UD (a UD message is one packet, at most this). */
#define ROCE_UD_MTU 4096u

/** True for the WQEs executed locally (no packet, no PSN). */
static inline bool
roce_wr_is_local(uint8_t op)
{
	return op == ROCE_WR_LOCAL_INV || op == ROCE_WR_BIND_MW;
}

/** True for the WQEs that need a response (counted by max_rd_atomic). */
static inline bool
roce_wr_is_rd_atomic(uint8_t op)
{
	return op == ROCE_WR_RDMA_READ || op == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	       op == ROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/** True for atomic WQEs. */
static inline bool
roce_wr_is_atomic(uint8_t op)
{
	return op == ROCE_WR_ATOMIC_CMP_AND_SWP ||
	       op == ROCE_WR_ATOMIC_FETCH_AND_ADD;
}

/** Path MTU in bytes of @p qp (UD: ROCE_UD_MTU unless set). */
static inline uint32_t
roce_qp_mtu(const struct roce_qp *qp)
{
	if (qp->mtu != 0)
		return qp->mtu;
	return ROCE_UD_MTU;
}

/** Packets of a @p len byte message at path MTU @p mtu (0 bytes: 1). */
static inline uint32_t
roce_msg_npkts(uint32_t len, uint32_t mtu)
{
	uint64_t end = (uint64_t)len + mtu - 1;

	if (len == 0)
		return 1;
	/*
	 * Path MTUs are powers of two (IBTA 256..4096 bytes): a shift. The
	 * 64-bit divide it replaces was on the requester's path twice a
	 * message (performance.rst, "What was tried and what it gave").
	 */
	if (likely(rte_is_power_of_2(mtu)))
		return (uint32_t)(end >> rte_bsf32(mtu));
	return (uint32_t)(end / mtu);
}

/**
 * PSNs a send WQE consumes: one per packet for SEND/WRITE, one per READ
 * response packet for READ (IBTA 9.7.4.1.3: the requester advances its PSN
 * by the number of response packets), one for an atomic, none for a local
 * operation.
 */
static inline uint32_t
roce_wqe_npsn(const struct roce_send_wqe *wqe, uint32_t mtu)
{
	if (roce_wr_is_local(wqe->opcode))
		return 0;
	if (roce_wr_is_atomic(wqe->opcode))
		return 1;
	return roce_msg_npkts(wqe->length, mtu);
}

/** Send WQE at SQ index @p idx. */
static inline struct roce_send_wqe *
roce_sq_wqe(const struct roce_qp *qp, uint32_t idx)
{
	return (struct roce_send_wqe *)roce_wq_slot(&qp->sq, idx);
}

/** True when free-running index @p a comes before @p b. */
static inline bool
roce_idx_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/** Unacknowledged PSNs (sent at least once, not yet acknowledged). */
static inline uint32_t
roce_req_inflight(const struct roce_qp *qp)
{
	return roce_psn_offset(qp->req.psn_hwm, qp->comp.psn);
}

/**
 * Completer: complete the WQEs from sq.cons that are ROCE_WQE_DONE or
 * ROCE_WQE_ERROR, strictly in SQ order (worker only). A signaled (or
 * sq_sig_all) WQE, and every failed one (IBTA 10.7.3.1), generates a
 * completion on the send CQ; the SQ consumer index moves with a release
 * store. A failed WQE moves the QP to ERR (RC) / SQE (UC, UD) with its
 * cause; a full CQ moves it to ERR with ROCE_ERR_CQ_OVERFLOW.
 */
void roce_comp_retire(struct roce_qp *qp);

/**
 * Completer: the requester sent RC packets at @p now; start the local ACK
 * timer when it is not running (IBTA 9.7.6.1.1).
 */
void roce_comp_sent(struct roce_qp *qp, uint64_t now);

/**
 * Loss window (roce_req.c), TCP-like (RFC 5681 shape) on top of the fixed
 * window max_inflight: the gate lets at most min(cwnd, max_inflight)
 * unacknowledged PSNs out.
 *
 * Completer: comp.psn moved forward by @p acked PSNs. Below ssthresh the
 * window grows by @p acked (slow start), above it by one PSN per window
 * acknowledged; never beyond max_inflight.
 */
void roce_req_cwnd_ack(struct roce_qp *qp, uint32_t acked);

/**
 * Completer: a go-back-N round starts. @p timeout false: caused by a NAK
 * or a lost response (the completer starts one round per PSN), the window
 * halves; true: the local ACK timer expired, the window drops to
 * ROCE_REQ_CWND_MIN. Either way ssthresh becomes half the window.
 */
void roce_req_cwnd_cut(struct roce_qp *qp, bool timeout);

/**
 * Congestion control (roce_cc.c): the ECN window of @p qp cuts by
 * @p alpha / 2 (alpha in 1024ths) of what it used: the PSNs in flight or
 * @p used (the most in flight lately), whichever is more, at most the
 * window; never below ROCE_REQ_CWND_MIN. The window then grows by one
 * PSN per window acknowledged (ssthresh is the new window).
 */
void roce_req_cwnd_ecn(struct roce_qp *qp, uint32_t alpha, uint32_t used);

/** Requester part of roce_engines_reset() (roce_req.c). */
void roce_req_reset(struct roce_qp *qp);

/** Completer part of roce_engines_reset() (roce_comp.c). */
void roce_comp_reset(struct roce_qp *qp);

#endif /* ROCE_ENGINE_H */
