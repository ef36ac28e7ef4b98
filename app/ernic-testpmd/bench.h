/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_BENCH_H
#define ERNIC_TESTPMD_BENCH_H

/**
 * @file
 * One side of a benchmark: the verbs objects on a net_ernic port, the
 * side channel to the peer, the exchanged destinations, and the helpers
 * the traffic modes (the files of modes/) are built from. Like testpmd's forwarding
 * engines, each mode is a `struct ernic_mode` with its hooks.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "chan.h"
#include "cm_chan.h"
#include "opts.h"
#include "perf_proto.h"
#include "report.h"
#include "roce_verbs.h"

struct bench;
struct bench_events;

/** A traffic mode (one file each under modes/). */
struct ernic_mode {
	const char *name;			/**< as app_mode_info */
	enum app_kind kind;
	enum roce_wr_opcode opcode;		/**< main work request */
	/** Fill the send WR of QP @p i for messages of @p size (optional). */
	void (*setup_wr)(struct bench *b, uint32_t i, uint64_t size);
	/** The whole exchange and measurement on each side. */
	int (*run_client)(struct bench *b);
	int (*run_server)(struct bench *b);
};

/** The mode called @p name, NULL if none. */
const struct ernic_mode *ernic_mode_find(const char *name);

/** Everything of one side of a test. */
/** Workers of a port whose CQs the benchmark polls (net_ernic's limit). */
#define BENCH_MAX_WORKERS 16

struct bench {
	const struct app_opts *o;
	const struct ernic_mode *mode;
	bool server;
	bool quiet;		/**< loopback server: print nothing */
	FILE *out;
	/** --check lines: out, or the loopback server's real output */
	FILE *check_out;
	volatile int *quit;

	uint16_t port_id;
	uint16_t peer_port_id;	/**< --loopback client: the server's port */
	char port_name[64];
	struct roce_device *dev;
	struct roce_worker *w;		/**< worker 0 */
	struct roce_pd *pd;
	/**
	 * The QPs spread over the port's workers, QP i on worker i % nw,
	 * each worker's QPs with a send and a receive CQ of that worker;
	 * scq and rcq are worker 0's (the single-QP modes use them).
	 */
	uint32_t nw;
	struct roce_cq *wscq[BENCH_MAX_WORKERS], *wrcq[BENCH_MAX_WORKERS];
	uint32_t poll_next;		/**< worker whose CQs go first */
	struct roce_cq *scq, *rcq;
	struct roce_qp **qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint64_t buf_size;
	/**
	 * Sides of this size still to allocate in this process, this one
	 * included (0 or 1: one; the loopback's first side: 2), checked
	 * against the memory available before any is zeroed.
	 */
	uint32_t buf_sides;
	uint64_t qp_buf;	/**< BUFF_SIZE: per-QP half of the buffer */
	uint32_t nqps;

	struct chan ch;
	struct cm_chan *cm;	/**< -R: the rdma_cm connections (cm_chan.h) */
	char rem_version[PERF_VERSION_LEN];
	unsigned int mtu_code;	/**< negotiated ibv_mtu code */
	unsigned int port_mtu_code;
	int gid_index;
	union roce_gid gid;
	uint32_t out_reads;
	struct perf_dest *my, *rem;
	uint8_t rem_mac[6];

	struct roce_send_wr *wr;
	struct roce_sge *sge;
	struct roce_recv_wr *rwr;
	struct roce_sge *rsge;
	uint64_t *scnt, *ccnt;
	/**
	 * The client's QPs that may post (bench_bw_client_iter()): all at
	 * first, then those a completion gave room; in_ready marks them.
	 */
	uint32_t *ready;
	uint8_t *in_ready;
	uint64_t *tposted, *tcompleted;
	uint64_t nsamples;
	uint64_t tsc_hz;
	uint64_t size;		/**< current message size */

	bool refill_recv;	/**< progress() reposts consumed receives */
	uint64_t recv_done;	/**< receives completed (refill mode) */
	uint64_t stats_next;	/**< TSC of the next --stats-period line */
	uint64_t stats_start;
	uint32_t drain_tick;

	struct bench_events *ev;	/**< -e (events.h), NULL: busy polling */
	struct cc_trace *trace;		/**< --cc-trace (the client), or NULL */
	uint64_t nevents;		/**< -e: completion events taken */
};

/* ---- life cycle ------------------------------------------------------ */

/** Create the verbs objects of @p b on its port (buffers for the largest size). */
int bench_create(struct bench *b);
void bench_destroy(struct bench *b);
/** Run @p b->mode to completion on this thread: 0 or a negative errno. */
int bench_run(struct bench *b);

/* ---- helpers for the modes ------------------------------------------- */

/**
 * Poll the send (@p send true) or receive CQs of every worker of the
 * benchmark, up to @p max completions, a different worker first each call:
 * how many, or roce_poll_cq()'s negative error.
 */
int bench_poll(struct bench *b, bool send, struct roce_wc *wc, int max);
/** Byte @p off of QP @p qp's message under --check (both sides agree). */
static inline uint8_t
bench_check_byte(uint32_t qp, uint64_t off)
{
	return (uint8_t)(0xa5u ^ (qp * 29u) ^ (uint32_t)(off * 7u) ^
			 (uint32_t)(off >> 8));
}

/**
 * --check, the receiving side: every QP's receive area holds the first
 * @p size bytes of its peer QP's pattern. Prints "check: ..." and returns
 * 0, or -EIO at the first byte that differs.
 */
int bench_check_received(struct bench *b, uint64_t size);
/** Poll the port once (the QP engines) and service refills/statistics. */
void bench_progress(void *arg);
/** One key-message handshake on QP @p i's destination. */
int bench_hs(struct bench *b, uint32_t i);
/** A key handshake for every QP (the first exchange fills b->rem). */
int bench_hs_all(struct bench *b);
/** Resolve the peer and move every QP to RTR (and RTS when @p rts); no-op with -R. */
int bench_connect(struct bench *b, bool rts);
/** Print the local address lines, hand-shake per QP, print the remote ones. */
int bench_print_dests_hs(struct bench *b);
/** Exchange the 5 x 8-byte bandwidth report (xchg_bw_reports()). */
int bench_xchg_report(struct bench *b, const struct perf_bw_report *mine,
		      struct perf_bw_report *theirs);
/** ctx_close_connection(): a handshake, then "done" and close. */
int bench_close(struct bench *b);
/** Post @p n receives of @p size bytes on QP @p i. */
int bench_post_recvs(struct bench *b, uint32_t i, uint32_t n, uint64_t size);
/**
 * roce_dereg_mr() @p mr, polling the port while zero-copy frames from its
 * memory are still queued (-EBUSY), for at most 2 s. Non-zero: the memory
 * may still be read by the port; do not free it.
 */
int bench_dereg_mr(struct bench *b, struct roce_mr *mr);

/** Print a bandwidth result row (table or JSON) on the client or server. */
void bench_print_bw(struct bench *b, const struct perf_bw_report *r);
/** The message sizes to run: -a gives 2..2^23, else -s. */
uint64_t bench_first_size(const struct bench *b);
bool bench_next_size(const struct bench *b, uint64_t *size);

/**
 * The bandwidth loop of perftest run_iter_bw() for the current size:
 * posts on every QP within the TX depth, signals every cq_mod-th WR,
 * polls the send CQ; fills the report. Used by write/read/atomic/send bw.
 */
int bench_bw_client_iter(struct bench *b, struct perf_bw_report *r);
/** The send_bw receiver loop (run_iter_bw_server()). */
int bench_bw_server_iter(struct bench *b, struct perf_bw_report *r);
/** The common flow of write_bw, read_bw and atomic_bw. */
int bench_rdma_bw_client(struct bench *b);
int bench_rdma_bw_server(struct bench *b);

/**
 * Print a latency row: from b->tposted[0..iters) (per-iteration stamps),
 * or in duration mode (-D) the average over b->tposted[0]..tcompleted[0].
 */
void bench_print_lat(struct bench *b, uint64_t iters, unsigned int rtt_factor);
/** True when a -D run that started at @p start is over. */
bool bench_lat_time_up(const struct bench *b, uint64_t start);

/** Wait for one completion on @p cq (polling the port); -EIO on error status. */
int bench_wait_cq(struct bench *b, struct roce_cq *cq, struct roce_wc *wc);

/** Print an error about a failed completion. */
void bench_wc_error(struct bench *b, const char *what,
		    const struct roce_wc *wc);

/** Current TSC. */
uint64_t bench_now(void);

#define BENCH_ERR(b, ...) \
	((void)(b), fprintf(stderr, "ernic-testpmd: " __VA_ARGS__))

#endif /* ERNIC_TESTPMD_BENCH_H */
