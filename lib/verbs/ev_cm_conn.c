/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm connections: the QP of an id, connect, listen, accept, reject,
 * disconnect, and the pump that turns the ports' CM events into the
 * events of their ids.
 *
 * The port's CM moves an RC or UC QP through INIT, RTR and RTS with the
 * attributes of the REQ and REP, and to ERR on disconnect: the program
 * does none of that, as with librdmacm when it made the QP with
 * rdma_create_qp(). A QP the program made itself and connects by number
 * (rdma_conn_param::qp_num, then rdma_establish()) is not served
 * (rdma_connect(): EINVAL).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_random.h>

#include "ev_cm.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

/* rdma_cm's qp_access_flags of a connected QP (the kernel's cma.c) */
#define CM_QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * The local ACK timeout of a connection whose program set none
 * (RDMA_OPTION_ID_ACK_TIMEOUT): Linux's over RoCE, the route's packet life
 * time (16) + 1 (ib_cm's cm_ack_timeout()): 4.096 us * 2^17, 0.54 s
 */
#define CM_ACK_TIMEOUT 17

/* ------------------------------------------------------------------ */
/* The QP of an id                                                    */
/* ------------------------------------------------------------------ */

/* A CQ and its completion channel for rdma_create_qp() without CQs. */
static struct ibv_cq *
cm_cq(struct ibv_context *ctx, uint32_t depth, struct ibv_comp_channel **ch)
{
	struct ibv_cq *cq;

	*ch = ibv_create_comp_channel(ctx);
	if (*ch == NULL)
		return NULL;
	cq = ibv_create_cq(ctx, (int)RTE_MAX(depth, 1u), NULL, *ch, 0);
	if (cq == NULL) {
		ibv_destroy_comp_channel(*ch);
		*ch = NULL;
	}
	return cq;
}

static void
cm_cqs_destroy(struct rdma_cm_id *id)
{
	if (id->recv_cq != NULL && id->recv_cq != id->send_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->recv_cq_channel != NULL)
			ibv_destroy_comp_channel(id->recv_cq_channel);
	}
	if (id->send_cq != NULL) {
		ibv_destroy_cq(id->send_cq);
		if (id->send_cq_channel != NULL)
			ibv_destroy_comp_channel(id->send_cq_channel);
	}
	id->send_cq = id->recv_cq = NULL;
	id->send_cq_channel = id->recv_cq_channel = NULL;
}

/* The QP's first steps: INIT (RC, UC), or up to RTS (UD, its Q_Key). */
static int
cm_qp_init(struct ev_cm_id *id, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = RDMA_UDP_QKEY;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_QKEY);
		if (ret == 0) {
			a.qp_state = IBV_QPS_RTR;
			ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
		}
		if (ret == 0) {
			a.qp_state = IBV_QPS_RTS;
			a.sq_psn = 0;
			ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
		}
		id->qkey = RDMA_UDP_QKEY;
		return ret;
	}
	/* receives may be posted before the connection, as with librdmacm */
	a.qp_access_flags = CM_QP_ACCESS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* The PD of an id's objects: the given one, or the id's (its device's). */
static struct ibv_pd *
cm_pd(struct ev_cm_id *id, struct ibv_pd *pd)
{
	if (pd != NULL)
		return pd;
	if (id->id.pd == NULL && id->port != NULL)
		id->id.pd = ev_cm_pd(id->port);
	if (id->id.pd == NULL)
		errno = ENODEV;	/* no device yet: no address bound */
	return id->id.pd;
}

int
rdma_create_qp_ex(struct rdma_cm_id *cm_id, struct ibv_qp_init_attr_ex *attr)
{
	struct ev_cm_id *id;
	struct ibv_qp *qp;
	int ret;

	if (cm_id == NULL || attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (cm_id->verbs == NULL || cm_id->qp != NULL) {
		errno = EINVAL;	/* no device yet, or a QP already */
		return -1;
	}
	attr->pd = cm_pd(id, (attr->comp_mask & IBV_QP_INIT_ATTR_PD) ?
			 attr->pd : NULL);
	if (attr->pd == NULL)
		return -1;
	attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	if (cm_id->ps == RDMA_PS_UDP)
		attr->qp_type = IBV_QPT_UD;
	if (attr->srq == NULL)
		attr->srq = cm_id->srq;
	if (attr->send_cq == NULL) {
		attr->send_cq = cm_cq(cm_id->verbs, attr->cap.max_send_wr,
				      &cm_id->send_cq_channel);
		cm_id->send_cq = attr->send_cq;
	}
	if (attr->recv_cq == NULL) {
		attr->recv_cq = cm_cq(cm_id->verbs, attr->cap.max_recv_wr,
				      &cm_id->recv_cq_channel);
		cm_id->recv_cq = attr->recv_cq;
	}
	if (attr->send_cq == NULL || attr->recv_cq == NULL) {
		cm_cqs_destroy(cm_id);
		return -1;
	}
	qp = ibv_create_qp_ex(cm_id->verbs, attr);
	if (qp == NULL) {
		ret = errno;
		cm_cqs_destroy(cm_id);
		errno = ret;
		return -1;
	}
	ret = cm_qp_init(id, qp);
	if (ret != 0) {
		ibv_destroy_qp(qp);
		cm_cqs_destroy(cm_id);
		errno = ret;
		return -1;
	}
	cm_id->qp = qp;
	cm_id->qp_type = qp->qp_type;
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *cm_id, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex a;
	int ret;

	if (cm_id == NULL || attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(*attr));
	a.comp_mask = pd != NULL ? IBV_QP_INIT_ATTR_PD : 0;
	a.pd = pd;
	ret = rdma_create_qp_ex(cm_id, &a);
	if (ret == 0) {
		attr->cap = a.cap;
		attr->send_cq = a.send_cq;
		attr->recv_cq = a.recv_cq;
	}
	return ret;
}

void
rdma_destroy_qp(struct rdma_cm_id *cm_id)
{
	if (cm_id == NULL || cm_id->qp == NULL)
		return;
	ibv_destroy_qp(cm_id->qp);
	cm_id->qp = NULL;
	cm_cqs_destroy(cm_id);
}

int
rdma_create_srq_ex(struct rdma_cm_id *cm_id,
		   struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (cm_id == NULL || attr == NULL || cm_id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	attr->pd = cm_pd(ev_cm_id(cm_id), (attr->comp_mask &
					   IBV_SRQ_INIT_ATTR_PD) ?
			 attr->pd : NULL);
	if (attr->pd == NULL)
		return -1;
	attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	srq = ibv_create_srq_ex(cm_id->verbs, attr);
	if (srq == NULL)
		return -1;
	cm_id->srq = srq;
	return 0;
}

int
rdma_create_srq(struct rdma_cm_id *cm_id, struct ibv_pd *pd,
		struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex a;
	int ret;

	if (attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
		(pd != NULL ? IBV_SRQ_INIT_ATTR_PD : 0);
	a.srq_type = IBV_SRQT_BASIC;
	a.pd = pd;
	ret = rdma_create_srq_ex(cm_id, &a);
	if (ret == 0)
		attr->attr = a.attr;
	return ret;
}

void
rdma_destroy_srq(struct rdma_cm_id *cm_id)
{
	if (cm_id == NULL || cm_id->srq == NULL)
		return;
	ibv_destroy_srq(cm_id->srq);
	cm_id->srq = NULL;
}

/* ------------------------------------------------------------------ */
/* Connections                                                        */
/* ------------------------------------------------------------------ */

/* rdma_conn_param -> the port CM's; -EMSGSIZE for too much private data. */
static int
conn_param(const struct ev_cm_id *id, const struct rdma_conn_param *r,
	   uint8_t max_pd, struct roce_cm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->path_mtu = id->port->mtu;
	p->local_ack_timeout = id->ack_timeout != 0 ? id->ack_timeout :
		CM_ACK_TIMEOUT;
	p->qp_access_flags = CM_QP_ACCESS;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->responder_resources = 16;
	p->initiator_depth = 16;
	if (r == NULL)
		return 0;
	if (r->private_data_len > max_pd)
		return -EMSGSIZE;
	p->private_data = r->private_data;
	p->private_data_len = r->private_data_len;
	p->responder_resources = RTE_MIN(r->responder_resources,
					 (uint8_t)ROCE_MAX_RD_ATOMIC);
	p->initiator_depth = RTE_MIN(r->initiator_depth,
				     (uint8_t)ROCE_MAX_RD_ATOMIC);
	p->retry_count = RTE_MIN(r->retry_count, (uint8_t)7);
	p->rnr_retry_count = RTE_MIN(r->rnr_retry_count, (uint8_t)7);
	return 0;
}

static bool
id_is_ud(const struct ev_cm_id *id)
{
	return id->id.ps == RDMA_PS_UDP || id->id.qp_type == IBV_QPT_UD;
}

int
rdma_connect(struct rdma_cm_id *cm_id, struct rdma_conn_param *param)
{
	/* the IP header takes 36 of the REQ's 92 bytes */
	const uint8_t max_pd = ROCE_CM_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN;
	struct roce_cm_conn_param p;
	struct roce_cm_id *rid = NULL;
	struct ev_cm_id *id;
	uint64_t end;
	int ret;

	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (id->path == NULL || id->state != EV_CM_IDLE) {
		errno = EINVAL;	/* no route resolved, or connected */
		return -1;
	}
	if (id_is_ud(id))
		return ev_cm_sidr_connect(id, param);
	if (cm_id->qp == NULL) {
		errno = EINVAL;	/* a QP of the program's own: not served */
		return -1;
	}
	ret = conn_param(id, param, max_pd, &p);
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	end = rte_get_tsc_cycles() +
		rte_get_tsc_hz() / 1000 * ev_env.set.resolve_ms;
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	for (;;) {
		ev_cm_pump_hold();
		ret = rte_pmd_ernic_cm_connect(id->port->port_id, &id->dst,
					       ev_qp(cm_id->qp)->qp, &p, id,
					       &rid);
		if (ret == 0) {
			/* before the REP can be routed to the id */
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
	ev_debug("rdma_connect(%p): port %u, to port %u: %d", (void *)id,
		 id->port->port_id, id->dst.port, ret);
	if (ret != 0) {
		errno = ret == -EAGAIN ? EHOSTUNREACH : -ret;
		return -1;
	}
	ev_env_kick(id->port);
	return id->sync ? ev_cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_listen(struct rdma_cm_id *cm_id, int backlog)
{
	struct roce_cm_addr a;
	struct ev_cm_id *id;
	unsigned int i;
	int made = 0, err = 0;

	if (cm_id == NULL || backlog < 0) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (!id->bound) {
		errno = EINVAL;
		return -1;
	}
	if (id->src.port == 0) {
		/* an ephemeral port, as the kernel gives one */
		id->src.port = (uint16_t)(32768 + rte_rand() % 28232);
		ev_cm_addr_to_sa(&id->src, &cm_id->route.addr.src_storage);
	}
	a = id->src;
	if (id->any)	/* the port CM's wildcard: an all-zero GID */
		memset(a.gid.raw, 0, sizeof(a.gid.raw));
	pthread_mutex_lock(&ev_env.ctl);
	for (i = 0; i < ev_env.nb_ports; i++) {
		struct ev_port *p = &ev_env.port[i];

		if (!id->any && p != id->port)
			continue;
		ev_port_hold(p);
		id->lsn[i] = rte_pmd_ernic_cm_listen_ps(p->port_id, &a,
							ev_cm_port_space(id),
							(uint32_t)backlog, id);
		ev_port_release(p);
		ev_debug("rdma_listen(%p): port %u, IP port %u%s: %s",
			 (void *)id, p->port_id, a.port,
			 id->any ? " (any address)" : "",
			 id->lsn[i] != NULL ? "listening" :
			 rte_strerror(rte_errno));
		if (id->lsn[i] == NULL)
			err = rte_errno;
		else
			made++;
	}
	pthread_mutex_unlock(&ev_env.ctl);
	if (made == 0) {
		errno = err != 0 ? err : EADDRNOTAVAIL;
		return -1;
	}
	return 0;
}

int
rdma_accept(struct rdma_cm_id *cm_id, struct rdma_conn_param *param)
{
	struct roce_cm_conn_param p;
	struct ev_cm_id *id;
	int ret;

	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (id->state != EV_CM_REQUESTED) {
		errno = EINVAL;
		return -1;
	}
	if (id_is_ud(id))
		return ev_cm_sidr_accept(id, param);
	if (cm_id->qp == NULL) {
		errno = EINVAL;
		return -1;
	}
	ret = conn_param(id, param, ROCE_CM_REP_PRIVATE, &p);
	if (ret == 0) {
		pthread_mutex_lock(&ev_env.ctl);
		ev_port_hold(id->port);
		ev_cm_pump_hold();
		ret = rte_pmd_ernic_cm_accept(id->port->port_id, id->rid,
					      ev_qp(cm_id->qp)->qp, &p, id);
		if (ret == 0)
			id->state = EV_CM_ACCEPTING;	/* before the RTU's event */
		ev_cm_pump_unhold();
		ev_port_release(id->port);
		pthread_mutex_unlock(&ev_env.ctl);
	}
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	ev_env_kick(id->port);
	return id->sync ? ev_cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_reject(struct rdma_cm_id *cm_id, const void *private_data,
	    uint8_t private_data_len)
{
	struct ev_cm_id *id;
	int ret;

	if (cm_id == NULL || private_data_len > ROCE_CM_REJ_PRIVATE) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (id->state != EV_CM_REQUESTED) {
		errno = EINVAL;
		return -1;
	}
	if (id_is_ud(id))
		return ev_cm_sidr_reject(id, private_data, private_data_len);
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	ret = rte_pmd_ernic_cm_reject(id->port->port_id, id->rid,
				      ROCE_CM_REJ_CONSUMER_DEFINED,
				      private_data, private_data_len);
	ev_port_release(id->port);
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	id->state = EV_CM_IDLE;
	return 0;
}

int
rdma_reject_ece(struct rdma_cm_id *cm_id, const void *private_data,
		uint8_t private_data_len)
{
	return rdma_reject(cm_id, private_data, private_data_len);
}

int
rdma_disconnect(struct rdma_cm_id *cm_id)
{
	struct ev_cm_id *id;
	int ret = 0;

	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (id_is_ud(id) || id->rid == NULL) {
		errno = EINVAL;	/* nothing connected */
		return -1;
	}
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	ret = rte_pmd_ernic_cm_disconnect(id->port->port_id, id->rid);
	ev_port_release(id->port);
	pthread_mutex_unlock(&ev_env.ctl);
	/*
	 * The peer's DREQ came first (the CM answered it and moved the QP to
	 * ERR; its DISCONNECTED may not be routed yet): as Linux rdma_cm, a
	 * connection already going down is disconnected, not an error
	 */
	if (ret == -EINVAL && (id->state == EV_CM_CONNECTED ||
			       id->state == EV_CM_DISCONNECTED))
		ret = 0;
	if (ret != 0) {
		errno = -ret;
		return -1;
	}
	ev_env_kick(id->port);
	return 0;
}

int
rdma_establish(struct rdma_cm_id *cm_id)
{
	(void)cm_id;
	errno = ENOSYS;	/* the port's CM moves the QP: nothing to confirm */
	return -1;
}

int
rdma_notify(struct rdma_cm_id *cm_id, enum ibv_event_type event)
{
	(void)event;
	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	return 0;	/* the RTU is the CM's: the QP's first packet needs none */
}

int
rdma_init_qp_attr(struct rdma_cm_id *cm_id, struct ibv_qp_attr *attr,
		  int *mask)
{
	if (cm_id == NULL || attr == NULL || mask == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (attr->qp_state != IBV_QPS_INIT) {
		/* RTR and RTS are the port CM's to make (a QP of its own) */
		errno = ENOSYS;
		return -1;
	}
	attr->port_num = 1;
	attr->pkey_index = 0;
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (ev_cm_id(cm_id)->id.qp_type == IBV_QPT_UD) {
		attr->qkey = RDMA_UDP_QKEY;
		*mask |= IBV_QP_QKEY;
	} else {
		attr->qp_access_flags = CM_QP_ACCESS;
		*mask |= IBV_QP_ACCESS_FLAGS;
	}
	return 0;
}

int
rdma_set_option(struct rdma_cm_id *cm_id, int level, int optname,
		void *optval, size_t optlen)
{
	struct ev_cm_id *id;

	if (cm_id == NULL || optval == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (level == RDMA_OPTION_ID) {
		switch (optname) {
		case RDMA_OPTION_ID_TOS:
			if (optlen != sizeof(uint8_t))
				break;
			id->tos = *(uint8_t *)optval;
			return 0;
		case RDMA_OPTION_ID_REUSEADDR:
		case RDMA_OPTION_ID_AFONLY:
			if (optlen != sizeof(int))
				break;
			return 0;	/* ports are per process here */
		case RDMA_OPTION_ID_ACK_TIMEOUT:
			if (optlen != sizeof(uint8_t))
				break;
			id->ack_timeout = *(uint8_t *)optval & 0x1f;
			return 0;
		default:
			errno = ENOSYS;
			return -1;
		}
		errno = EINVAL;
		return -1;
	}
	errno = ENOSYS;	/* IB path records: the route is RoCE's */
	return -1;
}

int
rdma_set_local_ece(struct rdma_cm_id *cm_id, struct ibv_ece *ece)
{
	(void)cm_id;
	(void)ece;
	errno = EOPNOTSUPP;
	return -1;
}

int
rdma_get_remote_ece(struct rdma_cm_id *cm_id, struct ibv_ece *ece)
{
	(void)cm_id;
	(void)ece;
	errno = EOPNOTSUPP;
	return -1;
}

int
rdma_join_multicast(struct rdma_cm_id *cm_id, struct sockaddr *addr,
		    void *context)
{
	(void)cm_id;
	(void)addr;
	(void)context;
	errno = ENOSYS;	/* no multicast groups */
	return -1;
}

int
rdma_join_multicast_ex(struct rdma_cm_id *cm_id,
		       struct rdma_cm_join_mc_attr_ex *attr, void *context)
{
	(void)cm_id;
	(void)attr;
	(void)context;
	errno = ENOSYS;
	return -1;
}

int
rdma_leave_multicast(struct rdma_cm_id *cm_id, struct sockaddr *addr)
{
	(void)cm_id;
	(void)addr;
	errno = ENOSYS;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The event pump                                                     */
/* ------------------------------------------------------------------ */

static const enum rdma_cm_event_type cm_event_type[] = {
	[ROCE_CM_EVENT_CONNECT_REQUEST] = RDMA_CM_EVENT_CONNECT_REQUEST,
	[ROCE_CM_EVENT_ESTABLISHED] = RDMA_CM_EVENT_ESTABLISHED,
	[ROCE_CM_EVENT_REJECTED] = RDMA_CM_EVENT_REJECTED,
	[ROCE_CM_EVENT_UNREACHABLE] = RDMA_CM_EVENT_UNREACHABLE,
	[ROCE_CM_EVENT_CONNECT_ERROR] = RDMA_CM_EVENT_CONNECT_ERROR,
	[ROCE_CM_EVENT_DISCONNECTED] = RDMA_CM_EVENT_DISCONNECTED,
	[ROCE_CM_EVENT_TIMEWAIT_EXIT] = RDMA_CM_EVENT_TIMEWAIT_EXIT,
};

/* The connection fields of an event from the port CM's. */
static void
conn_fields(struct ev_cm_event *e, const struct roce_cm_event *ev)
{
	struct rdma_conn_param *c = &e->ev.param.conn;

	memcpy(e->private_data, ev->private_data, ev->private_data_len);
	c->private_data = e->private_data;
	c->private_data_len = ev->private_data_len;
	c->responder_resources = ev->responder_resources;
	c->initiator_depth = ev->initiator_depth;
	c->rnr_retry_count = 7;
	c->retry_count = 7;
	c->qp_num = ev->remote_qpn;
}

struct ev_cm_id *
ev_cm_request_id(struct ev_port *p, const struct roce_cm_event *ev,
		 enum ibv_qp_type qpt, struct ev_cm_event **e)
{
	struct ev_cm_id *l = ev->context, *c;

	c = ev_cm_id_new(l->id.channel, l->id.context, l->id.ps, qpt);
	*e = ev_cm_event_new(RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (c == NULL || *e == NULL) {
		if (c != NULL)
			ev_cm_id_free(c);
		free(*e);
		*e = NULL;
		return NULL;
	}
	c->sync = l->sync;
	c->rid = ev->id;
	c->listen_id = l;
	c->state = EV_CM_REQUESTED;
	c->bound = true;
	c->src = ev->local;
	c->dst = ev->remote;
	c->id.verbs = ev_cm_verbs(p);
	c->id.pd = ev_cm_pd(p);
	c->port = p;
	c->id.port_num = 1;
	ev_cm_addr_to_sa(&ev->local, &c->id.route.addr.src_storage);
	ev_cm_addr_to_sa(&ev->remote, &c->id.route.addr.dst_storage);
	memcpy(c->id.route.addr.addr.ibaddr.sgid.raw, ev->local.gid.raw, 16);
	memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, ev->remote.gid.raw, 16);
	ev_cm_route_fill(c);
	(*e)->ev.listen_id = &l->id;
	return c;
}

/* A CONNECT_REQUEST: a new id on the listener's channel. */
static void
pump_request(struct ev_port *p, const struct roce_cm_event *ev)
{
	struct ev_cm_event *e;
	struct ev_cm_id *c;

	if (ev->context == NULL)
		return;
	c = ev_cm_request_id(p, ev, IBV_QPT_RC, &e);
	if (c == NULL) {
		/* no memory: the requester is told, nothing is lost silently */
		ev_log("rdma_cm: no memory for a connection request: rejected");
		rte_pmd_ernic_cm_reject(p->port_id, ev->id,
					ROCE_CM_REJ_NO_RESOURCES, NULL, 0);
		return;
	}
	c->remote_qpn = ev->remote_qpn;
	conn_fields(e, ev);
	ev_cm_post(c, e);
}

/* One event of port @p p's CM. */
static void
pump_one(struct ev_port *p, const struct roce_cm_event *ev)
{
	struct ev_cm_event *e;
	struct ev_cm_id *id;

	ev_debug("rdma_cm: port %u: %s (status %d, reason %u, context %p)",
		 p->port_id, (unsigned int)ev->type >= RTE_PMD_ERNIC_CM_EVENT_QP_ERROR ?
		 "recovery" : roce_cm_event_name(ev->type), ev->status,
		 ev->rej_reason, ev->context);
	if (ev_cm_sidr_event(p, ev))
		return;
	if ((unsigned int)ev->type >= RTE_DIM(cm_event_type))
		return;	/* the PMD's recovery events: not armed here */
	if (ev->type == ROCE_CM_EVENT_CONNECT_REQUEST) {
		pump_request(p, ev);
		return;
	}
	id = ev->context != NULL ? ev->context : ev_cm_find_rid(ev->id);
	if (id == NULL || id->rid != ev->id)
		return;	/* its id was destroyed */
	e = ev_cm_event_new(cm_event_type[ev->type], ev->status);
	if (e == NULL) {
		ev_log("rdma_cm: no memory for a %s event: lost",
		       roce_cm_event_name(ev->type));
		return;
	}
	conn_fields(e, ev);
	switch (ev->type) {
	case ROCE_CM_EVENT_ESTABLISHED:
		id->state = EV_CM_CONNECTED;
		id->remote_qpn = ev->remote_qpn;
		break;
	case ROCE_CM_EVENT_REJECTED:
		/* librdmacm's status of a reject: the IB reason */
		e->ev.status = ev->rej_reason;
		id->state = EV_CM_IDLE;
		break;
	case ROCE_CM_EVENT_UNREACHABLE:
	case ROCE_CM_EVENT_CONNECT_ERROR:
		id->state = EV_CM_IDLE;
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		id->state = EV_CM_DISCONNECTED;
		break;
	default:
		break;
	}
	ev_cm_post(id, e);
}

/* held while a thread routes the port CMs' events */
static pthread_mutex_t pumping = PTHREAD_MUTEX_INITIALIZER;

void
ev_cm_pump_barrier(void)
{
	pthread_mutex_lock(&pumping);
	pthread_mutex_unlock(&pumping);
}

void
ev_cm_pump_hold(void)
{
	pthread_mutex_lock(&pumping);
}

void
ev_cm_pump_unhold(void)
{
	pthread_mutex_unlock(&pumping);
}

void
ev_cm_pump_all(void)
{
	struct roce_cm_event ev;
	unsigned int i;

	if (__atomic_load_n(&ev_cm_ids, __ATOMIC_RELAXED) == 0 ||
	    pthread_mutex_trylock(&pumping) != 0)
		return;	/* nothing to route, or another thread routes */
	for (i = 0; i < ev_env.nb_ports; i++) {
		struct ev_port *p = &ev_env.port[i];

		while (rte_pmd_ernic_cm_get_event(p->port_id, &ev) == 1)
			pump_one(p, &ev);
	}
	pthread_mutex_unlock(&pumping);
}
