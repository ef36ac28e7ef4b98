/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP1 through the PG332 register window (qp1=regs), by register reads and
 * writes only, between two net_ernic ports on a crossed net_ring pair:
 * QP1 programmed as in PG332 step 3 (RQBA, SQBA, QDEPTH, CQBA, RQ buffer
 * size in QPCONF, CQDBADD, RQWPTRDBADD), a 256-byte MAD posted as a SEND
 * WQE on ernic0's QP1 SQ goes out as a UD SEND to QP1 with the GSI Q_Key
 * and lands in ernic1's QP1 RQ (40-byte GRH area, then the MAD), reported
 * by the RQ write pointer doorbell and returned with RQCI; the answer
 * comes back the same way. ernic0 has two workers: QP1 frames are handed
 * to QP1's worker. With qp1=cm (the default) the control core keeps QP1:
 * no UD QP is created for the registers and MADs reach the CM.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "roce_qp.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_regs.h"
#include "test_common.h"

enum {
	CONF_EN = 1u << 0,
	QPC_EN = 1u << 0,
	QPC_HS_DIS = 1u << 4,
	QPC_CQE = 1u << 5,
	NUM_QP = 8,
	SQ_DEPTH = 8,
	RQ_DEPTH = 8,
	RQ_BUF = 512,			/* PG332's QP1 entry size */
	MAD_LEN = 256,
	GRH_LEN = 40,
	OP_SEND = 2,
	OP_WRITE = 0,
	INT_ILLEGAL = 1u << 5,
};

struct side {
	uint16_t port;
	uint8_t mac[6];
	uint8_t ip[4];
	uint8_t *sq, *rq, *mad;
	uint32_t *cq;
	volatile uint32_t *cqdb, *rqdb;
	uint32_t sqpi, rqci;
};

static struct side s0 = {
	.mac = { 0x02, 0, 0, 0, 0, 0x01 }, .ip = { 198, 18, 0, 1 } };
static struct side s1 = {
	.mac = { 0x02, 0, 0, 0, 0, 0x02 }, .ip = { 198, 18, 0, 2 } };
static uint16_t cm_port;

static uint32_t
off_of(const char *name, uint32_t idx)
{
	uint32_t off = UINT32_MAX;

	CU_ASSERT_FATAL(rte_pmd_ernic_reg_by_name(name, idx, &off) == 0);
	return off;
}

static void
reg_w(uint16_t port, const char *name, uint32_t idx, uint32_t v)
{
	int ret = rte_pmd_ernic_reg_write(port, off_of(name, idx), v);

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
	const volatile void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;

	reg_w(port, lsb, idx, (uint32_t)a);
	reg_w(port, msb, idx, (uint32_t)(a >> 32));
}

static bool
wait_mem(volatile uint32_t *p, uint32_t want)
{
	uint64_t end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();

	do {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
			return true;
		rte_pmd_ernic_poll(s0.port);
		rte_pmd_ernic_poll(s1.port);
	} while (rte_get_tsc_cycles() < end);
	fprintf(stderr, "doorbell %u, waited for %u\n", *p, want);
	return false;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static uint32_t
ip_u32(const uint8_t *ip)
{
	return (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 |
		(uint32_t)ip[2] << 8 | ip[3];
}

static int
side_mem(struct side *s)
{
	s->sq = rte_zmalloc("q1_sq", SQ_DEPTH * 64, 64);
	s->rq = rte_zmalloc("q1_rq", RQ_DEPTH * RQ_BUF, 64);
	s->cq = rte_zmalloc("q1_cq", SQ_DEPTH * 4, 64);
	s->cqdb = rte_zmalloc("q1_db", 64, 64);
	s->rqdb = rte_zmalloc("q1_db", 64, 64);
	s->mad = rte_zmalloc("q1_mad", MAD_LEN, 64);
	return s->sq && s->rq && s->cq && s->cqdb && s->rqdb && s->mad ? 0 : -1;
}

/* Step 1 (global) and step 3 (QP1) of the PG332 flow, path to @p peer. */
static void
qp1_program(struct side *s, const struct side *peer)
{
	uint16_t p = s->port;

	reg_w(p, "MACXADDLSB", 0, (uint32_t)s->mac[2] << 24 |
	      (uint32_t)s->mac[3] << 16 | (uint32_t)s->mac[4] << 8 | s->mac[5]);
	reg_w(p, "MACXADDMSB", 0, (uint32_t)s->mac[0] << 8 | s->mac[1]);
	reg_w(p, "IPv4XADD", 0, ip_u32(s->ip));
	reg_w(p, "XRNICCONF", 0, 49152u << 16 | NUM_QP << 8 | CONF_EN);
	reg_w64(p, "RQBA", "RQBAMSB", 1, s->rq);
	reg_w64(p, "SQBA", "SQBAMSB", 1, s->sq);
	reg_w64(p, "CQBA", "CQBAMSB", 1, s->cq);
	reg_w64(p, "CQDBADD", "CQDBADDMSB", 1, s->cqdb);
	reg_w64(p, "RQWPTRDBADD", "RQWPTRDBADDMSB", 1, s->rqdb);
	reg_w(p, "QDEPTH", 1, RQ_DEPTH << 16 | SQ_DEPTH);
	/* where QP1's MADs go: the peer's QP1 */
	reg_w(p, "MACDESADDLSB", 1, (uint32_t)peer->mac[2] << 24 |
	      (uint32_t)peer->mac[3] << 16 | (uint32_t)peer->mac[4] << 8 |
	      peer->mac[5]);
	reg_w(p, "MACDESADDMSB", 1, (uint32_t)peer->mac[0] << 8 | peer->mac[1]);
	reg_w(p, "IPDESADDR1", 1, ip_u32(peer->ip));
	reg_w(p, "DESTQPCONF", 1, 1);
	reg_w(p, "QPCONF", 1, QPC_EN | QPC_HS_DIS | QPC_CQE |
	      (RQ_BUF / 256) << 16);
}

/* A SEND WQE of the MAD on QP1's SQ, then SQPI. */
static void
post_mad(struct side *s, uint16_t wrid, uint8_t op)
{
	struct rte_pmd_ernic_wqe *w =
		(struct rte_pmd_ernic_wqe *)(s->sq + s->sqpi * 64);

	memset(w, 0, sizeof(*w));
	w->wrid = wrid;
	w->opcode = op;
	w->laddr = (uint64_t)(uintptr_t)s->mad;
	w->length = MAD_LEN;
	s->sqpi = (s->sqpi + 1) % SQ_DEPTH;
	reg_w(s->port, "SQPI", 1, s->sqpi);
}

/* The MAD that arrived in @p s's QP1 RQ: checked, then returned by RQCI. */
static void
recv_mad(struct side *s, const struct side *from)
{
	const uint8_t *buf = s->rq + s->rqci * RQ_BUF;
	struct rte_pmd_ernic_rq_desc d;

	CU_ASSERT_FATAL(wait_mem(s->rqdb, (s->rqci + 1) % RQ_DEPTH));
	memcpy(&d, buf + RQ_BUF - RTE_PMD_ERNIC_RQ_DESC_LEN, sizeof(d));
	CU_ASSERT(d.opcode == OP_SEND);
	CU_ASSERT(d.byte_len == GRH_LEN + MAD_LEN);
	/* IPv4: the header sits in the last 20 bytes of the GRH area */
	CU_ASSERT(memcmp(buf + 20 + 12, from->ip, 4) == 0);
	CU_ASSERT(memcmp(buf + GRH_LEN, from->mad, MAD_LEN) == 0);
	s->rqci = (s->rqci + 1) % RQ_DEPTH;
	reg_w(s->port, "RQCI", 1, s->rqci);
}

static int
suite_init(void)
{
	static struct rte_ring *r_ab, *r_ba, *r_c;
	int a, b, c;

	r_ab = rte_ring_create("q1_ab", 4096, 0, 0);
	r_ba = rte_ring_create("q1_ba", 4096, 0, 0);
	r_c = rte_ring_create("q1_c", 1024, 0, 0);
	if (r_ab == NULL || r_ba == NULL || r_c == NULL)
		return -1;
	a = rte_eth_from_rings("q1A", &r_ba, 1, &r_ab, 1, 0);
	b = rte_eth_from_rings("q1B", &r_ab, 1, &r_ba, 1, 0);
	c = rte_eth_from_rings("q1C", &r_c, 1, &r_c, 1, 0);
	if (a < 0 || b < 0 || c < 0)
		return -1;
	if (rte_vdev_init("net_ernic0", "port=net_ring_q1A,ip=198.18.0.1,mac=02:00:00:00:00:01,workers=2,qp1=regs") != 0 ||
	    rte_vdev_init("net_ernic1", "port=net_ring_q1B,ip=198.18.0.2,mac=02:00:00:00:00:02,qp1=regs") != 0 ||
	    rte_vdev_init("net_ernic2", "port=net_ring_q1C,ip=198.18.0.3") != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name("net_ernic0", &s0.port) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic1", &s1.port) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ernic2", &cm_port) != 0)
		return -1;
	if (side_mem(&s0) != 0 || side_mem(&s1) != 0)
		return -1;
	if (test_port_start(s0.port) != 0 || test_port_start(s1.port) != 0 ||
	    test_port_start(cm_port) != 0)
		return -1;
	return 0;
}

static int
suite_fini(void)
{
	rte_eth_dev_stop(s0.port);
	rte_eth_dev_stop(s1.port);
	rte_eth_dev_stop(cm_port);
	rte_vdev_uninit("net_ernic0");
	rte_vdev_uninit("net_ernic1");
	rte_vdev_uninit("net_ernic2");
	return 0;
}

static void
test_devarg(void)
{
	CU_ASSERT(rte_vdev_init("net_ernic9", "port=net_ring_q1C,ip=198.18.0.9,qp1=hw") != 0);
}

static void
test_mad_exchange(void)
{
	struct roce_device *d0 = rte_pmd_ernic_get_device(s0.port);
	const struct roce_qp *qp1;
	unsigned int i;
	uint32_t cqe;

	qp1_program(&s0, &s1);
	qp1_program(&s1, &s0);
	/* the register window's QP1 is a UD QP numbered 1 */
	qp1 = roce_qp_lookup(d0, 1);
	CU_ASSERT_FATAL(qp1 != NULL);
	CU_ASSERT(qp1->type == ROCE_QPT_UD);
	CU_ASSERT(qp1->attr.qkey == 0x80010000u);

	for (i = 0; i < 3; i++) {
		/* a CM REQ-like MAD: base version 1, class 7 (CM) */
		memset(s0.mad, 0, MAD_LEN);
		s0.mad[0] = 1;
		s0.mad[1] = 7;
		s0.mad[2] = 2;
		s0.mad[3] = 3;
		s0.mad[16] = (uint8_t)i;
		s0.mad[255] = 0x5a;
		post_mad(&s0, (uint16_t)(100 + i), OP_SEND);
		CU_ASSERT(wait_mem(s0.cqdb, s0.sqpi));
		cqe = __atomic_load_n(&s0.cq[(s0.sqpi + SQ_DEPTH - 1) % SQ_DEPTH],
				      __ATOMIC_ACQUIRE);
		CU_ASSERT((cqe & 0xffff) == 100 + i);
		CU_ASSERT((cqe >> 24) == 0);		/* no error */
		recv_mad(&s1, &s0);
		/* and the answer back */
		memcpy(s1.mad, s0.mad, MAD_LEN);
		s1.mad[3] = 0x81;
		post_mad(&s1, (uint16_t)(200 + i), OP_SEND);
		CU_ASSERT(wait_mem(s1.cqdb, s1.sqpi));
		recv_mad(&s0, &s1);
	}
	CU_ASSERT(reg_r(s1.port, "CQHEAD", 1) == s1.sqpi);
	/* the MADs bypassed the control core of both ports */
	CU_ASSERT(xstat(s0.port, "rx_gsi") == 0);
	CU_ASSERT(xstat(s1.port, "rx_gsi") == 0);
	CU_ASSERT(xstat(s1.port, "mad_rx") == 0);
	CU_ASSERT(xstat(s0.port, "roce_rx_accepted") >= 3);
}

/* QP1 is UD: RDMA opcodes are illegal there and make it fatal. */
static void
test_illegal_opcode(void)
{
	post_mad(&s0, 300, OP_WRITE);
	rte_pmd_ernic_poll(s0.port);
	rte_pmd_ernic_poll(s0.port);
	CU_ASSERT(reg_r(s0.port, "INTSTS", 0) & INT_ILLEGAL);
	CU_ASSERT(reg_r(s0.port, "STATQP", 1) & 1u);	/* fatal */
}

/* qp1=cm (default): the registers are taken, the control core keeps QP1. */
static void
test_qp1_cm_default(void)
{
	struct roce_device *d = rte_pmd_ernic_get_device(cm_port);
	struct side s2 = { .port = cm_port, .mac = { 0x02, 0, 0, 0, 0, 3 },
			   .ip = { 198, 18, 0, 3 } };

	CU_ASSERT_FATAL(side_mem(&s2) == 0);
	qp1_program(&s2, &s0);
	CU_ASSERT(reg_r(cm_port, "QPCONF", 1) & QPC_EN);
	CU_ASSERT(roce_qp_lookup(d, 1) == NULL);
	rte_free(s2.sq);
	rte_free(s2.rq);
	rte_free(s2.cq);
	rte_free((void *)(uintptr_t)s2.cqdb);
	rte_free((void *)(uintptr_t)s2.rqdb);
	rte_free(s2.mad);
}

static CU_TestInfo qp1_tests[] = {
	{ "qp1= devarg", test_devarg },
	{ "MADs through QP1's SQ and RQ (qp1=regs)", test_mad_exchange },
	{ "RDMA opcode on QP1 is illegal", test_illegal_opcode },
	{ "qp1=cm keeps QP1 with the control core", test_qp1_cm_default },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "ernic_qp1", suite_init, suite_fini, NULL, NULL, qp1_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
