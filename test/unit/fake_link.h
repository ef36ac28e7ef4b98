/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FAKE_LINK_H
#define FAKE_LINK_H

/*
 * A fake Ethernet link between two libroce devices in one process, in the
 * spirit of eRPC's fake transport: each device's worker transmits into the
 * other side's inbox through a seeded impairment stage (loss, loss bursts,
 * reordering, duplication, byte corruption), a capture hook sees every
 * frame as it leaves, and a driver loop alternates RX and poll on both
 * workers with a simulated TSC. When nothing moves, the clock jumps to the
 * earliest armed timer, so retransmission and RNR timeouts fire at once and
 * deterministically (no sleeping, no wall clock).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "roce_verbs.h"

/** Impairments of the frames leaving one side (probabilities in ppm). */
struct fake_link_impair {
	uint32_t loss_ppm;	/**< each frame lost independently */
	uint32_t burst_ppm;	/**< a loss burst starts at this frame */
	uint32_t burst_len;	/**< frames lost by a burst */
	uint32_t reorder_ppm;	/**< frame held back behind the next one */
	uint32_t dup_ppm;	/**< frame delivered twice */
	uint32_t corrupt_ppm;	/**< one byte after the UDP header flipped */
	/** 0: the tx callback takes every frame; else at most this many per call */
	uint16_t tx_accept_max;
	/**
	 * 0: no limit; else at most this many frames a step, whatever the
	 * calls: a TX ring the link drains at that rate (a full ring takes 0)
	 */
	uint16_t tx_accept_step;
};

/** What happened to the frames leaving one side. */
struct fake_link_stats {
	uint64_t tx;		/**< frames handed to the link */
	uint64_t delivered;	/**< frames put in the peer's inbox */
	uint64_t lost;		/**< random or burst loss */
	uint64_t down;		/**< dropped because the side is cut */
	uint64_t dup;
	uint64_t corrupted;
	uint64_t reordered;
	uint64_t refused;	/**< refused by tx_accept_max or tx_accept_step */
	uint64_t inbox_full;
};

/**
 * A bottleneck on the frames leaving one side: the egress queue of a
 * switch port, served at @p rate_mbps, with RED-like ECN marking on the
 * instantaneous queue (as switch and mlx5 users set it up: no mark below
 * Kmin, probability rising linearly to Pmax at Kmax, every frame above
 * Kmax; a frame that is not ECN-capable is dropped instead of marked) and
 * tail drop beyond @p limit_bytes. With @p host_mbps, each flow (frames
 * of one destination QP) first crosses its own host link at that rate,
 * as senders on different hosts reach one switch port: a flow cannot
 * arrive faster than its NIC (its queue there is unbounded).
 */
struct fake_link_bneck {
	uint32_t rate_mbps;	/**< service rate; 0: no bottleneck */
	uint32_t host_mbps;	/**< per-flow host link rate; 0: none */
	uint32_t limit_bytes;	/**< tail drop beyond */
	uint32_t kmin_bytes;	/**< Kmin */
	uint32_t kmax_bytes;	/**< Kmax */
	uint32_t pmax_ppm;	/**< Pmax, parts per million */
};

/** What the bottleneck did. */
struct fake_link_bneck_stats {
	uint64_t enq;		/**< frames queued */
	uint64_t marked;	/**< CE marks set */
	uint64_t red_drops;	/**< not ECT where a mark was due */
	uint64_t tail_drops;	/**< queue full */
	uint64_t departed;	/**< frames served */
	uint64_t bytes;		/**< bytes served */
	uint32_t max_q_bytes;	/**< highest queue seen */
};

/** Sees every frame a side transmits, before impairment (read only). */
typedef void (*fake_link_capture_t)(void *ctx, int from, const struct rte_mbuf *m);

struct fake_link;

/** One side: a device, its worker and a PD. */
struct fake_ep {
	struct fake_link *link;
	int idx;
	struct roce_device *dev;
	struct roce_worker *w;
	struct roce_pd *pd;
	uint8_t mac[6];
	union roce_gid gid;	/**< IPv4-mapped 10.0.0.(idx + 1), or IPv6 */
	/* frames to be received by this side */
	struct rte_mbuf **inbox;
	uint32_t in_head, in_tail, in_mask;
	/* impairment state of the frames leaving this side */
	struct rte_mbuf *held;	/**< reordered frame waiting for the next */
	uint32_t burst_left;
	struct fake_link_impair imp;
	uint64_t step_iter;	/**< the step step_taken counts (tx_accept_step) */
	uint32_t step_taken;
	bool cut;		/**< drop everything this side sends */
	struct fake_link_stats stats;
	/* bottleneck of the frames leaving this side (fake_link_set_bneck) */
	struct fake_link_bneck bn;
	struct rte_mbuf **bq;	/**< FIFO, FAKE_INBOX entries */
	uint32_t bq_head, bq_tail;
	uint32_t bq_bytes;	/**< bytes queued */
	uint64_t bq_busy;	/**< TSC at which the frame in service leaves */
	struct fake_link_bneck_stats bstats;
	/* host links before the bottleneck, by destination QP & 7 */
	struct rte_mbuf **hq[8];
	uint32_t hq_head[8], hq_tail[8];
	uint64_t hq_busy[8];
};

struct fake_link {
	struct fake_ep ep[2];
	uint64_t rng;		/**< xorshift64* state */
	uint64_t tsc;		/**< simulated TSC */
	uint64_t tsc_step;	/**< cycles per driver iteration */
	uint64_t iters;
	fake_link_capture_t capture;
	void *capture_ctx;
};

/** Create two devices (IPv4 GIDs when @p ipv6 is false) with workers and PDs. */
struct fake_link *fake_link_create(uint64_t seed, bool ipv6);

/** Destroy the link, its workers, PDs and devices (QPs etc. must be gone). */
void fake_link_destroy(struct fake_link *l);

/** Impair the frames leaving side @p from (0, 1, or -1 for both). */
void fake_link_set_impair(struct fake_link *l, int from,
			  const struct fake_link_impair *imp);

/** Cut (or restore) side @p from: every frame it sends is dropped. */
void fake_link_cut(struct fake_link *l, int from, bool cut);

void fake_link_set_capture(struct fake_link *l, fake_link_capture_t cb,
			   void *ctx);

/**
 * Put a bottleneck on the frames leaving side @p from (NULL or rate 0:
 * none; frames still queued are delivered first). Returns 0 or -ENOMEM.
 */
int fake_link_set_bneck(struct fake_link *l, int from,
			const struct fake_link_bneck *b);

/** One iteration: both sides receive their inbox, then poll. Returns activity. */
unsigned int fake_link_step(struct fake_link *l);

typedef bool (*fake_link_pred_t)(void *arg);

/**
 * Step until @p pred(@p arg) is true (checked before every step).
 * @return the steps taken, or -1 when @p max_iters passed first
 */
long fake_link_run_until(struct fake_link *l, fake_link_pred_t pred, void *arg,
			 long max_iters);

/** Step until nothing moves and no timer is armed, at most @p max_iters. */
void fake_link_settle(struct fake_link *l, long max_iters);

/** Connection options of fake_link_connect(). */
struct fake_conn_opts {
	enum roce_mtu mtu;
	uint32_t psn[2];		/**< start PSN of each side's SQ */
	int access;			/**< QP access flags (both sides) */
	uint8_t max_rd_atomic;		/**< and max_dest_rd_atomic */
	uint8_t timeout;		/**< local ACK timeout code */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	bool selective_repeat;		/**< RC: both sides at RTR->RTS (roce_sr.h) */
};

/** Defaults: MTU 1024, PSNs 100/200, all remote rights, 16 rd_atomic, retries 7. */
void fake_conn_opts_default(struct fake_conn_opts *o);

/**
 * Take @p qa (on side 0) and @p qb (on side 1), both RC or both UC, from
 * RESET to RTS connected to each other. Returns 0 or the failing modify's
 * error.
 */
int fake_link_connect(struct fake_link *l, struct roce_qp *qa,
		      struct roce_qp *qb, const struct fake_conn_opts *o);

/** Take UD QP @p qp on side @p side to RTS with Q_Key @p qkey. */
int fake_link_ud_ready(struct fake_link *l, int side, struct roce_qp *qp,
		       uint32_t qkey, uint32_t sq_psn);

struct roce_hdr_fields;

/**
 * Build a frame from @p f (roce_build.h) carrying @p len bytes of
 * @p payload, fill its ICRC and put it in side @p to's inbox, as if the
 * other side had sent it (no impairment, no capture). Returns 0 or -errno.
 */
int fake_link_inject(struct fake_link *l, int to,
		     const struct roce_hdr_fields *f, const void *payload,
		     uint32_t len);

/**
 * Counter @p name of worker @p w (roce_worker_counters()). A name the
 * worker does not have is a mistake in the test: it says so and aborts.
 */
uint64_t fake_link_counter(const struct roce_worker *w, const char *name);

/** The address vector of side @p to, as seen from side @p from. */
void fake_link_ah(const struct fake_link *l, int from, int to,
		  struct roce_ah_attr *ah);

#endif /* FAKE_LINK_H */
