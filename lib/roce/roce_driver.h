/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_DRIVER_H
#define ROCE_DRIVER_H

/**
 * @file
 * The driver side of lib/roce: what a poll-mode driver that runs the
 * transport (lib/ernic_pmd) needs beyond the verbs of roce_verbs.h.
 *
 * It is the only header of lib/roce's insides a driver includes (next to
 * the installed ones: roce_verbs.h, roce_parse.h, roce_cm.h, ...), and it
 * shows no object's layout: devices, workers, QPs, MRs and PDs stay
 * opaque. What a driver may do with them is here:
 *
 * - run code on a worker (roce_worker_exec(), roce_worker_exec_async()),
 *   mark its quiescent points, give QP1's MADs a handler, read its
 *   counters by id;
 * - read the QPN table as a slow reader (roce_qp_read_begin()/_end(),
 *   roce_qp_next()) or as a worker (roce_qp_owner());
 * - take a snapshot of a QP's engine state (roce_qp_snapshot()) and read
 *   its counters (struct roce_qp_stats, roce_qp_stat_table[]);
 * - give a QP a chosen number and keep low numbers for such QPs
 *   (roce_qp_renumber(), roce_qpn_reserve());
 * - keep key indexes for a register model's fixed regions
 *   (roce_key_reserve_fixed(), roce_reg_mr_fixed()) and deregister with
 *   its own grace period (roce_dereg_mr_nowait(), roce_key_zc_inflight()).
 *
 * Threads: "worker only" functions run on the thread that polls the worker
 * (or in a function given to roce_worker_exec()); "control path" ones on
 * the one control thread of the device; the rest say what they allow.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_parse.h"
#include "roce_verbs.h"

/* ------------------------------------------------------------------ */
/* Workers                                                            */
/* ------------------------------------------------------------------ */

/** A function run on a worker's thread by roce_worker_exec(). */
typedef int (*roce_worker_fn)(void *arg);

/**
 * Run @p fn(@p arg) on the worker's thread: inline when called from the
 * thread that polls @p w (or when no thread polls it yet), otherwise
 * through the worker's control ring, waiting for the result. Everything
 * @p fn reads of the worker's QPs is exact (the engines do not run
 * meanwhile). Returns what @p fn returned.
 */
int roce_worker_exec(struct roce_worker *w, roce_worker_fn fn, void *arg);

/** One queued control request (lives in the caller's memory). */
struct roce_worker_ctl {
	roce_worker_fn fn;	/**< run on the worker */
	void *arg;		/**< its argument */
	int result;		/**< what @c fn returned, once @c done */
	uint32_t done;		/**< set with release when result is valid */
};

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
 * QPN table (roce_qp_owner(), the RX dispatch) across this call.
 * roce_worker_poll() calls it first; a driver that looks QPs up before
 * roce_worker_rx() (to pick the owner of a frame) calls it at the top of
 * its loop too. A worker that was unbound (roce_worker_unbind()) is
 * counted as a reader again from here. Destroyed QPs are freed once every
 * bound worker passed such a point.
 */
void roce_worker_quiescent(struct roce_worker *w);

/** GSI (QP1) handler: takes ownership of @p m (frees or keeps it). */
typedef void (*roce_gsi_handler_t)(void *ctx, struct rte_mbuf *m,
				   const struct roce_pkt *pkt, uint64_t now);

/**
 * Route QP1 (GSI) MADs to @p cb (the driver's connection manager). Without
 * a handler they go to a UD QP numbered 1 when there is one, else they are
 * counted and freed. Call before traffic flows or through
 * roce_worker_exec().
 */
void roce_worker_set_gsi_handler(struct roce_worker *w, roce_gsi_handler_t cb,
				 void *ctx);

/**
 * Worker counters beyond the parse reasons, by id (their names:
 * roce_worker_counters(), which lists the parse reasons first).
 */
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
	ROCE_WCNT_TX_HELD,		/**< engine runs stopped: the port refused frames */
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

/**
 * Counter @p c of @p w (any thread: one relaxed load, never torn; from
 * another thread than the worker's, a value it had a moment ago).
 * 0 for an unknown id.
 */
uint64_t roce_worker_counter(const struct roce_worker *w,
			     enum roce_worker_cnt c);

/* ------------------------------------------------------------------ */
/* The QPN table                                                      */
/* ------------------------------------------------------------------ */

/**
 * Slow-path readers of the QPN table (telemetry, xstats, register reads:
 * any thread that is not a worker) look QPs up between these two calls; a
 * QP found there stays allocated (possibly already destroyed: its number
 * is then no longer in the table) until roce_qp_read_end(). Nothing waits
 * for a reader: it may block (roce_query_qp()) in between, only
 * reclamation is delayed. Up to four readers at once, more wait for a
 * slot. Returns the slot to give to roce_qp_read_end().
 */
unsigned int roce_qp_read_begin(struct roce_device *dev);
void roce_qp_read_end(struct roce_device *dev, unsigned int slot);

/**
 * The published QP with the lowest number >= *@p qpn, its number in
 * *@p qpn; NULL when there is none (or @p dev has no table). For slow
 * readers (inside roce_qp_read_begin()/_end()): each slot is one acquire
 * load, so a QP created or destroyed during the walk may be seen or not.
 */
struct roce_qp *roce_qp_next(const struct roce_device *dev, uint32_t *qpn);

/**
 * The QP numbered @p qpn, NULL when there is none: for slow readers, as
 * roce_qp_next().
 */
struct roce_qp *roce_qp_find(const struct roce_device *dev, uint32_t qpn);

/**
 * The worker that owns the QP numbered @p qpn, NULL when there is no such
 * QP. For a worker's thread between its quiescent points (the RX path
 * picking the owner of a frame): the QP cannot be freed meanwhile.
 */
struct roce_worker *roce_qp_owner(const struct roce_device *dev, uint32_t qpn);

/**
 * Give @p qp, just created (RESET), the number @p qpn instead of the one
 * roce_create_qp() chose (a register model whose QPs are numbered by
 * their register block). Control path; the change runs on the QP's worker
 * (roce_worker_exec()), so its RX dispatch never sees the QP half
 * renumbered. Returns 0; -EINVAL (NULL, @p qpn 0 or out of range, QP not
 * in RESET) or -EBUSY (@p qpn taken: the QP keeps its number).
 */
int roce_qp_renumber(struct roce_qp *qp, uint32_t qpn);

/**
 * Keep QPNs 2..@p last for roce_qp_renumber() (and QP1 for the GSI QP):
 * from now on roce_create_qp() numbers QPs above @p last, wrapping back to
 * @p last + 1 instead of 2. Replaces an earlier reservation; @p last below
 * 2 reserves nothing. Control path. Returns 0, -EINVAL (NULL, or no QPN
 * left above @p last).
 */
int roce_qpn_reserve(struct roce_device *dev, uint32_t last);

/* ------------------------------------------------------------------ */
/* QP snapshot                                                        */
/* ------------------------------------------------------------------ */

/**
 * What a driver may see of a QP's engines (roce_qp_snapshot()).
 *
 * Taken on the QP's worker (its polling thread, or in a function given to
 * roce_worker_exec()), every field is exact and all are of one moment:
 * the engines do not run meanwhile.
 *
 * Taken on any other thread (inside roce_qp_read_begin()/_end() or while
 * the caller keeps the QP from being destroyed), every field is one
 * atomic load: never torn, a value the field had, but the fields are not
 * of one moment:
 * - @c qpn, @c type and @c w are fixed for the QP's life: exact;
 * - @c state is loaded with acquire: @c err_cause, written before the QP
 *   entered ERR or SQE, is the cause of that state;
 * - @c sq_prod is loaded first, with acquire (the poster's release), then
 *   @c sq_started, then @c sq_cons with acquire (the worker's release):
 *   sq_prod - sq_cons and sq_prod - sq_started never exceed what was
 *   posted, and sq_cons == sq_prod means every WQE posted up to sq_prod
 *   completed;
 * - @c next_psn, @c epsn, @c msn and @c rd_atomic_inflight are relaxed
 *   loads of engine-owned fields: a recent value of each, racy with the
 *   engine that advances it.
 */
struct roce_qp_snapshot {
	struct roce_worker *w;		/**< the worker that owns the QP */
	uint32_t qpn;			/**< its number */
	uint8_t type;			/**< enum roce_qp_type */
	uint8_t state;			/**< enum roce_qp_state */
	uint8_t sr_on;			/**< RC with selective repeat */
	uint32_t err_cause;		/**< enum roce_err of ERR/SQE, else ROCE_OK */
	uint32_t sq_prod;		/**< send WQEs posted (free-running) */
	uint32_t sq_started;		/**< first send WQE the requester never started */
	uint32_t sq_cons;		/**< oldest send WQE not completed */
	uint32_t next_psn;		/**< requester: next PSN to send */
	uint32_t rd_atomic_inflight;	/**< READ/atomic WQEs awaiting responses */
	uint32_t epsn;			/**< responder: expected PSN */
	uint32_t msn;			/**< responder: message sequence number */
};

/** Fill @p s from @p qp (the contract: struct roce_qp_snapshot). */
void roce_qp_snapshot(const struct roce_qp *qp, struct roce_qp_snapshot *s);

/* ------------------------------------------------------------------ */
/* QP counters                                                        */
/* ------------------------------------------------------------------ */

/**
 * Counters kept per QP, written by its worker (and the two post errors
 * by the poster). Read them from other threads with roce_qp_stat() or
 * roce_qp_stats_read(): relaxed loads, each value never torn.
 */
struct roce_qp_stats {
	/* every message moves these: the first cache line */
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t acks_rx, acks_tx;
	uint64_t tx_zc_pkts;	/**< packets sent with zero-copy payload */
	uint64_t retrans_pkts, timeouts, rnr_naks_rx, rnr_naks_tx;
	uint64_t naks_rx, naks_tx;
	uint64_t dup_requests, out_of_seq, rx_drops;
	uint64_t wr_flushed;		/**< WRs completed by roce_qp_flush() */
	uint64_t flush_cqe_lost;	/**< flush completions lost to a full CQ */
	uint64_t post_send_err, post_recv_err;	/**< refused posts (poster-written) */
	uint64_t dup_acks, ghost_acks, seq_naks, bad_resps, req_stalls, tx_no_mbuf,
		 timer_fails;
	uint64_t cwnd_cuts;	/**< loss window halved: NAK / lost response */
	uint64_t cwnd_timeouts;	/**< loss window to its floor: ACK timeout */
	/* congestion control (roce_cc.c) */
	uint64_t ce_rx;		/**< CE-marked packets received */
	uint64_t cnp_tx, cnp_rx;	/**< CNPs sent (NP) / taken (RP) */
	uint64_t cc_cuts, cc_incs;	/**< DCQCN rate cuts / increase events */
	uint64_t cc_pace_stalls;	/**< requester stopped by the rate limiter */
	uint64_t cc_rate_mbps;	/**< gauge: limited rate, 0 when not limited */
	/* selective repeat (roce_sr.h) */
	uint64_t sr_ooo_accepted;	/**< responder: placed ahead of ePSN */
	uint64_t sr_ooo_dropped;	/**< responder: ahead of ePSN, not placeable */
	uint64_t sr_sack_tx, sr_sack_rx; /**< SACK NAKs sent / SACKs received */
	uint64_t sr_retx_pkts;		/**< packets resent with SR on */
	uint64_t gbn_retx_pkts;		/**< packets resent by go-back-N (SR off) */
	uint64_t sr_skipped;		/**< PSNs a round did not resend */
	uint64_t sr_srx_drops;		/**< SR extension on a QP without SR */
	uint64_t sr_tail_probes;	/**< RTO_low expiries that resent a tail */
	uint64_t sr_early_rounds;	/**< RTT-timed rounds before the timeout */
	uint64_t sr_rtt_us;		/**< smoothed round trip (a gauge) */
};

/** One exported QP counter: its name and where it is. */
struct roce_qp_stat_desc {
	const char *name;	/**< as xstats ("qp<qpn>_<name>") and telemetry show it */
	size_t off;		/**< offset of its uint64_t in struct roce_qp_stats */
	bool gauge;		/**< a level (not counted from a reset) */
};

/** Counters of roce_qp_stat_table[]. */
#define ROCE_QP_STAT_NB 32

/**
 * The QP counters a driver exports, in the order it shows them: the one
 * list of their names (the rest of struct roce_qp_stats is for tests and
 * debugging).
 */
extern const struct roce_qp_stat_desc roce_qp_stat_table[ROCE_QP_STAT_NB];

/** The counter at offset @p off of struct roce_qp_stats (one relaxed load). */
uint64_t roce_qp_stat(const struct roce_qp *qp, size_t off);

/** Copy every counter of @p qp into @p st (a relaxed load each). */
void roce_qp_stats_read(const struct roce_qp *qp, struct roce_qp_stats *st);

/** The counter @p d names in @p st (a copy: roce_qp_stats_read()). */
static inline uint64_t
roce_qp_stats_value(const struct roce_qp_stats *st,
		    const struct roce_qp_stat_desc *d)
{
	return *(const uint64_t *)(const void *)
		((const uint8_t *)st + d->off);
}

/* ------------------------------------------------------------------ */
/* Keys and memory regions                                            */
/* ------------------------------------------------------------------ */

/** The device of @p pd, NULL for NULL. */
struct roce_device *roce_pd_device(const struct roce_pd *pd);

/** The device of @p mr, NULL for NULL or an MR without PD. */
struct roce_device *roce_mr_device(const struct roce_mr *mr);

/** The key table index of @p mr (its keys are index << 8 | key byte). */
uint32_t roce_mr_key_index(const struct roce_mr *mr);

/**
 * Keep key indexes [0, @p n) for roce_reg_mr_fixed(): roce_reg_mr() and
 * roce_alloc_mw() allocate above them from now on (control path, before
 * registrations). Used by the ERNIC PD table of the net_ernic register
 * window, whose R_Keys name their entry directly. Returns 0, -EINVAL (@p n
 * not below the table size) or -EBUSY (an MR or MW already uses one).
 */
int roce_key_reserve_fixed(struct roce_device *dev, uint32_t n);

/**
 * Register an MR at the reserved key index @p index with key byte @p key
 * (key = index << 8 | key, lkey == rkey): the peer names [@p va, @p va +
 * @p length) and the device reads and writes @p host. Unlike roce_reg_mr()
 * the key byte is the caller's, and the region can be invalidated by a
 * SEND with Invalidate naming its exact key (an ERNIC PD table entry).
 * NULL with rte_errno: EINVAL (index not reserved, bad range or access),
 * EBUSY (index in use), ENOMEM. Deregister with roce_dereg_mr().
 */
struct roce_mr *roce_reg_mr_fixed(struct roce_pd *pd, uint32_t index,
				  uint8_t key, void *host, uint64_t va,
				  size_t length, int access);

/**
 * roce_dereg_mr() without its zero-copy check: the key is gone at once
 * even while frames attached to the memory are queued; the caller waits
 * for roce_key_zc_inflight() == 0 itself before the memory is reused (the
 * driver's grace period). 0, -EINVAL, -EBUSY (windows bound).
 */
int roce_dereg_mr_nowait(struct roce_mr *mr);

/**
 * Zero-copy TX mbufs attached to the memory of key index @p idx of @p dev
 * and not freed yet (any thread).
 */
uint32_t roce_key_zc_inflight(const struct roce_device *dev, uint32_t idx);

#endif /* ROCE_DRIVER_H */
