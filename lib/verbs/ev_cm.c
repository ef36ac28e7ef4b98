/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm: the librdmacm ABI of rdma-core 44 over the connection manager
 * of the net_ernic ports (the IB CM on QP1 with the rdma_cm IP
 * conventions, lib/roce/cm/roce_cm.h, run by each port's control core).
 *
 *   program                       this file                 net_ernic port
 *   rdma_create_id()        ->    struct ev_cm_id
 *   rdma_resolve_addr/route ->    a port of that family,    neighbour table
 *                                 its next hop's MAC
 *   rdma_connect/accept/... ->    rte_pmd_ernic_cm_*()  ->  control core, QP1
 *   rdma_get_cm_event()     <-    the channel's queue   <-  ev_cm_pump(): the
 *                                                           port's CM events,
 *                                                           routed to their ids
 *
 * A channel is an eventfd (semaphore mode: readable while events wait,
 * for poll/epoll) and a queue of events. The progress thread pumps each
 * port's CM events while any id exists; a program waiting in
 * rdma_get_cm_event() wakes it first. An id made without a channel is
 * synchronous, as librdmacm's: each call waits for its own event on a
 * private channel (ev_cm_sync.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_errno.h>

#include "ev_cm.h"
#include "ev_priv.h"
#include "rte_pmd_ernic.h"
#include "rte_pmd_ernic_cm.h"

/* ids that exist: the progress thread pumps CM events while non-zero */
uint32_t ev_cm_ids;

/* events taken and acknowledged per id (rdma_destroy_id() waits) */
static pthread_mutex_t ev_cm_ack_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cm_ack_cond = PTHREAD_COND_INITIALIZER;

/* every id, to find one by the port's CM id (ev_cm_lock) */
static struct ev_cm_id *ev_cm_all;
pthread_mutex_t ev_cm_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ */
/* Channels and events                                                */
/* ------------------------------------------------------------------ */

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct ev_cm_channel *ch;
	int ret = ev_env_start();

	if (ret != 0) {
		errno = -ret;
		return NULL;
	}
	if (ev_env.nb_ports == 0) {
		errno = ENODEV;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	return &ch->ch;
}

/*
 * A destroyed channel is not closed at once. A thread may be waiting in
 * rdma_get_cm_event() on it, or about to: rping's event thread acks its
 * last event and calls again while the main thread, which waited in
 * rdma_destroy_id() for that ack, destroys the channel and exits. With
 * librdmacm that thread blocks in the kernel's channel for good. Here a
 * destroyed channel is marked dead and kept: its last EV_CM_QUARANTINE
 * are closed only when newer ones push them out (a late caller finds a
 * valid fd that never signals), and one with a waiter is never closed.
 */
#define EV_CM_QUARANTINE 16

static pthread_mutex_t ev_cm_ch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ev_cm_channel *ev_cm_quarantine[EV_CM_QUARANTINE];
static unsigned int ev_cm_q_next;
static struct ev_cm_channel *ev_cm_dead;	/* waited on: kept */

static void
channel_close(struct ev_cm_channel *ch)
{
	close(ch->ch.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct ev_cm_channel *ch, *old;
	struct ev_cm_event *e;

	if (channel == NULL)
		return;
	ch = container_of(channel, struct ev_cm_channel, ch);
	pthread_mutex_lock(&ch->lock);
	while ((e = ch->head) != NULL) {
		ch->head = e->next;
		free(e);
	}
	ch->tail = NULL;
	pthread_mutex_unlock(&ch->lock);
	pthread_mutex_lock(&ev_cm_ch_lock);
	__atomic_store_n(&ch->dead, true, __ATOMIC_RELAXED);
	if (ch->waiters != 0) {
		ch->next_dead = ev_cm_dead;
		ev_cm_dead = ch;
		old = NULL;
	} else {
		old = ev_cm_quarantine[ev_cm_q_next];
		ev_cm_quarantine[ev_cm_q_next] = ch;
		ev_cm_q_next = (ev_cm_q_next + 1) % EV_CM_QUARANTINE;
		if (old != NULL && old->waiters != 0) {
			old->next_dead = ev_cm_dead;
			ev_cm_dead = old;
			old = NULL;
		}
	}
	pthread_mutex_unlock(&ev_cm_ch_lock);
	if (old != NULL)
		channel_close(old);
}

/* Queue @p e on @p id's channel and wake its reader. */
void
ev_cm_post(struct ev_cm_id *id, struct ev_cm_event *e)
{
	struct ev_cm_channel *ch = container_of(id->id.channel,
						struct ev_cm_channel, ch);
	const uint64_t one = 1;

	e->ev.id = &id->id;
	e->next = NULL;
	pthread_mutex_lock(&ch->lock);
	if (ch->tail != NULL)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	pthread_mutex_unlock(&ch->lock);
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		ev_log("rdma_cm: cannot signal an event channel: %s",
		       strerror(errno));
}

/* A new event for @p id of @p type, @p status (NULL: no memory). */
struct ev_cm_event *
ev_cm_event_new(enum rdma_cm_event_type type, int status)
{
	struct ev_cm_event *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return NULL;
	e->ev.event = type;
	e->ev.status = status;
	return e;
}

/* Remove the events of @p id that were not taken yet. */
static void
channel_purge(struct ev_cm_id *id)
{
	struct ev_cm_channel *ch = container_of(id->id.channel,
						struct ev_cm_channel, ch);
	struct ev_cm_event **pp, *e;

	pthread_mutex_lock(&ch->lock);
	ch->tail = NULL;
	for (pp = &ch->head; (e = *pp) != NULL;) {
		if (e->ev.id == &id->id || e->ev.listen_id == &id->id) {
			*pp = e->next;
			/* a request for a listener goes with it: its child too */
			if (e->ev.listen_id == &id->id && e->ev.id != NULL)
				e->orphan_child = true;
			if (e->orphan_child)
				ev_cm_id_free(container_of(e->ev.id,
							   struct ev_cm_id, id));
			free(e);
			continue;
		}
		ch->tail = e;
		pp = &e->next;
	}
	pthread_mutex_unlock(&ch->lock);
}

int
ev_cm_take(struct ev_cm_channel *ch, struct rdma_cm_event **event)
{
	struct ev_cm_event *e = NULL;
	int ret = -1;
	uint64_t v;

	pthread_mutex_lock(&ev_cm_ch_lock);
	ch->waiters++;
	pthread_mutex_unlock(&ev_cm_ch_lock);
	for (;;) {
		if (!__atomic_load_n(&ch->dead, __ATOMIC_RELAXED)) {
			ev_cm_pump_all();
			ev_env_kick(NULL);
		}
		if (read(ch->ch.fd, &v, sizeof(v)) != sizeof(v))
			break;	/* errno: EAGAIN (O_NONBLOCK), EINTR */
		if (__atomic_load_n(&ch->dead, __ATOMIC_RELAXED))
			continue;	/* destroyed meanwhile: wait on */
		pthread_mutex_lock(&ch->lock);
		e = ch->head;
		if (e != NULL) {
			ch->head = e->next;
			if (ch->head == NULL)
				ch->tail = NULL;
			/* a request is the listener's to acknowledge */
			e->owner = ev_cm_id(e->ev.event ==
					    RDMA_CM_EVENT_CONNECT_REQUEST &&
					    e->ev.listen_id != NULL ?
					    e->ev.listen_id : e->ev.id);
			/*
			 * counted before the queue's lock goes: an
			 * rdma_destroy_id() in another thread either purges
			 * the event or waits for its ack, never neither
			 */
			pthread_mutex_lock(&ev_cm_ack_lock);
			e->owner->ev_reported++;
			pthread_mutex_unlock(&ev_cm_ack_lock);
		}
		pthread_mutex_unlock(&ch->lock);
		if (e != NULL) {
			*event = &e->ev;
			ret = 0;
			break;
		}
		/* the count of a purged event: wait for the next */
	}
	pthread_mutex_lock(&ev_cm_ch_lock);
	ch->waiters--;
	pthread_mutex_unlock(&ev_cm_ch_lock);
	return ret;
}

int
rdma_get_cm_event(struct rdma_event_channel *channel,
		  struct rdma_cm_event **event)
{
	if (channel == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	return ev_cm_take(container_of(channel, struct ev_cm_channel, ch),
			  event);
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct ev_cm_event *e;

	if (event == NULL) {
		errno = EINVAL;
		return -1;
	}
	e = container_of(event, struct ev_cm_event, ev);
	if (e->owner != NULL) {
		pthread_mutex_lock(&ev_cm_ack_lock);
		e->owner->ev_completed++;
		pthread_cond_broadcast(&ev_cm_ack_cond);
		pthread_mutex_unlock(&ev_cm_ack_lock);
	}
	free(e);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Addresses                                                          */
/* ------------------------------------------------------------------ */

static const uint8_t v4pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* sockaddr -> roce_cm_addr; -EAFNOSUPPORT for another family. */
int
ev_cm_addr_from_sa(const struct sockaddr *sa, struct roce_cm_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)
			(const void *)sa;

		roce_cm_addr_ipv4(a, s->sin_addr.s_addr, ntohs(s->sin_port));
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)
			(const void *)sa;
		/* an IPv4-mapped IPv6 address is the IPv4 one (GID form) */
		if (memcmp(s->sin6_addr.s6_addr, v4pfx, 12) == 0) {
			rte_be32_t ip;

			memcpy(&ip, s->sin6_addr.s6_addr + 12, 4);
			roce_cm_addr_ipv4(a, ip, ntohs(s->sin6_port));
			return 0;
		}
		roce_cm_addr_ipv6(a, s->sin6_addr.s6_addr,
				  ntohs(s->sin6_port));
		return 0;
	}
	return -EAFNOSUPPORT;
}

/* roce_cm_addr -> sockaddr of its family. */
void
ev_cm_addr_to_sa(const struct roce_cm_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->ip_ver == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)(void *)ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr.s_addr, a->gid.raw + 12, 4);
		s->sin_port = htons(a->port);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)(void *)ss;

		s->sin6_family = AF_INET6;
		memcpy(s->sin6_addr.s6_addr, a->gid.raw, 16);
		s->sin6_port = htons(a->port);
	}
}

static bool
gid_is_v4(const union roce_gid *g)
{
	return memcmp(g->raw, v4pfx, 12) == 0;
}

static bool
gid_is_any(const union roce_gid *g)
{
	static const union roce_gid zero;

	return memcmp(g->raw, zero.raw, 16) == 0 ||
		(gid_is_v4(g) && g->w[3] == 0);
}

/*
 * The port with address @p a (an all-zero address: the first port with
 * an address of its family), NULL when none.
 */
struct ev_port *
ev_cm_port_of(const struct roce_cm_addr *a)
{
	unsigned int i, k;

	for (i = 0; i < ev_env.nb_ports; i++) {
		struct ev_port *p = &ev_env.port[i];

		for (k = 1; k < p->nb_gid; k++) {	/* 0: link-local */
			if (gid_is_v4(&p->gid[k]) != (a->ip_ver == 4))
				continue;
			if (gid_is_any(&a->gid) ||
			    memcmp(p->gid[k].raw, a->gid.raw, 16) == 0)
				return p;
		}
	}
	return NULL;
}

/* The port's own address of @p a's family into @p out (port kept). */
static int
port_addr(const struct ev_port *p, int ip_ver, struct roce_cm_addr *out)
{
	unsigned int k;

	for (k = 1; k < p->nb_gid; k++)
		if (gid_is_v4(&p->gid[k]) == (ip_ver == 4)) {
			out->ip_ver = (uint8_t)ip_ver;
			out->gid = p->gid[k];
			return 0;
		}
	return -EADDRNOTAVAIL;
}

/* ------------------------------------------------------------------ */
/* Ids                                                                */
/* ------------------------------------------------------------------ */

/* The context the program sees for @p p (librdmacm keeps one a device). */
struct ibv_context *
ev_cm_verbs(struct ev_port *p)
{
	static struct ibv_context *ctx[EV_MAX_PORTS];
	struct ibv_context *c;

	pthread_mutex_lock(&ev_cm_lock);
	c = ctx[p->index];
	if (c == NULL) {
		c = ibv_open_device(&p->dev->ibdev);
		ctx[p->index] = c;
	}
	pthread_mutex_unlock(&ev_cm_lock);
	return c;
}

/*
 * The PD of the port's ids, as librdmacm's: one a device, shared by every
 * id (what rdma_create_qp() and rdma_reg_msgs() use without a PD of the
 * program's), kept for the process's life.
 */
struct ibv_pd *
ev_cm_pd(struct ev_port *p)
{
	static struct ibv_pd *pd[EV_MAX_PORTS];
	struct ibv_context *c = ev_cm_verbs(p);
	struct ibv_pd *r;

	if (c == NULL)
		return NULL;
	pthread_mutex_lock(&ev_cm_lock);
	r = pd[p->index];
	if (r == NULL) {
		r = ibv_alloc_pd(c);
		pd[p->index] = r;
	}
	pthread_mutex_unlock(&ev_cm_lock);
	return r;
}

struct ev_cm_id *
ev_cm_id_new(struct rdma_event_channel *channel, void *context,
	     enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct ev_cm_id *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	id->id.channel = channel;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qpt;
	id->id.route.addr.src_addr.sa_family = AF_INET;
	id->ack_timeout = 0;
	pthread_mutex_lock(&ev_cm_lock);
	id->next = ev_cm_all;
	ev_cm_all = id;
	pthread_mutex_unlock(&ev_cm_lock);
	__atomic_fetch_add(&ev_cm_ids, 1, __ATOMIC_RELAXED);
	return id;
}

void
ev_cm_id_free(struct ev_cm_id *id)
{
	struct ev_cm_id **pp;

	pthread_mutex_lock(&ev_cm_lock);
	for (pp = &ev_cm_all; *pp != NULL; pp = &(*pp)->next)
		if (*pp == id) {
			*pp = id->next;
			break;
		}
	pthread_mutex_unlock(&ev_cm_lock);
	__atomic_fetch_sub(&ev_cm_ids, 1, __ATOMIC_RELAXED);
	free(id->path);
	free(id);
}

struct ev_cm_id *
ev_cm_find_rid(const struct roce_cm_id *rid)
{
	struct ev_cm_id *id;

	pthread_mutex_lock(&ev_cm_lock);
	for (id = ev_cm_all; id != NULL; id = id->next)
		if (id->rid == rid)
			break;
	pthread_mutex_unlock(&ev_cm_lock);
	return id;
}

static bool
ps_ok(enum rdma_port_space ps, enum ibv_qp_type *qpt)
{
	switch (ps) {
	case RDMA_PS_TCP:
		*qpt = IBV_QPT_RC;
		return true;
	case RDMA_PS_UDP:
		*qpt = IBV_QPT_UD;
		return true;
	case RDMA_PS_IB:
		return true;	/* the QP's type decides */
	default:
		return false;
	}
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	       void *context, enum rdma_port_space ps)
{
	enum ibv_qp_type qpt = IBV_QPT_RC;
	struct ev_cm_id *i;
	bool sync = channel == NULL;
	int ret;

	if (id == NULL || !ps_ok(ps, &qpt)) {
		errno = id == NULL ? EINVAL : EPROTONOSUPPORT;
		return -1;
	}
	ret = ev_env_start();
	if (ret != 0 || ev_env.nb_ports == 0) {
		errno = ret != 0 ? -ret : ENODEV;
		return -1;
	}
	if (sync) {
		/* synchronous: a private channel, each call waits for its event */
		channel = rdma_create_event_channel();
		if (channel == NULL)
			return -1;
	}
	i = ev_cm_id_new(channel, context, ps, qpt);
	if (i == NULL) {
		if (sync)
			rdma_destroy_event_channel(channel);
		errno = ENOMEM;
		return -1;
	}
	i->sync = sync;
	i->own_channel = sync;
	*id = &i->id;
	return 0;
}

void
ev_cm_qp_gone(struct ibv_qp *qp)
{
	struct ev_cm_id *i;

	if (__atomic_load_n(&ev_cm_ids, __ATOMIC_RELAXED) == 0)
		return;
	pthread_mutex_lock(&ev_cm_lock);
	for (i = ev_cm_all; i != NULL; i = i->next)
		if (i->id.qp == qp && i->rid != NULL)
			rte_pmd_ernic_cm_detach_qp(i->port->port_id, i->rid);
	pthread_mutex_unlock(&ev_cm_lock);
}

/* Leave whatever the port's CM holds for @p id (ctl held). */
static void
id_release_cm(struct ev_cm_id *id)
{
	unsigned int k;

	if (id->rid != NULL) {
		ev_port_hold(id->port);
		rte_pmd_ernic_cm_destroy_id(id->port->port_id, id->rid);
		ev_port_release(id->port);
		id->rid = NULL;
	}
	for (k = 0; k < EV_MAX_PORTS; k++)
		if (id->lsn[k] != NULL) {
			struct ev_port *p = &ev_env.port[k];

			ev_port_hold(p);
			rte_pmd_ernic_cm_listen_stop(p->port_id, id->lsn[k]);
			ev_port_release(p);
			id->lsn[k] = NULL;
		}
}

int
rdma_destroy_id(struct rdma_cm_id *cm_id)
{
	struct ev_cm_id *id;

	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	pthread_mutex_lock(&ev_env.ctl);
	id_release_cm(id);
	pthread_mutex_unlock(&ev_env.ctl);
	/* an event of the id in another thread's hands is queued by now */
	ev_cm_pump_barrier();
	if (id->sync && cm_id->event != NULL) {
		rdma_ack_cm_event(cm_id->event);
		cm_id->event = NULL;
	}
	/*
	 * The events not taken yet go; then, as librdmacm, the id waits for
	 * the acks of those the program took (another thread may still be
	 * handling one). In this order an event taken meanwhile is counted
	 * (ev_cm_take() counts it under the queue's lock) and waited for:
	 * waited for first, then purged, one taken between the two went to
	 * the program with its id freed (a program that destroys ids in one
	 * thread while another takes events, as cmtime's listener does).
	 */
	channel_purge(id);
	pthread_mutex_lock(&ev_cm_ack_lock);
	while (id->ev_completed != id->ev_reported)
		pthread_cond_wait(&ev_cm_ack_cond, &ev_cm_ack_lock);
	pthread_mutex_unlock(&ev_cm_ack_lock);
	if (id->own_channel)
		rdma_destroy_event_channel(cm_id->channel);
	ev_cm_id_free(id);
	return 0;
}

int
rdma_migrate_id(struct rdma_cm_id *cm_id, struct rdma_event_channel *channel)
{
	struct ev_cm_id *id;

	if (cm_id == NULL || channel == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	channel_purge(id);
	if (id->own_channel) {
		rdma_destroy_event_channel(cm_id->channel);
		id->own_channel = false;
	}
	id->sync = false;
	cm_id->channel = channel;
	return 0;
}

/* Bind @p id to the port of @p a; the program's view follows. */
static void
id_set_port(struct ev_cm_id *id, struct ev_port *p)
{
	id->port = p;
	id->id.verbs = p != NULL ? ev_cm_verbs(p) : NULL;
	id->id.pd = p != NULL ? ev_cm_pd(p) : NULL;
	id->id.port_num = p != NULL ? 1 : 0;
}

int
rdma_bind_addr(struct rdma_cm_id *cm_id, struct sockaddr *addr)
{
	struct roce_cm_addr a;
	struct ev_cm_id *id;
	struct ev_port *p;

	if (cm_id == NULL || addr == NULL ||
	    ev_cm_addr_from_sa(addr, &a) != 0) {
		errno = addr == NULL || cm_id == NULL ? EINVAL : EAFNOSUPPORT;
		return -1;
	}
	id = ev_cm_id(cm_id);
	p = ev_cm_port_of(&a);
	if (p == NULL) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	id->bound = true;
	id->any = gid_is_any(&a.gid);
	id->src = a;
	/* an unspecified address binds no device yet (any of them serves) */
	id_set_port(id, id->any ? NULL : p);
	if (id->any && ev_env.nb_ports == 1)
		id_set_port(id, p);
	memcpy(&cm_id->route.addr.src_storage, addr,
	       addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
	       sizeof(struct sockaddr_in6));
	return 0;
}

/* An event for @p id now, or the error of a synchronous id. */
static int
post_now(struct ev_cm_id *id, enum rdma_cm_event_type type, int status)
{
	struct ev_cm_event *e = ev_cm_event_new(type, status);

	if (e == NULL) {
		errno = ENOMEM;
		return -1;
	}
	ev_cm_post(id, e);
	return id->sync ? ev_cm_sync_wait(id, type) : 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *cm_id, struct sockaddr *src_addr,
		  struct sockaddr *dst_addr, int timeout_ms)
{
	struct roce_cm_addr dst, src;
	struct ev_cm_id *id;
	struct ev_port *p;
	int ip_ver;

	(void)timeout_ms;	/* no lookup to wait for: the file says */
	if (cm_id == NULL || dst_addr == NULL ||
	    ev_cm_addr_from_sa(dst_addr, &dst) != 0) {
		errno = cm_id == NULL || dst_addr == NULL ? EINVAL :
			EAFNOSUPPORT;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (src_addr != NULL && !id->bound &&
	    rdma_bind_addr(cm_id, src_addr) != 0)
		return -1;
	ip_ver = dst.ip_ver;
	if (id->bound && id->src.ip_ver != ip_ver) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	/* the port that carries the destination's family */
	p = id->port;
	if (p == NULL) {
		struct roce_cm_addr any = { .ip_ver = (uint8_t)ip_ver };

		p = ev_cm_port_of(&any);
	}
	id->dst = dst;
	memcpy(&cm_id->route.addr.dst_storage, dst_addr,
	       dst_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
	       sizeof(struct sockaddr_in6));
	if (p == NULL || port_addr(p, ip_ver, &src) != 0)
		return post_now(id, RDMA_CM_EVENT_ADDR_ERROR, -EADDRNOTAVAIL);
	src.port = id->bound ? id->src.port : 0;
	id->src = src;
	id_set_port(id, p);
	ev_cm_addr_to_sa(&src, &cm_id->route.addr.src_storage);
	memcpy(cm_id->route.addr.addr.ibaddr.sgid.raw, src.gid.raw, 16);
	memcpy(cm_id->route.addr.addr.ibaddr.dgid.raw, dst.gid.raw, 16);
	cm_id->route.addr.addr.ibaddr.pkey = htons(0xffff);
	return post_now(id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
}

int
rdma_resolve_route(struct rdma_cm_id *cm_id, int timeout_ms)
{
	struct roce_ah_attr ah;
	struct ev_cm_id *id;
	int ret;

	if (cm_id == NULL) {
		errno = EINVAL;
		return -1;
	}
	id = ev_cm_id(cm_id);
	if (id->port == NULL) {
		errno = EINVAL;	/* no address resolved */
		return -1;
	}
	memset(&ah, 0, sizeof(ah));
	ah.dgid = id->dst.gid;
	pthread_mutex_lock(&ev_env.ctl);
	ev_port_hold(id->port);
	ret = ev_ah_resolve(id->port, &ah);
	ev_port_release(id->port);
	pthread_mutex_unlock(&ev_env.ctl);
	(void)timeout_ms;	/* resolve_ms of the file bounds the wait */
	if (ret != 0)
		return post_now(id, RDMA_CM_EVENT_ROUTE_ERROR, -ret);
	memcpy(id->dmac, ah.dmac, 6);
	ret = ev_cm_route_fill(id);
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	return post_now(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
}

/* One path record for the route (programs read its MTU and GIDs). */
int
ev_cm_route_fill(struct ev_cm_id *id)
{
	struct ibv_sa_path_rec *pr;

	if (id->path == NULL) {
		id->path = calloc(1, sizeof(*id->path));
		if (id->path == NULL)
			return ENOMEM;
	}
	pr = id->path;
	memset(pr, 0, sizeof(*pr));
	memcpy(pr->sgid.raw, id->src.gid.raw, 16);
	memcpy(pr->dgid.raw, id->dst.gid.raw, 16);
	pr->pkey = htons(0xffff);
	pr->mtu = (uint8_t)id->port->mtu;
	pr->hop_limit = 64;
	pr->reversible = 1;
	pr->numb_path = 1;
	pr->packet_life_time = 14;
	id->id.route.path_rec = pr;
	id->id.route.num_paths = 1;
	return 0;
}

/* librdmacm's names of its events, the table's index the event */
static const char *const cm_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
};

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	if ((unsigned int)event < RTE_DIM(cm_event_names) &&
	    cm_event_names[event] != NULL)
		return cm_event_names[event];
	return "UNKNOWN EVENT";
}

/* the port of @p sa in network order, 0 when it is no IP address */
static __be16
sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

__be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return id != NULL ? sa_port(&id->route.addr.src_addr) : 0;
}

__be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id != NULL ? sa_port(&id->route.addr.dst_addr) : 0;
}
