/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send_lat: perftest ib_send_lat (run_iter_lat_send()). SEND ping-pong:
 * the client sends first, each side sends its next message when the
 * peer's has arrived; receives are reposted while more are expected.
 * Latency = half the round trip.
 */
#include <string.h>

#include "../bench.h"

static void
send_lat_setup_wr(struct bench *b, uint32_t i, uint64_t size)
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
send_lat_iter(struct bench *b)
{
	const struct app_opts *o = b->o;
	uint64_t iters = o->duration != 0 ? UINT64_MAX : o->iters;
	uint64_t scnt = 0, rcnt = 0, start = bench_now();
	struct roce_send_wr wr;
	struct roce_wc wc;
	unsigned int posted;
	int ret;

	send_lat_setup_wr(b, 0, b->size);
	b->tposted[0] = start;
	while (scnt < iters || rcnt < iters) {
		if (bench_lat_time_up(b, start))
			break;
		/* the server waits first: the client sends first */
		if (rcnt < iters && !(scnt < 1 && !b->server)) {
			ret = bench_wait_cq(b, b->rcq, &wc);
			if (ret != 0) {
				bench_wc_error(b, "receive", &wc);
				return ret;
			}
			rcnt++;
			if (o->duration != 0 || rcnt + o->rx_depth <= iters) {
				ret = bench_post_recvs(b, 0, 1, b->size);
				if (ret != 0)
					return ret;
			}
		}
		if (scnt < iters) {
			if (o->duration == 0)
				b->tposted[scnt] = bench_now();
			scnt++;
			wr = b->wr[0];
			/* one completion every cq_mod sends, and the last */
			if (scnt % o->cq_mod == 0 ||
			    (o->duration == 0 && scnt == iters))
				wr.send_flags |= ROCE_SEND_SIGNALED;
			ret = roce_post_send(b->qp[0], &wr, 1, &posted);
			if (ret != 0) {
				BENCH_ERR(b, "Couldn't post send: scnt=%lu\n",
					  (unsigned long)scnt);
				return ret;
			}
			if (wr.send_flags & ROCE_SEND_SIGNALED) {
				ret = bench_wait_cq(b, b->scq, &wc);
				if (ret != 0) {
					bench_wc_error(b, "send", &wc);
					return ret;
				}
			}
		}
	}
	b->tcompleted[0] = bench_now();
	bench_print_lat(b, o->duration != 0 ? scnt : o->iters, 2);
	return 0;
}

static int
send_lat_run(struct bench *b)
{
	uint64_t size = bench_first_size(b);
	int ret;

	ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, true);
	if (ret == 0)
		ret = bench_hs(b, 0);
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	if (ret != 0)
		return ret;
	report_lat_title(b->out, b->o->duration != 0);
	do {
		b->size = size;
		/* ctx_set_recv_wqes(), then sync so the client cannot
		 * send before the receives are there */
		ret = bench_post_recvs(b, 0, b->o->rx_depth, size);
		if (ret == 0)
			ret = bench_hs(b, 0);
		if (ret == 0)
			ret = send_lat_iter(b);
		if (ret != 0)
			return ret;
	} while (bench_next_size(b, &size));
	fputs(REPORT_LINE, b->out);
	return bench_close(b);
}

const struct ernic_mode ernic_mode_send_lat = {
	.name = "send_lat",
	.kind = APP_KIND_LAT,
	.opcode = ROCE_WR_SEND,
	.setup_wr = send_lat_setup_wr,
	.run_client = send_lat_run,
	.run_server = send_lat_run,
};
