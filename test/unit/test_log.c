/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's log types exist, are distinct and honour rte_log levels. */
#include <string.h>

#include "roce_log.h"
#include "test_common.h"

static void
test_log_types_registered(void)
{
	int types[] = {
		roce_logtype_wire, roce_logtype_verbs, roce_logtype_qp,
		roce_logtype_req, roce_logtype_resp, roce_logtype_comp,
		roce_logtype_cm,
	};
	unsigned int i, j;

	for (i = 0; i < RTE_DIM(types); i++) {
		CU_ASSERT(types[i] >= 0);
		for (j = 0; j < i; j++)
			CU_ASSERT(types[i] != types[j]);
	}
}

static void
test_log_level_set(void)
{
	CU_ASSERT_EQUAL(rte_log_set_level_pattern("lib.roce.*", RTE_LOG_DEBUG), 0);
	CU_ASSERT_EQUAL(rte_log_get_level(roce_logtype_req), RTE_LOG_DEBUG);
	CU_ASSERT_EQUAL(rte_log_set_level(roce_logtype_req, RTE_LOG_NOTICE), 0);
	CU_ASSERT_EQUAL(rte_log_get_level(roce_logtype_req), RTE_LOG_NOTICE);
}

static CU_TestInfo log_tests[] = {
	{ "log types registered and distinct", test_log_types_registered },
	{ "log levels follow rte_log", test_log_level_set },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "log", NULL, NULL, NULL, NULL, log_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
