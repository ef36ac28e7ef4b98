/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core of a net_ernic port: it owns QP1 (the GSI) and the
 * connection manager of lib/roce (roce_cm.h).
 *
 * - Workers route QP1 frames to ernic_gsi_input() (their GSI handler),
 *   which only enqueues them on the MP/SC gsi_ring: a worker never waits
 *   for the control core; a full ring drops and counts.
 * - The control core is the service "<port name>_cm" (mapped next to
 *   worker 0 when the lcores= devarg maps the workers, otherwise wherever
 *   the application maps it), and rte_pmd_ernic_poll() runs it after the
 *   workers. One iteration takes the QP1 frames, runs the CM on them, then
 *   the CM's retry and timewait timers, with the TSC read once.
 * - The CM sends its MADs through the port's out ring, which worker 0
 *   drains to the wire.
 * - The application's rte_pmd_ernic_cm_* calls and the service iteration
 *   are serialised by ctrl.lock (the iteration only try-locks it).
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_pause.h>
#include <rte_random.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "ernic_priv.h"
#include "roce_cm.h"
#include "roce_driver.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

/** QP1 frames waiting for the control core. */
#define ERNIC_GSI_RING 1024
/** QP1 frames handled per iteration. */
#define ERNIC_GSI_BURST 32

/* GSI handler of every worker: hand the frame over, never wait. */
static void
ernic_gsi_input(void *ctx, struct rte_mbuf *m, const struct roce_pkt *pkt,
		uint64_t now)
{
	struct ernic_worker *w = ctx;

	RTE_SET_USED(pkt);
	RTE_SET_USED(now);
	if (rte_ring_mp_enqueue(w->port->ctrl.gsi_ring, m) != 0) {
		w->cnt[ERNIC_CNT_DROP_GSI_RING_FULL]++;
		rte_pktmbuf_free(m);
		return;
	}
	w->cnt[ERNIC_CNT_RX_GSI]++;
}

/* roce_mad_tx_t of the CM: out ring, drained by worker 0. */
static int
ernic_ctrl_tx(void *ctx, struct rte_mbuf *m)
{
	struct ernic_port *p = ctx;

	return ernic_out_enqueue(p, m, p->ctrl.cnt);
}

int32_t
ernic_ctrl_run(void *arg)
{
	struct ernic_port *p = arg;
	struct ernic_ctrl *c = &p->ctrl;
	struct rte_mbuf *pkts[ERNIC_GSI_BURST];
	unsigned int n, i;
	uint64_t now;

	/* an application call holds the CM: come back next iteration */
	if (!rte_spinlock_trylock(&c->lock))
		return 0;
	now = rte_rdtsc();
	n = rte_ring_sc_dequeue_burst(c->gsi_ring, (void **)pkts,
				      ERNIC_GSI_BURST, NULL);
	for (i = 0; i < n; i++)
		roce_cm_rx(c->cm, pkts[i], now);
	roce_cm_poll(c->cm, now);
	ernic_rrec_run(p, now);		/* ernic_reg_recovery.c */
	ernic_recovery_run(p, now);	/* ernic_recovery.c */
	ernic_mr_svc_run(p);		/* ernic_mr_svc.c */
	rte_spinlock_unlock(&c->lock);
	return 0;
}

int
ernic_ctrl_create(struct ernic_port *p)
{
	struct ernic_ctrl *c = &p->ctrl;
	struct rte_service_spec spec;
	struct roce_cm_config cfg;
	char name[RTE_RING_NAMESIZE], ename[RTE_ETH_NAME_MAX_LEN];
	uint16_t i;
	int ret;

	rte_spinlock_init(&c->lock);
	c->inline_period = rte_get_tsc_hz() * ERNIC_CTRL_INLINE_US / 1000000;
	c->next_inline = 0;
	snprintf(name, sizeof(name), "ernic%u_gsi", p->port_id);
	c->gsi_ring = rte_ring_create(name, ERNIC_GSI_RING, p->socket,
				      RING_F_SC_DEQ);
	if (c->gsi_ring == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create ring %s: %s",
			  p->port_id, name, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.dev = p->rdev;
	cfg.pool = p->tx_pool;
	cfg.tx = ernic_ctrl_tx;
	cfg.tx_ctx = p;
	cfg.hz = rte_get_tsc_hz();
	rte_ether_addr_copy(&p->mac, &cfg.mac);
	cfg.max_ids = RTE_MIN(p->args.max_qps, 65536u);
	cfg.max_mtu = ernic_pmtu_code(p->args.pmtu);
	/* sr=: selective repeat with softernic peers (doc/guides/selective-repeat.rst) */
	cfg.selective_repeat = p->args.sr_off ? ROCE_CM_SR_OFF : ROCE_CM_SR_ON;
	cfg.seed = (uint32_t)rte_rand();
	cfg.socket = p->socket;
	c->cm = roce_cm_create(&cfg);
	if (c->cm == NULL) {
		ret = -rte_errno;
		ERNIC_LOG(ERR, "port %u: cannot create the CM: %s", p->port_id,
			  rte_strerror(rte_errno));
		goto fail;
	}
	ret = ernic_mr_svc_create(p);
	if (ret == 0)
		ret = ernic_recovery_create(p);
	if (ret == 0)
		ret = ernic_rrec_create(p);
	if (ret != 0)
		goto fail;
	memset(&spec, 0, sizeof(spec));
	if (rte_eth_dev_get_name_by_port(p->port_id, ename) != 0 ||
	    strlen(ename) > 24)
		snprintf(ename, sizeof(ename), "ernic%u", p->port_id);
	snprintf(spec.name, sizeof(spec.name), "%.24s_cm", ename);
	spec.callback = ernic_ctrl_run;
	spec.callback_userdata = p;
	spec.capabilities = 0;	/* MT-unsafe: one thread at a time */
	spec.socket_id = p->socket;
	ret = rte_service_component_register(&spec, &c->service_id);
	if (ret != 0) {
		ERNIC_LOG(ERR, "port %u: cannot register service %s: %s",
			  p->port_id, spec.name, rte_strerror(-ret));
		goto fail;
	}
	c->service_registered = true;
	/* nobody polls the workers yet: setting the handlers is safe;
	 * qp1=regs: QP1 is the register window's (ernic_regs_flow.c)
	 */
	for (i = 0; i < p->nb_workers && !p->args.qp1_regs; i++)
		roce_worker_set_gsi_handler(p->w[i].rw, ernic_gsi_input,
					    &p->w[i]);
	return 0;
fail:
	ernic_ctrl_destroy(p);
	return ret;
}

int
ernic_ctrl_start(struct ernic_port *p)
{
	struct ernic_ctrl *c = &p->ctrl;
	int ret;

	if (!c->service_registered)
		return -EINVAL;
	rte_service_component_runstate_set(c->service_id, 1);
	rte_service_runstate_set(c->service_id, 1);
	/* next to worker 0, whose QPs it then modifies inline */
	if (p->w != NULL && p->w[0].lcore >= 0) {
		ret = rte_service_map_lcore_set(c->service_id,
						(uint32_t)p->w[0].lcore, 1);
		if (ret != 0) {
			ernic_ctrl_stop(p);
			return ret;
		}
	}
	return 0;
}

void
ernic_ctrl_stop(struct ernic_port *p)
{
	struct ernic_ctrl *c = &p->ctrl;

	if (!c->service_registered)
		return;
	rte_service_runstate_set(c->service_id, 0);
	rte_service_component_runstate_set(c->service_id, 0);
	while (rte_service_may_be_active(c->service_id) == 1)
		rte_pause();
	ernic_mr_svc_stop(p);
	/* undo our mapping (before the workers' stop may remove the lcore) */
	if (p->w != NULL && p->w[0].lcore >= 0)
		rte_service_map_lcore_set(c->service_id,
					  (uint32_t)p->w[0].lcore, 0);
}

void
ernic_ctrl_destroy(struct ernic_port *p)
{
	struct ernic_ctrl *c = &p->ctrl;
	void *m;
	uint16_t i;

	if (p->w != NULL)
		for (i = 0; i < p->nb_workers; i++)
			if (p->w[i].rw != NULL)
				roce_worker_set_gsi_handler(p->w[i].rw, NULL,
							    NULL);
	if (c->service_registered) {
		rte_service_component_unregister(c->service_id);
		c->service_registered = false;
	}
	if (c->gsi_ring != NULL) {
		while (rte_ring_dequeue(c->gsi_ring, &m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(c->gsi_ring);
		c->gsi_ring = NULL;
	}
	ernic_rrec_destroy(p);
	ernic_mr_svc_destroy(p);
	ernic_recovery_destroy(p);
	roce_cm_destroy(c->cm);
	c->cm = NULL;
}

/* ------------------------------------------------------------------ */
/* Public API                                                         */
/* ------------------------------------------------------------------ */

/* The control core of @p port_id, locked; NULL with *err set. */
static struct ernic_ctrl *
ctrl_lock(uint16_t port_id, int *err)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL) {
		*err = -ENODEV;
		return NULL;
	}
	if (p->ctrl.cm == NULL) {
		*err = -EAGAIN;
		return NULL;
	}
	rte_spinlock_lock(&p->ctrl.lock);
	*err = 0;
	return &p->ctrl;
}

struct roce_cm_listener *
rte_pmd_ernic_cm_listen_ps(uint16_t port_id, const struct roce_cm_addr *addr,
			   enum roce_cm_port_space ps, uint32_t backlog,
			   void *context)
{
	struct roce_cm_listener *l;
	struct ernic_ctrl *c;
	int err;

	c = ctrl_lock(port_id, &err);
	if (c == NULL) {
		rte_errno = -err;
		return NULL;
	}
	l = roce_cm_listen(c->cm, addr, ps, backlog, context);
	rte_spinlock_unlock(&c->lock);
	return l;
}

struct roce_cm_listener *
rte_pmd_ernic_cm_listen(uint16_t port_id, const struct roce_cm_addr *addr,
			uint32_t backlog, void *context)
{
	return rte_pmd_ernic_cm_listen_ps(port_id, addr, ROCE_CM_PS_TCP,
					  backlog, context);
}

int
rte_pmd_ernic_cm_listen_stop(uint16_t port_id, struct roce_cm_listener *l)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	if (l != NULL)
		ernic_recovery_withdraw(ernic_port_get(port_id), NULL, l,
					rte_rdtsc());
	ret = roce_cm_listen_stop(l, rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

/*
 * The source address of an active id toward @p dst (the port's address of
 * its family, an ephemeral port) and the next hop's MAC. The neighbour
 * table has its own lock: this runs outside the CM's.
 */
static int
active_src(uint16_t port_id, const struct roce_cm_addr *dst,
	   struct roce_cm_addr *src, uint8_t mac[6])
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	if (dst == NULL)
		return -EINVAL;
	if (dst->ip_ver == 4 && p->args.has_ip4)
		roce_cm_addr_ipv4(src, p->args.ip4, 0);
	else if (dst->ip_ver == 6 && p->args.has_ip6)
		roce_cm_addr_ipv6(src, p->args.ip6, 0);
	else
		return -EADDRNOTAVAIL;
	return rte_pmd_ernic_resolve(port_id, &dst->gid, mac);
}

int
rte_pmd_ernic_cm_sidr_request(uint16_t port_id,
			      const struct roce_cm_addr *dst,
			      enum roce_cm_port_space ps,
			      const void *private_data, uint8_t len,
			      void *context, struct roce_cm_id **out)
{
	struct roce_cm_addr src;
	struct ernic_ctrl *c;
	uint8_t mac[6];
	int ret;

	ret = active_src(port_id, dst, &src, mac);
	if (ret != 0)
		return ret;
	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_sidr_request(c->cm, &src, dst, mac, ps, private_data,
				   len, context, rte_rdtsc(), out);
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_sidr_reply(uint16_t port_id, struct roce_cm_id *id,
			    uint8_t status, uint32_t qpn, uint32_t qkey,
			    const void *private_data, uint8_t len)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_sidr_reply(id, status, qpn, qkey, private_data, len,
				 rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_connect(uint16_t port_id, const struct roce_cm_addr *dst,
			 struct roce_qp *qp,
			 const struct roce_cm_conn_param *param,
			 void *context, struct roce_cm_id **out)
{
	struct roce_cm_addr src;
	struct ernic_ctrl *c;
	uint8_t mac[6];
	int ret;

	ret = active_src(port_id, dst, &src, mac);
	if (ret != 0)
		return ret;
	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_connect(c->cm, &src, dst, mac, qp, param, context,
			      rte_rdtsc(), out);
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_accept(uint16_t port_id, struct roce_cm_id *id,
			struct roce_qp *qp,
			const struct roce_cm_conn_param *param, void *context)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_accept(id, qp, param, context, rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_reject(uint16_t port_id, struct roce_cm_id *id,
			uint16_t reason, const void *private_data,
			uint8_t len)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_reject(id, reason, private_data, len, rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_disconnect(uint16_t port_id, struct roce_cm_id *id)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ernic_recovery_forget(ernic_port_get(port_id), id);
	ret = roce_cm_disconnect(id, rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_detach_qp(uint16_t port_id, struct roce_cm_id *id)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ernic_recovery_forget(ernic_port_get(port_id), id);
	ret = roce_cm_detach_qp(id);
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_destroy_id(uint16_t port_id, struct roce_cm_id *id)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ernic_recovery_forget(ernic_port_get(port_id), id);
	ret = roce_cm_destroy_id(id, rte_rdtsc());
	if (ret == 0)
		ernic_recovery_withdraw(ernic_port_get(port_id), id, NULL,
					rte_rdtsc());
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_get_event(uint16_t port_id, struct roce_cm_event *ev)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = ernic_recovery_get_event(ernic_port_get(port_id), ev);
	rte_spinlock_unlock(&c->lock);
	return ret;
}

int
rte_pmd_ernic_cm_counters(uint16_t port_id, struct roce_counter *cn,
			  unsigned int n)
{
	struct ernic_ctrl *c;
	int ret;

	c = ctrl_lock(port_id, &ret);
	if (c == NULL)
		return ret;
	ret = roce_cm_counters(c->cm, cn, n);
	/* then the registration service's and the recovery's */
	if (ret >= 0) {
		struct ernic_port *p = ernic_port_get(port_id);
		unsigned int k = RTE_MIN((unsigned int)ret, n);

		ret += ernic_mr_svc_counters(p, cn + k, n - k);
		k = RTE_MIN((unsigned int)ret, n);
		ret += ernic_recovery_counters(p, cn + k, n - k);
		k = RTE_MIN((unsigned int)ret, n);
		ret += ernic_rrec_counters(p, cn + k, n - k);
		/* a gauge: ids of the CM in use (connections, timewaits) */
		if ((unsigned int)ret < n) {
			cn[ret].name = "cm_ids_in_use";
			cn[ret].value = roce_cm_nb_ids(c->cm);
		}
		ret++;
		/* and those whose DREQ awaits its DREP */
		if ((unsigned int)ret < n) {
			cn[ret].name = "cm_ids_closing";
			cn[ret].value = roce_cm_nb_closing(c->cm);
		}
		ret++;
	}
	rte_spinlock_unlock(&c->lock);
	return ret;
}
