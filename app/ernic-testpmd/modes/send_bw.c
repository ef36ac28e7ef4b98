/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send_bw: perftest ib_send_bw. The client SENDs, the server keeps -r
 * receives posted and measures from its first receive (no peak); each
 * side prints its own result. With -b both sides send and receive and
 * the reports are exchanged and summed. Sequence of perftest send_bw.c:
 * keys, connect, handshake, addresses, then per size: post receives,
 * handshake, run, report (and a handshake after each size with -a).
 */
#include <string.h>

#include "../bench.h"

static void
send_bw_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = ROCE_WR_SEND;
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	if (size <= (uint64_t)b->o->inline_size)
		wr->send_flags |= ROCE_SEND_INLINE;
}

static int
send_bw_size(struct bench *b, uint64_t size)
{
	const struct app_opts *o = b->o;
	struct perf_bw_report mine, theirs;
	bool sender = !b->server || o->bidir;
	bool receiver = b->server || o->bidir;
	uint32_t i;
	int ret;

	b->size = size;
	for (i = 0; sender && i < b->nqps; i++)
		send_bw_setup_wr(b, i, size);
	for (i = 0; receiver && i < b->nqps; i++) {
		ret = bench_post_recvs(b, i, o->rx_depth, size);
		if (ret != 0)
			return ret;
	}
	ret = bench_hs(b, 0);
	if (ret != 0)
		return ret;
	if (o->bidir) {
		/* run_iter_bi(): send while the progress loop reposts receives */
		b->refill_recv = true;
		ret = bench_bw_client_iter(b, &mine);
		/* the peer's last messages may still be arriving */
		while (ret == 0 && b->recv_done < o->iters * b->nqps &&
		       o->duration == 0 && !*b->quit)
			bench_progress(b);
		/* -D: the peer may still be sending (bench_bw_server_iter()) */
		b->refill_recv = o->duration != 0;
		b->recv_done = 0;
	} else if (sender) {
		ret = bench_bw_client_iter(b, &mine);
	} else {
		ret = bench_bw_server_iter(b, &mine);
	}
	if (ret != 0)
		return ret;
	/* each QP's last message landed in its receive area */
	if (o->check && receiver && bench_check_received(b, size) != 0)
		return -EIO;
	if (!o->bidir) {
		bench_print_bw(b, &mine);
	} else if (o->duration == 0) {
		ret = bench_xchg_report(b, &mine, &theirs);
		if (ret != 0)
			return ret;
		mine.bw_peak += theirs.bw_peak;
		mine.bw_avg += theirs.bw_avg;
		mine.msg_rate += theirs.msg_rate;
		bench_print_bw(b, &mine);
	} else {
		bench_print_bw(b, &mine);
	}
	if (o->all)
		ret = bench_hs(b, 0);
	return ret;
}

static int
send_bw_run(struct bench *b)
{
	uint64_t size = bench_first_size(b);
	int ret;

	ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, !b->server || b->o->bidir);
	if (ret == 0)
		ret = bench_hs(b, 0);
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	if (ret != 0)
		return ret;
	report_bw_title(b->out, b->o->report_gbits);
	do {
		ret = send_bw_size(b, size);
		if (ret != 0)
			return ret;
	} while (bench_next_size(b, &size));
	fputs(REPORT_LINE, b->out);
	return bench_close(b);
}

const struct ernic_mode ernic_mode_send_bw = {
	.name = "send_bw",
	.kind = APP_KIND_BW,
	.opcode = ROCE_WR_SEND,
	.setup_wr = send_bw_setup_wr,
	.run_client = send_bw_run,
	.run_server = send_bw_run,
};
