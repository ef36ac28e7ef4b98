/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_H
#define RTE_PMD_ERNIC_H

/**
 * @file
 * net_ernic: a virtual ethdev that turns any DPDK port into a RoCEv2 RDMA
 * NIC (doc/guides/pmd.rst).
 *
 * The net_ernic port takes ownership of the underlying port. RoCEv2 frames
 * to a local address go to the QP engines of lib/roce (struct roce_device,
 * struct roce_worker), ARP and IPv6 neighbour discovery for the local
 * addresses are answered by the PMD, and every other frame is delivered
 * through the net_ernic port's own rx_burst; its tx_burst sends the
 * application's frames out of the underlying port.
 *
 * The roce_device and its workers exist from the first rte_eth_dev_start()
 * until rte_eth_dev_close(). Workers are DPDK services named
 * "<port name>_w<index>": map them to service lcores, give the PMD the
 * lcores= devarg, or call rte_pmd_ernic_poll() from the application.
 */

#include <stdint.h>

#include "roce_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The RoCE device of a started net_ernic port.
 *
 * @param port_id the net_ernic port
 * @return the device, or NULL with rte_errno set: ENODEV (not a net_ernic
 *   port), EAGAIN (the port was never started)
 */
struct roce_device *rte_pmd_ernic_get_device(uint16_t port_id);

/**
 * Number of workers of a net_ernic port (the workers= devarg).
 *
 * @return the count, or -ENODEV
 */
int rte_pmd_ernic_nb_workers(uint16_t port_id);

/**
 * Worker @p idx of a started net_ernic port: pass it to roce_create_cq();
 * a QP belongs to the worker of its CQs.
 *
 * @return the worker, or NULL with rte_errno set (ENODEV, EINVAL for an
 *   index out of range, EAGAIN when the port was never started)
 */
struct roce_worker *rte_pmd_ernic_get_worker(uint16_t port_id, uint16_t idx);

/**
 * A worker for the next CQ/QP, round-robin over the port's workers: spread
 * QPs over workers by creating each QP's CQs on the returned worker.
 *
 * @return the worker, or NULL with rte_errno set as rte_pmd_ernic_get_worker()
 */
struct roce_worker *rte_pmd_ernic_pick_worker(uint16_t port_id);

/**
 * Run every worker of the port once, on the calling lcore: for
 * applications without service cores (single-core use). Serialised with
 * service lcores that run the same workers.
 *
 * @return the number of workers that ran, or -ENODEV, or -ENOEXEC when the
 *   port is not started
 */
int rte_pmd_ernic_poll(uint16_t port_id);

/**
 * Resolve the MAC address of an on-link peer GID (IPv4-mapped GID by ARP,
 * IPv6 GID by neighbour discovery) through the port's neighbour table.
 * Non-blocking: the first call sends a request and returns -EAGAIN; call
 * again (while the workers run) until it returns 0. Requests are repeated
 * every second, three times (RFC 4861 RETRANS_TIMER, MAX_MULTICAST_SOLICIT).
 *
 * @param port_id the net_ernic port
 * @param gid the peer's GID
 * @param[out] mac its MAC address when 0 is returned
 * @return 0, -EAGAIN (request sent, retry), -EHOSTUNREACH (no answer, or no
 *   local address of that family), -ENETDOWN (port stopped, entry unknown),
 *   -ENOSPC (neighbour table full), -ENODEV, -EINVAL
 */
int rte_pmd_ernic_resolve(uint16_t port_id, const union roce_gid *gid,
			  uint8_t mac[6]);

/**
 * GID table entry @p index, in Linux RoCE order: 0 the link-local IPv6 GID
 * made from the MAC (fe80::EUI-64), then the IPv4-mapped GID of ip= if
 * given, then the IPv6 GID of ip6= if given. All are RoCEv2 GIDs.
 *
 * @return 0, -ENOENT past the last entry, -ENODEV, -EINVAL
 */
int rte_pmd_ernic_gid(uint16_t port_id, unsigned int index,
		      union roce_gid *gid);

/**
 * Port id of the underlying ethdev the net_ernic port owns.
 *
 * @return the port id, or -ENODEV
 */
int rte_pmd_ernic_underlying_port(uint16_t port_id);

/**
 * Path MTU of the port's QPs in bytes: the pmtu= devarg (256, 512, 1024,
 * 2048 or 4096; 1024 when not given). The port's MTU is at least this
 * plus the RoCEv2 headers (dev_info.min_mtu).
 *
 * @return the PMTU in bytes, or -ENODEV
 */
int rte_pmd_ernic_pmtu(uint16_t port_id);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_H */
