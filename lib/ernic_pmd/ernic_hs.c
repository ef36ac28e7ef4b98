/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hardware handshake ports (PG332 "hardware handshake" offload mode): an
 * external application posts WQEs and takes completions and RQ producer
 * updates without register access, through SPSC rings shared with the
 * worker that owns the QP. The worker takes the posted WQEs in order
 * (ernic_hs_run, from ernic_regs_worker_poll), hands them to the QP's
 * lib/roce send queue, and publishes completion words and filled RQ
 * buffers; the application returns RQ buffers by advancing rq_cons.
 *
 * Indexes are free-running uint32_t; each side stores its own with release
 * and loads the other's with acquire. No locks.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "roce_verbs.h"

int
ernic_hs_create(struct ernic_reg_qp *q, uint32_t rq_pending)
{
	struct rte_pmd_ernic_hs_port *hs;
	int socket = q->regs->port->socket;
	uint32_t size;

	if (q->hs != NULL)
		return 0;
	if (rq_pending > q->rq_depth - 1)
		return -EINVAL;
	size = rte_align32pow2(q->sq_depth);
	hs = rte_zmalloc_socket("ernic_hs", sizeof(*hs), RTE_CACHE_LINE_SIZE,
				socket);
	if (hs == NULL)
		return -ENOMEM;
	hs->wqe = rte_zmalloc_socket("ernic_hs_sq", (size_t)size *
				     ERNIC_WQE_SIZE, RTE_CACHE_LINE_SIZE,
				     socket);
	hs->cq = rte_zmalloc_socket("ernic_hs_cq", (size_t)size *
				    sizeof(*hs->cq), RTE_CACHE_LINE_SIZE,
				    socket);
	if (hs->wqe == NULL || hs->cq == NULL) {
		rte_free(hs->wqe);
		rte_free(hs->cq);
		rte_free(hs);
		return -ENOMEM;
	}
	hs->size = size;
	/* SQ indexes wrap at the depth: depth - 1 outstanding at most */
	hs->sq_depth = q->sq_depth - 1;
	hs->rq_depth = q->rq_depth;
	/* buffers from RQCI on: the rq_pending oldest are already filled */
	hs->rq_base = q->rq_ci;
	hs->rq_prod = rq_pending;
	hs->rq_bufsz = q->rq_bufsz;
	hs->rqba = q->rqba;
	hs->qpn = q->qpn;
	q->hs = hs;
	return 0;
}

void
ernic_hs_destroy(struct ernic_reg_qp *q)
{
	if (q->hs == NULL)
		return;
	rte_free(q->hs->wqe);
	rte_free(q->hs->cq);
	rte_free(q->hs);
	q->hs = NULL;
}

void
ernic_hs_complete(struct ernic_reg_qp *q, uint16_t wrid, uint8_t opcode,
		  uint8_t status)
{
	struct rte_pmd_ernic_hs_port *hs = q->hs;
	struct rte_pmd_ernic_hs_cqe *c = &hs->cq[hs->cq_prod & (hs->size - 1)];

	/* no overflow: the poster keeps sq_depth < size words outstanding */
	c->wrid = wrid;
	c->opcode = opcode;
	c->status = status;
	__atomic_store_n(&hs->cq_prod, hs->cq_prod + 1, __ATOMIC_RELEASE);
}

void
ernic_hs_rq_filled(struct ernic_reg_qp *q)
{
	struct rte_pmd_ernic_hs_port *hs = q->hs;

	__atomic_store_n(&hs->rq_prod, hs->rq_prod + 1, __ATOMIC_RELEASE);
}

/*
 * After an illegal WQE: once lib/roce completed what it was given, the
 * illegal WQE completes with a local QP operation error and every later
 * one as flushed, in order.
 */
static uint32_t
hs_complete_local(struct ernic_reg_qp *q, uint32_t cons, uint32_t prod)
{
	struct rte_pmd_ernic_hs_port *hs = q->hs;
	const struct rte_pmd_ernic_wqe *w;

	if (__atomic_load_n(&q->cq_head, __ATOMIC_RELAXED) != q->sq_next)
		return cons;
	while (cons != prod) {
		w = (const struct rte_pmd_ernic_wqe *)(const void *)
			(hs->wqe + (size_t)(cons & (hs->size - 1)) *
			 ERNIC_WQE_SIZE);
		ernic_hs_complete(q, w->wrid, w->opcode,
				  ernic_local_err_status(q));
		q->sq_next = (q->sq_next + 1) % q->sq_depth;
		__atomic_store_n(&q->cq_head, q->sq_next, __ATOMIC_RELEASE);
		ernic_rq_set(q, ERNIC_CQHEAD, q->sq_next);
		cons++;
	}
	return cons;
}

void
ernic_hs_run(struct ernic_reg_qp *q)
{
	struct rte_pmd_ernic_hs_port *hs = q->hs;
	uint32_t prod, cons = hs->sq_cons, rel;
	const uint8_t *wqe;
	int ret;

	prod = __atomic_load_n(&hs->sq_prod, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&q->illegal, __ATOMIC_ACQUIRE)) {
		cons = hs_complete_local(q, cons, prod);
	} else {
		while (cons != prod) {
			wqe = hs->wqe + (size_t)(cons & (hs->size - 1)) *
				ERNIC_WQE_SIZE;
			ret = ernic_flow_post_wqe(q, wqe, q->sq_next);
			if (ret != 0) {
				/* left in the ring: completed in order later */
				ernic_flow_wqe_illegal(q, q->sq_next, wqe[16],
						       ret);
				break;
			}
			q->sq_next = (q->sq_next + 1) % q->sq_depth;
			cons++;
		}
	}
	if (cons != hs->sq_cons)
		__atomic_store_n(&hs->sq_cons, cons, __ATOMIC_RELEASE);

	/* RQ buffers the application released go back to the receive queue */
	rel = __atomic_load_n(&hs->rq_cons, __ATOMIC_ACQUIRE);
	while (q->hs_rq_seen != rel &&
	       !__atomic_load_n(&q->fatal, __ATOMIC_ACQUIRE)) {
		if (ernic_flow_post_rqbuf(q, q->rq_post) != 0)
			break;
		q->rq_post = (q->rq_post + 1) % q->rq_depth;
		q->hs_rq_seen++;
	}
}

/* ------------------------------------------------------------------ */
/* Application side (rte_pmd_ernic_regs.h)                            */
/* ------------------------------------------------------------------ */

int
rte_pmd_ernic_hs_attach(uint16_t port_id, uint32_t qpn,
			struct rte_pmd_ernic_hs_port **hs)
{
	struct ernic_port *p = ernic_port_get(port_id);
	struct ernic_reg_qp *q;
	int ret = 0;

	if (p == NULL || p->regs == NULL)
		return -ENODEV;
	if (hs == NULL)
		return -EINVAL;
	rte_spinlock_lock(&p->regs->lock);
	q = ernic_regs_qp(p->regs, qpn);
	if (q == NULL)
		ret = -EINVAL;
	else if (__atomic_load_n(&q->mode, __ATOMIC_ACQUIRE) != ERNIC_QP_HS ||
		 q->hs == NULL)
		ret = -ENOTCONN;
	else
		*hs = q->hs;
	rte_spinlock_unlock(&p->regs->lock);
	return ret;
}

int
rte_pmd_ernic_hs_post(struct rte_pmd_ernic_hs_port *hs, const void *wqe)
{
	uint32_t prod = hs->sq_prod;

	if (prod - hs->cq_cons >= hs->sq_depth) {
		hs->post_full++;
		return -ENOSPC;
	}
	memcpy(hs->wqe + (size_t)(prod & (hs->size - 1)) * ERNIC_WQE_SIZE,
	       wqe, ERNIC_WQE_SIZE);
	/* the doorbell: the WQE is visible before the index */
	__atomic_store_n(&hs->sq_prod, prod + 1, __ATOMIC_RELEASE);
	return 0;
}

unsigned int
rte_pmd_ernic_hs_poll_cq(struct rte_pmd_ernic_hs_port *hs,
			 struct rte_pmd_ernic_hs_cqe *c, unsigned int n)
{
	uint32_t prod = __atomic_load_n(&hs->cq_prod, __ATOMIC_ACQUIRE);
	uint32_t cons = hs->cq_cons;
	unsigned int i, avail = prod - cons;

	n = RTE_MIN(n, avail);
	for (i = 0; i < n; i++)
		c[i] = hs->cq[(cons + i) & (hs->size - 1)];
	__atomic_store_n(&hs->cq_cons, cons + n, __ATOMIC_RELEASE);
	return n;
}

uint32_t
rte_pmd_ernic_hs_rq(struct rte_pmd_ernic_hs_port *hs, uint32_t *buf_idx)
{
	uint32_t prod = __atomic_load_n(&hs->rq_prod, __ATOMIC_ACQUIRE);

	if (buf_idx != NULL)
		*buf_idx = (hs->rq_base + hs->rq_cons) % hs->rq_depth;
	return prod - hs->rq_cons;
}

void
rte_pmd_ernic_hs_rq_release(struct rte_pmd_ernic_hs_port *hs, uint32_t n)
{
	uint32_t prod = __atomic_load_n(&hs->rq_prod, __ATOMIC_ACQUIRE);

	n = RTE_MIN(n, prod - hs->rq_cons);
	__atomic_store_n(&hs->rq_cons, hs->rq_cons + n, __ATOMIC_RELEASE);
}
