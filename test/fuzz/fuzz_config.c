/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the ernic-testpmd --config file parser
 * (app/ernic-testpmd/config.c, over rte_cfgfile) and what main() does with
 * a loaded file: the options ([test] mode and args go through the perftest
 * flag parser, app_opts_parse()) and the EAL argument vector.
 *
 * The input is the file. It is written to a memfd and loaded by path
 * (/proc/self/fd/N), as ernic-testpmd loads a file. A loaded file is then
 * combined with no command line, and with a command line of its own that
 * overrides mode, flags and server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz_common.h"
#include "opts.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz_config", 0);
	if (fd < 0)
		fuzz_fail("memfd_create");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

static void
check_argv(const struct ernic_env_argv *a)
{
	int i;

	if (a->argc < 1 || a->argc > ERNIC_ENV_MAX_ARGV ||
	    a->argv[a->argc] != NULL)
		fuzz_fail("EAL argv not NULL-terminated or out of bounds");
	for (i = 0; i < a->argc; i++)
		if (a->argv[i] == NULL || strlen(a->argv[i]) >= ERNIC_ENV_ARGV_BUF)
			fuzz_fail("EAL argv entry broken");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct app_config c;
	static struct ernic_env_argv eal;
	static struct app_opts o;
	char err[512];
	char *cmdline[] = {
		(char *)(uintptr_t)"ernic-testpmd", (char *)(uintptr_t)"-l",
		(char *)(uintptr_t)"0", (char *)(uintptr_t)"--", NULL,
	};
	char *app[] = {
		(char *)(uintptr_t)"send_bw", (char *)(uintptr_t)"-s",
		(char *)(uintptr_t)"64", (char *)(uintptr_t)"198.18.0.2", NULL,
	};

	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		fuzz_fail("cannot write the memfd");
	memset(err, 0, sizeof(err));
	if (app_config_load(path, &c, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
			fuzz_fail("an error without a message");
		return 0;
	}
	/* the file alone, then the command line over it */
	if (app_config_opts(&c, 0, NULL, &o, err, sizeof(err)) == 0 &&
	    app_config_eal_argv(&c, 1, cmdline, &eal, err, sizeof(err)) == 0)
		check_argv(&eal);
	if (app_config_opts(&c, 4, app, &o, err, sizeof(err)) == 0 &&
	    app_config_eal_argv(&c, 3, cmdline, &eal, err, sizeof(err)) == 0)
		check_argv(&eal);
	return 0;
}
