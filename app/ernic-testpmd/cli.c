/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interactive prompt: help, quit, the assembly of the command lists of
 * cli_port.c, cli_qp.c, cli_reg.c, cli_hs.c and cli_traffic.c into one
 * cmdline context with tab completion, and the diagnosis of lines that
 * match no command.
 *
 * DPDK's cmdline only says "Command not found" or "Bad arguments". The
 * last instance of the context is a catch-all whose one token accepts a
 * line only when no other instance matches it completely (so it never
 * makes a valid line ambiguous); its callback finds the instances that
 * matched the most tokens and names the word that broke the match and
 * what was expected there, with the command's usage.
 */
#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <cmdline_socket.h>

#include "cli.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "testpmd.h"

struct cli_state cli_state;

enum {
	CLI_MAX_INSTS = 128,
	CLI_LINE_MAX = 512,
	CLI_WORD_MAX = 128,
};

static cmdline_parse_ctx_t cli_ctx[CLI_MAX_INSTS];

void
cli_poll_ports(void *arg)
{
	uint16_t pid;

	(void)arg;
	RTE_ETH_FOREACH_DEV(pid)
		if (!cli_traffic_owns_port(pid))
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
	/*
	 * port_start() polls the port to see whether it runs: not while
	 * traffic polls it (its lcores must stay the workers' only pollers)
	 */
	if (cli_traffic_owns_port(port))
		return true;
	if (port_start(port) != 0) {
		cmdline_printf(cl, "port %u cannot be started\n", port);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* help, quit                                                         */
/* ------------------------------------------------------------------ */

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
		"  show stats <port>|all           ethdev statistics (also while traffic runs)\n"
		"  show xstats <port>|all          non-zero PMD and RoCE counters\n"
		"  clear stats <port>|all          reset statistics and xstats\n"
		"  show port info|stats|xstats <port>|all\n"
		"                                  testpmd's forms: port information, statistics\n"
		"                                  with rates since the last show, every xstat\n"
		"  clear port stats|xstats <port>|all\n"
		"                                  reset statistics, or xstats\n"
		"  resolve <port> <ip>             neighbour (ARP/ND) resolution\n"
		"  show cc <port>                  congestion control parameters, CE/CNP counters\n"
		"  set cc <port> <param> <value>   one DCQCN/ECN parameter (names of show cc)\n"
		"Verbs objects (one PD, MR and CQ per port, created with the first QP):\n"
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
		"ERNIC registers (PG332 names, tab completes; index: QPN or PD entry):\n"
		"  reg port <port>                 the port reg commands act on (default: the first)\n"
		"  reg list                        every register name and offset\n"
		"  reg read <NAME> [index]         one register\n"
		"  reg write <NAME> [index] <value>\n"
		"                                  one register (PG332 write semantics)\n"
		"  reg dump [qpn] | reg dump pd <entry>\n"
		"                                  the global block, a QP block or a PD entry\n"
		"ERNIC QPs programmed through the registers, hardware handshake:\n"
		"  ernic qp <port> <qpn> <dqpn> <peer-ip>\n"
		"                                  program and enable RC QP qpn (PG332 flow)\n"
		"  qp handshake <port> <qpn> on|off\n"
		"                                  hardware handshake mode on or off\n"
		"  hs post <port> <qpn> <write|send|read> <size> [count]\n"
		"                                  WQEs through the handshake port (or SQPI)\n"
		"  hs bench <port> <qpn> <write|send|read> <size> <count>\n"
		"                                  keep the queue full: MB/s and Mpps\n"
		"  show ernic qp <port> <qpn>      mode, indexes, CQHEAD, STATQP of the QP\n"
		"Traffic (background; show stats works meanwhile):\n"
		"  start <mode> [perftest flags] --loopback | <server>\n"
		"                                  start a traffic mode on other lcores\n"
		"  show traffic                    running or finished, elapsed time\n"
		"  wait                            wait for it to end (Ctrl-C stops it), print as stop\n"
		"  stop                            stop it and print its result table\n"
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

/* ------------------------------------------------------------------ */
/* matching, as cmdline's match_inst(), for the diagnosis             */
/* ------------------------------------------------------------------ */

enum match_end {
	M_FULL,		/* every token, nothing after */
	M_EXTRA,	/* every token, words after */
	M_SHORT,	/* the line ended before the tokens */
	M_BAD,		/* a word did not parse */
};

struct match {
	unsigned int ntok;	/* tokens matched */
	enum match_end end;
	const char *at;		/* the word that broke it (M_BAD, M_EXTRA) */
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool
is_eol(char c)
{
	return c == '\0' || c == '\n' || c == '\r' || c == '#';
}

static void
match_line(cmdline_parse_inst_t *inst, const char *buf, struct match *m)
{
	static char res[CMDLINE_PARSE_RESULT_BUFSIZE];
	cmdline_parse_token_hdr_t *tk;
	int n;

	memset(m, 0, sizeof(*m));
	for (;; m->ntok++) {
		tk = inst->tokens[m->ntok];
		while (is_blank(*buf))
			buf++;
		if (tk == NULL) {
			m->end = is_eol(*buf) ? M_FULL : M_EXTRA;
			m->at = buf;
			return;
		}
		if (is_eol(*buf)) {
			m->end = M_SHORT;
			return;
		}
		n = tk->offset < sizeof(res) ?
			tk->ops->parse(tk, buf, res + tk->offset,
				       sizeof(res) - tk->offset) : -1;
		if (n < 0) {
			m->end = M_BAD;
			m->at = buf;
			return;
		}
		buf += n;
	}
}

/* What token @p tk accepts, in words. */
static void
token_expect(cmdline_parse_token_hdr_t *tk, char *buf, size_t len)
{
	char e[CLI_WORD_MAX], h[64] = "";
	int i, n = 0;
	size_t o = 0;

	if (tk->ops->complete_get_nb != NULL && tk->ops->complete_get_elt != NULL)
		n = tk->ops->complete_get_nb(tk);
	if (n > 0 && n <= 12) {
		for (i = 0; i < n && o < len; i++) {
			if (tk->ops->complete_get_elt(tk, i, e, sizeof(e)) < 0)
				continue;
			o += snprintf(buf + o, len - o, "%s%s", o ? ", " : "", e);
		}
		return;
	}
	if (n > 12) {
		snprintf(buf, len, "a name (%d choices, tab completes)", n);
		if (tk->ops->get_help != NULL)
			tk->ops->get_help(tk, buf, len);
		return;
	}
	if (tk->ops->get_help != NULL)
		tk->ops->get_help(tk, h, sizeof(h));
	if (strcmp(h, "UINT8") == 0)
		snprintf(buf, len, "a number 0..255");
	else if (strcmp(h, "UINT16") == 0)
		snprintf(buf, len, "a number 0..65535");
	else if (strcmp(h, "UINT32") == 0)
		snprintf(buf, len, "a number 0..4294967295 (decimal or 0x hex)");
	else if (strcmp(h, "UINT64") == 0)
		snprintf(buf, len, "a 64-bit number (decimal or 0x hex)");
	else if (tk->ops == &cmdline_token_string_ops)
		snprintf(buf, len, "a word");
	else
		snprintf(buf, len, "%s", h[0] != '\0' ? h : "a value");
}

/* Word @p i of the usage part of a help string ("show qp <n>: ..."). */
static void
usage_word(const char *help, unsigned int i, char *buf, size_t len)
{
	const char *p = help, *end = strchr(help, ':');
	size_t n;

	buf[0] = '\0';
	if (end == NULL)
		end = help + strlen(help);
	while (p < end) {
		while (p < end && is_blank(*p))
			p++;
		n = strcspn(p, " \t:");
		if (p + n > end)
			n = (size_t)(end - p);
		if (i-- == 0) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return;
		}
		p += n;
	}
}

static void
usage_of(const char *help, char *buf, size_t len)
{
	const char *end = strchr(help, ':');

	snprintf(buf, len, "%.*s", (int)(end != NULL ? end - help :
					  (long)strlen(help)), help);
}

static size_t
word_len(const char *p)
{
	size_t n = 0;

	while (!is_eol(p[n]) && !is_blank(p[n]))
		n++;
	return n;
}

/* Print why @p line matches no command. */
static void
diagnose(struct cmdline *cl, const char *line)
{
	char exp[512] = "", one[256], uw[64], usage[160], prefix[CLI_LINE_MAX];
	struct match m, best = { 0, M_FULL, NULL };
	cmdline_parse_inst_t *first = NULL;
	unsigned int i, nties = 0;
	bool uw_differs = false;
	const char *p = line;

	while (is_blank(*p))
		p++;
	/* the best match: most tokens; a broken word over extra words */
	for (i = 0; cli_ctx[i] != NULL && cli_ctx[i + 1] != NULL; i++) {
		match_line(cli_ctx[i], p, &m);
		if (m.ntok == 0)
			continue;
		if (first == NULL || m.ntok > best.ntok ||
		    (m.ntok == best.ntok && best.end == M_EXTRA &&
		     m.end != M_EXTRA)) {
			best = m;
			first = cli_ctx[i];
			nties = 0;
			exp[0] = '\0';
			uw_differs = false;
		}
		if (m.ntok != best.ntok || m.end != best.end)
			continue;
		/* the tied commands must name the word alike */
		usage_word(cli_ctx[i]->help_str != NULL ?
			   cli_ctx[i]->help_str : "", m.ntok, one, sizeof(one));
		if (nties == 0)
			snprintf(uw, sizeof(uw), "%s", one);
		else if (strcmp(uw, one) != 0)
			uw_differs = true;
		/* the union of what the tied commands expect next */
		if (m.end != M_EXTRA) {
			token_expect(cli_ctx[i]->tokens[m.ntok], one,
				     sizeof(one));
			if (strstr(exp, one) == NULL)
				snprintf(exp + strlen(exp),
					 sizeof(exp) - strlen(exp), "%s%s",
					 exp[0] != '\0' ? ", " : "", one);
		}
		nties++;
	}
	if (first == NULL) {
		/* no first word matched: list the commands */
		for (i = 0; cli_ctx[i] != NULL && cli_ctx[i + 1] != NULL; i++) {
			token_expect(cli_ctx[i]->tokens[0], one, sizeof(one));
			if (strstr(exp, one) == NULL)
				snprintf(exp + strlen(exp),
					 sizeof(exp) - strlen(exp), "%s%s",
					 exp[0] != '\0' ? ", " : "", one);
		}
		cmdline_printf(cl, "unknown command \"%.*s\": expected one of %s (help lists them)\n",
			       (int)word_len(p), p, exp);
		return;
	}
	/*
	 * a word where another command could have ended the line ("show
	 * port 5": show port, show port info ...): say that the end fits too
	 */
	for (i = 0; best.end == M_BAD && cli_ctx[i] != NULL &&
		    cli_ctx[i + 1] != NULL; i++) {
		match_line(cli_ctx[i], p, &m);
		if (m.end == M_EXTRA && m.ntok == best.ntok) {
			snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp),
				 " or the end of the line");
			break;
		}
	}
	usage_of(first->help_str != NULL ? first->help_str : "", usage,
		 sizeof(usage));
	/* the words that did match */
	snprintf(prefix, sizeof(prefix), "%.*s",
		 (int)(best.at != NULL ? best.at - p : (long)strcspn(p, "\r\n#")),
		 p);
	while (prefix[0] != '\0' && is_blank(prefix[strlen(prefix) - 1]))
		prefix[strlen(prefix) - 1] = '\0';
	if (uw[0] != '<' || uw_differs)
		snprintf(uw, sizeof(uw), "word");
	switch (best.end) {
	case M_BAD:
		cmdline_printf(cl, "bad %s \"%.*s\" after \"%s\": expected %s%s%s%s\n",
			       uw, (int)word_len(best.at), best.at, prefix, exp,
			       nties == 1 ? " (usage: " : "",
			       nties == 1 ? usage : "", nties == 1 ? ")" : "");
		break;
	case M_SHORT:
		cmdline_printf(cl, "missing %s after \"%s\": expected %s%s%s%s\n",
			       uw, prefix, exp, nties == 1 ? " (usage: " : "",
			       nties == 1 ? usage : "", nties == 1 ? ")" : "");
		break;
	default:
		cmdline_printf(cl, "unexpected \"%.*s\" after \"%s\": expected the end of the line (usage: %s)\n",
			       (int)word_len(best.at), best.at, prefix, usage);
		break;
	}
}

/* ---- the catch-all token: a line no other command matches ------------ */

struct cmd_other {
	char line[CLI_LINE_MAX];
};

static int
other_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
	    unsigned int ressize)
{
	static bool busy;
	struct match m;
	size_t n;
	unsigned int i;

	(void)tk;
	if (busy)
		return -1;
	/* completion passes partial lines without an end of line */
	n = strcspn(buf, "\r\n");
	if (buf[n] == '\0')
		return -1;
	busy = true;
	for (i = 0; cli_ctx[i] != NULL && cli_ctx[i + 1] != NULL; i++) {
		match_line(cli_ctx[i], buf, &m);
		if (m.end == M_FULL && m.ntok > 0)
			break;
	}
	busy = false;
	if (cli_ctx[i] != NULL && cli_ctx[i + 1] != NULL)
		return -1;	/* a real command: not ours */
	if (res != NULL && ressize >= sizeof(struct cmd_other))
		snprintf(res, sizeof(struct cmd_other), "%.*s", (int)n, buf);
	return (int)n;
}

static int
other_help(cmdline_parse_token_hdr_t *tk, char *buf, unsigned int size)
{
	(void)tk;
	snprintf(buf, size, "help");
	return 0;
}

static struct cmdline_token_ops other_ops = {
	.parse = other_parse,
	.get_help = other_help,
};

static cmdline_parse_token_hdr_t cmd_other_tok = {
	.ops = &other_ops,
	.offset = 0,
};

static void
cmd_other_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_other *r = res;

	(void)data;
	diagnose(cl, r->line);
}

static cmdline_parse_inst_t cmd_other = {
	.f = cmd_other_parsed,
	.data = &cli_state,
	.help_str = "lists the commands",
	.tokens = { &cmd_other_tok, NULL },
};

/* ------------------------------------------------------------------ */

int
run_interactive(const struct app_opts *o, volatile int *quit)
{
	cmdline_parse_inst_t **lists[] = { cli_port_cmds, cli_cc_cmds,
					   cli_qp_cmds,
					   cli_reg_cmds, cli_hs_cmds,
					   cli_traffic_cmds };
	struct cmdline *cl;
	unsigned int n = 0, i, k;
	uint16_t pair[2];
	int ret;

	cli_state.o = o;
	cli_state.quit = quit;
	if (o->loopback &&
	    (port_nth(0, &pair[0]) != 0 || port_nth(1, &pair[1]) != 0)) {
		/* -i --loopback: the crossed net_ring pair, ports started */
		ret = port_make_loopback_pair_qps(pair, o->num_qps);
		for (i = 0; ret == 0 && i < 2; i++)
			ret = port_start(pair[i]);
		if (ret != 0) {
			fprintf(stderr, "ernic-testpmd: cannot create the loopback ports: %s\n",
				strerror(-ret));
			return 1;
		}
		for (i = 0; i < 2; i++)
			port_wait_link(pair[i], 5);
	}
	cli_ctx[n++] = &cmd_help;
	cli_ctx[n++] = &cmd_quit;
	for (i = 0; i < RTE_DIM(lists); i++)
		for (k = 0; lists[i][k] != NULL && n < CLI_MAX_INSTS - 2; k++)
			cli_ctx[n++] = lists[i][k];
	cli_ctx[n++] = &cmd_other;	/* last: see diagnose() */
	cli_ctx[n] = NULL;
	cl = cmdline_stdin_new(cli_ctx, "ernic> ");
	if (cl == NULL) {
		fprintf(stderr, "ernic-testpmd: cannot create the prompt\n");
		return 1;
	}
	cmdline_interact(cl);
	cli_traffic_stop(cl);	/* end of input: stop what still runs */
	cmdline_stdin_exit(cl);
	cli_hs_cleanup(&cli_state);
	cli_qp_cleanup(&cli_state);
	return 0;
}
