/* SPDX-License-Identifier: BSD-3-Clause */
/* Guarded test memory: see guard_mem.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard_mem.h"

int
guard_mem_alloc(struct guard_mem *g, size_t len, size_t align, uint8_t fill)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t span, off;

	memset(g, 0, sizeof(*g));
	if (len == 0 || align == 0 || (align & (align - 1)) != 0 ||
	    align > pg)
		return -EINVAL;
	/* canary, buffer, canary, rounded up to pages */
	span = (2 * GUARD_MEM_CANARY + len + align + pg - 1) & ~(pg - 1);
	g->map_len = span + 2 * pg;
	g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (g->map == MAP_FAILED) {
		g->map = NULL;
		return -ENOMEM;
	}
	g->lo = g->map + pg;
	g->hi = g->lo + span;
	if (mprotect(g->lo, span, PROT_READ | PROT_WRITE) != 0) {
		munmap(g->map, g->map_len);
		memset(g, 0, sizeof(*g));
		return -errno;
	}
	/* the buffer ends as close to the upper guard as the alignment allows */
	off = (span - GUARD_MEM_CANARY - len) & ~(align - 1);
	g->base = g->lo + off;
	g->len = len;
	memset(g->lo, GUARD_MEM_CANARY_BYTE, span);
	memset(g->base, fill, len);
	return 0;
}

bool
guard_mem_is(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

bool
guard_mem_ok(const struct guard_mem *g)
{
	return guard_mem_is(g->lo, (size_t)(g->base - g->lo),
			    GUARD_MEM_CANARY_BYTE) &&
	       guard_mem_is(g->base + g->len,
			    (size_t)(g->hi - (g->base + g->len)),
			    GUARD_MEM_CANARY_BYTE);
}

void
guard_mem_free(struct guard_mem *g)
{
	if (g->map != NULL)
		munmap(g->map, g->map_len);
	memset(g, 0, sizeof(*g));
}
