/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_EVENTS_H
#define ERNIC_TESTPMD_EVENTS_H

/**
 * @file
 * perftest -e for the benchmarks: the send and receive CQs are attached
 * to a completion channel (roce_create_comp_channel()) and armed; the
 * benchmark thread sleeps on the channel's fd when a CQ is empty instead
 * of spinning. Something must still run the port's QP engines: a poller
 * thread (registered with the EAL, on the benchmark thread's CPUs) calls
 * rte_pmd_ernic_poll() in a loop, and is the only thread that polls the
 * port while it runs, so the worker's control requests (QP modify and
 * destroy) go through it.
 */

struct bench;

/**
 * Create the channel, attach and arm the CQs, start the poller thread.
 * @return 0 or a negative errno (printed)
 */
int bench_events_start(struct bench *b);

/**
 * Stop the poller and poll the port once from the calling thread (which
 * then owns the workers again, so the objects can be destroyed here).
 * No-op without bench_events_start().
 */
void bench_events_stop(struct bench *b);

/**
 * Close the channel once the CQs are destroyed (roce_destroy_cq()
 * detaches them). No-op without bench_events_start().
 */
void bench_events_free(struct bench *b);

/**
 * Sleep until an armed CQ of @p b got a completion (or 50 ms passed, so
 * that the caller sees its timers and the quit flag), take and acknowledge
 * the event and re-arm that CQ.
 * @return 0, or a negative errno (printed)
 */
int bench_events_wait(struct bench *b);

#endif /* ERNIC_TESTPMD_EVENTS_H */
