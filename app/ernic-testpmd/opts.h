/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_OPTS_H
#define ERNIC_TESTPMD_OPTS_H

/**
 * @file
 * Application options of ernic-testpmd (after EAL's `--`): a traffic mode
 * name, perftest's (or ibv_rc_pingpong's) flags with the same meaning, and
 * an optional server address. Table-driven; pure (no EAL, no I/O) so that
 * test/unit/test_app_opts.c can check every flag.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Verbs in perftest's order (testsStr[]: Send, RDMA_Write, RDMA_Read, Atomic). */
enum app_verb {
	APP_VERB_SEND = 0,
	APP_VERB_WRITE,
	APP_VERB_READ,
	APP_VERB_ATOMIC,
};

/** What a mode measures. */
enum app_kind {
	APP_KIND_BW = 1 << 0,
	APP_KIND_LAT = 1 << 1,
	APP_KIND_PINGPONG = 1 << 2,
};

/** perftest -A (atomicTypesStr[] order). */
enum app_atomic {
	APP_ATOMIC_CMP_AND_SWAP = 0,
	APP_ATOMIC_FETCH_AND_ADD,
};

/** Static facts of a traffic mode (the hooks live in modes/). */
struct app_mode_info {
	const char *name;	/**< "write_bw" */
	enum app_kind kind;
	enum app_verb verb;
};

/** Limits and perftest defaults (perftest_parameters.h of v4.5-0.17). */
enum {
	APP_MAX_SIZE_ALL = 1 << 23,	/**< -a: 2..2^23 (MAX_SIZE) */
	APP_DEF_SIZE_BW = 65536,
	APP_DEF_SIZE_LAT = 2,
	APP_DEF_SIZE_ATOMIC = 8,
	APP_DEF_SIZE_PP = 4096,
	APP_DEF_ITERS = 1000,
	APP_DEF_ITERS_WB = 5000,	/**< write_bw */
	APP_MIN_ITERS = 5,
	APP_MAX_ITERS = 100000000,
	APP_DEF_TX_BW = 128,
	APP_DEF_TX_LAT = 1,
	APP_MAX_TX = 15000,
	APP_DEF_RX_SEND = 512,
	APP_DEF_RX_RDMA = 1,
	APP_DEF_RX_PP = 500,		/**< ibv_rc_pingpong -r */
	APP_MAX_RX = 16384,
	APP_DEF_CQ_MOD = 100,
	APP_MAX_CQ_MOD = 1024,
	APP_CQ_MOD_SIZE_LIMIT = 8192,	/**< MSG_SIZE_CQ_MOD_LIMIT */
	APP_DEF_QP_TIMEOUT = 14,
	APP_DEF_RETRY_CNT = 7,		/**< perftest DEF_RETRY_COUNT */
	APP_MAX_QPS = 16384,		/**< MAX_QP_NUM */
	APP_MAX_GID_INDEX = 7,		/**< the net_ernic GID table has 8 entries */
	APP_MAX_INLINE = 256,		/**< ROCE_MAX_INLINE */
	APP_MAX_OUT_READS = 128,	/**< ROCE_MAX_RD_ATOMIC */
	APP_DEF_DURATION = 5,
};

/** Parsed options. Zero/negative values mean "default" where noted. */
struct app_opts {
	const struct app_mode_info *mode;	/**< NULL with -i only */
	bool interactive;			/**< -i (without a mode) */
	bool loopback;				/**< --loopback */
	bool sr;				/**< --sr: RC selective repeat */
	bool no_sr;				/**< --no_sr: never selective repeat */
	char server[256];			/**< "" = server role */
	char device[64];			/**< -d: net_ernic port name */
	uint16_t port;				/**< -p: TCP (or rdma_cm) port */
	bool rdma_cm;				/**< -R: rdma_cm side channel and QPs */

	uint64_t size;				/**< -s */
	bool size_set;
	bool all;				/**< -a */
	uint64_t iters;				/**< -n */
	bool iters_set;
	uint32_t duration;			/**< -D seconds, 0: iterations */
	uint32_t margin;			/**< -f */
	bool margin_set;
	uint32_t num_qps;			/**< -q */
	uint32_t tx_depth;			/**< -t */
	uint32_t rx_depth;			/**< -r */
	bool rx_depth_set;
	uint32_t mtu;				/**< -m bytes, 0: the port's */
	int gid_index;				/**< -x / -g, -1: best (IPv4) */
	bool bidir;				/**< -b */
	bool no_peak;				/**< -N */
	uint32_t cq_mod;			/**< -Q */
	bool cq_mod_set;
	uint32_t post_list;			/**< -l (perftest) */
	int inline_size;			/**< -I, -1: default */
	uint8_t qp_timeout;			/**< -u */
	bool qp_timeout_set;			/**< -u given (rdma_cm: else CM's) */
	uint8_t retry_cnt;			/**< --retry_count */
	enum app_atomic atomic;			/**< -A */
	uint32_t out_reads;			/**< -o, 0: device maximum */
	uint8_t sl;				/**< -l (pingpong), -S */
	bool report_gbits;			/**< --report_gbits */
	bool run_infinitely;			/**< --run_infinitely */
	bool write_with_imm;			/**< --write_with_imm */
	bool cpu_freq_f;			/**< -F (accepted, no effect) */
	bool json;				/**< --json */
	bool xstats;				/**< --xstats */
	bool check;				/**< --check: receiver checks the bytes */
	bool cycles;				/**< --cycles */
	bool events;				/**< -e: sleep on CQ events */
	uint32_t stats_period;			/**< --stats-period seconds */
	char cc_trace[256];			/**< --cc-trace FILE, "": none */
	bool help;				/**< -h */
};

/** The mode named @p name, or NULL. */
const struct app_mode_info *app_mode_find(const char *name);
/** Mode @p i of the table (NULL past the end), for listings. */
const struct app_mode_info *app_mode_at(unsigned int i);

/**
 * Parse the application arguments (argv[0] is the first one after `--`).
 * On error, @p err holds one line naming the flag, the value and the
 * expected value, and -EINVAL is returned (the application exits 2).
 * Defaults and perftest's dependencies (force_dependecies()) are applied.
 */
int app_opts_parse(int argc, char **argv, struct app_opts *o, char *err,
		   size_t errlen);

/** Print the usage text (flags table) to @p f. */
void app_opts_usage(void *f);

/** True for the client role: a server address was given. */
static inline bool
app_opts_is_client(const struct app_opts *o)
{
	return o->server[0] != '\0';
}

#endif /* ERNIC_TESTPMD_OPTS_H */
