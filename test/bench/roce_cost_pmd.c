/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce-cost-pmd: the instruction cost of the whole net_ernic datapath per
 * message, as roce-cost (roce_cost.c) gives it for the libroce engines over
 * the fake link. Two net_ernic ports (one worker each) on a net_ring pair
 * (test_ring_link(): pointer passing, the link of ernic-testpmd
 * --loopback, pmtu 4096 as its pair), --qps RC QPs a side (1 by default)
 * connected with static addresses (no neighbour resolution: it runs on
 * wall-clock timers that valgrind makes far too slow), and one thread that
 * posts RC WRITEs or SENDs (one signaled every --cq-mod, at most 128
 * outstanding: the ring link holds 4096 frames; with several QPs, WRITEs
 * only, every one signaled, round robin, at most 8 a QP, each QP into its
 * own 4 KiB-aligned slot; --qps 1 --cq-mod 1 is the 1-QP figure to set
 * beside them), runs
 * rte_pmd_ernic_poll() on both ports and polls the CQs. So the count
 * covers what a worker lcore runs per iteration: rte_eth_rx_burst on the
 * ring, classification, the engines, the TX batch through
 * rte_eth_tx_burst, mbuf alloc/free, plus the application's post and poll.
 * --workers N gives each port N workers and puts its CQ and QPs on the
 * last one: the ring port has one queue, which worker 0 reads and the
 * workers share for TX, so every RoCE frame is handed over to the QPs'
 * worker (rx_roce_handoff) and every TX burst takes the queue's lock, the
 * cost of more workers than queues. --queues N (as many as --workers)
 * gives the link N queues each way instead, TX queue i of one port being
 * RX queue i of the other, and puts QP q of both ports on worker
 * q % workers with a CQ on each worker: every worker reads a queue of its
 * own and no frame is handed over, the layout of a multi-queue NIC
 * steering each QP's frames to its worker.
 *
 * --iova-pa runs EAL on huge pages with IOVA as PA (root, free huge
 * pages) and puts the MR buffers in DPDK memory: zero-copy frames then get
 * their IOVA looked up page by page where the buffer's pages are not
 * IOVA-contiguous, as devtools/bench.sh's ernic-testpmd runs do; without
 * it (--no-huge, IOVA as VA) the IOVA is the address. "mr_iova_cached" in
 * the output: the sender's buffer is IOVA-contiguous (no lookups).
 *
 * Under valgrind --tool=callgrind --collect-atstart=no only the measured
 * phase (after --warmup messages) is collected: "Collected" divided by the
 * messages printed here is the cost. Output: one JSON object on stdout;
 * exit status 0, 1 when the run failed or the data did not arrive, 2 on a
 * bad option.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <valgrind/callgrind.h>

#include "roce_txbuf.h"
#include "roce_verbs.h"
#include "rte_pmd_ernic.h"
#include "test_common.h"
#include "test_pmd_pair.h"

#define PC_DEPTH 128
#define PC_MAX_WORKERS 4	/* --workers */
#define PC_DEPTH_MANY 8		/* a QP's outstanding WRs with --qps > 1 */
#define PC_MAX_QPS 16384
#define PC_MAX_ITERS 100000000L

struct pc_opts {
	bool send;
	uint32_t size;
	uint32_t msgs;
	uint32_t warmup;
	uint32_t cq_mod;
	uint32_t qps;
	uint32_t depth;		/* outstanding WRs a QP */
	uint32_t workers;	/* a port's; the QPs on the last (one queue) */
	uint32_t queues;	/* the link's each way: 1 or workers */
	bool zero_copy;
	bool iova_pa;		/* huge pages, IOVA as PA, buffers in them */
};

struct pc_side {
	uint16_t port;
	struct roce_pd *pd;
	struct roce_cq *cq[PC_MAX_WORKERS];	/* one, or one a worker */
	uint32_t ncq;
	struct roce_qp **qp;	/* opts.qps of them */
	struct roce_mr *mr;
	uint8_t *buf;		/* opts.qps slots of slot bytes */
	bool buf_iova_cached;	/* IOVA-contiguous: no per-packet lookup */
	uint8_t mac[6];
};

struct pc_env {
	struct pc_opts o;
	struct pc_side s[2];
	uint64_t slot;		/* bytes a QP's buffer, 4 KiB-aligned */
	uint64_t *qposted;	/* a QP's WRs posted, completed */
	uint64_t *qdone;
	uint32_t next;		/* the QP a round of posts starts with */
	uint64_t posted, completed, recv_done;
	uint64_t errors;
};

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--op write|send] [--size N] [--msgs N] [--warmup N] [--cq-mod N] [--qps N (WRITE; msgs and warmup rounded up to multiples)] [--workers N (1-4)] [--queues N (1, or --workers with --qps a multiple of it)] [--zero-copy] [--iova-pa]\n",
		prog);
}

static int
parse_opts(int argc, char **argv, struct pc_opts *o)
{
	static const struct option lo[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "msgs", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "cq-mod", required_argument, NULL, 'c' },
		{ "qps", required_argument, NULL, 'q' },
		{ "workers", required_argument, NULL, 'W' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "zero-copy", no_argument, NULL, 'z' },
		{ "iova-pa", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	unsigned long v;
	int c;

	o->send = false;
	o->size = 64;
	o->msgs = 2000;
	o->warmup = 200;
	o->cq_mod = 64;
	o->qps = 1;
	o->workers = 1;
	o->queues = 1;
	o->zero_copy = false;
	o->iova_pa = false;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'z') {
			o->zero_copy = true;
			continue;
		}
		if (c == 'P') {
			o->iova_pa = true;
			continue;
		}
		if (c == 'o') {
			if (strcmp(optarg, "write") != 0 &&
			    strcmp(optarg, "send") != 0)
				goto bad;
			o->send = strcmp(optarg, "send") == 0;
			continue;
		}
		if (c == '?')
			goto bad;
		v = strtoul(optarg, &end, 10);
		if (*end != '\0' || v == 0 || v > (1ul << 24))
			goto bad;
		switch (c) {
		case 's':
			o->size = (uint32_t)v;
			break;
		case 'n':
			o->msgs = (uint32_t)v;
			break;
		case 'w':
			o->warmup = (uint32_t)v;
			break;
		case 'c':
			o->cq_mod = (uint32_t)v;
			break;
		case 'q':
			o->qps = (uint32_t)v;
			break;
		case 'W':
			o->workers = (uint32_t)v;
			break;
		case 'Q':
			o->queues = (uint32_t)v;
			break;
		}
	}
	if (o->size > 65536 || o->cq_mod > PC_DEPTH || o->qps > PC_MAX_QPS ||
	    (o->qps > 1 && o->send) || o->workers > PC_MAX_WORKERS ||
	    (o->queues != 1 &&
	     (o->queues != o->workers || o->qps % o->queues != 0)))
		goto bad;
	o->depth = o->qps == 1 ? PC_DEPTH : PC_DEPTH_MANY;
	/*
	 * With several QPs every WR is signaled: unsignaled WRs of many QPs
	 * could fill the 128 outstanding with none able to complete.
	 */
	if (o->qps > 1)
		o->cq_mod = 1;
	/* every QP posts the same number of WRs in each phase */
	o->msgs = RTE_ALIGN_CEIL(o->msgs, o->qps);
	o->warmup = RTE_ALIGN_CEIL(o->warmup, o->qps);
	return 0;
bad:
	usage(argv[0]);
	return -1;
}

/*
 * test_rc_end_create() with the port's MTU raised to what its pmtu=4096
 * needs (the device's minimum MTU), as ernic-testpmd's port set-up does.
 */
static int
side_create(struct pc_side *s, const struct pc_opts *o)
{
	struct rte_eth_dev_info info;
	struct roce_qp_init_attr ia;
	struct rte_eth_conf conf;
	uint32_t q, i;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_info_get(s->port, &info) != 0)
		return -1;
	conf.rxmode.mtu = info.min_mtu;
	if (rte_eth_dev_configure(s->port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(s->port, 0, 1024, 0, NULL,
				   test_mbuf_pool()) != 0 ||
	    rte_eth_tx_queue_setup(s->port, 0, 1024, 0, NULL) != 0 ||
	    rte_eth_dev_start(s->port) != 0)
		return -1;
	s->pd = roce_alloc_pd(rte_pmd_ernic_get_device(s->port));
	if (s->pd == NULL)
		return -1;
	/*
	 * The QPs live on their CQ's worker: the last one, or with a queue
	 * a worker QP q on worker q % workers.
	 */
	s->ncq = o->queues == 1 ? 1 : o->workers;
	for (i = 0; i < s->ncq; i++) {
		s->cq[i] = roce_create_cq(rte_pmd_ernic_get_worker(s->port,
			o->queues == 1 ? o->workers - 1 : i),
			RTE_MAX(4096u, o->qps * o->depth / s->ncq));
		if (s->cq[i] == NULL)
			return -1;
	}
	s->qp = calloc(o->qps, sizeof(*s->qp));
	if (s->qp == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = o->depth;
	ia.cap.max_recv_wr = o->depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	for (q = 0; q < o->qps; q++) {
		ia.send_cq = s->cq[q % s->ncq];
		ia.recv_cq = ia.send_cq;
		s->qp[q] = roce_create_qp(s->pd, &ia);
		if (s->qp[q] == NULL)
			return -1;
	}
	return 0;
}

static int
env_create(struct pc_env *e)
{
	char args[192], name[32];
	struct rte_ether_addr m;
	uint64_t bytes;
	uint32_t q;
	int i;

	e->slot = RTE_ALIGN_CEIL((uint64_t)e->o.size, 4096);
	bytes = e->slot * e->o.qps;
	e->qposted = calloc(e->o.qps, sizeof(*e->qposted));
	e->qdone = calloc(e->o.qps, sizeof(*e->qdone));
	if (e->qposted == NULL || e->qdone == NULL ||
	    test_ring_link_queues("pcA", "pcB", e->o.queues) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		struct pc_side *s = &e->s[i];

		snprintf(name, sizeof(name), "net_ernic%d", i);
		snprintf(args, sizeof(args),
			 "port=net_ring_pc%c,ip=198.18.0.%d,mac=02:00:00:00:00:0%d,pmtu=4096,zero_copy=%d,max_qps=%u,workers=%u",
			 'A' + i, i + 1, i + 1, e->o.zero_copy ? 1 : 0,
			 RTE_MAX(1024u, rte_align32pow2(e->o.qps + 2)),
			 e->o.workers);
		if (rte_vdev_init(name, args) != 0 ||
		    rte_eth_dev_get_port_by_name(name, &s->port) != 0 ||
		    rte_eth_macaddr_get(s->port, &m) != 0)
			return -1;
		memcpy(s->mac, m.addr_bytes, 6);
		if (side_create(s, &e->o) != 0)
			return -1;
		s->buf = e->o.iova_pa ? rte_malloc("pc_buf", bytes, 4096) :
					aligned_alloc(4096, bytes);
		if (s->buf == NULL)
			return -1;
		memset(s->buf, i == 0 ? 0x5a : 0, bytes);
		s->buf_iova_cached =
			roce_txbuf_range_iova(s->buf, bytes) != RTE_BAD_IOVA;
		s->mr = roce_reg_mr(s->pd, s->buf, bytes,
				    ROCE_ACCESS_LOCAL_WRITE |
				    ROCE_ACCESS_REMOTE_WRITE);
		if (s->mr == NULL)
			return -1;
	}
	/* ACK timeout 20 (4.3 s): valgrind is slow, no spurious retries */
	for (i = 0; i < 2; i++)
		for (q = 0; q < e->o.qps; q++)
			if (test_rc_connect(e->s[i].qp[q], e->s[i ^ 1].port,
					    e->s[i ^ 1].mac,
					    roce_qp_num(e->s[i ^ 1].qp[q]),
					    ROCE_MTU_4096, 20) != 0)
				return -1;
	return 0;
}

static void
env_destroy(struct pc_env *e)
{
	uint32_t q;
	int i;

	for (i = 0; i < 2; i++) {
		struct pc_side *s = &e->s[i];

		if (s->mr != NULL && roce_dereg_mr(s->mr) != 0)
			s->buf = NULL;	/* frames may still read it */
		/* QP 0 goes with the CQ, PD and port */
		for (q = 1; s->qp != NULL && q < e->o.qps; q++)
			if (s->qp[q] != NULL)
				roce_destroy_qp(s->qp[q]);
		for (q = 1; q < s->ncq; q++)
			roce_destroy_cq(s->cq[q]);
		if (s->qp != NULL || s->cq[0] != NULL || s->pd != NULL)
			test_rc_end_destroy(s->port, s->pd, s->cq[0],
					    s->qp != NULL ? s->qp[0] : NULL);
		free(s->qp);
		if (e->o.iova_pa)
			rte_free(s->buf);
		else
			free(s->buf);
	}
	free(e->qposted);
	free(e->qdone);
}

static int
post_recv(struct pc_env *e)
{
	struct pc_side *s = &e->s[1];
	struct roce_sge sge = {
		.addr = (uintptr_t)s->buf, .length = e->o.size,
		.lkey = roce_mr_lkey(s->mr),
	};
	struct roce_recv_wr wr = { .wr_id = 0, .sg_list = &sge, .num_sge = 1 };

	return roce_post_recv(s->qp[0], &wr, 1, NULL);
}

/* Post QP @p q's next WRITE/SEND: 1 posted, 0 none due, -1 error. */
static inline int
post_one(struct pc_env *e, uint32_t q, uint64_t per_qp)
{
	struct pc_side *s = &e->s[0];
	uint64_t n = e->qposted[q];
	struct roce_send_wr wr;
	struct roce_sge sge;

	if (n >= per_qp || n - e->qdone[q] >= e->o.depth)
		return 0;
	sge.addr = (uintptr_t)s->buf + q * e->slot;
	sge.length = e->o.size;
	sge.lkey = roce_mr_lkey(s->mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)q << 32 | n;	/* QP, its count */
	wr.opcode = e->o.send ? ROCE_WR_SEND : ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	/* the last one of every cq_mod, and the QP's last of the phase */
	if ((n + 1) % e->o.cq_mod == 0 || n + 1 == per_qp)
		wr.send_flags = ROCE_SEND_SIGNALED;
	wr.rdma.remote_addr = (uintptr_t)e->s[1].buf + q * e->slot;
	wr.rdma.rkey = roce_mr_rkey(e->s[1].mr);
	if (roce_post_send(s->qp[q], &wr, 1, NULL) != 0)
		return -1;
	e->qposted[q] = n + 1;
	e->posted++;
	return 1;
}

/*
 * Post in rounds over the QPs, one WR a QP a round, until each QP has
 * posted its share of @p upto (a phase's total over the QPs) or has
 * o.depth outstanding, or PC_DEPTH are outstanding in all. The next call
 * starts where this one stopped.
 */
static int
post_sends(struct pc_env *e, uint64_t upto)
{
	uint64_t per_qp;
	uint32_t k, q = e->next;
	int posted, r;

	if (e->o.qps == 1) {	/* the loop the 1-QP counts were taken with */
		while (e->posted - e->completed < PC_DEPTH) {
			r = post_one(e, 0, upto);
			if (r <= 0)
				return r;
		}
		return 0;
	}
	per_qp = upto / e->o.qps;
	while (e->posted - e->completed < PC_DEPTH) {
		posted = 0;
		for (k = 0; k < e->o.qps &&
		     e->posted - e->completed < PC_DEPTH; k++) {
			r = post_one(e, q, per_qp);
			if (r < 0)
				return -1;
			posted += r;
			q = q + 1 == e->o.qps ? 0 : q + 1;
		}
		if (posted == 0)
			break;
	}
	e->next = q;
	return 0;
}

/* Account the sender's completions on CQ @p cq: 0, or -1 on an error. */
static int
poll_send_cq(struct pc_env *e, struct roce_cq *cq)
{
	struct roce_wc wc[64];
	uint64_t q, n_done;
	int n, j;

	n = roce_poll_cq(cq, wc, (int)RTE_DIM(wc));
	for (j = 0; j < n; j++) {
		q = wc[j].wr_id >> 32;
		n_done = (wc[j].wr_id & UINT32_MAX) + 1;
		if (wc[j].status != ROCE_WC_SUCCESS || q >= e->o.qps ||
		    n_done <= e->qdone[q]) {
			e->errors++;
			return -1;
		}
		/* a signaled WR completes the unsignaled before it */
		e->completed += n_done - e->qdone[q];
		e->qdone[q] = n_done;
	}
	return 0;
}

static int
run_to(struct pc_env *e, uint64_t total)
{
	struct roce_wc wc[64];
	uint32_t i;
	long it;
	int n, j;

	for (it = 0; it < PC_MAX_ITERS && e->completed < total; it++) {
		if (post_sends(e, total) != 0)
			return -1;
		rte_pmd_ernic_poll(e->s[0].port);
		rte_pmd_ernic_poll(e->s[1].port);
		for (i = 0; i < e->s[0].ncq; i++)
			if (poll_send_cq(e, e->s[0].cq[i]) != 0)
				return -1;
		if (!e->o.send)
			continue;
		n = roce_poll_cq(e->s[1].cq[0], wc, (int)RTE_DIM(wc));
		for (j = 0; j < n; j++) {
			if (wc[j].status != ROCE_WC_SUCCESS ||
			    post_recv(e) != 0) {
				e->errors++;
				return -1;
			}
			e->recv_done++;
		}
	}
	return e->completed >= total ? 0 : -1;
}

static uint64_t
port_opackets(uint16_t port)
{
	struct rte_eth_stats st;

	return rte_eth_stats_get(port, &st) == 0 ? st.opackets : 0;
}

/* Frames a port's workers handed over to the QPs' worker. */
static uint64_t
port_handoffs(uint16_t port)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, "rx_roce_handoff", &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return 0;
	return v;
}

int
main(int argc, char **argv)
{
	static struct pc_env env;
	struct pc_env *e = &env;
	uint64_t total, p0, p1, t0, t1, h0, h1;
	char mem[16], *eal[] = { argv[0], (char *)"-m", mem };
	uint32_t i, q;
	int ret = 1;

	if (parse_opts(argc, argv, &e->o) != 0)
		return 2;
	if (e->o.iova_pa) {
		if (test_eal_init_pa(argv[0]) != 0)
			return 1;
	} else {
		/* test_eal_init's 512 MB, more for the tables of many QPs */
		snprintf(mem, sizeof(mem), "%u", e->o.qps > 1024 ? 3072 : 512);
		if (test_eal_init((int)RTE_DIM(eal), eal) != 0)
			return 1;
	}
	if (env_create(e) != 0) {
		fprintf(stderr, "roce-cost-pmd: set-up failed\n");
		goto out;
	}
	for (i = 0; e->o.send && i < PC_DEPTH; i++)
		if (post_recv(e) != 0)
			goto fail;
	if (run_to(e, e->o.warmup) != 0)
		goto fail;
	total = (uint64_t)e->o.warmup + e->o.msgs;
	p0 = port_opackets(e->s[0].port) + port_opackets(e->s[1].port);
	h0 = port_handoffs(e->s[0].port) + port_handoffs(e->s[1].port);
	t0 = rte_rdtsc();
	CALLGRIND_TOGGLE_COLLECT;
	ret = run_to(e, total);
	CALLGRIND_TOGGLE_COLLECT;
	t1 = rte_rdtsc();
	p1 = port_opackets(e->s[0].port) + port_opackets(e->s[1].port);
	h1 = port_handoffs(e->s[0].port) + port_handoffs(e->s[1].port);
	if (ret != 0) {
		ret = 1;
		goto fail;
	}
	ret = 1;
	for (q = 0; q < e->o.qps; q++)
		if (memcmp(e->s[0].buf + q * e->slot, e->s[1].buf + q * e->slot,
			   e->o.size) != 0) {
			fprintf(stderr, "roce-cost-pmd: data mismatch (QP %u)\n",
				q);
			goto out;
		}
	printf("{\"op\": \"%s\", \"bytes\": %u, \"qps\": %u, \"post_list\": 1, "
	       "\"cq_mod\": %u, \"mtu\": 4096, \"zero_copy\": %s, \"iova_pa\": %s, "
	       "\"mr_iova_cached\": %s, "
	       "\"workers\": %u, \"queues\": %u, \"handoffs\": %" PRIu64 ", "
	       "\"msgs\": %u, \"data_pkts\": %u, \"pkts\": %" PRIu64 ", "
	       "\"valgrind\": %s, \"tsc_per_msg\": %.1f}\n",
	       e->o.send ? "send" : "write", e->o.size, e->o.qps, e->o.cq_mod,
	       e->o.zero_copy ? "true" : "false",
	       e->o.iova_pa ? "true" : "false",
	       e->s[0].buf_iova_cached ? "true" : "false",
	       e->o.workers, e->o.queues,
	       h1 - h0,
	       e->o.msgs,
	       e->o.msgs * ((e->o.size + 4095) / 4096), p1 - p0,
	       RUNNING_ON_VALGRIND ? "true" : "false",
	       (double)(t1 - t0) / (double)e->o.msgs);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "roce-cost-pmd: run failed (%" PRIu64 " error completions, %" PRIu64 " of %" PRIu64 " complete)\n",
		e->errors, e->completed, e->posted);
out:
	env_destroy(e);
	return ret;
}
