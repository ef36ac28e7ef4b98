/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM's state machine table (lib/roce/roce_cm_fsm.c) walked: every
 * (state, input) cell is written and of a kind its input may have, a few
 * cells read directly, and every transition driven on two CMs over the fake
 * link (cm_env.h), each checked against its cell: the cell was the one
 * applied and the id ends in the state the cell names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "cm_env.h"
#include "fake_link.h"
#include "roce_cm.h"
#include "roce_cm_priv.h"
#include "roce_mad.h"
#include "test_common.h"

#define UD_QPN 0x00abcdefu
#define PEER_CID 0x4242u	/* a scripted peer's comm ID */

static bool
is_state(uint8_t s)
{
	return s < ROCE_CM_STATE_MAX;
}

/* Every cell written, each of a kind its input may have, well formed. */
static void
test_table_shape(void)
{
	unsigned int s, in, trans = 0, drops = 0, bad = 0;
	bool entered[ROCE_CM_STATE_MAX] = { false };

	for (s = 0; s < ROCE_CM_STATE_MAX; s++) {
		for (in = 0; in < CM_IN_MAX; in++) {
			const struct cm_cell *c = &cm_fsm[s][in];
			enum cm_input_class cls = cm_input_class(in);
			bool ok;

			switch (c->kind) {
			case CM_K_TRANS:
				ok = (is_state(c->next) || c->next == CM_SAME) &&
					(is_state(c->via) || c->via == CM_SAME) &&
					(is_state(c->alt) || c->alt == CM_SAME) &&
					(c->step != NULL || c->next != CM_SAME) &&
					(!c->dup || cls == CM_CLASS_RX);
				if (is_state(c->next))
					entered[c->next] = true;
				if (is_state(c->via))
					entered[c->via] = true;
				if (is_state(c->alt))
					entered[c->alt] = true;
				trans++;
				break;
			case CM_K_DUP:
			case CM_K_BAD_STATE:
				ok = cls == CM_CLASS_RX;
				drops++;
				break;
			case CM_K_UNKNOWN:
				/* only an idle id has no connection */
				ok = cls == CM_CLASS_RX && s == ROCE_CM_IDLE;
				drops++;
				break;
			case CM_K_ILLEGAL:
				ok = cls == CM_CLASS_API;
				drops++;
				break;
			case CM_K_IGNORE:
				ok = true;
				drops++;
				break;
			default:
				ok = false;	/* an unwritten cell */
				break;
			}
			if (c->kind != CM_K_TRANS)
				ok = ok && c->step == NULL && !c->dup &&
					c->via == CM_SAME &&
					c->next == CM_SAME && c->alt == CM_SAME;
			if (!ok) {
				bad++;
				printf("\n  bad cell: %s in %s",
				       cm_input_name(in),
				       roce_cm_state_name(s));
			}
		}
	}
	/* every state can be entered; none is entered from nowhere */
	for (s = 1; s < ROCE_CM_STATE_MAX; s++) {
		CU_ASSERT_TRUE(entered[s]);
		if (!entered[s])
			printf("\n  state never entered: %s",
			       roce_cm_state_name(s));
	}
	/* the states that last a step only: no input moves out of them */
	for (in = 0; in < CM_IN_MAX; in++) {
		CU_ASSERT_NOT_EQUAL(cm_fsm[ROCE_CM_REP_RCVD][in].kind,
				    CM_K_TRANS);
		CU_ASSERT_NOT_EQUAL(cm_fsm[ROCE_CM_DREQ_RCVD][in].kind,
				    CM_K_TRANS);
	}
	printf("\n  %u states x %u inputs: %u transitions, %u drops and "
	       "ignored calls ", ROCE_CM_STATE_MAX, CM_IN_MAX, trans, drops);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(trans + drops, ROCE_CM_STATE_MAX * CM_IN_MAX);
	for (in = 0; in < CM_IN_MAX; in++)
		CU_ASSERT_STRING_NOT_EQUAL(cm_input_name(in), "UNKNOWN");
}

/*
 * The transitions as IBTA 12.9.6 (figures 98-101) and 12.11 have them and
 * as this CM implements them, written apart from the table: the table
 * must have exactly these, and the walk checks the CM against these.
 * SAME: the state does not change; alt: the step's other outcome.
 */
#define SAME CM_SAME
static const struct spec_trans {
	uint8_t s, in, next, alt;
} spec[] = {
	{ ROCE_CM_IDLE, CM_IN_RX_REQ, ROCE_CM_REQ_RCVD, SAME },
	{ ROCE_CM_IDLE, CM_IN_RX_SIDR_REQ, ROCE_CM_SIDR_REQ_RCVD, SAME },
	{ ROCE_CM_IDLE, CM_IN_CONNECT, ROCE_CM_REQ_SENT, SAME },
	{ ROCE_CM_IDLE, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_IDLE, CM_IN_SIDR_REQUEST, ROCE_CM_SIDR_REQ_SENT, SAME },
	/* active: our REQ out */
	{ ROCE_CM_REQ_SENT, CM_IN_RX_MRA_REQ, ROCE_CM_MRA_REQ_RCVD, SAME },
	{ ROCE_CM_REQ_SENT, CM_IN_RX_REJ, ROCE_CM_IDLE, ROCE_CM_TIMEWAIT },
	{ ROCE_CM_REQ_SENT, CM_IN_RX_REP, ROCE_CM_ESTABLISHED, ROCE_CM_IDLE },
	{ ROCE_CM_REQ_SENT, CM_IN_DISCONNECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_REQ_SENT, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_REQ_SENT, CM_IN_TIMEOUT_REQ, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_RX_MRA_REQ, ROCE_CM_MRA_REQ_RCVD, SAME },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_RX_REJ, ROCE_CM_IDLE, ROCE_CM_TIMEWAIT },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_RX_REP, ROCE_CM_ESTABLISHED,
	  ROCE_CM_IDLE },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_DISCONNECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_RCVD, CM_IN_TIMEOUT_REQ, ROCE_CM_IDLE, SAME },
	/* passive: a REQ for the application */
	{ ROCE_CM_REQ_RCVD, CM_IN_RX_REQ, ROCE_CM_MRA_REQ_SENT, SAME },
	{ ROCE_CM_REQ_RCVD, CM_IN_RX_REJ, ROCE_CM_IDLE, ROCE_CM_TIMEWAIT },
	{ ROCE_CM_REQ_RCVD, CM_IN_ACCEPT, ROCE_CM_REP_SENT, ROCE_CM_IDLE },
	{ ROCE_CM_REQ_RCVD, CM_IN_REJECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_REQ_RCVD, CM_IN_DISCONNECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_REQ_RCVD, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_REQ_RCVD, CM_IN_LISTEN_STOP, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_RX_REQ, ROCE_CM_MRA_REQ_SENT, SAME },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_RX_REJ, ROCE_CM_IDLE, ROCE_CM_TIMEWAIT },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_ACCEPT, ROCE_CM_REP_SENT, ROCE_CM_IDLE },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_REJECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_DISCONNECT, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_MRA_REQ_SENT, CM_IN_LISTEN_STOP, ROCE_CM_IDLE, SAME },
	/* passive: our REP out */
	{ ROCE_CM_REP_SENT, CM_IN_RX_MRA_REP, ROCE_CM_MRA_REP_RCVD, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_RX_REJ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_RX_RTU, ROCE_CM_ESTABLISHED, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_RX_DREQ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_DISCONNECT, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_DESTROY, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_REP_SENT, CM_IN_TIMEOUT_REP, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_RX_MRA_REP, ROCE_CM_MRA_REP_RCVD, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_RX_REJ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_RX_RTU, ROCE_CM_ESTABLISHED, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_RX_DREQ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_DISCONNECT, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_DESTROY, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_MRA_REP_RCVD, CM_IN_TIMEOUT_REP, ROCE_CM_TIMEWAIT, SAME },
	/* connected */
	{ ROCE_CM_ESTABLISHED, CM_IN_RX_REQ_STALE, ROCE_CM_DREQ_SENT,
	  ROCE_CM_TIMEWAIT },
	{ ROCE_CM_ESTABLISHED, CM_IN_RX_REJ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_ESTABLISHED, CM_IN_RX_REP, SAME, SAME },
	{ ROCE_CM_ESTABLISHED, CM_IN_RX_DREQ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_ESTABLISHED, CM_IN_DISCONNECT, ROCE_CM_DREQ_SENT,
	  ROCE_CM_TIMEWAIT },
	{ ROCE_CM_ESTABLISHED, CM_IN_DESTROY, ROCE_CM_DREQ_SENT,
	  ROCE_CM_TIMEWAIT },
	{ ROCE_CM_DREQ_SENT, CM_IN_RX_DREQ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_DREQ_SENT, CM_IN_RX_DREP, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_DREQ_SENT, CM_IN_TIMEOUT_DREQ, ROCE_CM_TIMEWAIT, SAME },
	{ ROCE_CM_TIMEWAIT, CM_IN_RX_DREQ, SAME, SAME },
	{ ROCE_CM_TIMEWAIT, CM_IN_TIMEWAIT_EXIT, ROCE_CM_IDLE, SAME },
	/* service ID resolution */
	{ ROCE_CM_SIDR_REQ_SENT, CM_IN_RX_SIDR_REP, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_SIDR_REQ_SENT, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_SIDR_REQ_SENT, CM_IN_TIMEOUT_SIDR_REQ, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_SIDR_REQ_RCVD, CM_IN_DESTROY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_SIDR_REQ_RCVD, CM_IN_SIDR_REPLY, ROCE_CM_IDLE, SAME },
	{ ROCE_CM_SIDR_REQ_RCVD, CM_IN_LISTEN_STOP, ROCE_CM_IDLE, SAME },
};

static const struct spec_trans *
spec_of(unsigned int s, unsigned int in)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(spec); i++)
		if (spec[i].s == s && spec[i].in == in)
			return &spec[i];
	return NULL;
}

/* The table's transitions are exactly the spec's, to the same states. */
static void
test_table_spec(void)
{
	unsigned int s, in, n = 0;

	for (s = 0; s < ROCE_CM_STATE_MAX; s++)
		for (in = 0; in < CM_IN_MAX; in++) {
			const struct cm_cell *c = &cm_fsm[s][in];
			const struct spec_trans *t = spec_of(s, in);
			bool ok;

			if (c->kind != CM_K_TRANS) {
				ok = t == NULL;
			} else {
				ok = t != NULL && t->next == c->next &&
					t->alt == c->alt;
				n++;
			}
			CU_ASSERT_TRUE(ok);
			if (!ok)
				printf("\n  %s in %s: not as the spec",
				       cm_input_name(in),
				       roce_cm_state_name(s));
		}
	CU_ASSERT_EQUAL(n, RTE_DIM(spec));
}

/* A few cells read from the table. */
static void
test_table_cells(void)
{
	const struct cm_cell *c;

	/* REP in REQ_SENT: REP_RCVD while the QP moves, then ESTABLISHED */
	c = &cm_fsm[ROCE_CM_REQ_SENT][CM_IN_RX_REP];
	CU_ASSERT_EQUAL(c->kind, CM_K_TRANS);
	CU_ASSERT_EQUAL(c->via, ROCE_CM_REP_RCVD);
	CU_ASSERT_EQUAL(c->next, ROCE_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(c->alt, ROCE_CM_IDLE);	/* the QP would not move */
	CU_ASSERT_PTR_EQUAL(c->step, cm_step_rep);
	/* DREQ in ESTABLISHED: DREQ_RCVD while the DREP goes, TIMEWAIT */
	c = &cm_fsm[ROCE_CM_ESTABLISHED][CM_IN_RX_DREQ];
	CU_ASSERT_EQUAL(c->kind, CM_K_TRANS);
	CU_ASSERT_EQUAL(c->via, ROCE_CM_DREQ_RCVD);
	CU_ASSERT_EQUAL(c->next, ROCE_CM_TIMEWAIT);
	CU_ASSERT_PTR_EQUAL(c->step, cm_step_dreq);
	CU_ASSERT_FALSE(c->dup);
	/* the same DREQ again in TIMEWAIT: a duplicate answered, no move */
	c = &cm_fsm[ROCE_CM_TIMEWAIT][CM_IN_RX_DREQ];
	CU_ASSERT_EQUAL(c->kind, CM_K_TRANS);
	CU_ASSERT_TRUE(c->dup);
	CU_ASSERT_EQUAL(c->next, CM_SAME);
	CU_ASSERT_PTR_EQUAL(c->step, cm_step_dreq_drep);
	/* a REP again once established: the RTU again */
	c = &cm_fsm[ROCE_CM_ESTABLISHED][CM_IN_RX_REP];
	CU_ASSERT_TRUE(c->dup);
	CU_ASSERT_EQUAL(c->next, CM_SAME);
	CU_ASSERT_PTR_EQUAL(c->step, cm_step_rep_rtu);
	/* a REQ again while the application has not answered: MRA */
	c = &cm_fsm[ROCE_CM_REQ_RCVD][CM_IN_RX_REQ];
	CU_ASSERT_TRUE(c->dup);
	CU_ASSERT_EQUAL(c->next, ROCE_CM_MRA_REQ_SENT);
	/* REJ Stale Connection of our REQ: TIMEWAIT, any other: IDLE */
	c = &cm_fsm[ROCE_CM_MRA_REQ_RCVD][CM_IN_RX_REJ];
	CU_ASSERT_EQUAL(c->next, ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(c->alt, ROCE_CM_TIMEWAIT);
	/* the drops */
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_IDLE][CM_IN_RX_REP].kind,
			CM_K_UNKNOWN);
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_REQ_SENT][CM_IN_RX_RTU].kind,
			CM_K_BAD_STATE);
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_REP_SENT][CM_IN_RX_REQ].kind,
			CM_K_DUP);
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_ESTABLISHED][CM_IN_ACCEPT].kind,
			CM_K_ILLEGAL);
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_DREQ_SENT][CM_IN_DESTROY].kind,
			CM_K_IGNORE);
	CU_ASSERT_EQUAL(cm_fsm[ROCE_CM_ESTABLISHED][CM_IN_TIMEOUT_REQ].kind,
			CM_K_IGNORE);
}

/* ---- scripted messages ---- */

/* @p mad from side @p from, received by side from ^ 1 now. */
static void
inject(struct cm_env *e, int from, const struct roce_mad *mad)
{
	struct fake_ep *src = &e->l->ep[from], *dst = &e->l->ep[from ^ 1];
	struct roce_mad_addr addr;
	struct rte_mbuf *m;

	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, src->mac, 6);
	memcpy(addr.remote_mac.addr_bytes, dst->mac, 6);
	memcpy(addr.local_gid, src->gid.raw, 16);
	memcpy(addr.remote_gid, dst->gid.raw, 16);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	CU_ASSERT_EQUAL_FATAL(roce_mad_frame_build(test_mbuf_pool(), mad,
						   &addr, 0, 0, &m), 0);
	roce_cm_rx(e->s[from ^ 1].cm, m, e->l->tsc);
}

static uint64_t next_tid = 0x5a000000;

static void
send_mra(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid,
	 uint8_t msg)
{
	struct roce_cm_mra mra;
	struct roce_mad mad;

	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = lcid;
	mra.remote_comm_id = rcid;
	mra.msg_mraed = msg;
	mra.service_timeout = 18;
	roce_cm_mra_pack(&mad, next_tid++, &mra);
	inject(e, from, &mad);
}

static void
send_rej(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid,
	 uint16_t reason)
{
	struct roce_cm_rej rej;
	struct roce_mad mad;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = lcid;
	rej.remote_comm_id = rcid;
	rej.reason = reason;
	roce_cm_rej_pack(&mad, next_tid++, &rej);
	inject(e, from, &mad);
}

static void
send_rep(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid,
	 uint32_t qpn)
{
	struct roce_cm_rep rep;
	struct roce_mad mad;

	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = lcid;
	rep.remote_comm_id = rcid;
	rep.local_qpn = qpn;
	rep.starting_psn = 0x123;
	rep.responder_resources = 4;
	rep.initiator_depth = 4;
	rep.rnr_retry_count = 7;
	roce_cm_rep_pack(&mad, next_tid++, &rep);
	inject(e, from, &mad);
}

static void
send_rtu(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid)
{
	struct roce_cm_rtu rtu;
	struct roce_mad mad;

	memset(&rtu, 0, sizeof(rtu));
	rtu.local_comm_id = lcid;
	rtu.remote_comm_id = rcid;
	roce_cm_rtu_pack(&mad, next_tid++, &rtu);
	inject(e, from, &mad);
}

static void
send_dreq(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid,
	  uint32_t remote_qpn)
{
	struct roce_cm_dreq dreq;
	struct roce_mad mad;

	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = lcid;
	dreq.remote_comm_id = rcid;
	dreq.remote_qpn = remote_qpn;
	roce_cm_dreq_pack(&mad, next_tid++, &dreq);
	inject(e, from, &mad);
}

static void
send_drep(struct cm_env *e, int from, uint32_t lcid, uint32_t rcid)
{
	struct roce_cm_drep drep;
	struct roce_mad mad;

	memset(&drep, 0, sizeof(drep));
	drep.local_comm_id = lcid;
	drep.remote_comm_id = rcid;
	roce_cm_drep_pack(&mad, next_tid++, &drep);
	inject(e, from, &mad);
}

/* A new REQ (new comm ID) from the QP @p qpn of side @p from. */
static void
send_req(struct cm_env *e, int from, uint32_t lcid, uint32_t qpn)
{
	struct roce_cm_req req;
	struct roce_mad mad;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = lcid;
	req.local_qpn = qpn;
	req.service_id = roce_cm_service_id(ROCE_CM_PS_TCP, CM_PORT);
	req.path_mtu = ROCE_MTU_1024;
	memcpy(req.primary.local_gid, e->l->ep[from].gid.raw, 16);
	memcpy(req.primary.remote_gid, e->l->ep[from ^ 1].gid.raw, 16);
	roce_cm_req_pack(&mad, next_tid++, &req);
	inject(e, from, &mad);
}

static void
send_sidr_rep(struct cm_env *e, int from, uint32_t request_id)
{
	struct roce_cm_sidr_rep rep;
	struct roce_mad mad;

	memset(&rep, 0, sizeof(rep));
	rep.request_id = request_id;
	rep.status = ROCE_CM_SIDR_SUCCESS;
	rep.qpn = UD_QPN;
	rep.qkey = 0x11111111;
	roce_cm_sidr_rep_pack(&mad, next_tid++, &rep);
	inject(e, from, &mad);
}

/* ---- the walk ---- */

/* Two CMs and the ids of a connection, one of them in the state walked. */
struct walk {
	struct cm_env *e;
	struct roce_cm_id *id[2];	/* side 0 active, side 1 passive */
	int side;			/* the side whose id is walked */
};

static void
sidr_listen(struct cm_env *e)
{
	struct roce_cm_addr a;

	addr_of(e, 1, CM_PORT, &a);
	e->lis = roce_cm_listen(e->s[1].cm, &a, ROCE_CM_PS_UDP, 0, e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
}

static void
sidr_request(struct cm_env *e, struct roce_cm_id **id)
{
	struct roce_cm_addr src, dst;

	addr_of(e, 0, 0, &src);
	addr_of(e, 1, CM_PORT, &dst);
	CU_ASSERT_EQUAL_FATAL(roce_cm_sidr_request(e->s[0].cm, &src, &dst,
						   e->l->ep[1].mac,
						   ROCE_CM_PS_UDP, NULL, 0,
						   &e->s[0], e->l->tsc, id),
			      0);
}

static struct roce_cm_id *
wait_request(struct cm_env *e, enum roce_cm_event_type type)
{
	struct roce_cm_event *ev = wait_ev(e, &e->s[1], type, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	return ev->id;
}

/* A new environment with an id in state @p s (IDLE: a rejected request). */
static void
walk_to(struct walk *w, enum roce_cm_state s)
{
	struct roce_cm_conn_param p;
	struct cm_env *e;

	memset(w, 0, sizeof(*w));
	w->e = e = env_create(0, 0);
	switch (s) {
	case ROCE_CM_SIDR_REQ_SENT:
	case ROCE_CM_SIDR_REQ_RCVD:
		sidr_listen(e);
		e->s[0].drop_tx = s == ROCE_CM_SIDR_REQ_SENT;
		sidr_request(e, &w->id[0]);
		if (s == ROCE_CM_SIDR_REQ_RCVD)
			w->id[1] = wait_request(e, ROCE_CM_EVENT_SIDR_REQUEST);
		w->side = s == ROCE_CM_SIDR_REQ_RCVD;
		break;
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
		env_listen(e, 1, 0);
		e->s[0].drop_tx = true;
		CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &w->id[0], NULL, 0), 0);
		if (s == ROCE_CM_MRA_REQ_RCVD)
			send_mra(e, 1, PEER_CID, w->id[0]->local_comm_id,
				 ROCE_CM_MSG_REQ);
		w->side = 0;
		break;
	case ROCE_CM_IDLE:
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		env_listen(e, 1, 0);
		CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &w->id[0], NULL, 0), 0);
		w->id[1] = wait_request(e, ROCE_CM_EVENT_CONNECT_REQUEST);
		w->side = 1;
		if (s == ROCE_CM_IDLE) {
			CU_ASSERT_EQUAL(roce_cm_reject(w->id[1],
				ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				e->l->tsc), 0);
		} else if (s == ROCE_CM_MRA_REQ_SENT) {
			/* the active side's REQ again: a duplicate, MRA */
			e->l->tsc = roce_cm_next_deadline(e->s[0].cm);
			settle(e);
		} else if (s != ROCE_CM_REQ_RCVD) {
			e->s[1].drop_tx = true;
			param_default(&p);
			CU_ASSERT_EQUAL(roce_cm_accept(w->id[1], e->s[1].qp,
						       &p, NULL, e->l->tsc), 0);
			if (s == ROCE_CM_MRA_REP_RCVD)
				send_mra(e, 0, w->id[0]->local_comm_id,
					 w->id[1]->local_comm_id,
					 ROCE_CM_MSG_REP);
		}
		break;
	case ROCE_CM_ESTABLISHED:
	case ROCE_CM_DREQ_SENT:
	case ROCE_CM_TIMEWAIT:
		env_listen(e, 1, 0);
		establish(e, &w->id[0], &w->id[1], NULL);
		w->side = 0;
		e->s[0].drop_tx = s == ROCE_CM_DREQ_SENT;
		if (s != ROCE_CM_ESTABLISHED) {
			CU_ASSERT_EQUAL(roce_cm_disconnect(w->id[0], e->l->tsc),
					0);
			settle(e);
		}
		break;
	default:
		CU_FAIL_FATAL("no way to that state");
	}
	CU_ASSERT_EQUAL_FATAL(roce_cm_id_state(w->id[w->side]), s);
}

static uint64_t
hits(const struct cm_env *e, enum roce_cm_state s, enum cm_input in)
{
	return e->s[0].cm->fsm_hits[s][in] + e->s[1].cm->fsm_hits[s][in];
}

/* Run side @p side's timers until cell (@p s, @p in) is applied. */
static void
fire_timer(struct cm_env *e, int side, enum roce_cm_state s,
	   enum cm_input in)
{
	uint64_t h = hits(e, s, in), t;
	int i;

	for (i = 0; i < 64 && hits(e, s, in) == h; i++) {
		t = roce_cm_next_deadline(e->s[side].cm);
		if (t == UINT64_MAX)
			break;
		e->l->tsc = t;
		roce_cm_poll(e->s[side].cm, t);
	}
}

/*
 * Input @p in for the walked id (state @p s); @p alt: make its step take
 * the alternative. Returns the id whose state the cell names.
 */
static struct roce_cm_id *
walk_input(struct walk *w, enum roce_cm_state s, enum cm_input in, bool alt)
{
	struct cm_env *e = w->e;
	struct roce_cm_id *id = w->id[w->side];
	struct roce_cm_id *peer = w->id[w->side ^ 1];
	uint32_t peer_cid = peer != NULL ? peer->local_comm_id : PEER_CID;
	struct roce_cm_conn_param p;
	uint64_t t = e->l->tsc;
	int from = w->side ^ 1;

	switch (in) {
	case CM_IN_RX_REQ:
		/* the REQ again: the active side's retry */
		e->l->tsc = roce_cm_next_deadline(e->s[0].cm);
		settle(e);
		break;
	case CM_IN_RX_REQ_STALE:
		/* a new REQ from the QP of side 0, for side 1's connection */
		send_req(e, 0, PEER_CID, w->id[0]->local_qpn);
		return w->id[1];
	case CM_IN_RX_MRA_REQ:
		send_mra(e, from, peer_cid, id->local_comm_id, ROCE_CM_MSG_REQ);
		break;
	case CM_IN_RX_MRA_REP:
		send_mra(e, from, peer_cid, id->local_comm_id, ROCE_CM_MSG_REP);
		break;
	case CM_IN_RX_REJ:
		send_rej(e, from, peer_cid, id->local_comm_id,
			 alt ? ROCE_CM_REJ_STALE_CONN :
			 ROCE_CM_REJ_CONSUMER_DEFINED);
		break;
	case CM_IN_RX_REP:
		if (alt)	/* a QP in RESET cannot move to RTR */
			qp_reset(e->s[w->side].qp);
		send_rep(e, from, peer_cid, id->local_comm_id,
			 roce_qp_num(e->s[from].qp));
		break;
	case CM_IN_RX_RTU:
		send_rtu(e, from, peer_cid, id->local_comm_id);
		break;
	case CM_IN_RX_DREQ:
		send_dreq(e, from, peer_cid, id->local_comm_id, id->local_qpn);
		break;
	case CM_IN_RX_DREP:
		send_drep(e, from, peer_cid, id->local_comm_id);
		break;
	case CM_IN_RX_SIDR_REP:
		send_sidr_rep(e, from, id->local_comm_id);
		break;
	case CM_IN_ACCEPT:
		param_default(&p);
		CU_ASSERT_EQUAL(roce_cm_accept(id, e->s[1].qp, &p, NULL, t), 0);
		break;
	case CM_IN_REJECT:
		CU_ASSERT_EQUAL(roce_cm_reject(id, ROCE_CM_REJ_CONSUMER_DEFINED,
					       NULL, 0, t), 0);
		break;
	case CM_IN_DISCONNECT:
		CU_ASSERT_EQUAL(roce_cm_disconnect(id, t), 0);
		break;
	case CM_IN_DESTROY:
		CU_ASSERT_EQUAL(roce_cm_destroy_id(id, t), 0);
		break;
	case CM_IN_SIDR_REPLY:
		CU_ASSERT_EQUAL(roce_cm_sidr_reply(id, ROCE_CM_SIDR_SUCCESS,
						   UD_QPN, 0x11111111, NULL,
						   0, t), 0);
		break;
	case CM_IN_LISTEN_STOP:
		CU_ASSERT_EQUAL(roce_cm_listen_stop(e->lis, t), 0);
		break;
	case CM_IN_TIMEOUT_REQ:
	case CM_IN_TIMEOUT_REP:
	case CM_IN_TIMEOUT_DREQ:
	case CM_IN_TIMEOUT_SIDR_REQ:
	case CM_IN_TIMEWAIT_EXIT:
		fire_timer(e, w->side, s, in);
		break;
	default:
		CU_FAIL("no way to make that input");
		break;
	}
	return id;
}

/* The inputs that make a new id: the state they lead to is walked to. */
static bool
walk_new_id(enum roce_cm_state s, enum cm_input in)
{
	return s == ROCE_CM_IDLE && in != CM_IN_DESTROY;
}

/*
 * Drive cell (@p s, @p in) and check that it was the cell applied and that
 * the id is where the spec (not the table) says.
 */
static void
walk_cell(enum roce_cm_state s, enum cm_input in, bool alt)
{
	const struct spec_trans *t = spec_of(s, in);
	uint8_t want;
	struct roce_cm_id *id;
	struct walk w;
	uint64_t h;
	bool ok;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	want = alt ? t->alt : t->next;
	if (want == CM_SAME)
		want = (uint8_t)s;
	if (walk_new_id(s, in)) {
		/* connect, REQ, sidr_request, SIDR_REQ: the new id's state */
		walk_to(&w, (enum roce_cm_state)want);
		ok = hits(w.e, s, in) >= 1;
		id = w.id[w.side];
	} else {
		walk_to(&w, s);
		h = hits(w.e, s, in);
		id = walk_input(&w, s, in, alt);
		ok = hits(w.e, s, in) == h + 1;
	}
	if (in == CM_IN_DESTROY && want == ROCE_CM_IDLE)
		ok = ok && !id->in_use;		/* freed on entering IDLE */
	else
		ok = ok && id->in_use && roce_cm_id_state(id) == want;
	CU_ASSERT_TRUE(ok);
	if (!ok)
		printf("\n  %s in %s%s: %s, not %s", cm_input_name(in),
		       roce_cm_state_name(s), alt ? " (alternative)" : "",
		       id->in_use ? roce_cm_state_name(roce_cm_id_state(id)) :
		       "freed", roce_cm_state_name((enum roce_cm_state)want));
	env_destroy(w.e);
}

/* Every transition of the table driven and checked, then their count. */
static void
test_walk(void)
{
	unsigned int s, in, n = 0;

	memset(env_fsm_hits, 0, sizeof(env_fsm_hits));
	for (s = 0; s < ROCE_CM_STATE_MAX; s++)
		for (in = 0; in < CM_IN_MAX; in++)
			if (cm_fsm[s][in].kind == CM_K_TRANS) {
				walk_cell(s, in, false);
				n++;
			}
	/* the alternatives: REJ Stale Connection, a QP that cannot move */
	walk_cell(ROCE_CM_REQ_SENT, CM_IN_RX_REJ, true);
	walk_cell(ROCE_CM_MRA_REQ_RCVD, CM_IN_RX_REJ, true);
	walk_cell(ROCE_CM_REQ_SENT, CM_IN_RX_REP, true);
	walk_cell(ROCE_CM_MRA_REQ_RCVD, CM_IN_RX_REP, true);
	printf("\n  %u transitions walked ", n);
	CU_ASSERT_EQUAL(env_check_transitions(), 0);
}

/* REP in REQ_SENT and DREQ in ESTABLISHED, with what they send. */
static void
test_live_cells(void)
{
	struct roce_cm *cm;
	struct walk w;

	walk_to(&w, ROCE_CM_REQ_SENT);
	cm = w.e->s[0].cm;
	send_rep(w.e, 1, PEER_CID, w.id[0]->local_comm_id,
		 roce_qp_num(w.e->s[1].qp));
	CU_ASSERT_EQUAL(roce_cm_id_state(w.id[0]),
			cm_fsm[ROCE_CM_REQ_SENT][CM_IN_RX_REP].next);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_tx_rtu"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_established"), 1);
	CU_ASSERT_EQUAL(qp_state(w.e->s[0].qp), ROCE_QPS_RTS);
	/* the REP again: the RTU again, a duplicate */
	send_rep(w.e, 1, PEER_CID, w.id[0]->local_comm_id,
		 roce_qp_num(w.e->s[1].qp));
	CU_ASSERT_EQUAL(roce_cm_id_state(w.id[0]), ROCE_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_tx_rtu"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_rx_dup"), 1);
	/* the peer's DREQ: DREP, QP to ERR, TIMEWAIT */
	send_dreq(w.e, 1, PEER_CID, w.id[0]->local_comm_id,
		  w.id[0]->local_qpn);
	CU_ASSERT_EQUAL(roce_cm_id_state(w.id[0]),
			cm_fsm[ROCE_CM_ESTABLISHED][CM_IN_RX_DREQ].next);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_tx_drep"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_disconnected"), 1);
	CU_ASSERT_EQUAL(qp_state(w.e->s[0].qp), ROCE_QPS_ERR);
	/* and again: the DREP again, still TIMEWAIT */
	send_dreq(w.e, 1, PEER_CID, w.id[0]->local_comm_id,
		  w.id[0]->local_qpn);
	CU_ASSERT_EQUAL(roce_cm_id_state(w.id[0]), ROCE_CM_TIMEWAIT);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_tx_drep"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_rx_dup"), 2);
	/* a call the table calls illegal */
	CU_ASSERT_EQUAL(roce_cm_disconnect(w.id[0], w.e->l->tsc), -EINVAL);
	CU_ASSERT_EQUAL(cm->fsm_hits[ROCE_CM_TIMEWAIT][CM_IN_DISCONNECT], 1);
	env_destroy(w.e);
}

/*
 * The active side gives up a request the passive application has not
 * answered (disconnect, destroy or REQ timeout: a REJ Timeout whose remote
 * comm ID is 0, the active side never learnt ours): the pending request is
 * rejected (REQ_RCVD or MRA_REQ_SENT to IDLE, IBTA 12.9.6 figure 99), the
 * application told, the listener's backlog freed.
 */
static void
test_req_abandoned(void)
{
	struct roce_cm_event *ev;
	struct roce_cm_id *a, *p;
	struct cm_env *e = env_create(0, 0);
	unsigned int from;
	int mra;

	env_listen(e, 1, 1);	/* a backlog of one */
	for (mra = 0; mra < 2; mra++) {
		from = e->s[1].nev;
		qp_reset(e->s[0].qp);
		CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &a, NULL, 0), 0);
		ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, from);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
		p = ev->id;
		if (mra) {	/* the REQ again: MRA_REQ_SENT */
			e->l->tsc = roce_cm_next_deadline(e->s[0].cm);
			settle(e);
		}
		CU_ASSERT_EQUAL(roce_cm_id_state(p), mra ?
				ROCE_CM_MRA_REQ_SENT : ROCE_CM_REQ_RCVD);
		CU_ASSERT_EQUAL(roce_cm_disconnect(a, e->l->tsc), 0);
		CU_ASSERT_EQUAL(roce_cm_id_state(a), ROCE_CM_IDLE);
		settle(e);
		CU_ASSERT_EQUAL(roce_cm_id_state(p), ROCE_CM_IDLE);
		ev = find_ev(&e->s[1], ROCE_CM_EVENT_REJECTED, from);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
		CU_ASSERT_PTR_EQUAL(ev->id, p);
		CU_ASSERT_EQUAL(ev->rej_reason, ROCE_CM_REJ_TIMEOUT);
		/* too late to accept */
		CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	}
	/* the backlog is free: a third request is delivered */
	from = e->s[1].nev;
	qp_reset(e->s[0].qp);
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &a, NULL, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1],
				       ROCE_CM_EVENT_CONNECT_REQUEST, from));
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_backlog_full"), 0);
	env_destroy(e);
}

static CU_TestInfo table_tests[] = {
	{ "every cell written, of its input's kinds", test_table_shape },
	{ "its transitions are the spec's", test_table_spec },
	{ "cells read from the table", test_table_cells },
	{ "REP in REQ_SENT, DREQ in ESTABLISHED, live", test_live_cells },
	{ "a request the active side gives up is rejected",
	  test_req_abandoned },
	{ "every transition driven and checked", test_walk },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cm_table", NULL, NULL, NULL, NULL, table_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
