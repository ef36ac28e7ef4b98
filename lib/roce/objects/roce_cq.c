/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues: one SPSC ring of struct roce_wc per CQ. The worker
 * that owns the CQ is the producer (roce_cq_push), one application thread
 * is the consumer (roce_poll_cq). Entries are written before the producer
 * index is stored with release; the poller copies them out after an
 * acquire load and hands the slots back with a release store of cons.
 *
 * Overrun (IBTA 11.4.2.1): a push to a full CQ puts the CQ in error for
 * good. The completion is refused (counted in cq->dropped), CQ_ERR is
 * raised once, and the caller moves its QP to the error state. The poller
 * still gets every entry queued before and then -EIO.
 *
 * Completion events (ibverbs completion channels): a channel is an
 * eventfd (semaphore mode) and an MP/SC ring of CQ pointers. A CQ attached
 * to a channel and armed with roce_req_notify_cq() raises one event on the
 * next push (CQ_ARM_ANY), or on the next solicited or unsuccessful one
 * (CQ_ARM_SOLICITED): the worker clears the arm, enqueues the CQ and adds
 * 1 to the eventfd. The arm and the producer index form a store-load pair on each
 * side (the poller arms then polls, the worker publishes then looks at the
 * arm), so both sides put a full fence between them: a completion is
 * either seen by the poll after the arm or raises the event.
 * roce_get_cq_event() reads the eventfd (blocking unless O_NONBLOCK) and
 * dequeues one CQ; one thread takes the events of a channel.
 */

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "roce_priv.h"
#include "roce_worker.h"

/** CQs one channel serves at most (its ring holds twice as many events). */
#define ROCE_CC_MAX_CQ 1024

/** Values of roce_cq::armed. */
enum {
	CQ_ARM_NONE = 0,
	CQ_ARM_ANY = 1,		/**< the next completion */
	CQ_ARM_SOLICITED = 2,	/**< the next solicited or failed one */
};

struct roce_comp_channel {
	int fd;				/**< eventfd, EFD_SEMAPHORE */
	uint32_t ncq;			/**< CQs attached (control) */
	uint64_t lost;			/**< events dropped: ring full (atomic) */
	struct rte_ring *ring;		/**< CQs with a raised event */
};

struct roce_comp_channel *
roce_create_comp_channel(struct roce_device *dev)
{
	struct roce_comp_channel *ch;
	ssize_t sz;
	int socket;

	if (dev == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	socket = dev->cfg.socket_id;
	sz = rte_ring_get_memsize(2 * ROCE_CC_MAX_CQ);
	ch = rte_zmalloc_socket("roce_cc", sizeof(*ch), RTE_CACHE_LINE_SIZE,
				socket);
	if (ch == NULL || sz < 0) {
		rte_free(ch);
		rte_errno = ENOMEM;
		return NULL;
	}
	ch->ring = rte_zmalloc_socket("roce_cc_ring", (size_t)sz,
				      RTE_CACHE_LINE_SIZE, socket);
	if (ch->ring == NULL ||
	    rte_ring_init(ch->ring, "roce_cc", 2 * ROCE_CC_MAX_CQ,
			  RING_F_SC_DEQ) != 0) {
		rte_free(ch->ring);
		rte_free(ch);
		rte_errno = ENOMEM;
		return NULL;
	}
	ch->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->fd < 0) {
		int err = errno;

		ROCE_LOG(ERR, verbs, "device %s: eventfd: %s", dev->name,
			 strerror(err));
		rte_free(ch->ring);
		rte_free(ch);
		rte_errno = err;
		return NULL;
	}
	return ch;
}

int
roce_destroy_comp_channel(struct roce_comp_channel *ch)
{
	if (ch == NULL)
		return -EINVAL;
	if (ch->ncq != 0) {
		ROCE_LOG(ERR, verbs, "destroy_comp_channel: %u CQs use it",
			 ch->ncq);
		return -EBUSY;
	}
	close(ch->fd);
	rte_free(ch->ring);
	rte_free(ch);
	return 0;
}

int
roce_comp_channel_fd(const struct roce_comp_channel *ch)
{
	return ch != NULL ? ch->fd : -EINVAL;
}

/*
 * Remove the events of @p cq not taken yet (consumer thread; no QP uses
 * the CQ, so the worker raises none for it meanwhile). The eventfd keeps
 * its count: roce_get_cq_event() skips wake-ups without an entry.
 */
static void
cc_purge(struct roce_comp_channel *ch, struct roce_cq *cq)
{
	void *ev;
	unsigned int n = rte_ring_count(ch->ring);

	while (n-- > 0 && rte_ring_sc_dequeue(ch->ring, &ev) == 0)
		if (ev != cq && rte_ring_mp_enqueue(ch->ring, ev) != 0)
			__atomic_fetch_add(&ch->lost, 1, __ATOMIC_RELAXED);
}

int
roce_cq_set_channel(struct roce_cq *cq, struct roce_comp_channel *ch,
		    void *cq_context)
{
	struct roce_comp_channel *old;

	if (cq == NULL)
		return -EINVAL;
	old = cq->channel;
	if (old == ch)
		return 0;
	/* attaching is safe while QPs push; detaching is not (the worker
	 * may hold the old channel) */
	if (old != NULL && __atomic_load_n(&cq->refcnt, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;
	if (old != NULL) {
		if (__atomic_load_n(&cq->events, __ATOMIC_ACQUIRE) !=
		    __atomic_load_n(&cq->events_acked, __ATOMIC_ACQUIRE))
			return -EBUSY;
		__atomic_store_n(&cq->armed, 0, __ATOMIC_SEQ_CST);
		cc_purge(old, cq);
	}
	if (ch != NULL && ch->ncq >= ROCE_CC_MAX_CQ)
		return -EBUSY;
	if (old != NULL)
		old->ncq--;
	if (ch != NULL)
		ch->ncq++;
	cq->cq_context = cq_context;
	__atomic_store_n(&cq->channel, ch, __ATOMIC_RELEASE);
	return 0;
}

int
roce_req_notify_cq(struct roce_cq *cq, bool solicited_only)
{
	uint32_t want = solicited_only ? CQ_ARM_SOLICITED : CQ_ARM_ANY;
	uint32_t cur;

	if (cq == NULL || cq->channel == NULL)
		return -EINVAL;
	/* an arm for any completion is not narrowed by a solicited one */
	cur = __atomic_load_n(&cq->armed, __ATOMIC_RELAXED);
	while (cur != CQ_ARM_ANY &&
	       !__atomic_compare_exchange_n(&cq->armed, &cur, want, false,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	/* the arm before the caller's next poll (see the file comment) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

int
roce_get_cq_event(struct roce_comp_channel *ch, struct roce_cq **cq,
		  void **cq_context)
{
	struct roce_cq *ev;
	uint64_t v;
	void *p;

	if (ch == NULL || cq == NULL)
		return -EINVAL;
	for (;;) {
		if (read(ch->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			return errno == EAGAIN || errno == EINTR ? -errno :
				-EIO;
		if (rte_ring_sc_dequeue(ch->ring, &p) == 0)
			break;
		/* the count of a purged event: wait for the next */
	}
	ev = p;
	__atomic_fetch_add(&ev->events, 1, __ATOMIC_RELEASE);
	*cq = ev;
	if (cq_context != NULL)
		*cq_context = ev->cq_context;
	return 0;
}

void
roce_ack_cq_events(struct roce_cq *cq, unsigned int nevents)
{
	if (cq != NULL)
		__atomic_fetch_add(&cq->events_acked, nevents,
				   __ATOMIC_RELEASE);
}

/* Worker: completion @p wc was published on an attached CQ. */
static void
cq_raise_event(struct roce_cq *cq, struct roce_comp_channel *ch,
	       const struct roce_wc *wc)
{
	const uint64_t one = 1;
	uint32_t armed;

	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	armed = __atomic_load_n(&cq->armed, __ATOMIC_RELAXED);
	if (armed == CQ_ARM_NONE)
		return;
	/* IBTA 11.4.2.2: solicited receives and unsuccessful completions */
	if (armed == CQ_ARM_SOLICITED && !wc->solicited &&
	    wc->status == ROCE_WC_SUCCESS)
		return;
	if (!__atomic_compare_exchange_n(&cq->armed, &armed, CQ_ARM_NONE,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	if (rte_ring_mp_enqueue(ch->ring, cq) != 0) {
		__atomic_fetch_add(&ch->lost, 1, __ATOMIC_RELAXED);
		return;
	}
	if (write(ch->fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		__atomic_fetch_add(&ch->lost, 1, __ATOMIC_RELAXED);
}

struct roce_cq *
roce_create_cq(struct roce_worker *w, uint32_t depth)
{
	struct roce_device *dev;
	struct roce_cq *cq;
	uint32_t slots;

	if (w == NULL || depth == 0 || depth > ROCE_MAX_CQE) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = roce_worker_device(w);
	cq = rte_zmalloc_socket("roce_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE,
				w->socket);
	if (cq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	slots = rte_align32pow2(depth);
	cq->ring = rte_zmalloc_socket("roce_cq_ring",
				      (size_t)slots * sizeof(*cq->ring),
				      RTE_CACHE_LINE_SIZE, w->socket);
	if (cq->ring == NULL) {
		rte_free(cq);
		rte_errno = ENOMEM;
		return NULL;
	}
	cq->mask = slots - 1;
	cq->depth = depth;
	cq->w = w;
	cq->dev = dev;

	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->nb_cq >= dev->attr.max_cq) {
		rte_spinlock_unlock(&dev->ctl_lock);
		rte_free(cq->ring);
		rte_free(cq);
		ROCE_LOG(ERR, verbs, "device %s: CQ limit %u reached",
			 dev->name, dev->attr.max_cq);
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->nb_cq++;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_worker_get(w);
	return cq;
}

int
roce_destroy_cq(struct roce_cq *cq)
{
	struct roce_device *dev;

	if (cq == NULL)
		return -EINVAL;
	if (__atomic_load_n(&cq->refcnt, __ATOMIC_ACQUIRE) != 0) {
		ROCE_LOG(ERR, verbs, "destroy_cq: %u QPs use it", cq->refcnt);
		return -EBUSY;
	}
	if (cq->channel != NULL && roce_cq_set_channel(cq, NULL, NULL) != 0) {
		ROCE_LOG(ERR, verbs, "destroy_cq: completion events not acknowledged");
		return -EBUSY;
	}
	dev = cq->dev;
	rte_spinlock_lock(&dev->ctl_lock);
	dev->nb_cq--;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_worker_put(cq->w);
	rte_free(cq->ring);
	rte_free(cq);
	return 0;
}

int
roce_poll_cq(struct roce_cq *cq, struct roce_wc *wc, int n)
{
	uint32_t prod, cons, avail, i, k;

	if (unlikely(cq == NULL || n < 0 || (wc == NULL && n > 0)))
		return -EINVAL;
	cons = cq->cons;
	prod = __atomic_load_n(&cq->prod, __ATOMIC_ACQUIRE);
	avail = prod - cons;
	if (avail == 0) {
		/* drained: an overrun CQ now reports its error (IBTA 11.4.2.1) */
		if (unlikely(__atomic_load_n(&cq->overflow, __ATOMIC_ACQUIRE)))
			return -EIO;
		return 0;
	}
	k = RTE_MIN(avail, (uint32_t)n);
	for (i = 0; i < k; i++)
		wc[i] = cq->ring[(cons + i) & cq->mask];
	__atomic_store_n(&cq->cons, cons + k, __ATOMIC_RELEASE);
	return (int)k;
}

int
roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc)
{
	struct roce_comp_channel *ch;
	uint32_t prod = cq->prod;

	if (unlikely(cq->overflow)) {
		cq->dropped++;
		return -ENOSPC;
	}
	if (unlikely(prod - cq->cons_cache >= cq->depth)) {
		cq->cons_cache = __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE);
		if (prod - cq->cons_cache >= cq->depth) {
			cq->dropped++;
			__atomic_store_n(&cq->overflow, true, __ATOMIC_RELEASE);
			ROCE_LOG(ERR, verbs, "CQ overrun (depth %u)",
				 cq->depth);
			roce_event_raise(cq->dev, ROCE_EVENT_CQ_ERR, cq, 0,
					 ROCE_ERR_CQ_OVERFLOW);
			return -ENOSPC;
		}
	}
	cq->ring[prod & cq->mask] = *wc;
	__atomic_store_n(&cq->prod, prod + 1, __ATOMIC_RELEASE);
	ch = __atomic_load_n(&cq->channel, __ATOMIC_ACQUIRE);
	if (unlikely(ch != NULL))
		cq_raise_event(cq, ch, wc);
	return 0;
}

struct cq_discard {
	struct roce_cq *cq;
	uint32_t qpn;
};

/*
 * Worker, no poller: move the entries kept towards prod, from the newest
 * down, then hand the freed slots back by moving cons.
 */
static int
cq_discard_on_worker(void *arg)
{
	struct cq_discard *d = arg;
	struct roce_cq *cq = d->cq;
	uint32_t cons = __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE);
	uint32_t prod = cq->prod, dst = prod, i = prod;

	while (i != cons) {
		i--;
		if (cq->ring[i & cq->mask].qp_num == d->qpn)
			continue;
		dst--;
		if (dst != i)
			cq->ring[dst & cq->mask] = cq->ring[i & cq->mask];
	}
	cq->cons_cache = dst;
	__atomic_store_n(&cq->cons, dst, __ATOMIC_RELEASE);
	return (int)(dst - cons);
}

int
roce_cq_discard_qp(struct roce_cq *cq, uint32_t qpn)
{
	struct cq_discard d = { .cq = cq, .qpn = qpn };

	if (cq == NULL)
		return -EINVAL;
	return roce_worker_exec(cq->w, cq_discard_on_worker, &d);
}

uint32_t
roce_cq_depth(const struct roce_cq *cq)
{
	return cq != NULL ? cq->depth : 0;
}

struct cq_resize {
	struct roce_cq *cq;
	struct roce_wc *ring;		/* in: the new ring; out: the old one */
	uint32_t mask, depth;
};

/* Worker: move the waiting completions to the new ring and swap. */
static int
cq_resize_on_worker(void *arg)
{
	struct cq_resize *r = arg;
	struct roce_cq *cq = r->cq;
	uint32_t cons = __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE);
	uint32_t prod = cq->prod, i;
	struct roce_wc *old = cq->ring;

	if (prod - cons > r->depth)
		return -EINVAL;
	for (i = cons; i != prod; i++)
		r->ring[i & r->mask] = old[i & cq->mask];
	cq->ring = r->ring;
	cq->mask = r->mask;
	cq->depth = r->depth;
	cq->cons_cache = cons;
	r->ring = old;
	return 0;
}

int
roce_resize_cq(struct roce_cq *cq, uint32_t depth)
{
	struct cq_resize r;
	uint32_t slots;
	int ret;

	if (cq == NULL || depth == 0 || depth > ROCE_MAX_CQE)
		return -EINVAL;
	slots = rte_align32pow2(depth);
	r.cq = cq;
	r.mask = slots - 1;
	r.depth = depth;
	r.ring = rte_zmalloc_socket("roce_cq_ring",
				    (size_t)slots * sizeof(*r.ring),
				    RTE_CACHE_LINE_SIZE, cq->w->socket);
	if (r.ring == NULL)
		return -ENOMEM;
	ret = roce_worker_exec(cq->w, cq_resize_on_worker, &r);
	/* the ring that is not in use any more: the old or the unused new */
	rte_free(r.ring);
	return ret;
}
