/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ERNIC RoCE/non-RoCE split and the net_ernic port's own burst
 * functions.
 *
 * RX, per frame read from the underlying port by a worker:
 *   RoCEv2 (UDP dport 4791 to a local address) -> the worker that owns the
 *     destination QP (roce_worker_rx_parsed with the view roce_parse()
 *     made to classify it, or that worker's handoff ring);
 *   ARP for our IPv4, NS/NA for our IPv6 addresses -> worker 0's neighbour
 *     code;
 *   everything else -> app_ring, drained by the port's rx_burst, and a
 *     copy to the exception tap when configured.
 * Only frames in our VLAN (vlan=) or untagged (no vlan=) are ours.
 *
 * TX: the application's frames go out through a spare underlying TX queue
 * when the port has one, otherwise through out_ring, which worker 0 drains.
 *
 * Capture: the RoCE frames the workers receive and send are shown to the
 * port's own queue-0 RX/TX callbacks (ernic_mirror()), so dpdk-dumpcap on
 * the net_ernic port sees the RoCE traffic next to the application's.
 */
#include <string.h>

#include <rte_arp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "ernic_priv.h"
#include "roce_driver.h"
#include "roce_hdr.h"
#include "roce_mbuf.h"
#include "roce_parse.h"

/* Bytes the classifier looks at: Ethernet, VLAN, IPv6, ICMPv6 NS target. */
#define ERNIC_CLASSIFY_LEN (ROCE_ETH_HLEN + ROCE_VLAN_HLEN + \
			    ROCE_IPV6_HLEN + 8 + 16)

static inline bool
ip6_is_ours(const struct ernic_port *p, const uint8_t *a)
{
	return ernic_is_local_ip6(p, a);
}

/* Our frames: tagged with vlan= or, without it, untagged/priority. */
static inline bool
vlan_is_ours(const struct ernic_port *p, bool tagged, uint16_t vid)
{
	return p->args.has_vlan ? tagged && vid == p->args.vlan :
				  !tagged || vid == 0;
}

enum ernic_class
ernic_classify(const struct ernic_port *p, const struct rte_mbuf *m,
	       uint32_t *dqpn)
{
	uint8_t buf[ERNIC_CLASSIFY_LEN + ROCE_IPV4_HLEN_MAX];
	uint32_t len = rte_pktmbuf_pkt_len(m), avail, off, l4;
	const uint8_t *h;
	uint16_t etype, vid = 0;
	bool tagged = false;

	avail = RTE_MIN(len, (uint32_t)sizeof(buf));
	if (avail <= rte_pktmbuf_data_len(m)) {
		h = rte_pktmbuf_mtod(m, const uint8_t *);
	} else {
		/* what the segments hold: a RoCE frame whose chain is
		 * short still goes to the worker, whose parser counts it */
		avail = roce_mbuf_gather(m, 0, avail, buf);
		h = buf;
	}
	if (avail < ROCE_ETH_HLEN)
		return ERNIC_CLASS_APP;
	etype = (uint16_t)(h[12] << 8 | h[13]);
	off = ROCE_ETH_HLEN;
	if (etype == RTE_ETHER_TYPE_VLAN) {
		if (avail < off + ROCE_VLAN_HLEN)
			return ERNIC_CLASS_APP;
		tagged = true;
		vid = (uint16_t)((h[14] << 8 | h[15]) & 0xfff);
		etype = (uint16_t)(h[16] << 8 | h[17]);
		off += ROCE_VLAN_HLEN;
	}
	if (!vlan_is_ours(p, tagged, vid))
		return ERNIC_CLASS_APP;

	if (etype == RTE_ETHER_TYPE_ARP) {
		const struct rte_arp_hdr *arp = (const void *)(h + off);

		if (!p->args.has_ip4 || avail < off + sizeof(*arp))
			return ERNIC_CLASS_APP;
		return arp->arp_data.arp_tip == p->args.ip4 ?
			ERNIC_CLASS_ARP : ERNIC_CLASS_APP;
	}
	if (etype == RTE_ETHER_TYPE_IPV4) {
		const struct rte_ipv4_hdr *ip = (const void *)(h + off);

		if (!p->args.has_ip4 || avail < off + ROCE_IPV4_HLEN ||
		    roce_ip_version(ip) != 4 || ip->dst_addr != p->args.ip4 ||
		    ip->next_proto_id != IPPROTO_UDP)
			return ERNIC_CLASS_APP;
		/* later fragments carry no UDP header: the host's business */
		if ((rte_be_to_cpu_16(ip->fragment_offset) &
		     RTE_IPV4_HDR_OFFSET_MASK) != 0)
			return ERNIC_CLASS_APP;
		l4 = off + roce_ipv4_hlen(ip);
	} else if (etype == RTE_ETHER_TYPE_IPV6) {
		const struct rte_ipv6_hdr *ip = (const void *)(h + off);
		const uint8_t *icmp;

		if (avail < off + ROCE_IPV6_HLEN || roce_ip_version(ip) != 6)
			return ERNIC_CLASS_APP;
		l4 = off + ROCE_IPV6_HLEN;
		if (ip->proto == IPPROTO_ICMPV6) {
			/* NS (135) for one of our targets, NA (136) to us */
			if (avail < l4 + 8 + 16)
				return ERNIC_CLASS_APP;
			icmp = h + l4;
			if (icmp[0] == 135 && ip6_is_ours(p, icmp + 8))
				return ERNIC_CLASS_ND;
			if (icmp[0] == 136 && ip6_is_ours(p, ip->dst_addr))
				return ERNIC_CLASS_ND;
			return ERNIC_CLASS_APP;
		}
		if (ip->proto != IPPROTO_UDP || !ip6_is_ours(p, ip->dst_addr))
			return ERNIC_CLASS_APP;
	} else {
		return ERNIC_CLASS_APP;
	}

	/* UDP to a local address: RoCEv2 when the port is 4791 (A17.4.3). */
	if (avail < l4 + ROCE_UDP_HLEN)
		return ERNIC_CLASS_APP;
	if ((h[l4 + 2] << 8 | h[l4 + 3]) != ROCE_UDP_PORT)
		return ERNIC_CLASS_APP;
	l4 += ROCE_UDP_HLEN;
	if (avail >= l4 + ROCE_BTH_LEN)
		*dqpn = roce_bth_dqpn((const struct roce_bth *)(h + l4));
	else
		*dqpn = UINT32_MAX;	/* the worker's parser counts it */
	return ERNIC_CLASS_ROCE;
}

/*
 * Class of @p m. With one worker, parsing it once: a frame roce_parse()
 * accepts is RoCE when it is for us (VLAN, local destination address);
 * *parsed then says that @p pkt describes it and the worker need not parse
 * it again. A frame roce_parse() refuses is sorted by ernic_classify():
 * ARP/ND, the application's, or a malformed RoCE frame to a local address,
 * which the worker parses again to count why it drops it. With several
 * workers ernic_classify() comes first (*dqpn set): a frame for another
 * worker's QP goes there unparsed (rx_roce()).
 */
static inline enum ernic_class
rx_classify(const struct ernic_port *p, const struct rte_mbuf *m,
	    struct roce_pkt *pkt, bool *parsed, uint32_t *dqpn)
{
	*parsed = false;
	if (p->nb_workers > 1 || unlikely(roce_parse(m, pkt) != 0))
		return ernic_classify(p, m, dqpn);
	if (!vlan_is_ours(p, (pkt->flags & ROCE_PKT_VLAN) != 0,
			  pkt->vlan_tci & 0xfff))
		return ERNIC_CLASS_APP;
	if (pkt->ip_ver == 4 ? !p->args.has_ip4 || pkt->daddr4 != p->args.ip4 :
	    !ip6_is_ours(p, pkt->dgid))
		return ERNIC_CLASS_APP;
	*parsed = true;
	return ERNIC_CLASS_ROCE;
}

/*
 * Worker owning QP @p dqpn, NULL when unknown (the receiving worker then
 * counts the frame as a drop). A worker between its quiescent points
 * (ernic_worker.c): the QP cannot be freed during the lookup
 * (roce_qp_owner()).
 */
static struct ernic_worker *
qp_owner(struct ernic_port *p, uint32_t dqpn)
{
	struct roce_worker *rw;
	uint16_t i;

	if (dqpn == UINT32_MAX)
		return NULL;
	rw = roce_qp_owner(p->rdev, dqpn);
	if (rw == NULL)
		return NULL;
	for (i = 0; i < p->nb_workers; i++)
		if (p->w[i].rw == rw)
			return &p->w[i];
	return NULL;
}

static void
ring_enqueue_count(struct rte_ring *r, struct rte_mbuf **pkts, uint16_t n,
		   uint64_t *cnt, enum ernic_cnt ok, enum ernic_cnt drop)
{
	unsigned int k;

	if (n == 0)
		return;
	k = rte_ring_enqueue_burst(r, (void **)pkts, n, NULL);
	cnt[ok] += k;
	if (k < n) {
		rte_pktmbuf_free_bulk(pkts + k, n - k);
		cnt[drop] += n - k;
	}
}

/* Frames of a burst for other workers' QPs, handed over at its end. */
struct rx_handoff {
	uint16_t n;
	uint16_t owners;		/**< bit i: some frame for worker i */
	uint8_t to[ERNIC_BURST];	/**< frame i's worker */
	struct rte_mbuf *m[ERNIC_BURST];
};

static_assert(ERNIC_MAX_WORKERS <= 16, "rx_handoff.owners holds 16 workers");

/*
 * A RoCE frame for us: to its QP's engines at once when they run on this
 * worker, with the parse made to classify it (@p parsed) or one made here,
 * else unparsed into @p h, for the owner's handoff ring (the owner parses
 * it).
 */
static inline void
rx_roce(struct ernic_worker *w, struct rte_mbuf *m, struct roce_pkt *pkt,
	bool parsed, uint32_t dqpn, uint64_t now, struct rx_handoff *h)
{
	struct ernic_port *p = w->port;
	struct ernic_worker *owner;

	if (!parsed && p->nb_workers > 1) {
		owner = qp_owner(p, dqpn);
		if (owner != NULL && owner != w) {
			h->to[h->n] = (uint8_t)owner->idx;
			h->m[h->n++] = m;
			h->owners |= (uint16_t)(1u << owner->idx);
			return;
		}
		parsed = roce_parse(m, pkt) == 0;
	}
	/* now, while its headers are in L1 */
	if (likely(parsed))
		roce_worker_rx_parsed(w->rw, m, pkt, now);
	else
		roce_worker_rx(w->rw, &m, 1, now);	/* counts why it drops */
}

/*
 * One burst enqueue a worker named in @p h, its frames in their order
 * (a QP's frames stay in order: they all go to its one owner).
 */
static void
rx_handoff_flush(struct ernic_worker *w, struct rx_handoff *h)
{
	struct ernic_port *p = w->port;
	struct rte_mbuf *batch[ERNIC_BURST];
	uint16_t i, k, o;

	while (h->owners != 0) {
		o = (uint16_t)rte_bsf32(h->owners);
		h->owners &= (uint16_t)(h->owners - 1);
		for (i = 0, k = 0; i < h->n; i++)
			if (h->to[i] == o)
				batch[k++] = h->m[i];
		ring_enqueue_count(p->w[o].handoff, batch, k, w->cnt,
				   ERNIC_CNT_RX_HANDOFF,
				   ERNIC_CNT_DROP_HANDOFF_FULL);
	}
	h->n = 0;
}

/* The port's first queue-0 RX or TX callback, NULL when none. */
static inline void *
mirror_cb(const struct ernic_port *p, bool rx)
{
#ifdef RTE_ETHDEV_RXTX_CALLBACKS
	const struct rte_eth_fp_ops *fp = &rte_eth_fp_ops[p->port_id];

	return __atomic_load_n(rx ? &fp->rxq.clbk[0] : &fp->txq.clbk[0],
			       __ATOMIC_RELAXED);
#else
	RTE_SET_USED(p);
	RTE_SET_USED(rx);
	return NULL;
#endif
}

void
ernic_mirror(struct ernic_port *p, bool rx, struct rte_mbuf **pkts,
	     uint16_t n)
{
#ifdef RTE_ETHDEV_RXTX_CALLBACKS
	struct rte_mbuf *tmp[ERNIC_BURST];
	void *cb;
	uint16_t k;

	cb = mirror_cb(p, rx);
	if (likely(cb == NULL))
		return;
	while (n > 0) {
		k = RTE_MIN(n, (uint16_t)ERNIC_BURST);
		/* a callback may reorder or shorten the array it gets */
		memcpy(tmp, pkts, k * sizeof(tmp[0]));
		if (rx)
			rte_eth_call_rx_callbacks(p->port_id, 0, tmp, k, k, cb);
		else
			rte_eth_call_tx_callbacks(p->port_id, 0, tmp, k, cb);
		pkts += k;
		n -= k;
	}
#else
	RTE_SET_USED(p);
	RTE_SET_USED(rx);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
#endif
}

/*
 * RX prefetch distance, in frames: the mbuf of frame i + 2 * ERNIC_RX_PF
 * and the first lines of frame i + ERNIC_RX_PF (its mbuf already on the
 * way) are fetched while frame i is classified. A frame arrives cold (the
 * NIC, or in a loopback the peer's core, wrote it); classification, ICRC
 * and the copy would otherwise each wait for it in turn.
 *
 * A chained frame (a NIC's scattered RX; over a loopback, a zero-copy
 * sender's headers + payload + pad/ICRC segments) follows one segment a
 * step, each step reading only lines fetched at the step before: with the
 * first lines, the second segment's mbuf; ERNIC_RX_PF_SEG frames ahead,
 * its first data line and the third segment's mbuf; one frame ahead, the
 * third's data (the ICRC). Without them the receiver's ICRC walk waited
 * on each in turn (16384-QP 4 KB WRITE: 7 % of the run's samples).
 */
#define ERNIC_RX_PF 4
#define ERNIC_RX_PF_SEG 2

static inline void
rx_prefetch_mbuf(const struct rte_mbuf *m)
{
	rte_prefetch0(m);
	rte_prefetch0((const char *)m + RTE_CACHE_LINE_SIZE);
}

/*
 * The frame's first 256 bytes: headers, small payloads, their ICRC; and
 * the mbuf of its second segment. Returns whether it has one.
 */
static inline bool
rx_prefetch_data(const struct rte_mbuf *m)
{
	uintptr_t a = rte_pktmbuf_mtod(m, uintptr_t);
	uintptr_t end = a + RTE_MIN((uint32_t)m->data_len,
				    4u * RTE_CACHE_LINE_SIZE);

	for (a &= ~(uintptr_t)(RTE_CACHE_LINE_SIZE - 1); a < end;
	     a += RTE_CACHE_LINE_SIZE)
		rte_prefetch0((const void *)a);
	if (m->next == NULL)
		return false;
	rx_prefetch_mbuf(m->next);
	return true;
}

/*
 * The further segments of frames @p i + ERNIC_RX_PF_SEG (the second's
 * first data line, the third's mbuf) and @p i + 1 (the third's data).
 */
static void
rx_prefetch_segs(struct rte_mbuf *const *pkts, uint16_t i, uint16_t n)
{
	const struct rte_mbuf *s;

	if (i + ERNIC_RX_PF_SEG < n) {
		s = pkts[i + ERNIC_RX_PF_SEG]->next;
		if (s != NULL) {
			rte_prefetch0(rte_pktmbuf_mtod(s, const void *));
			if (s->next != NULL)
				rx_prefetch_mbuf(s->next);
		}
	}
	/* pointers, not nb_segs: no field of a chain is trusted here */
	if (i + 1 < n) {
		s = pkts[i + 1]->next;
		if (s != NULL && s->next != NULL)
			rte_prefetch0(rte_pktmbuf_mtod(s->next, const void *));
	}
}

void
ernic_rx_dispatch(struct ernic_worker *w, struct rte_mbuf **pkts,
		  uint16_t n, uint64_t now)
{
	struct ernic_port *p = w->port;
	struct rte_mbuf *app[ERNIC_BURST];
	struct rx_handoff h;
	struct roce_pkt pkt;
	uint32_t dqpn = UINT32_MAX;
	uint16_t i, na = 0;
	bool parsed, chained = false;
	/* a capture started during this burst sees the next one */
	bool mirror = mirror_cb(p, true) != NULL;

	w->cnt[ERNIC_CNT_RX_WIRE] += n;
	h.n = 0;
	h.owners = 0;
	for (i = 0; i < RTE_MIN(n, 2 * ERNIC_RX_PF); i++)
		rx_prefetch_mbuf(pkts[i]);
	for (i = 0; i < RTE_MIN(n, ERNIC_RX_PF); i++)
		chained |= rx_prefetch_data(pkts[i]);
	for (i = 0; i < RTE_MIN(n, ERNIC_RX_PF_SEG); i++)
		if (unlikely(pkts[i]->next != NULL))
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i]->next,
						       const void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (i + 2 * ERNIC_RX_PF < n)
			rx_prefetch_mbuf(pkts[i + 2 * ERNIC_RX_PF]);
		if (i + ERNIC_RX_PF < n)
			chained |= rx_prefetch_data(pkts[i + ERNIC_RX_PF]);
		/* flat bursts (most NICs' RX, small frames) stop here */
		if (unlikely(chained))
			rx_prefetch_segs(pkts, i, n);

		switch (rx_classify(p, m, &pkt, &parsed, &dqpn)) {
		case ERNIC_CLASS_ROCE:
			w->cnt[ERNIC_CNT_RX_ROCE]++;
			/* before another worker may own (and free) it */
			if (unlikely(mirror))
				ernic_mirror(p, true, &m, 1);
			rx_roce(w, m, &pkt, parsed, dqpn, now, &h);
			break;
		case ERNIC_CLASS_ARP:
		case ERNIC_CLASS_ND:
			if (p->exc.enabled)
				ernic_exc_copy(w, m);
			if (w->idx == 0) {
				ernic_neigh_input(w, m);
			} else if (rte_ring_enqueue(p->ctl_ring, m) != 0) {
				rte_pktmbuf_free(m);
				w->cnt[ERNIC_CNT_DROP_CTL_RING_FULL]++;
			}
			break;
		default:
			if (p->exc.enabled)
				ernic_exc_copy(w, m);
			app[na++] = m;
			break;
		}
	}
	if (h.n != 0)
		rx_handoff_flush(w, &h);
	ring_enqueue_count(p->app_ring, app, na, w->cnt, ERNIC_CNT_RX_NON_ROCE,
			   ERNIC_CNT_DROP_APP_RING_FULL);
}

uint16_t
ernic_txq_burst(struct ernic_port *p, struct ernic_txq *q,
		struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = 0;
	unsigned int tries;

	if (unlikely(q == NULL || !p->started))
		return 0;
	if (q->users > 1)
		rte_spinlock_lock(&q->lock);
	for (tries = 0; sent < n && tries < ERNIC_TX_RETRIES; tries++)
		sent += rte_eth_tx_burst(p->under, q->qid, pkts + sent,
					 n - sent);
	if (q->users > 1)
		rte_spinlock_unlock(&q->lock);
	return sent;
}

uint16_t
ernic_txq_send(struct ernic_port *p, struct ernic_txq *q,
	       struct rte_mbuf **pkts, uint16_t n, uint64_t *cnt,
	       enum ernic_cnt ok_cnt)
{
	uint16_t sent = ernic_txq_burst(p, q, pkts, n);

	if (unlikely(sent < n)) {
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		cnt[p->started ? ERNIC_CNT_DROP_TX_FULL :
		    ERNIC_CNT_DROP_STOPPED] += n - sent;
	}
	cnt[ok_cnt] += sent;
	return sent;
}

int
ernic_out_enqueue(struct ernic_port *p, struct rte_mbuf *m, uint64_t *cnt)
{
	if (rte_ring_enqueue(p->out_ring, m) != 0) {
		rte_pktmbuf_free(m);
		cnt[ERNIC_CNT_DROP_OUT_RING_FULL]++;
		return -ENOBUFS;
	}
	return 0;
}

uint16_t
ernic_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct ernic_port *p = q;
	unsigned int k;

	k = rte_ring_sc_dequeue_burst(p->app_ring, (void **)pkts, n, NULL);
	p->app_rx_cnt[ERNIC_CNT_RX_APP] += k;
	return (uint16_t)k;
}

uint16_t
ernic_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct ernic_port *p = q;
	unsigned int k;

	if (unlikely(!p->started))
		return 0;
	if (p->app_txq != NULL) {
		/* a queue of our own: the application thread is its only user */
		k = rte_eth_tx_burst(p->under, p->app_txq->qid, pkts, n);
	} else {
		/* worker 0 sends these; what does not fit stays with the caller */
		k = rte_ring_enqueue_burst(p->out_ring, (void **)pkts, n,
					   NULL);
	}
	p->app_tx_cnt[ERNIC_CNT_TX_APP] += k;
	return (uint16_t)k;
}
