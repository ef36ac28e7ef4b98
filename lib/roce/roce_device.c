/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device: configuration, limits, GID table, the QPN table, the MR/MW key
 * table and the asynchronous event ring.
 *
 * Tables are allocated once at create time on the device's socket. The
 * QPN table is written by the control path under ctl_lock and published
 * with release stores (roce_qp_lookup() reads it lock-free). The key table
 * is managed by roce_mr.c. Async events come from any thread (workers,
 * control) and are consumed by the application: a spinlock-guarded ring,
 * slow path only; when full the newest event is dropped and counted.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "roce_priv.h"
#include "roce_qp.h"

/** Async events kept until roce_get_async_event() takes them. */
#define ROCE_EVENT_RING_SIZE 4096

/** Smallest QPN space: QPN 0 and 1 reserved plus two usable QPNs. */
#define ROCE_MIN_QP 4

static int
roce_device_check_config(const struct roce_device_config *cfg,
			 uint32_t *max_qp, uint32_t *max_mr)
{
	unsigned int i;

	*max_qp = cfg->max_qp != 0 ? cfg->max_qp : ROCE_MAX_QP;
	*max_mr = cfg->max_mr != 0 ? cfg->max_mr : ROCE_MAX_MR;
	if (*max_qp < ROCE_MIN_QP || *max_qp > ROCE_MAX_QP ||
	    !rte_is_power_of_2(*max_qp)) {
		ROCE_LOG(ERR, verbs, "max_qp %u: power of two in [%u, %u]",
			 *max_qp, ROCE_MIN_QP, ROCE_MAX_QP);
		return -EINVAL;
	}
	if (*max_mr > ROCE_MAX_MR) {
		ROCE_LOG(ERR, verbs, "max_mr %u above %u", *max_mr,
			 ROCE_MAX_MR);
		return -EINVAL;
	}
	if (cfg->max_mtu != 0 && roce_mtu_bytes(cfg->max_mtu) == 0) {
		ROCE_LOG(ERR, verbs, "max_mtu %d: not an MTU code (1..5)",
			 (int)cfg->max_mtu);
		return -EINVAL;
	}
	if (cfg->vlan && (cfg->vlan_tci & 0x0fff) == 0x0fff) {
		/* VID 0xfff is reserved (IEEE 802.1Q) */
		ROCE_LOG(ERR, verbs, "VLAN ID 4095 is reserved");
		return -EINVAL;
	}
	for (i = 0; i < RTE_DIM(cfg->gid); i++) {
		static const union roce_gid zero;

		if (cfg->gid_valid[i] &&
		    memcmp(&cfg->gid[i], &zero, sizeof(zero)) == 0) {
			ROCE_LOG(ERR, verbs, "GID %u is valid but zero", i);
			return -EINVAL;
		}
	}
	return 0;
}

static void
roce_device_fill_attr(struct roce_device *dev, uint32_t max_qp,
		      uint32_t max_mr)
{
	struct roce_device_attr *a = &dev->attr;

	/* no limit but the address space: bounds are checked without wrap */
	a->max_mr_size = UINT64_MAX;
	a->max_qp = max_qp;
	a->max_qp_wr = ROCE_MAX_QP_WR;
	a->max_sge = ROCE_MAX_SGE;
	a->max_inline = ROCE_MAX_INLINE;
	/* one CQ, PD or SRQ per QP at most is plenty: same count */
	a->max_cq = max_qp;
	a->max_cqe = ROCE_MAX_CQE;
	a->max_mr = max_mr;
	a->max_pd = max_qp;
	a->max_qp_rd_atom = ROCE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = ROCE_MAX_RD_ATOMIC;
	a->max_srq = max_qp;
	a->max_srq_wr = ROCE_MAX_SRQ_WR;
	a->max_msg_sz = ROCE_MAX_MSG_SIZE;
	/* MRs and MWs share the key table */
	a->max_mw = max_mr;
	/* the responder executes atomics with CPU atomic instructions */
	a->atomic_cap = true;
}

struct roce_device *
roce_device_create(const struct roce_device_config *cfg)
{
	struct roce_device *dev;
	uint32_t max_qp, max_mr;
	unsigned int i;
	int socket, ret;

	if (cfg == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	ret = roce_device_check_config(cfg, &max_qp, &max_mr);
	if (ret < 0) {
		rte_errno = -ret;
		return NULL;
	}
	socket = cfg->socket_id;
	dev = rte_zmalloc_socket("roce_device", sizeof(*dev),
				 RTE_CACHE_LINE_SIZE, socket);
	if (dev == NULL)
		goto nomem;
	dev->cfg = *cfg;
	dev->cfg.max_qp = max_qp;
	dev->cfg.max_mr = max_mr;
	if (dev->cfg.max_mtu == 0)
		dev->cfg.max_mtu = ROCE_MTU_4096;
	dev->ack_pkts = cfg->ack_pkts != 0 ? cfg->ack_pkts :
		ROCE_RESP_ACK_PKTS;
	dev->ack_tsc = rte_get_tsc_hz() / 1000000 *
		(cfg->ack_us != 0 ? cfg->ack_us : ROCE_RESP_ACK_US);
	/* the caller's name string need not outlive the call */
	strlcpy(dev->name, cfg->name != NULL ? cfg->name : "roce",
		sizeof(dev->name));
	dev->cfg.name = dev->name;
	roce_device_fill_attr(dev, max_qp, max_mr);
	rte_spinlock_init(&dev->ctl_lock);
	rte_spinlock_init(&dev->ev_lock);
	for (i = 0; i < ROCE_QS_READERS; i++)
		dev->qs_read_seen[i] = ROCE_QS_OFFLINE;

	dev->qp_table = rte_zmalloc_socket("roce_qp_table",
					   sizeof(*dev->qp_table) * max_qp,
					   RTE_CACHE_LINE_SIZE, socket);
	if (dev->qp_table == NULL)
		goto nomem;
	dev->qpn_mask = max_qp - 1;
	dev->qpn_next = 2;
	dev->qpn_first = 2;

	dev->nb_keys = max_mr + 1;
	dev->keys = rte_zmalloc_socket("roce_keys",
				       sizeof(*dev->keys) * dev->nb_keys,
				       RTE_CACHE_LINE_SIZE, socket);
	if (dev->keys == NULL)
		goto nomem;
	dev->zc_dropped = rte_zmalloc_socket("roce_zc_dropped",
					     sizeof(*dev->zc_dropped) *
					     dev->nb_keys,
					     RTE_CACHE_LINE_SIZE, socket);
	if (dev->zc_dropped == NULL)
		goto nomem;
	dev->key_next = 1;

	dev->ev_ring = rte_zmalloc_socket("roce_events",
					  sizeof(*dev->ev_ring) *
					  ROCE_EVENT_RING_SIZE,
					  RTE_CACHE_LINE_SIZE, socket);
	if (dev->ev_ring == NULL)
		goto nomem;
	dev->ev_mask = ROCE_EVENT_RING_SIZE - 1;
	/* down until the PMD reports the link (roce_device_port_event) */
	dev->port_up = false;
	dev->pd_handle_next = 1;
	roce_cc_defaults(dev->cc);
	ROCE_LOG(INFO, verbs, "device %s: %u QPNs, %u keys", dev->name,
		 max_qp, max_mr);
	return dev;

nomem:
	ROCE_LOG(ERR, verbs, "device %s: out of memory",
		 cfg->name != NULL ? cfg->name : "roce");
	if (dev != NULL) {
		rte_free(dev->ev_ring);
		rte_free(dev->zc_dropped);
		rte_free(dev->keys);
		rte_free(dev->qp_table);
		rte_free(dev);
	}
	rte_errno = ENOMEM;
	return NULL;
}

int
roce_device_destroy(struct roce_device *dev)
{
	if (dev == NULL)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->nb_pd != 0 || dev->nb_mr != 0 || dev->nb_mw != 0 ||
	    dev->nb_cq != 0 || dev->nb_qp != 0 || dev->nb_srq != 0 ||
	    dev->nb_worker != 0) {
		rte_spinlock_unlock(&dev->ctl_lock);
		ROCE_LOG(ERR, verbs,
			 "device %s busy: pd %u mr %u mw %u cq %u qp %u srq %u worker %u",
			 dev->name, dev->nb_pd, dev->nb_mr, dev->nb_mw,
			 dev->nb_cq, dev->nb_qp, dev->nb_srq, dev->nb_worker);
		return -EBUSY;
	}
	rte_spinlock_unlock(&dev->ctl_lock);
	/* no worker left: destroyed QPs need no grace period any more */
	roce_qp_reclaim(dev, true);
	rte_free(dev->ev_ring);
	rte_free(dev->zc_dropped);
	rte_free(dev->keys);
	rte_free(dev->qp_table);
	rte_free(dev);
	return 0;
}

int
roce_query_device(const struct roce_device *dev, struct roce_device_attr *attr)
{
	if (dev == NULL || attr == NULL)
		return -EINVAL;
	*attr = dev->attr;
	return 0;
}

int
roce_device_set_gid(struct roce_device *dev, unsigned int index,
		    const union roce_gid *gid)
{
	static const union roce_gid zero;

	if (dev == NULL || index >= RTE_DIM(dev->cfg.gid))
		return -EINVAL;
	/* an all-zero GID is not an address: clear with gid == NULL */
	if (gid != NULL && memcmp(gid, &zero, sizeof(zero)) == 0)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	if (gid != NULL) {
		dev->cfg.gid[index] = *gid;
		dev->cfg.gid_valid[index] = true;
	} else {
		dev->cfg.gid[index] = zero;
		dev->cfg.gid_valid[index] = false;
	}
	rte_spinlock_unlock(&dev->ctl_lock);
	roce_event_raise(dev, ROCE_EVENT_GID_CHANGE, NULL, 0, ROCE_OK);
	return 0;
}

int
roce_device_get_gid(struct roce_device *dev, unsigned int index,
		    union roce_gid *gid)
{
	int ret = 0;

	if (dev == NULL || gid == NULL || index >= RTE_DIM(dev->cfg.gid))
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->cfg.gid_valid[index])
		*gid = dev->cfg.gid[index];
	else
		ret = -ENOENT;
	rte_spinlock_unlock(&dev->ctl_lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* QPN table                                                          */
/* ------------------------------------------------------------------ */

static void
roce_qpn_publish(struct roce_device *dev, struct roce_qp *qp, uint32_t qpn)
{
	qp->qpn = qpn;
	dev->nb_qp++;
	__atomic_store_n(&dev->qp_table[qpn], qp, __ATOMIC_RELEASE);
}

int
roce_qpn_alloc(struct roce_device *dev, struct roce_qp *qp)
{
	uint32_t i, qpn, span;

	if (dev == NULL || qp == NULL)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	/* QPN 0 and 1 are reserved, and those roce_qpn_reserve() keeps */
	span = dev->qpn_mask + 1 - dev->qpn_first;
	for (i = 0; i < span; i++) {
		qpn = dev->qpn_next;
		dev->qpn_next = qpn == dev->qpn_mask ? dev->qpn_first : qpn + 1;
		if (dev->qp_table[qpn] == NULL) {
			roce_qpn_publish(dev, qp, qpn);
			rte_spinlock_unlock(&dev->ctl_lock);
			return (int)qpn;
		}
	}
	rte_spinlock_unlock(&dev->ctl_lock);
	ROCE_LOG(ERR, verbs, "device %s: no QPN left", dev->name);
	return -ENOMEM;
}

int
roce_qpn_alloc_fixed(struct roce_device *dev, struct roce_qp *qp,
		     uint32_t qpn)
{
	if (dev == NULL || qp == NULL || qpn == 0 || qpn > dev->qpn_mask)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->qp_table[qpn] != NULL) {
		rte_spinlock_unlock(&dev->ctl_lock);
		return -EBUSY;
	}
	roce_qpn_publish(dev, qp, qpn);
	rte_spinlock_unlock(&dev->ctl_lock);
	return (int)qpn;
}

int
roce_qpn_move(struct roce_device *dev, struct roce_qp *qp, uint32_t qpn)
{
	if (dev == NULL || qp == NULL || qpn == 0 || qpn > dev->qpn_mask)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->qp_table[qpn] != NULL) {
		rte_spinlock_unlock(&dev->ctl_lock);
		return dev->qp_table[qpn] == qp ? 0 : -EBUSY;
	}
	if (qp->qpn <= dev->qpn_mask && dev->qp_table[qp->qpn] == qp) {
		__atomic_store_n(&dev->qp_table[qp->qpn], NULL,
				 __ATOMIC_RELEASE);
		dev->nb_qp--;
	}
	roce_qpn_publish(dev, qp, qpn);
	rte_spinlock_unlock(&dev->ctl_lock);
	return 0;
}

int
roce_qpn_reserve(struct roce_device *dev, uint32_t last)
{
	uint32_t first;

	if (dev == NULL || last >= dev->qpn_mask)
		return -EINVAL;
	first = last < 2 ? 2 : last + 1;
	rte_spinlock_lock(&dev->ctl_lock);
	dev->qpn_first = first;
	if (dev->qpn_next < first)
		dev->qpn_next = first;
	rte_spinlock_unlock(&dev->ctl_lock);
	return 0;
}

void
roce_qpn_free(struct roce_device *dev, struct roce_qp *qp)
{
	if (dev == NULL || qp == NULL || qp->qpn == 0 ||
	    qp->qpn > dev->qpn_mask)
		return;
	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->qp_table[qp->qpn] == qp) {
		__atomic_store_n(&dev->qp_table[qp->qpn], NULL,
				 __ATOMIC_RELEASE);
		dev->nb_qp--;
	}
	rte_spinlock_unlock(&dev->ctl_lock);
}

/* ------------------------------------------------------------------ */
/* Asynchronous events                                                */
/* ------------------------------------------------------------------ */

void
roce_event_raise(struct roce_device *dev, enum roce_event_type type,
		 void *element, uint32_t qpn, enum roce_err err)
{
	struct roce_async_event *ev;

	if (dev == NULL)
		return;
	rte_spinlock_lock(&dev->ev_lock);
	if (dev->ev_tail - dev->ev_head > dev->ev_mask) {
		struct roce_async_event lost;

		/* keep the oldest events: they explain what followed */
		dev->ev_dropped++;
		if (dev->ev_observer != NULL) {
			memset(&lost, 0, sizeof(lost));
			lost.event_type = type;
			lost.qp_num = qpn;
			lost.err = err;
			dev->ev_observer(dev->ev_observer_ctx, &lost);
		}
		rte_spinlock_unlock(&dev->ev_lock);
		ROCE_LOG(WARNING, verbs, "device %s: async event %d dropped",
			 dev->name, type);
		return;
	}
	ev = &dev->ev_ring[dev->ev_tail & dev->ev_mask];
	memset(ev, 0, sizeof(*ev));
	ev->event_type = type;
	ev->qp_num = qpn;
	ev->err = err;
	switch (type) {
	case ROCE_EVENT_CQ_ERR:
		ev->element.cq = element;
		break;
	case ROCE_EVENT_SRQ_ERR:
	case ROCE_EVENT_SRQ_LIMIT_REACHED:
		ev->element.srq = element;
		break;
	case ROCE_EVENT_PORT_ACTIVE:
	case ROCE_EVENT_PORT_ERR:
	case ROCE_EVENT_LID_CHANGE:
	case ROCE_EVENT_PKEY_CHANGE:
	case ROCE_EVENT_SM_CHANGE:
	case ROCE_EVENT_CLIENT_REREGISTER:
	case ROCE_EVENT_GID_CHANGE:
		/* unaffiliated: the device has one port, number 1 */
		ev->element.port_num = 1;
		break;
	case ROCE_EVENT_DEVICE_FATAL:
		break;
	default:
		/* QP events: fatal, req/access error, comm est, SQ drained... */
		ev->element.qp = element;
		break;
	}
	if (dev->ev_observer != NULL)
		dev->ev_observer(dev->ev_observer_ctx, ev);
	dev->ev_tail++;
	rte_spinlock_unlock(&dev->ev_lock);
}

int
roce_device_set_event_observer(struct roce_device *dev,
			       roce_event_observer_t fn, void *ctx)
{
	if (dev == NULL)
		return -EINVAL;
	rte_spinlock_lock(&dev->ev_lock);
	dev->ev_observer = fn;
	dev->ev_observer_ctx = fn != NULL ? ctx : NULL;
	rte_spinlock_unlock(&dev->ev_lock);
	return 0;
}

uint64_t
roce_device_events_dropped(struct roce_device *dev)
{
	uint64_t n;

	if (dev == NULL)
		return 0;
	rte_spinlock_lock(&dev->ev_lock);
	n = dev->ev_dropped;
	rte_spinlock_unlock(&dev->ev_lock);
	return n;
}

int
roce_get_async_event(struct roce_device *dev, struct roce_async_event *ev)
{
	int ret = 0;

	if (dev == NULL || ev == NULL)
		return -EINVAL;
	rte_spinlock_lock(&dev->ev_lock);
	if (dev->ev_head != dev->ev_tail) {
		*ev = dev->ev_ring[dev->ev_head & dev->ev_mask];
		dev->ev_head++;
		ret = 1;
	}
	rte_spinlock_unlock(&dev->ev_lock);
	return ret;
}

int
roce_device_port_event(struct roce_device *dev, bool up)
{
	bool changed;

	if (dev == NULL)
		return -EINVAL;
	rte_spinlock_lock(&dev->ctl_lock);
	changed = dev->port_up != up;
	dev->port_up = up;
	rte_spinlock_unlock(&dev->ctl_lock);
	/* one event per state change: repeated link reports are not news */
	if (changed)
		roce_event_raise(dev, up ? ROCE_EVENT_PORT_ACTIVE :
				 ROCE_EVENT_PORT_ERR, NULL, 0, ROCE_OK);
	return 0;
}
