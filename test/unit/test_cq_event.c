/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion events (lib/roce/objects/roce_cq.c): completion channels, arming with
 * roce_req_notify_cq(), one event per arm, roce_get_cq_event() and
 * roce_ack_cq_events(), detaching/destroying with pending events, and a
 * producer thread against a consumer that sleeps on the channel's fd
 * (perftest -e's loop): no completion is missed, no wake-up is lost.
 * Solicited-only arming (IBTA 11.4.2.2) and resizing a CQ that holds
 * completions.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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
	cfg.name = "cqev";
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
push(struct roce_cq *cq, uint64_t i)
{
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = i;
	wc.status = ROCE_WC_SUCCESS;
	wc.opcode = ROCE_WC_SEND;
	CU_ASSERT_EQUAL(roce_cq_push(cq, &wc), 0);
}

static void
push_wc(struct roce_cq *cq, uint64_t i, enum roce_wc_status st,
	bool solicited)
{
	struct roce_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = i;
	wc.status = st;
	wc.opcode = ROCE_WC_RECV;
	wc.solicited = solicited;
	CU_ASSERT_EQUAL(roce_cq_push(cq, &wc), 0);
}

static void
set_nonblock(struct roce_comp_channel *ch)
{
	int fd = roce_comp_channel_fd(ch);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
}

static void
test_arguments(void)
{
	struct roce_comp_channel *ch;
	struct roce_cq *cq, *ev;
	void *ctx;

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_comp_channel(NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(NULL), -EINVAL);
	CU_ASSERT_EQUAL(roce_comp_channel_fd(NULL), -EINVAL);
	ch = roce_create_comp_channel(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	cq = roce_create_cq(w, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	/* no channel: nothing to notify */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), -EINVAL);
	CU_ASSERT_EQUAL(roce_req_notify_cq(NULL, false), -EINVAL);
	CU_ASSERT_EQUAL(roce_cq_set_channel(NULL, ch, NULL), -EINVAL);
	CU_ASSERT_EQUAL(roce_get_cq_event(NULL, &ev, &ctx), -EINVAL);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, NULL, &ctx), -EINVAL);
	/* a QP uses the CQ: attaching works, detaching does not */
	__atomic_fetch_add(&cq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, ch, NULL), 0);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, NULL, NULL), -EBUSY);
	__atomic_fetch_sub(&cq->refcnt, 1, __ATOMIC_RELAXED);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, NULL, NULL), 0);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, ch, NULL), 0);
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, true), 0);
	/* the channel serves a CQ */
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), -EBUSY);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), 0);
}

static void
test_one_event_per_arm(void)
{
	static int tag;
	struct roce_comp_channel *ch;
	struct roce_cq *cq, *ev = NULL;
	struct roce_wc out[8];
	void *ctx = NULL;

	ch = roce_create_comp_channel(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	set_nonblock(ch);
	cq = roce_create_cq(w, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, ch, &tag), 0);

	/* not armed: completions raise nothing */
	push(cq, 1);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	/* armed: the next completion raises one event, the one after none */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), 0);
	push(cq, 2);
	push(cq, 3);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	CU_ASSERT_PTR_EQUAL(ev, cq);
	CU_ASSERT_PTR_EQUAL(ctx, &tag);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 8), 3);
	/* an event taken and not acknowledged keeps the CQ */
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), -EBUSY);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, NULL, NULL), -EBUSY);
	roce_ack_cq_events(cq, 1);

	/* raised and never taken: detaching drops it from the channel */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), 0);
	push(cq, 4);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, NULL, NULL), 0);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 8), 1);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), 0);
}

static void
test_two_cqs_one_channel(void)
{
	struct roce_comp_channel *ch;
	struct roce_cq *a, *b, *ev;
	int ta, tb;
	void *ctx;

	ch = roce_create_comp_channel(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	set_nonblock(ch);
	a = roce_create_cq(w, 4);
	b = roce_create_cq(w, 4);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(roce_cq_set_channel(a, ch, &ta), 0);
	CU_ASSERT_EQUAL(roce_cq_set_channel(b, ch, &tb), 0);
	CU_ASSERT_EQUAL(roce_req_notify_cq(a, false), 0);
	CU_ASSERT_EQUAL(roce_req_notify_cq(b, false), 0);
	push(b, 1);
	push(a, 2);
	/* in the order they were raised */
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	CU_ASSERT(ev == b && ctx == &tb);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	CU_ASSERT(ev == a && ctx == &ta);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	roce_ack_cq_events(a, 1);
	roce_ack_cq_events(b, 1);
	CU_ASSERT_EQUAL(roce_destroy_cq(a), 0);
	CU_ASSERT_EQUAL(roce_destroy_cq(b), 0);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), 0);
}

#define EV_COUNT 200000u

struct ev_producer {
	struct roce_cq *cq;
	int errors;
};

static void *
ev_producer(void *p)
{
	struct ev_producer *a = p;
	struct roce_cq *cq = a->cq;
	unsigned int seed = 777;
	struct roce_wc wc;
	uint64_t i;

	memset(&wc, 0, sizeof(wc));
	for (i = 0; i < EV_COUNT; i++) {
		while (cq->prod - __atomic_load_n(&cq->cons, __ATOMIC_ACQUIRE) >=
		       cq->depth)
			rte_pause();
		wc.wr_id = i;
		if (roce_cq_push(cq, &wc) != 0)
			a->errors++;
		/* now and then a pause, so the consumer really sleeps */
		if (rand_r(&seed) % 4096 == 0)
			usleep(200);
	}
	return NULL;
}

/* perftest -e: arm, poll empty, sleep on the fd, take and ack the event. */
static void
test_sleeping_consumer(void)
{
	struct roce_comp_channel *ch;
	struct ev_producer arg;
	struct roce_cq *cq, *ev;
	struct roce_wc out[32];
	struct pollfd pfd;
	uint64_t next = 0, bad = 0, sleeps = 0, timeouts = 0;
	unsigned int acks = 0;
	pthread_t th;
	void *ctx;
	int n, j;

	ch = roce_create_comp_channel(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	cq = roce_create_cq(w, 256);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, ch, NULL), 0);
	memset(&arg, 0, sizeof(arg));
	arg.cq = cq;
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ev_producer, &arg), 0);
	while (next < EV_COUNT) {
		n = roce_poll_cq(cq, out, 32);
		if (n < 0) {
			bad++;
			break;
		}
		for (j = 0; j < n; j++)
			if (out[j].wr_id != next++)
				bad++;
		if (n > 0 || next == EV_COUNT)
			continue;
		/* empty: sleep until the armed CQ gets its next completion */
		pfd.fd = roce_comp_channel_fd(ch);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 5000) != 1) {
			timeouts++;	/* a lost wake-up */
			break;
		}
		sleeps++;
		CU_ASSERT_EQUAL_FATAL(roce_get_cq_event(ch, &ev, &ctx), 0);
		CU_ASSERT(ev == cq);
		roce_ack_cq_events(ev, 1);
		acks++;
		CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), 0);
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(timeouts, 0);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(next, EV_COUNT);
	CU_ASSERT_EQUAL(arg.errors, 0);
	CU_ASSERT(sleeps > 0);
	CU_ASSERT_EQUAL(cq->events, acks);
	/* the last arm may have raised one more event: detach drops it */
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), 0);
}

/* Solicited-only arms wake for solicited or failed completions only. */
static void
test_solicited(void)
{
	struct roce_comp_channel *ch;
	struct roce_cq *cq, *ev = NULL;
	struct roce_wc out[16];
	void *ctx = NULL;

	ch = roce_create_comp_channel(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	set_nonblock(ch);
	cq = roce_create_cq(w, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(roce_cq_set_channel(cq, ch, NULL), 0);

	/* an unsolicited success raises nothing, a solicited one does */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, true), 0);
	push_wc(cq, 1, ROCE_WC_SUCCESS, false);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	push_wc(cq, 2, ROCE_WC_SUCCESS, true);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	CU_ASSERT_PTR_EQUAL(ev, cq);
	roce_ack_cq_events(cq, 1);
	/* a failed completion wakes a solicited-only arm too */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, true), 0);
	push_wc(cq, 3, ROCE_WC_REM_ACCESS_ERR, false);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	roce_ack_cq_events(cq, 1);
	/* an arm for any completion is not narrowed by a solicited one */
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, false), 0);
	CU_ASSERT_EQUAL(roce_req_notify_cq(cq, true), 0);
	push_wc(cq, 4, ROCE_WC_SUCCESS, false);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), 0);
	roce_ack_cq_events(cq, 1);
	/* disarmed after the event */
	push_wc(cq, 5, ROCE_WC_SUCCESS, true);
	CU_ASSERT_EQUAL(roce_get_cq_event(ch, &ev, &ctx), -EAGAIN);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 16), 5);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(roce_destroy_comp_channel(ch), 0);
}

/* Resizing keeps the waiting completions, in order, across the wrap. */
static void
test_resize(void)
{
	struct roce_wc out[64];
	struct roce_cq *cq;
	uint64_t next = 0, polled;
	int i, n;

	cq = roce_create_cq(w, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(roce_resize_cq(NULL, 8), -EINVAL);
	CU_ASSERT_EQUAL(roce_resize_cq(cq, 0), -EINVAL);
	CU_ASSERT_EQUAL(roce_resize_cq(cq, ROCE_MAX_CQE + 1), -EINVAL);
	/* move the indexes so that the waiting entries wrap the ring */
	for (i = 0; i < 6; i++)
		push(cq, next++);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 6), 6);
	polled = 6;
	for (i = 0; i < 7; i++)
		push(cq, next++);
	/* fewer entries than waiting: refused, nothing lost */
	CU_ASSERT_EQUAL(roce_resize_cq(cq, 4), -EINVAL);
	CU_ASSERT_EQUAL(roce_resize_cq(cq, 40), 0);
	CU_ASSERT_EQUAL(roce_cq_depth(cq), 40);
	for (i = 0; i < 30; i++)
		push(cq, next++);
	n = roce_poll_cq(cq, out, 64);
	CU_ASSERT_EQUAL(n, 37);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(out[i].wr_id, polled + (uint64_t)i);
	/* shrink an empty CQ */
	CU_ASSERT_EQUAL(roce_resize_cq(cq, 2), 0);
	push(cq, 100);
	push(cq, 101);
	CU_ASSERT_EQUAL(roce_poll_cq(cq, out, 64), 2);
	CU_ASSERT_EQUAL(out[1].wr_id, 101);
	CU_ASSERT_EQUAL(roce_destroy_cq(cq), 0);
}

static CU_TestInfo cq_event_tests[] = {
	{ "arguments, busy CQ and channel", test_arguments },
	{ "one event per arm, ack, detach drops pending", test_one_event_per_arm },
	{ "two CQs on one channel, in order", test_two_cqs_one_channel },
	{ "solicited-only arms", test_solicited },
	{ "resize keeps waiting completions", test_resize },
	{ "producer thread vs sleeping consumer (perftest -e loop)",
	  test_sleeping_consumer },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cq_event", suite_init, suite_fini, NULL, NULL, cq_event_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
