/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pingpong: rdma-core's ibv_rc_pingpong (libibverbs/examples/rc_pingpong.c).
 * 52-byte exchange "LLLL:QQQQQQ:PPPPPP:<32 hex GID digits>"; the server
 * connects its QP before answering, the client after, then sends "done".
 * Each side keeps -r receives posted; the client sends first and each side
 * sends again when both its last send and the peer's message completed.
 */
#include <inttypes.h>
#include <string.h>

#include "../bench.h"
#include "../events.h"
#include "../port.h"

enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

static void
pp_print_dest(struct bench *b, bool remote, const struct perf_dest *d)
{
	union roce_gid g;
	char gs[64];

	memcpy(g.raw, d->gid, 16);
	port_gid_str(&g, gs, sizeof(gs));
	fprintf(b->out, "  %s address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n",
		remote ? "remote" : "local ", d->lid, d->qpn, d->psn, gs);
}

static int
pp_post_recvs(struct bench *b, uint32_t n)
{
	struct roce_recv_wr wr;
	struct roce_sge sge;
	unsigned int posted;
	int ret;

	sge.addr = (uintptr_t)b->buf;
	sge.length = (uint32_t)b->o->size;
	sge.lkey = roce_mr_lkey(b->mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PP_RECV_WRID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	while (n-- > 0) {
		ret = roce_post_recv(b->qp[0], &wr, 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "Couldn't post receive: %s\n",
				  strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int
pp_exchange(struct bench *b)
{
	char mine[PP_MSG_LEN], theirs[PP_MSG_LEN], done[PERF_DONE_LEN];
	struct perf_dest *r = &b->rem[0];
	int ret;

	ret = pp_msg_format(0, b->my[0].qpn, b->my[0].psn, b->my[0].gid,
			    mine);
	if (ret != 0)
		return ret;
	if (!b->server) {
		/* pp_client_exch_dest() */
		ret = chan_write(&b->ch, mine, sizeof(mine));
		if (ret == 0)
			ret = chan_read(&b->ch, theirs, sizeof(theirs));
		if (ret == 0 && pp_msg_parse(theirs, &r->lid, &r->qpn, &r->psn,
					     r->gid) != 0)
			ret = -EPROTO;
		if (ret == 0)
			ret = chan_write(&b->ch, "done", PERF_DONE_LEN);
		if (ret == 0)
			ret = bench_connect(b, true);
	} else {
		/* pp_server_exch_dest(): connect, then answer */
		ret = chan_read(&b->ch, theirs, sizeof(theirs));
		if (ret == 0 && pp_msg_parse(theirs, &r->lid, &r->qpn, &r->psn,
					     r->gid) != 0)
			ret = -EPROTO;
		if (ret == 0)
			ret = bench_connect(b, true);
		if (ret == 0)
			ret = chan_write(&b->ch, mine, sizeof(mine));
		if (ret == 0)
			ret = chan_read(&b->ch, done, sizeof(done));
	}
	if (ret == -EPROTO)
		BENCH_ERR(b, "Couldn't read/parse remote address <%.*s>\n",
			  PP_MSG_LEN, theirs);
	chan_close(&b->ch);
	return ret;
}

static int
pp_run(struct bench *b)
{
	const struct app_opts *o = b->o;
	uint64_t rcnt = 0, scnt = 0, t0, t1, bytes;
	uint32_t routs = o->rx_depth, pending;
	struct roce_send_wr swr;
	struct roce_sge sge;
	struct roce_wc wc[2];
	unsigned int posted;
	double usec;
	int n, k, ret;

	b->size = o->size;
	/* rc_pingpong sends -m (default 1024), not the negotiated MTU */
	b->mtu_code = o->mtu != 0 ? (unsigned int)rte_log2_u32(o->mtu) - 7 :
		RTE_MIN(b->port_mtu_code, (unsigned int)ROCE_MTU_1024);
	b->my[0].out_reads = 1;
	ret = pp_post_recvs(b, routs);
	if (ret != 0)
		return ret;
	pp_print_dest(b, false, &b->my[0]);
	ret = pp_exchange(b);
	if (ret != 0)
		return ret;
	pp_print_dest(b, true, &b->rem[0]);

	sge.addr = (uintptr_t)b->buf;
	sge.length = (uint32_t)o->size;
	sge.lkey = roce_mr_lkey(b->mr);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = PP_SEND_WRID;
	swr.opcode = ROCE_WR_SEND;
	swr.send_flags = ROCE_SEND_SIGNALED;
	swr.sg_list = &sge;
	swr.num_sge = 1;

	pending = PP_RECV_WRID;
	if (!b->server) {
		ret = roce_post_send(b->qp[0], &swr, 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "Couldn't post send\n");
			return ret;
		}
		pending |= PP_SEND_WRID;
	}
	t0 = bench_now();
	while (rcnt < o->iters || scnt < o->iters) {
		if (*b->quit)
			return -EINTR;
		bench_progress(b);
		n = roce_poll_cq(b->scq, wc, 1);
		if (n == 0)
			n = roce_poll_cq(b->rcq, wc, 1);
		if (n < 0) {
			BENCH_ERR(b, "poll CQ failed %d\n", n);
			return n;
		}
		if (n == 0 && b->ev != NULL) {
			/* -e: rc_pingpong's ibv_get_cq_event() */
			ret = bench_events_wait(b);
			if (ret != 0)
				return ret;
		}
		for (k = 0; k < n; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS) {
				BENCH_ERR(b, "Failed status %d for wr_id %d\n",
					  wc[k].status, (int)wc[k].wr_id);
				return -EIO;
			}
			switch (wc[k].wr_id) {
			case PP_SEND_WRID:
				++scnt;
				break;
			case PP_RECV_WRID:
				if (--routs <= 1) {
					ret = pp_post_recvs(b, o->rx_depth -
							    routs);
					if (ret != 0)
						return ret;
					routs = o->rx_depth;
				}
				++rcnt;
				break;
			default:
				BENCH_ERR(b, "Completion for unknown wr_id %d\n",
					  (int)wc[k].wr_id);
				return -EIO;
			}
			pending &= ~(uint32_t)wc[k].wr_id;
			if (scnt < o->iters && pending == 0) {
				ret = roce_post_send(b->qp[0], &swr, 1,
						     &posted);
				if (ret != 0) {
					BENCH_ERR(b, "Couldn't post send\n");
					return ret;
				}
				pending = PP_RECV_WRID | PP_SEND_WRID;
			}
		}
	}
	t1 = bench_now();
	usec = (double)(t1 - t0) * 1e6 / (double)b->tsc_hz;
	bytes = o->size * o->iters * 2;
	fprintf(b->out, "%" PRIu64 " bytes in %.2f seconds = %.2f Mbit/sec\n",
		bytes, usec / 1000000., (double)bytes * 8. / usec);
	fprintf(b->out, "%" PRIu64 " iters in %.2f seconds = %.2f usec/iter\n",
		o->iters, usec / 1000000., usec / (double)o->iters);
	fflush(b->out);
	return 0;
}

const struct ernic_mode ernic_mode_pingpong = {
	.name = "pingpong",
	.kind = APP_KIND_PINGPONG,
	.opcode = ROCE_WR_SEND,
	.setup_wr = NULL,
	.run_client = pp_run,
	.run_server = pp_run,
};
