/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prompt commands on ERNIC QPs programmed through the register window (the
 * PG332 software flow of doc/guides/ernic.rst) and the hardware handshake
 * mode: ernic qp (program and enable an RC QP), qp handshake on|off (the
 * PG332 enable sequence, rte_pmd_ernic_hs_attach()), hs post and hs bench
 * (WQEs through the handshake port, or SQPI in register mode), show ernic
 * qp.
 *
 * Each port gets, on its first ERNIC QP: the global configuration
 * (XRNICCONF enable with CLI_HS_NUM_QP QPs, the error queues), a 1 MB
 * data buffer published as PD table entry CLI_HS_PD_ENTRY of PD 1 at the
 * fixed virtual address CLI_HS_VA with R_Key CLI_HS_RKEY. Every port
 * programmed this way therefore names its peer's buffer the same way, and
 * no key exchange is needed: a WRITE goes from the first half of the local
 * buffer to the second half of the peer's, a READ the other way round.
 * Both directions start at PSN CLI_HS_PSN. The prompt thread polls the
 * ports while it waits (cli_poll_ports()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_parse_string.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "cli.h"
#include "port.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_regs.h"

enum {
	CLI_HS_NUM_QP = 16,		/**< XRNICCONF[15:8]: QPs 1..16 */
	CLI_HS_MAX_QP = 16,
	CLI_HS_SQ_DEPTH = 64,
	CLI_HS_RQ_DEPTH = 16,
	CLI_HS_RQ_BUF = 4096,
	CLI_HS_BUF = 1 << 20,
	CLI_HS_PD = 1,
	CLI_HS_PD_ENTRY = 1,
	CLI_HS_KEY = 0x5a,
	CLI_HS_RKEY = CLI_HS_PD_ENTRY << 8 | CLI_HS_KEY,
	CLI_HS_PSN = 1,
	/* register fields (ernic_regs.h) */
	HS_CONF_EN = 1u << 0,
	HS_ADCONF_OVERRIDE = 1u << 0,
	HS_QPC_EN = 1u << 0,
	HS_QPC_HS_DIS = 1u << 4,
	HS_QPC_CQE = 1u << 5,
	HS_ACC_RDWR = 2,
	HS_STATQP_FATAL = 1u << 0,
};

#define CLI_HS_VA 0x100000000000ull

struct hs_port {
	bool configured;
	uint8_t *buf;
	uint8_t *errbuf, *ipkterr, *resperr;
};

struct hs_qp {
	bool used;
	uint16_t port;
	uint32_t qpn, dqpn;
	uint8_t *sq, *rq;
	uint32_t *cq;
	uint32_t *cqdb, *rqdb;
	uint32_t sqpi;		/**< register mode: next SQ index */
	uint32_t rqci;		/**< register mode: RQ buffers returned */
	uint32_t cqidx;		/**< register mode: next CQE to take */
	struct rte_pmd_ernic_hs_port *hs;	/**< NULL: register mode */
	uint16_t wrid;
	uint64_t posted, completed, errors;
	uint64_t rx_bufs, rx_bytes;
	uint8_t last_status;
};

static struct hs_port hs_ports[RTE_MAX_ETHPORTS];
static struct hs_qp hs_qps[CLI_HS_MAX_QP];

static int
regw(uint16_t port, const char *name, uint32_t idx, uint32_t v)
{
	uint32_t off;
	int ret = rte_pmd_ernic_reg_by_name(name, idx, &off);

	return ret != 0 ? ret : rte_pmd_ernic_reg_write(port, off, v);
}

static uint32_t
regr(uint16_t port, const char *name, uint32_t idx)
{
	uint32_t off, v = 0;

	if (rte_pmd_ernic_reg_by_name(name, idx, &off) == 0)
		rte_pmd_ernic_reg_read(port, off, &v);
	return v;
}

static int
regw64(uint16_t port, const char *lsb, const char *msb, uint32_t idx,
       const void *p)
{
	uint64_t a = (uint64_t)(uintptr_t)p;
	int ret = regw(port, lsb, idx, (uint32_t)a);

	return ret != 0 ? ret : regw(port, msb, idx, (uint32_t)(a >> 32));
}

static struct hs_qp *
hs_find(uint16_t port, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < CLI_HS_MAX_QP; i++)
		if (hs_qps[i].used && hs_qps[i].port == port &&
		    hs_qps[i].qpn == qpn)
			return &hs_qps[i];
	return NULL;
}

static struct hs_qp *
hs_get(struct cmdline *cl, uint16_t port, uint32_t qpn)
{
	struct hs_qp *q = hs_find(port, qpn);

	if (q == NULL)
		cmdline_printf(cl, "bad QP %u on port %u: expected a QP made with ernic qp %u %u ...\n",
			       qpn, port, port, qpn);
	return q;
}

/* Step 1 and 2 of PG332 on a port: global configuration, PD table. */
static int
hs_port_setup(struct cmdline *cl, uint16_t port)
{
	struct hs_port *p = &hs_ports[port];
	int ret = 0;

	if (p->configured)
		return 0;
	if (p->buf == NULL) {
		p->buf = rte_zmalloc("cli_hs_buf", CLI_HS_BUF, 4096);
		p->errbuf = rte_zmalloc("cli_hs_err", 8 * 64, 64);
		p->ipkterr = rte_zmalloc("cli_hs_ipk", 16 * 8, 64);
		p->resperr = rte_zmalloc("cli_hs_rsp", 8 * 64, 64);
	}
	if (p->buf == NULL || p->errbuf == NULL || p->ipkterr == NULL ||
	    p->resperr == NULL) {
		cmdline_printf(cl, "cannot allocate the ERNIC buffers of port %u\n",
			       port);
		return -ENOMEM;
	}
	/* the port's MAC and IP registers hold its devargs from reset on */
	ret |= regw64(port, "ERRBUFBA", "ERRBUFBAMSB", 0, p->errbuf);
	ret |= regw(port, "ERRBUFSZ", 0, 64u << 16 | 8);
	ret |= regw64(port, "IPKTERRQBA", "IPKTERRQBAMSB", 0, p->ipkterr);
	ret |= regw(port, "IPKTERRQSZ", 0, 16);
	ret |= regw64(port, "RESPERRPKTBA", "RESPERRPKTBAMSB", 0, p->resperr);
	ret |= regw(port, "RESPERRSZ", 0, 64u << 16 | 8);
	ret |= regw(port, "XRNICCONF", 0, CLI_HS_NUM_QP << 8 | HS_CONF_EN);
	/* PD table entry: the whole buffer, remote read and write */
	ret |= regw(port, "PDPDNUM", CLI_HS_PD_ENTRY, CLI_HS_PD);
	ret |= regw(port, "VIRTADDRLSB", CLI_HS_PD_ENTRY, (uint32_t)CLI_HS_VA);
	ret |= regw(port, "VIRTADDRMSB", CLI_HS_PD_ENTRY,
		    (uint32_t)(CLI_HS_VA >> 32));
	ret |= regw64(port, "BUFBASEADDRLSB", "BUFBASEADDRMSB",
		      CLI_HS_PD_ENTRY, p->buf);
	ret |= regw(port, "BUFRKEY", CLI_HS_PD_ENTRY, CLI_HS_KEY);
	ret |= regw(port, "WRRDBUFLEN", CLI_HS_PD_ENTRY, CLI_HS_BUF);
	ret |= regw(port, "ACCESSDESC", CLI_HS_PD_ENTRY, HS_ACC_RDWR);
	if (ret != 0) {
		cmdline_printf(cl, "port %u: the global configuration was refused (see reg dump)\n",
			       port);
		return -EINVAL;
	}
	p->configured = true;
	cmdline_printf(cl, "port %u: ERNIC enabled (QPs 1..%u), PD entry %u: %u bytes at VA 0x%" PRIx64 ", R_Key 0x%x\n",
		       port, CLI_HS_NUM_QP, CLI_HS_PD_ENTRY, CLI_HS_BUF,
		       (uint64_t)CLI_HS_VA, CLI_HS_RKEY);
	return 0;
}

static void
hs_qp_free(struct hs_qp *q)
{
	rte_free(q->sq);
	rte_free(q->rq);
	rte_free(q->cq);
	rte_free(q->cqdb);
	rte_free(q->rqdb);
	memset(q, 0, sizeof(*q));
}

/* ---- ernic qp <port> <qpn> <dqpn> <peer-ip> ------------------------- */

struct cmd_ernic_qp {
	cmdline_fixed_string_t ernic;
	cmdline_fixed_string_t qp;
	uint16_t port;
	uint16_t qpn;
	uint32_t dqpn;
	cmdline_fixed_string_t ip;
};

static void
cmd_ernic_qp_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_ernic_qp *r = res;
	struct cli_state *st = data;
	struct hs_qp *q = NULL;
	union roce_gid gid;
	struct in_addr a4;
	uint8_t mac[6];
	uint32_t ip, pmtu;
	unsigned int i;
	int ret;

	if (!cli_port_ok(cl, r->port))
		return;
	if (r->qpn < 2 || r->qpn > CLI_HS_NUM_QP || r->dqpn < 2 ||
	    r->dqpn > 0xffffff) {
		cmdline_printf(cl, "bad QPN: expected qpn 2..%u (QP1 is the GSI QP) and a dqpn 2..16777215\n",
			       CLI_HS_NUM_QP);
		return;
	}
	if (inet_pton(AF_INET, r->ip, &a4) != 1) {
		cmdline_printf(cl, "bad peer-ip \"%s\": expected the peer's IPv4 address\n",
			       r->ip);
		return;
	}
	if (hs_find(r->port, r->qpn) != NULL) {
		cmdline_printf(cl, "QP %u of port %u is programmed already\n",
			       r->qpn, r->port);
		return;
	}
	for (i = 0; i < CLI_HS_MAX_QP && hs_qps[i].used; i++)
		;
	if (i == CLI_HS_MAX_QP) {
		cmdline_printf(cl, "all %u ERNIC QP slots are used\n",
			       CLI_HS_MAX_QP);
		return;
	}
	memset(&gid, 0, sizeof(gid));
	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	memcpy(&gid.raw[12], &a4, 4);
	ret = port_resolve(r->port, &gid, mac, 4, cli_poll_ports, NULL,
			   st->quit);
	if (ret != 0) {
		cmdline_printf(cl, "cannot resolve %s on port %u: %s\n", r->ip,
			       r->port, strerror(-ret));
		return;
	}
	if (hs_port_setup(cl, r->port) != 0)
		return;
	q = &hs_qps[i];
	memset(q, 0, sizeof(*q));
	q->port = r->port;
	q->qpn = r->qpn;
	q->dqpn = r->dqpn;
	q->sq = rte_zmalloc("cli_hs_sq", CLI_HS_SQ_DEPTH * 64, 64);
	q->rq = rte_zmalloc("cli_hs_rq", CLI_HS_RQ_DEPTH * CLI_HS_RQ_BUF, 64);
	q->cq = rte_zmalloc("cli_hs_cq", CLI_HS_SQ_DEPTH * 4, 64);
	q->cqdb = rte_zmalloc("cli_hs_db", 64, 64);
	q->rqdb = rte_zmalloc("cli_hs_db", 64, 64);
	if (q->sq == NULL || q->rq == NULL || q->cq == NULL ||
	    q->cqdb == NULL || q->rqdb == NULL) {
		cmdline_printf(cl, "cannot allocate the queues\n");
		hs_qp_free(q);
		return;
	}
	ip = rte_be_to_cpu_32(a4.s_addr);
	pmtu = port_mtu_code(r->port) - 1;	/* ibv_mtu 1..5 -> 0..4 */
	ret = regw64(r->port, "RQBA", "RQBAMSB", r->qpn, q->rq);
	ret |= regw64(r->port, "SQBA", "SQBAMSB", r->qpn, q->sq);
	ret |= regw64(r->port, "CQBA", "CQBAMSB", r->qpn, q->cq);
	ret |= regw64(r->port, "CQDBADD", "CQDBADDMSB", r->qpn, q->cqdb);
	ret |= regw64(r->port, "RQWPTRDBADD", "RQWPTRDBADDMSB", r->qpn,
		      q->rqdb);
	ret |= regw(r->port, "QDEPTH", r->qpn,
		    CLI_HS_RQ_DEPTH << 16 | CLI_HS_SQ_DEPTH);
	ret |= regw(r->port, "PDNUM", r->qpn, CLI_HS_PD);
	ret |= regw(r->port, "DESTQPCONF", r->qpn, r->dqpn);
	ret |= regw(r->port, "MACDESADDLSB", r->qpn, (uint32_t)mac[2] << 24 |
		    (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]);
	ret |= regw(r->port, "MACDESADDMSB", r->qpn,
		    (uint32_t)mac[0] << 8 | mac[1]);
	ret |= regw(r->port, "IPDESADDR1", r->qpn, ip);
	ret |= regw(r->port, "SQPSN", r->qpn, CLI_HS_PSN);
	ret |= regw(r->port, "LSTRQREQ", r->qpn, CLI_HS_PSN - 1);
	/* timeout 4.096 us * 2^14, 7 retries, 7 RNR retries, RNR timer 1 */
	ret |= regw(r->port, "TIMEOUTCONF", r->qpn,
		    1u << 16 | 7u << 11 | 7u << 8 | 14);
	ret |= regw(r->port, "QPADVCONF", r->qpn, 0xffffu << 16 | 64u << 8);
	if (ret != 0) {
		cmdline_printf(cl, "QP %u: the queue or path registers were refused\n",
			       r->qpn);
		hs_qp_free(q);
		return;
	}
	/* the enable: creates the lib/roce QP and moves it to RTS */
	ret = regw(r->port, "QPCONF", r->qpn, HS_QPC_EN | HS_QPC_HS_DIS |
		   HS_QPC_CQE | pmtu << 8 | (CLI_HS_RQ_BUF / 256) << 16);
	if (ret != 0) {
		cmdline_printf(cl, "QP %u: enable refused: %s%s\n", r->qpn,
			       strerror(-ret), ret == -EBUSY ?
			       " (QPN taken by a verbs QP: use another)" : "");
		hs_qp_free(q);
		return;
	}
	q->used = true;
	cmdline_printf(cl, "port %u QP %u: RTS to QP %u at %s (%02x:%02x:%02x:%02x:%02x:%02x), SQ %u x 64 B, RQ %u x %u B, register mode\n",
		       r->port, r->qpn, r->dqpn, r->ip, mac[0], mac[1], mac[2],
		       mac[3], mac[4], mac[5], CLI_HS_SQ_DEPTH, CLI_HS_RQ_DEPTH,
		       CLI_HS_RQ_BUF);
}

static cmdline_parse_token_string_t cmd_ernic_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_ernic_qp, ernic, "ernic");
static cmdline_parse_token_string_t cmd_ernic_qp_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_ernic_qp, qp, "qp");
static cmdline_parse_token_num_t cmd_ernic_port =
	TOKEN_NUM_INITIALIZER(struct cmd_ernic_qp, port, RTE_UINT16);
static cmdline_parse_token_num_t cmd_ernic_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_ernic_qp, qpn, RTE_UINT16);
static cmdline_parse_token_num_t cmd_ernic_dqpn =
	TOKEN_NUM_INITIALIZER(struct cmd_ernic_qp, dqpn, RTE_UINT32);
static cmdline_parse_token_string_t cmd_ernic_ip =
	TOKEN_STRING_INITIALIZER(struct cmd_ernic_qp, ip, NULL);

static cmdline_parse_inst_t cmd_ernic_qp = {
	.f = cmd_ernic_qp_parsed,
	.data = &cli_state,
	.help_str = "ernic qp <port> <qpn> <dqpn> <peer-ip>: program and enable an RC QP through the registers",
	.tokens = { (void *)&cmd_ernic_tok, (void *)&cmd_ernic_qp_tok,
		    (void *)&cmd_ernic_port, (void *)&cmd_ernic_qpn,
		    (void *)&cmd_ernic_dqpn, (void *)&cmd_ernic_ip, NULL },
};

/* ---- receive side and completions ----------------------------------- */

/* Take the filled RQ buffers of every ERNIC QP and give them back. */
static void
hs_rq_service(void)
{
	struct rte_pmd_ernic_rq_desc d;
	uint32_t n, idx, k, wp;
	unsigned int i;
	struct hs_qp *q;

	for (i = 0; i < CLI_HS_MAX_QP; i++) {
		q = &hs_qps[i];
		if (!q->used)
			continue;
		if (q->hs != NULL) {
			n = rte_pmd_ernic_hs_rq(q->hs, &idx);
		} else {
			wp = __atomic_load_n(q->rqdb, __ATOMIC_ACQUIRE);
			n = (wp + CLI_HS_RQ_DEPTH - q->rqci) % CLI_HS_RQ_DEPTH;
			idx = q->rqci;
		}
		for (k = 0; k < n; k++) {
			memcpy(&d, q->rq + ((idx + k) % CLI_HS_RQ_DEPTH) *
			       CLI_HS_RQ_BUF + CLI_HS_RQ_BUF -
			       RTE_PMD_ERNIC_RQ_DESC_LEN, sizeof(d));
			q->rx_bufs++;
			q->rx_bytes += d.byte_len;
		}
		if (n == 0)
			continue;
		if (q->hs != NULL) {
			rte_pmd_ernic_hs_rq_release(q->hs, n);
		} else {
			q->rqci = (q->rqci + n) % CLI_HS_RQ_DEPTH;
			regw(q->port, "RQCI", q->qpn, q->rqci);
		}
	}
}

/* Completions of @p q: the handshake port's words or CQHEAD and CQEs. */
static unsigned int
hs_poll_cq(struct hs_qp *q)
{
	struct rte_pmd_ernic_hs_cqe c[16];
	unsigned int n, k, done = 0;
	uint32_t head, cqe;

	if (q->hs != NULL) {
		while ((n = rte_pmd_ernic_hs_poll_cq(q->hs, c, 16)) > 0) {
			for (k = 0; k < n; k++) {
				q->last_status = c[k].status;
				if (c[k].status != 0)
					q->errors++;
			}
			done += n;
		}
	} else {
		head = __atomic_load_n(q->cqdb, __ATOMIC_ACQUIRE) %
			CLI_HS_SQ_DEPTH;
		while (q->cqidx != head) {
			cqe = __atomic_load_n(&q->cq[q->cqidx],
					      __ATOMIC_ACQUIRE);
			q->last_status = (uint8_t)(cqe >> 24);
			if (q->last_status != 0)
				q->errors++;
			q->cqidx = (q->cqidx + 1) % CLI_HS_SQ_DEPTH;
			done++;
		}
	}
	q->completed += done;
	return done;
}

static uint64_t
hs_outstanding(const struct hs_qp *q)
{
	return q->posted - q->completed;
}

/* Post one WQE of @p op; -ENOSPC when the queue is full. */
static int
hs_post_one(struct hs_qp *q, uint8_t op, uint32_t size)
{
	struct rte_pmd_ernic_wqe w;
	uint8_t *buf = hs_ports[q->port].buf;

	memset(&w, 0, sizeof(w));
	w.wrid = q->wrid++;
	w.opcode = op;
	w.length = size;
	if (op == RTE_PMD_ERNIC_OP_READ) {
		/* the peer's first half into our second half */
		w.laddr = (uintptr_t)(buf + CLI_HS_BUF / 2);
		w.raddr = CLI_HS_VA;
	} else {
		w.laddr = (uintptr_t)buf;
		w.raddr = CLI_HS_VA + CLI_HS_BUF / 2;
	}
	w.rkey = op == RTE_PMD_ERNIC_OP_SEND ? 0 : CLI_HS_RKEY;
	if (q->hs != NULL) {
		if (rte_pmd_ernic_hs_post(q->hs, &w) != 0)
			return -ENOSPC;
	} else {
		if (hs_outstanding(q) >= CLI_HS_SQ_DEPTH - 1)
			return -ENOSPC;
		memcpy(q->sq + q->sqpi * 64, &w, sizeof(w));
		q->sqpi = (q->sqpi + 1) % CLI_HS_SQ_DEPTH;
		if (regw(q->port, "SQPI", q->qpn, q->sqpi) != 0)
			return -EIO;
	}
	q->posted++;
	return 0;
}

static uint8_t
op_code(const char *op)
{
	return strcmp(op, "write") == 0 ? RTE_PMD_ERNIC_OP_WRITE :
		strcmp(op, "send") == 0 ? RTE_PMD_ERNIC_OP_SEND :
		RTE_PMD_ERNIC_OP_READ;
}

static bool
hs_size_ok(struct cmdline *cl, const char *op, uint32_t size)
{
	uint32_t max = strcmp(op, "send") == 0 ?
		CLI_HS_RQ_BUF - RTE_PMD_ERNIC_RQ_DESC_LEN : CLI_HS_BUF / 2;

	if (size == 0 || size > max) {
		cmdline_printf(cl, "bad size %u: expected 1..%u for %s (%s)\n",
			       size, max, op, strcmp(op, "send") == 0 ?
			       "the peer's RQ buffer minus its 16-byte descriptor" :
			       "half of the 1 MB buffer");
		return false;
	}
	return true;
}

/* ---- qp handshake <port> <qpn> on|off --------------------------------- */

struct cmd_hs_mode {
	cmdline_fixed_string_t qp;
	cmdline_fixed_string_t hs;
	uint16_t port;
	uint16_t qpn;
	cmdline_fixed_string_t onoff;
};

static void
cmd_hs_mode_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_hs_mode *r = res;
	struct hs_qp *q = hs_get(cl, r->port, r->qpn);
	uint32_t pending, conf;
	int ret = 0;

	(void)data;
	if (q == NULL)
		return;
	hs_poll_cq(q);
	if (hs_outstanding(q) != 0) {
		cmdline_printf(cl, "QP %u has %" PRIu64 " WQEs in flight: wait for them (hs post waits)\n",
			       q->qpn, hs_outstanding(q));
		return;
	}
	conf = regr(q->port, "QPCONF", q->qpn);
	if (strcmp(r->onoff, "off") == 0) {
		if (q->hs == NULL) {
			cmdline_printf(cl, "QP %u is in register mode already\n",
				       q->qpn);
			return;
		}
		ret = regw(q->port, "QPCONF", q->qpn, conf | HS_QPC_HS_DIS);
		if (ret == 0) {
			q->hs = NULL;
			/* the doorbells go on from where the engine is */
			q->sqpi = regr(q->port, "CQHEAD", q->qpn) & 0xffff;
			q->cqidx = q->sqpi;
			q->completed = q->posted;
			q->rqci = regr(q->port, "RQCI", q->qpn);
		}
	} else {
		if (q->hs != NULL) {
			cmdline_printf(cl, "QP %u is in handshake mode already\n",
				       q->qpn);
			return;
		}
		hs_rq_service();
		/* PG332: the RQ buffers not returned yet stay pending */
		pending = (__atomic_load_n(q->rqdb, __ATOMIC_ACQUIRE) +
			   CLI_HS_RQ_DEPTH - q->rqci) % CLI_HS_RQ_DEPTH;
		ret = regw(q->port, "XRNICADCONF", 0, HS_ADCONF_OVERRIDE);
		ret |= regw(q->port, "SQPI", q->qpn, 0);
		ret |= regw(q->port, "CQHEAD", q->qpn, 0);
		ret |= regw(q->port, "STATCURSQPTR", q->qpn, 0);
		ret |= regw(q->port, "STATRQPIDB", q->qpn, pending & 0xffff);
		ret |= regw(q->port, "QPCONF", q->qpn, conf & ~HS_QPC_HS_DIS);
		ret |= regw(q->port, "XRNICADCONF", 0, 0);
		if (ret == 0)
			ret = rte_pmd_ernic_hs_attach(q->port, q->qpn, &q->hs);
		if (ret == 0) {
			q->sqpi = 0;
			q->completed = q->posted;
		} else {
			q->hs = NULL;
		}
	}
	if (ret != 0)
		cmdline_printf(cl, "QP %u: the handshake %s sequence failed: %s (see reg dump %u)\n",
			       q->qpn, r->onoff, strerror(ret < 0 ? -ret : EIO),
			       q->qpn);
	else
		cmdline_printf(cl, "port %u QP %u: %s\n", q->port, q->qpn,
			       q->hs != NULL ?
			       "hardware handshake mode (QPCONF[4] = 0): WQEs, completions and RQ updates through the handshake port" :
			       "register mode (SQPI/RQCI doorbells)");
}

static cmdline_parse_token_string_t cmd_hs_mode_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_mode, qp, "qp");
static cmdline_parse_token_string_t cmd_hs_mode_hs =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_mode, hs, "handshake");
static cmdline_parse_token_num_t cmd_hs_mode_port =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_mode, port, RTE_UINT16);
static cmdline_parse_token_num_t cmd_hs_mode_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_mode, qpn, RTE_UINT16);
static cmdline_parse_token_string_t cmd_hs_mode_onoff =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_mode, onoff, "on#off");

static cmdline_parse_inst_t cmd_hs_mode = {
	.f = cmd_hs_mode_parsed,
	.data = &cli_state,
	.help_str = "qp handshake <port> <qpn> on|off: hardware handshake mode of an ERNIC QP",
	.tokens = { (void *)&cmd_hs_mode_qp, (void *)&cmd_hs_mode_hs,
		    (void *)&cmd_hs_mode_port, (void *)&cmd_hs_mode_qpn,
		    (void *)&cmd_hs_mode_onoff, NULL },
};

/* ---- hs post / hs bench ------------------------------------------------ */

struct cmd_hs_io {
	cmdline_fixed_string_t hs;
	cmdline_fixed_string_t what;
	uint16_t port;
	uint16_t qpn;
	cmdline_fixed_string_t op;
	uint32_t size;
	uint32_t count;
};

/* A local ERNIC QP at the other end of @p q, if the peer is in this process. */
static struct hs_qp *
hs_peer(const struct hs_qp *q)
{
	unsigned int i;

	for (i = 0; i < CLI_HS_MAX_QP; i++)
		if (hs_qps[i].used && hs_qps[i].port != q->port &&
		    hs_qps[i].qpn == q->dqpn && hs_qps[i].dqpn == q->qpn)
			return &hs_qps[i];
	return NULL;
}

static void
hs_run(struct cmdline *cl, struct cmd_hs_io *r, bool bench)
{
	struct hs_qp *q = hs_get(cl, r->port, r->qpn), *peer;
	uint64_t t0, t1, end, count, posted = 0, rx0 = 0, rd0, wr0, rd1, wr1;
	uint8_t op = op_code(r->op), *buf;
	double s;
	uint32_t i;

	if (q == NULL || !hs_size_ok(cl, r->op, r->size))
		return;
	count = bench || r->count != 0 ? r->count : 1;
	if (count == 0 || count > 100000000) {
		cmdline_printf(cl, "bad count %u: expected 1..100000000\n",
			       r->count);
		return;
	}
	buf = hs_ports[q->port].buf;
	for (i = 0; i < r->size && i < CLI_HS_BUF / 2; i++)
		buf[i] = (uint8_t)(q->wrid + i * 7);
	peer = hs_peer(q);
	if (peer != NULL)
		rx0 = peer->rx_bufs;
	hs_poll_cq(q);
	q->errors = 0;
	rd0 = rte_pmd_ernic_reg_counter(q->port, RTE_PMD_ERNIC_RCNT_READS);
	wr0 = rte_pmd_ernic_reg_counter(q->port, RTE_PMD_ERNIC_RCNT_WRITES);
	t0 = rte_get_tsc_cycles();
	end = t0 + 10 * rte_get_tsc_hz() + count * rte_get_tsc_hz() / 10000;
	q->completed = q->posted - hs_outstanding(q);
	while ((posted < count || hs_outstanding(q) != 0) &&
	       rte_get_tsc_cycles() < end) {
		while (posted < count && hs_post_one(q, op, r->size) == 0)
			posted++;
		cli_poll_ports(NULL);
		hs_poll_cq(q);
		hs_rq_service();
	}
	t1 = rte_get_tsc_cycles();
	rd1 = rte_pmd_ernic_reg_counter(q->port, RTE_PMD_ERNIC_RCNT_READS);
	wr1 = rte_pmd_ernic_reg_counter(q->port, RTE_PMD_ERNIC_RCNT_WRITES);
	/* the receiver may still be taking the last SENDs */
	for (i = 0; peer != NULL && op == RTE_PMD_ERNIC_OP_SEND &&
	     peer->rx_bufs - rx0 < posted && i < 100000; i++) {
		cli_poll_ports(NULL);
		hs_rq_service();
	}
	s = (double)(t1 - t0) / (double)rte_get_tsc_hz();
	cmdline_printf(cl, "port %u QP %u (%s mode): %" PRIu64 " %s WQE(s) of %u B posted, %" PRIu64 " completed, %" PRIu64 " in error (last status %u)\n",
		       q->port, q->qpn, q->hs != NULL ? "handshake" : "register",
		       posted, r->op, r->size,
		       posted - hs_outstanding(q), q->errors, q->last_status);
	if (hs_outstanding(q) != 0)
		cmdline_printf(cl, "  %" PRIu64 " WQE(s) did not complete within the time limit\n",
			       hs_outstanding(q));
	cmdline_printf(cl, "  register accesses on port %u meanwhile: %" PRIu64 " reads, %" PRIu64 " writes\n",
		       q->port, rd1 - rd0, wr1 - wr0);
	if (peer != NULL && op == RTE_PMD_ERNIC_OP_SEND)
		cmdline_printf(cl, "  peer port %u QP %u received %" PRIu64 " RQ buffer(s)\n",
			       peer->port, peer->qpn, peer->rx_bufs - rx0);
	if (peer != NULL && op != RTE_PMD_ERNIC_OP_SEND) {
		const uint8_t *a = op == RTE_PMD_ERNIC_OP_WRITE ? buf :
			hs_ports[peer->port].buf;
		const uint8_t *b = op == RTE_PMD_ERNIC_OP_WRITE ?
			hs_ports[peer->port].buf + CLI_HS_BUF / 2 :
			buf + CLI_HS_BUF / 2;

		cmdline_printf(cl, "  data check against port %u's buffer: %s\n",
			       peer->port, memcmp(a, b, r->size) == 0 ?
			       "ok" : "MISMATCH");
	}
	if (bench && s > 0)
		cmdline_printf(cl, "  %.3f s, %.2f MB/sec, %.6f Mpps\n", s,
			       (double)(posted - hs_outstanding(q)) * r->size /
			       s / (1024. * 1024.),
			       (double)(posted - hs_outstanding(q)) / s / 1e6);
}

static void
cmd_hs_post_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)data;
	hs_run(cl, res, false);
}

static void
cmd_hs_bench_parsed(void *res, struct cmdline *cl, void *data)
{
	(void)data;
	hs_run(cl, res, true);
}

static cmdline_parse_token_string_t cmd_hs_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_io, hs, "hs");
static cmdline_parse_token_string_t cmd_hs_post_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_io, what, "post");
static cmdline_parse_token_string_t cmd_hs_bench_tok =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_io, what, "bench");
static cmdline_parse_token_num_t cmd_hs_port =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_io, port, RTE_UINT16);
static cmdline_parse_token_num_t cmd_hs_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_io, qpn, RTE_UINT16);
static cmdline_parse_token_string_t cmd_hs_op =
	TOKEN_STRING_INITIALIZER(struct cmd_hs_io, op, "write#send#read");
static cmdline_parse_token_num_t cmd_hs_size =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_io, size, RTE_UINT32);
static cmdline_parse_token_num_t cmd_hs_count =
	TOKEN_NUM_INITIALIZER(struct cmd_hs_io, count, RTE_UINT32);

static cmdline_parse_inst_t cmd_hs_post = {
	.f = cmd_hs_post_parsed,
	.data = &cli_state,
	.help_str = "hs post <port> <qpn> write|send|read <size>: one WQE, wait for its completion",
	.tokens = { (void *)&cmd_hs_tok, (void *)&cmd_hs_post_tok,
		    (void *)&cmd_hs_port, (void *)&cmd_hs_qpn,
		    (void *)&cmd_hs_op, (void *)&cmd_hs_size, NULL },
};

static cmdline_parse_inst_t cmd_hs_post_n = {
	.f = cmd_hs_post_parsed,
	.data = &cli_state,
	.help_str = "hs post <port> <qpn> write|send|read <size> <count>: count WQEs",
	.tokens = { (void *)&cmd_hs_tok, (void *)&cmd_hs_post_tok,
		    (void *)&cmd_hs_port, (void *)&cmd_hs_qpn,
		    (void *)&cmd_hs_op, (void *)&cmd_hs_size,
		    (void *)&cmd_hs_count, NULL },
};

static cmdline_parse_inst_t cmd_hs_bench = {
	.f = cmd_hs_bench_parsed,
	.data = &cli_state,
	.help_str = "hs bench <port> <qpn> write|send|read <size> <count>: keep the queue full, MB/s and Mpps",
	.tokens = { (void *)&cmd_hs_tok, (void *)&cmd_hs_bench_tok,
		    (void *)&cmd_hs_port, (void *)&cmd_hs_qpn,
		    (void *)&cmd_hs_op, (void *)&cmd_hs_size,
		    (void *)&cmd_hs_count, NULL },
};

/* ---- show ernic qp <port> <qpn> ----------------------------------------- */

struct cmd_show_ernic {
	cmdline_fixed_string_t show;
	cmdline_fixed_string_t ernic;
	cmdline_fixed_string_t qp;
	uint16_t port;
	uint16_t qpn;
};

static void
cmd_show_ernic_parsed(void *res, struct cmdline *cl, void *data)
{
	struct cmd_show_ernic *r = res;
	struct hs_qp *q = hs_get(cl, r->port, r->qpn);
	uint32_t statqp;

	(void)data;
	if (q == NULL)
		return;
	hs_poll_cq(q);
	statqp = regr(q->port, "STATQP", q->qpn);
	cmdline_printf(cl, "port %u QP %u -> QP %u: %s mode, QPCONF 0x%08x, STATQP 0x%08x%s\n"
		       "  posted %" PRIu64 ", completed %" PRIu64 ", CQHEAD %u, RQ buffers received %" PRIu64 " (%" PRIu64 " bytes)\n",
		       q->port, q->qpn, q->dqpn,
		       q->hs != NULL ? "hardware handshake" : "register",
		       regr(q->port, "QPCONF", q->qpn), statqp,
		       statqp & HS_STATQP_FATAL ? " (fatal)" : "", q->posted,
		       q->completed, regr(q->port, "CQHEAD", q->qpn) & 0xffff,
		       q->rx_bufs, q->rx_bytes);
	if (q->hs != NULL)
		cmdline_printf(cl, "  handshake port: sq_prod %u sq_cons %u cq_prod %u cq_cons %u rq_prod %u rq_cons %u, posts refused (full) %" PRIu64 "\n",
			       q->hs->sq_prod, q->hs->sq_cons, q->hs->cq_prod,
			       q->hs->cq_cons, q->hs->rq_prod, q->hs->rq_cons,
			       q->hs->post_full);
}

static cmdline_parse_token_string_t cmd_show_ernic_show =
	TOKEN_STRING_INITIALIZER(struct cmd_show_ernic, show, "show");
static cmdline_parse_token_string_t cmd_show_ernic_ernic =
	TOKEN_STRING_INITIALIZER(struct cmd_show_ernic, ernic, "ernic");
static cmdline_parse_token_string_t cmd_show_ernic_qp =
	TOKEN_STRING_INITIALIZER(struct cmd_show_ernic, qp, "qp");
static cmdline_parse_token_num_t cmd_show_ernic_port =
	TOKEN_NUM_INITIALIZER(struct cmd_show_ernic, port, RTE_UINT16);
static cmdline_parse_token_num_t cmd_show_ernic_qpn =
	TOKEN_NUM_INITIALIZER(struct cmd_show_ernic, qpn, RTE_UINT16);

static cmdline_parse_inst_t cmd_show_ernic = {
	.f = cmd_show_ernic_parsed,
	.data = &cli_state,
	.help_str = "show ernic qp <port> <qpn>: mode, indexes and status of an ERNIC QP",
	.tokens = { (void *)&cmd_show_ernic_show, (void *)&cmd_show_ernic_ernic,
		    (void *)&cmd_show_ernic_qp, (void *)&cmd_show_ernic_port,
		    (void *)&cmd_show_ernic_qpn, NULL },
};

void
cli_hs_cleanup(struct cli_state *st)
{
	unsigned int i;
	uint32_t conf;

	(void)st;
	for (i = 0; i < CLI_HS_MAX_QP; i++) {
		struct hs_qp *q = &hs_qps[i];

		if (!q->used)
			continue;
		/* PG332 deletion: QPCONF[0] 1 -> 0 destroys the QP */
		conf = regr(q->port, "QPCONF", q->qpn);
		if (regw(q->port, "QPCONF", q->qpn, conf & ~HS_QPC_EN) == 0)
			hs_qp_free(q);
		/* else: the engine may still use the queues; keep them */
	}
}

cmdline_parse_inst_t *cli_hs_cmds[] = {
	&cmd_ernic_qp,
	&cmd_hs_mode,
	&cmd_hs_post,
	&cmd_hs_post_n,
	&cmd_hs_bench,
	&cmd_show_ernic,
	NULL,
};
