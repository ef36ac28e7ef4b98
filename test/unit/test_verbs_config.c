/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTERNIC_CONFIG as the verbs provider reads it (lib/verbs/ev_settings.c
 * over lib/ernic_env): the sample files of conf/ give their documented
 * values, a [verbs] section that is absent gives the defaults, an
 * ernic-testpmd [test] section is left alone, and each kind of bad value
 * gives its specific error naming the file, the section and the key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ernic_env.h"
#include "ev_priv.h"
#include "test_common.h"

static char err[512];
static char tmpdir[64];

static const char *
conf_path(const char *name)
{
	static char path[512];
	const char *d = getenv("SOFTERNIC_CONF");

	snprintf(path, sizeof(path), "%s/%s", d != NULL ? d : "../conf", name);
	return path;
}

static const char *
write_conf(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	return path;
}

static bool
has(const char *needle)
{
	if (strstr(err, needle) != NULL)
		return true;
	fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, needle);
	return false;
}

/* ip= of a vdev string, or "" */
static const char *
devarg(const char *vdev, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p;

	buf[0] = '\0';
	for (p = strchr(vdev, ','); p != NULL; p = strchr(p + 1, ','))
		if (strncmp(p + 1, key, klen) == 0 && p[1 + klen] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + 2 + klen, ","),
				 p + 2 + klen);
			break;
		}
	return buf;
}

static void
test_loopback_sample(void)
{
	struct ernic_env_config c;
	struct ev_settings s;
	char buf[64];

	CU_ASSERT_FATAL(ev_settings_load(conf_path("verbs-loopback.ini"), &c,
					 &s, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(c.nb_ports == 2);
	/* a net_ring port alone loops back; ernic0 on it */
	CU_ASSERT(strcmp(c.ports[0].vdev, "net_ring0") == 0);
	CU_ASSERT(strncmp(c.ports[1].vdev, "net_ernic0,", 11) == 0);
	CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "port", buf, sizeof(buf)),
			 "net_ring0") == 0);
	CU_ASSERT(strstr(c.eal_args, "--no-shconf") != NULL);
	CU_ASSERT(s.progress == EV_PROGRESS_ADAPTIVE);
	CU_ASSERT(!s.active_when_started);
	CU_ASSERT(s.link_wait_ms == 5000);
}

static void
test_pair_samples(void)
{
	static const char *const names[2] = { "verbs-pair-a.ini",
					      "verbs-pair-b.ini" };
	static const char *const ips[2] = { "198.18.0.1", "198.18.0.2" };
	static const char *const roles[2] = { "server", "client" };
	char sock[2][128], buf[128];
	struct ernic_env_config c;
	struct ev_settings s;
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(ev_settings_load(conf_path(names[i]), &c, &s,
						 err, sizeof(err)) == 0);
		CU_ASSERT_FATAL(c.nb_ports == 2);
		CU_ASSERT(strncmp(c.ports[0].vdev, "net_memif0,", 11) == 0);
		CU_ASSERT(strcmp(devarg(c.ports[0].vdev, "role", buf,
					sizeof(buf)), roles[i]) == 0);
		devarg(c.ports[0].vdev, "socket", sock[i], sizeof(sock[i]));
		CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "ip", buf,
					sizeof(buf)), ips[i]) == 0);
		/* a memif port receives 1518-byte frames at most */
		CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "pmtu", buf,
					sizeof(buf)), "1024") == 0);
		/* either end may start first */
		CU_ASSERT(s.active_when_started);
		CU_ASSERT(s.link_wait_ms == 0);
	}
	/* the two ends meet on one socket */
	CU_ASSERT(sock[0][0] != '\0' && strcmp(sock[0], sock[1]) == 0);
}

static void
test_rxe_sample(void)
{
	struct ernic_env_config c;
	struct ev_settings s;
	char buf[64];

	CU_ASSERT_FATAL(ev_settings_load(conf_path("verbs-rxe.ini"), &c, &s,
					 err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(c.nb_ports == 2);
	/* the peer VM's tap (conf/rxe-peer.ini's), ernic0 on it */
	CU_ASSERT(strncmp(c.ports[0].vdev, "net_af_packet0,", 15) == 0);
	CU_ASSERT(strcmp(devarg(c.ports[0].vdev, "iface", buf, sizeof(buf)),
			 "rxepeer0") == 0);
	CU_ASSERT(strncmp(c.ports[1].vdev, "net_ernic0,", 11) == 0);
	CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "port", buf, sizeof(buf)),
			 "net_af_packet0") == 0);
	/* the VM's static ARP entry expects this address and MAC */
	CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "ip", buf, sizeof(buf)),
			 "198.18.0.1") == 0);
	CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "mac", buf, sizeof(buf)),
			 "02:00:c6:12:00:01") == 0);
	/* GID index 2: an address of 2001:2::/48 */
	CU_ASSERT(strncmp(devarg(c.ports[1].vdev, "ip6", buf, sizeof(buf)),
			  "2001:2::", 8) == 0);
	/* net_af_packet receives 1518-byte frames at most */
	CU_ASSERT(strcmp(devarg(c.ports[1].vdev, "pmtu", buf, sizeof(buf)),
			 "1024") == 0);
	CU_ASSERT(strstr(c.eal_args, "--no-shconf") != NULL);
	CU_ASSERT(s.progress == EV_PROGRESS_ADAPTIVE);
	CU_ASSERT(s.link_wait_ms == 5000);
}

static void
test_defaults_and_other_sections(void)
{
	struct ernic_env_config c;
	struct ev_settings s;

	/* no [verbs]: every default; ernic-testpmd's [test] is not read */
	CU_ASSERT_FATAL(ev_settings_load(write_conf("plain.ini",
		"[eal]\nargs = -l 0\n[port.r]\nvdev = net_ring0\n"
		"[test]\nmode = no_such_mode\n"), &c, &s, err,
		sizeof(err)) == 0);
	CU_ASSERT(s.progress == EV_PROGRESS_ADAPTIVE);
	CU_ASSERT(s.idle_sleep_us == 200 && s.spin_us == 200);
	CU_ASSERT(s.link_wait_ms == 5000 && s.resolve_ms == 3000);
	CU_ASSERT(s.exit_linger_ms == 100);
	CU_ASSERT(!s.active_when_started && !s.quiet && !s.exit_stats);
	CU_ASSERT(c.nb_ports == 1);

	CU_ASSERT_FATAL(ev_settings_load(write_conf("set.ini",
		"[verbs]\nprogress = spin\nidle_sleep_us = 1\nspin_us = 0\n"
		"link_wait_ms = 600000\nresolve_ms = 1\nport_state = started\n"
		"quiet = 1\nexit_linger_ms = 0\nexit_stats = 1\n"), &c, &s, err,
		sizeof(err)) == 0);
	CU_ASSERT(s.exit_linger_ms == 0 && s.exit_stats);
	CU_ASSERT(s.progress == EV_PROGRESS_SPIN);
	CU_ASSERT(s.idle_sleep_us == 1 && s.spin_us == 0);
	CU_ASSERT(s.link_wait_ms == 600000 && s.resolve_ms == 1);
	CU_ASSERT(s.active_when_started && s.quiet);
	CU_ASSERT(strcmp(ev_progress_name(EV_PROGRESS_OFF), "off") == 0);
}

static void
expect_bad(const char *name, const char *text, const char *needle)
{
	struct ernic_env_config c;
	struct ev_settings s;
	const char *path = write_conf(name, text);
	int ret;

	ret = ev_settings_load(path, &c, &s, err, sizeof(err));
	if (ret != -EINVAL)
		fprintf(stderr, "%s: loaded (%d)\n", name, ret);
	CU_ASSERT(ret == -EINVAL);
	CU_ASSERT(has(path));
	CU_ASSERT(has(needle));
}

static void
test_bad_values(void)
{
	struct ernic_env_config c;
	struct ev_settings s;

	CU_ASSERT(ev_settings_load("/nonexistent/x.ini", &c, &s, err,
				   sizeof(err)) == -ENOENT);
	CU_ASSERT(has("/nonexistent/x.ini") && has("cannot read"));
	expect_bad("key.ini", "[verbs]\nprogres = spin\n",
		   "[verbs] progres: unknown key: expected progress, ");
	expect_bad("progress.ini", "[verbs]\nprogress = fast\n",
		   "[verbs] progress: bad value \"fast\": expected adaptive, spin or off");
	expect_bad("neg.ini", "[verbs]\nspin_us = -1\n",
		   "[verbs] spin_us: bad value \"-1\": expected a whole number from 0 to 1000000");
	expect_bad("zero.ini", "[verbs]\nidle_sleep_us = 0\n",
		   "[verbs] idle_sleep_us: bad value \"0\": expected a whole number from 1 to 1000000");
	expect_bad("junk.ini", "[verbs]\nresolve_ms = 10ms\n",
		   "[verbs] resolve_ms: bad value \"10ms\"");
	expect_bad("big.ini", "[verbs]\nlink_wait_ms = 99999999999999999999\n",
		   "[verbs] link_wait_ms: bad value");
	expect_bad("linger.ini", "[verbs]\nexit_linger_ms = 60001\n",
		   "[verbs] exit_linger_ms: bad value \"60001\": expected a whole number from 0 to 60000");
	expect_bad("state.ini", "[verbs]\nport_state = up\n",
		   "[verbs] port_state: bad value \"up\": expected link or started");
	expect_bad("quiet.ini", "[verbs]\nquiet = yes\n",
		   "[verbs] quiet: bad value \"yes\": expected 0 or 1");
	expect_bad("stats.ini", "[verbs]\nexit_stats = 2\n",
		   "[verbs] exit_stats: bad value \"2\": expected 0 or 1");
	expect_bad("empty.ini", "[verbs]\nprogress =\n",
		   "[verbs] progress: empty value");
	expect_bad("twice.ini", "[verbs]\nquiet = 1\nquiet = 0\n",
		   "[verbs] quiet: key given twice");
	expect_bad("dupsec.ini", "[verbs]\nquiet = 1\n[verbs]\nspin_us = 1\n",
		   "[verbs]: section given twice");
	expect_bad("section.ini", "[verb]\nquiet = 1\n",
		   "[verb]: unknown section");
}

static int
suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_verbs_config.XXXXXX");
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static CU_TestInfo verbs_config_tests[] = {
	{ "conf/verbs-loopback.ini", test_loopback_sample },
	{ "conf/verbs-pair-a.ini and -b.ini", test_pair_samples },
	{ "conf/verbs-rxe.ini", test_rxe_sample },
	{ "defaults, every key, [test] left alone",
	  test_defaults_and_other_sections },
	{ "bad values: the specific error", test_bad_values },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "verbs_config", suite_init, suite_fini, NULL, NULL,
	  verbs_config_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
