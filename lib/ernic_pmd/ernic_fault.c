/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_fault: a fault-injecting wrapper vdev (rte_pmd_fault.h). It owns an
 * underlying port, forwards configuration, queues and start/stop to it,
 * and impairs the frames of the direction(s) chosen by dir= (receive by
 * default, transmit, or both) in one pipeline per queue:
 *
 *   frame -> [link down?] -> bottleneck (tail drop, RED/ECN marking,
 *     departure at rate_mbps) -> burst loss -> loss -> corrupt
 *     -> reorder (hold behind the next frame) -> dup
 *     -> delay FIFO (delay_us + jitter, never earlier than the frame before)
 *     -> caller (receive) / underlying port (transmit)
 *
 * Each receive queue is owned by the thread that polls it (as any ethdev
 * queue): its generator, held frame, FIFO and counters need no lock. A
 * transmit queue's pipeline is behind a spinlock: its sender takes it in
 * tx_burst, and the receive queue of the same index takes it with a
 * trylock to send the frames whose delay is over when nobody transmits.
 * The parameters are words the control thread stores atomically and the
 * datapath loads once per burst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>
#include <rte_string_fns.h>

#include "rte_pmd_fault.h"

RTE_LOG_REGISTER(fault_logtype, pmd.net.fault, NOTICE);

#define FAULT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, fault_logtype, "net_fault: " fmt "\n", \
		##__VA_ARGS__)

enum {
	FAULT_MAX_QUEUES = 16,
	FAULT_BURST = 64,
	FAULT_FIFO = 8192,		/**< frames in flight per queue */
	FAULT_POOL_SIZE = 2047,		/**< copies (dup, corrupt) */
	FAULT_POOL_ROOM = RTE_PKTMBUF_HEADROOM + 4096 + 256,
	FAULT_PPM = 1000000,
	FAULT_REORDER_US = 100,
	FAULT_BURST_LEN = 8,
	FAULT_QUEUE_KB = 1024,		/**< bottleneck queue by default */
	FAULT_QUEUE_KB_MAX = 1048576,
	FAULT_RATE_MAX = 400000,	/**< Mbit/s */
	FAULT_ECN_PMAX = 10000,		/**< 1 %, with ecn_kmin/kmax_kb */
};

#define FAULT_PARAM_STRING \
	"port=<underlying port name> dir=rx|tx|both loss=<%> " \
	"burst_loss=<%> burst_len=<frames> burst_len_max=<frames> " \
	"reorder=<%> reorder_us=<us> dup=<%> corrupt=<%> delay_us=<us> " \
	"jitter_us=<us> link_up_ms=<ms> link_down_ms=<ms> rate_mbps=<Mbit/s> " \
	"queue_kb=<KiB> ecn_kmin_kb=<KiB> ecn_kmax_kb=<KiB> ecn_pmax=<%> " \
	"seed=<u64>"

/** Counters of one queue, of its direction. */
enum fault_cnt {
	FAULT_CNT_IN,			/**< rx: read from below; tx: taken from the caller */
	FAULT_CNT_OUT,			/**< rx: returned by rx_burst; tx: taken by the port below */
	FAULT_CNT_OUT_BYTES,		/**< bytes of FAULT_CNT_OUT */
	FAULT_CNT_LOSS,
	FAULT_CNT_BURST_LOSS,		/**< frames lost in bursts */
	FAULT_CNT_BURSTS,		/**< bursts started */
	FAULT_CNT_REORDER,
	FAULT_CNT_DUP,
	FAULT_CNT_CORRUPT,
	FAULT_CNT_DELAYED,
	FAULT_CNT_LINK_DOWN,
	FAULT_CNT_FIFO_FULL,
	FAULT_CNT_NOMBUF,		/**< no copy for a dup (skipped) or a corrupt (dropped) */
	FAULT_CNT_BN_BYTES,		/**< bytes through the bottleneck */
	FAULT_CNT_BN_MARKED,		/**< CE marks set */
	FAULT_CNT_BN_TAIL_DROP,		/**< queue full */
	FAULT_CNT_BN_RED_DROP,		/**< not ECN-capable where a mark was due */
	FAULT_CNT_BN_PEAK,		/**< highest queue seen, bytes (a gauge) */
	FAULT_CNT_MAX,
};

/** The xstats: a counter of the receive or of the transmit queues. */
static const struct {
	const char *name;
	bool tx;
	enum fault_cnt c;
} fault_xstats[] = {
	{ "rx_frames", false, FAULT_CNT_IN },
	{ "rx_delivered", false, FAULT_CNT_OUT },
	{ "tx_frames", true, FAULT_CNT_OUT },
	{ "fault_loss", false, FAULT_CNT_LOSS },
	{ "fault_burst_loss", false, FAULT_CNT_BURST_LOSS },
	{ "fault_bursts", false, FAULT_CNT_BURSTS },
	{ "fault_reorder", false, FAULT_CNT_REORDER },
	{ "fault_dup", false, FAULT_CNT_DUP },
	{ "fault_corrupt", false, FAULT_CNT_CORRUPT },
	{ "fault_delayed", false, FAULT_CNT_DELAYED },
	{ "fault_link_down_rx", false, FAULT_CNT_LINK_DOWN },
	{ "fault_link_down_tx", true, FAULT_CNT_LINK_DOWN },
	{ "fault_drop_fifo_full", false, FAULT_CNT_FIFO_FULL },
	{ "fault_drop_nombuf", false, FAULT_CNT_NOMBUF },
	{ "rx_delivered_bytes", false, FAULT_CNT_OUT_BYTES },
	{ "tx_offered", true, FAULT_CNT_IN },
	{ "tx_bytes", true, FAULT_CNT_OUT_BYTES },
	{ "fault_tx_loss", true, FAULT_CNT_LOSS },
	{ "fault_tx_burst_loss", true, FAULT_CNT_BURST_LOSS },
	{ "fault_tx_bursts", true, FAULT_CNT_BURSTS },
	{ "fault_tx_reorder", true, FAULT_CNT_REORDER },
	{ "fault_tx_dup", true, FAULT_CNT_DUP },
	{ "fault_tx_corrupt", true, FAULT_CNT_CORRUPT },
	{ "fault_tx_delayed", true, FAULT_CNT_DELAYED },
	{ "fault_tx_drop_fifo_full", true, FAULT_CNT_FIFO_FULL },
	{ "fault_tx_drop_nombuf", true, FAULT_CNT_NOMBUF },
	{ "fault_bneck_bytes", false, FAULT_CNT_BN_BYTES },
	{ "fault_ecn_marked", false, FAULT_CNT_BN_MARKED },
	{ "fault_bneck_tail_drop", false, FAULT_CNT_BN_TAIL_DROP },
	{ "fault_bneck_red_drop", false, FAULT_CNT_BN_RED_DROP },
	{ "fault_bneck_queue_peak", false, FAULT_CNT_BN_PEAK },
	{ "fault_tx_bneck_bytes", true, FAULT_CNT_BN_BYTES },
	{ "fault_tx_ecn_marked", true, FAULT_CNT_BN_MARKED },
	{ "fault_tx_bneck_tail_drop", true, FAULT_CNT_BN_TAIL_DROP },
	{ "fault_tx_bneck_red_drop", true, FAULT_CNT_BN_RED_DROP },
	{ "fault_tx_bneck_queue_peak", true, FAULT_CNT_BN_PEAK },
};

#define FAULT_NB_XSTATS RTE_DIM(fault_xstats)

struct fault_port;

struct fault_slot {
	struct rte_mbuf *m;
	uint64_t due;		/**< TSC at which it may leave */
};

/** The impairment pipeline of one receive or transmit queue. */
struct fault_q {
	struct fault_port *p;
	uint16_t qid;
	bool tx;
	rte_spinlock_t lock;	/**< tx only: sender vs. the receive side's flush */
	uint64_t rng;		/**< xorshift64* state */
	uint32_t burst_left;	/**< frames still to lose in this burst */
	struct rte_mbuf *held;	/**< reordered frame waiting for the next */
	uint64_t held_until;
	uint64_t last_due;	/**< due time of the newest frame in the FIFO */
	uint32_t head, tail;	/**< FIFO: free-running indexes */
	uint64_t bn_free;	/**< TSC: the bottleneck has sent its queue */
	uint64_t bn_rem;	/**< remainder of bn_free, 1/(rate bytes/s) cycles */
	uint64_t cnt[FAULT_CNT_MAX];
	struct fault_slot fifo[FAULT_FIFO];
} __rte_cache_aligned;

struct fault_port {
	uint16_t port_id;
	uint16_t under;
	bool owned;
	struct rte_eth_dev_owner owner;
	struct rte_ether_addr mac;
	struct rte_eth_dev_data *data;
	struct rte_mempool *pool;	/**< copies for dup and corrupt */
	uint64_t seed;
	uint64_t hz;
	uint64_t start_tsc;		/**< flap phase origin */
	uint8_t admin_down;		/**< rte_pmd_fault_set_link(), atomic */
	struct rte_pmd_fault_params prm;	/**< fields stored atomically */
	uint64_t base[FAULT_NB_XSTATS];	/**< xstats at the last reset */
};

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

static void
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

static void
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
static int
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

static int
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

static bool
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
static void
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
	q->bn_free += x / rate;
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

static uint16_t
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

static uint16_t
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

/* ------------------------------------------------------------------ */
/* dev_ops                                                            */
/* ------------------------------------------------------------------ */

static const struct eth_dev_ops fault_ops;

static struct fault_port *
fault_port_get(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &fault_ops)
		return NULL;
	return dev->data->dev_private;
}

static int
fault_dev_configure(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_eth_dev_data *d = dev->data;
	int ret;

	if (rte_eth_devices[p->under].data->dev_started)
		rte_eth_dev_stop(p->under);
	ret = rte_eth_dev_configure(p->under, d->nb_rx_queues,
				    d->nb_tx_queues, &d->dev_conf);
	if (ret != 0)
		FAULT_LOG(ERR, "%s: configuring underlying port %u (%u rxq, %u txq): %s",
			  d->name, p->under, d->nb_rx_queues, d->nb_tx_queues,
			  rte_strerror(-ret));
	return ret;
}

static int
fault_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_eth_dev_info ui;
	int ret;

	ret = rte_eth_dev_info_get(p->under, &ui);
	if (ret != 0)
		return ret;
	info->max_mac_addrs = 1;
	info->min_rx_bufsize = ui.min_rx_bufsize;
	info->max_rx_pktlen = ui.max_rx_pktlen;
	info->min_mtu = ui.min_mtu;
	info->max_mtu = ui.max_mtu;
	info->max_rx_queues = RTE_MIN(ui.max_rx_queues,
				      (uint16_t)FAULT_MAX_QUEUES);
	info->max_tx_queues = RTE_MIN(ui.max_tx_queues,
				      (uint16_t)FAULT_MAX_QUEUES);
	info->rx_offload_capa = ui.rx_offload_capa;
	info->tx_offload_capa = ui.tx_offload_capa;
	info->rx_queue_offload_capa = ui.rx_queue_offload_capa;
	info->tx_queue_offload_capa = ui.tx_queue_offload_capa;
	info->flow_type_rss_offloads = ui.flow_type_rss_offloads;
	info->reta_size = ui.reta_size;
	info->hash_key_size = ui.hash_key_size;
	info->rx_desc_lim = ui.rx_desc_lim;
	info->tx_desc_lim = ui.tx_desc_lim;
	info->speed_capa = ui.speed_capa;
	info->default_rxportconf = ui.default_rxportconf;
	info->default_txportconf = ui.default_txportconf;
	info->default_rxconf = ui.default_rxconf;
	info->default_txconf = ui.default_txconf;
	return 0;
}

static void
fault_q_release(struct fault_q *q)
{
	if (q == NULL)
		return;
	fault_q_drain(q, FAULT_CNT_LINK_DOWN);
	rte_free(q);
}

static void
fault_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	fault_q_release(dev->data->rx_queues[qid]);
	dev->data->rx_queues[qid] = NULL;
}

static void
fault_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	fault_q_release(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

/*
 * A queue's pipeline; its generator is splitmix64 of (seed, queue,
 * direction): never 0, distinct per queue and direction, and for the
 * receive queues the same as before transmit faults existed.
 */
static struct fault_q *
fault_q_new(struct fault_port *p, uint16_t qid, bool tx, unsigned int socket)
{
	struct fault_q *q;
	uint64_t s;
	int i;

	q = rte_zmalloc_socket(tx ? "fault_txq" : "fault_rxq", sizeof(*q),
			       RTE_CACHE_LINE_SIZE, (int)socket);
	if (q == NULL)
		return NULL;
	q->p = p;
	q->qid = qid;
	q->tx = tx;
	rte_spinlock_init(&q->lock);
	s = p->seed + (uint64_t)(qid + 1) * 0x9e3779b97f4a7c15ULL;
	if (tx)
		s ^= 0x7478717565756573ULL;	/* "txqueues" */
	for (i = 0; i < 2; i++) {
		s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
		s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
		s ^= s >> 31;
	}
	q->rng = s != 0 ? s : 1;
	return q;
}

static int
fault_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_rxconf *conf,
		     struct rte_mempool *mp)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	int ret;

	ret = rte_eth_rx_queue_setup(p->under, qid, nb_desc, socket, conf, mp);
	if (ret != 0)
		return ret;
	q = fault_q_new(p, qid, false, socket);
	if (q == NULL)
		return -ENOMEM;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
fault_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	int ret;

	ret = rte_eth_tx_queue_setup(p->under, qid, nb_desc, socket, conf);
	if (ret != 0)
		return ret;
	q = fault_q_new(p, qid, true, socket);
	if (q == NULL)
		return -ENOMEM;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static int
fault_dev_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_pmd_fault_params prm;
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (!dev->data->dev_started ||
	    rte_eth_link_get_nowait(p->under, &link) != 0)
		memset(&link, 0, sizeof(link));
	fault_params_load(p, &prm);
	if (fault_link_down(p, &prm, rte_rdtsc()))
		link.link_status = RTE_ETH_LINK_DOWN;
	return rte_eth_linkstatus_set(dev, &link);
}

static int
fault_dev_start(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	uint16_t i;
	int ret;

	ret = rte_eth_dev_start(p->under);
	if (ret != 0) {
		FAULT_LOG(ERR, "%s: starting underlying port %u: %s",
			  dev->data->name, p->under, rte_strerror(-ret));
		return ret;
	}
	p->start_tsc = rte_rdtsc();
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	fault_dev_link_update(dev, 0);
	return 0;
}

static int
fault_dev_stop(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	uint16_t i;

	/* frames in flight go now: their pools may go with the caller */
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] != NULL)
			fault_q_drain(dev->data->rx_queues[i],
				      FAULT_CNT_LINK_DOWN);
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct fault_q *t = dev->data->tx_queues[i];

		if (t != NULL) {
			rte_spinlock_lock(&t->lock);
			fault_q_drain(t, FAULT_CNT_LINK_DOWN);
			rte_spinlock_unlock(&t->lock);
		}
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	if (rte_eth_dev_is_valid_port(p->under))
		rte_eth_dev_stop(p->under);
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	return 0;
}

static void
fault_port_release(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	bool under_ok = rte_eth_dev_is_valid_port(p->under);
	uint16_t i;

	if (dev->data->dev_started && under_ok)
		rte_eth_dev_stop(p->under);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		fault_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		fault_tx_queue_release(dev, i);
	if (p->owned && under_ok)
		rte_eth_dev_owner_unset(p->under, p->owner.id);
	p->owned = false;
	rte_mempool_free(p->pool);
	p->pool = NULL;
}

static int
fault_dev_close(struct rte_eth_dev *dev)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	fault_port_release(dev);
	/* mac_addrs is part of dev_private */
	dev->data->mac_addrs = NULL;
	return 0;
}

/* Accumulate counter @p c of queue @p q into @p v: a sum, the peak a max. */
static inline void
fault_cnt_add(const struct fault_q *q, enum fault_cnt c, uint64_t *v)
{
	uint64_t x;

	if (q == NULL)
		return;
	x = __atomic_load_n(&q->cnt[c], __ATOMIC_RELAXED);
	if (c == FAULT_CNT_BN_PEAK)
		*v = RTE_MAX(*v, x);
	else
		*v += x;
}

/*
 * Every xstat, summed over the queues of its direction (not reset-based;
 * the queue peaks: the highest of the queues).
 */
static void
fault_cnt_sum(const struct rte_eth_dev *dev, uint64_t v[FAULT_NB_XSTATS])
{
	unsigned int i, x;

	memset(v, 0, FAULT_NB_XSTATS * sizeof(v[0]));
	for (x = 0; x < FAULT_NB_XSTATS; x++) {
		if (fault_xstats[x].tx) {
			for (i = 0; i < dev->data->nb_tx_queues; i++)
				fault_cnt_add(dev->data->tx_queues[i],
					      fault_xstats[x].c, &v[x]);
		} else {
			for (i = 0; i < dev->data->nb_rx_queues; i++)
				fault_cnt_add(dev->data->rx_queues[i],
					      fault_xstats[x].c, &v[x]);
		}
	}
}

/*
 * A reset: the counters' base becomes their current value; the queue
 * peaks (gauges) restart from 0 (a store the datapath may race with by
 * one frame).
 */
static void
fault_cnt_reset(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	unsigned int i, x;

	fault_cnt_sum(dev, p->base);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		q = dev->data->rx_queues[i];
		if (q != NULL)
			__atomic_store_n(&q->cnt[FAULT_CNT_BN_PEAK], 0,
					 __ATOMIC_RELAXED);
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		q = dev->data->tx_queues[i];
		if (q != NULL)
			__atomic_store_n(&q->cnt[FAULT_CNT_BN_PEAK], 0,
					 __ATOMIC_RELAXED);
	}
	for (x = 0; x < FAULT_NB_XSTATS; x++)
		if (fault_xstats[x].c == FAULT_CNT_BN_PEAK)
			p->base[x] = 0;
}

/* Index of xstat @p name (a name of fault_xstats[]). */
static unsigned int
fault_xstat_idx(const char *name)
{
	unsigned int x;

	for (x = 0; x < FAULT_NB_XSTATS; x++)
		if (strcmp(fault_xstats[x].name, name) == 0)
			break;
	RTE_VERIFY(x < FAULT_NB_XSTATS);
	return x;
}

static int
fault_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct fault_port *p = dev->data->dev_private;
	uint64_t v[FAULT_NB_XSTATS];
	struct rte_eth_stats us;
	unsigned int ip = fault_xstat_idx("rx_delivered");
	unsigned int ib = fault_xstat_idx("rx_delivered_bytes");
	unsigned int op = fault_xstat_idx("tx_frames");
	unsigned int ob = fault_xstat_idx("tx_bytes");

	if (rte_eth_stats_get(p->under, &us) != 0)
		memset(&us, 0, sizeof(us));
	fault_cnt_sum(dev, v);
	/* what crossed this port, after the faults (those are in xstats) */
	st->ipackets = v[ip] - p->base[ip];
	st->ibytes = v[ib] - p->base[ib];
	st->opackets = v[op] - p->base[op];
	st->obytes = v[ob] - p->base[ob];
	st->imissed = us.imissed;
	st->ierrors = us.ierrors;
	st->oerrors = us.oerrors;
	st->rx_nombuf = us.rx_nombuf;
	return 0;
}

static int
fault_stats_reset(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	fault_cnt_reset(dev);
	return rte_eth_stats_reset(p->under);
}

static int
fault_xstats_get_names(struct rte_eth_dev *dev __rte_unused,
		       struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int i;

	if (names == NULL || size < FAULT_NB_XSTATS)
		return FAULT_NB_XSTATS;
	for (i = 0; i < FAULT_NB_XSTATS; i++)
		rte_strscpy(names[i].name, fault_xstats[i].name,
			    sizeof(names[i].name));
	return FAULT_NB_XSTATS;
}

static int
fault_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int size)
{
	struct fault_port *p = dev->data->dev_private;
	uint64_t v[FAULT_NB_XSTATS];
	unsigned int i;

	if (xs == NULL || size < FAULT_NB_XSTATS)
		return FAULT_NB_XSTATS;
	fault_cnt_sum(dev, v);
	for (i = 0; i < FAULT_NB_XSTATS; i++) {
		xs[i].id = i;
		xs[i].value = v[i] - p->base[i];
	}
	return FAULT_NB_XSTATS;
}

static int
fault_xstats_reset(struct rte_eth_dev *dev)
{
	fault_cnt_reset(dev);
	return 0;
}

static int
fault_promiscuous_enable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_enable(p->under);
}

static int
fault_promiscuous_disable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_disable(p->under);
}

static int
fault_allmulticast_enable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_allmulticast_enable(p->under);
}

static int
fault_allmulticast_disable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_allmulticast_disable(p->under);
}

static int
fault_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_set_mtu(p->under, mtu);
}

static int
fault_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct fault_port *p = dev->data->dev_private;
	int ret;

	if (rte_is_same_ether_addr(addr, &p->mac))
		return 0;
	ret = rte_eth_dev_default_mac_addr_set(p->under, addr);
	if (ret == 0)
		p->mac = *addr;
	return ret;
}

static int
fault_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *addr,
		   uint32_t index __rte_unused, uint32_t vmdq)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_mac_addr_add(p->under, addr, vmdq);
}

static int
fault_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc,
		       uint32_t nb)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_set_mc_addr_list(p->under, mc, nb);
}

static const struct eth_dev_ops fault_ops = {
	.dev_configure = fault_dev_configure,
	.dev_start = fault_dev_start,
	.dev_stop = fault_dev_stop,
	.dev_close = fault_dev_close,
	.dev_infos_get = fault_dev_infos_get,
	.link_update = fault_dev_link_update,
	.rx_queue_setup = fault_rx_queue_setup,
	.tx_queue_setup = fault_tx_queue_setup,
	.rx_queue_release = fault_rx_queue_release,
	.tx_queue_release = fault_tx_queue_release,
	.stats_get = fault_stats_get,
	.stats_reset = fault_stats_reset,
	.xstats_get = fault_xstats_get,
	.xstats_get_names = fault_xstats_get_names,
	.xstats_reset = fault_xstats_reset,
	.promiscuous_enable = fault_promiscuous_enable,
	.promiscuous_disable = fault_promiscuous_disable,
	.allmulticast_enable = fault_allmulticast_enable,
	.allmulticast_disable = fault_allmulticast_disable,
	.mtu_set = fault_mtu_set,
	.mac_addr_set = fault_mac_addr_set,
	.mac_addr_add = fault_mac_addr_add,
	.set_mc_addr_list = fault_set_mc_addr_list,
};

/* ------------------------------------------------------------------ */
/* devargs                                                            */
/* ------------------------------------------------------------------ */

struct fault_args {
	char port[RTE_ETH_NAME_MAX_LEN];
	uint64_t seed;
	struct rte_pmd_fault_params prm;
};

/* A percentage in [0, 100] ("1", "0.1", "2.5%") as parts per million. */
static int
fault_parse_pct(const char *val, uint32_t *ppm)
{
	char *end;
	double v;

	if (val == NULL || *val == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(val, &end);
	if (*end == '%')
		end++;
	if (errno != 0 || end == val || *end != '\0' || !(v >= 0.0) ||
	    v > 100.0)
		return -EINVAL;
	*ppm = (uint32_t)(v * 10000.0 + 0.5);
	return 0;
}

static int
fault_parse_u64(const char *val, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (val == NULL || *val == '\0' || *val == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno != 0 || *end != '\0' || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
fault_parse_u32(const char *val, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (fault_parse_u64(val, hi, &v) != 0 || v < lo)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

enum fault_key_kind { FK_PORT, FK_PCT, FK_U32, FK_SEED, FK_DIR };

/* dir=rx|tx|both as enum rte_pmd_fault_dir. */
static int
fault_parse_dir(const char *val, uint32_t *dir)
{
	if (val == NULL)
		return -EINVAL;
	if (strcmp(val, "rx") == 0)
		*dir = RTE_PMD_FAULT_DIR_RX;
	else if (strcmp(val, "tx") == 0)
		*dir = RTE_PMD_FAULT_DIR_TX;
	else if (strcmp(val, "both") == 0)
		*dir = RTE_PMD_FAULT_DIR_BOTH;
	else
		return -EINVAL;
	return 0;
}

static const struct {
	const char *key;
	enum fault_key_kind kind;
	size_t off;		/**< into struct rte_pmd_fault_params */
	uint32_t lo, hi;
	const char *form;
} fault_keys[] = {
	{ "port", FK_PORT, 0, 0, 0, "the name of an existing, unowned port" },
	{ "dir", FK_DIR, offsetof(struct rte_pmd_fault_params, dir),
	  0, 0, "rx, tx or both" },
	{ "loss", FK_PCT, offsetof(struct rte_pmd_fault_params, loss_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "burst_loss", FK_PCT, offsetof(struct rte_pmd_fault_params, burst_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "burst_len", FK_U32, offsetof(struct rte_pmd_fault_params, burst_len),
	  1, 1000000, "frames per loss burst, 1..1000000" },
	{ "burst_len_max", FK_U32, offsetof(struct rte_pmd_fault_params, burst_len_max),
	  1, 1000000, "frames, 1..1000000, at least burst_len" },
	{ "reorder", FK_PCT, offsetof(struct rte_pmd_fault_params, reorder_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "reorder_us", FK_U32, offsetof(struct rte_pmd_fault_params, reorder_us),
	  1, 10000000, "microseconds, 1..10000000" },
	{ "dup", FK_PCT, offsetof(struct rte_pmd_fault_params, dup_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "corrupt", FK_PCT, offsetof(struct rte_pmd_fault_params, corrupt_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "delay_us", FK_U32, offsetof(struct rte_pmd_fault_params, delay_us),
	  0, 10000000, "microseconds, 0..10000000" },
	{ "jitter_us", FK_U32, offsetof(struct rte_pmd_fault_params, jitter_us),
	  0, 10000000, "microseconds, 0..10000000" },
	{ "link_up_ms", FK_U32, offsetof(struct rte_pmd_fault_params, link_up_ms),
	  1, 86400000, "milliseconds, 1..86400000" },
	{ "link_down_ms", FK_U32, offsetof(struct rte_pmd_fault_params, link_down_ms),
	  1, 86400000, "milliseconds, 1..86400000" },
	{ "rate_mbps", FK_U32, offsetof(struct rte_pmd_fault_params, rate_mbps),
	  1, FAULT_RATE_MAX, "Mbit/s, 1..400000" },
	{ "queue_kb", FK_U32, offsetof(struct rte_pmd_fault_params, queue_kb),
	  1, FAULT_QUEUE_KB_MAX, "KiB, 1..1048576" },
	{ "ecn_kmin_kb", FK_U32, offsetof(struct rte_pmd_fault_params, ecn_kmin_kb),
	  0, FAULT_QUEUE_KB_MAX, "KiB, 0..1048576" },
	{ "ecn_kmax_kb", FK_U32, offsetof(struct rte_pmd_fault_params, ecn_kmax_kb),
	  0, FAULT_QUEUE_KB_MAX, "KiB, 0..1048576" },
	{ "ecn_pmax", FK_PCT, offsetof(struct rte_pmd_fault_params, ecn_pmax_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "seed", FK_SEED, 0, 0, 0, "an unsigned 64-bit integer" },
};

static int
fault_args_parse(const char *name, const char *params, struct fault_args *a)
{
	const struct rte_kvargs_pair *pair;
	struct rte_kvargs *kv;
	unsigned int i, k;
	bool ecn_k = false, ecn_p = false, qkb = false;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->seed = 1;
	a->prm.burst_len = FAULT_BURST_LEN;
	a->prm.reorder_us = FAULT_REORDER_US;
	kv = rte_kvargs_parse(params != NULL ? params : "", NULL);
	if (kv == NULL) {
		FAULT_LOG(ERR, "%s: cannot parse devargs \"%s\": expected %s",
			  name, params, FAULT_PARAM_STRING);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		pair = &kv->pairs[i];
		for (k = 0; k < RTE_DIM(fault_keys); k++)
			if (strcmp(pair->key, fault_keys[k].key) == 0)
				break;
		if (k == RTE_DIM(fault_keys)) {
			FAULT_LOG(ERR, "%s: unknown devarg \"%s\": expected %s",
				  name, pair->key, FAULT_PARAM_STRING);
			ret = -EINVAL;
			break;
		}
		if (rte_kvargs_count(kv, pair->key) > 1) {
			FAULT_LOG(ERR, "%s: devarg %s= given more than once",
				  name, pair->key);
			ret = -EINVAL;
			break;
		}
		switch (fault_keys[k].kind) {
		case FK_PORT:
			if (pair->value == NULL || *pair->value == '\0' ||
			    strlen(pair->value) >= sizeof(a->port))
				ret = -EINVAL;
			else
				rte_strlcpy(a->port, pair->value,
					    sizeof(a->port));
			break;
		case FK_PCT:
			ret = fault_parse_pct(pair->value,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		case FK_U32:
			ret = fault_parse_u32(pair->value, fault_keys[k].lo,
				fault_keys[k].hi,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		case FK_SEED:
			ret = fault_parse_u64(pair->value, UINT64_MAX,
					      &a->seed);
			break;
		case FK_DIR:
			ret = fault_parse_dir(pair->value,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		}
		if (ret != 0)
			FAULT_LOG(ERR, "%s: bad devarg %s=%s: expected %s",
				  name, pair->key,
				  pair->value != NULL ? pair->value : "",
				  fault_keys[k].form);
		ecn_k |= strncmp(pair->key, "ecn_k", 5) == 0;
		ecn_p |= strcmp(pair->key, "ecn_pmax") == 0;
		qkb |= strcmp(pair->key, "queue_kb") == 0;
	}
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	/* a bottleneck: 1 MiB of queue, RED at the DCQCN paper's 1 % */
	if (a->prm.rate_mbps != 0 && !qkb)
		a->prm.queue_kb = FAULT_QUEUE_KB;
	if (a->prm.rate_mbps != 0 && ecn_k && !ecn_p)
		a->prm.ecn_pmax_ppm = FAULT_ECN_PMAX;
	if (fault_bneck_check(&a->prm) != 0) {
		FAULT_LOG(ERR, "%s: bad bottleneck devargs (rate_mbps=%u queue_kb=%u ecn_kmin_kb=%u ecn_kmax_kb=%u): queue_kb= and ecn_*= need rate_mbps=, and ecn_kmin_kb <= ecn_kmax_kb <= queue_kb",
			  name, a->prm.rate_mbps, a->prm.queue_kb,
			  a->prm.ecn_kmin_kb, a->prm.ecn_kmax_kb);
		return -EINVAL;
	}
	if (a->port[0] == '\0') {
		FAULT_LOG(ERR, "%s: missing devarg port= (the port to impair, e.g. net_ring0)",
			  name);
		return -EINVAL;
	}
	if ((a->prm.link_up_ms == 0) != (a->prm.link_down_ms == 0)) {
		FAULT_LOG(ERR, "%s: link_up_ms= and link_down_ms= go together (a flap: up, then down, repeated)",
			  name);
		return -EINVAL;
	}
	if (a->prm.burst_len_max != 0 &&
	    a->prm.burst_len_max < a->prm.burst_len) {
		FAULT_LOG(ERR, "%s: bad devarg burst_len_max=%u: expected at least burst_len (%u)",
			  name, a->prm.burst_len_max, a->prm.burst_len);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* probe / remove                                                     */
/* ------------------------------------------------------------------ */

static int
fault_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	char pname[RTE_MEMPOOL_NAMESIZE];
	struct rte_eth_dev_owner o;
	struct rte_eth_dev *dev;
	struct fault_port *p;
	struct fault_args a;
	uint16_t under;
	int socket, ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		FAULT_LOG(ERR, "%s: secondary processes are not supported",
			  name);
		return -ENOTSUP;
	}
	ret = fault_args_parse(name, rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	if (rte_eth_dev_get_port_by_name(a.port, &under) != 0) {
		FAULT_LOG(ERR, "%s: bad devarg port=%s: no such ethdev (expected the name of an existing port, e.g. net_ring0)",
			  name, a.port);
		return -ENODEV;
	}
	if (rte_eth_dev_owner_get(under, &o) == 0 &&
	    o.id != RTE_ETH_DEV_NO_OWNER) {
		FAULT_LOG(ERR, "%s: bad devarg port=%s: the port is owned by \"%s\"",
			  name, a.port, o.name);
		return -EBUSY;
	}
	socket = rte_eth_dev_socket_id(under);
	if (socket < 0)
		socket = (int)rte_socket_id();
	vdev->device.numa_node = socket;
	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL) {
		FAULT_LOG(ERR, "%s: cannot allocate the ethdev", name);
		return -ENOMEM;
	}
	p = dev->data->dev_private;
	p->port_id = dev->data->port_id;
	p->under = under;
	p->seed = a.seed;
	p->hz = rte_get_tsc_hz();
	p->data = dev->data;
	fault_params_store(p, &a.prm);
	if (rte_eth_macaddr_get(under, &p->mac) != 0)
		rte_eth_random_addr(p->mac.addr_bytes);

	ret = rte_eth_dev_owner_new(&p->owner.id);
	if (ret == 0) {
		snprintf(p->owner.name, sizeof(p->owner.name), "%s", name);
		ret = rte_eth_dev_owner_set(under, &p->owner);
	}
	if (ret != 0) {
		FAULT_LOG(ERR, "%s: cannot take ownership of port %s: %s",
			  name, a.port, rte_strerror(-ret));
		goto fail;
	}
	p->owned = true;
	snprintf(pname, sizeof(pname), "fault%u_cp", p->port_id);
	p->pool = rte_pktmbuf_pool_create(pname, FAULT_POOL_SIZE, 64, 0,
					  FAULT_POOL_ROOM, socket);
	if (p->pool == NULL) {
		ret = -rte_errno;
		FAULT_LOG(ERR, "%s: cannot create mbuf pool %s: %s", name,
			  pname, rte_strerror(rte_errno));
		goto fail;
	}
	dev->data->mac_addrs = &p->mac;
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	dev->data->dev_link.link_autoneg = RTE_ETH_LINK_AUTONEG;
	dev->dev_ops = &fault_ops;
	dev->rx_pkt_burst = fault_rx_burst;
	dev->tx_pkt_burst = fault_tx_burst;
	rte_eth_dev_probing_finish(dev);
	FAULT_LOG(INFO, "%s: port %u on %s (port %u), %s: loss %u burst %u x %u..%u reorder %u dup %u corrupt %u ppm, delay %u + 0..%u us, flap %u/%u ms, bottleneck %u Mbit/s queue %u KiB ECN %u..%u KiB %u ppm, seed %" PRIu64,
		  name, p->port_id, a.port, under,
		  a.prm.dir == RTE_PMD_FAULT_DIR_RX ? "rx" :
		  a.prm.dir == RTE_PMD_FAULT_DIR_TX ? "tx" : "rx and tx",
		  a.prm.loss_ppm, a.prm.burst_ppm, a.prm.burst_len,
		  RTE_MAX(a.prm.burst_len, a.prm.burst_len_max),
		  a.prm.reorder_ppm, a.prm.dup_ppm, a.prm.corrupt_ppm,
		  a.prm.delay_us, a.prm.jitter_us,
		  a.prm.link_up_ms, a.prm.link_down_ms, a.prm.rate_mbps,
		  a.prm.queue_kb, a.prm.ecn_kmin_kb, a.prm.ecn_kmax_kb,
		  a.prm.ecn_pmax_ppm, a.seed);
	return 0;
fail:
	fault_port_release(dev);
	dev->data->mac_addrs = NULL;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int
fault_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;	/* closed by rte_eth_dev_close() already */
	fault_dev_close(dev);
	rte_eth_dev_release_port(dev);
	return 0;
}

static struct rte_vdev_driver fault_vdev_drv = {
	.probe = fault_probe,
	.remove = fault_remove,
};

RTE_PMD_REGISTER_VDEV(net_fault, fault_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_fault, FAULT_PARAM_STRING);

/* ------------------------------------------------------------------ */
/* rte_pmd_fault.h                                                    */
/* ------------------------------------------------------------------ */

int
rte_pmd_fault_get_params(uint16_t port_id, struct rte_pmd_fault_params *prm)
{
	struct fault_port *p = fault_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	if (prm == NULL)
		return -EINVAL;
	fault_params_load(p, prm);
	return 0;
}

int
rte_pmd_fault_set_params(uint16_t port_id,
			 const struct rte_pmd_fault_params *prm)
{
	struct fault_port *p = fault_port_get(port_id);
	struct rte_pmd_fault_params c;

	if (p == NULL)
		return -ENODEV;
	if (prm == NULL || fault_params_check(prm) != 0)
		return -EINVAL;
	c = *prm;
	if (c.burst_len == 0)
		c.burst_len = FAULT_BURST_LEN;
	if (c.burst_len_max != 0 && c.burst_len_max < c.burst_len)
		return -EINVAL;
	fault_params_store(p, &c);
	return 0;
}

int
rte_pmd_fault_set_link(uint16_t port_id, bool up)
{
	struct fault_port *p = fault_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	__atomic_store_n(&p->admin_down, up ? 0 : 1, __ATOMIC_RELAXED);
	return 0;
}

int
rte_pmd_fault_underlying_port(uint16_t port_id)
{
	struct fault_port *p = fault_port_get(port_id);

	return p != NULL ? p->under : -ENODEV;
}
