/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selective repeat (IRN-style) for RC between two softernic ends: PSN
 * maps, the wire extension, and the parts of the responder, completer and
 * requester that differ from go-back-N. See roce_sr.h for the design and
 * doc/guides/selective-repeat.rst for the wire format.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "roce_engine.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_sr.h"

static_assert((ROCE_PSN_MASK + 1) % ROCE_SR_WINDOW == 0,
	      "the PSN space must be a multiple of the SR window");
static_assert(ROCE_SRX_SACK_LEN == 4 + ROCE_SR_WINDOW / 8,
	      "the SACK extension carries one window");

/* ------------------------------------------------------------------ */
/* PSN maps                                                           */
/* ------------------------------------------------------------------ */

static inline uint32_t
map_slot(uint32_t psn)
{
	return psn & (ROCE_SR_WINDOW - 1);
}

static inline bool
map_in(const struct roce_sr_map *m, uint32_t psn)
{
	return roce_psn_offset(psn, m->base) < ROCE_SR_WINDOW;
}

static inline bool
map_bit(const struct roce_sr_map *m, uint32_t psn)
{
	uint32_t s = map_slot(psn);

	return (m->bits[s / 64] >> (s % 64)) & 1;
}

void
roce_sr_map_reset(struct roce_sr_map *m, uint32_t base)
{
	memset(m, 0, sizeof(*m));
	m->base = roce_psn_mask(base);
}

bool
roce_sr_map_test(const struct roce_sr_map *m, uint32_t psn)
{
	return m->count != 0 && map_in(m, psn) && map_bit(m, psn);
}

int
roce_sr_map_set(struct roce_sr_map *m, uint32_t psn)
{
	uint32_t s = map_slot(psn);

	if (!map_in(m, psn))
		return -ERANGE;
	if (map_bit(m, psn))
		return 0;
	m->bits[s / 64] |= 1ULL << (s % 64);
	m->count++;
	return 1;
}

void
roce_sr_map_advance(struct roce_sr_map *m, uint32_t base)
{
	uint32_t n = roce_psn_offset(base, m->base);

	if (n == 0 || n >= ROCE_PSN_HALF)
		return;		/* not forward */
	if (n >= ROCE_SR_WINDOW || m->count == 0) {
		memset(m->bits, 0, sizeof(m->bits));
		m->count = 0;
	} else {
		uint32_t psn = m->base;

		for (; n > 0 && m->count > 0; n--, psn = roce_psn_next(psn)) {
			uint32_t s = map_slot(psn);

			if (map_bit(m, psn)) {
				m->bits[s / 64] &= ~(1ULL << (s % 64));
				m->count--;
			}
		}
	}
	m->base = roce_psn_mask(base);
}

bool
roce_sr_map_highest(const struct roce_sr_map *m, uint32_t *psn)
{
	uint32_t i;

	if (m->count == 0)
		return false;
	for (i = ROCE_SR_WINDOW; i-- > 0;) {
		uint32_t p = roce_psn_add(m->base, i);

		if (map_bit(m, p)) {
			*psn = p;
			return true;
		}
	}
	return false;
}

uint32_t
roce_sr_map_gap(const struct roce_sr_map *m, uint32_t psn)
{
	uint32_t n = 0;

	if (!map_in(m, psn))
		return 0;
	while (map_in(m, psn) && !map_bit(m, psn)) {
		n++;
		psn = roce_psn_next(psn);
	}
	return n;
}

void
roce_sr_sack_encode(const struct roce_sr_map *m,
		    uint8_t out[ROCE_SRX_SACK_LEN])
{
	rte_be32_t base = rte_cpu_to_be_32(m->base);
	uint32_t i;

	memcpy(out, &base, sizeof(base));
	memset(out + 4, 0, ROCE_SR_WINDOW / 8);
	for (i = 0; i < ROCE_SR_WINDOW && m->count != 0; i++)
		if (map_bit(m, roce_psn_add(m->base, i)))
			out[4 + i / 8] |= (uint8_t)(1u << (i % 8));
}

uint32_t
roce_sr_sack_merge(struct roce_sr_map *m, const uint8_t in[ROCE_SRX_SACK_LEN])
{
	rte_be32_t b;
	uint32_t base, i, n = 0;

	memcpy(&b, in, sizeof(b));
	base = rte_be_to_cpu_32(b) & ROCE_PSN_MASK;
	for (i = 0; i < ROCE_SR_WINDOW; i++) {
		if (!(in[4 + i / 8] & (1u << (i % 8))))
			continue;
		if (roce_sr_map_set(m, roce_psn_add(base, i)) == 1)
			n++;
	}
	return n;
}

void
roce_sr_req_encode(uint8_t out[ROCE_SRX_REQ_LEN], uint64_t va, uint32_t rkey)
{
	rte_be64_t v = rte_cpu_to_be_64(va);
	rte_be32_t k = rte_cpu_to_be_32(rkey);

	memcpy(out, &v, sizeof(v));
	memcpy(out + 8, &k, sizeof(k));
}

void
roce_sr_req_decode(const uint8_t *in, uint64_t *va, uint32_t *rkey)
{
	rte_be64_t v;
	rte_be32_t k;

	memcpy(&v, in, sizeof(v));
	memcpy(&k, in + 8, sizeof(k));
	*va = rte_be_to_cpu_64(v);
	*rkey = rte_be_to_cpu_32(k);
}

/* ------------------------------------------------------------------ */
/* Responder                                                          */
/* ------------------------------------------------------------------ */

/* Copy the payload of @p pkt to @p dst. */
static void
sr_copy_payload(const struct roce_pkt *pkt, const struct rte_mbuf *m,
		uint8_t *dst)
{
	const void *p;

	if (pkt->payload_len == 0)
		return;
	/* in the packet, whose segments the parser checked */
	p = rte_pktmbuf_read(m, pkt->payload_off, pkt->payload_len, dst);
	if (p != dst)
		rte_memcpy(dst, p, pkt->payload_len);
}

enum roce_err
roce_sr_resp_place(struct roce_qp *qp, const struct roce_pkt *pkt,
		   const struct rte_mbuf *m)
{
	const uint8_t *srx = roce_sr_pkt_srx(pkt);
	struct roce_key_ref ref;
	uint64_t va;
	uint32_t rkey;

	if (srx == NULL || pkt->payload_len == 0)
		return srx == NULL ? ROCE_ERR_LOC_ACCESS : ROCE_OK;
	roce_sr_req_decode(srx, &va, &rkey);
	if (roce_key_check_remote(qp->dev, qp->pd, qp->qpn, rkey, va,
				  pkt->payload_len, ROCE_ACCESS_REMOTE_WRITE,
				  &ref) != ROCE_OK)
		return ROCE_ERR_LOC_ACCESS;
	sr_copy_payload(pkt, m, ref.host);
	return ROCE_OK;
}

/* The packet shape rules of step_check_op, for a WRITE out of order. */
static bool
sr_ooo_shape_ok(const struct roce_qp *qp, const struct roce_pkt *pkt)
{
	uint32_t flags = pkt->op->flags, mtu = roce_qp_mtu(qp);
	bool full = (flags & (ROCE_OPF_FIRST | ROCE_OPF_MIDDLE)) &&
		    !(flags & ROCE_OPF_LAST);

	if (full ? pkt->payload_len != mtu : pkt->payload_len > mtu)
		return false;
	if (flags & ROCE_OPF_RETH) {
		uint32_t len = roce_reth_len(roce_pkt_reth(pkt));

		/* ONLY: all of its DMA length; FIRST: one PMTU of more */
		if ((flags & ROCE_OPF_LAST) ? len != pkt->payload_len :
					      len <= pkt->payload_len)
			return false;
	}
	return true;
}

enum roce_sr_ooo
roce_sr_resp_ooo(struct roce_qp *qp, const struct roce_pkt *pkt,
		 const struct rte_mbuf *m, uint32_t psn)
{
	struct roce_resp_state *r = &qp->resp;
	uint32_t flags = pkt->op->flags, slot;
	int set;

	roce_sr_map_advance(&r->ooo, r->epsn);
	if (!roce_psn_in_window(psn, r->epsn, ROCE_SR_WINDOW))
		goto drop;
	if (roce_sr_map_test(&r->ooo, psn)) {
		qp->stats.dup_requests++;
		return ROCE_SR_OOO_DUP;
	}
	/*
	 * Only WRITEs that need no receive WQE are placed out of order: a
	 * SEND needs the receive WQE of its message (IRN's message sequence
	 * number, not implemented), READ and atomics have responses in order.
	 */
	if (!(flags & ROCE_OPF_WRITE) || (flags & ROCE_OPF_RWR) ||
	    roce_sr_pkt_srx(pkt) == NULL ||
	    !(qp->access & ROCE_ACCESS_REMOTE_WRITE) ||
	    !sr_ooo_shape_ok(qp, pkt))
		goto drop;
	/* a key that fails is reported when the packet comes in order */
	if (roce_sr_resp_place(qp, pkt, m) != ROCE_OK)
		goto drop;
	set = roce_sr_map_set(&r->ooo, psn);
	if (set < 0)
		goto drop;
	slot = psn & (ROCE_SR_WINDOW - 1);
	r->ooo_op[slot] = pkt->opcode;
	r->ooo_len[slot] = (flags & ROCE_OPF_RETH) ?
		roce_reth_len(roce_pkt_reth(pkt)) : pkt->payload_len;
	qp->stats.sr_ooo_accepted++;
	return ROCE_SR_OOO_ACCEPTED;
drop:
	qp->stats.sr_ooo_dropped++;
	return ROCE_SR_OOO_DROP;
}

uint32_t
roce_sr_resp_merge(struct roce_qp *qp)
{
	struct roce_resp_state *r = &qp->resp;
	uint32_t mtu = roce_qp_mtu(qp), n = 0;

	roce_sr_map_advance(&r->ooo, r->epsn);
	while (r->ooo.count != 0 && r->fatal == ROCE_OK &&
	       roce_sr_map_test(&r->ooo, r->epsn)) {
		uint32_t slot = r->epsn & (ROCE_SR_WINDOW - 1);
		uint8_t op = r->ooo_op[slot];
		uint32_t flags = roce_opcode_info(op)->flags;
		bool ok;

		/* the opcode sequence check of step_check_opseq, now */
		if (r->in_message)
			ok = !(flags & ROCE_OPF_FIRST) &&
			     (roce_opcode_info(r->last_opcode)->flags &
			      ROCE_OPF_WRITE) != 0;
		else
			ok = (flags & ROCE_OPF_FIRST) != 0;
		if (!ok) {
			r->ack_pending = true;
			r->ack_psn = r->epsn;
			r->ack_syndrome = roce_err_to_nak(ROCE_ERR_REM_INV_REQ);
			r->fatal = ROCE_ERR_REM_INV_REQ;
			r->nak_sent = true;
			qp->stats.rx_drops++;
			break;
		}
		if (flags & ROCE_OPF_LAST) {
			/* LAST or ONLY: the message is complete (MSN, 9.7.5.1.3) */
			r->in_message = false;
			r->write_len = r->write_off = 0;
			r->msn = roce_psn_next(r->msn);
		} else if (flags & ROCE_OPF_FIRST) {
			r->in_message = true;
			r->write_len = r->ooo_len[slot];
			r->write_off = mtu;
			/* its target was checked for its own payload only */
			memset(&r->wref, 0, sizeof(r->wref));
		} else {
			r->write_off += mtu;
		}
		r->last_opcode = op;
		r->epsn = roce_psn_next(r->epsn);
		roce_sr_map_advance(&r->ooo, r->epsn);
		n++;
	}
	if (n > 0 && r->fatal == ROCE_OK) {
		/* acknowledge through the last PSN taken over */
		r->ack_pending = true;
		r->ack_psn = roce_psn_prev(r->epsn);
		r->ack_syndrome = roce_syndrome(ROCE_AETH_ACK, 0);
		r->nak_sent = false;
	}
	return n;
}

bool
roce_sr_resp_sack(struct roce_qp *qp, uint32_t *psn, uint8_t *syndrome,
		  uint8_t srx[ROCE_SRX_SACK_LEN])
{
	struct roce_resp_state *r = &qp->resp;
	uint8_t type = roce_syndrome_type(*syndrome);

	roce_sr_map_advance(&r->ooo, r->epsn);
	if (r->ooo.count == 0 || r->fatal != ROCE_OK)
		return false;
	/* an ACK, or the sequence NAK: both become the SACK NAK at epsn */
	if (type != ROCE_AETH_ACK &&
	    *syndrome != roce_err_to_nak(ROCE_ERR_PSN_SEQ))
		return false;
	*psn = r->epsn;
	*syndrome = roce_err_to_nak(ROCE_ERR_PSN_SEQ);
	roce_sr_sack_encode(&r->ooo, srx);
	qp->stats.sr_sack_tx++;
	return true;
}

/* ------------------------------------------------------------------ */
/* Completer and requester                                            */
/* ------------------------------------------------------------------ */

void
roce_sr_comp_sync(struct roce_qp *qp, const struct roce_pkt *pkt)
{
	const uint8_t *srx;

	roce_sr_map_advance(&qp->comp.sack, qp->comp.psn);
	if (pkt == NULL)
		return;
	srx = roce_sr_pkt_srx(pkt);
	if (srx == NULL || pkt->opcode != ROCE_OP_RC_ACK)
		return;
	qp->stats.sr_sack_rx++;
	roce_sr_sack_merge(&qp->comp.sack, srx);
}

void
roce_sr_round(struct roce_qp *qp, bool timeout)
{
	struct roce_req_state *req = &qp->req;
	uint32_t hi;

	/* a new round starts at comp.psn, not where an extension ended */
	req->sr_rewind_set = false;
	req->sr_skip_from = req->psn_hwm;
	if (!roce_sr_on(qp) || timeout)
		return;
	roce_sr_map_advance(&qp->comp.sack, qp->comp.psn);
	if (roce_sr_map_highest(&qp->comp.sack, &hi))
		req->sr_skip_from = roce_psn_next(hi);
}

bool
roce_sr_round_extend(struct roce_qp *qp)
{
	struct roce_req_state *req = &qp->req;
	uint32_t hi, end, old = req->sr_skip_from, comp_psn = qp->comp.psn;

	roce_sr_map_advance(&qp->comp.sack, comp_psn);
	if (!roce_sr_map_highest(&qp->comp.sack, &hi))
		return false;
	end = roce_psn_next(hi);
	/* only forward, and never beyond what was sent */
	if (roce_psn_offset(end, comp_psn) <= roce_psn_offset(old, comp_psn) ||
	    roce_psn_offset(end, comp_psn) >
	    roce_psn_offset(req->psn_hwm, comp_psn))
		return false;
	req->sr_skip_from = end;
	if (roce_psn_offset(req->psn, comp_psn) <
	    roce_psn_offset(old, comp_psn))
		return false;	/* still before the old end: goes on to the new */
	req->sr_rewind = old;
	req->sr_rewind_set = true;
	req->need_retry = true;
	return true;
}

bool
roce_sr_req_skip(const struct roce_qp *qp, uint32_t psn)
{
	const struct roce_req_state *req = &qp->req;

	/*
	 * The oldest unacknowledged PSN always goes: SACKed, it is a
	 * duplicate that makes the responder repeat the cumulative ACK that
	 * was lost (else a round after a timeout would send nothing).
	 */
	if (psn == qp->comp.psn)
		return false;
	if (roce_sr_map_test(&qp->comp.sack, psn))
		return true;
	/* after a NAK: beyond the highest SACKed PSN, still in flight */
	return roce_psn_offset(psn, req->sr_skip_from) <
	       roce_psn_offset(req->psn_hwm, req->sr_skip_from);
}

bool
roce_sr_comp_read_ooo(struct roce_qp *qp, uint32_t psn)
{
	roce_sr_map_advance(&qp->comp.sack, qp->comp.psn);
	if (roce_sr_map_set(&qp->comp.sack, psn) != 1)
		return false;
	qp->stats.sr_ooo_accepted++;
	return true;
}

uint32_t
roce_sr_comp_read_merge(struct roce_qp *qp, uint32_t last_psn)
{
	struct roce_comp_state *comp = &qp->comp;
	uint32_t n = 0;

	roce_sr_map_advance(&comp->sack, comp->psn);
	while (roce_sr_map_test(&comp->sack, comp->psn) &&
	       !roce_psn_after(comp->psn, last_psn)) {
		comp->psn = roce_psn_next(comp->psn);
		roce_sr_map_advance(&comp->sack, comp->psn);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Tail loss (IRN RTO_low)                                            */
/* ------------------------------------------------------------------ */

/*
 * At the tail: a few PSNs unacknowledged and unSACKed, no probe yet.
 * @p sending: the packet at req.psn is being sent (not yet counted).
 */
static bool
sr_tail(struct roce_qp *qp, bool sending)
{
	struct roce_comp_state *comp = &qp->comp;
	uint32_t out = roce_req_inflight(qp);
	uint32_t cur = roce_psn_offset(qp->req.psn, comp->psn);

	if (comp->tlp_done && comp->tlp_psn == comp->psn)
		return false;
	if (sending && cur < ROCE_PSN_HALF && cur + 1 > out)
		out = cur + 1;
	roce_sr_map_advance(&comp->sack, comp->psn);
	out = out > comp->sack.count ? out - comp->sack.count : 0;
	return out > 0 && out <= ROCE_SR_TLP_PKTS;
}

uint64_t
roce_sr_rto_low(uint64_t tmo)
{
	uint64_t us = rte_get_tsc_hz() / 1000000;
	uint64_t low = tmo >> ROCE_SR_RTO_LOW_SHIFT;
	uint64_t lo = RTE_MIN(tmo, ROCE_SR_RTO_LOW_MIN_US * us);

	low = RTE_MAX(low, lo);
	return RTE_MIN(low, ROCE_SR_RTO_LOW_MAX_US * us);
}

/* ------------------------------------------------------------------ */
/* Round trip time and the early timer                                */
/* ------------------------------------------------------------------ */

void
roce_sr_rtt_sent(struct roce_qp *qp, uint32_t psn, bool retrans, uint64_t now)
{
	struct roce_comp_state *comp = &qp->comp;

	if (retrans)
		comp->rtt_tsc = 0;	/* Karn: the ACK may be the resend's */
	else if (comp->rtt_tsc == 0) {
		comp->rtt_tsc = now;
		comp->rtt_psn = psn;
	}
}

void
roce_sr_rtt_acked(struct roce_qp *qp, uint64_t now)
{
	struct roce_comp_state *comp = &qp->comp;
	uint64_t s, d;

	/* timed PSN acknowledged: it is behind comp.psn now */
	if (comp->rtt_tsc == 0 ||
	    roce_psn_offset(comp->psn, comp->rtt_psn) - 1 >= ROCE_PSN_HALF)
		return;
	s = now > comp->rtt_tsc ? now - comp->rtt_tsc : 1;
	comp->rtt_tsc = 0;
	if (comp->srtt == 0) {
		comp->srtt = s;
		comp->rttvar = s / 2;
	} else {
		d = s > comp->srtt ? s - comp->srtt : comp->srtt - s;
		comp->rttvar = (3 * comp->rttvar + d) / 4;
		comp->srtt = (7 * comp->srtt + s) / 8;
	}
	qp->stats.sr_rtt_us = comp->srtt / (rte_get_tsc_hz() / 1000000 + 1);
}

uint64_t
roce_sr_rto_rtt(const struct roce_qp *qp, uint64_t tmo)
{
	const struct roce_comp_state *comp = &qp->comp;
	uint64_t us = rte_get_tsc_hz() / 1000000;
	uint64_t rto, floor;

	if (comp->srtt == 0)
		return roce_sr_rto_low(tmo);
	floor = RTE_MIN(tmo, ROCE_SR_RTO_MIN_US * us);

	/*
	 * No ceiling but the timeout (the callers run the timeout itself when
	 * the RTO reaches it): a queue of thousands of QPs on one worker
	 * makes round trips of tens of ms, and a ceiling below them fired
	 * early rounds at every comp.psn (16384 QPs: 59 -> 7 Gb/s)
	 */
	rto = comp->srtt + 4 * comp->rttvar;
	return RTE_MAX(rto, floor);
}

/* The early deadline's distance: the RTO, doubled per early round. */
static uint64_t
sr_early(struct roce_qp *qp, uint64_t tmo)
{
	struct roce_comp_state *comp = &qp->comp;

	if (comp->early_psn != comp->psn) {
		comp->early_psn = comp->psn;
		comp->early_n = 0;
	}
	if (comp->early_n >= ROCE_SR_EARLY_MAX)
		return tmo;
	return roce_sr_rto_rtt(qp, tmo) << comp->early_n;
}

uint64_t
roce_sr_rto(struct roce_qp *qp, uint64_t now, uint64_t tmo, bool sending)
{
	uint64_t early;

	qp->comp.rto_deadline = 0;
	/* no sample: only the tail runs early (RTO_low) */
	if (qp->comp.srtt == 0 && !sr_tail(qp, sending))
		return now + tmo;
	early = sr_early(qp, tmo);
	if (early >= tmo)
		return now + tmo;
	qp->comp.rto_deadline = now + tmo;
	return now + early;
}

/*
 * An early round: the oldest PSN and the holes up to the highest SACKed;
 * go-back-N (no SACKs): everything from the oldest PSN, at half the loss
 * window, as after a NAK (a round that was not needed, when the ACKs
 * were only late, resends little).
 */
static void
sr_early_round(struct roce_qp *qp)
{
	struct roce_comp_state *comp = &qp->comp;
	uint32_t hi;

	if (!roce_sr_on(qp))
		roce_req_cwnd_cut(qp, false);
	comp->retry_pending = true;
	comp->retry_psn = comp->psn;
	roce_sr_map_advance(&comp->sack, comp->psn);
	qp->req.sr_rewind_set = false;	/* it starts at comp.psn */
	qp->req.sr_skip_from = roce_sr_map_highest(&comp->sack, &hi) ?
			       roce_psn_next(hi) : roce_psn_next(comp->psn);
	qp->req.need_retry = true;
	qp->stats.sr_early_rounds++;
	roce_worker_doorbell(qp->w, qp);
}

uint64_t
roce_sr_rto_expired(struct roce_qp *qp, uint64_t now, bool read_oldest)
{
	struct roce_comp_state *comp = &qp->comp;
	uint64_t deadline = comp->rto_deadline, early;

	comp->rto_deadline = 0;
	if (deadline == 0 || deadline <= now)
		return 0;	/* the local ACK timeout itself */
	if (sr_tail(qp, false)) {
		/*
		 * The last packets (or their ACK) are lost and nothing behind
		 * them will produce a SACK: resend what is not SACKed, once
		 * for this comp.psn, as a timeout round does, but without
		 * consuming a retry or cutting the loss window.
		 */
		comp->tlp_done = true;
		comp->tlp_psn = comp->psn;
		comp->retry_pending = true;
		comp->retry_psn = comp->psn;
		roce_sr_round(qp, true);
		qp->req.need_retry = true;
		qp->stats.sr_tail_probes++;
		roce_worker_doorbell(qp->w, qp);
	} else if (comp->srtt != 0 && !read_oldest) {
		/*
		 * No progress for a measured RTO: a resend of a hole was lost
		 * (or its ACK); resend the holes the SACKs show, and the
		 * oldest PSN, without a retry or a cut, as IRN's RTO does
		 */
		sr_early_round(qp);
	} else {
		return deadline;
	}
	/* the next early round waits twice as long; the full one stays due */
	comp->early_n++;
	if (comp->srtt == 0)
		return deadline;
	early = sr_early(qp, deadline - now);
	if (now + early >= deadline)
		return deadline;
	comp->rto_deadline = deadline;
	return now + early;
}

uint64_t
roce_sr_rto_push(struct roce_qp *qp, uint64_t now)
{
	struct roce_comp_state *comp = &qp->comp;
	uint64_t deadline = comp->rto_deadline, early;

	if (deadline == 0 || deadline <= now)
		return 0;
	early = sr_early(qp, deadline - now);
	if (now + early >= deadline) {
		comp->rto_deadline = 0;
		return deadline;
	}
	return now + early;
}

void
roce_sr_reset(struct roce_qp *qp)
{
	roce_sr_map_reset(&qp->comp.sack, qp->comp.psn);
	roce_sr_map_reset(&qp->resp.ooo, qp->resp.epsn);
	qp->req.sr_skip_from = qp->req.psn_hwm;
	qp->comp.rto_deadline = 0;
	qp->comp.tlp_done = false;
	qp->comp.rtt_tsc = 0;
	qp->comp.early_n = 0;
}
