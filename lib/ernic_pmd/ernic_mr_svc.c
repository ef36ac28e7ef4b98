/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration service of the control core (rte_pmd_ernic.h,
 * doc/guides/pmd.rst "Memory registration service").
 *
 * - Any lcore queues a struct rte_pmd_ernic_mr_req on the MP/SC request
 *   ring; the control core (ernic_ctrl_run) executes requests in order:
 *   roce_reg_mr(), roce_dereg_mr(), or a PD table entry of the register
 *   window rewritten at once under the window lock and republished
 *   (ernic_flow_pdt_update). The key table stays lock-free for the
 *   workers: its entries are seqlock-versioned (roce_mr.c).
 * - Deregistration and PD table changes end with a grace period before
 *   the request completes: the key is invalid from the first step (its
 *   state word changed), then every worker of the port gets a no-op on
 *   its control ring (roce_worker_exec_async). A worker runs its control
 *   ring at the start of a poll, so when the no-op ran, the packet it was
 *   handling when the key went invalid is finished; later packets re-check
 *   the key (roce_key_ref_valid() in the responder before every WRITE
 *   copy and READ response packet) and get a remote access error NAK.
 *   Zero-copy READ responses still attached to the memory are counted in
 *   the key entry (roce_key_zc_inflight()): the grace period also waits
 *   for them.
 * - Nothing here blocks the control core: grace periods are polled on
 *   later iterations.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_service.h>

#include "ernic_priv.h"
#include "ernic_regs.h"
#include "roce_driver.h"
#include "rte_pmd_ernic.h"

/** Requests waiting for the control core. */
#define MR_SVC_RING 256
/** Requests executed per iteration. */
#define MR_SVC_BURST 16
/** At stop, how long grace periods may still take (ms). */
#define MR_SVC_STOP_WAIT_MS 1000

enum mr_svc_cnt {
	MR_CNT_REG_OK,
	MR_CNT_REG_FAIL,
	MR_CNT_DEREG_OK,
	MR_CNT_DEREG_FAIL,
	MR_CNT_PDT_SET_OK,
	MR_CNT_PDT_SET_FAIL,
	MR_CNT_GRACE,
	MR_CNT_GRACE_ZC_WAIT,
	MR_CNT_RING_FULL,
	MR_CNT_CANCELLED,
	MR_CNT_MAX,
};

static const char *const mr_cnt_names[MR_CNT_MAX] = {
	[MR_CNT_REG_OK] = "mr_reg",
	[MR_CNT_REG_FAIL] = "mr_reg_failed",
	[MR_CNT_DEREG_OK] = "mr_dereg",
	[MR_CNT_DEREG_FAIL] = "mr_dereg_failed",
	[MR_CNT_PDT_SET_OK] = "mr_pdt_set",
	[MR_CNT_PDT_SET_FAIL] = "mr_pdt_set_failed",
	[MR_CNT_GRACE] = "mr_grace_periods",
	[MR_CNT_GRACE_ZC_WAIT] = "mr_grace_zc_waits",
	[MR_CNT_RING_FULL] = "mr_submit_ring_full",
	[MR_CNT_CANCELLED] = "mr_cancelled",
};

/** A grace period in progress (owned by the service). */
struct mr_grace {
	TAILQ_ENTRY(mr_grace) next;
	struct rte_pmd_ernic_mr_req *req;	/**< NULL once completed early */
	int result;
	/** Device and key index whose zero-copy frames the grace waits for. */
	struct roce_device *zc_dev;	/**< NULL: none */
	uint32_t zc_idx;
	bool zc_counted;
	uint16_t nb;			/**< workers probed */
	bool queued[ERNIC_MAX_WORKERS];
	struct roce_worker_ctl ctl[ERNIC_MAX_WORKERS];
};

TAILQ_HEAD(mr_grace_list, mr_grace);

struct ernic_mr_svc {
	struct rte_ring *ring;		/**< rte_pmd_ernic_mr_req *, MP/SC */
	struct mr_grace_list grace;	/**< in progress (control core) */
	struct mr_grace_list orphans;	/**< completed, probes still queued */
	uint64_t cnt[MR_CNT_MAX];	/**< written by the control core */
	uint64_t ring_full;		/**< submitters (atomic) */
};

static inline void
req_complete(struct rte_pmd_ernic_mr_req *req, int result)
{
	req->result = result;
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

/* The quiescence probe: running it at all is the point. */
static int
mr_probe(void *arg)
{
	RTE_SET_USED(arg);
	return 0;
}

/* Queue the probes not queued yet; true when every probe has run. */
static bool
grace_probes_done(struct ernic_port *p, struct mr_grace *g)
{
	bool all = true;
	uint16_t i;
	int rc;

	for (i = 0; i < g->nb; i++) {
		if (!g->queued[i]) {
			rc = roce_worker_exec_async(p->w[i].rw, &g->ctl[i]);
			if (rc < 0) {
				all = false;	/* ring full: next iteration */
				continue;
			}
			g->queued[i] = true;
		}
		if (__atomic_load_n(&g->ctl[i].done, __ATOMIC_ACQUIRE) == 0)
			all = false;
	}
	return all;
}

/* Start the grace period of @p req (the key is already invalid). */
static void
grace_start(struct ernic_port *p, struct ernic_mr_svc *s, struct mr_grace *g,
	    struct rte_pmd_ernic_mr_req *req, struct roce_device *dev,
	    uint32_t zc_idx)
{
	uint16_t i;

	g->req = req;
	g->result = 0;
	g->zc_dev = dev;
	g->zc_idx = zc_idx;
	g->nb = p->nb_workers;
	for (i = 0; i < g->nb; i++) {
		g->ctl[i].fn = mr_probe;
		g->ctl[i].arg = NULL;
		g->queued[i] = false;
	}
	s->cnt[MR_CNT_GRACE]++;
	TAILQ_INSERT_TAIL(&s->grace, g, next);
}

/* Grace periods that are over complete their requests. */
static void
grace_poll(struct ernic_port *p, struct ernic_mr_svc *s)
{
	struct mr_grace *g, *n;

	for (g = TAILQ_FIRST(&s->grace); g != NULL; g = n) {
		n = TAILQ_NEXT(g, next);
		if (!grace_probes_done(p, g))
			continue;
		/* frames sent zero-copy from the memory are still out */
		if (g->zc_dev != NULL &&
		    roce_key_zc_inflight(g->zc_dev, g->zc_idx) != 0) {
			if (!g->zc_counted)
				s->cnt[MR_CNT_GRACE_ZC_WAIT]++;
			g->zc_counted = true;
			continue;
		}
		TAILQ_REMOVE(&s->grace, g, next);
		if (g->req != NULL)
			req_complete(g->req, g->result);
		rte_free(g);
	}
}

static uint32_t
pdt_access_bits(uint8_t access)
{
	switch (access) {
	case RTE_PMD_ERNIC_PDT_READ:
		return ERNIC_ACC_READ;
	case RTE_PMD_ERNIC_PDT_WRITE:
		return ERNIC_ACC_WRITE;
	case RTE_PMD_ERNIC_PDT_RDWR:
		return ERNIC_ACC_RDWR;
	default:
		return UINT32_MAX;
	}
}

/*
 * PD table entry @p idx := @p e (NULL or empty: cleared), all registers
 * under the window lock and one republication. Returns 0 or -EINVAL;
 * *had_old tells whether a mapping was unpublished.
 */
static int
pdt_set(struct ernic_port *p, uint32_t idx,
	const struct rte_pmd_ernic_pdt_entry *e, bool *had_old)
{
	struct ernic_regs *rg = p->regs;
	struct ernic_pdt_entry *pe;
	uint32_t r[8], acc = 0;
	uint64_t base = 0, len = 0;
	bool want;

	*had_old = false;
	if (rg == NULL || idx >= ERNIC_PDT_ENTRIES)
		return -EINVAL;
	want = e != NULL && e->length != 0 && e->addr != NULL;
	memset(r, 0, sizeof(r));
	if (want) {
		acc = pdt_access_bits(e->access);
		base = (uint64_t)(uintptr_t)e->addr;
		len = e->length;
		if (acc == UINT32_MAX || e->pdnum >= ERNIC_NUM_PD ||
		    (len >> 48) != 0)
			return -EINVAL;
		r[ERNIC_PDPDNUM / 4] = e->pdnum;
		r[ERNIC_VIRTADDRLSB / 4] = (uint32_t)e->va;
		r[ERNIC_VIRTADDRMSB / 4] = (uint32_t)(e->va >> 32);
		r[ERNIC_BUFBASEADDRLSB / 4] = (uint32_t)base;
		r[ERNIC_BUFBASEADDRMSB / 4] = (uint32_t)(base >> 32);
		r[ERNIC_BUFRKEY / 4] = e->rkey;
		r[ERNIC_WRRDBUFLEN / 4] = (uint32_t)len;
		r[ERNIC_ACCESSDESC / 4] = acc |
			(uint32_t)(len >> 32) << ERNIC_ACC_LENMSB_SHIFT;
	}
	rte_spinlock_lock(&rg->lock);
	pe = &rg->pdt[idx];
	*had_old = pe->mr != NULL;
	memcpy(pe->r, r, sizeof(pe->r));
	ernic_flow_pdt_update(rg, idx);
	want = want && rg->attached && pe->mr == NULL;
	rte_spinlock_unlock(&rg->lock);
	/* the flow refused the entry (bad range, PD, key table): cleared */
	return want ? -EINVAL : 0;
}

/* Execute one request; it completes now or after its grace period. */
static void
mr_exec(struct ernic_port *p, struct ernic_mr_svc *s,
	struct rte_pmd_ernic_mr_req *req)
{
	struct roce_device *dev = p->rdev;
	struct mr_grace *g;
	uint32_t idx;
	bool had_old;
	int ret;

	switch (req->op) {
	case RTE_PMD_ERNIC_MR_REG:
		if (req->pd == NULL || roce_pd_device(req->pd) != dev) {
			s->cnt[MR_CNT_REG_FAIL]++;
			req_complete(req, -EINVAL);
			return;
		}
		req->mr = roce_reg_mr(req->pd, req->addr, req->length,
				      req->access);
		if (req->mr == NULL) {
			s->cnt[MR_CNT_REG_FAIL]++;
			req_complete(req, -rte_errno);
			return;
		}
		s->cnt[MR_CNT_REG_OK]++;
		req_complete(req, 0);
		return;
	case RTE_PMD_ERNIC_MR_DEREG:
	case RTE_PMD_ERNIC_MR_PDT_SET:
		break;
	default:
		req_complete(req, -EINVAL);
		return;
	}
	/* before anything changes: no memory, no change */
	g = rte_zmalloc_socket("ernic_mr_grace", sizeof(*g), 0, p->socket);
	if (g == NULL) {
		s->cnt[req->op == RTE_PMD_ERNIC_MR_DEREG ? MR_CNT_DEREG_FAIL :
		       MR_CNT_PDT_SET_FAIL]++;
		req_complete(req, -ENOMEM);
		return;
	}
	if (req->op == RTE_PMD_ERNIC_MR_DEREG) {
		if (req->mr == NULL || roce_mr_device(req->mr) != dev) {
			ret = -EINVAL;
		} else {
			idx = roce_mr_key_index(req->mr);
			/* the grace period below waits for its zero-copy frames */
			ret = roce_dereg_mr_nowait(req->mr);
		}
		if (ret != 0) {
			rte_free(g);
			s->cnt[MR_CNT_DEREG_FAIL]++;
			req_complete(req, ret);
			return;
		}
		s->cnt[MR_CNT_DEREG_OK]++;
		grace_start(p, s, g, req, dev, idx);
		return;
	}
	ret = pdt_set(p, req->pdt_index, &req->pdt, &had_old);
	s->cnt[ret == 0 ? MR_CNT_PDT_SET_OK : MR_CNT_PDT_SET_FAIL]++;
	if (!had_old) {
		rte_free(g);
		req_complete(req, ret);
		return;
	}
	grace_start(p, s, g, req, dev, req->pdt_index);
	g->result = ret;
}

void
ernic_mr_svc_run(struct ernic_port *p)
{
	struct ernic_mr_svc *s = p->ctrl.mr_svc;
	void *reqs[MR_SVC_BURST];
	unsigned int n, i;

	if (s == NULL)
		return;
	n = rte_ring_sc_dequeue_burst(s->ring, reqs, RTE_DIM(reqs), NULL);
	for (i = 0; i < n; i++)
		mr_exec(p, s, reqs[i]);
	if (!TAILQ_EMPTY(&s->grace))
		grace_poll(p, s);
}

int
ernic_mr_svc_create(struct ernic_port *p)
{
	struct ernic_mr_svc *s;
	char name[RTE_RING_NAMESIZE];

	s = rte_zmalloc_socket("ernic_mr_svc", sizeof(*s), 0, p->socket);
	if (s == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "ernic%u_mr", p->port_id);
	s->ring = rte_ring_create(name, MR_SVC_RING, p->socket, RING_F_SC_DEQ);
	if (s->ring == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create ring %s: %s",
			  p->port_id, name, rte_strerror(rte_errno));
		rte_free(s);
		return -ENOMEM;
	}
	TAILQ_INIT(&s->grace);
	TAILQ_INIT(&s->orphans);
	p->ctrl.mr_svc = s;
	return 0;
}

void
ernic_mr_svc_stop(struct ernic_port *p)
{
	struct ernic_mr_svc *s = p->ctrl.mr_svc;
	uint64_t end;
	struct mr_grace *g;
	void *req;

	if (s == NULL)
		return;
	/* never executed: the caller may retry once the port runs again */
	while (rte_ring_dequeue(s->ring, &req) == 0) {
		s->cnt[MR_CNT_CANCELLED]++;
		req_complete(req, -ENETDOWN);
	}
	/* the workers still run (they stop after the control core) */
	end = rte_get_timer_cycles() +
		rte_get_timer_hz() * MR_SVC_STOP_WAIT_MS / 1000;
	while (!TAILQ_EMPTY(&s->grace) && rte_get_timer_cycles() < end) {
		grace_poll(p, s);
		rte_pause();
	}
	/*
	 * Left: workers polled by nobody (or by this thread). They stop next,
	 * running their control rings (roce_worker_unbind): the key is
	 * invalid already, the requests complete; the probes are freed at
	 * destroy, after the workers' stop ran them.
	 */
	while ((g = TAILQ_FIRST(&s->grace)) != NULL) {
		TAILQ_REMOVE(&s->grace, g, next);
		if (g->req != NULL)
			req_complete(g->req, g->result);
		g->req = NULL;
		TAILQ_INSERT_TAIL(&s->orphans, g, next);
	}
}

void
ernic_mr_svc_destroy(struct ernic_port *p)
{
	struct ernic_mr_svc *s = p->ctrl.mr_svc;
	struct mr_grace *g;

	if (s == NULL)
		return;
	ernic_mr_svc_stop(p);
	while ((g = TAILQ_FIRST(&s->orphans)) != NULL) {
		TAILQ_REMOVE(&s->orphans, g, next);
		rte_free(g);
	}
	rte_ring_free(s->ring);
	rte_free(s);
	p->ctrl.mr_svc = NULL;
}

int
ernic_mr_svc_counters(const struct ernic_port *p, struct roce_counter *c,
		      unsigned int n)
{
	const struct ernic_mr_svc *s = p->ctrl.mr_svc;
	unsigned int i;

	if (s == NULL)
		return 0;
	for (i = 0; i < MR_CNT_MAX && i < n; i++) {
		c[i].name = mr_cnt_names[i];
		c[i].value = i == MR_CNT_RING_FULL ?
			__atomic_load_n(&s->ring_full, __ATOMIC_RELAXED) :
			s->cnt[i];
	}
	return MR_CNT_MAX;
}

/* ------------------------------------------------------------------ */
/* Public API                                                         */
/* ------------------------------------------------------------------ */

int
rte_pmd_ernic_mr_submit(uint16_t port_id, struct rte_pmd_ernic_mr_req *req)
{
	struct ernic_port *p = ernic_port_get(port_id);
	struct ernic_mr_svc *s;

	if (p == NULL)
		return -ENODEV;
	if (req == NULL || (unsigned int)req->op > RTE_PMD_ERNIC_MR_PDT_SET)
		return -EINVAL;
	s = p->ctrl.mr_svc;
	if (!p->started || s == NULL || p->rdev == NULL)
		return -EAGAIN;
	req->result = 0;
	__atomic_store_n(&req->done, 0, __ATOMIC_RELAXED);
	if (rte_ring_mp_enqueue(s->ring, req) != 0) {
		__atomic_fetch_add(&s->ring_full, 1, __ATOMIC_RELAXED);
		return -ENOBUFS;
	}
	return 0;
}

int
rte_pmd_ernic_mr_poll(const struct rte_pmd_ernic_mr_req *req)
{
	if (req == NULL)
		return -EINVAL;
	if (__atomic_load_n(&req->done, __ATOMIC_ACQUIRE) == 0)
		return -EINPROGRESS;
	return req->result;
}

/* True when the control core of @p p runs on a service lcore. */
static bool
ctrl_on_service_lcore(const struct ernic_port *p)
{
	uint32_t lcores[RTE_MAX_LCORE];
	int n, i;

	if (!p->ctrl.service_registered)
		return false;
	n = rte_service_lcore_list(lcores, RTE_DIM(lcores));
	for (i = 0; i < n; i++)
		if (rte_service_map_lcore_get(p->ctrl.service_id,
					      lcores[i]) == 1)
			return true;
	return false;
}

/* Submit @p req and wait for its completion. */
static int
mr_call(uint16_t port_id, struct rte_pmd_ernic_mr_req *req)
{
	struct ernic_port *p = ernic_port_get(port_id);
	bool drive;
	int ret;

	if (p == NULL)
		return -ENODEV;
	do {
		ret = rte_pmd_ernic_mr_submit(port_id, req);
		if (ret == -ENOBUFS)
			rte_pause();
	} while (ret == -ENOBUFS);
	if (ret != 0)
		return ret;
	drive = !ctrl_on_service_lcore(p);
	while ((ret = rte_pmd_ernic_mr_poll(req)) == -EINPROGRESS) {
		if (drive)
			rte_pmd_ernic_poll(port_id);
		else
			rte_pause();
	}
	return ret;
}

struct roce_mr *
rte_pmd_ernic_reg_mr(uint16_t port_id, struct roce_pd *pd, void *addr,
		     size_t length, int access)
{
	struct rte_pmd_ernic_mr_req req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.op = RTE_PMD_ERNIC_MR_REG;
	req.pd = pd;
	req.addr = addr;
	req.length = length;
	req.access = access;
	ret = mr_call(port_id, &req);
	if (ret != 0) {
		rte_errno = -ret;
		return NULL;
	}
	return req.mr;
}

int
rte_pmd_ernic_dereg_mr(uint16_t port_id, struct roce_mr *mr)
{
	struct rte_pmd_ernic_mr_req req;

	if (mr == NULL)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = RTE_PMD_ERNIC_MR_DEREG;
	req.mr = mr;
	return mr_call(port_id, &req);
}

int
rte_pmd_ernic_pdt_set(uint16_t port_id, uint32_t index,
		      const struct rte_pmd_ernic_pdt_entry *e)
{
	struct rte_pmd_ernic_mr_req req;

	if (index >= ERNIC_PDT_ENTRIES)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.op = RTE_PMD_ERNIC_MR_PDT_SET;
	req.pdt_index = index;
	if (e != NULL)
		req.pdt = *e;
	return mr_call(port_id, &req);
}
