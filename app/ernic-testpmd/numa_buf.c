/* SPDX-License-Identifier: BSD-3-Clause */
/* MR buffers on the QP worker's NUMA node (numa_buf.h). */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <numa.h>
#include <sys/mman.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_memory.h>

#include "numa_buf.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_numa.h"

struct nb_entry {
	struct nb_entry *next;
	void *addr;
	size_t len;
	bool numa;		/* numa_alloc_onnode, else mmap */
	bool extmem;
	struct rte_device *dma_dev;	/* DMA-mapped for it, or NULL */
	rte_iova_t iova;
};

/* the program's buffers (the benchmark and prompt threads, one at a time) */
static struct nb_entry *entries;

/* The device to DMA-map for: the underlying port's, if on a physical bus. */
static struct rte_device *
dma_device(uint16_t port_id)
{
	struct rte_eth_dev_info ui;
	const struct rte_bus *bus;
	int under = rte_pmd_ernic_underlying_port(port_id);

	if (under < 0 || rte_eth_dev_info_get((uint16_t)under, &ui) != 0 ||
	    ui.device == NULL)
		return NULL;
	bus = rte_dev_bus(ui.device);
	if (bus == NULL || strcmp(rte_bus_name(bus), "vdev") == 0)
		return NULL;	/* a virtual device copies: no DMA */
	return ui.device;
}

static int
extmem_register(struct nb_entry *e, size_t pgsz)
{
	unsigned int n = (unsigned int)(e->len / pgsz), i;
	rte_iova_t *iovas = NULL;
	int ret;

	if (rte_eal_iova_mode() == RTE_IOVA_PA) {
		iovas = calloc(n, sizeof(*iovas));
		if (iovas == NULL)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			iovas[i] = rte_mem_virt2phy((char *)e->addr +
						    (size_t)i * pgsz);
	}
	ret = rte_extmem_register(e->addr, e->len, iovas, iovas ? n : 0, pgsz);
	e->iova = iovas != NULL ? iovas[0] : (rte_iova_t)(uintptr_t)e->addr;
	free(iovas);
	return ret != 0 ? -rte_errno : 0;
}

/*
 * ERNIC_MR_NODE=wrong (devtools/bench.sh --numa-wrong): the first node
 * with memory other than @p right, to measure the cost of remote MRs;
 * ERNIC_MR_NODE=<n>: node n. Otherwise, or when there is no such node,
 * @p right.
 */
static int
mr_node(int right)
{
	const char *v = getenv("ERNIC_MR_NODE");
	static bool said;
	int n, max = numa_max_node();
	char *end;

	if (v == NULL || *v == '\0')
		return right;
	if (strcmp(v, "wrong") == 0) {
		for (n = 0; n <= max; n++)
			if (n != right && numa_bitmask_isbitset(numa_all_nodes_ptr,
								(unsigned int)n) &&
			    numa_node_size64(n, NULL) > 0)
				return n;
		if (!said)
			fprintf(stderr, "ERNIC_MR_NODE=wrong: one NUMA node with memory, MRs stay on node %d\n",
				right);
		said = true;
		return right;
	}
	n = (int)strtol(v, &end, 10);
	if (*end != '\0' || n < 0 || n > max) {
		if (!said)
			fprintf(stderr, "ERNIC_MR_NODE=%s: not a node of 0..%d, MRs on node %d\n",
				v, max, right);
		said = true;
		return right;
	}
	return n;
}

uint64_t
numa_buf_mem_available(void)
{
	unsigned long long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib * 1024;
}

void *
numa_buf_alloc(uint16_t port_id, uint16_t worker, size_t len,
	       struct numa_buf_info *info)
{
	struct rte_pmd_ernic_placement pl;
	struct numa_buf_info inf;
	size_t pgsz = (size_t)sysconf(_SC_PAGESIZE);
	struct nb_entry *e;
	int ret;

	memset(&inf, 0, sizeof(inf));
	inf.node = inf.worker_node = inf.lcore_node = inf.dev_node = -1;
	if (rte_pmd_ernic_worker_placement(port_id, worker, &pl) == 0) {
		inf.worker_node = pl.mem_socket;
		inf.lcore_node = pl.lcore_socket;
		inf.dev_node = pl.dev_socket;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL || len == 0) {
		free(e);
		errno = len == 0 ? EINVAL : ENOMEM;
		return NULL;
	}
	e->len = (len + pgsz - 1) / pgsz * pgsz;
	if (numa_available() >= 0 && inf.worker_node >= 0 &&
	    inf.worker_node <= numa_max_node()) {
		inf.node = mr_node(inf.worker_node);
		e->addr = numa_alloc_onnode(e->len, inf.node);
		e->numa = e->addr != NULL;
	}
	if (e->addr == NULL) {
		e->addr = mmap(NULL, e->len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (e->addr == MAP_FAILED) {
			free(e);
			errno = ENOMEM;
			return NULL;
		}
	}
	/* fault the pages in, on the node of the policy */
	memset(e->addr, 0, e->len);
	ret = extmem_register(e, pgsz);
	if (ret != 0) {
		fprintf(stderr, "ernic-testpmd: rte_extmem_register of %zu bytes: %s (zero-copy TX will copy)\n",
			e->len, rte_strerror(-ret));
	} else {
		e->extmem = true;
		e->dma_dev = dma_device(port_id);
		if (e->dma_dev != NULL &&
		    rte_dev_dma_map(e->dma_dev, e->addr, e->iova, e->len) != 0) {
			fprintf(stderr, "ernic-testpmd: DMA map of the MR buffer for %s: %s\n",
				rte_dev_name(e->dma_dev),
				rte_strerror(rte_errno));
			e->dma_dev = NULL;
		}
	}
	inf.extmem = e->extmem;
	inf.dma_mapped = e->dma_dev != NULL;
	if (inf.dev_node >= 0 && inf.node >= 0 && inf.dev_node != inf.node)
		fprintf(stderr, "ernic-testpmd: warning: MR buffer on NUMA node %d, the port's device on node %d\n",
			inf.node, inf.dev_node);
	e->next = entries;
	entries = e;
	if (info != NULL)
		*info = inf;
	return e->addr;
}

void
numa_buf_free(void *addr)
{
	struct nb_entry **pp, *e;

	if (addr == NULL)
		return;
	for (pp = &entries; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->addr == addr)
			break;
	e = *pp;
	if (e == NULL)
		return;
	*pp = e->next;
	if (e->dma_dev != NULL)
		rte_dev_dma_unmap(e->dma_dev, e->addr, e->iova, e->len);
	if (e->extmem)
		rte_extmem_unregister(e->addr, e->len);
	if (e->numa)
		numa_free(e->addr, e->len);
	else
		munmap(e->addr, e->len);
	free(e);
}

void
numa_placement_str(uint16_t port_id, uint16_t worker, char *buf, size_t len)
{
	struct rte_pmd_ernic_placement pl;

	if (rte_pmd_ernic_worker_placement(port_id, worker, &pl) != 0) {
		snprintf(buf, len, "NUMA: no placement (not a net_ernic port)");
		return;
	}
	snprintf(buf, len, "NUMA: device node %d, worker %u memory node %d, lcore %d node %d%s (%d node(s))",
		 pl.dev_socket, worker, pl.mem_socket, pl.lcore,
		 pl.lcore_socket, pl.cross_node ? ", CROSS-NODE" : "",
		 numa_available() >= 0 ? numa_max_node() + 1 : 1);
}
