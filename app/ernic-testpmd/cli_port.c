/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on ports: show port, show stats, show xstats,
 * clear stats, resolve.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_ethdev.h>

#include "cli.h"
#include "numa_buf.h"
#include "port.h"
#include "rte_pmd_ernic.h"

/* ---- show port -------------------------------------------------------- */

struct cmd_show_port {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t what;
};

static void
cmd_show_port_parsed(void *res, struct cmdline *cl, void *data)
{
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	char name[RTE_ETH_NAME_MAX_LEN], under[RTE_ETH_NAME_MAX_LEN], g[64];
	char numa[128];
	union roce_gid gid;
	unsigned int i;
	uint16_t pid;
	int u;

	(void)res;
	(void)data;
	RTE_ETH_FOREACH_DEV(pid) {
		if (rte_pmd_ernic_nb_workers(pid) <= 0)
			continue;
		rte_eth_dev_get_name_by_port(pid, name);
		u = rte_pmd_ernic_underlying_port(pid);
		if (u < 0 || rte_eth_dev_get_name_by_port((uint16_t)u, under) != 0)
			snprintf(under, sizeof(under), "?");
		rte_eth_macaddr_get(pid, &mac);
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(pid, &link);
		cmdline_printf(cl, "port %u: %s on %s, MAC " RTE_ETHER_ADDR_PRT_FMT
			       ", link %s, %d worker(s), path MTU up to %u\n",
			       pid, name, under, RTE_ETHER_ADDR_BYTES(&mac),
			       link.link_status ? "up" : "down",
			       rte_pmd_ernic_nb_workers(pid),
			       roce_mtu_bytes(port_mtu_code(pid)));
		for (i = 0; rte_pmd_ernic_gid(pid, i, &gid) == 0; i++) {
			port_gid_str(&gid, g, sizeof(g));
			cmdline_printf(cl, "  GID[%u] %s\n", i, g);
		}
		for (i = 0; (int)i < rte_pmd_ernic_nb_workers(pid); i++) {
			numa_placement_str(pid, (uint16_t)i, numa, sizeof(numa));
			cmdline_printf(cl, "  %s\n", numa);
		}
	}
}

static cmdline_parse_token_string_t cmd_show_port_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port, show, "show");
static cmdline_parse_token_string_t cmd_show_port_what =
	TOKEN_STRING_INITIALIZER(struct cmd_show_port, what, "port");

static cmdline_parse_inst_t cmd_show_port = {
	.f = cmd_show_port_parsed,
	.data = &cli_state,
	.help_str = "show port: net_ernic ports, MACs, links and GID tables",
	.tokens = { (void *)&cmd_show_port_show, (void *)&cmd_show_port_what,
		    NULL },
};

/* ---- show stats|xstats <port>, clear stats <port> ---------------------- */

struct cmd_stats {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t what;
	uint16_t port;
};

static void
show_xstats(struct cmdline *cl, uint16_t port)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *xs;
	int n, i;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	xs = calloc((size_t)n, sizeof(*xs));
	if (names != NULL && xs != NULL &&
	    rte_eth_xstats_get_names(port, names, (unsigned int)n) == n &&
	    rte_eth_xstats_get(port, xs, (unsigned int)n) == n)
		for (i = 0; i < n; i++)
			if (xs[i].value != 0)
				cmdline_printf(cl, "  %-40s %" PRIu64 "\n",
					       names[xs[i].id].name,
					       xs[i].value);
	free(names);
	free(xs);
}

static void
cmd_stats_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_stats *r = res;
	struct rte_eth_stats st;

	(void)data;
	if (!cli_port_ok(cl, r->port))
		return;
	if (strcmp(r->verb, "clear") == 0) {
		rte_eth_stats_reset(r->port);
		rte_eth_xstats_reset(r->port);
		cmdline_printf(cl, "port %u: statistics cleared\n", r->port);
		return;
	}
	if (strcmp(r->what, "xstats") == 0) {
		show_xstats(cl, r->port);
		return;
	}
	if (rte_eth_stats_get(r->port, &st) != 0)
		return;
	cmdline_printf(cl, "port %u: RX %" PRIu64 " packets %" PRIu64
		       " bytes, missed %" PRIu64 ", errors %" PRIu64 "\n"
		       "         TX %" PRIu64 " packets %" PRIu64
		       " bytes, errors %" PRIu64 "\n",
		       r->port, st.ipackets, st.ibytes, st.imissed, st.ierrors,
		       st.opackets, st.obytes, st.oerrors);
}

static cmdline_parse_token_string_t cmd_stats_show =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, verb, "show");
static cmdline_parse_token_string_t cmd_stats_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, verb, "clear");
static cmdline_parse_token_string_t cmd_stats_what =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, what, "stats#xstats");
static cmdline_parse_token_string_t cmd_stats_what_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_stats, what, "stats");
static cmdline_parse_token_num_t cmd_stats_port =
	TOKEN_NUM_INITIALIZER(struct cmd_stats, port, RTE_UINT16);

static cmdline_parse_inst_t cmd_show_stats = {
	.f = cmd_stats_parsed,
	.data = &cli_state,
	.help_str = "show stats|xstats <port>: ethdev statistics, non-zero xstats",
	.tokens = { (void *)&cmd_stats_show, (void *)&cmd_stats_what,
		    (void *)&cmd_stats_port, NULL },
};

static cmdline_parse_inst_t cmd_clear_stats = {
	.f = cmd_stats_parsed,
	.data = &cli_state,
	.help_str = "clear stats <port>: reset statistics and xstats",
	.tokens = { (void *)&cmd_stats_clear, (void *)&cmd_stats_what_clear,
		    (void *)&cmd_stats_port, NULL },
};

/* ---- resolve <port> <ip> ----------------------------------------------- */

struct cmd_resolve {
	cmdline_fixed_string_t resolve;
	uint16_t port;
	cmdline_fixed_string_t ip;
};

static void
cmd_resolve_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_resolve *r = res;
	struct cli_state *st = data;
	union roce_gid gid;
	struct in_addr a4;
	uint8_t mac[6];
	int ret;

	if (!cli_port_ok(cl, r->port))
		return;
	memset(&gid, 0, sizeof(gid));
	if (inet_pton(AF_INET, r->ip, &a4) == 1) {
		gid.raw[10] = 0xff;
		gid.raw[11] = 0xff;
		memcpy(&gid.raw[12], &a4, 4);
	} else if (inet_pton(AF_INET6, r->ip, gid.raw) != 1) {
		cmdline_printf(cl, "bad address \"%s\": expected an IPv4 or IPv6 address\n",
			       r->ip);
		return;
	}
	ret = port_resolve(r->port, &gid, mac, 4, cli_poll_ports, NULL,
			   st->quit);
	if (ret != 0)
		cmdline_printf(cl, "%s: not resolved (%s)\n", r->ip,
			       strerror(-ret));
	else
		cmdline_printf(cl, "%s is at %02x:%02x:%02x:%02x:%02x:%02x\n",
			       r->ip, mac[0], mac[1], mac[2], mac[3], mac[4],
			       mac[5]);
}

static cmdline_parse_token_string_t cmd_resolve_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_resolve, resolve, "resolve");
static cmdline_parse_token_num_t cmd_resolve_port =
	TOKEN_NUM_INITIALIZER(struct cmd_resolve, port, RTE_UINT16);
static cmdline_parse_token_string_t cmd_resolve_ip =
	TOKEN_STRING_INITIALIZER(struct cmd_resolve, ip, NULL);

static cmdline_parse_inst_t cmd_resolve = {
	.f = cmd_resolve_parsed,
	.data = &cli_state,
	.help_str = "resolve <port> <ip>: the neighbour's MAC (ARP or ND)",
	.tokens = { (void *)&cmd_resolve_tok, (void *)&cmd_resolve_port,
		    (void *)&cmd_resolve_ip, NULL },
};

cmdline_parse_inst_t *cli_port_cmds[] = {
	&cmd_show_port,
	&cmd_show_stats,
	&cmd_clear_stats,
	&cmd_resolve,
	NULL,
};
