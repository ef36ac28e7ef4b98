/* SPDX-License-Identifier: BSD-3-Clause */
/* Device: create/destroy, limits, GID table, async events, QPN table. */
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "roce_priv.h"
#include "roce_qp.h"
#include "test_common.h"

static struct roce_device *
small_device(uint32_t max_qp, uint32_t max_mr)
{
	struct roce_device_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "test";
	cfg.max_qp = max_qp;
	cfg.max_mr = max_mr;
	cfg.socket_id = SOCKET_ID_ANY;
	return roce_device_create(&cfg);
}

static void
test_device_create_destroy(void)
{
	struct roce_device_config cfg;
	struct roce_device *dev;
	char name[64];

	/* the name is copied: the caller's buffer may go away */
	memset(&cfg, 0, sizeof(cfg));
	strcpy(name, "dev-name");
	cfg.name = name;
	cfg.max_qp = 16;
	cfg.max_mr = 8;
	cfg.socket_id = SOCKET_ID_ANY;
	dev = roce_device_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	memset(name, 0, sizeof(name));
	CU_ASSERT_STRING_EQUAL(dev->name, "dev-name");
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(NULL), -EINVAL);
}

static void
test_device_bad_config(void)
{
	struct roce_device_config cfg;

	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_device_create(NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	memset(&cfg, 0, sizeof(cfg));
	cfg.socket_id = SOCKET_ID_ANY;
	cfg.max_qp = 1000;		/* not a power of two */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	cfg.max_qp = ROCE_MAX_QP * 2;	/* above the limit */
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	cfg.max_qp = 2;			/* only the reserved QPNs */
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	cfg.max_qp = 8;
	cfg.max_mr = ROCE_MAX_MR + 1;
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	cfg.max_mr = 8;
	cfg.max_mtu = (enum roce_mtu)6;	/* not an MTU code */
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	cfg.max_mtu = ROCE_MTU_2048;
	cfg.gid_valid[3] = true;	/* valid but all-zero GID */
	CU_ASSERT_PTR_NULL(roce_device_create(&cfg));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
}

static void
test_device_query_limits(void)
{
	struct roce_device_attr a;
	struct roce_device *dev;

	/* zeroes in the config mean the maxima of roce_verbs.h */
	dev = small_device(0, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(roce_query_device(dev, NULL), -EINVAL);
	CU_ASSERT_EQUAL(roce_query_device(NULL, &a), -EINVAL);
	memset(&a, 0xa5, sizeof(a));
	CU_ASSERT_EQUAL(roce_query_device(dev, &a), 0);
	CU_ASSERT_EQUAL(a.max_qp, ROCE_MAX_QP);
	CU_ASSERT_EQUAL(a.max_qp_wr, ROCE_MAX_QP_WR);
	CU_ASSERT_EQUAL(a.max_sge, ROCE_MAX_SGE);
	CU_ASSERT_EQUAL(a.max_inline, ROCE_MAX_INLINE);
	CU_ASSERT_EQUAL(a.max_cqe, ROCE_MAX_CQE);
	CU_ASSERT_EQUAL(a.max_mr, ROCE_MAX_MR);
	CU_ASSERT_EQUAL(a.max_mw, ROCE_MAX_MR);
	CU_ASSERT_EQUAL(a.max_qp_rd_atom, ROCE_MAX_RD_ATOMIC);
	CU_ASSERT_EQUAL(a.max_qp_init_rd_atom, ROCE_MAX_RD_ATOMIC);
	CU_ASSERT_EQUAL(a.max_srq_wr, ROCE_MAX_SRQ_WR);
	CU_ASSERT_EQUAL(a.max_msg_sz, ROCE_MAX_MSG_SIZE);
	CU_ASSERT(a.max_cq > 0 && a.max_pd > 0 && a.max_srq > 0);
	CU_ASSERT(a.max_mr_size >= ROCE_MAX_MSG_SIZE);
	CU_ASSERT(a.atomic_cap);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);

	/* a configured device reports its own sizes */
	dev = small_device(64, 32);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(roce_query_device(dev, &a), 0);
	CU_ASSERT_EQUAL(a.max_qp, 64);
	CU_ASSERT_EQUAL(a.max_mr, 32);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_gid(void)
{
	struct roce_async_event ev;
	union roce_gid g, out;
	struct roce_device *dev;

	dev = small_device(8, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = 192;
	g.raw[13] = 168;
	g.raw[14] = 1;
	g.raw[15] = 7;
	CU_ASSERT_EQUAL(roce_device_get_gid(dev, 2, &out), -ENOENT);
	CU_ASSERT_EQUAL(roce_device_set_gid(dev, 2, &g), 0);
	CU_ASSERT_EQUAL(roce_device_get_gid(dev, 2, &out), 0);
	CU_ASSERT_EQUAL(memcmp(&out, &g, sizeof(g)), 0);
	CU_ASSERT(dev->cfg.gid_valid[2]);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_GID_CHANGE);
	CU_ASSERT_EQUAL(ev.element.port_num, 1);

	/* clear */
	CU_ASSERT_EQUAL(roce_device_set_gid(dev, 2, NULL), 0);
	CU_ASSERT_FALSE(dev->cfg.gid_valid[2]);
	CU_ASSERT_EQUAL(roce_device_get_gid(dev, 2, &out), -ENOENT);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_GID_CHANGE);

	/* bad arguments change nothing and raise nothing */
	CU_ASSERT_EQUAL(roce_device_set_gid(dev, 8, &g), -EINVAL);
	CU_ASSERT_EQUAL(roce_device_set_gid(NULL, 0, &g), -EINVAL);
	memset(&out, 0, sizeof(out));
	CU_ASSERT_EQUAL(roce_device_set_gid(dev, 0, &out), -EINVAL);
	CU_ASSERT_EQUAL(roce_device_get_gid(dev, 8, &out), -EINVAL);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_event_ring(void)
{
	struct roce_async_event ev;
	struct roce_device *dev;
	uint32_t size, i;
	int dummy;

	dev = small_device(8, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, NULL), -EINVAL);
	CU_ASSERT_EQUAL(roce_get_async_event(NULL, &ev), -EINVAL);

	/* order, element and cause kept */
	roce_event_raise(dev, ROCE_EVENT_QP_FATAL, &dummy, 77,
			 ROCE_ERR_RETRY_EXC);
	roce_event_raise(dev, ROCE_EVENT_CQ_ERR, &dummy, 0,
			 ROCE_ERR_CQ_OVERFLOW);
	roce_event_raise(dev, ROCE_EVENT_SRQ_LIMIT_REACHED, &dummy, 0,
			 ROCE_OK);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_QP_FATAL);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, (void *)&dummy);
	CU_ASSERT_EQUAL(ev.qp_num, 77);
	CU_ASSERT_EQUAL(ev.err, ROCE_ERR_RETRY_EXC);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_CQ_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.cq, (void *)&dummy);
	CU_ASSERT_EQUAL(ev.err, ROCE_ERR_CQ_OVERFLOW);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.srq, (void *)&dummy);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);

	/* overflow: the oldest are kept, the rest counted */
	size = dev->ev_mask + 1;
	CU_ASSERT_EQUAL(dev->ev_dropped, 0);
	for (i = 0; i < size + 5; i++)
		roce_event_raise(dev, ROCE_EVENT_COMM_EST, NULL, i, ROCE_OK);
	CU_ASSERT_EQUAL(dev->ev_dropped, 5);
	for (i = 0; i < size; i++) {
		CU_ASSERT_EQUAL_FATAL(roce_get_async_event(dev, &ev), 1);
		CU_ASSERT_EQUAL_FATAL(ev.qp_num, i);
	}
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);
	/* room again after draining */
	roce_event_raise(dev, ROCE_EVENT_SQ_DRAINED, NULL, 9, ROCE_OK);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_SQ_DRAINED);
	CU_ASSERT_EQUAL(dev->ev_dropped, 5);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_port_events(void)
{
	struct roce_async_event ev;
	struct roce_device *dev;

	dev = small_device(8, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	CU_ASSERT_EQUAL(roce_device_port_event(NULL, true), -EINVAL);
	CU_ASSERT_EQUAL(roce_device_port_event(dev, true), 0);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_PORT_ACTIVE);
	CU_ASSERT_EQUAL(ev.element.port_num, 1);
	/* a repeated link report is no news */
	CU_ASSERT_EQUAL(roce_device_port_event(dev, true), 0);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 0);
	CU_ASSERT_EQUAL(roce_device_port_event(dev, false), 0);
	CU_ASSERT_EQUAL(roce_get_async_event(dev, &ev), 1);
	CU_ASSERT_EQUAL(ev.event_type, ROCE_EVENT_PORT_ERR);
	CU_ASSERT_EQUAL(ev.element.port_num, 1);
	CU_ASSERT_FALSE(dev->port_up);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_busy(void)
{
	struct roce_device *dev;
	struct roce_pd *pd;

	dev = small_device(8, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	pd = roce_alloc_pd(dev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), -EBUSY);
	CU_ASSERT_EQUAL(roce_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(roce_dealloc_pd(NULL), -EINVAL);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(roce_alloc_pd(NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_pd_limit(void)
{
	struct roce_pd *pd[8], *more;
	struct roce_device *dev;
	unsigned int i;

	/* max_pd follows max_qp */
	dev = small_device(8, 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	for (i = 0; i < RTE_DIM(pd); i++) {
		pd[i] = roce_alloc_pd(dev);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pd[i]);
		if (i > 0)
			CU_ASSERT(pd[i]->handle != pd[i - 1]->handle);
	}
	rte_errno = 0;
	more = roce_alloc_pd(dev);
	CU_ASSERT_PTR_NULL(more);
	CU_ASSERT_EQUAL(rte_errno, ENOMEM);
	/* a PD in use cannot go */
	roce_pd_get(pd[0]);
	CU_ASSERT_EQUAL(roce_dealloc_pd(pd[0]), -EBUSY);
	roce_pd_put(pd[0]);
	for (i = 0; i < RTE_DIM(pd); i++)
		CU_ASSERT_EQUAL(roce_dealloc_pd(pd[i]), 0);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static void
test_device_qpn(void)
{
	struct roce_qp *qp[8];
	struct roce_device *dev;
	unsigned int i;
	int qpn;

	dev = small_device(8, 8);	/* QPNs 2..7 for roce_qpn_alloc */
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	for (i = 0; i < RTE_DIM(qp); i++) {
		qp[i] = calloc(1, sizeof(*qp[i]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp[i]);
	}
	CU_ASSERT_EQUAL(roce_qpn_alloc(NULL, qp[0]), -EINVAL);
	CU_ASSERT_EQUAL(roce_qpn_alloc(dev, NULL), -EINVAL);
	for (i = 0; i < 6; i++) {
		qpn = roce_qpn_alloc(dev, qp[i]);
		CU_ASSERT_EQUAL(qpn, (int)i + 2);
		CU_ASSERT_EQUAL(qp[i]->qpn, i + 2);
		CU_ASSERT_PTR_EQUAL(roce_qp_lookup(dev, i + 2), qp[i]);
	}
	CU_ASSERT_EQUAL(roce_qpn_alloc(dev, qp[6]), -ENOMEM);
	CU_ASSERT_EQUAL(dev->nb_qp, 6);
	CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, 0));
	CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, 1));
	CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, 8));
	CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, 0xffffff));

	/* QP1 for the CM; QPN 0 does not exist on RoCE */
	CU_ASSERT_EQUAL(roce_qpn_alloc_fixed(dev, qp[6], 1), 1);
	CU_ASSERT_PTR_EQUAL(roce_qp_lookup(dev, 1), qp[6]);
	CU_ASSERT_EQUAL(roce_qpn_alloc_fixed(dev, qp[7], 1), -EBUSY);
	CU_ASSERT_EQUAL(roce_qpn_alloc_fixed(dev, qp[7], 0), -EINVAL);
	CU_ASSERT_EQUAL(roce_qpn_alloc_fixed(dev, qp[7], 8), -EINVAL);
	CU_ASSERT_EQUAL(roce_qpn_alloc_fixed(dev, qp[7], 4), -EBUSY);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), -EBUSY);

	/* a freed QPN is found again by the round-robin cursor */
	roce_qpn_free(dev, qp[1]);	/* QPN 3 */
	CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, 3));
	/* freeing a QP that does not own its number changes nothing */
	qp[7]->qpn = 4;
	roce_qpn_free(dev, qp[7]);
	CU_ASSERT_PTR_EQUAL(roce_qp_lookup(dev, 4), qp[2]);
	CU_ASSERT_EQUAL(roce_qpn_alloc(dev, qp[7]), 3);
	CU_ASSERT_EQUAL(roce_qpn_alloc(dev, qp[1]), -ENOMEM);

	roce_qpn_free(dev, qp[6]);
	roce_qpn_free(dev, qp[7]);
	for (i = 0; i < 6; i++)
		if (i != 1)
			roce_qpn_free(dev, qp[i]);
	CU_ASSERT_EQUAL(dev->nb_qp, 0);
	for (i = 2; i < 8; i++)
		CU_ASSERT_PTR_NULL(roce_qp_lookup(dev, i));
	for (i = 0; i < RTE_DIM(qp); i++)
		free(qp[i]);
	CU_ASSERT_EQUAL(roce_device_destroy(dev), 0);
}

static CU_TestInfo device_tests[] = {
	{ "create and destroy", test_device_create_destroy },
	{ "bad configurations", test_device_bad_config },
	{ "query limits", test_device_query_limits },
	{ "GID set, get, clear", test_device_gid },
	{ "async event ring order and overflow", test_device_event_ring },
	{ "port events", test_device_port_events },
	{ "destroy busy with a live PD", test_device_busy },
	{ "PD limit and busy PD", test_device_pd_limit },
	{ "QPN table", test_device_qpn },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "device", NULL, NULL, NULL, NULL, device_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
