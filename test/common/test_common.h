/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_COMMON_H
#define TEST_COMMON_H

/*
 * Shared scaffolding of the CUnit suites: EAL start-up without hugepages or
 * devices, an mbuf pool, the runner, and the loader of ../shared/vectors.
 */

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>
#include <rte_mbuf.h>

/** One frame of a vectors file: "NAME HEX" per line. */
struct test_vector {
	char name[64];
	uint8_t *data;
	size_t len;
};

/** Start EAL without shared config, no huge pages, no PCI; extra args are appended. */
int test_eal_init(int argc, char **argv);

/**
 * Start EAL on huge pages with IOVA as PA (root and free huge pages
 * needed), no shared config, no PCI, lcore 0; the hugetlbfs files are
 * unlinked once mapped (not --in-memory, whose memfd huge pages valgrind
 * cannot map). -1, with the reason printed, where EAL fails or chooses
 * IOVA as VA.
 */
int test_eal_init_pa(const char *prog);

/** A process-wide pktmbuf pool (data room 10 KB), created on first use. */
struct rte_mempool *test_mbuf_pool(void);

/**
 * Load every frame of @p file (relative to $SOFTERNIC_VECTORS, default
 * ../shared/vectors). Returns the count (> 0) or -errno; frees nothing:
 * the vectors live for the whole test process.
 */
int test_load_vectors(const char *file, struct test_vector **out);

/** Find a loaded vector by name, NULL when absent. */
const struct test_vector *test_find_vector(const struct test_vector *v, int n,
					   const char *name);

/** Copy @p len bytes into a fresh mbuf, chained in @p seg_len pieces (0: one segment). */
struct rte_mbuf *test_mbuf_from(const void *data, size_t len, size_t seg_len);

/** @p a followed by @p b, or NULL (both freed) when either is missing. */
struct rte_mbuf *test_mbuf_join(struct rte_mbuf *a, struct rte_mbuf *b);

/** Two segments: [0, split) and [split, len) of @p data. */
struct rte_mbuf *test_mbuf_split(const void *data, size_t len, size_t split);

/** Three segments: [0, a), [a, b) (empty when a == b) and [b, len). */
struct rte_mbuf *test_mbuf_split3(const void *data, size_t len, size_t a,
				  size_t b);

/**
 * Configure @p port with one RX and one TX queue of 1024 descriptors (RX
 * from test_mbuf_pool()) and start it: what an application does with a
 * net_ernic or underlying port. Returns 0 or the failing ethdev call's
 * negative errno.
 */
int test_port_start(uint16_t port);

/**
 * Register @p suites, run them with the basic interface and return the
 * process exit code (0 only when every assertion passed).
 */
int test_run(CU_SuiteInfo *suites);

#endif /* TEST_COMMON_H */
