/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_PRIV_H
#define ROCE_PRIV_H

/*
 * Internal object layout of libroce, shared by its modules (not installed).
 *
 * Ownership (doc/guides/architecture.rst):
 * - device tables (QPN table, MR/MW key table) are written by the control
 *   thread and published with release stores; workers read them lock-free;
 * - a QP, its engines' state, its timers and the consumer ends of its queues
 *   belong to exactly one worker;
 * - posters own the producer index of a work queue, pollers the consumer
 *   index of a CQ; indexes are free-running uint32_t, slots are idx & mask.
 *
 * Module map: roce_device.c (device, worker-independent tables, async
 * events), roce_pd.c, roce_mr.c (MR, MW, key checks), roce_cq.c, roce_srq.c,
 * roce_qp.c (create/modify/query, transition table), roce_post.c (post_send,
 * post_recv), roce_req.c / roce_comp.c / roce_resp.c (engines),
 * roce_worker.c (RX dispatch, poll loop, TX batching, control exec),
 * roce_timer.c, roce_err.c (the one error table).
 *
 * A driver never includes this header: what it may use of the objects
 * below is roce_driver.h (included here, so both sides share one
 * declaration of each function and of the per-QP counters).
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "roce_cc.h"
#include "roce_driver.h"
#include "roce_err.h"
#include "roce_log.h"
#include "roce_timer.h"
#include "roce_txbuf.h"
#include "roce_verbs.h"

/* ------------------------------------------------------------------ */
/* Work queues (SQ, RQ, SRQ): SPSC rings of fixed-size WQE slots       */
/* ------------------------------------------------------------------ */

struct roce_key_entry;

/** A send WQE as kept in the SQ (followed by SGEs or inline bytes). */
struct roce_send_wqe {
	uint64_t wr_id;
	uint8_t opcode;		/**< enum roce_wr_opcode */
	uint8_t send_flags;	/**< enum roce_send_flags */
	uint8_t num_sge;	/**< 0 for inline: data follows in sge[] space */
	uint8_t state;		/**< enum roce_wqe_state, worker-owned */
	uint32_t length;	/**< total message bytes */
	uint32_t imm_data;	/**< immediate (network order) or rkey to invalidate */
	uint32_t first_psn;	/**< requester: PSN of its first packet */
	uint32_t last_psn;	/**< requester: PSN of its last packet */
	uint32_t status;	/**< enum roce_err of a failed WQE */
	union {
		struct {
			uint64_t va;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t va;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct roce_ah_attr ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct {
			struct roce_mw *mw;
			struct roce_mr *mr;
			uint64_t addr;
			uint64_t length;
			uint32_t rkey;
			int access;
		} bind;
	};
	/**
	 * sge[0] as checked by roce_post_send() (a struct roce_key_ref):
	 * host address of sge[0].addr, the key entry (NULL: check at use)
	 * and its state then. The requester uses it while the state is
	 * unchanged (one load) instead of checking the lkey again.
	 */
	uint8_t *sge0_host;
	const struct roce_key_entry *sge0_entry;
	uint32_t sge0_state;
	struct roce_sge sge[];	/**< num_sge entries, or inline bytes */
};

/** Progress of a send WQE, set by the engines. */
enum roce_wqe_state {
	ROCE_WQE_POSTED = 0,	/**< not started by the requester */
	ROCE_WQE_PENDING,	/**< partly sent */
	ROCE_WQE_SENT,		/**< every packet sent, waiting for ACK/response */
	ROCE_WQE_DONE,		/**< completed by the completer */
	ROCE_WQE_ERROR,		/**< failed; status holds the cause */
};

/** A receive WQE as kept in the RQ or SRQ. */
struct roce_recv_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;	/**< sum of the SGE lengths */
	struct roce_sge sge[];
};

/** Result of a key check: the host pointer to read or write. */
struct roce_key_ref {
	uint8_t *host;
	const struct roce_key_entry *entry;	/**< NULL for a zero length */
	uint32_t state;			/**< entry state when checked */
};

/**
 * The last key one checker saw pass: the entry's whole range and rights and
 * its state word then. A check of the same key, the entry's state unchanged
 * (any deregistration, re-registration, invalidation or rebind changes it),
 * is one load and a range and rights comparison
 * (roce_key_check_local_cached(), roce_key_check_remote_cached()). One per
 * queue and checker: its PD (and QPN) are the QP's, fixed. Written only by
 * the thread that checks (the poster of a send or receive queue, the
 * responder); zeroed: empty.
 */
struct roce_key_cache {
	struct roce_key_ref ref;	/**< entry, state; host of @p va */
	uint64_t va;			/**< the entry's first address */
	uint64_t len;			/**< and length */
	uint32_t key;
	int access;			/**< rights the entry grants */
};

/** A single-producer single-consumer ring of WQE slots. */
struct roce_wq {
	/** Written by the poster (release), read by the worker (acquire). */
	uint32_t prod __rte_cache_aligned;
	/** The poster's: the last L_Key its WRs passed. */
	struct roce_key_cache lkc;
	/** Oldest entry not yet completed; written by the worker. */
	uint32_t cons __rte_cache_aligned;
	/*
	 * The ring's shape, set at create: on the consumer's line, which
	 * both sides read for every WR anyway (the poster its fill level,
	 * the worker its next slot), not on a third.
	 */
	uint32_t mask;		/**< slots - 1 (slots is a power of two) */
	uint8_t *buf;
	uint32_t max_wr;	/**< at most this many posted and not completed */
	uint32_t stride;	/**< bytes per slot */
	uint32_t max_sge;
	uint32_t max_inline;
};

static_assert(offsetof(struct roce_wq, cons) == RTE_CACHE_LINE_SIZE,
	      "the poster's fields fit one cache line");
static_assert(offsetof(struct roce_wq, max_inline) + sizeof(uint32_t) <=
	      2 * RTE_CACHE_LINE_SIZE,
	      "the consumer index and the ring's shape share one cache line");

/*
 * The completion opcode of each send WR opcode (IBTA 11.4.2.1; the
 * completer and the flush both use it; roce_post.c).
 */
extern const uint8_t roce_wr_wc_opcodes[ROCE_WR_OPCODE_MAX];

static inline enum roce_wc_opcode
roce_wr_wc_opcode(uint8_t op)
{
	return op < ROCE_WR_OPCODE_MAX ?
		(enum roce_wc_opcode)roce_wr_wc_opcodes[op] : ROCE_WC_SEND;
}

static inline void *
roce_wq_slot(const struct roce_wq *q, uint32_t idx)
{
	return q->buf + (size_t)(idx & q->mask) * q->stride;
}

/** Entries posted and not yet completed (poster's view). */
static inline uint32_t
roce_wq_used(const struct roce_wq *q)
{
	return q->prod - __atomic_load_n(&q->cons, __ATOMIC_ACQUIRE);
}

/**
 * Allocate slots for @p max_wr WQEs of @p stride bytes on @p socket
 * (max_wr 0: no slots, every post finds the queue full). Resets the
 * indexes; keeps q->max_sge and q->max_inline as the caller set them.
 * Returns 0, -EINVAL (NULL, stride 0, max_wr above ROCE_MAX_QP_WR) or
 * -ENOMEM.
 */
int roce_wq_init(struct roce_wq *q, uint32_t max_wr, uint32_t stride,
		 int socket);
void roce_wq_fini(struct roce_wq *q);

/* ------------------------------------------------------------------ */
/* Device, PD, MR/MW                                                  */
/* ------------------------------------------------------------------ */

/**
 * One entry of the device key table (index = key >> 8). MRs and MWs share
 * the table, so an rkey names either. Readers (any worker) load @c state
 * with acquire, check it, read the fields, and re-load @c state to detect a
 * concurrent change (the seqlock pattern); writers bump @c state.
 */
struct roce_key_entry {
	/** bit 31: valid, bits 8..30: generation, bits 0..7: key byte. */
	uint32_t state;
	uint8_t type;		/**< enum roce_key_type */
	uint8_t fixed;		/**< MR of roce_reg_mr_fixed(): invalidatable */
	uint8_t pad[2];
	int access;		/**< enum roce_access_flags */
	struct roce_pd *pd;
	uint64_t va;		/**< first valid address as the peer names it */
	uint64_t length;
	uint8_t *host;		/**< host address of va */
	/**
	 * IOVA of host when the whole range is IOVA-contiguous DPDK memory
	 * (roce_txbuf_range_iova()), else RTE_BAD_IOVA: zero-copy transmit
	 * then looks each packet's range up.
	 */
	rte_iova_t iova;
	/** Memseg list of host (IOVA as PA, DPDK memory), else NULL. */
	const struct rte_memseg_list *msl;
	struct roce_mr *mr;	/**< MR entry or, for an MW, the bound MR */
	struct roce_mw *mw;	/**< MW entry */
	uint32_t qpn;		/**< type 2 MW: the QP it is bound to */
	/**
	 * Zero-copy TX mbufs ever attached to this entry's memory (atomic,
	 * outside the seqlock, written by the sending workers); those freed
	 * are counted apart, in roce_device::zc_dropped, by whichever core
	 * frees them, so that no cache line crosses cores per packet.
	 * Deregistration waits for roce_key_zc_inflight() == 0 before the
	 * memory is handed back (lib/ernic_pmd/ernic_mr_svc.c).
	 */
	uint32_t zc_taken;
};

enum roce_key_type {
	ROCE_KEY_FREE = 0,
	ROCE_KEY_MR,
	ROCE_KEY_MW,
};

#define ROCE_KEY_VALID (1u << 31)

/** roce_worker::qs_seen and roce_device::qs_read_seen of a reader that is not reading. */
#define ROCE_QS_OFFLINE UINT64_MAX
/** Concurrent slow-path readers of the QPN table (roce_qp_read_begin()). */
#define ROCE_QS_READERS 4

struct roce_device {
	char name[32];
	struct roce_device_config cfg;
	struct roce_device_attr attr;
	rte_spinlock_t ctl_lock;	/**< control-path allocations */

	/** QPN -> QP, published with release stores; 0 and 1 reserved. */
	struct roce_qp **qp_table;
	uint32_t qpn_mask;		/**< max_qp - 1 (power of two) */
	uint32_t qpn_next;		/**< allocation cursor */
	/** roce_qpn_alloc() numbers from here (roce_qpn_reserve()), >= 2 */
	uint32_t qpn_first;

	/**
	 * QP reclamation (roce_qp.c): a destroyed QP leaves the QPN table at
	 * once and is freed only when every reader of the table passed a
	 * quiescent point after that: each worker (roce_worker_quiescent())
	 * and the slow reader slot (roce_qp_read_begin()/end()).
	 */
	uint64_t qs_epoch;		/**< grace period counter (atomic) */
	struct roce_worker *qs_workers;	/**< workers of the device (ctl_lock) */
	struct roce_qp *qs_limbo;	/**< retired QPs, not yet freed (ctl_lock) */
	uint32_t nb_qs_limbo;
	/** Slow readers' epochs, ROCE_QS_OFFLINE for a free slot. */
	uint64_t qs_read_seen[ROCE_QS_READERS];
	void *qs_quarantine;		/**< ASan builds: poisoned QPs, oldest first (roce_qp.c) */
	void *qs_quarantine_tail;	/**< ... newest */
	uint32_t nb_qs_quarantine;

	/**
	 * Key table: nb_keys = max_mr + 1 entries; index 0 is reserved so
	 * that key 0 (a zeroed SGE) never validates. Look keys up through
	 * roce_key_check_local/remote(), never directly.
	 */
	struct roce_key_entry *keys;
	/** Per key index: zero-copy mbufs freed (roce_key_entry::zc_taken). */
	uint32_t *zc_dropped;
	uint32_t nb_keys;
	uint32_t key_next;		/**< allocation cursor */
	/** Indexes [0, key_fixed) are for roce_reg_mr_fixed() only. */
	uint32_t key_fixed;

	uint32_t nb_pd, nb_mr, nb_mw, nb_cq, nb_qp, nb_srq, nb_worker;
	uint32_t pd_handle_next;	/**< next roce_pd.handle */

	/** Async events: a small MPSC ring guarded by a spinlock (slow path). */
	rte_spinlock_t ev_lock;
	struct roce_async_event *ev_ring;
	uint32_t ev_head, ev_tail, ev_mask;
	uint64_t ev_dropped;
	/** Congestion control parameters (roce_cc.c; relaxed atomics) */
	uint32_t cc[ROCE_CC_PARAM_MAX];
	/** ACK coalescing (cfg.ack_pkts/ack_us resolved): packets, TSC */
	uint32_t ack_pkts;
	uint64_t ack_tsc;
	roce_event_observer_t ev_observer;	/**< under ev_lock */
	void *ev_observer_ctx;
	bool port_up;
};

/**
 * The QP numbered @p qpn, NULL when none (RX dispatch, any thread). The
 * table slot is published with a release store by roce_qpn_alloc*().
 */
static inline struct roce_qp *
roce_qp_lookup(const struct roce_device *dev, uint32_t qpn)
{
	if (unlikely(qpn > dev->qpn_mask))
		return NULL;
	return __atomic_load_n(&dev->qp_table[qpn], __ATOMIC_ACQUIRE);
}

/**
 * Give @p qp a free QPN >= 2 (control path): sets qp->qpn, publishes @p qp
 * in the QPN table (release: initialise the QP before calling; it may be
 * looked up at once, so it must be in RESET) and counts it in dev->nb_qp.
 * QPNs are handed out round-robin so a freed number is reused as late as
 * possible. Returns the QPN, -EINVAL (NULL args) or -ENOMEM (no QPN left).
 */
int roce_qpn_alloc(struct roce_device *dev, struct roce_qp *qp);

/**
 * Like roce_qpn_alloc() with the number @p qpn chosen by the caller: QP1
 * (GSI) for the CM, or any free QPN. QPN 0 (SMI) does not exist on RoCE.
 * Returns @p qpn, -EINVAL (0 or out of range) or -EBUSY (taken).
 */
int roce_qpn_alloc_fixed(struct roce_device *dev, struct roce_qp *qp,
			 uint32_t qpn);

/**
 * Unpublish qp->qpn and uncount the QP (control path). The caller must
 * make sure no worker still uses the pointer it may have looked up (detach
 * the QP on its worker through roce_worker_exec() before freeing it).
 */
void roce_qpn_free(struct roce_device *dev, struct roce_qp *qp);

/**
 * Move @p qp from its number to the free number @p qpn in one step under
 * the control lock (roce_qp_renumber() runs it on the QP's worker).
 * Returns 0, -EINVAL (out of range) or -EBUSY (@p qpn taken by another
 * QP: nothing changes).
 */
int roce_qpn_move(struct roce_device *dev, struct roce_qp *qp, uint32_t qpn);


/**
 * Free the retired QPs whose grace period is over (roce_qp.c); with
 * @p force (no reader left: device destroy) free them all. Control path.
 * Returns the number still waiting.
 */
unsigned int roce_qp_reclaim(struct roce_device *dev, bool force);

/**
 * Copy GID table entry @p index (control path: takes the control lock so a
 * concurrent roce_device_set_gid() is never seen half written).
 * Returns 0, -EINVAL (bad args) or -ENOENT (entry empty).
 */
int roce_device_get_gid(struct roce_device *dev, unsigned int index,
			union roce_gid *gid);

struct roce_pd {
	struct roce_device *dev;
	uint32_t handle;
	uint32_t refcnt;		/**< MRs, MWs, QPs, SRQs using it */
};

/** Take a reference on @p pd for an object using it (QP, SRQ, MR, MW). */
static inline void
roce_pd_get(struct roce_pd *pd)
{
	__atomic_fetch_add(&pd->refcnt, 1, __ATOMIC_RELAXED);
}

/** Drop the reference of roce_pd_get(). */
static inline void
roce_pd_put(struct roce_pd *pd)
{
	__atomic_fetch_sub(&pd->refcnt, 1, __ATOMIC_RELEASE);
}

struct roce_mr {
	struct roce_pd *pd;
	uint32_t index;			/**< key table index */
	uint32_t lkey, rkey;
	void *addr;
	size_t length;
	uint64_t va;			/**< address of addr in the MR's space */
	rte_iova_t iova;		/**< of addr, roce_key_entry::iova */
	const struct rte_memseg_list *msl;	/**< roce_key_entry::msl */
	int access;
	uint32_t mw_bound;		/**< memory windows bound to it */
};

struct roce_mw {
	struct roce_pd *pd;
	enum roce_mw_type type;
	uint32_t index;
	uint32_t rkey;			/**< current rkey (valid only when bound) */
};

/**
 * The zero-copy counters of the entry checked into @p ref (a key of
 * @p dev) for roce_txbuf_attach_ref(); both NULL for none.
 */
static inline struct roce_txbuf_count
roce_key_ref_zc(const struct roce_device *dev, const struct roce_key_ref *ref)
{
	struct roce_txbuf_count c = { NULL, NULL };
	uint32_t idx;

	if (ref == NULL || ref->entry == NULL)
		return c;
	idx = (uint32_t)(ref->entry - dev->keys);
	/* written outside the seqlock, atomically */
	c.taken = (uint32_t *)(uintptr_t)&ref->entry->zc_taken;
	c.dropped = &dev->zc_dropped[idx];
	return c;
}

/**
 * IOVA of the payload [@p addr, @p addr + @p len), host memory inside the
 * key checked into @p ref, for zero-copy transmit: from the entry's cached
 * translation when the whole region is IOVA-contiguous, else looked up in
 * the entry's memseg list through the calling worker's page cache @p ic
 * (not NULL; roce_txbuf_iova_cached(), tagged with the entry and its
 * state).
 * RTE_BAD_IOVA: none (the caller copies). The entry's fields are read as a
 * seqlock reader: a key changed since the check gets the full lookup.
 */
static inline rte_iova_t
roce_key_ref_iova(const struct roce_key_ref *ref, const void *addr,
		  uint32_t len, struct roce_txbuf_iova_cache *ic)
{
	const struct roce_key_entry *e = ref != NULL ? ref->entry : NULL;
	const struct rte_memseg_list *msl;
	const uint8_t *host;
	rte_iova_t iova;

	if (e == NULL)
		return roce_txbuf_iova(addr, len, NULL);
	iova = e->iova;
	host = e->host;
	msl = e->msl;
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (unlikely(__atomic_load_n(&e->state, __ATOMIC_RELAXED) !=
		     ref->state))
		return roce_txbuf_iova(addr, len, NULL);
	if (likely(iova != RTE_BAD_IOVA))
		return iova + (uintptr_t)((const uint8_t *)addr - host);
	return roce_txbuf_iova_cached(addr, len, msl, ic, e, ref->state);
}

/**
 * True while the key checked into @p ref is unchanged (not deregistered,
 * re-registered, invalidated or rebound since): one load, for engines that
 * keep a checked reference across the packets of a message.
 */
static inline bool
roce_key_ref_valid(const struct roce_key_ref *ref)
{
	return ref->entry == NULL ||
		__atomic_load_n(&ref->entry->state, __ATOMIC_ACQUIRE) ==
		ref->state;
}

/**
 * Check a local SGE: key valid and of @p pd, [addr, addr+len) inside it, and
 * the rights in @p access (ROCE_ACCESS_LOCAL_WRITE for a buffer written by
 * the device). Returns ROCE_OK or ROCE_ERR_LOC_PROT.
 */
enum roce_err roce_key_check_local(const struct roce_device *dev,
				   const struct roce_pd *pd, uint32_t lkey,
				   uint64_t addr, uint64_t len, int access,
				   struct roce_key_ref *ref);

/**
 * Check a remote access (RETH/AtomicETH): rkey valid, same PD as the QP,
 * bound to @p qpn when it is a type 2 MW, bounds without 64-bit overflow,
 * rights (@p access: ROCE_ACCESS_REMOTE_READ, _WRITE or _ATOMIC). Returns
 * ROCE_OK or ROCE_ERR_LOC_ACCESS: the responder's own view of an inbound
 * access violation, whose roce_err_to_nak() is the remote access error
 * syndrome 0x62 (IBTA 9.7.4.1.5) and whose status is the one of a WRITE
 * with immediate's receive WQE (Local Access Error).
 *
 * Zero-length accesses (@p len 0) return ROCE_OK with ref->host NULL and no
 * key check at all: a zero-length RDMA READ/WRITE need not carry a valid
 * rkey or VA (IBTA C9-88). The same holds for roce_key_check_local():
 * a zero-length SGE touches no memory and is not checked.
 */
enum roce_err roce_key_check_remote(const struct roce_device *dev,
				    const struct roce_pd *pd, uint32_t qpn,
				    uint32_t rkey, uint64_t va, uint64_t len,
				    int access, struct roce_key_ref *ref);

/**
 * The reference roce_post_send() checked for sge[0] of @p wqe (with local
 * write for a READ or an atomic), @p off bytes into it, while the key's
 * entry is unchanged: true with @p ref filled (one load); false when the
 * SGE must be checked again (its key changed since, or none was checked).
 */
static __rte_always_inline bool
roce_wqe_sge0_ref(const struct roce_send_wqe *wqe, uint32_t off,
		  struct roce_key_ref *ref)
{
	if (unlikely(wqe->sge0_entry == NULL) ||
	    __atomic_load_n(&wqe->sge0_entry->state, __ATOMIC_ACQUIRE) !=
	    wqe->sge0_state)
		return false;
	ref->host = wqe->sge0_host + off;
	ref->entry = wqe->sge0_entry;
	ref->state = wqe->sge0_state;
	return true;
}

/**
 * The pieces of message bytes [off, off + len) in an SGE list, SGE by SGE:
 * the one walk of the requester's gather and the completer's and
 * responder's scatters. roce_sge_walk_next() gives the next piece (@c i
 * its SGE, @c addr and @c n its address and length) until the bytes are
 * placed or the list ends; @c len left over is a local length error.
 */
struct roce_sge_walk {
	const struct roce_sge *sge;
	uint32_t num;		/**< SGEs in the list */
	uint32_t i;		/**< the current piece's SGE */
	uint32_t off;		/**< offset into SGE i of the next piece */
	uint32_t len;		/**< bytes still to place */
	uint64_t addr;		/**< the current piece */
	uint32_t n;
};

static inline void
roce_sge_walk_init(struct roce_sge_walk *w, const struct roce_sge *sge,
		   uint32_t num, uint32_t off, uint32_t len)
{
	w->sge = sge;
	w->num = num;
	w->i = 0;
	w->off = off;
	w->len = len;
	w->n = 0;
	/* skip the SGEs before off */
	while (w->i < num && w->off >= sge[w->i].length) {
		w->off -= sge[w->i].length;
		w->i++;
	}
}

/** The next piece in w->i/addr/n: false when every byte is placed or no SGE is left. */
static inline bool
roce_sge_walk_next(struct roce_sge_walk *w)
{
	if (w->n != 0) {	/* the previous piece is done */
		w->len -= w->n;
		w->i++;
		w->off = 0;
		w->n = 0;
	}
	while (w->i < w->num && w->len != 0 && w->sge[w->i].length == 0)
		w->i++;
	if (w->len == 0 || w->i >= w->num)
		return false;
	w->addr = w->sge[w->i].addr + w->off;
	w->n = RTE_MIN(w->sge[w->i].length - w->off, w->len);
	return true;
}

/** The rights a remote access asks for (RETH, AtomicETH). */
#define ROCE_ACCESS_REMOTE_ANY (ROCE_ACCESS_REMOTE_READ | \
				ROCE_ACCESS_REMOTE_WRITE | \
				ROCE_ACCESS_REMOTE_ATOMIC)

/** [addr, addr+len) inside [base, base+size), len > 0, no wrap anywhere. */
static inline bool
roce_range_inside(uint64_t base, uint64_t size, uint64_t addr, uint64_t len)
{
	return addr >= base && len <= size && addr - base <= size - len;
}

/**
 * True, with @p ref filled, when @p kc holds @p key, its entry is unchanged
 * since, it grants every right in @p need and [addr, addr+len) lies inside
 * it (len > 0).
 */
static __rte_always_inline bool
roce_key_cache_hit(const struct roce_key_cache *kc, uint32_t key,
		   uint64_t addr, uint64_t len, int need,
		   struct roce_key_ref *ref)
{
	if (len == 0 || kc->ref.entry == NULL || kc->key != key ||
	    (need & ~kc->access) != 0 ||
	    !roce_range_inside(kc->va, kc->len, addr, len) ||
	    !roce_key_ref_valid(&kc->ref))
		return false;
	ref->host = kc->ref.host + (addr - kc->va);
	ref->entry = kc->ref.entry;
	ref->state = kc->ref.state;
	return true;
}

/**
 * roce_key_check_local() that refills @p kc on success (the cache miss of
 * roce_key_check_local_cached()).
 */
enum roce_err roce_key_check_local_fill(const struct roce_device *dev,
					const struct roce_pd *pd,
					uint32_t lkey, uint64_t addr,
					uint64_t len, int access,
					struct roce_key_ref *ref,
					struct roce_key_cache *kc);

/**
 * roce_key_check_local() through @p kc (owned by the caller's thread, for
 * QP's @p pd): the same results, @p ref required.
 */
static __rte_always_inline enum roce_err
roce_key_check_local_cached(const struct roce_device *dev,
			    const struct roce_pd *pd, uint32_t lkey,
			    uint64_t addr, uint64_t len, int access,
			    struct roce_key_ref *ref, struct roce_key_cache *kc)
{
	if (likely(roce_key_cache_hit(kc, lkey, addr, len,
				      access & ROCE_ACCESS_LOCAL_WRITE, ref)))
		return ROCE_OK;
	return roce_key_check_local_fill(dev, pd, lkey, addr, len, access,
					 ref, kc);
}

/**
 * roce_key_check_remote() that refills @p kc on success (the cache miss of
 * roce_key_check_remote_cached()).
 */
enum roce_err roce_key_check_remote_fill(const struct roce_device *dev,
					 const struct roce_pd *pd,
					 uint32_t qpn, uint32_t rkey,
					 uint64_t va, uint64_t len,
					 int access, struct roce_key_ref *ref,
					 struct roce_key_cache *kc);

/**
 * roce_key_check_remote() through the responder's per-QP @p kc (the QP's
 * @p pd and @p qpn): the same results.
 */
static __rte_always_inline enum roce_err
roce_key_check_remote_cached(const struct roce_device *dev,
			     const struct roce_pd *pd, uint32_t qpn,
			     uint32_t rkey, uint64_t va, uint64_t len,
			     int access, struct roce_key_ref *ref,
			     struct roce_key_cache *kc)
{
	if (likely((access & ROCE_ACCESS_REMOTE_ANY) != 0 &&
		   roce_key_cache_hit(kc, rkey, va, len,
				      access & ROCE_ACCESS_REMOTE_ANY, ref)))
		return ROCE_OK;
	return roce_key_check_remote_fill(dev, pd, qpn, rkey, va, len, access,
					  ref, kc);
}

/**
 * An atomic's VA must be 8-byte aligned (IBTA 9.4.5); the responder NAKs a
 * misaligned one with Invalid Request (ROCE_ERR_REM_INV_REQ's syndrome).
 */
static inline bool
roce_atomic_aligned(uint64_t va)
{
	return (va & 7) == 0;
}

/**
 * Invalidate @p rkey (Local Invalidate WR, SEND with Invalidate). Only a
 * bound type 2 MW of @p pd named by its exact current rkey can be
 * invalidated (IBTA 10.6.7.2.x; type 1 windows: o10-37.2.26); MRs made by
 * roce_reg_mr() are never invalidated (they are not fast-registered
 * regions). The window goes back to the free state and may be bound again.
 * Returns ROCE_OK or ROCE_ERR_LOC_QP_OP (the status of a failed Local
 * Invalidate WR); a responder refusing a SEND with Invalidate NAKs it as an
 * invalid request (use ROCE_ERR_REM_INV_REQ as the cause there).
 */
enum roce_err roce_key_invalidate(struct roce_device *dev,
				  const struct roce_pd *pd, uint32_t rkey);

/**
 * Bind a type 2 MW (executed by the owning worker in SQ order) from
 * wqe->bind: MR with MW_BIND access (C10-73), window free (o10-37.2.30),
 * same PD for QP, MW and MR (C10-72), non-empty range inside the MR
 * (C10-75, o10-37.2.40), remote write/atomic only on an MR with local
 * write (C10-74), rkey index of the window with the user's key byte. The
 * window is bound to qp->qpn. Returns ROCE_OK or ROCE_ERR_MW_BIND.
 */
enum roce_err roce_mw_bind(struct roce_device *dev, struct roce_qp *qp,
			   const struct roce_send_wqe *wqe);

/**
 * Destroy QP: invalidate every type 2 MW still bound to @p qp, so that a
 * later QP given the same QPN in the same PD cannot use them (IBTA
 * 10.6.7.2: a type 2 window is bound to one QP; it dies with it). Scans the
 * key table under ctl_lock only when qp->mw_bound says a window may be
 * bound. Called on the QP's worker while the QPN is still published.
 */
void roce_mw_unbind_qp(struct roce_qp *qp);

/* ------------------------------------------------------------------ */
/* CQ and SRQ                                                         */
/* ------------------------------------------------------------------ */

struct roce_cq {
	uint32_t prod __rte_cache_aligned;	/**< worker */
	uint32_t cons_cache;		/**< worker: last cons seen */
	uint64_t dropped;		/**< worker: completions refused (full) */
	uint32_t cons __rte_cache_aligned;	/**< poller */
	struct roce_wc *ring __rte_cache_aligned;
	uint32_t mask;
	uint32_t depth;			/**< usable entries */
	bool overflow;			/**< set by the worker, sticky */
	struct roce_worker *w;
	struct roce_device *dev;
	uint32_t refcnt;		/**< QPs using it (atomic) */
	/* completion events (roce_cq.c): set while no QP uses the CQ */
	struct roce_comp_channel *channel;	/**< NULL: no events */
	void *cq_context;			/**< returned by roce_get_cq_event() */
	uint32_t armed;			/**< roce_req_notify_cq() (atomic) */
	uint32_t events;		/**< events raised (worker, atomic) */
	uint32_t events_acked;		/**< roce_ack_cq_events() (poller) */
};

/**
 * Push one completion (worker only). On a full CQ: the CQ becomes errored,
 * ROCE_EVENT_CQ_ERR is raised once, and -ENOSPC is returned so the caller
 * moves the QP to the error state (IBTA 11.4.2.1 CQ overrun).
 */
int roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc);

struct roce_srq {
	struct roce_wq rq;
	/* the consumer side is shared by the QPs of one worker */
	struct roce_pd *pd;
	struct roce_worker *w;
	uint32_t limit;			/**< 0: not armed (atomic) */
	bool error;			/**< error state, sticky (atomic; roce_srq.c) */
	uint32_t refcnt;		/**< QPs using it (atomic) */
	bool lkey_at_exec;		/**< roce_srq_attr::lkey_at_exec */
	uint64_t limit_events;		/**< SRQ_LIMIT_REACHED raised */
	uint64_t err_events;		/**< SRQ_ERR raised (0 or 1) */
};

/**
 * The next receive WQE of the SRQ (worker only), NULL when empty or in the
 * error state (a malformed head WQE puts it there, raising
 * ROCE_EVENT_SRQ_ERR once: IBTA 11.6.3). It stays
 * at the head until roce_srq_consume(): several QPs share the SRQ, so a
 * responder copies it out and consumes it at once, then fills its copy.
 */
struct roce_recv_wqe *roce_srq_next(struct roce_srq *srq);

/**
 * Retire the WQE returned by roce_srq_next(): its slot goes back to the
 * poster. When the WQEs left drop below the armed limit,
 * ROCE_EVENT_SRQ_LIMIT_REACHED is raised once and the limit disarmed
 * (IBTA 10.2.9.3).
 */
void roce_srq_consume(struct roce_srq *srq);

/* ------------------------------------------------------------------ */
/* Async events                                                       */
/* ------------------------------------------------------------------ */

/** Queue an async event (any thread). Counted in ev_dropped when full. */
void roce_event_raise(struct roce_device *dev, enum roce_event_type type,
		      void *element, uint32_t qpn, enum roce_err err);

/* ------------------------------------------------------------------ */
/* Worker                                                             */
/* ------------------------------------------------------------------ */

/** Queue one frame for transmission at the end of this poll (worker only). */
void roce_worker_tx(struct roce_worker *w, struct rte_mbuf *m);
/** Hand the batched frames to the driver's callback (roce_worker_io.c). */
void roce_worker_tx_flush(struct roce_worker *w);

/** Tell the worker a QP has send work (any thread: doorbell). */
void roce_worker_doorbell(struct roce_worker *w, struct roce_qp *qp);

#endif /* ROCE_PRIV_H */
