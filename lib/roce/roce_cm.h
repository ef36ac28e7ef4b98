/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_CM_H
#define ROCE_CM_H

/**
 * @file
 * InfiniBand communication manager (IBTA vol. 1 chapter 12) over QP1, with
 * the rdma_cm IP conventions, so that Linux rdma_cm peers (perftest -R,
 * librdmacm tools) connect to us and accept our connections.
 *
 * Two levels:
 * - messages: REQ, MRA, REJ, REP, RTU, DREQ, DREP as host-order structs,
 *   packed into / unpacked from a 256-byte MAD by mask and shift on the
 *   big-endian words of IBTA 12.6 (never C bit fields); the rdma_cm IP
 *   private data header and service IDs;
 * - the connection manager (struct roce_cm): per-connection state machine
 *   (enum roce_cm_state, IBTA 12.9 figures 98-101), timeouts and retries
 *   from the CM timeout fields, duplicate and stale connection handling,
 *   timewait; a small API (listen, connect, accept, reject, disconnect)
 *   with events taken by roce_cm_get_event(). The CM moves the
 *   application's QP through INIT, RTR and RTS with the attributes of the
 *   REQ and REP, and to ERR on disconnect, reject or timeout.
 *
 * Threading: a struct roce_cm is single-threaded (the PMD's control core
 * serialises every call). Time is the caller's monotonic tick (@c now,
 * the TSC in the PMD), with the rate given in roce_cm_config::hz.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "roce_mad.h"
#include "roce_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Messages (IBTA 12.6)                                                   */

/** Private data bytes per message (IBTA 12.6, table 98 and following). */
enum roce_cm_private_len {
	ROCE_CM_REQ_PRIVATE = 92,
	ROCE_CM_MRA_PRIVATE = 222,
	ROCE_CM_REJ_PRIVATE = 148,
	ROCE_CM_REP_PRIVATE = 196,
	ROCE_CM_RTU_PRIVATE = 224,
	ROCE_CM_DREQ_PRIVATE = 220,
	ROCE_CM_DREP_PRIVATE = 224,
	ROCE_CM_REJ_ARI_LEN = 72,
};

/** REJ reasons (IBTA 12.6.7.2, table 112). */
enum roce_cm_rej_reason {
	ROCE_CM_REJ_NO_QP = 1,
	ROCE_CM_REJ_NO_EEC = 2,
	ROCE_CM_REJ_NO_RESOURCES = 3,
	ROCE_CM_REJ_TIMEOUT = 4,
	ROCE_CM_REJ_UNSUPPORTED = 5,
	ROCE_CM_REJ_INVALID_COMM_ID = 6,
	ROCE_CM_REJ_INVALID_COMM_INSTANCE = 7,
	ROCE_CM_REJ_INVALID_SERVICE_ID = 8,
	ROCE_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	ROCE_CM_REJ_STALE_CONN = 10,
	ROCE_CM_REJ_RDC_NOT_EXIST = 11,
	ROCE_CM_REJ_INVALID_GID = 12,
	ROCE_CM_REJ_INVALID_LID = 13,
	ROCE_CM_REJ_INVALID_SL = 14,
	ROCE_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	ROCE_CM_REJ_INVALID_HOP_LIMIT = 16,
	ROCE_CM_REJ_INVALID_PACKET_RATE = 17,
	ROCE_CM_REJ_PORT_CM_REDIRECT = 24,
	ROCE_CM_REJ_PORT_REDIRECT = 25,
	ROCE_CM_REJ_INVALID_MTU = 26,
	ROCE_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	ROCE_CM_REJ_CONSUMER_DEFINED = 28,
	ROCE_CM_REJ_INVALID_RNR_RETRY = 29,
	ROCE_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	ROCE_CM_REJ_INVALID_CLASS_VERSION = 31,
	ROCE_CM_REJ_INVALID_FLOW_LABEL = 32,
	ROCE_CM_REJ_INVALID_ALT_FLOW_LABEL = 33,
};

/** Which message an MRA or REJ refers to (IBTA 12.6.6, 12.6.7). */
enum roce_cm_msg_ref {
	ROCE_CM_MSG_REQ = 0,
	ROCE_CM_MSG_REP = 1,
	ROCE_CM_MSG_OTHER = 2,	/**< LAP (REJ) / other */
};

/** Transport service types of the REQ (IBTA 12.6.5). */
enum roce_cm_transport {
	ROCE_CM_TRANSPORT_RC = 0,
	ROCE_CM_TRANSPORT_UC = 1,
	ROCE_CM_TRANSPORT_RD = 2,
};

/** A path of the REQ (primary or alternate; 44 bytes on the wire). */
struct roce_cm_path {
	uint16_t local_lid;		/**< 0xffff (permissive) on RoCE */
	uint16_t remote_lid;
	uint8_t local_gid[16];		/**< the REQ sender's GID */
	uint8_t remote_gid[16];		/**< the REQ receiver's GID */
	uint32_t flow_label;		/**< 20 bits */
	uint8_t packet_rate;		/**< 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;			/**< 4 bits */
	bool subnet_local;
	uint8_t local_ack_timeout;	/**< 5 bits: 4.096 us * 2^t */
};

/** ConnectRequest (IBTA 12.6.5). */
struct roce_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;		/**< 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;		/**< 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;		/**< 24 bits */
	uint8_t remote_cm_response_timeout; /**< 5 bits */
	uint8_t transport;		/**< enum roce_cm_transport (2 bits) */
	bool e2e_flow_control;
	uint32_t starting_psn;		/**< 24 bits */
	uint8_t local_cm_response_timeout; /**< 5 bits */
	uint8_t retry_count;		/**< 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;		/**< enum roce_mtu (4 bits) */
	bool rdc_exists;
	uint8_t rnr_retry_count;	/**< 3 bits */
	uint8_t max_cm_retries;		/**< 4 bits */
	bool srq;
	uint8_t ext_transport;		/**< 3 bits */
	struct roce_cm_path primary;
	struct roce_cm_path alternate;
	uint8_t private_data[ROCE_CM_REQ_PRIVATE];
	/** Vendor ID (24 bits; Linux: ECE vendor_id), ROCE_CM_VENDOR_* */
	uint32_t vendor_id;
};

/** MessageReceiptAcknowledgement (IBTA 12.6.6). */
struct roce_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;		/**< enum roce_cm_msg_ref (2 bits) */
	uint8_t service_timeout;	/**< 5 bits */
	uint8_t private_data[ROCE_CM_MRA_PRIVATE];
};

/** ConnectReject (IBTA 12.6.7). */
struct roce_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;		/**< enum roce_cm_msg_ref (2 bits) */
	uint8_t ari_len;		/**< 7 bits */
	uint16_t reason;		/**< enum roce_cm_rej_reason */
	uint8_t ari[ROCE_CM_REJ_ARI_LEN];
	uint8_t private_data[ROCE_CM_REJ_PRIVATE];
};

/**
 * softernic's value of the 24-bit Vendor ID of REQ and REP (Linux ≥ 5.8
 * hands it to rdma_cm applications as the ECE vendor_id and otherwise
 * ignores it; its REQs carry 0, and a Linux rdma_cm passive side echoes
 * the REQ's value in its REP): an unregistered company-ID-format value
 * (its first octet has the X bit set and the M bit clear, so it is no
 * assigned OUI) in the top 16 bits, capability bits in the low 8. A
 * softernic REP sets ROCE_CM_VENDOR_REP, so an echo is no answer.
 */
enum roce_cm_vendor {
	ROCE_CM_VENDOR_SOFTERNIC = 0x5ae700,	/**< softernic, no capability */
	ROCE_CM_VENDOR_MASK = 0xffff00,
	ROCE_CM_VENDOR_CAP_SR = 0x01,		/**< selective repeat offered/accepted */
	ROCE_CM_VENDOR_REP = 0x80,		/**< a softernic REP (not an echo) */
};

/** ConnectReply (IBTA 12.6.8). */
struct roce_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;		/**< 24 bits */
	uint32_t local_eecn;		/**< 24 bits */
	uint32_t starting_psn;		/**< 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;	/**< 5 bits */
	uint8_t failover_accepted;	/**< 2 bits */
	bool e2e_flow_control;
	uint8_t rnr_retry_count;	/**< 3 bits */
	bool srq;
	uint64_t local_ca_guid;
	uint8_t private_data[ROCE_CM_REP_PRIVATE];
	/** Vendor ID (24 bits in three bytes; Linux: ECE vendor_id) */
	uint32_t vendor_id;
};

/** ReadyToUse (IBTA 12.6.9). */
struct roce_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_RTU_PRIVATE];
};

/** DisconnectRequest (IBTA 12.6.10). */
struct roce_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;		/**< 24 bits: the receiver's QP */
	uint8_t private_data[ROCE_CM_DREQ_PRIVATE];
};

/** DisconnectReply (IBTA 12.6.11). */
struct roce_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[ROCE_CM_DREP_PRIVATE];
};

/** Sizes of the SIDR messages' fields (IBTA 12.11, tables 124-125). */
enum roce_cm_sidr_len {
	ROCE_CM_SIDR_REQ_PRIVATE = 216,
	ROCE_CM_SIDR_REP_INFO = 72,
	ROCE_CM_SIDR_REP_PRIVATE = 136,
};

/** SIDR_REP status (IBTA 12.11.2, table 126). */
enum roce_cm_sidr_status {
	ROCE_CM_SIDR_SUCCESS = 0,	/**< QPN and Q_Key valid */
	ROCE_CM_SIDR_UNSUPPORTED = 1,	/**< service ID not supported */
	ROCE_CM_SIDR_REJECT = 2,	/**< rejected by the service */
	ROCE_CM_SIDR_NO_QP = 3,		/**< no QP available */
	ROCE_CM_SIDR_REDIRECT = 4,	/**< see the ClassPortInfo */
	ROCE_CM_SIDR_UNSUPPORTED_VERSION = 5,
};

/** ServiceIDResolutionRequest (IBTA 12.11.1). */
struct roce_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[ROCE_CM_SIDR_REQ_PRIVATE];
};

/** ServiceIDResolutionResponse (IBTA 12.11.2). */
struct roce_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;			/**< enum roce_cm_sidr_status */
	uint8_t info_len;
	uint32_t qpn;			/**< 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t info[ROCE_CM_SIDR_REP_INFO];
	uint8_t private_data[ROCE_CM_SIDR_REP_PRIVATE];
};

/**
 * Pack a message into @p mad: common header (Send, @p tid, the message's
 * attribute ID) and class data, reserved bits 0.
 */
void roce_cm_req_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_req *r);
void roce_cm_mra_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_mra *r);
void roce_cm_rej_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_rej *r);
void roce_cm_rep_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_rep *r);
void roce_cm_rtu_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_rtu *r);
void roce_cm_dreq_pack(struct roce_mad *mad, uint64_t tid,
		       const struct roce_cm_dreq *r);
void roce_cm_drep_pack(struct roce_mad *mad, uint64_t tid,
		       const struct roce_cm_drep *r);
void roce_cm_sidr_req_pack(struct roce_mad *mad, uint64_t tid,
			   const struct roce_cm_sidr_req *r);
void roce_cm_sidr_rep_pack(struct roce_mad *mad, uint64_t tid,
			   const struct roce_cm_sidr_rep *r);

/**
 * Unpack the class data of @p mad (its header was validated by
 * roce_mad_frame_parse(); the attribute ID is not checked here).
 */
void roce_cm_req_unpack(const struct roce_mad *mad, struct roce_cm_req *r);
void roce_cm_mra_unpack(const struct roce_mad *mad, struct roce_cm_mra *r);
void roce_cm_rej_unpack(const struct roce_mad *mad, struct roce_cm_rej *r);
void roce_cm_rep_unpack(const struct roce_mad *mad, struct roce_cm_rep *r);
void roce_cm_rtu_unpack(const struct roce_mad *mad, struct roce_cm_rtu *r);
void roce_cm_dreq_unpack(const struct roce_mad *mad, struct roce_cm_dreq *r);
void roce_cm_drep_unpack(const struct roce_mad *mad, struct roce_cm_drep *r);
void roce_cm_sidr_req_unpack(const struct roce_mad *mad,
			     struct roce_cm_sidr_req *r);
void roce_cm_sidr_rep_unpack(const struct roce_mad *mad,
			     struct roce_cm_sidr_rep *r);

/* ---------------------------------------------------------------------- */
/* rdma_cm IP conventions (librdmacm / Linux cma.c)                       */

/** rdma_cm port spaces (enum rdma_ucm_port_space). */
enum roce_cm_port_space {
	ROCE_CM_PS_TCP = 0x0106,	/**< RC connections */
	ROCE_CM_PS_UDP = 0x0111,	/**< UD (SIDR) */
	ROCE_CM_PS_IB = 0x013f,
};

/** Service ID of an IP port: 0x0000000001PPpppp (PP: port space, pppp: port). */
static inline uint64_t
roce_cm_service_id(enum roce_cm_port_space ps, uint16_t port)
{
	return (uint64_t)ps << 16 | port;
}

/** True when @p sid is in one of the rdma_cm IP port spaces. */
static inline bool
roce_cm_service_is_ip(uint64_t sid)
{
	uint64_t ps = sid >> 16;

	return ps == ROCE_CM_PS_TCP || ps == ROCE_CM_PS_UDP ||
		ps == ROCE_CM_PS_IB;
}

/** Bytes of the rdma_cm IP private data header at the start of a REQ's. */
#define ROCE_CM_IP_HDR_LEN 36
/** Its version byte (CMA_VERSION). */
#define ROCE_CM_IP_HDR_VERSION 0x00

/** An IP address and port; the address in GID form (IPv4-mapped or IPv6). */
struct roce_cm_addr {
	uint8_t ip_ver;			/**< 4 or 6 */
	union roce_gid gid;		/**< ::ffff:a.b.c.d or the IPv6 address */
	uint16_t port;			/**< host order */
};

/** Fill @p a with IPv4 address @p ip (network order) and @p port. */
void roce_cm_addr_ipv4(struct roce_cm_addr *a, rte_be32_t ip, uint16_t port);
/** Fill @p a with IPv6 address @p ip6 and @p port. */
void roce_cm_addr_ipv6(struct roce_cm_addr *a, const uint8_t ip6[16],
		       uint16_t port);

/**
 * Write the rdma_cm header (version 0, IP version << 4, source port,
 * source and destination addresses; IPv4 in the last 4 bytes of each
 * 16-byte field) at @p pd (ROCE_CM_IP_HDR_LEN bytes).
 */
int roce_cm_ip_hdr_pack(uint8_t *pd, const struct roce_cm_addr *src,
			const struct roce_cm_addr *dst);

/**
 * Read the rdma_cm header at @p pd. The destination port is not in it:
 * it is the service ID's low 16 bits (dst->port is set to 0).
 * @return 0, or -EPROTO (version not 0, IP version not 4 or 6)
 */
int roce_cm_ip_hdr_unpack(const uint8_t *pd, struct roce_cm_addr *src,
			  struct roce_cm_addr *dst);

/** IBTA CM time code to ticks: 4.096 us * 2^t (t capped at 31). */
uint64_t roce_cm_time_ticks(uint8_t t, uint64_t hz);

/* ---------------------------------------------------------------------- */
/* Connection manager                                                     */

/** Connection states (IBTA 12.9.6, figures 98-101). */
enum roce_cm_state {
	ROCE_CM_IDLE = 0,
	ROCE_CM_REQ_SENT,		/**< active: REQ out, waiting for REP */
	ROCE_CM_REQ_RCVD,		/**< passive: waiting for accept/reject */
	ROCE_CM_MRA_REQ_SENT,		/**< passive: REQ acknowledged with an MRA */
	ROCE_CM_MRA_REQ_RCVD,		/**< active: the peer sent an MRA for our REQ */
	ROCE_CM_REP_SENT,		/**< passive: REP out, waiting for RTU */
	ROCE_CM_REP_RCVD,		/**< active: REP being processed */
	ROCE_CM_MRA_REP_RCVD,		/**< passive: the peer sent an MRA for our REP */
	ROCE_CM_ESTABLISHED,
	ROCE_CM_DREQ_SENT,		/**< DREQ out, waiting for DREP */
	ROCE_CM_DREQ_RCVD,		/**< DREQ being answered */
	ROCE_CM_TIMEWAIT,
	ROCE_CM_SIDR_REQ_SENT,		/**< UD, active: SIDR_REQ out */
	ROCE_CM_SIDR_REQ_RCVD,		/**< UD, passive: reply awaited */
	ROCE_CM_STATE_MAX,
};

/** Name of a state, e.g. "ESTABLISHED". */
const char *roce_cm_state_name(enum roce_cm_state s);

/** Events delivered by roce_cm_get_event(). */
enum roce_cm_event_type {
	/** Passive: a REQ for a listener; answer with accept or reject. */
	ROCE_CM_EVENT_CONNECT_REQUEST = 0,
	/** The connection is up (QP in RTS). */
	ROCE_CM_EVENT_ESTABLISHED,
	/** Active: the peer rejected (rej_reason). */
	ROCE_CM_EVENT_REJECTED,
	/** REQ or REP unanswered after every retry (status -ETIMEDOUT). */
	ROCE_CM_EVENT_UNREACHABLE,
	/** Our QP could not be moved (status: the modify error). */
	ROCE_CM_EVENT_CONNECT_ERROR,
	/** DREQ received, or our DREQ answered or timed out: QP in ERR. */
	ROCE_CM_EVENT_DISCONNECTED,
	/** Timewait over: the QP may be reset and reused, the id destroyed. */
	ROCE_CM_EVENT_TIMEWAIT_EXIT,
	/**
	 * Passive UD: a SIDR_REQ for a listener of the UDP or IB port space;
	 * answer with roce_cm_sidr_reply().
	 */
	ROCE_CM_EVENT_SIDR_REQUEST,
	/**
	 * Active UD: the SIDR_REP came (sidr_status; on success remote_qpn
	 * and qkey are the service's). The id is idle afterwards. A SIDR_REQ
	 * unanswered after every retry gives UNREACHABLE (-ETIMEDOUT).
	 */
	ROCE_CM_EVENT_SIDR_REPLY,
};

/** Name of an event type, e.g. "ESTABLISHED". */
const char *roce_cm_event_name(enum roce_cm_event_type t);

struct roce_cm;
struct roce_cm_id;
struct roce_cm_listener;

/** One event. */
struct roce_cm_event {
	enum roce_cm_event_type type;
	struct roce_cm_id *id;
	struct roce_cm_listener *listener;	/**< CONNECT_REQUEST only */
	void *context;		/**< the id's (the listener's for CONNECT_REQUEST) */
	int status;		/**< 0 or -errno */
	uint16_t rej_reason;	/**< REJECTED: enum roce_cm_rej_reason */
	struct roce_cm_addr local;	/**< our address and port */
	struct roce_cm_addr remote;	/**< the peer's */
	uint32_t remote_qpn;
	uint8_t responder_resources;	/**< the peer's, from REQ/REP */
	uint8_t initiator_depth;
	uint32_t qkey;			/**< SIDR_REPLY: the service's Q_Key */
	uint8_t sidr_status;		/**< SIDR_REPLY: enum roce_cm_sidr_status */
	/**
	 * DISCONNECTED: the peer's DREQ caused it (the peer disconnected;
	 * its DREQ private data, truncated to 196 bytes, is in
	 * private_data). false: our own DREQ was answered or timed out, or a
	 * REJ ended the connection.
	 */
	bool by_peer_dreq;
	/** The peer's private data (rdma_cm header removed from a REQ's). */
	uint8_t private_data_len;
	uint8_t private_data[ROCE_CM_REP_PRIVATE];
};

/** Parameters of roce_cm_create(). */
struct roce_cm_config {
	struct roce_device *dev;	/**< GID table, QPs */
	struct rte_mempool *pool;	/**< mbufs for MAD frames */
	roce_mad_tx_t tx;		/**< sends one frame */
	void *tx_ctx;
	uint64_t hz;			/**< ticks per second of @c now */
	struct rte_ether_addr mac;	/**< our MAC */
	uint64_t ca_guid;		/**< 0: EUI-64 of @c mac */
	uint32_t max_ids;		/**< connections at once, <= 65536 (0: 1024) */
	uint32_t max_listeners;		/**< (0: 64) */
	uint32_t max_events;		/**< event queue (0: 2 * max_ids + 64) */
	uint8_t cm_response_timeout;	/**< ours, 5-bit code (0: 20, ~4.3 s) */
	uint8_t max_cm_retries;		/**< (0: 15, as rdma_cm) */
	uint8_t packet_life_time;	/**< 5-bit code (0: 16, ~268 ms) */
	uint8_t mra_service_timeout;	/**< in our MRAs (0: 20) */
	enum roce_mtu max_mtu;		/**< port MTU (0: 1024) */
	/**
	 * Selective repeat of the connections whose roce_cm_conn_param
	 * leaves it at ROCE_CM_SR_DEFAULT: ROCE_CM_SR_ON or ROCE_CM_SR_OFF
	 * (0: on; it is used only with a softernic peer that agrees).
	 */
	uint8_t selective_repeat;
	uint32_t seed;			/**< comm IDs, TIDs, PSNs (0: fixed) */
	int socket;
};

/** Create a CM. NULL with rte_errno set (EINVAL, ENOMEM). */
struct roce_cm *roce_cm_create(const struct roce_cm_config *cfg);

/**
 * Destroy a CM: every id and listener is freed (QPs are left as they are,
 * nothing is sent). The application must not use its ids afterwards.
 */
void roce_cm_destroy(struct roce_cm *cm);

/** Take a received QP1 frame (always consumed; drops are counted). */
void roce_cm_rx(struct roce_cm *cm, struct rte_mbuf *m, uint64_t now);

/** Run the retry and timewait timers due at @p now; returns how many fired. */
unsigned int roce_cm_poll(struct roce_cm *cm, uint64_t now);

/** Earliest deadline of the CM, UINT64_MAX when none. */
uint64_t roce_cm_next_deadline(const struct roce_cm *cm);

/** Take the oldest event: 1 when @p ev was filled, 0 when none. */
int roce_cm_get_event(struct roce_cm *cm, struct roce_cm_event *ev);

/**
 * Remove from the queue @p q (@p size entries, indexed by free-running
 * @p head and @p *tail modulo @p size) the events of @p id (when not NULL)
 * and the CONNECT_REQUESTs of @p l (when not NULL), keeping the order of
 * the others. roce_cm_destroy_id() and roce_cm_listen_stop() do it on the
 * CM's own queue, so that no event taken afterwards names a released id,
 * listener or context; a layer that copies events into a queue of its own
 * does it there too.
 * @return the number of events removed
 */
uint32_t roce_cm_events_withdraw(struct roce_cm_event *q, uint32_t size,
				 uint32_t head, uint32_t *tail,
				 const struct roce_cm_id *id,
				 const struct roce_cm_listener *l);

/**
 * Listen on @p addr (port required; an all-zero GID listens on every
 * local address) in port space @p ps: ROCE_CM_PS_TCP takes REQs (RC/UC),
 * ROCE_CM_PS_UDP SIDR_REQs (UD), ROCE_CM_PS_IB both. At most @p backlog
 * requests wait for an answer at once (0: 128); more are rejected with
 * NO_RESOURCES (a SIDR_REQ: status NO_QP).
 *
 * @return the listener, NULL with rte_errno (EINVAL, EADDRINUSE, ENOSPC)
 */
struct roce_cm_listener *roce_cm_listen(struct roce_cm *cm,
					const struct roce_cm_addr *addr,
					enum roce_cm_port_space ps,
					uint32_t backlog, void *context);

/** Stop listening; requests not yet answered are rejected. */
int roce_cm_listen_stop(struct roce_cm_listener *l, uint64_t now);

/** Selective repeat of a connection (roce_cm_conn_param, roce_cm_config). */
enum roce_cm_sr {
	ROCE_CM_SR_DEFAULT = 0,	/**< the CM's roce_cm_config::selective_repeat */
	ROCE_CM_SR_ON = 1,	/**< offer (connect) / accept (accept) */
	ROCE_CM_SR_OFF = 2,	/**< neither offer nor accept: go-back-N */
};

/** QP parameters of connect and accept (rdma_conn_param). */
struct roce_cm_conn_param {
	const void *private_data;
	uint8_t private_data_len;	/**< REQ: <= 56 (after the IP header), REP: <= 196 */
	uint8_t responder_resources;	/**< READ/atomic we accept at once */
	uint8_t initiator_depth;	/**< READ/atomic we issue at once */
	uint8_t retry_count;		/**< 0..7 (connect) */
	uint8_t rnr_retry_count;	/**< 0..7, 7 = infinite */
	uint8_t min_rnr_timer;		/**< our RNR NAK timer code */
	uint8_t local_ack_timeout;	/**< 5-bit code (connect; 0: 19) */
	enum roce_mtu path_mtu;		/**< 0: the CM's max_mtu */
	int qp_access_flags;		/**< 0: local write + remote read/write/atomic */
	/**
	 * RC: offer (connect) or accept selective repeat (roce_sr.h), enum
	 * roce_cm_sr; 0 (ROCE_CM_SR_DEFAULT): the CM's default, on unless
	 * the port turned it off. On only when both ends are softernic and
	 * agree (REQ/REP Vendor ID); a Linux peer never does, so the QP
	 * keeps go-back-N.
	 */
	uint8_t selective_repeat;
};

/**
 * Connect @p qp (RC or UC, in RESET or INIT; the CM moves it) from
 * @p src (port 0: an ephemeral port) to @p dst, an rdma_cm listener in the
 * TCP port space, whose next hop MAC is @p dmac. Sends the REQ.
 *
 * @return 0 and the id in *@p out, -EINVAL, -EADDRNOTAVAIL (@p src is not
 *   a local GID), -ENOSPC (no id), -EMSGSIZE (private data), or a modify
 *   error
 */
int roce_cm_connect(struct roce_cm *cm, const struct roce_cm_addr *src,
		    const struct roce_cm_addr *dst, const uint8_t dmac[6],
		    struct roce_qp *qp, const struct roce_cm_conn_param *p,
		    void *context, uint64_t now, struct roce_cm_id **out);

/**
 * Accept a CONNECT_REQUEST with @p qp (RESET or INIT): the QP goes to RTS
 * and the REP is sent; ESTABLISHED follows the RTU.
 *
 * @return 0, -EINVAL (state), -EMSGSIZE, or a modify error (a REJ was sent
 *   then and the id is idle)
 */
int roce_cm_accept(struct roce_cm_id *id, struct roce_qp *qp,
		   const struct roce_cm_conn_param *p, void *context,
		   uint64_t now);

/** Reject a CONNECT_REQUEST (the id becomes idle). */
int roce_cm_reject(struct roce_cm_id *id, uint16_t reason,
		   const void *private_data, uint8_t len, uint64_t now);

/**
 * Disconnect: an established connection sends a DREQ (QP to ERR at once;
 * DISCONNECTED follows the DREP or the timeout); a connection being set up
 * is rejected instead.
 */
int roce_cm_disconnect(struct roce_cm_id *id, uint64_t now);

/**
 * roce_cm_disconnect() with @p len bytes of private data in the DREQ
 * (<= ROCE_CM_DREQ_PRIVATE; ignored when the connection is being set up).
 *
 * @return 0, -EINVAL, -EMSGSIZE
 */
int roce_cm_disconnect_pd(struct roce_cm_id *id, const void *private_data,
			  uint8_t len, uint64_t now);

/**
 * Release @p id. Whatever the connection needs still happens (DREQ or REJ,
 * timewait) without further events; the QP is no longer touched after
 * this returns (it is in ERR if it was connected).
 */
int roce_cm_destroy_id(struct roce_cm_id *id, uint64_t now);

/**
 * Resolve a UD service (IBTA 12.11, rdma_cm's UDP and IB port spaces):
 * send a SIDR_REQ from @p src (port 0: an ephemeral port) to the listener
 * @p dst in port space @p ps (ROCE_CM_PS_UDP or ROCE_CM_PS_IB), whose next
 * hop MAC is @p dmac, with @p len bytes of private data after the rdma_cm
 * header. SIDR_REPLY (or UNREACHABLE) follows; the id stays the
 * application's until roce_cm_destroy_id().
 *
 * @return 0 and the id in *@p out, -EINVAL, -EADDRNOTAVAIL (@p src is not
 *   a local GID), -ENOSPC (no id), -EMSGSIZE (private data)
 */
int roce_cm_sidr_request(struct roce_cm *cm, const struct roce_cm_addr *src,
			 const struct roce_cm_addr *dst, const uint8_t dmac[6],
			 enum roce_cm_port_space ps, const void *private_data,
			 uint8_t len, void *context, uint64_t now,
			 struct roce_cm_id **out);

/**
 * Answer a SIDR_REQUEST: @p status (enum roce_cm_sidr_status), and on
 * success the UD QP @p qpn and its Q_Key @p qkey, with @p len bytes of
 * private data (<= ROCE_CM_SIDR_REP_PRIVATE). The id is idle afterwards.
 *
 * @return 0, -EINVAL (not a SIDR request waiting, status out of range),
 *   -EMSGSIZE
 */
int roce_cm_sidr_reply(struct roce_cm_id *id, uint8_t status, uint32_t qpn,
		       uint32_t qkey, const void *private_data, uint8_t len,
		       uint64_t now);

/**
 * The application destroys the QP of @p id: the CM forgets it (it moves
 * it no more; the connection's messages go on). Call before
 * roce_destroy_qp() when the id outlives its QP.
 *
 * @return 0, -EINVAL
 */
int roce_cm_detach_qp(struct roce_cm_id *id);

enum roce_cm_state roce_cm_id_state(const struct roce_cm_id *id);
struct roce_qp *roce_cm_id_qp(const struct roce_cm_id *id);
void *roce_cm_id_context(const struct roce_cm_id *id);
void roce_cm_id_set_context(struct roce_cm_id *id, void *context);

/** Ids in use (the application's and those finishing a timewait). */
uint32_t roce_cm_nb_ids(const struct roce_cm *cm);

/** Ids whose DREQ waits for its DREP (or its timeout). */
uint32_t roce_cm_nb_closing(const struct roce_cm *cm);

/** One connection of roce_cm_conn_list(). */
struct roce_cm_conn_info {
	const struct roce_cm_id *id;
	enum roce_cm_state state;
	bool active;			/**< we sent the REQ */
	bool orphan;			/**< destroyed by the application */
	struct roce_cm_addr local, remote;
	uint32_t local_qpn, remote_qpn;
	uint32_t local_comm_id, remote_comm_id;
	bool selective_repeat;		/**< negotiated on (roce_cm_conn_param) */
};

/**
 * The ids in use (not IDLE ones the application still holds), in table
 * order: fills up to @p n entries of @p out.
 *
 * @return how many there are (may exceed @p n)
 */
unsigned int roce_cm_conn_list(const struct roce_cm *cm,
			       struct roce_cm_conn_info *out, unsigned int n);

/** Counters of the CM and its MAD agent; returns the total available. */
int roce_cm_counters(const struct roce_cm *cm, struct roce_counter *c,
		     unsigned int n);

/** The value of counter @p name, or -ENOENT. */
int64_t roce_cm_counter(const struct roce_cm *cm, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_CM_H */
