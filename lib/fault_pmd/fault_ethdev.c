/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_fault: a fault-injecting wrapper vdev (rte_pmd_fault.h). It owns an
 * underlying port, forwards configuration, queues and start/stop to it,
 * and impairs the frames of the direction(s) chosen by dir= (receive by
 * default, transmit, or both) in one pipeline per queue:
 *
 *   frame -> [link down?] -> bottleneck (tail drop, RED/ECN marking,
 *     departure at rate_mbps) -> burst loss -> loss -> corrupt
 *     -> reorder (hold behind the next frame) -> dup
 *     -> delay FIFO (delay_us + jitter, never earlier than the frame before)
 *     -> caller (receive) / underlying port (transmit)
 *
 * Each receive queue is owned by the thread that polls it (as any ethdev
 * queue): its generator, held frame, FIFO and counters need no lock. A
 * transmit queue's pipeline is behind a spinlock: its sender takes it in
 * tx_burst, and the receive queue of the same index takes it with a
 * trylock to send the frames whose delay is over when nobody transmits.
 * The parameters are words the control thread stores atomically and the
 * datapath loads once per burst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "fault_priv.h"

RTE_LOG_REGISTER(fault_logtype, pmd.net.fault, NOTICE);


/** The xstats: a counter of the receive or of the transmit queues. */
static const struct {
	const char *name;
	bool tx;
	enum fault_cnt c;
} fault_xstats[] = {
	{ "rx_frames", false, FAULT_CNT_IN },
	{ "rx_delivered", false, FAULT_CNT_OUT },
	{ "tx_frames", true, FAULT_CNT_OUT },
	{ "fault_loss", false, FAULT_CNT_LOSS },
	{ "fault_burst_loss", false, FAULT_CNT_BURST_LOSS },
	{ "fault_bursts", false, FAULT_CNT_BURSTS },
	{ "fault_reorder", false, FAULT_CNT_REORDER },
	{ "fault_dup", false, FAULT_CNT_DUP },
	{ "fault_corrupt", false, FAULT_CNT_CORRUPT },
	{ "fault_delayed", false, FAULT_CNT_DELAYED },
	{ "fault_link_down_rx", false, FAULT_CNT_LINK_DOWN },
	{ "fault_link_down_tx", true, FAULT_CNT_LINK_DOWN },
	{ "fault_drop_fifo_full", false, FAULT_CNT_FIFO_FULL },
	{ "fault_drop_nombuf", false, FAULT_CNT_NOMBUF },
	{ "rx_delivered_bytes", false, FAULT_CNT_OUT_BYTES },
	{ "tx_offered", true, FAULT_CNT_IN },
	{ "tx_bytes", true, FAULT_CNT_OUT_BYTES },
	{ "fault_tx_loss", true, FAULT_CNT_LOSS },
	{ "fault_tx_burst_loss", true, FAULT_CNT_BURST_LOSS },
	{ "fault_tx_bursts", true, FAULT_CNT_BURSTS },
	{ "fault_tx_reorder", true, FAULT_CNT_REORDER },
	{ "fault_tx_dup", true, FAULT_CNT_DUP },
	{ "fault_tx_corrupt", true, FAULT_CNT_CORRUPT },
	{ "fault_tx_delayed", true, FAULT_CNT_DELAYED },
	{ "fault_tx_drop_fifo_full", true, FAULT_CNT_FIFO_FULL },
	{ "fault_tx_drop_nombuf", true, FAULT_CNT_NOMBUF },
	{ "fault_bneck_bytes", false, FAULT_CNT_BN_BYTES },
	{ "fault_ecn_marked", false, FAULT_CNT_BN_MARKED },
	{ "fault_bneck_tail_drop", false, FAULT_CNT_BN_TAIL_DROP },
	{ "fault_bneck_red_drop", false, FAULT_CNT_BN_RED_DROP },
	{ "fault_bneck_queue_peak", false, FAULT_CNT_BN_PEAK },
	{ "fault_bneck_queue", false, FAULT_CNT_BN_QUEUE },
	{ "fault_tx_bneck_bytes", true, FAULT_CNT_BN_BYTES },
	{ "fault_tx_ecn_marked", true, FAULT_CNT_BN_MARKED },
	{ "fault_tx_bneck_tail_drop", true, FAULT_CNT_BN_TAIL_DROP },
	{ "fault_tx_bneck_red_drop", true, FAULT_CNT_BN_RED_DROP },
	{ "fault_tx_bneck_queue_peak", true, FAULT_CNT_BN_PEAK },
	{ "fault_tx_bneck_queue", true, FAULT_CNT_BN_QUEUE },
};
static_assert(RTE_DIM(fault_xstats) == FAULT_NB_XSTATS,
	      "FAULT_NB_XSTATS counts the xstats table");

/* ------------------------------------------------------------------ */
/* dev_ops                                                            */
/* ------------------------------------------------------------------ */

static const struct eth_dev_ops fault_ops;

static struct fault_port *
fault_port_get(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &fault_ops)
		return NULL;
	return dev->data->dev_private;
}

static int
fault_dev_configure(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_eth_dev_data *d = dev->data;
	int ret;

	if (rte_eth_devices[p->under].data->dev_started)
		rte_eth_dev_stop(p->under);
	ret = rte_eth_dev_configure(p->under, d->nb_rx_queues,
				    d->nb_tx_queues, &d->dev_conf);
	if (ret != 0)
		FAULT_LOG(ERR, "%s: configuring underlying port %u (%u rxq, %u txq): %s",
			  d->name, p->under, d->nb_rx_queues, d->nb_tx_queues,
			  rte_strerror(-ret));
	return ret;
}

static int
fault_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_eth_dev_info ui;
	int ret;

	ret = rte_eth_dev_info_get(p->under, &ui);
	if (ret != 0)
		return ret;
	info->max_mac_addrs = 1;
	info->min_rx_bufsize = ui.min_rx_bufsize;
	info->max_rx_pktlen = ui.max_rx_pktlen;
	info->min_mtu = ui.min_mtu;
	info->max_mtu = ui.max_mtu;
	info->max_rx_queues = RTE_MIN(ui.max_rx_queues,
				      (uint16_t)FAULT_MAX_QUEUES);
	info->max_tx_queues = RTE_MIN(ui.max_tx_queues,
				      (uint16_t)FAULT_MAX_QUEUES);
	info->rx_offload_capa = ui.rx_offload_capa;
	info->tx_offload_capa = ui.tx_offload_capa;
	info->rx_queue_offload_capa = ui.rx_queue_offload_capa;
	info->tx_queue_offload_capa = ui.tx_queue_offload_capa;
	info->flow_type_rss_offloads = ui.flow_type_rss_offloads;
	info->reta_size = ui.reta_size;
	info->hash_key_size = ui.hash_key_size;
	info->rx_desc_lim = ui.rx_desc_lim;
	info->tx_desc_lim = ui.tx_desc_lim;
	info->speed_capa = ui.speed_capa;
	info->default_rxportconf = ui.default_rxportconf;
	info->default_txportconf = ui.default_txportconf;
	info->default_rxconf = ui.default_rxconf;
	info->default_txconf = ui.default_txconf;
	return 0;
}

static void
fault_q_release(struct fault_q *q)
{
	if (q == NULL)
		return;
	fault_q_drain(q, FAULT_CNT_LINK_DOWN);
	rte_free(q);
}

static void
fault_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	fault_q_release(dev->data->rx_queues[qid]);
	dev->data->rx_queues[qid] = NULL;
}

static void
fault_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	fault_q_release(dev->data->tx_queues[qid]);
	dev->data->tx_queues[qid] = NULL;
}

/*
 * A queue's pipeline; its generator is splitmix64 of (seed, queue,
 * direction): never 0, distinct per queue and direction, and for the
 * receive queues the same as before transmit faults existed.
 */
static struct fault_q *
fault_q_new(struct fault_port *p, uint16_t qid, bool tx, unsigned int socket)
{
	struct fault_q *q;
	uint64_t s;
	int i;

	q = rte_zmalloc_socket(tx ? "fault_txq" : "fault_rxq", sizeof(*q),
			       RTE_CACHE_LINE_SIZE, (int)socket);
	if (q == NULL)
		return NULL;
	q->p = p;
	q->qid = qid;
	q->tx = tx;
	rte_spinlock_init(&q->lock);
	s = p->seed + (uint64_t)(qid + 1) * 0x9e3779b97f4a7c15ULL;
	if (tx)
		s ^= 0x7478717565756573ULL;	/* "txqueues" */
	for (i = 0; i < 2; i++) {
		s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
		s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
		s ^= s >> 31;
	}
	q->rng = s != 0 ? s : 1;
	return q;
}

static int
fault_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_rxconf *conf,
		     struct rte_mempool *mp)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	int ret;

	ret = rte_eth_rx_queue_setup(p->under, qid, nb_desc, socket, conf, mp);
	if (ret != 0)
		return ret;
	q = fault_q_new(p, qid, false, socket);
	if (q == NULL)
		return -ENOMEM;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
fault_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	int ret;

	ret = rte_eth_tx_queue_setup(p->under, qid, nb_desc, socket, conf);
	if (ret != 0)
		return ret;
	q = fault_q_new(p, qid, true, socket);
	if (q == NULL)
		return -ENOMEM;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static int
fault_dev_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	struct fault_port *p = dev->data->dev_private;
	struct rte_pmd_fault_params prm;
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (!dev->data->dev_started ||
	    rte_eth_link_get_nowait(p->under, &link) != 0)
		memset(&link, 0, sizeof(link));
	fault_params_load(p, &prm);
	if (fault_link_down(p, &prm, rte_rdtsc()))
		link.link_status = RTE_ETH_LINK_DOWN;
	return rte_eth_linkstatus_set(dev, &link);
}

static int
fault_dev_start(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	uint16_t i;
	int ret;

	ret = rte_eth_dev_start(p->under);
	if (ret != 0) {
		FAULT_LOG(ERR, "%s: starting underlying port %u: %s",
			  dev->data->name, p->under, rte_strerror(-ret));
		return ret;
	}
	p->start_tsc = rte_rdtsc();
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	fault_dev_link_update(dev, 0);
	return 0;
}

static int
fault_dev_stop(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	uint16_t i;

	/* frames in flight go now: their pools may go with the caller */
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] != NULL)
			fault_q_drain(dev->data->rx_queues[i],
				      FAULT_CNT_LINK_DOWN);
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct fault_q *t = dev->data->tx_queues[i];

		if (t != NULL) {
			rte_spinlock_lock(&t->lock);
			fault_q_drain(t, FAULT_CNT_LINK_DOWN);
			rte_spinlock_unlock(&t->lock);
		}
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	if (rte_eth_dev_is_valid_port(p->under))
		rte_eth_dev_stop(p->under);
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	return 0;
}

static void
fault_port_release(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	bool under_ok = rte_eth_dev_is_valid_port(p->under);
	uint16_t i;

	if (dev->data->dev_started && under_ok)
		rte_eth_dev_stop(p->under);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		fault_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		fault_tx_queue_release(dev, i);
	if (p->owned && under_ok)
		rte_eth_dev_owner_unset(p->under, p->owner.id);
	p->owned = false;
	rte_mempool_free(p->pool);
	p->pool = NULL;
}

static int
fault_dev_close(struct rte_eth_dev *dev)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	fault_port_release(dev);
	/* mac_addrs is part of dev_private */
	dev->data->mac_addrs = NULL;
	return 0;
}

/*
 * Accumulate counter @p c of queue @p q into @p v: a sum, the peak a max,
 * the queue now computed.
 */
static inline void
fault_cnt_add(const struct fault_q *q, enum fault_cnt c, uint64_t *v)
{
	uint64_t x;

	if (q == NULL)
		return;
	if (c == FAULT_CNT_BN_QUEUE)
		x = fault_bneck_queue(q);
	else
		x = __atomic_load_n(&q->cnt[c], __ATOMIC_RELAXED);
	if (c == FAULT_CNT_BN_PEAK)
		*v = RTE_MAX(*v, x);
	else
		*v += x;
}

/*
 * Every xstat, summed over the queues of its direction (not reset-based;
 * the queue peaks: the highest of the queues).
 */
static void
fault_cnt_sum(const struct rte_eth_dev *dev, uint64_t v[FAULT_NB_XSTATS])
{
	unsigned int i, x;

	memset(v, 0, FAULT_NB_XSTATS * sizeof(v[0]));
	for (x = 0; x < FAULT_NB_XSTATS; x++) {
		if (fault_xstats[x].tx) {
			for (i = 0; i < dev->data->nb_tx_queues; i++)
				fault_cnt_add(dev->data->tx_queues[i],
					      fault_xstats[x].c, &v[x]);
		} else {
			for (i = 0; i < dev->data->nb_rx_queues; i++)
				fault_cnt_add(dev->data->rx_queues[i],
					      fault_xstats[x].c, &v[x]);
		}
	}
}

/*
 * A reset: the counters' base becomes their current value; the queue
 * peaks (gauges) restart from 0 (a store the datapath may race with by
 * one frame).
 */
static void
fault_cnt_reset(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;
	struct fault_q *q;
	unsigned int i, x;

	fault_cnt_sum(dev, p->base);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		q = dev->data->rx_queues[i];
		if (q != NULL)
			__atomic_store_n(&q->cnt[FAULT_CNT_BN_PEAK], 0,
					 __ATOMIC_RELAXED);
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		q = dev->data->tx_queues[i];
		if (q != NULL)
			__atomic_store_n(&q->cnt[FAULT_CNT_BN_PEAK], 0,
					 __ATOMIC_RELAXED);
	}
	for (x = 0; x < FAULT_NB_XSTATS; x++)
		if (fault_xstats[x].c == FAULT_CNT_BN_PEAK ||
		    fault_xstats[x].c == FAULT_CNT_BN_QUEUE)
			p->base[x] = 0;
}

/* Index of xstat @p name (a name of fault_xstats[]). */
static unsigned int
fault_xstat_idx(const char *name)
{
	unsigned int x;

	for (x = 0; x < FAULT_NB_XSTATS; x++)
		if (strcmp(fault_xstats[x].name, name) == 0)
			break;
	RTE_VERIFY(x < FAULT_NB_XSTATS);
	return x;
}

static int
fault_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct fault_port *p = dev->data->dev_private;
	uint64_t v[FAULT_NB_XSTATS];
	struct rte_eth_stats us;
	unsigned int ip = fault_xstat_idx("rx_delivered");
	unsigned int ib = fault_xstat_idx("rx_delivered_bytes");
	unsigned int op = fault_xstat_idx("tx_frames");
	unsigned int ob = fault_xstat_idx("tx_bytes");

	if (rte_eth_stats_get(p->under, &us) != 0)
		memset(&us, 0, sizeof(us));
	fault_cnt_sum(dev, v);
	/* what crossed this port, after the faults (those are in xstats) */
	st->ipackets = v[ip] - p->base[ip];
	st->ibytes = v[ib] - p->base[ib];
	st->opackets = v[op] - p->base[op];
	st->obytes = v[ob] - p->base[ob];
	st->imissed = us.imissed;
	st->ierrors = us.ierrors;
	st->oerrors = us.oerrors;
	st->rx_nombuf = us.rx_nombuf;
	return 0;
}

static int
fault_stats_reset(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	fault_cnt_reset(dev);
	return rte_eth_stats_reset(p->under);
}

static int
fault_xstats_get_names(struct rte_eth_dev *dev __rte_unused,
		       struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int i;

	if (names == NULL || size < FAULT_NB_XSTATS)
		return FAULT_NB_XSTATS;
	for (i = 0; i < FAULT_NB_XSTATS; i++)
		rte_strscpy(names[i].name, fault_xstats[i].name,
			    sizeof(names[i].name));
	return FAULT_NB_XSTATS;
}

static int
fault_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int size)
{
	struct fault_port *p = dev->data->dev_private;
	uint64_t v[FAULT_NB_XSTATS];
	unsigned int i;

	if (xs == NULL || size < FAULT_NB_XSTATS)
		return FAULT_NB_XSTATS;
	fault_cnt_sum(dev, v);
	for (i = 0; i < FAULT_NB_XSTATS; i++) {
		xs[i].id = i;
		xs[i].value = v[i] - p->base[i];
	}
	return FAULT_NB_XSTATS;
}

static int
fault_xstats_reset(struct rte_eth_dev *dev)
{
	fault_cnt_reset(dev);
	return 0;
}

static int
fault_promiscuous_enable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_enable(p->under);
}

static int
fault_promiscuous_disable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_disable(p->under);
}

static int
fault_allmulticast_enable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_allmulticast_enable(p->under);
}

static int
fault_allmulticast_disable(struct rte_eth_dev *dev)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_allmulticast_disable(p->under);
}

static int
fault_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_set_mtu(p->under, mtu);
}

static int
fault_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct fault_port *p = dev->data->dev_private;
	int ret;

	if (rte_is_same_ether_addr(addr, &p->mac))
		return 0;
	ret = rte_eth_dev_default_mac_addr_set(p->under, addr);
	if (ret == 0)
		p->mac = *addr;
	return ret;
}

static int
fault_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *addr,
		   uint32_t index __rte_unused, uint32_t vmdq)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_mac_addr_add(p->under, addr, vmdq);
}

static int
fault_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc,
		       uint32_t nb)
{
	struct fault_port *p = dev->data->dev_private;

	return rte_eth_dev_set_mc_addr_list(p->under, mc, nb);
}

static const struct eth_dev_ops fault_ops = {
	.dev_configure = fault_dev_configure,
	.dev_start = fault_dev_start,
	.dev_stop = fault_dev_stop,
	.dev_close = fault_dev_close,
	.dev_infos_get = fault_dev_infos_get,
	.link_update = fault_dev_link_update,
	.rx_queue_setup = fault_rx_queue_setup,
	.tx_queue_setup = fault_tx_queue_setup,
	.rx_queue_release = fault_rx_queue_release,
	.tx_queue_release = fault_tx_queue_release,
	.stats_get = fault_stats_get,
	.stats_reset = fault_stats_reset,
	.xstats_get = fault_xstats_get,
	.xstats_get_names = fault_xstats_get_names,
	.xstats_reset = fault_xstats_reset,
	.promiscuous_enable = fault_promiscuous_enable,
	.promiscuous_disable = fault_promiscuous_disable,
	.allmulticast_enable = fault_allmulticast_enable,
	.allmulticast_disable = fault_allmulticast_disable,
	.mtu_set = fault_mtu_set,
	.mac_addr_set = fault_mac_addr_set,
	.mac_addr_add = fault_mac_addr_add,
	.set_mc_addr_list = fault_set_mc_addr_list,
};

/* ------------------------------------------------------------------ */
/* devargs                                                            */
/* ------------------------------------------------------------------ */

struct fault_args {
	char port[RTE_ETH_NAME_MAX_LEN];
	uint64_t seed;
	struct rte_pmd_fault_params prm;
};

/* A percentage in [0, 100] ("1", "0.1", "2.5%") as parts per million. */
static int
fault_parse_pct(const char *val, uint32_t *ppm)
{
	char *end;
	double v;

	if (val == NULL || *val == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(val, &end);
	if (*end == '%')
		end++;
	if (errno != 0 || end == val || *end != '\0' || !(v >= 0.0) ||
	    v > 100.0)
		return -EINVAL;
	*ppm = (uint32_t)(v * 10000.0 + 0.5);
	return 0;
}

static int
fault_parse_u64(const char *val, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (val == NULL || *val == '\0' || *val == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno != 0 || *end != '\0' || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
fault_parse_u32(const char *val, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (fault_parse_u64(val, hi, &v) != 0 || v < lo)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

enum fault_key_kind { FK_PORT, FK_PCT, FK_U32, FK_SEED, FK_DIR };

/* dir=rx|tx|both as enum rte_pmd_fault_dir. */
static int
fault_parse_dir(const char *val, uint32_t *dir)
{
	if (val == NULL)
		return -EINVAL;
	if (strcmp(val, "rx") == 0)
		*dir = RTE_PMD_FAULT_DIR_RX;
	else if (strcmp(val, "tx") == 0)
		*dir = RTE_PMD_FAULT_DIR_TX;
	else if (strcmp(val, "both") == 0)
		*dir = RTE_PMD_FAULT_DIR_BOTH;
	else
		return -EINVAL;
	return 0;
}

static const struct {
	const char *key;
	enum fault_key_kind kind;
	size_t off;		/**< into struct rte_pmd_fault_params */
	uint32_t lo, hi;
	const char *form;
} fault_keys[] = {
	{ "port", FK_PORT, 0, 0, 0, "the name of an existing, unowned port" },
	{ "dir", FK_DIR, offsetof(struct rte_pmd_fault_params, dir),
	  0, 0, "rx, tx or both" },
	{ "loss", FK_PCT, offsetof(struct rte_pmd_fault_params, loss_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "burst_loss", FK_PCT, offsetof(struct rte_pmd_fault_params, burst_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "burst_len", FK_U32, offsetof(struct rte_pmd_fault_params, burst_len),
	  1, 1000000, "frames per loss burst, 1..1000000" },
	{ "burst_len_max", FK_U32, offsetof(struct rte_pmd_fault_params, burst_len_max),
	  1, 1000000, "frames, 1..1000000, at least burst_len" },
	{ "reorder", FK_PCT, offsetof(struct rte_pmd_fault_params, reorder_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "reorder_us", FK_U32, offsetof(struct rte_pmd_fault_params, reorder_us),
	  1, 10000000, "microseconds, 1..10000000" },
	{ "dup", FK_PCT, offsetof(struct rte_pmd_fault_params, dup_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "corrupt", FK_PCT, offsetof(struct rte_pmd_fault_params, corrupt_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "delay_us", FK_U32, offsetof(struct rte_pmd_fault_params, delay_us),
	  0, 10000000, "microseconds, 0..10000000" },
	{ "jitter_us", FK_U32, offsetof(struct rte_pmd_fault_params, jitter_us),
	  0, 10000000, "microseconds, 0..10000000" },
	{ "link_up_ms", FK_U32, offsetof(struct rte_pmd_fault_params, link_up_ms),
	  1, 86400000, "milliseconds, 1..86400000" },
	{ "link_down_ms", FK_U32, offsetof(struct rte_pmd_fault_params, link_down_ms),
	  1, 86400000, "milliseconds, 1..86400000" },
	{ "rate_mbps", FK_U32, offsetof(struct rte_pmd_fault_params, rate_mbps),
	  1, FAULT_RATE_MAX, "Mbit/s, 1..400000" },
	{ "queue_kb", FK_U32, offsetof(struct rte_pmd_fault_params, queue_kb),
	  1, FAULT_QUEUE_KB_MAX, "KiB, 1..1048576" },
	{ "ecn_kmin_kb", FK_U32, offsetof(struct rte_pmd_fault_params, ecn_kmin_kb),
	  0, FAULT_QUEUE_KB_MAX, "KiB, 0..1048576" },
	{ "ecn_kmax_kb", FK_U32, offsetof(struct rte_pmd_fault_params, ecn_kmax_kb),
	  0, FAULT_QUEUE_KB_MAX, "KiB, 0..1048576" },
	{ "ecn_pmax", FK_PCT, offsetof(struct rte_pmd_fault_params, ecn_pmax_ppm),
	  0, 0, "a percentage in [0, 100]" },
	{ "seed", FK_SEED, 0, 0, 0, "an unsigned 64-bit integer" },
};

static int
fault_args_parse(const char *name, const char *params, struct fault_args *a)
{
	const struct rte_kvargs_pair *pair;
	struct rte_kvargs *kv;
	unsigned int i, k;
	bool ecn_k = false, ecn_p = false, qkb = false;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->seed = 1;
	a->prm.burst_len = FAULT_BURST_LEN;
	a->prm.reorder_us = FAULT_REORDER_US;
	kv = rte_kvargs_parse(params != NULL ? params : "", NULL);
	if (kv == NULL) {
		FAULT_LOG(ERR, "%s: cannot parse devargs \"%s\": expected %s",
			  name, params, FAULT_PARAM_STRING);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		pair = &kv->pairs[i];
		for (k = 0; k < RTE_DIM(fault_keys); k++)
			if (strcmp(pair->key, fault_keys[k].key) == 0)
				break;
		if (k == RTE_DIM(fault_keys)) {
			FAULT_LOG(ERR, "%s: unknown devarg \"%s\": expected %s",
				  name, pair->key, FAULT_PARAM_STRING);
			ret = -EINVAL;
			break;
		}
		if (rte_kvargs_count(kv, pair->key) > 1) {
			FAULT_LOG(ERR, "%s: devarg %s= given more than once",
				  name, pair->key);
			ret = -EINVAL;
			break;
		}
		switch (fault_keys[k].kind) {
		case FK_PORT:
			if (pair->value == NULL || *pair->value == '\0' ||
			    strlen(pair->value) >= sizeof(a->port))
				ret = -EINVAL;
			else
				rte_strlcpy(a->port, pair->value,
					    sizeof(a->port));
			break;
		case FK_PCT:
			ret = fault_parse_pct(pair->value,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		case FK_U32:
			ret = fault_parse_u32(pair->value, fault_keys[k].lo,
				fault_keys[k].hi,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		case FK_SEED:
			ret = fault_parse_u64(pair->value, UINT64_MAX,
					      &a->seed);
			break;
		case FK_DIR:
			ret = fault_parse_dir(pair->value,
				RTE_PTR_ADD(&a->prm, fault_keys[k].off));
			break;
		}
		if (ret != 0)
			FAULT_LOG(ERR, "%s: bad devarg %s=%s: expected %s",
				  name, pair->key,
				  pair->value != NULL ? pair->value : "",
				  fault_keys[k].form);
		ecn_k |= strncmp(pair->key, "ecn_k", 5) == 0;
		ecn_p |= strcmp(pair->key, "ecn_pmax") == 0;
		qkb |= strcmp(pair->key, "queue_kb") == 0;
	}
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	/* a bottleneck: 1 MiB of queue, RED at the DCQCN paper's 1 % */
	if (a->prm.rate_mbps != 0 && !qkb)
		a->prm.queue_kb = FAULT_QUEUE_KB;
	if (a->prm.rate_mbps != 0 && ecn_k && !ecn_p)
		a->prm.ecn_pmax_ppm = FAULT_ECN_PMAX;
	if (fault_bneck_check(&a->prm) != 0) {
		FAULT_LOG(ERR, "%s: bad bottleneck devargs (rate_mbps=%u queue_kb=%u ecn_kmin_kb=%u ecn_kmax_kb=%u): queue_kb= and ecn_*= need rate_mbps=, and ecn_kmin_kb <= ecn_kmax_kb <= queue_kb",
			  name, a->prm.rate_mbps, a->prm.queue_kb,
			  a->prm.ecn_kmin_kb, a->prm.ecn_kmax_kb);
		return -EINVAL;
	}
	if (a->port[0] == '\0') {
		FAULT_LOG(ERR, "%s: missing devarg port= (the port to impair, e.g. net_ring0)",
			  name);
		return -EINVAL;
	}
	if ((a->prm.link_up_ms == 0) != (a->prm.link_down_ms == 0)) {
		FAULT_LOG(ERR, "%s: link_up_ms= and link_down_ms= go together (a flap: up, then down, repeated)",
			  name);
		return -EINVAL;
	}
	if (a->prm.burst_len_max != 0 &&
	    a->prm.burst_len_max < a->prm.burst_len) {
		FAULT_LOG(ERR, "%s: bad devarg burst_len_max=%u: expected at least burst_len (%u)",
			  name, a->prm.burst_len_max, a->prm.burst_len);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* probe / remove                                                     */
/* ------------------------------------------------------------------ */

static int
fault_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	char pname[RTE_MEMPOOL_NAMESIZE];
	struct rte_eth_dev_owner o;
	struct rte_eth_dev *dev;
	struct fault_port *p;
	struct fault_args a;
	uint16_t under;
	int socket, ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		FAULT_LOG(ERR, "%s: secondary processes are not supported",
			  name);
		return -ENOTSUP;
	}
	ret = fault_args_parse(name, rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	if (rte_eth_dev_get_port_by_name(a.port, &under) != 0) {
		FAULT_LOG(ERR, "%s: bad devarg port=%s: no such ethdev (expected the name of an existing port, e.g. net_ring0)",
			  name, a.port);
		return -ENODEV;
	}
	if (rte_eth_dev_owner_get(under, &o) == 0 &&
	    o.id != RTE_ETH_DEV_NO_OWNER) {
		FAULT_LOG(ERR, "%s: bad devarg port=%s: the port is owned by \"%s\"",
			  name, a.port, o.name);
		return -EBUSY;
	}
	socket = rte_eth_dev_socket_id(under);
	if (socket < 0)
		socket = (int)rte_socket_id();
	vdev->device.numa_node = socket;
	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL) {
		FAULT_LOG(ERR, "%s: cannot allocate the ethdev", name);
		return -ENOMEM;
	}
	p = dev->data->dev_private;
	p->port_id = dev->data->port_id;
	p->under = under;
	p->seed = a.seed;
	p->hz = rte_get_tsc_hz();
	p->data = dev->data;
	fault_params_store(p, &a.prm);
	if (rte_eth_macaddr_get(under, &p->mac) != 0)
		rte_eth_random_addr(p->mac.addr_bytes);

	ret = rte_eth_dev_owner_new(&p->owner.id);
	if (ret == 0) {
		snprintf(p->owner.name, sizeof(p->owner.name), "%s", name);
		ret = rte_eth_dev_owner_set(under, &p->owner);
	}
	if (ret != 0) {
		FAULT_LOG(ERR, "%s: cannot take ownership of port %s: %s",
			  name, a.port, rte_strerror(-ret));
		goto fail;
	}
	p->owned = true;
	snprintf(pname, sizeof(pname), "fault%u_cp", p->port_id);
	p->pool = rte_pktmbuf_pool_create(pname, FAULT_POOL_SIZE, 64, 0,
					  FAULT_POOL_ROOM, socket);
	if (p->pool == NULL) {
		ret = -rte_errno;
		FAULT_LOG(ERR, "%s: cannot create mbuf pool %s: %s", name,
			  pname, rte_strerror(rte_errno));
		goto fail;
	}
	dev->data->mac_addrs = &p->mac;
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	dev->data->dev_link.link_autoneg = RTE_ETH_LINK_AUTONEG;
	dev->dev_ops = &fault_ops;
	dev->rx_pkt_burst = fault_rx_burst;
	dev->tx_pkt_burst = fault_tx_burst;
	rte_eth_dev_probing_finish(dev);
	FAULT_LOG(INFO, "%s: port %u on %s (port %u), %s: loss %u burst %u x %u..%u reorder %u dup %u corrupt %u ppm, delay %u + 0..%u us, flap %u/%u ms, bottleneck %u Mbit/s queue %u KiB ECN %u..%u KiB %u ppm, seed %" PRIu64,
		  name, p->port_id, a.port, under,
		  a.prm.dir == RTE_PMD_FAULT_DIR_RX ? "rx" :
		  a.prm.dir == RTE_PMD_FAULT_DIR_TX ? "tx" : "rx and tx",
		  a.prm.loss_ppm, a.prm.burst_ppm, a.prm.burst_len,
		  RTE_MAX(a.prm.burst_len, a.prm.burst_len_max),
		  a.prm.reorder_ppm, a.prm.dup_ppm, a.prm.corrupt_ppm,
		  a.prm.delay_us, a.prm.jitter_us,
		  a.prm.link_up_ms, a.prm.link_down_ms, a.prm.rate_mbps,
		  a.prm.queue_kb, a.prm.ecn_kmin_kb, a.prm.ecn_kmax_kb,
		  a.prm.ecn_pmax_ppm, a.seed);
	return 0;
fail:
	fault_port_release(dev);
	dev->data->mac_addrs = NULL;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int
fault_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;	/* closed by rte_eth_dev_close() already */
	fault_dev_close(dev);
	rte_eth_dev_release_port(dev);
	return 0;
}

static struct rte_vdev_driver fault_vdev_drv = {
	.probe = fault_probe,
	.remove = fault_remove,
};

RTE_PMD_REGISTER_VDEV(net_fault, fault_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_fault, FAULT_PARAM_STRING);

/* ------------------------------------------------------------------ */
/* rte_pmd_fault.h                                                    */
/* ------------------------------------------------------------------ */

int
rte_pmd_fault_get_params(uint16_t port_id, struct rte_pmd_fault_params *prm)
{
	struct fault_port *p = fault_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	if (prm == NULL)
		return -EINVAL;
	fault_params_load(p, prm);
	return 0;
}

int
rte_pmd_fault_set_params(uint16_t port_id,
			 const struct rte_pmd_fault_params *prm)
{
	struct fault_port *p = fault_port_get(port_id);
	struct rte_pmd_fault_params c;

	if (p == NULL)
		return -ENODEV;
	if (prm == NULL || fault_params_check(prm) != 0)
		return -EINVAL;
	c = *prm;
	if (c.burst_len == 0)
		c.burst_len = FAULT_BURST_LEN;
	if (c.burst_len_max != 0 && c.burst_len_max < c.burst_len)
		return -EINVAL;
	fault_params_store(p, &c);
	return 0;
}

int
rte_pmd_fault_set_link(uint16_t port_id, bool up)
{
	struct fault_port *p = fault_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	__atomic_store_n(&p->admin_down, up ? 0 : 1, __ATOMIC_RELAXED);
	return 0;
}

int
rte_pmd_fault_underlying_port(uint16_t port_id)
{
	struct fault_port *p = fault_port_get(port_id);

	return p != NULL ? p->under : -ENODEV;
}

