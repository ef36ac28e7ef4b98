/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write_lat: perftest ib_write_lat (run_iter_lat_write()). Both sides
 * RDMA WRITE a message whose last byte carries the iteration number into
 * the peer's buffer and spin on their own buffer's last byte for the
 * peer's write; the server writes first. Latency = half the round trip.
 * As in perftest, there is no closing handshake in this test.
 */
#include <string.h>

#include "../bench.h"

static void
write_lat_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = ROCE_WR_RDMA_WRITE;
	wr->send_flags = ROCE_SEND_SIGNALED;
	if (size <= (uint64_t)b->o->inline_size)
		wr->send_flags |= ROCE_SEND_INLINE;
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	wr->rdma.remote_addr = b->rem[i].vaddr;
	wr->rdma.rkey = b->rem[i].rkey;
}

static int
write_lat_iter(struct bench *b)
{
	const struct app_opts *o = b->o;
	uint64_t iters = o->duration != 0 ? UINT64_MAX : o->iters;
	volatile uint8_t *post_buf = b->buf + b->size - 1;
	volatile uint8_t *poll_buf = b->buf + b->nqps * b->qp_buf +
		b->size - 1;
	uint64_t scnt = 0, ccnt = 0, rcnt = 0, start = bench_now();
	struct roce_wc wc;
	unsigned int posted;
	int ret;

	write_lat_setup_wr(b, 0, b->size);
	/*
	 * Only our own byte is cleared here: the peer's first WRITE may
	 * already be in our buffer (the server writes as soon as it passes
	 * the last handshake), so the receive area is cleared before that
	 * handshake (write_lat_run()), and a later size polls a byte no
	 * smaller size wrote.
	 */
	*post_buf = 0;
	b->tposted[0] = start;
	while (scnt < iters || ccnt < iters || rcnt < iters) {
		if (bench_lat_time_up(b, start))
			break;
		/* the client waits first: the server writes first */
		if (rcnt < iters && !(scnt < 1 && b->server)) {
			rcnt++;
			while (*poll_buf != (uint8_t)rcnt) {
				if (*b->quit)
					return -EINTR;
				bench_progress(b);
			}
		}
		if (scnt < iters) {
			if (o->duration == 0)
				b->tposted[scnt] = bench_now();
			*post_buf = (uint8_t)++scnt;
			ret = roce_post_send(b->qp[0], &b->wr[0], 1, &posted);
			if (ret != 0) {
				BENCH_ERR(b, "Couldn't post send: scnt=%lu\n",
					  (unsigned long)scnt);
				return ret;
			}
		}
		if (ccnt < iters) {
			ret = bench_wait_cq(b, b->scq, &wc);
			if (ret != 0) {
				bench_wc_error(b, "send", &wc);
				return ret;
			}
			ccnt++;
		}
	}
	b->tcompleted[0] = bench_now();
	bench_print_lat(b, o->duration != 0 ? ccnt : o->iters, 2);
	return 0;
}

static int
write_lat_run(struct bench *b)
{
	uint64_t size = bench_first_size(b);
	int ret;

	ret = bench_hs(b, 0);
	if (ret == 0)
		ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, true);
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	/* "An additional handshake is required after moving qp to RTR." */
	if (ret == 0) {
		/* before it: after it the peer may write at once */
		memset(b->buf + b->nqps * b->qp_buf, 0, b->nqps * b->qp_buf);
		ret = bench_hs(b, 0);
	}
	if (ret != 0)
		return ret;
	report_lat_title(b->out, b->o->duration != 0);
	do {
		b->size = size;
		ret = write_lat_iter(b);
		if (ret != 0)
			return ret;
	} while (bench_next_size(b, &size));
	fputs(REPORT_LINE, b->out);
	return 0;
}

const struct ernic_mode ernic_mode_write_lat = {
	.name = "write_lat",
	.kind = APP_KIND_LAT,
	.opcode = ROCE_WR_RDMA_WRITE,
	.setup_wr = write_lat_setup_wr,
	.run_client = write_lat_run,
	.run_server = write_lat_run,
};
