/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains (IBTA 10.2.3): a handle grouping QPs, SRQs, MRs and
 * MWs that may work together. The PD itself holds nothing but a count of
 * the objects using it, so it cannot go away under them.
 */

#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_priv.h"

struct roce_pd *
roce_alloc_pd(struct roce_device *dev)
{
	struct roce_pd *pd;

	if (dev == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	pd = rte_zmalloc_socket("roce_pd", sizeof(*pd), RTE_CACHE_LINE_SIZE,
				dev->cfg.socket_id);
	if (pd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->nb_pd >= dev->attr.max_pd) {
		rte_spinlock_unlock(&dev->ctl_lock);
		rte_free(pd);
		ROCE_LOG(ERR, verbs, "device %s: PD limit %u reached",
			 dev->name, dev->attr.max_pd);
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->nb_pd++;
	pd->handle = dev->pd_handle_next++;
	rte_spinlock_unlock(&dev->ctl_lock);
	pd->dev = dev;
	return pd;
}

int
roce_dealloc_pd(struct roce_pd *pd)
{
	struct roce_device *dev;

	if (pd == NULL)
		return -EINVAL;
	dev = pd->dev;
	if (__atomic_load_n(&pd->refcnt, __ATOMIC_ACQUIRE) != 0) {
		ROCE_LOG(ERR, verbs, "PD %u busy: %u users", pd->handle,
			 pd->refcnt);
		return -EBUSY;
	}
	rte_spinlock_lock(&dev->ctl_lock);
	dev->nb_pd--;
	rte_spinlock_unlock(&dev->ctl_lock);
	rte_free(pd);
	return 0;
}

struct roce_device *
roce_pd_device(const struct roce_pd *pd)
{
	return pd != NULL ? pd->dev : NULL;
}
