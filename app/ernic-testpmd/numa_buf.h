/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TESTPMD_NUMA_BUF_H
#define TESTPMD_NUMA_BUF_H

/*
 * Buffers that ernic-testpmd registers as MRs (benchmarks, the prompt's
 * per-port buffer): allocated with libnuma on the NUMA node of the
 * memory of the QP's worker (rte_pmd_ernic_worker_placement()), zeroed
 * (so that the pages are faulted in on that node), and registered with
 * DPDK as external memory (rte_extmem_register, with the pages' IOVAs
 * when EAL runs in IOVA-as-PA mode) so that zero-copy TX finds their
 * IOVA; when the underlying port is a device on a physical bus they are
 * also DMA-mapped for it (rte_dev_dma_map).
 */

#include <stddef.h>
#include <stdint.h>

/** Where the last numa_buf_alloc() put its buffer. */
struct numa_buf_info {
	int node;		/**< NUMA node asked for, -1: none (no libnuma) */
	int worker_node;	/**< node of the worker's memory */
	int lcore_node;		/**< node of the worker's lcore, -1: unknown */
	int dev_node;		/**< node of the port's device, -1: unknown */
	int extmem;		/**< registered as DPDK external memory */
	int dma_mapped;		/**< DMA-mapped for the underlying device */
};

/** MemAvailable of /proc/meminfo in bytes; 0 when it cannot be read. */
uint64_t numa_buf_mem_available(void);

/**
 * @p len bytes (rounded up to pages), zeroed, on the node of worker
 * @p worker of net_ernic port @p port_id (environment ERNIC_MR_NODE=wrong:
 * on another node with memory, if any; ERNIC_MR_NODE=<n>: node n). NULL with errno set on failure.
 * It zeroes every page: a caller checks @p len against
 * numa_buf_mem_available() first, or the kernel's OOM killer answers.
 * @p info (may be NULL) tells where it went.
 */
void *numa_buf_alloc(uint16_t port_id, uint16_t worker, size_t len,
		     struct numa_buf_info *info);

/** Unregister and free a buffer of numa_buf_alloc(); NULL is a no-op. */
void numa_buf_free(void *addr);

/**
 * One line on where worker @p worker of @p port_id lives, for the prompt:
 * "NUMA: device node D, worker W memory node M, lcore L node N" and
 * ", CROSS-NODE" when the lcore and the device are on different nodes.
 */
void numa_placement_str(uint16_t port_id, uint16_t worker, char *buf,
			size_t len);

#endif /* TESTPMD_NUMA_BUF_H */
