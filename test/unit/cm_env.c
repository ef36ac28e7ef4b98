/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-CM harness of the CM tests (cm_env.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "cm_env.h"
#include "roce_icrc.h"
#include "roce_mad.h"
#include "roce_parse.h"
#include "roce_worker.h"
#include "test_common.h"

/* ------------------------------------------------------------------ */
/* Two CMs over the fake link                                         */
/* ------------------------------------------------------------------ */



int
env_tx(void *ctx, struct rte_mbuf *m)
{
	struct side *s = ctx;
	struct fake_ep *to = &s->env->l->ep[s->idx ^ 1];
	struct roce_pkt pkt;

	if (s->capture_attr != 0 && s->captured == NULL &&
	    roce_parse(m, &pkt) == 0 && roce_pkt_mad_hdr(&pkt) != NULL &&
	    roce_mad_attr_id(roce_pkt_mad_hdr(&pkt)) == s->capture_attr)
		s->captured = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (roce_parse(m, &pkt) == 0 && roce_pkt_mad_hdr(&pkt) != NULL) {
		/* CM message after the MAD header; Vendor ID: REQ 5-7, REP 15/19/23 */
		uint8_t *cmm = rte_pktmbuf_mtod_offset(m, uint8_t *,
				pkt.payload_off + ROCE_MAD_HDR_LEN);
		uint16_t attr = roce_mad_attr_id(roce_pkt_mad_hdr(&pkt));

		if (attr == ROCE_CM_ATTR_REQ)
			memcpy(to == &s->env->l->ep[1] ? s->env->s[1].req_vendor :
			       s->env->s[0].req_vendor, cmm + 5, 3);
		if (attr == ROCE_CM_ATTR_REP && s->echo_vendor) {
			cmm[15] = s->req_vendor[0];
			cmm[19] = s->req_vendor[1];
			cmm[23] = s->req_vendor[2];
			CU_ASSERT(roce_icrc_fill_mbuf(m, RTE_ETHER_HDR_LEN) == 0);
		}
	}
	if (s->drop_tx || to->in_tail - to->in_head > to->in_mask) {
		rte_pktmbuf_free(m);
		return 0;
	}
	to->inbox[to->in_tail++ & to->in_mask] = m;
	return 0;
}

static void
env_gsi(void *ctx, struct rte_mbuf *m, const struct roce_pkt *pkt,
	uint64_t now)
{
	struct side *s = ctx;

	RTE_SET_USED(pkt);
	roce_cm_rx(s->cm, m, now);
}

static struct roce_qp *
env_qp(struct side *s)
{
	struct roce_qp_init_attr ia;
	struct fake_ep *ep = &s->env->l->ep[s->idx];

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(ep->pd, &ia);
}

/* roce_cm_config::selective_repeat of side 1's CM (sr_case()) */
uint8_t env_sr_default[2];

struct cm_env *
env_create(uint8_t max_cm_retries, uint32_t max_ids)
{
	struct cm_env *e = calloc(1, sizeof(*e));
	struct roce_cm_config cfg;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	e->l = fake_link_create(0x5eed, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->l);
	for (i = 0; i < 2; i++) {
		struct side *s = &e->s[i];
		struct fake_ep *ep = &e->l->ep[i];

		s->env = e;
		s->idx = i;
		memset(&cfg, 0, sizeof(cfg));
		cfg.dev = ep->dev;
		cfg.pool = test_mbuf_pool();
		cfg.tx = env_tx;
		cfg.tx_ctx = s;
		cfg.hz = rte_get_tsc_hz();
		memcpy(cfg.mac.addr_bytes, ep->mac, 6);
		cfg.max_ids = max_ids;
		cfg.max_cm_retries = max_cm_retries;
		cfg.seed = 100 + (uint32_t)i;
		cfg.socket = SOCKET_ID_ANY;
		cfg.selective_repeat = env_sr_default[i];
		s->cm = roce_cm_create(&cfg);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->cm);
		roce_worker_set_gsi_handler(ep->w, env_gsi, s);
		s->cq = roce_create_cq(ep->w, 256);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->cq);
		s->qp = env_qp(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->qp);
	}
	return e;
}

uint64_t env_fsm_hits[ROCE_CM_STATE_MAX][CM_IN_MAX];

unsigned int
env_check_transitions(void)
{
	unsigned int s, in, missing = 0, n = 0;

	for (s = 0; s < ROCE_CM_STATE_MAX; s++)
		for (in = 0; in < CM_IN_MAX; in++) {
			if (cm_fsm[s][in].kind != CM_K_TRANS)
				continue;
			n++;
			if (env_fsm_hits[s][in] != 0)
				continue;
			missing++;
			printf("\n  transition never applied: %s in %s",
			       cm_input_name(in), roce_cm_state_name(s));
		}
	printf("\n  %u transitions, %u applied ", n, n - missing);
	CU_ASSERT_TRUE(n > 0);
	CU_ASSERT_EQUAL(missing, 0);
	return missing;
}

void
env_destroy(struct cm_env *e)
{
	unsigned int st, in;
	int i;

	fake_link_settle(e->l, 100000);
	for (i = 0; i < 2; i++) {
		struct side *s = &e->s[i];

		roce_worker_set_gsi_handler(e->l->ep[i].w, NULL, NULL);
		for (st = 0; st < ROCE_CM_STATE_MAX; st++)
			for (in = 0; in < CM_IN_MAX; in++)
				env_fsm_hits[st][in] += s->cm->fsm_hits[st][in];
		roce_cm_destroy(s->cm);
		if (s->qp != NULL)
			CU_ASSERT_EQUAL(roce_destroy_qp(s->qp), 0);
		CU_ASSERT_EQUAL(roce_destroy_cq(s->cq), 0);
		rte_pktmbuf_free(s->captured);
	}
	fake_link_destroy(e->l);
	free(e);
}

/*
 * One step: the link (workers, GSI to the CMs), the CM timers, events.
 * When nothing moved and @p jump, the clock jumps to the next CM deadline.
 */
unsigned int
env_step_j(struct cm_env *e, bool jump)
{
	unsigned int act = fake_link_step(e->l);
	uint64_t next = UINT64_MAX, t;
	int i;

	for (i = 0; i < 2; i++) {
		struct side *s = &e->s[i];

		act += roce_cm_poll(s->cm, e->l->tsc);
		while (!s->hold_events && s->nev < EVQ &&
		       roce_cm_get_event(s->cm, &s->ev[s->nev]))
			s->nev++;
	}
	if (act != 0 || !jump)
		return act;
	for (i = 0; i < 2; i++) {
		t = roce_cm_next_deadline(e->s[i].cm);
		if (t < next)
			next = t;
	}
	if (next != UINT64_MAX && next > e->l->tsc)
		e->l->tsc = next;
	return 0;
}

unsigned int
env_step(struct cm_env *e)
{
	return env_step_j(e, true);
}

/* The first event of @p type on side @p s from index @p from, or NULL. */
struct roce_cm_event *
find_ev(struct side *s, enum roce_cm_event_type type, unsigned int from)
{
	unsigned int i;

	for (i = from; i < s->nev; i++)
		if (s->ev[i].type == type)
			return &s->ev[i];
	return NULL;
}

/* Step until side @p s has an event of @p type (after index @p from). */
struct roce_cm_event *
wait_ev(struct cm_env *e, struct side *s, enum roce_cm_event_type type,
	unsigned int from)
{
	struct roce_cm_event *ev;
	long i;

	for (i = 0; i < 200000; i++) {
		ev = find_ev(s, type, from);
		if (ev != NULL)
			return ev;
		env_step(e);
	}
	return find_ev(s, type, from);
}

/* Deliver everything in flight, without moving the clock to a deadline. */
void
settle(struct cm_env *e)
{
	int idle = 0;
	long i;

	for (i = 0; i < 100000 && idle < 4; i++)
		idle = env_step_j(e, false) == 0 ? idle + 1 : 0;
}

/* Run until no CM timer is left (retries, timewaits). */
void
drain(struct cm_env *e)
{
	long i;

	for (i = 0; i < 1000000; i++)
		if (env_step(e) == 0 &&
		    roce_cm_next_deadline(e->s[0].cm) == UINT64_MAX &&
		    roce_cm_next_deadline(e->s[1].cm) == UINT64_MAX)
			break;
}

void
addr_of(const struct cm_env *e, int side, uint16_t port,
	struct roce_cm_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->ip_ver = 4;
	a->gid = e->l->ep[side].gid;
	a->port = port;
}

void
param_default(struct roce_cm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 4;
	p->initiator_depth = 4;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->min_rnr_timer = 1;
	p->local_ack_timeout = 14;
}

int
env_connect(struct cm_env *e, int from, struct roce_cm_id **id,
	    const void *pd, uint8_t pd_len)
{
	struct roce_cm_addr src, dst;
	struct roce_cm_conn_param p;

	addr_of(e, from, 0, &src);
	addr_of(e, from ^ 1, CM_PORT, &dst);
	param_default(&p);
	p.private_data = pd;
	p.private_data_len = pd_len;
	return roce_cm_connect(e->s[from].cm, &src, &dst,
			       e->l->ep[from ^ 1].mac, e->s[from].qp, &p,
			       &e->s[from], e->l->tsc, id);
}

void
env_listen(struct cm_env *e, int side, uint32_t backlog)
{
	struct roce_cm_addr a;

	addr_of(e, side, CM_PORT, &a);
	e->lis = roce_cm_listen(e->s[side].cm, &a, ROCE_CM_PS_TCP, backlog,
				e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
}

enum roce_qp_state
qp_state(struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	CU_ASSERT_EQUAL(roce_query_qp(qp, &a, &ia), 0);
	return a.qp_state;
}

void
qp_reset(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	CU_ASSERT_EQUAL(roce_modify_qp(qp, &a, ROCE_QP_STATE), 0);
}

/* One SEND from side 0's QP to side 1's over the connection. */
void
send_one(struct cm_env *e)
{
	static uint8_t buf[2][64];
	struct roce_mr *mr[2];
	struct roce_sge sge[2];
	struct roce_recv_wr rwr;
	struct roce_send_wr swr;
	struct roce_wc wc;
	unsigned int posted;
	int i, got[2] = { 0, 0 };
	long n;

	for (i = 0; i < 2; i++) {
		mr[i] = roce_reg_mr(e->l->ep[i].pd, buf[i], sizeof(buf[i]),
				    ROCE_ACCESS_LOCAL_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr[i]);
		sge[i].addr = (uintptr_t)buf[i];
		sge[i].length = sizeof(buf[i]);
		sge[i].lkey = roce_mr_lkey(mr[i]);
	}
	memset(buf[0], 0xa5, sizeof(buf[0]));
	memset(buf[1], 0, sizeof(buf[1]));
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 11;
	rwr.sg_list = &sge[1];
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_recv(e->s[1].qp, &rwr, 1, &posted), 0);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 22;
	swr.opcode = ROCE_WR_SEND;
	swr.send_flags = ROCE_SEND_SIGNALED;
	swr.sg_list = &sge[0];
	swr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_send(e->s[0].qp, &swr, 1, &posted), 0);
	for (n = 0; n < 100000 && !(got[0] && got[1]); n++) {
		env_step(e);
		for (i = 0; i < 2; i++)
			while (roce_poll_cq(e->s[i].cq, &wc, 1) == 1) {
				CU_ASSERT_EQUAL(wc.status, ROCE_WC_SUCCESS);
				CU_ASSERT_EQUAL(wc.wr_id, i == 0 ? 22u : 11u);
				got[i] = 1;
			}
	}
	CU_ASSERT_TRUE(got[0] && got[1]);
	CU_ASSERT_EQUAL(buf[1][63], 0xa5);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr[i]), 0);
}

/* Connect 0 -> 1, accept, established on both sides; returns the ids. */
void
establish(struct cm_env *e, struct roce_cm_id **a, struct roce_cm_id **p,
	  const char *pd)
{
	unsigned int f0 = e->s[0].nev, f1 = e->s[1].nev;
	struct roce_cm_conn_param prm;
	struct roce_cm_event *ev;
	char rep_pd[] = "accepted";

	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, a, pd,
					  pd != NULL ? (uint8_t)strlen(pd) : 0),
			      0);
	CU_ASSERT_EQUAL(roce_cm_id_state(*a), ROCE_CM_REQ_SENT);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, f1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->listener, e->lis);
	CU_ASSERT_PTR_EQUAL(ev->context, e);
	CU_ASSERT_EQUAL(ev->local.port, CM_PORT);
	CU_ASSERT_EQUAL(memcmp(ev->remote.gid.raw, e->l->ep[0].gid.raw, 16),
			0);
	CU_ASSERT_EQUAL(ev->remote_qpn, roce_qp_num(e->s[0].qp));
	CU_ASSERT_EQUAL(ev->responder_resources, 4);
	if (pd != NULL)
		CU_ASSERT_EQUAL(memcmp(ev->private_data, pd, strlen(pd)), 0);
	*p = ev->id;
	CU_ASSERT_EQUAL(roce_cm_id_state(*p), ROCE_CM_REQ_RCVD);
	param_default(&prm);
	prm.private_data = rep_pd;
	prm.private_data_len = sizeof(rep_pd);
	CU_ASSERT_EQUAL_FATAL(roce_cm_accept(*p, e->s[1].qp, &prm, &e->s[1],
					     e->l->tsc), 0);
	CU_ASSERT_EQUAL(qp_state(e->s[1].qp), ROCE_QPS_RTS);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_ESTABLISHED, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->id, *a);
	CU_ASSERT_EQUAL(memcmp(ev->private_data, rep_pd, sizeof(rep_pd)), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED, f1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->id, *p);
	CU_ASSERT_EQUAL(roce_cm_id_state(*a), ROCE_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(roce_cm_id_state(*p), ROCE_CM_ESTABLISHED);
	CU_ASSERT_EQUAL(qp_state(e->s[0].qp), ROCE_QPS_RTS);
}

/* Disconnect from @p who, both sides through timewait, ids destroyed. */
void
teardown(struct cm_env *e, struct roce_cm_id *id[2], int who)
{
	unsigned int f[2] = { e->s[0].nev, e->s[1].nev };
	int i;

	CU_ASSERT_EQUAL(roce_cm_disconnect(id[who], e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[who]), ROCE_CM_DREQ_SENT);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[i],
					       ROCE_CM_EVENT_DISCONNECTED,
					       f[i]));
		CU_ASSERT_EQUAL(qp_state(e->s[i].qp), ROCE_QPS_ERR);
	}
	for (i = 0; i < 2; i++) {
		CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[i],
					       ROCE_CM_EVENT_TIMEWAIT_EXIT,
					       f[i]));
		CU_ASSERT_EQUAL(roce_cm_id_state(id[i]), ROCE_CM_IDLE);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(id[i], e->l->tsc), 0);
		qp_reset(e->s[i].qp);
	}
}
