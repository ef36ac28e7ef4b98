/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

/**
 * @file
 * Packet Sequence Number arithmetic (IBTA vol. 1, 9.7.1 / 9.7.5.1.3).
 *
 * A PSN is a 24-bit counter that wraps from 0xffffff to 0. Every function
 * here works modulo 2^24 and ignores bits 24..31 of its inputs, so callers
 * may pass unmasked sums. "a before b" is modular: b is reached from a by
 * moving forward less than half the space (2^23). The signed distance
 * roce_psn_diff(a, b) lies in (-2^23, 2^23]; at exactly half the space the
 * distance is +2^23 both ways, so each PSN is "after" the other and
 * neither is "before" (the IBTA windows never span more than 2^23, so a
 * well-behaved window never meets that point).
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_PSN_BITS	24			/**< width of a PSN */
#define ROCE_PSN_MASK	0xffffffu		/**< 2^24 - 1 */
#define ROCE_PSN_SPACE	(ROCE_PSN_MASK + 1)	/**< 2^24 PSNs */
#define ROCE_PSN_HALF	(ROCE_PSN_SPACE >> 1)	/**< 2^23, half the space */

/**
 * Reduce @p psn to 24 bits.
 *
 * @param psn any 32-bit value
 * @return psn mod 2^24
 */
static inline uint32_t
roce_psn_mask(uint32_t psn)
{
	return psn & ROCE_PSN_MASK;
}

/**
 * Add @p n to @p psn modulo 2^24.
 *
 * @param psn a PSN
 * @param n increment; a negative step may be passed as (uint32_t)-k, since
 *   2^32 is a multiple of 2^24
 * @return (psn + n) mod 2^24
 */
static inline uint32_t
roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ROCE_PSN_MASK;
}

/**
 * Successor of @p psn: 0xffffff is followed by 0.
 *
 * @param psn a PSN
 * @return (psn + 1) mod 2^24
 */
static inline uint32_t
roce_psn_next(uint32_t psn)
{
	return roce_psn_add(psn, 1);
}

/**
 * Predecessor of @p psn: 0 is preceded by 0xffffff.
 *
 * @param psn a PSN
 * @return (psn - 1) mod 2^24
 */
static inline uint32_t
roce_psn_prev(uint32_t psn)
{
	return roce_psn_add(psn, ROCE_PSN_MASK);
}

/**
 * Forward (unsigned) distance from @p from to @p to.
 *
 * @param to a PSN
 * @param from a PSN
 * @return the k in [0, 2^24) with roce_psn_add(from, k) == to
 */
static inline uint32_t
roce_psn_offset(uint32_t to, uint32_t from)
{
	return (to - from) & ROCE_PSN_MASK;
}

/**
 * Signed distance a - b in modular 24-bit space.
 *
 * @param a a PSN
 * @param b a PSN
 * @return d in (-2^23, 2^23] with roce_psn_add(b, d) == a: positive when a
 *   is after b, negative when a is before b
 */
static inline int32_t
roce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = roce_psn_offset(a, b);

	return d > ROCE_PSN_HALF ? (int32_t)d - (int32_t)ROCE_PSN_SPACE :
				   (int32_t)d;
}

/**
 * Three-way modular comparison.
 *
 * @param a a PSN
 * @param b a PSN
 * @return < 0 when a is before b, 0 when equal, > 0 when a is after b (the
 *   sign of roce_psn_diff(a, b))
 */
static inline int
roce_psn_cmp(uint32_t a, uint32_t b)
{
	int32_t d = roce_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

/**
 * Whether @p a comes strictly before @p b (less than 2^23 behind it).
 *
 * @param a a PSN
 * @param b a PSN
 * @return true when roce_psn_diff(a, b) < 0
 */
static inline bool
roce_psn_before(uint32_t a, uint32_t b)
{
	return roce_psn_diff(a, b) < 0;
}

/**
 * Whether @p a comes strictly after @p b (at most 2^23 ahead of it).
 *
 * @param a a PSN
 * @param b a PSN
 * @return true when roce_psn_diff(a, b) > 0
 */
static inline bool
roce_psn_after(uint32_t a, uint32_t b)
{
	return roce_psn_diff(a, b) > 0;
}

/**
 * Whether @p psn lies in the window of @p size PSNs that starts at
 * @p start, i.e. in [start, start + size) modulo 2^24. This is the IBTA
 * "PSN is within the window" test (e.g. a responder's duplicate region is
 * roce_psn_in_window(psn, epsn - 2^23, 2^23)).
 *
 * @param psn the PSN to test
 * @param start first PSN of the window
 * @param size number of PSNs in the window: 0 is empty, >= 2^24 is all
 * @return true when psn is in the window
 */
static inline bool
roce_psn_in_window(uint32_t psn, uint32_t start, uint32_t size)
{
	return roce_psn_offset(psn, start) < size;
}

#ifdef __cplusplus
}
#endif

#endif /* ROCE_PSN_H */
