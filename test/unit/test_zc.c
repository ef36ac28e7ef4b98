/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy payload transmit (roce_txbuf.h) over the fake link: RC WRITE,
 * SEND and READ of various sizes with zero_copy_tx on. The data arrives
 * intact, frames with a payload of at least zc_min bytes are chained
 * (header + attached payload + tail) and smaller ones are single mbufs,
 * every ICRC verifies, the sender's buffer is never written (even by a
 * corrupting link), and the pool's in-use count returns to its baseline.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_mempool.h>

#include "fake_link.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_priv.h"
#include "roce_qp.h"
#include "roce_txbuf.h"
#include "roce_worker.h"
#include "test_common.h"

#define REGION (2u << 20)
#define MAX_ITERS 4000000L

/* What the capture hook saw of the data frames (payload > 0). */
struct zc_cap {
	uint32_t frames;
	uint32_t chained;	/**< nb_segs > 1 */
	uint32_t big_single;	/**< payload >= zc_min in one segment */
	uint32_t small_chained;	/**< payload < zc_min chained */
	uint32_t bad_icrc;
	uint32_t bad_iova;	/**< attached segment's IOVA not its address's */
	uint32_t zc_min;
};

struct zc_env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	struct zc_cap cap;
	int want[2], got[2];
	struct roce_wc wc[2][64];
};

static void
zc_capture(void *ctx, int from __rte_unused, const struct rte_mbuf *m)
{
	struct zc_cap *c = ctx;
	struct roce_pkt pkt;

	if (roce_parse(m, &pkt) != 0 || pkt.payload_len == 0)
		return;
	c->frames++;
	if (m->nb_segs > 1) {
		c->chained++;
		/* the key's cached IOVA, offset to this packet's payload */
		if (RTE_MBUF_HAS_EXTBUF(m->next) &&
		    m->next->buf_iova != rte_mem_virt2iova(m->next->buf_addr))
			c->bad_iova++;
	}
	if (pkt.payload_len >= c->zc_min && m->nb_segs == 1)
		c->big_single++;
	if (pkt.payload_len < c->zc_min && m->nb_segs > 1)
		c->small_chained++;
	if (roce_icrc_verify_mbuf(m, m->l2_len) != 0)
		c->bad_icrc++;
}

static void
pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 9));
}

static struct zc_env *
zc_env_create(uint64_t seed, enum roce_mtu mtu)
{
	struct zc_env *e = calloc(1, sizeof(*e));
	struct fake_conn_opts o;
	struct roce_qp_init_attr ia;
	int i;

	if (e == NULL)
		return NULL;
	e->l = fake_link_create(seed, false);
	if (e->l == NULL)
		goto fail;
	for (i = 0; i < 2; i++) {
		struct roce_device *dev = e->l->ep[i].dev;

		/* as a PMD whose port sends multi-segment mbufs would */
		dev->cfg.zero_copy_tx = true;
		dev->cfg.zc_min = 0;	/* the default threshold */
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		if (e->cq[i] == NULL)
			goto fail;
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = e->cq[i];
		ia.recv_cq = e->cq[i];
		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 4;
		ia.cap.max_recv_sge = 4;
		ia.sq_sig_all = true;
		e->qp[i] = roce_create_qp(e->l->ep[i].pd, &ia);
		if (e->qp[i] == NULL)
			goto fail;
		e->buf[i] = aligned_alloc(4096, REGION);
		if (e->buf[i] == NULL)
			goto fail;
		e->mr[i] = roce_reg_mr(e->l->ep[i].pd, e->buf[i], REGION,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE |
				       ROCE_ACCESS_REMOTE_READ);
		if (e->mr[i] == NULL)
			goto fail;
	}
	fake_conn_opts_default(&o);
	o.mtu = mtu;
	if (fake_link_connect(e->l, e->qp[0], e->qp[1], &o) != 0)
		goto fail;
	e->cap.zc_min = ROCE_TXBUF_ZC_MIN_DEFAULT;
	fake_link_set_capture(e->l, zc_capture, &e->cap);
	return e;
fail:
	CU_FAIL("environment setup failed");
	return e;
}

static void
zc_env_destroy(struct zc_env *e)
{
	static const struct fake_link_impair none;
	int i;

	if (e == NULL)
		return;
	if (e->l != NULL) {
		fake_link_set_impair(e->l, -1, &none);
		fake_link_settle(e->l, 200000);
	}
	for (i = 0; i < 2; i++) {
		if (e->qp[i] != NULL)
			CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i]), 0);
		if (e->mr[i] != NULL)
			roce_dereg_mr(e->mr[i]);
		free(e->buf[i]);
		if (e->cq[i] != NULL)
			CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[i]), 0);
	}
	if (e->l != NULL)
		fake_link_destroy(e->l);
	free(e);
}

static bool
zc_wait_pred(void *arg)
{
	struct zc_env *e = arg;
	int i, n;

	for (i = 0; i < 2; i++) {
		n = roce_poll_cq(e->cq[i], &e->wc[i][e->got[i]],
				 (int)RTE_DIM(e->wc[i]) - e->got[i]);
		if (n > 0)
			e->got[i] += n;
	}
	return e->got[0] >= e->want[0] && e->got[1] >= e->want[1];
}

/* Run until side 0 has @p n0 completions and side 1 @p n1, all successful. */
static void
zc_wait(struct zc_env *e, int n0, int n1)
{
	int i, j;

	e->want[0] = n0;
	e->want[1] = n1;
	e->got[0] = 0;
	e->got[1] = 0;
	CU_ASSERT(fake_link_run_until(e->l, zc_wait_pred, e, MAX_ITERS) >= 0);
	for (i = 0; i < 2; i++)
		for (j = 0; j < e->got[i]; j++)
			CU_ASSERT_EQUAL(e->wc[i][j].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->got[0], n0);
	CU_ASSERT_EQUAL(e->got[1], n1);
}

/* One op of @p len bytes from offset @p off; checks the data moved. */
static void
zc_op(struct zc_env *e, enum roce_wr_opcode op, uint32_t len, uint32_t off)
{
	/* READ: side 0 reads side 1's memory into its own */
	uint8_t *src = op == ROCE_WR_RDMA_READ ? e->buf[1] : e->buf[0];
	uint8_t *dst = op == ROCE_WR_RDMA_READ ? e->buf[0] : e->buf[1];
	uint8_t *ref = malloc(len + 1);
	struct roce_sge sge, rsge;
	struct roce_send_wr wr;
	struct roce_recv_wr rwr;

	CU_ASSERT_FATAL(ref != NULL);
	pattern(src + off, len, len ^ op);
	memcpy(ref, src + off, len);
	memset(dst + off, 0xee, len);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)e->buf[0] + off;
	sge.length = len;
	sge.lkey = roce_mr_lkey(e->mr[0]);
	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)e->buf[1] + off;
	wr.rdma.rkey = roce_mr_rkey(e->mr[1]);
	if (op == ROCE_WR_SEND) {
		memset(&rwr, 0, sizeof(rwr));
		rsge.addr = (uintptr_t)e->buf[1] + off;
		rsge.length = len;
		rsge.lkey = roce_mr_lkey(e->mr[1]);
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		CU_ASSERT_EQUAL(roce_post_recv(e->qp[1], &rwr, 1, NULL), 0);
	}
	CU_ASSERT_EQUAL(roce_post_send(e->qp[0], &wr, 1, NULL), 0);
	zc_wait(e, 1, op == ROCE_WR_SEND ? 1 : 0);
	CU_ASSERT(memcmp(dst + off, ref, len) == 0);
	/* the source was only read, even when attached to mbufs */
	CU_ASSERT(memcmp(src + off, ref, len) == 0);
	free(ref);
}

static void
zc_check_frames(struct zc_env *e)
{
	CU_ASSERT(e->cap.frames > 0);
	CU_ASSERT_EQUAL(e->cap.big_single, 0);
	CU_ASSERT_EQUAL(e->cap.small_chained, 0);
	CU_ASSERT_EQUAL(e->cap.bad_icrc, 0);
	CU_ASSERT_EQUAL(e->cap.bad_iova, 0);
}

/*
 * The IOVA a registration caches for zero-copy transmit (IOVA as VA in
 * these tests: the address itself): set by reg_mr and a translation
 * change, gone with the key; no IOVA for an empty or wrapping range.
 */
static void
test_zc_mr_iova(void)
{
	struct zc_env *e = zc_env_create(15, ROCE_MTU_1024);
	struct roce_key_entry *ke;
	struct roce_txbuf_iova_cache ic = { 0 };
	struct roce_key_ref ref;
	uint8_t *b;

	CU_ASSERT_FATAL(e != NULL && e->mr[0] != NULL);
	b = e->buf[0];
	ke = &e->l->ep[0].dev->keys[e->mr[0]->index];
	CU_ASSERT_EQUAL(ke->iova, rte_mem_virt2iova(b));
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(b, REGION), rte_mem_virt2iova(b));
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(b, 0), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(NULL, 64), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_range_iova((void *)(UINTPTR_MAX - 8), 64),
			RTE_BAD_IOVA);
	/* a checked reference gives the IOVA of any address inside it */
	CU_ASSERT_EQUAL(roce_key_check_local(e->l->ep[0].dev, e->l->ep[0].pd,
					     roce_mr_lkey(e->mr[0]),
					     (uintptr_t)b + 100, 4000, 0, &ref),
			ROCE_OK);
	CU_ASSERT_EQUAL(roce_key_ref_iova(&ref, b + 300, 1000, &ic),
			rte_mem_virt2iova(b + 300));
	/* a new translation: the new IOVA; the old reference is looked up */
	CU_ASSERT_EQUAL(roce_rereg_mr(e->mr[0],
				      ROCE_REREG_MR_CHANGE_TRANSLATION, NULL,
				      b + 4096, REGION - 4096,
				      ROCE_ACCESS_LOCAL_WRITE), 0);
	CU_ASSERT_EQUAL(ke->iova, rte_mem_virt2iova(b + 4096));
	CU_ASSERT_EQUAL(roce_key_ref_iova(&ref, b + 300, 1000, &ic),
			rte_mem_virt2iova(b + 300));
	CU_ASSERT_EQUAL(roce_dereg_mr(e->mr[0]), 0);
	e->mr[0] = NULL;
	CU_ASSERT_EQUAL(ke->iova, RTE_BAD_IOVA);
	zc_env_destroy(e);
}

static void
test_zc_sizes(void)
{
	static const uint32_t sizes[] = {
		1, 3, 255, 256, 257, 1023, 1024, 1025, 4097, 65536, 1u << 20,
	};
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_WRITE, ROCE_WR_SEND, ROCE_WR_RDMA_READ,
	};
	struct rte_mempool *mp = test_mbuf_pool();
	struct zc_env *e = zc_env_create(11, ROCE_MTU_1024);
	unsigned int base, i, k;

	CU_ASSERT_FATAL(e != NULL && e->qp[1] != NULL);
	fake_link_settle(e->l, 200000);
	base = rte_mempool_in_use_count(mp);
	for (k = 0; k < RTE_DIM(ops); k++)
		for (i = 0; i < RTE_DIM(sizes); i++)
			zc_op(e, ops[k], sizes[i], (i * 4099) % 4096);
	zc_check_frames(e);
	/* 1 MiB at MTU 1024: every WRITE/SEND/READ response packet is full */
	CU_ASSERT(e->cap.chained >= 3 * 1024);
	CU_ASSERT(e->qp[0]->stats.tx_zc_pkts >= 2 * 1024);
	CU_ASSERT(e->qp[1]->stats.tx_zc_pkts >= 1024);	/* READ responses */
	fake_link_settle(e->l, 200000);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(mp), base);
	zc_env_destroy(e);
}

static void
test_zc_threshold_and_off(void)
{
	struct rte_mempool *mp = test_mbuf_pool();
	struct zc_env *e = zc_env_create(12, ROCE_MTU_4096);
	unsigned int base;

	CU_ASSERT_FATAL(e != NULL && e->qp[1] != NULL);
	fake_link_settle(e->l, 200000);
	base = rte_mempool_in_use_count(mp);
	/* a higher threshold: 1000-byte packets are copied */
	e->l->ep[0].dev->cfg.zc_min = 2048;
	e->cap.zc_min = 2048;
	zc_op(e, ROCE_WR_RDMA_WRITE, 1000, 0);
	CU_ASSERT_EQUAL(e->cap.chained, 0);
	zc_op(e, ROCE_WR_RDMA_WRITE, 3000, 8);
	CU_ASSERT_EQUAL(e->cap.chained, 1);
	/* off: everything copied, single segments (the pool holds 4 KB) */
	e->l->ep[0].dev->cfg.zero_copy_tx = false;
	e->cap.zc_min = UINT32_MAX;
	zc_op(e, ROCE_WR_SEND, 12288, 0);
	CU_ASSERT_EQUAL(e->cap.chained, 1);
	zc_check_frames(e);
	fake_link_settle(e->l, 200000);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(mp), base);
	zc_env_destroy(e);
}

/*
 * Loss, duplication, reordering and corruption: retransmissions build new
 * packets from the buffer, duplicated frames are copies, corruption hits
 * a private copy of the frame, never the attached sender memory.
 */
static void
test_zc_lossy(void)
{
	static const struct fake_link_impair imp = {
		.loss_ppm = 50000,
		.reorder_ppm = 10000,
		.dup_ppm = 10000,
		.corrupt_ppm = 10000,
	};
	struct rte_mempool *mp = test_mbuf_pool();
	struct zc_env *e = zc_env_create(13, ROCE_MTU_1024);
	unsigned int base;

	CU_ASSERT_FATAL(e != NULL && e->qp[1] != NULL);
	fake_link_settle(e->l, 200000);
	base = rte_mempool_in_use_count(mp);
	fake_link_set_impair(e->l, -1, &imp);
	zc_op(e, ROCE_WR_RDMA_WRITE, 1u << 20, 0);
	zc_op(e, ROCE_WR_SEND, 300000, 12);
	zc_op(e, ROCE_WR_RDMA_READ, 500000, 4);
	CU_ASSERT(e->l->ep[0].stats.corrupted > 0);
	CU_ASSERT(e->qp[0]->stats.retrans_pkts > 0);
	/* what left the sender was intact; corruption came after */
	CU_ASSERT_EQUAL(e->cap.bad_icrc, 0);
	CU_ASSERT_EQUAL(e->cap.big_single, 0);
	zc_env_destroy(e);
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(mp), base);
}

/*
 * roce_dereg_mr() while zero-copy frames built from the memory are still
 * queued (here: in the peer's inbox, not yet received): -EBUSY and the MR
 * unchanged; once the frames are consumed and freed it succeeds. The
 * internal roce_dereg_mr_nowait() (the PMD's, which waits for zc_refs in
 * its grace period) does not refuse.
 */
static void
test_zc_dereg_busy(void)
{
	struct zc_env *e = zc_env_create(14, ROCE_MTU_1024);
	struct roce_device *dev0;
	struct roce_key_entry *ke;
	uint32_t idx;
	struct roce_sge sge;
	struct roce_send_wr wr;
	struct roce_mr *mr2;
	uint32_t lkey;
	long i;

	CU_ASSERT_FATAL(e != NULL && e->qp[1] != NULL);
	fake_link_settle(e->l, 200000);
	dev0 = e->l->ep[0].dev;
	idx = e->mr[0]->index;
	ke = &dev0->keys[idx];
	lkey = roce_mr_lkey(e->mr[0]);
	pattern(e->buf[0], 8192, 5);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)e->buf[0];
	sge.length = 8192;
	sge.lkey = lkey;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)e->buf[1];
	wr.rdma.rkey = roce_mr_rkey(e->mr[1]);
	CU_ASSERT_EQUAL(roce_post_send(e->qp[0], &wr, 1, NULL), 0);
	/* side 0 alone runs: its frames wait in side 1's inbox */
	for (i = 0; i < 8 && roce_key_zc_inflight(dev0, idx) == 0; i++)
		roce_worker_poll(e->l->ep[0].w, e->l->tsc);
	CU_ASSERT_FATAL(roce_key_zc_inflight(dev0, idx) > 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(e->mr[0]), -EBUSY);
	/* unchanged: the key still names the memory */
	CU_ASSERT_EQUAL(roce_mr_lkey(e->mr[0]), lkey);
	CU_ASSERT(ke->type == ROCE_KEY_MR && ke->host == e->buf[0]);
	zc_wait(e, 1, 0);
	fake_link_settle(e->l, 200000);
	CU_ASSERT_EQUAL(roce_key_zc_inflight(dev0, idx), 0);
	CU_ASSERT(memcmp(e->buf[0], e->buf[1], 8192) == 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(e->mr[0]), 0);
	e->mr[0] = NULL;
	CU_ASSERT_EQUAL(ke->type, ROCE_KEY_FREE);
	/* the PMD's variant: the key goes at once, frames or not */
	mr2 = roce_reg_mr(e->l->ep[0].pd, e->buf[0], REGION,
			  ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_FATAL(mr2 != NULL);
	idx = mr2->index;
	ke = &dev0->keys[idx];
	sge.lkey = roce_mr_lkey(mr2);
	CU_ASSERT_EQUAL(roce_post_send(e->qp[0], &wr, 1, NULL), 0);
	for (i = 0; i < 8 && roce_key_zc_inflight(dev0, idx) == 0; i++)
		roce_worker_poll(e->l->ep[0].w, e->l->tsc);
	CU_ASSERT_FATAL(roce_key_zc_inflight(dev0, idx) > 0);
	CU_ASSERT_EQUAL(roce_dereg_mr_nowait(mr2), 0);
	CU_ASSERT_EQUAL(ke->type, ROCE_KEY_FREE);
	/* the frames were built already: they still arrive and complete */
	zc_wait(e, 1, 0);
	fake_link_settle(e->l, 200000);
	CU_ASSERT_EQUAL(roce_key_zc_inflight(dev0, idx), 0);
	zc_env_destroy(e);
}

static CU_TestInfo zc_tests[] = {
	{ "dereg_mr while zero-copy frames are queued: -EBUSY",
	  test_zc_dereg_busy },
	{ "WRITE/SEND/READ sizes: chained, intact, no leak", test_zc_sizes },
	{ "the IOVA a registration caches", test_zc_mr_iova },
	{ "threshold and flag off: copied", test_zc_threshold_and_off },
	{ "5% loss + dup + reorder + corruption", test_zc_lossy },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "zc", NULL, NULL, NULL, NULL, zc_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
