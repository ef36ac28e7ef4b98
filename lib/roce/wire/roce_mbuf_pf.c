/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prefetch of the transmit mbufs a worker allocates next (roce_mbuf_pf.h).
 */
#include <string.h>

#include <rte_lcore.h>

#include "roce_mbuf_pf.h"

void
roce_mbuf_pf_init(struct roce_mbuf_pf *pf, struct rte_mempool *mp)
{
	uint16_t room;

	memset(pf, 0, sizeof(*pf));
	pf->mp = mp;
	if (mp == NULL)
		return;
	/*
	 * Where the builder writes first: the two lines before the
	 * headroom's end (up to 128 bytes of headers are prepended there)
	 * and the first two payload lines (a small payload and its ICRC);
	 * or the data room's first line when the room is smaller than the
	 * headroom (the zero-copy pool's attached and tail segments write
	 * only there).
	 */
	room = rte_pktmbuf_data_room_size(mp);
	pf->data_off = (uint32_t)sizeof(struct rte_mbuf) +
		rte_pktmbuf_priv_size(mp);
	pf->data_lines = 1;
	if (room > RTE_PKTMBUF_HEADROOM &&
	    RTE_PKTMBUF_HEADROOM >= 2 * RTE_CACHE_LINE_SIZE) {
		pf->data_off += RTE_PKTMBUF_HEADROOM - 2 * RTE_CACHE_LINE_SIZE;
		pf->data_lines = 4;
	}
}

void
roce_mbuf_pf_bind(struct roce_mbuf_pf *pf, unsigned int lcore)
{
	pf->cache = pf->mp != NULL && lcore != LCORE_ID_ANY ?
		rte_mempool_default_cache(pf->mp, lcore) : NULL;
}
