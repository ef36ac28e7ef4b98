/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_MAD_H
#define ROCE_MAD_H

/**
 * @file
 * Management datagrams on QP1 (the GSI, IBTA 13.4 / 13.5) for the
 * communication manager.
 *
 * A MAD is 256 bytes (IBTA 13.4.1): the 24-byte common header (struct
 * roce_mad_hdr, roce_hdr.h) and 232 bytes of class data. On RoCEv2 it
 * travels as the payload of a UD SEND_ONLY to destination QP 1 with a DETH
 * (Q_Key 0x80010000, source QP 1; IBTA 13.5.1, C13-12) and the default
 * P_Key 0xffff.
 *
 * This layer has two parts:
 * - frame helpers: roce_mad_frame_build() makes the complete frame (ICRC
 *   included) from a MAD and its addressing; roce_mad_frame_parse()
 *   validates a received frame and copies the MAD and the addressing out;
 * - the agent (struct roce_mad_agent): transaction IDs, sends that wait for
 *   an answer (timeouts and retries driven by the caller's clock, no
 *   sleeping), response matching by TID, duplicate detection of received
 *   MADs, and counters for everything dropped.
 *
 * The agent is single-threaded: one control thread calls every function.
 * Time is whatever monotonic tick the caller passes as @c now (the TSC in
 * the PMD), with the tick rate given at creation.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "roce_hdr.h"
#include "roce_parse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** QP1: the General Services Interface. */
#define ROCE_GSI_QPN 1
/** Q_Key of QP1 (IBTA 13.5.1, C13-12): the well-known GSI Q_Key. */
#define ROCE_GSI_QKEY 0x80010000u
/** Default partition key (full member of the default partition, IBTA 10.9.1.1). */
#define ROCE_DEFAULT_PKEY 0xffff
/** MAD base version (IBTA 13.4.2). */
#define ROCE_MAD_BASE_VERSION 1
/** CM class version (IBTA 12.11: 2 for the 1.2 CM). */
#define ROCE_CM_CLASS_VERSION 2
/** Bytes of class data after the common header. */
#define ROCE_MAD_DATA_LEN (ROCE_MAD_LEN - ROCE_MAD_HDR_LEN)

/** A whole MAD, in wire order. */
struct roce_mad {
	uint8_t b[ROCE_MAD_LEN];
} __rte_aligned(8);

/** The common header of @p mad. */
static inline struct roce_mad_hdr *
roce_mad_hdr(struct roce_mad *mad)
{
	return (struct roce_mad_hdr *)mad->b;
}

/** The common header of @p mad (read only). */
static inline const struct roce_mad_hdr *
roce_mad_hdr_c(const struct roce_mad *mad)
{
	return (const struct roce_mad_hdr *)mad->b;
}

/** The 232 bytes of class data of @p mad. */
static inline uint8_t *
roce_mad_data(struct roce_mad *mad)
{
	return mad->b + ROCE_MAD_HDR_LEN;
}

/** The class data of @p mad (read only). */
static inline const uint8_t *
roce_mad_data_c(const struct roce_mad *mad)
{
	return mad->b + ROCE_MAD_HDR_LEN;
}

/**
 * Write the common header of a CM MAD: base version 1, class CM, class
 * version 2, @p method, status 0, @p tid, @p attr_id, modifier 0.
 */
void roce_mad_init_hdr(struct roce_mad *mad, uint8_t method, uint64_t tid,
		       uint16_t attr_id);

/**
 * Addressing of one QP1 datagram, from our side: a received MAD fills it
 * with the frame's destination as local and its source as remote, so a
 * reply reuses it as is.
 */
struct roce_mad_addr {
	struct rte_ether_addr local_mac;
	struct rte_ether_addr remote_mac;
	uint8_t local_gid[16];	/**< IPv6 or IPv4-mapped (::ffff:a.b.c.d) */
	uint8_t remote_gid[16];
	uint8_t ip_ver;		/**< 4 or 6 */
	uint8_t tos;		/**< DSCP << 2 | ECN */
	uint8_t ttl;		/**< IPv4 TTL / IPv6 hop limit */
	bool vlan;
	uint16_t vlan_tci;
	uint32_t flow_label;	/**< IPv6 only */
	uint16_t udp_sport;	/**< flow entropy */
	uint16_t pkey;
	uint32_t remote_qpn;	/**< QP the MAD goes to (1), or came from */
};

/**
 * Build the frame of @p mad: Ethernet, IP, UDP, BTH (UD SEND_ONLY,
 * destination addr->remote_qpn, @p psn, AckReq set as Linux does), DETH
 * (Q_Key 0x80010000, source QP 1), the 256 bytes and the ICRC.
 *
 * @return 0 and the frame in *@p out, -ENOMEM (no mbuf) or an error of
 *   roce_build_mbuf() / roce_icrc_fill_mbuf()
 */
int roce_mad_frame_build(struct rte_mempool *mp, const struct roce_mad *mad,
			 const struct roce_mad_addr *addr, uint32_t psn,
			 uint16_t ip_id, struct rte_mbuf **out);

/** Why a received QP1 frame was dropped (counter indexes, see roce_mad_cnt). */
enum roce_mad_drop {
	ROCE_MAD_OK = 0,
	ROCE_MAD_DROP_NOT_GSI,		/**< not a UD SEND_ONLY to QP 1 */
	ROCE_MAD_DROP_QKEY,		/**< DETH Q_Key not 0x80010000 (C13-12) */
	ROCE_MAD_DROP_PKEY,		/**< P_Key not of the default partition */
	ROCE_MAD_DROP_LEN,		/**< payload not exactly 256 bytes (C13-1) */
	ROCE_MAD_DROP_BASE_VERSION,	/**< base version not 1 */
	ROCE_MAD_DROP_CLASS,		/**< management class not CM */
	ROCE_MAD_DROP_CLASS_VERSION,	/**< CM class version not 2 */
	ROCE_MAD_DROP_METHOD,		/**< CM method other than Send */
	ROCE_MAD_DROP_MAX,
};

/**
 * Validate a parsed QP1 frame and copy out its MAD and addressing.
 *
 * @param m the frame (not freed)
 * @param pkt its roce_parse() view (ICRC already checked by the worker)
 * @param[out] mad the 256 bytes
 * @param[out] addr the addressing, from our side
 * @return ROCE_MAD_OK, or the negated enum roce_mad_drop
 */
int roce_mad_frame_parse(const struct rte_mbuf *m, const struct roce_pkt *pkt,
			 struct roce_mad *mad, struct roce_mad_addr *addr);

/* ---------------------------------------------------------------------- */
/* Agent                                                                  */

/** Agent counters (names: roce_mad_cnt_name()). */
enum roce_mad_cnt {
	ROCE_MAD_CNT_RX,		/**< frames given to roce_mad_recv() */
	ROCE_MAD_CNT_RX_OK,		/**< MADs accepted */
	ROCE_MAD_CNT_RX_PARSE_ERR,	/**< frames roce_parse() refused */
	ROCE_MAD_CNT_RX_ICRC_ERR,	/**< ICRC mismatch */
	/* one per enum roce_mad_drop reason, in order */
	ROCE_MAD_CNT_DROP_NOT_GSI,
	ROCE_MAD_CNT_DROP_QKEY,
	ROCE_MAD_CNT_DROP_PKEY,
	ROCE_MAD_CNT_DROP_LEN,
	ROCE_MAD_CNT_DROP_BASE_VERSION,
	ROCE_MAD_CNT_DROP_CLASS,
	ROCE_MAD_CNT_DROP_CLASS_VERSION,
	ROCE_MAD_CNT_DROP_METHOD,
	ROCE_MAD_CNT_RX_DUP,		/**< same (source, TID, attribute) seen recently */
	ROCE_MAD_CNT_RX_MATCHED,	/**< answered a tracked send */
	ROCE_MAD_CNT_TX,		/**< frames handed to the tx callback */
	ROCE_MAD_CNT_TX_ERR,		/**< build failed or tx refused: frame lost */
	ROCE_MAD_CNT_RETRANS,		/**< tracked sends repeated on timeout */
	ROCE_MAD_CNT_TIMEOUTS,		/**< tracked sends out of retries */
	ROCE_MAD_CNT_NO_SEND_SLOT,	/**< tracked send refused: table full */
	ROCE_MAD_CNT_MAX,
};

/** Counter name, e.g. "mad_rx_drop_qkey". */
const char *roce_mad_cnt_name(enum roce_mad_cnt c);

/** Send one frame (takes ownership; returns 0, or -errno and frees it). */
typedef int (*roce_mad_tx_t)(void *ctx, struct rte_mbuf *m);

struct roce_mad_send;

/**
 * A tracked send ran out of retries (@p s is released right after the
 * call: forget it). @p ctx is the one given to roce_mad_send_tracked().
 */
typedef void (*roce_mad_timeout_t)(void *cb_ctx, void *ctx,
				   struct roce_mad_send *s, uint64_t now);

/** Parameters of roce_mad_agent_create(). */
struct roce_mad_agent_config {
	struct rte_mempool *pool;	/**< mbufs for the frames we send */
	roce_mad_tx_t tx;
	void *tx_ctx;
	roce_mad_timeout_t timeout_cb;
	void *cb_ctx;
	uint64_t hz;			/**< ticks of @c now per second (> 0) */
	uint32_t max_sends;		/**< tracked sends at once (> 0) */
	uint32_t dup_entries;		/**< duplicate cache entries (0: 1024) */
	uint64_t dup_window;		/**< ticks an entry stays (0: 10 s) */
	uint32_t hi_tid;		/**< high 32 bits of our TIDs */
	int socket;
};

struct roce_mad_agent;

/** Create an agent. NULL with rte_errno set (EINVAL, ENOMEM). */
struct roce_mad_agent *
roce_mad_agent_create(const struct roce_mad_agent_config *cfg);

/** Destroy an agent and every tracked send. */
void roce_mad_agent_destroy(struct roce_mad_agent *a);

/** A fresh transaction ID: hi_tid << 32 | a counter. */
uint64_t roce_mad_tid_new(struct roce_mad_agent *a);

/** Build and send @p mad once, untracked (answers, RTU, DREP, REJ). */
int roce_mad_send(struct roce_mad_agent *a, const struct roce_mad *mad,
		  const struct roce_mad_addr *addr);

/**
 * Send @p mad and repeat it every @p timeout ticks, @p retries times,
 * until roce_mad_send_cancel(); then the timeout callback runs. The MAD's
 * TID (set by the caller) is what roce_mad_match() finds it by.
 *
 * @return the tracked send, or NULL with rte_errno ENOSPC (table full,
 *   counted) or EINVAL
 */
struct roce_mad_send *
roce_mad_send_tracked(struct roce_mad_agent *a, const struct roce_mad *mad,
		      const struct roce_mad_addr *addr, uint64_t timeout,
		      uint32_t retries, void *ctx, uint64_t now);

/** Stop tracking @p s (its answer came) and release it. */
void roce_mad_send_cancel(struct roce_mad_agent *a, struct roce_mad_send *s);

/**
 * Keep waiting for @p s: its next try is @p timeout ticks from @p now,
 * without resending (an MRA arrived, IBTA 12.6.6).
 */
int roce_mad_send_extend(struct roce_mad_agent *a, struct roce_mad_send *s,
			 uint64_t timeout, uint64_t now);

/** The tracked send with TID @p tid to @p remote_gid, NULL when none. */
struct roce_mad_send *roce_mad_match(struct roce_mad_agent *a, uint64_t tid,
				     const uint8_t remote_gid[16]);

/** What roce_mad_recv() returns for an accepted MAD. */
struct roce_mad_rx {
	struct roce_mad mad;
	struct roce_mad_addr addr;
	bool dup;			/**< seen within the duplicate window */
};

/**
 * Take a received QP1 frame (always freed): parse, ICRC check, validate,
 * duplicate detection.
 *
 * @return 0 with @p rx filled, or a negative value when the frame was
 *   dropped (counted): the negated enum roce_mad_drop, or -EBADMSG for a
 *   frame that is not RoCEv2 or fails its ICRC
 */
int roce_mad_recv(struct roce_mad_agent *a, struct rte_mbuf *m, uint64_t now,
		  struct roce_mad_rx *rx);

/** Run the retry timers due at @p now; returns how many fired. */
unsigned int roce_mad_agent_poll(struct roce_mad_agent *a, uint64_t now);

/** Earliest retry deadline, UINT64_MAX when nothing waits. */
uint64_t roce_mad_agent_next(const struct roce_mad_agent *a);

/** Value of counter @p c. */
uint64_t roce_mad_agent_cnt(const struct roce_mad_agent *a,
			    enum roce_mad_cnt c);

/** Tries so far of a tracked send (1 after the first transmission). */
uint32_t roce_mad_send_tries(const struct roce_mad_send *s);

/** Tracked sends in use (leak checks). */
uint32_t roce_mad_agent_busy(const struct roce_mad_agent *a);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_MAD_H */
