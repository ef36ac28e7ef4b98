/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_CLI_H
#define ERNIC_TESTPMD_CLI_H

/**
 * @file
 * The interactive ernic> prompt (DPDK cmdline): commands are split by
 * object, cli_port.c (ports, GIDs, neighbours, stats), cli_qp.c (PD/MR/CQ/
 * QP life cycle, manual connection, single work requests), cli_reg.c
 * (the PG332 register window by name), cli_hs.c (QPs programmed through
 * the registers, hardware handshake mode) and cli_traffic.c (traffic
 * modes in the background).
 */

#include <stdbool.h>
#include <stdint.h>

#include <cmdline_parse.h>
#include <rte_ethdev.h>

#include "opts.h"
#include "roce_verbs.h"

enum {
	CLI_MAX_QP = 64,
	CLI_BUF_SIZE = 1 << 20,		/**< one registered buffer per port */
	CLI_CQ_DEPTH = 1024,
};

/** Objects created from the prompt on one port. */
struct cli_port_objs {
	struct roce_pd *pd;
	struct roce_mr *mr;
	uint8_t *buf;
	struct roce_cq *cq;
	uint32_t nqp;
};

struct cli_qp {
	struct roce_qp *qp;
	uint16_t port;
	uint32_t psn;		/**< our initial send PSN */
};

struct cli_state {
	const struct app_opts *o;
	volatile int *quit;
	struct cli_port_objs port[RTE_MAX_ETHPORTS];
	struct cli_qp qp[CLI_MAX_QP];
};

/** The prompt's state (the commands' data pointer). */
extern struct cli_state cli_state;

/** Poll every started net_ernic port once (the prompt drives the workers). */
void cli_poll_ports(void *arg);
/** Check that @p port is a started net_ernic port, printing why not. */
bool cli_port_ok(struct cmdline *cl, uint16_t port);
/** Destroy every object created from the prompt. */
void cli_qp_cleanup(struct cli_state *st);
/** Disable the register-programmed QPs of the prompt, free their memory. */
void cli_hs_cleanup(struct cli_state *st);
/** True while background traffic polls @p port (the prompt must not). */
bool cli_traffic_owns_port(uint16_t port);
/** Stop background traffic, if any, and print its result (quit, EOF). */
void cli_traffic_stop(struct cmdline *cl);

/* command lists, NULL-terminated */
extern cmdline_parse_inst_t *cli_port_cmds[];
extern cmdline_parse_inst_t *cli_cc_cmds[];	/**< cli_cc.c */
extern cmdline_parse_inst_t *cli_qp_cmds[];
extern cmdline_parse_inst_t *cli_reg_cmds[];
extern cmdline_parse_inst_t *cli_hs_cmds[];
extern cmdline_parse_inst_t *cli_traffic_cmds[];

#endif /* ERNIC_TESTPMD_CLI_H */
