/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_CM_PRIV_H
#define ROCE_CM_PRIV_H

/*
 * Inside the connection manager (not installed): the objects shared by
 * its files and the helpers they call one another through.
 *
 *   roce_cm_msg.c   MAD pack/unpack, rdma_cm IP header, time codes
 *   roce_cm_fsm.c   THE state machine: the [state][input] table, the one
 *                   place that applies a transition, the timer callbacks
 *   roce_cm.c       ids, connection hash, events, sends, QP moves, the
 *                   timeout steps, create/destroy
 *   roce_cm_rx.c    received REQ..DREP (lookups, checks, their steps),
 *                   held REQs, poll
 *   roce_cm_api.c   listen/connect/accept/reject/disconnect (checks, their
 *                   steps), queries
 *   roce_cm_sidr.c  UD service ID resolution (SIDR_REQ/SIDR_REP)
 *
 * Nothing but roce_cm_fsm.c writes an id's state: a file that has an input
 * for an id fills a struct cm_ctx and calls cm_fsm_apply().
 *
 * The helpers are hidden: libroce exports only the roce_cm_* API.
 */

#include <stdbool.h>
#include <stdint.h>

#include "roce_cm.h"
#include "roce_mad.h"
#include "roce_timer.h"

#define CM_HIDDEN __attribute__((visibility("hidden")))

/** CM counters (names in cm_cnt_names). */
enum roce_cm_cnt {
	/* received, by attribute (REQ..DREP in attribute order) */
	CM_CNT_RX_REQ, CM_CNT_RX_MRA, CM_CNT_RX_REJ, CM_CNT_RX_REP,
	CM_CNT_RX_RTU, CM_CNT_RX_DREQ, CM_CNT_RX_DREP,
	/* sent, same order */
	CM_CNT_TX_REQ, CM_CNT_TX_MRA, CM_CNT_TX_REJ, CM_CNT_TX_REP,
	CM_CNT_TX_RTU, CM_CNT_TX_DREQ, CM_CNT_TX_DREP,
	/* SIDR (roce_cm_sidr.c) */
	CM_CNT_RX_SIDR_REQ, CM_CNT_RX_SIDR_REP,
	CM_CNT_TX_SIDR_REQ, CM_CNT_TX_SIDR_REP,
	CM_CNT_SIDR_NO_LISTENER,	/* status UNSUPPORTED: nobody listens */
	CM_CNT_SIDR_INVALID,		/* not an rdma_cm UD service, bad GID */
	CM_CNT_TIMEOUT_SIDR,
	CM_CNT_RX_UNSUPPORTED_ATTR,	/* LAP, APR, ClassPortInfo... */
	CM_CNT_RX_UNKNOWN_ID,		/* no connection with that comm ID */
	CM_CNT_RX_BAD_STATE,		/* not expected in the state */
	CM_CNT_RX_BAD_SOURCE,		/* comm ID/QPN/GID of another peer */
	CM_CNT_RX_DUP,			/* retransmission, handled or ignored */
	CM_CNT_REQ_STALE,		/* REQ for a QP we still hold: STALE_CONN */
	CM_CNT_REQ_NO_LISTENER,		/* INVALID_SERVICE_ID */
	CM_CNT_REQ_HELD,		/* waited for a listener (cm_hold_req) */
	CM_CNT_REQ_INVALID,		/* transport, MTU, GID, IP header */
	CM_CNT_REQ_BACKLOG,		/* listener backlog full */
	CM_CNT_REQ_NO_ID,		/* id table or event queue full */
	CM_CNT_TIMEOUT_REQ,
	CM_CNT_TIMEOUT_REP,
	CM_CNT_TIMEOUT_DREQ,
	CM_CNT_QP_MODIFY_ERR,
	CM_CNT_ESTABLISHED,
	CM_CNT_DISCONNECTED,
	CM_CNT_TIMEWAIT_EXIT,
	CM_CNT_EV_DROPPED,
	CM_CNT_EV_WITHDRAWN,		/* queued events of a destroyed id/listener */
	CM_CNT_MAX,
};


/*
 * The inputs of the state machine (the table's columns, roce_cm_fsm.c):
 * what happens to a connection, as opposed to the events the CM reports to
 * the application (enum roce_cm_event_type).
 */
enum cm_input {
	/* received messages (roce_cm_rx.c, roce_cm_sidr.c) */
	CM_IN_RX_REQ,		/* a REQ: a new one (IDLE) or a duplicate */
	CM_IN_RX_REQ_STALE,	/* a new REQ from this connection's peer QP */
	CM_IN_RX_MRA_REQ,	/* MRA for a REQ */
	CM_IN_RX_MRA_REP,	/* MRA for a REP */
	CM_IN_RX_MRA_OTHER,	/* MRA for anything else (LAP) */
	CM_IN_RX_REJ,
	CM_IN_RX_REP,
	CM_IN_RX_RTU,
	CM_IN_RX_DREQ,
	CM_IN_RX_DREP,
	CM_IN_RX_SIDR_REQ,	/* a new one (IDLE) or a duplicate */
	CM_IN_RX_SIDR_REP,
	/* the application's calls (roce_cm_api.c, roce_cm_sidr.c) */
	CM_IN_CONNECT,
	CM_IN_ACCEPT,
	CM_IN_REJECT,
	CM_IN_DISCONNECT,
	CM_IN_DESTROY,
	CM_IN_SIDR_REQUEST,
	CM_IN_SIDR_REPLY,
	CM_IN_LISTEN_STOP,	/* the id's listener stops */
	/* timers */
	CM_IN_TIMEOUT_REQ,	/* our REQ unanswered after every retry */
	CM_IN_TIMEOUT_REP,
	CM_IN_TIMEOUT_DREQ,
	CM_IN_TIMEOUT_SIDR_REQ,
	CM_IN_TIMEWAIT_EXIT,
	CM_IN_MAX,
};

/* Where an input comes from. */
enum cm_input_class {
	CM_CLASS_RX,
	CM_CLASS_API,
	CM_CLASS_TIMER,
};

/* What a cell of the table does with its input. */
enum cm_cell_kind {
	CM_K_NONE = 0,		/* never in the table (a unit test checks) */
	CM_K_TRANS,		/* run the step, enter the next state */
	CM_K_DUP,		/* received: a duplicate, counted cm_rx_dup */
	CM_K_BAD_STATE,		/* received: cm_rx_drop_bad_state (or cm_rx_dup) */
	CM_K_UNKNOWN,		/* received for an idle id: cm_rx_drop_unknown_id */
	CM_K_ILLEGAL,		/* the application's call: -EINVAL */
	CM_K_IGNORE,		/* nothing to do (e.g. a timer that can't apply) */
};

/* "no state" in a cell: next keeps the state, via and alt: none. */
#define CM_SAME ROCE_CM_STATE_MAX

/* What a step tells the machine. */
enum cm_out {
	CM_OUT_NEXT,	/* enter the cell's next state */
	CM_OUT_ALT,	/* enter the cell's alternative state */
	CM_OUT_FAIL,	/* the call failed (cm_ctx::ret): the state stays */
};

struct roce_cm_id;

/* An input on its way through the machine. */
struct cm_ctx {
	struct roce_cm *cm;
	struct roce_cm_id *id;
	enum cm_input in;		/* set by cm_fsm_apply() */
	uint64_t now;
	const struct roce_mad_rx *rx;	/* received inputs: the MAD... */
	const void *msg;		/* ...and its unpacked message */
	const void *arg;		/* calls, new requests: their arguments */
	int ret;			/* calls: the result (0 or -errno) */
};

typedef enum cm_out (*cm_step_fn)(struct cm_ctx *c);

/* One cell of the table: [state][input]. */
struct cm_cell {
	uint8_t kind;		/* enum cm_cell_kind */
	uint8_t via;		/* entered before the step, or CM_SAME */
	uint8_t next;		/* entered after the step (CM_OUT_NEXT) */
	uint8_t alt;		/* entered after the step (CM_OUT_ALT) */
	bool dup;		/* answers a retransmission: cm_rx_dup */
	cm_step_fn step;	/* NULL: the state's entry does it all */
};

struct roce_cm_listener {
	struct roce_cm *cm;
	bool in_use;
	struct roce_cm_addr addr;
	enum roce_cm_port_space ps;
	uint32_t backlog;
	uint32_t pending;	/**< requests delivered, not yet answered */
	void *context;
};

/* keys of the connection hash */
enum {
	HK_RCID = 0,	/* (remote comm ID, peer GID): duplicate REQs (12.9.8.3.1) */
	HK_RQPN = 1,	/* (remote QPN, peer GID): stale connections (12.9.8.3.2) */
	HK_MAX,
};

struct roce_cm_id {
	struct roce_cm *cm;
	uint32_t idx;
	uint16_t gen;
	bool in_use;
	bool orphan;		/* destroyed by the application */
	bool active;
	bool pending;		/* counted in listener->pending */
	enum roce_cm_state state;
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t remote_ca_guid;
	uint64_t tid;		/* the connection's transaction ID */
	uint64_t service_id;
	struct roce_cm_listener *listener;
	struct roce_qp *qp;
	uint8_t qp_type;
	uint32_t local_qpn, remote_qpn;
	uint32_t sq_psn, rq_psn;
	uint8_t mtu;
	uint8_t resp_res;	/* our max_dest_rd_atomic */
	uint8_t init_depth;	/* our max_rd_atomic */
	uint8_t peer_resp_res, peer_init_depth;
	uint8_t retry_count;
	uint8_t rnr_retry;	/* RNR retries our QP uses */
	uint8_t peer_rnr_retry;	/* RNR retries we ask of the peer */
	uint8_t min_rnr_timer;
	uint8_t local_ack_timeout;
	uint8_t peer_cm_timeout;	/* time the peer takes to answer */
	uint8_t max_cm_retries;		/* retries of our sends */
	uint8_t traffic_class, hop_limit;
	uint32_t flow_label;
	uint8_t sgid_index;
	bool srq;
	bool sr_offer;		/* selective repeat: we offer / the peer offered */
	bool sr;		/* selective repeat negotiated on */
	int access;
	struct roce_mad_addr addr;	/* MAD addressing to the peer */
	struct roce_cm_addr local, remote;
	struct roce_mad_send *send;	/* REQ, REP or DREQ waiting */
	uint8_t send_timeout;		/* enum cm_input when it times out */
	struct roce_timer tw_timer;
	uint32_t hslot[HK_MAX];		/* hash slot + 1, 0: not hashed */
	void *context;
};

/*
 * A REQ for a port nobody listens on waits this long for a listener before
 * its REJ (INVALID_SERVICE_ID): an rdma_cm server often listens a moment
 * after its peer, told over another channel, connects (perftest -R sets up
 * its data connections so). The REJ still comes well within the active
 * side's CM response timeout.
 */
#define CM_HOLD_MS 100
#define CM_HOLD_MAX 16

struct cm_held_req {
	bool in_use;
	uint64_t deadline;
	struct roce_mad_rx rx;
};

struct roce_cm {
	struct roce_cm_config cfg;
	struct roce_mad_agent *agent;
	struct roce_timers timers;	/* timewait */
	struct roce_cm_id *ids;
	uint32_t *free_ids;
	uint32_t nb_free;
	struct roce_cm_listener *listeners;
	uint32_t *htab;			/* (idx + 1) << 1 | key kind, 0: empty */
	uint32_t hmask;
	struct roce_cm_event *ev;
	uint32_t ev_head, ev_tail, ev_mask;
	uint64_t rng;
	uint32_t salt;
	uint16_t next_port;
	struct cm_held_req held[CM_HOLD_MAX];	/* REQs without a listener */
	uint32_t nb_held;
	uint64_t cnt[CM_CNT_MAX];
	/* the cells of the table applied, [state][input] */
	uint64_t fsm_hits[ROCE_CM_STATE_MAX][CM_IN_MAX];
};

/* ---- roce_cm_fsm.c ---- */

CM_HIDDEN extern const struct cm_cell cm_fsm[ROCE_CM_STATE_MAX][CM_IN_MAX];
CM_HIDDEN const char *cm_input_name(enum cm_input in);
CM_HIDDEN enum cm_input_class cm_input_class(enum cm_input in);
/*
 * Apply input @p in to c->id: the one place where an id changes state.
 * @return c->ret, or -EINVAL for a call that is illegal in the state.
 */
CM_HIDDEN int cm_fsm_apply(struct cm_ctx *c, enum cm_input in);
/* timer callbacks: roce_mad_agent_config::timeout_cb, the timewait timer */
CM_HIDDEN void cm_send_timeout(void *cb_ctx, void *ctx,
			       struct roce_mad_send *s, uint64_t now);
CM_HIDDEN void cm_timewait_cb(struct roce_timer *t, uint64_t now);

/* ---- roce_cm.c ---- */

/* time and randomness */
CM_HIDDEN uint64_t cm_rand(struct roce_cm *cm);
CM_HIDDEN uint64_t cm_ticks(const struct roce_cm *cm, uint8_t t);
/* 2 x packet life time + the responder's processing time (IBTA 12.9.2) */
CM_HIDDEN uint64_t cm_wait_ticks(const struct roce_cm *cm,
				 uint8_t response_timeout);

/* the connection hash: (remote comm ID or QPN, peer GID) -> id */
CM_HIDDEN struct roce_cm_id *cm_hk_find(struct roce_cm *cm, unsigned int kind,
					uint32_t val, const uint8_t gid[16]);
CM_HIDDEN void cm_hk_insert(struct roce_cm *cm, struct roce_cm_id *id,
			    unsigned int kind);

/* ids */
CM_HIDDEN uint16_t cm_next_port(struct roce_cm *cm);
CM_HIDDEN void cm_addr_init(struct roce_cm *cm, struct roce_cm_id *id,
			    const uint8_t dmac[6]);
CM_HIDDEN struct roce_cm_id *cm_id_by_comm_id(struct roce_cm *cm,
					      uint32_t comm_id);
CM_HIDDEN struct roce_cm_id *cm_id_alloc(struct roce_cm *cm);
CM_HIDDEN void cm_id_unpend(struct roce_cm_id *id);
CM_HIDDEN void cm_id_free(struct roce_cm *cm, struct roce_cm_id *id);
CM_HIDDEN void cm_hk_remove_all(struct roce_cm *cm, struct roce_cm_id *id);

/* events: NULL (counted) when the queue is full or the id an orphan */
CM_HIDDEN struct roce_cm_event *cm_ev_push(struct roce_cm *cm,
					   struct roce_cm_id *id,
					   enum roce_cm_event_type type);
CM_HIDDEN bool cm_ev_room(const struct roce_cm *cm);
/* remove the queued events of @p id and CONNECT_REQUESTs of @p l (counted) */
CM_HIDDEN uint32_t cm_ev_withdraw(struct roce_cm *cm,
				  const struct roce_cm_id *id,
				  const struct roce_cm_listener *l);
CM_HIDDEN void cm_ev_simple(struct roce_cm *cm, struct roce_cm_id *id,
			    enum roce_cm_event_type type, int status);
CM_HIDDEN void cm_ev_private(struct roce_cm_event *ev, const uint8_t *pd,
			     unsigned int len);

/* sends */
CM_HIDDEN void cm_send(struct roce_cm *cm, const struct roce_mad *mad,
		       const struct roce_mad_addr *addr);
/* send and wait for the answer; the id's previous send is dropped */
CM_HIDDEN int cm_send_tracked(struct roce_cm *cm, struct roce_cm_id *id,
			      const struct roce_mad *mad, uint64_t timeout,
			      uint64_t now);
CM_HIDDEN void cm_cancel_send(struct roce_cm *cm, struct roce_cm_id *id);
CM_HIDDEN void cm_rej_to(struct roce_cm *cm, const struct roce_mad_addr *addr,
			 uint64_t tid, uint32_t local_comm_id,
			 uint32_t remote_comm_id, uint8_t msg, uint16_t reason);
CM_HIDDEN void cm_rej_id(struct roce_cm *cm, struct roce_cm_id *id,
			 uint8_t msg, uint16_t reason, const void *pd,
			 uint8_t len);
CM_HIDDEN void cm_send_rtu(struct roce_cm *cm, struct roce_cm_id *id);
CM_HIDDEN void cm_send_mra(struct roce_cm *cm, struct roce_cm_id *id,
			   uint8_t msg);
CM_HIDDEN void cm_send_drep(struct roce_cm *cm,
			    const struct roce_mad_addr *addr, uint64_t tid,
			    uint32_t local_comm_id, uint32_t remote_comm_id);

/* QP moves the CM makes */
CM_HIDDEN int cm_qp_to_init(struct roce_cm *cm, struct roce_cm_id *id);
CM_HIDDEN int cm_qp_to_rts(struct roce_cm *cm, struct roce_cm_id *id);
CM_HIDDEN void cm_qp_to_err(struct roce_cm *cm, struct roce_cm_id *id);

/* steps of the timers */
CM_HIDDEN enum cm_out cm_step_req_timeout(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rep_timeout(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_dreq_timeout(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_timewait_exit(struct cm_ctx *c);

/* ---- roce_cm_rx.c ---- */

/* index of our GID @p gid in the device table, -1 when it is not ours */
CM_HIDDEN int cm_sgid_index(struct roce_cm *cm, const uint8_t gid[16]);
CM_HIDDEN bool cm_addr_is_any(const struct roce_cm_addr *a);
/* the listener of service @p sid for destination @p dst (or a wildcard) */
CM_HIDDEN struct roce_cm_listener *cm_find_listener(struct roce_cm *cm,
						    uint64_t sid,
						    const struct roce_cm_addr *dst);
/* a received message for no (or an idle) id: counted, a DREQ answered */
CM_HIDDEN void cm_rx_unknown(struct cm_ctx *c, enum cm_input in);

/* steps of the received messages */
CM_HIDDEN enum cm_out cm_step_req_new(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_req_mra(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_mra(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rep(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rep_rtu(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rtu(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rej_req(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rej_rep(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_rej_est(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_dreq(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_dreq_drep(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_drep(struct cm_ctx *c);

/* ---- roce_cm_api.c ---- */

/* steps of the application's calls (c->arg: the call's arguments) */
CM_HIDDEN enum cm_out cm_step_connect(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_accept(struct cm_ctx *c);
/* c->arg NULL: Consumer Defined, no private data (listen stop, destroy) */
CM_HIDDEN enum cm_out cm_step_reject(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_abort_req(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_abort_rep(struct cm_ctx *c);
/* c->arg NULL: no private data (destroy, stale connection) */
CM_HIDDEN enum cm_out cm_step_disconnect(struct cm_ctx *c);

/* ---- roce_cm_sidr.c ---- */

CM_HIDDEN void cm_rx_sidr_req(struct roce_cm *cm, const struct roce_mad_rx *rx,
			      uint64_t now);
CM_HIDDEN void cm_rx_sidr_rep(struct roce_cm *cm, const struct roce_mad_rx *rx,
			      uint64_t now);
CM_HIDDEN enum cm_out cm_step_sidr_request(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_sidr_req_new(struct cm_ctx *c);
/* c->arg NULL: status REJECT, no private data (listen stop, destroy) */
CM_HIDDEN enum cm_out cm_step_sidr_reply(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_sidr_rep(struct cm_ctx *c);
CM_HIDDEN enum cm_out cm_step_sidr_timeout(struct cm_ctx *c);

#endif /* ROCE_CM_PRIV_H */
