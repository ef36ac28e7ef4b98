/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FAULT_CHAIN_H
#define FAULT_CHAIN_H

/*
 * Two net_ernic ports joined through net_fault ports, in one process:
 *
 *   net_ernic "ernA" -> net_fault "fltA" -> net_ring_chA ==rings== net_ring_chB
 *                                                 <- net_fault "fltB" <- net_ernic "ernB"
 *
 * Each net_fault impairs what its side receives, so the two together
 * impair both directions. Workers run inline (rte_pmd_ernic_poll()); RC
 * QP pairs are connected by hand (static neighbour MACs, GID index 1).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "roce_verbs.h"
#include "rte_pmd_fault.h"

struct fault_chain {
	uint16_t ring[2], flt[2], ern[2];
	struct roce_device *dev[2];
	struct roce_worker *w[2];
	struct roce_pd *pd[2];
	uint8_t mac[2][6];
	uint32_t pmtu;
	unsigned int gen;
};

/** Create and start the chain; @p fault_args are extra devargs of both net_fault ports ("" for none). */
int fault_chain_create(struct fault_chain *c, uint32_t pmtu, uint64_t seed,
		       const char *fault_args);

/** Close both ernic and fault ports (every QP, CQ, MR, PD must be gone except the chain's PDs). */
void fault_chain_destroy(struct fault_chain *c);

/** Run both ports' workers once and drop the non-RoCE frames they deliver. */
void fault_chain_poll(struct fault_chain *c);

/** RC connection attributes of fault_chain_connect(). */
struct fault_conn {
	uint32_t psn[2];	/**< SQ PSN of side 0 / side 1 */
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t rd_atomic;
};

void fault_conn_default(struct fault_conn *o);

/**
 * Move @p q0 (on side 0) and @p q1 (on side 1) from whatever state to RESET,
 * then INIT -> RTR -> RTS connected to each other.
 */
int fault_chain_connect(struct fault_chain *c, struct roce_qp *q0,
			struct roce_qp *q1, const struct fault_conn *o);

/** Sum of the free mbufs of every pool of the chain (ernic RX/TX, fault copies). */
uint64_t fault_chain_mbufs_free(const struct fault_chain *c);

/** An xstat of @p port by name, UINT64_MAX when absent. */
uint64_t fault_chain_xstat(uint16_t port, const char *name);

/** Sum of a roce worker counter (roce_worker_counters() name) over side @p side. */
uint64_t fault_chain_roce_cnt(const struct fault_chain *c, int side,
			      const char *name);

#endif /* FAULT_CHAIN_H */
