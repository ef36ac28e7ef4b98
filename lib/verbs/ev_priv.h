/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EV_PRIV_H
#define EV_PRIV_H

/*
 * libernic_verbs (internal): the libibverbs ABI over lib/roce and the
 * net_ernic PMD (doc/guides/verbs.rst). Every ibverbs object is a struct
 * of this library whose first member is the public struct the program
 * sees (struct ibv_qp_ex, struct ibv_cq_ex, ...), so that the inline
 * functions of <infiniband/verbs.h> reach the library through the
 * function pointers of those structs and of struct verbs_context.
 *
 * Threads (ev_env.c): every thread that runs a port's workers takes the
 * port's drive lock (ev_port_drive() tries it, control operations wait
 * for it); control operations are also serialised by one mutex, in this
 * order (ctl, then drive). The datapath of each queue is guarded by its
 * own spinlock, since libibverbs lets any thread post or poll.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <rte_branch_prediction.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "roce_verbs.h"

/*
 * The locks of the queues and of a port's drive: taken on every post and
 * poll. An exchange to take, a release store to give back (DPDK's x86
 * spinlock gives back with an exchange too: a second locked instruction
 * a post, about as much again as the rest of it).
 */
typedef struct {
	uint32_t held;
} ev_lock_t;

static inline void
ev_lock_init(ev_lock_t *l)
{
	l->held = 0;
}

static inline bool
ev_trylock(ev_lock_t *l)
{
	return __atomic_load_n(&l->held, __ATOMIC_RELAXED) == 0 &&
		__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void
ev_lock(ev_lock_t *l)
{
	while (unlikely(__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE)))
		while (__atomic_load_n(&l->held, __ATOMIC_RELAXED))
			rte_pause();
}

static inline void
ev_unlock(ev_lock_t *l)
{
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* Process environment (ev_env.c)                                     */
/* ------------------------------------------------------------------ */

/** Progress policy of the [verbs] section. */
enum ev_progress {
	EV_PROGRESS_ADAPTIVE = 0,	/**< a thread that sleeps when idle */
	EV_PROGRESS_SPIN,		/**< a thread that never sleeps */
	EV_PROGRESS_OFF,		/**< only the application's calls */
};

/** Settings of the [verbs] section (defaults in ev_env.c). */
struct ev_settings {
	enum ev_progress progress;
	uint32_t idle_sleep_us;		/**< longest sleep of an idle thread */
	uint32_t spin_us;		/**< busy spinning after the last work */
	uint32_t link_wait_ms;		/**< wait for links at start */
	uint32_t resolve_ms;		/**< neighbour resolution limit */
	/** ports kept running at exit: frames posted leave, ACKs go out */
	uint32_t exit_linger_ms;
	/** port ACTIVE once started, not only while its link is up */
	bool active_when_started;
	bool quiet;			/**< no start-up line on stderr */
	bool exit_stats;		/**< the ports' counters logged at exit */
};

struct ernic_env_config;

/**
 * Load SOFTERNIC_CONFIG @p path: [eal] and [port.*] into @p c, [verbs]
 * into @p s with the defaults for what it lacks (ev_settings.c).
 * @return 0, or -ENOENT / -EINVAL with @p err set
 */
int ev_settings_load(const char *path, struct ernic_env_config *c,
		     struct ev_settings *s, char *err, size_t errlen);

/** "adaptive", "spin" or "off". */
const char *ev_progress_name(enum ev_progress p);

/** One net_ernic port: one verbs device. */
struct ev_port {
	uint16_t port_id;
	uint16_t index;			/**< ernic<index> */
	bool self_driven;		/**< no lcore runs its workers */
	ev_lock_t drive;		/**< held while a thread runs it */
	/** drives by the application's threads (relaxed, a hint) */
	uint64_t app_drives;
	/* the progress thread's view of app_drives (its own) */
	uint64_t seen_drives;		/**< app_drives at its last look */
	uint64_t app_until;		/**< TSC until which the app runs it */
	struct roce_device *rdev;
	uint8_t mac[6];
	enum roce_mtu mtu;		/**< the port's path MTU */
	unsigned int nb_gid;		/**< GID table entries */
	union roce_gid gid[8];
	struct ev_device *dev;
	/** contexts opened on the device (ctx_lock), for async events */
	struct ev_context *ctx_head;
	pthread_mutex_t ctx_lock;
};

/** Net_ernic ports the provider serves at most (one per [port.*]). */
#define EV_MAX_PORTS 16

/** The process: settings, ports, the progress thread. */
struct ev_env {
	struct ev_settings set;
	unsigned int nb_ports;
	struct ev_port port[EV_MAX_PORTS];
	pthread_mutex_t ctl;		/**< control operations */
	uint64_t tsc_hz;
	uint64_t app_grace_tsc;		/**< an app drive keeps the thread off */
	int wake_fd;			/**< eventfd: wake the progress thread */
	bool thread_sleeping;		/**< relaxed: it may wait on wake_fd */
	volatile bool stop;
	pthread_t thread;
	bool thread_started;
};

extern struct ev_env ev_env;

/**
 * Start the environment once (EAL, ports, progress thread): what
 * ibv_get_device_list() needs. -errno with a line on stderr on failure,
 * the same errno on every later call.
 */
int ev_env_start(void);

/** True when this thread may run workers (it has an lcore id). */
bool ev_thread_can_drive(void);

/**
 * Run @p p's workers once from an application call (poll_cq, ...) if no
 * other thread runs them now.
 */
void ev_port_drive(struct ev_port *p);

/**
 * Hold @p p for a control operation: from here until ev_port_release()
 * this thread is the only one that runs the port's workers, so that
 * lib/roce's control operations run inline.
 */
void ev_port_hold(struct ev_port *p);
void ev_port_release(struct ev_port *p);

/** Run @p p while the caller waits (resolution): ev_port_hold() held. */
void ev_port_step(void *port);

/** The application is about to wait or posted work: wake the thread. */
void ev_env_kick(struct ev_port *p);

/**
 * @p qp goes: the rdma_cm id that connected it lets it go first
 * (ev_cm.c; the id may outlive its QP, as cmtime's do).
 */
void ev_cm_qp_gone(struct ibv_qp *qp);

/* ------------------------------------------------------------------ */
/* Objects                                                            */
/* ------------------------------------------------------------------ */

/** Link of an object in its context's list of that kind (obj_lock). */
struct ev_link {
	struct ev_link *prev, *next;
};

/** Kinds of objects a context keeps, for events and for teardown. */
enum ev_kind {
	EV_K_QP,
	EV_K_SRQ,
	EV_K_CQ,
	EV_K_MW,
	EV_K_MR,
	EV_K_PD,
	EV_K_MAX,
};

struct ev_device {
	struct ibv_device ibdev;	/**< first: what the program holds */
	struct ev_port *port;
	uint64_t guid;			/**< network order (EUI-64 of the MAC) */
};

struct ev_cq;
struct ev_qp;
struct ev_srq;

/** An opened device. */
struct ev_context {
	struct verbs_context vctx;	/**< ends with struct ibv_context */
	struct ev_device *dev;
	struct ev_port *port;
	/* async events: an eventfd, and the events taken from lib/roce */
	pthread_mutex_t ev_lock;
	unsigned int ev_head, ev_count;
	struct ibv_async_event ev_queue[256];
	uint64_t ev_lost;
	/** the context's objects by kind (obj_lock) */
	pthread_mutex_t obj_lock;
	struct ev_link objs[EV_K_MAX];
	struct ev_context *next;	/**< port->ctx_head list (ctx_lock) */
};

static inline struct ev_context *
ev_ctx(struct ibv_context *c)
{
	return (struct ev_context *)(void *)((uint8_t *)c -
		offsetof(struct ev_context, vctx.context));
}

/** Add @p l to the list of kind @p k of @p ctx. */
void ev_obj_add(struct ev_context *ctx, enum ev_kind k, struct ev_link *l);
/** Remove @p l from its context's list. */
void ev_obj_del(struct ev_context *ctx, struct ev_link *l);

struct ev_pd {
	struct ibv_pd ibpd;
	struct roce_pd *pd;
	struct ev_link link;
};

struct ev_mr {
	struct ibv_mr ibmr;
	struct roce_mr *mr;
	struct ev_link link;
};

struct ev_mw {
	struct ibv_mw ibmw;
	struct roce_mw *mw;
	struct ev_link link;
};

struct ev_channel {
	struct ibv_comp_channel ibch;
	struct roce_comp_channel *ch;
	struct ev_port *port;
};

/** The part of an ev_cq on one worker: a lib/roce CQ. */
struct ev_cq_part {
	struct roce_cq *cq;
	struct roce_worker *w;
	/** events ibv_get_cq_event() took from it, and acknowledged (ibcq.mutex) */
	unsigned int events_got;
	unsigned int events_acked;
};

/*
 * A CQ has a lib/roce CQ on each worker one of its QPs runs on (ev_cq.c):
 * parts are only appended (ctl held), each published by a release store
 * of nparts, and destroyed with the CQ.
 */
struct ev_cq {
	struct ibv_cq_ex ibcq;		/**< its first part is struct ibv_cq */
	struct ev_context *ctx;
	struct ev_port *port;
	ev_lock_t lock;		/**< pollers */
	uint32_t depth;
	uint64_t wc_flags;		/**< ibv_create_cq_ex() fields */
	uint32_t nparts;		/**< parts made (atomic) */
	uint32_t max_parts;		/**< the port's workers */
	uint32_t next;			/**< poller: the part polled first */
	bool armed;			/**< armed once: parts made later are too */
	int arm_solicited;
	/** events ibv_get_cq_event() returned (ibcq.mutex), for destroy */
	unsigned int events_got;
	uint32_t qps;			/**< QPs that use it (ctl) */
	/* ibv_start_poll()/ibv_next_poll() */
	struct roce_wc cur;
	struct ev_link link;
	struct ev_cq_part part[];	/**< max_parts */
};

static inline struct ev_cq *
ev_cq(struct ibv_cq *c)
{
	return (struct ev_cq *)(void *)c;
}

struct ev_srq {
	struct ibv_srq ibsrq;
	struct roce_srq *srq;
	struct ev_context *ctx;
	struct roce_worker *w;
	ev_lock_t lock;
	uint32_t max_wr, max_sge;
	struct ev_link link;
};

struct ev_ah {
	struct ibv_ah ibah;
	struct roce_ah_attr attr;
};

/** WRs collected between ibv_wr_start() and ibv_wr_complete(). */
struct ev_wr_batch {
	struct roce_send_wr *wr;
	struct roce_sge *sge;		/**< max_sge per WR */
	uint8_t *inl;			/**< max_inline per WR */
	uint32_t cap, n;
	int err;			/**< the first builder error, 0 */
	bool open;
};

struct ev_qp {
	struct ibv_qp_ex ibqp;		/**< qp_base first: struct ibv_qp */
	struct roce_qp *qp;
	struct ev_context *ctx;
	struct ev_port *port;
	struct ev_cq *scq, *rcq;
	struct ev_srq *srq;
	struct roce_worker *w;		/**< the worker it runs on */
	struct roce_cq *rscq, *rrcq;	/**< its CQs' parts on that worker */
	enum ibv_qp_type type;
	bool is_ex;			/**< created with send_ops_flags */
	uint32_t max_send_sge, max_recv_sge, max_inline;
	ev_lock_t sq_lock;
	ev_lock_t rq_lock;
	struct ev_wr_batch batch;
	struct ev_link link;
};

static inline struct ev_qp *
ev_qp(struct ibv_qp *q)
{
	return (struct ev_qp *)(void *)q;
}

/* ------------------------------------------------------------------ */
/* Translation (ev_map.c): values that differ, errnos per verb          */
/* ------------------------------------------------------------------ */

/** Verbs whose failures are translated by the table of ev_map.c. */
enum ev_verb {
	EV_V_ALLOC_PD,
	EV_V_REG_MR,
	EV_V_CREATE_CQ,
	EV_V_CREATE_QP,
	EV_V_MODIFY_QP,
	EV_V_CREATE_SRQ,
	EV_V_CREATE_AH,
	EV_V_POST,
	EV_V_DESTROY,
	EV_V_MAX,
};

/**
 * The errno libibverbs documents for @p verb failing with lib/roce's
 * -errno @p roce_err (positive, never 0).
 */
int ev_errno(enum ev_verb verb, int roce_err);

/** struct roce_wc -> struct ibv_wc. */
void ev_wc_from_roce(struct ibv_wc *d, const struct roce_wc *s);

/** struct ibv_ah_attr -> struct roce_ah_attr (without the next hop). */
int ev_ah_from_ibv(const struct ev_port *p, const struct ibv_ah_attr *a,
		   struct roce_ah_attr *r);
void ev_ah_to_ibv(const struct roce_ah_attr *r, struct ibv_ah_attr *a);

/** Resolve the next hop of @p r (ctl held). 0 or an errno. */
int ev_ah_resolve(struct ev_port *p, struct roce_ah_attr *r);

/* ------------------------------------------------------------------ */
/* Ops tables of the files                                            */
/* ------------------------------------------------------------------ */

/* ev_mem.c, ev_cq.c, ev_qp.c: destroy what a closing context left */
int ev_pd_destroy(struct ev_pd *pd);
int ev_mr_destroy(struct ev_mr *mr);
int ev_mw_destroy(struct ev_mw *mw);
int ev_cq_destroy(struct ev_cq *cq);
int ev_qp_destroy(struct ev_qp *qp);
int ev_srq_destroy(struct ev_srq *srq);

/* ev_cq.c */
int ev_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int ev_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *ev_create_cq_ex(struct ibv_context *c,
				  struct ibv_cq_init_attr_ex *attr);
int ev_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
/**
 * The lib/roce CQ of @p cq on worker @p w, made if it has none yet (ctl +
 * port held). NULL with errno set on failure.
 */
struct roce_cq *ev_cq_bind(struct ev_cq *cq, struct roce_worker *w);
/** The part of @p cq holding lib/roce CQ @p rcq, or NULL. */
struct ev_cq_part *ev_cq_part_of(struct ev_cq *cq, const struct roce_cq *rcq);

/* ev_qp.c */
struct ibv_qp *ev_create_qp_ex(struct ibv_context *c,
			       struct ibv_qp_init_attr_ex *attr);
struct ibv_srq *ev_create_srq_ex(struct ibv_context *c,
				 struct ibv_srq_init_attr_ex *attr);

/* ev_post.c */
int ev_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad);
int ev_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		 struct ibv_recv_wr **bad);
int ev_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);
/** Fill the ibv_wr_* pointers of @p q and size its batch. 0 or ENOMEM. */
int ev_qp_ex_init(struct ev_qp *q, uint64_t send_ops_flags);
void ev_qp_ex_fini(struct ev_qp *q);

/* ev_mem.c */
struct ibv_mw *ev_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int ev_dealloc_mw(struct ibv_mw *mw);
int ev_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
	       struct ibv_mw_bind *bind);

/* ev_device.c */
/** Make the verbs device of port @p p (at start, ev_env.c). */
void ev_device_init(struct ev_port *p);
/** Queue an async event on the contexts it concerns (progress thread). */
void ev_async_dispatch(struct ev_port *p, const struct roce_async_event *ev);
/** Move @p p's pending lib/roce async events to the contexts. */
void ev_async_pump(struct ev_port *p);
/** Close every context (at exit). */
void ev_contexts_close_all(void);

/** GID types of ibv_query_gid_type() (libibverbs' sysfs numbering). */
enum ev_gid_type_sysfs {
	EV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	EV_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

/**
 * GID type of a table entry: libibverbs' private ABI that perftest and
 * ibv_devinfo call (its enum ibv_gid_type_sysfs).
 */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ev_gid_type_sysfs *type);

/* libibverbs' exported fork helpers, declared in its driver header only */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/**
 * A line of the library at rte_log level @p level (log type lib.verbs,
 * "softernic verbs: ..."; stderr before and after the EAL starts).
 */
void ev_log_level(uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** An error or a notice the program's user must see. */
#define ev_log(...) ev_log_level(RTE_LOG_ERR, __VA_ARGS__)
/** A trace line (--log-level=lib.verbs:debug). */
#define ev_debug(...) ev_log_level(RTE_LOG_DEBUG, __VA_ARGS__)

#endif /* EV_PRIV_H */
