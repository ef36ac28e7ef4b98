/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef GUARD_MEM_H
#define GUARD_MEM_H

/*
 * Guarded test memory: a buffer between two PROT_NONE guard pages, every
 * other byte of its pages a canary. A stray access that leaves the pages
 * faults at once; one that stays in them breaks a canary, which
 * guard_mem_ok() finds. Used around every MR of the hostile-input suite
 * and the fuzz targets to prove that memory outside a region is untouched.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Canary bytes at least, before and after the buffer. */
#define GUARD_MEM_CANARY 64
#define GUARD_MEM_CANARY_BYTE 0xc5

struct guard_mem {
	uint8_t *map;		/**< the mapping: guard, pages, guard */
	size_t map_len;
	uint8_t *lo, *hi;	/**< the read/write pages [lo, hi) */
	uint8_t *base;		/**< the buffer, @c len bytes */
	size_t len;
};

/**
 * Map a @p len byte buffer (> 0) filled with @p fill, @p align aligned
 * (a power of two, at most 4096), between canaries and guard pages.
 * Returns 0 or -errno.
 */
int guard_mem_alloc(struct guard_mem *g, size_t len, size_t align,
		    uint8_t fill);

/** True when every byte of the pages outside the buffer is still a canary. */
bool guard_mem_ok(const struct guard_mem *g);

/** True when the @p len bytes from @p p all equal @p v. */
bool guard_mem_is(const uint8_t *p, size_t len, uint8_t v);

/** Unmap (no-op on a zeroed or already freed struct). */
void guard_mem_free(struct guard_mem *g);

#endif /* GUARD_MEM_H */
