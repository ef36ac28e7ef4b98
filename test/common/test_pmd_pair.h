/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_PMD_PAIR_H
#define TEST_PMD_PAIR_H

/*
 * Scaffolding of the suites that drive two net_ernic ports in one process:
 * the back-to-back net_ring link under them and one RC end (PD, CQ, QP)
 * per port.
 */

#include <stdint.h>

#include "roce_verbs.h"

/**
 * Create net_ring ports "net_ring_<a>" and "net_ring_<b>" joined back to
 * back by two rings of 4096 frames (what one sends the other receives).
 * Returns 0 or -1.
 */
int test_ring_link(const char *a, const char *b);

/**
 * test_ring_link() with @p nq (1..8) queues each way: TX queue i of one
 * port is RX queue i of the other, on a ring pair of its own.
 */
int test_ring_link_queues(const char *a, const char *b, unsigned int nq);

/**
 * Start net_ernic port @p port (test_port_start()) and create on it a PD,
 * a CQ of @p cq_depth on the port's next worker and an RC QP using that CQ
 * for both queues (@p send_wr / @p recv_wr deep, one SGE). Returns 0 or -1
 * (what was created stays in the out pointers).
 */
int test_rc_end_create(uint16_t port, uint32_t cq_depth, uint32_t send_wr,
		       uint32_t recv_wr, struct roce_pd **pd,
		       struct roce_cq **cq, struct roce_qp **qp);

/**
 * Take RC QP @p qp through INIT, RTR and RTS, connected to QP @p dqpn of
 * net_ernic port @p peer (its GID index 1, MAC @p dmac) with static
 * attributes: PSNs 100, path MTU @p mtu, local ACK timeout @p timeout,
 * retry and RNR retry 7, one READ/atomic each way, remote WRITE allowed.
 * Returns 0 or roce_modify_qp()'s / rte_pmd_ernic_gid()'s negative errno.
 */
int test_rc_connect(struct roce_qp *qp, uint16_t peer, const uint8_t *dmac,
		    uint32_t dqpn, enum roce_mtu mtu, uint8_t timeout);

/** Destroy what test_rc_end_create() made, then stop and close @p port. */
void test_rc_end_destroy(uint16_t port, struct roce_pd *pd, struct roce_cq *cq,
			 struct roce_qp *qp);

#endif /* TEST_PMD_PAIR_H */
