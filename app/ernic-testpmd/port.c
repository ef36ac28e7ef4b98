/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic ports (see port.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "port.h"
#include "rte_pmd_ernic.h"

#define PORT_RX_POOL_MBUFS 1023
/* loopback link: room for the frames of a full TX window of large messages */
#define LB_RING_SIZE 65536

static bool
is_ernic(uint16_t pid)
{
	return rte_pmd_ernic_nb_workers(pid) > 0;
}

int
port_nth(unsigned int nth, uint16_t *port_id)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (!is_ernic(pid))
			continue;
		if (nth-- == 0) {
			*port_id = pid;
			return 0;
		}
	}
	return -ENODEV;
}

int
port_find(const char *name, uint16_t *port_id)
{
	uint16_t pid;

	if (name == NULL || name[0] == '\0')
		return port_nth(0, port_id);
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0 || !is_ernic(pid))
		return -ENODEV;
	*port_id = pid;
	return 0;
}

/*
 * Wait for the link (a memif pair connects through its control socket in
 * the background); frames sent before would be lost, ARP included.
 */
void
port_wait_link(uint16_t port_id, unsigned int seconds)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * seconds;
	struct rte_eth_link link;

	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return;
		rte_pmd_ernic_poll(port_id);
		rte_delay_us_sleep(1000);
	} while (rte_get_tsc_cycles() < end);
	fprintf(stderr, "ernic-testpmd: warning: port %u link still down after %u s\n",
		port_id, seconds);
}

int
port_start(uint16_t port_id)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];
	int ret;

	if (rte_pmd_ernic_poll(port_id) >= 0)
		return 0;	/* already started */
	ret = rte_eth_dev_info_get(port_id, &info);
	if (ret != 0)
		return ret;
	memset(&conf, 0, sizeof(conf));
	/* the port's MTU must hold a full packet of its pmtu= */
	conf.rxmode.mtu = RTE_MAX((uint32_t)RTE_ETHER_MTU,
				  (uint32_t)info.min_mtu);
	ret = rte_eth_dev_configure(port_id, 1, 1, &conf);
	if (ret != 0)
		return ret;
	/* the PMD fills its queue from its own pool; ethdev wants one */
	snprintf(name, sizeof(name), "app_rx%u", port_id);
	mp = rte_mempool_lookup(name);
	if (mp == NULL)
		mp = rte_pktmbuf_pool_create(name, PORT_RX_POOL_MBUFS, 0, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE,
					     rte_eth_dev_socket_id(port_id));
	if (mp == NULL)
		return -rte_errno;
	ret = rte_eth_rx_queue_setup(port_id, 0, 1024,
				     rte_eth_dev_socket_id(port_id), NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port_id, 0, 1024,
					     rte_eth_dev_socket_id(port_id),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port_id);
	return ret;
}

/*
 * After a port of a net_memif pair in this process stopped, its peer
 * handles the disconnect message in DPDK's interrupt thread: stopping or
 * closing that peer from this thread at the same time races with that
 * handler in DPDK 22.11's memif (a crash in eal-intr-thread at exit,
 * about 1 in 5-10 with a memif pair under load; doc/guides/pmd.rst). Wait until
 * every memif port whose link is up has seen its peer go (link down), at
 * most 500 ms, then let the handler finish.
 */
static void
port_settle_memif(void)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 2;
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	bool up, any = false;
	uint16_t pid;

	do {
		up = false;
		RTE_ETH_FOREACH_DEV(pid) {
			if (rte_eth_dev_info_get(pid, &info) != 0 ||
			    info.driver_name == NULL ||
			    strcmp(info.driver_name, "net_memif") != 0)
				continue;
			any = true;
			memset(&link, 0, sizeof(link));
			if (rte_eth_link_get_nowait(pid, &link) == 0 &&
			    link.link_status == RTE_ETH_LINK_UP)
				up = true;
		}
		if (up)
			rte_delay_us_sleep(1000);
	} while (up && rte_get_tsc_cycles() < end);
	if (any)
		rte_delay_us_sleep(20000);
}

void
port_close_all(void)
{
	struct rte_eth_dev_owner owner;
	unsigned int pass;
	uint16_t pid;
	bool any;

	/*
	 * Stop every net_ernic port (and so the ports under them) before
	 * closing any, as testpmd does: a port's close frees the pools its
	 * underlying port used while the peer of that port may still be
	 * handling the disconnect.
	 */
	RTE_ETH_FOREACH_DEV(pid)
		if (is_ernic(pid))
			rte_eth_dev_stop(pid);
	port_settle_memif();
	RTE_ETH_FOREACH_DEV(pid)
		if (is_ernic(pid))
			rte_eth_dev_close(pid);
	/*
	 * Then every other port, which closing net_ernic gave back:
	 * rte_eal_cleanup() of DPDK 22.11 closes no device, and a net_af_xdp
	 * port left open keeps its UMEM, its sockets and its XDP program on
	 * the interface. A port given back by another wrapper (net_fault)
	 * shows up in the next pass (newest first, so a wrapper goes before
	 * the port under it).
	 */
	for (pass = 0; pass < 8; pass++) {
		any = false;
		for (pid = RTE_MAX_ETHPORTS; pid-- > 0;) {
			if (!rte_eth_dev_is_valid_port(pid) ||
			    rte_eth_dev_owner_get(pid, &owner) != 0 ||
			    owner.id != RTE_ETH_DEV_NO_OWNER)
				continue;
			rte_eth_dev_stop(pid);
			port_settle_memif();
			rte_eth_dev_close(pid);
			port_settle_memif();
			any = true;
		}
		if (!any)
			break;
	}
}

static bool
gid_is_v4(const union roce_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

int
port_pick_gid(uint16_t port_id, int want, int *index, union roce_gid *gid)
{
	union roce_gid g;
	int i, ret;

	if (want >= 0) {
		ret = rte_pmd_ernic_gid(port_id, (unsigned int)want, gid);
		if (ret == 0)
			*index = want;
		return ret;
	}
	for (i = 0; rte_pmd_ernic_gid(port_id, (unsigned int)i, &g) == 0; i++)
		if (gid_is_v4(&g)) {
			*index = i;
			*gid = g;
			return 0;
		}
	*index = 0;
	return rte_pmd_ernic_gid(port_id, 0, gid);
}

unsigned int
port_mtu_code(uint16_t port_id)
{
	int pmtu = rte_pmd_ernic_pmtu(port_id);
	unsigned int code;

	if (pmtu < 0)
		return ROCE_MTU_1024;
	for (code = ROCE_MTU_4096; code > ROCE_MTU_256; code--)
		if (roce_mtu_bytes(code) <= (unsigned int)pmtu)
			break;
	return code;
}

int
port_resolve(uint16_t port_id, const union roce_gid *gid, uint8_t mac[6],
	     unsigned int timeout_s, void (*progress)(void *), void *arg,
	     volatile int *quit)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * timeout_s;
	uint64_t next = 0;
	int ret;

	for (;;) {
		/* ask at most every 100 us: each call may take the table lock */
		if (rte_get_tsc_cycles() >= next) {
			ret = rte_pmd_ernic_resolve(port_id, gid, mac);
			if (ret != -EAGAIN)
				return ret;
			next = rte_get_tsc_cycles() + rte_get_tsc_hz() / 10000;
		}
		if (rte_get_tsc_cycles() > end)
			return -ETIMEDOUT;
		if (quit != NULL && *quit)
			return -EINTR;
		progress(arg);
	}
}

void
port_print_xstats(FILE *out, uint16_t port_id)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	char pname[RTE_ETH_NAME_MAX_LEN];
	int n, i;

	if (rte_eth_dev_get_name_by_port(port_id, pname) != 0)
		snprintf(pname, sizeof(pname), "port%u", port_id);
	n = rte_eth_xstats_get(port_id, NULL, 0);
	if (n > 0) {
		xs = calloc((size_t)n, sizeof(*xs));
		names = calloc((size_t)n, sizeof(*names));
	}
	if (xs == NULL || names == NULL ||
	    rte_eth_xstats_get(port_id, xs, (unsigned int)n) != n ||
	    rte_eth_xstats_get_names(port_id, names, (unsigned int)n) != n) {
		fprintf(out, "xstat %s unavailable\n", pname);
	} else {
		for (i = 0; i < n; i++)
			if (xs[i].value != 0)
				fprintf(out, "xstat %s %s %" PRIu64 "\n", pname,
					names[xs[i].id].name, xs[i].value);
	}
	free(xs);
	free(names);
}

uint64_t
port_xstat(uint16_t port_id, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port_id, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port_id, &id, &v, 1) != 1)
		return 0;
	return v;
}

void
port_print_cycles(FILE *out, uint16_t port_id)
{
	uint64_t busy = port_xstat(port_id, "busy_cycles");
	uint64_t bpolls = port_xstat(port_id, "busy_polls");
	uint64_t ipolls = port_xstat(port_id, "idle_polls");
	uint64_t rx = port_xstat(port_id, "rx_roce");
	uint64_t tx = port_xstat(port_id, "tx_roce");
	uint64_t one_way = RTE_MAX(rx, tx);
	double hz = (double)rte_get_tsc_hz(), per_way;
	char pname[RTE_ETH_NAME_MAX_LEN];

	if (rte_eth_dev_get_name_by_port(port_id, pname) != 0)
		snprintf(pname, sizeof(pname), "port%u", port_id);
	if (one_way == 0 || bpolls == 0) {
		fprintf(out, "cycles: %s moved no RoCE frame\n", pname);
		return;
	}
	/*
	 * The busier direction carries the data (one frame a message up to
	 * the path MTU); the other its ACKs or requests, paid for here too.
	 */
	per_way = (double)busy / (double)one_way;
	fprintf(out, "cycles: %s busy_polls=%.1f%% cycles_a_poll=%.0f cycles_a_frame=%.0f (rx %" PRIu64 " + tx %" PRIu64 ") cycles_a_frame_one_way=%.0f = %.2f M/s a busy worker lcore (TSC %.0f MHz)\n",
		pname, 100.0 * (double)bpolls / (double)(bpolls + ipolls),
		(double)busy / (double)bpolls,
		(double)busy / (double)(rx + tx), rx, tx, per_way,
		hz / per_way / 1e6, hz / 1e6);
}

void
port_gid_str(const union roce_gid *gid, char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

int
port_make_loopback_pair_qps(uint16_t port_id[2], uint32_t qps)
{
	/* room for QP0, QP1 and qps QPs: the default (1024) or more */
	uint32_t max_qps = RTE_MAX(1024u, rte_align32pow2(qps + 2));
	static const char *const ips[2] = { "198.18.0.1", "198.18.0.2" };
	static const char *const macs[2] = { "02:00:c6:12:00:01",
					     "02:00:c6:12:00:02" };
	struct rte_ring *r[2];
	char name[32], args[160], rname[RTE_ETH_NAME_MAX_LEN];
	int ring_port[2], i, ret;

	/* r[0]: 0 -> 1, r[1]: 1 -> 0 */
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "lb_r%d", i);
		r[i] = rte_ring_create(name, LB_RING_SIZE, (int)rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL)
			return -rte_errno;
	}
	ring_port[0] = rte_eth_from_rings("lb_ring0", &r[1], 1, &r[0], 1,
					  rte_socket_id());
	ring_port[1] = rte_eth_from_rings("lb_ring1", &r[0], 1, &r[1], 1,
					  rte_socket_id());
	if (ring_port[0] < 0 || ring_port[1] < 0)
		return -rte_errno;
	for (i = 0; i < 2; i++) {
		if (rte_eth_dev_get_name_by_port((uint16_t)ring_port[i],
						 rname) != 0)
			return -ENODEV;
		snprintf(name, sizeof(name), "net_ernic_lb%d", i);
		snprintf(args, sizeof(args),
			 "port=%s,ip=%s,mac=%s,pmtu=4096,max_qps=%u", rname,
			 ips[i], macs[i], RTE_MIN(max_qps, 65536u));
		ret = rte_vdev_init(name, args);
		if (ret != 0)
			return ret;
		if (rte_eth_dev_get_port_by_name(name, &port_id[i]) != 0)
			return -ENODEV;
	}
	return 0;
}

int
port_make_loopback_pair(uint16_t port_id[2])
{
	return port_make_loopback_pair_qps(port_id, 0);
}
