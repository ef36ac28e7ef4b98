/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt command `start <mode> [flags]`: parse the rest of the line with
 * the same option parser as the command line and run the traffic mode in
 * the foreground (--loopback between two ports, or one side against a
 * server address). Ctrl-C stops it and returns to the prompt.
 */
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_string.h>

#include "cli.h"
#include "testpmd.h"

enum { CLI_MAX_ARGS = 32 };

struct cmd_start {
	cmdline_fixed_string_t start;
	cmdline_multi_string_t args;
};

static void
cmd_start_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_start *r = res;
	struct cli_state *st = data;
	char *argv[CLI_MAX_ARGS], *save = NULL, *tok, err[512];
	struct app_opts o;
	int argc = 0, ret;

	for (tok = strtok_r(r->args, " \t", &save);
	     tok != NULL && argc < CLI_MAX_ARGS;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	ret = app_opts_parse(argc, argv, &o, err, sizeof(err));
	if (ret == 0 && (o.mode == NULL || o.interactive))
		ret = -1, snprintf(err, sizeof(err), "expected a mode: start <mode> [flags] --loopback | <server>");
	if (ret != 0) {
		cmdline_printf(cl, "%s\n", err);
		return;
	}
	*st->quit = 0;
	ret = o.loopback ? run_loopback(&o, st->quit) :
		run_benchmark(&o, st->quit);
	cmdline_printf(cl, "%s %s\n", o.mode->name,
		       *st->quit ? "stopped" : ret == 0 ? "done" : "failed");
	*st->quit = 0;
}

static cmdline_parse_token_string_t cmd_start_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_start, start, "start");
static cmdline_parse_token_string_t cmd_start_args =
	TOKEN_STRING_INITIALIZER(struct cmd_start, args, TOKEN_STRING_MULTI);

static cmdline_parse_inst_t cmd_start = {
	.f = cmd_start_parsed,
	.data = &cli_state,
	.help_str = "start <mode> [perftest flags] --loopback | <server>: run a traffic mode",
	.tokens = { (void *)&cmd_start_tok, (void *)&cmd_start_args, NULL },
};

cmdline_parse_inst_t *cli_traffic_cmds[] = {
	&cmd_start,
	NULL,
};
