/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_INTEGRITY_PROTO_H
#define ERNIC_TESTPMD_INTEGRITY_PROTO_H

/**
 * @file
 * The data-integrity exchange shared by ernic-testpmd's `integrity` mode
 * (modes/integrity.c) and the interop peer program iop-integrity
 * (test/interop/peer/iop_integrity.c, libibverbs in the soft-RoCE VM):
 * the message sizes, the buffer layout, the seeded byte pattern and the
 * checksum. Header-only, no DPDK and no verbs, so that both sides use the
 * same definitions. doc/guides/interop.rst describes the protocol.
 *
 * Each side registers one buffer of 3 areas of INTEG_AREA bytes:
 * area W (written by the client's RDMA WRITEs), area R (read by the
 * client's RDMA READs) and area S (the server's receive buffers for the
 * client's SENDs). The messages of integ_sizes[] lie back to back in each
 * area from offset 0; byte i of that run is integ_pattern(seed, i).
 * The client's W and S areas hold its patterns, the server's R area its
 * pattern; every destination area starts filled with INTEG_FILL.
 */

#include <stddef.h>
#include <stdint.h>

/** Message sizes: 1 byte, non-multiples of 1024 and 4096, one over 1 MiB. */
static const uint32_t integ_sizes[] = { 1, 1000, 1025, 4097, 65537, 1048583 };

enum {
	INTEG_NMSG = sizeof(integ_sizes) / sizeof(integ_sizes[0]),
	INTEG_TOTAL = 1 + 1000 + 1025 + 4097 + 65537 + 1048583,	/**< per area */
	INTEG_AREA = 1122304,		/**< INTEG_TOTAL rounded up to 4 KiB */
	INTEG_OFF_W = 0,
	INTEG_OFF_R = INTEG_AREA,
	INTEG_OFF_S = 2 * INTEG_AREA,
	INTEG_BUF = 3 * INTEG_AREA,
	INTEG_FILL = 0xe7,		/**< destination bytes before the test */
	INTEG_SEED_W = 0x57524954,	/**< client's WRITE source ("WRIT") */
	INTEG_SEED_R = 0x52454144,	/**< server's READ source ("READ") */
	INTEG_SEED_S = 0x53454e44,	/**< client's SEND source ("SEND") */
	INTEG_MSG_LEN = 128,		/**< side-channel messages after the keys */
};

/** Byte @p i of the pattern of @p seed (a 32-bit mix, not periodic). */
static inline uint8_t
integ_pattern(uint32_t seed, uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u + seed;

	x ^= x >> 15;
	x *= 0x85ebca77u;
	x ^= x >> 13;
	x *= 0xc2b2ae3du;
	x ^= x >> 16;
	return (uint8_t)x;
}

/** Fill @p len bytes with the pattern of @p seed. */
static inline void
integ_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = integ_pattern(seed, i);
}

/**
 * Check an area after the test: INTEG_TOTAL bytes of the pattern of
 * @p seed, then INTEG_FILL up to INTEG_AREA.
 * @return -1 when it is intact, else the offset of the first bad byte.
 */
static inline int64_t
integ_check(const uint8_t *p, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < INTEG_TOTAL; i++)
		if (p[i] != integ_pattern(seed, i))
			return i;
	for (; i < INTEG_AREA; i++)
		if (p[i] != INTEG_FILL)
			return i;
	return -1;
}

/** FNV-1a 64 of @p len bytes. */
static inline uint64_t
integ_fnv1a64(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif /* ERNIC_TESTPMD_INTEGRITY_PROTO_H */
