/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_MBUF_H
#define ROCE_MBUF_H

/**
 * @file
 * Reading a chained mbuf by the segments it has (internal, not installed).
 *
 * rte_pktmbuf_read() trusts pkt_len: when pkt_len overstates the chain
 * (a driver's inconsistent mbuf) it follows m->next past the last segment.
 * These helpers stop at pkt_len as it does, but walk only the segments that
 * exist. roce_parse() refuses a frame whose segments hold fewer than
 * pkt_len bytes (roce_mbuf_holds()), so that everything after it (the
 * ICRC, the responder's copies) may trust pkt_len; the PMD's classifier,
 * which sees frames before the parser, reads through roce_mbuf_gather(),
 * and QP1's MAD decoder, a public entry point, through roce_mbuf_read().
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

/**
 * Copy up to @p len bytes at offset @p off of the chain @p m into @p buf,
 * no further than pkt_len and the last segment.
 *
 * @return the bytes copied: @p len, or fewer when the packet or its
 *   segments end first.
 */
uint32_t roce_mbuf_gather(const struct rte_mbuf *m, uint32_t off,
			  uint32_t len, void *buf);

/**
 * @p len bytes at offset @p off of the chain @p m: a pointer into the first
 * segment when they lie in it, else @p buf filled by roce_mbuf_gather().
 *
 * @return the bytes, or NULL when the packet or its segments end first.
 */
static inline const void *
roce_mbuf_read(const struct rte_mbuf *m, uint32_t off, uint32_t len,
	       void *buf)
{
	uint64_t end = (uint64_t)off + len;

	if (likely(end <= m->data_len && end <= m->pkt_len))
		return rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	return roce_mbuf_gather(m, off, len, buf) == len ? buf : NULL;
}

/** Whether the segments of @p m hold its pkt_len bytes. */
static inline bool
roce_mbuf_holds(const struct rte_mbuf *m)
{
	uint32_t want = m->pkt_len, have = 0;

	/* nb_segs and data_len share the mbuf's first line; next does not */
	if (likely(m->nb_segs == 1))
		return m->data_len >= want;
	for (; m != NULL && have < want; m = m->next)
		have += m->data_len;
	return have >= want;
}

#endif /* ROCE_MBUF_H */
