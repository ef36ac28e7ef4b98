/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ernic-testpmd: perftest- and ibv_rc_pingpong-compatible benchmarks over
 * net_ernic ports, a one-process loopback, and an interactive prompt.
 *
 *   ernic-testpmd [EAL options] -- MODE [perftest flags] [SERVER]
 *   ernic-testpmd [EAL options] -- MODE --loopback [perftest flags]
 *   ernic-testpmd [EAL options] -- -i
 *   ernic-testpmd [EAL options] -- --config FILE [MODE] [flags] [SERVER]
 *
 * --config (config.c) reads EAL arguments, vdevs and the test from an INI
 * file; the command line overrides it.
 *
 * The application arguments are parsed before the EAL starts, so a bad
 * flag fails at once (exit 2) with the flag and the expected value named.
 * A net_ernic vdev that the EAL could not create ends the program after
 * the EAL start (exit 1) with the PMD's reason.
 * Exit: 0 success, 1 a runtime failure, 2 bad arguments.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_pdump.h>

#include "bench.h"
#include "config.h"
#include "port.h"
#include "testpmd.h"
#include "rte_pmd_ernic.h"

static volatile int quit_signal;

static void
on_signal(int sig)
{
	(void)sig;
	quit_signal = 1;
}

int
run_benchmark(const struct app_opts *o, volatile int *quit)
{
	return run_benchmark_to(o, stdout, quit);
}

int
run_benchmark_to(const struct app_opts *o, FILE *out, volatile int *quit)
{
	struct bench b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.o = o;
	b.mode = ernic_mode_find(o->mode->name);
	b.server = !app_opts_is_client(o);
	b.out = out;
	b.quit = quit;
	if (port_find(o->device, &b.port_id) != 0) {
		fprintf(stderr, "ernic-testpmd: bad value \"%s\" for -d: expected the name of a net_ernic port (add --vdev=net_ernic0,port=...,ip=... to the EAL options)\n",
			o->device[0] != '\0' ? o->device : "(none)");
		return EXIT_USAGE;
	}
	rte_eth_dev_get_name_by_port(b.port_id, b.port_name);
	ret = port_start(b.port_id);
	if (ret != 0) {
		fprintf(stderr, "ernic-testpmd: cannot start %s: %s\n",
			b.port_name, rte_strerror(-ret));
		return 1;
	}
	port_wait_link(b.port_id, 5);
	ret = bench_create(&b);
	if (ret == -EINVAL || ret == -ENOENT) {
		/* -m or -x that the port cannot honour */
		bench_destroy(&b);
		return EXIT_USAGE;
	}
	if (ret == 0)
		ret = bench_run(&b);
	if (o->xstats)
		port_print_xstats(out, b.port_id);
	if (o->cycles)
		port_print_cycles(out, b.port_id);
	bench_destroy(&b);
	return ret == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	char err[512];
	struct ernic_env_argv eal;
	struct app_config cfg;
	struct app_opts o;
	const char *cfg_path;
	int i, sep = argc, ret, app_argc;
	char **app_argv;
	bool pdump;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	app_argc = sep < argc ? argc - sep - 1 : 0;
	app_argv = sep < argc ? argv + sep + 1 : NULL;
	ret = app_config_take_path(&app_argc, &app_argv, &cfg_path, err,
				   sizeof(err));
	if (ret == 0 && cfg_path != NULL)
		ret = app_config_load(cfg_path, &cfg, err, sizeof(err));
	if (ret == 0)
		ret = app_config_opts(cfg_path != NULL ? &cfg : NULL, app_argc,
				      app_argv, &o, err, sizeof(err));
	if (ret == 0)
		ret = app_config_eal_argv(cfg_path != NULL ? &cfg : NULL, sep,
					  argv, &eal, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "ernic-testpmd: %s\n", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		app_opts_usage(stdout);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	port_probe_log_begin();
	ret = rte_eal_init(eal.argc, eal.argv);
	port_probe_log_end();
	if (ret < 0) {
		fprintf(stderr, "ernic-testpmd: cannot initialise the EAL: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	/*
	 * The EAL goes on without a vdev that failed to probe: stop here
	 * with the PMD's reason rather than run with a port less (a prompt
	 * without ports, a benchmark that blames -d).
	 */
	if (port_check_probed(err, sizeof(err)) != 0) {
		fprintf(stderr, "ernic-testpmd: cannot create port %s\n", err);
		port_close_all();
		rte_eal_cleanup();
		return 1;
	}
	/*
	 * Serve dpdk-dumpcap / dpdk-pdump: a primary with a shared
	 * configuration (--file-prefix, not --in-memory or --no-shconf,
	 * where it fails quietly) answers their capture requests.
	 */
	pdump = rte_eal_process_type() == RTE_PROC_PRIMARY &&
		rte_pdump_init() == 0;
	if (o.interactive)
		ret = run_interactive(&o, &quit_signal);
	else if (o.loopback)
		ret = run_loopback(&o, &quit_signal);
	else
		ret = run_benchmark(&o, &quit_signal);
	if (pdump)
		rte_pdump_uninit();
	port_close_all();
	rte_eal_cleanup();
	return ret;
}
