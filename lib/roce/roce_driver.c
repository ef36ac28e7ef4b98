/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver side of lib/roce (roce_driver.h): QP snapshots, the table of
 * exported QP counters, QPN table walks and renumbering, worker counters.
 * Everything a driver reads of engine-owned state from another thread is
 * read here, with atomic loads, under the contract the header states.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "roce_driver.h"
#include "roce_qp.h"
#include "roce_worker.h"

/* ------------------------------------------------------------------ */
/* QP counters                                                        */
/* ------------------------------------------------------------------ */

#define ROCE_QP_STAT(n, f) { (n), offsetof(struct roce_qp_stats, f), false }
#define ROCE_QP_GAUGE(n, f) { (n), offsetof(struct roce_qp_stats, f), true }

const struct roce_qp_stat_desc roce_qp_stat_table[ROCE_QP_STAT_NB] = {
	ROCE_QP_STAT("tx_pkts", tx_pkts),
	ROCE_QP_STAT("tx_bytes", tx_bytes),
	ROCE_QP_STAT("rx_pkts", rx_pkts),
	ROCE_QP_STAT("rx_bytes", rx_bytes),
	ROCE_QP_STAT("retrans_pkts", retrans_pkts),
	ROCE_QP_STAT("timeouts", timeouts),
	ROCE_QP_STAT("rnr_naks_rx", rnr_naks_rx),
	ROCE_QP_STAT("rnr_naks_tx", rnr_naks_tx),
	ROCE_QP_STAT("naks_rx", naks_rx),
	ROCE_QP_STAT("naks_tx", naks_tx),
	ROCE_QP_STAT("acks_rx", acks_rx),
	ROCE_QP_STAT("acks_tx", acks_tx),
	ROCE_QP_STAT("dup_requests", dup_requests),
	ROCE_QP_STAT("out_of_seq", out_of_seq),
	ROCE_QP_STAT("rx_drops", rx_drops),
	ROCE_QP_STAT("wr_flushed", wr_flushed),
	ROCE_QP_STAT("tx_zc_pkts", tx_zc_pkts),
	ROCE_QP_STAT("ce_rx", ce_rx),
	ROCE_QP_STAT("cnp_tx", cnp_tx),
	ROCE_QP_STAT("cnp_rx", cnp_rx),
	ROCE_QP_STAT("cc_cuts", cc_cuts),
	ROCE_QP_STAT("cc_pace_stalls", cc_pace_stalls),
	ROCE_QP_GAUGE("cc_rate_mbps", cc_rate_mbps),
	ROCE_QP_STAT("sr_ooo_accepted", sr_ooo_accepted),
	ROCE_QP_STAT("sr_sack_sent", sr_sack_tx),
	ROCE_QP_STAT("sr_sack_received", sr_sack_rx),
	ROCE_QP_STAT("sr_retx_pkts", sr_retx_pkts),
	ROCE_QP_STAT("gbn_retx_pkts", gbn_retx_pkts),
	ROCE_QP_STAT("sr_skipped", sr_skipped),
	ROCE_QP_STAT("sr_tail_probes", sr_tail_probes),
	ROCE_QP_STAT("sr_early_rounds", sr_early_rounds),
	ROCE_QP_GAUGE("sr_rtt_us", sr_rtt_us),
};

static_assert(sizeof(struct roce_qp_stats) % sizeof(uint64_t) == 0,
	      "the QP counters are 64-bit words");

uint64_t
roce_qp_stat(const struct roce_qp *qp, size_t off)
{
	const uint64_t *v;

	if (qp == NULL || off > sizeof(qp->stats) - sizeof(uint64_t))
		return 0;
	v = RTE_PTR_ADD(&qp->stats, off);
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void
roce_qp_stats_read(const struct roce_qp *qp, struct roce_qp_stats *st)
{
	const uint64_t *src = (const uint64_t *)&qp->stats;
	uint64_t *dst = (uint64_t *)st;
	size_t i;

	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* QP snapshot                                                        */
/* ------------------------------------------------------------------ */

void
roce_qp_snapshot(const struct roce_qp *qp, struct roce_qp_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	/* fixed for the QP's life */
	s->w = qp->w;
	s->qpn = qp->qpn;
	s->type = qp->type;
	/* the cause is written before the state that it explains */
	s->state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	s->err_cause = __atomic_load_n(&qp->err_cause, __ATOMIC_RELAXED);
	s->sr_on = qp->type == ROCE_QPT_RC &&
		__atomic_load_n(&qp->attr.selective_repeat,
				__ATOMIC_RELAXED) != 0;
	/* producer first: the other two never run ahead of it */
	s->sq_prod = __atomic_load_n(&qp->sq.prod, __ATOMIC_ACQUIRE);
	s->sq_started = __atomic_load_n(&qp->req.wqe_hwm, __ATOMIC_RELAXED);
	s->sq_cons = __atomic_load_n(&qp->sq.cons, __ATOMIC_ACQUIRE);
	s->next_psn = __atomic_load_n(&qp->req.psn, __ATOMIC_RELAXED);
	s->rd_atomic_inflight = __atomic_load_n(&qp->req.rd_atomic_inflight,
						__ATOMIC_RELAXED);
	s->epsn = __atomic_load_n(&qp->resp.epsn, __ATOMIC_RELAXED);
	s->msn = __atomic_load_n(&qp->resp.msn, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* The QPN table                                                      */
/* ------------------------------------------------------------------ */

struct roce_qp *
roce_qp_next(const struct roce_device *dev, uint32_t *qpn)
{
	struct roce_qp *qp;
	uint32_t i;

	if (dev == NULL || qpn == NULL || dev->qp_table == NULL)
		return NULL;
	for (i = *qpn; i <= dev->qpn_mask; i++) {
		qp = roce_qp_lookup(dev, i);
		if (qp != NULL && qp->qpn == i) {
			*qpn = i;
			return qp;
		}
	}
	return NULL;
}

struct roce_qp *
roce_qp_find(const struct roce_device *dev, uint32_t qpn)
{
	struct roce_qp *qp;

	if (dev == NULL || dev->qp_table == NULL)
		return NULL;
	qp = roce_qp_lookup(dev, qpn);
	return qp != NULL && qp->qpn == qpn ? qp : NULL;
}

struct roce_worker *
roce_qp_owner(const struct roce_device *dev, uint32_t qpn)
{
	const struct roce_qp *qp = roce_qp_find(dev, qpn);

	return qp != NULL ? qp->w : NULL;
}

struct renumber_arg {
	struct roce_qp *qp;
	uint32_t qpn;
};

/* On the QP's worker: no frame of it sees the QP between two numbers. */
static int
renumber_exec(void *arg)
{
	struct renumber_arg *a = arg;

	return roce_qpn_move(a->qp->dev, a->qp, a->qpn);
}

int
roce_qp_renumber(struct roce_qp *qp, uint32_t qpn)
{
	struct renumber_arg a = { .qp = qp, .qpn = qpn };

	if (qp == NULL || qpn == 0 || qpn > qp->dev->qpn_mask ||
	    __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) != ROCE_QPS_RESET)
		return -EINVAL;
	return roce_worker_exec(qp->w, renumber_exec, &a);
}

/* ------------------------------------------------------------------ */
/* Workers                                                            */
/* ------------------------------------------------------------------ */

uint64_t
roce_worker_counter(const struct roce_worker *w, enum roce_worker_cnt c)
{
	if (w == NULL || (unsigned int)c >= ROCE_WCNT_MAX)
		return 0;
	return __atomic_load_n(&w->cnt[c], __ATOMIC_RELAXED);
}
