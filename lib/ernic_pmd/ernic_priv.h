/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_PRIV_H
#define ERNIC_PRIV_H

/*
 * Internal state of the net_ernic PMD, shared by its files:
 *   ernic_devargs.c   devargs (kvargs) parsing and validation
 *   ernic_ethdev.c    vdev probe/remove, ownership, GID table, dev_ops, xstats
 *   ernic_rxtx.c      RoCE/non-RoCE split, the port's rx_burst and tx_burst
 *   ernic_worker.c    workers as DPDK services, the poll loop, handoff
 *   ernic_neigh.c     ARP / IPv6 ND, neighbour table, resolution
 *   ernic_exception.c exception path to a kernel tap (net_tap)
 *   ernic_telemetry.c /ernic/... telemetry commands
 *   ernic_regs.c      PG332 register window model (ernic_regs.h)
 *   ernic_regs_flow.c register programming -> lib/roce objects
 *   ernic_hs.c        hardware handshake ports
 *
 * Threads and ownership:
 * - worker i is run by one thread at a time (its DPDK service, or
 *   rte_pmd_ernic_poll() which runs the same service function serialised
 *   with rte_service_run_iter_on_app_lcore()). It owns its RX queue of the
 *   underlying port, its counter block and the consumer end of its handoff
 *   ring. Worker 0 is also the control worker: it answers ARP/ND, drains
 *   the out ring (application and control frames) and runs the exception
 *   path.
 * - the application thread that calls the ernic port's rx_burst owns the
 *   consumer end of rx_ring and the app_rx counters; the one that calls
 *   tx_burst owns the app_tx counters.
 * - the neighbour table is written under its spinlock by the control path
 *   (worker 0, rte_pmd_ernic_resolve() callers) and read without locks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "roce_cc.h"
#include "roce_cm.h"
#include "roce_verbs.h"

extern int ernic_logtype;
extern int ernic_logtype_rxtx;
extern int ernic_logtype_neigh;

#define ERNIC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ernic_logtype, "net_ernic: " fmt "\n", \
		##__VA_ARGS__)
#define ERNIC_RXTX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ernic_logtype_rxtx, \
		"net_ernic.rxtx: " fmt "\n", ##__VA_ARGS__)
#define ERNIC_NEIGH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ernic_logtype_neigh, \
		"net_ernic.neigh: " fmt "\n", ##__VA_ARGS__)

/** Sizes and limits. */
enum {
	ERNIC_MAX_WORKERS = 16,
	ERNIC_BURST = 32,
	ERNIC_GID_MAX = 8,		/**< as roce_device_config::gid */
	ERNIC_RX_DESC = 1024,		/**< underlying RX descriptors per queue */
	ERNIC_TX_DESC = 1024,
	ERNIC_ZC_ROOM = 64,		/**< data room of zero-copy attach/tail mbufs */
	/** rte_pmd_ernic_poll() runs the control core at most this often (us) */
	ERNIC_CTRL_INLINE_US = 10,
	ERNIC_APP_RING = 4096,		/**< non-RoCE frames for the application */
	ERNIC_OUT_RING = 4096,		/**< frames worker 0 sends for others */
	ERNIC_CTL_RING = 1024,		/**< ARP/ND frames for worker 0 */
	ERNIC_HANDOFF_RING = 4096,	/**< RoCE frames for another worker */
	ERNIC_EXC_RING = 1024,		/**< copies for the exception tap */
	ERNIC_TX_RETRIES = 8,		/**< underlying TX: tries before dropping */
	ERNIC_NEIGH_MAX = 4096,		/**< neighbour table entries */
	ERNIC_NEIGH_REACHABLE_S = 30,	/**< default neigh_reachable= (RFC 4861 REACHABLE_TIME) */
	ERNIC_DEFAULT_MAX_QPS = 1024,
	ERNIC_DEFAULT_PMTU = 1024,
	ERNIC_XSTATS_ROCE_MAX = 256,	/**< worker counters in xstats */
	ERNIC_XSTATS_CM_MAX = 160,	/**< CM, MAD, MR service, recoveries */
	ERNIC_XSTATS_QPS = 64,		/**< QPs with "qp<qpn>_*" xstats */
	/** "worker<i>_*" xstats of a port with several workers */
	ERNIC_XSTATS_PER_WORKER = 3,
};

/**
 * Per-port PMD counters, exported as xstats. Each thread that counts has
 * its own block (a worker, the application's rx and tx, the resolver);
 * readers add the blocks up.
 */
enum ernic_cnt {
	ERNIC_CNT_RX_WIRE,		/**< frames read from the underlying port */
	ERNIC_CNT_RX_ROCE,		/**< RoCEv2 to a local address, to a worker */
	ERNIC_CNT_RX_HANDOFF,		/**< RoCE frames passed to the QP's owner */
	ERNIC_CNT_RX_NON_ROCE,		/**< frames queued for the application */
	ERNIC_CNT_RX_APP,		/**< frames the application received */
	ERNIC_CNT_RX_ARP,		/**< ARP for a local address */
	ERNIC_CNT_RX_ND,		/**< NS/NA for a local address */
	ERNIC_CNT_TX_ARP,		/**< ARP requests and replies sent */
	ERNIC_CNT_TX_ND,		/**< NS and NA sent */
	ERNIC_CNT_TX_ROCE,		/**< frames the QP engines sent */
	ERNIC_CNT_TX_APP,		/**< application frames accepted by tx_burst */
	ERNIC_CNT_TX_OUT,		/**< frames worker 0 sent from out_ring */
	ERNIC_CNT_EXC_TO_HOST,		/**< frames copied to the exception tap */
	ERNIC_CNT_EXC_FROM_HOST,	/**< frames from the tap sent on the wire */
	ERNIC_CNT_DROP_APP_RING_FULL,	/**< application RX ring full */
	ERNIC_CNT_DROP_HANDOFF_FULL,	/**< owner worker's ring full */
	ERNIC_CNT_DROP_CTL_RING_FULL,	/**< ARP/ND ring of worker 0 full */
	ERNIC_CNT_DROP_OUT_RING_FULL,	/**< application/control TX ring full */
	ERNIC_CNT_DROP_TX_FULL,		/**< underlying TX queue full after retries */
	ERNIC_CNT_DROP_ARP_INVALID,	/**< malformed ARP for a local address */
	ERNIC_CNT_DROP_ND_INVALID,	/**< malformed or unauthentic NS/NA (RFC 4861 7.1) */
	ERNIC_CNT_DROP_NEIGH_FULL,	/**< neighbour table full */
	ERNIC_CNT_DROP_NOMBUF,		/**< no mbuf for a reply, request or copy */
	ERNIC_CNT_DROP_EXC,		/**< exception tap ring or queue full */
	ERNIC_CNT_DROP_STOPPED,		/**< frames to send while the port is stopped */
	ERNIC_CNT_RX_GSI,		/**< QP1 frames queued for the control core */
	ERNIC_CNT_DROP_GSI_RING_FULL,	/**< QP1 frames dropped: control core ring full */
	ERNIC_CNT_NEIGH_REFRESH,	/**< unicast ARP/NS refreshing an aged entry */
	ERNIC_CNT_NEIGH_EXPIRED,	/**< entries that aged out unanswered */
	ERNIC_CNT_NEIGH_KERNEL,		/**< answers taken from the kernel's neighbour table */
	ERNIC_CNT_NEIGH_KERNEL_FAILED,	/**< kernel resolutions given up (neigh=kernel|auto) */
	ERNIC_CNT_PMTU_CLAMPED,		/**< 1: pmtu= lowered to what the port carries */
	/*
	 * Worker load (ernic_worker_run): a poll that received, sent or
	 * forwarded anything is busy and its TSC cycles are counted; the
	 * others are only counted. busy_cycles / packets is the worker's
	 * cost per packet in a timed run (ernic-testpmd --cycles).
	 */
	ERNIC_CNT_BUSY_CYCLES,		/**< TSC cycles of busy polls */
	ERNIC_CNT_BUSY_POLLS,		/**< polls that moved frames */
	ERNIC_CNT_IDLE_POLLS,		/**< polls that found nothing to do */
	ERNIC_CNT_MAX,
};

/** xstats name of a counter. */
const char *ernic_cnt_name(enum ernic_cnt c);

/** neigh=: who resolves peer addresses to MACs. */
enum ernic_neigh_mode {
	/** kernel for the addresses the kernel holds on the interface */
	ERNIC_NEIGH_MODE_AUTO = 0,
	ERNIC_NEIGH_MODE_KERNEL,	/**< the kernel's table for every target */
	ERNIC_NEIGH_MODE_OWN,		/**< net_ernic's own ARP/ND */
};

/** Parsed devargs. */
struct ernic_args {
	char port[RTE_ETH_NAME_MAX_LEN];	/**< underlying port name */
	bool has_ip4;
	rte_be32_t ip4;
	bool has_prefix4;		/**< ip=a.b.c.d/len */
	uint8_t prefix4;		/**< on-link prefix length, 32 without /len */
	bool has_gw4;			/**< gw=: default route off the prefix */
	rte_be32_t gw4;
	bool has_ip6;
	uint8_t ip6[16];
	bool has_mac;
	struct rte_ether_addr mac;
	uint16_t nb_workers;
	uint32_t max_qps;
	uint16_t pmtu;
	bool has_vlan;
	uint16_t vlan;
	char exception[RTE_ETH_NAME_MAX_LEN];	/**< tap interface name, "" none */
	uint16_t nb_lcores;
	uint16_t lcores[ERNIC_MAX_WORKERS];
	bool zero_copy;		/**< zero_copy=1 (default): attach TX payload */
	/**
	 * qp1=regs: QP1 belongs to the register window (MADs into its RQ,
	 * its SQ sends UD/GSI); qp1=cm (default): to the CM control core.
	 */
	bool qp1_regs;
	uint32_t neigh_reachable;	/**< seconds a learnt MAC is trusted */
	enum ernic_neigh_mode neigh_mode;	/**< neigh= */
	uint16_t pmtu_asked;		/**< pmtu= as given (pmtu: what is used) */
	bool sr_off;			/**< sr=off: no selective repeat by the CM */
	uint16_t ack_pkts;		/**< ack_pkts=: ACK coalescing (0: default) */
	uint16_t ack_us;		/**< ack_us= */
	/** Congestion control devargs (<roce_cc parameter>=<n>), bit per id */
	uint32_t cc_mask;
	uint32_t cc[ROCE_CC_PARAM_MAX];
};

/** Parse and validate @p params; logs the key and expected form on error. */
int ernic_args_parse(const char *name, const char *params,
		     struct ernic_args *a);

/** The devargs documentation string (RTE_PMD_REGISTER_PARAM_STRING). */
#define ERNIC_PARAM_STRING \
	"port=<ethdev name> " \
	"ip=<a.b.c.d[/len]> " \
	"gw=<a.b.c.d> " \
	"ip6=<IPv6 address> " \
	"mac=<xx:xx:xx:xx:xx:xx> " \
	"workers=<1-16> " \
	"max_qps=<4-65536> " \
	"pmtu=<256|512|1024|2048|4096> " \
	"vlan=<1-4094> " \
	"exception=<tap interface name> " \
	"lcores=<lcore|[lcore,...]> " \
	"zero_copy=<0|1> " \
	"qp1=<cm|regs> " \
	"neigh_reachable=<1-3600> " \
	"neigh=<auto|kernel|own> " \
	"sr=<on|off> " \
	"ack_pkts=<1-65535> " \
	"ack_us=<1-65535> " \
	"<congestion control parameter, e.g. rp_ai_rate>=<n>"

/** An underlying TX queue, shared under a lock only if several threads use it. */
struct ernic_txq {
	uint16_t qid;
	uint16_t users;
	rte_spinlock_t lock;
};

struct ernic_port;
struct ernic_regs;
struct roce_cm;
struct ernic_mr_svc;
struct ernic_recovery;
struct ernic_rrec;
struct roce_cm_event;
struct roce_cm_id;

/**
 * The control core (ernic_ctrl.c): owns QP1 and the connection manager.
 * Workers hand QP1 frames to it through gsi_ring and never wait for it;
 * it runs as the service "<port name>_cm" (or from rte_pmd_ernic_poll()).
 * @c lock serialises the service iteration and the rte_pmd_ernic_cm_*
 * calls of the application.
 */
struct ernic_ctrl {
	struct roce_cm *cm;
	struct rte_ring *gsi_ring;	/**< QP1 frames, MP (workers) / SC */
	rte_spinlock_t lock;
	uint32_t service_id;
	bool service_registered;
	uint64_t cnt[ERNIC_CNT_MAX];	/**< control core's own counters */
	struct ernic_mr_svc *mr_svc;	/**< registration service (ernic_mr_svc.c) */
	struct ernic_recovery *rec;	/**< QP error recovery (ernic_recovery.c) */
	struct ernic_rrec *rrec;	/**< register QPs, async events (ernic_reg_recovery.c) */
	/** rte_pmd_ernic_poll(): TSC before which it skips the control core */
	uint64_t next_inline;
	uint64_t inline_period;		/**< ERNIC_CTRL_INLINE_US in TSC cycles */
};

struct ernic_worker {
	struct ernic_port *port;
	struct roce_worker *rw;
	uint16_t idx;
	int32_t rxq;			/**< underlying RX queue, -1: none */
	struct ernic_txq *txq;
	struct rte_ring *handoff;	/**< RoCE frames of QPs this worker owns */
	uint32_t service_id;
	bool service_registered;
	int32_t lcore;			/**< lcore mapped by lcores=, -1: none */
	uint64_t now;			/**< TSC of its last iteration */
	uint32_t work;			/**< frames its last iteration moved */
	uint16_t tx_mirrored;		/**< capture: refused frames already shown */
	int32_t socket;			/**< NUMA node of its memory (ernic_numa.c) */
	uint64_t cnt[ERNIC_CNT_MAX];
} __rte_cache_aligned;

/**
 * TSC cycles from @p then to @p now, 0 when @p then is the later one. A
 * stamp taken with a fresh clock read (a neighbour learnt in this poll, a
 * resolver on another thread) can be newer than a poll's @p now, and the
 * plain difference would wrap to "a very long time ago".
 */
static inline uint64_t
ernic_tsc_since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/** Neighbour entry state. */
enum ernic_neigh_state {
	ERNIC_NEIGH_NONE = 0,
	ERNIC_NEIGH_INCOMPLETE,		/**< request sent, no answer yet */
	ERNIC_NEIGH_REACHABLE,		/**< MAC known */
	ERNIC_NEIGH_FAILED,		/**< no answer to the probes */
};

/**
 * One neighbour. @c word is what lock-free readers load (acquire):
 * bits 0..47 the MAC (byte 0 lowest), bits 48..55 the state. The other
 * fields belong to the writers (under the table lock).
 */
struct ernic_neigh_entry {
	uint64_t word;
	uint64_t probe_tsc;		/**< last request sent */
	uint64_t confirmed_tsc;		/**< last time its MAC was learnt */
	uint8_t probes;			/**< requests sent for this resolution */
	uint8_t kernel;			/**< resolved through the kernel (ernic_kneigh.c) */
	uint64_t ask_tsc;		/**< kernel: last RTM_GETNEIGH */
	uint64_t use_tsc;		/**< kernel: last NTF_USE */
	union roce_gid ip;
};

struct ernic_neigh {
	rte_spinlock_t lock;		/**< writers only */
	struct rte_hash *h;		/**< GID -> entry index */
	struct ernic_neigh_entry *e;
	uint32_t nb;			/**< entries in use (never freed) */
	uint64_t age_next_tsc;		/**< next aging scan (worker 0) */
	uint64_t cnt[ERNIC_CNT_MAX];	/**< resolver-side counters (under lock) */
};

/** Exception path to a kernel tap. */
struct ernic_exc {
	bool enabled;
	bool owned;
	bool started;
	uint16_t port_id;		/**< the net_tap port */
	char vdev[RTE_DEV_NAME_MAX_LEN];
	struct rte_ring *ring;		/**< copies of non-RoCE frames for the tap */
};

struct ernic_port {
	uint16_t port_id;		/**< this ethdev */
	uint16_t under;			/**< underlying ethdev */
	struct rte_eth_dev_owner owner;
	bool owned;
	struct ernic_args args;
	struct rte_ether_addr mac;
	union roce_gid gid[ERNIC_GID_MAX];
	uint8_t nb_gid;
	int socket;

	bool started;
	bool under_configured;
	struct rte_mempool *rx_pool;	/**< underlying RX and copies */
	struct rte_mempool *tx_pool;	/**< roce headers/frames, ARP/ND */
	struct rte_mempool *zc_pool;	/**< zero-copy attached + tail segments */
	struct roce_device *rdev;
	uint16_t nb_workers;
	struct ernic_worker *w;
	uint16_t nb_rxq, nb_txq;
	struct ernic_txq txq[ERNIC_MAX_WORKERS + 1];
	/** Spare underlying queue for the application's tx_burst, or NULL. */
	struct ernic_txq *app_txq;

	struct rte_ring *app_ring;	/**< non-RoCE frames for rx_burst */
	struct rte_ring *out_ring;	/**< application/control frames to send */
	struct rte_ring *ctl_ring;	/**< ARP/ND frames for worker 0 */

	struct ernic_neigh neigh;
	struct ernic_exc exc;

	uint64_t app_rx_cnt[ERNIC_CNT_MAX];
	uint64_t app_tx_cnt[ERNIC_CNT_MAX];
	uint32_t rr_next;		/**< rte_pmd_ernic_pick_worker() cursor */
	struct ernic_regs *regs;	/**< PG332 register window (ernic_regs.h) */
	struct ernic_ctrl ctrl;		/**< QP1 / CM control core (ernic_ctrl.c) */
	bool link_up;

	/* xstats */
	unsigned int nb_roce_cnt;	/**< counters of roce_worker_counters() */
	uint64_t *xs_base;		/**< values at the last xstats reset */
	unsigned int nb_xs_base;	/**< of them, port-wide counters */
	unsigned int nb_xs_base_qp;	/**< QPs in xs_base after those */
	uint32_t xs_base_qpn[ERNIC_XSTATS_QPS];	/**< their QPNs */
	struct rte_eth_stats st_base;	/**< app queue stats at the last reset */
	struct ernic_xdp *xdp;		/**< XDP steering (ernic_xdp.c), NULL: none */
	struct ernic_kneigh *kneigh;	/**< kernel neighbours (ernic_kneigh.c), NULL: own */
};

/* ernic_ethdev.c */
/** The ernic port behind @p port_id, NULL when it is not a net_ernic port. */
struct ernic_port *ernic_port_get(uint16_t port_id);
/** Sum of one counter over every block of the port. */
uint64_t ernic_cnt_sum(const struct ernic_port *p, enum ernic_cnt c);
/** Fill the GID table from MAC, ip= and ip6= (Linux RoCE order). */
void ernic_gid_table_build(struct ernic_port *p);
/* ernic_under.c: the underlying port's queues, configuration, MTU, MAC */
int ernic_under_setup(struct rte_eth_dev *dev);
/** Give the underlying port our solicited-node multicast MACs. */
void ernic_mc_filter(struct ernic_port *p);
/** The path MTU code of a pmtu= value (256..4096, checked by the parser). */
enum roce_mtu ernic_pmtu_code(uint16_t pmtu);

/* ernic_rxtx.c */
/** Classes of an incoming frame. */
enum ernic_class {
	ERNIC_CLASS_APP = 0,	/**< everything else: the application */
	ERNIC_CLASS_ROCE,	/**< RoCEv2 to a local address */
	ERNIC_CLASS_ARP,	/**< ARP for one of our IPv4 addresses */
	ERNIC_CLASS_ND,		/**< NS/NA (or ND for a local address) */
};

/**
 * Classify @p m; for ERNIC_CLASS_ROCE, *dqpn is the BTH destination QP
 * (UINT32_MAX when the frame is too short to hold a BTH).
 */
enum ernic_class ernic_classify(const struct ernic_port *p,
				const struct rte_mbuf *m, uint32_t *dqpn);
/** Split a burst received by worker @p w (RX of the underlying queue). */
void ernic_rx_dispatch(struct ernic_worker *w, struct rte_mbuf **pkts,
		       uint16_t n, uint64_t now);
/** Send on an underlying queue with retries; the rest stays with the caller. */
uint16_t ernic_txq_burst(struct ernic_port *p, struct ernic_txq *q,
			 struct rte_mbuf **pkts, uint16_t n);
/** Send on an underlying queue: retry, then free and count the rest. */
uint16_t ernic_txq_send(struct ernic_port *p, struct ernic_txq *q,
			struct rte_mbuf **pkts, uint16_t n, uint64_t *cnt,
			enum ernic_cnt ok_cnt);
uint16_t ernic_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t ernic_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t n);
/**
 * Capture: show RoCE frames a worker received (@p rx) or is about to send
 * to the RX/TX callbacks of the port's queue 0 (rte_pdump, dpdk-dumpcap),
 * as if they had passed through its rx_burst/tx_burst. No-op without
 * callbacks; callbacks see a copy of the array and must not keep or free
 * the mbufs (pdump copies them).
 */
void ernic_mirror(struct ernic_port *p, bool rx, struct rte_mbuf **pkts,
		  uint16_t n);
/** Queue a frame on the out ring (any thread); frees and counts on failure. */
int ernic_out_enqueue(struct ernic_port *p, struct rte_mbuf *m,
		      uint64_t *cnt);

/* ernic_worker.c */
int ernic_workers_create(struct ernic_port *p);
int ernic_workers_start(struct ernic_port *p);
void ernic_workers_stop(struct ernic_port *p);
void ernic_workers_destroy(struct ernic_port *p);
/** One iteration of worker @p w (the service function). */
int32_t ernic_worker_run(void *arg);

/* ernic_neigh.c */
int ernic_neigh_init(struct ernic_port *p);
void ernic_neigh_fini(struct ernic_port *p);
/** Worker 0: handle one ARP or ND frame (takes ownership). */
void ernic_neigh_input(struct ernic_worker *w, struct rte_mbuf *m);
/**
 * Worker 0: age the neighbour table. A REACHABLE entry not confirmed for
 * neigh_reachable seconds is refreshed by unicast ARP requests / NS to its
 * MAC (kept usable meanwhile); unanswered after ERNIC_NEIGH_PROBES it
 * becomes FAILED, and the next resolution starts over.
 */
void ernic_neigh_age(struct ernic_port *p, uint64_t now);
/** True when @p ip6 is one of our IPv6 addresses (global or link-local). */
bool ernic_is_local_ip6(const struct ernic_port *p, const uint8_t *ip6);

/* ernic_exception.c */
int ernic_exc_create(struct ernic_port *p);
int ernic_exc_start(struct ernic_port *p);
void ernic_exc_stop(struct ernic_port *p);
void ernic_exc_destroy(struct ernic_port *p);
/** Any worker: hand a copy of @p m to the tap. */
void ernic_exc_copy(struct ernic_worker *w, const struct rte_mbuf *m);
/** Worker 0: move frames between the tap and the wire. */
void ernic_exc_run(struct ernic_worker *w);

/* ernic_ctrl.c */
/** Create the CM, its ring and service; route the workers' QP1 to it. */
int ernic_ctrl_create(struct ernic_port *p);
int ernic_ctrl_start(struct ernic_port *p);
void ernic_ctrl_stop(struct ernic_port *p);
void ernic_ctrl_destroy(struct ernic_port *p);
/** One iteration of the control core (its service function). */
int32_t ernic_ctrl_run(void *arg);

/* ernic_mr_svc.c: registration service, run by the control core */
int ernic_mr_svc_create(struct ernic_port *p);
/** Control core: execute queued requests, finish grace periods. */
void ernic_mr_svc_run(struct ernic_port *p);
/** Control core stopped: fail queued requests, settle grace periods. */
void ernic_mr_svc_stop(struct ernic_port *p);
void ernic_mr_svc_destroy(struct ernic_port *p);
/** Service counters ("mr_*"); returns the number available. */
int ernic_mr_svc_counters(const struct ernic_port *p, struct roce_counter *c,
			  unsigned int n);

/* ernic_recovery.c: QP error recovery of CM connections (ctrl.lock held) */
int ernic_recovery_create(struct ernic_port *p);
void ernic_recovery_destroy(struct ernic_port *p);
/** Control core: take CM events, watch QPs, drive recoveries. */
void ernic_recovery_run(struct ernic_port *p, uint64_t now);
/** rte_pmd_ernic_cm_get_event(): the next event for the application. */
int ernic_recovery_get_event(struct ernic_port *p, struct roce_cm_event *ev);
/** The application disconnects or destroys @p id: no recovery for it. */
void ernic_recovery_forget(struct ernic_port *p, const struct roce_cm_id *id);
/**
 * @p id was destroyed or listener @p l stops: the events of theirs that
 * wait in the application's FIFO go (roce_cm_events_withdraw()); the ids of
 * @p l's requests among them, never seen by the application, are destroyed
 * (rejected). Called before roce_cm_listen_stop().
 */
void ernic_recovery_withdraw(struct ernic_port *p, const struct roce_cm_id *id,
			     const struct roce_cm_listener *l, uint64_t now);
/** A fatal async event of QP @p qpn: recover it now if it is armed. */
void ernic_recovery_qp_fatal(struct ernic_port *p, uint32_t qpn,
			     uint64_t now);
/** One armed connection (telemetry). */
struct ernic_rec_info {
	const struct roce_cm_id *id;	/**< current id, NULL between attempts */
	uint32_t qpn;
	const char *state;		/**< WATCH, BACKOFF, CONNECTING... */
	bool reconnect;			/**< role RECONNECT (else ACCEPT) */
	uint32_t attempts;
	int last_err;
	struct roce_cm_addr remote;
};
/** Armed connections: fills up to @p n, returns how many there are. */
unsigned int ernic_recovery_list(const struct ernic_port *p,
				 struct ernic_rec_info *out, unsigned int n);
/** Recovery counters ("cm_recovery_*"); returns the number available. */
int ernic_recovery_counters(const struct ernic_port *p,
			    struct roce_counter *c, unsigned int n);

/*
 * ernic_reg_recovery.c: fatal errors of register-window QPs (PG332
 * recovery sequence) and the engines' async events (ctrl.lock held)
 */
int ernic_rrec_create(struct ernic_port *p);
void ernic_rrec_destroy(struct ernic_port *p);
/** Control core: async events, error status queue, recovery steps. */
void ernic_rrec_run(struct ernic_port *p, uint64_t now);
/** Counters ("reg_recovery_*", "ctrl_async_*"); returns the number available. */
int ernic_rrec_counters(const struct ernic_port *p, struct roce_counter *c,
			unsigned int n);

/* ernic_xdp.c: XDP steering on net_af_xdp (doc/guides/xdp.rst) */
/**
 * After the underlying port started: when it is net_af_xdp and its
 * interface runs ernic_roce_steer.bpf.o, add the GIDs to its "ernic_local"
 * map. 0 also when there is nothing to do; -errno when the map refuses.
 */
int ernic_xdp_start(struct ernic_port *p);
/** Remove what ernic_xdp_start() added; logs the program's counters. */
void ernic_xdp_stop(struct ernic_port *p);
/** Sum over CPUs of the program's counters (enum ernic_xdp_cnt); count or -errno. */
int ernic_xdp_counters(const struct ernic_port *p, uint64_t *v,
		       unsigned int n);
/** Name of counter @p c of enum ernic_xdp_cnt, NULL past the end. */
const char *ernic_xdp_cnt_name(unsigned int c);
/**
 * Longest frame the underlying port @p under can receive in one buffer
 * when it is net_af_xdp (its max_rx_pktlen); 0 for other drivers.
 */
uint32_t ernic_xdp_frame_max(uint16_t under);
/** Kernel headroom in front of an XDP frame (XDP_PACKET_HEADROOM). */
#define ERNIC_XDP_PACKET_HEADROOM 256
/** Text form of a GID-form address (IPv4-mapped shown as a.b.c.d). */
void ernic_xdp_addr_str(const uint8_t *a, char *buf, size_t len);

/* ernic_kneigh.c: resolution through the kernel's neighbour table */
/** True when the kernel holds GID-form address @p a on interface @p ifname. */
bool ernic_kernel_has_addr(const char *ifname, const uint8_t *a);
/** "auto", "kernel" or "own". */
const char *ernic_neigh_mode_name(enum ernic_neigh_mode m);
/**
 * After the underlying port started: per neigh=, open the rtnetlink socket
 * when some targets resolve through the kernel. -errno: neigh=kernel on a
 * port without a kernel interface, or no socket.
 */
int ernic_kneigh_start(struct ernic_port *p);
void ernic_kneigh_stop(struct ernic_port *p);
/** True when target @p g resolves through the kernel. */
bool ernic_kneigh_applies(const struct ernic_port *p,
			  const union roce_gid *g);
/**
 * Resolve entry @p e through the kernel (table lock held, never waits):
 * 0 with @p mac, -EAGAIN (asked, call again), -EHOSTUNREACH, -ENETDOWN.
 */
int ernic_kneigh_resolve(struct ernic_port *p, struct ernic_neigh_entry *e,
			 uint8_t mac[6], uint64_t now);

/* ernic_numa.c: NUMA placement (doc/guides/pmd.rst, NUMA placement) */
/** NUMA node for the memory of worker @p idx (its lcore's, else the port's). */
int ernic_numa_worker_socket(const struct ernic_port *p, uint16_t idx);
/** NUMA node of the underlying port's device (sysfs for kernel interfaces). */
int ernic_numa_port_socket(uint16_t under);
/** At start: warn about workers whose lcore is on another node than the port. */
void ernic_numa_check(const struct ernic_port *p);

#endif /* ERNIC_PRIV_H */
