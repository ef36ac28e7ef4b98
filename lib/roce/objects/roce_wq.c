/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work queue storage shared by SQ, RQ and SRQ: a power-of-two array of
 * fixed-size WQE slots with free-running producer/consumer indexes.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "roce_priv.h"

int
roce_wq_init(struct roce_wq *q, uint32_t max_wr, uint32_t stride, int socket)
{
	uint32_t slots;

	if (q == NULL || stride == 0 || max_wr > ROCE_MAX_QP_WR)
		return -EINVAL;
	/* keep the caller's max_sge/max_inline, reset everything else */
	q->prod = 0;
	memset(&q->lkc, 0, sizeof(q->lkc));
	q->cons = 0;
	q->buf = NULL;
	q->mask = 0;
	q->max_wr = max_wr;
	q->stride = stride;
	if (max_wr == 0)	/* e.g. the RQ of a QP using an SRQ */
		return 0;
	slots = rte_align32pow2(max_wr);
	q->buf = rte_zmalloc_socket("roce_wq", (size_t)slots * stride,
				    RTE_CACHE_LINE_SIZE, socket);
	if (q->buf == NULL)
		return -ENOMEM;
	q->mask = slots - 1;
	return 0;
}

void
roce_wq_fini(struct roce_wq *q)
{
	if (q == NULL)
		return;
	rte_free(q->buf);
	q->buf = NULL;
	q->mask = 0;
	q->max_wr = 0;
	q->prod = 0;
	q->cons = 0;
}
