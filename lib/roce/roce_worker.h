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
 * Everything else here is private to the polling thread.
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

/** Worker counters beyond the parse reasons (names in roce_worker.c). */
enum roce_worker_cnt {
	ROCE_WCNT_RX_PKTS,		/**< frames given to roce_worker_rx*() */
	ROCE_WCNT_RX_ACCEPTED,		/**< frames given to a QP engine */
	ROCE_WCNT_RX_ICRC_ERR,		/**< ICRC mismatch (IBTA A17.3.3) */
	ROCE_WCNT_RX_CNP,		/**< congestion notification packets */
	ROCE_WCNT_RX_CNP_IGNORED,	/**< CNPs for no QP of ours in RTS/SQD */
	ROCE_WCNT_RX_CE,		/**< CE-marked packets (roce_cc.c) */
	ROCE_WCNT_TX_CNP,		/**< CNPs sent */
	ROCE_WCNT_CNP_COALESCED,	/**< CE without CNP: np_min_time_between_cnps */
	ROCE_WCNT_RX_UNKNOWN_QPN,	/**< no QP with that number */
	ROCE_WCNT_RX_QP_OTHER_WORKER,	/**< QP owned by another worker */
	ROCE_WCNT_RX_BAD_TRANSPORT,	/**< opcode transport != QP type */
	ROCE_WCNT_RX_QP_NOT_READY,	/**< RESET/INIT: silently dropped */
	ROCE_WCNT_RX_QP_ERR,		/**< ERR: silently dropped */
	ROCE_WCNT_RX_RESP_NOT_RTS,	/**< response to a QP that never sent */
	ROCE_WCNT_RX_GSI,		/**< QP1 MADs given to the GSI handler */
	ROCE_WCNT_RX_GSI_NO_HANDLER,	/**< QP1 MADs without a handler: freed */
	ROCE_WCNT_RX_QP0,		/**< QP0 (SMI): not on RoCE, freed */
	ROCE_WCNT_RX_BAD_PKEY,		/**< BTH P_Key does not match (IBTA 9.6.1.1) */
	ROCE_WCNT_RX_BAD_SRC,		/**< RC/UC: source GID is not the QP's peer */
	ROCE_WCNT_TX_PKTS,		/**< frames accepted by the tx callback */
	ROCE_WCNT_TX_REFUSED,		/**< frames refused once, kept for later */
	ROCE_WCNT_TX_DROP_FULL,		/**< frames dropped: batch full and stuck */
	ROCE_WCNT_DOORBELLS,		/**< QPs taken from the doorbell ring */
	ROCE_WCNT_DOORBELL_OVERFLOW,	/**< doorbell ring full (cannot happen) */
	ROCE_WCNT_CTL_REQS,		/**< control requests run from the ring */
	ROCE_WCNT_TIMERS,		/**< timers expired */
	ROCE_WCNT_REQ_RUNS,		/**< requester invocations */
	ROCE_WCNT_RESP_RUNS,		/**< responder invocations */
	/* responder drops and events (roce_resp.c) */
	ROCE_WCNT_RESP_DUP,		/**< duplicate requests (re-ACK / replay) */
	ROCE_WCNT_RESP_OUT_OF_SEQ,	/**< PSN ahead of the expected PSN */
	ROCE_WCNT_RESP_SEQ_NAK,		/**< PSN sequence error NAKs sent */
	ROCE_WCNT_RESP_OOS_DROP,	/**< dropped after the sequence NAK */
	ROCE_WCNT_RESP_BAD_OPSEQ,	/**< opcode sequence error */
	ROCE_WCNT_RESP_BAD_LEN,		/**< payload length rules (MTU, RETH) */
	ROCE_WCNT_RESP_RNR_NAK,		/**< RNR NAKs sent (no receive WQE) */
	ROCE_WCNT_RESP_NO_WQE_DROP,	/**< UC/UD: no receive WQE, dropped */
	ROCE_WCNT_RESP_REM_ACCESS,	/**< rkey/PD/bounds/rights failures */
	ROCE_WCNT_RESP_INV_REQ,		/**< invalid request NAKs */
	ROCE_WCNT_RESP_REM_OP,		/**< remote operational error NAKs */
	ROCE_WCNT_RESP_LOC_LEN,		/**< receive buffer too small */
	ROCE_WCNT_RESP_QKEY_VIOL,	/**< UD: Q_Key mismatch (IBTA 10.2.4) */
	ROCE_WCNT_RESP_UC_MSG_DROP,	/**< UC: packets of a broken message */
	ROCE_WCNT_RESP_RD_ATOMIC_FULL,	/**< no responder resource left */
	ROCE_WCNT_RESP_DUP_NO_RES,	/**< duplicate READ/atomic without resource */
	ROCE_WCNT_RESP_ACKS,		/**< ACKs sent */
	ROCE_WCNT_RESP_ACKS_TIMED,	/**< ... of them sent by the coalescing timer */
	ROCE_WCNT_RESP_READ_PKTS,	/**< READ response packets sent */
	ROCE_WCNT_RESP_ATOMIC_ACKS,	/**< atomic ACKs sent (incl. replays) */
	ROCE_WCNT_RESP_NO_MBUF,		/**< response frame allocation failed */
	ROCE_WCNT_RESP_CQ_OVERFLOW,	/**< receive CQ full */
	ROCE_WCNT_MAX,
};

/** GSI (QP1) handler: takes ownership of @p m (frees or keeps it). */
typedef void (*roce_gsi_handler_t)(void *ctx, struct rte_mbuf *m,
				   const struct roce_pkt *pkt, uint64_t now);

/** One queued control request (lives on the caller's stack). */
struct roce_worker_ctl {
	roce_worker_fn fn;
	void *arg;
	int result;
	uint32_t done;		/**< set with release when result is valid */
};

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

/** The device of @p w. */
struct roce_device *roce_worker_device(const struct roce_worker *w);

/** Timer heap of @p w, for the engines of its QPs (worker only). */
struct roce_timers *roce_worker_timers(struct roce_worker *w);

/** Take / drop a reference for an object owned by @p w (control path). */
void roce_worker_get(struct roce_worker *w);
void roce_worker_put(struct roce_worker *w);

/**
 * Route QP1 (GSI) MADs to @p cb (the PMD's control core). Without a
 * handler they are counted and freed. Call before traffic flows or
 * through roce_worker_exec().
 */
void roce_worker_set_gsi_handler(struct roce_worker *w, roce_gsi_handler_t cb,
				 void *ctx);

/**
 * Worker only: the responder of @p qp has output to send (READ responses,
 * atomic ACKs, coalesced ACKs/NAKs); roce_resp_run() runs on it from the
 * next roce_worker_poll() until it returns 0.
 */
void roce_worker_resp_pending(struct roce_worker *w, struct roce_qp *qp);

/**
 * Non-blocking roce_worker_exec(): run @p req->fn(@p req->arg) on the
 * worker. Inline (returns 1, req->done set) when no thread polls @p w or
 * the caller is its polling thread; otherwise queued on the control ring
 * (returns 0): the worker runs it at the start of its next poll and sets
 * req->done (release). @p req must stay valid until then. A queued
 * no-op is a quiescent-state probe: once it ran, every packet the worker
 * was processing when it was queued is finished. -ENOBUFS: ring full,
 * try again.
 */
int roce_worker_exec_async(struct roce_worker *w, struct roce_worker_ctl *req);

/**
 * Called by the polling thread when it stops polling @p w: runs the
 * control requests still queued, after which roce_worker_exec() runs
 * inline again until a thread polls.
 */
void roce_worker_unbind(struct roce_worker *w);

/**
 * Quiescent point of @p w: its thread holds no QP pointer taken from the
 * QPN table (roce_qp_lookup()) across this call. roce_worker_poll() calls
 * it first; a PMD that looks QPs up before roce_worker_rx() (to pick the
 * owner of a frame) calls it at the top of its loop too. A worker that was
 * unbound (roce_worker_unbind()) is counted as a reader again from here.
 * Destroyed QPs are freed once every bound worker passed such a point.
 */
void roce_worker_quiescent(struct roce_worker *w);

/**
 * Worker only: forget @p qp (ready list, responder list, doorbell ring).
 * destroy_qp and the move to RESET call it through roce_worker_exec()
 * before the QP memory goes away.
 */
void roce_worker_qp_detach(struct roce_worker *w, struct roce_qp *qp);

#endif /* ROCE_WORKER_H */
