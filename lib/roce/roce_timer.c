/* SPDX-License-Identifier: BSD-3-Clause */
#include "roce_timer.h"

#include <errno.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

int
roce_timers_init(struct roce_timers *ts, uint32_t cap, int socket)
{
	ts->heap = rte_zmalloc_socket("roce_timers", sizeof(*ts->heap) * cap,
				      0, socket);
	if (ts->heap == NULL)
		return -ENOMEM;
	ts->count = 0;
	ts->cap = cap;
	return 0;
}

void
roce_timers_fini(struct roce_timers *ts)
{
	rte_free(ts->heap);
	ts->heap = NULL;
	ts->count = ts->cap = 0;
}

static inline void
heap_place(struct roce_timers *ts, uint32_t i, struct roce_timer *t)
{
	ts->heap[i] = t;
	t->heap_idx = i + 1;
}

static void
sift_up(struct roce_timers *ts, uint32_t i)
{
	struct roce_timer *t = ts->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (ts->heap[parent]->expire <= t->expire)
			break;
		heap_place(ts, i, ts->heap[parent]);
		i = parent;
	}
	heap_place(ts, i, t);
}

static void
sift_down(struct roce_timers *ts, uint32_t i)
{
	struct roce_timer *t = ts->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= ts->count)
			break;
		if (c + 1 < ts->count &&
		    ts->heap[c + 1]->expire < ts->heap[c]->expire)
			c++;
		if (t->expire <= ts->heap[c]->expire)
			break;
		heap_place(ts, i, ts->heap[c]);
		i = c;
	}
	heap_place(ts, i, t);
}

/* Remove the entry at heap position i, keeping the heap ordered. */
static void
heap_remove(struct roce_timers *ts, uint32_t i)
{
	struct roce_timer *last = ts->heap[--ts->count];

	ts->heap[i]->heap_idx = 0;
	if (i == ts->count)
		return;
	heap_place(ts, i, last);
	if (i > 0 && ts->heap[(i - 1) / 2]->expire > last->expire)
		sift_up(ts, i);
	else
		sift_down(ts, i);
}

int
roce_timer_arm(struct roce_timers *ts, struct roce_timer *t, uint64_t expire)
{
	if (t->heap_idx != 0) {
		uint32_t i = t->heap_idx - 1;
		uint64_t old = t->expire;

		t->expire = expire;
		if (expire < old)
			sift_up(ts, i);
		else
			sift_down(ts, i);
		return 0;
	}
	if (ts->count == ts->cap)
		return -ENOSPC;
	t->expire = expire;
	heap_place(ts, ts->count, t);
	ts->count++;
	sift_up(ts, ts->count - 1);
	return 0;
}

void
roce_timer_cancel(struct roce_timers *ts, struct roce_timer *t)
{
	if (t->heap_idx != 0)
		heap_remove(ts, t->heap_idx - 1);
}

unsigned int
roce_timers_run(struct roce_timers *ts, uint64_t now)
{
	unsigned int ran = 0;

	while (ts->count > 0 && ts->heap[0]->expire <= now) {
		struct roce_timer *t = ts->heap[0];

		heap_remove(ts, 0);
		t->cb(t, now);	/* may re-arm itself */
		ran++;
	}
	return ran;
}

uint64_t
roce_ns_to_tsc(uint64_t ns)
{
	uint64_t hz = rte_get_tsc_hz();

	/* split so that neither product overflows for ns < 2^44, hz < 2^40 */
	return (ns / 1000000) * hz / 1000 +
	       (ns % 1000000) * hz / 1000000000;
}
