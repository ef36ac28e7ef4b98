/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ROCE_ERR_H
#define ROCE_ERR_H

/**
 * @file
 * The one error table of libroce: every internal error maps to exactly one
 * errno (API returns), one work completion status (the WR that carries the
 * cause) and, where the responder reports it on the wire, one AETH NAK
 * syndrome (IBTA 9.7.5.2.4 table 45). Nothing else in the library maps
 * errors; everything calls these functions.
 */

#include <stdint.h>

#include "roce_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Internal error codes (the rows of the table). */
enum roce_err {
	ROCE_OK = 0,
	ROCE_ERR_FLUSH,		/**< WR flushed by the error state */
	ROCE_ERR_LOC_LEN,	/**< receive buffer too small / length violation */
	ROCE_ERR_LOC_QP_OP,	/**< local QP operation error */
	ROCE_ERR_LOC_PROT,	/**< local key/PD/bounds violation on an SGE */
	ROCE_ERR_LOC_ACCESS,	/**< responder side: inbound access violation */
	ROCE_ERR_MW_BIND,	/**< memory window bind failed */
	ROCE_ERR_BAD_RESP,	/**< unexpected response opcode/length */
	ROCE_ERR_REM_INV_REQ,	/**< peer NAK: invalid request */
	ROCE_ERR_REM_ACCESS,	/**< peer NAK: remote access error */
	ROCE_ERR_REM_OP,	/**< peer NAK: remote operational error */
	ROCE_ERR_REM_INV_RD_REQ,/**< peer NAK: invalid RD request */
	ROCE_ERR_RETRY_EXC,	/**< transport retries exhausted */
	ROCE_ERR_RNR_RETRY_EXC,	/**< RNR retries exhausted */
	ROCE_ERR_PSN_SEQ,	/**< responder: PSN sequence error (NAK, retried) */
	ROCE_ERR_RNR,		/**< responder: no receive WQE (RNR NAK, retried) */
	ROCE_ERR_CQ_OVERFLOW,	/**< completion queue overrun */
	ROCE_ERR_FATAL,		/**< local catastrophic error */
	ROCE_ERR_GENERAL,	/**< anything else */
	ROCE_ERR_MAX,
};

/** AETH syndrome value meaning "no NAK for this error". */
#define ROCE_NAK_NONE 0xffu

/** Negative errno for API returns (ROCE_OK -> 0). */
int roce_err_to_errno(enum roce_err err);

/** Work completion status carried by the WR that failed with @p err. */
enum roce_wc_status roce_err_to_wc_status(enum roce_err err);

/**
 * AETH syndrome the responder sends for @p err (NAK codes 0x60..0x64,
 * RNR 0x20 | timer added by the caller), or ROCE_NAK_NONE.
 */
uint8_t roce_err_to_nak(enum roce_err err);

/** Error the requester records on receiving NAK @p syndrome. */
enum roce_err roce_err_from_nak(uint8_t syndrome);

/** Counter-style name ("rem_access_err") of @p err. */
const char *roce_err_name(enum roce_err err);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_ERR_H */
