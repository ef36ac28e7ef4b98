/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_ICRC_PRIV_H
#define ROCE_ICRC_PRIV_H

/*
 * The ICRC kernel for short packets on x86 (roce_icrc_x86.c), used by
 * roce_icrc.c where the CPU has PCLMULQDQ and SSE4.1.
 */

#include <stdbool.h>
#include <stdint.h>

#include "roce_icrc.h"

/*
 * Longest CRC input (LRH stand-in + datagram without the ICRC) given to
 * roce_icrc_clmul(). ernic-selfcheck --size on the AVX-512 host, frames a
 * second against ISA-L (whose lanes fold 256 bytes a round): 1.4x at 320
 * input bytes, even at 448, 0.85x at 576, 0.65x at 1088.
 */
#define ROCE_ICRC_CLMUL_MAX	384u

/**
 * Whether roce_icrc_clmul() may run on this CPU.
 */
bool roce_icrc_clmul_usable(void);

/**
 * ICRC (the value that goes on the wire, zlib convention) of a packet
 * whose IP header is at @p ip: IPv4 without options (@p v6 false) or
 * IPv6; @p n is the CRC input length, 8 + the IP datagram's length
 * without its ICRC, 8 + 40 <= n <= ROCE_ICRC_CLMUL_MAX for IPv4 and
 * 8 + 60 <= n for IPv6. Reads the 8 bytes in front of @p ip (they must
 * be readable; their values do not matter) and nothing at or after
 * ip + n - 8.
 */
uint32_t roce_icrc_clmul(const uint8_t *ip, uint32_t n, bool v6);

#endif /* ROCE_ICRC_PRIV_H */
