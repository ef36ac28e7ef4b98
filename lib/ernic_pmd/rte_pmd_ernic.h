/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_H
#define RTE_PMD_ERNIC_H

/**
 * @file
 * net_ernic: a virtual ethdev that turns any DPDK port into a RoCEv2 RDMA
 * NIC (doc/guides/pmd.rst).
 *
 * The net_ernic port takes ownership of the underlying port. RoCEv2 frames
 * to a local address go to the QP engines of lib/roce (struct roce_device,
 * struct roce_worker), ARP and IPv6 neighbour discovery for the local
 * addresses are answered by the PMD, and every other frame is delivered
 * through the net_ernic port's own rx_burst; its tx_burst sends the
 * application's frames out of the underlying port.
 *
 * The roce_device and its workers exist from the first rte_eth_dev_start()
 * until rte_eth_dev_close(). Workers are DPDK services named
 * "<port name>_w<index>": map them to service lcores, give the PMD the
 * lcores= devarg, or call rte_pmd_ernic_poll() from the application.
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdint.h>

#include <rte_compat.h>

#include "roce_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The RoCE device of a started net_ernic port.
 *
 * @param port_id the net_ernic port
 * @return the device, or NULL with rte_errno set: ENODEV (not a net_ernic
 *   port), EAGAIN (the port was never started)
 */
__rte_experimental
struct roce_device *rte_pmd_ernic_get_device(uint16_t port_id);

/**
 * Number of workers of a net_ernic port (the workers= devarg).
 *
 * @return the count, or -ENODEV
 */
__rte_experimental
int rte_pmd_ernic_nb_workers(uint16_t port_id);

/**
 * Worker @p idx of a started net_ernic port: pass it to roce_create_cq();
 * a QP belongs to the worker of its CQs.
 *
 * @return the worker, or NULL with rte_errno set (ENODEV, EINVAL for an
 *   index out of range, EAGAIN when the port was never started)
 */
__rte_experimental
struct roce_worker *rte_pmd_ernic_get_worker(uint16_t port_id, uint16_t idx);

/**
 * A worker for the next CQ/QP, round-robin over the port's workers: spread
 * QPs over workers by creating each QP's CQs on the returned worker.
 *
 * @return the worker, or NULL with rte_errno set as rte_pmd_ernic_get_worker()
 */
__rte_experimental
struct roce_worker *rte_pmd_ernic_pick_worker(uint16_t port_id);

/**
 * Run every worker of the port once, on the calling lcore: for
 * applications without service cores (single-core use). Serialised with
 * service lcores that run the same workers. The port's control core (CM
 * MADs on QP1, QP recovery, registrations) runs from here too, at most
 * once every 10 us of calls.
 *
 * @return the number of workers that ran, or -ENODEV, or -ENOEXEC when the
 *   port is not started
 */
__rte_experimental
int rte_pmd_ernic_poll(uint16_t port_id);

/**
 * As rte_pmd_ernic_poll(), telling an idle port from a busy one: for a
 * thread that polls only while there is work and sleeps otherwise (the
 * verbs provider's progress thread).
 *
 * @return the frames the workers that ran on this call moved (received,
 *   handed over, generated and sent; 0 when none ran or all were idle),
 *   or -ENODEV, -ENOEXEC as rte_pmd_ernic_poll()
 */
__rte_experimental
int rte_pmd_ernic_poll_work(uint16_t port_id);

/**
 * The service lcore that runs worker @p idx (the lcores= devarg).
 *
 * @return the lcore id, -ENOENT when no lcore is mapped (the application
 *   runs the worker, through rte_pmd_ernic_poll() or its own service
 *   lcores), -ENODEV, -EINVAL (index), -EAGAIN (port never started)
 */
__rte_experimental
int rte_pmd_ernic_worker_lcore(uint16_t port_id, uint16_t idx);

/**
 * Resolve the MAC address of an on-link peer GID (IPv4-mapped GID by ARP,
 * IPv6 GID by neighbour discovery) through the port's neighbour table.
 * Non-blocking: the first call sends a request and returns -EAGAIN; call
 * again (while the workers run) until it returns 0. Requests are repeated
 * every second, three times (RFC 4861 RETRANS_TIMER, MAX_MULTICAST_SOLICIT).
 *
 * @param port_id the net_ernic port
 * @param gid the peer's GID
 * @param[out] mac its MAC address when 0 is returned
 * @return 0, -EAGAIN (request sent, retry), -EHOSTUNREACH (no answer, or no
 *   local address of that family), -ENETDOWN (port stopped, entry unknown),
 *   -ENOSPC (neighbour table full), -ENODEV, -EINVAL
 */
__rte_experimental
int rte_pmd_ernic_resolve(uint16_t port_id, const union roce_gid *gid,
			  uint8_t mac[6]);

/**
 * GID table entry @p index, in Linux RoCE order: 0 the link-local IPv6 GID
 * made from the MAC (fe80::EUI-64), then the IPv4-mapped GID of ip= if
 * given, then the IPv6 GID of ip6= if given. All are RoCEv2 GIDs.
 *
 * @return 0, -ENOENT past the last entry, -ENODEV, -EINVAL
 */
__rte_experimental
int rte_pmd_ernic_gid(uint16_t port_id, unsigned int index,
		      union roce_gid *gid);

/**
 * Port id of the underlying ethdev the net_ernic port owns.
 *
 * @return the port id, or -ENODEV
 */
__rte_experimental
int rte_pmd_ernic_underlying_port(uint16_t port_id);

/**
 * Path MTU of the port's QPs in bytes: the pmtu= devarg (256, 512, 1024,
 * 2048 or 4096; 1024 when not given), lowered at probe to the largest
 * that fits when the underlying port cannot carry such frames (net_af_xdp:
 * 2048; xstat "pmtu_clamped" 1). The port's MTU is at least this
 * plus the RoCEv2 headers (dev_info.min_mtu).
 *
 * @return the PMTU in bytes, or -ENODEV
 */
__rte_experimental
int rte_pmd_ernic_pmtu(uint16_t port_id);

/* ------------------------------------------------------------------ */
/* Memory registration service (doc/guides/pmd.rst)                   */
/* ------------------------------------------------------------------ */

/** Operations of the registration service. */
enum rte_pmd_ernic_mr_op {
	/** roce_reg_mr(pd, addr, length, access); the MR in @c mr. */
	RTE_PMD_ERNIC_MR_REG = 0,
	/** roce_dereg_mr(mr), then wait until no worker can touch it. */
	RTE_PMD_ERNIC_MR_DEREG,
	/** Program PD table entry @c pdt_index (ERNIC register window). */
	RTE_PMD_ERNIC_MR_PDT_SET,
};

/** Access of a PD table entry (ACCESSDESC[3:0], PG332). */
enum rte_pmd_ernic_pdt_access {
	RTE_PMD_ERNIC_PDT_READ = 0,	/**< remote READ */
	RTE_PMD_ERNIC_PDT_WRITE = 1,	/**< remote WRITE */
	RTE_PMD_ERNIC_PDT_RDWR = 2,	/**< both */
};

/**
 * One PD table entry of the ERNIC register window: peers reach
 * [va, va + length) with R_Key (index << 8 | rkey) on QPs of PD @c pdnum;
 * the bytes are at @c addr. A @c length of 0 (or a NULL @c addr) clears
 * the entry.
 */
struct rte_pmd_ernic_pdt_entry {
	uint32_t pdnum;			/**< PD number, 0..2047 */
	uint8_t rkey;			/**< BUFRKEY: the R_Key's low byte */
	uint8_t access;			/**< enum rte_pmd_ernic_pdt_access */
	uint64_t va;			/**< virtual address peers use */
	void *addr;			/**< host address of @c va */
	uint64_t length;		/**< bytes (48 bits) */
};

/**
 * A request to the registration service of a port. The control core
 * executes requests one at a time, in order, into the device's key table
 * (the PD table; fast-path readers never lock it: entries are versioned,
 * see doc/guides/architecture.rst). A deregistration or a PD table change
 * completes only after a grace period: every worker has passed a
 * quiescent point since the key was invalidated and no zero-copy frame
 * still points into the memory. From then on every remote access to the
 * old key fails with a remote access error NAK, and the memory may be
 * freed or reused. The request memory belongs to the caller and must stay
 * valid until rte_pmd_ernic_mr_poll() returns something other than
 * -EINPROGRESS.
 */
struct rte_pmd_ernic_mr_req {
	enum rte_pmd_ernic_mr_op op;	/**< in */
	struct roce_pd *pd;		/**< in: REG */
	void *addr;			/**< in: REG */
	size_t length;			/**< in: REG */
	int access;			/**< in: REG, enum roce_access_flags */
	struct roce_mr *mr;		/**< in: DEREG; out: REG */
	uint32_t pdt_index;		/**< in: PDT_SET, 0..2047 */
	struct rte_pmd_ernic_pdt_entry pdt;	/**< in: PDT_SET */
	int result;			/**< out: 0 or -errno, once done */
	uint32_t done;			/**< private: set (release) when done */
};

/**
 * Queue @p req for the control core of @p port_id (any lcore, never
 * waits). The control core runs as the "<port>_cm" service or from
 * rte_pmd_ernic_poll().
 *
 * @return 0 (queued: poll it with rte_pmd_ernic_mr_poll()), -EINVAL (NULL
 *   or unknown op), -ENODEV, -EAGAIN (port not started), -ENOBUFS (queue
 *   full: try again)
 */
__rte_experimental
int rte_pmd_ernic_mr_submit(uint16_t port_id, struct rte_pmd_ernic_mr_req *req);

/**
 * State of a submitted request.
 *
 * @return -EINPROGRESS while queued, executing or in its grace period;
 *   then req->result: 0, or -EINVAL (bad arguments), -ENOMEM (key table
 *   or memory full), -EBUSY (DEREG: memory windows are bound to the MR),
 *   -ENETDOWN (the port stopped before the request ran)
 */
__rte_experimental
int rte_pmd_ernic_mr_poll(const struct rte_pmd_ernic_mr_req *req);

/**
 * Register memory through the control core and wait for the result.
 * While waiting, the caller runs rte_pmd_ernic_poll() itself when the
 * port's control core is not mapped to a service lcore (single-thread
 * use); otherwise it spins: do not call it from the only thread that
 * polls one of the port's workers while the control core runs elsewhere.
 *
 * @return the MR, or NULL with rte_errno set (as rte_pmd_ernic_mr_poll()
 *   and rte_pmd_ernic_mr_submit())
 */
__rte_experimental
struct roce_mr *rte_pmd_ernic_reg_mr(uint16_t port_id, struct roce_pd *pd,
				     void *addr, size_t length, int access);

/**
 * Deregister @p mr through the control core and wait for the end of its
 * grace period (same waiting rules as rte_pmd_ernic_reg_mr()). When it
 * returns 0, no worker reads or writes the memory any more: remote
 * accesses in flight either completed before or end with a remote access
 * error NAK.
 *
 * @return 0 or a negative errno of rte_pmd_ernic_mr_poll()/submit()
 */
__rte_experimental
int rte_pmd_ernic_dereg_mr(uint16_t port_id, struct roce_mr *mr);

/**
 * Program PD table entry @p index (NULL @p e: clear it) through the
 * control core and wait, as rte_pmd_ernic_dereg_mr(): the old mapping is
 * unreachable when it returns. Unlike writes of the PD table registers
 * through rte_pmd_ernic_reg_write(), the entry changes at once (never
 * half programmed) and the previous memory may be freed afterwards.
 *
 * @return 0, -EINVAL (index, access, PD number or range refused), or as
 *   rte_pmd_ernic_dereg_mr()
 */
__rte_experimental
int rte_pmd_ernic_pdt_set(uint16_t port_id, uint32_t index,
			  const struct rte_pmd_ernic_pdt_entry *e);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_H */
