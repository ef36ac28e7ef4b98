/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * -e: completion events for the benchmarks (see events.h). The arm /
 * poll / sleep order is ibverbs': a CQ is armed before it is polled, so a
 * completion that arrives after the poll found the CQ empty raises the
 * event the thread then sleeps on.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "bench.h"
#include "events.h"
#include "rte_pmd_ernic.h"

/* wake up at least this often to look at timers and the quit flag */
#define EV_WAIT_MS 50

struct bench_events {
	struct roce_comp_channel *cc;
	pthread_t poller;
	bool running;
	uint32_t stop;		/**< atomic */
	int poller_err;
	uint16_t port_id;
};

static void *
poller_main(void *arg)
{
	struct bench_events *ev = arg;

	/* rte_pmd_ernic_poll() runs services: it needs an lcore id */
	if (rte_thread_register() != 0) {
		ev->poller_err = rte_errno;
		return NULL;
	}
	while (!__atomic_load_n(&ev->stop, __ATOMIC_ACQUIRE)) {
		rte_pmd_ernic_poll(ev->port_id);
		/*
		 * The benchmark thread sleeps on this CPU: let it run at once
		 * when its event comes (no need on a CPU of its own, but the
		 * poller cannot know).
		 */
		sched_yield();
	}
	rte_thread_unregister();
	return NULL;
}

int
bench_events_start(struct bench *b)
{
	struct bench_events *ev;
	int ret;

	ev = calloc(1, sizeof(*ev));
	if (ev == NULL)
		return -ENOMEM;
	ev->port_id = b->port_id;
	ev->cc = roce_create_comp_channel(b->dev);
	if (ev->cc == NULL) {
		BENCH_ERR(b, "-e: cannot create a completion channel: %s\n",
			  rte_strerror(rte_errno));
		free(ev);
		return -rte_errno;
	}
	b->ev = ev;
	ret = roce_cq_set_channel(b->scq, ev->cc, NULL);
	if (ret == 0)
		ret = roce_cq_set_channel(b->rcq, ev->cc, NULL);
	if (ret == 0)
		ret = roce_req_notify_cq(b->scq, false);
	if (ret == 0)
		ret = roce_req_notify_cq(b->rcq, false);
	if (ret != 0) {
		BENCH_ERR(b, "-e: cannot arm the CQs: %s\n", strerror(-ret));
		return ret;	/* bench_destroy() frees the rest */
	}
	/* the new thread inherits this thread's CPUs (its lcore's) */
	ret = pthread_create(&ev->poller, NULL, poller_main, ev);
	if (ret != 0) {
		BENCH_ERR(b, "-e: cannot start the poller thread: %s\n",
			  strerror(ret));
		return -ret;
	}
	ev->running = true;
	return 0;
}

void
bench_events_stop(struct bench *b)
{
	struct bench_events *ev = b->ev;

	if (ev == NULL)
		return;
	if (ev->running) {
		__atomic_store_n(&ev->stop, 1, __ATOMIC_RELEASE);
		pthread_join(ev->poller, NULL);
		ev->running = false;
		if (ev->poller_err != 0)
			BENCH_ERR(b, "-e: the poller thread got no lcore id: %s\n",
				  rte_strerror(ev->poller_err));
	}
	/* this thread polls the workers from now on */
	rte_pmd_ernic_poll(b->port_id);
}

void
bench_events_free(struct bench *b)
{
	struct bench_events *ev = b->ev;

	if (ev == NULL)
		return;
	if (roce_destroy_comp_channel(ev->cc) != 0)
		BENCH_ERR(b, "-e: the completion channel is still in use\n");
	free(ev);
	b->ev = NULL;
}

int
bench_events_wait(struct bench *b)
{
	struct bench_events *ev = b->ev;
	struct roce_cq *cq;
	struct pollfd p;
	int ret;

	if (ev->poller_err != 0) {
		BENCH_ERR(b, "-e: the poller thread got no lcore id: %s\n",
			  rte_strerror(ev->poller_err));
		return -ev->poller_err;
	}
	p.fd = roce_comp_channel_fd(ev->cc);
	p.events = POLLIN;
	p.revents = 0;
	ret = poll(&p, 1, EV_WAIT_MS);
	if (ret == 0 || (ret < 0 && errno == EINTR))
		return 0;
	if (ret < 0) {
		BENCH_ERR(b, "-e: poll on the completion channel: %s\n",
			  strerror(errno));
		return -errno;
	}
	ret = roce_get_cq_event(ev->cc, &cq, NULL);
	if (ret == -EINTR)
		return 0;
	if (ret != 0) {
		BENCH_ERR(b, "-e: roce_get_cq_event: %s\n", strerror(-ret));
		return ret;
	}
	roce_ack_cq_events(cq, 1);
	b->nevents++;
	ret = roce_req_notify_cq(cq, false);
	if (ret != 0)
		BENCH_ERR(b, "-e: cannot arm the CQ again: %s\n",
			  strerror(-ret));
	return ret;
}
