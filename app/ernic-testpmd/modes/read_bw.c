/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * read_bw: perftest ib_read_bw. The client RDMA READs from the buffer the
 * server advertised, at most -o READs outstanding per QP (the responder's
 * max_dest_rd_atomic and the requester's max_rd_atomic, IBTA 9.4.4); the
 * half-duplex server only waits and prints the client's report.
 */
#include <string.h>

#include "../bench.h"

static void
read_bw_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = ROCE_WR_RDMA_READ;
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	wr->rdma.remote_addr = b->rem[i].vaddr;
	wr->rdma.rkey = b->rem[i].rkey;
}

const struct ernic_mode ernic_mode_read_bw = {
	.name = "read_bw",
	.kind = APP_KIND_BW,
	.opcode = ROCE_WR_RDMA_READ,
	.setup_wr = read_bw_setup_wr,
	.run_client = bench_rdma_bw_client,
	.run_server = bench_rdma_bw_server,
};
