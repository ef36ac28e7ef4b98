/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one error table of libroce (see roce_err.h).
 *
 * Every row gives, for one internal error:
 * - name:    counter-style name, unique;
 * - errno:   the negative errno an API call returns for it;
 * - wc:      the work completion status of the WR that carries the cause;
 * - nak:     the AETH syndrome a responder sends for it, or ROCE_NAK_NONE
 *            (IBTA 9.7.5.2.4, table 45: 0x60 PSN sequence error, 0x61
 *            invalid request, 0x62 remote access error, 0x63 remote
 *            operational error, 0x64 invalid RD request; RNR NAK is
 *            0x20 | 5-bit timer, the timer being added by the caller).
 *
 * Rows fall in three groups:
 * - responder-detected errors (LOC_LEN, LOC_QP_OP, LOC_PROT, LOC_ACCESS,
 *   PSN_SEQ, RNR): the responder NAKs with the syndrome of the row and,
 *   when a receive WQE is involved, completes it with the row's status;
 * - requester-side errors decoded from a NAK (REM_*): their syndrome is the
 *   one they were decoded from, so roce_err_from_nak(roce_err_to_nak(e))
 *   == e for them; a responder-detected error decodes at the requester to
 *   the REM_* row with the same syndrome;
 * - local errors that never travel (FLUSH, MW_BIND, BAD_RESP, RETRY_EXC,
 *   RNR_RETRY_EXC, CQ_OVERFLOW, FATAL, GENERAL): ROCE_NAK_NONE.
 */

#include <errno.h>

#include <rte_common.h>

#include "roce_err.h"

/* AETH syndromes (IBTA 9.7.5.2.4, table 45). */
enum {
	NAK_PSN_SEQ = 0x60,
	NAK_INV_REQ = 0x61,
	NAK_REM_ACCESS = 0x62,
	NAK_REM_OP = 0x63,
	NAK_INV_RD_REQ = 0x64,
	NAK_RNR_FIRST = 0x20,	/* 0x20 | timer: RNR NAK */
	NAK_RNR_LAST = 0x3f,
};

struct roce_err_row {
	const char *name;
	int err_no;			/* negative errno, 0 for ROCE_OK */
	enum roce_wc_status wc;
	uint8_t nak;
};

static const struct roce_err_row roce_err_table[ROCE_ERR_MAX] = {
	[ROCE_OK] = { "ok", 0, ROCE_WC_SUCCESS, ROCE_NAK_NONE },
	/* Flushed by the error state (IBTA 10.3.1, 11.4.2): never on the wire. */
	[ROCE_ERR_FLUSH] = { "wr_flush_err", -ECANCELED,
		ROCE_WC_WR_FLUSH_ERR, ROCE_NAK_NONE },
	/*
	 * Inbound SEND longer than the receive WQE (or a message longer than
	 * its DMA length): the responder NAKs Invalid Request (IBTA 9.7.5.2.4:
	 * "length errors" are invalid requests) and completes the receive WQE
	 * with Local Length Error.
	 */
	[ROCE_ERR_LOC_LEN] = { "loc_len_err", -EMSGSIZE,
		ROCE_WC_LOC_LEN_ERR, NAK_INV_REQ },
	/*
	 * Local QP operation error. At the responder (e.g. a malformed receive
	 * WQE) it prevents completing a valid request for a reason local to the
	 * responder: Remote Operational Error (IBTA 9.7.5.2.4).
	 */
	[ROCE_ERR_LOC_QP_OP] = { "loc_qp_op_err", -EINVAL,
		ROCE_WC_LOC_QP_OP_ERR, NAK_REM_OP },
	/*
	 * Local protection error on an SGE (bad lkey, PD, bounds, rights). At
	 * the requester it completes the send WQE; at the responder (an SGE of
	 * its receive WQE) the request cannot complete for a local reason:
	 * Remote Operational Error (IBTA 9.7.5.2.4).
	 */
	[ROCE_ERR_LOC_PROT] = { "loc_prot_err", -EFAULT,
		ROCE_WC_LOC_PROT_ERR, NAK_REM_OP },
	/*
	 * Responder: inbound RDMA WRITE/READ/atomic failed the rkey, PD, bounds
	 * or rights check (roce_key_check_remote): Remote Access Error NAK
	 * (IBTA 9.7.5.2.4, 9.7.4.1.5); a WRITE with immediate's receive WQE
	 * completes with Local Access Error.
	 */
	[ROCE_ERR_LOC_ACCESS] = { "loc_access_err", -EACCES,
		ROCE_WC_LOC_ACCESS_ERR, NAK_REM_ACCESS },
	/* Bind MW WR refused (IBTA 10.6.7.2, C10-72..75): local only. */
	[ROCE_ERR_MW_BIND] = { "mw_bind_err", -EINVAL,
		ROCE_WC_MW_BIND_ERR, ROCE_NAK_NONE },
	/* Requester got an unexpected response opcode or length: local only. */
	[ROCE_ERR_BAD_RESP] = { "bad_resp_err", -EPROTO,
		ROCE_WC_BAD_RESP_ERR, ROCE_NAK_NONE },
	/* Requester-side rows decoded from NAKs: self-inverse syndromes. */
	[ROCE_ERR_REM_INV_REQ] = { "rem_inv_req_err", -EREMOTEIO,
		ROCE_WC_REM_INV_REQ_ERR, NAK_INV_REQ },
	[ROCE_ERR_REM_ACCESS] = { "rem_access_err", -EACCES,
		ROCE_WC_REM_ACCESS_ERR, NAK_REM_ACCESS },
	[ROCE_ERR_REM_OP] = { "rem_op_err", -EREMOTEIO,
		ROCE_WC_REM_OP_ERR, NAK_REM_OP },
	[ROCE_ERR_REM_INV_RD_REQ] = { "rem_inv_rd_req_err", -EREMOTEIO,
		ROCE_WC_REM_INV_RD_REQ_ERR, NAK_INV_RD_REQ },
	/* Transport retries exhausted (IBTA 9.7.6): local only. */
	[ROCE_ERR_RETRY_EXC] = { "retry_exc_err", -ETIMEDOUT,
		ROCE_WC_RETRY_EXC_ERR, ROCE_NAK_NONE },
	/* RNR retries exhausted (IBTA 9.7.5.2.4, 9.7.6): local only. */
	[ROCE_ERR_RNR_RETRY_EXC] = { "rnr_retry_exc_err", -ENOBUFS,
		ROCE_WC_RNR_RETRY_EXC_ERR, ROCE_NAK_NONE },
	/*
	 * PSN sequence error: the responder NAKs 0x60 (IBTA 9.7.5.1.2) and the
	 * requester retries. It reaches a completion only when the retries run
	 * out, hence the retry-exceeded status.
	 */
	[ROCE_ERR_PSN_SEQ] = { "psn_seq_err", -EPROTO,
		ROCE_WC_RETRY_EXC_ERR, NAK_PSN_SEQ },
	/*
	 * No receive WQE: RNR NAK 0x20 | min RNR timer (IBTA 9.7.5.2.4); like
	 * PSN_SEQ it completes a WR only when the RNR retries run out.
	 */
	[ROCE_ERR_RNR] = { "rnr_err", -ENOBUFS,
		ROCE_WC_RNR_RETRY_EXC_ERR, NAK_RNR_FIRST },
	/*
	 * CQ overrun (IBTA 11.4.2.1): the CQ is in error, the QP goes to ERROR;
	 * no completion can carry it, GENERAL_ERR if one ever does.
	 */
	[ROCE_ERR_CQ_OVERFLOW] = { "cq_overflow", -ENOSPC,
		ROCE_WC_GENERAL_ERR, ROCE_NAK_NONE },
	[ROCE_ERR_FATAL] = { "fatal_err", -EIO,
		ROCE_WC_FATAL_ERR, ROCE_NAK_NONE },
	[ROCE_ERR_GENERAL] = { "general_err", -EIO,
		ROCE_WC_GENERAL_ERR, ROCE_NAK_NONE },
};

/* Returned for values outside the enum: a caller bug, never ROCE_OK. */
static const struct roce_err_row roce_err_invalid = {
	"invalid_err", -EINVAL, ROCE_WC_GENERAL_ERR, ROCE_NAK_NONE,
};

static const struct roce_err_row *
roce_err_row(enum roce_err err)
{
	if ((unsigned int)err >= ROCE_ERR_MAX)
		return &roce_err_invalid;
	return &roce_err_table[err];
}

int
roce_err_to_errno(enum roce_err err)
{
	return roce_err_row(err)->err_no;
}

enum roce_wc_status
roce_err_to_wc_status(enum roce_err err)
{
	return roce_err_row(err)->wc;
}

uint8_t
roce_err_to_nak(enum roce_err err)
{
	return roce_err_row(err)->nak;
}

enum roce_err
roce_err_from_nak(uint8_t syndrome)
{
	/* IBTA 9.7.5.2.4, table 45: bits 6..5 = 01 RNR NAK, 11 NAK. */
	if (syndrome >= NAK_RNR_FIRST && syndrome <= NAK_RNR_LAST)
		return ROCE_ERR_RNR;
	switch (syndrome) {
	case NAK_PSN_SEQ:
		return ROCE_ERR_PSN_SEQ;
	case NAK_INV_REQ:
		return ROCE_ERR_REM_INV_REQ;
	case NAK_REM_ACCESS:
		return ROCE_ERR_REM_ACCESS;
	case NAK_REM_OP:
		return ROCE_ERR_REM_OP;
	case NAK_INV_RD_REQ:
		return ROCE_ERR_REM_INV_RD_REQ;
	default:
		/* reserved NAK codes, or an ACK handed in by mistake */
		return ROCE_ERR_BAD_RESP;
	}
}

const char *
roce_err_name(enum roce_err err)
{
	return roce_err_row(err)->name;
}
