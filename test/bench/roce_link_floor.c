/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce-linkfloor: what a frame costs a receiver on the loopback link
 * before any transport work.
 *
 * ernic-testpmd --loopback joins two ports by a pair of rte_rings
 * (net_ring): the receiving lcore gets the sender's mbufs by pointer,
 * reads lines the other core has just written and frees the mbufs back to
 * the sender's pools. That much every receiver on this link pays per
 * frame, whatever its protocol; roce-bound prices the per-byte work (ICRC
 * and copy) apart from it. Here one lcore sends frames shaped as the
 * net_ernic TX path makes them, the other receives them and does only what
 * any RoCEv2 receiver must: take the burst from the link (net_ring
 * rx_burst), read the headers (the frame's first two lines, where the
 * parser looks) and the ICRC slot (the chain's last bytes), and free the
 * chain. Shapes:
 *
 *   zc    a zero-copy WRITE ONLY (the PMD default): a header mbuf of the
 *         port's TX pool, the payload attached from registered memory by
 *         roce_txbuf_attach_ref() (shared info in the attached mbuf's own
 *         data room, the free callback counting the freed attachment, as
 *         the PMD counts them for deregistration) and the pad + ICRC
 *         tail: three segments
 *   flat  the same frame in one mbuf (copied TX, or a NIC's RX into
 *         PMTU-sized mbufs): one segment
 *
 * The pools are sized as ernic_pools_create() sizes them for one worker,
 * and the sender keeps at most --window frames (default 128, perftest's
 * write_bw depth) ahead of the receiver, as a QP's window does: the
 * receiver reads lines the sender wrote a moment ago (in its cache), not
 * a pool's worth ago. Neither side touches the payload: the bytes are
 * roce-bound's. Each side counts the TSC cycles of its busy bursts (as
 * the PMD's --cycles does: polls that moved frames); the receiver's, per
 * frame, is the floor.
 *
 * Usage: roce-linkfloor [EAL options] -- [--shape zc|flat] [--payload N]
 *        [--window N] [--seconds S]
 * One JSON object on stdout; exit status 0, 1 when a received frame is not
 * the frame sent, an attachment was not freed once (the ring is drained
 * at the end: every attachment taken must have been freed), or the setup
 * fails; 2 on a bad option.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "bench_frame.h"
#include "bench_opt.h"
#include "roce_icrc.h"
#include "roce_txbuf.h"

enum {
	LF_BURST = 32,
	LF_RING = 65536,	/* as the loopback's (app/ernic-testpmd/port.c) */
	LF_SLOTS = 64,		/* payload slots of the registered area */
	/* ernic_pools_create() for one worker: TX pool, zero-copy pool */
	LF_TX_MBUFS = 2 * 1024 + 4096 + 1024,
	LF_ZC_ROOM = 64,
	LF_CACHE = 256,
	LF_PF = 4,		/* prefetch distance, frames (as ERNIC_RX_PF) */
};

enum lf_shape { LF_ZC, LF_FLAT };

struct lf_opts {
	enum lf_shape shape;
	uint32_t payload;
	uint32_t window;
	double seconds;
};

/* Read-mostly set-up, then each side's own lines: nothing shared by accident. */
struct lf_ctx {
	struct lf_opts o;
	uint16_t port;
	struct rte_mempool *tx_pool;
	struct rte_mempool *zc_pool;
	uint8_t *area;			/* the "registered" payload memory */
	rte_iova_t area_iova;		/* its IOVA when contiguous */
	uint8_t hdr[128];		/* the frame's headers, built once */
	uint32_t hlen, pad, flen;
	volatile bool stop;
	/* the sender's: its counts, the key entry's taken count */
	uint64_t tx_frames __rte_cache_aligned;
	uint64_t tx_cycles, tx_nomem;
	uint32_t zc_taken;		/* roce_key_entry::zc_taken */
	/* the receiver's: its counts, the device's freed count */
	uint64_t rx_frames __rte_cache_aligned;
	uint64_t rx_cycles, rx_bad;
	uint32_t zc_dropped;		/* roce_device::zc_dropped[] */
	uint32_t sink;
	/* the one line both read: frames received (the window) */
	uint64_t rx_done __rte_cache_aligned;
};

static int
parse_opts(int argc, char **argv, struct lf_opts *o)
{
	static const struct option lo[] = {
		{ "shape", required_argument, NULL, 's' },
		{ "payload", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 't' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	static const char tool[] = "roce-linkfloor";
	int c;

	o->shape = LF_ZC;
	o->payload = 4096;
	o->window = 128;
	o->seconds = 2.0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, "zc") == 0)
				o->shape = LF_ZC;
			else if (strcmp(optarg, "flat") == 0)
				o->shape = LF_FLAT;
			else {
				fprintf(stderr, "roce-linkfloor: bad --shape '%s': expected zc or flat\n",
					optarg);
				return -1;
			}
			continue;
		case 'p':
			if (bench_opt_u32(tool, "--payload", optarg, 1, 4096,
					  &o->payload) != 0)
				return -1;
			continue;
		case 'w':
			if (bench_opt_u32(tool, "--window", optarg, LF_BURST,
					  LF_TX_MBUFS / 2, &o->window) != 0)
				return -1;
			continue;
		case 't':
			if (bench_opt_seconds(tool, optarg, &o->seconds) != 0)
				return -1;
			continue;
		default:
			fprintf(stderr, "usage: roce-linkfloor [EAL options] -- [--shape zc|flat] [--payload 1..4096] [--window N] [--seconds S]\n");
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "roce-linkfloor: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

/* An RC RDMA WRITE ONLY over IPv4 between the loopback's two addresses. */
static int
build_headers(struct lf_ctx *c)
{
	struct roce_hdr_fields f;
	int n;

	bench_write_only_fields(&f, c->o.payload);
	n = roce_build_hdr_len(&f);
	if (n <= 0 || (size_t)n > sizeof(c->hdr))
		return -EINVAL;
	c->hlen = (uint32_t)n;
	c->pad = -c->o.payload & 3;
	c->flen = c->hlen + c->o.payload + c->pad + ROCE_ICRC_LEN;
	n = roce_build_hdr(c->hdr, c->flen, &f, c->o.payload);
	return n == (int)c->hlen ? 0 : -EINVAL;
}

/* One frame of the configured shape, or NULL (a pool is empty). */
static struct rte_mbuf *
make_frame(struct lf_ctx *c, uint64_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->tx_pool), *tail;
	const struct roce_txbuf_count cnt = { &c->zc_taken, &c->zc_dropped };
	uint32_t trailer = c->pad + ROCE_ICRC_LEN;
	uint64_t off = (seq % LF_SLOTS) * c->o.payload;
	rte_iova_t iova;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(p, c->hdr, c->hlen);
	if (c->o.shape == LF_FLAT) {
		/* the payload bytes are left as they are: not this floor's */
		m->data_len = (uint16_t)c->flen;
		m->pkt_len = c->flen;
		memset(p + c->flen - trailer, 0, c->pad);
		memcpy(p + c->flen - ROCE_ICRC_LEN, &seq, ROCE_ICRC_LEN);
		return m;
	}
	m->data_len = (uint16_t)c->hlen;
	m->pkt_len = c->hlen;
	/* the PMD's worker keeps its last page's IOVA: the same, cheaper */
	iova = c->area_iova != RTE_BAD_IOVA ? c->area_iova + off :
		roce_txbuf_iova(c->area + off, c->o.payload, NULL);
	if (roce_txbuf_attach_ref(c->zc_pool, NULL, m, c->area + off,
				  c->o.payload, iova, &cnt) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	tail = rte_pktmbuf_lastseg(m);
	p = rte_pktmbuf_mtod(tail, uint8_t *);
	memset(p, 0, c->pad);
	memcpy(p + c->pad, &seq, ROCE_ICRC_LEN);
	tail->data_len = (uint16_t)trailer;
	m->pkt_len += trailer;
	return m;
}

static int
sender(void *arg)
{
	struct lf_ctx *c = arg;
	struct rte_mbuf *b[LF_BURST];
	uint64_t seq = 0;
	uint16_t n, sent, i;

	while (!c->stop) {
		uint64_t t0;

		/* the window: as a QP's, what is sent and not yet received */
		if (c->tx_frames + LF_BURST -
		    __atomic_load_n(&c->rx_done, __ATOMIC_ACQUIRE) > c->o.window)
			continue;
		t0 = rte_rdtsc();
		for (n = 0; n < LF_BURST; n++) {
			b[n] = make_frame(c, seq);
			if (b[n] == NULL)
				break;
			seq++;
		}
		if (n < LF_BURST)
			c->tx_nomem++;
		if (n == 0)
			continue;
		c->tx_cycles += rte_rdtsc() - t0;
		c->tx_frames += n;
		/* a full ring waits for the receiver: that is not build cost */
		for (sent = 0; sent < n && !c->stop;)
			sent += rte_eth_tx_burst(c->port, 0, b + sent,
						 (uint16_t)(n - sent));
		for (i = sent; i < n; i++)
			rte_pktmbuf_free(b[i]);
	}
	return 0;
}

/*
 * What a receiver must read of a frame: the headers' two lines (the
 * Ethernet type, the IP protocol, the BTH opcode, the RETH's DMA length)
 * and the ICRC slot at the end of the last segment. Returns whether they
 * are the frame's sent.
 */
static bool
read_frame(struct lf_ctx *c, const struct rte_mbuf *m, uint32_t *acc)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_mbuf *last = m;
	uint32_t slot;

	if (m->pkt_len != c->flen || m->data_len < c->hlen ||
	    memcmp(p + 12, c->hdr + 12, 2) != 0 || p[23] != c->hdr[23] ||
	    p[42] != c->hdr[42] || memcmp(p + 66, c->hdr + 66, 4) != 0)
		return false;
	while (last->next != NULL)
		last = last->next;
	if (last->data_len < ROCE_ICRC_LEN)
		return false;
	memcpy(&slot, rte_pktmbuf_mtod_offset(last, const uint8_t *,
					       last->data_len - ROCE_ICRC_LEN),
	       sizeof(slot));
	*acc += slot;
	return true;
}

/* As ernic_rx_dispatch(): mbufs, then first lines, then the segments. */
static inline void
prefetch_ahead(struct rte_mbuf *const *b, uint16_t i, uint16_t n)
{
	const struct rte_mbuf *s;

	if (i + 2 * LF_PF < n) {
		rte_prefetch0(b[i + 2 * LF_PF]);
		rte_prefetch0(RTE_PTR_ADD(b[i + 2 * LF_PF],
					  RTE_CACHE_LINE_SIZE));
	}
	if (i + LF_PF < n) {
		s = b[i + LF_PF];
		rte_prefetch0(rte_pktmbuf_mtod(s, const void *));
		rte_prefetch0(rte_pktmbuf_mtod_offset(s, const void *,
						      RTE_CACHE_LINE_SIZE));
		if (s->next != NULL)
			rte_prefetch0(s->next);
	}
	if (i + 1 < n) {
		s = b[i + 1]->next;
		if (s != NULL && s->next != NULL) {
			rte_prefetch0(s->next);
			rte_prefetch0(rte_pktmbuf_mtod(s->next, const void *));
		}
	}
}

static void
receive(struct lf_ctx *c)
{
	struct rte_mbuf *b[LF_BURST];
	uint64_t end = rte_get_tsc_cycles() +
		       (uint64_t)(c->o.seconds * (double)rte_get_tsc_hz());
	uint32_t acc = 0;
	uint16_t n, i;

	while (rte_get_tsc_cycles() < end) {
		uint64_t t0 = rte_rdtsc();

		n = rte_eth_rx_burst(c->port, 0, b, LF_BURST);
		if (n == 0)
			continue;
		for (i = 0; i < RTE_MIN(n, 2 * LF_PF); i++)
			rte_prefetch0(b[i]);
		for (i = 0; i < n; i++) {
			prefetch_ahead(b, i, n);
			if (unlikely(!read_frame(c, b[i], &acc)))
				c->rx_bad++;
			rte_pktmbuf_free(b[i]);
		}
		c->rx_cycles += rte_rdtsc() - t0;
		c->rx_frames += n;
		__atomic_store_n(&c->rx_done, c->rx_frames, __ATOMIC_RELEASE);
	}
	c->sink = acc;
}

/* The frames still in the ring, freed after the sender stopped. */
static void
drain(struct lf_ctx *c)
{
	struct rte_mbuf *b[LF_BURST];
	uint16_t n, i;

	while ((n = rte_eth_rx_burst(c->port, 0, b, LF_BURST)) != 0)
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(b[i]);
}

/* One net_ring port whose TX ring is its RX ring: the sender's lcore
 * enqueues, the receiver's dequeues (single producer, single consumer). */
static int
setup(struct lf_ctx *c)
{
	struct rte_eth_conf conf;
	struct rte_ring *r;
	uint16_t room = RTE_PKTMBUF_HEADROOM + 4096 + 128;
	int port;

	c->tx_pool = rte_pktmbuf_pool_create("lf_tx", LF_TX_MBUFS, LF_CACHE,
					     0, room, (int)rte_socket_id());
	c->zc_pool = rte_pktmbuf_pool_create("lf_zc", 2 * LF_TX_MBUFS,
					     LF_CACHE, 0, LF_ZC_ROOM,
					     (int)rte_socket_id());
	c->area = rte_malloc("lf_area", (size_t)LF_SLOTS * c->o.payload,
			     4096);
	r = rte_ring_create("lf_link", LF_RING, (int)rte_socket_id(),
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (c->tx_pool == NULL || c->zc_pool == NULL || c->area == NULL ||
	    r == NULL)
		return -ENOMEM;
	memset(c->area, 0x5a, (size_t)LF_SLOTS * c->o.payload);
	c->area_iova = roce_txbuf_iova(c->area,
				       LF_SLOTS * c->o.payload, NULL);
	port = rte_eth_from_rings("lf_ring", &r, 1, &r, 1,
				  (unsigned int)rte_socket_id());
	if (port < 0)
		return -rte_errno;
	c->port = (uint16_t)port;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(c->port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(c->port, 0, 1024, rte_socket_id(), NULL,
				   c->tx_pool) != 0 ||
	    rte_eth_tx_queue_setup(c->port, 0, 1024, rte_socket_id(),
				   NULL) != 0 ||
	    rte_eth_dev_start(c->port) != 0)
		return -EIO;
	return 0;
}

int
main(int argc, char **argv)
{
	struct lf_ctx *c;
	unsigned int lcore;
	double hz;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "roce-linkfloor: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	/* its lines as declared: aligned as its type */
	c = aligned_alloc(RTE_CACHE_LINE_SIZE,
			  RTE_ALIGN_CEIL(sizeof(*c), RTE_CACHE_LINE_SIZE));
	if (c == NULL)
		return 1;
	memset(c, 0, sizeof(*c));
	if (parse_opts(argc, argv, &c->o) != 0)
		return 2;
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "roce-linkfloor: needs two lcores (-l 0-1)\n");
		return 2;
	}
	ret = build_headers(c);
	if (ret == 0)
		ret = setup(c);
	if (ret != 0) {
		fprintf(stderr, "roce-linkfloor: setup: %s\n", strerror(-ret));
		return 1;
	}
	rte_eal_remote_launch(sender, c, lcore);
	receive(c);
	c->stop = true;
	rte_eal_wait_lcore(lcore);
	drain(c);
	hz = (double)rte_get_tsc_hz();
	if (c->rx_frames == 0 || c->tx_frames == 0) {
		fprintf(stderr, "roce-linkfloor: no frames went through\n");
		return 1;
	}
	printf("{\"name\": \"link_floor_%s\", \"payload\": %u, \"frame\": %u, "
	       "\"segs\": %u, \"frames\": %" PRIu64 ", \"bad\": %" PRIu64 ", "
	       "\"rx_cycles_a_frame\": %.1f, \"tx_cycles_a_frame\": %.1f, "
	       "\"rx_busy_mps\": %.3f, \"mpps\": %.3f, \"tx_pool_empty\": %"
	       PRIu64 ", \"tsc_mhz\": %.0f}\n",
	       c->o.shape == LF_ZC ? "zc" : "flat", c->o.payload, c->flen,
	       c->o.shape == LF_ZC ? 3 : 1, c->rx_frames, c->rx_bad,
	       (double)c->rx_cycles / (double)c->rx_frames,
	       (double)c->tx_cycles / (double)c->tx_frames,
	       hz / ((double)c->rx_cycles / (double)c->rx_frames) / 1e6,
	       (double)c->rx_frames / c->o.seconds / 1e6, c->tx_nomem,
	       hz / 1e6);
	if (c->rx_bad != 0) {
		fprintf(stderr, "roce-linkfloor: %" PRIu64 " frames not as sent\n",
			c->rx_bad);
		return 1;
	}
	if (__atomic_load_n(&c->zc_taken, __ATOMIC_ACQUIRE) !=
	    __atomic_load_n(&c->zc_dropped, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "roce-linkfloor: %u attachments taken, %u freed\n",
			c->zc_taken, c->zc_dropped);
		return 1;
	}
	rte_eth_dev_stop(c->port);
	rte_eal_cleanup();
	return 0;
}
