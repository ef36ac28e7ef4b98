/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hostile input against an RC/UC/UD responder over the fake link (issue 9),
 * what test_rc.c, test_uc_ud.c and test_parse.c do not already cover:
 * - remote access checks with injected requests: out of bounds at both
 *   ends, a key never handed out, a stale key (deregistered before, and
 *   deregistered in the middle of a WRITE), another PD, each missing right,
 *   misaligned atomics, READ/WRITE address + length wrapping 64-bit
 *   arithmetic, a READ longer than 2^31: each NAKed with the syndrome of
 *   IBTA 9.7.5.2 (on the wire, captured), counted, the QP in ERR, and the
 *   region, its canaries and its guard pages (guard_mem.h) untouched;
 *   a zero-length WRITE with a bogus key is ACKed and writes nothing;
 * - spoofing: unknown destination QP, the wrong transport for the QP, UD
 *   Q_Key violations, each dropped and counted;
 * - malformed frames through the worker: a valid request truncated at every
 *   offset (lengths claiming the whole frame, and lengths fixed up), bad
 *   TVer, every unsupported opcode, bad pad, bad ICRC, bad IP/UDP lengths,
 *   opcode sequence errors: never a crash, each frame counted once under
 *   its reason, nothing written, the connection still usable.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "fake_link.h"
#include "guard_mem.h"
#include "roce_build.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_verbs.h"
#include "roce_worker.h"
#include "test_common.h"
#include "wire_util.h"

#define REGION (64 * 1024)
#define FILL 0xee
#define MAX_SYN 64

#define MR_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];		/**< RC pair */
	struct roce_qp *uc, *ud;	/**< on side 1 */
	struct guard_mem mem;		/**< side 1's target region */
	struct roce_mr *mr;		/**< over mem, all rights */
	uint32_t mtu;
	/* AETH syndromes of the frames side 1 sent */
	uint8_t syn[MAX_SYN];
	unsigned int nsyn;
};

static void
capture(void *ctx, int from, const struct rte_mbuf *m)
{
	struct env *e = ctx;
	struct roce_pkt pkt;
	const struct roce_aeth *aeth;

	if (from != 1 || roce_parse(m, &pkt) != 0)
		return;
	aeth = roce_pkt_aeth(&pkt);
	if (aeth != NULL && e->nsyn < MAX_SYN)
		e->syn[e->nsyn++] = roce_aeth_syndrome(aeth);
}

static enum roce_qp_state
qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	CU_ASSERT_EQUAL(roce_query_qp(qp, &a, &ia), 0);
	return a.qp_state;
}

static struct roce_qp *
qp_new(struct env *e, int side, enum roce_qp_type t)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = t;
	ia.send_cq = e->cq[side];
	ia.recv_cq = e->cq[side];
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(e->l->ep[side].pd, &ia);
}

static struct env *
env_create(uint64_t seed)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fake_conn_opts o;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	e->l = fake_link_create(seed, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->l);
	fake_link_set_capture(e->l, capture, e);
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->cq[i]);
		e->qp[i] = qp_new(e, i, ROCE_QPT_RC);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e->qp[i]);
	}
	e->uc = qp_new(e, 1, ROCE_QPT_UC);
	e->ud = qp_new(e, 1, ROCE_QPT_UD);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->uc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->ud);
	fake_conn_opts_default(&o);
	e->mtu = roce_mtu_bytes(o.mtu);
	CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1], &o),
			      0);
	CU_ASSERT_EQUAL_FATAL(fake_link_ud_ready(e->l, 1, e->ud, 0x1234, 1),
			      0);
	CU_ASSERT_EQUAL_FATAL(guard_mem_alloc(&e->mem, REGION, 4096, FILL), 0);
	e->mr = roce_reg_mr(e->l->ep[1].pd, e->mem.base, REGION, MR_ALL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->mr);
	return e;
}

static void
env_destroy(struct env *e)
{
	struct roce_wc wc[64];
	int i;

	fake_link_settle(e->l, 100000);
	for (i = 0; i < 2; i++)
		while (roce_poll_cq(e->cq[i], wc, 64) > 0)
			;
	CU_ASSERT_EQUAL(roce_destroy_qp(e->ud), 0);
	CU_ASSERT_EQUAL(roce_destroy_qp(e->uc), 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i]), 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[i]), 0);
	if (e->mr != NULL)
		CU_ASSERT_EQUAL(roce_dereg_mr(e->mr), 0);
	CU_ASSERT(guard_mem_ok(&e->mem));
	guard_mem_free(&e->mem);
	fake_link_destroy(e->l);
	free(e);
}

/* A request from side 0's QP to side 1's at the PSN side 1 expects. */
static void
req_fields(struct env *e, struct roce_hdr_fields *f, uint8_t opcode)
{
	*f = e->qp[0]->path;
	f->opcode = opcode;
	f->psn = e->qp[1]->resp.epsn;
	f->ackreq = true;
}

/* ------------------------------------------------------------------ */
/* Remote access checks                                               */
/* ------------------------------------------------------------------ */

enum key_kind {
	KEY_GOOD,		/* the region's own key */
	KEY_NEVER,		/* an index never handed out */
	KEY_STALE,		/* a region registered, then deregistered */
	KEY_OTHER_PD,		/* the same memory registered in another PD */
	KEY_NO_WRITE,		/* registered without remote write */
	KEY_NO_READ,
	KEY_NO_ATOMIC,
};

enum va_kind {
	VA_BASE,		/* the first byte */
	VA_PAST_END,		/* straddles the end */
	VA_BEFORE,		/* starts 8 bytes before */
	VA_WRAP,		/* va + len wraps past 2^64 */
	VA_MISALIGNED,		/* base + 4 */
};

struct access_case {
	const char *name;
	uint8_t opcode;
	enum key_kind key;
	enum va_kind va;
	uint32_t dma_len;	/* RETH length (RDMA) */
	uint8_t nak;		/* enum roce_nak_code */
	const char *cnt;
};

static const struct access_case access_cases[] = {
	{ "write past end", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_GOOD,
	  VA_PAST_END, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write before start", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_GOOD,
	  VA_BEFORE, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write first past end", ROCE_OP_RC_RDMA_WRITE_FIRST, KEY_GOOD,
	  VA_PAST_END, 3 * 1024, ROCE_NAK_REM_ACCESS_ERR,
	  "resp_rem_access_err" },
	{ "read past end", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_GOOD,
	  VA_PAST_END, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read longer than region", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_GOOD,
	  VA_BASE, REGION + 1, ROCE_NAK_REM_ACCESS_ERR,
	  "resp_rem_access_err" },
	{ "atomic past end", ROCE_OP_RC_FETCH_ADD, KEY_GOOD, VA_PAST_END, 0,
	  ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write va+len wraps", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_GOOD, VA_WRAP,
	  64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read va+len wraps", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_GOOD, VA_WRAP,
	  0x10000, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "atomic at 2^64-8", ROCE_OP_RC_COMPARE_SWAP, KEY_GOOD, VA_WRAP, 0,
	  ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read of 2^32-1 bytes", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_GOOD,
	  VA_BASE, UINT32_MAX, ROCE_NAK_INVALID_REQ, "resp_invalid_req" },
	{ "write key never issued", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_NEVER,
	  VA_BASE, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read stale key", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_STALE, VA_BASE,
	  64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write stale key", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_STALE, VA_BASE,
	  64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "atomic stale key", ROCE_OP_RC_FETCH_ADD, KEY_STALE, VA_BASE, 0,
	  ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write other PD", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_OTHER_PD, VA_BASE,
	  64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read other PD", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_OTHER_PD, VA_BASE,
	  64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "write without right", ROCE_OP_RC_RDMA_WRITE_ONLY, KEY_NO_WRITE,
	  VA_BASE, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "read without right", ROCE_OP_RC_RDMA_READ_REQUEST, KEY_NO_READ,
	  VA_BASE, 64, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "cmp_swap without right", ROCE_OP_RC_COMPARE_SWAP, KEY_NO_ATOMIC,
	  VA_BASE, 0, ROCE_NAK_REM_ACCESS_ERR, "resp_rem_access_err" },
	{ "fetch_add misaligned", ROCE_OP_RC_FETCH_ADD, KEY_GOOD,
	  VA_MISALIGNED, 0, ROCE_NAK_INVALID_REQ, "resp_invalid_req" },
	{ "cmp_swap misaligned", ROCE_OP_RC_COMPARE_SWAP, KEY_GOOD, VA_MISALIGNED,
	  0, ROCE_NAK_INVALID_REQ, "resp_invalid_req" },
};

static uint32_t
case_key(struct env *e, enum key_kind k, struct roce_pd **pd2,
	 struct roce_mr **mr2)
{
	static const int rights[] = {
		[KEY_NO_WRITE] = MR_ALL & ~ROCE_ACCESS_REMOTE_WRITE,
		[KEY_NO_READ] = MR_ALL & ~ROCE_ACCESS_REMOTE_READ,
		[KEY_NO_ATOMIC] = MR_ALL & ~ROCE_ACCESS_REMOTE_ATOMIC,
	};
	struct roce_mr *tmp;
	uint32_t key;

	switch (k) {
	case KEY_GOOD:
		return roce_mr_rkey(e->mr);
	case KEY_NEVER:
		/* the next index up, never registered in this device */
		return roce_mr_rkey(e->mr) + 0x1000;
	case KEY_STALE:
		tmp = roce_reg_mr(e->l->ep[1].pd, e->mem.base, REGION, MR_ALL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
		key = roce_mr_rkey(tmp);
		CU_ASSERT_EQUAL(roce_dereg_mr(tmp), 0);
		return key;
	case KEY_OTHER_PD:
		*pd2 = roce_alloc_pd(e->l->ep[1].dev);
		CU_ASSERT_PTR_NOT_NULL_FATAL(*pd2);
		*mr2 = roce_reg_mr(*pd2, e->mem.base, REGION, MR_ALL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(*mr2);
		return roce_mr_rkey(*mr2);
	default:
		*mr2 = roce_reg_mr(e->l->ep[1].pd, e->mem.base, REGION,
				   rights[k]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(*mr2);
		return roce_mr_rkey(*mr2);
	}
}

static bool
syn_seen(const struct env *e, uint8_t syn)
{
	unsigned int i;

	for (i = 0; i < e->nsyn; i++)
		if (e->syn[i] == syn)
			return true;
	return false;
}

static void
run_access_case(const struct access_case *ac, uint64_t seed)
{
	static uint8_t payload[4096];
	struct env *e = env_create(seed);
	struct roce_pd *pd2 = NULL;
	struct roce_mr *mr2 = NULL;
	struct roce_hdr_fields f;
	const struct roce_opcode_info *op = roce_opcode_info(ac->opcode);
	uint64_t base = (uint64_t)(uintptr_t)e->mem.base;
	uint32_t plen = 0, len = ac->dma_len;
	uint64_t before;

	memset(payload, 0x5a, sizeof(payload));
	req_fields(e, &f, ac->opcode);
	f.rkey = case_key(e, ac->key, &pd2, &mr2);
	if (op->flags & ROCE_OPF_ATOMIC)
		len = 8;
	switch (ac->va) {
	case VA_BASE:
		f.va = base;
		break;
	case VA_PAST_END:
		/* half in, half out; an atomic just past the end */
		f.va = (op->flags & ROCE_OPF_ATOMIC) ? base + REGION :
		       base + REGION - len / 2;
		break;
	case VA_BEFORE:
		f.va = base - 8;
		break;
	case VA_WRAP:
		/* the region's key, an address whose end wraps to near 0 */
		f.va = UINT64_MAX - 7;
		break;
	case VA_MISALIGNED:
		f.va = base + 4;
		break;
	}
	f.dma_len = len;
	f.swap_add = 1;
	f.compare = 0;
	if (op->flags & ROCE_OPF_WRITE)
		plen = (op->flags & ROCE_OPF_LAST) ? len : e->mtu;
	before = fake_link_counter(e->l->ep[1].w, ac->cnt);
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload, plen), 0);
	fake_link_settle(e->l, 100000);
	if (!syn_seen(e, roce_syndrome(ROCE_AETH_NAK, ac->nak)))
		fprintf(stderr, "\n  case \"%s\": no NAK %u seen\n", ac->name,
			ac->nak);
	CU_ASSERT(syn_seen(e, roce_syndrome(ROCE_AETH_NAK, ac->nak)));
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, ac->cnt), before + 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_read_resp_pkts"), 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_atomic_acks"), 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	CU_ASSERT(guard_mem_ok(&e->mem));
	if (mr2 != NULL)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr2), 0);
	if (pd2 != NULL)
		CU_ASSERT_EQUAL(roce_dealloc_pd(pd2), 0);
	env_destroy(e);
}

static void
test_remote_access(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(access_cases); i++)
		run_access_case(&access_cases[i], 1000 + i);
}

/* The region deregistered between the FIRST and the LAST of a WRITE. */
static void
test_stale_key_mid_message(void)
{
	static uint8_t payload[1024];
	struct env *e = env_create(21);
	struct roce_hdr_fields f;

	memset(payload, 0x77, sizeof(payload));
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_FIRST);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = 2 * e->mtu;
	f.ackreq = false;
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload, e->mtu),
			      0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(guard_mem_is(e->mem.base, e->mtu, 0x77));
	CU_ASSERT_EQUAL(roce_dereg_mr(e->mr), 0);
	e->mr = NULL;
	memset(e->mem.base, FILL, e->mtu);
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_LAST);
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, payload, e->mtu),
			      0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(syn_seen(e, roce_syndrome(ROCE_AETH_NAK,
					    ROCE_NAK_REM_ACCESS_ERR)));
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rem_access_err"), 1);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	CU_ASSERT(guard_mem_ok(&e->mem));
	env_destroy(e);
}

/* Zero-length RDMA checks no key (IBTA C9-88): ACKed, nothing written. */
static void
test_zero_length_bogus_key(void)
{
	struct env *e = env_create(22);
	struct roce_hdr_fields f;
	uint8_t none = 0;

	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.va = UINT64_MAX - 3;
	f.rkey = 0xdeadbeef;
	f.dma_len = 0;
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, &none, 0), 0);
	req_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
	f.psn = (f.psn + 1) & 0xffffff;
	f.va = 8;
	f.rkey = 0x1;
	f.dma_len = 0;
	CU_ASSERT_EQUAL_FATAL(fake_link_inject(e->l, 1, &f, &none, 0), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rem_access_err"), 0);
	CU_ASSERT(!syn_seen(e, roce_syndrome(ROCE_AETH_NAK,
					     ROCE_NAK_REM_ACCESS_ERR)));
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	CU_ASSERT(guard_mem_ok(&e->mem));
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Spoofing                                                           */
/* ------------------------------------------------------------------ */

static void
test_spoofed_qpn_transport(void)
{
	static uint8_t payload[64];
	struct env *e = env_create(30);
	struct roce_hdr_fields f;
	uint32_t unknown = 0x123456;
	uint64_t drops0 = e->qp[1]->stats.rx_drops;

	/* an RC WRITE to a QP number that does not exist */
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.dqpn = unknown;
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = sizeof(payload);
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
					 sizeof(payload)), 0);
	/* RC opcodes to the UC and the UD QP */
	f.dqpn = roce_qp_num(e->uc);
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
					 sizeof(payload)), 0);
	f.dqpn = roce_qp_num(e->ud);
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
					 sizeof(payload)), 0);
	/* a UC WRITE to the RC QP */
	req_fields(e, &f, ROCE_OP_UC_RDMA_WRITE_ONLY);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = sizeof(payload);
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
					 sizeof(payload)), 0);
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_unknown_qpn"), 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_transport"), 3);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_accepted"), 0);
	/* each QP counts the frame of the wrong transport sent to it */
	CU_ASSERT_EQUAL(e->qp[1]->stats.rx_drops - drops0, 1);
	CU_ASSERT_EQUAL(e->uc->stats.rx_drops, 1);
	CU_ASSERT_EQUAL(e->ud->stats.rx_drops, 1);
	CU_ASSERT_EQUAL(e->nsyn, 0);
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	env_destroy(e);
}

/* UD: every wrong Q_Key (the GSI's included) is dropped and counted. */
static void
test_ud_qkey_spoof(void)
{
	static const uint32_t bad[] = { 0, 0x1235, 0x80010000, 0xffffffff,
					0x80001234 };
	static uint8_t payload[256];
	struct env *e = env_create(31);
	struct roce_hdr_fields f;
	struct roce_recv_wr rw;
	struct roce_sge s;
	struct roce_wc wc;
	unsigned int i, posted;

	s.addr = (uintptr_t)e->mem.base;
	s.length = 40 + sizeof(payload);
	s.lkey = roce_mr_lkey(e->mr);
	rw.wr_id = 5;
	rw.sg_list = &s;
	rw.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->ud, &rw, 1, &posted), 0);
	memset(payload, 0x33, sizeof(payload));
	for (i = 0; i <= RTE_DIM(bad); i++) {
		f = e->qp[0]->path;
		f.opcode = ROCE_OP_UD_SEND_ONLY;
		f.dqpn = roce_qp_num(e->ud);
		f.psn = i;
		f.qkey = i < RTE_DIM(bad) ? bad[i] : 0x1234;
		f.src_qpn = 0x777;
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
						 sizeof(payload)), 0);
	}
	fake_link_settle(e->l, 100000);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_drop_qkey_violation"),
			RTE_DIM(bad));
	/* only the last one, with the right key, was received */
	CU_ASSERT_EQUAL_FATAL(roce_poll_cq(e->cq[1], &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.src_qp, 0x777);
	CU_ASSERT_EQUAL(roce_poll_cq(e->cq[1], &wc, 1), 0);
	CU_ASSERT(guard_mem_ok(&e->mem));
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Malformed frames through the worker                                */
/* ------------------------------------------------------------------ */

/* Build the frame of @p f with @p len payload bytes into @p buf. */
static size_t
frame_bytes(const struct roce_hdr_fields *f, const void *payload,
	    uint32_t len, uint8_t *buf, size_t cap)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_mbuf_pool());
	size_t n = 0;
	char *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	p = rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memcpy(p, payload, len);
	if (roce_build_mbuf(m, f) == 0 &&
	    roce_icrc_fill_mbuf(m, m->l2_len) == 0 &&
	    rte_pktmbuf_pkt_len(m) <= cap) {
		n = rte_pktmbuf_pkt_len(m);
		memcpy(buf, rte_pktmbuf_read(m, 0, n, buf), n);
	}
	rte_pktmbuf_free(m);
	CU_ASSERT_FATAL(n != 0);
	return n;
}

static void
deliver(struct env *e, const uint8_t *buf, size_t len)
{
	struct fake_ep *ep = &e->l->ep[1];
	struct rte_mbuf *m = test_mbuf_from(buf, len, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	ep->inbox[ep->in_tail++ & ep->in_mask] = m;
	fake_link_step(e->l);
}

/* Every rx_drop_* reason of the parser, plus ICRC errors. */
static uint64_t
parse_drops(const struct env *e)
{
	unsigned int r;
	uint64_t sum = 0;

	for (r = ROCE_PARSE_NOT_ROCE; r < ROCE_PARSE_REASON_MAX; r++)
		sum += fake_link_counter(e->l->ep[1].w, roce_parse_reason_name((int)r));
	return sum + fake_link_counter(e->l->ep[1].w, "rx_icrc_err");
}

/* Deliver @p buf and check that it was counted once, under @p reason. */
static void
expect_drop(struct env *e, const uint8_t *buf, size_t len, const char *reason)
{
	uint64_t total = parse_drops(e), want = fake_link_counter(e->l->ep[1].w, reason);

	deliver(e, buf, len);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, reason), want + 1);
	CU_ASSERT_EQUAL(parse_drops(e), total + 1);
}

/* Check that the connection still moves data, with a real WRITE. */
static void
still_works(struct env *e)
{
	static uint8_t src[512];
	struct roce_send_wr wr;
	struct roce_sge s;
	struct roce_mr *mr;
	struct roce_wc wc;
	unsigned int posted;
	long i;
	int n = 0;

	memset(src, 0x42, sizeof(src));
	mr = roce_reg_mr(e->l->ep[0].pd, src, sizeof(src),
			 ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	s.addr = (uintptr_t)src;
	s.length = sizeof(src);
	s.lkey = roce_mr_lkey(mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 99;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)e->mem.base + 1024;
	wr.rdma.rkey = roce_mr_rkey(e->mr);
	CU_ASSERT_EQUAL_FATAL(roce_post_send(e->qp[0], &wr, 1, &posted), 0);
	for (i = 0; i < 100000 && n == 0; i++) {
		fake_link_step(e->l);
		n = roce_poll_cq(e->cq[0], &wc, 1);
	}
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(wc.status, ROCE_WC_SUCCESS);
	CU_ASSERT(guard_mem_is(e->mem.base + 1024, sizeof(src), 0x42));
	memset(e->mem.base + 1024, FILL, sizeof(src));
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
}

static void
test_truncated_every_offset(void)
{
	static uint8_t payload[200], good[2048], buf[2048];
	struct env *e = env_create(40);
	struct roce_hdr_fields f;
	uint64_t total0, ok0;
	size_t n, k, l4, bth;

	memset(payload, 0x99, sizeof(payload));
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = sizeof(payload);
	n = frame_bytes(&f, payload, sizeof(payload), good, sizeof(good));
	l4 = wire_l4_off(good);
	bth = wire_bth_off(good);
	total0 = parse_drops(e);
	ok0 = fake_link_counter(e->l->ep[1].w, "rx_accepted");
	/* cut at every offset, the lengths still claiming the whole frame */
	for (k = 0; k < n; k++) {
		memcpy(buf, good, k);
		deliver(e, buf, k);
	}
	CU_ASSERT_EQUAL(parse_drops(e) - total0, n);
	/* cut at every offset of the UDP payload, the lengths fixed up */
	total0 = parse_drops(e);
	for (k = bth - l4 - 8; k + bth < n; k++) {
		memcpy(buf, good, bth + k);
		wire_set_roce_len(buf, k);
		deliver(e, buf, bth + k);
	}
	CU_ASSERT_EQUAL(parse_drops(e) - total0, n - bth);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_accepted"), ok0);
	CU_ASSERT_EQUAL(e->nsyn, 0);
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	/* the frame itself is fine: written and ACKed */
	deliver(e, good, n);
	fake_link_settle(e->l, 100000);
	CU_ASSERT(guard_mem_is(e->mem.base, sizeof(payload), 0x99));
	CU_ASSERT(guard_mem_is(e->mem.base + sizeof(payload),
			       REGION - sizeof(payload), FILL));
	CU_ASSERT_EQUAL_FATAL(e->nsyn, 1);
	CU_ASSERT_EQUAL(roce_syndrome_type(e->syn[0]), ROCE_AETH_ACK);
	CU_ASSERT(guard_mem_ok(&e->mem));
	env_destroy(e);
}

static void
test_malformed_by_reason(void)
{
	static uint8_t payload[256], good[2048], buf[2048];
	struct env *e = env_create(41);
	struct roce_hdr_fields f;
	size_t n, l3, l4, bth;
	unsigned int op, bad_ops = 0;
	uint64_t before;

	memset(payload, 0x99, sizeof(payload));
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = sizeof(payload);
	n = frame_bytes(&f, payload, sizeof(payload), good, sizeof(good));
	l3 = wire_l3_off(good);
	l4 = wire_l4_off(good);
	bth = wire_bth_off(good);

	/* BTH TVer 1 */
	memcpy(buf, good, n);
	buf[bth + 1] |= 0x01;
	expect_drop(e, buf, n, "rx_drop_bad_tver");
	/* IP version 6 in an IPv4 ethertype */
	memcpy(buf, good, n);
	buf[l3] = (uint8_t)(0x60 | (buf[l3] & 0x0f));
	expect_drop(e, buf, n, "rx_drop_bad_ip_version");
	/* IHL 4 */
	memcpy(buf, good, n);
	buf[l3] = 0x44;
	expect_drop(e, buf, n, "rx_drop_bad_ihl");
	/* IP total length beyond the frame */
	memcpy(buf, good, n);
	buf[l3 + 2] = 0xff;
	wire_fix_ipv4_csum(buf);
	expect_drop(e, buf, n, "rx_drop_ip_len");
	/* IP checksum */
	memcpy(buf, good, n);
	buf[l3 + 10] ^= 0xff;
	expect_drop(e, buf, n, "rx_drop_ip_csum");
	/* UDP length one short of the IP payload */
	memcpy(buf, good, n);
	buf[l4 + 5]--;
	expect_drop(e, buf, n, "rx_drop_udp_len");
	/* pad count 3 on a request without payload room: a READ with pad */
	req_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = 64;
	n = frame_bytes(&f, payload, 0, buf, sizeof(buf));
	buf[bth + 1] |= 0x30;
	expect_drop(e, buf, n, "rx_drop_bad_pad");
	/* pad on a MIDDLE packet (pad only on the last, IBTA 9.2.3) */
	req_fields(e, &f, ROCE_OP_RC_SEND_MIDDLE);
	n = frame_bytes(&f, payload, sizeof(payload), buf, sizeof(buf));
	buf[bth + 1] |= 0x10;
	expect_drop(e, buf, n, "rx_drop_bad_pad");
	/* payload on an opcode without one: 4 bytes after a READ request */
	req_fields(e, &f, ROCE_OP_RC_RDMA_READ_REQUEST);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = 64;
	f.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
	n = frame_bytes(&f, payload, 4, buf, sizeof(buf));
	buf[bth] = ROCE_OP_RC_RDMA_READ_REQUEST;
	/* the WRITE's 4 payload bytes now sit after a READ request */
	expect_drop(e, buf, n, "rx_drop_bad_len");
	/* every opcode this library does not implement */
	n = frame_bytes(&f, payload, 4, good, sizeof(good));
	for (op = 0; op < 256; op++) {
		if (roce_opcode_valid((uint8_t)op))
			continue;
		memcpy(buf, good, n);
		buf[bth] = (uint8_t)op;
		expect_drop(e, buf, n, "rx_drop_bad_opcode");
		bad_ops++;
	}
	CU_ASSERT(bad_ops > 100);
	/* a flipped bit anywhere the ICRC covers after the BTH */
	req_fields(e, &f, ROCE_OP_RC_RDMA_WRITE_ONLY);
	f.va = (uint64_t)(uintptr_t)e->mem.base;
	f.rkey = roce_mr_rkey(e->mr);
	f.dma_len = sizeof(payload);
	n = frame_bytes(&f, payload, sizeof(payload), good, sizeof(good));
	before = fake_link_counter(e->l->ep[1].w, "rx_icrc_err");
	for (op = 0; op < 64; op++) {
		memcpy(buf, good, n);
		buf[bth + 8 + (op * 37) % (n - bth - 8)] ^=
			(uint8_t)(1u << (op & 7));
		deliver(e, buf, n);
	}
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_icrc_err"), before + 64);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_accepted"), 0);
	CU_ASSERT_EQUAL(e->nsyn, 0);
	CU_ASSERT(guard_mem_is(e->mem.base, REGION, FILL));
	CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_RTS);
	still_works(e);
	CU_ASSERT(guard_mem_ok(&e->mem));
	env_destroy(e);
}

/* Opcode sequence errors (IBTA 9.7.5.1.1 / C9-39): invalid request NAK. */
static void
test_opcode_sequence(void)
{
	static const uint8_t second[] = {
		ROCE_OP_RC_RDMA_WRITE_MIDDLE,	/* MIDDLE of another op */
		ROCE_OP_RC_RDMA_WRITE_ONLY,	/* a new message inside one */
		ROCE_OP_RC_SEND_FIRST,		/* FIRST inside a message */
		ROCE_OP_RC_RDMA_READ_REQUEST,
	};
	static uint8_t payload[1024];
	struct roce_hdr_fields f;
	struct roce_recv_wr rw;
	struct roce_sge s;
	unsigned int i, posted;

	memset(payload, 0x66, sizeof(payload));
	for (i = 0; i < RTE_DIM(second); i++) {
		struct env *e = env_create(50 + i);

		s.addr = (uintptr_t)e->mem.base + 8192;
		s.length = 8192;
		s.lkey = roce_mr_lkey(e->mr);
		rw.wr_id = 1;
		rw.sg_list = &s;
		rw.num_sge = 1;
		CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->qp[1], &rw, 1,
						     &posted), 0);
		req_fields(e, &f, ROCE_OP_RC_SEND_FIRST);
		f.ackreq = false;
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
						 e->mtu), 0);
		fake_link_settle(e->l, 100000);
		req_fields(e, &f, second[i]);
		f.va = (uint64_t)(uintptr_t)e->mem.base;
		f.rkey = roce_mr_rkey(e->mr);
		f.dma_len = second[i] == ROCE_OP_RC_RDMA_WRITE_ONLY ? 64 :
			    2 * e->mtu;
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, payload,
			second[i] == ROCE_OP_RC_RDMA_WRITE_ONLY ? 64 :
			second[i] == ROCE_OP_RC_RDMA_READ_REQUEST ? 0 :
			e->mtu), 0);
		fake_link_settle(e->l, 100000);
		if (!syn_seen(e, roce_syndrome(ROCE_AETH_NAK,
					       ROCE_NAK_INVALID_REQ)))
			fprintf(stderr, "\n  SEND_FIRST then opcode 0x%02x: no invalid request NAK\n",
				second[i]);
		CU_ASSERT(syn_seen(e, roce_syndrome(ROCE_AETH_NAK,
						    ROCE_NAK_INVALID_REQ)));
		CU_ASSERT_EQUAL(qp_state(e->qp[1]), ROCE_QPS_ERR);
		/* nothing of the second request landed in the region */
		CU_ASSERT(guard_mem_is(e->mem.base, 8192, FILL));
		CU_ASSERT(guard_mem_ok(&e->mem));
		env_destroy(e);
	}
}

int
main(int argc, char **argv)
{
	static CU_TestInfo tests[] = {
		{ "remote access checks, NAK syndromes", test_remote_access },
		{ "stale key in the middle of a WRITE", test_stale_key_mid_message },
		{ "zero-length RDMA with a bogus key", test_zero_length_bogus_key },
		{ "spoofed QPN and transport", test_spoofed_qpn_transport },
		{ "UD Q_Key violations", test_ud_qkey_spoof },
		{ "truncated at every offset", test_truncated_every_offset },
		{ "malformed frames counted by reason", test_malformed_by_reason },
		{ "opcode sequence errors", test_opcode_sequence },
		CU_TEST_INFO_NULL,
	};
	static CU_SuiteInfo suites[] = {
		{ "hostile", NULL, NULL, NULL, NULL, tests },
		CU_SUITE_INFO_NULL,
	};

	if (test_eal_init(argc, argv) < 0)
		return 1;
	return test_run(suites);
}
