/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The INI file of a net_ernic program (ernic_env.h has the sections and
 * the rules; ernic-testpmd merges it with its command line, config.c).
 *
 * rte_cfgfile silently skips a line that is neither "[section]" nor
 * "key = value" and truncates long values, so the file is first scanned
 * line by line with the same rules (';' comment unless escaped, blanks
 * stripped) to report such lines with their number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "ernic_env.h"

/* the longest line rte_cfgfile_load() reads */
#define CFG_LINE_LEN (CFG_NAME_LEN + CFG_VALUE_LEN + 4)

/* the sections of the two readers: each leaves the other's alone */
static const char *const reader_sections[] = { "test", "verbs" };

static int __attribute__((format(printf, 4, 5)))
fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static size_t
strip(char *s, size_t len)
{
	size_t b = 0;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	while (b < len && isspace((unsigned char)s[b]))
		b++;
	memmove(s, s + b, len - b);
	s[len - b] = '\0';
	return len - b;
}

/* One line as rte_cfgfile sees it; a message for what it would skip. */
static int
scan_line(const char *path, unsigned int lineno, char *line, bool *in_sec,
	  char *err, size_t errlen)
{
	size_t len = strlen(line);
	char *p, *eq;

	/* as rte_cfgfile: the first ';' starts a comment unless escaped */
	p = strchr(line, ';');
	if (p != NULL && (p == line || p[-1] != '\\')) {
		*p = '\0';
		len = p - line;
	}
	len = strip(line, len);
	if (len == 0)
		return 0;
	if (line[0] == '[') {
		p = strchr(line, ']');
		if (p == NULL || p[1] != '\0')
			return fail(-EINVAL, err, errlen, "%s:%u: expected \"[section]\" (got \"%s\")",
				    path, lineno, line);
		*in_sec = true;
		return 0;
	}
	eq = strchr(line, '=');
	if (eq == NULL)
		return fail(-EINVAL, err, errlen, "%s:%u: expected \"key = value\" or \"[section]\" (got \"%s\")",
			    path, lineno, line);
	*eq = '\0';
	if (strip(line, eq - line) == 0)
		return fail(-EINVAL, err, errlen, "%s:%u: missing key before \"=\"",
			    path, lineno);
	if (!*in_sec)
		return fail(-EINVAL, err, errlen, "%s:%u: key \"%s\" before the first [section]",
			    path, lineno, line);
	if (strlen(line) >= CFG_NAME_LEN ||
	    strip(eq + 1, strlen(eq + 1)) >= CFG_VALUE_LEN)
		return fail(-EINVAL, err, errlen, "%s:%u: key \"%s\": key or value too long (at most %d and %d characters)",
			    path, lineno, line, CFG_NAME_LEN - 1,
			    CFG_VALUE_LEN - 1);
	return 0;
}

static int
scan_file(const char *path, char *err, size_t errlen)
{
	char line[CFG_LINE_LEN];
	unsigned int lineno = 0;
	bool in_sec = false;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL)
		return fail(-ENOENT, err, errlen, "%s: cannot read the configuration file: %s",
			    path, strerror(errno));
	while (ret == 0 && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);

		lineno++;
		if (len >= sizeof(line) - 1 && line[len - 1] != '\n')
			ret = fail(-EINVAL, err, errlen, "%s:%u: line too long (at most %zu characters)",
				   path, lineno, sizeof(line) - 2);
		else
			ret = scan_line(path, lineno, line, &in_sec, err,
					errlen);
	}
	if (ret == 0 && ferror(f))
		ret = fail(-ENOENT, err, errlen, "%s: read error", path);
	fclose(f);
	return ret;
}

int
ernic_env_split_words(char *s, char **tok, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(s, " \t", &save); t != NULL;
	     t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return -E2BIG;
		tok[n++] = t;
	}
	return n;
}

void
ernic_env_argv_init(struct ernic_env_argv *a)
{
	a->argc = 0;
	a->argv = a->store;
	a->used = 0;
	a->store[0] = NULL;
}

int
ernic_env_argv_add(struct ernic_env_argv *a, char *s)
{
	if (a->argc >= ERNIC_ENV_MAX_ARGV)
		return -E2BIG;
	a->store[a->argc++] = s;
	a->store[a->argc] = NULL;
	return 0;
}

int
ernic_env_argv_add_copy(struct ernic_env_argv *a, const char *prefix, const char *s)
{
	size_t n = strlen(prefix) + strlen(s) + 1;
	char *d = a->buf + a->used;

	if (a->used + n > sizeof(a->buf))
		return -E2BIG;
	snprintf(d, n, "%s%s", prefix, s);
	a->used += n;
	return ernic_env_argv_add(a, d);
}

int
ernic_env_argv_add_words(struct ernic_env_argv *a, const char *s)
{
	char copy[ERNIC_ENV_VALUE_LEN], *tok[ERNIC_ENV_MAX_ARGS];
	int i, n, ret;

	snprintf(copy, sizeof(copy), "%s", s);
	n = ernic_env_split_words(copy, tok, ERNIC_ENV_MAX_ARGS);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		ret = ernic_env_argv_add_copy(a, "", tok[i]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* The keys of the sections read here. */
static const struct ernic_env_key eal_keys[] = {
	{ "args", offsetof(struct ernic_env_config, eal_args),
	  ERNIC_ENV_VALUE_LEN, false, false },
};

static const struct ernic_env_key port_keys[] = {
	{ "vdev", 0, ERNIC_ENV_VALUE_LEN, true, true },
};

static const char *
key_list(const struct ernic_env_key *k, unsigned int n, char *buf,
	 size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", k[i].name);
	return buf;
}

/* Copy the entries of one section to @p base after @p k. */
static int
take_keys(const char *path, const char *sec,
	  const struct rte_cfgfile_entry *e, int ne,
	  const struct ernic_env_key *k, unsigned int nk, char *base,
	  char *err, size_t errlen)
{
	bool seen[ERNIC_ENV_MAX_KEYS] = { false };
	char list[256];
	unsigned int j;
	int i;

	if (nk > RTE_DIM(seen))
		return fail(-EINVAL, err, errlen, "%s: [%s]: more than %u keys defined",
			    path, sec, (unsigned int)RTE_DIM(seen));
	for (i = 0; i < ne; i++) {
		for (j = 0; j < nk; j++)
			if (strcmp(e[i].name, k[j].name) == 0)
				break;
		if (j == nk)
			return fail(-EINVAL, err, errlen, "%s: [%s] %s: unknown key: expected %s",
				    path, sec, e[i].name,
				    key_list(k, nk, list, sizeof(list)));
		if (seen[j])
			return fail(-EINVAL, err, errlen, "%s: [%s] %s: key given twice",
				    path, sec, e[i].name);
		seen[j] = true;
		if (k[j].nonempty && e[i].value[0] == '\0')
			return fail(-EINVAL, err, errlen, "%s: [%s] %s: empty value",
				    path, sec, e[i].name);
		if (strlen(e[i].value) >= k[j].size)
			return fail(-EINVAL, err, errlen, "%s: [%s] %s: value too long (at most %zu characters)",
				    path, sec, e[i].name, k[j].size - 1);
		snprintf(base + k[j].off, k[j].size, "%s", e[i].value);
	}
	for (j = 0; j < nk; j++)
		if (k[j].required && !seen[j])
			return fail(-EINVAL, err, errlen, "%s: [%s]: missing key %s",
				    path, sec, k[j].name);
	return 0;
}

static bool
is_name(const char *s, size_t len, const char *extra)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr(extra, s[i]) == NULL)
			return false;
	return true;
}

/* "driver0[,key[=value]]...": no blanks, no empty item, a device name. */
static int
check_vdev(const struct ernic_env_config *c, unsigned int idx, char *err,
	   size_t errlen)
{
	const struct ernic_env_port *p = &c->ports[idx];
	const char *v = p->vdev, *s;
	size_t nlen = strcspn(v, ",");
	unsigned int i;

	if (!is_name(v, nlen, "_"))
		return fail(-EINVAL, err, errlen, "%s: [port.%s] vdev: bad value \"%s\": expected a device name such as net_ernic0, then ,key=value items",
			    c->path, p->name, v);
	for (s = v + nlen; *s == ','; s += strcspn(s + 1, ",") + 1) {
		size_t ilen = strcspn(s + 1, ",");

		if (ilen == 0 || s[1] == '=' ||
		    strcspn(s + 1, " \t") < ilen)
			return fail(-EINVAL, err, errlen, "%s: [port.%s] vdev: bad value \"%s\": expected key=value items without blanks after the device name",
				    c->path, p->name, v);
	}
	for (i = 0; i < idx; i++)
		if (strcspn(c->ports[i].vdev, ",") == nlen &&
		    strncmp(c->ports[i].vdev, v, nlen) == 0)
			return fail(-EINVAL, err, errlen, "%s: [port.%s] vdev: device %.*s is already created by [port.%s]",
				    c->path, p->name, (int)nlen, v,
				    c->ports[i].name);
	return 0;
}

static int
check_eal(const struct ernic_env_config *c, char *err, size_t errlen)
{
	char copy[ERNIC_ENV_VALUE_LEN], *tok[ERNIC_ENV_MAX_ARGS];
	int i, n;

	snprintf(copy, sizeof(copy), "%s", c->eal_args);
	n = ernic_env_split_words(copy, tok, ERNIC_ENV_MAX_ARGS);
	if (n < 0)
		return fail(-EINVAL, err, errlen, "%s: [eal] args: more than %d words",
			    c->path, ERNIC_ENV_MAX_ARGS);
	for (i = 0; i < n; i++)
		if (strcmp(tok[i], "--") == 0)
			return fail(-EINVAL, err, errlen, "%s: [eal] args: bad value \"--\": expected EAL arguments only",
				    c->path);
	return 0;
}

static bool
is_reader_section(const char *sec)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(reader_sections); i++)
		if (strcmp(sec, reader_sections[i]) == 0)
			return true;
	return false;
}

/* A [port.<name>] section: one more port. */
static int
take_port(const char *sec, const struct rte_cfgfile_entry *e, int ne,
	  struct ernic_env_config *c, char *err, size_t errlen)
{
	struct ernic_env_port *p = &c->ports[c->nb_ports];
	unsigned int i;
	int ret;

	if (!is_name(sec + 5, strlen(sec + 5), "_-"))
		return fail(-EINVAL, err, errlen, "%s: [%s]: bad section name: expected [port.<name>] with a name of letters, digits, _ and -",
			    c->path, sec);
	if (c->nb_ports == ERNIC_ENV_MAX_PORTS)
		return fail(-EINVAL, err, errlen, "%s: [%s]: more than %d [port.*] sections",
			    c->path, sec, ERNIC_ENV_MAX_PORTS);
	for (i = 0; i < c->nb_ports; i++)
		if (strcmp(c->ports[i].name, sec + 5) == 0)
			return fail(-EINVAL, err, errlen, "%s: [%s]: section given twice",
				    c->path, sec);
	ret = take_keys(c->path, sec, e, ne, port_keys, RTE_DIM(port_keys),
			p->vdev, err, errlen);
	if (ret != 0)
		return ret;
	snprintf(p->name, sizeof(p->name), "%s", sec + 5);
	c->nb_ports++;
	return check_vdev(c, c->nb_ports - 1, err, errlen);
}

/* One section of the file, by index. */
static int
take_section(struct rte_cfgfile *cfg, int idx, struct ernic_env_config *c,
	     struct ernic_env_section *rd, bool *seen_eal, bool *seen_rd,
	     char *err, size_t errlen)
{
	char sec[CFG_NAME_LEN];
	struct rte_cfgfile_entry *e;
	int ne, ret;

	ne = rte_cfgfile_section_num_entries_by_index(cfg, sec, idx);
	if (ne < 0)
		return fail(-EINVAL, err, errlen, "%s: cannot read section %d",
			    c->path, idx);
	e = calloc(ne > 0 ? ne : 1, sizeof(*e));
	if (e == NULL)
		return fail(-ENOMEM, err, errlen, "%s: out of memory", c->path);
	ne = rte_cfgfile_section_entries_by_index(cfg, idx, sec, e, ne);
	if (ne < 0) {
		ret = fail(-EINVAL, err, errlen, "%s: [%s]: cannot read the entries",
			   c->path, sec);
	} else if (strcmp(sec, "eal") == 0) {
		ret = *seen_eal ? fail(-EINVAL, err, errlen, "%s: [eal]: section given twice", c->path) :
			take_keys(c->path, sec, e, ne, eal_keys,
				  RTE_DIM(eal_keys), (char *)c, err, errlen);
		*seen_eal = true;
		c->has_eal = true;
	} else if (rd != NULL && strcmp(sec, rd->name) == 0) {
		ret = *seen_rd ? fail(-EINVAL, err, errlen, "%s: [%s]: section given twice", c->path, sec) :
			take_keys(c->path, sec, e, ne, rd->keys, rd->nb_keys,
				  rd->base, err, errlen);
		*seen_rd = true;
		rd->present = true;
	} else if (strncmp(sec, "port.", 5) == 0) {
		ret = take_port(sec, e, ne, c, err, errlen);
	} else if (is_reader_section(sec)) {
		ret = 0;	/* the other reader's */
	} else {
		ret = fail(-EINVAL, err, errlen, "%s: [%s]: unknown section: expected [eal], [port.<name>], [test] or [verbs]",
			   c->path, sec);
	}
	free(e);
	return ret;
}

int
ernic_env_config_load(const char *path, struct ernic_env_config *c,
		      struct ernic_env_section *sec, char *err, size_t errlen)
{
	bool seen_eal = false, seen_rd = false;
	struct rte_cfgfile *cfg;
	int i, n, ret;

	RTE_BUILD_BUG_ON(ERNIC_ENV_NAME_LEN != CFG_NAME_LEN);
	RTE_BUILD_BUG_ON(ERNIC_ENV_VALUE_LEN != CFG_VALUE_LEN);
	memset(c, 0, sizeof(*c));
	if (sec != NULL)
		sec->present = false;
	if (strlen(path) >= sizeof(c->path))
		return fail(-EINVAL, err, errlen, "%s: file name too long (at most %zu characters)",
			    path, sizeof(c->path) - 1);
	snprintf(c->path, sizeof(c->path), "%s", path);
	ret = scan_file(path, err, errlen);
	if (ret != 0)
		return ret;
	cfg = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	if (cfg == NULL)
		return fail(-EINVAL, err, errlen, "%s: rte_cfgfile cannot load the file (see the lib.cfgfile message above)",
			    path);
	n = rte_cfgfile_num_sections(cfg, "", 0);
	for (i = 0, ret = 0; ret == 0 && i < n; i++)
		ret = take_section(cfg, i, c, sec, &seen_eal, &seen_rd, err,
				   errlen);
	rte_cfgfile_close(cfg);
	if (ret == 0)
		ret = check_eal(c, err, errlen);
	return ret;
}

int
ernic_env_eal_argv(const struct ernic_env_config *c, int sep, char **argv,
		   struct ernic_env_argv *out, char *err, size_t errlen)
{
	unsigned int p;
	int i, ret = 0;

	ernic_env_argv_init(out);
	if (c == NULL) {
		out->argc = sep;
		out->argv = argv;
		return 0;
	}
	for (i = 0; ret == 0 && i < sep; i++)
		ret = ernic_env_argv_add(out, argv[i]);
	if (ret == 0 && sep <= 1)
		ret = ernic_env_argv_add_words(out, c->eal_args);
	for (p = 0; ret == 0 && p < c->nb_ports; p++)
		ret = ernic_env_argv_add_copy(out, "--vdev=", c->ports[p].vdev);
	if (ret != 0)
		return fail(-E2BIG, err, errlen, "%s: too many EAL arguments (at most %d)",
			    c->path, ERNIC_ENV_MAX_ARGV);
	return 0;
}
