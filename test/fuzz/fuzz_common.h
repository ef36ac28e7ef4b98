/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

/*
 * Shared pieces of the libFuzzer targets (test/fuzz, doc/guides/testing.rst):
 * the EAL started once per process, and a reader of inputs made of records.
 *
 * A record is a kind byte, a big-endian 16-bit length and that many bytes
 * (fewer when the input ends first): one frame, MAD or command per record,
 * so that one input drives a sequence of them through the same state.
 */

#include <stddef.h>
#include <stdint.h>

/** Start the EAL (no huge pages, no PCI, quiet logs) once; abort on failure. */
void fuzz_eal_init(const char *prog, const char *const *extra, int n_extra);

struct fuzz_rec {
	uint8_t kind;
	const uint8_t *data;
	size_t len;
};

struct fuzz_reader {
	const uint8_t *p;
	size_t left;
};

static inline void
fuzz_reader_init(struct fuzz_reader *r, const uint8_t *data, size_t size)
{
	r->p = data;
	r->left = size;
}

/** Next record of at most @p max bytes: 1 when @p rec was filled, 0 at the end. */
int fuzz_next(struct fuzz_reader *r, struct fuzz_rec *rec, size_t max);

/** Abort with a message: an invariant of the target does not hold. */
void fuzz_fail(const char *what) __attribute__((noreturn));

#endif /* FUZZ_COMMON_H */
