/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP error recovery of CM connections, run by the control core
 * (rte_pmd_ernic_cm.h, doc/guides/cm.rst "Error recovery").
 *
 * - Every CM event goes through this module on its way to the application
 *   (ernic_recovery_run moves them from the CM into an application FIFO).
 *   Events of connections being recovered are consumed here; the
 *   application sees QP_ERROR, RECOVERED and RECOVERY_FAILED instead.
 * - Each iteration looks at the QP state of the armed connections: a QP
 *   the engines moved to ERR (fatal error, retry or RNR exhaustion, a NAK
 *   such as remote access error; the engines flushed its work requests)
 *   or a DISCONNECTED from the peer starts a recovery: the old id is
 *   disconnected and released, the QP reset, then
 *   RECONNECT: connect again from the same address and port to the same
 *   listener (new comm ID, fresh random PSNs), with exponential backoff
 *   (a peer still holding the old connection established answers
 *   STALE_CONN and disconnects it, IBTA 12.9.8.3.2; the next attempt gets
 *   through);
 *   ACCEPT: the next CONNECT_REQUEST from the same address and port is
 *   accepted on the same QP without the application.
 * - Everything runs under ctrl.lock (control core iteration or an
 *   application call); nothing here waits for the network.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "roce_cm.h"
#include "roce_driver.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

/** Recoverable connections per port. */
#define REC_MAX 256
/** Events waiting for the application. */
#define REC_EVQ 512

enum rec_state {
	REC_FREE = 0,
	REC_WATCH,		/**< established, QP watched */
	REC_BACKOFF,		/**< RECONNECT: next attempt at deadline */
	REC_CONNECTING,		/**< RECONNECT: REQ out on the new id */
	REC_AWAIT,		/**< ACCEPT: waiting for the peer's REQ */
	REC_ACCEPTING,		/**< ACCEPT: REP out on the new id */
};

struct rec_conn {
	enum rec_state state;
	enum rte_pmd_ernic_cm_recovery_role role;
	struct roce_cm_id *id;
	struct roce_qp *qp;
	void *context;
	struct roce_cm_addr local, remote;
	uint8_t dmac[6];
	struct roce_cm_conn_param param;
	uint8_t pdata[ROCE_CM_REP_PRIVATE];
	uint32_t max_attempts, attempts;
	uint64_t backoff, cur_backoff;	/**< ticks */
	uint64_t await;			/**< ticks */
	uint64_t deadline;
	int last_err;
};

enum rec_cnt {
	REC_CNT_ARMED,
	REC_CNT_QP_ERROR,
	REC_CNT_PEER_DISCONNECT,
	REC_CNT_ATTEMPTS,
	REC_CNT_ATTEMPT_FAILED,
	REC_CNT_AUTO_ACCEPT,
	REC_CNT_RECOVERED,
	REC_CNT_FAILED,
	REC_CNT_QP_RESET_ERR,
	REC_CNT_APP_DISCONNECT,
	REC_CNT_PEER_RECOVERING,
	REC_CNT_ASYNC_FATAL,
	REC_CNT_EV_DROPPED,
	REC_CNT_MAX,
};

static const char *const rec_cnt_names[REC_CNT_MAX] = {
	[REC_CNT_ARMED] = "cm_recovery_armed",
	[REC_CNT_QP_ERROR] = "cm_recovery_qp_errors",
	[REC_CNT_PEER_DISCONNECT] = "cm_recovery_peer_disconnects",
	[REC_CNT_ATTEMPTS] = "cm_recovery_attempts",
	[REC_CNT_ATTEMPT_FAILED] = "cm_recovery_attempts_failed",
	[REC_CNT_AUTO_ACCEPT] = "cm_recovery_auto_accepts",
	[REC_CNT_RECOVERED] = "cm_recovery_recovered",
	[REC_CNT_FAILED] = "cm_recovery_failed",
	[REC_CNT_QP_RESET_ERR] = "cm_recovery_qp_reset_errors",
	[REC_CNT_APP_DISCONNECT] = "cm_recovery_app_disconnects",
	[REC_CNT_PEER_RECOVERING] = "cm_recovery_peer_recovering",
	[REC_CNT_ASYNC_FATAL] = "cm_recovery_async_fatal",
	[REC_CNT_EV_DROPPED] = "cm_recovery_events_dropped",
};

/*
 * Private data of the DREQ a recovery sends on the old connection: the
 * peer's control core tells it from an application's disconnect (whose
 * DREQ, ours or Linux's, carries no such tag).
 */
static const uint8_t rec_dreq_tag[8] = {
	'E', 'R', 'N', 'I', 'C', 'R', 'E', 'C',
};

struct ernic_recovery {
	struct rec_conn conn[REC_MAX];
	uint32_t nb_conn;		/**< entries not FREE */
	struct roce_cm_event *evq;	/**< REC_EVQ events */
	uint32_t ev_head, ev_tail;	/**< free-running */
	uint64_t cnt[REC_CNT_MAX];
};

static inline uint64_t
ms_ticks(uint32_t ms)
{
	return rte_get_tsc_hz() * ms / 1000;
}

/* ------------------------------------------------------------------ */
/* Event FIFO                                                         */
/* ------------------------------------------------------------------ */

static inline bool
evq_full(const struct ernic_recovery *r)
{
	return r->ev_tail - r->ev_head >= REC_EVQ;
}

/* A recovery event for the application (room is reserved by the caller). */
static void
ev_emit(struct ernic_recovery *r, const struct rec_conn *c, uint32_t type,
	struct roce_cm_id *id, int status)
{
	struct roce_cm_event *ev;

	/*
	 * a full FIFO (the application does not take its events): drop the
	 * oldest, counted (cm_recovery_events_dropped)
	 */
	if (evq_full(r)) {
		r->ev_head++;
		r->cnt[REC_CNT_EV_DROPPED]++;
	}
	ev = &r->evq[r->ev_tail++ % REC_EVQ];
	memset(ev, 0, sizeof(*ev));
	ev->type = (enum roce_cm_event_type)type;
	ev->id = id;
	ev->context = c->context;
	ev->status = status;
	ev->local = c->local;
	ev->remote = c->remote;
}

/* ------------------------------------------------------------------ */
/* Recovery steps                                                     */
/* ------------------------------------------------------------------ */

static struct rec_conn *
conn_by_id(struct ernic_recovery *r, const struct roce_cm_id *id)
{
	uint32_t i;

	if (id == NULL || r->nb_conn == 0)
		return NULL;
	for (i = 0; i < REC_MAX; i++)
		if (r->conn[i].state != REC_FREE && r->conn[i].id == id)
			return &r->conn[i];
	return NULL;
}

static void
conn_free(struct ernic_recovery *r, struct rec_conn *c)
{
	c->state = REC_FREE;
	c->id = NULL;
	r->nb_conn--;
}

/* Let go of the current id (no events from it any more) and reset the QP. */
static int
conn_release(struct ernic_recovery *r, struct rec_conn *c, uint64_t now)
{
	struct roce_qp_attr a;
	int ret;

	if (c->id != NULL) {
		if (roce_cm_id_state(c->id) == ROCE_CM_ESTABLISHED)
			roce_cm_disconnect_pd(c->id, rec_dreq_tag,
					      sizeof(rec_dreq_tag), now);
		roce_cm_destroy_id(c->id, now);
		c->id = NULL;
	}
	/* the QP is ERR (flushed) or never got to RTS: back to RESET */
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	ret = roce_modify_qp(c->qp, &a, ROCE_QP_STATE);
	if (ret != 0)
		r->cnt[REC_CNT_QP_RESET_ERR]++;
	return ret;
}

static void
conn_fail(struct ernic_recovery *r, struct rec_conn *c, int err)
{
	r->cnt[REC_CNT_FAILED]++;
	ev_emit(r, c, RTE_PMD_ERNIC_CM_EVENT_RECOVERY_FAILED, NULL, err);
	conn_free(r, c);
}

/* The connection broke: tell the application, release, plan the next step. */
static void
conn_broken(struct ernic_recovery *r, struct rec_conn *c, int why,
	    uint64_t now)
{
	r->cnt[why == -EIO ? REC_CNT_QP_ERROR : REC_CNT_PEER_DISCONNECT]++;
	ev_emit(r, c, RTE_PMD_ERNIC_CM_EVENT_QP_ERROR, c->id, why);
	if (conn_release(r, c, now) != 0) {
		conn_fail(r, c, -EIO);
		return;
	}
	c->attempts = 0;
	c->last_err = why;
	if (c->role == RTE_PMD_ERNIC_CM_RECOVER_RECONNECT) {
		c->state = REC_BACKOFF;
		c->cur_backoff = c->backoff;
		c->deadline = now;	/* first attempt at once */
	} else {
		c->state = REC_AWAIT;
		c->deadline = now + c->await;
	}
}

/* RECONNECT: one connect attempt. */
static void
conn_attempt(struct ernic_port *p, struct ernic_recovery *r,
	     struct rec_conn *c, uint64_t now)
{
	struct roce_cm_id *id = NULL;
	int ret;

	c->attempts++;
	r->cnt[REC_CNT_ATTEMPTS]++;
	ret = roce_cm_connect(p->ctrl.cm, &c->local, &c->remote, c->dmac,
			      c->qp, &c->param, c->context, now, &id);
	if (ret == 0) {
		c->id = id;
		c->state = REC_CONNECTING;
		return;
	}
	c->last_err = ret;
	r->cnt[REC_CNT_ATTEMPT_FAILED]++;
	if (c->attempts >= c->max_attempts) {
		conn_fail(r, c, ret);
		return;
	}
	c->state = REC_BACKOFF;
	c->deadline = now + c->cur_backoff;
	c->cur_backoff *= 2;
}

/* RECONNECT: the attempt on c->id failed (REJ, timeout, modify error). */
static void
conn_attempt_failed(struct ernic_recovery *r, struct rec_conn *c, int err,
		    uint64_t now)
{
	r->cnt[REC_CNT_ATTEMPT_FAILED]++;
	c->last_err = err;
	if (conn_release(r, c, now) != 0 || c->attempts >= c->max_attempts) {
		conn_fail(r, c, err);
		return;
	}
	c->state = REC_BACKOFF;
	c->deadline = now + c->cur_backoff;
	c->cur_backoff *= 2;
}

static void
conn_recovered(struct ernic_recovery *r, struct rec_conn *c,
	       const struct roce_cm_event *ev)
{
	c->state = REC_WATCH;
	c->local = ev->local;
	c->remote = ev->remote;
	r->cnt[REC_CNT_RECOVERED]++;
	ev_emit(r, c, RTE_PMD_ERNIC_CM_EVENT_RECOVERED, c->id,
		(int)RTE_MAX(c->attempts, 1u));
}

/* ACCEPT: a CONNECT_REQUEST from the peer of an awaiting connection? */
static bool
conn_auto_accept(struct ernic_recovery *r, const struct roce_cm_event *ev,
		 uint64_t now)
{
	struct rec_conn *c;
	uint32_t i;

	for (i = 0; i < REC_MAX; i++) {
		c = &r->conn[i];
		if (c->state != REC_AWAIT ||
		    c->remote.port != ev->remote.port ||
		    memcmp(c->remote.gid.raw, ev->remote.gid.raw, 16) != 0)
			continue;
		r->cnt[REC_CNT_AUTO_ACCEPT]++;
		c->attempts++;
		if (roce_cm_accept(ev->id, c->qp, &c->param, c->context,
				   now) != 0) {
			/* a REJ went out; the peer tries again */
			r->cnt[REC_CNT_ATTEMPT_FAILED]++;
			roce_cm_destroy_id(ev->id, now);
			conn_release(r, c, now);
			return true;
		}
		c->id = ev->id;
		c->state = REC_ACCEPTING;
		return true;
	}
	return false;
}

/* An event of the CM: true when recovery consumed it. */
static bool
rec_filter(struct ernic_recovery *r, const struct roce_cm_event *ev,
	   uint64_t now)
{
	struct rec_conn *c;

	if (r->nb_conn == 0)
		return false;
	if (ev->type == ROCE_CM_EVENT_CONNECT_REQUEST)
		return conn_auto_accept(r, ev, now);
	c = conn_by_id(r, ev->id);
	if (c == NULL)
		return false;
	switch (c->state) {
	case REC_WATCH:
		if (ev->type != ROCE_CM_EVENT_DISCONNECTED)
			return false;
		if (ev->by_peer_dreq &&
		    (ev->private_data_len < sizeof(rec_dreq_tag) ||
		     memcmp(ev->private_data, rec_dreq_tag,
			    sizeof(rec_dreq_tag)) != 0)) {
			/*
			 * the peer's application disconnected (an untagged
			 * DREQ): nothing to recover, the application gets
			 * the DISCONNECTED and the recovery is disarmed
			 */
			r->cnt[REC_CNT_APP_DISCONNECT]++;
			conn_free(r, c);
			return false;
		}
		if (ev->by_peer_dreq)
			r->cnt[REC_CNT_PEER_RECOVERING]++;
		conn_broken(r, c, -ECONNRESET, now);
		return true;
	case REC_CONNECTING:
		if (ev->type == ROCE_CM_EVENT_ESTABLISHED)
			conn_recovered(r, c, ev);
		else if (ev->type == ROCE_CM_EVENT_REJECTED)
			conn_attempt_failed(r, c, -ECONNREFUSED, now);
		else
			conn_attempt_failed(r, c, ev->status != 0 ?
					    ev->status : -EIO, now);
		return true;
	case REC_ACCEPTING:
		if (ev->type == ROCE_CM_EVENT_ESTABLISHED) {
			conn_recovered(r, c, ev);
		} else {
			/* the peer's attempt failed: wait for its next one */
			r->cnt[REC_CNT_ATTEMPT_FAILED]++;
			if (conn_release(r, c, now) != 0)
				conn_fail(r, c, -EIO);
			else
				c->state = REC_AWAIT;
		}
		return true;
	default:
		return true;
	}
}

void
ernic_recovery_run(struct ernic_port *p, uint64_t now)
{
	struct ernic_recovery *r = p->ctrl.rec;
	struct roce_qp_snapshot snap;
	struct roce_cm_event *ev;
	struct rec_conn *c;
	uint32_t i;

	if (r == NULL)
		return;
	/* CM events, through the filter, into the application's FIFO */
	while (!evq_full(r)) {
		ev = &r->evq[r->ev_tail % REC_EVQ];
		if (roce_cm_get_event(p->ctrl.cm, ev) != 1)
			break;
		if (!rec_filter(r, ev, now))
			r->ev_tail++;
	}
	if (r->nb_conn == 0)
		return;
	for (i = 0; i < REC_MAX; i++) {
		c = &r->conn[i];
		switch (c->state) {
		case REC_WATCH:
			/* the state is exact in any thread's snapshot */
			roce_qp_snapshot(c->qp, &snap);
			if (snap.state == ROCE_QPS_ERR)
				conn_broken(r, c, -EIO, now);
			break;
		case REC_BACKOFF:
			if (now >= c->deadline)
				conn_attempt(p, r, c, now);
			break;
		case REC_AWAIT:
			if (now >= c->deadline)
				conn_fail(r, c, -ETIMEDOUT);
			break;
		default:
			break;
		}
	}
}

int
ernic_recovery_get_event(struct ernic_port *p, struct roce_cm_event *ev)
{
	struct ernic_recovery *r = p->ctrl.rec;

	if (r == NULL)
		return roce_cm_get_event(p->ctrl.cm, ev);
	/* events of the CM not seen by an iteration yet go through first */
	ernic_recovery_run(p, rte_rdtsc());
	if (r->ev_head == r->ev_tail)
		return 0;
	*ev = r->evq[r->ev_head++ % REC_EVQ];
	return 1;
}

void
ernic_recovery_qp_fatal(struct ernic_port *p, uint32_t qpn, uint64_t now)
{
	struct ernic_recovery *r = p->ctrl.rec;
	struct rec_conn *c;
	uint32_t i;

	if (r == NULL || r->nb_conn == 0)
		return;
	for (i = 0; i < REC_MAX; i++) {
		c = &r->conn[i];
		if (c->state != REC_WATCH || roce_qp_num(c->qp) != qpn)
			continue;
		r->cnt[REC_CNT_ASYNC_FATAL]++;
		conn_broken(r, c, -EIO, now);
		return;
	}
}

static const char *const rec_state_names[] = {
	[REC_FREE] = "FREE", [REC_WATCH] = "WATCH",
	[REC_BACKOFF] = "BACKOFF", [REC_CONNECTING] = "CONNECTING",
	[REC_AWAIT] = "AWAIT", [REC_ACCEPTING] = "ACCEPTING",
};

unsigned int
ernic_recovery_list(const struct ernic_port *p, struct ernic_rec_info *out,
		    unsigned int n)
{
	const struct ernic_recovery *r = p->ctrl.rec;
	const struct rec_conn *c;
	unsigned int k = 0;
	uint32_t i;

	if (r == NULL)
		return 0;
	for (i = 0; i < REC_MAX; i++) {
		c = &r->conn[i];
		if (c->state == REC_FREE)
			continue;
		if (k < n) {
			out[k].id = c->id;
			out[k].qpn = roce_qp_num(c->qp);
			out[k].state = rec_state_names[c->state];
			out[k].reconnect = c->role ==
				RTE_PMD_ERNIC_CM_RECOVER_RECONNECT;
			out[k].attempts = c->attempts;
			out[k].last_err = c->last_err;
			out[k].remote = c->remote;
		}
		k++;
	}
	return k;
}

void
ernic_recovery_forget(struct ernic_port *p, const struct roce_cm_id *id)
{
	struct ernic_recovery *r = p->ctrl.rec;
	struct rec_conn *c;

	if (r == NULL)
		return;
	c = conn_by_id(r, id);
	if (c != NULL)
		conn_free(r, c);
}

void
ernic_recovery_withdraw(struct ernic_port *p, const struct roce_cm_id *id,
			const struct roce_cm_listener *l, uint64_t now)
{
	struct ernic_recovery *r = p->ctrl.rec;
	uint32_t i;

	if (r == NULL)
		return;
	/* the application never saw these requests: their ids are rejected */
	for (i = r->ev_head; l != NULL && i != r->ev_tail; i++) {
		const struct roce_cm_event *ev = &r->evq[i % REC_EVQ];

		if (ev->type == ROCE_CM_EVENT_CONNECT_REQUEST &&
		    ev->listener == l)
			roce_cm_destroy_id(ev->id, now);
	}
	roce_cm_events_withdraw(r->evq, REC_EVQ, r->ev_head, &r->ev_tail, id,
				l);
}

int
ernic_recovery_create(struct ernic_port *p)
{
	struct ernic_recovery *r;

	r = rte_zmalloc_socket("ernic_recovery", sizeof(*r), 0, p->socket);
	if (r == NULL)
		return -ENOMEM;
	r->evq = rte_zmalloc_socket("ernic_rec_evq", sizeof(*r->evq) * REC_EVQ,
				    0, p->socket);
	if (r->evq == NULL) {
		rte_free(r);
		return -ENOMEM;
	}
	p->ctrl.rec = r;
	return 0;
}

void
ernic_recovery_destroy(struct ernic_port *p)
{
	struct ernic_recovery *r = p->ctrl.rec;

	if (r == NULL)
		return;
	rte_free(r->evq);
	rte_free(r);
	p->ctrl.rec = NULL;
}

int
ernic_recovery_counters(const struct ernic_port *p, struct roce_counter *c,
			unsigned int n)
{
	const struct ernic_recovery *r = p->ctrl.rec;
	unsigned int i;

	if (r == NULL)
		return 0;
	for (i = 0; i < REC_CNT_MAX && i < n; i++) {
		c[i].name = rec_cnt_names[i];
		c[i].value = r->cnt[i];
	}
	return REC_CNT_MAX;
}

/* ------------------------------------------------------------------ */
/* Public API                                                         */
/* ------------------------------------------------------------------ */

int
rte_pmd_ernic_cm_set_recovery(uint16_t port_id,
			      const struct roce_cm_event *est,
			      const struct rte_pmd_ernic_cm_recovery *rp)
{
	struct ernic_port *p = ernic_port_get(port_id);
	struct ernic_recovery *r;
	struct rec_conn *c;
	uint8_t mac[6];
	uint32_t i;
	int ret;

	if (p == NULL)
		return -ENODEV;
	if (est == NULL || est->id == NULL ||
	    ((uint32_t)est->type != ROCE_CM_EVENT_ESTABLISHED &&
	     (uint32_t)est->type != RTE_PMD_ERNIC_CM_EVENT_RECOVERED))
		return -EINVAL;
	if (rp != NULL) {
		if (rp->role != RTE_PMD_ERNIC_CM_RECOVER_RECONNECT &&
		    rp->role != RTE_PMD_ERNIC_CM_RECOVER_ACCEPT)
			return -EINVAL;
		if (rp->param.private_data_len > ROCE_CM_REP_PRIVATE ||
		    (rp->param.private_data_len != 0 &&
		     rp->param.private_data == NULL))
			return -EINVAL;
		/* the neighbour table has its own lock: outside ctrl.lock */
		if (rp->role == RTE_PMD_ERNIC_CM_RECOVER_RECONNECT) {
			ret = rte_pmd_ernic_resolve(port_id, &est->remote.gid,
						    mac);
			if (ret != 0)
				return ret;
		}
	}
	if (p->ctrl.cm == NULL || p->ctrl.rec == NULL)
		return -EAGAIN;
	rte_spinlock_lock(&p->ctrl.lock);
	r = p->ctrl.rec;
	c = conn_by_id(r, est->id);
	if (rp == NULL) {
		if (c != NULL)
			conn_free(r, c);
		rte_spinlock_unlock(&p->ctrl.lock);
		return 0;
	}
	if (roce_cm_id_state(est->id) != ROCE_CM_ESTABLISHED ||
	    roce_cm_id_qp(est->id) == NULL) {
		rte_spinlock_unlock(&p->ctrl.lock);
		return -EINVAL;
	}
	if (c == NULL) {
		for (i = 0; i < REC_MAX && r->conn[i].state != REC_FREE; i++)
			;
		if (i == REC_MAX) {
			rte_spinlock_unlock(&p->ctrl.lock);
			return -ENOSPC;
		}
		c = &r->conn[i];
		memset(c, 0, sizeof(*c));
		r->nb_conn++;
	}
	c->state = REC_WATCH;
	c->role = rp->role;
	c->id = est->id;
	c->qp = roce_cm_id_qp(est->id);
	c->context = roce_cm_id_context(est->id);
	c->local = est->local;
	c->remote = est->remote;
	if (rp->role == RTE_PMD_ERNIC_CM_RECOVER_RECONNECT)
		memcpy(c->dmac, mac, sizeof(c->dmac));
	c->param = rp->param;
	if (rp->param.private_data_len != 0) {
		memcpy(c->pdata, rp->param.private_data,
		       rp->param.private_data_len);
		c->param.private_data = c->pdata;
	}
	c->max_attempts = rp->max_attempts != 0 ? rp->max_attempts : 8;
	c->backoff = ms_ticks(rp->backoff_ms != 0 ? rp->backoff_ms : 50);
	c->await = ms_ticks(rp->await_ms != 0 ? rp->await_ms : 10000);
	r->cnt[REC_CNT_ARMED]++;
	rte_spinlock_unlock(&p->ctrl.lock);
	return 0;
}
