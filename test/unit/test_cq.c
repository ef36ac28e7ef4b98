/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues on a real worker: order, bursts, overrun semantics
 * (IBTA 11.4.2.1) and a producer thread against a polling thread.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_pause.h>

#include "roce_priv.h"
#include "test_common.h"

static struct roce_device *dev;
static struct roce_worker *w;

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
	cfg.name = "cq";
	cfg.max_qp = 64;
	cfg.max_mr = 16;
	cfg.socket_id = SOCKET_ID_ANY;
	dev = roce_device_create(&cfg);
	if (dev == NULL)
		return -1;
	w = roce_worker_create(dev, tx_free, NULL);
	return w != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	if (roce_worker_destroy(w) != 0)
		return -1;
	return roce_device_destroy(dev);
}

static void
wc_make(struct roce_wc *wc, uint64_t i)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = i;
	wc->status = ROCE_WC_SUCCESS;
	wc->opcode = (i & 1) ? ROCE_WC_RECV : ROCE_WC_SEND;
	wc->byte_len = (uint32_t)(i * 7);
	wc->qp_num = (uint32_t)(i & 0xffffff);
	wc->imm_data = (uint32_t)~i;
}

static bool
wc_check(const struct roce_wc *wc, uint64_t i)
{
	return wc->wr_id == i && wc->byte_len == (uint32_t)(i * 7) &&
		wc->qp_num == (uint32_t)(i & 0xffffff) &&
		wc->imm_data == (uint32_t)~i &&
		wc->opcode == ((i & 1) ? ROCE_WC_RECV : ROCE_WC_SEND);
}

static void
test_cq_create_invalid(void)
{
	struct roce_cq *cq;

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_cq(NULL, 16));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_cq(w, 0));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_cq(w, ROCE_MAX_CQE + 1));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(roce_destroy_cq(NULL), -EINVAL);

	/* the largest CQ works */
	cq = roce_create_cq(w, ROCE_MAX_CQE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(dev->nb_cq, 1);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(dev->nb_cq, 0);
}

static void
test_cq_order_burst(void)
{
	struct roce_wc wc, out[16];
	struct roce_cq *cq;
	uint64_t i, next = 0;
	int n;

	cq = roce_create_cq(w, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 4), 0);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 0), 0);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, -1), -EINVAL);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(roce_poll_cq(NULL, out, 1), -EINVAL);

	/* several rounds so the indexes wrap the 16-slot ring */
	for (i = 0; i < 50; i++) {
		wc_make(&wc, i);
		CU_ASSERT_EQUAL_FATAL(roce_cq_push(cq, &wc), 0);
		if (i % 7 == 6) {
			/* partial, then the rest in one burst bigger than needed */
			n = roce_poll_cq(cq, out, 3);
			CU_ASSERT_EQUAL(n, 3);
			n += roce_poll_cq(cq, out + 3, 16);
			CU_ASSERT_EQUAL(n, 7);
			for (int j = 0; j < n; j++)
				CU_ASSERT(wc_check(&out[j], next++));
		}
	}
	n = roce_poll_cq(cq, out, 16);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(wc_check(&out[0], next++));
	CU_ASSERT_EQUAL(next, 50);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 16), 0);
	CU_ASSERT_EQUAL(cq->dropped, 0);
	CU_ASSERT_FALSE(cq->overflow);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
}

static void
test_cq_overflow(void)
{
	struct roce_async_event ev;
	struct roce_wc wc, out[8];
	struct roce_cq *cq;
	uint64_t i;

	/* depth 5 (8 slots): the 6th completion overruns */
	cq = roce_create_cq(w, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	while (roce_get_async_event(dev, &ev) == 1)
		;
	for (i = 0; i < 5; i++) {
		wc_make(&wc, i);
		CU_ASSERT_EQUAL(roce_cq_push(cq, &wc), 0);
	}
	wc_make(&wc, 5);
	CU_ASSERT_EQUAL(roce_cq_push(cq, &wc), -ENOSPC);
	CU_ASSERT(cq->overflow);
	CU_ASSERT_EQUAL(cq->dropped, 1);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_CQ_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.cq, cq);
	CU_ASSERT_EQUAL(ev.err, ROCE_ERR_CQ_OVERFLOW);

	/* sticky: even with room again, once only for the event */
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 2), 2);
	CU_ASSERT(wc_check(&out[0], 0) && wc_check(&out[1], 1));
	CU_ASSERT_EQUAL(roce_cq_push(cq, &wc), -ENOSPC);
	CU_ASSERT_EQUAL(cq->dropped, 2);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);

	/* the entries queued before the overrun, then -EIO for good */
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 8), 3);
	for (i = 0; i < 3; i++)
		CU_ASSERT(wc_check(&out[i], i + 2));
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 8), -EIO);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 8), -EIO);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
}

static void
test_cq_busy(void)
{
	struct roce_cq *cq;

	cq = roce_create_cq(w, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	/* the worker owns a CQ: it cannot go first */
	CU_ASSERT_EQUAL(roce_worker_destroy(w), -EBUSY);
	/* a QP uses it (as roce_create_qp does) */
	__atomic_fetch_add(&cq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), -EBUSY);
	__atomic_fetch_sub(&cq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
}

#define MT_COUNT (1u << 20)
#define MT_DEPTH 1024

struct producer_arg {
	struct roce_cq *cq;
	uint64_t full_waits;
	int errors;
};

static void *
producer(void *p)
{
	struct producer_arg *a = p;
	struct roce_cq *cq = a->cq;
	struct roce_wc wc;
	uint64_t i;

	for (i = 0; i < MT_COUNT; i++) {
		/* the worker never overruns a CQ in this test: wait for room */
		while (cq->prod - __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE) >=
		       cq->depth) {
			a->full_waits++;
			rte_pause();
		}
		wc_make(&wc, i);
		if (roce_cq_push(cq, &wc) != 0)
			a->errors++;
	}
	return NULL;
}

static void
test_cq_two_threads(void)
{
	struct producer_arg arg;
	struct roce_wc out[64];
	pthread_attr_t attr;
	cpu_set_t cpus;
	struct roce_cq *cq;
	pthread_t th;
	uint64_t next = 0, bad = 0;
	unsigned int seed = 12345;
	int n, j;

	cq = roce_create_cq(w, MT_DEPTH);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	memset(&arg, 0, sizeof(arg));
	arg.cq = cq;
	/*
	 * EAL pinned this thread to lcore 0; give the producer the other CPUs
	 * when there are some, so the two really run in parallel.
	 */
	pthread_attr_init(&attr);
	CPU_ZERO(&cpus);
	for (j = 1; j < CPU_SETSIZE && j < (int)sysconf(_SC_NPROCESSORS_ONLN);
	     j++)
		CPU_SET(j, &cpus);
	if (CPU_COUNT(&cpus) > 0)
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, &attr, producer, &arg), 0);
	pthread_attr_destroy(&attr);
	while (next < MT_COUNT) {
		/* bursts of pseudo-random size (seeded) */
		n = roce_poll_cq(cq, out, 1 + rand_r(&seed) % 64);
		if (n < 0) {
			bad++;
			break;
		}
		for (j = 0; j < n; j++) {
			if (!wc_check(&out[j], next))
				bad++;
			next++;
		}
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(next, MT_COUNT);
	CU_ASSERT_EQUAL(arg.errors, 0);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 64), 0);
	CU_ASSERT_FALSE(cq->overflow);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
}

static CU_TestInfo cq_tests[] = {
	{ "create/destroy arguments", test_cq_create_invalid },
	{ "push/poll order and bursts", test_cq_order_burst },
	{ "overrun: -ENOSPC, one CQ_ERR, -EIO after draining",
	  test_cq_overflow },
	{ "busy CQ", test_cq_busy },
	{ "producer thread, 1M completions in order", test_cq_two_threads },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cq", suite_init, suite_fini, NULL, NULL, cq_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
