/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fork support: the device copies through the CPU, nothing is pinned for
 * a DMA engine, so a child process cannot corrupt a region the parent
 * registered: fork needs no preparation (IBV_FORK_UNNEEDED).
 *
 * The functions of libibverbs that touch no device object (the *_str()
 * names, rate conversions, the kernel-ABI struct copies, sysfs readers)
 * are not redefined here: libibverbs' own serve the program.
 */
#include <errno.h>
#include <stddef.h>

#include "ev_priv.h"

int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	errno = EOPNOTSUPP;	/* no device memory */
	return NULL;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}
