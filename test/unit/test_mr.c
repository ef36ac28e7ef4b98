/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions, type 2 memory windows and the key checks: keys, stale
 * keys, PDs, bounds at every edge, rights, binding and invalidation.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "roce_priv.h"
#include "roce_qp.h"
#include "test_common.h"

#define LW ROCE_ACCESS_LOCAL_WRITE
#define RR ROCE_ACCESS_REMOTE_READ
#define RW ROCE_ACCESS_REMOTE_WRITE
#define RA ROCE_ACCESS_REMOTE_ATOMIC
#define BIND ROCE_ACCESS_MW_BIND

#define BUF_LEN 4096

static uint8_t buf[BUF_LEN] __rte_aligned(64);
static uint8_t buf2[BUF_LEN] __rte_aligned(64);

static struct roce_device *dev;
static struct roce_pd *pd1, *pd2;

static struct roce_device *
new_device(uint32_t max_mr)
{
	struct roce_device_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "mr";
	cfg.max_qp = 64;
	cfg.max_mr = max_mr;
	cfg.socket_id = SOCKET_ID_ANY;
	return roce_device_create(&cfg);
}

static int
suite_init(void)
{
	dev = new_device(16);
	if (dev == NULL)
		return -1;
	pd1 = roce_alloc_pd(dev);
	pd2 = roce_alloc_pd(dev);
	return pd1 != NULL && pd2 != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	if (roce_dealloc_pd(pd1) != 0 || roce_dealloc_pd(pd2) != 0)
		return -1;
	return roce_device_destroy(dev);
}

static uint64_t
va(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static enum roce_err
remote(uint32_t rkey, uint64_t addr, uint64_t len, int access)
{
	struct roce_key_ref ref;

	return roce_key_check_remote(dev, pd1, 0, rkey, addr, len, access,
				     &ref);
}

static enum roce_err
local(uint32_t lkey, uint64_t addr, uint64_t len, int access)
{
	struct roce_key_ref ref;

	return roce_key_check_local(dev, pd1, lkey, addr, len, access, &ref);
}

static void
test_mr_reg_dereg(void)
{
	struct roce_key_ref ref;
	struct roce_mr_info info;
	struct roce_mr *mr;
	uint32_t key;

	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	key = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(key, roce_mr_rkey(mr));
	CU_ASSERT((key >> 8) != 0);
	CU_ASSERT_EQUAL(pd1->refcnt, 1);
	CU_ASSERT_EQUAL(roce_mr_query(mr, &info), 0);
	CU_ASSERT_PTR_EQUAL(info.addr, buf);
	CU_ASSERT_EQUAL(info.va, va(buf));
	CU_ASSERT_EQUAL(info.length, BUF_LEN);
	CU_ASSERT_EQUAL(info.lkey, key);
	CU_ASSERT_EQUAL(info.access, LW | RR);
	CU_ASSERT_EQUAL(roce_mr_query(NULL, &info), -EINVAL);
	CU_ASSERT_EQUAL(roce_mr_query(mr, NULL), -EINVAL);

	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, key, va(buf) + 100, 50,
					     LW, &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 100);
	CU_ASSERT(roce_key_ref_valid(&ref));
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 9, key, va(buf) + 8,
					      8, RR, &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 8);

	/* a PD with an MR cannot go */
	CU_ASSERT_EQUAL(roce_dealloc_pd(pd1), -EBUSY);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	CU_ASSERT_FALSE(roce_key_ref_valid(&ref));
	/* stale after dereg */
	CU_ASSERT_EQUAL(local(key, va(buf), 1, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(remote(key, va(buf), 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dereg_mr(NULL), -EINVAL);
	/* key 0 never validates (index 0 reserved) */
	CU_ASSERT_EQUAL(roce_mr_lkey(NULL), 0);
	CU_ASSERT_EQUAL(local(0, va(buf), 1, 0), ROCE_ERR_LOC_PROT);
}

static void
test_mr_reg_invalid(void)
{
	void *top = (void *)(uintptr_t)(UINT64_MAX - 99);

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(NULL, buf, BUF_LEN, LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, NULL, BUF_LEN, LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, 0, LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, BUF_LEN, 1 << 12));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	/* IBTA 10.6.3.1: remote write / atomic need local write */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, BUF_LEN, RW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, BUF_LEN, RR | RA));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	/* the range may not wrap around the address space */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, top, 101, LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	CU_ASSERT_EQUAL(dev->nb_mr, 0);
}

static void
test_mr_stale_keys(void)
{
	struct roce_device *d1;
	struct roce_pd *p;
	struct roce_mr *mr, *mr2;
	uint32_t k1, k2;
	int i;

	/* a one-entry key table: every registration reuses the index */
	d1 = new_device(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d1);
	p = roce_alloc_pd(d1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	mr = roce_reg_mr(p, buf, BUF_LEN, LW);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k1 = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	for (i = 0; i < 3; i++) {
		mr = roce_reg_mr(p, buf, BUF_LEN, LW);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
		k2 = roce_mr_lkey(mr);
		CU_ASSERT_EQUAL(k2 >> 8, k1 >> 8);
		CU_ASSERT(k2 != k1);
		CU_ASSERT_EQUAL(roce_key_check_local(d1, p, k1, va(buf), 1, 0,
						     NULL), ROCE_ERR_LOC_PROT);
		CU_ASSERT_EQUAL(roce_key_check_local(d1, p, k2, va(buf), 1, 0,
						     NULL), ROCE_OK);
		/* table full */
		rte_errno = 0;
		mr2 = roce_reg_mr(p, buf2, BUF_LEN, LW);
		CU_ASSERT_PTR_NULL(mr2);
		CU_ASSERT_EQUAL(rte_errno, ENOMEM);
		CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
		k1 = k2;
	}

	/* rereg: new key on the same index, the old one fails at once */
	mr = roce_reg_mr(p, buf, BUF_LEN, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k1 = roce_mr_rkey(mr);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, LW | RR | RW), 0);
	k2 = roce_mr_rkey(mr);
	CU_ASSERT(k1 != k2);
	CU_ASSERT_EQUAL(k1 >> 8, k2 >> 8);
	CU_ASSERT_EQUAL(roce_mr_lkey(mr), k2);
	CU_ASSERT_EQUAL(roce_key_check_remote(d1, p, 0, k1, va(buf), 8, RR,
					      NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(d1, p, 0, k2, va(buf), 8, RW,
					      NULL), ROCE_OK);
	/* keys kept (the ibverbs way) while the translation stays */
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_KEEP_KEYS, NULL, NULL,
				      0, 0), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_ACCESS |
				      ROCE_REREG_MR_KEEP_KEYS, NULL, NULL, 0,
				      LW | RR), 0);
	CU_ASSERT_EQUAL(roce_mr_rkey(mr), k2);
	/* the rights are the new ones at once */
	CU_ASSERT_EQUAL(roce_key_check_remote(d1, p, 0, k2, va(buf), 8, RW,
					      NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(d1, p, 0, k2, va(buf), 8, RR,
					      NULL), ROCE_OK);
	/* a new translation gets new keys all the same */
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_TRANSLATION |
				      ROCE_REREG_MR_KEEP_KEYS, NULL, buf,
				      BUF_LEN / 2, 0), 0);
	CU_ASSERT(roce_mr_rkey(mr) != k2);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(roce_dealloc_pd(p), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(d1), 0);
}

static void
test_mr_rereg(void)
{
	struct roce_key_ref ref;
	struct roce_mr *mr;
	uint32_t k;

	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	/* invalid requests leave the MR and its key alone */
	k = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(roce_rereg_mr(NULL, ROCE_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, LW), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, 0, NULL, NULL, 0, LW), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, 1 << 5, NULL, NULL, 0, LW), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_PD, NULL,
				      NULL, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, RW), -EINVAL);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_TRANSLATION,
				      NULL, NULL, 10, 0), -EINVAL);
	CU_ASSERT_EQUAL(roce_mr_lkey(mr), k);
	CU_ASSERT_EQUAL(local(k, va(buf), BUF_LEN, LW), ROCE_OK);

	/* translation: the new range only */
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_TRANSLATION,
				      NULL, buf2, 128, 0), 0);
	k = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, k, va(buf2) + 64, 64,
					     LW, &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf2 + 64);
	CU_ASSERT_EQUAL(local(k, va(buf2) + 64, 65, LW), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(local(k, va(buf), 1, 0), ROCE_ERR_LOC_PROT);

	/* PD: references move, the old PD no longer works */
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_PD, pd2, NULL,
				      0, 0), 0);
	k = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	CU_ASSERT_EQUAL(pd2->refcnt, 1);
	CU_ASSERT_EQUAL(local(k, va(buf2), 1, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd2, k, va(buf2), 1, 0,
					     NULL), ROCE_OK);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pd2->refcnt, 0);
}

static void
test_mr_wrong_pd(void)
{
	struct roce_mr *mr;
	uint32_t k;

	mr = roce_reg_mr(pd2, buf, BUF_LEN, LW | RR | RW | RA);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(local(k, va(buf), 8, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(remote(k, va(buf), 8, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_local(dev, NULL, k, va(buf), 8, 0,
					     NULL), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd2, 0, k, va(buf), 8, RR,
					      NULL), ROCE_OK);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
}

static void
test_mr_bounds(void)
{
	const uint64_t top = UINT64_MAX - (BUF_LEN - 1);
	struct roce_key_ref ref;
	struct roce_mr *mr, *hi;
	uint64_t b = va(buf);
	uint32_t k, kh;

	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = roce_mr_rkey(mr);
	/* every edge of [buf, buf + 4096) */
	CU_ASSERT_EQUAL(remote(k, b, BUF_LEN, RR), ROCE_OK);
	CU_ASSERT_EQUAL(remote(k, b, BUF_LEN + 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b - 1, 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b - 1, 2, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b + BUF_LEN - 1, 1, RR), ROCE_OK);
	CU_ASSERT_EQUAL(remote(k, b + BUF_LEN - 1, 2, RR),
			ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b + BUF_LEN, 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b + 1, BUF_LEN - 1, RR), ROCE_OK);
	CU_ASSERT_EQUAL(remote(k, b + 1, BUF_LEN, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, b, UINT64_MAX, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, UINT64_MAX, UINT64_MAX, RR),
			ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, UINT64_MAX, 2, RR), ROCE_ERR_LOC_ACCESS);
	/* wraps to inside the MR: still refused */
	CU_ASSERT_EQUAL(remote(k, UINT64_MAX, b + 2, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(local(k, b + BUF_LEN - 1, 1, 0), ROCE_OK);
	CU_ASSERT_EQUAL(local(k, b + BUF_LEN - 1, 2, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(local(k, b - 1, 1, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(local(k, UINT64_MAX, b + 2, 0), ROCE_ERR_LOC_PROT);

	/* zero length: legal anywhere, no key check (IBTA C9-88) */
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 0, 0xdeadbe, 0, 0, RW,
					      &ref), ROCE_OK);
	CU_ASSERT_PTR_NULL(ref.host);
	CU_ASSERT(roce_key_ref_valid(&ref));
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, 0xdeadbe, UINT64_MAX, 0,
					     LW, &ref), ROCE_OK);
	CU_ASSERT_PTR_NULL(ref.host);

	/*
	 * A region ending exactly at 2^64 (never touched: checks only).
	 * Its last byte is UINT64_MAX: nothing wraps.
	 */
	hi = roce_reg_mr(pd1, (void *)(uintptr_t)top, BUF_LEN, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hi);
	kh = roce_mr_rkey(hi);
	CU_ASSERT_EQUAL(remote(kh, top, BUF_LEN, RR), ROCE_OK);
	CU_ASSERT_EQUAL(remote(kh, UINT64_MAX, 1, RR), ROCE_OK);
	CU_ASSERT_EQUAL(remote(kh, UINT64_MAX, 2, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(kh, top, BUF_LEN + 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(kh, top - 1, 2, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(kh, 0, 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(kh, top, UINT64_MAX, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dereg_mr(hi), 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
}

static void
test_mr_rights_matrix(void)
{
	static const int remote_rights[] = { RR, RW, RA };
	struct roce_mr *mr;
	unsigned int i;
	int acc;

	/* every MR access over LW/RR/RW/RA, each right asked for alone */
	for (acc = 0; acc < 16; acc++) {
		int a = (acc & 1 ? LW : 0) | (acc & 2 ? RR : 0) |
			(acc & 4 ? RW : 0) | (acc & 8 ? RA : 0);
		bool legal = !((a & (RW | RA)) && !(a & LW));
		uint32_t k;

		rte_errno = 0;
		mr = roce_reg_mr(pd1, buf, BUF_LEN, a);
		if (!legal) {
			CU_ASSERT_PTR_NULL(mr);
			CU_ASSERT_EQUAL(rte_errno, EINVAL);
			continue;
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
		k = roce_mr_rkey(mr);
		for (i = 0; i < RTE_DIM(remote_rights); i++) {
			int r = remote_rights[i];

			CU_ASSERT_EQUAL(remote(k, va(buf), 8, r),
					(a & r) ? ROCE_OK :
					ROCE_ERR_LOC_ACCESS);
		}
		/* several rights at once: all must be granted */
		CU_ASSERT_EQUAL(remote(k, va(buf), 8, RR | RW),
				(a & RR) && (a & RW) ? ROCE_OK :
				ROCE_ERR_LOC_ACCESS);
		/* no right asked: not a remote access */
		CU_ASSERT_EQUAL(remote(k, va(buf), 8, 0), ROCE_ERR_LOC_ACCESS);
		/* local read always, local write only with LW */
		CU_ASSERT_EQUAL(local(k, va(buf), 8, 0), ROCE_OK);
		CU_ASSERT_EQUAL(local(k, va(buf), 8, LW),
				(a & LW) ? ROCE_OK : ROCE_ERR_LOC_PROT);
		CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	}
	CU_ASSERT(roce_atomic_aligned(va(buf)));
	CU_ASSERT_FALSE(roce_atomic_aligned(va(buf) + 4));
	CU_ASSERT_FALSE(roce_atomic_aligned(va(buf) + 1));
}

static void
test_mr_zero_based(void)
{
	struct roce_key_ref ref;
	struct roce_mr *mr;
	uint32_t k;

	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | RR | ROCE_ACCESS_ZERO_BASED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = roce_mr_rkey(mr);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 0, k, 16, 16, RR,
					      &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 16);
	CU_ASSERT_EQUAL(remote(k, BUF_LEN - 8, 9, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(remote(k, va(buf), 1, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
}

/*
 * An MR known by another address than its host one (roce_reg_mr_iova()):
 * address x of [iova, iova + 4096) is served by buf + (x - iova), and the
 * host addresses name nothing.
 */
static void
test_mr_iova(void)
{
	const uint64_t iova = va(buf) + (1ULL << 40);
	struct roce_key_ref ref;
	struct roce_mr_info info;
	struct roce_mr *mr;
	uint32_t k;

	mr = roce_reg_mr_iova(pd1, buf, BUF_LEN, iova, LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = roce_mr_lkey(mr);
	CU_ASSERT_EQUAL(roce_mr_query(mr, &info), 0);
	CU_ASSERT_PTR_EQUAL(info.addr, buf);
	CU_ASSERT_EQUAL(info.va, iova);
	CU_ASSERT_EQUAL(info.length, BUF_LEN);
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, k, iova + 100, 50, LW,
					     &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 100);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 0, k,
					      iova + BUF_LEN - 8, 8, RR, &ref),
			ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + BUF_LEN - 8);
	/* the edges are those of [iova, iova + 4096) */
	CU_ASSERT_EQUAL(local(k, iova - 1, 1, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(local(k, iova + BUF_LEN - 1, 2, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(remote(k, iova + BUF_LEN, 1, RR), ROCE_ERR_LOC_ACCESS);
	/* the host addresses are no addresses of the MR */
	CU_ASSERT_EQUAL(local(k, va(buf), 8, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(remote(k, va(buf) + 100, 8, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);

	/* a region ending exactly at 2^64 does not wrap */
	mr = roce_reg_mr_iova(pd1, buf, BUF_LEN, UINT64_MAX - (BUF_LEN - 1),
			      LW | RR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 0, roce_mr_rkey(mr),
					      UINT64_MAX, 1, RR, &ref),
			ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + BUF_LEN - 1);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	/* one byte further, it would */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr_iova(pd1, buf, BUF_LEN,
					    UINT64_MAX - (BUF_LEN - 2), LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr_iova(pd1, buf, BUF_LEN, UINT64_MAX,
					    LW));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	CU_ASSERT_EQUAL(dev->nb_mr, 0);
}

/* Zero based, the address given to roce_reg_mr_iova() does not count. */
static void
test_mr_iova_zero_based(void)
{
	const uint64_t iova = va(buf) + (1ULL << 40);
	struct roce_key_ref ref;
	struct roce_mr_info info;
	struct roce_mr *mr;
	uint32_t k;

	mr = roce_reg_mr_iova(pd1, buf, BUF_LEN, iova,
			      LW | RR | ROCE_ACCESS_ZERO_BASED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = roce_mr_rkey(mr);
	CU_ASSERT_EQUAL(roce_mr_query(mr, &info), 0);
	CU_ASSERT_EQUAL(info.va, 0);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 0, k, 24, 8, RR,
					      &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 24);
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, k, BUF_LEN - 1, 1, LW,
					     &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + BUF_LEN - 1);
	CU_ASSERT_EQUAL(local(k, BUF_LEN - 1, 2, 0), ROCE_ERR_LOC_PROT);
	CU_ASSERT_EQUAL(remote(k, iova + 24, 8, RR), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	/* [0, 4096) does not wrap, whatever address was given */
	mr = roce_reg_mr_iova(pd1, buf, BUF_LEN, UINT64_MAX,
			      LW | RR | ROCE_ACCESS_ZERO_BASED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_EQUAL(roce_mr_query(mr, &info), 0);
	CU_ASSERT_EQUAL(info.va, 0);
	CU_ASSERT_EQUAL(remote(roce_mr_rkey(mr), 0, BUF_LEN, RR), ROCE_OK);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
}

static void
test_mr_exhaustion(void)
{
	struct roce_mr *mr[16];
	struct roce_mw *mw;
	unsigned int i;

	/* 15 MRs + 1 MW fill the 16 entries */
	for (i = 0; i < 15; i++) {
		mr[i] = roce_reg_mr(pd1, buf, BUF_LEN, LW);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr[i]);
	}
	mw = roce_alloc_mw(pd1, ROCE_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, BUF_LEN, LW));
	CU_ASSERT_EQUAL(rte_errno, ENOMEM);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_alloc_mw(pd1, ROCE_MW_TYPE_2));
	CU_ASSERT_EQUAL(rte_errno, ENOMEM);
	/* works again after a dereg, on the freed index with a new key */
	CU_ASSERT_EQUAL(roce_dereg_mr(mr[7]), 0);
	mr[15] = roce_reg_mr(pd1, buf, BUF_LEN, LW);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr[15]);
	CU_ASSERT_PTR_NULL(roce_reg_mr(pd1, buf, BUF_LEN, LW));
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
	mr[7] = roce_reg_mr(pd1, buf, BUF_LEN, LW);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr[7]);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr[i]), 0);
	CU_ASSERT_EQUAL(dev->nb_mr, 0);
	CU_ASSERT_EQUAL(dev->nb_mw, 0);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
}

/* A Bind MW WQE as the requester hands it to roce_mw_bind(). */
static void
bind_wqe(struct roce_send_wqe *w, struct roce_mw *mw, struct roce_mr *mr,
	 uint64_t addr, uint64_t len, int access, uint8_t key)
{
	memset(w, 0, sizeof(*w));
	w->opcode = ROCE_WR_BIND_MW;
	w->bind.mw = mw;
	w->bind.mr = mr;
	w->bind.addr = addr;
	w->bind.length = len;
	w->bind.access = access;
	w->bind.rkey = (roce_mw_rkey(mw) & ~0xffu) | key;
}

static void
test_mw_bind_invalidate(void)
{
	struct roce_send_wqe w;
	struct roce_key_ref ref;
	struct roce_qp *qp, *qp2;
	struct roce_mr *mr;
	struct roce_mw *mw;
	uint32_t k0, k1, k2;

	qp = calloc(1, sizeof(*qp));
	qp2 = calloc(1, sizeof(*qp2));
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp2);
	qp->pd = pd1;
	qp->qpn = 5;
	qp2->pd = pd2;
	qp2->qpn = 6;

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_alloc_mw(pd1, ROCE_MW_TYPE_1));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(roce_alloc_mw(NULL, ROCE_MW_TYPE_2));
	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | BIND);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	mw = roce_alloc_mw(pd1, ROCE_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	k0 = roce_mw_rkey(mw);
	CU_ASSERT(k0 >> 8 != roce_mr_rkey(mr) >> 8);
	/* a free window grants nothing */
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k0, va(buf), 8, RR,
					      NULL), ROCE_ERR_LOC_ACCESS);

	/* refused binds (IBTA 10.6.7.2) */
	bind_wqe(&w, mw, mr, va(buf) + 100, 200, RR | RW, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp2, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, mr, va(buf) + 100, 0, RR, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, mr, va(buf) + 100, BUF_LEN - 99, RR, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, mr, va(buf) - 1, 10, RR, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, mr, va(buf), 10, RR | LW, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, mr, va(buf), 10, RR, 0x42);
	w.bind.rkey ^= 0x100;	/* another index */
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, NULL, va(buf), 10, RR, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	CU_ASSERT_EQUAL(mr->mw_bound, 0);

	/* bind */
	bind_wqe(&w, mw, mr, va(buf) + 100, 200, RR | RW, 0x42);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_OK);
	k1 = roce_mw_rkey(mw);
	CU_ASSERT_EQUAL(k1, (k0 & ~0xffu) | 0x42);
	CU_ASSERT_EQUAL(mr->mw_bound, 1);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 100,
					      200, RW, &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 100);
	/* bound to QP 5 only, inside the window only, granted rights only */
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 6, k1, va(buf) + 100,
					      8, RR, NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 99,
					      8, RR, NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 296,
					      5, RR, NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 296,
					      4, RR, NULL), ROCE_OK);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 104,
					      8, RA, NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k0, va(buf) + 100,
					      8, RR, NULL), ROCE_ERR_LOC_ACCESS);
	/* an MW is no L_Key */
	CU_ASSERT_EQUAL(roce_key_check_local(dev, pd1, k1, va(buf) + 100, 8, 0,
					     NULL), ROCE_ERR_LOC_PROT);
	/* the MR cannot go or change while a window is bound */
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), -EBUSY);
	CU_ASSERT_EQUAL(roce_rereg_mr(mr, ROCE_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, LW | BIND | RR), -EBUSY);
	CU_ASSERT(roce_key_ref_valid(&ref));
	CU_ASSERT_EQUAL(local(roce_mr_lkey(mr), va(buf), 8, LW), ROCE_OK);
	/* o10-37.2.30: a bound window cannot be bound again */
	bind_wqe(&w, mw, mr, va(buf), 8, RR, 0x43);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	CU_ASSERT_EQUAL(roce_mw_rkey(mw), k1);

	/* invalidate: exact key, same PD, windows only */
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd2, k1), ROCE_ERR_LOC_QP_OP);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, k0), ROCE_ERR_LOC_QP_OP);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, roce_mr_rkey(mr)),
			ROCE_ERR_LOC_QP_OP);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, 0), ROCE_ERR_LOC_QP_OP);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, k1), ROCE_OK);
	CU_ASSERT_FALSE(roce_key_ref_valid(&ref));
	CU_ASSERT_EQUAL(mr->mw_bound, 0);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, va(buf) + 100,
					      8, RR, NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, k1), ROCE_ERR_LOC_QP_OP);

	/* rebind with a new key byte, zero based this time */
	bind_wqe(&w, mw, mr, va(buf) + 1000, 64, RR | ROCE_ACCESS_ZERO_BASED,
		 0x43);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_OK);
	k2 = roce_mw_rkey(mw);
	CU_ASSERT_EQUAL(k2, (k0 & ~0xffu) | 0x43);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k1, 0, 8, RR, NULL),
			ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k2, 8, 56, RR,
					      &ref), ROCE_OK);
	CU_ASSERT_PTR_EQUAL(ref.host, buf + 1008);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k2, 8, 57, RR,
					      NULL), ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k2, 0, 8, RW,
					      NULL), ROCE_ERR_LOC_ACCESS);

	/* dealloc of a bound window unbinds it; then the MR can go */
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(mr->mw_bound, 0);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 5, k2, 8, 8, RR, NULL),
			ROCE_ERR_LOC_ACCESS);
	CU_ASSERT_EQUAL(roce_dealloc_mw(NULL), -EINVAL);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	free(qp);
	free(qp2);
}

static void
test_mw_bind_mr_rules(void)
{
	struct roce_send_wqe w;
	struct roce_mr *nobind, *ro, *mr;
	struct roce_mw *mw;
	struct roce_qp *qp;

	qp = calloc(1, sizeof(*qp));
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	qp->pd = pd1;
	qp->qpn = 7;
	nobind = roce_reg_mr(pd1, buf, BUF_LEN, LW | RR);
	ro = roce_reg_mr(pd1, buf, BUF_LEN, BIND);	/* no local write */
	mr = roce_reg_mr(pd2, buf, BUF_LEN, LW | BIND);
	mw = roce_alloc_mw(pd1, ROCE_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nobind);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);

	/* C10-73: the MR must allow binding */
	bind_wqe(&w, mw, nobind, va(buf), 64, RR, 1);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	/* C10-74: remote write / atomic window on a read-only MR */
	bind_wqe(&w, mw, ro, va(buf), 64, RW, 1);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	bind_wqe(&w, mw, ro, va(buf), 64, RA, 1);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	/* C10-72: MR of another PD */
	bind_wqe(&w, mw, mr, va(buf), 64, RR, 1);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_ERR_MW_BIND);
	/* remote read on a read-only MR is fine; the MR grants no remote right */
	bind_wqe(&w, mw, ro, va(buf), 64, RR, 1);
	CU_ASSERT_EQUAL(roce_mw_bind(dev, qp, &w), ROCE_OK);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 7, roce_mw_rkey(mw),
					      va(buf), 64, RR, NULL), ROCE_OK);
	CU_ASSERT_EQUAL(roce_key_check_remote(dev, pd1, 7, roce_mr_rkey(ro),
					      va(buf), 64, RR, NULL),
			ROCE_ERR_LOC_ACCESS);
	/* a stale MR (deregistered) cannot be bound to */
	CU_ASSERT_EQUAL(roce_key_invalidate(dev, pd1, roce_mw_rkey(mw)),
			ROCE_OK);
	CU_ASSERT_EQUAL(roce_dereg_mr(nobind), 0);
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(ro), 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pd1->refcnt, 0);
	CU_ASSERT_EQUAL(pd2->refcnt, 0);
	free(qp);
}

/*
 * Seqlock publication: a reader thread checks both keys of a window that
 * the main thread keeps binding (key 0xa1: [buf+100, +200), key 0xb2: zero
 * based over [buf+1000, +64)) and invalidating. Any success must come with
 * the host address of the binding that key names: a torn read would mix
 * the two.
 */
struct seq_arg {
	uint32_t ka, kb;
	int stop, started;
	uint64_t ok_a, ok_b, bad;
};

static void *
seq_reader(void *p)
{
	struct seq_arg *a = p;
	struct roce_key_ref ref;

	__atomic_store_n(&a->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE)) {
		if (roce_key_check_remote(dev, pd1, 5, a->ka, va(buf) + 150, 8,
					  ROCE_ACCESS_REMOTE_READ, &ref) ==
		    ROCE_OK) {
			__atomic_fetch_add(&a->ok_a, 1, __ATOMIC_RELAXED);
			if (ref.host != buf + 150)
				a->bad++;
		}
		if (roce_key_check_remote(dev, pd1, 5, a->kb, 8, 8,
					  ROCE_ACCESS_REMOTE_READ, &ref) ==
		    ROCE_OK) {
			__atomic_fetch_add(&a->ok_b, 1, __ATOMIC_RELAXED);
			if (ref.host != buf + 1008)
				a->bad++;
		}
		/* outside window A, inside B's numbers: never valid for A */
		if (roce_key_check_remote(dev, pd1, 5, a->ka, 8, 8,
					  ROCE_ACCESS_REMOTE_READ, &ref) ==
		    ROCE_OK)
			a->bad++;
	}
	return NULL;
}

static void
test_mw_seqlock_threads(void)
{
	struct roce_send_wqe w;
	struct seq_arg arg;
	struct roce_qp *qp;
	struct roce_mr *mr;
	struct roce_mw *mw;
	pthread_attr_t attr;
	cpu_set_t cpus;
	pthread_t th;
	int i, j, fails = 0;

	qp = calloc(1, sizeof(*qp));
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	qp->pd = pd1;
	qp->qpn = 5;
	mr = roce_reg_mr(pd1, buf, BUF_LEN, LW | BIND);
	mw = roce_alloc_mw(pd1, ROCE_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	memset(&arg, 0, sizeof(arg));
	arg.ka = (roce_mw_rkey(mw) & ~0xffu) | 0xa1;
	arg.kb = (roce_mw_rkey(mw) & ~0xffu) | 0xb2;

	pthread_attr_init(&attr);
	CPU_ZERO(&cpus);
	for (j = 1; j < CPU_SETSIZE && j < (int)sysconf(_SC_NPROCESSORS_ONLN);
	     j++)
		CPU_SET(j, &cpus);
	if (CPU_COUNT(&cpus) > 0)
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, &attr, seq_reader, &arg), 0);
	pthread_attr_destroy(&attr);
	while (!__atomic_load_n(&arg.started, __ATOMIC_ACQUIRE))
		sched_yield();
	/* at least 200k rounds, and until the reader saw both bindings */
	for (i = 0; i < 20000000; i++) {
		if (i >= 200000 &&
		    __atomic_load_n(&arg.ok_a, __ATOMIC_RELAXED) > 100 &&
		    __atomic_load_n(&arg.ok_b, __ATOMIC_RELAXED) > 100)
			break;
		if (i & 1)
			bind_wqe(&w, mw, mr, va(buf) + 1000, 64,
				 RR | ROCE_ACCESS_ZERO_BASED, 0xb2);
		else
			bind_wqe(&w, mw, mr, va(buf) + 100, 200, RR, 0xa1);
		if (roce_mw_bind(dev, qp, &w) != ROCE_OK)
			fails++;
		if (roce_key_invalidate(dev, pd1, w.bind.rkey) != ROCE_OK)
			fails++;
	}
	__atomic_store_n(&arg.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(arg.bad, 0);
	/* the reader saw both bindings (it ran concurrently) */
	CU_ASSERT(arg.ok_a > 100 && arg.ok_b > 100);
	CU_ASSERT_EQUAL(roce_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	free(qp);
}

static CU_TestInfo mr_tests[] = {
	{ "reg, query, dereg", test_mr_reg_dereg },
	{ "invalid registrations", test_mr_reg_invalid },
	{ "stale keys after dereg and rereg", test_mr_stale_keys },
	{ "rereg translation, PD, errors", test_mr_rereg },
	{ "wrong PD", test_mr_wrong_pd },
	{ "bounds at every edge", test_mr_bounds },
	{ "rights matrix", test_mr_rights_matrix },
	{ "zero-based MR", test_mr_zero_based },
	{ "MR at another address (iova)", test_mr_iova },
	{ "MR at another address, zero based", test_mr_iova_zero_based },
	{ "key table exhaustion", test_mr_exhaustion },
	{ "MW type 2 bind, invalidate, rebind", test_mw_bind_invalidate },
	{ "MW bind rules on the MR", test_mw_bind_mr_rules },
	{ "MW rebinding against a reader thread", test_mw_seqlock_threads },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "mr", suite_init, suite_fini, NULL, NULL, mr_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
