/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_PMD_PAIR_H
#define TEST_PMD_PAIR_H

/*
 * Scaffolding of the suites that drive two net_ernic ports in one process:
 * the back-to-back net_ring link under them and one RC end (PD, CQ, QP)
 * per port.
 */

#include <stdint.h>

struct roce_pd;
struct roce_cq;
struct roce_qp;

/**
 * Create net_ring ports "net_ring_<a>" and "net_ring_<b>" joined back to
 * back by two rings of 4096 frames (what one sends the other receives).
 * Returns 0 or -1.
 */
int test_ring_link(const char *a, const char *b);

/**
 * Start net_ernic port @p port (test_port_start()) and create on it a PD,
 * a CQ of @p cq_depth on the port's next worker and an RC QP using that CQ
 * for both queues (@p send_wr / @p recv_wr deep, one SGE). Returns 0 or -1
 * (what was created stays in the out pointers).
 */
int test_rc_end_create(uint16_t port, uint32_t cq_depth, uint32_t send_wr,
		       uint32_t recv_wr, struct roce_pd **pd,
		       struct roce_cq **cq, struct roce_qp **qp);

/** Destroy what test_rc_end_create() made, then stop and close @p port. */
void test_rc_end_destroy(uint16_t port, struct roce_pd *pd, struct roce_cq *cq,
			 struct roce_qp *qp);

#endif /* TEST_PMD_PAIR_H */
