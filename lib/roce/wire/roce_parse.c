/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 receive parser. Every read of a header byte is preceded by a
 * check that the byte lies within `avail`, the contiguous bytes at `p`
 * (the first segment, or the bounce copy of the first
 * ROCE_PARSE_HDR_MAX bytes), and every length field is checked against
 * the packet length before it is trusted.
 */
#include <string.h>

#include <rte_branch_prediction.h>

#include "roce_icrc.h"
#include "roce_mbuf.h"
#include "roce_parse.h"

static_assert(ROCE_PARSE_HDR_MAX >= ROCE_ETH_HLEN + ROCE_VLAN_HLEN +
	      ROCE_IPV4_HLEN_MAX + ROCE_UDP_HLEN + ROCE_BTH_LEN +
	      ROCE_ATMETH_LEN, "bounce buffer too small for the headers");

static const char *const reason_names[ROCE_PARSE_REASON_MAX] = {
	[ROCE_PARSE_OK] = "rx_ok",
	[ROCE_PARSE_NOT_ROCE] = "rx_not_roce",
	[ROCE_DROP_TRUNC_ETH] = "rx_drop_trunc_eth",
	[ROCE_DROP_TRUNC_IP] = "rx_drop_trunc_ip",
	[ROCE_DROP_BAD_IP_VERSION] = "rx_drop_bad_ip_version",
	[ROCE_DROP_BAD_IHL] = "rx_drop_bad_ihl",
	[ROCE_DROP_IP_LEN] = "rx_drop_ip_len",
	[ROCE_DROP_IP_CSUM] = "rx_drop_ip_csum",
	[ROCE_DROP_IP_FRAG] = "rx_drop_ip_frag",
	[ROCE_DROP_TRUNC_UDP] = "rx_drop_trunc_udp",
	[ROCE_DROP_UDP_LEN] = "rx_drop_udp_len",
	[ROCE_DROP_TRUNC_BTH] = "rx_drop_trunc_bth",
	[ROCE_DROP_BAD_TVER] = "rx_drop_bad_tver",
	[ROCE_DROP_BAD_OPCODE] = "rx_drop_bad_opcode",
	[ROCE_DROP_TRUNC_EXT_HDR] = "rx_drop_trunc_ext_hdr",
	[ROCE_DROP_TRUNC_ICRC] = "rx_drop_trunc_icrc",
	[ROCE_DROP_BAD_PAD] = "rx_drop_bad_pad",
	[ROCE_DROP_BAD_LEN] = "rx_drop_bad_len",
};

const char *
roce_parse_reason_name(int reason)
{
	if (reason < 0)
		reason = -reason;
	if (reason >= ROCE_PARSE_REASON_MAX || reason_names[reason] == NULL)
		return "rx_drop_unknown";
	return reason_names[reason];
}

static inline uint16_t
ld_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* IPv4-mapped IPv6 address ::ffff:a.b.c.d (RFC 4291 2.5.5.2), the GID form. */
static inline void
gid_from_ipv4(uint8_t gid[16], rte_be32_t addr)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, &addr, 4);
}

/*
 * RFC 1071 one's complement sum of an IPv4 header of @p ihl bytes (a
 * multiple of 4, at least 20): 0xffff when the checksum is right. The
 * 20-byte header of every RoCE packet is summed as five 32-bit words
 * instead of rte_ipv4_cksum()'s ten 16-bit steps.
 */
static inline uint16_t
ipv4_hdr_sum(const void *hdr, uint32_t ihl)
{
	const uint8_t *b = hdr;
	uint32_t i, w[5];
	uint64_t sum;

	memcpy(w, b, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	for (i = sizeof(w); unlikely(i < ihl); i += 4) {	/* options */
		memcpy(&w[0], b + i, 4);
		sum += w[0];
	}
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * IPv4 (RFC 791). On success *l4 is the UDP offset and *l4_len the IP
 * payload length. RoCEv2 senders set DF and never fragment (annex A17).
 */
static inline int
parse_ipv4(const struct rte_mbuf *m, const uint8_t *p, uint32_t avail,
	   uint32_t l3, struct roce_pkt *pkt, uint32_t *l4, uint32_t *l4_len)
{
	const struct rte_ipv4_hdr *ip = (const void *)(p + l3);
	uint64_t csum_flags = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint32_t ihl, ip_len;

	if (unlikely(avail < l3 + ROCE_IPV4_HLEN))
		return -ROCE_DROP_TRUNC_IP;
	if (unlikely(roce_ip_version(ip) != 4))
		return -ROCE_DROP_BAD_IP_VERSION;
	ihl = roce_ipv4_hlen(ip);
	if (unlikely(ihl < ROCE_IPV4_HLEN))
		return -ROCE_DROP_BAD_IHL;
	if (unlikely(avail < l3 + ihl))
		return -ROCE_DROP_TRUNC_IP;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(ip_len < ihl || l3 + ip_len > rte_pktmbuf_pkt_len(m)))
		return -ROCE_DROP_IP_LEN;
	/* not UDP: the host's (its checksum too); a PMD parses all it gets */
	if (ip->next_proto_id != IPPROTO_UDP)
		return -ROCE_PARSE_NOT_ROCE;
	/* Trust the NIC's verdict (GOOD, or NONE: verified) when it gave one. */
	if (csum_flags == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
	    (!(csum_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) &&
	     unlikely(ipv4_hdr_sum(ip, ihl) != 0xffff)))
		return -ROCE_DROP_IP_CSUM;
	if (unlikely(roce_ipv4_is_fragment(ip)))
		return -ROCE_DROP_IP_FRAG;

	pkt->ip_ver = 4;
	pkt->dscp = roce_ipv4_dscp(ip);
	pkt->ecn = roce_ipv4_ecn(ip);
	pkt->ttl = ip->time_to_live;
	pkt->flow_label = 0;
	pkt->saddr4 = ip->src_addr;
	pkt->daddr4 = ip->dst_addr;
	gid_from_ipv4(pkt->sgid, ip->src_addr);
	gid_from_ipv4(pkt->dgid, ip->dst_addr);
	*l4 = l3 + ihl;
	*l4_len = ip_len - ihl;
	return 0;
}

/* IPv6 (RFC 8200): UDP must follow the fixed header directly. */
static inline int
parse_ipv6(const struct rte_mbuf *m, const uint8_t *p, uint32_t avail,
	   uint32_t l3, struct roce_pkt *pkt, uint32_t *l4, uint32_t *l4_len)
{
	const struct rte_ipv6_hdr *ip = (const void *)(p + l3);
	uint32_t plen;

	if (unlikely(avail < l3 + ROCE_IPV6_HLEN))
		return -ROCE_DROP_TRUNC_IP;
	if (unlikely(roce_ip_version(ip) != 6))
		return -ROCE_DROP_BAD_IP_VERSION;
	plen = rte_be_to_cpu_16(ip->payload_len);
	/* 0 would be a jumbogram (RFC 2675): never RoCE. */
	if (unlikely(plen == 0 ||
		     l3 + ROCE_IPV6_HLEN + plen > rte_pktmbuf_pkt_len(m)))
		return -ROCE_DROP_IP_LEN;
	if (ip->proto != IPPROTO_UDP)
		return -ROCE_PARSE_NOT_ROCE;

	pkt->ip_ver = 6;
	pkt->dscp = roce_ipv6_tc(ip) >> 2;
	pkt->ecn = roce_ipv6_tc(ip) & 3;
	pkt->ttl = ip->hop_limits;
	pkt->flow_label = roce_ipv6_flow(ip);
	pkt->saddr4 = 0;
	pkt->daddr4 = 0;
	memcpy(pkt->sgid, ip->src_addr, 16);
	memcpy(pkt->dgid, ip->dst_addr, 16);
	*l4 = l3 + ROCE_IPV6_HLEN;
	*l4_len = plen;
	return 0;
}

/*
 * Transport layer: UDP and the IB headers (IBTA 9.2, 9.3) of a RoCE
 * segment of rlen bytes at bth_off (BTH through ICRC, annex A17).
 */
static inline int
parse_transport(const uint8_t *p, uint32_t avail, uint32_t bth_off,
		uint32_t rlen, struct roce_pkt *pkt)
{
	const struct roce_bth *bth = (const void *)(p + bth_off);
	const struct roce_opcode_info *op;
	uint32_t plen;
	uint8_t pad;

	if (unlikely(rlen < ROCE_BTH_LEN || avail < bth_off + ROCE_BTH_LEN))
		return -ROCE_DROP_TRUNC_BTH;
	if (unlikely(roce_bth_tver(bth) != 0))
		return -ROCE_DROP_BAD_TVER;
	op = roce_opcode_info(roce_bth_opcode(bth));
	/* softernic selective repeat: its extension follows (roce_sr.h) */
	if (unlikely(rte_be_to_cpu_32(bth->apsn) & ROCE_BTH_APSN_SRX))
		op = roce_opcode_srx_info(roce_bth_opcode(bth));
	if (unlikely(op->name == NULL))
		return -ROCE_DROP_BAD_OPCODE;
	if (unlikely(rlen < op->hdr_len || avail < bth_off + op->hdr_len))
		return -ROCE_DROP_TRUNC_EXT_HDR;
	if (unlikely(rlen < op->hdr_len + (uint32_t)ROCE_ICRC_LEN))
		return -ROCE_DROP_TRUNC_ICRC;

	/* IBTA 9.2.4: pad bytes align payload + pad to 4 bytes. */
	plen = rlen - op->hdr_len - ROCE_ICRC_LEN;
	pad = roce_bth_pad(bth);
	if (unlikely(pad > plen))
		return -ROCE_DROP_BAD_PAD;
	if (unlikely((plen & 3) != 0 ||
		     (plen != 0 && !(op->flags & ROCE_OPF_PAYLOAD))))
		return -ROCE_DROP_BAD_LEN;
	/*
	 * Only the last packet of a message may be padded: first and middle
	 * packets carry exactly one PMTU, a multiple of 4 (IBTA 9.2.4).
	 */
	if (unlikely(pad != 0 && !(op->flags & ROCE_OPF_LAST)))
		return -ROCE_DROP_BAD_PAD;

	pkt->op = op;
	pkt->opcode = roce_bth_opcode(bth);
	pkt->pad = pad;
	pkt->bth_off = (uint16_t)bth_off;
	pkt->payload_off = bth_off + op->hdr_len;
	pkt->payload_len = plen - pad;
	return 0;
}

/* The headers of @p m, whose first @p avail bytes are at @p p. */
static int
parse_headers(const struct rte_mbuf *m, const uint8_t *p, uint32_t avail,
	      struct roce_pkt *pkt)
{
	const struct rte_udp_hdr *udp;
	uint32_t l3, l4, l4_len, ulen;
	uint16_t etype;
	int ret;

	/* Ethernet II, at most one 802.1Q tag. */
	if (unlikely(avail < ROCE_ETH_HLEN))
		return -ROCE_DROP_TRUNC_ETH;
	etype = ld_be16(p + 12);
	l3 = ROCE_ETH_HLEN;
	pkt->vlan_tci = 0;
	if (etype == RTE_ETHER_TYPE_VLAN) {
		if (unlikely(avail < ROCE_ETH_HLEN + ROCE_VLAN_HLEN))
			return -ROCE_DROP_TRUNC_ETH;
		pkt->vlan_tci = ld_be16(p + 14);
		pkt->flags |= ROCE_PKT_VLAN;
		etype = ld_be16(p + 16);
		l3 += ROCE_VLAN_HLEN;
	}
	if (etype == RTE_ETHER_TYPE_IPV4)
		ret = parse_ipv4(m, p, avail, l3, pkt, &l4, &l4_len);
	else if (etype == RTE_ETHER_TYPE_IPV6)
		ret = parse_ipv6(m, p, avail, l3, pkt, &l4, &l4_len);
	else
		return -ROCE_PARSE_NOT_ROCE;
	if (ret != 0)
		return ret;

	/* UDP (annex A17): port 4791 says RoCEv2; the checksum is not used. */
	if (unlikely(l4_len < ROCE_UDP_HLEN || avail < l4 + ROCE_UDP_HLEN))
		return -ROCE_DROP_TRUNC_UDP;
	udp = (const void *)(p + l4);
	if (udp->dst_port != RTE_BE16(ROCE_UDP_PORT))
		return -ROCE_PARSE_NOT_ROCE;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (unlikely(ulen != l4_len))
		return -ROCE_DROP_UDP_LEN;

	ret = parse_transport(p, avail, l4 + ROCE_UDP_HLEN,
			      ulen - ROCE_UDP_HLEN, pkt);
	if (ret != 0)
		return ret;
	pkt->l3_off = (uint16_t)l3;
	pkt->l4_off = (uint16_t)l4;
	pkt->udp_sport = rte_be_to_cpu_16(udp->src_port);
	pkt->len = l4 + ulen;
	return 0;
}

int
roce_parse(const struct rte_mbuf *m, struct roce_pkt *pkt)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint32_t avail = RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), len);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	int ret;

	pkt->m = m;
	pkt->flags = 0;
	pkt->hdr = p;
	/*
	 * Segments that hold fewer bytes than pkt_len: everything after the
	 * parser (ICRC, payload copies, MADs) may then trust pkt_len.
	 */
	if (unlikely(!roce_mbuf_holds(m)))
		return -ROCE_DROP_TRUNC_ETH;
	/*
	 * In place when every header lies in the first segment: also a
	 * chained frame whose first segment holds just the headers (a
	 * zero-copy packet: headers, attached payload, ICRC).
	 */
	ret = parse_headers(m, p, avail, pkt);
	if (likely(ret == 0) || avail >= len || avail >= ROCE_PARSE_HDR_MAX)
		return ret;
	/* Chained, first segment short: bounce the header bytes, again. */
	avail = RTE_MIN(len, (uint32_t)ROCE_PARSE_HDR_MAX);
	if (unlikely(roce_mbuf_gather(m, 0, avail, pkt->bounce) != avail))
		return -ROCE_DROP_TRUNC_ETH;
	pkt->hdr = NULL;
	pkt->flags = ROCE_PKT_BOUNCED;
	return parse_headers(m, pkt->bounce, avail, pkt);
}
