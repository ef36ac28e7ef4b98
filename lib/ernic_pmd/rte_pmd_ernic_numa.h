/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_NUMA_H
#define RTE_PMD_ERNIC_NUMA_H

/**
 * @file
 * NUMA placement of a net_ernic port (doc/guides/pmd.rst, "NUMA
 * placement"): which node holds the port's mbuf pools and queues, and
 * which node each worker's memory (its state, rings, timers and the QPs,
 * CQs and SRQs created on it) is on.
 *
 * Rules (rte_pmd_ernic_placement_decide()):
 * - pools and queues of the underlying port: the node of the port's
 *   device; if unknown or without memory, the node of the lcore; else the
 *   fallback node;
 * - a worker's memory: the node of the lcore that polls it; if it is not
 *   known (no lcores= devarg, services not mapped yet) or has no memory,
 *   the device's node; else the fallback node;
 * - a worker whose lcore and device are on different nodes is
 *   "cross-node": every frame crosses the interconnect. The port start
 *   warns about it and ernic-testpmd's `show ports` / `show qp` show it.
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where one worker of a port lives. Unknown nodes are SOCKET_ID_ANY (-1). */
struct rte_pmd_ernic_placement {
	int dev_socket;		/**< node of the underlying port's device */
	int lcore;		/**< lcore that polls the worker, -1: none known */
	int lcore_socket;	/**< node of that lcore */
	int pool_socket;	/**< node of the port's mbuf pools and queues */
	int mem_socket;		/**< node of the worker's memory */
	bool cross_node;	/**< lcore and device on different nodes */
	bool fallback;		/**< a wanted node had no memory */
};

/**
 * The placement decision, a pure function.
 *
 * @param dev_socket
 *   Node of the device, SOCKET_ID_ANY when unknown.
 * @param lcore_socket
 *   Node of the polling lcore, SOCKET_ID_ANY when unknown.
 * @param mem_sockets
 *   Bit n set: node n can give memory (n < 64).
 * @param fallback_socket
 *   Node to use when neither is known or usable; must be in @p mem_sockets.
 * @param out
 *   Filled (lcore is set to -1).
 * @return
 *   0, or -EINVAL (NULL @p out, empty @p mem_sockets, bad fallback).
 */
__rte_experimental
int rte_pmd_ernic_placement_decide(int dev_socket, int lcore_socket,
				   uint64_t mem_sockets, int fallback_socket,
				   struct rte_pmd_ernic_placement *out);

/**
 * Where worker @p idx of net_ernic port @p port_id is now: its device's
 * node, the lcore it is mapped to (lcores= or a service lcore the
 * application mapped), and the node its memory was placed on at the first
 * start (mem_socket; SOCKET_ID_ANY before it).
 *
 * @return
 *   0, -ENODEV (not a net_ernic port), -EINVAL (bad @p idx or NULL @p out).
 */
__rte_experimental
int rte_pmd_ernic_worker_placement(uint16_t port_id, uint16_t idx,
				   struct rte_pmd_ernic_placement *out);

/** Bit mask of the NUMA nodes that can give DPDK memory in this process. */
__rte_experimental
uint64_t rte_pmd_ernic_mem_sockets(void);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_NUMA_H */
