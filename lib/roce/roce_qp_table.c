/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state machine: THE table of legal Modify QP transitions with the
 * required and optional attributes of each (IBTA vol.1 10.3.1 and the
 * Modify QP attribute table of 11.2.5.2), the range checks of every
 * attribute, and the application of a modify on the worker that owns the
 * QP (roce_worker_exec()), so the engines never see a half-applied change.
 *
 * Failure of any check returns -EINVAL and leaves the QP exactly as it was:
 * every check runs before the first field is written.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "roce_build.h"
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_worker.h"

/* Index of a QP type in the table (enum roce_qp_type starts at 2). */
enum qpt_idx {
	QPT_RC,
	QPT_UC,
	QPT_UD,
	QPT_NB,
};

#define T_RC (1u << QPT_RC)
#define T_UC (1u << QPT_UC)
#define T_UD (1u << QPT_UD)
#define T_ALL (T_RC | T_UC | T_UD)

/* One cell of the table: the QP types it is legal for and its masks. */
struct qp_trans {
	uint8_t types;			/* T_* bits; 0: illegal */
	uint32_t req[QPT_NB];		/* besides ROCE_QP_STATE */
	uint32_t opt[QPT_NB];
};

/* Short names for the table only. */
#define A_CUR ROCE_QP_CUR_STATE
#define A_SQD_NOTIFY ROCE_QP_EN_SQD_ASYNC_NOTIFY
#define A_ACCESS ROCE_QP_ACCESS_FLAGS
#define A_PKEY ROCE_QP_PKEY_INDEX
#define A_PORT ROCE_QP_PORT
#define A_QKEY ROCE_QP_QKEY
#define A_AV ROCE_QP_AV
#define A_MTU ROCE_QP_PATH_MTU
#define A_TIMEOUT ROCE_QP_TIMEOUT
#define A_RETRY ROCE_QP_RETRY_CNT
#define A_RNR_RETRY ROCE_QP_RNR_RETRY
#define A_RQ_PSN ROCE_QP_RQ_PSN
#define A_RD_ATOMIC ROCE_QP_MAX_QP_RD_ATOMIC
#define A_ALT ROCE_QP_ALT_PATH
#define A_MIN_RNR ROCE_QP_MIN_RNR_TIMER
#define A_SQ_PSN ROCE_QP_SQ_PSN
#define A_DEST_RD_ATOMIC ROCE_QP_MAX_DEST_RD_ATOMIC
#define A_PMIG ROCE_QP_PATH_MIG_STATE
#define A_DEST_QPN ROCE_QP_DEST_QPN
#define A_SR ROCE_QP_SELECTIVE_REPEAT

/* RESET->INIT required == INIT->INIT optional (IBTA 11.2.5.2). */
#define INIT_RC_UC (A_PKEY | A_PORT | A_ACCESS)
#define INIT_UD (A_PKEY | A_PORT | A_QKEY)

/*
 * SQD->SQD (attribute change while drained) and SQD->RTS: the spec's list
 * (path, alternate path, timeouts, retry counts, max_rd_atomic,
 * max_dest_rd_atomic, Q_Key, P_Key index, port, min RNR timer) restricted
 * to the attributes each type has, plus access flags and path migration
 * state which IBTA 11.2.5.2 also allows there.
 */
#define SQD_RC (A_PORT | A_AV | A_TIMEOUT | A_RETRY | A_RNR_RETRY | \
		A_RD_ATOMIC | A_DEST_RD_ATOMIC | A_ALT | A_ACCESS | A_PKEY | \
		A_MIN_RNR | A_PMIG)
#define SQD_UC (A_PORT | A_AV | A_ALT | A_ACCESS | A_PKEY | A_PMIG)
#define SQD_UD (A_PORT | A_PKEY | A_QKEY)

/* Attribute changes in RTS (RTS->RTS) and on the way to it. */
#define RTS_RC (A_ACCESS | A_ALT | A_PMIG | A_MIN_RNR)
#define RTS_UC (A_ACCESS | A_ALT | A_PMIG)
#define RTS_UD (A_QKEY)

/* any -> RESET and any -> ERR: the state only (IBTA 10.3.1). */
#define TO_RESET_ERR \
	[ROCE_QPS_RESET] = { .types = T_ALL }, \
	[ROCE_QPS_ERR] = { .types = T_ALL }

/*
 * THE transition table, [from][to]. Cells not written are illegal.
 * CUR_STATE (a consistency check of the caller's view, never a change) is
 * optional exactly where IBTA 11.2.5.2 lists it: the transitions into RTS
 * from RTR, RTS, SQD and SQE, whose source the CI may have changed on its
 * own (SQD drained, SQE on a send error).
 */
static const struct qp_trans qp_table[ROCE_QPS_ERR + 1][ROCE_QPS_ERR + 1] = {
	[ROCE_QPS_RESET] = {
		TO_RESET_ERR,
		[ROCE_QPS_INIT] = { .types = T_ALL,
			.req = { [QPT_RC] = INIT_RC_UC, [QPT_UC] = INIT_RC_UC,
				 [QPT_UD] = INIT_UD } },
	},
	[ROCE_QPS_INIT] = {
		TO_RESET_ERR,
		[ROCE_QPS_INIT] = { .types = T_ALL,
			.opt = { [QPT_RC] = INIT_RC_UC, [QPT_UC] = INIT_RC_UC,
				 [QPT_UD] = INIT_UD } },
		[ROCE_QPS_RTR] = { .types = T_ALL,
			.req = {
				[QPT_RC] = A_AV | A_MTU | A_DEST_QPN | A_RQ_PSN |
					   A_DEST_RD_ATOMIC | A_MIN_RNR,
				[QPT_UC] = A_AV | A_MTU | A_DEST_QPN | A_RQ_PSN,
			},
			.opt = {
				[QPT_RC] = A_ALT | A_ACCESS | A_PKEY | A_SR,
				[QPT_UC] = A_ALT | A_ACCESS | A_PKEY,
				[QPT_UD] = A_PKEY | A_QKEY,
			} },
	},
	[ROCE_QPS_RTR] = {
		TO_RESET_ERR,
		[ROCE_QPS_RTS] = { .types = T_ALL,
			.req = {
				[QPT_RC] = A_SQ_PSN | A_TIMEOUT | A_RETRY |
					   A_RNR_RETRY | A_RD_ATOMIC,
				[QPT_UC] = A_SQ_PSN,
				[QPT_UD] = A_SQ_PSN,
			},
			.opt = {
				[QPT_RC] = A_CUR | RTS_RC | A_SR,
				[QPT_UC] = A_CUR | RTS_UC,
				[QPT_UD] = A_CUR | RTS_UD,
			} },
	},
	[ROCE_QPS_RTS] = {
		TO_RESET_ERR,
		[ROCE_QPS_RTS] = { .types = T_ALL,
			.opt = {
				[QPT_RC] = A_CUR | RTS_RC,
				[QPT_UC] = A_CUR | RTS_UC,
				[QPT_UD] = A_CUR | RTS_UD,
			} },
		[ROCE_QPS_SQD] = { .types = T_ALL,
			.opt = { [QPT_RC] = A_SQD_NOTIFY, [QPT_UC] = A_SQD_NOTIFY,
				 [QPT_UD] = A_SQD_NOTIFY } },
	},
	[ROCE_QPS_SQD] = {
		TO_RESET_ERR,
		[ROCE_QPS_SQD] = { .types = T_ALL,
			.opt = { [QPT_RC] = SQD_RC, [QPT_UC] = SQD_UC,
				 [QPT_UD] = SQD_UD } },
		[ROCE_QPS_RTS] = { .types = T_ALL,
			.opt = { [QPT_RC] = A_CUR | SQD_RC,
				 [QPT_UC] = A_CUR | SQD_UC,
				 [QPT_UD] = A_CUR | SQD_UD } },
	},
	[ROCE_QPS_SQE] = {
		TO_RESET_ERR,
		/* SQE exists for UC and UD only (RC errors go to ERR) */
		[ROCE_QPS_RTS] = { .types = T_UC | T_UD,
			.opt = { [QPT_UC] = A_CUR | A_ACCESS,
				 [QPT_UD] = A_CUR | A_QKEY } },
	},
	[ROCE_QPS_ERR] = {
		TO_RESET_ERR,
	},
};

static int
qpt_idx(enum roce_qp_type type)
{
	switch (type) {
	case ROCE_QPT_RC:
		return QPT_RC;
	case ROCE_QPT_UC:
		return QPT_UC;
	case ROCE_QPT_UD:
		return QPT_UD;
	}
	return -1;
}

bool
roce_qp_trans_masks(enum roce_qp_type type, enum roce_qp_state from,
		    enum roce_qp_state to, uint32_t *req, uint32_t *opt)
{
	const struct qp_trans *t;
	int ti = qpt_idx(type);

	if (ti < 0 || (unsigned int)from > ROCE_QPS_ERR ||
	    (unsigned int)to > ROCE_QPS_ERR)
		return false;
	t = &qp_table[from][to];
	if (!(t->types & (1u << ti)))
		return false;
	if (req != NULL)
		*req = ROCE_QP_STATE | t->req[ti];
	if (opt != NULL)
		*opt = t->opt[ti];
	return true;
}

/* ------------------------------------------------------------------ */
/* Attribute value checks                                             */
/* ------------------------------------------------------------------ */

/* QP access flags a modify may set (IBTA 10.2.4: remote rights of the QP). */
#define QP_ACCESS_ALLOWED (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
			   ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

/* One P_Key (index 0, the default 0xffff) and one port (1) on RoCE. */
#define QP_PKEY_DEFAULT 0xffffu
#define QP_PORT 1u

static bool
gid_index_valid(const struct roce_device *dev, unsigned int idx)
{
	return idx < RTE_DIM(dev->cfg.gid_valid) && dev->cfg.gid_valid[idx];
}

static int
check_ah(const struct roce_device *dev, const struct roce_ah_attr *ah)
{
	if (!gid_index_valid(dev, ah->sgid_index))
		return -EINVAL;
	/* 0: the QP's port; otherwise the one port there is */
	if (ah->port_num != 0 && ah->port_num != QP_PORT)
		return -EINVAL;
	if (ah->flow_label > 0xfffffu || ah->sl > 15)
		return -EINVAL;
	return 0;
}

/* Range checks of every attribute in @p mask (IBTA 11.2.5.2 / verbs limits). */
static int
check_values(const struct roce_qp *qp, const struct roce_qp_attr *a, int mask)
{
	const struct roce_device *dev = qp->dev;

	if ((mask & ROCE_QP_CUR_STATE) &&
	    (unsigned int)a->cur_qp_state > ROCE_QPS_ERR)
		return -EINVAL;
	if ((mask & ROCE_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~QP_ACCESS_ALLOWED))
		return -EINVAL;
	if ((mask & ROCE_QP_PKEY_INDEX) && a->pkey_index != 0)
		return -EINVAL;
	if ((mask & ROCE_QP_PORT) && a->port_num != QP_PORT)
		return -EINVAL;
	if ((mask & ROCE_QP_AV) && check_ah(dev, &a->ah_attr) != 0)
		return -EINVAL;
	if ((mask & ROCE_QP_ALT_PATH) &&
	    (check_ah(dev, &a->alt_ah_attr) != 0 || a->alt_pkey_index != 0))
		return -EINVAL;
	if ((mask & ROCE_QP_PATH_MTU) && roce_mtu_bytes(a->path_mtu) == 0)
		return -EINVAL;
	if ((mask & ROCE_QP_PATH_MTU) && a->path_mtu > dev->cfg.max_mtu) {
		ROCE_LOG(ERR, verbs, "qp %u: path MTU %u above the port's %u",
			 qp->qpn, roce_mtu_bytes(a->path_mtu),
			 roce_mtu_bytes(dev->cfg.max_mtu));
		return -EINVAL;
	}
	/* local ACK timeout and min RNR timer: 5-bit codes (IBTA 9.7.6, 9.7.5.2) */
	if ((mask & ROCE_QP_TIMEOUT) && a->timeout > 31)
		return -EINVAL;
	if ((mask & ROCE_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return -EINVAL;
	/* retry counts: 3 bits (IBTA 9.7.6; RNR retry 7 = infinite) */
	if ((mask & ROCE_QP_RETRY_CNT) && a->retry_cnt > 7)
		return -EINVAL;
	if ((mask & ROCE_QP_RNR_RETRY) && a->rnr_retry > 7)
		return -EINVAL;
	if ((mask & ROCE_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > dev->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & ROCE_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > dev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & ROCE_QP_DEST_QPN) && a->dest_qp_num > ROCE_PSN_MASK)
		return -EINVAL;		/* QPNs are 24 bits like PSNs */
	if ((mask & ROCE_QP_RQ_PSN) && a->rq_psn > ROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & ROCE_QP_SQ_PSN) && a->sq_psn > ROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & ROCE_QP_PATH_MIG_STATE) && a->path_mig_state > 2)
		return -EINVAL;		/* MIGRATED, REARM, ARMED */
	if ((mask & ROCE_QP_SELECTIVE_REPEAT) && a->selective_repeat > 1)
		return -EINVAL;
	if ((mask & ROCE_QP_EN_SQD_ASYNC_NOTIFY) && a->en_sqd_async_notify > 1)
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Path: builder fields and header template (RC/UC)                   */
/* ------------------------------------------------------------------ */

static bool
gid_is_v4mapped(const union roce_gid *g)
{
	static const uint8_t pfx[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

/*
 * RoCEv2 UDP source port from the flow label, as Linux does
 * (rdma_calc_flow_label() / rdma_flow_label_to_udp_sport()): IBTA annex
 * A17 leaves the source port to the sender for ECMP entropy; keeping it
 * fixed per QP keeps one flow on one path (in order).
 */
static uint16_t
qp_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl_low, fl_high;
	uint64_t v;

	if (flow_label == 0) {
		v = (uint64_t)lqpn * rqpn;
		v ^= v >> 20;
		v ^= v >> 40;
		flow_label = (uint32_t)(v & 0xfffffu);
	}
	fl_low = flow_label & 0x03fffu;
	fl_high = flow_label & 0xfc000u;
	fl_low ^= fl_high >> 14;
	return (uint16_t)(fl_low | 0xc000u);
}

/* Everything a modify computes before it may touch the QP. */
struct qp_modify {
	struct roce_qp *qp;
	const struct roce_qp_attr *attr;
	int mask;
	/* path (valid when have_path) */
	bool have_path;
	struct roce_hdr_fields path;
	/* the headers of an empty SEND ONLY: the path's, then the BTH */
	uint8_t tmpl[ROCE_QP_TMPL_MAX + ROCE_BTH_LEN];
	uint16_t tmpl_len;
	/* responder resources: new array in, replaced array out (freed by caller) */
	struct roce_resp_res *res;
	uint32_t res_cap;
};

/*
 * Fill the builder fields of the path and the Ethernet/IP/UDP template
 * (IBTA annex A17: RoCEv2 headers; the BTH follows). -EINVAL when the
 * GIDs are of different IP versions or the builder refuses the fields.
 */
static int
qp_path_build(struct qp_modify *m)
{
	const struct roce_qp_attr *a = m->attr;
	struct roce_qp *qp = m->qp;
	const struct roce_device *dev = qp->dev;
	const struct roce_ah_attr *ah = &a->ah_attr;
	struct roce_hdr_fields *f = &m->path;
	uint32_t dqpn = (m->mask & ROCE_QP_DEST_QPN) ? a->dest_qp_num :
		qp->attr.dest_qp_num;
	union roce_gid sgid;
	bool v4;
	int len;

	/* a consistent copy even if the GID table changes meanwhile */
	if (roce_device_get_gid(qp->dev, ah->sgid_index, &sgid) != 0)
		return -EINVAL;
	v4 = gid_is_v4mapped(&sgid);
	if (v4 != gid_is_v4mapped(&ah->dgid))
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	memcpy(f->dst_mac.addr_bytes, ah->dmac, RTE_ETHER_ADDR_LEN);
	memcpy(f->src_mac.addr_bytes, dev->cfg.mac, RTE_ETHER_ADDR_LEN);
	f->vlan = dev->cfg.vlan;
	/* the SL travels as the 802.1Q priority (annex A16, as RoCE NICs do) */
	f->vlan_tci = roce_vlan_tci(ah->sl & 7, roce_vlan_dei(dev->cfg.vlan_tci),
				    roce_vlan_vid(dev->cfg.vlan_tci));
	f->ip_ver = v4 ? 4 : 6;
	/* ECT(0) unless disabled or set in the AV (roce_cc.c) */
	f->tos = roce_cc_tos(dev, ah->traffic_class);
	/* 0 is no usable TTL on IP: take the Linux default */
	f->ttl = ah->hop_limit ? ah->hop_limit : 64;
	f->flow_label = ah->flow_label;
	memcpy(f->sgid, sgid.raw, sizeof(f->sgid));
	memcpy(f->dgid, ah->dgid.raw, sizeof(f->dgid));
	f->udp_sport = qp_udp_sport(ah->flow_label, qp->qpn, dqpn);
	f->opcode = qp->type == ROCE_QPT_RC ? ROCE_OP_RC_SEND_ONLY :
		ROCE_OP_UC_SEND_ONLY;
	f->pkey = QP_PKEY_DEFAULT;
	f->dqpn = dqpn;

	/* template: the headers of an empty SEND ONLY; keep the path part */
	len = roce_build_hdr(m->tmpl, sizeof(m->tmpl), f, 0);
	if (len < 0)
		return -EINVAL;
	m->tmpl_len = (uint16_t)(len - (int)sizeof(struct roce_bth));
	if (m->tmpl_len > sizeof(qp->hdr_tmpl))
		return -EINVAL;
	m->have_path = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Applying a transition (on the worker)                              */
/* ------------------------------------------------------------------ */

static inline uint8_t
qp_state_get(const struct roce_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
}

static inline void
qp_state_set(struct roce_qp *qp, enum roce_qp_state s)
{
	__atomic_store_n(&qp->state, (uint8_t)s, __ATOMIC_RELEASE);
}

/*
 * No send WQE in flight: every WQE the requester started (those before
 * req.wqe_hwm, roce_engine.h) has been retired by the completer.
 */
static bool
qp_sq_idle(const struct roce_qp *qp)
{
	return qp->sq.cons == qp->req.wqe_hwm;
}

void
roce_qp_check_drained(struct roce_qp *qp)
{
	if (likely(qp->sq_draining == 0) || qp_state_get(qp) != ROCE_QPS_SQD)
		return;
	if (!qp_sq_idle(qp))
		return;
	__atomic_store_n(&qp->sq_draining, 0, __ATOMIC_RELEASE);
	ROCE_LOG(DEBUG, qp, "qp %u: send queue drained", qp->qpn);
	/* IBTA 11.6.3: affiliated event "Send Queue Drained", once */
	if (qp->attr.en_sqd_async_notify)
		roce_event_raise(qp->dev, ROCE_EVENT_SQ_DRAINED, qp, qp->qpn,
				 ROCE_OK);
}

/*
 * Empty both queues without a completion: the WQEs and the completions
 * they would have produced are dropped (IBTA 10.3.1: Reset clears the work
 * queues). Completions already in a CQ stay: the CQ is another thread's
 * SPSC ring and those WRs did complete.
 */
static void
qp_queues_clear(struct roce_qp *qp)
{
	uint32_t prod;

	prod = __atomic_load_n(&qp->sq.prod, __ATOMIC_ACQUIRE);
	__atomic_store_n(&qp->sq.cons, prod, __ATOMIC_RELEASE);
	if (qp->srq == NULL) {
		prod = __atomic_load_n(&qp->rq.prod, __ATOMIC_ACQUIRE);
		__atomic_store_n(&qp->rq.cons, prod, __ATOMIC_RELEASE);
	}
	/* requester view of the (now empty) SQ */
	qp->req.wqe_idx = qp->sq.cons;
	qp->req.wqe_hwm = qp->sq.cons;
	qp->req.offset = 0;
	qp->resp.rwqe = NULL;
	qp->resp.res_count = 0;
	qp->resp.res_head = 0;
}

static void
qp_timers_cancel(struct roce_qp *qp)
{
	struct roce_timers *ts = roce_worker_timers(qp->w);

	roce_timer_cancel(ts, &qp->comp.retrans);
	roce_timer_cancel(ts, &qp->comp.rnr);
	roce_resp_stop(qp);
}

/*
 * The per-packet copies of qp->path and qp->attr (roce_qp.h), after every
 * change of either.
 */
static void
qp_hot_sync(struct roce_qp *qp)
{
	qp->pkey = qp->path.pkey;
	memcpy(qp->dgid, qp->path.dgid, sizeof(qp->dgid));
	qp->dest_qpn = qp->attr.dest_qp_num;
	qp->access = qp->attr.qp_access_flags;
	qp->sr = qp->type == ROCE_QPT_RC && qp->attr.selective_repeat != 0;
	qp->timeout = qp->attr.timeout;
	qp->retry_cnt = qp->attr.retry_cnt;
	qp->rnr_retry = qp->attr.rnr_retry;
}

/* Any state -> RESET (worker). */
static void
qp_to_reset(struct roce_qp *qp)
{
	struct roce_qp_attr *a = &qp->attr;

	qp_state_set(qp, ROCE_QPS_RESET);
	roce_worker_qp_detach(qp->w, qp);
	qp_timers_cancel(qp);
	qp_queues_clear(qp);
	roce_engines_reset(qp);
	/* attributes back to their create-time values */
	memset(a, 0, sizeof(*a));
	a->cap = qp->init.cap;
	qp->sq_draining = 0;
	qp->err_cause = ROCE_OK;
	qp->flush_done = false;
	qp->hdr_len = 0;
	memset(&qp->path, 0, sizeof(qp->path));
	qp_hot_sync(qp);
	qp->mtu = 0;	/* UD: roce_qp_mtu() default (roce_engine.h) */
}

/* Copy the attributes of @p mask into the QP (worker, checks passed). */
static void
qp_apply_attrs(struct roce_qp *qp, const struct roce_qp_attr *a, int mask)
{
	struct roce_qp_attr *q = &qp->attr;

	if (mask & ROCE_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & ROCE_QP_ACCESS_FLAGS)
		q->qp_access_flags = a->qp_access_flags;
	if (mask & ROCE_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & ROCE_QP_PORT)
		q->port_num = a->port_num;
	if (mask & ROCE_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & ROCE_QP_AV)
		q->ah_attr = a->ah_attr;
	if (mask & ROCE_QP_PATH_MTU) {
		q->path_mtu = a->path_mtu;
		qp->mtu = roce_mtu_bytes(a->path_mtu);
	}
	if (mask & ROCE_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & ROCE_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & ROCE_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & ROCE_QP_RQ_PSN)
		q->rq_psn = a->rq_psn;
	if (mask & ROCE_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & ROCE_QP_ALT_PATH) {
		/* kept for query; one port: no automatic path migration */
		q->alt_ah_attr = a->alt_ah_attr;
		q->alt_pkey_index = a->alt_pkey_index;
	}
	if (mask & ROCE_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & ROCE_QP_SQ_PSN)
		q->sq_psn = a->sq_psn;
	if (mask & ROCE_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ROCE_QP_PATH_MIG_STATE)
		q->path_mig_state = a->path_mig_state;
	if (mask & ROCE_QP_DEST_QPN)
		q->dest_qp_num = a->dest_qp_num;
	if (mask & ROCE_QP_SELECTIVE_REPEAT)
		q->selective_repeat = a->selective_repeat;
}

/*
 * Swap in the responder resource array of the new max_dest_rd_atomic,
 * keeping the newest entries in order (SQD->SQD may resize while inbound
 * READs are replayable). The old array goes back to the caller to free.
 */
static void
qp_resp_res_swap(struct roce_qp *qp, struct qp_modify *m)
{
	struct roce_resp_state *r = &qp->resp;
	struct roce_resp_res *old = r->res;
	uint32_t keep = RTE_MIN(r->res_count, m->res_cap), i, skip;

	skip = r->res_count - keep;
	for (i = 0; i < keep; i++)
		m->res[i] = old[(r->res_head + skip + i) % r->res_cap];
	r->res = m->res;
	r->res_cap = m->res_cap;
	r->res_head = 0;
	r->res_count = keep;
	m->res = old;
}

/* The modify itself, on the worker that owns the QP. */
static int
qp_modify_exec(void *arg)
{
	struct qp_modify *m = arg;
	struct roce_qp *qp = m->qp;
	const struct roce_qp_attr *a = m->attr;
	enum roce_qp_state from = qp_state_get(qp);
	enum roce_qp_state to = a->qp_state;
	uint32_t req, opt, mask = (uint32_t)m->mask;
	int ret;

	/* 1. the caller's view of the current state (IBTA 11.2.5.2) */
	if ((mask & ROCE_QP_CUR_STATE) && a->cur_qp_state != from)
		goto inval;
	/* 2. the transition and its attribute masks */
	if (!roce_qp_trans_masks(qp->type, from, to, &req, &opt))
		goto inval;
	if ((mask & req) != req || (mask & ~(req | opt)) != 0)
		goto inval;
	/* 3. values */
	if (check_values(qp, a, (int)mask) != 0)
		goto inval;
	/* 4. SQD changes need the drained sub-state (IBTA 10.3.1) */
	if (from == ROCE_QPS_SQD && to != ROCE_QPS_RESET && to != ROCE_QPS_ERR) {
		roce_qp_check_drained(qp);
		if (qp->sq_draining)
			goto inval;
	}
	/* 5. the path template (RC/UC) */
	if ((mask & ROCE_QP_AV) && qp->type != ROCE_QPT_UD) {
		ret = qp_path_build(m);
		if (ret != 0)
			goto inval;
	}

	/* ---- nothing below fails: apply ---- */
	if (to == ROCE_QPS_RESET) {
		qp_to_reset(qp);
		ROCE_LOG(DEBUG, qp, "qp %u: %u -> RESET", qp->qpn, from);
		return 0;
	}
	if (from == ROCE_QPS_RESET && to == ROCE_QPS_INIT) {
		/* fresh engines and empty queues */
		qp_queues_clear(qp);
		roce_engines_reset(qp);
	}
	qp_apply_attrs(qp, a, (int)mask);
	if (m->have_path) {
		qp->path = m->path;
		memcpy(qp->hdr_tmpl, m->tmpl, m->tmpl_len);
		qp->hdr_len = m->tmpl_len;
		qp->udp_sport = m->path.udp_sport;
	}
	qp_hot_sync(qp);
	if (m->res_cap != 0 || (mask & ROCE_QP_MAX_DEST_RD_ATOMIC))
		qp_resp_res_swap(qp, m);

	switch (to) {
	case ROCE_QPS_ERR:
		if (from != ROCE_QPS_ERR) {
			qp->err_cause = ROCE_OK;	/* software asked */
			qp_state_set(qp, ROCE_QPS_ERR);
			qp_timers_cancel(qp);
			roce_qp_flush(qp);
			/* IBTA 11.6.3: Last WQE Reached for SRQ users */
			if (qp->srq != NULL)
				roce_event_raise(qp->dev,
						 ROCE_EVENT_QP_LAST_WQE_REACHED,
						 qp, qp->qpn, ROCE_OK);
		}
		break;
	case ROCE_QPS_RTR:
		if (from == ROCE_QPS_INIT) {
			/* IBTA 9.7.5.1: the responder expects the peer's start PSN */
			qp->resp.epsn = roce_psn_mask(qp->attr.rq_psn);
			qp->resp.msn = 0;
			roce_sr_reset(qp);
		}
		qp_state_set(qp, ROCE_QPS_RTR);
		break;
	case ROCE_QPS_RTS:
		if (from == ROCE_QPS_RTR) {
			/* IBTA 9.7.1: first request PSN; nothing outstanding yet */
			qp->req.psn = roce_psn_mask(qp->attr.sq_psn);
			qp->req.psn_hwm = qp->req.psn;
			qp->comp.psn = qp->req.psn;
			qp->req.wqe_idx = qp->sq.cons;
			qp->req.wqe_hwm = qp->sq.cons;
			qp->req.offset = 0;
			qp->comp.retry_left = qp->attr.retry_cnt;
			qp->comp.rnr_retry_left = qp->attr.rnr_retry;
			roce_sr_reset(qp);
		} else if (from == ROCE_QPS_SQD) {
			/* drained: nothing in flight, new counts apply now */
			if (mask & ROCE_QP_RETRY_CNT)
				qp->comp.retry_left = qp->attr.retry_cnt;
			if (mask & ROCE_QP_RNR_RETRY)
				qp->comp.rnr_retry_left = qp->attr.rnr_retry;
		} else if (from == ROCE_QPS_SQE) {
			/* WRs posted in SQE complete as flushed (IBTA 10.3.1),
			 * also those whose doorbell the worker has not seen yet
			 */
			roce_qp_flush(qp);
			qp->req.wqe_idx = qp->sq.cons;
			qp->req.wqe_hwm = qp->sq.cons;
			qp->req.offset = 0;
			qp->err_cause = ROCE_OK;
		}
		qp->sq_draining = 0;
		qp_state_set(qp, ROCE_QPS_RTS);
		/* resume WQEs that waited during SQD/SQE */
		if (from != ROCE_QPS_RTS)
			roce_worker_doorbell(qp->w, qp);
		break;
	case ROCE_QPS_SQD:
		if (from == ROCE_QPS_RTS) {
			/* the drained event is asked for per RTS->SQD */
			if (!(mask & ROCE_QP_EN_SQD_ASYNC_NOTIFY))
				qp->attr.en_sqd_async_notify = 0;
			/* the requester starts no new WQE from now on */
			qp->sq_draining = 1;
			qp_state_set(qp, ROCE_QPS_SQD);
			roce_qp_check_drained(qp);
		} else {
			if (mask & ROCE_QP_RETRY_CNT)
				qp->comp.retry_left = qp->attr.retry_cnt;
			if (mask & ROCE_QP_RNR_RETRY)
				qp->comp.rnr_retry_left = qp->attr.rnr_retry;
		}
		break;
	default:		/* INIT */
		qp_state_set(qp, to);
		break;
	}
	ROCE_LOG(DEBUG, qp, "qp %u: %u -> %u mask 0x%x", qp->qpn, from, to,
		 mask);
	return 0;
inval:
	ROCE_LOG(DEBUG, qp, "qp %u: modify %u -> %u mask 0x%x refused",
		 qp->qpn, from, to, mask);
	return -EINVAL;
}

int
roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *attr, int mask)
{
	struct qp_modify m;
	int ret;

	if (qp == NULL || attr == NULL || !(mask & ROCE_QP_STATE))
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.qp = qp;
	m.attr = attr;
	m.mask = mask;
	/*
	 * Responder resources for inbound READ/atomic (IBTA 9.7.5.1: one per
	 * outstanding request), allocated here on the control thread so the
	 * worker only swaps pointers. 0 leaves the QP with none: the
	 * responder rejects READ/atomic requests then.
	 */
	if ((mask & ROCE_QP_MAX_DEST_RD_ATOMIC) && qp->type == ROCE_QPT_RC &&
	    attr->max_dest_rd_atomic != 0 &&
	    attr->max_dest_rd_atomic <= qp->dev->attr.max_qp_rd_atom) {
		m.res_cap = attr->max_dest_rd_atomic;
		m.res = rte_zmalloc_socket("roce_resp_res",
					   sizeof(*m.res) * m.res_cap, 0,
					   qp->w->socket);
		if (m.res == NULL)
			return -ENOMEM;
	}
	ret = roce_worker_exec(qp->w, qp_modify_exec, &m);
	/* the unused new array, or the replaced old one */
	rte_free(m.res);
	return ret;
}
