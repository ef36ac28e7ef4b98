/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The XDP steering program (lib/ernic_pmd/xdp/ernic_roce_steer.bpf.o, path
 * in $ERNIC_XDP_OBJ) loaded with libbpf (the verifier accepts it) and run
 * with bpf_prog_test_run_opts() over every frame of ../shared/vectors, over
 * truncated copies of each at every length, and over variants: other
 * addresses, other UDP ports, TCP, fragments, IP options, VLAN tags, ARP,
 * IPv6 ND. An AF_XDP socket bound to "lo" fills xsks_map so that the
 * redirect has a target (the test run does not deliver frames).
 * Exits 77 (skipped) only when this process may not load BPF programs or
 * create AF_XDP sockets.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "test_common.h"
#include "ernic_xdp_maps.h"

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

enum { SKIP = 77, FRAME_MAX = 2048, OUT_MAX = 16384 };

static struct bpf_object *obj;
static int prog_fd = -1, local_fd = -1, xsks_fd = -1, cnt_fd = -1;
static int xsk_fd = -1;
static void *umem;
static struct test_vector *vec, *mads;
static int nvec, nmads;
/*
 * Longest frame the test run hands to the program in one buffer (past it
 * the kernel makes a multi-buffer frame that a single-buffer program sees
 * only the head of; devices do not attach such programs at MTUs that
 * large). Measured by linear_max().
 */
static size_t lin_max;

/* ---- helpers --------------------------------------------------------- */

static int
run(const uint8_t *f, size_t len)
{
	static uint8_t out[OUT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, t,
		.data_in = f,
		.data_size_in = (uint32_t)len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = 1);
	int ret = bpf_prog_test_run_opts(prog_fd, &t);

	return ret != 0 ? -errno : (int)t.retval;
}

static void
addr_key(struct ernic_xdp_addr *k, const char *ip)
{
	memset(k, 0, sizeof(*k));
	if (inet_pton(AF_INET, ip, k->a + 12) == 1) {
		k->a[10] = 0xff;
		k->a[11] = 0xff;
	} else if (inet_pton(AF_INET6, ip, k->a) != 1) {
		CU_FAIL_FATAL("bad address in the test");
	}
}

static void
local_clear(void)
{
	struct ernic_xdp_addr k, next;

	while (bpf_map_get_next_key(local_fd, NULL, &next) == 0) {
		k = next;
		CU_ASSERT_FATAL(bpf_map_delete_elem(local_fd, &k) == 0);
	}
}

static void
local_add(const char *ip, uint16_t vlan, uint16_t flags)
{
	struct ernic_xdp_addr k;
	struct ernic_xdp_local v = { .vlan = vlan, .flags = flags };

	addr_key(&k, ip);
	CU_ASSERT_FATAL(bpf_map_update_elem(local_fd, &k, &v, BPF_ANY) == 0);
}

static void
local_default(void)
{
	local_clear();
	local_add("198.18.0.2", 0, ERNIC_XDP_F_ROCE);
	local_add("2001:db8::2", 0, ERNIC_XDP_F_ROCE);
}

static uint64_t
counter(unsigned int c)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[1024], sum = 0;
	uint32_t k = c;
	int i;

	CU_ASSERT_FATAL(ncpu > 0 && ncpu <= 1024);
	CU_ASSERT_FATAL(bpf_map_lookup_elem(cnt_fd, &k, v) == 0);
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Length of Ethernet + IP datagram of an untagged frame, 0: not IP. */
static size_t
ip_end(const uint8_t *f)
{
	if (be16(f + 12) == 0x0800)
		return 14 + be16(f + 16);
	if (be16(f + 12) == 0x86dd)
		return 14 + 40 + be16(f + 18);
	return 0;
}

/* Whether the frame's destination is one of the default local addresses. */
static bool
dst_is_default_local(const uint8_t *f)
{
	static const uint8_t v4[4] = { 198, 18, 0, 2 };
	uint8_t v6[16];

	inet_pton(AF_INET6, "2001:db8::2", v6);
	if (be16(f + 12) == 0x0800)
		return memcmp(f + 14 + 16, v4, 4) == 0;
	return memcmp(f + 14 + 24, v6, 16) == 0;
}

static const struct test_vector *
first_of(uint16_t ethertype)
{
	int i;

	for (i = 0; i < nvec; i++)
		if (vec[i].len >= 14 && be16(vec[i].data + 12) == ethertype)
			return &vec[i];
	return NULL;
}

/* Copy @p v into @p f with an 802.1Q tag (TPID @p tpid, VID @p vid). */
static size_t
tagged(uint8_t *f, const struct test_vector *v, uint16_t tpid, uint16_t vid)
{
	memcpy(f, v->data, 12);
	f[12] = (uint8_t)(tpid >> 8);
	f[13] = (uint8_t)tpid;
	f[14] = (uint8_t)(vid >> 8);
	f[15] = (uint8_t)vid;
	memcpy(f + 16, v->data + 12, v->len - 12);
	return v->len + 4;
}

/*
 * The largest N for which an IPv4 RoCE frame of N bytes, consistent in
 * its IP and UDP lengths, is redirected: the single-buffer limit.
 */
static size_t
linear_max(void)
{
	const struct test_vector *big = NULL;
	static uint8_t f[FRAME_MAX * 4];
	struct ernic_xdp_addr k;
	struct ernic_xdp_local v = { .vlan = 0, .flags = ERNIC_XDP_F_ROCE };
	size_t n, best = 0;
	int i;

	for (i = 0; i < nvec; i++)
		if (be16(vec[i].data + 12) == 0x0800 &&
		    (big == NULL || vec[i].len > big->len))
			big = &vec[i];
	if (big == NULL || big->len > sizeof(f))
		return 0;
	addr_key(&k, "198.18.0.2");
	if (bpf_map_update_elem(local_fd, &k, &v, BPF_ANY) != 0)
		return 0;
	memcpy(f, big->data, big->len);
	for (n = 64; n <= big->len; n++) {
		f[16] = (uint8_t)((n - 14) >> 8);
		f[17] = (uint8_t)(n - 14);
		f[38] = (uint8_t)((n - 34) >> 8);
		f[39] = (uint8_t)(n - 34);
		if (run(f, n) == XDP_REDIRECT)
			best = n;
		else
			break;
	}
	bpf_map_delete_elem(local_fd, &k);
	return best;
}

/* ---- setup: load, XSK on lo ------------------------------------------ */

static int
xsk_on_lo(void)
{
	struct xdp_umem_reg mr;
	struct sockaddr_xdp sa;
	int n = 64, q = 0;

	umem = mmap(NULL, 64 * 2048, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (umem == MAP_FAILED)
		return -errno;
	xsk_fd = socket(AF_XDP, SOCK_RAW, 0);
	if (xsk_fd < 0)
		return -errno;
	memset(&mr, 0, sizeof(mr));
	mr.addr = (uintptr_t)umem;
	mr.len = 64 * 2048;
	mr.chunk_size = 2048;
	if (setsockopt(xsk_fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) != 0 ||
	    setsockopt(xsk_fd, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof(n)) ||
	    setsockopt(xsk_fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n,
		       sizeof(n)) ||
	    setsockopt(xsk_fd, SOL_XDP, XDP_RX_RING, &n, sizeof(n)) != 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sxdp_family = AF_XDP;
	sa.sxdp_ifindex = if_nametoindex("lo");
	sa.sxdp_queue_id = 0;
	sa.sxdp_flags = XDP_COPY;
	if (bind(xsk_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -errno;
	if (bpf_map_update_elem(xsks_fd, &q, &xsk_fd, BPF_ANY) != 0)
		return -errno;
	return 0;
}

static int
setup(void)
{
	const char *path = getenv("ERNIC_XDP_OBJ");
	struct bpf_program *prog;
	int ret;

	if (path == NULL) {
		fprintf(stderr, "test_xdp: ERNIC_XDP_OBJ is not set\n");
		return 1;
	}
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(path, NULL);
	if (obj == NULL) {
		fprintf(stderr, "test_xdp: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	ret = bpf_object__load(obj);
	if (ret == -EPERM || ret == -EACCES) {
		printf("test_xdp: skipped: loading BPF programs is not permitted here (%s)\n",
		       strerror(-ret));
		return SKIP;
	}
	if (ret != 0) {
		fprintf(stderr, "test_xdp: %s rejected (verifier?): %s\n",
			path, strerror(-ret));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, "ernic_roce_steer");
	prog_fd = prog != NULL ? bpf_program__fd(prog) : -1;
	local_fd = bpf_object__find_map_fd_by_name(obj, ERNIC_XDP_LOCAL_MAP);
	xsks_fd = bpf_object__find_map_fd_by_name(obj, ERNIC_XDP_XSKS_MAP);
	cnt_fd = bpf_object__find_map_fd_by_name(obj, ERNIC_XDP_CNT_MAP);
	if (prog_fd < 0 || local_fd < 0 || xsks_fd < 0 || cnt_fd < 0) {
		fprintf(stderr, "test_xdp: program or maps missing in %s\n",
			path);
		return 1;
	}
	ret = xsk_on_lo();
	if (ret == -EPERM || ret == -EACCES || ret == -EAFNOSUPPORT) {
		printf("test_xdp: skipped: no AF_XDP socket here (%s)\n",
		       strerror(-ret));
		return SKIP;
	}
	if (ret != 0) {
		fprintf(stderr, "test_xdp: AF_XDP socket on lo: %s\n",
			strerror(-ret));
		return 1;
	}
	nvec = test_load_vectors("rocev2-frames.hex", &vec);
	nmads = test_load_vectors("rxe-cm-mads.hex", &mads);
	if (nvec <= 0 || nmads <= 0) {
		fprintf(stderr, "test_xdp: vectors not found\n");
		return 1;
	}
	lin_max = linear_max();
	printf("test_xdp: single-buffer XDP frames up to %zu bytes\n", lin_max);
	/* at least a 1500-byte MTU frame with a VLAN tag */
	if (lin_max < 1518 + 4) {
		fprintf(stderr, "test_xdp: a consistent RoCE frame of 1522 bytes is not redirected\n");
		return 1;
	}
	return 0;
}

/* ---- tests ----------------------------------------------------------- */

static void
test_vectors_local(void)
{
	uint64_t r0 = counter(ERNIC_XDP_CNT_REDIRECT_ROCE);
	unsigned int nredir = 0, npass = 0;
	int i, want;

	local_default();
	for (i = 0; i < nvec; i++) {
		/* beyond one buffer the program sees a cut frame: passed */
		want = vec[i].len <= lin_max ? XDP_REDIRECT : XDP_PASS;
		CU_ASSERT_EQUAL(run(vec[i].data, vec[i].len), want);
		if (want == XDP_REDIRECT)
			nredir++;
	}
	/* CM MADs (QP1) both ways between 198.18.0.2 and 198.18.0.3 */
	for (i = 0; i < nmads; i++) {
		want = dst_is_default_local(mads[i].data) ? XDP_REDIRECT :
			XDP_PASS;
		CU_ASSERT_EQUAL(run(mads[i].data, mads[i].len), want);
		if (want == XDP_REDIRECT)
			nredir++;
		else
			npass++;
	}
	CU_ASSERT(npass > 0);	/* the vectors hold both directions */
	CU_ASSERT_EQUAL(counter(ERNIC_XDP_CNT_REDIRECT_ROCE) - r0, nredir);
}

static void
test_vectors_other_address(void)
{
	int i;

	local_clear();
	local_add("198.18.0.3", 0, ERNIC_XDP_F_ROCE | ERNIC_XDP_F_NEIGH);
	local_add("2001:db8::3", 0, ERNIC_XDP_F_ROCE);
	/* the source address is not ours either */
	local_add("198.18.0.1", 0, ERNIC_XDP_F_ROCE);
	local_add("2001:db8::1", 0, ERNIC_XDP_F_ROCE);
	for (i = 0; i < nvec; i++)
		CU_ASSERT_EQUAL(run(vec[i].data, vec[i].len), XDP_PASS);
	/* an entry without ERNIC_XDP_F_ROCE steers no RoCE */
	local_clear();
	local_add("198.18.0.2", 0, ERNIC_XDP_F_NEIGH);
	local_add("2001:db8::2", 0, ERNIC_XDP_F_NEIGH);
	for (i = 0; i < nvec; i++)
		CU_ASSERT_EQUAL(run(vec[i].data, vec[i].len), XDP_PASS);
	/* empty map */
	local_clear();
	for (i = 0; i < nvec; i++)
		CU_ASSERT_EQUAL(run(vec[i].data, vec[i].len), XDP_PASS);
}

static void
test_truncated(void)
{
	unsigned int runs = 0, bad = 0;
	size_t len, end;
	int i, r;

	local_default();
	for (i = 0; i < nvec; i++) {
		end = ip_end(vec[i].data);
		CU_ASSERT_FATAL(end > 0 && end <= vec[i].len);
		for (len = 0; len < vec[i].len; len++) {
			r = run(vec[i].data, len);
			/* the kernel refuses test runs shorter than Ethernet */
			if (len < 14) {
				CU_ASSERT(r == -EINVAL || r == XDP_PASS);
				continue;
			}
			runs++;
			if (r != (len < end || len > lin_max ? XDP_PASS :
				  XDP_REDIRECT)) {
				bad++;
				printf("  %s cut at %zu: verdict %d\n",
				       vec[i].name, len, r);
			}
		}
	}
	CU_ASSERT(runs > 1000);
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_not_roce(void)
{
	const struct test_vector *v4 = first_of(0x0800), *v6 = first_of(0x86dd);
	uint8_t f[FRAME_MAX];

	CU_ASSERT_FATAL(v4 != NULL && v6 != NULL);
	CU_ASSERT_FATAL(v4->len + 8 <= sizeof(f) && v6->len <= sizeof(f));
	local_default();

	/* IPv4: the unchanged frame is ours */
	memcpy(f, v4->data, v4->len);
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_REDIRECT);
	f[14 + 20 + 3] ^= 1;			/* UDP dport 4790 */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[14 + 9] = 6;				/* TCP */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	f[14 + 9] = 1;				/* ICMP */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[14 + 6] |= 0x20;			/* more fragments */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[14 + 7] = 0x10;			/* fragment offset */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[14] = 0x44;				/* IHL 4 */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	f[14] = 0x65;				/* version 6 in an IPv4 frame */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[14 + 20 + 4] = 0;			/* UDP length 23: no BTH+ICRC */
	f[14 + 20 + 5] = 23;
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	f[14 + 20 + 4] = 0xff;			/* UDP length past the datagram */
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);
	memcpy(f, v4->data, v4->len);
	f[12] = 0x88;				/* another ethertype (LLDP) */
	f[13] = 0xcc;
	CU_ASSERT_EQUAL(run(f, v4->len), XDP_PASS);

	/* IPv4 with 4 bytes of options (IHL 6): still ours */
	memcpy(f, v4->data, 14 + 20);
	memset(f + 14 + 20, 1, 4);		/* NOPs */
	memcpy(f + 14 + 24, v4->data + 14 + 20, v4->len - 14 - 20);
	f[14] = 0x46;
	f[14 + 2] = (uint8_t)((be16(v4->data + 16) + 4) >> 8);
	f[14 + 3] = (uint8_t)(be16(v4->data + 16) + 4);
	CU_ASSERT_EQUAL(run(f, v4->len + 4), XDP_REDIRECT);
	CU_ASSERT_EQUAL(run(f, v4->len + 3), XDP_PASS);

	/* IPv6 */
	memcpy(f, v6->data, v6->len);
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_REDIRECT);
	f[14 + 6] = 6;				/* TCP */
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_PASS);
	f[14 + 6] = 0;				/* hop-by-hop header */
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_PASS);
	memcpy(f, v6->data, v6->len);
	f[14 + 40 + 3] ^= 1;			/* UDP dport */
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_PASS);
	memcpy(f, v6->data, v6->len);
	f[14] = 0x45;				/* version 4 in an IPv6 frame */
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_PASS);
	memcpy(f, v6->data, v6->len);
	f[14 + 6] = 58;				/* ICMPv6 echo request */
	f[14 + 40] = 128;
	CU_ASSERT_EQUAL(run(f, v6->len), XDP_PASS);
}

static void
test_vlan(void)
{
	const struct test_vector *v4 = first_of(0x0800), *v6 = first_of(0x86dd);
	uint8_t f[FRAME_MAX];
	size_t n, l;

	CU_ASSERT_FATAL(v4 != NULL && v6 != NULL);
	local_default();
	n = tagged(f, v4, 0x8100, 0);		/* priority tag: ours */
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = tagged(f, v6, 0x8100, 0x2000);	/* PCP 1, VID 0 */
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = tagged(f, v4, 0x8100, 7);		/* another VLAN */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = tagged(f, v4, 0x88a8, 0);		/* 802.1ad: not a single tag */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	/* truncated in and after the tag */
	n = tagged(f, v4, 0x8100, 0);
	for (l = 14; l < 14 + 4 + 20 + 8; l++)
		CU_ASSERT_EQUAL(run(f, l), XDP_PASS);

	local_clear();
	local_add("198.18.0.2", 7, ERNIC_XDP_F_ROCE);
	local_add("2001:db8::2", 7, ERNIC_XDP_F_ROCE);
	n = tagged(f, v4, 0x8100, 7);
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = tagged(f, v6, 0x8100, 0xe007);	/* PCP 7, VID 7 */
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = tagged(f, v4, 0x8100, 8);
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	CU_ASSERT_EQUAL(run(v4->data, v4->len), XDP_PASS);	/* untagged */
	n = tagged(f, v4, 0x8100, 0);
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
}

static size_t
arp_frame(uint8_t *f, uint16_t op, const char *tpa)
{
	static const uint8_t arp_hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 0 };
	size_t n = 14 + 28;

	memset(f, 0, 60);
	memset(f, 0xff, 6);
	f[6] = 2;
	f[11] = 3;
	f[12] = 0x08;
	f[13] = 0x06;
	memcpy(f + 14, arp_hdr, 8);
	f[14 + 7] = (uint8_t)op;
	f[14 + 8] = 2;				/* sha 02:...:03 */
	f[14 + 13] = 3;
	inet_pton(AF_INET, "198.18.0.3", f + 14 + 14);
	inet_pton(AF_INET, tpa, f + 14 + 24);
	return n < 60 ? 60 : n;
}

static size_t
nd_frame(uint8_t *f, uint8_t type, const char *target)
{
	size_t n = 14 + 40 + 24 + 8;

	memset(f, 0, n);
	f[0] = 0x33;
	f[1] = 0x33;
	f[2] = 0xff;
	f[6] = 2;
	f[11] = 3;
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 5] = 32;				/* payload length */
	f[14 + 6] = 58;
	f[14 + 7] = 255;
	inet_pton(AF_INET6, "2001:db8::3", f + 14 + 8);
	inet_pton(AF_INET6, "ff02::1:ff00:2", f + 14 + 24);
	f[14 + 40] = type;
	inet_pton(AF_INET6, target, f + 14 + 40 + 8);
	f[14 + 40 + 24] = 1;			/* source LLA option */
	f[14 + 40 + 25] = 1;
	f[14 + 40 + 26] = 2;
	f[14 + 40 + 31] = 3;
	return n;
}

static void
test_arp_nd(void)
{
	uint8_t f[FRAME_MAX];
	size_t n, l;

	/* addresses the kernel holds: ARP and ND stay with the kernel */
	local_default();
	n = arp_frame(f, 1, "198.18.0.2");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = arp_frame(f, 2, "198.18.0.2");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = nd_frame(f, 135, "2001:db8::2");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = nd_frame(f, 136, "2001:db8::2");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	/* an NA to the kernel's address (answering its NS): the kernel's */
	n = nd_frame(f, 136, "2001:db8::9");
	inet_pton(AF_INET6, "2001:db8::2", f + 14 + 24);
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);

	/* ernic-only addresses: their ARP and ND go to net_ernic */
	local_clear();
	local_add("198.18.0.2", 0, ERNIC_XDP_F_ROCE | ERNIC_XDP_F_NEIGH);
	local_add("2001:db8::2", 0, ERNIC_XDP_F_ROCE | ERNIC_XDP_F_NEIGH);
	n = arp_frame(f, 1, "198.18.0.2");
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = arp_frame(f, 2, "198.18.0.2");
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	for (l = 14; l < 14 + 28; l++)		/* truncated ARP */
		CU_ASSERT_EQUAL(run(f, l), XDP_PASS);
	n = arp_frame(f, 1, "198.18.0.9");	/* someone else's */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = arp_frame(f, 1, "198.18.0.2");
	f[14 + 1] = 6;				/* not Ethernet ARP */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = nd_frame(f, 135, "2001:db8::2");
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	for (l = 14; l < n - 8; l++)		/* truncated NS */
		CU_ASSERT_EQUAL(run(f, l), XDP_PASS);
	n = nd_frame(f, 136, "2001:db8::2");
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	n = nd_frame(f, 135, "2001:db8::9");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	/* the NA answering net_ernic's NS: to its address, target the peer */
	n = nd_frame(f, 136, "2001:db8::9");
	inet_pton(AF_INET6, "2001:db8::2", f + 14 + 24);
	CU_ASSERT_EQUAL(run(f, n), XDP_REDIRECT);
	inet_pton(AF_INET6, "2001:db8::7", f + 14 + 24);	/* someone else's */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	n = nd_frame(f, 133, "2001:db8::2");	/* router solicitation */
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
	/* the VLAN rule holds for ARP too */
	local_clear();
	local_add("198.18.0.2", 5, ERNIC_XDP_F_ROCE | ERNIC_XDP_F_NEIGH);
	n = arp_frame(f, 1, "198.18.0.2");
	CU_ASSERT_EQUAL(run(f, n), XDP_PASS);
}

static void
test_no_socket(void)
{
	const struct test_vector *v4 = first_of(0x0800);
	uint32_t q = 0;

	CU_ASSERT_FATAL(v4 != NULL);
	local_default();
	CU_ASSERT_EQUAL(run(v4->data, v4->len), XDP_REDIRECT);
	/* no socket on the queue: the redirect falls back to the kernel */
	CU_ASSERT_FATAL(bpf_map_delete_elem(xsks_fd, &q) == 0);
	CU_ASSERT_EQUAL(run(v4->data, v4->len), XDP_PASS);
	CU_ASSERT_FATAL(bpf_map_update_elem(xsks_fd, &q, &xsk_fd, BPF_ANY) == 0);
	CU_ASSERT_EQUAL(run(v4->data, v4->len), XDP_REDIRECT);
}

static CU_TestInfo xdp_tests[] = {
	{ "every vector to a local address is redirected", test_vectors_local },
	{ "vectors to other addresses pass", test_vectors_other_address },
	{ "truncated copies at every length pass", test_truncated },
	{ "TCP, ICMP, other UDP, fragments, options", test_not_roce },
	{ "VLAN tags", test_vlan },
	{ "ARP and ND", test_arp_nd },
	{ "no AF_XDP socket on the queue", test_no_socket },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "xdp steering", NULL, NULL, NULL, NULL, xdp_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	int ret;

	ret = test_eal_init(argc, argv);
	if (ret != 0)
		return 1;
	ret = setup();
	if (ret != 0)
		return ret;
	ret = test_run(suites);
	if (xsk_fd >= 0)
		close(xsk_fd);
	bpf_object__close(obj);
	return ret;
}
