/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's receive side (IBTA 12.9): REQ, MRA, REJ, REP,
 * RTU, DREQ and DREP against the state of their connection, REQs held for
 * a late listener, and the poll that runs the timers.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_cm_priv.h"
#include "roce_log.h"
#include "roce_priv.h"

/* ------------------------------------------------------------------ */
/* Receive                                                            */
/* ------------------------------------------------------------------ */

/* Index of our GID @p gid in the device table, -1 when it is not ours. */
int
cm_sgid_index(struct roce_cm *cm, const uint8_t gid[16])
{
	union roce_gid g;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cm->cfg.dev->cfg.gid); i++)
		if (roce_device_get_gid(cm->cfg.dev, i, &g) == 0 &&
		    memcmp(g.raw, gid, 16) == 0)
			return (int)i;
	return -1;
}

bool
cm_addr_is_any(const struct roce_cm_addr *a)
{
	static const uint8_t zero[16];

	return memcmp(a->gid.raw, zero, 16) == 0;
}

struct roce_cm_listener *
cm_find_listener(struct roce_cm *cm, uint64_t sid,
		 const struct roce_cm_addr *dst)
{
	uint16_t port = (uint16_t)sid, ps = (uint16_t)(sid >> 16);
	struct roce_cm_listener *any = NULL;
	uint32_t i;

	for (i = 0; i < cm->cfg.max_listeners; i++) {
		struct roce_cm_listener *l = &cm->listeners[i];

		if (!l->in_use || l->ps != ps || l->addr.port != port)
			continue;
		if (cm_addr_is_any(&l->addr))
			any = l;
		else if (memcmp(l->addr.gid.raw, dst->gid.raw, 16) == 0)
			return l;
	}
	return any;
}

/*
 * A duplicate REQ while the application has not answered (IBTA 12.9.8.3.1):
 * ask for patience with an MRA, again for each copy.
 */
enum cm_out
cm_step_req_mra(struct cm_ctx *c)
{
	cm_send_mra(c->cm, c->id, ROCE_CM_MSG_REQ);
	return CM_OUT_NEXT;
}

/*
 * Keep @p rx (a REQ that found no listener) until a listener comes or
 * CM_HOLD_MS pass (cm_held_poll()); a retransmission of a held REQ is
 * dropped. False when there is no room: the caller rejects it now.
 */
static bool
cm_hold_req(struct roce_cm *cm, const struct roce_mad_rx *rx,
	    uint32_t comm_id, uint64_t now)
{
	struct cm_held_req *free_h = NULL;
	struct roce_cm_req r;
	uint32_t i;

	for (i = 0; i < CM_HOLD_MAX; i++) {
		struct cm_held_req *h = &cm->held[i];

		if (!h->in_use) {
			if (free_h == NULL)
				free_h = h;
			continue;
		}
		roce_cm_req_unpack(&h->rx.mad, &r);
		if (r.local_comm_id == comm_id &&
		    memcmp(h->rx.addr.remote_gid, rx->addr.remote_gid, 16) == 0)
			return true;	/* its retransmission: held already */
	}
	if (free_h == NULL)
		return false;
	free_h->in_use = true;
	free_h->deadline = now + cm->cfg.hz / 1000 * CM_HOLD_MS;
	free_h->rx = *rx;
	cm->nb_held++;
	cm->cnt[CM_CNT_REQ_HELD]++;
	return true;
}

static void cm_rx_req_hold(struct roce_cm *cm, const struct roce_mad_rx *rx,
			   uint64_t now, bool may_hold);

static void
cm_rx_req(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	cm_rx_req_hold(cm, rx, now, true);
}

/* The held REQs whose listener came, or whose time is up, go on now. */
static unsigned int
cm_held_poll(struct roce_cm *cm, uint64_t now)
{
	struct roce_cm_addr src, dst;
	struct roce_cm_req r;
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; cm->nb_held != 0 && i < CM_HOLD_MAX; i++) {
		struct cm_held_req *h = &cm->held[i];
		struct roce_mad_rx rx;

		if (!h->in_use)
			continue;
		roce_cm_req_unpack(&h->rx.mad, &r);
		if (now < h->deadline &&
		    (roce_cm_ip_hdr_unpack(r.private_data, &src, &dst) != 0 ||
		     (dst.port = (uint16_t)r.service_id,
		      cm_find_listener(cm, r.service_id, &dst) == NULL)))
			continue;
		rx = h->rx;
		h->in_use = false;
		cm->nb_held--;
		cm_rx_req_hold(cm, &rx, now, false);
		n++;
	}
	return n;
}

/* What the checks of a new REQ found, for cm_step_req_new(). */
struct cm_req_new {
	struct roce_cm_listener *l;
	struct roce_cm_addr src, dst;
	int sgid;
};

static void
cm_rx_req_hold(struct roce_cm *cm, const struct roce_mad_rx *rx,
	       uint64_t now, bool may_hold)
{
	uint64_t tid = roce_mad_tid(roce_mad_hdr_c(&rx->mad));
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct cm_req_new nr;
	struct roce_cm_id *id, *old;
	struct roce_cm_req req;
	uint16_t reason;

	roce_cm_req_unpack(&rx->mad, &req);
	c.msg = &req;
	id = cm_hk_find(cm, HK_RCID, req.local_comm_id, rx->addr.remote_gid);
	if (id != NULL) {
		c.id = id;
		cm_fsm_apply(&c, CM_IN_RX_REQ);
		return;
	}
	/* IBTA 12.9.8.3.2: a REQ from a QP we are still connected to */
	old = cm_hk_find(cm, HK_RQPN, req.local_qpn, rx->addr.remote_gid);
	if (old != NULL) {
		cm->cnt[CM_CNT_REQ_STALE]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_STALE_CONN);
		c.id = old;
		cm_fsm_apply(&c, CM_IN_RX_REQ_STALE);
		return;
	}
	reason = 0;
	nr.sgid = cm_sgid_index(cm, req.primary.remote_gid);
	if (req.transport != ROCE_CM_TRANSPORT_RC &&
	    req.transport != ROCE_CM_TRANSPORT_UC)
		reason = ROCE_CM_REJ_INVALID_TRANSPORT_TYPE;
	else if (roce_mtu_bytes((enum roce_mtu)req.path_mtu) == 0)
		reason = ROCE_CM_REJ_INVALID_MTU;
	else if (nr.sgid < 0)
		reason = ROCE_CM_REJ_INVALID_GID;
	if (reason != 0) {
		cm->cnt[CM_CNT_REQ_INVALID]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, reason);
		return;
	}
	nr.l = NULL;
	if (roce_cm_service_is_ip(req.service_id) &&
	    roce_cm_ip_hdr_unpack(req.private_data, &nr.src, &nr.dst) == 0) {
		nr.dst.port = (uint16_t)req.service_id;
		nr.l = cm_find_listener(cm, req.service_id, &nr.dst);
		/* the UDP port space takes SIDR requests only */
		if (nr.l != NULL && nr.l->ps == ROCE_CM_PS_UDP)
			nr.l = NULL;
	}
	if (nr.l == NULL && may_hold &&
	    cm_hold_req(cm, rx, req.local_comm_id, now))
		return;
	if (nr.l == NULL) {
		cm->cnt[CM_CNT_REQ_NO_LISTENER]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (nr.l->pending >= nr.l->backlog) {
		cm->cnt[CM_CNT_REQ_BACKLOG]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	id = cm_ev_room(cm) ? cm_id_alloc(cm) : NULL;
	if (id == NULL) {
		cm->cnt[CM_CNT_REQ_NO_ID]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	c.id = id;
	c.arg = &nr;
	cm_fsm_apply(&c, CM_IN_RX_REQ);
}

/* A new REQ in a new id: the connection's parameters, CONNECT_REQUEST. */
enum cm_out
cm_step_req_new(struct cm_ctx *c)
{
	const struct roce_cm_req *req = c->msg;
	const struct cm_req_new *nr = c->arg;
	const struct roce_mad_rx *rx = c->rx;
	struct roce_cm_listener *l = nr->l;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_event *ev;

	id->active = false;
	id->tid = roce_mad_tid(roce_mad_hdr_c(&rx->mad));
	id->service_id = req->service_id;
	id->remote_comm_id = req->local_comm_id;
	id->remote_ca_guid = req->local_ca_guid;
	id->remote_qpn = req->local_qpn;
	/*
	 * Linux's convention (ib_cm: cm_req_handler() sq_psn, ib_send_cm_req()
	 * rq_psn): a Starting PSN is the PSN its sender expects to receive,
	 * so the REQ's is our send PSN (doc/guides/cm.rst, "rdma_cm interop").
	 */
	id->sq_psn = req->starting_psn;
	id->mtu = (uint8_t)RTE_MIN(req->path_mtu, (uint8_t)cm->cfg.max_mtu);
	id->peer_resp_res = req->responder_resources;
	id->peer_init_depth = req->initiator_depth;
	id->retry_count = req->retry_count;
	id->rnr_retry = req->rnr_retry_count;
	id->local_ack_timeout = req->primary.local_ack_timeout;
	/* the active side answers our REP within its local response time */
	id->peer_cm_timeout = req->local_cm_response_timeout;
	id->max_cm_retries = req->max_cm_retries;
	id->traffic_class = req->primary.traffic_class;
	id->hop_limit = req->primary.hop_limit;
	id->flow_label = req->primary.flow_label;
	id->sgid_index = (uint8_t)nr->sgid;
	id->qp_type = req->transport == ROCE_CM_TRANSPORT_RC ? ROCE_QPT_RC :
		ROCE_QPT_UC;
	/* a softernic peer offering selective repeat (Linux sends 0) */
	id->sr_offer = id->qp_type == ROCE_QPT_RC &&
		(req->vendor_id & ROCE_CM_VENDOR_MASK) ==
		ROCE_CM_VENDOR_SOFTERNIC &&
		(req->vendor_id & ROCE_CM_VENDOR_REP) == 0 &&
		(req->vendor_id & ROCE_CM_VENDOR_CAP_SR) != 0;
	id->sr = false;
	id->addr = rx->addr;
	/* address the connection's MADs and QP path as the REQ's path says */
	memcpy(id->addr.local_gid, req->primary.remote_gid, 16);
	memcpy(id->addr.remote_gid, rx->addr.remote_gid, 16);
	id->addr.remote_qpn = ROCE_GSI_QPN;
	id->remote = nr->src;
	id->local = nr->dst;
	id->listener = l;
	id->pending = true;
	id->context = l->context;
	l->pending++;
	cm_hk_insert(cm, id, HK_RCID);
	cm_hk_insert(cm, id, HK_RQPN);
	ev = cm_ev_push(cm, id, ROCE_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		ev->listener = l;
		cm_ev_private(ev, req->private_data + ROCE_CM_IP_HDR_LEN,
			      ROCE_CM_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN);
	}
	return CM_OUT_NEXT;
}

/* A DREQ for no connection (Linux cm_issue_drep): a DREP all the same. */
static void
cm_dreq_unknown(struct roce_cm *cm, const struct roce_mad_rx *rx,
		const struct roce_cm_dreq *dreq)
{
	cm->cnt[CM_CNT_RX_UNKNOWN_ID]++;
	/* so that the peer leaves DREQ_SENT */
	cm_send_drep(cm, &rx->addr, roce_mad_tid(roce_mad_hdr_c(&rx->mad)),
		     dreq->remote_comm_id, dreq->local_comm_id);
}

void
cm_rx_unknown(struct cm_ctx *c, enum cm_input in)
{
	struct roce_cm *cm = c->cm;

	switch (in) {
	case CM_IN_RX_DREQ:
		cm_dreq_unknown(cm, c->rx, c->msg);
		break;
	case CM_IN_RX_SIDR_REP:
		cm->cnt[CM_CNT_RX_UNKNOWN_ID]++;
		break;
	default:
		cm->cnt[c->rx != NULL && c->rx->dup ? CM_CNT_RX_DUP :
			CM_CNT_RX_UNKNOWN_ID]++;
		break;
	}
}

/*
 * The id a reply names (its remote comm ID is our local one), checked: an
 * idle id has no connection, its messages are unknown.
 */
static struct roce_cm_id *
cm_reply_id(struct cm_ctx *c, enum cm_input in, uint32_t our_id,
	    uint32_t their_id, bool their_id_known)
{
	struct roce_cm_id *id = cm_id_by_comm_id(c->cm, our_id);

	if (id == NULL || id->state == ROCE_CM_IDLE) {
		cm_rx_unknown(c, in);
		return NULL;
	}
	if (memcmp(id->addr.remote_gid, c->rx->addr.remote_gid, 16) != 0 ||
	    (their_id_known && id->remote_comm_id != 0 &&
	     their_id != id->remote_comm_id)) {
		c->cm->cnt[CM_CNT_RX_BAD_SOURCE]++;
		return NULL;
	}
	return id;
}

static void
cm_rx_rep(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_rep rep;

	roce_cm_rep_unpack(&rx->mad, &rep);
	c.msg = &rep;
	c.id = cm_reply_id(&c, CM_IN_RX_REP, rep.remote_comm_id,
			   rep.local_comm_id, true);
	if (c.id != NULL)
		cm_fsm_apply(&c, CM_IN_RX_REP);
}

/* The REP of our REQ: the QP to RTR and RTS, the RTU (IBTA 12.9.5.1). */
enum cm_out
cm_step_rep(struct cm_ctx *c)
{
	const struct roce_cm_rep *rep = c->msg;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_event *ev;
	int ret;

	cm_cancel_send(cm, id);
	id->remote_comm_id = rep->local_comm_id;
	id->remote_ca_guid = rep->local_ca_guid;
	id->remote_qpn = rep->local_qpn;
	id->sq_psn = rep->starting_psn;	/* Linux: the REP's is our send PSN */
	id->peer_resp_res = rep->responder_resources;
	id->peer_init_depth = rep->initiator_depth;
	/* we issue at most what the peer grants (IBTA 12.7.29) */
	id->init_depth = RTE_MIN(id->init_depth, rep->responder_resources);
	/* the REP's RNR retry count is for the REQ sender (IBTA 12.7.37) */
	id->rnr_retry = rep->rnr_retry_count;
	/*
	 * selective repeat: we offered it and a softernic peer accepted
	 * (Linux's rdma_cm echoes our REQ's Vendor ID: no REP bit)
	 */
	id->sr = id->sr_offer &&
		(rep->vendor_id & ROCE_CM_VENDOR_MASK) ==
		ROCE_CM_VENDOR_SOFTERNIC &&
		(rep->vendor_id & ROCE_CM_VENDOR_REP) != 0 &&
		(rep->vendor_id & ROCE_CM_VENDOR_CAP_SR) != 0;
	cm_hk_insert(cm, id, HK_RQPN);
	ret = cm_qp_to_rts(cm, id);
	if (ret != 0) {
		cm_rej_id(cm, id, ROCE_CM_MSG_REP,
			  ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		cm_qp_to_err(cm, id);
		cm_ev_simple(cm, id, ROCE_CM_EVENT_CONNECT_ERROR, ret);
		return CM_OUT_ALT;
	}
	cm_send_rtu(cm, id);
	cm->cnt[CM_CNT_ESTABLISHED]++;
	ev = cm_ev_push(cm, id, ROCE_CM_EVENT_ESTABLISHED);
	cm_ev_private(ev, rep->private_data, ROCE_CM_REP_PRIVATE);
	return CM_OUT_NEXT;
}

/* Established, the REP again: our RTU was lost (IBTA 12.9.8.3.1). */
enum cm_out
cm_step_rep_rtu(struct cm_ctx *c)
{
	cm_send_rtu(c->cm, c->id);
	return CM_OUT_NEXT;
}

static void
cm_rx_rtu(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_rtu rtu;

	roce_cm_rtu_unpack(&rx->mad, &rtu);
	c.msg = &rtu;
	c.id = cm_reply_id(&c, CM_IN_RX_RTU, rtu.remote_comm_id,
			   rtu.local_comm_id, true);
	if (c.id != NULL)
		cm_fsm_apply(&c, CM_IN_RX_RTU);
}

enum cm_out
cm_step_rtu(struct cm_ctx *c)
{
	cm_cancel_send(c->cm, c->id);
	c->cm->cnt[CM_CNT_ESTABLISHED]++;
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_ESTABLISHED, 0);
	return CM_OUT_NEXT;
}

static void
cm_rx_mra(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_mra mra;
	enum cm_input in;

	roce_cm_mra_unpack(&rx->mad, &mra);
	c.msg = &mra;
	in = mra.msg_mraed == ROCE_CM_MSG_REQ ? CM_IN_RX_MRA_REQ :
		mra.msg_mraed == ROCE_CM_MSG_REP ? CM_IN_RX_MRA_REP :
		CM_IN_RX_MRA_OTHER;
	c.id = cm_reply_id(&c, in, mra.remote_comm_id, mra.local_comm_id,
			   true);
	if (c.id != NULL)
		cm_fsm_apply(&c, in);
}

/* IBTA 12.6.6: wait the service timeout plus the round trip. */
enum cm_out
cm_step_mra(struct cm_ctx *c)
{
	const struct roce_cm_mra *mra = c->msg;
	struct roce_cm *cm = c->cm;

	if (c->id->send != NULL)
		roce_mad_send_extend(cm->agent, c->id->send,
				     cm_ticks(cm, mra->service_timeout) +
				     2 * cm_ticks(cm, cm->cfg.packet_life_time),
				     c->now);
	return CM_OUT_NEXT;
}

static void
cm_rx_rej(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_rej rej;

	roce_cm_rej_unpack(&rx->mad, &rej);
	c.msg = &rej;
	/*
	 * The active side gives up its REQ before it knew our comm ID (REJ
	 * Timeout of a disconnect or a REQ timeout, remote comm ID 0): the
	 * request is found as its duplicates are, by the peer's comm ID
	 */
	if (rej.remote_comm_id == 0 && rej.msg_rejected == ROCE_CM_MSG_REQ)
		c.id = cm_hk_find(cm, HK_RCID, rej.local_comm_id,
				  rx->addr.remote_gid);
	/* a REJ of our REQ may come before the peer has a comm ID: 0 */
	if (c.id == NULL)
		c.id = cm_reply_id(&c, CM_IN_RX_REJ, rej.remote_comm_id,
				   rej.local_comm_id, rej.local_comm_id != 0);
	if (c.id != NULL)
		cm_fsm_apply(&c, CM_IN_RX_REJ);
}

/* The QP stops, the application learns the reason and private data. */
static void
cm_rej_report(struct cm_ctx *c, enum roce_cm_event_type type)
{
	const struct roce_cm_rej *rej = c->msg;
	struct roce_cm *cm = c->cm;
	struct roce_cm_event *ev;

	cm_cancel_send(cm, c->id);
	cm_qp_to_err(cm, c->id);
	if (type == ROCE_CM_EVENT_DISCONNECTED)
		cm->cnt[CM_CNT_DISCONNECTED]++;
	ev = cm_ev_push(cm, c->id, type);
	if (ev != NULL) {
		ev->rej_reason = rej->reason;
		ev->status = -ECONNREFUSED;
		cm_ev_private(ev, rej->private_data, ROCE_CM_REJ_PRIVATE);
	}
}

/*
 * Our REQ rejected, or the peer's REQ given up before we answered: idle
 * again (Linux cm_rej_handler), but for Stale Connection (the peer still
 * holds our QPN): timewait.
 */
enum cm_out
cm_step_rej_req(struct cm_ctx *c)
{
	const struct roce_cm_rej *rej = c->msg;

	cm_rej_report(c, ROCE_CM_EVENT_REJECTED);
	return rej->reason == ROCE_CM_REJ_STALE_CONN ? CM_OUT_ALT :
		CM_OUT_NEXT;
}

/* Our REP rejected: timewait. */
enum cm_out
cm_step_rej_rep(struct cm_ctx *c)
{
	cm_rej_report(c, ROCE_CM_EVENT_REJECTED);
	return CM_OUT_NEXT;
}

/* A REJ on an established connection ends it. */
enum cm_out
cm_step_rej_est(struct cm_ctx *c)
{
	cm_rej_report(c, ROCE_CM_EVENT_DISCONNECTED);
	return CM_OUT_NEXT;
}

static void
cm_rx_dreq(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_dreq dreq;
	struct roce_cm_id *id;

	roce_cm_dreq_unpack(&rx->mad, &dreq);
	c.msg = &dreq;
	id = cm_id_by_comm_id(cm, dreq.remote_comm_id);
	if (id == NULL || id->state == ROCE_CM_IDLE ||
	    memcmp(id->addr.remote_gid, rx->addr.remote_gid, 16) != 0 ||
	    id->remote_comm_id != dreq.local_comm_id) {
		cm_dreq_unknown(cm, rx, &dreq);
		return;
	}
	/* IBTA 12.6.10: the DREQ names our QP */
	if (dreq.remote_qpn != id->local_qpn) {
		cm->cnt[CM_CNT_RX_BAD_SOURCE]++;
		return;
	}
	c.id = id;
	cm_fsm_apply(&c, CM_IN_RX_DREQ);
}

/* The peer disconnects: the QP stops, the DREP goes (IBTA 12.9.7). */
enum cm_out
cm_step_dreq(struct cm_ctx *c)
{
	const struct roce_cm_dreq *dreq = c->msg;
	struct roce_cm_id *id = c->id;
	struct roce_cm *cm = c->cm;
	struct roce_cm_event *ev;

	cm_cancel_send(cm, id);
	cm_qp_to_err(cm, id);
	cm_send_drep(cm, &id->addr, roce_mad_tid(roce_mad_hdr_c(&c->rx->mad)),
		     id->local_comm_id, id->remote_comm_id);
	cm->cnt[CM_CNT_DISCONNECTED]++;
	ev = cm_ev_push(cm, id, ROCE_CM_EVENT_DISCONNECTED);
	if (ev != NULL) {
		ev->by_peer_dreq = true;
		cm_ev_private(ev, dreq->private_data, ROCE_CM_DREQ_PRIVATE);
	}
	return CM_OUT_NEXT;
}

/* In timewait, the DREQ again: our DREP was lost (IBTA 12.9.8.3.1). */
enum cm_out
cm_step_dreq_drep(struct cm_ctx *c)
{
	cm_send_drep(c->cm, &c->id->addr,
		     roce_mad_tid(roce_mad_hdr_c(&c->rx->mad)),
		     c->id->local_comm_id, c->id->remote_comm_id);
	return CM_OUT_NEXT;
}

static void
cm_rx_drep(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct cm_ctx c = { .cm = cm, .now = now, .rx = rx };
	struct roce_cm_drep drep;

	roce_cm_drep_unpack(&rx->mad, &drep);
	c.msg = &drep;
	c.id = cm_reply_id(&c, CM_IN_RX_DREP, drep.remote_comm_id,
			   drep.local_comm_id, true);
	if (c.id != NULL)
		cm_fsm_apply(&c, CM_IN_RX_DREP);
}

enum cm_out
cm_step_drep(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_DISCONNECTED]++;
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_DISCONNECTED, 0);
	return CM_OUT_NEXT;
}

void
roce_cm_rx(struct roce_cm *cm, struct rte_mbuf *m, uint64_t now)
{
	struct roce_mad_rx rx;
	uint16_t attr;

	if (roce_mad_recv(cm->agent, m, now, &rx) != 0)
		return;
	attr = roce_mad_attr_id(roce_mad_hdr_c(&rx.mad));
	if (attr == ROCE_CM_ATTR_SIDR_REQ) {
		cm->cnt[CM_CNT_RX_SIDR_REQ]++;
		cm_rx_sidr_req(cm, &rx, now);
		return;
	}
	if (attr == ROCE_CM_ATTR_SIDR_REP) {
		cm->cnt[CM_CNT_RX_SIDR_REP]++;
		cm_rx_sidr_rep(cm, &rx, now);
		return;
	}
	if (attr < ROCE_CM_ATTR_REQ || attr > ROCE_CM_ATTR_DREP) {
		cm->cnt[CM_CNT_RX_UNSUPPORTED_ATTR]++;
		return;
	}
	cm->cnt[CM_CNT_RX_REQ + (attr - ROCE_CM_ATTR_REQ)]++;
	switch (attr) {
	case ROCE_CM_ATTR_REQ:
		cm_rx_req(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_MRA:
		cm_rx_mra(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_REJ:
		cm_rx_rej(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_REP:
		cm_rx_rep(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_RTU:
		cm_rx_rtu(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_DREQ:
		cm_rx_dreq(cm, &rx, now);
		break;
	default:
		cm_rx_drep(cm, &rx, now);
		break;
	}
}

unsigned int
roce_cm_poll(struct roce_cm *cm, uint64_t now)
{
	return roce_mad_agent_poll(cm->agent, now) +
		roce_timers_run(&cm->timers, now) + cm_held_poll(cm, now);
}

uint64_t
roce_cm_next_deadline(const struct roce_cm *cm)
{
	uint64_t d = RTE_MIN(roce_mad_agent_next(cm->agent),
			     roce_timers_next(&cm->timers));
	uint32_t i;

	for (i = 0; cm->nb_held != 0 && i < CM_HOLD_MAX; i++)
		if (cm->held[i].in_use)
			d = RTE_MIN(d, cm->held[i].deadline);
	return d;
}
