/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) and IPv6 neighbour discovery (RFC 4861) for the local
 * addresses of a net_ernic port, and the neighbour table that resolves
 * peer GIDs to MAC addresses.
 *
 * The table is an rte_hash (GID -> entry index) with lock-free readers;
 * entries are never freed, and an entry's MAC and state are one 64-bit
 * word published with a release store. Writers (worker 0 learning from
 * ARP/ND, rte_pmd_ernic_resolve() callers) take the table spinlock.
 */
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "ernic_priv.h"
#include "roce_hdr.h"
#include "rte_pmd_ernic.h"

/* RFC 4861 10: RETRANS_TIMER 1 s, MAX_MULTICAST_SOLICIT 3 (ARP alike). */
#define ERNIC_NEIGH_RETRANS_MS 1000
#define ERNIC_NEIGH_PROBES 3

enum {
	ND_NS = 135,
	ND_NA = 136,
	ND_OPT_SLLA = 1,
	ND_OPT_TLLA = 2,
	ND_HDR_LEN = 24,		/**< type, code, csum, flags, target */
	ND_OPT_LLA_LEN = 8,
	ND_NA_SOLICITED = 0x40,
	ND_NA_OVERRIDE = 0x20,
};

/* ------------------------------------------------------------------ */
/* helpers                                                            */
/* ------------------------------------------------------------------ */

static inline uint64_t
word_make(const uint8_t *mac, enum ernic_neigh_state st)
{
	uint64_t v = (uint64_t)st << 48;
	unsigned int i;

	for (i = 0; i < 6; i++)
		v |= (uint64_t)mac[i] << (8 * i);
	return v;
}

static inline enum ernic_neigh_state
word_state(uint64_t v)
{
	return (enum ernic_neigh_state)((v >> 48) & 0xff);
}

static inline void
word_mac(uint64_t v, uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)(v >> (8 * i));
}

static inline bool
gid_is_v4(const union roce_gid *g)
{
	static const uint8_t pfx[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

static inline void
gid_from_v4(union roce_gid *g, rte_be32_t a)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	memcpy(&g->raw[12], &a, 4);
}

static inline bool
ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

bool
ernic_is_local_ip6(const struct ernic_port *p, const uint8_t *ip6)
{
	/* gid[0] is the link-local address */
	if (memcmp(ip6, p->gid[0].raw, 16) == 0)
		return true;
	return p->args.has_ip6 && memcmp(ip6, p->args.ip6, 16) == 0;
}

static struct ernic_neigh_entry *
neigh_lookup(const struct ernic_port *p, const union roce_gid *g)
{
	void *data;

	if (rte_hash_lookup_data(p->neigh.h, g->raw, &data) < 0)
		return NULL;
	return &p->neigh.e[(uintptr_t)data];
}

/* Writer: find or add the entry of @p g (table lock held). */
static struct ernic_neigh_entry *
neigh_get(struct ernic_port *p, const union roce_gid *g, uint64_t *cnt)
{
	struct ernic_neigh *nt = &p->neigh;
	struct ernic_neigh_entry *e = neigh_lookup(p, g);

	if (e != NULL)
		return e;
	if (nt->nb >= ERNIC_NEIGH_MAX) {
		cnt[ERNIC_CNT_DROP_NEIGH_FULL]++;
		return NULL;
	}
	e = &nt->e[nt->nb];
	memset(e, 0, sizeof(*e));
	e->ip = *g;
	if (rte_hash_add_key_data(nt->h, g->raw,
				  (void *)(uintptr_t)nt->nb) != 0) {
		cnt[ERNIC_CNT_DROP_NEIGH_FULL]++;
		return NULL;
	}
	nt->nb++;
	return e;
}

/* Learn @p g at @p mac; a new entry only when @p create (RFC 826 merge). */
static void
neigh_learn(struct ernic_port *p, const union roce_gid *g,
	    const uint8_t *mac, bool create, uint64_t *cnt)
{
	struct ernic_neigh_entry *e;

	if (!rte_is_unicast_ether_addr((const struct rte_ether_addr *)mac) ||
	    rte_is_zero_ether_addr((const struct rte_ether_addr *)mac))
		return;
	rte_spinlock_lock(&p->neigh.lock);
	e = create ? neigh_get(p, g, cnt) : neigh_lookup(p, g);
	if (e != NULL) {
		__atomic_store_n(&e->word, word_make(mac, ERNIC_NEIGH_REACHABLE),
				 __ATOMIC_RELEASE);
		e->probes = 0;
		e->confirmed_tsc = rte_get_tsc_cycles();
	}
	rte_spinlock_unlock(&p->neigh.lock);
	if (e != NULL)
		ERNIC_NEIGH_LOG(DEBUG, "port %u: neighbour learnt (%02x:%02x:%02x:%02x:%02x:%02x)",
				p->port_id, mac[0], mac[1], mac[2], mac[3],
				mac[4], mac[5]);
}

int
ernic_neigh_init(struct ernic_port *p)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.entries = ERNIC_NEIGH_MAX,
		.key_len = 16,
		.hash_func = rte_jhash,
		.hash_func_init_val = 0,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	snprintf(name, sizeof(name), "ernic%u_nb", p->port_id);
	hp.name = name;
	hp.socket_id = p->socket;
	rte_spinlock_init(&p->neigh.lock);
	p->neigh.h = rte_hash_create(&hp);
	p->neigh.e = rte_zmalloc_socket("ernic_neigh",
					ERNIC_NEIGH_MAX * sizeof(*p->neigh.e),
					RTE_CACHE_LINE_SIZE, p->socket);
	if (p->neigh.h == NULL || p->neigh.e == NULL) {
		ERNIC_LOG(ERR, "port %u: cannot create the neighbour table: %s",
			  p->port_id, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

void
ernic_neigh_fini(struct ernic_port *p)
{
	rte_hash_free(p->neigh.h);
	rte_free(p->neigh.e);
	p->neigh.h = NULL;
	p->neigh.e = NULL;
	p->neigh.nb = 0;
}

/* ------------------------------------------------------------------ */
/* frame building                                                     */
/* ------------------------------------------------------------------ */

/* Ethernet (+ our VLAN tag) header; returns the L3 offset. */
static uint16_t
put_eth(const struct ernic_port *p, uint8_t *f, const uint8_t *dst,
	uint16_t etype)
{
	uint16_t off = ROCE_ETH_HLEN;

	memcpy(f, dst, 6);
	memcpy(f + 6, p->mac.addr_bytes, 6);
	if (p->args.has_vlan) {
		f[12] = RTE_ETHER_TYPE_VLAN >> 8;
		f[13] = RTE_ETHER_TYPE_VLAN & 0xff;
		f[14] = (uint8_t)(p->args.vlan >> 8);
		f[15] = (uint8_t)p->args.vlan;
		off += ROCE_VLAN_HLEN;
	}
	f[off - 2] = (uint8_t)(etype >> 8);
	f[off - 1] = (uint8_t)etype;
	return off;
}

static struct rte_mbuf *
frame_alloc(const struct ernic_port *p, uint16_t len, uint8_t **f,
	    uint64_t *cnt)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(p->tx_pool);

	if (m == NULL || rte_pktmbuf_append(m, len) == NULL) {
		rte_pktmbuf_free(m);
		cnt[ERNIC_CNT_DROP_NOMBUF]++;
		return NULL;
	}
	*f = rte_pktmbuf_mtod(m, uint8_t *);
	memset(*f, 0, len);
	return m;
}

/* Send an ARP packet (RFC 826) through the out ring. */
static int
arp_send(struct ernic_port *p, uint16_t op, const uint8_t *eth_dst,
	 const uint8_t *tha, rte_be32_t tip, uint64_t *cnt)
{
	static const uint8_t zero[6];
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;
	uint16_t off, len;
	uint8_t *f;

	len = ROCE_ETH_HLEN + (p->args.has_vlan ? ROCE_VLAN_HLEN : 0) +
		sizeof(*arp);
	m = frame_alloc(p, len, &f, cnt);
	if (m == NULL)
		return -ENOBUFS;
	off = put_eth(p, f, eth_dst, RTE_ETHER_TYPE_ARP);
	arp = (struct rte_arp_hdr *)(f + off);
	arp->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	memcpy(&arp->arp_data.arp_sha, p->mac.addr_bytes, 6);
	arp->arp_data.arp_sip = p->args.ip4;
	memcpy(&arp->arp_data.arp_tha, tha != NULL ? tha : zero, 6);
	arp->arp_data.arp_tip = tip;
	if (ernic_out_enqueue(p, m, cnt) != 0)
		return -ENOBUFS;
	cnt[ERNIC_CNT_TX_ARP]++;
	return 0;
}

/* Send an NS or NA (RFC 4861 4.3, 4.4) with our link-layer address option. */
static int
nd_send(struct ernic_port *p, uint8_t type, uint8_t flags,
	const uint8_t *eth_dst, const uint8_t *src, const uint8_t *dst,
	const uint8_t *target, uint64_t *cnt)
{
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint16_t off, len, plen = ND_HDR_LEN + ND_OPT_LLA_LEN, ck;
	uint8_t *f, *icmp;

	len = ROCE_ETH_HLEN + (p->args.has_vlan ? ROCE_VLAN_HLEN : 0) +
		ROCE_IPV6_HLEN + plen;
	m = frame_alloc(p, len, &f, cnt);
	if (m == NULL)
		return -ENOBUFS;
	off = put_eth(p, f, eth_dst, RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(f + off);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(plen);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;		/* RFC 4861 7.1.1 */
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	icmp = f + off + ROCE_IPV6_HLEN;
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[25] = 1;			/* length in units of 8 bytes */
	memcpy(icmp + 26, p->mac.addr_bytes, 6);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
	if (ernic_out_enqueue(p, m, cnt) != 0)
		return -ENOBUFS;
	cnt[ERNIC_CNT_TX_ND]++;
	return 0;
}

/* Solicited-node multicast address and MAC of @p target (RFC 4291 2.7.1). */
static void
solicited_node(const uint8_t *target, uint8_t *ip, uint8_t *mac)
{
	memset(ip, 0, 16);
	ip[0] = 0xff;
	ip[1] = 0x02;
	ip[11] = 0x01;
	ip[12] = 0xff;
	memcpy(ip + 13, target + 13, 3);
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, ip + 12, 4);
}

static int
neigh_probe(struct ernic_port *p, const union roce_gid *g, uint64_t *cnt)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t dip[16], dmac[6];
	const uint8_t *src;

	if (gid_is_v4(g)) {
		rte_be32_t tip;

		memcpy(&tip, &g->raw[12], 4);
		return arp_send(p, RTE_ARP_OP_REQUEST, bcast, NULL, tip, cnt);
	}
	/* source: link-local for a link-local target, else the global one */
	src = (!ip6_is_link_local(g->raw) && p->args.has_ip6) ?
		p->args.ip6 : p->gid[0].raw;
	solicited_node(g->raw, dip, dmac);
	return nd_send(p, ND_NS, 0, dmac, src, dip, g->raw, cnt);
}

/* A unicast request to the MAC we know (RFC 1122 2.3.2.1, RFC 4861 7.3.3). */
static int
neigh_refresh(struct ernic_port *p, const struct ernic_neigh_entry *e,
	      uint64_t *cnt)
{
	uint8_t mac[6];
	const uint8_t *src;

	word_mac(e->word, mac);
	if (gid_is_v4(&e->ip)) {
		rte_be32_t tip;

		memcpy(&tip, &e->ip.raw[12], 4);
		return arp_send(p, RTE_ARP_OP_REQUEST, mac, mac, tip, cnt);
	}
	src = (!ip6_is_link_local(e->ip.raw) && p->args.has_ip6) ?
		p->args.ip6 : p->gid[0].raw;
	return nd_send(p, ND_NS, 0, mac, src, e->ip.raw, e->ip.raw, cnt);
}

void
ernic_neigh_age(struct ernic_port *p, uint64_t now)
{
	struct ernic_neigh *nt = &p->neigh;
	uint64_t hz, reachable, retrans;
	struct ernic_neigh_entry *e;
	uint32_t i;

	if (now < nt->age_next_tsc)	/* every poll of worker 0: cheap */
		return;
	hz = rte_get_tsc_hz();
	reachable = hz * p->args.neigh_reachable;
	retrans = hz * ERNIC_NEIGH_RETRANS_MS / 1000;
	nt->age_next_tsc = now + hz / 10;	/* ten scans a second */
	if (!rte_spinlock_trylock(&nt->lock))
		return;				/* a resolver: next scan */
	for (i = 0; i < nt->nb; i++) {
		e = &nt->e[i];
		/* the kernel's entries: it confirms them (ernic_kneigh.c) */
		if (e->kernel ||
		    word_state(e->word) != ERNIC_NEIGH_REACHABLE ||
		    ernic_tsc_since(now, e->confirmed_tsc) < reachable)
			continue;
		if (e->probes != 0 &&
		    ernic_tsc_since(now, e->probe_tsc) < retrans)
			continue;
		if (e->probes >= ERNIC_NEIGH_PROBES) {
			/* no answer: forget the MAC, resolve again on use */
			__atomic_store_n(&e->word,
					 (uint64_t)ERNIC_NEIGH_FAILED << 48,
					 __ATOMIC_RELEASE);
			e->probes = 0;
			nt->cnt[ERNIC_CNT_NEIGH_EXPIRED]++;
			continue;
		}
		if (neigh_refresh(p, e, nt->cnt) == 0)
			nt->cnt[ERNIC_CNT_NEIGH_REFRESH]++;
		e->probes++;
		e->probe_tsc = now;
	}
	rte_spinlock_unlock(&nt->lock);
}

/* ------------------------------------------------------------------ */
/* input (worker 0)                                                   */
/* ------------------------------------------------------------------ */

static void
arp_input(struct ernic_worker *w, struct rte_mbuf *m, uint16_t off)
{
	struct ernic_port *p = w->port;
	struct rte_arp_hdr *arp;
	union roce_gid g;
	uint8_t sha[6];
	rte_be32_t sip;

	if (rte_pktmbuf_data_len(m) < off + sizeof(*arp))
		goto bad;
	arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, off);
	if (arp->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4 ||
	    (arp->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	     arp->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY)) ||
	    !rte_is_unicast_ether_addr(&arp->arp_data.arp_sha))
		goto bad;
	memcpy(sha, &arp->arp_data.arp_sha, 6);
	sip = arp->arp_data.arp_sip;
	/* RFC 826: we are the target, so merge or add the sender. */
	if (sip != 0) {
		gid_from_v4(&g, sip);
		neigh_learn(p, &g, sha, true, w->cnt);
	}
	if (arp->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST))
		arp_send(p, RTE_ARP_OP_REPLY, sha, sha, sip, w->cnt);
	rte_pktmbuf_free(m);
	return;
bad:
	w->cnt[ERNIC_CNT_DROP_ARP_INVALID]++;
	rte_pktmbuf_free(m);
}

/* Link-layer address option @p type of an NS/NA, NULL when absent. */
static const uint8_t *
nd_find_lla(const uint8_t *opt, uint32_t len, uint8_t type, bool *bad)
{
	const uint8_t *lla = NULL;
	uint32_t olen;

	*bad = false;
	while (len >= 2) {
		olen = opt[1] * 8u;
		if (olen == 0 || olen > len) {	/* RFC 4861 7.1.1 */
			*bad = true;
			return NULL;
		}
		if (opt[0] == type && olen >= ND_OPT_LLA_LEN)
			lla = opt + 2;
		opt += olen;
		len -= olen;
	}
	return lla;
}

static void
nd_input(struct ernic_worker *w, struct rte_mbuf *m, uint16_t off)
{
	static const uint8_t unspec[16];
	static const uint8_t all_nodes[16] = {
		0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 };
	static const uint8_t all_nodes_mac[6] = {
		0x33, 0x33, 0, 0, 0, 0x01 };
	struct ernic_port *p = w->port;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *icmp, *lla, *eth;
	union roce_gid g, target;
	uint32_t plen;
	bool bad, from_unspec;

	if (rte_pktmbuf_data_len(m) < off + ROCE_IPV6_HLEN + ND_HDR_LEN)
		goto bad;
	eth = rte_pktmbuf_mtod(m, const uint8_t *);
	ip = (const struct rte_ipv6_hdr *)(eth + off);
	icmp = (const uint8_t *)(ip + 1);
	plen = rte_be_to_cpu_16(ip->payload_len);
	/* RFC 4861 7.1.1 / 7.1.2 validity checks */
	if (plen < ND_HDR_LEN ||
	    rte_pktmbuf_data_len(m) < off + ROCE_IPV6_HLEN + plen ||
	    ip->hop_limits != 255 || icmp[1] != 0 ||
	    rte_ipv6_udptcp_cksum_verify(ip, icmp) != 0 ||
	    (icmp[8] == 0xff))	/* target must not be multicast */
		goto bad;
	memcpy(target.raw, icmp + 8, 16);
	from_unspec = memcmp(ip->src_addr, unspec, 16) == 0;

	if (icmp[0] == ND_NS) {
		lla = nd_find_lla(icmp + ND_HDR_LEN, plen - ND_HDR_LEN,
				  ND_OPT_SLLA, &bad);
		if (bad || (from_unspec && lla != NULL))
			goto bad;
		if (!from_unspec && lla != NULL) {
			memcpy(g.raw, ip->src_addr, 16);
			neigh_learn(p, &g, lla, true, w->cnt);
		}
		/* RFC 4861 7.2.4: solicited NA to the source, or all-nodes for DAD */
		if (from_unspec)
			nd_send(p, ND_NA, ND_NA_OVERRIDE, all_nodes_mac,
				target.raw, all_nodes, target.raw, w->cnt);
		else
			nd_send(p, ND_NA, ND_NA_SOLICITED | ND_NA_OVERRIDE,
				lla != NULL ? lla : eth + 6, target.raw,
				ip->src_addr, target.raw, w->cnt);
	} else {
		lla = nd_find_lla(icmp + ND_HDR_LEN, plen - ND_HDR_LEN,
				  ND_OPT_TLLA, &bad);
		if (bad)
			goto bad;
		/* RFC 4861 7.2.5: update an existing entry only */
		if (lla != NULL)
			neigh_learn(p, &target, lla, false, w->cnt);
	}
	rte_pktmbuf_free(m);
	return;
bad:
	w->cnt[ERNIC_CNT_DROP_ND_INVALID]++;
	rte_pktmbuf_free(m);
}

void
ernic_neigh_input(struct ernic_worker *w, struct rte_mbuf *m)
{
	const uint8_t *f;
	uint16_t off = ROCE_ETH_HLEN, etype;

	/* Headers of ARP and ND frames must be in the first segment. */
	if (rte_pktmbuf_data_len(m) < ROCE_ETH_HLEN + ROCE_VLAN_HLEN) {
		w->cnt[ERNIC_CNT_DROP_ARP_INVALID]++;
		rte_pktmbuf_free(m);
		return;
	}
	f = rte_pktmbuf_mtod(m, const uint8_t *);
	etype = (uint16_t)(f[12] << 8 | f[13]);
	if (etype == RTE_ETHER_TYPE_VLAN) {
		etype = (uint16_t)(f[16] << 8 | f[17]);
		off += ROCE_VLAN_HLEN;
	}
	if (etype == RTE_ETHER_TYPE_ARP) {
		w->cnt[ERNIC_CNT_RX_ARP]++;
		arp_input(w, m, off);
	} else {
		w->cnt[ERNIC_CNT_RX_ND]++;
		nd_input(w, m, off);
	}
}

/* ------------------------------------------------------------------ */
/* resolution                                                         */
/* ------------------------------------------------------------------ */

static bool
gid_is_local(const struct ernic_port *p, const union roce_gid *g)
{
	unsigned int i;

	for (i = 0; i < p->nb_gid; i++)
		if (memcmp(p->gid[i].raw, g->raw, 16) == 0)
			return true;
	return false;
}

int
rte_pmd_ernic_resolve(uint16_t port_id, const union roce_gid *gid,
		      uint8_t mac[6])
{
	struct ernic_port *p = ernic_port_get(port_id);
	const uint64_t retrans = rte_get_tsc_hz() * ERNIC_NEIGH_RETRANS_MS /
		1000;
	struct ernic_neigh_entry *e;
	union roce_gid gw;
	uint64_t word, now;
	int ret;

	if (p == NULL)
		return -ENODEV;
	if (gid == NULL || mac == NULL || gid->raw[0] == 0xff)
		return -EINVAL;
	if (gid_is_local(p, gid)) {
		memcpy(mac, p->mac.addr_bytes, 6);
		return 0;
	}
	if (gid_is_v4(gid) ? !p->args.has_ip4 : false) {
		ERNIC_NEIGH_LOG(DEBUG, "port %u: no ip= to resolve an IPv4 GID",
				p->port_id);
		return -EHOSTUNREACH;
	}
	/* gw=: an IPv4 destination off the prefix of ip= is the gateway's */
	if (gid_is_v4(gid) && p->args.has_gw4) {
		uint32_t mask = ~0u << (32 - p->args.prefix4), dst;

		memcpy(&dst, &gid->raw[12], 4);
		if (((rte_be_to_cpu_32(dst) ^ rte_be_to_cpu_32(p->args.ip4)) &
		     mask) != 0) {
			gid_from_v4(&gw, p->args.gw4);
			gid = &gw;
		}
	}
	/*
	 * fast path: lock-free read of a resolved entry (one from the
	 * kernel's table only while younger than neigh_reachable: then the
	 * slow path has the kernel confirm it, still answering with it)
	 */
	now = rte_get_tsc_cycles();
	e = neigh_lookup(p, gid);
	if (e != NULL) {
		word = __atomic_load_n(&e->word, __ATOMIC_ACQUIRE);
		if (word_state(word) == ERNIC_NEIGH_REACHABLE &&
		    (!e->kernel ||
		     ernic_tsc_since(now, __atomic_load_n(&e->confirmed_tsc,
						  __ATOMIC_RELAXED)) <
		     rte_get_tsc_hz() * p->args.neigh_reachable)) {
			word_mac(word, mac);
			return 0;
		}
	}

	rte_spinlock_lock(&p->neigh.lock);
	e = neigh_get(p, gid, p->neigh.cnt);
	if (e == NULL) {
		ret = -ENOSPC;
		goto out;
	}
	/* an address shared with the kernel: its table (ernic_kneigh.c) */
	if (ernic_kneigh_applies(p, gid)) {
		ret = ernic_kneigh_resolve(p, e, mac, now);
		goto out;
	}
	word = e->word;
	switch (word_state(word)) {
	case ERNIC_NEIGH_REACHABLE:
		word_mac(word, mac);
		ret = 0;
		break;
	case ERNIC_NEIGH_INCOMPLETE:
		ret = -EAGAIN;
		if (ernic_tsc_since(now, e->probe_tsc) < retrans)
			break;
		if (e->probes >= ERNIC_NEIGH_PROBES) {
			__atomic_store_n(&e->word,
					 (uint64_t)ERNIC_NEIGH_FAILED << 48,
					 __ATOMIC_RELEASE);
			ret = -EHOSTUNREACH;
			break;
		}
		if (!p->started) {
			ret = -ENETDOWN;
			break;
		}
		neigh_probe(p, gid, p->neigh.cnt);
		e->probes++;
		e->probe_tsc = now;
		break;
	default:	/* new or failed: start a resolution */
		if (!p->started) {
			ret = -ENETDOWN;
			break;
		}
		neigh_probe(p, gid, p->neigh.cnt);
		e->probes = 1;
		e->probe_tsc = now;
		__atomic_store_n(&e->word, (uint64_t)ERNIC_NEIGH_INCOMPLETE << 48,
				 __ATOMIC_RELEASE);
		ret = -EAGAIN;
		break;
	}
out:
	rte_spinlock_unlock(&p->neigh.lock);
	return ret;
}
