/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CLI_CC_H
#define CLI_CC_H

/*
 * Congestion control report of a --loopback run (cli_cc.c,
 * doc/guides/congestion.rst): per flow (QP) the DCQCN state, per port the
 * CE/CNP counters, per net_fault bottleneck its queue counters.
 */

#include <stdint.h>
#include <stdio.h>

#include "roce_cc.h"

struct roce_qp;

enum { CC_SNAP_MAX = 64 };

/** The congestion control state of one side's QPs, taken before they go. */
struct cc_snap {
	uint32_t n;
	uint32_t qpn[CC_SNAP_MAX];
	struct roce_qp_cc_info info[CC_SNAP_MAX];
};

struct rte_pmd_fault_params;

/**
 * The net_fault port with a bottleneck (rate_mbps set) right under ernic
 * port @p port, its parameters in @p prm; -1 when there is none.
 */
int cc_bneck_port(uint16_t port, struct rte_pmd_fault_params *prm);

/** Record the state of @p qp[0..n) (at most CC_SNAP_MAX). */
void cc_snap_take(struct cc_snap *s, struct roce_qp *const *qp, uint32_t n);

/**
 * Print the report of a loopback run between @p port[0] (client) and
 * @p port[1] (server) with their QPs' states @p side[0], @p side[1] —
 * only when congestion control acted (a CE mark, a CNP) or a net_fault
 * bottleneck is under a port. Lines start with "cc: ".
 */
void cc_report_loopback(FILE *out, const uint16_t port[2],
			const struct cc_snap *const side[2]);

#endif /* CLI_CC_H */
