/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester engine: turns send WQEs into request packets (RC, UC, UD).
 *
 * roce_req_run() is an explicit state machine; each step function does one
 * thing and returns the next state:
 *
 *   REWIND --> GET_WQE --(new WQE)--> ADMIT --> START --(local)--> LOCAL --+
 *   (go-back-N)   |  ^                  |         |                        |
 *                 |  |            (fence, rd_atomic)                       |
 *                 |  |                  v         v                        |
 *                 |  |                 EXIT <-- GATE --> BUILD --> SEND     |
 *                 |  |    (window, budget, port)  ^                 |      |
 *                 |  |                            +--- ADVANCE <----+      |
 *                 |  |                                    |                |
 *                 |  +----------- NEXT_WQE <---(message sent)  <-----------+
 *                 +--(started WQE: resend)--> GATE
 *   any step --(local error)--> ERROR --> EXIT
 *
 * - GET_WQE picks req.wqe_idx: a WQE never started (ADMIT: fence and
 *   max_rd_atomic, then START assigns its PSNs) or one already started
 *   that go-back-N resends with the PSNs it had (GATE).
 * - GATE checks, per packet, the RC window, the per-call budgets
 *   (packets, payload bytes), the DCQCN rate and room at the port (a port
 *   that refuses frames holds the requester back until the next poll).
 * - BUILD makes one packet: payload gathered from the SGEs (or inline
 *   bytes), headers by roce_build_mbuf(), ICRC by roce_icrc_fill_built().
 * - SEND hands it to the worker and starts the local ACK timer (RC).
 * - ADVANCE moves the PSN and byte offset; a finished message goes to
 *   NEXT_WQE, which completes UC/UD WQEs (no ACK) through the completer.
 *
 * Zero-copy: with roce_device_config::zero_copy_tx, an RC packet whose
 * payload lies in one SGE and is at least zc_min bytes carries the
 * registered memory itself, attached to an mbuf (roce_txbuf.h); other
 * payloads are copied into mbufs of the device's hdr_pool.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "roce_build.h"
#include "roce_engine.h"
#include "roce_icrc_priv.h"
#include "roce_opcode.h"
#include "roce_psn.h"
#include "roce_qp.h"
#include "roce_sr.h"
#include "roce_txbuf.h"
#include "roce_worker.h"

/** Default P_Key (IBTA 10.9.1.2: full member of the default partition). */
#define ROCE_DEFAULT_PKEY 0xffff

/** IP hop limit used when the address vector leaves it 0. */
#define ROCE_DEFAULT_HOP_LIMIT 64

/** Bytes kept free at the end of each payload segment: pad (3) + ICRC (4). */
#define REQ_TAIL_RESERVE 8

enum req_state {
	REQ_REWIND,	/**< go-back-N asked: find the WQE holding comp.psn */
	REQ_GET_WQE,	/**< look at the WQE at req.wqe_idx */
	REQ_ADMIT,	/**< new WQE: fence and max_rd_atomic */
	REQ_START,	/**< new WQE: check it, assign its PSNs */
	REQ_LOCAL,	/**< LOCAL_INV / BIND_MW: execute in SQ order */
	REQ_GATE,	/**< per packet: window and budget */
	REQ_SKIP,	/**< SR round: a packet not to resend (roce_sr.h) */
	REQ_BUILD,	/**< make one packet */
	REQ_SEND,	/**< hand it to the worker */
	REQ_ADVANCE,	/**< move PSN and offset */
	REQ_NEXT_WQE,	/**< the WQE is sent: go to the next one */
	REQ_ERROR,	/**< the WQE failed locally */
	REQ_EXIT,	/**< nothing (more) to do now */
};

/** Everything one roce_req_run() call works on. */
struct req_ctx {
	struct roce_qp *qp;
	uint64_t now;
	uint32_t mtu;
	uint8_t qp_state;
	uint32_t sent;			/**< packets sent by this call */
	uint32_t sent_bytes;		/**< their payload bytes */
	bool reschedule;		/**< stopped with work left: ring again */
	bool held;			/**< stopped by the port: -EBUSY */
	struct roce_send_wqe *wqe;	/**< WQE at req.wqe_idx */
	enum roce_err err;		/**< REQ_ERROR: the cause */
	/* the packet being made */
	struct rte_mbuf *m;
	uint32_t psn;
	uint32_t payload;		/**< payload bytes */
	uint32_t npsn;			/**< PSNs it consumes (READ: responses) */
	bool last;			/**< last packet of the message */
	bool retrans;			/**< PSN sent before (go-back-N) */
	struct roce_hdr_fields f;
	uint8_t srx[ROCE_SRX_REQ_LEN];	/**< SR extension of a WRITE packet */
};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

/** True for a GID of the IPv4-mapped form ::ffff:a.b.c.d (RoCEv2 over IPv4). */
static bool
req_gid_is_v4(const union roce_gid *gid)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return memcmp(gid->raw, prefix, sizeof(prefix)) == 0;
}

/**
 * UD: path part of the header fields from the WR's address vector, with
 * the conventions of the RC/UC path (roce_qp_table.c): SL as the 802.1Q
 * priority (annex A16.4), hop limit 0 replaced by the Linux default.
 */
static enum roce_err
req_ud_path_fields(const struct roce_qp *qp, const struct roce_ah_attr *ah,
		   struct roce_hdr_fields *f)
{
	const struct roce_device_config *cfg = &qp->dev->cfg;
	unsigned int sgid = ah->sgid_index;

	if (sgid >= RTE_DIM(cfg->gid) || !cfg->gid_valid[sgid])
		return ROCE_ERR_LOC_QP_OP;
	memset(f, 0, sizeof(*f));
	memcpy(f->dst_mac.addr_bytes, ah->dmac, RTE_ETHER_ADDR_LEN);
	memcpy(f->src_mac.addr_bytes, cfg->mac, RTE_ETHER_ADDR_LEN);
	f->vlan = cfg->vlan;
	f->vlan_tci = roce_vlan_tci(ah->sl & 7, roce_vlan_dei(cfg->vlan_tci),
				    roce_vlan_vid(cfg->vlan_tci));
	if (req_gid_is_v4(&ah->dgid) != req_gid_is_v4(&cfg->gid[sgid]))
		return ROCE_ERR_LOC_QP_OP;
	f->ip_ver = req_gid_is_v4(&ah->dgid) ? 4 : 6;
	f->tos = roce_cc_tos(qp->dev, ah->traffic_class);
	f->ttl = ah->hop_limit != 0 ? ah->hop_limit : ROCE_DEFAULT_HOP_LIMIT;
	f->flow_label = ah->flow_label;
	memcpy(f->sgid, cfg->gid[sgid].raw, sizeof(f->sgid));
	memcpy(f->dgid, ah->dgid.raw, sizeof(f->dgid));
	/* RoCEv2 source port: flow entropy, fixed per QP (annex A17.4.3) */
	f->udp_sport = (uint16_t)(0xc000 | (qp->qpn & 0x3fff));
	f->pkey = ROCE_DEFAULT_PKEY;
	return ROCE_OK;
}

/* req_op_tab[][][pos]: pos = first << 1 | last (MIDDLE, LAST, FIRST, ONLY) */
#define REQ_OP_POS(m, l, f, o) { (m), (l), (f), (o) }
#define REQ_OP_ALL(op) REQ_OP_POS(op, op, op, op)
#define REQ_OP_NONE REQ_OP_ALL(-1)
#define REQ_OP_SEND(b, last, only) REQ_OP_POS((b) + ROCE_OP_RC_SEND_MIDDLE, \
	(b) + (last), (b) + ROCE_OP_RC_SEND_FIRST, (b) + (only))
#define REQ_OP_WRITE(b, last, only) REQ_OP_POS((b) + ROCE_OP_RC_RDMA_WRITE_MIDDLE, \
	(b) + (last), (b) + ROCE_OP_RC_RDMA_WRITE_FIRST, (b) + (only))
#define REQ_OP_RC_UC(b) \
	[ROCE_WR_RDMA_WRITE] = REQ_OP_WRITE(b, ROCE_OP_RC_RDMA_WRITE_LAST, \
					    ROCE_OP_RC_RDMA_WRITE_ONLY), \
	[ROCE_WR_RDMA_WRITE_WITH_IMM] = REQ_OP_WRITE(b, \
		ROCE_OP_RC_RDMA_WRITE_LAST_IMM, ROCE_OP_RC_RDMA_WRITE_ONLY_IMM), \
	[ROCE_WR_SEND] = REQ_OP_SEND(b, ROCE_OP_RC_SEND_LAST, \
				     ROCE_OP_RC_SEND_ONLY), \
	[ROCE_WR_SEND_WITH_IMM] = REQ_OP_SEND(b, ROCE_OP_RC_SEND_LAST_IMM, \
					      ROCE_OP_RC_SEND_ONLY_IMM), \
	[ROCE_WR_LOCAL_INV] = REQ_OP_NONE, \
	[ROCE_WR_BIND_MW] = REQ_OP_NONE

/*
 * The BTH opcode of each packet position of a WR, by QP type (RC, UC, UD)
 * and WR opcode: one load per packet instead of a switch (req_opcode()).
 * -1: an operation the transport does not have (IETH on RC only, IBTA
 * 9.3.8; READ and atomics on RC only; UD is SEND ONLY, IBTA 9.8.2).
 */
static const int8_t req_op_tab[3][ROCE_WR_OPCODE_MAX][4] = {
	[ROCE_QPT_RC - ROCE_QPT_RC] = {
		REQ_OP_RC_UC(ROCE_OP_RC_SEND_FIRST),
		[ROCE_WR_RDMA_READ] = REQ_OP_ALL(ROCE_OP_RC_RDMA_READ_REQUEST),
		[ROCE_WR_ATOMIC_CMP_AND_SWP] = REQ_OP_ALL(ROCE_OP_RC_COMPARE_SWAP),
		[ROCE_WR_ATOMIC_FETCH_AND_ADD] = REQ_OP_ALL(ROCE_OP_RC_FETCH_ADD),
		[ROCE_WR_SEND_WITH_INV] = REQ_OP_SEND(ROCE_OP_RC_SEND_FIRST,
						      ROCE_OP_RC_SEND_LAST_INV,
						      ROCE_OP_RC_SEND_ONLY_INV),
	},
	[ROCE_QPT_UC - ROCE_QPT_RC] = {
		REQ_OP_RC_UC(ROCE_OP_UC_SEND_FIRST),
		[ROCE_WR_RDMA_READ] = REQ_OP_NONE,
		[ROCE_WR_ATOMIC_CMP_AND_SWP] = REQ_OP_NONE,
		[ROCE_WR_ATOMIC_FETCH_AND_ADD] = REQ_OP_NONE,
		[ROCE_WR_SEND_WITH_INV] = REQ_OP_NONE,
	},
	[ROCE_QPT_UD - ROCE_QPT_RC] = {
		[ROCE_WR_RDMA_WRITE] = REQ_OP_NONE,
		[ROCE_WR_RDMA_WRITE_WITH_IMM] = REQ_OP_NONE,
		[ROCE_WR_SEND] = REQ_OP_ALL(ROCE_OP_UD_SEND_ONLY),
		[ROCE_WR_SEND_WITH_IMM] = REQ_OP_ALL(ROCE_OP_UD_SEND_ONLY_IMM),
		[ROCE_WR_RDMA_READ] = REQ_OP_NONE,
		[ROCE_WR_ATOMIC_CMP_AND_SWP] = REQ_OP_NONE,
		[ROCE_WR_ATOMIC_FETCH_AND_ADD] = REQ_OP_NONE,
		[ROCE_WR_LOCAL_INV] = REQ_OP_NONE,
		[ROCE_WR_BIND_MW] = REQ_OP_NONE,
		[ROCE_WR_SEND_WITH_INV] = REQ_OP_NONE,
	},
};

/**
 * BTH opcode of a packet of @p wqe on a QP of @p type (IBTA 9.2.1 table
 * 38). @p first / @p last say where the packet lies in the message.
 * Returns -1 for an operation the transport does not have.
 */
static inline int
req_opcode(uint8_t type, const struct roce_send_wqe *wqe, bool first,
	   bool last)
{
	unsigned int t = (unsigned int)type - ROCE_QPT_RC;

	if (unlikely(t >= RTE_DIM(req_op_tab) ||
		     (unsigned int)wqe->opcode >= ROCE_WR_OPCODE_MAX))
		return -1;
	return req_op_tab[t][wqe->opcode][(unsigned int)first << 1 | last];
}

/**
 * Append @p len bytes at @p src to the packet, chaining mbufs of the
 * header pool when a segment is full. Each segment keeps REQ_TAIL_RESERVE
 * bytes free so that the pad and ICRC fit after whichever ends the data.
 */
static int
req_append(struct rte_mempool *mp, struct rte_mbuf *m, const uint8_t *src,
	   uint32_t len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);

	while (len > 0) {
		uint16_t room = rte_pktmbuf_tailroom(last);
		uint32_t n;

		if (room <= REQ_TAIL_RESERVE) {
			struct rte_mbuf *seg = rte_pktmbuf_alloc(mp);

			if (seg == NULL)
				return -ENOMEM;
			seg->data_off = 0;	/* no headers in later segments */
			if (rte_pktmbuf_tailroom(seg) <= REQ_TAIL_RESERVE ||
			    rte_pktmbuf_chain(m, seg) != 0) {
				rte_pktmbuf_free(seg);
				return -ENOSPC;
			}
			last = seg;
			continue;
		}
		n = RTE_MIN((uint32_t)(room - REQ_TAIL_RESERVE), len);
		memcpy(rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len),
		       src, n);
		last->data_len += n;
		m->pkt_len += n;
		src += n;
		len -= n;
	}
	return 0;
}

/**
 * Gather @p len bytes of the message from byte @p off into the packet:
 * inline data, or the SGEs checked through their lkeys (the key may have
 * been invalidated since posting: IBTA 10.6.3.1 checks at use).
 */
static enum roce_err
req_gather(struct req_ctx *c, uint32_t off, uint32_t len)
{
	struct roce_qp *qp = c->qp;
	const struct roce_send_wqe *wqe = c->wqe;
	struct rte_mempool *mp = qp->dev->cfg.hdr_pool;
	/*
	 * Zero-copy on RC only: an RC WQE completes when the peer has
	 * acknowledged the data, i.e. after the frame was read; UC/UD WQEs
	 * complete once handed to the worker, while the frame may still sit
	 * in a TX queue, so their payload is copied.
	 */
	bool zc = qp->type == ROCE_QPT_RC &&
		roce_txbuf_zc_ok(&qp->dev->cfg, len);
	struct roce_sge_walk w;

	if (len == 0)
		return ROCE_OK;
	if (wqe->num_sge == 0) {	/* inline bytes follow the WQE */
		if (req_append(mp, c->m, (const uint8_t *)wqe->sge + off,
			       len) != 0)
			return ROCE_ERR_GENERAL;
		return ROCE_OK;
	}
	roce_sge_walk_init(&w, wqe->sge, wqe->num_sge, off, len);
	while (roce_sge_walk_next(&w)) {
		struct roce_key_ref ref;
		uint32_t n = w.n;
		enum roce_err e;

		/* sge[0]: checked at post and unchanged since, one load */
		if (w.i != 0 || !roce_wqe_sge0_ref(wqe, w.off, &ref)) {
			e = roce_key_check_local(qp->dev, qp->pd,
						 wqe->sge[w.i].lkey, w.addr, n,
						 0, &ref);
			if (e != ROCE_OK)
				return e;
		}
		if (n == w.len && zc) {
			/*
			 * The whole payload is in this SGE: attach it, counted
			 * in the key until the driver frees the mbuf (a stale
			 * go-back-N copy may outlive the WR's completion:
			 * deregistration waits for it, ernic_mr_svc.c).
			 */
			struct roce_txbuf_count zcc =
				roce_key_ref_zc(qp->dev, &ref);
			int ret = roce_txbuf_attach_ref(
				roce_txbuf_pool(&qp->dev->cfg),
				roce_worker_zc_pf(qp->w), c->m, ref.host,
				n, roce_key_ref_iova(&ref, ref.host, n,
					roce_worker_iova_cache(qp->w)), &zcc);

			if (ret == 0) {
				qp->stats.tx_zc_pkts++;
				return ROCE_OK;
			}
			/* no zero-copy mbuf, no IOVA, chain too long: copy */
		}
		if (req_append(mp, c->m, ref.host, n) != 0)
			return ROCE_ERR_GENERAL;
		zc = false;	/* one range only: the rest is copied too */
	}
	/* SGEs shorter than the message length: post_send let it through */
	return w.len == 0 ? ROCE_OK : ROCE_ERR_LOC_LEN;
}

/**
 * RC: true when req.psn lies behind comp.psn, i.e. outside [comp.psn,
 * req.psn_hwm]. That happens when a cumulative ACK overtakes a go-back-N
 * resend: the responder had the PSNs already and its ACK of a duplicate
 * acknowledges up to its ePSN (IBTA 9.7.5.1.2), beyond what was resent.
 * The window offsets taken from comp.psn are then meaningless (a 24-bit
 * wrap), so the requester first moves forward to comp.psn.
 */
static inline bool
req_psn_behind_ack(const struct roce_qp *qp)
{
	return qp->type == ROCE_QPT_RC &&
	       roce_psn_offset(qp->req.psn, qp->comp.psn) >
	       roce_psn_offset(qp->req.psn_hwm, qp->comp.psn);
}

/* ------------------------------------------------------------------ */
/* States                                                             */
/* ------------------------------------------------------------------ */

/*
 * Go-back-N (IBTA 9.7.5.2): resend from comp.psn, the oldest PSN not
 * acknowledged, even when it lies inside a message: the WQE holding it is
 * found from its first_psn and the byte offset is (psn - first_psn) * MTU
 * (for a READ, the retried request asks only for the rest, IBTA 9.4.3).
 */
static enum req_state
req_rewind(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	uint32_t idx, from = qp->comp.psn;

	req->need_retry = false;
	if (qp->type != ROCE_QPT_RC)
		return REQ_GET_WQE;
	/* SR: a round that extends an earlier one resumes where it ended */
	if (req->sr_rewind_set &&
	    roce_psn_offset(req->sr_rewind, qp->comp.psn) <
	    roce_psn_offset(req->psn_hwm, qp->comp.psn))
		from = req->sr_rewind;
	req->sr_rewind_set = false;
	for (idx = qp->sq.cons; roce_idx_before(idx, req->wqe_hwm); idx++) {
		struct roce_send_wqe *wqe = roce_sq_wqe(qp, idx);
		uint32_t off;

		if (roce_wr_is_local(wqe->opcode) ||
		    wqe->state == ROCE_WQE_DONE || wqe->state == ROCE_WQE_ERROR)
			continue;
		off = roce_psn_offset(from, wqe->first_psn);
		if (off >= roce_wqe_npsn(wqe, c->mtu))
			continue;
		req->wqe_idx = idx;
		req->psn = from;
		req->offset = roce_wr_is_atomic(wqe->opcode) ? 0 : off * c->mtu;
		req->pkts_since_ackreq = 0;
		ROCE_LOG(DEBUG, req, "qp %u: go-back-N to psn %#x (wqe %u +%u)",
			 qp->qpn, req->psn, idx, req->offset);
		return REQ_GET_WQE;
	}
	/*
	 * Every PSN of every started WQE is acknowledged: nothing to resend.
	 * When an ACK overtook a resend, req.psn still points into the
	 * acknowledged range: the next WQE starts at comp.psn, after them.
	 */
	if (req_psn_behind_ack(qp)) {
		req->wqe_idx = req->wqe_hwm;
		req->psn = qp->comp.psn;
		req->offset = 0;
		req->pkts_since_ackreq = 0;
	}
	return REQ_GET_WQE;
}

static enum req_state
req_get_wqe(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	uint32_t idx = req->wqe_idx;

	if (roce_idx_before(idx, req->wqe_hwm)) {
		/* started before: continue it or resend it (go-back-N) */
		c->wqe = roce_sq_wqe(qp, idx);
		if (c->wqe->state == ROCE_WQE_ERROR)
			return REQ_EXIT;	/* waits to be retired in order */
		if (roce_wr_is_local(c->wqe->opcode) ||
		    c->wqe->state == ROCE_WQE_DONE)
			return REQ_NEXT_WQE;
		if (req->offset == 0)
			req->psn = c->wqe->first_psn;
		return REQ_GATE;
	}
	if (idx == __atomic_load_n(&qp->sq.prod, __ATOMIC_ACQUIRE))
		return REQ_EXIT;		/* SQ empty */
	/* SQD: WQEs not started wait for the move back to RTS (IBTA 10.3.1) */
	if (c->qp_state != ROCE_QPS_RTS)
		return REQ_EXIT;
	c->wqe = roce_sq_wqe(qp, idx);
	return REQ_ADMIT;
}

/*
 * A new WQE may start only when no READ or atomic is outstanding if it is
 * fenced (the fence indicator of a send WR, IBTA 10.8.3), and fewer than
 * max_rd_atomic READ/atomic are outstanding if it is one (the initiator
 * depth set at RTR->RTS, IBTA 11.2.5.2; the responder has only that many
 * resources for them).
 */
static enum req_state
req_admit(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	const struct roce_send_wqe *wqe = c->wqe;

	if ((wqe->send_flags & ROCE_SEND_FENCE) &&
	    req->rd_atomic_inflight > 0) {
		req->wait_fence = true;
		qp->stats.req_stalls++;
		return REQ_EXIT;
	}
	req->wait_fence = false;
	if (qp->type == ROCE_QPT_RC && roce_wr_is_rd_atomic(wqe->opcode)) {
		/* 0 would stall forever: a QP that posts a READ gets one */
		uint32_t max = RTE_MAX(qp->attr.max_rd_atomic, (uint8_t)1);

		if (req->rd_atomic_inflight >= max) {
			req->wait_rd_atomic = true;
			qp->stats.req_stalls++;
			return REQ_EXIT;
		}
	}
	req->wait_rd_atomic = false;
	return REQ_START;
}

/** Assign the PSNs of a new WQE and check it fits the transport. */
static enum req_state
req_start(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	struct roce_send_wqe *wqe = c->wqe;
	uint32_t npsn = roce_wqe_npsn(wqe, c->mtu);

	wqe->state = ROCE_WQE_PENDING;
	wqe->status = ROCE_OK;
	wqe->first_psn = req->psn;
	wqe->last_psn = roce_psn_add(req->psn, npsn - 1);
	req->wqe_hwm = req->wqe_idx + 1;
	req->offset = 0;
	if (qp->type == ROCE_QPT_RC && roce_wr_is_rd_atomic(wqe->opcode))
		req->rd_atomic_inflight++;	/* the completer takes it back */

	if (roce_wr_is_local(wqe->opcode))
		return REQ_LOCAL;
	if (req_opcode(qp->type, wqe, true, true) < 0 ||
	    (roce_wr_is_atomic(wqe->opcode) &&
	     (wqe->num_sge != 1 || wqe->sge[0].length < sizeof(uint64_t)))) {
		c->err = ROCE_ERR_LOC_QP_OP;
		return REQ_ERROR;
	}
	/* UD: a message is one packet (IBTA 9.8.2) */
	if ((qp->type == ROCE_QPT_UD && wqe->length > c->mtu) ||
	    wqe->length > ROCE_MAX_MSG_SIZE) {
		c->err = ROCE_ERR_LOC_LEN;
		return REQ_ERROR;
	}
	return REQ_GATE;
}

/*
 * LOCAL_INV and BIND_MW run when the requester reaches them, i.e. after
 * every earlier WQE was started; their completion is still reported in SQ
 * order by the completer (IBTA 10.8.3.1). A fenced one waited in ADMIT.
 */
static enum req_state
req_local(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_send_wqe *wqe = c->wqe;
	enum roce_err e;

	if (wqe->opcode == ROCE_WR_LOCAL_INV)
		e = roce_key_invalidate(qp->dev, qp->pd, wqe->imm_data);
	else
		e = roce_mw_bind(qp->dev, qp, wqe);
	if (e != ROCE_OK) {
		c->err = e;
		return REQ_ERROR;
	}
	wqe->state = ROCE_WQE_DONE;
	return REQ_NEXT_WQE;
}

/** RC send window: the loss window within the fixed max_inflight. */
static inline uint32_t
req_window(const struct roce_req_state *req)
{
	return RTE_MIN(req->cwnd, req->max_inflight);
}

/*
 * Per packet: the RC send window, min(cwnd, max_inflight) PSNs from
 * comp.psn, and the budget.
 */
static enum req_state
req_gate(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	const struct roce_send_wqe *wqe = c->wqe;

	if (c->sent >= ROCE_REQ_BUDGET ||
	    c->sent_bytes >= ROCE_REQ_BUDGET_BYTES) {
		c->reschedule = true;
		return REQ_EXIT;
	}
	/* SR: a resend round skips what the responder holds (roce_sr.h) */
	if (unlikely(qp->comp.sack.count != 0 ||
		     qp->req.sr_skip_from != req->psn_hwm) &&
	    roce_sr_on(qp) && !roce_wr_is_rd_atomic(wqe->opcode) &&
	    roce_psn_offset(req->psn, qp->comp.psn) <
	    roce_psn_offset(req->psn_hwm, qp->comp.psn) &&
	    roce_sr_req_skip(qp, req->psn))
		return REQ_SKIP;
	if (qp->type == ROCE_QPT_RC) {
		uint32_t inflight = roce_psn_offset(req->psn, qp->comp.psn);
		uint32_t need = 1;

		if (wqe->opcode == ROCE_WR_RDMA_READ)
			need = roce_msg_npkts(wqe->length - req->offset,
					      c->mtu);
		/* a READ larger than the window goes when nothing is out;
		 * SR: never more than the responder's reorder window */
		if (inflight > 0 && (inflight + need > req_window(req) ||
				     (inflight + need > ROCE_SR_WINDOW &&
				      roce_sr_on(qp)))) {
			qp->stats.req_stalls++;
			return REQ_EXIT;	/* the completer rings on progress */
		}
	}
	/* DCQCN rate limiter (roce_cc.c): its timer rings when tokens are back */
	if (!roce_cc_pace_ok(qp, qp->cc_limited, c->now))
		return REQ_EXIT;
	/* the port refuses frames: the poll keeps this QP's turn */
	if (unlikely(!roce_worker_tx_room(qp->w))) {
		c->held = true;
		return REQ_EXIT;
	}
	return REQ_BUILD;
}

/*
 * SR: a SEND/WRITE packet of a resend round that the responder holds
 * (SACKed) or that is still in flight: its PSN and bytes are passed over.
 */
static enum req_state
req_skip(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	const struct roce_send_wqe *wqe = c->wqe;

	c->payload = RTE_MIN(c->mtu, wqe->length - qp->req.offset);
	c->npsn = 1;
	c->last = qp->req.offset + c->payload == wqe->length;
	qp->stats.sr_skipped++;
	return REQ_ADVANCE;
}

/** Fill the BTH and extension header fields of the packet. */
static enum roce_err
req_fill_fields(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	const struct roce_send_wqe *wqe = c->wqe;
	struct roce_hdr_fields *f = &c->f;
	bool first = req->offset == 0;
	enum roce_err e;
	int op;

	if (qp->type == ROCE_QPT_UD) {
		e = req_ud_path_fields(qp, &wqe->ud.ah, f);
		if (e != ROCE_OK)
			return e;
		f->dqpn = wqe->ud.remote_qpn;
		/* IBTA 10.2.4: a Q_Key with the high bit set means the QP's */
		f->qkey = (wqe->ud.remote_qkey & 0x80000000u) ?
			qp->attr.qkey : wqe->ud.remote_qkey;
		f->src_qpn = qp->qpn;
	} else if (likely(qp->hdr_len != 0)) {
		/*
		 * The path's Ethernet/IP/UDP headers are in qp->hdr_tmpl
		 * (roce_build_mbuf_tmpl()): only the BTH and extension
		 * fields are needed, the rest of qp->path is not copied.
		 */
		f->se = false;
		f->mig = false;
		f->fecn = false;
		f->becn = false;
		f->ackreq = false;
		f->pkey = qp->pkey;
		f->dqpn = qp->dest_qpn;
	} else {
		*f = qp->path;	/* set with the AV by modify_qp */
		f->dqpn = qp->attr.dest_qp_num;
	}

	c->psn = req->psn;
	c->retrans = qp->type == ROCE_QPT_RC &&
		roce_psn_offset(req->psn, qp->comp.psn) <
		roce_psn_offset(req->psn_hwm, qp->comp.psn);
	switch (wqe->opcode) {
	case ROCE_WR_RDMA_READ:
		/* one request; the responder sends npsn packets (IBTA 9.4.3) */
		c->payload = 0;
		c->npsn = roce_msg_npkts(wqe->length - req->offset, c->mtu);
		c->last = true;
		f->va = wqe->rdma.va + req->offset;
		f->rkey = wqe->rdma.rkey;
		f->dma_len = wqe->length - req->offset;
		if (c->retrans && qp->comp.sack.count != 0 && roce_sr_on(qp)) {
			/* SR: ask only for the gap before data placed ahead */
			uint32_t gap = roce_sr_map_gap(&qp->comp.sack, req->psn);

			if (gap > 0 && gap < c->npsn) {
				c->npsn = gap;
				f->dma_len = gap * c->mtu;
			}
		}
		break;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		c->payload = 0;
		c->npsn = 1;
		c->last = true;
		f->va = wqe->atomic.va;
		f->rkey = wqe->atomic.rkey;
		if (wqe->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP) {
			f->compare = wqe->atomic.compare_add;
			f->swap_add = wqe->atomic.swap;
		} else {
			f->compare = 0;
			f->swap_add = wqe->atomic.compare_add;
		}
		break;
	default:	/* SEND, WRITE: segmented by the path MTU (IBTA 9.7.2) */
		c->payload = RTE_MIN(c->mtu, wqe->length - req->offset);
		c->npsn = 1;
		c->last = req->offset + c->payload == wqe->length;
		if (first && (wqe->opcode == ROCE_WR_RDMA_WRITE ||
			      wqe->opcode == ROCE_WR_RDMA_WRITE_WITH_IMM)) {
			/* RETH on FIRST/ONLY: the whole message (IBTA 9.4.2) */
			f->va = wqe->rdma.va;
			f->rkey = wqe->rdma.rkey;
			f->dma_len = wqe->length;
		}
		break;
	}
	op = req_opcode(qp->type, wqe, first, c->last);
	if (op < 0)
		return ROCE_ERR_LOC_QP_OP;
	f->srx = NULL;
	if (roce_sr_on(qp) && (wqe->opcode == ROCE_WR_RDMA_WRITE ||
			       wqe->opcode == ROCE_WR_RDMA_WRITE_WITH_IMM)) {
		/* SR: every WRITE packet names its own target (roce_sr.h) */
		roce_sr_req_encode(c->srx, wqe->rdma.va + req->offset,
				   wqe->rdma.rkey);
		f->srx = c->srx;
	}
	f->opcode = (uint8_t)op;
	f->psn = c->psn;
	if (c->last) {
		f->imm = rte_be_to_cpu_32(wqe->imm_data);
		f->inv_rkey = wqe->imm_data;
		/* SE on the last packet of a message the peer completes (9.2.2) */
		f->se = (wqe->send_flags & ROCE_SEND_SOLICITED) &&
			roce_opcode_has(f->opcode, ROCE_OPF_RCOMP);
	}
	/*
	 * AckReq (IBTA 9.2.8, 9.7.5.1.1): RC only, on the last packet of a
	 * message, at least every ackreq_every packets, and on the packet
	 * that fills the send window: a responder that ACKs only on AckReq
	 * (Linux rxe) would otherwise leave a window-limited requester
	 * waiting for the local ACK timeout.
	 */
	if (qp->type == ROCE_QPT_RC) {
		bool fills = roce_psn_offset(roce_psn_add(req->psn, c->npsn),
					     qp->comp.psn) >= req_window(req);

		req->pkts_since_ackreq++;
		if (c->last || fills ||
		    req->pkts_since_ackreq >= req->ackreq_every) {
			f->ackreq = true;
			req->pkts_since_ackreq = 0;
		}
	}
	return ROCE_OK;
}

static enum req_state
req_build(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	enum roce_err e;
	int ret;

	c->m = roce_worker_hdr_mbuf(qp->w);
	if (c->m == NULL) {
		qp->stats.tx_no_mbuf++;
		c->reschedule = true;
		return REQ_EXIT;
	}
	e = req_fill_fields(c);
	if (e == ROCE_OK)
		e = req_gather(c, qp->req.offset, c->payload);
	if (e == ROCE_ERR_GENERAL) {
		/* out of mbufs for the payload: not the WQE's fault */
		rte_pktmbuf_free(c->m);
		c->m = NULL;
		qp->stats.tx_no_mbuf++;
		c->reschedule = true;
		return REQ_EXIT;
	}
	if (e != ROCE_OK) {
		rte_pktmbuf_free(c->m);
		c->m = NULL;
		c->err = e;
		return REQ_ERROR;
	}
	if (qp->type != ROCE_QPT_UD && likely(qp->hdr_len != 0))
		ret = roce_build_mbuf_tmpl(c->m, qp->hdr_tmpl, qp->hdr_len,
					   &c->f);
	else
		ret = roce_build_mbuf(c->m, &c->f);
	if (ret == 0)
		ret = roce_icrc_fill_built(c->m);
	if (ret != 0) {
		ROCE_LOG(ERR, req, "qp %u: cannot build packet psn %#x: %d",
			 qp->qpn, c->psn, ret);
		rte_pktmbuf_free(c->m);
		c->m = NULL;
		c->err = ROCE_ERR_GENERAL;
		return REQ_ERROR;
	}
	return REQ_SEND;
}

static enum req_state
req_send(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;

	/* a READ request is charged with the response it asks for */
	roce_cc_charge(qp, qp->cc_limited, c->m->pkt_len +
		       (c->wqe->opcode == ROCE_WR_RDMA_READ ? c->f.dma_len +
			c->npsn * (qp->hdr_len + 20u) : 0), c->now);
	roce_worker_tx(qp->w, c->m);
	c->m = NULL;
	c->sent++;
	c->sent_bytes += c->payload;
	qp->stats.tx_pkts++;
	qp->stats.tx_bytes += c->payload;
	if (c->retrans) {
		qp->stats.retrans_pkts++;
		if (roce_sr_on(qp))
			qp->stats.sr_retx_pkts++;
		else
			qp->stats.gbn_retx_pkts++;
	}
	if (qp->type == ROCE_QPT_RC) {
		roce_sr_rtt_sent(qp, qp->req.psn, c->retrans, c->now);
		roce_comp_sent(qp, c->now);
	}
	return REQ_ADVANCE;
}

static enum req_state
req_advance(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	struct roce_req_state *req = &qp->req;
	struct roce_send_wqe *wqe = c->wqe;

	req->psn = roce_psn_add(req->psn, c->npsn);
	if (qp->type == ROCE_QPT_RC &&
	    roce_psn_offset(req->psn, qp->comp.psn) >
	    roce_psn_offset(req->psn_hwm, qp->comp.psn))
		req->psn_hwm = req->psn;
	if (wqe->opcode == ROCE_WR_RDMA_READ)
		req->offset = wqe->length;
	else
		req->offset += c->payload;
	if (!c->last) {
		wqe->state = ROCE_WQE_PENDING;
		return REQ_GATE;
	}
	/* RC waits for the ACK/response; UC and UD are done once sent */
	wqe->state = qp->type == ROCE_QPT_RC ? ROCE_WQE_SENT : ROCE_WQE_DONE;
	return REQ_NEXT_WQE;
}

static enum req_state
req_next_wqe(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;
	uint8_t state = c->wqe->state;

	qp->req.wqe_idx++;
	qp->req.offset = 0;
	if (state == ROCE_WQE_DONE) {
		roce_comp_retire(qp);
		if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) !=
		    c->qp_state)
			return REQ_EXIT;	/* the completion moved the QP */
	}
	return REQ_GET_WQE;
}

/*
 * A WQE that cannot be executed (bad opcode for the transport, key check
 * of an SGE, length) completes in error, in SQ order, and takes the QP to
 * ERR (RC) or SQE (UC/UD) when it is retired (IBTA 10.3.1: send queue
 * errors; the cause travels in the WR's completion).
 */
static enum req_state
req_error(struct req_ctx *c)
{
	struct roce_qp *qp = c->qp;

	ROCE_LOG(DEBUG, req, "qp %u: wqe %u failed: %s", qp->qpn,
		 qp->req.wqe_idx, roce_err_name(c->err));
	c->wqe->status = c->err;
	c->wqe->state = ROCE_WQE_ERROR;
	roce_comp_retire(qp);
	return REQ_EXIT;
}

int
roce_req_run(struct roce_qp *qp, uint64_t now)
{
	struct req_ctx c = {
		.qp = qp,
		.now = now,
		.mtu = roce_qp_mtu(qp),
		.qp_state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE),
	};
	enum req_state s;

	if (c.qp_state == ROCE_QPS_ERR || c.qp_state == ROCE_QPS_SQE) {
		/* WRs posted to either queue after the error complete as
		 * flushed (IBTA 10.3.1); the flush is cheap when both are empty */
		roce_qp_flush(qp);
		return 0;
	}
	if (c.qp_state != ROCE_QPS_RTS && c.qp_state != ROCE_QPS_SQD)
		return 0;
	if (qp->req.wait_rnr)
		return 0;	/* the RNR timer rings when it expires */
	/*
	 * Go-back-N asked, or an ACK overtook the resend: restart from
	 * comp.psn. Otherwise a new WQE would take stale PSNs and the window
	 * gate would stall on a wrapped offset, with no timer armed (nothing
	 * is unacknowledged) and no response left to ring the doorbell.
	 */
	s = qp->req.need_retry || req_psn_behind_ack(qp) ? REQ_REWIND :
							   REQ_GET_WQE;
	while (s != REQ_EXIT) {
		switch (s) {
		case REQ_REWIND:
			s = req_rewind(&c);
			break;
		case REQ_GET_WQE:
			s = req_get_wqe(&c);
			break;
		case REQ_ADMIT:
			s = req_admit(&c);
			break;
		case REQ_START:
			s = req_start(&c);
			break;
		case REQ_LOCAL:
			s = req_local(&c);
			break;
		case REQ_GATE:
			s = req_gate(&c);
			break;
		case REQ_SKIP:
			s = req_skip(&c);
			break;
		case REQ_BUILD:
			s = req_build(&c);
			break;
		case REQ_SEND:
			s = req_send(&c);
			break;
		case REQ_ADVANCE:
			s = req_advance(&c);
			break;
		case REQ_NEXT_WQE:
			s = req_next_wqe(&c);
			break;
		case REQ_ERROR:
			s = req_error(&c);
			break;
		case REQ_EXIT:
			break;
		}
	}
	if (c.reschedule)
		roce_worker_doorbell(qp->w, qp);
	if (c.qp_state == ROCE_QPS_SQD && qp->sq_draining &&
	    !roce_idx_before(qp->sq.cons, qp->req.wqe_hwm))
		roce_qp_check_drained(qp);
	return unlikely(c.held) ? -EBUSY : (int)c.sent;
}

void
roce_req_cwnd_ack(struct roce_qp *qp, uint32_t acked)
{
	struct roce_req_state *req = &qp->req;

	if (req->cwnd < req->ssthresh) {
		/* slow start: one more PSN per PSN acknowledged */
		uint32_t n = RTE_MIN(acked, req->ssthresh - req->cwnd);

		req->cwnd += n;
		acked -= n;
	}
	/* congestion avoidance: one more PSN per window acknowledged */
	req->cwnd_acked += acked;
	while (req->cwnd > 0 && req->cwnd_acked >= req->cwnd) {
		req->cwnd_acked -= req->cwnd;
		req->cwnd++;
	}
	if (req->cwnd >= req->max_inflight) {
		req->cwnd = req->max_inflight;
		req->cwnd_acked = 0;
	}
}

void
roce_req_cwnd_cut(struct roce_qp *qp, bool timeout)
{
	struct roce_req_state *req = &qp->req;

	req->ssthresh = RTE_MAX(req_window(req) / 2,
				(uint32_t)ROCE_REQ_CWND_MIN);
	req->cwnd_acked = 0;
	if (timeout) {
		req->cwnd = ROCE_REQ_CWND_MIN;
		qp->stats.cwnd_timeouts++;
	} else {
		req->cwnd = req->ssthresh;
		qp->stats.cwnd_cuts++;
	}
}

void
roce_req_cwnd_ecn(struct roce_qp *qp, uint32_t alpha, uint32_t used)
{
	struct roce_req_state *req = &qp->req;
	uint32_t w, inflight;

	/* from what was used of the window (the most in flight lately),
	 * not a window the application never filled */
	inflight = RTE_MAX(roce_psn_offset(req->psn, qp->comp.psn), used);
	inflight = RTE_MAX(inflight, (uint32_t)ROCE_REQ_CWND_MIN);
	w = RTE_MIN(req_window(req), inflight);
	alpha = RTE_MIN(alpha, 1024u);
	w -= (uint32_t)((uint64_t)w * alpha >> 11);
	req->cwnd = RTE_MAX(w, (uint32_t)ROCE_REQ_CWND_MIN);
	req->ssthresh = req->cwnd;
	req->cwnd_acked = 0;
}

void
roce_req_reset(struct roce_qp *qp)
{
	struct roce_req_state *req = &qp->req;
	uint32_t ackreq_every = req->ackreq_every;
	uint32_t max_inflight = req->max_inflight;

	memset(req, 0, sizeof(*req));
	req->wqe_idx = qp->sq.cons;
	req->wqe_hwm = qp->sq.cons;
	req->psn = roce_psn_mask(qp->attr.sq_psn);
	req->psn_hwm = req->psn;
	/* knobs survive a reset; 0 means the default */
	req->ackreq_every = ackreq_every != 0 ? ackreq_every :
		ROCE_REQ_ACKREQ_EVERY;
	req->max_inflight = max_inflight != 0 ?
		RTE_MIN(max_inflight, (uint32_t)ROCE_REQ_MAX_INFLIGHT_LIMIT) :
		ROCE_REQ_MAX_INFLIGHT;
	req->cwnd = RTE_MIN((uint32_t)ROCE_REQ_CWND_INIT, req->max_inflight);
	req->ssthresh = req->max_inflight;
}

void
roce_engines_reset(struct roce_qp *qp)
{
	roce_req_reset(qp);
	roce_comp_reset(qp);
	roce_resp_reset(qp);
	roce_sr_reset(qp);
	roce_cc_reset(qp);
}
