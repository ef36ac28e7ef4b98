/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The native verbs of libroce (roce_verbs.h) from the device to the
 * completions, on two net_ernic ports of one process: a SEND and an RDMA
 * WRITE over an RC QP pair, every byte checked. doc/guides/native-verbs.rst
 * shows this file piece by piece (the "[name]" comments delimit the
 * pieces) and the test suite runs it, so the guide's code is code that
 * builds and works.
 *
 *   build/examples/native_verbs -l 0 --no-huge -m 512 --no-pci
 *
 * One lcore does everything: it polls both ports with rte_pmd_ernic_poll()
 * while it waits (an application with service lcores would map the ports'
 * workers to them instead, doc/guides/pmd.rst).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "rte_pmd_ernic.h"
#include "roce_verbs.h"

enum {
	BUF_SIZE = 1 << 16,	/* registered at each end */
	MSG_SIZE = 4096,	/* one SEND, one RDMA WRITE */
	WRITE_OFF = 8192,	/* where the WRITE lands in the peer's buffer */
	CQ_DEPTH = 64,
	QP_DEPTH = 16,
	WIRE_RING = 4096,
	GID_IPV4 = 1,		/* GID index of ip= (::ffff:a.b.c.d) */
	WAIT_S = 5,
};

/* One end: a net_ernic port and the verbs objects made on it. */
struct end {
	uint16_t port;
	struct roce_device *dev;
	struct roce_worker *worker;
	struct roce_pd *pd;
	uint8_t *buf;
	struct roce_mr *mr;
	struct roce_cq *cq;
	struct roce_qp *qp;
	union roce_gid gid;
	uint32_t psn;		/* first PSN this end sends */
};

static struct end ends[2];

/* Run both ports once: their workers and control cores. */
static void
poll_ports(void)
{
	rte_pmd_ernic_poll(ends[0].port);
	rte_pmd_ernic_poll(ends[1].port);
}

/*
 * The wire: two rings crossed between two net_ring ports, and a net_ernic
 * port on each, as an application would take a NIC port.
 */
static void
make_ports(void)
{
	static const char *const ips[2] = { "198.18.0.1", "198.18.0.2" };
	char name[RTE_ETH_NAME_MAX_LEN], args[128];
	struct rte_ring *r[2];
	int i, ring_port;

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "wire%d", i);
		r[i] = rte_ring_create(name, WIRE_RING, (int)rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL)
			rte_exit(EXIT_FAILURE, "ring %s: %s\n", name,
				 rte_strerror(rte_errno));
	}
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "ex%d", i);
		/* port i sends on ring i and receives on the other one */
		ring_port = rte_eth_from_rings(name, &r[1 - i], 1, &r[i], 1,
					       rte_socket_id());
		if (ring_port < 0 ||
		    rte_eth_dev_get_name_by_port((uint16_t)ring_port,
						 name) != 0)
			rte_exit(EXIT_FAILURE, "net_ring port: %s\n",
				 rte_strerror(rte_errno));
		snprintf(args, sizeof(args), "port=%s,ip=%s,pmtu=4096", name,
			 ips[i]);
		snprintf(name, sizeof(name), "net_ernic_ex%d", i);
		if (rte_vdev_init(name, args) != 0 ||
		    rte_eth_dev_get_port_by_name(name, &ends[i].port) != 0)
			rte_exit(EXIT_FAILURE, "%s: cannot create it\n", name);
	}
}

/* Start a net_ernic port: one queue each way for the non-RoCE frames. */
static void
start_port(uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_info_get(port, &info) != 0)
		rte_exit(EXIT_FAILURE, "port %u: no device info\n", port);
	/* the MTU holds a frame of the path MTU (pmtu=) and its headers */
	conf.rxmode.mtu = RTE_MAX((uint32_t)RTE_ETHER_MTU,
				  (uint32_t)info.min_mtu);
	snprintf(name, sizeof(name), "rx%u", port);
	mp = rte_pktmbuf_pool_create(name, 1023, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_eth_dev_socket_id(port));
	if (mp == NULL ||
	    rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port),
				   NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port),
				   NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		rte_exit(EXIT_FAILURE, "port %u: cannot start it\n", port);
}

static void
open_end(struct end *e)
{
	struct roce_device_attr attr;
	struct roce_qp_init_attr init;

	/* [device] */
	/* the port's RoCE device and a worker, once the port is started */
	e->dev = rte_pmd_ernic_get_device(e->port);
	e->worker = rte_pmd_ernic_get_worker(e->port, 0);
	if (e->dev == NULL || e->worker == NULL ||
	    roce_query_device(e->dev, &attr) != 0 ||
	    rte_pmd_ernic_gid(e->port, GID_IPV4, &e->gid) != 0)
		rte_exit(EXIT_FAILURE, "port %u: no RoCE device\n", e->port);
	if (attr.max_qp_wr < QP_DEPTH || attr.max_cqe < CQ_DEPTH)
		rte_exit(EXIT_FAILURE, "port %u: queues too small\n", e->port);
	/* [device end] */

	/* [pd] */
	e->pd = roce_alloc_pd(e->dev);
	if (e->pd == NULL)
		rte_exit(EXIT_FAILURE, "roce_alloc_pd: %s\n",
			 rte_strerror(rte_errno));
	/* [pd end] */

	/* [register] */
	/* any memory of the process; rte_zmalloc() places it on the port's node */
	e->buf = rte_zmalloc_socket("buf", BUF_SIZE, 4096,
				    rte_eth_dev_socket_id(e->port));
	if (e->buf == NULL)
		rte_exit(EXIT_FAILURE, "no memory for the buffer\n");
	e->mr = roce_reg_mr(e->pd, e->buf, BUF_SIZE,
			    ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			    ROCE_ACCESS_REMOTE_READ);
	if (e->mr == NULL)
		rte_exit(EXIT_FAILURE, "roce_reg_mr: %s\n",
			 rte_strerror(rte_errno));
	/* [register end] */

	/* [cq] */
	/* the QP belongs to the worker of its CQs */
	e->cq = roce_create_cq(e->worker, CQ_DEPTH);
	if (e->cq == NULL)
		rte_exit(EXIT_FAILURE, "roce_create_cq: %s\n",
			 rte_strerror(rte_errno));
	/* [cq end] */

	/* [qp create] */
	memset(&init, 0, sizeof(init));
	init.qp_type = ROCE_QPT_RC;
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	init.cap.max_send_wr = QP_DEPTH;
	init.cap.max_recv_wr = QP_DEPTH;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	e->qp = roce_create_qp(e->pd, &init);
	if (e->qp == NULL)
		rte_exit(EXIT_FAILURE, "roce_create_qp: %s\n",
			 rte_strerror(rte_errno));
	e->psn = (uint32_t)rte_rand() & 0xffffff;
	/* [qp create end] */
}

/* [resolve] */
/* The peer's MAC: ARP through the port, answered while both ports run. */
static void
resolve(const struct end *e, const union roce_gid *gid, uint8_t mac[6])
{
	uint64_t end = rte_get_timer_cycles() + WAIT_S * rte_get_timer_hz();
	int ret;

	do {
		ret = rte_pmd_ernic_resolve(e->port, gid, mac);
		poll_ports();
	} while (ret == -EAGAIN && rte_get_timer_cycles() < end);
	if (ret != 0)
		rte_exit(EXIT_FAILURE, "port %u: peer not resolved: %s\n",
			 e->port, strerror(-ret));
}
/* [resolve end] */

/* [qp modify] */
/* RESET -> INIT -> RTR -> RTS towards the QP of @p peer (as ibv_modify_qp) */
static void
connect_qp(struct end *e, const struct end *peer)
{
	struct roce_qp_attr a;
	enum roce_mtu mtu = ROCE_MTU_4096;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
		ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	if (roce_modify_qp(e->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			   ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS) != 0)
		rte_exit(EXIT_FAILURE, "QP to INIT\n");

	/* the largest path MTU of the port (pmtu=), the peer's address */
	while (roce_mtu_bytes(mtu) > (uint32_t)rte_pmd_ernic_pmtu(e->port))
		mtu--;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = roce_qp_num(peer->qp);
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dgid = peer->gid;
	resolve(e, &peer->gid, a.ah_attr.dmac);
	a.ah_attr.sgid_index = GID_IPV4;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (roce_modify_qp(e->qp, &a, ROCE_QP_STATE | ROCE_QP_AV |
			   ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			   ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			   ROCE_QP_MIN_RNR_TIMER) != 0)
		rte_exit(EXIT_FAILURE, "QP to RTR\n");

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = e->psn;
	a.timeout = 14;		/* local ACK timeout 4.096 us * 2^14 = 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (roce_modify_qp(e->qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			   ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			   ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC) != 0)
		rte_exit(EXIT_FAILURE, "QP to RTS\n");
}
/* [qp modify end] */

/* [poll] */
/* The next completion of @p e, running the ports until it comes. */
static void
wait_wc(struct end *e, uint64_t wr_id, enum roce_wc_opcode opcode)
{
	uint64_t end = rte_get_timer_cycles() + WAIT_S * rte_get_timer_hz();
	struct roce_wc wc;
	int n;

	do {
		poll_ports();
		n = roce_poll_cq(e->cq, &wc, 1);
	} while (n == 0 && rte_get_timer_cycles() < end);
	if (n != 1 || wc.status != ROCE_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != opcode)
		rte_exit(EXIT_FAILURE, "port %u: completion %d: wr_id %" PRIu64
			 " status %d opcode %d, expected wr_id %" PRIu64
			 " opcode %d\n", e->port, n, n == 1 ? wc.wr_id : 0,
			 n == 1 ? (int)wc.status : -1,
			 n == 1 ? (int)wc.opcode : -1, wr_id, (int)opcode);
}
/* [poll end] */

static void
fill(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void
transfer(struct end *a, struct end *b)
{
	struct roce_send_wr swr;
	struct roce_recv_wr rwr;
	struct roce_sge sge;
	unsigned int posted;

	/* [post] */
	/* b: a receive for the SEND, at the start of its buffer */
	sge.addr = (uint64_t)(uintptr_t)b->buf;
	sge.length = MSG_SIZE;
	sge.lkey = roce_mr_lkey(b->mr);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 1;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (roce_post_recv(b->qp, &rwr, 1, &posted) != 0)
		rte_exit(EXIT_FAILURE, "roce_post_recv\n");

	/* a: a SEND of the start of its buffer, signalled */
	fill(a->buf, MSG_SIZE, 1);
	sge.addr = (uint64_t)(uintptr_t)a->buf;
	sge.lkey = roce_mr_lkey(a->mr);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.opcode = ROCE_WR_SEND;
	swr.send_flags = ROCE_SEND_SIGNALED;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	if (roce_post_send(a->qp, &swr, 1, &posted) != 0)
		rte_exit(EXIT_FAILURE, "roce_post_send (SEND)\n");
	/* [post end] */

	wait_wc(a, 2, ROCE_WC_SEND);
	wait_wc(b, 1, ROCE_WC_RECV);
	if (memcmp(a->buf, b->buf, MSG_SIZE) != 0)
		rte_exit(EXIT_FAILURE, "SEND: the data differs\n");
	printf("native_verbs: SEND of %u bytes received, data ok\n", MSG_SIZE);

	/* [write] */
	/* a: an RDMA WRITE into b's buffer at WRITE_OFF: b's address and R_Key */
	fill(a->buf + MSG_SIZE, MSG_SIZE, 2);
	sge.addr = (uint64_t)(uintptr_t)(a->buf + MSG_SIZE);
	swr.wr_id = 3;
	swr.opcode = ROCE_WR_RDMA_WRITE;
	swr.rdma.remote_addr = (uint64_t)(uintptr_t)(b->buf + WRITE_OFF);
	swr.rdma.rkey = roce_mr_rkey(b->mr);
	if (roce_post_send(a->qp, &swr, 1, &posted) != 0)
		rte_exit(EXIT_FAILURE, "roce_post_send (RDMA WRITE)\n");
	wait_wc(a, 3, ROCE_WC_RDMA_WRITE);
	/* [write end] */
	if (memcmp(a->buf + MSG_SIZE, b->buf + WRITE_OFF, MSG_SIZE) != 0)
		rte_exit(EXIT_FAILURE, "RDMA WRITE: the data differs\n");
	printf("native_verbs: RDMA WRITE of %u bytes at offset %u, data ok\n",
	       MSG_SIZE, WRITE_OFF);
}

static void
close_end(struct end *e)
{
	uint64_t end = rte_get_timer_cycles() + WAIT_S * rte_get_timer_hz();
	int ret;

	/* [teardown] */
	/* QP, then what it used; the region once no frame holds its memory */
	if (roce_destroy_qp(e->qp) != 0 || roce_destroy_cq(e->cq) != 0)
		rte_exit(EXIT_FAILURE, "port %u: QP or CQ busy\n", e->port);
	while ((ret = roce_dereg_mr(e->mr)) == -EBUSY &&
	       rte_get_timer_cycles() < end)
		poll_ports();
	if (ret != 0 || roce_dealloc_pd(e->pd) != 0)
		rte_exit(EXIT_FAILURE, "port %u: MR or PD busy\n", e->port);
	rte_free(e->buf);
	/* [teardown end] */
}

int
main(int argc, char **argv)
{
	uint64_t end;
	struct rte_eth_link link;
	int i;

	if (rte_eal_init(argc, argv) < 0)
		rte_exit(EXIT_FAILURE, "cannot initialise the EAL\n");
	make_ports();
	for (i = 0; i < 2; i++)
		start_port(ends[i].port);
	end = rte_get_timer_cycles() + WAIT_S * rte_get_timer_hz();
	for (i = 0; i < 2; i++)
		do {
			poll_ports();
			memset(&link, 0, sizeof(link));
			rte_eth_link_get_nowait(ends[i].port, &link);
		} while (link.link_status != RTE_ETH_LINK_UP &&
			 rte_get_timer_cycles() < end);
	for (i = 0; i < 2; i++)
		open_end(&ends[i]);
	connect_qp(&ends[0], &ends[1]);
	connect_qp(&ends[1], &ends[0]);
	printf("native_verbs: port %u QPN %u <-> port %u QPN %u, RTS\n",
	       ends[0].port, roce_qp_num(ends[0].qp), ends[1].port,
	       roce_qp_num(ends[1].qp));
	transfer(&ends[0], &ends[1]);
	for (i = 0; i < 2; i++)
		close_end(&ends[i]);
	/* stop both before closing either: the ports share the wire */
	for (i = 0; i < 2; i++)
		rte_eth_dev_stop(ends[i].port);
	for (i = 0; i < 2; i++)
		rte_eth_dev_close(ends[i].port);
	printf("native_verbs: done\n");
	rte_eal_cleanup();
	return 0;
}
