/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake link between two libroce devices: see fake_link.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "fake_link.h"
#include "roce_build.h"
#include "roce_icrc.h"
#include "roce_parse.h"
#include "roce_worker.h"
#include "test_common.h"

#define FAKE_INBOX 16384	/* frames waiting at one side */
#define FAKE_RX_BURST 32

static uint64_t
fl_rand(struct fake_link *l)
{
	/* xorshift64*: deterministic from the seed */
	l->rng ^= l->rng >> 12;
	l->rng ^= l->rng << 25;
	l->rng ^= l->rng >> 27;
	return l->rng * 2685821657736338717ULL;
}

static bool
fl_chance(struct fake_link *l, uint32_t ppm)
{
	return ppm != 0 && fl_rand(l) % 1000000 < ppm;
}

static void
fl_inbox_put(struct fake_ep *from, struct fake_ep *to, struct rte_mbuf *m)
{
	if (to->in_tail - to->in_head > to->in_mask) {
		from->stats.inbox_full++;
		rte_pktmbuf_free(m);
		return;
	}
	to->inbox[to->in_tail++ & to->in_mask] = m;
	from->stats.delivered++;
}

/*
 * Flip one byte the ICRC covers and nothing else checks: from the BTH PSN
 * word (byte 8 of the BTH; bytes 0-3 could make the packet unparsable and
 * byte 4 is masked out of the ICRC) to the end of the ICRC.
 */
static void
fl_corrupt(struct fake_link *l, struct rte_mbuf *m)
{
	struct roce_pkt pkt;
	uint32_t first, off;
	struct rte_mbuf *seg;

	if (roce_parse(m, &pkt) != 0)
		return;
	first = pkt.bth_off + 8;
	off = first + (uint32_t)(fl_rand(l) % (pkt.len - first));
	for (seg = m; seg != NULL && off >= seg->data_len; seg = seg->next)
		off -= seg->data_len;
	if (seg != NULL)
		rte_pktmbuf_mtod(seg, uint8_t *)[off] ^= 0x5a;
}

/*
 * @p m, or a private copy of it when a segment is not the mbuf's own
 * memory (zero-copy payload attached from the sender's buffer, a clone):
 * corruption must hit the frame on the wire, never the sender's memory.
 * NULL when the copy cannot be made (@p m is kept).
 */
static struct rte_mbuf *
fl_writable(struct rte_mbuf *m)
{
	struct rte_mbuf *seg, *copy;

	for (seg = m; seg != NULL; seg = seg->next)
		if (!RTE_MBUF_DIRECT(seg) || rte_mbuf_refcnt_read(seg) != 1)
			break;
	if (seg == NULL)
		return m;
	copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (copy != NULL)
		rte_pktmbuf_free(m);
	return copy;
}

/* TSC cycles to serialise @p len bytes at @p mbps. */
static uint64_t
fl_wire_cycles(uint32_t mbps, uint32_t len)
{
	/* Ethernet preamble, SFD, FCS and gap: 24 bytes more on the wire */
	return ((uint64_t)len + 24) * 8 * rte_get_tsc_hz() /
		((uint64_t)mbps * 1000000);
}

/* TSC cycles to serialise @p len bytes at the bottleneck rate. */
static uint64_t
fl_bq_cycles(const struct fake_ep *ep, uint32_t len)
{
	return fl_wire_cycles(ep->bn.rate_mbps, len);
}

/* Host link of frame @p m (its destination QP), 0..7. */
static unsigned int
fl_host_of(const struct rte_mbuf *m)
{
	struct roce_pkt pkt;

	if (roce_parse(m, &pkt) != 0)
		return 0;
	return roce_bth_dqpn(roce_pkt_bth(&pkt)) & 7;
}

/* TSC at which the head of host link @p h is on the switch, UINT64_MAX: empty. */
static uint64_t
fl_hq_next(const struct fake_ep *ep, unsigned int h)
{
	if (ep->hq[h] == NULL || ep->hq_head[h] == ep->hq_tail[h])
		return UINT64_MAX;
	return ep->hq_busy[h] + fl_wire_cycles(ep->bn.host_mbps,
		rte_pktmbuf_pkt_len(ep->hq[h][ep->hq_head[h] % FAKE_INBOX]));
}

static bool fl_bq_enqueue(struct fake_link *l, struct fake_ep *ep,
			  struct rte_mbuf *m);

/* Host links: frames that reached the switch by now enter its queue, in order. */
static void
fl_hq_serve(struct fake_link *l, struct fake_ep *ep)
{
	for (;;) {
		uint64_t best = UINT64_MAX, t;
		unsigned int h, hb = 0;
		struct rte_mbuf *m;

		for (h = 0; h < RTE_DIM(ep->hq); h++) {
			t = fl_hq_next(ep, h);
			if (t < best) {
				best = t;
				hb = h;
			}
		}
		if (best > l->tsc)
			return;
		m = ep->hq[hb][ep->hq_head[hb]++ % FAKE_INBOX];
		ep->hq_busy[hb] = best;
		/* the switch sees it when it arrived: serve from there */
		if (ep->bq_head == ep->bq_tail && ep->bq_busy < best)
			ep->bq_busy = best;
		fl_bq_enqueue(l, ep, m);
	}
}

/* A frame leaving side @p ep goes to its host link; false: no host links. */
static bool
fl_hq_put(struct fake_link *l, struct fake_ep *ep, struct rte_mbuf *m)
{
	unsigned int h;

	if (ep->bn.rate_mbps == 0 || ep->bn.host_mbps == 0)
		return false;
	h = fl_host_of(m);
	if (ep->hq[h] == NULL)
		ep->hq[h] = calloc(FAKE_INBOX, sizeof(*ep->hq[h]));
	if (ep->hq[h] == NULL ||
	    ep->hq_tail[h] - ep->hq_head[h] >= FAKE_INBOX) {
		ep->bstats.tail_drops++;
		rte_pktmbuf_free(m);
		return true;
	}
	if (ep->hq_head[h] == ep->hq_tail[h] && ep->hq_busy[h] < l->tsc)
		ep->hq_busy[h] = l->tsc;
	ep->hq[h][ep->hq_tail[h]++ % FAKE_INBOX] = m;
	return true;
}

/* Set CE on an ECT frame (IPv4: header checksum updated). False: not ECT. */
static bool
fl_mark_ce(struct rte_mbuf *m)
{
	struct roce_pkt pkt;
	uint8_t *l3;

	if (roce_parse(m, &pkt) != 0 || pkt.ecn == ROCE_ECN_NOT_ECT ||
	    m->data_len < pkt.l3_off + sizeof(struct rte_ipv6_hdr))
		return false;
	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, pkt.l3_off);
	if (pkt.ip_ver == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		roce_ipv4_set_ecn(ip, ROCE_ECN_CE);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		roce_ipv6_set_vtc_flow(ip, (uint8_t)(roce_ipv6_tc(ip) | 3),
				       pkt.flow_label);
	}
	return true;
}

/* The bottleneck takes @p m (queue, mark, drop) or hands it on (none). */
static bool
fl_bq_enqueue(struct fake_link *l, struct fake_ep *ep, struct rte_mbuf *m)
{
	const struct fake_link_bneck *b = &ep->bn;
	uint32_t q = ep->bq_bytes, len = rte_pktmbuf_pkt_len(m);
	uint64_t p;

	if (b->rate_mbps == 0)
		return false;
	if (q + len > b->limit_bytes || ep->bq_tail - ep->bq_head >= FAKE_INBOX) {
		ep->bstats.tail_drops++;
		rte_pktmbuf_free(m);
		return true;
	}
	if (q >= b->kmax_bytes)
		p = 1000000;
	else if (q <= b->kmin_bytes)
		p = 0;
	else
		p = (uint64_t)b->pmax_ppm * (q - b->kmin_bytes) /
			(b->kmax_bytes - b->kmin_bytes);
	if (p != 0 && fl_rand(l) % 1000000 < p) {
		struct rte_mbuf *w = fl_writable(m);

		if (w == NULL || !fl_mark_ce(w)) {
			ep->bstats.red_drops++;
			rte_pktmbuf_free(w != NULL ? w : m);
			return true;
		}
		m = w;
		ep->bstats.marked++;
	}
	if (ep->bq_head == ep->bq_tail && ep->bq_busy < l->tsc &&
	    ep->bn.host_mbps == 0)
		ep->bq_busy = l->tsc;	/* the link was idle */
	ep->bq[ep->bq_tail++ % FAKE_INBOX] = m;
	ep->bq_bytes += len;
	if (ep->bq_bytes > ep->bstats.max_q_bytes)
		ep->bstats.max_q_bytes = ep->bq_bytes;
	ep->bstats.enq++;
	return true;
}

/* Serve the bottleneck of side @p ep up to now; returns frames delivered. */
static unsigned int
fl_bq_serve(struct fake_link *l, struct fake_ep *ep)
{
	unsigned int n = 0;

	fl_hq_serve(l, ep);
	while (ep->bq_head != ep->bq_tail) {
		struct rte_mbuf *m = ep->bq[ep->bq_head % FAKE_INBOX];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		uint64_t done = ep->bq_busy + fl_bq_cycles(ep, len);

		if (done > l->tsc)
			break;
		ep->bq_head++;
		ep->bq_busy = done;
		ep->bq_bytes -= len;
		ep->bstats.departed++;
		ep->bstats.bytes += len;
		fl_inbox_put(ep, &l->ep[ep->idx ^ 1], m);
		n++;
	}
	return n;
}

/* TSC of the next departure of side @p ep's bottleneck, UINT64_MAX: none. */
static uint64_t
fl_bq_next(const struct fake_ep *ep)
{
	uint64_t t = UINT64_MAX, h;
	unsigned int i;

	for (i = 0; i < RTE_DIM(ep->hq); i++) {
		h = fl_hq_next(ep, i);
		if (h < t)
			t = h;
	}
	if (ep->bq_head == ep->bq_tail)
		return t;
	h = ep->bq_busy + fl_bq_cycles(ep,
		rte_pktmbuf_pkt_len(ep->bq[ep->bq_head % FAKE_INBOX]));
	return RTE_MIN(t, h);
}

/* True when nothing waits in side @p ep's bottleneck or host links. */
static bool
fl_bq_empty(const struct fake_ep *ep)
{
	return fl_bq_next(ep) == UINT64_MAX;
}

int
fake_link_set_bneck(struct fake_link *l, int from,
		    const struct fake_link_bneck *b)
{
	struct fake_ep *ep = &l->ep[from];
	unsigned int h;

	/* what is queued leaves now */
	for (h = 0; h < RTE_DIM(ep->hq); h++)
		while (ep->hq[h] != NULL && ep->hq_head[h] != ep->hq_tail[h])
			fl_inbox_put(ep, &l->ep[from ^ 1],
				     ep->hq[h][ep->hq_head[h]++ % FAKE_INBOX]);
	while (ep->bq_head != ep->bq_tail) {
		fl_inbox_put(ep, &l->ep[from ^ 1],
			     ep->bq[ep->bq_head++ % FAKE_INBOX]);
	}
	ep->bq_bytes = 0;
	if (b == NULL || b->rate_mbps == 0) {
		memset(&ep->bn, 0, sizeof(ep->bn));
		return 0;
	}
	if (ep->bq == NULL) {
		ep->bq = calloc(FAKE_INBOX, sizeof(*ep->bq));
		if (ep->bq == NULL)
			return -ENOMEM;
	}
	ep->bn = *b;
	ep->bq_busy = l->tsc;
	return 0;
}

static uint16_t
fl_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct fake_ep *ep = ctx;
	struct fake_link *l = ep->link;
	struct fake_ep *peer = &l->ep[ep->idx ^ 1];
	const struct fake_link_impair *imp = &ep->imp;
	uint16_t i, take = n;

	if (imp->tx_accept_max != 0 && take > imp->tx_accept_max)
		take = imp->tx_accept_max;
	if (imp->tx_accept_step != 0) {
		if (ep->step_iter != l->iters) {
			ep->step_iter = l->iters;
			ep->step_taken = 0;
		}
		take = RTE_MIN(take, (uint16_t)(imp->tx_accept_step -
						 ep->step_taken));
		ep->step_taken += take;
	}
	ep->stats.refused += n - take;
	for (i = 0; i < take; i++) {
		struct rte_mbuf *m = pkts[i], *copy;

		ep->stats.tx++;
		if (l->capture != NULL)
			l->capture(l->capture_ctx, ep->idx, m);
		if (ep->cut) {
			ep->stats.down++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (ep->burst_left == 0 && fl_chance(l, imp->burst_ppm))
			ep->burst_left = imp->burst_len;
		if (ep->burst_left != 0) {
			ep->burst_left--;
			ep->stats.lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (fl_chance(l, imp->loss_ppm)) {
			ep->stats.lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (fl_chance(l, imp->dup_ppm)) {
			copy = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
			if (copy != NULL) {
				ep->stats.dup++;
				fl_inbox_put(ep, peer, copy);
			}
		}
		if (fl_chance(l, imp->corrupt_ppm)) {
			copy = fl_writable(m);
			if (copy != NULL) {
				m = copy;
				ep->stats.corrupted++;
				fl_corrupt(l, m);
			}
		}
		if (ep->held == NULL && fl_chance(l, imp->reorder_ppm)) {
			ep->stats.reordered++;
			ep->held = m;
			continue;
		}
		if (fl_hq_put(l, ep, m) || fl_bq_enqueue(l, ep, m))
			continue;
		fl_inbox_put(ep, peer, m);
		if (ep->held != NULL) {
			fl_inbox_put(ep, peer, ep->held);
			ep->held = NULL;
		}
	}
	return take;
}

static int
fl_ep_init(struct fake_link *l, int idx, bool ipv6)
{
	struct fake_ep *ep = &l->ep[idx];
	struct roce_device_config cfg;
	char name[32];

	ep->link = l;
	ep->idx = idx;
	ep->mac[0] = 0x02;
	ep->mac[5] = (uint8_t)(idx + 1);
	memset(&ep->gid, 0, sizeof(ep->gid));
	if (ipv6) {
		ep->gid.raw[0] = 0xfd;
		ep->gid.raw[15] = (uint8_t)(idx + 1);
	} else {
		ep->gid.raw[10] = 0xff;
		ep->gid.raw[11] = 0xff;
		ep->gid.raw[12] = 10;
		ep->gid.raw[15] = (uint8_t)(idx + 1);
	}
	memset(&cfg, 0, sizeof(cfg));
	snprintf(name, sizeof(name), "fake%d", idx);
	cfg.name = name;
	memcpy(cfg.mac, ep->mac, sizeof(cfg.mac));
	cfg.gid[0] = ep->gid;
	cfg.gid_valid[0] = true;
	cfg.max_qp = 64;
	cfg.max_mr = 256;
	cfg.hdr_pool = test_mbuf_pool();
	cfg.socket_id = SOCKET_ID_ANY;
	ep->dev = roce_device_create(&cfg);
	if (ep->dev == NULL)
		return -1;
	ep->w = roce_worker_create(ep->dev, fl_tx, ep);
	if (ep->w == NULL)
		return -1;
	ep->pd = roce_alloc_pd(ep->dev);
	if (ep->pd == NULL)
		return -1;
	ep->inbox = calloc(FAKE_INBOX, sizeof(*ep->inbox));
	if (ep->inbox == NULL)
		return -1;
	ep->in_mask = FAKE_INBOX - 1;
	roce_device_port_event(ep->dev, true);
	return 0;
}

struct fake_link *
fake_link_create(uint64_t seed, bool ipv6)
{
	struct fake_link *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->rng = seed != 0 ? seed : 0x9e3779b97f4a7c15ULL;
	/* start far from 0; one step is one simulated microsecond */
	l->tsc = 1ULL << 32;
	l->tsc_step = rte_get_tsc_hz() / 1000000;
	if (l->tsc_step == 0)
		l->tsc_step = 1;
	if (fl_ep_init(l, 0, ipv6) != 0 || fl_ep_init(l, 1, ipv6) != 0) {
		fake_link_destroy(l);
		return NULL;
	}
	return l;
}

void
fake_link_destroy(struct fake_link *l)
{
	int i, j;

	if (l == NULL)
		return;
	for (i = 0; i < 2; i++) {
		struct fake_ep *ep = &l->ep[i];

		while (ep->inbox != NULL && ep->in_head != ep->in_tail)
			rte_pktmbuf_free(ep->inbox[ep->in_head++ & ep->in_mask]);
		rte_pktmbuf_free(ep->held);
		while (ep->bq != NULL && ep->bq_head != ep->bq_tail)
			rte_pktmbuf_free(ep->bq[ep->bq_head++ % FAKE_INBOX]);
		free(ep->bq);
		for (j = 0; j < (int)RTE_DIM(ep->hq); j++) {
			while (ep->hq[j] != NULL &&
			       ep->hq_head[j] != ep->hq_tail[j])
				rte_pktmbuf_free(ep->hq[j][ep->hq_head[j]++ %
							   FAKE_INBOX]);
			free(ep->hq[j]);
		}
		free(ep->inbox);
		if (ep->pd != NULL)
			roce_dealloc_pd(ep->pd);
		if (ep->w != NULL)
			roce_worker_destroy(ep->w);
		if (ep->dev != NULL)
			roce_device_destroy(ep->dev);
	}
	free(l);
}

void
fake_link_set_impair(struct fake_link *l, int from,
		     const struct fake_link_impair *imp)
{
	int i;

	for (i = 0; i < 2; i++)
		if (from < 0 || from == i)
			l->ep[i].imp = *imp;
}

void
fake_link_cut(struct fake_link *l, int from, bool cut)
{
	int i;

	for (i = 0; i < 2; i++)
		if (from < 0 || from == i)
			l->ep[i].cut = cut;
}

void
fake_link_set_capture(struct fake_link *l, fake_link_capture_t cb, void *ctx)
{
	l->capture = cb;
	l->capture_ctx = ctx;
}

unsigned int
fake_link_step(struct fake_link *l)
{
	struct rte_mbuf *pkts[FAKE_RX_BURST];
	unsigned int activity = 0;
	uint64_t next = UINT64_MAX, t;
	int i;

	l->iters++;
	l->tsc += l->tsc_step;
	for (i = 0; i < 2; i++)
		activity += fl_bq_serve(l, &l->ep[i]);
	for (i = 0; i < 2; i++) {
		struct fake_ep *ep = &l->ep[i];
		uint16_t n = 0;

		while (n < FAKE_RX_BURST && ep->in_head != ep->in_tail)
			pkts[n++] = ep->inbox[ep->in_head++ & ep->in_mask];
		if (n != 0)
			roce_worker_rx(ep->w, pkts, n, l->tsc);
		activity += n;
		activity += (unsigned int)roce_worker_poll(ep->w, l->tsc);
		activity += ep->w->tx_n;	/* refused frames still waiting */
	}
	if (activity != 0)
		return activity;
	/* a reordered frame with nothing behind it goes now */
	for (i = 0; i < 2; i++) {
		struct fake_ep *ep = &l->ep[i];

		if (ep->held != NULL) {
			fl_inbox_put(ep, &l->ep[i ^ 1], ep->held);
			ep->held = NULL;
			activity++;
		}
	}
	if (activity != 0)
		return activity;
	/* idle: jump to the earliest timer so timeouts fire without waiting */
	for (i = 0; i < 2; i++) {
		t = roce_timers_next(roce_worker_timers(l->ep[i].w));
		if (t < next)
			next = t;
		t = fl_bq_next(&l->ep[i]);	/* or the next bottleneck departure */
		if (t < next)
			next = t;
	}
	if (next != UINT64_MAX && next > l->tsc)
		l->tsc = next;
	return 0;
}

long
fake_link_run_until(struct fake_link *l, fake_link_pred_t pred, void *arg,
		    long max_iters)
{
	long i;

	for (i = 0; i < max_iters; i++) {
		if (pred(arg))
			return i;
		fake_link_step(l);
	}
	return pred(arg) ? i : -1;
}

void
fake_link_settle(struct fake_link *l, long max_iters)
{
	long i;
	int idle = 0;

	for (i = 0; i < max_iters && idle < 4; i++) {
		if (fake_link_step(l) == 0 &&
		    fl_bq_empty(&l->ep[0]) && fl_bq_empty(&l->ep[1]) &&
		    roce_timers_next(roce_worker_timers(l->ep[0].w)) == UINT64_MAX &&
		    roce_timers_next(roce_worker_timers(l->ep[1].w)) == UINT64_MAX)
			idle++;
		else
			idle = 0;
	}
}

void
fake_conn_opts_default(struct fake_conn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mtu = ROCE_MTU_1024;
	o->psn[0] = 100;
	o->psn[1] = 200;
	o->access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	o->max_rd_atomic = 16;
	o->timeout = 14;	/* 67 ms: simulated time is free */
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;
}

void
fake_link_ah(const struct fake_link *l, int from, int to,
	     struct roce_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dgid = l->ep[to].gid;
	memcpy(ah->dmac, l->ep[to].mac, sizeof(ah->dmac));
	ah->sgid_index = 0;
	ah->hop_limit = 64;
	ah->port_num = 1;
	RTE_SET_USED(from);
}

static int
fl_qp_init(struct roce_qp *qp, int access, bool ud, uint32_t qkey)
{
	struct roce_qp_attr a;
	int mask = ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	if (ud) {
		a.qkey = qkey;
		mask |= ROCE_QP_QKEY;
	} else {
		a.qp_access_flags = access;
		mask |= ROCE_QP_ACCESS_FLAGS;
	}
	return roce_modify_qp(qp, &a, mask);
}

static int
fl_qp_rtr_rts(struct fake_link *l, int side, struct roce_qp *qp,
	      struct roce_qp *peer, const struct fake_conn_opts *o)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	bool rc;
	int mask, ret;

	ret = roce_query_qp(qp, &a, &ia);
	if (ret != 0)
		return ret;
	rc = ia.qp_type == ROCE_QPT_RC;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	fake_link_ah(l, side, side ^ 1, &a.ah_attr);
	a.path_mtu = o->mtu;
	a.dest_qp_num = roce_qp_num(peer);
	a.rq_psn = o->psn[side ^ 1];
	mask = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
	       ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = o->max_rd_atomic;
		a.min_rnr_timer = o->min_rnr_timer;
		mask |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	}
	ret = roce_modify_qp(qp, &a, mask);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = o->psn[side];
	mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
	if (rc) {
		a.timeout = o->timeout;
		a.retry_cnt = o->retry_cnt;
		a.rnr_retry = o->rnr_retry;
		a.max_rd_atomic = o->max_rd_atomic;
		mask |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC;
		if (o->selective_repeat) {
			a.selective_repeat = 1;
			mask |= ROCE_QP_SELECTIVE_REPEAT;
		}
	}
	return roce_modify_qp(qp, &a, mask);
}

int
fake_link_connect(struct fake_link *l, struct roce_qp *qa, struct roce_qp *qb,
		  const struct fake_conn_opts *o)
{
	int ret;

	ret = fl_qp_init(qa, o->access, false, 0);
	if (ret == 0)
		ret = fl_qp_init(qb, o->access, false, 0);
	if (ret == 0)
		ret = fl_qp_rtr_rts(l, 0, qa, qb, o);
	if (ret == 0)
		ret = fl_qp_rtr_rts(l, 1, qb, qa, o);
	return ret;
}

int
fake_link_ud_ready(struct fake_link *l, int side, struct roce_qp *qp,
		   uint32_t qkey, uint32_t sq_psn)
{
	struct roce_qp_attr a;
	int ret;

	RTE_SET_USED(l);
	RTE_SET_USED(side);
	ret = fl_qp_init(qp, 0, true, qkey);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE);
	if (ret != 0)
		return ret;
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = sq_psn;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
}

int
fake_link_inject(struct fake_link *l, int to, const struct roce_hdr_fields *f,
		 const void *payload, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_mbuf_pool());
	char *p;
	int ret;

	if (m == NULL)
		return -ENOMEM;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	if (len != 0)
		memcpy(p, payload, len);
	ret = roce_build_mbuf(m, f);
	if (ret == 0)
		ret = roce_icrc_fill_mbuf(m, m->l2_len);
	if (ret != 0) {
		rte_pktmbuf_free(m);
		return ret;
	}
	fl_inbox_put(&l->ep[to ^ 1], &l->ep[to], m);
	return 0;
}

uint64_t
fake_link_counter(const struct roce_worker *w, const char *name)
{
	struct roce_counter c[256];
	int n = roce_worker_counters(w, c, RTE_DIM(c)), i;

	for (i = 0; i < n && i < (int)RTE_DIM(c); i++)
		if (strcmp(c[i].name, name) == 0)
			return c[i].value;
	fprintf(stderr, "fake_link: worker has no counter \"%s\"\n", name);
	abort();
}
