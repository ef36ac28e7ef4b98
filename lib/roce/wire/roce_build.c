/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 transmit header builder: straight stores of whole words, no
 * read-modify-write of the (uninitialised) destination.
 */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "roce_build.h"
#include "roce_icrc.h"

static inline uint32_t
l2_len(const struct roce_hdr_fields *f)
{
	return ROCE_ETH_HLEN + (f->vlan ? ROCE_VLAN_HLEN : 0);
}

/* Opcode entry of @p f: the selective-repeat variant when it has an SRX. */
static inline const struct roce_opcode_info *
build_op(const struct roce_hdr_fields *f)
{
	return f->srx != NULL ? roce_opcode_srx_info(f->opcode) :
				roce_opcode_info(f->opcode);
}

static inline uint32_t
l3_len(const struct roce_hdr_fields *f)
{
	return f->ip_ver == 4 ? ROCE_IPV4_HLEN : ROCE_IPV6_HLEN;
}

int
roce_build_hdr_len(const struct roce_hdr_fields *f)
{
	if (build_op(f)->name == NULL || (f->ip_ver != 4 && f->ip_ver != 6))
		return -EINVAL;
	return (int)(l2_len(f) + l3_len(f) + ROCE_UDP_HLEN +
		     build_op(f)->hdr_len);
}

static uint8_t *
write_eth(uint8_t *p, const struct roce_hdr_fields *f)
{
	struct rte_vlan_hdr *vlan;
	rte_be16_t type = rte_cpu_to_be_16(f->ip_ver == 4 ?
		RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);

	memcpy(p, &f->dst_mac, RTE_ETHER_ADDR_LEN);
	memcpy(p + RTE_ETHER_ADDR_LEN, &f->src_mac, RTE_ETHER_ADDR_LEN);
	p += 2 * RTE_ETHER_ADDR_LEN;
	if (f->vlan) {
		memcpy(p, &(rte_be16_t){ RTE_BE16(RTE_ETHER_TYPE_VLAN) }, 2);
		vlan = (struct rte_vlan_hdr *)(p + 2);
		vlan->vlan_tci = rte_cpu_to_be_16(f->vlan_tci);
		vlan->eth_proto = type;
		return p + 2 + ROCE_VLAN_HLEN;
	}
	memcpy(p, &type, 2);
	return p + 2;
}

/* IPv4 header for a UDP datagram of ulen bytes (RFC 791). */
static uint8_t *
write_ipv4(uint8_t *p, const struct roce_hdr_fields *f, uint32_t ulen)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = f->tos;
	ip->total_length = rte_cpu_to_be_16(ROCE_IPV4_HLEN + ulen);
	ip->packet_id = rte_cpu_to_be_16(f->ip_id);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = f->ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	memcpy(&ip->src_addr, f->sgid + 12, 4);
	memcpy(&ip->dst_addr, f->dgid + 12, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return p + ROCE_IPV4_HLEN;
}

/* IPv6 header for a UDP datagram of ulen bytes (RFC 8200). */
static uint8_t *
write_ipv6(uint8_t *p, const struct roce_hdr_fields *f, uint32_t ulen)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;

	roce_ipv6_set_vtc_flow(ip, f->tos, f->flow_label);
	ip->payload_len = rte_cpu_to_be_16(ulen);
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = f->ttl;
	memcpy(ip->src_addr, f->sgid, 16);
	memcpy(ip->dst_addr, f->dgid, 16);
	return p + ROCE_IPV6_HLEN;
}

/* BTH (IBTA 9.2): whole words, reserved bits and TVer 0. */
static void
write_bth(uint8_t *p, const struct roce_hdr_fields *f, uint32_t pad)
{
	struct roce_bth *bth = (struct roce_bth *)p;

	bth->opcode = f->opcode;
	bth->flags = (uint8_t)((f->se ? ROCE_BTH_SE : 0) |
			       (f->mig ? ROCE_BTH_MIG : 0) | pad << 4);
	bth->pkey = rte_cpu_to_be_16(f->pkey);
	bth->qpn = rte_cpu_to_be_32((f->fecn ? ROCE_BTH_FECN : 0) |
				    (f->becn ? ROCE_BTH_BECN : 0) |
				    (f->dqpn & ROCE_BTH_QPN));
	bth->apsn = rte_cpu_to_be_32((f->ackreq ? ROCE_BTH_ACKREQ : 0) |
				     (f->srx != NULL ? ROCE_BTH_APSN_SRX : 0) |
				     (f->psn & ROCE_BTH_PSN));
}

/* Extension headers (IBTA 9.3) at the offsets of the opcode table. */
static void
write_ext(uint8_t *bth, const struct roce_opcode_info *op,
	  const struct roce_hdr_fields *f)
{
	const uint8_t *off = op->off;

	if (off[ROCE_EXT_DETH]) {
		struct roce_deth *d = (void *)(bth + off[ROCE_EXT_DETH]);

		d->qkey = rte_cpu_to_be_32(f->qkey);
		d->sqpn = rte_cpu_to_be_32(f->src_qpn & 0xffffff);
	}
	if (off[ROCE_EXT_RETH]) {
		struct roce_reth *r = (void *)(bth + off[ROCE_EXT_RETH]);

		roce_reth_set_va(r, f->va);
		roce_reth_set_rkey(r, f->rkey);
		roce_reth_set_len(r, f->dma_len);
	}
	if (off[ROCE_EXT_ATMETH]) {
		struct roce_atmeth *a = (void *)(bth + off[ROCE_EXT_ATMETH]);

		roce_atmeth_set_va(a, f->va);
		roce_atmeth_set_rkey(a, f->rkey);
		roce_atmeth_set_swap_add(a, f->swap_add);
		roce_atmeth_set_compare(a, f->compare);
	}
	if (off[ROCE_EXT_AETH]) {
		struct roce_aeth *a = (void *)(bth + off[ROCE_EXT_AETH]);

		a->smsn = rte_cpu_to_be_32((uint32_t)f->syndrome << 24 |
					   (f->msn & 0xffffff));
	}
	if (off[ROCE_EXT_ATMACK])
		roce_atmack_set_orig((void *)(bth + off[ROCE_EXT_ATMACK]),
				     f->orig);
	if (off[ROCE_EXT_IMMDT])
		roce_immdt_set_imm((void *)(bth + off[ROCE_EXT_IMMDT]), f->imm);
	if (off[ROCE_EXT_IETH])
		roce_ieth_set_rkey((void *)(bth + off[ROCE_EXT_IETH]),
				   f->inv_rkey);
	if (off[ROCE_EXT_CNP])
		memset(bth + off[ROCE_EXT_CNP], 0, ROCE_CNP_RSVD_LEN);
	if (f->srx != NULL) {
		/* selective repeat: after the IBTA headers (roce_sr.h) */
		uint8_t xlen = op->hdr_len -
			roce_opcode_info(f->opcode)->hdr_len;

		memcpy(bth + op->hdr_len - xlen, f->srx, xlen);
	}
}

int
roce_build_hdr(void *buf, uint32_t size, const struct roce_hdr_fields *f,
	       uint32_t payload_len)
{
	const struct roce_opcode_info *op;
	int hlen = roce_build_hdr_len(f);
	uint32_t pad, ulen;
	struct rte_udp_hdr *udp;
	uint8_t *p = buf;

	if (hlen < 0)
		return hlen;
	if (size < (uint32_t)hlen)
		return -ENOSPC;
	op = build_op(f);
	if (payload_len != 0 && !(op->flags & ROCE_OPF_PAYLOAD))
		return -EINVAL;
	/* IBTA 9.2.4: pad the payload to a multiple of 4 bytes; first and
	 * middle packets carry a whole PMTU and are never padded. */
	pad = -payload_len & 3;
	if (pad != 0 && !(op->flags & ROCE_OPF_LAST))
		return -EINVAL;
	if (payload_len > UINT16_MAX)
		return -EMSGSIZE;
	ulen = ROCE_UDP_HLEN + op->hdr_len + payload_len + pad + ROCE_ICRC_LEN;
	if (ulen + (f->ip_ver == 4 ? ROCE_IPV4_HLEN : 0) > UINT16_MAX)
		return -EMSGSIZE;

	p = write_eth(p, f);
	if (f->ip_ver == 4)
		p = write_ipv4(p, f, ulen);
	else
		p = write_ipv6(p, f, ulen);
	udp = (struct rte_udp_hdr *)p;
	udp->src_port = rte_cpu_to_be_16(f->udp_sport);
	udp->dst_port = RTE_BE16(ROCE_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(ulen);
	udp->dgram_cksum = 0;
	p += ROCE_UDP_HLEN;
	write_bth(p, f, pad);
	write_ext(p, op, f);
	return hlen;
}

int
roce_build_mbuf(struct rte_mbuf *m, const struct roce_hdr_fields *f)
{
	uint32_t plen = rte_pktmbuf_pkt_len(m);
	uint32_t tail = (-plen & 3) + ROCE_ICRC_LEN;
	int hlen = roce_build_hdr_len(f);
	char *hdr, *trailer;
	int ret;

	if (hlen < 0)
		return hlen;
	if (rte_pktmbuf_headroom(m) < (uint32_t)hlen ||
	    rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < tail)
		return -ENOSPC;
	/* Write into the headroom first, so that an error leaves m as it was. */
	hdr = rte_pktmbuf_mtod(m, char *) - hlen;
	ret = roce_build_hdr(hdr, (uint32_t)hlen, f, plen);
	if (ret < 0)
		return ret;
	rte_pktmbuf_prepend(m, (uint16_t)hlen);
	trailer = rte_pktmbuf_append(m, (uint16_t)tail);
	memset(trailer, 0, tail);
	/* one store: three bit-field updates would each read it back */
	m->tx_offload = rte_mbuf_tx_offload(l2_len(f), l3_len(f),
					    ROCE_UDP_HLEN, 0, 0, 0, 0);
	return 0;
}

/* Template lengths: Ethernet (+ tag) + IP + UDP. */
enum {
	TMPL_V4 = ROCE_ETH_HLEN + ROCE_IPV4_HLEN + ROCE_UDP_HLEN,
	TMPL_V4_VLAN = TMPL_V4 + ROCE_VLAN_HLEN,
	TMPL_V6 = ROCE_ETH_HLEN + ROCE_IPV6_HLEN + ROCE_UDP_HLEN,
	TMPL_V6_VLAN = TMPL_V6 + ROCE_VLAN_HLEN,
};

/* One's complement sum folded to 16 bits. */
static inline uint16_t
csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

int
roce_build_mbuf_tmpl(struct rte_mbuf *m, const uint8_t *tmpl,
		     uint16_t tmpl_len, const struct roce_hdr_fields *f)
{
	const struct roce_opcode_info *op;
	uint32_t plen = rte_pktmbuf_pkt_len(m);
	uint32_t pad = -plen & 3, ulen, hlen, l2;
	struct rte_mbuf *last;
	struct rte_udp_hdr *udp;
	uint8_t *hdr, *trailer;
	bool v4;

	op = build_op(f);
	if (unlikely(op->name == NULL))
		return -EINVAL;
	if (unlikely((plen != 0 && !(op->flags & ROCE_OPF_PAYLOAD)) ||
		     (pad != 0 && !(op->flags & ROCE_OPF_LAST))))
		return -EINVAL;
	hlen = tmpl_len + op->hdr_len;
	ulen = ROCE_UDP_HLEN + op->hdr_len + plen + pad + ROCE_ICRC_LEN;
	last = rte_pktmbuf_lastseg(m);
	if (unlikely(rte_pktmbuf_headroom(m) < hlen ||
		     rte_pktmbuf_tailroom(last) < pad + ROCE_ICRC_LEN))
		return -ENOSPC;
	hdr = rte_pktmbuf_mtod(m, uint8_t *) - hlen;
	/* constant-size copies: a few vector moves */
	switch (tmpl_len) {
	case TMPL_V4:
		memcpy(hdr, tmpl, TMPL_V4);
		v4 = true;
		l2 = ROCE_ETH_HLEN;
		break;
	case TMPL_V4_VLAN:
		memcpy(hdr, tmpl, TMPL_V4_VLAN);
		v4 = true;
		l2 = ROCE_ETH_HLEN + ROCE_VLAN_HLEN;
		break;
	case TMPL_V6:
		memcpy(hdr, tmpl, TMPL_V6);
		v4 = false;
		l2 = ROCE_ETH_HLEN;
		break;
	case TMPL_V6_VLAN:
		memcpy(hdr, tmpl, TMPL_V6_VLAN);
		v4 = false;
		l2 = ROCE_ETH_HLEN + ROCE_VLAN_HLEN;
		break;
	default:
		return -EINVAL;
	}
	if (v4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(hdr + l2);
		/* old values from the template, not from the copy just stored */
		const struct rte_ipv4_hdr *tip =
			(const struct rte_ipv4_hdr *)(tmpl + l2);
		rte_be16_t old = tip->total_length;
		rte_be16_t len;

		if (unlikely(ulen + ROCE_IPV4_HLEN > UINT16_MAX))
			return -EMSGSIZE;
		len = rte_cpu_to_be_16((uint16_t)(ROCE_IPV4_HLEN + ulen));
		ip->total_length = len;
		/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
		ip->hdr_checksum = (rte_be16_t)~csum_fold(
			(uint32_t)(uint16_t)~tip->hdr_checksum +
			(uint16_t)~old + len);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(hdr + l2);

		if (unlikely(ulen > UINT16_MAX))
			return -EMSGSIZE;
		ip->payload_len = rte_cpu_to_be_16((uint16_t)ulen);
	}
	udp = (struct rte_udp_hdr *)(hdr + tmpl_len - ROCE_UDP_HLEN);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)ulen);
	write_bth(hdr + tmpl_len, f, pad);
	write_ext(hdr + tmpl_len, op, f);
	m->data_off -= (uint16_t)hlen;
	m->data_len += (uint16_t)hlen;
	m->pkt_len += hlen;
	trailer = rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len);
	/* the pad and the ICRC slot: two fixed stores cover pad + 4 bytes */
	memset(trailer, 0, ROCE_ICRC_LEN);
	memset(trailer + pad, 0, ROCE_ICRC_LEN);
	last->data_len += (uint16_t)(pad + ROCE_ICRC_LEN);
	m->pkt_len += pad + ROCE_ICRC_LEN;
	/*
	 * One store: three bit-field updates would each read back what the
	 * last one stored (a store-forwarding stall on the mbuf per frame).
	 */
	m->tx_offload = rte_mbuf_tx_offload(l2, v4 ? ROCE_IPV4_HLEN :
					    ROCE_IPV6_HLEN, ROCE_UDP_HLEN,
					    0, 0, 0, 0);
	return 0;
}

void
roce_build_fields_from_pkt(struct roce_hdr_fields *f,
			   const struct roce_pkt *pkt)
{
	const struct roce_bth *bth = roce_pkt_bth(pkt);
	const struct rte_ipv4_hdr *ip4 = roce_pkt_ipv4(pkt);
	const struct roce_reth *reth = roce_pkt_reth(pkt);
	const struct roce_atmeth *atm = roce_pkt_atmeth(pkt);
	const struct roce_aeth *aeth = roce_pkt_aeth(pkt);
	const struct roce_atmack *ack = roce_pkt_atmack(pkt);
	const struct roce_immdt *imm = roce_pkt_immdt(pkt);
	const struct roce_ieth *ieth = roce_pkt_ieth(pkt);
	const struct roce_deth *deth = roce_pkt_deth(pkt);

	memset(f, 0, sizeof(*f));
	rte_ether_addr_copy(&roce_pkt_eth(pkt)->dst_addr, &f->dst_mac);
	rte_ether_addr_copy(&roce_pkt_eth(pkt)->src_addr, &f->src_mac);
	f->vlan = (pkt->flags & ROCE_PKT_VLAN) != 0;
	f->vlan_tci = pkt->vlan_tci;
	f->ip_ver = pkt->ip_ver;
	f->tos = (uint8_t)(pkt->dscp << 2 | pkt->ecn);
	f->ttl = pkt->ttl;
	f->ip_id = ip4 != NULL ? rte_be_to_cpu_16(ip4->packet_id) : 0;
	f->flow_label = pkt->flow_label;
	memcpy(f->sgid, pkt->sgid, 16);
	memcpy(f->dgid, pkt->dgid, 16);
	f->udp_sport = pkt->udp_sport;

	f->opcode = pkt->opcode;
	f->se = roce_bth_se(bth);
	f->mig = roce_bth_mig(bth);
	f->fecn = roce_bth_fecn(bth);
	f->becn = roce_bth_becn(bth);
	f->ackreq = roce_bth_ackreq(bth);
	f->pkey = roce_bth_pkey(bth);
	f->dqpn = roce_bth_dqpn(bth);
	f->psn = roce_bth_psn(bth);

	if (reth != NULL) {
		f->va = roce_reth_va(reth);
		f->rkey = roce_reth_rkey(reth);
		f->dma_len = roce_reth_len(reth);
	}
	if (atm != NULL) {
		f->va = roce_atmeth_va(atm);
		f->rkey = roce_atmeth_rkey(atm);
		f->swap_add = roce_atmeth_swap_add(atm);
		f->compare = roce_atmeth_compare(atm);
	}
	if (aeth != NULL) {
		f->syndrome = roce_aeth_syndrome(aeth);
		f->msn = roce_aeth_msn(aeth);
	}
	if (ack != NULL)
		f->orig = roce_atmack_orig(ack);
	if (imm != NULL)
		f->imm = roce_immdt_imm(imm);
	if (ieth != NULL)
		f->inv_rkey = roce_ieth_rkey(ieth);
	if (deth != NULL) {
		f->qkey = roce_deth_qkey(deth);
		f->src_qpn = roce_deth_sqpn(deth);
	}
}
