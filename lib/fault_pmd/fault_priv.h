/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FAULT_PRIV_H
#define FAULT_PRIV_H

/*
 * net_fault's insides, between its datapath (fault_rxtx.c: the
 * impairment pipeline, rx_burst and tx_burst) and its control side
 * (fault_ethdev.c: dev_ops, xstats, devargs, probe, the rte_pmd_fault_*
 * calls).
 */
#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "rte_pmd_fault.h"

extern int fault_logtype;

#define FAULT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, fault_logtype, "net_fault: " fmt "\n", \
		##__VA_ARGS__)

enum {
	FAULT_MAX_QUEUES = 16,
	FAULT_BURST = 64,
	FAULT_FIFO = 8192,		/**< frames in flight per queue */
	FAULT_POOL_SIZE = 2047,		/**< copies (dup, corrupt) */
	FAULT_POOL_ROOM = RTE_PKTMBUF_HEADROOM + 4096 + 256,
	FAULT_PPM = 1000000,
	FAULT_REORDER_US = 100,
	FAULT_BURST_LEN = 8,
	FAULT_QUEUE_KB = 1024,		/**< bottleneck queue by default */
	FAULT_QUEUE_KB_MAX = 1048576,
	FAULT_RATE_MAX = 400000,	/**< Mbit/s */
	FAULT_ECN_PMAX = 10000,		/**< 1 %, with ecn_kmin/kmax_kb */
};

#define FAULT_PARAM_STRING \
	"port=<underlying port name> dir=rx|tx|both loss=<%> " \
	"burst_loss=<%> burst_len=<frames> burst_len_max=<frames> " \
	"reorder=<%> reorder_us=<us> dup=<%> corrupt=<%> delay_us=<us> " \
	"jitter_us=<us> link_up_ms=<ms> link_down_ms=<ms> rate_mbps=<Mbit/s> " \
	"queue_kb=<KiB> ecn_kmin_kb=<KiB> ecn_kmax_kb=<KiB> ecn_pmax=<%> " \
	"seed=<u64>"

/** Counters of one queue, of its direction. */
enum fault_cnt {
	FAULT_CNT_IN,			/**< rx: read from below; tx: taken from the caller */
	FAULT_CNT_OUT,			/**< rx: returned by rx_burst; tx: taken by the port below */
	FAULT_CNT_OUT_BYTES,		/**< bytes of FAULT_CNT_OUT */
	FAULT_CNT_LOSS,
	FAULT_CNT_BURST_LOSS,		/**< frames lost in bursts */
	FAULT_CNT_BURSTS,		/**< bursts started */
	FAULT_CNT_REORDER,
	FAULT_CNT_DUP,
	FAULT_CNT_CORRUPT,
	FAULT_CNT_DELAYED,
	FAULT_CNT_LINK_DOWN,
	FAULT_CNT_FIFO_FULL,
	FAULT_CNT_NOMBUF,		/**< no copy for a dup (skipped) or a corrupt (dropped) */
	FAULT_CNT_BN_BYTES,		/**< bytes through the bottleneck */
	FAULT_CNT_BN_MARKED,		/**< CE marks set */
	FAULT_CNT_BN_TAIL_DROP,		/**< queue full */
	FAULT_CNT_BN_RED_DROP,		/**< not ECN-capable where a mark was due */
	FAULT_CNT_BN_PEAK,		/**< highest queue seen, bytes (a gauge) */
	FAULT_CNT_BN_QUEUE,		/**< queue now, bytes (a gauge, computed
					 * when read: fault_bneck_queue()) */
	FAULT_CNT_MAX,
};

/** Entries of the xstats table (fault_ethdev.c) */
#define FAULT_NB_XSTATS 38

struct fault_port;

struct fault_slot {
	struct rte_mbuf *m;
	uint64_t due;		/**< TSC at which it may leave */
};

/** The impairment pipeline of one receive or transmit queue. */
struct fault_q {
	struct fault_port *p;
	uint16_t qid;
	bool tx;
	rte_spinlock_t lock;	/**< tx only: sender vs. the receive side's flush */
	uint64_t rng;		/**< xorshift64* state */
	uint32_t burst_left;	/**< frames still to lose in this burst */
	struct rte_mbuf *held;	/**< reordered frame waiting for the next */
	uint64_t held_until;
	uint64_t last_due;	/**< due time of the newest frame in the FIFO */
	uint32_t head, tail;	/**< FIFO: free-running indexes */
	uint64_t bn_free;	/**< TSC: the bottleneck has sent its queue */
	uint64_t bn_rem;	/**< remainder of bn_free, 1/(rate bytes/s) cycles */
	uint64_t cnt[FAULT_CNT_MAX];
	struct fault_slot fifo[FAULT_FIFO];
} __rte_cache_aligned;

struct fault_port {
	uint16_t port_id;
	uint16_t under;
	bool owned;
	struct rte_eth_dev_owner owner;
	struct rte_ether_addr mac;
	struct rte_eth_dev_data *data;
	struct rte_mempool *pool;	/**< copies for dup and corrupt */
	uint64_t seed;
	uint64_t hz;
	uint64_t start_tsc;		/**< flap phase origin */
	uint8_t admin_down;		/**< rte_pmd_fault_set_link(), atomic */
	struct rte_pmd_fault_params prm;	/**< fields stored atomically */
	uint64_t base[FAULT_NB_XSTATS];	/**< xstats at the last reset */
};

/* fault_rxtx.c */

/** The parameters as the datapath sees them (atomic loads). */
void fault_params_load(const struct fault_port *p,
		       struct rte_pmd_fault_params *o);
/** Store @p i atomically, word by word. */
void fault_params_store(struct fault_port *p,
			const struct rte_pmd_fault_params *i);
/** 0 or -EINVAL: the values' ranges. */
int fault_params_check(const struct rte_pmd_fault_params *i);
/** 0 or -EINVAL: the bottleneck's values together. */
int fault_bneck_check(const struct rte_pmd_fault_params *i);
/** True while the link of @p p is down (set down, or a flap's down phase). */
bool fault_link_down(const struct fault_port *p,
		     const struct rte_pmd_fault_params *prm, uint64_t now);
/**
 * The bytes in @p q's bottleneck queue now, the line not having sent them
 * yet: read from any thread (the datapath's bn_free, loaded relaxed).
 */
uint64_t fault_bneck_queue(const struct fault_q *q);
/** Drop every frame of @p q's FIFO and held slot, counted as @p c. */
void fault_q_drain(struct fault_q *q, enum fault_cnt c);
uint16_t fault_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb);
uint16_t fault_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb);

#endif /* FAULT_PRIV_H */
