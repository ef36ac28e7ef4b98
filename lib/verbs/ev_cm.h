/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef EV_CM_H
#define EV_CM_H

/*
 * rdma_cm in libernic_verbs (internal): the librdmacm ABI over the port's
 * connection manager (ev_cm.c: channels, ids, addresses; ev_cm_conn.c:
 * QPs, connections and the event pump; ev_cm_ep.c: synchronous ids,
 * rdma_getaddrinfo(), endpoints; ev_cm_sidr.c: UD through SIDR).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "ev_priv.h"
#include "roce_cm.h"

/** An event and its private data, as the program takes it. */
struct ev_cm_event {
	struct rdma_cm_event ev;	/**< first: what the program holds */
	struct ev_cm_event *next;	/**< the channel's queue */
	/** a CONNECT_REQUEST whose listener went: its new id goes too */
	bool orphan_child;
	/** the id whose rdma_destroy_id() waits for its ack (taken events) */
	struct ev_cm_id *owner;
	uint8_t private_data[ROCE_CM_REP_PRIVATE];
};

/** An event channel: an eventfd and the events waiting. */
struct ev_cm_channel {
	struct rdma_event_channel ch;	/**< first: its fd */
	pthread_mutex_t lock;
	struct ev_cm_event *head, *tail;
	/* threads in rdma_get_cm_event() (ev_cm_ch_lock) */
	uint32_t waiters;
	/* destroyed while a thread waited in it: kept, never signalled */
	bool dead;
	struct ev_cm_channel *next_dead;
};

/** Where a connection id is in its life (what the next call may do). */
enum ev_cm_state {
	EV_CM_IDLE = 0,
	EV_CM_CONNECTING,	/**< REQ (or SIDR REQ) out */
	EV_CM_REQUESTED,	/**< a request waits for accept or reject */
	EV_CM_ACCEPTING,	/**< REP out, RTU awaited */
	EV_CM_CONNECTED,
	EV_CM_DISCONNECTED,
};

/** An rdma_cm id. */
struct ev_cm_id {
	struct rdma_cm_id id;		/**< first: what the program holds */
	struct ev_port *port;		/**< NULL until bound to a device */
	bool sync;			/**< each call waits for its event */
	bool own_channel;		/**< its private channel (sync) */
	bool bound, any;		/**< rdma_bind_addr(), unspecified */
	enum ev_cm_state state;
	struct roce_cm_addr src, dst;
	uint8_t dmac[6];
	struct roce_cm_id *rid;		/**< the port CM's connection */
	/** listeners, one a port (an unspecified address: every port) */
	struct roce_cm_listener *lsn[EV_MAX_PORTS];
	struct ev_cm_id *listen_id;	/**< a request's listener */
	uint32_t remote_qpn;
	uint8_t tos, ack_timeout;	/**< rdma_set_option() */
	struct ibv_sa_path_rec *path;	/**< route.path_rec */
	bool own_cqs;			/**< made by rdma_create_qp/_ep */
	uint32_t qkey;			/**< UD: the id's Q_Key */
	/* events taken and acknowledged (ev_cm_ack_lock), as librdmacm's */
	uint32_t ev_reported, ev_completed;
	struct ev_cm_id *next;		/**< every id (ev_cm_lock) */
};

static inline struct ev_cm_id *
ev_cm_id(struct rdma_cm_id *id)
{
	return (struct ev_cm_id *)(void *)id;
}

extern uint32_t ev_cm_ids;
extern pthread_mutex_t ev_cm_lock;

/* ev_cm.c */
struct ev_cm_id *ev_cm_id_new(struct rdma_event_channel *channel,
			      void *context, enum rdma_port_space ps,
			      enum ibv_qp_type qpt);
void ev_cm_id_free(struct ev_cm_id *id);
struct ev_cm_event *ev_cm_event_new(enum rdma_cm_event_type type,
				    int status);
void ev_cm_post(struct ev_cm_id *id, struct ev_cm_event *e);
int ev_cm_take(struct ev_cm_channel *ch, struct rdma_cm_event **event);
int ev_cm_addr_from_sa(const struct sockaddr *sa, struct roce_cm_addr *a);
void ev_cm_addr_to_sa(const struct roce_cm_addr *a,
		      struct sockaddr_storage *ss);
struct ev_port *ev_cm_port_of(const struct roce_cm_addr *a);
struct ibv_context *ev_cm_verbs(struct ev_port *p);
struct ibv_pd *ev_cm_pd(struct ev_port *p);
int ev_cm_route_fill(struct ev_cm_id *id);
struct ev_cm_id *ev_cm_find_rid(const struct roce_cm_id *rid);

/* ev_cm_conn.c */
/**
 * The new id of a request for the listener in ev->context, on its channel,
 * and its CONNECT_REQUEST event (@p e, not posted yet): NULL when there is
 * no memory (nothing is left allocated).
 */
struct ev_cm_id *ev_cm_request_id(struct ev_port *p,
				  const struct roce_cm_event *ev,
				  enum ibv_qp_type qpt, struct ev_cm_event **e);
/** Take each port's CM events and queue them on their ids' channels. */
void ev_cm_pump_all(void);
/**
 * Wait until no thread routes events: one taken from a port's CM before
 * its id left the CM has been queued (or dropped) when this returns.
 */
void ev_cm_pump_barrier(void);
/**
 * Keep the events of the ports' CMs from being routed meanwhile: an id
 * whose request goes out between ev_cm_pump_hold() and ev_cm_pump_unhold()
 * learns its roce_cm_id and state before its answer reaches it (without
 * this, an answer routed first found the id without them and was dropped
 * as an old id's, or its state was overwritten). Taken under ev_env.ctl;
 * the routing never waits for ctl.
 */
void ev_cm_pump_hold(void);
void ev_cm_pump_unhold(void);

/* ev_cm_ep.c */
/**
 * A synchronous id's call waits for its event: 0 when it is @p want with
 * status 0 (kept in id->event until the next call), -1 with errno.
 */
int ev_cm_sync_wait(struct ev_cm_id *id, enum rdma_cm_event_type want);

/* ev_cm_sidr.c */
/** The port CM's port space of an id's rdma_cm one. */
enum roce_cm_port_space ev_cm_port_space(const struct ev_cm_id *id);
int ev_cm_sidr_connect(struct ev_cm_id *id, struct rdma_conn_param *p);
int ev_cm_sidr_accept(struct ev_cm_id *id, struct rdma_conn_param *p);
int ev_cm_sidr_reject(struct ev_cm_id *id, const void *pd, uint8_t len);
/** Route a UD event of the port CM: true when it was one. */
bool ev_cm_sidr_event(struct ev_port *p, const struct roce_cm_event *ev);

#endif /* EV_CM_H */
