/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues (IBTA 10.2.9). One poster thread owns the producer
 * index (roce_post_srq_recv); the worker that owns the SRQ is the consumer
 * for every QP using it: roce_srq_next() shows the head WQE, which the
 * responder copies, and roce_srq_consume() hands the slot back at once, so
 * messages of several QPs can fill their WQEs concurrently.
 *
 * Limit (IBTA 10.2.9.3): when armed (limit != 0) and the number of WQEs
 * left on the SRQ drops below it, the worker raises
 * ROCE_EVENT_SRQ_LIMIT_REACHED once and disarms; roce_modify_srq() re-arms.
 *
 * Resize (roce_modify_srq with ROCE_SRQ_MAX_WR, IBTA 11.2.3.3 Modify SRQ):
 * a new ring is allocated by the caller and swapped in on the worker
 * through roce_worker_exec(), so the consumer never sees a half-swapped
 * ring; the outstanding WQEs move to it in order. The producer side has no
 * lock: as with ibv_modify_srq(), posting to the SRQ concurrently with a
 * resize is not allowed (the caller serialises its poster with the
 * resize). A size below the WQEs outstanding is -EINVAL, the SRQ unchanged.
 *
 * Error (IBTA 11.6.3 "SRQ catastrophic error", 10.2.9.5): the worker finds
 * a WQE at the head that cannot be a posted one (more SGEs than the SRQ
 * allows, or a length other than the sum of its SGEs: the ring was
 * overwritten, e.g. by a post racing a resize). The SRQ then enters its
 * error state for good: ROCE_EVENT_SRQ_ERR is raised once, posts fail with
 * -EINVAL, no WQE is handed out any more, and each QP that needs a WQE
 * from it goes to ERR (roce_resp.c: remote operational error), which
 * flushes the WQE it holds and raises LAST_WQE_REACHED. The WQEs still on
 * the SRQ belong to no QP and complete nowhere: the consumer destroys the
 * SRQ (IBTA 10.2.9.5: the SRQ must be destroyed).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_priv.h"
#include "roce_worker.h"

static inline uint32_t
srq_stride(uint32_t max_sge)
{
	return sizeof(struct roce_recv_wqe) + max_sge * sizeof(struct roce_sge);
}

struct roce_srq *
roce_create_srq(struct roce_pd *pd, struct roce_worker *w,
		const struct roce_srq_attr *attr)
{
	struct roce_device *dev;
	struct roce_srq *srq;
	int ret;

	if (pd == NULL || w == NULL || attr == NULL ||
	    roce_worker_device(w) != pd->dev ||
	    attr->max_wr == 0 || attr->max_wr > ROCE_MAX_SRQ_WR ||
	    attr->max_sge > ROCE_MAX_SGE || attr->srq_limit > attr->max_wr) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	srq = rte_zmalloc_socket("roce_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE,
				 w->socket);
	if (srq == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	srq->rq.max_sge = attr->max_sge;
	srq->lkey_at_exec = attr->lkey_at_exec;
	ret = roce_wq_init(&srq->rq, attr->max_wr, srq_stride(attr->max_sge),
			   w->socket);
	if (ret < 0)
		goto fail;
	srq->pd = pd;
	srq->w = w;
	/* libibverbs ignores srq_limit at create; honouring it is harmless */
	srq->limit = attr->srq_limit;

	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->nb_srq >= dev->attr.max_srq) {
		rte_spinlock_unlock(&dev->ctl_lock);
		ret = -ENOMEM;
		goto fail;
	}
	dev->nb_srq++;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_get(pd);
	roce_worker_get(w);
	return srq;

fail:
	roce_wq_fini(&srq->rq);
	rte_free(srq);
	rte_errno = -ret;
	return NULL;
}

struct srq_resize {
	struct roce_srq *srq;
	struct roce_wq nq;	/**< in: the new ring; out: the old one */
	uint32_t limit;		/**< the limit to check against the new size */
	bool set_limit;
};

/* On the worker: move the outstanding WQEs to the new ring and swap. */
static int
srq_resize_exec(void *arg)
{
	struct srq_resize *rs = arg;
	struct roce_srq *srq = rs->srq;
	struct roce_wq *q = &srq->rq;
	struct roce_wq old;
	uint32_t prod, n, i;

	if (__atomic_load_n(&srq->error, __ATOMIC_ACQUIRE))
		return -EINVAL;
	prod = __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
	n = prod - q->cons;
	/* the armed limit is checked against the new size too */
	if (rs->nq.max_wr < n ||
	    (rs->set_limit ? rs->limit :
	     __atomic_load_n(&srq->limit, __ATOMIC_ACQUIRE)) > rs->nq.max_wr)
		return -EINVAL;
	for (i = 0; i < n; i++)
		memcpy(roce_wq_slot(&rs->nq, i), roce_wq_slot(q, q->cons + i),
		       q->stride);
	rs->nq.prod = n;
	rs->nq.cons = 0;
	old = *q;
	q->buf = rs->nq.buf;
	q->mask = rs->nq.mask;
	q->max_wr = rs->nq.max_wr;
	q->cons = 0;
	__atomic_store_n(&q->prod, n, __ATOMIC_RELEASE);
	rs->nq = old;		/* the caller frees the old ring */
	return 0;
}

static int
srq_resize(struct roce_srq *srq, const struct roce_srq_attr *attr, int mask)
{
	struct srq_resize rs;
	int ret;

	if (attr->max_wr == 0 || attr->max_wr > ROCE_MAX_SRQ_WR)
		return -EINVAL;
	memset(&rs, 0, sizeof(rs));
	rs.srq = srq;
	rs.set_limit = (mask & ROCE_SRQ_LIMIT) != 0;
	rs.limit = attr->srq_limit;
	rs.nq.max_sge = srq->rq.max_sge;
	ret = roce_wq_init(&rs.nq, attr->max_wr, srq->rq.stride, srq->w->socket);
	if (ret < 0) {
		roce_wq_fini(&rs.nq);
		return ret;
	}
	ret = roce_worker_exec(srq->w, srq_resize_exec, &rs);
	/* the new ring on failure, the old one on success */
	roce_wq_fini(&rs.nq);
	if (ret == 0)
		ROCE_LOG(DEBUG, verbs, "srq resized to %u WRs", attr->max_wr);
	return ret;
}

int
roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr,
		int mask)
{
	int ret;

	if (srq == NULL || attr == NULL ||
	    (mask & ~(ROCE_SRQ_MAX_WR | ROCE_SRQ_LIMIT)) != 0)
		return -EINVAL;
	if (mask & ROCE_SRQ_MAX_WR) {
		ret = srq_resize(srq, attr, mask);
		if (ret < 0)
			return ret;
	}
	if (mask & ROCE_SRQ_LIMIT) {
		/* the limit cannot exceed the SRQ size (as ibv_modify_srq) */
		if (attr->srq_limit > srq->rq.max_wr)
			return -EINVAL;
		__atomic_store_n(&srq->limit, attr->srq_limit,
				 __ATOMIC_RELEASE);
	}
	return 0;
}

int
roce_query_srq(const struct roce_srq *srq, struct roce_srq_attr *attr)
{
	if (srq == NULL || attr == NULL)
		return -EINVAL;
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = __atomic_load_n(&srq->limit, __ATOMIC_ACQUIRE);
	attr->lkey_at_exec = srq->lkey_at_exec;
	return 0;
}

int
roce_destroy_srq(struct roce_srq *srq)
{
	struct roce_device *dev;

	if (srq == NULL)
		return -EINVAL;
	if (__atomic_load_n(&srq->refcnt, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;
	dev = srq->pd->dev;
	rte_spinlock_lock(&dev->ctl_lock);
	dev->nb_srq--;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_put(srq->pd);
	roce_worker_put(srq->w);
	roce_wq_fini(&srq->rq);
	rte_free(srq);
	return 0;
}

/** Validate @p wr and write it into @p wqe; 0 or the errno of the contract. */
static int
srq_fill_wqe(struct roce_srq *srq, const struct roce_recv_wr *wr,
	     struct roce_recv_wqe *wqe)
{
	const struct roce_device *dev = srq->pd->dev;
	uint64_t total = 0;
	uint32_t i;

	if (wr->num_sge > srq->rq.max_sge ||
	    (wr->num_sge > 0 && wr->sg_list == NULL))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		const struct roce_sge *sge = &wr->sg_list[i];
		struct roce_key_ref ref;

		/*
		 * Checked at post for an early, precise error; the responder
		 * checks again when it writes (the MR may go away meanwhile).
		 * One poster at a time (roce_verbs.h): the cache in the
		 * queue's producer line is its own.
		 */
		if (roce_key_check_local_cached(dev, srq->pd, sge->lkey,
						sge->addr, sge->length,
						ROCE_ACCESS_LOCAL_WRITE, &ref,
						&srq->rq.lkc) != ROCE_OK &&
		    !srq->lkey_at_exec)
			return -EFAULT;
		total += sge->length;
	}
	if (total > ROCE_MAX_MSG_SIZE)
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->length = (uint32_t)total;
	if (wr->num_sge > 0)
		memcpy(wqe->sge, wr->sg_list,
		       wr->num_sge * sizeof(struct roce_sge));
	return 0;
}

int
roce_post_srq_recv(struct roce_srq *srq, const struct roce_recv_wr *wr,
		   unsigned int n, unsigned int *posted)
{
	struct roce_wq *q;
	unsigned int i;
	uint32_t prod;
	int ret = 0;

	if (posted != NULL)
		*posted = 0;
	if (srq == NULL || (wr == NULL && n > 0))
		return -EINVAL;
	/* SRQ error state (IBTA 10.2.9.5): nothing can be posted */
	if (__atomic_load_n(&srq->error, __ATOMIC_ACQUIRE))
		return -EINVAL;
	q = &srq->rq;
	prod = q->prod;
	for (i = 0; i < n; i++) {
		if (prod - __atomic_load_n(&q->cons, __ATOMIC_ACQUIRE) >=
		    q->max_wr) {
			ret = -ENOMEM;
			break;
		}
		ret = srq_fill_wqe(srq, &wr[i], roce_wq_slot(q, prod));
		if (ret < 0)
			break;
		prod++;
	}
	/* one release store publishes every WQE written above */
	__atomic_store_n(&q->prod, prod, __ATOMIC_RELEASE);
	if (posted != NULL)
		*posted = i;
	return ret;
}

/* Enter the SRQ error state (worker only; once): IBTA 11.6.3. */
static void
srq_set_error(struct roce_srq *srq)
{
	if (__atomic_exchange_n(&srq->error, true, __ATOMIC_ACQ_REL))
		return;
	srq->err_events++;
	ROCE_LOG(ERR, verbs, "srq %p: catastrophic error, WQE at %u unusable",
		 (void *)srq, srq->rq.cons);
	roce_event_raise(srq->pd->dev, ROCE_EVENT_SRQ_ERR, srq, 0,
			 ROCE_ERR_FATAL);
}

/* A WQE as srq_fill_wqe() writes it: SGE count and total length agree. */
static bool
srq_wqe_sane(const struct roce_srq *srq, const struct roce_recv_wqe *wqe)
{
	uint64_t total = 0;
	uint32_t i;

	if (wqe->num_sge > srq->rq.max_sge)
		return false;
	for (i = 0; i < wqe->num_sge; i++)
		total += wqe->sge[i].length;
	return total == wqe->length;
}

struct roce_recv_wqe *
roce_srq_next(struct roce_srq *srq)
{
	struct roce_wq *q = &srq->rq;
	struct roce_recv_wqe *wqe;

	if (unlikely(__atomic_load_n(&srq->error, __ATOMIC_RELAXED)))
		return NULL;
	if (__atomic_load_n(&q->prod, __ATOMIC_ACQUIRE) == q->cons)
		return NULL;
	wqe = roce_wq_slot(q, q->cons);
	if (unlikely(!srq_wqe_sane(srq, wqe))) {
		srq_set_error(srq);
		return NULL;
	}
	return wqe;
}

void
roce_srq_consume(struct roce_srq *srq)
{
	struct roce_wq *q = &srq->rq;
	uint32_t prod, cons, limit;

	prod = __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
	cons = q->cons;
	if (unlikely(prod == cons))	/* nothing taken: caller bug */
		return;
	cons++;
	__atomic_store_n(&q->cons, cons, __ATOMIC_RELEASE);
	limit = __atomic_load_n(&srq->limit, __ATOMIC_ACQUIRE);
	if (unlikely(limit != 0 && prod - cons < limit)) {
		/* fire once and disarm (IBTA 10.2.9.3); a concurrent re-arm
		 * by roce_modify_srq() wins over the disarm
		 */
		if (__atomic_compare_exchange_n(&srq->limit, &limit, 0, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			srq->limit_events++;
			roce_event_raise(srq->pd->dev,
					 ROCE_EVENT_SRQ_LIMIT_REACHED, srq, 0,
					 ROCE_OK);
		}
	}
}
