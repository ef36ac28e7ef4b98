/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_RESP_PRIV_H
#define ROCE_RESP_PRIV_H

/*
 * Between the responder's two files (not installed): roce_resp.c runs the
 * packets through the steps, roce_resp_out.c sends what they left waiting.
 */

#include "roce_qp.h"
#include "roce_timer.h"

/* Receive WQEs available on the QP's own RQ (worker view). */
static inline uint32_t
rq_avail(const struct roce_qp *qp)
{
	return __atomic_load_n(&qp->rq.prod, __ATOMIC_ACQUIRE) - qp->rq.cons;
}

/* The @p i-th oldest responder resource (i < res_count, res_head < res_cap) */
static inline struct roce_resp_res *
res_at(const struct roce_resp_state *r, uint32_t i)
{
	uint32_t k = r->res_head + i;

	return &r->res[k >= r->res_cap ? k - r->res_cap : k];
}

/** An ACK or a response for a later PSN acknowledges the held packets. */
void roce_resp_ack_covered(struct roce_qp *qp);

/** The ACK timer's callback: a held ACK's time is up. */
void roce_resp_ack_expired(struct roce_timer *t, uint64_t now);

#endif /* ROCE_RESP_PRIV_H */
