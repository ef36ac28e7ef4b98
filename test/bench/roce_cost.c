/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce-cost: CPU cost of the transport per message and per packet, without
 * timing noise.
 *
 * Two libroce devices joined by the in-process fake link (test/unit/
 * fake_link.h), driven by one thread with a simulated clock: a perftest-like
 * loop posts RC WRITE, SEND or READ messages (post lists, one signaled WR
 * every --cq-mod), steps the link and polls the CQs. After --warmup
 * messages the measured phase runs --msgs more. Under valgrind's callgrind
 * only the measured phase is collected (start it with --collect-atstart=no):
 * callgrind's "Collected" total divided by the messages or packets printed
 * here is the instruction cost, the same on every run of the same code
 * (devtools/bench.sh does that). Outside valgrind it prints TSC cycles per
 * message instead, which are noisy on a shared machine.
 *
 * The cost covers both ends (requester, responder, completer, the worker
 * loops, mbuf alloc/free, the ICRC on TX and RX, the copy into the target
 * buffer) and the fake link's hand-over of the frame (a few dozen
 * instructions per frame, like a ring enqueue/dequeue).
 *
 * Output: one JSON object on stdout; exit status 0, or 1 when the data did
 * not arrive intact or the run failed, 2 on a bad option.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <valgrind/callgrind.h>

#include "bench_opt.h"
#include "fake_link.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "test_common.h"

#define COST_MAX_QPS 64		/* the fake link's devices have 64 QPs */
#define COST_REGION_MAX (4u << 20)
#define COST_CQ_DEPTH 4096
#define COST_MAX_ITERS 200000000L

enum cost_op { COST_WRITE, COST_SEND, COST_READ };

struct cost_opts {
	enum cost_op op;
	uint32_t size;
	uint32_t qps;
	uint32_t msgs;
	uint32_t warmup;
	uint32_t depth;		/**< outstanding WRs per QP */
	uint32_t post_list;	/**< WRs per roce_post_send() call */
	uint32_t cq_mod;	/**< one signaled WR every cq_mod */
	enum roce_mtu mtu;
	bool zero_copy;
};

struct cost_qp {
	struct roce_qp *qp[2];
	uint64_t posted;	/**< send WRs posted on side 0 */
	uint64_t completed;	/**< send WRs known complete */
	uint64_t recv_posted;	/**< receives posted on side 1 (SEND) */
};

struct cost_env {
	struct cost_opts o;
	struct fake_link *l;
	struct roce_cq *cq[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	uint32_t slots;		/**< message slots in a region */
	uint32_t region;
	struct cost_qp q[COST_MAX_QPS];
	uint64_t errors;
};

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--op write|send|read] [--size BYTES] [--qps N (1..%d)]\n"
		"          [--msgs N] [--warmup N] [--depth N] [--post-list N]\n"
		"          [--cq-mod N] [--mtu 256|512|1024|2048|4096] [--zero-copy]\n",
		prog, COST_MAX_QPS);
}

static int
parse_opts(int argc, char **argv, struct cost_opts *o)
{
	static const struct option lo[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "qps", required_argument, NULL, 'q' },
		{ "msgs", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "depth", required_argument, NULL, 't' },
		{ "post-list", required_argument, NULL, 'l' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "zero-copy", no_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char tool[] = "roce-cost";
	uint32_t mtu = 4096;
	int c;

	o->op = COST_WRITE;
	o->size = 4096;
	o->qps = 1;
	o->msgs = 10000;
	o->warmup = 1000;
	o->depth = 128;
	o->post_list = 1;
	o->cq_mod = 64;
	o->zero_copy = false;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		int r = 0;

		switch (c) {
		case 'o':
			if (strcmp(optarg, "write") == 0)
				o->op = COST_WRITE;
			else if (strcmp(optarg, "send") == 0)
				o->op = COST_SEND;
			else if (strcmp(optarg, "read") == 0)
				o->op = COST_READ;
			else {
				fprintf(stderr, "roce-cost: bad --op '%s': expected write, send or read\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			r = bench_opt_u32(tool, "--size", optarg, 1, 1u << 20,
					  &o->size);
			break;
		case 'q':
			r = bench_opt_u32(tool, "--qps", optarg, 1,
					  COST_MAX_QPS, &o->qps);
			break;
		case 'n':
			r = bench_opt_u32(tool, "--msgs", optarg, 1, 100000000,
					  &o->msgs);
			break;
		case 'w':
			r = bench_opt_u32(tool, "--warmup", optarg, 0,
					  100000000, &o->warmup);
			break;
		case 't':
			r = bench_opt_u32(tool, "--depth", optarg, 1, 1024,
					  &o->depth);
			break;
		case 'l':
			r = bench_opt_u32(tool, "--post-list", optarg, 1, 64,
					  &o->post_list);
			break;
		case 'Q':
			r = bench_opt_u32(tool, "--cq-mod", optarg, 1, 1024,
					  &o->cq_mod);
			break;
		case 'm':
			r = bench_opt_u32(tool, "--mtu", optarg, 256, 4096,
					  &mtu);
			break;
		case 'z':
			o->zero_copy = true;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -1;
		}
		if (r != 0)
			return -1;
	}
	if (optind != argc) {
		fprintf(stderr, "roce-cost: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	switch (mtu) {
	case 256: o->mtu = ROCE_MTU_256; break;
	case 512: o->mtu = ROCE_MTU_512; break;
	case 1024: o->mtu = ROCE_MTU_1024; break;
	case 2048: o->mtu = ROCE_MTU_2048; break;
	case 4096: o->mtu = ROCE_MTU_4096; break;
	default:
		fprintf(stderr, "roce-cost: bad --mtu %u: expected 256, 512, 1024, 2048 or 4096\n",
			mtu);
		return -1;
	}
	if (o->depth < o->post_list) {
		fprintf(stderr, "roce-cost: --depth %u is below --post-list %u\n",
			o->depth, o->post_list);
		return -1;
	}
	if (o->cq_mod > o->depth)
		o->cq_mod = o->depth;	/* as perftest: a signal per window */
	return 0;
}

static uint32_t
mtu_bytes(enum roce_mtu m)
{
	return 128u << m;	/* ROCE_MTU_256 == 1 */
}

static int
env_create(struct cost_env *e)
{
	struct roce_qp_init_attr ia;
	struct fake_conn_opts co;
	uint32_t i;
	int s;

	e->l = fake_link_create(1, false);
	if (e->l == NULL)
		return -1;
	e->slots = RTE_MIN(e->o.depth, COST_REGION_MAX / e->o.size);
	if (e->slots == 0)
		e->slots = 1;
	e->region = e->slots * e->o.size;
	for (s = 0; s < 2; s++) {
		struct roce_device *dev = e->l->ep[s].dev;

		dev->cfg.zero_copy_tx = e->o.zero_copy;
		e->cq[s] = roce_create_cq(e->l->ep[s].w, COST_CQ_DEPTH);
		e->buf[s] = aligned_alloc(4096, RTE_ALIGN_CEIL(e->region, 4096));
		if (e->cq[s] == NULL || e->buf[s] == NULL)
			return -1;
		for (i = 0; i < e->region; i++)
			e->buf[s][i] = (uint8_t)(s == 0 ? i * 7 + 1 : 0);
		e->mr[s] = roce_reg_mr(e->l->ep[s].pd, e->buf[s], e->region,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE |
				       ROCE_ACCESS_REMOTE_READ);
		if (e->mr[s] == NULL)
			return -1;
	}
	fake_conn_opts_default(&co);
	co.mtu = e->o.mtu;
	for (i = 0; i < e->o.qps; i++) {
		for (s = 0; s < 2; s++) {
			memset(&ia, 0, sizeof(ia));
			ia.qp_type = ROCE_QPT_RC;
			ia.send_cq = e->cq[s];
			ia.recv_cq = e->cq[s];
			ia.cap.max_send_wr = e->o.depth;
			ia.cap.max_recv_wr = e->o.depth;
			ia.cap.max_send_sge = 1;
			ia.cap.max_recv_sge = 1;
			e->q[i].qp[s] = roce_create_qp(e->l->ep[s].pd, &ia);
			if (e->q[i].qp[s] == NULL)
				return -1;
		}
		if (fake_link_connect(e->l, e->q[i].qp[0], e->q[i].qp[1],
				      &co) != 0)
			return -1;
	}
	return 0;
}

static void
env_destroy(struct cost_env *e)
{
	uint32_t i;
	int s;

	if (e->l == NULL)
		return;
	fake_link_settle(e->l, 1000000);
	for (i = 0; i < e->o.qps; i++)
		for (s = 0; s < 2; s++)
			if (e->q[i].qp[s] != NULL)
				roce_destroy_qp(e->q[i].qp[s]);
	for (s = 0; s < 2; s++) {
		if (e->mr[s] != NULL)
			roce_dereg_mr(e->mr[s]);
		free(e->buf[s]);
		if (e->cq[s] != NULL)
			roce_destroy_cq(e->cq[s]);
	}
	fake_link_destroy(e->l);
}

/* SEND: keep side 1's receive queue full. */
static int
post_recvs(struct cost_env *e, struct cost_qp *q, uint64_t recv_done)
{
	struct roce_sge sge;
	struct roce_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	unsigned int n;

	while (q->recv_posted - recv_done < e->o.depth) {
		uint32_t slot = (uint32_t)(q->recv_posted % e->slots);

		sge.addr = (uintptr_t)e->buf[1] + (uint64_t)slot * e->o.size;
		sge.length = e->o.size;
		sge.lkey = roce_mr_lkey(e->mr[1]);
		wr.wr_id = q->recv_posted;
		if (roce_post_recv(q->qp[1], &wr, 1, &n) != 0)
			return -1;
		q->recv_posted++;
	}
	return 0;
}

/* Post lists of post_list WRs on every QP while the window has room. */
static int
post_sends(struct cost_env *e, uint64_t limit)
{
	struct roce_send_wr wr[64];
	struct roce_sge sge[64];
	uint32_t i, k;

	for (i = 0; i < e->o.qps; i++) {
		struct cost_qp *q = &e->q[i];

		while (q->posted < limit &&
		       q->posted - q->completed + e->o.post_list <=
		       e->o.depth) {
			uint32_t n = (uint32_t)RTE_MIN((uint64_t)e->o.post_list,
						       limit - q->posted);
			unsigned int done;

			for (k = 0; k < n; k++) {
				uint64_t seq = q->posted + k;
				uint32_t slot = (uint32_t)(seq % e->slots);
				uint64_t off = (uint64_t)slot * e->o.size;
				memset(&wr[k], 0, sizeof(wr[k]));
				/* the local end: WRITE/SEND source, READ target */
				sge[k].addr = (uintptr_t)e->buf[0] + off;
				sge[k].length = e->o.size;
				sge[k].lkey = roce_mr_lkey(e->mr[0]);
				wr[k].wr_id = seq;
				wr[k].sg_list = &sge[k];
				wr[k].num_sge = 1;
				wr[k].opcode = e->o.op == COST_WRITE ?
					ROCE_WR_RDMA_WRITE : e->o.op == COST_SEND ?
					ROCE_WR_SEND : ROCE_WR_RDMA_READ;
				if (e->o.op != COST_SEND) {
					wr[k].rdma.remote_addr =
						(uintptr_t)e->buf[1] + off;
					wr[k].rdma.rkey = roce_mr_rkey(e->mr[1]);
				}
				if ((seq + 1) % e->o.cq_mod == 0 ||
				    seq + 1 == limit)
					wr[k].send_flags = ROCE_SEND_SIGNALED;
			}
			if (roce_post_send(q->qp[0], wr, n, &done) != 0 ||
			    done != n)
				return -1;
			q->posted += n;
		}
	}
	return 0;
}

static struct cost_qp *
find_qp(struct cost_env *e, uint32_t qpn, int side)
{
	uint32_t i;

	for (i = 0; i < e->o.qps; i++)
		if (e->q[i].qp[side]->qpn == qpn)
			return &e->q[i];
	return NULL;
}

/* Poll both CQs; returns -1 on an error completion. */
static int
poll_cqs(struct cost_env *e, uint64_t *recv_done)
{
	struct roce_wc wc[64];
	int n, j;

	n = roce_poll_cq(e->cq[0], wc, (int)RTE_DIM(wc));
	for (j = 0; j < n; j++) {
		struct cost_qp *q = find_qp(e, wc[j].qp_num, 0);

		if (wc[j].status != ROCE_WC_SUCCESS || q == NULL) {
			e->errors++;
			return -1;
		}
		q->completed = wc[j].wr_id + 1;
	}
	if (e->o.op != COST_SEND)
		return 0;
	n = roce_poll_cq(e->cq[1], wc, (int)RTE_DIM(wc));
	for (j = 0; j < n; j++) {
		struct cost_qp *q = find_qp(e, wc[j].qp_num, 1);

		if (wc[j].status != ROCE_WC_SUCCESS || q == NULL) {
			e->errors++;
			return -1;
		}
		recv_done[q - e->q]++;
		if (post_recvs(e, q, recv_done[q - e->q]) != 0)
			return -1;
	}
	return 0;
}

/* Run until every QP has @p per_qp send WRs complete in total. */
static int
run_to(struct cost_env *e, uint64_t per_qp, uint64_t *recv_done)
{
	long it;
	uint32_t i;

	for (it = 0; it < COST_MAX_ITERS; it++) {
		bool all = true;

		if (post_sends(e, per_qp) != 0)
			return -1;
		fake_link_step(e->l);
		if (poll_cqs(e, recv_done) != 0)
			return -1;
		for (i = 0; i < e->o.qps; i++)
			if (e->q[i].completed < per_qp)
				all = false;
		if (all)
			return 0;
	}
	return -1;
}

static uint64_t
tx_pkts(const struct cost_env *e, int side)
{
	return e->l->ep[side].w->cnt[ROCE_WCNT_TX_PKTS] +
	       e->l->ep[side].w->tx_n;
}

int
main(int argc, char **argv)
{
	static struct cost_env env;
	struct cost_env *e = &env;
	uint64_t recv_done[COST_MAX_QPS] = { 0 };
	uint64_t p0, p1, t0, t1, warm, total, msgs;
	static const char *const op_name[] = { "write", "send", "read" };
	uint32_t i, slot_last;
	int ret = 1;

	if (parse_opts(argc, argv, &e->o) != 0)
		return 2;
	if (test_eal_init(1, argv) != 0)
		return 1;
	if (env_create(e) != 0) {
		fprintf(stderr, "roce-cost: set-up failed\n");
		goto out;
	}
	if (e->o.op == COST_SEND)
		for (i = 0; i < e->o.qps; i++)
			if (post_recvs(e, &e->q[i], 0) != 0)
				goto fail;
	warm = e->o.warmup;
	total = warm + e->o.msgs;
	if (warm != 0 && run_to(e, warm, recv_done) != 0)
		goto fail;
	p0 = tx_pkts(e, 0) + tx_pkts(e, 1);
	t0 = rte_rdtsc();
	CALLGRIND_TOGGLE_COLLECT;
	if (run_to(e, total, recv_done) != 0) {
		CALLGRIND_TOGGLE_COLLECT;
		goto fail;
	}
	CALLGRIND_TOGGLE_COLLECT;
	t1 = rte_rdtsc();
	p1 = tx_pkts(e, 0) + tx_pkts(e, 1);
	/* the last message's bytes arrived where they were sent */
	slot_last = (uint32_t)((total - 1) % e->slots);
	if (e->o.op != COST_READ &&
	    memcmp(e->buf[0] + (uint64_t)slot_last * e->o.size,
		   e->buf[1] + (uint64_t)slot_last * e->o.size,
		   e->o.size) != 0) {
		fprintf(stderr, "roce-cost: data mismatch\n");
		goto out;
	}
	msgs = (uint64_t)e->o.msgs * e->o.qps;
	printf("{\"op\": \"%s\", \"bytes\": %u, \"qps\": %u, \"post_list\": %u, "
	       "\"cq_mod\": %u, \"mtu\": %u, \"zero_copy\": %s, "
	       "\"msgs\": %" PRIu64 ", \"data_pkts\": %" PRIu64 ", "
	       "\"pkts\": %" PRIu64 ", \"valgrind\": %s, "
	       "\"tsc_per_msg\": %.1f}\n",
	       op_name[e->o.op], e->o.size, e->o.qps, e->o.post_list,
	       e->o.cq_mod, mtu_bytes(e->o.mtu),
	       e->o.zero_copy ? "true" : "false", msgs,
	       msgs * ((e->o.size + mtu_bytes(e->o.mtu) - 1) /
		       mtu_bytes(e->o.mtu)),
	       p1 - p0, RUNNING_ON_VALGRIND ? "true" : "false",
	       (double)(t1 - t0) / (double)msgs);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "roce-cost: run failed (%" PRIu64 " error completions)\n",
		e->errors);
out:
	env_destroy(e);
	return ret;
}
