/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One side of a benchmark (see bench.h): verbs objects on a net_ernic
 * port, perftest's connection sequence (exchange_versions(),
 * check_sys_data(), check_mtu(), set_up_connection(), ctx_connect(),
 * ctx_hand_shake(), xchg_bw_reports(), ctx_close_connection()) and the
 * bandwidth loops of run_iter_bw() and run_iter_bw_server().
 *
 * The port is polled inline (rte_pmd_ernic_poll()) by the thread that
 * runs the benchmark, in every wait: posting, completion polling and
 * side-channel reads, so the QP engines keep answering the peer.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "bench.h"
#include "cc_trace.h"
#include "numa_buf.h"
#include "events.h"
#include "port.h"
#include "rte_pmd_ernic.h"

/* wr_id of a send: QP index in the high bits, WRs covered in the low. */
#define WRID_QP_SHIFT 40
#define WRID_CNT_MASK ((1ULL << WRID_QP_SHIFT) - 1)
/* MIN_RNR_TIMER of perftest: 12 = 0.64 ms (IBTA table 45) */
#define BENCH_MIN_RNR_TIMER 12
#define BENCH_POLL_BATCH 16
/* receives a server polls for after one inline poll of its port, at most */
#define BENCH_SERVER_DRAIN 64
#define BENCH_RESOLVE_S 5

uint64_t
bench_now(void)
{
	return rte_rdtsc();
}

/* ------------------------------------------------------------------ */
/* resources                                                          */
/* ------------------------------------------------------------------ */

static uint64_t
max_size(const struct app_opts *o)
{
	return o->all ? APP_MAX_SIZE_ALL : o->size;
}

static int
qp_to_init(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
		ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
		ROCE_ACCESS_REMOTE_ATOMIC;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			      ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
}

int
bench_create(struct bench *b)
{
	const struct app_opts *o = b->o;
	struct roce_device_attr da;
	struct roce_qp_init_attr ia;
	uint64_t nsamp, avail;
	uint32_t i, depth;
	int nw;
	int ret;

	b->nqps = o->num_qps;
	b->tsc_hz = rte_get_tsc_hz();
	b->ch.fd = -1;
	b->dev = rte_pmd_ernic_get_device(b->port_id);
	b->w = rte_pmd_ernic_get_worker(b->port_id, 0);
	if (b->dev == NULL || b->w == NULL) {
		BENCH_ERR(b, "port %s has no RoCE device: %s\n", b->port_name,
			  rte_strerror(rte_errno));
		return -ENODEV;
	}
	ret = roce_query_device(b->dev, &da);
	if (ret != 0)
		return ret;
	b->out_reads = da.max_qp_rd_atom;
	if (o->out_reads != 0 && o->out_reads < b->out_reads)
		b->out_reads = o->out_reads;
	if (o->mode->verb != APP_VERB_READ && o->mode->verb != APP_VERB_ATOMIC)
		b->out_reads = 1;	/* check_link(): 1 unless READ/atomic */

	ret = port_pick_gid(b->port_id, o->gid_index, &b->gid_index, &b->gid);
	if (ret != 0) {
		BENCH_ERR(b, "bad value \"%d\" for -x: port %s has no GID at that index\n",
			  o->gid_index, b->port_name);
		return ret;
	}
	b->port_mtu_code = port_mtu_code(b->port_id);
	if (o->mtu != 0 && roce_mtu_bytes(b->port_mtu_code) < o->mtu) {
		BENCH_ERR(b, "bad value \"%u\" for -m: port %s carries at most %u bytes per packet (its pmtu= devarg)\n",
			  o->mtu, b->port_name,
			  roce_mtu_bytes(b->port_mtu_code));
		return -EINVAL;
	}

	/* BUFF_SIZE(size, cycle_buffer): the larger of both */
	b->qp_buf = RTE_MAX(max_size(o), (uint64_t)PERF_CYCLE_BUFFER);
	b->qp_buf = RTE_ALIGN_CEIL(b->qp_buf, PERF_CYCLE_BUFFER);
	b->buf_size = 2 * b->nqps * b->qp_buf;
	/* before zeroing them: the OOM killer would answer, not an error */
	avail = numa_buf_mem_available();
	if (avail != 0 &&
	    b->buf_size * RTE_MAX(b->buf_sides, 1u) > avail) {
		BENCH_ERR(b, "cannot allocate %u x %" PRIu64 " bytes of buffers (2 x %u QPs x %" PRIu64 " bytes a side): %" PRIu64 " bytes of memory available; lower -q or the size (-s, -a)\n",
			  RTE_MAX(b->buf_sides, 1u), b->buf_size, b->nqps,
			  b->qp_buf, avail);
		return -ENOMEM;
	}
	/* on the node of the QP's worker (numa_buf.h) */
	b->buf = numa_buf_alloc(b->port_id, 0, b->buf_size, NULL);
	b->pd = roce_alloc_pd(b->dev);
	if (b->buf == NULL || b->pd == NULL) {
		BENCH_ERR(b, "cannot allocate %" PRIu64 " bytes of buffers\n",
			  b->buf_size);
		return -ENOMEM;
	}
	/* each QP's send half is filled with a pattern (--check: its own) */
	if (o->check)
		for (i = 0; i < b->nqps; i++) {
			uint8_t *a = b->buf + (uint64_t)i * b->qp_buf;
			uint64_t k;

			for (k = 0; k < b->qp_buf; k++)
				a[k] = bench_check_byte(i, k);
		}
	else
		memset(b->buf, 0x5a, b->buf_size / 2);
	b->mr = roce_reg_mr(b->pd, b->buf, b->buf_size,
			    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			    ROCE_ACCESS_REMOTE_READ |
			    ROCE_ACCESS_REMOTE_ATOMIC);
	if (b->mr == NULL) {
		BENCH_ERR(b, "roce_reg_mr: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	/*
	 * QPs over the port's workers (a worker runs on its own lcore with
	 * lcores=); with -e, one completion channel serves worker 0's CQs
	 */
	nw = rte_pmd_ernic_nb_workers(b->port_id);
	b->nw = o->events || nw < 1 ? 1 : (uint32_t)nw;
	b->nw = RTE_MIN(b->nw, b->nqps);
	b->nw = RTE_MIN(b->nw, (uint32_t)BENCH_MAX_WORKERS);
	for (i = 0; i < b->nw; i++) {
		struct roce_worker *w = rte_pmd_ernic_get_worker(b->port_id,
								(uint16_t)i);
		uint32_t nq = b->nqps / b->nw + (i < b->nqps % b->nw);

		if (w == NULL) {
			BENCH_ERR(b, "port %s: no worker %u: %s\n",
				  b->port_name, i, rte_strerror(rte_errno));
			return -ENODEV;
		}
		depth = RTE_MAX(o->tx_depth, 1u) * nq;
		b->wscq[i] = roce_create_cq(w, RTE_MAX(depth, 16u));
		depth = RTE_MAX(o->rx_depth, 1u) * nq;
		b->wrcq[i] = roce_create_cq(w, RTE_MAX(depth, 16u));
		if (b->wscq[i] == NULL || b->wrcq[i] == NULL) {
			BENCH_ERR(b, "cannot create the CQs of worker %u: %s\n",
				  i, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	b->scq = b->wscq[0];
	b->rcq = b->wrcq[0];
	b->qp = calloc(b->nqps, sizeof(*b->qp));
	b->my = calloc(b->nqps, sizeof(*b->my));
	b->rem = calloc(b->nqps, sizeof(*b->rem));
	b->wr = calloc(b->nqps, sizeof(*b->wr));
	b->sge = calloc(b->nqps, sizeof(*b->sge));
	b->rwr = calloc(b->nqps, sizeof(*b->rwr));
	b->rsge = calloc(b->nqps, sizeof(*b->rsge));
	b->scnt = calloc(b->nqps, sizeof(*b->scnt));
	b->ccnt = calloc(b->nqps, sizeof(*b->ccnt));
	b->ready = calloc(b->nqps, sizeof(*b->ready));
	b->in_ready = calloc(b->nqps, sizeof(*b->in_ready));
	nsamp = o->duration != 0 ? 1 : o->iters * b->nqps;
	b->nsamples = RTE_MAX(nsamp, (uint64_t)1);
	b->tposted = calloc(b->nsamples, sizeof(uint64_t));
	b->tcompleted = calloc(b->nsamples, sizeof(uint64_t));
	if (b->qp == NULL ||
	    b->my == NULL || b->rem == NULL || b->wr == NULL ||
	    b->sge == NULL || b->rwr == NULL || b->rsge == NULL ||
	    b->scnt == NULL || b->ccnt == NULL || b->ready == NULL ||
	    b->in_ready == NULL || b->tposted == NULL ||
	    b->tcompleted == NULL) {
		BENCH_ERR(b, "cannot allocate CQs or test state\n");
		return -ENOMEM;
	}
	for (i = 0; i < b->nqps; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = b->wscq[i % b->nw];
		ia.recv_cq = b->wrcq[i % b->nw];
		ia.cap.max_send_wr = RTE_MAX(o->tx_depth, 1u);
		ia.cap.max_recv_wr = RTE_MAX(o->rx_depth, 1u);
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = (uint32_t)RTE_MAX(o->inline_size, 0);
		ia.sq_sig_all = false;
		b->qp[i] = roce_create_qp(b->pd, &ia);
		if (b->qp[i] == NULL) {
			BENCH_ERR(b, "cannot create QP %u of %u: %s\n", i,
				  b->nqps, rte_strerror(rte_errno));
			return -rte_errno;
		}
		ret = qp_to_init(b->qp[i]);
		if (ret != 0) {
			BENCH_ERR(b, "QP 0x%06x to INIT: %s\n",
				  roce_qp_num(b->qp[i]), strerror(-ret));
			return ret;
		}
		/* set_up_connection() */
		b->my[i].lid = 0;
		b->my[i].out_reads = b->out_reads;
		b->my[i].qpn = roce_qp_num(b->qp[i]);
		b->my[i].psn = (uint32_t)(rte_rand() & 0xffffff);
		b->my[i].rkey = roce_mr_rkey(b->mr);
		b->my[i].vaddr = (uintptr_t)(b->buf + (b->nqps + i) * b->qp_buf);
		memcpy(b->my[i].gid, b->gid.raw, 16);
		b->my[i].srqn = 0;
	}
	return 0;
}

void
bench_destroy(struct bench *b)
{
	uint32_t i;
	int ret;

	bench_events_stop(b);	/* this thread polls the port again */
	cm_chan_destroy(b);	/* its ids first: then nobody moves the QPs */
	chan_close(&b->ch);
	for (i = 0; b->qp != NULL && i < b->nqps; i++)
		if (b->qp[i] != NULL) {
			ret = roce_destroy_qp(b->qp[i]);
			if (ret != 0)
				BENCH_ERR(b, "roce_destroy_qp: %s\n",
					  strerror(-ret));
		}
	for (i = 0; i < b->nw; i++) {
		if (b->wscq[i] != NULL)
			roce_destroy_cq(b->wscq[i]);
		if (b->wrcq[i] != NULL)
			roce_destroy_cq(b->wrcq[i]);
		b->wscq[i] = b->wrcq[i] = NULL;
	}
	if (b->mr != NULL && bench_dereg_mr(b, b->mr) != 0)
		b->buf = NULL;	/* still read by queued frames: leak it */
	if (b->pd != NULL)
		roce_dealloc_pd(b->pd);
	bench_events_free(b);	/* after the CQs */
	numa_buf_free(b->buf);
	free(b->qp);
	free(b->my);
	free(b->rem);
	free(b->wr);
	free(b->sge);
	free(b->rwr);
	free(b->rsge);
	free(b->scnt);
	free(b->ccnt);
	free(b->ready);
	free(b->in_ready);
	free(b->tposted);
	free(b->tcompleted);
	b->qp = NULL;
	b->scq = b->rcq = NULL;
	b->mr = NULL;
	b->pd = NULL;
	b->buf = NULL;
}

/* ------------------------------------------------------------------ */
/* progress                                                           */
/* ------------------------------------------------------------------ */

int
bench_check_received(struct bench *b, uint64_t size)
{
	FILE *f = b->check_out != NULL ? b->check_out : b->out;
	uint32_t i;
	uint64_t k;

	for (i = 0; i < b->nqps; i++) {
		const uint8_t *a = b->buf + (uint64_t)(b->nqps + i) * b->qp_buf;

		for (k = 0; k < size; k++)
			if (a[k] != bench_check_byte(i, k)) {
				fprintf(f, "check: FAIL: QP %u (0x%06x) byte %" PRIu64 " is 0x%02x, expected 0x%02x\n",
					i, b->my[i].qpn, k, a[k],
					bench_check_byte(i, k));
				return -EIO;
			}
	}
	fprintf(f, "check: %u QP(s) x %" PRIu64 " bytes intact\n",
		b->nqps, size);
	return 0;
}

int
bench_poll(struct bench *b, bool send, struct roce_wc *wc, int max)
{
	struct roce_cq *const *cqs = send ? b->wscq : b->wrcq;
	uint32_t k, w;
	int n = 0, r;

	if (b->nw <= 1)
		return roce_poll_cq(cqs[0], wc, max);
	for (k = 0; k < b->nw && n < max; k++) {
		w = (b->poll_next + k) % b->nw;
		r = roce_poll_cq(cqs[w], wc + n, max - n);
		if (r < 0)
			return r;
		n += r;
	}
	b->poll_next = (b->poll_next + 1) % b->nw;
	return n;
}

static void
bench_refill(struct bench *b)
{
	struct roce_wc wc[BENCH_POLL_BATCH];
	int n, k;

	n = bench_poll(b, false, wc, BENCH_POLL_BATCH);
	for (k = 0; k < n; k++) {
		uint32_t i = (uint32_t)wc[k].wr_id;

		if (wc[k].status != ROCE_WC_SUCCESS) {
			bench_wc_error(b, "receive", &wc[k]);
			b->refill_recv = false;
			return;
		}
		b->recv_done++;
		if (i < b->nqps)
			bench_post_recvs(b, i, 1, b->size);
	}
}

static void
bench_stats_line(struct bench *b, uint64_t now)
{
	uint64_t s = 0, c = 0;
	uint32_t i;

	for (i = 0; i < b->nqps; i++) {
		s += b->scnt[i];
		c += b->ccnt[i];
	}
	fprintf(stderr, "[%s %s %.1fs] size %" PRIu64 " posted %" PRIu64
		" completed %" PRIu64 " received %" PRIu64 "\n",
		b->o->mode->name, b->server ? "server" : "client",
		(double)(now - b->stats_start) / (double)b->tsc_hz, b->size, s,
		c, b->recv_done);
}

void
bench_progress(void *arg)
{
	struct bench *b = arg;
	struct rte_mbuf *m[32];
	uint16_t n;

	if (b->ev == NULL)	/* -e: the poller thread runs the port */
		rte_pmd_ernic_poll(b->port_id);
	if (b->trace != NULL)
		cc_trace_tick(b->trace, b->ccnt, b->nqps, b->size);
	if (b->refill_recv)
		bench_refill(b);
	if ((++b->drain_tick & 1023) == 0) {
		/* frames for the application (not RoCE): nobody wants them */
		n = rte_eth_rx_burst(b->port_id, 0, m, RTE_DIM(m));
		if (n > 0)
			rte_pktmbuf_free_bulk(m, n);
		if (b->o->stats_period != 0) {
			uint64_t now = bench_now();

			if (b->stats_next == 0) {
				b->stats_start = now;
				b->stats_next = now + b->o->stats_period *
					b->tsc_hz;
			} else if (now >= b->stats_next) {
				bench_stats_line(b, now);
				b->stats_next += b->o->stats_period *
					b->tsc_hz;
			}
		}
	}
}

void
bench_wc_error(struct bench *b, const char *what, const struct roce_wc *wc)
{
	BENCH_ERR(b, "%s completion with error: status %d, opcode %d, vendor error %u, QP 0x%06x, wr_id 0x%" PRIx64 "\n",
		  what, wc->status, wc->opcode, wc->vendor_err, wc->qp_num,
		  wc->wr_id);
}

int
bench_wait_cq(struct bench *b, struct roce_cq *cq, struct roce_wc *wc)
{
	int n;

	for (;;) {
		n = roce_poll_cq(cq, wc, 1);
		if (n < 0) {
			BENCH_ERR(b, "roce_poll_cq: %s\n", strerror(-n));
			return n;
		}
		if (n == 1)
			return wc->status == ROCE_WC_SUCCESS ? 0 : -EIO;
		if (*b->quit)
			return -EINTR;
		if (b->ev != NULL) {
			n = bench_events_wait(b);
			if (n != 0)
				return n;
		}
		bench_progress(b);
	}
}

/* ------------------------------------------------------------------ */
/* connection sequence                                                */
/* ------------------------------------------------------------------ */

int
bench_hs(struct bench *b, uint32_t i)
{
	char mine[PERF_KEY_MSG_LEN], theirs[PERF_KEY_MSG_LEN];
	uint8_t bmine[PERF_DEST_BIN_LEN], btheirs[PERF_DEST_BIN_LEN];
	int ret;

	if (b->o->rdma_cm) {
		/* rdma_write_keys()/rdma_read_keys(): binary, big-endian */
		perf_dest_bin_format(&b->my[i], b->gid_index, bmine);
		ret = chan_xchg(&b->ch, bmine, btheirs, sizeof(bmine));
		if (ret != 0) {
			BENCH_ERR(b, "Failed to exchange data between server and clients\n");
			return ret;
		}
		if (perf_dest_bin_parse(btheirs, &b->rem[i]) != 0) {
			BENCH_ERR(b, "bad key message from the peer (QPN or PSN over 24 bits)\n");
			return -EPROTO;
		}
		return 0;
	}
	ret = perf_key_format(&b->my[i], mine);
	if (ret != 0)
		return ret;
	ret = chan_xchg(&b->ch, mine, theirs, sizeof(mine));
	if (ret != 0) {
		BENCH_ERR(b, "Failed to exchange data between server and clients\n");
		return ret;
	}
	if (perf_key_parse(theirs, &b->rem[i]) != 0) {
		BENCH_ERR(b, "Couldn't parse line <%.*s>\n",
			  (int)sizeof(theirs), theirs);
		return -EPROTO;
	}
	return 0;
}

int
bench_hs_all(struct bench *b)
{
	uint32_t i;
	int ret;

	for (i = 0; i < b->nqps; i++) {
		ret = bench_hs(b, i);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Selective repeat of the test QPs without -R (see bench_connect()). */
static bool
bench_sr(const struct app_opts *o)
{
	return !o->no_sr && (o->sr || o->loopback);
}

int
bench_connect(struct bench *b, bool rts)
{
	const struct app_opts *o = b->o;
	struct roce_qp_attr a;
	union roce_gid peer;
	uint32_t i, rd;
	int ret;

	if (b->o->rdma_cm)
		return 0;	/* the CM moved the QPs (cm_chan_connect_qps()) */
	memcpy(peer.raw, b->rem[0].gid, 16);
	ret = port_resolve(b->port_id, &peer, b->rem_mac, BENCH_RESOLVE_S,
			   bench_progress, b, b->quit);
	if (ret != 0) {
		char g[64];

		port_gid_str(&peer, g, sizeof(g));
		BENCH_ERR(b, "cannot resolve the peer's GID %s to a MAC on %s: %s\n",
			  g, b->port_name, strerror(-ret));
		return ret;
	}
	for (i = 0; i < b->nqps; i++) {
		/* ctx_modify_qp_to_rtr() */
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTR;
		memcpy(a.ah_attr.dgid.raw, b->rem[i].gid, 16);
		memcpy(a.ah_attr.dmac, b->rem_mac, 6);
		a.ah_attr.sgid_index = (uint8_t)b->gid_index;
		a.ah_attr.hop_limit = 0xff;
		a.ah_attr.sl = o->sl;
		a.ah_attr.port_num = 1;
		a.path_mtu = b->mtu_code;
		a.dest_qp_num = b->rem[i].qpn;
		a.rq_psn = b->rem[i].psn;
		a.max_dest_rd_atomic = (uint8_t)b->my[i].out_reads;
		a.min_rnr_timer = BENCH_MIN_RNR_TIMER;
		/*
		 * softernic selective repeat: --loopback (both ends are
		 * ours) unless --no_sr; over the TCP side channel only with
		 * --sr (the peer runs --sr too: perftest's exchange carries
		 * no capability, so it cannot be negotiated)
		 */
		a.selective_repeat = bench_sr(o) ? 1 : 0;
		ret = roce_modify_qp(b->qp[i], &a, ROCE_QP_STATE | ROCE_QP_AV |
				     ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				     ROCE_QP_RQ_PSN |
				     ROCE_QP_MAX_DEST_RD_ATOMIC |
				     ROCE_QP_MIN_RNR_TIMER |
				     (a.selective_repeat ?
				      ROCE_QP_SELECTIVE_REPEAT : 0));
		if (ret != 0) {
			BENCH_ERR(b, "Failed to modify QP %u to RTR: %s\n",
				  b->my[i].qpn, strerror(-ret));
			return ret;
		}
		if (!rts)
			continue;
		/* ctx_modify_qp_to_rts() */
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = b->my[i].psn;
		a.timeout = o->qp_timeout;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = 7;
		rd = b->rem[i].out_reads;
		if (rd < 1)
			rd = 1;
		if (rd > APP_MAX_OUT_READS)
			rd = APP_MAX_OUT_READS;
		a.max_rd_atomic = (uint8_t)rd;
		ret = roce_modify_qp(b->qp[i], &a, ROCE_QP_STATE |
				     ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
				     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				     ROCE_QP_MAX_QP_RD_ATOMIC);
		if (ret != 0) {
			BENCH_ERR(b, "Failed to modify QP to RTS: %s\n",
				  strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int
bench_print_dests_hs(struct bench *b)
{
	uint32_t i;
	int ret;

	for (i = 0; i < b->nqps; i++)
		report_dest(b->out, b->o, false, &b->my[i]);
	for (i = 0; i < b->nqps; i++) {
		ret = bench_hs(b, i);
		if (ret != 0)
			return ret;
		report_dest(b->out, b->o, true, &b->rem[i]);
	}
	return 0;
}

int
bench_xchg_report(struct bench *b, const struct perf_bw_report *mine,
		  struct perf_bw_report *theirs)
{
	uint8_t out[8], in[8];
	unsigned int k;
	int ret;

	memset(theirs, 0, sizeof(*theirs));
	for (k = 0; k < PERF_REPORT_FIELDS; k++) {
		perf_report_field_format(mine, k, out);
		ret = chan_xchg(&b->ch, out, in, sizeof(out));
		if (ret != 0) {
			BENCH_ERR(b, "Failed to exchange data between server and clients\n");
			return ret;
		}
		perf_report_field_parse(theirs, k, in);
	}
	return 0;
}

int
bench_close(struct bench *b)
{
	char done[PERF_DONE_LEN];
	struct pollfd p;
	int ret;

	ret = bench_hs(b, 0);
	if (ret != 0)
		return ret;
	if (b->o->rdma_cm)
		return cm_chan_close(b);	/* no "done" with rdma_cm */
	ret = chan_write(&b->ch, "done", PERF_DONE_LEN);
	if (ret != 0)
		return ret;
	/* take the peer's "done" before closing so that no RST is sent */
	p.fd = b->ch.fd;
	p.events = POLLIN;
	if (poll(&p, 1, 1000) > 0)
		(void)recv(b->ch.fd, done, sizeof(done), MSG_DONTWAIT);
	chan_close(&b->ch);
	return 0;
}

int
bench_dereg_mr(struct bench *b, struct roce_mr *mr)
{
	uint64_t end = bench_now() + 2 * rte_get_tsc_hz();
	int ret;

	/* the port frees the frames it sent (the peer's RX, on a ring) */
	while ((ret = roce_dereg_mr(mr)) == -EBUSY && bench_now() < end)
		rte_pmd_ernic_poll(b->port_id);
	if (ret != 0)
		BENCH_ERR(b, "roce_dereg_mr: %s%s\n", strerror(-ret),
			  ret == -EBUSY ? " (zero-copy frames still queued: the buffer is not freed)" : "");
	return ret;
}

int
bench_post_recvs(struct bench *b, uint32_t i, uint32_t n, uint64_t size)
{
	unsigned int posted;
	int ret;

	b->rsge[i].addr = (uintptr_t)(b->buf + (b->nqps + i) * b->qp_buf);
	b->rsge[i].length = (uint32_t)size;
	b->rsge[i].lkey = roce_mr_lkey(b->mr);
	b->rwr[i].wr_id = i;
	b->rwr[i].sg_list = &b->rsge[i];
	b->rwr[i].num_sge = 1;
	while (n-- > 0) {
		ret = roce_post_recv(b->qp[i], &b->rwr[i], 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "Couldn't post receive on QP 0x%06x: %s\n",
				  b->my[i].qpn, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* output                                                             */
/* ------------------------------------------------------------------ */

void
bench_print_bw(struct bench *b, const struct perf_bw_report *r)
{
	char line[512];

	if (b->o->json)
		report_json_bw(line, sizeof(line), b->o->mode->name, b->nqps,
			       r, b->o->report_gbits);
	else
		report_bw_row(line, sizeof(line), r, b->o->report_gbits);
	fputs(line, b->out);
	fflush(b->out);
}

void
bench_print_lat(struct bench *b, uint64_t iters, unsigned int rtt_factor)
{
	struct lat_stats st;
	char line[512];
	uint64_t i, n;

	if (b->o->duration != 0) {
		double us = (double)(b->tcompleted[0] - b->tposted[0]) * 1e6 /
			(double)b->tsc_hz;

		/* print_report_lat_duration() */
		report_lat_dur_row(line, sizeof(line), b->size, iters,
				   iters ? us / rtt_factor / (double)iters : 0,
				   us > 0 ? (double)iters / (us / 1e6) : 0);
		fputs(line, b->out);
		fflush(b->out);
		return;
	}
	/* delta[i] = tposted[i + 1] - tposted[i], in place */
	n = iters - 1;
	for (i = 0; i < n; i++)
		b->tposted[i] = b->tposted[i + 1] - b->tposted[i];
	if (report_lat_compute(b->tposted, n, b->tsc_hz, rtt_factor, &st) != 0)
		memset(&st, 0, sizeof(st));
	if (b->o->json)
		report_json_lat(line, sizeof(line), b->o->mode->name, b->size,
				iters, &st);
	else
		report_lat_row(line, sizeof(line), b->size, iters, &st);
	fputs(line, b->out);
	fflush(b->out);
}

bool
bench_lat_time_up(const struct bench *b, uint64_t start)
{
	return b->o->duration != 0 &&
		bench_now() - start >= b->o->duration * b->tsc_hz;
}

uint64_t
bench_first_size(const struct bench *b)
{
	return b->o->all ? 2 : b->o->size;
}

bool
bench_next_size(const struct bench *b, uint64_t *size)
{
	if (!b->o->all || *size >= APP_MAX_SIZE_ALL)
		return false;
	*size <<= 1;
	return true;
}

/* ------------------------------------------------------------------ */
/* bandwidth loops                                                    */
/* ------------------------------------------------------------------ */

enum dur_state { DUR_START, DUR_SAMPLE, DUR_STOP, DUR_END };

struct dur {
	enum dur_state st;
	uint64_t t_sample, t_stop, t_end;
};

static void
dur_init(struct bench *b, struct dur *d, uint64_t now)
{
	uint64_t hz = b->tsc_hz;

	d->st = b->o->margin > 0 ? DUR_START : DUR_SAMPLE;
	d->t_sample = now + b->o->margin * hz;
	d->t_stop = now + (b->o->duration - b->o->margin) * hz;
	d->t_end = now + b->o->duration * hz;
	if (d->st == DUR_SAMPLE)
		b->tposted[0] = now;
}

/* catch_alarm(): START -> SAMPLE -> STOP_SAMPLE -> END */
static void
dur_tick(struct bench *b, struct dur *d, uint64_t now)
{
	if (d->st == DUR_START && now >= d->t_sample) {
		d->st = DUR_SAMPLE;
		b->tposted[0] = now;
	}
	if (d->st == DUR_SAMPLE && now >= d->t_stop) {
		d->st = DUR_STOP;
		b->tcompleted[0] = now;
	}
	if (d->st == DUR_STOP && now >= d->t_end)
		d->st = DUR_END;
}

static int
bw_post(struct bench *b, uint32_t i, uint64_t iters, bool duration)
{
	const struct app_opts *o = b->o;
	struct roce_send_wr wrs[64];
	uint32_t pl = o->post_list, k, done = 0;
	unsigned int posted;
	uint64_t seq;
	int ret;

	while (done < pl) {
		uint32_t n = RTE_MIN(pl - done, (uint32_t)RTE_DIM(wrs));
		/*
		 * One completion for every cq_mod WRs (seq + 1 a multiple of
		 * it), and the last: WRs up to the next signalled one, one
		 * divide a list rather than one a WR.
		 */
		uint64_t to_sig = o->cq_mod -
			(b->scnt[i] + done) % o->cq_mod;

		for (k = 0; k < n; k++) {
			seq = b->scnt[i] + done + k;
			wrs[k] = b->wr[i];
			if (k + 1 == to_sig ||
			    (!duration && seq == iters - 1))
				wrs[k].send_flags |= ROCE_SEND_SIGNALED;
			else
				wrs[k].send_flags &= ~ROCE_SEND_SIGNALED;
			if (k + 1 == to_sig)
				to_sig += o->cq_mod;
			wrs[k].wr_id = (uint64_t)i << WRID_QP_SHIFT | (seq + 1);
		}
		ret = roce_post_send(b->qp[i], wrs, n, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "Couldn't post send: qp %u scnt=%" PRIu64 ": %s\n",
				  i, b->scnt[i], strerror(-ret));
			return ret;
		}
		done += n;
	}
	b->scnt[i] += pl;
	return 0;
}

int
bench_bw_client_iter(struct bench *b, struct perf_bw_report *r)
{
	const struct app_opts *o = b->o;
	bool duration = o->duration != 0, no_peak = o->no_peak || duration;
	uint64_t iters = duration ? UINT64_MAX : o->iters;
	uint64_t tot = duration ? 0 : iters * b->nqps;
	uint64_t totscnt = 0, totccnt = 0, counted = 0, now, prev;
	struct roce_wc wc[BENCH_POLL_BATCH];
	struct bw_samples s;
	struct dur d;
	uint32_t i, j, nready;
	int n, k, ret;

	memset(&d, 0, sizeof(d));
	memset(b->scnt, 0, b->nqps * sizeof(*b->scnt));
	memset(b->ccnt, 0, b->nqps * sizeof(*b->ccnt));
	/*
	 * perftest visits every QP before each CQ poll; only a completion
	 * gives a QP room, so the QPs visited are those completions named
	 * since the last visit (every QP the first time). Same posts, in
	 * completion order, and the client's cost a poll no longer grows
	 * with the QP count (16384 QPs at -t 8: a scan of all of them for
	 * every 16 completions).
	 */
	for (i = 0; i < b->nqps; i++) {
		b->ready[i] = i;
		b->in_ready[i] = 1;
	}
	nready = b->nqps;
	now = bench_now();
	if (duration)
		dur_init(b, &d, now);
	else if (no_peak)
		b->tposted[0] = now;

	while (duration ? d.st != DUR_END : (totscnt < tot || totccnt < tot)) {
		if (*b->quit)
			return -EINTR;
		for (j = 0; j < nready; j++) {
			i = b->ready[j];
			b->in_ready[i] = 0;
			while ((duration || b->scnt[i] < iters) &&
			       b->scnt[i] - b->ccnt[i] + o->post_list <=
			       o->tx_depth) {
				if (duration && d.st == DUR_END)
					break;
				if (!no_peak)
					b->tposted[totscnt] = bench_now();
				ret = bw_post(b, i, iters, duration);
				if (ret != 0)
					return ret;
				totscnt += o->post_list;
			}
		}
		nready = 0;
		bench_progress(b);
		n = bench_poll(b, true, wc, BENCH_POLL_BATCH);
		if (n < 0) {
			BENCH_ERR(b, "poll CQ failed %d\n", n);
			return n;
		}
		/* -e: every QP is full or done (the loop above posted) */
		if (n == 0 && b->ev != NULL) {
			ret = bench_events_wait(b);
			if (ret != 0)
				return ret;
		}
		now = n > 0 || duration ? bench_now() : 0;
		for (k = 0; k < n; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS) {
				bench_wc_error(b, "send", &wc[k]);
				return -EIO;
			}
			i = (uint32_t)(wc[k].wr_id >> WRID_QP_SHIFT);
			prev = b->ccnt[i];
			b->ccnt[i] = wc[k].wr_id & WRID_CNT_MASK;
			totccnt += b->ccnt[i] - prev;
			if (!b->in_ready[i]) {
				b->in_ready[i] = 1;
				b->ready[nready++] = i;
			}
			if (!no_peak)
				b->tcompleted[RTE_MIN(totccnt, tot) - 1] = now;
			if (duration && d.st == DUR_SAMPLE)
				counted += b->ccnt[i] - prev;
		}
		if (duration)
			dur_tick(b, &d, now);
	}
	if (!duration && no_peak)
		b->tcompleted[0] = bench_now();
	memset(&s, 0, sizeof(s));
	s.tposted = b->tposted;
	s.tcompleted = b->tcompleted;
	s.n = duration ? counted : tot;
	s.size = b->size;
	s.cq_mod = o->cq_mod;
	s.post_list = o->post_list;
	s.no_peak = no_peak;
	s.tsc_hz = b->tsc_hz;
	report_bw_compute(&s, o->report_gbits, r);
	/*
	 * Duration: complete everything posted, so that the next run starts
	 * with empty queues: pad each QP up to a signaled WR (every cq_mod-th
	 * is signaled) and wait for its completion.
	 */
	for (i = 0; duration && i < b->nqps; i++) {
		while (b->ccnt[i] < b->scnt[i]) {
			if (*b->quit)
				return -EINTR;
			if (b->scnt[i] % o->cq_mod != 0 &&
			    b->scnt[i] - b->ccnt[i] < o->tx_depth) {
				ret = bw_post(b, i, iters, true);
				if (ret != 0)
					return ret;
			}
			bench_progress(b);
			n = bench_poll(b, true, wc, BENCH_POLL_BATCH);
			for (k = 0; k < n; k++) {
				uint32_t q = (uint32_t)(wc[k].wr_id >>
							WRID_QP_SHIFT);

				if (wc[k].status != ROCE_WC_SUCCESS) {
					bench_wc_error(b, "send", &wc[k]);
					return -EIO;
				}
				b->ccnt[q] = wc[k].wr_id & WRID_CNT_MASK;
			}
		}
	}
	return 0;
}

int
bench_bw_server_iter(struct bench *b, struct perf_bw_report *r)
{
	const struct app_opts *o = b->o;
	bool duration = o->duration != 0;
	uint64_t tot = o->iters * b->nqps, rcnt = 0, counted = 0, now;
	uint64_t *posted = b->scnt;	/* receives posted per QP */
	struct roce_wc wc[BENCH_POLL_BATCH];
	struct bw_samples s;
	bool first = true;
	struct dur d;
	uint32_t i, drained = 0;
	bool full = false;
	int n, k, ret;

	for (i = 0; i < b->nqps; i++)
		posted[i] = o->rx_depth;
	memset(&d, 0, sizeof(d));
	d.st = DUR_START;
	while (duration ? d.st != DUR_END : rcnt < tot) {
		if (*b->quit)
			return -EINTR;
		/*
		 * The port runs inline here: one poll can complete up to
		 * BENCH_SERVER_DRAIN receives (a 32-frame RX burst and the
		 * hand-over ring). Poll the CQ again while batches come back
		 * full, or the reposts fall behind the receives and the RQs
		 * run dry (RNR NAKs, each costing the QP's window: 64-QP
		 * send_bw resent 40 % of its packets). A NIC polls on its own;
		 * perftest's single 16-entry poll is enough there.
		 */
		if (!full || drained >= BENCH_SERVER_DRAIN) {
			bench_progress(b);
			drained = 0;
		}
		n = bench_poll(b, false, wc, BENCH_POLL_BATCH);
		full = n == BENCH_POLL_BATCH;
		if (full)
			drained += (uint32_t)n;
		if (n < 0) {
			BENCH_ERR(b, "Poll Receive CQ failed %d\n", n);
			return n;
		}
		if (n == 0 && b->ev != NULL) {
			ret = bench_events_wait(b);
			if (ret != 0)
				return ret;
		}
		now = bench_now();
		if (n > 0 && first) {
			/* set_on_first_rx_packet() */
			first = false;
			if (duration)
				dur_init(b, &d, now);
			else
				b->tposted[0] = now;
		}
		for (k = 0; k < n; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS) {
				bench_wc_error(b, "receive", &wc[k]);
				return -EIO;
			}
			i = (uint32_t)wc[k].wr_id;
			rcnt++;
			b->recv_done++;
			if (duration && d.st == DUR_SAMPLE)
				counted++;
			if (duration || posted[i] + 1 <= o->iters) {
				ret = bench_post_recvs(b, i, 1, b->size);
				if (ret != 0)
					return ret;
				posted[i]++;
			}
		}
		if (duration && !first)
			dur_tick(b, &d, now);
	}
	/*
	 * Duration: this side's clock ends on its own, but the sender may
	 * still have SENDs in flight and pads each QP up to a signaled WR
	 * (bench_bw_client_iter()). Keep the receives posted until the
	 * closing handshake, or its last SENDs meet an empty receive queue
	 * and the RNR retries (rnr_retry 7: for ever) never end.
	 */
	if (duration)
		b->refill_recv = true;
	if (!duration)
		b->tcompleted[0] = bench_now();
	memset(&s, 0, sizeof(s));
	s.tposted = b->tposted;
	s.tcompleted = b->tcompleted;
	s.n = duration ? counted : tot;
	s.size = b->size;
	s.cq_mod = 1;
	s.post_list = 1;
	s.no_peak = true;
	s.tsc_hz = b->tsc_hz;
	report_bw_compute(&s, o->report_gbits, r);
	return 0;
}

/* ------------------------------------------------------------------ */
/* write_bw / read_bw / atomic_bw (perftest write_bw.c main())        */
/* ------------------------------------------------------------------ */

static int
rdma_bw_run_size(struct bench *b, uint64_t size, struct perf_bw_report *mine)
{
	struct perf_bw_report theirs, sum;
	uint32_t i;
	int ret;

	b->size = size;
	for (i = 0; i < b->nqps; i++)
		b->mode->setup_wr(b, i, size);
	if (b->o->bidir) {
		ret = bench_hs(b, 0);
		if (ret != 0)
			return ret;
	}
	ret = bench_bw_client_iter(b, mine);
	if (ret != 0)
		return ret;
	if (b->o->bidir && b->o->all) {
		ret = bench_hs(b, 0);
		if (ret != 0)
			return ret;
	}
	if (!b->o->bidir) {
		bench_print_bw(b, mine);
		return 0;
	}
	ret = bench_xchg_report(b, mine, &theirs);
	if (ret != 0)
		return ret;
	/* print_full_bw_report() with the remote report: the sum */
	sum = *mine;
	sum.bw_peak += theirs.bw_peak;
	sum.bw_avg += theirs.bw_avg;
	sum.msg_rate += theirs.msg_rate;
	bench_print_bw(b, &sum);
	return 0;
}

static int
rdma_bw_infinite(struct bench *b, struct perf_bw_report *mine)
{
	uint32_t i;
	int ret;

	b->size = b->o->size;
	for (i = 0; i < b->nqps; i++)
		b->mode->setup_wr(b, i, b->size);
	/* run_iter_bw_infinitely(): a result every duration, until stopped */
	while (!*b->quit) {
		ret = bench_bw_client_iter(b, mine);
		if (ret == -EINTR)
			break;
		if (ret != 0)
			return ret;
		bench_print_bw(b, mine);
	}
	return 0;
}

static int
rdma_bw_traffic(struct bench *b, struct perf_bw_report *last)
{
	uint64_t size = bench_first_size(b);
	int ret;

	if (b->o->run_infinitely)
		return rdma_bw_infinite(b, last);
	do {
		ret = rdma_bw_run_size(b, size, last);
		if (ret != 0)
			return ret;
	} while (bench_next_size(b, &size));
	return 0;
}

int
bench_rdma_bw_client(struct bench *b)
{
	struct perf_bw_report last, theirs;
	int ret;

	memset(&last, 0, sizeof(last));
	ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, true);
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	/* "An additional handshake is required after moving qp to RTR." */
	if (ret == 0)
		ret = bench_hs(b, 0);
	if (ret != 0)
		return ret;
	report_bw_title(b->out, b->o->report_gbits);
	ret = rdma_bw_traffic(b, &last);
	if (ret != 0)
		return ret;
	fputs(REPORT_LINE, b->out);
	if (!b->o->bidir) {
		/* the half-duplex server waits for this and prints our report */
		ret = bench_hs(b, 0);
		if (ret == 0)
			ret = bench_xchg_report(b, &last, &theirs);
		if (ret != 0)
			return ret;
	}
	return bench_close(b);
}

int
bench_rdma_bw_server(struct bench *b)
{
	struct perf_bw_report mine, theirs;
	char line[512];
	uint32_t i;
	int ret;

	ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, b->o->bidir);
	if (ret == 0 && b->o->write_with_imm) {
		/* every RDMA WRITE with immediate consumes a receive */
		b->size = 0;
		for (i = 0; i < b->nqps && ret == 0; i++)
			ret = bench_post_recvs(b, i, b->o->rx_depth, 0);
		b->refill_recv = true;
	}
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	if (ret == 0)
		ret = bench_hs(b, 0);
	if (ret != 0)
		return ret;
	report_bw_title(b->out, b->o->report_gbits);
	if (b->o->bidir) {
		memset(&mine, 0, sizeof(mine));
		ret = rdma_bw_traffic(b, &mine);
		if (ret != 0)
			return ret;
		fputs(REPORT_LINE, b->out);
		return bench_close(b);
	}
	/* "For half duplex tests, server just waits for client to exit" */
	memset(&mine, 0, sizeof(mine));
	ret = bench_hs(b, 0);
	if (ret == 0)
		ret = bench_xchg_report(b, &mine, &theirs);
	if (ret != 0)
		return ret;
	b->size = theirs.size;
	if (b->o->json)
		report_json_bw(line, sizeof(line), b->o->mode->name, b->nqps,
			       &theirs, b->o->report_gbits);
	else
		report_bw_row(line, sizeof(line), &theirs,
			      b->o->report_gbits);
	fputs(line, b->out);
	/* the client's last message of each QP, WRITEs all done */
	if (b->o->check && b->mode->opcode == ROCE_WR_RDMA_WRITE &&
	    bench_check_received(b, theirs.size) != 0)
		ret = -EIO;
	if (ret != 0) {
		bench_close(b);
		return ret;
	}
	ret = bench_close(b);
	fputs(REPORT_LINE, b->out);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the session                                                        */
/* ------------------------------------------------------------------ */

/* exchange_versions(), check_sys_data(), check_mtu() */
static int
bench_prefix(struct bench *b)
{
	char ver[PERF_VERSION_LEN], mtu[PERF_MTU_MSG_LEN], rmtu[PERF_MTU_MSG_LEN];
	uint8_t v[4], rv[4];
	unsigned int cur;
	int ret, rem;

	perf_version_format(PERF_VERSION, ver);
	ret = chan_xchg(&b->ch, ver, b->rem_version, sizeof(ver));
	if (ret != 0)
		return ret;
	if (!perf_version_ok(b->rem_version)) {
		BENCH_ERR(b, "Current implementation is not compatible with versions older than 5.70 (peer: \"%.*s\")\n",
			  PERF_VERSION_LEN, b->rem_version);
		return -EPROTO;
	}
	perf_be32_format(PERF_CYCLE_BUFFER, v);
	ret = chan_xchg(&b->ch, v, rv, 4);
	if (ret != 0)
		return ret;
	perf_be32_format(PERF_CACHE_LINE, v);
	ret = chan_xchg(&b->ch, v, rv, 4);
	if (ret != 0)
		return ret;
	cur = b->o->mtu != 0 ? (unsigned int)rte_log2_u32(b->o->mtu) - 7 :
		b->port_mtu_code;
	perf_mtu_format(cur, mtu);
	ret = chan_xchg(&b->ch, mtu, rmtu, sizeof(mtu));
	if (ret != 0)
		return ret;
	rem = perf_mtu_parse(rmtu);
	/* "the smaller of the two" (a bad remote value is ignored) */
	b->mtu_code = rem > 0 && (unsigned int)rem < cur ? (unsigned int)rem :
		cur;
	return 0;
}

static int
bench_open_channel(struct bench *b)
{
	int ret;

	/* -e: the poller runs the port, side-channel waits may sleep */
	b->ch.progress = b->ev != NULL ? NULL : bench_progress;
	b->ch.arg = b;
	b->ch.quit = b->quit;
	if (b->o->rdma_cm) {
		if (b->server && !b->quiet) {
			fprintf(b->out, "\n************************************\n");
			fprintf(b->out, "* Waiting for client to connect... *\n");
			fprintf(b->out, "************************************\n");
			fflush(b->out);
		}
		return cm_chan_open(b, 30);
	}
	if (b->o->loopback)
		return 0;	/* the pair is made by the caller */
	if (!b->server)
		return chan_connect(&b->ch, b->o->server, b->o->port, 10);
	if (b->o->mode->kind != APP_KIND_PINGPONG) {
		fprintf(b->out, "\n************************************\n");
		fprintf(b->out, "* Waiting for client to connect... *\n");
		fprintf(b->out, "************************************\n");
		fflush(b->out);
	}
	ret = chan_accept(&b->ch, b->o->port);
	return ret;
}

int
bench_run(struct bench *b)
{
	struct report_ctx rc;
	int ret;

	if (b->o->events && b->ev == NULL) {
		/* here: the poller inherits this thread's CPUs */
		ret = bench_events_start(b);
		if (ret != 0)
			return ret;
	}
	ret = bench_open_channel(b);
	if (ret != 0)
		return ret;
	if (b->mode->kind != APP_KIND_PINGPONG) {
		ret = bench_prefix(b);
		/* create_rdma_cm_connection(): after check_mtu() */
		if (ret == 0 && b->o->rdma_cm)
			ret = cm_chan_connect_qps(b);
		if (ret != 0)
			return ret;
		memset(&rc, 0, sizeof(rc));
		rc.device = b->port_name;
		rc.mtu_bytes = roce_mtu_bytes(b->mtu_code);
		rc.gid_index = b->gid_index;
		rc.out_reads = b->out_reads;
		rc.server = b->server;
		report_header(b->out, b->o, &rc);
	}
	ret = b->server ? b->mode->run_server(b) : b->mode->run_client(b);
	/* -R: DREQ/DREP and timewait even when the mode ended without
	 * bench_close() (write_lat, as perftest: the peer disconnects) */
	if (ret == 0 && b->cm != NULL)
		ret = cm_chan_close(b);
	fflush(b->out);
	return ret;
}

/* ------------------------------------------------------------------ */
/* mode table                                                         */
/* ------------------------------------------------------------------ */

extern const struct ernic_mode ernic_mode_write_bw;
extern const struct ernic_mode ernic_mode_read_bw;
extern const struct ernic_mode ernic_mode_send_bw;
extern const struct ernic_mode ernic_mode_atomic_bw;
extern const struct ernic_mode ernic_mode_write_lat;
extern const struct ernic_mode ernic_mode_read_lat;
extern const struct ernic_mode ernic_mode_send_lat;
extern const struct ernic_mode ernic_mode_pingpong;
extern const struct ernic_mode ernic_mode_integrity;

static const struct ernic_mode *const ernic_modes[] = {
	&ernic_mode_write_bw,
	&ernic_mode_read_bw,
	&ernic_mode_send_bw,
	&ernic_mode_atomic_bw,
	&ernic_mode_write_lat,
	&ernic_mode_read_lat,
	&ernic_mode_send_lat,
	&ernic_mode_pingpong,
	&ernic_mode_integrity,
	NULL,
};

const struct ernic_mode *
ernic_mode_find(const char *name)
{
	unsigned int i;

	for (i = 0; ernic_modes[i] != NULL; i++)
		if (strcmp(ernic_modes[i]->name, name) == 0)
			return ernic_modes[i];
	return NULL;
}
