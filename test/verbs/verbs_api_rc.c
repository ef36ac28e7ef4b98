/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API test's RC traffic (api_test.h): SEND/RECV, WRITE with
 * immediate, READ, atomics, inline, partial lists, solicited events, the
 * extended QP, a full send queue, a bad L_Key and RESET.
 */
#include <rte_ethdev.h>

#include "api_test.h"

/* ------------------------------------------------------------------ */
/* RC traffic                                                         */
/* ------------------------------------------------------------------ */

void
test_rc_traffic(void)
{
	struct ibv_send_wr wr, wl[2], *bad;
	struct ibv_qp_init_attr init;
	uint64_t *remote, *local;
	struct ibv_sge sge, sl[2];
	struct ibv_qp_attr attr;
	struct mem ma, mb;
	struct rc_pair p;
	struct ibv_wc wc;
	uint8_t inl[48], big[1024];

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, NULL, NULL), 0);

	/* what the QP was given */
	memset(&attr, 0xa5, sizeof(attr));
	CU_ASSERT_EQUAL(ibv_query_qp(p.qp[0], &attr, IBV_QP_STATE |
				     IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_CAP, &init), 0);
	CU_ASSERT_EQUAL(attr.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(attr.path_mtu, IBV_MTU_1024);
	CU_ASSERT_EQUAL(attr.dest_qp_num, p.qp[1]->qp_num);
	CU_ASSERT_EQUAL(attr.ah_attr.is_global, 1);
	CU_ASSERT_EQUAL(attr.ah_attr.grh.sgid_index, 1);
	CU_ASSERT_EQUAL(memcmp(attr.ah_attr.grh.dgid.raw, gid1_want, 16), 0);
	CU_ASSERT_EQUAL(attr.timeout, 14);
	CU_ASSERT_EQUAL(attr.retry_cnt, 7);
	CU_ASSERT_EQUAL(attr.rnr_retry, 7);
	CU_ASSERT_EQUAL(attr.max_rd_atomic, 1);
	CU_ASSERT_EQUAL(attr.max_dest_rd_atomic, 1);
	CU_ASSERT(attr.cap.max_send_wr >= QP_WR);
	CU_ASSERT(attr.cap.max_inline_data >= QP_INLINE);
	CU_ASSERT_EQUAL(init.qp_type, IBV_QPT_RC);
	CU_ASSERT_PTR_EQUAL(init.send_cq, p.cq[0]);
	CU_ASSERT_PTR_EQUAL(init.recv_cq, p.cq[0]);

	/* SEND/RECV of 4 KiB: four packets at the 1 KiB path MTU */
	fill(ma.p, 4096, 1);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 100, mb.p, 4096, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[0], 1, ma.p, 4096, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 1, &wc));
	CU_ASSERT_EQUAL(wc.qp_num, p.qp[0]->qp_num);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 100, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 4096);
	CU_ASSERT_EQUAL(wc.qp_num, p.qp[1]->qp_num);
	CU_ASSERT_EQUAL(wc.wc_flags & IBV_WC_WITH_IMM, 0);
	CU_ASSERT_EQUAL(memcmp(mb.p, ma.p, 4096), 0);

	/* inline data from an unregistered buffer, the other way */
	fill(inl, sizeof(inl), 2);
	memset(big, 0, sizeof(big));
	CU_ASSERT_EQUAL(post_recv(p.qp[0], 101, ma.p + 8192, 256,
				  ma.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[1], 2, inl, sizeof(inl), 0,
				  IBV_SEND_INLINE), 0);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_SEND, 2, NULL));
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RECV, 101, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, sizeof(inl));
	CU_ASSERT_EQUAL(memcmp(ma.p + 8192, inl, sizeof(inl)), 0);
	/* inline data above max_inline_data: refused */
	if (attr.cap.max_inline_data < sizeof(big)) {
		CU_ASSERT_EQUAL(post_send(p.qp[1], 99, big,
					  attr.cap.max_inline_data + 1, 0,
					  IBV_SEND_INLINE), EINVAL);
	}

	/* a list whose second WR is bad: the first posted, bad_wr the second */
	fill(ma.p, 128, 13);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 103, mb.p + 8192, 128,
				  mb.mr->lkey), 0);
	wr_fill(&wl[0], &sl[0], 8, IBV_WR_SEND, ma.p, 128, ma.mr->lkey);
	wr_fill(&wl[1], &sl[1], 9, IBV_WR_SEND, ma.p, 128, ma.mr->lkey);
	wl[1].opcode = IBV_WR_TSO;	/* raw packet QPs only */
	wl[0].next = &wl[1];
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], wl, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wl[1]);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 8, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 103, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 128);
	CU_ASSERT_EQUAL(memcmp(mb.p + 8192, ma.p, 128), 0);

	/* RDMA WRITE with immediate: the data, then a receive with imm */
	fill(ma.p + 4096, 3000, 3);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 102, NULL, 0, 0), 0);
	wr_fill(&wr, &sge, 3, IBV_WR_RDMA_WRITE_WITH_IMM, ma.p + 4096, 3000,
		ma.mr->lkey);
	wr.imm_data = htobe32(0x12345678);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 4096);
	wr.wr.rdma.rkey = mb.mr->rkey;
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RDMA_WRITE, 3, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV_RDMA_WITH_IMM, 102, &wc));
	CU_ASSERT(wc.wc_flags & IBV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wc.imm_data, htobe32(0x12345678));
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(mb.p + 4096, ma.p + 4096, 3000), 0);

	/* RDMA READ of 2500 bytes the other side holds */
	fill(mb.p + 8192, 2500, 4);
	memset(ma.p + 8192, 0, 2500);
	wr_fill(&wr, &sge, 4, IBV_WR_RDMA_READ, ma.p + 8192, 2500,
		ma.mr->lkey);
	wr.wr.rdma.remote_addr = (uintptr_t)(mb.p + 8192);
	wr.wr.rdma.rkey = mb.mr->rkey;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RDMA_READ, 4, NULL));
	CU_ASSERT_EQUAL(memcmp(ma.p + 8192, mb.p + 8192, 2500), 0);

	/* atomics on an 8-byte word of the other side */
	remote = (uint64_t *)(void *)(mb.p + 12288);
	local = (uint64_t *)(void *)(ma.p + 12288);
	*remote = 100;
	*local = 0;
	wr_fill(&wr, &sge, 5, IBV_WR_ATOMIC_FETCH_AND_ADD, local, 8,
		ma.mr->lkey);
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = mb.mr->rkey;
	wr.wr.atomic.compare_add = 5;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_FETCH_ADD, 5, NULL));
	CU_ASSERT_EQUAL(*local, 100);
	CU_ASSERT_EQUAL(*remote, 105);
	/* compare and swap: equal, swapped */
	wr_fill(&wr, &sge, 6, IBV_WR_ATOMIC_CMP_AND_SWP, local, 8,
		ma.mr->lkey);
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = mb.mr->rkey;
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.swap = 0x0123456789abcdefULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_COMP_SWAP, 6, NULL));
	CU_ASSERT_EQUAL(*local, 105);
	CU_ASSERT_EQUAL(*remote, 0x0123456789abcdefULL);
	/* not equal: the original returned, the word unchanged */
	wr.wr_id = 7;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 9;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_COMP_SWAP, 7, NULL));
	CU_ASSERT_EQUAL(*local, 0x0123456789abcdefULL);
	CU_ASSERT_EQUAL(*remote, 0x0123456789abcdefULL);

	/* nothing else came */
	CU_ASSERT(cq_quiet(p.cq[0]));
	CU_ASSERT(cq_quiet(p.cq[1]));
	pair_free(&p);
	mem_free(&ma);
	mem_free(&mb);
}

/* ibv_destroy_cq() in a thread of its own: it may wait. */
struct destroyer {
	struct ibv_cq *cq;
	int ret;
	int done;
};

static void *
destroy_cq_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = ibv_destroy_cq(d->cq);
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Solicited events on a completion channel (ibv_req_notify_cq(cq, 1)),
 * then any completion's; destroying a CQ waits for its events' acks.
 */
void
test_solicited_event(void)
{
	struct ibv_comp_channel *ch;
	struct pollfd pfd;
	struct mem ma, mb;
	struct rc_pair p;
	struct timespec wait100 = { .tv_sec = 0, .tv_nsec = 100000000L };
	struct timespec deadline;
	struct destroyer d;
	struct ibv_cq *ecq;
	pthread_t th;
	void *ectx;
	int tag, n;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	ch = ibv_create_comp_channel(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, ch, &tag), 0);
	/* the channel has a CQ; a CQ without a channel cannot be armed */
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), EBUSY);
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.cq[0], 0), EINVAL);
	pfd.fd = ch->fd;
	pfd.events = POLLIN;

	/* armed for solicited completions: an ordinary SEND raises none */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.cq[1], 1), 0);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 10, mb.p, 256, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 11, mb.p + 256, 256,
				  mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 12, mb.p + 512, 256,
				  mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[0], 1, ma.p, 64, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 1, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 10, NULL));
	CU_ASSERT_EQUAL(poll(&pfd, 1, QUIET_MS), 0);

	/* a solicited one does */
	CU_ASSERT_EQUAL(post_send(p.qp[0], 2, ma.p, 64, ma.mr->lkey,
				  IBV_SEND_SOLICITED), 0);
	ectx = NULL;
	CU_ASSERT(cq_event_ack(ch, p.cq[1], &ectx));
	CU_ASSERT_PTR_EQUAL(ectx, &tag);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 11, NULL));
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 2, NULL));

	/* one event per arm: none without a new one */
	CU_ASSERT_EQUAL(post_send(p.qp[0], 3, ma.p, 64, ma.mr->lkey,
				  IBV_SEND_SOLICITED), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 3, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 12, NULL));
	CU_ASSERT_EQUAL(poll(&pfd, 1, QUIET_MS), 0);

	/* armed for any completion: an ordinary SEND raises one */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(p.cq[1], 0), 0);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 13, mb.p, 256, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[0], 4, ma.p, 64, ma.mr->lkey, 0), 0);
	n = poll(&pfd, 1, WAIT_MS);
	CU_ASSERT_EQUAL(n, 1);
	ecq = NULL;
	if (n == 1) {
		CU_ASSERT_EQUAL(ibv_get_cq_event(ch, &ecq, &ectx), 0);
		CU_ASSERT_PTR_EQUAL(ecq, p.cq[1]);
	}
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 4, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 13, NULL));

	/*
	 * That event is acknowledged by another thread, later: destroying
	 * the CQ waits for it (ibv_get_cq_event(3)).
	 */
	CU_ASSERT_EQUAL(ibv_destroy_qp(p.qp[0]), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(p.qp[1]), 0);
	p.qp[0] = NULL;
	p.qp[1] = NULL;
	if (ecq == p.cq[1]) {
		d.cq = ecq;
		d.ret = -1;
		d.done = 0;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL,
						     destroy_cq_thread, &d), 0);
		nanosleep(&wait100, NULL);
		/* still waiting for the acknowledgement */
		CU_ASSERT_EQUAL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE), 0);
		ibv_ack_cq_events(ecq, 1);
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += WAIT_MS / 1000;
		if (pthread_timedjoin_np(th, NULL, &deadline) == 0) {
			CU_ASSERT_EQUAL(d.ret, 0);
			if (d.ret == 0)
				p.cq[1] = NULL;
		} else {
			CU_FAIL("ibv_destroy_cq() did not return after the ack");
			pthread_detach(th);
			p.cq[1] = NULL;
		}
	} else if (ecq != NULL) {
		ibv_ack_cq_events(ecq, 1);
	}
	pair_free(&p);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0);
	mem_free(&ma);
	mem_free(&mb);
}

/* Poll the extended CQ @p cq until a completion or WAIT_MS: its errno. */
static int
cqx_wait(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	uint64_t end = now_ms() + WAIT_MS;
	int ret;

	do {
		ret = ibv_start_poll(cq, &pa);
	} while (ret == ENOENT && now_ms() < end);
	return ret;
}

/* ibv_create_qp_ex() with send ops and ibv_wr_*(); ibv_create_cq_ex(). */
void
test_qp_ex(void)
{
	struct ibv_qp_init_attr_ex xa;
	struct ibv_cq_init_attr_ex cxa;
	struct ibv_sge sgl[QP_SGE * 2];
	struct ibv_qp *qp0, *qp1;
	struct ibv_qp_ex *qpx;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq0;
	struct mem ma, mb;
	uint8_t inl[40];
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	cq0 = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq0);
	memset(&cxa, 0, sizeof(cxa));
	cxa.cqe = CQ_DEPTH;
	cxa.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
		IBV_WC_EX_WITH_QP_NUM;
	cqx = ibv_create_cq_ex(ctx, &cxa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cqx);

	memset(&xa, 0, sizeof(xa));
	xa.qp_type = IBV_QPT_RC;
	xa.send_cq = cq0;
	xa.recv_cq = cq0;
	xa.cap.max_send_wr = QP_WR;
	xa.cap.max_recv_wr = QP_WR;
	xa.cap.max_send_sge = QP_SGE;
	xa.cap.max_recv_sge = QP_SGE;
	xa.cap.max_inline_data = QP_INLINE;
	xa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	xa.pd = pd;
	/* TSO is for raw packet QPs */
	xa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp_ex(ctx, &xa));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	xa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND;
	qp0 = ibv_create_qp_ex(ctx, &xa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp0);
	CU_ASSERT(xa.cap.max_send_sge >= QP_SGE &&
		  xa.cap.max_send_sge < QP_SGE * 2);
	qp1 = qp_new(IBV_QPT_RC, ibv_cq_ex_to_cq(cqx), NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp1);
	/* only a QP made with send ops has the builders */
	CU_ASSERT_PTR_NULL(ibv_qp_to_qp_ex(qp1));
	qpx = ibv_qp_to_qp_ex(qp0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	CU_ASSERT_PTR_EQUAL(&qpx->qp_base, qp0);
	CU_ASSERT_EQUAL_FATAL(rc_connect(qp0, qp1), 0);

	/* one batch: an RDMA WRITE and a SEND */
	fill(ma.p, 2048, 5);
	fill(ma.p + 4096, 512, 6);
	CU_ASSERT_EQUAL(post_recv(qp1, 50, mb.p + 4096, 512, mb.mr->lkey), 0);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, mb.mr->rkey, (uintptr_t)mb.p);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)ma.p, 2048);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)(ma.p + 4096), 512);
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), 0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_RDMA_WRITE, 1, NULL));
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 2, NULL));
	CU_ASSERT_EQUAL(memcmp(mb.p, ma.p, 2048), 0);
	CU_ASSERT_EQUAL(memcmp(mb.p + 4096, ma.p + 4096, 512), 0);
	/* its receive, through ibv_start_poll() */
	if (cqx_wait(cqx) == 0) {
		CU_ASSERT_EQUAL(cqx->wr_id, 50);
		CU_ASSERT_EQUAL(cqx->status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(ibv_wc_read_opcode(cqx), IBV_WC_RECV);
		CU_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), 512);
		CU_ASSERT_EQUAL(ibv_wc_read_qp_num(cqx), qp1->qp_num);
		CU_ASSERT_EQUAL(ibv_next_poll(cqx), ENOENT);
		ibv_end_poll(cqx);
	} else {
		CU_FAIL("no receive completion on the extended CQ");
	}

	/* inline data through the builder, from the stack */
	CU_ASSERT_EQUAL(post_recv(qp1, 52, mb.p + 8192, 512, mb.mr->lkey), 0);
	fill(inl, sizeof(inl), 16);
	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, inl, sizeof(inl));
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), 0);
	memset(inl, 0, sizeof(inl));
	CU_ASSERT(expect_wc(cq0, IBV_WC_SEND, 7, NULL));
	if (cqx_wait(cqx) == 0) {
		CU_ASSERT_EQUAL(cqx->wr_id, 52);
		CU_ASSERT_EQUAL(cqx->status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), sizeof(inl));
		ibv_end_poll(cqx);
	} else {
		CU_FAIL("no receive of the inline SEND");
	}
	fill(inl, sizeof(inl), 16);
	CU_ASSERT_EQUAL(memcmp(mb.p + 8192, inl, sizeof(inl)), 0);

	/* a receive for what follows (posted only by a broken batch) */
	CU_ASSERT_EQUAL(post_recv(qp1, 51, mb.p + 8192, 512, mb.mr->lkey), 0);
	/* a builder error fails the whole batch: nothing is posted */
	for (i = 0; i < QP_SGE * 2; i++) {
		sgl[i].addr = (uintptr_t)(ma.p + i * 64);
		sgl[i].length = 64;
		sgl[i].lkey = ma.mr->lkey;
	}
	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)ma.p, 64);
	qpx->wr_id = 4;
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, xa.cap.max_send_sge + 1, sgl);
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), EINVAL);
	/* an aborted batch neither */
	ibv_wr_start(qpx);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)ma.p, 64);
	ibv_wr_abort(qpx);
	CU_ASSERT(cq_quiet(cq0));

	/* RDMA WRITE with immediate through the builder: takes receive 51 */
	fill(ma.p + 8192, 100, 7);
	ibv_wr_start(qpx);
	qpx->wr_id = 6;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, mb.mr->rkey, (uintptr_t)(mb.p + 12288),
			      htobe32(0xabcd0123));
	ibv_wr_set_sge(qpx, ma.mr->lkey, (uintptr_t)(ma.p + 8192), 100);
	CU_ASSERT_EQUAL(ibv_wr_complete(qpx), 0);
	CU_ASSERT(expect_wc(cq0, IBV_WC_RDMA_WRITE, 6, NULL));
	CU_ASSERT_EQUAL(memcmp(mb.p + 12288, ma.p + 8192, 100), 0);
	if (cqx_wait(cqx) == 0) {
		CU_ASSERT_EQUAL(cqx->wr_id, 51);
		CU_ASSERT_EQUAL(cqx->status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(ibv_wc_read_opcode(cqx),
				IBV_WC_RECV_RDMA_WITH_IMM);
		CU_ASSERT(ibv_wc_read_wc_flags(cqx) & IBV_WC_WITH_IMM);
		CU_ASSERT_EQUAL(ibv_wc_read_imm_data(cqx),
				htobe32(0xabcd0123));
		CU_ASSERT_EQUAL(ibv_wc_read_byte_len(cqx), 100);
		ibv_end_poll(cqx);
	} else {
		CU_FAIL("no RDMA WRITE with immediate completion");
	}
	CU_ASSERT(cq_quiet(cq0));

	CU_ASSERT_EQUAL(ibv_destroy_qp(qp0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp1), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	mem_free(&ma);
	mem_free(&mb);
}

/*
 * A full send queue: ENOMEM. The SENDs wait behind receiver-not-ready
 * retries (no receive at the other end) until receives come.
 */
void
test_sq_full(void)
{
	struct ibv_qp_init_attr init;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_attr attr;
	struct ibv_wc wc[64];
	struct mem ma, mb;
	struct rc_pair p;
	struct ibv_sge sge;
	uint32_t i, n;
	int got, k;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(ibv_query_qp(p.qp[0], &attr, IBV_QP_CAP,
					   &init), 0);
	n = attr.cap.max_send_wr;
	CU_ASSERT_FATAL(n >= QP_WR && n <= CQ_DEPTH / 2);

	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(post_send(p.qp[0], i, ma.p, 8, ma.mr->lkey, 0),
				0);
	wr_fill(&wr, &sge, n, IBV_WR_SEND, ma.p, 8, ma.mr->lkey);
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), ENOMEM);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	/* nothing completes while the receiver has no receive */
	CU_ASSERT(cq_quiet(p.cq[0]));
	/* receives: every SEND completes, in order */
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(post_recv(p.qp[1], i, mb.p + (i % 64) * 64, 64,
					  mb.mr->lkey), 0);
	for (got = 0; got < (int)n; got += k) {
		k = poll_wait(p.cq[0], wc, min_int((int)n - got, 64));
		if (k <= 0)
			break;
		for (i = 0; i < (uint32_t)k; i++) {
			CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(wc[i].wr_id, (uint64_t)got + i);
		}
	}
	CU_ASSERT_EQUAL(got, (int)n);
	for (got = 0; got < (int)n; got += k) {
		k = poll_wait(p.cq[1], wc, min_int((int)n - got, 64));
		if (k <= 0)
			break;
	}
	CU_ASSERT_EQUAL(got, (int)n);
	/* room again */
	CU_ASSERT_EQUAL(post_recv(p.qp[1], n, mb.p, 64, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, n, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, n, NULL));

	pair_free(&p);
	mem_free(&ma);
	mem_free(&mb);
}

/*
 * A bad L_Key: the post succeeds, the WR fails as it executes
 * (IBV_WC_LOC_PROT_ERR), the QP goes to ERR and flushes its receives.
 * RESET forgets the completions not polled yet; the QP then connects
 * again and carries traffic.
 */
void
test_bad_lkey_reset(void)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct mem ma, mb;
	struct rc_pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(pair_new(&p, NULL, NULL), 0);

	/* receives the error will flush */
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(post_recv(p.qp[0], 10 + i, ma.p + 4096 * i,
					  256, ma.mr->lkey), 0);
	/* the key byte changed: a stale L_Key */
	wr_fill(&wr, &sge, 1, IBV_WR_SEND, ma.p, 64, ma.mr->lkey ^ 0x5a);
	bad = NULL;
	CU_ASSERT_EQUAL(ibv_post_send(p.qp[0], &wr, &bad), 0);
	CU_ASSERT_PTR_NULL(bad);
	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(poll_wait(p.cq[0], &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
	/* the first receive, flushed */
	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_EQUAL(poll_wait(p.cq[0], &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 10);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_WR_FLUSH_ERR);
	memset(&attr, 0, sizeof(attr));
	CU_ASSERT_EQUAL(ibv_query_qp(p.qp[0], &attr, IBV_QP_STATE, &init), 0);
	CU_ASSERT_EQUAL(attr.qp_state, IBV_QPS_ERR);
	/* a SEND in ERR: accepted, to be flushed */
	CU_ASSERT_EQUAL(post_send(p.qp[0], 2, ma.p, 64, ma.mr->lkey, 0), 0);

	/* RESET: receives 11 and 12 and SEND 2 are forgotten */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RESET;
	CU_ASSERT_EQUAL(ibv_modify_qp(p.qp[0], &attr, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL(p.qp[0]->state, IBV_QPS_RESET);
	CU_ASSERT(cq_quiet(p.cq[0]));
	CU_ASSERT(cq_quiet(p.cq[1]));

	/* back to RTS with the same PSNs: nothing reached the other end */
	CU_ASSERT_EQUAL(rc_init(p.qp[0]), 0);
	CU_ASSERT_EQUAL(rc_rtr(p.qp[0], p.qp[1]->qp_num, PSN_1), 0);
	CU_ASSERT_EQUAL(rc_rts(p.qp[0], PSN_0), 0);
	CU_ASSERT_EQUAL(p.qp[0]->state, IBV_QPS_RTS);
	fill(ma.p, 1500, 8);
	CU_ASSERT_EQUAL(post_recv(p.qp[1], 90, mb.p, 2048, mb.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[0], 3, ma.p, 1500, ma.mr->lkey, 0), 0);
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_SEND, 3, NULL));
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_RECV, 90, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 1500);
	CU_ASSERT_EQUAL(memcmp(mb.p, ma.p, 1500), 0);
	fill(mb.p + 4096, 700, 9);
	CU_ASSERT_EQUAL(post_recv(p.qp[0], 20, ma.p + 8192, 2048,
				  ma.mr->lkey), 0);
	CU_ASSERT_EQUAL(post_send(p.qp[1], 4, mb.p + 4096, 700, mb.mr->lkey,
				  0), 0);
	CU_ASSERT(expect_wc(p.cq[1], IBV_WC_SEND, 4, NULL));
	CU_ASSERT(expect_wc(p.cq[0], IBV_WC_RECV, 20, &wc));
	CU_ASSERT_EQUAL(wc.byte_len, 700);
	CU_ASSERT_EQUAL(memcmp(ma.p + 8192, mb.p + 4096, 700), 0);

	pair_free(&p);
	mem_free(&ma);
	mem_free(&mb);
}

/*
 * Counter @p name of ernic0 (its ethdev, in this process) into @p v:
 * false when the port has no such counter (per-worker counters exist
 * with several workers only).
 */
static bool
port_counter(const char *name, uint64_t *v)
{
	uint64_t id;
	uint16_t pid;

	*v = 0;
	return rte_eth_dev_get_port_by_name("net_ernic0", &pid) == 0 &&
		rte_eth_xstats_get_id_by_name(pid, name, &id) == 0 &&
		rte_eth_xstats_get_by_id(pid, &id, v, 1) == 1;
}

/* QP pairs of test_shared_cqs */
#define SHARED_PAIRS 4
#define SHARED_MSG 2048

/*
 * Eight RC QPs on one send CQ and one receive CQ (with a channel), as
 * perftest -q makes them: every SEND's bytes arrive at its own QP's
 * buffer, each CQ gives every completion once with its QP's number, an
 * arm of the receive CQ raises an event; with two workers on the port
 * (the suite's second run) both workers carry RoCE frames.
 */
void
test_shared_cqs(void)
{
	struct ibv_qp *qp[2 * SHARED_PAIRS] = { NULL };
	struct ibv_wc wc[2 * SHARED_PAIRS];
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct mem ma, mb;
	unsigned int i, seen_s = 0, seen_r = 0;
	uint64_t tx0, tx1, v0, v1;
	bool two;
	int n, k;

	port_counter("worker0_tx_roce", &tx0);
	two = port_counter("worker1_tx_roce", &tx1);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&ma, ACCESS_ALL), 0);
	CU_ASSERT_EQUAL_FATAL(mem_reg(&mb, ACCESS_ALL), 0);
	ch = ibv_create_comp_channel(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	scq = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, CQ_DEPTH, NULL, ch, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(scq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rcq);
	/* armed before any QP uses it */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(rcq, 0), 0);
	for (i = 0; i < 2 * SHARED_PAIRS; i++) {
		qp[i] = qp_new_cqs(IBV_QPT_RC, scq, rcq, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp[i]);
	}
	for (i = 0; i < SHARED_PAIRS; i++)
		CU_ASSERT_EQUAL_FATAL(rc_connect(qp[2 * i], qp[2 * i + 1]), 0);

	/* pair i: QP 2i sends SHARED_MSG bytes of pattern i to QP 2i+1 */
	memset(mb.p, 0, MEM_SIZE);
	for (i = 0; i < SHARED_PAIRS; i++) {
		fill(ma.p + i * SHARED_MSG, SHARED_MSG, 100 + i);
		CU_ASSERT_EQUAL(post_recv(qp[2 * i + 1], 200 + i,
					  mb.p + i * SHARED_MSG, SHARED_MSG,
					  mb.mr->lkey), 0);
	}
	for (i = 0; i < SHARED_PAIRS; i++)
		CU_ASSERT_EQUAL(post_send(qp[2 * i], 100 + i,
					  ma.p + i * SHARED_MSG, SHARED_MSG,
					  ma.mr->lkey, 0), 0);
	CU_ASSERT(cq_event_ack(ch, rcq, NULL));
	k = poll_wait(scq, wc, SHARED_PAIRS);
	CU_ASSERT_EQUAL(k, SHARED_PAIRS);
	for (n = 0; n < k; n++) {
		i = (unsigned int)(wc[n].wr_id - 100);
		CU_ASSERT_EQUAL(wc[n].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[n].opcode, IBV_WC_SEND);
		if (i < SHARED_PAIRS) {
			CU_ASSERT_EQUAL(wc[n].qp_num, qp[2 * i]->qp_num);
			seen_s |= 1u << i;
		}
	}
	k = poll_wait(rcq, wc, SHARED_PAIRS);
	CU_ASSERT_EQUAL(k, SHARED_PAIRS);
	for (n = 0; n < k; n++) {
		i = (unsigned int)(wc[n].wr_id - 200);
		CU_ASSERT_EQUAL(wc[n].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[n].opcode, IBV_WC_RECV);
		CU_ASSERT_EQUAL(wc[n].byte_len, SHARED_MSG);
		if (i < SHARED_PAIRS) {
			CU_ASSERT_EQUAL(wc[n].qp_num, qp[2 * i + 1]->qp_num);
			seen_r |= 1u << i;
		}
	}
	CU_ASSERT_EQUAL(seen_s, (1u << SHARED_PAIRS) - 1);
	CU_ASSERT_EQUAL(seen_r, (1u << SHARED_PAIRS) - 1);
	CU_ASSERT(memcmp(ma.p, mb.p, SHARED_PAIRS * SHARED_MSG) == 0);
	CU_ASSERT(cq_quiet(scq));
	CU_ASSERT(cq_quiet(rcq));
	/* a port with a second worker: both carried frames */
	if (two) {
		CU_ASSERT(port_counter("worker0_tx_roce", &v0) && v0 > tx0);
		CU_ASSERT(port_counter("worker1_tx_roce", &v1) && v1 > tx1);
	}

	/* the QPs go, then the CQs (an event taken may still be pending) */
	for (i = 0; i < 2 * SHARED_PAIRS; i++)
		CU_ASSERT_EQUAL(ibv_destroy_qp(qp[i]), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(scq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(rcq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0);
	mem_free(&ma);
	mem_free(&mb);
}
