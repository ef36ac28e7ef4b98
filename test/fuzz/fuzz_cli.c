/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the ernic-testpmd prompt (app/ernic-testpmd/cli*.c),
 * fed arbitrary command lines through DPDK's cmdline parser, against two
 * crossed net_ernic ports on in-memory net_ring ports (the --loopback pair:
 * 198.18.0.1 and 198.18.0.2).
 *
 * The input is text, one command per line (at most 32 lines). The commands
 * of the ports, QPs and work requests are all reachable; left out are those
 * that block by design: `start` (a traffic mode in the foreground) and
 * `poll` (waits up to 1 s). Neighbour resolution is limited to the cache
 * (the two loopback addresses, resolved once at start-up): the quit flag
 * is set, so an unknown address fails at once instead of after 4 s.
 * After every input the objects made from the prompt are destroyed, as
 * when the prompt ends.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <rte_ethdev.h>

#include "cli.h"
#include "fuzz_common.h"
#include "opts.h"
#include "port.h"
#include "rte_pmd_ernic.h"

enum {
	MAX_LINES = 32,
	LINE_MAX_LEN = 512,
};

static cmdline_parse_ctx_t ctx[64];
static struct cmdline *cl;
static struct app_opts opts;
static volatile int quit_flag;

static bool
blocking(const cmdline_parse_inst_t *inst)
{
	return strncmp(inst->help_str, "poll ", 5) == 0 ||
	       strncmp(inst->help_str, "start ", 6) == 0;
}

static void
resolve_once(uint16_t port, const uint8_t ip[4])
{
	union roce_gid g;
	uint8_t mac[6];

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	memcpy(g.raw + 12, ip, 4);
	if (port_resolve(port, &g, mac, 4, cli_poll_ports, NULL, NULL) != 0)
		fuzz_fail("the loopback pair does not resolve");
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t ip[2][4] = { { 198, 18, 0, 1 },
					  { 198, 18, 0, 2 } };
	cmdline_parse_inst_t **lists[] = { cli_port_cmds, cli_qp_cmds,
					   cli_traffic_cmds };
	uint16_t ports[2];
	unsigned int n = 0, i, k;
	char err[256];
	char *args[] = { (char *)(uintptr_t)"-i", NULL };
	int fd;

	(void)argc;
	fuzz_eal_init((*argv)[0], NULL, 0);
	/* what `ernic-testpmd -- -i` runs the prompt with */
	if (app_opts_parse(1, args, &opts, err, sizeof(err)) != 0)
		fuzz_fail(err);
	if (port_make_loopback_pair(ports) != 0 ||
	    port_start(ports[0]) != 0 || port_start(ports[1]) != 0)
		fuzz_fail("cannot make the loopback pair");
	port_wait_link(ports[0], 5);
	port_wait_link(ports[1], 5);
	resolve_once(ports[0], ip[1]);
	resolve_once(ports[1], ip[0]);
	for (i = 0; i < RTE_DIM(lists); i++)
		for (k = 0; lists[i][k] != NULL && n < RTE_DIM(ctx) - 1; k++)
			if (!blocking(lists[i][k]))
				ctx[n++] = lists[i][k];
	ctx[n] = NULL;
	cli_state.o = &opts;
	cli_state.quit = &quit_flag;
	quit_flag = 1;
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		fuzz_fail("cannot open /dev/null");
	cl = cmdline_new(ctx, "ernic> ", fd, fd);
	if (cl == NULL)
		fuzz_fail("cannot create the prompt");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[LINE_MAX_LEN + 2];
	size_t pos = 0, len;
	unsigned int n = 0;

	while (pos < size && n++ < MAX_LINES) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);

		len = nl != NULL ? (size_t)(nl - (data + pos)) : size - pos;
		if (len > LINE_MAX_LEN)
			len = LINE_MAX_LEN;
		memcpy(line, data + pos, len);
		line[len] = '\n';
		line[len + 1] = '\0';
		pos += (nl != NULL ? (size_t)(nl - (data + pos)) + 1 : size - pos);
		/* what the prompt gets from rdline: a string up to the NUL */
		cmdline_parse(cl, line);
		cli_poll_ports(NULL);
	}
	cli_qp_cleanup(&cli_state);
	return 0;
}
