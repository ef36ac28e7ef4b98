/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "bench_frame.h"

void
bench_write_only_fields(struct roce_hdr_fields *f, uint32_t payload)
{
	memset(f, 0, sizeof(*f));
	f->dst_mac.addr_bytes[0] = 2;
	f->src_mac.addr_bytes[0] = 2;
	f->src_mac.addr_bytes[5] = 1;
	f->ip_ver = 4;
	f->ttl = 64;
	f->sgid[10] = 0xff;
	f->sgid[11] = 0xff;
	f->sgid[12] = 198;
	f->sgid[13] = 18;
	f->sgid[15] = 1;
	memcpy(f->dgid, f->sgid, sizeof(f->dgid));
	f->dgid[15] = 2;
	f->udp_sport = 0xc002;
	f->opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
	f->pkey = 0xffff;
	f->dqpn = 2;
	f->dma_len = payload;
	f->rkey = 0x100;
	f->ackreq = true;
}
