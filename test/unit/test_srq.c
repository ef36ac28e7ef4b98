/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues on a real worker: posting contract, order of
 * next/consume, the limit event (IBTA 10.2.9.3), full and bad keys.
 *
 * An SGE whose lkey fails roce_key_check_local() (unknown, stale, other
 * PD, out of bounds, or no local write) is refused with -EFAULT, as
 * roce_post_send() documents for "unknown lkey", unless the SRQ was
 * created with lkey_at_exec; a bad SGE count or a message above 2 GiB is
 * -EINVAL; a full SRQ is -ENOMEM.
 */
#include <string.h>

#include <rte_errno.h>

#include "roce_priv.h"
#include "test_common.h"

static struct roce_device *dev;
static struct roce_worker *w;
static struct roce_pd *pd, *pd_other;
static struct roce_mr *mr, *mr_ro;
static uint8_t buf[4096] __rte_aligned(64);

static uint16_t
tx_free(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(ctx);
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static int
suite_init(void)
{
	struct roce_device_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "srq";
	cfg.max_qp = 64;
	cfg.max_mr = 16;
	cfg.socket_id = SOCKET_ID_ANY;
	dev = roce_device_create(&cfg);
	if (dev == NULL)
		return -1;
	w = roce_worker_create(dev, tx_free, NULL);
	pd = roce_alloc_pd(dev);
	pd_other = roce_alloc_pd(dev);
	if (w == NULL || pd == NULL || pd_other == NULL)
		return -1;
	mr = roce_reg_mr(pd, buf, sizeof(buf), ROCE_ACCESS_LOCAL_WRITE);
	mr_ro = roce_reg_mr(pd, buf, sizeof(buf), 0);
	return mr != NULL && mr_ro != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	if (roce_dereg_mr(mr) != 0 || roce_dereg_mr(mr_ro) != 0 ||
	    roce_dealloc_pd(pd) != 0 || roce_dealloc_pd(pd_other) != 0 ||
	    roce_worker_destroy(w) != 0)
		return -1;
	return roce_device_destroy(dev);
}

static struct roce_srq *
new_srq(uint32_t max_wr, uint32_t max_sge, uint32_t limit)
{
	struct roce_srq_attr a = {
		.max_wr = max_wr, .max_sge = max_sge, .srq_limit = limit,
	};

	return roce_create_srq(pd, w, &a);
}

static void
test_srq_create_invalid(void)
{
	struct roce_srq_attr a = { .max_wr = 16, .max_sge = 2 };
	struct roce_device_config cfg;
	struct roce_worker *w2;
	struct roce_device *dev2;
	struct roce_srq *srq;

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_srq(NULL, w, &a));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(roce_create_srq(pd, NULL, &a));
	CU_ASSERT_PTR_NULL(roce_create_srq(pd, w, NULL));
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(new_srq(0, 1, 0));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(new_srq(ROCE_MAX_SRQ_WR + 1, 1, 0));
	CU_ASSERT_PTR_NULL(new_srq(16, ROCE_MAX_SGE + 1, 0));
	CU_ASSERT_PTR_NULL(new_srq(16, 1, 17));

	/* a worker of another device */
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_qp = 8;
	cfg.max_mr = 4;
	cfg.socket_id = SOCKET_ID_ANY;
	dev2 = roce_device_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev2);
	w2 = roce_worker_create(dev2, tx_free, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w2);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_srq(pd, w2, &a));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(roce_worker_destroy(w2), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(dev2), 0);

	/* limits: largest SRQ */
	srq = new_srq(ROCE_MAX_SRQ_WR, ROCE_MAX_SGE, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL(dev->nb_srq, 1);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(dev->nb_srq, 0);
	CU_ASSERT_EQUAL(roce_destroy_srq(NULL), -EINVAL);
}

static void
test_srq_post_order(void)
{
	struct roce_sge sge[2];
	struct roce_recv_wr wr[10];
	struct roce_recv_wqe *wqe;
	struct roce_srq *srq;
	unsigned int posted, i, round;
	uint64_t next = 0, id = 0;

	srq = new_srq(8, 2, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_PTR_NULL(roce_srq_next(srq));
	sge[0].addr = (uint64_t)(uintptr_t)buf;
	sge[0].length = 100;
	sge[0].lkey = roce_mr_lkey(mr);
	sge[1].addr = (uint64_t)(uintptr_t)buf + 1000;
	sge[1].length = 23;
	sge[1].lkey = roce_mr_lkey(mr);

	/* several rounds so the indexes wrap */
	for (round = 0; round < 5; round++) {
		for (i = 0; i < RTE_DIM(wr); i++) {
			wr[i].wr_id = id + i;
			wr[i].sg_list = sge;
			wr[i].num_sge = i % 3;	/* 0, 1 or 2 SGEs */
		}
		/* 8 fit, the 9th is refused: queue full */
		CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, RTE_DIM(wr),
						   &posted), -ENOMEM);
		CU_ASSERT_EQUAL(posted, 8);
		id += posted;
		for (i = 0; i < 8; i++) {
			uint32_t ns = (uint32_t)((next - round * 8) % 3);

			wqe = roce_srq_next(srq);
			CU_ASSERT_PTR_NOT_NULL_FATAL(wqe);
			/* next() does not take: the same WQE again */
			CU_ASSERT_PTR_EQUAL(roce_srq_next(srq), wqe);
			CU_ASSERT_EQUAL(wqe->wr_id, next);
			CU_ASSERT_EQUAL(wqe->num_sge, ns);
			CU_ASSERT_EQUAL(wqe->length,
					ns == 0 ? 0 : ns == 1 ? 100 : 123);
			if (ns > 0)
				CU_ASSERT_EQUAL(wqe->sge[0].length, 100);
			roce_srq_consume(srq);
			next++;
		}
		CU_ASSERT_PTR_NULL(roce_srq_next(srq));
		/* 2 WRs of this round were not posted: resume from them */
		next = id;
	}
	/* consume on an empty SRQ changes nothing */
	roce_srq_consume(srq);
	CU_ASSERT_EQUAL(srq->rq.cons, srq->rq.prod);
	/* n == 0 and a NULL 'posted' are fine */
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 1, NULL), 0);
	CU_ASSERT_EQUAL(roce_post_srq_recv(NULL, wr, 1, &posted), -EINVAL);
	CU_ASSERT_EQUAL(posted, 0);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, NULL, 1, &posted), -EINVAL);
	/* an SRQ in error takes nothing */
	srq->error = true;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 1, &posted), -EINVAL);
	CU_ASSERT_EQUAL(posted, 0);
	srq->error = false;
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
}

static void
test_srq_bad_wr(void)
{
	struct roce_sge good, bad[6];
	struct roce_recv_wr wr[3];
	struct roce_srq *srq;
	struct roce_mr *big;
	unsigned int posted, i;

	srq = new_srq(16, 2, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	good.addr = (uint64_t)(uintptr_t)buf;
	good.length = 64;
	good.lkey = roce_mr_lkey(mr);
	for (i = 0; i < RTE_DIM(bad); i++)
		bad[i] = good;
	bad[0].lkey = 0x123456;			/* unknown */
	bad[1].lkey = roce_mr_lkey(mr) ^ 1;	/* stale key byte */
	bad[2].lkey = roce_mr_lkey(mr_ro);	/* no local write */
	bad[3].addr += sizeof(buf) - 63;	/* past the end */
	bad[4].addr -= 1;			/* before the start */
	bad[5].length = 0;			/* zero length: no check */
	bad[5].lkey = 0;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < RTE_DIM(wr); i++) {
		wr[i].wr_id = i;
		wr[i].sg_list = &good;
		wr[i].num_sge = 1;
	}
	for (i = 0; i < 5; i++) {
		wr[1].sg_list = &bad[i];
		CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 3, &posted),
				-EFAULT);
		CU_ASSERT_EQUAL(posted, 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(roce_srq_next(srq));
		roce_srq_consume(srq);
		CU_ASSERT_PTR_NULL(roce_srq_next(srq));
	}
	wr[1].sg_list = &bad[5];
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 3, &posted), 0);
	CU_ASSERT_EQUAL(posted, 3);
	for (i = 0; i < 3; i++)
		roce_srq_consume(srq);

	/* SGE count above max_sge, or SGEs without a list */
	wr[1].sg_list = &good;
	wr[1].num_sge = 3;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 3, &posted), -EINVAL);
	CU_ASSERT_EQUAL(posted, 1);
	roce_srq_consume(srq);
	wr[1].num_sge = 1;
	wr[1].sg_list = NULL;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 3, &posted), -EINVAL);
	CU_ASSERT_EQUAL(posted, 1);
	roce_srq_consume(srq);

	/* another PD's SRQ does not accept this PD's keys */
	{
		struct roce_srq_attr a = { .max_wr = 4, .max_sge = 1 };
		struct roce_srq *other = roce_create_srq(pd_other, w, &a);

		CU_ASSERT_PTR_NOT_NULL_FATAL(other);
		CU_ASSERT_EQUAL(roce_post_srq_recv(other, wr, 1, &posted),
				-EFAULT);
		CU_ASSERT_EQUAL(roce_destroy_srq(other), 0);
	}

	/* more than 2 GiB in one WQE (a 4 GiB MR, never touched) */
	big = roce_reg_mr(pd, (void *)(uintptr_t)(1ULL << 44), 1ULL << 32,
			  ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	bad[0].addr = 1ULL << 44;
	bad[0].length = UINT32_MAX;
	bad[0].lkey = roce_mr_lkey(big);
	bad[1] = bad[0];
	bad[1].length = 1;
	wr[0].sg_list = bad;
	wr[0].num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 1, &posted), -EINVAL);
	bad[0].length = (uint32_t)ROCE_MAX_MSG_SIZE - 1;
	wr[0].num_sge = 2;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_srq_next(srq)->length, ROCE_MAX_MSG_SIZE);
	roce_srq_consume(srq);
	CU_ASSERT_EQUAL(roce_dereg_mr(big), 0);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
}

/*
 * The SRQ's poster keeps the last L_Key that passed (srq->rq.lkc): a hit
 * must still refuse a range outside the region, and a key deregistered
 * since, its index taken by a new registration.
 */
static void
test_srq_key_cache(void)
{
	struct roce_recv_wr wr;
	struct roce_srq *srq;
	struct roce_mr *m1, *m2;
	struct roce_sge s;
	unsigned int posted;

	srq = new_srq(16, 1, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	m1 = roce_reg_mr(pd, buf, sizeof(buf), ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m1);
	s.addr = (uint64_t)(uintptr_t)buf;
	s.length = 64;
	s.lkey = roce_mr_lkey(m1);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &s;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), 0);
	s.addr += sizeof(buf) - 32;		/* runs past the end */
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), -EFAULT);
	s.addr = (uint64_t)(uintptr_t)buf;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), 0);
	/* deregistered, the index reused: the old key fails */
	CU_ASSERT_EQUAL(roce_dereg_mr(m1), 0);
	m2 = roce_reg_mr(pd, buf, sizeof(buf), ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m2);
	CU_ASSERT_NOT_EQUAL(roce_mr_lkey(m2), s.lkey);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), -EFAULT);
	CU_ASSERT_EQUAL(posted, 0);
	s.lkey = roce_mr_lkey(m2);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(m2), 0);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted), -EFAULT);
	while (roce_srq_next(srq) != NULL)
		roce_srq_consume(srq);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
}

/*
 * lkey_at_exec: an SGE failing the L_Key check is posted, for the
 * responder to fail the receive it serves; by default it is refused.
 */
static void
test_srq_lkey_at_exec(void)
{
	struct roce_srq_attr a = { .max_wr = 4, .max_sge = 1 }, q;
	struct roce_recv_wqe *wqe;
	struct roce_recv_wr wr;
	struct roce_srq *srq;
	struct roce_sge s;
	unsigned int posted, i;

	s.addr = (uint64_t)(uintptr_t)buf;
	s.length = 64;
	s.lkey = roce_mr_lkey(mr) ^ 1;		/* stale key byte */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.sg_list = &s;
	wr.num_sge = 1;
	for (i = 0; i < 2; i++) {
		a.lkey_at_exec = i == 1;
		srq = roce_create_srq(pd, w, &a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
		memset(&q, 0, sizeof(q));
		q.lkey_at_exec = i != 1;
		CU_ASSERT_EQUAL(roce_query_srq(srq, &q), 0);
		CU_ASSERT_EQUAL(q.lkey_at_exec, i == 1);
		CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &wr, 1, &posted),
				i == 1 ? 0 : -EFAULT);
		CU_ASSERT_EQUAL(posted, i);
		if (i == 1) {
			wqe = roce_srq_next(srq);
			CU_ASSERT_PTR_NOT_NULL_FATAL(wqe);
			CU_ASSERT_EQUAL(wqe->sge[0].lkey, s.lkey);
			roce_srq_consume(srq);
		}
		CU_ASSERT_PTR_NULL(roce_srq_next(srq));
		CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	}
}

static int
count_limit_events(struct roce_srq *srq)
{
	struct roce_async_event ev;
	int n = 0;

	while (roce_get_async_event(dev, &ev) == 1) {
		if (ev.event_type == ROCE_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == srq)
			n++;
	}
	return n;
}

static void
test_srq_limit(void)
{
	struct roce_srq_attr a;
	struct roce_recv_wr wr[10];
	struct roce_srq *srq;
	unsigned int posted, i;

	srq = new_srq(16, 1, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	count_limit_events(NULL);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < RTE_DIM(wr); i++)
		wr[i].wr_id = i;
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 10, &posted), 0);

	/* modify: bad masks and values (resize: test_srq_resize) */
	memset(&a, 0, sizeof(a));
	a.srq_limit = 17;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_LIMIT), -EINVAL);
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, 1 << 4), -EINVAL);
	CU_ASSERT_EQUAL(roce_modify_srq(NULL, &a, ROCE_SRQ_LIMIT), -EINVAL);
	CU_ASSERT_EQUAL(roce_modify_srq(srq, NULL, ROCE_SRQ_LIMIT), -EINVAL);

	/* arm at 4: fires when fewer than 4 remain, once */
	a.srq_limit = 4;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(roce_query_srq(srq, &a), 0);
	CU_ASSERT_EQUAL(a.max_wr, 16);
	CU_ASSERT_EQUAL(a.max_sge, 1);
	CU_ASSERT_EQUAL(a.srq_limit, 4);
	for (i = 0; i < 6; i++) {	/* 10 -> 4 left */
		CU_ASSERT_PTR_NOT_NULL(roce_srq_next(srq));
		roce_srq_consume(srq);
	}
	CU_ASSERT_EQUAL(count_limit_events(srq), 0);
	roce_srq_next(srq);
	roce_srq_consume(srq);		/* 3 left: below the limit */
	CU_ASSERT_EQUAL(count_limit_events(srq), 1);
	CU_ASSERT_EQUAL(roce_query_srq(srq, &a), 0);
	CU_ASSERT_EQUAL(a.srq_limit, 0);	/* disarmed */
	roce_srq_next(srq);
	roce_srq_consume(srq);		/* 2 left: no second event */
	CU_ASSERT_EQUAL(count_limit_events(srq), 0);
	CU_ASSERT_EQUAL(srq->limit_events, 1);

	/* re-armed above the count: fires at the next consume */
	a.srq_limit = 5;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(count_limit_events(srq), 0);
	roce_srq_next(srq);
	roce_srq_consume(srq);		/* 1 left */
	CU_ASSERT_EQUAL(count_limit_events(srq), 1);
	CU_ASSERT_EQUAL(srq->limit_events, 2);

	/* armed at create */
	CU_ASSERT_EQUAL(roce_query_srq(NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	srq = new_srq(8, 1, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, wr, 3, &posted), 0);
	roce_srq_next(srq);
	roce_srq_consume(srq);		/* 2 left */
	CU_ASSERT_EQUAL(count_limit_events(srq), 0);
	roce_srq_next(srq);
	roce_srq_consume(srq);		/* 1 left */
	CU_ASSERT_EQUAL(count_limit_events(srq), 1);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
}

/* Post @p n WRs with ids from @p id, 1 or 2 SGEs (length 10 * sges). */
static int
post_ids(struct roce_srq *srq, uint64_t id, unsigned int n)
{
	struct roce_recv_wr wr;
	struct roce_sge sge[2];
	unsigned int i, posted;
	int ret;

	for (i = 0; i < n; i++) {
		sge[0].addr = (uint64_t)(uintptr_t)buf;
		sge[0].length = 10;
		sge[0].lkey = roce_mr_lkey(mr);
		sge[1] = sge[0];
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = id + i;
		wr.sg_list = sge;
		wr.num_sge = 1 + (uint32_t)((id + i) & 1);
		ret = roce_post_srq_recv(srq, &wr, 1, &posted);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Take @p n WQEs, checking ids from @p id and their SGEs; false on a miss. */
static bool
take_ids(struct roce_srq *srq, uint64_t id, unsigned int n)
{
	struct roce_recv_wqe *wqe;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t ns = 1 + (uint32_t)((id + i) & 1);

		wqe = roce_srq_next(srq);
		if (wqe == NULL || wqe->wr_id != id + i ||
		    wqe->num_sge != ns || wqe->length != 10 * ns ||
		    wqe->sge[ns - 1].length != 10 ||
		    wqe->sge[0].lkey != roce_mr_lkey(mr))
			return false;
		roce_srq_consume(srq);
	}
	return true;
}

/* Resize (IBTA 11.2.3.3): grow, shrink to the outstanding count, refusals. */
static void
test_srq_resize(void)
{
	struct roce_srq_attr a;
	struct roce_srq *srq;

	srq = new_srq(4, 2, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	/* wrap the small ring first: ids 0..2 posted, 0 taken, 3..4 posted */
	CU_ASSERT_EQUAL(post_ids(srq, 0, 3), 0);
	CU_ASSERT_TRUE(take_ids(srq, 0, 1));
	CU_ASSERT_EQUAL(post_ids(srq, 3, 2), 0);
	CU_ASSERT_EQUAL(post_ids(srq, 5, 1), -ENOMEM);	/* 4 outstanding */

	/* grow: the 4 outstanding WQEs keep their order and content */
	memset(&a, 0, sizeof(a));
	a.max_wr = 100;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR), 0);
	CU_ASSERT_EQUAL(roce_query_srq(srq, &a), 0);
	CU_ASSERT_EQUAL(a.max_wr, 100);
	CU_ASSERT_EQUAL(a.max_sge, 2);
	CU_ASSERT_EQUAL(srq->rq.prod - srq->rq.cons, 4);
	CU_ASSERT_EQUAL(post_ids(srq, 5, 96), 0);	/* 100 outstanding */
	CU_ASSERT_EQUAL(post_ids(srq, 101, 1), -ENOMEM);

	/* shrinking below the outstanding WQEs: -EINVAL, nothing changed */
	a.max_wr = 99;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR), -EINVAL);
	CU_ASSERT_EQUAL(roce_query_srq(srq, &a), 0);
	CU_ASSERT_EQUAL(a.max_wr, 100);
	CU_ASSERT_TRUE(take_ids(srq, 1, 95));		/* 5 left: 96..100 */

	/* bad sizes */
	a.max_wr = 0;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR), -EINVAL);
	a.max_wr = ROCE_MAX_SRQ_WR + 1;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR), -EINVAL);
	/* an armed limit above the new size: -EINVAL */
	a.srq_limit = 4;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_LIMIT), 0);
	a.max_wr = 3;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR), -EINVAL);

	/* shrink to exactly the outstanding count, limit lowered together */
	a.max_wr = 5;
	a.srq_limit = 2;
	CU_ASSERT_EQUAL(roce_modify_srq(srq, &a,
					ROCE_SRQ_MAX_WR | ROCE_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(roce_query_srq(srq, &a), 0);
	CU_ASSERT_EQUAL(a.max_wr, 5);
	CU_ASSERT_EQUAL(a.srq_limit, 2);
	CU_ASSERT_EQUAL(post_ids(srq, 101, 1), -ENOMEM);
	CU_ASSERT_TRUE(take_ids(srq, 96, 5));
	CU_ASSERT_PTR_NULL(roce_srq_next(srq));
	/* and the resized ring keeps working across its wrap */
	CU_ASSERT_EQUAL(post_ids(srq, 200, 5), 0);
	CU_ASSERT_TRUE(take_ids(srq, 200, 3));
	CU_ASSERT_EQUAL(post_ids(srq, 205, 3), 0);
	CU_ASSERT_TRUE(take_ids(srq, 203, 5));
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
}

static int
count_err_events(struct roce_srq *srq)
{
	struct roce_async_event ev;
	int n = 0;

	while (roce_get_async_event(dev, &ev) == 1) {
		if (ev.event_type == ROCE_EVENT_SRQ_ERR &&
		    ev.element.srq == srq)
			n++;
	}
	return n;
}

/* SRQ catastrophic error (IBTA 11.6.3): a malformed head WQE. */
static void
test_srq_error(void)
{
	struct roce_recv_wqe *wqe;
	struct roce_srq_attr a;
	struct roce_srq *srq;
	int round;

	count_err_events(NULL);
	for (round = 0; round < 2; round++) {
		srq = new_srq(8, 2, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
		CU_ASSERT_EQUAL(post_ids(srq, 0, 3), 0);
		/* the second WQE overwritten: SGE count, then length */
		wqe = roce_wq_slot(&srq->rq, srq->rq.cons + 1);
		if (round == 0)
			wqe->num_sge = 3;
		else
			wqe->length++;
		CU_ASSERT_TRUE(take_ids(srq, 0, 1));
		CU_ASSERT_FALSE(srq->error);
		CU_ASSERT_EQUAL(count_err_events(srq), 0);
		CU_ASSERT_PTR_NULL(roce_srq_next(srq));
		CU_ASSERT_TRUE(srq->error);
		CU_ASSERT_EQUAL(count_err_events(srq), 1);
		/* sticky: nothing handed out, no second event, no posts */
		CU_ASSERT_PTR_NULL(roce_srq_next(srq));
		CU_ASSERT_EQUAL(count_err_events(srq), 0);
		CU_ASSERT_EQUAL(srq->err_events, 1);
		CU_ASSERT_EQUAL(post_ids(srq, 10, 1), -EINVAL);
		memset(&a, 0, sizeof(a));
		a.max_wr = 16;
		CU_ASSERT_EQUAL(roce_modify_srq(srq, &a, ROCE_SRQ_MAX_WR),
				-EINVAL);
		CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	}
}

static void
test_srq_busy(void)
{
	struct roce_srq *srq;
	struct roce_srq_attr a = { .max_wr = 4, .max_sge = 1 };

	srq = roce_create_srq(pd_other, w, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL(pd_other->refcnt, 1);
	CU_ASSERT_EQUAL(roce_dealloc_pd(pd_other), -EBUSY);
	CU_ASSERT_EQUAL(roce_worker_destroy(w), -EBUSY);
	__atomic_fetch_add(&srq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), -EBUSY);
	__atomic_fetch_sub(&srq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pd_other->refcnt, 0);
}

static CU_TestInfo srq_tests[] = {
	{ "create arguments", test_srq_create_invalid },
	{ "post, next/consume order, full", test_srq_post_order },
	{ "bad WRs: keys -EFAULT, counts -EINVAL", test_srq_bad_wr },
	{ "post: the L_Key cache follows the keys", test_srq_key_cache },
	{ "lkey_at_exec: bad L_Keys posted, reported by query",
	  test_srq_lkey_at_exec },
	{ "limit event once, re-arm", test_srq_limit },
	{ "resize: grow, shrink, order kept", test_srq_resize },
	{ "error state: event once, no posts", test_srq_error },
	{ "busy SRQ, PD and worker", test_srq_busy },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "srq", suite_init, suite_fini, NULL, NULL, srq_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
