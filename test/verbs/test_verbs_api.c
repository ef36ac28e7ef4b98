/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libernic_verbs.so through the libibverbs API of rdma-core 44, the
 * program linked against it (no libibverbs, no LD_PRELOAD): the device
 * ernic0 of conf/verbs-loopback.ini (SOFTERNIC_CONFIG), whose link loops
 * back to itself, so that two QPs of the one device talk to each other.
 *
 * Devices and their queries; bad arguments and the errno verbs(3) and
 * lib/verbs document for them; RC traffic (SEND/RECV, RDMA WRITE with
 * immediate, RDMA READ, atomics, inline data, partial lists), solicited
 * and any-completion events on a completion channel (ibv_destroy_cq()
 * waiting for the acknowledgement), the extended QP and CQ APIs, a full
 * send queue, a bad L_Key that fails at execution and a QP taken through
 * RESET back to RTS; UD with its GRH; the SRQ limit and Last WQE Reached
 * events; ibv_resize_cq(), a CQ overrun, ibv_rereg_mr() and a type 2
 * memory window. Everything made is destroyed (and what a closed context
 * still held is destroyed by ibv_close_device()), so that the sanitizer
 * build's leak check sees nothing.
 *
 * The provider starts the EAL itself on the first ibv_get_device_list():
 * this program never calls rte_eal_init(). Every wait is bounded (WAIT_MS)
 * so that a broken provider fails the test instead of hanging it.
 */
#include "api_test.h"

/* ------------------------------------------------------------------ */
/* Suite                                                              */
/* ------------------------------------------------------------------ */

static int
suite_init(void)
{
	int n = 0;

	/* starts the EAL and the port (conf/verbs-loopback.ini) */
	dev_list = ibv_get_device_list(&n);
	if (dev_list == NULL || n < 1) {
		fprintf(stderr, "ibv_get_device_list: %d devices (%s)\n", n,
			strerror(errno));
		return -1;
	}
	ctx = ibv_open_device(dev_list[0]);
	if (ctx == NULL) {
		fprintf(stderr, "ibv_open_device: %s\n", strerror(errno));
		return -1;
	}
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL) {
		fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(errno));
		return -1;
	}
	if (ibv_query_device(ctx, &dev_attr) != 0 ||
	    ibv_query_gid(ctx, 1, 1, &gid1) != 0)
		return -1;
	return 0;
}

static int
suite_fini(void)
{
	int ret = 0;

	if (pd != NULL && ibv_dealloc_pd(pd) != 0)
		ret = -1;
	if (ctx != NULL && ibv_close_device(ctx) != 0)
		ret = -1;
	if (dev_list != NULL)
		ibv_free_device_list(dev_list);
	pd = NULL;
	ctx = NULL;
	dev_list = NULL;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Devices                                                            */
/* ------------------------------------------------------------------ */

static void
test_device_list(void)
{
	struct ibv_qp_init_attr qa;
	struct ibv_device_attr a;
	struct ibv_device **list;
	struct ibv_context *c2;
	struct ibv_pd *pd2;
	struct ibv_cq *cq2;
	void *buf;
	int n = -1;

	list = ibv_get_device_list(&n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, 1);
	if (n != 1) {
		ibv_free_device_list(list);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(list[0]);
	CU_ASSERT_PTR_NULL(list[1]);
	CU_ASSERT_STRING_EQUAL(ibv_get_device_name(list[0]), "ernic0");
	CU_ASSERT_STRING_EQUAL(list[0]->name, "ernic0");
	CU_ASSERT_EQUAL(list[0]->node_type, IBV_NODE_CA);
	CU_ASSERT_EQUAL(list[0]->transport_type, IBV_TRANSPORT_IB);
	CU_ASSERT_NOT_EQUAL(ibv_get_device_guid(list[0]), 0);
	/* the same device as the suite's list */
	CU_ASSERT_PTR_EQUAL(list[0], dev_list[0]);
	/* a second context on it, beside the suite's */
	c2 = ibv_open_device(list[0]);
	CU_ASSERT_PTR_NOT_NULL(c2);
	if (c2 != NULL) {
		CU_ASSERT_PTR_EQUAL(c2->device, list[0]);
		CU_ASSERT(c2->async_fd >= 0);
		CU_ASSERT_EQUAL(ibv_query_device(c2, &a), 0);
		CU_ASSERT_EQUAL(a.node_guid, ibv_get_device_guid(list[0]));
		CU_ASSERT_EQUAL(ibv_close_device(c2), 0);
	}
	/*
	 * Closing a context destroys what it still holds, as the kernel
	 * does when a process goes (the leak check sees the rest).
	 */
	c2 = ibv_open_device(list[0]);
	CU_ASSERT_PTR_NOT_NULL(c2);
	if (c2 != NULL) {
		buf = calloc(1, 4096);
		pd2 = ibv_alloc_pd(c2);
		CU_ASSERT_PTR_NOT_NULL(pd2);
		cq2 = ibv_create_cq(c2, 16, NULL, NULL, 0);
		CU_ASSERT_PTR_NOT_NULL(cq2);
		if (buf != NULL && pd2 != NULL && cq2 != NULL) {
			CU_ASSERT_PTR_NOT_NULL(ibv_reg_mr(pd2, buf, 4096,
						IBV_ACCESS_LOCAL_WRITE));
			memset(&qa, 0, sizeof(qa));
			qa.send_cq = cq2;
			qa.recv_cq = cq2;
			qa.qp_type = IBV_QPT_RC;
			qa.cap.max_send_wr = 4;
			qa.cap.max_recv_wr = 4;
			qa.cap.max_send_sge = 1;
			qa.cap.max_recv_sge = 1;
			CU_ASSERT_PTR_NOT_NULL(ibv_create_qp(pd2, &qa));
		}
		CU_ASSERT_EQUAL(ibv_close_device(c2), 0);
		free(buf);
	}
	ibv_free_device_list(list);
}

static void
test_query_device(void)
{
	struct ibv_device_attr_ex x;
	struct ibv_device_attr a;

	memset(&a, 0xa5, sizeof(a));
	CU_ASSERT_EQUAL_FATAL(ibv_query_device(ctx, &a), 0);
	CU_ASSERT(a.max_qp > 0);
	CU_ASSERT(a.max_qp_wr > 0);
	CU_ASSERT(a.max_sge >= 1);
	CU_ASSERT(a.max_cq > 0);
	CU_ASSERT(a.max_cqe > 0);
	CU_ASSERT(a.max_mr > 0);
	CU_ASSERT(a.max_pd > 0);
	CU_ASSERT(a.max_mr_size > 0);
	CU_ASSERT(a.max_srq > 0);
	CU_ASSERT(a.max_srq_wr > 0);
	CU_ASSERT(a.max_qp_rd_atom >= 1);
	CU_ASSERT(a.max_qp_init_rd_atom >= 1);
	CU_ASSERT_EQUAL(a.atomic_cap, IBV_ATOMIC_HCA);
	CU_ASSERT_EQUAL(a.phys_port_cnt, 1);
	CU_ASSERT_EQUAL(a.node_guid, ibv_get_device_guid(ctx->device));
	CU_ASSERT(a.max_qp_wr >= QP_WR && a.max_sge >= QP_SGE &&
		  a.max_cqe >= CQ_DEPTH);
	/* the extended query: the same attributes, then its own */
	memset(&x, 0xa5, sizeof(x));
	CU_ASSERT_EQUAL_FATAL(ibv_query_device_ex(ctx, NULL, &x), 0);
	CU_ASSERT_EQUAL(memcmp(&x.orig_attr, &a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(x.phys_port_cnt_ex, 1);
	/* no completion timestamps (ibv_create_cq_ex() refuses them) */
	CU_ASSERT_EQUAL(x.completion_timestamp_mask, 0);
}

static void
test_query_port(void)
{
	struct ibv_port_attr pa;

	memset(&pa, 0xa5, sizeof(pa));
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(ctx, 1, &pa), 0);
	CU_ASSERT_EQUAL(pa.state, IBV_PORT_ACTIVE);
	CU_ASSERT_EQUAL(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	/* pmtu=4096 in conf/verbs-loopback.ini */
	CU_ASSERT_EQUAL(pa.active_mtu, IBV_MTU_4096);
	CU_ASSERT(pa.max_mtu >= pa.active_mtu);
	CU_ASSERT(pa.gid_tbl_len >= 2);
	CU_ASSERT(pa.pkey_tbl_len >= 1);
	CU_ASSERT(pa.max_msg_sz > 0);
	/* one port */
	CU_ASSERT_EQUAL(ibv_query_port(ctx, 2, &pa), EINVAL);
	CU_ASSERT_EQUAL(ibv_query_port(ctx, 0, &pa), EINVAL);
}

static void
test_query_gid(void)
{
	struct ibv_gid_entry ent[64], e;
	struct ibv_port_attr pa;
	union ibv_gid g;
	__be16 pkey;
	ssize_t n, i;

	CU_ASSERT_EQUAL_FATAL(ibv_query_port(ctx, 1, &pa), 0);
	memset(&g, 0xa5, sizeof(g));
	CU_ASSERT_EQUAL(ibv_query_gid(ctx, 1, 1, &g), 0);
	CU_ASSERT_EQUAL(memcmp(g.raw, gid1_want, 16), 0);
	CU_ASSERT_NOT_EQUAL(ibv_query_gid(ctx, 2, 1, &g), 0);
	CU_ASSERT_NOT_EQUAL(ibv_query_gid(ctx, 1, pa.gid_tbl_len, &g), 0);

	/* the extended query: RoCE v2 */
	memset(&e, 0xa5, sizeof(e));
	CU_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, 1, &e, 0), 0);
	CU_ASSERT_EQUAL(memcmp(e.gid.raw, gid1_want, 16), 0);
	CU_ASSERT_EQUAL(e.gid_index, 1);
	CU_ASSERT_EQUAL(e.port_num, 1);
	CU_ASSERT_EQUAL(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	CU_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 2, 1, &e, 0), EINVAL);
	CU_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, (uint32_t)pa.gid_tbl_len,
					 &e, 0), EINVAL);

	/* the whole table */
	memset(ent, 0xa5, sizeof(ent));
	CU_ASSERT_FATAL(pa.gid_tbl_len <= (int)(sizeof(ent) / sizeof(ent[0])));
	n = ibv_query_gid_table(ctx, ent, (size_t)pa.gid_tbl_len, 0);
	CU_ASSERT(n >= 2 && n <= pa.gid_tbl_len);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(ent[i].gid_index, (uint32_t)i);
		CU_ASSERT_EQUAL(ent[i].port_num, 1);
		CU_ASSERT_EQUAL(ent[i].gid_type, IBV_GID_TYPE_ROCE_V2);
		CU_ASSERT_EQUAL(ibv_query_gid(ctx, 1, (int)i, &g), 0);
		CU_ASSERT_EQUAL(memcmp(g.raw, ent[i].gid.raw, 16), 0);
	}
	if (n >= 2)
		CU_ASSERT_EQUAL(memcmp(ent[1].gid.raw, gid1_want, 16), 0);
	/* an empty entry: no data (the table holds n of gid_tbl_len) */
	if (n > 0 && n < pa.gid_tbl_len)
		CU_ASSERT_EQUAL(ibv_query_gid_ex(ctx, 1, (uint32_t)n, &e, 0),
				ENODATA);
	/* room for fewer entries than the table has */
	CU_ASSERT_EQUAL(ibv_query_gid_table(ctx, ent, 1, 0), -EINVAL);

	/* the one P_Key: the default */
	pkey = 0;
	CU_ASSERT_EQUAL(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
	CU_ASSERT_EQUAL(be16toh(pkey), 0xffff);
	CU_ASSERT_NOT_EQUAL(ibv_query_pkey(ctx, 1, pa.pkey_tbl_len, &pkey), 0);
	CU_ASSERT_NOT_EQUAL(ibv_query_pkey(ctx, 2, 0, &pkey), 0);
	CU_ASSERT_EQUAL(ibv_get_pkey_index(ctx, 1, htobe16(0xffff)), 0);
}

/* ------------------------------------------------------------------ */
/* Bad arguments                                                      */
/* ------------------------------------------------------------------ */

static void
test_bad_arguments(void)
{
	struct ibv_send_wr swr[2], *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_cq_init_attr_ex cxa;
	struct ibv_qp_init_attr qa;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_sge sge;
	struct ibv_pd *pd2;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t small[64];
	struct mem m;

	/* CQ depth: 1..max_cqe */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(ctx, 0, NULL, NULL, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq(ctx, dev_attr.max_cqe + 1, NULL,
					 NULL, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* an extended CQ: completion timestamps are not kept */
	memset(&cxa, 0, sizeof(cxa));
	cxa.cqe = 16;
	cxa.wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_cq_ex(ctx, &cxa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);

	/* QP types the device lacks, QPs without CQs */
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp(pd, &qa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	qa.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp(pd, &qa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = NULL;
	qa.recv_cq = NULL;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp(pd, &qa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	qa.send_cq = cq;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp(pd, &qa));
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* regions: remote write or atomic need local write (IBTA 10.6.3.1) */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, small, sizeof(small),
				      IBV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, small, sizeof(small),
				      IBV_ACCESS_REMOTE_ATOMIC));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* no on-demand paging, no dma-buf */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, small, sizeof(small),
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_ON_DEMAND));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1,
					     IBV_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);

	/* a QP in RESET */
	CU_ASSERT_EQUAL_FATAL(mem_reg(&m, IBV_ACCESS_LOCAL_WRITE), 0);
	qp = qp_new(IBV_QPT_RC, cq, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(qp->state, IBV_QPS_RESET);
	/* RESET -> RTS is no transition; the QP stays */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);
	memset(&attr, 0xa5, sizeof(attr));
	CU_ASSERT_EQUAL(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init), 0);
	CU_ASSERT_EQUAL(attr.qp_state, IBV_QPS_RESET);
	CU_ASSERT_EQUAL(init.qp_type, IBV_QPT_RC);
	CU_ASSERT_EQUAL(qp->state, IBV_QPS_RESET);
	/* a rate limit is not offered */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.rate_limit = 1000;
	CU_ASSERT_EQUAL(ibv_modify_qp(qp, &attr, IBV_QP_STATE |
				      IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS | IBV_QP_RATE_LIMIT),
			EOPNOTSUPP);
	CU_ASSERT_EQUAL(qp->state, IBV_QPS_RESET);
	/* posting to a QP in RESET: refused, bad_wr names the WR */
	wr_fill(&swr[0], &sge, 1, IBV_WR_SEND, m.p, 16, m.mr->lkey);
	sbad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(qp, &swr[0], &sbad), EINVAL);
	CU_ASSERT_PTR_EQUAL(sbad, &swr[0]);
	/* a list: the first one */
	swr[1] = swr[0];
	swr[1].wr_id = 2;
	swr[0].next = &swr[1];
	sbad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(qp, &swr[0], &sbad), EINVAL);
	CU_ASSERT_PTR_EQUAL(sbad, &swr[0]);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 3;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	rbad = NULL;
	CU_ASSERT_EQUAL(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	CU_ASSERT_PTR_EQUAL(rbad, &rwr);

	/* a CQ a QP uses, a PD with a region */
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), EBUSY);
	pd2 = ibv_alloc_pd(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd2);
	mr = ibv_reg_mr(pd2, small, sizeof(small), IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL(mr);
	if (mr != NULL) {
		CU_ASSERT_EQUAL(ibv_dealloc_pd(pd2), EBUSY);
		CU_ASSERT_EQUAL(ibv_dereg_mr(mr), 0);
	}
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0);

	/* memory windows: type 2 only */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_alloc_mw(pd, IBV_MW_TYPE_1));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL(mw);
	if (mw != NULL) {
		CU_ASSERT_EQUAL(mw->type, IBV_MW_TYPE_2);
		CU_ASSERT_EQUAL(ibv_dealloc_mw(mw), 0);
	}

	CU_ASSERT_EQUAL(ibv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	mem_free(&m);
}

static CU_TestInfo verbs_tests[] = {
	{ "device list, second context", test_device_list },
	{ "ibv_query_device(_ex)", test_query_device },
	{ "ibv_query_port", test_query_port },
	{ "GIDs and P_Keys", test_query_gid },
	{ "bad arguments: documented errnos", test_bad_arguments },
	{ "RC: SEND, WRITE with imm, READ, atomics, inline",
	  test_rc_traffic },
	{ "RC: solicited event on a completion channel",
	  test_solicited_event },
	{ "RC: eight QPs on one CQ pair, spread over the workers",
	  test_shared_cqs },
	{ "extended QP and CQ: ibv_wr_*, ibv_start_poll", test_qp_ex },
	{ "full send queue, RNR retries", test_sq_full },
	{ "bad L_Key, RESET forgets, back to RTS", test_bad_lkey_reset },
	{ "UD: GRH, Q_Key, AH from a completion", test_ud },
	{ "SRQ: limit event", test_srq_limit },
	{ "ibv_resize_cq keeps waiting completions", test_resize_cq },
	{ "CQ overrun: CQ_ERR event, poll error", test_cq_overrun },
	{ "ibv_rereg_mr: access changes, keys stay", test_rereg_mr },
	{ "type 2 memory window: bind, write, invalidate", test_mw },
	{ "rdma_cm: disconnect after the peer did", test_cm_disconnect_after_peer },
	{ "rdma_cm: ids destroyed while another thread takes their events",
	  test_cm_destroy_while_taking },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "verbs_api", suite_init, suite_fini, NULL, NULL, verbs_tests },
	CU_SUITE_INFO_NULL,
};

int
main(void)
{
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (CU_register_suites(suites) != CUE_SUCCESS) {
		fprintf(stderr, "suite registration: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() +
		CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed != 0 ? 1 : 0;
}
