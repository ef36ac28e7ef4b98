/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic PMD: devargs, ownership, GID table, ARP/ND answers, the
 * RoCE/non-RoCE split, handoff between workers, neighbour resolution
 * between two ernic ports over a crossed pair of net_ring ports:
 *
 *   ringA: rx <- r_ba, tx -> r_ab        ringB: rx <- r_ab, tx -> r_ba
 *   net_ernic0 on ringA (2 workers)      net_ernic1 on ringB
 *
 * test_qp_xstats runs an RDMA WRITE between the two ports (QP counters).
 * Tests that look at one port alone inject frames into r_ba (ringA's RX)
 * and read ernic0's output from r_ab without polling ernic1.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "rte_pmd_ernic.h"
#include "test_common.h"
#include "test_pmd_pair.h"

static struct rte_ring *r_ab, *r_ba;
static uint16_t ring_a, ring_b, ern0, ern1;
static bool started;

static const uint8_t mac0[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t mac1[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const uint8_t ip0[4] = { 198, 18, 0, 1 };
static const uint8_t peer_ip[4] = { 198, 18, 0, 99 };
/* 2001:2::/48 is the IPv6 benchmarking range (RFC 5180), as 198.18/15 */
static const uint8_t ip6_0[16] = { 0x20, 0x01, 0, 2, [15] = 1 };
static const uint8_t peer_ip6[16] = { 0x20, 0x01, 0, 2, [15] = 0x99 };

/* ------------------------------------------------------------------ */
/* helpers                                                            */
/* ------------------------------------------------------------------ */

static char *log_buf;
static size_t log_len;
static FILE *log_f;

static void
log_capture_start(void)
{
	free(log_buf);
	log_buf = NULL;
	log_f = open_memstream(&log_buf, &log_len);
	rte_openlog_stream(log_f);
}

static const char *
log_capture_end(void)
{
	rte_openlog_stream(NULL);
	fclose(log_f);
	return log_buf != NULL ? log_buf : "";
}

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
poll_n(uint16_t port, int n)
{
	while (n-- > 0)
		rte_pmd_ernic_poll(port);
}

static void
inject(const uint8_t *f, size_t len)
{
	struct rte_mbuf *m = test_mbuf_from(f, len, 0);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_ring_enqueue(r_ba, m) == 0);
}

/* Frames ernic0 sent (read from ringA's TX ring). */
static unsigned int
take_out(struct rte_mbuf **pkts, unsigned int max)
{
	return rte_ring_dequeue_burst(r_ab, (void **)pkts, max, NULL);
}

static void
drain_rings(void)
{
	void *m;

	while (rte_ring_dequeue(r_ab, &m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(r_ba, &m) == 0)
		rte_pktmbuf_free(m);
}

static size_t
put_eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	return 14;
}

static size_t
put_ipv4_udp(uint8_t *f, const uint8_t *src, const uint8_t *dst,
	     uint16_t dport, size_t payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	put_eth(f, mac0, peer_mac, RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + 8 + payload);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	memcpy(&ip->src_addr, src, 4);
	memcpy(&ip->dst_addr, dst, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = RTE_BE16(49152);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16(8 + payload);
	udp->dgram_cksum = 0;
	return 14 + 20 + 8;
}

/* A RoCEv2 RC SEND_ONLY (4 payload bytes) to @p dst, QP @p dqpn, valid ICRC. */
static size_t
make_roce(uint8_t *f, const uint8_t *dst, uint32_t dqpn)
{
	size_t off = put_ipv4_udp(f, peer_ip, dst, ROCE_UDP_PORT,
				  ROCE_BTH_LEN + 4 + ROCE_ICRC_LEN);
	struct roce_bth *bth = (struct roce_bth *)(f + off);

	memset(bth, 0, sizeof(*bth));
	roce_bth_set_opcode(bth, ROCE_OP_RC_SEND_ONLY);
	roce_bth_set_pkey(bth, 0xffff);
	roce_bth_set_dqpn(bth, dqpn);
	roce_bth_set_psn(bth, 0);
	memset(f + off + ROCE_BTH_LEN, 0xab, 4);
	off += ROCE_BTH_LEN + 4 + ROCE_ICRC_LEN;
	CU_ASSERT(roce_icrc_fill(f, 14, (uint32_t)off) == 0);
	return off;
}

static bool
port_visible(uint16_t port)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid)
		if (pid == port)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* suite setup                                                        */
/* ------------------------------------------------------------------ */

static int
suite_init(void)
{
	struct rte_ring *rx_a[1], *tx_a[1], *rx_b[1], *tx_b[1];
	int a, b;

	r_ab = rte_ring_create("t_ab", 4096, 0, 0);
	r_ba = rte_ring_create("t_ba", 4096, 0, 0);
	if (r_ab == NULL || r_ba == NULL)
		return -1;
	rx_a[0] = r_ba;
	tx_a[0] = r_ab;
	rx_b[0] = r_ab;
	tx_b[0] = r_ba;
	a = rte_eth_from_rings("ringA", rx_a, 1, tx_a, 1, 0);
	b = rte_eth_from_rings("ringB", rx_b, 1, tx_b, 1, 0);
	if (a < 0 || b < 0)
		return -1;
	ring_a = (uint16_t)a;
	ring_b = (uint16_t)b;
	return 0;
}

/* ------------------------------------------------------------------ */
/* tests                                                              */
/* ------------------------------------------------------------------ */

static void
test_devargs_bad(void)
{
	static const struct {
		const char *args;
		const char *log;
	} bad[] = {
		{ "", "missing devarg port=" },
		{ "ip=198.18.0.1", "missing devarg port=" },
		{ "port=nosuch0,ip=198.18.0.1", "port=nosuch0: no such ethdev" },
		{ "port=net_ring_ringA,ip=198.18.0.300", "bad devarg ip=198.18.0.300" },
		{ "port=net_ring_ringA,ip=224.0.0.1", "bad devarg ip=224.0.0.1" },
		{ "port=net_ring_ringA,ip6=2001:2::zz", "bad devarg ip6=2001:2::zz" },
		{ "port=net_ring_ringA,pmtu=100", "bad devarg pmtu=100" },
		{ "port=net_ring_ringA,pmtu=1000", "bad devarg pmtu=1000" },
		{ "port=net_ring_ringA,workers=0", "bad devarg workers=0" },
		{ "port=net_ring_ringA,workers=17", "bad devarg workers=17" },
		{ "port=net_ring_ringA,max_qps=70000", "bad devarg max_qps=70000" },
		{ "port=net_ring_ringA,mac=01:00:5e:00:00:01", "bad devarg mac=" },
		{ "port=net_ring_ringA,vlan=4095", "bad devarg vlan=4095" },
		{ "port=net_ring_ringA,ack_pkts=0", "bad devarg ack_pkts=0" },
		{ "port=net_ring_ringA,ack_us=65536", "bad devarg ack_us=65536" },
		{ "port=net_ring_ringA,sr=1", "bad devarg sr=1: expected on" },
		{ "port=net_ring_ringA,lcores=[3-1]", "bad devarg lcores=" },
		{ "port=net_ring_ringA,exception=this_name_is_too_long", "bad devarg exception=" },
		{ "port=net_ring_ringA,colour=blue", "unknown devarg \"colour\"" },
		{ "port=net_ring_ringA,ip=198.18.0.1,ip=198.18.0.2", "ip= given more than once" },
	};
	unsigned int i;
	uint16_t pid;

	for (i = 0; i < RTE_DIM(bad); i++) {
		const char *log;
		int ret;

		log_capture_start();
		ret = rte_vdev_init("net_ernic9", bad[i].args);
		log = log_capture_end();
		CU_ASSERT(ret < 0);
		if (strstr(log, bad[i].log) == NULL) {
			fprintf(stderr, "devargs \"%s\": log lacks \"%s\":\n%s\n",
				bad[i].args, bad[i].log, log);
			CU_FAIL("probe log does not name the bad devarg");
		}
		CU_ASSERT(rte_eth_dev_get_port_by_name("net_ernic9", &pid) != 0);
		/* a failed probe leaves the underlying port alone */
		CU_ASSERT(port_visible(ring_a));
	}
}

static void
test_probe_ownership(void)
{
	struct rte_eth_dev_owner o;
	struct rte_ether_addr m;
	const char *log;
	int ret;

	ret = rte_vdev_init("net_ernic0",
			    "port=net_ring_ringA,ip=198.18.0.1,ip6=2001:2::1,mac=02:00:00:00:00:01,workers=2,pmtu=1024");
	CU_ASSERT_FATAL(ret == 0);
	ret = rte_vdev_init("net_ernic1", "port=net_ring_ringB,ip=198.18.0.2,mac=02:00:00:00:00:02");
	CU_ASSERT_FATAL(ret == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &ern0) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic1", &ern1) == 0);

	/* applications see the ernic ports, not the ports they own */
	CU_ASSERT(port_visible(ern0));
	CU_ASSERT(port_visible(ern1));
	CU_ASSERT(!port_visible(ring_a));
	CU_ASSERT(!port_visible(ring_b));
	CU_ASSERT(rte_eth_dev_owner_get(ring_a, &o) == 0);
	CU_ASSERT(strcmp(o.name, "net_ernic0") == 0);
	CU_ASSERT(rte_pmd_ernic_underlying_port(ern0) == ring_a);
	CU_ASSERT(rte_pmd_ernic_underlying_port(ring_a) == -ENODEV);
	CU_ASSERT(rte_pmd_ernic_nb_workers(ern0) == 2);
	CU_ASSERT(rte_pmd_ernic_nb_workers(ern1) == 1);
	CU_ASSERT(rte_eth_macaddr_get(ern0, &m) == 0);
	CU_ASSERT(memcmp(m.addr_bytes, mac0, 6) == 0);

	/* an owned port cannot be taken twice */
	log_capture_start();
	ret = rte_vdev_init("net_ernic8", "port=net_ring_ringA,ip=198.18.0.3");
	log = log_capture_end();
	CU_ASSERT(ret < 0);
	CU_ASSERT(strstr(log, "owned by \"net_ernic0\"") != NULL);
	/* nor can a net_ernic port carry another */
	log_capture_start();
	ret = rte_vdev_init("net_ernic8", "port=net_ernic1,ip=198.18.0.3");
	log = log_capture_end();
	CU_ASSERT(ret < 0);
	CU_ASSERT(strstr(log, "cannot carry another") != NULL);
}

static void
test_gid_table(void)
{
	static const uint8_t ll0[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 };
	static const uint8_t v4_0[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1 };
	union roce_gid g;

	CU_ASSERT(rte_pmd_ernic_gid(ern0, 0, &g) == 0);
	CU_ASSERT(memcmp(g.raw, ll0, 16) == 0);
	CU_ASSERT(rte_pmd_ernic_gid(ern0, 1, &g) == 0);
	CU_ASSERT(memcmp(g.raw, v4_0, 16) == 0);
	CU_ASSERT(rte_pmd_ernic_gid(ern0, 2, &g) == 0);
	CU_ASSERT(memcmp(g.raw, ip6_0, 16) == 0);
	CU_ASSERT(rte_pmd_ernic_gid(ern0, 3, &g) == -ENOENT);
	/* ernic1 has no ip6=: two entries */
	CU_ASSERT(rte_pmd_ernic_gid(ern1, 1, &g) == 0);
	CU_ASSERT(g.raw[15] == 2 && g.raw[10] == 0xff);
	CU_ASSERT(rte_pmd_ernic_gid(ern1, 2, &g) == -ENOENT);
	CU_ASSERT(rte_pmd_ernic_gid(ring_a, 0, &g) == -ENODEV);
}

static void
test_start(void)
{
	CU_ASSERT_FATAL(rte_pmd_ernic_get_device(ern0) == NULL);
	CU_ASSERT_FATAL(rte_pmd_ernic_poll(ern0) == -ENOEXEC);
	CU_ASSERT_FATAL(test_port_start(ern0) == 0);
	CU_ASSERT_FATAL(test_port_start(ern1) == 0);
	started = true;
	CU_ASSERT(rte_pmd_ernic_get_device(ern0) != NULL);
	CU_ASSERT(rte_pmd_ernic_get_worker(ern0, 0) != NULL);
	CU_ASSERT(rte_pmd_ernic_get_worker(ern0, 1) != NULL);
	CU_ASSERT(rte_pmd_ernic_get_worker(ern0, 2) == NULL);
	CU_ASSERT(rte_pmd_ernic_pick_worker(ern0) !=
		  rte_pmd_ernic_pick_worker(ern0));
	CU_ASSERT(rte_pmd_ernic_poll(ern0) == 2);
	CU_ASSERT(xstat(ern0, "rx_roce") == 0);
	CU_ASSERT(xstat(ern0, "roce_rx_pkts") == 0);
}

static void
test_arp_reply(void)
{
	uint8_t f[64];
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(f + 14);
	struct rte_mbuf *out[8];
	const struct rte_arp_hdr *r;
	const uint8_t *e;
	union roce_gid g;
	uint8_t mac[6];
	unsigned int n;

	CU_ASSERT_FATAL(started);
	memset(f, 0, sizeof(f));
	put_eth(f, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", peer_mac,
		RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = 6;
	arp->arp_plen = 4;
	arp->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	memcpy(&arp->arp_data.arp_sha, peer_mac, 6);
	memcpy(&arp->arp_data.arp_sip, peer_ip, 4);
	memcpy(&arp->arp_data.arp_tip, ip0, 4);
	inject(f, 60);
	poll_n(ern0, 4);

	n = take_out(out, RTE_DIM(out));
	CU_ASSERT_FATAL(n == 1);
	e = rte_pktmbuf_mtod(out[0], const uint8_t *);
	r = (const struct rte_arp_hdr *)(e + 14);
	CU_ASSERT(memcmp(e, peer_mac, 6) == 0);
	CU_ASSERT(memcmp(e + 6, mac0, 6) == 0);
	CU_ASSERT(e[12] == 0x08 && e[13] == 0x06);
	CU_ASSERT(r->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY));
	CU_ASSERT(r->arp_hardware == RTE_BE16(RTE_ARP_HRD_ETHER));
	CU_ASSERT(r->arp_protocol == RTE_BE16(RTE_ETHER_TYPE_IPV4));
	CU_ASSERT(memcmp(&r->arp_data.arp_sha, mac0, 6) == 0);
	CU_ASSERT(memcmp(&r->arp_data.arp_sip, ip0, 4) == 0);
	CU_ASSERT(memcmp(&r->arp_data.arp_tha, peer_mac, 6) == 0);
	CU_ASSERT(memcmp(&r->arp_data.arp_tip, peer_ip, 4) == 0);
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT(xstat(ern0, "rx_arp") == 1);
	CU_ASSERT(xstat(ern0, "tx_arp") == 1);
	/* nothing for the application */
	CU_ASSERT(rte_eth_rx_burst(ern0, 0, out, 8) == 0);

	/* RFC 826: the requester was learnt */
	memset(&g, 0, sizeof(g));
	g.raw[10] = g.raw[11] = 0xff;
	memcpy(&g.raw[12], peer_ip, 4);
	CU_ASSERT(rte_pmd_ernic_resolve(ern0, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, peer_mac, 6) == 0);

	/* an ARP request for another address is the application's */
	memcpy(&arp->arp_data.arp_tip, peer_ip, 4);
	inject(f, 60);
	poll_n(ern0, 2);
	CU_ASSERT(take_out(out, RTE_DIM(out)) == 0);
	n = rte_eth_rx_burst(ern0, 0, out, 8);
	CU_ASSERT(n == 1);
	rte_pktmbuf_free_bulk(out, n);
}

/* An NS from the peer for @p target, with hop limit @p hop. */
static size_t
make_ns(uint8_t *f, const uint8_t *target, uint8_t hop)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint8_t dmac[6] = { 0x33, 0x33, 0xff, target[13], target[14],
			    target[15] };
	uint16_t ck;

	memset(f, 0, 14 + 40 + 32);
	put_eth(f, dmac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = RTE_BE16(32);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = hop;
	memcpy(ip->src_addr, peer_ip6, 16);
	ip->dst_addr[0] = 0xff;
	ip->dst_addr[1] = 0x02;
	ip->dst_addr[11] = 0x01;
	ip->dst_addr[12] = 0xff;
	memcpy(ip->dst_addr + 13, target + 13, 3);
	icmp[0] = 135;
	memcpy(icmp + 8, target, 16);
	icmp[24] = 1;		/* source link-layer address */
	icmp[25] = 1;
	memcpy(icmp + 26, peer_mac, 6);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
	return 14 + 40 + 32;
}

static void
test_nd_advert(void)
{
	uint8_t f[128];
	struct rte_mbuf *out[8];
	const struct rte_ipv6_hdr *ip;
	const uint8_t *e, *icmp;
	union roce_gid g;
	uint8_t mac[6];
	unsigned int n;
	size_t len;

	CU_ASSERT_FATAL(started);
	len = make_ns(f, ip6_0, 255);
	inject(f, len);
	poll_n(ern0, 4);
	n = take_out(out, RTE_DIM(out));
	CU_ASSERT_FATAL(n == 1);
	e = rte_pktmbuf_mtod(out[0], const uint8_t *);
	ip = (const struct rte_ipv6_hdr *)(e + 14);
	icmp = (const uint8_t *)(ip + 1);
	CU_ASSERT(rte_pktmbuf_pkt_len(out[0]) == 14 + 40 + 32);
	CU_ASSERT(memcmp(e, peer_mac, 6) == 0);
	CU_ASSERT(memcmp(e + 6, mac0, 6) == 0);
	CU_ASSERT(e[12] == 0x86 && e[13] == 0xdd);
	CU_ASSERT(ip->proto == IPPROTO_ICMPV6);
	CU_ASSERT(ip->hop_limits == 255);
	CU_ASSERT(memcmp(ip->src_addr, ip6_0, 16) == 0);
	CU_ASSERT(memcmp(ip->dst_addr, peer_ip6, 16) == 0);
	CU_ASSERT(icmp[0] == 136 && icmp[1] == 0);
	CU_ASSERT(icmp[4] == 0x60);		/* Solicited | Override */
	CU_ASSERT(memcmp(icmp + 8, ip6_0, 16) == 0);
	CU_ASSERT(icmp[24] == 2 && icmp[25] == 1);
	CU_ASSERT(memcmp(icmp + 26, mac0, 6) == 0);
	CU_ASSERT(rte_ipv6_udptcp_cksum_verify(ip, icmp) == 0);
	rte_pktmbuf_free_bulk(out, n);
	CU_ASSERT(xstat(ern0, "rx_nd") == 1);
	CU_ASSERT(xstat(ern0, "tx_nd") == 1);

	/* the soliciting peer was learnt */
	memcpy(g.raw, peer_ip6, 16);
	CU_ASSERT(rte_pmd_ernic_resolve(ern0, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, peer_mac, 6) == 0);

	/* RFC 4861 7.1.1: hop limit other than 255 -> dropped and counted */
	len = make_ns(f, ip6_0, 64);
	inject(f, len);
	poll_n(ern0, 4);
	CU_ASSERT(take_out(out, RTE_DIM(out)) == 0);
	CU_ASSERT(xstat(ern0, "rx_drop_nd_invalid") == 1);
}

static void
test_passthrough(void)
{
	uint8_t f[6][200];
	size_t len[6];
	struct rte_mbuf *m[16], *tx[6];
	uint64_t roce0 = xstat(ern0, "rx_roce");
	uint64_t nonroce0 = xstat(ern0, "rx_non_roce");
	unsigned int i, n;

	CU_ASSERT_FATAL(started);
	memset(f, 0, sizeof(f));
	/* 0: UDP to our IPv4, DNS port */
	len[0] = put_ipv4_udp(f[0], peer_ip, ip0, 53, 20) + 20;
	/* 1: UDP 4791 to another IPv4 address: not ours */
	len[1] = make_roce(f[1], (const uint8_t[]){ 198, 18, 0, 50 }, 0x11);
	/* 2: a raw ethertype (local experimental 0x88b5) */
	len[2] = put_eth(f[2], mac0, peer_mac, 0x88b5) + 46;
	memset(f[2] + 14, 0x5a, 46);
	/* 3: an 802.1Q tagged RoCE frame while the port has no vlan= */
	len[3] = make_roce(f[3], ip0, 0x11);
	memmove(f[3] + 16, f[3] + 12, len[3] - 12);
	f[3][12] = 0x81;
	f[3][13] = 0x00;
	f[3][14] = 0x00;
	f[3][15] = 0x07;
	len[3] += 4;
	/* 4: IPv4 TCP SYN-ish to our address */
	len[4] = put_ipv4_udp(f[4], peer_ip, ip0, 22, 20) + 20;
	f[4][14 + 9] = IPPROTO_TCP;
	/* 5: broadcast of another protocol, 199 bytes */
	len[5] = put_eth(f[5], (const uint8_t *)"\xff\xff\xff\xff\xff\xff",
			 peer_mac, 0x88b6) + 185;
	for (i = 0; i < 6; i++)
		inject(f[i], len[i]);
	poll_n(ern0, 4);

	/* delivered in order, byte for byte */
	n = rte_eth_rx_burst(ern0, 0, m, RTE_DIM(m));
	CU_ASSERT_FATAL(n == 6);
	for (i = 0; i < n; i++) {
		CU_ASSERT(rte_pktmbuf_pkt_len(m[i]) == len[i]);
		CU_ASSERT(memcmp(rte_pktmbuf_mtod(m[i], void *), f[i],
				 len[i]) == 0);
	}
	rte_pktmbuf_free_bulk(m, n);
	CU_ASSERT(xstat(ern0, "rx_roce") == roce0);
	CU_ASSERT(xstat(ern0, "rx_non_roce") == nonroce0 + 6);
	CU_ASSERT(take_out(m, RTE_DIM(m)) == 0);

	/* and the other way: tx_burst frames leave the underlying port intact */
	for (i = 0; i < 6; i++) {
		tx[i] = test_mbuf_from(f[i], len[i], i == 5 ? 64 : 0);
		CU_ASSERT_FATAL(tx[i] != NULL);
	}
	CU_ASSERT(rte_eth_tx_burst(ern0, 0, tx, 6) == 6);
	poll_n(ern0, 4);
	n = take_out(m, RTE_DIM(m));
	CU_ASSERT_FATAL(n == 6);
	for (i = 0; i < n; i++) {
		uint8_t buf[256];
		const void *d;

		CU_ASSERT(rte_pktmbuf_pkt_len(m[i]) == len[i]);
		d = rte_pktmbuf_read(m[i], 0, len[i], buf);
		CU_ASSERT(d != NULL && memcmp(d, f[i], len[i]) == 0);
	}
	rte_pktmbuf_free_bulk(m, n);
	CU_ASSERT(xstat(ern0, "tx_app") == 6);
}

/*
 * RoCE frames to @p port's address @p ip, injected on @p rx (the ring its
 * underlying port reads): one for no QP, one malformed (IPv4 checksum).
 * The parser refuses the second, the PMD's own classifier still sees RoCE
 * to us, the worker counts why it drops it. ern0 has two workers (the
 * classifier runs first), ern1 one (the parser runs first).
 */
static void
roce_to_worker(uint16_t port, const uint8_t *ip, struct rte_ring *rx,
	       struct rte_ring *tx)
{
	uint8_t f[128];
	struct rte_mbuf *m[8];
	uint64_t roce0 = xstat(port, "rx_roce");
	uint64_t wrx0 = xstat(port, "roce_rx_pkts");
	uint64_t unk0 = xstat(port, "roce_rx_drop_unknown_qpn");
	uint64_t csum0 = xstat(port, "roce_rx_drop_ip_csum");
	size_t len;
	int k;

	CU_ASSERT_FATAL(started);
	for (k = 0; k < 2; k++) {
		len = make_roce(f, ip, 0x123);		/* no such QP */
		if (k == 1)
			f[ROCE_ETH_HLEN + 10] ^= 0xff;
		m[0] = test_mbuf_from(f, len, 0);
		CU_ASSERT_FATAL(m[0] != NULL);
		CU_ASSERT_FATAL(rte_ring_enqueue(rx, m[0]) == 0);
		poll_n(port, 4);
		CU_ASSERT(rte_eth_rx_burst(port, 0, m, 8) == 0);
		CU_ASSERT(rte_ring_dequeue_burst(tx, (void **)m, 8, NULL) == 0);
		CU_ASSERT(xstat(port, "rx_roce") == roce0 + k + 1);
		CU_ASSERT(xstat(port, "roce_rx_pkts") == wrx0 + k + 1);
		CU_ASSERT(xstat(port, "roce_rx_drop_unknown_qpn") == unk0 + 1);
		CU_ASSERT(xstat(port, "roce_rx_drop_ip_csum") == csum0 + k);
	}
}

static void
test_roce_to_worker(void)
{
	static const uint8_t ip1[4] = { 198, 18, 0, 2 };

	roce_to_worker(ern0, ip0, r_ba, r_ab);
	roce_to_worker(ern1, ip1, r_ab, r_ba);
}

/* Frames for a QP of worker 1 read by worker 0 are handed to worker 1. */
static void
test_handoff(void)
{
	struct roce_qp_init_attr ia;
	struct roce_device *dev = rte_pmd_ernic_get_device(ern0);
	struct roce_worker *w1 = rte_pmd_ernic_get_worker(ern0, 1);
	struct roce_pd *pd;
	struct roce_cq *cq, *cq0;
	struct roce_qp *qp, *qp0;
	uint8_t f[128];
	uint64_t unk0;
	int i;
	uint64_t h0 = xstat(ern0, "rx_roce_handoff");
	uint64_t other0 = xstat(ern0, "roce_rx_drop_qp_other_worker");
	uint64_t rst0 = xstat(ern0, "roce_rx_drop_qp_reset_init");
	size_t len;

	CU_ASSERT_FATAL(dev != NULL && w1 != NULL);
	pd = roce_alloc_pd(dev);
	CU_ASSERT_FATAL(pd != NULL);
	cq = roce_create_cq(w1, 64);
	CU_ASSERT_FATAL(cq != NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = roce_create_qp(pd, &ia);
	CU_ASSERT_FATAL(qp != NULL);

	len = make_roce(f, ip0, roce_qp_num(qp));
	inject(f, len);
	poll_n(ern0, 4);
	CU_ASSERT(xstat(ern0, "rx_roce_handoff") == h0 + 1);
	/* the owner got it: dropped for the QP state, not the wrong worker */
	CU_ASSERT(xstat(ern0, "roce_rx_drop_qp_other_worker") == other0);
	CU_ASSERT(xstat(ern0, "roce_rx_drop_qp_reset_init") == rst0 + 1);

	/*
	 * One burst: worker 1's frames, handed over together at its end,
	 * between frames worker 0 keeps (its own QP, an unknown QPN).
	 */
	ia.send_cq = ia.recv_cq = cq0 = roce_create_cq(
		rte_pmd_ernic_get_worker(ern0, 0), 64);
	CU_ASSERT_FATAL(cq0 != NULL);
	qp0 = roce_create_qp(pd, &ia);
	CU_ASSERT_FATAL(qp0 != NULL);
	h0 = xstat(ern0, "rx_roce_handoff");
	rst0 = xstat(ern0, "roce_rx_drop_qp_reset_init");
	unk0 = xstat(ern0, "roce_rx_drop_unknown_qpn");
	for (i = 0; i < 7; i++) {
		uint32_t dqpn = i % 3 == 0 ? roce_qp_num(qp) :
				i % 3 == 1 ? roce_qp_num(qp0) : 0xfff0u + i;

		len = make_roce(f, ip0, dqpn);
		inject(f, len);
	}
	poll_n(ern0, 4);
	CU_ASSERT(xstat(ern0, "rx_roce_handoff") == h0 + 3);
	CU_ASSERT(xstat(ern0, "roce_rx_drop_qp_reset_init") == rst0 + 5);
	CU_ASSERT(xstat(ern0, "roce_rx_drop_unknown_qpn") == unk0 + 2);
	CU_ASSERT(xstat(ern0, "roce_rx_drop_qp_other_worker") == other0);

	CU_ASSERT(roce_destroy_qp(qp0) == 0);
	CU_ASSERT(roce_destroy_cq(cq0) == 0);
	CU_ASSERT(roce_destroy_qp(qp) == 0);
	CU_ASSERT(roce_destroy_cq(cq) == 0);
	CU_ASSERT(roce_dealloc_pd(pd) == 0);
}

static int
resolve_loop(uint16_t port, const union roce_gid *g, uint8_t *mac,
	     unsigned int max_ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * max_ms / 1000;
	int ret;

	do {
		ret = rte_pmd_ernic_resolve(port, g, mac);
		if (ret != -EAGAIN)
			return ret;
		poll_n(ern0, 2);
		poll_n(ern1, 2);
		rte_delay_us_sleep(1000);
	} while (rte_get_tsc_cycles() < end);
	return ret;
}

static void
test_resolve(void)
{
	union roce_gid g;
	uint8_t mac[6];

	CU_ASSERT_FATAL(started);
	drain_rings();
	/* IPv4: ARP from ernic0, answered by ernic1 */
	CU_ASSERT_FATAL(rte_pmd_ernic_gid(ern1, 1, &g) == 0);
	CU_ASSERT(rte_pmd_ernic_resolve(ern0, &g, mac) == -EAGAIN);
	CU_ASSERT(resolve_loop(ern0, &g, mac, 2000) == 0);
	CU_ASSERT(memcmp(mac, mac1, 6) == 0);
	/* ernic1 learnt ernic0 from the request */
	CU_ASSERT_FATAL(rte_pmd_ernic_gid(ern0, 1, &g) == 0);
	CU_ASSERT(rte_pmd_ernic_resolve(ern1, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, mac0, 6) == 0);

	/* IPv6: NS for ernic1's link-local GID, NA back */
	CU_ASSERT_FATAL(rte_pmd_ernic_gid(ern1, 0, &g) == 0);
	CU_ASSERT(resolve_loop(ern0, &g, mac, 2000) == 0);
	CU_ASSERT(memcmp(mac, mac1, 6) == 0);
	/* and the reverse direction to ernic0's global IPv6 GID */
	CU_ASSERT_FATAL(rte_pmd_ernic_gid(ern0, 2, &g) == 0);
	CU_ASSERT(resolve_loop(ern1, &g, mac, 2000) == 0);
	CU_ASSERT(memcmp(mac, mac0, 6) == 0);

	/* a local GID resolves to the port's own MAC */
	CU_ASSERT(rte_pmd_ernic_resolve(ern0, &g, mac) == 0);
	CU_ASSERT(memcmp(mac, mac0, 6) == 0);

	/* nobody answers: 3 requests one second apart, then unreachable */
	memset(&g, 0, sizeof(g));
	g.raw[10] = g.raw[11] = 0xff;
	g.raw[12] = 198;
	g.raw[13] = 18;
	g.raw[14] = 0;
	g.raw[15] = 123;
	CU_ASSERT(resolve_loop(ern0, &g, mac, 5000) == -EHOSTUNREACH);
	CU_ASSERT(xstat(ern0, "tx_arp") >= 1 + 1 + 3);
}

/* true when @p port has an xstat named @p name */
static bool
has_xstat_name(uint16_t port, const char *name)
{
	struct rte_eth_xstat_name *names;
	bool found = false;
	int n, i;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return false;
	names = calloc(n, sizeof(*names));
	if (names == NULL)
		return false;
	if (rte_eth_xstats_get_names(port, names, n) == n)
		for (i = 0; i < n && !found; i++)
			found = strcmp(names[i].name, name) == 0;
	free(names);
	return found;
}

static uint64_t
qp_xstat(uint16_t port, uint32_t qpn, const char *counter)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];

	snprintf(name, sizeof(name), "qp%u_%s", qpn, counter);
	return xstat(port, name);
}

/* An RDMA WRITE between ernic0 and ernic1: per-QP and CM xstats. */
static void
test_qp_xstats(void)
{
	enum { LEN = 4096 };
	struct roce_device *d0 = rte_pmd_ernic_get_device(ern0);
	struct roce_device *d1 = rte_pmd_ernic_get_device(ern1);
	struct roce_qp_init_attr ia;
	struct roce_qp_attr qa;
	struct roce_pd *pd[2];
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	struct roce_mr *mr[2];
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	uint8_t *buf[2];
	uint32_t qpn0, qpn1;
	int i, done = 0, n0, n1;

	CU_ASSERT_FATAL(started && d0 != NULL && d1 != NULL);
	CU_ASSERT(rte_pmd_ernic_pmtu(ern0) == 1024);
	CU_ASSERT(rte_pmd_ernic_pmtu(ring_b) == -ENODEV);
	n0 = rte_eth_xstats_get_names(ern0, NULL, 0);
	/* CM counters of the started port */
	CU_ASSERT(xstat(ern0, "cm_rx_req") == 0);
	CU_ASSERT(has_xstat_name(ern0, "mad_rx"));

	for (i = 0; i < 2; i++) {
		pd[i] = roce_alloc_pd(i == 0 ? d0 : d1);
		CU_ASSERT_FATAL(pd[i] != NULL);
		cq[i] = roce_create_cq(rte_pmd_ernic_get_worker(i == 0 ?
							ern0 : ern1, 0), 64);
		CU_ASSERT_FATAL(cq[i] != NULL);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = ROCE_QPT_RC;
		ia.send_cq = cq[i];
		ia.recv_cq = cq[i];
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 16;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp[i] = roce_create_qp(pd[i], &ia);
		CU_ASSERT_FATAL(qp[i] != NULL);
		buf[i] = calloc(1, LEN);
		CU_ASSERT_FATAL(buf[i] != NULL);
		mr[i] = roce_reg_mr(pd[i], buf[i], LEN,
				    ROCE_ACCESS_LOCAL_WRITE |
				    ROCE_ACCESS_REMOTE_WRITE);
		CU_ASSERT_FATAL(mr[i] != NULL);
	}
	qpn0 = roce_qp_num(qp[0]);
	qpn1 = roce_qp_num(qp[1]);
	/* the new QPs are in xstats, by QPN */
	n1 = rte_eth_xstats_get_names(ern0, NULL, 0);
	CU_ASSERT(n1 > n0);
	snprintf(name, sizeof(name), "qp%u_tx_pkts", qpn0);
	CU_ASSERT(has_xstat_name(ern0, name));
	snprintf(name, sizeof(name), "qp%u_retrans_pkts", qpn0);
	CU_ASSERT(has_xstat_name(ern0, name));
	snprintf(name, sizeof(name), "qp%u_rnr_naks_rx", qpn1);
	CU_ASSERT(has_xstat_name(ern1, name));
	CU_ASSERT(qp_xstat(ern0, qpn0, "tx_pkts") == 0);
	CU_ASSERT(qp_xstat(ern1, qpn1, "rnr_naks_rx") == 0);

	/* a path MTU above the port's pmtu=1024 is refused (as rxe) */
	CU_ASSERT(test_rc_connect(qp[0], ern1, mac1, qpn1,
				  ROCE_MTU_2048, 14) == -EINVAL);
	CU_ASSERT(roce_query_qp(qp[0], &qa, NULL) == 0 &&
		  qa.qp_state == ROCE_QPS_INIT);
	CU_ASSERT_FATAL(test_rc_connect(qp[0], ern1, mac1, qpn1,
					ROCE_MTU_1024, 14) == 0);
	CU_ASSERT_FATAL(test_rc_connect(qp[1], ern0, mac0, qpn0,
					ROCE_MTU_1024, 14) == 0);
	for (i = 0; i < LEN; i++)
		buf[0][i] = (uint8_t)(i * 7 + 1);
	sge.addr = (uintptr_t)buf[0];
	sge.length = LEN;
	sge.lkey = roce_mr_lkey(mr[0]);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 42;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)buf[1];
	wr.rdma.rkey = roce_mr_rkey(mr[1]);
	CU_ASSERT_FATAL(roce_post_send(qp[0], &wr, 1, NULL) == 0);
	for (i = 0; i < 2000 && !done; i++) {
		rte_pmd_ernic_poll(ern0);
		rte_pmd_ernic_poll(ern1);
		done = roce_poll_cq(cq[0], &wc, 1);
	}
	CU_ASSERT_FATAL(done == 1);
	CU_ASSERT(wc.status == ROCE_WC_SUCCESS && wc.wr_id == 42);
	CU_ASSERT(memcmp(buf[0], buf[1], LEN) == 0);

	/* 4 KiB at PMTU 1024: 4 packets out of ernic0's QP, into ernic1's */
	CU_ASSERT(qp_xstat(ern0, qpn0, "tx_pkts") == 4);
	CU_ASSERT(qp_xstat(ern0, qpn0, "acks_rx") >= 1);
	CU_ASSERT(qp_xstat(ern0, qpn0, "retrans_pkts") == 0);
	CU_ASSERT(qp_xstat(ern0, qpn0, "rnr_naks_rx") == 0);
	CU_ASSERT(qp_xstat(ern1, qpn1, "rx_pkts") == 4);
	CU_ASSERT(qp_xstat(ern1, qpn1, "acks_tx") >= 1);
	/* a reset starts the QP's counters from 0 */
	CU_ASSERT(rte_eth_xstats_reset(ern0) == 0);
	CU_ASSERT(qp_xstat(ern0, qpn0, "tx_pkts") == 0);

	for (i = 0; i < 2; i++) {
		CU_ASSERT(roce_destroy_qp(qp[i]) == 0);
		CU_ASSERT(roce_dereg_mr(mr[i]) == 0);
		CU_ASSERT(roce_destroy_cq(cq[i]) == 0);
		CU_ASSERT(roce_dealloc_pd(pd[i]) == 0);
		free(buf[i]);
	}
	/* destroyed QPs leave xstats */
	CU_ASSERT(qp_xstat(ern0, qpn0, "tx_pkts") == UINT64_MAX);
	CU_ASSERT(rte_eth_xstats_get_names(ern0, NULL, 0) == n0);
}

static void
test_stats(void)
{
	struct rte_eth_stats st;
	struct rte_eth_link link;
	int n;

	CU_ASSERT(rte_eth_stats_get(ern0, &st) == 0);
	CU_ASSERT(st.ipackets > 0);
	CU_ASSERT(st.q_ipackets[0] == 7);	/* 1 ARP for another host + 6 */
	n = rte_eth_xstats_get_names(ern0, NULL, 0);
	CU_ASSERT(n > 30);
	CU_ASSERT(rte_eth_xstats_reset(ern0) == 0);
	CU_ASSERT(xstat(ern0, "rx_roce") == 0);
	CU_ASSERT(xstat(ern0, "roce_rx_pkts") == 0);
	CU_ASSERT(rte_eth_link_get_nowait(ern0, &link) == 0);
	CU_ASSERT(link.link_status == RTE_ETH_LINK_UP);
}

static void
test_close_gives_port_back(void)
{
	struct rte_eth_dev_owner o;

	CU_ASSERT_FATAL(started);
	CU_ASSERT(rte_eth_dev_stop(ern0) == 0);
	CU_ASSERT(rte_eth_dev_stop(ern1) == 0);
	CU_ASSERT(rte_pmd_ernic_poll(ern0) == -ENOEXEC);
	drain_rings();
	CU_ASSERT(rte_eth_dev_close(ern0) == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic1") == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT(port_visible(ring_a));
	CU_ASSERT(port_visible(ring_b));
	CU_ASSERT(rte_eth_dev_owner_get(ring_a, &o) == 0);
	CU_ASSERT(o.id == RTE_ETH_DEV_NO_OWNER);
	/* and the port can be taken again */
	CU_ASSERT(rte_vdev_init("net_ernic0", "port=net_ring_ringA,ip=198.18.0.1") == 0);
	CU_ASSERT(!port_visible(ring_a));
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT(port_visible(ring_a));
}

/* exception=: a kernel tap owned by the port gets copies of non-RoCE frames */
static void
test_exception_tap(void)
{
	uint8_t f[128];
	struct rte_mbuf *m[4];
	uint16_t port;
	unsigned int n, i;
	size_t len;

	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "no /dev/net/tun: exception path not tested\n");
		return;
	}
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic0",
		"port=net_ring_ringA,ip=198.18.0.1,mac=02:00:00:00:00:01,exception=ernict0") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0", &port) == 0);
	CU_ASSERT(if_nametoindex("ernict0") != 0);
	CU_ASSERT(!port_visible(ring_a));
	n = 0;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++)
		n += port_visible((uint16_t)i);
	CU_ASSERT(n == 2);	/* net_ernic0 and ringB: the tap is owned too */
	CU_ASSERT_FATAL(test_port_start(port) == 0);

	len = put_ipv4_udp(f, peer_ip, ip0, 22, 20) + 20;
	inject(f, len);
	for (i = 0; i < 8; i++)
		rte_pmd_ernic_poll(port);
	n = rte_eth_rx_burst(port, 0, m, 4);
	CU_ASSERT(n == 1);
	rte_pktmbuf_free_bulk(m, n);
	CU_ASSERT(xstat(port, "exception_to_host") == 1);
	CU_ASSERT(xstat(port, "drop_exception") == 0);

	CU_ASSERT(rte_eth_dev_stop(port) == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT(if_nametoindex("ernict0") == 0);
	CU_ASSERT(port_visible(ring_a));
	drain_rings();
}

static CU_TestInfo pmd_tests[] = {
	{ "bad devargs fail the probe with the key named", test_devargs_bad },
	{ "probe takes ownership of the underlying port", test_probe_ownership },
	{ "GID table in Linux RoCE order", test_gid_table },
	{ "start creates the device and workers", test_start },
	{ "ARP request for our IPv4 gets a reply", test_arp_reply },
	{ "NS for our IPv6 gets an NA", test_nd_advert },
	{ "non-RoCE frames pass both ways untouched", test_passthrough },
	{ "RoCE frames to our IP go to the worker", test_roce_to_worker },
	{ "frames of another worker's QP are handed over", test_handoff },
	{ "resolve between two ernic ports", test_resolve },
	{ "per-QP and CM counters in xstats", test_qp_xstats },
	{ "stats, xstats and link", test_stats },
	{ "close gives the underlying port back", test_close_gives_port_back },
	{ "exception= bridges non-RoCE frames to a tap", test_exception_tap },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "pmd", suite_init, NULL, NULL, NULL, pmd_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
