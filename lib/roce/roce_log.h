/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_LOG_H
#define ROCE_LOG_H

/**
 * @file
 * Log types of libroce, one per component. The library never prints on
 * its own: everything goes through rte_log so applications choose levels
 * with --log-level=lib.roce.<component>:<level>.
 */

#include <rte_log.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int roce_logtype_wire;	/**< lib.roce.wire: parse, ICRC */
extern int roce_logtype_verbs;	/**< lib.roce.verbs: PD, MR, CQ, SRQ, QP objects */
extern int roce_logtype_qp;	/**< lib.roce.qp: state machine */
extern int roce_logtype_req;	/**< lib.roce.req: requester engine */
extern int roce_logtype_resp;	/**< lib.roce.resp: responder engine */
extern int roce_logtype_comp;	/**< lib.roce.comp: completer engine */
extern int roce_logtype_cm;	/**< lib.roce.cm: MAD and CM */

/** Log through the type of component @p comp (wire, verbs, qp, req, ...). */
#define ROCE_LOG(level, comp, fmt, ...) \
	rte_log(RTE_LOG_ ## level, roce_logtype_ ## comp, \
		"roce.%s: " fmt "\n", #comp, ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* ROCE_LOG_H */
