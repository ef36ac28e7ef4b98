/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement of net_ernic (rte_pmd_ernic_numa.h): the node of the
 * underlying port's device (the ethdev's, or for a kernel interface behind
 * net_af_xdp / net_af_packet / net_tap its PCI device's node from sysfs),
 * the node of each worker's memory, and the start-time warning about
 * workers polled from another node than the device's.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <net/if.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_service.h>

#include "ernic_priv.h"
#include "rte_pmd_ernic_numa.h"

static bool
in_mask(uint64_t mask, int s)
{
	return s >= 0 && s < 64 && (mask & (UINT64_C(1) << s)) != 0;
}

int
rte_pmd_ernic_placement_decide(int dev_socket, int lcore_socket,
			       uint64_t mem_sockets, int fallback_socket,
			       struct rte_pmd_ernic_placement *out)
{
	bool dev_ok = in_mask(mem_sockets, dev_socket);
	bool lc_ok = in_mask(mem_sockets, lcore_socket);

	if (out == NULL || mem_sockets == 0 ||
	    !in_mask(mem_sockets, fallback_socket))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->dev_socket = dev_socket < 0 ? SOCKET_ID_ANY : dev_socket;
	out->lcore_socket = lcore_socket < 0 ? SOCKET_ID_ANY : lcore_socket;
	out->lcore = -1;
	out->pool_socket = dev_ok ? dev_socket :
		(lc_ok ? lcore_socket : fallback_socket);
	out->mem_socket = lc_ok ? lcore_socket :
		(dev_ok ? dev_socket : fallback_socket);
	out->cross_node = dev_socket >= 0 && lcore_socket >= 0 &&
		dev_socket != lcore_socket;
	out->fallback = (dev_socket >= 0 && !dev_ok) ||
		(lcore_socket >= 0 && !lc_ok);
	return 0;
}

uint64_t
rte_pmd_ernic_mem_sockets(void)
{
	struct rte_malloc_socket_stats st;
	unsigned int i, n = rte_socket_count();
	uint64_t mask = 0;
	bool grows = rte_eal_has_hugepages() != 0;

	for (i = 0; i < n; i++) {
		int s = rte_socket_id_by_idx(i);

		if (s < 0 || s >= 64)
			continue;
		/* with huge pages the heaps grow on demand on each node */
		if (grows || (rte_malloc_get_socket_stats(s, &st) == 0 &&
			      st.heap_totalsz_bytes > 0))
			mask |= UINT64_C(1) << s;
	}
	if (mask == 0 && rte_socket_id() < 64)
		mask = UINT64_C(1) << rte_socket_id();
	return mask;
}

/* The node of the device behind kernel interface @p ifindex, -1: none. */
static int
ifindex_node(unsigned int ifindex)
{
	char ifname[IF_NAMESIZE], path[64 + IF_NAMESIZE];
	FILE *f;
	int node = -1;

	if (ifindex == 0 || if_indextoname(ifindex, ifname) == NULL)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/numa_node",
		 ifname);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;	/* virtual interface: no device */
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

/*
 * Device node of ethdev @p port: for a port on a kernel interface
 * (net_af_xdp, net_af_packet, net_tap: they report the node of the lcore
 * that probed them) the node of the interface's device; else the ethdev's.
 */
static int
dev_node(uint16_t port)
{
	struct rte_eth_dev_info ui;
	int k;

	if (rte_eth_dev_info_get(port, &ui) == 0 && ui.if_index != 0) {
		k = ifindex_node(ui.if_index);
		if (k >= 0)
			return k;
	}
	return rte_eth_dev_socket_id(port);
}

int
ernic_numa_port_socket(uint16_t under)
{
	struct rte_pmd_ernic_placement pl;
	int lc = (int)rte_socket_id();

	if (rte_pmd_ernic_placement_decide(dev_node(under),
					   lc < RTE_MAX_NUMA_NODES ? lc : -1,
					   rte_pmd_ernic_mem_sockets(),
					   (int)rte_socket_id(), &pl) != 0)
		return (int)rte_socket_id();
	return pl.pool_socket;
}

/* The lcore that polls worker @p w: lcores=, else a mapped service lcore. */
static int
worker_lcore(const struct ernic_worker *w)
{
	unsigned int lc;

	if (w->lcore >= 0)
		return w->lcore;
	if (!w->service_registered)
		return -1;
	RTE_LCORE_FOREACH(lc) {
		if (rte_service_map_lcore_get(w->service_id, lc) == 1)
			return (int)lc;
	}
	return -1;
}

static int
lcore_socket(int lc)
{
	return lc >= 0 && lc < RTE_MAX_LCORE ?
		(int)rte_lcore_to_socket_id((unsigned int)lc) : SOCKET_ID_ANY;
}

int
ernic_numa_worker_socket(const struct ernic_port *p, uint16_t idx)
{
	struct rte_pmd_ernic_placement pl;
	int lc = -1;

	if (p->args.nb_lcores > 0)
		lc = p->args.lcores[idx % p->args.nb_lcores];
	if (rte_pmd_ernic_placement_decide(p->socket, lcore_socket(lc),
					   rte_pmd_ernic_mem_sockets(),
					   p->socket, &pl) != 0)
		return p->socket;
	return pl.mem_socket;
}

int
rte_pmd_ernic_worker_placement(uint16_t port_id, uint16_t idx,
			       struct rte_pmd_ernic_placement *out)
{
	const struct ernic_port *p = ernic_port_get(port_id);
	const struct ernic_worker *w;
	int lc, ret;

	if (p == NULL)
		return -ENODEV;
	if (out == NULL || idx >= p->nb_workers)
		return -EINVAL;
	w = p->w != NULL ? &p->w[idx] : NULL;
	lc = w != NULL ? worker_lcore(w) : -1;
	if (lc < 0 && p->args.nb_lcores > 0)
		lc = p->args.lcores[idx % p->args.nb_lcores];
	ret = rte_pmd_ernic_placement_decide(p->socket, lcore_socket(lc),
					     rte_pmd_ernic_mem_sockets(),
					     p->socket, out);
	if (ret != 0)
		return ret;
	out->lcore = lc;
	out->pool_socket = p->socket;
	/* what was placed, not what would be placed now */
	out->mem_socket = w != NULL ? w->socket : SOCKET_ID_ANY;
	return 0;
}

void
ernic_numa_check(const struct ernic_port *p)
{
	struct rte_pmd_ernic_placement pl;
	uint16_t i;

	for (i = 0; i < p->nb_workers; i++) {
		if (rte_pmd_ernic_worker_placement(p->port_id, i, &pl) != 0)
			continue;
		if (pl.cross_node)
			ERNIC_LOG(WARNING, "port %u: worker %u is polled by lcore %d on NUMA node %d, the port's device is on node %d: every frame crosses nodes (map it to an lcore of node %d, lcores= devarg)",
				  p->port_id, i, pl.lcore, pl.lcore_socket,
				  pl.dev_socket, pl.dev_socket);
		if (pl.lcore_socket >= 0 && pl.mem_socket >= 0 &&
		    pl.lcore_socket != pl.mem_socket)
			ERNIC_LOG(WARNING, "port %u: worker %u's memory is on node %d but lcore %d polls it from node %d (services mapped after the first start: give lcores= to place it)",
				  p->port_id, i, pl.mem_socket, pl.lcore,
				  pl.lcore_socket);
		if (pl.fallback)
			ERNIC_LOG(WARNING, "port %u: worker %u: a wanted NUMA node has no memory here, placed on node %d",
				  p->port_id, i, pl.mem_socket);
	}
}
