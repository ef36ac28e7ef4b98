/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_PMD_ERNIC_REG_RECOVERY_H
#define RTE_PMD_ERNIC_REG_RECOVERY_H

/**
 * @file
 * Fatal errors of register-window (PG332) QPs, watched by the control core
 * of a net_ernic port (doc/guides/ernic.rst "Recovery by the control
 * core").
 *
 * The control core reads the incoming packet error status queue
 * (IPKTERRQBA/IPKTERRQWPTR, with its own read index), the QP fatal async
 * events of the engines (roce_device_set_event_observer(): the events
 * still queue for roce_get_async_event()) and the STATQP fatal bit of the
 * QPs armed for recovery. Every fatal QP is reported once per incident
 * (RTE_PMD_ERNIC_REG_EVENT_QP_FATAL) and counted ("reg_recovery_*"
 * xstats). On a QP armed with rte_pmd_ernic_reg_set_recovery() the
 * control core runs the PG332 recovery sequence itself, through the
 * register window:
 *
 * - clear traffic: QPCONF "under recovery"; wait for STATQP send queue
 *   empty and outstanding queue empty, CQHEAD == SQPI (the engines
 *   completed every WQE: the failed one with its error, the rest with
 *   ROCE_WC_WR_FLUSH_ERR in the CQEs) and RESPHNDSTS[16]; clear QP enable
 *   (keep under recovery): RTE_PMD_ERNIC_REG_EVENT_QP_CLEARED;
 * - re-initialise (at once with RTE_PMD_ERNIC_REG_REC_AUTO_REINIT, else
 *   when the application calls rte_pmd_ernic_reg_reinit() with the PSNs
 *   agreed with the peer): SW override, zero STATRQPIDB, STATRQBUFCA(MSB),
 *   RQCI, STATCURSQPTR, SQPI, SQPSN, LSTRQREQ, STATMSN, CQHEAD (and the CQ
 *   and RQ memory doorbells), write the new SQPSN and LSTRQREQ, rewrite
 *   the destination MAC and IP, reset STATQP's counts, QPCONF enable with
 *   recovery cleared, SW override off: RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED.
 *   The application restarts its SQ, CQ and RQ indexes at 0.
 *
 * @warning
 * @b EXPERIMENTAL: every function of this file may change without prior
 * notice (__rte_experimental; the EXPERIMENTAL node of the driver's
 * version map): build with ALLOW_EXPERIMENTAL_API to call them.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Event types of rte_pmd_ernic_reg_get_event(). */
enum rte_pmd_ernic_reg_event_type {
	/** A QP went fatal (once per incident; armed or not). */
	RTE_PMD_ERNIC_REG_EVENT_QP_FATAL = 1,
	/** Armed QP: traffic cleared, QP disabled under recovery. */
	RTE_PMD_ERNIC_REG_EVENT_QP_CLEARED,
	/** Armed QP: re-initialised and enabled with the new PSNs. */
	RTE_PMD_ERNIC_REG_EVENT_QP_RECOVERED,
	/** Armed QP: the sequence failed (status); the QP is disarmed. */
	RTE_PMD_ERNIC_REG_EVENT_RECOVERY_FAILED,
};

/** Where a fatal error was seen (rte_pmd_ernic_reg_event::sources). */
enum rte_pmd_ernic_reg_source {
	RTE_PMD_ERNIC_REG_SRC_IPKTERRQ = 1u << 0,	/**< error status queue */
	RTE_PMD_ERNIC_REG_SRC_ASYNC = 1u << 1,	/**< engine async event */
	RTE_PMD_ERNIC_REG_SRC_STATQP = 1u << 2,	/**< STATQP[0] of an armed QP */
};

/** One event. */
struct rte_pmd_ernic_reg_event {
	uint32_t type;		/**< enum rte_pmd_ernic_reg_event_type */
	uint32_t qpn;
	/** QP_FATAL: IPKTERRQ code [15:0] (enum roce_err, 0x100|opcode). */
	uint32_t code;
	uint32_t syndrome;	/**< STATQP[22:16] at detection */
	uint32_t sources;	/**< enum rte_pmd_ernic_reg_source bits */
	uint32_t async_event;	/**< SRC_ASYNC: enum roce_event_type */
	/** CLEARED: CQHEAD (== SQPI): every WQE completed. */
	uint32_t cq_head;
	int status;		/**< RECOVERY_FAILED: -errno */
};

/** Flags of struct rte_pmd_ernic_reg_recovery. */
enum rte_pmd_ernic_reg_rec_flags {
	/** Re-initialise right after clearing, with sq_psn/rq_psn. */
	RTE_PMD_ERNIC_REG_REC_AUTO_REINIT = 1u << 0,
};

/** Recovery parameters of a register QP. */
struct rte_pmd_ernic_reg_recovery {
	uint32_t flags;		/**< enum rte_pmd_ernic_reg_rec_flags */
	uint32_t sq_psn;	/**< AUTO_REINIT: new SQPSN */
	uint32_t rq_psn;	/**< AUTO_REINIT: first PSN to receive */
	uint32_t drain_ms;	/**< clear phase bound (0: 2000) */
};

/** Parameters of rte_pmd_ernic_reg_reinit(). */
struct rte_pmd_ernic_reg_reinit {
	uint32_t sq_psn;	/**< new SQPSN */
	uint32_t rq_psn;	/**< first PSN to receive (LSTRQREQ = rq_psn - 1) */
	uint32_t dest_qpn;	/**< new DESTQPCONF, 0: keep */
};

/**
 * Arm (@p r not NULL) or disarm recovery of register QP @p qpn (2 ..
 * the window's QPs). Armed or not, its fatal errors are reported.
 *
 * @return 0, -ENODEV, -EINVAL, -EAGAIN (port never started)
 */
__rte_experimental
int rte_pmd_ernic_reg_set_recovery(uint16_t port_id, uint32_t qpn,
				   const struct rte_pmd_ernic_reg_recovery *r);

/**
 * Re-initialise armed QP @p qpn after its QP_CLEARED event (or ask for it
 * while it clears): the control core runs the re-init steps.
 *
 * @return 0, -ENODEV, -EINVAL (not armed, not recovering, bad PSN),
 *   -EAGAIN (port never started)
 */
__rte_experimental
int rte_pmd_ernic_reg_reinit(uint16_t port_id, uint32_t qpn,
			     const struct rte_pmd_ernic_reg_reinit *ri);

/**
 * Take the oldest register-QP event of the port. When the application
 * does not take them, the oldest are dropped and counted
 * ("reg_recovery_events_dropped").
 *
 * @return 1 when @p ev was filled, 0 when none, -ENODEV, -EINVAL, -EAGAIN
 */
__rte_experimental
int rte_pmd_ernic_reg_get_event(uint16_t port_id,
				struct rte_pmd_ernic_reg_event *ev);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_ERNIC_REG_RECOVERY_H */
