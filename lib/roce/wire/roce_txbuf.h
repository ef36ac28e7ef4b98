/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_TXBUF_H
#define ROCE_TXBUF_H

/*
 * Zero-copy transmit of payload (internal, not installed).
 *
 * A packet whose payload is one contiguous range of registered host memory
 * of at least roce_txbuf_zc_min() bytes is made of three segments:
 *
 *   [header mbuf: headers in headroom] -> [attached mbuf: the payload, in
 *   place] -> [tail mbuf: pad + ICRC]
 *
 * The middle mbuf comes from the same pool as the others and points at the
 * application's memory with rte_pktmbuf_attach_extbuf(). Its
 * struct rte_mbuf_ext_shared_info lives in the mbuf's own (unused) data
 * room, so it exists exactly as long as the mbuf and is written only by
 * us; the free callback does nothing (the application owns the memory).
 * Nothing is ever written into the attached range: the builder puts the
 * pad and ICRC slot into the tail mbuf's tailroom (roce_build_mbuf()), and
 * roce_icrc_fill_mbuf() walks the chain.
 *
 * Smaller payloads, payloads spanning several SGEs and inline data are
 * copied (a copy of a few hundred bytes is cheaper than two more mbufs).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "roce_mbuf_pf.h"
#include "roce_verbs.h"

/**
 * In-flight count of zero-copy attachments to one memory region, as two
 * counters so that no cache line crosses cores per packet: @c taken
 * counted by the attaching worker, @c dropped by the core that frees the
 * mbuf (the peer's worker in a loopback, the TX completion elsewhere).
 * In flight: dropped read first, then taken - dropped.
 */
struct roce_txbuf_count {
	uint32_t *taken;
	uint32_t *dropped;
};

/** Default roce_device_config::zc_min: smaller payloads are copied. */
#define ROCE_TXBUF_ZC_MIN_DEFAULT 256u

/** Payload threshold of zero-copy transmit for a device of @p cfg. */
static inline uint32_t
roce_txbuf_zc_min(const struct roce_device_config *cfg)
{
	return cfg->zc_min != 0 ? cfg->zc_min : ROCE_TXBUF_ZC_MIN_DEFAULT;
}

/** True when @p len payload bytes in one host range go zero-copy. */
static inline bool
roce_txbuf_zc_ok(const struct roce_device_config *cfg, uint32_t len)
{
	return cfg->zero_copy_tx && len >= roce_txbuf_zc_min(cfg);
}

/** Pool of the attached and tail segments of a device of @p cfg. */
static inline struct rte_mempool *
roce_txbuf_pool(const struct roce_device_config *cfg)
{
	return cfg->zc_pool != NULL ? cfg->zc_pool : cfg->hdr_pool;
}

/**
 * Chain @p len bytes of host memory at @p addr to packet @p m, without
 * copying, followed by an empty tail segment for the pad and the ICRC.
 * Both extra mbufs come from @p mp (the pool of @p m). On error @p m is
 * unchanged and nothing is allocated.
 *
 * @param mp pool of the attached and tail mbufs
 * @param m the packet (its last segment is followed by the new ones)
 * @param addr payload, contiguous host memory; never written
 * @param len payload bytes, 1..UINT16_MAX
 * @return 0, -ENOMEM (pool empty), -EINVAL (@p len out of range, or the
 *   pool's data room cannot hold the shared info), -ENOTSUP (no IOVA for
 *   @p addr: IOVA as PA and the memory is not DPDK's; copy instead),
 *   -EOVERFLOW (too many segments)
 */
int roce_txbuf_attach(struct rte_mempool *mp, struct rte_mbuf *m,
		      const void *addr, uint32_t len);

/**
 * IOVA of one packet's payload [@p addr, @p addr + @p len), len > 0, or
 * RTE_BAD_IOVA (IOVA as PA and not IOVA-contiguous DPDK memory: the
 * caller copies). @p msl: the memseg list of @p addr when known
 * (roce_txbuf_range_msl()), else NULL.
 */
rte_iova_t roce_txbuf_iova(const void *addr, uint32_t len,
			   const struct rte_memseg_list *msl);

/**
 * The last page a worker looked up for zero-copy transmit from a region
 * whose pages are not IOVA-contiguous (roce_txbuf_iova_cached()): the
 * memory segment [@c lo, @c hi) at IOVA @c iova, found for registration
 * @c tag in state @c state. The next frames of a message stream mostly
 * lie in the same page (a 4 KB frame crosses a 2 MiB page once in 512),
 * and a registration's pages stay where they are while it is unchanged
 * (the verbs rule: registered memory stays allocated until deregistered).
 * One per worker, written by it only; zeroed: empty.
 */
struct roce_txbuf_iova_cache {
	uintptr_t lo;
	uintptr_t hi;
	rte_iova_t iova;
	const void *tag;
	uint32_t state;
};

/** roce_txbuf_iova_cached() past its cache: look up, cache the page. */
rte_iova_t roce_txbuf_iova_fill(const void *addr, uint32_t len,
				const struct rte_memseg_list *msl,
				struct roce_txbuf_iova_cache *c,
				const void *tag, uint32_t state);

/**
 * roce_txbuf_iova() through @p c (not NULL): an answer from the cached
 * page when [@p addr, @p addr + @p len) lies in it and @p tag and
 * @p state are those it was found for (the key entry and its state word:
 * any deregistration, re-registration or invalidation changes the
 * state), else a lookup that caches the range's page when the range lies
 * in one.
 */
static inline rte_iova_t
roce_txbuf_iova_cached(const void *addr, uint32_t len,
		       const struct rte_memseg_list *msl,
		       struct roce_txbuf_iova_cache *c,
		       const void *tag, uint32_t state)
{
	uintptr_t a = (uintptr_t)addr;

	/* unsigned: an empty cache (lo == hi) holds nothing */
	if (likely(c->tag == tag && c->state == state &&
		   a - c->lo < c->hi - c->lo && len != 0 &&
		   len <= c->hi - a))
		return c->iova + (a - c->lo);
	return roce_txbuf_iova_fill(addr, len, msl, c, tag, state);
}

/**
 * Memseg list of @p addr for roce_txbuf_iova(), kept by a memory
 * registration; NULL with IOVA as VA (not needed) or for memory that is
 * not DPDK's.
 */
const struct rte_memseg_list *roce_txbuf_range_msl(const void *addr);

/**
 * IOVA of [@p addr, @p addr + @p len) when the whole range has one (IOVA
 * as VA: the address; IOVA as PA: DPDK memory whose pages follow each
 * other in IOVA space too), else RTE_BAD_IOVA. For memory registration:
 * the key entry keeps it so that zero-copy transmit needs no per-packet
 * lookup (roce_key_ref_iova()). Walks the range's memory segments (at
 * most 32768; longer ranges get RTE_BAD_IOVA).
 */
rte_iova_t roce_txbuf_range_iova(const void *addr, uint64_t len);

/**
 * roce_txbuf_attach() that also counts the attachment in @p cnt
 * (atomically; NULL or NULL members: not counted): taken now, dropped when
 * the attached mbuf is freed. The owner of the memory waits for them to be
 * equal before reusing it (deregistration of a region a READ response is
 * sent from, roce_priv.h roce_key_entry).
 * @p pf (NULL: none): the calling worker's prefetch of @p mp, told that
 * two mbufs are taken. @p iova: IOVA of @p addr (roce_key_ref_iova(),
 * roce_txbuf_iova()); RTE_BAD_IOVA fails with -ENOTSUP.
 */
int roce_txbuf_attach_ref(struct rte_mempool *mp, const struct roce_mbuf_pf *pf,
			  struct rte_mbuf *m, const void *addr, uint32_t len,
			  rte_iova_t iova, const struct roce_txbuf_count *cnt);

#endif /* ROCE_TXBUF_H */
