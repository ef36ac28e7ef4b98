/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posting work requests (the producer end of the SQ and RQ, any single
 * thread per queue) and the error flush (the worker).
 *
 * Posting per QP state (IBTA 10.3.1, spec "Behaviour per state"):
 *   RESET: both refused; INIT, RTR: receives only; RTS, SQD, SQE: both
 *   (SQD: new send WQEs wait for SQD->RTS; SQE: send WQEs are flushed);
 *   ERR: both accepted, then completed as flushed by the worker.
 * Each WR is validated, copied into its slot, and the producer index is
 * published once per call with a release store; the worker is told with a
 * doorbell.
 */

#include <errno.h>
#include <string.h>

#include "roce_engine.h"
#include "roce_qp.h"
#include "roce_worker.h"

/* ------------------------------------------------------------------ */
/* Send WR validation                                                 */
/* ------------------------------------------------------------------ */

#define OP_RC (1u << 0)
#define OP_UC (1u << 1)
#define OP_UD (1u << 2)

/* Opcodes legal per transport (spec verbs-model table; IBTA 9.4 / 10.7). */
static const uint8_t send_op_types[ROCE_WR_OPCODE_MAX] = {
	[ROCE_WR_RDMA_WRITE] = OP_RC | OP_UC,
	[ROCE_WR_RDMA_WRITE_WITH_IMM] = OP_RC | OP_UC,
	[ROCE_WR_SEND] = OP_RC | OP_UC | OP_UD,
	[ROCE_WR_SEND_WITH_IMM] = OP_RC | OP_UC | OP_UD,
	[ROCE_WR_RDMA_READ] = OP_RC,
	[ROCE_WR_ATOMIC_CMP_AND_SWP] = OP_RC,
	[ROCE_WR_ATOMIC_FETCH_AND_ADD] = OP_RC,
	[ROCE_WR_LOCAL_INV] = OP_RC,
	[ROCE_WR_BIND_MW] = OP_RC,
	[ROCE_WR_SEND_WITH_INV] = OP_RC,	/* IETH: RC only (IBTA 9.2) */
};

#define SEND_FLAGS_ALL (ROCE_SEND_FENCE | ROCE_SEND_SIGNALED | \
			ROCE_SEND_SOLICITED | ROCE_SEND_INLINE)

static uint8_t
qp_type_bit(uint8_t type)
{
	switch (type) {
	case ROCE_QPT_RC:
		return OP_RC;
	case ROCE_QPT_UC:
		return OP_UC;
	default:
		return OP_UD;
	}
}

static bool
op_carries_data(uint8_t op)
{
	return op == ROCE_WR_SEND || op == ROCE_WR_SEND_WITH_IMM ||
	       op == ROCE_WR_SEND_WITH_INV || op == ROCE_WR_RDMA_WRITE ||
	       op == ROCE_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * Every check of one send WR; nothing is written but the poster's L_Key
 * cache. @p total gets the message length. Returns 0, -EINVAL or -EFAULT
 * (an SGE fails the local key check: unknown lkey, other PD, out of bounds,
 * missing local write).
 */
static int
send_wr_check(struct roce_qp *qp, const struct roce_send_wr *wr,
	      uint64_t *total, struct roce_key_ref *ref0)
{
	const struct roce_device *dev = qp->dev;
	uint8_t op = (uint8_t)wr->opcode;
	bool is_inline = wr->send_flags & ROCE_SEND_INLINE;
	int access = 0;
	uint64_t len = 0;
	uint32_t i;

	if ((unsigned int)wr->opcode >= ROCE_WR_OPCODE_MAX ||
	    !(send_op_types[op] & qp_type_bit(qp->type)))
		return -EINVAL;
	if (wr->send_flags & ~SEND_FLAGS_ALL)
		return -EINVAL;
	*total = 0;
	ref0->host = NULL;
	ref0->entry = NULL;
	ref0->state = 0;
	if (roce_wr_is_local(op)) {
		/* no data: Local Invalidate names an rkey, Bind MW a window */
		if (op == ROCE_WR_BIND_MW &&
		    (wr->bind_mw.mw == NULL || wr->bind_mw.mr == NULL ||
		     wr->bind_mw.mw->type != ROCE_MW_TYPE_2))
			return -EINVAL;
		return is_inline ? -EINVAL : 0;
	}
	if (wr->num_sge > qp->sq.max_sge ||
	    (wr->num_sge != 0 && wr->sg_list == NULL))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	/* IBTA 9.4: a message is at most 2^31 bytes */
	if (len > ROCE_MAX_MSG_SIZE)
		return -EINVAL;
	if (is_inline && (!op_carries_data(op) || len > qp->sq.max_inline))
		return -EINVAL;
	if (roce_wr_is_atomic(op)) {
		/* one 8-byte local buffer for the original value (IBTA 9.4.5) */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    !roce_atomic_aligned(wr->atomic.remote_addr))
			return -EINVAL;
	}
	if (qp->type == ROCE_QPT_UD) {
		const struct roce_ah_attr *ah = wr->ud.ah;

		/* a UD message is one packet (IBTA 9.8) */
		if (len > roce_qp_mtu(qp))
			return -EINVAL;
		if (ah == NULL || ah->sgid_index >= RTE_DIM(dev->cfg.gid_valid) ||
		    !dev->cfg.gid_valid[ah->sgid_index] ||
		    wr->ud.remote_qpn > 0xffffffu)
			return -EINVAL;
	}
	*total = len;
	if (is_inline)
		return 0;	/* the bytes are copied now: no lkey (ibverbs) */
	/* the device writes READ data and atomic originals locally */
	if (op == ROCE_WR_RDMA_READ || roce_wr_is_atomic(op))
		access = ROCE_ACCESS_LOCAL_WRITE;
	for (i = 0; i < wr->num_sge; i++) {
		const struct roce_sge *sge = &wr->sg_list[i];
		struct roce_key_ref ref;

		if (roce_key_check_local_cached(dev, qp->pd, sge->lkey,
						sge->addr, sge->length, access,
						&ref, &qp->sq.lkc) != ROCE_OK)
			return -EFAULT;
		if (i == 0)
			*ref0 = ref;
	}
	return 0;
}

/* Fill the slot of a checked send WR (the worker sees it after prod moves). */
static void
send_wr_copy(const struct roce_qp *qp, struct roce_send_wqe *wqe,
	     const struct roce_send_wr *wr, uint64_t total,
	     const struct roce_key_ref *ref0)
{
	uint8_t op = (uint8_t)wr->opcode;
	uint32_t i, off;

	wqe->wr_id = wr->wr_id;
	wqe->opcode = op;
	wqe->send_flags = (uint8_t)wr->send_flags;
	if (qp->sig_all)
		wqe->send_flags |= ROCE_SEND_SIGNALED;
	wqe->state = ROCE_WQE_POSTED;
	wqe->length = (uint32_t)total;
	wqe->imm_data = wr->imm_data;	/* or invalidate_rkey (same word) */
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->status = ROCE_OK;
	wqe->num_sge = 0;
	wqe->sge0_entry = NULL;
	switch (op) {
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
	case ROCE_WR_RDMA_READ:
		wqe->rdma.va = wr->rdma.remote_addr;
		wqe->rdma.rkey = wr->rdma.rkey;
		break;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		wqe->atomic.va = wr->atomic.remote_addr;
		wqe->atomic.compare_add = wr->atomic.compare_add;
		wqe->atomic.swap = wr->atomic.swap;
		wqe->atomic.rkey = wr->atomic.rkey;
		break;
	case ROCE_WR_BIND_MW:
		wqe->bind.mw = wr->bind_mw.mw;
		wqe->bind.mr = wr->bind_mw.mr;
		wqe->bind.addr = wr->bind_mw.addr;
		wqe->bind.length = wr->bind_mw.length;
		wqe->bind.rkey = wr->bind_mw.rkey;
		wqe->bind.access = wr->bind_mw.access;
		return;
	case ROCE_WR_LOCAL_INV:
		return;
	default:	/* SENDs */
		if (qp->type == ROCE_QPT_UD) {
			wqe->ud.ah = *wr->ud.ah;
			wqe->ud.remote_qpn = wr->ud.remote_qpn;
			wqe->ud.remote_qkey = wr->ud.remote_qkey;
		}
		break;
	}
	if (wr->send_flags & ROCE_SEND_INLINE) {
		/* inline: the bytes now, in the SGE space (num_sge stays 0) */
		uint8_t *dst = (uint8_t *)wqe->sge;

		for (i = 0, off = 0; i < wr->num_sge; i++) {
			memcpy(dst + off,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		return;
	}
	for (i = 0; i < wr->num_sge; i++)
		wqe->sge[i] = wr->sg_list[i];
	wqe->num_sge = (uint8_t)wr->num_sge;
	if (wr->num_sge != 0) {
		wqe->sge0_host = ref0->host;
		wqe->sge0_entry = ref0->entry;
		wqe->sge0_state = ref0->state;
	}
}

int
roce_post_send(struct roce_qp *qp, const struct roce_send_wr *wr,
	       unsigned int n, unsigned int *posted)
{
	struct roce_wq *sq;
	unsigned int i = 0;
	struct roce_key_ref ref0 = { .host = NULL };
	uint64_t total;
	uint32_t prod;
	uint8_t state;
	int ret = 0;

	if (posted != NULL)
		*posted = 0;
	if (qp == NULL || (wr == NULL && n != 0))
		return -EINVAL;
	sq = &qp->sq;
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state == ROCE_QPS_RESET || state == ROCE_QPS_INIT ||
	    state == ROCE_QPS_RTR) {
		/* IBTA 10.3.1: no send posting before RTS */
		if (n == 0)
			return 0;
		qp->stats.post_send_err++;
		return -EINVAL;
	}
	prod = sq->prod;
	for (i = 0; i < n; i++) {
		ret = send_wr_check(qp, &wr[i], &total, &ref0);
		if (unlikely(ret == -EFAULT) && qp->init.lkey_at_exec) {
			/* the requester checks every SGE again and fails it */
			ret = 0;
			ref0.host = NULL;
			ref0.entry = NULL;
			ref0.state = 0;
		}
		if (ret != 0)
			break;
		if (prod - __atomic_load_n(&sq->cons, __ATOMIC_ACQUIRE) >=
		    sq->max_wr) {
			ret = -ENOMEM;
			break;
		}
		send_wr_copy(qp, roce_wq_slot(sq, prod), &wr[i], total,
			     &ref0);
		prod++;
	}
	if (i != 0) {
		__atomic_store_n(&sq->prod, prod, __ATOMIC_RELEASE);
		/* RTS: send; SQD: waits; SQE/ERR: the worker flushes them */
		roce_worker_doorbell(qp->w, qp);
	}
	if (ret != 0)
		qp->stats.post_send_err++;
	if (posted != NULL)
		*posted = i;
	return ret;
}

int
roce_post_recv(struct roce_qp *qp, const struct roce_recv_wr *wr,
	       unsigned int n, unsigned int *posted)
{
	struct roce_wq *rq;
	struct roce_recv_wqe *wqe;
	unsigned int i = 0;
	uint64_t len;
	uint32_t prod, j;
	uint8_t state;
	int ret = 0;

	if (posted != NULL)
		*posted = 0;
	if (qp == NULL || (wr == NULL && n != 0))
		return -EINVAL;
	rq = &qp->rq;
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	/* IBTA 10.3.1: receives may be posted from INIT on; an SRQ user has none */
	if (state == ROCE_QPS_RESET || qp->srq != NULL) {
		if (n == 0)
			return 0;
		qp->stats.post_recv_err++;
		return -EINVAL;
	}
	prod = rq->prod;
	for (i = 0; i < n; i++) {
		const struct roce_recv_wr *r = &wr[i];

		if (r->num_sge > rq->max_sge ||
		    (r->num_sge != 0 && r->sg_list == NULL)) {
			ret = -EINVAL;
			break;
		}
		len = 0;
		for (j = 0; j < r->num_sge; j++) {
			struct roce_key_ref ref;

			len += r->sg_list[j].length;
			if (roce_key_check_local_cached(qp->dev, qp->pd,
							r->sg_list[j].lkey,
							r->sg_list[j].addr,
							r->sg_list[j].length,
							ROCE_ACCESS_LOCAL_WRITE,
							&ref, &rq->lkc) !=
			    ROCE_OK && !qp->init.lkey_at_exec) {
				/* else the responder fails it (resp_scatter) */
				ret = -EFAULT;
				break;
			}
		}
		if (ret != 0)
			break;
		if (len > ROCE_MAX_MSG_SIZE) {
			ret = -EINVAL;
			break;
		}
		if (prod - __atomic_load_n(&rq->cons, __ATOMIC_ACQUIRE) >=
		    rq->max_wr) {
			ret = -ENOMEM;
			break;
		}
		wqe = roce_wq_slot(rq, prod);
		wqe->wr_id = r->wr_id;
		wqe->num_sge = r->num_sge;
		wqe->length = (uint32_t)len;
		for (j = 0; j < r->num_sge; j++)
			wqe->sge[j] = r->sg_list[j];
		prod++;
	}
	if (i != 0) {
		__atomic_store_n(&rq->prod, prod, __ATOMIC_RELEASE);
		/*
		 * ERR: the worker must flush these. Store-load ordering with
		 * the worker's "state = ERR; flush reads prod" (roce_qp_flush
		 * has the matching fence): one of the two sides sees the other.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) ==
		    ROCE_QPS_ERR)
			roce_worker_doorbell(qp->w, qp);
	}
	if (ret != 0)
		qp->stats.post_recv_err++;
	if (posted != NULL)
		*posted = i;
	return ret;
}

const uint8_t roce_wr_wc_opcodes[ROCE_WR_OPCODE_MAX] = {
	[ROCE_WR_RDMA_WRITE] = ROCE_WC_RDMA_WRITE,
	[ROCE_WR_RDMA_WRITE_WITH_IMM] = ROCE_WC_RDMA_WRITE,
	[ROCE_WR_SEND] = ROCE_WC_SEND,
	[ROCE_WR_SEND_WITH_IMM] = ROCE_WC_SEND,
	[ROCE_WR_SEND_WITH_INV] = ROCE_WC_SEND,
	[ROCE_WR_RDMA_READ] = ROCE_WC_RDMA_READ,
	[ROCE_WR_ATOMIC_CMP_AND_SWP] = ROCE_WC_COMP_SWAP,
	[ROCE_WR_ATOMIC_FETCH_AND_ADD] = ROCE_WC_FETCH_ADD,
	[ROCE_WR_LOCAL_INV] = ROCE_WC_LOCAL_INV,
	[ROCE_WR_BIND_MW] = ROCE_WC_BIND_MW,
};

/* ------------------------------------------------------------------ */
/* Errors and flush (worker)                                          */
/* ------------------------------------------------------------------ */

/* Push one flush completion; a full CQ loses it (counted), never loops. */
static bool
flush_push(struct roce_qp *qp, struct roce_cq *cq, const struct roce_wc *wc)
{
	qp->stats.wr_flushed++;
	if (roce_cq_push(cq, wc) == 0)
		return true;
	qp->stats.flush_cqe_lost++;
	return false;
}

/*
 * Complete the SQ from cons to prod: a WQE the engines marked
 * ROCE_WQE_ERROR with its cause, every other one flushed, signaled or not
 * (ibverbs, ibv_post_send(3): unsignaled WRs that end in error still
 * generate a completion; the error is always reported). Returns
 * false when a completion was lost to a full CQ.
 */
static bool
flush_sq(struct roce_qp *qp)
{
	struct roce_wq *sq = &qp->sq;
	uint32_t prod = __atomic_load_n(&sq->prod, __ATOMIC_ACQUIRE);
	uint32_t idx;
	bool ok = true;

	for (idx = sq->cons; idx != prod; idx++) {
		const struct roce_send_wqe *wqe = roce_wq_slot(sq, idx);
		struct roce_wc wc;

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr_id;
		wc.opcode = roce_wr_wc_opcode(wqe->opcode);
		wc.qp_num = qp->qpn;
		if (wqe->state == ROCE_WQE_ERROR && wqe->status != ROCE_OK &&
		    wqe->status != ROCE_ERR_FLUSH) {
			wc.status = roce_err_to_wc_status(wqe->status);
			wc.vendor_err = wqe->status;
		} else {
			wc.status = ROCE_WC_WR_FLUSH_ERR;
			wc.vendor_err = ROCE_ERR_FLUSH;
		}
		ok &= flush_push(qp, qp->scq, &wc);
	}
	__atomic_store_n(&sq->cons, prod, __ATOMIC_RELEASE);
	/* the requester and completer forget the flushed WQEs */
	qp->req.wqe_idx = prod;
	qp->req.wqe_hwm = prod;
	qp->req.offset = 0;
	qp->req.rd_atomic_inflight = 0;
	qp->req.need_retry = false;
	qp->req.wait_fence = false;
	qp->req.wait_rd_atomic = false;
	qp->req.wait_rnr = false;
	roce_timer_cancel(roce_worker_timers(qp->w), &qp->comp.retrans);
	roce_timer_cancel(roce_worker_timers(qp->w), &qp->comp.rnr);
	return ok;
}

/* Complete the RQ from cons to prod (or the SRQ WQE held) as flushed. */
static void
flush_rq(struct roce_qp *qp)
{
	struct roce_wq *rq = &qp->rq;
	struct roce_wc wc;
	uint32_t prod, idx;

	memset(&wc, 0, sizeof(wc));
	wc.status = ROCE_WC_WR_FLUSH_ERR;
	wc.vendor_err = ROCE_ERR_FLUSH;
	wc.opcode = ROCE_WC_RECV;
	wc.qp_num = qp->qpn;
	if (qp->srq == NULL) {
		prod = __atomic_load_n(&rq->prod, __ATOMIC_ACQUIRE);
		for (idx = rq->cons; idx != prod; idx++) {
			const struct roce_recv_wqe *wqe = roce_wq_slot(rq, idx);

			wc.wr_id = wqe->wr_id;
			flush_push(qp, qp->rcq, &wc);
		}
		__atomic_store_n(&rq->cons, prod, __ATOMIC_RELEASE);
	}
	/* the SRQ WQE the responder holds, and its message state */
	roce_resp_flush_held(qp);
}

static void
qp_enter_err(struct roce_qp *qp, enum roce_err cause)
{
	qp->err_cause = cause;
	__atomic_store_n(&qp->state, ROCE_QPS_ERR, __ATOMIC_RELEASE);
	roce_qp_flush(qp);
	/* IBTA 11.6.3: no more WQEs of the SRQ will be taken by this QP */
	if (qp->srq != NULL)
		roce_event_raise(qp->dev, ROCE_EVENT_QP_LAST_WQE_REACHED, qp,
				 qp->qpn, ROCE_OK);
}

void
roce_qp_flush(struct roce_qp *qp)
{
	uint8_t state;

	/* pairs with the fence of roce_post_recv() (store prod; load state) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state != ROCE_QPS_ERR && state != ROCE_QPS_SQE)
		return;
	if (!flush_sq(qp) && state == ROCE_QPS_SQE) {
		/* IBTA 11.4.2.1: a CQ overrun takes the QP to ERR */
		ROCE_LOG(WARNING, qp, "qp %u: send CQ overrun while flushing",
			 qp->qpn);
		qp->err_cause = ROCE_ERR_CQ_OVERFLOW;
		__atomic_store_n(&qp->state, ROCE_QPS_ERR, __ATOMIC_RELEASE);
		roce_event_raise(qp->dev, ROCE_EVENT_QP_FATAL, qp, qp->qpn,
				 ROCE_ERR_CQ_OVERFLOW);
		if (qp->srq != NULL)
			roce_event_raise(qp->dev, ROCE_EVENT_QP_LAST_WQE_REACHED,
					 qp, qp->qpn, ROCE_OK);
		state = ROCE_QPS_ERR;
	}
	if (state == ROCE_QPS_ERR)
		flush_rq(qp);
	qp->flush_done = true;
}

static bool
cause_is_fatal(enum roce_err cause)
{
	return cause == ROCE_ERR_FATAL || cause == ROCE_ERR_CQ_OVERFLOW ||
	       cause == ROCE_ERR_GENERAL;
}

void
roce_qp_error(struct roce_qp *qp, enum roce_err cause)
{
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	if (state == ROCE_QPS_RESET || state == ROCE_QPS_ERR)
		return;
	/* an inbound access violation is the responder's, whoever reports it */
	if (cause == ROCE_ERR_LOC_ACCESS) {
		roce_qp_recv_error(qp, cause);
		return;
	}
	ROCE_LOG(DEBUG, qp, "qp %u: send error %s", qp->qpn,
		 roce_err_name(cause));
	if (qp->type != ROCE_QPT_RC && !cause_is_fatal(cause)) {
		/* UC/UD: the SQ alone stops, the RQ keeps working (IBTA 10.3.1 SQE) */
		if (state != ROCE_QPS_SQE) {
			qp->err_cause = cause;
			__atomic_store_n(&qp->state, ROCE_QPS_SQE,
					 __ATOMIC_RELEASE);
		}
		roce_qp_flush(qp);
		return;
	}
	/*
	 * RC (retries cannot fix it) or a fatal cause: ERR. Errors carried by
	 * a completion raise no event (IBTA 11.6); a catastrophic one raises
	 * "Local Work Queue Catastrophic Error" (IBTA 11.6.3).
	 */
	qp_enter_err(qp, cause);
	if (cause_is_fatal(cause))
		roce_event_raise(qp->dev, ROCE_EVENT_QP_FATAL, qp, qp->qpn,
				 cause);
}

void
roce_qp_recv_error(struct roce_qp *qp, enum roce_err cause)
{
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	enum roce_event_type ev;

	if (state == ROCE_QPS_RESET || state == ROCE_QPS_ERR)
		return;
	ROCE_LOG(DEBUG, qp, "qp %u: receive error %s", qp->qpn,
		 roce_err_name(cause));
	/* IBTA 11.6.3 affiliated asynchronous errors */
	switch (cause) {
	case ROCE_ERR_LOC_ACCESS:
	case ROCE_ERR_REM_ACCESS:
		ev = ROCE_EVENT_QP_ACCESS_ERR;	/* local access violation */
		break;
	case ROCE_ERR_REM_INV_REQ:
	case ROCE_ERR_REM_INV_RD_REQ:
	case ROCE_ERR_LOC_LEN:
		ev = ROCE_EVENT_QP_REQ_ERR;	/* invalid request */
		break;
	default:
		ev = ROCE_EVENT_QP_FATAL;	/* catastrophic */
		break;
	}
	qp_enter_err(qp, cause);
	roce_event_raise(qp->dev, ev, qp, qp->qpn, cause);
}
