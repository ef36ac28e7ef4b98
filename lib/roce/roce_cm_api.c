/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's application API (roce_cm.h): listen, connect,
 * accept, reject, disconnect, destroy, queries and counters. A call checks
 * its arguments and hands the id to the state machine (roce_cm_fsm.c),
 * which runs the call's step below or answers -EINVAL for the state.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_cm_priv.h"
#include "roce_log.h"
#include "roce_priv.h"

static const char *const cm_cnt_names[] = {
	"cm_rx_req", "cm_rx_mra", "cm_rx_rej", "cm_rx_rep", "cm_rx_rtu",
	"cm_rx_dreq", "cm_rx_drep",
	"cm_tx_req", "cm_tx_mra", "cm_tx_rej", "cm_tx_rep", "cm_tx_rtu",
	"cm_tx_dreq", "cm_tx_drep",
	"cm_rx_sidr_req", "cm_rx_sidr_rep", "cm_tx_sidr_req", "cm_tx_sidr_rep",
	"cm_sidr_no_listener", "cm_sidr_invalid", "cm_timeout_sidr",
	"cm_rx_drop_unsupported_attr", "cm_rx_drop_unknown_id",
	"cm_rx_drop_bad_state", "cm_rx_drop_bad_source", "cm_rx_dup",
	"cm_req_stale", "cm_req_no_listener", "cm_req_held", "cm_req_invalid",
	"cm_req_backlog_full", "cm_req_no_id",
	"cm_timeout_req", "cm_timeout_rep", "cm_timeout_dreq",
	"cm_qp_modify_err", "cm_established", "cm_disconnected",
	"cm_timewait_exit", "cm_event_dropped", "cm_event_withdrawn",
};
static_assert(RTE_DIM(cm_cnt_names) == CM_CNT_MAX,
	      "a name for each CM counter");

/* ------------------------------------------------------------------ */
/* Application API                                                    */
/* ------------------------------------------------------------------ */

struct roce_cm_listener *
roce_cm_listen(struct roce_cm *cm, const struct roce_cm_addr *addr,
	       enum roce_cm_port_space ps, uint32_t backlog, void *context)
{
	struct roce_cm_listener *free_l = NULL;
	uint32_t i;

	if (cm == NULL || addr == NULL || addr->port == 0 ||
	    (addr->ip_ver != 4 && addr->ip_ver != 6) ||
	    (ps != ROCE_CM_PS_TCP && ps != ROCE_CM_PS_UDP &&
	     ps != ROCE_CM_PS_IB)) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < cm->cfg.max_listeners; i++) {
		struct roce_cm_listener *l = &cm->listeners[i];

		if (!l->in_use) {
			if (free_l == NULL)
				free_l = l;
			continue;
		}
		if (l->ps == ps && l->addr.port == addr->port &&
		    memcmp(l->addr.gid.raw, addr->gid.raw, 16) == 0) {
			rte_errno = EADDRINUSE;
			return NULL;
		}
	}
	if (free_l == NULL) {
		rte_errno = ENOSPC;
		return NULL;
	}
	free_l->in_use = true;
	free_l->addr = *addr;
	free_l->ps = ps;
	free_l->backlog = backlog != 0 ? backlog : 128;
	free_l->pending = 0;
	free_l->context = context;
	return free_l;
}

int
roce_cm_listen_stop(struct roce_cm_listener *l, uint64_t now)
{
	struct roce_cm *cm;
	uint32_t i;

	if (l == NULL || !l->in_use)
		return -EINVAL;
	cm = l->cm;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		struct roce_cm_id *id = &cm->ids[i];

		struct cm_ctx c = { .cm = cm, .id = id, .now = now };

		if (!id->in_use || id->listener != l)
			continue;
		/*
		 * a request waiting for the application is rejected; one not
		 * even taken yet leaves the queue, and its id, which the
		 * application never saw, is freed on entering IDLE
		 */
		if (cm_ev_withdraw(cm, id, NULL) != 0)
			id->orphan = true;
		cm_fsm_apply(&c, CM_IN_LISTEN_STOP);
		if (id->in_use) {
			id->listener = NULL;
			id->pending = false;
		}
	}
	l->in_use = false;
	l->pending = 0;
	return 0;
}

static void
conn_param_defaults(struct roce_cm *cm, const struct roce_cm_conn_param *p,
		    struct roce_cm_conn_param *o)
{
	*o = *p;
	if (o->path_mtu == 0 || o->path_mtu > cm->cfg.max_mtu)
		o->path_mtu = cm->cfg.max_mtu;
	if (o->qp_access_flags == 0)
		o->qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
			ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
			ROCE_ACCESS_REMOTE_ATOMIC;
	if (o->local_ack_timeout == 0)
		o->local_ack_timeout = 19;
	o->retry_count &= 7;
	o->rnr_retry_count &= 7;
	o->min_rnr_timer &= 0x1f;
	o->local_ack_timeout &= 0x1f;
	/* selective repeat: ROCE_CM_SR_ON or ROCE_CM_SR_OFF from here on */
	if (o->selective_repeat != ROCE_CM_SR_ON &&
	    o->selective_repeat != ROCE_CM_SR_OFF)
		o->selective_repeat = cm->cfg.selective_repeat ==
			ROCE_CM_SR_OFF ? ROCE_CM_SR_OFF : ROCE_CM_SR_ON;
}

/* The QP must be RC or UC, in RESET or INIT. */
static int
check_qp(struct roce_qp *qp, struct roce_qp_init_attr *ia)
{
	struct roce_qp_attr a;
	int ret;

	if (qp == NULL)
		return -EINVAL;
	ret = roce_query_qp(qp, &a, ia);
	if (ret != 0)
		return ret;
	if ((ia->qp_type != ROCE_QPT_RC && ia->qp_type != ROCE_QPT_UC) ||
	    (a.qp_state != ROCE_QPS_RESET && a.qp_state != ROCE_QPS_INIT))
		return -EINVAL;
	return 0;
}

/* The arguments of connect for its step. */
struct cm_connect_arg {
	const struct roce_cm_conn_param *cp;	/* with the defaults */
	const struct roce_cm_addr *dst;
	enum roce_qp_type qp_type;
};

int
roce_cm_connect(struct roce_cm *cm, const struct roce_cm_addr *src,
		const struct roce_cm_addr *dst, const uint8_t dmac[6],
		struct roce_qp *qp, const struct roce_cm_conn_param *p,
		void *context, uint64_t now, struct roce_cm_id **out)
{
	struct roce_cm_conn_param cp;
	struct cm_connect_arg arg;
	struct roce_qp_init_attr ia;
	struct roce_cm_id *id;
	struct cm_ctx c;
	int sgid, ret;

	if (cm == NULL || src == NULL || dst == NULL || dmac == NULL ||
	    p == NULL || out == NULL || dst->port == 0 ||
	    src->ip_ver != dst->ip_ver ||
	    p->selective_repeat > ROCE_CM_SR_OFF)
		return -EINVAL;
	if (p->private_data_len > ROCE_CM_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN)
		return -EMSGSIZE;
	ret = check_qp(qp, &ia);
	if (ret != 0)
		return ret;
	sgid = cm_sgid_index(cm, src->gid.raw);
	if (sgid < 0)
		return -EADDRNOTAVAIL;
	conn_param_defaults(cm, p, &cp);
	id = cm_id_alloc(cm);
	if (id == NULL)
		return -ENOSPC;
	id->active = true;
	id->context = context;
	id->qp = qp;
	id->qp_type = (uint8_t)ia.qp_type;
	id->srq = ia.srq != NULL;
	id->local_qpn = roce_qp_num(qp);
	id->local = *src;
	if (id->local.port == 0)
		id->local.port = cm_next_port(cm);
	id->remote = *dst;
	id->service_id = roce_cm_service_id(ROCE_CM_PS_TCP, dst->port);
	id->tid = roce_mad_tid_new(cm->agent);
	id->rq_psn = (uint32_t)cm_rand(cm) & 0xffffff;
	id->mtu = (uint8_t)cp.path_mtu;
	id->resp_res = cp.responder_resources;
	id->init_depth = cp.initiator_depth;
	id->retry_count = cp.retry_count;
	id->peer_rnr_retry = cp.rnr_retry_count;
	id->min_rnr_timer = cp.min_rnr_timer;
	id->local_ack_timeout = cp.local_ack_timeout;
	id->peer_cm_timeout = cm->cfg.cm_response_timeout;
	id->max_cm_retries = cm->cfg.max_cm_retries;
	id->hop_limit = 64;
	id->sgid_index = (uint8_t)sgid;
	id->access = cp.qp_access_flags;
	cm_addr_init(cm, id, dmac);
	arg.cp = &cp;
	arg.dst = dst;
	arg.qp_type = ia.qp_type;
	c = (struct cm_ctx){ .cm = cm, .id = id, .now = now, .arg = &arg };
	ret = cm_fsm_apply(&c, CM_IN_CONNECT);
	if (ret != 0) {
		/* never the application's: freed */
		id->qp = NULL;
		cm_id_free(cm, id);
		return ret;
	}
	*out = id;
	return 0;
}

/* The QP to INIT, the REQ (IBTA 12.6.5) with the rdma_cm IP header. */
enum cm_out
cm_step_connect(struct cm_ctx *c)
{
	const struct cm_connect_arg *arg = c->arg;
	const struct roce_cm_conn_param *cp = arg->cp;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_req req;
	struct roce_mad mad;

	c->ret = cm_qp_to_init(cm, id);
	if (c->ret != 0)
		return CM_OUT_FAIL;
	memset(&req, 0, sizeof(req));
	req.local_comm_id = id->local_comm_id;
	req.service_id = id->service_id;
	req.local_ca_guid = cm->cfg.ca_guid;
	req.local_qpn = id->local_qpn;
	req.responder_resources = id->resp_res;
	req.initiator_depth = id->init_depth;
	req.remote_cm_response_timeout = cm->cfg.cm_response_timeout;
	req.transport = arg->qp_type == ROCE_QPT_RC ? ROCE_CM_TRANSPORT_RC :
		ROCE_CM_TRANSPORT_UC;
	req.starting_psn = id->rq_psn;	/* what we expect to receive */
	req.local_cm_response_timeout = cm->cfg.cm_response_timeout;
	req.retry_count = id->retry_count;
	req.pkey = ROCE_DEFAULT_PKEY;
	req.path_mtu = id->mtu;
	req.rnr_retry_count = id->peer_rnr_retry;
	req.max_cm_retries = cm->cfg.max_cm_retries;
	req.srq = id->srq;
	/* RoCE: permissive LIDs, the GIDs carry the addresses (annex A16/A17) */
	req.primary.local_lid = 0xffff;
	req.primary.remote_lid = 0xffff;
	memcpy(req.primary.local_gid, id->local.gid.raw, 16);
	memcpy(req.primary.remote_gid, arg->dst->gid.raw, 16);
	req.primary.hop_limit = id->hop_limit;
	req.primary.subnet_local = id->hop_limit <= 1;
	req.primary.local_ack_timeout = id->local_ack_timeout;
	id->sr_offer = cp->selective_repeat == ROCE_CM_SR_ON &&
		arg->qp_type == ROCE_QPT_RC;
	id->sr = false;
	if (id->sr_offer)
		req.vendor_id = ROCE_CM_VENDOR_SOFTERNIC | ROCE_CM_VENDOR_CAP_SR;
	c->ret = roce_cm_ip_hdr_pack(req.private_data, &id->local, arg->dst);
	if (c->ret != 0)
		return CM_OUT_FAIL;
	if (cp->private_data != NULL && cp->private_data_len != 0)
		memcpy(req.private_data + ROCE_CM_IP_HDR_LEN, cp->private_data,
		       cp->private_data_len);
	roce_cm_req_pack(&mad, id->tid, &req);
	c->ret = cm_send_tracked(cm, id, &mad,
				 cm_wait_ticks(cm, cm->cfg.cm_response_timeout),
				 c->now);
	return c->ret != 0 ? CM_OUT_FAIL : CM_OUT_NEXT;
}

/* The arguments of accept for its step. */
struct cm_accept_arg {
	struct roce_qp *qp;
	const struct roce_cm_conn_param *p;
	void *context;
};

int
roce_cm_accept(struct roce_cm_id *id, struct roce_qp *qp,
	       const struct roce_cm_conn_param *p, void *context,
	       uint64_t now)
{
	struct cm_accept_arg arg = { .qp = qp, .p = p, .context = context };
	struct cm_ctx c = { .id = id, .now = now, .arg = &arg };

	if (id == NULL || !id->in_use || p == NULL ||
	    p->selective_repeat > ROCE_CM_SR_OFF)
		return -EINVAL;
	c.cm = id->cm;
	return cm_fsm_apply(&c, CM_IN_ACCEPT);
}

/* The QP to RTS with the REQ's path, then the REP (IBTA 12.9.5.2). */
enum cm_out
cm_step_accept(struct cm_ctx *c)
{
	const struct cm_accept_arg *arg = c->arg;
	const struct roce_cm_conn_param *p = arg->p;
	struct roce_cm_conn_param cp;
	struct roce_qp_init_attr ia;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_rep rep;
	struct roce_mad mad;
	int ret;

	if (p->private_data_len > ROCE_CM_REP_PRIVATE)
		ret = -EMSGSIZE;
	else
		ret = check_qp(arg->qp, &ia);
	if (ret == 0 && ia.qp_type != id->qp_type)
		ret = -EINVAL;
	if (ret != 0) {
		c->ret = ret;
		return CM_OUT_FAIL;
	}
	conn_param_defaults(cm, p, &cp);
	id->qp = arg->qp;
	id->context = arg->context;
	id->srq = ia.srq != NULL;
	id->local_qpn = roce_qp_num(arg->qp);
	id->rq_psn = (uint32_t)cm_rand(cm) & 0xffffff;
	id->mtu = (uint8_t)RTE_MIN(id->mtu, (uint8_t)cp.path_mtu);
	/* IBTA 12.7.29/30: never more than the active side offered */
	id->resp_res = RTE_MIN(cp.responder_resources, id->peer_init_depth);
	id->init_depth = RTE_MIN(cp.initiator_depth, id->peer_resp_res);
	id->peer_rnr_retry = cp.rnr_retry_count;
	id->min_rnr_timer = cp.min_rnr_timer;
	id->access = cp.qp_access_flags;
	id->sr = id->sr_offer && cp.selective_repeat == ROCE_CM_SR_ON;
	ret = cm_qp_to_init(cm, id);
	if (ret == 0)
		ret = cm_qp_to_rts(cm, id);
	if (ret != 0) {
		cm_rej_id(cm, id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_CONSUMER_DEFINED,
			  NULL, 0);
		cm_qp_to_err(cm, id);
		id->qp = NULL;
		c->ret = ret;
		return CM_OUT_ALT;
	}
	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = id->local_comm_id;
	rep.remote_comm_id = id->remote_comm_id;
	rep.local_qpn = id->local_qpn;
	rep.starting_psn = id->rq_psn;	/* what we expect to receive */
	rep.responder_resources = id->resp_res;
	rep.initiator_depth = id->init_depth;
	rep.target_ack_delay = 15;	/* as Linux rxe: our ACKs are immediate */
	rep.rnr_retry_count = id->peer_rnr_retry;
	rep.srq = id->srq;
	rep.local_ca_guid = cm->cfg.ca_guid;
	if (id->sr)
		rep.vendor_id = ROCE_CM_VENDOR_SOFTERNIC | ROCE_CM_VENDOR_REP |
			ROCE_CM_VENDOR_CAP_SR;
	if (cp.private_data != NULL && cp.private_data_len != 0)
		memcpy(rep.private_data, cp.private_data,
		       cp.private_data_len);
	roce_cm_rep_pack(&mad, id->tid, &rep);
	cm_id_unpend(id);
	ret = cm_send_tracked(cm, id, &mad,
			      cm_wait_ticks(cm, id->peer_cm_timeout), c->now);
	if (ret != 0) {
		cm_qp_to_err(cm, id);
		c->ret = ret;
		return CM_OUT_ALT;
	}
	return CM_OUT_NEXT;
}

/* The arguments of reject for its step. */
struct cm_reject_arg {
	uint16_t reason;
	const void *private_data;
	uint8_t len;
};

int
roce_cm_reject(struct roce_cm_id *id, uint16_t reason,
	       const void *private_data, uint8_t len, uint64_t now)
{
	struct cm_reject_arg arg = {
		.reason = reason, .private_data = private_data, .len = len,
	};
	struct cm_ctx c = { .id = id, .now = now, .arg = &arg };

	if (id == NULL || !id->in_use)
		return -EINVAL;
	c.cm = id->cm;
	return cm_fsm_apply(&c, CM_IN_REJECT);
}

/*
 * A request the application turns down: REJ with its reason, or Consumer
 * Defined for a disconnect, a destroy or a listener that stops.
 */
enum cm_out
cm_step_reject(struct cm_ctx *c)
{
	const struct cm_reject_arg *arg =
		c->in == CM_IN_REJECT ? c->arg : NULL;

	if (arg == NULL) {
		cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REQ,
			  ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		return CM_OUT_NEXT;
	}
	if (arg->len > ROCE_CM_REJ_PRIVATE) {
		c->ret = -EMSGSIZE;
		return CM_OUT_FAIL;
	}
	cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REQ, arg->reason,
		  arg->private_data, arg->len);
	return CM_OUT_NEXT;
}

/* Our REQ is given up: REJ Timeout, the QP to ERR. */
enum cm_out
cm_step_abort_req(struct cm_ctx *c)
{
	cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_TIMEOUT, NULL, 0);
	cm_qp_to_err(c->cm, c->id);
	return CM_OUT_NEXT;
}

/* Our REP is given up before the RTU: REJ, the QP to ERR. */
enum cm_out
cm_step_abort_rep(struct cm_ctx *c)
{
	cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REP, ROCE_CM_REJ_CONSUMER_DEFINED,
		  NULL, 0);
	cm_qp_to_err(c->cm, c->id);
	return CM_OUT_NEXT;
}

int
roce_cm_disconnect(struct roce_cm_id *id, uint64_t now)
{
	return roce_cm_disconnect_pd(id, NULL, 0, now);
}

/* The arguments of disconnect for its step. */
struct cm_disconnect_arg {
	const void *private_data;
	uint8_t len;
};

int
roce_cm_disconnect_pd(struct roce_cm_id *id, const void *private_data,
		      uint8_t len, uint64_t now)
{
	struct cm_disconnect_arg arg = {
		.private_data = private_data, .len = len,
	};
	struct cm_ctx c = { .id = id, .now = now, .arg = &arg };

	if (id == NULL || !id->in_use)
		return -EINVAL;
	if (len > ROCE_CM_DREQ_PRIVATE || (len != 0 && private_data == NULL))
		return -EMSGSIZE;
	c.cm = id->cm;
	return cm_fsm_apply(&c, CM_IN_DISCONNECT);
}

/*
 * IBTA 12.9.7: the QP stops first, then the DREQ goes. Without a send slot
 * nobody will answer: DISCONNECTED at once, timewait.
 */
enum cm_out
cm_step_disconnect(struct cm_ctx *c)
{
	const struct cm_disconnect_arg *arg =
		c->in == CM_IN_DISCONNECT ? c->arg : NULL;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_dreq dreq;
	struct roce_mad mad;

	cm_qp_to_err(cm, id);
	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = id->local_comm_id;
	dreq.remote_comm_id = id->remote_comm_id;
	dreq.remote_qpn = id->remote_qpn;
	if (arg != NULL && arg->len != 0)
		memcpy(dreq.private_data, arg->private_data, arg->len);
	roce_cm_dreq_pack(&mad, roce_mad_tid_new(cm->agent), &dreq);
	if (cm_send_tracked(cm, id, &mad,
			    cm_wait_ticks(cm, id->peer_cm_timeout),
			    c->now) != 0) {
		cm->cnt[CM_CNT_DISCONNECTED]++;
		cm_ev_simple(cm, id, ROCE_CM_EVENT_DISCONNECTED, -ENOSPC);
		return CM_OUT_ALT;
	}
	return CM_OUT_NEXT;
}

int
roce_cm_destroy_id(struct roce_cm_id *id, uint64_t now)
{
	struct cm_ctx c = { .id = id, .now = now };

	if (id == NULL || !id->in_use || id->orphan)
		return -EINVAL;
	c.cm = id->cm;
	/*
	 * What the connection still needs (REJ, DREQ, timewait) happens
	 * without events; an idle id is freed on entering IDLE
	 */
	id->orphan = true;
	/* its queued events name an id and a context about to be released */
	cm_ev_withdraw(c.cm, id, NULL);
	cm_fsm_apply(&c, CM_IN_DESTROY);
	/* the application may destroy its QP from now on */
	if (id->in_use) {
		cm_qp_to_err(c.cm, id);
		id->qp = NULL;
	}
	return 0;
}

int
roce_cm_detach_qp(struct roce_cm_id *id)
{
	if (id == NULL || !id->in_use)
		return -EINVAL;
	id->qp = NULL;
	return 0;
}

enum roce_cm_state
roce_cm_id_state(const struct roce_cm_id *id)
{
	return id->state;
}

struct roce_qp *
roce_cm_id_qp(const struct roce_cm_id *id)
{
	return id->qp;
}

void *
roce_cm_id_context(const struct roce_cm_id *id)
{
	return id->context;
}

void
roce_cm_id_set_context(struct roce_cm_id *id, void *context)
{
	id->context = context;
}

uint32_t
roce_cm_nb_closing(const struct roce_cm *cm)
{
	uint32_t i, n = 0;

	if (cm == NULL)
		return 0;
	for (i = 0; i < cm->cfg.max_ids; i++)
		if (cm->ids[i].in_use && cm->ids[i].state == ROCE_CM_DREQ_SENT)
			n++;
	return n;
}

uint32_t
roce_cm_nb_ids(const struct roce_cm *cm)
{
	return cm->cfg.max_ids - cm->nb_free;
}

unsigned int
roce_cm_conn_list(const struct roce_cm *cm, struct roce_cm_conn_info *out,
		  unsigned int n)
{
	const struct roce_cm_id *id;
	struct roce_cm_conn_info *ci;
	unsigned int k = 0;
	uint32_t i;

	if (cm == NULL)
		return 0;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		id = &cm->ids[i];
		if (!id->in_use || id->state == ROCE_CM_IDLE)
			continue;
		if (k < n && out != NULL) {
			ci = &out[k];
			memset(ci, 0, sizeof(*ci));
			ci->id = id;
			ci->state = id->state;
			ci->active = id->active;
			ci->orphan = id->orphan;
			ci->local = id->local;
			ci->remote = id->remote;
			ci->local_qpn = id->local_qpn;
			ci->remote_qpn = id->remote_qpn;
			ci->local_comm_id = id->local_comm_id;
			ci->remote_comm_id = id->remote_comm_id;
			ci->selective_repeat = id->sr;
		}
		k++;
	}
	return k;
}

int
roce_cm_counters(const struct roce_cm *cm, struct roce_counter *c,
		 unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < CM_CNT_MAX; i++, k++)
		if (c != NULL && k < n) {
			c[k].name = cm_cnt_names[i];
			c[k].value = cm->cnt[i];
		}
	for (i = 0; i < ROCE_MAD_CNT_MAX; i++, k++)
		if (c != NULL && k < n) {
			c[k].name = roce_mad_cnt_name(i);
			c[k].value = roce_mad_agent_cnt(cm->agent, i);
		}
	return (int)k;
}

int64_t
roce_cm_counter(const struct roce_cm *cm, const char *name)
{
	unsigned int i;

	for (i = 0; i < CM_CNT_MAX; i++)
		if (strcmp(cm_cnt_names[i], name) == 0)
			return (int64_t)cm->cnt[i];
	for (i = 0; i < ROCE_MAD_CNT_MAX; i++)
		if (strcmp(roce_mad_cnt_name(i), name) == 0)
			return (int64_t)roce_mad_agent_cnt(cm->agent, i);
	return -ENOENT;
}

