/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic ports (see port.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ernic_env.h"
#include "port.h"
#include "rte_pmd_ernic.h"

/*
 * Loopback link: as deep as a NIC's TX ring (512 descriptors). A full ring
 * holds the engines back (roce_worker_tx_room()); a deeper one only holds
 * a standing queue of every QP's window, whose frames have left the cache
 * by the time the receiver copies them (performance.rst, "Many QPs").
 */
#define LB_RING_SIZE 512

/* how the PMD's log lines start (ERNIC_LOG of lib/ernic_pmd) */
#define PROBE_LOG_PREFIX ERNIC_ENV_DRIVER ": "

enum {
	PROBE_LOG_LINES = 16,	/* error lines kept: the last ones */
	PROBE_LOG_LINE = 512,
};

/* The probes' error lines (port_probe_log_begin()). */
static struct {
	FILE *stream;		/* ours, while the EAL probes */
	FILE *next;		/* where the lines go on */
	char line[PROBE_LOG_LINES][PROBE_LOG_LINE];
	unsigned int n;
} probe_log;

/* One message of rte_log (it flushes after each): keep it, pass it on. */
static ssize_t
probe_log_write(void *cookie, const char *buf, size_t size)
{
	char *l;
	size_t n;

	(void)cookie;
	if (rte_log_cur_msg_loglevel() <= (int)RTE_LOG_ERR &&
	    size > strlen(PROBE_LOG_PREFIX) &&
	    strncmp(buf, PROBE_LOG_PREFIX, strlen(PROBE_LOG_PREFIX)) == 0) {
		l = probe_log.line[probe_log.n++ % PROBE_LOG_LINES];
		n = RTE_MIN(size, (size_t)PROBE_LOG_LINE - 1);
		memcpy(l, buf, n);
		while (n > 0 && (l[n - 1] == '\n' || l[n - 1] == '\r'))
			n--;
		l[n] = '\0';
	}
	return (ssize_t)fwrite(buf, 1, size, probe_log.next);
}

void
port_probe_log_begin(void)
{
	static const cookie_io_functions_t io = { .write = probe_log_write };

	probe_log.n = 0;
	probe_log.next = rte_log_get_stream();
	probe_log.stream = fopencookie(NULL, "w", io);
	if (probe_log.stream != NULL &&
	    rte_openlog_stream(probe_log.stream) != 0) {
		fclose(probe_log.stream);
		probe_log.stream = NULL;
	}
}

void
port_probe_log_end(void)
{
	if (probe_log.stream == NULL)
		return;
	rte_openlog_stream(NULL);	/* the EAL's own stream again */
	fclose(probe_log.stream);
	probe_log.stream = NULL;
}

int
port_check_probed(char *err, size_t len)
{
	char name[RTE_DEV_NAME_MAX_LEN], want[RTE_DEV_NAME_MAX_LEN + 8];
	const char *why = NULL;
	unsigned int i, k;

	if (ernic_env_check_probed(name, sizeof(name)) == 0)
		return 0;
	/* the last error line about it: "net_ernic: <name>: <reason>" */
	snprintf(want, sizeof(want), "%s: ", name);
	for (i = 0; i < RTE_MIN(probe_log.n, (unsigned int)PROBE_LOG_LINES);
	     i++) {
		k = (probe_log.n - 1 - i) % PROBE_LOG_LINES;
		if (strncmp(probe_log.line[k] + strlen(PROBE_LOG_PREFIX), want,
			    strlen(want)) == 0) {
			why = probe_log.line[k] + strlen(PROBE_LOG_PREFIX) +
				strlen(want);
			break;
		}
	}
	snprintf(err, len, "%s: %s", name, why != NULL ? why :
		 "the probe failed (its reason is logged by pmd.net.ernic at level error)");
	return -ENODEV;
}

int
port_nth(unsigned int nth, uint16_t *port_id)
{
	return ernic_env_port_nth(nth, port_id);
}

int
port_find(const char *name, uint16_t *port_id)
{
	uint16_t pid;

	if (name == NULL || name[0] == '\0')
		return port_nth(0, port_id);
	if (rte_eth_dev_get_port_by_name(name, &pid) != 0 ||
	    !ernic_env_is_ernic(pid))
		return -ENODEV;
	*port_id = pid;
	return 0;
}

void
port_wait_link(uint16_t port_id, unsigned int seconds)
{
	if (ernic_env_port_wait_link(port_id, seconds * 1000) != 0)
		fprintf(stderr, "ernic-testpmd: warning: port %u link still down after %u s\n",
			port_id, seconds);
}

int
port_start(uint16_t port_id)
{
	return ernic_env_port_start(port_id);
}

void
port_close_all(void)
{
	ernic_env_close_all();
}

static bool
gid_is_v4(const union roce_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

int
port_pick_gid(uint16_t port_id, int want, int *index, union roce_gid *gid)
{
	union roce_gid g;
	int i, ret;

	if (want >= 0) {
		ret = rte_pmd_ernic_gid(port_id, (unsigned int)want, gid);
		if (ret == 0)
			*index = want;
		return ret;
	}
	for (i = 0; rte_pmd_ernic_gid(port_id, (unsigned int)i, &g) == 0; i++)
		if (gid_is_v4(&g)) {
			*index = i;
			*gid = g;
			return 0;
		}
	*index = 0;
	return rte_pmd_ernic_gid(port_id, 0, gid);
}

unsigned int
port_mtu_code(uint16_t port_id)
{
	return ernic_env_port_mtu_code(port_id);
}

int
port_resolve(uint16_t port_id, const union roce_gid *gid, uint8_t mac[6],
	     unsigned int timeout_s, void (*progress)(void *), void *arg,
	     volatile int *quit)
{
	return ernic_env_resolve(port_id, gid, mac, timeout_s * 1000,
				 progress, arg, quit);
}

void
port_print_xstats(FILE *out, uint16_t port_id)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	char pname[RTE_ETH_NAME_MAX_LEN];
	int n, i;

	if (rte_eth_dev_get_name_by_port(port_id, pname) != 0)
		snprintf(pname, sizeof(pname), "port%u", port_id);
	n = rte_eth_xstats_get(port_id, NULL, 0);
	if (n > 0) {
		xs = calloc((size_t)n, sizeof(*xs));
		names = calloc((size_t)n, sizeof(*names));
	}
	if (xs == NULL || names == NULL ||
	    rte_eth_xstats_get(port_id, xs, (unsigned int)n) != n ||
	    rte_eth_xstats_get_names(port_id, names, (unsigned int)n) != n) {
		fprintf(out, "xstat %s unavailable\n", pname);
	} else {
		for (i = 0; i < n; i++)
			if (xs[i].value != 0)
				fprintf(out, "xstat %s %s %" PRIu64 "\n", pname,
					names[xs[i].id].name, xs[i].value);
	}
	free(xs);
	free(names);
}

uint64_t
port_xstat(uint16_t port_id, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port_id, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port_id, &id, &v, 1) != 1)
		return 0;
	return v;
}

void
port_print_cycles(FILE *out, uint16_t port_id)
{
	uint64_t busy = port_xstat(port_id, "busy_cycles");
	uint64_t bpolls = port_xstat(port_id, "busy_polls");
	uint64_t ipolls = port_xstat(port_id, "idle_polls");
	uint64_t rx = port_xstat(port_id, "rx_roce");
	uint64_t tx = port_xstat(port_id, "tx_roce");
	uint64_t one_way = RTE_MAX(rx, tx);
	double hz = (double)rte_get_tsc_hz(), per_way;
	char pname[RTE_ETH_NAME_MAX_LEN];

	if (rte_eth_dev_get_name_by_port(port_id, pname) != 0)
		snprintf(pname, sizeof(pname), "port%u", port_id);
	if (one_way == 0 || bpolls == 0) {
		fprintf(out, "cycles: %s moved no RoCE frame\n", pname);
		return;
	}
	/*
	 * The busier direction carries the data (one frame a message up to
	 * the path MTU); the other its ACKs or requests, paid for here too.
	 */
	per_way = (double)busy / (double)one_way;
	fprintf(out, "cycles: %s busy_polls=%.1f%% cycles_a_poll=%.0f cycles_a_frame=%.0f (rx %" PRIu64 " + tx %" PRIu64 ") cycles_a_frame_one_way=%.0f = %.2f M/s a busy worker lcore (TSC %.0f MHz)\n",
		pname, 100.0 * (double)bpolls / (double)(bpolls + ipolls),
		(double)busy / (double)bpolls,
		(double)busy / (double)(rx + tx), rx, tx, per_way,
		hz / per_way / 1e6, hz / 1e6);
}

void
port_gid_str(const union roce_gid *gid, char *buf, size_t len)
{
	if (inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
}

int
port_make_loopback_pair_qps(uint16_t port_id[2], uint32_t qps)
{
	/* room for QP0, QP1 and qps QPs: the default (1024) or more */
	uint32_t max_qps = RTE_MAX(1024u, rte_align32pow2(qps + 2));
	static const char *const ips[2] = { "198.18.0.1", "198.18.0.2" };
	static const char *const macs[2] = { "02:00:c6:12:00:01",
					     "02:00:c6:12:00:02" };
	struct rte_ring *r[2];
	char name[32], args[160], rname[RTE_ETH_NAME_MAX_LEN];
	int ring_port[2], i, ret;

	/* r[0]: 0 -> 1, r[1]: 1 -> 0 */
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "lb_r%d", i);
		r[i] = rte_ring_create(name, LB_RING_SIZE, (int)rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL)
			return -rte_errno;
	}
	ring_port[0] = rte_eth_from_rings("lb_ring0", &r[1], 1, &r[0], 1,
					  rte_socket_id());
	ring_port[1] = rte_eth_from_rings("lb_ring1", &r[0], 1, &r[1], 1,
					  rte_socket_id());
	if (ring_port[0] < 0 || ring_port[1] < 0)
		return -rte_errno;
	for (i = 0; i < 2; i++) {
		if (rte_eth_dev_get_name_by_port((uint16_t)ring_port[i],
						 rname) != 0)
			return -ENODEV;
		snprintf(name, sizeof(name), "net_ernic_lb%d", i);
		snprintf(args, sizeof(args),
			 "port=%s,ip=%s,mac=%s,pmtu=4096,max_qps=%u", rname,
			 ips[i], macs[i], RTE_MIN(max_qps, 65536u));
		ret = rte_vdev_init(name, args);
		if (ret != 0)
			return ret;
		if (rte_eth_dev_get_port_by_name(name, &port_id[i]) != 0)
			return -ENODEV;
	}
	return 0;
}

int
port_make_loopback_pair(uint16_t port_id[2])
{
	return port_make_loopback_pair_qps(port_id, 0);
}
