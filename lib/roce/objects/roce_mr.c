/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions, type 2 memory windows and the key checks of the
 * datapath.
 *
 * Keys are (index << 8 | key byte). MRs and MWs share the device key table
 * (index 0 reserved, so key 0 never validates). An MR's lkey and rkey are
 * the same key. The key byte of an index changes with every registration
 * (reg, rereg, window allocation) and, for a window, is the user's choice
 * at every bind: an old key names the right index with the wrong key byte
 * and fails.
 *
 * Publication (struct roce_key_entry): the entry state holds valid bit,
 * generation and key byte. Writers serialise on the entry by moving the
 * generation to an odd value with a CAS (clearing the valid bit), write the
 * fields, and store the next even generation with release. Readers load
 * the state, copy the entry, and retry when the state changed meanwhile
 * (seqlock). Writers are the control thread (reg/rereg/dereg, window
 * allocation) and workers (bind, invalidate); readers are workers.
 *
 * MR deregistration against a concurrent bind: the binder increments
 * mr->mw_bound and then loads the MR state, deregistration invalidates the
 * state and then loads mw_bound, both sequentially consistent: one of the
 * two always sees the other (dereg gets -EBUSY or the bind fails).
 *
 * Memory is the process's own: nothing to pin; registration only records
 * the range and rights.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce_priv.h"
#include "roce_qp.h"

#define KEY_GEN_ONE (1u << 8)
#define KEY_GEN_MASK 0x7fffff00u
#define KEY_BYTE(s) ((uint8_t)((s) & 0xffu))

#define ACCESS_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_ANY | \
		    ROCE_ACCESS_MW_BIND | ROCE_ACCESS_ZERO_BASED)
#define REREG_ALL (ROCE_REREG_MR_KEEP_KEYS | \
		   ROCE_REREG_MR_CHANGE_TRANSLATION | \
		   ROCE_REREG_MR_CHANGE_PD | ROCE_REREG_MR_CHANGE_ACCESS)

/* ------------------------------------------------------------------ */
/* Entry publication                                                  */
/* ------------------------------------------------------------------ */

static inline bool
key_writing(uint32_t s)
{
	return (s & KEY_GEN_ONE) != 0;	/* odd generation */
}

/** Own @p e for writing; returns its state before (for key_write_end). */
static uint32_t
key_write_begin(struct roce_key_entry *e)
{
	uint32_t s, w;

	for (;;) {
		s = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
		if (key_writing(s)) {
			rte_pause();
			continue;
		}
		w = (((s & KEY_GEN_MASK) + KEY_GEN_ONE) & KEY_GEN_MASK) |
			KEY_BYTE(s);
		if (__atomic_compare_exchange_n(&e->state, &s, w, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			break;
	}
	/* the odd state is visible before any field changes */
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

/** Publish @p e: next even generation after @p old, @p valid, @p key. */
static void
key_write_end(struct roce_key_entry *e, uint32_t old, bool valid, uint8_t key)
{
	uint32_t s = (((old & KEY_GEN_MASK) + 2 * KEY_GEN_ONE) & KEY_GEN_MASK) |
		key | (valid ? ROCE_KEY_VALID : 0);

	__atomic_store_n(&e->state, s, __ATOMIC_SEQ_CST);
}

/**
 * Put @p e back exactly as before key_write_begin(), no field having been
 * written: a reader that straddled the section copied consistent fields,
 * and references taken before stay valid (roce_key_ref_valid()).
 */
static void
key_write_abort(struct roce_key_entry *e, uint32_t old)
{
	__atomic_store_n(&e->state, old, __ATOMIC_SEQ_CST);
}

/**
 * Consistent copy of the valid entry named by @p key into @p out, its state
 * into @p state. False when the index is out of range, the entry invalid or
 * the key byte stale.
 */
static bool
key_read(const struct roce_device *dev, uint32_t key,
	 struct roce_key_entry *out, uint32_t *state)
{
	const struct roce_key_entry *e;
	uint32_t idx = key >> 8, s1, s2;

	/*
	 * Index 0 is never valid (key 0 of a zeroed SGE fails) unless a
	 * reserved fixed entry was registered there (roce_reg_mr_fixed).
	 */
	if (unlikely(idx >= dev->nb_keys))
		return false;
	e = &dev->keys[idx];
	for (;;) {
		/* seq_cst: also the second half of the dereg/bind handshake */
		s1 = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);
		if (unlikely(!(s1 & ROCE_KEY_VALID) ||
			     KEY_BYTE(s1) != (key & 0xffu)))
			return false;
		memcpy(out, e, sizeof(*out));
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&e->state, __ATOMIC_RELAXED);
		if (likely(s1 == s2))
			break;
	}
	*state = s1;
	return true;
}

static inline void
ref_set(struct roce_key_ref *ref, const struct roce_device *dev,
	uint32_t key, uint8_t *host, uint32_t state)
{
	if (ref == NULL)
		return;
	ref->host = host;
	ref->entry = host != NULL ? &dev->keys[key >> 8] : NULL;
	ref->state = state;
}

/* ------------------------------------------------------------------ */
/* Datapath checks                                                    */
/* ------------------------------------------------------------------ */

/*
 * The local key check; on ROCE_OK with @p len non-zero, *e and *state are
 * the entry and its state word that passed.
 */
static inline enum roce_err
key_check_local(const struct roce_device *dev, const struct roce_pd *pd,
		uint32_t lkey, uint64_t addr, uint64_t len, int access,
		struct roce_key_ref *ref, struct roce_key_entry *e,
		uint32_t *state)
{
	/* a zero-length SGE touches no memory: nothing to check */
	if (len == 0) {
		ref_set(ref, dev, lkey, NULL, 0);
		return ROCE_OK;
	}
	if (unlikely(dev == NULL || pd == NULL))
		return ROCE_ERR_LOC_PROT;
	if (unlikely(!key_read(dev, lkey, e, state)))
		return ROCE_ERR_LOC_PROT;
	/* windows have no L_Key: only MRs serve local SGEs (IBTA 10.6.7) */
	if (unlikely(e->type != ROCE_KEY_MR || e->pd != pd))
		return ROCE_ERR_LOC_PROT;
	/* the device writes the buffer: local write needed (IBTA 10.6.3.1) */
	if (unlikely((access & ROCE_ACCESS_LOCAL_WRITE) &&
		     !(e->access & ROCE_ACCESS_LOCAL_WRITE)))
		return ROCE_ERR_LOC_PROT;
	if (unlikely(!roce_range_inside(e->va, e->length, addr, len)))
		return ROCE_ERR_LOC_PROT;
	ref_set(ref, dev, lkey, e->host + (addr - e->va), *state);
	return ROCE_OK;
}

/* The remote key check; *e and *state as for key_check_local(). */
static inline enum roce_err
key_check_remote(const struct roce_device *dev, const struct roce_pd *pd,
		 uint32_t qpn, uint32_t rkey, uint64_t va, uint64_t len,
		 int access, struct roce_key_ref *ref, struct roce_key_entry *e,
		 uint32_t *state)
{
	/* IBTA C9-88: a zero-length READ/WRITE carries no usable rkey/VA */
	if (len == 0) {
		ref_set(ref, dev, rkey, NULL, 0);
		return ROCE_OK;
	}
	if (unlikely(dev == NULL || pd == NULL))
		return ROCE_ERR_LOC_ACCESS;
	if (unlikely(!key_read(dev, rkey, e, state)))
		return ROCE_ERR_LOC_ACCESS;
	/* R_Key of another PD than the QP's (IBTA 10.6.3.2, 10.6.7) */
	if (unlikely(e->pd != pd))
		return ROCE_ERR_LOC_ACCESS;
	/* type 2 windows serve only the QP they are bound to (IBTA 10.6.7.2) */
	if (e->type == ROCE_KEY_MW && unlikely(e->qpn != qpn))
		return ROCE_ERR_LOC_ACCESS;
	if (unlikely(e->type != ROCE_KEY_MR && e->type != ROCE_KEY_MW))
		return ROCE_ERR_LOC_ACCESS;
	/* every requested right must be granted (IBTA 9.7.4.1.5) */
	if (unlikely((access & ~e->access & ROCE_ACCESS_REMOTE_ANY) != 0 ||
		     (access & ROCE_ACCESS_REMOTE_ANY) == 0))
		return ROCE_ERR_LOC_ACCESS;
	if (unlikely(!roce_range_inside(e->va, e->length, va, len)))
		return ROCE_ERR_LOC_ACCESS;
	ref_set(ref, dev, rkey, e->host + (va - e->va), *state);
	return ROCE_OK;
}

/* Keep entry @p e of @p key (state word @p state) in @p kc. */
static void
key_cache_fill(struct roce_key_cache *kc, const struct roce_device *dev,
	       uint32_t key, const struct roce_key_entry *e, uint32_t state)
{
	ref_set(&kc->ref, dev, key, e->host, state);
	kc->va = e->va;
	kc->len = e->length;
	kc->key = key;
	kc->access = e->access;
}

enum roce_err
roce_key_check_local(const struct roce_device *dev, const struct roce_pd *pd,
		     uint32_t lkey, uint64_t addr, uint64_t len, int access,
		     struct roce_key_ref *ref)
{
	struct roce_key_entry e;
	uint32_t state;

	return key_check_local(dev, pd, lkey, addr, len, access, ref, &e,
			       &state);
}

enum roce_err
roce_key_check_remote(const struct roce_device *dev, const struct roce_pd *pd,
		      uint32_t qpn, uint32_t rkey, uint64_t va, uint64_t len,
		      int access, struct roce_key_ref *ref)
{
	struct roce_key_entry e;
	uint32_t state;

	return key_check_remote(dev, pd, qpn, rkey, va, len, access, ref, &e,
				&state);
}

enum roce_err
roce_key_check_local_fill(const struct roce_device *dev,
			  const struct roce_pd *pd, uint32_t lkey,
			  uint64_t addr, uint64_t len, int access,
			  struct roce_key_ref *ref, struct roce_key_cache *kc)
{
	struct roce_key_entry e;
	uint32_t state;
	enum roce_err ret;

	ret = key_check_local(dev, pd, lkey, addr, len, access, ref, &e,
			      &state);
	if (ret == ROCE_OK && len != 0)
		key_cache_fill(kc, dev, lkey, &e, state);
	return ret;
}

enum roce_err
roce_key_check_remote_fill(const struct roce_device *dev,
			   const struct roce_pd *pd, uint32_t qpn,
			   uint32_t rkey, uint64_t va, uint64_t len,
			   int access, struct roce_key_ref *ref,
			   struct roce_key_cache *kc)
{
	struct roce_key_entry e;
	uint32_t state;
	enum roce_err ret;

	ret = key_check_remote(dev, pd, qpn, rkey, va, len, access, ref, &e,
			       &state);
	if (ret == ROCE_OK && len != 0)
		key_cache_fill(kc, dev, rkey, &e, state);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                     */
/* ------------------------------------------------------------------ */

/* A region of @p pd over @p length bytes at @p addr, seen at @p va. */
static struct roce_mr *
mr_new(struct roce_pd *pd, void *addr, uint64_t va, size_t length, int access)
{
	struct roce_mr *mr;

	mr = rte_zmalloc_socket("roce_mr", sizeof(*mr), 0,
				pd->dev->cfg.socket_id);
	if (mr == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->va = va;
	mr->iova = roce_txbuf_range_iova(addr, length);
	mr->msl = roce_txbuf_range_msl(addr);
	mr->access = access;
	return mr;
}

static int
mr_check_access(int access)
{
	if (access & ~ACCESS_ALL)
		return -EINVAL;
	/* IBTA 10.6.3.1: remote write or atomic require local write */
	if ((access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & ROCE_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

static int
mr_check_range(const void *addr, size_t length)
{
	if (addr == NULL || length == 0)
		return -EINVAL;
	/* the last byte must not wrap around the address space */
	if ((uint64_t)length - 1 > UINT64_MAX - (uint64_t)(uintptr_t)addr)
		return -EINVAL;
	return 0;
}

/** A free key index (ctl_lock held, count checked by the caller), or 0. */
static uint32_t
key_index_alloc(struct roce_device *dev)
{
	uint32_t i, idx;

	for (i = 0; i < dev->nb_keys - 1; i++) {
		idx = dev->key_next;
		dev->key_next = idx + 1 == dev->nb_keys ?
			RTE_MAX(1u, dev->key_fixed) : idx + 1;
		if (idx >= dev->key_fixed &&
		    dev->keys[idx].type == ROCE_KEY_FREE)
			return idx;
	}
	return 0;
}

/** Fill an MR entry (being written) from @p mr's fields. */
static void
mr_entry_fill(struct roce_key_entry *e, struct roce_mr *mr)
{
	e->type = ROCE_KEY_MR;
	e->access = mr->access;
	e->pd = mr->pd;
	e->va = (mr->access & ROCE_ACCESS_ZERO_BASED) ? 0 : mr->va;
	e->length = mr->length;
	e->host = mr->addr;
	e->iova = mr->iova;
	e->msl = mr->msl;
	e->mr = mr;
	e->mw = NULL;
	e->qpn = 0;
	e->fixed = 0;
}

static void
entry_clear(struct roce_key_entry *e)
{
	e->type = ROCE_KEY_FREE;
	e->fixed = 0;
	e->access = 0;
	e->pd = NULL;
	e->va = 0;
	e->length = 0;
	e->host = NULL;
	e->iova = RTE_BAD_IOVA;
	e->msl = NULL;
	e->mr = NULL;
	e->mw = NULL;
	e->qpn = 0;
}

/*
 * Take a free key index for a new MR or MW. On success ctl_lock is held
 * (the caller publishes the entry, then unlocks); 0 with the lock released
 * and rte_errno ENOMEM when the table is full.
 */
static uint32_t
key_slot_lock(struct roce_device *dev)
{
	uint32_t idx;

	rte_spinlock_lock(&dev->ctl_lock);
	idx = dev->nb_mr + dev->nb_mw < dev->attr.max_mr ?
		key_index_alloc(dev) : 0;
	if (idx == 0) {
		rte_spinlock_unlock(&dev->ctl_lock);
		ROCE_LOG(ERR, verbs, "device %s: key table full (%u)",
			 dev->name, dev->attr.max_mr);
		rte_errno = ENOMEM;
	}
	return idx;
}

struct roce_mr *
roce_reg_mr_iova(struct roce_pd *pd, void *addr, size_t length, uint64_t va,
		 int access)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_mr *mr;
	uint32_t idx, old;
	uint8_t key;

	/* zero based: the region is [0, length) whatever @p va says */
	if (access & ROCE_ACCESS_ZERO_BASED)
		va = 0;
	if (pd == NULL || mr_check_range(addr, length) < 0 ||
	    mr_check_access(access) < 0 ||
	    (uint64_t)length - 1 > UINT64_MAX - va) {
		ROCE_LOG(ERR, verbs, "reg_mr: invalid argument");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	mr = mr_new(pd, addr, va, length, access);
	if (mr == NULL)
		return NULL;

	idx = key_slot_lock(dev);
	if (idx == 0) {
		rte_free(mr);
		return NULL;
	}
	e = &dev->keys[idx];
	old = key_write_begin(e);
	key = KEY_BYTE(old) + 1;
	mr->index = idx;
	mr->lkey = mr->rkey = idx << 8 | key;
	mr_entry_fill(e, mr);
	key_write_end(e, old, true, key);
	dev->nb_mr++;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_get(pd);
	return mr;
}

struct roce_mr *
roce_reg_mr(struct roce_pd *pd, void *addr, size_t length, int access)
{
	return roce_reg_mr_iova(pd, addr, length, (uint64_t)(uintptr_t)addr,
				access);
}

int
roce_rereg_mr(struct roce_mr *mr, int flags, struct roce_pd *pd, void *addr,
	      size_t length, int access)
{
	struct roce_mr nmr;
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_pd *old_pd;
	uint32_t old;
	uint8_t key;

	if (mr == NULL || (flags & ~ROCE_REREG_MR_KEEP_KEYS) == 0 ||
	    (flags & ~REREG_ALL) != 0)
		return -EINVAL;
	dev = mr->pd->dev;
	nmr = *mr;
	if (flags & ROCE_REREG_MR_CHANGE_PD) {
		if (pd == NULL || pd->dev != dev)
			return -EINVAL;
		nmr.pd = pd;
	}
	if (flags & ROCE_REREG_MR_CHANGE_TRANSLATION) {
		if (mr_check_range(addr, length) < 0)
			return -EINVAL;
		nmr.addr = addr;
		nmr.length = length;
		nmr.va = (uint64_t)(uintptr_t)addr;
		nmr.iova = roce_txbuf_range_iova(addr, length);
		nmr.msl = roce_txbuf_range_msl(addr);
	}
	if (flags & ROCE_REREG_MR_CHANGE_ACCESS) {
		if (mr_check_access(access) < 0)
			return -EINVAL;
		nmr.access = access;
	}

	rte_spinlock_lock(&dev->ctl_lock);
	e = &dev->keys[mr->index];
	old = key_write_begin(e);
	/* windows keep pointers into the MR: rebinding them is the user's job */
	if (__atomic_load_n(&mr->mw_bound, __ATOMIC_SEQ_CST) != 0) {
		key_write_abort(e, old);
		rte_spinlock_unlock(&dev->ctl_lock);
		return -EBUSY;
	}
	/* new keys: the old ones fail from now on (unless kept) */
	key = KEY_BYTE(old) + 1;
	if ((flags & ROCE_REREG_MR_KEEP_KEYS) &&
	    !(flags & ROCE_REREG_MR_CHANGE_TRANSLATION))
		key = KEY_BYTE(old);
	old_pd = mr->pd;
	mr->pd = nmr.pd;
	mr->addr = nmr.addr;
	mr->length = nmr.length;
	mr->va = nmr.va;
	mr->iova = nmr.iova;
	mr->msl = nmr.msl;
	mr->access = nmr.access;
	mr->lkey = mr->rkey = mr->index << 8 | key;
	mr_entry_fill(e, mr);
	key_write_end(e, old, true, key);
	rte_spinlock_unlock(&dev->ctl_lock);
	if (old_pd != mr->pd) {
		roce_pd_get(mr->pd);
		roce_pd_put(old_pd);
	}
	return 0;
}

/*
 * Deregistration. @p zc_wait: refuse with -EBUSY while zero-copy frames
 * attached to the memory are still queued (roce_dereg_mr(), whose caller
 * frees the memory right after); false for a caller that waits for them
 * itself after the key is gone (roce_dereg_mr_nowait(), the PMD's grace
 * period). The count is read inside the write section, after the key's
 * state changed; a worker that checked the key just before and attaches
 * just after is not seen (only a grace period over the workers closes
 * that window: rte_pmd_ernic_dereg_mr()).
 */
static int
mr_dereg(struct roce_mr *mr, bool zc_wait)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	uint32_t old, zc;

	if (mr == NULL)
		return -EINVAL;
	dev = mr->pd->dev;
	rte_spinlock_lock(&dev->ctl_lock);
	e = &dev->keys[mr->index];
	old = key_write_begin(e);
	if (__atomic_load_n(&mr->mw_bound, __ATOMIC_SEQ_CST) != 0) {
		key_write_abort(e, old);
		rte_spinlock_unlock(&dev->ctl_lock);
		ROCE_LOG(ERR, verbs, "dereg_mr: %u windows bound",
			 mr->mw_bound);
		return -EBUSY;
	}
	zc = zc_wait ? roce_key_zc_inflight(dev, mr->index) : 0;
	if (zc != 0) {
		key_write_abort(e, old);
		rte_spinlock_unlock(&dev->ctl_lock);
		ROCE_LOG(DEBUG, verbs,
			 "dereg_mr: %u zero-copy frames still read the memory",
			 zc);
		return -EBUSY;
	}
	entry_clear(e);
	/* keep the key byte: the next registration of the index bumps it */
	key_write_end(e, old, false, KEY_BYTE(old));
	dev->nb_mr--;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_put(mr->pd);
	rte_free(mr);
	return 0;
}

int
roce_dereg_mr(struct roce_mr *mr)
{
	return mr_dereg(mr, true);
}

int
roce_dereg_mr_nowait(struct roce_mr *mr)
{
	return mr_dereg(mr, false);
}

/*
 * The freed count is read first: a frame attached meanwhile only makes
 * the figure larger, never 0 too early.
 */
uint32_t
roce_key_zc_inflight(const struct roce_device *dev, uint32_t idx)
{
	uint32_t dropped = __atomic_load_n(&dev->zc_dropped[idx],
					   __ATOMIC_ACQUIRE);

	return __atomic_load_n(&dev->keys[idx].zc_taken, __ATOMIC_ACQUIRE) -
		dropped;
}

struct roce_device *
roce_mr_device(const struct roce_mr *mr)
{
	return mr != NULL && mr->pd != NULL ? mr->pd->dev : NULL;
}

uint32_t
roce_mr_key_index(const struct roce_mr *mr)
{
	return mr != NULL ? mr->index : 0;
}

int
roce_mr_query(const struct roce_mr *mr, struct roce_mr_info *info)
{
	if (mr == NULL || info == NULL)
		return -EINVAL;
	info->addr = mr->addr;
	info->va = (mr->access & ROCE_ACCESS_ZERO_BASED) ? 0 : mr->va;
	info->length = mr->length;
	info->lkey = mr->lkey;
	info->rkey = mr->rkey;
	info->access = mr->access;
	return 0;
}

uint32_t
roce_mr_lkey(const struct roce_mr *mr)
{
	return mr != NULL ? mr->lkey : 0;	/* key 0 never validates */
}

uint32_t
roce_mr_rkey(const struct roce_mr *mr)
{
	return mr != NULL ? mr->rkey : 0;
}

/* ------------------------------------------------------------------ */
/* Memory windows (type 2, IBTA 10.6.7.2)                             */
/* ------------------------------------------------------------------ */

struct roce_mw *
roce_alloc_mw(struct roce_pd *pd, enum roce_mw_type type)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_mw *mw;
	uint32_t idx, old;
	uint8_t key;

	/* type 1 windows (bound by a verb, not in SQ order) are not offered */
	if (pd == NULL || type != ROCE_MW_TYPE_2) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	mw = rte_zmalloc_socket("roce_mw", sizeof(*mw), 0, dev->cfg.socket_id);
	if (mw == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mw->pd = pd;
	mw->type = type;
	idx = key_slot_lock(dev);
	if (idx == 0) {
		rte_free(mw);
		return NULL;
	}
	e = &dev->keys[idx];
	old = key_write_begin(e);
	key = KEY_BYTE(old) + 1;
	entry_clear(e);
	e->type = ROCE_KEY_MW;
	e->pd = pd;
	e->mw = mw;
	/* a type 2 window starts free: its rkey grants nothing until bound */
	key_write_end(e, old, false, key);
	mw->index = idx;
	__atomic_store_n(&mw->rkey, idx << 8 | key, __ATOMIC_RELAXED);
	dev->nb_mw++;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_get(pd);
	return mw;
}

/*
 * A type 2 window bound to @p qpn went back to free (ctl_lock held, so the
 * QP cannot be unpublished and freed meanwhile): lower that QP's count.
 */
static void
mw_qp_unbound(struct roce_device *dev, uint32_t qpn)
{
	struct roce_qp *qp;

	if (qpn == 0 || qpn > dev->qpn_mask)
		return;
	qp = __atomic_load_n(&dev->qp_table[qpn], __ATOMIC_ACQUIRE);
	if (qp != NULL && qp->qpn == qpn &&
	    __atomic_load_n(&qp->mw_bound, __ATOMIC_RELAXED) != 0)
		__atomic_fetch_sub(&qp->mw_bound, 1, __ATOMIC_RELAXED);
}

int
roce_dealloc_mw(struct roce_mw *mw)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_mr *mr = NULL;
	uint32_t old;

	if (mw == NULL)
		return -EINVAL;
	dev = mw->pd->dev;
	rte_spinlock_lock(&dev->ctl_lock);
	e = &dev->keys[mw->index];
	old = key_write_begin(e);
	/* a bound window is invalidated by its deallocation */
	if (old & ROCE_KEY_VALID) {
		mr = e->mr;
		mw_qp_unbound(dev, e->qpn);
	}
	entry_clear(e);
	key_write_end(e, old, false, KEY_BYTE(old));
	dev->nb_mw--;
	rte_spinlock_unlock(&dev->ctl_lock);
	if (mr != NULL)
		__atomic_fetch_sub(&mr->mw_bound, 1, __ATOMIC_SEQ_CST);
	roce_pd_put(mw->pd);
	rte_free(mw);
	return 0;
}

uint32_t
roce_mw_rkey(const struct roce_mw *mw)
{
	return mw != NULL ? __atomic_load_n(&mw->rkey, __ATOMIC_RELAXED) : 0;
}

enum roce_err
roce_mw_bind(struct roce_device *dev, struct roce_qp *qp,
	     const struct roce_send_wqe *wqe)
{
	struct roce_key_entry me, *e;
	struct roce_mw *mw;
	struct roce_mr *mr;
	uint32_t mstate, old;
	int access;

	if (dev == NULL || qp == NULL || wqe == NULL)
		return ROCE_ERR_MW_BIND;
	mw = wqe->bind.mw;
	mr = wqe->bind.mr;
	access = wqe->bind.access;
	/* o10-37.2.40: a type 2 bind needs an MR and a non-empty range */
	if (mw == NULL || mr == NULL || wqe->bind.length == 0)
		return ROCE_ERR_MW_BIND;
	if (mw->type != ROCE_MW_TYPE_2 || mw->pd->dev != dev)
		return ROCE_ERR_MW_BIND;
	/* C10-72: QP, window and region in one PD */
	if (qp->pd != mw->pd || mr->pd != mw->pd)
		return ROCE_ERR_MW_BIND;
	/* the user chooses the key byte only; the index is the window's */
	if ((wqe->bind.rkey >> 8) != mw->index)
		return ROCE_ERR_MW_BIND;
	/* a window grants remote rights only (and may be zero based) */
	if ((access & ~(ROCE_ACCESS_REMOTE_ANY | ROCE_ACCESS_ZERO_BASED)) != 0)
		return ROCE_ERR_MW_BIND;

	/* pin the MR against dereg/rereg first, then look at it */
	__atomic_fetch_add(&mr->mw_bound, 1, __ATOMIC_SEQ_CST);
	if (!key_read(dev, mr->lkey, &me, &mstate) ||
	    me.type != ROCE_KEY_MR || me.mr != mr)
		goto unpin;
	/* C10-73: the region allows windows */
	if (!(me.access & ROCE_ACCESS_MW_BIND))
		goto unpin;
	/* C10-74: a writable window needs a locally writable region */
	if ((access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(me.access & ROCE_ACCESS_LOCAL_WRITE))
		goto unpin;
	/* C10-75: the window lies inside the region (its VA space) */
	if (!roce_range_inside(me.va, me.length, wqe->bind.addr, wqe->bind.length))
		goto unpin;

	e = &dev->keys[mw->index];
	old = key_write_begin(e);
	/* o10-37.2.30: only a free type 2 window can be bound */
	if (e->type != ROCE_KEY_MW || e->mw != mw || (old & ROCE_KEY_VALID)) {
		key_write_abort(e, old);
		goto unpin;
	}
	e->access = access;
	e->pd = mw->pd;
	e->va = (access & ROCE_ACCESS_ZERO_BASED) ? 0 : wqe->bind.addr;
	e->length = wqe->bind.length;
	e->host = me.host + (wqe->bind.addr - me.va);
	e->iova = me.iova == RTE_BAD_IOVA ? RTE_BAD_IOVA :
		me.iova + (wqe->bind.addr - me.va);
	e->msl = me.msl;
	e->mr = mr;
	e->qpn = qp->qpn;
	/* counted before publication: roce_mw_unbind_qp() runs on this worker */
	__atomic_fetch_add(&qp->mw_bound, 1, __ATOMIC_RELAXED);
	key_write_end(e, old, true, KEY_BYTE(wqe->bind.rkey));
	__atomic_store_n(&mw->rkey, wqe->bind.rkey, __ATOMIC_RELAXED);
	return ROCE_OK;

unpin:
	__atomic_fetch_sub(&mr->mw_bound, 1, __ATOMIC_SEQ_CST);
	return ROCE_ERR_MW_BIND;
}

enum roce_err
roce_key_invalidate(struct roce_device *dev, const struct roce_pd *pd,
		    uint32_t rkey)
{
	struct roce_key_entry *e;
	struct roce_mr *mr;
	uint32_t idx = rkey >> 8, old;

	if (dev == NULL || pd == NULL || idx == 0 || idx >= dev->nb_keys)
		return ROCE_ERR_LOC_QP_OP;
	e = &dev->keys[idx];
	/*
	 * ctl_lock orders this against roce_mw_unbind_qp() and keeps the bound
	 * QP published while its count is lowered (taken before the entry,
	 * as every other writer holding both does).
	 */
	rte_spinlock_lock(&dev->ctl_lock);
	old = key_write_begin(e);
	/*
	 * Only a bound (valid) type 2 window named by its current key, of the
	 * caller's PD (IBTA 10.6.7.2; o10-37.2.26: not type 1; registered MRs
	 * are not invalidatable).
	 */
	if (!(old & ROCE_KEY_VALID) || KEY_BYTE(old) != (rkey & 0xffu) ||
	    e->pd != pd) {
		key_write_abort(e, old);
		rte_spinlock_unlock(&dev->ctl_lock);
		return ROCE_ERR_LOC_QP_OP;
	}
	/* an ERNIC PD table entry (fixed MR) just stops granting access */
	if (e->type == ROCE_KEY_MR && e->fixed) {
		key_write_end(e, old, false, KEY_BYTE(old));
		rte_spinlock_unlock(&dev->ctl_lock);
		return ROCE_OK;
	}
	if (e->type != ROCE_KEY_MW || e->mw == NULL ||
	    e->mw->type != ROCE_MW_TYPE_2) {
		key_write_abort(e, old);
		rte_spinlock_unlock(&dev->ctl_lock);
		return ROCE_ERR_LOC_QP_OP;
	}
	mw_qp_unbound(dev, e->qpn);
	mr = e->mr;
	e->access = 0;
	e->va = 0;
	e->length = 0;
	e->host = NULL;
	e->iova = RTE_BAD_IOVA;
	e->msl = NULL;
	e->mr = NULL;
	e->qpn = 0;
	/* back to free; the key byte stays until the next bind picks one */
	key_write_end(e, old, false, KEY_BYTE(old));
	rte_spinlock_unlock(&dev->ctl_lock);
	__atomic_fetch_sub(&mr->mw_bound, 1, __ATOMIC_SEQ_CST);
	return ROCE_OK;
}

void
roce_mw_unbind_qp(struct roce_qp *qp)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_mr *mr;
	uint32_t idx, old;

	if (qp == NULL || qp->qpn == 0)
		return;
	dev = qp->dev;
	rte_spinlock_lock(&dev->ctl_lock);
	/* most QPs never bind a window: no scan then */
	if (__atomic_load_n(&qp->mw_bound, __ATOMIC_RELAXED) == 0) {
		rte_spinlock_unlock(&dev->ctl_lock);
		return;
	}
	for (idx = 1; idx < dev->nb_keys; idx++) {
		e = &dev->keys[idx];
		old = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (!(old & ROCE_KEY_VALID) || e->type != ROCE_KEY_MW)
			continue;
		old = key_write_begin(e);
		if (!(old & ROCE_KEY_VALID) || e->type != ROCE_KEY_MW ||
		    e->mw == NULL || e->mw->type != ROCE_MW_TYPE_2 ||
		    e->qpn != qp->qpn || e->pd != qp->pd) {
			key_write_abort(e, old);
			continue;
		}
		mr = e->mr;
		e->access = 0;
		e->va = 0;
		e->length = 0;
		e->host = NULL;
		e->iova = RTE_BAD_IOVA;
		e->msl = NULL;
		e->mr = NULL;
		e->qpn = 0;
		key_write_end(e, old, false, KEY_BYTE(old));
		__atomic_fetch_sub(&mr->mw_bound, 1, __ATOMIC_SEQ_CST);
		ROCE_LOG(DEBUG, verbs, "qp %u destroyed: window rkey 0x%x invalidated",
			 qp->qpn, idx << 8 | KEY_BYTE(old));
	}
	__atomic_store_n(&qp->mw_bound, 0, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&dev->ctl_lock);
}

/* ------------------------------------------------------------------ */
/* Fixed keys: the ERNIC PD table (lib/ernic_pmd/regs/ernic_regs_flow.c)    */
/* ------------------------------------------------------------------ */

int
roce_key_reserve_fixed(struct roce_device *dev, uint32_t n)
{
	uint32_t i;

	if (dev == NULL || n >= dev->nb_keys)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	for (i = 1; i < n; i++)
		if (dev->keys[i].type != ROCE_KEY_FREE) {
			rte_spinlock_unlock(&dev->ctl_lock);
			return -EBUSY;
		}
	dev->key_fixed = n;
	if (dev->key_next < n)
		dev->key_next = RTE_MAX(1u, n);
	rte_spinlock_unlock(&dev->ctl_lock);
	return 0;
}

struct roce_mr *
roce_reg_mr_fixed(struct roce_pd *pd, uint32_t index, uint8_t key, void *host,
		  uint64_t va, size_t length, int access)
{
	struct roce_device *dev;
	struct roce_key_entry *e;
	struct roce_mr *mr;
	uint32_t old;

	if (pd == NULL || index >= pd->dev->key_fixed ||
	    mr_check_range(host, length) < 0 || mr_check_access(access) < 0 ||
	    (access & ROCE_ACCESS_ZERO_BASED) ||
	    (uint64_t)length - 1 > UINT64_MAX - va) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	mr = mr_new(pd, host, va, length, access);
	if (mr == NULL)
		return NULL;
	mr->index = index;
	mr->lkey = mr->rkey = index << 8 | key;

	rte_spinlock_lock(&dev->ctl_lock);
	e = &dev->keys[index];
	if (e->type != ROCE_KEY_FREE ||
	    dev->nb_mr + dev->nb_mw >= dev->attr.max_mr) {
		rte_spinlock_unlock(&dev->ctl_lock);
		rte_free(mr);
		rte_errno = EBUSY;
		return NULL;
	}
	old = key_write_begin(e);
	mr_entry_fill(e, mr);
	e->va = va;
	e->fixed = 1;
	key_write_end(e, old, true, key);
	dev->nb_mr++;
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_pd_get(pd);
	return mr;
}
