/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service ID resolution (IBTA 12.11): how a UD client learns the QPN and
 * Q_Key of a service, rdma_cm's UDP and IB port spaces (udaddy, UCX's UD).
 *
 *   active                                 passive
 *   roce_cm_sidr_request()
 *     IDLE -> SIDR_REQ_SENT  --SIDR_REQ-->  listener? no: SIDR_REP UNSUPPORTED
 *                                           yes: IDLE -> SIDR_REQ_RCVD,
 *                                                event SIDR_REQUEST
 *                                           roce_cm_sidr_reply()
 *     SIDR_REPLY event, IDLE <--SIDR_REP--  SIDR_REQ_RCVD -> IDLE
 *   (no SIDR_REP after every retry: UNREACHABLE, IDLE)
 *
 * There is no connection: both ids end idle, the application's until it
 * destroys them. A SIDR_REQ retransmitted while its id waits for the
 * application is dropped (the reply answers both); one that comes after the
 * reply is a new request. The request ID is the active id's comm ID, so a
 * SIDR_REP is matched as every reply is, by cm_id_by_comm_id(). The
 * states change in the CM's table (roce_cm_fsm.c), which runs the steps
 * below.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "roce_cm_priv.h"
#include "roce_log.h"
#include "roce_priv.h"

/* A SIDR_REP to the sender of @p rx that has no id here. */
static void
sidr_rep_to(struct roce_cm *cm, const struct roce_mad_rx *rx,
	    const struct roce_cm_sidr_req *req, uint8_t status)
{
	struct roce_cm_sidr_rep rep;
	struct roce_mad mad;

	memset(&rep, 0, sizeof(rep));
	rep.request_id = req->request_id;
	rep.status = status;
	rep.service_id = req->service_id;
	roce_cm_sidr_rep_pack(&mad, roce_mad_tid(roce_mad_hdr_c(&rx->mad)),
			      &rep);
	cm_send(cm, &mad, &rx->addr);
}

static bool
sidr_space(uint16_t ps)
{
	return ps == ROCE_CM_PS_UDP || ps == ROCE_CM_PS_IB;
}

/* What the checks of a new SIDR_REQ found, for cm_step_sidr_req_new(). */
struct cm_sidr_new {
	struct roce_cm_listener *l;
	struct roce_cm_addr src, dst;
	int sgid;
};

void
cm_rx_sidr_req(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct cm_sidr_new nr;
	struct roce_cm_sidr_req req;
	struct roce_cm_id *id;

	roce_cm_sidr_req_unpack(&rx->mad, &req);
	c.msg = &req;
	/* a request ID is looked for among the SIDR requests only */
	id = cm_hk_find(cm, HK_RCID, req.request_id, rx->addr.remote_gid);
	if (id != NULL && id->qp_type == ROCE_QPT_UD) {
		c.id = id;
		cm_fsm_apply(&c, CM_IN_RX_SIDR_REQ);
		return;
	}
	nr.sgid = cm_sgid_index(cm, rx->addr.local_gid);
	if (nr.sgid < 0 || !roce_cm_service_is_ip(req.service_id) ||
	    !sidr_space((uint16_t)(req.service_id >> 16)) ||
	    roce_cm_ip_hdr_unpack(req.private_data, &nr.src, &nr.dst) != 0) {
		cm->cnt[CM_CNT_SIDR_INVALID]++;
		sidr_rep_to(cm, rx, &req, ROCE_CM_SIDR_UNSUPPORTED);
		return;
	}
	nr.dst.port = (uint16_t)req.service_id;
	nr.l = cm_find_listener(cm, req.service_id, &nr.dst);
	if (nr.l == NULL) {
		cm->cnt[CM_CNT_SIDR_NO_LISTENER]++;
		sidr_rep_to(cm, rx, &req, ROCE_CM_SIDR_UNSUPPORTED);
		return;
	}
	id = NULL;
	if (nr.l->pending < nr.l->backlog && cm_ev_room(cm))
		id = cm_id_alloc(cm);
	if (id == NULL) {
		cm->cnt[CM_CNT_REQ_NO_ID]++;
		sidr_rep_to(cm, rx, &req, ROCE_CM_SIDR_NO_QP);
		return;
	}
	c.id = id;
	c.arg = &nr;
	cm_fsm_apply(&c, CM_IN_RX_SIDR_REQ);
}

/* A new SIDR_REQ in a new id: SIDR_REQUEST to the listener's application. */
enum cm_out
cm_step_sidr_req_new(struct cm_ctx *c)
{
	const struct roce_cm_sidr_req *req = c->msg;
	const struct cm_sidr_new *nr = c->arg;
	struct roce_cm_listener *l = nr->l;
	struct roce_cm_id *id = c->id;
	struct roce_cm_event *ev;

	id->active = false;
	id->tid = roce_mad_tid(roce_mad_hdr_c(&c->rx->mad));
	id->service_id = req->service_id;
	id->remote_comm_id = req->request_id;
	id->qp_type = ROCE_QPT_UD;
	id->sgid_index = (uint8_t)nr->sgid;
	id->addr = c->rx->addr;
	id->addr.remote_qpn = ROCE_GSI_QPN;
	id->remote = nr->src;
	id->local = nr->dst;
	id->listener = l;
	id->pending = true;
	id->context = l->context;
	l->pending++;
	cm_hk_insert(c->cm, id, HK_RCID);
	ev = cm_ev_push(c->cm, id, ROCE_CM_EVENT_SIDR_REQUEST);
	if (ev != NULL) {
		ev->listener = l;
		cm_ev_private(ev, req->private_data + ROCE_CM_IP_HDR_LEN,
			      ROCE_CM_SIDR_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN);
	}
	return CM_OUT_NEXT;
}

void
cm_rx_sidr_rep(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_sidr_rep rep;
	struct roce_cm_id *id;

	roce_cm_sidr_rep_unpack(&rx->mad, &rep);
	c.msg = &rep;
	id = cm_id_by_comm_id(cm, rep.request_id);
	if (id == NULL) {
		cm_rx_unknown(&c, CM_IN_RX_SIDR_REP);
		return;
	}
	if (memcmp(id->addr.remote_gid, rx->addr.remote_gid, 16) != 0) {
		cm->cnt[CM_CNT_RX_BAD_SOURCE]++;
		return;
	}
	c.id = id;
	cm_fsm_apply(&c, CM_IN_RX_SIDR_REP);
}

/* The answer to our request: SIDR_REPLY with the QPN and Q_Key. */
enum cm_out
cm_step_sidr_rep(struct cm_ctx *c)
{
	const struct roce_cm_sidr_rep *rep = c->msg;
	struct roce_cm_id *id = c->id;
	struct roce_cm_event *ev;

	cm_cancel_send(c->cm, id);
	id->remote_qpn = rep->status == ROCE_CM_SIDR_SUCCESS ? rep->qpn : 0;
	ev = cm_ev_push(c->cm, id, ROCE_CM_EVENT_SIDR_REPLY);
	if (ev != NULL) {
		ev->sidr_status = rep->status;
		if (rep->status == ROCE_CM_SIDR_SUCCESS)
			ev->qkey = rep->qkey;
		else
			ev->status = -ECONNREFUSED;
		cm_ev_private(ev, rep->private_data, ROCE_CM_SIDR_REP_PRIVATE);
	}
	return CM_OUT_NEXT;
}

/* Our SIDR_REQ went unanswered after every retry. */
enum cm_out
cm_step_sidr_timeout(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_TIMEOUT_SIDR]++;
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
	return CM_OUT_NEXT;
}

/* The arguments of sidr_request for its step. */
struct cm_sidr_request_arg {
	const struct roce_cm_addr *dst;
	const void *private_data;
	uint8_t len;
};

int
roce_cm_sidr_request(struct roce_cm *cm, const struct roce_cm_addr *src,
		     const struct roce_cm_addr *dst, const uint8_t dmac[6],
		     enum roce_cm_port_space ps, const void *private_data,
		     uint8_t len, void *context, uint64_t now,
		     struct roce_cm_id **out)
{
	struct cm_sidr_request_arg arg = {
		.dst = dst, .private_data = private_data, .len = len,
	};
	struct roce_cm_id *id;
	struct cm_ctx c;
	int sgid, ret;

	if (cm == NULL || src == NULL || dst == NULL || dmac == NULL ||
	    out == NULL || dst->port == 0 || src->ip_ver != dst->ip_ver ||
	    !sidr_space(ps) || (len != 0 && private_data == NULL))
		return -EINVAL;
	if (len > ROCE_CM_SIDR_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN)
		return -EMSGSIZE;
	sgid = cm_sgid_index(cm, src->gid.raw);
	if (sgid < 0)
		return -EADDRNOTAVAIL;
	id = cm_id_alloc(cm);
	if (id == NULL)
		return -ENOSPC;
	id->active = true;
	id->context = context;
	id->qp_type = ROCE_QPT_UD;
	id->local = *src;
	if (id->local.port == 0)
		id->local.port = cm_next_port(cm);
	id->remote = *dst;
	id->service_id = roce_cm_service_id(ps, dst->port);
	id->tid = roce_mad_tid_new(cm->agent);
	id->peer_cm_timeout = cm->cfg.cm_response_timeout;
	id->max_cm_retries = cm->cfg.max_cm_retries;
	id->sgid_index = (uint8_t)sgid;
	cm_addr_init(cm, id, dmac);
	c = (struct cm_ctx){ .cm = cm, .id = id, .now = now, .arg = &arg };
	ret = cm_fsm_apply(&c, CM_IN_SIDR_REQUEST);
	if (ret != 0) {
		/* never the application's: freed */
		cm_id_free(cm, id);
		return ret;
	}
	*out = id;
	return 0;
}

/* The SIDR_REQ (IBTA 12.6.12) with the rdma_cm IP header. */
enum cm_out
cm_step_sidr_request(struct cm_ctx *c)
{
	const struct cm_sidr_request_arg *arg = c->arg;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_sidr_req req;
	struct roce_mad mad;

	memset(&req, 0, sizeof(req));
	req.request_id = id->local_comm_id;
	req.pkey = ROCE_DEFAULT_PKEY;
	req.service_id = id->service_id;
	c->ret = roce_cm_ip_hdr_pack(req.private_data, &id->local, arg->dst);
	if (c->ret != 0)
		return CM_OUT_FAIL;
	if (arg->len != 0)
		memcpy(req.private_data + ROCE_CM_IP_HDR_LEN,
		       arg->private_data, arg->len);
	roce_cm_sidr_req_pack(&mad, id->tid, &req);
	c->ret = cm_send_tracked(cm, id, &mad,
				 cm_wait_ticks(cm, cm->cfg.cm_response_timeout),
				 c->now);
	return c->ret != 0 ? CM_OUT_FAIL : CM_OUT_NEXT;
}

/* The arguments of sidr_reply for its step. */
struct cm_sidr_reply_arg {
	uint8_t status;
	uint32_t qpn, qkey;
	const void *private_data;
	uint8_t len;
};

int
roce_cm_sidr_reply(struct roce_cm_id *id, uint8_t status, uint32_t qpn,
		   uint32_t qkey, const void *private_data, uint8_t len,
		   uint64_t now)
{
	struct cm_sidr_reply_arg arg = {
		.status = status, .qpn = qpn, .qkey = qkey,
		.private_data = private_data, .len = len,
	};
	struct cm_ctx c = { .id = id, .now = now, .arg = &arg };

	if (id == NULL || !id->in_use ||
	    status > ROCE_CM_SIDR_UNSUPPORTED_VERSION ||
	    (status == ROCE_CM_SIDR_SUCCESS && (qpn == 0 || qpn > 0xffffff)) ||
	    (len != 0 && private_data == NULL))
		return -EINVAL;
	c.cm = id->cm;
	return cm_fsm_apply(&c, CM_IN_SIDR_REPLY);
}

/*
 * The SIDR_REP: the application's answer, or REJECT for a request nobody
 * will answer (a destroyed id, a listener that stops; IBTA 12.11).
 */
enum cm_out
cm_step_sidr_reply(struct cm_ctx *c)
{
	const struct cm_sidr_reply_arg *arg =
		c->in == CM_IN_SIDR_REPLY ? c->arg : NULL;
	struct roce_cm_id *id = c->id;
	struct roce_cm_sidr_rep rep;
	struct roce_mad mad;

	if (arg != NULL && arg->len > ROCE_CM_SIDR_REP_PRIVATE) {
		c->ret = -EMSGSIZE;
		return CM_OUT_FAIL;
	}
	memset(&rep, 0, sizeof(rep));
	rep.request_id = id->remote_comm_id;
	rep.status = arg != NULL ? arg->status : ROCE_CM_SIDR_REJECT;
	rep.service_id = id->service_id;
	if (rep.status == ROCE_CM_SIDR_SUCCESS) {
		rep.qpn = arg->qpn;
		rep.qkey = arg->qkey;
		id->local_qpn = arg->qpn;
	}
	if (arg != NULL && arg->len != 0)
		memcpy(rep.private_data, arg->private_data, arg->len);
	roce_cm_sidr_rep_pack(&mad, id->tid, &rep);
	cm_send(c->cm, &mad, &id->addr);
	return CM_OUT_NEXT;
}
