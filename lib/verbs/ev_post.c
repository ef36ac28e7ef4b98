/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posting: ibv_post_send(), ibv_post_recv(), ibv_post_srq_recv() and the
 * extended QP's builders (ibv_wr_start() ... ibv_wr_complete()).
 *
 * A list of ibverbs WRs is translated a burst at a time into lib/roce WRs
 * on the stack (SGE lists pass as they are: the structs are the same) and
 * posted under the queue's lock: libibverbs lets any thread post, lib/roce
 * takes one producer at a time. The extended QP collects its WRs in a
 * batch sized for the whole send queue at creation, so that
 * ibv_wr_complete() posts them all or none, as a doorbell would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "ev_priv.h"

/* WRs translated a call of roce_post_send()/roce_post_recv(). */
#define EV_POST_BURST 32

static inline struct roce_mw *
mw_of(struct ibv_mw *mw)
{
	return mw != NULL ? container_of(mw, struct ev_mw, ibmw)->mw : NULL;
}

static inline struct roce_mr *
mr_of(struct ibv_mr *mr)
{
	return mr != NULL ? container_of(mr, struct ev_mr, ibmr)->mr : NULL;
}

/*
 * The rights of a window: its remote ones (and zero based). A local write
 * bit, which programs pass with the region's flags, means nothing for a
 * window and is dropped, as rxe and mlx5 do; lib/roce refuses it.
 */
static inline int
bind_access(unsigned int access)
{
	return (int)(access & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_MW_BIND));
}

/* One ibverbs send WR as a lib/roce one: 0, or EINVAL. */
static int
send_wr(const struct ibv_send_wr *s, struct roce_send_wr *d)
{
	if ((unsigned int)s->opcode >= ROCE_WR_OPCODE_MAX ||
	    (s->send_flags & ~(unsigned int)(IBV_SEND_FENCE |
		IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)))
		return EINVAL;	/* TSO, IP checksum, atomic write... */
	d->wr_id = s->wr_id;
	d->opcode = (enum roce_wr_opcode)s->opcode;
	d->send_flags = s->send_flags;
	d->sg_list = (const struct roce_sge *)(const void *)s->sg_list;
	d->num_sge = s->num_sge < 0 ? UINT32_MAX : (uint32_t)s->num_sge;
	d->imm_data = s->imm_data;	/* or invalidate_rkey */
	switch (s->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		d->atomic.remote_addr = s->wr.atomic.remote_addr;
		d->atomic.compare_add = s->wr.atomic.compare_add;
		d->atomic.swap = s->wr.atomic.swap;
		d->atomic.rkey = s->wr.atomic.rkey;
		break;
	case IBV_WR_BIND_MW:
		d->bind_mw.mw = mw_of(s->bind_mw.mw);
		d->bind_mw.rkey = s->bind_mw.rkey;
		d->bind_mw.mr = mr_of(s->bind_mw.bind_info.mr);
		d->bind_mw.addr = s->bind_mw.bind_info.addr;
		d->bind_mw.length = s->bind_mw.bind_info.length;
		d->bind_mw.access = bind_access(
			s->bind_mw.bind_info.mw_access_flags);
		break;
	default:
		d->rdma.remote_addr = s->wr.rdma.remote_addr;
		d->rdma.rkey = s->wr.rdma.rkey;
		break;
	}
	return 0;
}

/* One WR on an RC or UC QP, the common case (perftest's bw loop). */
static inline int
post_send_one(struct ev_qp *q, struct ibv_send_wr *wr,
	      struct ibv_send_wr **bad)
{
	struct roce_send_wr rw;
	int ret;

	if (unlikely(send_wr(wr, &rw) != 0)) {
		ret = EINVAL;
	} else {
		ev_lock(&q->sq_lock);
		ret = roce_post_send(q->qp, &rw, 1, NULL);
		ev_unlock(&q->sq_lock);
		if (likely(ret == 0))
			return 0;
		ret = ev_errno(EV_V_POST, ret);
	}
	if (bad != NULL)
		*bad = wr;
	return ret;
}

int
ev_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
	     struct ibv_send_wr **bad)
{
	struct ev_qp *q = ev_qp(ibqp);
	struct roce_send_wr rw[EV_POST_BURST];
	struct ibv_send_wr *src[EV_POST_BURST], *s = wr;
	unsigned int n, posted;
	int ret = 0;

	if (likely(wr != NULL && wr->next == NULL && q->type != IBV_QPT_UD))
		return post_send_one(q, wr, bad);
	ev_lock(&q->sq_lock);
	while (s != NULL && ret == 0) {
		for (n = 0; s != NULL && n < EV_POST_BURST; s = s->next, n++) {
			src[n] = s;
			if (q->type == IBV_QPT_UD) {
				if (s->wr.ud.ah == NULL) {
					ret = EINVAL;
					break;
				}
				/* UD: the AH instead of a remote address */
				if (send_wr(s, &rw[n]) != 0) {
					ret = EINVAL;
					break;
				}
				rw[n].ud.ah = &container_of(s->wr.ud.ah,
					struct ev_ah, ibah)->attr;
				rw[n].ud.remote_qpn = s->wr.ud.remote_qpn;
				rw[n].ud.remote_qkey = s->wr.ud.remote_qkey;
			} else if (send_wr(s, &rw[n]) != 0) {
				ret = EINVAL;
				break;
			}
		}
		posted = 0;
		if (n > 0) {
			int r = roce_post_send(q->qp, rw, n, &posted);

			if (r != 0) {
				ret = ev_errno(EV_V_POST, r);
				s = src[posted];
				break;
			}
		}
		if (ret != 0)	/* the WR that could not be translated */
			s = src[n];
	}
	ev_unlock(&q->sq_lock);
	if (ret != 0 && bad != NULL)
		*bad = s;
	return ret;
}

/* A receive list a burst at a time through @p post. */
static int
post_recv_list(struct ibv_recv_wr *wr, struct ibv_recv_wr **bad,
	       int (*post)(void *, const struct roce_recv_wr *, unsigned int,
			   unsigned int *), void *obj)
{
	struct roce_recv_wr rw[EV_POST_BURST];
	struct ibv_recv_wr *src[EV_POST_BURST], *s = wr;
	unsigned int n, posted;
	int r;

	while (s != NULL) {
		for (n = 0; s != NULL && n < EV_POST_BURST; s = s->next, n++) {
			src[n] = s;
			rw[n].wr_id = s->wr_id;
			rw[n].sg_list = (const struct roce_sge *)(const void *)
				s->sg_list;
			rw[n].num_sge = s->num_sge < 0 ? UINT32_MAX :
				(uint32_t)s->num_sge;
		}
		posted = 0;
		r = post(obj, rw, n, &posted);
		if (r != 0) {
			if (bad != NULL)
				*bad = src[posted];
			return ev_errno(EV_V_POST, r);
		}
	}
	return 0;
}

static int
qp_recv(void *qp, const struct roce_recv_wr *wr, unsigned int n,
	unsigned int *posted)
{
	return roce_post_recv(qp, wr, n, posted);
}

static int
srq_recv(void *srq, const struct roce_recv_wr *wr, unsigned int n,
	 unsigned int *posted)
{
	return roce_post_srq_recv(srq, wr, n, posted);
}

int
ev_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
	     struct ibv_recv_wr **bad)
{
	struct ev_qp *q = ev_qp(ibqp);
	int ret;

	ev_lock(&q->rq_lock);
	ret = post_recv_list(wr, bad, qp_recv, q->qp);
	ev_unlock(&q->rq_lock);
	return ret;
}

int
ev_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad)
{
	struct ev_srq *s = container_of(ibsrq, struct ev_srq, ibsrq);
	int ret;

	ev_lock(&s->lock);
	ret = post_recv_list(wr, bad, srq_recv, s->srq);
	ev_unlock(&s->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Extended QP: ibv_wr_*()                                            */
/* ------------------------------------------------------------------ */

static inline struct ev_qp *
qpx(struct ibv_qp_ex *x)
{
	return container_of(x, struct ev_qp, ibqp);
}

/* The next WR of the batch, its id and flags taken from the QP. */
static struct roce_send_wr *
wr_next(struct ibv_qp_ex *x, enum roce_wr_opcode op)
{
	struct ev_wr_batch *b = &qpx(x)->batch;
	struct roce_send_wr *w;

	if (unlikely(!b->open)) {
		b->err = EINVAL;
		return NULL;
	}
	if (unlikely(b->n == b->cap)) {
		b->err = ENOMEM;	/* more WRs than the send queue holds */
		return NULL;
	}
	w = &b->wr[b->n++];
	memset(w, 0, sizeof(*w));
	w->wr_id = x->wr_id;
	w->opcode = op;
	w->send_flags = x->wr_flags;
	return w;
}

/* The WR the ibv_wr_set_*() calls complete: the last one built. */
static struct roce_send_wr *
wr_cur(struct ibv_qp_ex *x, uint32_t *idx)
{
	struct ev_wr_batch *b = &qpx(x)->batch;

	if (unlikely(!b->open || b->n == 0)) {
		b->err = EINVAL;
		return NULL;
	}
	*idx = b->n - 1;
	return &b->wr[b->n - 1];
}

static void
wr_rdma(struct ibv_qp_ex *x, enum roce_wr_opcode op, uint32_t rkey,
	uint64_t addr, __be32 imm)
{
	struct roce_send_wr *w = wr_next(x, op);

	if (w == NULL)
		return;
	w->rdma.rkey = rkey;
	w->rdma.remote_addr = addr;
	w->imm_data = imm;
}

static void
qx_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	wr_rdma(x, ROCE_WR_RDMA_WRITE, rkey, addr, 0);
}

static void
qx_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		  __be32 imm)
{
	wr_rdma(x, ROCE_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void
qx_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	wr_rdma(x, ROCE_WR_RDMA_READ, rkey, addr, 0);
}

static void
qx_send(struct ibv_qp_ex *x)
{
	wr_next(x, ROCE_WR_SEND);
}

static void
qx_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct roce_send_wr *w = wr_next(x, ROCE_WR_SEND_WITH_IMM);

	if (w != NULL)
		w->imm_data = imm;
}

static void
qx_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct roce_send_wr *w = wr_next(x, ROCE_WR_SEND_WITH_INV);

	if (w != NULL)
		w->invalidate_rkey = rkey;
}

static void
qx_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct roce_send_wr *w = wr_next(x, ROCE_WR_LOCAL_INV);

	if (w != NULL)
		w->invalidate_rkey = rkey;
}

static void
qx_atomic(struct ibv_qp_ex *x, enum roce_wr_opcode op, uint32_t rkey,
	  uint64_t addr, uint64_t compare_add, uint64_t swap)
{
	struct roce_send_wr *w = wr_next(x, op);

	if (w == NULL)
		return;
	w->atomic.rkey = rkey;
	w->atomic.remote_addr = addr;
	w->atomic.compare_add = compare_add;
	w->atomic.swap = swap;
}

static void
qx_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
	   uint64_t compare, uint64_t swap)
{
	qx_atomic(x, ROCE_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void
qx_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
	qx_atomic(x, ROCE_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void
qx_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *bi)
{
	struct roce_send_wr *w = wr_next(x, ROCE_WR_BIND_MW);

	if (w == NULL)
		return;
	w->bind_mw.mw = mw_of(mw);
	w->bind_mw.rkey = rkey;
	w->bind_mw.mr = mr_of(bi->mr);
	w->bind_mw.addr = bi->addr;
	w->bind_mw.length = bi->length;
	w->bind_mw.access = bind_access(bi->mw_access_flags);
}

static void
qx_unsupported(struct ibv_qp_ex *x)
{
	qpx(x)->batch.err = EOPNOTSUPP;
}

static void
qx_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	qx_unsupported(x);
}

static void
qx_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		const void *data)
{
	(void)rkey;
	(void)addr;
	(void)data;
	qx_unsupported(x);
}

static void
qx_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
	(void)srqn;
	qx_unsupported(x);
}

static void
qx_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn,
	       uint32_t qkey)
{
	uint32_t i;
	struct roce_send_wr *w = wr_cur(x, &i);

	if (w == NULL)
		return;
	if (ah == NULL) {
		qpx(x)->batch.err = EINVAL;
		return;
	}
	w->ud.ah = &container_of(ah, struct ev_ah, ibah)->attr;
	w->ud.remote_qpn = qpn;
	w->ud.remote_qkey = qkey;
}

static void
qx_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sg)
{
	struct ev_qp *q = qpx(x);
	struct roce_send_wr *w;
	struct roce_sge *d;
	uint32_t i;

	w = wr_cur(x, &i);
	if (w == NULL)
		return;
	if (n > q->max_send_sge) {
		q->batch.err = EINVAL;
		return;
	}
	d = &q->batch.sge[(size_t)i * q->max_send_sge];
	memcpy(d, sg, n * sizeof(*d));
	w->sg_list = d;
	w->num_sge = (uint32_t)n;
}

static void
qx_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge sg = { .addr = addr, .length = len, .lkey = lkey };

	qx_set_sge_list(x, 1, &sg);
}

static void
qx_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
			const struct ibv_data_buf *buf)
{
	struct ev_qp *q = qpx(x);
	struct roce_send_wr *w;
	struct roce_sge *sge;
	size_t k, len = 0;
	uint8_t *d;
	uint32_t i;

	w = wr_cur(x, &i);
	if (w == NULL)
		return;
	for (k = 0; k < n; k++)
		len += buf[k].length;
	if (len > q->max_inline || q->max_send_sge == 0) {
		q->batch.err = EINVAL;
		return;
	}
	/* copied now: the program may reuse its buffers at once */
	d = &q->batch.inl[(size_t)i * q->max_inline];
	for (k = 0, len = 0; k < n; k++) {
		memcpy(d + len, buf[k].addr, buf[k].length);
		len += buf[k].length;
	}
	sge = &q->batch.sge[(size_t)i * q->max_send_sge];
	sge->addr = (uint64_t)(uintptr_t)d;
	sge->length = (uint32_t)len;
	sge->lkey = 0;
	w->sg_list = sge;
	w->num_sge = 1;
	w->send_flags |= ROCE_SEND_INLINE;
}

static void
qx_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t len)
{
	struct ibv_data_buf b = { .addr = addr, .length = len };

	qx_set_inline_data_list(x, 1, &b);
}

static void
qx_start(struct ibv_qp_ex *x)
{
	struct ev_qp *q = qpx(x);

	/* the send queue is the batch's until complete or abort */
	ev_lock(&q->sq_lock);
	q->batch.open = true;
	q->batch.n = 0;
	q->batch.err = 0;
}

static int
qx_complete(struct ibv_qp_ex *x)
{
	struct ev_qp *q = qpx(x);
	struct ev_wr_batch *b = &q->batch;
	unsigned int posted = 0;
	int ret = b->err;

	if (ret == 0 && b->n > 0) {
		ret = roce_post_send(q->qp, b->wr, b->n, &posted);
		/*
		 * lib/roce checks each WR before it takes it: a batch that
		 * fails after its first WRs posted those (no doorbell can be
		 * taken back here), which the return value tells.
		 */
		ret = ret != 0 ? ev_errno(EV_V_POST, ret) : 0;
	}
	b->open = false;
	b->n = 0;
	ev_unlock(&q->sq_lock);
	return ret;
}

static void
qx_abort(struct ibv_qp_ex *x)
{
	struct ev_qp *q = qpx(x);

	q->batch.open = false;
	q->batch.n = 0;
	ev_unlock(&q->sq_lock);
}

int
ev_qp_ex_init(struct ev_qp *q, uint64_t ops)
{
	struct ibv_qp_ex *x = &q->ibqp;
	struct ev_wr_batch *b = &q->batch;
	struct roce_qp_init_attr ri;
	struct roce_qp_attr qa;

	roce_query_qp(q->qp, &qa, &ri);
	b->cap = RTE_MAX(ri.cap.max_send_wr, 1u);
	b->wr = calloc(b->cap, sizeof(*b->wr));
	b->sge = calloc((size_t)b->cap * RTE_MAX(q->max_send_sge, 1u),
			sizeof(*b->sge));
	b->inl = q->max_inline > 0 ?
		calloc((size_t)b->cap, q->max_inline) : NULL;
	if (b->wr == NULL || b->sge == NULL ||
	    (q->max_inline > 0 && b->inl == NULL)) {
		ev_qp_ex_fini(q);
		return ENOMEM;
	}
	x->comp_mask = 0;
	x->wr_rdma_write = qx_rdma_write;
	x->wr_rdma_write_imm = qx_rdma_write_imm;
	x->wr_rdma_read = qx_rdma_read;
	x->wr_send = qx_send;
	x->wr_send_imm = qx_send_imm;
	x->wr_send_inv = qx_send_inv;
	x->wr_local_inv = qx_local_inv;
	x->wr_atomic_cmp_swp = qx_cmp_swp;
	x->wr_atomic_fetch_add = qx_fetch_add;
	x->wr_bind_mw = qx_bind_mw;
	x->wr_send_tso = qx_send_tso;
	x->wr_atomic_write = qx_atomic_write;
	x->wr_set_ud_addr = qx_set_ud_addr;
	x->wr_set_xrc_srqn = qx_set_xrc_srqn;
	x->wr_set_inline_data = qx_set_inline_data;
	x->wr_set_inline_data_list = qx_set_inline_data_list;
	x->wr_set_sge = qx_set_sge;
	x->wr_set_sge_list = qx_set_sge_list;
	x->wr_start = qx_start;
	x->wr_complete = qx_complete;
	x->wr_abort = qx_abort;
	(void)ops;	/* every builder is set; the checks are per WR */
	q->is_ex = true;
	return 0;
}

void
ev_qp_ex_fini(struct ev_qp *q)
{
	free(q->batch.wr);
	free(q->batch.sge);
	free(q->batch.inl);
	memset(&q->batch, 0, sizeof(q->batch));
}
