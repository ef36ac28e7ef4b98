/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_CC_H
#define ROCE_CC_H

/**
 * @file
 * RoCEv2 congestion control: ECN marking, the notification point (CNPs on
 * CE-marked packets) and the DCQCN reaction point (a per-QP rate limiter),
 * doc/guides/congestion.rst.
 *
 * Parameters are per device (one device per port) and carry the names and
 * units of the mlx5 ``ecn`` sysfs knobs (roce_rp, roce_np), with an ``rp_``
 * or ``np_`` prefix. They may be changed at any time from the control
 * thread: the new value applies to the next event that reads it (ECN
 * marking: to QPs whose path is set afterwards, at INIT->RTR).
 *
 * Defaults are safe on a clean link: the reaction point engages only when
 * a CNP arrives (a QP starts unlimited) and releases its limiter once the
 * rate is back at rp_max_rate, so nothing is paced without congestion.
 */

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_device;
struct roce_qp;

/** Congestion control parameters (per device). */
enum roce_cc_param {
	ROCE_CC_ECN_ENABLE = 0,		/**< send ECT(0) (0/1), default 1 */
	ROCE_CC_NP_ENABLE,		/**< send CNPs on CE (0/1), default 1 */
	ROCE_CC_RP_ENABLE,		/**< react to CNPs (0/1), default 1 */
	ROCE_CC_NP_MIN_TIME_BETWEEN_CNPS, /**< us between CNPs of a QP, 4 */
	ROCE_CC_NP_CNP_DSCP,		/**< DSCP of CNPs, 48 */
	ROCE_CC_NP_CNP_PRIO,		/**< 802.1Q PCP of CNPs (tagged port), 6 */
	ROCE_CC_RP_TIME_RESET,		/**< us between timer increase events, 300 */
	ROCE_CC_RP_BYTE_RESET,		/**< bytes between byte increase events, 32767 */
	ROCE_CC_RP_THRESHOLD,		/**< F: fast recovery stages, 5 */
	ROCE_CC_RP_AI_RATE,		/**< additive increase, Mbit/s, 5 */
	ROCE_CC_RP_HAI_RATE,		/**< hyper increase, Mbit/s, 50 */
	ROCE_CC_RP_MIN_DEC_FAC,		/**< a cut keeps >= this % of the rate, 50 */
	ROCE_CC_RP_MIN_RATE,		/**< floor, Mbit/s, 1 */
	ROCE_CC_RP_MAX_RATE,		/**< ceiling, Mbit/s; 0: line_rate */
	ROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP, /**< Mbit/s; 0: the max rate, 0 */
	ROCE_CC_RP_DCE_TCP_G,		/**< alpha gain, 1024ths kept per period, 1019 */
	ROCE_CC_RP_DCE_TCP_RTT,		/**< alpha update period, us, 1 */
	ROCE_CC_RP_INITIAL_ALPHA_VALUE,	/**< alpha at the first CNP, 1024ths, 1023 */
	ROCE_CC_RP_GD,			/**< cut = rate * alpha / 2^(gd-10), 11 */
	ROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD, /**< us between two cuts, 4 */
	ROCE_CC_RP_ECN_WINDOW,		/**< ECN window of RC requesters (0/1), 1 */
	ROCE_CC_LINE_RATE,		/**< the port's rate, Mbit/s, 100000 */
	ROCE_CC_PARAM_MAX,
};

/** What one parameter is (roce_cc_param_info()). */
struct roce_cc_param_desc {
	const char *name;	/**< e.g. "rp_ai_rate" */
	const char *unit;	/**< "us", "bytes", "Mbit/s", "1/1024", "%", "" */
	uint32_t def;		/**< default */
	uint32_t min, max;	/**< accepted range */
	const char *help;	/**< one line */
};

/**
 * Description of parameter @p id, NULL when @p id >= ROCE_CC_PARAM_MAX.
 */
const struct roce_cc_param_desc *roce_cc_param_info(unsigned int id);

/**
 * Parameter id of @p name ("rp_ai_rate"; the mlx5 spellings without the
 * prefix, "rpg_*" forms, "dce_tcp_rtt" aliases "rp_alpha_update_period"
 * and "min_time_between_cnps" are accepted too). -ENOENT when unknown,
 * -EINVAL for NULL.
 */
int roce_cc_param_by_name(const char *name);

/**
 * Set parameter @p id of @p dev to @p value (control path, any thread).
 * Returns 0, -EINVAL (NULL device, bad id) or -ERANGE (value outside
 * [min, max] of roce_cc_param_info()).
 */
int roce_cc_set(struct roce_device *dev, unsigned int id, uint32_t value);

/** Current value of parameter @p id; -EINVAL for a NULL device or bad id. */
int roce_cc_get(const struct roce_device *dev, unsigned int id,
		uint32_t *value);

/** Per-QP congestion control state and counters (roce_qp_cc_query()). */
struct roce_qp_cc_info {
	bool limited;		/**< the DCQCN rate limiter is engaged */
	uint32_t rate_mbps;	/**< current rate Rc (max rate when not limited) */
	uint32_t target_mbps;	/**< target rate Rt */
	uint32_t alpha;		/**< congestion estimate, 1024ths */
	uint64_t ce_rx;		/**< CE-marked packets received */
	uint64_t cnp_tx;	/**< CNPs sent (notification point) */
	uint64_t cnp_rx;	/**< CNPs received (reaction point) */
	uint64_t rate_cuts;	/**< rate decreases */
	uint64_t rate_incs;	/**< rate increase events */
	uint64_t pace_stalls;	/**< requester runs stopped by the limiter */
	uint32_t min_rate_mbps;	/**< lowest rate since the QP was set up
				 *   (the max rate when never limited) */
	uint64_t resp_pace_stalls; /**< READ response runs stopped by it */
	bool window;		/**< the ECN window runs (a mark was seen) */
	uint32_t cwnd;		/**< the requester's window, PSNs */
	uint32_t window_alpha;	/**< its marked share estimate, 1024ths */
	uint64_t window_cuts;	/**< window cuts (at most one a window) */
};

/**
 * Read @p qp's congestion control state. The values are the worker's and
 * may be read from any thread (a snapshot, not atomic as a whole).
 * Returns 0 or -EINVAL.
 */
int roce_qp_cc_query(const struct roce_qp *qp, struct roce_qp_cc_info *info);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_CC_H */
