/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker: RX dispatch to the QP engines, the poll loop (control
 * requests, timers, doorbells, responders, requesters, held back while the
 * port refuses frames), TX batching and roce_worker_exec().
 */
#include <errno.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "roce_icrc_priv.h"
#include "roce_parse.h"
#include "roce_qp.h"
#include "roce_txbuf.h"
#include "roce_worker.h"

static const char *const worker_cnt_names[ROCE_WCNT_MAX] = {
	[ROCE_WCNT_RX_PKTS] = "rx_pkts",
	[ROCE_WCNT_RX_ACCEPTED] = "rx_accepted",
	[ROCE_WCNT_RX_ICRC_ERR] = "rx_icrc_err",
	[ROCE_WCNT_RX_CNP] = "rx_cnp",
	[ROCE_WCNT_RX_CNP_IGNORED] = "rx_drop_cnp_no_qp",
	[ROCE_WCNT_RX_CE] = "rx_ce",
	[ROCE_WCNT_TX_CNP] = "tx_cnp",
	[ROCE_WCNT_CNP_COALESCED] = "cnp_coalesced",
	[ROCE_WCNT_RX_UNKNOWN_QPN] = "rx_drop_unknown_qpn",
	[ROCE_WCNT_RX_QP_OTHER_WORKER] = "rx_drop_qp_other_worker",
	[ROCE_WCNT_RX_BAD_TRANSPORT] = "rx_drop_bad_transport",
	[ROCE_WCNT_RX_QP_NOT_READY] = "rx_drop_qp_reset_init",
	[ROCE_WCNT_RX_QP_ERR] = "rx_drop_qp_err",
	[ROCE_WCNT_RX_RESP_NOT_RTS] = "rx_drop_resp_not_rts",
	[ROCE_WCNT_RX_GSI] = "rx_gsi",
	[ROCE_WCNT_RX_GSI_NO_HANDLER] = "rx_drop_gsi_no_handler",
	[ROCE_WCNT_RX_QP0] = "rx_drop_qp0",
	[ROCE_WCNT_RX_BAD_PKEY] = "rx_drop_bad_pkey",
	[ROCE_WCNT_RX_BAD_SRC] = "rx_drop_bad_src",
	[ROCE_WCNT_TX_PKTS] = "tx_pkts",
	[ROCE_WCNT_TX_REFUSED] = "tx_refused",
	[ROCE_WCNT_TX_DROP_FULL] = "tx_drop_full",
	[ROCE_WCNT_TX_HELD] = "tx_held",
	[ROCE_WCNT_DOORBELLS] = "doorbells",
	[ROCE_WCNT_DOORBELL_OVERFLOW] = "doorbell_overflow",
	[ROCE_WCNT_CTL_REQS] = "ctl_reqs",
	[ROCE_WCNT_TIMERS] = "timers_expired",
	[ROCE_WCNT_REQ_RUNS] = "req_runs",
	[ROCE_WCNT_RESP_RUNS] = "resp_runs",
	[ROCE_WCNT_RESP_DUP] = "resp_dup_requests",
	[ROCE_WCNT_RESP_OUT_OF_SEQ] = "resp_out_of_seq",
	[ROCE_WCNT_RESP_SEQ_NAK] = "resp_psn_seq_naks",
	[ROCE_WCNT_RESP_OOS_DROP] = "resp_drop_out_of_seq",
	[ROCE_WCNT_RESP_BAD_OPSEQ] = "resp_drop_bad_opcode_seq",
	[ROCE_WCNT_RESP_BAD_LEN] = "resp_drop_bad_length",
	[ROCE_WCNT_RESP_RNR_NAK] = "resp_rnr_naks",
	[ROCE_WCNT_RESP_NO_WQE_DROP] = "resp_drop_no_recv_wqe",
	[ROCE_WCNT_RESP_REM_ACCESS] = "resp_rem_access_err",
	[ROCE_WCNT_RESP_INV_REQ] = "resp_invalid_req",
	[ROCE_WCNT_RESP_REM_OP] = "resp_rem_op_err",
	[ROCE_WCNT_RESP_LOC_LEN] = "resp_loc_len_err",
	[ROCE_WCNT_RESP_QKEY_VIOL] = "resp_drop_qkey_violation",
	[ROCE_WCNT_RESP_UC_MSG_DROP] = "resp_drop_uc_broken_msg",
	[ROCE_WCNT_RESP_RD_ATOMIC_FULL] = "resp_rd_atomic_full",
	[ROCE_WCNT_RESP_DUP_NO_RES] = "resp_drop_dup_no_resource",
	[ROCE_WCNT_RESP_ACKS] = "resp_acks",
	[ROCE_WCNT_RESP_ACKS_TIMED] = "resp_acks_timed",
	[ROCE_WCNT_RESP_READ_PKTS] = "resp_read_resp_pkts",
	[ROCE_WCNT_RESP_ATOMIC_ACKS] = "resp_atomic_acks",
	[ROCE_WCNT_RESP_NO_MBUF] = "resp_no_mbuf",
	[ROCE_WCNT_RESP_CQ_OVERFLOW] = "resp_cq_overflow",
};





void
roce_worker_set_gsi_handler(struct roce_worker *w, roce_gsi_handler_t cb,
			    void *ctx)
{
	w->gsi_ctx = ctx;
	w->gsi_cb = cb;
}

/* An MPSC ring in zmalloc'ed memory: no global name registration. */
static struct rte_ring *
worker_ring_new(const char *name, uint32_t min_entries, int socket)
{
	uint32_t count = rte_align32pow2(min_entries + 1);
	ssize_t sz = rte_ring_get_memsize(count);
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	r = rte_zmalloc_socket(name, sz, RTE_CACHE_LINE_SIZE, socket);
	if (r == NULL)
		return NULL;
	if (rte_ring_init(r, name, count, RING_F_SC_DEQ) != 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

struct roce_worker *
roce_worker_create(struct roce_device *dev, roce_tx_burst_t tx, void *tx_ctx)
{
	return roce_worker_create_socket(dev, tx, tx_ctx, SOCKET_ID_ANY);
}

struct roce_worker *
roce_worker_create_socket(struct roce_device *dev, roce_tx_burst_t tx,
			  void *tx_ctx, int socket)
{
	struct roce_worker *w;
	uint32_t max_qp;

	if (dev == NULL || tx == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (socket == SOCKET_ID_ANY)
		socket = dev->cfg.socket_id;
	max_qp = dev->qpn_mask + 1;
	w = rte_zmalloc_socket("roce_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			       socket);
	if (w == NULL)
		goto nomem;
	w->dev = dev;
	w->tx = tx;
	w->tx_ctx = tx_ctx;
	w->socket = socket;
	/*
	 * per QP: retransmit, RNR wait, DCQCN increase, pacing wake-up and
	 * the responder's held ACK
	 */
	if (roce_timers_init(&w->timers, 5 * max_qp + 64, socket) != 0)
		goto nomem;
	/* a QP is in the doorbell ring at most once (its doorbell flag) */
	w->db_ring = worker_ring_new("roce_db", max_qp, socket);
	w->ctl_ring = worker_ring_new("roce_ctl", ROCE_WORKER_CTL_RING, socket);
	if (w->db_ring == NULL || w->ctl_ring == NULL)
		goto nomem;
	w->qs_seen = ROCE_QS_OFFLINE;	/* a reader from its first poll */
	roce_mbuf_pf_init(&w->hdr_pf, dev->cfg.hdr_pool);
	roce_mbuf_pf_init(&w->zc_pf, roce_txbuf_pool(&dev->cfg));
	rte_spinlock_lock(&dev->ctl_lock);
	dev->nb_worker++;
	w->qs_next = dev->qs_workers;
	dev->qs_workers = w;
	rte_spinlock_unlock(&dev->ctl_lock);
	return w;
nomem:
	if (w != NULL) {
		roce_timers_fini(&w->timers);
		rte_free(w->db_ring);
		rte_free(w->ctl_ring);
		rte_free(w);
	}
	ROCE_LOG(ERR, verbs, "%s: no memory for a worker", dev->name);
	rte_errno = ENOMEM;
	return NULL;
}

int
roce_worker_destroy(struct roce_worker *w)
{
	struct roce_worker **pw;
	uint16_t i;

	if (w == NULL)
		return -EINVAL;
	if (__atomic_load_n(&w->refcnt, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;
	for (i = 0; i < w->tx_n; i++)
		rte_pktmbuf_free(w->tx_buf[i]);
	rte_spinlock_lock(&w->dev->ctl_lock);
	w->dev->nb_worker--;
	for (pw = &w->dev->qs_workers; *pw != NULL; pw = &(*pw)->qs_next)
		if (*pw == w) {
			*pw = w->qs_next;
			break;
		}
	rte_spinlock_unlock(&w->dev->ctl_lock);
	roce_timers_fini(&w->timers);
	rte_free(w->db_ring);
	rte_free(w->ctl_ring);
	rte_free(w);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Thread binding and control requests                                */
/* ------------------------------------------------------------------ */

/* Record the polling thread and the time of this call. */
static inline void
worker_enter(struct roce_worker *w, uint64_t now)
{
	int tid = rte_gettid();

	if (unlikely(w->poll_tid != tid)) {
		__atomic_store_n(&w->poll_tid, tid, __ATOMIC_RELEASE);
		/* the mempool caches allocations now come from */
		roce_mbuf_pf_bind(&w->hdr_pf, rte_lcore_id());
		roce_mbuf_pf_bind(&w->zc_pf, rte_lcore_id());
	}
	w->now = now;
}

static void
worker_run_ctl(struct roce_worker *w)
{
	struct roce_worker_ctl *req;
	void *obj;

	while (rte_ring_sc_dequeue(w->ctl_ring, &obj) == 0) {
		req = obj;
		req->result = req->fn(req->arg);
		w->cnt[ROCE_WCNT_CTL_REQS]++;
		__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
	}
}

int
roce_worker_exec(struct roce_worker *w, roce_worker_fn fn, void *arg)
{
	struct roce_worker_ctl req = { .fn = fn, .arg = arg };
	int tid = __atomic_load_n(&w->poll_tid, __ATOMIC_ACQUIRE);

	if (tid == 0 || tid == rte_gettid())
		return fn(arg);
	while (rte_ring_mp_enqueue(w->ctl_ring, &req) != 0)
		rte_pause();
	while (__atomic_load_n(&req.done, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	return req.result;
}

int
roce_worker_exec_async(struct roce_worker *w, struct roce_worker_ctl *req)
{
	int tid;

	__atomic_store_n(&req->done, 0, __ATOMIC_RELAXED);
	/* order the caller's earlier stores (a key invalidation) before */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	tid = __atomic_load_n(&w->poll_tid, __ATOMIC_ACQUIRE);
	if (tid == 0 || tid == rte_gettid()) {
		req->result = req->fn(req->arg);
		__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
		return 1;
	}
	if (rte_ring_mp_enqueue(w->ctl_ring, req) != 0)
		return -ENOBUFS;
	return 0;
}

void
roce_worker_unbind(struct roce_worker *w)
{
	worker_run_ctl(w);
	__atomic_store_n(&w->poll_tid, 0, __ATOMIC_RELEASE);
	/* a request queued between the drain and the store still runs */
	worker_run_ctl(w);
	/* not reading the QPN table any more: grace periods skip it */
	__atomic_store_n(&w->qs_seen, ROCE_QS_OFFLINE, __ATOMIC_RELEASE);
}



/* ------------------------------------------------------------------ */
/* Ready list (doorbells taken), a QP leaving the worker              */
/* ------------------------------------------------------------------ */


static inline void
worker_ready_add(struct roce_worker *w, struct roce_qp *qp)
{
	if (qp->in_ready_list)
		return;
	qp->in_ready_list = 1;
	qp->ready_next = NULL;
	if (w->ready_tail != NULL)
		w->ready_tail->ready_next = qp;
	else
		w->ready_head = qp;
	w->ready_tail = qp;
}

/*
 * The port refused frames in this poll (roce_worker_tx_room()): @p qp, held
 * by it or not yet run, and the QPs after it, up to @p last, in the list
 * being walked were not served, so they go ahead of those re-queued by
 * this poll. Without that, the first QPs of the list would take the port's
 * room at every poll and the last ones would wait as long as the first
 * have work.
 */
static void
worker_ready_keep_turn(struct roce_worker *w, struct roce_qp *qp,
		       struct roce_qp *last)
{
	last->ready_next = w->ready_head;
	if (w->ready_tail == NULL)
		w->ready_tail = last;
	w->ready_head = qp;
}

/* The same for the responder list. */
static void
worker_resp_keep_turn(struct roce_worker *w, struct roce_qp *qp,
		      struct roce_qp *last)
{
	last->resp.resp_next = w->resp_head;
	if (w->resp_tail == NULL)
		w->resp_tail = last;
	w->resp_head = qp;
}

static void
worker_take_doorbells(struct roce_worker *w)
{
	void *qps[32];
	unsigned int n, i;

	do {
		n = rte_ring_sc_dequeue_burst(w->db_ring, qps, RTE_DIM(qps),
					      NULL);
		for (i = 0; i < n; i++) {
			struct roce_qp *qp = qps[i];

			/* clear first: a post after this rings again */
			__atomic_exchange_n(&qp->doorbell, 0, __ATOMIC_ACQ_REL);
			worker_ready_add(w, qp);
		}
		w->cnt[ROCE_WCNT_DOORBELLS] += n;
	} while (n == RTE_DIM(qps));
}

void
roce_worker_qp_detach(struct roce_worker *w, struct roce_qp *qp)
{
	struct roce_qp **pp;

	/* pull every queued doorbell (this QP's included) into the list */
	worker_take_doorbells(w);
	if (qp->in_ready_list) {
		w->ready_tail = NULL;
		for (pp = &w->ready_head; *pp != NULL;) {
			if (*pp == qp)
				*pp = qp->ready_next;
			else {
				w->ready_tail = *pp;
				pp = &(*pp)->ready_next;
			}
		}
		qp->in_ready_list = 0;
		qp->ready_next = NULL;
	}
	if (qp->resp.in_resp_list) {
		w->resp_tail = NULL;
		for (pp = &w->resp_head; *pp != NULL;) {
			if (*pp == qp)
				*pp = qp->resp.resp_next;
			else {
				w->resp_tail = *pp;
				pp = &(*pp)->resp.resp_next;
			}
		}
		qp->resp.in_resp_list = false;
		qp->resp.resp_next = NULL;
	}
	__atomic_store_n(&qp->doorbell, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* RX dispatch                                                        */
/* ------------------------------------------------------------------ */

static bool
transport_matches(uint8_t transport, uint8_t qp_type)
{
	switch (transport) {
	case ROCE_TRANSPORT_RC:
		return qp_type == ROCE_QPT_RC;
	case ROCE_TRANSPORT_UC:
		return qp_type == ROCE_QPT_UC;
	case ROCE_TRANSPORT_UD:
		return qp_type == ROCE_QPT_UD;
	default:
		return false;
	}
}

/*
 * Incoming packets per QP state (IBTA 10.3.1 / qp-state-machine.md):
 * RESET and INIT silently drop, ERR silently drops, RTR and later process
 * requests; responses only mean something once the QP has sent (RTS, SQD,
 * SQE).
 */
static enum roce_worker_cnt
state_drop_reason(uint8_t state, bool response)
{
	switch (state) {
	case ROCE_QPS_RTR:
		return response ? ROCE_WCNT_RX_RESP_NOT_RTS : ROCE_WCNT_MAX;
	case ROCE_QPS_RTS:
	case ROCE_QPS_SQD:
	case ROCE_QPS_SQE:
		return ROCE_WCNT_MAX;
	case ROCE_QPS_ERR:
		return ROCE_WCNT_RX_QP_ERR;
	default:
		return ROCE_WCNT_RX_QP_NOT_READY;
	}
}

/*
 * The device has one P_Key, the default 0xffff at index 0 (modify_qp
 * refuses any other pkey_index), so every QP's P_Key is that one.
 */
#define WORKER_QP_PKEY 0xffffu

/*
 * P_Key matching (IBTA 10.9.3, checked on receipt per IBTA 9.6.1.1 C9-42):
 * the low 15 bits are equal, not the invalid value 0 (IBTA 10.9.1.2), and
 * at least one of the two keys is a full member (bit 15).
 */
static inline bool
pkey_matches(uint16_t pkt_pkey, uint16_t qp_pkey)
{
	return (pkt_pkey & 0x7fff) != 0 &&
	       (pkt_pkey & 0x7fff) == (qp_pkey & 0x7fff) &&
	       ((pkt_pkey | qp_pkey) & 0x8000) != 0;
}

/*
 * RC/UC are connected: a packet must come from the QP's peer (IBTA 9.6.1.1
 * C9-54: the source address is the one of the connection; Linux rxe checks
 * the same in rxe_recv.c check_addr). The peer's GID is the destination of
 * the path set at INIT->RTR; both are 16-byte GIDs (IPv4-mapped for IPv4).
 */
static inline bool
src_matches(const struct roce_pkt *pkt, const struct roce_qp *qp)
{
	return memcmp(pkt->sgid, qp->dgid, sizeof(pkt->sgid)) == 0;
}

/*
 * One frame @p pkt (parsed) describes, on a worker entered for @p now;
 * returns 1 when a QP engine took it. Inlined in both entry points.
 */
static __rte_always_inline int
worker_rx_parsed(struct roce_worker *w, struct rte_mbuf *m,
		 const struct roce_pkt *pkt, uint64_t now)
{
	struct roce_device *dev = w->dev;
	enum roce_worker_cnt why;
	struct roce_qp *qp;
	uint32_t dqpn;
	bool response;
	int rc;

	w->cnt[ROCE_WCNT_RX_PKTS]++;
	w->parse_cnt[ROCE_PARSE_OK]++;
	/* IBTA annex A17.3.3: a packet with a bad ICRC is silently dropped */
	if (unlikely(roce_icrc_verify_pkt(pkt) != 0)) {
		why = ROCE_WCNT_RX_ICRC_ERR;
		goto count_drop;
	}
	if (unlikely(pkt->op->transport == ROCE_TRANSPORT_CNP)) {
		/* DCQCN reaction point (roce_cc.c) */
		w->cnt[ROCE_WCNT_RX_CNP]++;
		rc = roce_cc_cnp_rx(w, pkt, now);
		rte_pktmbuf_free(m);
		w->cnt[ROCE_WCNT_RX_ACCEPTED] += rc;
		return rc;
	}
	dqpn = roce_bth_dqpn(roce_pkt_bth(pkt));
	if (unlikely(dqpn <= 1)) {
		if (dqpn == 0) {
			why = ROCE_WCNT_RX_QP0;
			goto count_drop;
		}
		if (w->gsi_cb != NULL) {
			w->cnt[ROCE_WCNT_RX_GSI]++;
			w->gsi_cb(w->gsi_ctx, m, pkt, now);
			return 1;
		}
	}
	qp = dqpn <= dev->qpn_mask ?
		__atomic_load_n(&dev->qp_table[dqpn], __ATOMIC_ACQUIRE) : NULL;
	if (unlikely(qp == NULL || qp->qpn != dqpn)) {
		why = dqpn == 1 ? ROCE_WCNT_RX_GSI_NO_HANDLER :
				  ROCE_WCNT_RX_UNKNOWN_QPN;
		goto count_drop;
	}
	if (unlikely(qp->w != w)) {
		why = ROCE_WCNT_RX_QP_OTHER_WORKER;
		goto count_drop;
	}
	/* IBTA 9.6.1 header validation: the opcode's transport is the QP's */
	if (unlikely(!transport_matches(pkt->op->transport, qp->type))) {
		qp->stats.rx_drops++;
		why = ROCE_WCNT_RX_BAD_TRANSPORT;
		goto count_drop;
	}
	/* QP1 took any P_Key of the table above (roce_mad.c); others match */
	if (unlikely(!pkey_matches(roce_bth_pkey(roce_pkt_bth(pkt)),
				   WORKER_QP_PKEY))) {
		qp->stats.rx_drops++;
		why = ROCE_WCNT_RX_BAD_PKEY;
		goto count_drop;
	}
	response = (pkt->op->flags & ROCE_OPF_RESP) != 0;
	why = state_drop_reason(__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE),
				response);
	if (unlikely(why != ROCE_WCNT_MAX)) {
		qp->stats.rx_drops++;
		goto count_drop;
	}
	/* UD takes any source: its Q_Key is checked by the responder */
	if (unlikely(qp->type != ROCE_QPT_UD && !src_matches(pkt, qp))) {
		qp->stats.rx_drops++;
		why = ROCE_WCNT_RX_BAD_SRC;
		goto count_drop;
	}
	qp->stats.rx_pkts++;
	qp->stats.rx_bytes += pkt->payload_len;
	if (unlikely(pkt->ecn == ROCE_ECN_CE))
		roce_cc_ce_rx(qp, pkt, now);	/* notification point */
	if (response)
		roce_comp_rx(qp, m, pkt, now);
	else
		roce_resp_rx(qp, m, pkt, now);
	rte_pktmbuf_free(m);
	w->cnt[ROCE_WCNT_RX_ACCEPTED]++;
	return 1;
count_drop:
	w->cnt[why]++;
	rte_pktmbuf_free(m);
	return 0;
}

/* One frame as received; returns 1 when a QP engine took it. */
static int
worker_rx_one(struct roce_worker *w, struct rte_mbuf *m, uint64_t now)
{
	struct roce_pkt pkt;
	int rc;

	rc = roce_parse(m, &pkt);
	if (unlikely(rc < 0)) {
		w->cnt[ROCE_WCNT_RX_PKTS]++;
		w->parse_cnt[-rc < ROCE_PARSE_REASON_MAX ? -rc : 1]++;
		rte_pktmbuf_free(m);
		return 0;
	}
	return worker_rx_parsed(w, m, &pkt, now);
}

uint16_t
roce_worker_rx(struct roce_worker *w, struct rte_mbuf **pkts, uint16_t nb_pkts,
	       uint64_t now_tsc)
{
	uint16_t i, accepted = 0;

	worker_enter(w, now_tsc);
	for (i = 0; i < nb_pkts; i++) {
		if (i + 1 < nb_pkts)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		accepted += worker_rx_one(w, pkts[i], now_tsc);
	}
	return accepted;
}

int
roce_worker_rx_parsed(struct roce_worker *w, struct rte_mbuf *m,
		      const struct roce_pkt *pkt, uint64_t now_tsc)
{
	/*
	 * Called for every frame: the thread check reads the id rte_gettid()
	 * caches (-1 before its first call, never the 0 of an unbound worker).
	 */
	if (unlikely(RTE_PER_LCORE(_thread_id) != w->poll_tid))
		worker_enter(w, now_tsc);
	w->now = now_tsc;
	return worker_rx_parsed(w, m, pkt, now_tsc);
}

/* ------------------------------------------------------------------ */
/* The poll loop                                                      */
/* ------------------------------------------------------------------ */

int
roce_worker_poll(struct roce_worker *w, uint64_t now)
{
	struct roce_qp *qp, *next, *last;
	int rc;

	worker_enter(w, now);
	w->tx_sent = 0;
	/* 0. no QP pointer from the QPN table is held here (roce_qp.c) */
	roce_worker_quiescent(w);
	/* 1. control requests (modify/destroy) before any engine runs */
	worker_run_ctl(w);
	/* 2. expired timers: retransmit and RNR waits ring their QPs' doorbells */
	w->cnt[ROCE_WCNT_TIMERS] += roce_timers_run(&w->timers, now);
	/* 3. doorbells rung by posters and timers -> ready list */
	worker_take_doorbells(w);
	/* frames the port refused last time go first, or hold the engines */
	if (w->tx_blocked)
		roce_worker_tx_flush(w);
	/* 4. responders with READ responses, atomic ACKs or ACKs to send,
	 *    ahead of new requests; roce_resp_run() re-queues a QP that still
	 *    has output
	 */
	qp = w->resp_head;
	last = w->resp_tail;
	w->resp_head = w->resp_tail = NULL;
	for (; qp != NULL; qp = next) {
		next = qp->resp.resp_next;
		if (unlikely(w->tx_blocked)) {
			worker_resp_keep_turn(w, qp, last);
			break;
		}
		qp->resp.in_resp_list = false;
		w->cnt[ROCE_WCNT_RESP_RUNS]++;
		if (unlikely(roce_resp_run(qp, now) == -EBUSY)) {
			qp->resp.in_resp_list = true;
			qp->resp.resp_next = next;
			worker_resp_keep_turn(w, qp, last);
			break;
		}
	}
	/* 5. requesters: a QP stays ready while it still produces packets */
	qp = w->ready_head;
	last = w->ready_tail;
	w->ready_head = w->ready_tail = NULL;
	for (; qp != NULL; qp = next) {
		next = qp->ready_next;
		if (unlikely(w->tx_blocked)) {
			worker_ready_keep_turn(w, qp, last);
			break;
		}
		qp->in_ready_list = 0;
		w->cnt[ROCE_WCNT_REQ_RUNS]++;
		rc = roce_req_run(qp, now);
		if (unlikely(rc == -EBUSY)) {
			qp->in_ready_list = 1;
			qp->ready_next = next;
			worker_ready_keep_turn(w, qp, last);
			break;
		}
		if (rc > 0)
			worker_ready_add(w, qp);
	}
	/* 6. hand this poll's frames (and earlier refused ones) to the port */
	roce_worker_tx_flush(w);
	return (int)w->tx_sent;
}

/* ------------------------------------------------------------------ */
/* Counters                                                           */
/* ------------------------------------------------------------------ */

int
roce_worker_counters(const struct roce_worker *w, struct roce_counter *c,
		     unsigned int n)
{
	unsigned int total = ROCE_PARSE_REASON_MAX + ROCE_WCNT_MAX;
	unsigned int i, k = 0;

	if (w == NULL)
		return -EINVAL;
	for (i = 0; i < ROCE_PARSE_REASON_MAX && k < n; i++, k++) {
		c[k].name = roce_parse_reason_name(i);
		c[k].value = w->parse_cnt[i];
	}
	for (i = 0; i < ROCE_WCNT_MAX && k < n; i++, k++) {
		c[k].name = worker_cnt_names[i];
		c[k].value = __atomic_load_n(&w->cnt[i], __ATOMIC_RELAXED);
	}
	return (int)total;
}
