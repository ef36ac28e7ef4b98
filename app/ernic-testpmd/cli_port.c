/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on ports: show port, show stats, show xstats,
 * clear stats, resolve; and testpmd's forms of the same, show port
 * info|stats|xstats <port>|all and clear port stats|xstats <port>|all,
 * with testpmd's output layout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
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

/* The GID table and each worker's NUMA placement of net_ernic port @p pid. */
static void
show_gids_numa(struct cmdline *cl, uint16_t pid)
{
	char g[64], numa[128];
	union roce_gid gid;
	unsigned int i;

	for (i = 0; rte_pmd_ernic_gid(pid, i, &gid) == 0; i++) {
		port_gid_str(&gid, g, sizeof(g));
		cmdline_printf(cl, "  GID[%u] %s\n", i, g);
	}
	for (i = 0; (int)i < rte_pmd_ernic_nb_workers(pid); i++) {
		numa_placement_str(pid, (uint16_t)i, numa, sizeof(numa));
		cmdline_printf(cl, "  %s\n", numa);
	}
}

static void
cmd_show_port_parsed(void *res, struct cmdline *cl, void *data)
{
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	char name[RTE_ETH_NAME_MAX_LEN], under[RTE_ETH_NAME_MAX_LEN];
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
		show_gids_numa(cl, pid);
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

/* ---- show stats|xstats <port>|all, clear stats <port>|all -------------- */

struct cmd_stats {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t what;
	uint16_t port;
};

struct cmd_stats_all {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t all;
};

/* Every xstat of @p port, or only the non-zero ones, as "<indent>name<sep>value". */
static void
print_xstats(struct cmdline *cl, uint16_t port, bool nonzero, const char *fmt)
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
	    rte_eth_xstats_get(port, xs, (unsigned int)n) == n) {
		for (i = 0; i < n; i++)
			if (!nonzero || xs[i].value != 0)
				cmdline_printf(cl, fmt, names[xs[i].id].name,
					       xs[i].value);
	} else {
		cmdline_printf(cl, "port %u: extended statistics unavailable\n",
			       port);
	}
	free(names);
	free(xs);
}

/* The short forms on one net_ernic port (started when it is not). */
static void
stats_short(struct cmdline *cl, const char *verb, const char *what,
	    uint16_t port)
{
	struct rte_eth_stats st;

	if (!cli_port_ok(cl, port))
		return;
	if (strcmp(verb, "clear") == 0) {
		rte_eth_stats_reset(port);
		rte_eth_xstats_reset(port);
		cmdline_printf(cl, "port %u: statistics cleared\n", port);
		return;
	}
	if (strcmp(what, "xstats") == 0) {
		print_xstats(cl, port, true, "  %-40s %" PRIu64 "\n");
		return;
	}
	if (rte_eth_stats_get(port, &st) != 0)
		return;
	cmdline_printf(cl, "port %u: RX %" PRIu64 " packets %" PRIu64
		       " bytes, missed %" PRIu64 ", errors %" PRIu64 "\n"
		       "         TX %" PRIu64 " packets %" PRIu64
		       " bytes, errors %" PRIu64 "\n",
		       port, st.ipackets, st.ibytes, st.imissed, st.ierrors,
		       st.opackets, st.obytes, st.oerrors);
}

static void
cmd_stats_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_stats *r = res;

	(void)data;
	stats_short(cl, r->verb, r->what, r->port);
}

static void
cmd_stats_all_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_stats_all *r = res;
	unsigned int n = 0;
	uint16_t pid;

	(void)data;
	RTE_ETH_FOREACH_DEV(pid) {
		if (rte_pmd_ernic_nb_workers(pid) <= 0)
			continue;
		/* the other forms name their port on each line */
		if (strcmp(r->verb, "show") == 0 &&
		    strcmp(r->what, "xstats") == 0)
			cmdline_printf(cl, "port %u:\n", pid);
		stats_short(cl, r->verb, r->what, pid);
		n++;
	}
	if (n == 0)
		cmdline_printf(cl, "no net_ernic port\n");
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
static cmdline_parse_token_string_t cmd_stats_all =
	TOKEN_STRING_INITIALIZER(struct cmd_stats_all, all, "all");

static cmdline_parse_inst_t cmd_show_stats = {
	.f = cmd_stats_parsed,
	.data = &cli_state,
	.help_str = "show stats|xstats <port>|all: ethdev statistics, non-zero xstats",
	.tokens = { (void *)&cmd_stats_show, (void *)&cmd_stats_what,
		    (void *)&cmd_stats_port, NULL },
};

static cmdline_parse_inst_t cmd_show_stats_all = {
	.f = cmd_stats_all_parsed,
	.data = &cli_state,
	.help_str = "show stats|xstats <port>|all: ethdev statistics, non-zero xstats",
	.tokens = { (void *)&cmd_stats_show, (void *)&cmd_stats_what,
		    (void *)&cmd_stats_all, NULL },
};

static cmdline_parse_inst_t cmd_clear_stats = {
	.f = cmd_stats_parsed,
	.data = &cli_state,
	.help_str = "clear stats <port>|all: reset statistics and xstats",
	.tokens = { (void *)&cmd_stats_clear, (void *)&cmd_stats_what_clear,
		    (void *)&cmd_stats_port, NULL },
};

static cmdline_parse_inst_t cmd_clear_stats_all = {
	.f = cmd_stats_all_parsed,
	.data = &cli_state,
	.help_str = "clear stats <port>|all: reset statistics and xstats",
	.tokens = { (void *)&cmd_stats_clear, (void *)&cmd_stats_what_clear,
		    (void *)&cmd_stats_all, NULL },
};

/* ---- testpmd's forms: show port info|stats|xstats, clear port stats|xstats */

/*
 * The layout is testpmd's (DPDK 22.11), so that what users read and what
 * their scripts grep carries over; the ports are the application's
 * (RTE_ETH_FOREACH_DEV: not the ports a net_ernic port owns), and showing
 * starts none.
 */

/* Counters and TSC of the last show port stats, for the rates since. */
static struct {
	uint64_t ipackets;
	uint64_t opackets;
	uint64_t ibytes;
	uint64_t obytes;
	uint64_t tsc;
} stats_prev[RTE_MAX_ETHPORTS];

/* Whether @p port is one of the application's ports; if not, says why. */
static bool
port_listed(struct cmdline *cl, uint16_t port)
{
	struct rte_eth_dev_owner owner;
	char list[RTE_MAX_ETHPORTS * 8] = "";
	size_t o = 0;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (pid == port)
			return true;
		if (o < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o,
					      "%s%u", o != 0 ? ", " : "", pid);
	}
	if (o == 0) {
		cmdline_printf(cl, "bad port %u: there is no port\n", port);
		return false;
	}
	if (rte_eth_dev_is_valid_port(port) &&
	    rte_eth_dev_owner_get(port, &owner) == 0 &&
	    owner.id != RTE_ETH_DEV_NO_OWNER)
		cmdline_printf(cl, "bad port %u: the port under %s (owned by it): expected a port id (%s) or all\n",
			       port, owner.name, list);
	else
		cmdline_printf(cl, "bad port %u: expected a port id (%s) or all\n",
			       port, list);
	return false;
}

static const char *
on_off(int v)
{
	return v == 1 ? "enabled" : v == 0 ? "disabled" : "unknown";
}

static void
port_info(struct cmdline *cl, uint16_t pid)
{
	char name[RTE_ETH_NAME_MAX_LEN], under[RTE_ETH_NAME_MAX_LEN];
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	uint16_t mtu = 0;
	int u, ret;

	ret = rte_eth_dev_info_get(pid, &info);
	if (ret != 0) {
		cmdline_printf(cl, "port %u: no device information: %s\n", pid,
			       strerror(-ret));
		return;
	}
	if (rte_eth_dev_get_name_by_port(pid, name) != 0)
		snprintf(name, sizeof(name), "?");
	memset(&mac, 0, sizeof(mac));
	rte_eth_macaddr_get(pid, &mac);
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(pid, &link);
	rte_eth_dev_get_mtu(pid, &mtu);
	da = info.device != NULL ? rte_dev_devargs(info.device) : NULL;
	cmdline_printf(cl, "\n********************* Infos for port %-2u *********************\n",
		       pid);
	cmdline_printf(cl, "MAC address: " RTE_ETHER_ADDR_PRT_FMT "\n",
		       RTE_ETHER_ADDR_BYTES(&mac));
	cmdline_printf(cl, "Device name: %s\n", name);
	cmdline_printf(cl, "Driver name: %s\n", info.driver_name);
	cmdline_printf(cl, "Devargs: %s\n",
		       da != NULL && da->args != NULL ? da->args : "");
	cmdline_printf(cl, "Connect to socket: %d\n",
		       rte_eth_dev_socket_id(pid));
	cmdline_printf(cl, "Link status: %s\n", link.link_status ? "up" : "down");
	cmdline_printf(cl, "Link speed: %s\n",
		       rte_eth_link_speed_to_str(link.link_speed));
	cmdline_printf(cl, "Link duplex: %s\n",
		       link.link_duplex == RTE_ETH_LINK_FULL_DUPLEX ?
		       "full-duplex" : "half-duplex");
	cmdline_printf(cl, "Autoneg status: %s\n",
		       link.link_autoneg == RTE_ETH_LINK_AUTONEG ? "On" : "Off");
	cmdline_printf(cl, "MTU: %u\n", mtu);
	cmdline_printf(cl, "Minimum MTU: %u\n", info.min_mtu);
	cmdline_printf(cl, "Promiscuous mode: %s\n",
		       on_off(rte_eth_promiscuous_get(pid)));
	cmdline_printf(cl, "Allmulticast mode: %s\n",
		       on_off(rte_eth_allmulticast_get(pid)));
	cmdline_printf(cl, "Maximum number of MAC addresses: %u\n",
		       info.max_mac_addrs);
	cmdline_printf(cl, "Current number of RX queues: %u\n",
		       info.nb_rx_queues);
	cmdline_printf(cl, "Max possible RX queues: %u\n", info.max_rx_queues);
	cmdline_printf(cl, "Max possible number of RXDs per queue: %u\n",
		       info.rx_desc_lim.nb_max);
	cmdline_printf(cl, "Current number of TX queues: %u\n",
		       info.nb_tx_queues);
	cmdline_printf(cl, "Max possible TX queues: %u\n", info.max_tx_queues);
	cmdline_printf(cl, "Max possible number of TXDs per queue: %u\n",
		       info.tx_desc_lim.nb_max);
	if (rte_pmd_ernic_nb_workers(pid) <= 0)
		return;
	u = rte_pmd_ernic_underlying_port(pid);
	if (u < 0 || rte_eth_dev_get_name_by_port((uint16_t)u, under) != 0)
		snprintf(under, sizeof(under), "?");
	cmdline_printf(cl, "Underlying port: %d (%s)\n", u, under);
	cmdline_printf(cl, "Workers: %d\n", rte_pmd_ernic_nb_workers(pid));
	cmdline_printf(cl, "Path MTU: up to %u\n",
		       roce_mtu_bytes(port_mtu_code(pid)));
	show_gids_numa(cl, pid);
}

/* A rate per second of @p d over @p dt TSC cycles. */
static uint64_t
per_second(uint64_t d, uint64_t dt)
{
	return dt != 0 ? (uint64_t)((double)d * (double)rte_get_tsc_hz() /
				    (double)dt) : 0;
}

static uint64_t
grown(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

static void
port_stats(struct cmdline *cl, uint16_t pid)
{
	uint64_t now = rte_rdtsc(), dt;
	struct rte_eth_stats st;
	int ret;

	ret = rte_eth_stats_get(pid, &st);
	if (ret != 0) {
		cmdline_printf(cl, "port %u: no statistics: %s\n", pid,
			       strerror(-ret));
		return;
	}
	dt = stats_prev[pid].tsc != 0 ? now - stats_prev[pid].tsc : 0;
	cmdline_printf(cl, "\n  ######################## NIC statistics for port %-2u ########################\n",
		       pid);
	cmdline_printf(cl, "  RX-packets: %-10" PRIu64 " RX-missed: %-10" PRIu64
		       " RX-bytes:  %" PRIu64 "\n", st.ipackets, st.imissed,
		       st.ibytes);
	cmdline_printf(cl, "  RX-errors: %" PRIu64 "\n", st.ierrors);
	cmdline_printf(cl, "  RX-nombuf:  %-10" PRIu64 "\n", st.rx_nombuf);
	cmdline_printf(cl, "  TX-packets: %-10" PRIu64 " TX-errors: %-10" PRIu64
		       " TX-bytes:  %" PRIu64 "\n", st.opackets, st.oerrors,
		       st.obytes);
	cmdline_printf(cl, "\n  Throughput (since last show)\n");
	cmdline_printf(cl, "  Rx-pps: %12" PRIu64 "          Rx-bps: %12" PRIu64
		       "\n", per_second(grown(st.ipackets,
					      stats_prev[pid].ipackets), dt),
		       per_second(8 * grown(st.ibytes, stats_prev[pid].ibytes),
				  dt));
	cmdline_printf(cl, "  Tx-pps: %12" PRIu64 "          Tx-bps: %12" PRIu64
		       "\n", per_second(grown(st.opackets,
					      stats_prev[pid].opackets), dt),
		       per_second(8 * grown(st.obytes, stats_prev[pid].obytes),
				  dt));
	cmdline_printf(cl, "  ############################################################################\n");
	stats_prev[pid].ipackets = st.ipackets;
	stats_prev[pid].opackets = st.opackets;
	stats_prev[pid].ibytes = st.ibytes;
	stats_prev[pid].obytes = st.obytes;
	stats_prev[pid].tsc = now;
}

static void
port_cmd(struct cmdline *cl, const char *verb, const char *what,
	 uint16_t pid)
{
	int ret;

	if (strcmp(verb, "show") == 0) {
		if (strcmp(what, "info") == 0) {
			port_info(cl, pid);
		} else if (strcmp(what, "stats") == 0) {
			port_stats(cl, pid);
		} else {
			cmdline_printf(cl, "###### NIC extended statistics for port %-2u\n",
				       pid);
			print_xstats(cl, pid, false, "%s: %" PRIu64 "\n");
		}
		return;
	}
	if (strcmp(what, "stats") == 0) {
		ret = rte_eth_stats_reset(pid);
		/* the next rates count from here */
		memset(&stats_prev[pid], 0, sizeof(stats_prev[pid]));
	} else {
		ret = rte_eth_xstats_reset(pid);
	}
	if (ret != 0)
		cmdline_printf(cl, "port %u: cannot clear: %s\n", pid,
			       strerror(-ret));
	else
		cmdline_printf(cl, "\n  NIC %sstatistics for port %u cleared\n",
			       strcmp(what, "stats") == 0 ? "" : "extended ",
			       pid);
}

struct cmd_port_one {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t port;
	cmdline_fixed_string_t what;
	uint16_t port_id;
};

struct cmd_port_all {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t port;
	cmdline_fixed_string_t what;
	cmdline_fixed_string_t all;
};

static void
cmd_port_one_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_port_one *r = res;

	(void)data;
	if (port_listed(cl, r->port_id))
		port_cmd(cl, r->verb, r->what, r->port_id);
}

static void
cmd_port_all_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_port_all *r = res;
	unsigned int n = 0;
	uint16_t pid;

	(void)data;
	RTE_ETH_FOREACH_DEV(pid) {
		port_cmd(cl, r->verb, r->what, pid);
		n++;
	}
	if (n == 0)
		cmdline_printf(cl, "no port\n");
}

static cmdline_parse_token_string_t cmd_port_one_show =
	TOKEN_STRING_INITIALIZER(struct cmd_port_one, verb, "show");
static cmdline_parse_token_string_t cmd_port_one_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_port_one, verb, "clear");
static cmdline_parse_token_string_t cmd_port_one_port =
	TOKEN_STRING_INITIALIZER(struct cmd_port_one, port, "port");
static cmdline_parse_token_string_t cmd_port_one_what_show =
	TOKEN_STRING_INITIALIZER(struct cmd_port_one, what, "info#stats#xstats");
static cmdline_parse_token_string_t cmd_port_one_what_clear =
	TOKEN_STRING_INITIALIZER(struct cmd_port_one, what, "stats#xstats");
static cmdline_parse_token_num_t cmd_port_one_id =
	TOKEN_NUM_INITIALIZER(struct cmd_port_one, port_id, RTE_UINT16);
static cmdline_parse_token_string_t cmd_port_all_all =
	TOKEN_STRING_INITIALIZER(struct cmd_port_all, all, "all");

static cmdline_parse_inst_t cmd_show_port_one = {
	.f = cmd_port_one_parsed,
	.data = &cli_state,
	.help_str = "show port info|stats|xstats <port>|all: testpmd's port information, statistics, every xstat",
	.tokens = { (void *)&cmd_port_one_show, (void *)&cmd_port_one_port,
		    (void *)&cmd_port_one_what_show, (void *)&cmd_port_one_id,
		    NULL },
};

static cmdline_parse_inst_t cmd_show_port_all = {
	.f = cmd_port_all_parsed,
	.data = &cli_state,
	.help_str = "show port info|stats|xstats <port>|all: testpmd's port information, statistics, every xstat",
	.tokens = { (void *)&cmd_port_one_show, (void *)&cmd_port_one_port,
		    (void *)&cmd_port_one_what_show, (void *)&cmd_port_all_all,
		    NULL },
};

static cmdline_parse_inst_t cmd_clear_port_one = {
	.f = cmd_port_one_parsed,
	.data = &cli_state,
	.help_str = "clear port stats|xstats <port>|all: reset statistics or xstats",
	.tokens = { (void *)&cmd_port_one_clear, (void *)&cmd_port_one_port,
		    (void *)&cmd_port_one_what_clear, (void *)&cmd_port_one_id,
		    NULL },
};

static cmdline_parse_inst_t cmd_clear_port_all = {
	.f = cmd_port_all_parsed,
	.data = &cli_state,
	.help_str = "clear port stats|xstats <port>|all: reset statistics or xstats",
	.tokens = { (void *)&cmd_port_one_clear, (void *)&cmd_port_one_port,
		    (void *)&cmd_port_one_what_clear, (void *)&cmd_port_all_all,
		    NULL },
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
	&cmd_show_port_one,
	&cmd_show_port_all,
	&cmd_clear_port_one,
	&cmd_clear_port_all,
	&cmd_show_stats,
	&cmd_show_stats_all,
	&cmd_clear_stats,
	&cmd_clear_stats_all,
	&cmd_resolve,
	NULL,
};
