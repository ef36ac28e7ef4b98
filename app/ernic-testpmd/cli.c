/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interactive prompt: help, quit, and the assembly of the command
 * lists of cli_port.c, cli_qp.c and cli_traffic.c into one cmdline
 * context with tab completion.
 */
#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "cli.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "testpmd.h"

struct cli_state cli_state;

void
cli_poll_ports(void *arg)
{
	uint16_t pid;

	(void)arg;
	RTE_ETH_FOREACH_DEV(pid)
		rte_pmd_ernic_poll(pid);
}

bool
cli_port_ok(struct cmdline *cl, uint16_t port)
{
	if (rte_pmd_ernic_nb_workers(port) <= 0) {
		cmdline_printf(cl, "bad port %u: expected a net_ernic port id (see show port)\n",
			       port);
		return false;
	}
	if (port_start(port) != 0) {
		cmdline_printf(cl, "port %u cannot be started\n", port);
		return false;
	}
	return true;
}

struct cmd_word {
	cmdline_fixed_string_t word;
};

static void
cmd_help_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	cmdline_printf(cl,
		"Ports and statistics:\n"
		"  show port                       net_ernic ports, MACs, links, GIDs\n"
		"  show stats <port>               ethdev statistics\n"
		"  show xstats <port>              non-zero PMD and RoCE counters\n"
		"  clear stats <port>              reset statistics and xstats\n"
		"  resolve <port> <ip>             neighbour (ARP/ND) resolution\n"
		"Objects (one PD, MR and CQ per port, created with the first QP):\n"
		"  create qp <port>                an RC QP in INIT; prints QPN, PSN, rkey, vaddr\n"
		"  destroy qp <n>                  destroy QP n (and the PD/MR/CQ after the last)\n"
		"  show qp <n>                     state, PSNs, destination, path MTU, timers\n"
		"  connect qp <n> <dqpn> <rpsn> <peer-ip> <mtu>\n"
		"                                  INIT->RTR->RTS with manual attributes\n"
		"  modify qp <n> <reset|init|rts|sqd|err>\n"
		"                                  a single state transition\n"
		"  post <n> <send|recv|write|read> <size> <rkey> <vaddr>\n"
		"                                  one signaled work request (rkey/vaddr: 0 for send/recv)\n"
		"  poll <n>                        wait up to 1 s for a completion of QP n\n"
		"Traffic:\n"
		"  start <mode> [perftest flags] --loopback | <server>\n"
		"                                  run a traffic mode in the foreground (Ctrl-C stops it)\n"
		"  help, quit\n");
}

static cmdline_parse_token_string_t cmd_help_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word, "help");

static cmdline_parse_inst_t cmd_help = {
	.f = cmd_help_parsed,
	.data = &cli_state,
	.help_str = "help: list the commands",
	.tokens = { (void *)&cmd_help_tok, NULL },
};

static void
cmd_quit_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t cmd_quit_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_word, word, "quit#exit");

static cmdline_parse_inst_t cmd_quit = {
	.f = cmd_quit_parsed,
	.data = &cli_state,
	.help_str = "quit: leave ernic-testpmd",
	.tokens = { (void *)&cmd_quit_tok, NULL },
};

int
run_interactive(const struct app_opts *o, volatile int *quit)
{
	static cmdline_parse_ctx_t ctx[64];
	cmdline_parse_inst_t **lists[] = { cli_port_cmds, cli_qp_cmds,
					   cli_traffic_cmds };
	struct cmdline *cl;
	unsigned int n = 0, i, k;

	cli_state.o = o;
	cli_state.quit = quit;
	ctx[n++] = &cmd_help;
	ctx[n++] = &cmd_quit;
	for (i = 0; i < RTE_DIM(lists); i++)
		for (k = 0; lists[i][k] != NULL && n < RTE_DIM(ctx) - 1; k++)
			ctx[n++] = lists[i][k];
	ctx[n] = NULL;
	cl = cmdline_stdin_new(ctx, "ernic> ");
	if (cl == NULL) {
		fprintf(stderr, "ernic-testpmd: cannot create the prompt\n");
		return 1;
	}
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
	cli_qp_cleanup(&cli_state);
	return 0;
}
