/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ernic-testpmd --config (app/ernic-testpmd/config.c): every sample file
 * of conf/ ($SOFTERNIC_CONF) loads and gives the documented values, the
 * command line overrides them, the EAL argument vector is built as
 * documented, and each kind of broken file gives its specific error
 * naming the file, the section and the key.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "config.h"
#include "opts.h"
#include "test_common.h"

static char err[512];
static char tmpdir[64];

static const char *
conf_dir(void)
{
	const char *d = getenv("SOFTERNIC_CONF");

	return d != NULL ? d : "../conf";
}

static int
load_conf(const char *name, struct app_config *c)
{
	char path[512];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", conf_dir(), name);
	ret = app_config_load(path, c, err, sizeof(err));
	if (ret != 0)
		fprintf(stderr, "%s: %s\n", name, err);
	return ret;
}

/* Split a space-separated line into @p argv (static storage). */
static int
words(const char *line, char **argv, int max)
{
	static char buf[1024];
	char *save = NULL, *t;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, " ", &save); t != NULL && n < max;
	     t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	return n;
}

/* app_config_opts() with the application arguments @p line. */
static int
opts(const struct app_config *c, const char *line, struct app_opts *o)
{
	char *argv[32];
	int argc = words(line, argv, 32);

	return app_config_opts(c, argc, argv, o, err, sizeof(err));
}

static bool
has(const char *needle)
{
	if (strstr(err, needle) != NULL)
		return true;
	fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, needle);
	return false;
}

/* The value of devarg @p key in @p vdev, or "". */
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

/* ip= of @p vdev inside 198.18.0.0/15 (RFC 2544 benchmarking range). */
static bool
ip_in_bench_range(const char *vdev)
{
	struct in_addr a;
	char ip[64];

	devarg(vdev, "ip", ip, sizeof(ip));
	if (inet_pton(AF_INET, ip, &a) != 1)
		return false;
	return (ntohl(a.s_addr) & 0xfffe0000u) == 0xc6120000u;
}

static void
test_every_sample_loads(void)
{
	static const char *const known[] = {
		"loopback.ini", "rxe-peer.ini", "af_xdp-host.ini",
		"memif-pair.ini", "dcqcn.ini", "selective-repeat.ini",
		"cc-bneck.ini",
		/* the verbs provider's: their values in test_verbs_config */
		"verbs-loopback.ini", "verbs-pair-a.ini", "verbs-pair-b.ini",
		"verbs-rxe.ini",
	};
	struct app_config c;
	struct dirent *de;
	unsigned int n = 0, i;
	DIR *d;

	d = opendir(conf_dir());
	CU_ASSERT_FATAL(d != NULL);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		bool checked = false;

		if (len < 4 || strcmp(de->d_name + len - 4, ".ini") != 0)
			continue;
		n++;
		CU_ASSERT(load_conf(de->d_name, &c) == 0);
		/* ernic-testpmd reads a verbs file too, with no test to run */
		CU_ASSERT(c.env.has_eal &&
			  c.has_test == (strncmp(de->d_name, "verbs-", 6) != 0));
		/* a new sample needs its own checks below */
		for (i = 0; i < RTE_DIM(known); i++)
			checked |= strcmp(known[i], de->d_name) == 0;
		if (!checked)
			fprintf(stderr, "conf/%s has no test of its values\n",
				de->d_name);
		CU_ASSERT(checked);
	}
	closedir(d);
	CU_ASSERT(n == RTE_DIM(known));
}

static void
test_loopback_ini(void)
{
	struct ernic_env_argv eal;
	struct app_config c;
	struct app_opts o;
	char *argv[] = { (char *)"ernic-testpmd", (char *)"-l", (char *)"0",
			 (char *)"--" };
	int i;

	CU_ASSERT_FATAL(load_conf("loopback.ini", &c) == 0);
	CU_ASSERT(c.env.nb_ports == 0);
	CU_ASSERT(strcmp(c.mode, "write_bw") == 0);
	CU_ASSERT(strcmp(c.test_args, "--loopback -a -n 100 --report_gbits") == 0);
	CU_ASSERT(c.server[0] == '\0');

	/* the file alone */
	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(o.mode != NULL && strcmp(o.mode->name, "write_bw") == 0);
	CU_ASSERT(o.loopback && o.all && o.report_gbits);
	CU_ASSERT(o.iters == 100);
	CU_ASSERT(o.size == 1 << 23);

	/* command-line flags after the file's: the last -n wins */
	CU_ASSERT_FATAL(opts(&c, "-n 20", &o) == 0);
	CU_ASSERT(o.iters == 20 && o.loopback && o.all);

	/* a command-line mode replaces [test] mode, the file's flags stay */
	CU_ASSERT_FATAL(opts(&c, "read_bw -n 30", &o) == 0);
	CU_ASSERT(strcmp(o.mode->name, "read_bw") == 0);
	CU_ASSERT(o.iters == 30 && o.loopback && o.report_gbits);

	/* -i alone: the prompt, [test] ignored */
	CU_ASSERT_FATAL(opts(&c, "-i", &o) == 0);
	CU_ASSERT(o.interactive && o.mode == NULL);

	/* no EAL arguments on the command line: [eal] args */
	CU_ASSERT_FATAL(app_config_eal_argv(&c, 1, argv, &eal, err,
					    sizeof(err)) == 0);
	CU_ASSERT(eal.argc == 10);
	CU_ASSERT(strcmp(eal.argv[0], "ernic-testpmd") == 0);
	CU_ASSERT(strcmp(eal.argv[1], "-l") == 0);
	CU_ASSERT(strcmp(eal.argv[2], "0-1") == 0);
	CU_ASSERT(strcmp(eal.argv[3], "--no-huge") == 0);
	CU_ASSERT(strcmp(eal.argv[9], "--log-level=lib.eal:error") == 0);
	CU_ASSERT(eal.argv[eal.argc] == NULL);
	for (i = 0; i < eal.argc; i++)
		CU_ASSERT(strcmp(eal.argv[i], "--") != 0);

	/* command-line EAL arguments replace [eal] args */
	CU_ASSERT_FATAL(app_config_eal_argv(&c, 3, argv, &eal, err,
					    sizeof(err)) == 0);
	CU_ASSERT(eal.argc == 3);
	CU_ASSERT(strcmp(eal.argv[2], "0") == 0);

	/* without a file, the command line as it is */
	CU_ASSERT_FATAL(app_config_eal_argv(NULL, 3, argv, &eal, err,
					    sizeof(err)) == 0);
	CU_ASSERT(eal.argc == 3 && eal.argv == argv);
}

static void
test_rxe_peer_ini(void)
{
	struct ernic_env_argv eal;
	struct app_config c;
	struct app_opts o;
	char *argv[] = { (char *)"ernic-testpmd", (char *)"--" };
	char buf[64];

	CU_ASSERT_FATAL(load_conf("rxe-peer.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 2);
	CU_ASSERT(strcmp(c.env.ports[0].name, "tap") == 0);
	CU_ASSERT(strcmp(c.env.ports[0].vdev, "net_af_packet0,iface=rxepeer0") == 0);
	CU_ASSERT(strcmp(c.env.ports[1].name, "ernic") == 0);
	CU_ASSERT(strcmp(c.env.ports[1].vdev,
			 "net_ernic0,port=net_af_packet0,ip=198.18.0.1,mac=02:00:c6:12:00:01") == 0);
	/* the facts of ../shared/tools/rxe-peer/README.md, peer mode */
	CU_ASSERT(strcmp(devarg(c.env.ports[1].vdev, "ip", buf, sizeof(buf)),
			 "198.18.0.1") == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[1].vdev, "mac", buf, sizeof(buf)),
			 "02:00:c6:12:00:01") == 0);
	CU_ASSERT(strcmp(c.server, "198.19.0.2") == 0);

	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(strcmp(o.mode->name, "write_bw") == 0);
	CU_ASSERT(o.gid_index == 1);
	CU_ASSERT(app_opts_is_client(&o));
	CU_ASSERT(strcmp(o.server, "198.19.0.2") == 0);
	CU_ASSERT(o.iters == 5000 && o.size == 65536);

	/* a server address on the command line replaces [test] server */
	CU_ASSERT_FATAL(opts(&c, "-n 50 10.0.0.9", &o) == 0);
	CU_ASSERT(strcmp(o.server, "10.0.0.9") == 0);
	CU_ASSERT(o.iters == 50 && o.gid_index == 1);

	/* the vdevs follow the EAL arguments, in file order */
	CU_ASSERT_FATAL(app_config_eal_argv(&c, 1, argv, &eal, err,
					    sizeof(err)) == 0);
	CU_ASSERT_FATAL(eal.argc >= 3);
	CU_ASSERT(strcmp(eal.argv[eal.argc - 2],
			 "--vdev=net_af_packet0,iface=rxepeer0") == 0);
	CU_ASSERT(strcmp(eal.argv[eal.argc - 1],
			 "--vdev=net_ernic0,port=net_af_packet0,ip=198.18.0.1,mac=02:00:c6:12:00:01") == 0);
}

static void
test_af_xdp_ini(void)
{
	struct app_config c;
	struct app_opts o;
	char buf[64];

	CU_ASSERT_FATAL(load_conf("af_xdp-host.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 2);
	CU_ASSERT(strncmp(c.env.ports[0].vdev, "net_af_xdp0,", 12) == 0);
	CU_ASSERT(devarg(c.env.ports[0].vdev, "iface", buf, sizeof(buf))[0] != '\0');
	CU_ASSERT(strncmp(c.env.ports[1].vdev, "net_ernic0,", 11) == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[1].vdev, "port", buf, sizeof(buf)),
			 "net_af_xdp0") == 0);
	CU_ASSERT(ip_in_bench_range(c.env.ports[1].vdev));

	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(strcmp(o.mode->name, "write_bw") == 0);
	CU_ASSERT(!app_opts_is_client(&o) && !o.loopback);
	CU_ASSERT(o.gid_index == 1 && o.size == 4096 && o.iters == 1000);
}

static void
test_memif_ini(void)
{
	struct app_config c;
	struct app_opts o;
	char buf[64];
	unsigned int i;

	CU_ASSERT_FATAL(load_conf("memif-pair.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 4);
	CU_ASSERT(strncmp(c.env.ports[0].vdev, "net_memif0,", 11) == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[0].vdev, "role", buf, sizeof(buf)),
			 "server") == 0);
	CU_ASSERT(strncmp(c.env.ports[1].vdev, "net_memif1,", 11) == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[1].vdev, "role", buf, sizeof(buf)),
			 "client") == 0);
	/* the ernic ports come after the ports they sit on */
	CU_ASSERT(strcmp(devarg(c.env.ports[2].vdev, "port", buf, sizeof(buf)),
			 "net_memif0") == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[3].vdev, "port", buf, sizeof(buf)),
			 "net_memif1") == 0);
	for (i = 2; i < 4; i++)
		CU_ASSERT(ip_in_bench_range(c.env.ports[i].vdev));

	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(o.loopback && o.size == 4096 && o.iters == 1000);
}

/*
 * conf/cc-bneck.ini: the memif pair, a net_fault bottleneck under the
 * client's port, and a traced two-flow loopback.
 */
static void
test_cc_bneck_ini(void)
{
	struct app_config c;
	struct app_opts o;
	char buf[64];

	CU_ASSERT_FATAL(load_conf("cc-bneck.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 5);
	CU_ASSERT(strcmp(devarg(c.env.ports[2].vdev, "rate_mbps", buf,
				sizeof(buf)), "500") == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[2].vdev, "dir", buf, sizeof(buf)),
			 "tx") == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[3].vdev, "port", buf, sizeof(buf)),
			 "net_fault0") == 0);
	CU_ASSERT(ip_in_bench_range(c.env.ports[3].vdev));
	CU_ASSERT(ip_in_bench_range(c.env.ports[4].vdev));
	CU_ASSERT(strcmp(c.mode, "write_bw") == 0);
	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(o.loopback && o.num_qps == 2 && o.size == 65536 &&
		  o.duration == 4);
	CU_ASSERT(strcmp(o.cc_trace, "/tmp/ernic-cc-bneck.trace") == 0);
}

/* conf/dcqcn.ini: the memif pair with DCQCN devargs on both ernic ports. */
static void
test_dcqcn_ini(void)
{
	struct app_config c;
	char buf[64];
	unsigned int i;

	CU_ASSERT_FATAL(load_conf("dcqcn.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 4);
	for (i = 2; i < 4; i++) {
		CU_ASSERT(ip_in_bench_range(c.env.ports[i].vdev));
		CU_ASSERT(strcmp(devarg(c.env.ports[i].vdev, "rp_ai_rate", buf,
					sizeof(buf)), "40") == 0);
		CU_ASSERT(strcmp(devarg(c.env.ports[i].vdev, "rp_dce_tcp_g", buf,
					sizeof(buf)), "1020") == 0);
		CU_ASSERT(strcmp(devarg(c.env.ports[i].vdev,
					"np_min_time_between_cnps", buf,
					sizeof(buf)), "50") == 0);
	}
	CU_ASSERT(strcmp(c.mode, "write_bw") == 0);
}

/* conf/selective-repeat.ini: memif pair, net_fault loss, --sr on. */
static void
test_sr_ini(void)
{
	struct app_config c;
	struct app_opts o;
	char buf[64];

	CU_ASSERT_FATAL(load_conf("selective-repeat.ini", &c) == 0);
	CU_ASSERT_FATAL(c.env.nb_ports == 5);
	CU_ASSERT(strcmp(devarg(c.env.ports[2].vdev, "loss", buf, sizeof(buf)),
			 "1") == 0);
	CU_ASSERT(strcmp(devarg(c.env.ports[2].vdev, "dir", buf, sizeof(buf)),
			 "both") == 0);
	CU_ASSERT(ip_in_bench_range(c.env.ports[3].vdev));
	CU_ASSERT(ip_in_bench_range(c.env.ports[4].vdev));
	CU_ASSERT(strcmp(c.mode, "write_bw") == 0);
	CU_ASSERT_FATAL(opts(&c, "", &o) == 0);
	CU_ASSERT(o.sr);
	CU_ASSERT(o.loopback);
}

/* Write @p text to a file of the temporary directory; its path. */
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

/* @p text must fail to load with -EINVAL and an error holding the file
 * name and @p needle.
 */
static void
expect_bad(const char *name, const char *text, const char *needle)
{
	struct app_config c;
	const char *path = write_conf(name, text);
	int ret;

	ret = app_config_load(path, &c, err, sizeof(err));
	if (ret != -EINVAL)
		fprintf(stderr, "%s: loaded (%d)\n", name, ret);
	CU_ASSERT(ret == -EINVAL);
	CU_ASSERT(has(path));
	CU_ASSERT(has(needle));
}

static void
test_broken_files(void)
{
	struct app_config c;
	char path[128];

	snprintf(path, sizeof(path), "%s/none.ini", tmpdir);
	CU_ASSERT(app_config_load(path, &c, err, sizeof(err)) == -ENOENT);
	CU_ASSERT(has(path) && has("cannot read") && has("No such file"));

	expect_bad("unknown_key.ini", "[test]\nmode = write_bw\niters = 5\n",
		   "[test] iters: unknown key: expected mode, args or server");
	expect_bad("unknown_eal_key.ini", "[eal]\nargv = -l 0\n",
		   "[eal] argv: unknown key: expected args");
	expect_bad("bad_section.ini", "[ports.a]\nvdev = net_ring0\n",
		   "[ports.a]: unknown section: expected [eal], [port.<name>], [test] or [verbs]");
	expect_bad("bad_port_name.ini", "[port.]\nvdev = net_ring0\n",
		   "[port.]: bad section name");
	expect_bad("empty_mode.ini", "[test]\nmode =\nargs = -n 10\n",
		   "[test] mode: empty value");
	expect_bad("no_mode.ini", "[test]\nargs = -n 10\n",
		   "[test]: missing key mode");
	expect_bad("unknown_mode.ini", "[test]\nmode = write_bandwidth\n",
		   "[test] mode: unknown mode \"write_bandwidth\": expected one of write_bw");
	expect_bad("bad_value.ini", "[test]\nmode = write_bw\nargs = -s 0\n",
		   "[test] args: bad value \"0\" for -s/--size");
	expect_bad("server_in_args.ini",
		   "[test]\nmode = write_bw\nargs = -x 1 198.19.0.2\n",
		   "[test] args: unexpected \"198.19.0.2\": give the server address in key server");
	expect_bad("loopback_server.ini",
		   "[test]\nmode = write_bw\nargs = --loopback\nserver = 10.0.0.1\n",
		   "[test] server: --loopback runs both sides in this process");
	expect_bad("dup_key.ini", "[eal]\nargs = -l 0\nargs = -l 1\n",
		   "[eal] args: key given twice");
	expect_bad("dup_section.ini",
		   "[test]\nmode = write_bw\n[test]\nmode = read_bw\n",
		   "[test]: section given twice");
	expect_bad("dup_port.ini",
		   "[port.a]\nvdev = net_ring0\n[port.a]\nvdev = net_ring1\n",
		   "[port.a]: section given twice");
	expect_bad("dup_device.ini",
		   "[port.a]\nvdev = net_ring0\n[port.b]\nvdev = net_ring0,x=1\n",
		   "[port.b] vdev: device net_ring0 is already created by [port.a]");
	expect_bad("no_vdev.ini", "[port.a]\n[test]\nmode = write_bw\n",
		   "[port.a]: missing key vdev");
	expect_bad("bad_vdev.ini", "[port.a]\nvdev = net_ernic0,,ip=1.2.3.4\n",
		   "[port.a] vdev: bad value \"net_ernic0,,ip=1.2.3.4\"");
	expect_bad("bad_vdev_name.ini", "[port.a]\nvdev = ,port=x\n",
		   "[port.a] vdev: bad value \",port=x\": expected a device name");
	expect_bad("eal_dashdash.ini", "[eal]\nargs = -l 0 -- write_bw\n",
		   "[eal] args: bad value \"--\"");
	expect_bad("no_equal.ini", "[port.a]\nvdev net_ring0\n",
		   ":2: expected \"key = value\" or \"[section]\" (got \"vdev net_ring0\")");
	expect_bad("before_section.ini", "; c\nargs = -l 0\n[eal]\n",
		   ":2: key \"args\" before the first [section]");
	expect_bad("bad_bracket.ini", "[test\nmode = write_bw\n",
		   ":1: expected \"[section]\"");

	/* comments, blanks and escapes are what rte_cfgfile makes of them */
	CU_ASSERT(app_config_load(write_conf("ok.ini",
		"; only comments and\n\n  [ test ]  ; a section\n mode = send_lat ; c\nargs=-s 64   -n 10\n"),
		&c, err, sizeof(err)) == 0);
	CU_ASSERT(strcmp(c.mode, "send_lat") == 0);
	CU_ASSERT(strcmp(c.test_args, "-s 64   -n 10") == 0);
	CU_ASSERT(!c.env.has_eal && c.env.nb_ports == 0);

	/* [verbs] is the verbs provider's: ernic-testpmd does not read it */
	CU_ASSERT(app_config_load(write_conf("verbs.ini",
		"[verbs]\nno_such_key = 1\n[test]\nmode = write_bw\n"),
		&c, err, sizeof(err)) == 0);
	CU_ASSERT(c.has_test && strcmp(c.mode, "write_bw") == 0);
}

static void
test_command_line(void)
{
	struct app_config c;
	struct app_opts o;
	const char *path;
	char *argv[8];
	char **v;
	int argc;

	/* --config must come first, with a file */
	argc = words("--config f.ini write_bw -n 10", argv, 8);
	v = argv;
	CU_ASSERT(app_config_take_path(&argc, &v, &path, err, sizeof(err)) == 0);
	CU_ASSERT(path != NULL && strcmp(path, "f.ini") == 0);
	CU_ASSERT(argc == 3 && strcmp(v[0], "write_bw") == 0);
	argc = words("--config=g.ini", argv, 8);
	v = argv;
	CU_ASSERT(app_config_take_path(&argc, &v, &path, err, sizeof(err)) == 0);
	CU_ASSERT(path != NULL && strcmp(path, "g.ini") == 0 && argc == 0);
	argc = words("write_bw -n 10", argv, 8);
	v = argv;
	CU_ASSERT(app_config_take_path(&argc, &v, &path, err, sizeof(err)) == 0);
	CU_ASSERT(path == NULL && argc == 3 && v == argv);
	argc = words("--config", argv, 8);
	v = argv;
	CU_ASSERT(app_config_take_path(&argc, &v, &path, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(has("missing value for --config"));
	argc = words("write_bw --config f.ini", argv, 8);
	v = argv;
	CU_ASSERT(app_config_take_path(&argc, &v, &path, err, sizeof(err)) == -EINVAL);
	CU_ASSERT(has("--config must be the first application option"));

	path = write_conf("cli.ini",
		"[test]\nmode = write_bw\nargs = --loopback -N -n 100\n");
	CU_ASSERT_FATAL(app_config_load(path, &c, err, sizeof(err)) == 0);
	/* the command line's own error is reported as such */
	CU_ASSERT(opts(&c, "-s 0", &o) == -EINVAL);
	CU_ASSERT(has("bad value \"0\" for -s/--size") && strstr(err, path) == NULL);
	CU_ASSERT(opts(&c, "write_bandwidth", &o) == -EINVAL);
	CU_ASSERT(has("unknown mode \"write_bandwidth\""));
	/* the file's flags under a command-line mode that lacks them */
	CU_ASSERT(opts(&c, "write_lat", &o) == -EINVAL);
	CU_ASSERT(has(path) && has("[test] args with mode write_lat from the command line") &&
		  has("-N/--noPeak"));
	/* a combination of both */
	CU_ASSERT(opts(&c, "-n 200 10.0.0.1", &o) == -EINVAL);
	CU_ASSERT(has(path) && has("[test] with the command line: --loopback"));
	/* the first word is always the mode, as without a file */
	CU_ASSERT(opts(&c, "10.0.0.1", &o) == -EINVAL);
	CU_ASSERT(has("unknown mode \"10.0.0.1\""));
	/* without a file: app_opts_parse() */
	CU_ASSERT(opts(NULL, "send_bw -n 7", &o) == 0);
	CU_ASSERT(o.iters == 7);
}

static int
suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_app_config.XXXXXX");
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
suite_fini(void)
{
	struct dirent *de;
	char path[384];
	DIR *d;

	d = opendir(tmpdir);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir,
				 de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	return 0;
}

static CU_TestInfo config_tests[] = {
	{ "every conf/*.ini loads", test_every_sample_loads },
	{ "conf/loopback.ini", test_loopback_ini },
	{ "conf/rxe-peer.ini", test_rxe_peer_ini },
	{ "conf/af_xdp-host.ini", test_af_xdp_ini },
	{ "conf/memif-pair.ini", test_memif_ini },
	{ "conf/dcqcn.ini", test_dcqcn_ini },
	{ "conf/cc-bneck.ini", test_cc_bneck_ini },
	{ "conf/selective-repeat.ini", test_sr_ini },
	{ "broken files: the specific error", test_broken_files },
	{ "command line over the file", test_command_line },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "app_config", suite_init, suite_fini, NULL, NULL, config_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
