/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma_cm API of the library in one process: a listener and an active
 * id of the looped-back device connect to each other through the port's
 * CM on QP1 (a REQ to our own address comes back to us); then the calls'
 * answers around a disconnect: the side whose peer disconnected first
 * disconnects without an error, as with Linux rdma_cm (perftest -R's
 * client failed when the server's DREQ came first), and an id that never
 * connected is refused.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>

#include "api_test.h"

#define CM_TEST_PORT 18777

/* the next event of @p ch within WAIT_MS, of type @p type, or NULL */
static struct rdma_cm_event *
cm_wait(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, WAIT_MS) != 1) {
		fprintf(stderr, "no %s within %d ms\n", rdma_event_str(type),
			WAIT_MS);
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev) != 0)
		return NULL;
	if (ev->event != type) {
		fprintf(stderr, "%s where %s was awaited (status %d)\n",
			rdma_event_str(ev->event), rdma_event_str(type),
			ev->status);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

static void
cm_addr(struct sockaddr_in *a, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	inet_pton(AF_INET, "198.18.0.1", &a->sin_addr);
}

static void
cm_qp_attr(struct ibv_qp_init_attr *qa, struct ibv_cq *cq)
{
	memset(qa, 0, sizeof(*qa));
	qa->send_cq = cq;
	qa->recv_cq = cq;
	qa->qp_type = IBV_QPT_RC;
	qa->cap.max_send_wr = 4;
	qa->cap.max_recv_wr = 4;
	qa->cap.max_send_sge = 1;
	qa->cap.max_recv_sge = 1;
}

void
test_cm_disconnect_after_peer(void)
{
	struct rdma_cm_id *lis = NULL, *act = NULL, *pas = NULL, *idle = NULL;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param prm = { .responder_resources = 1,
				       .initiator_depth = 1,
				       .retry_count = 7, .rnr_retry_count = 7 };
	struct ibv_cq *cq[2] = { NULL, NULL };
	struct sockaddr_in src, dst;
	struct ibv_qp_init_attr qa;
	struct rdma_cm_event *ev;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP), 0);
	cm_addr(&src, CM_TEST_PORT);
	CU_ASSERT_EQUAL_FATAL(rdma_bind_addr(lis, (struct sockaddr *)&src), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_listen(lis, 4), 0);

	/* an id that never connected has nothing to disconnect */
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &idle, NULL, RDMA_PS_TCP), 0);
	errno = 0;
	CU_ASSERT_EQUAL(rdma_disconnect(idle), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* the active side: address, route, QP, connect */
	CU_ASSERT_EQUAL_FATAL(rdma_create_id(ch, &act, NULL, RDMA_PS_TCP), 0);
	cm_addr(&dst, CM_TEST_PORT);
	CU_ASSERT_EQUAL_FATAL(rdma_resolve_addr(act, NULL,
						(struct sockaddr *)&dst,
						WAIT_MS), 0);
	ev = cm_wait(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(rdma_resolve_route(act, WAIT_MS), 0);
	ev = cm_wait(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);
	cq[0] = ibv_create_cq(act->verbs, 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq[0]);
	cm_qp_attr(&qa, cq[0]);
	CU_ASSERT_EQUAL_FATAL(rdma_create_qp(act, NULL, &qa), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_connect(act, &prm), 0);

	/* the passive side: the request comes back through the port */
	ev = cm_wait(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->listen_id, lis);
	pas = ev->id;
	rdma_ack_cm_event(ev);
	cq[1] = ibv_create_cq(pas->verbs, 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq[1]);
	cm_qp_attr(&qa, cq[1]);
	CU_ASSERT_EQUAL_FATAL(rdma_create_qp(pas, NULL, &qa), 0);
	CU_ASSERT_EQUAL_FATAL(rdma_accept(pas, &prm), 0);
	/* both ends established (the order is the CM's) */
	ev = cm_wait(ch, RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);
	ev = cm_wait(ch, RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);

	/* the passive side disconnects first; both see DISCONNECTED */
	CU_ASSERT_EQUAL(rdma_disconnect(pas), 0);
	ev = cm_wait(ch, RDMA_CM_EVENT_DISCONNECTED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);
	ev = cm_wait(ch, RDMA_CM_EVENT_DISCONNECTED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	rdma_ack_cm_event(ev);
	/* then the active side's own disconnect: done already, no error */
	errno = 0;
	CU_ASSERT_EQUAL(rdma_disconnect(act), 0);
	CU_ASSERT_EQUAL(errno, 0);
	/* and again */
	CU_ASSERT_EQUAL(rdma_disconnect(pas), 0);

	rdma_destroy_qp(act);
	rdma_destroy_qp(pas);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq[0]), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq[1]), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(pas), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(act), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(idle), 0);
	CU_ASSERT_EQUAL(rdma_destroy_id(lis), 0);
	rdma_destroy_event_channel(ch);
}

/* test_cm_destroy_while_taking: a thread that takes the channel's events */
struct cm_taker {
	struct rdma_event_channel *ch;
	int stop;		/* atomic */
	unsigned int taken;
	unsigned int foreign;	/* events whose id is not on the channel */
};

static void *
cm_taker_main(void *arg)
{
	struct cm_taker *t = arg;
	struct pollfd pfd = { .fd = t->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, 10) != 1 ||
		    rdma_get_cm_event(t->ch, &ev) != 0)
			continue;
		/* until the ack, the event's id is the program's to read */
		if (ev->id == NULL || ev->id->channel != t->ch)
			t->foreign++;
		t->taken++;
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

#define CM_RACE_IDS 2000

static void
cm_spin_us(unsigned int us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L +
		 (b.tv_nsec - a.tv_nsec) < (long)us * 1000);
}

/*
 * One thread takes events while another destroys their ids, as cmtime's
 * listener does: each id resolves an address (an event queued) and is
 * destroyed at once. An id's destroy either removes its event from the
 * channel or waits for the taker's ack of it; an event must never reach
 * the taker with its id freed (ASan: use after free; every event's id
 * still on the channel).
 */
void
test_cm_destroy_while_taking(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct sockaddr_in dst;
	struct rdma_cm_id *id;
	struct cm_taker t;
	pthread_t th;
	unsigned int i, made = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	/*
	 * non-blocking: a purged event leaves its wake-up in the channel,
	 * and a blocking take after the last id would wait for ever
	 */
	CU_ASSERT_EQUAL_FATAL(fcntl(ch->fd, F_SETFL,
				    fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	memset(&t, 0, sizeof(t));
	t.ch = ch;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, cm_taker_main, &t), 0);
	cm_addr(&dst, CM_TEST_PORT + 1);
	for (i = 0; i < CM_RACE_IDS; i++) {
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0)
			break;
		made++;
		CU_ASSERT_EQUAL(rdma_resolve_addr(id, NULL,
						  (struct sockaddr *)&dst,
						  WAIT_MS), 0);
		/* 0-99 us: the event queued, being taken, or taken */
		cm_spin_us(i % 100);
		CU_ASSERT_EQUAL(rdma_destroy_id(id), 0);
	}
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("\n  %u ids destroyed while %u of their events were taken ",
	       made, t.taken);
	CU_ASSERT_EQUAL(made, CM_RACE_IDS);
	CU_ASSERT_EQUAL(t.foreign, 0);
	rdma_destroy_event_channel(ch);
}
