/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit builder: every vector is rebuilt from its parsed fields and
 * payload and must come out byte for byte (the ICRC slot zeroed; filled by
 * roce_icrc it matches too); random field sets survive build -> parse ->
 * fields; errors leave the mbuf untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "roce_build.h"
#include "roce_icrc.h"
#include "test_common.h"
#include "wire_util.h"

static struct test_vector *vec, *cm;
static int nvec, ncm;

static int
suite_init(void)
{
	nvec = test_load_vectors("rocev2-frames.hex", &vec);
	ncm = test_load_vectors("rxe-cm-mads.hex", &cm);
	return nvec > 0 && ncm > 0 ? 0 : -1;
}

/* Parse a vector and rebuild it from fields + payload (in seg_len pieces). */
static void
round_trip(const struct test_vector *v, size_t seg_len)
{
	static uint8_t out[8192];
	struct rte_mbuf *in, *m;
	struct roce_hdr_fields f;
	struct roce_pkt pkt;
	const uint8_t *p;
	uint32_t len;

	in = wire_mbuf_exact(v->data, v->len);
	CU_ASSERT_FATAL(in != NULL);
	CU_ASSERT_EQUAL_FATAL(roce_parse(in, &pkt), 0);
	roce_build_fields_from_pkt(&f, &pkt);
	m = test_mbuf_from(v->data + pkt.payload_off, pkt.payload_len, seg_len);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL_FATAL(roce_build_mbuf(m, &f), 0);

	len = rte_pktmbuf_pkt_len(m);
	CU_ASSERT_EQUAL(len, v->len);
	CU_ASSERT_EQUAL(m->l2_len, pkt.l3_off);
	CU_ASSERT_EQUAL(m->l2_len + m->l3_len, pkt.l4_off);
	p = rte_pktmbuf_read(m, 0, len, out);
	CU_ASSERT_FATAL(p != NULL && len == v->len);
	if (memcmp(p, v->data, len - 4) != 0) {
		fprintf(stderr, "%s (segments of %zu) differs\n", v->name,
			seg_len);
		CU_FAIL("rebuilt frame differs");
	}
	CU_ASSERT(memcmp(p + len - 4, "\0\0\0\0", 4) == 0);
	/* With the ICRC filled in, the whole frame matches. */
	CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, m->l2_len), 0);
	p = rte_pktmbuf_read(m, 0, len, out);
	CU_ASSERT(memcmp(p, v->data, len) == 0);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(in);
}

static void
test_vectors_rebuilt(void)
{
	int i;

	for (i = 0; i < nvec; i++) {
		round_trip(&vec[i], 0);
		round_trip(&vec[i], 100);
	}
	for (i = 0; i < ncm; i++)
		round_trip(&cm[i], 0);
}

/* roce_build_hdr into a plain buffer agrees with the parsed offsets. */
static void
test_build_hdr_buffer(void)
{
	uint8_t buf[ROCE_PARSE_HDR_MAX];
	struct roce_hdr_fields f;
	struct roce_pkt pkt;
	struct rte_mbuf *in;
	int i, hlen;

	for (i = 0; i < nvec; i++) {
		in = wire_mbuf_exact(vec[i].data, vec[i].len);
		CU_ASSERT_FATAL(in != NULL && roce_parse(in, &pkt) == 0);
		roce_build_fields_from_pkt(&f, &pkt);
		hlen = roce_build_hdr_len(&f);
		CU_ASSERT_EQUAL(hlen, (int)pkt.payload_off);
		CU_ASSERT_EQUAL(roce_build_hdr(buf, hlen - 1, &f,
					       pkt.payload_len), -ENOSPC);
		CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f,
					       pkt.payload_len), hlen);
		CU_ASSERT(memcmp(buf, vec[i].data, hlen) == 0);
		rte_pktmbuf_free(in);
	}
}

static void
random_fields(struct roce_hdr_fields *f, uint64_t *seed, uint8_t opcode)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < 6; i++) {
		f->dst_mac.addr_bytes[i] = (uint8_t)wire_rand(seed);
		f->src_mac.addr_bytes[i] = (uint8_t)wire_rand(seed);
	}
	f->vlan = wire_rand(seed) & 1;
	f->vlan_tci = f->vlan ? (uint16_t)wire_rand(seed) : 0;
	f->ip_ver = wire_rand(seed) & 1 ? 6 : 4;
	f->tos = (uint8_t)wire_rand(seed);
	f->ttl = (uint8_t)wire_rand(seed);
	for (i = 0; i < 16; i++) {
		f->sgid[i] = (uint8_t)wire_rand(seed);
		f->dgid[i] = (uint8_t)wire_rand(seed);
	}
	if (f->ip_ver == 4) {
		f->ip_id = (uint16_t)wire_rand(seed);
		/* the parser reports IPv4 addresses as ::ffff:a.b.c.d */
		memset(f->sgid, 0, 10);
		memset(f->dgid, 0, 10);
		f->sgid[10] = f->sgid[11] = f->dgid[10] = f->dgid[11] = 0xff;
	} else {
		f->flow_label = (uint32_t)wire_rand(seed) & 0xfffff;
	}
	f->udp_sport = (uint16_t)wire_rand(seed);
	f->opcode = opcode;
	f->se = wire_rand(seed) & 1;
	f->mig = wire_rand(seed) & 1;
	f->fecn = wire_rand(seed) & 1;
	f->becn = wire_rand(seed) & 1;
	f->ackreq = wire_rand(seed) & 1;
	f->pkey = (uint16_t)wire_rand(seed);
	f->dqpn = (uint32_t)wire_rand(seed) & 0xffffff;
	f->psn = (uint32_t)wire_rand(seed) & 0xffffff;
	if (roce_opcode_has(opcode, ROCE_OPF_RETH) ||
	    roce_opcode_has(opcode, ROCE_OPF_ATMETH)) {
		f->va = wire_rand(seed);
		f->rkey = (uint32_t)wire_rand(seed);
	}
	if (roce_opcode_has(opcode, ROCE_OPF_RETH))
		f->dma_len = (uint32_t)wire_rand(seed);
	if (roce_opcode_has(opcode, ROCE_OPF_ATMETH)) {
		f->swap_add = wire_rand(seed);
		f->compare = wire_rand(seed);
	}
	if (roce_opcode_has(opcode, ROCE_OPF_AETH)) {
		f->syndrome = (uint8_t)wire_rand(seed);
		f->msn = (uint32_t)wire_rand(seed) & 0xffffff;
	}
	if (roce_opcode_has(opcode, ROCE_OPF_ATMACK))
		f->orig = wire_rand(seed);
	if (roce_opcode_has(opcode, ROCE_OPF_IMMDT))
		f->imm = (uint32_t)wire_rand(seed);
	if (roce_opcode_has(opcode, ROCE_OPF_IETH))
		f->inv_rkey = (uint32_t)wire_rand(seed);
	if (roce_opcode_has(opcode, ROCE_OPF_DETH)) {
		f->qkey = (uint32_t)wire_rand(seed);
		f->src_qpn = (uint32_t)wire_rand(seed) & 0xffffff;
	}
}

/* Every member, so that a field the builder or parser drops shows up. */
static bool
same_fields(const struct roce_hdr_fields *a, const struct roce_hdr_fields *b)
{
	return rte_is_same_ether_addr(&a->dst_mac, &b->dst_mac) &&
	       rte_is_same_ether_addr(&a->src_mac, &b->src_mac) &&
	       a->vlan == b->vlan && a->vlan_tci == b->vlan_tci &&
	       a->ip_ver == b->ip_ver && a->tos == b->tos && a->ttl == b->ttl &&
	       a->ip_id == b->ip_id && a->flow_label == b->flow_label &&
	       memcmp(a->sgid, b->sgid, 16) == 0 &&
	       memcmp(a->dgid, b->dgid, 16) == 0 &&
	       a->udp_sport == b->udp_sport && a->opcode == b->opcode &&
	       a->se == b->se && a->mig == b->mig && a->fecn == b->fecn &&
	       a->becn == b->becn && a->ackreq == b->ackreq &&
	       a->pkey == b->pkey && a->dqpn == b->dqpn && a->psn == b->psn &&
	       a->va == b->va && a->rkey == b->rkey &&
	       a->dma_len == b->dma_len && a->swap_add == b->swap_add &&
	       a->compare == b->compare && a->syndrome == b->syndrome &&
	       a->msn == b->msn && a->orig == b->orig && a->imm == b->imm &&
	       a->inv_rkey == b->inv_rkey && a->qkey == b->qkey &&
	       a->src_qpn == b->src_qpn;
}

/* Random fields for every opcode: build, parse, read back the same. */
static void
test_random_fields(void)
{
	uint64_t seed = 0xb0117e57ULL;
	struct roce_hdr_fields f, g;
	struct roce_pkt pkt;
	struct rte_mbuf *m;
	unsigned int op, n;
	uint32_t plen;
	int ret;

	for (op = 0; op < 256; op++) {
		if (!roce_opcode_valid(op))
			continue;
		for (n = 0; n < 20; n++) {
			random_fields(&f, &seed, op);
			plen = roce_opcode_has(op, ROCE_OPF_PAYLOAD) ?
				(uint32_t)(wire_rand(&seed) % 300) : 0;
			if (!roce_opcode_has(op, ROCE_OPF_LAST))
				plen &= ~3u;	/* whole PMTU: no pad */
			m = rte_pktmbuf_alloc(test_mbuf_pool());
			CU_ASSERT_FATAL(m != NULL);
			memset(rte_pktmbuf_append(m, plen), 0xa5, plen);
			CU_ASSERT_EQUAL_FATAL(roce_build_mbuf(m, &f), 0);
			ret = roce_parse(m, &pkt);
			if (ret != 0)
				fprintf(stderr, "%s payload %u: %s\n",
					roce_opcode_name(op), plen,
					roce_parse_reason_name(ret));
			CU_ASSERT_EQUAL_FATAL(ret, 0);
			CU_ASSERT_EQUAL(pkt.payload_len, plen);
			CU_ASSERT_EQUAL(pkt.pad, (-plen) & 3);
			CU_ASSERT_EQUAL(roce_bth_tver(roce_pkt_bth(&pkt)), 0);
			CU_ASSERT_EQUAL(roce_bth_resv6(roce_pkt_bth(&pkt)), 0);
			CU_ASSERT_EQUAL(roce_bth_resv7(roce_pkt_bth(&pkt)), 0);
			CU_ASSERT_EQUAL(roce_icrc_fill_mbuf(m, m->l2_len), 0);
			CU_ASSERT_EQUAL(roce_icrc_verify_mbuf(m, pkt.l3_off), 0);
			roce_build_fields_from_pkt(&g, &pkt);
			if (!same_fields(&f, &g)) {
				fprintf(stderr, "opcode %s: fields differ\n",
					roce_opcode_name(op));
				CU_FAIL("fields round trip");
			}
			rte_pktmbuf_free(m);
		}
	}
}

/* Values wider than their field are cut to it (IBTA 9.2: 24-bit PSN/QPN). */
static void
test_wide_values(void)
{
	struct roce_hdr_fields f = {
		.ip_ver = 4, .opcode = ROCE_OP_RC_ACK, .dqpn = 0xff123456,
		.psn = 0xfe654321, .msn = 0xff000001, .syndrome = 0x1f,
	};
	uint8_t buf[ROCE_PARSE_HDR_MAX];
	const struct roce_bth *bth = (const void *)(buf + 42);
	const struct roce_aeth *aeth = (const void *)(buf + 54);

	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 0), 58);
	CU_ASSERT_EQUAL(roce_bth_dqpn(bth), 0x123456);
	CU_ASSERT_EQUAL(roce_bth_resv6(bth), 0);
	CU_ASSERT_EQUAL(roce_bth_psn(bth), 0x654321);
	CU_ASSERT_EQUAL(roce_bth_resv7(bth), 0);
	CU_ASSERT_EQUAL(roce_aeth_msn(aeth), 1);
	CU_ASSERT_EQUAL(roce_aeth_syndrome(aeth), 0x1f);
	/* IPv4: DF set, UDP checksum 0, header checksum valid. */
	CU_ASSERT_EQUAL(buf[20], 0x40);
	CU_ASSERT_EQUAL(buf[40] | buf[41], 0);
	CU_ASSERT_EQUAL(rte_ipv4_cksum((const void *)(buf + 14)), 0);
}

static void
test_errors(void)
{
	struct roce_hdr_fields f = { .ip_ver = 6, .opcode = ROCE_OP_RC_SEND_ONLY };
	uint8_t buf[ROCE_PARSE_HDR_MAX];
	struct rte_mbuf *m;
	uint16_t room;

	CU_ASSERT_EQUAL(roce_build_hdr_len(&f), 14 + 40 + 8 + 12);
	f.ip_ver = 5;
	CU_ASSERT_EQUAL(roce_build_hdr_len(&f), -EINVAL);
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 0), -EINVAL);
	f.ip_ver = 4;
	f.opcode = 0x15;
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 0), -EINVAL);
	f.opcode = ROCE_OP_RC_ACK;
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 4), -EINVAL);
	f.opcode = ROCE_OP_RC_SEND_MIDDLE;	/* unpadded but for the last */
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 1022), -EINVAL);
	CU_ASSERT(roce_build_hdr(buf, sizeof(buf), &f, 1024) > 0);
	f.opcode = ROCE_OP_RC_SEND_ONLY;
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 65536), -EMSGSIZE);
	/* IPv4 total length: 20 + 8 + 12 + payload + 4 <= 65535 */
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 65491), -EMSGSIZE);
	CU_ASSERT(roce_build_hdr(buf, sizeof(buf), &f, 65488) > 0);
	f.ip_ver = 6;	/* IPv6 payload length: 8 + 12 + payload + 4 */
	CU_ASSERT(roce_build_hdr(buf, sizeof(buf), &f, 65508) > 0);
	CU_ASSERT_EQUAL(roce_build_hdr(buf, sizeof(buf), &f, 65512), -EMSGSIZE);

	/* No headroom, then no tailroom: the mbuf is left as it was. */
	m = rte_pktmbuf_alloc(test_mbuf_pool());
	CU_ASSERT_FATAL(m != NULL);
	memset(rte_pktmbuf_append(m, 10), 0x11, 10);
	m->data_off = 40;
	CU_ASSERT_EQUAL(roce_build_mbuf(m, &f), -ENOSPC);
	CU_ASSERT_EQUAL(m->data_off, 40);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 10);
	m->data_off = RTE_PKTMBUF_HEADROOM;
	room = m->buf_len - m->data_off;
	CU_ASSERT_EQUAL_FATAL(room % 4, 0);
	m->data_len = room - 3;			/* needs pad 3 + ICRC: 7 */
	m->pkt_len = m->data_len;
	CU_ASSERT_EQUAL(roce_build_mbuf(m, &f), -ENOSPC);
	CU_ASSERT_EQUAL(m->data_off, RTE_PKTMBUF_HEADROOM);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), room - 3);
	m->data_len = room - 7;			/* pad 3 + ICRC just fit */
	m->pkt_len = m->data_len;
	f.opcode = ROCE_OP_RC_RDMA_WRITE_ONLY;
	CU_ASSERT_EQUAL(roce_build_mbuf(m, &f), 0);
	CU_ASSERT_EQUAL(rte_pktmbuf_tailroom(m), 0);
	rte_pktmbuf_free(m);
}

/*
 * roce_build_mbuf_tmpl() from the path template (the Ethernet/IP/UDP
 * headers of a SEND ONLY without payload, as roce_qp_table.c makes it)
 * writes the same frame as roce_build_mbuf() from the full fields: random
 * paths (IPv4/IPv6, with or without a tag), every opcode, payloads of 0 to
 * 4100 bytes in one or several segments; errors leave the mbuf untouched.
 */
static void
test_template_build(void)
{
	static uint8_t a[8192], b[8192], pay[4100];
	uint64_t seed = 0x7e3b1a7eULL;
	struct roce_hdr_fields f, path;
	uint8_t tmpl[96];
	int op, it, tlen;

	for (it = 0; it < (int)sizeof(pay); it++)
		pay[it] = (uint8_t)(it * 29 + 3);
	for (it = 0; it < 400; it++) {
		op = (int)(wire_rand(&seed) % 256);
		if (!roce_opcode_valid((uint8_t)op))
			continue;
		random_fields(&f, &seed, (uint8_t)op);
		f.ip_id = 0;	/* the requester's paths send 0 */
		path = f;
		path.opcode = ROCE_OP_RC_SEND_ONLY;
		tlen = roce_build_hdr(tmpl, sizeof(tmpl), &path, 0);
		CU_ASSERT_FATAL(tlen > 0);
		tlen -= (int)sizeof(struct roce_bth);
		{
			uint32_t len = 0;
			struct rte_mbuf *m1, *m2;
			const uint8_t *p1, *p2;
			int r1, r2;

			if (roce_opcode_has((uint8_t)op, ROCE_OPF_PAYLOAD))
				len = (uint32_t)(wire_rand(&seed) % sizeof(pay));
			if (!roce_opcode_has((uint8_t)op, ROCE_OPF_LAST))
				len &= ~3u;
			m1 = test_mbuf_from(pay, len, it & 1 ? 700 : 0);
			m2 = test_mbuf_from(pay, len, it & 1 ? 700 : 0);
			CU_ASSERT_FATAL(m1 != NULL && m2 != NULL);
			r1 = roce_build_mbuf(m1, &f);
			r2 = roce_build_mbuf_tmpl(m2, tmpl, (uint16_t)tlen, &f);
			CU_ASSERT_EQUAL(r1, r2);
			if (r1 == 0 && r2 == 0) {
				CU_ASSERT_EQUAL(m1->pkt_len, m2->pkt_len);
				CU_ASSERT_EQUAL(m1->l2_len, m2->l2_len);
				CU_ASSERT_EQUAL(m1->l3_len, m2->l3_len);
				CU_ASSERT_EQUAL(m1->l4_len, m2->l4_len);
				p1 = rte_pktmbuf_read(m1, 0, m1->pkt_len, a);
				p2 = rte_pktmbuf_read(m2, 0, m2->pkt_len, b);
				CU_ASSERT_FATAL(p1 != NULL && p2 != NULL);
				if (memcmp(p1, p2, m1->pkt_len) != 0) {
					fprintf(stderr, "opcode 0x%02x len %u: template frame differs\n",
						op, len);
					CU_FAIL("template build differs");
				}
			}
			rte_pktmbuf_free(m1);
			rte_pktmbuf_free(m2);
		}
	}
	/* a template of no known length, a bad opcode: -EINVAL, untouched */
	{
		struct rte_mbuf *m = test_mbuf_from(pay, 8, 0);
		uint32_t plen;

		CU_ASSERT_FATAL(m != NULL);
		plen = m->pkt_len;
		random_fields(&f, &seed, ROCE_OP_RC_SEND_ONLY);
		CU_ASSERT_EQUAL(roce_build_mbuf_tmpl(m, tmpl, 40, &f), -EINVAL);
		f.opcode = 0xff;
		CU_ASSERT_EQUAL(roce_build_mbuf_tmpl(m, tmpl, 42, &f), -EINVAL);
		f.opcode = ROCE_OP_RC_ACK;	/* no payload allowed */
		CU_ASSERT_EQUAL(roce_build_mbuf_tmpl(m, tmpl, 42, &f), -EINVAL);
		CU_ASSERT_EQUAL(m->pkt_len, plen);
		rte_pktmbuf_free(m);
	}
}

static CU_TestInfo build_tests[] = {
	{ "every vector rebuilt from its fields", test_vectors_rebuilt },
	{ "headers into a buffer", test_build_hdr_buffer },
	{ "random fields, every opcode", test_random_fields },
	{ "wide values cut to their field", test_wide_values },
	{ "errors", test_errors },
	{ "template build equals full build", test_template_build },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "build", suite_init, NULL, NULL, NULL, build_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
