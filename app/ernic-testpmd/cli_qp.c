/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on verbs objects: create/destroy/show/modify/connect qp,
 * post a single work request, poll a completion. The PD, the registered
 * 1 MB buffer and the CQ of a port are created with its first QP and
 * destroyed with its last.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "cli.h"
#include "numa_buf.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "roce_cc.h"

static const char *const state_names[] = {
	[ROCE_QPS_RESET] = "reset", [ROCE_QPS_INIT] = "init",
	[ROCE_QPS_RTR] = "rtr", [ROCE_QPS_RTS] = "rts",
	[ROCE_QPS_SQD] = "sqd", [ROCE_QPS_SQE] = "sqe",
	[ROCE_QPS_ERR] = "err", [ROCE_QPS_UNKNOWN] = "unknown",
};

static int
port_objs_get(struct cli_state *st, uint16_t port, struct cli_port_objs **out)
{
	struct cli_port_objs *p = &st->port[port];
	struct roce_device *dev = rte_pmd_ernic_get_device(port);
	struct roce_worker *w = rte_pmd_ernic_get_worker(port, 0);

	if (p->pd == NULL) {
		if (dev == NULL || w == NULL)
			return -ENODEV;
		p->buf = numa_buf_alloc(port, 0, CLI_BUF_SIZE, NULL);
		p->pd = roce_alloc_pd(dev);
		if (p->buf == NULL || p->pd == NULL)
			return -ENOMEM;
		p->mr = roce_reg_mr(p->pd, p->buf, CLI_BUF_SIZE,
				    ROCE_ACCESS_LOCAL_WRITE |
				    ROCE_ACCESS_REMOTE_WRITE |
				    ROCE_ACCESS_REMOTE_READ |
				    ROCE_ACCESS_REMOTE_ATOMIC);
		p->cq = roce_create_cq(w, CLI_CQ_DEPTH);
		if (p->mr == NULL || p->cq == NULL)
			return -ENOMEM;
	}
	*out = p;
	return 0;
}

static void
port_objs_put(struct cli_state *st, uint16_t port)
{
	struct cli_port_objs *p = &st->port[port];
	uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	int ret = 0;

	if (p->nqp > 0)
		return;
	if (p->cq != NULL)
		roce_destroy_cq(p->cq);
	/* zero-copy frames still queued read the buffer: let the port free them */
	while (p->mr != NULL && (ret = roce_dereg_mr(p->mr)) == -EBUSY &&
	       rte_get_tsc_cycles() < end)
		rte_pmd_ernic_poll(port);
	if (ret == -EBUSY) {
		printf("port %u: MR still read by queued frames, buffer not freed\n",
		       port);
		p->buf = NULL;
	}
	if (p->pd != NULL && ret == 0)
		roce_dealloc_pd(p->pd);
	numa_buf_free(p->buf);
	memset(p, 0, sizeof(*p));
}

void
cli_qp_cleanup(struct cli_state *st)
{
	unsigned int i;

	for (i = 0; i < CLI_MAX_QP; i++) {
		if (st->qp[i].qp == NULL)
			continue;
		roce_destroy_qp(st->qp[i].qp);
		st->qp[i].qp = NULL;
		st->port[st->qp[i].port].nqp--;
		port_objs_put(st, st->qp[i].port);
	}
}

static struct cli_qp *
qp_get(struct cmdline *cl, struct cli_state *st, uint32_t n)
{
	if (n >= CLI_MAX_QP || st->qp[n].qp == NULL) {
		cmdline_printf(cl, "bad QP %u: expected the number printed by create qp\n",
			       n);
		return NULL;
	}
	return &st->qp[n];
}

/* ---- create qp <port> / destroy qp <n> / show qp <n> -------------------- */

struct cmd_qp_port {
	cmdline_fixed_string_t verb;
	cmdline_fixed_string_t qp;
	uint16_t port;
};

static void
cmd_create_qp_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_qp_port *r = res;
	struct cli_state *st = data;
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	struct cli_port_objs *p;
	union roce_gid gid;
	unsigned int n;
	char g[64];
	int gi, ret;

	if (!cli_port_ok(cl, r->port))
		return;
	for (n = 0; n < CLI_MAX_QP && st->qp[n].qp != NULL; n++)
		;
	if (n == CLI_MAX_QP) {
		cmdline_printf(cl, "all %u QP slots are used: destroy one first\n",
			       CLI_MAX_QP);
		return;
	}
	ret = port_objs_get(st, r->port, &p);
	if (ret != 0) {
		cmdline_printf(cl, "cannot create PD/MR/CQ on port %u: %s\n",
			       r->port, strerror(-ret));
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = true;
	st->qp[n].qp = roce_create_qp(p->pd, &ia);
	if (st->qp[n].qp == NULL) {
		cmdline_printf(cl, "roce_create_qp: %s\n",
			       rte_strerror(rte_errno));
		port_objs_put(st, r->port);
		return;
	}
	p->nqp++;
	st->qp[n].port = r->port;
	st->qp[n].psn = (uint32_t)(rte_rand() & 0xffffff);
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	ret = roce_modify_qp(st->qp[n].qp, &a, ROCE_QP_STATE |
			     ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
			     ROCE_QP_ACCESS_FLAGS);
	port_pick_gid(r->port, -1, &gi, &gid);
	port_gid_str(&gid, g, sizeof(g));
	cmdline_printf(cl, "qp %u: QPN 0x%06x PSN 0x%06x RKey 0x%08x VAddr 0x%016" PRIx64
		       " GID[%d] %s, state %s\n", n, roce_qp_num(st->qp[n].qp),
		       st->qp[n].psn, roce_mr_rkey(p->mr), (uint64_t)(uintptr_t)p->buf,
		       gi, g, ret == 0 ? "init" : "reset (INIT failed)");
}

static void
cmd_destroy_qp_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_qp_port *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->port);
	int ret;

	if (q == NULL)
		return;
	ret = roce_destroy_qp(q->qp);
	if (ret != 0) {
		cmdline_printf(cl, "roce_destroy_qp: %s\n", strerror(-ret));
		return;
	}
	q->qp = NULL;
	st->port[q->port].nqp--;
	port_objs_put(st, q->port);
	cmdline_printf(cl, "qp %u destroyed\n", r->port);
}

static void
cmd_show_qp_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_qp_port *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->port);
	struct roce_qp_init_attr ia;
	struct roce_qp_cc_info cc;
	struct roce_qp_attr a;
	char g[128];
	int ret;

	if (q == NULL)
		return;
	ret = roce_query_qp(q->qp, &a, &ia);
	if (ret != 0) {
		cmdline_printf(cl, "roce_query_qp: %s\n", strerror(-ret));
		return;
	}
	port_gid_str(&a.ah_attr.dgid, g, sizeof(g));
	cmdline_printf(cl, "qp %u: QPN 0x%06x on port %u, state %s\n"
		       "  sq_psn 0x%06x rq_psn 0x%06x dest_qp 0x%06x path_mtu %u\n"
		       "  dgid %s dmac %02x:%02x:%02x:%02x:%02x:%02x sgid_index %u\n"
		       "  timeout %u retry_cnt %u rnr_retry %u min_rnr_timer %u max_rd_atomic %u max_dest_rd_atomic %u\n"
		       "  cap: send %u recv %u sge %u/%u inline %u\n",
		       r->port, roce_qp_num(q->qp), q->port,
		       a.qp_state <= ROCE_QPS_UNKNOWN ? state_names[a.qp_state] : "?",
		       a.sq_psn, a.rq_psn, a.dest_qp_num,
		       roce_mtu_bytes(a.path_mtu), g, a.ah_attr.dmac[0],
		       a.ah_attr.dmac[1], a.ah_attr.dmac[2], a.ah_attr.dmac[3],
		       a.ah_attr.dmac[4], a.ah_attr.dmac[5],
		       a.ah_attr.sgid_index, a.timeout, a.retry_cnt,
		       a.rnr_retry, a.min_rnr_timer, a.max_rd_atomic,
		       a.max_dest_rd_atomic, ia.cap.max_send_wr,
		       ia.cap.max_recv_wr, ia.cap.max_send_sge,
		       ia.cap.max_recv_sge, ia.cap.max_inline_data);
	cmdline_printf(cl, "  selective_repeat %s\n",
		       a.selective_repeat ? "on" : "off");
	numa_placement_str(q->port, 0, g, sizeof(g));
	cmdline_printf(cl, "  %s\n", g);
	if (roce_qp_cc_query(q->qp, &cc) != 0)
		return;
	cmdline_printf(cl, "  cc: rate %u Mbit/s (%s) target %u alpha %u/1024 ce_rx %" PRIu64
		       " cnp_tx %" PRIu64 " cnp_rx %" PRIu64 " cuts %" PRIu64 "\n",
		       cc.rate_mbps, cc.limited ? "limited" : "not limited",
		       cc.target_mbps, cc.alpha, cc.ce_rx, cc.cnp_tx,
		       cc.cnp_rx, cc.rate_cuts);
	if (cc.window)
		cmdline_printf(cl, "  cc window: %u PSNs alpha %u/1024 cuts %" PRIu64 "\n",
			       cc.cwnd, cc.window_alpha, cc.window_cuts);
	else
		cmdline_printf(cl, "  cc window: off (no mark yet)\n");
}

static cmdline_parse_token_string_t cmd_create_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_port, verb, "create");
static cmdline_parse_token_string_t cmd_destroy_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_port, verb, "destroy");
static cmdline_parse_token_string_t cmd_show_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_port, verb, "show");
static cmdline_parse_token_string_t cmd_qp_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_qp_port, qp, "qp");
static cmdline_parse_token_num_t cmd_qp_num =
	TOKEN_NUM_INITIALIZER(struct cmd_qp_port, port, RTE_UINT16);

static cmdline_parse_inst_t cmd_create_qp = {
	.f = cmd_create_qp_parsed,
	.data = &cli_state,
	.help_str = "create qp <port>: an RC QP in INIT on a net_ernic port",
	.tokens = { (void *)&cmd_create_tok, (void *)&cmd_qp_tok,
		    (void *)&cmd_qp_num, NULL },
};

static cmdline_parse_inst_t cmd_destroy_qp = {
	.f = cmd_destroy_qp_parsed,
	.data = &cli_state,
	.help_str = "destroy qp <n>: destroy a QP made by create qp",
	.tokens = { (void *)&cmd_destroy_tok, (void *)&cmd_qp_tok,
		    (void *)&cmd_qp_num, NULL },
};

static cmdline_parse_inst_t cmd_show_qp = {
	.f = cmd_show_qp_parsed,
	.data = &cli_state,
	.help_str = "show qp <n>: query a QP",
	.tokens = { (void *)&cmd_show_tok, (void *)&cmd_qp_tok,
		    (void *)&cmd_qp_num, NULL },
};

/* ---- modify qp <n> <state> ------------------------------------------------ */

struct cmd_modify {
	cmdline_fixed_string_t modify;
	cmdline_fixed_string_t qp;
	uint16_t n;
	cmdline_fixed_string_t state;
};

static void
cmd_modify_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_modify *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->n);
	struct roce_qp_attr a;
	int mask = ROCE_QP_STATE, ret;
	unsigned int s;

	if (q == NULL)
		return;
	for (s = 0; s < ROCE_QPS_UNKNOWN; s++)
		if (strcmp(state_names[s], r->state) == 0)
			break;
	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	if (s == ROCE_QPS_INIT) {
		a.port_num = 1;
		a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
			ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
			ROCE_ACCESS_REMOTE_ATOMIC;
		mask |= ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
			ROCE_QP_ACCESS_FLAGS;
	}
	ret = roce_modify_qp(q->qp, &a, mask);
	if (ret != 0)
		cmdline_printf(cl, "modify qp %u to %s refused: %s (IBTA 10.3.1 transition table; rtr needs connect qp)\n",
			       r->n, r->state, strerror(-ret));
	else
		cmdline_printf(cl, "qp %u: %s\n", r->n, r->state);
}

static cmdline_parse_token_string_t cmd_modify_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_modify, modify, "modify");
static cmdline_parse_token_string_t cmd_modify_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_modify, qp, "qp");
static cmdline_parse_token_num_t cmd_modify_n =
	TOKEN_NUM_INITIALIZER(struct cmd_modify, n, RTE_UINT16);
static cmdline_parse_token_string_t cmd_modify_state =
	TOKEN_STRING_INITIALIZER(struct cmd_modify, state,
				 "reset#init#rts#sqd#err");

static cmdline_parse_inst_t cmd_modify = {
	.f = cmd_modify_parsed,
	.data = &cli_state,
	.help_str = "modify qp <n> reset|init|rts|sqd|err: one state transition",
	.tokens = { (void *)&cmd_modify_tok, (void *)&cmd_modify_qp,
		    (void *)&cmd_modify_n, (void *)&cmd_modify_state, NULL },
};

/* ---- connect qp <n> <dqpn> <rpsn> <ip> <mtu> ----------------------------- */

struct cmd_connect {
	cmdline_fixed_string_t connect;
	cmdline_fixed_string_t qp;
	uint16_t n;
	uint32_t dqpn;
	uint32_t rpsn;
	cmdline_fixed_string_t ip;
	uint16_t mtu;
};

static void
cmd_connect_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_connect *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->n);
	struct roce_qp_attr a;
	struct in_addr a4;
	union roce_gid gid;
	int gi, ret;

	if (q == NULL)
		return;
	if (r->mtu < 256 || r->mtu > 4096 || (r->mtu & (r->mtu - 1)) != 0 ||
	    r->dqpn > 0xffffff || r->rpsn > 0xffffff) {
		cmdline_printf(cl, "bad arguments: expected dqpn and rpsn < 0x1000000 and an mtu of 256, 512, 1024, 2048 or 4096\n");
		return;
	}
	if ((int)r->mtu > rte_pmd_ernic_pmtu(q->port)) {
		cmdline_printf(cl, "bad mtu %u: port %u carries at most %d bytes per packet (its pmtu= devarg)\n",
			       r->mtu, q->port, rte_pmd_ernic_pmtu(q->port));
		return;
	}
	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, r->ip, &a4) == 1) {
		a.ah_attr.dgid.raw[10] = 0xff;
		a.ah_attr.dgid.raw[11] = 0xff;
		memcpy(&a.ah_attr.dgid.raw[12], &a4, 4);
	} else if (inet_pton(AF_INET6, r->ip, a.ah_attr.dgid.raw) != 1) {
		cmdline_printf(cl, "bad address \"%s\": expected the peer's IPv4 or IPv6 address\n",
			       r->ip);
		return;
	}
	ret = port_resolve(q->port, &a.ah_attr.dgid, a.ah_attr.dmac, 4,
			   cli_poll_ports, NULL, st->quit);
	if (ret != 0) {
		cmdline_printf(cl, "cannot resolve %s: %s\n", r->ip,
			       strerror(-ret));
		return;
	}
	port_pick_gid(q->port, -1, &gi, &gid);
	a.qp_state = ROCE_QPS_RTR;
	a.ah_attr.sgid_index = (uint8_t)gi;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.path_mtu = rte_log2_u32(r->mtu) - 7;
	a.dest_qp_num = r->dqpn;
	a.rq_psn = r->rpsn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE | ROCE_QP_AV |
			     ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER);
	if (ret == 0) {
		memset(&a, 0, sizeof(a));
		a.qp_state = ROCE_QPS_RTS;
		a.sq_psn = q->psn;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		ret = roce_modify_qp(q->qp, &a, ROCE_QP_STATE |
				     ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
				     ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				     ROCE_QP_MAX_QP_RD_ATOMIC);
	}
	if (ret != 0)
		cmdline_printf(cl, "connect qp %u failed: %s\n", r->n,
			       strerror(-ret));
	else
		cmdline_printf(cl, "qp %u: RTS to QPN 0x%06x at %s\n", r->n,
			       r->dqpn, r->ip);
}

static cmdline_parse_token_string_t cmd_connect_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_connect, connect, "connect");
static cmdline_parse_token_string_t cmd_connect_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_connect, qp, "qp");
static cmdline_parse_token_num_t cmd_connect_n =
	TOKEN_NUM_INITIALIZER(struct cmd_connect, n, RTE_UINT16);
static cmdline_parse_token_num_t cmd_connect_dqpn =
	TOKEN_NUM_INITIALIZER(struct cmd_connect, dqpn, RTE_UINT32);
static cmdline_parse_token_num_t cmd_connect_rpsn =
	TOKEN_NUM_INITIALIZER(struct cmd_connect, rpsn, RTE_UINT32);
static cmdline_parse_token_string_t cmd_connect_ip =
	TOKEN_STRING_INITIALIZER(struct cmd_connect, ip, NULL);
static cmdline_parse_token_num_t cmd_connect_mtu =
	TOKEN_NUM_INITIALIZER(struct cmd_connect, mtu, RTE_UINT16);

static cmdline_parse_inst_t cmd_connect = {
	.f = cmd_connect_parsed,
	.data = &cli_state,
	.help_str = "connect qp <n> <dqpn> <rpsn> <peer-ip> <mtu>: RTR and RTS with manual attributes",
	.tokens = { (void *)&cmd_connect_tok, (void *)&cmd_connect_qp,
		    (void *)&cmd_connect_n, (void *)&cmd_connect_dqpn,
		    (void *)&cmd_connect_rpsn, (void *)&cmd_connect_ip,
		    (void *)&cmd_connect_mtu, NULL },
};

/* ---- post <n> <op> <size> <rkey> <vaddr>, poll <n> ----------------------- */

struct cmd_post {
	cmdline_fixed_string_t post;
	uint16_t n;
	cmdline_fixed_string_t op;
	uint32_t size;
	uint32_t rkey;
	uint64_t vaddr;
};

static void
cmd_post_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_post *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->n);
	struct cli_port_objs *p;
	struct roce_send_wr wr;
	struct roce_recv_wr rwr;
	struct roce_sge sge;
	unsigned int posted;
	int ret;

	if (q == NULL)
		return;
	p = &st->port[q->port];
	if (r->size > CLI_BUF_SIZE / 2) {
		cmdline_printf(cl, "bad size %u: expected at most %u\n", r->size,
			       CLI_BUF_SIZE / 2);
		return;
	}
	/* sends and reads from the first half, receives into the second */
	sge.addr = (uintptr_t)p->buf;
	sge.length = r->size;
	sge.lkey = roce_mr_lkey(p->mr);
	if (strcmp(r->op, "recv") == 0) {
		sge.addr += CLI_BUF_SIZE / 2;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = r->n;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		ret = roce_post_recv(q->qp, &rwr, 1, &posted);
	} else {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = r->n;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = strcmp(r->op, "send") == 0 ? ROCE_WR_SEND :
			strcmp(r->op, "write") == 0 ? ROCE_WR_RDMA_WRITE :
			ROCE_WR_RDMA_READ;
		wr.rdma.remote_addr = r->vaddr;
		wr.rdma.rkey = r->rkey;
		ret = roce_post_send(q->qp, &wr, 1, &posted);
	}
	if (ret != 0)
		cmdline_printf(cl, "post %s refused: %s\n", r->op,
			       strerror(-ret));
	else
		cmdline_printf(cl, "posted %s of %u bytes on qp %u\n", r->op,
			       r->size, r->n);
}

static cmdline_parse_token_string_t cmd_post_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_post, post, "post");
static cmdline_parse_token_num_t cmd_post_n =
	TOKEN_NUM_INITIALIZER(struct cmd_post, n, RTE_UINT16);
static cmdline_parse_token_string_t cmd_post_op =
	TOKEN_STRING_INITIALIZER(struct cmd_post, op, "send#recv#write#read");
static cmdline_parse_token_num_t cmd_post_size =
	TOKEN_NUM_INITIALIZER(struct cmd_post, size, RTE_UINT32);
static cmdline_parse_token_num_t cmd_post_rkey =
	TOKEN_NUM_INITIALIZER(struct cmd_post, rkey, RTE_UINT32);
static cmdline_parse_token_num_t cmd_post_vaddr =
	TOKEN_NUM_INITIALIZER(struct cmd_post, vaddr, RTE_UINT64);

static cmdline_parse_inst_t cmd_post = {
	.f = cmd_post_parsed,
	.data = &cli_state,
	.help_str = "post <n> send|recv|write|read <size> <rkey> <vaddr>: one signaled work request",
	.tokens = { (void *)&cmd_post_tok, (void *)&cmd_post_n,
		    (void *)&cmd_post_op, (void *)&cmd_post_size,
		    (void *)&cmd_post_rkey, (void *)&cmd_post_vaddr, NULL },
};

struct cmd_poll {
	cmdline_fixed_string_t poll;
	uint16_t n;
};

static void
cmd_poll_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_poll *r = res;
	struct cli_state *st = data;
	struct cli_qp *q = qp_get(cl, st, r->n);
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	struct roce_wc wc;
	int n;

	if (q == NULL)
		return;
	do {
		cli_poll_ports(NULL);
		n = roce_poll_cq(st->port[q->port].cq, &wc, 1);
	} while (n == 0 && rte_get_tsc_cycles() < end);
	if (n <= 0) {
		cmdline_printf(cl, "no completion within 1 s\n");
		return;
	}
	cmdline_printf(cl, "completion: wr_id %" PRIu64 " QPN 0x%06x status %d opcode %d bytes %u vendor_err %u\n",
		       wc.wr_id, wc.qp_num, wc.status, wc.opcode,
		       wc.byte_len, wc.vendor_err);
}

static cmdline_parse_token_string_t cmd_poll_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_poll, poll, "poll");
static cmdline_parse_token_num_t cmd_poll_n =
	TOKEN_NUM_INITIALIZER(struct cmd_poll, n, RTE_UINT16);

static cmdline_parse_inst_t cmd_poll = {
	.f = cmd_poll_parsed,
	.data = &cli_state,
	.help_str = "poll <n>: wait up to 1 s for a completion on QP n's CQ",
	.tokens = { (void *)&cmd_poll_tok, (void *)&cmd_poll_n, NULL },
};

cmdline_parse_inst_t *cli_qp_cmds[] = {
	&cmd_create_qp,
	&cmd_destroy_qp,
	&cmd_show_qp,
	&cmd_modify,
	&cmd_connect,
	&cmd_post,
	&cmd_poll,
	NULL,
};
