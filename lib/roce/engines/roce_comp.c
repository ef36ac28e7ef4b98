/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer engine: processes what the responder of the peer sends back to
 * our requester (ACK, NAK, RNR NAK, READ responses, atomic ACKs), runs the
 * local ACK timeout and the RNR wait, and completes send WQEs in SQ order.
 *
 * roce_comp_rx() is an explicit state machine over one response:
 *
 *   CHECK_PSN --(dup / ghost)--> DROP
 *       |
 *   CLASSIFY --> ACK ------+
 *       |    --> SEQ_NAK --+
 *       |    --> RNR_NAK --+--> UPDATE --(verdict)--> DONE
 *       |    --> REM_NAK --+                      --> RETRY    (go-back-N)
 *       |    --> READ -----+                      --> RNR_WAIT (RNR timer)
 *       |    --> ATOMIC ---+                      --> FAIL (WQE error, QP ERR)
 *       +--(bad)--> DROP                          --> DROP
 *
 * - the response's PSN must lie in [comp.psn, req.psn_hwm): PSNs sent and
 *   not yet acknowledged (IBTA 9.7.5.2: older ones are duplicates, newer
 *   ones "ghosts"; both are dropped and counted);
 * - ACKs are cumulative and a NAK or a READ response/atomic ACK implicitly
 *   acknowledges every earlier PSN (IBTA 9.7.5.1.1, 9.7.5.2.1); an
 *   acknowledgement beyond a READ/atomic whose response never came means the
 *   response was lost: resend from it;
 * - UPDATE does the bookkeeping of forward progress (retry counters, local
 *   ACK timer, completions, requester wake-up) before the verdict runs.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "roce_engine.h"
#include "roce_hdr.h"
#include "roce_opcode.h"
#include "roce_parse.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_sr.h"
#include "roce_worker.h"

enum comp_state {
	COMP_CHECK_PSN,	/**< is the PSN one we sent and is not acknowledged? */
	COMP_CLASSIFY,	/**< by opcode and AETH syndrome */
	COMP_ACK,	/**< ACK: acknowledge up to its PSN */
	COMP_SEQ_NAK,	/**< NAK PSN sequence error */
	COMP_RNR_NAK,	/**< RNR NAK */
	COMP_REM_NAK,	/**< NAK invalid request / remote access / remote op */
	COMP_READ,	/**< READ response: place its data */
	COMP_ATOMIC,	/**< atomic ACK: return the original value */
	COMP_UPDATE,	/**< progress bookkeeping, then the verdict */
	COMP_RETRY,	/**< go-back-N from comp.psn */
	COMP_RNR_WAIT,	/**< wait the RNR timer, then resend */
	COMP_FAIL,	/**< a WQE fails: complete it in error, QP to ERR */
	COMP_DROP,	/**< ignore the packet (counted) */
	COMP_DONE,
};

/** Everything one response works on. */
struct comp_ctx {
	struct roce_qp *qp;
	const struct roce_pkt *pkt;
	const struct rte_mbuf *m;
	uint64_t now;
	uint32_t mtu;
	uint32_t psn;		/**< BTH PSN of the response */
	uint8_t syndrome;	/**< AETH syndrome (when there is an AETH) */
	uint32_t psn0;		/**< comp.psn when the packet arrived */
	uint32_t idx;		/**< WQE concerned (READ, ATOMIC, FAIL) */
	bool have_idx;
	enum roce_err err;	/**< COMP_FAIL: the cause */
	enum comp_state verdict; /**< what COMP_UPDATE goes to */
	bool sr_ooo;		/**< SR: READ response ahead of comp.psn */
	uint64_t *drop_cnt;	/**< COMP_DROP: the specific counter */
};

/* ------------------------------------------------------------------ */
/* Time                                                               */
/* ------------------------------------------------------------------ */

/** Local ACK timeout: 4.096 us * 2^timeout (IBTA 9.7.6.1.1), 0: none. */
static uint64_t
comp_timeout_tsc(const struct roce_qp *qp)
{
	uint8_t t = qp->timeout & 0x1f;

	if (t == 0)
		return 0;
	return roce_ns_to_tsc(4096ULL << t);
}

/**
 * RNR NAK timer field (IBTA 9.7.5.2.8, table 45), in units of 10 us:
 * 0 = 655.36 ms, 1 = 0.01 ms, ... 31 = 491.52 ms.
 */
static const uint32_t comp_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

static uint64_t
comp_rnr_tsc(uint8_t code)
{
	return roce_ns_to_tsc((uint64_t)comp_rnr_10us[code & 0x1f] * 10000);
}

static struct roce_timers *
comp_timers(struct roce_qp *qp)
{
	return roce_worker_timers(qp->w);
}

static void
comp_timer_arm(struct roce_qp *qp, struct roce_timer *t, uint64_t expire)
{
	if (roce_timer_arm(comp_timers(qp), t, expire) != 0) {
		qp->stats.timer_fails++;
		ROCE_LOG(ERR, comp, "qp %u: timer heap full", qp->qpn);
	}
}

/* ------------------------------------------------------------------ */
/* Completions                                                        */
/* ------------------------------------------------------------------ */

/**
 * Complete the WQE at sq.cons with @p err: the consumer index moves
 * (release: the poster may reuse the slot), then a CQE when it is signaled
 * or failed (IBTA 10.7.3.1: an error always completes). Returns -ENOSPC
 * when the CQ overflowed.
 */
static int
comp_complete_head(struct roce_qp *qp, struct roce_send_wqe *wqe,
		   enum roce_err err)
{
	struct roce_req_state *req = &qp->req;
	int ret = 0;

	if (qp->type == ROCE_QPT_RC && roce_wr_is_rd_atomic(wqe->opcode) &&
	    req->rd_atomic_inflight > 0)
		req->rd_atomic_inflight--;
	if (err != ROCE_OK || (wqe->send_flags & ROCE_SEND_SIGNALED) ||
	    qp->sig_all) {
		struct roce_wc wc = {
			.wr_id = wqe->wr_id,
			.status = roce_err_to_wc_status(err),
			.opcode = roce_wr_wc_opcode(wqe->opcode),
			.vendor_err = err,
			.qp_num = qp->qpn,
		};

		if (roce_wr_is_atomic(wqe->opcode))
			wc.byte_len = sizeof(uint64_t);
		else if (!roce_wr_is_local(wqe->opcode))
			wc.byte_len = wqe->length;
		/*
		 * The slot before the CQE: a poller on another thread may
		 * post into it as soon as it sees the completion.
		 */
		__atomic_store_n(&qp->sq.cons, qp->sq.cons + 1,
				 __ATOMIC_RELEASE);
		return roce_cq_push(qp->scq, &wc);
	}
	__atomic_store_n(&qp->sq.cons, qp->sq.cons + 1, __ATOMIC_RELEASE);
	return ret;
}

/** Wake the requester when a completion lifted what it waited for. */
static void
comp_kick_req(struct roce_qp *qp)
{
	struct roce_req_state *req = &qp->req;
	bool kick = false;

	if (req->wait_fence && req->rd_atomic_inflight == 0) {
		req->wait_fence = false;
		kick = true;
	}
	/* the attribute's line only when the requester waits on it */
	if (req->wait_rd_atomic && req->rd_atomic_inflight <
	    (uint32_t)RTE_MAX(qp->attr.max_rd_atomic, (uint8_t)1)) {
		req->wait_rd_atomic = false;
		kick = true;
	}
	if (kick)
		roce_worker_doorbell(qp->w, qp);
}

void
roce_comp_retire(struct roce_qp *qp)
{
	while (roce_idx_before(qp->sq.cons, qp->req.wqe_hwm)) {
		struct roce_send_wqe *wqe = roce_sq_wqe(qp, qp->sq.cons);
		enum roce_err err;

		if (wqe->state != ROCE_WQE_DONE && wqe->state != ROCE_WQE_ERROR)
			break;
		err = wqe->state == ROCE_WQE_ERROR ? wqe->status : ROCE_OK;
		if (comp_complete_head(qp, wqe, err) == -ENOSPC) {
			roce_qp_error(qp, ROCE_ERR_CQ_OVERFLOW);
			return;
		}
		if (err != ROCE_OK) {
			/* later WQEs are flushed by the QP (IBTA 10.3.1 ERR) */
			roce_qp_error(qp, err);
			return;
		}
	}
	comp_kick_req(qp);
	if (qp->sq_draining && !roce_idx_before(qp->sq.cons, qp->req.wqe_hwm))
		roce_qp_check_drained(qp);
}

/**
 * Fail WQE @p idx with @p err: the WQEs before it that are not finished
 * complete as flushed (their outcome at the peer is unknown, IBTA 10.3.1),
 * it completes with @p err, and the QP moves to ERR.
 */
static void
comp_fail_wqe(struct roce_qp *qp, uint32_t idx, enum roce_err err)
{
	roce_timer_cancel(comp_timers(qp), &qp->comp.retrans);
	roce_timer_cancel(comp_timers(qp), &qp->comp.rnr);
	roce_comp_retire(qp);
	if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == ROCE_QPS_ERR)
		return;
	while (roce_idx_before(qp->sq.cons, qp->req.wqe_hwm)) {
		struct roce_send_wqe *wqe = roce_sq_wqe(qp, qp->sq.cons);
		bool target = qp->sq.cons == idx;
		enum roce_err e = target ? err : ROCE_ERR_FLUSH;

		if (wqe->state == ROCE_WQE_DONE)
			e = ROCE_OK;
		else if (wqe->state == ROCE_WQE_ERROR && !target)
			e = wqe->status;
		if (comp_complete_head(qp, wqe, e) == -ENOSPC) {
			err = ROCE_ERR_CQ_OVERFLOW;
			break;
		}
		if (target)
			break;
	}
	ROCE_LOG(DEBUG, comp, "qp %u: wqe %u failed: %s", qp->qpn, idx,
		 roce_err_name(err));
	roce_qp_error(qp, err);
}

/** Oldest started WQE that is neither local nor finished, if any. */
static bool
comp_oldest_pending(const struct roce_qp *qp, uint32_t *idx)
{
	uint32_t i;

	for (i = qp->sq.cons; roce_idx_before(i, qp->req.wqe_hwm); i++) {
		const struct roce_send_wqe *wqe = roce_sq_wqe(qp, i);

		if (wqe->state == ROCE_WQE_DONE)
			continue;
		if (roce_wr_is_local(wqe->opcode) &&
		    wqe->state != ROCE_WQE_ERROR)
			continue;
		*idx = i;
		return true;
	}
	return false;
}

/** The started, unfinished WQE whose PSN range holds @p psn, if any. */
static bool
comp_find_wqe(const struct comp_ctx *c, uint32_t psn, uint32_t *idx)
{
	const struct roce_qp *qp = c->qp;
	uint32_t i;

	for (i = qp->sq.cons; roce_idx_before(i, qp->req.wqe_hwm); i++) {
		const struct roce_send_wqe *wqe = roce_sq_wqe(qp, i);

		if (roce_wr_is_local(wqe->opcode) ||
		    wqe->state == ROCE_WQE_DONE || wqe->state == ROCE_WQE_ERROR)
			continue;
		if (roce_psn_offset(psn, wqe->first_psn) <
		    roce_wqe_npsn(wqe, c->mtu)) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/**
 * Acknowledge every PSN up to and including @p last (cumulative ACK, IBTA
 * 9.7.5.1.1): SEND/WRITE WQEs it covers are done. A READ/atomic it covers
 * without its response having arrived lost that response: comp.psn stops
 * there and true is returned (resend from it, IBTA 9.7.5.2.1).
 */
static bool
comp_ack_through(struct comp_ctx *c, uint32_t last)
{
	struct roce_qp *qp = c->qp;
	uint32_t span = roce_psn_offset(last, qp->comp.psn) + 1;
	uint32_t i;

	for (i = qp->sq.cons; roce_idx_before(i, qp->req.wqe_hwm); i++) {
		struct roce_send_wqe *wqe = roce_sq_wqe(qp, i);

		if (roce_wr_is_local(wqe->opcode) ||
		    wqe->state == ROCE_WQE_DONE)
			continue;
		if (wqe->state == ROCE_WQE_ERROR)
			break;
		if (roce_psn_offset(wqe->last_psn, qp->comp.psn) >= span)
			break;		/* not entirely acknowledged */
		if (roce_wr_is_rd_atomic(wqe->opcode)) {
			if (roce_psn_after(wqe->first_psn, qp->comp.psn))
				qp->comp.psn = wqe->first_psn;
			return true;
		}
		wqe->state = ROCE_WQE_DONE;
	}
	qp->comp.psn = roce_psn_next(last);
	return false;
}

/** Copy @p len bytes from offset @p off of a (chained) mbuf to @p dst. */
static void
comp_copy_from_mbuf(const struct rte_mbuf *m, uint32_t off, uint8_t *dst,
		    uint32_t len)
{
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m != NULL && len > 0) {
		uint32_t n = RTE_MIN((uint32_t)(m->data_len - off), len);

		memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, off),
		       n);
		dst += n;
		len -= n;
		off = 0;
		m = m->next;
	}
}

/**
 * Scatter READ response data: message bytes [off, off + len) of @p wqe from
 * the payload, through the SGEs checked for local write (IBTA 10.6.3.1).
 */
static enum roce_err
comp_scatter(struct comp_ctx *c, const struct roce_send_wqe *wqe,
	     uint32_t off, uint32_t len)
{
	struct roce_qp *qp = c->qp;
	uint32_t src = c->pkt->payload_off;
	struct roce_sge_walk w;

	roce_sge_walk_init(&w, wqe->sge, wqe->num_sge, off, len);
	while (roce_sge_walk_next(&w)) {
		struct roce_key_ref ref;
		enum roce_err e;

		/* sge[0]: checked at post (local write) and unchanged since */
		if (w.i != 0 || !roce_wqe_sge0_ref(wqe, w.off, &ref)) {
			e = roce_key_check_local(qp->dev, qp->pd,
						 wqe->sge[w.i].lkey, w.addr, w.n,
						 ROCE_ACCESS_LOCAL_WRITE, &ref);
			if (e != ROCE_OK)
				return e;
		}
		comp_copy_from_mbuf(c->m, src, ref.host, w.n);
		src += w.n;
	}
	return w.len == 0 ? ROCE_OK : ROCE_ERR_LOC_LEN;
}

/* ------------------------------------------------------------------ */
/* States                                                             */
/* ------------------------------------------------------------------ */

static enum comp_state
comp_check_psn(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	uint32_t off = roce_psn_offset(c->psn, qp->comp.psn);

	if (qp->type != ROCE_QPT_RC) {
		c->drop_cnt = &qp->stats.bad_resps;
		return COMP_DROP;
	}
	if (off < roce_req_inflight(qp))
		return COMP_CLASSIFY;
	if (roce_psn_before(c->psn, qp->comp.psn)) {
		/* duplicate: e.g. the re-ACK of a resent packet (9.7.5.1.2) */
		c->drop_cnt = &qp->stats.dup_acks;
	} else {
		/* ghost: a PSN never sent */
		c->drop_cnt = &qp->stats.ghost_acks;
	}
	return COMP_DROP;
}

static enum comp_state
comp_classify(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	const struct roce_aeth *aeth = roce_pkt_aeth(c->pkt);
	uint8_t opcode = c->pkt->opcode;

	if (aeth != NULL)
		c->syndrome = roce_aeth_syndrome(aeth);
	/* the SR extension only on a QP that negotiated it (roce_sr.h) */
	if (unlikely((c->pkt->op->flags & ROCE_OPF_SRX) && !roce_sr_on(qp))) {
		c->drop_cnt = &qp->stats.sr_srx_drops;
		return COMP_DROP;
	}
	switch (opcode) {
	case ROCE_OP_RC_ACK:
		break;
	case ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_LAST:
	case ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY:
	case ROCE_OP_RC_ATOMIC_ACK:
		/* these carry an ACK syndrome only (IBTA 9.3.5) */
		if (aeth != NULL &&
		    roce_syndrome_type(c->syndrome) != ROCE_AETH_ACK) {
			c->drop_cnt = &qp->stats.bad_resps;
			return COMP_DROP;
		}
		return opcode == ROCE_OP_RC_ATOMIC_ACK ? COMP_ATOMIC :
							  COMP_READ;
	default:
		c->drop_cnt = &qp->stats.bad_resps;
		return COMP_DROP;
	}
	switch (roce_syndrome_type(c->syndrome)) {
	case ROCE_AETH_ACK:
		/* credits (IBTA 9.7.7.2) are not used to limit sending */
		qp->stats.acks_rx++;
		return COMP_ACK;
	case ROCE_AETH_RNR_NAK:
		qp->stats.rnr_naks_rx++;
		return COMP_RNR_NAK;
	case ROCE_AETH_NAK:
		qp->stats.naks_rx++;
		if (roce_syndrome_value(c->syndrome) == ROCE_NAK_PSN_SEQ_ERR) {
			qp->stats.seq_naks++;
			return COMP_SEQ_NAK;
		}
		return COMP_REM_NAK;
	default:
		c->drop_cnt = &qp->stats.bad_resps;
		return COMP_DROP;
	}
}

static enum comp_state
comp_ack(struct comp_ctx *c)
{
	c->verdict = comp_ack_through(c, c->psn) ? COMP_RETRY : COMP_DONE;
	return COMP_UPDATE;
}

/*
 * NAK PSN sequence error (IBTA 9.7.5.2.2): the responder expects PSN p;
 * everything before p is acknowledged, resend from p (go-back-N).
 */
static enum comp_state
comp_seq_nak(struct comp_ctx *c)
{
	if (c->psn != c->qp->comp.psn)
		comp_ack_through(c, roce_psn_prev(c->psn));
	c->verdict = COMP_RETRY;
	return COMP_UPDATE;
}

/*
 * RNR NAK (IBTA 9.7.5.2.8): the request at p found no receive WQE; earlier
 * PSNs are acknowledged; resend p after the timer the syndrome names.
 */
static enum comp_state
comp_rnr_nak(struct comp_ctx *c)
{
	if (c->psn != c->qp->comp.psn &&
	    comp_ack_through(c, roce_psn_prev(c->psn))) {
		c->verdict = COMP_RETRY;	/* an earlier response was lost */
		return COMP_UPDATE;
	}
	c->verdict = COMP_RNR_WAIT;
	return COMP_UPDATE;
}

/*
 * NAK invalid request / remote access / remote operational error (IBTA
 * 9.7.5.2.3-5): earlier PSNs are acknowledged, the request at p fails with
 * the error the syndrome names and the QP goes to ERR.
 */
static enum comp_state
comp_rem_nak(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;

	if (c->psn != qp->comp.psn)
		comp_ack_through(c, roce_psn_prev(c->psn));
	c->err = roce_err_from_nak(c->syndrome);
	c->have_idx = comp_find_wqe(c, c->psn, &c->idx);
	c->verdict = COMP_FAIL;
	return COMP_UPDATE;
}

/**
 * Locate the READ/atomic WQE a response belongs to (c->idx), acknowledge
 * what lies before it (a response implicitly ACKs earlier requests, IBTA
 * 9.7.5.1.1), and check the response is the one expected (its PSN is
 * comp.psn). Returns true when the caller goes on with the data; otherwise
 * *next is the state to go to.
 */
static bool
comp_locate_response(struct comp_ctx *c, bool atomic, enum comp_state *next)
{
	struct roce_qp *qp = c->qp;
	struct roce_send_wqe *wqe;

	if (!comp_find_wqe(c, c->psn, &c->idx)) {
		c->drop_cnt = &qp->stats.bad_resps;
		*next = COMP_DROP;
		return false;
	}
	wqe = roce_sq_wqe(qp, c->idx);
	if (atomic ? !roce_wr_is_atomic(wqe->opcode) :
		     wqe->opcode != ROCE_WR_RDMA_READ) {
		/* a response for a PSN of a SEND/WRITE: not ours */
		c->drop_cnt = &qp->stats.bad_resps;
		*next = COMP_DROP;
		return false;
	}
	*next = COMP_UPDATE;
	if (roce_psn_after(wqe->first_psn, qp->comp.psn) &&
	    comp_ack_through(c, roce_psn_prev(wqe->first_psn))) {
		c->verdict = COMP_RETRY;	/* an earlier response was lost */
		return false;
	}
	if (c->psn != qp->comp.psn) {
		uint64_t t = roce_sr_rto_push(qp, c->now);

		/* response packets before this one were lost (9.7.5.2.1) */
		qp->stats.out_of_seq++;
		/* the responder is sending: no early round meanwhile */
		if (t != 0)
			comp_timer_arm(qp, &qp->comp.retrans, t);
		if (!atomic && roce_sr_on(qp)) {
			/* SR: placed at its offset, unless held already */
			if (roce_sr_map_test(&qp->comp.sack, c->psn)) {
				c->drop_cnt = &qp->stats.dup_acks;
				*next = COMP_DROP;
				return false;
			}
			c->sr_ooo = true;
			return true;
		}
		c->verdict = COMP_RETRY;
		return false;
	}
	return true;
}

/*
 * READ response (IBTA 9.4.3, 9.7.5.1): PSN k of the READ carries message
 * bytes [k * MTU, ...). FIRST/MIDDLE are full MTU packets with more to
 * come, LAST/ONLY carry exactly the rest; MIDDLE/LAST cannot be the first
 * packet of a READ. A retried READ may start with FIRST/ONLY anywhere.
 */
static enum comp_state
comp_read(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_send_wqe *wqe;
	uint32_t off, rest, len = c->pkt->payload_len;
	uint8_t op = c->pkt->opcode;
	enum comp_state next;
	bool ok, last;
	enum roce_err e;

	if (!comp_locate_response(c, false, &next))
		return next;
	wqe = roce_sq_wqe(qp, c->idx);
	off = roce_psn_offset(c->psn, wqe->first_psn) * c->mtu;
	rest = wqe->length - off;
	switch (op) {
	case ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST:
		ok = len == c->mtu && rest > c->mtu;
		break;
	case ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE:
		ok = off > 0 && len == c->mtu && rest > c->mtu;
		break;
	case ROCE_OP_RC_RDMA_READ_RESPONSE_LAST:
		ok = off > 0 && len == rest && rest <= c->mtu;
		break;
	default:	/* ONLY */
		ok = len == rest && rest <= c->mtu;
		break;
	}
	if (!ok) {
		qp->stats.bad_resps++;
		c->err = ROCE_ERR_BAD_RESP;
		c->have_idx = true;
		c->verdict = COMP_FAIL;
		return COMP_UPDATE;
	}
	e = comp_scatter(c, wqe, off, len);
	if (e != ROCE_OK) {
		c->err = e;
		c->have_idx = true;
		c->verdict = COMP_FAIL;
		return COMP_UPDATE;
	}
	last = op == ROCE_OP_RC_RDMA_READ_RESPONSE_LAST ||
	       op == ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	c->verdict = COMP_DONE;
	if (c->sr_ooo) {
		/* SR: recorded; the round asks again for the gap only */
		roce_sr_comp_read_ooo(qp, c->psn);
		c->verdict = COMP_RETRY;
		return COMP_UPDATE;
	}
	qp->comp.rd_offset = off + len;
	qp->comp.psn = roce_psn_next(c->psn);
	if (unlikely(qp->comp.sack.count != 0) && !last &&
	    roce_sr_comp_read_merge(qp, wqe->last_psn) != 0) {
		/* SR: packets placed ahead are now in order */
		last = roce_psn_after(qp->comp.psn, wqe->last_psn);
		if (!last && qp->comp.sack.count != 0)
			c->verdict = COMP_RETRY;	/* the next gap is known */
	}
	if (last)
		wqe->state = ROCE_WQE_DONE;
	return COMP_UPDATE;
}

/* Atomic ACK (IBTA 9.4.5): the original remote value goes to the SGE. */
static enum comp_state
comp_atomic(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	const struct roce_atmack *ack = roce_pkt_atmack(c->pkt);
	struct roce_send_wqe *wqe;
	struct roce_key_ref ref;
	enum comp_state next;
	uint64_t orig;
	enum roce_err e;

	if (!comp_locate_response(c, true, &next))
		return next;
	wqe = roce_sq_wqe(qp, c->idx);
	orig = roce_atmack_orig(ack);
	/* checked at post (local write) and unchanged since: one load */
	e = roce_wqe_sge0_ref(wqe, 0, &ref) ? ROCE_OK :
		roce_key_check_local(qp->dev, qp->pd, wqe->sge[0].lkey,
				     wqe->sge[0].addr, sizeof(orig),
				     ROCE_ACCESS_LOCAL_WRITE, &ref);
	if (e != ROCE_OK) {
		c->err = e;
		c->have_idx = true;
		c->verdict = COMP_FAIL;
		return COMP_UPDATE;
	}
	memcpy(ref.host, &orig, sizeof(orig));
	qp->comp.psn = roce_psn_next(c->psn);
	wqe->state = ROCE_WQE_DONE;
	c->verdict = COMP_DONE;
	return COMP_UPDATE;
}

/*
 * Forward progress (comp.psn moved): the retry counters start again
 * (IBTA 9.7.6.1.3: they count retries of the same PSN), the local ACK
 * timer restarts for what is still outstanding or stops, finished WQEs
 * complete, and the requester may use the window that opened.
 */
static enum comp_state
comp_update(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_comp_state *comp = &qp->comp;

	if (roce_sr_on(qp))
		roce_sr_comp_sync(qp, c->pkt);
	if (comp->psn != c->psn0) {
		uint64_t tmo = comp_timeout_tsc(qp);
		uint32_t acked = roce_psn_offset(comp->psn, c->psn0);

		roce_sr_rtt_acked(qp, c->now);
		roce_req_cwnd_ack(qp, acked);
		roce_cc_acked(qp, qp->cc_window, acked);
		comp->retry_left = qp->retry_cnt;
		comp->rnr_retry_left = qp->rnr_retry;
		comp->retry_pending = false;
		if (roce_req_inflight(qp) > 0 && tmo != 0)
			comp_timer_arm(qp, &comp->retrans,
				       roce_sr_rto(qp, c->now, tmo, false));
		else
			roce_timer_cancel(comp_timers(qp), &comp->retrans);
		roce_worker_doorbell(qp->w, qp);
	}
	roce_comp_retire(qp);
	if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == ROCE_QPS_ERR)
		return COMP_DONE;
	return c->verdict;
}

/*
 * Go-back-N from comp.psn (IBTA 9.7.5.2.2). Decision on the transport
 * retry counter: a NAK, a lost READ response or a lost atomic ACK that
 * came with forward progress does not consume a retry (the responder is
 * alive and said where to resume); one without progress does, like a
 * timeout, so a peer that keeps NAKing the same PSN ends in RETRY_EXC.
 * Only one round is started per PSN: later NAKs or out-of-sequence
 * responses for the same PSN are ignored until progress or a timeout.
 */
static enum comp_state
comp_retry(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_comp_state *comp = &qp->comp;
	uint32_t idx;

	if (comp->retry_pending && comp->retry_psn == comp->psn) {
		/* SR: new SACKs may show holes the round does not cover */
		if (roce_sr_on(qp) && roce_sr_round_extend(qp))
			roce_worker_doorbell(qp->w, qp);
		return COMP_DONE;
	}
	if (comp->psn == c->psn0) {
		if (comp->retry_left == 0) {
			if (comp_oldest_pending(qp, &idx))
				comp_fail_wqe(qp, idx, ROCE_ERR_RETRY_EXC);
			return COMP_DONE;
		}
		comp->retry_left--;
	}
	/*
	 * a loss: the round resends at half the window. SR (IRN) keeps the
	 * window: loss recovery is decoupled from congestion control (ECN,
	 * roce_cc) and the SR window bounds what is in flight (roce_sr.h).
	 */
	if (!roce_sr_on(qp))
		roce_req_cwnd_cut(qp, false);
	comp->retry_pending = true;
	comp->retry_psn = comp->psn;
	roce_sr_round(qp, false);
	qp->req.need_retry = true;
	roce_worker_doorbell(qp->w, qp);
	return COMP_DONE;
}

/* RNR NAK: wait, then resend from comp.psn; rnr_retry 7 is infinite. */
static enum comp_state
comp_rnr_wait(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_comp_state *comp = &qp->comp;

	if (comp->rnr_retry_left == 0) {
		c->err = ROCE_ERR_RNR_RETRY_EXC;
		c->have_idx = comp_find_wqe(c, c->psn, &c->idx);
		return COMP_FAIL;
	}
	if (comp->rnr_retry_left != 7)
		comp->rnr_retry_left--;
	roce_timer_cancel(comp_timers(qp), &comp->retrans);
	qp->req.wait_rnr = true;
	comp_timer_arm(qp, &comp->rnr,
		       c->now + comp_rnr_tsc(roce_syndrome_value(c->syndrome)));
	return COMP_DONE;
}

static enum comp_state
comp_fail(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;
	uint32_t idx;

	if (c->have_idx)
		idx = c->idx;
	else if (!comp_oldest_pending(qp, &idx))
		idx = qp->sq.cons;
	comp_fail_wqe(qp, idx, c->err);
	return COMP_DONE;
}

static enum comp_state
comp_drop(struct comp_ctx *c)
{
	struct roce_qp *qp = c->qp;

	qp->stats.rx_drops++;
	if (c->drop_cnt != NULL)
		(*c->drop_cnt)++;
	return COMP_DONE;
}

void
roce_comp_rx(struct roce_qp *qp, struct rte_mbuf *m, const void *pkt,
	     uint64_t now)
{
	const struct roce_pkt *p = pkt;
	struct comp_ctx c = {
		.qp = qp,
		.pkt = p,
		.m = m,
		.now = now,
		.mtu = roce_qp_mtu(qp),
		.psn = roce_bth_psn(roce_pkt_bth(p)),
		.psn0 = qp->comp.psn,
	};
	enum comp_state s = COMP_CHECK_PSN;

	while (s != COMP_DONE) {
		switch (s) {
		case COMP_CHECK_PSN:
			s = comp_check_psn(&c);
			break;
		case COMP_CLASSIFY:
			s = comp_classify(&c);
			break;
		case COMP_ACK:
			s = comp_ack(&c);
			break;
		case COMP_SEQ_NAK:
			s = comp_seq_nak(&c);
			break;
		case COMP_RNR_NAK:
			s = comp_rnr_nak(&c);
			break;
		case COMP_REM_NAK:
			s = comp_rem_nak(&c);
			break;
		case COMP_READ:
			s = comp_read(&c);
			break;
		case COMP_ATOMIC:
			s = comp_atomic(&c);
			break;
		case COMP_UPDATE:
			s = comp_update(&c);
			break;
		case COMP_RETRY:
			s = comp_retry(&c);
			break;
		case COMP_RNR_WAIT:
			s = comp_rnr_wait(&c);
			break;
		case COMP_FAIL:
			s = comp_fail(&c);
			break;
		case COMP_DROP:
			s = comp_drop(&c);
			break;
		case COMP_DONE:
			break;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Timers                                                             */
/* ------------------------------------------------------------------ */

/*
 * Local ACK timeout (IBTA 9.7.6.1.1): nothing acknowledged in time.
 * Resend from comp.psn while retries are left; then the oldest pending WQE
 * fails with RETRY_EXC and the QP goes to ERR (IBTA 9.7.6.1.3). So a
 * packet is sent at most retry_cnt + 1 times.
 */
static void
comp_retrans_expired(struct roce_timer *t, uint64_t now)
{
	struct roce_qp *qp = t->arg;
	struct roce_comp_state *comp = &qp->comp;
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	uint64_t next, tmo;
	uint32_t idx;

	if ((state != ROCE_QPS_RTS && state != ROCE_QPS_SQD) ||
	    roce_req_inflight(qp) == 0 || qp->req.wait_rnr)
		return;
	/*
	 * The early timer (roce_sr.h; selective repeat and go-back-N alike):
	 * RTO_low at the tail (tail-loss probe), early rounds at the
	 * measured RTO, the full timeout later
	 */
	next = roce_sr_rto_expired(qp, now, comp_oldest_pending(qp, &idx) &&
				   roce_sq_wqe(qp, idx)->opcode ==
				   ROCE_WR_RDMA_READ);
	if (next != 0) {
		comp_timer_arm(qp, &comp->retrans, next);
		return;
	}
	qp->stats.timeouts++;
	if (comp->retry_left == 0) {
		roce_comp_retire(qp);
		if (comp_oldest_pending(qp, &idx))
			comp_fail_wqe(qp, idx, ROCE_ERR_RETRY_EXC);
		return;
	}
	comp->retry_left--;
	/* nothing came back in time: resend from the window's floor */
	roce_req_cwnd_cut(qp, true);
	comp->retry_pending = true;
	comp->retry_psn = comp->psn;
	roce_sr_round(qp, true);
	qp->req.need_retry = true;
	/*
	 * The timer again now, not only when the round sends (roce_comp_sent):
	 * a round the requester cannot start (the pacer's tokens, a window
	 * that the cut made smaller than what is out) must still end in the
	 * next timeout, never in a QP that waits for nothing.
	 */
	tmo = comp_timeout_tsc(qp);
	if (tmo != 0)
		comp_timer_arm(qp, &comp->retrans,
			       roce_sr_rto(qp, now, tmo, false));
	roce_worker_doorbell(qp->w, qp);
}

/* The RNR wait is over: resend from the NAKed PSN. */
static void
comp_rnr_expired(struct roce_timer *t, uint64_t now)
{
	struct roce_qp *qp = t->arg;

	RTE_SET_USED(now);
	qp->req.wait_rnr = false;
	roce_sr_round(qp, true);
	qp->req.need_retry = true;
	qp->comp.retry_pending = true;
	qp->comp.retry_psn = qp->comp.psn;
	roce_worker_doorbell(qp->w, qp);
}

void
roce_comp_sent(struct roce_qp *qp, uint64_t now)
{
	uint64_t tmo;

	if (roce_timer_armed(&qp->comp.retrans))
		return;
	tmo = comp_timeout_tsc(qp);
	if (tmo != 0)
		comp_timer_arm(qp, &qp->comp.retrans,
			       roce_sr_rto(qp, now, tmo, true));
}

void
roce_comp_reset(struct roce_qp *qp)
{
	struct roce_comp_state *comp = &qp->comp;

	roce_timer_cancel(comp_timers(qp), &comp->retrans);
	roce_timer_cancel(comp_timers(qp), &comp->rnr);
	memset(comp, 0, sizeof(*comp));
	roce_timer_init(&comp->retrans, comp_retrans_expired, qp);
	roce_timer_init(&comp->rnr, comp_rnr_expired, qp);
	comp->psn = roce_psn_mask(qp->attr.sq_psn);
	comp->retry_left = qp->attr.retry_cnt;
	comp->rnr_retry_left = qp->attr.rnr_retry;
}
