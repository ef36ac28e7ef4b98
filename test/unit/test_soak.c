/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak: RDMA WRITE, READ and SEND over 64 RC QP pairs between two
 * net_ernic ports joined through net_fault ports (fault_chain.h), first on
 * a clean link, then with 1 % loss, 1 % reordering, 0.1 % duplication and
 * 0.1 % corruption in each direction. Every byte is verified against a
 * pattern keyed by (QP, WR), every WR must complete exactly once, in
 * order, with success, and no QP may end in error. Prints the throughput
 * of both runs (a figure, not a pass criterion).
 *
 * Sizes: SOFTERNIC_SOAK_MB (default 256) MiB through the impaired link;
 * the clean reference moves the same, at most 1 GiB. SOFTERNIC_SOAK_SEED
 * (default 1) seeds the faults and message sizes. devtools/soak.sh runs it
 * with 10 GiB.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fault_chain.h"
#include "roce_qp.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_fault.h"
#include "test_common.h"

enum {
	NQP = 64,
	DEPTH = 4,		/**< WRs outstanding per QP */
	SLOT = 64 * 1024,	/**< largest message */
	REGION = 3 * DEPTH * SLOT,	/**< per QP per side: src, dst, rcv */
	PMTU = 4096,
};

enum soak_op { OP_WRITE, OP_READ, OP_SEND };

struct wr_rec {
	enum soak_op op;
	uint32_t len;
};

struct qpair {
	struct roce_qp *qp[2];
	int req;			/**< requester side */
	uint64_t rng;
	uint64_t posted, done;		/**< WRs, in order */
	struct wr_rec wr[DEPTH];	/**< by seq % DEPTH */
	uint64_t sends, recvs;		/**< SENDs posted, receives completed */
	uint32_t send_len[DEPTH];	/**< by send index % DEPTH */
	uint64_t send_seq[DEPTH];
};

struct soak {
	struct fault_chain c;
	struct roce_cq *cq[2];
	uint8_t *mem[2];
	struct roce_mr *mr[2];
	struct qpair q[NQP];
	uint16_t qpn2idx[2][65536];
	uint64_t target, posted_bytes, done_bytes, wrs, recvs;
	uint64_t errors;
};

static uint8_t *
region(struct soak *s, int side, unsigned int qi, unsigned int part,
       unsigned int slot)
{
	return s->mem[side] + (size_t)qi * REGION +
	       ((size_t)part * DEPTH + slot) * SLOT;
}

static inline uint64_t
pat_word(uint64_t key, uint64_t j)
{
	uint64_t x = key * 0xd1342543de82ef95ULL + j * 0x9e3779b97f4a7c15ULL;

	return x ^ (x >> 29);
}

static void
pat_fill(uint8_t *p, uint32_t len, uint64_t key)
{
	uint64_t j, w;

	for (j = 0; j < len / 8; j++) {
		w = pat_word(key, j);
		memcpy(p + j * 8, &w, 8);
	}
	if (len % 8) {
		w = pat_word(key, j);
		memcpy(p + j * 8, &w, len % 8);
	}
}

/* Offset of the first byte that differs from the pattern, -1 if none. */
static long
pat_check(const uint8_t *p, uint32_t len, uint64_t key)
{
	uint64_t j, w, v;

	for (j = 0; j < len / 8; j++) {
		w = pat_word(key, j);
		memcpy(&v, p + j * 8, 8);
		if (v != w)
			return (long)(j * 8);
	}
	if (len % 8) {
		w = pat_word(key, j);
		if (memcmp(p + j * 8, &w, len % 8) != 0)
			return (long)(j * 8);
	}
	return -1;
}

static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline uint64_t
wr_key(unsigned int qi, uint64_t seq)
{
	return (uint64_t)qi << 48 | seq;
}

static void
soak_fail(struct soak *s, const char *what, unsigned int qi, uint64_t seq,
	  long off)
{
	if (s->errors++ < 10)
		fprintf(stderr, "soak: QP %u WR %" PRIu64 ": %s (offset %ld)\n",
			qi, seq, what, off);
}

static int
post_recv(struct soak *s, unsigned int qi, uint64_t k)
{
	struct qpair *q = &s->q[qi];
	int side = 1 - q->req;
	struct roce_recv_wr wr;
	struct roce_sge sge;

	sge.addr = (uintptr_t)region(s, side, qi, 2, (unsigned int)(k % DEPTH));
	sge.length = SLOT;
	sge.lkey = roce_mr_lkey(s->mr[side]);
	wr.wr_id = wr_key(qi, k);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return roce_post_recv(q->qp[side], &wr, 1, NULL);
}

static int
soak_setup(struct soak *s, uint64_t seed)
{
	struct roce_qp_init_attr ia;
	struct fault_conn o;
	unsigned int i, k;
	int side;

	if (fault_chain_create(&s->c, PMTU, seed, "") != 0)
		return -1;
	for (side = 0; side < 2; side++) {
		s->cq[side] = roce_create_cq(s->c.w[side], 4 * NQP * DEPTH);
		s->mem[side] = aligned_alloc(4096, (size_t)NQP * REGION);
		if (s->cq[side] == NULL || s->mem[side] == NULL)
			return -1;
		memset(s->mem[side], 0, (size_t)NQP * REGION);
		s->mr[side] = roce_reg_mr(s->c.pd[side], s->mem[side],
					  (size_t)NQP * REGION,
					  ROCE_ACCESS_LOCAL_WRITE |
					  ROCE_ACCESS_REMOTE_WRITE |
					  ROCE_ACCESS_REMOTE_READ);
		if (s->mr[side] == NULL)
			return -1;
	}
	fault_conn_default(&o);
	o.timeout = 14;		/* 67 ms, as perftest: above the queueing delay of 64 x 4 messages */
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	o.rd_atomic = DEPTH;
	for (i = 0; i < NQP; i++) {
		struct qpair *q = &s->q[i];

		q->req = (int)(i & 1);	/* both directions carry requests */
		q->rng = seed * 0x9e3779b97f4a7c15ULL + i + 1;
		for (side = 0; side < 2; side++) {
			memset(&ia, 0, sizeof(ia));
			ia.qp_type = ROCE_QPT_RC;
			ia.send_cq = s->cq[side];
			ia.recv_cq = s->cq[side];
			ia.cap.max_send_wr = DEPTH;
			ia.cap.max_recv_wr = DEPTH;
			ia.cap.max_send_sge = 1;
			ia.cap.max_recv_sge = 1;
			q->qp[side] = roce_create_qp(s->c.pd[side], &ia);
			if (q->qp[side] == NULL)
				return -1;
			s->qpn2idx[side][roce_qp_num(q->qp[side])] = (uint16_t)i;
		}
		o.psn[0] = (uint32_t)(rng_next(&q->rng) & 0xffffff);
		o.psn[1] = (uint32_t)(rng_next(&q->rng) & 0xffffff);
		if (fault_chain_connect(&s->c, q->qp[0], q->qp[1], &o) != 0)
			return -1;
		for (k = 0; k < DEPTH; k++)
			if (post_recv(s, i, k) != 0)
				return -1;
	}
	return 0;
}

static void
soak_teardown(struct soak *s)
{
	unsigned int i;
	int side;

	for (i = 0; i < NQP; i++)
		for (side = 0; side < 2; side++)
			if (s->q[i].qp[side] != NULL)
				CU_ASSERT(roce_destroy_qp(s->q[i].qp[side]) == 0);
	for (side = 0; side < 2; side++) {
		if (s->mr[side] != NULL)
			CU_ASSERT(roce_dereg_mr(s->mr[side]) == 0);
		if (s->cq[side] != NULL)
			CU_ASSERT(roce_destroy_cq(s->cq[side]) == 0);
		free(s->mem[side]);
	}
	fault_chain_destroy(&s->c);
}

/* Post what QP @p qi may post now. */
static void
soak_post(struct soak *s, unsigned int qi)
{
	struct qpair *q = &s->q[qi];
	int rq = q->req, rs = 1 - rq;
	struct roce_send_wr wr;
	struct roce_sge sge;
	unsigned int slot;
	enum soak_op op;
	uint64_t key;
	uint32_t len;

	while (q->posted - q->done < DEPTH && s->posted_bytes < s->target) {
		op = (enum soak_op)(q->posted % 3);
		if (op == OP_SEND && q->sends - q->recvs >= DEPTH)
			op = OP_WRITE;	/* no receive WQE free at the peer */
		len = 1 + (uint32_t)(rng_next(&q->rng) % SLOT);
		slot = (unsigned int)(q->posted % DEPTH);
		key = wr_key(qi, q->posted);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = key;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		sge.addr = (uintptr_t)region(s, rq, qi, 0, slot);
		sge.length = len;
		sge.lkey = roce_mr_lkey(s->mr[rq]);
		wr.rdma.remote_addr = (uintptr_t)region(s, rs, qi, 1, slot);
		wr.rdma.rkey = roce_mr_rkey(s->mr[rs]);
		switch (op) {
		case OP_WRITE:
			wr.opcode = ROCE_WR_RDMA_WRITE;
			pat_fill(region(s, rq, qi, 0, slot), len, key);
			break;
		case OP_READ:
			/* the data the peer's application left there */
			wr.opcode = ROCE_WR_RDMA_READ;
			pat_fill(region(s, rs, qi, 1, slot), len, key);
			break;
		case OP_SEND:
			wr.opcode = ROCE_WR_SEND;
			pat_fill(region(s, rq, qi, 0, slot), len, key);
			q->send_len[q->sends % DEPTH] = len;
			q->send_seq[q->sends % DEPTH] = q->posted;
			q->sends++;
			break;
		}
		if (roce_post_send(q->qp[rq], &wr, 1, NULL) != 0) {
			soak_fail(s, "post_send refused", qi, q->posted, -1);
			return;
		}
		q->wr[slot].op = op;
		q->wr[slot].len = len;
		q->posted++;
		s->posted_bytes += len;
	}
}

static void
soak_wc(struct soak *s, int side, const struct roce_wc *wc)
{
	unsigned int qi = s->qpn2idx[side][wc->qp_num];
	struct qpair *q = &s->q[qi];
	unsigned int slot;
	uint64_t seq;
	long off;

	if (wc->status != ROCE_WC_SUCCESS) {
		char what[64];

		snprintf(what, sizeof(what), "completion status %d (vendor_err %u)",
			 wc->status, wc->vendor_err);
		soak_fail(s, what, qi, wc->wr_id & 0xffffffffffffULL, -1);
		return;
	}
	if (wc->opcode & ROCE_WC_RECV) {
		/* the k-th receive holds the k-th SEND */
		uint64_t k = q->recvs;
		uint32_t len = q->send_len[k % DEPTH];

		seq = q->send_seq[k % DEPTH];
		if (side == q->req || wc->wr_id != wr_key(qi, k) ||
		    k >= q->sends) {
			soak_fail(s, "receive out of order or twice", qi, k, -1);
			return;
		}
		if (wc->byte_len != len)
			soak_fail(s, "receive length", qi, seq, wc->byte_len);
		off = pat_check(region(s, side, qi, 2,
				       (unsigned int)(k % DEPTH)), len,
				wr_key(qi, seq));
		if (off >= 0)
			soak_fail(s, "SEND data", qi, seq, off);
		q->recvs++;
		s->recvs++;
		if (post_recv(s, qi, k + DEPTH) != 0)
			soak_fail(s, "post_recv refused", qi, k + DEPTH, -1);
		return;
	}
	seq = q->done;
	slot = (unsigned int)(seq % DEPTH);
	if (side != q->req || wc->wr_id != wr_key(qi, seq) || seq >= q->posted) {
		soak_fail(s, "send completion out of order or twice", qi,
			  wc->wr_id & 0xffffffffffffULL, -1);
		return;
	}
	switch (q->wr[slot].op) {
	case OP_WRITE:
		off = pat_check(region(s, 1 - side, qi, 1, slot),
				q->wr[slot].len, wc->wr_id);
		if (off >= 0)
			soak_fail(s, "WRITE data", qi, seq, off);
		break;
	case OP_READ:
		off = pat_check(region(s, side, qi, 0, slot), q->wr[slot].len,
				wc->wr_id);
		if (off >= 0)
			soak_fail(s, "READ data", qi, seq, off);
		break;
	case OP_SEND:
		break;
	}
	q->done++;
	s->wrs++;
	s->done_bytes += q->wr[slot].len;
}

static bool
soak_idle(const struct soak *s)
{
	unsigned int i;

	for (i = 0; i < NQP; i++)
		if (s->q[i].done != s->q[i].posted ||
		    s->q[i].recvs != s->q[i].sends)
			return false;
	return true;
}

/* Move @p bytes more; returns the seconds it took, < 0 on a stall. */
static double
soak_run(struct soak *s, uint64_t bytes)
{
	struct roce_wc wc[64];
	uint64_t t0 = rte_rdtsc(), hz = rte_get_tsc_hz(), last, last_t;
	unsigned int i;
	int side, n, k;

	s->target = s->posted_bytes + bytes;
	last = s->done_bytes;
	last_t = t0;
	for (;;) {
		for (i = 0; i < NQP; i++)
			soak_post(s, i);
		fault_chain_poll(&s->c);
		for (side = 0; side < 2; side++) {
			n = roce_poll_cq(s->cq[side], wc, RTE_DIM(wc));
			if (n < 0) {
				soak_fail(s, "CQ overrun", 0, 0, n);
				return -1;
			}
			for (k = 0; k < n; k++)
				soak_wc(s, side, &wc[k]);
		}
		if (s->errors > 0)
			return -1;
		if (s->posted_bytes >= s->target && soak_idle(s))
			break;
		if (s->done_bytes != last) {
			last = s->done_bytes;
			last_t = rte_rdtsc();
		} else if (rte_rdtsc() - last_t > 30 * hz) {
			fprintf(stderr, "soak: no progress for 30 s\n");
			return -1;
		}
	}
	return (double)(rte_rdtsc() - t0) / hz;
}

static uint64_t
sum_qp(const struct soak *s, size_t off)
{
	uint64_t v = 0;
	unsigned int i;
	int side;

	for (i = 0; i < NQP; i++)
		for (side = 0; side < 2; side++)
			v += *(const uint64_t *)RTE_PTR_ADD(&s->q[i].qp[side]->stats,
							    off);
	return v;
}

static uint64_t
sum_flt(const struct soak *s, const char *name)
{
	return fault_chain_xstat(s->c.flt[0], name) +
	       fault_chain_xstat(s->c.flt[1], name);
}

static uint64_t
env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtoull(v, NULL, 0) : def;
}

static void
test_soak(void)
{
	static struct soak s;
	struct rte_pmd_fault_params prm;
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	uint64_t mb = env_u64("SOFTERNIC_SOAK_MB", 256);
	uint64_t seed = env_u64("SOFTERNIC_SOAK_SEED", 1);
	uint64_t bytes = mb << 20, clean = RTE_MIN(bytes, 1ULL << 30);
	uint64_t wrs0, b0, icrc, rt0, to0;
	double t_clean, t_bad, r_clean, r_bad;
	unsigned int i, bad_qps = 0;
	int side;

	CU_ASSERT_FATAL(soak_setup(&s, seed) == 0);

	/* the clean reference, through the same (transparent) fault ports */
	t_clean = soak_run(&s, clean);
	CU_ASSERT_FATAL(t_clean > 0);
	CU_ASSERT(s.errors == 0);
	r_clean = (double)s.done_bytes / t_clean;
	wrs0 = s.wrs;
	b0 = s.done_bytes;
	CU_ASSERT(sum_flt(&s, "fault_loss") == 0);
	rt0 = sum_qp(&s, offsetof(struct roce_qp_stats, retrans_pkts));
	to0 = sum_qp(&s, offsetof(struct roce_qp_stats, timeouts));
	memset(&prm, 0, sizeof(prm));
	prm.loss_ppm = 10000;		/* 1 % */
	prm.reorder_ppm = 10000;	/* 1 % */
	prm.reorder_us = 100;
	prm.dup_ppm = 1000;		/* 0.1 % */
	prm.corrupt_ppm = 1000;		/* 0.1 % */
	for (side = 0; side < 2; side++)
		CU_ASSERT_FATAL(rte_pmd_fault_set_params(s.c.flt[side],
							 &prm) == 0);
	t_bad = soak_run(&s, bytes);
	CU_ASSERT(t_bad > 0);
	CU_ASSERT(s.errors == 0);
	r_bad = t_bad > 0 ? (double)(s.done_bytes - b0) / t_bad : 0;

	/* nothing completes twice: the CQs stay empty */
	for (i = 0; i < 2000; i++)
		fault_chain_poll(&s.c);
	for (side = 0; side < 2; side++) {
		struct roce_wc wc;

		CU_ASSERT(roce_poll_cq(s.cq[side], &wc, 1) == 0);
	}
	for (i = 0; i < NQP; i++)
		for (side = 0; side < 2; side++)
			if (roce_query_qp(s.q[i].qp[side], &a, &ia) != 0 ||
			    a.qp_state != ROCE_QPS_RTS)
				bad_qps++;
	CU_ASSERT(bad_qps == 0);
	/* the faults did happen, and corrupted frames were caught */
	icrc = fault_chain_roce_cnt(&s.c, 0, "rx_icrc_err") +
	       fault_chain_roce_cnt(&s.c, 1, "rx_icrc_err");
	CU_ASSERT(sum_flt(&s, "fault_loss") > 0);
	CU_ASSERT(sum_flt(&s, "fault_reorder") > 0);
	CU_ASSERT(sum_flt(&s, "fault_dup") > 0);
	CU_ASSERT(sum_flt(&s, "fault_corrupt") > 0);
	CU_ASSERT(icrc > 0);

	printf("\n"
	       "soak: %u RC QPs (both directions), WRITE/READ/SEND of 1 B..%u KiB, %u outstanding per QP, PMTU %u, seed %" PRIu64 "\n"
	       "  clean link     : %8.1f MiB in %7.2f s = %8.1f MiB/s (%.2f Gb/s), %" PRIu64 " WRs, %" PRIu64 " retransmitted packets, %" PRIu64 " ACK timeouts\n"
	       "  impaired link  : %8.1f MiB in %7.2f s = %8.1f MiB/s (%.2f Gb/s), %" PRIu64 " WRs, %.1f %% of clean\n"
	       "  impairment     : loss 1 %%, reorder 1 %%, dup 0.1 %%, corrupt 0.1 %% per direction\n"
	       "  frames         : %" PRIu64 " received, %" PRIu64 " lost, %" PRIu64 " reordered, %" PRIu64 " duplicated, %" PRIu64 " corrupted\n"
	       "  transport      : %" PRIu64 " ICRC drops, %" PRIu64 " retransmitted packets, %" PRIu64 " ACK timeouts, %" PRIu64 " NAKs received, %" PRIu64 " duplicate requests\n"
	       "  verified       : %" PRIu64 " WRs completed once with success, %" PRIu64 " receives, every byte checked, %u QPs in error\n",
	       NQP, SLOT / 1024, DEPTH, PMTU, seed,
	       (double)b0 / (1 << 20), t_clean, r_clean / (1 << 20),
	       r_clean * 8 / 1e9, wrs0, rt0, to0,
	       (double)(s.done_bytes - b0) / (1 << 20), t_bad,
	       r_bad / (1 << 20), r_bad * 8 / 1e9, s.wrs - wrs0,
	       r_clean > 0 ? 100 * r_bad / r_clean : 0,
	       sum_flt(&s, "rx_frames"), sum_flt(&s, "fault_loss"),
	       sum_flt(&s, "fault_reorder"), sum_flt(&s, "fault_dup"),
	       sum_flt(&s, "fault_corrupt"), icrc,
	       sum_qp(&s, offsetof(struct roce_qp_stats, retrans_pkts)) - rt0,
	       sum_qp(&s, offsetof(struct roce_qp_stats, timeouts)) - to0,
	       sum_qp(&s, offsetof(struct roce_qp_stats, naks_rx)),
	       sum_qp(&s, offsetof(struct roce_qp_stats, dup_requests)),
	       s.wrs, s.recvs, bad_qps);
	fflush(stdout);
	soak_teardown(&s);
}

static CU_TestInfo soak_tests[] = {
	{ "WRITE/READ/SEND over 64 QPs, clean then impaired", test_soak },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "soak", NULL, NULL, NULL, NULL, soak_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 1;
	return test_run(suites);
}
