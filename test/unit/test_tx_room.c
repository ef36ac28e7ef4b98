/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port that takes fewer frames than the engines build (fake_link.h's
 * tx_accept_step: a TX ring drained at 8 frames a step, full otherwise): 16 RC QPs a side on one worker, each
 * with more work than a poll's budget. The engines must be held back
 * (tx_held), never drop what they built (tx_drop_full), never resend
 * (nothing was lost), deliver every byte, and take turns: a QP waits for
 * at most one budget of each other QP before its first frame leaves, for
 * requesters (WRITE) and for READ responders alike.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_link.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "test_common.h"

#define NQP 16
#define MSG (64u << 10)		/* bytes a WR */
#define NWR 4			/* WRs a QP */
#define REGION (MSG * NWR)
#define BUDGET 32		/* packets a requester or responder run builds */
#define MAX_ITERS 20000000L

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[NQP][2];
	uint8_t *buf[NQP][2];
	struct roce_mr *mr[NQP][2];
	uint32_t posted, done, errors;
	/* the data frames side `from` sent: how many, and each QP's first */
	int from;
	uint64_t frames;
	uint64_t first[NQP];
};

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 11));
}

/* Index of the QP pair whose side-@p side QP has number @p qpn, or -1. */
static int
pair_of(const struct env *e, int side, uint32_t qpn)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (roce_qp_num(e->qp[i][side]) == qpn)
			return i;
	return -1;
}

/* Every data frame (WRITE request or READ response) side e->from sends. */
static void
capture(void *ctx, int from, const struct rte_mbuf *m)
{
	struct env *e = ctx;
	struct roce_pkt pkt;
	int i;

	if (from != e->from ||
	    roce_parse((struct rte_mbuf *)(uintptr_t)m, &pkt) != 0 ||
	    pkt.payload_len == 0)
		return;
	i = pair_of(e, from ^ 1, roce_bth_dqpn(roce_pkt_bth(&pkt)));
	CU_ASSERT_FATAL(i >= 0);
	if (e->first[i] == UINT64_MAX)
		e->first[i] = e->frames;
	e->frames++;
}

/* Side @p full's port takes at most 8 frames a step (-1: both). */
static struct env *
env_create(uint64_t seed, int full)
{
	static const struct fake_link_impair full_ring = {
		.tx_accept_step = 8,
	};
	struct env *e = calloc(1, sizeof(*e));
	struct roce_qp_init_attr ia;
	struct fake_conn_opts o;
	int i, s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	e->l = fake_link_create(seed, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->l);
	fake_link_set_impair(e->l, full, &full_ring);
	fake_conn_opts_default(&o);
	for (s = 0; s < 2; s++) {
		e->cq[s] = roce_create_cq(e->l->ep[s].w, 1024);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->cq[s]);
	}
	for (i = 0; i < NQP; i++) {
		for (s = 0; s < 2; s++) {
			memset(&ia, 0, sizeof(ia));
			ia.qp_type = ROCE_QPT_RC;
			ia.send_cq = e->cq[s];
			ia.recv_cq = e->cq[s];
			ia.cap.max_send_wr = NWR;
			ia.cap.max_recv_wr = 1;
			ia.cap.max_send_sge = 1;
			ia.cap.max_recv_sge = 1;
			e->qp[i][s] = roce_create_qp(e->l->ep[s].pd, &ia);
			CU_ASSERT_PTR_NOT_NULL_FATAL(e->qp[i][s]);
			e->buf[i][s] = malloc(REGION);
			CU_ASSERT_PTR_NOT_NULL_FATAL(e->buf[i][s]);
			fill(e->buf[i][s], REGION, (uint32_t)(i * 2 + s));
			e->mr[i][s] = roce_reg_mr(e->l->ep[s].pd,
						  e->buf[i][s], REGION,
						  ROCE_ACCESS_LOCAL_WRITE |
						  ROCE_ACCESS_REMOTE_WRITE |
						  ROCE_ACCESS_REMOTE_READ);
			CU_ASSERT_PTR_NOT_NULL_FATAL(e->mr[i][s]);
		}
		CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[i][0],
							e->qp[i][1], &o), 0);
	}
	for (i = 0; i < NQP; i++)
		e->first[i] = UINT64_MAX;
	fake_link_set_capture(e->l, capture, e);
	return e;
}

static void
env_destroy(struct env *e)
{
	int i, s;

	fake_link_set_capture(e->l, NULL, NULL);
	fake_link_settle(e->l, 200000);
	for (i = 0; i < NQP; i++)
		for (s = 0; s < 2; s++) {
			CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i][s]), 0);
			CU_ASSERT_EQUAL(roce_dereg_mr(e->mr[i][s]), 0);
			free(e->buf[i][s]);
		}
	for (s = 0; s < 2; s++)
		CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[s]), 0);
	fake_link_destroy(e->l);
	free(e);
}

static bool
all_done(void *arg)
{
	struct env *e = arg;
	struct roce_wc wc[32];
	int n, i;

	n = roce_poll_cq(e->cq[0], wc, RTE_DIM(wc));
	for (i = 0; i < n; i++) {
		e->done++;
		if (wc[i].status != ROCE_WC_SUCCESS)
			e->errors++;
	}
	return e->done == e->posted;
}

/* NWR WRs of @p op on every QP of side 0, each MSG bytes at its slot. */
static void
post_all(struct env *e, enum roce_wr_opcode op)
{
	unsigned int posted;
	uint32_t off;
	int i, k;

	for (k = 0; k < NWR; k++)
		for (i = 0; i < NQP; i++) {
			off = (uint32_t)k * MSG;
			struct roce_sge sg = {
				.addr = (uint64_t)(uintptr_t)(e->buf[i][0] +
							      off),
				.length = MSG,
				.lkey = roce_mr_lkey(e->mr[i][0]),
			};
			struct roce_send_wr wr = {
				.wr_id = (uint64_t)i,
				.opcode = op,
				.send_flags = ROCE_SEND_SIGNALED,
				.sg_list = &sg,
				.num_sge = 1,
			};

			wr.rdma.remote_addr =
				(uint64_t)(uintptr_t)(e->buf[i][1] + off);
			wr.rdma.rkey = roce_mr_rkey(e->mr[i][1]);
			CU_ASSERT_EQUAL_FATAL(roce_post_send(e->qp[i][0], &wr,
							     1, &posted), 0);
			e->posted++;
		}
}

/* What every run of @p sender's engines must show once all is done. */
static void
check_held_not_lost(struct env *e, int sender)
{
	uint64_t retrans = 0;
	int i;

	CU_ASSERT_EQUAL(e->errors, 0);
	for (i = 0; i < NQP; i++) {
		CU_ASSERT_EQUAL(memcmp(e->buf[i][0], e->buf[i][1], REGION), 0);
		retrans += e->qp[i][0]->stats.retrans_pkts;
		/* a QP's first frame waited for one budget of each other */
		CU_ASSERT(e->first[i] < (uint64_t)NQP * BUDGET);
	}
	/* held back, nothing dropped, so nothing resent */
	CU_ASSERT(fake_link_counter(e->l->ep[sender].w, "tx_held") > 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "tx_drop_full"), 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "tx_drop_full"), 0);
	CU_ASSERT_EQUAL(retrans, 0);
	CU_ASSERT_EQUAL(e->frames, (uint64_t)NQP * REGION /
			roce_mtu_bytes(ROCE_MTU_1024));
}

static void
test_requesters_held(void)
{
	struct env *e = env_create(0x7a01, -1);

	e->from = 0;
	post_all(e, ROCE_WR_RDMA_WRITE);
	CU_ASSERT(fake_link_run_until(e->l, all_done, e, MAX_ITERS) >= 0);
	check_held_not_lost(e, 0);
	env_destroy(e);
}

static void
test_read_responders_held(void)
{
	/* the requests arrive at once: turns are the responders' own */
	struct env *e = env_create(0x7a02, 1);
	int i;

	/* side 0 READs side 1's bytes into its own buffers */
	for (i = 0; i < NQP; i++)
		fill(e->buf[i][1], REGION, (uint32_t)(100 + i));
	e->from = 1;
	post_all(e, ROCE_WR_RDMA_READ);
	CU_ASSERT(fake_link_run_until(e->l, all_done, e, MAX_ITERS) >= 0);
	check_held_not_lost(e, 1);
	env_destroy(e);
}

static CU_TestInfo tx_room_tests[] = {
	{ "16 QPs into a full port: held, in turn, nothing lost",
	  test_requesters_held },
	{ "16 READ responders into a full port: the same",
	  test_read_responders_held },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "tx_room", NULL, NULL, NULL, NULL, tx_room_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
