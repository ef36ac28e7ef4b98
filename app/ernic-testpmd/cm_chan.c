/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's rdma_cm mode (see cm_chan.h): rdma_client_connect(),
 * rdma_server_connect(), rdma_write_data()/rdma_read_data(),
 * create_rdma_cm_connection() and rdma_cm_disconnect_nodes() of perftest
 * v4.5-0.17 src/perftest_communication.c, over the net_ernic port's CM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "bench.h"
#include "cm_chan.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

enum {
	CMC_MSG = 64,		/**< largest message: struct pingpong_dest is 56 */
	CMC_NRECV = 4,		/**< receives kept posted on the comm QP */
	CMC_WRID_SEND = 1000,
	CMC_MAX_REQ = 64,	/**< connection requests waiting for accept */
	CMC_RETRY_MS = 100,	/**< perftest: 100 ms between connect attempts */
	CMC_CLOSE_S = 10,	/**< bound of each teardown wait */
	/* MIN_RNR_TIMER of perftest: 12 = 0.64 ms (IBTA table 45) */
	CMC_MIN_RNR_TIMER = 12,
};

/** One connection: the comm QP's or a test QP's. */
struct cm_slot {
	const char *what;		/**< "comm", "test" */
	struct roce_cm_id *id;
	struct roce_qp *qp;
	bool established;
	bool failed;			/**< REJECTED, UNREACHABLE, CONNECT_ERROR */
	bool disconnected;
	bool tw_exit;
	enum roce_cm_event_type fail_type;
	int status;
	uint16_t rej_reason;
};

struct cm_chan {
	struct bench *b;
	struct roce_cq *scq, *rcq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;			/**< [0]: send, [1..]: receives */
	struct roce_cm_listener *l;
	struct roce_cm_addr dst;	/**< client: the server */
	struct cm_slot comm;
	struct cm_slot *test;
	uint32_t ntest;
	struct roce_cm_id *req[CMC_MAX_REQ];	/**< CONNECT_REQUESTs in order */
	uint32_t nreq;
	bool closed;			/**< cm_chan_close() ran */
};

static uint64_t
cmc_ms(const struct cm_chan *cc, uint64_t ms)
{
	return ms * cc->b->tsc_hz / 1000;
}

static void
cmc_slot_reset(struct cm_slot *s)
{
	s->id = NULL;
	s->established = false;
	s->failed = false;
	s->disconnected = false;
	s->tw_exit = false;
	s->status = 0;
	s->rej_reason = 0;
}

/* Take the port's CM events and note them on their connections. */
static void
cmc_events(struct cm_chan *cc)
{
	struct bench *b = cc->b;
	struct roce_cm_event ev;
	struct cm_slot *s;

	while (rte_pmd_ernic_cm_get_event(b->port_id, &ev) == 1) {
		if (ev.type == ROCE_CM_EVENT_CONNECT_REQUEST) {
			if (cc->nreq < CMC_MAX_REQ && cc->l != NULL) {
				cc->req[cc->nreq++] = ev.id;
				continue;
			}
			(void)rte_pmd_ernic_cm_reject(b->port_id, ev.id,
						      ROCE_CM_REJ_NO_RESOURCES,
						      NULL, 0);
			continue;
		}
		s = ev.context;
		if (s == NULL || s->id != ev.id)
			continue;	/* an id we already gave up */
		switch (ev.type) {
		case ROCE_CM_EVENT_ESTABLISHED:
			s->established = true;
			break;
		case ROCE_CM_EVENT_REJECTED:
		case ROCE_CM_EVENT_UNREACHABLE:
		case ROCE_CM_EVENT_CONNECT_ERROR:
			s->failed = true;
			s->fail_type = ev.type;
			s->status = ev.status;
			s->rej_reason = ev.rej_reason;
			break;
		case ROCE_CM_EVENT_DISCONNECTED:
			s->disconnected = true;
			s->status = ev.status;
			break;
		case ROCE_CM_EVENT_TIMEWAIT_EXIT:
			s->tw_exit = true;
			break;
		default:
			break;
		}
	}
}

static void
cmc_progress(struct cm_chan *cc)
{
	bench_progress(cc->b);
	cmc_events(cc);
}

/* Poll the port for @p ms milliseconds. */
static int
cmc_pause(struct cm_chan *cc, uint64_t ms)
{
	uint64_t end = bench_now() + cmc_ms(cc, ms);

	while (bench_now() < end) {
		if (*cc->b->quit)
			return -EINTR;
		cmc_progress(cc);
	}
	return 0;
}

static int
cmc_qp_reset(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE);
}

static void
cmc_param(const struct cm_chan *cc, bool test, struct roce_cm_conn_param *p)
{
	const struct bench *b = cc->b;
	enum app_verb v = b->o->mode->verb;

	memset(p, 0, sizeof(*p));
	/* rdma_cm_route_handler(): READ/atomic resources only for those verbs */
	if (test && (v == APP_VERB_READ || v == APP_VERB_ATOMIC)) {
		p->responder_resources = (uint8_t)b->out_reads;
		p->initiator_depth = (uint8_t)b->out_reads;
	}
	p->retry_count = b->o->retry_cnt;
	p->rnr_retry_count = 7;
	p->min_rnr_timer = CMC_MIN_RNR_TIMER;
	/*
	 * Like perftest over librdmacm: without -u the QP takes rdma_cm's
	 * timeout (2 x packet life time + ACK delay, roce_cm's default),
	 * not the -u default meant for side-channel QPs.
	 */
	p->local_ack_timeout = b->o->qp_timeout_set ? b->o->qp_timeout : 0;
	/* the test QPs use the MTU both sides agreed on (check_mtu()) */
	p->path_mtu = test ? (enum roce_mtu)b->mtu_code : (enum roce_mtu)0;
	/*
	 * test QPs: offered/accepted unless --no_sr (--sr: even when the
	 * port's sr=off); on only with a softernic peer (roce_cm.h)
	 */
	if (!test || b->o->no_sr)
		p->selective_repeat = ROCE_CM_SR_OFF;
	else
		p->selective_repeat = b->o->sr ? ROCE_CM_SR_ON :
			ROCE_CM_SR_DEFAULT;
}

static const char *
cmc_fail_str(const struct cm_slot *s, char *buf, size_t len)
{
	if (s->fail_type == ROCE_CM_EVENT_REJECTED)
		snprintf(buf, len, "rejected by the peer (reason %u%s)",
			 s->rej_reason,
			 s->rej_reason == ROCE_CM_REJ_INVALID_SERVICE_ID ?
			 ": nobody listens on that port" : "");
	else if (s->fail_type == ROCE_CM_EVENT_UNREACHABLE)
		snprintf(buf, len, "no answer to the connection request");
	else
		snprintf(buf, len, "our QP could not be moved: %s",
			 strerror(-s->status));
	return buf;
}

/*
 * Active side: connect @p s (its QP in RESET or INIT) to cc->dst, again
 * every CMC_RETRY_MS while the server rejects or does not answer, until
 * @p end (TSC).
 */
static int
cmc_connect(struct cm_chan *cc, struct cm_slot *s, bool test, uint64_t end)
{
	struct bench *b = cc->b;
	struct roce_cm_conn_param p;
	char why[128];
	unsigned int attempt = 0;
	int ret;

	cmc_param(cc, test, &p);
	for (;;) {
		cmc_slot_reset(s);
		ret = rte_pmd_ernic_cm_connect(b->port_id, &cc->dst, s->qp, &p,
					       s, &s->id);
		if (ret == -EAGAIN) {
			/* ARP for the server's address is out */
			if (bench_now() >= end) {
				BENCH_ERR(b, "rdma_cm: cannot resolve %s to a MAC on %s (no ARP answer)\n",
					  b->o->server, b->port_name);
				return -EHOSTUNREACH;
			}
			if (*b->quit)
				return -EINTR;
			cmc_progress(cc);
			continue;
		}
		if (ret != 0) {
			s->id = NULL;
			BENCH_ERR(b, "rdma_cm: connect (%s QP 0x%06x) to %s port %u failed: %s\n",
				  s->what, roce_qp_num(s->qp), b->o->server,
				  b->o->port, strerror(-ret));
			return ret;
		}
		attempt++;
		while (!s->established && !s->failed) {
			if (*b->quit)
				return -EINTR;
			cmc_progress(cc);
		}
		if (s->established)
			return 0;
		(void)rte_pmd_ernic_cm_destroy_id(b->port_id, s->id);
		s->id = NULL;
		ret = cmc_qp_reset(s->qp);
		if (ret != 0) {
			BENCH_ERR(b, "rdma_cm: QP 0x%06x to RESET: %s\n",
				  roce_qp_num(s->qp), strerror(-ret));
			return ret;
		}
		if (s->fail_type == ROCE_CM_EVENT_CONNECT_ERROR ||
		    bench_now() >= end) {
			BENCH_ERR(b, "rdma_cm: %s connection to %s port %u failed after %u attempts: %s\n",
				  s->what, b->o->server, b->o->port, attempt,
				  cmc_fail_str(s, why, sizeof(why)));
			return s->fail_type == ROCE_CM_EVENT_REJECTED ?
				-ECONNREFUSED : -ETIMEDOUT;
		}
		ret = cmc_pause(cc, CMC_RETRY_MS);
		if (ret != 0)
			return ret;
	}
}

/* Passive side: accept the oldest connection request with @p s->qp. */
static int
cmc_accept(struct cm_chan *cc, struct cm_slot *s, bool test)
{
	struct bench *b = cc->b;
	struct roce_cm_conn_param p;
	struct roce_cm_id *id;
	int ret;

	while (cc->nreq == 0) {
		if (*b->quit)
			return -EINTR;
		cmc_progress(cc);
	}
	id = cc->req[0];
	memmove(&cc->req[0], &cc->req[1], --cc->nreq * sizeof(cc->req[0]));
	cmc_param(cc, test, &p);
	cmc_slot_reset(s);
	s->id = id;
	ret = rte_pmd_ernic_cm_accept(b->port_id, id, s->qp, &p, s);
	if (ret != 0) {
		/* the CM sent a REJ and the id is idle */
		BENCH_ERR(b, "rdma_cm: accept (%s QP 0x%06x) failed: %s\n",
			  s->what, roce_qp_num(s->qp), strerror(-ret));
		(void)rte_pmd_ernic_cm_destroy_id(b->port_id, id);
		s->id = NULL;
		return ret;
	}
	return 0;
}

static int
cmc_post_recv(struct cm_chan *cc, unsigned int k)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;
	unsigned int posted;

	sge.addr = (uintptr_t)(cc->buf + (1 + k) * CMC_MSG);
	sge.length = CMC_MSG;
	sge.lkey = roce_mr_lkey(cc->mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return roce_post_recv(cc->qp, &wr, 1, &posted);
}

static int
cmc_post_recvs(struct cm_chan *cc)
{
	unsigned int k;
	int ret;

	for (k = 0; k < CMC_NRECV; k++) {
		ret = cmc_post_recv(cc, k);
		if (ret != 0) {
			BENCH_ERR(cc->b, "rdma_cm: cannot post a receive on the comm QP: %s\n",
				  strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int
cmc_resolve_server(struct cm_chan *cc)
{
	const struct app_opts *o = cc->b->o;
	struct addrinfo hints, *res;
	union roce_gid gid;
	int ret, idx;

	if (o->loopback) {
		/* --loopback: the server is the other port of this process */
		ret = port_pick_gid(cc->b->peer_port_id, -1, &idx, &gid);
		if (ret != 0) {
			BENCH_ERR(cc->b, "rdma_cm: the loopback server port has no IPv4 address\n");
			return ret;
		}
		memset(&cc->dst, 0, sizeof(cc->dst));
		cc->dst.ip_ver = 4;
		cc->dst.gid = gid;
		cc->dst.port = o->port;
		return 0;
	}

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;	/* perftest: AF_INET only with -R */
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(o->server, NULL, &hints, &res);
	if (ret != 0) {
		BENCH_ERR(cc->b, "bad value \"%s\" for the server: -R needs the IPv4 address of the peer's RoCE interface (%s)\n",
			  o->server, gai_strerror(ret));
		return -EINVAL;
	}
	roce_cm_addr_ipv4(&cc->dst,
			  ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr,
			  o->port);
	freeaddrinfo(res);
	return 0;
}

static int
cmc_create(struct bench *b, struct cm_chan *cc)
{
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	uint32_t i;
	int ret;

	cc->b = b;
	cc->comm.what = "comm";
	cc->buf = rte_zmalloc("cm_chan", (1 + CMC_NRECV) * CMC_MSG, 64);
	cc->scq = roce_create_cq(b->w, 16);
	cc->rcq = roce_create_cq(b->w, 16);
	if (cc->buf == NULL || cc->scq == NULL || cc->rcq == NULL) {
		BENCH_ERR(b, "rdma_cm: cannot allocate the comm QP's buffers and CQs\n");
		return -ENOMEM;
	}
	cc->mr = roce_reg_mr(b->pd, cc->buf, (1 + CMC_NRECV) * CMC_MSG,
			     ROCE_ACCESS_LOCAL_WRITE);
	if (cc->mr == NULL) {
		BENCH_ERR(b, "rdma_cm: roce_reg_mr: %s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = cc->scq;
	ia.recv_cq = cc->rcq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = CMC_NRECV;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	cc->qp = roce_create_qp(b->pd, &ia);
	if (cc->qp == NULL) {
		BENCH_ERR(b, "rdma_cm: cannot create the comm QP: %s\n",
			  rte_strerror(rte_errno));
		return -rte_errno;
	}
	cc->comm.qp = cc->qp;
	/* rdma_create_qp() leaves the QP in INIT: receives can be posted */
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE;
	ret = roce_modify_qp(cc->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
	if (ret != 0) {
		BENCH_ERR(b, "rdma_cm: comm QP to INIT: %s\n", strerror(-ret));
		return ret;
	}
	cc->ntest = b->nqps;
	cc->test = calloc(b->nqps, sizeof(*cc->test));
	if (cc->test == NULL)
		return -ENOMEM;
	for (i = 0; i < b->nqps; i++) {
		cc->test[i].what = "test";
		cc->test[i].qp = b->qp[i];
	}
	return 0;
}

int
cm_chan_open(struct bench *b, unsigned int wait_s)
{
	struct cm_chan *cc;
	struct roce_cm_addr any;
	int ret;

	cc = calloc(1, sizeof(*cc));
	if (cc == NULL)
		return -ENOMEM;
	b->cm = cc;
	b->ch.cm = cc;
	b->ch.client = !b->server;	/* the client writes first */
	ret = cmc_create(b, cc);
	if (ret != 0)
		return ret;
	if (!b->server) {
		ret = cmc_resolve_server(cc);
		if (ret != 0)
			return ret;
		ret = cmc_connect(cc, &cc->comm, false,
				  bench_now() + wait_s * b->tsc_hz);
		if (ret != 0)
			return ret;
		/* the server reads first: our receives are in time */
		return cmc_post_recvs(cc);
	}
	memset(&any, 0, sizeof(any));
	any.ip_ver = 4;
	any.port = b->o->port;
	cc->l = rte_pmd_ernic_cm_listen(b->port_id, &any, CMC_MAX_REQ, cc);
	if (cc->l == NULL) {
		BENCH_ERR(b, "rdma_cm: cannot listen on port %u of %s: %s\n",
			  b->o->port, b->port_name, rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* rdma_server_connect(): a receive is posted before the accept */
	ret = cmc_post_recvs(cc);
	if (ret == 0)
		ret = cmc_accept(cc, &cc->comm, false);
	return ret;
}

int
cm_chan_connect_qps(struct bench *b)
{
	struct cm_chan *cc = b->cm;
	uint64_t end;
	uint32_t i;
	int ret;

	if (cc == NULL)
		return -EINVAL;
	/* "sync between client and server before creating RDMA CM connection" */
	ret = bench_hs(b, 0);
	if (ret != 0)
		return ret;
	/* rdma_cm_client_connection(): perftest retries 10 times, 100 ms apart */
	end = bench_now() + 10 * b->tsc_hz;
	for (i = 0; i < cc->ntest; i++) {
		ret = b->server ? cmc_accept(cc, &cc->test[i], true) :
			cmc_connect(cc, &cc->test[i], true, end);
		if (ret != 0)
			return ret;
	}
	if (cc->l != NULL) {
		/* perftest's server destroys its listener here */
		(void)rte_pmd_ernic_cm_listen_stop(b->port_id, cc->l);
		cc->l = NULL;
		for (i = 0; i < cc->nreq; i++)
			(void)rte_pmd_ernic_cm_reject(b->port_id, cc->req[i],
						      ROCE_CM_REJ_NO_RESOURCES,
						      NULL, 0);
		cc->nreq = 0;
	}
	/* "... after creating RDMA CM connection" */
	return bench_hs(b, 0);
}

/* Wait until @p done holds for every slot in use, at most CMC_CLOSE_S. */
static bool
cmc_wait_all(struct cm_chan *cc, bool (*done)(const struct cm_slot *))
{
	uint64_t end = bench_now() + CMC_CLOSE_S * cc->b->tsc_hz;
	bool all;
	uint32_t i;

	for (;;) {
		cmc_progress(cc);
		all = cc->comm.id == NULL || done(&cc->comm);
		for (i = 0; i < cc->ntest; i++)
			all = all && (cc->test[i].id == NULL ||
				      done(&cc->test[i]));
		if (all)
			return true;
		if (bench_now() >= end || *cc->b->quit)
			return false;
	}
}

static bool
slot_disconnected(const struct cm_slot *s)
{
	return s->disconnected || s->tw_exit;
}

static bool
slot_tw_exit(const struct cm_slot *s)
{
	return s->tw_exit;
}

static void
cmc_disconnect(struct cm_chan *cc, struct cm_slot *s)
{
	if (s->id == NULL || s->disconnected)
		return;
	/* in every state: a DREQ, or a REJ while still being set up */
	(void)rte_pmd_ernic_cm_disconnect(cc->b->port_id, s->id);
}

int
cm_chan_close(struct bench *b)
{
	struct cm_chan *cc = b->cm;
	int ret = 0;
	uint32_t i;

	if (cc == NULL || cc->closed)
		return 0;
	cc->closed = true;
	/* rdma_cm_disconnect_nodes(): the test connections first */
	for (i = 0; i < cc->ntest; i++)
		cmc_disconnect(cc, &cc->test[i]);
	cmc_progress(cc);
	/* then the comm connection (perftest: at exit, by the kernel) */
	cmc_disconnect(cc, &cc->comm);
	if (!cmc_wait_all(cc, slot_disconnected)) {
		BENCH_ERR(b, "rdma_cm: the peer did not answer our disconnect requests within %u s\n",
			  (unsigned int)CMC_CLOSE_S);
		ret = -ETIMEDOUT;
	}
	if (ret == 0 && !cmc_wait_all(cc, slot_tw_exit)) {
		BENCH_ERR(b, "rdma_cm: timewait did not end within %u s\n",
			  (unsigned int)CMC_CLOSE_S);
		ret = -ETIMEDOUT;
	}
	return ret;
}

void
cm_chan_destroy(struct bench *b)
{
	struct cm_chan *cc = b->cm;
	uint32_t i;
	int ret;

	if (cc == NULL)
		return;
	for (i = 0; i < cc->nreq; i++)
		(void)rte_pmd_ernic_cm_reject(b->port_id, cc->req[i],
					      ROCE_CM_REJ_NO_RESOURCES, NULL, 0);
	cc->nreq = 0;
	if (cc->l != NULL)
		(void)rte_pmd_ernic_cm_listen_stop(b->port_id, cc->l);
	/* after destroy_id the CM no longer touches the QP */
	for (i = 0; cc->test != NULL && i < cc->ntest; i++)
		if (cc->test[i].id != NULL)
			(void)rte_pmd_ernic_cm_destroy_id(b->port_id,
							  cc->test[i].id);
	if (cc->comm.id != NULL)
		(void)rte_pmd_ernic_cm_destroy_id(b->port_id, cc->comm.id);
	if (cc->qp != NULL) {
		ret = roce_destroy_qp(cc->qp);
		if (ret != 0)
			BENCH_ERR(b, "rdma_cm: roce_destroy_qp (comm): %s\n",
				  strerror(-ret));
	}
	if (cc->scq != NULL)
		roce_destroy_cq(cc->scq);
	if (cc->rcq != NULL)
		roce_destroy_cq(cc->rcq);
	if (cc->mr != NULL && bench_dereg_mr(b, cc->mr) != 0)
		cc->buf = NULL;	/* still read by queued frames */
	rte_free(cc->buf);
	free(cc->test);
	free(cc);
	b->cm = NULL;
	b->ch.cm = NULL;
}

int
cm_chan_write(struct cm_chan *cc, const void *buf, size_t n)
{
	struct bench *b = cc->b;
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	unsigned int posted;
	int ret;

	if (n > CMC_MSG)
		return -EMSGSIZE;
	memcpy(cc->buf, buf, n);
	sge.addr = (uintptr_t)cc->buf;
	sge.length = (uint32_t)n;
	sge.lkey = roce_mr_lkey(cc->mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = CMC_WRID_SEND;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = roce_post_send(cc->qp, &wr, 1, &posted);
	if (ret != 0) {
		BENCH_ERR(b, "rdma_cm: cannot post a SEND on the comm QP: %s\n",
			  strerror(-ret));
		return ret;
	}
	for (;;) {
		ret = roce_poll_cq(cc->scq, &wc, 1);
		if (ret < 0)
			return ret;
		if (ret == 1)
			break;
		if (*b->quit)
			return -EINTR;
		cmc_progress(cc);
	}
	if (wc.status != ROCE_WC_SUCCESS || wc.wr_id != CMC_WRID_SEND) {
		bench_wc_error(b, "rdma_cm comm SEND", &wc);
		return -EIO;
	}
	return 0;
}

int
cm_chan_read(struct cm_chan *cc, void *buf, size_t n)
{
	struct bench *b = cc->b;
	struct roce_wc wc;
	int ret;

	for (;;) {
		ret = roce_poll_cq(cc->rcq, &wc, 1);
		if (ret < 0)
			return ret;
		if (ret == 1)
			break;
		if (*b->quit)
			return -EINTR;
		if (cc->comm.disconnected) {
			BENCH_ERR(b, "rdma_cm: the peer disconnected the comm connection\n");
			return -ECONNRESET;
		}
		cmc_progress(cc);
	}
	if (wc.status != ROCE_WC_SUCCESS || wc.wr_id >= CMC_NRECV) {
		bench_wc_error(b, "rdma_cm comm receive", &wc);
		return -EIO;
	}
	if (wc.byte_len != n) {
		BENCH_ERR(b, "rdma_cm: the peer sent %u bytes where %zu were expected (out of step with its test?)\n",
			  wc.byte_len, n);
		return -EPROTO;
	}
	memcpy(buf, cc->buf + (1 + wc.wr_id) * CMC_MSG, n);
	ret = cmc_post_recv(cc, (unsigned int)wc.wr_id);
	if (ret != 0)
		BENCH_ERR(b, "rdma_cm: cannot repost a receive on the comm QP: %s\n",
			  strerror(-ret));
	return ret;
}
