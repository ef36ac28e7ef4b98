/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write_bw: perftest ib_write_bw. The client RDMA WRITEs (or, with
 * --write_with_imm, RDMA WRITEs with immediate, each consuming a receive
 * at the server) into the buffer the server advertised; the half-duplex
 * server only waits and prints the client's report.
 */
#include <string.h>

#include "../bench.h"

static void
write_bw_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->opcode = b->o->write_with_imm ? ROCE_WR_RDMA_WRITE_WITH_IMM :
		ROCE_WR_RDMA_WRITE;
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	wr->imm_data = 0;
	wr->rdma.remote_addr = b->rem[i].vaddr;
	wr->rdma.rkey = b->rem[i].rkey;
	if (size <= (uint64_t)b->o->inline_size)
		wr->send_flags |= ROCE_SEND_INLINE;
}

const struct ernic_mode ernic_mode_write_bw = {
	.name = "write_bw",
	.kind = APP_KIND_BW,
	.opcode = ROCE_WR_RDMA_WRITE,
	.setup_wr = write_bw_setup_wr,
	.run_client = bench_rdma_bw_client,
	.run_server = bench_rdma_bw_server,
};
