/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CC_TRACE_H
#define CC_TRACE_H

/*
 * --cc-trace FILE (cc_trace.c, doc/guides/congestion.rst): during a
 * --loopback bandwidth run, every CC_TRACE_MS a line of the client's
 * completed bytes per QP (each a flow) and the state of the net_fault
 * bottleneck under either port: its queue now (rx and tx), its tail
 * drops and CE marks so far. devtools/bench.sh's cc step computes
 * utilisation and fairness from it; devtools/cc-plot.sh --run plots it.
 */

#include <stdint.h>
#include <stdio.h>

enum {
	CC_TRACE_MS = 10,	/**< the sampling period */
	CC_TRACE_XS = 6,	/**< xstats sampled: queue, drops, marks x rx/tx */
};

struct cc_trace {
	FILE *f;
	uint64_t hz;
	uint64_t start;		/**< TSC of the first line */
	uint64_t next;		/**< TSC of the next line */
	int fault;		/**< the net_fault port with a bottleneck, -1: none */
	uint64_t id[CC_TRACE_XS];	/**< its xstats' ids */
	unsigned int nid;	/**< ids found */
};

/**
 * Open @p path for a trace of @p nqps flows; the bottleneck is looked for
 * under @p port[0] and @p port[1] (the loopback's ernic ports).
 * @return 0, or a negative errno (the file cannot be made).
 */
int cc_trace_open(struct cc_trace *t, const char *path,
		  const uint16_t port[2], uint32_t nqps);

/**
 * A line when the period has passed: @p ccnt[i] messages of @p size bytes
 * completed by QP i since the run's start.
 */
void cc_trace_tick(struct cc_trace *t, const uint64_t *ccnt, uint32_t nqps,
		   uint64_t size);

/** Close the file (a no-op on a trace never opened). */
void cc_trace_close(struct cc_trace *t);

#endif /* CC_TRACE_H */
