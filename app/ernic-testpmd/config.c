/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ernic-testpmd --config FILE: the [test] section of the INI file of
 * lib/ernic_env and its merge with the command line. See config.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "config.h"

static int __attribute__((format(printf, 4, 5)))
fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static int
count_words(const char *s)
{
	char copy[ERNIC_ENV_VALUE_LEN], *tok[ERNIC_ENV_MAX_ARGS];

	snprintf(copy, sizeof(copy), "%s", s);
	return ernic_env_split_words(copy, tok, ERNIC_ENV_MAX_ARGS);
}

static const char *
mode_list(char *buf, size_t len)
{
	const struct app_mode_info *m;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; (m = app_mode_at(k)) != NULL; k++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 k ? ", " : "", m->name);
	return buf;
}

/* The keys of [test]. */
static const struct ernic_env_key test_keys[] = {
	{ "mode", offsetof(struct app_config, mode), ERNIC_ENV_NAME_LEN,
	  true, true },
	{ "args", offsetof(struct app_config, test_args),
	  ERNIC_ENV_VALUE_LEN, false, false },
	{ "server", offsetof(struct app_config, server),
	  ERNIC_ENV_VALUE_LEN, false, true },
};

/* mode + [test] args + [test] server, parsed as a command line would be. */
static int
check_test(const struct app_config *c, char *err, size_t errlen)
{
	const char *path = c->env.path;
	char e[400], list[160];
	struct ernic_env_argv a;
	struct app_opts o;
	int ret;

	if (app_mode_find(c->mode) == NULL)
		return fail(-EINVAL, err, errlen, "%s: [test] mode: unknown mode \"%s\": expected one of %s",
			    path, c->mode, mode_list(list, sizeof(list)));
	if (count_words(c->test_args) < 0)
		return fail(-EINVAL, err, errlen, "%s: [test] args: more than %d words",
			    path, ERNIC_ENV_MAX_ARGS);
	if (strpbrk(c->server, " \t") != NULL)
		return fail(-EINVAL, err, errlen, "%s: [test] server: bad value \"%s\": expected one address",
			    path, c->server);
	ernic_env_argv_init(&a);
	ret = ernic_env_argv_add_copy(&a, "", c->mode);
	if (ret == 0)
		ret = ernic_env_argv_add_words(&a, c->test_args);
	if (ret != 0)
		return fail(-EINVAL, err, errlen, "%s: [test] args: too long",
			    path);
	ret = app_opts_parse(a.argc, a.argv, &o, e, sizeof(e));
	if (ret != 0)
		return fail(-EINVAL, err, errlen, "%s: [test] args: %s",
			    path, e);
	if (app_opts_is_client(&o))
		return fail(-EINVAL, err, errlen, "%s: [test] args: unexpected \"%s\": give the server address in key server",
			    path, o.server);
	if (o.help)
		return fail(-EINVAL, err, errlen, "%s: [test] args: -h/--help does not belong in a file",
			    path);
	if (c->server[0] != '\0') {
		ret = ernic_env_argv_add_copy(&a, "", c->server);
		if (ret == 0)
			ret = app_opts_parse(a.argc, a.argv, &o, e,
					     sizeof(e));
		if (ret != 0)
			return fail(-EINVAL, err, errlen, "%s: [test] server: %s",
				    path, e);
	}
	return 0;
}

int
app_config_load(const char *path, struct app_config *c, char *err,
		size_t errlen)
{
	struct ernic_env_section test = {
		.name = "test",
		.keys = test_keys,
		.nb_keys = RTE_DIM(test_keys),
		.base = c,
	};
	int ret;

	memset(c, 0, sizeof(*c));
	if (strlen(path) >= sizeof(c->env.path))
		return fail(-EINVAL, err, errlen, "--config: file name too long (at most %zu characters)",
			    sizeof(c->env.path) - 1);
	ret = ernic_env_config_load(path, &c->env, &test, err, errlen);
	c->has_test = test.present;
	if (ret == 0 && c->has_test)
		ret = check_test(c, err, errlen);
	return ret;
}

static bool
is_config_flag(const char *a)
{
	return strcmp(a, "--config") == 0 || strncmp(a, "--config=", 9) == 0;
}

int
app_config_take_path(int *argc, char ***argv, const char **path, char *err,
		     size_t errlen)
{
	char **v = *argv;
	int n = *argc, i, skip = 0;

	*path = NULL;
	if (n > 0 && strcmp(v[0], "--config") == 0) {
		if (n < 2 || v[1][0] == '\0')
			return fail(-EINVAL, err, errlen, "missing value for --config: expected the name of an INI file");
		*path = v[1];
		skip = 2;
	} else if (n > 0 && strncmp(v[0], "--config=", 9) == 0) {
		if (v[0][9] == '\0')
			return fail(-EINVAL, err, errlen, "missing value for --config: expected the name of an INI file");
		*path = v[0] + 9;
		skip = 1;
	}
	for (i = skip; i < n; i++)
		if (is_config_flag(v[i]))
			return fail(-EINVAL, err, errlen, "%s: --config must be the first application option (right after --)",
				    v[i]);
	*argc = n - skip;
	*argv = v + skip;
	return 0;
}

int
app_config_opts(const struct app_config *c, int argc, char **argv,
		struct app_opts *o, char *err, size_t errlen)
{
	const char *mode;
	char e[400];
	struct ernic_env_argv a;
	struct app_opts cli;
	int i, first, ret;

	if (c == NULL || !c->has_test)
		return app_opts_parse(argc, argv, o, err, errlen);
	first = argc > 0 && argv[0][0] != '-' ? 1 : 0;
	if (first == 0 && argc > 0 &&
	    app_opts_parse(argc, argv, &cli, NULL, 0) == 0 &&
	    (cli.interactive || cli.help)) {
		/* -i or -h alone: the file's test does not run */
		*o = cli;
		return 0;
	}
	mode = first ? argv[0] : c->mode;

	/* the command line's own errors, without the file */
	ernic_env_argv_init(&a);
	if (ernic_env_argv_add_copy(&a, "", mode) != 0)
		return fail(-EINVAL, err, errlen, "too many arguments");
	for (i = first; i < argc; i++)
		if (ernic_env_argv_add(&a, argv[i]) != 0)
			return fail(-EINVAL, err, errlen, "too many arguments");
	ret = app_opts_parse(a.argc, a.argv, &cli, err, errlen);
	if (ret != 0)
		return ret;

	/* the file's flags under the chosen mode, then the command line's */
	ernic_env_argv_init(&a);
	ret = ernic_env_argv_add_copy(&a, "", mode);
	if (ret == 0)
		ret = ernic_env_argv_add_words(&a, c->test_args);
	if (ret == 0 && first && strcmp(mode, c->mode) != 0) {
		ret = app_opts_parse(a.argc, a.argv, o, e, sizeof(e));
		if (ret != 0)
			return fail(-EINVAL, err, errlen, "%s: [test] args with mode %s from the command line: %s",
				    c->env.path, mode, e);
	}
	for (i = first; ret == 0 && i < argc; i++)
		ret = ernic_env_argv_add(&a, argv[i]);
	if (ret == 0 && !app_opts_is_client(&cli) && c->server[0] != '\0')
		ret = ernic_env_argv_add_copy(&a, "", c->server);
	if (ret != 0)
		return fail(-EINVAL, err, errlen, "too many arguments");
	ret = app_opts_parse(a.argc, a.argv, o, e, sizeof(e));
	if (ret != 0)
		return fail(-EINVAL, err, errlen, "%s: [test] with the command line: %s",
			    c->env.path, e);
	return 0;
}

int
app_config_eal_argv(const struct app_config *c, int sep, char **argv,
		    struct ernic_env_argv *out, char *err, size_t errlen)
{
	return ernic_env_eal_argv(c != NULL ? &c->env : NULL, sep, argv, out,
				  err, errlen);
}
