/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PG332 software flow on lib/roce: what register programming does to
 * the port's RoCE engines (doc/guides/ernic.rst).
 *
 * - PD table entry i -> an MR at the reserved lib/roce key index i with key
 *   byte BUFRKEY (roce_reg_mr_fixed): the R_Key (i << 8 | BUFRKEY) a peer
 *   puts in its RETH is checked by the unchanged lib/roce responder.
 * - PD number -> a lib/roce PD (created on first use) and one local-only
 *   MR over the address space: ERNIC WQEs carry DMA addresses, no L_Key.
 * - QPCONF enable on QP i -> RC QP with QPN i on worker i % workers, its
 *   own send and receive CQs, moved RESET->INIT->RTR->RTS from the QP's
 *   registers; the RQ buffers are posted as receive WRs.
 * - SQPI -> the new 64-byte WQEs become roce_post_send() WRs of the same
 *   SQ (wr_id = SQ index << 32 | opcode << 16 | PG332 wrid).
 * - the owning worker polls the QP's CQs (ernic_regs_worker_poll, called
 *   from the worker loop) and turns them into CQHEAD, CQEs, the CQ and RQ
 *   memory doorbells, STATQP and the error queues.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "roce_driver.h"

/* Outstanding READs per QP, both directions (ERNIC's outstanding queue). */
#define ERNIC_RD_ATOMIC 16

static inline uint32_t
g_get(const struct ernic_regs *rg, uint32_t off)
{
	return __atomic_load_n(&rg->g[off / 4], __ATOMIC_ACQUIRE);
}

static inline void
g_set(struct ernic_regs *rg, uint32_t off, uint32_t v)
{
	__atomic_store_n(&rg->g[off / 4], v, __ATOMIC_RELEASE);
}

static inline void
doorbell(struct ernic_regs *rg, uint64_t addr, uint32_t v)
{
	rg->be->doorbell(rg, addr, v);
}

/* ------------------------------------------------------------------ */
/* PD numbers                                                         */
/* ------------------------------------------------------------------ */

static struct ernic_pd_slot *
pd_get(struct ernic_regs *rg, uint32_t pdnum)
{
	struct ernic_pd_slot *s;

	if (pdnum >= ERNIC_NUM_PD)
		return NULL;
	s = &rg->pds[pdnum];
	if (s->pd == NULL) {
		s->pd = roce_alloc_pd(rg->port->rdev);
		if (s->pd == NULL)
			return NULL;
		/* ERNIC reaches any DMA address: one local MR spans them all */
		s->local_mr = roce_reg_mr(s->pd, (void *)(uintptr_t)1,
					  (size_t)UINTPTR_MAX - 1,
					  ROCE_ACCESS_LOCAL_WRITE);
		if (s->local_mr == NULL) {
			roce_dealloc_pd(s->pd);
			s->pd = NULL;
			return NULL;
		}
	}
	s->users++;
	return s;
}

static void
pd_put(struct ernic_regs *rg, uint32_t pdnum)
{
	struct ernic_pd_slot *s = &rg->pds[pdnum];

	if (s->users == 0 || --s->users > 0)
		return;
	/* the grace period of the caller waits for zero-copy frames */
	roce_dereg_mr_nowait(s->local_mr);
	roce_dealloc_pd(s->pd);
	s->local_mr = NULL;
	s->pd = NULL;
}

/* ------------------------------------------------------------------ */
/* PD table                                                           */
/* ------------------------------------------------------------------ */

static void
pdt_unpublish(struct ernic_regs *rg, struct ernic_pdt_entry *e)
{
	if (e->mr == NULL)
		return;
	roce_dereg_mr_nowait(e->mr);
	pd_put(rg, e->pdnum);
	e->mr = NULL;
}

int
ernic_flow_pdt_update(struct ernic_regs *rg, uint32_t idx)
{
	struct ernic_pdt_entry *e = &rg->pdt[idx];
	struct ernic_pd_slot *s;
	uint64_t va, base, len;
	uint32_t acc, pdnum;
	int access;

	if (!rg->attached)
		return 0;	/* published when the port starts */
	pdt_unpublish(rg, e);
	va = (uint64_t)e->r[ERNIC_VIRTADDRMSB / 4] << 32 |
		e->r[ERNIC_VIRTADDRLSB / 4];
	base = (uint64_t)e->r[ERNIC_BUFBASEADDRMSB / 4] << 32 |
		e->r[ERNIC_BUFBASEADDRLSB / 4];
	acc = e->r[ERNIC_ACCESSDESC / 4];
	len = (uint64_t)(acc >> ERNIC_ACC_LENMSB_SHIFT) << 32 |
		e->r[ERNIC_WRRDBUFLEN / 4];
	/* an entry grants nothing until it has a buffer and a length */
	if (base == 0 || len == 0)
		return 0;
	switch (acc & ERNIC_ACC_MASK) {
	case ERNIC_ACC_READ:
		access = ROCE_ACCESS_REMOTE_READ;
		break;
	case ERNIC_ACC_WRITE:
		access = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_LOCAL_WRITE;
		break;
	case ERNIC_ACC_RDWR:
		access = ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_WRITE |
			ROCE_ACCESS_LOCAL_WRITE;
		break;
	default:
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_PDT_FAIL);
		return 0;
	}
	pdnum = e->r[ERNIC_PDPDNUM / 4] & 0xffffff;
	s = pd_get(rg, pdnum);
	if (s == NULL) {
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_PDT_FAIL);
		return 0;
	}
	e->mr = roce_reg_mr_fixed(s->pd, idx, (uint8_t)e->r[ERNIC_BUFRKEY / 4],
				  (void *)(uintptr_t)base, va, len, access);
	if (e->mr == NULL) {
		pd_put(rg, pdnum);
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_PDT_FAIL);
		return 0;
	}
	e->pdnum = pdnum;
	ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_PDT_PUBLISH);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Error queues                                                       */
/* ------------------------------------------------------------------ */

/* Append an entry to a queue of @p count entries of @p size bytes. */
static void
errq_push(struct ernic_regs *rg, uint32_t ba_lsb, uint32_t ba_msb,
	  uint32_t count, uint32_t size, uint32_t wptr_off,
	  const void *entry, uint32_t len)
{
	uint64_t ba = (uint64_t)g_get(rg, ba_msb) << 32 | g_get(rg, ba_lsb);
	uint32_t w;

	if (ba == 0 || count == 0 || size == 0)
		return;
	w = g_get(rg, wptr_off) % count;
	memset((void *)(uintptr_t)(ba + (uint64_t)w * size), 0, size);
	memcpy((void *)(uintptr_t)(ba + (uint64_t)w * size), entry,
	       RTE_MIN(len, size));
	w = (w + 1) % count;
	g_set(rg, wptr_off, w);
}

/*
 * The NAK syndrome behind @p cause, 0 when none: the error table's, which
 * gives a received NAK's cause (REM_*) the syndrome it was decoded from
 * and a responder's cause the one it sends.
 */
static uint32_t
cause_syndrome(enum roce_err cause)
{
	uint8_t s = roce_err_to_nak(cause);

	return s == ROCE_NAK_NONE ? 0 : s & 0x7f;
}

/*
 * QP @p q went fatal: STATQP, the incoming packet error status queue
 * entry ([15:0] code, [31:16] QPN), a record in the response error buffer
 * (send side) or the error buffer (receive side), INTSTS[7]. Any thread:
 * the error queues have their own lock, never held across other locks.
 */
static void
qp_go_fatal(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t code,
	    uint32_t syndrome, bool send_side)
{
	uint32_t ent[2], rec[4];

	if (__atomic_exchange_n(&q->fatal, true, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&q->nak_syndrome, syndrome, __ATOMIC_RELEASE);
	ent[0] = (code & 0xffff) | q->qpn << 16;
	ent[1] = 0;
	rec[0] = q->qpn;
	rec[1] = code;
	rec[2] = syndrome;
	rec[3] = __atomic_load_n(&q->cq_head, __ATOMIC_RELAXED);
	rte_spinlock_lock(&rg->errq_lock);
	errq_push(rg, ERNIC_IPKTERRQBA, ERNIC_IPKTERRQBAMSB,
		  g_get(rg, ERNIC_IPKTERRQSZ) & 0xffff, ERNIC_IPKTERR_ENTRY,
		  ERNIC_IPKTERRQWPTR, ent, sizeof(ent));
	if (send_side)
		errq_push(rg, ERNIC_RESPERRPKTBA, ERNIC_RESPERRPKTBAMSB,
			  g_get(rg, ERNIC_RESPERRSZ) & 0xffff,
			  g_get(rg, ERNIC_RESPERRSZ) >> 16,
			  ERNIC_RESPERRBUFWRPTR, rec, sizeof(rec));
	else
		errq_push(rg, ERNIC_ERRBUFBA, ERNIC_ERRBUFBAMSB,
			  g_get(rg, ERNIC_ERRBUFSZ) & 0xffff,
			  g_get(rg, ERNIC_ERRBUFSZ) >> 16,
			  ERNIC_ERRBUFWPTR, rec, sizeof(rec));
	rte_spinlock_unlock(&rg->errq_lock);
	ernic_regs_int(rg, ERNIC_INT_FATAL);
	ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_QP_FATAL);
}

/* ------------------------------------------------------------------ */
/* WQEs and RQ buffers                                                */
/* ------------------------------------------------------------------ */

/* GSI Q_Key (IBTA 13.4.6.1): what QP1 sends with and accepts. */
#define ERNIC_GSI_QKEY 0x80010000u

static int qp_av(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t conf,
		 struct roce_ah_attr *ah);

int
ernic_flow_post_wqe(struct ernic_reg_qp *q, const uint8_t *wqe, uint32_t idx)
{
	struct rte_pmd_ernic_wqe w;
	struct roce_send_wr wr;
	struct roce_ah_attr ah;
	struct roce_sge sge;
	unsigned int posted;
	int ret;

	memcpy(&w, wqe, sizeof(w));
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)idx << 32 | (uint64_t)w.opcode << 16 | w.wrid;
	/* ERNIC completes every WQE (CQHEAD counts them all) */
	wr.send_flags = ROCE_SEND_SIGNALED;
	sge.addr = w.laddr;
	sge.length = w.length;
	sge.lkey = q->lkey;
	/* a single SGE: ERNIC's limit */
	wr.sg_list = &sge;
	wr.num_sge = w.length != 0 ? 1 : 0;
	switch (w.opcode) {
	case RTE_PMD_ERNIC_OP_WRITE:
		wr.opcode = ROCE_WR_RDMA_WRITE;
		break;
	case RTE_PMD_ERNIC_OP_WRITE_IMM:
		wr.opcode = ROCE_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = rte_cpu_to_be_32(w.imm);
		break;
	case RTE_PMD_ERNIC_OP_SEND:
		wr.opcode = ROCE_WR_SEND;
		break;
	case RTE_PMD_ERNIC_OP_SEND_IMM:
		wr.opcode = ROCE_WR_SEND_WITH_IMM;
		wr.imm_data = rte_cpu_to_be_32(w.imm);
		break;
	case RTE_PMD_ERNIC_OP_READ:
		wr.opcode = ROCE_WR_RDMA_READ;
		break;
	case RTE_PMD_ERNIC_OP_SEND_INV:
		wr.opcode = ROCE_WR_SEND_WITH_INV;
		wr.invalidate_rkey = w.imm;
		break;
	default:
		/* no atomics, no local invalidate or bind on ERNIC */
		return -ENOTSUP;
	}
	if (q->qpn == 1) {
		/*
		 * QP1 (qp1=regs) is UD/GSI: SENDs only, to the destination
		 * in its path registers at the time of the doorbell
		 * (MACDESADD, IPDESADDR, DESTQPCONF, default QP1).
		 */
		if (wr.opcode != ROCE_WR_SEND && wr.opcode != ROCE_WR_SEND_WITH_IMM)
			return -ENOTSUP;
		ret = qp_av(q->regs, q, ernic_rq_get(q, ERNIC_QPCONF), &ah);
		if (ret != 0)
			return ret;
		wr.ud.ah = &ah;
		wr.ud.remote_qpn = ernic_rq_get(q, ERNIC_DESTQPCONF) & 0xffffff;
		if (wr.ud.remote_qpn == 0)
			wr.ud.remote_qpn = 1;
		wr.ud.remote_qkey = ERNIC_GSI_QKEY;
	}
	if (wr.opcode == ROCE_WR_RDMA_WRITE ||
	    wr.opcode == ROCE_WR_RDMA_WRITE_WITH_IMM ||
	    wr.opcode == ROCE_WR_RDMA_READ) {
		wr.rdma.remote_addr = w.raddr;
		wr.rdma.rkey = w.rkey;
	}
	ret = roce_post_send(q->qp, &wr, 1, &posted);
	if (ret == 0)
		ernic_regs_count(q->regs, RTE_PMD_ERNIC_RCNT_WQE_POSTED);
	return ret;
}

int
ernic_flow_post_rqbuf(struct ernic_reg_qp *q, uint32_t idx)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;
	unsigned int posted;

	sge.addr = q->rqba + (uint64_t)idx * q->rq_bufsz;
	sge.length = q->rq_bufsz - RTE_PMD_ERNIC_RQ_DESC_LEN;
	sge.lkey = q->lkey;
	wr.wr_id = idx;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return roce_post_recv(q->qp, &wr, 1, &posted);
}

/* Post RQ buffers until depth - 1 wait beyond RQCI (control or HS worker). */
static int
rq_refill(struct ernic_reg_qp *q)
{
	uint32_t stop = (q->rq_ci + q->rq_depth - 1) % q->rq_depth;
	int ret;

	while (q->rq_post != stop) {
		ret = ernic_flow_post_rqbuf(q, q->rq_post);
		if (ret != 0)
			return ret;
		q->rq_post = (q->rq_post + 1) % q->rq_depth;
	}
	return 0;
}

/*
 * An illegal (or unpostable) WQE at SQ index @p idx: INTSTS[5] for an
 * illegal opcode, the QP goes fatal (moved to the error state, which
 * flushes what lib/roce holds), and this WQE and every later one complete
 * in error, in order, once the earlier ones have completed.
 */
void
ernic_flow_wqe_illegal(struct ernic_reg_qp *q, uint32_t idx, uint8_t opcode,
		       int why)
{
	struct ernic_regs *rg = q->regs;
	struct roce_qp_attr a;

	__atomic_store_n(&q->err_from, idx, __ATOMIC_RELAXED);
	__atomic_store_n(&q->illegal, true, __ATOMIC_RELEASE);
	if (why == -ENOTSUP) {
		ernic_regs_int(rg, ERNIC_INT_ILLEGAL_OPCODE);
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_ILLEGAL_WQE);
		qp_go_fatal(rg, q, RTE_PMD_ERNIC_ERR_ILLEGAL_OPCODE | opcode, 0,
			    true);
	} else {
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_WQE_LOCAL_ERR);
		qp_go_fatal(rg, q, ROCE_ERR_LOC_QP_OP, 0, true);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_ERR;
	roce_modify_qp(q->qp, &a, ROCE_QP_STATE);
}

/* SQPI rung (window lock held): hand the new WQEs to lib/roce. */
static int
sqpi_write(struct ernic_reg_qp *q, uint32_t val, bool override)
{
	const uint8_t *wqe;
	int ret;

	if (override || q->mode == ERNIC_QP_OFF) {
		/* SW override (recovery, deletion): the index only */
		if (q->mode == ERNIC_QP_OFF && !override)
			ernic_regs_count(q->regs, RTE_PMD_ERNIC_RCNT_DB_FATAL);
		if (q->mode != ERNIC_QP_OFF && q->sq_depth != 0)
			val %= q->sq_depth;
		__atomic_store_n(&q->sq_pi, val, __ATOMIC_RELEASE);
		q->sq_next = val;
		return 0;
	}
	if (q->mode == ERNIC_QP_HS)
		return -EPERM;	/* the handshake port owns the SQ */
	if (val >= q->sq_depth)
		return -EINVAL;
	__atomic_store_n(&q->sq_pi, val, __ATOMIC_RELEASE);
	if (__atomic_load_n(&q->illegal, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
		ernic_regs_count(q->regs, RTE_PMD_ERNIC_RCNT_DB_FATAL);
	if (__atomic_load_n(&q->illegal, __ATOMIC_ACQUIRE))
		return 0;	/* completed in error by the worker */
	while (q->sq_next != val) {
		wqe = (const uint8_t *)(uintptr_t)(q->sqba +
			(uint64_t)q->sq_next * ERNIC_WQE_SIZE);
		ret = ernic_flow_post_wqe(q, wqe, q->sq_next);
		if (ret != 0) {
			ernic_flow_wqe_illegal(q, q->sq_next, wqe[16], ret);
			break;
		}
		q->sq_next = (q->sq_next + 1) % q->sq_depth;
	}
	return 0;
}

/* RQCI written (window lock held): RQ buffers returned. */
static int
rqci_write(struct ernic_reg_qp *q, uint32_t val, bool override)
{
	uint32_t wptr, avail, ret_n;

	if (override || q->mode == ERNIC_QP_OFF) {
		if (q->mode != ERNIC_QP_OFF && q->rq_depth != 0)
			val %= q->rq_depth;
		q->rq_ci = val;
		return 0;
	}
	if (q->mode == ERNIC_QP_HS)
		return -EPERM;
	if (val >= q->rq_depth)
		return -EINVAL;
	/* no more than the buffers filled since the last RQCI */
	wptr = __atomic_load_n(&q->rq_wptr, __ATOMIC_ACQUIRE);
	avail = (wptr + q->rq_depth - q->rq_ci) % q->rq_depth;
	ret_n = (val + q->rq_depth - q->rq_ci) % q->rq_depth;
	if (ret_n > avail)
		return -EINVAL;
	q->rq_ci = val;
	if (__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
		return 0;
	return rq_refill(q);
}

/* ------------------------------------------------------------------ */
/* QP enable / disable                                                */
/* ------------------------------------------------------------------ */

struct wl_arg {
	struct ernic_regs *rg;
	struct ernic_reg_qp *q;
	bool add;
	uint8_t mode;
};

/* On the owner worker: join or leave its list, or change mode. */
static int
wl_exec(void *arg)
{
	struct wl_arg *a = arg;
	struct ernic_reg_qp **pp;

	if (a->add && !a->q->on_worker) {
		a->q->wnext = a->rg->wlist[a->q->widx];
		a->rg->wlist[a->q->widx] = a->q;
		a->q->on_worker = true;
	} else if (!a->add && a->q->on_worker) {
		for (pp = &a->rg->wlist[a->q->widx]; *pp != NULL;
		     pp = &(*pp)->wnext)
			if (*pp == a->q) {
				*pp = a->q->wnext;
				break;
			}
		a->q->on_worker = false;
	}
	if (a->mode == ERNIC_QP_HS) {
		/* the handshake restarts the SQ indexes at zero (PG332) */
		a->q->sq_next = 0;
		a->q->cq_head = 0;
		a->q->hs_rq_seen = 0;
	}
	__atomic_store_n(&a->q->mode, a->mode, __ATOMIC_RELEASE);
	return 0;
}

static int
wl_set(struct ernic_regs *rg, struct ernic_reg_qp *q, bool add, uint8_t mode)
{
	struct wl_arg a = { .rg = rg, .q = q, .add = add, .mode = mode };

	return roce_worker_exec(rg->port->w[q->widx].rw, wl_exec, &a);
}

/* GID index whose address is the QP's local IPv4 or IPv6 address. */
static int
qp_sgid_index(struct ernic_regs *rg, bool ipv6)
{
	const struct ernic_port *p = rg->port;
	union roce_gid g;
	unsigned int i, k;

	memset(&g, 0, sizeof(g));
	if (ipv6) {
		for (k = 0; k < 4; k++)
			g.w[3 - k] = rte_cpu_to_be_32(g_get(rg,
						ERNIC_IPV6XADD1 + 4 * k));
	} else {
		g.raw[10] = 0xff;
		g.raw[11] = 0xff;
		g.w[3] = rte_cpu_to_be_32(g_get(rg, ERNIC_IPV4XADD));
	}
	for (i = 0; i < p->nb_gid; i++)
		if (memcmp(p->gid[i].raw, g.raw, 16) == 0)
			return (int)i;
	return -EADDRNOTAVAIL;
}

/* The path of QP @p q from its registers. */
static int
qp_av(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t conf,
      struct roce_ah_attr *ah)
{
	uint32_t lsb = ernic_rq_get(q, ERNIC_MACDESADDLSB);
	uint32_t msb = ernic_rq_get(q, ERNIC_MACDESADDMSB);
	uint32_t adv = ernic_rq_get(q, ERNIC_QPADVCONF);
	bool ipv6 = (conf & ERNIC_QPCONF_IPV6) != 0;
	unsigned int k;
	int sgid;

	memset(ah, 0, sizeof(*ah));
	if (ipv6) {
		for (k = 0; k < 4; k++)
			ah->dgid.w[3 - k] = rte_cpu_to_be_32(
				ernic_rq_get(q, ERNIC_IPDESADDR1 + 4 * k));
	} else {
		ah->dgid.raw[10] = 0xff;
		ah->dgid.raw[11] = 0xff;
		ah->dgid.w[3] = rte_cpu_to_be_32(ernic_rq_get(q,
							      ERNIC_IPDESADDR1));
	}
	ah->dmac[0] = (uint8_t)(msb >> 8);
	ah->dmac[1] = (uint8_t)msb;
	ah->dmac[2] = (uint8_t)(lsb >> 24);
	ah->dmac[3] = (uint8_t)(lsb >> 16);
	ah->dmac[4] = (uint8_t)(lsb >> 8);
	ah->dmac[5] = (uint8_t)lsb;
	sgid = qp_sgid_index(rg, ipv6);
	if (sgid < 0) {
		ERNIC_LOG(ERR, "port %u: QP %u: the %s address of the global block is none of the port's GIDs",
			  rg->port->port_id, q->qpn, ipv6 ? "IPv6" : "IPv4");
		return sgid;
	}
	ah->sgid_index = (uint8_t)sgid;
	ah->traffic_class = (uint8_t)((adv & ERNIC_QPADV_TC_MASK) << 2);
	ah->hop_limit = (uint8_t)(adv >> ERNIC_QPADV_TTL_SHIFT);
	if (ah->hop_limit == 0)
		ah->hop_limit = 64;
	ah->port_num = 1;
	return 0;
}

/* QP1 (UD/GSI): RESET -> INIT (GSI Q_Key) -> RQ buffers -> RTR -> RTS. */
static int
qp1_bring_up(struct ernic_reg_qp *q)
{
	struct roce_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = ERNIC_GSI_QKEY;
	ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_PORT | ROCE_QP_QKEY);
	if (ret != 0)
		return ret;
	ret = rq_refill(q);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = ernic_rq_get(q, ERNIC_SQPSN) & 0xffffff;
	return roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
}

static int
gsi_off_exec(void *arg)
{
	roce_worker_set_gsi_handler(arg, NULL, NULL);
	return 0;
}

/* RESET -> INIT -> (RQ buffers) -> RTR -> RTS from the registers. */
static int
qp_bring_up(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t conf)
{
	uint32_t to = ernic_rq_get(q, ERNIC_TIMEOUTCONF);
	struct roce_qp_attr a;
	int ret;

	if (q->qpn == 1)
		return qp1_bring_up(q);

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_WRITE;
	ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
	if (ret != 0)
		return ret;
	ret = rq_refill(q);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	ret = qp_av(rg, q, conf, &a.ah_attr);
	if (ret != 0)
		return ret;
	a.path_mtu = (enum roce_mtu)(((conf & ERNIC_QPCONF_PMTU_MASK) >>
				      ERNIC_QPCONF_PMTU_SHIFT) + ROCE_MTU_256);
	a.dest_qp_num = ernic_rq_get(q, ERNIC_DESTQPCONF) & 0xffffff;
	/* LSTRQREQ holds the last request PSN received: expect the next */
	a.rq_psn = (ernic_rq_get(q, ERNIC_LSTRQREQ) + 1) & 0xffffff;
	a.max_dest_rd_atomic = ERNIC_RD_ATOMIC;
	a.min_rnr_timer = (uint8_t)((to >> ERNIC_TO_RNR_TIMER_SHIFT) & 0x1f);
	ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_AV |
			     ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = ernic_rq_get(q, ERNIC_SQPSN) & 0xffffff;
	a.timeout = (uint8_t)(to & ERNIC_TO_TIMEOUT_MASK);
	a.retry_cnt = (uint8_t)((to >> ERNIC_TO_RETRY_SHIFT) & 7);
	a.rnr_retry = (uint8_t)((to >> ERNIC_TO_RNR_RETRY_SHIFT) & 7);
	a.max_rd_atomic = ERNIC_RD_ATOMIC;
	return roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			      ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

/* One counter of @p qp (a relaxed load: the worker writes them). */
#define QP_STAT(qp, f) roce_qp_stat(qp, offsetof(struct roce_qp_stats, f))

/* Counter contributions of a QP (global counters are sums over QPs). */
static uint64_t
qp_cnt(const struct roce_qp *qp, uint32_t off)
{
	switch (off) {
	case ERNIC_INSRRPKTCNT:
		return QP_STAT(qp, rx_pkts) - QP_STAT(qp, acks_rx) -
			QP_STAT(qp, naks_rx);
	case ERNIC_INAMPKTCNT:
		return QP_STAT(qp, acks_rx) + QP_STAT(qp, naks_rx);
	case ERNIC_OUTIOPKTCNT:
		return QP_STAT(qp, tx_pkts) - QP_STAT(qp, acks_tx) -
			QP_STAT(qp, naks_tx);
	case ERNIC_OUTAMPKTCNT:
		return QP_STAT(qp, acks_tx) + QP_STAT(qp, naks_tx);
	case ERNIC_ININVDUPCNT:
		return QP_STAT(qp, dup_requests) + QP_STAT(qp, out_of_seq);
	case ERNIC_INALLDRPPKTCNT:
		return QP_STAT(qp, rx_drops);
	case ERNIC_INNAKPKTCNT:
		return QP_STAT(qp, naks_rx);
	case ERNIC_OUTNAKPKTCNT:
		return QP_STAT(qp, naks_tx);
	case ERNIC_RETRYCNTSTS:
		return QP_STAT(qp, retrans_pkts);
	default:
		return 0;
	}
}

static void
qp_teardown(struct ernic_regs *rg, struct ernic_reg_qp *q)
{
	uint32_t off;

	if (q->qp != NULL) {
		for (off = ERNIC_INSRRPKTCNT; off <= ERNIC_OUTRDRSPPKTCNT;
		     off += 4)
			rg->cnt_base[off / 4] += qp_cnt(q->qp, off);
		roce_destroy_qp(q->qp);
	}
	if (q->scq != NULL)
		roce_destroy_cq(q->scq);
	if (q->rcq != NULL)
		roce_destroy_cq(q->rcq);
	if (q->pd != NULL)
		pd_put(rg, q->pdnum);
	ernic_hs_destroy(q);
	q->qp = NULL;
	q->scq = NULL;
	q->rcq = NULL;
	q->pd = NULL;
}

static int
hs_enable(struct ernic_regs *rg, struct ernic_reg_qp *q)
{
	int ret;

	/* STATRQPIDB[15:0]: RQ buffers the handshake application inherits */
	ret = ernic_hs_create(q, ernic_rq_get(q, ERNIC_STATRQPIDB) & 0xffff);
	if (ret != 0)
		return ret;
	return wl_set(rg, q, true, ERNIC_QP_HS);
}

static int
qp_enable(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t conf)
{
	struct ernic_port *p = rg->port;
	struct roce_qp_init_attr ia;
	struct ernic_pd_slot *s;
	uint32_t xconf = g_get(rg, ERNIC_XRNICCONF), numqp, qd;
	struct roce_worker *rw;
	int ret;

	if (!rg->attached || !p->started ||
	    !(xconf & ERNIC_CONF_EN))
		return -EAGAIN;
	numqp = (xconf & ERNIC_CONF_NUMQP_MASK) >> ERNIC_CONF_NUMQP_SHIFT;
	if (numqp != 0 && q->qpn > numqp)
		return -EINVAL;
	if (conf & ERNIC_QPCONF_RECOVERY)
		return 0;	/* stays disabled until recovery is cleared */
	qd = ernic_rq_get(q, ERNIC_QDEPTH);
	q->sq_depth = qd & 0xffff;
	q->rq_depth = qd >> 16;
	q->rq_bufsz = (conf >> ERNIC_QPCONF_RQBUF_SHIFT) * 256;
	q->sqba = ernic_rq_get64(q, ERNIC_SQBA, ERNIC_SQBAMSB);
	q->rqba = ernic_rq_get64(q, ERNIC_RQBA, ERNIC_RQBAMSB);
	q->cqba = ernic_rq_get64(q, ERNIC_CQBA, ERNIC_CQBAMSB);
	q->cqdb = ernic_rq_get64(q, ERNIC_CQDBADD, ERNIC_CQDBADDMSB);
	q->rqdb = ernic_rq_get64(q, ERNIC_RQWPTRDBADD, ERNIC_RQWPTRDBADDMSB);
	if (q->sq_depth < 2 || q->rq_depth < 2 ||
	    q->sq_depth > ROCE_MAX_QP_WR || q->rq_depth > ROCE_MAX_QP_WR ||
	    q->sqba == 0 || q->rqba == 0 ||
	    q->rq_bufsz <= RTE_PMD_ERNIC_RQ_DESC_LEN ||
	    ((conf & ERNIC_QPCONF_PMTU_MASK) >> ERNIC_QPCONF_PMTU_SHIFT) > 4 ||
	    ((conf & ERNIC_QPCONF_CQE_WRITE) && q->cqba == 0)) {
		ERNIC_LOG(ERR, "port %u: QP %u: bad queue programming (QDEPTH %#x, SQBA/RQBA/CQBA, QPCONF %#x)",
			  p->port_id, q->qpn, qd, conf);
		return -EINVAL;
	}
	if (q->qpn == 1 && !p->args.qp1_regs) {
		/* qp1=cm: QP1's MADs belong to the control core (doc/ernic.rst) */
		return 0;
	}
	if (q->qpn == 1) {
		unsigned int i;

		/* qp1=regs: no worker hands QP1 frames to a handler; the
		 * QPN table then gives them to this UD QP (roce_worker.c)
		 */
		for (i = 0; i < p->nb_workers; i++)
			roce_worker_exec(p->w[i].rw, gsi_off_exec, p->w[i].rw);
	}
	q->pdnum = ernic_rq_get(q, ERNIC_PDNUM) & 0xffffff;
	s = pd_get(rg, q->pdnum);
	if (s == NULL)
		return -ENOMEM;
	q->pd = s->pd;
	q->lkey = roce_mr_lkey(s->local_mr);
	q->widx = (uint16_t)(q->qpn % p->nb_workers);
	rw = p->w[q->widx].rw;
	q->scq = roce_create_cq(rw, q->sq_depth);
	q->rcq = roce_create_cq(rw, q->rq_depth);
	if (q->scq == NULL || q->rcq == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = q->qpn == 1 ? ROCE_QPT_UD : ROCE_QPT_RC;
	ia.send_cq = q->scq;
	ia.recv_cq = q->rcq;
	ia.cap.max_send_wr = q->sq_depth;
	ia.cap.max_recv_wr = q->rq_depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = true;
	ia.qp_context = q;
	q->qp = roce_create_qp(q->pd, &ia);
	if (q->qp == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	q->ce_seen = 0;
	/* the register block's QPN (on the worker: roce_qp_renumber()) */
	ret = roce_qp_renumber(q->qp, q->qpn);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: QPN %u is taken by a verbs QP",
			  p->port_id, q->qpn);
		goto fail;
	}
	q->sq_pi = ernic_rq_get(q, ERNIC_SQPI) % q->sq_depth;
	q->sq_next = q->sq_pi;
	q->cq_head = q->sq_pi;
	ernic_rq_set(q, ERNIC_CQHEAD, q->cq_head);
	q->rq_ci = ernic_rq_get(q, ERNIC_RQCI) % q->rq_depth;
	q->rq_post = q->rq_ci;
	q->rq_wptr = q->rq_ci;
	q->fatal = false;
	q->illegal = false;
	q->local_err = false;
	q->nak_syndrome = 0;
	ret = qp_bring_up(rg, q, conf);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: QP %u: RESET->RTS from the registers failed: %s",
			  p->port_id, q->qpn, rte_strerror(-ret));
		goto fail;
	}
	if (!(conf & ERNIC_QPCONF_HS_DIS))
		ret = hs_enable(rg, q);
	else
		ret = wl_set(rg, q, true, ERNIC_QP_REGS);
	if (ret != 0)
		goto fail;
	return 0;
fail:
	qp_teardown(rg, q);
	return ret;
}

static void
qp_disable(struct ernic_regs *rg, struct ernic_reg_qp *q)
{
	if (q->on_worker)
		wl_set(rg, q, false, ERNIC_QP_OFF);
	__atomic_store_n(&q->mode, ERNIC_QP_OFF, __ATOMIC_RELEASE);
	qp_teardown(rg, q);
}

static int
qpconf_write(struct ernic_regs *rg, struct ernic_reg_qp *q, uint32_t old,
	     uint32_t val)
{
	int ret;

	if (!(val & ERNIC_QPCONF_EN)) {
		if (q->mode != ERNIC_QP_OFF)
			qp_disable(rg, q);
		return 0;
	}
	if (q->mode == ERNIC_QP_OFF) {
		/* enable, or leave recovery with the enable bit kept */
		if (!(old & ERNIC_QPCONF_EN) ||
		    ((old & ERNIC_QPCONF_RECOVERY) &&
		     !(val & ERNIC_QPCONF_RECOVERY)))
			return qp_enable(rg, q, val);
		return 0;
	}
	/* enabled: handshake mode switches; the rest is read at enable */
	if ((old & ERNIC_QPCONF_HS_DIS) && !(val & ERNIC_QPCONF_HS_DIS) &&
	    q->mode == ERNIC_QP_REGS)
		return hs_enable(rg, q);
	if (!(old & ERNIC_QPCONF_HS_DIS) && (val & ERNIC_QPCONF_HS_DIS) &&
	    q->mode == ERNIC_QP_HS) {
		ret = wl_set(rg, q, true, ERNIC_QP_REGS);
		if (ret == 0)
			ernic_hs_destroy(q);
		return ret;
	}
	return 0;
}

int
ernic_flow_qp_write(struct ernic_regs *rg, struct ernic_reg_qp *q,
		    uint32_t off, uint32_t old, uint32_t val, bool override)
{
	switch (off) {
	case ERNIC_QPCONF:
		return qpconf_write(rg, q, old, val);
	case ERNIC_SQPI:
		return sqpi_write(q, val, override);
	case ERNIC_RQCI:
		return rqci_write(q, val, override);
	case ERNIC_CQHEAD:
		/* SW override (recovery, deletion, handshake enable) */
		if (q->mode == ERNIC_QP_OFF || q->sq_depth == 0)
			return 0;
		__atomic_store_n(&q->cq_head, val % q->sq_depth,
				 __ATOMIC_RELEASE);
		return 0;
	case ERNIC_STATCURSQPTR:
		if (q->mode != ERNIC_QP_OFF && q->sq_depth != 0)
			q->sq_next = val % q->sq_depth;
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Live registers                                                     */
/* ------------------------------------------------------------------ */

uint32_t
ernic_flow_qp_read(struct ernic_regs *rg __rte_unused, struct ernic_reg_qp *q,
		   uint32_t off)
{
	const struct roce_qp *qp = q->qp;
	struct roce_qp_snapshot snap;
	uint32_t v, cqh, pi;

	if (qp == NULL || q->mode == ERNIC_QP_OFF) {
		v = ernic_rq_get(q, off);
		if (off == ERNIC_STATQP) {
			v |= ERNIC_STATQP_SQ_EMPTY | ERNIC_STATQP_OSQ_EMPTY;
			if (__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
				v |= ERNIC_STATQP_FATAL;
		}
		return v;
	}
	/* a register read runs on any thread: the snapshot's racy view */
	switch (off) {
	case ERNIC_STATSSN:
		roce_qp_snapshot(qp, &snap);
		return snap.next_psn;
	case ERNIC_STATMSN:
		roce_qp_snapshot(qp, &snap);
		return snap.msn;
	case ERNIC_STATRESPSN:
		roce_qp_snapshot(qp, &snap);
		return snap.epsn;
	case ERNIC_STATCURSQPTR:
		return q->sq_next;
	case ERNIC_STATQP:
		break;
	default:
		return ernic_rq_get(q, off);
	}
	v = 0;
	if (__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE))
		v |= ERNIC_STATQP_FATAL;
	roce_qp_snapshot(qp, &snap);
	/* send queue empty: the requester started every WQE */
	if (snap.sq_started == snap.sq_prod || snap.sq_cons == snap.sq_prod)
		v |= ERNIC_STATQP_SQ_EMPTY;
	/* outstanding queue empty: every started WQE completed */
	if (snap.sq_cons == snap.sq_prod)
		v |= ERNIC_STATQP_OSQ_EMPTY;
	cqh = __atomic_load_n(&q->cq_head, __ATOMIC_ACQUIRE);
	pi = __atomic_load_n(&q->sq_pi, __ATOMIC_ACQUIRE);
	if ((pi + 1) % q->sq_depth == cqh)
		v |= ERNIC_STATQP_SQ_FULL;
	if (snap.rd_atomic_inflight >= ERNIC_RD_ATOMIC)
		v |= ERNIC_STATQP_OSQ_FULL;
	if (QP_STAT(qp, retrans_pkts) != 0)
		v |= ERNIC_STATQP_RETRIED;
	v |= (__atomic_load_n(&q->nak_syndrome, __ATOMIC_ACQUIRE) <<
	      ERNIC_STATQP_NAK_SHIFT) & ERNIC_STATQP_NAK_MASK;
	v |= (uint32_t)RTE_MIN(QP_STAT(qp, timeouts), 7u) <<
		ERNIC_STATQP_RETRY_SHIFT;
	v |= (uint32_t)RTE_MIN(QP_STAT(qp, rnr_naks_rx), 7u) <<
		ERNIC_STATQP_RNR_SHIFT;
	return v;
}

uint32_t
ernic_flow_counter(struct ernic_regs *rg, uint32_t off)
{
	const struct ernic_port *p = rg->port;
	struct ernic_reg_qp *q;
	uint64_t v = rg->cnt_base[off / 4];
	uint32_t i;
	uint16_t k;

	if (off == ERNIC_RESPHNDSTS) {
		/* every enabled QP's doorbells are consumed (CQHEAD == SQPI) */
		for (i = 0; i < rg->nb_qp; i++) {
			q = &rg->qps[i];
			/* handshake QPs have no register doorbells */
			if (q->mode == ERNIC_QP_REGS &&
			    __atomic_load_n(&q->cq_head, __ATOMIC_ACQUIRE) !=
			    __atomic_load_n(&q->sq_pi, __ATOMIC_ACQUIRE))
				return 0;
		}
		return ERNIC_RESPHND_SQ_PICI_DB_CHECK_EN;
	}
	for (i = 0; i < rg->nb_qp; i++)
		if (rg->qps[i].qp != NULL)
			v += qp_cnt(rg->qps[i].qp, off);
	for (k = 0; p->w != NULL && k < p->nb_workers; k++) {
		const struct roce_worker *w = p->w[k].rw;

		if (w == NULL)
			continue;
		switch (off) {
		case ERNIC_INAMPKTCNT:
			v += roce_worker_counter(w, ROCE_WCNT_RX_GSI);
			break;
		case ERNIC_INALLDRPPKTCNT:
			v += roce_worker_counter(w, ROCE_WCNT_RX_PKTS) -
				roce_worker_counter(w, ROCE_WCNT_RX_ACCEPTED);
			break;
		case ERNIC_INCNPPKTCNT:
			v += roce_worker_counter(w, ROCE_WCNT_RX_CNP);
			break;
		case ERNIC_OUTCNPPKTCNT:
			v += roce_worker_counter(w, ROCE_WCNT_TX_CNP);
			break;
		case ERNIC_OUTRDRSPPKTCNT:
			v += roce_worker_counter(w, ROCE_WCNT_RESP_READ_PKTS);
			break;
		default:
			break;
		}
	}
	return (uint32_t)v;
}

void
ernic_flow_conf(struct ernic_regs *rg)
{
	struct roce_device *dev = rg->port->rdev;
	uint32_t xconf = g_get(rg, ERNIC_XRNICCONF);
	uint32_t numqp = (xconf & ERNIC_CONF_NUMQP_MASK) >>
		ERNIC_CONF_NUMQP_SHIFT;

	if (dev == NULL || !(xconf & ERNIC_CONF_EN))
		return;
	if (numqp == 0)
		numqp = rg->nb_qp;
	/* verbs QPs get numbers above the register QPs from now on; a
	 * NUMQP that leaves none for them reserves nothing
	 */
	roce_qpn_reserve(dev, numqp);
}

/* ------------------------------------------------------------------ */
/* Attach / detach                                                    */
/* ------------------------------------------------------------------ */

int
ernic_regs_attach(struct ernic_port *p)
{
	struct ernic_regs *rg = p->regs;
	uint32_t i;
	int ret;

	if (rg == NULL || rg->attached)
		return 0;
	ret = roce_key_reserve_fixed(p->rdev, ERNIC_PDT_ENTRIES);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: cannot reserve %u keys for the PD table: %s",
			  p->port_id, ERNIC_PDT_ENTRIES, rte_strerror(-ret));
		return ret;
	}
	rte_spinlock_lock(&rg->lock);
	rg->attached = true;
	for (i = 0; i < ERNIC_PDT_ENTRIES; i++)
		ernic_flow_pdt_update(rg, i);
	ernic_flow_conf(rg);
	rte_spinlock_unlock(&rg->lock);
	return 0;
}

void
ernic_regs_detach(struct ernic_regs *rg)
{
	uint32_t i;

	if (rg == NULL || !rg->attached)
		return;
	rte_spinlock_lock(&rg->lock);
	for (i = 0; i < rg->nb_qp; i++)
		if (rg->qps[i].mode != ERNIC_QP_OFF)
			qp_disable(rg, &rg->qps[i]);
	for (i = 0; i < ERNIC_PDT_ENTRIES; i++)
		pdt_unpublish(rg, &rg->pdt[i]);
	rg->attached = false;
	rte_spinlock_unlock(&rg->lock);
}

/* ------------------------------------------------------------------ */
/* Worker side                                                        */
/* ------------------------------------------------------------------ */

/* Send completions -> CQHEAD, CQEs, CQ doorbell (or handshake words). */
static void
poll_send(struct ernic_regs *rg, struct ernic_reg_qp *q, bool hs)
{
	struct roce_wc wc[32];
	uint32_t cqe, idx, head = q->cq_head;
	int n, i;

	n = roce_poll_cq(q->scq, wc, RTE_DIM(wc));
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		uint16_t wrid = (uint16_t)wc[i].wr_id;
		uint8_t op = (uint8_t)(wc[i].wr_id >> 16);
		uint8_t st = (uint8_t)wc[i].status;

		idx = (uint32_t)(wc[i].wr_id >> 32);
		if (idx != head)
			ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_CQE_ORDER);
		if (hs)
			ernic_hs_complete(q, wrid, op, st);
		if ((ernic_rq_get(q, ERNIC_QPCONF) & ERNIC_QPCONF_CQE_WRITE) &&
		    q->cqba != 0) {
			cqe = wrid | (uint32_t)op << 16 | (uint32_t)st << 24;
			*(volatile uint32_t *)(uintptr_t)(q->cqba +
				(uint64_t)head * ERNIC_CQE_SIZE) = cqe;
		}
		head = (head + 1) % q->sq_depth;
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_CQE);
		if (wc[i].status != ROCE_WC_SUCCESS &&
		    wc[i].status != ROCE_WC_WR_FLUSH_ERR)
			qp_go_fatal(rg, q, wc[i].vendor_err,
				    cause_syndrome(wc[i].vendor_err), true);
	}
	__atomic_store_n(&q->cq_head, head, __ATOMIC_RELEASE);
	ernic_rq_set(q, ERNIC_CQHEAD, head);
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	doorbell(rg, q->cqdb, head);
	ernic_regs_int(rg, ERNIC_INT_WQE_COMPLETION);
}

/* Receive completions -> RQ descriptors, write pointer, RQ doorbell. */
static void
poll_recv(struct ernic_regs *rg, struct ernic_reg_qp *q, bool hs)
{
	struct rte_pmd_ernic_rq_desc d;
	struct roce_wc wc[32];
	uint64_t buf = 0;
	uint32_t wptr = q->rq_wptr;
	bool moved = false;
	int n, i;

	n = roce_poll_cq(q->rcq, wc, RTE_DIM(wc));
	for (i = 0; i < n; i++) {
		if (wc[i].status == ROCE_WC_WR_FLUSH_ERR) {
			ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_RQ_FLUSH);
			continue;
		}
		if (wc[i].status != ROCE_WC_SUCCESS) {
			qp_go_fatal(rg, q, wc[i].vendor_err,
				    cause_syndrome(wc[i].vendor_err), false);
			continue;
		}
		memset(&d, 0, sizeof(d));
		d.byte_len = wc[i].byte_len;
		if (wc[i].opcode == ROCE_WC_RECV_RDMA_WITH_IMM) {
			d.opcode = RTE_PMD_ERNIC_OP_WRITE_IMM;
			d.imm = rte_be_to_cpu_32(wc[i].imm_data);
		} else if (wc[i].wc_flags & ROCE_WC_WITH_INV) {
			d.opcode = RTE_PMD_ERNIC_OP_SEND_INV;
			d.imm = wc[i].imm_data;
		} else if (wc[i].wc_flags & ROCE_WC_WITH_IMM) {
			d.opcode = RTE_PMD_ERNIC_OP_SEND_IMM;
			d.imm = rte_be_to_cpu_32(wc[i].imm_data);
		} else {
			d.opcode = RTE_PMD_ERNIC_OP_SEND;
		}
		buf = q->rqba + (uint64_t)(uint32_t)wc[i].wr_id * q->rq_bufsz;
		memcpy((void *)(uintptr_t)(buf + q->rq_bufsz -
					   RTE_PMD_ERNIC_RQ_DESC_LEN),
		       &d, sizeof(d));
		wptr = (wptr + 1) % q->rq_depth;
		moved = true;
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_RQ_PKT);
		if (hs)
			ernic_hs_rq_filled(q);
	}
	if (!moved)
		return;
	__atomic_store_n(&q->rq_wptr, wptr, __ATOMIC_RELEASE);
	if (!hs) {
		ernic_rq_set(q, ERNIC_STATRQBUFCA, (uint32_t)buf);
		ernic_rq_set(q, ERNIC_STATRQBUFCAMSB, (uint32_t)(buf >> 32));
		ernic_rq_set(q, ERNIC_STATRQPIDB, wptr);
	}
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	doorbell(rg, q->rqdb, wptr);
	ernic_regs_int(rg, ERNIC_INT_RQ_PKT);
}

/* Illegal WQE: complete it and every later one in error, in order. */
static void
complete_local(struct ernic_regs *rg, struct ernic_reg_qp *q)
{
	uint32_t head = q->cq_head, pi, cqe;
	const struct rte_pmd_ernic_wqe *w;
	bool any = false;
	uint8_t st;

	/* lib/roce still completes the WQEs before the illegal one */
	if (!q->local_err &&
	    head != __atomic_load_n(&q->err_from, __ATOMIC_RELAXED))
		return;
	pi = __atomic_load_n(&q->sq_pi, __ATOMIC_ACQUIRE);
	while (head != pi) {
		st = ernic_local_err_status(q);
		w = (const struct rte_pmd_ernic_wqe *)(uintptr_t)(q->sqba +
			(uint64_t)head * ERNIC_WQE_SIZE);
		if ((ernic_rq_get(q, ERNIC_QPCONF) & ERNIC_QPCONF_CQE_WRITE) &&
		    q->cqba != 0) {
			cqe = w->wrid | (uint32_t)w->opcode << 16 |
				(uint32_t)st << 24;
			*(volatile uint32_t *)(uintptr_t)(q->cqba +
				(uint64_t)head * ERNIC_CQE_SIZE) = cqe;
		}
		head = (head + 1) % q->sq_depth;
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_CQE);
		any = true;
	}
	if (!any)
		return;
	__atomic_store_n(&q->cq_head, head, __ATOMIC_RELEASE);
	ernic_rq_set(q, ERNIC_CQHEAD, head);
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	doorbell(rg, q->cqdb, head);
	ernic_regs_int(rg, ERNIC_INT_WQE_COMPLETION);
}

/*
 * CE-marked packets arrived on @p q's QP since the last poll: the engine
 * scheduled a CNP (roce_cc.c); flag it in CNPSCHDSTS and INTSTS[8].
 */
static void
cnp_sched(struct ernic_regs *rg, struct ernic_reg_qp *q)
{
	uint64_t ce = QP_STAT(q->qp, ce_rx);
	uint32_t bank = q->qpn / 32;

	if (likely(ce == q->ce_seen))
		return;
	q->ce_seen = ce;
	if (bank < ERNIC_CNPSCHDSTS_BANKS)
		__atomic_fetch_or(&rg->g[(ERNIC_CNPSCHDSTS + 4 * bank) / 4],
				  1u << (q->qpn % 32), __ATOMIC_RELEASE);
	ernic_regs_int(rg, ERNIC_INT_CNP);
}

void
ernic_regs_worker_poll(struct ernic_port *p, uint16_t widx)
{
	struct ernic_regs *rg = p->regs;
	struct roce_qp_snapshot snap;
	struct ernic_reg_qp *q;
	bool hs;

	if (rg == NULL || widx >= RTE_DIM(rg->wlist))
		return;
	for (q = rg->wlist[widx]; q != NULL; q = q->wnext) {
		hs = __atomic_load_n(&q->mode, __ATOMIC_ACQUIRE) ==
			ERNIC_QP_HS;
		if (hs)
			ernic_hs_run(q);
		poll_send(rg, q, hs);
		poll_recv(rg, q, hs);
		cnp_sched(rg, q);
		/* the QP left service without a failed send WQE (responder);
		 * on the QP's worker: the snapshot is exact
		 */
		if (!__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE)) {
			roce_qp_snapshot(q->qp, &snap);
			if (snap.state == ROCE_QPS_ERR)
				qp_go_fatal(rg, q, snap.err_cause,
					    cause_syndrome(snap.err_cause),
					    false);
		}
		if (!hs && __atomic_load_n(&q->illegal, __ATOMIC_ACQUIRE))
			complete_local(rg, q);
	}
}
