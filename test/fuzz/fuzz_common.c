/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of the libFuzzer targets: see fuzz_common.h. */
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_log.h>

#include "fuzz_common.h"

void
fuzz_eal_init(const char *prog, const char *const *extra, int n_extra)
{
	static int done;
	char *args[32];
	int n = 0, i;

	if (done)
		return;
	args[n++] = (char *)(uintptr_t)prog;
	args[n++] = (char *)(uintptr_t)"--no-huge";
	args[n++] = (char *)(uintptr_t)"-m";
	args[n++] = (char *)(uintptr_t)"512";
	args[n++] = (char *)(uintptr_t)"--no-pci";
	args[n++] = (char *)(uintptr_t)"--no-shconf";
	args[n++] = (char *)(uintptr_t)"--no-telemetry";
	args[n++] = (char *)(uintptr_t)"--log-level=lib.eal:crit";
	args[n++] = (char *)(uintptr_t)"-l";
	args[n++] = (char *)(uintptr_t)"0";
	for (i = 0; i < n_extra && n < (int)RTE_DIM(args); i++)
		args[n++] = (char *)(uintptr_t)extra[i];
	if (rte_eal_init(n, args) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed\n", prog);
		abort();
	}
	done = 1;
}

int
fuzz_next(struct fuzz_reader *r, struct fuzz_rec *rec, size_t max)
{
	size_t len;

	if (r->left < 3)
		return 0;
	rec->kind = r->p[0];
	len = (size_t)r->p[1] << 8 | r->p[2];
	r->p += 3;
	r->left -= 3;
	if (len > r->left)
		len = r->left;
	if (len > max)
		len = max;
	rec->data = r->p;
	rec->len = len;
	r->p += len;
	r->left -= len;
	return 1;
}

void
fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz invariant broken: %s\n", what);
	abort();
}
