/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state machine (roce_qp.c, roce_qp_table.c, roce_post.c):
 * - every (from, to) pair for RC, UC and UD against an oracle written from
 *   the spec (qp-state-machine.md, IBTA 10.3.1 / 11.2.5.2): legal pairs
 *   succeed with exactly the required mask and with all optional bits,
 *   fail with any required bit removed or any other bit added; illegal
 *   pairs fail; the QP is unchanged (query) after every failure;
 * - value ranges; create-time errors; posting per state; flush semantics;
 *   SQE for UC/UD only; RESET clears; SQD draining and its event.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_engine.h"
#include "roce_qp.h"
#include "roce_verbs.h"
#include "roce_worker.h"
#include "test_common.h"

#define NB_STATES (ROCE_QPS_ERR + 1)
#define ALL_MASK_BITS 21	/* ROCE_QP_STATE .. ROCE_QP_DEST_QPN */
#define BUF_SIZE 65536

static const enum roce_qp_type types[] = {
	ROCE_QPT_RC, ROCE_QPT_UC, ROCE_QPT_UD,
};

static const char *const state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

/* Address vector of UD sends: ::ffff:10.0.0.2 through GID 0. */
static struct roce_ah_attr ud_ah;

static struct {
	struct roce_device *dev;
	struct roce_worker *w, *w2;
	struct roce_pd *pd, *pd2;
	struct roce_cq *scq, *rcq, *cq_w2;
	struct roce_mr *mr;
	uint8_t *buf;
	uint64_t tx_pkts;
} g;

static uint16_t
tx_count_free(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t *cnt = ctx;

	rte_pktmbuf_free_bulk(pkts, n);
	*cnt += n;
	return n;
}

static void
pump(void)
{
	int i;

	for (i = 0; i < 4; i++)
		roce_worker_poll(g.w, rte_rdtsc());
}

static void
set_gid_v4(union roce_gid *gid, uint8_t last)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	gid->raw[12] = 10;
	gid->raw[15] = last;
}

static int
suite_init(void)
{
	struct roce_device_config cfg;

	memset(&g, 0, sizeof(g));
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "qp_state";
	cfg.mac[0] = 0x02;
	cfg.mac[5] = 0x01;
	set_gid_v4(&cfg.gid[0], 1);		/* ::ffff:10.0.0.1 */
	cfg.gid_valid[0] = true;
	cfg.gid[1].raw[0] = 0xfe;		/* fe80::1 */
	cfg.gid[1].raw[1] = 0x80;
	cfg.gid[1].raw[15] = 1;
	cfg.gid_valid[1] = true;
	cfg.max_qp = 256;
	cfg.max_mr = 64;
	cfg.max_mtu = ROCE_MTU_2048;		/* the port carries 2048 */
	cfg.hdr_pool = test_mbuf_pool();
	cfg.socket_id = SOCKET_ID_ANY;
	g.dev = roce_device_create(&cfg);
	if (g.dev == NULL)
		return -1;
	g.w = roce_worker_create(g.dev, tx_count_free, &g.tx_pkts);
	g.w2 = roce_worker_create(g.dev, tx_count_free, &g.tx_pkts);
	g.pd = roce_alloc_pd(g.dev);
	g.pd2 = roce_alloc_pd(g.dev);
	if (g.w == NULL || g.w2 == NULL || g.pd == NULL || g.pd2 == NULL)
		return -1;
	g.scq = roce_create_cq(g.w, 8192);
	g.rcq = roce_create_cq(g.w, 8192);
	g.cq_w2 = roce_create_cq(g.w2, 64);
	g.buf = rte_zmalloc("qp_state_buf", BUF_SIZE, 64);
	if (g.scq == NULL || g.rcq == NULL || g.cq_w2 == NULL || g.buf == NULL)
		return -1;
	g.mr = roce_reg_mr(g.pd, g.buf, BUF_SIZE, ROCE_ACCESS_LOCAL_WRITE |
			   ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	if (g.mr == NULL)
		return -1;
	set_gid_v4(&ud_ah.dgid, 2);
	ud_ah.sgid_index = 0;
	ud_ah.hop_limit = 64;
	/* bind the worker to this thread: control ops then run inline */
	pump();
	return 0;
}

static int
suite_fini(void)
{
	roce_dereg_mr(g.mr);
	roce_destroy_cq(g.cq_w2);
	roce_destroy_cq(g.rcq);
	roce_destroy_cq(g.scq);
	roce_dealloc_pd(g.pd2);
	roce_dealloc_pd(g.pd);
	roce_worker_destroy(g.w2);
	roce_worker_destroy(g.w);
	roce_device_destroy(g.dev);
	rte_free(g.buf);
	return 0;
}

/* Empty both CQs and the event queue; returns how many entries there were. */
static int
drain(void)
{
	struct roce_wc wc[64];
	struct roce_async_event ev;
	int n, total = 0;

	pump();
	while ((n = roce_poll_cq(g.scq, wc, 64)) > 0)
		total += n;
	while ((n = roce_poll_cq(g.rcq, wc, 64)) > 0)
		total += n;
	while (roce_get_async_event(g.dev, &ev) == 1)
		total++;
	return total;
}

/* ------------------------------------------------------------------ */
/* Oracle: the spec's table, written independently of the library     */
/* ------------------------------------------------------------------ */

#define M(x) ROCE_QP_ ## x

static bool
oracle(enum roce_qp_type t, int from, int to, uint32_t *req, uint32_t *opt)
{
	bool rc = t == ROCE_QPT_RC, uc = t == ROCE_QPT_UC, ud = t == ROCE_QPT_UD;
	uint32_t conn = rc || uc ? 1 : 0;	/* RC or UC */

	*req = M(STATE);
	*opt = 0;
	if (to == ROCE_QPS_RESET || to == ROCE_QPS_ERR)
		return true;		/* any -> RESET, any -> ERROR */
	if (from == ROCE_QPS_RESET && to == ROCE_QPS_INIT) {
		*req |= M(PKEY_INDEX) | M(PORT);
		*req |= ud ? M(QKEY) : M(ACCESS_FLAGS);
		return true;
	}
	if (from == ROCE_QPS_INIT && to == ROCE_QPS_INIT) {
		*opt = M(PKEY_INDEX) | M(PORT) | (ud ? M(QKEY) : M(ACCESS_FLAGS));
		return true;
	}
	if (from == ROCE_QPS_INIT && to == ROCE_QPS_RTR) {
		if (conn)
			*req |= M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN);
		if (rc)
			*req |= M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER);
		*opt = ud ? M(PKEY_INDEX) | M(QKEY) :
			M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX);
		if (rc)	/* softernic extension (roce_sr.h) */
			*opt |= M(SELECTIVE_REPEAT);
		return true;
	}
	if (from == ROCE_QPS_RTR && to == ROCE_QPS_RTS) {
		*req |= M(SQ_PSN);
		if (rc)
			*req |= M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				M(MAX_QP_RD_ATOMIC);
		*opt = M(CUR_STATE);
		*opt |= ud ? M(QKEY) : M(ACCESS_FLAGS) | M(ALT_PATH) |
			M(PATH_MIG_STATE);
		if (rc)
			*opt |= M(MIN_RNR_TIMER) | M(SELECTIVE_REPEAT);
		return true;
	}
	if (from == ROCE_QPS_RTS && to == ROCE_QPS_RTS) {
		*opt = M(CUR_STATE);
		*opt |= ud ? M(QKEY) : M(ACCESS_FLAGS) | M(ALT_PATH) |
			M(PATH_MIG_STATE);
		if (rc)
			*opt |= M(MIN_RNR_TIMER);
		return true;
	}
	if (from == ROCE_QPS_RTS && to == ROCE_QPS_SQD) {
		*opt = M(EN_SQD_ASYNC_NOTIFY);
		return true;
	}
	if (from == ROCE_QPS_SQD &&
	    (to == ROCE_QPS_SQD || to == ROCE_QPS_RTS)) {
		/* path, alt path, timeouts, retries, rd_atomic both ways,
		 * Q_Key, P_Key index, port, min RNR timer; + access, mig state
		 */
		*opt = M(PKEY_INDEX) | M(PORT);
		if (ud)
			*opt |= M(QKEY);
		if (conn)
			*opt |= M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) |
				M(PATH_MIG_STATE);
		if (rc)
			*opt |= M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
				M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC) |
				M(MIN_RNR_TIMER);
		if (to == ROCE_QPS_RTS)
			*opt |= M(CUR_STATE);
		return true;
	}
	if (from == ROCE_QPS_SQE && to == ROCE_QPS_RTS && !rc) {
		*opt = M(CUR_STATE) | (ud ? M(QKEY) : M(ACCESS_FLAGS));
		return true;
	}
	return false;
}

/* Attribute values valid for every attribute, cur_qp_state = @p cur. */
static void
full_attr(struct roce_qp_attr *a, int to, int cur)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	a->cur_qp_state = cur;
	a->path_mtu = ROCE_MTU_1024;
	a->qkey = 0x11111111;
	a->rq_psn = 0x123;
	a->sq_psn = 0x456;
	a->dest_qp_num = 0x77;
	a->qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	set_gid_v4(&a->ah_attr.dgid, 2);
	a->ah_attr.dmac[0] = 0x02;
	a->ah_attr.dmac[5] = 0x02;
	a->ah_attr.sgid_index = 0;
	a->ah_attr.hop_limit = 64;
	a->ah_attr.port_num = 1;
	a->alt_ah_attr = a->ah_attr;
	a->pkey_index = 0;
	a->en_sqd_async_notify = 0;
	a->max_rd_atomic = 4;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->port_num = 1;
	a->timeout = 0;		/* infinite: no retransmission in these tests */
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->path_mig_state = 0;
}

static struct roce_qp *
new_qp(enum roce_qp_type type)
{
	struct roce_qp_init_attr ia;
	struct roce_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = g.scq;
	ia.recv_cq = g.rcq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 64;
	qp = roce_create_qp(g.pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	return qp;
}

static int
qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	CU_ASSERT_FATAL(roce_query_qp(qp, &a, NULL) == 0);
	return a.qp_state;
}

/* One legal step with exactly the oracle's required mask. */
static void
step(struct roce_qp *qp, enum roce_qp_type type, int from, int to)
{
	struct roce_qp_attr a;
	uint32_t req, opt;

	CU_ASSERT_FATAL(oracle(type, from, to, &req, &opt));
	full_attr(&a, to, from);
	CU_ASSERT_FATAL(roce_modify_qp(qp, &a, (int)req) == 0);
	CU_ASSERT_FATAL(qp_state(qp) == to);
}

/* Bring a fresh QP to @p target by legal steps (SQE: a send error). */
static void
drive(struct roce_qp *qp, enum roce_qp_type type, int target)
{
	if (target == ROCE_QPS_RESET)
		return;
	if (target == ROCE_QPS_ERR) {
		step(qp, type, ROCE_QPS_RESET, ROCE_QPS_ERR);
		return;
	}
	step(qp, type, ROCE_QPS_RESET, ROCE_QPS_INIT);
	if (target == ROCE_QPS_INIT)
		return;
	step(qp, type, ROCE_QPS_INIT, ROCE_QPS_RTR);
	if (target == ROCE_QPS_RTR)
		return;
	step(qp, type, ROCE_QPS_RTR, ROCE_QPS_RTS);
	if (target == ROCE_QPS_RTS)
		return;
	if (target == ROCE_QPS_SQD) {
		step(qp, type, ROCE_QPS_RTS, ROCE_QPS_SQD);
		return;
	}
	/* SQE: a send-side error on UC/UD (this thread polls the worker) */
	roce_qp_error(qp, ROCE_ERR_LOC_PROT);
	CU_ASSERT_FATAL(qp_state(qp) == ROCE_QPS_SQE);
}

static bool
attr_equal(const struct roce_qp_attr *x, const struct roce_qp_attr *y)
{
	return x->qp_state == y->qp_state &&
	       x->cur_qp_state == y->cur_qp_state &&
	       x->path_mtu == y->path_mtu && x->qkey == y->qkey &&
	       x->rq_psn == y->rq_psn && x->sq_psn == y->sq_psn &&
	       x->dest_qp_num == y->dest_qp_num &&
	       x->qp_access_flags == y->qp_access_flags &&
	       memcmp(&x->cap, &y->cap, sizeof(x->cap)) == 0 &&
	       memcmp(&x->ah_attr, &y->ah_attr, sizeof(x->ah_attr)) == 0 &&
	       memcmp(&x->alt_ah_attr, &y->alt_ah_attr,
		      sizeof(x->alt_ah_attr)) == 0 &&
	       x->pkey_index == y->pkey_index &&
	       x->alt_pkey_index == y->alt_pkey_index &&
	       x->en_sqd_async_notify == y->en_sqd_async_notify &&
	       x->sq_draining == y->sq_draining &&
	       x->max_rd_atomic == y->max_rd_atomic &&
	       x->max_dest_rd_atomic == y->max_dest_rd_atomic &&
	       x->min_rnr_timer == y->min_rnr_timer &&
	       x->port_num == y->port_num && x->timeout == y->timeout &&
	       x->retry_cnt == y->retry_cnt && x->rnr_retry == y->rnr_retry &&
	       x->path_mig_state == y->path_mig_state;
}

/* A modify that must fail with -EINVAL and leave the QP as it was. */
static void
expect_refused(struct roce_qp *qp, const struct roce_qp_attr *a, int mask)
{
	struct roce_qp_attr before, after;
	int ret;

	CU_ASSERT_FATAL(roce_query_qp(qp, &before, NULL) == 0);
	ret = roce_modify_qp(qp, a, mask);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_FATAL(roce_query_qp(qp, &after, NULL) == 0);
	CU_ASSERT(attr_equal(&before, &after));
	if (ret != -EINVAL || !attr_equal(&before, &after))
		fprintf(stderr, "  refused? %s -> %s mask 0x%x: ret %d\n",
			state_names[before.qp_state], state_names[a->qp_state],
			mask, ret);
}

/* ------------------------------------------------------------------ */
/* Transition table                                                   */
/* ------------------------------------------------------------------ */

/* The library's table equals the oracle cell by cell. */
static void
test_table_matches_spec(void)
{
	unsigned int ti;
	int from, to;

	for (ti = 0; ti < RTE_DIM(types); ti++)
		for (from = 0; from < NB_STATES; from++)
			for (to = 0; to < NB_STATES; to++) {
				uint32_t req, opt, lreq = 0, lopt = 0;
				bool legal = oracle(types[ti], from, to, &req,
						    &opt);
				bool l = roce_qp_trans_masks(types[ti], from,
							     to, &lreq, &lopt);

				CU_ASSERT_EQUAL(l, legal);
				if (legal && l) {
					CU_ASSERT_EQUAL(lreq, req);
					CU_ASSERT_EQUAL(lopt, opt);
				}
			}
	CU_ASSERT_FALSE(roce_qp_trans_masks(1, ROCE_QPS_RESET, ROCE_QPS_INIT,
					    NULL, NULL));
	CU_ASSERT_FALSE(roce_qp_trans_masks(ROCE_QPT_RC, ROCE_QPS_UNKNOWN,
					    ROCE_QPS_RESET, NULL, NULL));
}

/* Every pair of one QP type, through roce_modify_qp() and roce_query_qp(). */
static void
check_pairs(enum roce_qp_type type)
{
	int from, to, b;

	for (from = 0; from < NB_STATES; from++) {
		if (from == ROCE_QPS_SQE && type == ROCE_QPT_RC)
			continue;	/* unreachable: see test_sqe_rc */
		for (to = 0; to < NB_STATES; to++) {
			struct roce_qp *qp = new_qp(type);
			struct roce_qp_attr a;
			uint32_t req, opt;
			bool legal = oracle(type, from, to, &req, &opt);

			drive(qp, type, from);
			full_attr(&a, to, from);
			if (!legal) {
				expect_refused(qp, &a, ROCE_QP_STATE);
				expect_refused(qp, &a, (1 << ALL_MASK_BITS) - 1);
				expect_refused(qp, &a, ROCE_QP_STATE |
					       ROCE_QP_CUR_STATE);
				CU_ASSERT_EQUAL(qp_state(qp), from);
				CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
				continue;
			}
			/* any required bit missing */
			for (b = 0; b < ALL_MASK_BITS; b++)
				if (req & (1u << b))
					expect_refused(qp, &a,
						       (int)(req & ~(1u << b)));
			/* any bit outside required | optional added */
			for (b = 0; b < ALL_MASK_BITS; b++)
				if (!((req | opt) & (1u << b)))
					expect_refused(qp, &a,
						       (int)(req | (1u << b)));
			CU_ASSERT_EQUAL(qp_state(qp), from);
			/* exactly the required mask */
			CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, (int)req), 0);
			CU_ASSERT_EQUAL(qp_state(qp), to);
			CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
			/* and with every optional attribute */
			qp = new_qp(type);
			drive(qp, type, from);
			CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, (int)(req | opt)),
					0);
			CU_ASSERT_EQUAL(qp_state(qp), to);
			CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
		}
	}
	drain();
}

static void
test_pairs_rc(void)
{
	check_pairs(ROCE_QPT_RC);
}

static void
test_pairs_uc(void)
{
	check_pairs(ROCE_QPT_UC);
}

static void
test_pairs_ud(void)
{
	check_pairs(ROCE_QPT_UD);
}

/* Out-of-range values: -EINVAL, QP unchanged; the good value then passes. */
static void
test_value_ranges(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	struct roce_qp_attr a;
	uint32_t req, opt;
	int mask;

	/* RESET -> INIT */
	oracle(ROCE_QPT_RC, ROCE_QPS_RESET, ROCE_QPS_INIT, &req, &opt);
	mask = (int)req;
	full_attr(&a, ROCE_QPS_INIT, ROCE_QPS_RESET);
	a.pkey_index = 1;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_INIT, ROCE_QPS_RESET);
	a.port_num = 2;
	expect_refused(qp, &a, mask);
	a.port_num = 0;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_INIT, ROCE_QPS_RESET);
	a.qp_access_flags |= ROCE_ACCESS_ZERO_BASED;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_INIT, ROCE_QPS_RESET);
	a.qp_state = ROCE_QPS_UNKNOWN;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_INIT, ROCE_QPS_RESET);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, mask), 0);

	/* INIT -> RTR */
	oracle(ROCE_QPT_RC, ROCE_QPS_INIT, ROCE_QPS_RTR, &req, &opt);
	mask = (int)req;
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.path_mtu = 0;
	expect_refused(qp, &a, mask);
	a.path_mtu = 6;
	expect_refused(qp, &a, mask);
	a.path_mtu = ROCE_MTU_4096;		/* above the port's (as rxe) */
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.dest_qp_num = 1u << 24;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.rq_psn = 1u << 24;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.min_rnr_timer = 32;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.max_dest_rd_atomic = 129;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.ah_attr.sgid_index = 2;		/* empty entry */
	expect_refused(qp, &a, mask);
	a.ah_attr.sgid_index = 8;		/* beyond the table */
	expect_refused(qp, &a, mask);
	a.ah_attr.sgid_index = 1;		/* IPv6 source, IPv4 destination */
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.alt_ah_attr.sgid_index = 3;
	expect_refused(qp, &a, mask | ROCE_QP_ALT_PATH);
	full_attr(&a, ROCE_QPS_RTR, 0);
	a.max_dest_rd_atomic = 128;		/* the limit itself is fine */
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, mask), 0);
	CU_ASSERT_EQUAL(qp->resp.res_cap, 128);
	CU_ASSERT_PTR_NOT_NULL(qp->resp.res);
	CU_ASSERT_EQUAL(qp->mtu, 1024);
	CU_ASSERT_EQUAL(qp->resp.epsn, 0x123);
	CU_ASSERT_EQUAL(qp->path.dqpn, 0x77);
	CU_ASSERT_EQUAL(qp->path.ip_ver, 4);
	CU_ASSERT_EQUAL(qp->hdr_len, 14 + 20 + 8);	/* Ethernet, IPv4, UDP */
	CU_ASSERT(qp->udp_sport >= 0xc000);

	/* RTR -> RTS */
	oracle(ROCE_QPT_RC, ROCE_QPS_RTR, ROCE_QPS_RTS, &req, &opt);
	mask = (int)req;
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.timeout = 32;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.retry_cnt = 8;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.rnr_retry = 8;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.max_rd_atomic = 129;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.sq_psn = 1u << 24;
	expect_refused(qp, &a, mask);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_INIT);	/* wrong current state */
	expect_refused(qp, &a, mask | ROCE_QP_CUR_STATE);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.path_mig_state = 3;
	expect_refused(qp, &a, mask | ROCE_QP_PATH_MIG_STATE);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_RTR);
	a.timeout = 31;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, mask | ROCE_QP_CUR_STATE), 0);
	CU_ASSERT_EQUAL(qp->req.psn, 0x456);
	CU_ASSERT_EQUAL(qp->comp.psn, 0x456);
	CU_ASSERT_EQUAL(qp->comp.retry_left, 7);
	CU_ASSERT_EQUAL(qp->comp.rnr_retry_left, 7);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(roce_modify_qp(NULL, &a, ROCE_QP_STATE), -EINVAL);
	drain();
}

/* ------------------------------------------------------------------ */
/* Create                                                             */
/* ------------------------------------------------------------------ */

static void
init_attr(struct roce_qp_init_attr *ia)
{
	memset(ia, 0, sizeof(*ia));
	ia->qp_type = ROCE_QPT_RC;
	ia->send_cq = g.scq;
	ia->recv_cq = g.rcq;
	ia->cap.max_send_wr = 16;
	ia->cap.max_recv_wr = 16;
	ia->cap.max_send_sge = 1;
	ia->cap.max_recv_sge = 1;
}

static void
expect_create_fails(struct roce_pd *pd, const struct roce_qp_init_attr *ia,
		    int err)
{
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_create_qp(pd, ia));
	CU_ASSERT_EQUAL(rte_errno, err);
}

static void
test_create_errors(void)
{
	struct roce_qp_init_attr ia;
	struct roce_srq_attr sa = { .max_wr = 16, .max_sge = 1 };
	struct roce_srq *srq2;
	struct roce_qp *qp, *qps[4];
	struct roce_device_config cfg;
	struct roce_device *small;
	struct roce_worker *sw;
	struct roce_pd *spd;
	struct roce_cq *scq;
	uint32_t qpn;
	int i, n;

	init_attr(&ia);
	expect_create_fails(NULL, &ia, EINVAL);		/* invalid PD */
	expect_create_fails(g.pd, NULL, EINVAL);
	ia.send_cq = NULL;				/* invalid CQ */
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.recv_cq = g.cq_w2;				/* CQs on two workers */
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.qp_type = (enum roce_qp_type)1;		/* invalid QP type */
	expect_create_fails(g.pd, &ia, EINVAL);
	ia.qp_type = (enum roce_qp_type)5;
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.cap.max_send_wr = ROCE_MAX_QP_WR + 1;	/* WRs above the limit */
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.cap.max_recv_wr = ROCE_MAX_QP_WR + 1;
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.cap.max_send_sge = ROCE_MAX_SGE + 1;		/* SGEs above the limit */
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.cap.max_recv_sge = ROCE_MAX_SGE + 1;
	expect_create_fails(g.pd, &ia, EINVAL);
	init_attr(&ia);
	ia.cap.max_inline_data = ROCE_MAX_INLINE + 1;	/* inline above the limit */
	expect_create_fails(g.pd, &ia, EINVAL);
	/* an SRQ of another PD */
	srq2 = roce_create_srq(g.pd2, g.w, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq2);
	init_attr(&ia);
	ia.srq = srq2;
	expect_create_fails(g.pd, &ia, EINVAL);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq2), 0);

	/* the limits themselves are accepted; refcounts hold the objects */
	init_attr(&ia);
	ia.cap.max_send_wr = ROCE_MAX_QP_WR;
	ia.cap.max_send_sge = ROCE_MAX_SGE;
	ia.cap.max_inline_data = ROCE_MAX_INLINE;
	qp = roce_create_qp(g.pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	qpn = roce_qp_num(qp);
	CU_ASSERT(qpn >= 2 && qpn < 256);
	CU_ASSERT_PTR_EQUAL(roce_qp_lookup(g.dev, qpn), qp);
	CU_ASSERT_EQUAL(roce_dealloc_pd(g.pd), -EBUSY);
	CU_ASSERT_EQUAL(roce_destroy_cq(g.scq), -EBUSY);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_RESET);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	CU_ASSERT_PTR_NULL(roce_qp_lookup(g.dev, qpn));

	/* out of resources: a device with QPNs 2 and 3 only */
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "qp_small";
	set_gid_v4(&cfg.gid[0], 9);
	cfg.gid_valid[0] = true;
	cfg.max_qp = 4;
	cfg.max_mr = 16;
	cfg.hdr_pool = test_mbuf_pool();
	cfg.socket_id = SOCKET_ID_ANY;
	small = roce_device_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(small);
	sw = roce_worker_create(small, tx_count_free, &g.tx_pkts);
	spd = roce_alloc_pd(small);
	scq = roce_create_cq(sw, 16);
	CU_ASSERT_FATAL(sw != NULL && spd != NULL && scq != NULL);
	init_attr(&ia);
	ia.send_cq = ia.recv_cq = scq;
	for (n = 0; n < 4; n++) {
		qps[n] = roce_create_qp(spd, &ia);
		if (qps[n] == NULL)
			break;
	}
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(rte_errno, ENOMEM);
	/* a CQ of another device */
	expect_create_fails(g.pd, &ia, EINVAL);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(roce_destroy_qp(qps[i]), 0);
	CU_ASSERT_EQUAL(roce_destroy_cq(scq), 0);
	CU_ASSERT_EQUAL(roce_dealloc_pd(spd), 0);
	CU_ASSERT_EQUAL(roce_worker_destroy(sw), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(small), 0);
}

/* ------------------------------------------------------------------ */
/* Posting                                                            */
/* ------------------------------------------------------------------ */

static int
post_one_send(struct roce_qp *qp, uint64_t wr_id, uint32_t flags)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)g.buf, .length = 32,
		.lkey = roce_mr_lkey(g.mr),
	};
	struct roce_send_wr wr;
	unsigned int posted = 99;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = flags;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (qp->type == ROCE_QPT_UD) {
		wr.ud.ah = &ud_ah;
		wr.ud.remote_qpn = 0x77;
		wr.ud.remote_qkey = 0x11111111;
	}
	ret = roce_post_send(qp, &wr, 1, &posted);
	CU_ASSERT_EQUAL(posted, ret == 0 ? 1u : 0u);
	return ret;
}

static int
post_one_recv(struct roce_qp *qp, uint64_t wr_id)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)g.buf + 4096, .length = 4096,
		.lkey = roce_mr_lkey(g.mr),
	};
	struct roce_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	unsigned int posted = 99;
	int ret;

	ret = roce_post_recv(qp, &wr, 1, &posted);
	CU_ASSERT_EQUAL(posted, ret == 0 ? 1u : 0u);
	return ret;
}

/* Posting column of the behaviour table, for the 7 states and 3 types. */
static void
test_post_per_state(void)
{
	static const int send_ok[NB_STATES] = {
		[ROCE_QPS_RTS] = 1, [ROCE_QPS_SQD] = 1, [ROCE_QPS_SQE] = 1,
		[ROCE_QPS_ERR] = 1,
	};
	static const int recv_ok[NB_STATES] = {
		[ROCE_QPS_INIT] = 1, [ROCE_QPS_RTR] = 1, [ROCE_QPS_RTS] = 1,
		[ROCE_QPS_SQD] = 1, [ROCE_QPS_SQE] = 1, [ROCE_QPS_ERR] = 1,
	};
	unsigned int ti;
	int s;

	for (ti = 0; ti < RTE_DIM(types); ti++) {
		for (s = 0; s < NB_STATES; s++) {
			struct roce_qp *qp;

			if (s == ROCE_QPS_SQE && types[ti] == ROCE_QPT_RC)
				continue;
			qp = new_qp(types[ti]);
			drive(qp, types[ti], s);
			CU_ASSERT_EQUAL(post_one_recv(qp, 1),
					recv_ok[s] ? 0 : -EINVAL);
			CU_ASSERT_EQUAL(post_one_send(qp, 2, ROCE_SEND_SIGNALED),
					send_ok[s] ? 0 : -EINVAL);
			pump();
			CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
			drain();
		}
	}
}

/* Per-WR validation of post_send on an RC QP in RTS. */
static void
test_post_validation(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	struct roce_qp *uc = new_qp(ROCE_QPT_UC);
	struct roce_qp *ud = new_qp(ROCE_QPT_UD);
	struct roce_sge sge[5], s8;
	struct roce_send_wr wr;
	struct roce_recv_wr rwr;
	unsigned int posted, i;
	int ret;

	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	drive(uc, ROCE_QPT_UC, ROCE_QPS_RTS);
	drive(ud, ROCE_QPT_UD, ROCE_QPS_RTS);
	for (i = 0; i < RTE_DIM(sge); i++) {
		sge[i].addr = (uintptr_t)g.buf + i * 64;
		sge[i].length = 64;
		sge[i].lkey = roce_mr_lkey(g.mr);
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = sge;
	wr.num_sge = 5;			/* max_send_sge is 4 */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_OPCODE_MAX;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = 1u << 7;	/* unknown flag */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	wr.send_flags = 0;
	/* UC: no READ or atomics; UD: SENDs only */
	wr.opcode = ROCE_WR_RDMA_READ;
	CU_ASSERT_EQUAL(roce_post_send(uc, &wr, 1, &posted), -EINVAL);
	wr.opcode = ROCE_WR_RDMA_WRITE;
	CU_ASSERT_EQUAL(roce_post_send(ud, &wr, 1, &posted), -EINVAL);
	wr.opcode = ROCE_WR_SEND_WITH_INV;
	CU_ASSERT_EQUAL(roce_post_send(uc, &wr, 1, &posted), -EINVAL);
	/* inline: SEND/WRITE only, at most max_inline (64) bytes */
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.send_flags = ROCE_SEND_INLINE;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	wr.opcode = ROCE_WR_SEND;
	wr.num_sge = 2;			/* 128 bytes */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	/* atomics: one 8-byte SGE, 8-byte aligned remote address */
	s8 = sge[0];
	s8.length = 8;
	wr.send_flags = 0;
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &s8;
	wr.num_sge = 1;
	wr.atomic.remote_addr = 0x1004;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	wr.atomic.remote_addr = 0x1000;
	wr.sg_list = sge;		/* 64 bytes */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EINVAL);
	/* unknown lkey, out-of-bounds SGE: -EFAULT */
	wr.opcode = ROCE_WR_SEND;
	s8.lkey ^= 0x100;
	wr.sg_list = &s8;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	s8 = sge[0];
	s8.length = BUF_SIZE + 1;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	/* UD: an AH with a valid source GID is required */
	wr.sg_list = sge;
	wr.ud.ah = NULL;
	CU_ASSERT_EQUAL(roce_post_send(ud, &wr, 1, &posted), -EINVAL);
	ud_ah.sgid_index = 5;
	wr.ud.ah = &ud_ah;
	CU_ASSERT_EQUAL(roce_post_send(ud, &wr, 1, &posted), -EINVAL);
	ud_ah.sgid_index = 0;
	/* the batch stops at the first bad WR; earlier ones are posted */
	{
		struct roce_send_wr batch[3];

		for (i = 0; i < 3; i++) {
			batch[i] = wr;
			batch[i].ud.ah = NULL;
			batch[i].wr_id = 10 + i;
			batch[i].send_flags = ROCE_SEND_SIGNALED;
		}
		batch[2].num_sge = 9;
		ret = roce_post_send(qp, batch, 3, &posted);
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_EQUAL(posted, 2);
	}
	/* queue full: 64 WRs, two of them posted above */
	wr.send_flags = ROCE_SEND_INLINE;
	wr.num_sge = 1;
	for (i = 0; i < 62; i++)
		CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -ENOMEM);
	/* receive: SGE count, lkey (local write), queue full */
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = sge;
	rwr.num_sge = 5;
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), -EINVAL);
	rwr.num_sge = 1;
	sge[0].lkey ^= 0x100;
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), -EFAULT);
	sge[0].lkey ^= 0x100;
	for (i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), -ENOMEM);
	CU_ASSERT(qp->stats.post_send_err > 0 && qp->stats.post_recv_err > 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(uc), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(ud), 0);
	drain();
}

/*
 * The posters' L_Key caches (roce_key_check_local_cached(), one for the SQ
 * and one for the RQ): a key that passed is checked again from the cache,
 * which must still refuse a range outside the region, a READ or a receive
 * into a region without local write, and a key deregistered since (its
 * index taken by a new registration).
 */
static void
test_post_key_cache(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	uint8_t *buf2 = rte_zmalloc("qp_state_buf2", 4096, 64);
	struct roce_mr *ro, *mr2;
	struct roce_send_wr wr;
	struct roce_recv_wr rwr;
	struct roce_sge s;
	unsigned int posted;
	uint32_t old;

	CU_ASSERT_FATAL(qp != NULL && buf2 != NULL);
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	/* no local write: SENDs from it, no READs or receives into it */
	ro = roce_reg_mr(g.pd, buf2, 4096, 0);
	CU_ASSERT_FATAL(ro != NULL);
	s.addr = (uintptr_t)buf2;
	s.length = 64;
	s.lkey = roce_mr_lkey(ro);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &s;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), 0);
	s.addr = (uintptr_t)buf2 + 4096 - 32;	/* runs past the end */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	s.addr = (uintptr_t)buf2 - 64;		/* starts before it */
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	s.addr = (uintptr_t)buf2;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.rdma.remote_addr = 0x1000;
	wr.rdma.rkey = 0x100;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &s;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), -EFAULT);
	/* deregistered, the index reused: the old key fails */
	old = s.lkey;
	CU_ASSERT_EQUAL(roce_dereg_mr(ro), 0);
	mr2 = roce_reg_mr(g.pd, buf2, 4096, ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_FATAL(mr2 != NULL);
	CU_ASSERT_NOT_EQUAL(roce_mr_lkey(mr2), old);
	wr.opcode = ROCE_WR_SEND;
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	s.lkey = roce_mr_lkey(mr2);
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), 0);
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), 0);
	/* and both caches see a deregistration */
	CU_ASSERT_EQUAL(roce_dereg_mr(mr2), 0);
	CU_ASSERT_EQUAL(roce_post_recv(qp, &rwr, 1, &posted), -EFAULT);
	CU_ASSERT_EQUAL(roce_post_send(qp, &wr, 1, &posted), -EFAULT);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
	rte_free(buf2);
}

/* ------------------------------------------------------------------ */
/* Flush, SQE, RESET, SQD                                             */
/* ------------------------------------------------------------------ */

/* Poll exactly the @p n expected completions from @p cq, then nothing. */
static void
expect_wcs(struct roce_cq *cq, const uint64_t *ids,
	   const enum roce_wc_status *st, int n, enum roce_wc_opcode op)
{
	struct roce_wc wc[128];
	int got = 0, r, i;

	pump();
	while ((r = roce_poll_cq(cq, wc + got, 128 - got)) > 0)
		got += r;
	CU_ASSERT_EQUAL(got, n);
	for (i = 0; i < got && i < n; i++) {
		CU_ASSERT_EQUAL(wc[i].wr_id, ids[i]);
		CU_ASSERT_EQUAL(wc[i].status, st[i]);
		if (op != (enum roce_wc_opcode)-1)
			CU_ASSERT_EQUAL(wc[i].opcode, op);
	}
	pump();
	CU_ASSERT_EQUAL(roce_poll_cq(cq, wc, 1), 0);
}

/* RC in RTS without a peer, ERR: everything flushed once, in order. */
static void
test_flush_err(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	enum roce_wc_status fl[8];
	uint64_t sids[8], rids[8];
	struct roce_qp_attr a;
	struct roce_async_event ev;
	uint64_t tx0;
	int i;

	drain();
	for (i = 0; i < 8; i++)
		fl[i] = ROCE_WC_WR_FLUSH_ERR;
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	for (i = 0; i < 3; i++) {
		rids[i] = 200 + i;
		CU_ASSERT_EQUAL(post_one_recv(qp, rids[i]), 0);
	}
	tx0 = g.tx_pkts;
	/* signaled and unsignaled: flushed WRs complete either way */
	for (i = 0; i < 5; i++) {
		sids[i] = 100 + i;
		CU_ASSERT_EQUAL(post_one_send(qp, sids[i],
			(i & 1) ? 0 : ROCE_SEND_SIGNALED), 0);
	}
	pump();
	CU_ASSERT(g.tx_pkts > tx0);	/* they went out, unacknowledged */
	CU_ASSERT_EQUAL(roce_poll_cq(g.scq, (struct roce_wc[1]){ 0 }, 1), 0);
	full_attr(&a, ROCE_QPS_ERR, 0);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	expect_wcs(g.scq, sids, fl, 5, ROCE_WC_SEND);
	expect_wcs(g.rcq, rids, fl, 3, ROCE_WC_RECV);
	/* posts in ERR are accepted and flushed too */
	sids[0] = 105;
	sids[1] = 106;
	rids[0] = 203;
	CU_ASSERT_EQUAL(post_one_send(qp, sids[0], 0), 0);
	CU_ASSERT_EQUAL(post_one_send(qp, sids[1], ROCE_SEND_SIGNALED), 0);
	CU_ASSERT_EQUAL(post_one_recv(qp, rids[0]), 0);
	expect_wcs(g.scq, sids, fl, 2, ROCE_WC_SEND);
	expect_wcs(g.rcq, rids, fl, 1, ROCE_WC_RECV);
	/* a receive alone, posted in ERR, is flushed as well */
	rids[0] = 204;
	CU_ASSERT_EQUAL(post_one_recv(qp, rids[0]), 0);
	expect_wcs(g.rcq, rids, fl, 1, ROCE_WC_RECV);
	/* a software move to ERR raises no async event */
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	CU_ASSERT(qp->stats.wr_flushed == 12);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
}

/* The first failed WR carries the cause; RC goes to ERR, not SQE. */
static void
test_error_rc(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	static const uint64_t ids[3] = { 1, 2, 3 };
	static const enum roce_wc_status st[3] = {
		ROCE_WC_LOC_PROT_ERR, ROCE_WC_WR_FLUSH_ERR, ROCE_WC_WR_FLUSH_ERR,
	};
	struct roce_send_wqe *wqe;
	struct roce_async_event ev;
	struct roce_qp_attr a;
	int i;

	drain();
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(post_one_send(qp, ids[i], 0), 0);
	/* as an engine would: the oldest WQE failed with its cause */
	wqe = roce_wq_slot(&qp->sq, qp->sq.cons);
	wqe->state = ROCE_WQE_ERROR;
	wqe->status = ROCE_ERR_LOC_PROT;
	roce_qp_error(qp, ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	expect_wcs(g.scq, ids, st, 3, ROCE_WC_SEND);
	/* completion errors raise no async event */
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	/* SQE -> RTS does not exist for RC; ERR -> RTS is illegal */
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_ERR);
	expect_refused(qp, &a, ROCE_QP_STATE);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);

	/* a responder-side access violation: ERR + QP_ACCESS_ERR */
	qp = new_qp(ROCE_QPT_RC);
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	roce_qp_recv_error(qp, ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_QP_ACCESS_ERR);
	CU_ASSERT_EQUAL(ev.qp_num, roce_qp_num(qp));
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);

	/* an invalid request: QP_REQ_ERR; a fatal cause: QP_FATAL */
	qp = new_qp(ROCE_QPT_UC);
	drive(qp, ROCE_QPT_UC, ROCE_QPS_RTS);
	roce_qp_recv_error(qp, ROCE_ERR_REM_INV_REQ);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);	/* not SQE */
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_QP_REQ_ERR);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	qp = new_qp(ROCE_QPT_UD);
	drive(qp, ROCE_QPT_UD, ROCE_QPS_RTS);
	roce_qp_error(qp, ROCE_ERR_FATAL);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_QP_FATAL);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
}

/* UC/UD: SQE flushes the SQ only, the RQ keeps working, SQE -> RTS. */
static void
check_sqe(enum roce_qp_type type)
{
	struct roce_qp *qp = new_qp(type);
	static const uint64_t ids[4] = { 1, 2, 3, 4 };
	static const enum roce_wc_status st[4] = {
		ROCE_WC_LOC_PROT_ERR, ROCE_WC_WR_FLUSH_ERR,
		ROCE_WC_WR_FLUSH_ERR, ROCE_WC_WR_FLUSH_ERR,
	};
	static const enum roce_wc_status ok[1] = { ROCE_WC_SUCCESS };
	static const uint64_t id9[1] = { 9 };
	struct roce_send_wqe *wqe;
	struct roce_async_event ev;
	struct roce_qp_attr a;
	struct roce_wc wc;
	uint64_t tx0;
	int i;

	drain();
	drive(qp, type, ROCE_QPS_RTS);
	CU_ASSERT_EQUAL(post_one_recv(qp, 50), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(post_one_send(qp, ids[i], 0), 0);
	wqe = roce_wq_slot(&qp->sq, qp->sq.cons);
	wqe->state = ROCE_WQE_ERROR;
	wqe->status = ROCE_ERR_LOC_PROT;
	roce_qp_error(qp, ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_SQE);
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	/* posting in SQE: both accepted; the send is flushed, the recv kept */
	CU_ASSERT_EQUAL(post_one_send(qp, ids[3], 0), 0);
	CU_ASSERT_EQUAL(post_one_recv(qp, 51), 0);
	expect_wcs(g.scq, ids, st, 4, ROCE_WC_SEND);
	pump();
	CU_ASSERT_EQUAL(roce_poll_cq(g.rcq, &wc, 1), 0);
	CU_ASSERT_EQUAL(roce_wq_used(&qp->rq), 2);
	/* SQE -> RTS with the required mask; sends go out again */
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_SQE);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE |
				       ROCE_QP_CUR_STATE), 0);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_RTS);
	tx0 = g.tx_pkts;
	CU_ASSERT_EQUAL(post_one_send(qp, 9, ROCE_SEND_SIGNALED), 0);
	pump();
	CU_ASSERT_EQUAL(g.tx_pkts, tx0 + 1);
	/* UC/UD: complete when sent */
	expect_wcs(g.scq, id9, ok, 1, ROCE_WC_SEND);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
}

static void
test_sqe_uc(void)
{
	check_sqe(ROCE_QPT_UC);
}

static void
test_sqe_ud(void)
{
	check_sqe(ROCE_QPT_UD);
}

/* RESET empties both queues without completions; the QP is reusable. */
static void
test_reset_clears(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	struct roce_qp_attr a, q;
	struct roce_qp_init_attr ia;
	struct roce_wc wc;
	uint64_t tx0;
	int i;

	drain();
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(post_one_recv(qp, 300 + i), 0);
		CU_ASSERT_EQUAL(post_one_send(qp, 400 + i, ROCE_SEND_SIGNALED),
				0);
	}
	full_attr(&a, ROCE_QPS_RESET, 0);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	pump();
	CU_ASSERT_EQUAL(roce_poll_cq(g.scq, &wc, 1), 0);
	CU_ASSERT_EQUAL(roce_poll_cq(g.rcq, &wc, 1), 0);
	CU_ASSERT_EQUAL(roce_wq_used(&qp->sq), 0);
	CU_ASSERT_EQUAL(roce_wq_used(&qp->rq), 0);
	CU_ASSERT_EQUAL(roce_query_qp(qp, &q, &ia), 0);
	CU_ASSERT_EQUAL(q.qp_state, ROCE_QPS_RESET);
	CU_ASSERT_EQUAL(q.dest_qp_num, 0);
	CU_ASSERT_EQUAL(q.cap.max_send_wr, 64);
	CU_ASSERT_EQUAL(ia.cap.max_recv_sge, 4);
	CU_ASSERT_EQUAL(ia.qp_type, ROCE_QPT_RC);
	/* ERR -> RESET also drops what a flush has not seen */
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	tx0 = g.tx_pkts;
	CU_ASSERT_EQUAL(post_one_send(qp, 500, ROCE_SEND_SIGNALED), 0);
	pump();
	CU_ASSERT_EQUAL(g.tx_pkts, tx0 + 1);
	full_attr(&a, ROCE_QPS_RESET, 0);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	pump();
	CU_ASSERT_EQUAL(roce_poll_cq(g.scq, &wc, 1), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
}

/* SQD: draining while a WQE is in flight, the drained event, SQD -> RTS. */
static void
test_sqd_drain(void)
{
	struct roce_qp *qp = new_qp(ROCE_QPT_RC);
	struct roce_async_event ev;
	struct roce_send_wqe *wqe;
	struct roce_qp_attr a, q;
	uint64_t tx0;
	struct roce_wc wc;

	drain();
	/* empty SQ: drained at once, event when asked for */
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	full_attr(&a, ROCE_QPS_SQD, ROCE_QPS_RTS);
	a.en_sqd_async_notify = 1;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE |
				       ROCE_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_SQ_DRAINED);
	CU_ASSERT_EQUAL(ev.qp_num, roce_qp_num(qp));
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	/* attribute change while drained */
	full_attr(&a, ROCE_QPS_SQD, ROCE_QPS_SQD);
	a.timeout = 20;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_TIMEOUT),
			0);
	CU_ASSERT_EQUAL(roce_query_qp(qp, &q, NULL), 0);
	CU_ASSERT_EQUAL(q.timeout, 20);
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_SQD);
	a.timeout = 0;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_TIMEOUT),
			0);

	/* one WQE in flight (sent, no ACK): draining */
	tx0 = g.tx_pkts;
	CU_ASSERT_EQUAL(post_one_send(qp, 7, ROCE_SEND_SIGNALED), 0);
	pump();
	CU_ASSERT_EQUAL(g.tx_pkts, tx0 + 1);
	full_attr(&a, ROCE_QPS_SQD, ROCE_QPS_RTS);
	a.en_sqd_async_notify = 1;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE |
				       ROCE_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CU_ASSERT_EQUAL(roce_query_qp(qp, &q, NULL), 0);
	CU_ASSERT_EQUAL(q.qp_state, ROCE_QPS_SQD);
	CU_ASSERT_EQUAL(q.sq_draining, 1);
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	/* new WQEs wait in SQD */
	CU_ASSERT_EQUAL(post_one_send(qp, 8, ROCE_SEND_SIGNALED), 0);
	pump();
	CU_ASSERT_EQUAL(g.tx_pkts, tx0 + 1);
	/* SQD -> RTS and SQD -> SQD need "drained" */
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_SQD);
	expect_refused(qp, &a, ROCE_QP_STATE);
	full_attr(&a, ROCE_QPS_SQD, ROCE_QPS_SQD);
	expect_refused(qp, &a, ROCE_QP_STATE);
	/* the completer retires the WQE (as on its ACK): drained, event once */
	wqe = roce_wq_slot(&qp->sq, qp->sq.cons);
	wqe->state = ROCE_WQE_DONE;
	roce_comp_retire(qp);
	CU_ASSERT_EQUAL(roce_poll_cq(g.scq, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(roce_query_qp(qp, &q, NULL), 0);
	CU_ASSERT_EQUAL(q.sq_draining, 0);
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_SQ_DRAINED);
	roce_qp_check_drained(qp);
	CU_ASSERT_EQUAL(roce_get_async_event(g.dev, &ev), 0);
	/* back to RTS: the waiting WQE goes out */
	full_attr(&a, ROCE_QPS_RTS, ROCE_QPS_SQD);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	pump();
	CU_ASSERT_EQUAL(g.tx_pkts, tx0 + 2);
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	drain();
}

/* A QP on an SRQ: no own RQ; ERR raises Last WQE Reached, SRQ WQEs stay. */
static void
test_srq_qp(void)
{
	struct roce_srq_attr sa = { .max_wr = 16, .max_sge = 1 };
	struct roce_sge sge = {
		.addr = (uintptr_t)g.buf, .length = 64,
		.lkey = roce_mr_lkey(g.mr),
	};
	struct roce_recv_wr rwr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct roce_qp_init_attr ia;
	struct roce_async_event ev;
	struct roce_qp_attr a;
	struct roce_srq *srq;
	struct roce_qp *qp;
	struct roce_wc wc;
	unsigned int posted;

	drain();
	srq = roce_create_srq(g.pd, g.w, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &rwr, 1, &posted), 0);
	init_attr(&ia);
	ia.srq = srq;
	qp = roce_create_qp(g.pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), -EBUSY);
	drive(qp, ROCE_QPT_RC, ROCE_QPS_RTS);
	CU_ASSERT_EQUAL(post_one_recv(qp, 1), -EINVAL);
	full_attr(&a, ROCE_QPS_ERR, 0);
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
	pump();
	CU_ASSERT_EQUAL(roce_poll_cq(g.rcq, &wc, 1), 0);
	CU_ASSERT_EQUAL(roce_wq_used(&srq->rq), 1);
	CU_ASSERT_EQUAL_FATAL(roce_get_async_event(g.dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_QP_LAST_WQE_REACHED);
	CU_ASSERT_EQUAL(ev.qp_num, roce_qp_num(qp));
	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	drain();
}

/* Destroy is legal in every state and leaves nothing behind. */
static void
test_destroy_any_state(void)
{
	unsigned int ti;
	int s;

	for (ti = 0; ti < RTE_DIM(types); ti++)
		for (s = 0; s < NB_STATES; s++) {
			struct roce_qp *qp;
			uint32_t qpn;

			if (s == ROCE_QPS_SQE && types[ti] == ROCE_QPT_RC)
				continue;
			qp = new_qp(types[ti]);
			qpn = roce_qp_num(qp);
			drive(qp, types[ti], s);
			if (s >= ROCE_QPS_INIT)
				CU_ASSERT_EQUAL(post_one_recv(qp, 1), 0);
			if (s >= ROCE_QPS_RTS)
				CU_ASSERT_EQUAL(post_one_send(qp, 2,
						ROCE_SEND_SIGNALED), 0);
			CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
			CU_ASSERT_PTR_NULL(roce_qp_lookup(g.dev, qpn));
			pump();
		}
	drain();
	CU_ASSERT_EQUAL(roce_destroy_qp(NULL), -EINVAL);
}

static CU_TestInfo qp_tests[] = {
	{ "transition table equals the spec", test_table_matches_spec },
	{ "RC: every (from, to) pair", test_pairs_rc },
	{ "UC: every (from, to) pair", test_pairs_uc },
	{ "UD: every (from, to) pair", test_pairs_ud },
	{ "attribute value ranges", test_value_ranges },
	{ "create errors are distinct", test_create_errors },
	{ "posting per state", test_post_per_state },
	{ "post validation", test_post_validation },
	{ "post: the L_Key caches follow the keys", test_post_key_cache },
	{ "ERR flushes everything once, in order", test_flush_err },
	{ "RC errors: cause first, ERR, events", test_error_rc },
	{ "UC: SQE and SQE->RTS", test_sqe_uc },
	{ "UD: SQE and SQE->RTS", test_sqe_ud },
	{ "RESET clears the queues", test_reset_clears },
	{ "SQD draining and the drained event", test_sqd_drain },
	{ "SRQ user: Last WQE Reached", test_srq_qp },
	{ "destroy in every state", test_destroy_any_state },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "qp_state", suite_init, suite_fini, NULL, NULL, qp_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
