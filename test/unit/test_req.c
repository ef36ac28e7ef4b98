/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester and completer (roce_req.c, roce_comp.c) driven alone: one
 * device whose worker transmits into a capturing callback. Requests are
 * posted through the public API and the frames the requester makes are
 * parsed and checked; the peer's responses (ACK, NAK, RNR NAK, READ
 * responses, atomic ACKs) are built with roce_build and fed to
 * roce_worker_rx(). Time is a hand-advanced TSC.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "roce_build.h"
#include "roce_engine.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_sr.h"
#include "roce_worker.h"
#include "test_common.h"

#define CAP_MAX 1024
#define BUF_SIZE (1u << 20)
#define PEER_QPN 0x123456u

struct capture {
	struct rte_mbuf *m[CAP_MAX];
	unsigned int n;
	uint64_t overflow;
};

static struct {
	struct roce_device *dev;
	struct roce_worker *w;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_mr *mr;
	uint8_t *buf;
	struct capture cap;
	uint64_t now;
} fx;

static const uint8_t local_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t local_ip[4] = { 10, 0, 0, 1 };
static const uint8_t peer_ip[4] = { 10, 0, 0, 2 };

static void
gid_v4(union roce_gid *g, const uint8_t ip[4])
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], ip, 4);
}

static uint16_t
cap_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct capture *c = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (c->n < CAP_MAX)
			c->m[c->n++] = pkts[i];
		else {
			c->overflow++;
			rte_pktmbuf_free(pkts[i]);
		}
	}
	return n;
}

static void
cap_reset(void)
{
	unsigned int i;

	for (i = 0; i < fx.cap.n; i++)
		rte_pktmbuf_free(fx.cap.m[i]);
	fx.cap.n = 0;
}

/*
 * Poll until the worker is idle (two polls in a row send nothing: a QP
 * re-queued by a timer or a completion runs at the next poll); returns the
 * frames captured meanwhile.
 */
static unsigned int
run(void)
{
	unsigned int before = fx.cap.n;
	int i, idle = 0;

	for (i = 0; i < 1000 && idle < 2; i++)
		idle = roce_worker_poll(fx.w, fx.now) == 0 ? idle + 1 : 0;
	return fx.cap.n - before;
}

static uint8_t
pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static int
suite_init(void)
{
	struct roce_device_config cfg;
	uint32_t i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "req";
	memcpy(cfg.mac, local_mac, 6);
	gid_v4(&cfg.gid[0], local_ip);
	cfg.gid_valid[0] = true;
	cfg.max_qp = 64;
	cfg.max_mr = 64;
	cfg.hdr_pool = test_mbuf_pool();
	cfg.socket_id = SOCKET_ID_ANY;
	fx.dev = roce_device_create(&cfg);
	if (fx.dev == NULL)
		return -1;
	fx.w = roce_worker_create(fx.dev, cap_tx, &fx.cap);
	fx.pd = fx.w != NULL ? roce_alloc_pd(fx.dev) : NULL;
	fx.cq = fx.pd != NULL ? roce_create_cq(fx.w, 1024) : NULL;
	fx.buf = rte_zmalloc("req_buf", BUF_SIZE, 64);
	if (fx.cq == NULL || fx.buf == NULL)
		return -1;
	for (i = 0; i < BUF_SIZE; i++)
		fx.buf[i] = pattern(i);
	fx.mr = roce_reg_mr(fx.pd, fx.buf, BUF_SIZE,
			    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ |
			    ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_MW_BIND);
	fx.now = 1000000;
	return fx.mr != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	cap_reset();
	roce_dereg_mr(fx.mr);
	roce_destroy_cq(fx.cq);
	roce_dealloc_pd(fx.pd);
	roce_worker_destroy(fx.w);
	roce_device_destroy(fx.dev);
	rte_free(fx.buf);
	return 0;
}

struct qp_params {
	enum roce_qp_type type;
	enum roce_mtu mtu;
	uint32_t sq_psn;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t max_rd_atomic;
	uint32_t qkey;
};

static const struct qp_params rc_default = {
	.type = ROCE_QPT_RC, .mtu = ROCE_MTU_256, .sq_psn = 100,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 16,
};

/* Create a QP and take it to RTS through modify_qp. */
static struct roce_qp *
make_qp(const struct qp_params *p)
{
	struct roce_qp_init_attr init;
	struct roce_qp_attr a;
	struct roce_qp *qp;
	int mask;

	memset(&init, 0, sizeof(init));
	init.qp_type = p->type;
	init.send_cq = fx.cq;
	init.recv_cq = fx.cq;
	init.cap.max_send_wr = 256;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = 4;
	init.cap.max_recv_sge = 4;
	init.cap.max_inline_data = 64;
	qp = roce_create_qp(fx.pd, &init);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qkey = p->qkey;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	mask = ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT;
	mask |= p->type == ROCE_QPT_UD ? ROCE_QP_QKEY : ROCE_QP_ACCESS_FLAGS;
	CU_ASSERT_EQUAL_FATAL(roce_modify_qp(qp, &a, mask), 0);

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	mask = ROCE_QP_STATE;
	if (p->type != ROCE_QPT_UD) {
		gid_v4(&a.ah_attr.dgid, peer_ip);
		memcpy(a.ah_attr.dmac, peer_mac, 6);
		a.ah_attr.hop_limit = 64;
		a.path_mtu = p->mtu;
		a.dest_qp_num = PEER_QPN;
		a.rq_psn = 5000;
		mask |= ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			ROCE_QP_RQ_PSN;
	}
	if (p->type == ROCE_QPT_RC) {
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		mask |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	}
	CU_ASSERT_EQUAL_FATAL(roce_modify_qp(qp, &a, mask), 0);

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = p->sq_psn;
	mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
	if (p->type == ROCE_QPT_RC) {
		a.timeout = p->timeout;
		a.retry_cnt = p->retry_cnt;
		a.rnr_retry = p->rnr_retry;
		a.max_rd_atomic = p->max_rd_atomic;
		mask |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC;
	}
	CU_ASSERT_EQUAL_FATAL(roce_modify_qp(qp, &a, mask), 0);
	return qp;
}

static void
drop_qp(struct roce_qp *qp)
{
	struct roce_wc wc[16];

	CU_ASSERT_EQUAL(roce_destroy_qp(qp), 0);
	while (roce_poll_cq(fx.cq, wc, 16) > 0)
		;
	cap_reset();
}

static enum roce_qp_state
qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr i;

	CU_ASSERT_EQUAL(roce_query_qp(qp, &a, &i), 0);
	return a.qp_state;
}

/* Post one WR with one SGE (len 0: no SGE). */
static void
post(struct roce_qp *qp, struct roce_send_wr *wr, uint64_t off, uint32_t len)
{
	static struct roce_sge sge;
	unsigned int posted;

	sge.addr = (uintptr_t)fx.buf + off;
	sge.length = len;
	sge.lkey = roce_mr_lkey(fx.mr);
	wr->sg_list = &sge;
	wr->num_sge = len != 0 ? 1 : 0;
	CU_ASSERT_EQUAL_FATAL(roce_post_send(qp, wr, 1, &posted), 0);
}

static void
post_op(struct roce_qp *qp, enum roce_wr_opcode op, uint64_t wr_id,
	uint64_t off, uint32_t len, uint32_t flags)
{
	struct roce_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.rdma.remote_addr = 0x10000000ULL + off;
	wr.rdma.rkey = 0xabcd01;
	post(qp, &wr, off, len);
}

/* Parse captured frame @p i; its ICRC must verify. */
static void
frame(unsigned int i, struct roce_pkt *pkt)
{
	CU_ASSERT_FATAL(i < fx.cap.n);
	CU_ASSERT_EQUAL_FATAL(roce_parse(fx.cap.m[i], pkt), 0);
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(fx.cap.m[i], pkt->l3_off), 0);
}

static uint32_t
frame_psn(const struct roce_pkt *pkt)
{
	return roce_bth_psn(roce_pkt_bth(pkt));
}

/* Bytes of the payload of @p pkt equal @p expect. */
static bool
payload_is(const struct roce_pkt *pkt, const uint8_t *expect, uint32_t len)
{
	uint8_t tmp[4096];

	if (pkt->payload_len != len || len > sizeof(tmp))
		return false;
	if (len == 0)
		return true;
	return memcmp(rte_pktmbuf_read(pkt->m, pkt->payload_off, len, tmp),
		      expect, len) == 0;
}

/* A response from the peer to @p qp, fed to the worker. */
static void
inject(struct roce_qp *qp, uint8_t opcode, uint32_t psn, uint8_t syndrome,
       const void *payload, uint32_t len, uint64_t orig)
{
	struct roce_hdr_fields h;
	struct rte_mbuf *m;
	union roce_gid g;

	memset(&h, 0, sizeof(h));
	memcpy(h.dst_mac.addr_bytes, local_mac, 6);
	memcpy(h.src_mac.addr_bytes, peer_mac, 6);
	h.ip_ver = 4;
	h.ttl = 64;
	gid_v4(&g, peer_ip);
	memcpy(h.sgid, g.raw, 16);
	gid_v4(&g, local_ip);
	memcpy(h.dgid, g.raw, 16);
	h.udp_sport = 0xc123;
	h.opcode = opcode;
	h.pkey = 0xffff;
	h.dqpn = roce_qp_num(qp);
	h.psn = psn & ROCE_PSN_MASK;
	h.syndrome = syndrome;
	h.msn = 1;
	h.orig = orig;
	m = rte_pktmbuf_alloc(test_mbuf_pool());
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	if (len != 0)
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), payload, len);
	CU_ASSERT_EQUAL_FATAL(roce_build_mbuf(m, &h), 0);
	CU_ASSERT_EQUAL_FATAL(roce_icrc_fill_mbuf(m, m->l2_len), 0);
	CU_ASSERT_EQUAL(roce_worker_rx(fx.w, &m, 1, fx.now), 1);
}

static uint8_t
syn_ack(void)
{
	return roce_syndrome(ROCE_AETH_ACK, ROCE_AETH_CREDIT_INVALID);
}

static void
ack(struct roce_qp *qp, uint32_t psn)
{
	inject(qp, ROCE_OP_RC_ACK, psn, syn_ack(), NULL, 0, 0);
}

static int
poll_wc(struct roce_wc *wc, int n)
{
	return roce_poll_cq(fx.cq, wc, n);
}

/* ------------------------------------------------------------------ */

/* SEND segmentation at one MTU, starting near the PSN wrap. */
static void
check_send_segmentation(enum roce_mtu mtu_code)
{
	uint32_t mtu = roce_mtu_bytes(mtu_code);
	uint32_t lens[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 5 };
	struct qp_params p = rc_default;
	struct roce_qp *qp;
	uint32_t psn, k;

	p.mtu = mtu_code;
	p.sq_psn = ROCE_PSN_MASK - 2;	/* crosses 0xffffff -> 0 */
	qp = make_qp(&p);
	psn = p.sq_psn;
	for (k = 0; k < RTE_DIM(lens); k++) {
		uint32_t len = lens[k], n = roce_msg_npkts(len, mtu), i;
		struct roce_wc wc[2];

		cap_reset();
		post_op(qp, ROCE_WR_SEND, k, 64, len, ROCE_SEND_SIGNALED);
		CU_ASSERT_EQUAL(run(), n);
		for (i = 0; i < n && i < fx.cap.n; i++) {
			struct roce_pkt pkt;
			const struct roce_bth *bth;
			uint32_t plen = RTE_MIN(mtu, len - i * mtu);
			uint8_t op;

			frame(i, &pkt);
			bth = roce_pkt_bth(&pkt);
			op = n == 1 ? ROCE_OP_RC_SEND_ONLY :
			     i == 0 ? ROCE_OP_RC_SEND_FIRST :
			     i == n - 1 ? ROCE_OP_RC_SEND_LAST :
					  ROCE_OP_RC_SEND_MIDDLE;
			CU_ASSERT_EQUAL(pkt.opcode, op);
			CU_ASSERT_EQUAL(frame_psn(&pkt), roce_psn_add(psn, i));
			CU_ASSERT_EQUAL(roce_bth_dqpn(bth), PEER_QPN);
			CU_ASSERT_EQUAL(roce_bth_pad(bth), (-plen) & 3);
			CU_ASSERT_EQUAL(roce_bth_ackreq(bth), i == n - 1);
			CU_ASSERT(payload_is(&pkt, fx.buf + 64 + i * mtu, plen));
		}
		CU_ASSERT_EQUAL(poll_wc(wc, 2), 0);	/* RC waits for the ACK */
		ack(qp, roce_psn_add(psn, n - 1));
		CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 2), 1);
		CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].opcode, ROCE_WC_SEND);
		CU_ASSERT_EQUAL(wc[0].wr_id, k);
		CU_ASSERT_EQUAL(wc[0].byte_len, len);
		psn = roce_psn_add(psn, n);
	}
	CU_ASSERT_EQUAL(qp->stats.tx_pkts, 1 + 1 + 1 + 1 + 2 + 4);
	drop_qp(qp);
}

static void
test_segmentation_256(void)
{
	check_send_segmentation(ROCE_MTU_256);
}

static void
test_segmentation_4096(void)
{
	check_send_segmentation(ROCE_MTU_4096);
}

/*
 * roce_msg_npkts() against a plain ceiling division: every IBTA MTU (the
 * shift) and one that is not a power of two (the divide), at the edges of
 * each packet and of the 32-bit length.
 */
static void
test_msg_npkts(void)
{
	static const uint32_t mtus[] = { 256, 512, 1024, 2048, 4096, 1500 };
	uint32_t k, m, i;

	for (k = 0; k < RTE_DIM(mtus); k++) {
		uint32_t mtu = mtus[k];
		uint32_t lens[] = { 1, mtu - 1, mtu, mtu + 1, 2 * mtu,
				    ROCE_MAX_MSG_SIZE, UINT32_MAX - mtu,
				    UINT32_MAX };

		CU_ASSERT_EQUAL(roce_msg_npkts(0, mtu), 1);
		for (i = 0; i < RTE_DIM(lens); i++) {
			uint64_t want = ((uint64_t)lens[i] + mtu - 1) / mtu;

			CU_ASSERT_EQUAL(roce_msg_npkts(lens[i], mtu), want);
		}
		for (m = 1; m < 3 * mtu; m += 7)
			CU_ASSERT_EQUAL(roce_msg_npkts(m, mtu),
					(m + mtu - 1) / mtu);
	}
}

/* WRITE with immediate: RETH on FIRST only, ImmDt on LAST only. */
static void
test_write_imm_headers(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	struct roce_send_wr wr;
	struct roce_pkt pkt;
	uint32_t len = 3 * 256 + 5;
	unsigned int i;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = ROCE_SEND_SIGNALED | ROCE_SEND_SOLICITED;
	wr.imm_data = rte_cpu_to_be_32(0xdeadbeef);
	wr.rdma.remote_addr = 0x123456789000ULL;
	wr.rdma.rkey = 0x4242;
	post(qp, &wr, 0, len);
	CU_ASSERT_EQUAL_FATAL(run(), 4);
	for (i = 0; i < 4; i++) {
		frame(i, &pkt);
		CU_ASSERT_EQUAL(pkt.opcode, i == 0 ? ROCE_OP_RC_RDMA_WRITE_FIRST :
			i == 3 ? ROCE_OP_RC_RDMA_WRITE_LAST_IMM :
				 ROCE_OP_RC_RDMA_WRITE_MIDDLE);
		CU_ASSERT_EQUAL(roce_pkt_reth(&pkt) != NULL, i == 0);
		CU_ASSERT_EQUAL(roce_pkt_immdt(&pkt) != NULL, i == 3);
		CU_ASSERT_EQUAL(roce_bth_se(roce_pkt_bth(&pkt)), i == 3);
	}
	frame(0, &pkt);
	CU_ASSERT_EQUAL(roce_reth_va(roce_pkt_reth(&pkt)), 0x123456789000ULL);
	CU_ASSERT_EQUAL(roce_reth_rkey(roce_pkt_reth(&pkt)), 0x4242);
	CU_ASSERT_EQUAL(roce_reth_len(roce_pkt_reth(&pkt)), len);
	frame(3, &pkt);
	CU_ASSERT_EQUAL(roce_immdt_imm(roce_pkt_immdt(&pkt)), 0xdeadbeef);
	CU_ASSERT(payload_is(&pkt, fx.buf + 3 * 256, 5));
	drop_qp(qp);
}

/* AckReq at least every ROCE_REQ_ACKREQ_EVERY packets of a long message. */
static void
test_ackreq_every_n(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t n = 130, i;

	/*
	 * n packets go out unacknowledged: more than the initial loss window
	 * (ROCE_REQ_CWND_INIT), which would also set AckReq where it closes.
	 * Open it to the fixed window: this test is about ackreq_every.
	 */
	qp->req.cwnd = qp->req.max_inflight;
	post_op(qp, ROCE_WR_SEND, 1, 0, n * 256, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), n);
	for (i = 0; i < n; i++) {
		struct roce_pkt pkt;
		bool expect = (i + 1) % ROCE_REQ_ACKREQ_EVERY == 0 ||
			      i == n - 1;

		frame(i, &pkt);
		CU_ASSERT_EQUAL(roce_bth_ackreq(roce_pkt_bth(&pkt)), expect);
	}
	drop_qp(qp);
}

/* A READ of n response packets advances the PSN by n (IBTA 9.7.4.1.3). */
static void
test_read_psn_and_data(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t len = 3 * 256 + 5, psn = rc_default.sq_psn, i;
	uint64_t dst = 512 * 1024;
	struct roce_pkt pkt;
	struct roce_wc wc[4];
	uint8_t data[1024];

	memset(fx.buf + dst, 0, len);
	post_op(qp, ROCE_WR_RDMA_READ, 7, dst, len, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_SEND, 8, 0, 10, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 2);
	frame(0, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_RDMA_READ_REQUEST);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn);
	CU_ASSERT_EQUAL(roce_reth_len(roce_pkt_reth(&pkt)), len);
	CU_ASSERT_EQUAL(roce_reth_va(roce_pkt_reth(&pkt)),
			0x10000000ULL + dst);
	CU_ASSERT(roce_bth_ackreq(roce_pkt_bth(&pkt)));
	frame(1, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_SEND_ONLY);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 4);

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0x5a ^ i);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, psn, syn_ack(),
	       data, 256, 0);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, psn + 1, 0,
	       data + 256, 256, 0);
	/* a duplicate of the MIDDLE is ignored */
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, psn + 1, 0,
	       data + 256, 256, 0);
	CU_ASSERT_EQUAL(qp->stats.dup_acks, 1);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, psn + 2, 0,
	       data + 512, 256, 0);
	CU_ASSERT_EQUAL(poll_wc(wc, 4), 0);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, psn + 3, syn_ack(),
	       data + 768, 5, 0);
	CU_ASSERT_EQUAL(memcmp(fx.buf + dst, data, len), 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 7);
	CU_ASSERT_EQUAL(wc[0].opcode, ROCE_WC_RDMA_READ);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].byte_len, len);
	ack(qp, psn + 4);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 8);
	for (i = 0; i < len; i++)
		fx.buf[dst + i] = pattern((uint32_t)(dst + i));
	drop_qp(qp);
}

/* A READ response implicitly acknowledges the SEND before it (9.7.5.1). */
static void
test_read_response_implicit_ack(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	uint64_t dst = 600 * 1024;
	struct roce_wc wc[4];
	uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	post_op(qp, ROCE_WR_SEND, 1, 0, 16, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_RDMA_READ, 2, dst, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 2);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, psn + 1, syn_ack(),
	       data, 8, 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2);
	CU_ASSERT_EQUAL(memcmp(fx.buf + dst, data, 8), 0);
	drop_qp(qp);
}

/* No more than max_rd_atomic READ/atomic outstanding. */
static void
test_max_rd_atomic_stall(void)
{
	struct qp_params p = rc_default;
	struct roce_qp *qp;
	struct roce_pkt pkt;
	struct roce_wc wc[4];
	uint64_t v = 0;

	p.max_rd_atomic = 2;
	qp = make_qp(&p);
	post_op(qp, ROCE_WR_RDMA_READ, 1, 700000, 8, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_RDMA_READ, 2, 700008, 8, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_RDMA_READ, 3, 700016, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL(run(), 2);
	CU_ASSERT(qp->req.wait_rd_atomic);
	CU_ASSERT(qp->stats.req_stalls > 0);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, p.sq_psn, syn_ack(),
	       &v, 8, 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	frame(2, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_RDMA_READ_REQUEST);
	CU_ASSERT_EQUAL(frame_psn(&pkt), p.sq_psn + 2);
	drop_qp(qp);
}

/* A fenced WQE waits for the READ before it to complete. */
static void
test_fence(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	struct roce_pkt pkt;
	struct roce_wc wc[4];
	uint64_t v = 0;

	post_op(qp, ROCE_WR_RDMA_READ, 1, 700000, 8, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_SEND, 2, 0, 8,
		ROCE_SEND_SIGNALED | ROCE_SEND_FENCE);
	CU_ASSERT_EQUAL(run(), 1);
	CU_ASSERT(qp->req.wait_fence);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, psn, syn_ack(),
	       &v, 8, 0);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	frame(1, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_SEND_ONLY);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 1);
	ack(qp, psn + 1);
	CU_ASSERT_EQUAL(poll_wc(wc, 4), 2);
	drop_qp(qp);
}

/* UD: DETH with the WR's Q_Key or the QP's, addresses of the AH, no ACK. */
static void
test_ud_send(void)
{
	struct qp_params p = { .type = ROCE_QPT_UD, .sq_psn = 9,
			       .qkey = 0x11111111 };
	struct roce_qp *qp = make_qp(&p);
	static const uint8_t dst_ip[4] = { 10, 0, 0, 9 };
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	struct roce_ah_attr ah;
	struct roce_send_wr wr;
	struct roce_pkt pkt;
	struct roce_wc wc[4];
	const struct roce_deth *deth;

	memset(&ah, 0, sizeof(ah));
	gid_v4(&ah.dgid, dst_ip);
	memcpy(ah.dmac, dmac, 6);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.ud.ah = &ah;
	wr.ud.remote_qpn = 0x77;
	wr.ud.remote_qkey = 0x22222222;
	post(qp, &wr, 0, 100);
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_SEND_WITH_IMM;
	wr.imm_data = rte_cpu_to_be_32(0x01020304);
	wr.ud.remote_qkey = 0x80000000;	/* privileged: use the QP's */
	post(qp, &wr, 0, 4);
	CU_ASSERT_EQUAL_FATAL(run(), 2);

	frame(0, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_UD_SEND_ONLY);
	deth = roce_pkt_deth(&pkt);
	CU_ASSERT_PTR_NOT_NULL_FATAL(deth);
	CU_ASSERT_EQUAL(roce_deth_qkey(deth), 0x22222222);
	CU_ASSERT_EQUAL(roce_deth_sqpn(deth), roce_qp_num(qp));
	CU_ASSERT_EQUAL(roce_bth_dqpn(roce_pkt_bth(&pkt)), 0x77);
	CU_ASSERT_EQUAL(frame_psn(&pkt), 9);
	CU_ASSERT_FALSE(roce_bth_ackreq(roce_pkt_bth(&pkt)));
	CU_ASSERT_EQUAL(memcmp(&pkt.daddr4, dst_ip, 4), 0);
	CU_ASSERT_EQUAL(memcmp(&pkt.saddr4, local_ip, 4), 0);
	CU_ASSERT_EQUAL(memcmp(roce_pkt_eth(&pkt)->dst_addr.addr_bytes, dmac,
			       6), 0);
	CU_ASSERT(payload_is(&pkt, fx.buf, 100));

	frame(1, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_UD_SEND_ONLY_IMM);
	CU_ASSERT_EQUAL(roce_deth_qkey(roce_pkt_deth(&pkt)), 0x11111111);
	CU_ASSERT_EQUAL(roce_immdt_imm(roce_pkt_immdt(&pkt)), 0x01020304);
	CU_ASSERT_EQUAL(frame_psn(&pkt), 10);

	/* completed when sent */
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2);
	CU_ASSERT_EQUAL(wc[1].status, ROCE_WC_SUCCESS);
	drop_qp(qp);
}

/* UC: no AckReq, completion when the last packet is sent. */
static void
test_uc_send(void)
{
	struct qp_params p = rc_default;
	struct roce_qp *qp;
	struct roce_pkt pkt;
	struct roce_wc wc[4];
	unsigned int i;

	p.type = ROCE_QPT_UC;
	qp = make_qp(&p);
	post_op(qp, ROCE_WR_RDMA_WRITE, 1, 0, 600, 0);	/* unsignaled */
	post_op(qp, ROCE_WR_SEND, 2, 0, 10, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 4);
	for (i = 0; i < 4; i++) {
		frame(i, &pkt);
		CU_ASSERT_FALSE(roce_bth_ackreq(roce_pkt_bth(&pkt)));
	}
	frame(0, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_UC_RDMA_WRITE_FIRST);
	frame(3, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_UC_SEND_ONLY);
	CU_ASSERT_EQUAL(frame_psn(&pkt), p.sq_psn + 3);
	/* the unsignaled WRITE retires silently, in order */
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 2);
	CU_ASSERT_EQUAL(qp->sq.cons, qp->sq.prod);
	drop_qp(qp);
}

/* Coalesced ACK completes several WQEs in order; dup and ghost ACKs ignored. */
static void
test_coalesced_dup_ghost_ack(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	struct roce_wc wc[8];

	post_op(qp, ROCE_WR_SEND, 1, 0, 8, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_RDMA_WRITE, 2, 0, 8, 0);
	post_op(qp, ROCE_WR_SEND, 3, 0, 300, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 4);
	ack(qp, psn);				/* the first only */
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 8), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	ack(qp, psn + 2);			/* WRITE + half the SEND */
	CU_ASSERT_EQUAL(poll_wc(wc, 8), 0);
	CU_ASSERT_EQUAL(qp->comp.psn, psn + 3);
	ack(qp, psn + 1);			/* duplicate */
	CU_ASSERT_EQUAL(qp->stats.dup_acks, 1);
	ack(qp, psn + 50);			/* never sent */
	CU_ASSERT_EQUAL(qp->stats.ghost_acks, 1);
	CU_ASSERT_EQUAL(poll_wc(wc, 8), 0);
	ack(qp, psn + 3);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 8), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 3);
	drop_qp(qp);
}

/* NAK sequence error in the middle of a message: resend from there. */
static void
test_go_back_n_mid_message(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	struct roce_pkt pkt;
	struct roce_wc wc[4];

	post_op(qp, ROCE_WR_SEND, 1, 1000, 4 * 256, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_SEND, 2, 0, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 5);
	cap_reset();
	inject(qp, ROCE_OP_RC_ACK, psn + 2,
	       roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR), NULL, 0, 0);
	CU_ASSERT_EQUAL(qp->stats.seq_naks, 1);
	CU_ASSERT_EQUAL(qp->comp.retry_left, rc_default.retry_cnt);
	CU_ASSERT_EQUAL_FATAL(run(), 3);
	frame(0, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_SEND_MIDDLE);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 2);
	CU_ASSERT(payload_is(&pkt, fx.buf + 1000 + 512, 256));
	frame(1, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_SEND_LAST);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 3);
	CU_ASSERT(payload_is(&pkt, fx.buf + 1000 + 768, 256));
	CU_ASSERT(roce_bth_ackreq(roce_pkt_bth(&pkt)));
	frame(2, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_SEND_ONLY);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 4);
	CU_ASSERT_EQUAL(qp->stats.retrans_pkts, 3);
	/* a second NAK for the same PSN starts no second round */
	inject(qp, ROCE_OP_RC_ACK, psn + 2,
	       roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR), NULL, 0, 0);
	CU_ASSERT_EQUAL(run(), 0);
	ack(qp, psn + 4);
	CU_ASSERT_EQUAL(poll_wc(wc, 4), 2);
	drop_qp(qp);
}

/* Out-of-sequence READ response: the READ is retried for the rest only. */
static void
test_read_retry_mid_response(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	uint8_t data[1024];
	struct roce_pkt pkt;
	struct roce_wc wc[2];

	memset(data, 0x33, sizeof(data));
	post_op(qp, ROCE_WR_RDMA_READ, 1, 800000, 4 * 256, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, psn, syn_ack(),
	       data, 256, 0);
	/* psn + 1 lost */
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, psn + 2, 0,
	       data, 256, 0);
	CU_ASSERT_EQUAL(qp->stats.out_of_seq, 1);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	frame(1, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_RDMA_READ_REQUEST);
	CU_ASSERT_EQUAL(frame_psn(&pkt), psn + 1);
	CU_ASSERT_EQUAL(roce_reth_va(roce_pkt_reth(&pkt)),
			0x10000000ULL + 800000 + 256);
	CU_ASSERT_EQUAL(roce_reth_len(roce_pkt_reth(&pkt)), 3 * 256);
	/* the responder answers the retried READ: FIRST at psn + 1 */
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, psn + 1, syn_ack(),
	       data, 256, 0);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, psn + 2, 0,
	       data, 256, 0);
	inject(qp, ROCE_OP_RC_RDMA_READ_RESPONSE_LAST, psn + 3, syn_ack(),
	       data, 256, 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(fx.buf[800000 + 1023], 0x33);
	drop_qp(qp);
}

/*
 * Local ACK timeout: retry_cnt resends, then RETRY_EXC and ERR. Before
 * the first, at RTO_low, the tail-loss probe (roce_sr.h: go-back-N too)
 * resends both once without consuming a retry.
 */
static void
test_timeout_retry_exc(void)
{
	struct qp_params p = rc_default;
	uint64_t step = rte_get_tsc_hz();	/* 1 s > 4.096 us * 2^14 */
	uint64_t tmo = roce_ns_to_tsc(4096ULL << 14);
	struct roce_qp *qp;
	struct roce_wc wc[4];
	unsigned int i;

	p.retry_cnt = 2;
	qp = make_qp(&p);
	post_op(qp, ROCE_WR_SEND, 1, 0, 8, ROCE_SEND_SIGNALED);
	post_op(qp, ROCE_WR_SEND, 2, 0, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 2);
	/* not yet RTO_low */
	fx.now += roce_sr_rto_low(tmo) / 2;
	CU_ASSERT_EQUAL(run(), 0);
	/* the probe, then nothing until the local ACK timeout */
	fx.now += roce_sr_rto_low(tmo);
	CU_ASSERT_EQUAL(run(), 2);
	CU_ASSERT_EQUAL(qp->stats.sr_tail_probes, 1);
	CU_ASSERT_EQUAL(qp->stats.timeouts, 0);
	CU_ASSERT_EQUAL(qp->comp.retry_left, p.retry_cnt);
	fx.now += tmo / 4;
	CU_ASSERT_EQUAL(run(), 0);
	for (i = 0; i < p.retry_cnt; i++) {
		fx.now += step;
		CU_ASSERT_EQUAL(run(), 2);	/* both resent, go-back-N */
	}
	CU_ASSERT_EQUAL(qp->stats.retrans_pkts, 2 + 2 * p.retry_cnt);
	fx.now += step;
	CU_ASSERT_EQUAL(run(), 0);
	CU_ASSERT_EQUAL(qp->stats.timeouts, p.retry_cnt + 1);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(wc[0].vendor_err, ROCE_ERR_RETRY_EXC);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2);
	CU_ASSERT_EQUAL(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	drop_qp(qp);
}

/* RNR NAK: wait the timer, resend; rnr_retry exhausted -> RNR_RETRY_EXC. */
static void
test_rnr_retry_exc(void)
{
	struct qp_params p = rc_default;
	uint8_t rnr = roce_syndrome(ROCE_AETH_RNR_NAK, 14); /* 1.28 ms */
	struct roce_qp *qp;
	struct roce_pkt pkt;
	struct roce_wc wc[4];

	p.rnr_retry = 1;
	qp = make_qp(&p);
	post_op(qp, ROCE_WR_SEND, 1, 0, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	inject(qp, ROCE_OP_RC_ACK, p.sq_psn, rnr, NULL, 0, 0);
	CU_ASSERT_EQUAL(qp->stats.rnr_naks_rx, 1);
	CU_ASSERT_EQUAL(run(), 0);		/* waiting */
	fx.now += roce_ns_to_tsc(1000000);	/* 1 ms: still waiting */
	CU_ASSERT_EQUAL(run(), 0);
	fx.now += roce_ns_to_tsc(300000);	/* 1.3 ms: resend */
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	frame(1, &pkt);
	CU_ASSERT_EQUAL(frame_psn(&pkt), p.sq_psn);
	CU_ASSERT_EQUAL(poll_wc(wc, 4), 0);
	inject(qp, ROCE_OP_RC_ACK, p.sq_psn, rnr, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	drop_qp(qp);
}

/* Remote access NAK: the WQE fails, the QP goes to ERR, later ones flush. */
static void
test_remote_access_nak(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	struct roce_wc wc[4];

	post_op(qp, ROCE_WR_SEND, 1, 0, 8, 0);
	post_op(qp, ROCE_WR_RDMA_WRITE, 2, 0, 8, 0);
	post_op(qp, ROCE_WR_SEND, 3, 0, 8, 0);
	CU_ASSERT_EQUAL_FATAL(run(), 3);
	inject(qp, ROCE_OP_RC_ACK, psn + 1,
	       roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_REM_ACCESS_ERR),
	       NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 2);	/* unsignaled #1 silent */
	CU_ASSERT_EQUAL(wc[0].wr_id, 2);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(wc[1].wr_id, 3);
	CU_ASSERT_EQUAL(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	drop_qp(qp);
}

/* Fetch-and-add: AtomicETH out, original value into the SGE. */
static void
test_atomic(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	struct roce_send_wr wr;
	struct roce_pkt pkt;
	struct roce_wc wc[2];
	const struct roce_atmeth *a;
	uint64_t got;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.atomic.remote_addr = 0x8000;
	wr.atomic.compare_add = 3;
	wr.atomic.rkey = 0x77;
	post(qp, &wr, 900000, 8);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	frame(0, &pkt);
	CU_ASSERT_EQUAL(pkt.opcode, ROCE_OP_RC_FETCH_ADD);
	a = roce_pkt_atmeth(&pkt);
	CU_ASSERT_EQUAL(roce_atmeth_va(a), 0x8000);
	CU_ASSERT_EQUAL(roce_atmeth_rkey(a), 0x77);
	CU_ASSERT_EQUAL(roce_atmeth_swap_add(a), 3);
	inject(qp, ROCE_OP_RC_ATOMIC_ACK, psn, syn_ack(), NULL, 0,
	       0x1122334455667788ULL);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].opcode, ROCE_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(wc[0].byte_len, 8);
	memcpy(&got, fx.buf + 900000, 8);
	CU_ASSERT_EQUAL(got, 0x1122334455667788ULL);
	drop_qp(qp);
}

/* BIND_MW and LOCAL_INV run in SQ order and complete after the SEND. */
static void
test_local_wqes_in_order(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	struct roce_mw *mw = roce_alloc_mw(fx.pd, ROCE_MW_TYPE_2);
	struct roce_send_wr wr;
	struct roce_wc wc[4];
	uint32_t rkey;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	rkey = (roce_mw_rkey(mw) & ~0xffu) | 0x42;
	post_op(qp, ROCE_WR_SEND, 1, 0, 8, ROCE_SEND_SIGNALED);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_BIND_MW;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.mr = fx.mr;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.addr = (uintptr_t)fx.buf;
	wr.bind_mw.length = 4096;
	wr.bind_mw.access = ROCE_ACCESS_REMOTE_READ;
	CU_ASSERT_EQUAL_FATAL(roce_post_send(qp, &wr, 1, NULL), 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = ROCE_WR_LOCAL_INV;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	CU_ASSERT_EQUAL_FATAL(roce_post_send(qp, &wr, 1, NULL), 0);
	CU_ASSERT_EQUAL(run(), 1);
	/* executed, but completed only after the SEND */
	CU_ASSERT_EQUAL(qp->req.wqe_idx, qp->sq.prod);
	CU_ASSERT_EQUAL(poll_wc(wc, 4), 0);
	ack(qp, rc_default.sq_psn);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 3);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2);
	CU_ASSERT_EQUAL(wc[1].opcode, ROCE_WC_BIND_MW);
	CU_ASSERT_EQUAL(wc[1].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[2].wr_id, 3);
	CU_ASSERT_EQUAL(wc[2].opcode, ROCE_WC_LOCAL_INV);
	CU_ASSERT_EQUAL(wc[2].status, ROCE_WC_SUCCESS);
	/* invalidating it again fails: an error completion, QP to ERR */
	CU_ASSERT_EQUAL_FATAL(roce_post_send(qp, &wr, 1, NULL), 0);
	CU_ASSERT_EQUAL(run(), 0);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 4), 1);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_LOC_QP_OP_ERR);
	CU_ASSERT_EQUAL(qp_state(qp), ROCE_QPS_ERR);
	drop_qp(qp);
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
}

/* The window: no more than max_inflight unacknowledged PSNs. */
static void
test_window(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;

	qp->req.max_inflight = 8;
	post_op(qp, ROCE_WR_SEND, 1, 0, 20 * 256, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL(run(), 8);
	ack(qp, psn + 2);
	CU_ASSERT_EQUAL(run(), 3);
	ack(qp, psn + 10);
	CU_ASSERT_EQUAL(run(), 8);
	drop_qp(qp);
}

/*
 * One requester run sends at most ROCE_REQ_BUDGET packets and stops once
 * ROCE_REQ_BUDGET_BYTES of payload are out: 16 packets of 4 KB, 32 of
 * 256 bytes; the next polls send the rest.
 */
static void
check_budget(enum roce_mtu mtu, uint32_t mtu_bytes, unsigned int expect)
{
	struct qp_params p = rc_default;
	uint32_t n = 3 * expect + 5;	/* within the initial loss window */
	struct roce_qp *qp;

	CU_ASSERT_FATAL(n < ROCE_REQ_CWND_INIT);
	p.mtu = mtu;
	qp = make_qp(&p);
	cap_reset();
	post_op(qp, ROCE_WR_SEND, 1, 0, n * mtu_bytes, ROCE_SEND_SIGNALED);
	roce_worker_poll(fx.w, fx.now);
	CU_ASSERT_EQUAL(fx.cap.n, expect);
	roce_worker_poll(fx.w, fx.now);
	CU_ASSERT_EQUAL(fx.cap.n, 2 * expect);
	CU_ASSERT_EQUAL(run(), n - 2 * expect);
	drop_qp(qp);
}

static void
test_budget(void)
{
	CU_ASSERT_EQUAL(ROCE_REQ_BUDGET_BYTES / 4096, 16);
	check_budget(ROCE_MTU_4096, 4096, ROCE_REQ_BUDGET_BYTES / 4096);
	CU_ASSERT_TRUE(ROCE_REQ_BUDGET * 256 < ROCE_REQ_BUDGET_BYTES);
	check_budget(ROCE_MTU_256, 256, ROCE_REQ_BUDGET);
}

/* Frames [0, n) captured carry PSNs @p first, first + 1, ... */
static bool
frames_from(uint32_t first, unsigned int n)
{
	struct roce_pkt pkt;
	unsigned int i;

	if (fx.cap.n != n)
		return false;
	for (i = 0; i < n; i++) {
		frame(i, &pkt);
		if (frame_psn(&pkt) != roce_psn_add(first, i))
			return false;
	}
	return true;
}

/* AckReq set on captured frame @p i. */
static bool
frame_ackreq(unsigned int i)
{
	struct roce_pkt pkt;

	frame(i, &pkt);
	return roce_bth_ackreq(roce_pkt_bth(&pkt));
}

/*
 * Acknowledge the newest PSN sent and run, until the WQEs complete; false
 * when the requester stops with PSNs left (a stall).
 */
static bool
ack_until_done(struct roce_qp *qp, struct roce_wc *wc, int nwc)
{
	int i, got = 0;

	for (i = 0; i < 1000 && got < nwc; i++) {
		if (qp->req.psn_hwm == qp->comp.psn)
			return false;	/* nothing out, nothing sent */
		cap_reset();
		ack(qp, roce_psn_prev(qp->req.psn_hwm));
		run();
		got += poll_wc(wc + got, nwc - got);
	}
	return got == nwc;
}

/*
 * Loss window: starts at ROCE_REQ_CWND_INIT (the packet that fills it asks
 * for an ACK), slow start grows it by the PSNs acknowledged, a NAK halves
 * it once per round, above ssthresh it grows by one per window, a local
 * ACK timeout drops it to ROCE_REQ_CWND_MIN.
 */
static void
test_loss_window(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn, n = 600;
	uint8_t nak = roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR);
	uint64_t retrans;
	struct roce_wc wc[2];

	CU_ASSERT_EQUAL(qp->req.cwnd, ROCE_REQ_CWND_INIT);
	CU_ASSERT_EQUAL(qp->req.ssthresh, qp->req.max_inflight);
	post_op(qp, ROCE_WR_SEND, 1, 0, n * 256, ROCE_SEND_SIGNALED);
	/* initial window */
	CU_ASSERT_EQUAL_FATAL(run(), ROCE_REQ_CWND_INIT);
	CU_ASSERT(frames_from(psn, ROCE_REQ_CWND_INIT));
	CU_ASSERT(frame_ackreq(ROCE_REQ_CWND_INIT - 1));
	CU_ASSERT_FALSE(frame_ackreq(ROCE_REQ_CWND_INIT - 2));
	CU_ASSERT(qp->stats.req_stalls > 0);
	CU_ASSERT_EQUAL(run(), 0);
	/* slow start: 64 acknowledged, the window grows by 64 */
	cap_reset();
	ack(qp, psn + 63);
	CU_ASSERT_EQUAL(qp->req.cwnd, ROCE_REQ_CWND_INIT + 64);
	CU_ASSERT_EQUAL_FATAL(run(), 128);
	CU_ASSERT(frames_from(psn + 128, 128));
	/* NAK at psn + 100: 36 more acknowledged (228), then halved */
	cap_reset();
	inject(qp, ROCE_OP_RC_ACK, psn + 100, nak, NULL, 0, 0);
	CU_ASSERT_EQUAL(qp->stats.cwnd_cuts, 1);
	CU_ASSERT_EQUAL(qp->req.ssthresh, 114);
	CU_ASSERT_EQUAL(qp->req.cwnd, 114);
	retrans = qp->stats.retrans_pkts;
	CU_ASSERT_EQUAL_FATAL(run(), 114);
	CU_ASSERT(frames_from(psn + 100, 114));
	CU_ASSERT_EQUAL(qp->stats.retrans_pkts - retrans, 114);
	/* the same NAK again: no second round, no second cut */
	inject(qp, ROCE_OP_RC_ACK, psn + 100, nak, NULL, 0, 0);
	CU_ASSERT_EQUAL(qp->stats.cwnd_cuts, 1);
	CU_ASSERT_EQUAL(qp->req.cwnd, 114);
	CU_ASSERT_EQUAL(run(), 0);
	/* congestion avoidance: one window acknowledged, one PSN more */
	cap_reset();
	ack(qp, psn + 213);
	CU_ASSERT_EQUAL(qp->req.cwnd, 115);
	CU_ASSERT_EQUAL_FATAL(run(), 115);
	CU_ASSERT(frames_from(psn + 214, 115));
	/* local ACK timeout: minimum window, ssthresh half the window */
	cap_reset();
	fx.now += rte_get_tsc_hz();	/* 1 s > 4.096 us * 2^14 */
	CU_ASSERT_EQUAL_FATAL(run(), ROCE_REQ_CWND_MIN);
	CU_ASSERT_EQUAL(qp->stats.timeouts, 1);
	CU_ASSERT_EQUAL(qp->stats.cwnd_timeouts, 1);
	CU_ASSERT_EQUAL(qp->stats.cwnd_cuts, 1);
	CU_ASSERT_EQUAL(qp->req.ssthresh, 57);
	CU_ASSERT(frames_from(psn + 214, ROCE_REQ_CWND_MIN));
	CU_ASSERT(frame_ackreq(ROCE_REQ_CWND_MIN - 1));
	/* and it opens again up to the end of the message */
	CU_ASSERT_FATAL(ack_until_done(qp, wc, 1));
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	CU_ASSERT(qp->req.cwnd > 57);
	CU_ASSERT_EQUAL(qp->comp.psn, roce_psn_add(psn, n));
	drop_qp(qp);
}

/*
 * An ACK overtakes a go-back-N resend the window paused: the responder had
 * the PSNs and acknowledges beyond what was resent (IBTA 9.7.5.1.2). The
 * requester goes on from comp.psn: in the middle of a WQE, and with a new
 * WQE once every started one is acknowledged. (It used to stall: req.psn
 * behind comp.psn, a wrapped window offset, no timer armed.)
 */
static void
test_loss_window_ack_overtakes_resend(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn;
	uint8_t nak = roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR);
	uint64_t retrans;
	struct roce_wc wc[2];

	/* mid-WQE: 300 packets, NAK at psn + 10, resend paused at 69 */
	post_op(qp, ROCE_WR_SEND, 1, 0, 300 * 256, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), ROCE_REQ_CWND_INIT);
	cap_reset();
	inject(qp, ROCE_OP_RC_ACK, psn + 10, nak, NULL, 0, 0);
	CU_ASSERT_EQUAL(qp->req.cwnd, (ROCE_REQ_CWND_INIT + 10) / 2);
	CU_ASSERT_EQUAL_FATAL(run(), (ROCE_REQ_CWND_INIT + 10) / 2);
	CU_ASSERT_EQUAL(run(), 0);
	/* the original PSNs arrived after all: ACK of the first 128 */
	cap_reset();
	retrans = qp->stats.retrans_pkts;
	ack(qp, psn + ROCE_REQ_CWND_INIT - 1);
	CU_ASSERT_EQUAL_FATAL(run(), qp->req.cwnd);
	CU_ASSERT(frames_from(psn + ROCE_REQ_CWND_INIT, qp->req.cwnd));
	CU_ASSERT_EQUAL(qp->stats.retrans_pkts, retrans);
	CU_ASSERT_FATAL(ack_until_done(qp, wc, 1));
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	psn = roce_psn_add(psn, 300);
	CU_ASSERT_EQUAL(qp->comp.psn, psn);

	/* whole WQE: 100 packets, NAK at + 10, the ACK covers them all */
	qp->req.cwnd = ROCE_REQ_CWND_INIT;
	qp->req.ssthresh = qp->req.max_inflight;
	cap_reset();
	post_op(qp, ROCE_WR_SEND, 2, 0, 100 * 256, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 100);
	cap_reset();
	inject(qp, ROCE_OP_RC_ACK, psn + 10, nak, NULL, 0, 0);
	CU_ASSERT_EQUAL_FATAL(run(), (ROCE_REQ_CWND_INIT + 10) / 2);
	ack(qp, psn + 99);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 2);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	/* the next WQE takes the PSN after them, not a stale one */
	cap_reset();
	post_op(qp, ROCE_WR_SEND, 3, 0, 8, ROCE_SEND_SIGNALED);
	CU_ASSERT_EQUAL_FATAL(run(), 1);
	CU_ASSERT(frames_from(psn + 100, 1));
	ack(qp, psn + 100);
	CU_ASSERT_EQUAL_FATAL(poll_wc(wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 3);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	drop_qp(qp);
}

/*
 * No stall under loss: a long message over a modelled link and responder.
 * Every 7th request and every 5th response are lost; the responder takes
 * PSNs in order, NAKs the first gap once until it moves (IBTA 9.7.5.2.2)
 * and answers duplicates with an ACK of everything it has (9.7.5.1.2), so
 * ACKs overtake resends after lost ACKs. The requester must always have
 * either packets out with the ACK timer armed, or be done.
 */
static void
test_loss_window_no_stall(void)
{
	struct roce_qp *qp = make_qp(&rc_default);
	uint32_t psn = rc_default.sq_psn, n = 1000, epsn = psn, seen = 0;
	uint8_t nak = roce_syndrome(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ_ERR);
	struct roce_wc wc[2];
	bool nak_sent = false;
	int got = 0, rounds;

	post_op(qp, ROCE_WR_SEND, 1, 0, n * 256, ROCE_SEND_SIGNALED);
	for (rounds = 0; rounds < 5000 && got == 0; rounds++) {
		unsigned int i, sent = run();
		bool gap = false, answer = false;
		struct roce_pkt pkt;

		/* after a run, req.psn lies in [comp.psn, psn_hwm] */
		CU_ASSERT_FATAL(roce_psn_offset(qp->req.psn, qp->comp.psn) <=
				roce_psn_offset(qp->req.psn_hwm, qp->comp.psn));
		for (i = 0; i < sent; i++) {
			uint32_t p;

			frame(i, &pkt);
			p = frame_psn(&pkt);
			if ((++seen % 7) == 0)
				continue;	/* request lost */
			if (p == epsn) {
				epsn = roce_psn_next(epsn);
				nak_sent = false;
				answer = true;
			} else if (roce_psn_before(p, epsn)) {
				/* duplicate: ACK what it has */
				answer = true;
			} else {
				gap = true;
			}
		}
		cap_reset();
		if ((rounds % 5) != 4) {	/* else the response is lost */
			if (gap && !nak_sent) {
				nak_sent = true;
				inject(qp, ROCE_OP_RC_ACK, epsn, nak, NULL,
				       0, 0);
			} else if (answer) {
				ack(qp, roce_psn_prev(epsn));
			}
		}
		if (sent == 0 && qp->req.psn_hwm != qp->comp.psn) {
			/* nothing sent, PSNs out: the ACK timer is armed */
			CU_ASSERT_FATAL(roce_timer_armed(&qp->comp.retrans));
			fx.now += rte_get_tsc_hz();
		}
		got += poll_wc(wc, 2);
	}
	CU_ASSERT_EQUAL_FATAL(got, 1);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(qp->comp.psn, roce_psn_add(psn, n));
	CU_ASSERT(qp->stats.cwnd_cuts > 0);
	CU_ASSERT(qp->stats.cwnd_timeouts > 0);
	CU_ASSERT(qp->stats.dup_acks + qp->stats.acks_rx > 0);
	CU_ASSERT(qp->req.cwnd >= ROCE_REQ_CWND_MIN);
	CU_ASSERT(qp->req.cwnd <= qp->req.max_inflight);
	drop_qp(qp);
}

static CU_TestInfo req_tests[] = {
	{ "SEND segmentation, MTU 256", test_segmentation_256 },
	{ "SEND segmentation, MTU 4096", test_segmentation_4096 },
	{ "packets of a message at each MTU", test_msg_npkts },
	{ "WRITE with immediate headers", test_write_imm_headers },
	{ "AckReq every N packets", test_ackreq_every_n },
	{ "READ PSN advance and data", test_read_psn_and_data },
	{ "READ response implicit ACK", test_read_response_implicit_ack },
	{ "max_rd_atomic stall", test_max_rd_atomic_stall },
	{ "fence", test_fence },
	{ "UD send", test_ud_send },
	{ "UC send", test_uc_send },
	{ "coalesced, duplicate, ghost ACK", test_coalesced_dup_ghost_ack },
	{ "go-back-N from a middle PSN", test_go_back_n_mid_message },
	{ "READ retried from a middle PSN", test_read_retry_mid_response },
	{ "timeout retries then RETRY_EXC", test_timeout_retry_exc },
	{ "RNR retries then RNR_RETRY_EXC", test_rnr_retry_exc },
	{ "remote access NAK", test_remote_access_nak },
	{ "atomic fetch-and-add", test_atomic },
	{ "local WQEs in SQ order", test_local_wqes_in_order },
	{ "send window", test_window },
	{ "packet and byte budgets of a run", test_budget },
	{ "loss window: initial, growth, halving, timeout", test_loss_window },
	{ "loss window: ACK overtakes a resend", test_loss_window_ack_overtakes_resend },
	{ "loss window: no stall under loss", test_loss_window_no_stall },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "req", suite_init, suite_fini, NULL, NULL, req_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
