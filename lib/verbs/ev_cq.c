/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues and completion channels.
 *
 * A lib/roce CQ belongs to one worker. An ibv_cq is a set of them, a part
 * on each worker one of its QPs runs on (ev_cq_bind()), so that the QPs
 * of a program that share one CQ pair, as perftest's do, still spread
 * over the port's workers. A poll takes from the parts in turn, starting
 * one further each call; entries of one QP stay in order (they are all
 * in its worker's part), and IBTA orders a CQ's completions by work
 * queue only. On a port with one worker the CQ's one part is made at
 * once; with several, parts come with the QPs, and until the first one
 * the CQ polls empty and remembers an arm. An arm arms every part and is
 * remembered for the parts made later: a program may see one more event
 * than it armed for, never one less.
 *
 * Polling runs the port once first (ev_port_drive()): a program that
 * polls its CQ moves its own traffic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ev_priv.h"
#include "rte_pmd_ernic.h"

/* Completions converted a call (a larger ibv_poll_cq() loops). */
#define EV_POLL_BURST 32

/* ------------------------------------------------------------------ */
/* Channels                                                           */
/* ------------------------------------------------------------------ */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct ev_channel *ch;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->port = ev_ctx(context)->port;
	ch->ch = roce_create_comp_channel(ch->port->rdev);
	if (ch->ch == NULL) {
		errno = rte_errno;
		free(ch);
		return NULL;
	}
	ch->ibch.context = context;
	ch->ibch.fd = roce_comp_channel_fd(ch->ch);
	ch->ibch.refcnt = 0;
	return &ch->ibch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ev_channel *ch;
	int ret;

	if (channel == NULL)
		return EINVAL;
	ch = container_of(channel, struct ev_channel, ibch);
	if (channel->refcnt != 0)
		return EBUSY;
	ret = roce_destroy_comp_channel(ch->ch);
	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	free(ch);
	return 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	struct ev_cq_part *part;
	struct ev_channel *ch;
	struct roce_cq *rcq;
	void *tag = NULL;
	struct ev_cq *c;
	int ret;

	if (channel == NULL || cq == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = container_of(channel, struct ev_channel, ibch);
	/* about to sleep: the progress thread runs the port meanwhile */
	ev_env_kick(ch->port);
	ret = roce_get_cq_event(ch->ch, &rcq, &tag);
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	c = tag;
	part = ev_cq_part_of(c, rcq);
	/* counted before the caller can acknowledge it (ibv_destroy_cq()) */
	pthread_mutex_lock(&c->ibcq.mutex);
	c->events_got++;
	if (part != NULL)
		part->events_got++;
	pthread_mutex_unlock(&c->ibcq.mutex);
	*cq = ibv_cq_ex_to_cq(&c->ibcq);
	if (cq_context != NULL)
		*cq_context = c->ibcq.cq_context;
	return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	struct ev_cq_part *part;
	unsigned int left = nevents, k;
	struct ev_cq *c;
	uint32_t i, np;

	if (cq == NULL || nevents == 0)
		return;
	c = ev_cq(cq);
	np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&cq->mutex);
	/* to the parts the events came from, which count them for destroy */
	for (i = 0; i < np && left > 0; i++) {
		part = &c->part[i];
		k = RTE_MIN(left, part->events_got - part->events_acked);
		if (k == 0)
			continue;
		part->events_acked += k;
		roce_ack_cq_events(part->cq, k);
		left -= k;
	}
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ------------------------------------------------------------------ */
/* Polling                                                            */
/* ------------------------------------------------------------------ */

/* Up to @p n completions of one part; < 0: the part is in error and empty. */
static int
cq_part_poll(struct roce_cq *rcq, int n, struct ibv_wc *wc)
{
	struct roce_wc rwc[EV_POLL_BURST];
	int got = 0, k, i;

	while (got < n) {
		k = roce_poll_cq(rcq, rwc, RTE_MIN(n - got, EV_POLL_BURST));
		if (k <= 0) {
			/* overrun, drained: the CQ is in error (IBTA 11.4.2.1) */
			if (k < 0 && got == 0)
				got = k;
			break;
		}
		for (i = 0; i < k; i++)
			ev_wc_from_roce(&wc[got + i], &rwc[i]);
		got += k;
		if (k < EV_POLL_BURST)
			break;
	}
	return got;
}

/* The index after part @p s of @p np. */
static inline uint32_t
cq_part_next(uint32_t s, uint32_t np)
{
	return s + 1 < np ? s + 1 : 0;
}

int
ev_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct ev_cq *c = ev_cq(ibcq);
	int got = 0, err = 0, k;
	uint32_t np, s, i;

	if (unlikely(n < 0 || (wc == NULL && n > 0)))
		return -EINVAL;
	ev_port_drive(c->port);
	np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE);
	if (unlikely(np == 0))
		return 0;	/* no QP uses it yet */
	ev_lock(&c->lock);
	s = c->next < np ? c->next : 0;
	/* the next poll starts one part further: none waits behind a busy one */
	c->next = cq_part_next(s, np);
	for (i = 0; i < np && got < n; i++, s = cq_part_next(s, np)) {
		k = cq_part_poll(c->part[s].cq, n - got, &wc[got]);
		if (k < 0)
			err = k;
		else
			got += k;
	}
	ev_unlock(&c->lock);
	return got == 0 && err < 0 ? err : got;
}

int
ev_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct ev_cq *c = ev_cq(ibcq);
	uint32_t np, i;
	int ret = 0;

	if (ibcq->channel == NULL)
		return EINVAL;
	ev_lock(&c->lock);
	/* kept for the parts made later (ev_cq_bind()) */
	c->armed = true;
	c->arm_solicited = solicited_only != 0;
	np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE);
	for (i = 0; i < np && ret == 0; i++)
		ret = roce_req_notify_cq(c->part[i].cq, solicited_only != 0);
	ev_unlock(&c->lock);
	/* the program will sleep on the channel: keep the port moving */
	ev_env_kick(c->port);
	return ret < 0 ? -ret : 0;
}

/* ------------------------------------------------------------------ */
/* ibv_cq_ex                                                          */
/* ------------------------------------------------------------------ */

static inline struct ev_cq *
cqx(struct ibv_cq_ex *cq)
{
	return container_of(cq, struct ev_cq, ibcq);
}

static int
cqx_next(struct ibv_cq_ex *ibcq)
{
	struct ev_cq *c = cqx(ibcq);
	uint32_t np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE);
	uint32_t s = c->next < np ? c->next : 0, i;
	int k, err = ENOENT;

	/* from the part of the last entry, then the others in turn */
	for (i = 0; i < np; i++, s = cq_part_next(s, np)) {
		k = roce_poll_cq(c->part[s].cq, &c->cur, 1);
		if (k > 0) {
			c->next = s;
			ibcq->wr_id = c->cur.wr_id;
			ibcq->status = (enum ibv_wc_status)c->cur.status;
			return 0;
		}
		if (k < 0)
			err = EIO;
	}
	return err;
}

static int
cqx_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct ev_cq *c = cqx(ibcq);
	uint32_t np;
	int ret;

	if (attr != NULL && attr->comp_mask != 0)
		return EINVAL;
	ev_port_drive(c->port);
	np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE);
	if (np == 0)
		return ENOENT;
	/* held until ibv_end_poll(), unless there is nothing to read */
	ev_lock(&c->lock);
	c->next = cq_part_next(c->next < np ? c->next : 0, np);
	ret = cqx_next(ibcq);
	if (ret != 0)
		ev_unlock(&c->lock);
	return ret;
}

static void
cqx_end_poll(struct ibv_cq_ex *ibcq)
{
	ev_unlock(&cqx(ibcq)->lock);
}

static enum ibv_wc_opcode
cqx_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)cqx(ibcq)->cur.opcode;
}

static uint32_t
cqx_vendor_err(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.vendor_err;
}

static uint32_t
cqx_byte_len(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.byte_len;
}

static __be32
cqx_imm_data(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.imm_data;
}

static uint32_t
cqx_qp_num(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.qp_num;
}

static uint32_t
cqx_src_qp(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.src_qp;
}

static unsigned int
cqx_wc_flags(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.wc_flags;
}

static uint32_t
cqx_slid(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;	/* no LIDs on RoCE */
}

static uint8_t
cqx_sl(struct ibv_cq_ex *ibcq)
{
	return cqx(ibcq)->cur.sl;
}

static uint8_t
cqx_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	(void)ibcq;
	return 0;
}

/* The wc_flags of ibv_create_cq_ex() this device can fill. */
#define CQX_WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
		      IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
		      IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
		      IBV_WC_EX_WITH_DLID_PATH_BITS)

static void
cqx_init(struct ev_cq *c)
{
	struct ibv_cq_ex *x = &c->ibcq;

	x->start_poll = cqx_start_poll;
	x->next_poll = cqx_next;
	x->end_poll = cqx_end_poll;
	x->read_opcode = cqx_opcode;
	x->read_vendor_err = cqx_vendor_err;
	x->read_byte_len = cqx_byte_len;
	x->read_imm_data = cqx_imm_data;
	x->read_qp_num = cqx_qp_num;
	x->read_src_qp = cqx_src_qp;
	x->read_wc_flags = cqx_wc_flags;
	x->read_slid = cqx_slid;
	x->read_sl = cqx_sl;
	x->read_dlid_path_bits = cqx_dlid_path_bits;
}

/* ------------------------------------------------------------------ */
/* Create, bind, resize, destroy                                      */
/* ------------------------------------------------------------------ */

struct ev_cq_part *
ev_cq_part_of(struct ev_cq *c, const struct roce_cq *rcq)
{
	uint32_t np = __atomic_load_n(&c->nparts, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < np; i++)
		if (c->part[i].cq == rcq)
			return &c->part[i];
	return NULL;
}

struct roce_cq *
ev_cq_bind(struct ev_cq *c, struct roce_worker *w)
{
	uint32_t np = c->nparts, i;	/* ctl held: no other writer */
	struct ev_channel *ch;
	struct roce_cq *rcq;
	int ret = 0;

	for (i = 0; i < np; i++)
		if (c->part[i].w == w)
			return c->part[i].cq;
	if (np == c->max_parts) {
		errno = EINVAL;	/* a worker the port did not have at create */
		return NULL;
	}
	rcq = roce_create_cq(w, c->depth);
	if (rcq == NULL) {
		errno = ev_errno(EV_V_CREATE_CQ, rte_errno);
		return NULL;
	}
	if (c->ibcq.channel != NULL) {
		ch = container_of(c->ibcq.channel, struct ev_channel, ibch);
		ret = roce_cq_set_channel(rcq, ch->ch, c);
	}
	/* an arm of the program's holds for this part too */
	ev_lock(&c->lock);
	if (ret == 0 && c->ibcq.channel != NULL && c->armed)
		ret = roce_req_notify_cq(rcq, c->arm_solicited);
	if (ret == 0) {
		c->part[np].cq = rcq;
		c->part[np].w = w;
		c->part[np].events_got = 0;
		c->part[np].events_acked = 0;
		__atomic_store_n(&c->nparts, np + 1, __ATOMIC_RELEASE);
	}
	ev_unlock(&c->lock);
	if (ret != 0) {
		roce_destroy_cq(rcq);
		errno = ev_errno(EV_V_CREATE_CQ, ret);
		return NULL;
	}
	return rcq;
}

static struct ev_cq *
cq_create(struct ibv_context *context, struct ibv_cq_init_attr_ex *a)
{
	struct ev_context *ctx = ev_ctx(context);
	struct ev_port *p = ctx->port;
	struct roce_device_attr da;
	struct ev_cq *c;
	int nw;

	roce_query_device(p->rdev, &da);
	if (a->cqe == 0 || a->cqe > da.max_cqe || a->comp_vector != 0 ||
	    (a->channel != NULL && a->channel->context->device !=
	     context->device)) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->wc_flags & ~(uint64_t)CQX_WC_FLAGS) != 0 ||
	    (a->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) != 0 ||
	    ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (a->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				     IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)) != 0)) {
		/* timestamps, flow tags, parent domains... */
		errno = EOPNOTSUPP;
		return NULL;
	}
	nw = rte_pmd_ernic_nb_workers(p->port_id);
	if (nw <= 0) {
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c) + (size_t)nw * sizeof(c->part[0]));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->max_parts = (uint32_t)nw;
	c->ctx = ctx;
	c->port = p;
	c->depth = a->cqe;
	c->wc_flags = a->wc_flags;
	ev_lock_init(&c->lock);
	c->ibcq.context = context;
	c->ibcq.channel = a->channel;
	c->ibcq.cq_context = a->cq_context;
	c->ibcq.cqe = (int)a->cqe;
	pthread_mutex_init(&c->ibcq.mutex, NULL);
	pthread_cond_init(&c->ibcq.cond, NULL);
	cqx_init(c);
	/* one worker: made now; several: a part with each QP's worker */
	if (nw == 1) {
		struct roce_cq *rcq;

		pthread_mutex_lock(&ev_env.ctl);
		ev_port_hold(p);
		rcq = ev_cq_bind(c, rte_pmd_ernic_get_worker(p->port_id, 0));
		ev_port_release(p);
		pthread_mutex_unlock(&ev_env.ctl);
		if (rcq == NULL) {
			int err = errno;

			free(c);
			errno = err;
			return NULL;
		}
	}
	if (a->channel != NULL)
		__atomic_fetch_add(&a->channel->refcnt, 1, __ATOMIC_RELAXED);
	ev_obj_add(ctx, EV_K_CQ, &c->link);
	return c;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq_init_attr_ex a;
	struct ev_cq *c;

	if (context == NULL || cqe <= 0 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.cqe = (uint32_t)cqe;
	a.cq_context = cq_context;
	a.channel = channel;
	a.comp_vector = (uint32_t)comp_vector;
	c = cq_create(context, &a);
	return c != NULL ? ibv_cq_ex_to_cq(&c->ibcq) : NULL;
}

struct ibv_cq_ex *
ev_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct ev_cq *c;

	if (attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	c = cq_create(context, attr);
	return c != NULL ? &c->ibcq : NULL;
}

int
ev_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	(void)cq;
	(void)attr;
	return EOPNOTSUPP;	/* no interrupt moderation to change */
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct roce_device_attr da;
	struct ev_cq *c;
	uint32_t i;
	int ret = 0;

	if (cq == NULL || cqe <= 0)
		return EINVAL;
	c = ev_cq(cq);
	roce_query_device(c->port->rdev, &da);
	if ((uint32_t)cqe > da.max_cqe)
		return EINVAL;
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(c->port);
	ev_lock(&c->lock);
	/* parts made later take the new depth */
	for (i = 0; i < c->nparts && ret == 0; i++)
		ret = roce_resize_cq(c->part[i].cq, (uint32_t)cqe);
	if (ret == 0) {
		c->depth = (uint32_t)cqe;
		cq->cqe = cqe;
	}
	ev_unlock(&c->lock);
	ev_port_release(c->port);
	pthread_mutex_unlock(&ev_env.ctl);
	return ret < 0 ? ev_errno(EV_V_CREATE_CQ, ret) : 0;
}

int
ev_cq_destroy(struct ev_cq *c)
{
	int ret = 0;

	if (__atomic_load_n(&c->qps, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	pthread_mutex_lock(&ev_env.ctl);
	if (c->nparts > 0) {
		/* from the last: a part that fails stays, with those before */
		ev_port_hold(c->port);
		while (c->nparts > 0 && ret == 0) {
			ret = roce_destroy_cq(c->part[c->nparts - 1].cq);
			if (ret == 0)
				__atomic_store_n(&c->nparts, c->nparts - 1,
						 __ATOMIC_RELEASE);
		}
		ev_port_release(c->port);
	}
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	if (c->ibcq.channel != NULL)
		__atomic_fetch_sub(&c->ibcq.channel->refcnt, 1,
				   __ATOMIC_RELAXED);
	ev_obj_del(c->ctx, &c->link);
	free(c);
	return 0;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ev_cq *c;

	if (cq == NULL)
		return EINVAL;
	c = ev_cq(cq);
	if (__atomic_load_n(&c->qps, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	/*
	 * ibv_get_cq_event(3): destroying a CQ waits until every event taken
	 * was acknowledged (another thread may still hold one), as
	 * libibverbs does; ibv_close_device()'s teardown does not wait.
	 */
	pthread_mutex_lock(&cq->mutex);
	while (cq->comp_events_completed != c->events_got)
		pthread_cond_wait(&cq->cond, &cq->mutex);
	pthread_mutex_unlock(&cq->mutex);
	return ev_cq_destroy(c);
}
