/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --loopback: the server and the client of a mode in one process, each on
 * its own net_ernic port and its own lcore, with the side channel on an
 * in-process socketpair (the same byte formats as over TCP).
 *
 * Ports: the first two net_ernic ports of the EAL; without them, a
 * crossed pair of in-memory net_ring ports with a net_ernic port on each
 * (198.18.0.1 and 198.18.0.2, pmtu 4096): no socket, no huge pages needed,
 * mbufs passed by pointer. A net_memif pair given with --vdev (or
 * conf/memif-pair.ini) works too: the PMD gives memif ports as many TX as
 * RX queues, as memif's paired rings require.
 * Placement: the client runs on the main lcore and polls its port inline;
 * the server runs on the next lcore and polls its own port inline. Nobody
 * else runs the workers (no service lcores), so two lcores are needed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "bench.h"
#include "cc_trace.h"
#include "cli_cc.h"
#include "port.h"
#include "testpmd.h"

#define LB_LINK_WAIT_S 5

/*
 * The server side on its lcore. Its objects are destroyed here too: a
 * worker executes control operations (QP/CQ destroy) on the thread that
 * polls it, and this is that thread.
 */
/* The server's QPs' congestion control state, before they go. */
static struct cc_snap lb_srv_cc;

static int
server_main(void *arg)
{
	struct bench *b = arg;
	int ret = bench_run(b);

	cc_snap_take(&lb_srv_cc, b->qp, b->nqps);
	bench_destroy(b);
	return ret;
}

static int
lb_init(struct bench *b, const struct app_opts *o, FILE *out, uint16_t port,
	bool server, volatile int *quit)
{
	memset(b, 0, sizeof(*b));
	b->ch.fd = -1;	/* bench_destroy() closes it */
	b->o = o;
	b->mode = ernic_mode_find(o->mode->name);
	b->server = server;
	b->quit = quit;
	b->port_id = port;
	b->quiet = server;
	b->out = server ? fopen("/dev/null", "w") : out;
	if (b->out == NULL)
		return -errno;
	b->check_out = out;
	rte_eth_dev_get_name_by_port(port, b->port_name);
	b->buf_sides = server ? 2 : 1;	/* the server side is made first */
	return bench_create(b);
}

int
run_loopback(const struct app_opts *o, volatile int *quit)
{
	return run_loopback_to(o, stdout, quit);
}

int
run_loopback_to(const struct app_opts *o, FILE *out, volatile int *quit)
{
	struct bench cli, srv;
	struct cc_trace trace = { .f = NULL };
	struct chan ch[2];
	uint16_t port[2];
	unsigned int lcore, i;
	bool cli_made = false;
	int ret, sret;

	/* the next lcore after this one (the main lcore, or the prompt's
	 * traffic lcore) */
	lcore = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "ernic-testpmd: --loopback needs 2 lcores (e.g. EAL option -l 0-1): the main lcore runs the client, the next one the server\n");
		return EXIT_USAGE;
	}
	if (port_nth(0, &port[0]) != 0 || port_nth(1, &port[1]) != 0) {
		ret = port_make_loopback_pair_qps(port, o->num_qps);
		if (ret != 0) {
			fprintf(stderr, "ernic-testpmd: cannot create the loopback ports: %s\n",
				rte_strerror(-ret));
			return 1;
		}
	}
	/*
	 * Start both ports in EAL order (a memif server before its client,
	 * which otherwise connects too early and waits to retry), then wait
	 * for the links.
	 */
	for (i = 0; i < 2; i++) {
		ret = port_start(port[i]);
		if (ret != 0) {
			fprintf(stderr, "ernic-testpmd: cannot start port %u: %s\n",
				port[i], rte_strerror(-ret));
			return 1;
		}
	}
	for (i = 0; i < 2; i++)
		port_wait_link(port[i], LB_LINK_WAIT_S);
	ret = lb_init(&srv, o, out, port[1], true, quit);
	if (ret == 0) {
		cli_made = true;
		ret = lb_init(&cli, o, out, port[0], false, quit);
	}
	if (ret == 0)
		ret = chan_pair(ch);
	if (ret != 0) {
		/* what either side made: a device with a PD left will not close */
		if (cli_made)
			bench_destroy(&cli);
		bench_destroy(&srv);
		if (srv.out != NULL && srv.out != stdout)
			fclose(srv.out);
		return 1;
	}
	if (o->cc_trace[0] != '\0') {
		ret = cc_trace_open(&trace, o->cc_trace, port, cli.nqps);
		if (ret != 0) {
			fprintf(stderr, "ernic-testpmd: --cc-trace %s: %s\n",
				o->cc_trace, strerror(-ret));
			bench_destroy(&cli);
			bench_destroy(&srv);
			fclose(srv.out);
			return 1;
		}
		cli.trace = &trace;
	}
	cli.peer_port_id = port[1];	/* -R: the client connects to it */
	cli.ch.fd = ch[0].fd;
	cli.ch.client = true;
	srv.ch.fd = ch[1].fd;
	srv.ch.client = false;
	ret = rte_eal_remote_launch(server_main, &srv, lcore);
	if (ret != 0) {
		fprintf(stderr, "ernic-testpmd: cannot launch the server on lcore %u: %s\n",
			lcore, rte_strerror(-ret));
		*quit = 1;
	} else {
		ret = bench_run(&cli);
		if (ret != 0) {
			fprintf(stderr, "ernic-testpmd: loopback client failed: %s\n",
				strerror(-ret));
			*quit = 1;	/* stop a server waiting for us */
		}
		sret = rte_eal_wait_lcore(lcore);
		if (ret == 0 && sret != 0) {
			fprintf(stderr, "ernic-testpmd: loopback server failed: %s\n",
				strerror(-sret));
			ret = sret;
		}
		if (ret == 0) {
			/* CE, CNPs, DCQCN rates, a net_fault bottleneck */
			struct cc_snap cs;
			const struct cc_snap *side[2] = { &cs, &lb_srv_cc };

			cc_snap_take(&cs, cli.qp, cli.nqps);
			cc_report_loopback(out, port, side);
		}
		if (o->xstats) {
			port_print_xstats(out, port[0]);
			port_print_xstats(out, port[1]);
		}
		if (o->cycles) {
			port_print_cycles(out, port[0]);
			port_print_cycles(out, port[1]);
		}
	}
	cc_trace_close(&trace);
	bench_destroy(&cli);
	if (srv.qp != NULL)
		bench_destroy(&srv);	/* never launched: nobody polled it */
	fclose(srv.out);
	return ret == 0 ? 0 : 1;
}
