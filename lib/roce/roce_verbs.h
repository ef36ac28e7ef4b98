/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_VERBS_H
#define ROCE_VERBS_H

/**
 * @file
 * The verbs-like public API of libroce: device, protection domain, memory
 * regions and windows, completion queues, shared receive queues, queue
 * pairs (RC, UC, UD), work requests, completions and asynchronous events.
 *
 * Names and numeric values follow libibverbs where an equivalent exists, so
 * that code and habits carry over (IBV_WC_* == ROCE_WC_*, IBV_QP_* masks ==
 * ROCE_QP_* masks, ...).
 *
 * Threading model (see doc/guides/architecture.rst):
 * - Every QP and CQ belongs to one worker (struct roce_worker). Only that
 *   worker's thread runs roce_worker_rx() and roce_worker_poll() for it.
 * - Posting to a QP (post_send/post_recv) or an SRQ (post_srq_recv) is
 *   single-producer: one thread at a time per queue. Polling a CQ is
 *   single-consumer. Neither takes locks; they exchange indexes with the
 *   worker through acquire/release ordering.
 * - Control operations (create/destroy/modify, MR registration) are made by
 *   one control thread; modify_qp and destroy_qp are safe while the worker
 *   runs (they hand the change to the worker through the QP's control word).
 *
 * All functions return 0 or a positive count on success and a negative
 * errno on failure unless documented otherwise; the library never prints
 * and never exits.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_device;
struct roce_worker;
struct roce_pd;
struct roce_mr;
struct roce_mw;
struct roce_cq;
struct roce_srq;
struct roce_qp;
struct roce_pkt;	/* a parsed frame (roce_parse.h) */

/* ------------------------------------------------------------------ */
/* Device                                                             */
/* ------------------------------------------------------------------ */

/** Limits of this implementation (reported by roce_query_device()). */
enum roce_device_limits {
	ROCE_MAX_QP = 65536,		/**< QPs per device (QPN 0/1 reserved) */
	ROCE_MAX_QP_WR = 16384,		/**< WRs per send or receive queue */
	ROCE_MAX_SGE = 32,		/**< SGEs per WR */
	ROCE_MAX_INLINE = 256,		/**< inline bytes per send WR */
	ROCE_MAX_RD_ATOMIC = 128,	/**< outstanding READ/atomic per QP */
	ROCE_MAX_CQE = 1 << 20,		/**< entries per CQ */
	ROCE_MAX_MR = 1 << 20,		/**< MRs + MWs per device (24-bit index) */
	ROCE_MAX_SRQ_WR = 16384,	/**< WRs per SRQ */
};

/** Largest message on RC/UC: 2 GiB (IBTA 9.4: DMA length is 31 bits). */
#define ROCE_MAX_MSG_SIZE (1ULL << 31)

/** GID: 16 bytes, IPv6 address or IPv4-mapped ::ffff:a.b.c.d. */
union roce_gid {
	uint8_t raw[16];
	uint32_t w[4];
};

/** How a device sends frames: called by a worker with a burst of frames. */
typedef uint16_t (*roce_tx_burst_t)(void *ctx, struct rte_mbuf **pkts,
				    uint16_t nb_pkts);

/** Path MTU codes (values of ibv_mtu). */
enum roce_mtu {
	ROCE_MTU_256 = 1,
	ROCE_MTU_512 = 2,
	ROCE_MTU_1024 = 3,
	ROCE_MTU_2048 = 4,
	ROCE_MTU_4096 = 5,
};

/** Bytes of a path MTU code, 0 for an invalid code. */
static inline uint32_t
roce_mtu_bytes(enum roce_mtu mtu)
{
	return (mtu >= ROCE_MTU_256 && mtu <= ROCE_MTU_4096) ?
		128u << mtu : 0;
}

/** Parameters of roce_device_create(). */
struct roce_device_config {
	const char *name;		/**< for logs and telemetry */
	uint8_t mac[6];			/**< source MAC of every frame */
	/** GID table in Linux RoCE order; entries with gid_valid[i] false are empty */
	union roce_gid gid[8];
	bool gid_valid[8];
	uint32_t max_qp;		/**< QPN space (<= ROCE_MAX_QP) */
	uint32_t max_mr;		/**< MR/MW table size (<= ROCE_MAX_MR) */
	uint16_t vlan_tci;		/**< 0: untagged */
	bool vlan;			/**< insert an 802.1Q tag */
	struct rte_mempool *hdr_pool;	/**< mbufs for headers and small frames */
	int socket_id;			/**< NUMA node of device memory */
	/**
	 * Transmit payload zero-copy: an RC packet whose payload is one
	 * contiguous registered range of at least @p zc_min bytes is sent as
	 * headers + the application's memory attached (rte_pktmbuf_attach_
	 * extbuf) + pad/ICRC, three chained mbufs (the header one of
	 * hdr_pool, the other two of zc_pool). Set it only when the port
	 * transmits multi-segment mbufs and accepts external buffers
	 * (RTE_ETH_TX_OFFLOAD_MULTI_SEGS). Default false: copy.
	 */
	bool zero_copy_tx;
	uint16_t zc_min;		/**< zero-copy threshold; 0: 256 bytes */
	/**
	 * Mbufs of the attached and tail segments of zero-copy packets: a
	 * small data room (>= 64 bytes) is enough. NULL: hdr_pool. When it
	 * is empty the payload is copied instead.
	 */
	struct rte_mempool *zc_pool;
	/**
	 * Largest path MTU the port carries (the port's active MTU as Linux
	 * RDMA names it); 0: ROCE_MTU_4096. roce_modify_qp() refuses a
	 * larger path MTU with -EINVAL, as rxe does: a frame above it would
	 * not fit the link (nor the device's TX buffers).
	 */
	enum roce_mtu max_mtu;
	/**
	 * RC responder ACK coalescing (IBTA 9.7.5.1.1: an ACK acknowledges
	 * every earlier PSN). An ACK goes at once when a request asks for one
	 * (AckReq) or ends a message; otherwise after @p ack_pkts packets
	 * without one (0: ROCE_RESP_ACK_PKTS; 1: every packet) or @p ack_us
	 * microseconds after the first of them (0: ROCE_RESP_ACK_US). NAKs
	 * and READ/atomic responses are never held.
	 */
	uint16_t ack_pkts;
	uint16_t ack_us;
};

/**
 * Defaults of roce_device_config::ack_pkts and ack_us. Linux rxe as a
 * requester sets AckReq on a message's last packet and every 128 packets;
 * softernic's every 64 (and when its window fills): the packet bound only
 * matters to a requester that asks for none.
 */
enum roce_resp_ack_defaults {
	ROCE_RESP_ACK_PKTS = 32,
	ROCE_RESP_ACK_US = 20,
};

/** Capabilities, as ibv_device_attr. */
struct roce_device_attr {
	uint64_t max_mr_size;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;	/**< as responder */
	uint32_t max_qp_init_rd_atom;	/**< as requester */
	uint32_t max_srq;
	uint32_t max_srq_wr;
	uint32_t max_msg_sz;
	uint32_t max_mw;
	bool atomic_cap;		/**< atomics are atomic for this device */
};

/** Create a device. Returns NULL with rte_errno set on failure. */
struct roce_device *roce_device_create(const struct roce_device_config *cfg);

/** Destroy a device; every object on it must have been destroyed (-EBUSY). */
int roce_device_destroy(struct roce_device *dev);

/** Fill @p attr with the device's limits. */
int roce_query_device(const struct roce_device *dev,
		      struct roce_device_attr *attr);

/** Set or clear GID table entry @p index (control path). */
int roce_device_set_gid(struct roce_device *dev, unsigned int index,
			const union roce_gid *gid);

/**
 * Create a worker: the execution context that owns QPs and CQs. @p tx is
 * called from roce_worker_poll() with frames to send. A device has one or
 * more workers; each runs on one lcore.
 */
struct roce_worker *roce_worker_create(struct roce_device *dev,
				       roce_tx_burst_t tx, void *tx_ctx);

/**
 * As roce_worker_create(), with the worker's memory (its state, timers,
 * rings, and the QPs, CQs and SRQs created on it) on NUMA node @p socket
 * instead of the device's: the node of the lcore that will poll it.
 * SOCKET_ID_ANY takes the device's node.
 */
struct roce_worker *roce_worker_create_socket(struct roce_device *dev,
					      roce_tx_burst_t tx, void *tx_ctx,
					      int socket);

/** Destroy a worker that owns no QP or CQ any more (-EBUSY otherwise). */
int roce_worker_destroy(struct roce_worker *w);

/**
 * Feed received RoCEv2 frames to the worker. The worker takes ownership of
 * every mbuf (consumed, freed or kept for reassembly-free zero-copy use).
 * Frames that do not belong to one of its QPs are counted and freed.
 * @return number of frames accepted by a QP.
 */
uint16_t roce_worker_rx(struct roce_worker *w, struct rte_mbuf **pkts,
			uint16_t nb_pkts, uint64_t now_tsc);

/**
 * As roce_worker_rx() for one frame the caller has parsed already: a PMD
 * that runs roce_parse() to classify its frames hands the view over
 * instead of having the worker parse the headers a second time. The
 * worker takes ownership of @p m.
 *
 * @param pkt what roce_parse(@p m, @p pkt) filled when it returned 0
 *   (frames it refused go through roce_worker_rx(), which counts why)
 * @return 1 when a QP took the frame, 0 when it was counted and freed
 */
int roce_worker_rx_parsed(struct roce_worker *w, struct rte_mbuf *m,
			  const struct roce_pkt *pkt, uint64_t now_tsc);

/**
 * Run the worker once: control requests, expired timers, requesters and
 * responders with work, then hand generated frames to the tx callback.
 * @return number of frames sent, so callers can tell idle loops apart.
 */
int roce_worker_poll(struct roce_worker *w, uint64_t now_tsc);

/* ------------------------------------------------------------------ */
/* Protection domain, memory regions, memory windows                  */
/* ------------------------------------------------------------------ */

/** Access flags (values of ibv_access_flags). */
enum roce_access_flags {
	ROCE_ACCESS_LOCAL_WRITE = 1 << 0,
	ROCE_ACCESS_REMOTE_WRITE = 1 << 1,
	ROCE_ACCESS_REMOTE_READ = 1 << 2,
	ROCE_ACCESS_REMOTE_ATOMIC = 1 << 3,
	ROCE_ACCESS_MW_BIND = 1 << 4,
	ROCE_ACCESS_ZERO_BASED = 1 << 5,
};

/**
 * Allocate a protection domain on @p dev (ibv_alloc_pd()): the MRs, MWs,
 * QPs and SRQs of one PD use each other's keys, never another PD's.
 *
 * @return the PD, or NULL with rte_errno set: EINVAL (@p dev NULL),
 *   ENOMEM (no memory, or the device's max_pd PDs exist)
 */
struct roce_pd *roce_alloc_pd(struct roce_device *dev);
/** -EBUSY while MRs, MWs, QPs, SRQs use it. */
int roce_dealloc_pd(struct roce_pd *pd);

/** Public view of a registered region. */
struct roce_mr_info {
	void *addr;
	uint64_t va;		/**< the MR's address of @c addr (its IOVA) */
	size_t length;
	uint32_t lkey;
	uint32_t rkey;
	int access;
};

/**
 * Register [addr, addr+length) with @p access. Keys are (index << 8 | key):
 * the low byte changes with every registration of an index so stale keys
 * fail. Remote write or atomic require local write (IBTA 10.6.3.1).
 */
struct roce_mr *roce_reg_mr(struct roce_pd *pd, void *addr, size_t length,
			    int access);

/**
 * As roce_reg_mr(), with the region known as [@p va, @p va + length) in
 * SGEs and in remote requests instead of by its host address
 * (ibv_reg_mr_iova()): the bytes at @p addr + (x - @p va) serve address
 * x. ROCE_ACCESS_ZERO_BASED makes @p va 0 whatever is given. NULL with
 * rte_errno EINVAL for a range that wraps.
 */
struct roce_mr *roce_reg_mr_iova(struct roce_pd *pd, void *addr,
				 size_t length, uint64_t va, int access);
/**
 * Describe @p mr: its host address, the address SGEs and peers use (0 for
 * a zero-based region), length, keys and access.
 *
 * @return 0, -EINVAL (@p mr or @p info NULL)
 */
int roce_mr_query(const struct roce_mr *mr, struct roce_mr_info *info);
/**
 * L_Key of @p mr, for the SGEs of local work requests (0, a key that
 * never validates, for NULL).
 */
uint32_t roce_mr_lkey(const struct roce_mr *mr);
/**
 * R_Key of @p mr, for the peer's RDMA READ, WRITE and atomic requests (0
 * for NULL).
 */
uint32_t roce_mr_rkey(const struct roce_mr *mr);

/** Flags of roce_rereg_mr() (values of ibv_rereg_mr_flags). */
enum roce_rereg_flags {
	ROCE_REREG_MR_CHANGE_TRANSLATION = 1 << 0,
	ROCE_REREG_MR_CHANGE_PD = 1 << 1,
	ROCE_REREG_MR_CHANGE_ACCESS = 1 << 2,
	/**
	 * softernic extension (no ibv_rereg_mr_flags value): keep the keys
	 * when the translation stays (only the PD or the access change), as
	 * ibverbs devices do; accesses checked from then on see the new PD
	 * and rights. Without it every reregistration issues new keys.
	 */
	ROCE_REREG_MR_KEEP_KEYS = 1 << 8,
};

/**
 * Re-register: new keys are issued, the old ones fail from now on (but
 * see ROCE_REREG_MR_KEEP_KEYS). A new translation is known by its host
 * address (as roce_reg_mr()).
 */
int roce_rereg_mr(struct roce_mr *mr, int flags, struct roce_pd *pd,
		  void *addr, size_t length, int access);
/**
 * Deregister @p mr. -EBUSY, the MR unchanged and still usable, while
 * memory windows are bound to it or while zero-copy frames built from its
 * memory (a queued retransmission, a READ response) are still held by the
 * port's queues or the peer: poll the port (or let its lcores run) and
 * call again. After 0 the memory may be freed, provided no worker is
 * building a packet from it at that moment (deregister once the WRs using
 * it have completed; rte_pmd_ernic_dereg_mr() also waits for the workers).
 */
int roce_dereg_mr(struct roce_mr *mr);

/** Memory window types (IBTA 10.6.7); this device offers type 2. */
enum roce_mw_type {
	ROCE_MW_TYPE_1 = 1,
	ROCE_MW_TYPE_2 = 2,
};

/**
 * Allocate a memory window on @p pd (ibv_alloc_mw()). Only type 2 is
 * offered: the window is bound in send queue order by a ROCE_WR_BIND_MW
 * work request of a QP of @p pd and grants no access before.
 *
 * @return the window, or NULL with rte_errno set: EINVAL (@p pd NULL or
 *   @p type not ROCE_MW_TYPE_2), ENOMEM (no memory, or the device's key
 *   table of max_mr MRs and MWs is full)
 */
struct roce_mw *roce_alloc_mw(struct roce_pd *pd, enum roce_mw_type type);
/**
 * Free memory window @p mw (ibv_dealloc_mw()); a bound window is
 * invalidated: its R_Key fails from then on.
 *
 * @return 0, -EINVAL (@p mw NULL)
 */
int roce_dealloc_mw(struct roce_mw *mw);
/** The rkey the window will have (its low byte is chosen at bind). */
uint32_t roce_mw_rkey(const struct roce_mw *mw);

/* ------------------------------------------------------------------ */
/* Completion queue                                                   */
/* ------------------------------------------------------------------ */

/** Work completion status (values of ibv_wc_status). */
enum roce_wc_status {
	ROCE_WC_SUCCESS = 0,
	ROCE_WC_LOC_LEN_ERR,
	ROCE_WC_LOC_QP_OP_ERR,
	ROCE_WC_LOC_EEC_OP_ERR,
	ROCE_WC_LOC_PROT_ERR,
	ROCE_WC_WR_FLUSH_ERR,
	ROCE_WC_MW_BIND_ERR,
	ROCE_WC_BAD_RESP_ERR,
	ROCE_WC_LOC_ACCESS_ERR,
	ROCE_WC_REM_INV_REQ_ERR,
	ROCE_WC_REM_ACCESS_ERR,
	ROCE_WC_REM_OP_ERR,
	ROCE_WC_RETRY_EXC_ERR,
	ROCE_WC_RNR_RETRY_EXC_ERR,
	ROCE_WC_LOC_RDD_VIOL_ERR,
	ROCE_WC_REM_INV_RD_REQ_ERR,
	ROCE_WC_REM_ABORT_ERR,
	ROCE_WC_INV_EECN_ERR,
	ROCE_WC_INV_EEC_STATE_ERR,
	ROCE_WC_FATAL_ERR,
	ROCE_WC_RESP_TIMEOUT_ERR,
	ROCE_WC_GENERAL_ERR,
};

/** Work completion opcode (values of ibv_wc_opcode). */
enum roce_wc_opcode {
	ROCE_WC_SEND = 0,
	ROCE_WC_RDMA_WRITE,
	ROCE_WC_RDMA_READ,
	ROCE_WC_COMP_SWAP,
	ROCE_WC_FETCH_ADD,
	ROCE_WC_BIND_MW,
	ROCE_WC_LOCAL_INV,
	ROCE_WC_RECV = 1 << 7,
	ROCE_WC_RECV_RDMA_WITH_IMM,
};

/** Work completion flags (values of ibv_wc_flags). */
enum roce_wc_flags {
	ROCE_WC_GRH = 1 << 0,
	ROCE_WC_WITH_IMM = 1 << 1,
	ROCE_WC_WITH_INV = 1 << 3,
};

/** One completion, as ibv_wc. */
struct roce_wc {
	uint64_t wr_id;
	enum roce_wc_status status;
	enum roce_wc_opcode opcode;
	uint32_t vendor_err;	/**< internal error code (enum roce_err) */
	uint32_t byte_len;
	/** immediate data (network order) or the invalidated rkey */
	uint32_t imm_data;
	uint32_t qp_num;
	uint32_t src_qp;	/**< UD: source QPN */
	uint32_t wc_flags;	/**< enum roce_wc_flags */
	uint16_t pkey_index;
	uint8_t sl;
	/**
	 * 1: a receive completed by a message whose last packet asked for a
	 * solicited event (BTH SE, IBTA 9.2.3, 11.4.2.2)
	 */
	uint8_t solicited;
};

/**
 * Create a completion queue of @p depth entries on worker @p w
 * (ibv_create_cq()): the QPs that use it are created on that worker. One
 * thread at a time polls it (roce_poll_cq()).
 *
 * @return the CQ, or NULL with rte_errno set: EINVAL (@p w NULL, @p depth
 *   0 or above ROCE_MAX_CQE), ENOMEM (no memory, or the device's max_cq
 *   CQs exist)
 */
struct roce_cq *roce_create_cq(struct roce_worker *w, uint32_t depth);
/** -EBUSY while QPs use it. */
int roce_destroy_cq(struct roce_cq *cq);
/** Poll up to @p n completions in order; returns the count or -EIO after overflow. */
int roce_poll_cq(struct roce_cq *cq, struct roce_wc *wc, int n);

/* ---- completion events (ibverbs completion channels) ----------------- */

struct roce_comp_channel;

/**
 * A completion channel (ibv_create_comp_channel()): an eventfd that
 * becomes readable when an armed CQ attached to it gets a completion.
 * @return the channel, or NULL with rte_errno set (ENOMEM, or the errno
 *   of eventfd())
 */
struct roce_comp_channel *roce_create_comp_channel(struct roce_device *dev);
/** Close the channel: -EBUSY while CQs are attached to it. */
int roce_destroy_comp_channel(struct roce_comp_channel *ch);
/**
 * The channel's file descriptor, for poll()/epoll (it may be made
 * O_NONBLOCK; roce_get_cq_event() then returns -EAGAIN when empty).
 */
int roce_comp_channel_fd(const struct roce_comp_channel *ch);

/**
 * Attach @p cq to @p ch (the channel argument of ibv_create_cq()), at any
 * time; NULL detaches (roce_destroy_cq() detaches too), only while no QP
 * uses the CQ and every event taken was acknowledged; events raised and
 * not taken are dropped. One thread takes the events of a channel and
 * detaches its CQs.
 * @return 0, -EINVAL, -EBUSY (detaching while QPs use the CQ or events
 *   are not acknowledged, or the channel holds its 1024 CQs)
 */
int roce_cq_set_channel(struct roce_cq *cq, struct roce_comp_channel *ch,
			void *cq_context);

/**
 * Arm @p cq (ibv_req_notify_cq()): the next completion written to it
 * raises one event on its channel; with @p solicited_only, the next
 * solicited receive completion or unsuccessful completion (IBTA
 * 11.4.2.2). Completions already in the CQ raise none: arm, poll the CQ
 * empty, then wait for the event. An arm for any completion wins over a
 * solicited-only one until the event. Any thread.
 * @return 0, -EINVAL (no channel)
 */
int roce_req_notify_cq(struct roce_cq *cq, bool solicited_only);

/**
 * Change the size of @p cq to hold @p depth completions (ibv_resize_cq()),
 * keeping those not polled yet. The caller serialises it with its own
 * polls of @p cq; the worker that owns the CQ runs the swap between two
 * completions (roce_worker_exec()).
 * @return 0, -EINVAL (depth 0 or above ROCE_MAX_CQE, or fewer than the
 *   completions waiting), -ENOMEM
 */
int roce_resize_cq(struct roce_cq *cq, uint32_t depth);

/**
 * Remove the completions of QP @p qpn that @p cq holds and that were not
 * polled yet (what ibverbs devices do when a QP moves to RESET: its old
 * work is forgotten, flush completions included). The others keep their
 * order. The caller serialises it with its polls of @p cq; the worker that
 * owns the CQ runs it between two completions (roce_worker_exec()).
 * @return the number removed, or -EINVAL
 */
int roce_cq_discard_qp(struct roce_cq *cq, uint32_t qpn);

/** Usable entries of @p cq (its depth), 0 for NULL. */
uint32_t roce_cq_depth(const struct roce_cq *cq);

/**
 * Take one event (ibv_get_cq_event()): blocks on the channel's fd until
 * an armed CQ got a completion (unless the fd is O_NONBLOCK).
 * @return 0 with *cq and *cq_context set, -EAGAIN (non-blocking, none),
 *   -EINTR (a signal interrupted the wait), -EINVAL
 */
int roce_get_cq_event(struct roce_comp_channel *ch, struct roce_cq **cq,
		      void **cq_context);

/**
 * Acknowledge @p nevents events of @p cq taken with roce_get_cq_event()
 * (ibv_ack_cq_events()); a CQ with unacknowledged events cannot be
 * destroyed nor detached.
 */
void roce_ack_cq_events(struct roce_cq *cq, unsigned int nevents);

/* ------------------------------------------------------------------ */
/* Work requests                                                      */
/* ------------------------------------------------------------------ */

/** Scatter/gather element. */
struct roce_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** Send work request opcodes (values of ibv_wr_opcode). */
enum roce_wr_opcode {
	ROCE_WR_RDMA_WRITE = 0,
	ROCE_WR_RDMA_WRITE_WITH_IMM,
	ROCE_WR_SEND,
	ROCE_WR_SEND_WITH_IMM,
	ROCE_WR_RDMA_READ,
	ROCE_WR_ATOMIC_CMP_AND_SWP,
	ROCE_WR_ATOMIC_FETCH_AND_ADD,
	ROCE_WR_LOCAL_INV,
	ROCE_WR_BIND_MW,
	ROCE_WR_SEND_WITH_INV,
	ROCE_WR_OPCODE_MAX,
};

/** Send flags (values of ibv_send_flags). */
enum roce_send_flags {
	ROCE_SEND_FENCE = 1 << 0,
	ROCE_SEND_SIGNALED = 1 << 1,
	ROCE_SEND_SOLICITED = 1 << 2,
	ROCE_SEND_INLINE = 1 << 3,
};

/** Address vector: where an RC/UC QP's path or a UD send goes. */
struct roce_ah_attr {
	union roce_gid dgid;
	uint8_t dmac[6];	/**< resolved next hop (the PMD's neighbour table) */
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;	/**< DSCP << 2 | ECN */
	uint8_t sl;
	uint8_t static_rate;
	uint8_t port_num;
	uint32_t flow_label;
};

/** A send work request, as ibv_send_wr without the list link. */
struct roce_send_wr {
	uint64_t wr_id;
	enum roce_wr_opcode opcode;
	uint32_t send_flags;		/**< enum roce_send_flags */
	const struct roce_sge *sg_list;
	uint32_t num_sge;
	union {
		uint32_t imm_data;	/**< network order */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			const struct roce_ah_attr *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct {
			struct roce_mw *mw;
			uint32_t rkey;		/**< new rkey: low byte chosen by the user */
			struct roce_mr *mr;
			uint64_t addr;
			uint64_t length;
			int access;
		} bind_mw;
	};
};

/** A receive work request. */
struct roce_recv_wr {
	uint64_t wr_id;
	const struct roce_sge *sg_list;
	uint32_t num_sge;
};

/* ------------------------------------------------------------------ */
/* Shared receive queue                                               */
/* ------------------------------------------------------------------ */

struct roce_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;	/**< arm the limit event when fewer WRs remain */
	/**
	 * create only: an SGE whose L_Key fails the local key check is not
	 * refused at post (-EFAULT); the receive completes in error when a
	 * message lands in it (roce_qp_init_attr::lkey_at_exec)
	 */
	bool lkey_at_exec;
};

enum roce_srq_attr_mask {
	ROCE_SRQ_MAX_WR = 1 << 0,
	ROCE_SRQ_LIMIT = 1 << 1,
};

/**
 * Create a shared receive queue on @p pd, owned by worker @p w, the worker
 * of the QPs that will take their receive WQEs from it (ibv_create_srq()).
 * A non-zero @c srq_limit arms the limit event at once
 * (ROCE_EVENT_SRQ_LIMIT_REACHED when fewer WQEs remain).
 *
 * @return the SRQ, or NULL with rte_errno set: EINVAL (a NULL argument,
 *   @p w of another device, @c max_wr 0 or above ROCE_MAX_SRQ_WR,
 *   @c max_sge above ROCE_MAX_SGE, @c srq_limit above @c max_wr), ENOMEM
 *   (no memory, or the device's max_srq SRQs exist)
 */
struct roce_srq *roce_create_srq(struct roce_pd *pd, struct roce_worker *w,
				 const struct roce_srq_attr *attr);
/**
 * Resize @p srq (ROCE_SRQ_MAX_WR: @c max_wr WQEs, those outstanding kept
 * in their order) and/or set its limit (ROCE_SRQ_LIMIT: @c srq_limit arms
 * the limit event again, 0 disarms it) (ibv_modify_srq()). The resize
 * runs on the SRQ's worker (roce_worker_exec()); the caller does not post
 * to the SRQ meanwhile.
 *
 * @return 0, or -EINVAL (a NULL argument, an unknown @p mask bit, @c
 *   max_wr 0, above ROCE_MAX_SRQ_WR or below the WQEs outstanding, a limit
 *   above the size, an SRQ in error), -ENOMEM; the SRQ is unchanged then
 */
int roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr,
		    int mask);
/**
 * The attributes of @p srq (ibv_query_srq()): its size, SGEs per WQE, the
 * armed limit (0 when disarmed, also after the event fired) and
 * @c lkey_at_exec.
 *
 * @return 0, -EINVAL (a NULL argument)
 */
int roce_query_srq(const struct roce_srq *srq, struct roce_srq_attr *attr);
/**
 * Destroy @p srq (ibv_destroy_srq()); the WQEs still on it complete
 * nowhere.
 *
 * @return 0, -EINVAL (@p srq NULL), -EBUSY while QPs use it
 */
int roce_destroy_srq(struct roce_srq *srq);
/** Same contract as roce_post_recv(). */
int roce_post_srq_recv(struct roce_srq *srq, const struct roce_recv_wr *wr,
		       unsigned int n, unsigned int *posted);

/* ------------------------------------------------------------------ */
/* Queue pair                                                         */
/* ------------------------------------------------------------------ */

enum roce_qp_type {
	ROCE_QPT_RC = 2,	/**< as IBV_QPT_RC */
	ROCE_QPT_UC = 3,
	ROCE_QPT_UD = 4,
};

/** QP states (values of ibv_qp_state). */
enum roce_qp_state {
	ROCE_QPS_RESET = 0,
	ROCE_QPS_INIT,
	ROCE_QPS_RTR,
	ROCE_QPS_RTS,
	ROCE_QPS_SQD,
	ROCE_QPS_SQE,
	ROCE_QPS_ERR,
	ROCE_QPS_UNKNOWN,
};

struct roce_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct roce_qp_init_attr {
	enum roce_qp_type qp_type;
	struct roce_cq *send_cq;
	struct roce_cq *recv_cq;
	struct roce_srq *srq;		/**< NULL: the QP has its own RQ */
	struct roce_qp_cap cap;
	bool sq_sig_all;		/**< every send WR generates a completion */
	void *qp_context;		/**< returned in async events */
	/**
	 * false (default): roce_post_send()/roce_post_recv() refuse a WR
	 * whose SGE fails the local key check (-EFAULT), an early and
	 * precise error. true: such a WR is posted, and fails when it
	 * executes (a send WR with ROCE_WC_LOC_PROT_ERR; a receive that a
	 * message lands in with it, the sender's with a Remote Operational
	 * Error NAK), as hardware devices and Linux rxe behave: the verbs
	 * provider asks for it.
	 */
	bool lkey_at_exec;
};

/** Attribute mask of roce_modify_qp() (values of ibv_qp_attr_mask). */
enum roce_qp_attr_mask {
	ROCE_QP_STATE = 1 << 0,
	ROCE_QP_CUR_STATE = 1 << 1,
	ROCE_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	ROCE_QP_ACCESS_FLAGS = 1 << 3,
	ROCE_QP_PKEY_INDEX = 1 << 4,
	ROCE_QP_PORT = 1 << 5,
	ROCE_QP_QKEY = 1 << 6,
	ROCE_QP_AV = 1 << 7,
	ROCE_QP_PATH_MTU = 1 << 8,
	ROCE_QP_TIMEOUT = 1 << 9,
	ROCE_QP_RETRY_CNT = 1 << 10,
	ROCE_QP_RNR_RETRY = 1 << 11,
	ROCE_QP_RQ_PSN = 1 << 12,
	ROCE_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	ROCE_QP_ALT_PATH = 1 << 14,
	ROCE_QP_MIN_RNR_TIMER = 1 << 15,
	ROCE_QP_SQ_PSN = 1 << 16,
	ROCE_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	ROCE_QP_PATH_MIG_STATE = 1 << 18,
	ROCE_QP_CAP = 1 << 19,
	ROCE_QP_DEST_QPN = 1 << 20,
	/**
	 * softernic extension (no ibv_qp_attr_mask value): selective repeat
	 * (roce_qp_attr::selective_repeat), RC only, optional at INIT->RTR
	 * and RTR->RTS. Set it only when the peer is a softernic end that
	 * agreed (CM vendor capability, doc/guides/selective-repeat.rst).
	 */
	ROCE_QP_SELECTIVE_REPEAT = 1 << 28,
};

/** QP attributes, as ibv_qp_attr. */
struct roce_qp_attr {
	enum roce_qp_state qp_state;
	enum roce_qp_state cur_qp_state;
	enum roce_mtu path_mtu;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	int qp_access_flags;
	struct roce_qp_cap cap;
	struct roce_ah_attr ah_attr;
	struct roce_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;		/**< query: SQD and still draining */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;		/**< 5-bit IBTA code */
	uint8_t port_num;
	uint8_t timeout;		/**< local ACK timeout: 4.096 us * 2^t, 0 = infinite */
	uint8_t retry_cnt;		/**< 0..7 */
	uint8_t rnr_retry;		/**< 0..7, 7 = infinite */
	uint8_t path_mig_state;
	/** 1: IRN-style selective repeat with a softernic peer, 0: off (default) */
	uint8_t selective_repeat;
};

/** Create a QP on the worker that owns its CQs. NULL + rte_errno on failure. */
struct roce_qp *roce_create_qp(struct roce_pd *pd,
			       const struct roce_qp_init_attr *attr);
/**
 * Destroy @p qp (ibv_destroy_qp()) in any state, while its worker runs:
 * on its worker (roce_worker_exec()) it leaves the QPN table, its type 2
 * windows are invalidated and its timers cancelled; its outstanding WRs
 * complete no more (move it to ERR first for flush completions). Its
 * memory is freed after a grace period, once no worker or slow-path
 * reader can still hold it (doc/guides/pmd.rst, QP lifetime); its CQs,
 * SRQ and PD can be destroyed as soon as this returns.
 *
 * @return 0, -EINVAL (@p qp NULL)
 */
int roce_destroy_qp(struct roce_qp *qp);
/**
 * Move the QP per the legal transition table (IBTA 10.3.1, 11.2.5.2):
 * -EINVAL and the QP unchanged for an illegal transition, a missing
 * required attribute, an attribute not allowed for the transition or an
 * out-of-range value.
 */
int roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *attr,
		   int mask);
/**
 * The attributes of @p qp (ibv_query_qp()), read on its worker: @p attr
 * gets the current ones (state, PSNs, path, timers, capabilities) and
 * @p init_attr those it was created with; either may be NULL.
 *
 * @return 0, -EINVAL (@p qp NULL, or both outputs NULL)
 */
int roce_query_qp(const struct roce_qp *qp, struct roce_qp_attr *attr,
		  struct roce_qp_init_attr *init_attr);
/** The QP number of @p qp, what the peer sends to (0 for NULL). */
uint32_t roce_qp_num(const struct roce_qp *qp);

/**
 * Post @p n send WRs. Returns 0 when all were posted; otherwise the
 * negative errno of wr[*posted], the first one not posted (-EINVAL bad
 * opcode or flags for the QP type or a bad SGE count, -ENOMEM queue full,
 * -EINVAL state forbids posting, -EINVAL inline too long, -EFAULT unknown
 * lkey for an SGE...). WRs before it were posted.
 *
 * Details: sends are refused (-EINVAL) in RESET, INIT and RTR; in SQD they
 * wait for SQD->RTS; in SQE and ERR they are accepted and complete with
 * ROCE_WC_WR_FLUSH_ERR. Receives are refused in RESET and on an SRQ user.
 * -EINVAL also for: an opcode the QP type lacks (UD: SEND(+imm); UC:
 * SEND(+imm), WRITE(+imm)), inline on other than SEND/WRITE, an atomic
 * without exactly one 8-byte SGE or with a remote address not 8-byte
 * aligned, a message above 2^31 bytes (UD: above the path MTU), a UD WR
 * without an AH whose sgid_index names a valid GID. -EFAULT: an SGE of
 * non-zero length fails roce_key_check_local() at post time (unknown or
 * stale lkey, other PD, out of the region, or no local write for READ,
 * atomic and receive buffers), unless the QP was created with
 * lkey_at_exec; inline data is copied at post time and its lkeys are not
 * checked.
 */
int roce_post_send(struct roce_qp *qp, const struct roce_send_wr *wr,
		   unsigned int n, unsigned int *posted);
/** Post @p n receive WRs; same contract as roce_post_send(). */
int roce_post_recv(struct roce_qp *qp, const struct roce_recv_wr *wr,
		   unsigned int n, unsigned int *posted);

/* ------------------------------------------------------------------ */
/* Asynchronous events                                                */
/* ------------------------------------------------------------------ */

/** Event types (values of ibv_event_type). */
enum roce_event_type {
	ROCE_EVENT_CQ_ERR = 0,
	ROCE_EVENT_QP_FATAL,
	ROCE_EVENT_QP_REQ_ERR,
	ROCE_EVENT_QP_ACCESS_ERR,
	ROCE_EVENT_COMM_EST,
	ROCE_EVENT_SQ_DRAINED,
	ROCE_EVENT_PATH_MIG,
	ROCE_EVENT_PATH_MIG_ERR,
	ROCE_EVENT_DEVICE_FATAL,
	ROCE_EVENT_PORT_ACTIVE,
	ROCE_EVENT_PORT_ERR,
	ROCE_EVENT_LID_CHANGE,
	ROCE_EVENT_PKEY_CHANGE,
	ROCE_EVENT_SM_CHANGE,
	ROCE_EVENT_SRQ_ERR,
	ROCE_EVENT_SRQ_LIMIT_REACHED,
	ROCE_EVENT_QP_LAST_WQE_REACHED,
	ROCE_EVENT_CLIENT_REREGISTER,
	ROCE_EVENT_GID_CHANGE,
};

struct roce_async_event {
	enum roce_event_type event_type;
	union {
		struct roce_qp *qp;
		struct roce_cq *cq;
		struct roce_srq *srq;
		uint32_t port_num;
	} element;
	uint32_t qp_num;	/**< for QP events, stable after destroy */
	uint32_t err;		/**< internal cause (enum roce_err) when known */
};

/** Take the oldest pending async event: 1 when one was returned, 0 when none. */
int roce_get_async_event(struct roce_device *dev, struct roce_async_event *ev);

/** Raise a port event (the PMD calls this on link up/down). */
int roce_device_port_event(struct roce_device *dev, bool up);

/**
 * Observer of a device's async events: called by the thread that raises
 * an event (a worker, the control path), under the device's event lock,
 * for every event, also those the queue has no room for. It must not
 * block nor call back into the device (e.g. push to a ring and return).
 */
typedef void (*roce_event_observer_t)(void *ctx,
				      const struct roce_async_event *ev);

/**
 * Set (or with @p fn NULL, clear) the observer of @p dev's async events.
 * The events still queue for roce_get_async_event(): the observer only
 * watches (the net_ernic control core watches QP fatal events this way).
 *
 * @return 0, -EINVAL
 */
int roce_device_set_event_observer(struct roce_device *dev,
				   roce_event_observer_t fn, void *ctx);

/** Async events dropped because the queue was full (never silently). */
uint64_t roce_device_events_dropped(struct roce_device *dev);

/* ------------------------------------------------------------------ */
/* Counters                                                           */
/* ------------------------------------------------------------------ */

/** Name and value of a counter, for xstats and telemetry. */
struct roce_counter {
	const char *name;
	uint64_t value;
};

/**
 * Copy up to @p n of the worker's counters (every drop reason, packets in/out
 * by kind, retransmissions, NAKs...). Returns the total number available.
 */
int roce_worker_counters(const struct roce_worker *w, struct roce_counter *c,
			 unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_VERBS_H */
