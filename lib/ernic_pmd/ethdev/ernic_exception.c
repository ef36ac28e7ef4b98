/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exception path (exception=<ifname>): a net_tap port with our MAC bridges
 * the non-RoCE traffic to the host's kernel stack and back, so ssh, TCP or
 * a perftest side channel share the port while RoCE stays in the datapath.
 * Workers hand copies of non-RoCE frames (and of ARP/ND, so the host keeps
 * its own neighbour cache) to the exc ring; worker 0 writes them to the tap
 * and sends what the host writes to the tap out of the underlying port.
 * The tap port is owned by the net_ernic port like the underlying one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>

#include "ernic_priv.h"

int
ernic_exc_create(struct ernic_port *p)
{
	struct ernic_exc *x = &p->exc;
	char args[128], rname[RTE_RING_NAMESIZE];
	int ret;

	if (p->args.exception[0] == '\0')
		return 0;
	snprintf(x->vdev, sizeof(x->vdev), "net_tap_ernic%u", p->port_id);
	snprintf(args, sizeof(args), "iface=%s,mac=" RTE_ETHER_ADDR_PRT_FMT,
		 p->args.exception, RTE_ETHER_ADDR_BYTES(&p->mac));
	ret = rte_vdev_init(x->vdev, args);
	if (ret == -EEXIST) {
		/* left by an earlier port of this id (see ernic_exc_destroy) */
		rte_vdev_uninit(x->vdev);
		ret = rte_vdev_init(x->vdev, args);
	}
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: exception=%s: cannot create the tap (%s,%s): %s",
			  p->port_id, p->args.exception, x->vdev, args,
			  rte_strerror(-ret));
		return ret;
	}
	x->enabled = true;	/* from here on, destroy closes the tap */
	x->port_id = RTE_MAX_ETHPORTS;
	ret = rte_eth_dev_get_port_by_name(x->vdev, &x->port_id);
	if (ret == 0)
		ret = rte_eth_dev_owner_set(x->port_id, &p->owner);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: exception=%s: cannot own the tap port: %s",
			  p->port_id, p->args.exception, rte_strerror(-ret));
		return ret;
	}
	x->owned = true;
	snprintf(rname, sizeof(rname), "ernic%u_exc", p->port_id);
	x->ring = rte_ring_create(rname, ERNIC_EXC_RING, p->socket,
				  RING_F_SC_DEQ);
	if (x->ring == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create ring %s: %s",
			  p->port_id, rname, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

int
ernic_exc_start(struct ernic_port *p)
{
	struct ernic_exc *x = &p->exc;
	struct rte_eth_conf conf;
	int ret;

	if (!x->enabled)
		return 0;
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(x->port_id, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(x->port_id, 0, 512, p->socket,
					     NULL, p->rx_pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(x->port_id, 0, 512, p->socket,
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(x->port_id);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: exception=%s: cannot start the tap: %s",
			  p->port_id, p->args.exception, rte_strerror(-ret));
		return ret;
	}
	x->started = true;
	return 0;
}

void
ernic_exc_stop(struct ernic_port *p)
{
	struct ernic_exc *x = &p->exc;

	if (!x->started)
		return;
	x->started = false;
	rte_eth_dev_stop(x->port_id);
}

void
ernic_exc_destroy(struct ernic_port *p)
{
	struct ernic_exc *x = &p->exc;
	void *m;

	ernic_exc_stop(p);
	if (x->ring != NULL) {
		while (rte_ring_dequeue(x->ring, &m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(x->ring);
		x->ring = NULL;
	}
	/*
	 * Close the tap's ethdev (which removes the kernel interface) but
	 * leave its vdev on the bus: we may be called from the vdev bus
	 * cleanup, which walks that list and would trip over a removal.
	 */
	if (x->enabled && rte_eth_dev_is_valid_port(x->port_id)) {
		if (x->owned)
			rte_eth_dev_owner_unset(x->port_id, p->owner.id);
		rte_eth_dev_close(x->port_id);
	}
	x->owned = false;
	x->enabled = false;
}

void
ernic_exc_copy(struct ernic_worker *w, const struct rte_mbuf *m)
{
	struct ernic_port *p = w->port;
	struct rte_mbuf *c;

	if (!p->exc.started)
		return;
	c = rte_pktmbuf_copy(m, p->rx_pool, 0, UINT32_MAX);
	if (c == NULL) {
		w->cnt[ERNIC_CNT_DROP_NOMBUF]++;
		return;
	}
	if (rte_ring_enqueue(p->exc.ring, c) != 0) {
		rte_pktmbuf_free(c);
		w->cnt[ERNIC_CNT_DROP_EXC]++;
	}
}

void
ernic_exc_run(struct ernic_worker *w)
{
	struct ernic_port *p = w->port;
	struct ernic_exc *x = &p->exc;
	struct rte_mbuf *pkts[ERNIC_BURST];
	unsigned int n, k;

	if (!x->started)
		return;
	/* wire -> host */
	n = rte_ring_sc_dequeue_burst(x->ring, (void **)pkts, ERNIC_BURST,
				      NULL);
	if (n > 0) {
		k = rte_eth_tx_burst(x->port_id, 0, pkts, (uint16_t)n);
		w->cnt[ERNIC_CNT_EXC_TO_HOST] += k;
		if (k < n) {
			rte_pktmbuf_free_bulk(pkts + k, n - k);
			w->cnt[ERNIC_CNT_DROP_EXC] += n - k;
		}
	}
	/* host -> wire */
	n = rte_eth_rx_burst(x->port_id, 0, pkts, ERNIC_BURST);
	if (n > 0)
		ernic_txq_send(p, w->txq, pkts, (uint16_t)n, w->cnt,
			       ERNIC_CNT_EXC_FROM_HOST);
}
