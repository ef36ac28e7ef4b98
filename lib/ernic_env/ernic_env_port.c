/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The life of a program's net_ernic ports (ernic_env.h): the check that
 * each one asked for was created, start with default queues, link wait,
 * close at exit, neighbour resolution.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ernic_env.h"
#include "rte_pmd_ernic.h"

#define PORT_RX_POOL_MBUFS 1023

bool
ernic_env_is_ernic(uint16_t port_id)
{
	return rte_pmd_ernic_nb_workers(port_id) > 0;
}

int
ernic_env_check_probed(char *name, size_t len)
{
	struct rte_devargs *da;
	uint16_t pid;

	/* the vdev bus gives a device to the driver its name starts with */
	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (strncmp(da->name, ERNIC_ENV_DRIVER,
			    strlen(ERNIC_ENV_DRIVER)) != 0 ||
		    rte_eth_dev_get_port_by_name(da->name, &pid) == 0)
			continue;
		if (name != NULL && len > 0)
			snprintf(name, len, "%s", da->name);
		return -ENODEV;
	}
	return 0;
}

int
ernic_env_port_nth(unsigned int nth, uint16_t *port_id)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (!ernic_env_is_ernic(pid))
			continue;
		if (nth-- == 0) {
			*port_id = pid;
			return 0;
		}
	}
	return -ENODEV;
}

int
ernic_env_port_wait_link(uint16_t port_id, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	struct rte_eth_link link;

	do {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_pmd_ernic_poll(port_id);
		rte_delay_us_sleep(1000);
	} while (rte_get_tsc_cycles() < end);
	return -ETIMEDOUT;
}

int
ernic_env_port_start(uint16_t port_id)
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
settle_memif(void)
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
ernic_env_close_all(void)
{
	struct rte_eth_dev_owner owner;
	unsigned int pass;
	uint16_t pid;
	bool any;

	/*
	 * Stop every net_ernic port (and so the ports under them) before
	 * closing any, as testpmd does: a port's close frees the pools its
	 * underlying port used while the peer of that port may still be
	 * handling the disconnect. Only the started ones: ethdev has no
	 * query, the PMD's poll refuses a stopped port (-ENOEXEC), and a
	 * second stop prints "Device with port_id=N already stopped" (a
	 * port of the program that nothing started, a prompt left at once).
	 */
	RTE_ETH_FOREACH_DEV(pid)
		if (ernic_env_is_ernic(pid) &&
		    rte_pmd_ernic_poll(pid) != -ENOEXEC)
			rte_eth_dev_stop(pid);
	settle_memif();
	RTE_ETH_FOREACH_DEV(pid)
		if (ernic_env_is_ernic(pid))
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
			/*
			 * Closing refuses a started port (-EINVAL): stop it
			 * only then, so that a port its net_ernic stopped
			 * already is not stopped twice ("already stopped").
			 */
			if (rte_eth_dev_close(pid) != 0) {
				rte_eth_dev_stop(pid);
				settle_memif();
				rte_eth_dev_close(pid);
			}
			settle_memif();
			any = true;
		}
		if (!any)
			break;
	}
}

enum roce_mtu
ernic_env_port_mtu_code(uint16_t port_id)
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
ernic_env_resolve(uint16_t port_id, const union roce_gid *gid, uint8_t mac[6],
		  unsigned int timeout_ms, void (*progress)(void *), void *arg,
		  volatile int *quit)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t end = rte_get_tsc_cycles() + hz / 1000 * timeout_ms;
	uint64_t next = 0;
	int ret;

	for (;;) {
		/* ask at most every 100 us: each call may take the table lock */
		if (rte_get_tsc_cycles() >= next) {
			ret = rte_pmd_ernic_resolve(port_id, gid, mac);
			if (ret != -EAGAIN)
				return ret;
			next = rte_get_tsc_cycles() + hz / 10000;
		}
		if (rte_get_tsc_cycles() > end)
			return -ETIMEDOUT;
		if (quit != NULL && *quit)
			return -EINTR;
		progress(arg);
	}
}
