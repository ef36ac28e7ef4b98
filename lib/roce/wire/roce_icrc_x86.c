/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ICRC of short RoCEv2 packets (and the headers' part of the ICRC of
 * longer ones) with PCLMULQDQ, straight from the frame:
 * the LRH stand-in and the masked header fields are applied in registers,
 * so there is no masked copy, and the 16-byte blocks are folded in four
 * independent lanes, so the CRC's latency is that of about three
 * carry-less multiplications in a row instead of one per block (ISA-L
 * below 256 bytes runs one serial chain: ~58 TSC cycles for 128 bytes on
 * an AVX-512 host). Folding and Barrett constants as in Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ" for the reflected
 * IEEE polynomial: a 128-bit block folded forward by D bits is
 * lo * (x^(D+32) mod P)' + hi * (x^(D-32) mod P)', ' being bit reflection
 * then one left shift.
 *
 * The input is the stream S (n bytes): 8 bytes LRH stand-in, the headers,
 * the payload up to the ICRC slot. A register preset to all ones equals a
 * zero register with S[0..3] inverted (S[0..3] become zeros), and leading
 * zero bytes leave a zero register as it is, so S is processed as
 * T = p zero bytes + S with p = -n mod 16: whole blocks, none partial.
 * Block j of T starts at S[16 j - p]; the header masks are an array in S
 * coordinates read at that offset, so they follow p without a table per p.
 */
#include "roce_icrc_priv.h"

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <x86intrin.h>

#define CLMUL_TARGET	__attribute__((target("pclmul,sse4.1")))

/* Blocks of T that can hold a masked byte: S[0..79] (IPv6: S[60]). */
#define MASK_BLOCKS	5
#define MASK_PAD	16	/* zeros standing for S[-16..-1] */

/* OR and AND masks in S coordinates, MASK_PAD bytes in front. */
struct icrc_masks {
	uint8_t or_[MASK_PAD + MASK_BLOCKS * 16];
	uint8_t and_[MASK_PAD + MASK_BLOCKS * 16];
};

/*
 * S[0..3]: zeros (the preset), S[4..7]: ones (the rest of the LRH
 * stand-in), then IBTA annex A17.3.3's invariant-exempt fields as ones.
 */
#define LRH_AND		[0 ... MASK_PAD - 1] = 0xff, \
			[MASK_PAD + 4 ... MASK_PAD + MASK_BLOCKS * 16 - 1] = 0xff
#define LRH_OR		[MASK_PAD + 4 ... MASK_PAD + 7] = 0xff
#define IP_AT(i)	(MASK_PAD + 8 + (i))

static const struct icrc_masks icrc_masks_v4 = {
	.or_ = {
		LRH_OR,
		[IP_AT(1)] = 0xff,		/* TOS */
		[IP_AT(8)] = 0xff,		/* TTL */
		[IP_AT(10) ... IP_AT(11)] = 0xff, /* header checksum */
		[IP_AT(20 + 6) ... IP_AT(20 + 7)] = 0xff, /* UDP checksum */
		[IP_AT(20 + 8 + 4)] = 0xff,	/* BTH FECN, BECN, resv6 */
	},
	.and_ = { LRH_AND },
};

static const struct icrc_masks icrc_masks_v6 = {
	.or_ = {
		LRH_OR,
		[IP_AT(0)] = 0x0f,		/* traffic class, high nibble */
		[IP_AT(1) ... IP_AT(3)] = 0xff,	/* traffic class, flow label */
		[IP_AT(7)] = 0xff,		/* hop limit */
		[IP_AT(40 + 6) ... IP_AT(40 + 7)] = 0xff, /* UDP checksum */
		[IP_AT(40 + 8 + 4)] = 0xff,	/* BTH FECN, BECN, resv6 */
	},
	.and_ = { LRH_AND },
};

/*
 * Block 0 of T is p zeros, S[0..7] and the IP header's first 8 - p bytes:
 * its header bytes come from a load at the IP header shifted up by 8 + p
 * bytes (shuffle index 0x80: a zero byte), so nothing before the frame's
 * LRH-less start is read for it.
 */
static const uint8_t icrc_shift_up[40] = {
	[0 ... 23] = 0x80,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

#define K128_LO		0x1751997d0ull	/* x^160 */
#define K128_HI		0x0ccaa009eull	/* x^96 */
#define K256_LO		0x0f1da05aaull
#define K256_HI		0x15a546366ull
#define K384_LO		0x03db1ecdcull
#define K384_HI		0x174359406ull
#define K512_LO		0x154442bd4ull
#define K512_HI		0x1c6e41596ull
#define K96		0x163cd6124ull	/* x^64: 64 -> 32 bits */
#define BARRETT_P	0x1db710641ull	/* P' */
#define BARRETT_MU	0x1f7011641ull	/* floor(x^64 / P)' */

static CLMUL_TARGET inline __m128i
icrc_k(uint64_t lo, uint64_t hi)
{
	return _mm_set_epi64x((long long)hi, (long long)lo);
}

/* x folded forward by the distance whose constants are k, plus b. */
static CLMUL_TARGET inline __m128i
icrc_fold(__m128i x, __m128i k, __m128i b)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)),
			     b);
}

static CLMUL_TARGET inline __m128i
icrc_load(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* Block j >= 1 of T. */
static CLMUL_TARGET inline __m128i
icrc_block(const uint8_t *t, uint32_t j, const struct icrc_masks *mk,
	   uint32_t p)
{
	__m128i b = icrc_load(t + 16 * j);
	uint32_t at = MASK_PAD + 16 * j - p;

	if (j >= MASK_BLOCKS)
		return b;
	return _mm_or_si128(_mm_and_si128(b, icrc_load(mk->and_ + at)),
			    icrc_load(mk->or_ + at));
}

/* 128-bit remainder -> the CRC register (Barrett reduction). */
static CLMUL_TARGET inline uint32_t
icrc_reduce(__m128i x)
{
	const __m128i k = icrc_k(K128_LO, K128_HI);
	const __m128i k96 = icrc_k(K96, 0);
	const __m128i bp = icrc_k(BARRETT_P, BARRETT_MU);
	const __m128i lo32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i t;

	/* 128 -> 96 bits: the low half times x^96, with 32 zero bits */
	t = _mm_clmulepi64_si128(k, x, 0x01);
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	/* 96 -> 64 bits */
	t = _mm_clmulepi64_si128(_mm_and_si128(x, lo32), k96, 0x00);
	x = _mm_xor_si128(_mm_srli_si128(x, 4), t);
	/* 64 -> 32 bits: Barrett, quotient by mu, times P */
	t = _mm_clmulepi64_si128(_mm_and_si128(x, lo32), bp, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, lo32), bp, 0x00);
	x = _mm_xor_si128(x, t);
	return (uint32_t)_mm_extract_epi32(x, 1);
}

CLMUL_TARGET uint32_t
roce_icrc_clmul(const uint8_t *ip, uint32_t n, bool v6)
{
	const struct icrc_masks *mk = v6 ? &icrc_masks_v6 : &icrc_masks_v4;
	const uint32_t p = -n & 15, nb = (n + p) / 16;
	/* T's blocks are at t + 16 j; j >= 1 starts at or after ip - 7 */
	const uint8_t *t = ip - ROCE_ICRC_LRH_LEN - p;
	const __m128i k512 = icrc_k(K512_LO, K512_HI);
	__m128i x0, x1, x2, x3, b0;
	uint32_t j = 1;

	b0 = _mm_or_si128(_mm_shuffle_epi8(icrc_load(ip),
					   icrc_load(icrc_shift_up + 16 - p)),
			  icrc_load(mk->or_ + MASK_PAD - p));
	/* the first (nb - 1) % 4 + 1 blocks go to the last lanes */
	x0 = x1 = x2 = _mm_setzero_si128();
	switch (nb & 3) {
	case 0:
		x0 = b0;
		x1 = icrc_block(t, j++, mk, p);
		x2 = icrc_block(t, j++, mk, p);
		x3 = icrc_block(t, j++, mk, p);
		break;
	case 3:
		x1 = b0;
		x2 = icrc_block(t, j++, mk, p);
		x3 = icrc_block(t, j++, mk, p);
		break;
	case 2:
		x2 = b0;
		x3 = icrc_block(t, j++, mk, p);
		break;
	default:
		x3 = b0;
		break;
	}
	for (; j < nb; j += 4) {
		x0 = icrc_fold(x0, k512, icrc_block(t, j, mk, p));
		x1 = icrc_fold(x1, k512, icrc_block(t, j + 1, mk, p));
		x2 = icrc_fold(x2, k512, icrc_block(t, j + 2, mk, p));
		x3 = icrc_fold(x3, k512, icrc_block(t, j + 3, mk, p));
	}
	x0 = icrc_fold(x0, icrc_k(K384_LO, K384_HI),
		       icrc_fold(x1, icrc_k(K256_LO, K256_HI), x3));
	x0 = _mm_xor_si128(x0, icrc_fold(x2, icrc_k(K128_LO, K128_HI),
					 _mm_setzero_si128()));
	return ~icrc_reduce(x0);
}

bool
roce_icrc_clmul_usable(void)
{
	/* called from a constructor: the CPU model may not be read yet */
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul") &&
		__builtin_cpu_supports("sse4.1");
}
