/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm's synchronous face: ids made without a channel, whose calls wait
 * for their own event (rdma_resolve_addr() returns once the address is
 * resolved, rdma_connect() once connected...), rdma_getaddrinfo(), and the
 * endpoints of rdma_create_ep() and rdma_get_request() that rdma_server and
 * rdma_client use. The devices of rdma_get_devices() are the contexts the
 * ids hand out.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "ev_cm.h"

/* ------------------------------------------------------------------ */
/* Synchronous ids                                                    */
/* ------------------------------------------------------------------ */

int
ev_cm_sync_wait(struct ev_cm_id *id, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *e;
	int st;

	/* the previous call's event goes now, as librdmacm does */
	if (id->id.event != NULL) {
		rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
	if (ev_cm_take(container_of(id->id.channel, struct ev_cm_channel, ch),
		       &e) != 0)
		return -1;
	id->id.event = e;
	st = e->status;
	if (e->event == want && st == 0)
		return 0;
	if (e->event == RDMA_CM_EVENT_REJECTED)
		errno = ECONNREFUSED;
	else if (st < 0)
		errno = -st;
	else
		errno = st != 0 ? st : EPROTO;
	return -1;
}

/* ------------------------------------------------------------------ */
/* rdma_getaddrinfo()                                                 */
/* ------------------------------------------------------------------ */

static int
copy_sa(struct sockaddr **dst, socklen_t *len, const struct sockaddr *src,
	socklen_t slen)
{
	*dst = malloc(slen);
	if (*dst == NULL)
		return ENOMEM;
	memcpy(*dst, src, slen);
	*len = slen;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *n;

	for (; res != NULL; res = n) {
		n = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}

int
rdma_getaddrinfo(const char *node, const char *service,
		 const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	const struct rdma_addrinfo none = { .ai_port_space = RDMA_PS_TCP };
	struct addrinfo h, *ai = NULL;
	struct rdma_addrinfo *r;
	int ret;

	if (res == NULL || (node == NULL && service == NULL && hints == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (hints == NULL)
		hints = &none;
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return -1;
	}
	r->ai_flags = hints->ai_flags;
	r->ai_family = hints->ai_family;
	r->ai_port_space = hints->ai_port_space != 0 ? hints->ai_port_space :
		RDMA_PS_TCP;
	r->ai_qp_type = hints->ai_qp_type != 0 ? hints->ai_qp_type :
		(r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC);
	ret = 0;
	if (node != NULL || service != NULL) {
		memset(&h, 0, sizeof(h));
		h.ai_family = hints->ai_family;
		h.ai_socktype = SOCK_STREAM;
		if (hints->ai_flags & RAI_PASSIVE)
			h.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			h.ai_flags |= AI_NUMERICHOST;
		ret = getaddrinfo(node, service, &h, &ai);
		if (ret != 0) {
			rdma_freeaddrinfo(r);
			errno = ret == EAI_NONAME ? ENOENT :
				ret == EAI_MEMORY ? ENOMEM : EINVAL;
			return ret;	/* an EAI_ code, as librdmacm returns */
		}
		r->ai_family = ai->ai_family;
		/* passive: where to listen; active: where to connect */
		if (hints->ai_flags & RAI_PASSIVE)
			ret = copy_sa(&r->ai_src_addr, &r->ai_src_len,
				      ai->ai_addr, ai->ai_addrlen);
		else
			ret = copy_sa(&r->ai_dst_addr, &r->ai_dst_len,
				      ai->ai_addr, ai->ai_addrlen);
		freeaddrinfo(ai);
	} else if (hints->ai_dst_len != 0) {
		ret = copy_sa(&r->ai_dst_addr, &r->ai_dst_len,
			      hints->ai_dst_addr, hints->ai_dst_len);
	}
	if (ret == 0 && r->ai_src_len == 0 && hints->ai_src_len != 0)
		ret = copy_sa(&r->ai_src_addr, &r->ai_src_len,
			      hints->ai_src_addr, hints->ai_src_len);
	if (ret != 0) {
		rdma_freeaddrinfo(r);
		errno = ret;
		return -1;
	}
	*res = r;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Endpoints                                                          */
/* ------------------------------------------------------------------ */

/* What rdma_create_ep() keeps of a listener for its requests' QPs. */
struct ev_cm_ep {
	struct ibv_pd *pd;
	struct ibv_qp_init_attr attr;
};

struct ep_entry {
	struct ev_cm_id *id;
	struct ev_cm_ep ep;
	struct ep_entry *next;
};

static struct ep_entry *eps;
static pthread_mutex_t eps_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ev_cm_ep *
ep_find(const struct ev_cm_id *id)
{
	struct ep_entry *e;

	pthread_mutex_lock(&eps_lock);
	for (e = eps; e != NULL && e->id != id; e = e->next)
		;
	pthread_mutex_unlock(&eps_lock);
	return e != NULL ? &e->ep : NULL;
}

static int
ep_keep(struct ev_cm_id *id, struct ibv_pd *pd,
	const struct ibv_qp_init_attr *attr)
{
	struct ep_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return ENOMEM;
	e->id = id;
	e->ep.pd = pd;
	e->ep.attr = *attr;
	pthread_mutex_lock(&eps_lock);
	e->next = eps;
	eps = e;
	pthread_mutex_unlock(&eps_lock);
	return 0;
}

static void
ep_forget(const struct ev_cm_id *id)
{
	struct ep_entry **pp, *e;

	pthread_mutex_lock(&eps_lock);
	for (pp = &eps; (e = *pp) != NULL; pp = &e->next)
		if (e->id == id) {
			*pp = e->next;
			free(e);
			break;
		}
	pthread_mutex_unlock(&eps_lock);
}

int
rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
	       struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	int ret, err;

	if (id == NULL || res == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &cm_id, NULL, res->ai_port_space) != 0)
		return -1;
	if (res->ai_qp_type != 0)
		cm_id->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (qp_init_attr != NULL && res->ai_qp_type != 0)
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		ret = res->ai_src_addr != NULL ?
			rdma_bind_addr(cm_id, res->ai_src_addr) : 0;
		if (ret == 0 && qp_init_attr != NULL) {
			/* each request's QP is made by rdma_get_request() */
			err = ep_keep(ev_cm_id(cm_id), pd, qp_init_attr);
			if (err != 0) {
				errno = err;
				ret = -1;
			}
		}
	} else {
		ret = rdma_resolve_addr(cm_id, res->ai_src_addr,
					res->ai_dst_addr, 2000);
		if (ret == 0)
			ret = rdma_resolve_route(cm_id, 2000);
		if (ret == 0 && qp_init_attr != NULL)
			ret = rdma_create_qp(cm_id, pd, qp_init_attr);
	}
	if (ret != 0) {
		err = errno;
		rdma_destroy_ep(cm_id);
		errno = err;
		return -1;
	}
	*id = cm_id;
	return 0;
}

void
rdma_destroy_ep(struct rdma_cm_id *cm_id)
{
	struct ev_cm_id *id;

	if (cm_id == NULL)
		return;
	id = ev_cm_id(cm_id);
	rdma_destroy_qp(cm_id);
	rdma_destroy_srq(cm_id);
	ep_forget(id);
	rdma_destroy_id(cm_id);
}

int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct rdma_cm_event *e;
	struct ev_cm_id *l, *c;
	struct ev_cm_ep *ep;
	struct ibv_qp_init_attr attr;
	struct rdma_event_channel *ch;
	int err;

	if (listen == NULL || id == NULL || !ev_cm_id(listen)->sync) {
		errno = EINVAL;	/* a synchronous listener only */
		return -1;
	}
	l = ev_cm_id(listen);
	if (listen->event != NULL) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	for (;;) {
		if (ev_cm_take(container_of(listen->channel,
					    struct ev_cm_channel, ch),
			       &e) != 0)
			return -1;
		if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		rdma_ack_cm_event(e);	/* nothing else concerns a listener */
	}
	c = ev_cm_id(e->id);
	/* the new id waits on a channel of its own, as a synchronous id */
	ch = rdma_create_event_channel();
	if (ch == NULL) {
		err = errno;
		rdma_reject(e->id, NULL, 0);
		rdma_destroy_id(e->id);
		rdma_ack_cm_event(e);
		errno = err;
		return -1;
	}
	c->id.channel = ch;
	c->own_channel = true;
	c->sync = true;
	c->id.event = e;
	ep = ep_find(l);
	if (ep != NULL) {
		attr = ep->attr;
		if (rdma_create_qp(&c->id, ep->pd, &attr) != 0) {
			err = errno;
			rdma_reject(&c->id, NULL, 0);
			rdma_destroy_ep(&c->id);
			errno = err;
			return -1;
		}
	}
	*id = &c->id;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Devices                                                            */
/* ------------------------------------------------------------------ */

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	unsigned int i;
	int ret = ev_env_start();

	if (ret != 0) {
		errno = -ret;
		return NULL;
	}
	list = calloc(ev_env.nb_ports + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < ev_env.nb_ports; i++)
		list[i] = ev_cm_verbs(&ev_env.port[i]);
	if (num_devices != NULL)
		*num_devices = (int)ev_env.nb_ports;
	return list;
}

void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
