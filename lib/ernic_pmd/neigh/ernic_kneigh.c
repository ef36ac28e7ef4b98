/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour resolution through the kernel (neigh=kernel|auto, doc/guides/
 * xdp.rst "Same address as the kernel").
 *
 * When net_ernic shares an address with the kernel on the underlying
 * port's interface (net_af_xdp with the steering program, net_af_packet),
 * the ARP replies and neighbour advertisements for that address go to the
 * kernel, so net_ernic's own ARP/ND never completes. For such addresses
 * the port resolves through the kernel's neighbour table instead, over a
 * non-blocking rtnetlink socket (plain AF_NETLINK, no library):
 * - RTM_GETNEIGH (NDA_DST, the interface index) reads the kernel's entry;
 * - RTM_NEWNEIGH with NTF_USE (NLM_F_CREATE) makes the kernel resolve a
 *   missing, failed or stale entry itself (neigh_event_send()), as if it
 *   had a packet for the address;
 * - replies are read with MSG_DONTWAIT whenever a resolution asks again,
 *   so no caller ever waits on the socket (rte_pmd_ernic_resolve() runs
 *   on the application's or the control core's thread, never a worker).
 *
 * All of it runs under the neighbour table lock (ernic_neigh.c).
 */

#include <errno.h>
#include <ifaddrs.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "ernic_priv.h"

enum {
	KN_BUF = 8192,
	KN_ASK_MS = 20,		/**< RTM_GETNEIGH again after this long */
	KN_USE_MS = 1000,	/**< NTF_USE again (kernel probing done) */
	KN_USES = 3,		/**< NTF_USE rounds before giving up */
};

/** Kernel neighbour state of a port (p->kneigh). */
struct ernic_kneigh {
	int fd;
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t seq;
	bool v4;		/**< IPv4 targets resolve through the kernel */
	bool v6;		/**< global IPv6 targets do */
	bool ll;		/**< link-local IPv6 targets do */
	bool warned;		/**< NTF_USE refused: said once */
};

static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static bool
gid_v4(const uint8_t *a)
{
	return memcmp(a, v4map, sizeof(v4map)) == 0;
}

static bool
gid_ll(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

bool
ernic_kernel_has_addr(const char *ifname, const uint8_t *a)
{
	struct ifaddrs *ifa, *i;
	bool v4 = gid_v4(a);
	bool found = false;

	if (getifaddrs(&ifa) != 0)
		return false;
	for (i = ifa; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || strcmp(i->ifa_name, ifname) != 0)
			continue;
		if (v4 && i->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s =
				(const struct sockaddr_in *)i->ifa_addr;

			found = memcmp(&s->sin_addr, a + 12, 4) == 0;
		} else if (!v4 && i->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s =
				(const struct sockaddr_in6 *)i->ifa_addr;

			found = memcmp(&s->sin6_addr, a, 16) == 0;
		}
	}
	freeifaddrs(ifa);
	return found;
}

const char *
ernic_neigh_mode_name(enum ernic_neigh_mode m)
{
	switch (m) {
	case ERNIC_NEIGH_MODE_AUTO:
		return "auto";
	case ERNIC_NEIGH_MODE_KERNEL:
		return "kernel";
	case ERNIC_NEIGH_MODE_OWN:
		return "own";
	}
	return "?";
}

int
ernic_kneigh_start(struct ernic_port *p)
{
	enum ernic_neigh_mode m = p->args.neigh_mode;
	struct rte_eth_dev_info ui;
	struct ernic_kneigh *k;
	struct sockaddr_nl sa;
	char ifname[IF_NAMESIZE];
	bool v4, v6, ll;
	int fd;

	if (p->kneigh != NULL || m == ERNIC_NEIGH_MODE_OWN)
		return 0;
	if (rte_eth_dev_info_get(p->under, &ui) != 0 || ui.if_index == 0 ||
	    if_indextoname(ui.if_index, ifname) == NULL) {
		if (m == ERNIC_NEIGH_MODE_KERNEL) {
			ERNIC_LOG(ERR, "port %u: neigh=kernel: underlying port %u has no kernel interface (net_af_xdp, net_af_packet and net_tap have one)",
				  p->port_id, p->under);
			return -ENOTSUP;
		}
		return 0;
	}
	if (m == ERNIC_NEIGH_MODE_KERNEL) {
		v4 = v6 = ll = true;
	} else {
		/* auto: for the addresses the kernel holds on the interface */
		v4 = p->args.has_ip4 &&
			ernic_kernel_has_addr(ifname, p->gid[1].raw);
		v6 = p->args.has_ip6 &&
			ernic_kernel_has_addr(ifname, p->args.ip6);
		ll = ernic_kernel_has_addr(ifname, p->gid[0].raw);
		if (!v4 && !v6 && !ll)
			return 0;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_ROUTE);
	if (fd < 0) {
		ERNIC_LOG(ERR, "port %u: neighbour resolution through the kernel of %s: netlink socket: %s",
			  p->port_id, ifname, strerror(errno));
		return -errno;
	}
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int ret = -errno;

		ERNIC_LOG(ERR, "port %u: netlink bind: %s", p->port_id,
			  strerror(errno));
		close(fd);
		return ret;
	}
	k = rte_zmalloc_socket("ernic_kneigh", sizeof(*k), 0, p->socket);
	if (k == NULL) {
		close(fd);
		return -ENOMEM;
	}
	k->fd = fd;
	k->ifindex = (int)ui.if_index;
	snprintf(k->ifname, sizeof(k->ifname), "%s", ifname);
	k->v4 = v4;
	k->v6 = v6;
	k->ll = ll;
	p->kneigh = k;
	ERNIC_LOG(INFO, "port %u: neighbours resolved through the kernel of %s (neigh=%s) for%s%s%s targets",
		  p->port_id, ifname, ernic_neigh_mode_name(m),
		  v4 ? " IPv4" : "", v6 ? " IPv6" : "",
		  ll ? " link-local" : "");
	return 0;
}

void
ernic_kneigh_stop(struct ernic_port *p)
{
	struct ernic_kneigh *k = p->kneigh;
	uint32_t i;

	if (k == NULL)
		return;
	rte_spinlock_lock(&p->neigh.lock);
	p->kneigh = NULL;
	/* the next start decides again; its entries start over */
	for (i = 0; i < p->neigh.nb; i++)
		if (p->neigh.e[i].kernel) {
			__atomic_store_n(&p->neigh.e[i].word, 0,
					 __ATOMIC_RELEASE);
			p->neigh.e[i].kernel = 0;
		}
	rte_spinlock_unlock(&p->neigh.lock);
	close(k->fd);
	rte_free(k);
}

bool
ernic_kneigh_applies(const struct ernic_port *p, const union roce_gid *g)
{
	const struct ernic_kneigh *k = p->kneigh;

	if (k == NULL)
		return false;
	if (gid_v4(g->raw))
		return k->v4;
	return gid_ll(g->raw) ? k->ll : k->v6;
}

/* One rtnetlink request about @p g: RTM_GETNEIGH, or RTM_NEWNEIGH NTF_USE. */
static int
kn_send(struct ernic_kneigh *k, const union roce_gid *g, bool use)
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
		struct rtattr ra;
		uint8_t addr[16];
	} req;
	bool v4 = gid_v4(g->raw);
	unsigned int alen = v4 ? 4 : 16;
	struct sockaddr_nl sa;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.nd)) + RTA_LENGTH(alen);
	req.nh.nlmsg_type = use ? RTM_NEWNEIGH : RTM_GETNEIGH;
	req.nh.nlmsg_flags = NLM_F_REQUEST |
		(use ? NLM_F_CREATE | NLM_F_ACK : 0);
	req.nh.nlmsg_seq = ++k->seq;
	req.nd.ndm_family = v4 ? AF_INET : AF_INET6;
	req.nd.ndm_ifindex = k->ifindex;
	if (use) {
		req.nd.ndm_flags = NTF_USE;
		req.nd.ndm_state = NUD_NONE;
	}
	req.ra.rta_type = NDA_DST;
	req.ra.rta_len = RTA_LENGTH(alen);
	memcpy(req.addr, v4 ? g->raw + 12 : g->raw, alen);
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (sendto(k->fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* Apply one RTM_NEWNEIGH of the kernel to the table (lock held). */
static void
kn_apply(struct ernic_port *p, const struct nlmsghdr *nh)
{
	const struct ndmsg *nd = NLMSG_DATA(nh);
	const struct rtattr *ra;
	const uint8_t *dst = NULL, *ll = NULL;
	struct ernic_neigh_entry *e;
	union roce_gid g;
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*nd));
	unsigned int dlen = 0, lllen = 0;
	uint64_t word;
	void *data;

	if (len < 0 || nd->ndm_ifindex != p->kneigh->ifindex ||
	    (nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6))
		return;
	for (ra = (const struct rtattr *)((const uint8_t *)nd +
					   NLMSG_ALIGN(sizeof(*nd)));
	     RTA_OK(ra, len); ra = RTA_NEXT(ra, len)) {
		if (ra->rta_type == NDA_DST) {
			dst = RTA_DATA(ra);
			dlen = RTA_PAYLOAD(ra);
		} else if (ra->rta_type == NDA_LLADDR) {
			ll = RTA_DATA(ra);
			lllen = RTA_PAYLOAD(ra);
		}
	}
	memset(&g, 0, sizeof(g));
	if (nd->ndm_family == AF_INET && dst != NULL && dlen == 4) {
		memcpy(g.raw, v4map, sizeof(v4map));
		memcpy(g.raw + 12, dst, 4);
	} else if (nd->ndm_family == AF_INET6 && dst != NULL && dlen == 16) {
		memcpy(g.raw, dst, 16);
	} else {
		return;
	}
	if (rte_hash_lookup_data(p->neigh.h, g.raw, &data) < 0)
		return;
	e = &p->neigh.e[(uintptr_t)data];
	if (!e->kernel)
		return;
	if ((nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY |
			      NUD_PROBE | NUD_PERMANENT | NUD_NOARP)) &&
	    ll != NULL && lllen == 6 &&
	    rte_is_unicast_ether_addr((const struct rte_ether_addr *)ll) &&
	    !rte_is_zero_ether_addr((const struct rte_ether_addr *)ll)) {
		unsigned int i;

		word = (uint64_t)ERNIC_NEIGH_REACHABLE << 48;
		for (i = 0; i < 6; i++)
			word |= (uint64_t)ll[i] << (8 * i);
		if (word != e->word)
			ERNIC_NEIGH_LOG(DEBUG, "port %u: kernel neighbour %02x:%02x:%02x:%02x:%02x:%02x (state 0x%x)",
					p->port_id, ll[0], ll[1], ll[2], ll[3],
					ll[4], ll[5], nd->ndm_state);
		__atomic_store_n(&e->word, word, __ATOMIC_RELEASE);
		__atomic_store_n(&e->confirmed_tsc, rte_get_tsc_cycles(),
				 __ATOMIC_RELAXED);
		e->probes = 0;
		p->neigh.cnt[ERNIC_CNT_NEIGH_KERNEL]++;
	}
}

/*
 * NLMSG_OK() with the length kept signed (NLMSG_NEXT() may take it below
 * zero, which ends the walk) and compared without mixing signs.
 */
static inline bool
kn_msg_ok(const struct nlmsghdr *nh, int len)
{
	return len >= (int)sizeof(*nh) && nh->nlmsg_len >= sizeof(*nh) &&
		nh->nlmsg_len <= (unsigned int)len;
}

/* Read what the kernel answered so far (lock held, never waits). */
static void
kn_drain(struct ernic_port *p)
{
	struct ernic_kneigh *k = p->kneigh;
	uint8_t buf[KN_BUF] __rte_aligned(8);
	const struct nlmsghdr *nh;
	ssize_t n;
	int len;

	for (;;) {
		n = recv(k->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			return;
		len = (int)n;
		for (nh = (const struct nlmsghdr *)buf; kn_msg_ok(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == RTM_NEWNEIGH) {
				kn_apply(p, nh);
			} else if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *er = NLMSG_DATA(nh);

				/* ENOENT: no entry yet; 0: NTF_USE acked */
				if (er->error == -EPERM || er->error == -EACCES) {
					if (!k->warned)
						ERNIC_LOG(WARNING, "port %u: the kernel refuses RTM_NEWNEIGH (%s): it resolves %s's neighbours only when it sends to them itself (needs CAP_NET_ADMIN)",
							  p->port_id,
							  strerror(-er->error),
							  k->ifname);
					k->warned = true;
				}
			}
		}
	}
}

int
ernic_kneigh_resolve(struct ernic_port *p, struct ernic_neigh_entry *e,
		     uint8_t mac[6], uint64_t now)
{
	struct ernic_kneigh *k = p->kneigh;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t reachable = hz * p->args.neigh_reachable;
	uint64_t word;
	unsigned int i;

	e->kernel = 1;
	kn_drain(p);
	word = e->word;
	if ((word >> 48 & 0xff) == ERNIC_NEIGH_REACHABLE) {
		for (i = 0; i < 6; i++)
			mac[i] = (uint8_t)(word >> (8 * i));
		/*
		 * an old answer: have the kernel confirm it (NTF_USE makes a
		 * stale kernel entry probe), keep using it meanwhile; no
		 * answer with a MAC after KN_USES rounds: forget it
		 */
		if (ernic_tsc_since(now, e->confirmed_tsc) >= reachable &&
		    ernic_tsc_since(now, e->use_tsc) >= hz * KN_USE_MS / 1000) {
			if (e->probes >= KN_USES) {
				__atomic_store_n(&e->word,
						 (uint64_t)ERNIC_NEIGH_FAILED << 48,
						 __ATOMIC_RELEASE);
				e->probes = 0;
				p->neigh.cnt[ERNIC_CNT_NEIGH_EXPIRED]++;
				return -EHOSTUNREACH;
			}
			kn_send(k, &e->ip, true);
			kn_send(k, &e->ip, false);
			e->probes++;
			e->ask_tsc = now;
			e->use_tsc = now;
		}
		return 0;
	}
	if ((word >> 48 & 0xff) != ERNIC_NEIGH_INCOMPLETE) {
		/* new or failed: start a kernel resolution */
		if (!p->started)
			return -ENETDOWN;
		e->probes = 0;
		e->use_tsc = 0;
		__atomic_store_n(&e->word, (uint64_t)ERNIC_NEIGH_INCOMPLETE << 48,
				 __ATOMIC_RELEASE);
	}
	if (e->probes == 0 ||
	    ernic_tsc_since(now, e->use_tsc) >= hz * KN_USE_MS / 1000) {
		if (e->probes >= KN_USES) {
			__atomic_store_n(&e->word,
					 (uint64_t)ERNIC_NEIGH_FAILED << 48,
					 __ATOMIC_RELEASE);
			p->neigh.cnt[ERNIC_CNT_NEIGH_KERNEL_FAILED]++;
			return -EHOSTUNREACH;
		}
		kn_send(k, &e->ip, true);
		e->probes++;
		e->use_tsc = now;
		kn_send(k, &e->ip, false);
		e->ask_tsc = now;
	} else if (ernic_tsc_since(now, e->ask_tsc) >= hz * KN_ASK_MS / 1000) {
		kn_send(k, &e->ip, false);
		e->ask_tsc = now;
	}
	return -EAGAIN;
}
