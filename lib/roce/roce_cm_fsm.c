/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's state machine: THE table of what each input
 * (a received message, an application call, a timer) does in each state
 * of a connection, and the one place that applies it (cm_fsm_apply()).
 * IBTA vol. 1 12.9.6 figures 98-101 as implemented, plus SIDR (12.11).
 *
 * Connection setup, active side (figure 98) and passive side (figure 99):
 *
 *      IDLE                                  IDLE
 *        | connect: QP to INIT, REQ            | REQ: CONNECT_REQUEST
 *        v                                     v
 *    REQ_SENT --MRA(REQ)--> MRA_REQ_RCVD    REQ_RCVD --REQ again: MRA--+
 *        |                   |  (MRA again)    |                       v
 *        | REP               | REP             |               MRA_REQ_SENT
 *        v                   |                 | accept: QP to RTS, REP |
 *    [REP_RCVD: QP to RTR,   |                 v                        |
 *     RTS, RTU] <------------+              REP_SENT <-------accept-----+
 *        |                                     |  --MRA(REP)--> MRA_REP_RCVD
 *        v                                     | RTU                 | RTU
 *    ESTABLISHED                               v                     |
 *                                          ESTABLISHED <-------------+
 *
 *    to IDLE (active): REJ; REQ timeout or disconnect/destroy (REJ
 *      Timeout); a QP that does not move at the REP (REJ). REJ Stale
 *      Connection: to TIMEWAIT instead.
 *    to IDLE (passive, before the REP): reject, disconnect, destroy, the
 *      listener stops (REJ); the active side's REJ (it gave up).
 *    to TIMEWAIT (passive, REP out): REJ; DREQ (DREP); REP timeout or
 *      disconnect/destroy (REJ).
 *
 * Release (figures 100, 101), either side:
 *
 *    ESTABLISHED --disconnect/destroy, a stale REQ: QP to ERR, DREQ-->
 *    DREQ_SENT --DREP; DREQ timeout (DISCONNECTED)-------> TIMEWAIT
 *    ESTABLISHED, DREQ_SENT, REP_SENT, MRA_REP_RCVD --DREQ-->
 *    [DREQ_RCVD: QP to ERR, DREP, DISCONNECTED] ----------> TIMEWAIT
 *    ESTABLISHED --REJ: QP to ERR, DISCONNECTED-----------> TIMEWAIT
 *    TIMEWAIT --expiry: TIMEWAIT_EXIT----------------------> IDLE
 *    (ESTABLISHED: a REP again, the RTU again; TIMEWAIT: a DREQ again,
 *     the DREP again)
 *
 * Service ID resolution (12.11; UD, no connection):
 *
 *    IDLE --sidr_request: SIDR_REQ--> SIDR_REQ_SENT
 *        --SIDR_REP: SIDR_REPLY; timeout: UNREACHABLE; destroy--> IDLE
 *    IDLE --SIDR_REQ: SIDR_REQUEST--> SIDR_REQ_RCVD
 *        --sidr_reply, destroy, the listener stops: SIDR_REP--> IDLE
 *
 * [REP_RCVD] and [DREQ_RCVD] last only while their step runs. Entering IDLE
 * forgets the connection (tracked send, timewait timer, hash, listener
 * backlog) and frees a destroyed id; entering TIMEWAIT forgets it too,
 * the peer's comm ID and QPN included, but keeps the id (its comm ID stays
 * taken) and arms the timewait timer (IBTA 12.9.6: 2 x packet life time +
 * the local ACK timeout).
 *
 * Before the table: a message is matched to its id (roce_cm_rx.c,
 * roce_cm_sidr.c): one for no id, or an idle one, is counted unknown (a
 * DREQ answered with a DREP), one from another peer bad source; a REQ
 * without an id is checked (stale, invalid, listener, backlog) and gets a
 * new id in IDLE. A call's arguments are checked (roce_cm_api.c) before the
 * table answers -EINVAL for a call in the wrong state; what a step checks
 * (a private data length, the QP) fails the call without a transition.
 */
#include <errno.h>

#include <rte_common.h>

#include "roce_cm_priv.h"

/* ---- the inputs ---- */

struct cm_input_info {
	const char *name;
	uint8_t cls;		/* enum cm_input_class */
	/* a bad-state drop of a MAD its layer saw twice counts cm_rx_dup */
	bool bad_dup;
};

static const struct cm_input_info cm_inputs[CM_IN_MAX] = {
	[CM_IN_RX_REQ] = { "REQ", CM_CLASS_RX, true },
	[CM_IN_RX_REQ_STALE] = { "REQ_STALE", CM_CLASS_RX, true },
	[CM_IN_RX_MRA_REQ] = { "MRA_REQ", CM_CLASS_RX, true },
	[CM_IN_RX_MRA_REP] = { "MRA_REP", CM_CLASS_RX, true },
	[CM_IN_RX_MRA_OTHER] = { "MRA_OTHER", CM_CLASS_RX, true },
	[CM_IN_RX_REJ] = { "REJ", CM_CLASS_RX, true },
	[CM_IN_RX_REP] = { "REP", CM_CLASS_RX, true },
	[CM_IN_RX_RTU] = { "RTU", CM_CLASS_RX, true },
	[CM_IN_RX_DREQ] = { "DREQ", CM_CLASS_RX, true },
	[CM_IN_RX_DREP] = { "DREP", CM_CLASS_RX, true },
	[CM_IN_RX_SIDR_REQ] = { "SIDR_REQ", CM_CLASS_RX, true },
	[CM_IN_RX_SIDR_REP] = { "SIDR_REP", CM_CLASS_RX, false },
	[CM_IN_CONNECT] = { "connect", CM_CLASS_API, false },
	[CM_IN_ACCEPT] = { "accept", CM_CLASS_API, false },
	[CM_IN_REJECT] = { "reject", CM_CLASS_API, false },
	[CM_IN_DISCONNECT] = { "disconnect", CM_CLASS_API, false },
	[CM_IN_DESTROY] = { "destroy", CM_CLASS_API, false },
	[CM_IN_SIDR_REQUEST] = { "sidr_request", CM_CLASS_API, false },
	[CM_IN_SIDR_REPLY] = { "sidr_reply", CM_CLASS_API, false },
	[CM_IN_LISTEN_STOP] = { "listen_stop", CM_CLASS_API, false },
	[CM_IN_TIMEOUT_REQ] = { "timeout_REQ", CM_CLASS_TIMER, false },
	[CM_IN_TIMEOUT_REP] = { "timeout_REP", CM_CLASS_TIMER, false },
	[CM_IN_TIMEOUT_DREQ] = { "timeout_DREQ", CM_CLASS_TIMER, false },
	[CM_IN_TIMEOUT_SIDR_REQ] = { "timeout_SIDR_REQ", CM_CLASS_TIMER,
				     false },
	[CM_IN_TIMEWAIT_EXIT] = { "timewait_exit", CM_CLASS_TIMER, false },
};

const char *
cm_input_name(enum cm_input in)
{
	return (unsigned int)in < CM_IN_MAX ? cm_inputs[in].name : "UNKNOWN";
}

enum cm_input_class
cm_input_class(enum cm_input in)
{
	return (enum cm_input_class)cm_inputs[in].cls;
}

/* ---- the table ---- */

/* a transition: step, then the next state */
#define T(fn, n) { .kind = CM_K_TRANS, .via = CM_SAME, .next = (n), \
		   .alt = CM_SAME, .step = (fn) }
/* ... or its alternative when the step says so */
#define TA(fn, n, a) { .kind = CM_K_TRANS, .via = CM_SAME, .next = (n), \
		       .alt = (a), .step = (fn) }
/* ... through a state that lasts while the step runs */
#define TV(fn, v, n, a) { .kind = CM_K_TRANS, .via = (v), .next = (n), \
			  .alt = (a), .step = (fn) }
/* an answer to a retransmission, counted cm_rx_dup */
#define TDUP(fn, n) { .kind = CM_K_TRANS, .via = CM_SAME, .next = (n), \
		      .alt = CM_SAME, .dup = true, .step = (fn) }
#define DROP(k) { .kind = (k), .via = CM_SAME, .next = CM_SAME, \
		  .alt = CM_SAME }
#define DUP DROP(CM_K_DUP)
#define BAD DROP(CM_K_BAD_STATE)
#define UNK DROP(CM_K_UNKNOWN)
#define ILL DROP(CM_K_ILLEGAL)
#define IGN DROP(CM_K_IGNORE)

/* short names for the table only */
#define S_IDLE ROCE_CM_IDLE
#define S_REQ_SENT ROCE_CM_REQ_SENT
#define S_REQ_RCVD ROCE_CM_REQ_RCVD
#define S_MRA_REQ_SENT ROCE_CM_MRA_REQ_SENT
#define S_MRA_REQ_RCVD ROCE_CM_MRA_REQ_RCVD
#define S_REP_SENT ROCE_CM_REP_SENT
#define S_REP_RCVD ROCE_CM_REP_RCVD
#define S_MRA_REP_RCVD ROCE_CM_MRA_REP_RCVD
#define S_EST ROCE_CM_ESTABLISHED
#define S_DREQ_SENT ROCE_CM_DREQ_SENT
#define S_DREQ_RCVD ROCE_CM_DREQ_RCVD
#define S_TIMEWAIT ROCE_CM_TIMEWAIT
#define S_SIDR_REQ_SENT ROCE_CM_SIDR_REQ_SENT
#define S_SIDR_REQ_RCVD ROCE_CM_SIDR_REQ_RCVD

/* the messages a state without a connection to talk about drops */
#define RX_NO_CONN \
	[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD, \
	[CM_IN_RX_MRA_OTHER] = BAD, [CM_IN_RX_REJ] = BAD, \
	[CM_IN_RX_REP] = BAD, [CM_IN_RX_RTU] = BAD, \
	[CM_IN_RX_DREQ] = BAD, [CM_IN_RX_DREP] = BAD

#define NO_SIDR_RX \
	[CM_IN_RX_SIDR_REQ] = BAD, [CM_IN_RX_SIDR_REP] = BAD

/* a state where no timer of the id can fire */
#define NO_TIMER \
	[CM_IN_TIMEOUT_REQ] = IGN, [CM_IN_TIMEOUT_REP] = IGN, \
	[CM_IN_TIMEOUT_DREQ] = IGN, [CM_IN_TIMEOUT_SIDR_REQ] = IGN, \
	[CM_IN_TIMEWAIT_EXIT] = IGN

/*
 * THE table, [state][input]; every cell is written (a unit test walks it).
 *
 * A REQ reaches an id by the peer's comm ID: only a passive id that has
 * not entered TIMEWAIT or IDLE (both forget the peer's comm ID and QPN, as
 * Linux's cm_remove_remote(): a REQ then is a new one), or a SIDR_REQ_RCVD
 * id whose request ID it repeats. A stale REQ (REQ_STALE, IBTA 12.9.8.3.2)
 * reaches the id holding the peer's QPN, after its REJ Stale Connection:
 * an established connection is disconnected, one being set up is left to
 * finish or time out. A SIDR_REQ reaches SIDR_REQ_RCVD ids only.
 */
const struct cm_cell cm_fsm[ROCE_CM_STATE_MAX][CM_IN_MAX] = {
	[S_IDLE] = {
		[CM_IN_RX_REQ] = T(cm_step_req_new, S_REQ_RCVD),
		[CM_IN_RX_REQ_STALE] = IGN,
		/* filtered before the table (an idle id has no connection) */
		[CM_IN_RX_MRA_REQ] = UNK, [CM_IN_RX_MRA_REP] = UNK,
		[CM_IN_RX_MRA_OTHER] = UNK, [CM_IN_RX_REJ] = UNK,
		[CM_IN_RX_REP] = UNK, [CM_IN_RX_RTU] = UNK,
		[CM_IN_RX_DREQ] = UNK, [CM_IN_RX_DREP] = UNK,
		[CM_IN_RX_SIDR_REQ] = T(cm_step_sidr_req_new, S_SIDR_REQ_RCVD),
		/* a retransmitted request answered twice */
		[CM_IN_RX_SIDR_REP] = DUP,
		[CM_IN_CONNECT] = T(cm_step_connect, S_REQ_SENT),
		[CM_IN_ACCEPT] = ILL, [CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = ILL,
		/* entering IDLE frees a destroyed id */
		[CM_IN_DESTROY] = T(NULL, S_IDLE),
		[CM_IN_SIDR_REQUEST] = T(cm_step_sidr_request,
					 S_SIDR_REQ_SENT),
		[CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		NO_TIMER,
	},
	[S_REQ_SENT] = {
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = T(cm_step_mra, S_MRA_REQ_RCVD),
		[CM_IN_RX_MRA_REP] = BAD, [CM_IN_RX_MRA_OTHER] = BAD,
		/* Stale Connection: the peer holds our QPN, wait it out */
		[CM_IN_RX_REJ] = TA(cm_step_rej_req, S_IDLE, S_TIMEWAIT),
		/* a QP that does not move: REJ, CONNECT_ERROR, IDLE */
		[CM_IN_RX_REP] = TV(cm_step_rep, S_REP_RCVD, S_EST, S_IDLE),
		[CM_IN_RX_RTU] = BAD, [CM_IN_RX_DREQ] = BAD,
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = T(cm_step_abort_req, S_IDLE),
		[CM_IN_DESTROY] = T(cm_step_abort_req, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = T(cm_step_req_timeout, S_IDLE),
		[CM_IN_TIMEOUT_REP] = IGN, [CM_IN_TIMEOUT_DREQ] = IGN,
		[CM_IN_TIMEOUT_SIDR_REQ] = IGN, [CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_REQ_RCVD] = {
		/* the application is slow: ask for patience (IBTA 12.6.6) */
		[CM_IN_RX_REQ] = TDUP(cm_step_req_mra, S_MRA_REQ_SENT),
		[CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD,
		[CM_IN_RX_MRA_OTHER] = BAD,
		/* the active side gives up its REQ (figure 99) */
		[CM_IN_RX_REJ] = TA(cm_step_rej_req, S_IDLE, S_TIMEWAIT),
		[CM_IN_RX_REP] = BAD, [CM_IN_RX_RTU] = BAD,
		[CM_IN_RX_DREQ] = BAD, [CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL,
		/* a QP that does not move or no send slot: IDLE */
		[CM_IN_ACCEPT] = TA(cm_step_accept, S_REP_SENT, S_IDLE),
		[CM_IN_REJECT] = T(cm_step_reject, S_IDLE),
		[CM_IN_DISCONNECT] = T(cm_step_reject, S_IDLE),
		[CM_IN_DESTROY] = T(cm_step_reject, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = T(cm_step_reject, S_IDLE),
		NO_TIMER,
	},
	[S_MRA_REQ_SENT] = {
		[CM_IN_RX_REQ] = TDUP(cm_step_req_mra, S_MRA_REQ_SENT),
		[CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD,
		[CM_IN_RX_MRA_OTHER] = BAD,
		/* the active side gives up its REQ (figure 99) */
		[CM_IN_RX_REJ] = TA(cm_step_rej_req, S_IDLE, S_TIMEWAIT),
		[CM_IN_RX_REP] = BAD, [CM_IN_RX_RTU] = BAD,
		[CM_IN_RX_DREQ] = BAD, [CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL,
		[CM_IN_ACCEPT] = TA(cm_step_accept, S_REP_SENT, S_IDLE),
		[CM_IN_REJECT] = T(cm_step_reject, S_IDLE),
		[CM_IN_DISCONNECT] = T(cm_step_reject, S_IDLE),
		[CM_IN_DESTROY] = T(cm_step_reject, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = T(cm_step_reject, S_IDLE),
		NO_TIMER,
	},
	[S_MRA_REQ_RCVD] = {
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = T(cm_step_mra, S_MRA_REQ_RCVD),
		[CM_IN_RX_MRA_REP] = BAD, [CM_IN_RX_MRA_OTHER] = BAD,
		[CM_IN_RX_REJ] = TA(cm_step_rej_req, S_IDLE, S_TIMEWAIT),
		[CM_IN_RX_REP] = TV(cm_step_rep, S_REP_RCVD, S_EST, S_IDLE),
		[CM_IN_RX_RTU] = BAD, [CM_IN_RX_DREQ] = BAD,
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = T(cm_step_abort_req, S_IDLE),
		[CM_IN_DESTROY] = T(cm_step_abort_req, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = T(cm_step_req_timeout, S_IDLE),
		[CM_IN_TIMEOUT_REP] = IGN, [CM_IN_TIMEOUT_DREQ] = IGN,
		[CM_IN_TIMEOUT_SIDR_REQ] = IGN, [CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_REP_SENT] = {
		/* our REP's own retries answer it */
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD,
		[CM_IN_RX_MRA_REP] = T(cm_step_mra, S_MRA_REP_RCVD),
		[CM_IN_RX_MRA_OTHER] = BAD,
		[CM_IN_RX_REJ] = T(cm_step_rej_rep, S_TIMEWAIT),
		[CM_IN_RX_REP] = BAD,
		[CM_IN_RX_RTU] = T(cm_step_rtu, S_EST),
		/* the RTU was lost, the peer is established and disconnects */
		[CM_IN_RX_DREQ] = TV(cm_step_dreq, S_DREQ_RCVD, S_TIMEWAIT,
				     CM_SAME),
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = T(cm_step_abort_rep, S_TIMEWAIT),
		[CM_IN_DESTROY] = T(cm_step_abort_rep, S_TIMEWAIT),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = IGN,
		[CM_IN_TIMEOUT_REP] = T(cm_step_rep_timeout, S_TIMEWAIT),
		[CM_IN_TIMEOUT_DREQ] = IGN, [CM_IN_TIMEOUT_SIDR_REQ] = IGN,
		[CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_REP_RCVD] = {
		/* only while cm_step_rep() runs */
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		RX_NO_CONN, NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		[CM_IN_DESTROY] = IGN,
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		NO_TIMER,
	},
	[S_MRA_REP_RCVD] = {
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD,
		[CM_IN_RX_MRA_REP] = T(cm_step_mra, S_MRA_REP_RCVD),
		[CM_IN_RX_MRA_OTHER] = BAD,
		[CM_IN_RX_REJ] = T(cm_step_rej_rep, S_TIMEWAIT),
		[CM_IN_RX_REP] = BAD,
		[CM_IN_RX_RTU] = T(cm_step_rtu, S_EST),
		[CM_IN_RX_DREQ] = TV(cm_step_dreq, S_DREQ_RCVD, S_TIMEWAIT,
				     CM_SAME),
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = T(cm_step_abort_rep, S_TIMEWAIT),
		[CM_IN_DESTROY] = T(cm_step_abort_rep, S_TIMEWAIT),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = IGN,
		[CM_IN_TIMEOUT_REP] = T(cm_step_rep_timeout, S_TIMEWAIT),
		[CM_IN_TIMEOUT_DREQ] = IGN, [CM_IN_TIMEOUT_SIDR_REQ] = IGN,
		[CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_EST] = {
		[CM_IN_RX_REQ] = DUP,
		/* no DREP comes: the DREQ fails to leave, TIMEWAIT at once */
		[CM_IN_RX_REQ_STALE] = TA(cm_step_disconnect, S_DREQ_SENT,
					  S_TIMEWAIT),
		[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD,
		[CM_IN_RX_MRA_OTHER] = BAD,
		[CM_IN_RX_REJ] = T(cm_step_rej_est, S_TIMEWAIT),
		/* our RTU was lost (IBTA 12.9.8.3.1) */
		[CM_IN_RX_REP] = TDUP(cm_step_rep_rtu, CM_SAME),
		[CM_IN_RX_RTU] = BAD,
		[CM_IN_RX_DREQ] = TV(cm_step_dreq, S_DREQ_RCVD, S_TIMEWAIT,
				     CM_SAME),
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL,
		[CM_IN_DISCONNECT] = TA(cm_step_disconnect, S_DREQ_SENT,
					S_TIMEWAIT),
		[CM_IN_DESTROY] = TA(cm_step_disconnect, S_DREQ_SENT,
				     S_TIMEWAIT),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		NO_TIMER,
	},
	[S_DREQ_SENT] = {
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD,
		[CM_IN_RX_MRA_OTHER] = BAD, [CM_IN_RX_REJ] = BAD,
		[CM_IN_RX_REP] = BAD, [CM_IN_RX_RTU] = BAD,
		/* both sides disconnect at once */
		[CM_IN_RX_DREQ] = TV(cm_step_dreq, S_DREQ_RCVD, S_TIMEWAIT,
				     CM_SAME),
		[CM_IN_RX_DREP] = T(cm_step_drep, S_TIMEWAIT),
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		/* finishing on its own */
		[CM_IN_DESTROY] = IGN,
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = IGN, [CM_IN_TIMEOUT_REP] = IGN,
		[CM_IN_TIMEOUT_DREQ] = T(cm_step_dreq_timeout, S_TIMEWAIT),
		[CM_IN_TIMEOUT_SIDR_REQ] = IGN, [CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_DREQ_RCVD] = {
		/* only while cm_step_dreq() runs */
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		RX_NO_CONN, NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		[CM_IN_DESTROY] = IGN,
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		NO_TIMER,
	},
	[S_TIMEWAIT] = {
		/* never reached: timewait forgets the peer's comm ID */
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		[CM_IN_RX_MRA_REQ] = BAD, [CM_IN_RX_MRA_REP] = BAD,
		[CM_IN_RX_MRA_OTHER] = BAD, [CM_IN_RX_REJ] = BAD,
		[CM_IN_RX_REP] = BAD, [CM_IN_RX_RTU] = BAD,
		/* our DREP was lost (IBTA 12.9.8.3.1) */
		[CM_IN_RX_DREQ] = TDUP(cm_step_dreq_drep, CM_SAME),
		[CM_IN_RX_DREP] = BAD,
		NO_SIDR_RX,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		[CM_IN_DESTROY] = IGN,
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = IGN, [CM_IN_TIMEOUT_REP] = IGN,
		[CM_IN_TIMEOUT_DREQ] = IGN, [CM_IN_TIMEOUT_SIDR_REQ] = IGN,
		[CM_IN_TIMEWAIT_EXIT] = T(cm_step_timewait_exit, S_IDLE),
	},
	[S_SIDR_REQ_SENT] = {
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		RX_NO_CONN,
		[CM_IN_RX_SIDR_REQ] = BAD,
		[CM_IN_RX_SIDR_REP] = T(cm_step_sidr_rep, S_IDLE),
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		[CM_IN_DESTROY] = T(NULL, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL, [CM_IN_SIDR_REPLY] = ILL,
		[CM_IN_LISTEN_STOP] = IGN,
		[CM_IN_TIMEOUT_REQ] = IGN, [CM_IN_TIMEOUT_REP] = IGN,
		[CM_IN_TIMEOUT_DREQ] = IGN,
		[CM_IN_TIMEOUT_SIDR_REQ] = T(cm_step_sidr_timeout, S_IDLE),
		[CM_IN_TIMEWAIT_EXIT] = IGN,
	},
	[S_SIDR_REQ_RCVD] = {
		/* a REQ repeating a SIDR request's ID */
		[CM_IN_RX_REQ] = DUP, [CM_IN_RX_REQ_STALE] = IGN,
		RX_NO_CONN,
		/* waits for the application: the reply answers both */
		[CM_IN_RX_SIDR_REQ] = DUP,
		[CM_IN_RX_SIDR_REP] = BAD,
		[CM_IN_CONNECT] = ILL, [CM_IN_ACCEPT] = ILL,
		[CM_IN_REJECT] = ILL, [CM_IN_DISCONNECT] = ILL,
		/* IBTA 12.11: a request nobody will answer is rejected */
		[CM_IN_DESTROY] = T(cm_step_sidr_reply, S_IDLE),
		[CM_IN_SIDR_REQUEST] = ILL,
		[CM_IN_SIDR_REPLY] = T(cm_step_sidr_reply, S_IDLE),
		[CM_IN_LISTEN_STOP] = T(cm_step_sidr_reply, S_IDLE),
		NO_TIMER,
	},
};

/* ---- applying a transition ---- */

/* IDLE: the connection is forgotten; a destroyed id is freed. */
static void
cm_enter_idle(struct roce_cm *cm, struct roce_cm_id *id)
{
	cm_cancel_send(cm, id);
	roce_timer_cancel(&cm->timers, &id->tw_timer);
	cm_hk_remove_all(cm, id);
	cm_id_unpend(id);
	id->state = ROCE_CM_IDLE;
	if (id->orphan)
		cm_id_free(cm, id);
}

/* IBTA 12.9.6 TimeWait: hold the QPN and comm ID a while, then let them go. */
static void
cm_enter_timewait(struct roce_cm *cm, struct roce_cm_id *id, uint64_t now)
{
	cm_cancel_send(cm, id);
	cm_id_unpend(id);
	/*
	 * The peer's comm ID and QPN are free again (Linux cm_remove_remote()):
	 * a new REQ from that QP, a process of the peer's restarted with the
	 * same QPNs, is a new connection, not a stale one.
	 */
	cm_hk_remove_all(cm, id);
	id->state = ROCE_CM_TIMEWAIT;
	roce_timer_arm(&cm->timers, &id->tw_timer,
		       now + 2 * cm_ticks(cm, cm->cfg.packet_life_time) +
		       cm_ticks(cm, id->local_ack_timeout));
}

static void
cm_enter(struct cm_ctx *c, uint8_t s)
{
	switch (s) {
	case CM_SAME:
		break;
	case ROCE_CM_IDLE:
		cm_enter_idle(c->cm, c->id);
		break;
	case ROCE_CM_TIMEWAIT:
		cm_enter_timewait(c->cm, c->id, c->now);
		break;
	default:
		c->id->state = (enum roce_cm_state)s;
		break;
	}
}

int
cm_fsm_apply(struct cm_ctx *c, enum cm_input in)
{
	struct roce_cm *cm = c->cm;
	struct roce_cm_id *id = c->id;
	enum roce_cm_state s = id->state;
	const struct cm_cell *cell = &cm_fsm[s][in];
	enum cm_out out;

	cm->fsm_hits[s][in]++;
	c->in = in;
	c->ret = 0;
	switch ((enum cm_cell_kind)cell->kind) {
	case CM_K_TRANS:
		break;
	case CM_K_DUP:
		cm->cnt[CM_CNT_RX_DUP]++;
		return 0;
	case CM_K_BAD_STATE:
		cm->cnt[c->rx != NULL && c->rx->dup && cm_inputs[in].bad_dup ?
			CM_CNT_RX_DUP : CM_CNT_RX_BAD_STATE]++;
		return 0;
	case CM_K_UNKNOWN:
		cm_rx_unknown(c, in);
		return 0;
	case CM_K_IGNORE:
		return 0;
	case CM_K_ILLEGAL:
	case CM_K_NONE:
	default:
		return -EINVAL;
	}
	if (cell->dup)
		cm->cnt[CM_CNT_RX_DUP]++;
	if (cell->via != CM_SAME)
		id->state = (enum roce_cm_state)cell->via;
	out = cell->step != NULL ? cell->step(c) : CM_OUT_NEXT;
	switch (out) {
	case CM_OUT_NEXT:
		cm_enter(c, cell->next);
		break;
	case CM_OUT_ALT:
		cm_enter(c, cell->alt);
		break;
	case CM_OUT_FAIL:
		id->state = s;
		break;
	}
	return c->ret;
}

/* ---- timers ---- */

/* A tracked REQ, REP, DREQ or SIDR_REQ of ours got no answer (IBTA 12.9.2). */
void
cm_send_timeout(void *cb_ctx, void *ctx, struct roce_mad_send *s,
		uint64_t now)
{
	struct roce_cm_id *id = ctx;
	struct cm_ctx c = { .cm = cb_ctx, .id = id, .now = now };

	if (id == NULL || id->send != s)
		return;
	id->send = NULL;
	cm_fsm_apply(&c, (enum cm_input)id->send_timeout);
}

void
cm_timewait_cb(struct roce_timer *t, uint64_t now)
{
	struct roce_cm_id *id = t->arg;
	struct cm_ctx c = { .cm = id->cm, .id = id, .now = now };

	cm_fsm_apply(&c, CM_IN_TIMEWAIT_EXIT);
}
