/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_WORKER_H
#define ROCE_WORKER_H

/*
 * The worker (internal): the execution context that owns QPs and CQs.
 *
 * One thread polls a worker: roce_worker_rx() with received frames and
 * roce_worker_poll() in its loop. Other threads talk to it only through
 * - the doorbell ring (MPSC ring of QP pointers, roce_worker_doorbell()),
 *   guarded by each QP's doorbell flag so a QP is queued at most once;
 * - the control ring (roce_worker_exec()), for control operations on
 *   worker-owned state.
 * Everything else here is private to the polling thread. What a driver
 * calls on a worker (exec, quiescent points, the GSI handler, counters)
 * is in roce_driver.h; this header is for lib/roce's engines only.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "roce_mbuf_pf.h"
#include "roce_parse.h"
#include "roce_priv.h"
#include "roce_timer.h"

struct roce_qp;

/** Frames kept for one tx callback call. */
#define ROCE_WORKER_TX_BATCH 64

/** Control requests that may wait at once (callers spin when it is full). */
#define ROCE_WORKER_CTL_RING 64

struct roce_worker {
	struct roce_device *dev;
	roce_tx_burst_t tx;
	void *tx_ctx;
	int socket;
	/** Polling thread (rte_gettid()); 0 until the first poll/rx. */
	int poll_tid;
	/** QPs, CQs and SRQs owned by this worker (roce_worker_get/put). */
	uint32_t refcnt;
	uint64_t now;		/**< TSC of the current rx/poll call */
	uint32_t tx_sent;	/**< frames sent during the current poll */

	/* prefetch of the next header (hdr_pool) and zero-copy mbufs */
	struct roce_mbuf_pf hdr_pf;
	struct roce_mbuf_pf zc_pf;
	/** Page of the last zero-copy IOVA lookup (roce_key_ref_iova()). */
	struct roce_txbuf_iova_cache iova_cache;

	/* TX batch: tx_buf[0..tx_n) waits for the callback, oldest first */
	uint16_t tx_n;
	/** The last flush left frames the port refused (roce_worker_tx_room()). */
	bool tx_blocked;
	struct rte_mbuf *tx_buf[ROCE_WORKER_TX_BATCH];

	/** Timers of the engines (retransmit, RNR...). */
	struct roce_timers timers;

	/* doorbells: MPSC ring of QP pointers and the private ready list */
	struct rte_ring *db_ring;
	struct roce_qp *ready_head, *ready_tail;

	/* QPs with pending responder output (READ responses, ACKs) */
	struct roce_qp *resp_head, *resp_tail;

	/* control requests: MPSC ring of struct roce_worker_ctl pointers */
	struct rte_ring *ctl_ring;

	roce_gsi_handler_t gsi_cb;
	void *gsi_ctx;

	/** Epoch of the last quiescent point, ROCE_QS_OFFLINE when unbound. */
	uint64_t qs_seen;
	struct roce_worker *qs_next;	/**< roce_device::qs_workers list */

	uint64_t parse_cnt[ROCE_PARSE_REASON_MAX];
	uint64_t cnt[ROCE_WCNT_MAX];
};

/** Count one event of kind @p c on @p w. */
static inline void
roce_worker_count(struct roce_worker *w, enum roce_worker_cnt c)
{
	w->cnt[c]++;
}

/**
 * An mbuf of the device's hdr_pool for a frame @p w sends, reset as
 * rte_pktmbuf_alloc() returns it; NULL when the pool is empty.
 */
static inline struct rte_mbuf *
roce_worker_hdr_mbuf(struct roce_worker *w)
{
	return roce_mbuf_pf_alloc(&w->hdr_pf);
}

/** Prefetch of the zero-copy segments' pool (roce_txbuf_attach_ref()). */
static inline const struct roce_mbuf_pf *
roce_worker_zc_pf(const struct roce_worker *w)
{
	return &w->zc_pf;
}

/** The page cache of @p w's zero-copy IOVA lookups (worker only). */
static inline struct roce_txbuf_iova_cache *
roce_worker_iova_cache(struct roce_worker *w)
{
	return &w->iova_cache;
}

/**
 * Worker only: whether an engine may build one more frame now. Not while
 * the port refuses frames (the last flush left some in the batch): a
 * requester, or a responder with READ responses or an ACK to send, that
 * finds no room counts tx_held and returns -EBUSY, and roce_worker_poll()
 * keeps its turn for the next poll. So a full TX ring holds the engines
 * back instead of dropping what they built (tx_drop_full), and the queue
 * ahead of the port stays as short as the port's own ring.
 */
static inline bool
roce_worker_tx_room(struct roce_worker *w)
{
	if (likely(w->tx_n < ROCE_WORKER_TX_BATCH && !w->tx_blocked))
		return true;
	if (w->tx_n == ROCE_WORKER_TX_BATCH)
		roce_worker_tx_flush(w);
	if (w->tx_n < ROCE_WORKER_TX_BATCH && !w->tx_blocked)
		return true;
	w->cnt[ROCE_WCNT_TX_HELD]++;
	return false;
}

/** The device of @p w. */
struct roce_device *roce_worker_device(const struct roce_worker *w);

/** Timer heap of @p w, for the engines of its QPs (worker only). */
struct roce_timers *roce_worker_timers(struct roce_worker *w);

/** Take / drop a reference for an object owned by @p w (control path). */
void roce_worker_get(struct roce_worker *w);
void roce_worker_put(struct roce_worker *w);

/**
 * Worker only: the responder of @p qp has output to send (READ responses,
 * atomic ACKs, coalesced ACKs/NAKs); roce_resp_run() runs on it from the
 * next roce_worker_poll() until it returns 0.
 */
void roce_worker_resp_pending(struct roce_worker *w, struct roce_qp *qp);

/**
 * Worker only: forget @p qp (ready list, responder list, doorbell ring).
 * destroy_qp and the move to RESET call it through roce_worker_exec()
 * before the QP memory goes away.
 */
void roce_worker_qp_detach(struct roce_worker *w, struct roce_qp *qp);

#endif /* ROCE_WORKER_H */
