/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading a chained mbuf by the segments it has (roce_mbuf.h). */
#include "roce_mbuf.h"

#include <rte_common.h>
#include <rte_memcpy.h>

uint32_t
roce_mbuf_gather(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		 void *buf)
{
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m), left, run;
	uint8_t *dst = buf;

	if (off >= pkt_len)
		return 0;
	len = RTE_MIN(len, pkt_len - off);
	left = len;
	/* the segment holding byte off (empty segments are passed over) */
	for (; m != NULL && off >= m->data_len; m = m->next)
		off -= m->data_len;
	for (; left > 0 && m != NULL; m = m->next, off = 0) {
		run = RTE_MIN((uint32_t)m->data_len - off, left);
		rte_memcpy(dst, rte_pktmbuf_mtod_offset(m, const uint8_t *, off),
			   run);
		dst += run;
		left -= run;
	}
	return len - left;
}
