/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_XDP_MAPS_H
#define ERNIC_XDP_MAPS_H

/**
 * @file
 * Map layout shared by the XDP steering program (ernic_roce_steer.bpf.c)
 * and its user-space side (ernic_xdp.c, the tests). Compiles for both the
 * BPF target and the host: only linux/types.h types.
 *
 * Maps of the program (names are at most 15 characters, as the kernel
 * keeps them):
 * - "xsks_map"      BPF_MAP_TYPE_XSKMAP, key __u32 RX queue index, value
 *                   the AF_XDP socket: the name and layout net_af_xdp
 *                   fills when it loads a program given with xdp_prog=.
 * - "ernic_local"   BPF_MAP_TYPE_HASH, key struct ernic_xdp_addr, value
 *                   struct ernic_xdp_local: the addresses of the net_ernic
 *                   ports on this interface (filled at rte_eth_dev_start).
 * - "ernic_xdp_cnt" BPF_MAP_TYPE_PERCPU_ARRAY, key enum ernic_xdp_cnt,
 *                   value __u64: what the program decided, per CPU.
 */

#include <linux/types.h>

/** Name of the local-address map. */
#define ERNIC_XDP_LOCAL_MAP "ernic_local"
/** Name of the counter map. */
#define ERNIC_XDP_CNT_MAP "ernic_xdp_cnt"
/** Name of the AF_XDP socket map (net_af_xdp looks it up by this name). */
#define ERNIC_XDP_XSKS_MAP "xsks_map"

/** Sizes. */
enum {
	ERNIC_XDP_LOCAL_MAX = 64,	/**< local addresses, all ports */
	ERNIC_XDP_XSKS_MAX = 64,	/**< RX queues */
	ERNIC_XDP_ROCE_PORT = 4791,	/**< RoCEv2 UDP destination port */
	ERNIC_XDP_MIN_ROCE = 12 + 4,	/**< BTH + ICRC after the UDP header */
};

/**
 * Key of "ernic_local": an IPv6 address, or an IPv4 address as the
 * IPv4-mapped IPv6 address ::ffff:a.b.c.d (the form of a RoCEv2 GID).
 */
struct ernic_xdp_addr {
	__u8 a[16];
};

/** Flags of an ernic_local entry. */
enum ernic_xdp_flags {
	/** RoCEv2 (UDP to 4791) to this address goes to the AF_XDP socket. */
	ERNIC_XDP_F_ROCE = 1u << 0,
	/**
	 * ARP whose target is this address, and IPv6 NS/NA whose target is
	 * this address, go to the AF_XDP socket too: for addresses that only
	 * net_ernic holds (the kernel does not have them on the interface), so
	 * that net_ernic answers and resolves them.
	 */
	ERNIC_XDP_F_NEIGH = 1u << 1,
};

/** Value of an ernic_local entry. */
struct ernic_xdp_local {
	__u16 vlan;	/**< 0: untagged or priority-tagged only; else this VID */
	__u16 flags;	/**< enum ernic_xdp_flags */
};

/** Counters of "ernic_xdp_cnt" (per CPU). */
enum ernic_xdp_cnt {
	ERNIC_XDP_CNT_REDIRECT_ROCE,	/**< RoCEv2 to a local address */
	ERNIC_XDP_CNT_REDIRECT_NEIGH,	/**< ARP/ND for an ernic-only address */
	ERNIC_XDP_CNT_PASS_NOT_ROCE,	/**< not UDP to 4791 (ARP, TCP, ...) */
	ERNIC_XDP_CNT_PASS_NOT_LOCAL,	/**< RoCEv2 to another address */
	ERNIC_XDP_CNT_PASS_VLAN,	/**< RoCEv2 to us on another VLAN */
	ERNIC_XDP_CNT_PASS_SHORT,	/**< truncated or malformed headers */
	ERNIC_XDP_CNT_MAX,
};

#endif /* ERNIC_XDP_MAPS_H */
