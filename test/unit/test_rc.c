/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC end to end between two devices over the fake link: every operation at
 * the interesting sizes, with and without loss/reordering/duplication,
 * duplicate READ and atomic replay, remote access errors, RNR and retry
 * exhaustion, PSN wrap, ICRC corruption and TX back-pressure.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "fake_link.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "roce_verbs.h"
#include "test_common.h"

#define MIB (1u << 20)
#define CANARY 64
#define REGION (2 * MIB)	/* bytes registered per side */
#define FILL_DST 0xee
#define FILL_CANARY 0xc5
#define MAX_ITERS 4000000L
#define IMM 0x1234abcdu

/* One side's memory: [canary][REGION registered][canary]. */
struct mem {
	uint8_t *raw;
	uint8_t *base;
	struct roce_mr *mr;
};

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	struct mem m[2];
	struct fake_conn_opts o;
	uint32_t mtu;
	/* completions collected by the wait predicate */
	int want[2], got[2];
	struct roce_wc wc[2][256];
};

static const struct fake_link_impair no_impair;
static const struct fake_link_impair lossy = {
	.loss_ppm = 50000,	/* 5 % */
	.reorder_ppm = 10000,
	.dup_ppm = 10000,
};

static void
mem_fill_pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ (i >> 16));
}

static bool
mem_is(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static bool
canaries_ok(const struct mem *m)
{
	return mem_is(m->raw, CANARY, FILL_CANARY) &&
	       mem_is(m->base + REGION, CANARY, FILL_CANARY);
}

static int
mem_init(struct env *e, int side, int access, struct roce_pd *pd)
{
	struct mem *m = &e->m[side];

	m->raw = aligned_alloc(4096, REGION + 2 * 4096);
	if (m->raw == NULL)
		return -1;
	/* canary right before and after the registered bytes */
	m->base = m->raw + 4096;
	m->raw = m->base - CANARY;
	memset(m->raw, FILL_CANARY, CANARY);
	memset(m->base + REGION, FILL_CANARY, CANARY);
	memset(m->base, FILL_DST, REGION);
	m->mr = roce_reg_mr(pd != NULL ? pd : e->l->ep[side].pd, m->base,
			    REGION, access);
	return m->mr != NULL ? 0 : -1;
}

static void
mem_fini(struct mem *m)
{
	if (m->mr != NULL)
		roce_dereg_mr(m->mr);
	if (m->raw != NULL)
		free(m->base - 4096);
	memset(m, 0, sizeof(*m));
}

#define MR_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC | \
		ROCE_ACCESS_MW_BIND)

/* Side @p side's RC QP on its CQ; lkey_at_exec: L_Keys checked at execution. */
static struct roce_qp *
qp_create(struct env *e, int side, bool lkey_at_exec)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = e->cq[side];
	ia.recv_cq = e->cq[side];
	ia.cap.max_send_wr = 256;
	ia.cap.max_recv_wr = 256;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.sq_sig_all = true;
	ia.lkey_at_exec = lkey_at_exec;
	return roce_create_qp(e->l->ep[side].pd, &ia);
}

/* Link, CQs, connected RC QPs and memory on both sides. */
static struct env *
env_create(uint64_t seed, const struct fake_conn_opts *o,
	   const struct fake_link_impair *imp)
{
	struct env *e = calloc(1, sizeof(*e));
	int i;

	if (e == NULL)
		return NULL;
	e->l = fake_link_create(seed, false);
	if (e->l == NULL)
		goto fail;
	if (o != NULL)
		e->o = *o;
	else
		fake_conn_opts_default(&e->o);
	e->mtu = roce_mtu_bytes(e->o.mtu);
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 4096);
		if (e->cq[i] == NULL)
			goto fail;
		e->qp[i] = qp_create(e, i, false);
		if (e->qp[i] == NULL)
			goto fail;
		if (mem_init(e, i, MR_ALL, NULL) != 0)
			goto fail;
	}
	if (fake_link_connect(e->l, e->qp[0], e->qp[1], &e->o) != 0)
		goto fail;
	fake_link_set_impair(e->l, -1, imp != NULL ? imp : &no_impair);
	return e;
fail:
	CU_FAIL("environment setup failed");
	free(e);
	return NULL;
}

static void
env_destroy(struct env *e)
{
	int i;

	if (e == NULL)
		return;
	fake_link_set_impair(e->l, -1, &no_impair);
	fake_link_cut(e->l, -1, false);
	fake_link_settle(e->l, 200000);
	for (i = 0; i < 2; i++) {
		if (e->qp[i] != NULL)
			CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i]), 0);
		mem_fini(&e->m[i]);
		if (e->cq[i] != NULL)
			CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[i]), 0);
	}
	fake_link_destroy(e->l);
	free(e);
}

static bool
wait_pred(void *arg)
{
	struct env *e = arg;
	int i, n;

	for (i = 0; i < 2; i++) {
		if (e->got[i] >= (int)RTE_DIM(e->wc[i]))
			continue;
		n = roce_poll_cq(e->cq[i], &e->wc[i][e->got[i]],
				 (int)RTE_DIM(e->wc[i]) - e->got[i]);
		if (n > 0)
			e->got[i] += n;
	}
	return e->got[0] >= e->want[0] && e->got[1] >= e->want[1];
}

/* Collect @p n0 completions on side 0 and @p n1 on side 1. */
static bool
env_wait(struct env *e, int n0, int n1)
{
	e->want[0] = n0;
	e->want[1] = n1;
	e->got[0] = e->got[1] = 0;
	return fake_link_run_until(e->l, wait_pred, e, MAX_ITERS) >= 0;
}

static enum roce_qp_state
qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (roce_query_qp(qp, &a, &ia) != 0)
		return ROCE_QPS_UNKNOWN;
	return a.qp_state;
}

static int
post_send1(struct roce_qp *qp, const struct roce_send_wr *wr)
{
	unsigned int posted = 0;

	return roce_post_send(qp, wr, 1, &posted);
}

static int
post_recv_sgl(struct env *e, int side, uint64_t wr_id,
	      const struct roce_sge *sg, uint32_t n)
{
	struct roce_recv_wr wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = n };
	unsigned int posted = 0;

	return roce_post_recv(e->qp[side], &wr, 1, &posted);
}

static struct roce_sge
sge(struct env *e, int side, size_t off, uint32_t len)
{
	struct roce_sge s = {
		.addr = (uint64_t)(uintptr_t)(e->m[side].base + off),
		.length = len,
		.lkey = roce_mr_lkey(e->m[side].mr),
	};

	return s;
}

/* SGE layouts: one buffer, or the odd 3-piece layout 1 + 4095 + 7 bytes. */
enum layout { ONE_SGE, ODD_SGES };

static const size_t odd_off[3] = { 0, 8192, 3 * 4096 + 5 };
static const uint32_t odd_len[3] = { 1, 4095, 7 };
#define ODD_TOTAL (1 + 4095 + 7)

static uint32_t
make_sgl(struct env *e, int side, size_t base_off, uint32_t size,
	 enum layout lay, struct roce_sge *sg)
{
	int i;

	if (lay == ONE_SGE) {
		if (size == 0)
			return 0;
		sg[0] = sge(e, side, base_off, size);
		return 1;
	}
	for (i = 0; i < 3; i++)
		sg[i] = sge(e, side, base_off + odd_off[i], odd_len[i]);
	return 3;
}

/* Compare the bytes of an SGE list with a flat buffer. */
static bool
sgl_equal(const struct roce_sge *sg, uint32_t n, const uint8_t *flat)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (memcmp((void *)(uintptr_t)sg[i].addr, flat, sg[i].length))
			return false;
		flat += sg[i].length;
	}
	return true;
}

static void
sgl_gather(const struct roce_sge *sg, uint32_t n, uint8_t *flat)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		memcpy(flat, (void *)(uintptr_t)sg[i].addr, sg[i].length);
		flat += sg[i].length;
	}
}

static void
mem_reset(struct env *e)
{
	memset(e->m[0].base, FILL_DST, REGION);
	memset(e->m[1].base, FILL_DST, REGION);
}

/* ------------------------------------------------------------------ */
/* SEND / SEND+imm / WRITE / WRITE+imm / READ                          */
/* ------------------------------------------------------------------ */

#define SRC_OFF 0
#define DST_OFF 128	/* the bytes before it must stay untouched */
#define SLACK 64	/* and so must the bytes after the message */

static void
do_send(struct env *e, enum roce_wr_opcode op, uint32_t size, enum layout lay,
	uint64_t id)
{
	struct roce_sge ssg[3], rsg[3];
	struct roce_send_wr wr;
	uint32_t ns, nr, total;
	uint8_t *expect;

	mem_reset(e);
	if (lay == ODD_SGES)
		size = ODD_TOTAL;
	ns = make_sgl(e, 0, SRC_OFF, size, lay, ssg);
	mem_fill_pattern(e->m[0].base, REGION / 2, (uint32_t)id);
	/* the receive buffer is larger than the message: byte_len must be exact */
	if (lay == ODD_SGES)
		nr = make_sgl(e, 1, DST_OFF, size, lay, rsg);
	else {
		rsg[0] = sge(e, 1, DST_OFF, size + SLACK);
		nr = 1;
	}
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, id + 1000, rsg, nr), 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = ssg;
	wr.num_sge = ns;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(IMM);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	/* requester completion */
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].opcode, ROCE_WC_SEND);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, id);
	/* responder completion */
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_RECV);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, id + 1000);
	CU_ASSERT_EQUAL(e->wc[1][0].byte_len, size);
	CU_ASSERT_EQUAL(e->wc[1][0].qp_num, roce_qp_num(e->qp[1]));
	if (op == ROCE_WR_SEND_WITH_IMM) {
		CU_ASSERT(e->wc[1][0].wc_flags & ROCE_WC_WITH_IMM);
		CU_ASSERT_EQUAL(e->wc[1][0].imm_data, rte_cpu_to_be_32(IMM));
	} else {
		CU_ASSERT_FALSE(e->wc[1][0].wc_flags & ROCE_WC_WITH_IMM);
	}
	/* data */
	total = size;
	expect = malloc(total + 1);
	CU_ASSERT_FATAL(expect != NULL);
	sgl_gather(ssg, ns, expect);
	if (lay == ODD_SGES) {
		CU_ASSERT(sgl_equal(rsg, nr, expect));
	} else {
		CU_ASSERT(memcmp(e->m[1].base + DST_OFF, expect, total) == 0);
		CU_ASSERT(mem_is(e->m[1].base + DST_OFF + total, SLACK, FILL_DST));
	}
	CU_ASSERT(mem_is(e->m[1].base, DST_OFF, FILL_DST));
	CU_ASSERT(canaries_ok(&e->m[0]) && canaries_ok(&e->m[1]));
	free(expect);
}

static void
do_write(struct env *e, bool imm, uint32_t size, enum layout lay, uint64_t id)
{
	struct roce_sge ssg[3];
	struct roce_send_wr wr;
	uint8_t *expect;
	uint32_t ns;

	mem_reset(e);
	if (lay == ODD_SGES)
		size = ODD_TOTAL;
	mem_fill_pattern(e->m[0].base, REGION / 2, (uint32_t)id);
	ns = make_sgl(e, 0, SRC_OFF, size, lay, ssg);
	if (imm)	/* WRITE with immediate consumes a receive WQE */
		CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, id + 1000, NULL, 0), 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = imm ? ROCE_WR_RDMA_WRITE_WITH_IMM : ROCE_WR_RDMA_WRITE;
	wr.sg_list = ssg;
	wr.num_sge = ns;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(IMM);
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF);
	wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, imm ? 1 : 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].opcode, ROCE_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, id);
	if (imm) {
		CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
		CU_ASSERT_EQUAL(e->wc[1][0].wr_id, id + 1000);
		CU_ASSERT_EQUAL(e->wc[1][0].byte_len, size);
		CU_ASSERT(e->wc[1][0].wc_flags & ROCE_WC_WITH_IMM);
		CU_ASSERT_EQUAL(e->wc[1][0].imm_data, rte_cpu_to_be_32(IMM));
	}
	expect = malloc(size + 1);
	CU_ASSERT_FATAL(expect != NULL);
	sgl_gather(ssg, ns, expect);
	CU_ASSERT(memcmp(e->m[1].base + DST_OFF, expect, size) == 0);
	CU_ASSERT(mem_is(e->m[1].base, DST_OFF, FILL_DST));
	CU_ASSERT(mem_is(e->m[1].base + DST_OFF + size, SLACK, FILL_DST));
	CU_ASSERT(canaries_ok(&e->m[0]) && canaries_ok(&e->m[1]));
	free(expect);
}

static void
do_read(struct env *e, uint32_t size, enum layout lay, uint64_t id)
{
	struct roce_sge dsg[3];
	struct roce_send_wr wr;
	uint32_t nd;

	mem_reset(e);
	if (lay == ODD_SGES)
		size = ODD_TOTAL;
	mem_fill_pattern(e->m[1].base + DST_OFF, size, (uint32_t)id);
	nd = make_sgl(e, 0, SRC_OFF, size, lay, dsg);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.sg_list = dsg;
	wr.num_sge = nd;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF);
	wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].opcode, ROCE_WC_RDMA_READ);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, id);
	CU_ASSERT_EQUAL(e->wc[0][0].byte_len, size);
	if (lay == ODD_SGES) {
		CU_ASSERT(sgl_equal(dsg, nd, e->m[1].base + DST_OFF));
	} else {
		CU_ASSERT(memcmp(e->m[0].base + SRC_OFF,
				 e->m[1].base + DST_OFF, size) == 0);
		CU_ASSERT(mem_is(e->m[0].base + SRC_OFF + size, SLACK,
				 FILL_DST));
	}
	CU_ASSERT(canaries_ok(&e->m[0]) && canaries_ok(&e->m[1]));
}

/* ------------------------------------------------------------------ */
/* Atomics                                                            */
/* ------------------------------------------------------------------ */

#define ATOMIC_OFF 256

static uint64_t *
atomic_word(struct env *e)
{
	return (uint64_t *)(void *)(e->m[1].base + ATOMIC_OFF);
}

static uint64_t
do_atomic(struct env *e, enum roce_wr_opcode op, uint64_t cmp_add,
	  uint64_t swap, uint64_t id, size_t res_off)
{
	struct roce_sge s = sge(e, 0, res_off, 8);
	struct roce_send_wr wr;
	uint64_t orig;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.atomic.remote_addr = (uint64_t)(uintptr_t)atomic_word(e);
	wr.atomic.rkey = roce_mr_rkey(e->m[1].mr);
	wr.atomic.compare_add = cmp_add;
	wr.atomic.swap = swap;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].opcode, op == ROCE_WR_ATOMIC_CMP_AND_SWP ?
			ROCE_WC_COMP_SWAP : ROCE_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, id);
	CU_ASSERT_EQUAL(e->wc[0][0].byte_len, 8);
	memcpy(&orig, e->m[0].base + res_off, sizeof(orig));
	return orig;
}

static void
atomics_once(struct env *e)
{
	uint64_t *w = atomic_word(e);
	uint64_t v0 = 0x1111222233334444ULL;

	mem_reset(e);
	*w = v0;
	/* CAS that matches: old value back, swap stored */
	CU_ASSERT_EQUAL(do_atomic(e, ROCE_WR_ATOMIC_CMP_AND_SWP, v0, 77, 1, 0), v0);
	CU_ASSERT_EQUAL(*w, 77);
	/* CAS that does not match: current value back, memory unchanged */
	CU_ASSERT_EQUAL(do_atomic(e, ROCE_WR_ATOMIC_CMP_AND_SWP, 5, 99, 2, 8), 77);
	CU_ASSERT_EQUAL(*w, 77);
	/* FAA */
	CU_ASSERT_EQUAL(do_atomic(e, ROCE_WR_ATOMIC_FETCH_AND_ADD, 23, 0, 3, 16), 77);
	CU_ASSERT_EQUAL(*w, 100);
	CU_ASSERT(mem_is(e->m[1].base + ATOMIC_OFF + 8, 64, FILL_DST));
	CU_ASSERT(canaries_ok(&e->m[0]) && canaries_ok(&e->m[1]));
}

/* ------------------------------------------------------------------ */
/* The matrix                                                         */
/* ------------------------------------------------------------------ */

static void
matrix(const struct fake_link_impair *imp, uint64_t seed)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_SEND, ROCE_WR_SEND_WITH_IMM, ROCE_WR_RDMA_WRITE,
		ROCE_WR_RDMA_WRITE_WITH_IMM, ROCE_WR_RDMA_READ,
	};
	unsigned int i, j;
	uint64_t id = 1;

	for (i = 0; i < RTE_DIM(ops); i++) {
		struct env *e = env_create(seed + i, NULL, imp);
		uint32_t sizes[] = { 0, 1, 0, 0, 0, MIB };

		CU_ASSERT_FATAL(e != NULL);
		sizes[2] = e->mtu - 1;
		sizes[3] = e->mtu;
		sizes[4] = e->mtu + 1;
		for (j = 0; j <= RTE_DIM(sizes); j++) {
			enum layout lay = j == RTE_DIM(sizes) ? ODD_SGES : ONE_SGE;
			uint32_t size = lay == ODD_SGES ? ODD_TOTAL : sizes[j];

			switch (ops[i]) {
			case ROCE_WR_SEND:
			case ROCE_WR_SEND_WITH_IMM:
				do_send(e, ops[i], size, lay, id++);
				break;
			case ROCE_WR_RDMA_WRITE:
			case ROCE_WR_RDMA_WRITE_WITH_IMM:
				do_write(e, ops[i] == ROCE_WR_RDMA_WRITE_WITH_IMM,
					 size, lay, id++);
				break;
			default:
				do_read(e, size, lay, id++);
				break;
			}
			CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_RTS);
			CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
		}
		if (imp != &no_impair) {
			/* the impairments really happened and were repaired */
			struct fake_link_stats *s0 = &e->l->ep[0].stats;
			struct fake_link_stats *s1 = &e->l->ep[1].stats;

			CU_ASSERT(s0->lost + s1->lost > 0);
			CU_ASSERT(s0->dup + s1->dup > 0);
			CU_ASSERT(s0->reordered + s1->reordered > 0);
			CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_dup_requests") +
				  fake_link_counter(e->l->ep[1].w, "resp_out_of_seq") > 0);
		}
		if (imp == &no_impair) {
			/* a clean link never needs a retransmission */
			CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_dup_requests"), 0);
			CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_psn_seq_naks"), 0);
		}
		env_destroy(e);
	}
	/* atomics */
	{
		struct env *e = env_create(seed + 100, NULL, imp);

		CU_ASSERT_FATAL(e != NULL);
		atomics_once(e);
		env_destroy(e);
	}
}

static void
test_matrix_clean(void)
{
	matrix(&no_impair, 11);
}

static void
test_matrix_lossy(void)
{
	matrix(&lossy, 23);
}

/* Every message size at every MTU, back to back, on one connection. */
static void
test_mtus(void)
{
	static const enum roce_mtu mtus[] = { ROCE_MTU_256, ROCE_MTU_4096 };
	unsigned int i;

	for (i = 0; i < RTE_DIM(mtus); i++) {
		struct fake_conn_opts o;
		struct env *e;

		fake_conn_opts_default(&o);
		o.mtu = mtus[i];
		e = env_create(31 + i, &o, &lossy);
		CU_ASSERT_FATAL(e != NULL);
		do_send(e, ROCE_WR_SEND, 3 * e->mtu + 17, ONE_SGE, 1);
		do_write(e, true, 5 * e->mtu, ONE_SGE, 2);
		do_read(e, 7 * e->mtu - 1, ONE_SGE, 3);
		env_destroy(e);
	}
}

/* ------------------------------------------------------------------ */
/* Duplicates: READ and atomic replay, atomics executed exactly once   */
/* ------------------------------------------------------------------ */

static void
test_atomic_exactly_once(void)
{
	/* heavy duplication and loss on both directions */
	static const struct fake_link_impair dup_heavy = {
		.loss_ppm = 100000,
		.dup_ppm = 300000,
		.reorder_ppm = 50000,
	};
	struct env *e = env_create(41, NULL, &dup_heavy);
	uint64_t *w, seen[64], v0 = 1000;
	unsigned int i, j;

	CU_ASSERT_FATAL(e != NULL);
	w = atomic_word(e);
	*w = v0;
	for (i = 0; i < RTE_DIM(seen); i++)
		seen[i] = do_atomic(e, ROCE_WR_ATOMIC_FETCH_AND_ADD, 1, 0, i + 1,
				    8 * i);
	/* each add happened once: the counter and the returned old values */
	CU_ASSERT_EQUAL(*w, v0 + RTE_DIM(seen));
	for (i = 0; i < RTE_DIM(seen); i++) {
		CU_ASSERT_EQUAL(seen[i], v0 + i);
		for (j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(seen[i], seen[j]);
	}
	/* duplicates were seen and answered from the cache */
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_dup_requests") > 0);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_atomic_acks") > RTE_DIM(seen));
	env_destroy(e);
}

static void
test_read_replay(void)
{
	static const struct fake_link_impair dup_req = {
		.dup_ppm = 500000,
	};
	static const struct fake_link_impair lose_resp = {
		.loss_ppm = 30000,
	};
	struct env *e = env_create(43, NULL, NULL);
	unsigned int i;

	CU_ASSERT_FATAL(e != NULL);
	/* requests duplicated on the way in, responses lost on the way out */
	fake_link_set_impair(e->l, 0, &dup_req);
	fake_link_set_impair(e->l, 1, &lose_resp);
	for (i = 0; i < 4; i++)
		do_read(e, 64 * 1024 + i * 1000, ONE_SGE, i + 1);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_dup_requests") > 0);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_read_resp_pkts") >
		  4 * (64 * 1024 / e->mtu));
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Remote access errors                                               */
/* ------------------------------------------------------------------ */

enum access_case {
	AC_OUT_OF_BOUNDS,
	AC_WRONG_KEY,
	AC_WRONG_PD,
	AC_NO_REMOTE_WRITE,
	AC_NO_REMOTE_READ,
	AC_NO_REMOTE_ATOMIC,
};

static void
access_case(enum access_case ac)
{
	struct env *e = env_create(50 + ac, NULL, NULL);
	struct roce_pd *pd2 = NULL;
	struct roce_mr *mr = NULL;
	struct roce_sge s;
	struct roce_send_wr wr;
	uint64_t va;
	uint32_t rkey, len = 64;

	CU_ASSERT_FATAL(e != NULL);
	mem_reset(e);
	mem_fill_pattern(e->m[0].base, 4096, 5);
	va = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF);
	rkey = roce_mr_rkey(e->m[1].mr);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = ROCE_WR_RDMA_WRITE;
	switch (ac) {
	case AC_OUT_OF_BOUNDS:
		/* the last 32 bytes of the region and 32 beyond it */
		va = (uint64_t)(uintptr_t)(e->m[1].base + REGION - 32);
		break;
	case AC_WRONG_KEY:
		rkey ^= 0x1;	/* stale key byte */
		break;
	case AC_WRONG_PD:
		pd2 = roce_alloc_pd(e->l->ep[1].dev);
		CU_ASSERT_FATAL(pd2 != NULL);
		mr = roce_reg_mr(pd2, e->m[1].base, REGION, MR_ALL);
		CU_ASSERT_FATAL(mr != NULL);
		rkey = roce_mr_rkey(mr);
		break;
	case AC_NO_REMOTE_WRITE:
	case AC_NO_REMOTE_READ:
	case AC_NO_REMOTE_ATOMIC:
		mr = roce_reg_mr(e->l->ep[1].pd, e->m[1].base, REGION,
				 MR_ALL & ~(ac == AC_NO_REMOTE_WRITE ?
					    ROCE_ACCESS_REMOTE_WRITE :
					    ac == AC_NO_REMOTE_READ ?
					    ROCE_ACCESS_REMOTE_READ :
					    ROCE_ACCESS_REMOTE_ATOMIC));
		CU_ASSERT_FATAL(mr != NULL);
		rkey = roce_mr_rkey(mr);
		if (ac == AC_NO_REMOTE_READ)
			wr.opcode = ROCE_WR_RDMA_READ;
		if (ac == AC_NO_REMOTE_ATOMIC)
			wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
		break;
	}
	if (wr.opcode == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		len = 8;
		wr.atomic.remote_addr = (uint64_t)(uintptr_t)atomic_word(e);
		wr.atomic.rkey = rkey;
		wr.atomic.compare_add = 1;
	} else {
		wr.rdma.remote_addr = va;
		wr.rdma.rkey = rkey;
	}
	s = sge(e, 0, 0, len);
	wr.wr_id = 9;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 9);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_ERR);
	/* the responder NAKed and left the connection too (IBTA 9.9.3) */
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_rem_access_err") == 1);
	/* target memory untouched, canaries intact */
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	CU_ASSERT(canaries_ok(&e->m[1]));
	/* nothing landed beyond the local buffer either */
	CU_ASSERT(mem_is(e->m[0].base + 4096, 4096, FILL_DST));
	if (mr != NULL)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	if (pd2 != NULL)
		CU_ASSERT_EQUAL(roce_dealloc_pd(pd2), 0);
	env_destroy(e);
}

static void
test_access_errors(void)
{
	access_case(AC_OUT_OF_BOUNDS);
	access_case(AC_WRONG_KEY);
	access_case(AC_WRONG_PD);
	access_case(AC_NO_REMOTE_WRITE);
	access_case(AC_NO_REMOTE_READ);
	access_case(AC_NO_REMOTE_ATOMIC);
}

/* A misaligned atomic is an invalid request (IBTA 9.4.5). */
static void
test_atomic_misaligned(void)
{
	struct env *e = env_create(60, NULL, NULL);
	struct roce_sge s;
	struct roce_send_wr wr;

	CU_ASSERT_FATAL(e != NULL);
	s = sge(e, 0, 0, 8);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.atomic.remote_addr = (uint64_t)(uintptr_t)atomic_word(e) + 4;
	wr.atomic.rkey = roce_mr_rkey(e->m[1].mr);
	wr.atomic.compare_add = 1;
	if (post_send1(e->qp[0], &wr) == 0) {
		CU_ASSERT_FATAL(env_wait(e, 1, 0));
		CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_INV_REQ_ERR);
		CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_invalid_req") == 1);
	}
	/* either refused at post or NAKed: memory untouched */
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	env_destroy(e);
}

/* SEND longer than the receive buffer: invalid request NAK, LOC_LEN here. */
static void
test_recv_too_small(void)
{
	struct env *e = env_create(61, NULL, NULL);
	struct roce_sge ss, rs;
	struct roce_send_wr wr;

	CU_ASSERT_FATAL(e != NULL);
	rs = sge(e, 1, 0, 100);
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 77, &rs, 1), 0);
	ss = sge(e, 0, 0, 3000);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 77);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT(mem_is(e->m[1].base + 100, REGION - 100, FILL_DST));
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* RNR and retry exhaustion                                           */
/* ------------------------------------------------------------------ */

static void
send_one(struct env *e, uint64_t id, uint32_t len)
{
	struct roce_sge s = sge(e, 0, 0, len);
	struct roce_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &s;
	wr.num_sge = len != 0 ? 1 : 0;
	wr.send_flags = ROCE_SEND_SIGNALED;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
}

static void
test_rnr_exhausted(void)
{
	struct fake_conn_opts o;
	struct env *e;

	fake_conn_opts_default(&o);
	o.rnr_retry = 2;
	e = env_create(70, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	send_one(e, 1, 100);	/* nobody posted a receive */
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 1);
	/* the first try and two retries were each RNR NAKed */
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rnr_naks"), 3);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_ERR);
	/* the responder is fine: RNR is not an error there */
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	env_destroy(e);
}

static void
test_rnr_recovers(void)
{
	struct env *e = env_create(71, NULL, NULL);
	struct roce_sge rs;
	long i;

	CU_ASSERT_FATAL(e != NULL);
	send_one(e, 1, 2500);
	/* let a few RNR NAKs happen, then post the receive */
	for (i = 0; i < 100000 &&
	     fake_link_counter(e->l->ep[1].w, "resp_rnr_naks") < 2; i++)
		fake_link_step(e->l);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_rnr_naks") >= 2);
	rs = sge(e, 1, DST_OFF, 4096);
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 2, &rs, 1), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].byte_len, 2500);
	CU_ASSERT(memcmp(e->m[1].base + DST_OFF, e->m[0].base, 2500) == 0);
	env_destroy(e);
}

static void
test_retry_exhausted(void)
{
	struct fake_conn_opts o;
	struct env *e;

	fake_conn_opts_default(&o);
	o.retry_cnt = 2;
	o.timeout = 10;
	e = env_create(72, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	/* the peer is gone: everything side 0 sends is lost */
	fake_link_cut(e->l, 0, true);
	send_one(e, 4, 5000);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 4);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_ERR);
	/* first transmission and two retries of the message */
	CU_ASSERT_EQUAL(e->l->ep[0].stats.down, 3 * 5);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* PSN wrap, corruption, back-pressure, SEND with invalidate           */
/* ------------------------------------------------------------------ */

static void
test_psn_wrap(void)
{
	struct fake_conn_opts o;
	struct env *e;

	fake_conn_opts_default(&o);
	o.psn[0] = 0xfffff0;
	o.psn[1] = 0xfffffa;
	e = env_create(80, &o, &lossy);
	CU_ASSERT_FATAL(e != NULL);
	do_send(e, ROCE_WR_SEND, 40 * e->mtu + 3, ONE_SGE, 1);
	do_write(e, true, 33 * e->mtu, ONE_SGE, 2);
	do_read(e, 50 * e->mtu - 7, ONE_SGE, 3);
	atomics_once(e);
	env_destroy(e);
}

static void
test_icrc_corruption(void)
{
	static const struct fake_link_impair corrupt = {
		.corrupt_ppm = 30000,
	};
	struct env *e = env_create(90, NULL, &corrupt);
	uint64_t bad;

	CU_ASSERT_FATAL(e != NULL);
	do_send(e, ROCE_WR_SEND, 256 * 1024, ONE_SGE, 1);
	do_read(e, 256 * 1024, ONE_SGE, 2);
	bad = fake_link_counter(e->l->ep[0].w, "rx_icrc_err") +
	      fake_link_counter(e->l->ep[1].w, "rx_icrc_err");
	/* every corrupted frame was caught by the ICRC, none slipped in */
	CU_ASSERT(bad > 0);
	CU_ASSERT_EQUAL(bad, e->l->ep[0].stats.corrupted +
			e->l->ep[1].stats.corrupted);
	env_destroy(e);
}

static void
test_tx_backpressure(void)
{
	static const struct fake_link_impair slow = {
		.tx_accept_max = 3,
	};
	struct env *e = env_create(91, NULL, &slow);

	CU_ASSERT_FATAL(e != NULL);
	do_write(e, false, 200 * 1024, ONE_SGE, 1);
	do_read(e, 200 * 1024, ONE_SGE, 2);
	CU_ASSERT(fake_link_counter(e->l->ep[0].w, "tx_refused") > 0);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "tx_refused") > 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "tx_drop_full"), 0);
	env_destroy(e);
}

static void
test_send_with_invalidate(void)
{
	struct env *e = env_create(92, NULL, NULL);
	struct roce_mw *mw;
	struct roce_sge ss, rs;
	struct roce_send_wr wr;
	uint32_t rkey;

	CU_ASSERT_FATAL(e != NULL);
	mw = roce_alloc_mw(e->l->ep[1].pd, ROCE_MW_TYPE_2);
	CU_ASSERT_FATAL(mw != NULL);
	/* side 1 binds a window over its first page, for its own QP */
	rkey = (roce_mw_rkey(mw) & ~0xffu) | 0x42;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 50;
	wr.opcode = ROCE_WR_BIND_MW;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.mr = e->m[1].mr;
	wr.bind_mw.addr = (uint64_t)(uintptr_t)e->m[1].base;
	wr.bind_mw.length = 4096;
	wr.bind_mw.access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[1], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 0, 1));
	CU_ASSERT_EQUAL_FATAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_BIND_MW);
	/* side 0 sends with invalidate of that rkey */
	rs = sge(e, 1, 8192, 1024);
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 51, &rs, 1), 0);
	ss = sge(e, 0, 0, 700);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 52;
	wr.opcode = ROCE_WR_SEND_WITH_INV;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_RECV);
	CU_ASSERT_EQUAL(e->wc[1][0].byte_len, 700);
	CU_ASSERT(e->wc[1][0].wc_flags & ROCE_WC_WITH_INV);
	CU_ASSERT_EQUAL(e->wc[1][0].imm_data, rkey);
	/* the window is gone: a WRITE through it is a remote access error */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 53;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)e->m[1].base;
	wr.rdma.rkey = rkey;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_ACCESS_ERR);
	CU_ASSERT(mem_is(e->m[1].base, 4096, FILL_DST));
	/* the QPs are in ERR now: destroy them before the window */
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[0]), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[0] = e->qp[1] = NULL;
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
	env_destroy(e);
}

/*
 * ROCE_SEND_SOLICITED puts BTH SE on a message's last packet; the receive
 * completion reports it (IBTA 9.2.3, 11.4.2.2). SEND and WRITE with
 * immediate of three packets, with and without.
 */
static void
test_solicited(void)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_SEND, ROCE_WR_RDMA_WRITE_WITH_IMM,
	};
	struct env *e = env_create(143, NULL, NULL);
	struct roce_send_wr wr;
	struct roce_sge ss, rs;
	unsigned int i;
	bool se;

	CU_ASSERT_FATAL(e != NULL);
	for (i = 0; i < 2 * RTE_DIM(ops); i++) {
		se = i & 1;
		rs = sge(e, 1, 0, 4 * e->mtu);
		CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 90 + i, &rs, 1), 0);
		ss = sge(e, 0, 0, 2 * e->mtu + 1);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = ops[i / 2];
		wr.sg_list = &ss;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED |
			(se ? ROCE_SEND_SOLICITED : 0);
		wr.imm_data = rte_cpu_to_be_32(IMM);
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)e->m[1].base;
		wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
		CU_ASSERT_FATAL(env_wait(e, 1, 1));
		CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 90 + i);
		CU_ASSERT_EQUAL(e->wc[1][0].opcode, i < 2 ? ROCE_WC_RECV :
				ROCE_WC_RECV_RDMA_WITH_IMM);
		CU_ASSERT_EQUAL(e->wc[1][0].solicited, se ? 1 : 0);
	}
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Responder protocol checks with injected requests                    */
/* ------------------------------------------------------------------ */

/* Fields of a request from side 0's QP to side 1's at the expected PSN. */
static void
inject_fields(struct env *e, struct roce_hdr_fields *f, uint8_t opcode)
{
	*f = e->qp[0]->path;
	f->opcode = opcode;
	f->psn = e->qp[1]->resp.epsn;
	f->ackreq = true;
}

/*
 * A retried READ that arrives late (IBTA 9.7.5.1.5): the requester timed
 * out while the responses were on their way, got them, completed the READ
 * and issued the next one, which reaches the responder while the late
 * duplicate's replay still occupies the only resource (max_dest_rd_atomic
 * 1, the responder sending one frame a poll). The duplicate must replay
 * and the new READ must take over the resource of the completed one, not
 * be NAKed as an invalid request (the requester never exceeded its limit).
 * Then the same under random response loss with two resources, and a
 * requester really past the limit, which is still NAKed.
 */
static void
test_read_late_dup_resources_full(void)
{
	static const struct fake_link_impair one_frame = { .tx_accept_max = 1 };
	static const struct fake_link_impair lose_resp = {
		.loss_ppm = 100000,
		.dup_ppm = 100000,
		.reorder_ppm = 100000,
		.tx_accept_max = 1,
	};
	static const struct fake_link_impair dup_req = {
		.dup_ppm = 300000,
		.reorder_ppm = 200000,
	};
	const uint32_t size = 4 * 1024;	/* 4 response packets at MTU 1024 */
	struct fake_conn_opts o;
	struct roce_hdr_fields f;
	struct roce_send_wr wr;
	struct roce_sge dsg;
	struct env *e;
	uint32_t psn1, i;

	fake_conn_opts_default(&o);
	o.max_rd_atomic = 1;
	e = env_create(47, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	/* READ 1 completes normally; its resource stays for replay */
	psn1 = e->qp[1]->resp.epsn;
	do_read(e, size, ONE_SGE, 1);
	/* its retried request arrives now, late */
	inject_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
	f.psn = psn1;
	f.va = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF);
	f.rkey = roce_mr_rkey(e->m[1].mr);
	f.dma_len = size;
	fake_link_set_impair(e->l, 1, &one_frame);
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, NULL, 0), 0);
	/* READ 2, posted at once: it arrives during the replay */
	mem_fill_pattern(e->m[1].base + DST_OFF + size, size, 2);
	dsg = sge(e, 0, SRC_OFF + size, size);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_RDMA_READ;
	wr.sg_list = &dsg;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF +
						     size);
	wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 2);
	CU_ASSERT(memcmp(e->m[0].base + SRC_OFF + size,
			 e->m[1].base + DST_OFF + size, size) == 0);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_dup_requests") >= 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_invalid_req"), 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	env_destroy(e);

	/* random: 2 resources, 8 READs in flight, retries from lost responses */
	fake_conn_opts_default(&o);
	o.max_rd_atomic = 2;
	e = env_create(53, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	fake_link_set_impair(e->l, 0, &dup_req);
	fake_link_set_impair(e->l, 1, &lose_resp);
	for (i = 0; i < 64; i++) {
		dsg = sge(e, 0, SRC_OFF + (i % 8) * size, size);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 100 + i;
		wr.opcode = ROCE_WR_RDMA_READ;
		wr.sg_list = &dsg;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base +
							     DST_OFF);
		wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	}
	CU_ASSERT_FATAL(env_wait(e, 64, 0));
	for (i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(e->wc[0][i].status, ROCE_WC_SUCCESS);
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_dup_requests") > 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_invalid_req"), 0);
	env_destroy(e);

	/* a requester past max_dest_rd_atomic (1) is still NAKed (9.7.5.1.4) */
	fake_conn_opts_default(&o);
	o.max_rd_atomic = 1;
	e = env_create(59, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	for (i = 0; i < 2; i++) {
		inject_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
		f.psn = (e->qp[1]->resp.epsn + i * 4) & 0xffffff;
		f.va = (uint64_t)(uintptr_t)(e->m[1].base + DST_OFF);
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = size;
		CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, NULL, 0),
				      0);
	}
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rd_atomic_full"), 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_invalid_req"), 1);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	env_destroy(e);
}

/*
 * Deregister side @p side's region and register the same memory again: new
 * keys (the entry's index may be reused), the old ones gone.
 */
static void
mr_reregister(struct env *e, int side)
{
	uint32_t lkey = roce_mr_lkey(e->m[side].mr);
	uint32_t rkey = roce_mr_rkey(e->m[side].mr);
	struct roce_mr *mr;

	CU_ASSERT_EQUAL_FATAL(roce_dereg_mr(e->m[side].mr), 0);
	e->m[side].mr = NULL;
	mr = roce_reg_mr(e->l->ep[side].pd, e->m[side].base, REGION, MR_ALL);
	CU_ASSERT_FATAL(mr != NULL);
	CU_ASSERT_NOT_EQUAL(roce_mr_lkey(mr), lkey);
	CU_ASSERT_NOT_EQUAL(roce_mr_rkey(mr), rkey);
	e->m[side].mr = mr;
}

/*
 * The responder's R_Key cache (roce_key_check_remote_cached()): WRITEs to
 * the same key hit it; after the region is deregistered (and its index
 * reused by a new registration) a WRITE with the old key must fail with a
 * remote access error, as without the cache.
 */
static void
test_rkey_cache_invalidated(void)
{
	struct roce_send_wr wr;
	struct roce_sge s;
	struct env *e = env_create(61, NULL, NULL);
	uint32_t rkey, i;

	CU_ASSERT_FATAL(e != NULL);
	rkey = roce_mr_rkey(e->m[1].mr);
	for (i = 0; i < 3; i++) {
		s = sge(e, 0, SRC_OFF, 256);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base +
							     i * 4096);
		wr.rdma.rkey = rkey;
		if (i == 2)	/* the key goes, its index may be reused */
			mr_reregister(e, 1);
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
		CU_ASSERT_FATAL(env_wait(e, 1, 0));
		CU_ASSERT_EQUAL(e->wc[0][0].status, i < 2 ? ROCE_WC_SUCCESS :
				ROCE_WC_REM_ACCESS_ERR);
	}
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rem_access_err"), 1);
	env_destroy(e);
}

/*
 * The responder's receive L_Key cache (roce_key_check_local_cached() in
 * the SEND placement): a SEND fills it; once the receive region is
 * deregistered (its index reused by a new registration), a SEND into a
 * receive WQE posted before must fail the key check as without the cache:
 * Local Protection Error on the receive, Remote Operational Error at the
 * sender.
 */
static void
test_recv_lkey_cache_invalidated(void)
{
	struct roce_send_wr wr;
	struct roce_sge ss, rs[2];
	struct env *e = env_create(62, NULL, NULL);
	int i;

	CU_ASSERT_FATAL(e != NULL);
	for (i = 0; i < 2; i++) {
		rs[i] = sge(e, 1, (size_t)i * 4096, 512);
		CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 70 + i, &rs[i], 1), 0);
	}
	ss = sge(e, 0, SRC_OFF, 256);
	for (i = 0; i < 2; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = ROCE_WR_SEND;
		wr.sg_list = &ss;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		if (i == 1)
			mr_reregister(e, 1);
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
		CU_ASSERT_FATAL(env_wait(e, 1, 1));
		CU_ASSERT_EQUAL(e->wc[1][0].wr_id, (uint64_t)(70 + i));
		CU_ASSERT_EQUAL(e->wc[1][0].status, i == 0 ? ROCE_WC_SUCCESS :
				ROCE_WC_LOC_PROT_ERR);
		CU_ASSERT_EQUAL(e->wc[0][0].status, i == 0 ? ROCE_WC_SUCCESS :
				ROCE_WC_REM_OP_ERR);
	}
	env_destroy(e);
}

/*
 * The engines use the key reference roce_post_send() checked for sge[0]
 * while the key's entry is unchanged (roce_wqe_sge0_ref()). A local region
 * deregistered between the post and the use must fail as without it:
 * the WRITE's gather at the requester, the READ response's scatter and the
 * atomic's original value at the completer, each a Local Protection Error.
 */
static void
test_sge0_ref_deregistered(void)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_WRITE, ROCE_WR_RDMA_READ,
		ROCE_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct roce_send_wr wr;
	struct roce_sge s;
	struct env *e;
	unsigned int k;

	for (k = 0; k < RTE_DIM(ops); k++) {
		e = env_create(63 + k, NULL, NULL);
		CU_ASSERT_FATAL(e != NULL);
		s = sge(e, 0, 4096, ops[k] == ROCE_WR_RDMA_WRITE ||
			ops[k] == ROCE_WR_RDMA_READ ? 512 : 8);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.opcode = ops[k];
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		if (ops[k] == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
			wr.atomic.remote_addr =
				(uint64_t)(uintptr_t)atomic_word(e);
			wr.atomic.rkey = roce_mr_rkey(e->m[1].mr);
			wr.atomic.compare_add = 1;
		} else {
			wr.rdma.remote_addr =
				(uint64_t)(uintptr_t)e->m[1].base;
			wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
		}
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
		/* before the requester or the completer gets to it */
		CU_ASSERT_EQUAL_FATAL(roce_dereg_mr(e->m[0].mr), 0);
		e->m[0].mr = NULL;
		CU_ASSERT_FATAL(env_wait(e, 1, 0));
		CU_ASSERT_EQUAL(e->wc[0][0].wr_id, k);
		CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_LOC_PROT_ERR);
		env_destroy(e);
	}
}

/* Replace both QPs by ones created with lkey_at_exec and reconnect. */
static void
env_lkey_at_exec(struct env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(roce_destroy_qp(e->qp[i]), 0);
		e->qp[i] = qp_create(e, i, true);
		CU_ASSERT_FATAL(e->qp[i] != NULL);
	}
	CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1],
						&e->o), 0);
}

/* A signaled SEND of @p s, wr_id @p id. */
static void
send_wr(struct roce_send_wr *wr, const struct roce_sge *s, uint64_t id)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->opcode = ROCE_WR_SEND;
	wr->sg_list = s;
	wr->num_sge = 1;
	wr->send_flags = ROCE_SEND_SIGNALED;
}

/* By default an SGE failing the L_Key check is refused at post. */
static void
test_lkey_refused_at_post(void)
{
	struct env *e = env_create(140, NULL, NULL);
	struct roce_send_wr wr;
	struct roce_sge s;
	unsigned int posted;

	CU_ASSERT_FATAL(e != NULL);
	s = sge(e, 0, 0, 256);
	s.lkey ^= 1;	/* stale key byte */
	send_wr(&wr, &s, 1);
	posted = 1;
	CU_ASSERT_EQUAL(roce_post_send(e->qp[0], &wr, 1, &posted), -EFAULT);
	CU_ASSERT_EQUAL(posted, 0);
	s = sge(e, 1, 0, 256);
	s.lkey ^= 1;
	CU_ASSERT_EQUAL(post_recv_sgl(e, 1, 2, &s, 1), -EFAULT);
	/* nothing was posted: nothing completes, nothing fails */
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_poll_cq(e->cq[0], e->wc[0], 4), 0);
	CU_ASSERT_EQUAL(roce_poll_cq(e->cq[1], e->wc[1], 4), 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_RTS);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	env_destroy(e);
}

/*
 * lkey_at_exec: a send WR with a bad L_Key is posted and fails when the
 * requester gathers it, a Local Protection Error; the QP goes to ERR and
 * nothing reaches the peer.
 */
static void
test_lkey_at_exec_send(void)
{
	struct env *e = env_create(141, NULL, NULL);
	struct roce_send_wr wr;
	struct roce_sge s, rs;

	CU_ASSERT_FATAL(e != NULL);
	env_lkey_at_exec(e);
	rs = sge(e, 1, 0, 512);
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 80, &rs, 1), 0);
	s = sge(e, 0, 0, 256);
	s.lkey ^= 1;	/* stale key byte */
	send_wr(&wr, &s, 8);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 0));
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 8);
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_LOC_PROT_ERR);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(roce_poll_cq(e->cq[1], e->wc[1], 4), 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	env_destroy(e);
}

/*
 * lkey_at_exec on the receiver: a receive WR with a bad L_Key is posted;
 * the SEND that lands in it completes it with a Local Protection Error
 * and is NAKed with Remote Operational Error (IBTA 9.7.5.2.4), which the
 * sender completes with; both QPs go to ERR, no byte is written.
 */
static void
test_lkey_at_exec_recv(void)
{
	struct env *e = env_create(142, NULL, NULL);
	struct roce_send_wr wr;
	struct roce_sge s, rs;

	CU_ASSERT_FATAL(e != NULL);
	env_lkey_at_exec(e);
	rs = sge(e, 1, 0, 512);
	rs.lkey ^= 1;	/* stale key byte */
	CU_ASSERT_EQUAL_FATAL(post_recv_sgl(e, 1, 81, &rs, 1), 0);
	s = sge(e, 0, 0, 256);
	send_wr(&wr, &s, 9);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 81);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(e->wc[0][0].wr_id, 9);
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_OP_ERR);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(qp_state(e->qp[0]), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	env_destroy(e);
}

enum inject_case {
	IC_MISALIGNED_ATOMIC,	/* IBTA 9.4.5: invalid request */
	IC_MIDDLE_OUTSIDE_MSG,	/* IBTA 9.7.5: opcode sequence */
	IC_SHORT_FIRST,		/* FIRST must carry exactly one PMTU */
	IC_WRITE_LEN_MISMATCH,	/* WRITE ONLY payload != DMA length */
	IC_READ_NO_RIGHT_QP,	/* QP without remote read */
};

static void
inject_case(enum inject_case ic)
{
	struct fake_conn_opts o;
	struct roce_hdr_fields f;
	struct env *e;
	static uint8_t payload[4096];
	uint32_t len = 0;
	const char *cnt = "resp_invalid_req";

	fake_conn_opts_default(&o);
	if (ic == IC_READ_NO_RIGHT_QP)
		o.access &= ~ROCE_ACCESS_REMOTE_READ;
	e = env_create(100 + ic, &o, NULL);
	CU_ASSERT_FATAL(e != NULL);
	memset(payload, 0xab, sizeof(payload));
	switch (ic) {
	case IC_MISALIGNED_ATOMIC:
		inject_fields(e, &f, ROCE_OP_RC_FETCH_ADD);
		f.va = (uint64_t)(uintptr_t)atomic_word(e) + 4;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.swap_add = 1;
		break;
	case IC_MIDDLE_OUTSIDE_MSG:
		inject_fields(e, &f, ROCE_OP_RC_SEND_MIDDLE);
		len = e->mtu;
		break;
	case IC_SHORT_FIRST:
		inject_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_FIRST);
		f.va = (uint64_t)(uintptr_t)e->m[1].base;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = 3 * e->mtu;
		len = e->mtu - 4;
		break;
	case IC_WRITE_LEN_MISMATCH:
		inject_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
		f.va = (uint64_t)(uintptr_t)e->m[1].base;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = 100;
		len = 96;
		break;
	case IC_READ_NO_RIGHT_QP:
		inject_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
		f.va = (uint64_t)(uintptr_t)e->m[1].base;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = 64;
		cnt = "resp_rem_access_err";
		break;
	}
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload, len), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, cnt), 1);
	/* the responder NAKed and moved to ERR; nothing was written */
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(e->qp[1]->stats.naks_tx, 1);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	env_destroy(e);
}

static void
test_injected_protocol_errors(void)
{
	inject_case(IC_MISALIGNED_ATOMIC);
	inject_case(IC_MIDDLE_OUTSIDE_MSG);
	inject_case(IC_SHORT_FIRST);
	inject_case(IC_WRITE_LEN_MISMATCH);
	inject_case(IC_READ_NO_RIGHT_QP);
}

/* Out of sequence: one NAK, then silence until the expected PSN (9.7.5.1.2). */
static void
test_injected_out_of_sequence(void)
{
	struct env *e = env_create(110, NULL, NULL);
	struct roce_hdr_fields f;
	uint8_t payload[64];
	uint32_t epsn;
	int i;

	CU_ASSERT_FATAL(e != NULL);
	memset(payload, 0x11, sizeof(payload));
	epsn = e->qp[1]->resp.epsn;
	for (i = 1; i <= 5; i++) {
		inject_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
		f.psn = (epsn + (uint32_t)i) & 0xffffff;
		f.va = (uint64_t)(uintptr_t)e->m[1].base;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = sizeof(payload);
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
						 sizeof(payload)), 0);
	}
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_out_of_seq"), 5);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_psn_seq_naks"), 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_drop_out_of_seq"), 4);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	/* the connection still works */
	do_write(e, false, 5000, ONE_SGE, 7);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* SRQ, GSI hook, control requests across threads                      */
/* ------------------------------------------------------------------ */

static void
test_srq_under_loss(void)
{
	struct env *e = env_create(120, NULL, &lossy);
	struct roce_srq_attr sa = { .max_wr = 64, .max_sge = 2 };
	struct roce_qp_init_attr ia;
	struct roce_srq *srq;
	struct roce_sge ss, rs;
	struct roce_send_wr wr;
	struct roce_recv_wr rw;
	unsigned int posted, k;
	const uint32_t len = 2 * 1024 + 300, n = 24;
	bool seen[24] = { false };

	CU_ASSERT_FATAL(e != NULL);
	/* replace side 1's QP by one on an SRQ */
	CU_ASSERT_EQUAL_FATAL(roce_destroy_qp(e->qp[1]), 0);
	srq = roce_create_srq(e->l->ep[1].pd, e->l->ep[1].w, &sa);
	CU_ASSERT_FATAL(srq != NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = ia.recv_cq = e->cq[1];
	ia.srq = srq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_send_sge = 2;
	ia.sq_sig_all = true;
	e->qp[1] = roce_create_qp(e->l->ep[1].pd, &ia);
	CU_ASSERT_FATAL(e->qp[1] != NULL);
	CU_ASSERT_EQUAL_FATAL(roce_modify_qp(e->qp[0], &(struct roce_qp_attr){
		.qp_state = ROCE_QPS_RESET }, ROCE_QP_STATE), 0);
	CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1],
						&e->o), 0);
	for (k = 0; k < n; k++) {
		rs = sge(e, 1, (size_t)k * 4096, 4096);
		rw = (struct roce_recv_wr){ .wr_id = 500 + k, .sg_list = &rs,
					    .num_sge = 1 };
		CU_ASSERT_EQUAL_FATAL(roce_post_srq_recv(srq, &rw, 1, &posted), 0);
	}
	for (k = 0; k < n; k++) {
		mem_fill_pattern(e->m[0].base + (size_t)k * 4096, len, k);
		memcpy(e->m[0].base + (size_t)k * 4096, &k, sizeof(k));
		ss = sge(e, 0, (size_t)k * 4096, len);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.opcode = ROCE_WR_SEND;
		wr.sg_list = &ss;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	}
	CU_ASSERT_FATAL(env_wait(e, (int)n, (int)n));
	for (k = 0; k < n; k++) {
		const struct roce_wc *wc = &e->wc[1][k];
		uint32_t slot = (uint32_t)(wc->wr_id - 500), id;

		CU_ASSERT_EQUAL(e->wc[0][k].status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc->status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc->byte_len, len);
		/* SRQ WQEs are taken in order; message k in WQE k */
		CU_ASSERT_EQUAL(slot, k);
		memcpy(&id, e->m[1].base + (size_t)slot * 4096, sizeof(id));
		CU_ASSERT_FATAL(id < n);
		CU_ASSERT(!seen[id]);
		seen[id] = true;
		CU_ASSERT(memcmp(e->m[1].base + (size_t)slot * 4096,
				 e->m[0].base + (size_t)id * 4096, len) == 0);
	}
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[1] = NULL;
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	env_destroy(e);
}

/* Replace side 1's QP by an RC QP on @p srq and reconnect. */
static void
env_use_srq(struct env *e, struct roce_srq *srq)
{
	struct roce_qp_init_attr ia;

	CU_ASSERT_EQUAL_FATAL(roce_destroy_qp(e->qp[1]), 0);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = ia.recv_cq = e->cq[1];
	ia.srq = srq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_send_sge = 2;
	ia.sq_sig_all = true;
	e->qp[1] = roce_create_qp(e->l->ep[1].pd, &ia);
	CU_ASSERT_FATAL(e->qp[1] != NULL);
	CU_ASSERT_EQUAL_FATAL(roce_modify_qp(e->qp[0], &(struct roce_qp_attr){
		.qp_state = ROCE_QPS_RESET }, ROCE_QP_STATE), 0);
	CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1],
						&e->o), 0);
}

static int
count_events(struct roce_device *dev, enum roce_event_type type,
	     const void *element)
{
	struct roce_async_event ev;
	int n = 0;

	while (roce_get_async_event(dev, &ev) == 1)
		if (ev.event_type == type && ev.element.qp == element)
			n++;
	return n;
}

static int
send_error_exec(void *arg)
{
	/* the requester's retry exhaustion, as roce_comp.c reports it */
	roce_qp_error(arg, ROCE_ERR_RETRY_EXC);
	return 0;
}

/*
 * A WQE taken from the SRQ by a SEND FIRST is held by the responder only;
 * an error outside the responder (retry exhaustion) must flush it
 * (IBTA 10.3.1), leaving the SRQ's other WQEs for other QPs.
 */
static void
test_srq_held_wqe_flushed(void)
{
	struct env *e = env_create(121, NULL, NULL);
	struct roce_srq_attr sa = { .max_wr = 8, .max_sge = 1 };
	struct roce_hdr_fields f;
	struct roce_srq *srq;
	struct roce_sge rs;
	struct roce_recv_wr rw;
	static uint8_t payload[4096];
	unsigned int posted, k;

	CU_ASSERT_FATAL(e != NULL);
	srq = roce_create_srq(e->l->ep[1].pd, e->l->ep[1].w, &sa);
	CU_ASSERT_FATAL(srq != NULL);
	env_use_srq(e, srq);
	for (k = 0; k < 2; k++) {
		rs = sge(e, 1, (size_t)k * 8192, 8192);
		rw = (struct roce_recv_wr){ .wr_id = 600 + k, .sg_list = &rs,
					    .num_sge = 1 };
		CU_ASSERT_EQUAL_FATAL(roce_post_srq_recv(srq, &rw, 1, &posted), 0);
	}
	memset(payload, 0x5a, sizeof(payload));
	inject_fields(e, &f, ROCE_OP_RC_SEND_FIRST);
	f.dqpn = e->qp[1]->qpn;
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload, e->mtu), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_PTR_NOT_NULL(e->qp[1]->resp.rwqe);
	CU_ASSERT(e->qp[1]->resp.rwqe_from_srq);
	CU_ASSERT_EQUAL(srq->rq.prod - srq->rq.cons, 1);
	count_events(e->l->ep[1].dev, ROCE_EVENT_QP_LAST_WQE_REACHED, NULL);

	CU_ASSERT_EQUAL(roce_worker_exec(e->l->ep[1].w, send_error_exec,
					 e->qp[1]), 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT_FATAL(env_wait(e, 0, 1));
	CU_ASSERT_EQUAL(e->got[1], 1);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 600);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_RECV);
	CU_ASSERT_EQUAL(e->wc[1][0].qp_num, e->qp[1]->qpn);
	CU_ASSERT_PTR_NULL(e->qp[1]->resp.rwqe);
	CU_ASSERT_FALSE(e->qp[1]->resp.in_message);
	/* the other WQE stays on the SRQ; flushing again adds nothing */
	CU_ASSERT_EQUAL(srq->rq.prod - srq->rq.cons, 1);
	CU_ASSERT_EQUAL(count_events(e->l->ep[1].dev,
				     ROCE_EVENT_QP_LAST_WQE_REACHED, e->qp[1]), 1);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_poll_cq(e->cq[1], e->wc[1], 4), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[1] = NULL;
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	env_destroy(e);
}

/*
 * SRQ catastrophic error (IBTA 11.6.3): the QP needing a WQE from it NAKs
 * (remote operational error) and goes to ERR; SRQ_ERR is raised once.
 */
static void
test_srq_error_qp(void)
{
	struct env *e = env_create(122, NULL, NULL);
	struct roce_srq_attr sa = { .max_wr = 8, .max_sge = 1 };
	struct roce_hdr_fields f;
	struct roce_recv_wqe *wqe;
	struct roce_srq *srq;
	struct roce_sge rs;
	struct roce_recv_wr rw;
	static uint8_t payload[64];
	unsigned int posted;

	CU_ASSERT_FATAL(e != NULL);
	srq = roce_create_srq(e->l->ep[1].pd, e->l->ep[1].w, &sa);
	CU_ASSERT_FATAL(srq != NULL);
	env_use_srq(e, srq);
	rs = sge(e, 1, 0, 4096);
	rw = (struct roce_recv_wr){ .wr_id = 700, .sg_list = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL_FATAL(roce_post_srq_recv(srq, &rw, 1, &posted), 0);
	/* its head WQE is overwritten (a poster broke the contract) */
	wqe = roce_wq_slot(&srq->rq, srq->rq.cons);
	wqe->num_sge = 7;
	count_events(e->l->ep[1].dev, ROCE_EVENT_SRQ_ERR, NULL);
	inject_fields(e, &f, ROCE_OP_RC_SEND_ONLY);
	f.dqpn = e->qp[1]->qpn;
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload,
					       sizeof(payload)), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(srq->error);
	CU_ASSERT_EQUAL(count_events(e->l->ep[1].dev, ROCE_EVENT_SRQ_ERR, srq), 1);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(e->qp[1]->stats.naks_tx, 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rem_op_err"), 1);
	CU_ASSERT_EQUAL(roce_post_srq_recv(srq, &rw, 1, &posted), -EINVAL);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[1] = NULL;
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	env_destroy(e);
}

/*
 * An SRQ created with lkey_at_exec takes a receive WR with a bad L_Key;
 * the SEND that lands in it fails as on a QP's own receive queue.
 */
static void
test_srq_lkey_at_exec(void)
{
	struct env *e = env_create(144, NULL, NULL);
	struct roce_srq_attr sa = { .max_wr = 8, .max_sge = 1,
				    .lkey_at_exec = true };
	struct roce_send_wr wr;
	struct roce_recv_wr rw;
	struct roce_srq *srq;
	struct roce_sge s, rs;
	unsigned int posted;

	CU_ASSERT_FATAL(e != NULL);
	srq = roce_create_srq(e->l->ep[1].pd, e->l->ep[1].w, &sa);
	CU_ASSERT_FATAL(srq != NULL);
	env_use_srq(e, srq);
	rs = sge(e, 1, 0, 512);
	rs.lkey ^= 1;	/* stale key byte */
	rw = (struct roce_recv_wr){ .wr_id = 82, .sg_list = &rs, .num_sge = 1 };
	CU_ASSERT_EQUAL_FATAL(roce_post_srq_recv(srq, &rw, 1, &posted), 0);
	s = sge(e, 0, 0, 256);
	send_wr(&wr, &s, 10);
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[0], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 82);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_REM_OP_ERR);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[1] = NULL;
	CU_ASSERT_EQUAL(roce_destroy_srq(srq), 0);
	env_destroy(e);
}

/*
 * P_Key (IBTA 9.6.1.1, 10.9.3) and source address (connected QPs) checks
 * at RX dispatch: drops are counted and touch nothing.
 */
static void
test_injected_bad_pkey_src(void)
{
	static const uint16_t bad_pkeys[] = { 0x1234, 0x0000, 0x8000, 0x7ffe };
	struct env *e = env_create(111, NULL, NULL);
	struct roce_hdr_fields f;
	uint8_t payload[64];
	uint64_t drops0;
	unsigned int i;

	CU_ASSERT_FATAL(e != NULL);
	memset(payload, 0x22, sizeof(payload));
	drops0 = e->qp[1]->stats.rx_drops;
	for (i = 0; i <= RTE_DIM(bad_pkeys); i++) {
		inject_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
		f.va = (uint64_t)(uintptr_t)e->m[1].base;
		f.rkey = roce_mr_rkey(e->m[1].mr);
		f.dma_len = sizeof(payload);
		if (i < RTE_DIM(bad_pkeys)) {
			f.pkey = bad_pkeys[i];
		} else {
			/* right P_Key, another sender */
			f.sgid[15] ^= 1;
		}
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
						 sizeof(payload)), 0);
	}
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_pkey"),
			RTE_DIM(bad_pkeys));
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_src"), 1);
	CU_ASSERT_EQUAL(e->qp[1]->stats.rx_drops - drops0,
			RTE_DIM(bad_pkeys) + 1);
	CU_ASSERT(mem_is(e->m[1].base, REGION, FILL_DST));
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	/* a limited member key matches the QP's full member key */
	inject_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.va = (uint64_t)(uintptr_t)e->m[1].base;
	f.rkey = roce_mr_rkey(e->m[1].mr);
	f.dma_len = sizeof(payload);
	f.pkey = 0x7fff;
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
					 sizeof(payload)), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(mem_is(e->m[1].base, sizeof(payload), 0x22));
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_pkey"),
			RTE_DIM(bad_pkeys));
	CU_ASSERT_EQUAL(e->qp[1]->resp.epsn, (f.psn + 1) & 0xffffff);
	env_destroy(e);
}

/* Bind a type 2 window over side 1's first page to side 1's QP. */
static uint32_t
bind_mw(struct env *e, struct roce_mw *mw, uint8_t key, uint64_t id)
{
	struct roce_send_wr wr;
	uint32_t rkey = (roce_mw_rkey(mw) & ~0xffu) | key;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = ROCE_WR_BIND_MW;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.mr = e->m[1].mr;
	wr.bind_mw.addr = (uint64_t)(uintptr_t)e->m[1].base;
	wr.bind_mw.length = 4096;
	wr.bind_mw.access = ROCE_ACCESS_REMOTE_WRITE;
	CU_ASSERT_EQUAL_FATAL(post_send1(e->qp[1], &wr), 0);
	CU_ASSERT_FATAL(env_wait(e, 0, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	return rkey;
}

/*
 * Type 2 windows die with their QP (IBTA 10.6.7.2): after destroy, a QP
 * given the same QPN in the same PD cannot use them.
 */
static void
test_mw_invalid_after_qp_destroy(void)
{
	struct env *e = env_create(93, NULL, NULL);
	struct roce_device *dev;
	struct roce_mw *mw[3];
	uint32_t rkey[3], qpn;
	int i;

	CU_ASSERT_FATAL(e != NULL);
	dev = e->l->ep[1].dev;
	for (i = 0; i < 3; i++) {
		mw[i] = roce_alloc_mw(e->l->ep[1].pd, ROCE_MW_TYPE_2);
		CU_ASSERT_FATAL(mw[i] != NULL);
		rkey[i] = bind_mw(e, mw[i], (uint8_t)(0x10 + i), 60 + i);
	}
	CU_ASSERT_EQUAL(e->qp[1]->mw_bound, 3);
	qpn = e->qp[1]->qpn;
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(roce_key_check_remote(dev, e->l->ep[1].pd, qpn,
			rkey[i], (uint64_t)(uintptr_t)e->m[1].base, 64,
			ROCE_ACCESS_REMOTE_WRITE, NULL), ROCE_OK);
	/* deallocation of a bound window, and an invalidation, count down */
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw[2]), 0);
	CU_ASSERT_EQUAL(e->qp[1]->mw_bound, 2);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, e->l->ep[1].pd, rkey[1]),
			ROCE_OK);
	CU_ASSERT_EQUAL(e->qp[1]->mw_bound, 1);
	CU_ASSERT_EQUAL(e->m[1].mr->mw_bound, 1);

	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[1]), 0);
	e->qp[1] = NULL;
	/* the window bound to the destroyed QPN grants nothing any more */
	CU_ASSERT_NOT_EQUAL(roce_key_check_remote(dev, e->l->ep[1].pd, qpn,
		rkey[0], (uint64_t)(uintptr_t)e->m[1].base, 64,
		ROCE_ACCESS_REMOTE_WRITE, NULL), ROCE_OK);
	CU_ASSERT_EQUAL(e->m[1].mr->mw_bound, 0);
	/* it is free again: invalidating it now fails */
	CU_ASSERT_NOT_EQUAL(roce_key_invalidate(dev, e->l->ep[1].pd, rkey[0]),
			    ROCE_OK);
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw[0]), 0);
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw[1]), 0);
	env_destroy(e);
}

struct gsi_seen {
	int n;
	uint32_t qkey;
};

static void
gsi_cb(void *ctx, struct rte_mbuf *m, const struct roce_pkt *pkt, uint64_t now)
{
	struct gsi_seen *g = ctx;

	RTE_SET_USED(now);
	g->n++;
	g->qkey = roce_deth_qkey(roce_pkt_deth(pkt));
	rte_pktmbuf_free(m);
}

static void
test_gsi_hook(void)
{
	struct env *e = env_create(121, NULL, NULL);
	struct roce_hdr_fields f;
	struct gsi_seen g = { 0 };
	uint8_t mad[256];

	CU_ASSERT_FATAL(e != NULL);
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = 0x07;	/* CM class */
	f = e->qp[0]->path;
	f.opcode = ROCE_OP_UD_SEND_ONLY;
	f.dqpn = 1;
	f.qkey = 0x80010000u;
	f.src_qpn = 1;
	/* no handler: counted and freed */
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, mad, sizeof(mad)), 0);
	fake_link_settle(e->l, 1000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_gsi_no_handler"), 1);
	/* with a handler: it gets the MAD */
	roce_worker_set_gsi_handler(e->l->ep[1].w, gsi_cb, &g);
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, mad, sizeof(mad)), 0);
	fake_link_settle(e->l, 1000);
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_EQUAL(g.qkey, 0x80010000u);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_gsi"), 1);
	roce_worker_set_gsi_handler(e->l->ep[1].w, NULL, NULL);
	env_destroy(e);
}

struct poller {
	struct roce_worker *w;
	volatile int stop;
	int tid;
};

static void *
poller_main(void *arg)
{
	struct poller *p = arg;
	uint64_t t = 1;

	p->tid = rte_gettid();
	while (!p->stop)
		roce_worker_poll(p->w, t++);
	roce_worker_unbind(p->w);
	return NULL;
}

struct exec_arg {
	int tid;
	int calls;
};

static int
exec_fn(void *arg)
{
	struct exec_arg *a = arg;

	a->tid = rte_gettid();
	a->calls++;
	return 42;
}

/* roce_worker_exec(): inline when nobody polls, else on the polling thread. */
static void
test_worker_exec_threads(void)
{
	struct fake_link *l = fake_link_create(122, false);
	struct poller p = { 0 };
	struct exec_arg a = { 0 };
	pthread_t th;
	int i;

	CU_ASSERT_FATAL(l != NULL);
	p.w = l->ep[0].w;
	/* nobody polled yet: inline */
	CU_ASSERT_EQUAL(roce_worker_exec(p.w, exec_fn, &a), 42);
	CU_ASSERT_EQUAL(a.tid, rte_gettid());
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, poller_main, &p), 0);
	while (__atomic_load_n(&p.w->poll_tid, __ATOMIC_ACQUIRE) == 0 ||
	       __atomic_load_n(&p.w->poll_tid, __ATOMIC_ACQUIRE) ==
	       rte_gettid())
		rte_pause();
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(roce_worker_exec(p.w, exec_fn, &a), 42);
	CU_ASSERT_EQUAL(a.calls, 101);
	CU_ASSERT_EQUAL(a.tid, p.tid);
	CU_ASSERT_NOT_EQUAL(a.tid, rte_gettid());
	CU_ASSERT(fake_link_counter(p.w, "ctl_reqs") == 100);
	p.stop = 1;
	pthread_join(th, NULL);
	/* unbound: inline again */
	CU_ASSERT_EQUAL(roce_worker_exec(p.w, exec_fn, &a), 42);
	CU_ASSERT_EQUAL(a.tid, rte_gettid());
	fake_link_destroy(l);
}

static CU_TestInfo rc_tests[] = {
	{ "RC on an SRQ under loss", test_srq_under_loss },
	{ "QP1 MADs go to the GSI handler", test_gsi_hook },
	{ "worker exec across threads", test_worker_exec_threads },
	{ "injected protocol errors: NAK and ERR", test_injected_protocol_errors },
	{ "injected out-of-sequence: one NAK", test_injected_out_of_sequence },
	{ "every op and size, clean link", test_matrix_clean },
	{ "every op and size, 5% loss + reorder + dup", test_matrix_lossy },
	{ "MTU 256 and 4096", test_mtus },
	{ "atomics executed exactly once under duplication", test_atomic_exactly_once },
	{ "duplicate READ replayed from the resource", test_read_replay },
	{ "late duplicate READ, resources full: replay, no NAK",
	  test_read_late_dup_resources_full },
	{ "R_Key cache: a deregistered key fails", test_rkey_cache_invalidated },
	{ "receive L_Key cache: a deregistered key fails",
	  test_recv_lkey_cache_invalidated },
	{ "sge[0] checked at post: a deregistered region fails",
	  test_sge0_ref_deregistered },
	{ "bad L_Key refused at post by default", test_lkey_refused_at_post },
	{ "lkey_at_exec: bad send L_Key fails at execution",
	  test_lkey_at_exec_send },
	{ "lkey_at_exec: bad receive L_Key fails the SEND landing in it",
	  test_lkey_at_exec_recv },
	{ "remote access errors", test_access_errors },
	{ "misaligned atomic: invalid request", test_atomic_misaligned },
	{ "receive buffer too small", test_recv_too_small },
	{ "RNR retries exhausted", test_rnr_exhausted },
	{ "RNR then receive posted: recovers", test_rnr_recovers },
	{ "transport retries exhausted (peer gone)", test_retry_exhausted },
	{ "PSN wrap at 2^24", test_psn_wrap },
	{ "ICRC catches corruption", test_icrc_corruption },
	{ "TX back-pressure keeps refused frames", test_tx_backpressure },
	{ "SEND with invalidate", test_send_with_invalidate },
	{ "solicited event bit on receive completions", test_solicited },
	{ "SRQ WQE held mid-message flushed on send error", test_srq_held_wqe_flushed },
	{ "SRQ error: QP to ERR, event once", test_srq_error_qp },
	{ "SRQ lkey_at_exec: bad receive L_Key fails the SEND",
	  test_srq_lkey_at_exec },
	{ "bad P_Key and source dropped", test_injected_bad_pkey_src },
	{ "type 2 windows invalid after QP destroy", test_mw_invalid_after_qp_destroy },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "rc", NULL, NULL, NULL, NULL, rc_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
