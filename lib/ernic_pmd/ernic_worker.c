/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workers of a net_ernic port. Each is a DPDK service ("<port>_w<i>") that
 * runs on the service lcores the application maps, on the lcores given by
 * the lcores= devarg, or inline through rte_pmd_ernic_poll(). QPs belong
 * to the worker of their CQs; a RoCE frame read by another worker is
 * handed to the owner through the owner's handoff ring.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "roce_driver.h"
#include "rte_pmd_ernic.h"

/*
 * Load accounting of one iteration that started at @p now: busy when it
 * moved @p work frames (one more TSC read, on busy polls only).
 */
static inline void
worker_account(struct ernic_worker *w, uint64_t now, unsigned int work)
{
	w->work = work;
	if (work == 0) {
		w->cnt[ERNIC_CNT_IDLE_POLLS]++;
		return;
	}
	w->cnt[ERNIC_CNT_BUSY_POLLS]++;
	w->cnt[ERNIC_CNT_BUSY_CYCLES] += rte_rdtsc() - now;
}

/*
 * One iteration, in the order of the ERNIC datapath:
 *   1. RX burst from the worker's underlying queue, classify and dispatch
 *      (RoCE -> roce_worker_rx_parsed or the owner's handoff ring);
 *   2. RoCE frames handed over by the other workers;
 *   3. roce_worker_poll: control requests, timers, requesters, responders,
 *      TX burst through ernic_worker_tx();
 *   4. worker 0 only: ARP/ND from the other workers, drain the out ring
 *      (application and control frames), the exception tap;
 *   5. busy or idle (worker_account()).
 */
int32_t
ernic_worker_run(void *arg)
{
	struct ernic_worker *w = arg;
	struct ernic_port *p = w->port;
	struct rte_mbuf *pkts[ERNIC_BURST];
	uint64_t now = rte_rdtsc();
	unsigned int n, i, work = 0;

	w->now = now;	/* for rte_pmd_ernic_poll(): one clock read a poll */
	/* no QP pointer held between iterations: destroyed QPs may be freed */
	roce_worker_quiescent(w->rw);
	if (w->rxq >= 0) {
		n = rte_eth_rx_burst(p->under, (uint16_t)w->rxq, pkts,
				     ERNIC_BURST);
		if (n > 0)
			ernic_rx_dispatch(w, pkts, (uint16_t)n, now);
		work += n;
	}
	n = rte_ring_sc_dequeue_burst(w->handoff, (void **)pkts, ERNIC_BURST,
				      NULL);
	if (n > 0)
		roce_worker_rx(w->rw, pkts, (uint16_t)n, now);
	work += n;

	work += (unsigned int)roce_worker_poll(w->rw, now);
	/* register-window QPs of this worker: CQHEAD, RQ pointers, handshake */
	ernic_regs_worker_poll(p, w->idx);

	if (w->idx != 0) {
		worker_account(w, now, work);
		return 0;
	}
	n = rte_ring_sc_dequeue_burst(p->ctl_ring, (void **)pkts, ERNIC_BURST,
				      NULL);
	for (i = 0; i < n; i++)
		ernic_neigh_input(w, pkts[i]);
	work += n;
	ernic_neigh_age(p, now);
	n = rte_ring_sc_dequeue_burst(p->out_ring, (void **)pkts, ERNIC_BURST,
				      NULL);
	if (n > 0)
		ernic_txq_send(p, w->txq, pkts, (uint16_t)n, w->cnt,
			       ERNIC_CNT_TX_OUT);
	work += n;
	if (p->exc.enabled)
		ernic_exc_run(w);
	worker_account(w, now, work);
	return 0;
}

/*
 * roce_tx_burst_t of every worker: its own (or shared) underlying queue,
 * a few tries. What is not sent stays with lib/roce, which keeps it for the
 * next poll and counts the frames it finally has to drop (tx_refused,
 * tx_drop_full).
 */
static uint16_t
ernic_worker_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ernic_worker *w = ctx;
	uint16_t skip = RTE_MIN(w->tx_mirrored, n), sent;

	/* capture: lib/roce passes the frames refused last time first */
	ernic_mirror(w->port, false, pkts + skip, n - skip);
	sent = ernic_txq_burst(w->port, w->txq, pkts, n);
	w->tx_mirrored = n - sent;
	w->cnt[ERNIC_CNT_TX_ROCE] += sent;
	return sent;
}

int
ernic_workers_create(struct ernic_port *p)
{
	struct rte_service_spec spec;
	char name[RTE_RING_NAMESIZE], ename[RTE_ETH_NAME_MAX_LEN];
	struct ernic_worker *w;
	uint16_t i;
	int ret;

	p->w = rte_zmalloc_socket("ernic_workers",
				  p->nb_workers * sizeof(*p->w),
				  RTE_CACHE_LINE_SIZE, p->socket);
	if (p->w == NULL)
		return -ENOMEM;
	if (rte_eth_dev_get_name_by_port(p->port_id, ename) != 0)
		snprintf(ename, sizeof(ename), "ernic%u", p->port_id);
	for (i = 0; i < p->nb_workers; i++) {
		w = &p->w[i];
		w->port = p;
		w->idx = i;
		w->rxq = -1;
		w->lcore = -1;
		w->socket = ernic_numa_worker_socket(p, i);
		snprintf(name, sizeof(name), "ernic%u_h%u", p->port_id, i);
		w->handoff = rte_ring_create(name, ERNIC_HANDOFF_RING,
					     w->socket, RING_F_SC_DEQ);
		if (w->handoff == NULL) {
			ERNIC_LOG(ERR, "port %u: cannot create ring %s: %s",
				  p->port_id, name, rte_strerror(rte_errno));
			ret = -ENOMEM;
			goto fail;
		}
		w->rw = roce_worker_create_socket(p->rdev, ernic_worker_tx, w,
						  w->socket);
		if (w->rw == NULL) {
			ERNIC_LOG(ERR, "port %u: roce_worker_create %u: %s",
				  p->port_id, i, rte_strerror(rte_errno));
			ret = -rte_errno;
			goto fail;
		}
		memset(&spec, 0, sizeof(spec));
		/* "<port name>_w<i>", within RTE_SERVICE_NAME_MAX */
		if (strlen(ename) <= 24)
			snprintf(spec.name, sizeof(spec.name), "%.24s_w%u",
				 ename, i);
		else
			snprintf(spec.name, sizeof(spec.name), "ernic%u_w%u",
				 p->port_id, i);
		spec.callback = ernic_worker_run;
		spec.callback_userdata = w;
		spec.capabilities = 0;	/* MT-unsafe: one thread at a time */
		spec.socket_id = w->socket;
		ret = rte_service_component_register(&spec, &w->service_id);
		if (ret != 0) {
			ERNIC_LOG(ERR, "port %u: cannot register service %s: %s",
				  p->port_id, spec.name, rte_strerror(-ret));
			goto fail;
		}
		w->service_registered = true;
	}
	ret = roce_worker_counters(p->w[0].rw, NULL, 0);
	p->nb_roce_cnt = ret > 0 ? RTE_MIN((unsigned int)ret, 256u) : 0;
	return 0;
fail:
	ernic_workers_destroy(p);
	return ret;
}

/* Map worker @p w to its lcores= entry, adding it as a service lcore. */
static int
ernic_worker_map(struct ernic_port *p, struct ernic_worker *w)
{
	unsigned int lc = p->args.lcores[w->idx % p->args.nb_lcores];
	int ret;

	if (!rte_lcore_is_enabled(lc) || lc == rte_get_main_lcore()) {
		ERNIC_LOG(ERR, "port %u: bad devarg lcores=: lcore %u is not an enabled worker lcore of this EAL (-l/-c/-s)",
			  p->port_id, lc);
		return -EINVAL;
	}
	ret = rte_service_lcore_add(lc);
	if (ret != 0 && ret != -EALREADY) {
		ERNIC_LOG(ERR, "port %u: lcores=: lcore %u cannot become a service lcore: %s",
			  p->port_id, lc, rte_strerror(-ret));
		return ret;
	}
	ret = rte_service_map_lcore_set(w->service_id, lc, 1);
	if (ret != 0)
		return ret;
	w->lcore = (int32_t)lc;
	ret = rte_service_lcore_start(lc);
	return ret == -EALREADY ? 0 : ret;
}

int
ernic_workers_start(struct ernic_port *p)
{
	uint16_t i, nw_tx;
	int ret;

	/* RX: one underlying queue per worker while there are queues. */
	for (i = 0; i < p->nb_workers; i++) {
		p->w[i].rxq = i < p->nb_rxq ? i : -1;
		p->w[i].txq = NULL;
	}
	/* TX: worker i uses queue i, shared when queues are fewer. */
	nw_tx = RTE_MIN(p->nb_txq, p->nb_workers);
	for (i = 0; i < p->nb_txq; i++)
		p->txq[i].users = 0;
	for (i = 0; i < p->nb_workers; i++) {
		p->w[i].txq = &p->txq[i % nw_tx];
		p->w[i].txq->users++;
	}
	if (p->nb_txq > p->nb_workers) {
		p->app_txq = &p->txq[p->nb_workers];
		p->app_txq->users = 1;
	} else {
		p->app_txq = NULL;
	}
	for (i = 0; i < p->nb_workers; i++) {
		struct ernic_worker *w = &p->w[i];

		rte_service_component_runstate_set(w->service_id, 1);
		rte_service_runstate_set(w->service_id, 1);
		if (p->args.nb_lcores > 0) {
			ret = ernic_worker_map(p, w);
			if (ret != 0) {
				ernic_workers_stop(p);
				return ret;
			}
		}
	}
	return 0;
}

void
ernic_workers_stop(struct ernic_port *p)
{
	struct ernic_worker *w;
	uint16_t i;

	if (p->w == NULL)
		return;
	for (i = 0; i < p->nb_workers; i++) {
		w = &p->w[i];
		if (!w->service_registered)
			continue;
		rte_service_runstate_set(w->service_id, 0);
		rte_service_component_runstate_set(w->service_id, 0);
		/* wait for a service lcore still inside the iteration */
		while (rte_service_may_be_active(w->service_id) == 1)
			rte_pause();
		/* nobody polls now: control requests run inline again */
		if (w->rw != NULL)
			roce_worker_unbind(w->rw);
		if (w->lcore >= 0) {
			rte_service_map_lcore_set(w->service_id, w->lcore, 0);
			if (rte_service_lcore_count_services(w->lcore) == 0) {
				rte_service_lcore_stop(w->lcore);
				rte_service_lcore_del(w->lcore);
			}
			w->lcore = -1;
		}
	}
}

void
ernic_workers_destroy(struct ernic_port *p)
{
	struct ernic_worker *w;
	void *m;
	uint16_t i;
	int ret;

	if (p->w == NULL)
		return;
	for (i = 0; i < p->nb_workers; i++) {
		w = &p->w[i];
		if (w->service_registered) {
			rte_service_component_unregister(w->service_id);
			w->service_registered = false;
		}
		if (w->handoff != NULL) {
			while (rte_ring_dequeue(w->handoff, &m) == 0)
				rte_pktmbuf_free(m);
			rte_ring_free(w->handoff);
		}
		if (w->rw != NULL) {
			ret = roce_worker_destroy(w->rw);
			if (ret != 0)
				ERNIC_LOG(ERR, "port %u: roce_worker_destroy %u: %s (CQs or QPs still exist)",
					  p->port_id, i, rte_strerror(-ret));
		}
	}
	rte_free(p->w);
	p->w = NULL;
	p->nb_roce_cnt = 0;
}

/*
 * Every worker of @p p once on this thread, then the control core at most
 * every inline_period: rte_pmd_ernic_poll() and rte_pmd_ernic_poll_work().
 * *@p work gets the frames the workers that ran here moved.
 */
static int
ernic_poll_port(struct ernic_port *p, uint32_t *work)
{
	uint64_t now = 0;
	uint16_t i;
	int ran = 0;

	*work = 0;
	if (!p->started || p->w == NULL)
		return -ENOEXEC;
	for (i = 0; i < p->nb_workers; i++)
		if (rte_service_run_iter_on_app_lcore(p->w[i].service_id,
						      1) == 0) {
			*work += p->w[i].work;
			if (ran++ == 0)
				now = p->w[i].now; /* its clock, read here */
		}
	/*
	 * The control core (QP1, CM, recovery, registrations) after the
	 * workers: it sees their QP1 frames. Not on every call: its work
	 * is on a millisecond scale, and its rings, locks and timer checks
	 * on every poll lengthened each datapath iteration of a single-core
	 * application by about a tenth (the 64 B WRITE loopback profile).
	 * Racing callers at worst run it twice or skip once.
	 */
	if (p->ctrl.service_registered) {
		/* a worker's clock when one ran here (a TSC read is ~36 cycles) */
		if (ran == 0)
			now = rte_rdtsc();
		if (now >= __atomic_load_n(&p->ctrl.next_inline,
					   __ATOMIC_RELAXED)) {
			__atomic_store_n(&p->ctrl.next_inline,
					 now + p->ctrl.inline_period,
					 __ATOMIC_RELAXED);
			rte_service_run_iter_on_app_lcore(p->ctrl.service_id,
							  1);
		}
	}
	return ran;
}

int
rte_pmd_ernic_poll(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);
	uint32_t work;

	if (p == NULL)
		return -ENODEV;
	return ernic_poll_port(p, &work);
}

int
rte_pmd_ernic_poll_work(uint16_t port_id)
{
	struct ernic_port *p = ernic_port_get(port_id);
	uint32_t work;
	int ret;

	if (p == NULL)
		return -ENODEV;
	ret = ernic_poll_port(p, &work);
	return ret < 0 ? ret : (int)RTE_MIN(work, (uint32_t)INT32_MAX);
}

int
rte_pmd_ernic_worker_lcore(uint16_t port_id, uint16_t idx)
{
	struct ernic_port *p = ernic_port_get(port_id);

	if (p == NULL)
		return -ENODEV;
	if (idx >= p->nb_workers)
		return -EINVAL;
	if (p->w == NULL)
		return -EAGAIN;
	return p->w[idx].lcore >= 0 ? p->w[idx].lcore : -ENOENT;
}
