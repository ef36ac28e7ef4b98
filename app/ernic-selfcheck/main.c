/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ernic-selfcheck: what the demo runs until the RoCEv2 transport exists.
 *
 * 1. Verifies the ICRC (IBTA annex A17) of every frame of the shared
 *    vectors file, as a contiguous buffer, as a one-segment mbuf and as a
 *    chain of 64-byte segments, and prints a per-IP-version table.
 * 2. Measures, on one lcore, the ICRC of 4 KB RoCEv2 frames with ISA-L
 *    (libroce, over mbufs) against DPDK's rte_net_crc_calc (Ethernet CRC32,
 *    best algorithm) and a plain memcpy of the same bytes.
 *
 * Usage: ernic-selfcheck [EAL options] -- [--vectors PATH] [--size BYTES]
 *        [--time MS] [--no-bench]
 * Exit: 0 all vectors verified, 1 a vector failed or a runtime error,
 *       2 bad arguments.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <isa-l/crc.h>
#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>
#include <rte_vect.h>

#include "roce_icrc.h"

#ifndef SELFCHECK_VECTORS
#define SELFCHECK_VECTORS "../shared/vectors/rocev2-frames.hex"
#endif
#define VECTORS_NAME	"rocev2-frames.hex"

#define PROG		"ernic-selfcheck"
#define EXIT_USAGE	2
#define MAX_FRAME	9000
#define CHAIN_SEG	64	/* vector check: chained segment size */
#define BENCH_FRAMES	64	/* distinct frames cycled by the benchmark */
#define BENCH_SEG	1024	/* benchmark chained segment size */
#define MBUF_ROOM	(RTE_PKTMBUF_HEADROOM + 10240)

/* Ethernet + IPv4 + UDP + BTH + RETH, and the ICRC after the payload. */
#define HDRS_LEN	(14 + 20 + 8 + 12 + 16)
#define L3_OFF		14

struct options {
	const char *vectors;
	uint32_t size;		/* RDMA WRITE payload bytes */
	uint32_t time_ms;	/* per measurement */
	bool bench;
};

struct frame {
	char name[64];
	uint8_t *data;
	uint32_t len;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " [EAL options] -- [options]\n"
		"  --vectors PATH  frames file, NAME HEX per line (default:\n"
		"                  $SOFTERNIC_VECTORS[/" VECTORS_NAME "] or\n"
		"                  " SELFCHECK_VECTORS ")\n"
		"  --size BYTES    RDMA WRITE payload of the benchmark frames\n"
		"                  (default 4096, 0..%u)\n"
		"  --time MS       duration of each measurement (default 300)\n"
		"  --no-bench      verify the vectors only\n"
		"  -h, --help      this text\n",
		MAX_FRAME - HDRS_LEN - 4);
}

static int
parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || v > max || s[0] == '-')
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static const char *
default_vectors(void)
{
	static char path[4096];
	const char *env = getenv("SOFTERNIC_VECTORS");
	struct stat st;

	if (env == NULL || env[0] == '\0')
		return SELFCHECK_VECTORS;
	if (stat(env, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/%s", env, VECTORS_NAME);
		return path;
	}
	return env;
}

/* 0, or EXIT_USAGE after printing why. */
static int
parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "vectors", required_argument, NULL, 'v' },
		{ "size", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "no-bench", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->vectors = default_vectors();
	o->size = 4096;
	o->time_ms = 300;
	o->bench = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			o->vectors = optarg;
			break;
		case 's':
			if (parse_u32(optarg, MAX_FRAME - HDRS_LEN - 4,
				      &o->size) != 0) {
				fprintf(stderr, PROG ": bad --size '%s'\n",
					optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (parse_u32(optarg, 60000, &o->time_ms) != 0 ||
			    o->time_ms == 0) {
				fprintf(stderr, PROG ": bad --time '%s'\n",
					optarg);
				usage(stderr);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			o->bench = false;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			if (optopt != 0 && strchr("vst", optopt) != NULL)
				fprintf(stderr, PROG ": option '%s' needs an argument\n",
					argv[optind - 1]);
			else
				fprintf(stderr, PROG ": unknown option '%s'\n",
					argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Load "NAME HEX" lines; returns the count or -errno (message printed). */
static int
load_vectors(const char *path, struct frame **out)
{
	struct frame *v = NULL, *nv;
	char *line = NULL, *hex;
	size_t cap = 0, hexlen, i;
	int n = 0, max = 0, lineno = 0, ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		fprintf(stderr, PROG ": cannot open vectors %s: %s\n", path,
			strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		hex = strchr(line, ' ');
		if (hex == NULL)
			goto bad;
		*hex++ = '\0';
		hexlen = strcspn(hex, " \t\r\n");
		if (hexlen % 2 != 0 || hexlen / 2 > MAX_FRAME || hexlen == 0)
			goto bad;
		if (n == max) {
			max = max ? max * 2 : 64;
			nv = realloc(v, max * sizeof(*v));
			if (nv == NULL) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", line);
		v[n].len = hexlen / 2;
		v[n].data = malloc(v[n].len);
		if (v[n].data == NULL) {
			ret = -ENOMEM;
			break;
		}
		for (i = 0; i < v[n].len; i++) {
			int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

			if (hi < 0 || lo < 0) {
				free(v[n].data);
				goto bad;
			}
			v[n].data[i] = (uint8_t)(hi << 4 | lo);
		}
		n++;
	}
	free(line);
	fclose(f);
	if (ret != 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(-ret));
		return ret;
	}
	if (n == 0) {
		fprintf(stderr, PROG ": %s: no frames\n", path);
		return -ENOENT;
	}
	*out = v;
	return n;
bad:
	fprintf(stderr, PROG ": %s:%d: expected 'NAME HEX'\n", path, lineno);
	free(line);
	fclose(f);
	return -EINVAL;
}

/* Offset of the IP header after Ethernet and any VLAN tags, 0 if none. */
static uint32_t
frame_l3(const uint8_t *p, uint32_t len)
{
	uint32_t off = 12;

	while (off + 2 <= len) {
		uint16_t type = (uint16_t)(p[off] << 8 | p[off + 1]);

		if (type == 0x8100 || type == 0x88a8) {
			off += 4;
			continue;
		}
		if (type == 0x0800 || type == 0x86dd)
			return off + 2;
		return 0;
	}
	return 0;
}

/* Copy into an mbuf chain of seg-byte segments (0: one segment). */
static struct rte_mbuf *
mbuf_from(struct rte_mempool *mp, const uint8_t *p, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, chunk;

	if (seg == 0)
		seg = len;
	do {
		chunk = RTE_MIN(seg, len - off);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL || chunk > rte_pktmbuf_tailroom(m))
			goto fail;
		memcpy(rte_pktmbuf_append(m, chunk), p + off, chunk);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			goto fail;
		off += chunk;
	} while (off < len);
	return head;
fail:
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(head);
	return NULL;
}

/* Verify one frame three ways; 0 or the first error. */
static int
verify_frame(struct rte_mempool *mp, const struct frame *fr, uint32_t l3)
{
	struct rte_mbuf *m;
	int ret;

	ret = roce_icrc_verify(fr->data, l3, fr->len);
	if (ret != 0)
		return ret;
	m = mbuf_from(mp, fr->data, fr->len, 0);
	if (m == NULL)
		return -ENOMEM;
	ret = roce_icrc_verify_mbuf(m, l3);
	rte_pktmbuf_free(m);
	if (ret != 0)
		return ret;
	m = mbuf_from(mp, fr->data, fr->len, CHAIN_SEG);
	if (m == NULL)
		return -ENOMEM;
	ret = roce_icrc_verify_mbuf(m, l3);
	rte_pktmbuf_free(m);
	return ret;
}

/* The vectors table; returns the number of failed frames. */
static int
check_vectors(struct rte_mempool *mp, const char *path,
	      const struct frame *v, int n)
{
	/* rows: IPv4, IPv6, other */
	unsigned int total[3] = { 0 }, ok[3] = { 0 };
	static const char *const rows[] = { "IPv4", "IPv6", "other" };
	unsigned int r, fails = 0;
	char *real;
	int i;

	for (i = 0; i < n; i++) {
		uint32_t l3 = frame_l3(v[i].data, v[i].len);
		int ret = -EPROTONOSUPPORT;

		r = 2;
		if (l3 != 0 && l3 < v[i].len) {
			r = (v[i].data[l3] >> 4) == 4 ? 0 :
			    (v[i].data[l3] >> 4) == 6 ? 1 : 2;
			ret = verify_frame(mp, &v[i], l3);
		}
		total[r]++;
		if (ret == 0) {
			ok[r]++;
		} else {
			fails++;
			fprintf(stderr, PROG ": %s: ICRC check failed: %s\n",
				v[i].name, strerror(-ret));
		}
	}
	real = realpath(path, NULL);
	printf("ICRC vectors (IBTA annex A17): %s\n", real ? real : path);
	free(real);
	printf("  %-6s %8s %8s %8s\n", "IP", "frames", "ok", "failed");
	for (r = 0; r < RTE_DIM(rows); r++) {
		if (r == 2 && total[r] == 0)
			continue;
		printf("  %-6s %8u %8u %8u\n", rows[r], total[r], ok[r],
		       total[r] - ok[r]);
	}
	printf("  %-6s %8d %8u %8u\n", "total", n, n - fails, fails);
	printf("  (each frame: contiguous, 1-segment mbuf, %u-byte segments)\n",
	       CHAIN_SEG);
	return (int)fails;
}

/* A RoCEv2 RC RDMA WRITE ONLY frame with @p payload bytes, ICRC filled. */
static uint32_t
build_write_frame(uint8_t *f, uint32_t payload, uint32_t seed)
{
	static const uint8_t hdr[HDRS_LEN] = {
		/* Ethernet */
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
		/* IPv4: DSCP 26/ECT(0), DF, TTL 64, UDP, 198.18.0.1 -> .2 */
		0x45, 0x6a, 0, 0, 0, 0, 0x40, 0x00, 0x40, 0x11, 0, 0,
		198, 18, 0, 1, 198, 18, 0, 2,
		/* UDP 0xc000 -> 4791, checksum 0 */
		0xc0, 0x00, 0x12, 0xb7, 0, 0, 0, 0,
		/* BTH: RC RDMA WRITE ONLY, P_Key 0xffff, QP 0x11, AckReq */
		0x0a, 0x40, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0x12, 0x34, 0x56,
		/* RETH: VA, R_Key, DMA length (filled below) */
		0, 0, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 0,
	};
	uint32_t len = HDRS_LEN + payload + ROCE_ICRC_LEN, i, x = seed | 1;
	uint32_t ip_len = len - L3_OFF, udp_len = ip_len - 20;

	memcpy(f, hdr, HDRS_LEN);
	f[16] = ip_len >> 8;
	f[17] = ip_len & 0xff;
	f[38] = udp_len >> 8;
	f[39] = udp_len & 0xff;
	f[54 + 12] = payload >> 24;
	f[54 + 13] = payload >> 16;
	f[54 + 14] = payload >> 8;
	f[54 + 15] = payload & 0xff;
	f[L3_OFF + 11] = (uint8_t)seed;	/* different frames, same shape */
	for (i = 0; i < payload; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		f[HDRS_LEN + i] = (uint8_t)x;
	}
	if (roce_icrc_fill(f, L3_OFF, len) != 0)
		return 0;
	return len;
}

enum bench_kind {
	BENCH_MEMCPY,
	BENCH_NET_CRC,
	BENCH_ISAL_RAW,
	BENCH_ICRC_MBUF,
	BENCH_ICRC_CHAIN,
};

struct bench_ctx {
	struct rte_mbuf *flat[BENCH_FRAMES];
	struct rte_mbuf *chain[BENCH_FRAMES];
	uint8_t *dst;
	uint32_t len;
};

static volatile uint32_t bench_sink;

/* One pass over the frames; returns a value that depends on every byte. */
static uint32_t
bench_pass(const struct bench_ctx *c, enum bench_kind k)
{
	uint32_t acc = 0;
	unsigned int i;

	for (i = 0; i < BENCH_FRAMES; i++) {
		const struct rte_mbuf *m = c->flat[i];
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

		switch (k) {
		case BENCH_MEMCPY:
			memcpy(c->dst, p, c->len);
			acc += c->dst[c->len - 1];
			break;
		case BENCH_NET_CRC:
			acc += rte_net_crc_calc(p, c->len - ROCE_ICRC_LEN,
						RTE_NET_CRC32_ETH);
			break;
		case BENCH_ISAL_RAW:
			acc += crc32_gzip_refl(0, p, c->len - ROCE_ICRC_LEN);
			break;
		case BENCH_ICRC_MBUF:
			acc += roce_icrc_compute_mbuf(m, L3_OFF);
			break;
		case BENCH_ICRC_CHAIN:
			acc += roce_icrc_compute_mbuf(c->chain[i], L3_OFF);
			break;
		}
	}
	return acc;
}

static void
bench_row(const struct bench_ctx *c, enum bench_kind k, const char *label,
	  uint32_t time_ms)
{
	uint64_t hz = rte_get_tsc_hz(), start, stop, deadline, iters = 0;
	double secs, gbps, mpps;
	uint32_t acc = 0;

	acc += bench_pass(c, k);	/* warm up */
	start = rte_rdtsc_precise();
	deadline = start + hz * time_ms / 1000;
	do {
		acc += bench_pass(c, k);
		iters += BENCH_FRAMES;
		stop = rte_rdtsc_precise();
	} while (stop < deadline);
	bench_sink += acc;
	secs = (double)(stop - start) / (double)hz;
	gbps = (double)iters * c->len / secs / 1e9;
	mpps = (double)iters / secs / 1e6;
	printf(" %-36s %7u %12" PRIu64 " %16.2f %14.3f\n", label, c->len,
	       iters, gbps, mpps);
}

/* The best rte_net_crc algorithm usable here (mirrors rte_net_crc_set_alg). */
static const char *
net_crc_alg_name(void)
{
#ifdef RTE_ARCH_X86
	uint16_t simd = rte_vect_get_max_simd_bitwidth();

	if (simd >= RTE_VECT_SIMD_512 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512DQ) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) > 0)
		return "avx512";
	if (simd >= RTE_VECT_SIMD_128 &&
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0)
		return "sse42";
#endif
	return "scalar";
}

static int
run_bench(struct rte_mempool *mp, const struct options *o)
{
	struct bench_ctx c = { .len = 0 };
	const char *alg;
	char label[64];
	uint8_t *f;
	unsigned int i;
	int ret = -ENOMEM;

	f = malloc(MAX_FRAME);
	c.dst = rte_malloc("selfcheck_dst", MAX_FRAME, RTE_CACHE_LINE_SIZE);
	if (f == NULL || c.dst == NULL)
		goto out;
	for (i = 0; i < BENCH_FRAMES; i++) {
		c.len = build_write_frame(f, o->size, 0x9e3779b9u * (i + 1));
		if (c.len == 0) {
			ret = -EINVAL;
			goto out;
		}
		c.flat[i] = mbuf_from(mp, f, c.len, 0);
		c.chain[i] = mbuf_from(mp, f, c.len, BENCH_SEG);
		if (c.flat[i] == NULL || c.chain[i] == NULL)
			goto out;
		if (roce_icrc_verify_mbuf(c.flat[i], L3_OFF) != 0 ||
		    roce_icrc_verify_mbuf(c.chain[i], L3_OFF) != 0) {
			fprintf(stderr, PROG ": benchmark frame %u: bad ICRC\n",
				i);
			ret = -EBADMSG;
			goto out;
		}
	}
	/* The best algorithm this CPU and --force-max-simd-bitwidth allow
	 * (asking for AVX512 where it cannot run only logs a complaint).
	 */
	alg = net_crc_alg_name();
	rte_net_crc_set_alg(strcmp(alg, "avx512") == 0 ? RTE_NET_CRC_AVX512 :
			    strcmp(alg, "sse42") == 0 ? RTE_NET_CRC_SSE42 :
			    RTE_NET_CRC_SCALAR);

	printf("\nICRC throughput: lcore %u, %u frames of %u B cycled "
	       "(RC RDMA WRITE ONLY, %u B payload), %u ms each\n",
	       rte_lcore_id(), BENCH_FRAMES, c.len, o->size, o->time_ms);
	printf("---------------------------------------------------------------"
	       "-----------------------------\n");
	printf(" %-36s %7s %12s %16s %14s\n", "method", "#bytes",
	       "#iterations", "BW average[GB/s]", "MsgRate[Mpps]");
	bench_row(&c, BENCH_MEMCPY, "memcpy (same bytes)", o->time_ms);
	snprintf(label, sizeof(label), "rte_net_crc_calc CRC32_ETH (%s)", alg);
	bench_row(&c, BENCH_NET_CRC, label, o->time_ms);
	bench_row(&c, BENCH_ISAL_RAW, "isa-l crc32_gzip_refl (raw)",
		  o->time_ms);
	bench_row(&c, BENCH_ICRC_MBUF, "roce_icrc_compute_mbuf (1 seg)",
		  o->time_ms);
	snprintf(label, sizeof(label), "roce_icrc_compute_mbuf (%u-seg chain)",
		 c.chain[0]->nb_segs);
	bench_row(&c, BENCH_ICRC_CHAIN, label, o->time_ms);
	printf("---------------------------------------------------------------"
	       "-----------------------------\n");
	ret = 0;
out:
	if (ret == -ENOMEM)
		fprintf(stderr, PROG ": benchmark: out of memory\n");
	for (i = 0; i < BENCH_FRAMES; i++) {
		rte_pktmbuf_free(c.flat[i]);
		rte_pktmbuf_free(c.chain[i]);
	}
	rte_free(c.dst);
	free(f);
	return ret;
}

int
main(int argc, char **argv)
{
	struct options opt;
	struct rte_mempool *mp;
	struct frame *v = NULL;
	int ret, n = 0, fails, i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, PROG ": EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return rte_errno == EINVAL ? EXIT_USAGE : 1;
	}
	argc -= ret;
	argv += ret;
	ret = parse_args(argc, argv, &opt);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret;
	}

	ret = 1;
	mp = rte_pktmbuf_pool_create("selfcheck_pool", 1023, 64, 0, MBUF_ROOM,
				     rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, PROG ": mbuf pool: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	n = load_vectors(opt.vectors, &v);
	if (n < 0) {
		n = 0;
		goto out;
	}
	fails = check_vectors(mp, opt.vectors, v, n);
	if (opt.bench && run_bench(mp, &opt) != 0)
		goto out;
	ret = fails == 0 ? 0 : 1;
	printf("\n" PROG ": %s\n", ret == 0 ? "PASS" : "FAIL");
out:
	for (i = 0; i < n; i++)
		free(v[i].data);
	free(v);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return ret;
}
