/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * read_lat: perftest ib_read_lat (run_iter_lat()). The client posts one
 * RDMA READ at a time and waits for its completion; the latency is the
 * time between posts (a READ is a full round trip). The server only takes
 * part in the handshakes.
 */
#include <string.h>

#include "../bench.h"

static void
read_lat_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = ROCE_WR_RDMA_READ;
	wr->send_flags = ROCE_SEND_SIGNALED;
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	wr->rdma.remote_addr = b->rem[i].vaddr;
	wr->rdma.rkey = b->rem[i].rkey;
}

static int
read_lat_iter(struct bench *b)
{
	const struct app_opts *o = b->o;
	uint64_t iters = o->duration != 0 ? UINT64_MAX : o->iters;
	uint64_t scnt = 0, start = bench_now();
	struct roce_wc wc;
	unsigned int posted;
	int ret;

	read_lat_setup_wr(b, 0, b->size);
	b->tposted[0] = start;
	while (scnt < iters && !bench_lat_time_up(b, start)) {
		if (o->duration == 0)
			b->tposted[scnt] = bench_now();
		scnt++;
		ret = roce_post_send(b->qp[0], &b->wr[0], 1, &posted);
		if (ret != 0) {
			BENCH_ERR(b, "Couldn't post send: scnt=%lu\n",
				  (unsigned long)scnt);
			return ret;
		}
		ret = bench_wait_cq(b, b->scq, &wc);
		if (ret != 0) {
			bench_wc_error(b, "read", &wc);
			return ret;
		}
	}
	b->tcompleted[0] = bench_now();
	bench_print_lat(b, o->duration != 0 ? scnt : o->iters, 1);
	return 0;
}

static int
read_lat_connect(struct bench *b)
{
	int ret;

	ret = bench_hs(b, 0);
	if (ret == 0)
		ret = bench_hs_all(b);
	if (ret == 0)
		ret = bench_connect(b, true);
	if (ret == 0)
		ret = bench_print_dests_hs(b);
	if (ret == 0)
		ret = bench_hs(b, 0);
	return ret;
}

static int
read_lat_client(struct bench *b)
{
	uint64_t size = bench_first_size(b);
	int ret;

	ret = read_lat_connect(b);
	if (ret != 0)
		return ret;
	report_lat_title(b->out, b->o->duration != 0);
	do {
		b->size = size;
		ret = read_lat_iter(b);
		if (ret != 0)
			return ret;
	} while (bench_next_size(b, &size));
	ret = bench_close(b);
	fputs(REPORT_LINE, b->out);
	return ret;
}

static int
read_lat_server(struct bench *b)
{
	int ret;

	ret = read_lat_connect(b);
	if (ret != 0)
		return ret;
	/* "Only Client post read request." */
	ret = bench_close(b);
	fputs(REPORT_LINE, b->out);
	return ret;
}

const struct ernic_mode ernic_mode_read_lat = {
	.name = "read_lat",
	.kind = APP_KIND_LAT,
	.opcode = ROCE_WR_RDMA_READ,
	.setup_wr = read_lat_setup_wr,
	.run_client = read_lat_client,
	.run_server = read_lat_server,
};
