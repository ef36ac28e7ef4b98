/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API test's UD, SRQ limit, CQ resize and overrun, rereg and
 * type 2 memory windows (api_test.h).
 */
#include "api_test.h"

/* ------------------------------------------------------------------ */
/* UD                                                                 */
/* ------------------------------------------------------------------ */

void
test_ud(void)
{
	struct ibv_qp_init_attr_ex xa;
	struct ibv_ah_attr aa, reply;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp *qp[2], *qx;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *cq[2];
	struct mem ma, mb;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	for (i = 0; i < 2; i++) {
		cq[i] = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(cq[i]);
		qp[i] = qp_new(IBV_QPT_UD, cq[i], NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp[i]);
		CU_ASSERT_EQUAL_FATAL(ud_up(qp[i]), 0);
	}

	/* RoCE: every address is global */
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 0;
	aa.port_num = 1;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_ah(pd, &aa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	aa.is_global = 1;
	aa.grh.dgid = gid1;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);

	/* a SEND of 512 bytes: 40 bytes of GRH in front on the receiver */
	fill(ma.p, 512, 10);
	memset(mb.p, 0xee, GRH_LEN + 512);
	CU_ASSERT_EQUAL(post_recv(qp[1], 1, mb.p, GRH_LEN + 512,
				  mb.mr->lkey), 0);
	wr_fill(&wr, &sge, 2, IBV_WR_SEND, ma.p, 512, ma.mr->lkey);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qp[1]->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(cq[0], IBV_WC_SEND, 2, NULL));
	CU_ASSERT(expect_wc(cq[1], IBV_WC_RECV, 1, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, GRH_LEN + 512);
	CU_ASSERT(wc.wc_flags & IBV_WC_GRH);
	CU_ASSERT_EQUAL(wc.src_qp, qp[0]->qp_num);
	CU_ASSERT_EQUAL(wc.qp_num, qp[1]->qp_num);
	CU_ASSERT_EQUAL(memcmp(mb.p + GRH_LEN, ma.p, 512), 0);
	/* RoCEv2 over IPv4: 20 bytes, then the IPv4 header (Linux's layout) */
	CU_ASSERT_EQUAL(mb.p[20] >> 4, 4);
	CU_ASSERT_EQUAL(memcmp(mb.p + 20 + 12, gid1_want + 12, 4), 0);
	CU_ASSERT_EQUAL(memcmp(mb.p + 20 + 16, gid1_want + 12, 4), 0);
	/* the address of a reply, from the completion */
	memset(&reply, 0, sizeof(reply));
	CU_ASSERT_EQUAL(ibv_init_ah_from_wc(ctx, 1, &wc,
					    (struct ibv_grh *)(void *)mb.p,
					    &reply), 0);
	CU_ASSERT_EQUAL(reply.is_global, 1);
	CU_ASSERT_EQUAL(memcmp(reply.grh.dgid.raw, gid1_want, 16), 0);
	CU_ASSERT_EQUAL(reply.grh.sgid_index, 1);

	/* a wrong Q_Key: sent, dropped by the receiver */
	CU_ASSERT_EQUAL(post_recv(qp[1], 3, mb.p + 4096, GRH_LEN + 512,
				  mb.mr->lkey), 0);
	wr.wr_id = 4;
	wr.wr.ud.remote_qkey = QKEY + 1;
	CU_ASSERT_EQUAL(ibv_post_send(qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(cq[0], IBV_WC_SEND, 4, NULL));
	CU_ASSERT(cq_quiet(cq[1]));
	/* the right one takes receive 3 */
	wr.wr_id = 5;
	wr.wr.ud.remote_qkey = QKEY;
	CU_ASSERT_EQUAL(ibv_post_send(qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(cq[0], IBV_WC_SEND, 5, NULL));
	CU_ASSERT(expect_wc(cq[1], IBV_WC_RECV, 3, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, GRH_LEN + 512);

	/* UD has no RDMA WRITE; no message above the path MTU (4096) */
	wr.wr_id = 6;
	wr.opcode = IBV_WR_RDMA_WRITE;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(qp[0], &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	wr.wr_id = 7;
	wr.opcode = IBV_WR_SEND;
	sge.length = 4097;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(qp[0], &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	CU_ASSERT(cq_quiet(cq[0]));

	/* the builders on a UD QP: ibv_wr_set_ud_addr() */
	memset(&xa, 0, sizeof(xa));
	xa.qp_type = IBV_QPT_UD;
	xa.send_cq = cq[0];
	xa.recv_cq = cq[0];
	xa.cap.max_send_wr = QP_WR;
	xa.cap.max_recv_wr = QP_WR;
	xa.cap.max_send_sge = 1;
	xa.cap.max_recv_sge = 1;
	xa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	xa.pd = pd;
	xa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	qx = ibv_create_qp_ex(ctx, &xa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qx);
	CU_ASSERT_EQUAL_FATAL(ud_up(qx), 0);
	qpx = ibv_qp_to_qp_ex(qx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	/* no address: the batch fails */
	ibv_wr_start(qpx);
	qpx->wr_id = 8;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, NULL, qp[1]->qp_num, QKEY);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)ma.p, 100);
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), EINVAL);
	CU_ASSERT_EQUAL(post_recv(qp[1], 9, mb.p + 8192, GRH_LEN + 512,
				  mb.mr->lkey), 0);
	fill(ma.p + 1024, 100, 18);
	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, qp[1]->qp_num, QKEY);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)(ma.p + 1024), 100);
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), 0);
	CU_ASSERT(expect_wc(cq[0], IBV_WC_SEND, 10, NULL));
	CU_ASSERT(expect_wc(cq[1], IBV_WC_RECV, 9, &wc));
	CU_ASSERT_EQUAL(wc.src_qp, qx->qp_num);
	CU_ASSERT_EQUAL(wc.byte_len, GRH_LEN + 100);
	CU_ASSERT_EQUAL(memcmp(mb.p + 8192 + GRH_LEN, ma.p + 1024, 100), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qx), 0);

	CU_ASSERT_EQUAL(ibv_destroy_ah(ah), 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(ibv_destroy_qp(qp[i]), 0);
		CU_ASSERT_EQUAL(ibv_destroy_cq(cq[i]), 0);
	}
	mem_free(&ma);
	mem_free(&mb);
}

/* ------------------------------------------------------------------ */
/* SRQ                                                                */
/* ------------------------------------------------------------------ */

void
test_srq_limit(void)
{
	struct ibv_srq_init_attr sa;
	struct ibv_qp *qp0, *qp1, *qp2, *qp3;
	struct ibv_srq_attr attr;
	struct ibv_qp_attr qattr;
	struct ibv_cq *cq0, *cq1;
	struct ibv_srq *srq;
	struct mem ma, mb;
	struct ibv_wc wc;
	unsigned int i;
	int tag;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.srq_context = &tag;
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT(sa.attr.max_wr >= 16);
	CU_ASSERT_PTR_EQUAL(srq->srq_context, &tag);
	cq0 = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	cq1 = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq1);
	qp0 = qp_new(IBV_QPT_RC, cq0, NULL);
	qp1 = qp_new(IBV_QPT_RC, cq1, srq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp1);
	CU_ASSERT_PTR_EQUAL(qp1->srq, srq);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qp0, qp1), 0);

	/* a QP on an SRQ takes no receives of its own */
	CU_ASSERT_EQUAL(post_recv(qp1, 1, mb.p, 256, mb.mr->lkey), EINVAL);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(post_srq_recv(srq, 100 + i, mb.p + 256 * i,
					      256, mb.mr->lkey), 0);
	/* the limit: above the SRQ's size refused, 6 armed */
	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = sa.attr.max_wr + 1;
	CU_ASSERT_EQUAL(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), EINVAL);
	attr.srq_limit = 6;
	CU_ASSERT_EQUAL(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), 0);
	memset(&attr, 0, sizeof(attr));
	CU_ASSERT_EQUAL(ibv_query_srq(srq, &attr), 0);
	CU_ASSERT_EQUAL(attr.srq_limit, 6);
	CU_ASSERT(attr.max_wr >= 16);

	/* 8 -> 7 WQEs: not below the limit */
	fill(ma.p, 200, 11);
	CU_ASSERT_EQUAL(post_send(qp0, 1, ma.p, 200, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 1, NULL));
	CU_ASSERT(expect_wc(cq1, IBV_WC_RECV, 100, &wc));
	CU_ASSERT_EQUAL(wc.qp_num, qp1->qp_num);
	CU_ASSERT_EQUAL(wc.byte_len, 200);
	CU_ASSERT_EQUAL(memcmp(mb.p, ma.p, 200), 0);
	CU_ASSERT_EQUAL(wait_async(IBV_EVENT_SRQ_LIMIT_REACHED, srq,
				   QUIET_MS), 0);
	/* 7 -> 6 -> 5: below it, one event */
	for (i = 2; i <= 3; i++) {
		CU_ASSERT_EQUAL(post_send(qp0, i, ma.p, 200, ma.mr->lkey, 0),
				0);
		CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, i, NULL));
		CU_ASSERT(expect_wc(cq1, IBV_WC_RECV, 99 + i, NULL));
	}
	CU_ASSERT_EQUAL(wait_async(IBV_EVENT_SRQ_LIMIT_REACHED, srq,
				   WAIT_MS), 1);
	/* the event disarmed the limit */
	memset(&attr, 0xa5, sizeof(attr));
	CU_ASSERT_EQUAL(ibv_query_srq(srq, &attr), 0);
	CU_ASSERT_EQUAL(attr.srq_limit, 0);

	/* a second RC QP on the SRQ: both take its WQEs, in order */
	qp2 = qp_new(IBV_QPT_RC, cq0, NULL);
	qp3 = qp_new(IBV_QPT_RC, cq1, srq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp3);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qp2, qp3), 0);
	fill(ma.p + 4096, 250, 17);
	CU_ASSERT_EQUAL(post_send(qp2, 4, ma.p + 4096, 250, ma.mr->lkey, 0),
			0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 4, NULL));
	CU_ASSERT(expect_wc(cq1, IBV_WC_RECV, 103, &wc));
	CU_ASSERT_EQUAL(wc.qp_num, qp3->qp_num);
	CU_ASSERT_EQUAL(wc.byte_len, 250);
	CU_ASSERT_EQUAL(memcmp(mb.p + 256 * 3, ma.p + 4096, 250), 0);
	CU_ASSERT_EQUAL(post_send(qp0, 5, ma.p, 200, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 5, NULL));
	CU_ASSERT(expect_wc(cq1, IBV_WC_RECV, 104, &wc));
	CU_ASSERT_EQUAL(wc.qp_num, qp1->qp_num);

	/* a QP of an SRQ in ERR: Last WQE Reached (IBTA 11.6.3) */
	memset(&qattr, 0, sizeof(qattr));
	qattr.qp_state = IBV_QPS_ERR;
	CU_ASSERT_EQUAL(ibv_modify_qp(qp3, &qattr, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL(wait_async(IBV_EVENT_QP_LAST_WQE_REACHED, qp3,
				   WAIT_MS), 1);

	/* an SRQ a QP uses stays */
	CU_ASSERT_EQUAL(ibv_destroy_srq(srq), EBUSY);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp1), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp2), 0);
	CU_ASSERT_EQUAL(ibv_destroy_srq(srq), EBUSY);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp3), 0);
	CU_ASSERT_EQUAL(ibv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq1), 0);
	mem_free(&ma);
	mem_free(&mb);
}

/* ------------------------------------------------------------------ */
/* Resize a CQ, re-register a region                                  */
/* ------------------------------------------------------------------ */

void
test_resize_cq(void)
{
	struct ibv_wc wc[32];
	struct ibv_qp *qp0, *qp1;
	struct ibv_cq *cq0, *cq1;
	struct mem ma, mb;
	int i, n;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	cq0 = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	cq1 = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq1);
	CU_ASSERT(cq1->cqe >= 4);
	qp0 = qp_new(IBV_QPT_RC, cq0, NULL);
	qp1 = qp_new(IBV_QPT_RC, cq1, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp1);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qp0, qp1), 0);

	/*
	 * Three receive completions wait in cq1: every SEND completed on
	 * the sender, so the receiver had written its completion.
	 */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(post_recv(qp1, 10 + i, mb.p + 256 * i, 256,
					  mb.mr->lkey), 0);
		CU_ASSERT_EQUAL(post_send(qp0, i, ma.p, 32, ma.mr->lkey, 0),
				0);
	}
	CU_ASSERT_EQUAL(poll_wait(cq0, wc, 3), 3);
	/* too small for them, zero, too large: refused, nothing lost */
	CU_ASSERT_EQUAL(ibv_resize_cq(cq1, 2), EINVAL);
	CU_ASSERT_EQUAL(ibv_resize_cq(cq1, 0), EINVAL);
	CU_ASSERT_EQUAL(ibv_resize_cq(cq1, dev_attr.max_cqe + 1), EINVAL);
	CU_ASSERT_EQUAL(ibv_resize_cq(cq1, 64), 0);
	CU_ASSERT(cq1->cqe >= 64);
	n = poll_wait(cq1, wc, 3);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].opcode, IBV_WC_RECV);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)(10 + i));
	}

	/* the new room: 24 completions waiting at once, in order */
	for (i = 0; i < 24; i++) {
		CU_ASSERT_EQUAL(post_recv(qp1, 100 + i, mb.p + 256 * i, 256,
					  mb.mr->lkey), 0);
		CU_ASSERT_EQUAL(post_send(qp0, 100 + i, ma.p, 32, ma.mr->lkey,
					  0), 0);
	}
	CU_ASSERT_EQUAL(poll_wait(cq0, wc, 24), 24);
	n = poll_wait(cq1, wc, 24);
	CU_ASSERT_EQUAL(n, 24);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)(100 + i));
	}
	/* and smaller again, empty */
	CU_ASSERT_EQUAL(ibv_resize_cq(cq1, 8), 0);
	CU_ASSERT(cq1->cqe >= 8);
	CU_ASSERT_EQUAL(post_recv(qp1, 200, mb.p, 256, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(qp0, 200, ma.p, 32, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 200, NULL));
	CU_ASSERT(expect_wc(cq1, IBV_WC_RECV, 200, NULL));

	CU_ASSERT_EQUAL(ibv_destroy_qp(qp0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp1), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq1), 0);
	mem_free(&ma);
	mem_free(&mb);
}

/*
 * A CQ overrun (IBTA 11.4.2.1): the CQ is in error, IBV_EVENT_CQ_ERR is
 * raised for it, and polling returns what it holds, then an error.
 */
void
test_cq_overrun(void)
{
	struct ibv_qp *qp0, *qp1;
	struct ibv_cq *cq0, *cq1;
	struct ibv_wc wc[8];
	struct mem ma, mb;
	int i, n;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	cq0 = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	cq1 = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq1);
	qp0 = qp_new(IBV_QPT_RC, cq0, NULL);
	qp1 = qp_new(IBV_QPT_RC, cq1, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp1);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qp0, qp1), 0);

	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(post_recv(qp1, 10 + i, mb.p + 256 * i, 256,
					  mb.mr->lkey), 0);
		CU_ASSERT_EQUAL(post_send(qp0, i, ma.p, 32, ma.mr->lkey, 0),
				0);
	}
	CU_ASSERT_EQUAL(wait_async(IBV_EVENT_CQ_ERR, cq1, WAIT_MS), 1);
	n = ibv_poll_cq(cq1, 8, wc);
	CU_ASSERT_EQUAL(n, 2);
	for (i = 0; i < n && i < 2; i++)
		CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)(10 + i));
	CU_ASSERT(ibv_poll_cq(cq1, 8, wc) < 0);

	CU_ASSERT_EQUAL(ibv_destroy_qp(qp0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp1), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq1), 0);
	mem_free(&ma);
	mem_free(&mb);
}

void
test_rereg_mr(void)
{
	struct ibv_send_wr wr, *bad;
	uint32_t lkey, rkey;
	uint8_t *other;
	struct mem ma, mb;
	struct rc_pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	/* the target: no remote write yet */
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_READ), 0);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, NULL, NULL), 0);
	lkey = mb.mr->lkey;
	rkey = mb.mr->rkey;

	/* bad input: nothing changes */
	errno = 0;
	CU_ASSERT_EQUAL(ibv_rereg_mr(mb.mr, 0, NULL, NULL, 0, 0),
			IBV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(ibv_rereg_mr(mb.mr, IBV_REREG_MR_CHANGE_ACCESS,
					 NULL, NULL, 0,
					 IBV_ACCESS_REMOTE_WRITE), 0);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(mb.mr->lkey, lkey);
	CU_ASSERT_EQUAL(mb.mr->rkey, rkey);

	/* remote write granted: the keys stay */
	CU_ASSERT_EQUAL(ibv_rereg_mr(mb.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				     NULL, 0, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL(mb.mr->lkey, lkey);
	CU_ASSERT_EQUAL(mb.mr->rkey, rkey);
	CU_ASSERT_PTR_EQUAL(mb.mr->addr, mb.p);
	CU_ASSERT_EQUAL(mb.mr->length, MEM_SIZE);
	/* a write through the old R_Key now passes */
	fill(ma.p, 1000, 12);
	wr_fill(&wr, &sge, 1, IBV_WR_RDMA_WRITE, ma.p, 1000, ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 100);
	wr.wr.rdma.rkey = rkey;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RDMA_WRITE, 1, NULL));
	CU_ASSERT_EQUAL(memcmp(mb.p + 100, ma.p, 1000), 0);
	/* and the region still serves locally under its L_Key */
	CU_ASSERT_EQUAL(post_recv(p.qp[0], 50, ma.p + 4096, 256,
				  ma.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[1], 2, mb.p + 100, 256, lkey, 0), 0);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_SEND, 2, NULL));
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RECV, 50, NULL));
	CU_ASSERT_EQUAL(memcmp(ma.p + 4096, ma.p, 256), 0);

	/* a new translation: the region's keys reach the new memory */
	other = aligned_alloc(4096, 8192);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	memset(other, 0, 8192);
	CU_ASSERT_EQUAL(ibv_rereg_mr(mb.mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				     NULL, other, 8192, 0), 0);
	CU_ASSERT_PTR_EQUAL(mb.mr->addr, other);
	CU_ASSERT_EQUAL(mb.mr->length, 8192);
	fill(ma.p, 500, 15);
	wr_fill(&wr, &sge, 3, IBV_WR_RDMA_WRITE, ma.p, 500, ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(other + 10);
	wr.wr.rdma.rkey = mb.mr->rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RDMA_WRITE, 3, NULL));
	CU_ASSERT_EQUAL(memcmp(other + 10, ma.p, 500), 0);
	CU_ASSERT_EQUAL(ibv_rereg_mr(mb.mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				     NULL, mb.p, MEM_SIZE, 0), 0);
	CU_ASSERT_PTR_EQUAL(mb.mr->addr, mb.p);
	free(other);
	rkey = mb.mr->rkey;

	/* taken back: a write fails with a remote access error */
	CU_ASSERT_EQUAL(ibv_rereg_mr(mb.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				     NULL, 0, IBV_ACCESS_LOCAL_WRITE |
				     IBV_ACCESS_REMOTE_READ), 0);
	CU_ASSERT_EQUAL(mb.mr->rkey, rkey);
	wr_fill(&wr, &sge, 4, IBV_WR_RDMA_WRITE, ma.p, 1000, ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 100);
	wr.wr.rdma.rkey = rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(poll_wait(p.cq[0], &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 4);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR);

	pair_free(&p);
	mem_free(&ma);
	mem_free(&mb);
}

/*
 * A type 2 memory window bound by a BIND_MW WR: remote writes through
 * its R_Key within its range, SEND with invalidate ends it.
 */
void
test_mw(void)
{
	struct ibv_send_wr wr, *bad;
	struct mem ma, mb;
	struct rc_pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_mw *mw;
	uint32_t rkey;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL | IBV_ACCESS_MW_BIND), 0);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, NULL, NULL), 0);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);

	/* bind [mb + 4096, mb + 8192) for remote write and read */
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mb.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(mb.p + 4096);
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[1], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_BIND_MW, 1, NULL));
	/* a region with windows bound stays */
	CU_ASSERT_EQUAL(ibv_dereg_mr(mb.mr), EBUSY);

	/* a write through the window */
	fill(ma.p, 1000, 14);
	wr_fill(&wr, &sge, 2, IBV_WR_RDMA_WRITE, ma.p, 1000, ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 4096 + 500);
	wr.wr.rdma.rkey = rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RDMA_WRITE, 2, NULL));
	CU_ASSERT_EQUAL(memcmp(mb.p + 4096 + 500, ma.p, 1000), 0);

	/* SEND with invalidate of the window's R_Key */
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 3, mb.p, 256, mb.mr->lkey), 0);
	wr_fill(&wr, &sge, 4, IBV_WR_SEND_WITH_INV, ma.p, 100, ma.mr->lkey);
	wr.invalidate_rkey = rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 4, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 3, &wc));
	CU_ASSERT(wc.wc_flags & IBV_WC_WITH_INV);
	CU_ASSERT_EQUAL(wc.invalidated_rkey, rkey);

	/* the window is gone: the same write fails */
	wr_fill(&wr, &sge, 5, IBV_WR_RDMA_WRITE, ma.p, 100, ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 4096);
	wr.wr.rdma.rkey = rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(poll_wait(p.cq[0], &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 5);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR);

	pair_free(&p);
	CU_ASSERT_EQUAL(ibv_dealloc_mw(mw), 0);
	mem_free(&ma);
	mem_free(&mb);
}

/* ------------------------------------------------------------------ */
