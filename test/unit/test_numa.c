/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NUMA placement (rte_pmd_ernic_numa.h): the decision function on every
 * combination that a multi-node machine gives (this one has one node, so
 * the cross-node cases are decided on made-up node masks), the placement
 * a started net_ernic port reports, roce_worker_create_socket() honouring
 * its node, and ernic-testpmd's MR buffers (numa_buf.c): on the worker's
 * node as the kernel reports it (get_mempolicy), registered with DPDK as
 * external memory.
 */

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "numa_buf.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_numa.h"
#include "test_common.h"

struct place_case {
	int dev, lcore;
	uint64_t mask;
	int fallback;
	int pool, mem;
	bool cross, fb;
};

static void
test_decide(void)
{
	static const struct place_case c[] = {
		/* one node: everything on it */
		{ 0, 0, 0x1, 0, 0, 0, false, false },
		/* device on 1, lcore on 0: pools by the device, the
		 * worker's memory by its lcore, cross-node */
		{ 1, 0, 0x3, 0, 1, 0, true, false },
		{ 0, 1, 0x3, 0, 0, 1, true, false },
		/* same node */
		{ 1, 1, 0x3, 0, 1, 1, false, false },
		/* device unknown (a vdev): the lcore decides both */
		{ -1, 1, 0x3, 0, 1, 1, false, false },
		/* lcore unknown (no lcores=, services not mapped) */
		{ 1, -1, 0x3, 0, 1, 1, false, false },
		/* nothing known: the fallback */
		{ -1, -1, 0x3, 1, 1, 1, false, false },
		/* the device's node has no memory: lcore's, flagged */
		{ 1, 0, 0x1, 0, 0, 0, true, true },
		/* the lcore's node has no memory: device's, flagged */
		{ 2, 3, 0x5, 0, 2, 2, true, true },
		/* neither has memory: the fallback */
		{ 2, 3, 0x1, 0, 0, 0, true, true },
		/* nodes past 63 are never usable */
		{ 70, -1, 0x1, 0, 0, 0, false, true },
	};
	struct rte_pmd_ernic_placement pl;
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		CU_ASSERT_FATAL(rte_pmd_ernic_placement_decide(c[i].dev,
			c[i].lcore, c[i].mask, c[i].fallback, &pl) == 0);
		CU_ASSERT_EQUAL(pl.pool_socket, c[i].pool);
		CU_ASSERT_EQUAL(pl.mem_socket, c[i].mem);
		CU_ASSERT_EQUAL(pl.cross_node, c[i].cross);
		CU_ASSERT_EQUAL(pl.fallback, c[i].fb);
		CU_ASSERT_EQUAL(pl.dev_socket, c[i].dev < 0 ? SOCKET_ID_ANY :
				c[i].dev);
		CU_ASSERT_EQUAL(pl.lcore, -1);
		if (pl.pool_socket != c[i].pool || pl.mem_socket != c[i].mem)
			printf("  case %u: pool %d mem %d\n", i,
			       pl.pool_socket, pl.mem_socket);
	}
	CU_ASSERT(rte_pmd_ernic_placement_decide(0, 0, 1, 0, NULL) == -EINVAL);
	CU_ASSERT(rte_pmd_ernic_placement_decide(0, 0, 0, 0, &pl) == -EINVAL);
	CU_ASSERT(rte_pmd_ernic_placement_decide(0, 0, 1, 1, &pl) == -EINVAL);
	CU_ASSERT(rte_pmd_ernic_placement_decide(0, 0, 1, -1, &pl) == -EINVAL);
}

static uint16_t ring_port, ern_port;

static void
test_port_placement(void)
{
	struct rte_ring *r = rte_ring_create("numa_r", 1024, 0, 0);
	struct rte_pmd_ernic_placement pl;
	uint64_t mask = rte_pmd_ernic_mem_sockets();
	int p;

	CU_ASSERT_FATAL(r != NULL);
	p = rte_eth_from_rings("numaR", &r, 1, &r, 1, 0);
	CU_ASSERT_FATAL(p >= 0);
	ring_port = (uint16_t)p;
	CU_ASSERT((mask & (UINT64_C(1) << rte_socket_id())) != 0);
	CU_ASSERT_FATAL(rte_vdev_init("net_ernic0",
		"port=net_ring_numaR,ip=198.18.0.1,workers=2") == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_ernic0",
						     &ern_port) == 0);
	/* before the first start: no memory placed yet */
	CU_ASSERT(rte_pmd_ernic_worker_placement(ern_port, 0, &pl) == 0);
	CU_ASSERT_EQUAL(pl.mem_socket, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(test_port_start(ern_port) == 0);
	CU_ASSERT(rte_pmd_ernic_worker_placement(ern_port, 1, &pl) == 0);
	/* a net_ring port: the device's node is the probing lcore's */
	CU_ASSERT_EQUAL(pl.dev_socket, (int)rte_socket_id());
	CU_ASSERT_EQUAL(pl.pool_socket, (int)rte_socket_id());
	CU_ASSERT_EQUAL(pl.mem_socket, (int)rte_socket_id());
	CU_ASSERT_EQUAL(pl.lcore, -1);		/* polled inline */
	CU_ASSERT(!pl.cross_node);
	CU_ASSERT(rte_pmd_ernic_worker_placement(ern_port, 2, &pl) ==
		  -EINVAL);
	CU_ASSERT(rte_pmd_ernic_worker_placement(ern_port, 0, NULL) ==
		  -EINVAL);
	CU_ASSERT(rte_pmd_ernic_worker_placement(ring_port, 0, &pl) ==
		  -ENODEV);
}

static uint16_t
nop_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	(void)ctx;
	rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static void
test_worker_socket(void)
{
	struct roce_device *dev = rte_pmd_ernic_get_device(ern_port);
	struct roce_worker *w;

	CU_ASSERT_FATAL(dev != NULL);
	w = roce_worker_create_socket(dev, nop_tx, NULL, (int)rte_socket_id());
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT(roce_worker_destroy(w) == 0);
	w = roce_worker_create_socket(dev, nop_tx, NULL, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT(roce_worker_destroy(w) == 0);
}

static void
test_mr_buffer(void)
{
	struct numa_buf_info inf;
	char line[160];
	uint8_t *b, *b2;
	int node = -1;
	size_t i;

	b = numa_buf_alloc(ern_port, 0, 3 * 4096 + 5, &inf);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL(inf.worker_node, (int)rte_socket_id());
	if (numa_available() >= 0) {
		CU_ASSERT_EQUAL(inf.node, inf.worker_node);
		/* the kernel's word on where the page is */
		CU_ASSERT(get_mempolicy(&node, NULL, 0, b,
					MPOL_F_NODE | MPOL_F_ADDR) == 0);
		CU_ASSERT_EQUAL(node, inf.node);
	} else {
		printf("  no NUMA support in this kernel: mmap'ed buffer\n");
	}
	for (i = 0; i < 4 * 4096; i++)
		if (b[i] != 0)
			break;
	CU_ASSERT_EQUAL(i, 4 * 4096);	/* zeroed, whole pages */
	CU_ASSERT(inf.extmem);
	CU_ASSERT(!inf.dma_mapped);	/* net_ring: nothing to map */
	CU_ASSERT(rte_mem_virt2memseg(b + 4096, NULL) != NULL);
	b2 = numa_buf_alloc(ern_port, 1, 4096, NULL);
	CU_ASSERT_FATAL(b2 != NULL);
	numa_buf_free(b);
	CU_ASSERT(rte_mem_virt2memseg(b + 4096, NULL) == NULL);
	CU_ASSERT(rte_mem_virt2memseg(b2, NULL) != NULL);
	numa_buf_free(b2);
	numa_buf_free(NULL);
	CU_ASSERT(numa_buf_alloc(ern_port, 0, 0, NULL) == NULL);
	numa_placement_str(ern_port, 0, line, sizeof(line));
	CU_ASSERT(strstr(line, "memory node") != NULL);
	CU_ASSERT(strstr(line, "CROSS-NODE") == NULL);
	numa_placement_str(ring_port, 0, line, sizeof(line));
	CU_ASSERT(strstr(line, "not a net_ernic port") != NULL);
	CU_ASSERT(rte_eth_dev_stop(ern_port) == 0);
	CU_ASSERT(rte_vdev_uninit("net_ernic0") == 0);
}

static CU_TestInfo numa_tests[] = {
	{ "placement decision", test_decide },
	{ "placement of a started port", test_port_placement },
	{ "roce_worker_create_socket", test_worker_socket },
	{ "MR buffers with libnuma", test_mr_buffer },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "numa", NULL, NULL, NULL, NULL, numa_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 1;
	return test_run(suites);
}
