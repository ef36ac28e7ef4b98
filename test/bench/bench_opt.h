/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef BENCH_OPT_H
#define BENCH_OPT_H

/*
 * Option values of the benchmark tools (test/bench): a whole number or a
 * duration within its range, or a message on stderr that names the tool,
 * the option and the range.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * @p s as an unsigned number (decimal, 0x hex or 0 octal) in
 * [@p min, @p max] into @p out. 0, or -1 after printing
 * "TOOL: bad NAME 'S': expected MIN..MAX".
 */
static inline int
bench_opt_u32(const char *tool, const char *name, const char *s,
	      uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*s == '\0' || *s == '-' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "%s: bad %s '%s': expected %u..%u\n", tool,
			name, s, min, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/*
 * @p s as seconds, more than 0 and at most 60, into @p out. 0, or -1
 * after printing "TOOL: bad --seconds 'S': expected 0..60".
 */
static inline int
bench_opt_seconds(const char *tool, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(v > 0 && v <= 60)) {
		fprintf(stderr, "%s: bad --seconds '%s': expected 0..60\n",
			tool, s);
		return -1;
	}
	*out = v;
	return 0;
}

#endif /* BENCH_OPT_H */
