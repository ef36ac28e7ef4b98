/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core of net_ernic watching QP fatal errors, on two
 * net_ernic ports over a crossed pair of net_ring ports, port A behind a
 * net_fault port (link down/up):
 *
 *   ringA <- net_fault0 <- net_ernic0 (198.18.0.1)
 *   ringB <- net_ernic1 (198.18.0.2)
 *
 * 1. Peer death: the link goes down under a SEND stream, the requester's
 *    retries run out (RETRY_EXC on the outstanding WR, flushes after it),
 *    the QP goes to ERR; the armed recovery reconnects through the CM with
 *    fresh PSNs once the link is back, and data flows again. The accepting
 *    side reports a QP error (not a disconnect); /ernic/cm shows the
 *    connection and the counters; an application disconnect then reaches
 *    the accepting side as DISCONNECTED and disarms it.
 * 2. Register-window QPs: a remote access error makes QP 40 (A) and QP 41
 *    (B) fatal; the control cores see it (error status queue, async
 *    events), run the PG332 recovery sequence (automatic re-init on A,
 *    rte_pmd_ernic_reg_reinit() on B) and a WRITE and a SEND go through;
 *    86 more recoveries nobody reads the events of overflow the event
 *    FIFO (counted); disarmed, a fatal error is only reported.
 * The test thread polls the ports (rte_pmd_ernic_poll()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"
#include "rte_pmd_ernic_reg_recovery.h"
#include "rte_pmd_ernic_regs.h"
#include "rte_pmd_fault.h"
#include "test_common.h"
#include "test_pmd_pair.h"

#define PORT 18700

static uint16_t ern[2], fault;
static struct roce_pd *pd[2];
static struct roce_cq *cq[2];
static struct roce_qp *qp[2];
static struct roce_cm_event evs[2][256];
static unsigned int nevs[2];

static int
suite_init(void)
{
	int i;

	if (test_ring_link("ctlA", "ctlB") != 0)
		return -1;
	if (rte_vdev_init("net_fault0", "port=net_ring_ctlA") != 0 ||
	    rte_vdev_init("net_ernic0", "port=net_fault0,ip=198.18.0.1,mac=02:00:00:00:00:01") != 0 ||
	    rte_vdev_init("net_ernic1", "port=net_ring_ctlB,ip=198.18.0.2,mac=02:00:00:00:00:02,workers=2") != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name("net_fault0", &fault) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic0", &ern[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic1", &ern[1]) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (test_rc_end_create(ern[i], 256, 32, 32, &pd[i], &cq[i],
				       &qp[i]) != 0)
			return -1;
	return 0;
}

static int
suite_fini(void)
{
	int i;

	for (i = 0; i < 2; i++)
		test_rc_end_destroy(ern[i], pd[i], cq[i], qp[i]);
	return 0;
}

static void
poll_all(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		rte_pmd_ernic_poll(ern[i]);
		while (nevs[i] < RTE_DIM(evs[i]) &&
		       rte_pmd_ernic_cm_get_event(ern[i],
						  &evs[i][nevs[i]]) == 1)
			nevs[i]++;
	}
}

/* Take the first event of @p type on side @p s, polling up to @p secs. */
static bool
take_ev(int s, uint32_t type, struct roce_cm_event *out, double secs)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(secs * rte_get_tsc_hz());
	unsigned int i;

	do {
		poll_all();
		for (i = 0; i < nevs[s]; i++)
			if ((uint32_t)evs[s][i].type == type) {
				if (out != NULL)
					*out = evs[s][i];
				memmove(&evs[s][i], &evs[s][i + 1],
					(nevs[s] - i - 1) * sizeof(evs[s][0]));
				nevs[s]--;
				return true;
			}
	} while (rte_rdtsc() < end);
	return false;
}

/* Value of xstat @p name of @p port (UINT64_MAX when none). */
static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* One SEND from side 0 to side 1; true when both completions are OK. */
static bool
send_one(uint8_t fill)
{
	static uint8_t buf[2][128];
	struct roce_mr *mr[2];
	struct roce_sge sge[2];
	struct roce_recv_wr rwr;
	struct roce_send_wr swr;
	struct roce_wc wc;
	unsigned int posted;
	uint64_t end = rte_rdtsc() + 5 * rte_get_tsc_hz();
	int i, got[2] = { 0, 0 };
	bool ok = true;

	for (i = 0; i < 2; i++) {
		mr[i] = roce_reg_mr(pd[i], buf[i], sizeof(buf[i]),
				    ROCE_ACCESS_LOCAL_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr[i]);
		sge[i].addr = (uintptr_t)buf[i];
		sge[i].length = sizeof(buf[i]);
		sge[i].lkey = roce_mr_lkey(mr[i]);
	}
	memset(buf[0], fill, sizeof(buf[0]));
	memset(buf[1], 0, sizeof(buf[1]));
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 1;
	rwr.sg_list = &sge[1];
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_recv(qp[1], &rwr, 1, &posted), 0);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.opcode = ROCE_WR_SEND;
	swr.send_flags = ROCE_SEND_SIGNALED;
	swr.sg_list = &sge[0];
	swr.num_sge = 1;
	CU_ASSERT_EQUAL(roce_post_send(qp[0], &swr, 1, &posted), 0);
	while (!(got[0] && got[1]) && rte_rdtsc() < end) {
		poll_all();
		for (i = 0; i < 2; i++)
			while (roce_poll_cq(cq[i], &wc, 1) == 1) {
				ok = ok && wc.status == ROCE_WC_SUCCESS;
				got[i] = 1;
			}
	}
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr[i]), 0);
	return ok && got[0] && got[1] && buf[1][127] == fill;
}

/* ------------------------------------------------------------------ */
/* telemetry (this process's socket)                                  */
/* ------------------------------------------------------------------ */

static int
telemetry(const char *cmd, char *out, size_t len)
{
	struct sockaddr_un sun;
	ssize_t n;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    read(fd, out, len - 1) <= 0 ||	/* the greeting */
	    write(fd, cmd, strlen(cmd)) < 0) {
		close(fd);
		return -EIO;
	}
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	out[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ */
/* 1. peer death, reconnect, application disconnect                   */
/* ------------------------------------------------------------------ */

static void
test_retry_exhaustion_reconnect(void)
{
	struct rte_pmd_ernic_cm_recovery rec;
	struct roce_cm_listener *l;
	struct roce_cm_conn_param p;
	struct roce_cm_addr dst, any;
	struct roce_cm_event est[2], ev;
	struct roce_cm_id *cid = NULL;
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	struct roce_send_wr swr;
	struct roce_wc wc[8];
	struct roce_sge sge;
	struct roce_mr *mr;
	static uint8_t sbuf[256];
	char cmd[64], out[16384], want[96];
	unsigned int posted, i, done = 0, retry_exc = 0, flushed = 0;
	uint32_t psn0;
	uint64_t end;
	int ret, n;

	memset(&any, 0, sizeof(any));
	any.ip_ver = 4;
	any.port = PORT;
	l = rte_pmd_ernic_cm_listen(ern[1], &any, 16, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	roce_cm_addr_ipv4(&dst, rte_cpu_to_be_32(0xc6120002), PORT);
	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 2;
	p.rnr_retry_count = 7;
	p.local_ack_timeout = 8;	/* 1 ms: the retries run out fast */
	end = rte_rdtsc() + 5 * rte_get_tsc_hz();
	do {
		ret = rte_pmd_ernic_cm_connect(ern[0], &dst, qp[0], &p,
					       (void *)0xa, &cid);
		if (ret == -EAGAIN)
			poll_all();
	} while (ret == -EAGAIN && rte_rdtsc() < end);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_TRUE_FATAL(take_ev(1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev,
				     5));
	CU_ASSERT_EQUAL_FATAL(rte_pmd_ernic_cm_accept(ern[1], ev.id, qp[1],
						      &p, (void *)0xb), 0);
	CU_ASSERT_TRUE_FATAL(take_ev(0, ROCE_CM_EVENT_ESTABLISHED, &est[0],
				     5));
	CU_ASSERT_PTR_EQUAL(est[0].id, cid);
	CU_ASSERT_TRUE_FATAL(take_ev(1, ROCE_CM_EVENT_ESTABLISHED, &est[1],
				     5));
	memset(&rec, 0, sizeof(rec));
	rec.role = RTE_PMD_ERNIC_CM_RECOVER_RECONNECT;
	rec.param = p;
	rec.max_attempts = 20;
	rec.backoff_ms = 100;
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[0], &est[0], &rec),
			0);
	rec.role = RTE_PMD_ERNIC_CM_RECOVER_ACCEPT;
	rec.await_ms = 60000;
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[1], &est[1], &rec),
			0);
	CU_ASSERT_TRUE(send_one(0x11));
	CU_ASSERT_EQUAL(roce_query_qp(qp[0], &a, &ia), 0);
	psn0 = a.sq_psn;

	/* the peer dies: link down, SENDs go unanswered */
	CU_ASSERT_EQUAL_FATAL(rte_pmd_fault_set_link(fault, false), 0);
	mr = roce_reg_mr(pd[0], sbuf, sizeof(sbuf), ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	sge.addr = (uintptr_t)sbuf;
	sge.length = sizeof(sbuf);
	sge.lkey = roce_mr_lkey(mr);
	for (i = 0; i < 4; i++) {
		memset(&swr, 0, sizeof(swr));
		swr.wr_id = 100 + i;
		swr.opcode = ROCE_WR_SEND;
		swr.send_flags = ROCE_SEND_SIGNALED;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		CU_ASSERT_EQUAL(roce_post_send(qp[0], &swr, 1, &posted), 0);
	}
	end = rte_rdtsc() + 10 * rte_get_tsc_hz();
	while (done < 4 && rte_rdtsc() < end) {
		poll_all();
		n = roce_poll_cq(cq[0], wc, RTE_DIM(wc));
		for (i = 0; i < (unsigned int)RTE_MAX(n, 0); i++, done++) {
			CU_ASSERT_EQUAL(wc[i].wr_id, 100 + done);
			if (wc[i].status == ROCE_WC_RETRY_EXC_ERR)
				retry_exc++;
			else if (wc[i].status == ROCE_WC_WR_FLUSH_ERR)
				flushed++;
		}
	}
	CU_ASSERT_EQUAL(done, 4);
	/* the WR at the head ran out of retries, the rest were flushed */
	CU_ASSERT_EQUAL(retry_exc, 1);
	CU_ASSERT_EQUAL(flushed, 3);
	CU_ASSERT_TRUE_FATAL(take_ev(0, RTE_PMD_ERNIC_CM_EVENT_QP_ERROR, &ev,
				     5));
	CU_ASSERT_EQUAL(ev.status, -EIO);
	CU_ASSERT_PTR_EQUAL(ev.context, (void *)0xa);
	CU_ASSERT_EQUAL(roce_dereg_mr(mr), 0);
	/* the peer comes back */
	rte_delay_us_sleep(200 * 1000);
	CU_ASSERT_EQUAL(rte_pmd_fault_set_link(fault, true), 0);
	/* the CM's REQ retry (2 x 268 ms + 4.3 s) gets through */
	if (!take_ev(0, RTE_PMD_ERNIC_CM_EVENT_RECOVERED, &est[0], 30)) {
		static const char *const names[] = {
			"cm_tx_req", "cm_rx_rej", "cm_rx_rep", "cm_tx_rep",
			"cm_rx_req", "cm_req_stale", "cm_recovery_attempts",
			"cm_recovery_attempts_failed", "mad_retrans",
			"cm_recovery_failed", "cm_timeout_req",
			"cm_rx_drop_unknown_id", "cm_rx_drop_bad_state",
			"cm_rx_drop_bad_source", "cm_rx_dup", "cm_established",
			"cm_qp_modify_err", "cm_recovery_qp_reset_errors",
			"cm_tx_rtu", "cm_rx_rtu", "cm_timeout_rep",
		};

		for (i = 0; i < RTE_DIM(names); i++)
			fprintf(stderr, "%s: %" PRIu64 " / %" PRIu64 "\n",
				names[i], xstat(ern[0], names[i]),
				xstat(ern[1], names[i]));
		for (i = 0; i < nevs[0]; i++)
			fprintf(stderr, "ev0 %#x status %d\n",
				(unsigned int)evs[0][i].type,
				evs[0][i].status);
		for (i = 0; i < nevs[1]; i++)
			fprintf(stderr, "ev1 %#x status %d\n",
				(unsigned int)evs[1][i].type,
				evs[1][i].status);
		{
			struct rte_eth_xstat_name xn[1024];
			struct rte_eth_xstat xv[1024];
			int nx, j, sd;

			for (sd = 0; sd < 2; sd++) {
				nx = rte_eth_xstats_get_names(ern[sd], xn, 1024);
				rte_eth_xstats_get(ern[sd], xv, 1024);
				for (j = 0; j < nx && j < 1024; j++)
					if (xv[j].value != 0 &&
					    (strstr(xn[j].name, "drop") ||
					     strstr(xn[j].name, "mad") ||
					     strstr(xn[j].name, "fault")))
						fprintf(stderr, "%d %s %" PRIu64 "\n",
							sd, xn[j].name, xv[j].value);
			}
		}
		CU_FAIL_FATAL("no RECOVERED");
	}
	CU_ASSERT_TRUE_FATAL(take_ev(1, RTE_PMD_ERNIC_CM_EVENT_RECOVERED,
				     &est[1], 10));
	/* the accepting side saw a QP error of its peer, not a disconnect */
	CU_ASSERT_TRUE(take_ev(1, RTE_PMD_ERNIC_CM_EVENT_QP_ERROR, &ev, 0));
	CU_ASSERT_EQUAL(ev.status, -ECONNRESET);
	CU_ASSERT_FALSE(take_ev(1, ROCE_CM_EVENT_DISCONNECTED, NULL, 0));
	CU_ASSERT_PTR_EQUAL(est[0].context, (void *)0xa);
	CU_ASSERT_PTR_EQUAL(est[1].context, (void *)0xb);
	CU_ASSERT_EQUAL(roce_query_qp(qp[0], &a, &ia), 0);
	CU_ASSERT_EQUAL(a.qp_state, ROCE_QPS_RTS);
	printf("\n  send PSN %#x before, %#x after the reconnect\n", psn0,
	       a.sq_psn);
	CU_ASSERT_NOT_EQUAL(a.sq_psn, psn0);
	CU_ASSERT_TRUE(send_one(0x22));
	CU_ASSERT_TRUE(xstat(ern[0], "cm_recovery_qp_errors") >= 1);
	CU_ASSERT_TRUE(xstat(ern[0], "cm_recovery_recovered") >= 1);
	CU_ASSERT_TRUE(xstat(ern[1], "cm_recovery_recovered") >= 1);
	CU_ASSERT_EQUAL(xstat(ern[0], "cm_recovery_events_dropped"), 0);
	CU_ASSERT_EQUAL(xstat(ern[0], "roce_async_events_dropped"), 0);

	/* /ernic/cm: the connection, its recovery, the counters */
	snprintf(cmd, sizeof(cmd), "/ernic/cm,%u", ern[0]);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	/* (the old id may still be in its timewait: released) */
	CU_ASSERT(strstr(out, "\"recoveries\":1") != NULL);
	CU_ASSERT(strstr(out, "\"state\":\"ESTABLISHED\",\"role\":\"active\"") != NULL);
	CU_ASSERT(strstr(out, "\"remote\":\"198.18.0.2:18700\"") != NULL);
	snprintf(want, sizeof(want), "\"local_qpn\":%u", roce_qp_num(qp[0]));
	CU_ASSERT(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "\"remote_qpn\":%u", roce_qp_num(qp[1]));
	CU_ASSERT(strstr(out, want) != NULL);
	CU_ASSERT(strstr(out, "\"recovery\":\"reconnect\"") != NULL);
	CU_ASSERT(strstr(out, "\"cm_tx_req\":") != NULL);
	CU_ASSERT(strstr(out, "\"cm_recovery_recovered\":1") != NULL);
	CU_ASSERT(strstr(out, "\"mad_rx_drop_parse\":0") != NULL);
	if (strstr(out, "\"recovery\":\"reconnect\"") == NULL)
		fprintf(stderr, "/ernic/cm: %s\n", out);
	CU_ASSERT_FATAL(telemetry("/ernic/cm,x", out, sizeof(out)) == 0);
	CU_ASSERT(strcmp(out, "{\"/ernic/cm\":null}") == 0);

	/*
	 * an application disconnect: the accepting side gets DISCONNECTED
	 * (not QP_ERROR), and its recovery is disarmed, no RECOVERY_FAILED
	 */
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_disconnect(ern[0], est[0].id), 0);
	CU_ASSERT_TRUE(take_ev(1, ROCE_CM_EVENT_DISCONNECTED, &ev, 5));
	CU_ASSERT_TRUE(ev.by_peer_dreq);
	CU_ASSERT_PTR_EQUAL(ev.id, est[1].id);
	CU_ASSERT_FALSE(take_ev(1, RTE_PMD_ERNIC_CM_EVENT_QP_ERROR, NULL,
				0.2));
	CU_ASSERT_EQUAL(xstat(ern[1], "cm_recovery_app_disconnects"), 1);
	snprintf(cmd, sizeof(cmd), "/ernic/cm,%u", ern[1]);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	CU_ASSERT(strstr(out, "\"recoveries\":0") != NULL);
	CU_ASSERT_TRUE(take_ev(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL, 5));
	CU_ASSERT_TRUE(take_ev(1, ROCE_CM_EVENT_TIMEWAIT_EXIT, NULL, 5));
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_destroy_id(ern[0], est[0].id), 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_destroy_id(ern[1], est[1].id), 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_listen_stop(ern[1], l), 0);
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RESET;
		CU_ASSERT_EQUAL(roce_modify_qp(qp[i], &a, ROCE_QP_STATE), 0);
	}
}

/* ------------------------------------------------------------------ */
/* 2. register-window QPs                                             */
/* ------------------------------------------------------------------ */

enum {
	QPC_EN = 1u << 0,
	QPC_HS_DIS = 1u << 4,
	QPC_CQE = 1u << 5,
	NUM_QP = 48,
	RQPN_A = 40,
	RQPN_B = 41,
	SQ_DEPTH = 16,
	RQ_DEPTH = 8,
	RQ_BUF = 1024,
	DATA = 64 * 1024,
	ENT = 5,
	KEY = 0x3c,
	WC_REM_ACCESS_ERR = 10,
	WC_FLUSH_ERR = 5,
};

struct rside {
	uint16_t port;
	uint8_t mac[6];
	uint32_t ip;
	uint8_t *ipkterr, *data;
	uint32_t qpn, dqpn;
	uint8_t *sq, *rq;
	uint32_t *cq;
	volatile uint32_t *cqdb, *rqdb;
	uint32_t sqpi, rqci;
};

static struct rside rs[2];

static uint32_t
roff(const char *name, uint32_t idx)
{
	uint32_t off = UINT32_MAX;

	CU_ASSERT_FATAL(rte_pmd_ernic_reg_by_name(name, idx, &off) == 0);
	return off;
}

static void
rw(uint16_t port, const char *name, uint32_t idx, uint32_t v)
{
	int ret = rte_pmd_ernic_reg_write(port, roff(name, idx), v);

	if (ret != 0)
		fprintf(stderr, "write %s[%u] = %#x: %d\n", name, idx, v, ret);
	CU_ASSERT(ret == 0);
}

static uint32_t
rr(uint16_t port, const char *name, uint32_t idx)
{
	uint32_t v = 0xdeadbeef;

	CU_ASSERT(rte_pmd_ernic_reg_read(port, roff(name, idx), &v) == 0);
	return v;
}

static void
rw64(uint16_t port, const char *lsb, const char *msb, uint32_t idx,
     const volatile void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;

	rw(port, lsb, idx, (uint32_t)a);
	rw(port, msb, idx, (uint32_t)(a >> 32));
}

static void
rside_setup(struct rside *s, const struct rside *peer)
{
	uint16_t p = s->port;
	uint32_t q = s->qpn;

	s->ipkterr = rte_zmalloc("rr_ipk", 16 * 8, 64);
	s->data = rte_zmalloc("rr_data", DATA, 64);
	s->sq = rte_zmalloc("rr_sq", SQ_DEPTH * 64, 64);
	s->rq = rte_zmalloc("rr_rq", RQ_DEPTH * RQ_BUF, 64);
	s->cq = rte_zmalloc("rr_cq", SQ_DEPTH * 4, 64);
	s->cqdb = rte_zmalloc("rr_db", 64, 64);
	s->rqdb = rte_zmalloc("rr_db", 64, 64);
	CU_ASSERT_FATAL(s->ipkterr && s->data && s->sq && s->rq && s->cq &&
			s->cqdb && s->rqdb);
	rw(p, "MACXADDLSB", 0, (uint32_t)s->mac[2] << 24 |
	   (uint32_t)s->mac[3] << 16 | (uint32_t)s->mac[4] << 8 | s->mac[5]);
	rw(p, "MACXADDMSB", 0, (uint32_t)s->mac[0] << 8 | s->mac[1]);
	rw(p, "IPv4XADD", 0, s->ip);
	rw64(p, "IPKTERRQBA", "IPKTERRQBAMSB", 0, s->ipkterr);
	rw(p, "IPKTERRQSZ", 0, 16);
	rw(p, "XRNICCONF", 0, 49152u << 16 | NUM_QP << 8 | 1);
	/* PD table entry ENT: read/write over the data buffer */
	rw(p, "PDPDNUM", ENT, 1);
	rw(p, "VIRTADDRLSB", ENT, 0);
	rw(p, "VIRTADDRMSB", ENT, 0x1000);
	rw64(p, "BUFBASEADDRLSB", "BUFBASEADDRMSB", ENT, s->data);
	rw(p, "BUFRKEY", ENT, KEY);
	rw(p, "WRRDBUFLEN", ENT, DATA);
	rw(p, "ACCESSDESC", ENT, 2);
	/* the QP */
	rw64(p, "RQBA", "RQBAMSB", q, s->rq);
	rw64(p, "SQBA", "SQBAMSB", q, s->sq);
	rw64(p, "CQBA", "CQBAMSB", q, s->cq);
	rw64(p, "CQDBADD", "CQDBADDMSB", q, s->cqdb);
	rw64(p, "RQWPTRDBADD", "RQWPTRDBADDMSB", q, s->rqdb);
	rw(p, "QDEPTH", q, RQ_DEPTH << 16 | SQ_DEPTH);
	rw(p, "PDNUM", q, 1);
	rw(p, "DESTQPCONF", q, s->dqpn);
	rw(p, "MACDESADDLSB", q, (uint32_t)peer->mac[2] << 24 |
	   (uint32_t)peer->mac[3] << 16 | (uint32_t)peer->mac[4] << 8 |
	   peer->mac[5]);
	rw(p, "MACDESADDMSB", q, (uint32_t)peer->mac[0] << 8 | peer->mac[1]);
	rw(p, "IPDESADDR1", q, peer->ip);
	rw(p, "SQPSN", q, s == &rs[0] ? 100 : 200);
	rw(p, "LSTRQREQ", q, s == &rs[0] ? 199 : 99);
	rw(p, "TIMEOUTCONF", q, 1u << 16 | 7u << 11 | 7u << 8 | 14);
	rw(p, "QPADVCONF", q, 0xffffu << 16 | 64u << 8);
	rw(p, "QPCONF", q, QPC_EN | QPC_HS_DIS | QPC_CQE | 2u << 8 |
	   (RQ_BUF / 256) << 16);
}

static void
rpost(struct rside *s, uint16_t wrid, uint8_t op, uint32_t len,
      uint64_t raddr, uint32_t rkey)
{
	struct rte_pmd_ernic_wqe *w =
		(struct rte_pmd_ernic_wqe *)(s->sq + s->sqpi * 64);

	memset(w, 0, sizeof(*w));
	w->wrid = wrid;
	w->opcode = op;
	w->laddr = (uint64_t)(uintptr_t)(s->data + DATA / 2);
	w->length = len;
	w->raddr = raddr;
	w->rkey = rkey;
	s->sqpi = (s->sqpi + 1) % SQ_DEPTH;
}

/* Next register-QP event of side @p k of @p type (others dropped). */
static bool
reg_ev(int k, uint32_t type, struct rte_pmd_ernic_reg_event *ev,
       double secs)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(secs * rte_get_tsc_hz());

	do {
		poll_all();
		while (rte_pmd_ernic_reg_get_event(rs[k].port, ev) == 1) {
			if (ev->type == type)
				return true;
			fprintf(stderr, "port %u: reg event %u (QP %u)\n",
				rs[k].port, ev->type, ev->qpn);
		}
	} while (rte_rdtsc() < end);
	return false;
}

static bool
wait_db(volatile uint32_t *db, uint32_t want)
{
	uint64_t end = rte_rdtsc() + 5 * rte_get_tsc_hz();

	do {
		if (__atomic_load_n(db, __ATOMIC_ACQUIRE) == want)
			return true;
		poll_all();
	} while (rte_rdtsc() < end);
	return false;
}

/* A WRITE and a SEND from A to B after a recovery (indexes from 0). */
static void
rdata_check(uint8_t fill)
{
	struct rte_pmd_ernic_rq_desc d;

	CU_ASSERT_EQUAL(rs[0].sqpi, 0);
	memset(rs[0].data + DATA / 2, fill, 512);
	rpost(&rs[0], 0x10, RTE_PMD_ERNIC_OP_WRITE, 512, 0x100000000000ull,
	      ENT << 8 | KEY);
	rpost(&rs[0], 0x11, RTE_PMD_ERNIC_OP_SEND, 100, 0, 0);
	rw(rs[0].port, "SQPI", rs[0].qpn, rs[0].sqpi);
	CU_ASSERT_TRUE(wait_db(rs[0].cqdb, 2));
	CU_ASSERT_EQUAL(rs[0].cq[0], 0x10u | RTE_PMD_ERNIC_OP_WRITE << 16);
	CU_ASSERT_EQUAL(rs[0].cq[1], 0x11u | RTE_PMD_ERNIC_OP_SEND << 16);
	CU_ASSERT_EQUAL(memcmp(rs[1].data, rs[0].data + DATA / 2, 512), 0);
	CU_ASSERT_TRUE(wait_db(rs[1].rqdb, 1));
	memcpy(&d, rs[1].rq + RQ_BUF - RTE_PMD_ERNIC_RQ_DESC_LEN, sizeof(d));
	CU_ASSERT_EQUAL(d.byte_len, 100);
	CU_ASSERT_EQUAL(rs[1].rq[99], fill);
	rs[1].rqci = 1;
	rw(rs[1].port, "RQCI", rs[1].qpn, 1);
}

/* A bad R_Key: both QPs fatal; the control cores recover them. */
static void
rbreak(uint32_t *cq_head)
{
	struct rte_pmd_ernic_reg_event ev;
	int k;

	rpost(&rs[0], 0x20, RTE_PMD_ERNIC_OP_WRITE, 256, 0x100000000000ull,
	      (ENT + 1) << 8 | KEY);	/* no such entry */
	rpost(&rs[0], 0x21, RTE_PMD_ERNIC_OP_SEND, 64, 0, 0);
	rpost(&rs[0], 0x22, RTE_PMD_ERNIC_OP_WRITE, 64, 0x100000000000ull,
	      ENT << 8 | KEY);
	rw(rs[0].port, "SQPI", rs[0].qpn, rs[0].sqpi);
	for (k = 0; k < 2; k++) {
		CU_ASSERT_TRUE_FATAL(reg_ev(k, RTE_PMD_ERNIC_REG_EVENT_QP_FATAL,
					    &ev, 5));
		CU_ASSERT_EQUAL(ev.qpn, rs[k].qpn);
		CU_ASSERT_NOT_EQUAL(ev.sources, 0);
		if (k == 0)
			CU_ASSERT_EQUAL(ev.syndrome, 0x62);
		CU_ASSERT_TRUE_FATAL(reg_ev(k,
			RTE_PMD_ERNIC_REG_EVENT_QP_CLEARED, &ev, 5));
		CU_ASSERT_EQUAL(ev.qpn, rs[k].qpn);
		cq_head[k] = ev.cq_head;
	}
	/* every WQE completed: the failed one with its error, the rest flushed */
	CU_ASSERT_EQUAL(cq_head[0], rs[0].sqpi);
	CU_ASSERT_EQUAL(rs[0].cq[rs[0].sqpi - 3] >> 24, WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(rs[0].cq[rs[0].sqpi - 2] >> 24, WC_FLUSH_ERR);
	CU_ASSERT_EQUAL(rs[0].cq[rs[0].sqpi - 1] >> 24, WC_FLUSH_ERR);
}

static void
test_reg_qp_recovery(void)
{
	struct rte_pmd_ernic_reg_recovery r;
	struct rte_pmd_ernic_reg_reinit ri;
	struct rte_pmd_ernic_reg_event ev;
	uint32_t head[2];
	int k;

	for (k = 0; k < 2; k++) {
		rs[k].port = ern[k];
		rs[k].mac[0] = 0x02;
		rs[k].mac[5] = (uint8_t)(k + 1);
		rs[k].ip = 0xc6120001 + (uint32_t)k;
		rs[k].qpn = k == 0 ? RQPN_A : RQPN_B;
		rs[k].dqpn = k == 0 ? RQPN_B : RQPN_A;
	}
	rside_setup(&rs[0], &rs[1]);
	rside_setup(&rs[1], &rs[0]);
	/* bad arguments */
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[0], 1, &r),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[0], 5000, &r),
			-EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(9999, 40, &r), -ENODEV);
	memset(&ri, 0, sizeof(ri));
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_reinit(ern[0], RQPN_A, &ri),
			-EINVAL);	/* not recovering */
	/* A re-initialises by itself, B when asked */
	r.flags = RTE_PMD_ERNIC_REG_REC_AUTO_REINIT;
	r.sq_psn = 1000;
	r.rq_psn = 2000;
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[0], RQPN_A, &r), 0);
	memset(&r, 0, sizeof(r));
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[1], RQPN_B, &r), 0);

	rdata_check(0x41);
	/* the app's indexes: A posted 2, B returned 1 buffer */
	rs[0].sqpi = 2;
	rbreak(head);
	CU_ASSERT_TRUE_FATAL(reg_ev(0, RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED,
				    &ev, 5));
	/* B waits for its PSNs */
	CU_ASSERT_FALSE(reg_ev(1, RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED, &ev,
			       0.2));
	CU_ASSERT_EQUAL(rr(ern[1], "QPCONF", RQPN_B) & QPC_EN, 0);
	ri.sq_psn = 2000;
	ri.rq_psn = 1000;
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_reinit(ern[1], RQPN_B, &ri), 0);
	CU_ASSERT_TRUE_FATAL(reg_ev(1, RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED,
				    &ev, 5));
	for (k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(rr(ern[k], "STATQP", rs[k].qpn) & 1, 0);
		CU_ASSERT_EQUAL(rr(ern[k], "SQPI", rs[k].qpn), 0);
		CU_ASSERT_EQUAL(rr(ern[k], "CQHEAD", rs[k].qpn), 0);
		CU_ASSERT_EQUAL(*rs[k].cqdb, 0);
		CU_ASSERT_EQUAL(*rs[k].rqdb, 0);
		rs[k].sqpi = 0;
		rs[k].rqci = 0;
	}
	CU_ASSERT_EQUAL(rr(ern[0], "SQPSN", RQPN_A), 1000);
	CU_ASSERT_EQUAL(rr(ern[1], "LSTRQREQ", RQPN_B), 999);
	rdata_check(0x42);
	for (k = 0; k < 2; k++) {
		CU_ASSERT_TRUE(xstat(ern[k], "reg_recovery_fatal") >= 1);
		CU_ASSERT_EQUAL(xstat(ern[k], "reg_recovery_recovered"), 1);
		CU_ASSERT_EQUAL(xstat(ern[k], "reg_recovery_failed"), 0);
		CU_ASSERT_EQUAL(xstat(ern[k], "reg_recovery_events_dropped"),
				0);
	}
	CU_ASSERT_TRUE(xstat(ern[0], "reg_recovery_ipkterrq_entries") >= 1);

	/*
	 * the event FIFO (256) overflows when nobody takes the events: 86
	 * automatic recoveries on both ends, 3 events each; the oldest are
	 * dropped and counted, the newest kept
	 */
	r.flags = RTE_PMD_ERNIC_REG_REC_AUTO_REINIT;
	r.sq_psn = 2000;
	r.rq_psn = 1000;
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[1], RQPN_B, &r), 0);
	for (k = 0; k < 2; k++)
		while (rte_pmd_ernic_reg_get_event(ern[k], &ev) == 1)
			;
	{
		const unsigned int rounds = 86;
		uint64_t rec0[2], end;
		unsigned int i, n;

		for (i = 0; i < rounds; i++) {
			for (k = 0; k < 2; k++)
				rec0[k] = xstat(ern[k], "reg_recovery_recovered");
			rs[0].sqpi = 0;
			rpost(&rs[0], (uint16_t)(0x40 + i),
			      RTE_PMD_ERNIC_OP_WRITE, 64, 0x100000000000ull,
			      (ENT + 1) << 8 | KEY);
			rw(rs[0].port, "SQPI", rs[0].qpn, rs[0].sqpi);
			end = rte_rdtsc() + 5 * rte_get_tsc_hz();
			while ((xstat(ern[0], "reg_recovery_recovered") == rec0[0] ||
				xstat(ern[1], "reg_recovery_recovered") == rec0[1]) &&
			       rte_rdtsc() < end)
				poll_all();
			CU_ASSERT_FATAL(xstat(ern[0], "reg_recovery_recovered") ==
					rec0[0] + 1);
			CU_ASSERT_FATAL(xstat(ern[1], "reg_recovery_recovered") ==
					rec0[1] + 1);
		}
		for (k = 0; k < 2; k++) {
			CU_ASSERT_EQUAL(xstat(ern[k],
					      "reg_recovery_events_dropped"),
					3 * rounds - 256);
			n = 0;
			while (rte_pmd_ernic_reg_get_event(ern[k], &ev) == 1)
				n++;
			CU_ASSERT_EQUAL(n, 256);
			CU_ASSERT_EQUAL(ev.type,
					RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED);
		}
	}
	CU_ASSERT_TRUE(xstat(ern[1], "ctrl_async_qp_fatal") >= 1);
	rs[0].sqpi = 0;
	rdata_check(0x43);

	/* disarmed: a fatal error is reported, the QP left alone */
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[0], RQPN_A, NULL),
			0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_reg_set_recovery(ern[1], RQPN_B, NULL),
			0);
	rpost(&rs[0], 0x30, RTE_PMD_ERNIC_OP_WRITE, 256, 0x100000000000ull,
	      (ENT + 1) << 8 | KEY);
	rw(rs[0].port, "SQPI", rs[0].qpn, rs[0].sqpi);
	CU_ASSERT_TRUE(reg_ev(0, RTE_PMD_ERNIC_REG_EVENT_QP_FATAL, &ev, 5));
	CU_ASSERT_FALSE(reg_ev(0, RTE_PMD_ERNIC_REG_EVENT_QP_CLEARED, &ev,
			       0.3));
	CU_ASSERT_EQUAL(rr(ern[0], "QPCONF", RQPN_A) & QPC_EN, QPC_EN);
	for (k = 0; k < 2; k++) {
		rw(ern[k], "QPCONF", rs[k].qpn, QPC_HS_DIS);
		rte_free(rs[k].ipkterr);
		rte_free(rs[k].data);
		rte_free(rs[k].sq);
		rte_free(rs[k].rq);
		rte_free(rs[k].cq);
		rte_free((void *)(uintptr_t)rs[k].cqdb);
		rte_free((void *)(uintptr_t)rs[k].rqdb);
	}
}

static CU_TestInfo tests[] = {
	{ "peer death: retries exhausted, reconnect, disconnect types",
	  test_retry_exhaustion_reconnect },
	{ "register QPs: PG332 recovery by the control core",
	  test_reg_qp_recovery },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_ctrl", suite_init, suite_fini, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	char prefix[64], dir[256];
	char *args[] = {
		argv[0], (char *)"--no-huge", (char *)"-m", (char *)"512",
		(char *)"--no-pci", (char *)"--log-level=lib.eal:error",
		(char *)"--file-prefix", prefix,
	};
	int ret;

	RTE_SET_USED(argc);
	/* a runtime directory (and telemetry socket) of our own */
	snprintf(prefix, sizeof(prefix), "ernicctl%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(args), args) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	ret = test_run(suites);
	rte_eal_cleanup();
	if (strstr(dir, prefix) != NULL) {
		char cmd[320];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	return ret;
}
