/* SPDX-License-Identifier: BSD-3-Clause */
/* The verbs API test's device and helpers (api_test.h). */
#include "api_test.h"

/* ::ffff:198.18.0.1, GID 1 of ernic0 (conf/verbs-loopback.ini) */
const uint8_t gid1_want[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1,
};

/* the suite's device, context and protection domain */
struct ibv_device **dev_list;
struct ibv_context *ctx;
struct ibv_pd *pd;
struct ibv_device_attr dev_attr;
union ibv_gid gid1;

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Poll @p cq until @p n completions came or WAIT_MS passed: the number
 * got (fewer on a time-out), or ibv_poll_cq()'s negative value.
 */
int
poll_wait(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t end = now_ms() + WAIT_MS;
	int got = 0, k;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got, wc + got);
		if (k < 0)
			return k;
		got += k;
		if (k == 0 && now_ms() > end)
			break;
	}
	return got;
}

int
min_int(int a, int b)
{
	return a < b ? a : b;
}

/* True when no completion comes to @p cq for QUIET_MS. */
bool
cq_quiet(struct ibv_cq *cq)
{
	uint64_t end = now_ms() + QUIET_MS;
	struct ibv_wc wc;
	int k;

	while (now_ms() < end) {
		k = ibv_poll_cq(cq, 1, &wc);
		if (k != 0) {
			fprintf(stderr, "unexpected completion: %d, wr_id %"
				PRIu64 " status %d opcode %d\n", k, wc.wr_id,
				(int)wc.status, (int)wc.opcode);
			return false;
		}
	}
	return true;
}

/*
 * The next completion of @p cq is a successful @p op of @p wr_id (copied
 * to @p out when not NULL).
 */
bool
expect_wc(struct ibv_cq *cq, enum ibv_wc_opcode op, uint64_t wr_id,
	  struct ibv_wc *out)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	if (poll_wait(cq, &wc, 1) != 1) {
		fprintf(stderr, "no completion of wr_id %" PRIu64 " in %d ms\n",
			wr_id, WAIT_MS);
		return false;
	}
	if (out != NULL)
		*out = wc;
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    wc.wr_id != wr_id) {
		fprintf(stderr, "completion: wr_id %" PRIu64 " status %d opcode %d vendor_err %u, expected wr_id %" PRIu64 " opcode %d\n",
			wc.wr_id, (int)wc.status, (int)wc.opcode,
			wc.vendor_err, wr_id, (int)op);
		return false;
	}
	return true;
}


int
mem_reg(struct mem *m, int access)
{
	m->mr = NULL;
	m->p = aligned_alloc(4096, MEM_SIZE);
	if (m->p == NULL)
		return -1;
	memset(m->p, 0, MEM_SIZE);
	m->mr = ibv_reg_mr(pd, m->p, MEM_SIZE, access);
	if (m->mr == NULL) {
		fprintf(stderr, "ibv_reg_mr: %s\n", strerror(errno));
		free(m->p);
		m->p = NULL;
		return -1;
	}
	return 0;
}

void
mem_free(struct mem *m)
{
	if (m->mr != NULL)
		CU_ASSERT_EQUAL(ibv_dereg_mr(m->mr), 0);
	free(m->p);
	m->p = NULL;
	m->mr = NULL;
}

/* A pattern that differs for every @p seed and byte. */
void
fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
}

struct ibv_qp *
qp_new(enum ibv_qp_type type, struct ibv_cq *cq, struct ibv_srq *srq)
{
	return qp_new_cqs(type, cq, cq, srq);
}

struct ibv_qp *
qp_new_cqs(enum ibv_qp_type type, struct ibv_cq *scq, struct ibv_cq *rcq,
	   struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.srq = srq;
	a.qp_type = type;
	a.cap.max_send_wr = QP_WR;
	a.cap.max_recv_wr = srq != NULL ? 0 : QP_WR;
	a.cap.max_send_sge = QP_SGE;
	a.cap.max_recv_sge = srq != NULL ? 0 : QP_SGE;
	a.cap.max_inline_data = QP_INLINE;
	return ibv_create_qp(pd, &a);
}

/* RESET -> INIT of an RC QP, as ibv_rc_pingpong: 0 or an errno. */
int
rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR towards QP @p dest_qpn of this device's GID 1. */
int
rc_rtr(struct ibv_qp *qp, uint32_t dest_qpn, uint32_t rq_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.sl = 0;
	a.ah_attr.src_path_bits = 0;
	a.ah_attr.port_num = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* RTR -> RTS. */
int
rc_rts(struct ibv_qp *qp, uint32_t sq_psn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Connect RC QPs @p a and @p b to each other: 0 or the first errno. */
int
rc_connect(struct ibv_qp *a, struct ibv_qp *b)
{
	int ret;

	ret = rc_init(a);
	if (ret == 0)
		ret = rc_init(b);
	if (ret == 0)
		ret = rc_rtr(a, b->qp_num, PSN_1);
	if (ret == 0)
		ret = rc_rtr(b, a->qp_num, PSN_0);
	if (ret == 0)
		ret = rc_rts(a, PSN_0);
	if (ret == 0)
		ret = rc_rts(b, PSN_1);
	if (ret != 0)
		fprintf(stderr, "connecting QPs %u and %u: %s\n", a->qp_num,
			b->qp_num, strerror(ret));
	return ret;
}

/* RESET -> RTS of a UD QP. */
int
ud_up(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = QKEY;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = PSN_0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* Post one receive of [addr, addr + len) (no SGE when @p len is 0). */
int
post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = len > 0 ? 1 : 0;
	return ibv_post_recv(qp, &wr, &bad);
}

int
post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, void *addr, uint32_t len,
	      uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/* A signaled send WR of one SGE. */
void
wr_fill(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t wr_id,
	enum ibv_wr_opcode op, void *addr, uint32_t len, uint32_t lkey)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)addr;
	sge->length = len;
	sge->lkey = lkey;
	wr->wr_id = wr_id;
	wr->opcode = op;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
}

/* Post a signaled SEND of [addr, addr + len). */
int
post_send(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey, unsigned int flags)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	wr_fill(&wr, &sge, wr_id, IBV_WR_SEND, addr, len, lkey);
	wr.send_flags |= flags;
	return ibv_post_send(qp, &wr, &bad);
}


int
pair_new(struct rc_pair *p, struct ibv_comp_channel *ch, void *cq1_context)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->cq[0] = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	p->cq[1] = ibv_create_cq(ctx, CQ_DEPTH, cq1_context, ch, 0);
	if (p->cq[0] == NULL || p->cq[1] == NULL)
		return -1;
	for (i = 0; i < 2; i++) {
		p->qp[i] = qp_new(IBV_QPT_RC, p->cq[i], NULL);
		if (p->qp[i] == NULL) {
			fprintf(stderr, "ibv_create_qp: %s\n", strerror(errno));
			return -1;
		}
	}
	return rc_connect(p->qp[0], p->qp[1]) == 0 ? 0 : -1;
}

void
pair_free(struct rc_pair *p)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (p->qp[i] != NULL)
			CU_ASSERT_EQUAL(ibv_destroy_qp(p->qp[i]), 0);
	for (i = 0; i < 2; i++)
		if (p->cq[i] != NULL)
			CU_ASSERT_EQUAL(ibv_destroy_cq(p->cq[i]), 0);
	memset(p, 0, sizeof(*p));
}

/*
 * Wait up to @p ms for the asynchronous event @p type of object @p obj
 * (QP, CQ or SRQ) on the suite's context; others are acknowledged and
 * skipped. 1 when it came, 0 when not, -1 on an error.
 */
int
wait_async(enum ibv_event_type type, const void *obj, unsigned int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	uint64_t end = now_ms() + ms, now;
	struct ibv_async_event ev;
	bool match;
	int n;

	for (;;) {
		now = now_ms();
		n = poll(&pfd, 1, now < end ? (int)(end - now) : 0);
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (ibv_get_async_event(ctx, &ev) != 0)
			return -1;
		match = ev.event_type == type &&
			(const void *)ev.element.srq == obj;
		ibv_ack_async_event(&ev);
		if (match)
			return 1;
		fprintf(stderr, "async event %d skipped\n", (int)ev.event_type);
	}
}

bool
cq_event_ack(struct ibv_comp_channel *ch, struct ibv_cq *want, void **ctx_out)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ecq = NULL;
	void *ectx = NULL;
	int ret;

	if (poll(&pfd, 1, WAIT_MS) != 1) {
		fprintf(stderr, "no completion event in %d ms\n", WAIT_MS);
		return false;
	}
	ret = ibv_get_cq_event(ch, &ecq, &ectx);
	if (ret == 0 && ecq != NULL)
		ibv_ack_cq_events(ecq, 1);
	if (ctx_out != NULL)
		*ctx_out = ectx;
	return ret == 0 && ecq == want;
}
