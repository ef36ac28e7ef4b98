/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry of net_ernic ports (usertools/dpdk-telemetry.py):
 *   /ernic/stats[,<port>]            every xstat of the port
 *   /ernic/qp/list[,<port>]          QPNs of the port's QPs
 *   /ernic/qp/info,[<port>,]<qpn>    attributes and counters of one QP
 *   /ernic/cm[,<port>]               CM connections, armed recoveries,
 *                                    CM/MAD/recovery counters
 * Without a port id, the first net_ernic port is used.
 *
 * QPs are read from the device's QPN table inside roce_qp_read_begin() /
 * roce_qp_read_end(): a QP destroyed concurrently stays allocated until
 * the command is done (its QPN is then no longer in the table: reported
 * as unknown, or with its last values when the destroy came later).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "ernic_priv.h"
#include "roce_cm.h"
#include "roce_driver.h"
#include "rte_pmd_ernic_cm.h"

/** Connections and recoveries listed by /ernic/cm (the reply is 16 KB). */
#define TEL_CM_CONNS 16
/** Counters of rte_pmd_ernic_cm_counters() in /ernic/cm. */
#define TEL_CM_COUNTERS 200

static const char *const qp_state_names[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN",
};

/* Parse "a" or "a,b" into up to 2 unsigned numbers; returns how many. */
static int
parse_params(const char *params, unsigned long v[2])
{
	char *end;
	int n = 0;

	if (params == NULL || *params == '\0')
		return 0;
	while (n < 2) {
		v[n] = strtoul(params, &end, 0);
		if (end == params)
			return -EINVAL;
		n++;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return -EINVAL;
		params = end + 1;
	}
	return -EINVAL;
}

static struct ernic_port *
first_port(uint16_t *port_id)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (ernic_port_get(pid) != NULL) {
			*port_id = pid;
			return ernic_port_get(pid);
		}
	}
	return NULL;
}

static struct ernic_port *
port_param(unsigned long v, int have, uint16_t *port_id)
{
	if (!have)
		return first_port(port_id);
	if (v >= RTE_MAX_ETHPORTS)
		return NULL;
	*port_id = (uint16_t)v;
	return ernic_port_get(*port_id);
}

static int
tel_stats(const char *cmd __rte_unused, const char *params,
	  struct rte_tel_data *d)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	unsigned long v[2];
	uint16_t pid;
	int n, i, ret = -EINVAL;

	n = parse_params(params, v);
	if (n < 0 || n > 1 || port_param(v[0], n, &pid) == NULL)
		return -EINVAL;
	n = rte_eth_xstats_get_names(pid, NULL, 0);
	if (n <= 0)
		return -EINVAL;
	names = malloc(n * sizeof(*names));
	xs = malloc(n * sizeof(*xs));
	if (names == NULL || xs == NULL)
		goto out;
	if (rte_eth_xstats_get_names(pid, names, n) != n ||
	    rte_eth_xstats_get(pid, xs, n) != n)
		goto out;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", pid);
	for (i = 0; i < n; i++)
		rte_tel_data_add_dict_u64(d, names[i].name, xs[i].value);
	ret = 0;
out:
	free(names);
	free(xs);
	return ret;
}

static int
tel_qp_list(const char *cmd __rte_unused, const char *params,
	    struct rte_tel_data *d)
{
	struct roce_device *dev;
	struct ernic_port *p;
	unsigned long v[2];
	unsigned int slot;
	uint32_t qpn;
	uint16_t pid;
	int n;

	n = parse_params(params, v);
	if (n < 0 || n > 1)
		return -EINVAL;
	p = port_param(v[0], n, &pid);
	if (p == NULL)
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	dev = p->rdev;
	if (dev == NULL)
		return 0;
	slot = roce_qp_read_begin(dev);
	for (qpn = 0; roce_qp_next(dev, &qpn) != NULL; qpn++)
		rte_tel_data_add_array_u64(d, qpn);
	roce_qp_read_end(dev, slot);
	return 0;
}

static int
tel_qp_info(const char *cmd __rte_unused, const char *params,
	    struct rte_tel_data *d)
{
	struct roce_qp_init_attr init;
	struct roce_qp_attr attr;
	struct roce_qp_snapshot snap;
	struct roce_device *dev;
	const struct roce_qp *qp;
	struct roce_qp_stats st;
	struct ernic_port *p;
	unsigned long v[2], qpn;
	unsigned int slot, k;
	uint16_t pid, i;
	int n, widx = -1;

	n = parse_params(params, v);
	if (n == 1) {
		p = first_port(&pid);
		qpn = v[0];
	} else if (n == 2) {
		p = port_param(v[0], 1, &pid);
		qpn = v[1];
	} else {
		return -EINVAL;
	}
	if (p == NULL || p->rdev == NULL)
		return -EINVAL;
	dev = p->rdev;
	if (qpn > UINT32_MAX)
		return -EINVAL;
	/* the QP stays allocated until read_end, even if destroyed meanwhile */
	slot = roce_qp_read_begin(dev);
	qp = roce_qp_find(dev, (uint32_t)qpn);
	if (qp == NULL || roce_query_qp(qp, &attr, &init) != 0) {
		roce_qp_read_end(dev, slot);
		return -EINVAL;
	}
	roce_qp_snapshot(qp, &snap);
	for (i = 0; i < p->nb_workers; i++)
		if (p->w[i].rw == snap.w)
			widx = i;
	roce_qp_stats_read(qp, &st);
	roce_qp_read_end(dev, slot);

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", pid);
	rte_tel_data_add_dict_u64(d, "qpn", qpn);
	rte_tel_data_add_dict_string(d, "type",
		init.qp_type == ROCE_QPT_RC ? "RC" :
		init.qp_type == ROCE_QPT_UC ? "UC" : "UD");
	rte_tel_data_add_dict_string(d, "state",
		attr.qp_state < RTE_DIM(qp_state_names) ?
		qp_state_names[attr.qp_state] : "UNKNOWN");
	rte_tel_data_add_dict_int(d, "worker", widx);
	rte_tel_data_add_dict_u64(d, "path_mtu",
				  roce_mtu_bytes(attr.path_mtu));
	rte_tel_data_add_dict_u64(d, "dest_qp_num", attr.dest_qp_num);
	rte_tel_data_add_dict_u64(d, "sq_psn", attr.sq_psn);
	rte_tel_data_add_dict_u64(d, "rq_psn", attr.rq_psn);
	rte_tel_data_add_dict_u64(d, "max_send_wr", init.cap.max_send_wr);
	rte_tel_data_add_dict_u64(d, "max_recv_wr", init.cap.max_recv_wr);
	rte_tel_data_add_dict_u64(d, "retry_cnt", attr.retry_cnt);
	rte_tel_data_add_dict_u64(d, "rnr_retry", attr.rnr_retry);
	rte_tel_data_add_dict_u64(d, "timeout", attr.timeout);
	rte_tel_data_add_dict_u64(d, "err_cause", snap.err_cause);
	/* the counters, as xstats name them (congestion control: CE/CNP
	 * counters and the DCQCN rate, 0 when not limited)
	 */
	for (k = 0; k < ROCE_QP_STAT_NB; k++)
		rte_tel_data_add_dict_u64(d, roce_qp_stat_table[k].name,
			roce_qp_stats_value(&st, &roce_qp_stat_table[k]));
	return 0;
}

/* "a.b.c.d:port" or "[v6]:port" */
static void
cm_addr_str(const struct roce_cm_addr *a, char *buf, size_t len)
{
	char ip[64];

	ernic_xdp_addr_str(a->gid.raw, ip, sizeof(ip));
	snprintf(buf, len, a->ip_ver == 6 ? "[%s]:%u" : "%s:%u", ip, a->port);
}

static int
tel_cm(const char *cmd __rte_unused, const char *params,
       struct rte_tel_data *d)
{
	struct roce_cm_conn_info ci[TEL_CM_CONNS];
	struct ernic_rec_info ri[TEL_CM_CONNS];
	struct roce_counter *cn = NULL;
	struct rte_tel_data *t;
	unsigned int nc, nr, i, k, shown_c, shown_r;
	struct ernic_port *p;
	unsigned long v[2];
	char name[32], buf[96];
	const char *rec;
	uint16_t pid;
	int n, ncnt;

	n = parse_params(params, v);
	if (n < 0 || n > 1)
		return -EINVAL;
	p = port_param(v[0], n, &pid);
	if (p == NULL || p->ctrl.cm == NULL)
		return -EINVAL;
	cn = malloc(sizeof(*cn) * TEL_CM_COUNTERS);
	if (cn == NULL)
		return -ENOMEM;
	/* takes ctrl.lock itself */
	ncnt = rte_pmd_ernic_cm_counters(pid, cn, TEL_CM_COUNTERS);
	if (ncnt < 0) {
		free(cn);
		return -EINVAL;
	}
	rte_spinlock_lock(&p->ctrl.lock);
	nc = roce_cm_conn_list(p->ctrl.cm, ci, RTE_DIM(ci));
	nr = ernic_recovery_list(p, ri, RTE_DIM(ri));
	rte_spinlock_unlock(&p->ctrl.lock);
	shown_c = RTE_MIN(nc, (unsigned int)RTE_DIM(ci));
	shown_r = RTE_MIN(nr, (unsigned int)RTE_DIM(ri));

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", pid);
	rte_tel_data_add_dict_u64(d, "connections", nc);
	rte_tel_data_add_dict_u64(d, "recoveries", nr);
	for (i = 0; i < shown_c; i++) {
		t = rte_tel_data_alloc();
		if (t == NULL)
			break;
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_string(t, "state",
					     roce_cm_state_name(ci[i].state));
		rte_tel_data_add_dict_string(t, "role",
					     ci[i].active ? "active" : "passive");
		cm_addr_str(&ci[i].local, buf, sizeof(buf));
		rte_tel_data_add_dict_string(t, "local", buf);
		cm_addr_str(&ci[i].remote, buf, sizeof(buf));
		rte_tel_data_add_dict_string(t, "remote", buf);
		rte_tel_data_add_dict_u64(t, "local_qpn", ci[i].local_qpn);
		rte_tel_data_add_dict_u64(t, "remote_qpn", ci[i].remote_qpn);
		rte_tel_data_add_dict_u64(t, "local_comm_id",
					  ci[i].local_comm_id);
		rte_tel_data_add_dict_u64(t, "remote_comm_id",
					  ci[i].remote_comm_id);
		rte_tel_data_add_dict_int(t, "released", ci[i].orphan);
		rec = "none";
		for (k = 0; k < shown_r; k++)
			if (ri[k].id == ci[i].id)
				rec = ri[k].reconnect ? "reconnect" : "accept";
		rte_tel_data_add_dict_string(t, "recovery", rec);
		snprintf(name, sizeof(name), "conn%u", i);
		rte_tel_data_add_dict_container(d, name, t, 0);
	}
	for (i = 0; i < shown_r; i++) {
		t = rte_tel_data_alloc();
		if (t == NULL)
			break;
		rte_tel_data_start_dict(t);
		rte_tel_data_add_dict_u64(t, "qpn", ri[i].qpn);
		rte_tel_data_add_dict_string(t, "role", ri[i].reconnect ?
					     "reconnect" : "accept");
		rte_tel_data_add_dict_string(t, "state", ri[i].state);
		cm_addr_str(&ri[i].remote, buf, sizeof(buf));
		rte_tel_data_add_dict_string(t, "remote", buf);
		rte_tel_data_add_dict_u64(t, "attempts", ri[i].attempts);
		rte_tel_data_add_dict_int(t, "last_err", ri[i].last_err);
		snprintf(name, sizeof(name), "rec%u", i);
		rte_tel_data_add_dict_container(d, name, t, 0);
	}
	t = rte_tel_data_alloc();
	if (t != NULL) {
		rte_tel_data_start_dict(t);
		for (i = 0; i < (unsigned int)ncnt && i < TEL_CM_COUNTERS; i++)
			rte_tel_data_add_dict_u64(t, cn[i].name, cn[i].value);
		rte_tel_data_add_dict_container(d, "counters", t, 0);
	}
	free(cn);
	return 0;
}

RTE_INIT(ernic_telemetry_init)
{
	rte_telemetry_register_cmd("/ernic/stats", tel_stats,
		"PMD and RoCE counters of a net_ernic port. Parameters: [port_id]");
	rte_telemetry_register_cmd("/ernic/qp/list", tel_qp_list,
		"QPNs of a net_ernic port. Parameters: [port_id]");
	rte_telemetry_register_cmd("/ernic/qp/info", tel_qp_info,
		"State and counters of a QP. Parameters: [port_id,]qpn");
	rte_telemetry_register_cmd("/ernic/cm", tel_cm,
		"CM connections, recoveries and counters. Parameters: [port_id]");
}
