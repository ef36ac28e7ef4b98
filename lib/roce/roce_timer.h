/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_TIMER_H
#define ROCE_TIMER_H

/*
 * Per-worker timers: a binary min-heap of deadlines in TSC cycles, driven
 * from the worker loop with the TSC read once per poll (no per-packet
 * timers, no system calls). Arm, re-arm and cancel are O(log n); a QP owns
 * a handful of timers (retransmit, RNR wait, ACK coalescing).
 */

#include <stdbool.h>
#include <stdint.h>

struct roce_timer;

/** Expiry callback, run from roce_timers_run() on the worker. */
typedef void (*roce_timer_cb)(struct roce_timer *t, uint64_t now);

struct roce_timer {
	uint64_t expire;	/**< TSC deadline */
	roce_timer_cb cb;
	void *arg;
	uint32_t heap_idx;	/**< position + 1 in the heap; 0: not armed */
};

struct roce_timers {
	struct roce_timer **heap;
	uint32_t count;
	uint32_t cap;
};

/** Prepare @p t (not armed). */
static inline void
roce_timer_init(struct roce_timer *t, roce_timer_cb cb, void *arg)
{
	t->expire = 0;
	t->cb = cb;
	t->arg = arg;
	t->heap_idx = 0;
}

static inline bool
roce_timer_armed(const struct roce_timer *t)
{
	return t->heap_idx != 0;
}

/** Nanoseconds to TSC cycles (rte_get_tsc_hz()), without overflow. */
uint64_t roce_ns_to_tsc(uint64_t ns);

/** Allocate room for @p cap timers on @p socket. */
int roce_timers_init(struct roce_timers *ts, uint32_t cap, int socket);
void roce_timers_fini(struct roce_timers *ts);

/** Arm or move @p t to @p expire. -ENOSPC when the heap is full. */
int roce_timer_arm(struct roce_timers *ts, struct roce_timer *t,
		   uint64_t expire);

/** Disarm @p t (no-op when not armed). */
void roce_timer_cancel(struct roce_timers *ts, struct roce_timer *t);

/** Run every timer due at @p now; returns how many ran. */
unsigned int roce_timers_run(struct roce_timers *ts, uint64_t now);

/** Earliest deadline, UINT64_MAX when none is armed. */
static inline uint64_t
roce_timers_next(const struct roce_timers *ts)
{
	return ts->count ? ts->heap[0]->expire : UINT64_MAX;
}

#endif /* ROCE_TIMER_H */
