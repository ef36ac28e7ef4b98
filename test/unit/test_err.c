/* SPDX-License-Identifier: BSD-3-Clause */
/* The one error table: every row consistent, NAK codes round trip. */
#include <string.h>

#include "roce_err.h"
#include "test_common.h"

static bool
is_rem_row(enum roce_err e)
{
	return e == ROCE_ERR_REM_INV_REQ || e == ROCE_ERR_REM_ACCESS ||
		e == ROCE_ERR_REM_OP || e == ROCE_ERR_REM_INV_RD_REQ;
}

static void
test_err_rows(void)
{
	int e, f;

	CU_ASSERT_EQUAL(roce_err_to_errno(ROCE_OK), 0);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_OK), ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_OK), ROCE_NAK_NONE);
	for (e = 0; e < ROCE_ERR_MAX; e++) {
		const char *name = roce_err_name(e);

		CU_ASSERT_PTR_NOT_NULL_FATAL(name);
		CU_ASSERT(strlen(name) > 0);
		if (e != ROCE_OK) {
			CU_ASSERT(roce_err_to_errno(e) < 0);
			CU_ASSERT(roce_err_to_wc_status(e) != ROCE_WC_SUCCESS);
			CU_ASSERT(roce_err_to_wc_status(e) <= ROCE_WC_GENERAL_ERR);
		}
		for (f = 0; f < e; f++)
			CU_ASSERT(strcmp(name, roce_err_name(f)) != 0);
	}
	/* outside the enum: an error, never success */
	CU_ASSERT_PTR_NOT_NULL(roce_err_name(ROCE_ERR_MAX));
	CU_ASSERT(roce_err_to_errno(ROCE_ERR_MAX) < 0);
	CU_ASSERT(roce_err_to_wc_status(ROCE_ERR_MAX) != ROCE_WC_SUCCESS);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_MAX), ROCE_NAK_NONE);
}

static void
test_err_nak_round_trip(void)
{
	int e, nak_rows = 0;

	for (e = 0; e < ROCE_ERR_MAX; e++) {
		uint8_t nak = roce_err_to_nak(e);
		enum roce_err back;

		if (nak == ROCE_NAK_NONE)
			continue;
		nak_rows++;
		back = roce_err_from_nak(nak);
		/* whatever the requester decodes NAKs the same way again */
		CU_ASSERT_EQUAL(roce_err_to_nak(back), nak);
		if (is_rem_row(e) || e == ROCE_ERR_PSN_SEQ ||
		    e == ROCE_ERR_RNR) {
			CU_ASSERT_EQUAL((int)back, e);
		} else {
			/* responder-side rows decode to a remote error */
			CU_ASSERT(is_rem_row(back));
		}
	}
	/* 4 responder rows + 4 REM rows + PSN_SEQ + RNR */
	CU_ASSERT_EQUAL(nak_rows, 10);
}

static void
test_err_expected_rows(void)
{
	/* responder errors and their NAK (IBTA 9.7.5.2.4) */
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_LOC_LEN), 0x61);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_LOC_ACCESS), 0x62);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_REM_ACCESS), 0x62);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_LOC_QP_OP), 0x63);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_LOC_PROT), 0x63);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_PSN_SEQ), 0x60);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_REM_INV_RD_REQ), 0x64);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_RNR) & 0xe0, 0x20);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_FLUSH), ROCE_NAK_NONE);
	CU_ASSERT_EQUAL(roce_err_to_nak(ROCE_ERR_RETRY_EXC), ROCE_NAK_NONE);
	/* statuses as ibv_wc_status */
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_FLUSH),
			ROCE_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_LOC_LEN),
			ROCE_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_LOC_PROT),
			ROCE_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_LOC_ACCESS),
			ROCE_WC_LOC_ACCESS_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_MW_BIND),
			ROCE_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_REM_INV_REQ),
			ROCE_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_REM_ACCESS),
			ROCE_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_REM_OP),
			ROCE_WC_REM_OP_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_RETRY_EXC),
			ROCE_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_RNR_RETRY_EXC),
			ROCE_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(roce_err_to_wc_status(ROCE_ERR_FATAL),
			ROCE_WC_FATAL_ERR);
	CU_ASSERT_EQUAL(roce_err_to_errno(ROCE_ERR_CQ_OVERFLOW), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(roce_err_name(ROCE_ERR_REM_ACCESS),
			       "rem_access_err");
}

static void
test_err_from_nak_sweep(void)
{
	unsigned int s;

	for (s = 0; s < 256; s++) {
		enum roce_err want;

		if (s >= 0x20 && s <= 0x3f)
			want = ROCE_ERR_RNR;
		else if (s == 0x60)
			want = ROCE_ERR_PSN_SEQ;
		else if (s == 0x61)
			want = ROCE_ERR_REM_INV_REQ;
		else if (s == 0x62)
			want = ROCE_ERR_REM_ACCESS;
		else if (s == 0x63)
			want = ROCE_ERR_REM_OP;
		else if (s == 0x64)
			want = ROCE_ERR_REM_INV_RD_REQ;
		else
			want = ROCE_ERR_BAD_RESP;
		CU_ASSERT_EQUAL(roce_err_from_nak((uint8_t)s), want);
	}
}

static CU_TestInfo err_tests[] = {
	{ "every row consistent, names unique", test_err_rows },
	{ "NAK codes round trip", test_err_nak_round_trip },
	{ "expected rows (IBTA 9.7.5.2.4, ibv_wc_status)",
	  test_err_expected_rows },
	{ "every syndrome decodes", test_err_from_nak_sweep },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "err", NULL, NULL, NULL, NULL, err_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
