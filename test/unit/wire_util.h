/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef WIRE_UTIL_H
#define WIRE_UTIL_H

/*
 * Helpers of the wire-layer suites (parse, build): exact-size mbufs, frame
 * surgery that keeps the IP/UDP lengths and IPv4 checksum consistent, and
 * the opcode a vector's name stands for.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/**
 * An mbuf whose data is exactly @p len bytes at the very end of a malloc'd
 * buffer (an external buffer, freed with the mbuf), so that any read past
 * the data is a heap overflow for the sanitizer.
 */
struct rte_mbuf *wire_mbuf_exact(const void *data, size_t len);

/** Offset of the IP header of a vector frame (Ethernet, optional tag). */
size_t wire_l3_off(const uint8_t *f);

/** Offset of the UDP header (IPv4 IHL honoured). */
size_t wire_l4_off(const uint8_t *f);

/** Offset of the BTH. */
size_t wire_bth_off(const uint8_t *f);

/**
 * Rewrite the IP and UDP lengths of a frame for a RoCE segment (BTH
 * through ICRC) of @p rlen bytes and recompute the IPv4 checksum.
 */
void wire_set_roce_len(uint8_t *f, size_t rlen);

/** Recompute the IPv4 header checksum (no-op for IPv6). */
void wire_fix_ipv4_csum(uint8_t *f);

/**
 * The opcode a vector name stands for: the longest opcode table name that
 * prefixes it ("RC_SEND_ONLY_pad3_v4" -> RC_SEND_ONLY); NAKs are RC_ACK,
 * GSI MADs and CM MADs are UD_SEND_ONLY (IBTA 13.5.1: QP1 uses UD). -1
 * when nothing matches.
 */
int wire_vector_opcode(const char *name);

/** Deterministic PRNG (xorshift64*) for garbage frames. */
uint64_t wire_rand(uint64_t *state);

#endif /* WIRE_UTIL_H */
