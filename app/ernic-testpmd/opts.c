/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven parser of ernic-testpmd's application options. Every flag
 * has the meaning of perftest v4.5-0.17 (src/perftest_parameters.c) or, in
 * the pingpong mode, of ibv_rc_pingpong; values are checked against the
 * same ranges, and the defaults and dependencies of perftest's
 * init_perftest_params() and force_dependecies() are applied after.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define KINDS_PERF (APP_KIND_BW | APP_KIND_LAT)
#define KINDS_ALL (APP_KIND_BW | APP_KIND_LAT | APP_KIND_PINGPONG)

static const struct app_mode_info modes[] = {
	{ "write_bw", APP_KIND_BW, APP_VERB_WRITE },
	{ "read_bw", APP_KIND_BW, APP_VERB_READ },
	{ "send_bw", APP_KIND_BW, APP_VERB_SEND },
	{ "atomic_bw", APP_KIND_BW, APP_VERB_ATOMIC },
	{ "write_lat", APP_KIND_LAT, APP_VERB_WRITE },
	{ "read_lat", APP_KIND_LAT, APP_VERB_READ },
	{ "send_lat", APP_KIND_LAT, APP_VERB_SEND },
	{ "pingpong", APP_KIND_PINGPONG, APP_VERB_SEND },
	/* iop-integrity's peer (modes/integrity.c): pingpong's flags */
	{ "integrity", APP_KIND_PINGPONG, APP_VERB_READ },
};

const struct app_mode_info *
app_mode_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, name) == 0)
			return &modes[i];
	return NULL;
}

const struct app_mode_info *
app_mode_at(unsigned int i)
{
	return i < sizeof(modes) / sizeof(modes[0]) ? &modes[i] : NULL;
}

struct opt_def;
typedef int (*opt_apply_t)(struct app_opts *o, const struct opt_def *d,
			   const char *val, char *err, size_t errlen);

struct opt_def {
	char shortopt;		/**< 0: long only */
	const char *longopt;
	bool has_arg;
	unsigned int kinds;	/**< modes where the flag exists */
	const char *expect;	/**< expected value, for errors and help */
	const char *help;
	opt_apply_t apply;
};

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void
flag_name(const struct opt_def *d, char *buf, size_t len)
{
	if (d->shortopt != 0)
		snprintf(buf, len, "-%c/--%s", d->shortopt, d->longopt);
	else
		snprintf(buf, len, "--%s", d->longopt);
}

static int
bad_value(const struct opt_def *d, const char *val, char *err, size_t errlen)
{
	char n[64];

	flag_name(d, n, sizeof(n));
	return fail(err, errlen, "bad value \"%s\" for %s: expected %s", val,
		    n, d->expect);
}

/* Decimal or 0x-hex integer in [lo, hi], nothing after it. */
static int
parse_u64(const char *val, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (val == NULL || *val == '\0' || *val == '-' || *val == '+' ||
	    *val == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
range_u32(const struct opt_def *d, const char *val, uint64_t lo, uint64_t hi,
	  uint32_t *out, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_u64(val, lo, hi, &v) != 0)
		return bad_value(d, val, err, errlen);
	*out = (uint32_t)v;
	return 0;
}

static bool
verb_is(const struct app_opts *o, enum app_verb v)
{
	return o->mode != NULL && o->mode->verb == v &&
		o->mode->kind != APP_KIND_PINGPONG;
}

static int
only_for(const struct opt_def *d, const char *what, char *err, size_t errlen)
{
	char n[64];

	flag_name(d, n, sizeof(n));
	return fail(err, errlen, "%s is only for %s", n, what);
}

/* ---- apply functions, one per flag ---------------------------------- */

static int
opt_size(struct app_opts *o, const struct opt_def *d, const char *val,
	 char *err, size_t errlen)
{
	char buf[32];
	uint64_t v, f = 1;
	size_t n = strlen(val);

	/* perftest: a trailing K or M multiplies by 1024 or 1024*1024 */
	if (n == 0 || n >= sizeof(buf))
		return bad_value(d, val, err, errlen);
	memcpy(buf, val, n + 1);
	if (buf[n - 1] == 'K' || buf[n - 1] == 'M') {
		f = buf[n - 1] == 'K' ? 1024 : 1024 * 1024;
		buf[n - 1] = '\0';
	}
	if (parse_u64(buf, 1, UINT32_MAX, &v) != 0 || v * f > (1ULL << 31))
		return bad_value(d, val, err, errlen);
	o->size = v * f;
	o->size_set = true;
	return 0;
}

static int
opt_all(struct app_opts *o, const struct opt_def *d, const char *val,
	char *err, size_t errlen)
{
	(void)d;
	(void)val;
	(void)err;
	(void)errlen;
	o->all = true;
	return 0;
}

static int
opt_iters(struct app_opts *o, const struct opt_def *d, const char *val,
	  char *err, size_t errlen)
{
	uint32_t v = 0;
	int ret;

	if (o->mode != NULL && o->mode->kind == APP_KIND_PINGPONG)
		ret = range_u32(d, val, 1, APP_MAX_ITERS, &v, err, errlen);
	else
		ret = range_u32(d, val, APP_MIN_ITERS, APP_MAX_ITERS, &v, err,
				errlen);
	if (ret == 0) {
		o->iters = v;
		o->iters_set = true;
	}
	return ret;
}

static int
opt_duration(struct app_opts *o, const struct opt_def *d, const char *val,
	     char *err, size_t errlen)
{
	return range_u32(d, val, 1, 86400 * 365, &o->duration, err, errlen);
}

static int
opt_margin(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	o->margin_set = true;
	return range_u32(d, val, 0, 86400, &o->margin, err, errlen);
}

static int
opt_qps(struct app_opts *o, const struct opt_def *d, const char *val,
	char *err, size_t errlen)
{
	return range_u32(d, val, 1, APP_MAX_QPS, &o->num_qps, err, errlen);
}

static int
opt_tx_depth(struct app_opts *o, const struct opt_def *d, const char *val,
	     char *err, size_t errlen)
{
	return range_u32(d, val, 1, APP_MAX_TX, &o->tx_depth, err, errlen);
}

static int
opt_rx_depth(struct app_opts *o, const struct opt_def *d, const char *val,
	     char *err, size_t errlen)
{
	int ret = range_u32(d, val, 1, APP_MAX_RX, &o->rx_depth, err, errlen);

	if (ret == 0)
		o->rx_depth_set = true;
	return ret;
}

static int
opt_mtu(struct app_opts *o, const struct opt_def *d, const char *val,
	char *err, size_t errlen)
{
	uint64_t v;

	if (parse_u64(val, 256, 4096, &v) != 0 || (v & (v - 1)) != 0)
		return bad_value(d, val, err, errlen);
	o->mtu = (uint32_t)v;
	return 0;
}

static int
opt_gid(struct app_opts *o, const struct opt_def *d, const char *val,
	char *err, size_t errlen)
{
	uint32_t v = 0;
	int ret = range_u32(d, val, 0, APP_MAX_GID_INDEX, &v, err, errlen);

	if (ret == 0)
		o->gid_index = (int)v;
	return ret;
}

static int
opt_rdma_cm(struct app_opts *o, const struct opt_def *d, const char *val,
	    char *err, size_t errlen)
{
	(void)d;
	(void)val;
	(void)err;
	(void)errlen;
	o->rdma_cm = true;
	return 0;
}

static int
opt_events(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	(void)val;
	if (o->mode != NULL && o->mode->verb == APP_VERB_WRITE &&
	    o->mode->kind == APP_KIND_LAT)
		return only_for(d, "the modes that wait on completion queues (write_lat polls memory for the peer's writes)",
				err, errlen);
	o->events = true;
	return 0;
}

static int
opt_bidir(struct app_opts *o, const struct opt_def *d, const char *val,
	  char *err, size_t errlen)
{
	(void)d;
	(void)val;
	(void)err;
	(void)errlen;
	o->bidir = true;
	return 0;
}

static int
opt_no_peak(struct app_opts *o, const struct opt_def *d, const char *val,
	    char *err, size_t errlen)
{
	(void)d;
	(void)val;
	(void)err;
	(void)errlen;
	o->no_peak = true;
	return 0;
}

static int
opt_cq_mod(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	o->cq_mod_set = true;
	return range_u32(d, val, 1, APP_MAX_CQ_MOD, &o->cq_mod, err, errlen);
}

static int
opt_post_list(struct app_opts *o, const struct opt_def *d, const char *val,
	      char *err, size_t errlen)
{
	return range_u32(d, val, 1, APP_MAX_TX, &o->post_list, err, errlen);
}

static int
opt_inline(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	uint32_t v = 0;
	int ret;

	if (verb_is(o, APP_VERB_READ) || verb_is(o, APP_VERB_ATOMIC))
		return only_for(d, "write and send modes (inline data is not available on READ/atomic)",
				err, errlen);
	ret = range_u32(d, val, 0, APP_MAX_INLINE, &v, err, errlen);
	if (ret == 0)
		o->inline_size = (int)v;
	return ret;
}

static int
opt_timeout(struct app_opts *o, const struct opt_def *d, const char *val,
	    char *err, size_t errlen)
{
	uint32_t v = 0;
	/* IBTA 9.7.6.1.3: Local ACK Timeout is a 5-bit field */
	int ret = range_u32(d, val, 0, 31, &v, err, errlen);

	if (ret == 0) {
		o->qp_timeout = (uint8_t)v;
		o->qp_timeout_set = true;
	}
	return ret;
}

static int
opt_retry(struct app_opts *o, const struct opt_def *d, const char *val,
	  char *err, size_t errlen)
{
	uint32_t v = 0;
	/* IBTA 9.7.6.1.3 (Retry Count) is a 3-bit field */
	int ret = range_u32(d, val, 0, 7, &v, err, errlen);

	if (ret == 0)
		o->retry_cnt = (uint8_t)v;
	return ret;
}

static int
opt_atomic(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	if (!verb_is(o, APP_VERB_ATOMIC))
		return only_for(d, "atomic_bw", err, errlen);
	if (strcmp(val, "CMP_AND_SWAP") == 0)
		o->atomic = APP_ATOMIC_CMP_AND_SWAP;
	else if (strcmp(val, "FETCH_AND_ADD") == 0)
		o->atomic = APP_ATOMIC_FETCH_AND_ADD;
	else
		return bad_value(d, val, err, errlen);
	return 0;
}

static int
opt_out_reads(struct app_opts *o, const struct opt_def *d, const char *val,
	      char *err, size_t errlen)
{
	if (!verb_is(o, APP_VERB_READ) && !verb_is(o, APP_VERB_ATOMIC))
		return only_for(d, "read_bw, read_lat and atomic_bw", err,
				errlen);
	return range_u32(d, val, 1, APP_MAX_OUT_READS, &o->out_reads, err,
			 errlen);
}

static int
opt_port(struct app_opts *o, const struct opt_def *d, const char *val,
	 char *err, size_t errlen)
{
	uint32_t v = 0;
	int ret = range_u32(d, val, 1, 65535, &v, err, errlen);

	if (ret == 0)
		o->port = (uint16_t)v;
	return ret;
}

static int
opt_device(struct app_opts *o, const struct opt_def *d, const char *val,
	   char *err, size_t errlen)
{
	if (*val == '\0' || strlen(val) >= sizeof(o->device))
		return bad_value(d, val, err, errlen);
	snprintf(o->device, sizeof(o->device), "%s", val);
	return 0;
}

static int
opt_ib_port(struct app_opts *o, const struct opt_def *d, const char *val,
	    char *err, size_t errlen)
{
	uint32_t v = 0;

	(void)o;
	/* a net_ernic port has one RoCE port, number 1 */
	return range_u32(d, val, 1, 1, &v, err, errlen);
}

static int
opt_sl(struct app_opts *o, const struct opt_def *d, const char *val,
       char *err, size_t errlen)
{
	uint32_t v = 0;
	int ret = range_u32(d, val, 0, 15, &v, err, errlen);

	if (ret == 0)
		o->sl = (uint8_t)v;
	return ret;
}

#define FLAG_FN(fn, field) \
static int \
fn(struct app_opts *o, const struct opt_def *d, const char *val, \
   char *err, size_t errlen) \
{ \
	(void)d; \
	(void)val; \
	(void)err; \
	(void)errlen; \
	o->field = true; \
	return 0; \
}

FLAG_FN(opt_gbits, report_gbits)
FLAG_FN(opt_infinite, run_infinitely)
FLAG_FN(opt_json, json)
FLAG_FN(opt_xstats, xstats)
FLAG_FN(opt_check, check)
FLAG_FN(opt_cycles, cycles)
FLAG_FN(opt_cpu_freq, cpu_freq_f)
FLAG_FN(opt_loopback, loopback)
FLAG_FN(opt_sr, sr)
FLAG_FN(opt_no_sr, no_sr)
FLAG_FN(opt_help, help)
FLAG_FN(opt_interactive, interactive)

static int
opt_imm(struct app_opts *o, const struct opt_def *d, const char *val,
	char *err, size_t errlen)
{
	(void)val;
	if (!verb_is(o, APP_VERB_WRITE) || o->mode->kind != APP_KIND_BW)
		return only_for(d, "write_bw", err, errlen);
	o->write_with_imm = true;
	return 0;
}

static int
opt_stats(struct app_opts *o, const struct opt_def *d, const char *val,
	  char *err, size_t errlen)
{
	return range_u32(d, val, 1, 3600, &o->stats_period, err, errlen);
}

static int
opt_cc_trace(struct app_opts *o, const struct opt_def *d, const char *val,
	     char *err, size_t errlen)
{
	if (*val == '\0' || strlen(val) >= sizeof(o->cc_trace))
		return bad_value(d, val, err, errlen);
	snprintf(o->cc_trace, sizeof(o->cc_trace), "%s", val);
	return 0;
}

static const struct opt_def defs[] = {
	{ 's', "size", true, KINDS_ALL, "a message size 1..2147483648 (suffix K or M allowed)",
	  "message size in bytes (bw 65536, lat 2, atomic 8, pingpong 4096)", opt_size },
	{ 'a', "all", false, KINDS_PERF, "", "run sizes 2..2^23 (powers of two)", opt_all },
	{ 'n', "iters", true, KINDS_ALL, "an iteration count 5..100000000",
	  "iterations per size (write_bw 5000, others 1000)", opt_iters },
	{ 'D', "duration", true, KINDS_PERF, "a duration in seconds 1..31536000",
	  "run for this many seconds instead of -n", opt_duration },
	{ 'f', "margin", true, KINDS_PERF, "seconds 0..86400",
	  "-D: measure within margins (default duration/4)", opt_margin },
	{ 'q', "qp", true, APP_KIND_BW, "a QP count 1..16384", "number of QPs (default 1)", opt_qps },
	{ 't', "tx-depth", true, KINDS_PERF, "a depth 1..15000",
	  "send queue depth (bw 128, lat 1)", opt_tx_depth },
	{ 'r', "rx-depth", true, KINDS_PERF, "a depth 1..16384",
	  "receive queue depth (send 512, RDMA 1)", opt_rx_depth },
	{ 'r', "rx-depth", true, APP_KIND_PINGPONG, "a depth 1..16384",
	  "receives posted (default 500)", opt_rx_depth },
	{ 'm', "mtu", true, KINDS_ALL, "one of 256, 512, 1024, 2048, 4096",
	  "path MTU (default: the port's, the smaller of both sides)", opt_mtu },
	{ 'x', "gid-index", true, KINDS_PERF, "a GID index 0..7",
	  "source GID index (default: the IPv4-mapped GID)", opt_gid },
	{ 'g', "gid-idx", true, APP_KIND_PINGPONG, "a GID index 0..7",
	  "source GID index (default: the IPv4-mapped GID)", opt_gid },
	{ 'R', "rdma_cm", false, KINDS_PERF, "", "connect the QPs and exchange keys with rdma_cm (IB CM on QP1), as perftest -R", opt_rdma_cm },
	{ 'e', "events", false, KINDS_ALL, "", "sleep on CQ events (a poller thread runs the port)", opt_events },
	{ 'b', "bidirectional", false, APP_KIND_BW, "", "both sides send", opt_bidir },
	{ 'N', "noPeak", false, APP_KIND_BW, "", "do not compute the peak bandwidth", opt_no_peak },
	{ 'Q', "cq-mod", true, APP_KIND_BW, "a moderation 1..1024",
	  "one completion every N sends (default 100)", opt_cq_mod },
	{ 'l', "post_list", true, APP_KIND_BW, "a list size 1..15000",
	  "post N send WRs per call (sets -Q to N)", opt_post_list },
	{ 'l', "sl", true, APP_KIND_PINGPONG, "a service level 0..15", "service level", opt_sl },
	{ 'S', "sl", true, KINDS_PERF, "a service level 0..15", "service level", opt_sl },
	{ 'I', "inline_size", true, KINDS_PERF, "an inline size 0..256",
	  "largest message sent inline (default 0)", opt_inline },
	{ 'u', "qp-timeout", true, KINDS_PERF, "a timeout exponent 0..31",
	  "local ACK timeout 4.096 us * 2^N (default 14)", opt_timeout },
	{ 0, "retry_count", true, KINDS_PERF, "a retry count 0..7",
	  "transport retries after a local ACK timeout (default 7)", opt_retry },
	{ 'A', "atomic_type", true, APP_KIND_BW, "CMP_AND_SWAP or FETCH_AND_ADD",
	  "atomic operation (default FETCH_AND_ADD)", opt_atomic },
	{ 'o', "outs", true, KINDS_PERF, "an outstanding count 1..128",
	  "outstanding READ/atomic requests (default 128)", opt_out_reads },
	{ 'p', "port", true, KINDS_ALL, "a TCP port 1..65535", "side-channel TCP port, or rdma_cm port with -R (default 18515)", opt_port },
	{ 'd', "ib-dev", true, KINDS_ALL, "a net_ernic port name, e.g. net_ernic0",
	  "the net_ernic port (default: the first one)", opt_device },
	{ 'i', "ib-port", true, KINDS_ALL, "1 (a net_ernic port has one RoCE port)",
	  "RoCE port number (always 1)", opt_ib_port },
	{ 'F', "CPU-freq", false, KINDS_PERF, "", "accepted, no effect (the TSC is invariant)", opt_cpu_freq },
	{ 0, "report_gbits", false, APP_KIND_BW, "", "report Gb/sec instead of MB/sec", opt_gbits },
	{ 0, "run_infinitely", false, APP_KIND_BW, "", "run forever, a result every -D seconds", opt_infinite },
	{ 0, "write_with_imm", false, APP_KIND_BW, "", "write_bw: RDMA WRITE with immediate", opt_imm },
	{ 0, "json", false, KINDS_PERF, "", "one JSON object per result row instead of the table", opt_json },
	{ 0, "xstats", false, KINDS_PERF, "", "after the run, the port's non-zero extended statistics (both ports with --loopback)", opt_xstats },
	{ 0, "check", false, KINDS_PERF, "", "write_bw, send_bw: each QP sends its own byte pattern and the receiver checks every byte of the last message of each QP (both sides need it)", opt_check },
	{ 0, "cycles", false, KINDS_PERF, "", "after the run, the port workers' busy share and TSC cycles a RoCE frame (both ports with --loopback)", opt_cycles },
	{ 0, "stats-period", true, KINDS_ALL, "seconds 1..3600",
	  "print running counters to stderr every N seconds", opt_stats },
	{ 0, "loopback", false, KINDS_ALL, "",
	  "server and client in this process between two net_ernic ports", opt_loopback },
	{ 0, "cc-trace", true, APP_KIND_BW, "a file name (--loopback only)",
	  "--loopback: every 10 ms the client's bytes per QP and the net_fault bottleneck's queue, drops and marks, to FILE", opt_cc_trace },
	{ 0, "sr", false, KINDS_PERF, "",
	  "RC selective repeat over the TCP side channel (both sides' --sr, softernic peers only); on by default with --loopback and offered by default with -R", opt_sr },
	{ 0, "no_sr", false, KINDS_PERF, "",
	  "no selective repeat: go-back-N also with --loopback, not offered or accepted with -R", opt_no_sr },
	{ 'h', "help", false, KINDS_ALL, "", "this help", opt_help },
};

static const struct opt_def opt_i_interactive = {
	'i', "interactive", false, KINDS_ALL, "", "interactive ernic> prompt", opt_interactive
};

void
app_opts_usage(void *fp)
{
	FILE *f = fp;
	unsigned int i;
	char n[64];

	fprintf(f,
		"Usage: ernic-testpmd [EAL options] -- MODE [flags] [SERVER]\n"
		"       ernic-testpmd [EAL options] -- MODE --loopback [flags]\n"
		"       ernic-testpmd [EAL options] -- -i\n"
		"       ernic-testpmd [EAL options] -- --config FILE [MODE] [flags] [SERVER]\n"
		"MODE: ");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(f, "%s%s", i ? ", " : "", modes[i].name);
	fprintf(f, "\nSERVER: the peer's side-channel address (client role); none: server role\n"
		"Flags (perftest's meaning; pingpong: ibv_rc_pingpong's):\n");
	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		flag_name(&defs[i], n, sizeof(n));
		fprintf(f, "  %-22s %s%s%s\n", n, defs[i].help,
			defs[i].kinds == APP_KIND_PINGPONG ? " [pingpong]" : "",
			defs[i].kinds == APP_KIND_BW ? " [bw]" : "");
	}
}

static void
apply_defaults(struct app_opts *o)
{
	const struct app_mode_info *m = o->mode;
	bool bw = m->kind == APP_KIND_BW;

	if (m->kind == APP_KIND_PINGPONG) {
		if (!o->size_set)
			o->size = APP_DEF_SIZE_PP;
		if (!o->iters_set)
			o->iters = APP_DEF_ITERS;
		if (!o->rx_depth_set)
			o->rx_depth = APP_DEF_RX_PP;
		o->num_qps = 1;
		o->tx_depth = 1;
		o->cq_mod = 1;
		return;
	}
	if (!o->size_set)
		o->size = m->verb == APP_VERB_ATOMIC ? APP_DEF_SIZE_ATOMIC :
			bw ? APP_DEF_SIZE_BW : APP_DEF_SIZE_LAT;
	if (!o->iters_set)
		o->iters = bw && m->verb == APP_VERB_WRITE ? APP_DEF_ITERS_WB :
			APP_DEF_ITERS;
	if (o->num_qps == 0)
		o->num_qps = 1;
	if (o->tx_depth == 0)
		o->tx_depth = bw ? APP_DEF_TX_BW : APP_DEF_TX_LAT;
	if (!o->rx_depth_set)
		o->rx_depth = m->verb == APP_VERB_SEND || o->write_with_imm ?
			APP_DEF_RX_SEND : APP_DEF_RX_RDMA;
	if (!o->cq_mod_set)
		o->cq_mod = APP_DEF_CQ_MOD;
	if (o->post_list == 0)
		o->post_list = 1;
	if (o->inline_size < 0)
		o->inline_size = 0;
}

/* perftest force_dependecies(), for the flags we have. */
static int
apply_dependencies(struct app_opts *o, char *err, size_t errlen)
{
	const struct app_mode_info *m = o->mode;

	if (m->kind == APP_KIND_PINGPONG)
		return 0;
	/* perftest: "On RDMA verbs rx depth can be only 1" */
	if (m->verb != APP_VERB_SEND && !o->write_with_imm &&
	    o->rx_depth > APP_DEF_RX_RDMA)
		return fail(err, errlen, "bad value \"%u\" for -r/--rx-depth: expected 1 (RDMA verbs receive nothing; send modes and --write_with_imm take 1..%d)",
			    o->rx_depth, APP_MAX_RX);
	if (o->run_infinitely) {
		if (o->bidir && m->verb == APP_VERB_SEND)
			return fail(err, errlen, "--run_infinitely is not supported with -b in send_bw");
		if (o->duration == 0)
			o->duration = APP_DEF_DURATION;
		o->no_peak = true;
	}
	if (o->duration == 0) {
		if (o->tx_depth > o->iters)
			o->tx_depth = (uint32_t)o->iters;
		if ((m->verb == APP_VERB_SEND || o->write_with_imm) &&
		    o->rx_depth > o->iters)
			o->rx_depth = (uint32_t)o->iters;
	}
	if (o->size > APP_CQ_MOD_SIZE_LIMIT && !o->all && !o->cq_mod_set)
		o->cq_mod = 1;
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (m->verb == APP_VERB_READ || m->verb == APP_VERB_ATOMIC)
		o->inline_size = 0;
	if (o->all) {
		if (m->verb == APP_VERB_ATOMIC)
			return fail(err, errlen, "-a/--all is not available in atomic_bw: the message size is always 8");
		if (o->duration != 0)
			return fail(err, errlen, "-a/--all cannot be combined with -D/--duration (perftest: duration mode does not run all sizes)");
		o->size = APP_MAX_SIZE_ALL;
	}
	if (m->verb == APP_VERB_ATOMIC && o->size != APP_DEF_SIZE_ATOMIC)
		return fail(err, errlen, "bad value \"%llu\" for -s/--size: expected 8 (atomic operations are 8 bytes)",
			    (unsigned long long)o->size);
	if (o->post_list > 1) {
		if (o->duration == 0 && o->iters % o->post_list != 0)
			return fail(err, errlen, "bad value \"%u\" for -l/--post_list: expected a divisor of the iteration count %llu",
				    o->post_list, (unsigned long long)o->iters);
		if (o->post_list > o->tx_depth)
			return fail(err, errlen, "bad value \"%u\" for -l/--post_list: expected at most the TX depth %u",
				    o->post_list, o->tx_depth);
		if (!o->cq_mod_set)
			o->cq_mod = o->post_list;
		else if (o->post_list % o->cq_mod != 0)
			return fail(err, errlen, "bad value \"%u\" for -Q/--cq-mod: expected a divisor of the post list %u",
				    o->cq_mod, o->post_list);
	}
	if (o->duration != 0) {
		if (!o->margin_set)
			o->margin = o->duration / 4;
		if (!(o->duration > 2 * o->margin))
			return fail(err, errlen, "bad value \"%u\" for -f/--margin: expected less than half the duration %u",
				    o->margin, o->duration);
		o->no_peak = true;
	}
	/* (the send_bw receiver never computes a peak: see bench.c) */
	return 0;
}

static const struct opt_def *
find_def(const struct app_opts *o, char s, const char *l, size_t llen,
	 bool *exists)
{
	unsigned int k = o->mode != NULL ? o->mode->kind : KINDS_ALL;
	unsigned int i;

	*exists = false;
	if ((s == 'i' && o->mode == NULL) ||
	    (l != NULL && llen == 11 && strncmp(l, "interactive", 11) == 0)) {
		*exists = true;
		return &opt_i_interactive;
	}
	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		const struct opt_def *d = &defs[i];

		if (s != 0 ? d->shortopt != s :
		    (strlen(d->longopt) != llen ||
		     strncmp(d->longopt, l, llen) != 0))
			continue;
		*exists = true;
		if (d->kinds & k)
			return d;
	}
	return NULL;
}

static const char *
kinds_text(unsigned int kinds)
{
	if (kinds == APP_KIND_BW)
		return "the bandwidth modes (write_bw, read_bw, send_bw, atomic_bw)";
	if (kinds == APP_KIND_PINGPONG)
		return "the pingpong mode";
	return "the perftest modes (*_bw, *_lat)";
}

static int
not_here(const struct app_opts *o, char s, const char *l, size_t llen,
	 char *err, size_t errlen)
{
	unsigned int i, kinds = 0;
	char n[64];

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (s != 0 ? defs[i].shortopt == s :
		    (strlen(defs[i].longopt) == llen &&
		     strncmp(defs[i].longopt, l, llen) == 0)) {
			kinds |= defs[i].kinds;
			flag_name(&defs[i], n, sizeof(n));
		}
	return fail(err, errlen, "%s is not a flag of %s: it is only for %s", n,
		    o->mode != NULL ? o->mode->name : "-i", kinds_text(kinds));
}

int
app_opts_parse(int argc, char **argv, struct app_opts *o, char *err,
	       size_t errlen)
{
	const struct opt_def *d;
	int i = 0, npos = 0, ret;
	bool exists;

	memset(o, 0, sizeof(*o));
	o->port = 18515;
	o->gid_index = -1;
	o->inline_size = -1;
	o->qp_timeout = APP_DEF_QP_TIMEOUT;
	o->retry_cnt = APP_DEF_RETRY_CNT;
	o->atomic = APP_ATOMIC_FETCH_AND_ADD;
	if (err != NULL && errlen > 0)
		err[0] = '\0';

	if (argc > 0 && argv[0][0] != '-') {
		o->mode = app_mode_find(argv[0]);
		if (o->mode == NULL) {
			char list[160] = "";
			const struct app_mode_info *m;
			unsigned int k;

			for (k = 0; (m = app_mode_at(k)) != NULL; k++)
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list), "%s%s",
					 k ? ", " : "", m->name);
			return fail(err, errlen, "unknown mode \"%s\": expected one of %s",
				    argv[0], list);
		}
		i = 1;
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		char s = 0, shortv[2] = "";
		const char *l = NULL;
		size_t llen = 0;

		if (a[0] != '-' || a[1] == '\0') {
			/* positional: the server address */
			if (o->mode == NULL)
				return fail(err, errlen, "unexpected \"%s\": the mode must come first (expected one of write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat, pingpong, integrity)",
					    a);
			if (npos++ > 0 || strlen(a) >= sizeof(o->server))
				return fail(err, errlen, "unexpected argument \"%s\": expected one server address (already have \"%s\")",
					    a, o->server);
			snprintf(o->server, sizeof(o->server), "%s", a);
			continue;
		}
		if (a[1] == '-') {
			l = a + 2;
			eq = strchr(l, '=');
			llen = eq != NULL ? (size_t)(eq - l) : strlen(l);
			if (eq != NULL)
				val = eq + 1;
		} else {
			s = a[1];
			if (a[2] != '\0')
				val = a + 2;
		}
		d = find_def(o, s, l, llen, &exists);
		if (d == NULL) {
			if (exists)
				return not_here(o, s, l, llen, err, errlen);
			if (s != 0) {
				shortv[0] = s;
				return fail(err, errlen, "unknown flag -%s: see --help",
					    shortv);
			}
			return fail(err, errlen, "unknown flag --%.*s: see --help",
				    (int)llen, l);
		}
		if (o->mode == NULL && d->apply != opt_help &&
		    d->apply != opt_interactive &&
		    !(d->apply == opt_loopback && o->interactive))
			return fail(err, errlen, "flag %s before the mode: the mode (write_bw, ..., pingpong) must come first",
				    a);
		if (d->has_arg) {
			if (val == NULL) {
				char n[64];

				if (i + 1 >= argc) {
					flag_name(d, n, sizeof(n));
					return fail(err, errlen, "missing value for %s: expected %s",
						    n, d->expect);
				}
				val = argv[++i];
			}
		} else if (val != NULL) {
			if (s != 0) {
				/* bundled short flags: -bN */
				char n[64];
				const char *p;

				ret = d->apply(o, d, "", err, errlen);
				if (ret != 0)
					return ret;
				for (p = val; *p != '\0'; p++) {
					d = find_def(o, *p, NULL, 0, &exists);
					if (d == NULL || d->has_arg) {
						snprintf(n, sizeof(n), "-%c", *p);
						return fail(err, errlen, "bad flag bundle %s: %s %s",
							    a, n, d == NULL ?
							    "is not a flag here" :
							    "takes a value and cannot be bundled");
					}
					ret = d->apply(o, d, "", err, errlen);
					if (ret != 0)
						return ret;
				}
				continue;
			}
			return fail(err, errlen, "flag --%.*s takes no value (got \"%s\")",
				    (int)llen, l, val);
		}
		ret = d->apply(o, d, val != NULL ? val : "", err, errlen);
		if (ret != 0)
			return ret;
	}
	if (o->help)
		return 0;
	if (o->mode == NULL) {
		if (o->interactive)
			return 0;
		return fail(err, errlen, "missing mode: expected one of write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat, pingpong, integrity (or -i)");
	}
	if (o->loopback && app_opts_is_client(o))
		return fail(err, errlen, "--loopback runs both sides in this process: expected no server address (got \"%s\")",
			    o->server);
	if (o->cc_trace[0] != '\0' && !o->loopback)
		return fail(err, errlen, "--cc-trace %s: expected --loopback too (the trace samples both ends of one process)",
			    o->cc_trace);
	if (o->sr && o->no_sr)
		return fail(err, errlen, "--sr and --no_sr contradict each other: expected one of them");
	apply_defaults(o);
	return apply_dependencies(o, err, errlen);
}
