/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDP steering for net_ernic on net_af_xdp: only the RoCEv2 frames for
 * the net_ernic ports go to the AF_XDP socket, everything else (ARP, ND,
 * ICMP, TCP, other UDP, RoCEv2 for other hosts, anything malformed or
 * truncated) stays with the kernel, so the host keeps its ssh, TCP
 * services and perftest side channel on the same interface.
 *
 * Redirected: Ethernet, optionally one 802.1Q tag, then
 * - IPv4 (version 4, IHL >= 5, not a fragment, protocol UDP) or IPv6
 *   (next header UDP, no extension header),
 * - UDP destination port 4791,
 * - the whole IP datagram within the frame (IPv4 total length / IPv6
 *   payload length), a UDP length that holds a BTH and the ICRC and fits
 *   in the datagram,
 * - destination address in "ernic_local" with ERNIC_XDP_F_ROCE, and the
 *   frame's VLAN as that entry asks.
 * Plus, for entries with ERNIC_XDP_F_NEIGH, ARP (Ethernet/IPv4) whose
 * target is the address, ICMPv6 NS/NA whose target is the address, and
 * NAs sent to the address (the answers to its own solicitations).
 *
 * The redirect falls back to XDP_PASS when no socket is bound to the
 * receiving queue. Build: clang -target bpf -O2 -g (lib/ernic_pmd/meson.build).
 */

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "ernic_xdp_maps.h"

enum {
	ETH_HLEN_ = 14,
	VLAN_HLEN_ = 4,
	ETHERTYPE_IPV4 = 0x0800,
	ETHERTYPE_ARP = 0x0806,
	ETHERTYPE_VLAN = 0x8100,
	ETHERTYPE_IPV6 = 0x86dd,
	IPPROTO_UDP_ = 17,
	IPPROTO_ICMPV6_ = 58,
	IPV6_HLEN = 40,
	UDP_HLEN = 8,
	ARP_LEN = 28,
	ND_NS = 135,
	ND_NA = 136,
	ND_MIN = 24,		/* ICMPv6 header, reserved/flags, target */
};

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, ERNIC_XDP_XSKS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ERNIC_XDP_LOCAL_MAX);
	__type(key, struct ernic_xdp_addr);
	__type(value, struct ernic_xdp_local);
} ernic_local SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ERNIC_XDP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} ernic_xdp_cnt SEC(".maps");

static __always_inline int
count(__u32 c, int verdict)
{
	__u64 *v = bpf_map_lookup_elem(&ernic_xdp_cnt, &c);

	if (v != NULL)
		*v += 1;
	return verdict;
}

static __always_inline void
addr_v4(struct ernic_xdp_addr *k, const __u8 *ip4)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->a[10] = 0xff;
	k->a[11] = 0xff;
	k->a[12] = ip4[0];
	k->a[13] = ip4[1];
	k->a[14] = ip4[2];
	k->a[15] = ip4[3];
}

static __always_inline void
addr_v6(struct ernic_xdp_addr *k, const __u8 *ip6)
{
	__builtin_memcpy(k->a, ip6, 16);
}

/* True when the entry accepts a frame with this tag (tagged, vid). */
static __always_inline int
vlan_ok(const struct ernic_xdp_local *l, int tagged, __u16 vid)
{
	if (l->vlan != 0)
		return tagged && vid == l->vlan;
	return !tagged || vid == 0;
}

/* Redirect a frame for local entry @l, or pass it. */
static __always_inline int
steer(struct xdp_md *ctx, const struct ernic_xdp_addr *k, __u16 need,
      int tagged, __u16 vid)
{
	const struct ernic_xdp_local *l = bpf_map_lookup_elem(&ernic_local, k);

	if (l == NULL || !(l->flags & need))
		return count(ERNIC_XDP_CNT_PASS_NOT_LOCAL, XDP_PASS);
	if (!vlan_ok(l, tagged, vid))
		return count(ERNIC_XDP_CNT_PASS_VLAN, XDP_PASS);
	count(need == ERNIC_XDP_F_ROCE ? ERNIC_XDP_CNT_REDIRECT_ROCE :
	      ERNIC_XDP_CNT_REDIRECT_NEIGH, 0);
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

SEC("xdp")
int
ernic_roce_steer(struct xdp_md *ctx)
{
	const __u8 *data = (const __u8 *)(long)ctx->data;
	const __u8 *end = (const __u8 *)(long)ctx->data_end;
	__u64 len = (__u64)(end - data);
	struct ernic_xdp_addr k;
	const __u8 *l3, *l4;
	__u16 type, vid = 0;
	__u32 off = ETH_HLEN_;
	int tagged = 0;

	if (data + ETH_HLEN_ > end)
		return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
	type = ((__u16)data[12] << 8) | data[13];
	if (type == ETHERTYPE_VLAN) {
		if (data + ETH_HLEN_ + VLAN_HLEN_ > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		vid = (((__u16)data[14] << 8) | data[15]) & 0x0fff;
		type = ((__u16)data[16] << 8) | data[17];
		tagged = 1;
		off += VLAN_HLEN_;
	}
	l3 = data + off;

	if (type == ETHERTYPE_IPV4) {
		__u32 ihl, tot;

		if (l3 + 20 > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if ((l3[0] >> 4) != 4)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		ihl = (__u32)(l3[0] & 0x0f) * 4;
		tot = ((__u32)l3[2] << 8) | l3[3];
		if (ihl < 20 || tot < ihl + UDP_HLEN || off + tot > len)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if (l3[9] != IPPROTO_UDP_)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		/* MF set or a fragment offset: not a whole datagram */
		if (((l3[6] & 0x3f) | l3[7]) != 0)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		l4 = l3 + ihl;
		if (l4 + UDP_HLEN > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if ((((__u16)l4[2] << 8) | l4[3]) != ERNIC_XDP_ROCE_PORT)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		tot -= ihl;	/* UDP datagram */
		{
			__u32 ulen = ((__u32)l4[4] << 8) | l4[5];

			if (ulen < UDP_HLEN + ERNIC_XDP_MIN_ROCE || ulen > tot)
				return count(ERNIC_XDP_CNT_PASS_SHORT,
					     XDP_PASS);
		}
		addr_v4(&k, l3 + 16);
		return steer(ctx, &k, ERNIC_XDP_F_ROCE, tagged, vid);
	}

	if (type == ETHERTYPE_IPV6) {
		__u32 plen;

		if (l3 + IPV6_HLEN > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if ((l3[0] >> 4) != 6)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		plen = ((__u32)l3[4] << 8) | l3[5];
		if (off + IPV6_HLEN + plen > len)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		l4 = l3 + IPV6_HLEN;
		if (l3[6] == IPPROTO_ICMPV6_) {
			if (l4 + ND_MIN > end || plen < ND_MIN)
				return count(ERNIC_XDP_CNT_PASS_NOT_ROCE,
					     XDP_PASS);
			if (l4[0] != ND_NS && l4[0] != ND_NA)
				return count(ERNIC_XDP_CNT_PASS_NOT_ROCE,
					     XDP_PASS);
			/* an NA to a unicast address: the solicitor's */
			if (l4[0] == ND_NA && l3[24] != 0xff) {
				const struct ernic_xdp_local *l;

				addr_v6(&k, l3 + 24);
				l = bpf_map_lookup_elem(&ernic_local, &k);
				if (l != NULL && (l->flags & ERNIC_XDP_F_NEIGH))
					return steer(ctx, &k, ERNIC_XDP_F_NEIGH,
						     tagged, vid);
			}
			addr_v6(&k, l4 + 8);
			return steer(ctx, &k, ERNIC_XDP_F_NEIGH, tagged, vid);
		}
		if (l3[6] != IPPROTO_UDP_)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		if (l4 + UDP_HLEN > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if ((((__u16)l4[2] << 8) | l4[3]) != ERNIC_XDP_ROCE_PORT)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		{
			__u32 ulen = ((__u32)l4[4] << 8) | l4[5];

			if (ulen < UDP_HLEN + ERNIC_XDP_MIN_ROCE || ulen > plen)
				return count(ERNIC_XDP_CNT_PASS_SHORT,
					     XDP_PASS);
		}
		addr_v6(&k, l3 + 24);
		return steer(ctx, &k, ERNIC_XDP_F_ROCE, tagged, vid);
	}

	if (type == ETHERTYPE_ARP) {
		/* Ethernet/IPv4 ARP: htype 1, ptype 0x0800, hlen 6, plen 4 */
		if (l3 + ARP_LEN > end)
			return count(ERNIC_XDP_CNT_PASS_SHORT, XDP_PASS);
		if (l3[0] != 0 || l3[1] != 1 || l3[2] != 0x08 || l3[3] != 0 ||
		    l3[4] != 6 || l3[5] != 4)
			return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
		addr_v4(&k, l3 + 24);
		return steer(ctx, &k, ERNIC_XDP_F_NEIGH, tagged, vid);
	}

	return count(ERNIC_XDP_CNT_PASS_NOT_ROCE, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
