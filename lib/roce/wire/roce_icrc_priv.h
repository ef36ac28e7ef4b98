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
#include "roce_parse.h"

/*
 * Longest CRC input (LRH stand-in + datagram without the ICRC) that
 * roce_icrc_clmul() takes whole; of a longer one it takes the stand-in and
 * the headers, ISA-L the rest. ernic-selfcheck --size on the AVX-512
 * host, frames a second against ISA-L alone (whose lanes fold 256 bytes a
 * round): 1.4x at 320 input bytes, even at 448, 0.85x at 576, 0.65x at
 * 1088.
 */
#define ROCE_ICRC_CLMUL_MAX	384u

/**
 * Whether roce_icrc_clmul() may run on this CPU.
 */
bool roce_icrc_clmul_usable(void);

/**
 * CRC (zlib convention: the ICRC itself when @p n is the whole input, a
 * value to continue with crc32_gzip_refl() otherwise) of the first @p n
 * CRC input bytes of a packet whose IP header is at @p ip: IPv4 without
 * options (@p v6 false) or IPv6, and @p n at least the LRH stand-in and
 * the headers (8 + 40 for IPv4, 8 + 60 for IPv6) and at most what the
 * buffer holds. Reads the 8 bytes in front of @p ip (they must be
 * readable; their values do not matter) and nothing at or after
 * ip + n - 8.
 */
uint32_t roce_icrc_clmul(const uint8_t *ip, uint32_t n, bool v6);

/**
 * roce_icrc_verify_mbuf() of a frame roce_parse() accepted (@p pkt, its
 * view): the IP header and lengths it checked are not checked again.
 *
 * @return 0, -EBADMSG (wrong ICRC), or what roce_icrc_verify_mbuf()
 *   returns for a frame the short path does not take
 */
int roce_icrc_verify_pkt(const struct roce_pkt *pkt);

/**
 * roce_icrc_fill_mbuf() of a frame roce_build_mbuf() or
 * roce_build_mbuf_tmpl() just built: the IP header at m->l2_len, the
 * datagram ending with the ICRC slot at pkt_len (no Ethernet padding), so
 * a one-segment short frame goes to the x86 kernel unchecked.
 *
 * @return 0, or what roce_icrc_fill_mbuf() returns for a frame the short
 *   path does not take
 */
int roce_icrc_fill_built(struct rte_mbuf *m);

#endif /* ROCE_ICRC_PRIV_H */
