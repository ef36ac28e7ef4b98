/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devargs of net_ernic. Every bad or missing value fails the probe with
 * one log line that names the key, the value and the expected form.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "ernic_priv.h"

struct ernic_key {
	const char *key;
	const char *form;
	int (*parse)(const char *val, struct ernic_args *a);
};

/* Decimal or 0x-hex unsigned integer in [lo, hi], nothing after it. */
static int
parse_uint(const char *val, unsigned long lo, unsigned long hi,
	   unsigned long *out)
{
	char *end;
	unsigned long v;

	if (val == NULL || *val == '\0' || *val == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(val, &end, 0);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_port(const char *val, struct ernic_args *a)
{
	if (val == NULL || *val == '\0' ||
	    strlen(val) >= sizeof(a->port))
		return -EINVAL;
	rte_strlcpy(a->port, val, sizeof(a->port));
	return 0;
}

/* A unicast IPv4 address: not 0.0.0.0, not 224/4 and above, not 127/8. */
static int
parse_ip4_unicast(const char *val, rte_be32_t *out)
{
	struct in_addr in;
	uint32_t h;

	if (val == NULL || inet_pton(AF_INET, val, &in) != 1)
		return -EINVAL;
	h = rte_be_to_cpu_32(in.s_addr);
	if (h == 0 || h >= 0xe0000000u || (h >> 24) == 127)
		return -EINVAL;
	*out = in.s_addr;
	return 0;
}

/* "a.b.c.d" or "a.b.c.d/len" (the on-link prefix, for gw=) */
static int
parse_ip(const char *val, struct ernic_args *a)
{
	char buf[INET_ADDRSTRLEN + 4], *slash;
	unsigned long len = 32;

	if (val == NULL || strlen(val) >= sizeof(buf))
		return -EINVAL;
	rte_strlcpy(buf, val, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash != NULL) {
		*slash = '\0';
		if (parse_uint(slash + 1, 1, 32, &len) != 0)
			return -EINVAL;
		a->has_prefix4 = true;
	}
	if (parse_ip4_unicast(buf, &a->ip4) != 0)
		return -EINVAL;
	a->prefix4 = (uint8_t)len;
	a->has_ip4 = true;
	return 0;
}

/* gw= must be a neighbour: inside ip=a.b.c.d/len (len < 32), not ip= */
static bool
gw_on_link(const struct ernic_args *a)
{
	if (!a->has_ip4 || !a->has_prefix4 || a->prefix4 >= 32 ||
	    a->gw4 == a->ip4)
		return false;
	return (rte_be_to_cpu_32(a->gw4 ^ a->ip4) >> (32 - a->prefix4)) == 0;
}

static int
parse_gw(const char *val, struct ernic_args *a)
{
	if (parse_ip4_unicast(val, &a->gw4) != 0)
		return -EINVAL;
	a->has_gw4 = true;
	return 0;
}

static int
parse_ip6(const char *val, struct ernic_args *a)
{
	struct in6_addr in6;
	static const uint8_t zero[16];

	if (val == NULL || inet_pton(AF_INET6, val, &in6) != 1)
		return -EINVAL;
	/* unicast only: not ::, not ff00::/8 */
	if (memcmp(in6.s6_addr, zero, 16) == 0 || in6.s6_addr[0] == 0xff)
		return -EINVAL;
	memcpy(a->ip6, in6.s6_addr, 16);
	a->has_ip6 = true;
	return 0;
}

static int
parse_mac(const char *val, struct ernic_args *a)
{
	if (val == NULL || rte_ether_unformat_addr(val, &a->mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&a->mac))
		return -EINVAL;
	a->has_mac = true;
	return 0;
}

static int
parse_workers(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 1, ERNIC_MAX_WORKERS, &v) != 0)
		return -EINVAL;
	a->nb_workers = (uint16_t)v;
	return 0;
}

static int
parse_max_qps(const char *val, struct ernic_args *a)
{
	unsigned long v;

	/* QPN 0 and 1 are reserved (IBTA 3.5.2): at least 2 usable. */
	if (parse_uint(val, 4, ROCE_MAX_QP, &v) != 0)
		return -EINVAL;
	a->max_qps = (uint32_t)v;
	return 0;
}

/* RC responder ACK coalescing (roce_device_config::ack_pkts, ack_us) */
static int
parse_ack_pkts(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 1, UINT16_MAX, &v) != 0)
		return -EINVAL;
	a->ack_pkts = (uint16_t)v;
	return 0;
}

static int
parse_ack_us(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 1, UINT16_MAX, &v) != 0)
		return -EINVAL;
	a->ack_us = (uint16_t)v;
	return 0;
}

static int
parse_pmtu(const char *val, struct ernic_args *a)
{
	unsigned long v;

	/* IBTA 9.4 path MTUs: 256 to 4096, powers of two. */
	if (parse_uint(val, 256, 4096, &v) != 0 || (v & (v - 1)) != 0)
		return -EINVAL;
	a->pmtu = (uint16_t)v;
	return 0;
}

static int
parse_zero_copy(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 0, 1, &v) != 0)
		return -EINVAL;
	a->zero_copy = v == 1;
	return 0;
}

static int
parse_neigh_reachable(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 1, 3600, &v) != 0)
		return -EINVAL;
	a->neigh_reachable = (uint32_t)v;
	return 0;
}

static int
parse_neigh(const char *val, struct ernic_args *a)
{
	if (val == NULL)
		return -EINVAL;
	if (strcmp(val, "auto") == 0)
		a->neigh_mode = ERNIC_NEIGH_MODE_AUTO;
	else if (strcmp(val, "kernel") == 0)
		a->neigh_mode = ERNIC_NEIGH_MODE_KERNEL;
	else if (strcmp(val, "own") == 0)
		a->neigh_mode = ERNIC_NEIGH_MODE_OWN;
	else
		return -EINVAL;
	return 0;
}

static int
parse_qp1(const char *val, struct ernic_args *a)
{
	if (val == NULL)
		return -EINVAL;
	if (strcmp(val, "cm") == 0)
		a->qp1_regs = false;
	else if (strcmp(val, "regs") == 0)
		a->qp1_regs = true;
	else
		return -EINVAL;
	return 0;
}

static int
parse_sr(const char *val, struct ernic_args *a)
{
	if (val == NULL)
		return -EINVAL;
	if (strcmp(val, "on") == 0)
		a->sr_off = false;
	else if (strcmp(val, "off") == 0)
		a->sr_off = true;
	else
		return -EINVAL;
	return 0;
}

static int
parse_vlan(const char *val, struct ernic_args *a)
{
	unsigned long v;

	if (parse_uint(val, 1, 4094, &v) != 0)
		return -EINVAL;
	a->vlan = (uint16_t)v;
	a->has_vlan = true;
	return 0;
}

static int
parse_exception(const char *val, struct ernic_args *a)
{
	size_t i, n;

	/* a Linux interface name: 1..15 bytes, no '/', ':', ',' or space */
	if (val == NULL)
		return -EINVAL;
	n = strlen(val);
	if (n == 0 || n > 15)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (val[i] == '/' || val[i] == ':' || val[i] == ',' ||
		    val[i] == ' ' || val[i] == '=')
			return -EINVAL;
	rte_strlcpy(a->exception, val, sizeof(a->exception));
	return 0;
}

static int
add_lcore(struct ernic_args *a, unsigned long lc)
{
	if (lc >= RTE_MAX_LCORE || a->nb_lcores >= ERNIC_MAX_WORKERS)
		return -EINVAL;
	a->lcores[a->nb_lcores++] = (uint16_t)lc;
	return 0;
}

/* "3", "[1,2]", "[1-3,5]" */
static int
parse_lcores(const char *val, struct ernic_args *a)
{
	char buf[128], *p, *tok, *save = NULL, *dash;
	unsigned long lo, hi, i;
	size_t n;

	if (val == NULL || (n = strlen(val)) == 0 || n >= sizeof(buf))
		return -EINVAL;
	rte_strlcpy(buf, val, sizeof(buf));
	p = buf;
	if (*p == '[') {
		if (p[n - 1] != ']')
			return -EINVAL;
		p[n - 1] = '\0';
		p++;
	}
	a->nb_lcores = 0;
	for (tok = strtok_r(p, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash != NULL) {
			*dash = '\0';
			if (parse_uint(tok, 0, RTE_MAX_LCORE - 1, &lo) != 0 ||
			    parse_uint(dash + 1, 0, RTE_MAX_LCORE - 1, &hi) != 0 ||
			    hi < lo)
				return -EINVAL;
		} else {
			if (parse_uint(tok, 0, RTE_MAX_LCORE - 1, &lo) != 0)
				return -EINVAL;
			hi = lo;
		}
		for (i = lo; i <= hi; i++)
			if (add_lcore(a, i) != 0)
				return -EINVAL;
	}
	return a->nb_lcores > 0 ? 0 : -EINVAL;
}

static const struct ernic_key keys[] = {
	{ "port", "the name of an existing ethdev, e.g. port=net_ring0",
	  parse_port },
	{ "ip", "a unicast IPv4 address a.b.c.d or a.b.c.d/len", parse_ip },
	{ "gw", "a unicast IPv4 address a.b.c.d in the prefix of ip=a.b.c.d/len",
	  parse_gw },
	{ "ip6", "a unicast IPv6 address, e.g. 2001:2::1", parse_ip6 },
	{ "mac", "a unicast MAC address xx:xx:xx:xx:xx:xx", parse_mac },
	{ "workers", "an integer in 1..16", parse_workers },
	{ "max_qps", "an integer in 4..65536", parse_max_qps },
	{ "pmtu", "one of 256, 512, 1024, 2048, 4096", parse_pmtu },
	{ "vlan", "a VLAN id in 1..4094", parse_vlan },
	{ "exception", "a tap interface name of 1..15 characters",
	  parse_exception },
	{ "lcores", "an lcore id or a list [a,b-c] of at most 16",
	  parse_lcores },
	{ "zero_copy", "0 or 1", parse_zero_copy },
	{ "qp1", "cm (the control core owns QP1) or regs (the register window does)",
	  parse_qp1 },
	{ "neigh_reachable", "seconds in 1..3600", parse_neigh_reachable },
	{ "neigh", "auto (the kernel's neighbour table for the addresses it holds on the interface), kernel or own (ARP/ND of net_ernic)",
	  parse_neigh },
	{ "sr", "on (the CM offers and accepts selective repeat, the default) or off",
	  parse_sr },
	{ "ack_pkts", "an integer in 1..65535 (RC: an ACK at least every so many packets; 1: every packet)",
	  parse_ack_pkts },
	{ "ack_us", "microseconds in 1..65535 (RC: a held ACK goes so long after its first packet)",
	  parse_ack_us },
};

/*
 * A congestion control parameter by its roce_cc name (rp_ai_rate=10,
 * np_min_time_between_cnps=8, ecn_enable=0, ...): an integer in its range.
 */
static int
parse_cc(const char *name, const struct rte_kvargs *kv,
	 const struct rte_kvargs_pair *pair, struct ernic_args *a)
{
	int id = roce_cc_param_by_name(pair->key);
	const struct roce_cc_param_desc *d = roce_cc_param_info((unsigned int)id);
	unsigned long v;

	if (rte_kvargs_count(kv, pair->key) > 1 || (a->cc_mask & (1u << id))) {
		ERNIC_LOG(ERR, "%s: devarg %s= given more than once",
			  name, pair->key);
		return -EINVAL;
	}
	if (parse_uint(pair->value, d->min, d->max, &v) != 0) {
		ERNIC_LOG(ERR, "%s: bad devarg %s=%s: expected an integer in %u..%u (%s%s%s)",
			  name, pair->key,
			  pair->value != NULL ? pair->value : "", d->min,
			  d->max, d->help, d->unit[0] != '\0' ? ", " : "",
			  d->unit);
		return -EINVAL;
	}
	a->cc[id] = (uint32_t)v;
	a->cc_mask |= 1u << id;
	return 0;
}

int
ernic_args_parse(const char *name, const char *params, struct ernic_args *a)
{
	struct rte_kvargs *kv;
	const struct rte_kvargs_pair *pair;
	unsigned int i, k;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->nb_workers = 1;
	a->max_qps = ERNIC_DEFAULT_MAX_QPS;
	a->pmtu = ERNIC_DEFAULT_PMTU;
	a->zero_copy = true;	/* used when the port sends multi-segment mbufs */
	a->neigh_reachable = ERNIC_NEIGH_REACHABLE_S;

	if (params == NULL || *params == '\0') {
		ERNIC_LOG(ERR, "%s: missing devarg port=: expected %s",
			  name, keys[0].form);
		return -EINVAL;
	}
	kv = rte_kvargs_parse(params, NULL);
	if (kv == NULL) {
		ERNIC_LOG(ERR, "%s: cannot parse devargs \"%s\": expected key=value[,key=value...]",
			  name, params);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		pair = &kv->pairs[i];
		for (k = 0; k < RTE_DIM(keys); k++)
			if (strcmp(pair->key, keys[k].key) == 0)
				break;
		if (k == RTE_DIM(keys) &&
		    roce_cc_param_by_name(pair->key) >= 0) {
			ret = parse_cc(name, kv, pair, a);
		} else if (k == RTE_DIM(keys)) {
			ERNIC_LOG(ERR, "%s: unknown devarg \"%s\": expected one of %s",
				  name, pair->key, ERNIC_PARAM_STRING);
			ret = -EINVAL;
		} else if (rte_kvargs_count(kv, pair->key) > 1) {
			ERNIC_LOG(ERR, "%s: devarg %s= given more than once",
				  name, pair->key);
			ret = -EINVAL;
		} else if (keys[k].parse(pair->value, a) != 0) {
			ERNIC_LOG(ERR, "%s: bad devarg %s=%s: expected %s",
				  name, pair->key,
				  pair->value != NULL ? pair->value : "",
				  keys[k].form);
			ret = -EINVAL;
		}
	}
	rte_kvargs_free(kv);
	a->pmtu_asked = a->pmtu;
	if (ret == 0 && a->has_gw4 && !gw_on_link(a)) {
		ERNIC_LOG(ERR, "%s: bad devarg gw=: expected an address other than ip= inside the prefix of ip=a.b.c.d/len (len < 32)",
			  name);
		ret = -EINVAL;
	}
	if (ret == 0 && a->port[0] == '\0') {
		ERNIC_LOG(ERR, "%s: missing devarg port=: expected %s",
			  name, keys[0].form);
		ret = -EINVAL;
	}
	return ret;
}
