/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce-bound: the physical bound of the receive path on one core.
 *
 * Per received byte a RoCEv2 responder must at least verify the ICRC over
 * the frame (ISA-L CRC-32, IBTA annex A17) and copy the payload once into
 * the registered target buffer. This loop does exactly that, and nothing
 * else, over real RC RDMA WRITE ONLY frames built by roce_build.c: frames
 * cycle through a source set of --frames frames (as mbufs cycle through a
 * pool) and payloads land in a registered-buffer-sized target of --slots
 * slots. It also times a plain copy of the same payloads and the ICRC
 * alone. The copy is the responder's (rte_memcpy(), as mbuf_copy_out() in
 * roce_resp.c): glibc's memcpy() takes "rep movsb" for 4 KB on the EPYCs
 * here, 9 % slower into a target in cache and 30-50 % slower into 64 MiB
 * of them, so a bound timed with it was below what the responder does. Results are payload bytes per second (GB/s = 1e9 B/s, Gb/s =
 * 1e9 bit/s) and frames per second.
 *
 * No EAL: the clock is CLOCK_MONOTONIC. One JSON object per measurement
 * on stdout; exit status 0, 1 when a frame fails its ICRC, 2 on a bad
 * option.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_memcpy.h>

#include "bench_frame.h"
#include "bench_opt.h"
#include "roce_icrc.h"

struct bound_opts {
	uint32_t payload;
	uint32_t frames;
	uint32_t slots;
	double seconds;
	int cpu;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep the compiler from dropping work whose result is otherwise unused. */
static volatile uint32_t sink;

enum bound_kind { BOUND_MEMCPY, BOUND_ICRC, BOUND_ICRC_COPY };

static const char *const kind_name[] = {
	[BOUND_MEMCPY] = "memcpy",
	[BOUND_ICRC] = "icrc",
	[BOUND_ICRC_COPY] = "icrc_copy",
};

/*
 * Run @p kind for about @p seconds; returns frames processed and the
 * elapsed time in @p elapsed. -1 when a frame fails its ICRC.
 */
static int64_t
bound_run(enum bound_kind kind, uint8_t *const *frame, uint32_t flen,
	  uint32_t hlen, uint32_t payload, uint32_t nframes, uint8_t *dst,
	  uint32_t slots, double seconds, double *elapsed)
{
	double t0 = now_s(), t;
	uint64_t n = 0;
	uint32_t acc = 0, i;

	do {
		/* a chunk between clock reads */
		for (i = 0; i < 256; i++, n++) {
			const uint8_t *f = frame[n % nframes];
			uint8_t *d = dst + (n % slots) * (uint64_t)payload;

			switch (kind) {
			case BOUND_MEMCPY:
				rte_memcpy(d, f + hlen, payload);
				break;
			case BOUND_ICRC:
				if (roce_icrc_verify(f, ROCE_ETH_HLEN, flen) != 0)
					return -1;
				acc += f[hlen];
				break;
			case BOUND_ICRC_COPY:
				if (roce_icrc_verify(f, ROCE_ETH_HLEN, flen) != 0)
					return -1;
				rte_memcpy(d, f + hlen, payload);
				break;
			}
		}
		t = now_s();
	} while (t - t0 < seconds);
	sink = acc + dst[(n - 1) % slots * (uint64_t)payload];
	*elapsed = t - t0;
	return (int64_t)n;
}

static int
parse_opts(int argc, char **argv, struct bound_opts *o)
{
	static const struct option lo[] = {
		{ "payload", required_argument, NULL, 'p' },
		{ "frames", required_argument, NULL, 'f' },
		{ "slots", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const char tool[] = "roce-bound";
	int c;

	o->payload = 4096;
	o->frames = 512;
	o->slots = 128;
	o->seconds = 1.0;
	o->cpu = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		uint32_t cpu;
		int r;

		switch (c) {
		case 't':
			r = bench_opt_seconds(tool, optarg, &o->seconds);
			break;
		case 'p':
			r = bench_opt_u32(tool, "--payload", optarg, 1, 4096,
					  &o->payload);
			break;
		case 'f':
			r = bench_opt_u32(tool, "--frames", optarg, 1, 65536,
					  &o->frames);
			break;
		case 's':
			r = bench_opt_u32(tool, "--slots", optarg, 1, 65536,
					  &o->slots);
			break;
		case 'c':
			r = bench_opt_u32(tool, "--cpu", optarg, 0, 65536, &cpu);
			if (r == 0)
				o->cpu = (int)cpu;
			break;
		default:
			fprintf(stderr, "usage: %s [--payload 1..4096] [--frames N] [--slots N] [--seconds S] [--cpu N]\n",
				argv[0]);
			return -1;
		}
		if (r != 0)
			return -1;
	}
	return optind == argc ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct bound_opts o;
	struct roce_hdr_fields f;
	uint8_t **frame, *dst;
	uint32_t hlen, flen, pad, i;
	int k, ret = 0;

	if (parse_opts(argc, argv, &o) != 0)
		return 2;
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			fprintf(stderr, "roce-bound: cannot pin to cpu %d\n",
				o.cpu);
	}
	/* an RC RDMA WRITE ONLY frame over IPv4, as the loopback sends */
	bench_write_only_fields(&f, o.payload);
	hlen = (uint32_t)roce_build_hdr_len(&f);
	pad = -o.payload & 3;
	flen = hlen + o.payload + pad + ROCE_ICRC_LEN;
	frame = calloc(o.frames, sizeof(*frame));
	dst = aligned_alloc(4096, RTE_ALIGN_CEIL((uint64_t)o.slots * o.payload,
						 4096));
	if (frame == NULL || dst == NULL)
		return 1;
	memset(dst, 0, (uint64_t)o.slots * o.payload);
	for (i = 0; i < o.frames; i++) {
		frame[i] = aligned_alloc(64, RTE_ALIGN_CEIL(flen + 128, 64));
		if (frame[i] == NULL)
			return 1;
		f.psn = i;
		if (roce_build_hdr(frame[i], flen, &f, o.payload) !=
		    (int)hlen)
			return 1;
		for (uint32_t b = 0; b < o.payload; b++)
			frame[i][hlen + b] = (uint8_t)(b * 13 + i);
		memset(frame[i] + hlen + o.payload, 0, pad + ROCE_ICRC_LEN);
		if (roce_icrc_fill(frame[i], ROCE_ETH_HLEN, flen) != 0)
			return 1;
	}
	for (k = BOUND_MEMCPY; k <= BOUND_ICRC_COPY; k++) {
		double el;
		int64_t n = bound_run(k, frame, flen, hlen, o.payload, o.frames,
				      dst, o.slots, o.seconds, &el);

		if (n < 0) {
			fprintf(stderr, "roce-bound: ICRC check failed\n");
			ret = 1;
			break;
		}
		printf("{\"name\": \"bound_%s\", \"payload\": %u, \"frame\": %u, "
		       "\"frames\": %" PRId64 ", \"seconds\": %.3f, "
		       "\"gbytes_per_s\": %.3f, \"gbps\": %.3f, \"mpps\": %.3f}\n",
		       kind_name[k], o.payload, flen, n, el,
		       (double)n * o.payload / el / 1e9,
		       (double)n * o.payload * 8 / el / 1e9,
		       (double)n / el / 1e6);
	}
	for (i = 0; i < o.frames; i++)
		free(frame[i]);
	free(frame);
	free(dst);
	return ret;
}
