/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_H
#define ERNIC_TESTPMD_H

/**
 * @file
 * Entry points of ernic-testpmd's run modes (main.c dispatches).
 */

#include <stdio.h>

#include "opts.h"

/** Exit status for bad arguments (as ernic-selfcheck). */
#define EXIT_USAGE 2

/** One side against a remote peer over TCP (perftest/ibv_rc_pingpong). */
int run_benchmark(const struct app_opts *o, volatile int *quit);
/** run_benchmark() with the report on @p out (errors go to stderr). */
int run_benchmark_to(const struct app_opts *o, FILE *out,
		     volatile int *quit);
/** Both sides in this process between two net_ernic ports. */
int run_loopback(const struct app_opts *o, volatile int *quit);
/**
 * run_loopback() with the client's report on @p out; the client runs on
 * the calling lcore, the server on the next one.
 */
int run_loopback_to(const struct app_opts *o, FILE *out, volatile int *quit);
/** The interactive ernic> prompt. */
int run_interactive(const struct app_opts *o, volatile int *quit);

#endif /* ERNIC_TESTPMD_H */
