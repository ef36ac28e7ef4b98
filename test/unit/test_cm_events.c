/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM's event queue when the application releases what an event names
 * (roce_cm_events_withdraw()): a destroyed id's events and a stopped
 * listener's CONNECT_REQUESTs leave the queue, the others stay in order,
 * also across the queue's wrap; between two CMs over the fake link, a
 * request queued when its listener stops and a DISCONNECTED queued when
 * its id is destroyed are never taken afterwards (an application that
 * freed the context would read freed memory), and counted.
 */
#include <string.h>

#include "cm_env.h"
#include "test_common.h"

/* ids and listeners only compared, never dereferenced */
static struct roce_cm_id *const ID_A = (struct roce_cm_id *)0x1000;
static struct roce_cm_id *const ID_B = (struct roce_cm_id *)0x2000;
static struct roce_cm_listener *const LIS = (struct roce_cm_listener *)0x3000;

static void
put(struct roce_cm_event *q, uint32_t size, uint32_t *tail,
    enum roce_cm_event_type type, struct roce_cm_id *id,
    struct roce_cm_listener *l, int status)
{
	struct roce_cm_event *ev = &q[(*tail)++ % size];

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->id = id;
	ev->listener = l;
	ev->status = status;
}

static void
test_withdraw_queue(void)
{
	struct roce_cm_event q[8];
	/* free-running indices that wrap the array (and near UINT32_MAX) */
	uint32_t head = UINT32_MAX - 1, tail = head, i;
	static const int left[] = { 2, 5, 7 };

	put(q, 8, &tail, ROCE_CM_EVENT_ESTABLISHED, ID_A, NULL, 1);
	put(q, 8, &tail, ROCE_CM_EVENT_ESTABLISHED, ID_B, NULL, 2);
	put(q, 8, &tail, ROCE_CM_EVENT_DISCONNECTED, ID_A, NULL, 3);
	put(q, 8, &tail, ROCE_CM_EVENT_CONNECT_REQUEST, ID_B, LIS, 4);
	/* another type that names the listener: not a request, kept */
	put(q, 8, &tail, ROCE_CM_EVENT_ESTABLISHED, NULL, LIS, 5);
	put(q, 8, &tail, ROCE_CM_EVENT_CONNECT_REQUEST, NULL, LIS, 6);
	put(q, 8, &tail, ROCE_CM_EVENT_TIMEWAIT_EXIT, ID_B, NULL, 7);

	CU_ASSERT_EQUAL(roce_cm_events_withdraw(q, 8, head, &tail, ID_A, NULL),
			2);
	CU_ASSERT_EQUAL(tail - head, 5);
	CU_ASSERT_EQUAL(roce_cm_events_withdraw(q, 8, head, &tail, NULL, LIS),
			2);
	CU_ASSERT_EQUAL_FATAL(tail - head, RTE_DIM(left));
	for (i = 0; i < RTE_DIM(left); i++)
		CU_ASSERT_EQUAL(q[(head + i) % 8].status, left[i]);
	/* nothing of theirs left: nothing more goes */
	CU_ASSERT_EQUAL(roce_cm_events_withdraw(q, 8, head, &tail, ID_A, LIS),
			0);
	CU_ASSERT_EQUAL(tail - head, RTE_DIM(left));
	/* an empty queue */
	tail = head;
	CU_ASSERT_EQUAL(roce_cm_events_withdraw(q, 8, head, &tail, ID_B, LIS),
			0);
	CU_ASSERT_EQUAL(tail, head);
}

static void
test_listen_stop_withdraws(void)
{
	struct cm_env *e = env_create(3, 0);
	struct roce_cm_event ev;
	struct roce_cm_id *a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	env_listen(e, 1, 8);
	e->s[1].hold_events = true;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &a, NULL, 0), 0);
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_req"), 1);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 1);
	/* the request waits in side 1's queue when its listener stops */
	CU_ASSERT_EQUAL(roce_cm_listen_stop(e->lis, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_event_withdrawn"), 1);
	CU_ASSERT_EQUAL(roce_cm_get_event(e->s[1].cm, &ev), 0);
	/* the requester is rejected, as for any request left unanswered */
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_REJECTED, 0));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_get_event(e->s[1].cm, &ev), 0);
	env_destroy(e);
}

static void
test_destroy_withdraws(void)
{
	struct cm_env *e = env_create(3, 0);
	struct roce_cm_id *id[2];
	struct roce_cm_event ev;
	unsigned int f1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	env_listen(e, 1, 8);
	establish(e, &id[0], &id[1], NULL);
	f1 = e->s[1].nev;
	/* side 0 does not take its events: the peer's DREQ is reported */
	e->s[0].hold_events = true;
	CU_ASSERT_EQUAL(roce_cm_disconnect(id[1], e->l->tsc), 0);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1], ROCE_CM_EVENT_DISCONNECTED,
				       f1));
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_disconnected"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_event_withdrawn"), 0);
	/* and destroys the id with DISCONNECTED still queued */
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[0], e->l->tsc), 0);
	CU_ASSERT(roce_cm_counter(e->s[0].cm, "cm_event_withdrawn") >= 1);
	CU_ASSERT_EQUAL(roce_cm_get_event(e->s[0].cm, &ev), 0);
	e->s[0].hold_events = false;
	drain(e);
	/* nothing more of it is reported, not even its timewait's end */
	CU_ASSERT_PTR_NULL(find_ev(&e->s[0], ROCE_CM_EVENT_DISCONNECTED, 0));
	CU_ASSERT_PTR_NULL(find_ev(&e->s[0], ROCE_CM_EVENT_TIMEWAIT_EXIT, 0));
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[1],
				       ROCE_CM_EVENT_TIMEWAIT_EXIT, f1));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(id[1], e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

static CU_TestInfo event_tests[] = {
	{ "withdrawal from a queue, in order, across its wrap",
	  test_withdraw_queue },
	{ "a queued request of a listener that stops", test_listen_stop_withdraws },
	{ "a queued DISCONNECTED of an id destroyed", test_destroy_withdraws },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cm_events", NULL, NULL, NULL, NULL, event_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
