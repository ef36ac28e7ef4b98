/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The opcode table against IBTA vol. 1 9.2.1 table 38 and 9.3: names at
 * their numbers, header offsets re-derived from the flags, and the
 * semantic flags consistent with each other.
 */
#include <errno.h>
#include <string.h>

#include "roce_opcode.h"
#include "test_common.h"

/* Header sizes straight from IBTA 9.3 (not from the library's enum). */
static const struct {
	uint32_t flag;
	unsigned int len;
} ibta_order[] = {
	{ ROCE_OPF_DETH, 8 }, { ROCE_OPF_RETH, 16 }, { ROCE_OPF_ATMETH, 28 },
	{ ROCE_OPF_AETH, 4 }, { ROCE_OPF_ATMACK, 8 }, { ROCE_OPF_IMMDT, 4 },
	{ ROCE_OPF_IETH, 4 }, { ROCE_OPF_CNP, 16 },
};

static void
test_offsets_rederived(void)
{
	unsigned int op, i, off;

	for (op = 0; op < 256; op++) {
		const struct roce_opcode_info *e = roce_opcode_info(op);

		if (e->name == NULL)
			continue;
		off = 12;	/* the BTH */
		for (i = 0; i < RTE_DIM(ibta_order); i++) {
			if (e->flags & ibta_order[i].flag) {
				CU_ASSERT_EQUAL(e->off[i], off);
				off += ibta_order[i].len;
			} else {
				CU_ASSERT_EQUAL(e->off[i], 0);
			}
			CU_ASSERT_EQUAL(roce_ext_hdr_len(i), ibta_order[i].len);
		}
		CU_ASSERT_EQUAL(e->hdr_len, off);
	}
	CU_ASSERT_EQUAL(roce_ext_hdr_len(ROCE_EXT_MAX), 0);
}

/* Spot values computed by hand from IBTA 9.3. */
static void
test_known_lengths(void)
{
	static const struct {
		uint8_t op;
		uint8_t hdr_len;
	} v[] = {
		{ 0x04, 12 }, { 0x05, 16 }, { 0x06, 28 }, { 0x0b, 32 },
		{ 0x0c, 28 }, { 0x0d, 16 }, { 0x0e, 12 }, { 0x11, 16 },
		{ 0x12, 24 }, { 0x13, 40 }, { 0x14, 40 }, { 0x17, 16 },
		{ 0x2b, 32 }, { 0x64, 20 }, { 0x65, 24 }, { 0x81, 28 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(v); i++)
		CU_ASSERT_EQUAL(roce_opcode_info(v[i].op)->hdr_len, v[i].hdr_len);
	/* ImmDt after RETH (0x0b), after DETH (0x65); AtomicAckETH after AETH. */
	CU_ASSERT_EQUAL(roce_opcode_info(0x0b)->off[ROCE_EXT_IMMDT], 28);
	CU_ASSERT_EQUAL(roce_opcode_info(0x65)->off[ROCE_EXT_IMMDT], 20);
	CU_ASSERT_EQUAL(roce_opcode_info(0x12)->off[ROCE_EXT_ATMACK], 16);
}

static void
test_names_and_numbers(void)
{
	static const struct {
		uint8_t op;
		const char *name;
	} v[] = {
		{ 0x00, "RC_SEND_FIRST" }, { 0x03, "RC_SEND_LAST_IMM" },
		{ 0x04, "RC_SEND_ONLY" }, { 0x0a, "RC_RDMA_WRITE_ONLY" },
		{ 0x0c, "RC_RDMA_READ_REQUEST" },
		{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY" }, { 0x11, "RC_ACK" },
		{ 0x12, "RC_ATOMIC_ACK" }, { 0x13, "RC_COMPARE_SWAP" },
		{ 0x14, "RC_FETCH_ADD" }, { 0x16, "RC_SEND_LAST_INV" },
		{ 0x17, "RC_SEND_ONLY_INV" }, { 0x24, "UC_SEND_ONLY" },
		{ 0x2a, "UC_RDMA_WRITE_ONLY" }, { 0x64, "UD_SEND_ONLY" },
		{ 0x65, "UD_SEND_ONLY_IMM" }, { 0x81, "CNP" },
	};
	unsigned int i, j, valid = 0;

	for (i = 0; i < RTE_DIM(v); i++) {
		CU_ASSERT_STRING_EQUAL(roce_opcode_name(v[i].op), v[i].name);
		CU_ASSERT_EQUAL(roce_opcode_from_name(v[i].name), v[i].op);
	}
	CU_ASSERT_STRING_EQUAL(roce_opcode_name(0x15), "INVALID");
	CU_ASSERT_EQUAL(roce_opcode_from_name("INVALID"), -ENOENT);
	CU_ASSERT_EQUAL(roce_opcode_from_name(NULL), -ENOENT);
	for (i = 0; i < 256; i++) {
		const struct roce_opcode_info *e = roce_opcode_info(i);

		CU_ASSERT_EQUAL(roce_opcode_valid(i), e->name != NULL);
		if (e->name == NULL) {
			CU_ASSERT_EQUAL(e->transport, ROCE_TRANSPORT_INVALID);
			CU_ASSERT_EQUAL(e->flags, 0);
			CU_ASSERT_EQUAL(e->hdr_len, 0);
			continue;
		}
		valid++;
		CU_ASSERT_EQUAL(roce_opcode_from_name(e->name), (int)i);
		for (j = 0; j < i; j++)
			if (roce_opcode_table[j].name != NULL)
				CU_ASSERT(strcmp(roce_opcode_table[j].name,
						 e->name) != 0);
	}
	/* 23 RC (0x00-0x14, 0x16, 0x17), 12 UC, 2 UD, CNP. */
	CU_ASSERT_EQUAL(valid, 23 + 12 + 2 + 1);
}

/* IBTA 9.2.1: bits 7-5 select the transport; names carry it too. */
static void
test_transport(void)
{
	static const char *const prefix[] = {
		[ROCE_TRANSPORT_RC] = "RC_", [ROCE_TRANSPORT_UC] = "UC_",
		[ROCE_TRANSPORT_UD] = "UD_", [ROCE_TRANSPORT_CNP] = "CNP",
	};
	static const uint8_t by_top[8] = {
		ROCE_TRANSPORT_RC, ROCE_TRANSPORT_UC, ROCE_TRANSPORT_RD,
		ROCE_TRANSPORT_UD, ROCE_TRANSPORT_CNP, ROCE_TRANSPORT_XRC,
		ROCE_TRANSPORT_INVALID, ROCE_TRANSPORT_INVALID,
	};
	unsigned int i;

	for (i = 0; i < 256; i++) {
		const struct roce_opcode_info *e = roce_opcode_info(i);

		if (e->name == NULL)
			continue;
		CU_ASSERT_EQUAL(e->transport, by_top[i >> 5]);
		CU_ASSERT(strncmp(e->name, prefix[e->transport], 3) == 0);
	}
}

static unsigned int
popcount(uint32_t x)
{
	return (unsigned int)__builtin_popcount(x);
}

static void
test_flag_semantics(void)
{
	const uint32_t pos = ROCE_OPF_FIRST | ROCE_OPF_MIDDLE | ROCE_OPF_LAST;
	const uint32_t kind = ROCE_OPF_SEND | ROCE_OPF_WRITE | ROCE_OPF_READ |
			      ROCE_OPF_ATOMIC | ROCE_OPF_ACK;
	unsigned int i;

	for (i = 0; i < 256; i++) {
		const struct roce_opcode_info *e = roce_opcode_info(i);
		uint32_t f = e->flags;

		if (e->name == NULL || e->transport == ROCE_TRANSPORT_CNP)
			continue;
		CU_ASSERT_EQUAL(popcount(f & (ROCE_OPF_REQ | ROCE_OPF_RESP)), 1);
		CU_ASSERT_EQUAL(popcount(f & kind), 1);
		/* first, middle, last, or only (= first | last) */
		CU_ASSERT((f & pos) == ROCE_OPF_MIDDLE || (f & pos) == ROCE_OPF_FIRST ||
			  (f & pos) == ROCE_OPF_LAST || (f & pos) == ROCE_OPF_ONLY);
		/* IBTA 9.7: every RC request is acknowledged, nothing else. */
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_ACKED),
				e->transport == ROCE_TRANSPORT_RC &&
				(f & ROCE_OPF_REQ));
		/* RETH on the first packet of a WRITE and on READ requests. */
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_RETH),
				((f & ROCE_OPF_WRITE) && (f & ROCE_OPF_FIRST)) ||
				((f & ROCE_OPF_READ) && (f & ROCE_OPF_REQ)));
		/* AETH on ACKs, atomic ACKs, and read responses but middles. */
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_AETH), (f & ROCE_OPF_RESP) &&
				(f & pos) != ROCE_OPF_MIDDLE);
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_DETH),
				e->transport == ROCE_TRANSPORT_UD);
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_ATMETH),
				(f & ROCE_OPF_ATOMIC) && (f & ROCE_OPF_REQ));
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_ATMACK),
				(f & ROCE_OPF_ATOMIC) && (f & ROCE_OPF_RESP));
		/* Immediate or invalidate only on the last packet. */
		if (f & (ROCE_OPF_IMMDT | ROCE_OPF_IETH))
			CU_ASSERT(f & ROCE_OPF_LAST);
		CU_ASSERT(!((f & ROCE_OPF_IMMDT) && (f & ROCE_OPF_IETH)));
		/* Payload: SEND/WRITE requests and read responses. */
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_PAYLOAD),
				!!(f & (ROCE_OPF_SEND | ROCE_OPF_WRITE)) ||
				((f & ROCE_OPF_READ) && (f & ROCE_OPF_RESP)));
		/* Receive WQE: fetched by a SEND's first packet or by an
		 * immediate WRITE, completed by the last such packet. */
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_RWR),
				((f & ROCE_OPF_SEND) && (f & ROCE_OPF_FIRST)) ||
				((f & ROCE_OPF_WRITE) && (f & ROCE_OPF_IMMDT)));
		CU_ASSERT_EQUAL(!!(f & ROCE_OPF_RCOMP),
				((f & ROCE_OPF_SEND) && (f & ROCE_OPF_LAST)) ||
				((f & ROCE_OPF_WRITE) && (f & ROCE_OPF_IMMDT)));
		CU_ASSERT(roce_opcode_has(i, f));
	}
	/* UC repeats RC SEND/WRITE, 0x20 higher, without the ACK. */
	for (i = 0x00; i <= 0x0b; i++)
		CU_ASSERT_EQUAL(roce_opcode_info(i | 0x20)->flags,
				roce_opcode_info(i)->flags & ~ROCE_OPF_ACKED);
	CU_ASSERT_EQUAL(roce_opcode_info(ROCE_OP_CNP)->flags, ROCE_OPF_CNP);
}

static CU_TestInfo opcode_tests[] = {
	{ "offsets re-derived from flags", test_offsets_rederived },
	{ "known header lengths", test_known_lengths },
	{ "names at IBTA numbers", test_names_and_numbers },
	{ "transport from opcode bits", test_transport },
	{ "flag semantics", test_flag_semantics },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "opcode", NULL, NULL, NULL, NULL, opcode_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
