/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_FAULT_H
#define RTE_PMD_FAULT_H

/**
 * @file
 * net_fault: a fault-injecting wrapper port (doc/guides/pmd.rst, net_fault).
 *
 * A net_fault port takes ownership of an underlying port (port=) and passes
 * frames through it, impairing the frames it receives (dir=rx, the
 * default), sends (dir=tx) or both (dir=both): random loss, loss bursts
 * (fixed or random length), reordering, duplication, corruption (one bit
 * flipped), a delay with optional jitter (never reordering), and link
 * down/up (administrative or a periodic flap, always both directions).
 * One port with dir=both, or one on each end of a link, impairs both
 * directions:
 *
 *   --vdev=net_ring0 ... --vdev=net_fault0,port=net_ring0,loss=1,seed=7
 *   --vdev=net_ernic0,port=net_fault0,ip=198.18.0.1
 *
 * A bottleneck (rate_mbps=, queue_kb=, ecn_kmin_kb=, ecn_kmax_kb=,
 * ecn_pmax=) models a congested switch port: frames leave at the given
 * rate, a full queue tail-drops, and RED marks CE on ECN-capable frames
 * (doc/guides/congestion.rst). It needs no timer: the frames wait in the
 * queue's FIFO and leave on the next burst after their departure time.
 *
 * Every queue has its own generator seeded from seed=, the queue index and
 * the direction: the same sequence of frames on a queue sees the same
 * faults on every run. Every injected fault is counted in the port's
 * xstats ("fault_*" for received frames, "fault_tx_*" for sent ones).
 * Rates are in parts per million here, percent in devargs.
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The direction(s) a net_fault port impairs. */
enum rte_pmd_fault_dir {
	RTE_PMD_FAULT_DIR_RX = 0,	/**< frames received (default) */
	RTE_PMD_FAULT_DIR_TX = 1,	/**< frames sent */
	RTE_PMD_FAULT_DIR_BOTH = 2,	/**< both, with independent draws */
};

/** Impairments of a net_fault port (all 0: a transparent port). */
struct rte_pmd_fault_params {
	uint32_t loss_ppm;	/**< each frame lost independently */
	uint32_t burst_ppm;	/**< a loss burst starts at this frame... */
	uint32_t burst_len;	/**< ...and loses this many frames (>= 1)... */
	uint32_t reorder_ppm;	/**< frame held back behind the next one */
	uint32_t reorder_us;	/**< ...for at most this long (default 100) */
	uint32_t dup_ppm;	/**< frame delivered twice */
	uint32_t corrupt_ppm;	/**< one bit of one byte of the frame flipped */
	uint32_t delay_us;	/**< every frame delivered this much later */
	uint32_t link_up_ms;	/**< flap: up this long, then... */
	uint32_t link_down_ms;	/**< ...down this long, repeated (both > 0) */
	uint32_t jitter_us;	/**< plus 0..jitter_us more per frame, uniform;
				 *   a frame never leaves before the previous */
	uint32_t burst_len_max;	/**< ...or, when >= burst_len, a uniform length
				 *   in [burst_len, burst_len_max] per burst */
	uint32_t dir;		/**< enum rte_pmd_fault_dir: what is impaired */
	/* a congested switch port (bottleneck), per queue of each impaired
	 * direction; frames leave at rate_mbps in arrival order */
	uint32_t rate_mbps;	/**< bottleneck rate, Mbit/s of frame bytes;
				 *   0: no bottleneck (and no queue) */
	uint32_t queue_kb;	/**< its queue, KiB: a frame that does not fit
				 *   is tail-dropped (>= 1 with rate_mbps) */
	uint32_t ecn_kmin_kb;	/**< RED/ECN on the queue at arrival: below
				 *   Kmin no mark, ... */
	uint32_t ecn_kmax_kb;	/**< ...to Kmax a probability rising to
				 *   ecn_pmax_ppm, above Kmax every frame */
	uint32_t ecn_pmax_ppm;	/**< 0: no marking. An ECT frame due a mark
				 *   gets CE, a not-ECT one is dropped */
};

/**
 * Current impairments of net_fault port @p port_id.
 *
 * @return 0, -ENODEV (not a net_fault port), -EINVAL (@p p NULL)
 */
__rte_experimental
int rte_pmd_fault_get_params(uint16_t port_id,
			     struct rte_pmd_fault_params *p);

/**
 * Change the impairments at run time (any thread; each field is taken by
 * the receive path at its next burst). The seed is not changed.
 *
 * @return 0, -ENODEV, -EINVAL (a rate above 1000000 ppm, burst_ppm with
 *   burst_len 0, burst_len_max non-zero but below burst_len, only one of
 *   link_up_ms/link_down_ms, dir not an enum rte_pmd_fault_dir,
 *   rate_mbps above 400000, queue_kb 0 or above 1048576 with rate_mbps,
 *   queue_kb or ECN fields without rate_mbps, ecn_kmin_kb above
 *   ecn_kmax_kb, ecn_kmax_kb above queue_kb)
 */
__rte_experimental
int rte_pmd_fault_set_params(uint16_t port_id,
			     const struct rte_pmd_fault_params *p);

/**
 * Pull (@p up false) or plug back (@p up true) the cable: while down,
 * every frame sent is freed and counted (fault_link_down_tx), every frame
 * received or still delayed is dropped (fault_link_down_rx) and the link
 * reads down. Independent of the link_up_ms/link_down_ms flap.
 *
 * @return 0 or -ENODEV
 */
__rte_experimental
int rte_pmd_fault_set_link(uint16_t port_id, bool up);

/**
 * Port id of the underlying port of net_fault port @p port_id.
 *
 * @return the port id, or -ENODEV
 */
__rte_experimental
int rte_pmd_fault_underlying_port(uint16_t port_id);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_FAULT_H */
