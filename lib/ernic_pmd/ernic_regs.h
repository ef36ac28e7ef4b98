/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_REGS_H
#define ERNIC_REGS_H

/*
 * The PG332 (ERNIC v4.x) register window of a net_ernic port: register map,
 * the software model's state, and the entry points between the window
 * (ernic_regs.c), the glue that turns register programming into lib/roce
 * objects (ernic_regs_flow.c) and the hardware handshake ports (ernic_hs.c).
 * doc/guides/ernic.rst describes the model and the choices made where the
 * PG332 sources disagree.
 *
 * Threads:
 * - register accesses (rte_pmd_ernic_reg_read/write) come from any thread
 *   and are serialised by the window lock; they are the control path;
 * - the worker that owns a register QP (its CQs) runs ernic_regs_worker_poll():
 *   it is the only consumer of the QP's CQs, the only writer of the
 *   hardware-owned progress registers (CQHEAD, STATRQPIDB...) outside SW
 *   override, and in handshake mode the only poster;
 * - a handshake port is SPSC in both directions, without locks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "roce_err.h"
#include "rte_pmd_ernic_regs.h"

struct ernic_port;
struct ernic_worker;
struct roce_cq;
struct roce_mr;
struct roce_pd;
struct roce_qp;
struct roce_worker;

/* ------------------------------------------------------------------ */
/* Window layout                                                      */
/* ------------------------------------------------------------------ */

enum ernic_win {
	ERNIC_WIN_SIZE = 0x200000,		/**< 2 MB */
	ERNIC_PDT_BASE = 0x0,
	ERNIC_PDT_STRIDE = 0x100,
	ERNIC_PDT_ENTRIES = 2048,
	ERNIC_GCSR_BASE = 0x100000,
	ERNIC_GCSR_SIZE = 0x500,		/**< up to the CNPSCHDSTS banks */
	ERNIC_QCSR_BASE = 0x180000,		/**< QP1's block */
	ERNIC_QCSR_STRIDE = 0x100,
	ERNIC_QP_MAX = 2048,			/**< blocks in the window: QP 1..2048 */
	ERNIC_WQE_SIZE = 64,
	ERNIC_CQE_SIZE = 4,
	ERNIC_IPKTERR_ENTRY = 8,
	ERNIC_NUM_PD = 2048,			/**< PD numbers 0..2047 */
};

/** PD table entry registers (offsets in the entry). */
enum ernic_pdt_reg {
	ERNIC_PDPDNUM = 0x00,		/**< [23:0] PD number */
	ERNIC_VIRTADDRLSB = 0x04,
	ERNIC_VIRTADDRMSB = 0x08,
	ERNIC_BUFBASEADDRLSB = 0x0c,
	ERNIC_BUFBASEADDRMSB = 0x10,
	ERNIC_BUFRKEY = 0x14,		/**< [7:0] R_Key[7:0] */
	ERNIC_WRRDBUFLEN = 0x18,	/**< length[31:0] */
	ERNIC_ACCESSDESC = 0x1c,	/**< [3:0] access, [31:16] length[47:32] */
};

enum ernic_accessdesc {
	ERNIC_ACC_MASK = 0xf,
	ERNIC_ACC_READ = 0,
	ERNIC_ACC_WRITE = 1,
	ERNIC_ACC_RDWR = 2,
	ERNIC_ACC_LENMSB_SHIFT = 16,
};

/** Global block registers (offsets from ERNIC_GCSR_BASE). */
enum ernic_gcsr_reg {
	ERNIC_XRNICCONF = 0x00,
	ERNIC_XRNICADCONF = 0x04,
	ERNIC_MACXADDLSB = 0x10,
	ERNIC_MACXADDMSB = 0x14,
	ERNIC_IPV6XADD1 = 0x20,
	ERNIC_IPV6XADD2 = 0x24,
	ERNIC_IPV6XADD3 = 0x28,
	ERNIC_IPV6XADD4 = 0x2c,
	ERNIC_ERRBUFBA = 0x60,
	ERNIC_ERRBUFBAMSB = 0x64,
	ERNIC_ERRBUFSZ = 0x68,		/**< [15:0] count, [31:16] entry size */
	ERNIC_ERRBUFWPTR = 0x6c,	/**< HW */
	ERNIC_IPV4XADD = 0x70,
	ERNIC_IPKTERRQBA = 0x88,
	ERNIC_IPKTERRQBAMSB = 0x8c,
	ERNIC_IPKTERRQSZ = 0x90,	/**< [15:0] entries */
	ERNIC_IPKTERRQWPTR = 0x94,	/**< HW */
	ERNIC_RESPERRPKTBA = 0xb0,
	ERNIC_RESPERRPKTBAMSB = 0xb4,
	ERNIC_RESPERRSZ = 0xb8,		/**< [15:0] count, [31:16] entry size */
	ERNIC_RESPERRBUFWRPTR = 0xbc,	/**< HW */
	/* counters and status (HW) */
	ERNIC_INSRRPKTCNT = 0x100,	/**< SEND/WRITE/READ-response packets in */
	ERNIC_INAMPKTCNT = 0x104,	/**< ACK and MAD packets in */
	ERNIC_OUTIOPKTCNT = 0x108,	/**< request packets out */
	ERNIC_OUTAMPKTCNT = 0x10c,	/**< ACK and MAD packets out */
	ERNIC_ININVDUPCNT = 0x118,	/**< invalid or duplicate packets in */
	ERNIC_INALLDRPPKTCNT = 0x130,	/**< every dropped incoming packet */
	ERNIC_INNAKPKTCNT = 0x134,	/**< NAKs in */
	ERNIC_OUTNAKPKTCNT = 0x138,	/**< NAKs out */
	ERNIC_RESPHNDSTS = 0x13c,	/**< [16] sq_pici_db_check_en */
	ERNIC_RETRYCNTSTS = 0x140,	/**< retransmitted packets */
	ERNIC_INRDRSPPKTCNT = 0x170,	/**< READ response packets in */
	ERNIC_INCNPPKTCNT = 0x174,	/**< CNPs in */
	ERNIC_OUTCNPPKTCNT = 0x178,	/**< CNPs out */
	ERNIC_OUTRDRSPPKTCNT = 0x17c,	/**< READ response packets out */
	ERNIC_INTEN = 0x180,
	ERNIC_INTSTS = 0x184,		/**< W1C */
	/** CNPSCHDSTS1..64: bit (qpn % 32) of bank qpn / 32, W1C */
	ERNIC_CNPSCHDSTS = 0x390,
	ERNIC_CNPSCHDSTS_BANKS = 64,
};

enum ernic_xrnicconf {
	ERNIC_CONF_EN = 1u << 0,
	ERNIC_CONF_ACKMODE_SHIFT = 3,
	ERNIC_CONF_LOGALL = 1u << 5,
	ERNIC_CONF_NUMQP_SHIFT = 8,	/**< [15:8] QPs enabled (0: all blocks) */
	ERNIC_CONF_NUMQP_MASK = 0xff00,
	ERNIC_CONF_UDP_SHIFT = 16,	/**< [31:16] UDP source port */
};

enum ernic_xrnicadconf {
	ERNIC_ADCONF_SW_OVERRIDE = 1u << 0,
	ERNIC_ADCONF_RETRY_FATAL_DIS = 1u << 2,
};

enum ernic_resphndsts {
	ERNIC_RESPHND_SQ_PICI_DB_CHECK_EN = 1u << 16,
};

/** INTSTS / INTEN bits. */
enum ernic_intsts {
	ERNIC_INT_PKT_VALID_ERR = 1u << 0,
	ERNIC_INT_MAD = 1u << 1,
	ERNIC_INT_RNR_NAK_SENT = 1u << 3,
	ERNIC_INT_WQE_COMPLETION = 1u << 4,
	ERNIC_INT_ILLEGAL_OPCODE = 1u << 5,
	ERNIC_INT_RQ_PKT = 1u << 6,
	ERNIC_INT_FATAL = 1u << 7,
	ERNIC_INT_CNP = 1u << 8,
	ERNIC_INT_ALL = 0x1fb,
};

/** Per-QP block registers (offsets in the block). */
enum ernic_qcsr_reg {
	ERNIC_QPCONF = 0x00,
	ERNIC_QPADVCONF = 0x04,
	ERNIC_RQBA = 0x08,
	ERNIC_SQBA = 0x10,
	ERNIC_CQBA = 0x18,
	ERNIC_RQWPTRDBADD = 0x20,
	ERNIC_RQWPTRDBADDMSB = 0x24,
	ERNIC_CQDBADD = 0x28,
	ERNIC_CQDBADDMSB = 0x2c,
	ERNIC_CQHEAD = 0x30,		/**< HW */
	ERNIC_RQCI = 0x34,		/**< doorbell: RQ buffers returned */
	ERNIC_SQPI = 0x38,		/**< doorbell: WQEs posted */
	ERNIC_QDEPTH = 0x3c,		/**< [15:0] SQ, [31:16] RQ */
	ERNIC_SQPSN = 0x40,
	ERNIC_LSTRQREQ = 0x44,		/**< [23:0] PSN, [31:24] opcode */
	ERNIC_DESTQPCONF = 0x48,	/**< [23:0] destination QPN */
	ERNIC_TIMEOUTCONF = 0x4c,
	ERNIC_MACDESADDLSB = 0x50,
	ERNIC_MACDESADDMSB = 0x54,
	ERNIC_IPDESADDR1 = 0x60,
	ERNIC_IPDESADDR2 = 0x64,
	ERNIC_IPDESADDR3 = 0x68,
	ERNIC_IPDESADDR4 = 0x6c,
	ERNIC_STATSSN = 0x80,		/**< HW */
	ERNIC_STATMSN = 0x84,		/**< HW */
	ERNIC_STATQP = 0x88,		/**< HW */
	ERNIC_STATCURSQPTR = 0x8c,	/**< HW */
	ERNIC_STATRESPSN = 0x90,	/**< HW */
	ERNIC_STATRQBUFCA = 0x94,	/**< HW */
	ERNIC_STATWQE = 0x98,		/**< HW */
	ERNIC_STATRQPIDB = 0x9c,	/**< HW */
	ERNIC_PDNUM = 0xb0,
	ERNIC_RQBAMSB = 0xc0,
	ERNIC_SQBAMSB = 0xc8,
	ERNIC_CQBAMSB = 0xd0,
	ERNIC_STATRQBUFCAMSB = 0xd8,	/**< HW */
};

enum ernic_qpconf {
	ERNIC_QPCONF_EN = 1u << 0,
	ERNIC_QPCONF_RQ_INT = 1u << 2,
	ERNIC_QPCONF_CQ_INT = 1u << 3,
	ERNIC_QPCONF_HS_DIS = 1u << 4,	/**< hardware handshake DISABLE */
	ERNIC_QPCONF_CQE_WRITE = 1u << 5,
	ERNIC_QPCONF_RECOVERY = 1u << 6,	/**< QP under recovery */
	ERNIC_QPCONF_IPV6 = 1u << 7,
	ERNIC_QPCONF_PMTU_SHIFT = 8,	/**< [10:8] 0..4 = 256..4096 */
	ERNIC_QPCONF_PMTU_MASK = 0x700,
	ERNIC_QPCONF_RQBUF_SHIFT = 16,	/**< [31:16] RQ buffer size / 256 */
};

enum ernic_qpadvconf {
	ERNIC_QPADV_TC_MASK = 0x3f,
	ERNIC_QPADV_TTL_SHIFT = 8,
	ERNIC_QPADV_PKEY_SHIFT = 16,
};

enum ernic_timeoutconf {
	ERNIC_TO_TIMEOUT_MASK = 0x3f,
	ERNIC_TO_RETRY_SHIFT = 8,
	ERNIC_TO_RNR_RETRY_SHIFT = 11,
	ERNIC_TO_RNR_TIMER_SHIFT = 16,
};

enum ernic_statqp {
	ERNIC_STATQP_FATAL = 1u << 0,
	ERNIC_STATQP_RQ_OVERFLOW = 1u << 1,
	ERNIC_STATQP_SQ_FULL = 1u << 2,
	ERNIC_STATQP_OSQ_FULL = 1u << 3,
	ERNIC_STATQP_CQ_FULL = 1u << 4,
	ERNIC_STATQP_SQ_EMPTY = 1u << 9,
	ERNIC_STATQP_OSQ_EMPTY = 1u << 10,
	ERNIC_STATQP_RETRIED = 1u << 11,
	ERNIC_STATQP_NAK_SHIFT = 16,	/**< [22:16] NAK syndrome */
	ERNIC_STATQP_NAK_MASK = 0x7f0000,
	ERNIC_STATQP_RETRY_SHIFT = 24,	/**< [26:24] retry count */
	ERNIC_STATQP_RETRY_MASK = 0x7000000,
	ERNIC_STATQP_RNR_SHIFT = 28,	/**< [30:28] RNR NAK count */
	ERNIC_STATQP_RNR_MASK = 0x70000000,
};

/* ------------------------------------------------------------------ */
/* Backend                                                            */
/* ------------------------------------------------------------------ */

/**
 * What drives a register window: the software engine here, or a real
 * ERNIC behind a mapped PCIe BAR (ops would then be 32-bit MMIO loads and
 * stores on bar + off). The public accessors call these only.
 */
struct ernic_reg_backend {
	const char *name;
	/** 0 and *val, or -EINVAL (unmapped/misaligned offset). */
	int (*read)(void *ctx, uint32_t off, uint32_t *val);
	/** 0, -EINVAL (unmapped/misaligned), -EPERM (read-only), or the
	 *  negative errno of the action the write triggered. */
	int (*write)(void *ctx, uint32_t off, uint32_t val);
	/** Memory doorbell (RQWPTRDBADD, CQDBADD): store @p val at @p addr. */
	void (*doorbell)(void *ctx, uint64_t addr, uint32_t val);
};

/** The software engine. */
extern const struct ernic_reg_backend ernic_regs_sw_backend;

/* ------------------------------------------------------------------ */
/* Software model state                                               */
/* ------------------------------------------------------------------ */

/** One PD table entry and the lib/roce MR that publishes it. */
struct ernic_pdt_entry {
	uint32_t r[8];
	struct roce_mr *mr;		/**< NULL: entry not usable */
	uint32_t pdnum;			/**< PD number of the published MR */
};

/** A PD number and the lib/roce PD behind it (created on first use). */
struct ernic_pd_slot {
	struct roce_pd *pd;
	struct roce_mr *local_mr;	/**< local-only MR over all memory */
	uint32_t users;			/**< PD table entries and QPs */
};

enum ernic_qp_mode {
	ERNIC_QP_OFF = 0,		/**< no lib/roce QP */
	ERNIC_QP_REGS,			/**< SQPI/RQCI doorbells */
	ERNIC_QP_HS,			/**< hardware handshake port */
};

/** One per-QP block and the lib/roce QP it drives. */
struct ernic_reg_qp {
	uint32_t r[ERNIC_QCSR_STRIDE / 4];	/**< register values */
	uint32_t qpn;
	uint8_t mode;			/**< enum ernic_qp_mode (atomic) */
	bool fatal;			/**< QP went fatal (atomic) */
	bool illegal;			/**< an illegal WQE stopped posting (atomic) */
	bool local_err;			/**< worker: completing WQEs locally */
	uint16_t widx;			/**< owner worker index */
	uint64_t ce_seen;		/**< worker: qp->stats.ce_rx flagged so far */
	struct ernic_regs *regs;
	struct roce_qp *qp;
	struct roce_cq *scq, *rcq;
	struct roce_pd *pd;
	uint32_t lkey;			/**< the PD's local MR */
	uint32_t pdnum;
	uint32_t sq_depth, rq_depth;
	uint32_t rq_bufsz;
	uint64_t sqba, rqba, cqba, cqdb, rqdb;
	/* SQ side: indexes modulo sq_depth */
	uint32_t sq_pi;			/**< SQPI as written (control) */
	uint32_t sq_next;		/**< next WQE to hand to lib/roce (control) */
	uint32_t cq_head;		/**< CQHEAD (worker) */
	uint32_t err_from;		/**< first WQE completed locally (illegal) */
	/* RQ side: indexes modulo rq_depth */
	uint32_t rq_ci;			/**< RQCI as written (control) */
	uint32_t rq_post;		/**< next RQ buffer to post (control) */
	uint32_t rq_wptr;		/**< RQ write pointer (worker) */
	uint32_t nak_syndrome;		/**< last error's syndrome (worker) */
	struct rte_pmd_ernic_hs_port *hs;
	uint32_t hs_rq_seen;		/**< worker: RQ releases reposted */
	struct ernic_reg_qp *wnext;	/**< worker's list (worker-owned) */
	bool on_worker;
};

/** Register window of one net_ernic port. */
struct ernic_regs {
	rte_spinlock_t lock;		/**< register accesses */
	struct ernic_port *port;
	const struct ernic_reg_backend *be;
	uint32_t g[ERNIC_GCSR_SIZE / 4];	/**< global block values */
	/** SW-override writes of counters: value = live - bias */
	uint32_t cnt_bias[ERNIC_GCSR_SIZE / 4];
	/** counts of QPs deleted since (counters sum over live QPs) */
	uint64_t cnt_base[ERNIC_GCSR_SIZE / 4];
	/** error queues (ERRBUF, IPKTERRQ, RESPERR): workers and control */
	rte_spinlock_t errq_lock;
	struct ernic_pdt_entry *pdt;	/**< ERNIC_PDT_ENTRIES */
	struct ernic_pd_slot *pds;	/**< ERNIC_NUM_PD */
	struct ernic_reg_qp *qps;	/**< nb_qp blocks, [0] is QP1 */
	uint32_t nb_qp;			/**< QP blocks mapped (<= ERNIC_QP_MAX) */
	bool attached;			/**< bound to the started port's device */
	/** worker index -> register QPs it owns (worker-owned lists) */
	struct ernic_reg_qp *wlist[16];
	uint64_t cnt[RTE_PMD_ERNIC_RCNT_MAX];	/**< window counters (atomics) */
};

/* ernic_regs.c */
/** Create the window of @p p at probe (reset values from the devargs). */
int ernic_regs_create(struct ernic_port *p);
/** Free everything, destroying the lib/roce objects made by the flow. */
void ernic_regs_destroy(struct ernic_port *p);
/** Count window event @p c. */
void ernic_regs_count(struct ernic_regs *rg, enum rte_pmd_ernic_reg_cnt c);
/** Set bits in INTSTS (any thread). */
void ernic_regs_int(struct ernic_regs *rg, uint32_t bits);
/** Register block of QP @p qpn, NULL when not mapped. */
struct ernic_reg_qp *ernic_regs_qp(struct ernic_regs *rg, uint32_t qpn);
/** Register value of QP block @p q. */
static inline uint32_t
ernic_rq_get(const struct ernic_reg_qp *q, uint32_t off)
{
	return __atomic_load_n(&q->r[off / 4], __ATOMIC_ACQUIRE);
}
static inline void
ernic_rq_set(struct ernic_reg_qp *q, uint32_t off, uint32_t v)
{
	__atomic_store_n(&q->r[off / 4], v, __ATOMIC_RELEASE);
}
/*
 * After an illegal WQE (ernic_flow_wqe_illegal()), the WQEs complete in
 * order with this status: the illegal one a local QP operation error, every
 * later one flushed (IBTA 10.3.1), from lib/roce's error table; the first
 * call sets q->local_err. Worker of the QP only.
 */
static inline uint8_t
ernic_local_err_status(struct ernic_reg_qp *q)
{
	enum roce_err e = q->local_err ? ROCE_ERR_FLUSH : ROCE_ERR_LOC_QP_OP;

	q->local_err = true;
	return (uint8_t)roce_err_to_wc_status(e);
}

static inline uint64_t
ernic_rq_get64(const struct ernic_reg_qp *q, uint32_t lsb, uint32_t msb)
{
	return (uint64_t)ernic_rq_get(q, msb) << 32 | ernic_rq_get(q, lsb);
}

/* ernic_regs_flow.c: register programming -> lib/roce */
/** Bind the window to the port's new roce_device (first start). */
int ernic_regs_attach(struct ernic_port *p);
/** Tear down every lib/roce object of the window (close). */
void ernic_regs_detach(struct ernic_regs *rg);
/** A PD table entry changed: (re)publish it. */
int ernic_flow_pdt_update(struct ernic_regs *rg, uint32_t idx);
/**
 * A per-QP register was written (window lock held). @p old is the value
 * before; the flow may refuse (negative errno: the write is undone).
 */
int ernic_flow_qp_write(struct ernic_regs *rg, struct ernic_reg_qp *q,
			uint32_t off, uint32_t old, uint32_t val,
			bool override);
/** Live value of a hardware-computed QP register (STATQP, STATMSN...). */
uint32_t ernic_flow_qp_read(struct ernic_regs *rg, struct ernic_reg_qp *q,
			    uint32_t off);
/** XRNICCONF was written: apply the QP count. */
void ernic_flow_conf(struct ernic_regs *rg);
/** Live value of a global counter / status register. */
uint32_t ernic_flow_counter(struct ernic_regs *rg, uint32_t off);
/** Worker hook: completions, RQ pointers, fatal detection, handshake. */
void ernic_regs_worker_poll(struct ernic_port *p, uint16_t widx);

/* ernic_hs.c: hardware handshake ports */
/** Allocate the port of @p q (HS enable). */
int ernic_hs_create(struct ernic_reg_qp *q, uint32_t rq_pending);
void ernic_hs_destroy(struct ernic_reg_qp *q);
/** Worker: take WQEs posted on the port and hand them to lib/roce. */
void ernic_hs_run(struct ernic_reg_qp *q);
/** Worker: deliver a send completion / a filled RQ buffer to the port. */
void ernic_hs_complete(struct ernic_reg_qp *q, uint16_t wrid, uint8_t opcode,
		       uint8_t status);
void ernic_hs_rq_filled(struct ernic_reg_qp *q);

/* shared WQE decoding (ernic_regs_flow.c) */
/**
 * Post the 64-byte PG332 WQE @p wqe of SQ index @p idx to the QP. 0, or
 * -ENOTSUP for an illegal opcode, or the errno of roce_post_send().
 */
int ernic_flow_post_wqe(struct ernic_reg_qp *q, const uint8_t *wqe,
			uint32_t idx);
/**
 * WQE @p idx of @p opcode could not be posted (@p why: -ENOTSUP for an
 * illegal opcode, INTSTS[5]): the QP goes fatal and the WQE and the later
 * ones complete in error, in order (control thread or the owner worker).
 */
void ernic_flow_wqe_illegal(struct ernic_reg_qp *q, uint32_t idx,
			    uint8_t opcode, int why);
/** Post RQ buffer @p idx (RQBA + idx * bufsize) as a receive WR. */
int ernic_flow_post_rqbuf(struct ernic_reg_qp *q, uint32_t idx);

#endif /* ERNIC_REGS_H */
