/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_CONFIG_H
#define ERNIC_TESTPMD_CONFIG_H

/**
 * @file
 * `ernic-testpmd -- --config FILE [MODE] [flags] [SERVER]`: an INI file
 * (read with rte_cfgfile, `;` starts a comment) that gives the EAL
 * arguments, the vdevs and the test to run:
 *
 *   [eal]          args   = EAL arguments, whitespace-separated
 *   [port.<name>]  vdev   = one vdev string (becomes --vdev=<vdev>)
 *   [test]         mode   = write_bw, ..., pingpong
 *                  args   = perftest flags (no server address)
 *                  server = the peer's side-channel address (client role)
 *
 * Every section is optional. The command line wins: EAL arguments given
 * before `--` replace [eal] args, a mode replaces [test] mode, flags come
 * after the file's flags (the last value of a flag is kept), and a server
 * address replaces [test] server. The vdevs of the [port.*] sections are
 * always added, in file order, after the EAL arguments.
 *
 * Pure code (no EAL): it runs before rte_eal_init() and is unit-tested in
 * test/unit/test_app_config.c. Every error is one line that names the
 * file, and the section and key when there is one (exit status 2).
 */

#include <stdbool.h>
#include <stddef.h>

#include "opts.h"

/** Sizes (the name and value sizes are rte_cfgfile's CFG_NAME_LEN/CFG_VALUE_LEN). */
enum {
	APP_CONFIG_NAME_LEN = 64,
	APP_CONFIG_VALUE_LEN = 256,
	APP_CONFIG_PATH_LEN = 1024,
	APP_CONFIG_MAX_PORTS = 16,	/**< [port.*] sections */
	APP_CONFIG_MAX_ARGS = 64,	/**< words of one args value */
	APP_CONFIG_MAX_ARGV = 512,	/**< built argument vectors */
	APP_CONFIG_ARGV_BUF = 8192,
};

/** A [port.<name>] section. */
struct app_config_port {
	char name[APP_CONFIG_NAME_LEN];		/**< <name> */
	char vdev[APP_CONFIG_VALUE_LEN];	/**< vdev = */
};

/** A loaded and checked configuration file. */
struct app_config {
	char path[APP_CONFIG_PATH_LEN];
	bool has_eal;				/**< [eal] present */
	char eal_args[APP_CONFIG_VALUE_LEN];	/**< [eal] args */
	unsigned int nb_ports;
	struct app_config_port ports[APP_CONFIG_MAX_PORTS];
	bool has_test;				/**< [test] present */
	char mode[APP_CONFIG_NAME_LEN];		/**< [test] mode */
	char test_args[APP_CONFIG_VALUE_LEN];	/**< [test] args */
	char server[APP_CONFIG_VALUE_LEN];	/**< [test] server, "" = none */
};

/** An argument vector built from the command line and a file. */
struct app_config_argv {
	int argc;
	char **argv;				/**< argv[argc] is NULL */
	char *store[APP_CONFIG_MAX_ARGV + 1];
	char buf[APP_CONFIG_ARGV_BUF];		/**< the words taken from the file */
	size_t used;
};

/**
 * Take `--config FILE` or `--config=FILE` off the front of the
 * application arguments (@p argc, @p argv are advanced past it).
 * @p path is set to the file, or NULL when there is no --config.
 * @return 0, or -EINVAL (no file name; --config not the first option).
 */
int app_config_take_path(int *argc, char ***argv, const char **path,
			 char *err, size_t errlen);

/**
 * Load @p path into @p c and check it: sections, keys, the vdev strings,
 * the mode and the flags of [test] (parsed as the command line would be).
 * @return 0, -ENOENT (cannot read the file) or -EINVAL, with @p err set.
 */
int app_config_load(const char *path, struct app_config *c, char *err,
		    size_t errlen);

/**
 * The application options: the command line's (@p argc, @p argv, after
 * --config) over [test] of @p c. With @p c NULL, or without [test], the
 * command line alone (app_opts_parse()). A command line of only -i or -h
 * ignores [test].
 * @return 0 or -EINVAL with @p err naming the file where it is at fault.
 */
int app_config_opts(const struct app_config *c, int argc, char **argv,
		    struct app_opts *o, char *err, size_t errlen);

/**
 * The EAL arguments: argv[0], then the command line's EAL arguments
 * (argv[1] .. argv[sep - 1]) or, when there are none, [eal] args, then
 * --vdev=<vdev> for each [port.*]. With @p c NULL: argv[0 .. sep - 1].
 * @return 0 or -E2BIG with @p err set.
 */
int app_config_eal_argv(const struct app_config *c, int sep, char **argv,
			struct app_config_argv *out, char *err,
			size_t errlen);

#endif /* ERNIC_TESTPMD_CONFIG_H */
