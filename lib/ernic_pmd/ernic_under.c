/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port under a net_ernic port: its queues (as many as the workers, and
 * how many TX queues a driver with paired queues allows), its
 * configuration and MTU, the multicast MACs of our IPv6 solicited-node
 * groups. Called by ernic_dev_start() and the MAC and multicast dev_ops.
 */
#include <errno.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_ethdev.h>

#include "ernic_priv.h"

/* Multicast MACs of our IPv6 solicited-node groups (RFC 4291 2.7.1). */
void
ernic_mc_filter(struct ernic_port *p)
{
	struct rte_ether_addr mc[ERNIC_GID_MAX + 1];
	uint32_t n = 0, i;

	memset(mc, 0, sizeof(mc));
	/* all-nodes 33:33:00:00:00:01 */
	mc[n].addr_bytes[0] = 0x33;
	mc[n].addr_bytes[1] = 0x33;
	mc[n].addr_bytes[5] = 0x01;
	n++;
	for (i = 0; i < p->nb_gid; i++) {
		const uint8_t *g = p->gid[i].raw;

		if (g[10] == 0xff && g[11] == 0xff && g[0] == 0 && g[1] == 0)
			continue;	/* IPv4-mapped */
		mc[n].addr_bytes[0] = 0x33;
		mc[n].addr_bytes[1] = 0x33;
		mc[n].addr_bytes[2] = 0xff;
		mc[n].addr_bytes[3] = g[13];
		mc[n].addr_bytes[4] = g[14];
		mc[n].addr_bytes[5] = g[15];
		n++;
	}
	if (rte_eth_dev_set_mc_addr_list(p->under, mc, n) != 0 &&
	    rte_eth_allmulticast_enable(p->under) != 0)
		ERNIC_LOG(WARNING, "port %u: underlying port %u accepts neither a multicast list nor allmulticast: IPv6 neighbour solicitations may be lost",
			  p->port_id, p->under);
}

/*
 * Drivers whose queues come in pairs with a peer's: TX queue i of one end
 * is RX queue i of the other, and the ends must agree on the counts
 * (net_memif refuses a peer with more TX rings than it has RX rings:
 * "Invalid ring index"). On these the underlying port gets as many TX as
 * RX queues, one each per worker, and no spare TX queue: the
 * application's frames go out through worker 0 (out_ring). Any other
 * driver gets a TX queue per worker plus one for the application. A
 * wrapper port that passes its queues through to a port it owns (as
 * net_fault does: ethdev ownership under the wrapper's name) is decided
 * by the port below it.
 */
static int
ernic_port_below(uint16_t wrapper)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev_owner o;
	uint16_t pid;

	if (rte_eth_dev_get_name_by_port(wrapper, name) != 0)
		return -ENODEV;
	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++)
		if (pid != wrapper && rte_eth_dev_is_valid_port(pid) &&
		    rte_eth_dev_owner_get(pid, &o) == 0 &&
		    o.id != RTE_ETH_DEV_NO_OWNER &&
		    strcmp(o.name, name) == 0)
			return pid;
	return -ENODEV;
}

static bool
ernic_under_paired_queues(uint16_t under, const struct rte_eth_dev_info *ui)
{
	static const char *const paired[] = { "net_memif" };
	struct rte_eth_dev_info bi;
	unsigned int i;
	int below;

	if (ui->driver_name == NULL)
		return false;
	below = ernic_port_below(under);
	if (below >= 0 && rte_eth_dev_info_get((uint16_t)below, &bi) == 0)
		return ernic_under_paired_queues((uint16_t)below, &bi);
	for (i = 0; i < RTE_DIM(paired); i++)
		if (strcmp(ui->driver_name, paired[i]) == 0)
			return true;
	return false;
}

int
ernic_under_setup(struct rte_eth_dev *dev)
{
	struct ernic_port *p = dev->data->dev_private;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info ui;
	struct rte_ether_addr umac;
	uint16_t nb_rxd = ERNIC_RX_DESC, nb_txd = ERNIC_TX_DESC, q;
	int ret;

	ret = rte_eth_dev_info_get(p->under, &ui);
	if (ret != 0)
		return ret;
	p->nb_rxq = RTE_MIN(p->nb_workers, ui.max_rx_queues);
	if (ernic_under_paired_queues(p->under, &ui)) {
		/* as many TX as RX queues; application frames via out_ring */
		p->nb_rxq = RTE_MIN(p->nb_rxq, ui.max_tx_queues);
		p->nb_txq = p->nb_rxq;
	} else {
		/* a TX queue per worker and a spare one for tx_burst */
		p->nb_txq = RTE_MIN(p->nb_workers + 1, ui.max_tx_queues);
	}
	if (p->nb_rxq == 0 || p->nb_txq == 0) {
		ERNIC_LOG(ERR, "port %u: underlying port %u has no queues",
			  p->port_id, p->under);
		return -ENOTSUP;
	}
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = dev->data->mtu;
	/* chained frames: payload copies past one mbuf, zero-copy payload */
	conf.txmode.offloads = ui.tx_offload_capa &
		RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (p->nb_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP |
			RTE_ETH_RSS_UDP;
		conf.rx_adv_conf.rss_conf.rss_hf &= ui.flow_type_rss_offloads;
		if (conf.rx_adv_conf.rss_conf.rss_hf == 0)
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
	}
	if (rte_eth_devices[p->under].data->dev_started)
		rte_eth_dev_stop(p->under);
	ret = rte_eth_dev_configure(p->under, p->nb_rxq, p->nb_txq, &conf);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: configuring underlying port %u (%u rxq, %u txq, mtu %u) failed: %s",
			  p->port_id, p->under, p->nb_rxq, p->nb_txq,
			  dev->data->mtu, rte_strerror(-ret));
		return ret;
	}
	rte_eth_dev_adjust_nb_rx_tx_desc(p->under, &nb_rxd, &nb_txd);
	for (q = 0; q < p->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(p->under, q, nb_rxd, p->socket,
					     NULL, p->rx_pool);
		if (ret != 0) {
			ERNIC_LOG(ERR, "port %u: underlying RX queue %u: %s",
				  p->port_id, q, rte_strerror(-ret));
			return ret;
		}
	}
	for (q = 0; q < p->nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(p->under, q, nb_txd, p->socket,
					     NULL);
		if (ret != 0) {
			ERNIC_LOG(ERR, "port %u: underlying TX queue %u: %s",
				  p->port_id, q, rte_strerror(-ret));
			return ret;
		}
		p->txq[q].qid = q;
		p->txq[q].users = 0;
		rte_spinlock_init(&p->txq[q].lock);
	}
	/* Receive our MAC if it is not the underlying port's own. */
	if (rte_eth_macaddr_get(p->under, &umac) == 0 &&
	    !rte_is_same_ether_addr(&umac, &p->mac) &&
	    rte_eth_dev_mac_addr_add(p->under, &p->mac, 0) != 0 &&
	    rte_eth_promiscuous_enable(p->under) != 0)
		ERNIC_LOG(WARNING, "port %u: underlying port %u cannot receive MAC " RTE_ETHER_ADDR_PRT_FMT,
			  p->port_id, p->under,
			  RTE_ETHER_ADDR_BYTES(&p->mac));
	ernic_mc_filter(p);
	p->under_configured = true;
	return 0;
}
