/* SPDX-License-Identifier: BSD-3-Clause */
#include "fault_chain.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "rte_pmd_ernic.h"
#include "test_common.h"

static const char *const side_name[2] = { "A", "B" };
/* names are unique per chain: vdevs and ring ports are not reused */
static unsigned int gen;

/* test_port_start() with an MTU for a @p pmtu payload and every RoCEv2 header */
static int
port_start(uint16_t port, uint32_t pmtu)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = RTE_MAX(1500u, pmtu + 256);
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL,
					     test_mbuf_pool());
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

int
fault_chain_create(struct fault_chain *c, uint32_t pmtu, uint64_t seed,
		   const char *fault_args)
{
	struct rte_ring *r[2], *rx[1], *tx[1];
	char name[64], args[512];
	int i, ret;

	void *m;

	memset(c, 0, sizeof(*c));
	c->pmtu = pmtu;
	c->gen = ++gen;
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "fch_r%d", i);
		r[i] = rte_ring_lookup(name);
		if (r[i] == NULL)
			r[i] = rte_ring_create(name, 4096, 0, 0);
		if (r[i] == NULL)
			return -ENOMEM;
		while (rte_ring_dequeue(r[i], &m) == 0)
			rte_pktmbuf_free(m);
	}
	for (i = 0; i < 2; i++) {
		rx[0] = r[1 - i];
		tx[0] = r[i];
		snprintf(name, sizeof(name), "ch%s%u", side_name[i], c->gen);
		ret = rte_eth_from_rings(name, rx, 1, tx, 1, 0);
		if (ret < 0)
			return ret;
		c->ring[i] = (uint16_t)ret;
		snprintf(name, sizeof(name), "net_fault_flt%s%u", side_name[i],
			 c->gen);
		snprintf(args, sizeof(args), "port=net_ring_ch%s%u,seed=%llu%s%s",
			 side_name[i], c->gen, (unsigned long long)(seed + i),
			 fault_args[0] != '\0' ? "," : "", fault_args);
		ret = rte_vdev_init(name, args);
		if (ret != 0)
			return ret;
		if (rte_eth_dev_get_port_by_name(name, &c->flt[i]) != 0)
			return -ENODEV;
		c->mac[i][0] = 0x02;
		c->mac[i][5] = (uint8_t)(0x10 + i);
		snprintf(name, sizeof(name), "net_ernic_ern%s%u", side_name[i],
			 c->gen);
		snprintf(args, sizeof(args),
			 "port=net_fault_flt%s%u,ip=198.18.1.%d,mac=02:00:00:00:00:%02x,pmtu=%u",
			 side_name[i], c->gen, i + 1, c->mac[i][5], pmtu);
		ret = rte_vdev_init(name, args);
		if (ret != 0)
			return ret;
		if (rte_eth_dev_get_port_by_name(name, &c->ern[i]) != 0)
			return -ENODEV;
		ret = port_start(c->ern[i], pmtu);
		if (ret != 0)
			return ret;
		c->dev[i] = rte_pmd_ernic_get_device(c->ern[i]);
		c->w[i] = rte_pmd_ernic_get_worker(c->ern[i], 0);
		if (c->dev[i] == NULL || c->w[i] == NULL)
			return -ENODEV;
		c->pd[i] = roce_alloc_pd(c->dev[i]);
		if (c->pd[i] == NULL)
			return -ENOMEM;
	}
	return 0;
}

void
fault_chain_destroy(struct fault_chain *c)
{
	struct rte_ring *r;
	char name[64];
	void *m;
	int i;

	for (i = 0; i < 2; i++) {
		if (c->pd[i] != NULL)
			roce_dealloc_pd(c->pd[i]);
		c->pd[i] = NULL;
	}
	/*
	 * Frames in flight hold mbufs of the other side's pools: stop both
	 * sides (the fault ports drop what they delay), empty the rings,
	 * then close.
	 */
	for (i = 0; i < 2; i++)
		rte_eth_dev_stop(c->ern[i]);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "fch_r%d", i);
		r = rte_ring_lookup(name);
		while (r != NULL && rte_ring_dequeue(r, &m) == 0)
			rte_pktmbuf_free(m);
	}
	for (i = 0; i < 2; i++) {
		/* vdev removal closes the port (and gives the one below back) */
		snprintf(name, sizeof(name), "net_ernic_ern%s%u", side_name[i],
			 c->gen);
		rte_vdev_uninit(name);
		snprintf(name, sizeof(name), "net_fault_flt%s%u", side_name[i],
			 c->gen);
		rte_vdev_uninit(name);
		/* stopped by net_fault already */
		rte_eth_dev_close(c->ring[i]);
	}
}

void
fault_chain_poll(struct fault_chain *c)
{
	struct rte_mbuf *m[32];
	uint16_t n;
	int i;

	for (i = 0; i < 2; i++) {
		rte_pmd_ernic_poll(c->ern[i]);
		/* frames that are not RoCE any more (a corrupted header) */
		n = rte_eth_rx_burst(c->ern[i], 0, m, RTE_DIM(m));
		rte_pktmbuf_free_bulk(m, n);
	}
}

void
fault_conn_default(struct fault_conn *o)
{
	memset(o, 0, sizeof(*o));
	o->psn[0] = 100;
	o->psn[1] = 0xfff000;
	o->timeout = 12;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 1;
	o->rd_atomic = 16;
}

static int
qp_to_rts(struct fault_chain *c, int side, struct roce_qp *qp, uint32_t dqpn,
	  const struct fault_conn *o)
{
	struct roce_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RESET;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		ROCE_ACCESS_REMOTE_READ;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			     ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	ret = rte_pmd_ernic_gid(c->ern[1 - side], 1, &a.ah_attr.dgid);
	if (ret != 0)
		return ret;
	memcpy(a.ah_attr.dmac, c->mac[1 - side], 6);
	a.ah_attr.sgid_index = 1;
	a.ah_attr.hop_limit = 0xff;
	a.ah_attr.port_num = 1;
	a.path_mtu = c->pmtu == 4096 ? ROCE_MTU_4096 : c->pmtu == 2048 ?
		ROCE_MTU_2048 : c->pmtu == 512 ? ROCE_MTU_512 :
		c->pmtu == 256 ? ROCE_MTU_256 : ROCE_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = o->psn[1 - side];
	a.max_dest_rd_atomic = o->rd_atomic;
	a.min_rnr_timer = o->min_rnr_timer;
	ret = roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_AV |
			     ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			     ROCE_QP_MIN_RNR_TIMER);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = o->psn[side];
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->rd_atomic;
	return roce_modify_qp(qp, &a, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			      ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			      ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
}

int
fault_chain_connect(struct fault_chain *c, struct roce_qp *q0,
		    struct roce_qp *q1, const struct fault_conn *o)
{
	int ret = qp_to_rts(c, 0, q0, roce_qp_num(q1), o);

	return ret != 0 ? ret : qp_to_rts(c, 1, q1, roce_qp_num(q0), o);
}

static uint64_t
pool_free(const char *fmt, unsigned int id)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), fmt, id);
	mp = rte_mempool_lookup(name);
	return mp != NULL ? rte_mempool_avail_count(mp) : 0;
}

uint64_t
fault_chain_mbufs_free(const struct fault_chain *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < 2; i++) {
		n += pool_free("ernic%u_rx", c->ern[i]);
		n += pool_free("ernic%u_tx", c->ern[i]);
		n += pool_free("fault%u_cp", c->flt[i]);
	}
	return n;
}

uint64_t
fault_chain_xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

uint64_t
fault_chain_roce_cnt(const struct fault_chain *c, int side, const char *name)
{
	struct roce_counter cnt[256];
	int n, i;

	n = roce_worker_counters(c->w[side], cnt, RTE_DIM(cnt));
	for (i = 0; i < n && i < (int)RTE_DIM(cnt); i++)
		if (strcmp(cnt[i].name, name) == 0)
			return cnt[i].value;
	return UINT64_MAX;
}
