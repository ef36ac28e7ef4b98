/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frame the bench tools price: an RC RDMA WRITE ONLY over IPv4 from
 * the loopback's first address (198.18.0.1) to its second, as
 * ernic-testpmd --loopback sends it.
 */
#ifndef BENCH_FRAME_H
#define BENCH_FRAME_H

#include <stdint.h>

#include "roce_build.h"

/** Fill @p f for a WRITE ONLY of @p payload bytes (all other fields zero). */
void bench_write_only_fields(struct roce_hdr_fields *f, uint32_t payload);

#endif /* BENCH_FRAME_H */
