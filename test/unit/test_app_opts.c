/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ernic-testpmd's pure parts: the option parser (every flag to its value,
 * perftest defaults and dependencies, the specific error of bad values),
 * the perftest / ibv_rc_pingpong side-channel messages (round trips and
 * the exact example strings of ../shared/tools/rxe-peer/README.md), and
 * the report formatting and arithmetic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrity_proto.h"
#include "opts.h"
#include "perf_proto.h"
#include "report.h"
#include "roce_verbs.h"
#include "test_common.h"

static char err[512];

/* Parse a space-separated argument line. */
static int
parse(const char *line, struct app_opts *o)
{
	static char buf[1024];
	char *argv[64], *save = NULL, *t;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, " ", &save); t != NULL && argc < 64;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	return app_opts_parse(argc, argv, o, err, sizeof(err));
}

static void
expect_ok(const char *line, struct app_opts *o)
{
	if (parse(line, o) != 0) {
		fprintf(stderr, "\"%s\": unexpected error: %s\n", line, err);
		CU_FAIL("valid arguments rejected");
	}
}

static void
expect_err(const char *line, const char *needle)
{
	struct app_opts o;

	if (parse(line, &o) != -EINVAL) {
		fprintf(stderr, "\"%s\": accepted\n", line);
		CU_FAIL("bad arguments accepted");
		return;
	}
	if (strstr(err, needle) == NULL) {
		fprintf(stderr, "\"%s\": error \"%s\" lacks \"%s\"\n", line,
			err, needle);
		CU_FAIL("error does not name the flag and expected value");
	}
}

static void
test_defaults(void)
{
	struct app_opts o;

	expect_ok("write_bw", &o);
	CU_ASSERT(o.mode != NULL && strcmp(o.mode->name, "write_bw") == 0);
	CU_ASSERT(o.size == 65536);
	CU_ASSERT(o.iters == 5000);
	CU_ASSERT(o.tx_depth == 128);
	CU_ASSERT(o.rx_depth == 1);
	CU_ASSERT(o.num_qps == 1);
	CU_ASSERT(o.cq_mod == 1);	/* size > 8192: moderation off */
	CU_ASSERT(o.port == 18515);
	CU_ASSERT(o.gid_index == -1);
	CU_ASSERT(o.qp_timeout == 14);
	CU_ASSERT(o.retry_cnt == 7);
	CU_ASSERT(o.inline_size == 0);
	CU_ASSERT(o.server[0] == '\0');
	CU_ASSERT(!app_opts_is_client(&o));

	expect_ok("read_bw 198.19.0.2", &o);
	CU_ASSERT(o.iters == 1000);
	CU_ASSERT(strcmp(o.server, "198.19.0.2") == 0);
	CU_ASSERT(app_opts_is_client(&o));

	expect_ok("send_bw -s 4096", &o);
	CU_ASSERT(o.rx_depth == 512);
	CU_ASSERT(o.cq_mod == 100);

	expect_ok("send_lat", &o);
	CU_ASSERT(o.size == 2);
	CU_ASSERT(o.tx_depth == 1);
	CU_ASSERT(o.cq_mod == 1);	/* clamped to the TX depth */

	expect_ok("atomic_bw", &o);
	CU_ASSERT(o.size == 8);
	CU_ASSERT(o.atomic == APP_ATOMIC_FETCH_AND_ADD);

	expect_ok("pingpong", &o);
	CU_ASSERT(o.size == 4096);
	CU_ASSERT(o.iters == 1000);
	CU_ASSERT(o.rx_depth == 500);
}

static void
test_every_flag(void)
{
	struct app_opts o;

	expect_ok("write_bw -s 1K -n 200 -q 4 -t 64 -m 2048 -x 1 -b -N -Q 8 -l 8 -I 128 -u 20 --retry_count 3 -p 2000 -d net_ernic1 -F --report_gbits --json --stats-period 2 10.0.0.1",
		  &o);
	CU_ASSERT(o.size == 1024);
	CU_ASSERT(o.iters == 200);
	CU_ASSERT(o.num_qps == 4);
	CU_ASSERT(o.tx_depth == 64);
	CU_ASSERT(o.mtu == 2048);
	CU_ASSERT(o.gid_index == 1);
	CU_ASSERT(o.bidir);
	CU_ASSERT(o.no_peak);
	CU_ASSERT(o.cq_mod == 8);
	CU_ASSERT(o.post_list == 8);
	CU_ASSERT(o.inline_size == 128);
	CU_ASSERT(o.qp_timeout == 20);
	CU_ASSERT(o.retry_cnt == 3);
	CU_ASSERT(o.port == 2000);
	CU_ASSERT(strcmp(o.device, "net_ernic1") == 0);
	CU_ASSERT(o.cpu_freq_f);
	CU_ASSERT(o.report_gbits);
	CU_ASSERT(o.json);
	CU_ASSERT(o.stats_period == 2);
	CU_ASSERT(strcmp(o.server, "10.0.0.1") == 0);

	expect_ok("write_bw -s 2M --size=3K", &o);
	CU_ASSERT(o.size == 3072);
	expect_ok("write_bw -s2M", &o);
	CU_ASSERT(o.size == 2 * 1024 * 1024);

	expect_ok("write_bw -a -n 10", &o);
	CU_ASSERT(o.all);
	CU_ASSERT(o.size == 1 << 23);
	CU_ASSERT(o.cq_mod == 10);	/* -a keeps moderation, clamped to -t=10 */

	expect_ok("write_bw -D 8", &o);
	CU_ASSERT(o.duration == 8);
	CU_ASSERT(o.margin == 2);
	CU_ASSERT(o.no_peak);
	expect_ok("write_bw -D 8 -f 1", &o);
	CU_ASSERT(o.margin == 1);

	expect_ok("send_bw -r 64 -n 32", &o);
	CU_ASSERT(o.rx_depth == 32);	/* clamped to the iterations */

	expect_ok("read_bw -o 16", &o);
	CU_ASSERT(o.out_reads == 16);
	CU_ASSERT(o.inline_size == 0);

	expect_ok("atomic_bw -A CMP_AND_SWAP", &o);
	CU_ASSERT(o.atomic == APP_ATOMIC_CMP_AND_SWAP);

	expect_ok("write_bw --run_infinitely -D 2", &o);
	CU_ASSERT(o.run_infinitely);
	CU_ASSERT(o.no_peak);
	expect_ok("write_bw --run_infinitely", &o);
	CU_ASSERT(o.duration == APP_DEF_DURATION);

	expect_ok("write_bw --write_with_imm", &o);
	CU_ASSERT(o.write_with_imm);
	CU_ASSERT(o.rx_depth == 512);

	expect_ok("write_bw --loopback -bN", &o);
	CU_ASSERT(o.loopback);
	CU_ASSERT(o.bidir && o.no_peak);
	CU_ASSERT(!o.sr && !o.no_sr);	/* the default: per connection kind */
	expect_ok("write_bw --loopback --no_sr", &o);
	CU_ASSERT(o.no_sr && !o.sr);
	expect_ok("write_bw --sr 10.0.0.1", &o);
	CU_ASSERT(o.sr && !o.no_sr);
	expect_err("write_bw --sr --no_sr", "--sr and --no_sr contradict each other");
	/* --cc-trace: a file, with --loopback, bandwidth modes */
	expect_ok("write_bw --loopback --cc-trace /tmp/t.dat", &o);
	CU_ASSERT(strcmp(o.cc_trace, "/tmp/t.dat") == 0);
	expect_err("write_bw --cc-trace /tmp/t.dat 10.0.0.1",
		   "--cc-trace /tmp/t.dat: expected --loopback too");
	expect_err("write_lat --loopback --cc-trace /tmp/t.dat", "--cc-trace");

	/* -e: completion events; -i --loopback: the prompt with the pair */
	expect_ok("send_lat -e -s 64", &o);
	CU_ASSERT(o.events);
	expect_ok("write_bw", &o);
	CU_ASSERT(!o.events);
	expect_ok("-i --loopback", &o);
	CU_ASSERT(o.interactive && o.loopback && o.mode == NULL);
	expect_err("--loopback -i", "flag --loopback before the mode");

	/* -R: rdma_cm for the perftest modes, off by default */
	expect_ok("write_bw -R -p 18600 198.18.0.2", &o);
	CU_ASSERT(o.rdma_cm && o.port == 18600);
	expect_ok("send_lat --rdma_cm", &o);
	CU_ASSERT(o.rdma_cm);
	expect_ok("read_bw", &o);
	CU_ASSERT(!o.rdma_cm);

	expect_ok("pingpong -g 1 -s 8192 -n 50 -r 100 -l 3 -m 1024 -p 4000 10.1.1.1",
		  &o);
	CU_ASSERT(o.gid_index == 1);
	CU_ASSERT(o.size == 8192);
	CU_ASSERT(o.iters == 50);
	CU_ASSERT(o.rx_depth == 100);
	CU_ASSERT(o.sl == 3);
	CU_ASSERT(o.mtu == 1024);
	CU_ASSERT(o.port == 4000);

	expect_ok("-i", &o);
	CU_ASSERT(o.interactive);
	CU_ASSERT(o.mode == NULL);
	expect_ok("write_lat -i 1", &o);	/* -i is the IB port with a mode */
	CU_ASSERT(!o.interactive);
	expect_ok("-h", &o);
	CU_ASSERT(o.help);
}

static void
test_bad_flags(void)
{
	expect_err("nosuch_bw", "unknown mode \"nosuch_bw\": expected one of write_bw");
	expect_err("write_bw -s 0", "bad value \"0\" for -s/--size: expected a message size");
	expect_err("write_bw -s 3G", "bad value \"3G\" for -s/--size");
	expect_err("write_bw -s 4096M", "bad value \"4096M\" for -s/--size");
	expect_err("write_bw -n 4", "bad value \"4\" for -n/--iters: expected an iteration count 5..100000000");
	expect_err("write_bw -n x", "bad value \"x\" for -n/--iters");
	expect_err("write_bw -D 0", "bad value \"0\" for -D/--duration");
	expect_err("write_bw -q 0", "bad value \"0\" for -q/--qp: expected a QP count 1..16384");
	expect_err("write_bw -t 15001", "bad value \"15001\" for -t/--tx-depth: expected a depth 1..15000");
	expect_err("send_bw -r 0", "bad value \"0\" for -r/--rx-depth");
	expect_err("write_bw -r 8", "bad value \"8\" for -r/--rx-depth: expected 1");
	expect_err("write_bw -m 1000", "bad value \"1000\" for -m/--mtu: expected one of 256, 512, 1024, 2048, 4096");
	expect_err("write_bw -x 8", "bad value \"8\" for -x/--gid-index: expected a GID index 0..7");
	expect_err("pingpong -R", "-R/--rdma_cm is not a flag of pingpong");
	expect_err("write_bw -Q 0", "bad value \"0\" for -Q/--cq-mod: expected a moderation 1..1024");
	expect_err("write_bw -I 300", "bad value \"300\" for -I/--inline_size: expected an inline size 0..256");
	expect_err("read_bw -I 16", "-I/--inline_size is only for write and send modes");
	expect_err("write_bw -u 32", "bad value \"32\" for -u/--qp-timeout: expected a timeout exponent 0..31");
	expect_err("atomic_bw -A ADD", "bad value \"ADD\" for -A/--atomic_type: expected CMP_AND_SWAP or FETCH_AND_ADD");
	expect_err("write_bw -A FETCH_AND_ADD", "-A/--atomic_type is only for atomic_bw");
	expect_err("write_bw -o 4", "-o/--outs is only for read_bw, read_lat and atomic_bw");
	expect_err("read_bw -o 129", "bad value \"129\" for -o/--outs: expected an outstanding count 1..128");
	expect_err("write_bw -p 0", "bad value \"0\" for -p/--port: expected a TCP port 1..65535");
	expect_err("write_bw -p 65536", "bad value \"65536\" for -p/--port");
	expect_err("write_lat -b", "-b/--bidirectional is not a flag of write_lat: it is only for the bandwidth modes");
	expect_err("send_lat -N", "-N/--noPeak is not a flag of send_lat");
	expect_err("send_lat -q 2", "-q/--qp is not a flag of send_lat");
	expect_err("pingpong -x 1", "-x/--gid-index is not a flag of pingpong");
	expect_err("write_bw -n 100 -l 3", "bad value \"3\" for -l/--post_list: expected a divisor of the iteration count 100");
	expect_err("write_bw -n 100 -l 10 -Q 3", "bad value \"3\" for -Q/--cq-mod: expected a divisor of the post list 10");
	expect_err("atomic_bw -s 16", "bad value \"16\" for -s/--size: expected 8");
	expect_err("atomic_bw -a", "-a/--all is not available in atomic_bw");
	expect_err("write_bw -a -D 5", "-a/--all cannot be combined with -D/--duration");
	expect_err("write_bw -D 4 -f 2", "bad value \"2\" for -f/--margin: expected less than half the duration 4");
	expect_err("write_lat --write_with_imm", "--write_with_imm is not a flag of write_lat");
	expect_err("read_bw --write_with_imm", "--write_with_imm is only for write_bw");
	expect_err("write_bw --stats-period 0", "bad value \"0\" for --stats-period: expected seconds 1..3600");
	expect_err("write_bw --retry_count 8", "bad value \"8\" for --retry_count: expected a retry count 0..7");
	expect_err("write_bw -s", "missing value for -s/--size: expected a message size");
	expect_err("write_bw -z", "unknown flag -z");
	expect_err("write_bw --colour=blue", "unknown flag --colour");
	expect_err("write_bw --json=1", "flag --json takes no value");
	expect_err("write_bw 10.0.0.1 10.0.0.2", "unexpected argument \"10.0.0.2\": expected one server address");
	expect_err("write_bw --loopback 10.0.0.1", "--loopback runs both sides in this process: expected no server address");
	expect_err("-s 64 write_bw", "flag -s before the mode");
	expect_err("", "missing mode");
	expect_err("write_bw -bs", "bad flag bundle -bs: -s takes a value");
	expect_err("write_bw -i 2", "bad value \"2\" for -i/--ib-port: expected 1");
}

/* ---- side-channel formats -------------------------------------------- */

static void
test_key_message_readme_example(void)
{
	/* rxe-peer README "Side-channel formats", perftest step 5 */
	static const char example[] =
		"0000:0001:000012:d09523:000003b3:00007f1293da7000:00:00:00:00:00:00:00:00:00:00:ff:ff:c6:12:00:02:00000000:";
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff, 0xc6, 0x12, 0x00, 0x02 };
	char msg[PERF_KEY_MSG_LEN];
	struct perf_dest d;

	CU_ASSERT_EQUAL(sizeof(example), PERF_KEY_MSG_LEN);
	memset(msg, 0, sizeof(msg));
	memcpy(msg, example, sizeof(example));
	CU_ASSERT_FATAL(perf_key_parse(msg, &d) == 0);
	CU_ASSERT(d.lid == 0);
	CU_ASSERT(d.out_reads == 1);
	CU_ASSERT(d.qpn == 0x12);
	CU_ASSERT(d.psn == 0xd09523);
	CU_ASSERT(d.rkey == 0x3b3);
	CU_ASSERT(d.vaddr == 0x00007f1293da7000ULL);
	CU_ASSERT(memcmp(d.gid, gid, 16) == 0);
	CU_ASSERT(d.srqn == 0);
	/* and back, byte for byte including the NUL */
	memset(msg, 0x55, sizeof(msg));
	CU_ASSERT_FATAL(perf_key_format(&d, msg) == 0);
	CU_ASSERT(memcmp(msg, example, PERF_KEY_MSG_LEN) == 0);
}

static void
test_key_message_round_trip(void)
{
	struct perf_dest a, b;
	char msg[PERF_KEY_MSG_LEN];
	unsigned int i;

	memset(&a, 0, sizeof(a));
	a.lid = 0xffff;
	a.out_reads = 0x80;
	a.qpn = 0xfffffe;
	a.psn = 0xabcdef;
	a.rkey = 0xdeadbeef;
	a.vaddr = 0xfedcba9876543210ULL;
	for (i = 0; i < 16; i++)
		a.gid[i] = (uint8_t)(0xf0 + i);
	a.srqn = 0x12345678;
	CU_ASSERT_FATAL(perf_key_format(&a, msg) == 0);
	CU_ASSERT(msg[PERF_KEY_MSG_LEN - 1] == '\0');
	CU_ASSERT(msg[PERF_KEY_MSG_LEN - 2] == ':');
	CU_ASSERT(perf_key_parse(msg, &b) == 0);
	CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
	/* out of range fields are refused, malformed messages too */
	a.qpn = 0x1000000;
	CU_ASSERT(perf_key_format(&a, msg) == -EINVAL);
	a.qpn = 1;
	CU_ASSERT_FATAL(perf_key_format(&a, msg) == 0);
	msg[5] = 'g';
	CU_ASSERT(perf_key_parse(msg, &b) == -EINVAL);
	CU_ASSERT_FATAL(perf_key_format(&a, msg) == 0);
	msg[4] = '-';
	CU_ASSERT(perf_key_parse(msg, &b) == -EINVAL);
	CU_ASSERT_FATAL(perf_key_format(&a, msg) == 0);
	msg[PERF_KEY_MSG_LEN - 1] = 'x';
	CU_ASSERT(perf_key_parse(msg, &b) == -EINVAL);
}

/*
 * perftest -R: the binary struct pingpong_dest that ib_write_bw 4.5-0.17
 * sent over its rdma_cm comm QP (Linux rxe, interop case
 * write_bw-1024-d+R-server): lid 0, out_reads 1, QPN 0x12, PSN 0xab437a,
 * RKey 0x34b, VAddr 0x7f60735ad000, GID ::ffff:198.18.0.2, srqn 0,
 * gid_index 1.
 */
static void
test_key_binary_linux_capture(void)
{
	static const uint8_t linux_msg[PERF_DEST_BIN_LEN] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x12, 0x00, 0xab, 0x43, 0x7a,
		0x00, 0x00, 0x03, 0x4b, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x7f, 0x60, 0x73, 0x5a, 0xd0, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	uint8_t msg[PERF_DEST_BIN_LEN];
	struct perf_dest d, e;

	memset(&d, 0x77, sizeof(d));
	CU_ASSERT_FATAL(perf_dest_bin_parse(linux_msg, &d) == 0);
	CU_ASSERT(d.lid == 0);
	CU_ASSERT(d.out_reads == 1);
	CU_ASSERT(d.qpn == 0x12);
	CU_ASSERT(d.psn == 0xab437a);
	CU_ASSERT(d.rkey == 0x34b);
	CU_ASSERT(d.vaddr == 0x7f60735ad000ULL);
	CU_ASSERT(d.gid[10] == 0xff && d.gid[11] == 0xff && d.gid[12] == 198 &&
		  d.gid[13] == 18 && d.gid[14] == 0 && d.gid[15] == 2);
	CU_ASSERT(d.srqn == 0);
	/* formatted back with gid_index 1: the same 56 bytes */
	memset(msg, 0x55, sizeof(msg));
	perf_dest_bin_format(&d, 1, msg);
	CU_ASSERT(memcmp(msg, linux_msg, sizeof(msg)) == 0);
	/* every field big-endian, 64-bit VAddr in both halves */
	d.qpn = 0xabcdef;
	d.vaddr = 0x0123456789abcdefULL;
	d.srqn = 0x11223344;
	perf_dest_bin_format(&d, 0, msg);
	CU_ASSERT(msg[9] == 0xab && msg[10] == 0xcd && msg[11] == 0xef);
	CU_ASSERT(msg[24] == 0x01 && msg[31] == 0xef);
	CU_ASSERT(msg[48] == 0x11 && msg[51] == 0x44 && msg[55] == 0);
	CU_ASSERT(perf_dest_bin_parse(msg, &e) == 0);
	CU_ASSERT(e.lid == d.lid && e.out_reads == d.out_reads &&
		  e.qpn == d.qpn && e.psn == d.psn && e.rkey == d.rkey &&
		  e.vaddr == d.vaddr && e.srqn == d.srqn &&
		  memcmp(e.gid, d.gid, 16) == 0);
	/* a QPN or PSN over 24 bits is refused and *d left alone */
	msg[8] = 0x01;
	e.qpn = 7;
	CU_ASSERT(perf_dest_bin_parse(msg, &e) == -EINVAL);
	CU_ASSERT(e.qpn == 7);
}

static void
test_pingpong_message(void)
{
	/* rxe-peer README: ibv_rc_pingpong step 1 */
	static const char example[] =
		"0000:000011:aadb64:00000000000000000000ffffc6120003";
	static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff, 198, 18, 0, 3 };
	char msg[PP_MSG_LEN];
	uint32_t lid, qpn, psn;
	uint8_t g[16];

	CU_ASSERT_EQUAL(sizeof(example), PP_MSG_LEN);
	CU_ASSERT_FATAL(pp_msg_format(0, 0x11, 0xaadb64, gid, msg) == 0);
	CU_ASSERT(memcmp(msg, example, PP_MSG_LEN) == 0);
	CU_ASSERT(pp_msg_parse(msg, &lid, &qpn, &psn, g) == 0);
	CU_ASSERT(lid == 0 && qpn == 0x11 && psn == 0xaadb64);
	CU_ASSERT(memcmp(g, gid, 16) == 0);
	msg[20] = 'z';
	CU_ASSERT(pp_msg_parse(msg, &lid, &qpn, &psn, g) == -EINVAL);
	CU_ASSERT(pp_msg_format(0, 0x1000000, 0, gid, msg) == -EINVAL);
}

static void
test_prefix_messages(void)
{
	char ver[PERF_VERSION_LEN], mtu[PERF_MTU_MSG_LEN];
	static const uint8_t v16[PERF_VERSION_LEN] = "6.06";
	uint8_t b4[4];
	unsigned int i;

	perf_version_format(PERF_VERSION, ver);
	CU_ASSERT(memcmp(ver, v16, PERF_VERSION_LEN) == 0);
	CU_ASSERT(perf_version_ok(ver));
	perf_version_format("5.69", ver);
	CU_ASSERT(!perf_version_ok(ver));
	perf_version_format("5.70", ver);
	CU_ASSERT(perf_version_ok(ver));
	/* README: cycle_buffer 0x00001000, cache line 0x00000040, big-endian */
	perf_be32_format(PERF_CYCLE_BUFFER, b4);
	CU_ASSERT(b4[0] == 0 && b4[1] == 0 && b4[2] == 0x10 && b4[3] == 0);
	CU_ASSERT(perf_be32_parse(b4) == 4096);
	perf_be32_format(PERF_CACHE_LINE, b4);
	CU_ASSERT(b4[3] == 0x40 && perf_be32_parse(b4) == 64);
	/* README: "3\0" for 1024 */
	CU_ASSERT(perf_mtu_format(ROCE_MTU_1024, mtu) == 0);
	CU_ASSERT(mtu[0] == '3' && mtu[1] == '\0');
	for (i = 1; i <= 5; i++) {
		CU_ASSERT(perf_mtu_format(i, mtu) == 0);
		CU_ASSERT(perf_mtu_parse(mtu) == (int)i);
	}
	CU_ASSERT(perf_mtu_format(6, mtu) == -EINVAL);
	mtu[0] = '7';
	CU_ASSERT(perf_mtu_parse(mtu) == -EINVAL);
}

static void
test_report_fields(void)
{
	struct perf_bw_report a, b;
	uint8_t f[8];
	unsigned int k;

	a.size = 65536;
	a.iters = 5000;
	a.bw_peak = 1234.5;
	a.bw_avg = 1200.25;
	a.msg_rate = 0.019204;
	/* size is a big-endian u64 */
	perf_report_field_format(&a, 0, f);
	CU_ASSERT(f[0] == 0 && f[5] == 0x01 && f[6] == 0 && f[7] == 0);
	/* a double is its IEEE bytes swapped: 1.0 = 3f f0 00.. */
	b.bw_peak = 1.0;
	perf_report_field_format(&b, 2, f);
	CU_ASSERT(f[0] == 0x3f && f[1] == 0xf0 && f[7] == 0);
	memset(&b, 0, sizeof(b));
	for (k = 0; k < PERF_REPORT_FIELDS; k++) {
		perf_report_field_format(&a, k, f);
		perf_report_field_parse(&b, k, f);
	}
	CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
}

/* ---- reports ---------------------------------------------------------- */

static void
test_bw_rows(void)
{
	struct perf_bw_report r;
	char line[256];

	memset(&r, 0, sizeof(r));
	r.size = 65536;
	r.iters = 5000;
	r.bw_peak = 2534.38;
	r.bw_avg = 2534.36;
	r.msg_rate = 0.04055;
	report_bw_row(line, sizeof(line), &r, false);
	CU_ASSERT_STRING_EQUAL(line,
		" 65536      5000             2534.38            2534.36\t\t   0.040550\n");
	/* below 0.1 Gb/sec perftest switches to REPORT_FMT_EXT */
	r.bw_peak = 0.15;
	r.bw_avg = 0.05;
	r.msg_rate = 0.000095;
	report_bw_row(line, sizeof(line), &r, true);
	CU_ASSERT_STRING_EQUAL(line,
		" 65536      5000           0.150000            0.050000            0.000095\n");
	report_json_bw(line, sizeof(line), "write_bw", 2, &r, true);
	CU_ASSERT(strstr(line, "\"test\": \"write_bw\"") != NULL);
	CU_ASSERT(strstr(line, "\"bytes\": 65536") != NULL);
	CU_ASSERT(strstr(line, "\"qps\": 2") != NULL);
	CU_ASSERT(strstr(line, "\"bw_avg_gbps\": 0.050000") != NULL);
}

static void
test_bw_compute(void)
{
	/* 10 messages of 1 MiB, one per ms, completions every 5 (cq_mod) */
	uint64_t tp[10], tc[10], hz = 1000000000ULL;
	struct perf_bw_report r;
	struct bw_samples s;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		tp[i] = i * 1000000ULL;
		tc[i] = (i + 1) * 1000000ULL;
	}
	memset(&s, 0, sizeof(s));
	s.tposted = tp;
	s.tcompleted = tc;
	s.n = 10;
	s.size = 1 << 20;
	s.cq_mod = 5;
	s.post_list = 1;
	s.tsc_hz = hz;
	report_bw_compute(&s, false, &r);
	/* 10 MiB in 10 ms = 1000 MiB/s = 0.001 Mpps */
	CU_ASSERT(fabs(r.bw_avg - 1000.0) < 1e-6);
	CU_ASSERT(fabs(r.msg_rate - 0.001) < 1e-9);
	CU_ASSERT(fabs(r.bw_peak - 1000.0) < 1e-6);
	report_bw_compute(&s, true, &r);
	CU_ASSERT(fabs(r.bw_avg - 8.388608) < 1e-6);
	s.no_peak = true;
	report_bw_compute(&s, false, &r);
	CU_ASSERT(r.bw_peak == 0);
}

static void
test_lat_rows(void)
{
	uint64_t d[12], hz = 2000000000ULL;	/* 2000 cycles per usec */
	struct lat_stats st;
	char line[256];
	unsigned int i;

	/* round trips of 2..12 usec (+ the 2 largest dropped) */
	for (i = 0; i < 12; i++)
		d[i] = (uint64_t)(11 - i) * 4000 + 4000;
	CU_ASSERT(report_lat_compute(d, 12, hz, 2, &st) == 0);
	CU_ASSERT(fabs(st.min - 1.0) < 1e-9);		/* 4000 cycles / 2 */
	CU_ASSERT(fabs(st.max - 11.0) < 1e-9);		/* delta[10] */
	CU_ASSERT(fabs(st.avg - 5.5) < 1e-9);		/* 1..10 */
	CU_ASSERT(fabs(st.typical - 5.5) < 1e-9);	/* median of 10 */
	CU_ASSERT(fabs(st.stdev - sqrt(8.25)) < 1e-9);
	CU_ASSERT(report_lat_compute(d, 2, hz, 2, &st) == -EINVAL);
	st.min = 1.5;
	st.max = 9.25;
	st.typical = 2;
	st.avg = 2.5;
	st.stdev = 0.5;
	st.p99 = 8;
	st.p999 = 9.25;
	report_lat_row(line, sizeof(line), 2, 1000, &st);
	CU_ASSERT_STRING_EQUAL(line,
		" 2       1000          1.50           9.25         2.00     \t       2.50        \t0.50   \t\t8.00    \t\t9.25   \n");
	report_json_lat(line, sizeof(line), "send_lat", 2, 1000, &st);
	CU_ASSERT(strstr(line, "\"lat_p999_usec\": 9.250") != NULL);
}

static void
test_header(void)
{
	struct report_ctx c = { "net_ernic0", 1024, 1, 1, false };
	struct perf_dest d;
	struct app_opts o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	expect_ok("write_bw 10.0.0.1", &o);
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	report_header(f, &o, &c);
	memset(&d, 0, sizeof(d));
	d.qpn = 0x11;
	d.psn = 0xaadb64;
	d.rkey = 0x3b3;
	d.vaddr = 0x7f1293da7000ULL;
	d.gid[10] = d.gid[11] = 0xff;
	d.gid[12] = 198;
	d.gid[13] = 18;
	d.gid[15] = 1;
	report_dest(f, &o, false, &d);
	report_bw_title(f, false);
	fclose(f);
	CU_ASSERT(strstr(buf, REPORT_LINE "                    RDMA_Write BW Test\n") == buf);
	CU_ASSERT(strstr(buf, " Number of qps   : 1\t\tTransport type : IB\n") != NULL);
	CU_ASSERT(strstr(buf, " TX depth        : 128\n") != NULL);
	CU_ASSERT(strstr(buf, " Mtu             : 1024[B]\n") != NULL);
	CU_ASSERT(strstr(buf, " Link type       : Ethernet\n") != NULL);
	CU_ASSERT(strstr(buf, " GID index       : 1\n") != NULL);
	CU_ASSERT(strstr(buf, " Max inline data : 0[B]\n") != NULL);
	CU_ASSERT(strstr(buf, " Data ex. method : Ethernet\n") != NULL);
	CU_ASSERT(strstr(buf, " local address: LID 0000 QPN 0x0011 PSN 0xaadb64 RKey 0x0003b3 VAddr 0x007f1293da7000\n") != NULL);
	CU_ASSERT(strstr(buf, " GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:01\n") != NULL);
	CU_ASSERT(strstr(buf, " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n") != NULL);
	free(buf);
}

/* The integrity mode's shared definitions (integrity_proto.h): the check
 * finds a wrong byte in the data and in the tail, the pattern does not
 * repeat at MTU distances, FNV-1a 64 matches its reference values. */
static void
test_integrity_proto(void)
{
	struct app_opts o;
	uint32_t sum = 0, same = 0, i;
	uint8_t *a;

	for (i = 0; i < INTEG_NMSG; i++)
		sum += integ_sizes[i];
	CU_ASSERT_EQUAL(sum, INTEG_TOTAL);
	CU_ASSERT(INTEG_AREA >= INTEG_TOTAL && INTEG_AREA % 4096 == 0 &&
		  INTEG_AREA - INTEG_TOTAL < 4096);
	CU_ASSERT_EQUAL(integ_sizes[0], 1);
	CU_ASSERT(integ_sizes[INTEG_NMSG - 1] > 1024 * 1024);

	a = malloc(INTEG_AREA);
	CU_ASSERT_FATAL(a != NULL);
	memset(a, INTEG_FILL, INTEG_AREA);
	integ_fill(a, INTEG_TOTAL, INTEG_SEED_W);
	CU_ASSERT_EQUAL(integ_check(a, INTEG_SEED_W), -1);
	CU_ASSERT_EQUAL(integ_check(a, INTEG_SEED_R), 0);
	a[1000] ^= 0x01;
	CU_ASSERT_EQUAL(integ_check(a, INTEG_SEED_W), 1000);
	a[1000] ^= 0x01;
	a[INTEG_TOTAL] = 0;		/* written past the last message */
	CU_ASSERT_EQUAL(integ_check(a, INTEG_SEED_W), INTEG_TOTAL);
	a[INTEG_TOTAL] = INTEG_FILL;
	CU_ASSERT_NOT_EQUAL(integ_fnv1a64(a, INTEG_TOTAL),
			    integ_fnv1a64(a + 1, INTEG_TOTAL - 1));
	for (i = 0; i < 65536; i++)
		same += a[i] == a[i + 1024] || a[i] == a[i + 4096];
	CU_ASSERT(same < 65536 / 50);	/* about 2/256 by chance */
	free(a);

	CU_ASSERT_EQUAL(integ_fnv1a64((const uint8_t *)"", 0),
			0xcbf29ce484222325ull);
	CU_ASSERT_EQUAL(integ_fnv1a64((const uint8_t *)"a", 1),
			0xaf63dc4c8601ec8cull);
	CU_ASSERT_EQUAL(integ_fnv1a64((const uint8_t *)"foobar", 6),
			0x85944171f73967e8ull);

	/* the mode takes pingpong's flags */
	expect_ok("integrity -g 1 -m 4096 -p 18516 198.19.0.2", &o);
	CU_ASSERT_STRING_EQUAL(o.mode->name, "integrity");
	CU_ASSERT_EQUAL(o.mode->kind, APP_KIND_PINGPONG);
	CU_ASSERT_EQUAL(o.mtu, 4096);
	expect_err("integrity -q 2", "-q");
}

static CU_TestInfo opts_tests[] = {
	{ "defaults follow perftest", test_defaults },
	{ "every flag parses to its value", test_every_flag },
	{ "bad flags name the flag and the expected value", test_bad_flags },
	{ "integrity mode: pattern, check, checksum, flags",
	  test_integrity_proto },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo proto_tests[] = {
	{ "key message = the README example", test_key_message_readme_example },
	{ "key message round trip and errors", test_key_message_round_trip },
	{ "binary key message (-R) = a Linux perftest capture",
	  test_key_binary_linux_capture },
	{ "ibv_rc_pingpong message = the README example", test_pingpong_message },
	{ "version, sys data and MTU messages", test_prefix_messages },
	{ "bandwidth report fields", test_report_fields },
	CU_TEST_INFO_NULL,
};

static CU_TestInfo report_tests[] = {
	{ "bandwidth rows", test_bw_rows },
	{ "bandwidth arithmetic", test_bw_compute },
	{ "latency statistics and rows", test_lat_rows },
	{ "header and address lines", test_header },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "app_opts", NULL, NULL, NULL, NULL, opts_tests },
	{ "app_proto", NULL, NULL, NULL, NULL, proto_tests },
	{ "app_report", NULL, NULL, NULL, NULL, report_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
