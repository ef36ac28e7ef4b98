/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_MBUF_PF_H
#define ROCE_MBUF_PF_H

/*
 * Prefetch of the transmit mbufs a worker allocates next (internal, not
 * installed).
 *
 * The mbufs a worker sends come back to the pool on whatever core frees
 * them (the peer port's worker in a loopback, a NIC driver's TX cleanup):
 * their header and headroom lines are cold, or owned by another core, when
 * the worker allocates them again, and the first writes into them stall.
 * The profile of 64 B WRITEs on the two-lcore loopback put half of the
 * sender's time on the mbuf reset of rte_pktmbuf_alloc() and on the
 * header template copy.
 *
 * The polling lcore's mempool cache is a stack: the next allocations pop
 * objs[len - 1], objs[len - 2]... Before each allocation the worker
 * prefetches, for writing, the mbuf ROCE_MBUF_PF_AHEAD places below the
 * top: its two header lines and the data lines the builder writes first,
 * at offsets computed from the mbuf's address (a direct mbuf of a pktmbuf
 * pool has its data room right after the header and the private area), so
 * that the prefetch does not wait for the header line itself. Nothing is
 * taken from the pool ahead of time. A thread without an lcore id (no
 * mempool cache) allocates without the prefetch.
 */

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

/** Allocations between the prefetch of an mbuf and its use. */
#define ROCE_MBUF_PF_AHEAD 4u

struct roce_mbuf_pf {
	struct rte_mempool *mp;
	/** The polling lcore's cache of @p mp; NULL: no prefetch. */
	const struct rte_mempool_cache *cache;
	uint32_t data_off;	/**< mbuf address to its first data line */
	uint32_t data_lines;	/**< data lines to prefetch from there */
};

/** Set @p pf up for @p mp (NULL: nothing to prefetch), unbound. */
void roce_mbuf_pf_init(struct roce_mbuf_pf *pf, struct rte_mempool *mp);

/** Follow the cache of lcore @p lcore (LCORE_ID_ANY: none). */
void roce_mbuf_pf_bind(struct roce_mbuf_pf *pf, unsigned int lcore);

/* The lines of @p m the builder writes first, with intent to write. */
static inline void
roce_mbuf_pf_lines(const struct roce_mbuf_pf *pf, const void *m)
{
	const char *p = (const char *)m;
	uint32_t i;

	rte_prefetch0_write(p);
	rte_prefetch0_write(p + RTE_CACHE_LINE_SIZE);
	for (i = 0; i < pf->data_lines; i++)
		rte_prefetch0_write(p + pf->data_off + i * RTE_CACHE_LINE_SIZE);
}

/**
 * Prefetch the mbuf the cache hands out @p ahead allocations from now
 * (0: the next one). A stale or racing view only prefetches the wrong
 * lines: a prefetch never faults.
 */
static inline void
roce_mbuf_pf_ahead(const struct roce_mbuf_pf *pf, uint32_t ahead)
{
	const struct rte_mempool_cache *c = pf->cache;
	uint32_t len;

	if (c == NULL)
		return;
	len = c->len;
	if (len > ahead)
		roce_mbuf_pf_lines(pf, c->objs[len - 1 - ahead]);
}

/** rte_pktmbuf_alloc() of @p pf's pool, prefetching a later mbuf. */
static inline struct rte_mbuf *
roce_mbuf_pf_alloc(const struct roce_mbuf_pf *pf)
{
	roce_mbuf_pf_ahead(pf, ROCE_MBUF_PF_AHEAD);
	return rte_pktmbuf_alloc(pf->mp);
}

#endif /* ROCE_MBUF_PF_H */
