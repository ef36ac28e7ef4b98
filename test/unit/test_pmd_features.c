/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic devargs and features not covered by test_pmd.c:
 *   vlan=       RDMA WRITE between two ports, every frame on the wire
 *               tagged with the VLAN both ways; untagged and foreign-VLAN
 *               RoCE frames go to the application, not the engines;
 *   lcores=     workers as services on the given lcores (no inline poll),
 *               bad lcores fail the start;
 *   telemetry   /ernic/qp/list, /ernic/qp/info,<port>,<qpn>, /ernic/stats
 *               through the process's own telemetry socket;
 *   exception=  host -> wire: a frame the kernel sends on the tap goes out
 *               of the underlying port;
 *   neigh_reachable=  an entry not confirmed for that long is refreshed
 *               by unicast ARP requests and forgotten when they go
 *               unanswered.
 *
 *   fA: rx <- a_in, tx -> a_out      fB: rx <- b_in, tx -> b_out
 * The test moves frames from a_out to b_in and b_out to a_in itself, so it
 * sees (and checks) every frame on the "wire".
 */
#include <errno.h>
#include <net/if.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_service.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "rte_pmd_ernic.h"
#include "test_common.h"
#include "test_pmd_pair.h"

static struct rte_ring *a_in, *a_out, *b_in, *b_out;

static const uint8_t mac0[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac1[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const uint8_t ip0[4] = { 198, 18, 0, 1 };
static const uint8_t peer_ip[4] = { 198, 18, 0, 99 };

enum { VID = 100 };

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

static void
drain(struct rte_ring *r)
{
	void *m;

	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

static void
drain_all(void)
{
	drain(a_in);
	drain(a_out);
	drain(b_in);
	drain(b_out);
}

static uint16_t
start_ernic(const char *name, const char *args)
{
	uint16_t port;

	CU_ASSERT_FATAL(rte_vdev_init(name, args) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name(name, &port) == 0);
	CU_ASSERT_FATAL(test_port_start(port) == 0);
	return port;
}

static void
stop_ernic(const char *name, uint16_t port)
{
	CU_ASSERT(rte_eth_dev_stop(port) == 0);
	CU_ASSERT(rte_vdev_uninit(name) == 0);
	drain_all();
}

/* Move the "wire" frames of @p out to @p in, counting tags with VID. */
static void
forward(struct rte_ring *out, struct rte_ring *in, unsigned int *tagged,
	unsigned int *other)
{
	struct rte_mbuf *m;
	const uint8_t *h;

	while (rte_ring_dequeue(out, (void **)&m) == 0) {
		h = rte_pktmbuf_mtod(m, const uint8_t *);
		if (h[12] == 0x81 && h[13] == 0x00 &&
		    ((h[14] << 8 | h[15]) & 0xfff) == VID)
			(*tagged)++;
		else
			(*other)++;
		if (rte_ring_enqueue(in, m) != 0)
			rte_pktmbuf_free(m);
	}
}

/* An RC SEND_ONLY to 198.18.0.1, QP @p dqpn, optionally tagged @p vid. */
static size_t
make_roce(uint8_t *f, int vid, uint32_t dqpn)
{
	size_t off = 0, payload = ROCE_BTH_LEN + 4 + ROCE_ICRC_LEN, l3;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct roce_bth *bth;

	memcpy(f, mac0, 6);
	memcpy(f + 6, peer_mac, 6);
	off = 12;
	if (vid >= 0) {
		f[off++] = 0x81;
		f[off++] = 0x00;
		f[off++] = (uint8_t)(vid >> 8);
		f[off++] = (uint8_t)vid;
	}
	f[off++] = 0x08;
	f[off++] = 0x00;
	l3 = off;
	ip = (struct rte_ipv4_hdr *)(f + off);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + payload);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	memcpy(&ip->src_addr, peer_ip, 4);
	memcpy(&ip->dst_addr, ip0, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = RTE_BE16(49152);
	udp->dst_port = RTE_BE16(ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(8 + payload);
	udp->dgram_cksum = 0;
	bth = (struct roce_bth *)(udp + 1);
	memset(bth, 0, sizeof(*bth));
	roce_bth_set_opcode(bth, ROCE_OP_RC_SEND_ONLY);
	roce_bth_set_pkey(bth, 0xffff);
	roce_bth_set_dqpn(bth, dqpn);
	off = l3 + 20 + 8 + payload;
	memset(f + off - 8, 0xab, 4);
	CU_ASSERT(roce_icrc_fill(f, (uint32_t)l3, (uint32_t)off) == 0);
	return off;
}

/* An ARP packet from the peer for 198.18.0.1: a request or a reply. */
static size_t
make_arp(uint8_t *f, uint16_t op)
{
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(f + 14);

	if (op == RTE_ARP_OP_REQUEST)
		memset(f, 0xff, 6);
	else
		memcpy(f, mac0, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	memset(arp, 0, sizeof(*arp));
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = 6;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(arp->arp_data.arp_sha.addr_bytes, peer_mac, 6);
	memcpy(&arp->arp_data.arp_sip, peer_ip, 4);
	if (op != RTE_ARP_OP_REQUEST)
		memcpy(arp->arp_data.arp_tha.addr_bytes, mac0, 6);
	memcpy(&arp->arp_data.arp_tip, ip0, 4);
	return 14 + sizeof(*arp);
}

static void
inject(struct rte_ring *r, const uint8_t *f, size_t len)
{
	struct rte_mbuf *m = test_mbuf_from(f, len, 0);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_ring_enqueue(r, m) == 0);
}

static int
suite_init(void)
{
	int a, b;

	a_in = rte_ring_create("f_a_in", 4096, 0, 0);
	a_out = rte_ring_create("f_a_out", 4096, 0, 0);
	b_in = rte_ring_create("f_b_in", 4096, 0, 0);
	b_out = rte_ring_create("f_b_out", 4096, 0, 0);
	if (a_in == NULL || a_out == NULL || b_in == NULL || b_out == NULL)
		return -1;
	a = rte_eth_from_rings("fA", &a_in, 1, &a_out, 1, 0);
	b = rte_eth_from_rings("fB", &b_in, 1, &b_out, 1, 0);
	return a < 0 || b < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* vlan=                                                              */
/* ------------------------------------------------------------------ */

struct side {
	uint16_t port;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
};

static void
side_create(struct side *s, uint16_t port, size_t len)
{
	struct roce_qp_init_attr ia;

	s->port = port;
	s->pd = roce_alloc_pd(rte_pmd_ernic_get_device(port));
	CU_ASSERT_FATAL(s->pd != NULL);
	s->cq = roce_create_cq(rte_pmd_ernic_get_worker(port, 0), 64);
	CU_ASSERT_FATAL(s->cq != NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	s->qp = roce_create_qp(s->pd, &ia);
	CU_ASSERT_FATAL(s->qp != NULL);
	s->buf = calloc(1, len);
	CU_ASSERT_FATAL(s->buf != NULL);
	s->mr = roce_reg_mr(s->pd, s->buf, len, ROCE_ACCESS_LOCAL_WRITE |
			    ROCE_ACCESS_REMOTE_WRITE);
	CU_ASSERT_FATAL(s->mr != NULL);
}

static void
side_destroy(struct side *s)
{
	CU_ASSERT(roce_destroy_qp(s->qp) == 0);
	CU_ASSERT(roce_dereg_mr(s->mr) == 0);
	CU_ASSERT(roce_destroy_cq(s->cq) == 0);
	CU_ASSERT(roce_dealloc_pd(s->pd) == 0);
	free(s->buf);
}

static void
test_vlan(void)
{
	enum { LEN = 4096 };
	struct side s[2];
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	struct rte_mbuf *m[8];
	unsigned int tag_ab = 0, other_ab = 0, tag_ba = 0, other_ba = 0, n;
	uint64_t roce0, nonroce0, trunc0;
	uint8_t f[128];
	uint16_t p0, p1;
	int i, done = 0;

	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1,vlan=4095") != 0);
	p0 = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,mac=02:00:00:00:00:01,vlan=100");
	p1 = start_ernic("net_ernic1",
		"port=net_ring_fB,ip=198.18.0.2,mac=02:00:00:00:00:02,vlan=100");
	side_create(&s[0], p0, LEN);
	side_create(&s[1], p1, LEN);
	CU_ASSERT_FATAL(test_rc_connect(s[0].qp, p1, mac1, roce_qp_num(s[1].qp),
					ROCE_MTU_1024, 14) == 0);
	CU_ASSERT_FATAL(test_rc_connect(s[1].qp, p0, mac0, roce_qp_num(s[0].qp),
					ROCE_MTU_1024, 14) == 0);
	for (i = 0; i < LEN; i++)
		s[0].buf[i] = (uint8_t)(i * 13 + 5);
	sge.addr = (uintptr_t)s[0].buf;
	sge.length = LEN;
	sge.lkey = roce_mr_lkey(s[0].mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)s[1].buf;
	wr.rdma.rkey = roce_mr_rkey(s[1].mr);
	CU_ASSERT_FATAL(roce_post_send(s[0].qp, &wr, 1, NULL) == 0);
	for (i = 0; i < 2000 && !done; i++) {
		rte_pmd_ernic_poll(p0);
		forward(a_out, b_in, &tag_ab, &other_ab);
		rte_pmd_ernic_poll(p1);
		forward(b_out, a_in, &tag_ba, &other_ba);
		done = roce_poll_cq(s[0].cq, &wc, 1);
	}
	CU_ASSERT_FATAL(done == 1);
	CU_ASSERT(wc.status == ROCE_WC_SUCCESS && wc.wr_id == 7);
	CU_ASSERT(memcmp(s[0].buf, s[1].buf, LEN) == 0);
	/* 4 WRITE packets one way, at least one ACK back, all in VLAN 100 */
	CU_ASSERT(tag_ab >= 4);
	CU_ASSERT(tag_ba >= 1);
	CU_ASSERT(other_ab == 0);
	CU_ASSERT(other_ba == 0);

	/* not our VLAN: untagged or VID 200 RoCE frames are the application's */
	roce0 = xstat(p0, "rx_roce");
	nonroce0 = xstat(p0, "rx_non_roce");
	n = (unsigned int)make_roce(f, -1, roce_qp_num(s[0].qp));
	inject(a_in, f, n);
	n = (unsigned int)make_roce(f, 200, roce_qp_num(s[0].qp));
	inject(a_in, f, n);
	n = (unsigned int)make_roce(f, VID, roce_qp_num(s[0].qp));
	inject(a_in, f, n);
	for (i = 0; i < 4; i++)
		rte_pmd_ernic_poll(p0);
	CU_ASSERT(xstat(p0, "rx_roce") == roce0 + 1);
	CU_ASSERT(xstat(p0, "rx_non_roce") == nonroce0 + 2);
	n = rte_eth_rx_burst(p0, 0, m, RTE_DIM(m));
	CU_ASSERT(n == 2);
	rte_pktmbuf_free_bulk(m, n);

	/*
	 * Our RoCE frame as a chain whose pkt_len claims 8 bytes more than
	 * its segments hold, the headers split (the classifier and the
	 * parser gather them) or in the first segment: RoCE, then refused by
	 * the parser and counted, nothing read past the last segment.
	 */
	roce0 = xstat(p0, "rx_roce");
	trunc0 = xstat(p0, "roce_rx_drop_trunc_eth");
	n = (unsigned int)make_roce(f, VID, roce_qp_num(s[0].qp));
	for (i = 0; i < 2; i++) {
		struct rte_mbuf *c = test_mbuf_split(f, n, i == 0 ? 20 : 60);

		CU_ASSERT_FATAL(c != NULL);
		c->pkt_len += 8;
		CU_ASSERT_FATAL(rte_ring_enqueue(a_in, c) == 0);
	}
	for (i = 0; i < 4; i++)
		rte_pmd_ernic_poll(p0);
	CU_ASSERT(xstat(p0, "rx_roce") == roce0 + 2);
	CU_ASSERT(xstat(p0, "roce_rx_drop_trunc_eth") == trunc0 + 2);

	side_destroy(&s[0]);
	side_destroy(&s[1]);
	stop_ernic("net_ernic1", p1);
	stop_ernic("net_ernic0", p0);
}

/* ------------------------------------------------------------------ */
/* lcores=                                                            */
/* ------------------------------------------------------------------ */

static void
test_lcores(void)
{
	uint8_t f[128];
	uint32_t sid;
	struct rte_mbuf *m = NULL;
	uint64_t deadline;
	uint16_t port;
	size_t len;
	bool got = false;

	if (rte_lcore_count() < 3) {
		CU_FAIL("needs EAL lcores 0-2");
		return;
	}
	/* the main lcore and a disabled lcore cannot run workers */
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,lcores=0") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &port) == 0);
	CU_ASSERT(test_port_start(port) == -EINVAL);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,workers=2,lcores=[1,7]") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &port) == 0);
	CU_ASSERT(test_port_start(port) != 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT(rte_service_lcore_count() == 0);

	port = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,mac=02:00:00:00:00:01,workers=2,lcores=[1,2]");
	CU_ASSERT(rte_service_lcore_count() == 2);
	CU_ASSERT_FATAL(rte_service_get_by_name("net_ernic0_w0", &sid) == 0);
	CU_ASSERT(rte_service_map_lcore_get(sid, 1) == 1);
	CU_ASSERT(rte_service_map_lcore_get(sid, 2) == 0);
	CU_ASSERT_FATAL(rte_service_get_by_name("net_ernic0_w1", &sid) == 0);
	CU_ASSERT(rte_service_map_lcore_get(sid, 2) == 1);
	/* nobody polls inline: the service lcores answer the ARP request */
	len = make_arp(f, RTE_ARP_OP_REQUEST);
	inject(a_in, f, len);
	deadline = rte_get_timer_cycles() + 2 * rte_get_timer_hz();
	while (!got && rte_get_timer_cycles() < deadline) {
		if (rte_ring_dequeue(a_out, (void **)&m) == 0) {
			const uint8_t *h = rte_pktmbuf_mtod(m, const uint8_t *);

			got = h[12] == 0x08 && h[13] == 0x06 && h[21] == 2 &&
			      memcmp(h, peer_mac, 6) == 0;
			rte_pktmbuf_free(m);
		}
		rte_delay_us(100);
	}
	CU_ASSERT(got);
	CU_ASSERT(xstat(port, "tx_arp") >= 1);
	stop_ernic("net_ernic0", port);
	/* the lcores were ours alone: given back */
	CU_ASSERT(rte_service_lcore_count() == 0);
}

/* ------------------------------------------------------------------ */
/* telemetry                                                          */
/* ------------------------------------------------------------------ */

/* Send @p cmd to this process's telemetry socket; the reply in @p out. */
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

static void
test_telemetry(void)
{
	char cmd[64], out[16384], want[64];
	struct side s;
	uint16_t port;
	uint32_t qpn;

	port = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,mac=02:00:00:00:00:01");
	/* not polled inline: the telemetry thread may query the QP itself */
	side_create(&s, port, 64);
	qpn = roce_qp_num(s.qp);

	snprintf(cmd, sizeof(cmd), "/ernic/qp/list,%u", port);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	snprintf(want, sizeof(want), "{\"/ernic/qp/list\":[%u]}", qpn);
	CU_ASSERT(strcmp(out, want) == 0);
	if (strcmp(out, want) != 0)
		fprintf(stderr, "got %s, want %s\n", out, want);

	snprintf(cmd, sizeof(cmd), "/ernic/qp/info,%u,%u", port, qpn);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	snprintf(want, sizeof(want), "\"qpn\":%u", qpn);
	CU_ASSERT(strstr(out, want) != NULL);
	CU_ASSERT(strstr(out, "\"type\":\"RC\"") != NULL);
	CU_ASSERT(strstr(out, "\"state\":\"RESET\"") != NULL);
	CU_ASSERT(strstr(out, "\"worker\":0") != NULL);
	CU_ASSERT(strstr(out, "\"max_send_wr\":16") != NULL);
	/* without a port: the first net_ernic port */
	snprintf(cmd, sizeof(cmd), "/ernic/qp/info,%u", qpn);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	CU_ASSERT(strstr(out, want) != NULL);
	/* a QPN that does not exist, a bad parameter */
	snprintf(cmd, sizeof(cmd), "/ernic/qp/info,%u,%u", port, qpn + 1);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	CU_ASSERT(strcmp(out, "{\"/ernic/qp/info\":null}") == 0);
	CU_ASSERT_FATAL(telemetry("/ernic/qp/list,x", out, sizeof(out)) == 0);
	CU_ASSERT(strcmp(out, "{\"/ernic/qp/list\":null}") == 0);

	snprintf(cmd, sizeof(cmd), "/ernic/stats,%u", port);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	snprintf(want, sizeof(want), "\"port\":%u", port);
	CU_ASSERT(strstr(out, want) != NULL);
	CU_ASSERT(strstr(out, "\"rx_wire\":0") != NULL);
	snprintf(want, sizeof(want), "\"qp%u_tx_pkts\":0", qpn);
	CU_ASSERT(strstr(out, want) != NULL);

	side_destroy(&s);
	snprintf(cmd, sizeof(cmd), "/ernic/qp/list,%u", port);
	CU_ASSERT_FATAL(telemetry(cmd, out, sizeof(out)) == 0);
	CU_ASSERT(strcmp(out, "{\"/ernic/qp/list\":[]}") == 0);
	stop_ernic("net_ernic0", port);
}

/* ------------------------------------------------------------------ */
/* exception= host -> wire                                            */
/* ------------------------------------------------------------------ */

static int
if_up(const char *name)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (ret == 0) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret == 0 ? 0 : -errno;
}

static void
test_exception_host_to_wire(void)
{
	static const char marker[] = "softernic exception host->wire";
	struct sockaddr_ll sll;
	struct rte_mbuf *m;
	uint8_t f[128];
	uint16_t port;
	size_t len;
	bool seen = false;
	int fd, i;

	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "no /dev/net/tun: exception path not tested\n");
		return;
	}
	port = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,mac=02:00:00:00:00:01,exception=ernicx0");
	CU_ASSERT_FATAL(if_up("ernicx0") == 0);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	CU_ASSERT_FATAL(fd >= 0);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex("ernicx0");
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, peer_mac, 6);
	/* a frame of the host's own stack: local experimental ethertype */
	memcpy(f, peer_mac, 6);
	memcpy(f + 6, mac0, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(f + 14, marker, sizeof(marker));
	len = 14 + sizeof(marker) + 16;
	memset(f + 14 + sizeof(marker), 0, 16);
	CU_ASSERT_FATAL(sendto(fd, f, len, 0, (struct sockaddr *)&sll,
			       sizeof(sll)) == (ssize_t)len);
	close(fd);
	/* worker 0 moves it from the tap to the underlying port */
	for (i = 0; i < 2000 && !seen; i++) {
		rte_pmd_ernic_poll(port);
		while (rte_ring_dequeue(a_out, (void **)&m) == 0) {
			if (rte_pktmbuf_pkt_len(m) == len &&
			    memcmp(rte_pktmbuf_mtod(m, void *), f, len) == 0)
				seen = true;
			rte_pktmbuf_free(m);
		}
		if (!seen)
			rte_delay_us(200);
	}
	CU_ASSERT(seen);
	CU_ASSERT(xstat(port, "exception_from_host") >= 1);
	stop_ernic("net_ernic0", port);
}

/*
 * Count the ARP requests ernic0 sent for the peer since the last call:
 * broadcast ones (a new resolution) and unicast ones to the peer's MAC
 * (a refresh of an aged entry).
 */
static void
arp_requests_for(const uint8_t *tip, unsigned int *bcast, unsigned int *ucast)
{
	struct rte_mbuf *m;
	const uint8_t *h;

	*bcast = 0;
	*ucast = 0;
	while (rte_ring_dequeue(a_out, (void **)&m) == 0) {
		h = rte_pktmbuf_mtod(m, const uint8_t *);
		if (h[12] == 0x08 && h[13] == 0x06 && h[21] == 1 &&
		    memcmp(h + 38, tip, 4) == 0) {
			if (h[0] == 0xff)
				(*bcast)++;
			else if (memcmp(h, peer_mac, 6) == 0 &&
				 memcmp(h + 32, peer_mac, 6) == 0)
				(*ucast)++;
		}
		rte_pktmbuf_free(m);
	}
}

static void
arp_requests(unsigned int *bcast, unsigned int *ucast)
{
	arp_requests_for(peer_ip, bcast, ucast);
}

/* Poll @p port for @p ms milliseconds. */
static void
poll_for(uint16_t port, unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;

	while (rte_get_timer_cycles() < end) {
		rte_pmd_ernic_poll(port);
		rte_delay_us(200);
	}
}

/* neigh_reachable=1: refreshed by unicast ARP, expired when unanswered. */
static void
test_neigh_aging(void)
{
	union roce_gid g;
	uint8_t f[128], mac[6];
	unsigned int bc, uc;
	uint16_t port;
	size_t len;

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	memcpy(&g.raw[12], peer_ip, 4);
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1,neigh_reachable=0") != 0);
	port = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1,mac=02:00:00:00:00:01,neigh_reachable=1");
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == -EAGAIN);
	poll_for(port, 10);
	arp_requests(&bc, &uc);
	CU_ASSERT(bc == 1 && uc == 0);
	len = make_arp(f, RTE_ARP_OP_REPLY);
	inject(a_in, f, len);
	poll_for(port, 10);
	CU_ASSERT_FATAL(rte_pmd_ernic_resolve(port, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, peer_mac, 6) == 0);

	/* after 1 s: a unicast request to the known MAC, the MAC still used */
	poll_for(port, 1300);
	arp_requests(&bc, &uc);
	CU_ASSERT(bc == 0 && uc == 1);
	CU_ASSERT(xstat(port, "tx_neigh_refresh") == 1);
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == 0);
	/*
	 * answered: confirmed again, nothing more for a second. The answer
	 * arrives in the poll whose neighbour scan is due (150 ms without a
	 * poll make it due): the scan runs on that poll's clock, older than
	 * the confirmation's stamp, and must take the entry as fresh.
	 */
	rte_delay_ms(150);
	inject(a_in, f, len);
	rte_pmd_ernic_poll(port);
	poll_for(port, 500);
	arp_requests(&bc, &uc);
	CU_ASSERT(bc == 0 && uc == 0);
	CU_ASSERT(xstat(port, "tx_neigh_refresh") == 1);

	/* unanswered: 3 unicast requests a second apart, then forgotten */
	poll_for(port, 4300);
	arp_requests(&bc, &uc);
	CU_ASSERT(bc == 0 && uc == 3);
	CU_ASSERT(xstat(port, "neigh_expired") == 1);
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == -EAGAIN);
	poll_for(port, 10);
	arp_requests(&bc, &uc);
	CU_ASSERT(bc == 1);	/* a new resolution */
	stop_ernic("net_ernic0", port);
}

static void
gid4(union roce_gid *g, const uint8_t *ip)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], ip, 4);
}

/* gw=: off-prefix destinations resolve to the gateway's MAC. */
static void
test_gateway(void)
{
	static const uint8_t far_ip[4] = { 198, 19, 5, 5 };
	static const uint8_t near_ip[4] = { 198, 18, 0, 77 };
	union roce_gid g;
	uint8_t f[128], mac[6];
	unsigned int bc, uc;
	uint16_t port;

	/* the gateway must be a neighbour inside ip=a.b.c.d/len */
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1,gw=198.18.0.99") != 0);
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1/24,gw=198.18.1.99") != 0);
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1/24,gw=198.18.0.1") != 0);
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_fA,ip=198.18.0.1/33") != 0);
	port = start_ernic("net_ernic0",
		"port=net_ring_fA,ip=198.18.0.1/24,mac=02:00:00:00:00:01,gw=198.18.0.99");
	gid4(&g, far_ip);
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == -EAGAIN);
	poll_for(port, 10);
	arp_requests(&bc, &uc);		/* asked for the gateway */
	CU_ASSERT(bc == 1);
	inject(a_in, f, make_arp(f, RTE_ARP_OP_REPLY));
	poll_for(port, 10);
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, peer_mac, 6) == 0);
	/* on-link: asked for itself */
	gid4(&g, near_ip);
	CU_ASSERT(rte_pmd_ernic_resolve(port, &g, mac) == -EAGAIN);
	poll_for(port, 10);
	arp_requests_for(near_ip, &bc, &uc);
	CU_ASSERT(bc == 1);
	stop_ernic("net_ernic0", port);
}

static CU_TestInfo feature_tests[] = {
	{ "vlan=: tagged frames both ways, other VLANs to the application", test_vlan },
	{ "lcores=: workers on service lcores", test_lcores },
	{ "telemetry /ernic/qp/list, /ernic/qp/info, /ernic/stats", test_telemetry },
	{ "exception=: host frames go out of the underlying port", test_exception_host_to_wire },
	{ "neighbours age out and are refreshed by ARP", test_neigh_aging },
	{ "gw=: off-prefix destinations through the gateway", test_gateway },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd_features", suite_init, NULL, NULL, NULL, feature_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	char prefix[64], dir[256];
	char *args[] = {
		argv[0], (char *)"--no-huge", (char *)"-m", (char *)"512",
		(char *)"--no-pci", (char *)"--log-level=lib.eal:error",
		(char *)"--lcores=0@(0-1),1@(0-1),2@(0-1)",
		(char *)"--file-prefix", prefix,
	};
	int ret;

	RTE_SET_USED(argc);
	/* a runtime directory (and telemetry socket) of our own */
	snprintf(prefix, sizeof(prefix), "ernicfeat%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(args), args) < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	ret = test_run(suites);
	rte_eal_cleanup();
	/* what the EAL leaves in it */
	if (strstr(dir, prefix) != NULL) {
		char cmd[320];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
	return ret;
}
