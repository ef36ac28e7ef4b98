/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The [verbs] section of SOFTERNIC_CONFIG (doc/guides/verbs.rst): how the
 * provider runs the ports, with a default for every key. Pure code, before
 * the EAL starts; unit-tested in test/unit/test_verbs_config.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "ernic_env.h"
#include "ev_priv.h"

/* The [verbs] keys as read (strings), checked by settings_check(). */
struct verbs_section {
	char progress[ERNIC_ENV_VALUE_LEN];
	char idle_sleep_us[ERNIC_ENV_VALUE_LEN];
	char spin_us[ERNIC_ENV_VALUE_LEN];
	char link_wait_ms[ERNIC_ENV_VALUE_LEN];
	char resolve_ms[ERNIC_ENV_VALUE_LEN];
	char exit_linger_ms[ERNIC_ENV_VALUE_LEN];
	char port_state[ERNIC_ENV_VALUE_LEN];
	char quiet[ERNIC_ENV_VALUE_LEN];
	char exit_stats[ERNIC_ENV_VALUE_LEN];
};

#define VKEY(k) { #k, offsetof(struct verbs_section, k), ERNIC_ENV_VALUE_LEN, \
		  false, true }

static const struct ernic_env_key verbs_keys[] = {
	VKEY(progress),
	VKEY(idle_sleep_us),
	VKEY(spin_us),
	VKEY(link_wait_ms),
	VKEY(resolve_ms),
	VKEY(exit_linger_ms),
	VKEY(port_state),
	VKEY(quiet),
	VKEY(exit_stats),
};

/* A numeric setting: its key, where it goes, its range, its default. */
static const struct {
	const char *name;
	size_t in;			/* in struct verbs_section */
	size_t out;			/* in struct ev_settings */
	uint32_t min, max, def;
} verbs_numbers[] = {
	{ "idle_sleep_us", offsetof(struct verbs_section, idle_sleep_us),
	  offsetof(struct ev_settings, idle_sleep_us), 1, 1000000, 200 },
	{ "spin_us", offsetof(struct verbs_section, spin_us),
	  offsetof(struct ev_settings, spin_us), 0, 1000000, 200 },
	{ "link_wait_ms", offsetof(struct verbs_section, link_wait_ms),
	  offsetof(struct ev_settings, link_wait_ms), 0, 600000, 5000 },
	{ "resolve_ms", offsetof(struct verbs_section, resolve_ms),
	  offsetof(struct ev_settings, resolve_ms), 1, 600000, 3000 },
	{ "exit_linger_ms", offsetof(struct verbs_section, exit_linger_ms),
	  offsetof(struct ev_settings, exit_linger_ms), 0, 60000, 100 },
};

static const char *const progress_names[] = {
	[EV_PROGRESS_ADAPTIVE] = "adaptive",
	[EV_PROGRESS_SPIN] = "spin",
	[EV_PROGRESS_OFF] = "off",
};

/* A 0/1 setting: left alone when absent. */
static int
flag_parse(const char *path, const char *key, const char *txt, bool *out,
	   char *err, size_t errlen)
{
	if (txt[0] == '\0')
		return 0;
	if (strcmp(txt, "0") != 0 && strcmp(txt, "1") != 0) {
		snprintf(err, errlen, "%s: [verbs] %s: bad value \"%s\": expected 0 or 1",
			 path, key, txt);
		return -EINVAL;
	}
	*out = txt[0] == '1';
	return 0;
}

static int
settings_check(const char *path, const struct verbs_section *v,
	       struct ev_settings *s, char *err, size_t errlen)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->progress = EV_PROGRESS_ADAPTIVE;
	if (v->progress[0] != '\0') {
		for (i = 0; i < RTE_DIM(progress_names); i++)
			if (strcmp(v->progress, progress_names[i]) == 0)
				break;
		if (i == RTE_DIM(progress_names)) {
			snprintf(err, errlen, "%s: [verbs] progress: bad value \"%s\": expected adaptive, spin or off",
				 path, v->progress);
			return -EINVAL;
		}
		s->progress = (enum ev_progress)i;
	}
	for (i = 0; i < RTE_DIM(verbs_numbers); i++) {
		const char *txt = (const char *)v + verbs_numbers[i].in;
		uint32_t *out = (uint32_t *)(void *)((uint8_t *)s +
						     verbs_numbers[i].out);
		unsigned long val;
		char *end;

		*out = verbs_numbers[i].def;
		if (txt[0] == '\0')
			continue;
		errno = 0;
		val = strtoul(txt, &end, 10);
		if (errno != 0 || *end != '\0' || txt[0] == '-' ||
		    val < verbs_numbers[i].min || val > verbs_numbers[i].max) {
			snprintf(err, errlen, "%s: [verbs] %s: bad value \"%s\": expected a whole number from %u to %u",
				 path, verbs_numbers[i].name, txt,
				 verbs_numbers[i].min, verbs_numbers[i].max);
			return -EINVAL;
		}
		*out = (uint32_t)val;
	}
	if (v->port_state[0] != '\0') {
		if (strcmp(v->port_state, "link") != 0 &&
		    strcmp(v->port_state, "started") != 0) {
			snprintf(err, errlen, "%s: [verbs] port_state: bad value \"%s\": expected link or started",
				 path, v->port_state);
			return -EINVAL;
		}
		s->active_when_started = v->port_state[0] == 's';
	}
	if (flag_parse(path, "quiet", v->quiet, &s->quiet, err, errlen) != 0 ||
	    flag_parse(path, "exit_stats", v->exit_stats, &s->exit_stats, err,
		       errlen) != 0)
		return -EINVAL;
	return 0;
}

const char *
ev_progress_name(enum ev_progress p)
{
	return (unsigned int)p < RTE_DIM(progress_names) ?
		progress_names[p] : "?";
}

int
ev_settings_load(const char *path, struct ernic_env_config *c,
		 struct ev_settings *s, char *err, size_t errlen)
{
	struct verbs_section vs;
	struct ernic_env_section sec = {
		.name = "verbs",
		.keys = verbs_keys,
		.nb_keys = RTE_DIM(verbs_keys),
		.base = &vs,
	};
	int ret;

	memset(&vs, 0, sizeof(vs));
	ret = ernic_env_config_load(path, c, &sec, err, errlen);
	if (ret == 0)
		ret = settings_check(path, &vs, s, err, errlen);
	return ret;
}
