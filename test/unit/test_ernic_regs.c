/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PG332 register window of net_ernic (lib/ernic_pmd/ernic_regs*.c,
 * ernic_hs.c): the whole ERNIC software flow by register reads and writes
 * only, between two net_ernic ports over a crossed pair of net_ring ports
 * (as test_pmd.c), the workers run with rte_pmd_ernic_poll():
 *
 *   ringA: rx <- r_ba, tx -> r_ab        ringB: rx <- r_ab, tx -> r_ba
 *   net_ernic0 on ringA (2 workers)      net_ernic1 on ringB
 *   net_ernic2 on ringC (never started): register fuzzing
 *
 * QP pairs: 2 <-> 3 data and fatal error recovery, 4 <-> 5 illegal opcode
 * and QP deletion, 6 <-> 7 hardware handshake mode. Memory (queues,
 * doorbells, data) is the test's; only the register window is used to
 * drive the ports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_regs.h"
#include "test_common.h"

/* register map values the test programs (PG332 v4.x) */
enum {
	CONF_EN = 1u << 0,
	ADCONF_OVERRIDE = 1u << 0,
	QPC_EN = 1u << 0,
	QPC_HS_DIS = 1u << 4,
	QPC_CQE = 1u << 5,
	QPC_RECOVERY = 1u << 6,
	STATQP_FATAL = 1u << 0,
	STATQP_SQ_EMPTY = 1u << 9,
	STATQP_OSQ_EMPTY = 1u << 10,
	INT_WQE = 1u << 4,
	INT_CNP = 1u << 8,		/* CNP scheduled */
	CNPSCHDSTS1 = 0x100390,		/* first of 64 W1C banks */
	INT_ILLEGAL = 1u << 5,
	INT_RQ = 1u << 6,
	INT_FATAL = 1u << 7,
	RESPHND_DB_CHECK = 1u << 16,
	NUM_QP = 8,
	SQ_DEPTH = 16,
	RQ_DEPTH = 8,
	RQ_BUF = 1024,
	DATA_SIZE = 256 * 1024,
	PMTU_CODE = 2,			/* 1024 */
	ACC_READ = 0,
	ACC_RDWR = 2,
	WC_REM_ACCESS_ERR = 10,		/* ROCE_WC_REM_ACCESS_ERR */
	WC_LOC_QP_OP_ERR = 2,		/* ROCE_WC_LOC_QP_OP_ERR */
	WC_FLUSH_ERR = 5,		/* ROCE_WC_WR_FLUSH_ERR */
	ERR_REM_ACCESS = 9,		/* ROCE_ERR_REM_ACCESS */
	ERR_LOC_ACCESS = 5,		/* ROCE_ERR_LOC_ACCESS */
	/* PD table entries of ernic1 */
	ENT_RW = 5,			/* read/write, key byte 0x3c */
	ENT_RO = 0,			/* read only, key byte 0x00 (entry 0) */
	KEY_RW = 0x3c,
	KEY_RO = 0x00,
};

/* the VA the peer names ernic1's buffers by (not their host address) */
#define VA_RW 0x100000000000ull
#define VA_RO 0x200000000000ull

static struct rte_ring *r_ab, *r_ba, *r_c;

/* One port and the memory its "driver" owns. */
struct side {
	uint16_t port;
	uint8_t mac[6];
	uint8_t ip[4];
	uint8_t *errbuf, *ipkterr, *resperr;
	uint8_t *data;			/* DATA_SIZE */
};

/* One register-driven QP. */
struct tqp {
	struct side *s;
	uint32_t qpn, dqpn;
	uint8_t *sq, *rq;
	uint32_t *cq;
	volatile uint32_t *cqdb, *rqdb;
	uint32_t sqpi, rqci, sqpsn, epsn;
};

static struct side s0 = {
	.mac = { 0x02, 0, 0, 0, 0, 0x01 }, .ip = { 198, 18, 0, 1 } };
static struct side s1 = {
	.mac = { 0x02, 0, 0, 0, 0, 0x02 }, .ip = { 198, 18, 0, 2 } };
static uint16_t fuzz_port;
static bool started;
static struct tqp q2, q3, q4, q5, q6, q7;

/* ------------------------------------------------------------------ */
/* helpers: registers by name, polling                                */
/* ------------------------------------------------------------------ */

static uint32_t
off_of(const char *name, uint32_t idx)
{
	uint32_t off = UINT32_MAX;

	CU_ASSERT_FATAL(rte_pmd_ernic_reg_by_name(name, idx, &off) == 0);
	return off;
}

static int
reg_wr(uint16_t port, const char *name, uint32_t idx, uint32_t v)
{
	return rte_pmd_ernic_reg_write(port, off_of(name, idx), v);
}

static void
reg_w(uint16_t port, const char *name, uint32_t idx, uint32_t v)
{
	int ret = reg_wr(port, name, idx, v);

	if (ret != 0)
		fprintf(stderr, "port %u: write %s[%u] = %#x: %d\n", port, name,
			idx, v, ret);
	CU_ASSERT(ret == 0);
}

static uint32_t
reg_r(uint16_t port, const char *name, uint32_t idx)
{
	uint32_t v = 0xdeadbeef;

	CU_ASSERT(rte_pmd_ernic_reg_read(port, off_of(name, idx), &v) == 0);
	return v;
}

static void
reg_w64(uint16_t port, const char *lsb, const char *msb, uint32_t idx,
	const void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;

	reg_w(port, lsb, idx, (uint32_t)a);
	reg_w(port, msb, idx, (uint32_t)(a >> 32));
}

static void
poll_both(void)
{
	rte_pmd_ernic_poll(s0.port);
	rte_pmd_ernic_poll(s1.port);
}

/* Poll until (register & mask) == want, up to 3 s. */
static bool
wait_reg(uint16_t port, const char *name, uint32_t idx, uint32_t mask,
	 uint32_t want)
{
	uint64_t end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();

	do {
		if ((reg_r(port, name, idx) & mask) == want)
			return true;
		poll_both();
	} while (rte_get_tsc_cycles() < end);
	fprintf(stderr, "port %u: %s[%u] = %#x, waited for %#x under %#x\n",
		port, name, idx, reg_r(port, name, idx), want, mask);
	return false;
}

/* Poll until a memory doorbell holds @p want, up to 3 s. */
static bool
wait_mem(volatile uint32_t *p, uint32_t want)
{
	uint64_t end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();

	do {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
			return true;
		poll_both();
	} while (rte_get_tsc_cycles() < end);
	fprintf(stderr, "doorbell %u, waited for %u\n", *p, want);
	return false;
}

static uint32_t
ip_u32(const uint8_t *ip)
{
	return (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 |
		(uint32_t)ip[2] << 8 | ip[3];
}

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* ------------------------------------------------------------------ */
/* the PG332 steps                                                    */
/* ------------------------------------------------------------------ */

/* Step 1: global configuration. */
static void
global_config(struct side *s)
{
	reg_w(s->port, "MACXADDLSB", 0, (uint32_t)s->mac[2] << 24 |
	      (uint32_t)s->mac[3] << 16 | (uint32_t)s->mac[4] << 8 | s->mac[5]);
	reg_w(s->port, "MACXADDMSB", 0, (uint32_t)s->mac[0] << 8 | s->mac[1]);
	reg_w(s->port, "IPv4XADD", 0, ip_u32(s->ip));
	/* error buffer: 8 entries of 64 bytes */
	reg_w64(s->port, "ERRBUFBA", "ERRBUFBAMSB", 0, s->errbuf);
	reg_w(s->port, "ERRBUFSZ", 0, 64u << 16 | 8);
	/* incoming packet error status queue: 16 entries of 8 bytes */
	reg_w64(s->port, "IPKTERRQBA", "IPKTERRQBAMSB", 0, s->ipkterr);
	reg_w(s->port, "IPKTERRQSZ", 0, 16);
	/* response error packet buffer: 8 entries of 64 bytes */
	reg_w64(s->port, "RESPERRPKTBA", "RESPERRPKTBAMSB", 0, s->resperr);
	reg_w(s->port, "RESPERRSZ", 0, 64u << 16 | 8);
	reg_w(s->port, "INTEN", 0, 0x1ff);
	/* enable, NUM_QP, UDP source port */
	reg_w(s->port, "XRNICCONF", 0, 49152u << 16 | NUM_QP << 8 | CONF_EN);
}

/* Step 2: one PD table entry. */
static void
pdt_entry(struct side *s, uint32_t i, uint32_t pd, uint64_t va, void *buf,
	  uint8_t key, uint32_t len, uint32_t acc)
{
	reg_w(s->port, "PDPDNUM", i, pd);
	reg_w(s->port, "VIRTADDRLSB", i, (uint32_t)va);
	reg_w(s->port, "VIRTADDRMSB", i, (uint32_t)(va >> 32));
	reg_w64(s->port, "BUFBASEADDRLSB", "BUFBASEADDRMSB", i, buf);
	reg_w(s->port, "BUFRKEY", i, key);
	reg_w(s->port, "WRRDBUFLEN", i, len);
	reg_w(s->port, "ACCESSDESC", i, acc);
}

static void
tqp_alloc(struct tqp *t, struct side *s, uint32_t qpn, uint32_t dqpn,
	  uint32_t sqpsn, uint32_t epsn)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->qpn = qpn;
	t->dqpn = dqpn;
	t->sqpsn = sqpsn;
	t->epsn = epsn;
	t->sq = rte_zmalloc("t_sq", SQ_DEPTH * 64, 64);
	t->rq = rte_zmalloc("t_rq", RQ_DEPTH * RQ_BUF, 64);
	t->cq = rte_zmalloc("t_cq", SQ_DEPTH * 4, 64);
	t->cqdb = rte_zmalloc("t_db", 64, 64);
	t->rqdb = rte_zmalloc("t_db", 64, 64);
	CU_ASSERT_FATAL(t->sq && t->rq && t->cq && t->cqdb && t->rqdb);
}

static uint32_t
qpconf_of(bool hs)
{
	return QPC_EN | (hs ? 0 : QPC_HS_DIS) | QPC_CQE |
		PMTU_CODE << 8 | (RQ_BUF / 256) << 16;
}

/* Path registers of QP @p t toward the other side. */
static void
qp_path(struct tqp *t, const struct side *peer)
{
	uint16_t p = t->s->port;

	reg_w(p, "DESTQPCONF", t->qpn, t->dqpn);
	reg_w(p, "MACDESADDLSB", t->qpn, (uint32_t)peer->mac[2] << 24 |
	      (uint32_t)peer->mac[3] << 16 | (uint32_t)peer->mac[4] << 8 |
	      peer->mac[5]);
	reg_w(p, "MACDESADDMSB", t->qpn, (uint32_t)peer->mac[0] << 8 |
	      peer->mac[1]);
	reg_w(p, "IPDESADDR1", t->qpn, ip_u32(peer->ip));
	reg_w(p, "SQPSN", t->qpn, t->sqpsn);
	/* last request PSN received: one before the peer's first */
	reg_w(p, "LSTRQREQ", t->qpn, (t->epsn - 1) & 0xffffff);
	/* timeout 4.096 us * 2^14, 7 retries, 7 RNR retries, RNR timer 1 */
	reg_w(p, "TIMEOUTCONF", t->qpn, 1u << 16 | 7u << 11 | 7u << 8 | 14);
	reg_w(p, "QPADVCONF", t->qpn, 0xffffu << 16 | 64u << 8);
}

/* Steps 3/4/5: queues, doorbells, path, PD; QPCONF enable last. */
static void
qp_create(struct tqp *t, const struct side *peer, bool hs)
{
	uint16_t p = t->s->port;

	reg_w64(p, "RQBA", "RQBAMSB", t->qpn, t->rq);
	reg_w64(p, "SQBA", "SQBAMSB", t->qpn, t->sq);
	reg_w64(p, "CQBA", "CQBAMSB", t->qpn, t->cq);
	reg_w64(p, "CQDBADD", "CQDBADDMSB", t->qpn, (const void *)t->cqdb);
	reg_w64(p, "RQWPTRDBADD", "RQWPTRDBADDMSB", t->qpn,
		(const void *)t->rqdb);
	reg_w(p, "QDEPTH", t->qpn, RQ_DEPTH << 16 | SQ_DEPTH);
	reg_w(p, "PDNUM", t->qpn, 1);
	qp_path(t, peer);
	reg_w(p, "QPCONF", t->qpn, qpconf_of(hs));
}

/* Step 6: a WQE at SQBA + SQPI * 64, then the incremented SQPI. */
static void
post(struct tqp *t, uint16_t wrid, uint8_t op, const void *laddr,
     uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t imm)
{
	struct rte_pmd_ernic_wqe *w =
		(struct rte_pmd_ernic_wqe *)(t->sq + t->sqpi * 64);

	memset(w, 0, sizeof(*w));
	w->wrid = wrid;
	w->opcode = op;
	w->laddr = (uint64_t)(uintptr_t)laddr;
	w->length = len;
	w->raddr = raddr;
	w->rkey = rkey;
	w->imm = imm;
	t->sqpi = (t->sqpi + 1) % SQ_DEPTH;
	reg_w(t->s->port, "SQPI", t->qpn, t->sqpi);
}

/* Step 7: CQHEAD reaches SQPI; the CQE of slot @p idx. */
static uint32_t
complete(struct tqp *t)
{
	uint32_t idx = (t->sqpi + SQ_DEPTH - 1) % SQ_DEPTH;

	CU_ASSERT(wait_reg(t->s->port, "CQHEAD", t->qpn, 0xffff, t->sqpi));
	CU_ASSERT(wait_mem(t->cqdb, t->sqpi));
	return __atomic_load_n(&t->cq[idx], __ATOMIC_ACQUIRE);
}

/* Receiving: the RQ write pointer doorbell moved; the entry at RQCI. */
static const uint8_t *
rq_next(struct tqp *t, struct rte_pmd_ernic_rq_desc *d)
{
	const uint8_t *buf = t->rq + t->rqci * RQ_BUF;

	CU_ASSERT(wait_mem(t->rqdb, (t->rqci + 1) % RQ_DEPTH));
	memcpy(d, buf + RQ_BUF - RTE_PMD_ERNIC_RQ_DESC_LEN, sizeof(*d));
	return buf;
}

/* ... and RQCI returns the buffer. */
static void
rq_return(struct tqp *t)
{
	t->rqci = (t->rqci + 1) % RQ_DEPTH;
	reg_w(t->s->port, "RQCI", t->qpn, t->rqci);
	CU_ASSERT(reg_r(t->s->port, "RQCI", t->qpn) == t->rqci);
}

/* ------------------------------------------------------------------ */
/* suite setup                                                        */
/* ------------------------------------------------------------------ */

static int
side_mem(struct side *s)
{
	s->errbuf = rte_zmalloc("t_err", 8 * 64, 64);
	s->ipkterr = rte_zmalloc("t_ipk", 16 * 8, 64);
	s->resperr = rte_zmalloc("t_rsp", 8 * 64, 64);
	s->data = rte_zmalloc("t_data", DATA_SIZE, 64);
	return s->errbuf && s->ipkterr && s->resperr && s->data ? 0 : -1;
}

static int
suite_init(void)
{
	struct rte_ring *rx_a[1], *tx_a[1], *rx_b[1], *tx_b[1], *c[1];
	int a, b, cc;

	r_ab = rte_ring_create("t_ab", 4096, 0, 0);
	r_ba = rte_ring_create("t_ba", 4096, 0, 0);
	r_c = rte_ring_create("t_c", 1024, 0, 0);
	if (r_ab == NULL || r_ba == NULL || r_c == NULL)
		return -1;
	rx_a[0] = r_ba;
	tx_a[0] = r_ab;
	rx_b[0] = r_ab;
	tx_b[0] = r_ba;
	c[0] = r_c;
	a = rte_eth_from_rings("ringA", rx_a, 1, tx_a, 1, 0);
	b = rte_eth_from_rings("ringB", rx_b, 1, tx_b, 1, 0);
	cc = rte_eth_from_rings("ringC", c, 1, c, 1, 0);
	if (a < 0 || b < 0 || cc < 0)
		return -1;
	if (rte_vdev_init("net_ernic0", "port=net_ring_ringA,ip=198.18.0.1,mac=02:00:00:00:00:01,workers=2") != 0 ||
	    rte_vdev_init("net_ernic1", "port=net_ring_ringB,ip=198.18.0.2,mac=02:00:00:00:00:02") != 0 ||
	    rte_vdev_init("net_ernic2", "port=net_ring_ringC,ip=198.18.0.3,max_qps=64") != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name("net_ernic0", &s0.port) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic1", &s1.port) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic2", &fuzz_port) != 0)
		return -1;
	if (side_mem(&s0) != 0 || side_mem(&s1) != 0)
		return -1;
	return 0;
}

static int
suite_fini(void)
{
	if (started) {
		rte_eth_dev_stop(s0.port);
		rte_eth_dev_stop(s1.port);
	}
	rte_vdev_uninit("net_ernic0");
	rte_vdev_uninit("net_ernic1");
	rte_vdev_uninit("net_ernic2");
	return 0;
}

/* ------------------------------------------------------------------ */
/* tests                                                              */
/* ------------------------------------------------------------------ */

static void
test_global_config(void)
{
	/* the window exists from probe on: reset values are the devargs */
	CU_ASSERT(reg_r(s0.port, "IPv4XADD", 0) == ip_u32(s0.ip));
	CU_ASSERT(reg_r(s0.port, "MACXADDLSB", 0) == 0x00000001);
	CU_ASSERT(reg_r(s0.port, "MACXADDMSB", 0) == 0x0200);
	CU_ASSERT(reg_r(s0.port, "QPCONF", 2) == QPC_HS_DIS);

	/* PD table before start: stored, published at start */
	pdt_entry(&s1, ENT_RW, 1, VA_RW, s1.data, KEY_RW, DATA_SIZE / 2,
		  ACC_RDWR);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s1.port,
		  RTE_PMD_ERNIC_RCNT_PDT_PUBLISH) == 0);
	/* a QP cannot be enabled before the port runs */
	CU_ASSERT(reg_wr(s0.port, "QPCONF", 9, QPC_EN) == -EAGAIN);

	CU_ASSERT_FATAL(test_port_start(s0.port) == 0);
	CU_ASSERT_FATAL(test_port_start(s1.port) == 0);
	started = true;
	CU_ASSERT(rte_pmd_ernic_reg_counter(s1.port,
		  RTE_PMD_ERNIC_RCNT_PDT_PUBLISH) == 1);

	global_config(&s0);
	global_config(&s1);
	CU_ASSERT(reg_r(s0.port, "XRNICCONF", 0) ==
		  (49152u << 16 | NUM_QP << 8 | CONF_EN));
	CU_ASSERT(reg_r(s1.port, "ERRBUFSZ", 0) == (64u << 16 | 8));
	CU_ASSERT(reg_r(s1.port, "IPKTERRQWPTR", 0) == 0);
	CU_ASSERT(reg_r(s1.port, "INTSTS", 0) == 0);
	/* QPs above NUM_QP stay off */
	CU_ASSERT(reg_wr(s0.port, "QPCONF", NUM_QP + 1, QPC_EN) == -EINVAL);
}

static void
test_pd_table(void)
{
	uint32_t pub;

	CU_ASSERT_FATAL(started);
	pub = (uint32_t)rte_pmd_ernic_reg_counter(s1.port,
			RTE_PMD_ERNIC_RCNT_PDT_PUBLISH);
	/* entry 0: read-only second half; R_Key 0x00000000 */
	pdt_entry(&s1, ENT_RO, 1, VA_RO, s1.data + DATA_SIZE / 2, KEY_RO,
		  DATA_SIZE / 2, ACC_READ);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s1.port,
		  RTE_PMD_ERNIC_RCNT_PDT_PUBLISH) > pub);
	CU_ASSERT(reg_r(s1.port, "BUFRKEY", ENT_RO) == KEY_RO);
	CU_ASSERT(reg_r(s1.port, "VIRTADDRMSB", ENT_RO) ==
		  (uint32_t)(VA_RO >> 32));
	CU_ASSERT(reg_r(s1.port, "ACCESSDESC", ENT_RW) == ACC_RDWR);
	/* ernic0 gets one too, for the handshake test */
	pdt_entry(&s0, 7, 1, VA_RW, s0.data, 0x11, DATA_SIZE, ACC_RDWR);
}

static void
test_qp1(void)
{
	static uint8_t qp1_rq[RQ_DEPTH * 512], qp1_sq[SQ_DEPTH * 64];
	static uint32_t qp1_cq[SQ_DEPTH], qp1_db[2];
	struct side *s[2] = { &s0, &s1 };
	unsigned int i;

	CU_ASSERT_FATAL(started);
	for (i = 0; i < 2; i++) {
		uint16_t p = s[i]->port;

		reg_w64(p, "RQBA", "RQBAMSB", 1, qp1_rq);
		reg_w64(p, "SQBA", "SQBAMSB", 1, qp1_sq);
		reg_w64(p, "CQBA", "CQBAMSB", 1, qp1_cq);
		reg_w64(p, "CQDBADD", "CQDBADDMSB", 1, &qp1_db[0]);
		reg_w64(p, "RQWPTRDBADD", "RQWPTRDBADDMSB", 1, &qp1_db[1]);
		reg_w(p, "QDEPTH", 1, RQ_DEPTH << 16 | SQ_DEPTH);
		/* 512-byte MAD entries */
		reg_w(p, "QPCONF", 1, QPC_EN | QPC_HS_DIS | 2u << 16);
		CU_ASSERT(reg_r(p, "QPCONF", 1) == (QPC_EN | QPC_HS_DIS |
						    2u << 16));
	}
}

static void
test_rc_qp_create(void)
{
	uint32_t st;

	CU_ASSERT_FATAL(started);
	tqp_alloc(&q2, &s0, 2, 3, 100, 200);
	tqp_alloc(&q3, &s1, 3, 2, 200, 100);
	qp_create(&q2, &s1, false);
	qp_create(&q3, &s0, false);
	CU_ASSERT(reg_r(s0.port, "QPCONF", 2) == qpconf_of(false));
	st = reg_r(s0.port, "STATQP", 2);
	CU_ASSERT((st & (STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY)) ==
		  (STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY));
	CU_ASSERT((st & STATQP_FATAL) == 0);
	CU_ASSERT(reg_r(s0.port, "CQHEAD", 2) == 0);
	CU_ASSERT(reg_r(s1.port, "STATRQPIDB", 3) == 0);
	/* hardware-owned: refused without SW override */
	CU_ASSERT(reg_wr(s0.port, "CQHEAD", 2, 5) == -EPERM);
	CU_ASSERT(reg_r(s0.port, "CQHEAD", 2) == 0);
}

/*
 * A switch on ringA -> ringB: every ECN-capable IPv4 frame waiting in
 * r_ab gets CE (header checksum updated). Returns the frames marked.
 */
static unsigned int
mark_ce(void)
{
	struct rte_mbuf *m[64];
	unsigned int n, i, marked = 0;

	n = rte_ring_dequeue_burst(r_ab, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++) {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m[i],
			struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));

		if (m[i]->data_len >= sizeof(struct rte_ether_hdr) +
		    sizeof(*ip) && (ip->version_ihl >> 4) == 4 &&
		    (ip->type_of_service & 3) != 0) {
			ip->type_of_service |= 3;
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
			marked++;
		}
	}
	CU_ASSERT(rte_ring_enqueue_burst(r_ab, (void **)m, n, NULL) == n);
	return marked;
}

/*
 * A CE-marked WRITE (doc/guides/congestion.rst): the responder's port
 * flags a CNP to schedule for the QP (CNPSCHDSTS1 bit 3, INTSTS[8]) and
 * sends it (OUTCNPPKTCNT), the requester's port counts it (INCNPPKTCNT).
 */
static void
test_ecn_cnp(void)
{
	uint32_t in0, out1, v, marked = 0;
	uint8_t *src = s0.data;
	int i;

	CU_ASSERT_FATAL(started);
	reg_w(s1.port, "INTSTS", 0, INT_CNP);
	CU_ASSERT(rte_pmd_ernic_reg_write(s1.port, CNPSCHDSTS1, ~0u) == 0);
	CU_ASSERT(rte_pmd_ernic_reg_read(s1.port, CNPSCHDSTS1, &v) == 0 &&
		  v == 0);
	in0 = reg_r(s0.port, "INCNPPKTCNT", 0);
	out1 = reg_r(s1.port, "OUTCNPPKTCNT", 0);
	fill(src, 3000, 9);
	post(&q2, 0x1201, RTE_PMD_ERNIC_OP_WRITE, src, 3000, VA_RW + 128,
	     ENT_RW << 8 | KEY_RW, 0);
	/* the requester's frames reach r_ab; mark them before ringB reads */
	for (i = 0; i < 1000 && marked < 3; i++) {
		rte_pmd_ernic_poll(s0.port);
		marked += mark_ce();
	}
	CU_ASSERT(marked >= 3);
	CU_ASSERT(complete(&q2) == (0x1201u | RTE_PMD_ERNIC_OP_WRITE << 16));
	CU_ASSERT(memcmp(s1.data + 128, src, 3000) == 0);
	CU_ASSERT(wait_reg(s1.port, "INTSTS", 0, INT_CNP, INT_CNP));
	CU_ASSERT(rte_pmd_ernic_reg_read(s1.port, CNPSCHDSTS1, &v) == 0 &&
		  v == 1u << 3);
	for (i = 0; i < 100000 && reg_r(s0.port, "INCNPPKTCNT", 0) == in0; i++)
		poll_both();
	CU_ASSERT(reg_r(s0.port, "INCNPPKTCNT", 0) > in0);
	CU_ASSERT(reg_r(s1.port, "OUTCNPPKTCNT", 0) > out1);
	/* write 1 to clear */
	CU_ASSERT(rte_pmd_ernic_reg_write(s1.port, CNPSCHDSTS1, 1u << 3) == 0);
	CU_ASSERT(rte_pmd_ernic_reg_read(s1.port, CNPSCHDSTS1, &v) == 0 &&
		  v == 0);
	reg_w(s1.port, "INTSTS", 0, INT_CNP);
	CU_ASSERT((reg_r(s1.port, "INTSTS", 0) & INT_CNP) == 0);
	/* by name: the bank is the index */
	CU_ASSERT(rte_pmd_ernic_reg_by_name("CNPSCHDSTS", 1, &v) == 0 &&
		  v == CNPSCHDSTS1);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("cnpschdsts", 64, &v) == 0 &&
		  v == CNPSCHDSTS1 + 63 * 4);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("CNPSCHDSTS", 0, &v) == -EINVAL);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("CNPSCHDSTS", 65, &v) == -EINVAL);
	{
		uint32_t idx = 0;
		const char *nm = rte_pmd_ernic_reg_name(CNPSCHDSTS1 + 4, &idx);

		CU_ASSERT(nm != NULL && strcmp(nm, "CNPSCHDSTS") == 0 &&
			  idx == 2);
	}
	/* the last bank answers, the one after it does not */
	CU_ASSERT(rte_pmd_ernic_reg_read(s1.port, CNPSCHDSTS1 + 63 * 4,
					 &v) == 0);
	CU_ASSERT(rte_pmd_ernic_reg_read(s1.port, CNPSCHDSTS1 + 64 * 4,
					 &v) == -EINVAL);
}

static void
test_write(void)
{
	uint8_t *src = s0.data;
	uint32_t cqe;

	CU_ASSERT_FATAL(started);
	fill(src, 3000, 1);
	/* 3 packets at PMTU 1024, to VA_RW + 128 through R_Key 5 << 8 | 0x3c */
	post(&q2, 0x1001, RTE_PMD_ERNIC_OP_WRITE, src, 3000, VA_RW + 128,
	     ENT_RW << 8 | KEY_RW, 0);
	cqe = complete(&q2);
	CU_ASSERT(cqe == (0x1001u | RTE_PMD_ERNIC_OP_WRITE << 16));
	CU_ASSERT(memcmp(s1.data + 128, src, 3000) == 0);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_WQE);
	CU_ASSERT(reg_r(s0.port, "STATQP", 2) & STATQP_OSQ_EMPTY);
	/* counters moved */
	CU_ASSERT(reg_r(s0.port, "OUTIOPKTCNT", 0) >= 3);
	CU_ASSERT(reg_r(s1.port, "INSRRPKTCNT", 0) >= 3);
	/* no receive buffer consumed by a plain WRITE */
	CU_ASSERT(*q3.rqdb == 0);
}

static void
test_write_imm(void)
{
	struct rte_pmd_ernic_rq_desc d;
	uint8_t *src = s0.data + 4096;

	CU_ASSERT_FATAL(started);
	fill(src, 100, 2);
	post(&q2, 0x1002, RTE_PMD_ERNIC_OP_WRITE_IMM, src, 100, VA_RW + 8192,
	     ENT_RW << 8 | KEY_RW, 0xcafe0001);
	CU_ASSERT(complete(&q2) ==
		  (0x1002u | RTE_PMD_ERNIC_OP_WRITE_IMM << 16));
	CU_ASSERT(memcmp(s1.data + 8192, src, 100) == 0);
	/* the immediate consumed RQ entry 0 */
	rq_next(&q3, &d);
	CU_ASSERT(d.opcode == RTE_PMD_ERNIC_OP_WRITE_IMM);
	CU_ASSERT(d.imm == 0xcafe0001);
	CU_ASSERT(d.byte_len == 100);
	CU_ASSERT(reg_r(s1.port, "STATRQPIDB", 3) == 1);
	CU_ASSERT(reg_r(s1.port, "INTSTS", 0) & INT_RQ);
	rq_return(&q3);
}

static void
test_send(void)
{
	struct rte_pmd_ernic_rq_desc d;
	uint8_t *src = s0.data + 8192;
	const uint8_t *buf;

	CU_ASSERT_FATAL(started);
	fill(src, 900, 3);
	post(&q2, 0x1003, RTE_PMD_ERNIC_OP_SEND, src, 900, 0, 0, 0);
	CU_ASSERT(complete(&q2) == (0x1003u | RTE_PMD_ERNIC_OP_SEND << 16));
	buf = rq_next(&q3, &d);
	CU_ASSERT(buf == q3.rq + 1 * RQ_BUF);
	CU_ASSERT(d.opcode == RTE_PMD_ERNIC_OP_SEND);
	CU_ASSERT(d.byte_len == 900);
	CU_ASSERT(memcmp(buf, src, 900) == 0);
	rq_return(&q3);

	/* SEND with immediate */
	fill(src, 64, 4);
	post(&q2, 0x1004, RTE_PMD_ERNIC_OP_SEND_IMM, src, 64, 0, 0, 0x12345678);
	CU_ASSERT(complete(&q2) ==
		  (0x1004u | RTE_PMD_ERNIC_OP_SEND_IMM << 16));
	buf = rq_next(&q3, &d);
	CU_ASSERT(d.opcode == RTE_PMD_ERNIC_OP_SEND_IMM);
	CU_ASSERT(d.imm == 0x12345678);
	CU_ASSERT(d.byte_len == 64);
	CU_ASSERT(memcmp(buf, src, 64) == 0);
	rq_return(&q3);
}

static void
test_read(void)
{
	uint8_t *dst = s0.data + 16384;

	CU_ASSERT_FATAL(started);
	fill(s1.data + DATA_SIZE / 2 + 512, 2500, 5);
	memset(dst, 0, 2500);
	/* from the read-only entry 0: R_Key 0x00000000 */
	post(&q2, 0x1005, RTE_PMD_ERNIC_OP_READ, dst, 2500, VA_RO + 512,
	     ENT_RO << 8 | KEY_RO, 0);
	CU_ASSERT(complete(&q2) == (0x1005u | RTE_PMD_ERNIC_OP_READ << 16));
	CU_ASSERT(memcmp(dst, s1.data + DATA_SIZE / 2 + 512, 2500) == 0);
	CU_ASSERT(reg_r(s1.port, "OUTRDRSPPKTCNT", 0) >= 3);
}

static void
test_send_inv(void)
{
	struct rte_pmd_ernic_rq_desc d;
	uint8_t *src = s0.data + 24576;
	const uint8_t *buf;

	CU_ASSERT_FATAL(started);
	fill(src, 32, 6);
	/* invalidates ernic1's PD table entry 5 (its R_Key stops working) */
	post(&q2, 0x1006, RTE_PMD_ERNIC_OP_SEND_INV, src, 32, 0, 0,
	     ENT_RW << 8 | KEY_RW);
	CU_ASSERT(complete(&q2) ==
		  (0x1006u | RTE_PMD_ERNIC_OP_SEND_INV << 16));
	buf = rq_next(&q3, &d);
	CU_ASSERT(d.opcode == RTE_PMD_ERNIC_OP_SEND_INV);
	CU_ASSERT(d.imm == (ENT_RW << 8 | KEY_RW));
	CU_ASSERT(memcmp(buf, src, 32) == 0);
	rq_return(&q3);
	CU_ASSERT((reg_r(s0.port, "STATQP", 2) & STATQP_FATAL) == 0);
}

/* PG332 fatal error recovery of QP @p t (steps "clear" and "re-init"). */
static void
recover(struct tqp *t, const struct side *peer, uint32_t sqpsn,
	uint32_t epsn)
{
	uint16_t p = t->s->port;
	uint32_t conf = qpconf_of(false);
	static const char *const zero[] = {
		"STATRQPIDB", "STATRQBUFCA", "STATRQBUFCAMSB", "RQCI",
		"STATCURSQPTR", "SQPI", "SQPSN", "LSTRQREQ", "STATMSN",
		"CQHEAD",
	};
	unsigned int i;

	/* clear traffic: stop doorbells, QP under recovery */
	reg_w(p, "QPCONF", t->qpn, conf | QPC_RECOVERY);
	CU_ASSERT(wait_reg(p, "STATQP", t->qpn,
			   STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY,
			   STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY));
	CU_ASSERT(wait_reg(p, "CQHEAD", t->qpn, 0xffff, t->sqpi));
	CU_ASSERT(wait_reg(p, "RESPHNDSTS", 0, RESPHND_DB_CHECK,
			   RESPHND_DB_CHECK));
	/* clear QP enable, keep under recovery */
	reg_w(p, "QPCONF", t->qpn, (conf & ~QPC_EN) | QPC_RECOVERY);

	/* re-initialise */
	CU_ASSERT(reg_r(p, "CQHEAD", t->qpn) == t->sqpi);
	CU_ASSERT(reg_r(p, "RESPHNDSTS", 0) & RESPHND_DB_CHECK);
	reg_w(p, "XRNICADCONF", 0, ADCONF_OVERRIDE);
	for (i = 0; i < RTE_DIM(zero); i++)
		reg_w(p, zero[i], t->qpn, 0);
	CU_ASSERT(reg_r(p, "CQHEAD", t->qpn) == 0);
	t->sqpi = 0;
	t->rqci = 0;
	*t->cqdb = 0;
	*t->rqdb = 0;
	t->sqpsn = sqpsn;
	t->epsn = epsn;
	qp_path(t, peer);
	/* RNR NAK and retry counts in STATQP */
	reg_w(p, "STATQP", t->qpn, 0);
	reg_w(p, "QPCONF", t->qpn, conf | QPC_RECOVERY);
	reg_w(p, "QPCONF", t->qpn, conf);
	reg_w(p, "XRNICADCONF", 0, 0);
	CU_ASSERT((reg_r(p, "STATQP", t->qpn) & STATQP_FATAL) == 0);
}

static void
test_fatal_recovery(void)
{
	uint32_t wp0, wp1, e0, e1, cqe, st;
	uint8_t *src = s0.data + 32768;
	struct rte_pmd_ernic_rq_desc d;
	const uint8_t *buf;

	CU_ASSERT_FATAL(started);
	wp0 = reg_r(s0.port, "IPKTERRQWPTR", 0);
	wp1 = reg_r(s1.port, "IPKTERRQWPTR", 0);
	/* a WRITE through the invalidated R_Key: remote access error */
	fill(src, 256, 7);
	post(&q2, 0x1007, RTE_PMD_ERNIC_OP_WRITE, src, 256, VA_RW,
	     ENT_RW << 8 | KEY_RW, 0);
	cqe = complete(&q2);
	CU_ASSERT(cqe == (0x1007u | RTE_PMD_ERNIC_OP_WRITE << 16 |
			  (uint32_t)WC_REM_ACCESS_ERR << 24));
	/* both QPs fatal, both error queues have their entry */
	CU_ASSERT(wait_reg(s0.port, "STATQP", 2, STATQP_FATAL, STATQP_FATAL));
	CU_ASSERT(wait_reg(s1.port, "STATQP", 3, STATQP_FATAL, STATQP_FATAL));
	st = reg_r(s0.port, "STATQP", 2);
	CU_ASSERT(((st >> 16) & 0x7f) == 0x62);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_FATAL);
	CU_ASSERT(reg_r(s0.port, "IPKTERRQWPTR", 0) == wp0 + 1);
	CU_ASSERT(reg_r(s1.port, "IPKTERRQWPTR", 0) == wp1 + 1);
	memcpy(&e0, s0.ipkterr + wp0 * 8, 4);
	memcpy(&e1, s1.ipkterr + wp1 * 8, 4);
	CU_ASSERT(e0 >> 16 == 2 && (e0 & 0xffff) == ERR_REM_ACCESS);
	CU_ASSERT(e1 >> 16 == 3 && (e1 & 0xffff) == ERR_LOC_ACCESS);
	/* send side in the response error buffer, receive side in ERRBUF */
	CU_ASSERT(reg_r(s0.port, "RESP_ERR_BUF_WRPTR", 0) == 1);
	CU_ASSERT(reg_r(s1.port, "ERRBUFWPTR", 0) == 1);
	CU_ASSERT(memcmp(s0.resperr, &(uint32_t){ 2 }, 4) == 0);
	/* and the data did not land */
	CU_ASSERT(memcmp(s1.data, src, 256) != 0);

	/* the invalidated entry: rewrite ACCESSDESC ('b10) to re-validate */
	reg_w(s1.port, "ACCESSDESC", ENT_RW, ACC_RDWR);
	recover(&q2, &s1, 1000, 2000);
	recover(&q3, &s0, 2000, 1000);
	/* W1C: the fatal interrupt is cleared by writing its bit */
	reg_w(s0.port, "INTSTS", 0, INT_FATAL);
	CU_ASSERT((reg_r(s0.port, "INTSTS", 0) & INT_FATAL) == 0);

	/* back in service: WRITE, then SEND */
	post(&q2, 0x1008, RTE_PMD_ERNIC_OP_WRITE, src, 256, VA_RW,
	     ENT_RW << 8 | KEY_RW, 0);
	CU_ASSERT(complete(&q2) == (0x1008u | RTE_PMD_ERNIC_OP_WRITE << 16));
	CU_ASSERT(memcmp(s1.data, src, 256) == 0);
	post(&q2, 0x1009, RTE_PMD_ERNIC_OP_SEND, src, 200, 0, 0, 0);
	CU_ASSERT(complete(&q2) == (0x1009u | RTE_PMD_ERNIC_OP_SEND << 16));
	buf = rq_next(&q3, &d);
	CU_ASSERT(buf == q3.rq);
	CU_ASSERT(d.byte_len == 200 && memcmp(buf, src, 200) == 0);
	rq_return(&q3);
	CU_ASSERT(reg_r(s1.port, "STATMSN", 3) == 2);
	CU_ASSERT((reg_r(s0.port, "STATQP", 2) & STATQP_FATAL) == 0);
}

/* Step 8: PG332 QP deletion. */
static void
qp_delete(struct tqp *t)
{
	static const char *const zero[] = {
		"RQWPTRDBADD", "RQWPTRDBADDMSB", "SQPI", "CQHEAD", "RQCI",
		"STATRQPIDB", "STATCURSQPTR", "SQPSN", "LSTRQREQ", "STATMSN",
	};
	uint16_t p = t->s->port;
	unsigned int i;

	CU_ASSERT(wait_reg(p, "STATQP", t->qpn,
			   STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY,
			   STATQP_SQ_EMPTY | STATQP_OSQ_EMPTY));
	CU_ASSERT(wait_reg(p, "CQHEAD", t->qpn, 0xffff, t->sqpi));
	reg_w(p, "XRNICADCONF", 0, ADCONF_OVERRIDE);
	reg_w(p, "QPCONF", t->qpn, QPC_HS_DIS | QPC_RECOVERY);
	for (i = 0; i < RTE_DIM(zero); i++)
		reg_w(p, zero[i], t->qpn, 0);
	reg_w(p, "XRNICADCONF", 0, 0);
	t->sqpi = 0;
}

static void
test_illegal_opcode_and_delete(void)
{
	uint8_t *src = s0.data + 40960;
	uint64_t db0;
	uint32_t cqe;

	CU_ASSERT_FATAL(started);
	tqp_alloc(&q4, &s0, 4, 5, 7, 9);
	tqp_alloc(&q5, &s1, 5, 4, 9, 7);
	qp_create(&q4, &s1, false);
	qp_create(&q5, &s0, false);
	fill(src, 64, 8);
	post(&q4, 0x2001, RTE_PMD_ERNIC_OP_SEND, src, 64, 0, 0, 0);
	CU_ASSERT(complete(&q4) == (0x2001u | RTE_PMD_ERNIC_OP_SEND << 16));

	/* an atomic-like opcode ERNIC does not have: INTSTS[5], fatal */
	reg_w(s0.port, "INTSTS", 0, 0xffffffff);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) == 0);
	post(&q4, 0x2002, 0x06, src, 8, VA_RW, ENT_RW << 8 | KEY_RW, 0);
	post(&q4, 0x2003, RTE_PMD_ERNIC_OP_SEND, src, 8, 0, 0, 0);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_ILLEGAL);
	CU_ASSERT(reg_r(s0.port, "STATQP", 4) & STATQP_FATAL);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_ILLEGAL_WQE) == 1);
	/* both complete in error, in order */
	CU_ASSERT(wait_reg(s0.port, "CQHEAD", 4, 0xffff, 3));
	cqe = q4.cq[1];
	CU_ASSERT(cqe == (0x2002u | 0x06u << 16 |
			  (uint32_t)WC_LOC_QP_OP_ERR << 24));
	cqe = q4.cq[2];
	CU_ASSERT(cqe == (0x2003u | RTE_PMD_ERNIC_OP_SEND << 16 |
			  (uint32_t)WC_FLUSH_ERR << 24));
	/* W1C clears only the bits written */
	reg_w(s0.port, "INTSTS", 0, INT_ILLEGAL);
	CU_ASSERT((reg_r(s0.port, "INTSTS", 0) & INT_ILLEGAL) == 0);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_FATAL);

	/* delete both QPs */
	qp_delete(&q4);
	qp_delete(&q5);
	CU_ASSERT(reg_r(s0.port, "QPCONF", 4) == (QPC_HS_DIS | QPC_RECOVERY));
	CU_ASSERT(reg_r(s0.port, "SQPI", 4) == 0);
	/* a doorbell on the deleted QP does nothing but count */
	db0 = rte_pmd_ernic_reg_counter(s0.port, RTE_PMD_ERNIC_RCNT_DB_FATAL);
	reg_w(s0.port, "SQPI", 4, 1);
	poll_both();
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_DB_FATAL) == db0 + 1);
	CU_ASSERT(reg_r(s0.port, "CQHEAD", 4) == 0);
	reg_w(s0.port, "XRNICADCONF", 0, ADCONF_OVERRIDE);
	reg_w(s0.port, "SQPI", 4, 0);
	reg_w(s0.port, "XRNICADCONF", 0, 0);

	/* the QP number can be used again */
	tqp_alloc(&q4, &s0, 4, 5, 50, 60);
	tqp_alloc(&q5, &s1, 5, 4, 60, 50);
	qp_create(&q4, &s1, false);
	qp_create(&q5, &s0, false);
	post(&q4, 0x2004, RTE_PMD_ERNIC_OP_WRITE, src, 64, VA_RW + 65536,
	     ENT_RW << 8 | KEY_RW, 0);
	CU_ASSERT(complete(&q4) == (0x2004u | RTE_PMD_ERNIC_OP_WRITE << 16));
	CU_ASSERT(memcmp(s1.data + 65536, src, 64) == 0);
	qp_delete(&q4);
	qp_delete(&q5);
}

/* PG332 hardware handshake enable sequence on an RC QP. */
static void
hs_enable(struct tqp *t)
{
	uint16_t p = t->s->port;
	uint32_t pending = (*t->rqdb + RQ_DEPTH - t->rqci) % RQ_DEPTH;

	reg_w(p, "XRNICADCONF", 0, ADCONF_OVERRIDE);
	reg_w(p, "SQPI", t->qpn, 0);
	reg_w(p, "CQHEAD", t->qpn, 0);
	reg_w(p, "STATCURSQPTR", t->qpn, 0);
	reg_w(p, "STATRQPIDB", t->qpn, pending & 0xffff);
	reg_w(p, "QPCONF", t->qpn, qpconf_of(true));
	reg_w(p, "XRNICADCONF", 0, 0);
	t->sqpi = 0;
}

static void
hs_wqe(struct rte_pmd_ernic_wqe *w, uint16_t wrid, uint8_t op,
       const void *laddr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	memset(w, 0, sizeof(*w));
	w->wrid = wrid;
	w->opcode = op;
	w->laddr = (uint64_t)(uintptr_t)laddr;
	w->length = len;
	w->raddr = raddr;
	w->rkey = rkey;
}

static void
test_handshake(void)
{
	struct rte_pmd_ernic_hs_port *h6 = NULL, *h7 = NULL;
	struct rte_pmd_ernic_hs_cqe c[8];
	struct rte_pmd_ernic_rq_desc d;
	struct rte_pmd_ernic_wqe w;
	uint64_t rd0, wr0, end;
	uint8_t *src = s0.data + 49152;
	uint32_t idx, got = 0, ncomp, n, i;

	CU_ASSERT_FATAL(started);
	tqp_alloc(&q6, &s0, 6, 7, 300, 400);
	tqp_alloc(&q7, &s1, 7, 6, 400, 300);
	qp_create(&q6, &s1, false);
	qp_create(&q7, &s0, false);
	/* not in handshake mode yet */
	CU_ASSERT(rte_pmd_ernic_hs_attach(s0.port, 6, &h6) == -ENOTCONN);
	/* one SEND through the registers leaves one RQ buffer pending */
	fill(src, 40, 9);
	post(&q6, 0x3000, RTE_PMD_ERNIC_OP_SEND, src, 40, 0, 0, 0);
	complete(&q6);
	CU_ASSERT(wait_mem(q7.rqdb, 1));
	hs_enable(&q6);
	hs_enable(&q7);
	CU_ASSERT_FATAL(rte_pmd_ernic_hs_attach(s0.port, 6, &h6) == 0);
	CU_ASSERT_FATAL(rte_pmd_ernic_hs_attach(s1.port, 7, &h7) == 0);
	/* SQPI doorbells belong to the handshake port now */
	CU_ASSERT(reg_wr(s0.port, "SQPI", 6, 1) == -EPERM);

	/* fast path: no register access from here to the checks */
	rd0 = rte_pmd_ernic_reg_counter(s0.port, RTE_PMD_ERNIC_RCNT_READS) +
		rte_pmd_ernic_reg_counter(s1.port, RTE_PMD_ERNIC_RCNT_READS);
	wr0 = rte_pmd_ernic_reg_counter(s0.port, RTE_PMD_ERNIC_RCNT_WRITES) +
		rte_pmd_ernic_reg_counter(s1.port, RTE_PMD_ERNIC_RCNT_WRITES);
	fill(src + 1024, 5000, 10);
	hs_wqe(&w, 0x3001, RTE_PMD_ERNIC_OP_WRITE, src + 1024, 5000,
	       VA_RW + 100000, ENT_RW << 8 | KEY_RW);
	CU_ASSERT(rte_pmd_ernic_hs_post(h6, &w) == 0);
	hs_wqe(&w, 0x3002, RTE_PMD_ERNIC_OP_SEND, src + 1024, 700, 0, 0);
	CU_ASSERT(rte_pmd_ernic_hs_post(h6, &w) == 0);
	hs_wqe(&w, 0x3003, RTE_PMD_ERNIC_OP_READ, src + 8192, 300,
	       VA_RO + 512, ENT_RO << 8 | KEY_RO);
	CU_ASSERT(rte_pmd_ernic_hs_post(h6, &w) == 0);
	end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();
	while (got < 3 && rte_get_tsc_cycles() < end) {
		poll_both();
		n = rte_pmd_ernic_hs_poll_cq(h6, c + got, 8 - got);
		got += n;
	}
	CU_ASSERT_FATAL(got == 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT(c[i].wrid == 0x3001 + i);
		CU_ASSERT(c[i].status == 0);
	}
	CU_ASSERT(c[0].opcode == RTE_PMD_ERNIC_OP_WRITE);
	CU_ASSERT(c[2].opcode == RTE_PMD_ERNIC_OP_READ);
	CU_ASSERT(memcmp(s1.data + 100000, src + 1024, 5000) == 0);
	CU_ASSERT(memcmp(src + 8192, s1.data + DATA_SIZE / 2 + 512, 300) == 0);
	/* RQ: the pending register-mode buffer, then the new SEND */
	end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();
	while (rte_pmd_ernic_hs_rq(h7, &idx) < 2 &&
	       rte_get_tsc_cycles() < end)
		poll_both();
	CU_ASSERT_FATAL(rte_pmd_ernic_hs_rq(h7, &idx) == 2);
	CU_ASSERT(idx == 0);
	CU_ASSERT(memcmp(q7.rq, src, 40) == 0);
	memcpy(&d, q7.rq + RQ_BUF + RQ_BUF - RTE_PMD_ERNIC_RQ_DESC_LEN,
	       sizeof(d));
	CU_ASSERT(d.opcode == RTE_PMD_ERNIC_OP_SEND && d.byte_len == 700);
	CU_ASSERT(memcmp(q7.rq + RQ_BUF, src + 1024, 700) == 0);
	rte_pmd_ernic_hs_rq_release(h7, 2);
	CU_ASSERT(rte_pmd_ernic_hs_rq(h7, &idx) == 0 && idx == 2);

	/* more SENDs than RQ buffers: the released ones are reposted */
	for (i = 0; i < RQ_DEPTH + 2; i++) {
		hs_wqe(&w, (uint16_t)(0x3100 + i), RTE_PMD_ERNIC_OP_SEND,
		       src + i, 10, 0, 0);
		while (rte_pmd_ernic_hs_post(h6, &w) == -ENOSPC)
			poll_both();
	}
	got = 0;
	ncomp = 0;
	end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();
	while ((got < RQ_DEPTH + 2 || ncomp < RQ_DEPTH + 2) &&
	       rte_get_tsc_cycles() < end) {
		poll_both();
		n = rte_pmd_ernic_hs_rq(h7, &idx);
		for (i = 0; i < n; i++)
			CU_ASSERT(memcmp(q7.rq + ((idx + i) % RQ_DEPTH) * RQ_BUF,
					 src + got + i, 10) == 0);
		rte_pmd_ernic_hs_rq_release(h7, n);
		got += n;
		while ((n = rte_pmd_ernic_hs_poll_cq(h6, c, 8)) > 0)
			for (i = 0; i < n; i++, ncomp++)
				CU_ASSERT(c[i].wrid == 0x3100 + ncomp &&
					  c[i].status == 0);
	}
	CU_ASSERT(got == RQ_DEPTH + 2);
	CU_ASSERT(ncomp == RQ_DEPTH + 2);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_READS) +
		  rte_pmd_ernic_reg_counter(s1.port,
		  RTE_PMD_ERNIC_RCNT_READS) == rd0);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_WRITES) +
		  rte_pmd_ernic_reg_counter(s1.port,
		  RTE_PMD_ERNIC_RCNT_WRITES) == wr0);
	/* the registers still show the progress */
	CU_ASSERT(reg_r(s0.port, "CQHEAD", 6) == (3 + RQ_DEPTH + 2) % SQ_DEPTH);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_CQE_ORDER) == 0);

	/* illegal opcode through the port: completed in error, in order */
	hs_wqe(&w, 0x3200, 0x05, src, 8, 0, 0);
	CU_ASSERT(rte_pmd_ernic_hs_post(h6, &w) == 0);
	got = 0;
	end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();
	while (got == 0 && rte_get_tsc_cycles() < end) {
		poll_both();
		got = rte_pmd_ernic_hs_poll_cq(h6, c, 8);
	}
	CU_ASSERT_FATAL(got == 1);
	CU_ASSERT(c[0].wrid == 0x3200 && c[0].status == WC_LOC_QP_OP_ERR);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_ILLEGAL);
	CU_ASSERT(reg_r(s0.port, "STATQP", 6) & STATQP_FATAL);
}

static void
test_reg_semantics(void)
{
	static const uint32_t bad[] = {
		0x1, 0x2, 0x103,		/* misaligned */
		0x20, 0xfc,			/* PD entry 0 beyond ACCESSDESC */
		0x80000, 0xffffc,		/* between PD table and globals */
		0x100008, 0x100200,		/* global holes, past the block */
		0x180000 + 0x74,		/* QP block hole */
		0x180000 + 1023 * 0x100,	/* QP 1024: beyond max_qps */
		0x1ffffc, 0x200000, 0xffffffff,
	};
	uint64_t bad0, ro0;
	uint32_t v, off, idx, i;
	const char *name;

	CU_ASSERT_FATAL(started);
	bad0 = rte_pmd_ernic_reg_counter(s0.port,
					 RTE_PMD_ERNIC_RCNT_BAD_READ);
	for (i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT(rte_pmd_ernic_reg_read(s0.port, bad[i], &v) ==
			  -EINVAL);
		CU_ASSERT(rte_pmd_ernic_reg_write(s0.port, bad[i], 0) ==
			  -EINVAL);
	}
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_BAD_READ) == bad0 + RTE_DIM(bad));
	CU_ASSERT(rte_pmd_ernic_reg_read(UINT16_MAX, 0, &v) == -ENODEV);
	CU_ASSERT(rte_pmd_ernic_reg_read(s0.port, 0, NULL) == -EINVAL);

	/* names both ways */
	CU_ASSERT(rte_pmd_ernic_reg_by_name("qpconf", 2, &off) == 0 &&
		  off == 0x180100);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("BUFRKEY", 3, &off) == 0 &&
		  off == 0x314);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("INTSTS", 0, &off) == 0 &&
		  off == 0x100184);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("QPCONF", 0, &off) == -EINVAL);
	CU_ASSERT(rte_pmd_ernic_reg_by_name("NOSUCH", 0, &off) == -ENOENT);
	name = rte_pmd_ernic_reg_name(0x180000 + 5 * 0x100 + 0x38, &idx);
	CU_ASSERT(name != NULL && strcmp(name, "SQPI") == 0 && idx == 6);
	CU_ASSERT(rte_pmd_ernic_reg_name(0x100008, NULL) == NULL);

	/* hardware-owned registers: read-only unless SW override */
	ro0 = rte_pmd_ernic_reg_counter(s0.port, RTE_PMD_ERNIC_RCNT_RO_WRITE);
	CU_ASSERT(reg_wr(s0.port, "ERRBUFWPTR", 0, 3) == -EPERM);
	CU_ASSERT(reg_wr(s0.port, "INSRRPKTCNT", 0, 3) == -EPERM);
	CU_ASSERT(reg_wr(s0.port, "STATQP", 2, 0) == -EPERM);
	CU_ASSERT(reg_wr(s0.port, "STATRQPIDB", 2, 0) == -EPERM);
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_RO_WRITE) == ro0 + 4);
	reg_w(s0.port, "XRNICADCONF", 0, ADCONF_OVERRIDE);
	reg_w(s0.port, "INSRRPKTCNT", 0, 7);
	CU_ASSERT(reg_r(s0.port, "INSRRPKTCNT", 0) == 7);
	reg_w(s0.port, "ERRBUFWPTR", 0, 3);
	CU_ASSERT(reg_r(s0.port, "ERRBUFWPTR", 0) == 3);
	reg_w(s0.port, "ERRBUFWPTR", 0, 0);
	reg_w(s0.port, "XRNICADCONF", 0, 0);

	/* INTSTS: write 1 to clear */
	reg_w(s0.port, "INTSTS", 0, 0xffffffff);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) == 0);
}

static void
test_fuzz(void)
{
	uint64_t seed = 0x5eed5eedull, bad0;
	uint32_t off, val, v, i, nbad = 0;
	int ret;

	CU_ASSERT_FATAL(started);
	rte_srand(seed);
	/* any offset, any value on a port that is not started */
	for (i = 0; i < 200000; i++) {
		off = (uint32_t)rte_rand();
		if (i & 1)
			off &= 0x1fffff;	/* mostly inside the window */
		if (i & 2)
			off &= ~3u;
		val = (uint32_t)rte_rand();
		ret = rte_pmd_ernic_reg_write(fuzz_port, off, val);
		CU_ASSERT(ret == 0 || ret == -EINVAL || ret == -EPERM ||
			  ret == -EAGAIN);
		ret = rte_pmd_ernic_reg_read(fuzz_port, off, &v);
		CU_ASSERT(ret == 0 || ret == -EINVAL);
		if (ret == -EINVAL)
			nbad++;
	}
	CU_ASSERT(nbad > 0);
	CU_ASSERT(rte_pmd_ernic_reg_counter(fuzz_port,
		  RTE_PMD_ERNIC_RCNT_BAD_READ) == nbad);
	/* reads of any offset of the running ports */
	bad0 = rte_pmd_ernic_reg_counter(s0.port, RTE_PMD_ERNIC_RCNT_BAD_READ);
	nbad = 0;
	for (i = 0; i < 100000; i++) {
		off = (uint32_t)rte_rand() & 0x1ffffc;
		ret = rte_pmd_ernic_reg_read(s0.port, off, &v);
		CU_ASSERT(ret == 0 || ret == -EINVAL);
		nbad += ret != 0;
		if (rte_pmd_ernic_reg_name(off, NULL) == NULL)
			CU_ASSERT(ret == -EINVAL);
	}
	CU_ASSERT(rte_pmd_ernic_reg_counter(s0.port,
		  RTE_PMD_ERNIC_RCNT_BAD_READ) == bad0 + nbad);
	/* and writes of unmapped offsets */
	for (i = 0; i < 100000; i++) {
		off = (uint32_t)rte_rand();
		if (rte_pmd_ernic_reg_name(off, NULL) != NULL)
			continue;
		CU_ASSERT(rte_pmd_ernic_reg_write(s0.port, off,
			  (uint32_t)rte_rand()) == -EINVAL);
	}
	/* traffic still flows afterwards */
	post(&q2, 0x4000, RTE_PMD_ERNIC_OP_WRITE, s0.data, 128, VA_RW + 120000,
	     ENT_RW << 8 | KEY_RW, 0);
	CU_ASSERT(complete(&q2) == (0x4000u | RTE_PMD_ERNIC_OP_WRITE << 16));
	CU_ASSERT(memcmp(s1.data + 120000, s0.data, 128) == 0);
}

static void
test_close(void)
{
	CU_ASSERT_FATAL(started);
	/* closing a port with register QPs tears them down */
	CU_ASSERT(rte_eth_dev_stop(s0.port) == 0);
	CU_ASSERT(rte_eth_dev_stop(s1.port) == 0);
	started = false;
	CU_ASSERT(rte_eth_dev_close(s0.port) == 0);
	CU_ASSERT(rte_eth_dev_close(s1.port) == 0);
	CU_ASSERT(rte_pmd_ernic_reg_read(s0.port, 0x100000, &(uint32_t){ 0 })
		  == -ENODEV);
}

static CU_TestInfo tests[] = {
	{ "step 1: global configuration", test_global_config },
	{ "step 2: PD table", test_pd_table },
	{ "step 3: QP1", test_qp1 },
	{ "steps 4-5: RC QPs by registers", test_rc_qp_create },
	{ "steps 6-7: WRITE, CQHEAD and CQE", test_write },
	{ "WRITE with immediate: RQ pointer", test_write_imm },
	{ "SEND and SEND with immediate into RQ buffers", test_send },
	{ "READ from PD table entry 0", test_read },
	{ "ECN: CE -> CNP, CNPSCHDSTS, INTSTS[8]", test_ecn_cnp },
	{ "SEND with invalidate", test_send_inv },
	{ "step 9: fatal error recovery", test_fatal_recovery },
	{ "illegal opcode, step 8: QP deletion", test_illegal_opcode_and_delete },
	{ "hardware handshake mode", test_handshake },
	{ "register semantics", test_reg_semantics },
	{ "fuzzing offsets and values", test_fuzz },
	{ "close with register QPs", test_close },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "ernic_regs", suite_init, suite_fini, NULL, NULL, tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
