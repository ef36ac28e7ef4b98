/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ernic vdev: probe and remove, ownership of the underlying port, the
 * GID table, the port's dev_ops (configure, start, stop, close, info,
 * link, stats, xstats, promiscuous/allmulticast, MTU, MAC) and the public
 * accessors of rte_pmd_ernic.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "roce_driver.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

RTE_LOG_REGISTER(ernic_logtype, pmd.net.ernic, NOTICE);
RTE_LOG_REGISTER(ernic_logtype_rxtx, pmd.net.ernic.rxtx, NOTICE);
RTE_LOG_REGISTER(ernic_logtype_neigh, pmd.net.ernic.neigh, NOTICE);

/*
 * Largest RoCEv2 header stack above the Ethernet header that a packet of
 * PMTU payload carries: IPv6 (40) + UDP (8) + BTH (12) + AtomicETH-sized
 * extension headers (28) + ICRC (4). The port's MTU must leave room for it.
 */
#define ERNIC_ROCE_L3_OVERHEAD (40 + 8 + 12 + 28 + 4)
/** ... and the whole frame: Ethernet, a VLAN tag and the above. */
#define ERNIC_ROCE_FRAME_OVERHEAD (14 + 4 + ERNIC_ROCE_L3_OVERHEAD)

static const char *const cnt_names[ERNIC_CNT_MAX] = {
	[ERNIC_CNT_RX_WIRE] = "rx_wire",
	[ERNIC_CNT_RX_ROCE] = "rx_roce",
	[ERNIC_CNT_RX_HANDOFF] = "rx_roce_handoff",
	[ERNIC_CNT_RX_NON_ROCE] = "rx_non_roce",
	[ERNIC_CNT_RX_APP] = "rx_app",
	[ERNIC_CNT_RX_ARP] = "rx_arp",
	[ERNIC_CNT_RX_ND] = "rx_nd",
	[ERNIC_CNT_TX_ARP] = "tx_arp",
	[ERNIC_CNT_TX_ND] = "tx_nd",
	[ERNIC_CNT_TX_ROCE] = "tx_roce",
	[ERNIC_CNT_TX_APP] = "tx_app",
	[ERNIC_CNT_TX_OUT] = "tx_out_ring",
	[ERNIC_CNT_EXC_TO_HOST] = "exception_to_host",
	[ERNIC_CNT_EXC_FROM_HOST] = "exception_from_host",
	[ERNIC_CNT_DROP_APP_RING_FULL] = "rx_drop_app_ring_full",
	[ERNIC_CNT_DROP_HANDOFF_FULL] = "rx_drop_handoff_full",
	[ERNIC_CNT_DROP_CTL_RING_FULL] = "rx_drop_ctl_ring_full",
	[ERNIC_CNT_DROP_OUT_RING_FULL] = "tx_drop_out_ring_full",
	[ERNIC_CNT_DROP_TX_FULL] = "tx_drop_queue_full",
	[ERNIC_CNT_DROP_ARP_INVALID] = "rx_drop_arp_invalid",
	[ERNIC_CNT_DROP_ND_INVALID] = "rx_drop_nd_invalid",
	[ERNIC_CNT_DROP_NEIGH_FULL] = "drop_neigh_table_full",
	[ERNIC_CNT_DROP_NOMBUF] = "drop_no_mbuf",
	[ERNIC_CNT_DROP_EXC] = "drop_exception",
	[ERNIC_CNT_DROP_STOPPED] = "tx_drop_stopped",
	[ERNIC_CNT_RX_GSI] = "rx_gsi",
	[ERNIC_CNT_DROP_GSI_RING_FULL] = "rx_drop_gsi_ring_full",
	[ERNIC_CNT_NEIGH_REFRESH] = "tx_neigh_refresh",
	[ERNIC_CNT_NEIGH_EXPIRED] = "neigh_expired",
	[ERNIC_CNT_NEIGH_KERNEL] = "neigh_kernel",
	[ERNIC_CNT_NEIGH_KERNEL_FAILED] = "neigh_kernel_failed",
	[ERNIC_CNT_PMTU_CLAMPED] = "pmtu_clamped",
	[ERNIC_CNT_BUSY_CYCLES] = "busy_cycles",
	[ERNIC_CNT_BUSY_POLLS] = "busy_polls",
	[ERNIC_CNT_IDLE_POLLS] = "idle_polls",
};

const char *
ernic_cnt_name(enum ernic_cnt c)
{
	return c < ERNIC_CNT_MAX ? cnt_names[c] : "unknown";
}

static const struct eth_dev_ops ernic_ops;

struct ernic_port *
ernic_port_get(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &ernic_ops)
		return NULL;
	return dev->data->dev_private;
}

uint64_t
ernic_cnt_sum(const struct ernic_port *p, enum ernic_cnt c)
{
	uint64_t v = p->app_rx_cnt[c] + p->app_tx_cnt[c] + p->neigh.cnt[c] +
		p->ctrl.cnt[c];
	uint16_t i;

	if (p->w != NULL)
		for (i = 0; i < p->nb_workers; i++)
			v += p->w[i].cnt[c];
	return v;
}

/* ------------------------------------------------------------------ */
/* GID table                                                          */
/* ------------------------------------------------------------------ */

void
ernic_gid_table_build(struct ernic_port *p)
{
	union roce_gid *g;
	const uint8_t *mac = p->mac.addr_bytes;

	memset(p->gid, 0, sizeof(p->gid));
	p->nb_gid = 0;

	/* 0: fe80::/64 + modified EUI-64 of the MAC (RFC 4291 2.5.1, app. A) */
	g = &p->gid[p->nb_gid++];
	g->raw[0] = 0xfe;
	g->raw[1] = 0x80;
	g->raw[8] = mac[0] ^ 0x02;
	g->raw[9] = mac[1];
	g->raw[10] = mac[2];
	g->raw[11] = 0xff;
	g->raw[12] = 0xfe;
	g->raw[13] = mac[3];
	g->raw[14] = mac[4];
	g->raw[15] = mac[5];

	/* then ::ffff:a.b.c.d (IBTA annex A17.4.5.1 IPv4-mapped GID) */
	if (p->args.has_ip4) {
		g = &p->gid[p->nb_gid++];
		g->raw[10] = 0xff;
		g->raw[11] = 0xff;
		memcpy(&g->raw[12], &p->args.ip4, 4);
	}
	/* then the configured IPv6 address */
	if (p->args.has_ip6) {
		g = &p->gid[p->nb_gid++];
		memcpy(g->raw, p->args.ip6, 16);
	}
}

/* ------------------------------------------------------------------ */
/* dev_ops                                                            */
/* ------------------------------------------------------------------ */

static int
ernic_dev_configure(struct rte_eth_dev *dev)
{
	struct rte_eth_dev_data *d = dev->data;

	if (d->nb_rx_queues > 1 || d->nb_tx_queues > 1) {
		ERNIC_LOG(ERR, "%s: one RX and one TX queue at most (got %u/%u)",
			  d->name, d->nb_rx_queues, d->nb_tx_queues);
		return -EINVAL;
	}
	return 0;
}

static int
ernic_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct ernic_port *p = dev->data->dev_private;
	struct rte_eth_dev_info ui;
	int ret;

	ret = rte_eth_dev_info_get(p->under, &ui);
	if (ret != 0)
		return ret;
	info->max_mac_addrs = 1;
	info->max_rx_pktlen = ui.max_rx_pktlen;
	info->min_mtu = RTE_MAX(ui.min_mtu, (uint16_t)(p->args.pmtu +
				ERNIC_ROCE_L3_OVERHEAD));
	info->max_mtu = ui.max_mtu;
	info->max_rx_queues = 1;
	info->max_tx_queues = 1;
	info->min_rx_bufsize = 0;
	info->speed_capa = ui.speed_capa;
	info->rx_desc_lim.nb_max = ERNIC_APP_RING;
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->default_rxportconf.ring_size = ERNIC_APP_RING;
	info->default_txportconf.ring_size = ERNIC_OUT_RING;
	info->dev_capa = 0;
	return 0;
}

static int
ernic_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		     uint16_t nb_desc __rte_unused, unsigned int socket __rte_unused,
		     const struct rte_eth_rxconf *conf __rte_unused,
		     struct rte_mempool *mp __rte_unused)
{
	/* Frames come from the PMD's own pool through app_ring. */
	dev->data->rx_queues[qid] = dev->data->dev_private;
	return 0;
}

static int
ernic_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
		     uint16_t nb_desc __rte_unused, unsigned int socket __rte_unused,
		     const struct rte_eth_txconf *conf __rte_unused)
{
	dev->data->tx_queues[qid] = dev->data->dev_private;
	return 0;
}

static void
ernic_queue_release(struct rte_eth_dev *dev __rte_unused,
		    uint16_t qid __rte_unused)
{
	/* the queues are views of the port, nothing to free */
}

static int
ernic_pools_create(struct ernic_port *p)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int n;
	uint16_t room;

	/*
	 * RX: every underlying descriptor, every ring that may hold received
	 * frames, and the per-lcore caches. Data room: the largest frame the
	 * underlying port accepts at the current MTU.
	 */
	n = p->nb_workers * (ERNIC_RX_DESC + ERNIC_HANDOFF_RING) +
	    ERNIC_APP_RING + ERNIC_CTL_RING + ERNIC_EXC_RING + 1024;
	room = RTE_MBUF_DEFAULT_BUF_SIZE;
	/*
	 * net_af_xdp's umem is this pool (one mbuf per frame): the kernel
	 * writes a frame after the mbuf headroom and XDP_PACKET_HEADROOM, so
	 * the default room holds only 1792 bytes. Room for PMTU frames.
	 */
	if (ernic_xdp_frame_max(p->under) != 0)
		room = RTE_MAX(room, (uint16_t)(RTE_PKTMBUF_HEADROOM +
			ERNIC_XDP_PACKET_HEADROOM + p->args.pmtu +
			ERNIC_ROCE_FRAME_OVERHEAD));
	snprintf(name, sizeof(name), "ernic%u_rx", p->port_id);
	p->rx_pool = rte_pktmbuf_pool_create(name, n, 256, 0, room, p->socket);
	if (p->rx_pool == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create mbuf pool %s (%u mbufs): %s",
			  p->port_id, name, n, rte_strerror(rte_errno));
		return -rte_errno;
	}
	/* TX: QP engine frames of up to PMTU payload, ARP/ND, copies. */
	n = p->nb_workers * (2 * ERNIC_TX_DESC) + ERNIC_OUT_RING + 1024;
	room = RTE_PKTMBUF_HEADROOM + p->args.pmtu + 128;
	snprintf(name, sizeof(name), "ernic%u_tx", p->port_id);
	p->tx_pool = rte_pktmbuf_pool_create(name, n, 256, 0, room, p->socket);
	if (p->tx_pool == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create mbuf pool %s (%u mbufs): %s",
			  p->port_id, name, n, rte_strerror(rte_errno));
		rte_mempool_free(p->rx_pool);
		p->rx_pool = NULL;
		return -rte_errno;
	}
	/*
	 * Zero-copy TX: the attached and tail mbufs of a packet (the header
	 * one is of tx_pool). Small elements (the shared info of the
	 * attachment, or pad + ICRC), two per tx_pool mbuf: zero-copy never
	 * takes a tx_pool mbuf more than a copied packet. Without it (no
	 * memory), packets are copied.
	 */
	p->zc_pool = NULL;
	if (p->args.zero_copy) {
		snprintf(name, sizeof(name), "ernic%u_zc", p->port_id);
		p->zc_pool = rte_pktmbuf_pool_create(name, 2 * n, 256, 0,
						     ERNIC_ZC_ROOM, p->socket);
		if (p->zc_pool == NULL)
			ERNIC_LOG(WARNING, "port %u: no zero-copy pool %s (%u mbufs): %s; TX copies",
				  p->port_id, name, 2 * n,
				  rte_strerror(rte_errno));
	}
	return 0;
}

enum roce_mtu
ernic_pmtu_code(uint16_t pmtu)
{
	switch (pmtu) {
	case 256:
		return ROCE_MTU_256;
	case 512:
		return ROCE_MTU_512;
	case 2048:
		return ROCE_MTU_2048;
	case 4096:
		return ROCE_MTU_4096;
	default:
		return ROCE_MTU_1024;
	}
}

/* Create the RoCE device and its workers on the first start. */
static int
ernic_roce_create(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;
	struct roce_device_config cfg;
	struct rte_eth_dev_info ui;
	unsigned int i;
	int ret;

	ret = ernic_pools_create(p);
	if (ret != 0)
		return ret;
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = dev->data->name;
	memcpy(cfg.mac, p->mac.addr_bytes, 6);
	for (i = 0; i < p->nb_gid; i++) {
		cfg.gid[i] = p->gid[i];
		cfg.gid_valid[i] = true;
	}
	cfg.max_qp = p->args.max_qps;
	/* the first ERNIC_PDT_ENTRIES keys are the register window's PD table */
	cfg.max_mr = RTE_MIN((uint32_t)ROCE_MAX_MR,
			     4 * p->args.max_qps + ERNIC_PDT_ENTRIES);
	cfg.vlan = p->args.has_vlan;
	cfg.vlan_tci = p->args.vlan;
	cfg.hdr_pool = p->tx_pool;
	cfg.zc_pool = p->zc_pool;
	cfg.socket_id = p->socket;
	/* QPs above pmtu= are refused: the port's MTU and TX pool fit it */
	cfg.max_mtu = ernic_pmtu_code(p->args.pmtu);
	cfg.ack_pkts = p->args.ack_pkts;
	cfg.ack_us = p->args.ack_us;
	/*
	 * Zero-copy payload (header mbuf of tx_pool + attached payload and
	 * tail mbufs of zc_pool): on by default (zero_copy=0 turns it off)
	 * when the underlying port says it sends multi-segment mbufs and the
	 * zero-copy pool exists. RC only; UC, UD, inline, several SGEs and
	 * small payloads are copied (roce_txbuf.h).
	 */
	cfg.zero_copy_tx = p->args.zero_copy && p->zc_pool != NULL &&
		rte_eth_dev_info_get(p->under, &ui) == 0 &&
		(ui.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	ERNIC_LOG(INFO, "%s: zero-copy TX %s", dev->data->name,
		  cfg.zero_copy_tx ? "on" : !p->args.zero_copy ?
		  "off (zero_copy=0)" : p->zc_pool == NULL ?
		  "off (no zero-copy pool)" : "off (no multi-segment TX)");
	p->rdev = roce_device_create(&cfg);
	if (p->rdev == NULL) {
		ret = -rte_errno;
		ERNIC_LOG(ERR, "%s: roce_device_create failed: %s",
			  dev->data->name, rte_strerror(rte_errno));
		goto fail;
	}
	/* congestion control devargs (checked against their ranges) */
	for (i = 0; i < ROCE_CC_PARAM_MAX; i++)
		if (p->args.cc_mask & (1u << i))
			roce_cc_set(p->rdev, i, p->args.cc[i]);
	ret = ernic_workers_create(p);
	if (ret != 0)
		goto fail;
	/* first: it reserves the PD table's keys before any registration */
	ret = ernic_regs_attach(p);
	if (ret != 0)
		goto fail;
	ret = ernic_ctrl_create(p);
	if (ret != 0)
		goto fail;
	return 0;
fail:
	ernic_ctrl_destroy(p);
	ernic_regs_detach(p->regs);
	ernic_workers_destroy(p);
	if (p->rdev != NULL)
		roce_device_destroy(p->rdev);
	p->rdev = NULL;
	rte_mempool_free(p->tx_pool);
	rte_mempool_free(p->zc_pool);
	rte_mempool_free(p->rx_pool);
	p->tx_pool = NULL;
	p->zc_pool = NULL;
	p->rx_pool = NULL;
	return ret;
}


static int
ernic_dev_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	struct ernic_port *p = dev->data->dev_private;
	struct rte_eth_link link;
	bool up;

	memset(&link, 0, sizeof(link));
	if (p->started && rte_eth_link_get_nowait(p->under, &link) != 0)
		memset(&link, 0, sizeof(link));
	if (!p->started) {
		link.link_status = RTE_ETH_LINK_DOWN;
		link.link_autoneg = RTE_ETH_LINK_AUTONEG;
	}
	up = link.link_status == RTE_ETH_LINK_UP;
	/* DCQCN's line rate: the link's, unless line_rate= was given */
	if (p->rdev != NULL && up && link.link_speed != 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN &&
	    !(p->args.cc_mask & (1u << ROCE_CC_LINE_RATE)))
		roce_cc_set(p->rdev, ROCE_CC_LINE_RATE,
			    RTE_MIN(link.link_speed, 400000u));
	if (p->rdev != NULL && up != p->link_up)
		roce_device_port_event(p->rdev, up);
	p->link_up = up;
	return rte_eth_linkstatus_set(dev, &link);
}

static int
ernic_dev_start(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;
	int ret;

	if (dev->data->mtu < p->args.pmtu + ERNIC_ROCE_L3_OVERHEAD) {
		ERNIC_LOG(ERR, "%s: pmtu=%u needs an MTU of at least %u, the port has %u: raise it with rte_eth_dev_set_mtu()",
			  dev->data->name, p->args.pmtu,
			  p->args.pmtu + ERNIC_ROCE_L3_OVERHEAD,
			  dev->data->mtu);
		return -EINVAL;
	}
	if (p->rdev == NULL) {
		ret = ernic_roce_create(dev);
		if (ret != 0)
			return ret;
	}
	ret = ernic_under_setup(dev);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_start(p->under);
	if (ret != 0) {
		ERNIC_LOG(ERR, "%s: starting underlying port %u failed: %s",
			  dev->data->name, p->under, rte_strerror(-ret));
		return ret;
	}
	ret = ernic_xdp_start(p);
	if (ret != 0)
		goto stop_under;
	ret = ernic_kneigh_start(p);
	if (ret != 0)
		goto stop_under;
	ret = ernic_exc_start(p);
	if (ret != 0)
		goto stop_under;
	ret = ernic_workers_start(p);
	if (ret != 0)
		goto stop_exc;
	ret = ernic_ctrl_start(p);
	if (ret != 0) {
		ernic_workers_stop(p);
		goto stop_exc;
	}
	p->started = true;
	ernic_numa_check(p);
	dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	ernic_dev_link_update(dev, 0);
	ERNIC_LOG(INFO, "%s: started on port %u with %u worker(s), %u/%u underlying queues",
		  dev->data->name, p->under, p->nb_workers, p->nb_rxq,
		  p->nb_txq);
	return 0;
stop_exc:
	ernic_exc_stop(p);
stop_under:
	ernic_kneigh_stop(p);
	ernic_xdp_stop(p);
	rte_eth_dev_stop(p->under);
	return ret;
}

static int
ernic_dev_stop(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	if (!p->started)
		return 0;
	ernic_ctrl_stop(p);
	ernic_workers_stop(p);
	ernic_exc_stop(p);
	ernic_kneigh_stop(p);
	ernic_xdp_stop(p);
	rte_eth_dev_stop(p->under);
	p->started = false;
	if (dev->data->nb_rx_queues > 0)
		dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	if (dev->data->nb_tx_queues > 0)
		dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	ernic_dev_link_update(dev, 0);
	return 0;
}

static void
ernic_ring_drain_free(struct rte_ring **r)
{
	void *m;

	if (*r == NULL)
		return;
	while (rte_ring_dequeue(*r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(*r);
	*r = NULL;
}

/* Release everything of the port except the ethdev itself. */
static void
ernic_port_release(struct ernic_port *p)
{
	/* the underlying port may be gone already (EAL cleanup order) */
	bool under_ok = rte_eth_dev_is_valid_port(p->under);

	if (p->started) {
		ernic_ctrl_stop(p);
		ernic_workers_stop(p);
		ernic_exc_stop(p);
		ernic_kneigh_stop(p);
		ernic_xdp_stop(p);
		if (under_ok)
			rte_eth_dev_stop(p->under);
		p->started = false;
	}
	/* register QPs, CQs, MRs and PDs go before the workers and device */
	ernic_regs_destroy(p);
	ernic_ctrl_destroy(p);
	ernic_workers_destroy(p);
	if (p->rdev != NULL) {
		int ret = roce_device_destroy(p->rdev);

		if (ret != 0)
			ERNIC_LOG(ERR, "port %u: roce_device_destroy: %s (objects still exist: destroy QPs, CQs, MRs and PDs before closing)",
				  p->port_id, rte_strerror(-ret));
		p->rdev = NULL;
	}
	ernic_exc_destroy(p);
	ernic_ring_drain_free(&p->app_ring);
	ernic_ring_drain_free(&p->out_ring);
	ernic_ring_drain_free(&p->ctl_ring);
	ernic_neigh_fini(p);
	if (p->owned && under_ok)
		rte_eth_dev_owner_unset(p->under, p->owner.id);
	p->owned = false;
	/* mbufs still held by the stopped underlying queues go back first */
	rte_mempool_free(p->tx_pool);
	rte_mempool_free(p->zc_pool);
	rte_mempool_free(p->rx_pool);
	p->tx_pool = NULL;
	p->zc_pool = NULL;
	p->rx_pool = NULL;
	rte_free(p->xs_base);
	p->xs_base = NULL;
}

static int
ernic_dev_close(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	ernic_port_release(p);
	ERNIC_LOG(INFO, "%s: closed, port %u given back", dev->data->name,
		  p->under);
	/* mac_addrs is part of dev_private: not to be freed by ethdev */
	dev->data->mac_addrs = NULL;
	return 0;
}

static int
ernic_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct ernic_port *p = dev->data->dev_private;
	struct rte_eth_stats us;

	memset(&us, 0, sizeof(us));
	if (rte_eth_stats_get(p->under, &us) != 0)
		memset(&us, 0, sizeof(us));
	st->ipackets = us.ipackets;
	st->ibytes = us.ibytes;
	st->opackets = us.opackets;
	st->obytes = us.obytes;
	st->ierrors = us.ierrors;
	st->oerrors = us.oerrors + ernic_cnt_sum(p, ERNIC_CNT_DROP_TX_FULL) -
		p->st_base.oerrors;
	st->imissed = us.imissed +
		ernic_cnt_sum(p, ERNIC_CNT_DROP_APP_RING_FULL) +
		ernic_cnt_sum(p, ERNIC_CNT_DROP_HANDOFF_FULL) +
		ernic_cnt_sum(p, ERNIC_CNT_DROP_CTL_RING_FULL) -
		p->st_base.imissed;
	st->rx_nombuf = us.rx_nombuf;
	st->q_ipackets[0] = p->app_rx_cnt[ERNIC_CNT_RX_APP] -
		p->st_base.q_ipackets[0];
	st->q_opackets[0] = ernic_cnt_sum(p, ERNIC_CNT_TX_APP) -
		p->st_base.q_opackets[0];
	return 0;
}

static int
ernic_stats_reset(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	rte_eth_stats_reset(p->under);
	p->st_base.oerrors = ernic_cnt_sum(p, ERNIC_CNT_DROP_TX_FULL);
	p->st_base.imissed = ernic_cnt_sum(p, ERNIC_CNT_DROP_APP_RING_FULL) +
		ernic_cnt_sum(p, ERNIC_CNT_DROP_HANDOFF_FULL) +
		ernic_cnt_sum(p, ERNIC_CNT_DROP_CTL_RING_FULL);
	p->st_base.q_ipackets[0] = p->app_rx_cnt[ERNIC_CNT_RX_APP];
	p->st_base.q_opackets[0] = ernic_cnt_sum(p, ERNIC_CNT_TX_APP);
	return 0;
}

/*
 * xstats, in this order:
 * - the PMD counters (cnt_names);
 * - the transport counters of every worker, summed, prefixed "roce_":
 *   IBTA packets in/out by kind, ACK/NAK, retransmissions, drop reasons
 *   (lib/roce roce_worker_counters());
 * - the CM and MAD counters of the control core ("cm_*", "mad_*",
 *   rte_pmd_ernic_cm_counters()), once the port was started;
 * - with several workers, "worker<i>_rx_roce", "_tx_roce" and
 *   "_busy_polls" of each (the port's counters are their sums);
 * - "qp<qpn>_<counter>" for the first ERNIC_XSTATS_QPS QPs of the
 *   device's QPN table in QPN order (roce_qp_stat_table[] and "sr_on").
 * The per-QP part follows the QPs: its length changes when QPs are
 * created or destroyed, so read the names again when the count changes.
 * The QPN table is read as the RX dispatch and the telemetry read it
 * (acquire loads, from any thread): a QP destroyed during the read may be
 * reported with stale values.
 */
/*
 * Per QP: the counters of roce_qp_stat_table[] (lib/roce's one list of
 * their names), then "sr_on", not a counter: 1 while the QP runs
 * selective repeat (roce_sr.h).
 */
#define ERNIC_QP_XSTAT_SR_ON ROCE_QP_STAT_NB
#define ERNIC_XSTATS_PER_QP (ROCE_QP_STAT_NB + 1)
#define ERNIC_XSTATS_MAX (ERNIC_CNT_MAX + ERNIC_XSTATS_ROCE_MAX + \
			  ERNIC_XSTATS_CM_MAX + \
			  ERNIC_MAX_WORKERS * ERNIC_XSTATS_PER_WORKER + \
			  ERNIC_XSTATS_QPS * ERNIC_XSTATS_PER_QP)

/*
 * QP pointers of ernic_xstats_qps() stay valid between these two: a QP
 * destroyed meanwhile is freed only after ernic_xstats_read_end().
 */
static unsigned int
ernic_xstats_read_begin(const struct ernic_port *p)
{
	return p->rdev != NULL ? roce_qp_read_begin(p->rdev) : 0;
}

static void
ernic_xstats_read_end(const struct ernic_port *p, unsigned int slot)
{
	if (p->rdev != NULL)
		roce_qp_read_end(p->rdev, slot);
}

/* The QPs with xstats: the first ERNIC_XSTATS_QPS of the QPN table. */
static unsigned int
ernic_xstats_qps(const struct ernic_port *p,
		 const struct roce_qp *qps[ERNIC_XSTATS_QPS])
{
	const struct roce_qp *qp;
	unsigned int n = 0;
	uint32_t qpn = 0;

	while (n < ERNIC_XSTATS_QPS &&
	       (qp = roce_qp_next(p->rdev, &qpn)) != NULL) {
		qps[n++] = qp;
		qpn++;
	}
	return n;
}

/* CM and MAD counters: up to ERNIC_XSTATS_CM_MAX, 0 before the first start. */
static unsigned int
ernic_xstats_cm(const struct ernic_port *p, struct roce_counter *c)
{
	int n = rte_pmd_ernic_cm_counters(p->port_id, c, ERNIC_XSTATS_CM_MAX);

	return n > 0 ? RTE_MIN((unsigned int)n,
			       (unsigned int)ERNIC_XSTATS_CM_MAX) : 0;
}

/*
 * "worker<i>_<counter>" on a port with several workers: how the traffic
 * spreads over them (the port's counters are their sums).
 */
static const enum ernic_cnt worker_xstats[ERNIC_XSTATS_PER_WORKER] = {
	ERNIC_CNT_RX_ROCE, ERNIC_CNT_TX_ROCE, ERNIC_CNT_BUSY_POLLS,
};

static unsigned int
ernic_xstats_nb_worker(const struct ernic_port *p)
{
	return p->nb_workers > 1 && p->w != NULL ?
		p->nb_workers * ERNIC_XSTATS_PER_WORKER : 0;
}

/* Port-wide values (PMD, worker, CM counters); returns how many. */
static unsigned int
ernic_xstats_port_values(const struct ernic_port *p, uint64_t *v)
{
	struct roce_counter c[ERNIC_XSTATS_ROCE_MAX];
	unsigned int i, n, nb_cm;
	uint16_t k;

	for (i = 0; i < ERNIC_CNT_MAX; i++)
		v[i] = ernic_cnt_sum(p, i);
	for (i = 0; i < p->nb_roce_cnt; i++)
		v[ERNIC_CNT_MAX + i] = 0;
	for (k = 0; k < p->nb_workers && p->w != NULL; k++) {
		if (p->w[k].rw == NULL)
			continue;
		n = RTE_MIN((unsigned int)roce_worker_counters(p->w[k].rw, c,
					RTE_DIM(c)), RTE_DIM(c));
		n = RTE_MIN(n, p->nb_roce_cnt);
		for (i = 0; i < n; i++)
			v[ERNIC_CNT_MAX + i] += c[i].value;
	}
	n = ERNIC_CNT_MAX + p->nb_roce_cnt;
	nb_cm = ernic_xstats_cm(p, c);
	for (i = 0; i < nb_cm; i++)
		v[n + i] = c[i].value;
	n += nb_cm;
	for (i = 0; i < ernic_xstats_nb_worker(p); i++)
		v[n + i] = p->w[i / ERNIC_XSTATS_PER_WORKER].cnt[
			worker_xstats[i % ERNIC_XSTATS_PER_WORKER]];
	return n + ernic_xstats_nb_worker(p);
}

static uint64_t
ernic_qp_stat(const struct roce_qp *qp, unsigned int k)
{
	struct roce_qp_snapshot snap;

	if (k == ERNIC_QP_XSTAT_SR_ON) {
		roce_qp_snapshot(qp, &snap);
		return snap.sr_on;
	}
	return roce_qp_stat(qp, roce_qp_stat_table[k].off);
}

static const char *
ernic_qp_stat_name(unsigned int k)
{
	return k == ERNIC_QP_XSTAT_SR_ON ? "sr_on" : roce_qp_stat_table[k].name;
}

/* A level, not counted from the last reset. */
static bool
ernic_qp_stat_gauge(unsigned int k)
{
	return k == ERNIC_QP_XSTAT_SR_ON || roce_qp_stat_table[k].gauge;
}

static int
ernic_xstats_get_names(struct rte_eth_dev *dev,
		       struct rte_eth_xstat_name *names, unsigned int size)
{
	struct ernic_port *p = dev->data->dev_private;
	const struct roce_qp *qps[ERNIC_XSTATS_QPS];
	struct roce_counter c[ERNIC_XSTATS_ROCE_MAX];
	unsigned int i, k, n, nb_cm, nb_qp, slot;

	nb_cm = ernic_xstats_cm(p, c);
	slot = ernic_xstats_read_begin(p);
	nb_qp = ernic_xstats_qps(p, qps);
	n = ERNIC_CNT_MAX + p->nb_roce_cnt + nb_cm +
		ernic_xstats_nb_worker(p) + nb_qp * ERNIC_XSTATS_PER_QP;
	if (names == NULL || size < n) {
		ernic_xstats_read_end(p, slot);
		return n;
	}
	for (i = 0; i < nb_cm; i++)
		snprintf(names[ERNIC_CNT_MAX + p->nb_roce_cnt + i].name,
			 sizeof(names[0].name), "%s", c[i].name);
	for (i = 0; i < ERNIC_CNT_MAX; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 cnt_names[i]);
	if (p->nb_roce_cnt > 0) {
		roce_worker_counters(p->w[0].rw, c, RTE_DIM(c));
		for (i = 0; i < p->nb_roce_cnt; i++)
			snprintf(names[ERNIC_CNT_MAX + i].name,
				 sizeof(names[0].name), "roce_%s", c[i].name);
	}
	n = ERNIC_CNT_MAX + p->nb_roce_cnt + nb_cm;
	for (i = 0; i < ernic_xstats_nb_worker(p); i++, n++)
		snprintf(names[n].name, sizeof(names[0].name), "worker%u_%s",
			 i / ERNIC_XSTATS_PER_WORKER,
			 cnt_names[worker_xstats[i % ERNIC_XSTATS_PER_WORKER]]);
	for (i = 0; i < nb_qp; i++)
		for (k = 0; k < ERNIC_XSTATS_PER_QP; k++)
			snprintf(names[n++].name, sizeof(names[0].name),
				 "qp%u_%s", roce_qp_num(qps[i]),
				 ernic_qp_stat_name(k));
	ernic_xstats_read_end(p, slot);
	return n;
}

/* Value at the last reset of counter @p k of QP @p qpn, 0 if none. */
static uint64_t
ernic_xstats_qp_base(const struct ernic_port *p, uint32_t qpn, unsigned int k)
{
	unsigned int i;

	if (p->xs_base == NULL)
		return 0;
	for (i = 0; i < p->nb_xs_base_qp; i++)
		if (p->xs_base_qpn[i] == qpn)
			return p->xs_base[p->nb_xs_base +
					  i * ERNIC_XSTATS_PER_QP + k];
	return 0;
}

static int
ernic_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int size)
{
	struct ernic_port *p = dev->data->dev_private;
	const struct roce_qp *qps[ERNIC_XSTATS_QPS];
	uint64_t v[ERNIC_CNT_MAX + ERNIC_XSTATS_ROCE_MAX + ERNIC_XSTATS_CM_MAX +
		   ERNIC_MAX_WORKERS * ERNIC_XSTATS_PER_WORKER];
	unsigned int i, k, n, nb_port, nb_qp, slot;
	uint64_t val, base;

	nb_port = ernic_xstats_port_values(p, v);
	slot = ernic_xstats_read_begin(p);
	nb_qp = ernic_xstats_qps(p, qps);
	n = nb_port + nb_qp * ERNIC_XSTATS_PER_QP;
	if (xs == NULL || size < n) {
		ernic_xstats_read_end(p, slot);
		return n;
	}
	for (i = 0; i < nb_port; i++) {
		xs[i].id = i;
		xs[i].value = v[i];
		if (p->xs_base != NULL && i < p->nb_xs_base)
			xs[i].value -= p->xs_base[i];
	}
	n = nb_port;
	for (i = 0; i < nb_qp; i++)
		for (k = 0; k < ERNIC_XSTATS_PER_QP; k++, n++) {
			val = ernic_qp_stat(qps[i], k);
			base = ernic_qp_stat_gauge(k) ? 0 :
				ernic_xstats_qp_base(p, roce_qp_num(qps[i]),
						     k);
			/* a QPN reused since the reset: a new QP, from 0 */
			xs[n].id = n;
			xs[n].value = val >= base ? val - base : val;
		}
	ernic_xstats_read_end(p, slot);
	return n;
}

static int
ernic_xstats_reset(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;
	const struct roce_qp *qps[ERNIC_XSTATS_QPS];
	unsigned int i, k, nb_port, nb_qp, slot;
	uint64_t *b;

	if (p->xs_base == NULL) {
		p->xs_base = rte_zmalloc_socket("ernic_xs",
				ERNIC_XSTATS_MAX * sizeof(uint64_t), 0,
				p->socket);
		if (p->xs_base == NULL)
			return -ENOMEM;
	}
	nb_port = ernic_xstats_port_values(p, p->xs_base);
	slot = ernic_xstats_read_begin(p);
	nb_qp = ernic_xstats_qps(p, qps);
	b = p->xs_base + nb_port;
	for (i = 0; i < nb_qp; i++) {
		p->xs_base_qpn[i] = roce_qp_num(qps[i]);
		for (k = 0; k < ERNIC_XSTATS_PER_QP; k++)
			*b++ = ernic_qp_stat(qps[i], k);
	}
	ernic_xstats_read_end(p, slot);
	p->nb_xs_base = nb_port;
	p->nb_xs_base_qp = nb_qp;
	return 0;
}

static int
ernic_promiscuous_enable(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_enable(p->under);
}

static int
ernic_promiscuous_disable(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	return rte_eth_promiscuous_disable(p->under);
}

static int
ernic_allmulticast_enable(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;

	return rte_eth_allmulticast_enable(p->under);
}

static int
ernic_allmulticast_disable(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;
	int ret = rte_eth_allmulticast_disable(p->under);

	/* keep receiving our solicited-node groups */
	if (ret == 0 && p->started)
		ernic_mc_filter(p);
	return ret;
}

static int
ernic_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct ernic_port *p = dev->data->dev_private;

	if (mtu < p->args.pmtu + ERNIC_ROCE_L3_OVERHEAD) {
		ERNIC_LOG(ERR, "%s: MTU %u too small for pmtu=%u (needs %u)",
			  dev->data->name, mtu, p->args.pmtu,
			  p->args.pmtu + ERNIC_ROCE_L3_OVERHEAD);
		return -EINVAL;
	}
	if (p->under_configured)
		return rte_eth_dev_set_mtu(p->under, mtu);
	return 0;
}

static int
ernic_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct ernic_port *p = dev->data->dev_private;

	/* ethdev replays the current MAC on every start */
	if (rte_is_same_ether_addr(addr, &p->mac))
		return 0;
	/* The MAC is in the RoCE device and GID 0: change it only when stopped. */
	if (p->started || p->rdev != NULL) {
		ERNIC_LOG(ERR, "%s: the MAC can change only before the first start",
			  dev->data->name);
		return -EBUSY;
	}
	p->mac = *addr;
	ernic_gid_table_build(p);
	return 0;
}

static const struct eth_dev_ops ernic_ops = {
	.dev_configure = ernic_dev_configure,
	.dev_start = ernic_dev_start,
	.dev_stop = ernic_dev_stop,
	.dev_close = ernic_dev_close,
	.dev_infos_get = ernic_dev_infos_get,
	.link_update = ernic_dev_link_update,
	.rx_queue_setup = ernic_rx_queue_setup,
	.tx_queue_setup = ernic_tx_queue_setup,
	.rx_queue_release = ernic_queue_release,
	.tx_queue_release = ernic_queue_release,
	.stats_get = ernic_stats_get,
	.stats_reset = ernic_stats_reset,
	.xstats_get = ernic_xstats_get,
	.xstats_get_names = ernic_xstats_get_names,
	.xstats_reset = ernic_xstats_reset,
	.promiscuous_enable = ernic_promiscuous_enable,
	.promiscuous_disable = ernic_promiscuous_disable,
	.allmulticast_enable = ernic_allmulticast_enable,
	.allmulticast_disable = ernic_allmulticast_disable,
	.mtu_set = ernic_mtu_set,
	.mac_addr_set = ernic_mac_addr_set,
};

/* ------------------------------------------------------------------ */
/* probe / remove                                                     */
/* ------------------------------------------------------------------ */

static int
ernic_rings_create(struct ernic_port *p)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "ernic%u_app", p->port_id);
	p->app_ring = rte_ring_create(name, ERNIC_APP_RING, p->socket,
				      RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "ernic%u_out", p->port_id);
	p->out_ring = rte_ring_create(name, ERNIC_OUT_RING, p->socket,
				      RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "ernic%u_ctl", p->port_id);
	p->ctl_ring = rte_ring_create(name, ERNIC_CTL_RING, p->socket,
				      RING_F_SC_DEQ);
	if (p->app_ring == NULL || p->out_ring == NULL || p->ctl_ring == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create rings: %s", p->port_id,
			  rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static int
ernic_find_under(const char *name, const struct ernic_args *a,
		 uint16_t *under)
{
	struct rte_eth_dev_owner o;

	if (rte_eth_dev_get_port_by_name(a->port, under) != 0) {
		ERNIC_LOG(ERR, "%s: bad devarg port=%s: no such ethdev (expected the name of an existing port, e.g. net_ring0)",
			  name, a->port);
		return -ENODEV;
	}
	if (ernic_port_get(*under) != NULL) {
		ERNIC_LOG(ERR, "%s: bad devarg port=%s: a net_ernic port cannot carry another",
			  name, a->port);
		return -EINVAL;
	}
	if (rte_eth_dev_owner_get(*under, &o) == 0 &&
	    o.id != RTE_ETH_DEV_NO_OWNER) {
		ERNIC_LOG(ERR, "%s: bad devarg port=%s: the port is owned by \"%s\"",
			  name, a->port, o.name);
		return -EBUSY;
	}
	return 0;
}

/*
 * Secondary processes (dpdk-dumpcap, dpdk-pdump, dpdk-proc-info) see the
 * port, its name, link and info, and can ask the primary to capture on it
 * (rte_pdump); the device itself runs in the primary only: no queues here.
 */
static int
ernic_sec_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	const struct ernic_port *p = dev->data->dev_private;

	info->max_mac_addrs = 1;
	info->max_rx_queues = 1;
	info->max_tx_queues = 1;
	info->min_mtu = (uint16_t)(p->args.pmtu + ERNIC_ROCE_L3_OVERHEAD);
	info->max_mtu = UINT16_MAX;
	info->max_rx_pktlen = UINT16_MAX;
	info->rx_desc_lim.nb_max = ERNIC_APP_RING;
	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	return 0;
}

static int
ernic_sec_link_update(struct rte_eth_dev *dev __rte_unused,
		      int wait __rte_unused)
{
	return 0;	/* the primary keeps dev->data->dev_link current */
}

static const struct eth_dev_ops ernic_sec_ops = {
	.dev_infos_get = ernic_sec_infos_get,
	.link_update = ernic_sec_link_update,
};

static int
ernic_probe_secondary(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_attach_secondary(name);
	if (dev == NULL) {
		ERNIC_LOG(ERR, "%s: not found in the primary process", name);
		return -ENODEV;
	}
	dev->dev_ops = &ernic_sec_ops;
	dev->device = &vdev->device;
	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	rte_eth_dev_probing_finish(dev);
	return 0;
}

/*
 * pmtu= larger than the frames the underlying port carries in one buffer
 * (net_af_xdp of DPDK 22.11): use the largest IBTA path MTU that fits, so
 * that the CM (REQ path MTU, REP's QP) and the perftest MTU exchange
 * (rte_pmd_ernic_pmtu()) offer it to the peer.
 */
static int
ernic_pmtu_fit(const char *name, struct ernic_args *a, uint16_t under)
{
	const uint32_t ovh = ERNIC_ROCE_FRAME_OVERHEAD;
	uint32_t fmax = ernic_xdp_frame_max(under);
	uint32_t m = a->pmtu;

	if (fmax == 0 || m + ovh <= fmax)
		return 0;
	while (m > 256 && m + ovh > fmax)
		m >>= 1;
	if (m + ovh > fmax) {
		ERNIC_LOG(ERR, "%s: port %s receives frames of at most %u bytes: too small for any path MTU",
			  name, a->port, fmax);
		return -EINVAL;
	}
	ERNIC_LOG(NOTICE, "%s: pmtu=%u lowered to path MTU %u: %s (net_af_xdp) receives frames of at most %u bytes, one buffer each; a %u-byte payload needs %u (xstat pmtu_clamped)",
		  name, a->pmtu, m, a->port, fmax, a->pmtu, a->pmtu + ovh);
	a->pmtu = (uint16_t)m;
	return 0;
}

static int
ernic_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct ernic_port *p;
	struct ernic_args a;
	uint16_t under;
	int socket, ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return ernic_probe_secondary(vdev);
	ret = ernic_args_parse(name, rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	ret = ernic_find_under(name, &a, &under);
	if (ret != 0)
		return ret;
	ret = ernic_pmtu_fit(name, &a, under);
	if (ret != 0)
		return ret;
	socket = ernic_numa_port_socket(under);
	vdev->device.numa_node = socket;

	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL) {
		ERNIC_LOG(ERR, "%s: cannot allocate the ethdev", name);
		return -ENOMEM;
	}
	p = dev->data->dev_private;
	p->port_id = dev->data->port_id;
	p->under = under;
	p->args = a;
	p->socket = socket;
	p->nb_workers = a.nb_workers;
	if (a.has_mac)
		p->mac = a.mac;
	else if (rte_eth_macaddr_get(under, &p->mac) != 0 ||
		 !rte_is_valid_assigned_ether_addr(&p->mac)) {
		rte_eth_random_addr(p->mac.addr_bytes);
		ERNIC_LOG(NOTICE, "%s: port %s has no unicast MAC, using random " RTE_ETHER_ADDR_PRT_FMT " (set one with mac=)",
			  name, a.port, RTE_ETHER_ADDR_BYTES(&p->mac));
	}
	ernic_gid_table_build(p);

	ret = rte_eth_dev_owner_new(&p->owner.id);
	if (ret == 0) {
		snprintf(p->owner.name, sizeof(p->owner.name), "%s", name);
		ret = rte_eth_dev_owner_set(under, &p->owner);
	}
	if (ret != 0) {
		ERNIC_LOG(ERR, "%s: cannot take ownership of port %s: %s",
			  name, a.port, rte_strerror(-ret));
		goto fail;
	}
	p->owned = true;
	ret = ernic_rings_create(p);
	if (ret == 0)
		ret = ernic_neigh_init(p);
	if (ret == 0)
		ret = ernic_regs_create(p);
	if (ret == 0)
		ret = ernic_exc_create(p);
	if (ret != 0)
		goto fail;

	dev->data->mac_addrs = &p->mac;
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	dev->data->dev_link.link_autoneg = RTE_ETH_LINK_AUTONEG;
	dev->data->promiscuous = 0;
	dev->data->all_multicast = 0;
	dev->dev_ops = &ernic_ops;
	dev->rx_pkt_burst = ernic_rx_burst;
	dev->tx_pkt_burst = ernic_tx_burst;
	if (a.pmtu != a.pmtu_asked)
		p->app_tx_cnt[ERNIC_CNT_PMTU_CLAMPED] = 1;
	rte_eth_dev_probing_finish(dev);
	ERNIC_LOG(INFO, "%s: port %u on %s (port %u), MAC " RTE_ETHER_ADDR_PRT_FMT ", %u GID(s), %u worker(s), pmtu %u",
		  name, p->port_id, a.port, under,
		  RTE_ETHER_ADDR_BYTES(&p->mac), p->nb_gid, a.nb_workers,
		  a.pmtu);
	return 0;
fail:
	ernic_port_release(p);
	dev->data->mac_addrs = NULL;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int
ernic_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;	/* already closed by rte_eth_dev_close() */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		ernic_dev_close(dev);
	rte_eth_dev_release_port(dev);
	return 0;
}

static struct rte_vdev_driver ernic_vdev_drv = {
	.probe = ernic_probe,
	.remove = ernic_remove,
};

RTE_PMD_REGISTER_VDEV(net_ernic, ernic_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_ernic, ERNIC_PARAM_STRING);

/* ------------------------------------------------------------------ */
/* rte_pmd_ernic.h accessors                                          */
/* ------------------------------------------------------------------ */

struct roce_device *
rte_pmd_ernic_get_device(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	if (p->rdev == NULL)
		rte_errno = EAGAIN;
	return p->rdev;
}

int
rte_pmd_ernic_nb_workers(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);

	return p != NULL ? p->nb_workers : -ENODEV;
}

struct roce_worker *
rte_pmd_ernic_get_worker(uint16_t port_id, uint16_t idx)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	if (idx >= p->nb_workers) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (p->w == NULL || p->w[idx].rw == NULL) {
		rte_errno = EAGAIN;
		return NULL;
	}
	return p->w[idx].rw;
}

struct roce_worker *
rte_pmd_ernic_pick_worker(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);
	uint32_t i;

	if (p == NULL) {
		rte_errno = ENODEV;
		return NULL;
	}
	i = __atomic_fetch_add(&p->rr_next, 1, __ATOMIC_RELAXED);
	return rte_pmd_ernic_get_worker(port_id, i % p->nb_workers);
}

int
rte_pmd_ernic_gid(uint16_t port_id, unsigned int index, union roce_gid *gid)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	if (gid == NULL)
		return -EINVAL;
	if (index >= p->nb_gid)
		return -ENOENT;
	*gid = p->gid[index];
	return 0;
}

int
rte_pmd_ernic_underlying_port(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);

	return p != NULL ? p->under : -ENODEV;
}

int
rte_pmd_ernic_pmtu(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);

	return p != NULL ? p->args.pmtu : -ENODEV;
}
