/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_REPORT_H
#define ERNIC_TESTPMD_REPORT_H

/**
 * @file
 * perftest's output: the test information block (ctx_print_test_info()),
 * the address lines (ctx_print_pingpong_data()), the bandwidth and latency
 * tables (print_report_bw(), print_full_bw_report(), print_report_lat()),
 * with the exact format strings of perftest v4.5-0.17, plus one-line JSON
 * rows. The computations are pure so that the unit test can check them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "opts.h"
#include "perf_proto.h"

/** RESULT_LINE */
#define REPORT_LINE "---------------------------------------------------------------------------------------\n"

/** What the header block shows besides the options. */
struct report_ctx {
	const char *device;	/**< net_ernic port name */
	uint32_t mtu_bytes;	/**< negotiated path MTU */
	int gid_index;
	uint32_t out_reads;
	bool server;
};

/** The test information block, between two dashed lines. */
void report_header(FILE *f, const struct app_opts *o,
		   const struct report_ctx *c);

/** " local address: LID 0000 QPN 0x... PSN 0x..." and the GID line. */
void report_dest(FILE *f, const struct app_opts *o, bool remote,
		 const struct perf_dest *d);

/** The dashed line and the column titles of the bandwidth table. */
void report_bw_title(FILE *f, bool gbits);
/** The dashed line and the column titles of the latency table. */
void report_lat_title(FILE *f, bool duration);

/** Inputs of a bandwidth result (perftest print_report_bw()). */
struct bw_samples {
	const uint64_t *tposted;	/**< TSC at each post (or [0] only) */
	const uint64_t *tcompleted;	/**< TSC at each completion (or [0]) */
	uint64_t n;			/**< messages (iters * qps) */
	uint64_t size;
	uint32_t cq_mod;
	uint32_t post_list;
	bool no_peak;
	uint64_t tsc_hz;
};

/** Compute the report (bandwidth in MB/sec, or Gb/sec with @p gbits). */
void report_bw_compute(const struct bw_samples *s, bool gbits,
		       struct perf_bw_report *r);

/** One bandwidth table row (REPORT_FMT or REPORT_FMT_EXT) with its newline. */
int report_bw_row(char *buf, size_t len, const struct perf_bw_report *r,
		  bool gbits);

/** Latency statistics in microseconds (perftest print_report_lat()). */
struct lat_stats {
	double min, max, typical, avg, stdev, p99, p999;
};

/**
 * Statistics of @p n per-iteration TSC samples (sorted in place). The
 * samples are round trips: divided by @p rtt_factor (2 for send/write
 * ping-pong, 1 for READ/atomic). The 2 largest samples are dropped as
 * perftest does (LAT_MEASURE_TAIL). -EINVAL when n < 3.
 */
int report_lat_compute(uint64_t *delta, uint64_t n, uint64_t tsc_hz,
		       unsigned int rtt_factor, struct lat_stats *st);

/** One latency table row (REPORT_FMT_LAT) with its newline. */
int report_lat_row(char *buf, size_t len, uint64_t size, uint64_t iters,
		   const struct lat_stats *st);
/** One duration latency row (REPORT_FMT_LAT_DUR): average and transactions/s. */
int report_lat_dur_row(char *buf, size_t len, uint64_t size, uint64_t iters,
		       double t_avg, double tps);

/** A bandwidth JSON row: test, bytes, iterations, qps, Gb/s, Mpps. */
int report_json_bw(char *buf, size_t len, const char *test, uint32_t qps,
		   const struct perf_bw_report *r, bool r_in_gbits);
/** A latency JSON row: test, bytes, iterations, qps, lat_* in usec. */
int report_json_lat(char *buf, size_t len, const char *test, uint64_t size,
		    uint64_t iters, const struct lat_stats *st);

#endif /* ERNIC_TESTPMD_REPORT_H */
