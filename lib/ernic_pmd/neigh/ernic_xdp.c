/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDP steering of net_ernic on net_af_xdp (doc/guides/xdp.rst).
 *
 * When the underlying port is a net_af_xdp port whose interface runs the
 * project's steering program (xdp/ernic_roce_steer.bpf.c, given to
 * net_af_xdp with xdp_prog=), the port start publishes the net_ernic
 * addresses (its GID table: IPv4-mapped ip=, ip6=, the link-local address)
 * into the program's "ernic_local" map, so that only the RoCEv2 frames for
 * them reach the AF_XDP socket and the kernel keeps everything else. The
 * map is found from the interface: the id of its attached XDP program
 * (bpf_xdp_query_id), the program's map ids, the map named "ernic_local".
 * Addresses the kernel does not hold on the interface also get their ARP
 * and ND steered (ERNIC_XDP_F_NEIGH): nobody else would answer for them.
 * The port stop removes the entries and logs the program's counters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <rte_malloc.h>

#include "ernic_priv.h"
#include "ernic_xdp_maps.h"

#ifdef ERNIC_HAVE_LIBBPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#endif

/** Steering state of a port (p->xdp). */
struct ernic_xdp {
	int map_fd;			/**< "ernic_local" */
	int cnt_fd;			/**< "ernic_xdp_cnt", -1: absent */
	uint32_t prog_id;
	char ifname[IF_NAMESIZE];
	unsigned int nb;		/**< entries we added */
	struct ernic_xdp_addr key[ERNIC_GID_MAX];
};

static const char * const xdp_cnt_names[ERNIC_XDP_CNT_MAX] = {
	[ERNIC_XDP_CNT_REDIRECT_ROCE] = "redirect_roce",
	[ERNIC_XDP_CNT_REDIRECT_NEIGH] = "redirect_neigh",
	[ERNIC_XDP_CNT_PASS_NOT_ROCE] = "pass_not_roce",
	[ERNIC_XDP_CNT_PASS_NOT_LOCAL] = "pass_not_local",
	[ERNIC_XDP_CNT_PASS_VLAN] = "pass_vlan",
	[ERNIC_XDP_CNT_PASS_SHORT] = "pass_short",
};

const char *
ernic_xdp_cnt_name(unsigned int c)
{
	return c < ERNIC_XDP_CNT_MAX ? xdp_cnt_names[c] : NULL;
}

#ifdef ERNIC_HAVE_LIBBPF

/* The fd of the map named @p name of program @p prog_fd, or -1. */
static int
prog_map_by_name(int prog_fd, const char *name, uint32_t key_size,
		 uint32_t value_size)
{
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	uint32_t len, i, n, *ids;
	int fd = -1;

	memset(&pi, 0, sizeof(pi));
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len) != 0)
		return -1;
	n = pi.nr_map_ids;
	if (n == 0)
		return -1;
	ids = calloc(n, sizeof(*ids));
	if (ids == NULL)
		return -1;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = n;
	pi.map_ids = (uint64_t)(uintptr_t)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(prog_fd, &pi, &len) != 0) {
		free(ids);
		return -1;
	}
	n = RTE_MIN(n, pi.nr_map_ids);
	for (i = 0; i < n && fd < 0; i++) {
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (bpf_obj_get_info_by_fd(mfd, &mi, &len) == 0 &&
		    strncmp(mi.name, name, sizeof(mi.name)) == 0 &&
		    mi.key_size == key_size && mi.value_size == value_size)
			fd = mfd;
		else
			close(mfd);
	}
	free(ids);
	return fd;
}

static void
xdp_log_counters(const struct ernic_port *p, const struct ernic_xdp *x)
{
	uint64_t v[ERNIC_XDP_CNT_MAX];
	char line[512];
	size_t off = 0;
	unsigned int c;

	if (x->cnt_fd < 0 || ernic_xdp_counters(p, v, ERNIC_XDP_CNT_MAX) < 0)
		return;
	for (c = 0; c < ERNIC_XDP_CNT_MAX && off < sizeof(line); c++)
		off += (size_t)snprintf(line + off, sizeof(line) - off,
					"%s%s %" PRIu64, c ? ", " : "",
					xdp_cnt_names[c], v[c]);
	ERNIC_LOG(INFO, "port %u: XDP program %u on %s: %s", p->port_id,
		  x->prog_id, x->ifname, line);
}

int
ernic_xdp_counters(const struct ernic_port *p, uint64_t *v, unsigned int n)
{
	const struct ernic_xdp *x = p->xdp;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *pc;
	unsigned int c;
	int cpu;

	if (x == NULL || x->cnt_fd < 0)
		return -ENOENT;
	if (ncpu <= 0)
		return -EINVAL;
	pc = calloc((size_t)ncpu, sizeof(*pc));
	if (pc == NULL)
		return -ENOMEM;
	for (c = 0; c < n && c < ERNIC_XDP_CNT_MAX; c++) {
		uint32_t k = c;

		v[c] = 0;
		if (bpf_map_lookup_elem(x->cnt_fd, &k, pc) != 0)
			continue;
		for (cpu = 0; cpu < ncpu; cpu++)
			v[c] += pc[cpu];
	}
	free(pc);
	return (int)RTE_MIN(n, (unsigned int)ERNIC_XDP_CNT_MAX);
}

int
ernic_xdp_start(struct ernic_port *p)
{
	struct rte_eth_dev_info ui;
	struct ernic_xdp_local val;
	struct ernic_xdp *x;
	char ifname[IF_NAMESIZE], abuf[INET6_ADDRSTRLEN];
	uint32_t prog_id = 0;
	unsigned int i;
	int ret, prog_fd;

	if (p->xdp != NULL)
		return 0;
	if (rte_eth_dev_info_get(p->under, &ui) != 0 ||
	    ui.driver_name == NULL ||
	    strcmp(ui.driver_name, "net_af_xdp") != 0)
		return 0;
	if (ui.if_index == 0 || if_indextoname(ui.if_index, ifname) == NULL) {
		ERNIC_LOG(WARNING, "port %u: net_af_xdp port %u has no interface index: addresses not published to XDP",
			  p->port_id, p->under);
		return 0;
	}
	ret = bpf_xdp_query_id((int)ui.if_index, 0, &prog_id);
	if (ret != 0 || prog_id == 0) {
		ERNIC_LOG(NOTICE, "port %u: %s runs no XDP program of ours (%s): every frame goes to net_ernic; give net_af_xdp xdp_prog=ernic_roce_steer.bpf.o to keep the kernel on it",
			  p->port_id, ifname,
			  ret != 0 ? strerror(-ret) : "none attached");
		return 0;
	}
	prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (prog_fd < 0) {
		ERNIC_LOG(ERR, "port %u: XDP program %u on %s: cannot open it: %s",
			  p->port_id, prog_id, ifname, strerror(errno));
		return -errno;
	}
	x = rte_zmalloc_socket("ernic_xdp", sizeof(*x), 0, p->socket);
	if (x == NULL) {
		close(prog_fd);
		return -ENOMEM;
	}
	x->prog_id = prog_id;
	snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
	x->map_fd = prog_map_by_name(prog_fd, ERNIC_XDP_LOCAL_MAP,
				     sizeof(struct ernic_xdp_addr),
				     sizeof(struct ernic_xdp_local));
	x->cnt_fd = prog_map_by_name(prog_fd, ERNIC_XDP_CNT_MAP,
				     sizeof(uint32_t), sizeof(uint64_t));
	close(prog_fd);
	if (x->map_fd < 0) {
		ERNIC_LOG(WARNING, "port %u: XDP program %u on %s has no \"%s\" map: it is not ernic_roce_steer.bpf.o, and it alone decides what net_ernic receives",
			  p->port_id, prog_id, ifname, ERNIC_XDP_LOCAL_MAP);
		if (x->cnt_fd >= 0)
			close(x->cnt_fd);
		rte_free(x);
		return 0;
	}
	memset(&val, 0, sizeof(val));
	val.vlan = p->args.has_vlan ? p->args.vlan : 0;
	for (i = 0; i < p->nb_gid && i < ERNIC_GID_MAX; i++) {
		bool kern = ernic_kernel_has_addr(ifname, p->gid[i].raw);

		memcpy(x->key[x->nb].a, p->gid[i].raw, 16);
		val.flags = ERNIC_XDP_F_ROCE | (kern ? 0 : ERNIC_XDP_F_NEIGH);
		if (bpf_map_update_elem(x->map_fd, &x->key[x->nb], &val,
					BPF_ANY) != 0) {
			ret = -errno;
			ERNIC_LOG(ERR, "port %u: XDP map %s on %s: cannot add GID %u: %s",
				  p->port_id, ERNIC_XDP_LOCAL_MAP, ifname, i,
				  strerror(errno));
			p->xdp = x;
			ernic_xdp_stop(p);
			return ret;
		}
		x->nb++;
		ernic_xdp_addr_str(p->gid[i].raw, abuf, sizeof(abuf));
		ERNIC_LOG(INFO, "port %u: XDP program %u on %s steers RoCEv2 to %s%s%s",
			  p->port_id, prog_id, ifname, abuf,
			  kern ? " (the kernel holds it and answers ARP/ND)" :
			  " and its ARP/ND (not a kernel address)",
			  val.vlan ? " on the vlan= VLAN" : "");
	}
	p->xdp = x;
	return 0;
}

void
ernic_xdp_stop(struct ernic_port *p)
{
	struct ernic_xdp *x = p->xdp;
	unsigned int i;

	if (x == NULL)
		return;
	xdp_log_counters(p, x);
	for (i = 0; i < x->nb; i++)
		bpf_map_delete_elem(x->map_fd, &x->key[i]);
	close(x->map_fd);
	if (x->cnt_fd >= 0)
		close(x->cnt_fd);
	p->xdp = NULL;
	rte_free(x);
}

#else /* !ERNIC_HAVE_LIBBPF */

int
ernic_xdp_counters(const struct ernic_port *p __rte_unused,
		   uint64_t *v __rte_unused, unsigned int n __rte_unused)
{
	return -ENOTSUP;
}

int
ernic_xdp_start(struct ernic_port *p)
{
	struct rte_eth_dev_info ui;

	if (rte_eth_dev_info_get(p->under, &ui) == 0 &&
	    ui.driver_name != NULL &&
	    strcmp(ui.driver_name, "net_af_xdp") == 0)
		ERNIC_LOG(WARNING, "port %u: built without libbpf: the addresses are not published to an XDP program on the net_af_xdp port",
			  p->port_id);
	return 0;
}

void
ernic_xdp_stop(struct ernic_port *p __rte_unused)
{
}

#endif /* ERNIC_HAVE_LIBBPF */

uint32_t
ernic_xdp_frame_max(uint16_t under)
{
	struct rte_eth_dev_info ui;

	/*
	 * DPDK 22.11's net_af_xdp: one umem chunk per frame, no multi-buffer.
	 * The chunk is an mbuf of the RX pool (zero-copy umem), at most a
	 * page; the kernel writes the frame after the mbuf headroom and
	 * XDP_PACKET_HEADROOM, so it reports max_rx_pktlen = page size -
	 * mempool object header - struct rte_mbuf - RTE_PKTMBUF_HEADROOM -
	 * XDP_PACKET_HEADROOM (3568 bytes with 4 KiB pages). The RX pool must
	 * be large enough for that (ernic_pools_create()).
	 */
	if (rte_eth_dev_info_get(under, &ui) != 0 || ui.driver_name == NULL ||
	    strcmp(ui.driver_name, "net_af_xdp") != 0)
		return 0;
	return ui.max_rx_pktlen;
}

void
ernic_xdp_addr_str(const uint8_t *a, char *buf, size_t len)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0xff, 0xff };

	if (memcmp(a, v4map, sizeof(v4map)) == 0)
		inet_ntop(AF_INET, a + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, a, buf, (socklen_t)len);
}
