/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire_util.h"

#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "roce_opcode.h"
#include "test_common.h"

static void
ext_free(void *addr, void *opaque)
{
	free(opaque);
	RTE_SET_USED(addr);
}

struct rte_mbuf *
wire_mbuf_exact(const void *data, size_t len)
{
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_mbuf *m;
	uint8_t *mem;

	/* shinfo first, the frame flush with the end of the allocation. */
	mem = malloc(sizeof(*shinfo) + len);
	m = rte_pktmbuf_alloc(test_mbuf_pool());
	if (mem == NULL || m == NULL) {
		free(mem);
		rte_pktmbuf_free(m);
		return NULL;
	}
	shinfo = (struct rte_mbuf_ext_shared_info *)mem;
	shinfo->free_cb = ext_free;
	shinfo->fcb_opaque = mem;
	rte_mbuf_ext_refcnt_set(shinfo, 1);
	memcpy(mem + sizeof(*shinfo), data, len);
	rte_pktmbuf_attach_extbuf(m, mem + sizeof(*shinfo), RTE_BAD_IOVA,
				  (uint16_t)len, shinfo);
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	return m;
}

size_t
wire_l3_off(const uint8_t *f)
{
	return (f[12] == 0x81 && f[13] == 0x00) ? 18 : 14;
}

size_t
wire_l4_off(const uint8_t *f)
{
	size_t l3 = wire_l3_off(f);

	return (f[l3] >> 4) == 4 ? l3 + (f[l3] & 0xf) * 4u : l3 + 40;
}

size_t
wire_bth_off(const uint8_t *f)
{
	return wire_l4_off(f) + 8;
}

static void
put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
wire_fix_ipv4_csum(uint8_t *f)
{
	struct rte_ipv4_hdr *ip = (void *)(f + wire_l3_off(f));

	if ((f[wire_l3_off(f)] >> 4) != 4)
		return;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

void
wire_set_roce_len(uint8_t *f, size_t rlen)
{
	size_t l3 = wire_l3_off(f), l4 = wire_l4_off(f);

	if ((f[l3] >> 4) == 4)
		put16(f + l3 + 2, l4 - l3 + 8 + rlen);
	else
		put16(f + l3 + 4, 8 + rlen);
	put16(f + l4 + 4, 8 + rlen);
	wire_fix_ipv4_csum(f);
}

int
wire_vector_opcode(const char *name)
{
	size_t best_len = 0, n;
	int best = -1, i;

	if (strncmp(name, "RC_NAK_", 7) == 0 ||
	    strncmp(name, "RC_RNR_NAK_", 11) == 0)
		return ROCE_OP_RC_ACK;
	if (strncmp(name, "GSI_MAD_", 8) == 0 || strncmp(name, "CM_", 3) == 0)
		return ROCE_OP_UD_SEND_ONLY;
	for (i = 0; i < 256; i++) {
		const char *op = roce_opcode_table[i].name;

		if (op == NULL)
			continue;
		n = strlen(op);
		if (strncmp(name, op, n) == 0 && name[n] == '_' && n > best_len) {
			best = i;
			best_len = n;
		}
	}
	return best;
}

uint64_t
wire_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}
