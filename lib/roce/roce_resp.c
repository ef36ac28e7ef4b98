/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder engine (IBTA vol. 1 9.7.4 - 9.7.5, 9.9.3): executes the
 * requests that arrive on RC, UC and UD QPs and sends their responses.
 *
 * roce_resp_rx() runs one packet through an explicit state machine: every
 * step function looks at one aspect of the packet and returns the next
 * step, so the order of the checks (and the IBTA clause behind each) is
 * readable in one place:
 *
 *   CHECK_PSN -> CHECK_OPSEQ -> CHECK_OP -> CHECK_RKEY -> CHECK_RESOURCE
 *     -> EXECUTE -> COMPLETE -> ACK -> DONE
 *   CHECK_PSN -> DUPLICATE -> DONE             (behind the expected PSN)
 *   any check -> ERROR -> DONE                 (NAK / drop / complete in error)
 *
 * Output never leaves from roce_resp_rx(): READ responses, atomic ACKs and
 * the coalesced ACK/NAK wait in the QP's responder state and are sent by
 * roce_resp_run() (roce_resp_out.c) from the worker's poll, in PSN order,
 * a bounded number per QP per poll (a 1 MiB READ does not block the
 * worker). ACKs are coalesced (IBTA 9.7.5.1.1: an ACK acknowledges every
 * earlier PSN): step_ack decides when one is due.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "roce_engine.h"
#include "roce_icrc_priv.h"
#include "roce_parse.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_resp_priv.h"
#include "roce_sr.h"
#include "roce_txbuf.h"
#include "roce_worker.h"

/** RoCEv2 GRH area at the start of a UD receive buffer (IBTA 11.4.1.2). */
#define RESP_GRH_LEN 40

enum resp_step {
	RESP_CHECK_PSN,
	RESP_CHECK_OPSEQ,
	RESP_CHECK_OP,
	RESP_CHECK_RKEY,
	RESP_CHECK_RESOURCE,
	RESP_EXECUTE,
	RESP_COMPLETE,
	RESP_ACK,
	RESP_DUPLICATE,
	RESP_ERROR,
	RESP_DROP,
	RESP_DONE,
};

/** One inbound packet on its way through the steps. */
struct resp_ctx {
	struct roce_qp *qp;
	struct roce_worker *w;
	const struct roce_pkt *pkt;
	const struct rte_mbuf *m;
	uint32_t flags;		/**< opcode flags (enum roce_op_flag) */
	uint32_t psn;
	uint32_t plen;		/**< payload bytes */
	uint8_t opcode;
	/* RETH / AtomicETH target, checked by RESP_CHECK_RKEY */
	uint8_t *host;
	struct roce_key_ref kref;	/**< its key, re-checked before later use */
	struct roce_resp_res *res;	/**< READ/atomic: its new resource */
	/* ERROR step inputs */
	enum roce_err err;	/**< what went wrong (the error table row) */
	enum roce_worker_cnt cnt;	/**< worker counter of the drop/error */
	bool wqe_err;		/**< complete the held receive WQE with err */
};

typedef enum resp_step (*resp_step_fn)(struct resp_ctx *c);

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */
/* ------------------------------------------------------------------ */

static inline bool
qp_is_rc(const struct roce_qp *qp)
{
	return qp->type == ROCE_QPT_RC;
}

static inline void
resp_count(struct resp_ctx *c, enum roce_worker_cnt cnt)
{
	c->w->cnt[cnt]++;
}

/*
 * ACK syndrome with the end-to-end credit count (IBTA 9.7.7.2, table 46:
 * the largest encoded value not above the receive WQEs available). QPs on
 * an SRQ have no credits: 0x1f, "invalid" (IBTA 10.2.9.4).
 */

/* Copy @p len bytes at offset @p off of a (chained) mbuf to @p dst, once. */
static void
mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, void *dst, uint32_t len)
{
	const void *p;

	if (len == 0)
		return;
	/*
	 * rte_pktmbuf_read() copies into dst itself across segments; the
	 * parser checked that they hold pkt_len (roce_mbuf_holds())
	 */
	p = rte_pktmbuf_read(m, off, len, dst);
	if (p != dst)
		rte_memcpy(dst, p, len);
}

/* ------------------------------------------------------------------ */
/* Responder resources (READ / atomic), IBTA 9.7.5.1.4                 */
/* ------------------------------------------------------------------ */


/*
 * A new resource at the tail. The oldest one is reused when the ring is
 * full and it has nothing left to send (it stays only for duplicate
 * replay), or when what it sends is a replay (IBTA 9.7.5.1.5): a new
 * request beyond a full ring tells that the requester, which keeps at most
 * max_rd_atomic outstanding, has completed the oldest one, so the
 * duplicate that started the replay came late (a retry after a spurious
 * timeout) and nobody waits for it; rxe reuses the oldest resource the
 * same way. A full ring whose oldest request is still being answered for
 * the first time means the requester went past our max_dest_rd_atomic:
 * NULL (invalid request).
 */
static struct roce_resp_res *
res_new(struct roce_resp_state *r)
{
	struct roce_resp_res *res;

	if (r->res == NULL || r->res_cap == 0)
		return NULL;
	if (r->res_count == r->res_cap) {
		res = res_at(r, 0);
		if (res->pending && !res->replay)
			return NULL;
		if (++r->res_head == r->res_cap)
			r->res_head = 0;
		r->res_count--;
	}
	res = res_at(r, r->res_count);
	memset(res, 0, sizeof(*res));
	r->res_count++;
	return res;
}

/* Index of the resource answering PSN @p psn of kind @p read, or -1. */
static int
res_find(const struct roce_resp_state *r, uint32_t psn, bool read)
{
	uint32_t i;

	for (i = r->res_count; i-- > 0;) {
		const struct roce_resp_res *res = res_at(r, i);
		bool is_read = res->opcode == ROCE_OP_RC_RDMA_READ_REQUEST;

		if (is_read != read)
			continue;
		if (roce_psn_in_window(psn, res->first_psn,
				       roce_psn_offset(res->last_psn,
						       res->first_psn) + 1))
			return (int)i;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Receive WQEs                                                       */
/* ------------------------------------------------------------------ */

/* The receive WQE of the current message: held, or the next one. */
static struct roce_recv_wqe *
resp_get_wqe(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;
	struct roce_recv_wqe *s;

	if (r->rwqe != NULL)
		return r->rwqe;
	if (qp->srq != NULL) {
		if (unlikely(r->srq_wqe == NULL)) {
			/* once per QP: room for the largest WQE */
			r->srq_wqe = rte_zmalloc_socket("roce_srq_wqe_copy",
				sizeof(struct roce_recv_wqe) +
				ROCE_MAX_SGE * sizeof(struct roce_sge), 0,
				qp->w->socket);
			if (r->srq_wqe == NULL) {
				ROCE_LOG(ERR, resp, "qp %u: no memory for an SRQ WQE",
					 qp->qpn);
				return NULL;
			}
		}
		s = roce_srq_next(qp->srq);
		if (s == NULL)
			return NULL;
		/* other QPs share the SRQ: own a copy, free the slot now */
		memcpy(r->srq_wqe, s, sizeof(*s) +
		       RTE_MIN(s->num_sge, (uint32_t)ROCE_MAX_SGE) *
		       sizeof(s->sge[0]));
		r->srq_wqe->num_sge = RTE_MIN(s->num_sge, (uint32_t)ROCE_MAX_SGE);
		roce_srq_consume(qp->srq);
		r->rwqe = r->srq_wqe;
		r->rwqe_from_srq = true;
	} else {
		if (rq_avail(qp) == 0)
			return NULL;
		r->rwqe = roce_wq_slot(&qp->rq, qp->rq.cons);
		r->rwqe_from_srq = false;
	}
	r->recv_off = 0;
	return r->rwqe;
}

/* Retire the held receive WQE after its completion was pushed. */
static void
resp_retire_wqe(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;

	if (r->rwqe == NULL)
		return;
	if (!r->rwqe_from_srq)
		__atomic_store_n(&qp->rq.cons, qp->rq.cons + 1,
				 __ATOMIC_RELEASE);
	r->rwqe = NULL;
	r->recv_off = 0;
}

/*
 * Push a receive completion; a full CQ moves the QP to ERR (IBTA 11.4.2.1)
 * once the response for it left: on RC, step_ack NAKs the message whose
 * completion was lost with Remote Operational Error (IBTA 9.7.5.2.4: an
 * error local to the responder prevented completing a valid request),
 * which acknowledges the messages completed before it; nothing is
 * accepted after it.
 */
static void
resp_push_wc(struct roce_qp *qp, struct roce_wc *wc)
{
	wc->qp_num = qp->qpn;
	if (unlikely(roce_cq_push(qp->rcq, wc) != 0)) {
		qp->w->cnt[ROCE_WCNT_RESP_CQ_OVERFLOW]++;
		if (qp->resp.fatal == ROCE_OK)
			qp->resp.fatal = ROCE_ERR_CQ_OVERFLOW;
		roce_worker_resp_pending(qp->w, qp);
	}
}

/* Complete the held receive WQE in error with @p err (IBTA 10.8.3). */
static void
resp_complete_wqe_error(struct roce_qp *qp, enum roce_err err)
{
	struct roce_wc wc;

	if (qp->resp.rwqe == NULL)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = qp->resp.rwqe->wr_id;
	wc.status = roce_err_to_wc_status(err);
	wc.vendor_err = err;
	wc.opcode = ROCE_WC_RECV;
	wc.byte_len = qp->resp.recv_off;
	/* the slot first: a poller may post into it as soon as it sees the CQE */
	resp_retire_wqe(qp);
	resp_push_wc(qp, &wc);
}

/*
 * Scatter @p len bytes into the receive WQE at message offset @p off: from
 * the mbuf at @p src_off when @p flat is NULL, else from @p flat. Every
 * SGE piece is checked with the local key rules (LOCAL_WRITE, IBTA
 * 10.6.3.1) before it is written.
 */
static enum roce_err
resp_scatter(struct roce_qp *qp, const struct roce_recv_wqe *wqe, uint32_t off,
	     const struct rte_mbuf *m, uint32_t src_off, const uint8_t *flat,
	     uint32_t len)
{
	struct roce_sge_walk w;
	struct roce_key_ref ref;
	enum roce_err e;

	if ((uint64_t)off + len > wqe->length)
		return ROCE_ERR_LOC_LEN;
	roce_sge_walk_init(&w, wqe->sge, wqe->num_sge, off, len);
	while (roce_sge_walk_next(&w)) {
		e = roce_key_check_local_cached(qp->dev, qp->pd,
						wqe->sge[w.i].lkey, w.addr,
						w.n, ROCE_ACCESS_LOCAL_WRITE,
						&ref, &qp->resp.lkc);
		if (e != ROCE_OK)
			return ROCE_ERR_LOC_PROT;
		if (flat != NULL) {
			memcpy(ref.host, flat, w.n);
			flat += w.n;
		} else {
			mbuf_copy_out(m, src_off, ref.host, w.n);
			src_off += w.n;
		}
	}
	return w.len == 0 ? ROCE_OK : ROCE_ERR_LOC_LEN;
}

/* ------------------------------------------------------------------ */
/* The steps                                                          */
/* ------------------------------------------------------------------ */

/* Abandon the message in progress (UC loss, IBTA 9.8.3): keep its WQE. */
static void
resp_abandon_message(struct resp_ctx *c)
{
	struct roce_resp_state *r = &c->qp->resp;

	if (r->in_message)
		resp_count(c, ROCE_WCNT_RESP_UC_MSG_DROP);
	r->in_message = false;
	r->recv_off = 0;
	r->write_len = r->write_off = 0;
	r->wref.host = NULL;
}

/*
 * Selective repeat (roce_sr.h): a request ahead of ePSN. A WRITE without
 * immediate is placed at once and SACKed; anything else is dropped. Either
 * way the coalesced response becomes the SACK NAK at ePSN (unless another
 * NAK waits), one per poll rather than one per gap.
 */
static enum resp_step
resp_sr_ahead(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	enum roce_sr_ooo v = roce_sr_resp_ooo(qp, c->pkt, c->m, c->psn);

	qp->stats.out_of_seq++;
	resp_count(c, ROCE_WCNT_RESP_OUT_OF_SEQ);
	if (!r->ack_pending ||
	    roce_syndrome_type(r->ack_syndrome) == ROCE_AETH_ACK) {
		r->ack_pending = true;
		r->ack_psn = r->epsn;
		r->ack_syndrome = roce_err_to_nak(ROCE_ERR_PSN_SEQ);
	}
	roce_worker_resp_pending(c->w, qp);
	if (v == ROCE_SR_OOO_DROP) {
		c->cnt = ROCE_WCNT_RESP_OOS_DROP;
		return RESP_DROP;
	}
	return RESP_DONE;
}

/*
 * PSN check.
 * RC (IBTA 9.7.5.1.2): PSN == ePSN is the next request; a PSN in the half
 * space behind ePSN is a duplicate (9.7.5.1.1: never re-executed); ahead of
 * it is a sequence error: one NAK per error, then silent drops until the
 * expected PSN arrives.
 * UC (IBTA 9.8.3): a gap drops the rest of the message; the next FIRST or
 * ONLY resynchronises. UD: no PSN check (IBTA 9.8.4).
 */
static enum resp_step
step_check_psn(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	int32_t diff;

	if (qp->type == ROCE_QPT_UD)
		return RESP_CHECK_OPSEQ;
	if (qp->type == ROCE_QPT_UC) {
		if (likely(!r->drop_message && c->psn == r->epsn))
			return RESP_CHECK_OPSEQ;
		if (c->flags & ROCE_OPF_FIRST) {
			resp_abandon_message(c);
			r->drop_message = false;
			r->epsn = c->psn;
			return RESP_CHECK_OPSEQ;
		}
		resp_abandon_message(c);
		r->drop_message = true;
		qp->stats.out_of_seq++;
		c->cnt = ROCE_WCNT_RESP_UC_MSG_DROP;
		return RESP_DROP;
	}
	diff = roce_psn_diff(c->psn, r->epsn);
	if (likely(diff == 0)) {
		r->nak_sent = false;
		return RESP_CHECK_OPSEQ;
	}
	if (diff < 0)
		return RESP_DUPLICATE;
	if (roce_sr_on(qp))
		return resp_sr_ahead(c);
	qp->stats.out_of_seq++;
	resp_count(c, ROCE_WCNT_RESP_OUT_OF_SEQ);
	if (r->nak_sent) {
		c->cnt = ROCE_WCNT_RESP_OOS_DROP;
		return RESP_DROP;
	}
	/* one PSN sequence error NAK, carrying the expected PSN */
	r->nak_sent = true;
	r->ack_pending = true;
	r->ack_psn = r->epsn;
	r->ack_syndrome = roce_err_to_nak(ROCE_ERR_PSN_SEQ);
	resp_count(c, ROCE_WCNT_RESP_SEQ_NAK);
	roce_worker_resp_pending(c->w, qp);
	return RESP_DONE;
}

/*
 * Opcode sequence (IBTA 9.7.5, 9.9.3: an error is an invalid request):
 * inside a message only a MIDDLE or LAST of the same operation may follow;
 * outside one, only a FIRST or ONLY. RC: invalid request NAK; UC: the
 * broken message is dropped, a new FIRST/ONLY starts over.
 */
static enum resp_step
step_check_opseq(struct resp_ctx *c)
{
	struct roce_resp_state *r = &c->qp->resp;
	uint32_t kind = c->flags & (ROCE_OPF_SEND | ROCE_OPF_WRITE);
	bool ok;

	if (r->in_message)
		ok = !(c->flags & ROCE_OPF_FIRST) &&
		     (roce_opcode_info(r->last_opcode)->flags & kind) != 0;
	else
		ok = (c->flags & ROCE_OPF_FIRST) != 0;
	if (likely(ok))
		return RESP_CHECK_OP;
	resp_count(c, ROCE_WCNT_RESP_BAD_OPSEQ);
	if (qp_is_rc(c->qp)) {
		c->err = ROCE_ERR_REM_INV_REQ;
		c->cnt = ROCE_WCNT_RESP_INV_REQ;
		return RESP_ERROR;
	}
	/* UC/UD */
	resp_abandon_message(c);
	if (c->flags & ROCE_OPF_FIRST)
		return RESP_CHECK_OP;
	r->drop_message = true;
	c->cnt = ROCE_WCNT_RESP_UC_MSG_DROP;
	return RESP_DROP;
}

/* A length rule broken: invalid request (RC) or drop (UC/UD). */
static enum resp_step
resp_bad_length(struct resp_ctx *c)
{
	resp_count(c, ROCE_WCNT_RESP_BAD_LEN);
	c->err = ROCE_ERR_LOC_LEN;
	c->cnt = ROCE_WCNT_RESP_INV_REQ;
	return RESP_ERROR;
}

/*
 * The operation itself: the QP allows it (QP access flags, IBTA 10.2 / 9.7.5:
 * a disabled remote operation is a remote access error), payload lengths
 * vs the path MTU (IBTA 9.7.5.1.6: FIRST and MIDDLE carry exactly one PMTU,
 * LAST and ONLY at most one), Q_Key for UD (IBTA 10.2.5).
 */
static enum resp_step
step_check_op(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	uint32_t mtu = roce_qp_mtu(qp);
	int need = 0;

	if (c->flags & ROCE_OPF_WRITE)
		need = ROCE_ACCESS_REMOTE_WRITE;
	else if (c->flags & ROCE_OPF_READ)
		need = ROCE_ACCESS_REMOTE_READ;
	else if (c->flags & ROCE_OPF_ATOMIC)
		need = ROCE_ACCESS_REMOTE_ATOMIC;
	if (need != 0 && !(qp->access & need)) {
		c->err = ROCE_ERR_LOC_ACCESS;
		c->cnt = ROCE_WCNT_RESP_REM_ACCESS;
		return RESP_ERROR;
	}
	if (c->flags & ROCE_OPF_PAYLOAD) {
		bool full = (c->flags & (ROCE_OPF_FIRST | ROCE_OPF_MIDDLE)) &&
			    !(c->flags & ROCE_OPF_LAST);

		if (full ? c->plen != mtu : c->plen > mtu)
			return resp_bad_length(c);
	}
	if (qp->type == ROCE_QPT_UD) {
		const struct roce_deth *deth = roce_pkt_deth(c->pkt);

		/* IBTA 10.2.5 / C10-15: the Q_Key must match the QP's */
		if (roce_deth_qkey(deth) != qp->attr.qkey) {
			c->cnt = ROCE_WCNT_RESP_QKEY_VIOL;
			qp->stats.rx_drops++;
			return RESP_DROP;
		}
	}
	return RESP_CHECK_RKEY;
}

/*
 * Remote key checks (IBTA 9.7.4.1.5, 10.6.3.3): the RETH of a WRITE FIRST
 * or ONLY and of a READ, the AtomicETH of an atomic: key valid, same PD,
 * bounds, rights; a zero-length RDMA operation checks no key (IBTA C9-88).
 * An atomic target must be 8-byte aligned (IBTA 9.4.5: invalid request).
 */
static enum resp_step
step_check_rkey(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	struct roce_key_ref ref;
	uint64_t va, len;
	uint32_t rkey;
	int access;

	if (c->flags & ROCE_OPF_RETH) {
		const struct roce_reth *reth = roce_pkt_reth(c->pkt);

		va = roce_reth_va(reth);
		rkey = roce_reth_rkey(reth);
		len = roce_reth_len(reth);
		if (c->flags & ROCE_OPF_WRITE) {
			access = ROCE_ACCESS_REMOTE_WRITE;
			/* a WRITE ONLY carries all of its DMA length */
			if ((c->flags & ROCE_OPF_LAST) && len != c->plen)
				return resp_bad_length(c);
			/* a WRITE FIRST carries one PMTU of a longer message */
			if (!(c->flags & ROCE_OPF_LAST) && len <= c->plen)
				return resp_bad_length(c);
		} else {
			access = ROCE_ACCESS_REMOTE_READ;
			if (len > ROCE_MAX_MSG_SIZE) {
				c->err = ROCE_ERR_REM_INV_REQ;
				c->cnt = ROCE_WCNT_RESP_INV_REQ;
				return RESP_ERROR;
			}
		}
	} else if (c->flags & ROCE_OPF_ATMETH) {
		const struct roce_atmeth *a = roce_pkt_atmeth(c->pkt);

		va = roce_atmeth_va(a);
		rkey = roce_atmeth_rkey(a);
		len = sizeof(uint64_t);
		access = ROCE_ACCESS_REMOTE_ATOMIC;
		if (va & (sizeof(uint64_t) - 1)) {
			c->err = ROCE_ERR_REM_INV_REQ;
			c->cnt = ROCE_WCNT_RESP_INV_REQ;
			return RESP_ERROR;
		}
	} else {
		return RESP_CHECK_RESOURCE;
	}
	c->host = NULL;
	memset(&c->kref, 0, sizeof(c->kref));
	if (len != 0) {
		if (roce_key_check_remote_cached(qp->dev, qp->pd, qp->qpn,
						 rkey, va, len, access, &ref,
						 &r->rkc) != ROCE_OK) {
			c->err = ROCE_ERR_LOC_ACCESS;
			c->cnt = ROCE_WCNT_RESP_REM_ACCESS;
			return RESP_ERROR;
		}
		c->host = ref.host;
		c->kref = ref;
	}
	if (c->flags & ROCE_OPF_WRITE) {
		r->write_len = (uint32_t)len;
		r->write_off = 0;
		r->va = va;
		r->rkey = rkey;
		/* the key is re-checked before every later packet's copy */
		r->wref = c->kref;
	}
	return RESP_CHECK_RESOURCE;
}

/*
 * Resources: a receive WQE for a SEND FIRST/ONLY and a WRITE with
 * immediate (none: RNR NAK with the QP's min RNR timer on RC, IBTA
 * 9.7.5.2.8; silent drop on UC and UD, IBTA 9.8.3 / 9.8.4), a responder
 * resource for READ and atomics (IBTA 9.7.5.1.4: a requester beyond
 * max_dest_rd_atomic is an invalid request).
 */
static enum resp_step
step_check_resource(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;

	if (c->flags & (ROCE_OPF_READ | ROCE_OPF_ATOMIC)) {
		c->res = res_new(r);
		if (c->res == NULL) {
			resp_count(c, ROCE_WCNT_RESP_RD_ATOMIC_FULL);
			c->err = ROCE_ERR_REM_INV_REQ;
			c->cnt = ROCE_WCNT_RESP_INV_REQ;
			return RESP_ERROR;
		}
		return RESP_EXECUTE;
	}
	if (!(c->flags & ROCE_OPF_RWR))
		return RESP_EXECUTE;
	if (likely(resp_get_wqe(qp) != NULL))
		return RESP_EXECUTE;
	if (unlikely(qp->srq != NULL &&
		     __atomic_load_n(&qp->srq->error, __ATOMIC_ACQUIRE))) {
		/*
		 * IBTA 11.6.3 SRQ catastrophic error: no WQE will ever come
		 * from it, so the QPs using it go to ERR (RC first NAKs with
		 * remote operational error, IBTA 9.7.5.2.4).
		 */
		c->err = ROCE_ERR_REM_OP;
		c->cnt = ROCE_WCNT_RESP_REM_OP;
		c->wqe_err = true;
		return RESP_ERROR;
	}
	if (qp_is_rc(qp)) {
		/* RNR NAK for this PSN; later PSNs drop until it returns */
		r->ack_pending = true;
		r->ack_psn = c->psn;
		r->ack_syndrome = roce_err_to_nak(ROCE_ERR_RNR) |
				  (qp->attr.min_rnr_timer & 0x1f);
		r->nak_sent = true;
		qp->stats.rnr_naks_tx++;
		resp_count(c, ROCE_WCNT_RESP_RNR_NAK);
		roce_worker_resp_pending(c->w, qp);
		return RESP_DONE;
	}
	if (!(c->flags & ROCE_OPF_LAST))
		r->drop_message = true;
	qp->stats.rx_drops++;
	c->cnt = ROCE_WCNT_RESP_NO_WQE_DROP;
	return RESP_DROP;
}

/* SEND payload (after the GRH area on UD) into the receive WQE. */
static enum resp_step
exec_send(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	enum roce_err e;

	if (qp->type == ROCE_QPT_UD) {
		/*
		 * RoCEv2 (Linux convention): 40 bytes of GRH area; an IPv4
		 * header sits in its last 20 bytes, an IPv6 header fills it.
		 */
		uint8_t grh[RESP_GRH_LEN];
		const void *ip;

		memset(grh, 0, sizeof(grh));
		if (c->pkt->ip_ver == 4) {
			ip = roce_pkt_ipv4(c->pkt);
			memcpy(grh + 20, ip, 20);
		} else {
			ip = roce_pkt_ipv6(c->pkt);
			memcpy(grh, ip, RESP_GRH_LEN);
		}
		e = resp_scatter(qp, r->rwqe, 0, NULL, 0, grh, RESP_GRH_LEN);
		if (e == ROCE_OK)
			r->recv_off = RESP_GRH_LEN;
	} else {
		e = ROCE_OK;
	}
	if (e == ROCE_OK)
		e = resp_scatter(qp, r->rwqe, r->recv_off, c->m,
				 c->pkt->payload_off, NULL, c->plen);
	if (unlikely(e != ROCE_OK)) {
		c->err = e;
		c->wqe_err = true;
		c->cnt = e == ROCE_ERR_LOC_LEN ? ROCE_WCNT_RESP_LOC_LEN :
						 ROCE_WCNT_RESP_REM_OP;
		return RESP_ERROR;
	}
	r->recv_off += c->plen;
	return RESP_DONE;
}

/* WRITE payload at the checked target (IBTA 9.7.5.2.2). */
static enum resp_step
exec_write(struct resp_ctx *c)
{
	struct roce_resp_state *r = &c->qp->resp;
	const uint8_t *srx;

	if ((uint64_t)r->write_off + c->plen > r->write_len)
		return resp_bad_length(c);
	/* the last packet brings exactly what the DMA length still lacks */
	if ((c->flags & ROCE_OPF_LAST) && r->write_off + c->plen != r->write_len)
		return resp_bad_length(c);
	/*
	 * Deregistered (or invalidated, re-registered) since the FIRST
	 * packet: remote access error, nothing written (deregistration
	 * waits for a worker quiescent point after invalidating, so a copy
	 * that passed this check is over before it returns).
	 */
	srx = roce_sr_pkt_srx(c->pkt);
	if (srx != NULL) {
		uint64_t va;
		uint32_t rkey;

		/*
		 * Selective repeat: each packet names its target (roce_sr.h).
		 * In order, that is the message's next byte, whose key was
		 * checked for the whole DMA length at an in-order FIRST/ONLY
		 * (wref set): the copy below with its validity re-check, not
		 * a second key lookup. Any other target, or a message whose
		 * FIRST was placed ahead (roce_sr_resp_merge() clears wref),
		 * is checked on its own.
		 */
		roce_sr_req_decode(srx, &va, &rkey);
		if (r->wref.entry == NULL || rkey != r->rkey ||
		    va != r->va + r->write_off) {
			if (roce_sr_resp_place(c->qp, c->pkt, c->m) !=
			    ROCE_OK) {
				c->err = ROCE_ERR_LOC_ACCESS;
				c->cnt = ROCE_WCNT_RESP_REM_ACCESS;
				return RESP_ERROR;
			}
			r->write_off += c->plen;
			return RESP_DONE;
		}
	}
	if (unlikely(!roce_key_ref_valid(&r->wref))) {
		c->err = ROCE_ERR_LOC_ACCESS;
		c->cnt = ROCE_WCNT_RESP_REM_ACCESS;
		return RESP_ERROR;
	}
	if (c->plen != 0)
		mbuf_copy_out(c->m, c->pkt->payload_off,
			      r->wref.host + r->write_off, c->plen);
	r->write_off += c->plen;
	return RESP_DONE;
}


/* READ: record the resource; roce_resp_run() streams the response. */
static void
exec_read(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	const struct roce_reth *reth = roce_pkt_reth(c->pkt);
	struct roce_resp_res *res = c->res;
	uint32_t len = roce_reth_len(reth);
	uint32_t npkts = roce_msg_npkts(len, roce_qp_mtu(qp));

	res->opcode = c->opcode;
	res->first_psn = c->psn;
	res->last_psn = roce_psn_add(c->psn, npkts - 1);
	res->start_psn = res->cur_psn = c->psn;
	res->stop_psn = res->last_psn;
	res->cur_off = 0;
	res->va = roce_reth_va(reth);
	res->rkey = roce_reth_rkey(reth);
	res->length = len;
	res->host = c->host;
	res->ref = c->kref;
	/* IBTA C9-148: the MSN counts a READ when it is accepted */
	r->msn = roce_psn_next(r->msn);
	res->msn = r->msn;
	res->pending = true;
	/* a READ consumes one PSN per response packet (IBTA 9.7.4.1.3) */
	r->epsn = roce_psn_next(res->last_psn);
	/* the READ response acknowledges every earlier PSN */
	r->ack_pending = false;
	roce_resp_ack_covered(qp);
	roce_worker_resp_pending(c->w, qp);
}

/* Atomic: executed once, result kept for duplicate replay (IBTA 9.7.5.1.1). */
static void
exec_atomic(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	const struct roce_atmeth *a = roce_pkt_atmeth(c->pkt);
	struct roce_resp_res *res = c->res;
	uint64_t *word = (uint64_t *)(void *)c->host;
	uint64_t orig;

	if (c->opcode == ROCE_OP_RC_COMPARE_SWAP) {
		orig = roce_atmeth_compare(a);
		/* on failure orig receives the current value: the old value
		 * is returned either way (IBTA 9.4.5.1)
		 */
		__atomic_compare_exchange_n(word, &orig,
					    roce_atmeth_swap_add(a), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(word, roce_atmeth_swap_add(a),
					  __ATOMIC_SEQ_CST);
	}
	res->opcode = c->opcode;
	res->first_psn = res->last_psn = res->start_psn = res->cur_psn = c->psn;
	res->va = roce_atmeth_va(a);
	res->rkey = roce_atmeth_rkey(a);
	res->length = sizeof(uint64_t);
	res->atomic_orig = orig;
	r->msn = roce_psn_next(r->msn);
	res->msn = r->msn;
	res->pending = true;
	r->epsn = roce_psn_next(c->psn);
	r->ack_pending = false;
	roce_resp_ack_covered(qp);
	roce_worker_resp_pending(c->w, qp);
}

static enum resp_step
step_execute(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	enum resp_step next;

	if (c->flags & ROCE_OPF_READ) {
		exec_read(c);
		return RESP_DONE;
	}
	if (c->flags & ROCE_OPF_ATOMIC) {
		exec_atomic(c);
		return RESP_DONE;
	}
	next = (c->flags & ROCE_OPF_SEND) ? exec_send(c) : exec_write(c);
	if (next != RESP_DONE)
		return next;
	r->in_message = !(c->flags & ROCE_OPF_LAST);
	r->last_opcode = c->opcode;
	if (qp->type != ROCE_QPT_UD)
		r->epsn = roce_psn_next(c->psn);
	if (!(c->flags & ROCE_OPF_LAST))
		return RESP_ACK;
	/* message complete: IBTA 9.7.5.1.3, the MSN counts it */
	r->msn = roce_psn_next(r->msn);
	return (c->flags & ROCE_OPF_RCOMP) ? RESP_COMPLETE : RESP_ACK;
}

/* The receive completion of a SEND or WRITE with immediate (IBTA 10.8.3). */
static enum resp_step
step_complete(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	const struct roce_immdt *imm = roce_pkt_immdt(c->pkt);
	const struct roce_ieth *ieth = roce_pkt_ieth(c->pkt);
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r->rwqe->wr_id;
	wc.status = ROCE_WC_SUCCESS;
	if (c->flags & ROCE_OPF_WRITE) {
		wc.opcode = ROCE_WC_RECV_RDMA_WITH_IMM;
		wc.byte_len = r->write_len;
	} else {
		wc.opcode = ROCE_WC_RECV;
		wc.byte_len = r->recv_off;
	}
	if (imm != NULL) {
		wc.imm_data = rte_cpu_to_be_32(roce_immdt_imm(imm));
		wc.wc_flags |= ROCE_WC_WITH_IMM;
	}
	if (ieth != NULL) {
		uint32_t rkey = roce_ieth_rkey(ieth);

		/* SEND with invalidate (IBTA 9.4.1.3, 10.6.5) */
		enum roce_err e = roce_key_invalidate(qp->dev, qp->pd, rkey);

		if (e != ROCE_OK) {
			c->err = e;
			c->wqe_err = true;
			c->cnt = ROCE_WCNT_RESP_REM_OP;
			return RESP_ERROR;
		}
		wc.imm_data = rkey;
		wc.wc_flags |= ROCE_WC_WITH_INV;
	}
	if (qp->type == ROCE_QPT_UD) {
		wc.src_qp = roce_deth_sqpn(roce_pkt_deth(c->pkt));
		wc.wc_flags |= ROCE_WC_GRH;
	}
	/* the message's last packet carries the solicited event bit */
	wc.solicited = roce_bth_se(roce_pkt_bth(c->pkt));
	resp_retire_wqe(qp);	/* before the CQE, as above */
	resp_push_wc(qp, &wc);
	r->write_len = r->write_off = 0;
	return RESP_ACK;
}

/*
 * Coalesced ACK (RC only): one per poll, for the newest PSN. A message
 * whose completion a full receive CQ refused (resp_push_wc) is NAKed
 * instead: Remote Operational Error at its PSN, so that the requester
 * completes it with REM_OP_ERR at once rather than after its retries.
 * Linux rxe goes to ERR silently here (its class G) and leaves the
 * requester to time out.
 */
static enum resp_step
step_ack(struct resp_ctx *c)
{
	struct roce_resp_state *r = &c->qp->resp;

	if (!qp_is_rc(c->qp))
		return RESP_DONE;
	if (unlikely(r->fatal != ROCE_OK)) {
		if (r->fatal == ROCE_ERR_CQ_OVERFLOW && !r->nak_sent) {
			r->ack_pending = true;
			r->ack_psn = c->psn;
			r->ack_syndrome = roce_err_to_nak(ROCE_ERR_LOC_QP_OP);
			r->nak_sent = true;
			resp_count(c, ROCE_WCNT_RESP_REM_OP);
			roce_worker_resp_pending(c->w, c->qp);
		}
		return RESP_DONE;
	}
	r->ack_psn = c->psn;
	r->ack_syndrome = roce_syndrome(ROCE_AETH_ACK, 0);	/* credits at send */
	r->unacked++;
	/*
	 * Coalescing: at once when asked (AckReq) or at a message's end,
	 * else after ack_pkts packets or ack_us after the first held one
	 * (roce_device_config). Several in one poll still make one ACK.
	 */
	if (roce_bth_ackreq(roce_pkt_bth(c->pkt)) ||
	    (c->flags & ROCE_OPF_LAST) || r->unacked >= c->qp->dev->ack_pkts) {
		r->ack_pending = true;
		roce_worker_resp_pending(c->w, c->qp);
	} else if (!roce_timer_armed(&r->ack_timer) &&
		   roce_timer_arm(roce_worker_timers(c->w), &r->ack_timer,
				  c->w->now + c->qp->dev->ack_tsc) != 0) {
		/* no timer left: do not hold it */
		r->ack_pending = true;
		roce_worker_resp_pending(c->w, c->qp);
	}
	return RESP_DONE;
}


/*
 * Duplicate request (IBTA 9.7.5.1.1): never executed again. SEND/WRITE:
 * ACK again (the newest PSN acknowledges it). READ: answer again from the
 * resource, starting at the duplicate's PSN (a retried READ may start in
 * the middle of the original). Atomic: resend the saved result. Later
 * resources stop sending: the requester's go-back-N resends their
 * requests, which replay them in turn.
 */
static enum resp_step
step_duplicate(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;
	struct roce_resp_res *res;
	uint32_t i, mtu = roce_qp_mtu(qp);
	int idx;

	qp->stats.dup_requests++;
	resp_count(c, ROCE_WCNT_RESP_DUP);
	if (!(c->flags & (ROCE_OPF_READ | ROCE_OPF_ATOMIC))) {
		/* a pending NAK also acknowledges everything before ePSN */
		if (!r->ack_pending ||
		    roce_syndrome_type(r->ack_syndrome) == ROCE_AETH_ACK) {
			r->ack_pending = true;
			r->ack_psn = roce_psn_prev(r->epsn);
			r->ack_syndrome = roce_syndrome(ROCE_AETH_ACK, 0);
		}
		roce_worker_resp_pending(c->w, qp);
		return RESP_DONE;
	}
	idx = res_find(r, c->psn, (c->flags & ROCE_OPF_READ) != 0);
	if (idx < 0) {
		c->cnt = ROCE_WCNT_RESP_DUP_NO_RES;
		return RESP_DROP;
	}
	res = res_at(r, (uint32_t)idx);
	if (c->flags & ROCE_OPF_READ) {
		uint64_t off = (uint64_t)roce_psn_offset(c->psn,
							 res->first_psn) * mtu;

		if (off > res->length) {
			c->cnt = ROCE_WCNT_RESP_DUP_NO_RES;
			return RESP_DROP;
		}
		res->start_psn = res->cur_psn = c->psn;
		res->cur_off = (uint32_t)off;
		res->stop_psn = res->last_psn;
		if (roce_sr_on(qp)) {
			/* SR: the retried READ asks only for a gap */
			uint32_t want = roce_msg_npkts(
				roce_reth_len(roce_pkt_reth(c->pkt)), mtu);

			if (want < roce_psn_offset(res->last_psn, c->psn) + 1)
				res->stop_psn = roce_psn_add(c->psn, want - 1);
		}
	} else if (c->psn != res->first_psn) {
		c->cnt = ROCE_WCNT_RESP_DUP_NO_RES;
		return RESP_DROP;
	}
	res->replay = true;
	res->pending = true;
	for (i = (uint32_t)idx + 1; i < r->res_count; i++)
		res_at(r, i)->pending = false;
	roce_worker_resp_pending(c->w, qp);
	return RESP_DONE;
}

/*
 * Errors (IBTA 9.9.3 responder classes): RC NAKs with the error's
 * syndrome (roce_err_to_nak) once the output before it left, then goes
 * to ERR; a receive WQE involved completes with the error's status first.
 * UC/UD: an error on a receive WQE completes it and moves the QP to ERR;
 * any other error drops the message.
 */
static enum resp_step
step_error(struct resp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_resp_state *r = &qp->resp;

	resp_count(c, c->cnt);
	qp->stats.rx_drops++;
	/* a WQE taken from the SRQ exists only here: complete it too */
	if (c->wqe_err || (r->rwqe != NULL && r->rwqe_from_srq &&
			   qp_is_rc(qp)))
		resp_complete_wqe_error(qp, c->err);
	if (qp_is_rc(qp)) {
		r->ack_pending = true;
		r->ack_psn = c->psn;
		r->ack_syndrome = roce_err_to_nak(c->err);
		r->fatal = c->err;
		r->nak_sent = true;
		roce_worker_resp_pending(c->w, qp);
		return RESP_DONE;
	}
	if (c->wqe_err) {
		roce_qp_recv_error(qp, c->err);
		return RESP_DONE;
	}
	resp_abandon_message(c);
	if (!(c->flags & ROCE_OPF_LAST))
		r->drop_message = true;
	return RESP_DONE;
}

static const resp_step_fn resp_steps[RESP_DONE] = {
	[RESP_CHECK_PSN] = step_check_psn,
	[RESP_CHECK_OPSEQ] = step_check_opseq,
	[RESP_CHECK_OP] = step_check_op,
	[RESP_CHECK_RKEY] = step_check_rkey,
	[RESP_CHECK_RESOURCE] = step_check_resource,
	[RESP_EXECUTE] = step_execute,
	[RESP_COMPLETE] = step_complete,
	[RESP_ACK] = step_ack,
	[RESP_DUPLICATE] = step_duplicate,
	[RESP_ERROR] = step_error,
};

void
roce_resp_rx(struct roce_qp *qp, struct rte_mbuf *m, const void *pkt_v,
	     uint64_t now)
{
	const struct roce_pkt *pkt = pkt_v;
	struct resp_ctx c;
	enum resp_step step = RESP_CHECK_PSN;

	RTE_SET_USED(now);
	c.qp = qp;
	c.w = qp->w;
	c.pkt = pkt;
	c.m = m;
	c.flags = pkt->op->flags;
	c.opcode = pkt->opcode;
	c.psn = roce_bth_psn(roce_pkt_bth(pkt));
	c.plen = pkt->payload_len;
	c.host = NULL;
	c.res = NULL;
	c.err = ROCE_OK;
	c.cnt = ROCE_WCNT_MAX;
	c.wqe_err = false;
	/* a NAKed fatal error is on its way: the QP accepts nothing more */
	if (unlikely(qp->resp.fatal != ROCE_OK)) {
		c.cnt = ROCE_WCNT_RESP_OOS_DROP;
		step = RESP_DROP;
	}
	/* the SR extension only on a QP that negotiated it (roce_sr.h) */
	if (unlikely((pkt->op->flags & ROCE_OPF_SRX) && !roce_sr_on(qp) &&
		     step < RESP_DROP)) {
		qp->stats.sr_srx_drops++;
		step = RESP_DROP;
	}
	while (step < RESP_DROP)
		step = resp_steps[step](&c);
	/* SR: packets held ahead of ePSN now in order are taken over */
	if (unlikely(qp->resp.ooo.count != 0) &&
	    roce_sr_resp_merge(qp) > 0)
		roce_worker_resp_pending(c.w, qp);
	if (step == RESP_DROP) {
		if (c.cnt != ROCE_WCNT_MAX)
			resp_count(&c, c.cnt);
		qp->stats.rx_drops++;
	}
}

/* ------------------------------------------------------------------ */
/* Reset / fini                                                       */
/* ------------------------------------------------------------------ */

void
roce_resp_reset(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;
	uint32_t i;

	/* resource array, list membership and SRQ copy buffer survive */
	r->epsn = roce_psn_mask(qp->attr.rq_psn);
	r->msn = 0;
	r->last_opcode = 0;
	r->nak_sent = false;
	r->in_message = false;
	r->drop_message = false;
	r->va = 0;
	r->rkey = 0;
	memset(&r->wref, 0, sizeof(r->wref));
	memset(&r->rkc, 0, sizeof(r->rkc));
	memset(&r->lkc, 0, sizeof(r->lkc));
	r->rwqe = NULL;
	r->recv_off = 0;
	r->rwqe_from_srq = false;
	r->ack_pending = false;
	r->ack_psn = 0;
	r->ack_syndrome = 0;
	roce_resp_stop(qp);
	roce_timer_init(&r->ack_timer, roce_resp_ack_expired, qp);
	r->res_head = 0;
	r->res_count = 0;
	for (i = 0; r->res != NULL && i < r->res_cap; i++)
		memset(&r->res[i], 0, sizeof(r->res[i]));
	r->write_len = 0;
	r->write_off = 0;
	r->fatal = ROCE_OK;
}

bool
roce_resp_flush_held(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;
	bool ok = true;
	struct roce_wc wc;

	/*
	 * A WQE taken from the SRQ (a private copy, already consumed there)
	 * exists only here: whatever moved the QP to ERR (requester retry
	 * exhaustion, a CQ overrun, modify_qp), it completes as flushed
	 * (IBTA 10.3.1 Error state; 10.2.9: the SRQ's other WQEs stay for
	 * its other QPs). A WQE of the QP's own RQ is still in the RQ at
	 * rq.cons: the RQ flush completes it.
	 */
	if (r->rwqe != NULL && r->rwqe_from_srq) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = r->rwqe->wr_id;
		wc.status = ROCE_WC_WR_FLUSH_ERR;
		wc.vendor_err = ROCE_ERR_FLUSH;
		wc.opcode = ROCE_WC_RECV;
		wc.qp_num = qp->qpn;
		qp->stats.wr_flushed++;
		if (roce_cq_push(qp->rcq, &wc) != 0) {
			qp->stats.flush_cqe_lost++;
			ok = false;
		}
	}
	r->rwqe = NULL;
	r->rwqe_from_srq = false;
	r->recv_off = 0;
	r->in_message = false;
	return ok;
}


void
roce_resp_fini(struct roce_qp *qp)
{
	rte_free(qp->resp.srq_wqe);
	qp->resp.srq_wqe = NULL;
}
