/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_fault's datapath (fault_priv.h): the impairment pipeline of a
 * queue, in the order of rte_pmd_fault.h and fault_ethdev.c's overview,
 * and the rx_burst / tx_burst that run it.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "fault_priv.h"

/* ------------------------------------------------------------------ */
/* impairment                                                         */
/* ------------------------------------------------------------------ */

static inline uint64_t
fault_rng(struct fault_q *q)
{
	uint64_t x = q->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	q->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A draw in [0, n), n > 0 (one draw per call; the bias is below 2^-29). */
static inline uint64_t
fault_uniform(struct fault_q *q, uint64_t n)
{
	return fault_rng(q) % n;
}

/* True with probability @p ppm / 1e6 (one draw per call when ppm != 0). */
static inline bool
fault_chance(struct fault_q *q, uint32_t ppm)
{
	if (ppm == 0)
		return false;
	return ((fault_rng(q) >> 32) * FAULT_PPM >> 32) < ppm;
}

void
fault_params_load(const struct fault_port *p, struct rte_pmd_fault_params *o)
{
	const struct rte_pmd_fault_params *s = &p->prm;

	o->loss_ppm = __atomic_load_n(&s->loss_ppm, __ATOMIC_RELAXED);
	o->burst_ppm = __atomic_load_n(&s->burst_ppm, __ATOMIC_RELAXED);
	o->burst_len = __atomic_load_n(&s->burst_len, __ATOMIC_RELAXED);
	o->reorder_ppm = __atomic_load_n(&s->reorder_ppm, __ATOMIC_RELAXED);
	o->reorder_us = __atomic_load_n(&s->reorder_us, __ATOMIC_RELAXED);
	o->dup_ppm = __atomic_load_n(&s->dup_ppm, __ATOMIC_RELAXED);
	o->corrupt_ppm = __atomic_load_n(&s->corrupt_ppm, __ATOMIC_RELAXED);
	o->delay_us = __atomic_load_n(&s->delay_us, __ATOMIC_RELAXED);
	o->link_up_ms = __atomic_load_n(&s->link_up_ms, __ATOMIC_RELAXED);
	o->link_down_ms = __atomic_load_n(&s->link_down_ms, __ATOMIC_RELAXED);
	o->jitter_us = __atomic_load_n(&s->jitter_us, __ATOMIC_RELAXED);
	o->burst_len_max = __atomic_load_n(&s->burst_len_max, __ATOMIC_RELAXED);
	o->dir = __atomic_load_n(&s->dir, __ATOMIC_RELAXED);
	o->rate_mbps = __atomic_load_n(&s->rate_mbps, __ATOMIC_RELAXED);
	o->queue_kb = __atomic_load_n(&s->queue_kb, __ATOMIC_RELAXED);
	o->ecn_kmin_kb = __atomic_load_n(&s->ecn_kmin_kb, __ATOMIC_RELAXED);
	o->ecn_kmax_kb = __atomic_load_n(&s->ecn_kmax_kb, __ATOMIC_RELAXED);
	o->ecn_pmax_ppm = __atomic_load_n(&s->ecn_pmax_ppm, __ATOMIC_RELAXED);
}

void
fault_params_store(struct fault_port *p, const struct rte_pmd_fault_params *i)
{
	struct rte_pmd_fault_params *s = &p->prm;

	__atomic_store_n(&s->loss_ppm, i->loss_ppm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->burst_ppm, i->burst_ppm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->burst_len, i->burst_len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->reorder_ppm, i->reorder_ppm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->reorder_us, i->reorder_us, __ATOMIC_RELAXED);
	__atomic_store_n(&s->dup_ppm, i->dup_ppm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->corrupt_ppm, i->corrupt_ppm, __ATOMIC_RELAXED);
	__atomic_store_n(&s->delay_us, i->delay_us, __ATOMIC_RELAXED);
	__atomic_store_n(&s->link_up_ms, i->link_up_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&s->link_down_ms, i->link_down_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&s->jitter_us, i->jitter_us, __ATOMIC_RELAXED);
	__atomic_store_n(&s->burst_len_max, i->burst_len_max, __ATOMIC_RELAXED);
	__atomic_store_n(&s->dir, i->dir, __ATOMIC_RELAXED);
	__atomic_store_n(&s->rate_mbps, i->rate_mbps, __ATOMIC_RELAXED);
	__atomic_store_n(&s->queue_kb, i->queue_kb, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ecn_kmin_kb, i->ecn_kmin_kb, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ecn_kmax_kb, i->ecn_kmax_kb, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ecn_pmax_ppm, i->ecn_pmax_ppm, __ATOMIC_RELAXED);
}

/* The bottleneck fields (rte_pmd_fault_set_params()). */
int
fault_bneck_check(const struct rte_pmd_fault_params *i)
{
	if (i->rate_mbps == 0)
		return i->queue_kb != 0 || i->ecn_kmin_kb != 0 ||
		       i->ecn_kmax_kb != 0 || i->ecn_pmax_ppm != 0 ?
			-EINVAL : 0;
	if (i->rate_mbps > FAULT_RATE_MAX || i->queue_kb == 0 ||
	    i->queue_kb > FAULT_QUEUE_KB_MAX || i->ecn_pmax_ppm > FAULT_PPM ||
	    i->ecn_kmin_kb > i->ecn_kmax_kb || i->ecn_kmax_kb > i->queue_kb)
		return -EINVAL;
	return 0;
}

int
fault_params_check(const struct rte_pmd_fault_params *i)
{
	if (i->loss_ppm > FAULT_PPM || i->burst_ppm > FAULT_PPM ||
	    i->reorder_ppm > FAULT_PPM || i->dup_ppm > FAULT_PPM ||
	    i->corrupt_ppm > FAULT_PPM)
		return -EINVAL;
	if (i->burst_ppm != 0 && i->burst_len == 0)
		return -EINVAL;
	if (i->burst_len_max != 0 && i->burst_len_max < i->burst_len)
		return -EINVAL;
	if ((i->link_up_ms == 0) != (i->link_down_ms == 0))
		return -EINVAL;
	if (i->dir > RTE_PMD_FAULT_DIR_BOTH)
		return -EINVAL;
	return fault_bneck_check(i);
}

/*
 * The impairments of @p prm that apply to the direction of @p q, in
 * @p eff; false when there are none (the queue may pass frames straight
 * through once its pipeline is empty).
 */
static bool
fault_params_for(const struct fault_q *q, const struct rte_pmd_fault_params *prm,
		 struct rte_pmd_fault_params *eff)
{
	bool on = q->tx ? prm->dir != RTE_PMD_FAULT_DIR_RX :
			  prm->dir != RTE_PMD_FAULT_DIR_TX;

	if (on)
		*eff = *prm;
	else
		memset(eff, 0, sizeof(*eff));
	return eff->loss_ppm != 0 || eff->burst_ppm != 0 ||
	       eff->reorder_ppm != 0 || eff->dup_ppm != 0 ||
	       eff->corrupt_ppm != 0 || eff->delay_us != 0 ||
	       eff->jitter_us != 0 || eff->rate_mbps != 0;
}

bool
fault_link_down(const struct fault_port *p,
		const struct rte_pmd_fault_params *prm, uint64_t now)
{
	uint64_t up, period;

	if (__atomic_load_n(&p->admin_down, __ATOMIC_RELAXED))
		return true;
	if (prm->link_up_ms == 0 || prm->link_down_ms == 0)
		return false;
	up = (uint64_t)prm->link_up_ms * p->hz / 1000;
	period = up + (uint64_t)prm->link_down_ms * p->hz / 1000;
	return period != 0 && (now - p->start_tsc) % period >= up;
}

/* Queue @p m to leave at @p due, but never before the frame ahead of it. */
static void
fault_fifo_push(struct fault_q *q, struct rte_mbuf *m, uint64_t due)
{
	if (q->tail - q->head >= FAULT_FIFO) {
		q->cnt[FAULT_CNT_FIFO_FULL]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (q->head != q->tail && (int64_t)(due - q->last_due) < 0)
		due = q->last_due;
	q->last_due = due;
	q->fifo[q->tail % FAULT_FIFO].m = m;
	q->fifo[q->tail % FAULT_FIFO].due = due;
	q->tail++;
}

/* Drop every frame in flight on @p q into counter @p c. */
void
fault_q_drain(struct fault_q *q, enum fault_cnt c)
{
	if (q->held != NULL) {
		rte_pktmbuf_free(q->held);
		q->held = NULL;
		q->cnt[c]++;
	}
	while (q->head != q->tail) {
		rte_pktmbuf_free(q->fifo[q->head % FAULT_FIFO].m);
		q->head++;
		q->cnt[c]++;
	}
	/* the bottleneck's queue went with them */
	q->bn_free = 0;
	q->bn_rem = 0;
}

/* A private copy of @p m (never write into a sender's or shared buffer). */
static struct rte_mbuf *
fault_copy(struct fault_q *q, const struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, q->p->pool, 0, UINT32_MAX);

	if (c == NULL)
		q->cnt[FAULT_CNT_NOMBUF]++;
	return c;
}

/* Flip one random bit of one random byte of a private copy of @p m. */
static struct rte_mbuf *
fault_corrupt(struct fault_q *q, struct rte_mbuf *m)
{
	struct rte_mbuf *c = fault_copy(q, m), *seg;
	uint32_t off;
	uint64_t r;

	rte_pktmbuf_free(m);
	if (c == NULL || c->pkt_len == 0)
		return c;
	r = fault_rng(q);
	off = (uint32_t)((r >> 32) % c->pkt_len);
	for (seg = c; seg != NULL && off >= seg->data_len; seg = seg->next)
		off -= seg->data_len;
	if (seg != NULL)
		*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^=
			(uint8_t)(1u << (r & 7));
	return c;
}

/* Delay of the next frame: delay_us plus a uniform 0..jitter_us. */
static uint64_t
fault_delay(struct fault_q *q, const struct rte_pmd_fault_params *prm)
{
	uint64_t hz = q->p->hz;
	uint64_t d = (uint64_t)prm->delay_us * hz / 1000000;

	if (prm->jitter_us != 0)
		d += fault_uniform(q, (uint64_t)prm->jitter_us * hz / 1000000 + 1);
	return d;
}

/*
 * Offset of the IPv4/IPv6 header of @p m (behind up to two VLAN tags) and
 * its version in @p v6; -1 when the frame is not IP or the header is not
 * whole in the first segment.
 */
static int
fault_ip_off(const struct rte_mbuf *m, bool *v6)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = 12, t;
	uint16_t type;
	int tags;

	for (tags = 0; tags <= 2; tags++) {
		if (m->data_len < off + 2)
			return -1;
		type = (uint16_t)(d[off] << 8 | d[off + 1]);
		if (type != RTE_ETHER_TYPE_VLAN && type != RTE_ETHER_TYPE_QINQ)
			break;
		off += 4;
	}
	off += 2;
	if (type == RTE_ETHER_TYPE_IPV4)
		t = sizeof(struct rte_ipv4_hdr);
	else if (type == RTE_ETHER_TYPE_IPV6)
		t = 2;
	else
		return -1;
	if (m->data_len < off + t)
		return -1;
	*v6 = type == RTE_ETHER_TYPE_IPV6;
	return (int)off;
}

/* The ECN field of IP header @p ip. */
static inline uint8_t
fault_ecn_get(const uint8_t *ip, bool v6)
{
	return v6 ? (ip[1] >> 4) & 3 : ip[1] & 3;
}

/*
 * Set CE in IP header @p ip; IPv4: the header checksum updated (RFC 1624,
 * eqn. 3). The RoCEv2 ICRC masks the ECN bits: it stays valid.
 */
static void
fault_ecn_set_ce(uint8_t *ip, bool v6)
{
	uint32_t sum;
	uint16_t old, new;

	if (v6) {
		ip[1] |= 0x30;
		return;
	}
	old = (uint16_t)(ip[0] << 8 | ip[1]);
	ip[1] |= 3;
	new = (uint16_t)(ip[0] << 8 | ip[1]);
	sum = (uint16_t)~(ip[10] << 8 | ip[11]);
	sum += (uint16_t)~old;
	sum += new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

uint64_t
fault_bneck_queue(const struct fault_q *q)
{
	struct rte_pmd_fault_params prm;
	uint64_t free_at = __atomic_load_n(&q->bn_free, __ATOMIC_RELAXED);
	uint64_t now = rte_rdtsc();

	fault_params_load(q->p, &prm);
	if (prm.rate_mbps == 0 || (int64_t)(free_at - now) <= 0)
		return 0;
	return (free_at - now) * ((uint64_t)prm.rate_mbps * 125000) / q->p->hz;
}

/*
 * The bottleneck: @p *mp joins the queue of a rate_mbps line at @p now.
 * The queue is what the line has not sent yet (bn_free - now at its rate);
 * a frame that does not fit under queue_kb is tail-dropped, and RED on the
 * queue at arrival marks CE (ECT frames; others are dropped as a RED
 * switch does). @p *dep: when its last byte has left. False: dropped and
 * counted. The header written is the frame's own when nobody else holds
 * it, a private copy otherwise.
 */
static bool
fault_bneck(struct fault_q *q, const struct rte_pmd_fault_params *prm,
	    struct rte_mbuf **mp, uint64_t now, uint64_t *dep)
{
	struct rte_mbuf *m = *mp, *c;
	uint64_t rate = (uint64_t)prm->rate_mbps * 125000;	/* bytes/s */
	uint64_t hz = q->p->hz, qlen = 0, kmin, kmax, p, x;
	uint32_t len = m->pkt_len;
	bool v6 = false;
	int l3;

	if ((int64_t)(q->bn_free - now) > 0) {
		qlen = ((q->bn_free - now) * rate + q->bn_rem) / hz;
	} else {
		q->bn_free = now;	/* idle line */
		q->bn_rem = 0;
	}
	if (qlen + len > (uint64_t)prm->queue_kb * 1024) {
		q->cnt[FAULT_CNT_BN_TAIL_DROP]++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (prm->ecn_pmax_ppm != 0) {
		kmin = (uint64_t)prm->ecn_kmin_kb * 1024;
		kmax = (uint64_t)prm->ecn_kmax_kb * 1024;
		if (qlen < kmin)
			p = 0;
		else if (qlen >= kmax)
			p = FAULT_PPM;
		else
			p = prm->ecn_pmax_ppm * (qlen - kmin) / (kmax - kmin);
		if (fault_chance(q, (uint32_t)p)) {
			l3 = fault_ip_off(m, &v6);
			if (l3 < 0 || fault_ecn_get(rte_pktmbuf_mtod_offset(m,
					const uint8_t *, l3), v6) == 0) {
				q->cnt[FAULT_CNT_BN_RED_DROP]++;
				rte_pktmbuf_free(m);
				return false;
			}
			if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1) {
				c = fault_copy(q, m);
				rte_pktmbuf_free(m);
				if (c == NULL)
					return false;
				*mp = m = c;
			}
			fault_ecn_set_ce(rte_pktmbuf_mtod_offset(m, uint8_t *,
								 l3), v6);
			q->cnt[FAULT_CNT_BN_MARKED]++;
		}
	}
	/* serialisation: len / rate seconds, the remainder carried */
	x = (uint64_t)len * hz + q->bn_rem;
	__atomic_store_n(&q->bn_free, q->bn_free + x / rate, __ATOMIC_RELAXED);
	q->bn_rem = x % rate;
	*dep = q->bn_free;
	q->cnt[FAULT_CNT_BN_BYTES] += len;
	if (qlen + len > q->cnt[FAULT_CNT_BN_PEAK])
		q->cnt[FAULT_CNT_BN_PEAK] = qlen + len;
	return true;
}

static void
fault_impair(struct fault_q *q, const struct rte_pmd_fault_params *prm,
	     struct rte_mbuf *m, uint64_t now, uint64_t hold)
{
	struct rte_mbuf *dup = NULL;
	uint64_t due;
	uint32_t len;

	/* the switch port first; what follows happens past it */
	if (prm->rate_mbps != 0 && !fault_bneck(q, prm, &m, now, &now))
		return;
	if (q->burst_left > 0) {
		q->burst_left--;
		q->cnt[FAULT_CNT_BURST_LOSS]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (fault_chance(q, prm->burst_ppm)) {
		len = prm->burst_len;
		if (prm->burst_len_max > len)
			len += (uint32_t)fault_uniform(q,
					prm->burst_len_max - len + 1);
		q->burst_left = len - 1;
		q->cnt[FAULT_CNT_BURSTS]++;
		q->cnt[FAULT_CNT_BURST_LOSS]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (fault_chance(q, prm->loss_ppm)) {
		q->cnt[FAULT_CNT_LOSS]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (fault_chance(q, prm->corrupt_ppm)) {
		m = fault_corrupt(q, m);
		if (m == NULL)
			return;
		q->cnt[FAULT_CNT_CORRUPT]++;
	}
	if (fault_chance(q, prm->dup_ppm)) {
		dup = fault_copy(q, m);
		if (dup != NULL)
			q->cnt[FAULT_CNT_DUP]++;
	}
	if (q->held == NULL && fault_chance(q, prm->reorder_ppm)) {
		/* behind the next frame (or its hold time) */
		q->cnt[FAULT_CNT_REORDER]++;
		q->held = m;
		q->held_until = now + hold;
		m = dup;
		dup = NULL;
		if (m == NULL)
			return;
	}
	due = now;
	if (prm->delay_us != 0 || prm->jitter_us != 0) {
		q->cnt[FAULT_CNT_DELAYED]++;
		due += fault_delay(q, prm);
	}
	fault_fifo_push(q, m, due);
	if (dup != NULL)
		fault_fifo_push(q, dup, due);
	if (q->held != NULL && q->held != m) {
		fault_fifo_push(q, q->held, due);
		q->held = NULL;
	}
}

/* A held frame whose hold time is over goes into the FIFO. */
static void
fault_release_held(struct fault_q *q, uint64_t now)
{
	if (q->held != NULL && (int64_t)(now - q->held_until) >= 0) {
		fault_fifo_push(q, q->held, now);
		q->held = NULL;
	}
}

static inline bool
fault_head_due(const struct fault_q *q, uint32_t i, uint64_t now)
{
	return q->head + i != q->tail &&
	       (int64_t)(now - q->fifo[(q->head + i) % FAULT_FIFO].due) >= 0;
}

/* Transmit queue: send the frames whose time has come (lock held). */
static void
fault_tx_flush(struct fault_q *q, uint64_t now)
{
	struct rte_mbuf *out[FAULT_BURST];
	uint32_t len[FAULT_BURST];
	uint16_t n, sent, i;

	for (;;) {
		for (n = 0; n < FAULT_BURST && fault_head_due(q, n, now); n++) {
			out[n] = q->fifo[(q->head + n) % FAULT_FIFO].m;
			len[n] = out[n]->pkt_len;
		}
		if (n == 0)
			return;
		sent = rte_eth_tx_burst(q->p->under, q->qid, out, n);
		for (i = 0; i < sent; i++)
			q->cnt[FAULT_CNT_OUT_BYTES] += len[i];
		q->cnt[FAULT_CNT_OUT] += sent;
		q->head += sent;
		if (sent < n)
			return;		/* the rest waits for room below */
	}
}

/*
 * From the receive side: the transmit queue of the same index sends what
 * is due (or drops it all while the link is down) when its sender does
 * not; skipped while the sender holds it.
 */
static void
fault_tx_kick(struct fault_port *p, uint16_t qid, bool down, uint64_t now)
{
	struct fault_q *t;

	if (qid >= p->data->nb_tx_queues)
		return;
	t = p->data->tx_queues[qid];
	if (t == NULL || !rte_spinlock_trylock(&t->lock))
		return;
	if (down) {
		fault_q_drain(t, FAULT_CNT_LINK_DOWN);
	} else {
		fault_release_held(t, now);
		fault_tx_flush(t, now);
	}
	rte_spinlock_unlock(&t->lock);
}

uint16_t
fault_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct fault_q *q = queue;
	struct fault_port *p = q->p;
	struct rte_pmd_fault_params prm, eff;
	struct rte_mbuf *in[FAULT_BURST];
	uint64_t now, hold;
	uint16_t n, i, out = 0;
	bool on;

	fault_params_load(p, &prm);
	now = rte_rdtsc();
	if (fault_link_down(p, &prm, now)) {
		fault_tx_kick(p, q->qid, true, now);
		fault_q_drain(q, FAULT_CNT_LINK_DOWN);
		n = rte_eth_rx_burst(p->under, q->qid, in, FAULT_BURST);
		q->cnt[FAULT_CNT_IN] += n;
		q->cnt[FAULT_CNT_LINK_DOWN] += n;
		rte_pktmbuf_free_bulk(in, n);
		return 0;
	}
	if (prm.dir != RTE_PMD_FAULT_DIR_RX)
		fault_tx_kick(p, q->qid, false, now);
	on = fault_params_for(q, &prm, &eff);
	if (!on && q->head == q->tail && q->held == NULL) {
		/* a clean direction: straight through */
		n = rte_eth_rx_burst(p->under, q->qid, pkts, nb);
		q->cnt[FAULT_CNT_IN] += n;
		q->cnt[FAULT_CNT_OUT] += n;
		for (i = 0; i < n; i++)
			q->cnt[FAULT_CNT_OUT_BYTES] += pkts[i]->pkt_len;
		q->burst_left = 0;
		return n;
	}
	hold = (uint64_t)(eff.reorder_us != 0 ? eff.reorder_us :
			  FAULT_REORDER_US) * p->hz / 1000000;
	/* room for every frame read and its duplicate */
	if (FAULT_FIFO - (q->tail - q->head) >= 2 * FAULT_BURST) {
		n = rte_eth_rx_burst(p->under, q->qid, in, FAULT_BURST);
		q->cnt[FAULT_CNT_IN] += n;
		for (i = 0; i < n; i++)
			fault_impair(q, &eff, in[i], now, hold);
	}
	fault_release_held(q, now);
	while (out < nb && fault_head_due(q, 0, now)) {
		pkts[out] = q->fifo[q->head % FAULT_FIFO].m;
		q->cnt[FAULT_CNT_OUT_BYTES] += pkts[out]->pkt_len;
		out++;
		q->head++;
	}
	q->cnt[FAULT_CNT_OUT] += out;
	return out;
}

uint16_t
fault_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb)
{
	struct fault_q *q = queue;
	struct fault_port *p = q->p;
	struct rte_pmd_fault_params prm, eff;
	uint64_t now, bytes = 0, hold;
	uint16_t sent, i;

	fault_params_load(p, &prm);
	now = rte_rdtsc();
	rte_spinlock_lock(&q->lock);
	if (fault_link_down(p, &prm, now)) {
		/* the cable is out: the frames leave and are lost */
		fault_q_drain(q, FAULT_CNT_LINK_DOWN);
		rte_pktmbuf_free_bulk(pkts, nb);
		q->cnt[FAULT_CNT_IN] += nb;
		q->cnt[FAULT_CNT_LINK_DOWN] += nb;
		rte_spinlock_unlock(&q->lock);
		return nb;
	}
	if (!fault_params_for(q, &prm, &eff) && q->head == q->tail &&
	    q->held == NULL) {
		/* a clean direction: straight through, with back-pressure */
		for (i = 0; i < nb; i++)
			bytes += pkts[i]->pkt_len;
		sent = rte_eth_tx_burst(p->under, q->qid, pkts, nb);
		for (i = sent; i < nb; i++)
			bytes -= pkts[i]->pkt_len;
		q->cnt[FAULT_CNT_IN] += sent;
		q->cnt[FAULT_CNT_OUT] += sent;
		q->cnt[FAULT_CNT_OUT_BYTES] += bytes;
		q->burst_left = 0;
		rte_spinlock_unlock(&q->lock);
		return sent;
	}
	/* every frame is taken: lost, queued, or dropped on a full FIFO */
	hold = (uint64_t)(eff.reorder_us != 0 ? eff.reorder_us :
			  FAULT_REORDER_US) * p->hz / 1000000;
	q->cnt[FAULT_CNT_IN] += nb;
	for (i = 0; i < nb; i++)
		fault_impair(q, &eff, pkts[i], now, hold);
	fault_release_held(q, now);
	fault_tx_flush(q, now);
	rte_spinlock_unlock(&q->lock);
	return nb;
}
