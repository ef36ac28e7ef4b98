/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fatal errors of register-window QPs, and the PG332 recovery sequence,
 * run by the control core (rte_pmd_ernic_reg_recovery.h, doc/guides/
 * ernic.rst "Recovery by the control core").
 *
 * - Detection, each control core iteration: the engines' async events
 *   (an observer on the roce_device pushes them on an MP/SC ring: the
 *   raising worker never waits; a full ring is counted), the incoming
 *   packet error status queue (our own read index behind IPKTERRQWPTR),
 *   and STATQP[0] of the armed QPs. QP fatal async events of verbs QPs go
 *   to the CM recovery (ernic_recovery_qp_fatal()).
 * - The sequence is a state machine that never waits inside an iteration:
 *   each step checks its condition (STATQP, CQHEAD, SQPI, RESPHNDSTS) and
 *   moves on or comes back next iteration, bounded by drain_ms.
 * - Every register access goes through the window's backend (as the
 *   application's do), so the same code drives a real ERNIC.
 * - Everything runs under ctrl.lock (control core iteration or an
 *   application call).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "rte_pmd_ernic_reg_recovery.h"

/** Async events waiting for the control core. */
#define RR_AEV_RING 1024
/** Events waiting for the application. */
#define RR_EVQ 256
/** Entries of the error status queue read per iteration. */
#define RR_IPK_BURST 64

enum rr_state {
	RR_IDLE = 0,		/**< healthy (or not armed and not fatal) */
	RR_FATAL,		/**< not armed: reported, until re-enabled */
	RR_DRAIN,		/**< armed: under recovery, draining */
	RR_CLEARED,		/**< armed: disabled, waiting for re-init */
};

enum rr_cnt {
	RR_CNT_FATAL,
	RR_CNT_IPKTERRQ,
	RR_CNT_ASYNC_EVENTS,
	RR_CNT_ASYNC_FATAL,
	RR_CNT_ASYNC_RING_FULL,
	RR_CNT_ARMED,
	RR_CNT_CLEARED,
	RR_CNT_REINIT,
	RR_CNT_RECOVERED,
	RR_CNT_FAILED,
	RR_CNT_DB_CHECK_TIMEOUT,
	RR_CNT_REG_ERR,
	RR_CNT_EV_DROPPED,
	RR_CNT_DEV_EV_DROPPED,	/* read from the device */
	RR_CNT_MAX,
};

static const char *const rr_cnt_names[RR_CNT_MAX] = {
	[RR_CNT_FATAL] = "reg_recovery_fatal",
	[RR_CNT_IPKTERRQ] = "reg_recovery_ipkterrq_entries",
	[RR_CNT_ASYNC_EVENTS] = "ctrl_async_events",
	[RR_CNT_ASYNC_FATAL] = "ctrl_async_qp_fatal",
	[RR_CNT_ASYNC_RING_FULL] = "ctrl_async_ring_full",
	[RR_CNT_ARMED] = "reg_recovery_armed",
	[RR_CNT_CLEARED] = "reg_recovery_cleared",
	[RR_CNT_REINIT] = "reg_recovery_reinit",
	[RR_CNT_RECOVERED] = "reg_recovery_recovered",
	[RR_CNT_FAILED] = "reg_recovery_failed",
	[RR_CNT_DB_CHECK_TIMEOUT] = "reg_recovery_db_check_timeouts",
	[RR_CNT_REG_ERR] = "reg_recovery_register_errors",
	[RR_CNT_EV_DROPPED] = "reg_recovery_events_dropped",
	[RR_CNT_DEV_EV_DROPPED] = "roce_async_events_dropped",
};

struct rr_qp {
	uint8_t state;			/**< enum rr_state */
	bool armed;
	bool reinit_pending;
	struct rte_pmd_ernic_reg_recovery par;
	struct rte_pmd_ernic_reg_reinit ri;
	uint64_t drain;			/**< ticks */
	uint64_t deadline;		/**< RESPHNDSTS wait; hard: + drain */
};

struct ernic_rrec {
	struct rr_qp *q;		/**< [qpn - 1] */
	uint32_t nb_qp;
	/**
	 * Some QP may be armed or not idle: ernic_rrec_run() walks them.
	 * Set by what can make one so (rr_fatal(), the two API calls), kept
	 * by the walk while it finds one: with no register QP armed or in
	 * trouble the control core skips the walk (it ran on every
	 * rte_pmd_ernic_poll(), a third of a 64 B WRITE's instructions).
	 */
	bool scan;
	uint32_t ipk_rd;		/**< next IPKTERRQ entry to read */
	uint64_t ipk_ba;		/**< queue base the index belongs to */
	uint32_t ipk_cnt;
	struct rte_ring *aev;		/**< async events (uint64_t) */
	struct rte_pmd_ernic_reg_event evq[RR_EVQ];
	uint32_t ev_head, ev_tail;	/**< free-running */
	uint64_t cnt[RR_CNT_MAX];
	uint64_t aev_full;		/**< atomic: the observer counts */
};

/* ------------------------------------------------------------------ */
/* Registers through the backend                                      */
/* ------------------------------------------------------------------ */

static inline uint32_t
qoff(uint32_t qpn, uint32_t reg)
{
	return ERNIC_QCSR_BASE + (qpn - 1) * ERNIC_QCSR_STRIDE + reg;
}

static uint32_t
rd(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t off)
{
	uint32_t v = 0;

	if (rg->be->read(rg, off, &v) != 0)
		rr->cnt[RR_CNT_REG_ERR]++;
	return v;
}

static int
wr(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t off, uint32_t v)
{
	int ret = rg->be->write(rg, off, v);

	if (ret != 0)
		rr->cnt[RR_CNT_REG_ERR]++;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

static struct rte_pmd_ernic_reg_event *
ev_new(struct ernic_rrec *rr, uint32_t type, uint32_t qpn)
{
	struct rte_pmd_ernic_reg_event *ev;

	if (rr->ev_tail - rr->ev_head >= RR_EVQ) {
		/* the application does not take them: the oldest goes */
		rr->ev_head++;
		rr->cnt[RR_CNT_EV_DROPPED]++;
	}
	ev = &rr->evq[rr->ev_tail++ % RR_EVQ];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->qpn = qpn;
	return ev;
}

/* ------------------------------------------------------------------ */
/* The sequence                                                       */
/* ------------------------------------------------------------------ */

static void
rr_fail(struct ernic_rrec *rr, uint32_t qpn, int err)
{
	struct rr_qp *s = &rr->q[qpn - 1];
	struct rte_pmd_ernic_reg_event *ev;

	rr->cnt[RR_CNT_FAILED]++;
	ev = ev_new(rr, RTE_PMD_ERNIC_REG_EVENT_RECOVERY_FAILED, qpn);
	ev->status = err;
	s->armed = false;
	s->reinit_pending = false;
	s->state = RR_FATAL;
}

/* Clear traffic, step 1: stop doorbells, QP under recovery. */
static void
rr_start_clear(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t qpn,
	       uint64_t now)
{
	struct rr_qp *s = &rr->q[qpn - 1];
	uint32_t conf = rd(rr, rg, qoff(qpn, ERNIC_QPCONF));

	if (wr(rr, rg, qoff(qpn, ERNIC_QPCONF),
	       conf | ERNIC_QPCONF_RECOVERY) != 0) {
		rr_fail(rr, qpn, -EIO);
		return;
	}
	s->state = RR_DRAIN;
	s->deadline = now + s->drain;
	if (s->par.flags & RTE_PMD_ERNIC_REG_REC_AUTO_REINIT) {
		s->ri.sq_psn = s->par.sq_psn;
		s->ri.rq_psn = s->par.rq_psn;
		s->ri.dest_qpn = 0;
		s->reinit_pending = true;
	}
}

/*
 * CQHEAD == SQPI and RESPHNDSTS[16]; RESPHNDSTS covers every QP of the
 * window: past the deadline a busy neighbour does not hold us (counted).
 */
static bool
rr_doorbells_done(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t qpn,
		  uint64_t now)
{
	struct rr_qp *s = &rr->q[qpn - 1];

	if ((rd(rr, rg, qoff(qpn, ERNIC_CQHEAD)) & 0xffff) !=
	    (rd(rr, rg, qoff(qpn, ERNIC_SQPI)) & 0xffff))
		return false;
	if (rd(rr, rg, ERNIC_GCSR_BASE + ERNIC_RESPHNDSTS) &
	    ERNIC_RESPHND_SQ_PICI_DB_CHECK_EN)
		return true;
	if (now < s->deadline)
		return false;
	rr->cnt[RR_CNT_DB_CHECK_TIMEOUT]++;
	return true;
}

/* Clear traffic, step 2: drained? then clear QP enable. */
static void
rr_drain(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t qpn,
	 uint64_t now)
{
	const uint32_t empty = ERNIC_STATQP_SQ_EMPTY | ERNIC_STATQP_OSQ_EMPTY;
	struct rr_qp *s = &rr->q[qpn - 1];
	struct rte_pmd_ernic_reg_event *ev;
	uint32_t conf, head;

	if ((rd(rr, rg, qoff(qpn, ERNIC_STATQP)) & empty) != empty ||
	    !rr_doorbells_done(rr, rg, qpn, now)) {
		if (now >= s->deadline + s->drain)
			rr_fail(rr, qpn, -ETIMEDOUT);
		return;
	}
	head = rd(rr, rg, qoff(qpn, ERNIC_CQHEAD));
	conf = rd(rr, rg, qoff(qpn, ERNIC_QPCONF));
	if (wr(rr, rg, qoff(qpn, ERNIC_QPCONF),
	       (conf & ~ERNIC_QPCONF_EN) | ERNIC_QPCONF_RECOVERY) != 0) {
		rr_fail(rr, qpn, -EIO);
		return;
	}
	s->state = RR_CLEARED;
	rr->cnt[RR_CNT_CLEARED]++;
	ev = ev_new(rr, RTE_PMD_ERNIC_REG_EVENT_QP_CLEARED, qpn);
	ev->cq_head = head;
}

/* Re-initialise and enable (one iteration, under SW override). */
static void
rr_reinit(struct ernic_port *p, struct ernic_rrec *rr, struct ernic_regs *rg,
	  uint32_t qpn, uint64_t now)
{
	static const uint32_t zero[] = {
		ERNIC_STATRQPIDB, ERNIC_STATRQBUFCA, ERNIC_STATRQBUFCAMSB,
		ERNIC_RQCI, ERNIC_STATCURSQPTR, ERNIC_SQPI, ERNIC_SQPSN,
		ERNIC_LSTRQREQ, ERNIC_STATMSN, ERNIC_CQHEAD,
	};
	static const uint32_t path[] = {
		ERNIC_MACDESADDLSB, ERNIC_MACDESADDMSB, ERNIC_IPDESADDR1,
		ERNIC_IPDESADDR2, ERNIC_IPDESADDR3, ERNIC_IPDESADDR4,
	};
	struct rr_qp *s = &rr->q[qpn - 1];
	uint32_t adconf, conf, v;
	uint64_t db;
	unsigned int i;
	int ret = 0;

	if (!rr_doorbells_done(rr, rg, qpn, now)) {
		if (now >= s->deadline + s->drain)
			rr_fail(rr, qpn, -ETIMEDOUT);
		return;
	}
	rr->cnt[RR_CNT_REINIT]++;
	conf = rd(rr, rg, qoff(qpn, ERNIC_QPCONF));
	adconf = rd(rr, rg, ERNIC_GCSR_BASE + ERNIC_XRNICADCONF);
	ret |= wr(rr, rg, ERNIC_GCSR_BASE + ERNIC_XRNICADCONF,
		  adconf | ERNIC_ADCONF_SW_OVERRIDE);
	for (i = 0; i < RTE_DIM(zero); i++)
		ret |= wr(rr, rg, qoff(qpn, zero[i]), 0);
	if (rd(rr, rg, qoff(qpn, ERNIC_CQHEAD)) != 0)
		ret = -EIO;
	/* the memory doorbells follow the zeroed registers */
	db = (uint64_t)rd(rr, rg, qoff(qpn, ERNIC_CQDBADDMSB)) << 32 |
		rd(rr, rg, qoff(qpn, ERNIC_CQDBADD));
	if (db != 0)
		rg->be->doorbell(rg, db, 0);
	db = (uint64_t)rd(rr, rg, qoff(qpn, ERNIC_RQWPTRDBADDMSB)) << 32 |
		rd(rr, rg, qoff(qpn, ERNIC_RQWPTRDBADD));
	if (db != 0)
		rg->be->doorbell(rg, db, 0);
	ret |= wr(rr, rg, qoff(qpn, ERNIC_SQPSN), s->ri.sq_psn & 0xffffff);
	ret |= wr(rr, rg, qoff(qpn, ERNIC_LSTRQREQ),
		  (s->ri.rq_psn - 1) & 0xffffff);
	for (i = 0; i < RTE_DIM(path); i++) {
		v = rd(rr, rg, qoff(qpn, path[i]));
		ret |= wr(rr, rg, qoff(qpn, path[i]), v);
	}
	if (s->ri.dest_qpn != 0)
		ret |= wr(rr, rg, qoff(qpn, ERNIC_DESTQPCONF),
			  s->ri.dest_qpn & 0xffffff);
	/* RNR NAK and retry counts */
	ret |= wr(rr, rg, qoff(qpn, ERNIC_STATQP), 0);
	if (ret == 0) {
		/* enable with recovery kept, then recovery cleared: a new QP */
		ret = wr(rr, rg, qoff(qpn, ERNIC_QPCONF),
			 conf | ERNIC_QPCONF_EN | ERNIC_QPCONF_RECOVERY);
		if (ret == 0)
			ret = wr(rr, rg, qoff(qpn, ERNIC_QPCONF),
				 (conf | ERNIC_QPCONF_EN) &
				 ~ERNIC_QPCONF_RECOVERY);
	}
	wr(rr, rg, ERNIC_GCSR_BASE + ERNIC_XRNICADCONF,
	   adconf & ~ERNIC_ADCONF_SW_OVERRIDE);
	s->reinit_pending = false;
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: QP %u: recovery re-init failed: %s",
			  p->port_id, qpn, rte_strerror(ret < 0 ? -ret : EIO));
		rr_fail(rr, qpn, ret < 0 ? ret : -EIO);
		return;
	}
	s->state = RR_IDLE;
	rr->cnt[RR_CNT_RECOVERED]++;
	ev_new(rr, RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED, qpn);
}

/* ------------------------------------------------------------------ */
/* Detection                                                          */
/* ------------------------------------------------------------------ */

static bool
is_reg_qp(const struct ernic_regs *rg, uint32_t qpn)
{
	return qpn >= 1 && qpn <= rg->nb_qp &&
		__atomic_load_n(&rg->qps[qpn - 1].mode, __ATOMIC_ACQUIRE) !=
		ERNIC_QP_OFF;
}

/* A fatal error of register QP @p qpn seen by @p src. */
static void
rr_fatal(struct ernic_rrec *rr, struct ernic_regs *rg, uint32_t qpn,
	 uint32_t src, uint32_t code, uint32_t aev, uint64_t now)
{
	struct rr_qp *s = &rr->q[qpn - 1];
	struct rte_pmd_ernic_reg_event *ev;

	if (s->state != RR_IDLE)
		return;		/* the incident is known */
	rr->scan = true;
	rr->cnt[RR_CNT_FATAL]++;
	ev = ev_new(rr, RTE_PMD_ERNIC_REG_EVENT_QP_FATAL, qpn);
	ev->sources = src;
	ev->code = code;
	ev->async_event = aev;
	ev->syndrome = (rd(rr, rg, qoff(qpn, ERNIC_STATQP)) &
			ERNIC_STATQP_NAK_MASK) >> ERNIC_STATQP_NAK_SHIFT;
	if (s->armed)
		rr_start_clear(rr, rg, qpn, now);
	else
		s->state = RR_FATAL;
}

/* The observer of the roce_device (a worker, under the device's lock). */
static void
rr_observe(void *ctx, const struct roce_async_event *ev)
{
	struct ernic_rrec *rr = ctx;
	uint64_t v;

	switch (ev->event_type) {
	case ROCE_EVENT_QP_FATAL:
	case ROCE_EVENT_QP_REQ_ERR:
	case ROCE_EVENT_QP_ACCESS_ERR:
		break;
	default:
		return;		/* only QP errors matter here */
	}
	v = (uint64_t)ev->qp_num << 32 | (uint64_t)(ev->err & 0xffffff) << 8 |
		(uint8_t)ev->event_type;
	if (rte_ring_mp_enqueue_elem(rr->aev, &v, sizeof(v)) != 0)
		__atomic_fetch_add(&rr->aev_full, 1, __ATOMIC_RELAXED);
}

static void
rr_take_async(struct ernic_port *p, struct ernic_rrec *rr,
	      struct ernic_regs *rg, uint64_t now)
{
	uint64_t v[32];
	unsigned int n, i;
	uint32_t qpn;

	n = rte_ring_sc_dequeue_burst_elem(rr->aev, v, sizeof(v[0]),
					   RTE_DIM(v), NULL);
	for (i = 0; i < n; i++) {
		qpn = (uint32_t)(v[i] >> 32);
		rr->cnt[RR_CNT_ASYNC_EVENTS]++;
		rr->cnt[RR_CNT_ASYNC_FATAL]++;
		if (rg != NULL && is_reg_qp(rg, qpn))
			rr_fatal(rr, rg, qpn, RTE_PMD_ERNIC_REG_SRC_ASYNC,
				 (uint32_t)(v[i] >> 8) & 0xffffff,
				 (uint8_t)v[i], now);
		else
			ernic_recovery_qp_fatal(p, qpn, now);
	}
}

/* The incoming packet error status queue, from our read index on. */
/*
 * The detection polls read the global block of the model directly (the
 * engine's side, as the error queues are written), not through the
 * backend: no register access per iteration (the window's read counter
 * shows the application's accesses only, test_ernic_regs checks it).
 */
static inline uint32_t
g_peek(const struct ernic_regs *rg, uint32_t off)
{
	return __atomic_load_n(&rg->g[off / 4], __ATOMIC_ACQUIRE);
}

static void
rr_take_ipkterrq(struct ernic_rrec *rr, struct ernic_regs *rg, uint64_t now)
{
	uint64_t ba = (uint64_t)g_peek(rg, ERNIC_IPKTERRQBAMSB) << 32 |
		g_peek(rg, ERNIC_IPKTERRQBA);
	uint32_t cnt = g_peek(rg, ERNIC_IPKTERRQSZ) & 0xffff;
	uint32_t wp = g_peek(rg, ERNIC_IPKTERRQWPTR);
	uint32_t e, qpn, k;

	if (ba == 0 || cnt == 0)
		return;
	if (ba != rr->ipk_ba || cnt != rr->ipk_cnt) {
		/* (re)programmed: entries from now on */
		rr->ipk_ba = ba;
		rr->ipk_cnt = cnt;
		rr->ipk_rd = wp % cnt;
		return;
	}
	wp %= cnt;
	for (k = 0; rr->ipk_rd != wp && k < RR_IPK_BURST; k++) {
		memcpy(&e, (const void *)(uintptr_t)(ba + (uint64_t)rr->ipk_rd *
						     ERNIC_IPKTERR_ENTRY),
		       sizeof(e));
		rr->ipk_rd = (rr->ipk_rd + 1) % cnt;
		rr->cnt[RR_CNT_IPKTERRQ]++;
		qpn = e >> 16;
		if (qpn >= 1 && qpn <= rg->nb_qp)
			rr_fatal(rr, rg, qpn, RTE_PMD_ERNIC_REG_SRC_IPKTERRQ,
				 e & 0xffff, 0, now);
	}
}

void
ernic_rrec_run(struct ernic_port *p, uint64_t now)
{
	struct ernic_rrec *rr = p->ctrl.rrec;
	struct ernic_regs *rg = p->regs;
	struct ernic_reg_qp *q;
	struct rr_qp *s;
	uint32_t i, qpn, busy = 0;

	if (rr == NULL)
		return;
	if (rg != NULL && !rg->attached)
		rg = NULL;
	rr_take_async(p, rr, rg, now);
	if (rg == NULL)
		return;
	rr_take_ipkterrq(rr, rg, now);
	if (!rr->scan)
		return;
	for (i = 0; i < rr->nb_qp && i < rg->nb_qp; i++) {
		s = &rr->q[i];
		q = &rg->qps[i];
		qpn = i + 1;
		switch (s->state) {
		case RR_IDLE:
			if (s->armed &&
			    __atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
				rr_fatal(rr, rg, qpn,
					 RTE_PMD_ERNIC_REG_SRC_STATQP, 0, 0,
					 now);
			break;
		case RR_FATAL:
			/* the application recovered it (or re-enabled it) */
			if (__atomic_load_n(&q->mode, __ATOMIC_ACQUIRE) !=
			    ERNIC_QP_OFF &&
			    !__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
				s->state = RR_IDLE;
			break;
		case RR_DRAIN:
			rr_drain(rr, rg, qpn, now);
			break;
		case RR_CLEARED:
			if (s->reinit_pending)
				rr_reinit(p, rr, rg, qpn, now);
			break;
		default:
			break;
		}
		busy += s->armed || s->state != RR_IDLE;
	}
	rr->scan = busy != 0;
}

/* ------------------------------------------------------------------ */
/* Life cycle, counters                                               */
/* ------------------------------------------------------------------ */

int
ernic_rrec_create(struct ernic_port *p)
{
	struct ernic_rrec *rr;
	char name[RTE_RING_NAMESIZE];
	uint32_t nb = p->regs != NULL ? p->regs->nb_qp : 0;

	rr = rte_zmalloc_socket("ernic_rrec", sizeof(*rr), 0, p->socket);
	if (rr == NULL)
		return -ENOMEM;
	rr->nb_qp = nb;
	rr->scan = true;	/* the first walk finds what there is */
	if (nb != 0) {
		rr->q = rte_zmalloc_socket("ernic_rrec_q", sizeof(*rr->q) * nb,
					   0, p->socket);
		if (rr->q == NULL) {
			rte_free(rr);
			return -ENOMEM;
		}
	}
	snprintf(name, sizeof(name), "ernic%u_aev", p->port_id);
	rr->aev = rte_ring_create_elem(name, sizeof(uint64_t), RR_AEV_RING,
				       p->socket, RING_F_SC_DEQ);
	if (rr->aev == NULL) {
		rte_free(rr->q);
		rte_free(rr);
		return -ENOMEM;
	}
	p->ctrl.rrec = rr;
	if (p->rdev != NULL)
		roce_device_set_event_observer(p->rdev, rr_observe, rr);
	return 0;
}

void
ernic_rrec_destroy(struct ernic_port *p)
{
	struct ernic_rrec *rr = p->ctrl.rrec;

	if (rr == NULL)
		return;
	if (p->rdev != NULL)
		roce_device_set_event_observer(p->rdev, NULL, NULL);
	rte_ring_free(rr->aev);
	rte_free(rr->q);
	rte_free(rr);
	p->ctrl.rrec = NULL;
}

int
ernic_rrec_counters(const struct ernic_port *p, struct roce_counter *c,
		    unsigned int n)
{
	const struct ernic_rrec *rr = p->ctrl.rrec;
	unsigned int i;
	uint64_t v;

	if (rr == NULL)
		return 0;
	for (i = 0; i < RR_CNT_MAX && i < n; i++) {
		v = rr->cnt[i];
		if (i == RR_CNT_ASYNC_RING_FULL)
			v = __atomic_load_n(&rr->aev_full, __ATOMIC_RELAXED);
		else if (i == RR_CNT_DEV_EV_DROPPED)
			v = roce_device_events_dropped(p->rdev);
		c[i].name = rr_cnt_names[i];
		c[i].value = v;
	}
	return RR_CNT_MAX;
}

/* ------------------------------------------------------------------ */
/* Public API                                                         */
/* ------------------------------------------------------------------ */

/* The port's recovery, locked; NULL with *err set. */
static struct ernic_rrec *
rr_lock(uint16_t port_id, struct ernic_port **pp, int *err)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL) {
		*err = -ENODEV;
		return NULL;
	}
	if (p->ctrl.rrec == NULL) {
		*err = -EAGAIN;
		return NULL;
	}
	rte_spinlock_lock(&p->ctrl.lock);
	*pp = p;
	*err = 0;
	return p->ctrl.rrec;
}

int
rte_pmd_ernic_reg_set_recovery(uint16_t port_id, uint32_t qpn,
			       const struct rte_pmd_ernic_reg_recovery *r)
{
	struct ernic_port *p;
	struct ernic_rrec *rr;
	struct rr_qp *s;
	int ret;

	if (r != NULL && (r->flags & ~RTE_PMD_ERNIC_REG_REC_AUTO_REINIT))
		return -EINVAL;
	rr = rr_lock(port_id, &p, &ret);
	if (rr == NULL)
		return ret;
	if (qpn < 2 || qpn > rr->nb_qp) {
		rte_spinlock_unlock(&p->ctrl.lock);
		return -EINVAL;
	}
	s = &rr->q[qpn - 1];
	rr->scan = true;
	if (r == NULL) {
		s->armed = false;
		s->reinit_pending = false;
		if (s->state == RR_DRAIN || s->state == RR_CLEARED)
			s->state = RR_FATAL;	/* the application takes over */
	} else {
		s->par = *r;
		s->armed = true;
		s->drain = rte_get_tsc_hz() *
			(r->drain_ms != 0 ? r->drain_ms : 2000) / 1000;
		rr->cnt[RR_CNT_ARMED]++;
		if (r->flags & RTE_PMD_ERNIC_REG_REC_AUTO_REINIT) {
			s->ri.sq_psn = r->sq_psn;
			s->ri.rq_psn = r->rq_psn;
			s->ri.dest_qpn = 0;
			if (s->state == RR_CLEARED || s->state == RR_DRAIN)
				s->reinit_pending = true;
		}
		/* an incident reported before arming is recovered now */
		if (s->state == RR_FATAL)
			rr_start_clear(rr, p->regs, qpn, rte_rdtsc());
	}
	rte_spinlock_unlock(&p->ctrl.lock);
	return 0;
}

int
rte_pmd_ernic_reg_reinit(uint16_t port_id, uint32_t qpn,
			 const struct rte_pmd_ernic_reg_reinit *ri)
{
	struct ernic_port *p;
	struct ernic_rrec *rr;
	struct rr_qp *s;
	int ret;

	if (ri == NULL || ri->sq_psn > 0xffffff || ri->rq_psn > 0xffffff ||
	    ri->dest_qpn > 0xffffff)
		return -EINVAL;
	rr = rr_lock(port_id, &p, &ret);
	if (rr == NULL)
		return ret;
	ret = -EINVAL;
	if (qpn >= 2 && qpn <= rr->nb_qp) {
		rr->scan = true;
		s = &rr->q[qpn - 1];
		if (s->armed &&
		    (s->state == RR_DRAIN || s->state == RR_CLEARED)) {
			s->ri = *ri;
			s->reinit_pending = true;
			if (s->state == RR_CLEARED)
				rr_reinit(p, rr, p->regs, qpn, rte_rdtsc());
			ret = 0;
		}
	}
	rte_spinlock_unlock(&p->ctrl.lock);
	return ret;
}

int
rte_pmd_ernic_reg_get_event(uint16_t port_id,
			    struct rte_pmd_ernic_reg_event *ev)
{
	struct ernic_port *p;
	struct ernic_rrec *rr;
	int ret;

	if (ev == NULL)
		return -EINVAL;
	rr = rr_lock(port_id, &p, &ret);
	if (rr == NULL)
		return ret;
	if (rr->ev_head == rr->ev_tail) {
		ret = 0;
	} else {
		*ev = rr->evq[rr->ev_head++ % RR_EVQ];
		ret = 1;
	}
	rte_spinlock_unlock(&p->ctrl.lock);
	return ret;
}
