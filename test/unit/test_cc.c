/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control over the fake link (doc/guides/congestion.rst): ECT
 * marking and the ICRC of marked frames, CNP generation and its format,
 * the DCQCN cut/recovery arithmetic, pacing of WRITE and READ to the
 * limited rate (in simulated time), and two senders sharing a bottleneck
 * that marks CE: they converge to a fair share in bounded simulated time,
 * the queue stays bounded and every byte arrives intact.
 *
 * With CC_TRACE=<file> the convergence test writes its samples (time in
 * us, rate and throughput of each flow in Mbit/s, queue bytes) for
 * devtools/cc-plot.sh.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fake_link.h"
#include "roce_build.h"
#include "roce_cc.h"
#include "roce_engine.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_verbs.h"
#include "roce_worker.h"
#include "test_common.h"

#define NFLOW 2
#define MSG (64u << 10)		/* bytes per WRITE */
#define SLOTS 8			/* destination slots per flow */
#define REGION (MSG * SLOTS)
#define MAX_ITERS 20000000L

struct flow {
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];	/* [0] sender on side 0, [1] receiver on side 1 */
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	uint64_t posted, done, errors;
	uint64_t bytes_done;
};

struct env {
	struct fake_link *l;
	struct flow f[NFLOW];
	uint32_t mtu;
};

static uint64_t
us_tsc(uint64_t us)
{
	return us * (rte_get_tsc_hz() / 1000000);
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed * 101 + (i >> 9));
}

static int
flow_init(struct env *e, struct flow *f, uint32_t seed,
	  const struct fake_conn_opts *o)
{
	struct roce_qp_init_attr ia;
	int i;

	for (i = 0; i < 2; i++) {
		f->cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		if (f->cq[i] == NULL)
			return -1;
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = f->cq[i];
		ia.recv_cq = f->cq[i];
		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = 64;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		f->qp[i] = roce_create_qp(e->l->ep[i].pd, &ia);
		if (f->qp[i] == NULL)
			return -1;
		f->buf[i] = aligned_alloc(4096, REGION);
		if (f->buf[i] == NULL)
			return -1;
		if (i == 0)
			fill(f->buf[i], REGION, seed);
		else
			memset(f->buf[i], 0xee, REGION);
		f->mr[i] = roce_reg_mr(e->l->ep[i].pd, f->buf[i], REGION,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE |
				       ROCE_ACCESS_REMOTE_READ);
		if (f->mr[i] == NULL)
			return -1;
	}
	return fake_link_connect(e->l, f->qp[0], f->qp[1], o);
}

static void
flow_fini(struct flow *f)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (f->qp[i] != NULL)
			roce_destroy_qp(f->qp[i]);
		if (f->mr[i] != NULL)
			roce_dereg_mr(f->mr[i]);
		if (f->cq[i] != NULL)
			roce_destroy_cq(f->cq[i]);
		free(f->buf[i]);
	}
	memset(f, 0, sizeof(*f));
}

static void
env_destroy(struct env *e)
{
	int i;

	if (e == NULL)
		return;
	if (e->l != NULL)
		fake_link_settle(e->l, 200000);
	for (i = 0; i < NFLOW; i++)
		flow_fini(&e->f[i]);
	fake_link_destroy(e->l);
	free(e);
}

/* A link with @p nflow connected RC flows (MTU @p mtu) and CC parameters. */
static struct env *
env_create(uint64_t seed, int nflow, enum roce_mtu mtu,
	   const uint32_t (*params)[2], unsigned int nparams)
{
	struct env *e = calloc(1, sizeof(*e));
	struct fake_conn_opts o;
	unsigned int i, s;

	if (e == NULL)
		return NULL;
	e->l = fake_link_create(seed, false);
	if (e->l == NULL)
		goto fail;
	for (s = 0; s < 2; s++)
		for (i = 0; i < nparams; i++)
			if (roce_cc_set(e->l->ep[s].dev, params[i][0],
					params[i][1]) != 0)
				goto fail;
	fake_conn_opts_default(&o);
	o.mtu = mtu;
	o.timeout = 18;		/* 1 s: CC, not the ACK timer, rules here */
	e->mtu = roce_mtu_bytes(mtu);
	for (i = 0; i < (unsigned int)nflow; i++)
		if (flow_init(e, &e->f[i], (uint32_t)i + 1, &o) != 0)
			goto fail;
	return e;
fail:
	CU_FAIL("env_create");
	env_destroy(e);
	return NULL;
}

static int
post_rdma(struct flow *f, enum roce_wr_opcode op, uint32_t off, uint32_t len)
{
	struct roce_sge sg = {
		.addr = (uint64_t)(uintptr_t)(f->buf[0] + off),
		.length = len,
		.lkey = roce_mr_lkey(f->mr[0]),
	};
	struct roce_send_wr wr = {
		.wr_id = len,
		.opcode = op,
		.send_flags = ROCE_SEND_SIGNALED,
		.sg_list = &sg,
		.num_sge = 1,
	};
	unsigned int posted = 0;

	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(f->buf[1] + off);
	wr.rdma.rkey = roce_mr_rkey(f->mr[1]);
	if (roce_post_send(f->qp[0], &wr, 1, &posted) != 0)
		return -1;
	f->posted++;
	return 0;
}

static void
flow_poll(struct flow *f)
{
	struct roce_wc wc[16];
	int n, i;

	n = roce_poll_cq(f->cq[0], wc, RTE_DIM(wc));
	for (i = 0; i < n; i++) {
		f->done++;
		if (wc[i].status != ROCE_WC_SUCCESS)
			f->errors++;
		else
			f->bytes_done += wc[i].wr_id;
	}
}

static bool
flow_idle(void *arg)
{
	struct flow *f = arg;

	flow_poll(f);
	return f->done == f->posted;
}

static struct roce_qp_cc_info
cc_info(const struct roce_qp *qp)
{
	struct roce_qp_cc_info i;

	CU_ASSERT_EQUAL(roce_qp_cc_query(qp, &i), 0);
	return i;
}

/* ------------------------------------------------------------------ */
/* Parameters                                                         */
/* ------------------------------------------------------------------ */

static void
test_params(void)
{
	struct fake_link *l = fake_link_create(1, false);
	struct roce_device *dev;
	const struct roce_cc_param_desc *d;
	uint32_t v;
	unsigned int i;

	CU_ASSERT_FATAL(l != NULL);
	dev = l->ep[0].dev;
	/* every parameter has a name that maps back to it and its default */
	for (i = 0; i < ROCE_CC_PARAM_MAX; i++) {
		d = roce_cc_param_info(i);
		CU_ASSERT_FATAL(d != NULL);
		CU_ASSERT_EQUAL(roce_cc_param_by_name(d->name), (int)i);
		CU_ASSERT_EQUAL(roce_cc_get(dev, i, &v), 0);
		CU_ASSERT_EQUAL(v, d->def);
		CU_ASSERT(d->def >= d->min && d->def <= d->max);
	}
	CU_ASSERT_PTR_NULL(roce_cc_param_info(ROCE_CC_PARAM_MAX));
	/* mlx5 spellings and aliases */
	CU_ASSERT_EQUAL(roce_cc_param_by_name("rpg_ai_rate"), ROCE_CC_RP_AI_RATE);
	CU_ASSERT_EQUAL(roce_cc_param_by_name("ai_rate"), ROCE_CC_RP_AI_RATE);
	CU_ASSERT_EQUAL(roce_cc_param_by_name("dce_tcp_g"), ROCE_CC_RP_DCE_TCP_G);
	CU_ASSERT_EQUAL(roce_cc_param_by_name("rp_alpha_update_period"),
			ROCE_CC_RP_DCE_TCP_RTT);
	CU_ASSERT_EQUAL(roce_cc_param_by_name("min_time_between_cnps"),
			ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS);
	CU_ASSERT_EQUAL(roce_cc_param_by_name("no_such"), -ENOENT);
	CU_ASSERT_EQUAL(roce_cc_param_by_name(NULL), -EINVAL);
	/* mlx5 defaults */
	roce_cc_get(dev, ROCE_CC_RP_TIME_RESET, &v);
	CU_ASSERT_EQUAL(v, 300);
	roce_cc_get(dev, ROCE_CC_RP_BYTE_RESET, &v);
	CU_ASSERT_EQUAL(v, 32767);
	roce_cc_get(dev, ROCE_CC_RP_DCE_TCP_G, &v);
	CU_ASSERT_EQUAL(v, 1019);
	/* ranges */
	CU_ASSERT_EQUAL(roce_cc_set(dev, ROCE_CC_RP_MIN_DEC_FAC, 101), -ERANGE);
	CU_ASSERT_EQUAL(roce_cc_set(dev, ROCE_CC_RP_GD, 9), -ERANGE);
	CU_ASSERT_EQUAL(roce_cc_set(dev, ROCE_CC_PARAM_MAX, 1), -EINVAL);
	CU_ASSERT_EQUAL(roce_cc_set(NULL, ROCE_CC_RP_GD, 11), -EINVAL);
	CU_ASSERT_EQUAL(roce_cc_get(dev, ROCE_CC_PARAM_MAX, &v), -EINVAL);
	CU_ASSERT_EQUAL(roce_cc_set(dev, ROCE_CC_RP_AI_RATE, 40), 0);
	roce_cc_get(dev, ROCE_CC_RP_AI_RATE, &v);
	CU_ASSERT_EQUAL(v, 40);
	CU_ASSERT_EQUAL(roce_qp_cc_query(NULL, NULL), -EINVAL);
	fake_link_destroy(l);
}

/* ------------------------------------------------------------------ */
/* ECN marking on the wire                                            */
/* ------------------------------------------------------------------ */

struct ecn_seen {
	uint64_t frames[2][4];	/* per side, per ECN codepoint */
	uint64_t icrc_bad;
	uint64_t cnp[2];
	struct roce_pkt cnp_pkt;
	uint8_t cnp_rsvd[ROCE_CNP_RSVD_LEN];
	bool cnp_rsvd_zero;
	uint8_t cnp_dscp, cnp_ecn;
	uint32_t cnp_dqpn;
	bool cnp_becn;
};

static void
capture_ecn(void *ctx, int from, const struct rte_mbuf *m)
{
	struct ecn_seen *s = ctx;
	struct roce_pkt pkt;

	if (roce_parse(m, &pkt) != 0)
		return;
	s->frames[from][pkt.ecn]++;
	if (roce_icrc_verify_mbuf(m, pkt.l3_off) != 0)
		s->icrc_bad++;
	if (pkt.opcode == ROCE_OP_CNP) {
		const struct roce_cnp *c = roce_pkt_cnp(&pkt);
		static const uint8_t zero[ROCE_CNP_RSVD_LEN];

		s->cnp[from]++;
		s->cnp_dscp = pkt.dscp;
		s->cnp_ecn = pkt.ecn;
		s->cnp_dqpn = roce_bth_dqpn(roce_pkt_bth(&pkt));
		s->cnp_becn = roce_bth_becn(roce_pkt_bth(&pkt));
		s->cnp_rsvd_zero = c != NULL && memcmp(c, zero, sizeof(zero)) == 0;
	}
}

static void
write_and_wait(struct env *e, struct flow *f, uint32_t len)
{
	CU_ASSERT_EQUAL_FATAL(post_rdma(f, ROCE_WR_RDMA_WRITE, 0, len), 0);
	CU_ASSERT(fake_link_run_until(e->l, flow_idle, f, MAX_ITERS) >= 0);
	CU_ASSERT_EQUAL(f->errors, 0);
}

static void
test_ect_default(void)
{
	struct env *e = env_create(2, 1, ROCE_MTU_1024, NULL, 0);
	struct ecn_seen s;

	CU_ASSERT_FATAL(e != NULL);
	memset(&s, 0, sizeof(s));
	fake_link_set_capture(e->l, capture_ecn, &s);
	write_and_wait(e, &e->f[0], MSG);
	/* requests and ACKs both leave ECT(0), nothing else */
	CU_ASSERT(s.frames[0][ROCE_ECN_ECT0] >= MSG / 1024);
	CU_ASSERT(s.frames[1][ROCE_ECN_ECT0] >= 1);
	CU_ASSERT_EQUAL(s.frames[0][ROCE_ECN_NOT_ECT] + s.frames[1][ROCE_ECN_NOT_ECT] +
			s.frames[0][ROCE_ECN_CE] + s.frames[1][ROCE_ECN_CE], 0);
	CU_ASSERT_EQUAL(s.icrc_bad, 0);
	CU_ASSERT(memcmp(e->f[0].buf[0], e->f[0].buf[1], MSG) == 0);
	fake_link_set_capture(e->l, NULL, NULL);
	env_destroy(e);
}

static void
test_ect_disabled(void)
{
	static const uint32_t p[][2] = { { ROCE_CC_ECN_ENABLE, 0 } };
	struct env *e = env_create(3, 1, ROCE_MTU_1024, p, 1);
	struct ecn_seen s;

	CU_ASSERT_FATAL(e != NULL);
	memset(&s, 0, sizeof(s));
	fake_link_set_capture(e->l, capture_ecn, &s);
	write_and_wait(e, &e->f[0], MSG);
	CU_ASSERT(s.frames[0][ROCE_ECN_NOT_ECT] >= MSG / 1024);
	CU_ASSERT_EQUAL(s.frames[0][ROCE_ECN_ECT0] + s.frames[1][ROCE_ECN_ECT0], 0);
	fake_link_set_capture(e->l, NULL, NULL);
	env_destroy(e);
}

/* ICRC masks the TOS byte (annex A17.3.3): CE marking keeps it valid. */
static void
test_icrc_ce(void)
{
	struct roce_hdr_fields f;
	struct rte_mbuf *m;
	struct roce_pkt pkt;
	uint8_t payload[256];
	int v6;

	memset(payload, 0x5a, sizeof(payload));
	for (v6 = 0; v6 < 2; v6++) {
		memset(&f, 0, sizeof(f));
		f.ip_ver = v6 ? 6 : 4;
		f.tos = 26 << 2 | ROCE_ECN_ECT0;
		f.ttl = 64;
		f.sgid[10] = f.sgid[11] = f.dgid[10] = f.dgid[11] = 0xff;
		f.sgid[15] = 1;
		f.dgid[15] = 2;
		if (v6) {
			f.sgid[0] = f.dgid[0] = 0xfd;
			f.sgid[10] = f.sgid[11] = f.dgid[10] = f.dgid[11] = 0;
		}
		f.udp_sport = 0xc001;
		f.opcode = ROCE_OP_RC_SEND_ONLY;
		f.pkey = 0xffff;
		f.dqpn = 0x11;
		f.psn = 7;
		m = rte_pktmbuf_alloc(test_mbuf_pool());
		CU_ASSERT_FATAL(m != NULL);
		memcpy(rte_pktmbuf_append(m, sizeof(payload)), payload,
		       sizeof(payload));
		CU_ASSERT_FATAL(roce_build_mbuf(m, &f) == 0);
		CU_ASSERT_FATAL(roce_icrc_fill_mbuf(m, m->l2_len) == 0);
		CU_ASSERT_FATAL(roce_parse(m, &pkt) == 0);
		CU_ASSERT_EQUAL(pkt.ecn, ROCE_ECN_ECT0);
		/* a switch marks CE (and fixes the IPv4 checksum) */
		if (v6) {
			struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
				struct rte_ipv6_hdr *, pkt.l3_off);

			roce_ipv6_set_vtc_flow(ip, (uint8_t)(roce_ipv6_tc(ip) | 3),
					       pkt.flow_label);
		} else {
			struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
				struct rte_ipv4_hdr *, pkt.l3_off);

			roce_ipv4_set_ecn(ip, ROCE_ECN_CE);
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		CU_ASSERT_FATAL(roce_parse(m, &pkt) == 0);
		CU_ASSERT_EQUAL(pkt.ecn, ROCE_ECN_CE);
		CU_ASSERT_EQUAL(pkt.dscp, 26);
		CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, pkt.l3_off), 0);
		rte_pktmbuf_free(m);
	}
}

/* ------------------------------------------------------------------ */
/* Notification point                                                 */
/* ------------------------------------------------------------------ */

static void
test_np_cnp(void)
{
	/* every frame marked; at most one CNP per 50 us */
	static const uint32_t p[][2] = {
		{ ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS, 50 },
		{ ROCE_CC_LINE_RATE, 10000 },
	};
	static const struct fake_link_bneck mark_all = {
		.rate_mbps = 10000, .limit_bytes = 4u << 20,
		.kmin_bytes = 0, .kmax_bytes = 0,
	};
	struct env *e = env_create(4, 1, ROCE_MTU_1024, p, RTE_DIM(p));
	struct flow *f;
	struct ecn_seen s;
	struct roce_qp_cc_info snd, rcv;
	uint64_t t0, elapsed_us;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL(fake_link_set_bneck(e->l, 0, &mark_all), 0);
	fake_link_set_capture(e->l, capture_ecn, &s);
	t0 = e->l->tsc;
	write_and_wait(e, f, REGION);
	elapsed_us = (e->l->tsc - t0) / us_tsc(1);
	rcv = cc_info(f->qp[1]);
	snd = cc_info(f->qp[0]);
	/* every request arrived CE */
	CU_ASSERT_EQUAL(rcv.ce_rx, e->l->ep[0].bstats.marked);
	CU_ASSERT_EQUAL(snd.ce_rx, 0);
	CU_ASSERT(rcv.ce_rx >= REGION / 1024);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_ce"), rcv.ce_rx);
	/* CNPs: rate limited, counted on both ends, the rest coalesced */
	CU_ASSERT(rcv.cnp_tx >= 1);
	CU_ASSERT(rcv.cnp_tx <= elapsed_us / 50 + 1);
	CU_ASSERT_EQUAL(rcv.cnp_tx, s.cnp[1]);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "tx_cnp"), rcv.cnp_tx);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "cnp_coalesced"),
			rcv.ce_rx - rcv.cnp_tx);
	CU_ASSERT_EQUAL(snd.cnp_rx, rcv.cnp_tx);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "rx_cnp"), rcv.cnp_tx);
	CU_ASSERT(snd.rate_cuts >= 1);
	CU_ASSERT(snd.rate_cuts <= snd.cnp_rx);
	/* the CNP on the wire: to the sender's QP, BECN, 16 zero bytes,
	 * DSCP 48, not ECN-capable, valid ICRC */
	CU_ASSERT_EQUAL(s.cnp_dqpn, roce_qp_num(f->qp[0]));
	CU_ASSERT(s.cnp_becn);
	CU_ASSERT(s.cnp_rsvd_zero);
	CU_ASSERT_EQUAL(s.cnp_dscp, 48);
	CU_ASSERT_EQUAL(s.cnp_ecn, ROCE_ECN_NOT_ECT);
	CU_ASSERT_EQUAL(s.cnp[0], 0);
	CU_ASSERT_EQUAL(s.icrc_bad, 0);
	CU_ASSERT(memcmp(f->buf[0], f->buf[1], REGION) == 0);
	fake_link_set_capture(e->l, NULL, NULL);
	env_destroy(e);
}

/* np_enable 0: CE counted, no CNP; rp_enable 0: CNPs counted, no cut. */
static void
test_np_rp_disabled(void)
{
	static const uint32_t p[][2] = { { ROCE_CC_NP_ENABLE, 0 } };
	static const uint32_t q[][2] = { { ROCE_CC_RP_ENABLE, 0 } };
	static const struct fake_link_bneck mark_all = {
		.rate_mbps = 10000, .limit_bytes = 4u << 20,
	};
	struct env *e = env_create(5, 1, ROCE_MTU_1024, p, 1);
	struct roce_qp_cc_info i;

	CU_ASSERT_FATAL(e != NULL);
	fake_link_set_bneck(e->l, 0, &mark_all);
	write_and_wait(e, &e->f[0], MSG);
	i = cc_info(e->f[0].qp[1]);
	CU_ASSERT(i.ce_rx >= MSG / 1024);
	CU_ASSERT_EQUAL(i.cnp_tx, 0);
	env_destroy(e);

	e = env_create(6, 1, ROCE_MTU_1024, q, 1);
	CU_ASSERT_FATAL(e != NULL);
	fake_link_set_bneck(e->l, 0, &mark_all);
	write_and_wait(e, &e->f[0], MSG);
	i = cc_info(e->f[0].qp[0]);
	CU_ASSERT(i.cnp_rx >= 1);
	CU_ASSERT_EQUAL(i.rate_cuts, 0);
	CU_ASSERT(!i.limited);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Reaction point arithmetic, with CNPs injected at chosen times      */
/* ------------------------------------------------------------------ */

static void
inject_cnp(struct env *e, struct flow *f)
{
	struct roce_hdr_fields h = f->qp[1]->path;

	h.opcode = ROCE_OP_CNP;
	h.becn = true;
	h.dqpn = roce_qp_num(f->qp[0]);
	h.psn = 0;
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 0, &h, NULL, 0), 0);
}

/* Step until @p qp saw one more increase event (at most @p us simulated). */
static void
run_to_inc(struct env *e, struct roce_qp *qp, uint64_t us)
{
	uint64_t end = e->l->tsc + us_tsc(us), n = qp->stats.cc_incs;

	while (e->l->tsc < end && qp->stats.cc_incs == n)
		fake_link_step(e->l);
	CU_ASSERT_EQUAL(qp->stats.cc_incs, n + 1);
}

/* Step until the simulated clock passed @p us more microseconds. */
static void
run_for(struct env *e, uint64_t us)
{
	uint64_t end = e->l->tsc + us_tsc(us);

	while (e->l->tsc < end)
		fake_link_step(e->l);
}

static void
test_rp_math(void)
{
	static const uint32_t p[][2] = {
		{ ROCE_CC_LINE_RATE, 1000 },
		{ ROCE_CC_RP_BYTE_RESET, 0 },	/* timer events only */
	};
	struct env *e = env_create(7, 1, ROCE_MTU_1024, p, RTE_DIM(p));
	struct roce_qp_cc_info i;
	struct flow *f;
	uint32_t rc, rt, k;
	uint64_t t;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	i = cc_info(f->qp[0]);
	CU_ASSERT(!i.limited);
	CU_ASSERT_EQUAL(i.rate_mbps, 1000);
	/* first CNP: 1000 Mbit/s * (1 - (1023/1024) / 2) */
	inject_cnp(e, f);
	fake_link_step(e->l);
	i = cc_info(f->qp[0]);
	CU_ASSERT(i.limited);
	CU_ASSERT_EQUAL(i.rate_cuts, 1);
	CU_ASSERT_EQUAL(i.target_mbps, 1000);
	CU_ASSERT_EQUAL(i.rate_mbps, 500);	/* 500.488 */
	CU_ASSERT_EQUAL(f->qp[0]->cc.rc_kbps, 1000000 - 1000000ull * 1023 / 2048);
	CU_ASSERT_EQUAL(f->qp[0]->stats.cc_rate_mbps, 500);
	/* a second CNP within the monitor period (4 us): no second cut */
	inject_cnp(e, f);
	fake_link_step(e->l);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).rate_cuts, 1);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).cnp_rx, 2);
	/*
	 * fast recovery while the timer count T < F (5): 4 events 300 us
	 * apart, each Rc = (Rt + Rc) / 2, Rt kept (DCQCN, T counted first)
	 */
	rc = f->qp[0]->cc.rc_kbps;
	rt = f->qp[0]->cc.rt_kbps;
	for (k = 0; k < 4; k++) {
		t = e->l->tsc;
		run_to_inc(e, f->qp[0], 400);
		rc = (rt + rc + 1) / 2;
		CU_ASSERT_EQUAL(f->qp[0]->cc.rt_kbps, rt);
		CU_ASSERT_EQUAL(f->qp[0]->cc.rc_kbps, rc);
		CU_ASSERT(e->l->tsc - t >= us_tsc(k == 0 ? 290 : 299));
	}
	/* then additive increase: Rt += 5 Mbit/s, capped at the max rate */
	f->qp[0]->cc.rt_kbps = rt = 900000;	/* room below the cap */
	run_to_inc(e, f->qp[0], 400);
	CU_ASSERT_EQUAL(f->qp[0]->cc.rt_kbps, rt + 5000);
	CU_ASSERT_EQUAL(f->qp[0]->cc.rc_kbps, (rt + 5000 + rc + 1) / 2);
	/* alpha decayed meanwhile: a new cut is smaller than the first */
	i = cc_info(f->qp[0]);
	rc = f->qp[0]->cc.rc_kbps;
	inject_cnp(e, f);
	fake_link_step(e->l);
	CU_ASSERT(i.alpha < 1023);
	CU_ASSERT(f->qp[0]->cc.rc_kbps > rc / 2 + rc / 8);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).rate_cuts, 2);
	/* without CNPs the limiter is released in bounded simulated time */
	t = e->l->tsc;
	while (cc_info(f->qp[0]).limited && e->l->tsc - t < us_tsc(1000000))
		run_for(e, 300);
	i = cc_info(f->qp[0]);
	CU_ASSERT(!i.limited);
	CU_ASSERT_EQUAL(i.rate_mbps, 1000);
	CU_ASSERT_EQUAL(f->qp[0]->stats.cc_rate_mbps, 0);
	CU_ASSERT(!roce_timer_armed(&f->qp[0]->cc.inc));
	env_destroy(e);
}

/* rp_min_dec_fac bounds one cut; rp_min_rate bounds them all. */
static void
test_rp_bounds(void)
{
	static const uint32_t p[][2] = {
		{ ROCE_CC_LINE_RATE, 1000 },
		{ ROCE_CC_RP_MIN_DEC_FAC, 90 },
		{ ROCE_CC_RP_MIN_RATE, 700 },
		{ ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD, 0 },
	};
	struct env *e = env_create(8, 1, ROCE_MTU_1024, p, RTE_DIM(p));
	struct flow *f;
	int k;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	inject_cnp(e, f);
	fake_link_step(e->l);
	CU_ASSERT_EQUAL(f->qp[0]->cc.rc_kbps, 900000);
	for (k = 0; k < 10; k++) {
		inject_cnp(e, f);
		fake_link_step(e->l);
	}
	CU_ASSERT_EQUAL(f->qp[0]->cc.rc_kbps, 700000);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).rate_cuts, 11);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* Pacing in simulated time                                           */
/* ------------------------------------------------------------------ */

/*
 * A QP limited to 200 Mbit/s (no increase: long timer, no byte counter)
 * moves @p total bytes of WRITE or READ in total * 8 / 200 us of simulated
 * time, within 10 % (headers included in the charge, the bucket's burst).
 */
#define PACE_MSG (16u << 10)

static void
pace_case(enum roce_wr_opcode op)
{
	static const uint32_t p[][2] = {
		{ ROCE_CC_LINE_RATE, 100000 },
		{ ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP, 400 },
		{ ROCE_CC_RP_MIN_DEC_FAC, 50 },
		{ ROCE_CC_RP_INITIAL_ALPHA_VALUE, 1023 },
		{ ROCE_CC_RP_GD, 10 },		/* cut = rate * alpha: to 50 % */
		{ ROCE_CC_RP_TIME_RESET, 10000000 },
		{ ROCE_CC_RP_BYTE_RESET, 0 },
	};
	struct env *e = env_create(9, 1, ROCE_MTU_4096, p, RTE_DIM(p));
	struct flow *f;
	uint64_t t0, us, expect;
	uint32_t k;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	inject_cnp(e, f);
	fake_link_step(e->l);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).rate_mbps, 200);
	t0 = e->l->tsc;
	for (k = 0; k < REGION / PACE_MSG; k++) {
		while (f->posted - f->done >= 16) {
			fake_link_step(e->l);
			flow_poll(f);
		}
		CU_ASSERT_EQUAL(post_rdma(f, op, k * PACE_MSG, PACE_MSG), 0);
	}
	CU_ASSERT(fake_link_run_until(e->l, flow_idle, f, MAX_ITERS) >= 0);
	CU_ASSERT_EQUAL(f->errors, 0);
	us = (e->l->tsc - t0) / us_tsc(1);
	expect = (uint64_t)REGION * 8 / 200;
	CU_ASSERT(us >= expect * 9 / 10);
	CU_ASSERT(us <= expect * 11 / 10);
	CU_ASSERT(cc_info(f->qp[0]).pace_stalls > 0);
	if (op == ROCE_WR_RDMA_WRITE) {
		CU_ASSERT(memcmp(f->buf[0], f->buf[1], REGION) == 0);
	} else {	/* READ brought the peer's bytes (0xee) into the source */
		CU_ASSERT(f->buf[0][0] == 0xee && f->buf[0][REGION - 1] == 0xee);
	}
	printf("\n  %s %u KiB at 200 Mbit/s: %" PRIu64 " us simulated "
	       "(ideal %" PRIu64 ")", op == ROCE_WR_RDMA_WRITE ? "WRITE" : "READ",
	       REGION >> 10, us, expect);
	env_destroy(e);
}

static void
test_pace_write(void)
{
	pace_case(ROCE_WR_RDMA_WRITE);
}

static void
test_pace_read(void)
{
	pace_case(ROCE_WR_RDMA_READ);
}

/* ------------------------------------------------------------------ */
/* Two senders, one congested link                                    */
/* ------------------------------------------------------------------ */

#define BN_MBPS 10000
#define WINDOW_US 500
#define START2_US 5000
#define RUN_US 80000

static void
keep_busy(struct flow *f)
{
	flow_poll(f);
	while (f->posted - f->done < 4)
		if (post_rdma(f, ROCE_WR_RDMA_WRITE,
			      (uint32_t)(f->posted % SLOTS) * MSG, MSG) != 0)
			break;
}

static void
test_two_flows_converge(void)
{
	/* the DCQCN paper's parameters (SIGCOMM 2015, section 5) */
	static const uint32_t p[][2] = {
		{ ROCE_CC_LINE_RATE, BN_MBPS },
		{ ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS, 50 },
		{ ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD, 50 },
		{ ROCE_CC_RP_TIME_RESET, 55 },
		{ ROCE_CC_RP_DCE_TCP_RTT, 55 },
		{ ROCE_CC_RP_DCE_TCP_G, 1020 },		/* g = 1/256 */
		{ ROCE_CC_RP_BYTE_RESET, 10u << 20 },
		{ ROCE_CC_RP_AI_RATE, 40 },
		{ ROCE_CC_RP_HAI_RATE, 400 },
	};
	/* DCQCN paper's switch setting, Kmin 5 KB, Kmax 200 KB, Pmax 1 % */
	static const struct fake_link_bneck bn = {
		.rate_mbps = BN_MBPS, .host_mbps = BN_MBPS,
		.limit_bytes = 2u << 20,
		.kmin_bytes = 5000, .kmax_bytes = 200000, .pmax_ppm = 10000,
	};
	struct env *e = env_create(10, 2, ROCE_MTU_4096, p, RTE_DIM(p));
	const char *trace = getenv("CC_TRACE");
	uint64_t last_rx[NFLOW] = { 0, 0 }, t0, next, now_us;
	uint64_t fair_since = UINT64_MAX, converged_us = 0;
	uint32_t qmax_after = 0, fair_windows = 0, windows = 0;
	double share_min = 1e9, share_max = 0;
	FILE *out = NULL;
	int i;

	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(fake_link_set_bneck(e->l, 0, &bn), 0);
	if (trace != NULL && trace[0] != '\0') {
		out = fopen(trace, "w");
		if (out != NULL)
			fprintf(out, "# us rate1 rate2 tput1 tput2 queue_bytes "
				"(Mbit/s; rate 0: not limited)\n");
	}
	t0 = e->l->tsc;
	next = t0 + us_tsc(WINDOW_US);
	while (e->l->tsc - t0 < us_tsc(RUN_US)) {
		now_us = (e->l->tsc - t0) / us_tsc(1);
		keep_busy(&e->f[0]);
		if (now_us >= START2_US)
			keep_busy(&e->f[1]);
		if (now_us >= START2_US + 20000 &&
		    e->l->ep[0].bq_bytes > qmax_after)
			qmax_after = e->l->ep[0].bq_bytes;
		fake_link_step(e->l);
		if (e->l->tsc < next)
			continue;
		/* one sample per window: throughput from the receivers */
		{
			double tput[NFLOW];
			struct roce_qp_cc_info ci[NFLOW];

			for (i = 0; i < NFLOW; i++) {
				uint64_t rx = e->f[i].qp[1]->stats.rx_bytes;

				tput[i] = (double)(rx - last_rx[i]) * 8 / WINDOW_US;
				last_rx[i] = rx;
				ci[i] = cc_info(e->f[i].qp[0]);
			}
			if (out != NULL)
				fprintf(out, "%" PRIu64 " %u %u %.1f %.1f %u\n",
					now_us, ci[0].limited ? ci[0].rate_mbps : 0,
					ci[1].limited ? ci[1].rate_mbps : 0,
					tput[0], tput[1], e->l->ep[0].bq_bytes);
			if (now_us > START2_US + WINDOW_US) {
				double s = tput[0] / (tput[0] + tput[1] + 1e-9);
				bool fair = s > 0.35 && s < 0.65;

				if (fair && fair_since == UINT64_MAX)
					fair_since = now_us;
				if (!fair)
					fair_since = UINT64_MAX;
				if (now_us > START2_US + 20000) {
					windows++;
					fair_windows += fair;
					share_min = RTE_MIN(share_min, s);
					share_max = RTE_MAX(share_max, s);
				}
			}
		}
		next += us_tsc(WINDOW_US);
	}
	if (fair_since != UINT64_MAX)
		converged_us = fair_since - START2_US;
	printf("\n  two flows on %u Mbit/s: fair share (35-65 %%) from %" PRIu64
	       " us after the second start; last 60 ms: %u/%u windows fair, "
	       "share %.2f-%.2f, queue max %u B (%u B before), marks %" PRIu64
	       ", drops %" PRIu64, BN_MBPS, converged_us, fair_windows, windows,
	       share_min, share_max, qmax_after,
	       e->l->ep[0].bstats.max_q_bytes, e->l->ep[0].bstats.marked,
	       e->l->ep[0].bstats.tail_drops + e->l->ep[0].bstats.red_drops);
	if (out != NULL)
		fclose(out);
	/* converged in bounded simulated time and stayed there */
	CU_ASSERT(fair_since != UINT64_MAX);
	CU_ASSERT(converged_us <= 20000);
	CU_ASSERT(fair_windows * 10 >= windows * 9);
	/* the queue stays bounded: below the limit, no loss at all */
	CU_ASSERT(qmax_after < bn.limit_bytes / 2);
	CU_ASSERT_EQUAL(e->l->ep[0].bstats.tail_drops, 0);
	CU_ASSERT_EQUAL(e->l->ep[0].bstats.red_drops, 0);
	CU_ASSERT(e->l->ep[0].bstats.marked > 0);
	/* the link was used: 80 % of it over the run */
	CU_ASSERT(e->l->ep[0].bstats.bytes * 8 >=
		  (uint64_t)BN_MBPS * RUN_US * 8 / 10);
	/* drain, then every byte intact and every WR successful */
	for (i = 0; i < NFLOW; i++) {
		CU_ASSERT(fake_link_run_until(e->l, flow_idle, &e->f[i],
					      MAX_ITERS) >= 0);
		CU_ASSERT_EQUAL(e->f[i].errors, 0);
		CU_ASSERT(memcmp(e->f[i].buf[0], e->f[i].buf[1], REGION) == 0);
		CU_ASSERT(cc_info(e->f[i].qp[0]).cnp_rx > 0);
	}
	env_destroy(e);
}

/* Without a bottleneck nothing is marked and nothing is limited. */
static void
test_clean_link_unlimited(void)
{
	struct env *e = env_create(11, 1, ROCE_MTU_4096, NULL, 0);
	struct roce_qp_cc_info i;

	CU_ASSERT_FATAL(e != NULL);
	write_and_wait(e, &e->f[0], REGION);
	i = cc_info(e->f[0].qp[0]);
	CU_ASSERT(!i.limited);
	CU_ASSERT_EQUAL(i.cnp_rx + i.ce_rx + i.rate_cuts + i.pace_stalls, 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "tx_cnp"), 0);
	env_destroy(e);
}

/* A CNP for an unknown QP or from another source is counted and dropped. */
static void
test_cnp_ignored(void)
{
	struct env *e = env_create(12, 1, ROCE_MTU_1024, NULL, 0);
	struct roce_hdr_fields h;
	struct flow *f;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	h = f->qp[1]->path;
	h.opcode = ROCE_OP_CNP;
	h.becn = true;
	h.dqpn = 0x3ff;		/* no such QP */
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 0, &h, NULL, 0), 0);
	h.dqpn = roce_qp_num(f->qp[0]);
	h.sgid[15] ^= 0x40;	/* not the peer */
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 0, &h, NULL, 0), 0);
	fake_link_step(e->l);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "rx_cnp"), 2);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "rx_drop_cnp_no_qp"), 2);
	CU_ASSERT_EQUAL(cc_info(f->qp[0]).cnp_rx, 0);
	CU_ASSERT(!cc_info(f->qp[0]).limited);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* READ responses: the responder is the reaction point                */
/* ------------------------------------------------------------------ */

/* One cut to 200 Mbit/s at the first CNP, then no change. */
static const uint32_t one_cut[][2] = {
	{ ROCE_CC_LINE_RATE, 100000 },
	{ ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP, 400 },
	{ ROCE_CC_RP_MIN_DEC_FAC, 50 },
	{ ROCE_CC_RP_INITIAL_ALPHA_VALUE, 1023 },
	{ ROCE_CC_RP_GD, 10 },
	{ ROCE_CC_RP_TIME_RESET, 10000000 },
	{ ROCE_CC_RP_BYTE_RESET, 0 },
	{ ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD, 1000000 },
};

/*
 * The READ responses cross a link that marks every frame: the requester
 * (the NP) sends CNPs to the responder's QP, which (its RP) paces its
 * responses to 200 Mbit/s; the requester does not cut its own rate. A
 * first CNP injected before the READs engages the responder's limiter
 * from the start (the marked responses then keep it there: one cut per
 * monitor period of 1 s), so the whole transfer runs at the cut rate.
 */
static void
test_read_resp_paced(void)
{
	static const struct fake_link_bneck mark_all = {
		.rate_mbps = 10000, .limit_bytes = 4u << 20,
	};
	struct env *e = env_create(13, 1, ROCE_MTU_4096, one_cut,
				   RTE_DIM(one_cut));
	struct roce_qp_cc_info req, rsp;
	struct ecn_seen s;
	uint64_t t0, us, expect;
	struct flow *f;
	uint32_t k;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	memset(&s, 0, sizeof(s));
	fake_link_set_capture(e->l, capture_ecn, &s);
	CU_ASSERT_EQUAL(fake_link_set_bneck(e->l, 1, &mark_all), 0);
	{
		struct roce_hdr_fields h = f->qp[0]->path;

		h.opcode = ROCE_OP_CNP;
		h.becn = true;
		h.dqpn = roce_qp_num(f->qp[1]);
		h.psn = 0;
		CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &h, NULL, 0), 0);
		fake_link_step(e->l);
		CU_ASSERT_EQUAL(cc_info(f->qp[1]).rate_mbps, 200);
	}
	t0 = e->l->tsc;
	for (k = 0; k < REGION / PACE_MSG; k++) {
		while (f->posted - f->done >= 16) {
			fake_link_step(e->l);
			flow_poll(f);
		}
		CU_ASSERT_EQUAL(post_rdma(f, ROCE_WR_RDMA_READ,
					  k * PACE_MSG, PACE_MSG), 0);
	}
	CU_ASSERT(fake_link_run_until(e->l, flow_idle, f, MAX_ITERS) >= 0);
	CU_ASSERT_EQUAL(f->errors, 0);
	us = (e->l->tsc - t0) / us_tsc(1);
	expect = (uint64_t)REGION * 8 / 200;
	req = cc_info(f->qp[0]);
	rsp = cc_info(f->qp[1]);
	/* marked responses at the requester, CNPs to the responder's QP */
	CU_ASSERT(req.ce_rx >= REGION / 4096 / 2);
	CU_ASSERT(req.cnp_tx >= 1);
	CU_ASSERT_EQUAL(s.cnp[0], req.cnp_tx);
	CU_ASSERT_EQUAL(s.cnp[1], 0);
	CU_ASSERT_EQUAL(s.cnp_dqpn, roce_qp_num(f->qp[1]));
	CU_ASSERT_EQUAL(rsp.cnp_rx, req.cnp_tx + 1);
	/* the responder cut once and paced its responses ... */
	CU_ASSERT_EQUAL(rsp.rate_cuts, 1);
	CU_ASSERT(rsp.limited);
	CU_ASSERT_EQUAL(rsp.rate_mbps, 200);
	CU_ASSERT_EQUAL(rsp.min_rate_mbps, 200);
	CU_ASSERT(rsp.resp_pace_stalls > 0);
	CU_ASSERT_EQUAL(rsp.pace_stalls, 0);	/* it sent no requests */
	/* ... the requester did not cut its rate for its own CE marks, but
	 * its window (what it asks for in flight) ... */
	CU_ASSERT(req.window);
	CU_ASSERT(req.window_cuts >= 1);
	CU_ASSERT(req.cwnd < ROCE_REQ_CWND_INIT);
	/* ... and the responder, with nothing of its own in flight, not */
	CU_ASSERT(!rsp.window);
	CU_ASSERT_EQUAL(rsp.window_cuts, 0);
	CU_ASSERT_EQUAL(req.rate_cuts, 0);
	CU_ASSERT_EQUAL(req.cnp_rx, 0);
	CU_ASSERT(!req.limited);
	CU_ASSERT_EQUAL(req.min_rate_mbps, 100000);
	/* 512 KiB at 200 Mbit/s (unpaced at 10 Gbit/s: 0.4 ms) */
	CU_ASSERT(us >= expect * 9 / 10);
	CU_ASSERT(us <= expect * 11 / 10);
	CU_ASSERT(f->buf[0][0] == 0xee && f->buf[0][REGION - 1] == 0xee);
	printf("\n  READ %u KiB, responses paced by the responder: %" PRIu64
	       " us simulated (ideal %" PRIu64 "), %" PRIu64 " CNPs, %" PRIu64
	       " response stalls", REGION >> 10, us, expect, rsp.cnp_rx,
	       rsp.resp_pace_stalls);
	fake_link_set_capture(e->l, NULL, NULL);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* ECN window                                                         */
/* ------------------------------------------------------------------ */

/* Post @p n WRITEs of MSG bytes, step until @p min PSNs are in flight. */
static void
window_load(struct env *e, struct flow *f, uint32_t n, uint32_t min)
{
	struct roce_qp *qp = f->qp[0];
	uint32_t k;
	long i;

	for (k = 0; k < n; k++)
		CU_ASSERT_EQUAL_FATAL(post_rdma(f, ROCE_WR_RDMA_WRITE,
						(k % SLOTS) * MSG, MSG), 0);
	for (i = 0; i < 1000 && roce_psn_offset(qp->req.psn, qp->comp.psn) <
	     min; i++)
		fake_link_step(e->l);
	CU_ASSERT(roce_psn_offset(qp->req.psn, qp->comp.psn) >= min);
}

/*
 * A CNP halves the requester's window the first time (alpha 1), counts
 * but does not cut again until the PSNs sent before the cut are
 * acknowledged, and alpha follows the marked share of each window
 * (g = 1/16). rp_ecn_window 0 leaves the window alone; the rate limiter
 * acts either way.
 */
static void
test_window(void)
{
	static const uint32_t on[][2] = { { ROCE_CC_LINE_RATE, 1000 } };
	static const uint32_t off[][2] = {
		{ ROCE_CC_LINE_RATE, 1000 }, { ROCE_CC_RP_ECN_WINDOW, 0 },
	};
	struct env *e = env_create(21, 1, ROCE_MTU_1024, on, RTE_DIM(on));
	struct roce_qp_cc_info i;
	struct roce_qp *qp;
	struct flow *f;
	uint32_t cwnd, inflight, alpha, a0, r0, windows = 0, quiet = 0;

	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	qp = f->qp[0];
	/* nothing in flight: a CNP leaves the window off */
	inject_cnp(e, f);
	fake_link_step(e->l);
	i = cc_info(qp);
	CU_ASSERT(!i.window);
	CU_ASSERT_EQUAL(i.window_cuts, 0);
	CU_ASSERT_EQUAL(i.cwnd, ROCE_REQ_CWND_INIT);
	CU_ASSERT_EQUAL(i.rate_cuts, 1);
	/* in flight: the first cut halves what is in flight */
	window_load(e, f, 4, ROCE_REQ_CWND_MIN);
	inflight = roce_psn_offset(qp->req.psn, qp->comp.psn);
	inject_cnp(e, f);
	fake_link_step(e->l);
	i = cc_info(qp);
	CU_ASSERT(i.window);
	CU_ASSERT_EQUAL(i.window_cuts, 1);
	CU_ASSERT_EQUAL(i.window_alpha, 1024);
	CU_ASSERT(i.cwnd >= ROCE_REQ_CWND_MIN);
	CU_ASSERT(i.cwnd <= (inflight + ROCE_REQ_BUDGET) / 2 + 1);
	CU_ASSERT_EQUAL(qp->req.ssthresh, qp->req.cwnd);
	cwnd = qp->req.cwnd;
	/*
	 * The window never lets more than cwnd PSNs out from now on; each
	 * window of data acknowledged moves alpha to (1 - g) alpha + g F,
	 * F the marked share in [0, 1]: exactly alpha - alpha / 16 for a
	 * window without marks.
	 */
	a0 = qp->cc.win_alpha;
	r0 = qp->cc.win_rounds;
	while (!flow_idle(f)) {
		uint32_t marks = qp->cc.win_marks, lo;

		fake_link_step(e->l);
		CU_ASSERT(roce_psn_offset(qp->req.psn, qp->comp.psn) <=
			  RTE_MAX(qp->req.cwnd, inflight));
		if (roce_psn_offset(qp->req.psn, qp->comp.psn) <= cwnd)
			inflight = 0;	/* the old flight has drained */
		if (qp->cc.win_rounds != r0) {
			/* a step may end more than one window: k of them */
			uint32_t a = a0, k = qp->cc.win_rounds - r0, n;

			for (n = 0; n < k; n++)
				a -= a >> 4;
			lo = a0 - (a0 >> 4);
			CU_ASSERT(qp->cc.win_alpha >= a &&
				  qp->cc.win_alpha <= lo + 64);
			if (marks == 0 && qp->cc.win_marks == 0) {
				CU_ASSERT_EQUAL(qp->cc.win_alpha, a);
				quiet++;
			}
			windows += k;
			a0 = qp->cc.win_alpha;
			r0 = qp->cc.win_rounds;
		}
		/* a second mark of the same flight: counted, no cut */
		if (qp->cc.win_cwr && qp->cc.win_marks == 1)
			inject_cnp(e, f);
	}
	CU_ASSERT(windows >= 2);
	CU_ASSERT(quiet >= 1);
	CU_ASSERT_EQUAL(f->errors, 0);
	i = cc_info(qp);
	CU_ASSERT_EQUAL(i.cnp_rx, 3);
	CU_ASSERT_EQUAL(i.window_cuts, 1);
	CU_ASSERT(!qp->cc.win_cwr);
	CU_ASSERT(i.window_alpha < 1024);
	/* growth: one PSN a window acknowledged (congestion avoidance) */
	CU_ASSERT(qp->req.cwnd >= cwnd);
	CU_ASSERT(qp->req.cwnd <= cwnd + 4 * MSG / e->mtu / cwnd + 1);
	/* the next cut: by alpha / 2 of at most the window */
	qp->req.cwnd = 64;
	qp->req.ssthresh = 64;
	window_load(e, f, 2, 1);
	cwnd = qp->req.cwnd;
	alpha = qp->cc.win_alpha;
	/*
	 * From what the window used lately (48 PSNs in flight at an ACK of
	 * the window before), even when less is out now.
	 */
	qp->cc.win_used_prev = 48;
	inflight = 48;
	inject_cnp(e, f);
	fake_link_step(e->l);
	CU_ASSERT_EQUAL(cc_info(qp).window_cuts, 2);
	CU_ASSERT(qp->req.cwnd >= inflight - (inflight * alpha >> 11));
	CU_ASSERT(qp->req.cwnd <= cwnd - cwnd * alpha / 2048 + 1);
	CU_ASSERT(fake_link_run_until(e->l, flow_idle, f, MAX_ITERS) >= 0);
	CU_ASSERT_EQUAL(f->errors, 0);
	env_destroy(e);

	/* rp_ecn_window 0: the rate is cut, the window is not */
	e = env_create(22, 1, ROCE_MTU_1024, off, RTE_DIM(off));
	CU_ASSERT_FATAL(e != NULL);
	f = &e->f[0];
	window_load(e, f, 4, ROCE_REQ_CWND_MIN);
	cwnd = f->qp[0]->req.cwnd;
	inject_cnp(e, f);
	fake_link_step(e->l);
	i = cc_info(f->qp[0]);
	CU_ASSERT(!i.window);
	CU_ASSERT_EQUAL(i.window_cuts, 0);
	CU_ASSERT(f->qp[0]->req.cwnd >= cwnd);
	CU_ASSERT_EQUAL(i.rate_cuts, 1);
	CU_ASSERT(fake_link_run_until(e->l, flow_idle, f, MAX_ITERS) >= 0);
	CU_ASSERT_EQUAL(f->errors, 0);
	env_destroy(e);
}

/* ------------------------------------------------------------------ */
/* UD: CNPs to the DETH source QP, the UD sender paced                */
/* ------------------------------------------------------------------ */

#define UD_QKEY 0x11111111u
#define UD_LEN 1024u
#define UD_GRH 40u
#define UD_N 256u		/* sends, at most UD_OUT outstanding */
#define UD_OUT 16u

static void
test_ud_np_rp(void)
{
	static const struct fake_link_bneck mark_all = {
		.rate_mbps = 10000, .limit_bytes = 4u << 20,
	};
	struct env *e = env_create(14, 0, ROCE_MTU_1024, one_cut,
				   RTE_DIM(one_cut));
	struct roce_qp_init_attr ia;
	struct roce_qp_cc_info snd, rcv;
	struct roce_cq *cq[2] = { NULL, NULL };
	struct roce_qp *qp[2] = { NULL, NULL };
	struct roce_mr *mr[2] = { NULL, NULL };
	uint8_t *buf[2] = { NULL, NULL };
	struct roce_ah_attr ah;
	struct roce_wc wc[16];
	struct ecn_seen s;
	uint64_t t0, us, expect, done = 0, ok = 0, sent = 0, sdone = 0;
	unsigned int posted;
	uint32_t k;
	int i, n;

	CU_ASSERT_FATAL(e != NULL);
	for (i = 0; i < 2; i++) {
		cq[i] = roce_create_cq(e->l->ep[i].w, 1024);
		CU_ASSERT_FATAL(cq[i] != NULL);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_UD;
		ia.send_cq = cq[i];
		ia.recv_cq = cq[i];
		ia.cap.max_send_wr = 64;
		ia.cap.max_recv_wr = UD_N;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp[i] = roce_create_qp(e->l->ep[i].pd, &ia);
		CU_ASSERT_FATAL(qp[i] != NULL);
		buf[i] = aligned_alloc(4096, RTE_ALIGN_CEIL(UD_N *
					(UD_LEN + UD_GRH), 4096));
		CU_ASSERT_FATAL(buf[i] != NULL);
		fill(buf[i], UD_N * (UD_LEN + UD_GRH), (uint32_t)i + 7);
		mr[i] = roce_reg_mr(e->l->ep[i].pd, buf[i],
				    UD_N * (UD_LEN + UD_GRH),
				    ROCE_ACCESS_LOCAL_WRITE);
		CU_ASSERT_FATAL(mr[i] != NULL);
		CU_ASSERT_FATAL(fake_link_ud_ready(e->l, i, qp[i], UD_QKEY,
						   1) == 0);
	}
	for (k = 0; k < UD_N; k++) {
		struct roce_sge sg = {
			.addr = (uint64_t)(uintptr_t)(buf[1] +
						      k * (UD_LEN + UD_GRH)),
			.length = UD_LEN + UD_GRH, .lkey = roce_mr_lkey(mr[1]),
		};
		struct roce_recv_wr rw = { .wr_id = k, .sg_list = &sg,
					   .num_sge = 1 };

		CU_ASSERT_FATAL(roce_post_recv(qp[1], &rw, 1, &posted) == 0);
	}
	memset(&s, 0, sizeof(s));
	fake_link_set_capture(e->l, capture_ecn, &s);
	CU_ASSERT_EQUAL(fake_link_set_bneck(e->l, 0, &mark_all), 0);
	fake_link_ah(e->l, 0, 1, &ah);
	t0 = e->l->tsc;
	/* every send and every receive completes */
	for (k = 0; k < MAX_ITERS / 10 && done < 2 * UD_N; k++) {
		while (sent < UD_N && sent - sdone < UD_OUT) {
			struct roce_sge sg = {
				.addr = (uint64_t)(uintptr_t)(buf[0] +
					(sent % UD_OUT) * UD_LEN),
				.length = UD_LEN, .lkey = roce_mr_lkey(mr[0]),
			};
			struct roce_send_wr wr = {
				.wr_id = sent, .opcode = ROCE_WR_SEND,
				.send_flags = ROCE_SEND_SIGNALED,
				.sg_list = &sg, .num_sge = 1,
			};

			wr.ud.ah = &ah;
			wr.ud.remote_qpn = roce_qp_num(qp[1]);
			wr.ud.remote_qkey = UD_QKEY;
			CU_ASSERT_FATAL(roce_post_send(qp[0], &wr, 1,
						       &posted) == 0);
			sent++;
		}
		fake_link_step(e->l);
		for (i = 0; i < 2; i++) {
			n = roce_poll_cq(cq[i], wc, RTE_DIM(wc));
			for (; n > 0; n--) {
				done++;
				sdone += i == 0;
				ok += wc[n - 1].status == ROCE_WC_SUCCESS;
			}
		}
	}
	us = (e->l->tsc - t0) / us_tsc(1);
	CU_ASSERT_EQUAL(done, 2 * UD_N);
	CU_ASSERT_EQUAL(ok, 2 * UD_N);
	snd = cc_info(qp[0]);
	rcv = cc_info(qp[1]);
	/* NP: the receiving UD QP sent CNPs to the DETH source QP */
	CU_ASSERT(rcv.ce_rx >= UD_N / 2);
	CU_ASSERT(rcv.cnp_tx >= 1);
	CU_ASSERT_EQUAL(s.cnp[1], rcv.cnp_tx);
	CU_ASSERT_EQUAL(s.cnp_dqpn, roce_qp_num(qp[0]));
	CU_ASSERT(s.cnp_becn && s.cnp_rsvd_zero);
	CU_ASSERT_EQUAL(s.cnp_ecn, ROCE_ECN_NOT_ECT);
	CU_ASSERT_EQUAL(s.icrc_bad, 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "tx_cnp"), rcv.cnp_tx);
	/* RP: the UD sender cut once, paced its sends ... */
	CU_ASSERT_EQUAL(snd.rate_cuts, 1);
	CU_ASSERT(snd.limited);
	CU_ASSERT_EQUAL(snd.rate_mbps, 200);
	CU_ASSERT(snd.pace_stalls > 0);
	/* ... and took every CNP (the last ones were in flight) */
	for (k = 0; k < 20 && cc_info(qp[0]).cnp_rx < rcv.cnp_tx; k++)
		fake_link_step(e->l);
	CU_ASSERT_EQUAL(cc_info(qp[0]).cnp_rx, cc_info(qp[1]).cnp_tx);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[0].w, "rx_drop_cnp_no_qp"), 0);
	/* what left after the first CNP (all but the first UD_OUT sends at
	 * most) went at 200 Mbit/s */
	expect = (uint64_t)(UD_N - UD_OUT) * UD_LEN * 8 / 200;
	CU_ASSERT(us >= expect * 9 / 10);
	CU_ASSERT(us <= expect * 3 / 2);
	printf("\n  UD %u x %u B through a marking link: %" PRIu64
	       " us simulated (%" PRIu64 " at 200 Mbit/s), %" PRIu64 " CNPs",
	       UD_N, UD_LEN, us, expect, snd.cnp_rx);
	fake_link_set_capture(e->l, NULL, NULL);
	fake_link_set_bneck(e->l, 0, NULL);
	for (i = 0; i < 2; i++) {
		CU_ASSERT(roce_destroy_qp(qp[i]) == 0);
		CU_ASSERT(roce_dereg_mr(mr[i]) == 0);
		CU_ASSERT(roce_destroy_cq(cq[i]) == 0);
		free(buf[i]);
	}
	env_destroy(e);
}

static CU_TestInfo cc_tests[] = {
	{ "parameters: names, defaults, ranges", test_params },
	{ "ECT(0) by default on requests and ACKs", test_ect_default },
	{ "ecn_enable 0: not ECN-capable", test_ect_disabled },
	{ "ICRC valid on CE-marked frames (v4, v6)", test_icrc_ce },
	{ "CE -> CNP: format, rate limit, counters", test_np_cnp },
	{ "np_enable / rp_enable 0", test_np_rp_disabled },
	{ "DCQCN cut, fast recovery, additive increase, release", test_rp_math },
	{ "min_dec_fac and min_rate bound the cuts", test_rp_bounds },
	{ "pacing WRITE to the limited rate", test_pace_write },
	{ "pacing READ by its response bytes", test_pace_read },
	{ "READ responses paced by the responder's RP", test_read_resp_paced },
	{ "ECN window: one cut a window, alpha, rp_ecn_window 0", test_window },
	{ "UD: CNPs to the DETH source QP, UD sends paced", test_ud_np_rp },
	{ "CNP for no QP of ours ignored", test_cnp_ignored },
	{ "clean link: no CNP, no limiter", test_clean_link_unlimited },
	{ "two senders converge to a fair share", test_two_flows_converge },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cc", NULL, NULL, NULL, NULL, cc_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
