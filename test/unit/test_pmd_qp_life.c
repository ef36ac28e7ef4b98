/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP lifetime in the net_ernic PMD (roce_qp.c reclamation): a destroyed QP
 * leaves the QPN table at once and its memory is freed only after every
 * reader of the table passed a quiescent point: the workers (each poll
 * iteration) and the slow-path readers (telemetry, xstats) between
 * roce_qp_read_begin() and roce_qp_read_end().
 *
 *   ringA: rx <- r_ba, tx -> r_ab    net_ernic0 on ringA, 2 workers, polled
 *                                     inline by the test (deterministic)
 *   ringB: rx <- r_ab, tx -> r_ba    net_ernic1 on ringB, 2 workers on
 *                                     service lcores 1 and 2 (lcores=)
 *
 * The stress test creates and destroys QPs of worker 1 while frames to
 * them arrive on worker 0 (the only RX queue of a net_ring port): worker 0
 * looks each frame's QP up to find its owner while worker 1 destroys it.
 * Build with -Dsanitize=true: freed QPs then stay poisoned, so any read of
 * a QP after its memory was given back is reported by ASan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_qp.h"
#include "rte_pmd_ernic.h"
#include "test_common.h"

static struct rte_ring *r_ab, *r_ba;
static uint16_t ern0, ern1;

static const uint8_t mac1[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const uint8_t ip1[4] = { 198, 18, 0, 2 };
static const uint8_t peer_ip[4] = { 198, 18, 0, 99 };

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* A RoCEv2 RC SEND_ONLY to @p dst_ip/@p dst_mac, QP @p dqpn, valid ICRC. */
static size_t
make_roce(uint8_t *f, const uint8_t *dst_mac, const uint8_t *dst_ip,
	  uint32_t dqpn)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct roce_bth *bth = (struct roce_bth *)(udp + 1);
	size_t payload = ROCE_BTH_LEN + 4 + ROCE_ICRC_LEN, len;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + payload);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	memcpy(&ip->src_addr, peer_ip, 4);
	memcpy(&ip->dst_addr, dst_ip, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = RTE_BE16(49152);
	udp->dst_port = RTE_BE16(ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(8 + payload);
	udp->dgram_cksum = 0;
	memset(bth, 0, sizeof(*bth));
	roce_bth_set_opcode(bth, ROCE_OP_RC_SEND_ONLY);
	roce_bth_set_pkey(bth, 0xffff);
	roce_bth_set_dqpn(bth, dqpn);
	memset(f + 14 + 20 + 8 + ROCE_BTH_LEN, 0xab, 4);
	len = 14 + 20 + 8 + payload;
	CU_ASSERT(roce_icrc_fill(f, 14, (uint32_t)len) == 0);
	return len;
}

static struct roce_qp *
make_qp(struct roce_pd *pd, struct roce_cq *cq)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(pd, &ia);
}

static int
suite_init(void)
{
	struct rte_ring *rx_a[1], *tx_a[1], *rx_b[1], *tx_b[1];
	int a, b;

	r_ab = rte_ring_create("ql_ab", 4096, 0, 0);
	r_ba = rte_ring_create("ql_ba", 4096, 0, 0);
	if (r_ab == NULL || r_ba == NULL)
		return -1;
	rx_a[0] = r_ba;
	tx_a[0] = r_ab;
	rx_b[0] = r_ab;
	tx_b[0] = r_ba;
	a = rte_eth_from_rings("qlA", rx_a, 1, tx_a, 1, 0);
	b = rte_eth_from_rings("qlB", rx_b, 1, tx_b, 1, 0);
	return a < 0 || b < 0 ? -1 : 0;
}

/*
 * Inline polling: the grace period ends only when both workers polled
 * after the destroy and no slow reader is still inside its section.
 */
static void
test_grace_period(void)
{
	struct roce_device *dev;
	struct roce_worker *w1;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp, *seen;
	unsigned int slot;
	uint32_t qpn;

	CU_ASSERT_FATAL(rte_vdev_init("net_ernic0",
		"port=net_ring_qlA,ip=198.18.0.1,mac=02:00:00:00:00:01,workers=2,max_qps=64") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &ern0) == 0);
	CU_ASSERT_FATAL(test_port_start(ern0) == 0);
	CU_ASSERT(rte_pmd_ernic_poll(ern0) == 2);	/* both workers read the table */
	dev = rte_pmd_ernic_get_device(ern0);
	w1 = rte_pmd_ernic_get_worker(ern0, 1);
	CU_ASSERT_FATAL(dev != NULL && w1 != NULL);
	pd = roce_alloc_pd(dev);
	cq = roce_create_cq(w1, 16);
	CU_ASSERT_FATAL(pd != NULL && cq != NULL);

	/* a slow reader holds the QP across its destroy */
	qp = make_qp(pd, cq);
	CU_ASSERT_FATAL(qp != NULL);
	qpn = roce_qp_num(qp);
	slot = roce_qp_read_begin(dev);
	seen = roce_qp_lookup(dev, qpn);
	CU_ASSERT(seen == qp);
	CU_ASSERT(roce_destroy_qp(qp) == 0);
	CU_ASSERT(roce_qp_lookup(dev, qpn) == NULL);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 1);
	rte_pmd_ernic_poll(ern0);
	rte_pmd_ernic_poll(ern0);
	/* the workers are past it, the reader is not: still allocated */
	CU_ASSERT(roce_qp_reclaim(dev, false) == 1);
	CU_ASSERT(seen->qpn == qpn);	/* ASan: no use-after-poison here */
	roce_qp_read_end(dev, slot);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 0);

	/* a worker that has not polled since the destroy holds it */
	qp = make_qp(pd, cq);
	CU_ASSERT_FATAL(qp != NULL);
	CU_ASSERT(roce_destroy_qp(qp) == 0);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 1);
	rte_pmd_ernic_poll(ern0);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 0);

	/* stopped (unbound) workers hold nothing */
	qp = make_qp(pd, cq);
	CU_ASSERT_FATAL(qp != NULL);
	CU_ASSERT(rte_eth_dev_stop(ern0) == 0);
	CU_ASSERT(roce_destroy_qp(qp) == 0);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 0);

	/* xstats and telemetry-style readers take slots and give them back */
	slot = roce_qp_read_begin(dev);
	CU_ASSERT(slot < ROCE_QS_READERS);
	roce_qp_read_end(dev, slot);
	CU_ASSERT(xstat(ern0, "rx_wire") == 0);
	CU_ASSERT(roce_qp_read_begin(dev) == slot);	/* the slot is free again */
	roce_qp_read_end(dev, slot);

	CU_ASSERT(roce_destroy_cq(cq) == 0);
	CU_ASSERT(roce_dealloc_pd(pd) == 0);
	CU_ASSERT(rte_eth_dev_close(ern0) == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
}

/* Frames the port has finished with: dropped for the QP, or accepted. */
static uint64_t
frames_done(uint16_t port)
{
	return xstat(port, "roce_rx_drop_unknown_qpn") +
	       xstat(port, "roce_rx_drop_qp_reset_init") +
	       xstat(port, "roce_rx_drop_qp_other_worker") +
	       xstat(port, "roce_rx_accepted");
}

/*
 * Service lcores: QPs of worker 1 created and destroyed while frames to
 * them (and to the ones just destroyed) arrive on worker 0, and xstats
 * (a slow reader) are read meanwhile. Every frame must be accounted for,
 * none accepted (the QPs stay in RESET), and every destroyed QP freed.
 * At most QL_WINDOW frames are out at a time: with three lcores on a
 * 2-core machine (or one busy with other work) worker 1 can sleep for
 * longer than the hand-over ring (4096 frames) lasts, and its counted
 * overflow (rx_drop_handoff_full) is not what this test is about.
 */
static void
test_destroy_under_traffic(void)
{
	enum { ROUNDS = 1500, PER_QP = 4, QL_WINDOW = 1024 };
	struct roce_device *dev;
	struct roce_worker *w1;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct rte_mbuf *m;
	uint8_t f[128];
	uint32_t qpn, prev = 2;
	uint64_t sent = 0, deadline, drops;
	unsigned int r, k;
	size_t len;

	if (rte_lcore_count() < 3) {
		fprintf(stderr, "fewer than 3 lcores: stress test not run\n");
		CU_FAIL("needs EAL lcores 0-2");
		return;
	}
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic1",
		"port=net_ring_qlB,ip=198.18.0.2,mac=02:00:00:00:00:02,workers=2,lcores=[1,2],max_qps=16") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic1", &ern1) == 0);
	CU_ASSERT_FATAL(test_port_start(ern1) == 0);
	dev = rte_pmd_ernic_get_device(ern1);
	w1 = rte_pmd_ernic_get_worker(ern1, 1);
	CU_ASSERT_FATAL(dev != NULL && w1 != NULL);
	pd = roce_alloc_pd(dev);
	cq = roce_create_cq(w1, 64);
	CU_ASSERT_FATAL(pd != NULL && cq != NULL);

	for (r = 0; r < ROUNDS; r++) {
		deadline = rte_get_timer_cycles() + 10 * rte_get_timer_hz();
		while (sent - frames_done(ern1) > QL_WINDOW &&
		       rte_get_timer_cycles() < deadline)
			rte_delay_us(50);
		qp = make_qp(pd, cq);
		CU_ASSERT_FATAL(qp != NULL);
		qpn = roce_qp_num(qp);
		for (k = 0; k < 2 * PER_QP; k++) {
			len = make_roce(f, mac1, ip1, k < PER_QP ? qpn : prev);
			m = test_mbuf_from(f, len, 0);
			CU_ASSERT_FATAL(m != NULL);
			while (rte_ring_enqueue(r_ab, m) != 0)
				rte_delay_us(10);
			sent++;
		}
		if (r % 64 == 0)
			CU_ASSERT(xstat(ern1, "rx_wire") != UINT64_MAX);
		CU_ASSERT_FATAL(roce_destroy_qp(qp) == 0);
		prev = qpn;
	}
	/* let the workers take every frame */
	deadline = rte_get_timer_cycles() + 10 * rte_get_timer_hz();
	while (xstat(ern1, "roce_rx_pkts") < sent &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_ms(1);
	CU_ASSERT(xstat(ern1, "rx_roce") == sent);
	CU_ASSERT(xstat(ern1, "roce_rx_pkts") == sent);
	CU_ASSERT(xstat(ern1, "roce_rx_accepted") == 0);
	CU_ASSERT(xstat(ern1, "rx_drop_handoff_full") == 0);
	drops = xstat(ern1, "roce_rx_drop_unknown_qpn") +
		xstat(ern1, "roce_rx_drop_qp_reset_init") +
		xstat(ern1, "roce_rx_drop_qp_other_worker");
	CU_ASSERT(drops == sent);
	printf("\n  %" PRIu64 " frames: unknown QPN %" PRIu64 ", QP in RESET %" PRIu64 ", other worker %" PRIu64 ", handed over %" PRIu64 "\n",
	       sent, xstat(ern1, "roce_rx_drop_unknown_qpn"),
	       xstat(ern1, "roce_rx_drop_qp_reset_init"),
	       xstat(ern1, "roce_rx_drop_qp_other_worker"),
	       xstat(ern1, "rx_roce_handoff"));
	/* the workers keep passing quiescent points: everything is freed */
	deadline = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	while (roce_qp_reclaim(dev, false) != 0 &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_ms(1);
	CU_ASSERT(roce_qp_reclaim(dev, false) == 0);

	CU_ASSERT(rte_eth_dev_stop(ern1) == 0);
	CU_ASSERT(roce_destroy_cq(cq) == 0);
	CU_ASSERT(roce_dealloc_pd(pd) == 0);
	CU_ASSERT(rte_eth_dev_close(ern1) == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic1") == 0);
}

static CU_TestInfo qp_life_tests[] = {
	{ "destroyed QPs are freed after the grace period", test_grace_period },
	{ "QPs destroyed while frames to them arrive", test_destroy_under_traffic },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_qp_life", suite_init, NULL, NULL, NULL, qp_life_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	char *args[] = {
		argv[0], (char *)"--no-huge", (char *)"-m", (char *)"512",
		(char *)"--no-pci", (char *)"--no-shconf", (char *)"--no-telemetry",
		(char *)"--log-level=lib.eal:error",
		(char *)"--lcores=0@(0-1),1@(0-1),2@(0-1)",
	};

	RTE_SET_USED(argc);
	if (rte_eal_init(RTE_DIM(args), args) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	return test_run(suites);
}
