/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_CM_ENV_H
#define TEST_CM_ENV_H

/*
 * Two connection managers over the fake link (fake_link.h), one per side,
 * each with a CQ and an RC QP: the harness of the CM tests (test_cm.c,
 * test_cm_sidr.c). Time is the link's TSC; env_step() jumps it to the next
 * CM deadline when nothing moves.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "fake_link.h"
#include "roce_cm.h"
#include "roce_cm_priv.h"

#define CM_PORT 18515

#define EVQ 4096

struct side {
	struct cm_env *env;
	int idx;
	struct roce_cm *cm;
	struct roce_cq *cq;
	struct roce_qp *qp;
	bool drop_tx;			/* CM frames from this side are lost */
	bool echo_vendor;		/* REPs echo the REQ's Vendor ID (Linux) */
	bool hold_events;		/* env_step() leaves the CM's events queued */
	uint8_t req_vendor[3];		/* the Vendor ID of the last REQ received */
	uint16_t capture_attr;		/* keep a copy of the next such MAD */
	struct rte_mbuf *captured;
	struct roce_cm_event ev[EVQ];
	unsigned int nev;
};

struct cm_env {
	struct fake_link *l;
	struct side s[2];
	struct roce_cm_listener *lis;
};

/*
 * The cells of the CM's state machine table (roce_cm_fsm.c) that the CMs
 * of every env_destroy()ed environment applied, [state][input].
 */
extern uint64_t env_fsm_hits[ROCE_CM_STATE_MAX][CM_IN_MAX];

/*
 * Assert that every transition of the table has been applied by the
 * environments destroyed so far; each one missing is printed.
 */
unsigned int env_check_transitions(void);

/* roce_cm_config::selective_repeat of each side's CM at env_create() */
extern uint8_t env_sr_default[2];

/* roce_cm_config::tx of a side: to the other side's inbox (or lost) */
int env_tx(void *ctx, struct rte_mbuf *m);

struct cm_env *env_create(uint8_t max_cm_retries, uint32_t max_ids);

void env_destroy(struct cm_env *e);

/*
 * One step: the link (workers, GSI to the CMs), the CM timers, events.
 * When nothing moved and @p jump, the clock jumps to the next CM deadline.
 */
unsigned int env_step_j(struct cm_env *e, bool jump);

unsigned int env_step(struct cm_env *e);

/* The first event of @p type on side @p s from index @p from, or NULL. */
struct roce_cm_event *find_ev(struct side *s, enum roce_cm_event_type type,
			      unsigned int from);

/* Step until side @p s has an event of @p type (after index @p from). */
struct roce_cm_event *wait_ev(struct cm_env *e, struct side *s,
			      enum roce_cm_event_type type, unsigned int from);

/* Deliver everything in flight, without moving the clock to a deadline. */
void settle(struct cm_env *e);

/* Run until no CM timer is left (retries, timewaits). */
void drain(struct cm_env *e);

/* IPv4 address of side @p side, port @p port */
void addr_of(const struct cm_env *e, int side, uint16_t port,
	     struct roce_cm_addr *a);

void param_default(struct roce_cm_conn_param *p);

/* Side @p from connects its QP to side @p from ^ 1's CM_PORT. */
int env_connect(struct cm_env *e, int from, struct roce_cm_id **id,
		const void *pd, uint8_t pd_len);

/* Side @p side listens on CM_PORT (TCP port space), e->lis. */
void env_listen(struct cm_env *e, int side, uint32_t backlog);

enum roce_qp_state qp_state(struct roce_qp *qp);

void qp_reset(struct roce_qp *qp);

/* One SEND from side 0's QP to side 1's over the connection. */
void send_one(struct cm_env *e);

/* Connect 0 -> 1, accept, established on both sides; returns the ids. */
void establish(struct cm_env *e, struct roce_cm_id **a,
	       struct roce_cm_id **p, const char *pd);

/* Disconnect from @p who, both sides through timewait, ids destroyed. */
void teardown(struct cm_env *e, struct roce_cm_id *id[2], int who);

#endif /* TEST_CM_ENV_H */
