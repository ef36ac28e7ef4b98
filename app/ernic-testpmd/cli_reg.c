/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on the ERNIC (PG332) register window of a net_ernic
 * port, by register name (rte_pmd_ernic_reg_by_name()): reg port, reg
 * list, reg read, reg write, reg dump. Register names are a token type of
 * their own: it completes with the Tab key (every name the window knows,
 * collected from rte_pmd_ernic_reg_name()) and matches names whatever
 * their case.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include "cli.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_regs.h"

/* the window's layout (rte_pmd_ernic_regs.h) */
enum {
	WIN_PDT = 0x0,
	WIN_PDT_STRIDE = 0x100,
	WIN_PDT_ENTRIES = 2048,
	WIN_GCSR = 0x100000,
	WIN_GCSR_SIZE = 0x200,
	WIN_QCSR = 0x180000,
	WIN_QCSR_STRIDE = 0x100,
	WIN_QP_MAX = 2048,
	REG_MAX_NAMES = 256,
};

enum reg_kind {
	REG_PD,		/* PD table entry register: index = entry */
	REG_GLOBAL,	/* global block: no index */
	REG_QP,		/* per-QP block: index = QPN */
};

struct reg_name {
	const char *name;
	enum reg_kind kind;
	uint32_t rel;		/* offset in its block */
};

static struct reg_name reg_names[REG_MAX_NAMES];
static unsigned int nb_reg_names;
static uint16_t reg_port;
static bool reg_port_set;

static void
reg_names_add(enum reg_kind kind, uint32_t base, uint32_t size)
{
	const char *n;
	uint32_t rel;

	for (rel = 0; rel < size && nb_reg_names < REG_MAX_NAMES; rel += 4) {
		n = rte_pmd_ernic_reg_name(base + rel, NULL);
		if (n == NULL)
			continue;
		reg_names[nb_reg_names].name = n;
		reg_names[nb_reg_names].kind = kind;
		reg_names[nb_reg_names].rel = rel;
		nb_reg_names++;
	}
}

static void
reg_names_load(void)
{
	if (nb_reg_names > 0)
		return;
	reg_names_add(REG_GLOBAL, WIN_GCSR, WIN_GCSR_SIZE);
	reg_names_add(REG_QP, WIN_QCSR, WIN_QCSR_STRIDE);
	reg_names_add(REG_PD, WIN_PDT, WIN_PDT_STRIDE);
}

static const struct reg_name *
reg_find(const char *name, size_t len)
{
	unsigned int i;

	reg_names_load();
	for (i = 0; i < nb_reg_names; i++)
		if (strlen(reg_names[i].name) == len &&
		    strncasecmp(reg_names[i].name, name, len) == 0)
			return &reg_names[i];
	return NULL;
}

/* ---- the register name token --------------------------------------- */

static int
regname_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
	      unsigned int ressize)
{
	size_t n = 0;

	(void)tk;
	while (!cmdline_isendoftoken(buf[n]))
		n++;
	if (n == 0 || n >= sizeof(cmdline_fixed_string_t) ||
	    reg_find(buf, n) == NULL)
		return -1;
	if (res != NULL) {
		if (ressize < n + 1)
			return -1;
		memcpy(res, buf, n);
		((char *)res)[n] = '\0';
	}
	return (int)n;
}

static int
regname_nb(cmdline_parse_token_hdr_t *tk)
{
	(void)tk;
	reg_names_load();
	return (int)nb_reg_names;
}

static int
regname_elt(cmdline_parse_token_hdr_t *tk, int idx, char *buf,
	    unsigned int size)
{
	(void)tk;
	reg_names_load();
	if (idx < 0 || (unsigned int)idx >= nb_reg_names)
		return -1;
	snprintf(buf, size, "%s", reg_names[idx].name);
	return 0;
}

static int
regname_help(cmdline_parse_token_hdr_t *tk, char *buf, unsigned int size)
{
	(void)tk;
	snprintf(buf, size, "a PG332 register name (reg list shows them; Tab completes)");
	return 0;
}

static struct cmdline_token_ops regname_ops = {
	.parse = regname_parse,
	.complete_get_nb = regname_nb,
	.complete_get_elt = regname_elt,
	.get_help = regname_help,
};

#define TOKEN_REGNAME_INITIALIZER(structure, field) \
	{ .ops = &regname_ops, .offset = offsetof(structure, field) }

/* ---- helpers ------------------------------------------------------- */

static bool
reg_port_get(struct cmdline *cl, uint16_t *port)
{
	if (!reg_port_set) {
		if (port_nth(0, &reg_port) != 0) {
			cmdline_printf(cl, "no net_ernic port: add --vdev=net_ernic0,port=...,ip=... (or start with -i --loopback)\n");
			return false;
		}
		reg_port_set = true;
	}
	if (rte_pmd_ernic_nb_workers(reg_port) <= 0) {
		cmdline_printf(cl, "port %u is not a net_ernic port any more: reg port <port>\n",
			       reg_port);
		return false;
	}
	*port = reg_port;
	return true;
}

static const char *
kind_name(enum reg_kind k)
{
	return k == REG_PD ? "PD table" : k == REG_QP ? "per-QP" : "global";
}

/*
 * The offset of register @p name with @p index (has_index: given by the
 * user), or an error naming what is wrong.
 */
static int
reg_offset(struct cmdline *cl, const char *name, bool has_index,
	   uint32_t index, uint32_t *off, const struct reg_name **rn)
{
	*rn = reg_find(name, strlen(name));
	if (*rn == NULL)
		return -ENOENT;	/* the token checked it already */
	if ((*rn)->kind == REG_GLOBAL && has_index) {
		cmdline_printf(cl, "bad index %u: %s is a global register, it takes no index (reg read %s)\n",
			       index, (*rn)->name, (*rn)->name);
		return -EINVAL;
	}
	if ((*rn)->kind != REG_GLOBAL && !has_index) {
		cmdline_printf(cl, "missing index after \"%s\": it is a %s register, expected %s\n",
			       (*rn)->name, kind_name((*rn)->kind),
			       (*rn)->kind == REG_QP ?
			       "a QPN 1..2048 (reg read NAME <qpn>)" :
			       "a PD table entry 0..2047 (reg read NAME <entry>)");
		return -EINVAL;
	}
	if (rte_pmd_ernic_reg_by_name((*rn)->name, index, off) != 0) {
		cmdline_printf(cl, "bad index %u for %s: expected %s\n", index,
			       (*rn)->name, (*rn)->kind == REG_QP ?
			       "a QPN 1..2048" : "a PD table entry 0..2047");
		return -EINVAL;
	}
	return 0;
}

static void
reg_show(struct cmdline *cl, uint16_t port, const struct reg_name *rn,
	 bool has_index, uint32_t index, uint32_t off)
{
	uint32_t v = 0;
	int ret = rte_pmd_ernic_reg_read(port, off, &v);
	char nm[64];

	if (has_index)
		snprintf(nm, sizeof(nm), "%s[%u]", rn->name, index);
	else
		snprintf(nm, sizeof(nm), "%s", rn->name);
	if (ret != 0)
		cmdline_printf(cl, "  %-22s 0x%06x  not readable: %s\n", nm, off,
			       ret == -EINVAL ?
			       "beyond the port's QP blocks (max_qps=)" :
			       strerror(-ret));
	else
		cmdline_printf(cl, "  %-22s 0x%06x  0x%08x  %u\n", nm, off, v, v);
}

/* ---- reg port <port>, reg list -------------------------------------- */

struct cmd_reg_port {
	cmdline_fixed_string_t reg;
	cmdline_fixed_string_t what;
	uint16_t port;
};

static void
cmd_reg_port_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_reg_port *r = res;

	(void)data;
	if (rte_pmd_ernic_nb_workers(r->port) <= 0) {
		cmdline_printf(cl, "bad port %u: expected a net_ernic port id (see show port)\n",
			       r->port);
		return;
	}
	reg_port = r->port;
	reg_port_set = true;
	cmdline_printf(cl, "reg commands act on port %u\n", r->port);
}

static cmdline_parse_token_string_t cmd_reg_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_port, reg, "reg");
static cmdline_parse_token_string_t cmd_reg_port_what =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_port, what, "port");
static cmdline_parse_token_num_t cmd_reg_port_num =
	TOKEN_NUM_INITIALIZER(struct cmd_reg_port, port, RTE_UINT16);

static cmdline_parse_inst_t cmd_reg_port = {
	.f = cmd_reg_port_parsed,
	.data = &cli_state,
	.help_str = "reg port <port>: the net_ernic port of the reg commands",
	.tokens = { (void *)&cmd_reg_tok, (void *)&cmd_reg_port_what,
		    (void *)&cmd_reg_port_num, NULL },
};

static void
cmd_reg_list_parsed(void *res, struct cmdline *cl, void *data)
{
	unsigned int i;

	(void)res;
	(void)data;
	reg_names_load();
	cmdline_printf(cl, "  %-16s %-9s %s\n", "name", "block", "offset");
	for (i = 0; i < nb_reg_names; i++)
		cmdline_printf(cl, "  %-16s %-9s 0x%02x%s\n", reg_names[i].name,
			       kind_name(reg_names[i].kind), reg_names[i].rel,
			       reg_names[i].kind == REG_QP ?
			       " + 0x180000 + (qpn - 1) * 0x100" :
			       reg_names[i].kind == REG_PD ?
			       " + entry * 0x100" : " + 0x100000");
}

static cmdline_parse_token_string_t cmd_reg_list_what =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_port, what, "list");

static cmdline_parse_inst_t cmd_reg_list = {
	.f = cmd_reg_list_parsed,
	.data = &cli_state,
	.help_str = "reg list: every register name, its block and offset",
	.tokens = { (void *)&cmd_reg_tok, (void *)&cmd_reg_list_what, NULL },
};

/* ---- reg read <NAME> [index], reg write <NAME> [index] <value> ------- */

struct cmd_reg_rw {
	cmdline_fixed_string_t reg;
	cmdline_fixed_string_t op;
	cmdline_fixed_string_t name;
	uint32_t index;
	uint32_t value;
};

static void
reg_rw(struct cmdline *cl, struct cmd_reg_rw *r, bool has_index,
       bool write)
{
	const struct reg_name *rn;
	uint16_t port;
	uint32_t off;
	char nm[64];
	int ret;

	if (!reg_port_get(cl, &port) ||
	    reg_offset(cl, r->name, has_index, r->index, &off, &rn) != 0)
		return;
	if (!write) {
		reg_show(cl, port, rn, has_index, r->index, off);
		return;
	}
	if (has_index)
		snprintf(nm, sizeof(nm), "%s[%u]", rn->name, r->index);
	else
		snprintf(nm, sizeof(nm), "%s", rn->name);
	ret = rte_pmd_ernic_reg_write(port, off, r->value);
	switch (ret) {
	case 0:
		cmdline_printf(cl, "port %u: %s (0x%06x) <- 0x%08x\n", port, nm,
			       off, r->value);
		break;
	case -EPERM:
		cmdline_printf(cl, "write to %s refused: hardware-owned or a doorbell of a handshake QP; set XRNICADCONF bit 0 (SW override) first\n",
			       nm);
		break;
	case -EAGAIN:
		cmdline_printf(cl, "write to %s refused: the port must be started first (show stats %u starts it)\n",
			       nm, port);
		break;
	case -EINVAL:
		cmdline_printf(cl, "write of 0x%08x to %s refused: a value the model does not accept there (doc/guides/ernic.rst)\n",
			       r->value, nm);
		break;
	default:
		cmdline_printf(cl, "write to %s failed: %s\n", nm,
			       strerror(-ret));
		break;
	}
}

static void
cmd_reg_rw_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_reg_rw *r = res;

	(void)data;
	if (strcmp(r->op, "write") == 0) {
		r->value = r->index;	/* reg write <NAME> <value> */
		reg_rw(cl, r, false, true);
	} else {
		reg_rw(cl, r, false, false);
	}
}

static void
cmd_reg_rwi_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_reg_rw *r = res;

	(void)data;
	reg_rw(cl, r, true, strcmp(r->op, "write") == 0);
}

static cmdline_parse_token_string_t cmd_reg_rw_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_rw, reg, "reg");
static cmdline_parse_token_string_t cmd_reg_read_op =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_rw, op, "read");
static cmdline_parse_token_string_t cmd_reg_write_op =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_rw, op, "write");
static cmdline_parse_token_hdr_t cmd_reg_rw_name =
	TOKEN_REGNAME_INITIALIZER(struct cmd_reg_rw, name);
static cmdline_parse_token_num_t cmd_reg_rw_index =
	TOKEN_NUM_INITIALIZER(struct cmd_reg_rw, index, RTE_UINT32);
static cmdline_parse_token_num_t cmd_reg_rw_value =
	TOKEN_NUM_INITIALIZER(struct cmd_reg_rw, value, RTE_UINT32);

static cmdline_parse_inst_t cmd_reg_read = {
	.f = cmd_reg_rw_parsed,
	.data = &cli_state,
	.help_str = "reg read <NAME>: a global register",
	.tokens = { (void *)&cmd_reg_rw_tok, (void *)&cmd_reg_read_op,
		    &cmd_reg_rw_name, NULL },
};

static cmdline_parse_inst_t cmd_reg_read_idx = {
	.f = cmd_reg_rwi_parsed,
	.data = &cli_state,
	.help_str = "reg read <NAME> <index>: a per-QP (index: QPN) or PD table (entry) register",
	.tokens = { (void *)&cmd_reg_rw_tok, (void *)&cmd_reg_read_op,
		    &cmd_reg_rw_name, (void *)&cmd_reg_rw_index, NULL },
};

static cmdline_parse_inst_t cmd_reg_write = {
	.f = cmd_reg_rw_parsed,
	.data = &cli_state,
	.help_str = "reg write <NAME> <value>: a global register",
	.tokens = { (void *)&cmd_reg_rw_tok, (void *)&cmd_reg_write_op,
		    &cmd_reg_rw_name, (void *)&cmd_reg_rw_index, NULL },
};

static cmdline_parse_inst_t cmd_reg_write_idx = {
	.f = cmd_reg_rwi_parsed,
	.data = &cli_state,
	.help_str = "reg write <NAME> <index> <value>: a per-QP or PD table register",
	.tokens = { (void *)&cmd_reg_rw_tok, (void *)&cmd_reg_write_op,
		    &cmd_reg_rw_name, (void *)&cmd_reg_rw_index,
		    (void *)&cmd_reg_rw_value, NULL },
};

/* ---- reg dump, reg dump <qpn>, reg dump pd <entry> ------------------- */

struct cmd_reg_dump {
	cmdline_fixed_string_t reg;
	cmdline_fixed_string_t dump;
	cmdline_fixed_string_t pd;
	uint32_t index;
};

static void
reg_dump(struct cmdline *cl, enum reg_kind kind, uint32_t index)
{
	const struct reg_name *rn;
	unsigned int i;
	uint16_t port;
	uint32_t off;

	if (!reg_port_get(cl, &port))
		return;
	reg_names_load();
	if (kind == REG_QP && (index < 1 || index > WIN_QP_MAX)) {
		cmdline_printf(cl, "bad qpn %u: expected a QPN 1..2048\n", index);
		return;
	}
	if (kind == REG_PD && index >= WIN_PDT_ENTRIES) {
		cmdline_printf(cl, "bad entry %u: expected a PD table entry 0..2047\n",
			       index);
		return;
	}
	if (kind == REG_GLOBAL)
		cmdline_printf(cl, "port %u, global block:\n", port);
	else
		cmdline_printf(cl, "port %u, %s %u:\n", port, kind == REG_QP ?
			       "register block of QP" : "PD table entry",
			       index);
	for (i = 0; i < nb_reg_names; i++) {
		rn = &reg_names[i];
		if (rn->kind != kind ||
		    rte_pmd_ernic_reg_by_name(rn->name, index, &off) != 0)
			continue;
		reg_show(cl, port, rn, kind != REG_GLOBAL, index, off);
	}
}

static void
cmd_reg_dump_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)res;
	(void)data;
	reg_dump(cl, REG_GLOBAL, 0);
}

static void
cmd_reg_dump_qp_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_reg_dump *r = res;

	(void)data;
	reg_dump(cl, REG_QP, r->index);
}

static void
cmd_reg_dump_pd_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_reg_dump *r = res;

	(void)data;
	reg_dump(cl, REG_PD, r->index);
}

static cmdline_parse_token_string_t cmd_reg_dump_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_dump, reg, "reg");
static cmdline_parse_token_string_t cmd_reg_dump_what =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_dump, dump, "dump");
static cmdline_parse_token_string_t cmd_reg_dump_pd_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_reg_dump, pd, "pd");
static cmdline_parse_token_num_t cmd_reg_dump_idx =
	TOKEN_NUM_INITIALIZER(struct cmd_reg_dump, index, RTE_UINT32);

static cmdline_parse_inst_t cmd_reg_dump = {
	.f = cmd_reg_dump_parsed,
	.data = &cli_state,
	.help_str = "reg dump: the global block",
	.tokens = { (void *)&cmd_reg_dump_tok, (void *)&cmd_reg_dump_what,
		    NULL },
};

static cmdline_parse_inst_t cmd_reg_dump_qp = {
	.f = cmd_reg_dump_qp_parsed,
	.data = &cli_state,
	.help_str = "reg dump <qpn>: the register block of QP qpn",
	.tokens = { (void *)&cmd_reg_dump_tok, (void *)&cmd_reg_dump_what,
		    (void *)&cmd_reg_dump_idx, NULL },
};

static cmdline_parse_inst_t cmd_reg_dump_pd = {
	.f = cmd_reg_dump_pd_parsed,
	.data = &cli_state,
	.help_str = "reg dump pd <entry>: PD table entry",
	.tokens = { (void *)&cmd_reg_dump_tok, (void *)&cmd_reg_dump_what,
		    (void *)&cmd_reg_dump_pd_tok, (void *)&cmd_reg_dump_idx,
		    NULL },
};

cmdline_parse_inst_t *cli_reg_cmds[] = {
	&cmd_reg_port,
	&cmd_reg_list,
	&cmd_reg_read,
	&cmd_reg_read_idx,
	&cmd_reg_write,
	&cmd_reg_write_idx,
	&cmd_reg_dump,
	&cmd_reg_dump_qp,
	&cmd_reg_dump_pd,
	NULL,
};
