/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD over rdma_cm: the port CM's service ID resolution (roce_cm_sidr.c)
 * as librdmacm presents it.
 *
 *   active (RDMA_PS_UDP, or RDMA_PS_IB with a UD QP)
 *     rdma_connect()     SIDR_REQ with the program's private data
 *     ESTABLISHED        param.ud: the service's QPN and Q_Key, an AH
 *                        attribute toward it, the reply's private data
 *     UNREACHABLE        no reply (-ETIMEDOUT), or a reply that refuses
 *                        (status: the SIDR status, as Linux gives it)
 *   passive
 *     CONNECT_REQUEST    param.ud: the request's private data and an AH
 *                        attribute toward the requester
 *     rdma_accept()      SIDR_REP: the QP (or param->qp_num) and Q_Key
 *     rdma_reject()      SIDR_REP with status REJECT
 *
 * There is no connection: rdma_disconnect() has nothing to end, and the
 * ids are done once the reply is out or in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "ev_cm.h"
#include "rte_pmd_ernic_cm.h"

/* What a SIDR_REQ carries after the rdma_cm header. */
#define SIDR_REQ_PD (ROCE_CM_SIDR_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN)

enum roce_cm_port_space
ev_cm_port_space(const struct ev_cm_id *id)
{
	switch (id->id.ps) {
	case RDMA_PS_UDP:
		return ROCE_CM_PS_UDP;
	case RDMA_PS_IB:
		return ROCE_CM_PS_IB;
	default:
		return ROCE_CM_PS_TCP;
	}
}

/* The AH attribute from @p id's source toward its destination. */
static void
ud_ah_attr(const struct ev_cm_id *id, struct ibv_ah_attr *ah)
{
	const struct ev_port *p = id->port;
	unsigned int i;

	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	memcpy(ah->grh.dgid.raw, id->dst.gid.raw, 16);
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = id->tos;
	for (i = 0; i < p->nb_gid; i++)
		if (memcmp(p->gid[i].raw, id->src.gid.raw, 16) == 0) {
			ah->grh.sgid_index = (uint8_t)i;
			break;
		}
}

static void
ud_fields(struct ev_cm_event *e, const struct roce_cm_event *ev,
	  unsigned int pd_len)
{
	struct rdma_ud_param *u = &e->ev.param.ud;

	pd_len = RTE_MIN(pd_len, (unsigned int)ev->private_data_len);
	memcpy(e->private_data, ev->private_data, pd_len);
	u->private_data = e->private_data;
	u->private_data_len = (uint8_t)pd_len;
}

int
ev_cm_sidr_connect(struct ev_cm_id *id, struct rdma_conn_param *param)
{
	struct roce_cm_id *rid = NULL;
	const void *pd = NULL;
	uint8_t len = 0;
	uint64_t end;
	int ret;

	if (param != NULL) {
		if (param->private_data_len > SIDR_REQ_PD ||
		    (param->private_data_len != 0 &&
		     param->private_data == NULL)) {
			errno = EINVAL;
			return -1;
		}
		pd = param->private_data;
		len = param->private_data_len;
	}
	end = rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000 * ev_env.set.resolve_ms;
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	for (;;) {
		ev_cm_pump_hold();
		ret = rte_pmd_ernic_cm_sidr_request(id->port->port_id,
						    &id->dst,
						    ev_cm_port_space(id), pd,
						    len, id, &rid);
		if (ret == 0) {
			/* before the SIDR_REP can be routed to the id */
			if (id->qkey == 0)
				id->qkey = RDMA_UDP_QKEY;
			id->rid = rid;
			id->state = EV_CM_CONNECTING;
		}
		ev_cm_pump_unhold();
		if (ret != -EAGAIN || rte_get_tsc_cycles() > end)
			break;
		ev_port_step(id->port);	/* the neighbour's answer comes in */
	}
	ev_port_release(id->port);
	pthread_mutex_unlock(&ev_env.ctl);
	ev_debug("rdma_connect(%p): UD, port %u, to port %u: %d", (void *)id,
		 id->port->port_id, id->dst.port, ret);
	if (ret != 0) {
		errno = ret == -EAGAIN ? EHOSTUNREACH : -ret;
		return -1;
	}
	ev_env_kick(id->port);
	return id->sync ? ev_cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

/* Send the reply of a request waiting on @p id; ctl is taken here. */
static int
sidr_reply(struct ev_cm_id *id, uint8_t status, uint32_t qpn, uint32_t qkey,
	   const void *pd, uint8_t len)
{
	int ret;

	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	ret = rte_pmd_ernic_cm_sidr_reply(id->port->port_id, id->rid, status,
					  qpn, qkey, pd, len);
	ev_port_release(id->port);
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	ev_env_kick(id->port);
	return 0;
}

int
ev_cm_sidr_accept(struct ev_cm_id *id, struct rdma_conn_param *param)
{
	const void *pd = NULL;
	uint32_t qpn, qkey;
	uint8_t len = 0;

	qpn = id->id.qp != NULL ? id->id.qp->qp_num :
		param != NULL ? param->qp_num : 0;
	qkey = id->qkey != 0 ? id->qkey : RDMA_UDP_QKEY;
	if (param != NULL) {
		if (param->private_data_len > ROCE_CM_SIDR_REP_PRIVATE ||
		    (param->private_data_len != 0 &&
		     param->private_data == NULL)) {
			errno = EINVAL;
			return -1;
		}
		pd = param->private_data;
		len = param->private_data_len;
	}
	if (qpn == 0) {
		errno = EINVAL;	/* neither a QP nor a QP number */
		return -1;
	}
	if (sidr_reply(id, ROCE_CM_SIDR_SUCCESS, qpn, qkey, pd, len) != 0)
		return -1;
	id->qkey = qkey;
	id->state = EV_CM_CONNECTED;
	return 0;
}

int
ev_cm_sidr_reject(struct ev_cm_id *id, const void *pd, uint8_t len)
{
	if (len > ROCE_CM_SIDR_REP_PRIVATE) {
		errno = EINVAL;
		return -1;
	}
	if (sidr_reply(id, ROCE_CM_SIDR_REJECT, 0, 0, pd, len) != 0)
		return -1;
	id->state = EV_CM_IDLE;
	return 0;
}

/* A SIDR_REQUEST: a new UD id on the listener's channel. */
static void
sidr_request(struct ev_port *p, const struct roce_cm_event *ev)
{
	struct ev_cm_event *e;
	struct ev_cm_id *c;

	if (ev->context == NULL)
		return;
	c = ev_cm_request_id(p, ev, IBV_QPT_UD, &e);
	if (c == NULL) {
		ev_log("rdma_cm: no memory for a UD request: refused");
		rte_pmd_ernic_cm_sidr_reply(p->port_id, ev->id,
					    ROCE_CM_SIDR_NO_QP, 0, 0, NULL, 0);
		return;
	}
	c->qkey = RDMA_UDP_QKEY;
	ud_fields(e, ev, SIDR_REQ_PD);
	ud_ah_attr(c, &e->ev.param.ud.ah_attr);
	ev_cm_post(c, e);
}

/* A SIDR_REPLY (or a request that went unanswered) for an active id. */
static void
sidr_reply_ev(const struct roce_cm_event *ev)
{
	enum rdma_cm_event_type type;
	struct ev_cm_event *e;
	struct ev_cm_id *id;
	int status;

	id = ev->context != NULL ? ev->context : ev_cm_find_rid(ev->id);
	if (id == NULL || id->rid != ev->id)
		return;	/* its id was destroyed */
	if (ev->type == ROCE_CM_EVENT_UNREACHABLE) {
		type = RDMA_CM_EVENT_UNREACHABLE;
		status = ev->status;
	} else if (ev->sidr_status != ROCE_CM_SIDR_SUCCESS) {
		/* Linux: UNREACHABLE with the SIDR status */
		type = RDMA_CM_EVENT_UNREACHABLE;
		status = ev->sidr_status;
	} else if (id->qkey != 0 && ev->qkey != id->qkey) {
		/* Linux: a Q_Key other than the id's is an address error */
		type = RDMA_CM_EVENT_ADDR_ERROR;
		status = -EINVAL;
	} else {
		type = RDMA_CM_EVENT_ESTABLISHED;
		status = 0;
	}
	e = ev_cm_event_new(type, status);
	if (e == NULL) {
		ev_log("rdma_cm: no memory for a UD reply: lost");
		return;
	}
	ud_fields(e, ev, ROCE_CM_SIDR_REP_PRIVATE);
	if (type == RDMA_CM_EVENT_ESTABLISHED) {
		ud_ah_attr(id, &e->ev.param.ud.ah_attr);
		e->ev.param.ud.qp_num = ev->remote_qpn;
		e->ev.param.ud.qkey = ev->qkey;
		id->remote_qpn = ev->remote_qpn;
		id->state = EV_CM_CONNECTED;
	} else {
		id->state = EV_CM_IDLE;
	}
	ev_cm_post(id, e);
}

bool
ev_cm_sidr_event(struct ev_port *p, const struct roce_cm_event *ev)
{
	struct ev_cm_id *id;

	switch (ev->type) {
	case ROCE_CM_EVENT_SIDR_REQUEST:
		sidr_request(p, ev);
		return true;
	case ROCE_CM_EVENT_SIDR_REPLY:
		sidr_reply_ev(ev);
		return true;
	case ROCE_CM_EVENT_UNREACHABLE:
		id = ev->context != NULL ? ev->context :
			ev_cm_find_rid(ev->id);
		if (id == NULL || id->id.qp_type != IBV_QPT_UD ||
		    id->state != EV_CM_CONNECTING)
			return false;
		sidr_reply_ev(ev);
		return true;
	default:
		return false;
	}
}
