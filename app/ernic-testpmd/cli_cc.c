/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on congestion control (doc/guides/congestion.rst):
 * set cc <port> <param> <value>, show cc <port>.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include "cli.h"
#include "rte_pmd_ernic.h"
#include "roce_cc.h"
#include "roce_verbs.h"

/* The port's RoCE device, NULL (with a message) for a bad port. */
static struct roce_device *
cc_dev(struct cmdline *cl, uint16_t port)
{
	struct roce_device *dev;

	if (!cli_port_ok(cl, port))
		return NULL;
	dev = rte_pmd_ernic_get_device(port);
	if (dev == NULL)
		cmdline_printf(cl, "port %u has no RoCE device yet\n", port);
	return dev;
}

/* ---- set cc <port> <param> <value> ------------------------------------- */

struct cmd_set_cc {
	cmdline_fixed_string_t set;
	cmdline_fixed_string_t cc;
	uint16_t port;
	cmdline_fixed_string_t param;
	uint32_t value;
};

static void
cmd_set_cc_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_set_cc *r = res;
	const struct roce_cc_param_desc *d;
	struct roce_device *dev;
	int id, ret;

	(void)data;
	dev = cc_dev(cl, r->port);
	if (dev == NULL)
		return;
	id = roce_cc_param_by_name(r->param);
	if (id < 0) {
		cmdline_printf(cl, "unknown parameter \"%s\": expected one of the names of show cc\n",
			       r->param);
		return;
	}
	d = roce_cc_param_info((unsigned int)id);
	ret = roce_cc_set(dev, (unsigned int)id, r->value);
	if (ret == -ERANGE) {
		cmdline_printf(cl, "bad value %u for %s: expected %u..%u %s\n",
			       r->value, d->name, d->min, d->max, d->unit);
		return;
	}
	if (ret != 0) {
		cmdline_printf(cl, "set cc: %s\n", strerror(-ret));
		return;
	}
	cmdline_printf(cl, "port %u: %s = %u %s\n", r->port, d->name,
		       r->value, d->unit);
}

static cmdline_parse_token_string_t cmd_set_cc_set =
	TOKEN_STRING_INITIALIZER(struct cmd_set_cc, set, "set");
static cmdline_parse_token_string_t cmd_set_cc_cc =
	TOKEN_STRING_INITIALIZER(struct cmd_set_cc, cc, "cc");
static cmdline_parse_token_num_t cmd_set_cc_port =
	TOKEN_NUM_INITIALIZER(struct cmd_set_cc, port, RTE_UINT16);
static cmdline_parse_token_string_t cmd_set_cc_param =
	TOKEN_STRING_INITIALIZER(struct cmd_set_cc, param, NULL);
static cmdline_parse_token_num_t cmd_set_cc_value =
	TOKEN_NUM_INITIALIZER(struct cmd_set_cc, value, RTE_UINT32);

static cmdline_parse_inst_t cmd_set_cc = {
	.f = cmd_set_cc_parsed,
	.data = &cli_state,
	.help_str = "set cc <port> <param> <value>: a congestion control parameter",
	.tokens = { (void *)&cmd_set_cc_set, (void *)&cmd_set_cc_cc,
		    (void *)&cmd_set_cc_port, (void *)&cmd_set_cc_param,
		    (void *)&cmd_set_cc_value, NULL },
};

/* ---- show cc <port> ---------------------------------------------------- */

struct cmd_show_cc {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t cc;
	uint16_t port;
};

static void
cmd_show_cc_parsed(void *res, struct cmdline *cl, void *data)
{
	static const char *const cnt[] = {
		"rx_ce", "tx_cnp", "cnp_coalesced", "rx_cnp",
		"rx_drop_cnp_no_qp",
	};
	struct cmd_show_cc *r = res;
	const struct roce_cc_param_desc *d;
	struct roce_counter c[256];
	struct roce_device *dev;
	uint64_t sum[RTE_DIM(cnt)];
	unsigned int i, k;
	uint32_t v;
	int w, n, nw;

	(void)data;
	dev = cc_dev(cl, r->port);
	if (dev == NULL)
		return;
	cmdline_printf(cl, "port %u congestion control (DCQCN):\n", r->port);
	cmdline_printf(cl, "  %-30s %10s  %-7s %s\n", "parameter", "value",
		       "unit", "default");
	for (i = 0; i < ROCE_CC_PARAM_MAX; i++) {
		d = roce_cc_param_info(i);
		if (roce_cc_get(dev, i, &v) != 0)
			continue;
		cmdline_printf(cl, "  %-30s %10u  %-7s %u\n", d->name, v,
			       d->unit, d->def);
	}
	/* the port's CE/CNP counters, summed over its workers */
	memset(sum, 0, sizeof(sum));
	nw = rte_pmd_ernic_nb_workers(r->port);
	for (w = 0; w < nw; w++) {
		struct roce_worker *rw = rte_pmd_ernic_get_worker(r->port,
								  (uint16_t)w);

		if (rw == NULL)
			continue;
		n = roce_worker_counters(rw, c, RTE_DIM(c));
		for (k = 0; n > 0 && k < (unsigned int)n && k < RTE_DIM(c); k++)
			for (i = 0; i < RTE_DIM(cnt); i++)
				if (strcmp(c[k].name, cnt[i]) == 0)
					sum[i] += c[k].value;
	}
	for (i = 0; i < RTE_DIM(cnt); i++)
		cmdline_printf(cl, "  %-30s %10" PRIu64 "\n", cnt[i], sum[i]);
}

static cmdline_parse_token_string_t cmd_show_cc_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cc, show, "show");
static cmdline_parse_token_string_t cmd_show_cc_cc =
	TOKEN_STRING_INITIALIZER(struct cmd_show_cc, cc, "cc");
static cmdline_parse_token_num_t cmd_show_cc_port =
	TOKEN_NUM_INITIALIZER(struct cmd_show_cc, port, RTE_UINT16);

static cmdline_parse_inst_t cmd_show_cc = {
	.f = cmd_show_cc_parsed,
	.data = &cli_state,
	.help_str = "show cc <port>: congestion control parameters and counters",
	.tokens = { (void *)&cmd_show_cc_show, (void *)&cmd_show_cc_cc,
		    (void *)&cmd_show_cc_port, NULL },
};

cmdline_parse_inst_t *cli_cc_cmds[] = {
	&cmd_set_cc,
	&cmd_show_cc,
	NULL,
};
