/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP object: create, destroy, query (IBTA vol.1 11.2.5). The state
 * machine and Modify QP live in roce_qp_table.c, posting and the error
 * flush in roce_post.c.
 *
 * A QP lives on the worker of its CQs. It is published in the device QPN
 * table (release store, by roce_qpn_alloc()) only once fully initialised
 * in RESET, and destroyed through roce_worker_exec() so that its worker
 * never sees it half freed.
 *
 * Other threads read the QPN table too: the other workers (a frame for a
 * QP of another worker, the PMD's owner lookup) and slow-path readers
 * (telemetry, xstats). A destroyed QP therefore leaves the table at once
 * but its memory is freed only after a grace period (quiescent-state based
 * reclamation): destroy bumps the device epoch and parks the QP with that
 * epoch; every worker records the epoch it saw at each quiescent point
 * (roce_worker_quiescent(), start of roce_worker_poll()), the slow readers
 * while they read (roce_qp_read_begin()); a parked QP is freed once no
 * reader is still at an older epoch. Unbound workers do not count. The
 * control path reclaims on create and destroy, the device destroy frees
 * what is left. ASan builds keep freed QPs poisoned until the device goes,
 * so a late reader is reported instead of reading recycled memory.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce_qp.h"
#include "roce_worker.h"

#if defined(__SANITIZE_ADDRESS__)
#define ROCE_QP_QUARANTINE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROCE_QP_QUARANTINE 1
#endif
#endif
#ifdef ROCE_QP_QUARANTINE
#include <sanitizer/asan_interface.h>

/* A freed QP kept poisoned (separate node: the QP itself is poisoned).
 * The node comes from rte_malloc like the device that lists it: LeakSanitizer
 * does not scan rte_malloc memory, so a libc node would look leaked.
 */
struct qp_quarantine {
	struct qp_quarantine *next;
	struct roce_qp *qp;
};

/*
 * Bounded like ASan's own quarantine: beyond this many poisoned QPs the
 * oldest is really freed (64K QPs created and destroyed in rounds would
 * otherwise exhaust the EAL heap).
 */
enum { ROCE_QP_QUARANTINE_MAX = 4096 };

static void
qp_quarantine_free(struct qp_quarantine *q)
{
	ASAN_UNPOISON_MEMORY_REGION(q->qp, sizeof(*q->qp));
	rte_free(q->qp);
	rte_free(q);
}
#endif

/* Slot of a send WQE: header plus room for the SGEs or the inline bytes. */
static uint32_t
qp_send_stride(const struct roce_qp_cap *cap)
{
	uint32_t body = RTE_MAX(cap->max_send_sge *
				(uint32_t)sizeof(struct roce_sge),
				cap->max_inline_data);

	return RTE_ALIGN_CEIL((uint32_t)sizeof(struct roce_send_wqe) + body,
			      RTE_CACHE_LINE_SIZE);
}

static uint32_t
qp_recv_stride(const struct roce_qp_cap *cap)
{
	return RTE_ALIGN_CEIL((uint32_t)sizeof(struct roce_recv_wqe) +
			      cap->max_recv_sge *
			      (uint32_t)sizeof(struct roce_sge), 16u);
}

/*
 * Validate create attributes; one distinct log line per result of IBTA
 * 11.2.5.1 (invalid PD / CQ / QP type, WR or SGE count above the device
 * limits). All are -EINVAL; out of resources is -ENOMEM.
 */
static int
qp_check_create(const struct roce_pd *pd, const struct roce_qp_init_attr *a)
{
	const struct roce_device *dev;
	const struct roce_device_attr *lim;

	if (pd == NULL || pd->dev == NULL) {
		ROCE_LOG(ERR, verbs, "create_qp: invalid PD");
		return -EINVAL;
	}
	dev = pd->dev;
	lim = &dev->attr;
	if (a == NULL) {
		ROCE_LOG(ERR, verbs, "create_qp: no attributes");
		return -EINVAL;
	}
	if (a->qp_type != ROCE_QPT_RC && a->qp_type != ROCE_QPT_UC &&
	    a->qp_type != ROCE_QPT_UD) {
		ROCE_LOG(ERR, verbs, "create_qp: invalid QP type %d",
			 (int)a->qp_type);
		return -EINVAL;
	}
	if (a->send_cq == NULL || a->recv_cq == NULL ||
	    a->send_cq->dev != dev || a->recv_cq->dev != dev) {
		ROCE_LOG(ERR, verbs, "create_qp: invalid CQ");
		return -EINVAL;
	}
	/* the QP runs on its CQs' worker: both must be on the same one */
	if (a->send_cq->w != a->recv_cq->w || a->send_cq->w == NULL) {
		ROCE_LOG(ERR, verbs, "create_qp: send and recv CQ on different workers");
		return -EINVAL;
	}
	if (a->srq != NULL && (a->srq->pd != pd || a->srq->w != a->recv_cq->w)) {
		/* SRQ WQE lkeys are checked against its PD: keep one PD */
		ROCE_LOG(ERR, verbs, "create_qp: SRQ of another PD or worker");
		return -EINVAL;
	}
	if (a->cap.max_send_wr > lim->max_qp_wr ||
	    (a->srq == NULL && a->cap.max_recv_wr > lim->max_qp_wr)) {
		ROCE_LOG(ERR, verbs, "create_qp: WR count above %u",
			 lim->max_qp_wr);
		return -EINVAL;
	}
	if (a->cap.max_send_sge > lim->max_sge ||
	    (a->srq == NULL && a->cap.max_recv_sge > lim->max_sge)) {
		ROCE_LOG(ERR, verbs, "create_qp: SGE count above %u",
			 lim->max_sge);
		return -EINVAL;
	}
	if (a->cap.max_inline_data > lim->max_inline) {
		ROCE_LOG(ERR, verbs, "create_qp: inline size above %u",
			 lim->max_inline);
		return -EINVAL;
	}
	return 0;
}

static void
qp_free_mem(struct roce_qp *qp)
{
	roce_wq_fini(&qp->sq);
	roce_wq_fini(&qp->rq);
	roce_resp_fini(qp);
	rte_free(qp->resp.res);
	rte_free(qp);
}

/* ------------------------------------------------------------------ */
/* Reclamation of destroyed QPs                                       */
/* ------------------------------------------------------------------ */

void
roce_worker_quiescent(struct roce_worker *w)
{
	uint64_t e = __atomic_load_n(&w->dev->qs_epoch, __ATOMIC_ACQUIRE);

	if (unlikely(__atomic_load_n(&w->qs_seen, __ATOMIC_RELAXED) ==
		     ROCE_QS_OFFLINE)) {
		/*
		 * Back online: the store must be visible before this thread's
		 * next table load, or a reclaimer that still sees it offline
		 * could free a QP this thread is about to find.
		 */
		__atomic_store_n(&w->qs_seen, e, __ATOMIC_RELAXED);
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
		return;
	}
	__atomic_store_n(&w->qs_seen, e, __ATOMIC_RELEASE);
}

unsigned int
roce_qp_read_begin(struct roce_device *dev)
{
	uint64_t e, off;
	unsigned int i;

	for (;;) {
		/* an epoch read before the claim is older: only safer */
		e = __atomic_load_n(&dev->qs_epoch, __ATOMIC_ACQUIRE);
		for (i = 0; i < ROCE_QS_READERS; i++) {
			off = ROCE_QS_OFFLINE;
			/* seq_cst: visible before this thread's table loads */
			if (__atomic_compare_exchange_n(&dev->qs_read_seen[i],
					&off, e, false, __ATOMIC_SEQ_CST,
					__ATOMIC_RELAXED))
				return i;
		}
		rte_pause();
	}
}

void
roce_qp_read_end(struct roce_device *dev, unsigned int slot)
{
	if (slot < ROCE_QS_READERS)
		__atomic_store_n(&dev->qs_read_seen[slot], ROCE_QS_OFFLINE,
				 __ATOMIC_RELEASE);
}

/* Oldest epoch a reader may still be at (ctl_lock held). */
static uint64_t
qs_oldest_reader(const struct roce_device *dev)
{
	const struct roce_worker *w;
	uint64_t min = ROCE_QS_OFFLINE, v;
	unsigned int i;

	for (i = 0; i < ROCE_QS_READERS; i++) {
		v = __atomic_load_n(&dev->qs_read_seen[i], __ATOMIC_SEQ_CST);
		if (v < min)
			min = v;
	}
	for (w = dev->qs_workers; w != NULL; w = w->qs_next) {
		v = __atomic_load_n(&w->qs_seen, __ATOMIC_SEQ_CST);
		if (v < min)
			min = v;
	}
	return min;
}

/* The last step of a destroyed QP: its memory goes (or into quarantine). */
static void
qp_release(struct roce_device *dev, struct roce_qp *qp)
{
#ifdef ROCE_QP_QUARANTINE
	struct qp_quarantine *q = rte_malloc("roce_qp_quarantine", sizeof(*q), 0);
	struct qp_quarantine *tail, *old = NULL;

	if (q != NULL) {
		roce_wq_fini(&qp->sq);
		roce_wq_fini(&qp->rq);
		roce_resp_fini(qp);
		rte_free(qp->resp.res);
		ASAN_POISON_MEMORY_REGION(qp, sizeof(*qp));
		q->qp = qp;
		q->next = NULL;
		rte_spinlock_lock(&dev->ctl_lock);
		tail = dev->qs_quarantine_tail;
		if (tail != NULL)
			tail->next = q;
		else
			dev->qs_quarantine = q;
		dev->qs_quarantine_tail = q;
		if (++dev->nb_qs_quarantine > ROCE_QP_QUARANTINE_MAX) {
			old = dev->qs_quarantine;
			dev->qs_quarantine = old->next;
			dev->nb_qs_quarantine--;
		}
		rte_spinlock_unlock(&dev->ctl_lock);
		if (old != NULL)
			qp_quarantine_free(old);
		return;
	}
#else
	RTE_SET_USED(dev);
#endif
	qp_free_mem(qp);
}

unsigned int
roce_qp_reclaim(struct roce_device *dev, bool force)
{
	struct roce_qp *ready = NULL, **pp, *qp;
	unsigned int left;
	uint64_t oldest;

	if (dev == NULL)
		return 0;
	rte_spinlock_lock(&dev->ctl_lock);
	oldest = force ? ROCE_QS_OFFLINE : qs_oldest_reader(dev);
	for (pp = &dev->qs_limbo; *pp != NULL;) {
		qp = *pp;
		if (qp->retire_epoch <= oldest) {
			*pp = qp->limbo_next;
			qp->limbo_next = ready;
			ready = qp;
			dev->nb_qs_limbo--;
		} else {
			pp = &qp->limbo_next;
		}
	}
	left = dev->nb_qs_limbo;
	rte_spinlock_unlock(&dev->ctl_lock);
	while (ready != NULL) {
		qp = ready;
		ready = qp->limbo_next;
		qp_release(dev, qp);
	}
#ifdef ROCE_QP_QUARANTINE
	if (force) {
		struct qp_quarantine *q, *next;

		rte_spinlock_lock(&dev->ctl_lock);
		q = dev->qs_quarantine;
		dev->qs_quarantine = NULL;
		dev->qs_quarantine_tail = NULL;
		dev->nb_qs_quarantine = 0;
		rte_spinlock_unlock(&dev->ctl_lock);
		for (; q != NULL; q = next) {
			next = q->next;
			qp_quarantine_free(q);
		}
	}
#endif
	return left;
}

/* Park a destroyed QP (already out of the QPN table) until its grace period ends. */
static void
qp_retire(struct roce_device *dev, struct roce_qp *qp)
{
	rte_spinlock_lock(&dev->ctl_lock);
	/* readers that saw the table before the unpublish are older than this */
	qp->retire_epoch = __atomic_add_fetch(&dev->qs_epoch, 1,
					      __ATOMIC_SEQ_CST);
	qp->limbo_next = dev->qs_limbo;
	dev->qs_limbo = qp;
	dev->nb_qs_limbo++;
	rte_spinlock_unlock(&dev->ctl_lock);
}

struct roce_qp *
roce_create_qp(struct roce_pd *pd, const struct roce_qp_init_attr *attr)
{
	struct roce_device *dev;
	struct roce_worker *w;
	struct roce_qp *qp;
	int ret, socket;

	ret = qp_check_create(pd, attr);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	dev = pd->dev;
	/* QPs destroyed earlier whose grace period is over */
	roce_qp_reclaim(dev, false);
	w = attr->send_cq->w;
	socket = w->socket;
	qp = rte_zmalloc_socket("roce_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE,
				socket);
	if (qp == NULL)
		goto nomem;
	qp->type = (uint8_t)attr->qp_type;
	qp->state = ROCE_QPS_RESET;
	qp->w = w;
	qp->dev = dev;
	qp->pd = pd;
	qp->scq = attr->send_cq;
	qp->rcq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->init = *attr;
	qp->sig_all = attr->sq_sig_all;
	if (attr->srq != NULL) {
		/* the RQ is the SRQ's: report no own receive capacity */
		qp->init.cap.max_recv_wr = 0;
		qp->init.cap.max_recv_sge = 0;
	}
	qp->attr.cap = qp->init.cap;
	qp->user = attr->qp_context;

	qp->sq.max_sge = qp->init.cap.max_send_sge;
	qp->sq.max_inline = qp->init.cap.max_inline_data;
	ret = roce_wq_init(&qp->sq, qp->init.cap.max_send_wr,
			   qp_send_stride(&qp->init.cap), socket);
	if (ret != 0)
		goto nomem;
	qp->rq.max_sge = qp->init.cap.max_recv_sge;
	qp->rq.max_inline = 0;
	ret = roce_wq_init(&qp->rq, qp->init.cap.max_recv_wr,
			   qp_recv_stride(&qp->init.cap), socket);
	if (ret != 0)
		goto nomem;

	/* references first: once published the QP may be looked up */
	roce_pd_get(pd);
	__atomic_fetch_add(&qp->scq->refcnt, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&qp->rcq->refcnt, 1, __ATOMIC_RELAXED);
	if (qp->srq != NULL)
		__atomic_fetch_add(&qp->srq->refcnt, 1, __ATOMIC_RELAXED);
	roce_worker_get(w);

	/* QPN and publication (release store) in dev->qp_table */
	ret = roce_qpn_alloc(dev, qp);
	if (ret < 0) {
		roce_worker_put(w);
		if (qp->srq != NULL)
			__atomic_fetch_sub(&qp->srq->refcnt, 1, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&qp->rcq->refcnt, 1, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&qp->scq->refcnt, 1, __ATOMIC_RELEASE);
		roce_pd_put(pd);
		goto nomem;
	}
	ROCE_LOG(DEBUG, verbs, "qp %u created: type %u sq %u rq %u", qp->qpn,
		 qp->type, qp->init.cap.max_send_wr, qp->init.cap.max_recv_wr);
	return qp;
nomem:
	if (qp != NULL)
		qp_free_mem(qp);
	ROCE_LOG(ERR, verbs, "create_qp: out of resources");
	rte_errno = ENOMEM;
	return NULL;
}

/*
 * Destroy, on the worker: unpublish the QPN so RX dispatch no longer finds
 * the QP, stop every timer, and take it off the worker's lists and
 * doorbell ring. As with ibverbs, WRs still outstanding generate no
 * completion (Destroy QP, IBTA 11.2.5.4, frees them with the QP).
 */
static int
qp_destroy_exec(void *arg)
{
	struct roce_qp *qp = arg;
	struct roce_timers *ts = roce_worker_timers(qp->w);

	/* before the QPN can be reused: its type 2 windows die with it */
	roce_mw_unbind_qp(qp);
	roce_qpn_free(qp->dev, qp);
	__atomic_store_n(&qp->state, ROCE_QPS_RESET, __ATOMIC_RELEASE);
	roce_timer_cancel(ts, &qp->comp.retrans);
	roce_timer_cancel(ts, &qp->comp.rnr);
	roce_resp_stop(qp);
	roce_cc_stop(qp);
	roce_worker_qp_detach(qp->w, qp);
	return 0;
}

int
roce_destroy_qp(struct roce_qp *qp)
{
	struct roce_device *dev;
	struct roce_worker *w;
	int ret;

	if (qp == NULL)
		return -EINVAL;
	w = qp->w;
	ret = roce_worker_exec(w, qp_destroy_exec, qp);
	if (ret != 0)
		return ret;
	ROCE_LOG(DEBUG, verbs, "qp %u destroyed", qp->qpn);
	if (qp->srq != NULL)
		__atomic_fetch_sub(&qp->srq->refcnt, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&qp->rcq->refcnt, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&qp->scq->refcnt, 1, __ATOMIC_RELEASE);
	roce_pd_put(qp->pd);
	roce_worker_put(w);
	/* other threads may still hold it: freed after a grace period */
	dev = qp->dev;
	qp_retire(dev, qp);
	roce_qp_reclaim(dev, false);
	return 0;
}

struct qp_query {
	const struct roce_qp *qp;
	struct roce_qp_attr *attr;
	struct roce_qp_init_attr *init;
};

/* A consistent snapshot, taken on the worker (it may change the state). */
static int
qp_query_exec(void *arg)
{
	struct qp_query *q = arg;
	const struct roce_qp *qp = q->qp;
	uint8_t state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	if (q->attr != NULL) {
		*q->attr = qp->attr;
		q->attr->qp_state = state;
		q->attr->cur_qp_state = state;
		q->attr->sq_draining = state == ROCE_QPS_SQD &&
			__atomic_load_n(&qp->sq_draining, __ATOMIC_ACQUIRE);
		q->attr->cap = qp->init.cap;
	}
	if (q->init != NULL)
		*q->init = qp->init;
	return 0;
}

int
roce_query_qp(const struct roce_qp *qp, struct roce_qp_attr *attr,
	      struct roce_qp_init_attr *init_attr)
{
	struct qp_query q = { .qp = qp, .attr = attr, .init = init_attr };

	if (qp == NULL || (attr == NULL && init_attr == NULL))
		return -EINVAL;
	return roce_worker_exec(qp->w, qp_query_exec, &q);
}

uint32_t
roce_qp_num(const struct roce_qp *qp)
{
	return qp == NULL ? 0 : qp->qpn;
}
