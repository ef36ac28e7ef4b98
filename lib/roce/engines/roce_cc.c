/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control: ECN marking, the notification point (CNPs) and the
 * DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015), with the parameters of the mlx5
 * implementation (doc/guides/congestion.rst).
 *
 * Reaction point of one QP (rates in kbit/s, alpha in Q20):
 * - first CNP: the limiter engages at Rc = Rt = rate_to_set_on_first_cnp
 *   (0: the max rate), alpha = initial_alpha_value;
 * - CNP (at most one cut per rate_reduce_monitor_period):
 *   Rt = Rc, Rc = Rc * (1 - alpha / 2^(gd - 10)), never below
 *   Rc * min_dec_fac % nor min_rate; both increase stages restart;
 * - alpha, once per dce_tcp_rtt: alpha = g * alpha + (1 - g) if a CNP
 *   arrived in the period, else g * alpha, g = dce_tcp_g / 1024; applied
 *   lazily at the next event for the periods elapsed;
 * - increase events, every rp_time_reset (timer T) and every rp_byte_reset
 *   bytes sent (byte counter BC): fast recovery while max(T, BC) <
 *   threshold (Rc = (Rt + Rc) / 2), hyper increase when min(T, BC) >
 *   threshold (Rt += (min - threshold) * hai_rate), additive otherwise
 *   (Rt += ai_rate), then Rc = (Rt + Rc) / 2; at the max rate the limiter
 *   is released.
 * Pacing: a token bucket of ROCE_CC_BURST_BYTES checked by the requester's
 * send gate and by the responder before each READ response packet, with
 * the TSC of the poll; when empty, one timer wakes the QP when the tokens
 * are back (never a timer per packet).
 *
 * Notification point: a CE-marked packet makes its QP send a CNP to the
 * QP that sent it: RC/UC the connected peer; UD the DETH source QP at the
 * packet's source GID and MAC (annex A17.9.2). A CE-marked READ response
 * is notified like any packet: the responder, which sent it, paces its
 * responses (the requester does not cut its own rate for it).
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "roce_build.h"
#include "roce_cc.h"
#include "roce_cc_priv.h"
#include "roce_engine.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_parse.h"
#include "roce_priv.h"
#include "roce_qp.h"
#include "roce_worker.h"

/* ------------------------------------------------------------------ */
/* Parameters                                                         */
/* ------------------------------------------------------------------ */

static const struct roce_cc_param_desc cc_params[ROCE_CC_PARAM_MAX] = {
	[ROCE_CC_ECN_ENABLE] = { "ecn_enable", "", 1, 0, 1,
		"send RoCEv2 packets ECN-capable, ECT(0)" },
	[ROCE_CC_NP_ENABLE] = { "np_enable", "", 1, 0, 1,
		"notification point: send CNPs for CE-marked packets" },
	[ROCE_CC_RP_ENABLE] = { "rp_enable", "", 1, 0, 1,
		"reaction point: DCQCN rate limiting on CNPs" },
	[ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS] = { "np_min_time_between_cnps",
		"us", 4, 0, 1000000, "least time between two CNPs of a QP" },
	[ROCE_CC_NP_CNP_DSCP] = { "np_cnp_dscp", "", 48, 0, 63,
		"DSCP of the CNPs sent" },
	[ROCE_CC_NP_CNP_PRIO] = { "np_cnp_prio", "", 6, 0, 7,
		"802.1Q priority of the CNPs sent (VLAN-tagged port)" },
	[ROCE_CC_RP_TIME_RESET] = { "rp_time_reset", "us", 300, 1, 10000000,
		"time between rate increase events (timer T)" },
	[ROCE_CC_RP_BYTE_RESET] = { "rp_byte_reset", "bytes", 32767, 0,
		UINT32_MAX, "bytes sent between rate increase events (BC), 0: off" },
	[ROCE_CC_RP_THRESHOLD] = { "rp_threshold", "", 5, 1, 31,
		"increase events of fast recovery (F)" },
	[ROCE_CC_RP_AI_RATE] = { "rp_ai_rate", "Mbit/s", 5, 1, 400000,
		"additive increase step of the target rate" },
	[ROCE_CC_RP_HAI_RATE] = { "rp_hai_rate", "Mbit/s", 50, 1, 400000,
		"hyper increase step of the target rate" },
	[ROCE_CC_RP_MIN_DEC_FAC] = { "rp_min_dec_fac", "%", 50, 1, 100,
		"a cut keeps at least this share of the current rate" },
	[ROCE_CC_RP_MIN_RATE] = { "rp_min_rate", "Mbit/s", 1, 1, 400000,
		"lowest rate of a limited QP" },
	[ROCE_CC_RP_MAX_RATE] = { "rp_max_rate", "Mbit/s", 0, 0, 400000,
		"highest rate; the limiter is released there (0: line_rate)" },
	[ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = {
		"rp_rate_to_set_on_first_cnp", "Mbit/s", 0, 0, 400000,
		"rate set at the first CNP (0: the max rate, then cut)" },
	[ROCE_CC_RP_DCE_TCP_G] = { "rp_dce_tcp_g", "1/1024", 1019, 0, 1023,
		"alpha kept per period: g = value / 1024" },
	[ROCE_CC_RP_DCE_TCP_RTT] = { "rp_dce_tcp_rtt", "us", 1, 1, 131071,
		"alpha update period" },
	[ROCE_CC_RP_INITIAL_ALPHA_VALUE] = { "rp_initial_alpha_value",
		"1/1024", 1023, 0, 1023, "alpha at the first CNP" },
	[ROCE_CC_RP_GD] = { "rp_gd", "", 11, 10, 20,
		"cut = rate * alpha_1024 / 2^gd (11: rate * alpha / 2)" },
	[ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = {
		"rp_rate_reduce_monitor_period", "us", 4, 0, 1000000,
		"least time between two rate cuts" },
	[ROCE_CC_RP_ECN_WINDOW] = { "rp_ecn_window", "", 1, 0, 1,
		"RC requesters cut their window on marks (DCTCP)" },
	[ROCE_CC_LINE_RATE] = { "line_rate", "Mbit/s", 100000, 1, 400000,
		"the port's rate: what rp_max_rate 0 stands for" },
};

static const struct {
	const char *alias;
	enum roce_cc_param id;
} cc_aliases[] = {
	{ "rp_alpha_update_period", ROCE_CC_RP_DCE_TCP_RTT },
	{ "dce_tcp_rtt", ROCE_CC_RP_DCE_TCP_RTT },
	{ "dce_tcp_g", ROCE_CC_RP_DCE_TCP_G },
	{ "initial_alpha_value", ROCE_CC_RP_INITIAL_ALPHA_VALUE },
	{ "min_time_between_cnps", ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS },
	{ "cnp_dscp", ROCE_CC_NP_CNP_DSCP },
	{ "cnp_802p_prio", ROCE_CC_NP_CNP_PRIO },
	{ "rate_to_set_on_first_cnp", ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP },
	{ "rate_reduce_monitor_period", ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD },
	{ "rpg_time_reset", ROCE_CC_RP_TIME_RESET },
	{ "rpg_byte_reset", ROCE_CC_RP_BYTE_RESET },
	{ "rpg_threshold", ROCE_CC_RP_THRESHOLD },
	{ "rpg_ai_rate", ROCE_CC_RP_AI_RATE },
	{ "rpg_hai_rate", ROCE_CC_RP_HAI_RATE },
	{ "rpg_min_dec_fac", ROCE_CC_RP_MIN_DEC_FAC },
	{ "rpg_min_rate", ROCE_CC_RP_MIN_RATE },
	{ "rpg_max_rate", ROCE_CC_RP_MAX_RATE },
	{ "rpg_gd", ROCE_CC_RP_GD },
};

const struct roce_cc_param_desc *
roce_cc_param_info(unsigned int id)
{
	return id < ROCE_CC_PARAM_MAX ? &cc_params[id] : NULL;
}

int
roce_cc_param_by_name(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return -EINVAL;
	for (i = 0; i < ROCE_CC_PARAM_MAX; i++) {
		const char *n = cc_params[i].name;

		if (strcmp(name, n) == 0)
			return (int)i;
		/* mlx5 names have no rp_/np_ prefix */
		if ((strncmp(n, "rp_", 3) == 0 || strncmp(n, "np_", 3) == 0) &&
		    strcmp(name, n + 3) == 0)
			return (int)i;
	}
	for (i = 0; i < RTE_DIM(cc_aliases); i++)
		if (strcmp(name, cc_aliases[i].alias) == 0)
			return (int)cc_aliases[i].id;
	return -ENOENT;
}

void
roce_cc_defaults(uint32_t *v)
{
	unsigned int i;

	for (i = 0; i < ROCE_CC_PARAM_MAX; i++)
		v[i] = cc_params[i].def;
}

int
roce_cc_set(struct roce_device *dev, unsigned int id, uint32_t value)
{
	if (dev == NULL || id >= ROCE_CC_PARAM_MAX)
		return -EINVAL;
	if (value < cc_params[id].min || value > cc_params[id].max)
		return -ERANGE;
	/* one word per parameter: workers read it with relaxed loads */
	__atomic_store_n(&dev->cc[id], value, __ATOMIC_RELAXED);
	return 0;
}

int
roce_cc_get(const struct roce_device *dev, unsigned int id, uint32_t *value)
{
	if (dev == NULL || id >= ROCE_CC_PARAM_MAX || value == NULL)
		return -EINVAL;
	*value = __atomic_load_n(&dev->cc[id], __ATOMIC_RELAXED);
	return 0;
}

static inline uint32_t
cc_param(const struct roce_device *dev, enum roce_cc_param id)
{
	return __atomic_load_n(&dev->cc[id], __ATOMIC_RELAXED);
}

static inline uint64_t
cc_us_tsc(const struct roce_device *dev, enum roce_cc_param id)
{
	return roce_ns_to_tsc((uint64_t)cc_param(dev, id) * 1000);
}

uint8_t
roce_cc_tos(const struct roce_device *dev, uint8_t tc)
{
	/* an explicit ECN codepoint of the address vector is kept */
	if ((tc & 3) == ROCE_ECN_NOT_ECT &&
	    cc_param(dev, ROCE_CC_ECN_ENABLE) != 0)
		return (uint8_t)(tc | ROCE_ECN_ECT0);
	return tc;
}

/* ------------------------------------------------------------------ */
/* Rate limiter                                                       */
/* ------------------------------------------------------------------ */

static uint32_t
cc_max_kbps(const struct roce_device *dev)
{
	uint32_t m = cc_param(dev, ROCE_CC_RP_MAX_RATE);

	if (m == 0)
		m = cc_param(dev, ROCE_CC_LINE_RATE);
	return m * 1000;
}

/* Rate in bytes per TSC cycle << 32 (kbit/s * 125 = bytes/s). */
static void
cc_set_rate(struct roce_qp *qp, uint32_t kbps)
{
	struct roce_cc_qp *cc = &qp->cc;
	uint64_t hz = rte_get_tsc_hz();

	cc->rc_kbps = kbps;
	if (cc->min_kbps == 0 || kbps < cc->min_kbps)
		cc->min_kbps = kbps;
	cc->rate_q32 = (((uint64_t)kbps * 125 << 20) / hz) << 12;
	if (cc->rate_q32 == 0)
		cc->rate_q32 = 1;
	cc->fill_cycles = ((uint64_t)ROCE_CC_BURST_BYTES << 32) / cc->rate_q32 +
		1;
	qp->stats.cc_rate_mbps = kbps / 1000;
}

static void cc_inc_expired(struct roce_timer *t, uint64_t now);
static void cc_pace_expired(struct roce_timer *t, uint64_t now);

/* The pace timer's wake-up: the requester, and the responder if it waits. */
static void
cc_wake(struct roce_qp *qp)
{
	roce_worker_doorbell(qp->w, qp);
	if (qp->cc.resp_wait) {
		qp->cc.resp_wait = false;
		roce_worker_resp_pending(qp->w, qp);
	}
}

static void
cc_release(struct roce_qp *qp)
{
	struct roce_cc_qp *cc = &qp->cc;
	struct roce_timers *ts = roce_worker_timers(qp->w);

	qp->cc_limited = 0;
	roce_timer_cancel(ts, &cc->inc);
	/* a requester or responder waiting for tokens goes at once */
	if (roce_timer_armed(&cc->pace)) {
		roce_timer_cancel(ts, &cc->pace);
		cc_wake(qp);
	}
	qp->stats.cc_rate_mbps = 0;
}

void
roce_cc_stop(struct roce_qp *qp)
{
	struct roce_timers *ts;

	if (qp->w == NULL)
		return;
	ts = roce_worker_timers(qp->w);
	roce_timer_cancel(ts, &qp->cc.inc);
	roce_timer_cancel(ts, &qp->cc.pace);
	qp->cc_limited = 0;
}

void
roce_cc_reset(struct roce_qp *qp)
{
	struct roce_cc_qp *cc = &qp->cc;

	roce_cc_stop(qp);
	memset(cc, 0, sizeof(*cc));
	qp->cc_limited = 0;
	qp->cc_window = 0;
	roce_timer_init(&cc->inc, cc_inc_expired, qp);
	roce_timer_init(&cc->pace, cc_pace_expired, qp);
	qp->stats.cc_rate_mbps = 0;
}

/* Timer arming failures (heap full) are counted; the QP still works. */
static void
cc_arm(struct roce_qp *qp, struct roce_timer *t, uint64_t expire)
{
	if (roce_timer_arm(roce_worker_timers(qp->w), t, expire) != 0)
		qp->stats.timer_fails++;
}

/* Apply the alpha periods elapsed up to @p now. */
static void
cc_alpha_update(struct roce_qp *qp, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	const struct roce_device *dev = qp->dev;
	uint64_t period = cc_us_tsc(dev, ROCE_CC_RP_DCE_TCP_RTT);
	uint64_t g = cc_param(dev, ROCE_CC_RP_DCE_TCP_G);
	uint64_t a = cc->alpha, n;

	if (period == 0)
		period = 1;
	if (now < cc->alpha_ts + period)
		return;
	n = (now - cc->alpha_ts) / period;
	cc->alpha_ts += n * period;
	if (cc->cnp_in_period) {
		/* the period that saw a CNP: alpha = g * alpha + (1 - g) */
		a = (a * g + ((1024 - g) << ROCE_CC_ALPHA_SHIFT)) >> 10;
		cc->cnp_in_period = false;
		n--;
	}
	/* quiet periods: alpha = g * alpha; (1019/1024)^4096 < 2^-28 */
	if (n >= 4096)
		a = 0;
	for (; n > 0 && a != 0; n--)
		a = (a * g) >> 10;
	cc->alpha = (uint32_t)RTE_MIN(a, (uint64_t)1 << ROCE_CC_ALPHA_SHIFT);
}

/* Engage the limiter at the first CNP. */
static void
cc_activate(struct roce_qp *qp, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	const struct roce_device *dev = qp->dev;
	uint32_t first = cc_param(dev, ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP);

	cc->max_kbps = cc_max_kbps(dev);
	cc->rt_kbps = first != 0 ? RTE_MIN(first * 1000, cc->max_kbps) :
		cc->max_kbps;
	cc_set_rate(qp, cc->rt_kbps);
	cc->alpha = cc_param(dev, ROCE_CC_RP_INITIAL_ALPHA_VALUE) <<
		(ROCE_CC_ALPHA_SHIFT - 10);
	cc->alpha_ts = now;
	cc->cnp_in_period = false;
	cc->cut_done = false;
	cc->tokens = (int64_t)ROCE_CC_BURST_BYTES << 16;
	cc->tok_ts = now;
	qp->cc_limited = 1;
}

/* Reaction to one congestion notification (CNP, CE on a READ response). */
static void
cc_react(struct roce_qp *qp, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	const struct roce_device *dev = qp->dev;
	uint64_t rc, cut, floor;
	uint32_t gd, min_kbps;

	if (cc_param(dev, ROCE_CC_RP_ENABLE) == 0)
		return;
	if (!qp->cc_limited)
		cc_activate(qp, now);
	else
		cc_alpha_update(qp, now);
	cc->cnp_in_period = true;
	if (cc->cut_done && now - cc->last_cut <
	    cc_us_tsc(dev, ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD))
		return;	/* one cut per monitor period */
	rc = cc->rc_kbps;
	gd = cc_param(dev, ROCE_CC_RP_GD);
	/* alpha is Q20: rc * alpha_1024 / 2^gd == rc * alpha >> (gd + 10) */
	cut = (rc * cc->alpha) >> (gd + 10);
	floor = rc * cc_param(dev, ROCE_CC_RP_MIN_DEC_FAC) / 100;
	min_kbps = cc_param(dev, ROCE_CC_RP_MIN_RATE) * 1000;
	cc->rt_kbps = (uint32_t)rc;
	min_kbps = RTE_MIN(min_kbps, cc->max_kbps);
	rc = RTE_MAX(rc - cut, floor);
	rc = RTE_MAX(rc, (uint64_t)min_kbps);
	cc_set_rate(qp, (uint32_t)rc);
	cc->last_cut = now;
	cc->cut_done = true;
	cc->t_stage = 0;
	cc->bc_stage = 0;
	cc->bytes = 0;
	qp->stats.cc_cuts++;
	cc_arm(qp, &cc->inc, now + cc_us_tsc(dev, ROCE_CC_RP_TIME_RESET));
	ROCE_LOG(DEBUG, req, "qp %u: cnp: rate %u kbit/s target %u alpha %u",
		 qp->qpn, cc->rc_kbps, cc->rt_kbps,
		 cc->alpha >> (ROCE_CC_ALPHA_SHIFT - 10));
}

/* One increase event (timer or byte counter). */
static void
cc_increase(struct roce_qp *qp, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	const struct roce_device *dev = qp->dev;
	uint32_t f = cc_param(dev, ROCE_CC_RP_THRESHOLD);
	uint32_t hi = RTE_MAX(cc->t_stage, cc->bc_stage);
	uint32_t lo = RTE_MIN(cc->t_stage, cc->bc_stage);
	uint64_t rt = cc->rt_kbps;

	cc_alpha_update(qp, now);
	if (hi < f)
		;	/* fast recovery: toward the target only */
	else if (lo > f)
		rt += (uint64_t)(lo - f) * cc_param(dev, ROCE_CC_RP_HAI_RATE) *
			1000;
	else
		rt += (uint64_t)cc_param(dev, ROCE_CC_RP_AI_RATE) * 1000;
	rt = RTE_MIN(rt, (uint64_t)cc->max_kbps);
	cc->rt_kbps = (uint32_t)rt;
	qp->stats.cc_incs++;
	/* the limiter goes once the rate is back to the max (mlx5 too) */
	if ((rt + cc->rc_kbps + 1) / 2 >= cc->max_kbps) {
		cc_release(qp);
		return;
	}
	cc_set_rate(qp, (uint32_t)((rt + cc->rc_kbps + 1) / 2));
}

static void
cc_inc_expired(struct roce_timer *t, uint64_t now)
{
	struct roce_qp *qp = t->arg;
	struct roce_cc_qp *cc = &qp->cc;
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	if (!qp->cc_limited)
		return;
	/* RTR: a responder still sends READ responses */
	if (state != ROCE_QPS_RTR && state != ROCE_QPS_RTS &&
	    state != ROCE_QPS_SQD) {
		cc_release(qp);
		return;
	}
	cc->t_stage++;
	cc_increase(qp, now);
	if (qp->cc_limited)
		cc_arm(qp, &cc->inc,
		       now + cc_us_tsc(qp->dev, ROCE_CC_RP_TIME_RESET));
}

static void
cc_pace_expired(struct roce_timer *t, uint64_t now)
{
	struct roce_qp *qp = t->arg;

	RTE_SET_USED(now);
	cc_wake(qp);
}

/* Refill the bucket up to @p now. */
static inline void
cc_refill(struct roce_cc_qp *cc, uint64_t now)
{
	/* from the deepest debt to a full bucket: MAX_CHARGE / BURST + 1 fills */
	const uint64_t span = ROCE_CC_MAX_CHARGE / ROCE_CC_BURST_BYTES + 1;
	const int64_t full = (int64_t)ROCE_CC_BURST_BYTES << 16;
	uint64_t dt;

	if (now <= cc->tok_ts)
		return;
	dt = now - cc->tok_ts;
	cc->tok_ts = now;
	if (dt >= cc->fill_cycles * span) {
		cc->tokens = full;
		return;
	}
	/* dt * rate_q32 < span * (BURST << 32) + rate_q32 < 2^58 */
	cc->tokens += (int64_t)((dt * cc->rate_q32) >> 16);
	if (cc->tokens > full)
		cc->tokens = full;
}

/* True when the bucket has tokens; else the pace timer is armed. */
static bool
cc_tokens(struct roce_qp *qp, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	uint64_t debt, wait;

	cc_refill(cc, now);
	if (cc->tokens >= 0)
		return true;
	/* wake when the debt is paid: debt bytes / (bytes per cycle) */
	debt = ((uint64_t)-cc->tokens >> 16) + 1;
	wait = (debt << 32) / cc->rate_q32 + 1;
	if (!roce_timer_armed(&cc->pace))
		cc_arm(qp, &cc->pace, now + wait);
	return false;
}

bool
roce_cc_pace_check(struct roce_qp *qp, uint64_t now)
{
	if (cc_tokens(qp, now))
		return true;
	qp->stats.cc_pace_stalls++;
	return false;
}

bool
roce_cc_resp_pace_check(struct roce_qp *qp, uint64_t now)
{
	if (cc_tokens(qp, now))
		return true;
	qp->cc.resp_wait = true;
	qp->cc.resp_stalls++;
	return false;
}

void
roce_cc_charge_bytes(struct roce_qp *qp, uint32_t bytes, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	uint32_t reset = cc_param(qp->dev, ROCE_CC_RP_BYTE_RESET);
	int64_t floor = -((int64_t)ROCE_CC_MAX_CHARGE << 16);

	bytes = RTE_MIN(bytes, ROCE_CC_MAX_CHARGE);
	cc_refill(cc, now);
	cc->tokens -= (int64_t)bytes << 16;
	if (cc->tokens < floor)
		cc->tokens = floor;
	if (reset == 0)
		return;
	cc->bytes += bytes;
	if (cc->bytes >= reset) {
		cc->bytes = 0;
		cc->bc_stage++;
		cc_increase(qp, now);
	}
}

/* ------------------------------------------------------------------ */
/* ECN window                                                         */
/* ------------------------------------------------------------------ */

/* alpha's gain per observation window: g = 1 / 2^4 (RFC 8257's 1/16) */
#define CC_WIN_G_SHIFT 4

/*
 * A congestion mark for RC requester @p qp with PSNs in flight: a CNP
 * from its peer, or CE on a READ response it asked for. The first one
 * starts the window's state (alpha 1: the first cut halves); then at most
 * one cut a window of data: none until the PSNs sent before the last cut
 * are acknowledged, the marks that answer those frames having been paid
 * for by that cut.
 */
static void
cc_win_mark(struct roce_qp *qp)
{
	struct roce_cc_qp *cc = &qp->cc;

	/* nothing in flight: the marks are on READ responses this QP sent */
	if (qp->type != ROCE_QPT_RC || qp->req.psn == qp->comp.psn ||
	    cc_param(qp->dev, ROCE_CC_RP_ECN_WINDOW) == 0)
		return;
	if (!qp->cc_window) {
		cc->win_alpha = 1024;
		cc->win_end = qp->req.psn;
		cc->win_acked = 0;
		cc->win_marks = 0;
		cc->win_cwr = false;
		cc->win_used = 0;
		cc->win_used_prev = 0;
		qp->cc_window = 1;
	}
	cc->win_marks++;
	if (cc->win_cwr)
		return;
	roce_req_cwnd_ecn(qp, cc->win_alpha,
			  RTE_MAX(cc->win_used, cc->win_used_prev));
	cc->win_cwr = true;
	cc->win_recover = qp->req.psn;
	cc->win_cuts++;
}

void
roce_cc_win_acked(struct roce_qp *qp, uint32_t acked)
{
	struct roce_cc_qp *cc = &qp->cc;
	uint32_t psn = qp->comp.psn;
	uint32_t used = roce_psn_offset(qp->req.psn, psn) + acked;
	uint64_t f;

	/* what was in flight before this ACK: the window in use (a READ
	 * that ends drains it to nothing, which says nothing of the window) */
	cc->win_used = RTE_MAX(cc->win_used, used);
	cc->win_acked += acked;
	if (cc->win_cwr && !roce_psn_before(psn, cc->win_recover))
		cc->win_cwr = false;
	if (roce_psn_before(psn, cc->win_end))
		return;
	/* a window of data acknowledged: alpha = (1 - g) alpha + g F */
	f = cc->win_acked == 0 ? 0 :
		(uint64_t)RTE_MIN(cc->win_marks, cc->win_acked) * 1024 /
		cc->win_acked;
	cc->win_alpha = (uint32_t)((cc->win_alpha -
		(cc->win_alpha >> CC_WIN_G_SHIFT)) + (f >> CC_WIN_G_SHIFT));
	cc->win_acked = 0;
	cc->win_marks = 0;
	cc->win_end = qp->req.psn;
	cc->win_rounds++;
	cc->win_used_prev = cc->win_used;
	cc->win_used = 0;
}

/* ------------------------------------------------------------------ */
/* Notification point                                                 */
/* ------------------------------------------------------------------ */

/*
 * The path back to the sender of UD packet @p pkt: its source MAC, GID and
 * DETH source QP (annex A17.9.2: the CNP goes to the QP that sent the
 * marked packet).
 */
static void
cc_ud_path(const struct roce_qp *qp, const struct roce_pkt *pkt,
	   struct roce_hdr_fields *f)
{
	const struct roce_device *dev = qp->dev;

	memset(f, 0, sizeof(*f));
	rte_ether_addr_copy(&roce_pkt_eth(pkt)->src_addr, &f->dst_mac);
	memcpy(f->src_mac.addr_bytes, dev->cfg.mac, RTE_ETHER_ADDR_LEN);
	f->vlan = dev->cfg.vlan;
	f->vlan_tci = dev->cfg.vlan_tci;
	f->ip_ver = pkt->ip_ver;
	f->ttl = 64;
	memcpy(f->sgid, pkt->dgid, sizeof(f->sgid));
	memcpy(f->dgid, pkt->sgid, sizeof(f->dgid));
	f->udp_sport = pkt->udp_sport;
	f->pkey = roce_bth_pkey(roce_pkt_bth(pkt));
	f->dqpn = roce_deth_sqpn(roce_pkt_deth(pkt));
}

/* Send a CNP to the sender of @p pkt (RC/UC: the connected peer QP). */
static int
cc_send_cnp(struct roce_qp *qp, const struct roce_pkt *pkt)
{
	const struct roce_device *dev = qp->dev;
	struct roce_hdr_fields f;
	struct rte_mbuf *m;
	int ret;

	if (qp->type == ROCE_QPT_UD) {
		cc_ud_path(qp, pkt, &f);
	} else {
		f = qp->path;
		f.dqpn = qp->attr.dest_qp_num;
	}

	f.tos = (uint8_t)(cc_param(dev, ROCE_CC_NP_CNP_DSCP) << 2 |
			  ROCE_ECN_NOT_ECT);
	if (f.vlan)
		f.vlan_tci = roce_vlan_tci(cc_param(dev, ROCE_CC_NP_CNP_PRIO),
					   roce_vlan_dei(f.vlan_tci),
					   roce_vlan_vid(f.vlan_tci));
	f.opcode = ROCE_OP_CNP;
	f.se = false;
	f.mig = false;
	f.fecn = false;
	f.becn = true;		/* annex A17.9.2 */
	f.ackreq = false;
	f.psn = 0;
	m = rte_pktmbuf_alloc(dev->cfg.hdr_pool);
	if (m == NULL)
		return -ENOMEM;
	ret = roce_build_mbuf(m, &f);
	if (ret == 0)
		ret = roce_icrc_fill_mbuf(m, m->l2_len);
	if (ret != 0) {
		rte_pktmbuf_free(m);
		return ret;
	}
	roce_worker_tx(qp->w, m);
	return 0;
}

void
roce_cc_ce_rx(struct roce_qp *qp, const struct roce_pkt *pkt, uint64_t now)
{
	struct roce_cc_qp *cc = &qp->cc;
	const struct roce_device *dev = qp->dev;

	qp->stats.ce_rx++;
	qp->w->cnt[ROCE_WCNT_RX_CE]++;
	/* READ data marked on its way here: the requester's own window */
	if ((pkt->op->flags & (ROCE_OPF_READ | ROCE_OPF_RESP)) ==
	    (ROCE_OPF_READ | ROCE_OPF_RESP))
		cc_win_mark(qp);
	/* a READ response is notified as any packet: its sender, the
	 * responder, paces its responses (roce_cc_resp_pace_ok()) */
	if ((qp->type != ROCE_QPT_UD && qp->hdr_len == 0) ||
	    (qp->type == ROCE_QPT_UD && roce_pkt_deth(pkt) == NULL) ||
	    cc_param(dev, ROCE_CC_NP_ENABLE) == 0)
		return;
	if (cc->cnp_sent && now - cc->last_cnp <
	    cc_us_tsc(dev, ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS)) {
		qp->w->cnt[ROCE_WCNT_CNP_COALESCED]++;
		return;
	}
	if (cc_send_cnp(qp, pkt) != 0) {
		qp->stats.tx_no_mbuf++;
		return;
	}
	cc->cnp_sent = true;
	cc->last_cnp = now;
	qp->stats.cnp_tx++;
	qp->w->cnt[ROCE_WCNT_TX_CNP]++;
}

bool
roce_cc_cnp_rx(struct roce_worker *w, const struct roce_pkt *pkt,
	       uint64_t now)
{
	const struct roce_device *dev = w->dev;
	uint32_t dqpn = roce_bth_dqpn(roce_pkt_bth(pkt));
	struct roce_qp *qp;
	uint8_t state;

	qp = dqpn > 1 && dqpn <= dev->qpn_mask ?
		__atomic_load_n(&dev->qp_table[dqpn], __ATOMIC_ACQUIRE) : NULL;
	/* RC/UC: from the connected peer; UD: from any sender (the QP's
	 * rate is limited for all its destinations, as mlx5 does) */
	if (qp == NULL || qp->qpn != dqpn || qp->w != w ||
	    (qp->type != ROCE_QPT_RC && qp->type != ROCE_QPT_UC &&
	     qp->type != ROCE_QPT_UD) ||
	    (qp->type != ROCE_QPT_UD &&
	     memcmp(pkt->sgid, qp->dgid, sizeof(pkt->sgid)) != 0)) {
		w->cnt[ROCE_WCNT_RX_CNP_IGNORED]++;
		return false;
	}
	/* RTR too: a responder-only QP (perftest's servers stay in RTR)
	 * sends READ responses */
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state != ROCE_QPS_RTR && state != ROCE_QPS_RTS &&
	    state != ROCE_QPS_SQD) {
		w->cnt[ROCE_WCNT_RX_CNP_IGNORED]++;
		return false;
	}
	qp->stats.cnp_rx++;
	cc_win_mark(qp);
	cc_react(qp, now);
	return true;
}

int
roce_qp_cc_query(const struct roce_qp *qp, struct roce_qp_cc_info *info)
{
	const struct roce_cc_qp *cc;

	if (qp == NULL || info == NULL)
		return -EINVAL;
	cc = &qp->cc;
	memset(info, 0, sizeof(*info));
	info->limited =
		__atomic_load_n(&qp->cc_limited, __ATOMIC_RELAXED) != 0;
	if (info->limited) {
		info->rate_mbps = cc->rc_kbps / 1000;
		info->target_mbps = cc->rt_kbps / 1000;
	} else {
		info->rate_mbps = cc_max_kbps(qp->dev) / 1000;
		info->target_mbps = info->rate_mbps;
	}
	info->min_rate_mbps = cc->min_kbps != 0 ? cc->min_kbps / 1000 :
		cc_max_kbps(qp->dev) / 1000;
	info->alpha = cc->alpha >> (ROCE_CC_ALPHA_SHIFT - 10);
	info->ce_rx = qp->stats.ce_rx;
	info->cnp_tx = qp->stats.cnp_tx;
	info->cnp_rx = qp->stats.cnp_rx;
	info->rate_cuts = qp->stats.cc_cuts;
	info->rate_incs = qp->stats.cc_incs;
	info->pace_stalls = qp->stats.cc_pace_stalls;
	info->resp_pace_stalls = cc->resp_stalls;
	info->window = qp->cc_window != 0;
	info->cwnd = RTE_MIN(qp->req.cwnd, qp->req.max_inflight);
	info->window_alpha = cc->win_alpha;
	info->window_cuts = cc->win_cuts;
	return 0;
}
