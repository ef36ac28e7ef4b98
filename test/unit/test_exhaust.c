/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resource exhaustion and fault timing at engine level (fake_link.h: a
 * simulated clock, so timeouts are exact):
 * - peer death: the error comes exactly after (retry_cnt + 1) local ACK
 *   timeouts, every WR completes once (RETRY_EXC_ERR then WR_FLUSH_ERR),
 *   no timer, WQE or mbuf is left, reconnection with fresh PSNs works;
 * - RNR retry exhaustion after rnr_retry RNR waits, the same checks;
 * - receive CQ overrun at the responder: CQ_ERR, its QP to ERR, one
 *   Remote Operational Error NAK for the message whose completion was
 *   lost, so the requester ends in REM_OP_ERR without a single timeout
 *   and nothing is reported delivered that the application never saw;
 * - 64K QPs (the whole QPN space) created and destroyed in a loop: a clear
 *   ENOMEM past the last QPN, no memory left behind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "fake_link.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "roce_verbs.h"
#include "test_common.h"

#define LEN 16384
#define NWR 16

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	struct fake_conn_opts o;
	unsigned int free0;
};

static struct roce_qp *
qp_new(struct env *e, int side, struct roce_cq *rcq)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = e->cq[side];
	ia.recv_cq = rcq != NULL ? rcq : e->cq[side];
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(e->l->ep[side].pd, &ia);
}

static struct env *
env_new(uint64_t seed, const struct fake_conn_opts *o)
{
	struct env *e = calloc(1, sizeof(*e));
	int i;

	CU_ASSERT_FATAL(e != NULL);
	e->l = fake_link_create(seed, false);
	CU_ASSERT_FATAL(e->l != NULL);
	e->o = *o;
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		CU_ASSERT_FATAL(e->cq[i] != NULL);
		e->qp[i] = qp_new(e, i, NULL);
		CU_ASSERT_FATAL(e->qp[i] != NULL);
		e->buf[i] = calloc(NWR, LEN);
		CU_ASSERT_FATAL(e->buf[i] != NULL);
		e->mr[i] = roce_reg_mr(e->l->ep[i].pd, e->buf[i],
				       (size_t)NWR * LEN,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE |
				       ROCE_ACCESS_REMOTE_READ);
		CU_ASSERT_FATAL(e->mr[i] != NULL);
	}
	CU_ASSERT_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1], &e->o) == 0);
	e->free0 = rte_mempool_avail_count(test_mbuf_pool());
	return e;
}

static void
env_free(struct env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (e->qp[i] != NULL)
			CU_ASSERT(roce_destroy_qp(e->qp[i]) == 0);
		CU_ASSERT(roce_dereg_mr(e->mr[i]) == 0);
		CU_ASSERT(roce_destroy_cq(e->cq[i]) == 0);
		free(e->buf[i]);
	}
	fake_link_destroy(e->l);
	free(e);
}

static void
post(struct env *e, enum roce_wr_opcode op, uint64_t id, unsigned int slot,
     uint32_t len)
{
	struct roce_send_wr wr;
	struct roce_sge sge;

	sge.addr = (uintptr_t)(e->buf[0] + (size_t)slot * LEN);
	sge.length = len;
	sge.lkey = roce_mr_lkey(e->mr[0]);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)(e->buf[1] + (size_t)slot * LEN);
	wr.rdma.rkey = roce_mr_rkey(e->mr[1]);
	CU_ASSERT_FATAL(roce_post_send(e->qp[0], &wr, 1, NULL) == 0);
}

static void
post_recv(struct env *e, uint64_t id, unsigned int slot)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;

	sge.addr = (uintptr_t)(e->buf[1] + (size_t)slot * LEN);
	sge.length = LEN;
	sge.lkey = roce_mr_lkey(e->mr[1]);
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_FATAL(roce_post_recv(e->qp[1], &wr, 1, NULL) == 0);
}

/* Step until @p n completions of side @p side; their simulated times in @p t. */
static int
collect(struct env *e, int side, struct roce_wc *wc, uint64_t *t, int n)
{
	long it;
	int got = 0, k, j;

	for (it = 0; it < 4000000 && got < n; it++) {
		fake_link_step(e->l);
		k = roce_poll_cq(e->cq[side], wc + got, n - got);
		for (j = 0; k > 0 && j < k; j++)
			t[got + j] = e->l->tsc;
		if (k > 0)
			got += k;
	}
	return got;
}

static enum roce_qp_state
qp_state(const struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	return roce_query_qp(qp, &a, &ia) == 0 ? a.qp_state : ROCE_QPS_UNKNOWN;
}

static void
assert_quiet(const struct env *e, int side)
{
	const struct roce_qp *qp = e->qp[side];

	CU_ASSERT(qp->sq.prod == qp->sq.cons);
	CU_ASSERT(qp->rq.prod == qp->rq.cons);
	CU_ASSERT(e->l->ep[side].w->timers.count == 0);
}

static int
reconnect(struct env *e, uint32_t p0, uint32_t p1)
{
	struct roce_qp_attr a;
	int i;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	for (i = 0; i < 2; i++)
		if (roce_modify_qp(e->qp[i], &a, ROCE_QP_STATE) != 0)
			return -1;
	e->o.psn[0] = p0;
	e->o.psn[1] = p1;
	return fake_link_connect(e->l, e->qp[0], e->qp[1], &e->o);
}

static void
writes_ok(struct env *e, uint64_t id0)
{
	static struct roce_wc wc[NWR];
	static uint64_t t[NWR];
	unsigned int i;

	for (i = 0; i < NWR; i++) {
		memset(e->buf[0] + (size_t)i * LEN, (int)(id0 + i), LEN);
		post(e, ROCE_WR_RDMA_WRITE, id0 + i, i, LEN);
	}
	CU_ASSERT_FATAL(collect(e, 0, wc, t, NWR) == NWR);
	for (i = 0; i < NWR; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS &&
			  wc[i].wr_id == id0 + i);
	CU_ASSERT(memcmp(e->buf[0], e->buf[1], (size_t)NWR * LEN) == 0);
}

static void
test_peer_death_exact(void)
{
	static struct roce_wc wc[NWR];
	static uint64_t t[NWR];
	struct fake_conn_opts o;
	struct env *e;
	uint64_t t_cut, tmo;
	unsigned int i, ok;

	fake_conn_opts_default(&o);
	o.timeout = 10;
	o.retry_cnt = 3;
	e = env_new(31, &o);
	tmo = 4096ULL * (1u << o.timeout) * rte_get_tsc_hz() / 1000000000;
	for (i = 0; i < NWR; i++)
		post(e, ROCE_WR_RDMA_WRITE, i, i, LEN);
	/* two completions, then the peer is gone */
	CU_ASSERT_FATAL(collect(e, 0, wc, t, 2) == 2);
	fake_link_cut(e->l, 0, true);
	fake_link_cut(e->l, 1, true);
	t_cut = e->l->tsc;
	CU_ASSERT_FATAL(collect(e, 0, wc + 2, t + 2, NWR - 2) == NWR - 2);
	for (ok = 0; ok < NWR && wc[ok].status == ROCE_WC_SUCCESS; ok++)
		;
	CU_ASSERT_FATAL(ok < NWR);
	CU_ASSERT(wc[ok].status == ROCE_WC_RETRY_EXC_ERR);
	for (i = ok + 1; i < NWR; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_WR_FLUSH_ERR);
	for (i = 0; i < NWR; i++)
		CU_ASSERT(wc[i].wr_id == i);
	/*
	 * The timer was last restarted at or before the cut: the error is
	 * due (retry_cnt + 1) timeouts later at most, retry_cnt at least.
	 */
	CU_ASSERT(t[ok] - t_cut <= (o.retry_cnt + 1) * tmo + tmo / 100);
	CU_ASSERT(t[ok] - t_cut >= o.retry_cnt * tmo);
	CU_ASSERT(e->qp[0]->stats.timeouts == (uint64_t)o.retry_cnt + 1);
	/* all flushed in the same poll as the failure */
	CU_ASSERT(t[NWR - 1] == t[ok]);
	CU_ASSERT(qp_state(e->qp[0]) == ROCE_QPS_ERR);
	fake_link_settle(e->l, 100000);
	assert_quiet(e, 0);
	CU_ASSERT(rte_mempool_avail_count(test_mbuf_pool()) == e->free0);
	/* back: fresh PSNs on both sides */
	fake_link_cut(e->l, 0, false);
	fake_link_cut(e->l, 1, false);
	CU_ASSERT_FATAL(reconnect(e, 0xfffff0, 12345) == 0);
	writes_ok(e, 100);
	fake_link_settle(e->l, 100000);
	assert_quiet(e, 0);
	assert_quiet(e, 1);
	CU_ASSERT(rte_mempool_avail_count(test_mbuf_pool()) == e->free0);
	env_free(e);
}

static void
test_rnr_exact(void)
{
	static struct roce_wc wc[4];
	static uint64_t t[4];
	struct fake_conn_opts o;
	struct env *e;
	uint64_t rnr;
	unsigned int i;

	fake_conn_opts_default(&o);
	o.rnr_retry = 3;
	o.min_rnr_timer = 14;	/* 0.96 ms (IBTA table 45) */
	e = env_new(32, &o);
	rnr = 960ULL * rte_get_tsc_hz() / 1000000;
	for (i = 0; i < 4; i++)
		post(e, ROCE_WR_SEND, i, i, 1000);
	CU_ASSERT_FATAL(collect(e, 0, wc, t, 4) == 4);
	CU_ASSERT(wc[0].status == ROCE_WC_RNR_RETRY_EXC_ERR);
	for (i = 1; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_WR_FLUSH_ERR);
	/* three RNR waits, a few simulated microseconds of link besides */
	CU_ASSERT(t[0] >= 3 * rnr);
	CU_ASSERT(e->qp[0]->stats.rnr_naks_rx == 4);
	CU_ASSERT(qp_state(e->qp[0]) == ROCE_QPS_ERR);
	CU_ASSERT(qp_state(e->qp[1]) == ROCE_QPS_RTS);
	fake_link_settle(e->l, 100000);
	assert_quiet(e, 0);
	CU_ASSERT(rte_mempool_avail_count(test_mbuf_pool()) == e->free0);
	CU_ASSERT_FATAL(reconnect(e, 1, 2) == 0);
	for (i = 0; i < 4; i++)
		post_recv(e, 50 + i, i);
	for (i = 0; i < 4; i++)
		post(e, ROCE_WR_SEND, 10 + i, i, 1000);
	CU_ASSERT_FATAL(collect(e, 0, wc, t, 4) == 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS);
	CU_ASSERT_FATAL(collect(e, 1, wc, t, 4) == 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS &&
			  wc[i].wr_id == 50 + i && wc[i].byte_len == 1000);
	env_free(e);
}

static void
test_recv_cq_overrun(void)
{
	static struct roce_wc wc[8];
	static uint64_t t[8];
	struct roce_async_event ev;
	struct fake_conn_opts o;
	struct roce_cq *small;
	struct env *e;
	bool cq_err = false;
	unsigned int i, ok;
	int n;

	fake_conn_opts_default(&o);
	o.timeout = 8;
	o.retry_cnt = 2;
	e = env_new(33, &o);
	/* side 1 receives into a CQ of 2 entries */
	small = roce_create_cq(e->l->ep[1].w, 2);
	CU_ASSERT_FATAL(small != NULL);
	CU_ASSERT(roce_destroy_qp(e->qp[1]) == 0);
	e->qp[1] = qp_new(e, 1, small);
	CU_ASSERT_FATAL(e->qp[1] != NULL);
	CU_ASSERT_FATAL(reconnect(e, 3, 4) == 0);
	while (roce_get_async_event(e->l->ep[1].dev, &ev) == 1)
		;
	for (i = 0; i < 4; i++)
		post_recv(e, 20 + i, i);
	for (i = 0; i < 4; i++)
		post(e, ROCE_WR_SEND, i, i, 100);
	CU_ASSERT_FATAL(collect(e, 0, wc, t, 4) == 4);
	for (ok = 0; ok < 4 && wc[ok].status == ROCE_WC_SUCCESS; ok++)
		;
	/*
	 * the two that fit were delivered; the third overran the CQ: its
	 * Remote Operational Error NAK acknowledged the two and failed it,
	 * before any local ACK timeout
	 */
	CU_ASSERT(ok == 2);
	CU_ASSERT(ok < 4 && wc[ok].status == ROCE_WC_REM_OP_ERR);
	for (i = ok + 1; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_WR_FLUSH_ERR);
	CU_ASSERT(e->qp[0]->stats.timeouts == 0);
	CU_ASSERT(e->qp[0]->stats.naks_rx == 1);
	CU_ASSERT(e->qp[1]->stats.naks_tx == 1);
	CU_ASSERT(e->l->ep[1].w->cnt[ROCE_WCNT_RESP_CQ_OVERFLOW] == 1);
	CU_ASSERT(e->l->ep[1].w->cnt[ROCE_WCNT_RESP_REM_OP] == 1);
	CU_ASSERT(qp_state(e->qp[1]) == ROCE_QPS_ERR);
	while (roce_get_async_event(e->l->ep[1].dev, &ev) == 1)
		if (ev.event_type == ROCE_EVENT_CQ_ERR && ev.element.cq == small)
			cq_err = true;
	CU_ASSERT(cq_err);
	n = roce_poll_cq(small, wc, 8);
	CU_ASSERT(n == 2);
	CU_ASSERT(roce_poll_cq(small, wc, 8) == -EIO);
	fake_link_settle(e->l, 100000);
	assert_quiet(e, 0);
	CU_ASSERT(e->qp[1]->rq.prod == e->qp[1]->rq.cons ||
		  e->qp[1]->stats.flush_cqe_lost > 0);
	CU_ASSERT(roce_destroy_qp(e->qp[1]) == 0);
	CU_ASSERT(roce_destroy_cq(small) == 0);
	e->qp[1] = qp_new(e, 1, NULL);
	CU_ASSERT_FATAL(e->qp[1] != NULL);
	CU_ASSERT_FATAL(reconnect(e, 5, 6) == 0);
	writes_ok(e, 300);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(rte_mempool_avail_count(test_mbuf_pool()) == e->free0);
	env_free(e);
}

static uint16_t
drop_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(ctx);
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static void
test_64k_qps(void)
{
	struct roce_device_config cfg;
	struct rte_malloc_socket_stats st0, st1;
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	struct roce_device *dev;
	struct roce_worker *w;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp **qp;
	unsigned int round, n, i, max = ROCE_MAX_QP;
	uint64_t t0, hz = rte_get_tsc_hz();
	int sock;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "qp64k";
	cfg.mac[0] = 2;
	cfg.gid[0].raw[10] = 0xff;
	cfg.gid[0].raw[11] = 0xff;
	cfg.gid[0].raw[12] = 10;
	cfg.gid_valid[0] = true;
	cfg.max_qp = ROCE_MAX_QP;
	cfg.max_mr = 16;
	cfg.hdr_pool = test_mbuf_pool();
	cfg.socket_id = SOCKET_ID_ANY;
	dev = roce_device_create(&cfg);
	CU_ASSERT_FATAL(dev != NULL);
	w = roce_worker_create(dev, drop_tx, NULL);
	pd = roce_alloc_pd(dev);
	cq = roce_create_cq(w, 64);
	CU_ASSERT_FATAL(w != NULL && pd != NULL && cq != NULL);
	qp = calloc(max, sizeof(*qp));
	CU_ASSERT_FATAL(qp != NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	sock = (int)rte_socket_id();
	for (round = 0; round < 3; round++) {
		rte_malloc_get_socket_stats(sock, &st0);
		t0 = rte_rdtsc();
		for (n = 0; n < max; n++) {
			qp[n] = roce_create_qp(pd, &ia);
			if (qp[n] == NULL)
				break;
		}
		/* QPN 0 and 1 are QP0/QP1: 65534 RC QPs, then a clear ENOMEM */
		CU_ASSERT(n == max - 2);
		CU_ASSERT(rte_errno == ENOMEM);
		/* every 4096th to INIT, so destroy also meets non-RESET QPs */
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_INIT;
		a.port_num = 1;
		for (i = 0; i < n; i += 4096)
			CU_ASSERT(roce_modify_qp(qp[i], &a, ROCE_QP_STATE |
						 ROCE_QP_PKEY_INDEX |
						 ROCE_QP_PORT |
						 ROCE_QP_ACCESS_FLAGS) == 0);
		for (i = 0; i < n; i++)
			CU_ASSERT(roce_destroy_qp(qp[i]) == 0);
		rte_malloc_get_socket_stats(sock, &st1);
#ifndef __SANITIZE_ADDRESS__
		/* with ASan, the last 4096 destroyed QPs stay poisoned until
		 * the device is destroyed (roce_qp.c, bounded quarantine), so
		 * the heap only returns to its level then
		 */
		CU_ASSERT(st1.heap_allocsz_bytes == st0.heap_allocsz_bytes);
		CU_ASSERT(st1.alloc_count == st0.alloc_count);
#endif
		printf("%s%u QPs created and destroyed in %.2f s",
		       round == 0 ? "\n  " : ", ", n,
		       (double)(rte_rdtsc() - t0) / hz);
	}
	printf("\n");
	free(qp);
	CU_ASSERT(roce_destroy_cq(cq) == 0);
	CU_ASSERT(roce_dealloc_pd(pd) == 0);
	CU_ASSERT(roce_worker_destroy(w) == 0);
	CU_ASSERT(roce_device_destroy(dev) == 0);
}

static CU_TestInfo exhaust_tests[] = {
	{ "peer death: RETRY_EXC after (retry_cnt+1) timeouts exactly", test_peer_death_exact },
	{ "RNR retries exhausted: timing, flush, recovery", test_rnr_exact },
	{ "receive CQ overrun at the responder", test_recv_cq_overrun },
	{ "64K QPs created and destroyed in a loop", test_64k_qps },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "exhaust", NULL, NULL, NULL, NULL, exhaust_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 1;
	return test_run(suites);
}
