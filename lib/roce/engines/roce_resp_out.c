/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's output (roce_resp.h): what roce_resp_rx() left waiting in
 * the QP's responder state goes from the worker's poll, in PSN order, at
 * most RESP_BUDGET packets per QP per poll, none while the port refuses
 * frames (roce_worker_tx_room()): READ responses (paced by DCQCN), atomic
 * ACKs, then the coalesced ACK or the NAK. ACK coalescing:
 * roce_resp.c's step_ack holds an ACK for up to ack_pkts packets or ack_us
 * (the timer here); an ACK, a NAK or a response for a later PSN covers the
 * held packets.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "roce_cc.h"
#include "roce_engine.h"
#include "roce_icrc_priv.h"
#include "roce_parse.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_resp_priv.h"
#include "roce_sr.h"
#include "roce_txbuf.h"
#include "roce_worker.h"

/** Response packets one roce_resp_run() call builds for a QP. */
#define RESP_BUDGET 32

static uint8_t
resp_ack_syndrome(const struct roce_qp *qp)
{
	static const uint32_t credit[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768,
	};
	uint32_t avail, code;

	if (qp->srq != NULL)
		return roce_syndrome(ROCE_AETH_ACK, ROCE_AETH_CREDIT_INVALID);
	avail = rq_avail(qp);
	for (code = 30; code > 0 && credit[code] > avail; code--)
		;
	return roce_syndrome(ROCE_AETH_ACK, (uint8_t)code);
}

/* ------------------------------------------------------------------ */
/* Output: frames built from the QP path                              */
/* ------------------------------------------------------------------ */

/* Append @p len bytes from @p src to @p m, chaining segments as needed. */
static int
mbuf_append_data(struct rte_mempool *mp, struct rte_mbuf *m, const uint8_t *src,
		 uint32_t len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m), *seg;
	uint32_t room, n;
	char *dst;

	while (len != 0) {
		room = rte_pktmbuf_tailroom(last);
		if (room == 0) {
			seg = rte_pktmbuf_alloc(mp);
			if (seg == NULL)
				return -ENOMEM;
			/* payload segments need no headroom */
			seg->data_off = 0;
			if (rte_pktmbuf_chain(m, seg) != 0) {
				rte_pktmbuf_free(seg);
				return -EOVERFLOW;
			}
			last = seg;
			continue;
		}
		n = RTE_MIN(room, len);
		dst = rte_pktmbuf_append(m, (uint16_t)n);
		if (dst == NULL)	/* appends to the last segment: fits */
			return -ENOSPC;
		memcpy(dst, src, n);
		src += n;
		len -= n;
	}
	/* the builder puts pad and ICRC in the last segment's tailroom */
	if (rte_pktmbuf_tailroom(last) < 3 + ROCE_ICRC_LEN) {
		seg = rte_pktmbuf_alloc(mp);
		if (seg == NULL)
			return -ENOMEM;
		seg->data_off = 0;
		if (rte_pktmbuf_chain(m, seg) != 0) {
			rte_pktmbuf_free(seg);
			return -EOVERFLOW;
		}
	}
	return 0;
}

/*
 * Build and queue one response: the QP's path with @p f's BTH/extension
 * fields, @p len payload bytes from @p payload (of the key checked into
 * @p ref, or NULL). Returns 0 or -ENOMEM (the caller keeps its state and
 * retries on the next poll).
 */
static int
resp_send(struct roce_qp *qp, struct roce_hdr_fields *f, const uint8_t *payload,
	  uint32_t len, const struct roce_key_ref *ref)
{
	struct rte_mempool *mp = qp->dev->cfg.hdr_pool;
	struct roce_worker *w = qp->w;
	struct rte_mbuf *m;
	int rc;

	m = roce_worker_hdr_mbuf(w);
	if (unlikely(m == NULL))
		goto nomem;
	/*
	 * READ response data (one contiguous range of the MR checked by the
	 * request) is attached zero-copy when large enough (roce_txbuf.h);
	 * no IOVA for it (-ENOTSUP) or a small payload: copied.
	 */
	rc = -ENOTSUP;
	if (payload != NULL && roce_txbuf_zc_ok(&qp->dev->cfg, len)) {
		struct roce_txbuf_count zcc = roce_key_ref_zc(qp->dev, ref);

		rc = roce_txbuf_attach_ref(roce_txbuf_pool(&qp->dev->cfg),
					   roce_worker_zc_pf(w), m, payload,
					   len, roce_key_ref_iova(ref, payload, len,
						roce_worker_iova_cache(w)),
					   &zcc);
	}
	if (rc == 0)
		qp->stats.tx_zc_pkts++;
	else if (unlikely(mbuf_append_data(mp, m, payload, len) != 0)) {
		rte_pktmbuf_free(m);
		goto nomem;
	}
	/* RC only: the path's prebuilt headers (roce_build_mbuf_tmpl()) */
	rc = likely(qp->hdr_len != 0) ?
		roce_build_mbuf_tmpl(m, qp->hdr_tmpl, qp->hdr_len, f) :
		roce_build_mbuf(m, f);
	if (rc == 0)
		rc = roce_icrc_fill_built(m);
	if (unlikely(rc != 0)) {
		/* the path was accepted by the builder at modify time */
		ROCE_LOG(ERR, resp, "qp %u: cannot build opcode 0x%02x: %d",
			 qp->qpn, f->opcode, rc);
		rte_pktmbuf_free(m);
		goto nomem;
	}
	qp->stats.tx_pkts++;
	qp->stats.tx_bytes += len;
	roce_worker_tx(w, m);
	return 0;
nomem:
	w->cnt[ROCE_WCNT_RESP_NO_MBUF]++;
	return -ENOMEM;
}

/*
 * Fields of a response of @p opcode at @p psn. With the path's prebuilt
 * headers (RC after RTR) the builder reads only the BTH and extension
 * fields (roce_build_mbuf_tmpl()): those come from the QP's per-packet
 * copies, and qp->path (three cache lines) is not read.
 */
static inline void
resp_fields(const struct roce_qp *qp, struct roce_hdr_fields *f,
	    uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	if (likely(qp->hdr_len != 0)) {
		f->mig = false;
		f->fecn = false;
		f->becn = false;
		f->pkey = qp->pkey;
		f->dqpn = qp->dest_qpn;
		f->srx = NULL;
		f->orig = 0;
	} else {
		*f = qp->path;
	}
	f->opcode = opcode;
	f->psn = roce_psn_mask(psn);
	f->ackreq = false;
	f->se = false;
	f->syndrome = syndrome;
	f->msn = msn & ROCE_PSN_MASK;
}

void
roce_resp_ack_covered(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;

	r->unacked = 0;
	if (roce_timer_armed(&r->ack_timer))
		roce_timer_cancel(roce_worker_timers(qp->w), &r->ack_timer);
}

/* A held ACK's time is up: it goes with the QP's next output. */
void
roce_resp_ack_expired(struct roce_timer *t, uint64_t now)
{
	struct roce_qp *qp = t->arg;
	struct roce_resp_state *r = &qp->resp;

	RTE_SET_USED(now);
	if (r->unacked == 0 || r->ack_pending)
		return;
	r->ack_pending = true;
	qp->w->cnt[ROCE_WCNT_RESP_ACKS_TIMED]++;
	roce_worker_resp_pending(qp->w, qp);
}

/* ------------------------------------------------------------------ */
/* Output: roce_resp_run()                                            */
/* ------------------------------------------------------------------ */

/* One READ response packet of @p res (IBTA 9.7.5.2.3). */
static int
resp_send_read(struct roce_qp *qp, struct roce_resp_res *res)
{
	struct roce_hdr_fields f;
	uint32_t mtu = roce_qp_mtu(qp);
	uint32_t left = res->length - res->cur_off;
	uint32_t n = RTE_MIN(left, mtu);
	bool first = res->cur_psn == res->start_psn;
	bool last = res->cur_psn == res->last_psn;
	uint8_t op;

	/* the region went away since the request was checked */
	if (unlikely(!roce_key_ref_valid(&res->ref)))
		return -EACCES;
	if (first && last)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	else if (first)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST;
	else if (last)
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_LAST;
	else
		op = ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
	/* AETH (FIRST, LAST, ONLY) carries the credits and the MSN */
	resp_fields(qp, &f, op, res->cur_psn, resp_ack_syndrome(qp), res->msn);
	if (resp_send(qp, &f, res->host != NULL ? res->host + res->cur_off :
		      NULL, n, &res->ref) != 0)
		return -ENOMEM;
	qp->w->cnt[ROCE_WCNT_RESP_READ_PKTS]++;
	res->cur_off += n;
	if (last || res->cur_psn == res->stop_psn)
		res->pending = false;
	if (!last)
		res->cur_psn = roce_psn_next(res->cur_psn);
	return 0;
}

/*
 * The region of a READ being answered was deregistered (or invalidated)
 * meanwhile: the rest of the response is not sent; a remote access error
 * NAK at the next response PSN ends it and the QP goes to ERR, as for a
 * bad R_Key (IBTA 9.7.5.2.3 leaves the mid-response case to the
 * responder; Linux rxe re-checks the MR per packet the same way).
 */
static void
resp_read_revoked(struct roce_qp *qp, struct roce_resp_res *res)
{
	struct roce_resp_state *r = &qp->resp;
	uint32_t i;

	for (i = 0; i < r->res_count; i++)
		res_at(r, i)->pending = false;
	r->ack_pending = true;
	r->ack_psn = res->cur_psn;
	r->ack_syndrome = roce_err_to_nak(ROCE_ERR_LOC_ACCESS);
	r->fatal = ROCE_ERR_LOC_ACCESS;
	r->nak_sent = true;
	qp->stats.rx_drops++;
	qp->w->cnt[ROCE_WCNT_RESP_REM_ACCESS]++;
}

/* The atomic ACK of @p res: AETH + AtomicAckETH (IBTA 9.3.5, 9.3.6). */
static int
resp_send_atomic_ack(struct roce_qp *qp, struct roce_resp_res *res)
{
	struct roce_hdr_fields f;

	resp_fields(qp, &f, ROCE_OP_RC_ATOMIC_ACK, res->first_psn,
		    resp_ack_syndrome(qp), res->msn);
	f.orig = res->atomic_orig;
	if (resp_send(qp, &f, NULL, 0, NULL) != 0)
		return -ENOMEM;
	qp->w->cnt[ROCE_WCNT_RESP_ATOMIC_ACKS]++;
	res->pending = false;
	return 0;
}

/* The coalesced ACK or the NAK (IBTA 9.7.5.2.1). */
static int
resp_send_ack(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;
	struct roce_hdr_fields f;
	uint8_t syn = r->ack_syndrome;
	uint8_t srx[ROCE_SRX_SACK_LEN];
	uint32_t psn = r->ack_psn;
	bool sack = false;

	if (roce_syndrome_type(syn) == ROCE_AETH_ACK)
		syn = resp_ack_syndrome(qp);
	if (roce_sr_on(qp))
		sack = roce_sr_resp_sack(qp, &psn, &syn, srx);
	resp_fields(qp, &f, ROCE_OP_RC_ACK, psn, syn, r->msn);
	if (sack)
		f.srx = srx;
	if (resp_send(qp, &f, NULL, 0, NULL) != 0)
		return -ENOMEM;
	if (roce_syndrome_type(syn) == ROCE_AETH_ACK) {
		qp->stats.acks_tx++;
		qp->w->cnt[ROCE_WCNT_RESP_ACKS]++;
	} else {
		qp->stats.naks_tx++;
	}
	r->ack_pending = false;
	roce_resp_ack_covered(qp);
	return 0;
}

int
roce_resp_run(struct roce_qp *qp, uint64_t now)
{
	struct roce_resp_state *r = &qp->resp;
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	struct roce_resp_res *res;
	int sent = 0;
	uint32_t i;

	/* IBTA 10.3.1: RESET, INIT and ERR send no responses */
	if (unlikely(state == ROCE_QPS_ERR || state <= ROCE_QPS_INIT)) {
		r->ack_pending = false;
		for (i = 0; i < r->res_count; i++)
			res_at(r, i)->pending = false;
		return 0;
	}
	/* responses in PSN order: resources first, oldest first */
	for (i = 0; i < r->res_count; i++) {
		res = res_at(r, i);
		while (res->pending && sent < RESP_BUDGET) {
			bool rd = res->opcode == ROCE_OP_RC_RDMA_READ_REQUEST;
			uint32_t len = res->length - res->cur_off;
			int rc;

			/* DCQCN (roce_cc.c): a limited QP paces its READ
			 * responses; its timer re-queues the QP */
			if (rd && !roce_cc_resp_pace_ok(qp, qp->cc_limited, now))
				return sent;
			/* the port refuses frames: the poll keeps the turn */
			if (unlikely(!roce_worker_tx_room(qp->w)))
				return -EBUSY;
			rc = rd ? resp_send_read(qp, res) :
				resp_send_atomic_ack(qp, res);
			if (unlikely(rc == -EACCES)) {
				resp_read_revoked(qp, res);
				break;
			}
			if (rc != 0)
				goto again;
			sent++;
			if (rd)
				roce_cc_charge(qp, qp->cc_limited, RTE_MIN(len,
					roce_qp_mtu(qp)) + qp->hdr_len + 20u, now);
		}
		if (res->pending)
			goto again;
	}
	/* the ACK/NAK goes after every response for earlier PSNs */
	if (r->ack_pending) {
		if (unlikely(!roce_worker_tx_room(qp->w)))
			return -EBUSY;
		if (resp_send_ack(qp) != 0)
			goto again;
		sent++;
	}
	if (unlikely(r->fatal != ROCE_OK)) {
		enum roce_err cause = r->fatal;

		r->fatal = ROCE_OK;
		roce_qp_recv_error(qp, cause);
	}
	return sent;
again:
	roce_worker_resp_pending(qp->w, qp);
	return sent;
}

void
roce_resp_stop(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;

	r->unacked = 0;
	if (roce_timer_armed(&r->ack_timer))
		roce_timer_cancel(roce_worker_timers(qp->w), &r->ack_timer);
}
