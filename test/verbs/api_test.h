/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_VERBS_API_TEST_H
#define TEST_VERBS_API_TEST_H

/*
 * The verbs API test (test_verbs_api.c: suite, devices, bad arguments;
 * verbs_api_rc.c: RC traffic; verbs_api_ud.c: UD, SRQ, resize, rereg,
 * windows; verbs_api_cm.c: rdma_cm): its limits, the suite's device and the helpers
 * (verbs_api_util.c).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CUnit/Basic.h>
#include <infiniband/verbs.h>

/* longest wait for a completion or an event */
#define WAIT_MS 5000
/* how long "nothing comes" is watched */
#define QUIET_MS 150
/* initial PSNs of the two ends of an RC pair */
#define PSN_0 0x1000
#define PSN_1 0x2000
#define QKEY 0x11111111
/* a QP's queues and the CQs' depth */
#define QP_WR 64
#define QP_SGE 4
#define QP_INLINE 64
#define CQ_DEPTH 256
/* registered buffers of the tests */
#define MEM_SIZE 16384
/* the GRH area in front of a UD receive (struct ibv_grh) */
#define GRH_LEN 40

#define ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* ::ffff:198.18.0.1, GID 1 of ernic0 (conf/verbs-loopback.ini) */
extern const uint8_t gid1_want[16];

/* the suite's device, context and protection domain */
extern struct ibv_device **dev_list;
extern struct ibv_context *ctx;
extern struct ibv_pd *pd;
extern struct ibv_device_attr dev_attr;
extern union ibv_gid gid1;

/* A registered buffer. */
struct mem {
	uint8_t *p;
	struct ibv_mr *mr;
};

/* Two connected RC QPs, each with its own CQ (side 1's on @p ch). */
struct rc_pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
};

uint64_t now_ms(void);

/*
 * Poll @p cq until @p n completions came or WAIT_MS passed: the number
 * got (fewer on a time-out), or ibv_poll_cq()'s negative value.
 */
int poll_wait(struct ibv_cq *cq, struct ibv_wc *wc, int n);

int min_int(int a, int b);

/* True when no completion comes to @p cq for QUIET_MS. */
bool cq_quiet(struct ibv_cq *cq);

/*
 * The next completion of @p cq is a successful @p op of @p wr_id (copied
 * to @p out when not NULL).
 */
bool expect_wc(struct ibv_cq *cq, enum ibv_wc_opcode op, uint64_t wr_id,
	       struct ibv_wc *out);

int mem_reg(struct mem *m, int access);

void mem_free(struct mem *m);

/* A pattern that differs for every @p seed and byte. */
void fill(uint8_t *p, size_t len, unsigned int seed);

struct ibv_qp *qp_new(enum ibv_qp_type type, struct ibv_cq *cq,
		      struct ibv_srq *srq);

/*
 * Wait up to WAIT_MS for a completion event on @p ch, take and acknowledge
 * it: true when it came for @p want (its context in @p ctx_out if not
 * NULL).
 */
bool cq_event_ack(struct ibv_comp_channel *ch, struct ibv_cq *want,
		  void **ctx_out);

/* The same with a send CQ @p scq and a receive CQ @p rcq. */
struct ibv_qp *qp_new_cqs(enum ibv_qp_type type, struct ibv_cq *scq,
			  struct ibv_cq *rcq, struct ibv_srq *srq);

/* RESET -> INIT of an RC QP, as ibv_rc_pingpong: 0 or an errno. */
int rc_init(struct ibv_qp *qp);

/* INIT -> RTR towards QP @p dest_qpn of this device's GID 1. */
int rc_rtr(struct ibv_qp *qp, uint32_t dest_qpn, uint32_t rq_psn);

/* RTR -> RTS. */
int rc_rts(struct ibv_qp *qp, uint32_t sq_psn);

/* Connect RC QPs @p a and @p b to each other: 0 or the first errno. */
int rc_connect(struct ibv_qp *a, struct ibv_qp *b);

/* RESET -> RTS of a UD QP. */
int ud_up(struct ibv_qp *qp);

/* Post one receive of [addr, addr + len) (no SGE when @p len is 0). */
int post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	      uint32_t lkey);

int post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, void *addr, uint32_t len,
		  uint32_t lkey);

/* A signaled send WR of one SGE. */
void wr_fill(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t wr_id,
	     enum ibv_wr_opcode op, void *addr, uint32_t len, uint32_t lkey);

/* Post a signaled SEND of [addr, addr + len). */
int post_send(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	      uint32_t lkey, unsigned int flags);

int pair_new(struct rc_pair *p, struct ibv_comp_channel *ch, void *cq1_context);

void pair_free(struct rc_pair *p);

/*
 * Wait up to @p ms for the asynchronous event @p type of object @p obj
 * (QP, CQ or SRQ) on the suite's context; others are acknowledged and
 * skipped. 1 when it came, 0 when not, -1 on an error.
 */
int wait_async(enum ibv_event_type type, const void *obj, unsigned int ms);

/* the tests of verbs_api_rc.c and verbs_api_ud.c */
void test_rc_traffic(void);
void test_solicited_event(void);
void test_shared_cqs(void);
void test_qp_ex(void);
void test_sq_full(void);
void test_bad_lkey_reset(void);
void test_ud(void);
void test_srq_limit(void);
void test_resize_cq(void);
void test_cq_overrun(void);
void test_rereg_mr(void);
void test_mw(void);

/* verbs_api_cm.c: rdma_cm */
void test_cm_disconnect_after_peer(void);
void test_cm_destroy_while_taking(void);

#endif /* TEST_VERBS_API_TEST_H */
