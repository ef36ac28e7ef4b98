/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap_icrc_check: verify a capture of RoCEv2 traffic with softernic's own
 * wire layer (lib/roce): every UDP/4791 frame must pass roce_parse() and
 * roce_icrc_verify_mbuf(). Used by the interop suite on the capture of each
 * case (test/interop/run-case.sh) and checked itself by the
 * pcapcheck_selftest case.
 *
 *   pcap_icrc_check [--min N] [--require-src IP]... [--no-srx] [-v] FILE.pcap
 *
 * --min N           at least N RoCEv2 frames (default 1)
 * --no-srx          fail on any frame carrying softernic's selective
 *                   repeat extension (BTH bit 30, roce_sr.h): a peer that
 *                   is not softernic never negotiates it
 * --require-src IP  at least one RoCEv2 frame from IP, an IPv4 or an IPv6
 *                   address (repeatable): proves that both ends' frames
 *                   were seen and verified
 * -v                one line per RoCEv2 frame
 *
 * Frames that are not RoCEv2 (roce_parse() says ROCE_PARSE_NOT_ROCE) are
 * counted and ignored. A truncated capture (caplen < len) is an error: the
 * ICRC covers the whole packet. Exit 0 when everything verified, 1 when a
 * check failed, 2 on a usage or I/O error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "roce_hdr.h"
#include "roce_icrc.h"
#include "roce_opcode.h"
#include "roce_parse.h"

enum {
	MAX_SRC = 8,		/**< distinct sources tracked */
	MAX_REQUIRE = 8,	/**< --require-src entries */
	MBUF_DATA = 16384,	/**< data room: a 4096-PMTU jumbo frame fits */
	MAX_REPORT = 10,	/**< failures printed in detail */
};

/** An IPv4 or IPv6 address as it is on the wire. */
struct ip_addr {
	int family;		/**< AF_INET or AF_INET6 */
	uint8_t a[16];		/**< 4 or 16 bytes used */
};

struct src_stats {
	struct ip_addr addr;
	uint64_t frames;
	uint64_t bad_icrc;
	uint64_t ops[256];
};

struct check {
	struct rte_mempool *mp;
	bool verbose;
	uint64_t frames;	/**< every frame in the file */
	uint64_t roce;		/**< RoCEv2 frames (parsed or not) */
	uint64_t not_roce;
	uint64_t truncated;
	uint64_t parse_err;
	uint64_t icrc_ok;
	uint64_t icrc_bad;
	uint64_t srx;		/**< frames with the SR extension */
	uint64_t reported;
	uint64_t parse_reason[ROCE_PARSE_REASON_MAX];
	struct src_stats src[MAX_SRC];
	unsigned int nsrc;
};

static bool
ip_eq(const struct ip_addr *x, const struct ip_addr *y)
{
	return x->family == y->family &&
	       memcmp(x->a, y->a, x->family == AF_INET ? 4 : 16) == 0;
}

static struct src_stats *
src_of(struct check *c, const struct ip_addr *addr)
{
	unsigned int i;

	for (i = 0; i < c->nsrc; i++)
		if (ip_eq(&c->src[i].addr, addr))
			return &c->src[i];
	if (c->nsrc == MAX_SRC)
		return NULL;
	c->src[c->nsrc].addr = *addr;
	return &c->src[c->nsrc++];
}

static const char *
ip_str(const struct ip_addr *addr, char *buf, size_t len)
{
	return inet_ntop(addr->family, addr->a, buf, (socklen_t)len) != NULL ?
	       buf : "?";
}

/* The source and destination of a parsed frame. */
static void
pkt_addrs(const struct roce_pkt *pkt, struct ip_addr *src, struct ip_addr *dst)
{
	const struct rte_ipv6_hdr *ip6 = roce_pkt_ipv6(pkt);

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (ip6 != NULL) {
		src->family = dst->family = AF_INET6;
		memcpy(src->a, ip6->src_addr, 16);
		memcpy(dst->a, ip6->dst_addr, 16);
	} else {
		src->family = dst->family = AF_INET;
		memcpy(src->a, &pkt->saddr4, 4);
		memcpy(dst->a, &pkt->daddr4, 4);
	}
}

/* Is this UDP to port 4791 (whatever roce_parse() then thinks of it)? */
static bool
is_udp_4791(const uint8_t *f, uint32_t len)
{
	uint32_t off = RTE_ETHER_HDR_LEN, ihl;
	uint16_t et;

	if (len < off)
		return false;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == RTE_ETHER_TYPE_VLAN && len >= off + 4) {
		et = (uint16_t)(f[16] << 8 | f[17]);
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (len < off + 20 || f[off + 9] != IPPROTO_UDP)
			return false;
		ihl = (uint32_t)(f[off] & 0xf) * 4;
		off += ihl;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (len < off + 40 || f[off + 6] != IPPROTO_UDP)
			return false;
		off += 40;
	} else {
		return false;
	}
	return len >= off + 4 && (f[off + 2] << 8 | f[off + 3]) == ROCE_UDP_PORT;
}

static void
one_frame(struct check *c, const struct pcap_pkthdr *h, const uint8_t *data)
{
	struct ip_addr saddr, daddr;
	struct roce_pkt pkt;
	struct rte_mbuf *m;
	struct src_stats *s;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint32_t psn, dqpn;
	uint64_t n = ++c->frames;
	int ret;

	if (h->caplen < h->len) {
		/* cannot tell what it is without the whole frame, unless it is not UDP/4791 */
		if (is_udp_4791(data, h->caplen)) {
			c->roce++;
			c->truncated++;
			if (c->reported++ < MAX_REPORT)
				printf("  frame %" PRIu64 ": truncated capture (%u of %u bytes): the ICRC cannot be checked\n",
				       n, h->caplen, h->len);
		} else {
			c->not_roce++;
		}
		return;
	}
	if (h->caplen > MBUF_DATA) {
		c->roce += is_udp_4791(data, h->caplen);
		c->parse_err++;
		if (c->reported++ < MAX_REPORT)
			printf("  frame %" PRIu64 ": %u bytes, larger than any RoCEv2 frame\n",
			       n, h->caplen);
		return;
	}
	m = rte_pktmbuf_alloc(c->mp);
	if (m == NULL) {
		fprintf(stderr, "pcap_icrc_check: mbuf allocation failed\n");
		exit(2);
	}
	memcpy(rte_pktmbuf_mtod(m, void *), data, h->caplen);
	m->data_len = (uint16_t)h->caplen;
	m->pkt_len = h->caplen;
	ret = roce_parse(m, &pkt);
	if (ret == -ROCE_PARSE_NOT_ROCE) {
		c->not_roce++;
		rte_pktmbuf_free(m);
		return;
	}
	c->roce++;
	if (ret < 0) {
		c->parse_err++;
		if (-ret < ROCE_PARSE_REASON_MAX)
			c->parse_reason[-ret]++;
		if (c->reported++ < MAX_REPORT)
			printf("  frame %" PRIu64 ": roce_parse() rejects it: %s\n",
			       n, roce_parse_reason_name(ret));
		rte_pktmbuf_free(m);
		return;
	}
	pkt_addrs(&pkt, &saddr, &daddr);
	psn = roce_bth_psn(roce_pkt_bth(&pkt));
	dqpn = roce_bth_dqpn(roce_pkt_bth(&pkt));
	s = src_of(c, &saddr);
	if (s != NULL) {
		s->frames++;
		s->ops[pkt.opcode]++;
	}
	if (pkt.op->flags & ROCE_OPF_SRX)
		c->srx++;
	ret = roce_icrc_verify_mbuf(m, pkt.l3_off);
	if (ret == 0) {
		c->icrc_ok++;
	} else {
		c->icrc_bad++;
		if (s != NULL)
			s->bad_icrc++;
		if (c->reported++ < MAX_REPORT)
			printf("  frame %" PRIu64 ": %s %s -> %s dqpn 0x%06x psn %u: ICRC %s\n",
			       n, roce_opcode_name(pkt.opcode),
			       ip_str(&saddr, a, sizeof(a)),
			       ip_str(&daddr, b, sizeof(b)), dqpn, psn,
			       ret == -EBADMSG ? "MISMATCH" : strerror(-ret));
	}
	if (c->verbose)
		printf("  #%" PRIu64 " %s -> %s %s dqpn 0x%06x psn %u len %u icrc %s\n",
		       n, ip_str(&saddr, a, sizeof(a)), ip_str(&daddr, b, sizeof(b)),
		       roce_opcode_name(pkt.opcode), dqpn, psn, pkt.payload_len,
		       ret == 0 ? "ok" : "BAD");
	rte_pktmbuf_free(m);
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: pcap_icrc_check [--min N] [--require-src IP]... [--no-srx] [-v] FILE.pcap\n");
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "min", required_argument, NULL, 'm' },
		{ "require-src", required_argument, NULL, 'r' },
		{ "no-srx", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *eal_args[] = {
		argv[0], (char *)"--no-huge", (char *)"-m", (char *)"64",
		(char *)"--no-pci", (char *)"--no-shconf", (char *)"--no-telemetry", (char *)"-l", (char *)"0",
		(char *)"--log-level=lib.eal:error", NULL,
	};
	static struct check c;
	struct ip_addr require[MAX_REQUIRE];
	unsigned int nreq = 0, i, op;
	unsigned long min = 1;
	bool no_srx = false;
	char errbuf[PCAP_ERRBUF_SIZE], a[INET6_ADDRSTRLEN];
	struct pcap_pkthdr *h;
	const uint8_t *data;
	struct src_stats *s;
	pcap_t *p;
	bool ok;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "vh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			min = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			if (nreq == MAX_REQUIRE) {
				fprintf(stderr, "pcap_icrc_check: more than %d --require-src\n",
					MAX_REQUIRE);
				return 2;
			}
			memset(&require[nreq], 0, sizeof(require[nreq]));
			require[nreq].family = strchr(optarg, ':') != NULL ?
					       AF_INET6 : AF_INET;
			if (inet_pton(require[nreq].family, optarg,
				      require[nreq].a) != 1) {
				fprintf(stderr, "pcap_icrc_check: bad value \"%s\" for --require-src: expected an IPv4 or IPv6 address\n",
					optarg);
				return 2;
			}
			nreq++;
			break;
		case 's':
			no_srx = true;
			break;
		case 'v':
			c.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	p = pcap_open_offline(argv[optind], errbuf);
	if (p == NULL) {
		fprintf(stderr, "pcap_icrc_check: %s\n", errbuf);
		return 2;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "pcap_icrc_check: %s: link type %d, expected Ethernet\n",
			argv[optind], pcap_datalink(p));
		return 2;
	}
	if (rte_eal_init((int)RTE_DIM(eal_args) - 1, eal_args) < 0) {
		fprintf(stderr, "pcap_icrc_check: EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	c.mp = rte_pktmbuf_pool_create("pcapchk", 63, 0, 0,
				       MBUF_DATA + RTE_PKTMBUF_HEADROOM,
				       SOCKET_ID_ANY);
	if (c.mp == NULL) {
		fprintf(stderr, "pcap_icrc_check: mbuf pool: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	printf("%s:\n", argv[optind]);
	while ((ret = pcap_next_ex(p, &h, &data)) == 1)
		one_frame(&c, h, data);
	if (ret == PCAP_ERROR) {
		fprintf(stderr, "pcap_icrc_check: %s: %s\n", argv[optind],
			pcap_geterr(p));
		return 2;
	}
	pcap_close(p);

	printf("frames %" PRIu64 ": RoCEv2 %" PRIu64 ", other %" PRIu64 "\n",
	       c.frames, c.roce, c.not_roce);
	for (i = 0; i < c.nsrc; i++) {
		s = &c.src[i];
		printf("  from %-15s %8" PRIu64 " frames, %" PRIu64 " bad ICRC; opcodes:",
		       ip_str(&s->addr, a, sizeof(a)), s->frames, s->bad_icrc);
		for (op = 0; op < 256; op++)
			if (s->ops[op] != 0)
				printf(" %s=%" PRIu64, roce_opcode_name((uint8_t)op),
				       s->ops[op]);
		printf("\n");
	}
	for (i = 0; i < ROCE_PARSE_REASON_MAX; i++)
		if (c.parse_reason[i] != 0)
			printf("  parse errors %s: %" PRIu64 "\n",
			       roce_parse_reason_name((int)i), c.parse_reason[i]);
	printf("ICRC verified: %" PRIu64 "/%" PRIu64 " match; parse errors %" PRIu64 ", truncated %" PRIu64 "\n",
	       c.icrc_ok, c.roce, c.parse_err, c.truncated);

	printf("selective repeat extension: %" PRIu64 " frames\n", c.srx);
	ok = c.icrc_bad == 0 && c.parse_err == 0 && c.truncated == 0 &&
	     c.roce >= min && c.icrc_ok == c.roce;
	if (no_srx && c.srx != 0) {
		printf("FAIL: %" PRIu64 " frames carry the selective repeat extension (--no-srx)\n",
		       c.srx);
		ok = false;
	}
	if (c.roce < min)
		printf("FAIL: %" PRIu64 " RoCEv2 frames, expected at least %lu\n",
		       c.roce, min);
	for (i = 0; i < nreq; i++) {
		unsigned int j;
		bool seen = false;

		for (j = 0; j < c.nsrc; j++)
			seen |= ip_eq(&c.src[j].addr, &require[i]) &&
				c.src[j].frames > 0;
		if (!seen) {
			printf("FAIL: no RoCEv2 frame from %s\n",
			       ip_str(&require[i], a, sizeof(a)));
			ok = false;
		}
	}
	printf("%s\n", ok ? "PASS" : "FAIL");
	rte_mempool_free(c.mp);
	rte_eal_cleanup();
	return ok ? 0 : 1;
}
