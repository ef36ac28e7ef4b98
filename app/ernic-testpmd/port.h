/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_PORT_H
#define ERNIC_TESTPMD_PORT_H

/**
 * @file
 * net_ernic ports for ernic-testpmd: finding them, starting them, GIDs,
 * path MTU, neighbour resolution, and the built-in loopback pair.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce_verbs.h"

/**
 * Keep the lines that net_ernic logs at level error while rte_eal_init()
 * probes the devices (they still reach stderr): call it before
 * rte_eal_init(), and port_probe_log_end() after.
 */
void port_probe_log_begin(void);
/** Give the log back to the EAL's stream. */
void port_probe_log_end(void);
/**
 * Whether every net_ernic vdev given to the EAL became a port.
 *
 * @return 0, or -ENODEV with "<name>: <the reason the PMD logged>" of the
 *   first one that did not in @p err
 */
int port_check_probed(char *err, size_t len);

/** The net_ernic port called @p name, or the first one when @p name is "". */
int port_find(const char *name, uint16_t *port_id);
/** The @p nth net_ernic port (0-based), or -ENODEV. */
int port_nth(unsigned int nth, uint16_t *port_id);
/** Configure (1 RX, 1 TX queue) and start @p port_id if it is not started. */
int port_start(uint16_t port_id);
/** Wait up to @p seconds for the link of @p port_id, warning when down. */
void port_wait_link(uint16_t port_id, unsigned int seconds);
/** Stop and close every net_ernic port. */
void port_close_all(void);

/**
 * The GID to advertise: index @p want, or when @p want < 0 the first
 * IPv4-mapped GID (perftest get_best_gid_index(): IPv4 over IPv6), else 0.
 */
int port_pick_gid(uint16_t port_id, int want, int *index,
		  union roce_gid *gid);

/** Largest path MTU code (enum roce_mtu) the port carries (its pmtu=). */
unsigned int port_mtu_code(uint16_t port_id);

/**
 * Resolve @p gid to a MAC through the port's neighbour table, calling
 * @p progress (which polls the port) while the request is out.
 */
int port_resolve(uint16_t port_id, const union roce_gid *gid, uint8_t mac[6],
		 unsigned int timeout_s, void (*progress)(void *), void *arg,
		 volatile int *quit);

/**
 * Print the non-zero extended statistics of @p port_id to @p out, one
 * "xstat <port name> <name> <value>" line each (--xstats).
 */
void port_print_xstats(FILE *out, uint16_t port_id);

/** One extended statistic of @p port_id by name; 0 when it has none. */
uint64_t port_xstat(uint16_t port_id, const char *name);

/**
 * One "cycles:" line for @p port_id from its load counters (busy_cycles,
 * busy_polls, idle_polls, rx_roce, tx_roce; doc/guides/pmd.rst): the share
 * of busy polls, TSC cycles a busy poll, a RoCE frame and a frame of the
 * busier direction, and the rate of those one lcore doing nothing but this
 * port's work would reach.
 */
void port_print_cycles(FILE *out, uint16_t port_id);

/** "::ffff:198.18.0.1" or an IPv6 text. */
void port_gid_str(const union roce_gid *gid, char *buf, size_t len);

/**
 * The loopback pair when the EAL created no two net_ernic ports: two
 * net_ring ports crossed in memory (rte_eth_from_rings), each carried by
 * a net_ernic port (198.18.0.1 and 198.18.0.2, pmtu 4096).
 */
int port_make_loopback_pair(uint16_t port_id[2]);

/**
 * port_make_loopback_pair() with a QPN space (max_qps) that holds @p qps
 * QPs besides QP0 and QP1 (at least the PMD's default, 1024).
 */
int port_make_loopback_pair_qps(uint16_t port_id[2], uint32_t qps);

#endif /* ERNIC_TESTPMD_PORT_H */
