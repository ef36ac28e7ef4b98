/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_CM_CHAN_H
#define ERNIC_TESTPMD_CM_CHAN_H

/**
 * @file
 * perftest's rdma_cm mode (-R): no TCP at all. The connection manager of
 * the net_ernic port (rte_pmd_ernic_cm.h: IB CM MADs on QP1 with the
 * rdma_cm IP service IDs) connects two kinds of RC QPs to the peer:
 *
 * - the "comm" QP (perftest create_comm_struct()/establish_connection()):
 *   one RC connection on the -p port; the side-channel messages (version,
 *   sys data, MTU, keys as a binary struct pingpong_dest, reports) are
 *   SENDs of exactly the message size, each answered before the next
 *   (rdma_write_data()/rdma_read_data());
 * - the test QPs (create_rdma_cm_connection()): after a key handshake on
 *   the comm QP, one connection per QP on the same port, then another
 *   handshake.
 *
 * The client side resolves the server's IPv4 address through the port's
 * neighbour table (ARP) and retries a connection that the server rejects
 * because it does not listen yet (perftest's server re-listens between the
 * two phases). Teardown: DREQ on every test connection and on the comm
 * connection, DREP or timeout, then timewait; the QPs are destroyed after
 * their ids.
 */

#include <stddef.h>

struct bench;
struct cm_chan;

/**
 * Create the comm QP of @p b (on its PD and worker) and connect it: the
 * client connects to b->o->server:b->o->port (retrying while the server
 * rejects or is unreachable, for @p wait_s seconds), the server listens on
 * that port and accepts the first request. Sets b->cm and b->ch.cm.
 */
int cm_chan_open(struct bench *b, unsigned int wait_s);

/**
 * create_rdma_cm_connection(): a key handshake, one connection per test
 * QP (client: connect with retries; server: accept b->nqps requests),
 * another key handshake. The QPs end in RTS with the CM's attributes.
 */
int cm_chan_connect_qps(struct bench *b);

/**
 * Disconnect the test connections and the comm connection, wait for the
 * peer's answers and for timewait (bounded). 0, or -ETIMEDOUT when the
 * peer never answered (the connection is torn down anyway). Runs once:
 * later calls return 0 (bench_close() calls it, and bench_run() after the
 * modes that end without ctx_close_connection(), e.g. write_lat).
 */
int cm_chan_close(struct bench *b);

/** Release the ids, the comm QP and its resources (any state; idempotent). */
void cm_chan_destroy(struct bench *b);

/** Send @p n bytes (<= 64) as one SEND on the comm QP; wait for its completion. */
int cm_chan_write(struct cm_chan *cc, const void *buf, size_t n);

/** Receive one message of exactly @p n bytes on the comm QP. */
int cm_chan_read(struct cm_chan *cc, void *buf, size_t n);

#endif /* ERNIC_TESTPMD_CM_CHAN_H */
