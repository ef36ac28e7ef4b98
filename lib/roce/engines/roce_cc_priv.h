/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_CC_PRIV_H
#define ROCE_CC_PRIV_H

/*
 * Congestion control inside libroce (not installed): the per-QP DCQCN
 * state and the hooks the worker and the requester call (roce_cc.c,
 * doc/guides/congestion.rst).
 *
 * - RX (roce_worker.c): a CE-marked packet accepted by a QP goes to
 *   roce_cc_ce_rx() (notification point: a CNP to the peer QP, at most one
 *   per np_min_time_between_cnps); a CNP goes to roce_cc_cnp_rx()
 *   (reaction point: rate cut).
 * - TX (roce_req.c): the send gate asks roce_cc_pace_ok() before each
 *   packet and roce_cc_charge() counts what left (a READ request is charged
 *   with the response bytes it asks for). A QP that is not rate limited
 *   pays one predictable branch. The responder (roce_resp.c) asks
 *   roce_cc_resp_pace_ok() before each READ response packet and charges
 *   it: the READ responses of a QP whose peer sent CNPs are paced too.
 * - Timers (worker heap): the rate increase timer (rp_time_reset) and the
 *   pacing wake-up, both only while the limiter is engaged; alpha decays
 *   lazily (the periods elapsed are applied at the next event).
 */

#include <stdbool.h>
#include <stdint.h>

#include "roce_cc.h"
#include "roce_timer.h"

struct roce_qp;
struct roce_worker;
struct roce_pkt;

/** Token bucket depth of a limited QP, in bytes. */
#define ROCE_CC_BURST_BYTES 16384u
/** Largest charge of one packet or READ request, in bytes. */
#define ROCE_CC_MAX_CHARGE (16u << 20)
/** Fixed point of alpha: 1.0 == 1 << ROCE_CC_ALPHA_SHIFT. */
#define ROCE_CC_ALPHA_SHIFT 20

/** Per-QP congestion control state; worker-owned. */
struct roce_cc_qp {
	/* engaged or not: qp->cc_limited, on the QP's per-packet lines */
	bool cnp_in_period;	/**< a CNP arrived in the current alpha period */
	bool cut_done;		/**< at least one cut since activation */
	uint32_t rc_kbps;	/**< current rate */
	uint32_t rt_kbps;	/**< target rate */
	uint32_t max_kbps;	/**< ceiling while active */
	uint32_t alpha;		/**< Q20 */
	uint32_t min_kbps;	/**< lowest rate set (0: never limited) */
	uint32_t t_stage;	/**< timer increase events since the last cut */
	uint32_t bc_stage;	/**< byte increase events since the last cut */
	uint64_t bytes;		/**< bytes sent toward the next byte event */
	uint64_t alpha_ts;	/**< TSC: start of the current alpha period */
	uint64_t last_cut;	/**< TSC of the last cut */
	/* pacing: token bucket in bytes << 16, rate in bytes/cycle << 32 */
	int64_t tokens;
	uint64_t tok_ts;
	uint64_t rate_q32;
	uint64_t fill_cycles;	/**< cycles that fill an empty bucket */
	struct roce_timer pace;	/**< wake the requester when tokens are back */
	struct roce_timer inc;	/**< rate increase timer (rp_time_reset) */
	/* notification point */
	uint64_t last_cnp;	/**< TSC of the last CNP sent */
	bool cnp_sent;		/**< last_cnp is valid */
	/* responder: READ responses wait for tokens (roce_cc_resp_pace_ok()) */
	bool resp_wait;		/**< the pace timer re-queues the responder */
	uint64_t resp_stalls;	/**< READ response runs stopped */
	/* ECN window of an RC requester (cc_win_mark(), RFC 8257's DCTCP) */
	/* runs or not: qp->cc_window, on the QP's per-packet lines */
	bool win_cwr;		/**< cut; no other before win_recover is acked */
	uint32_t win_alpha;	/**< marked share of a window, 1024ths */
	uint32_t win_end;	/**< the observation window ends at this PSN */
	uint32_t win_recover;	/**< req.psn at the last cut */
	uint32_t win_acked;	/**< PSNs acknowledged in the window */
	uint32_t win_marks;	/**< marks (CNPs, CE on READ data) in it */
	uint32_t win_rounds;	/**< observation windows ended */
	/** most PSNs in flight at an ACK, this window and the one before */
	uint32_t win_used, win_used_prev;
	uint64_t win_cuts;
	/* counters are in struct roce_qp_stats (ce_rx, cnp_tx, cc_*) */
};

/** Device parameter defaults into @p v (ROCE_CC_PARAM_MAX values). */
void roce_cc_defaults(uint32_t *v);

/** The IP TOS / traffic class to send for @p tc on @p dev (ECT when enabled). */
uint8_t roce_cc_tos(const struct roce_device *dev, uint8_t tc);

/** Reset @p qp's state (RESET->INIT, the move to RESET); worker only. */
void roce_cc_reset(struct roce_qp *qp);

/** Cancel @p qp's timers (destroy); worker only. */
void roce_cc_stop(struct roce_qp *qp);

/**
 * Notification point: @p pkt, accepted by @p qp, carries CE. Counts it
 * and sends a CNP to the peer QP unless one left less than
 * np_min_time_between_cnps ago. A CE-marked READ response also counts as
 * a CNP for @p qp's own reaction point (READ requests are paced by the
 * response bytes they cause). Worker only.
 */
void roce_cc_ce_rx(struct roce_qp *qp, const struct roce_pkt *pkt,
		   uint64_t now);

/**
 * Reaction point: a CNP arrived on @p w. Finds its QP (BTH destination),
 * checks it is @p w's, connected, in RTS/SQD and the CNP comes from its
 * peer, and applies the DCQCN cut. Returns true when a QP took it.
 */
bool roce_cc_cnp_rx(struct roce_worker *w, const struct roce_pkt *pkt,
		    uint64_t now);

/** Completer, out of line part of roce_cc_acked(). */
void roce_cc_win_acked(struct roce_qp *qp, uint32_t acked);

/**
 * Completer: comp.psn of @p qp moved by @p acked PSNs; the ECN window's
 * observation window and cut guard follow it (when it runs: @p on is
 * qp->cc_window).
 */
static inline void
roce_cc_acked(struct roce_qp *qp, bool on, uint32_t acked)
{
	if (__builtin_expect(on, 0))
		roce_cc_win_acked(qp, acked);
}

/** Requester, out of line part of roce_cc_pace_ok(). */
bool roce_cc_pace_check(struct roce_qp *qp, uint64_t now);

/** Requester, out of line part of roce_cc_charge(). */
void roce_cc_charge_bytes(struct roce_qp *qp, uint32_t bytes, uint64_t now);

/**
 * Requester send gate: true when @p qp (@p limited: its qp->cc_limited,
 * which the caller has at hand) may send now. A limited QP without tokens arms its pacing timer (which rings the
 * doorbell) and returns false.
 */
static inline bool
roce_cc_pace_ok(struct roce_qp *qp, uint8_t limited, uint64_t now)
{
	if (__builtin_expect(!limited, 1))
		return true;
	return roce_cc_pace_check(qp, now);
}

/*
 * The responder's gate before a READ response packet: true to send it;
 * false stops its run, and the limiter's timer puts the QP back on the
 * worker's responder list when the tokens are back. The requester and the
 * responder of a QP draw from one bucket: the QP's rate is what it sends.
 */
bool roce_cc_resp_pace_check(struct roce_qp *qp, uint64_t now);

static inline bool
roce_cc_resp_pace_ok(struct roce_qp *qp, uint8_t limited, uint64_t now)
{
	if (__builtin_expect(!limited, 1))
		return true;
	return roce_cc_resp_pace_check(qp, now);
}

/**
 * @p bytes left for @p qp (frame bytes; READ: response bytes), counted
 * against its tokens while @p limited (its qp->cc_limited).
 */
static inline void
roce_cc_charge(struct roce_qp *qp, uint8_t limited, uint32_t bytes,
	       uint64_t now)
{
	if (__builtin_expect(limited, 0))
		roce_cc_charge_bytes(qp, bytes, now);
}

#endif /* ROCE_CC_PRIV_H */
