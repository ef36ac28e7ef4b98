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
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_priv.h"
#include "roce_worker.h"

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
	return 0;
}
