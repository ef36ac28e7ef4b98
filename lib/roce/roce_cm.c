/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IB communication manager over QP1 (roce_cm.h): the ids and their
 * connection hash, the event queue, tracked sends, the QP moves the CM
 * makes, the steps of the timeouts, create/destroy. The state machine is in
 * roce_cm_fsm.c; files: roce_cm_priv.h.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_cm_priv.h"
#include "roce_log.h"
#include "roce_priv.h"

static const char *const cm_state_names[ROCE_CM_STATE_MAX] = {
	"IDLE", "REQ_SENT", "REQ_RCVD", "MRA_REQ_SENT", "MRA_REQ_RCVD",
	"REP_SENT", "REP_RCVD", "MRA_REP_RCVD", "ESTABLISHED", "DREQ_SENT",
	"DREQ_RCVD", "TIMEWAIT", "SIDR_REQ_SENT", "SIDR_REQ_RCVD",
};

const char *
roce_cm_state_name(enum roce_cm_state s)
{
	return (unsigned int)s < ROCE_CM_STATE_MAX ? cm_state_names[s] :
		"UNKNOWN";
}

static const char *const cm_event_names[] = {
	"CONNECT_REQUEST", "ESTABLISHED", "REJECTED", "UNREACHABLE",
	"CONNECT_ERROR", "DISCONNECTED", "TIMEWAIT_EXIT", "SIDR_REQUEST",
	"SIDR_REPLY",
};

const char *
roce_cm_event_name(enum roce_cm_event_type t)
{
	return (unsigned int)t < RTE_DIM(cm_event_names) ?
		cm_event_names[t] : "UNKNOWN";
}

uint64_t
cm_rand(struct roce_cm *cm)
{
	cm->rng ^= cm->rng >> 12;
	cm->rng ^= cm->rng << 25;
	cm->rng ^= cm->rng >> 27;
	return cm->rng * 2685821657736338717ULL;
}

uint64_t
cm_ticks(const struct roce_cm *cm, uint8_t t)
{
	return roce_cm_time_ticks(t, cm->cfg.hz);
}

/* 2 x packet life time + the responder's processing time (IBTA 12.9.2) */
uint64_t
cm_wait_ticks(const struct roce_cm *cm, uint8_t response_timeout)
{
	return 2 * cm_ticks(cm, cm->cfg.packet_life_time) +
		cm_ticks(cm, response_timeout);
}

/* An ephemeral port (49152..65535, in turn). */
uint16_t
cm_next_port(struct roce_cm *cm)
{
	uint16_t port = cm->next_port;

	cm->next_port = port == 65535 ? 49152 : (uint16_t)(port + 1);
	return port;
}

/* The MAD addressing of an active id, from its local and remote address. */
void
cm_addr_init(struct roce_cm *cm, struct roce_cm_id *id, const uint8_t dmac[6])
{
	memset(&id->addr, 0, sizeof(id->addr));
	rte_ether_addr_copy(&cm->cfg.mac, &id->addr.local_mac);
	memcpy(id->addr.remote_mac.addr_bytes, dmac, RTE_ETHER_ADDR_LEN);
	memcpy(id->addr.local_gid, id->local.gid.raw, 16);
	memcpy(id->addr.remote_gid, id->remote.gid.raw, 16);
	id->addr.ip_ver = id->local.ip_ver;
	id->addr.ttl = 64;
	id->addr.udp_sport = (uint16_t)(0xc000 | (cm_rand(cm) & 0x3fff));
	id->addr.pkey = ROCE_DEFAULT_PKEY;
	id->addr.remote_qpn = ROCE_GSI_QPN;
}

/* ---- connection hash (open addressing, linear probing) ---- */

static uint32_t
cm_hk_hash(unsigned int kind, uint32_t val, const uint8_t gid[16])
{
	uint64_t h = ((uint64_t)val << 1 | kind) * 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 31));
}

static uint32_t
cm_hk_val(const struct roce_cm_id *id, unsigned int kind)
{
	return kind == HK_RCID ? id->remote_comm_id : id->remote_qpn;
}

struct roce_cm_id *
cm_hk_find(struct roce_cm *cm, unsigned int kind, uint32_t val,
	const uint8_t gid[16])
{
	uint32_t i = cm_hk_hash(kind, val, gid) & cm->hmask, e;

	while ((e = cm->htab[i]) != 0) {
		struct roce_cm_id *id = &cm->ids[(e >> 1) - 1];

		if ((e & 1) == kind && cm_hk_val(id, kind) == val &&
		    memcmp(id->addr.remote_gid, gid, 16) == 0)
			return id;
		i = (i + 1) & cm->hmask;
	}
	return NULL;
}

void
cm_hk_insert(struct roce_cm *cm, struct roce_cm_id *id, unsigned int kind)
{
	uint32_t i;

	if (id->hslot[kind] != 0)
		return;
	i = cm_hk_hash(kind, cm_hk_val(id, kind), id->addr.remote_gid) & cm->hmask;
	while (cm->htab[i] != 0)
		i = (i + 1) & cm->hmask;
	cm->htab[i] = (id->idx + 1) << 1 | kind;
	id->hslot[kind] = i + 1;
}

static void
cm_hk_remove(struct roce_cm *cm, struct roce_cm_id *id, unsigned int kind)
{
	uint32_t i, j, k, e;

	if (id->hslot[kind] == 0)
		return;
	i = id->hslot[kind] - 1;
	id->hslot[kind] = 0;
	cm->htab[i] = 0;
	j = i;
	for (;;) {
		struct roce_cm_id *o;

		j = (j + 1) & cm->hmask;
		e = cm->htab[j];
		if (e == 0)
			break;
		o = &cm->ids[(e >> 1) - 1];
		k = cm_hk_hash(e & 1, cm_hk_val(o, e & 1), o->addr.remote_gid) &
			cm->hmask;
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && (k <= i && k > j))) {
			cm->htab[i] = e;
			o->hslot[e & 1] = i + 1;
			cm->htab[j] = 0;
			i = j;
		}
	}
}

void
cm_hk_remove_all(struct roce_cm *cm, struct roce_cm_id *id)
{
	unsigned int k;

	for (k = 0; k < HK_MAX; k++)
		cm_hk_remove(cm, id, k);
}

/* ---- ids ---- */

struct roce_cm_id *
cm_id_by_comm_id(struct roce_cm *cm, uint32_t comm_id)
{
	uint32_t x = comm_id ^ cm->salt;
	uint32_t idx = x & 0xffff;
	struct roce_cm_id *id;

	if (idx >= cm->cfg.max_ids)
		return NULL;
	id = &cm->ids[idx];
	if (!id->in_use || id->local_comm_id != comm_id)
		return NULL;
	return id;
}

struct roce_cm_id *
cm_id_alloc(struct roce_cm *cm)
{
	struct roce_cm_id *id;
	uint32_t idx;
	uint16_t gen;

	if (cm->nb_free == 0)
		return NULL;
	idx = cm->free_ids[--cm->nb_free];
	id = &cm->ids[idx];
	gen = id->gen;
	memset(id, 0, sizeof(*id));
	id->cm = cm;
	id->idx = idx;
	/* a new generation per use: stale comm IDs never match (12.9.8.3) */
	gen = (uint16_t)(gen + 1);
	if (gen == 0)
		gen = 1;
	id->gen = gen;
	id->local_comm_id = ((uint32_t)gen << 16 | idx) ^ cm->salt;
	if (id->local_comm_id == 0) {	/* 0 means "none" in a REJ */
		id->gen = (uint16_t)(gen + 1 == 0 ? 1 : gen + 1);
		id->local_comm_id = ((uint32_t)id->gen << 16 | idx) ^ cm->salt;
	}
	id->in_use = true;
	id->state = ROCE_CM_IDLE;
	roce_timer_init(&id->tw_timer, cm_timewait_cb, id);
	return id;
}

void
cm_id_unpend(struct roce_cm_id *id)
{
	if (id->pending) {
		id->pending = false;
		if (id->listener != NULL && id->listener->pending > 0)
			id->listener->pending--;
	}
}

void
cm_id_free(struct roce_cm *cm, struct roce_cm_id *id)
{
	if (!id->in_use)
		return;
	cm_hk_remove_all(cm, id);
	roce_timer_cancel(&cm->timers, &id->tw_timer);
	if (id->send != NULL) {
		roce_mad_send_cancel(cm->agent, id->send);
		id->send = NULL;
	}
	cm_id_unpend(id);
	id->qp = NULL;
	id->in_use = false;
	cm->free_ids[cm->nb_free++] = id->idx;
}

struct roce_cm_event *
cm_ev_push(struct roce_cm *cm, struct roce_cm_id *id,
	enum roce_cm_event_type type)
{
	struct roce_cm_event *ev;

	if (id != NULL && id->orphan)
		return NULL;
	if (cm->ev_tail - cm->ev_head > cm->ev_mask) {
		cm->cnt[CM_CNT_EV_DROPPED]++;
		return NULL;
	}
	ev = &cm->ev[cm->ev_tail++ & cm->ev_mask];
	memset(ev, 0, offsetof(struct roce_cm_event, private_data));
	ev->type = type;
	ev->id = id;
	if (id != NULL) {
		ev->context = id->context;
		ev->local = id->local;
		ev->remote = id->remote;
		ev->remote_qpn = id->remote_qpn;
		ev->responder_resources = id->peer_resp_res;
		ev->initiator_depth = id->peer_init_depth;
	}
	return ev;
}

bool
cm_ev_room(const struct roce_cm *cm)
{
	return cm->ev_tail - cm->ev_head <= cm->ev_mask;
}

void
cm_ev_simple(struct roce_cm *cm, struct roce_cm_id *id,
	  enum roce_cm_event_type type, int status)
{
	struct roce_cm_event *ev = cm_ev_push(cm, id, type);

	if (ev != NULL)
		ev->status = status;
}

void
cm_ev_private(struct roce_cm_event *ev, const uint8_t *pd, unsigned int len)
{
	if (ev == NULL)
		return;
	len = RTE_MIN(len, sizeof(ev->private_data));
	memcpy(ev->private_data, pd, len);
	ev->private_data_len = (uint8_t)len;
}

/* ---- sends ---- */

static void
cm_count_tx(struct roce_cm *cm, const struct roce_mad *mad)
{
	uint16_t attr = roce_mad_attr_id(roce_mad_hdr_c(mad));

	if (attr >= ROCE_CM_ATTR_REQ && attr <= ROCE_CM_ATTR_DREP)
		cm->cnt[CM_CNT_TX_REQ + (attr - ROCE_CM_ATTR_REQ)]++;
	else if (attr == ROCE_CM_ATTR_SIDR_REQ)
		cm->cnt[CM_CNT_TX_SIDR_REQ]++;
	else if (attr == ROCE_CM_ATTR_SIDR_REP)
		cm->cnt[CM_CNT_TX_SIDR_REP]++;
}

void
cm_send(struct roce_cm *cm, const struct roce_mad *mad,
	const struct roce_mad_addr *addr)
{
	cm_count_tx(cm, mad);
	roce_mad_send(cm->agent, mad, addr);
}

/* The input of the machine when a tracked message goes unanswered. */
static enum cm_input
cm_timeout_input(uint16_t attr)
{
	switch (attr) {
	case ROCE_CM_ATTR_REQ:
		return CM_IN_TIMEOUT_REQ;
	case ROCE_CM_ATTR_REP:
		return CM_IN_TIMEOUT_REP;
	case ROCE_CM_ATTR_DREQ:
		return CM_IN_TIMEOUT_DREQ;
	default:	/* SIDR_REQ: the only other message that waits */
		return CM_IN_TIMEOUT_SIDR_REQ;
	}
}

/* Send and wait for the answer; the id's previous send is dropped. */
int
cm_send_tracked(struct roce_cm *cm, struct roce_cm_id *id,
		const struct roce_mad *mad, uint64_t timeout, uint64_t now)
{
	if (id->send != NULL)
		roce_mad_send_cancel(cm->agent, id->send);
	cm_count_tx(cm, mad);
	id->send_timeout = (uint8_t)cm_timeout_input(
		roce_mad_attr_id(roce_mad_hdr_c(mad)));
	id->send = roce_mad_send_tracked(cm->agent, mad, &id->addr, timeout,
					 id->max_cm_retries, id, now);
	return id->send != NULL ? 0 : -rte_errno;
}

void
cm_cancel_send(struct roce_cm *cm, struct roce_cm_id *id)
{
	if (id->send != NULL) {
		roce_mad_send_cancel(cm->agent, id->send);
		id->send = NULL;
	}
}

/* A REJ to the sender of @p rx_mad that has no id here (IBTA 12.6.7). */
void
cm_rej_to(struct roce_cm *cm, const struct roce_mad_addr *addr, uint64_t tid,
	  uint32_t local_comm_id, uint32_t remote_comm_id, uint8_t msg,
	  uint16_t reason)
{
	struct roce_cm_rej rej;
	struct roce_mad mad;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = local_comm_id;
	rej.remote_comm_id = remote_comm_id;
	rej.msg_rejected = msg;
	rej.reason = reason;
	roce_cm_rej_pack(&mad, tid, &rej);
	cm_send(cm, &mad, addr);
}

void
cm_rej_id(struct roce_cm *cm, struct roce_cm_id *id, uint8_t msg,
	  uint16_t reason, const void *pd, uint8_t len)
{
	struct roce_cm_rej rej;
	struct roce_mad mad;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = id->local_comm_id;
	rej.remote_comm_id = id->remote_comm_id;
	rej.msg_rejected = msg;
	rej.reason = reason;
	if (reason == ROCE_CM_REJ_TIMEOUT) {
		/* IBTA 12.6.7.2 table 112: the ARI of Timeout is our CA GUID */
		rej.ari_len = 8;
		uint64_t guid = rte_cpu_to_be_64(cm->cfg.ca_guid);

		memcpy(rej.ari, &guid, sizeof(guid));
	}
	if (pd != NULL && len != 0)
		memcpy(rej.private_data, pd,
		       RTE_MIN(len, (uint8_t)ROCE_CM_REJ_PRIVATE));
	roce_cm_rej_pack(&mad, id->tid, &rej);
	cm_send(cm, &mad, &id->addr);
}

void
cm_send_rtu(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_cm_rtu rtu;
	struct roce_mad mad;

	memset(&rtu, 0, sizeof(rtu));
	rtu.local_comm_id = id->local_comm_id;
	rtu.remote_comm_id = id->remote_comm_id;
	roce_cm_rtu_pack(&mad, id->tid, &rtu);
	cm_send(cm, &mad, &id->addr);
}

void
cm_send_mra(struct roce_cm *cm, struct roce_cm_id *id, uint8_t msg)
{
	struct roce_cm_mra mra;
	struct roce_mad mad;

	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = id->local_comm_id;
	mra.remote_comm_id = id->remote_comm_id;
	mra.msg_mraed = msg;
	mra.service_timeout = cm->cfg.mra_service_timeout;
	roce_cm_mra_pack(&mad, id->tid, &mra);
	cm_send(cm, &mad, &id->addr);
}

void
cm_send_drep(struct roce_cm *cm, const struct roce_mad_addr *addr,
	     uint64_t tid, uint32_t local_comm_id, uint32_t remote_comm_id)
{
	struct roce_cm_drep drep;
	struct roce_mad mad;

	memset(&drep, 0, sizeof(drep));
	drep.local_comm_id = local_comm_id;
	drep.remote_comm_id = remote_comm_id;
	roce_cm_drep_pack(&mad, tid, &drep);
	cm_send(cm, &mad, addr);
}

/* ---- QP transitions driven by the CM ---- */

static int
cm_qp_modify(struct roce_cm *cm, struct roce_qp *qp, struct roce_qp_attr *a,
	  int mask)
{
	int ret = roce_modify_qp(qp, a, mask);

	if (ret != 0) {
		cm->cnt[CM_CNT_QP_MODIFY_ERR]++;
		ROCE_LOG(NOTICE, cm, "QP %u: modify to %d failed: %d",
			 roce_qp_num(qp), a->qp_state, ret);
	}
	return ret;
}

int
cm_qp_to_init(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	int ret;

	ret = roce_query_qp(id->qp, &a, &ia);
	if (ret != 0)
		return ret;
	if (a.qp_state == ROCE_QPS_INIT)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = id->access;
	return cm_qp_modify(cm, id->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			 ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
}

/* INIT -> RTR -> RTS with the negotiated attributes (IBTA 12.7, 12.8). */
int
cm_qp_to_rts(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	bool rc = id->qp_type == ROCE_QPT_RC;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	memcpy(a.ah_attr.dgid.raw, id->addr.remote_gid, 16);
	rte_ether_addr_copy(&id->addr.remote_mac,
			    (struct rte_ether_addr *)a.ah_attr.dmac);
	a.ah_attr.sgid_index = id->sgid_index;
	a.ah_attr.hop_limit = id->hop_limit != 0 ? id->hop_limit : 64;
	a.ah_attr.traffic_class = id->traffic_class;
	a.ah_attr.flow_label = id->flow_label;
	a.ah_attr.port_num = 1;
	a.path_mtu = id->mtu;
	a.dest_qp_num = id->remote_qpn;
	a.rq_psn = id->rq_psn;
	mask = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
	       ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = id->resp_res;
		a.min_rnr_timer = id->min_rnr_timer;
		mask |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	}
	ret = cm_qp_modify(cm, id->qp, &a, mask);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = id->sq_psn;
	mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
	if (rc) {
		a.timeout = id->local_ack_timeout;
		a.retry_cnt = id->retry_count;
		a.rnr_retry = id->rnr_retry;
		a.max_rd_atomic = id->init_depth;
		mask |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC;
		if (id->sr) {	/* both ends agreed (roce_cm_conn_param) */
			a.selective_repeat = 1;
			mask |= ROCE_QP_SELECTIVE_REPEAT;
		}
	}
	return cm_qp_modify(cm, id->qp, &a, mask);
}

/* Disconnect, reject, timeout: the QP goes to ERR and flushes (IBTA 12.9.7). */
void
cm_qp_to_err(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (id->qp == NULL || roce_query_qp(id->qp, &a, &ia) != 0 ||
	    a.qp_state == ROCE_QPS_RESET || a.qp_state == ROCE_QPS_ERR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_ERR;
	cm_qp_modify(cm, id->qp, &a, ROCE_QP_STATE);
}

/* ---- steps of the timeouts (IBTA 12.9.2; table in roce_cm_fsm.c) ---- */

/* Our REQ got no answer after every retry: REJ Timeout, UNREACHABLE. */
enum cm_out
cm_step_req_timeout(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_TIMEOUT_REQ]++;
	cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_TIMEOUT, NULL, 0);
	cm_qp_to_err(c->cm, c->id);
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
	return CM_OUT_NEXT;
}

/* Our REP got no RTU after every retry: REJ Timeout, UNREACHABLE. */
enum cm_out
cm_step_rep_timeout(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_TIMEOUT_REP]++;
	cm_rej_id(c->cm, c->id, ROCE_CM_MSG_REP, ROCE_CM_REJ_TIMEOUT, NULL, 0);
	cm_qp_to_err(c->cm, c->id);
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
	return CM_OUT_NEXT;
}

/* IBTA 12.9.7: no DREP, the connection is over all the same. */
enum cm_out
cm_step_dreq_timeout(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_TIMEOUT_DREQ]++;
	c->cm->cnt[CM_CNT_DISCONNECTED]++;
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_DISCONNECTED, -ETIMEDOUT);
	return CM_OUT_NEXT;
}

enum cm_out
cm_step_timewait_exit(struct cm_ctx *c)
{
	c->cm->cnt[CM_CNT_TIMEWAIT_EXIT]++;
	cm_ev_simple(c->cm, c->id, ROCE_CM_EVENT_TIMEWAIT_EXIT, 0);
	return CM_OUT_NEXT;
}

/* ------------------------------------------------------------------ */
/* Create / destroy                                                   */
/* ------------------------------------------------------------------ */

static uint64_t
eui64_of(const struct rte_ether_addr *mac)
{
	const uint8_t *m = mac->addr_bytes;

	return (uint64_t)(m[0] ^ 0x02) << 56 | (uint64_t)m[1] << 48 |
		(uint64_t)m[2] << 40 | 0xfffeULL << 24 |
		(uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

struct roce_cm *
roce_cm_create(const struct roce_cm_config *cfg)
{
	struct roce_mad_agent_config ac;
	struct roce_cm *cm;
	uint32_t i, hsize, evs;

	if (cfg == NULL || cfg->dev == NULL || cfg->pool == NULL ||
	    cfg->tx == NULL || cfg->hz == 0 || cfg->max_ids > 65536 ||
	    cfg->selective_repeat > ROCE_CM_SR_OFF) {
		rte_errno = EINVAL;
		return NULL;
	}
	cm = rte_zmalloc_socket("roce_cm", sizeof(*cm), RTE_CACHE_LINE_SIZE,
				cfg->socket);
	if (cm == NULL)
		goto nomem;
	cm->cfg = *cfg;
	if (cm->cfg.max_ids == 0)
		cm->cfg.max_ids = 1024;
	if (cm->cfg.max_listeners == 0)
		cm->cfg.max_listeners = 64;
	if (cm->cfg.max_events == 0)
		cm->cfg.max_events = 2 * cm->cfg.max_ids + 64;
	if (cm->cfg.cm_response_timeout == 0)
		cm->cfg.cm_response_timeout = 20;
	if (cm->cfg.max_cm_retries == 0)
		cm->cfg.max_cm_retries = 15;
	if (cm->cfg.packet_life_time == 0)
		cm->cfg.packet_life_time = 16;
	if (cm->cfg.mra_service_timeout == 0)
		cm->cfg.mra_service_timeout = 20;
	if (cm->cfg.max_mtu == 0)
		cm->cfg.max_mtu = ROCE_MTU_1024;
	if (cm->cfg.ca_guid == 0)
		cm->cfg.ca_guid = eui64_of(&cfg->mac);
	cm->cfg.cm_response_timeout &= 0x1f;
	cm->cfg.max_cm_retries &= 0xf;
	cm->rng = cfg->seed != 0 ? cfg->seed : 0x2545f4914f6cdd1dULL;
	cm->rng ^= (uint64_t)cfg->seed << 32;
	if (cm->rng == 0)
		cm->rng = 1;
	cm->salt = (uint32_t)cm_rand(cm);
	cm->next_port = (uint16_t)(49152 + cm_rand(cm) % 16384);

	memset(&ac, 0, sizeof(ac));
	ac.pool = cfg->pool;
	ac.tx = cfg->tx;
	ac.tx_ctx = cfg->tx_ctx;
	ac.timeout_cb = cm_send_timeout;
	ac.cb_ctx = cm;
	ac.hz = cfg->hz;
	ac.max_sends = cm->cfg.max_ids;
	ac.hi_tid = (uint32_t)cm_rand(cm);
	ac.socket = cfg->socket;
	cm->agent = roce_mad_agent_create(&ac);
	if (cm->agent == NULL)
		goto nomem;
	hsize = rte_align32pow2(4 * cm->cfg.max_ids);
	evs = rte_align32pow2(cm->cfg.max_events);
	cm->ids = rte_zmalloc_socket("roce_cm_ids",
				     sizeof(*cm->ids) * cm->cfg.max_ids,
				     RTE_CACHE_LINE_SIZE, cfg->socket);
	cm->free_ids = rte_zmalloc_socket("roce_cm_free",
					  sizeof(uint32_t) * cm->cfg.max_ids,
					  0, cfg->socket);
	cm->listeners = rte_zmalloc_socket("roce_cm_listen",
					   sizeof(*cm->listeners) *
					   cm->cfg.max_listeners, 0,
					   cfg->socket);
	cm->htab = rte_zmalloc_socket("roce_cm_hash", sizeof(uint32_t) * hsize,
				      0, cfg->socket);
	cm->ev = rte_zmalloc_socket("roce_cm_ev", sizeof(*cm->ev) * evs, 0,
				    cfg->socket);
	if (cm->ids == NULL || cm->free_ids == NULL ||
	    cm->listeners == NULL || cm->htab == NULL || cm->ev == NULL ||
	    roce_timers_init(&cm->timers, cm->cfg.max_ids, cfg->socket) != 0)
		goto nomem;
	cm->hmask = hsize - 1;
	cm->ev_mask = evs - 1;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		struct roce_cm_id *id = &cm->ids[i];

		id->cm = cm;
		id->idx = i;
		id->gen = (uint16_t)cm_rand(cm);
		roce_timer_init(&id->tw_timer, cm_timewait_cb, id);
		cm->free_ids[cm->cfg.max_ids - 1 - i] = i;
	}
	cm->nb_free = cm->cfg.max_ids;
	for (i = 0; i < cm->cfg.max_listeners; i++)
		cm->listeners[i].cm = cm;
	return cm;
nomem:
	roce_cm_destroy(cm);
	ROCE_LOG(ERR, cm, "no memory for a CM");
	rte_errno = ENOMEM;
	return NULL;
}

void
roce_cm_destroy(struct roce_cm *cm)
{
	if (cm == NULL)
		return;
	roce_mad_agent_destroy(cm->agent);
	roce_timers_fini(&cm->timers);
	rte_free(cm->ids);
	rte_free(cm->free_ids);
	rte_free(cm->listeners);
	rte_free(cm->htab);
	rte_free(cm->ev);
	rte_free(cm);
}


int
roce_cm_get_event(struct roce_cm *cm, struct roce_cm_event *ev)
{
	if (cm == NULL || ev == NULL || cm->ev_head == cm->ev_tail)
		return 0;
	*ev = cm->ev[cm->ev_head++ & cm->ev_mask];
	return 1;
}

uint32_t
roce_cm_events_withdraw(struct roce_cm_event *q, uint32_t size, uint32_t head,
			uint32_t *tail, const struct roce_cm_id *id,
			const struct roce_cm_listener *l)
{
	uint32_t rd, wr = head;

	for (rd = head; rd != *tail; rd++) {
		const struct roce_cm_event *ev = &q[rd % size];

		if ((id != NULL && ev->id == id) ||
		    (l != NULL && ev->type == ROCE_CM_EVENT_CONNECT_REQUEST &&
		     ev->listener == l))
			continue;
		if (wr != rd)
			q[wr % size] = *ev;
		wr++;
	}
	rd = *tail - wr;
	*tail = wr;
	return rd;
}

uint32_t
cm_ev_withdraw(struct roce_cm *cm, const struct roce_cm_id *id,
	       const struct roce_cm_listener *l)
{
	uint32_t n = roce_cm_events_withdraw(cm->ev, cm->ev_mask + 1,
					     cm->ev_head, &cm->ev_tail, id, l);

	cm->cnt[CM_CNT_EV_WITHDRAWN] += n;
	return n;
}
