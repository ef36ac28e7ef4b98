/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_CM_H
#define RTE_PMD_ERNIC_CM_H

/**
 * @file
 * Connection management on a net_ernic port (doc/guides/cm.rst): the IB CM
 * over QP1 with the rdma_cm IP conventions of lib/roce (roce_cm.h), run by
 * the port's control core.
 *
 * The control core is the DPDK service "<port name>_cm"; rte_pmd_ernic_poll()
 * runs it too, after the workers. Workers hand it QP1 frames through a ring
 * and never wait for it. These functions take the control core's lock and
 * may move QPs (roce_modify_qp()), which waits for the QP's worker when
 * another thread polls it: call them from a thread that is not the only
 * poller of a worker while the "_cm" service runs on another lcore (the
 * usual setups, everything on service lcores or everything through
 * rte_pmd_ernic_poll() on one thread, are fine).
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdint.h>

#include <rte_compat.h>

#include "roce_cm.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Listen for rdma_cm connections (TCP port space) on @p addr (port
 * required; an all-zero address: every local address).
 *
 * @return the listener, or NULL with rte_errno set (ENODEV, EAGAIN: port
 *   never started, EINVAL, EADDRINUSE, ENOSPC)
 */
__rte_experimental
struct roce_cm_listener *
rte_pmd_ernic_cm_listen(uint16_t port_id, const struct roce_cm_addr *addr,
			uint32_t backlog, void *context);

/**
 * rte_pmd_ernic_cm_listen() in port space @p ps: ROCE_CM_PS_TCP (REQs),
 * ROCE_CM_PS_UDP (SIDR_REQs: UD services) or ROCE_CM_PS_IB (both).
 */
__rte_experimental
struct roce_cm_listener *
rte_pmd_ernic_cm_listen_ps(uint16_t port_id, const struct roce_cm_addr *addr,
			   enum roce_cm_port_space ps, uint32_t backlog,
			   void *context);

/** Stop a listener. */
__rte_experimental
int rte_pmd_ernic_cm_listen_stop(uint16_t port_id,
				 struct roce_cm_listener *l);

/**
 * Connect @p qp (RC/UC, RESET or INIT) to the rdma_cm listener @p dst.
 * The source is the port's address of the same family (ip= or ip6=) with
 * an ephemeral port; the next hop is resolved through the neighbour table:
 * -EAGAIN while resolution is in progress (call again while the workers
 * run, as rte_pmd_ernic_resolve()).
 *
 * @return 0 and the id in *@p out, -EAGAIN, -EHOSTUNREACH, -ENODEV,
 *   -EADDRNOTAVAIL (no local address of that family), or an error of
 *   roce_cm_connect()
 */
__rte_experimental
int rte_pmd_ernic_cm_connect(uint16_t port_id, const struct roce_cm_addr *dst,
			     struct roce_qp *qp,
			     const struct roce_cm_conn_param *param,
			     void *context, struct roce_cm_id **out);

/**
 * Resolve the UD service @p dst (roce_cm_sidr_request()): source address
 * and next hop as rte_pmd_ernic_cm_connect(); ROCE_CM_EVENT_SIDR_REPLY or
 * UNREACHABLE follows.
 *
 * @return 0 and the id in *@p out, -EAGAIN (resolution in progress),
 *   -EHOSTUNREACH, -ENODEV, -EADDRNOTAVAIL, or an error of
 *   roce_cm_sidr_request()
 */
__rte_experimental
int rte_pmd_ernic_cm_sidr_request(uint16_t port_id,
				  const struct roce_cm_addr *dst,
				  enum roce_cm_port_space ps,
				  const void *private_data, uint8_t len,
				  void *context, struct roce_cm_id **out);

/** roce_cm_sidr_reply() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_sidr_reply(uint16_t port_id, struct roce_cm_id *id,
				uint8_t status, uint32_t qpn, uint32_t qkey,
				const void *private_data, uint8_t len);

/** roce_cm_accept() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_accept(uint16_t port_id, struct roce_cm_id *id,
			    struct roce_qp *qp,
			    const struct roce_cm_conn_param *param,
			    void *context);

/** roce_cm_reject() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_reject(uint16_t port_id, struct roce_cm_id *id,
			    uint16_t reason, const void *private_data,
			    uint8_t len);

/** roce_cm_disconnect() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_disconnect(uint16_t port_id, struct roce_cm_id *id);

/** roce_cm_detach_qp() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_detach_qp(uint16_t port_id, struct roce_cm_id *id);

/** roce_cm_destroy_id() on the port's CM. */
__rte_experimental
int rte_pmd_ernic_cm_destroy_id(uint16_t port_id, struct roce_cm_id *id);

/**
 * Take the oldest CM event of the port.
 *
 * @return 1 when @p ev was filled, 0 when none, -ENODEV, -EAGAIN
 */
__rte_experimental
int rte_pmd_ernic_cm_get_event(uint16_t port_id, struct roce_cm_event *ev);

/**
 * Counters of the port's control core: CM and MAD ("cm_*", "mad_*"), the
 * registration service ("mr_*"), the recoveries ("cm_recovery_*",
 * "reg_recovery_*"), async events ("ctrl_async_*",
 * "roce_async_events_dropped") and the gauges "cm_ids_in_use" and
 * "cm_ids_closing" (a DREQ out, its DREP awaited: a process that exits
 * waits for these, or its peer may never learn of the disconnect). Also in
 * xstats and /ernic/cm.
 *
 * @return the number available (copies min(that, @p n)), or -ENODEV,
 *   -EAGAIN
 */
__rte_experimental
int rte_pmd_ernic_cm_counters(uint16_t port_id, struct roce_counter *c,
			      unsigned int n);

/* ------------------------------------------------------------------ */
/* QP error recovery (doc/guides/cm.rst "Error recovery")             */
/* ------------------------------------------------------------------ */

/**
 * Events of the recovery, delivered by rte_pmd_ernic_cm_get_event() in
 * roce_cm_event::type (values beyond enum roce_cm_event_type).
 */
enum rte_pmd_ernic_cm_event {
	/**
	 * The QP of a recoverable connection failed (went to ERR: fatal
	 * error, retry exhaustion, remote access error...; or a fatal async
	 * event) or the connection broke on the peer's side. @c id is the old
	 * id, already released by the control core (do not use it any more);
	 * the QP's outstanding work requests complete with their error or
	 * ROCE_WC_WR_FLUSH_ERR (poll its CQs); @c status is -EIO (our QP
	 * failed) or -ECONNRESET (the peer's control core is recovering its
	 * end: its DREQ carries the recovery tag; or a REJ, a stale REQ or a
	 * DREQ timeout ended the connection). The control core resets the QP
	 * and reconnects (or awaits the reconnect).
	 *
	 * An application disconnect of the peer (a DREQ without the tag, e.g.
	 * Linux's rdma_disconnect()) is not a QP error: it is delivered as
	 * ROCE_CM_EVENT_DISCONNECTED (by_peer_dreq set) and disarms the
	 * recovery of that connection.
	 */
	RTE_PMD_ERNIC_CM_EVENT_QP_ERROR = 0x100,
	/**
	 * The connection is up again on the same QP, with fresh PSNs: @c id
	 * is its new id (the recovery stays armed on it), @c status the
	 * number of attempts it took.
	 */
	RTE_PMD_ERNIC_CM_EVENT_RECOVERED,
	/**
	 * Recovery gave up (every attempt failed, or no reconnect request
	 * came in time); @c status the last error. The QP is in RESET and no
	 * longer watched.
	 */
	RTE_PMD_ERNIC_CM_EVENT_RECOVERY_FAILED,
};

/** Role of a recoverable connection. */
enum rte_pmd_ernic_cm_recovery_role {
	/** We connected: reconnect to the same listener from the same port. */
	RTE_PMD_ERNIC_CM_RECOVER_RECONNECT = 0,
	/** We accepted: accept the peer's reconnect (same address and port). */
	RTE_PMD_ERNIC_CM_RECOVER_ACCEPT,
};

/** Parameters of rte_pmd_ernic_cm_set_recovery(). */
struct rte_pmd_ernic_cm_recovery {
	enum rte_pmd_ernic_cm_recovery_role role;
	/** RECONNECT: connect attempts before giving up (0: 8). */
	uint32_t max_attempts;
	/** RECONNECT: first delay between attempts, doubled each time (0: 50). */
	uint32_t backoff_ms;
	/** ACCEPT: how long to wait for the peer's reconnect (0: 10000). */
	uint32_t await_ms;
	/** Parameters of the reconnect's connect/accept (copied). */
	struct roce_cm_conn_param param;
};

/**
 * Arm (or, with @p r NULL, disarm) error recovery on an established
 * connection. @p established is the ESTABLISHED (or RECOVERED) event of
 * the connection: its id, context and addresses. From then on the control
 * core watches the connection's QP; when it fails or the peer disconnects,
 * it releases the id, resets the QP and re-establishes the connection
 * through the CM (fresh PSNs), reporting QP_ERROR, then RECOVERED or
 * RECOVERY_FAILED. rte_pmd_ernic_cm_disconnect() and
 * rte_pmd_ernic_cm_destroy_id() disarm it. Counted as "cm_recovery_*".
 *
 * @return 0, -EINVAL (not an ESTABLISHED/RECOVERED event, id not
 *   established, bad role), -ENOSPC (too many recoverable connections),
 *   -EAGAIN (RECONNECT: peer's MAC not resolved yet), -ENODEV
 */
__rte_experimental
int rte_pmd_ernic_cm_set_recovery(uint16_t port_id,
				  const struct roce_cm_event *established,
				  const struct rte_pmd_ernic_cm_recovery *r);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_CM_H */
