/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains, memory regions and memory windows.
 *
 * A region is registered straight into the device's key table
 * (roce_reg_mr_iova(): the table is versioned, workers read it without
 * locks); deregistration goes through the net_ernic registration service
 * (rte_pmd_ernic_dereg_mr()), which returns once no worker and no
 * zero-copy frame can touch the memory any more, so that the program may
 * free it as soon as ibv_dereg_mr() returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ev_priv.h"
#include "rte_pmd_ernic.h"

/* ------------------------------------------------------------------ */
/* Protection domains                                                 */
/* ------------------------------------------------------------------ */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct ev_context *ctx;
	struct ev_pd *pd;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = ev_ctx(context);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->pd = roce_alloc_pd(ctx->port->rdev);
	if (pd->pd == NULL) {
		errno = ev_errno(EV_V_ALLOC_PD, rte_errno);
		free(pd);
		return NULL;
	}
	pd->ibpd.context = context;
	pd->ibpd.handle = 0;
	ev_obj_add(ctx, EV_K_PD, &pd->link);
	return &pd->ibpd;
}

int
ev_pd_destroy(struct ev_pd *pd)
{
	int ret = roce_dealloc_pd(pd->pd);

	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	ev_obj_del(ev_ctx(pd->ibpd.context), &pd->link);
	free(pd);
	return 0;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (pd == NULL)
		return EINVAL;
	return ev_pd_destroy(container_of(pd, struct ev_pd, ibpd));
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                     */
/* ------------------------------------------------------------------ */

/* The access bits of a region: -1 for a bit this device cannot honour. */
static int
mr_access(unsigned int access)
{
	const unsigned int known = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND |
		IBV_ACCESS_ZERO_BASED;

	/* the optional range may be ignored by a device (verbs.h) */
	access &= ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if ((access & ~known) != 0)
		return -1;	/* on-demand paging, huge-page hints... */
	return (int)access;
}

static struct ibv_mr *
mr_reg(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
       unsigned int access)
{
	struct ev_pd *pd = container_of(ibpd, struct ev_pd, ibpd);
	struct ev_context *ctx;
	struct ev_mr *mr;
	int acc = mr_access(access);

	if (acc < 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = ev_ctx(ibpd->context);
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->mr = roce_reg_mr_iova(pd->pd, addr, length, iova, acc);
	if (mr->mr == NULL) {
		errno = ev_errno(EV_V_REG_MR, rte_errno);
		free(mr);
		return NULL;
	}
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = roce_mr_lkey(mr->mr);
	mr->ibmr.rkey = roce_mr_rkey(mr->mr);
	ev_obj_add(ctx, EV_K_MR, &mr->link);
	return &mr->ibmr;
}

#undef ibv_reg_mr
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return mr_reg(pd, addr, length, (uint64_t)(uintptr_t)addr,
		      (unsigned int)access);
}

#undef ibv_reg_mr_iova
struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return mr_reg(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return mr_reg(pd, addr, length, iova, access);
}

struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		  uint64_t iova, int fd, int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;	/* no device memory to map a dma-buf into */
	return NULL;
}

int
ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *ibpd, void *addr,
	     size_t length, int access)
{
	struct ev_mr *mr;
	struct roce_pd *pd = NULL;
	int acc = 0, ret;

	if (ibmr == NULL || flags == 0 ||
	    (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) != 0 ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && ibpd == NULL)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	mr = container_of(ibmr, struct ev_mr, ibmr);
	if (flags & IBV_REREG_MR_CHANGE_PD)
		pd = container_of(ibpd, struct ev_pd, ibpd)->pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		acc = mr_access((unsigned int)access);
		if (acc < 0) {
			errno = EOPNOTSUPP;
			return IBV_REREG_MR_ERR_INPUT;
		}
	}
	/* the keys stay unless the translation changes, as devices do */
	ret = roce_rereg_mr(mr->mr, flags | ROCE_REREG_MR_KEEP_KEYS, pd, addr,
			    length, acc);
	if (ret != 0) {
		/* the old region stays as it was (lib/roce changes nothing) */
		errno = ev_errno(EV_V_REG_MR, ret);
		return ret == -EINVAL ? IBV_REREG_MR_ERR_INPUT :
			IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		ibmr->pd = ibpd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		ibmr->addr = addr;
		ibmr->length = length;
	}
	ibmr->lkey = roce_mr_lkey(mr->mr);
	ibmr->rkey = roce_mr_rkey(mr->mr);
	return 0;
}

int
ev_mr_destroy(struct ev_mr *mr)
{
	struct ev_context *ctx = ev_ctx(mr->ibmr.context);
	struct ev_port *p = ctx->port;
	int ret;

	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(p);
	ret = rte_pmd_ernic_dereg_mr(p->port_id, mr->mr);
	ev_port_release(p);
	pthread_mutex_unlock(&ev_env.ctl);
	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	ev_obj_del(ctx, &mr->link);
	free(mr);
	return 0;
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	if (mr == NULL)
		return EINVAL;
	return ev_mr_destroy(container_of(mr, struct ev_mr, ibmr));
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                     */
/* ------------------------------------------------------------------ */

struct ibv_mw *
ev_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ev_pd *pd = container_of(ibpd, struct ev_pd, ibpd);
	struct ev_mw *mw;

	/* type 1 windows (bound by ibv_bind_mw()) are not offered */
	if (type != IBV_MW_TYPE_2) {
		errno = type == IBV_MW_TYPE_1 ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mw->mw = roce_alloc_mw(pd->pd, ROCE_MW_TYPE_2);
	if (mw->mw == NULL) {
		errno = ev_errno(EV_V_REG_MR, rte_errno);
		free(mw);
		return NULL;
	}
	mw->ibmw.context = ibpd->context;
	mw->ibmw.pd = ibpd;
	mw->ibmw.rkey = roce_mw_rkey(mw->mw);
	mw->ibmw.type = IBV_MW_TYPE_2;
	ev_obj_add(ev_ctx(ibpd->context), EV_K_MW, &mw->link);
	return &mw->ibmw;
}

int
ev_mw_destroy(struct ev_mw *mw)
{
	int ret = roce_dealloc_mw(mw->mw);

	if (ret != 0)
		return ev_errno(EV_V_DESTROY, ret);
	ev_obj_del(ev_ctx(mw->ibmw.context), &mw->link);
	free(mw);
	return 0;
}

int
ev_dealloc_mw(struct ibv_mw *mw)
{
	if (mw == NULL)
		return EINVAL;
	return ev_mw_destroy(container_of(mw, struct ev_mw, ibmw));
}

int
ev_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	/* only type 1 windows come here (verbs.h), and there are none */
	(void)qp;
	(void)mw;
	(void)bind;
	return EOPNOTSUPP;
}
