/* SPDX-License-Identifier: BSD-3-Clause */
#include "test_pmd_pair.h"

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "roce_verbs.h"
#include "rte_pmd_ernic.h"
#include "test_common.h"

#define TEST_RING_LINK_MAXQ 8

int
test_ring_link_queues(const char *a, const char *b, unsigned int nq)
{
	struct rte_ring *r_ab[TEST_RING_LINK_MAXQ], *r_ba[TEST_RING_LINK_MAXQ];
	char name[RTE_RING_NAMESIZE];
	unsigned int i;

	if (nq == 0 || nq > TEST_RING_LINK_MAXQ)
		return -1;
	for (i = 0; i < nq; i++) {
		/* queue 0 keeps the one-queue names */
		snprintf(name, sizeof(name), i == 0 ? "%s_%s" : "%s_%s_%u",
			 a, b, i);
		r_ab[i] = rte_ring_create(name, 4096, 0, 0);
		snprintf(name, sizeof(name), i == 0 ? "%s_%s" : "%s_%s_%u",
			 b, a, i);
		r_ba[i] = rte_ring_create(name, 4096, 0, 0);
		if (r_ab[i] == NULL || r_ba[i] == NULL)
			return -1;
	}
	if (rte_eth_from_rings(a, r_ba, nq, r_ab, nq, 0) < 0 ||
	    rte_eth_from_rings(b, r_ab, nq, r_ba, nq, 0) < 0)
		return -1;
	return 0;
}

int
test_ring_link(const char *a, const char *b)
{
	return test_ring_link_queues(a, b, 1);
}

int
test_rc_end_create(uint16_t port, uint32_t cq_depth, uint32_t send_wr,
		   uint32_t recv_wr, struct roce_pd **pd, struct roce_cq **cq,
		   struct roce_qp **qp)
{
	struct roce_qp_init_attr ia;
	struct roce_worker *w;

	*pd = NULL;
	*cq = NULL;
	*qp = NULL;
	if (test_port_start(port) != 0)
		return -1;
	*pd = roce_alloc_pd(rte_pmd_ernic_get_device(port));
	w = rte_pmd_ernic_pick_worker(port);
	if (*pd == NULL || w == NULL)
		return -1;
	*cq = roce_create_cq(w, cq_depth);
	if (*cq == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = *cq;
	ia.recv_cq = *cq;
	ia.cap.max_send_wr = send_wr;
	ia.cap.max_recv_wr = recv_wr;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	*qp = roce_create_qp(*pd, &ia);
	return *qp != NULL ? 0 : -1;
}

void
test_rc_end_destroy(uint16_t port, struct roce_pd *pd, struct roce_cq *cq,
		    struct roce_qp *qp)
{
	roce_destroy_qp(qp);
	roce_destroy_cq(cq);
	roce_dealloc_pd(pd);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
}

int
test_rc_connect(struct roce_qp *qp, uint16_t peer, const uint8_t *dmac,
		uint32_t dqpn, enum roce_mtu mtu, uint8_t timeout)
{
	struct roce_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	ret = rte_pmd_ernic_gid(peer, 1, &a.ah_attr.dgid);
	if (ret != 0)
		return ret;
	memcpy(a.ah_attr.dmac, dmac, 6);
	a.ah_attr.sgid_index = 1;
	a.ah_attr.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_AV |
			     ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			      ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}
