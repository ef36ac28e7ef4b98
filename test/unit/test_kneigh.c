/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic on net_af_xdp with the XDP steering program, on a veth pair
 * between two network namespaces made here (A: this process, kn0,
 * 198.18.20.1/24 fd00:198:20::1/64; B: kn1, 198.18.20.2/24
 * fd00:198:20::2/64):
 * - pmtu=4096 is lowered to 2048 at probe (net_af_xdp of DPDK 22.11
 *   carries one buffer per frame), xstat pmtu_clamped;
 * - with ip=/ip6= the kernel's own addresses on kn0 (neigh=auto), peers
 *   resolve through the kernel's neighbour table: IPv4, IPv6 global and
 *   link-local, with the kernel asked to resolve (nothing known before);
 *   an address nobody holds fails with -EHOSTUNREACH;
 * - neigh=own on the shared address never resolves (the ARP replies go to
 *   the kernel: why the kernel fallback exists);
 * - an address of net_ernic's own (not the kernel's) still resolves by
 *   net_ernic's ARP, steered to it by the program;
 * - neigh=kernel on a port without a kernel interface fails the start.
 * Exit 77 when not root, without namespaces, net_af_xdp or the program.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/wait.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "test_common.h"
#include "rte_pmd_ernic.h"

enum { SKIP = 77 };

static char ns_a[32], ns_b[32], af_args[512];
static const uint8_t mac_b[6] = { 0x02, 0x00, 0xc6, 0x14, 0x00, 0x02 };

static int
sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void
cleanup(void)
{
	sh("ip netns del %s 2>/dev/null", ns_a);
	sh("ip netns del %s 2>/dev/null", ns_b);
}

/* The namespaces and the veth pair; this process moves into A. */
static int
setup_net(void)
{
	char path[64];
	int fd;

	snprintf(ns_a, sizeof(ns_a), "ernic-kn-a-%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "ernic-kn-b-%d", (int)getpid());
	if (sh("ip netns add %s && ip netns add %s", ns_a, ns_b) != 0)
		return SKIP;
	atexit(cleanup);
	if (sh("ip link add kn0 netns %s address 02:00:c6:14:00:01 type veth peer name kn1 netns %s address 02:00:c6:14:00:02",
	       ns_a, ns_b) != 0)
		return SKIP;
	if (sh("for n in %s %s; do ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0; done && "
	       "ip netns exec %s sysctl -qw net.ipv6.conf.kn0.accept_dad=0 && "
	       "ip netns exec %s sysctl -qw net.ipv6.conf.kn1.accept_dad=0 && "
	       "ip -n %s addr add 198.18.20.1/24 dev kn0 && "
	       "ip -n %s addr add fd00:198:20::1/64 dev kn0 nodad && "
	       "ip -n %s addr add 198.18.20.2/24 dev kn1 && "
	       "ip -n %s addr add fd00:198:20::2/64 dev kn1 nodad && "
	       "ip -n %s link set kn0 up && ip -n %s link set kn1 up",
	       ns_a, ns_b, ns_a, ns_b, ns_a, ns_a, ns_b, ns_b, ns_a, ns_b) != 0)
		return 1;
	snprintf(path, sizeof(path), "/run/netns/%s", ns_a);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
		perror("setns");
		return SKIP;
	}
	close(fd);
	/* link-local addresses: generated at link up, no DAD */
	usleep(200 * 1000);
	return 0;
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

/* Configure and start like ernic-testpmd: MTU for the path MTU. */
static int
port_start(uint16_t port)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	conf.rxmode.mtu = RTE_MAX((uint32_t)RTE_ETHER_MTU,
				  (uint32_t)info.min_mtu);
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL,
					     test_mbuf_pool());
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

/* net_af_xdp on kn0 with the program, net_ernic on it with @p eargs. */
static int
ports_up(const char *eargs, uint16_t *port, bool start)
{
	char args[512];
	int ret;

	ret = rte_vdev_init("net_af_xdp0", af_args);
	if (ret != 0)
		return ret;
	snprintf(args, sizeof(args), "port=net_af_xdp0,%s", eargs);
	ret = rte_vdev_init("net_ernic0", args);
	if (ret != 0) {
		rte_vdev_uninit("net_af_xdp0");
		return ret;
	}
	if (rte_eth_dev_get_port_by_name("net_ernic0", port) != 0)
		return -ENODEV;
	return start ? port_start(*port) : 0;
}

static void
ports_down(uint16_t port)
{
	rte_eth_dev_stop(port);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
	CU_ASSERT(rte_vdev_uninit("net_af_xdp0") == 0);
}

/* Resolve like an application: ask, poll the port, up to @p secs. */
static int
resolve(uint16_t port, const char *addr, uint8_t mac[6], unsigned int secs)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * secs;
	union roce_gid g;
	struct in_addr a4;
	int ret;

	memset(&g, 0, sizeof(g));
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		g.raw[10] = 0xff;
		g.raw[11] = 0xff;
		memcpy(g.raw + 12, &a4, 4);
	} else if (inet_pton(AF_INET6, addr, g.raw) != 1) {
		return -EINVAL;
	}
	do {
		ret = rte_pmd_ernic_resolve(port, &g, mac);
		if (ret != -EAGAIN)
			return ret;
		rte_pmd_ernic_poll(port);
		usleep(500);
	} while (rte_get_tsc_cycles() < end);
	return -ETIMEDOUT;
}

static void
test_pmtu_clamp(void)
{
	uint16_t port;

	CU_ASSERT_FATAL(ports_up("ip=198.18.20.1,pmtu=4096", &port,
				 false) == 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_pmtu(port), 2048);
	CU_ASSERT_EQUAL(xstat(port, "pmtu_clamped"), 1);
	/* and it runs at 2048: the MTU the application sets is accepted */
	CU_ASSERT_EQUAL(port_start(port), 0);
	ports_down(port);

	CU_ASSERT_FATAL(ports_up("ip=198.18.20.1,pmtu=2048", &port,
				 false) == 0);
	CU_ASSERT_EQUAL(rte_pmd_ernic_pmtu(port), 2048);
	CU_ASSERT_EQUAL(xstat(port, "pmtu_clamped"), 0);
	ports_down(port);
}

static void
test_shared_auto(void)
{
	uint8_t mac[6];
	uint16_t port;

	/* the kernel knows none of them yet */
	sh("ip neigh flush dev kn0");
	CU_ASSERT_FATAL(ports_up("ip=198.18.20.1,ip6=fd00:198:20::1", &port,
				 true) == 0);
	memset(mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(resolve(port, "198.18.20.2", mac, 5), 0);
	CU_ASSERT(memcmp(mac, mac_b, 6) == 0);
	memset(mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(resolve(port, "fd00:198:20::2", mac, 5), 0);
	CU_ASSERT(memcmp(mac, mac_b, 6) == 0);
	/* kn1's link-local address (modified EUI-64 of its MAC) */
	memset(mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(resolve(port, "fe80::c6ff:fe14:2", mac, 5), 0);
	CU_ASSERT(memcmp(mac, mac_b, 6) == 0);
	CU_ASSERT(xstat(port, "neigh_kernel") >= 3);
	/* no frame of it reached net_ernic's own ARP/ND */
	CU_ASSERT_EQUAL(xstat(port, "tx_arp"), 0);
	CU_ASSERT_EQUAL(xstat(port, "tx_nd"), 0);
	/* the kernel holds the answers too */
	CU_ASSERT_EQUAL(sh("ip neigh show dev kn0 | grep -q '198.18.20.2 lladdr 02:00:c6:14:00:02'"), 0);
	/* nobody: the kernel gives up, so does net_ernic */
	CU_ASSERT_EQUAL(resolve(port, "198.18.20.99", mac, 10), -EHOSTUNREACH);
	CU_ASSERT(xstat(port, "neigh_kernel_failed") >= 1);
	ports_down(port);
}

static void
test_shared_own(void)
{
	uint8_t mac[6];
	uint16_t port;

	/* neigh=own on the kernel's address: the replies go to the kernel */
	sh("ip neigh flush dev kn0");
	CU_ASSERT_FATAL(ports_up("ip=198.18.20.1,neigh=own", &port,
				 true) == 0);
	CU_ASSERT_EQUAL(resolve(port, "198.18.20.2", mac, 10), -EHOSTUNREACH);
	CU_ASSERT(xstat(port, "tx_arp") >= 1);
	CU_ASSERT_EQUAL(xstat(port, "neigh_kernel"), 0);
	ports_down(port);
}

static void
test_own_address(void)
{
	uint8_t mac[6];
	uint16_t port;

	/* an address of its own: auto is own ARP, steered by the program */
	CU_ASSERT_FATAL(ports_up("ip=198.18.20.11", &port, true) == 0);
	memset(mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(resolve(port, "198.18.20.2", mac, 5), 0);
	CU_ASSERT(memcmp(mac, mac_b, 6) == 0);
	CU_ASSERT(xstat(port, "tx_arp") >= 1);
	CU_ASSERT(xstat(port, "rx_arp") >= 1);
	CU_ASSERT_EQUAL(xstat(port, "neigh_kernel"), 0);
	ports_down(port);
}

static void
test_kernel_needs_iface(void)
{
	uint16_t port;

	CU_ASSERT(rte_vdev_init("net_ernic1", "port=net_af_xdp9,neigh=maybe") != 0);
	CU_ASSERT_FATAL(rte_vdev_init("net_ring_kn", NULL) == 0);
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic1",
		"port=net_ring_kn,ip=198.18.20.1,neigh=kernel") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic1", &port) == 0);
	CU_ASSERT_EQUAL(test_port_start(port), -ENOTSUP);
	CU_ASSERT(rte_vdev_uninit("net_ernic1") == 0);
	CU_ASSERT(rte_vdev_uninit("net_ring_kn") == 0);
}

static CU_TestInfo kn_tests[] = {
	{ "pmtu=4096 on net_af_xdp is 2048", test_pmtu_clamp },
	{ "shared address: the kernel's neighbour table", test_shared_auto },
	{ "shared address with neigh=own never resolves", test_shared_own },
	{ "own address: net_ernic's ARP", test_own_address },
	{ "neigh=kernel needs a kernel interface", test_kernel_needs_iface },
	CU_TEST_INFO_NULL,
};

/*
 * One process per case: DPDK 22.11's net_af_xdp leaves its AF_XDP socket
 * (the umem's) open when the port closes, so a second net_af_xdp port on
 * kn0's queue 0 in the same process gets EBUSY from bind().
 */
static int
run_one(int argc, char **argv, const CU_TestInfo *t)
{
	CU_TestInfo one[2] = { *t, CU_TEST_INFO_NULL };
	CU_SuiteInfo suites[] = {
		{ "kernel neighbours on net_af_xdp", NULL, NULL, NULL, NULL,
		  one },
		CU_SUITE_INFO_NULL,
	};

	if (test_eal_init(argc, argv) != 0)
		return 1;
	/* net_af_xdp is a plugin of the distribution's DPDK */
	if (rte_vdev_init("net_af_xdp0", af_args) != 0) {
		printf("SKIP: no net_af_xdp here\n");
		return SKIP;
	}
	rte_vdev_uninit("net_af_xdp0");
	return test_run(suites);
}

int
main(int argc, char **argv)
{
	const char *obj = getenv("ERNIC_XDP_OBJ");
	unsigned int i, failed = 0, skipped = 0, n = 0;
	int ret, st;
	pid_t pid;

	if (getuid() != 0) {
		printf("SKIP: needs root (namespaces, XDP)\n");
		return SKIP;
	}
	if (obj == NULL || access(obj, R_OK) != 0) {
		printf("SKIP: ERNIC_XDP_OBJ is not set to the XDP program\n");
		return SKIP;
	}
	snprintf(af_args, sizeof(af_args),
		 "iface=kn0,xdp_prog=%s,start_queue=0", obj);
	ret = setup_net();
	if (ret != 0) {
		printf("%s: cannot set up the namespaces\n",
		       ret == SKIP ? "SKIP" : "FAIL");
		return ret;
	}
	for (i = 0; kn_tests[i].pName != NULL; i++, n++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(run_one(argc, argv, &kn_tests[i]));
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != SKIP)) {
			printf("kneigh: case \"%s\" FAILED\n", kn_tests[i].pName);
			failed++;
		} else if (WEXITSTATUS(st) == SKIP) {
			skipped++;
		}
	}
	printf("kneigh: %u case(s), %u failed, %u skipped\n", n, failed,
	       skipped);
	if (failed != 0)
		return 1;
	return skipped == n ? SKIP : 0;
}
