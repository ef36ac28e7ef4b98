/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the frame parser, the RX dispatch and every engine of
 * a device (responder, completer of outstanding requests, UD receive, the
 * GSI drop path), fed arbitrary frames over the fake link.
 *
 * Side 1 of a fake link has an RC, a UC and a UD QP, receives posted and a
 * READ, a WRITE, an atomic and a SEND outstanding to side 0 (whose output
 * is cut, so they stay outstanding and the fuzzer plays the responder).
 * Three MRs sit in guarded memory (guard_mem.h): all rights, remote read
 * only, and all rights in another PD. Each record of the input is one
 * frame for side 1; its kind byte asks for fix-ups so that mutated frames
 * get past the checks that random bytes never pass:
 *   bit 0  addresses: MACs and IPv4 addresses of side 0 -> side 1
 *   bit 1  BTH: destination QP (bits 5-6: RC, UC, UD, QP1), P_Key 0xffff,
 *          the PSN the QP expects (requests) or side 1 sent (responses)
 *   bit 2  RETH/AtomicETH: an rkey of the MRs and an address near them;
 *          DETH: the UD QP's Q_Key
 *   bit 3  IPv4 header checksum and ICRC recomputed after the fix-ups
 *   bit 4  the frame is chained in 64-byte segments
 * Invariants checked after every input: no byte outside an MR changed
 * (canaries, guard pages), every mbuf returned to the pool.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mempool.h>

#include "fake_link.h"
#include "fuzz_common.h"
#include "guard_mem.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_verbs.h"
#include "test_common.h"

enum {
	F_ADDR = 1 << 0,
	F_BTH = 1 << 1,
	F_KEYS = 1 << 2,
	F_CRC = 1 << 3,
	F_CHAIN = 1 << 4,
	NB_MR = 3,
	MR_LEN = 8192,
	LOCAL_LEN = 16384,
	MAX_FRAME = 9000,
	MAX_RECS = 64,
	UD_QKEY = 0x11111111,
	SQ_PSN1 = 200,		/* fake_conn_opts_default(): side 1's SQ PSN */
};

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *rc[2], *uc[2], *ud;
	struct roce_pd *pd2;
	struct guard_mem mem[NB_MR], local;
	struct roce_mr *mr[NB_MR], *lmr;
};

static struct roce_qp *
qp_new(struct env *e, int side, enum roce_qp_type t)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = t;
	ia.send_cq = e->cq[side];
	ia.recv_cq = e->cq[side];
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	return roce_create_qp(e->l->ep[side].pd, &ia);
}

static void
post_recvs(struct env *e, struct roce_qp *qp, uint32_t off)
{
	struct roce_recv_wr wr;
	struct roce_sge s;
	unsigned int posted, i;

	for (i = 0; i < 4; i++) {
		s.addr = (uintptr_t)(e->local.base + off + i * 1024);
		s.length = 1024;
		s.lkey = roce_mr_lkey(e->lmr);
		wr.wr_id = i;
		wr.sg_list = &s;
		wr.num_sge = 1;
		roce_post_recv(qp, &wr, 1, &posted);
	}
}

static void
post_requests(struct env *e)
{
	static const enum roce_wr_opcode ops[] = {
		ROCE_WR_RDMA_READ, ROCE_WR_RDMA_WRITE,
		ROCE_WR_ATOMIC_FETCH_AND_ADD, ROCE_WR_SEND,
	};
	struct roce_send_wr wr;
	struct roce_sge s;
	unsigned int posted, i;

	for (i = 0; i < RTE_DIM(ops); i++) {
		memset(&wr, 0, sizeof(wr));
		s.addr = (uintptr_t)(e->local.base + 8192 + i * 2048);
		s.length = ops[i] == ROCE_WR_ATOMIC_FETCH_AND_ADD ? 8 :
			   ops[i] == ROCE_WR_RDMA_READ ? 2048 : 100;
		s.lkey = roce_mr_lkey(e->lmr);
		wr.wr_id = 100 + i;
		wr.opcode = ops[i];
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		if (ops[i] == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
			wr.atomic.remote_addr = 0x10000;
			wr.atomic.rkey = 0x1234;
			wr.atomic.compare_add = 1;
		} else {
			wr.rdma.remote_addr = 0x20000;
			wr.rdma.rkey = 0x5678;
		}
		roce_post_send(e->rc[1], &wr, 1, &posted);
	}
}

static int
env_create(struct env *e)
{
	static const int rights[NB_MR] = {
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC,
		ROCE_ACCESS_REMOTE_READ,
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC,
	};
	struct fake_conn_opts o;
	int i;

	memset(e, 0, sizeof(*e));
	e->l = fake_link_create(1, false);
	if (e->l == NULL)
		return -1;
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 256);
		if (e->cq[i] == NULL)
			return -1;
		e->rc[i] = qp_new(e, i, ROCE_QPT_RC);
		e->uc[i] = qp_new(e, i, ROCE_QPT_UC);
		if (e->rc[i] == NULL || e->uc[i] == NULL)
			return -1;
	}
	e->ud = qp_new(e, 1, ROCE_QPT_UD);
	e->pd2 = roce_alloc_pd(e->l->ep[1].dev);
	if (e->ud == NULL || e->pd2 == NULL)
		return -1;
	fake_conn_opts_default(&o);
	if (fake_link_connect(e->l, e->rc[0], e->rc[1], &o) != 0 ||
	    fake_link_connect(e->l, e->uc[0], e->uc[1], &o) != 0 ||
	    fake_link_ud_ready(e->l, 1, e->ud, UD_QKEY, 300) != 0)
		return -1;
	for (i = 0; i < NB_MR; i++) {
		if (guard_mem_alloc(&e->mem[i], MR_LEN, 64, 0xee) != 0)
			return -1;
		e->mr[i] = roce_reg_mr(i == 2 ? e->pd2 : e->l->ep[1].pd,
				       e->mem[i].base, MR_LEN, rights[i]);
		if (e->mr[i] == NULL)
			return -1;
	}
	if (guard_mem_alloc(&e->local, LOCAL_LEN, 64, 0) != 0)
		return -1;
	e->lmr = roce_reg_mr(e->l->ep[1].pd, e->local.base, LOCAL_LEN,
			     ROCE_ACCESS_LOCAL_WRITE);
	if (e->lmr == NULL)
		return -1;
	post_recvs(e, e->rc[1], 0);
	post_recvs(e, e->uc[1], 4096);
	post_recvs(e, e->ud, 4096);
	/* side 0 never answers: side 1's requests stay outstanding */
	fake_link_cut(e->l, 0, true);
	post_requests(e);
	return 0;
}

static void
env_destroy(struct env *e)
{
	struct roce_wc wc[16];
	int i;

	if (e->l == NULL)
		return;
	fake_link_cut(e->l, 0, false);
	fake_link_settle(e->l, 20000);
	for (i = 0; i < 2; i++)
		while (e->cq[i] != NULL && roce_poll_cq(e->cq[i], wc, 16) > 0)
			;
	if (e->ud != NULL)
		roce_destroy_qp(e->ud);
	for (i = 0; i < 2; i++) {
		if (e->rc[i] != NULL)
			roce_destroy_qp(e->rc[i]);
		if (e->uc[i] != NULL)
			roce_destroy_qp(e->uc[i]);
	}
	for (i = 0; i < 2; i++)
		if (e->cq[i] != NULL)
			roce_destroy_cq(e->cq[i]);
	for (i = 0; i < NB_MR; i++) {
		if (e->mr[i] != NULL)
			roce_dereg_mr(e->mr[i]);
		if (e->mem[i].map != NULL && !guard_mem_ok(&e->mem[i]))
			fuzz_fail("bytes outside an MR were written");
		guard_mem_free(&e->mem[i]);
	}
	if (e->lmr != NULL)
		roce_dereg_mr(e->lmr);
	if (e->local.map != NULL && !guard_mem_ok(&e->local))
		fuzz_fail("bytes outside the local buffer were written");
	guard_mem_free(&e->local);
	if (e->pd2 != NULL)
		roce_dealloc_pd(e->pd2);
	fake_link_destroy(e->l);
	e->l = NULL;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void
put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* A key and an address near MR @p k: in, at the edges, or just outside. */
static void
fix_keys(const struct env *e, uint8_t *eth, uint32_t key_off, uint32_t va_off)
{
	unsigned int k = eth[key_off + 3] % (NB_MR + 1);
	uint64_t va = get64(eth + va_off);
	uint64_t base;

	if (k == NB_MR) {
		/* a key that was never handed out, kept as is */
		return;
	}
	base = (uint64_t)(uintptr_t)e->mem[k].base;
	put32(eth + key_off, roce_mr_rkey(e->mr[k]));
	/* [base - 256, base + MR_LEN + 256), keeping the low 3 bits */
	put64(eth + va_off, base - 256 + va % (MR_LEN + 512));
}

/* Apply the fix-ups of @p kind to frame @p f of @p len bytes in place. */
static void
fixup(const struct env *e, uint8_t kind, uint8_t *f, uint32_t len)
{
	struct roce_pkt pkt;
	struct rte_mbuf *m;
	const struct roce_opcode_info *op;
	struct roce_qp *qp = NULL;
	uint32_t dqpn = 1, bth, psn;
	uint8_t *ip;
	char *p;

	m = rte_pktmbuf_alloc(test_mbuf_pool());
	if (m == NULL)
		return;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL)
		goto out;
	memcpy(p, f, len);
	/* only frames that parse as RoCEv2 over IPv4 are fixed up */
	if (roce_parse(m, &pkt) != 0 || pkt.ip_ver != 4 ||
	    (pkt.flags & ROCE_PKT_BOUNCED))
		goto out;
	op = pkt.op;
	ip = f + pkt.l3_off;
	bth = pkt.bth_off;
	if (kind & F_ADDR) {
		memcpy(f, e->l->ep[1].mac, 6);
		memcpy(f + 6, e->l->ep[0].mac, 6);
		memcpy(ip + 12, e->l->ep[0].gid.raw + 12, 4);
		memcpy(ip + 16, e->l->ep[1].gid.raw + 12, 4);
	}
	if (kind & F_BTH) {
		switch ((kind >> 5) & 3) {
		case 0:
			qp = e->rc[1];
			break;
		case 1:
			qp = e->uc[1];
			break;
		case 2:
			qp = e->ud;
			break;
		default:
			qp = NULL;
			break;
		}
		if (qp != NULL)
			dqpn = roce_qp_num(qp);
		f[bth + 2] = 0xff;
		f[bth + 3] = 0xff;
		f[bth + 5] = (uint8_t)(dqpn >> 16);
		f[bth + 6] = (uint8_t)(dqpn >> 8);
		f[bth + 7] = (uint8_t)dqpn;
		psn = get32(f + bth + 8) & 0xffffff;
		if (qp != NULL && (op->flags & ROCE_OPF_RESP))
			psn = (SQ_PSN1 + (psn & 7)) & 0xffffff;
		else if (qp != NULL)
			psn = (qp->resp.epsn + (psn & 1)) & 0xffffff;
		f[bth + 9] = (uint8_t)(psn >> 16);
		f[bth + 10] = (uint8_t)(psn >> 8);
		f[bth + 11] = (uint8_t)psn;
	}
	if (kind & F_KEYS) {
		if (op->off[ROCE_EXT_RETH] != 0)
			fix_keys(e, f, bth + op->off[ROCE_EXT_RETH] + 8,
				 bth + op->off[ROCE_EXT_RETH]);
		if (op->off[ROCE_EXT_ATMETH] != 0)
			fix_keys(e, f, bth + op->off[ROCE_EXT_ATMETH] + 8,
				 bth + op->off[ROCE_EXT_ATMETH]);
		if (op->off[ROCE_EXT_DETH] != 0)
			put32(f + bth + op->off[ROCE_EXT_DETH], UD_QKEY);
	}
	if (kind & F_CRC) {
		ip[10] = 0;
		ip[11] = 0;
		memcpy(p, f, len);
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					pkt.l3_off)->hdr_checksum =
			rte_ipv4_cksum(rte_pktmbuf_mtod_offset(m,
					struct rte_ipv4_hdr *, pkt.l3_off));
		if (roce_icrc_fill_mbuf(m, pkt.l3_off) == 0)
			memcpy(f, p, len);
	}
out:
	rte_pktmbuf_free(m);
}

static void
deliver(struct env *e, uint8_t kind, uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m;
	struct fake_ep *ep = &e->l->ep[1];

	m = test_mbuf_from(f, len, (kind & F_CHAIN) ? 64 : 0);
	if (m == NULL)
		return;
	if (ep->in_tail - ep->in_head > ep->in_mask) {
		rte_pktmbuf_free(m);
		return;
	}
	ep->inbox[ep->in_tail++ & ep->in_mask] = m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fuzz_eal_init((*argv)[0], NULL, 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[MAX_FRAME];
	struct fuzz_reader r;
	struct fuzz_rec rec;
	struct env e;
	unsigned int avail, n = 0;
	struct roce_wc wc[16];
	int i;

	avail = rte_mempool_avail_count(test_mbuf_pool());
	if (env_create(&e) != 0)
		fuzz_fail("cannot set up the fake link");
	fuzz_reader_init(&r, data, size);
	while (n++ < MAX_RECS && fuzz_next(&r, &rec, MAX_FRAME)) {
		if (rec.len == 0)
			continue;
		memcpy(frame, rec.data, rec.len);
		if (rec.kind & (F_ADDR | F_BTH | F_KEYS | F_CRC))
			fixup(&e, rec.kind, frame, (uint32_t)rec.len);
		deliver(&e, rec.kind, frame, (uint32_t)rec.len);
		fake_link_step(e.l);
		for (i = 0; i < 2; i++)
			while (roce_poll_cq(e.cq[i], wc, 16) > 0)
				;
	}
	env_destroy(&e);
	if (rte_mempool_avail_count(test_mbuf_pool()) != avail)
		fuzz_fail("mbufs leaked");
	return 0;
}
