/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs, shared receive queues and address handles.
 *
 * A QP is made on the worker of its SRQ, or else on the port's next one
 * (rte_pmd_ernic_pick_worker()): QPs that share CQs spread over the
 * workers all the same, each CQ getting a part on the QP's worker
 * (ev_cq_bind()). An SRQ's receive queue is read by one worker, so the
 * QPs of one SRQ share it.
 * The legality of a Modify QP (transitions, required and allowed
 * attributes, ranges) is lib/roce's table (roce_qp_table.c): this file
 * translates the structs and resolves the next hop of an address vector
 * before handing the change over.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ev_priv.h"
#include "rte_pmd_ernic.h"

/* ------------------------------------------------------------------ */
/* Queue pairs                                                        */
/* ------------------------------------------------------------------ */

/* What ibv_create_qp_ex() may ask of this device. */
#define QP_COMP_MASK (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | \
		      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
#define QP_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | \
		     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND | \
		     IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | \
		     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
		     IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | \
		     IBV_QP_EX_WITH_SEND_WITH_INV)

/* The worker of the QP: its SRQ's, or the port's next one. */
static int
qp_worker(struct ev_port *p, struct ev_srq *srq, struct roce_worker **w)
{
	*w = srq != NULL ? srq->w : rte_pmd_ernic_pick_worker(p->port_id);
	return *w != NULL ? 0 : ENODEV;
}

static int
qp_check(struct ibv_context *context, const struct ibv_qp_init_attr_ex *a)
{
	if (a->send_cq == NULL || a->recv_cq == NULL || a->pd == NULL ||
	    !(a->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    a->send_cq->context != context || a->recv_cq->context != context ||
	    a->pd->context != context ||
	    (a->srq != NULL && a->srq->context != context))
		return EINVAL;
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC &&
	    a->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;	/* XRC, raw packet, driver QPs */
	if ((a->comp_mask & ~(uint32_t)QP_COMP_MASK) != 0 ||
	    ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     a->create_flags != 0) ||
	    ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (a->send_ops_flags & ~(uint64_t)QP_SEND_OPS) != 0))
		return EOPNOTSUPP;
	return 0;
}

static struct ibv_qp *
qp_create(struct ibv_context *context, struct ibv_qp_init_attr_ex *a)
{
	struct ev_context *ctx = ev_ctx(context);
	struct ev_port *p = ctx->port;
	struct roce_qp_init_attr ri;
	struct roce_qp_attr qa;
	struct roce_worker *w;
	struct ev_qp *q;
	int ret;

	ret = qp_check(context, a);
	if (ret != 0) {
		errno = ret;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	q->ctx = ctx;
	q->port = p;
	q->scq = ev_cq(a->send_cq);
	q->rcq = ev_cq(a->recv_cq);
	q->srq = a->srq != NULL ? container_of(a->srq, struct ev_srq, ibsrq) :
		NULL;
	q->type = a->qp_type;
	ev_lock_init(&q->sq_lock);
	ev_lock_init(&q->rq_lock);

	memset(&ri, 0, sizeof(ri));
	ri.qp_type = (enum roce_qp_type)a->qp_type;
	ri.srq = q->srq != NULL ? q->srq->srq : NULL;
	ri.cap.max_send_wr = a->cap.max_send_wr;
	ri.cap.max_recv_wr = a->srq != NULL ? 0 : a->cap.max_recv_wr;
	ri.cap.max_send_sge = a->cap.max_send_sge;
	ri.cap.max_recv_sge = a->srq != NULL ? 0 : a->cap.max_recv_sge;
	ri.cap.max_inline_data = a->cap.max_inline_data;
	ri.sq_sig_all = a->sq_sig_all != 0;
	ri.qp_context = q;
	/* a bad L_Key fails the WR when it executes, as devices do */
	ri.lkey_at_exec = true;

	pthread_mutex_lock(&ev_env.ctl);
	ret = qp_worker(p, q->srq, &w);
	if (ret == 0) {
		ev_port_hold(p);
		q->w = w;
		q->rscq = ev_cq_bind(q->scq, w);
		q->rrcq = q->rscq != NULL ? ev_cq_bind(q->rcq, w) : NULL;
		if (q->rrcq == NULL) {
			ret = errno;
		} else {
			ri.send_cq = q->rscq;
			ri.recv_cq = q->rrcq;
			q->qp = roce_create_qp(container_of(a->pd, struct ev_pd,
						ibpd)->pd, &ri);
			if (q->qp == NULL)
				ret = ev_errno(EV_V_CREATE_QP, rte_errno);
		}
		ev_port_release(p);
	}
	if (ret == 0) {
		__atomic_fetch_add(&q->scq->qps, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&q->rcq->qps, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0) {
		free(q);
		errno = ret;
		return NULL;
	}
	/* the sizes the QP got (ibv_create_qp(3): written back) */
	roce_query_qp(q->qp, &qa, &ri);
	a->cap.max_send_wr = ri.cap.max_send_wr;
	a->cap.max_send_sge = ri.cap.max_send_sge;
	a->cap.max_inline_data = ri.cap.max_inline_data;
	if (a->srq == NULL) {
		a->cap.max_recv_wr = ri.cap.max_recv_wr;
		a->cap.max_recv_sge = ri.cap.max_recv_sge;
	}
	q->max_send_sge = ri.cap.max_send_sge;
	q->max_recv_sge = ri.cap.max_recv_sge;
	q->max_inline = ri.cap.max_inline_data;
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (ret = ev_qp_ex_init(q, a->send_ops_flags)) != 0) {
		ev_qp_destroy(q);
		errno = ret;
		return NULL;
	}
	q->ibqp.qp_base.context = context;
	q->ibqp.qp_base.qp_context = a->qp_context;
	q->ibqp.qp_base.pd = a->pd;
	q->ibqp.qp_base.send_cq = a->send_cq;
	q->ibqp.qp_base.recv_cq = a->recv_cq;
	q->ibqp.qp_base.srq = a->srq;
	q->ibqp.qp_base.qp_num = roce_qp_num(q->qp);
	q->ibqp.qp_base.state = IBV_QPS_RESET;
	q->ibqp.qp_base.qp_type = a->qp_type;
	pthread_mutex_init(&q->ibqp.qp_base.mutex, NULL);
	pthread_cond_init(&q->ibqp.qp_base.cond, NULL);
	ev_obj_add(ctx, EV_K_QP, &q->link);
	return &q->ibqp.qp_base;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(*attr));
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = pd;
	qp = qp_create(pd->context, &a);
	if (qp != NULL)
		attr->cap = a.cap;
	return qp;
}

struct ibv_qp *
ev_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return qp_create(context, attr);
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct ev_qp *q = ev_qp(qp);

	return q != NULL && q->is_ex ? &q->ibqp : NULL;
}

/* Remove @p q's completions from its CQs (ctl and port held). */
static void
qp_discard_cqes(struct ev_qp *q)
{
	struct ev_cq *cqs[2] = { q->scq, q->rcq };
	struct roce_cq *parts[2] = { q->rscq, q->rrcq };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (i == 1 && parts[1] == parts[0])
			break;
		ev_lock(&cqs[i]->lock);
		roce_cq_discard_qp(parts[i], roce_qp_num(q->qp));
		ev_unlock(&cqs[i]->lock);
	}
}

/* The attribute masks of Modify QP this device knows (ibv_qp_attr_mask). */
#define QP_ATTR_MASK ((IBV_QP_DEST_QPN << 1) - 1)

int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ev_qp *q;
	struct ev_port *p;
	struct roce_qp_attr ra;
	int ret;

	if (qp == NULL || attr == NULL)
		return EINVAL;
	if ((mask & ~QP_ATTR_MASK) != 0)
		return EOPNOTSUPP;	/* rate limit */
	q = ev_qp(qp);
	p = q->port;
	memset(&ra, 0, sizeof(ra));
	ra.qp_state = (enum roce_qp_state)attr->qp_state;
	ra.cur_qp_state = (enum roce_qp_state)attr->cur_qp_state;
	ra.path_mtu = (enum roce_mtu)attr->path_mtu;
	ra.qkey = attr->qkey;
	ra.rq_psn = attr->rq_psn;
	ra.sq_psn = attr->sq_psn;
	ra.dest_qp_num = attr->dest_qp_num;
	ra.qp_access_flags = (int)attr->qp_access_flags;
	ra.cap.max_send_wr = attr->cap.max_send_wr;
	ra.cap.max_recv_wr = attr->cap.max_recv_wr;
	ra.cap.max_send_sge = attr->cap.max_send_sge;
	ra.cap.max_recv_sge = attr->cap.max_recv_sge;
	ra.cap.max_inline_data = attr->cap.max_inline_data;
	ra.pkey_index = attr->pkey_index;
	ra.alt_pkey_index = attr->alt_pkey_index;
	ra.en_sqd_async_notify = attr->en_sqd_async_notify;
	ra.max_rd_atomic = attr->max_rd_atomic;
	ra.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	ra.min_rnr_timer = attr->min_rnr_timer;
	ra.port_num = attr->port_num;
	ra.timeout = attr->timeout;
	ra.retry_cnt = attr->retry_cnt;
	ra.rnr_retry = attr->rnr_retry;
	ra.path_mig_state = (uint8_t)attr->path_mig_state;
	if (mask & IBV_QP_AV) {
		ret = ev_ah_from_ibv(p, &attr->ah_attr, &ra.ah_attr);
		if (ret != 0)
			return ret;
	}
	if (mask & IBV_QP_ALT_PATH) {
		ret = ev_ah_from_ibv(p, &attr->alt_ah_attr, &ra.alt_ah_attr);
		if (ret != 0)
			return ret;
	}
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(p);
	ret = 0;
	if (mask & IBV_QP_AV)
		ret = ev_ah_resolve(p, &ra.ah_attr);
	if (ret == 0 && (mask & IBV_QP_ALT_PATH))
		ret = ev_ah_resolve(p, &ra.alt_ah_attr);
	if (ret == 0) {
		ret = roce_modify_qp(q->qp, &ra, mask);
		ret = ret != 0 ? ev_errno(EV_V_MODIFY_QP, ret) : 0;
	}
	/* RESET forgets the QP's old work, completions not polled included */
	if (ret == 0 && (mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		qp_discard_cqes(q);
	ev_port_release(p);
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret == 0 && (mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct roce_qp_init_attr ri;
	struct roce_qp_attr ra;
	struct ev_qp *q;
	int ret;

	(void)mask;	/* every attribute is returned */
	if (qp == NULL || attr == NULL)
		return EINVAL;
	q = ev_qp(qp);
	ret = roce_query_qp(q->qp, &ra, &ri);
	if (ret != 0)
		return ev_errno(EV_V_MODIFY_QP, ret);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)ra.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)ra.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)ra.path_mtu;
	attr->path_mig_state = (enum ibv_mig_state)ra.path_mig_state;
	attr->qkey = ra.qkey;
	attr->rq_psn = ra.rq_psn;
	attr->sq_psn = ra.sq_psn;
	attr->dest_qp_num = ra.dest_qp_num;
	attr->qp_access_flags = (unsigned int)ra.qp_access_flags;
	attr->cap.max_send_wr = ri.cap.max_send_wr;
	attr->cap.max_recv_wr = ri.cap.max_recv_wr;
	attr->cap.max_send_sge = ri.cap.max_send_sge;
	attr->cap.max_recv_sge = ri.cap.max_recv_sge;
	attr->cap.max_inline_data = ri.cap.max_inline_data;
	ev_ah_to_ibv(&ra.ah_attr, &attr->ah_attr);
	ev_ah_to_ibv(&ra.alt_ah_attr, &attr->alt_ah_attr);
	attr->pkey_index = ra.pkey_index;
	attr->alt_pkey_index = ra.alt_pkey_index;
	attr->en_sqd_async_notify = ra.en_sqd_async_notify;
	attr->sq_draining = ra.sq_draining;
	attr->max_rd_atomic = ra.max_rd_atomic;
	attr->max_dest_rd_atomic = ra.max_dest_rd_atomic;
	attr->min_rnr_timer = ra.min_rnr_timer;
	attr->port_num = 1;
	attr->timeout = ra.timeout;
	attr->retry_cnt = ra.retry_cnt;
	attr->rnr_retry = ra.rnr_retry;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = ri.sq_sig_all;
	}
	return 0;
}

int
ev_qp_destroy(struct ev_qp *q)
{
	int ret;

	pthread_mutex_lock(&ev_env.ctl);
	ev_cm_qp_gone(&q->ibqp.qp_base);
	ev_port_hold(q->port);
	ret = roce_destroy_qp(q->qp);
	ev_port_release(q->port);
	if (ret == 0) {
		__atomic_fetch_sub(&q->scq->qps, 1, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&q->rcq->qps, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	if (q->link.next != NULL)
		ev_obj_del(q->ctx, &q->link);
	ev_qp_ex_fini(q);
	free(q);
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	if (qp == NULL)
		return EINVAL;
	return ev_qp_destroy(ev_qp(qp));
}

int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			   uint32_t flags)
{
	(void)op;
	/* the responder writes a message's bytes in packet order */
	return qp != NULL && flags == 0 ? 1 : 0;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;	/* UD multicast groups are not offered */
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	return EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                              */
/* ------------------------------------------------------------------ */

static struct ibv_srq *
srq_create(struct ibv_pd *ibpd, void *srq_context, struct ibv_srq_attr *attr)
{
	struct ev_context *ctx = ev_ctx(ibpd->context);
	struct ev_port *p = ctx->port;
	struct roce_srq_attr ra;
	struct ev_srq *s;
	int ret = 0;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	s->ctx = ctx;
	ev_lock_init(&s->lock);
	memset(&ra, 0, sizeof(ra));
	ra.max_wr = attr->max_wr;
	ra.max_sge = attr->max_sge;
	ra.srq_limit = attr->srq_limit;
	ra.lkey_at_exec = true;
	pthread_mutex_lock(&ev_env.ctl);
	s->w = rte_pmd_ernic_pick_worker(p->port_id);
	if (s->w == NULL) {
		ret = ENODEV;
	} else {
		ev_port_hold(p);
		s->srq = roce_create_srq(container_of(ibpd, struct ev_pd,
						      ibpd)->pd, s->w, &ra);
		if (s->srq == NULL)
			ret = ev_errno(EV_V_CREATE_SRQ, rte_errno);
		ev_port_release(p);
	}
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0) {
		free(s);
		errno = ret;
		return NULL;
	}
	roce_query_srq(s->srq, &ra);
	attr->max_wr = ra.max_wr;
	attr->max_sge = ra.max_sge;
	s->max_wr = ra.max_wr;
	s->max_sge = ra.max_sge;
	s->ibsrq.context = ibpd->context;
	s->ibsrq.srq_context = srq_context;
	s->ibsrq.pd = ibpd;
	pthread_mutex_init(&s->ibsrq.mutex, NULL);
	pthread_cond_init(&s->ibsrq.cond, NULL);
	ev_obj_add(ctx, EV_K_SRQ, &s->link);
	return &s->ibsrq;
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return srq_create(pd, attr->srq_context, &attr->attr);
}

struct ibv_srq *
ev_create_srq_ex(struct ibv_context *context,
		 struct ibv_srq_init_attr_ex *attr)
{
	if (context == NULL || attr == NULL || attr->pd == NULL ||
	    !(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	/* XRC and tag-matching SRQs are not offered */
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    attr->srq_type != IBV_SRQT_BASIC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD |
					   IBV_SRQ_INIT_ATTR_TYPE)) != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return srq_create(attr->pd, attr->srq_context, &attr->attr);
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct roce_srq_attr ra;
	struct ev_srq *s;
	int ret;

	if (srq == NULL || attr == NULL ||
	    (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)) != 0)
		return EINVAL;
	s = container_of(srq, struct ev_srq, ibsrq);
	memset(&ra, 0, sizeof(ra));
	ra.max_wr = attr->max_wr;
	ra.srq_limit = attr->srq_limit;
	/* resizing copies the queue: no post may run meanwhile */
	ev_lock(&s->lock);
	ret = roce_modify_srq(s->srq, &ra, mask);
	ev_unlock(&s->lock);
	if (ret != 0)
		return ev_errno(EV_V_CREATE_SRQ, ret);
	if (mask & IBV_SRQ_MAX_WR) {
		roce_query_srq(s->srq, &ra);
		attr->max_wr = ra.max_wr;
		s->max_wr = ra.max_wr;
	}
	return 0;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct roce_srq_attr ra;
	int ret;

	if (srq == NULL || attr == NULL)
		return EINVAL;
	ret = roce_query_srq(container_of(srq, struct ev_srq, ibsrq)->srq, &ra);
	if (ret != 0)
		return ev_errno(EV_V_CREATE_SRQ, ret);
	attr->max_wr = ra.max_wr;
	attr->max_sge = ra.max_sge;
	attr->srq_limit = ra.srq_limit;
	return 0;
}

int
ev_srq_destroy(struct ev_srq *s)
{
	int ret;

	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(s->ctx->port);
	ret = roce_destroy_srq(s->srq);
	ev_port_release(s->ctx->port);
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	ev_obj_del(s->ctx, &s->link);
	free(s);
	return 0;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	if (srq == NULL)
		return EINVAL;
	return ev_srq_destroy(container_of(srq, struct ev_srq, ibsrq));
}

/* ------------------------------------------------------------------ */
/* Address handles                                                    */
/* ------------------------------------------------------------------ */

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ev_port *p;
	struct ev_ah *ah;
	int ret;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	p = ev_ctx(pd->context)->port;
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ev_ah_from_ibv(p, attr, &ah->attr);
	if (ret == 0) {
		pthread_mutex_lock(&ev_env.ctl);
		ev_port_hold(p);
		ret = ev_ah_resolve(p, &ah->attr);
		ev_port_release(p);
		pthread_mutex_unlock(&ev_env.ctl);
	}
	if (ret != 0) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	return &ah->ibah;
}

int
ibv_destroy_ah(struct ibv_ah *ah)
{
	if (ah == NULL)
		return EINVAL;
	free(container_of(ah, struct ev_ah, ibah));
	return 0;
}

/* The GID of @p p equal to @p g: its index, -1 when none. */
static int
gid_index(const struct ev_port *p, const uint8_t g[16])
{
	unsigned int i;

	for (i = 0; i < p->nb_gid; i++)
		if (memcmp(p->gid[i].raw, g, 16) == 0)
			return (int)i;
	return -1;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
		    struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah_attr)
{
	static const uint8_t v4pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0xff, 0xff };
	const uint8_t *raw = (const uint8_t *)grh;
	uint8_t sgid[16], dgid[16];
	struct ev_port *p;
	int idx;

	if (context == NULL || wc == NULL || grh == NULL || ah_attr == NULL ||
	    port_num != 1 || !(wc->wc_flags & IBV_WC_GRH)) {
		errno = EINVAL;
		return -1;
	}
	p = ev_ctx(context)->port;
	memset(ah_attr, 0, sizeof(*ah_attr));
	/*
	 * RoCEv2 (Linux convention): an IPv4 packet leaves 20 zero bytes,
	 * then its IPv4 header; an IPv6 packet its IPv6 header.
	 */
	if ((raw[20] >> 4) == 4) {
		memcpy(dgid, v4pfx, 12);
		memcpy(dgid + 12, raw + 20 + 12, 4);	/* its source */
		memcpy(sgid, v4pfx, 12);
		memcpy(sgid + 12, raw + 20 + 16, 4);	/* its destination */
		ah_attr->grh.hop_limit = raw[20 + 8];
		ah_attr->grh.traffic_class = raw[20 + 1];
	} else {
		memcpy(dgid, grh->sgid.raw, 16);
		memcpy(sgid, grh->dgid.raw, 16);
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class =
			(uint8_t)(rte_be_to_cpu_32(grh->version_tclass_flow) >>
				  20);
	}
	idx = gid_index(p, sgid);
	if (idx < 0) {
		errno = ENOENT;	/* not sent to one of our addresses */
		return -1;
	}
	ah_attr->is_global = 1;
	memcpy(ah_attr->grh.dgid.raw, dgid, 16);
	ah_attr->grh.sgid_index = (uint8_t)idx;
	ah_attr->grh.hop_limit = 0xff;	/* the reply's own, as rdma-core */
	ah_attr->sl = wc->sl;
	ah_attr->port_num = port_num;
	return 0;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
		      struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (pd == NULL ||
	    ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a) != 0)
		return NULL;
	return ibv_create_ah(pd, &a);
}

int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
			    struct ibv_ah_attr *attr, uint8_t eth_mac[6],
			    uint16_t *vid)
{
	struct roce_ah_attr r;
	struct ev_port *p;
	int ret;

	if (context == NULL || attr == NULL || eth_mac == NULL)
		return EINVAL;
	p = ev_ctx(context)->port;
	ret = ev_ah_from_ibv(p, attr, &r);
	if (ret == 0) {
		pthread_mutex_lock(&ev_env.ctl);
		ev_port_hold(p);
		ret = ev_ah_resolve(p, &r);
		ev_port_release(p);
		pthread_mutex_unlock(&ev_env.ctl);
	}
	if (ret != 0)
		return ret;
	memcpy(eth_mac, r.dmac, 6);
	if (vid != NULL)
		*vid = 0xffff;	/* untagged */
	return 0;
}
