/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translation between libibverbs and lib/roce: the one table of errnos
 * (what lib/roce returns -> what libibverbs documents for the verb),
 * completions, and address vectors. Enum values that lib/roce shares with
 * libibverbs (WC status and opcodes, WR opcodes, access flags, QP states
 * and attribute masks, MTU codes, event types) pass as they are: the
 * static assertions below keep them equal.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "ernic_env.h"
#include "ev_priv.h"

/* ------------------------------------------------------------------ */
/* Errnos                                                             */
/* ------------------------------------------------------------------ */

/*
 * lib/roce's -errno -> the errno of the verb. EV_V_MAX matches every
 * verb; the first match wins; what is not here passes as it is.
 */
static const struct {
	enum ev_verb verb;
	int roce;
	int ibv;
} ev_errno_tab[] = {
	/* a full table or ring is a resource limit (ENOMEM in verbs(3)) */
	{ EV_V_MAX, ENOSPC, ENOMEM },
	{ EV_V_MAX, ENOBUFS, ENOMEM },
	/* lib/roce's "not supported" */
	{ EV_V_MAX, ENOTSUP, EOPNOTSUPP },
	/* the port is not up (started) yet, or went away */
	{ EV_V_MAX, ENOEXEC, ENODEV },
	/* no next hop for the address vector */
	{ EV_V_MODIFY_QP, ETIMEDOUT, EHOSTUNREACH },
	{ EV_V_CREATE_AH, ETIMEDOUT, EHOSTUNREACH },
	/* post: a send queue full is ENOMEM in ibv_post_send(3) */
	{ EV_V_POST, ENOMEM, ENOMEM },
};

int
ev_errno(enum ev_verb verb, int roce_err)
{
	unsigned int i;

	if (roce_err < 0)
		roce_err = -roce_err;
	for (i = 0; i < RTE_DIM(ev_errno_tab); i++)
		if ((ev_errno_tab[i].verb == verb ||
		     ev_errno_tab[i].verb == EV_V_MAX) &&
		    ev_errno_tab[i].roce == roce_err)
			return ev_errno_tab[i].ibv;
	return roce_err != 0 ? roce_err : EINVAL;
}

/* ------------------------------------------------------------------ */
/* Values shared with libibverbs                                      */
/* ------------------------------------------------------------------ */

#define SAME(a, b) _Static_assert((long)(a) == (long)(b), #a " == " #b)

SAME(ROCE_WC_SUCCESS, IBV_WC_SUCCESS);
SAME(ROCE_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR);
SAME(ROCE_WC_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR);
SAME(ROCE_WC_GENERAL_ERR, IBV_WC_GENERAL_ERR);
SAME(ROCE_WC_SEND, IBV_WC_SEND);
SAME(ROCE_WC_LOCAL_INV, IBV_WC_LOCAL_INV);
SAME(ROCE_WC_RECV, IBV_WC_RECV);
SAME(ROCE_WC_RECV_RDMA_WITH_IMM, IBV_WC_RECV_RDMA_WITH_IMM);
SAME(ROCE_WC_GRH, IBV_WC_GRH);
SAME(ROCE_WC_WITH_IMM, IBV_WC_WITH_IMM);
SAME(ROCE_WC_WITH_INV, IBV_WC_WITH_INV);
SAME(ROCE_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE);
SAME(ROCE_WR_SEND_WITH_INV, IBV_WR_SEND_WITH_INV);
SAME(ROCE_WR_BIND_MW, IBV_WR_BIND_MW);
SAME(ROCE_WR_LOCAL_INV, IBV_WR_LOCAL_INV);
SAME(ROCE_SEND_FENCE, IBV_SEND_FENCE);
SAME(ROCE_SEND_SIGNALED, IBV_SEND_SIGNALED);
SAME(ROCE_SEND_SOLICITED, IBV_SEND_SOLICITED);
SAME(ROCE_SEND_INLINE, IBV_SEND_INLINE);
SAME(ROCE_ACCESS_LOCAL_WRITE, IBV_ACCESS_LOCAL_WRITE);
SAME(ROCE_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE);
SAME(ROCE_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ);
SAME(ROCE_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC);
SAME(ROCE_ACCESS_MW_BIND, IBV_ACCESS_MW_BIND);
SAME(ROCE_ACCESS_ZERO_BASED, IBV_ACCESS_ZERO_BASED);
SAME(ROCE_QPS_RESET, IBV_QPS_RESET);
SAME(ROCE_QPS_ERR, IBV_QPS_ERR);
SAME(ROCE_QPT_RC, IBV_QPT_RC);
SAME(ROCE_QPT_UC, IBV_QPT_UC);
SAME(ROCE_QPT_UD, IBV_QPT_UD);
SAME(ROCE_QP_STATE, IBV_QP_STATE);
SAME(ROCE_QP_DEST_QPN, IBV_QP_DEST_QPN);
SAME(ROCE_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC);
SAME(ROCE_QP_CAP, IBV_QP_CAP);
SAME(ROCE_MTU_256, IBV_MTU_256);
SAME(ROCE_MTU_4096, IBV_MTU_4096);
SAME(ROCE_REREG_MR_CHANGE_TRANSLATION, IBV_REREG_MR_CHANGE_TRANSLATION);
SAME(ROCE_REREG_MR_CHANGE_PD, IBV_REREG_MR_CHANGE_PD);
SAME(ROCE_REREG_MR_CHANGE_ACCESS, IBV_REREG_MR_CHANGE_ACCESS);
SAME(ROCE_SRQ_MAX_WR, IBV_SRQ_MAX_WR);
SAME(ROCE_SRQ_LIMIT, IBV_SRQ_LIMIT);
SAME(ROCE_EVENT_GID_CHANGE, IBV_EVENT_GID_CHANGE);
SAME(ROCE_EVENT_SRQ_LIMIT_REACHED, IBV_EVENT_SRQ_LIMIT_REACHED);
/* an SGE list passes as it is */
SAME(sizeof(struct roce_sge), sizeof(struct ibv_sge));
SAME(offsetof(struct roce_sge, addr), offsetof(struct ibv_sge, addr));
SAME(offsetof(struct roce_sge, length), offsetof(struct ibv_sge, length));
SAME(offsetof(struct roce_sge, lkey), offsetof(struct ibv_sge, lkey));

/* ------------------------------------------------------------------ */
/* Completions                                                        */
/* ------------------------------------------------------------------ */

void
ev_wc_from_roce(struct ibv_wc *d, const struct roce_wc *s)
{
	d->wr_id = s->wr_id;
	d->status = (enum ibv_wc_status)s->status;
	d->opcode = (enum ibv_wc_opcode)s->opcode;
	d->vendor_err = s->vendor_err;
	d->byte_len = s->byte_len;
	d->imm_data = s->imm_data;	/* or the invalidated rkey */
	d->qp_num = s->qp_num;
	d->src_qp = s->src_qp;
	d->wc_flags = s->wc_flags;
	d->pkey_index = s->pkey_index;
	d->slid = 0;
	d->sl = s->sl;
	d->dlid_path_bits = 0;
}

/* ------------------------------------------------------------------ */
/* Address vectors                                                    */
/* ------------------------------------------------------------------ */

int
ev_ah_from_ibv(const struct ev_port *p, const struct ibv_ah_attr *a,
	       struct roce_ah_attr *r)
{
	memset(r, 0, sizeof(*r));
	/* RoCE: every packet has a GRH (the IP header) */
	if (!a->is_global || a->port_num > 1 ||
	    a->grh.sgid_index >= p->nb_gid)
		return EINVAL;
	memcpy(r->dgid.raw, a->grh.dgid.raw, 16);
	r->sgid_index = a->grh.sgid_index;
	r->hop_limit = a->grh.hop_limit != 0 ? a->grh.hop_limit : 64;
	r->traffic_class = a->grh.traffic_class;
	r->flow_label = a->grh.flow_label & 0xfffff;
	r->sl = a->sl;
	r->static_rate = a->static_rate;
	r->port_num = 1;
	return 0;
}

void
ev_ah_to_ibv(const struct roce_ah_attr *r, struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->is_global = 1;
	memcpy(a->grh.dgid.raw, r->dgid.raw, 16);
	a->grh.sgid_index = r->sgid_index;
	a->grh.hop_limit = r->hop_limit;
	a->grh.traffic_class = r->traffic_class;
	a->grh.flow_label = r->flow_label;
	a->sl = r->sl;
	a->static_rate = r->static_rate;
	a->port_num = 1;
}

int
ev_ah_resolve(struct ev_port *p, struct roce_ah_attr *r)
{
	unsigned int i;
	int ret;

	/* one of our own addresses: the frames go out and come back */
	for (i = 0; i < p->nb_gid; i++)
		if (memcmp(p->gid[i].raw, r->dgid.raw, 16) == 0) {
			memcpy(r->dmac, p->mac, 6);
			return 0;
		}
	ret = ernic_env_resolve(p->port_id, &r->dgid, r->dmac,
				ev_env.set.resolve_ms, ev_port_step, p, NULL);
	return ret == 0 ? 0 : ev_errno(EV_V_CREATE_AH, ret);
}
