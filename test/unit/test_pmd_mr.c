/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's registration service and QP error recovery, on two
 * net_ernic ports over a crossed pair of net_ring ports. A second thread
 * (registered with EAL) is the datapath: it runs rte_pmd_ernic_poll() on
 * both ports, workers and control cores; the test thread is the
 * application: it posts, polls CQs, and asks the control core.
 *
 * 1. Deregistration under fire: port A streams 8 KiB RDMA WRITEs and READs
 *    into/from a region of port B (B sends READ responses zero-copy); B
 *    deregisters the region through the service meanwhile. Once the
 *    deregistration completed the region is overwritten with a canary,
 *    A keeps posting, and the canary must survive (no write after), the
 *    guard bytes around the region too (no write outside ever), and the
 *    accesses after fail with remote access errors (counted at both ends).
 * 2. Recovery: that remote access error is fatal for both QPs of the
 *    connection; with recovery armed (A reconnects, B accepts) the control
 *    cores re-establish it, and a WRITE goes through again.
 */
#include <pthread.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"
#include "test_common.h"
#include "test_pmd_pair.h"

#define PORT 18600
#define REG (256 * 1024)	/* target region */
#define GUARD 4096
#define MSG 8192		/* READs: 8 packets at PMTU 1024 */
#define WMSG 65536		/* WRITEs: 64 packets, always one in progress */
#define DEPTH 16		/* WRs in flight */

static uint16_t ern[2];
static struct roce_pd *pd[2];
static struct roce_cq *cq[2];
static struct roce_qp *qp[2];
static struct roce_cm_id *id[2];
static struct roce_cm_event est[2];
static volatile int stop_poller;
static pthread_t poller;
/*
 * The deregistration being watched: the poller stops right after the
 * iteration of port B in which it completed, until the test thread has
 * written the canary, so every packet B handles afterwards meets it.
 */
static struct rte_pmd_ernic_mr_req *watch_req;
static int canary_set;

static void *
poller_main(void *arg)
{
	RTE_SET_USED(arg);
	if (rte_thread_register() != 0)
		return NULL;
	while (!__atomic_load_n(&stop_poller, __ATOMIC_ACQUIRE)) {
		struct rte_pmd_ernic_mr_req *r;

		rte_pmd_ernic_poll(ern[0]);
		rte_pmd_ernic_poll(ern[1]);
		r = __atomic_load_n(&watch_req, __ATOMIC_ACQUIRE);
		if (r != NULL && rte_pmd_ernic_mr_poll(r) != -EINPROGRESS)
			while (!__atomic_load_n(&canary_set, __ATOMIC_ACQUIRE) &&
			       !__atomic_load_n(&stop_poller, __ATOMIC_ACQUIRE))
				rte_pause();
	}
	rte_thread_unregister();
	return NULL;
}

/* Next event of side @p s of type @p type (others are kept in order). */
static struct roce_cm_event evs[2][64];
static unsigned int nevs[2];

static bool
wait_event(int s, uint32_t type, struct roce_cm_event *out, double secs)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(secs * rte_get_tsc_hz());
	unsigned int i;

	do {
		while (nevs[s] < RTE_DIM(evs[s]) &&
		       rte_pmd_ernic_cm_get_event(ern[s], &evs[s][nevs[s]]) == 1)
			nevs[s]++;
		for (i = 0; i < nevs[s]; i++)
			if ((uint32_t)evs[s][i].type == type) {
				*out = evs[s][i];
				memmove(&evs[s][i], &evs[s][i + 1],
					(nevs[s] - i - 1) * sizeof(evs[s][0]));
				nevs[s]--;
				return true;
			}
		rte_delay_us_sleep(100);
	} while (rte_rdtsc() < end);
	return false;
}

static struct roce_cm_conn_param cparam;

static int
suite_init(void)
{
	int i;

	if (test_ring_link("mrA", "mrB") != 0)
		return -1;
	if (rte_vdev_init("net_ernic0", "port=net_ring_mrA,ip=198.18.0.1,mac=02:00:00:00:00:01") != 0 ||
	    rte_vdev_init("net_ernic1", "port=net_ring_mrB,ip=198.18.0.2,mac=02:00:00:00:00:02,zero_copy=1") != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name("net_ernic0", &ern[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic1", &ern[1]) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		if (test_rc_end_create(ern[i], 1024, 64, 16, &pd[i], &cq[i],
				       &qp[i]) != 0)
			return -1;
	memset(&cparam, 0, sizeof(cparam));
	cparam.responder_resources = 8;
	cparam.initiator_depth = 8;
	cparam.retry_count = 7;
	cparam.rnr_retry_count = 7;
	cparam.local_ack_timeout = 14;
	if (pthread_create(&poller, NULL, poller_main, NULL) != 0)
		return -1;
	return 0;
}

static int
suite_fini(void)
{
	int i;

	__atomic_store_n(&stop_poller, 1, __ATOMIC_RELEASE);
	pthread_join(poller, NULL);
	/* the stop unbinds the workers from the poller thread */
	for (i = 0; i < 2; i++)
		rte_eth_dev_stop(ern[i]);
	for (i = 0; i < 2; i++) {
		roce_destroy_qp(qp[i]);
		roce_destroy_cq(cq[i]);
		roce_dealloc_pd(pd[i]);
		rte_eth_dev_close(ern[i]);
	}
	return 0;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t v;

	if (rte_eth_xstats_get_id_by_name(port, name, &v) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &v, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static int64_t
cm_counter(uint16_t port, const char *name)
{
	struct roce_counter c[128];
	int n, i;

	n = rte_pmd_ernic_cm_counters(port, c, RTE_DIM(c));
	for (i = 0; i < n && i < (int)RTE_DIM(c); i++)
		if (strcmp(c[i].name, name) == 0)
			return (int64_t)c[i].value;
	return -1;
}

static void
test_connect(void)
{
	struct roce_cm_listener *l;
	struct roce_cm_addr dst, any;
	struct roce_cm_event ev;
	uint64_t end;
	int ret;

	memset(&any, 0, sizeof(any));
	any.ip_ver = 4;
	any.port = PORT;
	l = rte_pmd_ernic_cm_listen(ern[1], &any, 16, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	roce_cm_addr_ipv4(&dst, rte_cpu_to_be_32(0xc6120002), PORT);
	end = rte_rdtsc() + 5 * rte_get_tsc_hz();
	do {
		ret = rte_pmd_ernic_cm_connect(ern[0], &dst, qp[0], &cparam,
					       (void *)0xa, &id[0]);
		if (ret == -EAGAIN)
			rte_delay_us_sleep(1000);
	} while (ret == -EAGAIN && rte_rdtsc() < end);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_TRUE_FATAL(wait_event(1, ROCE_CM_EVENT_CONNECT_REQUEST,
					&ev, 5));
	id[1] = ev.id;
	CU_ASSERT_EQUAL_FATAL(rte_pmd_ernic_cm_accept(ern[1], id[1], qp[1],
						      &cparam, (void *)0xb), 0);
	CU_ASSERT_TRUE_FATAL(wait_event(0, ROCE_CM_EVENT_ESTABLISHED, &est[0],
					5));
	CU_ASSERT_TRUE_FATAL(wait_event(1, ROCE_CM_EVENT_ESTABLISHED, &est[1],
					5));
}

/* Post one WRITE or READ of MSG bytes at @p off of the remote region. */
static int
post_rdma(bool write, uint64_t wr_id, struct roce_mr *lmr, uint8_t *lbuf,
	  uint64_t raddr, uint32_t rkey)
{
	struct roce_send_wr wr;
	struct roce_sge sge;
	unsigned int posted;

	sge.addr = (uintptr_t)lbuf;
	sge.length = write ? WMSG : MSG;
	sge.lkey = roce_mr_lkey(lmr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = write ? ROCE_WR_RDMA_WRITE : ROCE_WR_RDMA_READ;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = raddr;
	wr.rdma.rkey = rkey;
	return roce_post_send(qp[0], &wr, 1, &posted);
}

static bool
all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void
test_dereg_under_fire_and_recover(void)
{
	struct rte_pmd_ernic_cm_recovery rec;
	struct rte_pmd_ernic_mr_req req;
	struct roce_cm_event ev;
	struct roce_mr *rmr, *lmr;
	uint8_t *big, *region, *lbuf;
	unsigned int inflight = 0, ok = 0, rem_acc = 0, flushed = 0, other = 0;
	uint64_t seq = 0, end, after_end = 0, naks_b0;
	struct roce_wc wc[32];
	bool dereg_sent = false, dereg_done = false;
	int n, i;

	test_connect();
	/* arm recovery on both ends before anything breaks */
	memset(&rec, 0, sizeof(rec));
	rec.role = RTE_PMD_ERNIC_CM_RECOVER_RECONNECT;
	rec.param = cparam;
	rec.max_attempts = 10;
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[0], &est[0], &rec),
			0);
	rec.role = RTE_PMD_ERNIC_CM_RECOVER_ACCEPT;
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[1], &est[1], &rec),
			0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[1], NULL, &rec),
			-EINVAL);

	big = rte_zmalloc("mr_big", REG + 2 * GUARD, 4096);
	lbuf = rte_zmalloc("mr_lbuf", WMSG + MSG, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lbuf);
	memset(big, 0xee, REG + 2 * GUARD);
	region = big + GUARD;
	memset(region, 0, REG);
	memset(lbuf, 0xa5, WMSG);
	rmr = rte_pmd_ernic_reg_mr(ern[1], pd[1], region, REG,
				   ROCE_ACCESS_LOCAL_WRITE |
				   ROCE_ACCESS_REMOTE_WRITE |
				   ROCE_ACCESS_REMOTE_READ);
	lmr = rte_pmd_ernic_reg_mr(ern[0], pd[0], lbuf, WMSG + MSG,
				   ROCE_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lmr);
	/* bad requests get clear errors */
	CU_ASSERT_PTR_NULL(rte_pmd_ernic_reg_mr(ern[1], pd[0], region, REG,
						ROCE_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_ernic_mr_submit(ern[1], NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_ernic_dereg_mr(9999, rmr), -ENODEV);
	naks_b0 = xstat(ern[1], "roce_resp_rem_access_err");

	end = rte_rdtsc() + 20 * rte_get_tsc_hz();
	while (rte_rdtsc() < end) {
		/* keep DEPTH WRITEs and READs in flight, also after dereg */
		while (inflight < DEPTH && (after_end == 0 ||
					    rte_rdtsc() < after_end)) {
			bool w = (seq & 1) == 0;
			uint64_t off = (seq * WMSG) % REG;

			if (post_rdma(w, seq, lmr, w ? lbuf : lbuf + WMSG,
				      (uintptr_t)region + off,
				      roce_mr_rkey(rmr)) != 0)
				break;
			seq++;
			inflight++;
		}
		n = roce_poll_cq(cq[0], wc, RTE_DIM(wc));
		for (i = 0; i < n; i++) {
			inflight--;
			if (wc[i].status == ROCE_WC_SUCCESS)
				ok++;
			else if (wc[i].status == ROCE_WC_REM_ACCESS_ERR)
				rem_acc++;
			else if (wc[i].status == ROCE_WC_WR_FLUSH_ERR)
				flushed++;
			else
				other++;
		}
		if (!dereg_sent && ok >= 100) {
			memset(&req, 0, sizeof(req));
			req.op = RTE_PMD_ERNIC_MR_DEREG;
			req.mr = rmr;
			__atomic_store_n(&watch_req, &req, __ATOMIC_RELEASE);
			CU_ASSERT_EQUAL_FATAL(rte_pmd_ernic_mr_submit(ern[1],
								      &req), 0);
			dereg_sent = true;
		}
		if (dereg_sent && !dereg_done &&
		    rte_pmd_ernic_mr_poll(&req) != -EINPROGRESS) {
			CU_ASSERT_EQUAL(rte_pmd_ernic_mr_poll(&req), 0);
			dereg_done = true;
			/* the memory is ours again: any write now is a bug */
			memset(region, 0x5a, REG);
			__atomic_store_n(&canary_set, 1, __ATOMIC_RELEASE);
			after_end = rte_rdtsc() + rte_get_tsc_hz() / 4;
		}
		if (after_end != 0 && rte_rdtsc() >= after_end && inflight == 0)
			break;
	}
	CU_ASSERT_TRUE(dereg_done);
	CU_ASSERT_EQUAL(inflight, 0);
	CU_ASSERT_TRUE(ok >= 100);
	/* no write after the deregistration completed, none outside ever */
	CU_ASSERT_TRUE(all_bytes(region, REG, 0x5a));
	CU_ASSERT_TRUE(all_bytes(big, GUARD, 0xee));
	CU_ASSERT_TRUE(all_bytes(region + REG, GUARD, 0xee));
	/* the accesses after it failed: remote access error, at both ends */
	CU_ASSERT_TRUE(rem_acc >= 1);
	CU_ASSERT_EQUAL(other, 0);
	CU_ASSERT_TRUE(xstat(ern[1], "roce_resp_rem_access_err") > naks_b0);
	CU_ASSERT_TRUE(xstat(ern[1], "mr_dereg") >= 1);
	CU_ASSERT_TRUE(xstat(ern[1], "mr_grace_periods") >= 1);
	CU_ASSERT_TRUE(xstat(ern[0], "mr_reg") >= 1);
	printf("\n  dereg under fire: %u ok, %u remote access errors, %u flushed, %" PRIu64 " posted\n",
	       ok, rem_acc, flushed, seq);

	/* 2. recovery: both QPs went to ERR; the control cores reconnect */
	CU_ASSERT_TRUE_FATAL(wait_event(0, RTE_PMD_ERNIC_CM_EVENT_QP_ERROR,
					&ev, 10));
	CU_ASSERT_TRUE_FATAL(wait_event(0, RTE_PMD_ERNIC_CM_EVENT_RECOVERED,
					&ev, 20));
	id[0] = ev.id;
	CU_ASSERT_PTR_EQUAL(ev.context, (void *)0xa);
	CU_ASSERT_TRUE_FATAL(wait_event(1, RTE_PMD_ERNIC_CM_EVENT_RECOVERED,
					&ev, 20));
	id[1] = ev.id;
	est[1] = ev;
	CU_ASSERT_PTR_EQUAL(ev.context, (void *)0xb);
	/*
	 * a recovered connection may break again: requests with the
	 * deregistered R_Key still queued behind the first error meet it.
	 * Each round ends in RECOVERED; the last one's ids are the live ones.
	 */
	for (i = 0; i < 2; i++)
		while (wait_event(i, RTE_PMD_ERNIC_CM_EVENT_RECOVERED, &ev,
				  1)) {
			id[i] = ev.id;
			if (i == 1)
				est[1] = ev;
		}
	CU_ASSERT_TRUE(cm_counter(ern[0], "cm_recovery_recovered") >= 1);
	CU_ASSERT_TRUE(cm_counter(ern[1], "cm_recovery_recovered") >= 1);
	CU_ASSERT_TRUE(xstat(ern[0], "cm_recovery_qp_errors") +
		       xstat(ern[0], "cm_recovery_peer_disconnects") >= 1);
	/* data flows again on the same QPs */
	memset(region, 0, REG);
	rmr = rte_pmd_ernic_reg_mr(ern[1], pd[1], region, REG,
				   ROCE_ACCESS_LOCAL_WRITE |
				   ROCE_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rmr);
	CU_ASSERT_EQUAL(post_rdma(true, 777, lmr, lbuf, (uintptr_t)region,
				  roce_mr_rkey(rmr)), 0);
	end = rte_rdtsc() + 5 * rte_get_tsc_hz();
	n = 0;
	while (n == 0 && rte_rdtsc() < end)
		n = roce_poll_cq(cq[0], wc, 1);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 777);
	CU_ASSERT_EQUAL(wc[0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_TRUE(all_bytes(region, MSG, 0xa5));

	/*
	 * teardown: an application disconnect disarms its own end; the
	 * accepting end is disarmed first, or it would wait for a reconnect
	 */
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_set_recovery(ern[1], &est[1], NULL),
			0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_cm_disconnect(ern[0], id[0]), 0);
	CU_ASSERT_TRUE(wait_event(1, ROCE_CM_EVENT_DISCONNECTED, &ev, 5));
	CU_ASSERT_EQUAL(ev.id, id[1]);
	CU_ASSERT_TRUE(wait_event(0, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev, 5));
	CU_ASSERT_TRUE(wait_event(1, ROCE_CM_EVENT_TIMEWAIT_EXIT, &ev, 5));
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(rte_pmd_ernic_cm_destroy_id(ern[i], id[i]), 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_dereg_mr(ern[1], rmr), 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_dereg_mr(ern[0], lmr), 0);
	rte_free(big);
	rte_free(lbuf);
}

/* PD table entries through the service: set, replace, clear. */
static void
test_pdt_set(void)
{
	struct rte_pmd_ernic_pdt_entry e;
	static uint8_t buf[4096];

	memset(&e, 0, sizeof(e));
	e.pdnum = 3;
	e.rkey = 0x42;
	e.access = RTE_PMD_ERNIC_PDT_RDWR;
	e.va = 0x10000;
	e.addr = buf;
	e.length = sizeof(buf);
	CU_ASSERT_EQUAL(rte_pmd_ernic_pdt_set(ern[1], 5, &e), 0);
	CU_ASSERT_TRUE(xstat(ern[1], "mr_pdt_set") >= 1);
	e.va = 0x20000;
	CU_ASSERT_EQUAL(rte_pmd_ernic_pdt_set(ern[1], 5, &e), 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_pdt_set(ern[1], 5, NULL), 0);
	e.access = 9;
	CU_ASSERT_EQUAL(rte_pmd_ernic_pdt_set(ern[1], 5, &e), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_ernic_pdt_set(ern[1], 4096, &e), -EINVAL);
	CU_ASSERT_TRUE(xstat(ern[1], "mr_pdt_set_failed") >= 1);
}

static CU_TestInfo tests[] = {
	{ "dereg while the peer WRITEs/READs, then QP recovery",
	  test_dereg_under_fire_and_recover },
	{ "PD table entries through the service", test_pdt_set },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_mr", suite_init, suite_fini, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
