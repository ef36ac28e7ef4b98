/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker timer heap: order, re-arm, cancel, capacity, callbacks re-arming. */
#include <stdlib.h>
#include <string.h>

#include "roce_timer.h"
#include "test_common.h"

#define N_TIMERS 1000

struct probe {
	struct roce_timer t;
	uint64_t fired_at;
	unsigned int fired;
	unsigned int rearm;	/* times to re-arm itself from its callback */
	struct roce_timers *ts;
};

static void
probe_cb(struct roce_timer *t, uint64_t now)
{
	struct probe *p = t->arg;

	p->fired++;
	p->fired_at = now;
	if (p->rearm > 0) {
		p->rearm--;
		CU_ASSERT_EQUAL(roce_timer_arm(p->ts, t, now + 10), 0);
	}
}

static void
test_timer_order(void)
{
	static struct probe p[N_TIMERS];
	struct roce_timers ts;
	uint64_t now, last = 0;
	unsigned int i, total = 0;

	CU_ASSERT_FATAL(roce_timers_init(&ts, N_TIMERS, SOCKET_ID_ANY) == 0);
	srand(7);
	for (i = 0; i < N_TIMERS; i++) {
		roce_timer_init(&p[i].t, probe_cb, &p[i]);
		p[i].ts = &ts;
		CU_ASSERT_EQUAL(roce_timer_arm(&ts, &p[i].t,
					       1 + (uint64_t)(rand() % 100000)), 0);
	}
	CU_ASSERT_EQUAL(ts.count, N_TIMERS);
	/* Walk time forward; each callback must run at or after its deadline,
	 * deadlines observed in non-decreasing order, each exactly once. */
	for (now = 0; now <= 100000; now += 97) {
		while (roce_timers_next(&ts) <= now) {
			uint64_t next = roce_timers_next(&ts);

			CU_ASSERT(next >= last);
			last = next;
			/* equal deadlines may run together */
			total += roce_timers_run(&ts, next);
		}
	}
	CU_ASSERT_EQUAL(total, N_TIMERS);
	CU_ASSERT_EQUAL(roce_timers_run(&ts, UINT64_MAX), 0);
	for (i = 0; i < N_TIMERS; i++) {
		CU_ASSERT_EQUAL(p[i].fired, 1);
		CU_ASSERT_EQUAL(p[i].fired_at, p[i].t.expire);
		CU_ASSERT_FALSE(roce_timer_armed(&p[i].t));
	}
	roce_timers_fini(&ts);
}

static void
test_timer_rearm_cancel(void)
{
	struct probe a = { .rearm = 0 }, b = { .rearm = 2 }, c = { .rearm = 0 };
	struct roce_timers ts;

	CU_ASSERT_FATAL(roce_timers_init(&ts, 2, SOCKET_ID_ANY) == 0);
	roce_timer_init(&a.t, probe_cb, &a);
	roce_timer_init(&b.t, probe_cb, &b);
	roce_timer_init(&c.t, probe_cb, &c);
	a.ts = b.ts = c.ts = &ts;
	CU_ASSERT_EQUAL(roce_timer_arm(&ts, &a.t, 100), 0);
	CU_ASSERT_EQUAL(roce_timer_arm(&ts, &b.t, 50), 0);
	/* full heap refuses a third timer */
	CU_ASSERT_EQUAL(roce_timer_arm(&ts, &c.t, 10), -ENOSPC);
	CU_ASSERT_FALSE(roce_timer_armed(&c.t));
	/* moving an armed timer later and earlier keeps one entry */
	CU_ASSERT_EQUAL(roce_timer_arm(&ts, &a.t, 200), 0);
	CU_ASSERT_EQUAL(roce_timer_arm(&ts, &a.t, 20), 0);
	CU_ASSERT_EQUAL(ts.count, 2);
	CU_ASSERT_EQUAL(roce_timers_next(&ts), 20);
	roce_timer_cancel(&ts, &a.t);
	roce_timer_cancel(&ts, &a.t);	/* second cancel is a no-op */
	CU_ASSERT_EQUAL(ts.count, 1);
	CU_ASSERT_EQUAL(roce_timers_run(&ts, 49), 0);
	CU_ASSERT_EQUAL(a.fired, 0);
	/* b re-arms itself twice from its callback, 10 cycles after "now";
	 * a deadline set during a run for later than that run's now waits */
	CU_ASSERT_EQUAL(roce_timers_run(&ts, 50), 1);
	CU_ASSERT_EQUAL(b.t.expire, 60);
	CU_ASSERT_EQUAL(roce_timers_run(&ts, 60), 1);
	CU_ASSERT_EQUAL(roce_timers_run(&ts, 1000), 1);
	CU_ASSERT_EQUAL(b.fired, 3);
	CU_ASSERT_EQUAL(b.fired_at, 1000);
	CU_ASSERT_EQUAL(roce_timers_next(&ts), UINT64_MAX);
	roce_timers_fini(&ts);
}

#define N_MODEL 64

/*
 * Random arms (earlier and later), cancels and runs against a model that
 * keeps each timer's deadline in an array: the same timers run, at the
 * same times, and next() is the model's earliest deadline.
 */
static void
test_timer_model(void)
{
	static struct probe p[N_MODEL];
	uint64_t model[N_MODEL];	/* deadline; UINT64_MAX: not armed */
	struct roce_timers ts;
	uint64_t now = 0;
	unsigned int i, step;

	CU_ASSERT_FATAL(roce_timers_init(&ts, N_MODEL, SOCKET_ID_ANY) == 0);
	srand(11);
	for (i = 0; i < N_MODEL; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		roce_timer_init(&p[i].t, probe_cb, &p[i]);
		p[i].ts = &ts;
		model[i] = UINT64_MAX;
	}
	for (step = 0; step < 100000; step++) {
		unsigned int k = (unsigned int)rand() % N_MODEL;
		unsigned int op = (unsigned int)rand() % 8;
		uint64_t min = UINT64_MAX;
		unsigned int armed = 0;

		if (op < 4) {
			uint64_t at = now + 1 + (uint64_t)(rand() % 1000);

			CU_ASSERT_EQUAL(roce_timer_arm(&ts, &p[k].t, at), 0);
			model[k] = at;
		} else if (op == 4) {
			roce_timer_cancel(&ts, &p[k].t);
			model[k] = UINT64_MAX;
		} else {
			now += (uint64_t)(rand() % 200);
			for (i = 0; i < N_MODEL; i++)
				p[i].fired = 0;
			roce_timers_run(&ts, now);
			for (i = 0; i < N_MODEL; i++) {
				unsigned int due = model[i] <= now;

				CU_ASSERT_EQUAL(p[i].fired, due);
				if (due) {
					CU_ASSERT_EQUAL(p[i].fired_at, now);
					model[i] = UINT64_MAX;
				}
			}
		}
		for (i = 0; i < N_MODEL; i++) {
			CU_ASSERT_EQUAL(roce_timer_armed(&p[i].t),
					model[i] != UINT64_MAX);
			armed += model[i] != UINT64_MAX;
			if (model[i] < min)
				min = model[i];
		}
		CU_ASSERT_EQUAL(ts.count, armed);
		CU_ASSERT_EQUAL(roce_timers_next(&ts), min);
	}
	roce_timers_fini(&ts);
}

static CU_TestInfo timer_tests[] = {
	{ "deadlines run once, in order", test_timer_order },
	{ "re-arm, cancel, capacity", test_timer_rearm_cancel },
	{ "against a model: arm, cancel, run", test_timer_model },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "timer", NULL, NULL, NULL, NULL, timer_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
