/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest-format output (see report.h). Format strings are copied from
 * perftest v4.5-0.17 src/perftest_parameters.h (RESULT_*, REPORT_FMT*)
 * and src/perftest_communication.h (BASIC_ADDR_FMT, RDMA_FMT, READ_FMT,
 * PERF_GID_FMT); tabs included.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const verb_str[] = {
	[APP_VERB_SEND] = "Send",
	[APP_VERB_WRITE] = "RDMA_Write",
	[APP_VERB_READ] = "RDMA_Read",
	[APP_VERB_ATOMIC] = "Atomic",
};

static const char *const atomic_str[] = {
	[APP_ATOMIC_CMP_AND_SWAP] = "CMP_AND_SWAP",
	[APP_ATOMIC_FETCH_AND_ADD] = "FETCH_AND_ADD",
};

void
report_header(FILE *f, const struct app_opts *o, const struct report_ctx *c)
{
	const struct app_mode_info *m = o->mode;
	bool bw = m->kind == APP_KIND_BW;
	bool client = !c->server;

	fputs(REPORT_LINE, f);
	fprintf(f, "                    %s ", verb_str[m->verb]);
	if (m->verb == APP_VERB_ATOMIC)
		fprintf(f, "%s ", atomic_str[o->atomic]);
	if (bw) {
		if (o->bidir)
			fputs("Bidirectional ", f);
		if (o->post_list > 1)
			fputs("Post List ", f);
		fputs("BW ", f);
	} else {
		fputs("Latency ", f);
	}
	fputs("Test\n", f);
	fprintf(f, " Dual-port       : %s\t\tDevice         : %s\n", "OFF",
		c->device);
	fprintf(f, " Number of qps   : %u\t\tTransport type : %s\n",
		o->num_qps, "IB");
	fprintf(f, " Connection type : %s\t\tUsing SRQ      : %s\n", "RC",
		"OFF");
	if (client || o->bidir)
		fprintf(f, " TX depth        : %u\n", o->tx_depth);
	if (o->post_list > 1)
		fprintf(f, " Post List       : %u\n", o->post_list);
	if (m->verb == APP_VERB_SEND && (c->server || o->bidir))
		fprintf(f, " RX depth        : %u\n", o->rx_depth);
	if (bw)
		fprintf(f, " CQ Moderation   : %u\n", o->cq_mod);
	fprintf(f, " Mtu             : %u[B]\n", c->mtu_bytes);
	fprintf(f, " Link type       : %s\n", "Ethernet");
	fprintf(f, " GID index       : %d\n", c->gid_index);
	if (m->verb != APP_VERB_READ && m->verb != APP_VERB_ATOMIC)
		fprintf(f, " Max inline data : %d[B]\n", o->inline_size);
	else
		fprintf(f, " Outstand reads  : %u\n", c->out_reads);
	fprintf(f, " rdma_cm QPs\t : %s\n", o->rdma_cm ? "ON" : "OFF");
	fprintf(f, " Data ex. method : %s", o->loopback && !o->rdma_cm ?
		"loopback" : o->rdma_cm ? "rdma_cm" : "Ethernet");
	if (o->rdma_cm && c->server) {
		/* ctx_print_test_info() with work_rdma_cm on the server */
		fputc('\n', f);
		fputs(REPORT_LINE, f);
		fprintf(f, " Waiting for client rdma_cm QP to connect\n");
		fprintf(f, " Please run the same command with the IB/RoCE interface IP");
	}
	fputc('\n', f);
	fputs(REPORT_LINE, f);
}

void
report_dest(FILE *f, const struct app_opts *o, bool remote,
	    const struct perf_dest *d)
{
	const uint8_t *g = d->gid;

	fprintf(f, " %s address: LID %#04x QPN %#06x PSN %#06x",
		remote ? "remote" : "local", d->lid, d->qpn, d->psn);
	/* ctx_print_pingpong_data(): READ prints OUT then falls through */
	switch (o->mode->verb) {
	case APP_VERB_READ:
		fprintf(f, " OUT %#04x", d->out_reads);
		/* fall through */
	case APP_VERB_WRITE:
		fprintf(f, " RKey %#08x VAddr %#016llx", d->rkey,
			(unsigned long long)d->vaddr);
		break;
	default:
		break;
	}
	fputc('\n', f);
	/* PERF_GID_FMT prints the bytes in decimal */
	fprintf(f, " %s: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n",
		"GID", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8],
		g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

void
report_bw_title(FILE *f, bool gbits)
{
	fputs(REPORT_LINE, f);
	fputs(gbits ?
	      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]" :
	      " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
	      f);
	fputc('\n', f);
}

void
report_lat_title(FILE *f, bool duration)
{
	fputs(REPORT_LINE, f);
	fputs(duration ?
	      " #bytes        #iterations       t_avg[usec]    tps average" :
	      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ",
	      f);
	fputc('\n', f);
}

void
report_bw_compute(const struct bw_samples *s, bool gbits,
		  struct perf_bw_report *r)
{
	double factor = gbits ? 125000000.0 : (double)0x100000;
	uint64_t opt_delta, t, i, j, last, cq_mod, pl;
	double cycles;

	memset(r, 0, sizeof(*r));
	r->size = s->size;
	r->iters = s->n;
	if (s->n == 0)
		return;
	last = s->no_peak ? 0 : s->n - 1;
	cycles = (double)(s->tcompleted[last] - s->tposted[0]);
	if (cycles <= 0)
		cycles = 1;
	r->bw_avg = (double)s->size * (double)s->n * (double)s->tsc_hz /
		(cycles * factor);
	r->msg_rate = (double)s->n * (double)s->tsc_hz / (cycles * 1e6);
	if (s->no_peak)
		return;
	/*
	 * Peak: the best average over any window [post i, completion j],
	 * completions being known every cq_mod messages (perftest).
	 */
	cq_mod = s->cq_mod > 0 ? s->cq_mod : 1;
	pl = s->post_list > 0 ? s->post_list : 1;
	opt_delta = s->tcompleted[0] - s->tposted[0];
	for (i = 0; i < s->n; i += pl) {
		for (j = ((i + 1 + cq_mod - 1) / cq_mod) * cq_mod - 1;
		     j < s->n; j += cq_mod) {
			t = (s->tcompleted[j] - s->tposted[i]) / (j - i + 1);
			if (t < opt_delta)
				opt_delta = t;
		}
		if (s->n % cq_mod) {
			j = s->n - 1;
			t = (s->tcompleted[j] - s->tposted[i]) / (j - i + 1);
			if (t < opt_delta)
				opt_delta = t;
		}
	}
	if (opt_delta == 0)
		opt_delta = 1;
	r->bw_peak = (double)s->size * (double)s->tsc_hz /
		((double)opt_delta * factor);
}

int
report_bw_row(char *buf, size_t len, const struct perf_bw_report *r,
	      bool gbits)
{
	/* print_full_bw_report(): more digits below 0.1 Gb/sec */
	if (r->bw_avg < 0.1 && gbits)
		return snprintf(buf, len,
				" %-7lu    %" PRIu64 "           %-7.6lf            %-7.6lf            %-7.6lf\n",
				(unsigned long)r->size, r->iters, r->bw_peak,
				r->bw_avg, r->msg_rate);
	return snprintf(buf, len,
			" %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t   %-7.6lf\n",
			(unsigned long)r->size, r->iters, r->bw_peak, r->bw_avg,
			r->msg_rate);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
report_lat_compute(uint64_t *delta, uint64_t n, uint64_t tsc_hz,
		   unsigned int rtt_factor, struct lat_stats *st)
{
	double q = (double)tsc_hz / 1e6 * rtt_factor, sum = 0, var = 0, d;
	uint64_t m, i, median, i99, i999;

	if (n < 3 || tsc_hz == 0 || rtt_factor == 0)
		return -EINVAL;
	qsort(delta, n, sizeof(*delta), cmp_u64);
	m = n - 2;	/* LAT_MEASURE_TAIL */
	/* get_median() of the first m samples */
	if ((m - 1) % 2)
		median = (delta[m / 2] + delta[m / 2 - 1]) / 2;
	else
		median = delta[m / 2];
	for (i = 0; i < m; i++)
		sum += delta[i] / q;
	st->avg = sum / m;
	for (i = 0; i < m; i++) {
		d = st->avg - delta[i] / q;
		var += d * d;
	}
	st->stdev = sqrt(var / m);
	st->min = delta[0] / q;
	st->max = delta[m] / q;
	st->typical = median / q;
	i99 = (uint64_t)ceil(m * 0.99);
	i999 = (uint64_t)ceil(m * 0.999);
	st->p99 = delta[(i99 < n - 1 ? i99 : n - 1)] / q;
	st->p999 = delta[(i999 < n - 1 ? i999 : n - 1)] / q;
	return 0;
}

int
report_lat_row(char *buf, size_t len, uint64_t size, uint64_t iters,
	       const struct lat_stats *st)
{
	return snprintf(buf, len,
			" %-7lu %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
			(unsigned long)size, iters, st->min, st->max,
			st->typical, st->avg, st->stdev, st->p99, st->p999);
}

int
report_lat_dur_row(char *buf, size_t len, uint64_t size, uint64_t iters,
		   double t_avg, double tps)
{
	return snprintf(buf, len,
			" %-7lu       %" PRIu64 "            %-7.2f        %-7.2f\n",
			(unsigned long)size, iters, t_avg, tps);
}

int
report_json_bw(char *buf, size_t len, const char *test, uint32_t qps,
	       const struct perf_bw_report *r, bool r_in_gbits)
{
	/* MB/sec here is MiB/sec (format factor 0x100000) */
	double k = r_in_gbits ? 1.0 : (double)0x100000 * 8 / 1e9;

	return snprintf(buf, len,
			"{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
			", \"qps\": %u, \"bw_peak_gbps\": %.6f, \"bw_avg_gbps\": %.6f, \"mpps\": %.6f}\n",
			test, r->size, r->iters, qps, r->bw_peak * k,
			r->bw_avg * k, r->msg_rate);
}

int
report_json_lat(char *buf, size_t len, const char *test, uint64_t size,
		uint64_t iters, const struct lat_stats *st)
{
	return snprintf(buf, len,
			"{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
			", \"qps\": 1, \"lat_min_usec\": %.3f, \"lat_max_usec\": %.3f, \"lat_typical_usec\": %.3f"
			", \"lat_avg_usec\": %.3f, \"lat_stdev_usec\": %.3f, \"lat_p99_usec\": %.3f, \"lat_p999_usec\": %.3f}\n",
			test, size, iters, st->min, st->max, st->typical,
			st->avg, st->stdev, st->p99, st->p999);
}
