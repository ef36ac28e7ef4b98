/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UC and UD end to end over the fake link: UC messages broken by loss are
 * dropped whole while later ones arrive intact (IBTA 9.8.3); UD SENDs land
 * after a 40-byte GRH area holding the IP header, with the source QP in
 * the completion; a wrong Q_Key is counted and dropped (IBTA 10.2.5).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "fake_link.h"
#include "roce_build.h"
#include "roce_opcode.h"
#include "roce_verbs.h"
#include "test_common.h"

#define MAX_ITERS 2000000L
#define REGION (4u << 20)
#define NMSG 64
#define GRH 40
#define QKEY 0x11112222u

struct ep_mem {
	uint8_t *base;
	struct roce_mr *mr;
};

struct env {
	struct fake_link *l;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	struct ep_mem m[2];
	int want[2], got[2];
	struct roce_wc wc[2][4 * NMSG];
};

static const struct fake_link_impair no_impair;

static struct env *
env_create(enum roce_qp_type type, uint64_t seed, bool ipv6)
{
	struct env *e = calloc(1, sizeof(*e));
	struct roce_qp_init_attr ia;
	struct fake_conn_opts o;
	int i;

	CU_ASSERT_FATAL(e != NULL);
	e->l = fake_link_create(seed, ipv6);
	CU_ASSERT_FATAL(e->l != NULL);
	for (i = 0; i < 2; i++) {
		e->cq[i] = roce_create_cq(e->l->ep[i].w, 8 * NMSG);
		CU_ASSERT_FATAL(e->cq[i] != NULL);
		memset(&ia, 0, sizeof(ia));
		ia.qp_type = type;
		ia.send_cq = e->cq[i];
		ia.recv_cq = e->cq[i];
		ia.cap.max_send_wr = 4 * NMSG;
		ia.cap.max_recv_wr = 4 * NMSG;
		ia.cap.max_send_sge = 2;
		ia.cap.max_recv_sge = 2;
		ia.sq_sig_all = true;
		e->qp[i] = roce_create_qp(e->l->ep[i].pd, &ia);
		CU_ASSERT_FATAL(e->qp[i] != NULL);
		e->m[i].base = aligned_alloc(4096, REGION);
		CU_ASSERT_FATAL(e->m[i].base != NULL);
		memset(e->m[i].base, 0xee, REGION);
		e->m[i].mr = roce_reg_mr(e->l->ep[i].pd, e->m[i].base, REGION,
					 ROCE_ACCESS_LOCAL_WRITE |
					 ROCE_ACCESS_REMOTE_WRITE);
		CU_ASSERT_FATAL(e->m[i].mr != NULL);
	}
	if (type == ROCE_QPT_UD) {
		CU_ASSERT_EQUAL_FATAL(fake_link_ud_ready(e->l, 0, e->qp[0], QKEY, 1), 0);
		CU_ASSERT_EQUAL_FATAL(fake_link_ud_ready(e->l, 1, e->qp[1], QKEY, 1), 0);
	} else {
		fake_conn_opts_default(&o);
		CU_ASSERT_EQUAL_FATAL(fake_link_connect(e->l, e->qp[0], e->qp[1],
							&o), 0);
	}
	return e;
}

static void
env_destroy(struct env *e)
{
	int i;

	fake_link_set_impair(e->l, -1, &no_impair);
	fake_link_settle(e->l, 100000);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(roce_destroy_qp(e->qp[i]), 0);
		CU_ASSERT_EQUAL(roce_dereg_mr(e->m[i].mr), 0);
		free(e->m[i].base);
		CU_ASSERT_EQUAL(roce_destroy_cq(e->cq[i]), 0);
	}
	fake_link_destroy(e->l);
	free(e);
}

static bool
wait_pred(void *arg)
{
	struct env *e = arg;
	int i, n;

	for (i = 0; i < 2; i++) {
		n = roce_poll_cq(e->cq[i], &e->wc[i][e->got[i]],
				 (int)RTE_DIM(e->wc[i]) - e->got[i]);
		if (n > 0)
			e->got[i] += n;
	}
	return e->got[0] >= e->want[0] && e->got[1] >= e->want[1];
}

static bool
env_wait(struct env *e, int n0, int n1)
{
	e->want[0] = n0;
	e->want[1] = n1;
	e->got[0] = e->got[1] = 0;
	return fake_link_run_until(e->l, wait_pred, e, MAX_ITERS) >= 0;
}

/* Collect whatever arrives until the link is quiet. */
static void
env_drain(struct env *e)
{
	e->got[0] = e->got[1] = 0;
	fake_link_settle(e->l, MAX_ITERS);
	wait_pred(e);
}

static struct roce_sge
sge(struct env *e, int side, size_t off, uint32_t len)
{
	struct roce_sge s = {
		.addr = (uint64_t)(uintptr_t)(e->m[side].base + off),
		.length = len,
		.lkey = roce_mr_lkey(e->m[side].mr),
	};

	return s;
}

/* Message k: every byte tells its message and position. */
static void
msg_fill(uint8_t *p, uint32_t len, uint32_t k)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(k * 37 + i * 13 + (i >> 8));
	if (len >= 4)
		memcpy(p, &k, sizeof(k));
}

static bool
msg_check(const uint8_t *p, uint32_t len, uint32_t k)
{
	uint8_t *want = malloc(len + 1);
	bool ok;

	msg_fill(want, len, k);
	ok = memcmp(want, p, len) == 0;
	free(want);
	return ok;
}

/* ------------------------------------------------------------------ */
/* UC                                                                 */
/* ------------------------------------------------------------------ */

#define UC_LEN (3 * 1024 + 100)	/* 4 packets at MTU 1024 */
#define UC_SLOT 8192

static void
uc_run(bool write_imm)
{
	static const struct fake_link_impair lossy = {
		.loss_ppm = 80000,
	};
	struct env *e = env_create(ROCE_QPT_UC, write_imm ? 7 : 5, false);
	struct roce_send_wr wr;
	struct roce_sge s, r;
	unsigned int posted, k, i, ok = 0;
	uint32_t id;

	/* receive WQEs: one per message (a broken message's WQE is reused) */
	for (k = 0; k < NMSG + 1; k++) {
		struct roce_recv_wr rw = { .wr_id = 1000 + k, .num_sge = 1 };

		r = sge(e, 1, (size_t)k * UC_SLOT, UC_SLOT);
		rw.sg_list = &r;
		if (write_imm)
			rw.num_sge = 0;
		CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->qp[1], &rw, 1, &posted), 0);
	}
	fake_link_set_impair(e->l, 0, &lossy);
	for (k = 0; k < NMSG; k++) {
		msg_fill(e->m[0].base + (size_t)k * UC_SLOT, UC_LEN, k);
		s = sge(e, 0, (size_t)k * UC_SLOT, UC_LEN);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.opcode = write_imm ? ROCE_WR_RDMA_WRITE_WITH_IMM : ROCE_WR_SEND;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.imm_data = rte_cpu_to_be_32(k);
		/* WRITE: message k lands in slot k of the peer */
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)
			(e->m[1].base + (size_t)k * UC_SLOT);
		wr.rdma.rkey = roce_mr_rkey(e->m[1].mr);
		CU_ASSERT_EQUAL_FATAL(roce_post_send(e->qp[0], &wr, 1, &posted), 0);
	}
	env_drain(e);
	/* UC completes every send locally, lost or not */
	CU_ASSERT_EQUAL(e->got[0], NMSG);
	for (i = 0; i < (unsigned int)e->got[0]; i++)
		CU_ASSERT_EQUAL(e->wc[0][i].status, ROCE_WC_SUCCESS);
	/* some messages broke, the others arrived whole */
	CU_ASSERT(e->got[1] > 0 && e->got[1] < NMSG);
	for (i = 0; i < (unsigned int)e->got[1]; i++) {
		const struct roce_wc *wc = &e->wc[1][i];
		uint32_t slot = (uint32_t)(wc->wr_id - 1000);

		CU_ASSERT_EQUAL(wc->status, ROCE_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc->byte_len, UC_LEN);
		/* receive WQEs are used in order, one per whole message */
		CU_ASSERT_EQUAL(slot, i);
		if (write_imm) {
			CU_ASSERT_EQUAL(wc->opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
			id = rte_be_to_cpu_32(wc->imm_data);
			CU_ASSERT(msg_check(e->m[1].base + (size_t)id * UC_SLOT,
					    UC_LEN, id));
		} else {
			CU_ASSERT_EQUAL(wc->opcode, ROCE_WC_RECV);
			memcpy(&id, e->m[1].base + (size_t)slot * UC_SLOT,
			       sizeof(id));
			CU_ASSERT(id < NMSG);
			CU_ASSERT(msg_check(e->m[1].base + (size_t)slot * UC_SLOT,
					    UC_LEN, id));
		}
		ok++;
	}
	CU_ASSERT(fake_link_counter(e->l->ep[1].w, "resp_drop_uc_broken_msg") > 0);
	CU_ASSERT(e->l->ep[0].stats.lost > 0);
	/* the connection goes on: a message on a clean link arrives */
	fake_link_set_impair(e->l, 0, &no_impair);
	k = NMSG;
	msg_fill(e->m[0].base + (size_t)k * UC_SLOT, UC_LEN, k);
	s = sge(e, 0, (size_t)k * UC_SLOT, UC_LEN);
	wr.wr_id = k;
	wr.imm_data = rte_cpu_to_be_32(k);
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e->m[1].base +
						    (size_t)k * UC_SLOT);
	CU_ASSERT_EQUAL_FATAL(roce_post_send(e->qp[0], &wr, 1, &posted), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 1000 + ok);
	if (write_imm) {
		CU_ASSERT(msg_check(e->m[1].base + (size_t)k * UC_SLOT, UC_LEN, k));
	} else {
		CU_ASSERT(msg_check(e->m[1].base + (size_t)ok * UC_SLOT, UC_LEN, k));
	}
	env_destroy(e);
}

static void
test_uc_send_loss(void)
{
	uc_run(false);
}

static void
test_uc_write_imm_loss(void)
{
	uc_run(true);
}

/* ------------------------------------------------------------------ */
/* UD                                                                 */
/* ------------------------------------------------------------------ */

static int
ud_send(struct env *e, uint32_t len, uint32_t qkey, uint64_t id, bool imm)
{
	struct roce_ah_attr ah;
	struct roce_send_wr wr;
	struct roce_sge s = sge(e, 0, 0, len);
	unsigned int posted;

	fake_link_ah(e->l, 0, 1, &ah);
	msg_fill(e->m[0].base, len, (uint32_t)id);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = imm ? ROCE_WR_SEND_WITH_IMM : ROCE_WR_SEND;
	wr.sg_list = &s;
	wr.num_sge = len != 0 ? 1 : 0;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.imm_data = rte_cpu_to_be_32(0xabcd);
	wr.ud.ah = &ah;
	wr.ud.remote_qpn = roce_qp_num(e->qp[1]);
	wr.ud.remote_qkey = qkey;
	return roce_post_send(e->qp[0], &wr, 1, &posted);
}

static void
ud_run(bool ipv6)
{
	struct env *e = env_create(ROCE_QPT_UD, ipv6 ? 13 : 11, ipv6);
	struct roce_recv_wr rw = { .wr_id = 77, .num_sge = 1 };
	struct roce_sge r = sge(e, 1, 0, GRH + 1024);
	const uint8_t *grh = e->m[1].base;
	unsigned int posted;
	uint32_t len = 900;

	rw.sg_list = &r;
	CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->qp[1], &rw, 1, &posted), 0);
	CU_ASSERT_EQUAL_FATAL(ud_send(e, len, QKEY, 5, true), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[0][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[0][0].opcode, ROCE_WC_SEND);
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].opcode, ROCE_WC_RECV);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 77);
	/* byte_len counts the GRH area (IBTA 11.4.1.2) */
	CU_ASSERT_EQUAL(e->wc[1][0].byte_len, GRH + len);
	CU_ASSERT_EQUAL(e->wc[1][0].src_qp, roce_qp_num(e->qp[0]));
	CU_ASSERT(e->wc[1][0].wc_flags & ROCE_WC_GRH);
	CU_ASSERT(e->wc[1][0].wc_flags & ROCE_WC_WITH_IMM);
	CU_ASSERT_EQUAL(e->wc[1][0].imm_data, rte_cpu_to_be_32(0xabcd));
	CU_ASSERT(msg_check(e->m[1].base + GRH, len, 5));
	CU_ASSERT(e->m[1].base[GRH + len] == 0xee);
	if (ipv6) {
		const struct rte_ipv6_hdr *ip = (const void *)grh;

		CU_ASSERT_EQUAL(grh[0] >> 4, 6);
		CU_ASSERT(memcmp(ip->src_addr, e->l->ep[0].gid.raw, 16) == 0);
		CU_ASSERT(memcmp(ip->dst_addr, e->l->ep[1].gid.raw, 16) == 0);
	} else {
		const struct rte_ipv4_hdr *ip = (const void *)(grh + 20);
		uint8_t zero[20] = { 0 };

		/* Linux RoCEv2 convention: IPv4 header in the last 20 bytes */
		CU_ASSERT(memcmp(grh, zero, sizeof(zero)) == 0);
		CU_ASSERT_EQUAL(grh[20] >> 4, 4);
		CU_ASSERT(memcmp(&ip->src_addr, e->l->ep[0].gid.raw + 12, 4) == 0);
		CU_ASSERT(memcmp(&ip->dst_addr, e->l->ep[1].gid.raw + 12, 4) == 0);
	}
	env_destroy(e);
}

static void
test_ud_grh_ipv4(void)
{
	ud_run(false);
}

static void
test_ud_grh_ipv6(void)
{
	ud_run(true);
}

static void
test_ud_qkey_violation(void)
{
	struct env *e = env_create(ROCE_QPT_UD, 17, false);
	struct roce_recv_wr rw = { .wr_id = 1, .num_sge = 1 };
	struct roce_sge r = sge(e, 1, 0, GRH + 1024);
	unsigned int posted;

	rw.sg_list = &r;
	CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->qp[1], &rw, 1, &posted), 0);
	CU_ASSERT_EQUAL_FATAL(ud_send(e, 100, QKEY + 1, 1, false), 0);
	env_drain(e);
	/* the send completed locally; nothing was received */
	CU_ASSERT_EQUAL(e->got[0], 1);
	CU_ASSERT_EQUAL(e->got[1], 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_drop_qkey_violation"), 1);
	CU_ASSERT(e->m[1].base[0] == 0xee);
	/* the right Q_Key gets through, into the same receive WQE */
	CU_ASSERT_EQUAL_FATAL(ud_send(e, 100, QKEY, 2, false), 0);
	CU_ASSERT_FATAL(env_wait(e, 1, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 1);
	CU_ASSERT(msg_check(e->m[1].base + GRH, 100, 2));
	env_destroy(e);
}

/* No receive WQE on UD: the datagram is dropped and counted, no RNR. */
static void
test_ud_no_wqe(void)
{
	struct env *e = env_create(ROCE_QPT_UD, 19, false);

	CU_ASSERT_EQUAL_FATAL(ud_send(e, 64, QKEY, 1, false), 0);
	env_drain(e);
	CU_ASSERT_EQUAL(e->got[0], 1);
	CU_ASSERT_EQUAL(e->got[1], 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_drop_no_recv_wqe"), 1);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "resp_rnr_naks"), 0);
	env_destroy(e);
}

/* A UD SEND ONLY from side 0's QP to side 1's, built by hand. */
static int
ud_inject(struct env *e, uint16_t pkey, uint8_t src_host, const void *payload,
	  uint32_t len)
{
	struct roce_hdr_fields f;

	memset(&f, 0, sizeof(f));
	memcpy(&f.src_mac, e->l->ep[0].mac, 6);
	memcpy(&f.dst_mac, e->l->ep[1].mac, 6);
	f.ip_ver = 4;
	f.ttl = 64;
	memcpy(f.sgid, e->l->ep[0].gid.raw, 16);
	f.sgid[15] = src_host;
	memcpy(f.dgid, e->l->ep[1].gid.raw, 16);
	f.udp_sport = 0xc000;
	f.opcode = ROCE_OP_UD_SEND_ONLY;
	f.pkey = pkey;
	f.dqpn = roce_qp_num(e->qp[1]);
	f.qkey = QKEY;
	f.src_qpn = roce_qp_num(e->qp[0]);
	return fake_link_inject(e->l, 1, &f, payload, len);
}

/*
 * UD: the P_Key is checked like every QP's (IBTA 9.6.1.1, 10.9.3), the
 * source is not (a datagram QP talks to anyone; the Q_Key protects it).
 */
static void
test_ud_pkey_any_source(void)
{
	struct env *e = env_create(ROCE_QPT_UD, 23, false);
	struct roce_recv_wr rw = { .wr_id = 9, .num_sge = 1 };
	struct roce_sge r = sge(e, 1, 0, GRH + 1024);
	uint8_t payload[100];
	unsigned int posted;

	memset(payload, 0x3c, sizeof(payload));
	rw.sg_list = &r;
	CU_ASSERT_EQUAL_FATAL(roce_post_recv(e->qp[1], &rw, 1, &posted), 0);
	CU_ASSERT_EQUAL_FATAL(ud_inject(e, 0x1234, 1, payload, 100), 0);
	CU_ASSERT_EQUAL_FATAL(ud_inject(e, 0x0000, 1, payload, 100), 0);
	env_drain(e);
	CU_ASSERT_EQUAL(e->got[1], 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_pkey"), 2);
	CU_ASSERT(e->m[1].base[GRH] == 0xee);
	/* right P_Key from a host the QP never heard of: accepted */
	CU_ASSERT_EQUAL_FATAL(ud_inject(e, 0xffff, 99, payload, 100), 0);
	CU_ASSERT_FATAL(env_wait(e, 0, 1));
	CU_ASSERT_EQUAL(e->wc[1][0].status, ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(e->wc[1][0].wr_id, 9);
	CU_ASSERT_EQUAL(e->wc[1][0].byte_len, GRH + 100);
	CU_ASSERT_EQUAL(e->wc[1][0].src_qp, roce_qp_num(e->qp[0]));
	CU_ASSERT(memcmp(e->m[1].base + GRH, payload, 100) == 0);
	CU_ASSERT_EQUAL(fake_link_counter(e->l->ep[1].w, "rx_drop_bad_src"), 0);
	env_destroy(e);
}

static CU_TestInfo uc_ud_tests[] = {
	{ "UC SEND: broken messages dropped, others whole", test_uc_send_loss },
	{ "UC WRITE+imm: broken messages dropped", test_uc_write_imm_loss },
	{ "UD SEND: GRH area with the IPv4 header", test_ud_grh_ipv4 },
	{ "UD SEND: GRH area with the IPv6 header", test_ud_grh_ipv6 },
	{ "UD Q_Key violation counted and dropped", test_ud_qkey_violation },
	{ "UD without receive WQE: dropped", test_ud_no_wqe },
	{ "UD: P_Key checked, any source", test_ud_pkey_any_source },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "uc_ud", NULL, NULL, NULL, NULL, uc_ud_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
