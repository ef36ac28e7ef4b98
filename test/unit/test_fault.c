/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults, through ports:
 * - net_fault alone on a net_ring port: devargs, every impairment counted
 *   and deterministic for a seed, link down/up, the bottleneck (rate,
 *   tail drop, RED/ECN marking);
 * - two net_ernic ports over net_fault (fault_chain.h): peer death in the
 *   middle of a transfer (RETRY_EXC_ERR then WR_FLUSH_ERR, QP in ERR, no
 *   mbuf, WQE or timer left, reconnection with fresh PSNs), RNR retry
 *   exhaustion, CQ overrun, a full send queue, empty mempools on either
 *   side (counted, then recovered by retransmission).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "fault_chain.h"
#include "roce_qp.h"
#include "roce_worker.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_fault.h"
#include "test_common.h"

/* ------------------------------------------------------------------ */
/* net_fault on its own                                               */
/* ------------------------------------------------------------------ */

static char *log_buf;
static size_t log_len;
static FILE *log_f;

static void
log_capture_start(void)
{
	free(log_buf);
	log_buf = NULL;
	log_f = open_memstream(&log_buf, &log_len);
	rte_openlog_stream(log_f);
}

static const char *
log_capture_end(void)
{
	rte_openlog_stream(NULL);
	fclose(log_f);
	return log_buf != NULL ? log_buf : "";
}

/* A net_ring port fed from @p *in (its RX ring) and sending into @p *out. */
static uint16_t
ring_port(const char *name, struct rte_ring **in, struct rte_ring **out)
{
	char rn[32];
	int ret;

	snprintf(rn, sizeof(rn), "%s_i", name);
	*in = rte_ring_create(rn, 32768, 0, 0);
	snprintf(rn, sizeof(rn), "%s_o", name);
	*out = rte_ring_create(rn, 32768, 0, 0);
	CU_ASSERT_FATAL(*in != NULL && *out != NULL);
	ret = rte_eth_from_rings(name, in, 1, out, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	return (uint16_t)ret;
}

static void
ring_free(struct rte_ring *r)
{
	void *m;

	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

/* Frame @p seq: 60 bytes of 0x5a, the sequence number at offset 20. */
static struct rte_mbuf *
seq_frame(uint32_t seq)
{
	static struct rte_mempool *mp;
	uint8_t f[60];
	struct rte_mbuf *m;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("fault_inj", 65535, 256, 0,
					     RTE_PKTMBUF_HEADROOM + 128,
					     SOCKET_ID_ANY);
	CU_ASSERT_FATAL(mp != NULL);
	memset(f, 0x5a, sizeof(f));
	memcpy(f + 20, &seq, 4);
	m = rte_pktmbuf_alloc(mp);
	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, sizeof(f)), f, sizeof(f));
	return m;
}

static void
inject_seq(struct rte_ring *in, uint32_t first, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(rte_ring_enqueue(in, seq_frame(first + i)) == 0);
}

static uint32_t
frame_seq(const struct rte_mbuf *m)
{
	uint32_t s;

	memcpy(&s, rte_pktmbuf_mtod_offset(m, const uint8_t *, 20), 4);
	return s;
}

/*
 * Receive everything from @p port for @p us microseconds at least and until
 * nothing more comes; sequence numbers into @p seq (up to @p max).
 * Returns how many frames were received.
 */
static uint32_t
drain_port(uint16_t port, uint32_t *seq, uint32_t max, struct rte_mbuf **keep,
	   uint64_t us)
{
	struct rte_mbuf *m[64];
	uint64_t end = rte_rdtsc() + us * rte_get_tsc_hz() / 1000000;
	uint32_t got = 0;
	uint16_t n, i;

	for (;;) {
		n = rte_eth_rx_burst(port, 0, m, RTE_DIM(m));
		for (i = 0; i < n; i++) {
			if (got < max) {
				if (seq != NULL)
					seq[got] = frame_seq(m[i]);
				if (keep != NULL) {
					keep[got] = m[i];
					m[i] = NULL;
				}
			}
			got++;
			rte_pktmbuf_free(m[i]);
		}
		if (n == 0 && (int64_t)(rte_rdtsc() - end) >= 0)
			break;
	}
	return got;
}

static uint64_t
xs(uint16_t port, const char *name)
{
	return fault_chain_xstat(port, name);
}

static void
test_devargs(void)
{
	static const struct {
		const char *args;
		const char *log;
	} bad[] = {
		{ "", "missing devarg port=" },
		{ "loss=1", "missing devarg port=" },
		{ "port=nosuch", "port=nosuch: no such ethdev" },
		{ "port=net_ring_fdev,loss=101", "bad devarg loss=101" },
		{ "port=net_ring_fdev,loss=-1", "bad devarg loss=-1" },
		{ "port=net_ring_fdev,dup=1x", "bad devarg dup=1x" },
		{ "port=net_ring_fdev,burst_len=0", "bad devarg burst_len=0" },
		{ "port=net_ring_fdev,delay_us=abc", "bad devarg delay_us=abc" },
		{ "port=net_ring_fdev,seed=-3", "bad devarg seed=-3" },
		{ "port=net_ring_fdev,link_up_ms=10", "go together" },
		{ "port=net_ring_fdev,jitter=1", "unknown devarg \"jitter\"" },
		{ "port=net_ring_fdev,dir=up", "bad devarg dir=up: expected rx, tx or both" },
		{ "port=net_ring_fdev,jitter_us=-5", "bad devarg jitter_us=-5" },
		{ "port=net_ring_fdev,burst_len=4,burst_len_max=2",
		  "bad devarg burst_len_max=2: expected at least burst_len (4)" },
		{ "port=net_ring_fdev,loss=1,loss=2", "loss= given more than once" },
	};
	struct rte_pmd_fault_params prm;
	struct rte_ring *in, *out;
	struct rte_eth_dev_owner o;
	uint16_t ring, flt, pid;
	unsigned int i;
	const char *log;
	int ret;

	ring = ring_port("fdev", &in, &out);
	for (i = 0; i < RTE_DIM(bad); i++) {
		log_capture_start();
		ret = rte_vdev_init("net_fault_bad", bad[i].args);
		log = log_capture_end();
		CU_ASSERT(ret < 0);
		if (strstr(log, bad[i].log) == NULL) {
			fprintf(stderr, "devargs \"%s\": log lacks \"%s\":\n%s\n",
				bad[i].args, bad[i].log, log);
			CU_FAIL("probe log does not name the bad devarg");
		}
		CU_ASSERT(rte_eth_dev_get_port_by_name("net_fault_bad", &pid) != 0);
	}
	/* percentages: "0.1" and "2.5%" */
	ret = rte_vdev_init("net_fault_ok",
			    "port=net_ring_fdev,loss=0.1,dup=2.5%,burst_loss=1,burst_len=3,delay_us=7,"
			    "dir=both,jitter_us=9,burst_len_max=5");
	CU_ASSERT_FATAL(ret == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_fault_ok", &flt) == 0);
	CU_ASSERT(rte_pmd_fault_get_params(flt, &prm) == 0);
	CU_ASSERT(prm.loss_ppm == 1000 && prm.dup_ppm == 25000);
	CU_ASSERT(prm.burst_ppm == 10000 && prm.burst_len == 3);
	CU_ASSERT(prm.delay_us == 7 && prm.reorder_us == 100);
	CU_ASSERT(prm.dir == RTE_PMD_FAULT_DIR_BOTH && prm.jitter_us == 9 &&
		  prm.burst_len_max == 5);
	/* it owns the ring port, which nobody else can take now */
	CU_ASSERT(rte_eth_dev_owner_get(ring, &o) == 0);
	CU_ASSERT(strcmp(o.name, "net_fault_ok") == 0);
	CU_ASSERT(rte_pmd_fault_underlying_port(flt) == ring);
	CU_ASSERT(rte_pmd_fault_underlying_port(ring) == -ENODEV);
	log_capture_start();
	ret = rte_vdev_init("net_fault_two", "port=net_ring_fdev");
	log = log_capture_end();
	CU_ASSERT(ret < 0);
	CU_ASSERT(strstr(log, "owned by \"net_fault_ok\"") != NULL);
	/* run-time parameters are checked */
	memset(&prm, 0, sizeof(prm));
	prm.loss_ppm = 1000001;
	CU_ASSERT(rte_pmd_fault_set_params(flt, &prm) == -EINVAL);
	prm.loss_ppm = 0;
	prm.dir = 3;
	CU_ASSERT(rte_pmd_fault_set_params(flt, &prm) == -EINVAL);
	prm.dir = RTE_PMD_FAULT_DIR_TX;
	prm.burst_len = 6;
	prm.burst_len_max = 5;
	CU_ASSERT(rte_pmd_fault_set_params(flt, &prm) == -EINVAL);
	prm.burst_len_max = 0;
	prm.link_up_ms = 5;
	CU_ASSERT(rte_pmd_fault_set_params(flt, &prm) == -EINVAL);
	CU_ASSERT(rte_pmd_fault_set_params(ring, &prm) == -ENODEV);
	CU_ASSERT(rte_pmd_fault_set_link(ring, false) == -ENODEV);
	CU_ASSERT(rte_pmd_fault_get_params(flt, NULL) == -EINVAL);
	/* removal gives the port back */
	CU_ASSERT(rte_vdev_uninit("net_fault_ok") == 0);
	CU_ASSERT(rte_eth_dev_owner_get(ring, &o) == 0);
	CU_ASSERT(o.id == RTE_ETH_DEV_NO_OWNER);
	rte_eth_dev_close(ring);
	ring_free(in);
	ring_free(out);
}

/* A started net_fault port over a fresh ring port. */
struct solo {
	struct rte_ring *in, *out;
	uint16_t ring, flt;
	char name[32];
};

static void
solo_create(struct solo *s, const char *tag, const char *args)
{
	char rn[32], a[256];

	snprintf(rn, sizeof(rn), "fs_%s", tag);
	s->ring = ring_port(rn, &s->in, &s->out);
	snprintf(s->name, sizeof(s->name), "net_fault_%s", tag);
	snprintf(a, sizeof(a), "port=net_ring_%s%s%s", rn,
		 args[0] != '\0' ? "," : "", args);
	CU_ASSERT_FATAL(rte_vdev_init(s->name, a) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name(s->name, &s->flt) == 0);
	CU_ASSERT_FATAL(test_port_start(s->flt) == 0);
}

static void
solo_destroy(struct solo *s)
{
	rte_eth_dev_stop(s->flt);
	CU_ASSERT(rte_vdev_uninit(s->name) == 0);
	/* stopped by net_fault already */
	rte_eth_dev_close(s->ring);
	ring_free(s->in);
	ring_free(s->out);
}

enum { NF = 20000 };

static void
test_loss_deterministic(void)
{
	static uint32_t seq1[NF], seq2[NF];
	struct solo a, b, c;
	uint32_t n1, n2, n3, i;
	uint64_t lost, bl;

	/* 2 % loss and 0.2 % bursts of 5: the same seed, the same frames */
	solo_create(&a, "det1", "loss=2,burst_loss=0.2,burst_len=5,seed=42");
	solo_create(&b, "det2", "loss=2,burst_loss=0.2,burst_len=5,seed=42");
	solo_create(&c, "det3", "loss=2,burst_loss=0.2,burst_len=5,seed=43");
	inject_seq(a.in, 0, NF);
	inject_seq(b.in, 0, NF);
	inject_seq(c.in, 0, NF);
	n1 = drain_port(a.flt, seq1, NF, NULL, 0);
	n2 = drain_port(b.flt, seq2, NF, NULL, 0);
	n3 = drain_port(c.flt, NULL, 0, NULL, 0);
	CU_ASSERT(n1 == n2);
	CU_ASSERT(memcmp(seq1, seq2, n1 * sizeof(seq1[0])) == 0);
	CU_ASSERT(n3 != n1);	/* another seed, other losses */
	/* in order, each frame at most once */
	for (i = 1; i < n1; i++)
		if (seq1[i] <= seq1[i - 1])
			break;
	CU_ASSERT(i == n1);
	lost = xs(a.flt, "fault_loss");
	bl = xs(a.flt, "fault_burst_loss");
	CU_ASSERT(xs(a.flt, "rx_frames") == NF);
	CU_ASSERT(xs(a.flt, "rx_delivered") == n1);
	CU_ASSERT(lost + bl == NF - n1);
	/* 2 % of 20000 = 400 (sd ~20); bursts: ~40 x 5 */
	CU_ASSERT(lost > 300 && lost < 500);
	CU_ASSERT(bl <= 5 * xs(a.flt, "fault_bursts") &&
		  bl + 4 >= 5 * xs(a.flt, "fault_bursts"));
	CU_ASSERT(xs(a.flt, "fault_bursts") > 15 &&
		  xs(a.flt, "fault_bursts") < 80);
	/* reset */
	CU_ASSERT(rte_eth_xstats_reset(a.flt) == 0);
	CU_ASSERT(xs(a.flt, "fault_loss") == 0);
	solo_destroy(&a);
	solo_destroy(&b);
	solo_destroy(&c);
}

static void
test_dup_reorder_corrupt(void)
{
	static uint32_t seq[2 * NF];
	static struct rte_mbuf *keep[64];
	struct rte_pmd_fault_params prm;
	struct solo a;
	uint32_t n, i, swaps = 0, bits, one_bit = 0;
	uint8_t ref[60];

	solo_create(&a, "drc", "dup=100,seed=1");
	inject_seq(a.in, 0, 1000);
	n = drain_port(a.flt, seq, 2 * NF, NULL, 0);
	/* every frame twice, in a row */
	CU_ASSERT(n == 2000);
	for (i = 0; i + 1 < n; i += 2)
		if (seq[i] != i / 2 || seq[i + 1] != i / 2)
			break;
	CU_ASSERT(i >= n - 1);
	CU_ASSERT(xs(a.flt, "fault_dup") == 1000);

	/*
	 * reorder 10 %: a frame behind its successor, never lost. A hold of
	 * 200 ms: its successor is read long before, even on a loaded
	 * machine (a hold that runs out first puts the frame back in order,
	 * counted but not swapped); the last one comes out after it.
	 */
	memset(&prm, 0, sizeof(prm));
	prm.reorder_ppm = 100000;
	prm.reorder_us = 200000;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	CU_ASSERT(rte_eth_xstats_reset(a.flt) == 0);
	inject_seq(a.in, 0, 5000);
	n = drain_port(a.flt, seq, 2 * NF, NULL, 400000);
	CU_ASSERT(n == 5000);
	for (i = 1; i < n; i++)
		if (seq[i] < seq[i - 1])
			swaps++;
	/* the last one, if held, comes out after its hold time, in order */
	CU_ASSERT(swaps == xs(a.flt, "fault_reorder") ||
		  swaps + 1 == xs(a.flt, "fault_reorder"));
	CU_ASSERT(swaps > 350 && swaps < 650);

	/* corrupt 100 %: exactly one bit flipped, in a copy */
	prm.reorder_ppm = 0;
	prm.corrupt_ppm = 1000000;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	inject_seq(a.in, 0, 64);
	memset(ref, 0x5a, sizeof(ref));
	n = drain_port(a.flt, NULL, 64, keep, 0);
	CU_ASSERT(n == 64);
	for (i = 0; i < n && i < 64; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(keep[i], const uint8_t *);
		uint32_t k;

		bits = 0;
		CU_ASSERT(keep[i]->pkt_len == 60);
		for (k = 0; k < 60; k++) {
			uint8_t x = d[k] ^ ref[k];

			if (k >= 20 && k < 24)	/* the sequence number */
				continue;
			bits += (uint32_t)__builtin_popcount(x);
		}
		/* a flip inside the sequence number is not seen here */
		CU_ASSERT(bits <= 1);
		one_bit += bits;
		CU_ASSERT(strncmp(keep[i]->pool->name, "fault", 5) == 0);
		rte_pktmbuf_free(keep[i]);
	}
	CU_ASSERT(one_bit >= 48);
	CU_ASSERT(xs(a.flt, "fault_corrupt") == 64);
	solo_destroy(&a);
}

static void
test_delay_and_link(void)
{
	struct rte_pmd_fault_params prm;
	struct rte_mbuf *m[8];
	struct rte_eth_link link;
	struct solo a;
	uint64_t t0, hz = rte_get_tsc_hz();
	uint32_t n;

	solo_create(&a, "dl", "delay_us=20000");
	t0 = rte_rdtsc();
	inject_seq(a.in, 0, 10);
	/* a frame comes out only once its 20 ms are over */
	n = 0;
	while (n < 10 && rte_rdtsc() - t0 < hz) {
		uint16_t k = rte_eth_rx_burst(a.flt, 0, m, RTE_DIM(m));

		if (k > 0)
			CU_ASSERT(rte_rdtsc() - t0 >= hz / 50);
		rte_pktmbuf_free_bulk(m, k);
		n += k;
	}
	CU_ASSERT(n == 10);
	CU_ASSERT(xs(a.flt, "fault_delayed") == 10);

	/* cable out: received and sent frames are dropped and counted */
	memset(&prm, 0, sizeof(prm));
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	CU_ASSERT(rte_pmd_fault_set_link(a.flt, false) == 0);
	CU_ASSERT(rte_eth_link_get_nowait(a.flt, &link) == 0);
	CU_ASSERT(link.link_status == RTE_ETH_LINK_DOWN);
	inject_seq(a.in, 0, 5);
	CU_ASSERT(drain_port(a.flt, NULL, 0, NULL, 0) == 0);
	CU_ASSERT(xs(a.flt, "fault_link_down_rx") == 5);
	m[0] = test_mbuf_from("0123456789012345678901234567890123456789012345678901234567890", 60, 0);
	CU_ASSERT_FATAL(m[0] != NULL);
	CU_ASSERT(rte_eth_tx_burst(a.flt, 0, m, 1) == 1);
	CU_ASSERT(rte_ring_count(a.out) == 0);
	CU_ASSERT(xs(a.flt, "fault_link_down_tx") == 1);
	/* back in */
	CU_ASSERT(rte_pmd_fault_set_link(a.flt, true) == 0);
	CU_ASSERT(rte_eth_link_get_nowait(a.flt, &link) == 0);
	CU_ASSERT(link.link_status == RTE_ETH_LINK_UP);
	inject_seq(a.in, 0, 5);
	CU_ASSERT(drain_port(a.flt, NULL, 0, NULL, 0) == 5);
	m[0] = test_mbuf_from("0123456789012345678901234567890123456789012345678901234567890", 60, 0);
	CU_ASSERT_FATAL(m[0] != NULL);
	CU_ASSERT(rte_eth_tx_burst(a.flt, 0, m, 1) == 1);
	CU_ASSERT(rte_ring_count(a.out) == 1);
	CU_ASSERT(xs(a.flt, "tx_frames") == 1);

	/* a flap: 5 ms up, 5 ms down: both seen within 30 ms */
	prm.link_up_ms = 5;
	prm.link_down_ms = 5;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	{
		bool seen_up = false, seen_down = false;

		t0 = rte_rdtsc();
		while (rte_rdtsc() - t0 < 3 * hz / 100) {
			rte_eth_link_get_nowait(a.flt, &link);
			if (link.link_status == RTE_ETH_LINK_UP)
				seen_up = true;
			else
				seen_down = true;
		}
		CU_ASSERT(seen_up && seen_down);
	}
	solo_destroy(&a);
}

/* Send frames @p first.. @p first + @p n - 1 through @p port (all taken). */
static void
send_seq(uint16_t port, uint32_t first, uint32_t n)
{
	struct rte_mbuf *m[32];
	uint32_t i = 0, k, j;

	while (i < n) {
		k = RTE_MIN(n - i, (uint32_t)RTE_DIM(m));
		for (j = 0; j < k; j++)
			m[j] = seq_frame(first + i + j);
		CU_ASSERT_FATAL(rte_eth_tx_burst(port, 0, m, (uint16_t)k) == k);
		i += k;
	}
}

/*
 * What @p s sent: the frames in its TX ring, sequence numbers into @p seq
 * (up to @p max); each frame's bytes other than the sequence number must
 * be the 0x5a pattern unless @p corrupt_ok. Returns the count.
 */
static uint32_t
sent_seq(struct solo *s, uint32_t *seq, uint32_t max, bool corrupt_ok)
{
	uint32_t got = 0, k, bad = 0;
	void *m;

	while (rte_ring_dequeue(s->out, &m) == 0) {
		const uint8_t *d = rte_pktmbuf_mtod((struct rte_mbuf *)m,
						    const uint8_t *);

		if (((struct rte_mbuf *)m)->pkt_len != 60)
			bad++;
		for (k = 0; k < 60; k++)
			if ((k < 20 || k >= 24) && d[k] != 0x5a)
				bad++;
		if (seq != NULL && got < max)
			seq[got] = frame_seq(m);
		got++;
		rte_pktmbuf_free(m);
	}
	if (!corrupt_ok)
		CU_ASSERT(bad == 0);
	return got;
}

static void
test_tx_faults(void)
{
	static uint32_t seq1[NF], seq2[NF], seq3[NF];
	struct solo a, b, c;
	uint32_t n1, n2, n3, i;
	uint64_t lost;

	/* transmit side: the same seed, the same frames lost */
	solo_create(&a, "tx1", "dir=tx,loss=2,burst_loss=0.2,burst_len=5,seed=42");
	solo_create(&b, "tx2", "dir=tx,loss=2,burst_loss=0.2,burst_len=5,seed=42");
	solo_create(&c, "tx3", "dir=tx,loss=2,burst_loss=0.2,burst_len=5,seed=43");
	send_seq(a.flt, 0, NF);
	send_seq(b.flt, 0, NF);
	send_seq(c.flt, 0, NF);
	n1 = sent_seq(&a, seq1, NF, false);
	n2 = sent_seq(&b, seq2, NF, false);
	n3 = sent_seq(&c, seq3, NF, false);
	CU_ASSERT(n1 == n2);
	CU_ASSERT(memcmp(seq1, seq2, n1 * sizeof(seq1[0])) == 0);
	CU_ASSERT(n3 != n1 || memcmp(seq1, seq3, n1 * sizeof(seq1[0])) != 0);
	for (i = 1; i < n1; i++)
		if (seq1[i] <= seq1[i - 1])
			break;
	CU_ASSERT(i == n1);
	lost = xs(a.flt, "fault_tx_loss");
	CU_ASSERT(xs(a.flt, "tx_offered") == NF);
	CU_ASSERT(xs(a.flt, "tx_frames") == n1);
	CU_ASSERT(xs(a.flt, "tx_bytes") == 60ULL * n1);
	CU_ASSERT(lost + xs(a.flt, "fault_tx_burst_loss") == NF - n1);
	CU_ASSERT(lost > 300 && lost < 500);
	CU_ASSERT(xs(a.flt, "fault_tx_bursts") > 15 &&
		  xs(a.flt, "fault_tx_bursts") < 80);
	/* the receive side of a dir=tx port is untouched */
	inject_seq(a.in, 0, 1000);
	CU_ASSERT(drain_port(a.flt, seq1, NF, NULL, 0) == 1000);
	for (i = 0; i < 1000; i++)
		if (seq1[i] != i)
			break;
	CU_ASSERT(i == 1000);
	CU_ASSERT(xs(a.flt, "fault_loss") == 0 &&
		  xs(a.flt, "fault_burst_loss") == 0);
	solo_destroy(&a);
	solo_destroy(&b);
	solo_destroy(&c);

	/* dup, corrupt and reorder on transmit: copies, never the sender's */
	solo_create(&a, "tx4", "dir=tx,dup=100,seed=3");
	send_seq(a.flt, 0, 500);
	n1 = sent_seq(&a, seq1, NF, false);
	CU_ASSERT(n1 == 1000);
	for (i = 0; i + 1 < n1; i += 2)
		if (seq1[i] != i / 2 || seq1[i + 1] != i / 2)
			break;
	CU_ASSERT(i >= n1 - 1);
	CU_ASSERT(xs(a.flt, "fault_tx_dup") == 500 && xs(a.flt, "fault_dup") == 0);
	solo_destroy(&a);
	solo_create(&a, "tx5", "dir=tx,corrupt=100,seed=3");
	send_seq(a.flt, 0, 64);
	CU_ASSERT(sent_seq(&a, NULL, 0, true) == 64);
	CU_ASSERT(xs(a.flt, "fault_tx_corrupt") == 64);
	solo_destroy(&a);

	/* dir=both: each direction draws on its own */
	solo_create(&a, "tx6", "dir=both,loss=10,seed=8");
	send_seq(a.flt, 0, 2000);
	inject_seq(a.in, 0, 2000);
	n1 = sent_seq(&a, seq1, NF, false);
	n2 = drain_port(a.flt, seq2, NF, NULL, 0);
	CU_ASSERT(xs(a.flt, "fault_tx_loss") == 2000 - n1);
	CU_ASSERT(xs(a.flt, "fault_loss") == 2000 - n2);
	CU_ASSERT(2000 - n1 > 120 && 2000 - n1 < 280);
	CU_ASSERT(2000 - n2 > 120 && 2000 - n2 < 280);
	CU_ASSERT(n1 != n2 || memcmp(seq1, seq2, n1 * sizeof(seq1[0])) != 0);
	solo_destroy(&a);
}

static void
test_tx_delay_jitter(void)
{
	static uint32_t seq[NF];
	struct rte_pmd_fault_params prm;
	struct rte_mbuf *m[64];
	struct solo a;
	uint64_t t0, t_first = 0, t_last = 0, hz = rte_get_tsc_hz();
	uint32_t n, i;

	/* transmit delay: nothing leaves before 20 ms, even if nobody sends */
	solo_create(&a, "txd", "dir=tx,delay_us=20000");
	t0 = rte_rdtsc();
	send_seq(a.flt, 0, 10);
	n = 0;
	while (n < 10 && rte_rdtsc() - t0 < 2 * hz) {
		/* polling the receive side flushes the transmit FIFO */
		CU_ASSERT(rte_eth_rx_burst(a.flt, 0, m, RTE_DIM(m)) == 0);
		if (rte_ring_count(a.out) > 0 && n == 0)
			CU_ASSERT(rte_rdtsc() - t0 >= hz / 50);
		n = rte_ring_count(a.out);
	}
	CU_ASSERT(n == 10);
	CU_ASSERT(sent_seq(&a, seq, NF, false) == 10);
	for (i = 0; i < 10; i++)
		CU_ASSERT(seq[i] == i);
	CU_ASSERT(xs(a.flt, "fault_tx_delayed") == 10);
	CU_ASSERT(xs(a.flt, "fault_delayed") == 0);
	/* frames still delayed when the cable is pulled are lost, counted */
	send_seq(a.flt, 100, 5);
	CU_ASSERT(rte_pmd_fault_set_link(a.flt, false) == 0);
	CU_ASSERT(rte_eth_rx_burst(a.flt, 0, m, RTE_DIM(m)) == 0);
	CU_ASSERT(xs(a.flt, "fault_link_down_tx") == 5);
	CU_ASSERT(rte_pmd_fault_set_link(a.flt, true) == 0);
	rte_delay_us_block(25000);
	CU_ASSERT(rte_eth_rx_burst(a.flt, 0, m, RTE_DIM(m)) == 0);
	CU_ASSERT(rte_ring_count(a.out) == 0);
	solo_destroy(&a);

	/*
	 * jitter: 0..50 ms each, yet in order; the last of 200 frames waits
	 * for the largest draw, above 25 ms but with probability 2^-200
	 */
	solo_create(&a, "jit", "jitter_us=50000,seed=5");
	t0 = rte_rdtsc();
	inject_seq(a.in, 0, 200);
	n = 0;
	while (n < 200 && rte_rdtsc() - t0 < 5 * hz) {
		uint16_t k = rte_eth_rx_burst(a.flt, 0, m, RTE_DIM(m));

		for (i = 0; i < k; i++) {
			if (n < NF)
				seq[n] = frame_seq(m[i]);
			n++;
		}
		if (k > 0) {
			if (t_first == 0)
				t_first = rte_rdtsc();
			t_last = rte_rdtsc();
		}
		rte_pktmbuf_free_bulk(m, k);
	}
	CU_ASSERT(n == 200);
	for (i = 0; i < n; i++)
		if (seq[i] != i)
			break;
	CU_ASSERT(i == 200);
	CU_ASSERT(t_last - t0 >= hz / 40);
	CU_ASSERT(xs(a.flt, "fault_delayed") == 200);
	CU_ASSERT(xs(a.flt, "fault_reorder") == 0);
	/* jitter does not reorder, reorder= still does */
	memset(&prm, 0, sizeof(prm));
	prm.jitter_us = 200;
	prm.reorder_ppm = 100000;
	prm.reorder_us = 100000;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	inject_seq(a.in, 0, 2000);
	n = drain_port(a.flt, seq, NF, NULL, 300000);
	CU_ASSERT(n == 2000);
	{
		uint32_t swaps = 0;

		for (i = 1; i < n; i++)
			if (seq[i] < seq[i - 1])
				swaps++;
		CU_ASSERT(swaps > 100 && swaps <= xs(a.flt, "fault_reorder"));
	}
	solo_destroy(&a);
}

/* The runs of sequence numbers missing between delivered frames. */
static uint32_t
gaps(const uint32_t *seq, uint32_t n, uint32_t *gap, uint32_t max)
{
	uint32_t i, g = 0;

	for (i = 1; i < n; i++)
		if (seq[i] != seq[i - 1] + 1 && g < max)
			gap[g++] = seq[i] - seq[i - 1] - 1;
	return g;
}

static void
test_burst_len(void)
{
	static uint32_t seq[NF], gap[NF];
	struct rte_pmd_fault_params prm;
	bool seen[7] = { false };
	struct solo a;
	uint32_t n, ng, i, kinds = 0;
	uint64_t bl, bursts, sum = 0;

	/* fixed: every burst is exactly burst_len frames */
	solo_create(&a, "bl", "burst_loss=1,burst_len=4,seed=9");
	inject_seq(a.in, 0, NF);
	n = drain_port(a.flt, seq, NF, NULL, 0);
	ng = gaps(seq, n, gap, NF);
	CU_ASSERT(ng > 100);
	for (i = 0; i < ng; i++) {
		/* back-to-back bursts merge into one gap */
		CU_ASSERT(gap[i] % 4 == 0);
		sum += gap[i];
	}
	bl = xs(a.flt, "fault_burst_loss");
	bursts = xs(a.flt, "fault_bursts");
	CU_ASSERT(bl == NF - n);
	/* all but a trailing burst cut by the end of the input are whole */
	CU_ASSERT(bl <= 4 * bursts && bl + 3 >= 4 * bursts);
	CU_ASSERT(sum + (NF - 1 - seq[n - 1]) + seq[0] == bl);

	/* burst_len_max: a uniform length in [2, 6] per burst */
	CU_ASSERT(rte_pmd_fault_get_params(a.flt, &prm) == 0);
	prm.burst_len = 2;
	prm.burst_len_max = 6;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	CU_ASSERT(rte_eth_xstats_reset(a.flt) == 0);
	inject_seq(a.in, 0, NF);
	n = drain_port(a.flt, seq, NF, NULL, 0);
	ng = gaps(seq, n, gap, NF);
	for (i = 0; i < ng; i++) {
		CU_ASSERT(gap[i] >= 2);
		if (gap[i] <= 6 && !seen[gap[i]]) {
			seen[gap[i]] = true;
			kinds++;
		}
	}
	/* every length from 2 to 6 shows up alone (200 bursts or so) */
	CU_ASSERT(kinds == 5);
	bl = xs(a.flt, "fault_burst_loss");
	bursts = xs(a.flt, "fault_bursts");
	CU_ASSERT(bl == NF - n);
	CU_ASSERT(bl >= 2 * (bursts - 1) && bl <= 6 * bursts);
	solo_destroy(&a);
}

static void
test_port_stats(void)
{
	struct rte_eth_stats st;
	struct solo a;
	uint32_t n;

	/* a clean port: what crossed it, frames and bytes */
	solo_create(&a, "st", "");
	inject_seq(a.in, 0, 100);
	CU_ASSERT(drain_port(a.flt, NULL, 0, NULL, 0) == 100);
	send_seq(a.flt, 0, 50);
	CU_ASSERT(sent_seq(&a, NULL, 0, false) == 50);
	CU_ASSERT(rte_eth_stats_get(a.flt, &st) == 0);
	CU_ASSERT(st.ipackets == 100 && st.ibytes == 6000);
	CU_ASSERT(st.opackets == 50 && st.obytes == 3000);
	CU_ASSERT(xs(a.flt, "rx_delivered_bytes") == 6000);
	/* after the faults: lost frames are not counted as received */
	CU_ASSERT(rte_eth_stats_reset(a.flt) == 0);
	solo_destroy(&a);
	solo_create(&a, "st2", "dir=both,loss=30,dup=10,seed=4");
	inject_seq(a.in, 0, 1000);
	n = drain_port(a.flt, NULL, 0, NULL, 0);
	send_seq(a.flt, 0, 1000);
	CU_ASSERT(rte_eth_stats_get(a.flt, &st) == 0);
	CU_ASSERT(st.ipackets == n && st.ibytes == 60ULL * n);
	CU_ASSERT(st.ipackets == 1000 - xs(a.flt, "fault_loss") +
		  xs(a.flt, "fault_dup"));
	n = sent_seq(&a, NULL, 0, false);
	CU_ASSERT(st.opackets == n && st.obytes == 60ULL * n);
	CU_ASSERT(n == 1000 - xs(a.flt, "fault_tx_loss") +
		  xs(a.flt, "fault_tx_dup"));
	CU_ASSERT(rte_eth_stats_reset(a.flt) == 0);
	CU_ASSERT(rte_eth_stats_get(a.flt, &st) == 0);
	CU_ASSERT(st.ipackets == 0 && st.ibytes == 0 && st.obytes == 0);
	solo_destroy(&a);
}

/* ------------------------------------------------------------------ */
/* two net_ernic ports over net_fault                                 */
/* ------------------------------------------------------------------ */

enum { SLOT = 16384, NSLOT = 64 };

struct pair {
	struct fault_chain c;
	struct fault_conn o;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	uint64_t free0;		/**< free mbufs when idle, before the fault */
};

static void
pattern(uint8_t *p, size_t len, uint32_t key)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(key * 31 + i * 7 + (i >> 9));
}

static struct roce_qp *
make_qp(struct pair *p, int side, uint32_t sq, struct roce_cq *scq)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = scq != NULL ? scq : p->cq[side];
	ia.recv_cq = p->cq[side];
	ia.cap.max_send_wr = sq;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return roce_create_qp(p->c.pd[side], &ia);
}

static void
pair_create(struct pair *p, uint64_t seed, const char *fault_args,
	    const struct fault_conn *o, uint32_t sq)
{
	int i, ret;

	memset(p, 0, sizeof(*p));
	ret = fault_chain_create(&p->c, 1024, seed, fault_args);
	if (ret != 0)
		fprintf(stderr, "fault_chain_create: %s\n", rte_strerror(-ret));
	CU_ASSERT_FATAL(ret == 0);
	if (o != NULL)
		p->o = *o;
	else
		fault_conn_default(&p->o);
	for (i = 0; i < 2; i++) {
		p->cq[i] = roce_create_cq(p->c.w[i], 1024);
		CU_ASSERT_FATAL(p->cq[i] != NULL);
		p->qp[i] = make_qp(p, i, sq, NULL);
		CU_ASSERT_FATAL(p->qp[i] != NULL);
		p->buf[i] = calloc(NSLOT, SLOT);
		CU_ASSERT_FATAL(p->buf[i] != NULL);
		p->mr[i] = roce_reg_mr(p->c.pd[i], p->buf[i],
				       (size_t)NSLOT * SLOT,
				       ROCE_ACCESS_LOCAL_WRITE |
				       ROCE_ACCESS_REMOTE_WRITE |
				       ROCE_ACCESS_REMOTE_READ);
		CU_ASSERT_FATAL(p->mr[i] != NULL);
	}
	CU_ASSERT_FATAL(fault_chain_connect(&p->c, p->qp[0], p->qp[1],
					    &p->o) == 0);
}

static void
pair_destroy(struct pair *p)
{
	struct roce_async_event ev;
	int i;

	for (i = 0; i < 2; i++) {
		if (p->qp[i] != NULL)
			CU_ASSERT(roce_destroy_qp(p->qp[i]) == 0);
		CU_ASSERT(roce_dereg_mr(p->mr[i]) == 0);
		if (p->cq[i] != NULL)
			CU_ASSERT(roce_destroy_cq(p->cq[i]) == 0);
		free(p->buf[i]);
		while (roce_get_async_event(p->c.dev[i], &ev) == 1)
			;
	}
	fault_chain_destroy(&p->c);
}

static int
post_op(struct pair *p, int side, enum roce_wr_opcode op, uint64_t wr_id,
	unsigned int slot, uint32_t len)
{
	struct roce_send_wr wr;
	struct roce_sge sge;

	sge.addr = (uintptr_t)(p->buf[side] + (size_t)slot * SLOT);
	sge.length = len;
	sge.lkey = roce_mr_lkey(p->mr[side]);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.rdma.remote_addr = (uintptr_t)(p->buf[1 - side] +
					  (size_t)slot * SLOT);
	wr.rdma.rkey = roce_mr_rkey(p->mr[1 - side]);
	return roce_post_send(p->qp[side], &wr, 1, NULL);
}

static int
post_recv_slot(struct pair *p, int side, uint64_t wr_id, unsigned int slot)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;

	sge.addr = (uintptr_t)(p->buf[side] + (size_t)slot * SLOT);
	sge.length = SLOT;
	sge.lkey = roce_mr_lkey(p->mr[side]);
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return roce_post_recv(p->qp[side], &wr, 1, NULL);
}

/* Poll both ports until @p n completions of @p cq arrived (at most @p sec). */
static int
wait_wc(struct pair *p, struct roce_cq *cq, struct roce_wc *wc, int n,
	double sec)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(sec * rte_get_tsc_hz());
	int got = 0, k;

	while (got < n && (int64_t)(rte_rdtsc() - end) < 0) {
		fault_chain_poll(&p->c);
		k = roce_poll_cq(cq, wc + got, n - got);
		if (k > 0)
			got += k;
	}
	return got;
}

/* Poll both ports for @p ms milliseconds (lets rings and timers settle). */
static void
settle(struct pair *p, unsigned int ms)
{
	uint64_t end = rte_rdtsc() + (uint64_t)ms * rte_get_tsc_hz() / 1000;

	while ((int64_t)(rte_rdtsc() - end) < 0)
		fault_chain_poll(&p->c);
}

static enum roce_qp_state
qp_state(const struct roce_qp *qp)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (roce_query_qp(qp, &a, &ia) != 0)
		return ROCE_QPS_UNKNOWN;
	return a.qp_state;
}

/* @p n WRITEs of @p len from side @p s, all verified at the other side. */
static void
write_verified(struct pair *p, int s, unsigned int n, uint32_t len,
	       uint32_t key)
{
	static struct roce_wc wc[NSLOT];
	unsigned int i;
	int got;

	CU_ASSERT_FATAL(n <= NSLOT && len <= SLOT);
	for (i = 0; i < n; i++) {
		pattern(p->buf[s] + (size_t)i * SLOT, len, key + i);
		memset(p->buf[1 - s] + (size_t)i * SLOT, 0, len);
		CU_ASSERT_FATAL(post_op(p, s, ROCE_WR_RDMA_WRITE, 1000 + i, i,
					len) == 0);
	}
	got = wait_wc(p, p->cq[s], wc, (int)n, 20.0);
	CU_ASSERT_FATAL(got == (int)n);
	for (i = 0; i < n; i++) {
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS);
		CU_ASSERT(wc[i].wr_id == 1000 + i);
		CU_ASSERT(memcmp(p->buf[s] + (size_t)i * SLOT,
				 p->buf[1 - s] + (size_t)i * SLOT, len) == 0);
	}
}

/* Nothing outstanding on @p qp: SQ/RQ consumed, no engine timer armed. */
static void
assert_qp_quiet(const struct roce_qp *qp)
{
	CU_ASSERT(qp->sq.prod == qp->sq.cons);
	CU_ASSERT(qp->rq.prod == qp->rq.cons);
	CU_ASSERT(!roce_timer_armed(&qp->comp.retrans));
	CU_ASSERT(!roce_timer_armed(&qp->comp.rnr));
}

static void
reconnect(struct pair *p, uint32_t psn0, uint32_t psn1)
{
	p->o.psn[0] = psn0;
	p->o.psn[1] = psn1;
	CU_ASSERT_FATAL(fault_chain_connect(&p->c, p->qp[0], p->qp[1],
					    &p->o) == 0);
	CU_ASSERT(qp_state(p->qp[0]) == ROCE_QPS_RTS);
	CU_ASSERT(qp_state(p->qp[1]) == ROCE_QPS_RTS);
}

static void
test_peer_death(void)
{
	static struct roce_wc wc[NSLOT + 1];
	struct fault_conn o;
	struct pair p;
	unsigned int posted = 0, i, ok = 0;
	uint64_t t0, t_end, bound, hz = rte_get_tsc_hz();
	int got, ret;

	fault_conn_default(&o);
	o.timeout = 10;		/* 4.19 ms */
	o.retry_cnt = 3;
	pair_create(&p, 11, "", &o, NSLOT);
	write_verified(&p, 0, 8, SLOT, 1);
	settle(&p, 20);
	p.free0 = fault_chain_mbufs_free(&p.c);

	/* fill the send queue: the one past max_send_wr is refused */
	for (i = 0; i < NSLOT; i++) {
		pattern(p.buf[0] + (size_t)i * SLOT, SLOT, 100 + i);
		CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_RDMA_WRITE, i, i,
					SLOT) == 0);
	}
	{
		struct roce_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.opcode = ROCE_WR_RDMA_WRITE;
		wr.send_flags = ROCE_SEND_SIGNALED;
		ret = roce_post_send(p.qp[0], &wr, 1, &posted);
		CU_ASSERT(ret == -ENOMEM);
		CU_ASSERT(posted == 0);
	}
	/* mid-transfer: a few completed, the rest in flight or queued */
	got = wait_wc(&p, p.cq[0], wc, 2, 10.0);
	CU_ASSERT_FATAL(got == 2);
	/* the peer dies: its cable is pulled, both directions */
	CU_ASSERT(rte_pmd_fault_set_link(p.c.flt[1], false) == 0);
	t0 = rte_rdtsc();
	got += wait_wc(&p, p.cq[0], wc + got, NSLOT - got, 30.0);
	t_end = rte_rdtsc();
	CU_ASSERT_FATAL(got == NSLOT);
	/* every WR exactly once, in order: successes, one RETRY_EXC, flushes */
	for (i = 0; i < NSLOT && wc[i].status == ROCE_WC_SUCCESS; i++)
		ok++;
	CU_ASSERT(ok >= 2 && ok < NSLOT);
	CU_ASSERT(wc[ok].status == ROCE_WC_RETRY_EXC_ERR);
	for (i = ok + 1; i < NSLOT; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_WR_FLUSH_ERR);
	for (i = 0; i < NSLOT; i++)
		CU_ASSERT(wc[i].wr_id == i);
	for (i = 0; i < ok; i++)
		CU_ASSERT(memcmp(p.buf[0] + (size_t)i * SLOT,
				 p.buf[1] + (size_t)i * SLOT, SLOT) == 0);
	/*
	 * Within (retry_cnt + 1) local ACK timeouts of the death (plus a
	 * second for a loaded machine; the exact bound is checked on a
	 * simulated clock in the unit suite "exhaust").
	 */
	bound = (uint64_t)(o.retry_cnt + 1) * 4096ULL * (1u << o.timeout) *
		hz / 1000000000 + hz;
	CU_ASSERT(t_end - t0 <= bound);
	printf("\n  peer death: %u ok, RETRY_EXC after %.1f ms (%u x %.1f ms timeouts), %u flushed\n",
	       ok, (double)(t_end - t0) * 1000 / hz, o.retry_cnt + 1,
	       4.096e-3 * (1u << o.timeout), NSLOT - ok - 1);
	CU_ASSERT(qp_state(p.qp[0]) == ROCE_QPS_ERR);
	CU_ASSERT(roce_poll_cq(p.cq[0], wc, 1) == 0);	/* nothing twice */
	CU_ASSERT(p.qp[0]->stats.timeouts == (uint64_t)o.retry_cnt + 1);
	assert_qp_quiet(p.qp[0]);
	/* the link back: everything in flight drained, every mbuf home */
	CU_ASSERT(rte_pmd_fault_set_link(p.c.flt[1], true) == 0);
	settle(&p, 50);
	CU_ASSERT(p.c.w[0]->timers.count == 0);
	CU_ASSERT(fault_chain_mbufs_free(&p.c) == p.free0);
	if (fault_chain_mbufs_free(&p.c) != p.free0)
		fprintf(stderr, "mbufs free %" PRIu64 " before, %" PRIu64 " after\n",
			p.free0, fault_chain_mbufs_free(&p.c));
	CU_ASSERT(xs(p.c.flt[1], "fault_link_down_rx") > 0);

	/* recovery: RESET -> INIT -> RTR -> RTS with fresh PSNs */
	reconnect(&p, 0x123456, 0xabcdef);
	write_verified(&p, 0, NSLOT, SLOT, 7);
	write_verified(&p, 1, 16, SLOT, 9);
	settle(&p, 20);
	assert_qp_quiet(p.qp[0]);
	assert_qp_quiet(p.qp[1]);
	CU_ASSERT(fault_chain_mbufs_free(&p.c) == p.free0);
	pair_destroy(&p);
}

static void
test_rnr_exhausted(void)
{
	static struct roce_wc wc[8];
	struct fault_conn o;
	struct pair p;
	unsigned int i;
	int got;

	fault_conn_default(&o);
	o.rnr_retry = 2;
	o.min_rnr_timer = 4;	/* 0.06 ms */
	pair_create(&p, 12, "", &o, 16);
	settle(&p, 5);
	p.free0 = fault_chain_mbufs_free(&p.c);
	/* nobody posted a receive at side 1 */
	for (i = 0; i < 4; i++) {
		pattern(p.buf[0] + (size_t)i * SLOT, 3000, 50 + i);
		CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_SEND, i, i, 3000) == 0);
	}
	got = wait_wc(&p, p.cq[0], wc, 4, 10.0);
	CU_ASSERT_FATAL(got == 4);
	CU_ASSERT(wc[0].status == ROCE_WC_RNR_RETRY_EXC_ERR);
	for (i = 1; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_WR_FLUSH_ERR);
	for (i = 0; i < 4; i++)
		CU_ASSERT(wc[i].wr_id == i);
	CU_ASSERT(qp_state(p.qp[0]) == ROCE_QPS_ERR);
	CU_ASSERT(qp_state(p.qp[1]) == ROCE_QPS_RTS);
	/* the first try and 2 retries were RNR NAKed */
	CU_ASSERT(p.qp[0]->stats.rnr_naks_rx == 3);
	settle(&p, 20);
	assert_qp_quiet(p.qp[0]);
	CU_ASSERT(p.c.w[0]->timers.count == 0);
	CU_ASSERT(fault_chain_mbufs_free(&p.c) == p.free0);

	/* recovery: receives posted, fresh PSNs */
	reconnect(&p, 777, 888);
	for (i = 0; i < 4; i++)
		CU_ASSERT_FATAL(post_recv_slot(&p, 1, 100 + i, 8 + i) == 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_SEND, 10 + i, i,
					3000) == 0);
	CU_ASSERT_FATAL(wait_wc(&p, p.cq[0], wc, 4, 10.0) == 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS &&
			  wc[i].wr_id == 10 + i);
	CU_ASSERT_FATAL(wait_wc(&p, p.cq[1], wc, 4, 10.0) == 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS);
		CU_ASSERT(wc[i].wr_id == 100 + i && wc[i].byte_len == 3000);
		CU_ASSERT(memcmp(p.buf[1] + (size_t)(8 + i) * SLOT,
				 p.buf[0] + (size_t)i * SLOT, 3000) == 0);
	}
	pair_destroy(&p);
}

static void
test_cq_overrun(void)
{
	static struct roce_wc wc[32];
	struct roce_async_event ev;
	struct roce_cq *small;
	struct pair p;
	bool cq_err = false, qp_fatal = false;
	unsigned int i;
	uint64_t end;
	int n;

	pair_create(&p, 13, "", NULL, 32);
	settle(&p, 5);
	while (roce_get_async_event(p.c.dev[0], &ev) == 1)
		;
	p.free0 = fault_chain_mbufs_free(&p.c);
	/* a QP whose send CQ holds 4 completions, then 16 signaled WRITEs */
	small = roce_create_cq(p.c.w[0], 4);
	CU_ASSERT_FATAL(small != NULL);
	CU_ASSERT(roce_destroy_qp(p.qp[0]) == 0);
	p.qp[0] = make_qp(&p, 0, 32, small);
	CU_ASSERT_FATAL(p.qp[0] != NULL);
	reconnect(&p, 5, 6);
	for (i = 0; i < 16; i++)
		CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_RDMA_WRITE, i, i,
					256) == 0);
	end = rte_rdtsc() + 10 * rte_get_tsc_hz();
	while (qp_state(p.qp[0]) != ROCE_QPS_ERR &&
	       (int64_t)(rte_rdtsc() - end) < 0)
		fault_chain_poll(&p.c);
	/* IBTA 11.4.2.1 / 10.10.2.3: CQ error event, the QP goes to ERR */
	CU_ASSERT(qp_state(p.qp[0]) == ROCE_QPS_ERR);
	while (roce_get_async_event(p.c.dev[0], &ev) == 1) {
		if (ev.event_type == ROCE_EVENT_CQ_ERR &&
		    ev.element.cq == small)
			cq_err = true;
		if (ev.event_type == ROCE_EVENT_QP_FATAL &&
		    ev.element.qp == p.qp[0])
			qp_fatal = true;
	}
	CU_ASSERT(cq_err);
	CU_ASSERT(qp_fatal);
	/* the 4 queued before the overrun, then -EIO for good */
	n = roce_poll_cq(small, wc, 32);
	CU_ASSERT(n == 4);
	for (i = 0; i < 4 && (int)i < n; i++)
		CU_ASSERT(wc[i].status == ROCE_WC_SUCCESS && wc[i].wr_id == i);
	CU_ASSERT(roce_poll_cq(small, wc, 32) == -EIO);
	settle(&p, 20);
	assert_qp_quiet(p.qp[0]);
	/* clean-up works and nothing leaked */
	CU_ASSERT(roce_destroy_qp(p.qp[0]) == 0);
	CU_ASSERT(roce_destroy_cq(small) == 0);
	CU_ASSERT(p.c.w[0]->timers.count == 0);
	/* recovery: a new QP on the good CQ */
	p.qp[0] = make_qp(&p, 0, 32, NULL);
	CU_ASSERT_FATAL(p.qp[0] != NULL);
	reconnect(&p, 9, 10);
	write_verified(&p, 0, 16, 4096, 3);
	settle(&p, 20);
	CU_ASSERT(fault_chain_mbufs_free(&p.c) == p.free0);
	pair_destroy(&p);
}

/* Take every free mbuf of side @p side's TX pool. */
static unsigned int
pool_grab(struct pair *p, int side, struct rte_mbuf ***out)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	struct rte_mbuf **m;
	unsigned int n = 0, cap;

	snprintf(name, sizeof(name), "ernic%u_tx", p->c.ern[side]);
	mp = rte_mempool_lookup(name);
	CU_ASSERT_FATAL(mp != NULL);
	cap = rte_mempool_avail_count(mp) + 1024;
	m = calloc(cap, sizeof(*m));
	CU_ASSERT_FATAL(m != NULL);
	while (n < cap && (m[n] = rte_pktmbuf_alloc(mp)) != NULL)
		n++;
	CU_ASSERT(rte_mempool_avail_count(mp) == 0);
	*out = m;
	return n;
}

static void
pool_give_back(struct rte_mbuf **m, unsigned int n)
{
	rte_pktmbuf_free_bulk(m, n);
	free(m);
}

static void
test_empty_pools(void)
{
	static struct roce_wc wc[8];
	struct rte_mbuf **held;
	struct fault_conn o;
	struct pair p;
	unsigned int n;
	uint64_t before, end, hz = rte_get_tsc_hz();

	/*
	 * A 67 ms local ACK timeout and 7 retries: the phases below stop as
	 * soon as the fault was seen, which leaves the requester most of its
	 * retry budget (0.5 s) for the recovery even when ASan and a loaded
	 * machine slow the polling down.
	 */
	fault_conn_default(&o);
	o.timeout = 14;
	o.retry_cnt = 7;
	pair_create(&p, 14, "", &o, 16);
	write_verified(&p, 0, 2, SLOT, 1);
	settle(&p, 10);
	p.free0 = fault_chain_mbufs_free(&p.c);

	/* requester's pool empty: nothing leaves, counted, no completion */
	n = pool_grab(&p, 0, &held);
	pattern(p.buf[0], SLOT, 77);
	CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_RDMA_WRITE, 1, 0, SLOT) == 0);
	end = rte_rdtsc() + 2 * hz;
	while (p.qp[0]->stats.tx_no_mbuf == 0 &&
	       (int64_t)(rte_rdtsc() - end) < 0)
		fault_chain_poll(&p.c);
	CU_ASSERT(roce_poll_cq(p.cq[0], wc, 8) == 0);
	CU_ASSERT(p.qp[0]->stats.tx_no_mbuf > 0);
	CU_ASSERT(qp_state(p.qp[0]) == ROCE_QPS_RTS);
	pool_give_back(held, n);
	CU_ASSERT_FATAL(wait_wc(&p, p.cq[0], wc, 1, 10.0) == 1);
	CU_ASSERT(wc[0].status == ROCE_WC_SUCCESS);
	CU_ASSERT(memcmp(p.buf[0], p.buf[1], SLOT) == 0);

	/*
	 * responder's pool empty: its ACKs cannot be built; retransmission
	 * recovers. Nothing of side 1 may be in flight first: a frame freed
	 * by side 0 later goes back to side 1's pool.
	 */
	settle(&p, 10);
	before = p.qp[0]->stats.timeouts;
	n = pool_grab(&p, 1, &held);
	pattern(p.buf[0] + SLOT, SLOT, 78);
	CU_ASSERT_FATAL(post_op(&p, 0, ROCE_WR_RDMA_WRITE, 2, 1, SLOT) == 0);
	/* until its ACK failed and the requester timed out once */
	end = rte_rdtsc() + 2 * hz;
	while (((fault_chain_roce_cnt(&p.c, 1, "resp_no_mbuf") == 0 &&
		 p.qp[1]->stats.tx_no_mbuf == 0) ||
		p.qp[0]->stats.timeouts == before) &&
	       (int64_t)(rte_rdtsc() - end) < 0)
		fault_chain_poll(&p.c);
	CU_ASSERT(roce_poll_cq(p.cq[0], wc, 8) == 0);
	CU_ASSERT(fault_chain_roce_cnt(&p.c, 1, "resp_no_mbuf") > 0 ||
		  p.qp[1]->stats.tx_no_mbuf > 0);
	CU_ASSERT(p.qp[0]->stats.timeouts > before);
	pool_give_back(held, n);
	CU_ASSERT_FATAL(wait_wc(&p, p.cq[0], wc, 1, 10.0) == 1);
	CU_ASSERT(wc[0].status == ROCE_WC_SUCCESS);
	CU_ASSERT(memcmp(p.buf[0] + SLOT, p.buf[1] + SLOT, SLOT) == 0);
	printf("\n  empty pools: requester tx_no_mbuf %" PRIu64 ", responder resp_no_mbuf %" PRIu64 ", timeouts %" PRIu64 "\n",
	       p.qp[0]->stats.tx_no_mbuf,
	       fault_chain_roce_cnt(&p.c, 1, "resp_no_mbuf"),
	       p.qp[0]->stats.timeouts - before);
	CU_ASSERT(qp_state(p.qp[0]) == ROCE_QPS_RTS);
	CU_ASSERT(qp_state(p.qp[1]) == ROCE_QPS_RTS);
	settle(&p, 20);
	CU_ASSERT(fault_chain_mbufs_free(&p.c) == p.free0);
	pair_destroy(&p);
}

/* ------------------------------------------------------------------ */
/* Bottleneck: rate, tail drop, RED/ECN marking                       */
/* ------------------------------------------------------------------ */

enum { BN_LEN = 1000 };

/*
 * A @p len byte IPv4 (or IPv6) frame, behind one VLAN tag when @p vlan,
 * ECN field @p ecn, valid IPv4 header checksum, @p seq in the last bytes.
 */
static struct rte_mbuf *
ip_frame(uint32_t seq, uint32_t len, uint8_t ecn, bool v6, bool vlan)
{
	static struct rte_mempool *mp;
	struct rte_mbuf *m;
	uint8_t *d, *ip;
	uint32_t l3 = vlan ? 18 : 14;
	uint16_t ck;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("fault_bn", 8191, 256, 0,
					     RTE_PKTMBUF_HEADROOM + 2048,
					     SOCKET_ID_ANY);
	CU_ASSERT_FATAL(mp != NULL);
	m = rte_pktmbuf_alloc(mp);
	CU_ASSERT_FATAL(m != NULL);
	d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_FATAL(d != NULL);
	memset(d, 0x5a, len);
	if (vlan) {
		d[12] = 0x81, d[13] = 0x00, d[14] = 0x00, d[15] = 0x07;
		d += 4;
	}
	d[12] = v6 ? 0x86 : 0x08;
	d[13] = v6 ? 0xdd : 0x00;
	ip = rte_pktmbuf_mtod_offset(m, uint8_t *, l3);
	memset(ip, 0, v6 ? 40 : 20);
	if (v6) {
		ip[0] = 0x60 | (0x1a >> 2);	/* DSCP 26 across the nibbles */
		ip[1] = (uint8_t)((0x1a & 3) << 6 | ecn << 4);
		ip[6] = 17;
		ip[7] = 64;
	} else {
		ip[0] = 0x45;
		ip[1] = (uint8_t)(26 << 2 | ecn);
		ip[2] = (uint8_t)((len - l3) >> 8);
		ip[3] = (uint8_t)(len - l3);
		ip[8] = 64;
		ip[9] = 17;
		/* the ones' complement sum is byte-order free */
		ck = (uint16_t)~rte_raw_cksum(ip, 20);
		memcpy(ip + 10, &ck, 2);
	}
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, len - 4), &seq, 4);
	return m;
}

struct bn_seen {
	uint32_t frames, ce, ect, not_ect, bad_sum, bad_body, v6_ce;
	uint32_t last_seq;
	bool in_order;
	uint64_t bytes;
	/* fault_bneck_queue, sampled after each receive: its highest, how
	 * many samples saw a queue */
	uint64_t q_max;
	uint32_t q_busy;
};

/* Check one delivered frame of ip_frame(). */
static void
bn_check(struct bn_seen *b, const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = d[12] == 0x81 ? 18 : 14, seq, k, hl;
	bool v6 = d[l3 - 2] == 0x86;
	uint8_t ecn;

	memcpy(&seq, d + m->pkt_len - 4, 4);
	if (b->frames > 0 && seq <= b->last_seq)
		b->in_order = false;
	b->last_seq = seq;
	b->frames++;
	b->bytes += m->pkt_len;
	ecn = v6 ? (d[l3 + 1] >> 4) & 3 : d[l3 + 1] & 3;
	if (ecn == 3)
		b->ce++;
	else if (ecn != 0)
		b->ect++;
	else
		b->not_ect++;
	if (v6 && ecn == 3)
		b->v6_ce++;
	/* the DSCP kept, the IPv4 header sum still valid */
	if (v6 ? (d[l3] & 0xf) != (0x1a >> 2) || d[l3 + 1] >> 6 != (0x1a & 3) :
	    d[l3 + 1] >> 2 != 26 || rte_raw_cksum(d + l3, 20) != 0xffff)
		b->bad_sum++;
	hl = l3 + (v6 ? 40 : 20);
	for (k = hl; k + 4 < m->pkt_len; k++)
		if (d[k] != 0x5a)
			break;
	if (k + 4 < m->pkt_len)
		b->bad_body++;
}

/* Receive from @p port until @p n frames came or @p s seconds passed. */
static void
bn_drain(uint16_t port, struct bn_seen *b, uint32_t n, double s,
	 uint64_t *last_tsc)
{
	struct rte_mbuf *m[64];
	uint64_t end = rte_rdtsc() + (uint64_t)(s * rte_get_tsc_hz()), q;
	uint16_t k, i;

	while (b->frames < n && (int64_t)(rte_rdtsc() - end) < 0) {
		k = rte_eth_rx_burst(port, 0, m, RTE_DIM(m));
		if (k != 0)
			*last_tsc = rte_rdtsc();
		q = xs(port, "fault_bneck_queue");
		b->q_max = RTE_MAX(b->q_max, q);
		b->q_busy += q > 0;
		for (i = 0; i < k; i++) {
			bn_check(b, m[i]);
			rte_pktmbuf_free(m[i]);
		}
	}
}

static void
test_bneck(void)
{
	/* 100 Mbit/s, 64 KiB queue, RED from 8 to 32 KiB up to 20 % */
	static const char args[] = "rate_mbps=100,queue_kb=64,ecn_kmin_kb=8,"
		"ecn_kmax_kb=32,ecn_pmax=20,seed=9";
	struct rte_pmd_fault_params prm;
	struct bn_seen b;
	struct solo a;
	uint64_t t0, t1 = 0, marked, tail, red, peak, bytes, min_us, us;
	uint32_t i, n = 3000, got;
	uint8_t ecn;

	solo_create(&a, "bn1", args);
	CU_ASSERT_FATAL(rte_pmd_fault_get_params(a.flt, &prm) == 0);
	CU_ASSERT(prm.rate_mbps == 100 && prm.queue_kb == 64 &&
		  prm.ecn_kmin_kb == 8 && prm.ecn_kmax_kb == 32 &&
		  prm.ecn_pmax_ppm == 200000);
	/* ECT(0), ECT(1), not-ECT; every 8th IPv6, every 5th tagged */
	for (i = 0; i < n; i++) {
		ecn = i % 3 == 2 ? 0 : i % 3 == 1 ? 1 : 2;
		CU_ASSERT_FATAL(rte_ring_enqueue(a.in, ip_frame(i, BN_LEN, ecn,
				i % 8 == 7, i % 5 == 4)) == 0);
	}
	memset(&b, 0, sizeof(b));
	b.in_order = true;
	t0 = rte_rdtsc();
	bn_drain(a.flt, &b, n, 60.0, &t1);
	/* until nothing more comes */
	got = b.frames;
	drain_port(a.flt, NULL, 0, NULL, 20000);
	CU_ASSERT(b.frames == got);
	marked = xs(a.flt, "fault_ecn_marked");
	tail = xs(a.flt, "fault_bneck_tail_drop");
	red = xs(a.flt, "fault_bneck_red_drop");
	peak = xs(a.flt, "fault_bneck_queue_peak");
	bytes = xs(a.flt, "fault_bneck_bytes");
	printf("\n  bottleneck: %u of %u delivered, %" PRIu64 " marked, %" PRIu64
	       " tail-dropped, %" PRIu64 " RED-dropped, queue peak %" PRIu64
	       " B, %.1f Mbit/s\n", b.frames, n, marked, tail, red, peak,
	       t1 > t0 ? b.bytes * 8.0 * rte_get_tsc_hz() / (t1 - t0) / 1e6 : 0);
	/* every frame accounted for, in order, intact */
	CU_ASSERT(b.frames + tail + red == n);
	CU_ASSERT(xs(a.flt, "rx_delivered") == b.frames);
	CU_ASSERT(bytes == b.bytes);
	CU_ASSERT(xs(a.flt, "rx_delivered_bytes") == b.bytes);
	CU_ASSERT(b.in_order);
	CU_ASSERT(b.bad_sum == 0 && b.bad_body == 0);
	/* bursts of 64 frames meet a 64 KiB queue: drops and marks */
	CU_ASSERT(tail > 0);
	CU_ASSERT(marked > 0 && red > 0);
	CU_ASSERT(b.ce == marked);
	CU_ASSERT(b.v6_ce > 0);
	CU_ASSERT(peak <= 64 * 1024 && peak > 32 * 1024);
	/* the queue now: seen while the line drained it, never above the
	 * peak, empty once everything has left */
	CU_ASSERT(b.q_busy > 0 && b.q_max > 0 && b.q_max <= peak);
	CU_ASSERT(xs(a.flt, "fault_bneck_queue") == 0);
	/* never faster than the line: everything arrived after t0 and the
	 * line serialises it (load only makes it slower) */
	min_us = b.bytes * 8 / 100;
	us = (t1 - t0) * 1000000 / rte_get_tsc_hz();
	CU_ASSERT(us >= min_us * 99 / 100);
	/* a reset restarts the peak */
	CU_ASSERT(rte_eth_xstats_reset(a.flt) == 0);
	CU_ASSERT(xs(a.flt, "fault_bneck_queue_peak") == 0);
	CU_ASSERT(xs(a.flt, "fault_ecn_marked") == 0);
	/* a lone frame on an idle line: no queue, no mark */
	CU_ASSERT_FATAL(rte_ring_enqueue(a.in, ip_frame(n, BN_LEN, 2, false,
							false)) == 0);
	memset(&b, 0, sizeof(b));
	bn_drain(a.flt, &b, 1, 10.0, &t1);
	CU_ASSERT(b.frames == 1 && b.ce == 0);
	CU_ASSERT(xs(a.flt, "fault_bneck_queue_peak") == BN_LEN);
	/* switched off at run time: straight through */
	prm.rate_mbps = 0;
	prm.queue_kb = prm.ecn_kmin_kb = prm.ecn_kmax_kb = 0;
	prm.ecn_pmax_ppm = 0;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	inject_seq(a.in, 0, 500);
	CU_ASSERT(drain_port(a.flt, NULL, 0, NULL, 1000) == 500);
	/* bad combinations refused */
	prm.queue_kb = 4;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == -EINVAL);
	prm.rate_mbps = 10;
	prm.queue_kb = 0;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == -EINVAL);
	prm.queue_kb = 4;
	prm.ecn_kmin_kb = 3;
	prm.ecn_kmax_kb = 2;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == -EINVAL);
	prm.ecn_kmin_kb = 2;
	prm.ecn_kmax_kb = 5;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == -EINVAL);
	prm.ecn_kmax_kb = 4;
	prm.ecn_pmax_ppm = 1000001;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == -EINVAL);
	prm.ecn_pmax_ppm = 1000000;
	CU_ASSERT(rte_pmd_fault_set_params(a.flt, &prm) == 0);
	solo_destroy(&a);

	/* transmit side: every frame above Kmax (0) marked, tail drop */
	solo_create(&a, "bn2", "dir=tx,rate_mbps=1000,queue_kb=8,ecn_pmax=100");
	{
		struct rte_mbuf *m[64];

		for (i = 0; i < 64; i++)
			m[i] = ip_frame(i, BN_LEN, 2, false, false);
		/* one burst: one arrival time, whatever the load */
		CU_ASSERT_FATAL(rte_eth_tx_burst(a.flt, 0, m, 64) == 64);
		/* the queue leaves on later bursts (8 KiB at 1 Gbit/s: 66 us) */
		t0 = rte_rdtsc() + 10 * rte_get_tsc_hz();
		while (xs(a.flt, "tx_frames") < 8 &&
		       (int64_t)(rte_rdtsc() - t0) < 0)
			rte_eth_tx_burst(a.flt, 0, m, 0);
	}
	tail = xs(a.flt, "fault_tx_bneck_tail_drop");
	marked = xs(a.flt, "fault_tx_ecn_marked");
	CU_ASSERT(tail == 64 - 8 && marked == 8);
	CU_ASSERT(xs(a.flt, "tx_frames") == 8);
	CU_ASSERT(xs(a.flt, "fault_tx_bneck_queue_peak") == 8 * BN_LEN);
	memset(&b, 0, sizeof(b));
	{
		void *m;

		while (rte_ring_dequeue(a.out, &m) == 0) {
			bn_check(&b, m);
			rte_pktmbuf_free(m);
		}
	}
	CU_ASSERT(b.frames == 8 && b.ce == 8 && b.bad_sum == 0);
	solo_destroy(&a);
}

static CU_TestInfo fault_tests[] = {
	{ "net_fault devargs and ownership", test_devargs },
	{ "loss and bursts: counted, deterministic", test_loss_deterministic },
	{ "dup, reorder, corrupt: counted, as specified", test_dup_reorder_corrupt },
	{ "delay, link down/up, flap", test_delay_and_link },
	{ "transmit faults, dir=both: counted, deterministic", test_tx_faults },
	{ "transmit delay, jitter keeps order", test_tx_delay_jitter },
	{ "burst length fixed and random", test_burst_len },
	{ "bottleneck: rate, tail drop, RED/ECN marks", test_bneck },
	{ "port stats: frames and bytes after the faults", test_port_stats },
	{ "peer death mid-transfer, full SQ, recovery", test_peer_death },
	{ "RNR retries exhausted, recovery", test_rnr_exhausted },
	{ "CQ overrun: event, QP to ERR, recovery", test_cq_overrun },
	{ "empty mempools: counted, retransmit recovers", test_empty_pools },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "fault", NULL, NULL, NULL, NULL, fault_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 1;
	return test_run(suites);
}
