/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on congestion control (doc/guides/congestion.rst):
 * set cc <port> <param> <value>, show cc <port>; and the congestion
 * control report of a --loopback run (cli_cc.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>

#include <rte_ethdev.h>

#include "cli.h"
#include "cli_cc.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_fault.h"
#include "roce_cc.h"
#include "roce_verbs.h"

/* The port's CE/CNP counters (roce_worker_counters() names), summed
 * over its workers. */
static const char *const cc_cnt_names[] = {
	"rx_ce", "tx_cnp", "cnp_coalesced", "rx_cnp", "rx_drop_cnp_no_qp",
};
#define CC_NB_CNT RTE_DIM(cc_cnt_names)

static void
cc_port_counters(uint16_t port, uint64_t sum[CC_NB_CNT])
{
	struct roce_counter c[256];
	unsigned int i, k;
	int w, n, nw;

	memset(sum, 0, CC_NB_CNT * sizeof(sum[0]));
	nw = rte_pmd_ernic_nb_workers(port);
	for (w = 0; w < nw; w++) {
		struct roce_worker *rw = rte_pmd_ernic_get_worker(port,
								  (uint16_t)w);

		if (rw == NULL)
			continue;
		n = roce_worker_counters(rw, c, RTE_DIM(c));
		for (k = 0; n > 0 && k < (unsigned int)n && k < RTE_DIM(c); k++)
			for (i = 0; i < CC_NB_CNT; i++)
				if (strcmp(c[k].name, cc_cnt_names[i]) == 0)
					sum[i] += c[k].value;
	}
}

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
	struct cmd_show_cc *r = res;
	const struct roce_cc_param_desc *d;
	struct roce_device *dev;
	uint64_t sum[CC_NB_CNT];
	unsigned int i;
	uint32_t v;

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
	cc_port_counters(r->port, sum);
	for (i = 0; i < CC_NB_CNT; i++)
		cmdline_printf(cl, "  %-30s %10" PRIu64 "\n", cc_cnt_names[i],
			       sum[i]);
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

/* ---- the report of a --loopback run ------------------------------------ */

void
cc_snap_take(struct cc_snap *s, struct roce_qp *const *qp, uint32_t n)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; qp != NULL && i < n && s->n < CC_SNAP_MAX; i++) {
		if (qp[i] == NULL ||
		    roce_qp_cc_query(qp[i], &s->info[s->n]) != 0)
			continue;
		s->qpn[s->n++] = roce_qp_num(qp[i]);
	}
}

int
cc_bneck_port(uint16_t port, struct rte_pmd_fault_params *prm)
{
	int under = rte_pmd_ernic_underlying_port(port);

	if (under < 0 || rte_pmd_fault_get_params((uint16_t)under, prm) != 0 ||
	    prm->rate_mbps == 0)
		return -1;
	return under;
}

/*
 * The net_fault bottleneck under ernic port @p port, if any: its
 * parameters and the counters of the direction(s) it shapes.
 */
static void
cc_report_bneck(FILE *out, uint16_t port)
{
	static const char *const dir[] = { "rx", "tx", "both" };
	struct rte_pmd_fault_params prm;
	char name[RTE_ETH_NAME_MAX_LEN];
	int under = cc_bneck_port(port, &prm);
	int d;

	if (under < 0)
		return;
	if (rte_eth_dev_get_name_by_port((uint16_t)under, name) != 0)
		snprintf(name, sizeof(name), "port %d", under);
	for (d = 0; d < 2; d++) {
		const char *p = d == 0 ? "fault_" : "fault_tx_";
		char n[5][48];

		if ((d == 0 && prm.dir == RTE_PMD_FAULT_DIR_TX) ||
		    (d == 1 && prm.dir == RTE_PMD_FAULT_DIR_RX))
			continue;
		snprintf(n[0], sizeof(n[0]), "%sbneck_bytes", p);
		snprintf(n[1], sizeof(n[1]), "%secn_marked", p);
		snprintf(n[2], sizeof(n[2]), "%sbneck_tail_drop", p);
		snprintf(n[3], sizeof(n[3]), "%sbneck_red_drop", p);
		snprintf(n[4], sizeof(n[4]), "%sbneck_queue_peak", p);
		fprintf(out, "cc: bottleneck %s shaping=%s under port %u dir=%s rate_mbps=%u queue_kb=%u ecn_kb=%u..%u pmax_ppm=%u: bytes=%" PRIu64 " ecn_marked=%" PRIu64 " tail_drop=%" PRIu64 " red_drop=%" PRIu64 " queue_peak=%" PRIu64 "\n",
			name, d == 0 ? "rx" : "tx", port,
			prm.dir <= RTE_PMD_FAULT_DIR_BOTH ? dir[prm.dir] : "?",
			prm.rate_mbps, prm.queue_kb, prm.ecn_kmin_kb,
			prm.ecn_kmax_kb, prm.ecn_pmax_ppm,
			port_xstat((uint16_t)under, n[0]),
			port_xstat((uint16_t)under, n[1]),
			port_xstat((uint16_t)under, n[2]),
			port_xstat((uint16_t)under, n[3]),
			port_xstat((uint16_t)under, n[4]));
	}
}

void
cc_report_loopback(FILE *out, const uint16_t port[2],
		   const struct cc_snap *const side[2])
{
	static const char *const role[2] = { "client", "server" };
	struct rte_pmd_fault_params prm;
	uint64_t sum[2][CC_NB_CNT];
	bool acted = false, bneck = false;
	unsigned int s, i;

	for (s = 0; s < 2; s++) {
		cc_port_counters(port[s], sum[s]);
		for (i = 0; i < CC_NB_CNT; i++)
			acted |= sum[s][i] != 0;
		bneck |= cc_bneck_port(port[s], &prm) >= 0;
	}
	if (!acted && !bneck)
		return;
	fprintf(out, "cc: congestion control (doc/guides/congestion.rst)\n");
	for (s = 0; s < 2; s++) {
		fprintf(out, "cc: port %u (%s)", port[s], role[s]);
		for (i = 0; i < CC_NB_CNT; i++)
			fprintf(out, " %s=%" PRIu64, cc_cnt_names[i],
				sum[s][i]);
		fprintf(out, "\n");
		cc_report_bneck(out, port[s]);
	}
	for (s = 0; s < 2; s++) {
		const struct cc_snap *sn = side[s];

		for (i = 0; sn != NULL && i < sn->n; i++) {
			const struct roce_qp_cc_info *q = &sn->info[i];

			fprintf(out, "cc: flow %u %s qpn=%#x ce_rx=%" PRIu64 " cnp_tx=%" PRIu64 " cnp_rx=%" PRIu64 " rate_cuts=%" PRIu64 " rate_incs=%" PRIu64 " limited=%u rate_mbps=%u min_rate_mbps=%u target_mbps=%u alpha=%u pace_stalls=%" PRIu64 " resp_pace_stalls=%" PRIu64 " window=%u cwnd=%u window_alpha=%u window_cuts=%" PRIu64 "\n",
				i + 1, role[s], sn->qpn[i], q->ce_rx,
				q->cnp_tx, q->cnp_rx, q->rate_cuts,
				q->rate_incs, q->limited ? 1 : 0,
				q->rate_mbps, q->min_rate_mbps,
				q->target_mbps, q->alpha, q->pace_stalls,
				q->resp_pace_stalls, q->window ? 1 : 0,
				q->cwnd, q->window_alpha, q->window_cuts);
		}
	}
	fflush(out);
}
