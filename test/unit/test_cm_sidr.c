/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service ID resolution (IBTA 12.11, roce_cm_sidr.c): the SIDR_REQ and
 * SIDR_REP layouts byte by byte, then between two CMs over the fake link:
 * a resolution with private data both ways, no listener, a listener of
 * another port space, lost and late replies, duplicates, a request the
 * application drops, bad arguments, and a thousand resolutions without a
 * leaked id.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>

#include "cm_env.h"
#include "roce_mad.h"
#include "test_common.h"

#define UD_QKEY 0x01234567u	/* rdma_cm's RDMA_UDP_QKEY */
#define UD_QPN 0x00abcdefu

/* Byte @p off of the CM message (after the 24-byte MAD header). */
static uint8_t
cm_byte(const struct roce_mad *mad, unsigned int off)
{
	return mad->b[ROCE_MAD_HDR_LEN + off];
}

static uint32_t
cm_be32(const struct roce_mad *mad, unsigned int off)
{
	uint32_t v;

	memcpy(&v, &mad->b[ROCE_MAD_HDR_LEN + off], 4);
	return rte_be_to_cpu_32(v);
}

static uint64_t
cm_be64(const struct roce_mad *mad, unsigned int off)
{
	return (uint64_t)cm_be32(mad, off) << 32 | cm_be32(mad, off + 4);
}

/* The layouts of IBTA 12.11 tables 124 and 125, read back by offset. */
static void
test_sidr_wire(void)
{
	struct roce_cm_sidr_req req, req2;
	struct roce_cm_sidr_rep rep, rep2;
	struct roce_mad mad;
	unsigned int i;

	memset(&req, 0, sizeof(req));
	req.request_id = 0x11223344;
	req.pkey = 0xffff;
	req.service_id = roce_cm_service_id(ROCE_CM_PS_UDP, 7174);
	for (i = 0; i < ROCE_CM_SIDR_REQ_PRIVATE; i++)
		req.private_data[i] = (uint8_t)(i + 1);
	roce_cm_sidr_req_pack(&mad, 0x0102030405060708ULL, &req);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_SIDR_REQ);
	CU_ASSERT_EQUAL(roce_mad_tid(roce_mad_hdr_c(&mad)),
			0x0102030405060708ULL);
	CU_ASSERT_EQUAL(cm_be32(&mad, 0), 0x11223344u);
	CU_ASSERT_EQUAL(cm_be32(&mad, 4), 0xffff0000u);	/* P_Key, reserved */
	CU_ASSERT_EQUAL(cm_be64(&mad, 8), 0x0000000001111c06ULL);
	CU_ASSERT_EQUAL(cm_byte(&mad, 16), 1);
	CU_ASSERT_EQUAL(cm_byte(&mad, 16 + 215), 216);
	roce_cm_sidr_req_unpack(&mad, &req2);
	CU_ASSERT_EQUAL(req2.request_id, req.request_id);
	CU_ASSERT_EQUAL(req2.pkey, req.pkey);
	CU_ASSERT_EQUAL(req2.service_id, req.service_id);
	CU_ASSERT_EQUAL(memcmp(req2.private_data, req.private_data,
			       sizeof(req.private_data)), 0);

	memset(&rep, 0, sizeof(rep));
	rep.request_id = 0x55667788;
	rep.status = ROCE_CM_SIDR_REJECT;
	rep.info_len = 3;
	rep.info[0] = 0xa;
	rep.info[1] = 0xb;
	rep.info[2] = 0xc;
	rep.qpn = UD_QPN;
	rep.service_id = roce_cm_service_id(ROCE_CM_PS_IB, 1);
	rep.qkey = UD_QKEY;
	for (i = 0; i < ROCE_CM_SIDR_REP_PRIVATE; i++)
		rep.private_data[i] = (uint8_t)(0xff - i);
	roce_cm_sidr_rep_pack(&mad, 9, &rep);
	CU_ASSERT_EQUAL(roce_mad_attr_id(roce_mad_hdr_c(&mad)),
			ROCE_CM_ATTR_SIDR_REP);
	CU_ASSERT_EQUAL(cm_be32(&mad, 0), 0x55667788u);
	CU_ASSERT_EQUAL(cm_byte(&mad, 4), ROCE_CM_SIDR_REJECT);
	CU_ASSERT_EQUAL(cm_byte(&mad, 5), 3);
	CU_ASSERT_EQUAL(cm_be32(&mad, 8), UD_QPN << 8);	/* QPN, reserved */
	CU_ASSERT_EQUAL(cm_be64(&mad, 12), 0x00000000013f0001ULL);
	CU_ASSERT_EQUAL(cm_be32(&mad, 20), UD_QKEY);
	CU_ASSERT_EQUAL(cm_byte(&mad, 24), 0xa);
	CU_ASSERT_EQUAL(cm_byte(&mad, 26), 0xc);
	CU_ASSERT_EQUAL(cm_byte(&mad, 27), 0);		/* info past its length */
	CU_ASSERT_EQUAL(cm_byte(&mad, 96), 0xff);
	CU_ASSERT_EQUAL(cm_byte(&mad, 96 + 135), 0xff - 135);
	roce_cm_sidr_rep_unpack(&mad, &rep2);
	CU_ASSERT_EQUAL(rep2.request_id, rep.request_id);
	CU_ASSERT_EQUAL(rep2.status, rep.status);
	CU_ASSERT_EQUAL(rep2.info_len, rep.info_len);
	CU_ASSERT_EQUAL(rep2.qpn, rep.qpn);
	CU_ASSERT_EQUAL(rep2.service_id, rep.service_id);
	CU_ASSERT_EQUAL(rep2.qkey, rep.qkey);
	CU_ASSERT_EQUAL(memcmp(rep2.info, rep.info, sizeof(rep.info)), 0);
	CU_ASSERT_EQUAL(memcmp(rep2.private_data, rep.private_data,
			       sizeof(rep.private_data)), 0);
	/* an info length beyond the field is cut to it */
	mad.b[ROCE_MAD_HDR_LEN + 5] = 200;
	roce_cm_sidr_rep_unpack(&mad, &rep2);
	CU_ASSERT_EQUAL(rep2.info_len, ROCE_CM_SIDR_REP_INFO);
}

static struct roce_cm_listener *
listen_ps(struct cm_env *e, enum roce_cm_port_space ps)
{
	struct roce_cm_addr a;

	addr_of(e, 1, CM_PORT, &a);
	return roce_cm_listen(e->s[1].cm, &a, ps, 0, e);
}

static int
sidr_request(struct cm_env *e, struct roce_cm_id **id, const char *pd)
{
	struct roce_cm_addr src, dst;

	addr_of(e, 0, 0, &src);
	addr_of(e, 1, CM_PORT, &dst);
	return roce_cm_sidr_request(e->s[0].cm, &src, &dst,
				    e->l->ep[1].mac, ROCE_CM_PS_UDP, pd,
				    pd != NULL ? (uint8_t)strlen(pd) : 0,
				    &e->s[0], e->l->tsc, id);
}

/* One resolution: request, SIDR_REQUEST, reply, SIDR_REPLY; ids freed. */
static void
resolve_once(struct cm_env *e, const char *pd, const char *rep_pd)
{
	unsigned int f0 = e->s[0].nev, f1 = e->s[1].nev;
	struct roce_cm_event *ev;
	struct roce_cm_id *a, *p;

	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, pd), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(a), ROCE_CM_SIDR_REQ_SENT);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, f1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->listener, e->lis);
	CU_ASSERT_PTR_EQUAL(ev->context, e);
	CU_ASSERT_EQUAL(ev->local.port, CM_PORT);
	CU_ASSERT_EQUAL(memcmp(ev->remote.gid.raw, e->l->ep[0].gid.raw, 16),
			0);
	CU_ASSERT_NOT_EQUAL(ev->remote.port, 0);
	if (pd != NULL)
		CU_ASSERT_EQUAL(memcmp(ev->private_data, pd, strlen(pd)), 0);
	CU_ASSERT_EQUAL(ev->private_data_len,
			ROCE_CM_SIDR_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN);
	p = ev->id;
	CU_ASSERT_EQUAL(roce_cm_id_state(p), ROCE_CM_SIDR_REQ_RCVD);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, UD_QPN,
					   UD_QKEY, rep_pd,
					   rep_pd != NULL ?
					   (uint8_t)strlen(rep_pd) : 0,
					   e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(p), ROCE_CM_IDLE);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->id, a);
	CU_ASSERT_PTR_EQUAL(ev->context, &e->s[0]);
	CU_ASSERT_EQUAL(ev->status, 0);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_SUCCESS);
	CU_ASSERT_EQUAL(ev->remote_qpn, UD_QPN);
	CU_ASSERT_EQUAL(ev->qkey, UD_QKEY);
	if (rep_pd != NULL)
		CU_ASSERT_EQUAL(memcmp(ev->private_data, rep_pd,
				       strlen(rep_pd)), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(a), ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);
}

static void
test_sidr_resolve(void)
{
	struct cm_env *e = env_create(0, 0);

	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	resolve_once(e, "udaddy request", "udaddy reply");
	resolve_once(e, NULL, NULL);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_tx_sidr_req"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_sidr_req"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_tx_sidr_rep"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_sidr_rep"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "mad_retrans"), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	/* the IB port space takes SIDR too */
	CU_ASSERT_EQUAL(roce_cm_listen_stop(e->lis, e->l->tsc), 0);
	e->lis = listen_ps(e, ROCE_CM_PS_IB);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	{
		unsigned int f0 = e->s[0].nev, f1 = e->s[1].nev;
		struct roce_cm_addr src, dst;
		struct roce_cm_id *a, *p;
		struct roce_cm_event *ev;

		addr_of(e, 0, 0, &src);
		addr_of(e, 1, CM_PORT, &dst);
		CU_ASSERT_EQUAL_FATAL(roce_cm_sidr_request(e->s[0].cm, &src,
				&dst, e->l->ep[1].mac, ROCE_CM_PS_IB, NULL, 0,
				NULL, e->l->tsc, &a), 0);
		ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, f1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
		p = ev->id;
		CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, 7,
						   9, NULL, 0, e->l->tsc), 0);
		ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, f0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
		CU_ASSERT_EQUAL(ev->remote_qpn, 7);
		CU_ASSERT_EQUAL(ev->qkey, 9);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
		CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);
	}
	env_destroy(e);
}

/* No listener, or one of the TCP space: status UNSUPPORTED at once. */
static void
test_sidr_no_listener(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *a;
	unsigned int f0;

	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_UNSUPPORTED);
	CU_ASSERT_EQUAL(ev->status, -ECONNREFUSED);
	CU_ASSERT_EQUAL(ev->remote_qpn, 0);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_sidr_no_listener"), 1);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);

	env_listen(e, 1, 0);		/* TCP space: no SIDR */
	f0 = e->s[0].nev;
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_UNSUPPORTED);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_sidr_no_listener"), 2);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_listen_stop(e->lis, e->l->tsc), 0);

	/* a UDP listener takes no REQ: INVALID_SERVICE_ID after the hold */
	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	f0 = e->s[0].nev;
	CU_ASSERT_EQUAL_FATAL(env_connect(e, 0, &a, NULL, 0), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_REJECTED, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->rej_reason, ROCE_CM_REJ_INVALID_SERVICE_ID);
	CU_ASSERT_PTR_NULL(find_ev(&e->s[1], ROCE_CM_EVENT_CONNECT_REQUEST,
				   0));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

/*
 * The service does not answer: the request is retransmitted (side 1 drops
 * the copies, one request stands), then UNREACHABLE. A reply that comes
 * afterwards is counted and ignored.
 */
static void
test_sidr_timeout(void)
{
	struct cm_env *e = env_create(2, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *a, *p;

	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_UNREACHABLE, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->status, -ETIMEDOUT);
	CU_ASSERT_PTR_EQUAL(ev->id, a);
	CU_ASSERT_EQUAL(roce_cm_id_state(a), ROCE_CM_IDLE);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "mad_retrans"), 2);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_timeout_sidr"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_sidr_req"), 3);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_dup"), 2);
	ev = find_ev(&e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_NULL(find_ev(&e->s[1], ROCE_CM_EVENT_SIDR_REQUEST,
				   (unsigned int)(ev - e->s[1].ev) + 1));
	p = ev->id;
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, UD_QPN,
					   UD_QKEY, NULL, 0, e->l->tsc), 0);
	settle(e);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_sidr_rep"), 1);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_dup"), 1);
	CU_ASSERT_PTR_NULL(find_ev(&e->s[0], ROCE_CM_EVENT_SIDR_REPLY, 0));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);

	/* the service's reply lost each time: UNREACHABLE as well */
	e->s[1].drop_tx = true;
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(ev->id, ROCE_CM_SIDR_SUCCESS,
					   UD_QPN, UD_QKEY, NULL, 0,
					   e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(ev->id, e->l->tsc), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_UNREACHABLE, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_PTR_EQUAL(ev->id, a);
	/* each retransmission after the reply was a new request */
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[1].cm, "cm_rx_sidr_req"), 6);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	e->s[1].drop_tx = false;
	drain(e);
	env_destroy(e);
}

/* A request the application drops (destroy, listener stop): REJECT. */
static void
test_sidr_dropped_request(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_event *ev;
	struct roce_cm_id *a, *p;
	unsigned int f0, f1;

	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(ev->id, e->l->tsc), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_REJECT);
	CU_ASSERT_EQUAL(ev->status, -ECONNREFUSED);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);

	f0 = e->s[0].nev;
	f1 = e->s[1].nev;
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, f1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	p = ev->id;
	CU_ASSERT_EQUAL(roce_cm_listen_stop(e->lis, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_id_state(p), ROCE_CM_IDLE);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_REJECT);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);
	/* and an application reject with its own status */
	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	f0 = e->s[0].nev;
	f1 = e->s[1].nev;
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, f1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(ev->id, ROCE_CM_SIDR_NO_QP, 0, 0,
					   "busy", 4, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(ev->id, e->l->tsc), 0);
	ev = wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY, f0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->sidr_status, ROCE_CM_SIDR_NO_QP);
	CU_ASSERT_EQUAL(memcmp(ev->private_data, "busy", 4), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	drain(e);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[0].cm), 0);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(e->s[1].cm), 0);
	env_destroy(e);
}

static void
test_sidr_bad_args(void)
{
	struct cm_env *e = env_create(0, 0);
	struct roce_cm_addr src, dst, far;
	uint8_t big[ROCE_CM_SIDR_REQ_PRIVATE];
	struct roce_cm_event *ev;
	struct roce_cm_id *a, *p;
	struct roce_cm *cm = e->s[0].cm;
	const uint8_t *mac = e->l->ep[1].mac;
	uint64_t t = e->l->tsc;

	memset(big, 0, sizeof(big));
	addr_of(e, 0, 0, &src);
	addr_of(e, 1, CM_PORT, &dst);
	CU_ASSERT_EQUAL(roce_cm_sidr_request(cm, &src, &dst, mac,
					     ROCE_CM_PS_TCP, NULL, 0, NULL, t,
					     &a), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_request(cm, &src, &dst, mac,
					     ROCE_CM_PS_UDP, NULL, 4, NULL, t,
					     &a), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_request(cm, &src, &dst, mac,
					     ROCE_CM_PS_UDP, big,
					     ROCE_CM_SIDR_REQ_PRIVATE -
					     ROCE_CM_IP_HDR_LEN + 1, NULL, t,
					     &a), -EMSGSIZE);
	CU_ASSERT_EQUAL(roce_cm_sidr_request(NULL, &src, &dst, mac,
					     ROCE_CM_PS_UDP, NULL, 0, NULL, t,
					     &a), -EINVAL);
	far = dst;
	far.port = 0;
	CU_ASSERT_EQUAL(roce_cm_sidr_request(cm, &src, &far, mac,
					     ROCE_CM_PS_UDP, NULL, 0, NULL, t,
					     &a), -EINVAL);
	/* a source that is not ours */
	CU_ASSERT_EQUAL(roce_cm_sidr_request(cm, &dst, &dst, mac,
					     ROCE_CM_PS_UDP, NULL, 0, NULL, t,
					     &a), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(roce_cm_nb_ids(cm), 0);

	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	CU_ASSERT_EQUAL_FATAL(sidr_request(e, &a, NULL), 0);
	/* replying is the passive id's: not the requester's */
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(a, ROCE_CM_SIDR_SUCCESS, 1, 1,
					   NULL, 0, t), -EINVAL);
	ev = wait_ev(e, &e->s[1], ROCE_CM_EVENT_SIDR_REQUEST, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	p = ev->id;
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, 6, 1, 1, NULL, 0, t), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, 0, 1,
					   NULL, 0, t), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS,
					   0x1000000, 1, NULL, 0, t), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, 1, 1,
					   big, ROCE_CM_SIDR_REP_PRIVATE + 1,
					   t), -EMSGSIZE);
	/* an RC accept or reject is not a SIDR reply */
	CU_ASSERT_EQUAL(roce_cm_reject(p, ROCE_CM_REJ_CONSUMER_DEFINED, NULL,
				       0, t), -EINVAL);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, 1, 1,
					   NULL, 0, t), 0);
	CU_ASSERT_EQUAL(roce_cm_sidr_reply(p, ROCE_CM_SIDR_SUCCESS, 1, 1,
					   NULL, 0, t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(wait_ev(e, &e->s[0], ROCE_CM_EVENT_SIDR_REPLY,
				       0));
	CU_ASSERT_EQUAL(roce_cm_destroy_id(a, e->l->tsc), 0);
	CU_ASSERT_EQUAL(roce_cm_destroy_id(p, e->l->tsc), 0);
	env_destroy(e);
}

/* A thousand resolutions: every id back. */
static void
test_sidr_many(void)
{
	struct cm_env *e = env_create(0, 64);
	int i;

	e->lis = listen_ps(e, ROCE_CM_PS_UDP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->lis);
	for (i = 0; i < 1000; i++) {
		e->s[0].nev = e->s[1].nev = 0;
		resolve_once(e, "x", "y");
		if (roce_cm_nb_ids(e->s[0].cm) != 0 ||
		    roce_cm_nb_ids(e->s[1].cm) != 0)
			break;
	}
	CU_ASSERT_EQUAL(i, 1000);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_rx_sidr_rep"), 1000);
	CU_ASSERT_EQUAL(roce_cm_counter(e->s[0].cm, "cm_event_dropped"), 0);
	env_destroy(e);
}

static CU_TestInfo sidr_tests[] = {
	{ "SIDR_REQ and SIDR_REP layouts", test_sidr_wire },
	{ "resolution in the UDP and IB port spaces", test_sidr_resolve },
	{ "no listener, a TCP listener, a REQ to a UDP one",
	  test_sidr_no_listener },
	{ "no answer, a late answer, lost answers", test_sidr_timeout },
	{ "a request destroyed, a listener stopped, a reject",
	  test_sidr_dropped_request },
	{ "bad arguments", test_sidr_bad_args },
	{ "1000 resolutions without a leaked id", test_sidr_many },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "cm_sidr", NULL, NULL, NULL, NULL, sidr_tests },
	CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
	if (test_eal_init(argc, argv) != 0)
		return 2;
	return test_run(suites);
}
