/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the MAD layer (roce_mad.c) and the IB CM state machine
 * (roce_cm.c) of a CM endpoint, fed arbitrary QP1 frames and MADs.
 *
 * The CM runs on side 1 of a fake link whose device also owns 198.18.0.2
 * (the address of the captured Linux MADs, ../shared/vectors/rxe-cm-mads.hex):
 * it listens on port 18515 (any address) and has a REQ of its own out to
 * 198.18.0.3, so REQ, REP, RTU, MRA, REJ, DREQ and DREP all find a
 * connection to act on. Each record of the input is one frame:
 *   kind bit 0  set: the record is a MAD (zero-padded to 256 bytes), sent
 *               in a correct frame from 198.18.0.3 (QP1 to QP1)
 *               clear: a whole frame, as is
 *   kind bit 1  raw frames: IPv4 checksum and ICRC recomputed
 *   kind bit 2  the application accepts connection requests (else rejects)
 *   kind bit 3  the application disconnects established connections
 *   kind 4-7    the clock moves (kind >> 4) x 250 ms before the frame, so
 *               retries, MRA waits and timewaits expire
 * The application destroys ids after TIMEWAIT_EXIT, REJECTED, UNREACHABLE
 * and CONNECT_ERROR and resets their QP. After every input the CM is
 * destroyed and every mbuf must be back in the pool.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mempool.h>

#include "fake_link.h"
#include "fuzz_common.h"
#include "roce_cm.h"
#include "roce_icrc.h"
#include "roce_mad.h"
#include "roce_parse.h"
#include "roce_verbs.h"
#include "test_common.h"

enum {
	K_MAD = 1 << 0,
	K_CRC = 1 << 1,
	K_ACCEPT = 1 << 2,
	K_DISCONNECT = 1 << 3,
	NB_QP = 4,
	CM_PORT = 18515,
	MAX_FRAME = 2048,
	MAX_RECS = 64,
};

static const uint8_t ip_local[4] = { 198, 18, 0, 2 };
static const uint8_t ip_peer[4] = { 198, 18, 0, 3 };
static const uint8_t mac_peer[6] = { 0x02, 0x00, 0x00, 0x00, 0x07, 0x03 };

struct env {
	struct fake_link *l;
	struct roce_cm *cm;
	struct roce_cq *cq;
	struct roce_qp *qp[NB_QP];
	struct roce_cm_listener *lis;
	uint64_t now;
	uint8_t kind;
};

static int
env_tx(void *ctx, struct rte_mbuf *m)
{
	(void)ctx;
	rte_pktmbuf_free(m);
	return 0;
}

static void
gid_v4(union roce_gid *g, const uint8_t ip[4])
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(g->raw + 12, ip, 4);
}

static void
qp_reset(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	roce_modify_qp(qp, &a, ROCE_QP_STATE);
}

static struct roce_qp *
free_qp(struct env *e)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	int i;

	for (i = 0; i < NB_QP; i++)
		if (roce_query_qp(e->qp[i], &a, &ia) == 0 &&
		    a.qp_state == ROCE_QPS_RESET)
			return e->qp[i];
	return NULL;
}

static void
param(struct roce_cm_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 4;
	p->initiator_depth = 4;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->min_rnr_timer = 1;
	p->local_ack_timeout = 14;
}

static int
env_create(struct env *e)
{
	struct roce_cm_config cfg;
	struct roce_qp_init_attr ia;
	struct roce_cm_conn_param p;
	struct roce_cm_addr src, dst;
	struct roce_cm_id *id;
	union roce_gid g;
	int i;

	memset(e, 0, sizeof(*e));
	e->l = fake_link_create(2, false);
	if (e->l == NULL)
		return -1;
	gid_v4(&g, ip_local);
	if (roce_device_set_gid(e->l->ep[1].dev, 1, &g) != 0)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.dev = e->l->ep[1].dev;
	cfg.pool = test_mbuf_pool();
	cfg.tx = env_tx;
	cfg.hz = rte_get_tsc_hz();
	memcpy(cfg.mac.addr_bytes, e->l->ep[1].mac, 6);
	cfg.max_ids = 16;
	cfg.max_listeners = 4;
	cfg.seed = 7;
	cfg.socket = SOCKET_ID_ANY;
	e->cm = roce_cm_create(&cfg);
	e->cq = roce_create_cq(e->l->ep[1].w, 256);
	if (e->cm == NULL || e->cq == NULL)
		return -1;
	for (i = 0; i < NB_QP; i++) {
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = e->cq;
		ia.recv_cq = e->cq;
		ia.cap.max_send_wr = 4;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		e->qp[i] = roce_create_qp(e->l->ep[1].pd, &ia);
		if (e->qp[i] == NULL)
			return -1;
	}
	memset(&src, 0, sizeof(src));
	src.ip_ver = 4;
	src.port = CM_PORT;
	e->lis = roce_cm_listen(e->cm, &src, ROCE_CM_PS_TCP, 4, e);
	if (e->lis == NULL)
		return -1;
	e->now = e->l->tsc;
	src.gid = g;
	src.port = 0;
	memset(&dst, 0, sizeof(dst));
	dst.ip_ver = 4;
	gid_v4(&dst.gid, ip_peer);
	dst.port = CM_PORT;
	param(&p);
	return roce_cm_connect(e->cm, &src, &dst, mac_peer, e->qp[0], &p, e,
			       e->now, &id);
}

static void
env_destroy(struct env *e)
{
	int i;

	if (e->cm != NULL)
		roce_cm_destroy(e->cm);
	for (i = 0; i < NB_QP; i++)
		if (e->qp[i] != NULL)
			roce_destroy_qp(e->qp[i]);
	if (e->cq != NULL)
		roce_destroy_cq(e->cq);
	if (e->l != NULL)
		fake_link_destroy(e->l);
}

/* The application's answer to each event. */
static void
events(struct env *e)
{
	struct roce_cm_conn_param p;
	struct roce_cm_event ev;
	struct roce_qp *qp;

	while (roce_cm_get_event(e->cm, &ev) == 1) {
		switch (ev.type) {
		case ROCE_CM_EVENT_CONNECT_REQUEST:
			qp = free_qp(e);
			param(&p);
			if ((e->kind & K_ACCEPT) && qp != NULL)
				roce_cm_accept(ev.id, qp, &p, e, e->now);
			else
				roce_cm_reject(ev.id, ROCE_CM_REJ_CONSUMER_DEFINED,
					       NULL, 0, e->now);
			break;
		case ROCE_CM_EVENT_ESTABLISHED:
			if (e->kind & K_DISCONNECT)
				roce_cm_disconnect(ev.id, e->now);
			break;
		case ROCE_CM_EVENT_DISCONNECTED:
			break;
		default:
			qp = roce_cm_id_qp(ev.id);
			roce_cm_destroy_id(ev.id, e->now);
			if (qp != NULL)
				qp_reset(qp);
			break;
		}
	}
}

static struct rte_mbuf *
mad_frame(const struct env *e, const uint8_t *data, size_t len)
{
	struct roce_mad_addr addr;
	struct roce_mad mad;
	struct rte_mbuf *m;

	memset(&mad, 0, sizeof(mad));
	memcpy(mad.b, data, RTE_MIN(len, sizeof(mad.b)));
	memset(&addr, 0, sizeof(addr));
	memcpy(addr.local_mac.addr_bytes, mac_peer, 6);
	memcpy(addr.remote_mac.addr_bytes, e->l->ep[1].mac, 6);
	memcpy(addr.local_gid, e->l->ep[0].gid.raw, 16);
	memcpy(addr.local_gid + 12, ip_peer, 4);
	memcpy(addr.remote_gid, e->l->ep[1].gid.raw, 16);
	memcpy(addr.remote_gid + 12, ip_local, 4);
	addr.ip_ver = 4;
	addr.ttl = 64;
	addr.pkey = 0xffff;
	addr.remote_qpn = 1;
	if (roce_mad_frame_build(test_mbuf_pool(), &mad, &addr, 0, 0, &m) != 0)
		return NULL;
	return m;
}

static struct rte_mbuf *
raw_frame(uint8_t kind, const uint8_t *data, size_t len)
{
	struct rte_mbuf *m = test_mbuf_from(data, len, 0);
	struct rte_ipv4_hdr *ip;
	struct roce_pkt pkt;

	if (m == NULL || !(kind & K_CRC) || roce_parse(m, &pkt) != 0 ||
	    pkt.ip_ver != 4)
		return m;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, pkt.l3_off);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	roce_icrc_fill_mbuf(m, pkt.l3_off);
	return m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fuzz_eal_init((*argv)[0], NULL, 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_reader r;
	struct fuzz_rec rec;
	struct rte_mbuf *m;
	struct env e;
	unsigned int avail, n = 0;

	avail = rte_mempool_avail_count(test_mbuf_pool());
	if (env_create(&e) != 0)
		fuzz_fail("cannot set up the CM");
	fuzz_reader_init(&r, data, size);
	while (n++ < MAX_RECS && fuzz_next(&r, &rec, MAX_FRAME)) {
		e.kind = rec.kind;
		e.now += (uint64_t)(rec.kind >> 4) * (rte_get_tsc_hz() / 4);
		roce_cm_poll(e.cm, e.now);
		events(&e);
		if (rec.len == 0)
			continue;
		m = (rec.kind & K_MAD) ? mad_frame(&e, rec.data, rec.len) :
			raw_frame(rec.kind, rec.data, rec.len);
		if (m == NULL)
			continue;
		roce_cm_rx(e.cm, m, e.now);
		events(&e);
	}
	env_destroy(&e);
	if (rte_mempool_avail_count(test_mbuf_pool()) != avail)
		fuzz_fail("mbufs leaked");
	return 0;
}
