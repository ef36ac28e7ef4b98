/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iop-integrity -f: the feature phases, after the data-integrity PASS, on
 * the same RC QP, iop-integrity on both sides (ours over
 * libernic_verbs.so, the VM's over rxe).
 *
 * The passive side's feature buffer fbuf (FEAT_BUF bytes, an MR of its
 * own) holds, from its start:
 *   FEAT_OFF_IMM   the targets of the WRITEs with immediate,
 *                  feat_imm_sizes[] back to back
 *   FEAT_OFF_SEND  the receive buffers of the SENDs, feat_send_sizes[]
 *   FEAT_OFF_MW    the memory window (FEAT_MW_LEN bytes); FEAT_MW_WRITE
 *                  bytes written through it at FEAT_MW_AT
 *   FEAT_OFF_ATOM  the 8-byte target of the atomics, FEAT_ATOM0 at start
 *   FEAT_OFF_RNR   the receive buffers of the RNR phase's SENDs
 * Byte i of each run is integ_pattern(seed of the run, i); the rest is
 * INTEG_FILL. Both sides build the image the passive fbuf must hold at the
 * end (feat_expect()): the passive side checks every byte against it and
 * both compare its FNV-1a checksum. The active side's fbuf holds the
 * sources at the same offsets, and the atomics' results.
 *
 * Steps (side-channel texts in quotes):
 *  0 passive: allocates a type 2 window and binds it with IBV_WR_BIND_MW
 *    (REMOTE_WRITE), posts the receives of steps 1 to 3, sends
 *    "feat rkey=.. vaddr=.. mw=.."
 *  1 active: a WRITE with immediate of each size, 0 bytes included,
 *    immediate FEAT_IMM_W + k: the passive side checks each completion's
 *    opcode, immediate and byte count
 *  2 active: SENDs: 1 byte inline with immediate FEAT_IMM_S, 60 bytes
 *    inline, 4097 bytes with immediate FEAT_IMM_S + 2
 *  3 active: a WRITE through the window, then a 16-byte SEND with
 *    invalidate of the window's rkey: the passive side checks
 *    IBV_WC_WITH_INV and the rkey it names
 *  4 active: FETCH_ADD 5, FETCH_ADD 1 << 32, a CMP_AND_SWAP that swaps and
 *    one that does not: each returned value compared
 *  5 "rnr": the active side posts FEAT_RNR_N SENDs at once, the passive
 *    side their receives FEAT_RNR_MS later: the responder answers RNR NAKs
 *    until then, the requester retries (rnr_retry 7: without end)
 *  6 active: a WRITE through the invalidated window must fail with
 *    IBV_WC_REM_ACCESS_ERR (both QPs end in the error state), "denied"; the
 *    window's bytes stay as step 3 left them
 *  7 both: the passive side checks fbuf, the checksums are exchanged, each
 *    prints "integrity: features PASS fnv=0x.. atomic=0x.." (the same line)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iop_integrity.h"

static const uint32_t feat_imm_sizes[] = { 0, 1, 1025, 4097 };
/* the last one is the SEND with invalidate; the first two are inline */
static const uint32_t feat_send_sizes[] = { 1, 60, 4097, 16 };

enum {
	FEAT_NIMM = sizeof(feat_imm_sizes) / sizeof(feat_imm_sizes[0]),
	FEAT_NSEND = sizeof(feat_send_sizes) / sizeof(feat_send_sizes[0]),
	FEAT_OFF_IMM = 0,
	FEAT_OFF_SEND = 8192,
	FEAT_OFF_MW = 16384,
	FEAT_MW_LEN = 4096,
	FEAT_MW_AT = 512,	/**< the WRITE's offset in the window */
	FEAT_MW_WRITE = 3000,
	FEAT_OFF_ATOM = 20480,	/**< the active side: 4 results there */
	FEAT_OFF_RNR = 24576,
	FEAT_RNR_N = 3,
	FEAT_RNR_LEN = 1000,
	FEAT_RNR_MS = 300,
	FEAT_OFF_DENY = 28672,	/**< the active side: step 6's source */
	FEAT_DENY_LEN = 256,
	FEAT_BUF = 32768,
	FEAT_IMM_W = 0x1d0000,
	FEAT_IMM_S = 0x5e0000,
	FEAT_SEED_IMM = 0x494d4d57,	/* "IMMW" */
	FEAT_SEED_SEND = 0x534e4449,	/* "SNDI" */
	FEAT_SEED_MW = 0x4d57494e,	/* "MWIN" */
	FEAT_SEED_RNR = 0x524e5253,	/* "RNRS" */
	WR_BIND = 900,
	WR_IMM = 1000,
	WR_SEND = 2000,
	WR_MW = 3000,
	WR_ATOM = 4000,
	WR_RNR = 5000,
	WR_DENY = 6000,
};

static const uint64_t FEAT_ATOM0 = 0x0123456789abcdefull;
static const uint64_t FEAT_SWAP = 0xfeedc0de5eedf00dull;

static uint32_t
sum(const uint32_t *v, unsigned int n)
{
	uint32_t t = 0;

	while (n-- > 0)
		t += v[n];
	return t;
}

/* The image the passive side's fbuf must hold at the end. */
static void
feat_expect(uint8_t *img)
{
	memset(img, INTEG_FILL, FEAT_BUF);
	integ_fill(img + FEAT_OFF_IMM, sum(feat_imm_sizes, FEAT_NIMM),
		   FEAT_SEED_IMM);
	integ_fill(img + FEAT_OFF_SEND, sum(feat_send_sizes, FEAT_NSEND),
		   FEAT_SEED_SEND);
	integ_fill(img + FEAT_OFF_MW + FEAT_MW_AT, FEAT_MW_WRITE, FEAT_SEED_MW);
	memcpy(img + FEAT_OFF_ATOM, &FEAT_SWAP, sizeof(FEAT_SWAP));
	integ_fill(img + FEAT_OFF_RNR, FEAT_RNR_N * FEAT_RNR_LEN, FEAT_SEED_RNR);
}

static bool
active(const struct peer *p)
{
	return p->server != NULL;
}

int
feat_open(struct peer *p)
{
	if (posix_memalign((void **)&p->fbuf, 4096, FEAT_BUF) != 0) {
		p->fbuf = NULL;
		return die("cannot allocate the features' buffer");
	}
	memset(p->fbuf, INTEG_FILL, FEAT_BUF);
	if (active(p)) {
		/* the sources, at the offsets of their destinations */
		feat_expect(p->fbuf);
		memset(p->fbuf + FEAT_OFF_ATOM, 0, 4 * sizeof(uint64_t));
		memset(p->fbuf + FEAT_OFF_DENY, 0xaa, FEAT_DENY_LEN);
	} else {
		memcpy(p->fbuf + FEAT_OFF_ATOM, &FEAT_ATOM0, sizeof(FEAT_ATOM0));
	}
	p->fmr = ibv_reg_mr(p->pd, p->fbuf, FEAT_BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC |
			    IBV_ACCESS_MW_BIND);
	if (p->fmr == NULL) {
		printf("iop-integrity: FAIL: cannot register the features' buffer: %s\n",
		       strerror(errno));
		return 1;
	}
	return 0;
}

void
feat_close(struct peer *p)
{
	if (p->mw != NULL && ibv_dealloc_mw(p->mw) != 0)
		printf("iop-integrity: cannot free the memory window\n");
	if (p->fmr != NULL && ibv_dereg_mr(p->fmr) != 0)
		printf("iop-integrity: cannot deregister the features' buffer\n");
	free(p->fbuf);
	p->mw = NULL;
	p->fmr = NULL;
	p->fbuf = NULL;
}

/* The next completion, which must be @p wr_id's and successful. */
static int
feat_wc(struct peer *p, uint64_t wr_id, struct ibv_wc *wc, const char *what)
{
	int n;

	do
		n = ibv_poll_cq(p->cq, 1, wc);
	while (n == 0);
	if (n < 0) {
		printf("iop-integrity: FAIL: features, %s: poll failed\n", what);
		return 1;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->wr_id != wr_id) {
		printf("iop-integrity: FAIL: features, %s: wr_id %" PRIu64 " (expected %" PRIu64 "): %s\n",
		       what, (uint64_t)wc->wr_id, wr_id,
		       ibv_wc_status_str(wc->status));
		return 1;
	}
	return 0;
}

/* One send WR of the active side, signaled; waited for when @p wait. */
static int
feat_post(struct peer *p, struct ibv_send_wr *wr, uint32_t off, uint32_t len,
	  bool wait, const char *what)
{
	struct ibv_send_wr *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;

	sge.addr = (uintptr_t)(p->fbuf + off);
	sge.length = len;
	sge.lkey = p->fmr->lkey;
	wr->sg_list = len != 0 ? &sge : NULL;
	wr->num_sge = len != 0 ? 1 : 0;
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(p->qp, wr, &bad) != 0) {
		printf("iop-integrity: FAIL: features, %s: cannot post: %s\n",
		       what, strerror(errno));
		return 1;
	}
	return wait ? feat_wc(p, wr->wr_id, &wc, what) : 0;
}

static int
feat_recv(struct peer *p, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)(p->fbuf + off);
	sge.length = len;
	sge.lkey = p->fmr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = len != 0 ? &sge : NULL;
	wr.num_sge = len != 0 ? 1 : 0;
	if (ibv_post_recv(p->qp, &wr, &bad) != 0)
		return die("features: cannot post a receive");
	return 0;
}

/* Step 0: the window, bound on the passive side's own QP. */
static int
feat_bind(struct peer *p, uint32_t *rkey)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	p->mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	if (p->mw == NULL) {
		printf("iop-integrity: FAIL: features: ibv_alloc_mw(TYPE_2): %s\n",
		       strerror(errno));
		return 1;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_BIND;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = p->mw;
	wr.bind_mw.rkey = ibv_inc_rkey(p->mw->rkey);
	wr.bind_mw.bind_info.mr = p->fmr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(p->fbuf + FEAT_OFF_MW);
	wr.bind_mw.bind_info.length = FEAT_MW_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_post_send(p->qp, &wr, &bad) != 0) {
		printf("iop-integrity: FAIL: features: cannot post the window's bind: %s\n",
		       strerror(errno));
		return 1;
	}
	if (feat_wc(p, WR_BIND, &wc, "bind of the window") != 0)
		return 1;
	if (wc.opcode != IBV_WC_BIND_MW) {
		printf("iop-integrity: FAIL: features: the bind completed with opcode %d, not IBV_WC_BIND_MW\n",
		       wc.opcode);
		return 1;
	}
	*rkey = wr.bind_mw.rkey;
	return 0;
}

/* The passive side's receive completion @p wr_id: opcode, flags, data. */
static int
feat_check_recv(struct peer *p, uint64_t wr_id, enum ibv_wc_opcode op,
		uint32_t len, int wc_flag, uint32_t value, const char *what)
{
	struct ibv_wc wc;
	uint32_t got;

	int inv = IBV_WC_WITH_INV, want = wc_flag;

	/*
	 * rxe (Linux 6.1 with rdma-core 44) hands the kernel's wc_flags to
	 * user space unchanged: its IB_WC_WITH_INVALIDATE is bit 2, which
	 * libibverbs calls IBV_WC_IP_CSUM_OK, and IBV_WC_WITH_INV (bit 3)
	 * is never set. On an rxe device that bit stands for it.
	 */
	if (strncmp(p->dev_name, "rxe", 3) == 0)
		inv |= IBV_WC_IP_CSUM_OK;
	if (wc_flag == IBV_WC_WITH_INV)
		want = inv;
	if (feat_wc(p, wr_id, &wc, what) != 0)
		return 1;
	got = wc_flag == IBV_WC_WITH_INV ? wc.invalidated_rkey :
		ntohl(wc.imm_data);
	if (wc.opcode != op || wc.byte_len != len ||
	    (wc_flag != 0 && (!(wc.wc_flags & want) || got != value)) ||
	    (wc_flag == 0 && (wc.wc_flags & (IBV_WC_WITH_IMM | inv)))) {
		printf("iop-integrity: FAIL: features, %s: opcode %d (expected %d), %u bytes (expected %u), wc_flags 0x%x, %s 0x%x (expected 0x%x)\n",
		       what, wc.opcode, op, wc.byte_len, len, wc.wc_flags,
		       wc_flag == IBV_WC_WITH_INV ? "invalidated rkey" :
		       "immediate", got, value);
		return 1;
	}
	return 0;
}

/* Steps 0 to 3 and 5 on the passive side. */
static int
feat_passive(struct peer *p, uint32_t *mw_rkey)
{
	char txt[INTEG_MSG_LEN], rtxt[INTEG_MSG_LEN];
	uint32_t k, off;

	if (feat_bind(p, mw_rkey) != 0)
		return 1;
	for (k = 0; k < FEAT_NIMM; k++)
		if (feat_recv(p, WR_IMM + k, 0, 0) != 0)
			return 1;
	for (k = 0, off = FEAT_OFF_SEND; k < FEAT_NSEND; k++) {
		if (feat_recv(p, WR_SEND + k, off, feat_send_sizes[k]) != 0)
			return 1;
		off += feat_send_sizes[k];
	}
	snprintf(txt, sizeof(txt), "feat rkey=%08x vaddr=%016" PRIx64 " mw=%08x",
		 p->fmr->rkey, (uint64_t)(uintptr_t)p->fbuf, *mw_rkey);
	if (xchg_text(p, txt, rtxt) != 0)
		return die("features: the keys on the side channel");
	for (k = 0; k < FEAT_NIMM; k++)
		if (feat_check_recv(p, WR_IMM + k, IBV_WC_RECV_RDMA_WITH_IMM,
				    feat_imm_sizes[k], IBV_WC_WITH_IMM,
				    FEAT_IMM_W + k, "WRITE with immediate"))
			return 1;
	printf("integrity: features: %u WRITEs with immediate received\n",
	       (unsigned int)FEAT_NIMM);
	if (feat_check_recv(p, WR_SEND, IBV_WC_RECV, 1, IBV_WC_WITH_IMM,
			    FEAT_IMM_S, "inline SEND with immediate") ||
	    feat_check_recv(p, WR_SEND + 1, IBV_WC_RECV, 60, 0, 0,
			    "inline SEND") ||
	    feat_check_recv(p, WR_SEND + 2, IBV_WC_RECV, 4097,
			    IBV_WC_WITH_IMM, FEAT_IMM_S + 2,
			    "SEND with immediate") ||
	    feat_check_recv(p, WR_SEND + 3, IBV_WC_RECV, 16, IBV_WC_WITH_INV,
			    *mw_rkey, "SEND with invalidate"))
		return 1;
	printf("integrity: features: 3 SENDs and a SEND with invalidate of 0x%08x received\n",
	       *mw_rkey);
	/* step 5: no receive posted when the SENDs come */
	if (xchg_text(p, "rnr", rtxt) != 0 || strcmp(rtxt, "rnr") != 0)
		return die("features: the RNR step on the side channel");
	usleep(FEAT_RNR_MS * 1000);
	for (k = 0; k < FEAT_RNR_N; k++)
		if (feat_recv(p, WR_RNR + k, FEAT_OFF_RNR + k * FEAT_RNR_LEN,
			      FEAT_RNR_LEN) != 0)
			return 1;
	for (k = 0; k < FEAT_RNR_N; k++)
		if (feat_check_recv(p, WR_RNR + k, IBV_WC_RECV, FEAT_RNR_LEN,
				    0, 0, "SEND after RNR"))
			return 1;
	printf("integrity: features: %u SENDs received, their receives posted %u ms late\n",
	       (unsigned int)FEAT_RNR_N, (unsigned int)FEAT_RNR_MS);
	return 0;
}

/* An atomic of the active side; its returned value must be @p expect. */
static int
feat_atomic(struct peer *p, uint32_t k, enum ibv_wr_opcode op,
	    uint64_t compare_add, uint64_t swap, uint64_t raddr, uint32_t rkey,
	    uint64_t expect)
{
	struct ibv_send_wr wr;
	uint64_t got;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ATOM + k;
	wr.opcode = op;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	if (feat_post(p, &wr, FEAT_OFF_ATOM + k * 8, 8, true,
		      op == IBV_WR_ATOMIC_FETCH_AND_ADD ? "FETCH_ADD" :
		      "CMP_AND_SWAP") != 0)
		return 1;
	memcpy(&got, p->fbuf + FEAT_OFF_ATOM + k * 8, sizeof(got));
	if (got != expect) {
		printf("iop-integrity: FAIL: features: atomic %u returned 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
		       k, got, expect);
		return 1;
	}
	return 0;
}

/* Steps 1 to 6 on the active side. */
static int
feat_active(struct peer *p, uint32_t *mw_rkey)
{
	char rtxt[INTEG_MSG_LEN];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t vaddr, raddr;
	struct ibv_wc wc;
	uint32_t rkey, k, off;

	if (xchg_text(p, "feat", rtxt) != 0 ||
	    sscanf(rtxt, "feat rkey=%" SCNx32 " vaddr=%" SCNx64 " mw=%" SCNx32,
		   &rkey, &vaddr, mw_rkey) != 3)
		return die("features: the peer's keys on the side channel");
	/* 1: WRITEs with immediate */
	for (k = 0, off = FEAT_OFF_IMM; k < FEAT_NIMM; k++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = WR_IMM + k;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(FEAT_IMM_W + k);
		wr.wr.rdma.remote_addr = vaddr + off;
		wr.wr.rdma.rkey = rkey;
		if (feat_post(p, &wr, off, feat_imm_sizes[k], true,
			      "WRITE with immediate") != 0)
			return 1;
		off += feat_imm_sizes[k];
	}
	/* 2, 3: SENDs, the WRITE through the window, SEND with invalidate */
	for (k = 0, off = FEAT_OFF_SEND; k < FEAT_NSEND; k++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = WR_SEND + k;
		wr.opcode = k == 0 || k == 2 ? IBV_WR_SEND_WITH_IMM :
			IBV_WR_SEND;
		wr.imm_data = htonl(FEAT_IMM_S + k);
		wr.send_flags = k < 2 ? IBV_SEND_INLINE : 0;
		if (k == 3) {
			/* the window first, then its invalidation */
			struct ibv_send_wr mw;

			memset(&mw, 0, sizeof(mw));
			mw.wr_id = WR_MW;
			mw.opcode = IBV_WR_RDMA_WRITE;
			mw.wr.rdma.remote_addr = vaddr + FEAT_OFF_MW + FEAT_MW_AT;
			mw.wr.rdma.rkey = *mw_rkey;
			if (feat_post(p, &mw, FEAT_OFF_MW + FEAT_MW_AT,
				      FEAT_MW_WRITE, true,
				      "WRITE through the window") != 0)
				return 1;
			wr.opcode = IBV_WR_SEND_WITH_INV;
			wr.invalidate_rkey = *mw_rkey;
		}
		if (feat_post(p, &wr, off, feat_send_sizes[k], true,
			      k == 3 ? "SEND with invalidate" : "SEND") != 0)
			return 1;
		off += feat_send_sizes[k];
	}
	printf("integrity: features: %u WRITEs with immediate, 3 SENDs, a WRITE through window 0x%08x and its invalidation done\n",
	       (unsigned int)FEAT_NIMM, *mw_rkey);
	/* 4: atomics on the 8 bytes at FEAT_OFF_ATOM */
	raddr = vaddr + FEAT_OFF_ATOM;
	if (feat_atomic(p, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, raddr, rkey,
			FEAT_ATOM0) ||
	    feat_atomic(p, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 1ull << 32, 0,
			raddr, rkey, FEAT_ATOM0 + 5) ||
	    feat_atomic(p, 2, IBV_WR_ATOMIC_CMP_AND_SWP,
			FEAT_ATOM0 + 5 + (1ull << 32), FEAT_SWAP, raddr, rkey,
			FEAT_ATOM0 + 5 + (1ull << 32)) ||
	    feat_atomic(p, 3, IBV_WR_ATOMIC_CMP_AND_SWP, FEAT_ATOM0, 0, raddr,
			rkey, FEAT_SWAP))
		return 1;
	printf("integrity: features: 2 FETCH_ADDs and 2 CMP_AND_SWAPs returned what they must\n");
	/* 5: SENDs before their receives */
	if (xchg_text(p, "rnr", rtxt) != 0 || strcmp(rtxt, "rnr") != 0)
		return die("features: the RNR step on the side channel");
	for (k = 0; k < FEAT_RNR_N; k++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = WR_RNR + k;
		wr.opcode = IBV_WR_SEND;
		if (feat_post(p, &wr, FEAT_OFF_RNR + k * FEAT_RNR_LEN,
			      FEAT_RNR_LEN, false, "SEND before its receive"))
			return 1;
	}
	for (k = 0; k < FEAT_RNR_N; k++)
		if (feat_wc(p, WR_RNR + k, &wc, "SEND before its receive"))
			return 1;
	printf("integrity: features: %u SENDs done, their receives posted late\n",
	       (unsigned int)FEAT_RNR_N);
	/* 6: the invalidated window refuses access */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_DENY;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = vaddr + FEAT_OFF_MW + FEAT_MW_AT;
	wr.wr.rdma.rkey = *mw_rkey;
	sge.addr = (uintptr_t)(p->fbuf + FEAT_OFF_DENY);
	sge.length = FEAT_DENY_LEN;
	sge.lkey = p->fmr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_send(p->qp, &wr, &bad) != 0)
		return die("features: cannot post the WRITE through the invalidated window");
	do
		k = (uint32_t)ibv_poll_cq(p->cq, 1, &wc);
	while (k == 0);
	if ((int)k < 0 || wc.wr_id != WR_DENY ||
	    wc.status != IBV_WC_REM_ACCESS_ERR) {
		printf("iop-integrity: FAIL: features: the WRITE through the invalidated window ended with %s (wr_id %" PRIu64 "), expected %s\n",
		       (int)k < 0 ? "a failed poll" : ibv_wc_status_str(wc.status),
		       (uint64_t)wc.wr_id,
		       ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
		return 1;
	}
	printf("integrity: features: the WRITE through the invalidated window: %s\n",
	       ibv_wc_status_str(wc.status));
	return 0;
}

int
feat_run(struct peer *p)
{
	char txt[INTEG_MSG_LEN], rtxt[INTEG_MSG_LEN];
	uint64_t h, rh, final;
	uint8_t *img;
	uint32_t mw_rkey, i;
	int bad = 0, rbad;

	if (active(p) ? feat_active(p, &mw_rkey) : feat_passive(p, &mw_rkey))
		return 1;
	if (xchg_text(p, "denied", rtxt) != 0 || strcmp(rtxt, "denied") != 0)
		return die("features: the last step on the side channel");
	img = malloc(FEAT_BUF);
	if (img == NULL)
		return die("features: out of memory");
	feat_expect(img);
	h = integ_fnv1a64(img, FEAT_BUF);
	if (!active(p)) {
		/* every byte, the window's after the refused WRITE included */
		for (i = 0; i < FEAT_BUF; i++)
			if (p->fbuf[i] != img[i]) {
				printf("integrity: features: FAIL: byte %u is 0x%02x, expected 0x%02x\n",
				       i, p->fbuf[i], img[i]);
				bad = 1;
				break;
			}
		h = integ_fnv1a64(p->fbuf, FEAT_BUF);
	}
	free(img);
	snprintf(txt, sizeof(txt), "feat fnv=%016" PRIx64 " bad=%d", h, bad);
	if (xchg_text(p, txt, rtxt) != 0 ||
	    sscanf(rtxt, "feat fnv=%" SCNx64 " bad=%d", &rh, &rbad) != 2)
		return die("features: the checksum exchange");
	memcpy(&final, active(p) ? &FEAT_SWAP : (const void *)(p->fbuf +
	       FEAT_OFF_ATOM), sizeof(final));
	if (bad != 0 || rbad != 0 || h != rh) {
		printf("integrity: features: FAIL: bad here %d, at the peer %d, fnv1a64 0x%016" PRIx64 " here, 0x%016" PRIx64 " there\n",
		       bad, rbad, h, rh);
		return 1;
	}
	printf("integrity: features PASS fnv=0x%016" PRIx64 " atomic=0x%016" PRIx64 "\n",
	       h, final);
	return 0;
}
