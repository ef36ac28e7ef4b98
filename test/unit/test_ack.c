/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC responder's ACK coalescing (roce_device_config::ack_pkts/ack_us,
 * roce_resp.c step_ack): WRITE packets injected as the peer would send
 * them, each ACK captured on the way back. An ACK goes at once for AckReq
 * and for a message's last packet, after ack_pkts packets otherwise, or
 * ack_us after the first held one; an ACK for a later PSN covers the held
 * ones; a QP reset forgets them. Then the real requester and responder:
 * a long SEND acknowledged every ack_pkts packets and at its end, data
 * intact.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fake_link.h"
#include "roce_build.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "test_common.h"

#define MEM (1u << 20)

struct acks {
	const struct fake_link *l;
	unsigned int n;
	uint32_t psn[64];
	uint64_t tsc[64];	/**< simulated time each was sent */
};

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	uint32_t mtu;
	uint32_t psn;		/**< next PSN injected into side 1 */
	struct acks acks;	/**< ACKs side 1 sent */
};

/* Every ACK side 1 sends, with its PSN. */
static void
capture_acks(void *ctx, int from, const struct rte_mbuf *m)
{
	struct acks *a = ctx;
	struct roce_pkt pkt;

	if (from != 1 || roce_parse((struct rte_mbuf *)(uintptr_t)m,
				    &pkt) != 0 || pkt.opcode != ROCE_OP_RC_ACK)
		return;
	if (a->n < RTE_DIM(a->psn)) {
		a->psn[a->n] = roce_bth_psn(roce_pkt_bth(&pkt));
		a->tsc[a->n] = a->l->tsc;
	}
	a->n++;
}

static struct env *
env_create(void)
{
	struct env *e = calloc(1, sizeof(*e));
	struct roce_qp_init_attr ia;
	struct fake_conn_opts o;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	e->l = fake_link_create(0xacc, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->l);
	fake_conn_opts_default(&o);
	e->mtu = roce_mtu_bytes(o.mtu);
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->cq[i]);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = e->cq[i];
		ia.recv_cq = e->cq[i];
		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		e->qp[i] = roce_create_qp(e->l->ep[i].pd, &ia);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->qp[i]);
		e->buf[i] = calloc(1, MEM);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->buf[i]);
		e->mr[i] = roce_reg_mr(e->l->ep[i].pd, e->buf[i], MEM,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->mr[i]);
	}
	CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1], &o),
			      0);
	e->psn = o.psn[0];
	e->acks.l = e->l;
	fake_link_set_capture(e->l, capture_acks, &e->acks);
	return e;
}

static void
env_destroy(struct env *e)
{
	int i;

	fake_link_set_capture(e->l, NULL, NULL);
	fake_link_settle(e->l, 200000);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i]), 0);
		CU_ASSERT_EQUAL(roce_dereg_mr(e->mr[i]), 0);
		CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[i]), 0);
		free(e->buf[i]);
	}
	fake_link_destroy(e->l);
	free(e);
}

/*
 * Step the link @p n times (1 us each while something moves; an idle link
 * jumps to the next timer's deadline).
 */
static void
run_steps(struct env *e, unsigned int n)
{
	while (n-- > 0)
		fake_link_step(e->l);
}

/*
 * One WRITE packet from side 0's QP to side 1, as its requester would send
 * it (@p opcode FIRST, MIDDLE, LAST or ONLY, a full MTU each), then a step.
 */
static void
inject(struct env *e, uint8_t opcode, uint32_t pkts_in_msg, bool ackreq)
{
	static uint8_t payload[4096];
	struct roce_hdr_fields h = e->qp[0]->path;

	h.opcode = opcode;
	h.dqpn = roce_qp_num(e->qp[1]);
	h.psn = e->psn;
	h.ackreq = ackreq;
	if (opcode == ROCE_OP_RC_RDMA_WRITE_FIRST ||
	    opcode == ROCE_OP_RC_RDMA_WRITE_ONLY) {
		h.va = (uintptr_t)e->buf[1];
		h.rkey = roce_mr_rkey(e->mr[1]);
		h.dma_len = pkts_in_msg * e->mtu;
	}
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &h, payload, e->mtu), 0);
	e->psn = (e->psn + 1) & 0xffffff;
	fake_link_step(e->l);
}

/* A WRITE of @p n packets (n >= 2) with AckReq only where @p ackreq_at. */
static void
write_msg(struct env *e, uint32_t n, uint32_t ackreq_at)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		inject(e, i == 0 ? ROCE_OP_RC_RDMA_WRITE_FIRST :
		       i == n - 1 ? ROCE_OP_RC_RDMA_WRITE_LAST :
		       ROCE_OP_RC_RDMA_WRITE_MIDDLE, n, i == ackreq_at);
}

static void
test_ack_at_end_and_ackreq(void)
{
	struct env *e = env_create();
	uint32_t first = e->psn;

	/* packets 0..3 held (no AckReq), the LAST acknowledges all */
	inject(e, ROCE_OP_RC_RDMA_WRITE_FIRST, 5, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 5, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 5, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 5, false);
	CU_ASSERT_EQUAL(e->acks.n, 0);
	CU_ASSERT_EQUAL(e->qp[1]->resp.unacked, 4);
	inject(e, ROCE_OP_RC_RDMA_WRITE_LAST, 5, false);
	run_steps(e, 5);
	CU_ASSERT_EQUAL_FATAL(e->acks.n, 1);
	CU_ASSERT_EQUAL(e->acks.psn[0], (first + 4) & 0xffffff);
	/* AckReq in the middle of a message: at once */
	write_msg(e, 6, 2);
	run_steps(e, 5);
	CU_ASSERT_EQUAL_FATAL(e->acks.n, 3);
	CU_ASSERT_EQUAL(e->acks.psn[1], (first + 7) & 0xffffff);
	CU_ASSERT_EQUAL(e->acks.psn[2], (first + 10) & 0xffffff);
	/* ONLY: a message's last packet too */
	inject(e, ROCE_OP_RC_RDMA_WRITE_ONLY, 1, false);
	run_steps(e, 5);
	CU_ASSERT_EQUAL(e->acks.n, 4);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks"), 4);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks_timed"), 0);
	env_destroy(e);
}

static void
test_ack_every_n_packets(void)
{
	struct env *e = env_create();
	uint32_t first = e->psn;

	e->l->ep[1].dev->ack_pkts = 4;
	/* 10 packets without AckReq: ACKs after the 4th, the 8th, the LAST */
	write_msg(e, 10, UINT32_MAX);
	run_steps(e, 5);
	CU_ASSERT_EQUAL_FATAL(e->acks.n, 3);
	CU_ASSERT_EQUAL(e->acks.psn[0], (first + 3) & 0xffffff);
	CU_ASSERT_EQUAL(e->acks.psn[1], (first + 7) & 0xffffff);
	CU_ASSERT_EQUAL(e->acks.psn[2], (first + 9) & 0xffffff);
	/* ack_pkts 1: every packet */
	e->l->ep[1].dev->ack_pkts = 1;
	write_msg(e, 3, UINT32_MAX);
	run_steps(e, 5);
	CU_ASSERT_EQUAL(e->acks.n, 6);
	env_destroy(e);
}

static void
test_ack_timer(void)
{
	struct env *e = env_create();
	uint64_t tmo = e->l->ep[1].dev->ack_tsc, step = e->l->tsc_step, t0;
	uint32_t first = e->psn, i;

	CU_ASSERT_EQUAL(tmo / step, ROCE_RESP_ACK_US);
	/* three packets of a long message, then a pause */
	t0 = e->l->tsc;
	inject(e, ROCE_OP_RC_RDMA_WRITE_FIRST, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	CU_ASSERT_EQUAL(e->acks.n, 0);
	for (i = 0; i < 1000 && e->acks.n == 0; i++)
		fake_link_step(e->l);
	CU_ASSERT_EQUAL_FATAL(e->acks.n, 1);
	CU_ASSERT_EQUAL(e->acks.psn[0], (first + 2) & 0xffffff);
	/* ack_us after the first held packet (it came in the first step) */
	CU_ASSERT(e->acks.tsc[0] >= t0 + tmo);
	CU_ASSERT(e->acks.tsc[0] <= t0 + tmo + 3 * step);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks_timed"), 1);
	/* nothing held: the timer does not send another */
	run_steps(e, 100);
	CU_ASSERT_EQUAL(e->acks.n, 1);
	/* the rest of the message; its LAST acknowledges at once */
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_LAST, 8, false);
	run_steps(e, 2);
	CU_ASSERT_EQUAL_FATAL(e->acks.n, 2);
	CU_ASSERT_EQUAL(e->acks.psn[1], (first + 7) & 0xffffff);
	/* the timer of the held packets was cancelled by that ACK */
	CU_ASSERT_FALSE(roce_timer_armed(&e->qp[1]->resp.ack_timer));
	run_steps(e, 100);
	CU_ASSERT_EQUAL(e->acks.n, 2);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks_timed"), 1);
	env_destroy(e);
}

/* Held packets and their timer do not survive a reset of the QP. */
static void
test_ack_reset_forgets(void)
{
	struct env *e = env_create();
	struct roce_qp_attr a;

	inject(e, ROCE_OP_RC_RDMA_WRITE_FIRST, 8, false);
	inject(e, ROCE_OP_RC_RDMA_WRITE_MIDDLE, 8, false);
	CU_ASSERT_EQUAL(e->qp[1]->resp.unacked, 2);
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	CU_ASSERT_EQUAL(roce_modify_qp(e->qp[1], &a, ROCE_QP_STATE), 0);
	CU_ASSERT_EQUAL(e->qp[1]->resp.unacked, 0);
	CU_ASSERT_FALSE(roce_timer_armed(&e->qp[1]->resp.ack_timer));
	run_steps(e, 100);
	CU_ASSERT_EQUAL(e->acks.n, 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks_timed"), 0);
	env_destroy(e);
}

static bool
both_done(void *arg)
{
	struct env *e = arg;
	struct roce_wc wc;
	int i;

	for (i = 0; i < 2; i++)
		if (roce_poll_cq(e->cq[i], &wc, 1) == 1) {
			CU_ASSERT_EQUAL(wc.status, ROCE_WC_SUCCESS);
			e->psn++;	/* counts completions here */
		}
	return e->psn >= 2;
}

/* The real requester: a long SEND, ACKed every ack_pkts packets. */
static void
test_ack_long_send(void)
{
	struct env *e = env_create();
	uint32_t n = 200, len = n * e->mtu, i;
	struct roce_recv_wr rwr;
	struct roce_send_wr swr;
	struct roce_sge s[2];
	unsigned int posted;

	e->l->ep[1].dev->ack_tsc = UINT64_MAX / 4;
	/* AckReq only at the end and when the window fills */
	e->qp[0]->req.ackreq_every = UINT32_MAX;
	e->qp[0]->req.cwnd = e->qp[0]->req.max_inflight;
	for (i = 0; i < len; i++)
		e->buf[0][i] = (uint8_t)(i * 7 + 3);
	s[0].addr = (uintptr_t)e->buf[0];
	s[0].length = len;
	s[0].lkey = roce_mr_lkey(e->mr[0]);
	s[1].addr = (uintptr_t)e->buf[1];
	s[1].length = len;
	s[1].lkey = roce_mr_lkey(e->mr[1]);
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &s[1];
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_recv(e->qp[1], &rwr, 1, &posted), 0);
	memset(&swr, 0, sizeof(swr));
	swr.opcode = ROCE_WR_SEND;
	swr.send_flags = ROCE_SEND_SIGNALED;
	swr.sg_list = &s[0];
	swr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_send(e->qp[0], &swr, 1, &posted), 0);
	e->psn = 0;
	CU_ASSERT(fake_link_run_until(e->l, both_done, e, 1000000) >= 0);
	CU_ASSERT_EQUAL(memcmp(e->buf[0], e->buf[1], len), 0);
	/* every 32 packets (6 times in 200) and the last one */
	CU_ASSERT_EQUAL(e->acks.n, n / ROCE_RESP_ACK_PKTS + 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_acks"), e->acks.n);
	env_destroy(e);
}

static CU_TestInfo ack_tests[] = {
	{ "ACK at a message's end and on AckReq, at once",
	  test_ack_at_end_and_ackreq },
	{ "ACK every ack_pkts packets (1: every packet)",
	  test_ack_every_n_packets },
	{ "a held ACK goes after ack_us, once", test_ack_timer },
	{ "a reset forgets held packets", test_ack_reset_forgets },
	{ "a long SEND: an ACK every ack_pkts packets, data intact",
	  test_ack_long_send },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "ack", NULL, NULL, NULL, NULL, ack_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
