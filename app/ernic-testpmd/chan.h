/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_CHAN_H
#define ERNIC_TESTPMD_CHAN_H

/**
 * @file
 * The side channel: a TCP connection as perftest and ibv_rc_pingpong use
 * (the client connects and writes first, every message is one write of a
 * fixed size), or one end of an in-process socketpair for --loopback.
 * While a read waits, the progress callback keeps the RoCE port polled, so
 * the QP engines answer the peer during handshakes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*chan_progress_t)(void *arg);

struct cm_chan;

struct chan {
	int fd;
	/** -R: messages go over the rdma_cm comm QP instead (cm_chan.h) */
	struct cm_chan *cm;
	bool client;		/**< writes first in an exchange */
	chan_progress_t progress;
	void *arg;
	volatile int *quit;	/**< set by SIGINT/SIGTERM */
};

/** Connect to @p host:@p port, retrying for @p wait_s seconds. */
int chan_connect(struct chan *c, const char *host, uint16_t port,
		 unsigned int wait_s);
/** Listen on @p port (any address) and accept one client. */
int chan_accept(struct chan *c, uint16_t port);
/** A connected pair in this process (--loopback): [0] client, [1] server. */
int chan_pair(struct chan c[2]);
void chan_close(struct chan *c);

/** Send @p n bytes as one message. */
int chan_write(struct chan *c, const void *buf, size_t n);
/** Receive exactly @p n bytes, polling the port meanwhile. */
int chan_read(struct chan *c, void *buf, size_t n);
/** perftest ctx_xchg_data(): client writes then reads, server the reverse. */
int chan_xchg(struct chan *c, const void *mine, void *theirs, size_t n);

#endif /* ERNIC_TESTPMD_CHAN_H */
