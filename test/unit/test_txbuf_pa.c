/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy IOVA lookups with IOVA as PA (roce_txbuf.h): huge pages that
 * are not IOVA-contiguous, as a NIC without an IOMMU sees them. Every
 * other suite runs --no-huge (IOVA as VA, where the lookup is the address
 * itself); this one needs huge pages and physical addresses, so it is
 * started by txbuf_pa.sh, which reserves a few pages for it, and exits 77
 * (skipped) where EAL cannot give it IOVA as PA.
 *
 * The expected IOVA of a range is computed from
 * rte_mem_virt2iova() of its first and last bytes: a range is
 * zero-copy-able exactly when those are len - 1 apart.
 */
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "roce_txbuf.h"
#include "test_common.h"

#define SPAN (12u << 20)	/* six 2 MiB pages at least */

static uint8_t *span;
static const struct rte_memseg_list *span_msl;
static unsigned int crossings_contig, crossings_split;

static rte_iova_t
want_iova(const uint8_t *addr, uint32_t len)
{
	rte_iova_t first = rte_mem_virt2iova(addr);
	rte_iova_t last = rte_mem_virt2iova(addr + len - 1);

	if (first == RTE_BAD_IOVA || last == RTE_BAD_IOVA ||
	    last - first != len - 1)
		return RTE_BAD_IOVA;
	return first;
}

/* Both ways of calling the lookup: with the list cached and without. */
static void
check_range(const uint8_t *addr, uint32_t len)
{
	rte_iova_t want = want_iova(addr, len);

	CU_ASSERT_EQUAL(roce_txbuf_iova(addr, len, NULL), want);
	CU_ASSERT_EQUAL(roce_txbuf_iova(addr, len, span_msl), want);
}

/*
 * At every page boundary inside the span: a packet ending just before
 * it, one starting on it, one crossing it by a few bytes, and one a whole
 * 4 KB frame across.
 */
static void
test_pa_page_boundaries(void)
{
	uintptr_t pg, q, end = (uintptr_t)span + SPAN;
	unsigned int n = 0;

	CU_ASSERT_FATAL(span_msl != NULL);
	pg = span_msl->page_sz;
	for (q = RTE_ALIGN_CEIL((uintptr_t)span + 1, pg); q + 4096 <= end;
	     q += pg, n++) {
		check_range((const uint8_t *)(q - 4096), 4096);
		check_range((const uint8_t *)q, 4096);
		check_range((const uint8_t *)q, 1);
		check_range((const uint8_t *)(q - 1), 2);
		check_range((const uint8_t *)(q - 100), 4096);
		check_range((const uint8_t *)(q - 4095), 4096);
		if (want_iova((const uint8_t *)(q - 1), 2) != RTE_BAD_IOVA)
			crossings_contig++;
		else
			crossings_split++;
	}
	CU_ASSERT(n >= 4);
	printf("\n  %u page boundaries: %u IOVA-contiguous, %u not\n", n,
	       crossings_contig, crossings_split);
}

/* Ranges inside one page, at every offset class, in every page. */
static void
test_pa_inside_pages(void)
{
	static const uint32_t lens[] = { 1, 64, 1024, 4096, 9000, 65536 };
	uint32_t i, off;

	for (off = 0; off + 65536 + 4096 <= SPAN; off += 1u << 19)
		for (i = 0; i < RTE_DIM(lens); i++)
			check_range(span + off + 33, lens[i]);
}

/* What has no IOVA: memory that is not DPDK's, an empty range. */
static void
test_pa_refused(void)
{
	static uint8_t not_dpdk[8192];

	CU_ASSERT_EQUAL(roce_txbuf_iova(not_dpdk, 64, NULL), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(not_dpdk, 64, span_msl),
			RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(span, 0, NULL), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(span, 0, span_msl), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_range_msl(not_dpdk), NULL);
}

/*
 * The registration's whole-range IOVA: cached only when every page of
 * the range follows the one before in IOVA space.
 */
static void
test_pa_range(void)
{
	uintptr_t pg = span_msl->page_sz, q;
	uintptr_t end = (uintptr_t)span + SPAN;
	rte_iova_t want = rte_mem_virt2iova(span);

	for (q = RTE_ALIGN_CEIL((uintptr_t)span + 1, pg); q < end; q += pg)
		if (rte_mem_virt2iova((void *)q) != want + (q - (uintptr_t)span))
			want = RTE_BAD_IOVA;
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(span, SPAN), want);
	/* one page's worth from a page start is always contiguous */
	q = RTE_ALIGN_CEIL((uintptr_t)span, pg);
	CU_ASSERT_EQUAL(roce_txbuf_range_iova((void *)q, pg),
			rte_mem_virt2iova((void *)q));
}

/*
 * @p n 4 KiB pages of external memory registered with @p iovas
 * (rte_extmem_register()), their memseg list in *msl; free with
 * ext_pages_free().
 */
static uint8_t *
ext_pages(unsigned int n, rte_iova_t *iovas,
	  const struct rte_memseg_list **msl)
{
	uint8_t *m = aligned_alloc(4096, n * 4096);

	*msl = NULL;
	if (m == NULL)
		return NULL;
	if (rte_extmem_register(m, n * 4096, iovas, n, 4096) != 0) {
		free(m);
		return NULL;
	}
	*msl = roce_txbuf_range_msl(m);
	return m;
}

static void
ext_pages_free(uint8_t *m, unsigned int n)
{
	CU_ASSERT_EQUAL(rte_extmem_unregister(m, n * 4096), 0);
	free(m);
}

/*
 * Pages whose IOVAs the test chooses (rte_extmem_register()): 4 KiB pages
 * 0-1 and 2-3 IOVA-contiguous pairs, the pairs apart, so that both
 * outcomes of a crossing are seen whatever the huge pages above were.
 */
static void
test_pa_chosen_iovas(void)
{
	const size_t pg = 4096;
	const rte_iova_t a = 0x10000000, b = 0x7000000;
	rte_iova_t iovas[4] = { a, a + pg, b, b + pg };
	const struct rte_memseg_list *msl;
	uint8_t *m;

	m = ext_pages(4, iovas, &msl);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT(msl != NULL);
	/* inside a page */
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 10, 100, NULL), a + 10);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 2 * pg + 5, pg - 5, msl), b + 5);
	/* across 0-1: contiguous; across 1-2: not; across 2-3: contiguous */
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + pg - 100, 4096, NULL),
			a + pg - 100);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + pg - 100, 4096, msl),
			a + pg - 100);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 2 * pg - 1, 2, msl), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 2 * pg - 1, 1, msl),
			a + 2 * pg - 1);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 2 * pg, 1, msl), b);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 3 * pg - 1, 2, NULL),
			b + pg - 1);
	/* three pages, a split in the middle; leaving the list's end */
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 10, 3 * pg, msl), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 3 * pg + 10, pg, msl),
			RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_iova(m + 3 * pg + 10, pg - 10, msl),
			b + pg + 10);
	/* a registration: cached only over a contiguous pair */
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(m, 2 * pg), a);
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(m + pg, 2 * pg), RTE_BAD_IOVA);
	CU_ASSERT_EQUAL(roce_txbuf_range_iova(m + 2 * pg + 1, 2 * pg - 1),
			b + 1);
	ext_pages_free(m, 4);
}

/*
 * The worker's page cache (roce_txbuf_iova_cached()): every 4 KB frame
 * of the huge-page span through one cache gives the lookup's answer, the
 * cache then holding the page of a frame that lies in one (and left as it
 * was by one that crosses).
 */
static void
test_pa_cached_span(void)
{
	struct roce_txbuf_iova_cache c = { 0 };
	const int tag = 0;
	uint32_t off, hits = 0;

	for (off = 0; off + 4096 <= SPAN; off += 4096 - 64) {
		const uint8_t *p = span + off;
		struct roce_txbuf_iova_cache was = c;
		rte_iova_t want = want_iova(p, 4096);
		uintptr_t a = (uintptr_t)p;

		if (was.hi > a && a >= was.lo && a + 4096 <= was.hi)
			hits++;
		CU_ASSERT_EQUAL(roce_txbuf_iova_cached(p, 4096, span_msl, &c,
						       &tag, 7), want);
		if (rte_mem_virt2memseg(p, span_msl) ==
		    rte_mem_virt2memseg(p + 4095, span_msl)) {
			CU_ASSERT(c.lo <= a && a + 4096 <= c.hi &&
				  c.iova + (a - c.lo) == want);
		} else {
			CU_ASSERT(was.lo == c.lo && was.hi == c.hi &&
				  was.iova == c.iova);
		}
	}
	/* most frames were answered from the page of the one before */
	CU_ASSERT(hits > SPAN / 4096 / 2);
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(span, 0, span_msl, &c, &tag, 7),
			RTE_BAD_IOVA);
}

/*
 * The cache's key: the same address range registered again with other
 * IOVAs is looked up anew when the tag or the state differs, and answered
 * from the cache (the old IOVA) only while both are the ones it was
 * filled for: a registration's state word is what keeps it honest.
 */
static void
test_pa_cached_rereg(void)
{
	const size_t pg = 4096;
	const rte_iova_t a = 0x10000000, b = 0x7000000;
	rte_iova_t first[2] = { a, a + pg }, second[2] = { b, b + 3 * pg };
	struct roce_txbuf_iova_cache c = { 0 }, c2;
	int tag1 = 0, tag2 = 0;
	const struct rte_memseg_list *msl;
	uint8_t *m;

	m = ext_pages(2, first, &msl);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + 100, 200, msl, &c, &tag1,
					       1), a + 100);
	CU_ASSERT_EQUAL(c.lo, (uintptr_t)m);
	CU_ASSERT_EQUAL(c.hi, (uintptr_t)m + pg);
	/* from the cache, and the next page from the list */
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + 1000, pg - 1000, msl, &c,
					       &tag1, 1), a + 1000);
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg + 8, 64, msl, &c, &tag1,
					       1), a + pg + 8);
	CU_ASSERT_EQUAL(c.lo, (uintptr_t)m + pg);
	/* a frame across both pages is never cached, even when contiguous */
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg - 8, 64, msl, &c, &tag1,
					       1), a + pg - 8);
	CU_ASSERT_EQUAL(c.lo, (uintptr_t)m + pg);
	/* the same memory registered again, at other IOVAs */
	CU_ASSERT_EQUAL(rte_extmem_unregister(m, 2 * pg), 0);
	CU_ASSERT_FATAL(rte_extmem_register(m, 2 * pg, second, 2, pg) == 0);
	msl = roce_txbuf_range_msl(m);
	/* a new state, or another registration: looked up */
	c2 = c;
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg + 8, 64, msl, &c2,
					       &tag1, 2), b + 3 * pg + 8);
	c2 = c;
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg + 8, 64, msl, &c2,
					       &tag2, 1), b + 3 * pg + 8);
	/* the same registration and state: the cached page (stale now) */
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg + 8, 64, msl, &c, &tag1,
					       1), a + pg + 8);
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + 8, 64, msl, &c, &tag2, 2),
			b + 8);
	CU_ASSERT_EQUAL(roce_txbuf_iova_cached(m + pg - 8, 64, msl, &c, &tag2,
					       2), RTE_BAD_IOVA);
	ext_pages_free(m, 2);
}

static CU_TestInfo pa_tests[] = {
	{ "chosen IOVAs: contiguous and split pages", test_pa_chosen_iovas },
	{ "page boundaries", test_pa_page_boundaries },
	{ "ranges inside a page", test_pa_inside_pages },
	{ "no IOVA: foreign memory, empty range", test_pa_refused },
	{ "registration's whole range", test_pa_range },
	{ "worker's page cache over the span", test_pa_cached_span },
	{ "worker's page cache: tag and state", test_pa_cached_rereg },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "txbuf_pa", NULL, NULL, NULL, NULL, pa_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (test_eal_init_pa(argv[0]) != 0) {
		printf("skipped\n");
		return 77;
	}
	span = rte_malloc("txbuf_pa", SPAN, 0);
	if (span == NULL) {
		printf("skipped: %u MiB of huge pages not free\n", SPAN >> 20);
		rte_eal_cleanup();
		return 77;
	}
	span_msl = roce_txbuf_range_msl(span);
	return test_run(suites);	/* its EAL clean-up frees the span */
}
