/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 24-bit PSN arithmetic: wrap-around at 2^24, signed distance in
 * (-2^23, 2^23], modular ordering and windows straddling the wrap, then
 * property checks with a seeded PRNG and exhaustive sweeps of one operand.
 */
#include <stdint.h>

#include "roce_psn.h"
#include "test_common.h"

#define HALF	((int32_t)ROCE_PSN_HALF)

static uint64_t prng_state = 0x5eed5eed2024ull;

/* splitmix64: deterministic, seeded above. */
static uint64_t
prng(void)
{
	uint64_t z = (prng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
rand_psn(void)
{
	return (uint32_t)prng() & ROCE_PSN_MASK;
}

static void
test_constants(void)
{
	CU_ASSERT_EQUAL(ROCE_PSN_BITS, 24);
	CU_ASSERT_EQUAL(ROCE_PSN_MASK, 0xffffffu);
	CU_ASSERT_EQUAL(ROCE_PSN_SPACE, 1u << 24);
	CU_ASSERT_EQUAL(ROCE_PSN_HALF, 1u << 23);
}

static void
test_wrap(void)
{
	CU_ASSERT_EQUAL(roce_psn_mask(0x1234567u), 0x234567u);
	CU_ASSERT_EQUAL(roce_psn_mask(0xffffffffu), 0xffffffu);
	CU_ASSERT_EQUAL(roce_psn_add(0xffffff, 1), 0);
	CU_ASSERT_EQUAL(roce_psn_add(0xfffffe, 5), 3);
	CU_ASSERT_EQUAL(roce_psn_add(0, (uint32_t)-1), 0xffffff);
	CU_ASSERT_EQUAL(roce_psn_add(2, (uint32_t)-5), 0xfffffd);
	CU_ASSERT_EQUAL(roce_psn_add(0x123456, 1u << 24), 0x123456);
	CU_ASSERT_EQUAL(roce_psn_add(0x7fffff, 0x800000), 0xffffff);
	CU_ASSERT_EQUAL(roce_psn_add(0x800000, 0x800000), 0);
	CU_ASSERT_EQUAL(roce_psn_next(0xffffff), 0);
	CU_ASSERT_EQUAL(roce_psn_next(0), 1);
	CU_ASSERT_EQUAL(roce_psn_next(0x7fffff), 0x800000);
	CU_ASSERT_EQUAL(roce_psn_prev(0), 0xffffff);
	CU_ASSERT_EQUAL(roce_psn_prev(0x800000), 0x7fffff);
	/* High bits of the inputs are ignored. */
	CU_ASSERT_EQUAL(roce_psn_next(0xabffffffu), 0);
	CU_ASSERT_EQUAL(roce_psn_add(0xff000001u, 0xff000001u), 2);
}

static void
test_distance(void)
{
	CU_ASSERT_EQUAL(roce_psn_diff(5, 5), 0);
	CU_ASSERT_EQUAL(roce_psn_diff(0, 0xffffff), 1);
	CU_ASSERT_EQUAL(roce_psn_diff(0xffffff, 0), -1);
	CU_ASSERT_EQUAL(roce_psn_diff(3, 0xfffffd), 6);
	CU_ASSERT_EQUAL(roce_psn_diff(0xfffffd, 3), -6);
	/* The edges of (-2^23, 2^23]. */
	CU_ASSERT_EQUAL(roce_psn_diff(0x800000, 0), HALF);
	CU_ASSERT_EQUAL(roce_psn_diff(0, 0x800000), HALF);
	CU_ASSERT_EQUAL(roce_psn_diff(0x7fffff, 0), HALF - 1);
	CU_ASSERT_EQUAL(roce_psn_diff(0x800001, 0), -(HALF - 1));
	CU_ASSERT_EQUAL(roce_psn_diff(0x10, 0x800010), HALF);
	CU_ASSERT_EQUAL(roce_psn_diff(0x7ffff0, 0xfffff1), HALF - 1);
	CU_ASSERT_EQUAL(roce_psn_diff(0x7ffff2, 0xfffff1), -(HALF - 1));
	CU_ASSERT_EQUAL(roce_psn_offset(0, 0xffffff), 1);
	CU_ASSERT_EQUAL(roce_psn_offset(0xffffff, 0), 0xffffff);
	CU_ASSERT_EQUAL(roce_psn_offset(7, 7), 0);
	CU_ASSERT_EQUAL(roce_psn_diff(0x01000005u, 0xff000003u), 2);
}

static void
test_compare(void)
{
	CU_ASSERT(roce_psn_before(0xfffff0, 0x10));
	CU_ASSERT(roce_psn_after(0x10, 0xfffff0));
	CU_ASSERT(!roce_psn_before(0x10, 0xfffff0));
	CU_ASSERT(!roce_psn_after(0xfffff0, 0x10));
	CU_ASSERT(roce_psn_before(0xffffff, 0));
	CU_ASSERT(roce_psn_after(0, 0xffffff));
	CU_ASSERT(roce_psn_before(1, 2));
	CU_ASSERT(!roce_psn_before(2, 2));
	CU_ASSERT(!roce_psn_after(2, 2));
	CU_ASSERT_EQUAL(roce_psn_cmp(2, 2), 0);
	CU_ASSERT_EQUAL(roce_psn_cmp(0xffffff, 0), -1);
	CU_ASSERT_EQUAL(roce_psn_cmp(0, 0xffffff), 1);
	CU_ASSERT_EQUAL(roce_psn_cmp(0x7fffff, 0), 1);
	CU_ASSERT_EQUAL(roce_psn_cmp(0x800001, 0), -1);
	/* Exactly half apart: each is after the other, neither before. */
	CU_ASSERT(roce_psn_after(0x800000, 0) && roce_psn_after(0, 0x800000));
	CU_ASSERT(!roce_psn_before(0x800000, 0));
	CU_ASSERT(!roce_psn_before(0, 0x800000));
}

static void
test_window(void)
{
	/* 32 PSNs straddling the wrap: 0xfffff0 .. 0xf. */
	CU_ASSERT(roce_psn_in_window(0xfffff0, 0xfffff0, 32));
	CU_ASSERT(roce_psn_in_window(0xffffff, 0xfffff0, 32));
	CU_ASSERT(roce_psn_in_window(0, 0xfffff0, 32));
	CU_ASSERT(roce_psn_in_window(0xf, 0xfffff0, 32));
	CU_ASSERT(!roce_psn_in_window(0x10, 0xfffff0, 32));
	CU_ASSERT(!roce_psn_in_window(0xffffef, 0xfffff0, 32));
	CU_ASSERT(!roce_psn_in_window(0x800000, 0xfffff0, 32));
	/* Empty, single and full windows. */
	CU_ASSERT(!roce_psn_in_window(5, 5, 0));
	CU_ASSERT(roce_psn_in_window(5, 5, 1));
	CU_ASSERT(!roce_psn_in_window(6, 5, 1));
	CU_ASSERT(!roce_psn_in_window(4, 5, 1));
	CU_ASSERT(roce_psn_in_window(4, 5, ROCE_PSN_SPACE));
	CU_ASSERT(!roce_psn_in_window(4, 5, ROCE_PSN_MASK));
	CU_ASSERT(roce_psn_in_window(3, 5, ROCE_PSN_MASK));
	/* Responder duplicate region: the 2^23 PSNs before ePSN. */
	CU_ASSERT(roce_psn_in_window(0xffffff, 0 - ROCE_PSN_HALF, ROCE_PSN_HALF));
	CU_ASSERT(roce_psn_in_window(0x800000, 0 - ROCE_PSN_HALF, ROCE_PSN_HALF));
	CU_ASSERT(!roce_psn_in_window(0, 0 - ROCE_PSN_HALF, ROCE_PSN_HALF));
	CU_ASSERT(!roce_psn_in_window(0x7fffff, 0 - ROCE_PSN_HALF,
				      ROCE_PSN_HALF));
	/* Unmasked inputs. */
	CU_ASSERT(roce_psn_in_window(0x05000002u, 0xfffffff0u, 32));
}

/* Random operands: algebraic relations that must hold everywhere. */
static void
test_properties_random(void)
{
	unsigned long bad = 0;
	int i;

	for (i = 0; i < 2000000; i++) {
		uint32_t a = rand_psn(), b = rand_psn();
		uint32_t junk = (uint32_t)prng() & 0xff000000u;
		int32_t d = (int32_t)(prng() % ROCE_PSN_SPACE) - HALF + 1;
		uint32_t n = (uint32_t)(prng() % (ROCE_PSN_SPACE + 2));
		int32_t dab = roce_psn_diff(a, b), dba = roce_psn_diff(b, a);

		/* d is in (-2^23, 2^23]: add then diff gives it back. */
		bad += roce_psn_diff(roce_psn_add(a, (uint32_t)d), a) != d;
		bad += roce_psn_add(b, (uint32_t)dab) != a;
		bad += dab <= -HALF || dab > HALF;
		bad += dab != HALF ? dab != -dba : dba != HALF;
		bad += roce_psn_cmp(a, b) != (dab > 0) - (dab < 0);
		bad += roce_psn_before(a, b) && roce_psn_before(b, a);
		bad += (a == b) != (roce_psn_cmp(a, b) == 0);
		bad += roce_psn_before(a, b) != roce_psn_after(b, a) &&
		       dab != HALF;
		bad += roce_psn_offset(a, b) + roce_psn_offset(b, a) !=
		       (a == b ? 0 : ROCE_PSN_SPACE);
		bad += roce_psn_diff(a | junk, b) != dab;
		bad += roce_psn_next(a) != roce_psn_add(a, 1);
		bad += roce_psn_prev(roce_psn_next(a)) != a;
		bad += roce_psn_in_window(a, b, n) !=
		       (roce_psn_offset(a, b) < n);
		bad += roce_psn_in_window(roce_psn_add(b, n & ROCE_PSN_MASK),
					  b, n) != (n > ROCE_PSN_MASK);
		bad += n > 0 && n <= ROCE_PSN_SPACE &&
		       !roce_psn_in_window(roce_psn_add(b, n - 1), b, n);
		/* Window of 2^23 ahead of b == "not before b". */
		bad += roce_psn_in_window(a, b, ROCE_PSN_HALF) !=
		       (dab >= 0 && dab < HALF);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Every PSN against a few fixed ones, including both sides of the wrap. */
static void
test_exhaustive_sweep(void)
{
	const uint32_t fixed[] = {
		0, 1, 0x7fffff, 0x800000, 0x800001, 0xfffffe, 0xffffff,
		rand_psn(),
	};
	unsigned long bad = 0;
	unsigned int k;
	uint32_t a;

	for (k = 0; k < RTE_DIM(fixed); k++) {
		uint32_t b = fixed[k];

		for (a = 0; a < ROCE_PSN_SPACE; a++) {
			int32_t d = roce_psn_diff(a, b);
			uint32_t fwd = (a + ROCE_PSN_SPACE - b) % ROCE_PSN_SPACE;
			int32_t want = fwd > ROCE_PSN_HALF ?
				(int32_t)fwd - (int32_t)ROCE_PSN_SPACE :
				(int32_t)fwd;

			bad += d != want;
			bad += roce_psn_offset(a, b) != fwd;
			bad += roce_psn_add(b, (uint32_t)d) != a;
			bad += roce_psn_before(a, b) != (want < 0);
			bad += roce_psn_in_window(a, b, 1000) != (fwd < 1000);
			bad += roce_psn_next(a) != (a + 1) % ROCE_PSN_SPACE;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* A sliding window walked across the wrap, PSN by PSN. */
static void
test_window_walk(void)
{
	uint32_t start = 0xffff00, psn, i, bad = 0;

	for (i = 0; i < 0x300; i++) {
		uint32_t end = roce_psn_add(start, 64);

		for (psn = 0; psn < 96; psn++) {
			uint32_t p = roce_psn_add(start, psn - 16);

			bad += roce_psn_in_window(p, start, 64) !=
			       (psn >= 16 && psn < 80);
		}
		bad += roce_psn_diff(end, start) != 64;
		bad += !roce_psn_before(start, end);
		start = roce_psn_next(start);
	}
	CU_ASSERT_EQUAL(start, 0x200);
	CU_ASSERT_EQUAL(bad, 0);
}

static CU_TestInfo psn_tests[] = {
	{ "constants", test_constants },
	{ "wrap at 2^24", test_wrap },
	{ "signed distance", test_distance },
	{ "modular compare", test_compare },
	{ "window straddling the wrap", test_window },
	{ "random properties", test_properties_random },
	{ "exhaustive sweeps", test_exhaustive_sweep },
	{ "window walk across the wrap", test_window_walk },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "psn", NULL, NULL, NULL, NULL, psn_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
