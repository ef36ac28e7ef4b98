/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atomic_bw: perftest ib_atomic_bw. The client issues 8-byte FETCH_AND_ADD
 * (default) or CMP_AND_SWAP (-A) on the first word of the buffer the
 * server advertised (8-byte aligned, IBTA 9.4.5); the old value lands in
 * the client's buffer.
 */
#include <string.h>

#include "../bench.h"

static void
atomic_bw_setup_wr(struct bench *b, uint32_t i, uint64_t size)
{
	struct roce_send_wr *wr = &b->wr[i];

	b->sge[i].addr = (uintptr_t)(b->buf + i * b->qp_buf);
	b->sge[i].length = (uint32_t)size;
	b->sge[i].lkey = roce_mr_lkey(b->mr);
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = &b->sge[i];
	wr->num_sge = 1;
	wr->atomic.remote_addr = b->rem[i].vaddr;
	wr->atomic.rkey = b->rem[i].rkey;
	if (b->o->atomic == APP_ATOMIC_CMP_AND_SWAP) {
		wr->opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
		wr->atomic.compare_add = 0;
		wr->atomic.swap = 1;
	} else {
		wr->opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD;
		wr->atomic.compare_add = 1;
	}
}

const struct ernic_mode ernic_mode_atomic_bw = {
	.name = "atomic_bw",
	.kind = APP_KIND_BW,
	.opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD,
	.setup_wr = atomic_bw_setup_wr,
	.run_client = bench_rdma_bw_client,
	.run_server = bench_rdma_bw_server,
};
