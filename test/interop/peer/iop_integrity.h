/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef IOP_INTEGRITY_H
#define IOP_INTEGRITY_H

/*
 * What iop_integrity.c (the data-integrity exchange) and iop_features.c
 * (its -f phases) share: the peer's state and the side-channel helpers.
 */
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "integrity_proto.h"
#include "perf_proto.h"

struct peer {
	const char *dev_name;
	const char *server;	/**< the active side: the passive one's address */
	int gid_index;
	unsigned int mtu;
	unsigned int port;
	bool features;		/**< -f: iop_features.c's phases after the PASS */
	int fd;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct perf_dest my, rem;
	/* -f only */
	struct ibv_mr *fmr;	/**< the features' buffer, fbuf */
	uint8_t *fbuf;
	struct ibv_mw *mw;	/**< the passive side's type 2 window */
};

/** Print "iop-integrity: FAIL: @p what", return 1. */
int die(const char *what);

/** Exchange INTEG_MSG_LEN-byte texts on the side channel; 0 or -1. */
int xchg_text(struct peer *p, const char *mine, char theirs[INTEG_MSG_LEN]);

/** Allocate and register fbuf (verbs_open() with -f); 0 or 1 (printed). */
int feat_open(struct peer *p);

/** The feature phases, after the PASS; 0 when all passed, else 1. */
int feat_run(struct peer *p);

/** Release what feat_open() and feat_run() made. */
void feat_close(struct peer *p);

#endif /* IOP_INTEGRITY_H */
