/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_QP_H
#define ROCE_QP_H

/*
 * Internal QP layout: the object roce_qp.c creates and modifies and the
 * three engines (requester, completer, responder) run on. Each engine owns
 * its own state block below; the worker that owns the QP is the only
 * thread that touches them.
 */

#include <assert.h>
#include <stddef.h>

#include "roce_build.h"
#include "roce_cc_priv.h"
#include "roce_priv.h"
#include "roce_sr.h"

/* ---- requester (roce_req.c): turns send WQEs into request packets ---- */
struct roce_req_state {
	uint32_t wqe_idx;	/**< SQ index of the WQE being sent */
	uint32_t psn;		/**< next PSN to send */
	uint32_t offset;	/**< bytes of the current WQE already sent */
	uint32_t pkts_since_ackreq; /**< forces AckReq at least every N packets */
	uint32_t rd_atomic_inflight; /**< READ/atomic WQEs awaiting responses */
	bool need_retry;	/**< completer asked for go-back-N from comp.psn */
	bool wait_fence;	/**< fenced WQE waits for READ/atomic completion */
	bool wait_rd_atomic;	/**< stalled: max_rd_atomic READ/atomic outstanding */
	bool wait_rnr;		/**< RNR NAK timer running: send nothing */
	uint32_t wqe_hwm;	/**< SQ index of the first WQE never started */
	uint32_t psn_hwm;	/**< PSN after the highest PSN ever sent */
	uint32_t ackreq_every;	/**< RC: AckReq at least every N packets (roce_engine.h) */
	uint32_t max_inflight;	/**< RC: most unacknowledged PSNs (roce_engine.h) */
	uint32_t cwnd;		/**< RC: loss window in PSNs (roce_engine.h) */
	uint32_t ssthresh;	/**< RC: slow start below, +1 per window above */
	uint32_t cwnd_acked;	/**< RC: PSNs acknowledged toward the next +1 */
	/** SR: in a round, PSNs from here to psn_hwm are not resent (roce_sr.h) */
	uint32_t sr_skip_from;
	uint32_t sr_rewind;	/**< SR: the next round starts here... */
	bool sr_rewind_set;	/**< ...instead of at comp.psn */
};

/*
 * ---- completer (roce_comp.c): ACKs, NAKs, read responses, timeouts ----
 * The first line holds what the requester reads for every packet too:
 * the window's start, whether the ACK timer runs, the SR map's count
 * (the map's bits follow on the second line).
 */
struct roce_comp_state {
	uint32_t psn;		/**< oldest PSN not yet acknowledged */
	uint8_t retry_left;	/**< transport retries left for the current PSN */
	uint8_t rnr_retry_left;	/**< RNR retries left (7: infinite) */
	bool retry_pending;	/**< no progress since retry_psn (one round a PSN) */
	bool tlp_done;		/**< no progress since tlp_psn (one probe a PSN) */
	uint32_t rd_offset;	/**< bytes of the current READ response placed */
	uint32_t retry_psn;	/**< go-back-N already asked from this PSN */
	uint32_t tlp_psn;	/**< SR: tail-loss probe sent at this comp.psn */
	struct roce_timer retrans;	/**< local ACK timeout */
	/** SR: PSNs from comp.psn on known delivered (SACK, READ data placed) */
	struct roce_sr_map sack;
	/** SR: retrans runs early (RTO_low, RTT); the full timeout is due then */
	uint64_t rto_deadline;
	/*
	 * SR: the round trip, timed on one PSN sent once at a time (Karn: a
	 * retransmission drops the timing), smoothed as TCP does (RFC 6298)
	 */
	uint64_t rtt_tsc;	/**< when rtt_psn was sent (0: none timed) */
	uint64_t srtt;		/**< smoothed round trip, TSC (0: no sample) */
	uint64_t rttvar;	/**< its mean deviation */
	uint32_t rtt_psn;
	uint32_t early_psn;	/**< SR: early rounds counted at this comp.psn */
	uint8_t early_n;	/**< ...so many (the next waits 2^n RTOs) */
	struct roce_timer rnr;		/**< RNR wait before resending */
};

/* ---- responder (roce_resp.c): executes inbound requests ---- */

/** One responder resource: a READ or atomic kept for duplicate replay. */
struct roce_resp_res {
	uint8_t opcode;		/**< BTH opcode of the request */
	uint32_t first_psn;	/**< PSN of the request */
	uint32_t last_psn;	/**< last PSN of its response */
	uint64_t va;
	uint32_t rkey;
	uint32_t length;
	uint32_t start_psn;	/**< READ: PSN of the request being answered (replay) */
	uint32_t cur_psn;	/**< READ: next response PSN to send */
	uint32_t cur_off;	/**< READ: next response byte */
	uint32_t stop_psn;	/**< READ: last PSN to send now (SR gap replay) */
	uint64_t atomic_orig;	/**< atomic: the original value returned */
	bool replay;		/**< being resent as a duplicate response */
	bool pending;		/**< response packets left to send */
	uint32_t msn;		/**< MSN carried by its AETHs */
	uint8_t *host;		/**< READ: host address of va (checked) */
	struct roce_key_ref ref;	/**< READ: its key, re-checked per packet */
};

/*
 * In the order a WRITE reads it: sequence, ACK and the message's target
 * on the first line; the R_Key cache and the SR target on the second;
 * the SR reorder map (every packet asks its count) and the READ/atomic
 * resources' count (every run asks it) on the third; the receive side
 * after.
 */
struct roce_resp_state {
	uint32_t epsn;		/**< expected PSN */
	uint32_t msn;		/**< message sequence number (IBTA 9.7.5.1.3) */
	uint8_t last_opcode;	/**< previous request opcode, for sequencing */
	bool nak_sent;		/**< one NAK per sequence error (IBTA 9.7.5.1.2) */
	bool in_message;	/**< between FIRST and LAST of a multi-packet message */
	bool drop_message;	/**< UC: rest of a broken message is dropped */
	/* ACK coalescing: ack_pending sends at the next output, unacked
	 * packets without one wait for ack_timer (roce_resp.c step_ack) */
	bool ack_pending;
	uint8_t ack_syndrome;
	bool in_resp_list;
	bool rwqe_from_srq;
	uint32_t ack_psn;
	uint16_t fatal;		/**< enum roce_err: NAK then ERR once output drained */
	uint16_t unacked;	/**< packets since the last ACK sent */
	/* current inbound WRITE */
	uint32_t write_len;	/**< WRITE: DMA length of the message */
	uint32_t write_off;	/**< WRITE: bytes placed so far */
	struct roce_key_ref wref;	/**< WRITE: checked target */
	struct roce_qp *resp_next;	/**< worker's responder list link */
	/* second line */
	struct roce_key_cache rkc;	/**< last R_Key that passed */
	uint64_t va;		/**< WRITE: the message's target (RETH VA) */
	uint32_t rkey;		/**< WRITE: the message's R_Key */
	uint32_t recv_off;	/**< SEND: bytes placed so far */
	/* selective repeat (roce_sr.c): WRITE packets held ahead of epsn */
	struct roce_sr_map ooo;
	/* READ/atomic resources (max_dest_rd_atomic entries) */
	struct roce_resp_res *res;
	uint32_t res_head;	/**< oldest */
	uint32_t res_count;
	uint32_t res_cap;
	/* current inbound SEND */
	struct roce_recv_wqe *rwqe;	/**< SEND: receive WQE being filled */
	struct roce_recv_wqe *srq_wqe;	/**< copy of the SRQ WQE being filled */
	struct roce_key_cache lkc;	/**< last receive L_Key that passed */
	uint8_t ooo_op[ROCE_SR_WINDOW];		/**< SR: held packets' opcodes */
	uint32_t ooo_len[ROCE_SR_WINDOW];	/**< FIRST: DMA length, else payload */
	struct roce_timer ack_timer;	/**< a held ACK goes when it fires */
};

/**
 * Bytes of the prebuilt path headers: Ethernet, 802.1Q, IPv6, UDP (66),
 * rounded up to 8.
 */
#define ROCE_QP_TMPL_MAX \
	RTE_ALIGN_CEIL(ROCE_ETH_HLEN + ROCE_VLAN_HLEN + ROCE_IPV6_HLEN + \
		       ROCE_UDP_HLEN, 8)

struct roce_qp {
	/* hot, read by RX dispatch and every engine */
	uint32_t qpn;
	uint8_t type;			/**< enum roce_qp_type */
	uint8_t state;			/**< enum roce_qp_state, atomic */
	uint8_t sq_draining;		/**< SQD: 1 while draining */
	uint8_t in_ready_list;		/**< worker: queued for the requester */
	struct roce_qp *ready_next;	/**< worker: ready list link */
	uint32_t doorbell;		/**< poster -> worker: 1 when rung */
	uint32_t mtu;			/**< path MTU in bytes */
	struct roce_worker *w;
	struct roce_device *dev;
	struct roce_pd *pd;
	struct roce_cq *scq, *rcq;

	/*
	 * What every packet of an RC/UC QP reads of the path and the
	 * attributes, two cache lines of their own: the prebuilt
	 * Ethernet/IP/UDP headers (roce_build.h) and copies of the fields
	 * of qp->path, qp->attr and qp->init that packets read, which lie
	 * on six lines there. create_qp
	 * (sig_all, srq) and modify_qp (roce_qp_table.c, qp_hot_sync())
	 * write them with those; nothing else does, but for cc_limited and
	 * cc_window.
	 */
	uint8_t hdr_tmpl[ROCE_QP_TMPL_MAX] __rte_cache_aligned;
	uint16_t hdr_len;
	uint16_t udp_sport;		/**< entropy for ECMP, fixed per QP */
	uint16_t pkey;			/**< path.pkey */
	uint8_t sr;			/**< RC with selective repeat (roce_sr_on()) */
	uint8_t sig_all;		/**< init.sq_sig_all */
	uint32_t dest_qpn;		/**< attr.dest_qp_num */
	int access;			/**< attr.qp_access_flags */
	uint8_t dgid[16];		/**< path.dgid: the peer, checked per packet */
	uint8_t timeout;		/**< attr.timeout (local ACK timeout) */
	uint8_t retry_cnt;		/**< attr.retry_cnt */
	uint8_t rnr_retry;		/**< attr.rnr_retry */
	/** the DCQCN rate limiter is engaged (roce_cc.c, worker-written) */
	uint8_t cc_limited;
	/** the ECN window runs (roce_cc.c, worker-written) */
	uint8_t cc_window;
	struct roce_srq *srq;		/**< init.srq: the ACK's credit field */
	/* per-QP counters, the per-message ones on their first line */
	struct roce_qp_stats stats __rte_cache_aligned;

	struct roce_wq sq;
	struct roce_wq rq;		/**< unused when srq != NULL */

	/* the engines' states, each from a line of its own */
	struct roce_req_state req __rte_cache_aligned;
	struct roce_comp_state comp __rte_cache_aligned;
	struct roce_resp_state resp __rte_cache_aligned;
	struct roce_cc_qp cc;		/**< congestion control (roce_cc.c) */

	/* attributes as set by modify_qp (query_qp returns them) */
	struct roce_qp_attr attr;
	struct roce_qp_init_attr init;
	/**
	 * RC/UC path as builder fields (roce_qp_table.c sets it with the AV at
	 * INIT->RTR or SQD->SQD/RTS): the requester copies it and sets opcode,
	 * PSN, AckReq and extension fields per packet (roce_build_mbuf()).
	 */
	struct roce_hdr_fields path;

	uint32_t err_cause;		/**< enum roce_err that moved the QP to ERR/SQE */
	bool flush_done;
	/** Type 2 MWs bound to this QP, an upper bound (atomic; roce_mr.c) */
	uint32_t mw_bound;
	void *user;			/**< qp_context */
	/* destroyed, waiting for its grace period (roce_qp.c, ctl_lock) */
	struct roce_qp *limbo_next;
	uint64_t retire_epoch;
};

/*
 * What a 4 KB WRITE reads of its QP, on each side (the misses a message
 * costs with more QPs than the caches hold): the first line; the path
 * block; the counters' first line; the SQ's or RQ's two; the requester's
 * line and the completer's first, or the responder's first three.
 */
static_assert(offsetof(struct roce_qp, hdr_tmpl) == RTE_CACHE_LINE_SIZE,
	      "the path block follows the first line");
static_assert(offsetof(struct roce_qp, srq) + sizeof(void *) <=
	      offsetof(struct roce_qp, hdr_tmpl) + 2 * RTE_CACHE_LINE_SIZE,
	      "the per-packet path fields fit two cache lines");
static_assert(sizeof(struct roce_req_state) <= RTE_CACHE_LINE_SIZE,
	      "the requester's state fits one cache line");
static_assert(offsetof(struct roce_comp_state, sack) +
	      offsetof(struct roce_sr_map, count) + sizeof(uint32_t) <=
	      RTE_CACHE_LINE_SIZE,
	      "the completer's fields the requester reads fit its first line");
static_assert(offsetof(struct roce_resp_state, resp_next) + sizeof(void *) <=
	      RTE_CACHE_LINE_SIZE &&
	      offsetof(struct roce_resp_state, recv_off) + sizeof(uint32_t) <=
	      2 * RTE_CACHE_LINE_SIZE &&
	      offsetof(struct roce_resp_state, res_cap) + sizeof(uint32_t) <=
	      3 * RTE_CACHE_LINE_SIZE,
	      "a WRITE's responder fields fit three cache lines");
static_assert(offsetof(struct roce_qp_stats, tx_zc_pkts) + sizeof(uint64_t) <=
	      RTE_CACHE_LINE_SIZE,
	      "the per-message counters fit the first line of the stats");

/**
 * True when @p qp runs selective repeat (RC with the attribute set,
 * roce_sr.h); inline: the requester asks it several times a packet.
 */
static inline bool
roce_sr_on(const struct roce_qp *qp)
{
	return qp->sr != 0;
}

/* ---- entry points between the QP object and the engines ---- */

/**
 * Send side (requester/completer): move @p qp to ERR (RC, or any QP on a
 * fatal cause: ROCE_ERR_FATAL, _CQ_OVERFLOW, _GENERAL, raising
 * ROCE_EVENT_QP_FATAL) or to SQE (UC/UD), and flush. The failed WQE either
 * was already completed with its cause and retired, or is still in the SQ
 * with state ROCE_WQE_ERROR and status = cause: the flush then completes
 * it with its cause, then the later ones as flushed (IBTA 10.3.1).
 * Worker only; no-op in RESET and ERR.
 */
void roce_qp_error(struct roce_qp *qp, enum roce_err cause);

/**
 * Receive side (responder): move @p qp to ERR and flush, raising the
 * affiliated event of the cause (IBTA 11.6.3): LOC_ACCESS/REM_ACCESS ->
 * ROCE_EVENT_QP_ACCESS_ERR; REM_INV_REQ, REM_INV_RD_REQ, LOC_LEN ->
 * ROCE_EVENT_QP_REQ_ERR; anything else -> ROCE_EVENT_QP_FATAL. UC and UD
 * too go to ERR here (SQE is for send-side errors only). A receive WQE
 * that carries the cause must have been completed and retired by the
 * responder before the call (resp.rwqe cleared). Worker only.
 */
void roce_qp_recv_error(struct roce_qp *qp, enum roce_err cause);

/**
 * Complete every outstanding WQE with ROCE_WC_WR_FLUSH_ERR (signaled or
 * not), in queue order: the SQ in SQE and ERR, the RQ (or the SRQ WQE the
 * responder holds) in ERR. A send WQE in state ROCE_WQE_ERROR completes
 * with its own status instead. Idempotent; later posts are flushed by
 * calling it again: the requester calls it from roce_req_run() when a
 * doorbell finds the QP in SQE or ERR. Worker only.
 */
void roce_qp_flush(struct roce_qp *qp);

/**
 * SQD: once no send WQE is in flight (sq.cons == req.wqe_hwm: every WQE
 * the requester started is retired), leave the draining sub-state and raise
 * ROCE_EVENT_SQ_DRAINED when en_sqd_async_notify was set (IBTA 10.3.1, SQD).
 * Cheap no-op in any other state: engines call it after retiring send
 * WQEs. Worker only.
 */
void roce_qp_check_drained(struct roce_qp *qp);

/**
 * The legal transition table (roce_qp_table.c, IBTA 10.3.1 / 11.2.5.2):
 * false when @p from -> @p to is illegal for @p type, else the required
 * and optional attribute masks (ROCE_QP_STATE is always required).
 */
bool roce_qp_trans_masks(enum roce_qp_type type, enum roce_qp_state from,
			 enum roce_qp_state to, uint32_t *req, uint32_t *opt);

/**
 * Requester: send what the SQ allows; returns packets generated, or
 * -EBUSY when the port refused frames (roce_worker_tx_room()) before the
 * QP was done: the caller keeps its turn for the next poll.
 */
int roce_req_run(struct roce_qp *qp, uint64_t now);

/**
 * Completer: an ACK, NAK, READ response or atomic ACK arrived. The worker
 * has checked ICRC, QPN owner and QP state; it frees @p m after the call
 * (engines copy what they keep and never free or keep @p m).
 */
void roce_comp_rx(struct roce_qp *qp, struct rte_mbuf *m,
		  const void *pkt /* struct roce_pkt */, uint64_t now);

/** Responder: a request arrived (same @p m ownership as roce_comp_rx()). */
void roce_resp_rx(struct roce_qp *qp, struct rte_mbuf *m,
		  const void *pkt /* struct roce_pkt */, uint64_t now);

/**
 * Responder: send pending READ responses, atomic ACKs and the coalesced
 * ACK/NAK; re-queues itself on the worker while output remains, except
 * when the port refused frames (roce_worker_tx_room()): then it returns
 * -EBUSY and the caller keeps its turn for the next poll.
 */
int roce_resp_run(struct roce_qp *qp, uint64_t now);

/** Responder: clear its state (RESET->INIT; epsn from attr.rq_psn at RTR). */
void roce_resp_reset(struct roce_qp *qp);

/**
 * Responder, on flush (roce_qp_flush() in ERR): complete the receive WQE it
 * holds from the SRQ with ROCE_WC_WR_FLUSH_ERR, so a message cut by an
 * error outside the responder loses no WQE, and forget the message in
 * progress. False when that completion was lost to a full CQ (counted).
 * Worker only.
 */
bool roce_resp_flush_held(struct roce_qp *qp);

/** Responder: disarm the held ACK's timer (reset, destroy; worker). */
void roce_resp_stop(struct roce_qp *qp);
/** Responder: free what roce_resp_reset()/the engine allocated (destroy). */
void roce_resp_fini(struct roce_qp *qp);

/** Reset engine state for RESET->INIT and apply PSNs at RTR/RTS. */
void roce_engines_reset(struct roce_qp *qp);

#endif /* ROCE_QP_H */
