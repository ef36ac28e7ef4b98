/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integrity: a data-integrity check against the interop peer program
 * iop-integrity (test/interop/peer/iop_integrity.c) or another
 * ernic-testpmd. perftest and ibv_rc_pingpong never look at the bytes they
 * move; here the client RDMA WRITEs, RDMA READs and SENDs the messages of
 * integ_sizes[] (integrity_proto.h) and both sides check every byte of
 * their buffer against the seeded patterns and exchange FNV-1a checksums.
 *
 * Side channel (TCP, -p port, the client connects):
 *   1. perftest's 108-byte key message each way (client first): QPN, PSN,
 *      rkey and vaddr of the 3-area integrity buffer, GID.
 *   2. both sides move their QP to RTR/RTS (the server posted its receives
 *      for the SENDs before step 1), then exchange "ready" (128 bytes).
 *   3. the client: WRITEs into the server's area W, READs the server's
 *      area R into its own, SENDs from its area S; one at a time, each
 *      signaled. The server waits for the INTEG_NMSG receives, each of its
 *      message's length, in order.
 *   4. both exchange "fnv W=... R=... S=... bad=N" (128 bytes): each
 *      compares the other's checksums of the same bytes with its own.
 * Output: "integrity: PASS write=0x.. read=0x.. send=0x.." (or FAIL lines).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "../bench.h"
#include "../integrity_proto.h"
#include "../numa_buf.h"
#include "../port.h"

struct integ_sums {
	uint64_t w, r, s;
	int bad;
};

static int
integ_xchg_text(struct bench *b, const char *mine, char theirs[INTEG_MSG_LEN])
{
	char out[INTEG_MSG_LEN];
	int ret;

	memset(out, 0, sizeof(out));
	snprintf(out, sizeof(out), "%s", mine);
	ret = chan_xchg(&b->ch, out, theirs, INTEG_MSG_LEN);
	if (ret != 0) {
		BENCH_ERR(b, "integrity: side channel: %s\n", strerror(-ret));
		return ret;
	}
	theirs[INTEG_MSG_LEN - 1] = '\0';
	return 0;
}

static int
integ_post_recvs(struct bench *b, uint8_t *buf, struct roce_mr *mr)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;
	unsigned int posted;
	uint32_t k, off = 0;
	int ret;

	for (k = 0; k < INTEG_NMSG; k++) {
		sge.addr = (uintptr_t)(buf + INTEG_OFF_S + off);
		sge.length = integ_sizes[k];
		sge.lkey = roce_mr_lkey(mr);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = roce_post_recv(b->qp[0], &wr, 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "integrity: cannot post receive %u: %s\n",
				  k, strerror(-ret));
			return ret;
		}
		off += integ_sizes[k];
	}
	return 0;
}

/* The client's operations: every message of one opcode, one at a time. */
static int
integ_client_ops(struct bench *b, uint8_t *buf, struct roce_mr *mr,
		 enum roce_wr_opcode op, uint32_t area, const char *what)
{
	const struct perf_dest *r = &b->rem[0];
	uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz(), dt;
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	unsigned int posted;
	uint32_t k, off = 0;
	int ret;

	for (k = 0; k < INTEG_NMSG; k++) {
		sge.addr = (uintptr_t)(buf + area + off);
		sge.length = integ_sizes[k];
		sge.lkey = roce_mr_lkey(mr);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.opcode = op;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.rdma.remote_addr = r->vaddr + area + off;
		wr.rdma.rkey = r->rkey;
		ret = roce_post_send(b->qp[0], &wr, 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "integrity: cannot post %s of %u bytes: %s\n",
				  what, integ_sizes[k], strerror(-ret));
			return ret;
		}
		ret = bench_wait_cq(b, b->scq, &wc);
		if (ret != 0) {
			if (ret == -EIO)
				bench_wc_error(b, what, &wc);
			return ret;
		}
		if (wc.wr_id != k) {
			BENCH_ERR(b, "integrity: %s completion for wr_id %" PRIu64 ", expected %u\n",
				  what, wc.wr_id, k);
			return -EIO;
		}
		off += integ_sizes[k];
	}
	/* one message at a time: the goodput of a window of one message */
	dt = RTE_MAX(rte_get_timer_cycles() - t0, (uint64_t)1);
	fprintf(b->out, "integrity: %u %s messages done (%u bytes) in %.1f ms, %.2f MB/s\n",
		(unsigned int)INTEG_NMSG, what, (unsigned int)INTEG_TOTAL,
		1e3 * (double)dt / (double)hz,
		(double)INTEG_TOTAL * (double)hz / (double)dt / 1e6);
	return 0;
}

/* The recovery counters of the client's QP (its port's xstats). */
static void
integ_print_recovery(struct bench *b)
{
	static const char *const names[] = {
		"retrans_pkts", "timeouts", "gbn_retx_pkts", "sr_early_rounds",
		"sr_tail_probes",
	};
	char name[64];
	unsigned int i;

	fprintf(b->out, "integrity: recovery");
	for (i = 0; i < RTE_DIM(names); i++) {
		snprintf(name, sizeof(name), "qp%u_%s", roce_qp_num(b->qp[0]),
			 names[i]);
		fprintf(b->out, " %s=%" PRIu64, names[i],
			port_xstat(b->port_id, name));
	}
	fprintf(b->out, "\n");
}

static int
integ_server_recvs(struct bench *b)
{
	struct roce_wc wc;
	uint32_t k;
	int ret;

	for (k = 0; k < INTEG_NMSG; k++) {
		ret = bench_wait_cq(b, b->rcq, &wc);
		if (ret != 0) {
			if (ret == -EIO)
				bench_wc_error(b, "receive", &wc);
			return ret;
		}
		if (wc.wr_id != k || wc.byte_len != integ_sizes[k]) {
			BENCH_ERR(b, "integrity: receive %u: wr_id %" PRIu64 ", %u bytes (expected %u)\n",
				  k, wc.wr_id, wc.byte_len, integ_sizes[k]);
			return -EIO;
		}
	}
	fprintf(b->out, "integrity: %u SEND messages received (%u bytes)\n",
		(unsigned int)INTEG_NMSG, (unsigned int)INTEG_TOTAL);
	return 0;
}

/* Check the areas this side received into, checksum all three. */
static void
integ_verify(struct bench *b, const uint8_t *buf, struct integ_sums *s)
{
	static const char *const names[] = { "WRITE", "READ", "SEND" };
	static const uint32_t seeds[] = {
		INTEG_SEED_W, INTEG_SEED_R, INTEG_SEED_S,
	};
	int64_t at;
	unsigned int a;
	bool dest;

	s->bad = 0;
	for (a = 0; a < 3; a++) {
		/* the client receives only READ data, the server the rest;
		 * the source areas must be intact too */
		dest = b->server ? a != 1 : a == 1;
		at = integ_check(buf + a * INTEG_AREA, seeds[a]);
		if (at >= 0) {
			fprintf(b->out, "integrity: FAIL: %s area (%s) byte %" PRId64 " is 0x%02x, expected 0x%02x\n",
				names[a], dest ? "received" : "source", at,
				buf[a * INTEG_AREA + at],
				at < INTEG_TOTAL ?
				integ_pattern(seeds[a], (uint32_t)at) :
				INTEG_FILL);
			s->bad++;
		}
	}
	s->w = integ_fnv1a64(buf + INTEG_OFF_W, INTEG_TOTAL);
	s->r = integ_fnv1a64(buf + INTEG_OFF_R, INTEG_TOTAL);
	s->s = integ_fnv1a64(buf + INTEG_OFF_S, INTEG_TOTAL);
	fprintf(b->out, "integrity: local fnv1a64 write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 " bad=%d\n",
		s->w, s->r, s->s, s->bad);
}

static int
integ_run(struct bench *b)
{
	char mine[PERF_KEY_MSG_LEN], theirs[PERF_KEY_MSG_LEN];
	char txt[INTEG_MSG_LEN], rtxt[INTEG_MSG_LEN];
	struct integ_sums s, rs;
	struct roce_mr *mr = NULL;
	uint8_t *buf;
	int ret, n;

	b->mtu_code = b->o->mtu != 0 ?
		(unsigned int)rte_log2_u32(b->o->mtu) - 7 :
		RTE_MIN(b->port_mtu_code, (unsigned int)ROCE_MTU_1024);
	buf = numa_buf_alloc(b->port_id, 0, INTEG_BUF, NULL);
	if (buf == NULL) {
		BENCH_ERR(b, "integrity: cannot allocate %u bytes\n",
			  (unsigned int)INTEG_BUF);
		return -ENOMEM;
	}
	memset(buf, INTEG_FILL, INTEG_BUF);
	if (b->server) {
		integ_fill(buf + INTEG_OFF_R, INTEG_TOTAL, INTEG_SEED_R);
	} else {
		integ_fill(buf + INTEG_OFF_W, INTEG_TOTAL, INTEG_SEED_W);
		integ_fill(buf + INTEG_OFF_S, INTEG_TOTAL, INTEG_SEED_S);
	}
	mr = roce_reg_mr(b->pd, buf, INTEG_BUF, ROCE_ACCESS_LOCAL_WRITE |
			 ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ);
	if (mr == NULL) {
		BENCH_ERR(b, "integrity: roce_reg_mr: %s\n",
			  rte_strerror(rte_errno));
		ret = -rte_errno;
		goto out;
	}
	b->my[0].out_reads = 1;
	b->my[0].rkey = roce_mr_rkey(mr);
	b->my[0].vaddr = (uintptr_t)buf;
	if (b->server) {
		ret = integ_post_recvs(b, buf, mr);
		if (ret != 0)
			goto out;
	}
	ret = perf_key_format(&b->my[0], mine);
	if (ret == 0)
		ret = chan_xchg(&b->ch, mine, theirs, sizeof(mine));
	if (ret == 0 && perf_key_parse(theirs, &b->rem[0]) != 0) {
		BENCH_ERR(b, "integrity: cannot parse the key message <%.*s>\n",
			  (int)sizeof(theirs), theirs);
		ret = -EPROTO;
	}
	if (ret == 0)
		ret = bench_connect(b, true);
	if (ret == 0)
		ret = integ_xchg_text(b, "ready", rtxt);
	if (ret != 0)
		goto out;
	fprintf(b->out, "integrity: local QPN 0x%06x, remote QPN 0x%06x rkey 0x%08x vaddr 0x%016" PRIx64 ", path MTU %u, %u messages of",
		b->my[0].qpn, b->rem[0].qpn, b->rem[0].rkey, b->rem[0].vaddr,
		roce_mtu_bytes(b->mtu_code), (unsigned int)INTEG_NMSG);
	for (n = 0; n < INTEG_NMSG; n++)
		fprintf(b->out, " %u", integ_sizes[n]);
	fprintf(b->out, " bytes per verb\n");
	fflush(b->out);

	if (b->server) {
		ret = integ_server_recvs(b);
	} else {
		ret = integ_client_ops(b, buf, mr, ROCE_WR_RDMA_WRITE,
				       INTEG_OFF_W, "WRITE");
		if (ret == 0)
			ret = integ_client_ops(b, buf, mr, ROCE_WR_RDMA_READ,
					       INTEG_OFF_R, "READ");
		if (ret == 0)
			ret = integ_client_ops(b, buf, mr, ROCE_WR_SEND,
					       INTEG_OFF_S, "SEND");
		integ_print_recovery(b);
	}
	if (ret != 0)
		goto out;
	integ_verify(b, buf, &s);
	snprintf(txt, sizeof(txt), "fnv W=%016" PRIx64 " R=%016" PRIx64 " S=%016" PRIx64 " bad=%d",
		 s.w, s.r, s.s, s.bad);
	ret = integ_xchg_text(b, txt, rtxt);
	if (ret != 0)
		goto out;
	memset(&rs, 0, sizeof(rs));
	if (sscanf(rtxt, "fnv W=%" SCNx64 " R=%" SCNx64 " S=%" SCNx64 " bad=%d",
		   &rs.w, &rs.r, &rs.s, &rs.bad) != 4) {
		BENCH_ERR(b, "integrity: bad checksum message <%s>\n", rtxt);
		ret = -EPROTO;
		goto out;
	}
	fprintf(b->out, "integrity: peer  fnv1a64 write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 " bad=%d\n",
		rs.w, rs.r, rs.s, rs.bad);
	if (s.bad != 0 || rs.bad != 0 || s.w != rs.w || s.r != rs.r ||
	    s.s != rs.s) {
		fprintf(b->out, "integrity: FAIL: %d bad areas here, %d at the peer, checksums %s\n",
			s.bad, rs.bad, s.w == rs.w && s.r == rs.r &&
			s.s == rs.s ? "agree" : "differ");
		ret = -EIO;
	} else {
		fprintf(b->out, "integrity: PASS write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 "\n",
			s.w, s.r, s.s);
	}
	chan_close(&b->ch);
out:
	fflush(b->out);
	if (mr != NULL && bench_dereg_mr(b, mr) != 0)
		buf = NULL;	/* still read by queued frames */
	numa_buf_free(buf);
	return ret;
}

const struct ernic_mode ernic_mode_integrity = {
	.name = "integrity",
	.kind = APP_KIND_PINGPONG,
	.opcode = ROCE_WR_RDMA_WRITE,
	.setup_wr = NULL,
	.run_client = integ_run,
	.run_server = integ_run,
};
