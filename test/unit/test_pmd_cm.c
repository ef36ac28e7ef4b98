/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core of two net_ernic ports over a crossed pair of net_ring
 * ports: rdma_cm-style listen/connect/accept through rte_pmd_ernic_cm_*,
 * QP1 frames from the workers to the control core, MADs out through the
 * out ring, a SEND over the connection, disconnect and timewait in real
 * time, a few cycles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"
#include "test_common.h"
#include "test_pmd_pair.h"

#define PORT 18515

static uint16_t ern[2];
static struct roce_pd *pd[2];
static struct roce_cq *cq[2];
static struct roce_qp *qp[2];
static struct roce_cm_event ev[2][256];
static unsigned int nev[2];

static void
pool_avail_cb(struct rte_mempool *mp, void *arg)
{
	*(unsigned int *)arg += rte_mempool_avail_count(mp);
}

static int
suite_init(void)
{
	int i;

	if (test_ring_link("cmA", "cmB") != 0)
		return -1;
	if (rte_vdev_init("net_ernic0", "port=net_ring_cmA,ip=198.18.0.1,mac=02:00:00:00:00:01,workers=2,max_qps=16384") != 0 ||
	    rte_vdev_init("net_ernic1", "port=net_ring_cmB,ip=198.18.0.2,mac=02:00:00:00:00:02,max_qps=16384") != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name("net_ernic0", &ern[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic1", &ern[1]) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (test_rc_end_create(ern[i], 256, 16, 16, &pd[i], &cq[i],
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

/* Poll both ports (workers and control cores) and collect CM events. */
static void
poll_all(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		rte_pmd_ernic_poll(ern[i]);
		while (nev[i] < RTE_DIM(ev[i]) &&
		       rte_pmd_ernic_cm_get_event(ern[i], &ev[i][nev[i]]) == 1)
			nev[i]++;
	}
}

/* Poll until side @p s has an event of @p type after @p from (5 s max). */
static struct roce_cm_event *
wait_ev(int s, enum roce_cm_event_type type, unsigned int from)
{
	uint64_t end = rte_rdtsc() + 5 * rte_get_tsc_hz();
	unsigned int i;

	do {
		poll_all();
		for (i = from; i < nev[s]; i++)
			if (ev[s][i].type == type)
				return &ev[s][i];
	} while (rte_rdtsc() < end);
	return NULL;
}

static void
qp_reset(struct roce_qp *q)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	CU_ASSERT_EQUAL(roce_modify_qp(q, &a, ROCE_QP_STATE), 0);
}

static void
send_one(void)
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

	for (i = 0; i < 2; i++) {
		mr[i] = roce_reg_mr(pd[i], buf[i], sizeof(buf[i]),
				    ROCE_ACCESS_LOCAL_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr[i]);
		sge[i].addr = (uintptr_t)buf[i];
		sge[i].length = sizeof(buf[i]);
		sge[i].lkey = roce_mr_lkey(mr[i]);
	}
	memset(buf[0], 0x3c, sizeof(buf[0]));
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
				CU_ASSERT_EQUAL(wc.status, ROCE_WC_SUCCESS);
				got[i] = 1;
			}
	}
	CU_ASSERT_TRUE(got[0] && got[1]);
	CU_ASSERT_EQUAL(buf[1][127], 0x3c);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(roce_dereg_mr(mr[i]), 0);
}

static uint64_t xstat(uint16_t port, const char *name);

/*
 * Selective repeat of both QPs after a connection: roce_query_qp() and
 * the xstat qp<N>_sr_on agree with @p on.
 */
static void
check_sr(bool on)
{
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	char name[64];
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(roce_query_qp(qp[i], &a, &ia), 0);
		CU_ASSERT_EQUAL(a.selective_repeat, on ? 1 : 0);
		snprintf(name, sizeof(name), "qp%u_sr_on", roce_qp_num(qp[i]));
		CU_ASSERT_EQUAL(xstat(ern[i], name), on ? 1u : 0u);
	}
}

static void
test_pmd_connect(void)
{
	struct roce_cm_listener *l;
	struct roce_cm_conn_param p, pa;
	struct roce_cm_addr dst, any;
	struct roce_cm_event *e;
	struct roce_cm_id *id[2];
	struct roce_counter c[128];
	uint64_t end;
	int cycle, ret, i, n;
	bool seen_gsi = false;

	memset(&any, 0, sizeof(any));
	any.ip_ver = 4;
	any.port = PORT;
	l = rte_pmd_ernic_cm_listen(ern[1], &any, 16, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	roce_cm_addr_ipv4(&dst, rte_cpu_to_be_32(0xc6120002), PORT);
	memset(&p, 0, sizeof(p));
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.local_ack_timeout = 14;
	for (cycle = 0; cycle < 3; cycle++) {
		unsigned int f0 = nev[0], f1 = nev[1];

		/* ARP first: -EAGAIN until the neighbour answers */
		end = rte_rdtsc() + 5 * rte_get_tsc_hz();
		do {
			ret = rte_pmd_ernic_cm_connect(ern[0], &dst, qp[0], &p,
						       NULL, &id[0]);
			if (ret == -EAGAIN)
				poll_all();
		} while (ret == -EAGAIN && rte_rdtsc() < end);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		e = wait_ev(1, ROCE_CM_EVENT_CONNECT_REQUEST, f1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		id[1] = e->id;
		CU_ASSERT_EQUAL(e->remote_qpn, roce_qp_num(qp[0]));
		/* selective repeat: on by default, the second time refused */
		pa = p;
		pa.selective_repeat = cycle == 1 ? ROCE_CM_SR_OFF :
			ROCE_CM_SR_DEFAULT;
		CU_ASSERT_EQUAL(rte_pmd_ernic_cm_accept(ern[1], id[1], qp[1],
							&pa, NULL), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(wait_ev(0,
					     ROCE_CM_EVENT_ESTABLISHED, f0));
		CU_ASSERT_PTR_NOT_NULL_FATAL(wait_ev(1,
					     ROCE_CM_EVENT_ESTABLISHED, f1));
		check_sr(cycle != 1);
		send_one();
		CU_ASSERT_EQUAL(rte_pmd_ernic_cm_disconnect(ern[cycle & 1],
							    id[cycle & 1]), 0);
		for (i = 0; i < 2; i++) {
			CU_ASSERT_PTR_NOT_NULL(wait_ev(i,
					ROCE_CM_EVENT_DISCONNECTED, i ? f1 : f0));
			CU_ASSERT_PTR_NOT_NULL(wait_ev(i,
					ROCE_CM_EVENT_TIMEWAIT_EXIT, i ? f1 : f0));
			CU_ASSERT_EQUAL(rte_pmd_ernic_cm_destroy_id(ern[i], id[i]),
					0);
			qp_reset(qp[i]);
		}
	}
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_listen_stop(ern[1], l), 0);
	n = rte_pmd_ernic_cm_counters(ern[0], c, RTE_DIM(c));
	CU_ASSERT_TRUE(n > 0 && n <= (int)RTE_DIM(c));
	for (i = 0; i < n && i < (int)RTE_DIM(c); i++) {
		if (strcmp(c[i].name, "cm_established") == 0)
			CU_ASSERT_EQUAL(c[i].value, 3);
		if (strcmp(c[i].name, "mad_rx_ok") == 0)
			seen_gsi = c[i].value >= 6;
	}
	CU_ASSERT_TRUE(seen_gsi);
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_get_event(9999, &ev[0][0]), -ENODEV);
}

/* ------------------------------------------------------------------ */
/* connect/disconnect cycles through the ports                        */
/* ------------------------------------------------------------------ */

static unsigned int
mempool_avail_sum(void)
{
	unsigned int sum = 0;

	rte_mempool_walk(pool_avail_cb, &sum);
	return sum;
}

/* Value of xstat @p name (UINT64_MAX when none). */
static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t xid, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &xid) != 0 ||
	    rte_eth_xstats_get_by_id(port, &xid, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* QPs with xstats ("qp<qpn>_tx_pkts"; the first 64 of the port). */
static unsigned int
nb_qp_xstats(uint16_t port)
{
	struct rte_eth_xstat_name *names;
	unsigned int k = 0;
	int n, i;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return 0;
	names = calloc((size_t)n, sizeof(*names));
	if (names == NULL)
		return 0;
	n = rte_eth_xstats_get_names(port, names, (unsigned int)n);
	for (i = 0; i < n; i++)
		if (strncmp(names[i].name, "qp", 2) == 0 &&
		    strstr(names[i].name, "_tx_pkts") != NULL)
			k++;
	free(names);
	return k;
}

static struct roce_qp *
cycle_qp(int i)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = cq[i];
	ia.recv_cq = cq[i];
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(pd[i], &ia);
}

/* Take (and forget) the first event of @p type for @p id on side @p s. */
static bool
take_id_ev(int s, enum roce_cm_event_type type, struct roce_cm_id *id,
	   struct roce_cm_event *out)
{
	uint64_t end = rte_rdtsc() + 10 * rte_get_tsc_hz();
	unsigned int i;

	do {
		for (i = 0; i < nev[s]; i++)
			if (ev[s][i].type == type &&
			    (id == NULL || ev[s][i].id == id)) {
				if (out != NULL)
					*out = ev[s][i];
				memmove(&ev[s][i], &ev[s][i + 1],
					(nev[s] - i - 1) * sizeof(ev[s][0]));
				nev[s]--;
				return true;
			}
		poll_all();
	} while (rte_rdtsc() < end);
	return false;
}

/*
 * ERNIC_CM_CYCLES (default 10000; about 4 s unloaded)
 * connect/accept/disconnect cycles over the ports, a fresh QP pair each,
 * alternating the side that disconnects; ids are destroyed right after
 * DISCONNECTED (their timewait runs on). At the end nothing is left:
 * CM ids, QPs, mbufs.
 */
static void
test_pmd_cycles(void)
{
	const char *env = getenv("ERNIC_CM_CYCLES");
	unsigned int cycles = env != NULL ? (unsigned int)atoi(env) : 10000;
	struct roce_cm_listener *l;
	struct roce_cm_conn_param p;
	struct roce_cm_addr dst, any;
	struct roce_cm_event e = { 0 };
	struct roce_cm_id *id[2];
	struct roce_qp *q[2];
	unsigned int c, avail0, qps0[2], avail1;
	uint64_t t0, end, est0;
	int i, ret;

	nev[0] = nev[1] = 0;
	memset(&any, 0, sizeof(any));
	any.ip_ver = 4;
	any.port = PORT + 1;
	l = rte_pmd_ernic_cm_listen(ern[1], &any, 64, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	roce_cm_addr_ipv4(&dst, rte_cpu_to_be_32(0xc6120002), PORT + 1);
	memset(&p, 0, sizeof(p));
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.local_ack_timeout = 14;
	for (i = 0; i < 2; i++)
		qps0[i] = nb_qp_xstats(ern[i]);
	est0 = xstat(ern[0], "cm_established");
	avail0 = mempool_avail_sum();
	t0 = rte_rdtsc();
	for (c = 0; c < cycles; c++) {
		q[0] = cycle_qp(0);
		q[1] = cycle_qp(1);
		CU_ASSERT_FATAL(q[0] != NULL && q[1] != NULL);
		end = rte_rdtsc() + 5 * rte_get_tsc_hz();
		do {
			ret = rte_pmd_ernic_cm_connect(ern[0], &dst, q[0], &p,
						       NULL, &id[0]);
			if (ret == -EAGAIN)
				poll_all();
		} while (ret == -EAGAIN && rte_rdtsc() < end);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		if (!take_id_ev(1, ROCE_CM_EVENT_CONNECT_REQUEST, NULL, &e)) {
			fprintf(stderr, "cycle %u: no CONNECT_REQUEST (QPN %u); side 0 events:",
				c, roce_qp_num(q[0]));
			for (i = 0; i < (int)nev[0]; i++)
				fprintf(stderr, " %s/%d/%u",
					roce_cm_event_name(ev[0][i].type),
					ev[0][i].status, ev[0][i].rej_reason);
			fprintf(stderr, "\n");
			CU_FAIL_FATAL("no CONNECT_REQUEST");
		}
		id[1] = e.id;
		CU_ASSERT_EQUAL_FATAL(rte_pmd_ernic_cm_accept(ern[1], id[1],
							      q[1], &p, NULL),
				      0);
		CU_ASSERT_TRUE_FATAL(take_id_ev(0, ROCE_CM_EVENT_ESTABLISHED,
						id[0], NULL));
		CU_ASSERT_TRUE_FATAL(take_id_ev(1, ROCE_CM_EVENT_ESTABLISHED,
						id[1], NULL));
		CU_ASSERT_EQUAL(rte_pmd_ernic_cm_disconnect(ern[c & 1],
							    id[c & 1]), 0);
		for (i = 0; i < 2; i++) {
			CU_ASSERT_TRUE_FATAL(take_id_ev(i,
					ROCE_CM_EVENT_DISCONNECTED, id[i],
					NULL));
			CU_ASSERT_EQUAL(rte_pmd_ernic_cm_destroy_id(ern[i],
								    id[i]), 0);
			CU_ASSERT_EQUAL(roce_destroy_qp(q[i]), 0);
		}
	}
	printf("\n  %u connect/disconnect cycles in %.2f s\n", cycles,
	       (double)(rte_rdtsc() - t0) / rte_get_tsc_hz());
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_listen_stop(ern[1], l), 0);
	/* the last timewaits end (2 x 268 ms + 67 ms), the rings drain */
	end = rte_rdtsc() + 10 * rte_get_tsc_hz();
	while ((xstat(ern[0], "cm_ids_in_use") != 0 ||
		xstat(ern[1], "cm_ids_in_use") != 0) && rte_rdtsc() < end)
		poll_all();
	for (i = 0; i < 100; i++)
		poll_all();
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(xstat(ern[i], "cm_ids_in_use"), 0);
		CU_ASSERT_EQUAL(nb_qp_xstats(ern[i]), qps0[i]);
		CU_ASSERT_EQUAL(xstat(ern[i], "cm_event_dropped"), 0);
		CU_ASSERT_EQUAL(xstat(ern[i], "mad_tx_err"), 0);
	}
	CU_ASSERT_EQUAL(xstat(ern[0], "cm_established") - est0, cycles);
	avail1 = mempool_avail_sum();
	if (avail1 != avail0)
		fprintf(stderr, "mbufs available: %u before, %u after\n",
			avail0, avail1);
	CU_ASSERT_EQUAL(avail1, avail0);
}

static CU_TestInfo tests[] = {
	{ "connect/accept/send/disconnect through the control cores",
	  test_pmd_connect },
	{ "connect/disconnect cycles through the ports, no leaks",
	  test_pmd_cycles },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_cm", suite_init, suite_fini, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
