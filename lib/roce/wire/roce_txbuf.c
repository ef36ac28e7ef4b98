/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy transmit of payload: the attached segment (roce_txbuf.h).
 */
#include <errno.h>
#include <stdint.h>

#include <rte_eal.h>
#include <rte_memory.h>
#include <rte_mbuf.h>

#include "roce_txbuf.h"

/*
 * The application owns the memory and may reuse it once the WR completes
 * (the verbs rule): nothing to release when the last reference goes but
 * the freed count of roce_txbuf_attach_ref(), if any (on the freeing
 * core's own cache line: the attaching core counts in another one).
 */
static void
txbuf_free_cb(void *addr __rte_unused, void *opaque)
{
	if (opaque != NULL)
		__atomic_fetch_add((uint32_t *)opaque, 1, __ATOMIC_RELEASE);
}

/*
 * IOVA as PA: only DPDK memory has a known IOVA, and the range must be
 * IOVA-contiguous (it may cross a page); anything else is RTE_BAD_IOVA and
 * the caller copies. @p msl (NULL: looked up) saves the search of the
 * memseg lists, the larger part of the cost. *page: the memory segment
 * holding the whole range when it lies in one, else NULL.
 */
static rte_iova_t
txbuf_iova_lookup(const void *addr, uint32_t len,
		  const struct rte_memseg_list *msl, const struct rte_memseg **page)
{
	const struct rte_memseg *ms, *ms_last;
	rte_iova_t iova, iova_last;
	const char *last;

	*page = NULL;
	if (len == 0)
		return RTE_BAD_IOVA;
	last = (const char *)addr + len - 1;
	if (msl == NULL)
		msl = rte_mem_virt2memseg_list(addr);
	ms = rte_mem_virt2memseg(addr, msl);	/* NULL when outside the list */
	if (ms == NULL || ms->iova == RTE_BAD_IOVA)
		return RTE_BAD_IOVA;
	iova = ms->iova + (uintptr_t)((const char *)addr -
				      (const char *)ms->addr);
	/* a packet's range seldom crosses a page: one lookup, not two */
	if ((uintptr_t)last - (uintptr_t)ms->addr < ms->len) {
		*page = ms;
		return iova;
	}
	ms_last = rte_mem_virt2memseg(last, msl);
	if (ms_last == NULL || ms_last->iova == RTE_BAD_IOVA)
		return RTE_BAD_IOVA;
	iova_last = ms_last->iova + (uintptr_t)(last -
						(const char *)ms_last->addr);
	if (iova_last - iova != len - 1)
		return RTE_BAD_IOVA;
	return iova;
}

/* IOVA as VA (vdevs, --no-huge, VFIO with an IOMMU): the address itself. */
rte_iova_t
roce_txbuf_iova(const void *addr, uint32_t len,
		const struct rte_memseg_list *msl)
{
	const struct rte_memseg *page;

	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return (rte_iova_t)(uintptr_t)addr;
	return txbuf_iova_lookup(addr, len, msl, &page);
}

rte_iova_t
roce_txbuf_iova_fill(const void *addr, uint32_t len,
		     const struct rte_memseg_list *msl,
		     struct roce_txbuf_iova_cache *c,
		     const void *tag, uint32_t state)
{
	const struct rte_memseg *page;
	rte_iova_t iova;

	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return (rte_iova_t)(uintptr_t)addr;
	iova = txbuf_iova_lookup(addr, len, msl, &page);
	if (page != NULL) {
		c->lo = (uintptr_t)page->addr;
		c->hi = c->lo + page->len;
		c->iova = page->iova;
		c->tag = tag;
		c->state = state;
	}
	return iova;
}

const struct rte_memseg_list *
roce_txbuf_range_msl(const void *addr)
{
	if (addr == NULL || rte_eal_iova_mode() == RTE_IOVA_VA)
		return NULL;
	return rte_mem_virt2memseg_list(addr);
}

/*
 * Memory segments a registration walks at most (64 GiB of 2 MiB pages,
 * 512 MiB of 4 KiB ones): longer ranges get no cached IOVA, and their
 * packets are looked up one by one as before.
 */
#define TXBUF_RANGE_SEGS_MAX 32768

rte_iova_t
roce_txbuf_range_iova(const void *addr, uint64_t len)
{
	uintptr_t start = (uintptr_t)addr, end, p;
	const struct rte_memseg *ms;
	rte_iova_t iova;
	unsigned int n;

	/* integers: a registration may name any range, even a wrapping one */
	if (addr == NULL || len == 0 || len > UINTPTR_MAX - start)
		return RTE_BAD_IOVA;
	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return (rte_iova_t)start;
	end = start + (uintptr_t)len;
	ms = rte_mem_virt2memseg(addr, NULL);
	if (ms == NULL || ms->iova == RTE_BAD_IOVA)
		return RTE_BAD_IOVA;
	iova = ms->iova + (start - (uintptr_t)ms->addr);
	for (n = 0; n < TXBUF_RANGE_SEGS_MAX; n++) {
		p = (uintptr_t)ms->addr + ms->len;
		if (p >= end)
			return iova;
		ms = rte_mem_virt2memseg((const void *)p, NULL);
		/* the next page must follow in IOVA space too */
		if (ms == NULL || (uintptr_t)ms->addr != p ||
		    ms->iova != iova + (p - start))
			return RTE_BAD_IOVA;
	}
	return RTE_BAD_IOVA;
}

int
roce_txbuf_attach(struct rte_mempool *mp, struct rte_mbuf *m,
		  const void *addr, uint32_t len)
{
	return roce_txbuf_attach_ref(mp, NULL, m, addr, len,
				     roce_txbuf_iova(addr, len, NULL), NULL);
}

int
roce_txbuf_attach_ref(struct rte_mempool *mp, const struct roce_mbuf_pf *pf,
		      struct rte_mbuf *m, const void *addr, uint32_t len,
		      rte_iova_t iova, const struct roce_txbuf_count *cnt)
{
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_mbuf *seg[2];

	if (len == 0 || len > UINT16_MAX ||
	    rte_pktmbuf_data_room_size(mp) < sizeof(*shinfo))
		return -EINVAL;
	if (m->nb_segs + 2 > RTE_MBUF_MAX_NB_SEGS)
		return -EOVERFLOW;
	if (iova == RTE_BAD_IOVA)
		return -ENOTSUP;
	if (pf != NULL && pf->mp == mp) {
		/* the two of a later packet */
		roce_mbuf_pf_ahead(pf, 2 * ROCE_MBUF_PF_AHEAD);
		roce_mbuf_pf_ahead(pf, 2 * ROCE_MBUF_PF_AHEAD + 1);
	}
	if (rte_pktmbuf_alloc_bulk(mp, seg, RTE_DIM(seg)) != 0)
		return -ENOMEM;
	/*
	 * The shared info goes at the start of the mbuf's own data room
	 * (buf_addr before the attach, restored by the detach when the mbuf
	 * is freed): it lives as long as the mbuf, whatever order the
	 * segments of the chain are freed in by the driver.
	 */
	shinfo = seg[0]->buf_addr;
	shinfo->free_cb = txbuf_free_cb;
	shinfo->fcb_opaque = cnt != NULL ? cnt->dropped : NULL;
	if (cnt != NULL && cnt->taken != NULL)
		__atomic_fetch_add(cnt->taken, 1, __ATOMIC_ACQUIRE);
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	/* the buffer is read-only for us: the cast only fits the API */
	rte_pktmbuf_attach_extbuf(seg[0], (void *)(uintptr_t)addr, iova,
				  (uint16_t)len, shinfo);
	seg[0]->data_len = (uint16_t)len;
	seg[0]->pkt_len = len;
	/* the tail segment holds only the pad and the ICRC slot */
	seg[1]->data_off = 0;
	rte_pktmbuf_lastseg(m)->next = seg[0];
	seg[0]->next = seg[1];
	m->nb_segs += 2;
	m->pkt_len += len;
	return 0;
}
