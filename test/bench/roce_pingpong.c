/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce-pingpong: the latency floor of the machine for the loopback's
 * write_lat, measured beside it.
 *
 * write_lat over the loopback is a ping-pong between two polling threads,
 * one per core, through memory: each side waits for the other's write.
 * This does the same with nothing else: two threads pinned to --cpu A and
 * B bounce a counter through one cache line each way, --iters times, and
 * report half of each round trip as write_lat does (t_typical = median,
 * 99 %, 99.9 %, max). With --work-ns N each side also spins N ns before it
 * answers, so that the run lasts as long as the write_lat it is compared
 * with (a tail is made of events per second: timer ticks, hypervisor
 * exits, the other workloads of a shared host; a shorter run meets fewer of
 * them per sample). No RDMA stack on those two cores does better than
 * that tail.
 *
 * No EAL: the clock is CLOCK_MONOTONIC (vDSO). One JSON object on stdout;
 * exit status 0, 1 on a system error, 2 on a bad option.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_opt.h"

#define LINE 64

struct pp_opts {
	uint32_t iters;
	uint32_t work_ns;
	int cpu[2];
};

/* The two directions on separate lines: each is written by one side. */
struct pp_shared {
	alignas(LINE) volatile uint64_t ping;
	alignas(LINE) volatile uint64_t pong;
	alignas(LINE) int cpu;
	uint32_t iters;
	uint32_t work_ns;
	int pin_failed;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The stand-in for a side's own work per message. */
static void
spin_ns(uint32_t ns)
{
	uint64_t end;

	if (ns == 0)
		return;
	end = now_ns() + ns;
	while (now_ns() < end)
		;
}

static int
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* The answering side: echo every ping. */
static void *
ponger(void *arg)
{
	struct pp_shared *s = arg;
	uint64_t i;

	if (pin(s->cpu) != 0)
		s->pin_failed = 1;
	for (i = 1; i <= s->iters; i++) {
		while (s->ping != i)
			__builtin_ia32_pause();
		spin_ns(s->work_ns);
		s->pong = i;
	}
	return NULL;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
parse_opts(int argc, char **argv, struct pp_opts *o)
{
	static const struct option lo[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "work-ns", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v, w;
	char *end;
	int c;

	o->iters = 100000;
	o->work_ns = 0;
	o->cpu[0] = 0;
	o->cpu[1] = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (bench_opt_u32("roce-pingpong", "--iters", optarg,
					  1000, 100000000, &o->iters) != 0)
				return -1;
			continue;
		case 'w':
			if (bench_opt_u32("roce-pingpong", "--work-ns", optarg,
					  0, 1000000, &o->work_ns) != 0)
				return -1;
			continue;
		case 'c':
			v = strtoul(optarg, &end, 0);
			if (*optarg == '\0' || *end != ',' || v >= CPU_SETSIZE)
				goto bad_cpu;
			w = strtoul(end + 1, &end, 0);
			if (*end != '\0' || w >= CPU_SETSIZE || w == v)
				goto bad_cpu;
			o->cpu[0] = (int)v;
			o->cpu[1] = (int)w;
			continue;
		default:
			goto usage;
		}
bad_cpu:
		fprintf(stderr, "roce-pingpong: bad --cpu '%s': expected A,B (two different CPUs)\n",
			optarg);
		return -1;
	}
	if (optind == argc)
		return 0;
usage:
	fprintf(stderr, "usage: %s [--iters N] [--cpu A,B] [--work-ns N]\n",
		argv[0]);
	return -1;
}

int
main(int argc, char **argv)
{
	static struct pp_shared s;
	struct pp_opts o;
	pthread_t t;
	uint64_t *half, t0, t1, i, start;
	int ret;

	if (parse_opts(argc, argv, &o) != 0)
		return 2;
	half = malloc(sizeof(*half) * o.iters);
	if (half == NULL)
		return 1;
	memset(&s, 0, sizeof(s));
	s.cpu = o.cpu[1];
	s.iters = o.iters;
	s.work_ns = o.work_ns;
	if (pin(o.cpu[0]) != 0) {
		fprintf(stderr, "roce-pingpong: cannot pin to cpu %d\n",
			o.cpu[0]);
		return 1;
	}
	ret = pthread_create(&t, NULL, ponger, &s);
	if (ret != 0) {
		fprintf(stderr, "roce-pingpong: pthread_create: %s\n",
			strerror(ret));
		return 1;
	}
	start = now_ns();
	for (i = 1; i <= o.iters; i++) {
		t0 = now_ns();
		spin_ns(o.work_ns);
		s.ping = i;
		while (s.pong != i)
			__builtin_ia32_pause();
		t1 = now_ns();
		half[i - 1] = t1 - t0;
	}
	pthread_join(t, NULL);
	if (s.pin_failed) {
		fprintf(stderr, "roce-pingpong: cannot pin to cpu %d\n",
			o.cpu[1]);
		return 1;
	}
	qsort(half, o.iters, sizeof(*half), cmp_u64);
	/* perftest's rules: median, and the sample at 99 % / 99.9 % of N */
	printf("{\"name\": \"bound_pingpong\", \"iters\": %u, \"cpus\": [%d, %d], "
	       "\"work_ns\": %u, \"seconds\": %.3f, "
	       "\"lat_typical_us\": %.3f, \"lat_99_us\": %.3f, "
	       "\"lat_999_us\": %.3f, \"lat_max_us\": %.3f}\n",
	       o.iters, o.cpu[0], o.cpu[1], o.work_ns,
	       (now_ns() - start) / 1e9,
	       half[o.iters / 2] / 2e3,
	       half[(uint64_t)o.iters * 99 / 100] / 2e3,
	       half[(uint64_t)o.iters * 999 / 1000] / 2e3,
	       half[o.iters - 1] / 2e3);
	free(half);
	return 0;
}
