/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a worker offers the engines below it (roce_worker.h): its device and
 * timers, its references, TX batching to the driver's callback, the
 * doorbell ring and the responder list. Nothing here calls an engine: the
 * engines call down into it, and the scheduler above them (roce_worker.c:
 * RX dispatch, the poll loop, control requests) drains what it collects.
 */
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce_qp.h"
#include "roce_worker.h"

struct roce_device *
roce_worker_device(const struct roce_worker *w)
{
	return w->dev;
}

struct roce_timers *
roce_worker_timers(struct roce_worker *w)
{
	return &w->timers;
}

void
roce_worker_get(struct roce_worker *w)
{
	__atomic_fetch_add(&w->refcnt, 1, __ATOMIC_RELAXED);
}

void
roce_worker_put(struct roce_worker *w)
{
	__atomic_fetch_sub(&w->refcnt, 1, __ATOMIC_RELAXED);
}

void
roce_worker_tx_flush(struct roce_worker *w)
{
	uint16_t n, left;

	if (w->tx_n == 0) {
		w->tx_blocked = false;
		return;
	}
	n = w->tx(w->tx_ctx, w->tx_buf, w->tx_n);
	if (n > w->tx_n)	/* a callback claiming more than it got */
		n = w->tx_n;
	w->cnt[ROCE_WCNT_TX_PKTS] += n;
	w->tx_sent += n;
	left = w->tx_n - n;
	w->tx_blocked = left != 0;
	if (left != 0) {
		/* keep the refused frames, in order, for the next flush */
		memmove(w->tx_buf, w->tx_buf + n, left * sizeof(w->tx_buf[0]));
		w->cnt[ROCE_WCNT_TX_REFUSED] += left;
	}
	w->tx_n = left;
}

void
roce_worker_tx(struct roce_worker *w, struct rte_mbuf *m)
{
	if (unlikely(w->tx_n == ROCE_WORKER_TX_BATCH)) {
		roce_worker_tx_flush(w);
		if (w->tx_n == ROCE_WORKER_TX_BATCH) {
			w->cnt[ROCE_WCNT_TX_DROP_FULL]++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	w->tx_buf[w->tx_n++] = m;
}

void
roce_worker_doorbell(struct roce_worker *w, struct roce_qp *qp)
{
	/* Only the ringer that flips 0 -> 1 queues the QP: it is in the ring
	 * at most once, so the ring (>= max_qp slots) never fills. The
	 * acq_rel exchange orders the poster's SQ producer store before the
	 * worker's clear-then-read of it.
	 */
	if (__atomic_exchange_n(&qp->doorbell, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (unlikely(rte_ring_mp_enqueue(w->db_ring, qp) != 0)) {
		/* unreachable by construction; counted, never silent */
		__atomic_fetch_add(&w->cnt[ROCE_WCNT_DOORBELL_OVERFLOW], 1,
				   __ATOMIC_RELAXED);
		__atomic_store_n(&qp->doorbell, 0, __ATOMIC_RELEASE);
	}
}

void
roce_worker_resp_pending(struct roce_worker *w, struct roce_qp *qp)
{
	if (qp->resp.in_resp_list)
		return;
	qp->resp.in_resp_list = true;
	qp->resp.resp_next = NULL;
	if (w->resp_tail != NULL)
		w->resp_tail->resp.resp_next = qp;
	else
		w->resp_head = qp;
	w->resp_tail = qp;
}
