/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands for traffic: `start <mode> [flags]` parses the rest of
 * the line with the command line's option parser and runs the mode in the
 * background, on the lcore after the main one (a runner that is the
 * client, or the one side against a server address; with --loopback the
 * server runs on the lcore after that), so that the prompt keeps reading
 * commands: `show stats`, `show xstats`, `show traffic` while it runs,
 * `--stats-period N` lines on stderr every N seconds. The result table
 * goes to a temporary file; `stop` sets the run's own quit flag, waits for
 * the runner and prints the table. Without the lcores (-l 0-2 for
 * --loopback, -l 0-1 otherwise) the mode runs in the foreground as the
 * command line does (Ctrl-C stops it).
 *
 * While traffic runs, its ports are polled by its lcores only:
 * cli_poll_ports() skips them. When it is over, the prompt polls them
 * once so that it owns their workers again (lib/roce runs control
 * operations on the last thread that polled a worker).
 */
#include <errno.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "cli.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "testpmd.h"

enum { CLI_MAX_ARGS = 32 };

struct traffic {
	bool active;		/**< launched and not collected by stop */
	uint32_t done;		/**< the runner returned (atomic) */
	int ret;
	struct app_opts o;
	FILE *out;
	volatile int quit;
	unsigned int lcore;
	uint16_t port[2];
	unsigned int nports;
	uint64_t t0, t1;
};

static struct traffic tr;

bool
cli_traffic_owns_port(uint16_t port)
{
	unsigned int i;

	if (!tr.active || __atomic_load_n(&tr.done, __ATOMIC_ACQUIRE))
		return false;
	for (i = 0; i < tr.nports; i++)
		if (tr.port[i] == port)
			return true;
	return false;
}

static int
traffic_main(void *arg)
{
	struct traffic *t = arg;

	t->ret = t->o.loopback ? run_loopback_to(&t->o, t->out, &t->quit) :
		run_benchmark_to(&t->o, t->out, &t->quit);
	t->t1 = rte_get_tsc_cycles();
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return t->ret;
}

/* Wait for the runner, print its table and result, release the ports. */
static void
traffic_collect(struct cmdline *cl, bool stopped)
{
	char line[512];
	unsigned int i;

	rte_eal_wait_lcore(tr.lcore);
	fflush(tr.out);
	rewind(tr.out);
	while (fgets(line, sizeof(line), tr.out) != NULL)
		cmdline_printf(cl, "%s", line);
	fclose(tr.out);
	tr.out = NULL;
	for (i = 0; i < tr.nports; i++)
		rte_pmd_ernic_poll(tr.port[i]);
	cmdline_printf(cl, "%s %s after %.1f s\n", tr.o.mode->name,
		       stopped && tr.quit ? "stopped" :
		       tr.ret == 0 ? "done" : "failed",
		       (double)(tr.t1 - tr.t0) / (double)rte_get_tsc_hz());
	tr.active = false;
}

void
cli_traffic_stop(struct cmdline *cl)
{
	if (!tr.active)
		return;
	if (!__atomic_load_n(&tr.done, __ATOMIC_ACQUIRE))
		tr.quit = 1;
	traffic_collect(cl, true);
}

/* ---- start <mode> [flags] ------------------------------------------- */

struct cmd_start {
	cmdline_fixed_string_t start;
	cmdline_multi_string_t args;
};

static void
start_foreground(struct cmdline *cl, struct cli_state *st,
		 const struct app_opts *o, const char *why)
{
	int ret;

	cmdline_printf(cl, "(in the foreground: %s; Ctrl-C stops it)\n", why);
	*st->quit = 0;
	ret = o->loopback ? run_loopback(o, st->quit) :
		run_benchmark(o, st->quit);
	cmdline_printf(cl, "%s %s\n", o->mode->name,
		       *st->quit ? "stopped" : ret == 0 ? "done" : "failed");
	*st->quit = 0;
}

static void
cmd_start_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_start *r = res;
	struct cli_state *st = data;
	char *argv[CLI_MAX_ARGS], *save = NULL, *tok, err[512];
	unsigned int lcore, server_lcore;
	struct app_opts o;
	int argc = 0, ret;

	if (tr.active) {
		cmdline_printf(cl, "%s is %s: stop first\n", tr.o.mode->name,
			       __atomic_load_n(&tr.done, __ATOMIC_ACQUIRE) ?
			       "done (its table is waiting)" : "running");
		return;
	}
	for (tok = strtok_r(r->args, " \t", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (argc == CLI_MAX_ARGS) {
			cmdline_printf(cl, "too many words after start: expected at most %d\n",
				       CLI_MAX_ARGS);
			return;
		}
		argv[argc++] = tok;
	}
	ret = app_opts_parse(argc, argv, &o, err, sizeof(err));
	if (ret == 0 && (o.mode == NULL || o.interactive))
		ret = -1, snprintf(err, sizeof(err), "expected a mode: start <mode> [flags] --loopback | <server>");
	if (ret == 0 && o.help) {
		ret = -1;
		snprintf(err, sizeof(err), "-h: see help and doc/guides/ernic-testpmd.rst");
	}
	if (ret != 0) {
		cmdline_printf(cl, "%s\n", err);
		return;
	}
	lcore = rte_get_next_lcore(rte_get_main_lcore(), 1, 0);
	server_lcore = lcore < RTE_MAX_LCORE ?
		rte_get_next_lcore(lcore, 1, 0) : RTE_MAX_LCORE;
	if (lcore >= RTE_MAX_LCORE ||
	    (o.loopback && server_lcore >= RTE_MAX_LCORE)) {
		start_foreground(cl, st, &o, o.loopback ?
				 "the background needs 3 lcores with --loopback, e.g. -l 0-2" :
				 "the background needs 2 lcores, e.g. -l 0-1");
		return;
	}
	memset(&tr, 0, sizeof(tr));
	tr.o = o;
	tr.lcore = lcore;
	tr.out = tmpfile();
	if (tr.out == NULL) {
		cmdline_printf(cl, "cannot create a file for the results: %s\n",
			       strerror(errno));
		return;
	}
	if (o.loopback) {
		if (port_nth(0, &tr.port[0]) == 0 &&
		    port_nth(1, &tr.port[1]) == 0)
			tr.nports = 2;
	} else if (port_find(o.device, &tr.port[0]) == 0) {
		tr.nports = 1;
	}
	tr.t0 = rte_get_tsc_cycles();
	tr.active = true;
	ret = rte_eal_remote_launch(traffic_main, &tr, lcore);
	if (ret != 0) {
		cmdline_printf(cl, "cannot launch on lcore %u: %s\n", lcore,
			       strerror(-ret));
		fclose(tr.out);
		tr.active = false;
		return;
	}
	if (o.loopback)
		cmdline_printf(cl, "%s started: client on lcore %u, server on lcore %u; stop prints the results\n",
			       o.mode->name, lcore, server_lcore);
	else
		cmdline_printf(cl, "%s started on lcore %u; stop prints the results\n",
			       o.mode->name, lcore);
}

static cmdline_parse_token_string_t cmd_start_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_start, start, "start");
static cmdline_parse_token_string_t cmd_start_args =
	TOKEN_STRING_INITIALIZER(struct cmd_start, args, TOKEN_STRING_MULTI);

static cmdline_parse_inst_t cmd_start = {
	.f = cmd_start_parsed,
	.data = &cli_state,
	.help_str = "start <mode> [perftest flags] --loopback | <server>: run a traffic mode in the background",
	.tokens = { (void *)&cmd_start_tok, (void *)&cmd_start_args, NULL },
};

/* ---- stop, show traffic ---------------------------------------------- */

struct cmd_words {
	cmdline_fixed_string_t a;
	cmdline_fixed_string_t b;
};

static void
cmd_stop_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	if (!tr.active) {
		cmdline_printf(cl, "no traffic to stop (start <mode> ... starts some)\n");
		return;
	}
	cli_traffic_stop(cl);
}

static void
cmd_wait_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cli_state *st = data;

	(void)res;
	if (!tr.active) {
		cmdline_printf(cl, "no traffic to wait for (start <mode> ... starts some)\n");
		return;
	}
	/* until it ends by itself, or Ctrl-C */
	while (!__atomic_load_n(&tr.done, __ATOMIC_ACQUIRE) && !*st->quit)
		rte_delay_us_sleep(10000);
	*st->quit = 0;
	cli_traffic_stop(cl);
}

static cmdline_parse_token_string_t cmd_wait_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_words, a, "wait");

static cmdline_parse_inst_t cmd_wait = {
	.f = cmd_wait_parsed,
	.data = &cli_state,
	.help_str = "wait: wait for the traffic to end (Ctrl-C stops it), print its result table",
	.tokens = { (void *)&cmd_wait_tok, NULL },
};

static cmdline_parse_token_string_t cmd_stop_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_words, a, "stop");

static cmdline_parse_inst_t cmd_stop = {
	.f = cmd_stop_parsed,
	.data = &cli_state,
	.help_str = "stop: stop the traffic and print its result table",
	.tokens = { (void *)&cmd_stop_tok, NULL },
};

static void
cmd_show_traffic_parsed(void *res, struct cmdline *cl, void *data)
{
	uint64_t now = rte_get_tsc_cycles();

	(void)res;
	(void)data;
	if (!tr.active) {
		cmdline_printf(cl, "no traffic\n");
		return;
	}
	if (__atomic_load_n(&tr.done, __ATOMIC_ACQUIRE))
		cmdline_printf(cl, "%s %s after %.1f s: stop prints the results\n",
			       tr.o.mode->name, tr.ret == 0 ? "done" : "failed",
			       (double)(tr.t1 - tr.t0) /
			       (double)rte_get_tsc_hz());
	else
		cmdline_printf(cl, "%s running for %.1f s on lcore %u%s\n",
			       tr.o.mode->name,
			       (double)(now - tr.t0) / (double)rte_get_tsc_hz(),
			       tr.lcore, tr.o.loopback ? " (and the next)" : "");
}

static cmdline_parse_token_string_t cmd_show_traffic_show =
	TOKEN_STRING_INITIALIZER(struct cmd_words, a, "show");
static cmdline_parse_token_string_t cmd_show_traffic_what =
	TOKEN_STRING_INITIALIZER(struct cmd_words, b, "traffic");

static cmdline_parse_inst_t cmd_show_traffic = {
	.f = cmd_show_traffic_parsed,
	.data = &cli_state,
	.help_str = "show traffic: running or done, for how long",
	.tokens = { (void *)&cmd_show_traffic_show,
		    (void *)&cmd_show_traffic_what, NULL },
};

cmdline_parse_inst_t *cli_traffic_cmds[] = {
	&cmd_start,
	&cmd_stop,
	&cmd_wait,
	&cmd_show_traffic,
	NULL,
};
