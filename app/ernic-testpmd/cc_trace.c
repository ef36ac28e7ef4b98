/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --cc-trace: the time series of a congested --loopback run (cc_trace.h).
 *
 * Lines: "t_us b_1 .. b_N qrx qtx tail_drops ecn_marked", t_us from the
 * first line, b_i the bytes QP i completed (cumulative), qrx and qtx the
 * bottleneck's queue now in bytes (fault_bneck_queue and
 * fault_tx_bneck_queue: what the line has not sent yet), tail_drops and
 * ecn_marked cumulative, both directions. A "#" line first names the
 * columns. Without a bottleneck the last four are 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "cc_trace.h"
#include "cli_cc.h"
#include "rte_pmd_fault.h"

static const char *const cc_trace_names[CC_TRACE_XS] = {
	"fault_bneck_queue", "fault_tx_bneck_queue",
	"fault_bneck_tail_drop", "fault_tx_bneck_tail_drop",
	"fault_ecn_marked", "fault_tx_ecn_marked",
};

int
cc_trace_open(struct cc_trace *t, const char *path, const uint16_t port[2],
	      uint32_t nqps)
{
	struct rte_pmd_fault_params prm;
	unsigned int i;
	uint32_t q;

	memset(t, 0, sizeof(*t));
	t->fault = cc_bneck_port(port[0], &prm);
	if (t->fault < 0)
		t->fault = cc_bneck_port(port[1], &prm);
	for (i = 0; t->fault >= 0 && i < CC_TRACE_XS; i++) {
		if (rte_eth_xstats_get_id_by_name((uint16_t)t->fault,
						  cc_trace_names[i],
						  &t->id[i]) != 0)
			break;
		t->nid++;
	}
	if (t->fault >= 0 && t->nid != CC_TRACE_XS)
		t->fault = -1;
	t->f = fopen(path, "w");
	if (t->f == NULL)
		return -errno;
	t->hz = rte_get_tsc_hz();
	fprintf(t->f, "# t_us");
	for (q = 0; q < nqps; q++)
		fprintf(t->f, " bytes_qp%u", q + 1);
	fprintf(t->f, " queue_rx_B queue_tx_B tail_drops ecn_marked\n");
	return 0;
}

void
cc_trace_tick(struct cc_trace *t, const uint64_t *ccnt, uint32_t nqps,
	      uint64_t size)
{
	uint64_t now = rte_rdtsc(), v[CC_TRACE_XS];
	uint32_t q;

	if (t->f == NULL || (t->next != 0 && now < t->next))
		return;
	if (t->next == 0)
		t->start = now;
	t->next = now + t->hz * CC_TRACE_MS / 1000;
	memset(v, 0, sizeof(v));
	if (t->fault >= 0 &&
	    rte_eth_xstats_get_by_id((uint16_t)t->fault, t->id, v,
				     CC_TRACE_XS) != CC_TRACE_XS)
		memset(v, 0, sizeof(v));
	fprintf(t->f, "%" PRIu64, (now - t->start) * 1000000 / t->hz);
	for (q = 0; q < nqps; q++)
		fprintf(t->f, " %" PRIu64, ccnt[q] * size);
	fprintf(t->f, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		v[0], v[1], v[2] + v[3], v[4] + v[5]);
}

void
cc_trace_close(struct cc_trace *t)
{
	if (t->f != NULL)
		fclose(t->f);
	t->f = NULL;
}
