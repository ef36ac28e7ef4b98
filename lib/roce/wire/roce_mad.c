/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MADs on QP1: frame build/parse, transaction tracking, retries, duplicate
 * detection (roce_mad.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_build.h"
#include "roce_icrc.h"
#include "roce_log.h"
#include "roce_mad.h"
#include "roce_mbuf.h"
#include "roce_timer.h"

/** A send waiting for its answer (owned by the agent). */
struct roce_mad_send {
	struct roce_mad mad;
	struct roce_mad_addr addr;
	uint64_t tid;
	uint64_t timeout;	/**< ticks per try */
	uint32_t retries_left;
	uint32_t tries;		/**< times sent */
	void *ctx;		/**< the owner's */
	struct roce_timer timer;
	struct roce_mad_agent *agent;
	uint32_t hslot;		/**< slot in the TID table + 1, 0: not in it */
	bool busy;
};

/** One entry of the duplicate cache. */
struct roce_mad_seen {
	uint64_t tid;
	uint64_t when;
	uint8_t gid[16];
	uint16_t attr_id;
	bool valid;
};

struct roce_mad_agent {
	struct roce_mad_agent_config cfg;
	uint64_t tid_next;		/**< low 32 bits of the next TID */
	uint32_t psn;			/**< BTH PSN of the next frame (24 bits) */
	uint16_t ip_id;
	struct roce_timers timers;
	struct roce_mad_send *sends;	/**< max_sends entries */
	struct roce_mad_send **free_sends;
	uint32_t nb_free;
	/** TID table: open addressing, linear probing, slots hold send pointers. */
	struct roce_mad_send **tid_tab;
	uint32_t tid_mask;
	struct roce_mad_seen *seen;	/**< direct-mapped duplicate cache */
	uint32_t seen_mask;
	uint64_t cnt[ROCE_MAD_CNT_MAX];
};

static const char *const mad_cnt_names[ROCE_MAD_CNT_MAX] = {
	[ROCE_MAD_CNT_RX] = "mad_rx",
	[ROCE_MAD_CNT_RX_OK] = "mad_rx_ok",
	[ROCE_MAD_CNT_RX_PARSE_ERR] = "mad_rx_drop_parse",
	[ROCE_MAD_CNT_RX_ICRC_ERR] = "mad_rx_drop_icrc",
	[ROCE_MAD_CNT_DROP_NOT_GSI] = "mad_rx_drop_not_gsi",
	[ROCE_MAD_CNT_DROP_QKEY] = "mad_rx_drop_qkey",
	[ROCE_MAD_CNT_DROP_PKEY] = "mad_rx_drop_pkey",
	[ROCE_MAD_CNT_DROP_LEN] = "mad_rx_drop_len",
	[ROCE_MAD_CNT_DROP_BASE_VERSION] = "mad_rx_drop_base_version",
	[ROCE_MAD_CNT_DROP_CLASS] = "mad_rx_drop_class",
	[ROCE_MAD_CNT_DROP_CLASS_VERSION] = "mad_rx_drop_class_version",
	[ROCE_MAD_CNT_DROP_METHOD] = "mad_rx_drop_method",
	[ROCE_MAD_CNT_RX_DUP] = "mad_rx_dup",
	[ROCE_MAD_CNT_RX_MATCHED] = "mad_rx_matched",
	[ROCE_MAD_CNT_TX] = "mad_tx",
	[ROCE_MAD_CNT_TX_ERR] = "mad_tx_err",
	[ROCE_MAD_CNT_RETRANS] = "mad_retrans",
	[ROCE_MAD_CNT_TIMEOUTS] = "mad_timeouts",
	[ROCE_MAD_CNT_NO_SEND_SLOT] = "mad_no_send_slot",
};

const char *
roce_mad_cnt_name(enum roce_mad_cnt c)
{
	return (unsigned int)c < ROCE_MAD_CNT_MAX ? mad_cnt_names[c] :
		"mad_unknown";
}

void
roce_mad_init_hdr(struct roce_mad *mad, uint8_t method, uint64_t tid,
		  uint16_t attr_id)
{
	struct roce_mad_hdr *h = roce_mad_hdr(mad);

	memset(h, 0, sizeof(*h));
	roce_mad_set_base_version(h, ROCE_MAD_BASE_VERSION);
	roce_mad_set_mgmt_class(h, ROCE_MGMT_CLASS_CM);
	roce_mad_set_class_version(h, ROCE_CM_CLASS_VERSION);
	roce_mad_set_method(h, method);
	roce_mad_set_tid(h, tid);
	roce_mad_set_attr_id(h, attr_id);
}

/* ------------------------------------------------------------------ */
/* Frames                                                             */
/* ------------------------------------------------------------------ */

int
roce_mad_frame_build(struct rte_mempool *mp, const struct roce_mad *mad,
		     const struct roce_mad_addr *addr, uint32_t psn,
		     uint16_t ip_id, struct rte_mbuf **out)
{
	struct roce_hdr_fields f;
	struct rte_mbuf *m;
	char *p;
	int ret;

	m = rte_pktmbuf_alloc(mp);
	if (m == NULL)
		return -ENOMEM;
	p = rte_pktmbuf_append(m, ROCE_MAD_LEN);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	memcpy(p, mad->b, ROCE_MAD_LEN);
	memset(&f, 0, sizeof(f));
	rte_ether_addr_copy(&addr->remote_mac, &f.dst_mac);
	rte_ether_addr_copy(&addr->local_mac, &f.src_mac);
	f.vlan = addr->vlan;
	f.vlan_tci = addr->vlan_tci;
	f.ip_ver = addr->ip_ver;
	f.tos = addr->tos;
	f.ttl = addr->ttl;
	f.ip_id = ip_id;
	f.flow_label = addr->flow_label;
	memcpy(f.sgid, addr->local_gid, 16);
	memcpy(f.dgid, addr->remote_gid, 16);
	f.udp_sport = addr->udp_sport;
	f.opcode = ROCE_OP_UD_SEND_ONLY;
	/* Linux sets AckReq on its QP1 sends; UD ignores it (IBTA 9.2.3) */
	f.ackreq = true;
	f.pkey = addr->pkey;
	f.dqpn = addr->remote_qpn;
	f.psn = psn & 0xffffff;
	f.qkey = ROCE_GSI_QKEY;
	f.src_qpn = ROCE_GSI_QPN;
	ret = roce_build_mbuf(m, &f);
	if (ret == 0)
		ret = roce_icrc_fill_mbuf(m, m->l2_len);
	if (ret != 0) {
		rte_pktmbuf_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

int
roce_mad_frame_parse(const struct rte_mbuf *m, const struct roce_pkt *pkt,
		     struct roce_mad *mad, struct roce_mad_addr *addr)
{
	const struct roce_bth *bth = roce_pkt_bth(pkt);
	const struct roce_deth *deth = roce_pkt_deth(pkt);
	const struct rte_ether_hdr *eth = roce_pkt_eth(pkt);
	const struct roce_mad_hdr *h;
	const void *src;
	uint16_t pkey;

	if (pkt->opcode != ROCE_OP_UD_SEND_ONLY || deth == NULL ||
	    roce_bth_dqpn(bth) != ROCE_GSI_QPN)
		return -ROCE_MAD_DROP_NOT_GSI;
	/* IBTA 13.5.1 C13-12: QP1 accepts only the well-known Q_Key */
	if (roce_deth_qkey(deth) != ROCE_GSI_QKEY)
		return -ROCE_MAD_DROP_QKEY;
	/* IBTA 10.9.3: QP1 takes any P_Key of the table; ours is the default */
	pkey = roce_bth_pkey(bth);
	if ((pkey & 0x7fff) != (ROCE_DEFAULT_PKEY & 0x7fff))
		return -ROCE_MAD_DROP_PKEY;
	/* IBTA 13.4.1 C13-1: every MAD is 256 bytes */
	if (pkt->payload_len != ROCE_MAD_LEN)
		return -ROCE_MAD_DROP_LEN;
	src = roce_mbuf_read(m, pkt->payload_off, ROCE_MAD_LEN, mad->b);
	if (src == NULL)
		return -ROCE_MAD_DROP_LEN;
	if (src != mad->b)
		memcpy(mad->b, src, ROCE_MAD_LEN);
	h = roce_mad_hdr_c(mad);
	if (roce_mad_base_version(h) != ROCE_MAD_BASE_VERSION)
		return -ROCE_MAD_DROP_BASE_VERSION;
	if (roce_mad_mgmt_class(h) != ROCE_MGMT_CLASS_CM)
		return -ROCE_MAD_DROP_CLASS;
	if (roce_mad_class_version(h) != ROCE_CM_CLASS_VERSION)
		return -ROCE_MAD_DROP_CLASS_VERSION;
	/* IBTA 12.11: every CM message is a Send (ClassPortInfo Get aside) */
	if (roce_mad_method(h) != ROCE_MAD_METHOD_SEND || roce_mad_is_resp(h))
		return -ROCE_MAD_DROP_METHOD;
	memset(addr, 0, sizeof(*addr));
	rte_ether_addr_copy(&eth->dst_addr, &addr->local_mac);
	rte_ether_addr_copy(&eth->src_addr, &addr->remote_mac);
	memcpy(addr->local_gid, pkt->dgid, 16);
	memcpy(addr->remote_gid, pkt->sgid, 16);
	addr->ip_ver = pkt->ip_ver;
	addr->tos = (uint8_t)(pkt->dscp << 2);
	addr->ttl = 64;
	addr->vlan = (pkt->flags & ROCE_PKT_VLAN) != 0;
	addr->vlan_tci = pkt->vlan_tci;
	addr->flow_label = pkt->flow_label;
	addr->udp_sport = pkt->udp_sport;
	addr->pkey = pkey;
	addr->remote_qpn = roce_deth_sqpn(deth);
	return ROCE_MAD_OK;
}

/* ------------------------------------------------------------------ */
/* Agent                                                              */
/* ------------------------------------------------------------------ */

static uint32_t
tid_hash(uint64_t tid, const uint8_t gid[16])
{
	uint64_t h = tid * 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 29));
}

static void mad_retry_cb(struct roce_timer *t, uint64_t now);

struct roce_mad_agent *
roce_mad_agent_create(const struct roce_mad_agent_config *cfg)
{
	struct roce_mad_agent *a;
	uint32_t i, tab, seen;

	if (cfg == NULL || cfg->pool == NULL || cfg->tx == NULL ||
	    cfg->hz == 0 || cfg->max_sends == 0 ||
	    cfg->max_sends > (1u << 24)) {
		rte_errno = EINVAL;
		return NULL;
	}
	a = rte_zmalloc_socket("roce_mad_agent", sizeof(*a),
			       RTE_CACHE_LINE_SIZE, cfg->socket);
	if (a == NULL)
		goto nomem;
	a->cfg = *cfg;
	if (a->cfg.dup_entries == 0)
		a->cfg.dup_entries = 1024;
	if (a->cfg.dup_window == 0)
		a->cfg.dup_window = 10 * cfg->hz;
	tab = rte_align32pow2(2 * cfg->max_sends);
	seen = rte_align32pow2(a->cfg.dup_entries);
	a->sends = rte_zmalloc_socket("roce_mad_sends",
				      sizeof(*a->sends) * cfg->max_sends,
				      RTE_CACHE_LINE_SIZE, cfg->socket);
	a->free_sends = rte_zmalloc_socket("roce_mad_free",
					   sizeof(void *) * cfg->max_sends,
					   0, cfg->socket);
	a->tid_tab = rte_zmalloc_socket("roce_mad_tids", sizeof(void *) * tab,
					0, cfg->socket);
	a->seen = rte_zmalloc_socket("roce_mad_seen", sizeof(*a->seen) * seen,
				     0, cfg->socket);
	if (a->sends == NULL || a->free_sends == NULL || a->tid_tab == NULL ||
	    a->seen == NULL ||
	    roce_timers_init(&a->timers, cfg->max_sends, cfg->socket) != 0)
		goto nomem;
	a->tid_mask = tab - 1;
	a->seen_mask = seen - 1;
	for (i = 0; i < cfg->max_sends; i++) {
		struct roce_mad_send *s = &a->sends[cfg->max_sends - 1 - i];

		s->agent = a;
		roce_timer_init(&s->timer, mad_retry_cb, s);
		a->free_sends[i] = s;
	}
	a->nb_free = cfg->max_sends;
	a->tid_next = 1;
	return a;
nomem:
	roce_mad_agent_destroy(a);
	ROCE_LOG(ERR, cm, "no memory for a MAD agent");
	rte_errno = ENOMEM;
	return NULL;
}

void
roce_mad_agent_destroy(struct roce_mad_agent *a)
{
	if (a == NULL)
		return;
	roce_timers_fini(&a->timers);
	rte_free(a->sends);
	rte_free(a->free_sends);
	rte_free(a->tid_tab);
	rte_free(a->seen);
	rte_free(a);
}

uint64_t
roce_mad_tid_new(struct roce_mad_agent *a)
{
	uint32_t lo = (uint32_t)a->tid_next++;

	if (lo == 0)	/* never a zero low word: easier to spot in captures */
		lo = (uint32_t)a->tid_next++;
	return (uint64_t)a->cfg.hi_tid << 32 | lo;
}

static int
mad_xmit(struct roce_mad_agent *a, const struct roce_mad *mad,
	 const struct roce_mad_addr *addr)
{
	struct rte_mbuf *m;
	int ret;

	ret = roce_mad_frame_build(a->cfg.pool, mad, addr, a->psn, a->ip_id,
				   &m);
	a->psn = (a->psn + 1) & 0xffffff;
	a->ip_id++;
	if (ret == 0)
		ret = a->cfg.tx(a->cfg.tx_ctx, m);
	if (ret != 0) {
		a->cnt[ROCE_MAD_CNT_TX_ERR]++;
		return ret;
	}
	a->cnt[ROCE_MAD_CNT_TX]++;
	return 0;
}

int
roce_mad_send(struct roce_mad_agent *a, const struct roce_mad *mad,
	      const struct roce_mad_addr *addr)
{
	if (a == NULL || mad == NULL || addr == NULL)
		return -EINVAL;
	return mad_xmit(a, mad, addr);
}

/* Put @p s in the TID table (linear probing). */
static void
tid_insert(struct roce_mad_agent *a, struct roce_mad_send *s)
{
	uint32_t i = tid_hash(s->tid, s->addr.remote_gid) & a->tid_mask;

	while (a->tid_tab[i] != NULL)
		i = (i + 1) & a->tid_mask;
	a->tid_tab[i] = s;
	s->hslot = i + 1;
}

/* Remove @p s from the TID table, shifting the probe chain back. */
static void
tid_remove(struct roce_mad_agent *a, struct roce_mad_send *s)
{
	uint32_t i, j, k;

	if (s->hslot == 0)
		return;
	i = s->hslot - 1;
	s->hslot = 0;
	a->tid_tab[i] = NULL;
	j = i;
	for (;;) {
		struct roce_mad_send *o;

		j = (j + 1) & a->tid_mask;
		o = a->tid_tab[j];
		if (o == NULL)
			break;
		k = tid_hash(o->tid, o->addr.remote_gid) & a->tid_mask;
		/* o may move to i when its home k is not in (i, j] */
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && (k <= i && k > j))) {
			a->tid_tab[i] = o;
			o->hslot = i + 1;
			a->tid_tab[j] = NULL;
			i = j;
		}
	}
}

static void
send_release(struct roce_mad_agent *a, struct roce_mad_send *s)
{
	if (!s->busy)
		return;
	roce_timer_cancel(&a->timers, &s->timer);
	tid_remove(a, s);
	s->busy = false;
	s->ctx = NULL;
	a->free_sends[a->nb_free++] = s;
}

struct roce_mad_send *
roce_mad_send_tracked(struct roce_mad_agent *a, const struct roce_mad *mad,
		      const struct roce_mad_addr *addr, uint64_t timeout,
		      uint32_t retries, void *ctx, uint64_t now)
{
	struct roce_mad_send *s;

	if (a == NULL || mad == NULL || addr == NULL || timeout == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (a->nb_free == 0) {
		a->cnt[ROCE_MAD_CNT_NO_SEND_SLOT]++;
		rte_errno = ENOSPC;
		return NULL;
	}
	s = a->free_sends[--a->nb_free];
	s->busy = true;
	s->mad = *mad;
	s->addr = *addr;
	s->tid = roce_mad_tid(roce_mad_hdr_c(mad));
	s->timeout = timeout;
	s->retries_left = retries;
	s->tries = 1;
	s->ctx = ctx;
	tid_insert(a, s);
	/* cannot fail: the heap holds max_sends timers */
	roce_timer_arm(&a->timers, &s->timer, now + timeout);
	/* a lost first frame is what the retries are for */
	mad_xmit(a, &s->mad, &s->addr);
	return s;
}

void
roce_mad_send_cancel(struct roce_mad_agent *a, struct roce_mad_send *s)
{
	if (a != NULL && s != NULL)
		send_release(a, s);
}

int
roce_mad_send_extend(struct roce_mad_agent *a, struct roce_mad_send *s,
		     uint64_t timeout, uint64_t now)
{
	if (a == NULL || s == NULL || !s->busy || timeout == 0)
		return -EINVAL;
	return roce_timer_arm(&a->timers, &s->timer, now + timeout);
}

struct roce_mad_send *
roce_mad_match(struct roce_mad_agent *a, uint64_t tid,
	       const uint8_t remote_gid[16])
{
	uint32_t i = tid_hash(tid, remote_gid) & a->tid_mask;
	struct roce_mad_send *s;

	while ((s = a->tid_tab[i]) != NULL) {
		if (s->tid == tid &&
		    memcmp(s->addr.remote_gid, remote_gid, 16) == 0)
			return s;
		i = (i + 1) & a->tid_mask;
	}
	return NULL;
}

/* A tracked send's timer: resend until the retries are spent (IBTA 12.9.2). */
static void
mad_retry_cb(struct roce_timer *t, uint64_t now)
{
	struct roce_mad_send *s = t->arg;
	struct roce_mad_agent *a = s->agent;

	if (s->retries_left > 0) {
		s->retries_left--;
		s->tries++;
		a->cnt[ROCE_MAD_CNT_RETRANS]++;
		roce_timer_arm(&a->timers, &s->timer, now + s->timeout);
		mad_xmit(a, &s->mad, &s->addr);
		return;
	}
	a->cnt[ROCE_MAD_CNT_TIMEOUTS]++;
	tid_remove(a, s);
	if (a->cfg.timeout_cb != NULL)
		a->cfg.timeout_cb(a->cfg.cb_ctx, s->ctx, s, now);
	send_release(a, s);
}

/* Duplicate detection: has (source GID, TID, attribute) been seen lately? */
static bool
mad_seen(struct roce_mad_agent *a, const struct roce_mad_rx *rx, uint64_t now)
{
	const struct roce_mad_hdr *h = roce_mad_hdr_c(&rx->mad);
	uint64_t tid = roce_mad_tid(h);
	uint16_t attr = roce_mad_attr_id(h);
	struct roce_mad_seen *e;

	e = &a->seen[(tid_hash(tid, rx->addr.remote_gid) ^ attr) &
		     a->seen_mask];
	if (e->valid && e->tid == tid && e->attr_id == attr &&
	    now - e->when <= a->cfg.dup_window &&
	    memcmp(e->gid, rx->addr.remote_gid, 16) == 0)
		return true;
	e->valid = true;
	e->tid = tid;
	e->attr_id = attr;
	e->when = now;
	memcpy(e->gid, rx->addr.remote_gid, 16);
	return false;
}

int
roce_mad_recv(struct roce_mad_agent *a, struct rte_mbuf *m, uint64_t now,
	      struct roce_mad_rx *rx)
{
	struct roce_pkt pkt;
	int ret;

	a->cnt[ROCE_MAD_CNT_RX]++;
	if (roce_parse(m, &pkt) != 0) {
		a->cnt[ROCE_MAD_CNT_RX_PARSE_ERR]++;
		rte_pktmbuf_free(m);
		return -EBADMSG;
	}
	/* IBTA annex A17.3.3: bad ICRC, silently dropped */
	if (roce_icrc_verify_mbuf(m, pkt.l3_off) != 0) {
		a->cnt[ROCE_MAD_CNT_RX_ICRC_ERR]++;
		rte_pktmbuf_free(m);
		return -EBADMSG;
	}
	ret = roce_mad_frame_parse(m, &pkt, &rx->mad, &rx->addr);
	rte_pktmbuf_free(m);
	if (ret != 0) {
		a->cnt[ROCE_MAD_CNT_DROP_NOT_GSI + (-ret - 1)]++;
		return ret;
	}
	a->cnt[ROCE_MAD_CNT_RX_OK]++;
	rx->dup = mad_seen(a, rx, now);
	if (rx->dup)
		a->cnt[ROCE_MAD_CNT_RX_DUP]++;
	return 0;
}

unsigned int
roce_mad_agent_poll(struct roce_mad_agent *a, uint64_t now)
{
	return roce_timers_run(&a->timers, now);
}

uint64_t
roce_mad_agent_next(const struct roce_mad_agent *a)
{
	return roce_timers_next(&a->timers);
}

uint32_t
roce_mad_agent_busy(const struct roce_mad_agent *a)
{
	return a->cfg.max_sends - a->nb_free;
}

uint64_t
roce_mad_agent_cnt(const struct roce_mad_agent *a, enum roce_mad_cnt c)
{
	return (unsigned int)c < ROCE_MAD_CNT_MAX ? a->cnt[c] : 0;
}

uint32_t
roce_mad_send_tries(const struct roce_mad_send *s)
{
	return s->tries;
}
