/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PG332 v4.x register window of a net_ernic port (software model):
 * decoding of the 2 MB window, register attributes (read/write, doorbell,
 * hardware-owned read-only unless SW override, write-1-to-clear, live
 * counters), the register names, the software backend and the public
 * accessors of rte_pmd_ernic_regs.h. What a write does to the RoCE engines
 * is ernic_regs_flow.c's business.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "rte_pmd_ernic_regs.h"

static_assert(sizeof(struct rte_pmd_ernic_wqe) == ERNIC_WQE_SIZE,
	      "PG332 WQE is 64 bytes");
static_assert(sizeof(struct rte_pmd_ernic_rq_desc) ==
	      RTE_PMD_ERNIC_RQ_DESC_LEN, "RQ descriptor is 16 bytes");
static_assert(ERNIC_MAX_WORKERS <= 16, "ernic_regs.wlist holds 16 workers");

/** Register attributes. */
enum reg_attr {
	RA_RW = 0,	/**< software-written */
	RA_DB,		/**< software-written doorbell (SQPI, RQCI) */
	RA_HW,		/**< hardware-owned: writable under SW override only */
	RA_LIVE,	/**< hardware-owned, computed at read (override: stored) */
	RA_CNT,		/**< counter computed at read (override: rebased) */
	RA_W1C,		/**< write 1 to clear (INTSTS) */
};

struct reg_desc {
	uint16_t off;
	uint8_t attr;
	const char *name;
};

static const struct reg_desc pdt_regs[] = {
	{ ERNIC_PDPDNUM, RA_RW, "PDPDNUM" },
	{ ERNIC_VIRTADDRLSB, RA_RW, "VIRTADDRLSB" },
	{ ERNIC_VIRTADDRMSB, RA_RW, "VIRTADDRMSB" },
	{ ERNIC_BUFBASEADDRLSB, RA_RW, "BUFBASEADDRLSB" },
	{ ERNIC_BUFBASEADDRMSB, RA_RW, "BUFBASEADDRMSB" },
	{ ERNIC_BUFRKEY, RA_RW, "BUFRKEY" },
	{ ERNIC_WRRDBUFLEN, RA_RW, "WRRDBUFLEN" },
	{ ERNIC_ACCESSDESC, RA_RW, "ACCESSDESC" },
};

static const struct reg_desc gcsr_regs[] = {
	{ ERNIC_XRNICCONF, RA_RW, "XRNICCONF" },
	{ ERNIC_XRNICADCONF, RA_RW, "XRNICADCONF" },
	{ ERNIC_MACXADDLSB, RA_RW, "MACXADDLSB" },
	{ ERNIC_MACXADDMSB, RA_RW, "MACXADDMSB" },
	{ ERNIC_IPV6XADD1, RA_RW, "IPv6XADD1" },
	{ ERNIC_IPV6XADD2, RA_RW, "IPv6XADD2" },
	{ ERNIC_IPV6XADD3, RA_RW, "IPv6XADD3" },
	{ ERNIC_IPV6XADD4, RA_RW, "IPv6XADD4" },
	{ ERNIC_ERRBUFBA, RA_RW, "ERRBUFBA" },
	{ ERNIC_ERRBUFBAMSB, RA_RW, "ERRBUFBAMSB" },
	{ ERNIC_ERRBUFSZ, RA_RW, "ERRBUFSZ" },
	{ ERNIC_ERRBUFWPTR, RA_HW, "ERRBUFWPTR" },
	{ ERNIC_IPV4XADD, RA_RW, "IPv4XADD" },
	{ ERNIC_IPKTERRQBA, RA_RW, "IPKTERRQBA" },
	{ ERNIC_IPKTERRQBAMSB, RA_RW, "IPKTERRQBAMSB" },
	{ ERNIC_IPKTERRQSZ, RA_RW, "IPKTERRQSZ" },
	{ ERNIC_IPKTERRQWPTR, RA_HW, "IPKTERRQWPTR" },
	{ ERNIC_RESPERRPKTBA, RA_RW, "RESPERRPKTBA" },
	{ ERNIC_RESPERRPKTBAMSB, RA_RW, "RESPERRPKTBAMSB" },
	{ ERNIC_RESPERRSZ, RA_RW, "RESPERRSZ" },
	{ ERNIC_RESPERRBUFWRPTR, RA_HW, "RESP_ERR_BUF_WRPTR" },
	{ ERNIC_INSRRPKTCNT, RA_CNT, "INSRRPKTCNT" },
	{ ERNIC_INAMPKTCNT, RA_CNT, "INAMPKTCNT" },
	{ ERNIC_OUTIOPKTCNT, RA_CNT, "OUTIOPKTCNT" },
	{ ERNIC_OUTAMPKTCNT, RA_CNT, "OUTAMPKTCNT" },
	{ ERNIC_ININVDUPCNT, RA_CNT, "ININVDUPCNT" },
	{ ERNIC_INALLDRPPKTCNT, RA_CNT, "INALLDRPPKTCNT" },
	{ ERNIC_INNAKPKTCNT, RA_CNT, "INNAKPKTCNT" },
	{ ERNIC_OUTNAKPKTCNT, RA_CNT, "OUTNAKPKTCNT" },
	{ ERNIC_RESPHNDSTS, RA_LIVE, "RESPHNDSTS" },
	{ ERNIC_RETRYCNTSTS, RA_CNT, "RETRYCNTSTS" },
	{ ERNIC_INRDRSPPKTCNT, RA_CNT, "INRDRSPPKTCNT" },
	{ ERNIC_INCNPPKTCNT, RA_CNT, "INCNPPKTCNT" },
	{ ERNIC_OUTCNPPKTCNT, RA_CNT, "OUTCNPPKTCNT" },
	{ ERNIC_OUTRDRSPPKTCNT, RA_CNT, "OUTRDRSPPKTCNT" },
	{ ERNIC_INTEN, RA_RW, "INTEN" },
	{ ERNIC_INTSTS, RA_W1C, "INTSTS" },
};

static const struct reg_desc qcsr_regs[] = {
	{ ERNIC_QPCONF, RA_RW, "QPCONF" },
	{ ERNIC_QPADVCONF, RA_RW, "QPADVCONF" },
	{ ERNIC_RQBA, RA_RW, "RQBA" },
	{ ERNIC_SQBA, RA_RW, "SQBA" },
	{ ERNIC_CQBA, RA_RW, "CQBA" },
	{ ERNIC_RQWPTRDBADD, RA_RW, "RQWPTRDBADD" },
	{ ERNIC_RQWPTRDBADDMSB, RA_RW, "RQWPTRDBADDMSB" },
	{ ERNIC_CQDBADD, RA_RW, "CQDBADD" },
	{ ERNIC_CQDBADDMSB, RA_RW, "CQDBADDMSB" },
	{ ERNIC_CQHEAD, RA_HW, "CQHEAD" },
	{ ERNIC_RQCI, RA_DB, "RQCI" },
	{ ERNIC_SQPI, RA_DB, "SQPI" },
	{ ERNIC_QDEPTH, RA_RW, "QDEPTH" },
	{ ERNIC_SQPSN, RA_RW, "SQPSN" },
	{ ERNIC_LSTRQREQ, RA_RW, "LSTRQREQ" },
	{ ERNIC_DESTQPCONF, RA_RW, "DESTQPCONF" },
	{ ERNIC_TIMEOUTCONF, RA_RW, "TIMEOUTCONF" },
	{ ERNIC_MACDESADDLSB, RA_RW, "MACDESADDLSB" },
	{ ERNIC_MACDESADDMSB, RA_RW, "MACDESADDMSB" },
	{ ERNIC_IPDESADDR1, RA_RW, "IPDESADDR1" },
	{ ERNIC_IPDESADDR2, RA_RW, "IPDESADDR2" },
	{ ERNIC_IPDESADDR3, RA_RW, "IPDESADDR3" },
	{ ERNIC_IPDESADDR4, RA_RW, "IPDESADDR4" },
	{ ERNIC_STATSSN, RA_LIVE, "STATSSN" },
	{ ERNIC_STATMSN, RA_LIVE, "STATMSN" },
	{ ERNIC_STATQP, RA_LIVE, "STATQP" },
	{ ERNIC_STATCURSQPTR, RA_LIVE, "STATCURSQPTR" },
	{ ERNIC_STATRESPSN, RA_LIVE, "STATRESPSN" },
	{ ERNIC_STATRQBUFCA, RA_HW, "STATRQBUFCA" },
	{ ERNIC_STATWQE, RA_HW, "STATWQE" },
	{ ERNIC_STATRQPIDB, RA_HW, "STATRQPIDB" },
	{ ERNIC_PDNUM, RA_RW, "PDNUM" },
	{ ERNIC_RQBAMSB, RA_RW, "RQBAMSB" },
	{ ERNIC_SQBAMSB, RA_RW, "SQBAMSB" },
	{ ERNIC_CQBAMSB, RA_RW, "CQBAMSB" },
	{ ERNIC_STATRQBUFCAMSB, RA_HW, "STATRQBUFCAMSB" },
};

static const struct reg_desc *
desc_find(const struct reg_desc *t, unsigned int n, uint32_t off)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].off == off)
			return &t[i];
	return NULL;
}

/* The 64 CNP schedule status banks share one description. */
static const struct reg_desc cnpschdsts_desc = {
	ERNIC_CNPSCHDSTS, RA_W1C, "CNPSCHDSTS"
};

/* Where an offset of the window lands. */
enum blk { BLK_NONE, BLK_PDT, BLK_GCSR, BLK_QCSR };

struct decoded {
	enum blk blk;
	uint32_t idx;		/**< PD entry or QPN */
	uint32_t roff;		/**< offset in the entry/block */
	const struct reg_desc *d;
};

/* Decode @p off against the window geometry (nb_qp QP blocks). */
static int
decode(uint32_t off, uint32_t nb_qp, struct decoded *dc)
{
	memset(dc, 0, sizeof(*dc));
	if ((off & 3) != 0 || off >= ERNIC_WIN_SIZE)
		return -EINVAL;
	if (off < ERNIC_PDT_BASE + ERNIC_PDT_ENTRIES * ERNIC_PDT_STRIDE) {
		dc->blk = BLK_PDT;
		dc->idx = off / ERNIC_PDT_STRIDE;
		dc->roff = off % ERNIC_PDT_STRIDE;
		dc->d = desc_find(pdt_regs, RTE_DIM(pdt_regs), dc->roff);
	} else if (off >= ERNIC_GCSR_BASE &&
		   off < ERNIC_GCSR_BASE + ERNIC_GCSR_SIZE) {
		dc->blk = BLK_GCSR;
		dc->roff = off - ERNIC_GCSR_BASE;
		dc->d = desc_find(gcsr_regs, RTE_DIM(gcsr_regs), dc->roff);
		if (dc->roff >= ERNIC_CNPSCHDSTS && dc->roff <
		    ERNIC_CNPSCHDSTS + 4 * ERNIC_CNPSCHDSTS_BANKS) {
			dc->d = &cnpschdsts_desc;	/* bank idx, 1..64 */
			dc->idx = (dc->roff - ERNIC_CNPSCHDSTS) / 4 + 1;
		}
	} else if (off >= ERNIC_QCSR_BASE &&
		   off < ERNIC_QCSR_BASE + nb_qp * ERNIC_QCSR_STRIDE) {
		dc->blk = BLK_QCSR;
		dc->idx = (off - ERNIC_QCSR_BASE) / ERNIC_QCSR_STRIDE + 1;
		dc->roff = (off - ERNIC_QCSR_BASE) % ERNIC_QCSR_STRIDE;
		dc->d = desc_find(qcsr_regs, RTE_DIM(qcsr_regs), dc->roff);
	}
	return dc->d != NULL ? 0 : -EINVAL;
}

void
ernic_regs_count(struct ernic_regs *rg, enum rte_pmd_ernic_reg_cnt c)
{
	__atomic_fetch_add(&rg->cnt[c], 1, __ATOMIC_RELAXED);
}

void
ernic_regs_int(struct ernic_regs *rg, uint32_t bits)
{
	__atomic_fetch_or(&rg->g[ERNIC_INTSTS / 4], bits, __ATOMIC_RELEASE);
}

struct ernic_reg_qp *
ernic_regs_qp(struct ernic_regs *rg, uint32_t qpn)
{
	if (rg == NULL || qpn == 0 || qpn > rg->nb_qp)
		return NULL;
	return &rg->qps[qpn - 1];
}

static bool
sw_override(const struct ernic_regs *rg)
{
	return (__atomic_load_n(&rg->g[ERNIC_XRNICADCONF / 4],
				__ATOMIC_ACQUIRE) & ERNIC_ADCONF_SW_OVERRIDE) != 0;
}

/* ------------------------------------------------------------------ */
/* Software backend                                                   */
/* ------------------------------------------------------------------ */

static int
sw_read(void *ctx, uint32_t off, uint32_t *val)
{
	struct ernic_regs *rg = ctx;
	struct ernic_reg_qp *q;
	struct decoded dc;
	uint32_t v = 0;

	if (decode(off, rg->nb_qp, &dc) != 0) {
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_BAD_READ);
		return -EINVAL;
	}
	rte_spinlock_lock(&rg->lock);
	switch (dc.blk) {
	case BLK_PDT:
		v = rg->pdt[dc.idx].r[dc.roff / 4];
		break;
	case BLK_GCSR:
		if (dc.d->attr == RA_CNT)
			v = ernic_flow_counter(rg, dc.roff) -
				rg->cnt_bias[dc.roff / 4];
		else if (dc.d->attr == RA_LIVE)
			v = ernic_flow_counter(rg, dc.roff);
		else
			v = __atomic_load_n(&rg->g[dc.roff / 4],
					    __ATOMIC_ACQUIRE);
		break;
	case BLK_QCSR:
		q = ernic_regs_qp(rg, dc.idx);
		v = dc.d->attr == RA_LIVE ? ernic_flow_qp_read(rg, q, dc.roff) :
			ernic_rq_get(q, dc.roff);
		break;
	case BLK_NONE:
		break;
	}
	rte_spinlock_unlock(&rg->lock);
	ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_READS);
	*val = v;
	return 0;
}

static int
gcsr_write(struct ernic_regs *rg, const struct decoded *dc, uint32_t val,
	   bool override)
{
	uint32_t i = dc->roff / 4;

	switch (dc->d->attr) {
	case RA_W1C:
		__atomic_fetch_and(&rg->g[i], ~val, __ATOMIC_RELEASE);
		return 0;
	case RA_CNT:
		if (!override)
			return -EPERM;
		rg->cnt_bias[i] = ernic_flow_counter(rg, dc->roff) - val;
		return 0;
	case RA_HW:
	case RA_LIVE:
		if (!override)
			return -EPERM;
		break;
	default:
		break;
	}
	__atomic_store_n(&rg->g[i], val, __ATOMIC_RELEASE);
	if (dc->roff == ERNIC_XRNICCONF)
		ernic_flow_conf(rg);
	return 0;
}

static int
sw_write(void *ctx, uint32_t off, uint32_t val)
{
	struct ernic_regs *rg = ctx;
	struct ernic_reg_qp *q;
	struct decoded dc;
	uint32_t old;
	bool override;
	int ret = 0;

	if (decode(off, rg->nb_qp, &dc) != 0) {
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_BAD_WRITE);
		return -EINVAL;
	}
	rte_spinlock_lock(&rg->lock);
	override = sw_override(rg);
	switch (dc.blk) {
	case BLK_PDT:
		rg->pdt[dc.idx].r[dc.roff / 4] = val;
		ret = ernic_flow_pdt_update(rg, dc.idx);
		break;
	case BLK_GCSR:
		ret = gcsr_write(rg, &dc, val, override);
		break;
	case BLK_QCSR:
		q = ernic_regs_qp(rg, dc.idx);
		if ((dc.d->attr == RA_HW || dc.d->attr == RA_LIVE) &&
		    !override) {
			ret = -EPERM;
			break;
		}
		old = ernic_rq_get(q, dc.roff);
		ernic_rq_set(q, dc.roff, val);
		ret = ernic_flow_qp_write(rg, q, dc.roff, old, val, override);
		if (ret < 0 && ernic_rq_get(q, dc.roff) == val)
			ernic_rq_set(q, dc.roff, old);
		break;
	case BLK_NONE:
		break;
	}
	rte_spinlock_unlock(&rg->lock);
	ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_WRITES);
	if (ret == -EPERM)
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_RO_WRITE);
	else if (ret < 0)
		ernic_regs_count(rg, RTE_PMD_ERNIC_RCNT_REFUSED);
	return ret;
}

static void
sw_doorbell(void *ctx __rte_unused, uint64_t addr, uint32_t val)
{
	/* a memory doorbell: the engine's DMA is a store in this model */
	if (addr != 0)
		__atomic_store_n((uint32_t *)(uintptr_t)addr, val,
				 __ATOMIC_RELEASE);
}

const struct ernic_reg_backend ernic_regs_sw_backend = {
	.name = "software",
	.read = sw_read,
	.write = sw_write,
	.doorbell = sw_doorbell,
};

/* ------------------------------------------------------------------ */
/* Create / destroy                                                   */
/* ------------------------------------------------------------------ */

/* Reset values: the port's own addresses (devargs). */
static void
regs_reset_globals(struct ernic_regs *rg, const struct ernic_port *p)
{
	const uint8_t *m = p->mac.addr_bytes;
	uint32_t *g = rg->g;

	/* MACXADDLSB = MAC[31:0], MACXADDMSB = MAC[47:32] (byte 0 highest) */
	g[ERNIC_MACXADDLSB / 4] = (uint32_t)m[2] << 24 | (uint32_t)m[3] << 16 |
		(uint32_t)m[4] << 8 | m[5];
	g[ERNIC_MACXADDMSB / 4] = (uint32_t)m[0] << 8 | m[1];
	if (p->args.has_ip4)
		g[ERNIC_IPV4XADD / 4] = rte_be_to_cpu_32(p->args.ip4);
	if (p->args.has_ip6) {
		unsigned int k;
		uint32_t w;

		/* IPv6XADD1 = address[31:0] ... IPv6XADD4 = address[127:96] */
		for (k = 0; k < 4; k++) {
			memcpy(&w, p->args.ip6 + 12 - 4 * k, 4);
			g[ERNIC_IPV6XADD1 / 4 + k] = rte_be_to_cpu_32(w);
		}
	}
}

int
ernic_regs_create(struct ernic_port *p)
{
	struct ernic_regs *rg;
	uint32_t i, nb_qp;

	/* QP blocks: as many as the QPN space has above QP0, up to 2048 */
	nb_qp = RTE_MIN((uint32_t)ERNIC_QP_MAX, p->args.max_qps - 1);
	rg = rte_zmalloc_socket("ernic_regs", sizeof(*rg), RTE_CACHE_LINE_SIZE,
				p->socket);
	if (rg == NULL)
		return -ENOMEM;
	rg->pdt = rte_zmalloc_socket("ernic_pdt",
				     sizeof(*rg->pdt) * ERNIC_PDT_ENTRIES,
				     RTE_CACHE_LINE_SIZE, p->socket);
	rg->pds = rte_zmalloc_socket("ernic_pds",
				     sizeof(*rg->pds) * ERNIC_NUM_PD,
				     RTE_CACHE_LINE_SIZE, p->socket);
	rg->qps = rte_zmalloc_socket("ernic_qcsr", sizeof(*rg->qps) * nb_qp,
				     RTE_CACHE_LINE_SIZE, p->socket);
	if (rg->pdt == NULL || rg->pds == NULL || rg->qps == NULL) {
		rte_free(rg->pdt);
		rte_free(rg->pds);
		rte_free(rg->qps);
		rte_free(rg);
		return -ENOMEM;
	}
	rte_spinlock_init(&rg->lock);
	rte_spinlock_init(&rg->errq_lock);
	rg->port = p;
	rg->be = &ernic_regs_sw_backend;
	rg->nb_qp = nb_qp;
	for (i = 0; i < nb_qp; i++) {
		rg->qps[i].qpn = i + 1;
		rg->qps[i].regs = rg;
		/* HW handshake disabled until software enables it */
		rg->qps[i].r[ERNIC_QPCONF / 4] = ERNIC_QPCONF_HS_DIS;
	}
	regs_reset_globals(rg, p);
	p->regs = rg;
	return 0;
}

void
ernic_regs_destroy(struct ernic_port *p)
{
	struct ernic_regs *rg = p->regs;

	if (rg == NULL)
		return;
	ernic_regs_detach(rg);
	rte_free(rg->pdt);
	rte_free(rg->pds);
	rte_free(rg->qps);
	rte_free(rg);
	p->regs = NULL;
}

/* ------------------------------------------------------------------ */
/* Public API                                                         */
/* ------------------------------------------------------------------ */

static struct ernic_regs *
regs_of(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);

	return p != NULL ? p->regs : NULL;
}

int
rte_pmd_ernic_reg_read(uint16_t port_id, uint32_t off, uint32_t *val)
{
	struct ernic_regs *rg = regs_of(port_id);

	if (rg == NULL)
		return -ENODEV;
	if (val == NULL)
		return -EINVAL;
	return rg->be->read(rg, off, val);
}

int
rte_pmd_ernic_reg_write(uint16_t port_id, uint32_t off, uint32_t val)
{
	struct ernic_regs *rg = regs_of(port_id);

	if (rg == NULL)
		return -ENODEV;
	return rg->be->write(rg, off, val);
}

uint64_t
rte_pmd_ernic_reg_counter(uint16_t port_id, enum rte_pmd_ernic_reg_cnt c)
{
	struct ernic_regs *rg = regs_of(port_id);

	if (rg == NULL || (unsigned int)c >= RTE_PMD_ERNIC_RCNT_MAX)
		return UINT64_MAX;
	return __atomic_load_n(&rg->cnt[c], __ATOMIC_RELAXED);
}

int
rte_pmd_ernic_reg_by_name(const char *name, uint32_t index, uint32_t *off)
{
	unsigned int i;

	if (name == NULL || off == NULL)
		return -EINVAL;
	for (i = 0; i < RTE_DIM(gcsr_regs); i++)
		if (strcasecmp(name, gcsr_regs[i].name) == 0) {
			*off = ERNIC_GCSR_BASE + gcsr_regs[i].off;
			return 0;
		}
	for (i = 0; i < RTE_DIM(qcsr_regs); i++)
		if (strcasecmp(name, qcsr_regs[i].name) == 0) {
			if (index == 0 || index > ERNIC_QP_MAX)
				return -EINVAL;
			*off = ERNIC_QCSR_BASE +
				(index - 1) * ERNIC_QCSR_STRIDE +
				qcsr_regs[i].off;
			return 0;
		}
	for (i = 0; i < RTE_DIM(pdt_regs); i++)
		if (strcasecmp(name, pdt_regs[i].name) == 0) {
			if (index >= ERNIC_PDT_ENTRIES)
				return -EINVAL;
			*off = ERNIC_PDT_BASE + index * ERNIC_PDT_STRIDE +
				pdt_regs[i].off;
			return 0;
		}
	/* CNPSCHDSTS1..64: the bank is the index */
	if (strcasecmp(name, cnpschdsts_desc.name) == 0) {
		if (index == 0 || index > ERNIC_CNPSCHDSTS_BANKS)
			return -EINVAL;
		*off = ERNIC_GCSR_BASE + ERNIC_CNPSCHDSTS + (index - 1) * 4;
		return 0;
	}
	return -ENOENT;
}

const char *
rte_pmd_ernic_reg_name(uint32_t off, uint32_t *index)
{
	struct decoded dc;

	if (decode(off, ERNIC_QP_MAX, &dc) != 0)
		return NULL;
	if (index != NULL)
		*index = dc.idx;
	return dc.d->name;
}
