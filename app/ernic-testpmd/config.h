/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_CONFIG_H
#define ERNIC_TESTPMD_CONFIG_H

/**
 * @file
 * `ernic-testpmd -- --config FILE [MODE] [flags] [SERVER]`: the INI file of
 * lib/ernic_env (ernic_env.h: [eal] args, [port.<name>] vdev) with the
 * test to run in its [test] section:
 *
 *   [test]         mode   = write_bw, ..., pingpong
 *                  args   = perftest flags (no server address)
 *                  server = the peer's side-channel address (client role)
 *
 * Every section is optional; a [verbs] section (the verbs provider's) is
 * not read. The command line wins: EAL arguments given before `--`
 * replace [eal] args, a mode replaces [test] mode, flags come after the
 * file's flags (the last value of a flag is kept), and a server address
 * replaces [test] server. The vdevs of the [port.*] sections are always
 * added, in file order, after the EAL arguments.
 *
 * Pure code (no EAL): it runs before rte_eal_init() and is unit-tested in
 * test/unit/test_app_config.c. Every error is one line that names the
 * file, and the section and key when there is one (exit status 2).
 */

#include <stdbool.h>
#include <stddef.h>

#include "ernic_env.h"
#include "opts.h"

/** A loaded and checked configuration file. */
struct app_config {
	struct ernic_env_config env;		/**< [eal], [port.*] */
	bool has_test;				/**< [test] present */
	char mode[ERNIC_ENV_NAME_LEN];		/**< [test] mode */
	char test_args[ERNIC_ENV_VALUE_LEN];	/**< [test] args */
	char server[ERNIC_ENV_VALUE_LEN];	/**< [test] server, "" = none */
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
 * The EAL arguments (ernic_env_eal_argv() of @p c's file part; with @p c
 * NULL the command line's argv[0 .. sep - 1]).
 * @return 0 or -E2BIG with @p err set.
 */
int app_config_eal_argv(const struct app_config *c, int sep, char **argv,
			struct ernic_env_argv *out, char *err,
			size_t errlen);

#endif /* ERNIC_TESTPMD_CONFIG_H */
