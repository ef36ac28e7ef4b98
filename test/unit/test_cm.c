/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAD layer and IB CM: the real Linux soft-RoCE CM MADs (rxe-cm-mads.hex)
 * parsed and rebuilt byte for byte; the connection state machine between
 * two libroce devices over the fake link (connect, accept, data, disconnect,
 * timeouts, REJ, MRA, duplicate and stale REQs, simultaneous DREQ,
 * connect/disconnect cycles without leaks, REQ floods, garbage MADs).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mempool.h>

#include "cm_env.h"
#include "fake_link.h"
#include "roce_build.h"
#include "roce_cm.h"
#include "roce_icrc.h"
#include "roce_mad.h"
#include "roce_parse.h"
#include "roce_worker.h"
#include "test_common.h"

static struct test_vector *vec;
static int nb_vec;

static const struct test_vector *
vector(const char *name)
{
	const struct test_vector *v = test_find_vector(vec, nb_vec, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	return v;
}

/* Parse vector @p name into @p mad / @p addr; returns the roce_pkt. */
static void
load_mad(const char *name, struct roce_mad *mad, struct roce_mad_addr *addr,
	 struct roce_pkt *pkt)
{
	const struct test_vector *v = vector(name);
	struct rte_mbuf *m = test_mbuf_from(v->data, v->len, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(roce_parse(m, pkt), 0);
	CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, pkt->l3_off), 0);
	CU_ASSERT_EQUAL_FATAL(roce_mad_frame_parse(m, pkt, mad, addr), 0);
	pkt->m = NULL;
	rte_pktmbuf_free(m);
}

static void
gid_v4(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* ------------------------------------------------------------------ */
/* Real MADs                                                          */
/* ------------------------------------------------------------------ */

static void
test_vec_req(void)
{
	struct roce_cm_addr src, dst;
	struct roce_mad_addr addr;
	struct roce_cm_req req;
	struct roce_mad mad;
	struct roce_pkt pkt;
	uint8_t g2[16], g3[16];
	const struct roce_mad_hdr *h;

	load_mad("CM_REQ_0", &mad, &addr, &pkt);
	h = roce_mad_hdr_c(&mad);
	CU_ASSERT_EQUAL(roce_mad_base_version(h), 1);
	CU_ASSERT_EQUAL(roce_mad_mgmt_class(h), ROCE_MGMT_CLASS_CM);
	CU_ASSERT_EQUAL(roce_mad_class_version(h), 2);
	CU_ASSERT_EQUAL(roce_mad_method(h), ROCE_MAD_METHOD_SEND);
	CU_ASSERT_FALSE(roce_mad_is_resp(h));
	CU_ASSERT_EQUAL(roce_mad_tid(h), 0x0000000279cd531dULL);
	CU_ASSERT_EQUAL(roce_mad_attr_id(h), ROCE_CM_ATTR_REQ);
	CU_ASSERT_EQUAL(addr.remote_qpn, 1);
	CU_ASSERT_EQUAL(addr.pkey, 0xffff);
	CU_ASSERT_EQUAL(addr.remote_mac.addr_bytes[5], 0x03);
	CU_ASSERT_EQUAL(addr.local_mac.addr_bytes[5], 0x02);

	roce_cm_req_unpack(&mad, &req);
	gid_v4(g2, 198, 18, 0, 2);
	gid_v4(g3, 198, 18, 0, 3);
	CU_ASSERT_EQUAL(req.local_comm_id, 0x1d53cd79);
	CU_ASSERT_EQUAL(req.service_id, 0x0000000001064853ULL);
	CU_ASSERT_EQUAL(req.service_id,
			roce_cm_service_id(ROCE_CM_PS_TCP, CM_PORT));
	CU_ASSERT_TRUE(roce_cm_service_is_ip(req.service_id));
	CU_ASSERT_EQUAL(req.local_ca_guid, 0x000000fffe000703ULL);
	CU_ASSERT_EQUAL(req.local_qkey, 0);
	CU_ASSERT_EQUAL(req.local_qpn, 0x11);
	CU_ASSERT_EQUAL(req.responder_resources, 0);
	CU_ASSERT_EQUAL(req.initiator_depth, 0);
	CU_ASSERT_EQUAL(req.remote_cm_response_timeout, 20);
	CU_ASSERT_EQUAL(req.transport, ROCE_CM_TRANSPORT_RC);
	CU_ASSERT_FALSE(req.e2e_flow_control);
	CU_ASSERT_EQUAL(req.starting_psn, 0x93eb30);
	CU_ASSERT_EQUAL(req.local_cm_response_timeout, 20);
	CU_ASSERT_EQUAL(req.retry_count, 7);
	CU_ASSERT_EQUAL(req.pkey, 0xffff);
	CU_ASSERT_EQUAL(req.path_mtu, ROCE_MTU_1024);
	CU_ASSERT_FALSE(req.rdc_exists);
	CU_ASSERT_EQUAL(req.rnr_retry_count, 7);
	CU_ASSERT_EQUAL(req.vendor_id, 0);	/* Linux: no ECE vendor */
	CU_ASSERT_EQUAL(req.max_cm_retries, 15);
	CU_ASSERT_FALSE(req.srq);
	CU_ASSERT_EQUAL(req.primary.local_lid, 0xffff);
	CU_ASSERT_EQUAL(req.primary.remote_lid, 0xffff);
	CU_ASSERT_EQUAL(memcmp(req.primary.local_gid, g3, 16), 0);
	CU_ASSERT_EQUAL(memcmp(req.primary.remote_gid, g2, 16), 0);
	CU_ASSERT_EQUAL(req.primary.flow_label, 0x7056c);
	CU_ASSERT_EQUAL(req.primary.hop_limit, 64);
	CU_ASSERT_EQUAL(req.primary.traffic_class, 0);
	CU_ASSERT_EQUAL(req.primary.sl, 0);
	CU_ASSERT_FALSE(req.primary.subnet_local);
	CU_ASSERT_EQUAL(req.primary.local_ack_timeout, 19);
	CU_ASSERT_EQUAL(req.alternate.local_lid, 0);
	/* the frame came from the path's local GID */
	CU_ASSERT_EQUAL(memcmp(addr.remote_gid, g3, 16), 0);
	CU_ASSERT_EQUAL(memcmp(addr.local_gid, g2, 16), 0);

	/* rdma_cm IP header: 198.18.0.3:48071 -> 198.18.0.2 */
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(req.private_data, &src, &dst), 0);
	CU_ASSERT_EQUAL(src.ip_ver, 4);
	CU_ASSERT_EQUAL(src.port, 0xbbc7);
	CU_ASSERT_EQUAL(memcmp(src.gid.raw, g3, 16), 0);
	CU_ASSERT_EQUAL(memcmp(dst.gid.raw, g2, 16), 0);

	/* the other two REQs of the capture */
	load_mad("CM_REQ_3", &mad, &addr, &pkt);
	roce_cm_req_unpack(&mad, &req);
	CU_ASSERT_EQUAL(req.local_comm_id, 0x1c53cd79);
	CU_ASSERT_EQUAL(req.local_qpn, 0x12);
	CU_ASSERT_EQUAL(req.starting_psn, 0x780abd);
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(req.private_data, &src, &dst), 0);
	CU_ASSERT_EQUAL(src.port, 0xd554);
	load_mad("CM_REQ_6", &mad, &addr, &pkt);
	roce_cm_req_unpack(&mad, &req);
	CU_ASSERT_EQUAL(req.local_qpn, 0x13);
	CU_ASSERT_EQUAL(req.starting_psn, 0x4b5d68);
}

static void
test_vec_rep_rtu_rej_dreq(void)
{
	struct roce_mad_addr addr;
	struct roce_cm_dreq dreq;
	struct roce_cm_rep rep;
	struct roce_cm_rtu rtu;
	struct roce_cm_rej rej;
	struct roce_mad mad;
	struct roce_pkt pkt;

	load_mad("CM_REP_1", &mad, &addr, &pkt);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_REP);
	/* the REP answers the REQ's transaction */
	CU_ASSERT_EQUAL(roce_mad_tid(roce_mad_hdr_c(&mad)),
			0x0000000279cd531dULL);
	roce_cm_rep_unpack(&mad, &rep);
	CU_ASSERT_EQUAL(rep.local_comm_id, 0x7a0555a6);
	CU_ASSERT_EQUAL(rep.remote_comm_id, 0x1d53cd79);
	CU_ASSERT_EQUAL(rep.local_qkey, 0);
	CU_ASSERT_EQUAL(rep.local_qpn, 0x11);
	CU_ASSERT_EQUAL(rep.starting_psn, 0x8cf2d4);
	CU_ASSERT_EQUAL(rep.responder_resources, 0);
	CU_ASSERT_EQUAL(rep.initiator_depth, 0);
	CU_ASSERT_EQUAL(rep.target_ack_delay, 15);
	CU_ASSERT_EQUAL(rep.failover_accepted, 0);
	CU_ASSERT_FALSE(rep.e2e_flow_control);
	CU_ASSERT_EQUAL(rep.rnr_retry_count, 7);
	CU_ASSERT_FALSE(rep.srq);
	CU_ASSERT_EQUAL(rep.vendor_id, 0);
	CU_ASSERT_EQUAL(rep.local_ca_guid, 0x000000fffe000702ULL);

	load_mad("CM_REP_7", &mad, &addr, &pkt);
	roce_cm_rep_unpack(&mad, &rep);
	CU_ASSERT_EQUAL(rep.local_qpn, 0x12);
	CU_ASSERT_EQUAL(rep.starting_psn, 0xd63786);
	CU_ASSERT_EQUAL(rep.remote_comm_id, 0x1f53cd79);

	load_mad("CM_RTU_2", &mad, &addr, &pkt);
	roce_cm_rtu_unpack(&mad, &rtu);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_RTU);
	CU_ASSERT_EQUAL(rtu.local_comm_id, 0x1d53cd79);
	CU_ASSERT_EQUAL(rtu.remote_comm_id, 0x7a0555a6);

	load_mad("CM_REJ_4", &mad, &addr, &pkt);
	roce_cm_rej_unpack(&mad, &rej);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_REJ);
	CU_ASSERT_EQUAL(rej.local_comm_id, 0);
	CU_ASSERT_EQUAL(rej.remote_comm_id, 0x1c53cd79);
	CU_ASSERT_EQUAL(rej.msg_rejected, ROCE_CM_MSG_REQ);
	CU_ASSERT_EQUAL(rej.ari_len, 0);
	CU_ASSERT_EQUAL(rej.reason, ROCE_CM_REJ_INVALID_SERVICE_ID);

	load_mad("CM_DREQ_5", &mad, &addr, &pkt);
	roce_cm_dreq_unpack(&mad, &dreq);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_DREQ);
	CU_ASSERT_EQUAL(dreq.local_comm_id, 0x1d53cd79);
	CU_ASSERT_EQUAL(dreq.remote_comm_id, 0x7a0555a6);
	CU_ASSERT_EQUAL(dreq.remote_qpn, 0x11);
}

/* Repack @p mad through the message structs into @p out. */
static void
repack(const struct roce_mad *mad, struct roce_mad *out)
{
	uint64_t tid = roce_mad_tid(roce_mad_hdr_c(mad));
	union {
		struct roce_cm_req req;
		struct roce_cm_rep rep;
		struct roce_cm_rtu rtu;
		struct roce_cm_rej rej;
		struct roce_cm_dreq dreq;
	} u;

	switch (roce_mad_attr_id(roce_mad_hdr_c(mad))) {
	case ROCE_CM_ATTR_REQ:
		roce_cm_req_unpack(mad, &u.req);
		roce_cm_req_pack(out, tid, &u.req);
		break;
	case ROCE_CM_ATTR_REP:
		roce_cm_rep_unpack(mad, &u.rep);
		roce_cm_rep_pack(out, tid, &u.rep);
		break;
	case ROCE_CM_ATTR_RTU:
		roce_cm_rtu_unpack(mad, &u.rtu);
		roce_cm_rtu_pack(out, tid, &u.rtu);
		break;
	case ROCE_CM_ATTR_REJ:
		roce_cm_rej_unpack(mad, &u.rej);
		roce_cm_rej_pack(out, tid, &u.rej);
		break;
	case ROCE_CM_ATTR_DREQ:
		roce_cm_dreq_unpack(mad, &u.dreq);
		roce_cm_dreq_pack(out, tid, &u.dreq);
		break;
	default:
		CU_FAIL("unexpected attribute");
		memset(out, 0, sizeof(*out));
	}
}

/* Every MAD rebuilt from its fields, then the whole frame, byte for byte. */
static void
test_vec_rebuild(void)
{
	int i, done = 0;

	for (i = 0; i < nb_vec; i++) {
		const struct test_vector *v = &vec[i];
		struct roce_mad mad, out;
		struct roce_mad_addr rx, tx;
		struct roce_pkt pkt;
		struct rte_mbuf *m;
		uint16_t ip_id;

		if (strncmp(v->name, "CM_", 3) != 0)
			continue;
		load_mad(v->name, &mad, &rx, &pkt);
		repack(&mad, &out);
		CU_ASSERT_EQUAL(memcmp(out.b, mad.b, ROCE_MAD_LEN), 0);
		CU_ASSERT_EQUAL(memcmp(out.b, v->data + 62, ROCE_MAD_LEN), 0);

		/* as the sender: swap the sides of the received addressing */
		tx = rx;
		tx.local_mac = rx.remote_mac;
		tx.remote_mac = rx.local_mac;
		memcpy(tx.local_gid, rx.remote_gid, 16);
		memcpy(tx.remote_gid, rx.local_gid, 16);
		tx.remote_qpn = ROCE_GSI_QPN;
		tx.tos = 0;
		tx.ttl = 64;
		ip_id = (uint16_t)(v->data[18] << 8 | v->data[19]);
		CU_ASSERT_EQUAL_FATAL(roce_mad_frame_build(test_mbuf_pool(),
							   &out, &tx,
							   (uint32_t)(v->data[51] << 16 |
								      v->data[52] << 8 |
								      v->data[53]),
							   ip_id, &m), 0);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), v->len);
		if (rte_pktmbuf_pkt_len(m) == v->len)
			CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(m, void *),
					       v->data, v->len), 0);
		rte_pktmbuf_free(m);
		done++;
	}
	CU_ASSERT_EQUAL(done, 9);
}

/* Our REQ, built by roce_cm_connect(), as Linux would read it. */
static void
test_rdma_cm_hdr(void)
{
	struct roce_cm_addr a, b, c, d;
	uint8_t pd[ROCE_CM_IP_HDR_LEN];
	const uint8_t ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	const uint8_t ip6b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	roce_cm_addr_ipv4(&a, rte_cpu_to_be_32(0xc6120003), 48071);
	roce_cm_addr_ipv4(&b, rte_cpu_to_be_32(0xc6120002), CM_PORT);
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_pack(pd, &a, &b), 0);
	/* byte layout of Linux struct cma_hdr */
	CU_ASSERT_EQUAL(pd[0], 0x00);
	CU_ASSERT_EQUAL(pd[1], 0x40);
	CU_ASSERT_EQUAL(pd[2], 0xbb);
	CU_ASSERT_EQUAL(pd[3], 0xc7);
	CU_ASSERT_EQUAL(pd[4], 0);
	CU_ASSERT_EQUAL(pd[16], 198);
	CU_ASSERT_EQUAL(pd[19], 3);
	CU_ASSERT_EQUAL(pd[35], 2);
	CU_ASSERT_EQUAL(memcmp(pd, vector("CM_REQ_0")->data + 62 + 24 + 140,
			       ROCE_CM_IP_HDR_LEN), 0);
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(pd, &c, &d), 0);
	CU_ASSERT_EQUAL(memcmp(c.gid.raw, a.gid.raw, 16), 0);
	CU_ASSERT_EQUAL(memcmp(d.gid.raw, b.gid.raw, 16), 0);
	roce_cm_addr_ipv6(&a, ip6, 1000);
	roce_cm_addr_ipv6(&b, ip6b, 2000);
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_pack(pd, &a, &b), 0);
	CU_ASSERT_EQUAL(pd[1], 0x60);
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(pd, &c, &d), 0);
	CU_ASSERT_EQUAL(c.ip_ver, 6);
	CU_ASSERT_EQUAL(c.port, 1000);
	CU_ASSERT_EQUAL(memcmp(d.gid.raw, ip6b, 16), 0);
	pd[0] = 1;
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(pd, &c, &d), -EPROTO);
	pd[0] = 0;
	pd[1] = 0x50;
	CU_ASSERT_EQUAL(roce_cm_ip_hdr_unpack(pd, &c, &d), -EPROTO);
	CU_ASSERT_EQUAL(roce_cm_service_id(ROCE_CM_PS_UDP, 7471),
			0x0000000001111d2fULL);
	CU_ASSERT_FALSE(roce_cm_service_is_ip(0x1000000000000001ULL));
	/* 4.096 us * 2^20 = 4.29 s */
	CU_ASSERT_EQUAL(roce_cm_time_ticks(20, 1000000), 4294967);
}

static void
test_connect_disconnect(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2];
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	env_listen(e, 1, 0);
	establish(e, &id[0], &id[1], "hello rdma_cm");
	/* the QPs point at each other with each other's PSNs */
	CU_ASSERT_EQUAL(roce_query_qp(e->s[0].qp, &a, &ia), 0);
	CU_ASSERT_EQUAL(a.dest_qp_num, roce_qp_num(e->s[1].qp));
	CU_ASSERT_EQUAL(a.path_mtu, ROCE_MTU_1024);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 4);
	CU_ASSERT_EQUAL(a.timeout, 14);
	CU_ASSERT_EQUAL(roce_query_qp(e->s[1].qp, &a, &ia), 0);
	CU_ASSERT_EQUAL(a.dest_qp_num, roce_qp_num(e->s[0].qp));
	CU_ASSERT_EQUAL(a.timeout, 14);		/* from the REQ's path */
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 4);
	send_one(e);
	teardown(e, id, 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	/* and again, the passive side disconnecting */
	establish(e, &id[0], &id[1], NULL);
	send_one(e);
	teardown(e, id, 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_req"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_rep"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_rtu"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_dreq"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_dreq"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_drop_bad_state"), 0);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_drop_bad_state"), 0);
	env_destroy(e);
}

static void
test_req_timeout(void)
{
	struct cm_env *e = env_create(3, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *id;
	uint64_t t0;

	env_listen(e, 1, 0);
	e->s[0].drop_tx = true;
	t0 = e->l->tsc;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id, NULL, 0), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_UNREACHABLE, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->status, -ETIMEDOUT);
	CU_ASSERT_PTR_EQUAL(ev->id, id);
	/* first try + 3 retries, each 2 * 268 ms + 4.3 s apart */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_req"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "mad_retrans"), 3);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_timeout_req"), 1);
	CU_ASSERT_TRUE(e->l->tsc - t0 >= 4 * (2 * roce_cm_time_ticks(16,
		rte_get_tsc_hz()) + roce_cm_time_ticks(20, rte_get_tsc_hz())));
	CU_ASSERT_EQUAL(roce_cm_id_state(id), ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_req"), 0);
	CU_ASSERT_EQUAL(qp_state(e->s[0].qp), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	/* the link comes back: the QP is reset and connects */
	e->s[0].drop_tx = false;
	qp_reset(e->s[0].qp);
	{
		struct roce_cm_id *ids[2];

		establish(e, &ids[0], &ids[1], NULL);
		teardown(e, ids, 0);
	}
	env_destroy(e);
}

/* The REQ lost three times: a retry gets through. */
static void
test_req_retry_then_connect(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];
	long i;

	env_listen(e, 1, 0);
	e->s[0].drop_tx = true;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id[0], NULL, 0), 0);
	for (i = 0; i < 100000 &&
	     roce_cm_counter(e->s[0].cm, "mad_retrans") < 2; i++)
		env_step(e);
	e->s[0].drop_tx = false;
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	id[1] = ev->id;
	{
		struct roce_cm_conn_param p;

		param_default(&p);
		CU_ASSERT_EQUAL(roce_cm_accept(id[1], e->s[1].qp, &p, NULL,
					       e->l->tsc), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_req"), 1);
	/* the REQ and two retries lost, the third retry got through */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "mad_retrans"), 3);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_req"), 1);
	send_one(e);
	teardown(e, id, 0);
	env_destroy(e);
}

/*
 * A REQ that comes before its listener waits for it (cm_hold_req()): the
 * connection is made when the listener appears within CM_HOLD_MS; without
 * one, the REJ follows the hold (a retransmitted REQ is held once).
 */
static void
test_req_waits_for_listener(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_conn_param prm;
	struct roce_cm_event *ev;
	struct roce_cm_id *id;

	param_default(&prm);
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id, NULL, 0), 0);
	settle(e);	/* the REQ arrives; no listener yet */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_held"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_rej"), 0);
	CU_ASSERT_PTR_NULL(find_ev(&e->s[0], ROCE_CM_EVENT_REJECTED, 0));
	env_listen(e, 1, 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(roce_cm_accept(ev->id, e->s[1].qp, &prm, NULL,
				       e->l->tsc), 0);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0],
				       ROCE_CM_EVENT_ESTABLISHED, 0));
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_no_listener"), 0);
	env_destroy(e);
}

static void
test_reject(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *id;
	const char why[] = "go away";

	/* nobody listens: INVALID_SERVICE_ID, as Linux answers (CM_REJ_4) */
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id, NULL, 0), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_REJECTED, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->rej_reason, ROCE_CM_REJ_INVALID_SERVICE_ID);
	CU_ASSERT_EQUAL(roce_cm_id_state(id), ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(qp_state(e->s[0].qp), ROCE_QPS_ERR);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_no_listener"), 1);
	/* it waited for a listener first, once (retransmissions included) */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_held"), 1);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id, e->l->tsc), 0);
	qp_reset(e->s[0].qp);

	/* the application rejects, with private data */
	env_listen(e, 1, 0);
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id, NULL, 0), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(roce_cm_reject(ev->id, ROCE_CM_REJ_CONSUMER_DEFINED,
				       why, sizeof(why), e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(ev->id), ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(ev->id, e->l->tsc), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_REJECTED, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->rej_reason, ROCE_CM_REJ_CONSUMER_DEFINED);
	CU_ASSERT_EQUAL(memcmp(ev->private_data, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id, e->l->tsc), 0);
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	/* API misuse is refused */
	CU_ASSERT_EQUAL(roce_cm_accept(NULL, e->s[1].qp, NULL, NULL, 0),
			-EINVAL);
	CU_ASSERT_EQUAL(roce_cm_disconnect(NULL, 0), -EINVAL);
	env_destroy(e);
}

/* A retransmitted REQ: MRA while the application thinks, no second event. */
static void
test_dup_req_mra(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_conn_param p;
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];
	struct rte_mbuf *dup;

	env_listen(e, 1, 0);
	e->s[0].capture_attr = ROCE_CM_ATTR_REQ;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id[0], NULL, 0), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	id[1] = ev->id;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->s[0].captured);
	/* the same REQ again, twice */
	dup = rte_pktmbuf_copy(e->s[0].captured, test_mbuf_pool(), 0,
			       UINT32_MAX);
	roce_cm_rx(e->s[1].cm, e->s[0].captured, e->l->tsc);
	e->s[0].captured = NULL;
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_MRA_REQ_SENT);
	roce_cm_rx(e->s[1].cm, dup, e->l->tsc);
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_mra"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_dup"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "mad_rx_dup"), 2);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[0]), ROCE_CM_MRA_REQ_RCVD);
	CU_ASSERT_PTR_NULL(find_ev(&e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST,
				   1));
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 1);
	param_default(&p);
	CU_ASSERT_EQUAL(roce_cm_accept(id[1], e->s[1].qp, &p, NULL,
				       e->l->tsc), 0);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	/* a REQ retransmitted after the connection is up changes nothing */
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_ESTABLISHED);
	teardown(e, id, 1);
	env_destroy(e);
}

/* Lost RTU: the REP is repeated, the active side resends the RTU. */
static void
test_lost_rtu(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_conn_param p;
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];

	env_listen(e, 1, 0);
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id[0], NULL, 0), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	id[1] = ev->id;
	param_default(&p);
	CU_ASSERT_EQUAL(roce_cm_accept(id[1], e->s[1].qp, &p, NULL,
				       e->l->tsc), 0);
	/* deliver the REP, lose what side 0 sends (the RTU) */
	while (find_ev(&e->s[0], ROCE_CM_EVENT_ESTABLISHED, 0) == NULL) {
		e->s[0].drop_tx = true;
		env_step(e);
	}
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_REP_SENT);
	e->s[0].drop_tx = false;
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_rtu"), 2);
	/* the REP once, and once again by the MAD layer */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_rep"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "mad_retrans"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_rep"), 2);
	teardown(e, id, 0);
	env_destroy(e);
}

static void
test_simultaneous_dreq(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2];
	int i;

	env_listen(e, 1, 0);
	establish(e, &id[0], &id[1], NULL);
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[0], e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[1], e->l->tsc), 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[i],
					       ROCE_CM_EVENT_DISCONNECTED, 0));
		CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[i],
					       ROCE_CM_EVENT_TIMEWAIT_EXIT, 0));
		CU_ASSERT_EQUAL(roce_cm_counter(e->s[i].cm, "cm_tx_drep"), 1);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(id[i], e->l->tsc), 0);
		CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[i].cm), 0);
	}
	env_destroy(e);
}

/* DREQ unanswered: DISCONNECTED after the retries, then timewait. */
static void
test_dreq_timeout(void)
{
	struct cm_env *e = env_create(2, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];

	env_listen(e, 1, 0);
	establish(e, &id[0], &id[1], NULL);
	e->s[0].drop_tx = true;
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[0], e->l->tsc), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_DISCONNECTED, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_dreq"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "mad_retrans"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_timeout_dreq"), 1);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0],
				       ROCE_CM_EVENT_TIMEWAIT_EXIT, 0));
	/* destroy without waiting for the peer, which still thinks it is up */
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[0], e->l->tsc), 0);
	e->s[0].drop_tx = false;
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[1], e->l->tsc), 0);
	/* side 0 answers a DREQ for a connection it forgot (Linux does too) */
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_DISCONNECTED,
				       0));
	CU_ASSERT_EQUAL(find_ev(&e->s[1], ROCE_CM_EVENT_DISCONNECTED,
				0)->status, 0);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_drop_unknown_id"),
			1);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[1], e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

/* A REQ from a peer QP we are still connected to (IBTA 12.9.8.3.2). */
static void
test_stale_req(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2];
	struct roce_mad_addr addr;
	struct roce_cm_req req;
	struct roce_mad mad;
	struct rte_mbuf *m;
	struct fake_ep *ep0 = &e->l->ep[0], *ep1 = &e->l->ep[1];
	struct roce_cm_addr src, dst;

	env_listen(e, 1, 0);
	establish(e, &id[0], &id[1], NULL);
	memset(&req, 0, sizeof(req));
	req.local_comm_id = 0x12345678;
	req.service_id = roce_cm_service_id(ROCE_CM_PS_TCP, CM_PORT);
	req.local_qpn = roce_qp_num(e->s[0].qp);
	req.path_mtu = ROCE_MTU_1024;
	memcpy(req.primary.local_gid, ep0->gid.raw, 16);
	memcpy(req.primary.remote_gid, ep1->gid.raw, 16);
	addr_of(e, 0, 4000, &src);
	addr_of(e, 1, CM_PORT, &dst);
	roce_cm_ip_hdr_pack(req.private_data, &src, &dst);
	roce_cm_req_pack(&mad, 77, &req);
	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, ep0->mac, 6);
	memcpy(addr.remote_mac.addr_bytes, ep1->mac, 6);
	memcpy(addr.local_gid, ep0->gid.raw, 16);
	memcpy(addr.remote_gid, ep1->gid.raw, 16);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	CU_ASSERT_EQUAL_FATAL(roce_mad_frame_build(test_mbuf_pool(), &mad,
						   &addr, 0, 0, &m), 0);
	roce_cm_rx(e->s[1].cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_stale"), 1);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_DREQ_SENT);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_DISCONNECTED,
				       0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_DISCONNECTED,
				       0));
	CU_ASSERT_PTR_NULL(find_ev(&e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 1));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[0], e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[1], e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

/* 10000 cycles (IBTA 12.9); nothing leaks (ids, tracked sends, mbufs). */
static void
test_cycles(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2];
	unsigned int avail, fails;
	int i;

	env_listen(e, 1, 0);
	fails = CU_get_number_of_failures();
	/* one cycle first so every cache is warm */
	establish(e, &id[0], &id[1], NULL);
	teardown(e, id, 0);
	settle(e);
	avail = rte_mempool_avail_count(test_mbuf_pool());
	for (i = 0; i < 10000; i++) {
		e->s[0].nev = 0;
		e->s[1].nev = 0;
		establish(e, &id[0], &id[1], NULL);
		if (i % 1000 == 0)
			send_one(e);
		teardown(e, id, i & 1);
		if (CU_get_number_of_failures() != fails)
			break;
	}
	settle(e);
	CU_ASSERT_EQUAL(i, 10000);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_established"), 10001);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_established"), 10001);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_event_dropped"), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(test_mbuf_pool()), avail);
	env_destroy(e);
}

/* A REQ from side 0's addresses with comm ID @p cid and QPN @p qpn. */
static struct rte_mbuf *
forged_req(struct cm_env *e, uint32_t cid, uint32_t qpn, uint64_t tid)
{
	struct fake_ep *ep0 = &e->l->ep[0], *ep1 = &e->l->ep[1];
	struct roce_cm_addr src, dst;
	struct roce_mad_addr addr;
	struct roce_cm_req req;
	struct roce_mad mad;
	struct rte_mbuf *m;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = cid;
	req.service_id = roce_cm_service_id(ROCE_CM_PS_TCP, CM_PORT);
	req.local_qpn = qpn;
	req.path_mtu = ROCE_MTU_1024;
	req.max_cm_retries = 15;
	req.local_cm_response_timeout = 20;
	memcpy(req.primary.local_gid, ep0->gid.raw, 16);
	memcpy(req.primary.remote_gid, ep1->gid.raw, 16);
	addr_of(e, 0, 4000, &src);
	addr_of(e, 1, CM_PORT, &dst);
	roce_cm_ip_hdr_pack(req.private_data, &src, &dst);
	roce_cm_req_pack(&mad, tid, &req);
	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, ep0->mac, 6);
	memcpy(addr.remote_mac.addr_bytes, ep1->mac, 6);
	memcpy(addr.local_gid, ep0->gid.raw, 16);
	memcpy(addr.remote_gid, ep1->gid.raw, 16);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	if (roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0, 0, &m) != 0)
		return NULL;
	return m;
}

/* The CM message @p m (an mbuf captured on the fake link) as a MAD. */
static void
mad_of(struct rte_mbuf *m, struct roce_mad *mad)
{
	struct roce_mad_addr addr;
	struct roce_pkt pkt;

	CU_ASSERT_EQUAL_FATAL(roce_parse(m, &pkt), 0);
	CU_ASSERT_EQUAL_FATAL(roce_mad_frame_parse(m, &pkt, mad, &addr), 0);
}

/* An MRA from side @p from (a scripted peer) to side @p from ^ 1. */
static struct rte_mbuf *
forged_mra(struct cm_env *e, int from, uint32_t local_cid,
	   uint32_t remote_cid, uint8_t msg, uint8_t service_timeout)
{
	struct fake_ep *src = &e->l->ep[from], *dst = &e->l->ep[from ^ 1];
	struct roce_mad_addr addr;
	struct roce_cm_mra mra;
	struct roce_mad mad;
	struct rte_mbuf *m;

	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = local_cid;
	mra.remote_comm_id = remote_cid;
	mra.msg_mraed = msg;
	mra.service_timeout = service_timeout;
	roce_cm_mra_pack(&mad, 0x77000000ull + msg, &mra);
	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, src->mac, 6);
	memcpy(addr.remote_mac.addr_bytes, dst->mac, 6);
	memcpy(addr.local_gid, src->gid.raw, 16);
	memcpy(addr.remote_gid, dst->gid.raw, 16);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	if (roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0, 0, &m) != 0)
		return NULL;
	return m;
}

/*
 * After an MRA (service timeout @p st) at @p t_mra: the tracked send of
 * @p s is not repeated before t_mra + 4.096 us * 2^st + 2 packet life
 * times, and is repeated once that passed. @p cnt: its tx counter.
 */
static void
check_mra_wait(struct cm_env *e, struct side *s, uint8_t st, uint64_t t_mra)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t wait = roce_cm_time_ticks(st, hz) +
		2 * roce_cm_time_ticks(16, hz);
	uint64_t normal = 2 * roce_cm_time_ticks(16, hz) +
		roce_cm_time_ticks(20, hz);
	int64_t retrans0 = roce_cm_counter(s->cm, "mad_retrans");
	uint64_t dl = roce_cm_next_deadline(s->cm);

	/* the deadline moved from ~4.8 s to the MRA's wait */
	CU_ASSERT_TRUE(wait > 4 * normal);
	CU_ASSERT_TRUE(dl >= t_mra + wait - wait / 100);
	CU_ASSERT_TRUE(dl <= t_mra + wait + wait / 100);
	/* past the old deadline, just before the new one: no resend */
	e->l->tsc = t_mra + normal + normal / 2;
	settle(e);
	e->l->tsc = t_mra + wait - wait / 50;
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(s->cm, "mad_retrans"), retrans0);
	/* after it: resent once, with the normal timeout again */
	e->l->tsc = t_mra + wait + wait / 50;
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(s->cm, "mad_retrans"), retrans0 + 1);
	dl = roce_cm_next_deadline(s->cm);
	CU_ASSERT_TRUE(dl <= e->l->tsc + normal + normal / 100);
}

/* The peer's MRA for our REQ: the REQ's timeout is extended. */
static void
test_mra_for_req(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2];
	struct roce_cm_req req;
	struct roce_mad mad;
	struct rte_mbuf *m;
	uint64_t t;

	env_listen(e, 1, 0);
	/* the REQ goes nowhere (captured): side 1 is scripted */
	e->s[0].drop_tx = true;
	e->s[0].capture_attr = ROCE_CM_ATTR_REQ;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id[0], NULL, 0), 0);
	settle(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->s[0].captured);
	mad_of(e->s[0].captured, &mad);
	roce_cm_req_unpack(&mad, &req);
	/* an MRA for a REP we never sent: wrong state, counted, no effect */
	m = forged_mra(e, 1, 0x4242, req.local_comm_id, ROCE_CM_MSG_REP, 24);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	roce_cm_rx(e->s[0].cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[0]), ROCE_CM_REQ_SENT);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_drop_bad_state"),
			1);
	/* the MRA for the REQ, service timeout 24 (68.7 s) */
	e->l->tsc += rte_get_tsc_hz() / 10;
	t = e->l->tsc;
	m = forged_mra(e, 1, 0x4242, req.local_comm_id, ROCE_CM_MSG_REQ, 24);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	roce_cm_rx(e->s[0].cm, m, t);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[0]), ROCE_CM_MRA_REQ_RCVD);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_mra"), 2);
	check_mra_wait(e, &e->s[0], 24, t);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_req"), 1);
	/* the link works again: the next REQ gets through and connects */
	e->s[0].drop_tx = false;
	e->s[0].capture_attr = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(wait_ev(e, &e->s[1],
				ROCE_CM_EVENT_CONNECT_REQUEST, 0));
	id[1] = find_ev(&e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0)->id;
	{
		struct roce_cm_conn_param p;

		param_default(&p);
		CU_ASSERT_EQUAL(roce_cm_accept(id[1], e->s[1].qp, &p, NULL,
					       e->l->tsc), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	teardown(e, id, 0);
	env_destroy(e);
}

/* The peer's MRA for our REP: the REP's timeout is extended. */
static void
test_mra_for_rep(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_conn_param p;
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];
	struct roce_cm_rep rep;
	struct roce_mad mad;
	struct rte_mbuf *m;
	uint64_t t;

	env_listen(e, 1, 0);
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &id[0], NULL, 0), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	id[1] = ev->id;
	/* the REP goes nowhere (captured): side 0 is scripted now */
	e->s[1].drop_tx = true;
	e->s[1].capture_attr = ROCE_CM_ATTR_REP;
	param_default(&p);
	CU_ASSERT_EQUAL_FATAL(roce_cm_accept(id[1], e->s[1].qp, &p, NULL,
					     e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_REP_SENT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->s[1].captured);
	mad_of(e->s[1].captured, &mad);
	roce_cm_rep_unpack(&mad, &rep);
	/* an MRA from another comm ID: bad source, no effect */
	m = forged_mra(e, 0, rep.remote_comm_id + 1, rep.local_comm_id,
		       ROCE_CM_MSG_REP, 24);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	roce_cm_rx(e->s[1].cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_REP_SENT);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_drop_bad_source"),
			1);
	/* the MRA for the REP (service timeout 24: 68.7 s) */
	e->l->tsc += rte_get_tsc_hz() / 10;
	t = e->l->tsc;
	m = forged_mra(e, 0, rep.remote_comm_id, rep.local_comm_id,
		       ROCE_CM_MSG_REP, 24);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	roce_cm_rx(e->s[1].cm, m, t);
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_MRA_REP_RCVD);
	check_mra_wait(e, &e->s[1], 24, t);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_rep"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_timeout_rep"), 0);
	/* the REP gets through at last: RTU, both established */
	e->s[1].drop_tx = false;
	e->s[1].capture_attr = 0;
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_ESTABLISHED,
				       0));
	teardown(e, id, 1);
	env_destroy(e);
}

/* A REQ flood: the backlog holds, the rest is refused, nothing stays. */
static void
test_req_flood(void)
{
	struct cm_env *e = env_create(0, 64);
	unsigned int i, n = 0, avail;
	struct roce_cm_event ev;

	env_listen(e, 1, 16);
	avail = rte_mempool_avail_count(test_mbuf_pool());
	for (i = 0; i < 5000; i++) {
		struct rte_mbuf *m = forged_req(e, 0x1000 + i, 0x100 + i, i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		roce_cm_rx(e->s[1].cm, m, e->l->tsc);
	}
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 16);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_backlog_full"),
			5000 - 16);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_rej"), 5000 - 16);
	while (roce_cm_get_event(e->s[1].cm, &ev) == 1) {
		CU_ASSERT_EQUAL(ev.type, ROCE_CM_EVENT_CONNECT_REQUEST);
		CU_ASSERT_EQUAL(roce_cm_reject(ev.id, ROCE_CM_REJ_NO_RESOURCES,
					       NULL, 0, e->l->tsc), 0);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(ev.id, e->l->tsc), 0);
		n++;
	}
	CU_ASSERT_EQUAL(n, 16);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	/* the REJs went to side 0, which knows none of the comm IDs */
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_rej"), 5000);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_drop_unknown_id"),
			5000);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(test_mbuf_pool()), avail);
	/* and a real connection still goes through */
	{
		struct roce_cm_id *id[2];

		establish(e, &id[0], &id[1], NULL);
		teardown(e, id, 0);
	}
	env_destroy(e);
}

/* Malformed and unexpected MADs are dropped and counted, never crash. */
static void
test_garbage(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm *cm = e->s[1].cm;
	const struct test_vector *v = vector("CM_REQ_0");
	struct fake_ep *ep0 = &e->l->ep[0], *ep1 = &e->l->ep[1];
	struct roce_hdr_fields f;
	struct roce_mad_addr addr;
	struct roce_mad mad;
	struct rte_mbuf *m;
	uint64_t rng = 42;
	unsigned int i, avail;
	uint8_t small[100];

	avail = rte_mempool_avail_count(test_mbuf_pool());
	/* the real REQ with its ICRC broken */
	m = test_mbuf_from(v->data, v->len, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[100] ^= 1;
	roce_cm_rx(cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_icrc"), 1);
	/* not RoCE at all */
	m = test_mbuf_from(v->data, 20, 0);
	roce_cm_rx(cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_parse"), 1);

	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, ep0->mac, 6);
	memcpy(addr.remote_mac.addr_bytes, ep1->mac, 6);
	memcpy(addr.local_gid, ep0->gid.raw, 16);
	memcpy(addr.remote_gid, ep1->gid.raw, 16);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	memcpy(mad.b, v->data + 62, ROCE_MAD_LEN);
	/* wrong class, class version, base version, method, R bit */
	mad.b[1] = ROCE_MGMT_CLASS_PERF;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	mad.b[1] = ROCE_MGMT_CLASS_CM;
	mad.b[2] = 1;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	mad.b[2] = 2;
	mad.b[0] = 2;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	mad.b[0] = 1;
	mad.b[3] = ROCE_MAD_METHOD_GET;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	mad.b[3] = ROCE_MAD_METHOD_SEND | ROCE_MAD_METHOD_RESP;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	mad.b[3] = ROCE_MAD_METHOD_SEND;
	/* unsupported attribute (LAP) */
	mad.b[16] = 0;
	mad.b[17] = ROCE_CM_ATTR_LAP;
	CU_ASSERT_EQUAL(roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0,
					     0, &m), 0);
	roce_cm_rx(cm, m, e->l->tsc);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_class"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_class_version"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_base_version"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_method"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_rx_drop_unsupported_attr"), 1);

	/* wrong Q_Key, wrong P_Key, short payload, not QP1 */
	memset(&f, 0, sizeof(f));
	memcpy(f.src_mac.addr_bytes, ep0->mac, 6);
	memcpy(f.dst_mac.addr_bytes, ep1->mac, 6);
	f.ip_ver = 4;
	f.ttl = 64;
	memcpy(f.sgid, ep0->gid.raw, 16);
	memcpy(f.dgid, ep1->gid.raw, 16);
	f.opcode = ROCE_OP_UD_SEND_ONLY;
	f.pkey = 0xffff;
	f.dqpn = 1;
	f.qkey = 0x1234;
	f.src_qpn = 1;
	memset(small, 0, sizeof(small));
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, mad.b, ROCE_MAD_LEN), 0);
	f.qkey = ROCE_GSI_QKEY;
	f.pkey = 0x1234;
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, mad.b, ROCE_MAD_LEN), 0);
	f.pkey = 0x7fff;	/* limited member of the default partition: fine */
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, small, sizeof(small)),
			0);
	f.opcode = ROCE_OP_UD_SEND_ONLY_IMM;
	CU_ASSERT_EQUAL(fake_link_inject(e->l, 1, &f, mad.b, ROCE_MAD_LEN), 0);
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_qkey"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_pkey"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_len"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "mad_rx_drop_not_gsi"), 1);

	/* random class data under every CM attribute: parsed, refused, counted */
	env_listen(e, 1, 4);
	for (i = 0; i < 20000; i++) {
		unsigned int k;

		roce_mad_init_hdr(&mad, ROCE_MAD_METHOD_SEND, i,
				  (uint16_t)(ROCE_CM_ATTR_REQ + i % 7));
		for (k = ROCE_MAD_HDR_LEN; k < ROCE_MAD_LEN; k++) {
			rng ^= rng >> 12;
			rng ^= rng << 25;
			rng ^= rng >> 27;
			mad.b[k] = (uint8_t)((rng * 2685821657736338717ULL) >>
					     56);
		}
		CU_ASSERT_EQUAL_FATAL(roce_mad_frame_build(test_mbuf_pool(),
							   &mad, &addr, i, 0,
							   &m), 0);
		roce_cm_rx(cm, m, e->l->tsc);
	}
	settle(e);
	/* random REQs name no listener (or are invalid), the rest no id */
	CU_ASSERT_EQUAL(roce_cm_nb_ids(cm), 0);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_rx_req") +
			roce_cm_counter(cm, "cm_rx_mra") +
			roce_cm_counter(cm, "cm_rx_rej") +
			roce_cm_counter(cm, "cm_rx_rep") +
			roce_cm_counter(cm, "cm_rx_rtu") +
			roce_cm_counter(cm, "cm_rx_dreq") +
			roce_cm_counter(cm, "cm_rx_drep"), 20000);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_req_no_listener") +
			roce_cm_counter(cm, "cm_req_invalid"), 20000 / 7 + 1);
	CU_ASSERT_EQUAL(roce_cm_counter(cm, "cm_rx_drop_unknown_id") +
			roce_cm_counter(cm, "cm_rx_dup"),
			20000 - (20000 / 7 + 1));
	CU_ASSERT_EQUAL(rte_mempool_avail_count(test_mbuf_pool()), avail);
	env_destroy(e);
}

/* MAD agent: TID matching, retries, extension, cancel, no leaks. */
static unsigned int agent_timeouts;

static void
agent_timeout(void *cb_ctx, void *ctx, struct roce_mad_send *s, uint64_t now)
{
	RTE_SET_USED(cb_ctx);
	RTE_SET_USED(now);
	CU_ASSERT_PTR_EQUAL(ctx, &agent_timeouts);
	CU_ASSERT_EQUAL(roce_mad_send_tries(s), 3);
	agent_timeouts++;
}

static int
agent_tx(void *ctx, struct rte_mbuf *m)
{
	unsigned int *n = ctx;

	(*n)++;
	rte_pktmbuf_free(m);
	return 0;
}

static void
test_mad_agent(void)
{
	struct roce_mad_agent_config cfg;
	struct roce_mad_agent *a;
	struct roce_mad_addr addr;
	struct roce_mad_send *s[3];
	struct roce_mad mad;
	unsigned int sent = 0;
	uint8_t gid2[16];
	uint64_t tid, now = 1000;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.pool = test_mbuf_pool();
	cfg.tx = agent_tx;
	cfg.tx_ctx = &sent;
	cfg.timeout_cb = agent_timeout;
	cfg.hz = 1000;
	cfg.max_sends = 2;
	cfg.hi_tid = 0xabcd;
	cfg.socket = SOCKET_ID_ANY;
	a = roce_mad_agent_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	tid = roce_mad_tid_new(a);
	CU_ASSERT_EQUAL(tid >> 32, 0xabcd);
	CU_ASSERT_NOT_EQUAL(roce_mad_tid_new(a), tid);
	memset(&addr, 0, sizeof(addr));
	gid_v4(addr.local_gid, 10, 0, 0, 1);
	gid_v4(addr.remote_gid, 10, 0, 0, 2);
	gid_v4(gid2, 10, 0, 0, 3);
	addr.ip_ver = 4;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	roce_mad_init_hdr(&mad, ROCE_MAD_METHOD_SEND, tid, ROCE_CM_ATTR_REQ);
	s[0] = roce_mad_send_tracked(a, &mad, &addr, 10, 2, &agent_timeouts,
				     now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s[0]);
	roce_mad_init_hdr(&mad, ROCE_MAD_METHOD_SEND, tid + 1,
			  ROCE_CM_ATTR_REQ);
	s[1] = roce_mad_send_tracked(a, &mad, &addr, 10, 2, NULL, now);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s[1]);
	s[2] = roce_mad_send_tracked(a, &mad, &addr, 10, 2, NULL, now);
	CU_ASSERT_PTR_NULL(s[2]);
	CU_ASSERT_EQUAL(roce_mad_agent_cnt(a, ROCE_MAD_CNT_NO_SEND_SLOT), 1);
	CU_ASSERT_PTR_EQUAL(roce_mad_match(a, tid, addr.remote_gid), s[0]);
	CU_ASSERT_PTR_EQUAL(roce_mad_match(a, tid + 1, addr.remote_gid), s[1]);
	CU_ASSERT_PTR_NULL(roce_mad_match(a, tid, gid2));
	CU_ASSERT_EQUAL(sent, 2);
	/* s[1] answered at once; s[0] waits: retry at 10, 20, gone at 30 */
	roce_mad_send_cancel(a, s[1]);
	CU_ASSERT_PTR_NULL(roce_mad_match(a, tid + 1, addr.remote_gid));
	CU_ASSERT_PTR_EQUAL(roce_mad_match(a, tid, addr.remote_gid), s[0]);
	CU_ASSERT_EQUAL(roce_mad_agent_next(a), now + 10);
	for (i = 1; i <= 30; i++)
		roce_mad_agent_poll(a, now + (uint64_t)i);
	CU_ASSERT_EQUAL(sent, 4);
	CU_ASSERT_EQUAL(agent_timeouts, 1);
	CU_ASSERT_EQUAL(roce_mad_agent_busy(a), 0);
	CU_ASSERT_EQUAL(roce_mad_agent_next(a), UINT64_MAX);
	/* an MRA-style extension moves the deadline without resending */
	s[0] = roce_mad_send_tracked(a, &mad, &addr, 10, 0, NULL, now);
	CU_ASSERT_EQUAL(roce_mad_send_extend(a, s[0], 500, now + 5), 0);
	CU_ASSERT_EQUAL(roce_mad_agent_poll(a, now + 100), 0);
	CU_ASSERT_EQUAL(roce_mad_agent_next(a), now + 505);
	roce_mad_send_cancel(a, s[0]);
	/* many sends on one TID chain: removal keeps every other findable */
	for (i = 0; i < 1000; i++) {
		roce_mad_init_hdr(&mad, ROCE_MAD_METHOD_SEND, (uint64_t)i * 2,
				  ROCE_CM_ATTR_REQ);
		s[0] = roce_mad_send_tracked(a, &mad, &addr, 10, 0, NULL, now);
		roce_mad_init_hdr(&mad, ROCE_MAD_METHOD_SEND,
				  (uint64_t)i * 2 + 1, ROCE_CM_ATTR_REQ);
		s[1] = roce_mad_send_tracked(a, &mad, &addr, 10, 0, NULL, now);
		CU_ASSERT_PTR_EQUAL(roce_mad_match(a, (uint64_t)i * 2 + 1,
						   addr.remote_gid), s[1]);
		roce_mad_send_cancel(a, s[(i & 1)]);
		CU_ASSERT_PTR_EQUAL(roce_mad_match(a, (uint64_t)i * 2 + !(i & 1),
						   addr.remote_gid),
				    s[!(i & 1)]);
		roce_mad_send_cancel(a, s[!(i & 1)]);
	}
	CU_ASSERT_EQUAL(roce_mad_agent_busy(a), 0);
	roce_mad_agent_destroy(a);
}

/*
 * Selective repeat is on only when the REQ offers it and the accepting
 * side agrees (softernic Vendor ID in REQ and REP); otherwise both QPs
 * stay go-back-N. @p offer and @p accept are roce_cm_conn_param values
 * (enum roce_cm_sr), @p cfg0 / @p cfg1 the CMs' defaults.
 */
static void
sr_case_echo(uint8_t offer, uint8_t accept, uint8_t cfg0, uint8_t cfg1,
	     bool on, bool echo)
{
	struct cm_env *e;
	struct roce_cm_addr src, dst;
	struct roce_cm_conn_param p;
	struct roce_cm_conn_info ci;
	struct roce_cm_event *ev;
	struct roce_cm_id *id[2];
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	int i;

	env_sr_default[0] = cfg0;
	env_sr_default[1] = cfg1;
	e = env_create(0, 0);
	env_sr_default[0] = env_sr_default[1] = 0;
	e->s[1].echo_vendor = echo;
	env_listen(e, 1, 0);
	addr_of(e, 0, 0, &src);
	addr_of(e, 1, CM_PORT, &dst);
	param_default(&p);
	p.selective_repeat = ROCE_CM_SR_OFF + 1;	/* not a value */
	CU_ASSERT_EQUAL(roce_cm_connect(e->s[0].cm, &src, &dst,
					e->l->ep[1].mac, e->s[0].qp, &p,
					&e->s[0], e->l->tsc, &id[0]), -EINVAL);
	p.selective_repeat = offer;
	CU_ASSERT_EQUAL_FATAL(roce_cm_connect(e->s[0].cm, &src, &dst,
					      e->l->ep[1].mac, e->s[0].qp, &p,
					      &e->s[0], e->l->tsc, &id[0]), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	id[1] = ev->id;
	param_default(&p);
	p.selective_repeat = ROCE_CM_SR_OFF + 1;
	CU_ASSERT_EQUAL(roce_cm_accept(id[1], e->s[1].qp, &p, &e->s[1],
				       e->l->tsc), -EINVAL);
	p.selective_repeat = accept;
	CU_ASSERT_EQUAL_FATAL(roce_cm_accept(id[1], e->s[1].qp, &p, &e->s[1],
					     e->l->tsc), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wait_ev(e, &e->s[0],
					     ROCE_CM_EVENT_ESTABLISHED, 0));
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(roce_query_qp(e->s[i].qp, &a, &ia), 0);
		CU_ASSERT_EQUAL(a.selective_repeat, on ? 1 : 0);
		CU_ASSERT_EQUAL(roce_cm_conn_list(e->s[i].cm, &ci, 1), 1);
		CU_ASSERT_EQUAL(ci.selective_repeat, on);
	}
	/* the REQ offered SR exactly when it was to be offered */
	CU_ASSERT_EQUAL(e->s[1].req_vendor[2],
			offer == ROCE_CM_SR_ON ||
			(offer == ROCE_CM_SR_DEFAULT && cfg0 != ROCE_CM_SR_OFF) ?
			(ROCE_CM_VENDOR_CAP_SR) : 0);
	send_one(e);
	teardown(e, id, 0);
	env_destroy(e);
}

static void
sr_case(uint8_t offer, uint8_t accept, uint8_t cfg0, uint8_t cfg1, bool on)
{
	sr_case_echo(offer, accept, cfg0, cfg1, on, false);
}

static void
test_sr_negotiation(void)
{
	const uint8_t D = ROCE_CM_SR_DEFAULT, Y = ROCE_CM_SR_ON,
		N = ROCE_CM_SR_OFF;
	struct roce_cm_config cfg;
	struct roce_cm *cm;
	struct cm_env *e;

	/* default: on between two softernic CMs */
	sr_case(D, D, D, D, true);
	sr_case(Y, Y, D, D, true);
	sr_case(Y, N, D, D, false);
	sr_case(N, Y, D, D, false);
	sr_case(N, N, D, D, false);
	/* a CM whose default is off (net_ernic sr=off) */
	sr_case(D, D, N, D, false);
	sr_case(D, D, D, N, false);
	sr_case(Y, D, D, N, false);
	sr_case(D, Y, N, D, false);	/* not offered: nothing to accept */
	sr_case(Y, Y, N, N, true);	/* explicit beats the default */
	sr_case(D, D, Y, Y, true);
	/*
	 * a passive side that echoes the REQ's Vendor ID in its REP, as
	 * Linux's rdma_cm does: no softernic REP bit, so no SR, whatever
	 * the passive QP did (here our own CM with SR refused, so that both
	 * QPs can be checked for go-back-N)
	 */
	sr_case_echo(D, N, D, D, false, true);
	sr_case_echo(Y, N, D, D, false, true);
	/* a default that is not a value is refused */
	e = env_create(0, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.dev = e->l->ep[0].dev;
	cfg.pool = test_mbuf_pool();
	cfg.tx = env_tx;
	cfg.tx_ctx = &e->s[0];
	cfg.hz = rte_get_tsc_hz();
	cfg.socket = SOCKET_ID_ANY;
	cfg.selective_repeat = ROCE_CM_SR_OFF + 1;
	CU_ASSERT_PTR_NULL(roce_cm_create(&cfg));
	cfg.selective_repeat = ROCE_CM_SR_OFF;
	cm = roce_cm_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL(cm);
	if (cm != NULL)
		roce_cm_destroy(cm);
	env_destroy(e);
}

/*
 * A connection in timewait holds no claim on the peer's QPN (as Linux):
 * the peer's QP, reset, connects again at once.
 */
static void
test_reconnect_in_timewait(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_id *id[2], *old[2];
	unsigned int f[2];
	int i;

	env_listen(e, 1, 0);
	establish(e, &id[0], &id[1], NULL);
	f[0] = e->s[0].nev;
	f[1] = e->s[1].nev;
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[0], e->l->tsc), 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[i],
					       ROCE_CM_EVENT_DISCONNECTED,
					       f[i]));
	CU_ASSERT_EQUAL(roce_cm_id_state(id[1]), ROCE_CM_TIMEWAIT);
	for (i = 0; i < 2; i++) {
		old[i] = id[i];
		qp_reset(e->s[i].qp);
	}
	/* the passive side's id is still in timewait: no stale REJ */
	establish(e, &id[0], &id[1], NULL);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_req_stale"), 0);
	send_one(e);
	/* the old ids leave timewait; then the new connection goes */
	for (i = 0; i < 2; i++) {
		long n;

		for (n = 0; n < 100000 &&
		     roce_cm_id_state(old[i]) != ROCE_CM_IDLE; n++)
			env_step(e);
		CU_ASSERT_EQUAL(roce_cm_id_state(old[i]), ROCE_CM_IDLE);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(old[i], e->l->tsc), 0);
	}
	CU_ASSERT_EQUAL(roce_cm_id_state(id[0]), ROCE_CM_ESTABLISHED);
	teardown(e, id, 1);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

static CU_TestInfo cm_tests[] = {
	{ "selective repeat negotiated by Vendor ID", test_sr_negotiation },
	{ "Linux REQ: every field", test_vec_req },
	{ "Linux REP, RTU, REJ, DREQ: every field", test_vec_rep_rtu_rej_dreq },
	{ "rebuilt MADs and frames equal the capture", test_vec_rebuild },
	{ "rdma_cm IP header and service IDs", test_rdma_cm_hdr },
	{ "MAD agent: TIDs, retries, extension", test_mad_agent },
	{ "connect, accept, data, disconnect", test_connect_disconnect },
	{ "REQ timeout after the retries", test_req_timeout },
	{ "REQ lost three times, then connected", test_req_retry_then_connect },
	{ "REJ: no listener, application reject", test_reject },
	{ "a REQ waits for a late listener", test_req_waits_for_listener },
	{ "duplicate REQ: MRA, one request", test_dup_req_mra },
	{ "peer's MRA for our REQ extends its timeout", test_mra_for_req },
	{ "peer's MRA for our REP extends its timeout", test_mra_for_rep },
	{ "lost RTU: REP repeated, RTU resent", test_lost_rtu },
	{ "simultaneous DREQ", test_simultaneous_dreq },
	{ "DREQ timeout, DREQ for a forgotten connection", test_dreq_timeout },
	{ "stale connection REQ", test_stale_req },
	{ "a QP in the peer's timewait connects again", test_reconnect_in_timewait },
	{ "REQ flood against a backlog", test_req_flood },
	{ "garbage MADs dropped and counted", test_garbage },
	{ "10000 connect/disconnect cycles without leaks", test_cycles },
	CU_TEST_INFO_NULL,
};

static int
cm_suite_init(void)
{
	nb_vec = test_load_vectors("rxe-cm-mads.hex", &vec);
	return nb_vec > 0 ? 0 : -1;
}

static CU_SuiteInfo suites[] = {
	{ "cm", cm_suite_init, NULL, NULL, NULL, cm_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
