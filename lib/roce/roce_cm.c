/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IB communication manager over QP1 with rdma_cm IP conventions
 * (roce_cm.h): message pack/unpack, the per-connection state machine of
 * IBTA 12.9, and the listen/connect/accept/disconnect API.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_cm.h"
#include "roce_log.h"
#include "roce_priv.h"
#include "roce_timer.h"

/* ------------------------------------------------------------------ */
/* Field access: mask and shift on big-endian 32-bit words            */
/* ------------------------------------------------------------------ */

/*
 * Field locations as (byte offset of the 32-bit word in the class data,
 * mask, shift), from the message layouts of IBTA 12.6 (the bit positions
 * are those of Linux cm_msgs.h / ibta_vol1_c12.h).
 */
static inline uint32_t
w_get(const uint8_t *d, unsigned int off)
{
	rte_be32_t v;

	memcpy(&v, d + off, 4);
	return rte_be_to_cpu_32(v);
}

static inline void
w_put(uint8_t *d, unsigned int off, uint32_t v)
{
	rte_be32_t b = rte_cpu_to_be_32(v);

	memcpy(d + off, &b, 4);
}

static inline uint32_t
f_get(const uint8_t *d, unsigned int off, uint32_t mask, unsigned int shift)
{
	return (w_get(d, off) & mask) >> shift;
}

static inline void
f_put(uint8_t *d, unsigned int off, uint32_t mask, unsigned int shift,
      uint32_t v)
{
	w_put(d, off, (w_get(d, off) & ~mask) | ((v << shift) & mask));
}

static inline uint64_t
q_get(const uint8_t *d, unsigned int off)
{
	return (uint64_t)w_get(d, off) << 32 | w_get(d, off + 4);
}

static inline void
q_put(uint8_t *d, unsigned int off, uint64_t v)
{
	w_put(d, off, (uint32_t)(v >> 32));
	w_put(d, off + 4, (uint32_t)v);
}

/* Common to every message: the two communication IDs. */
#define CM_LOCAL_COMM_ID	0, 0xffffffff, 0
#define CM_REMOTE_COMM_ID	4, 0xffffffff, 0

/* REQ (IBTA 12.6.5) */
#define REQ_SERVICE_ID		8
#define REQ_LOCAL_CA_GUID	16
#define REQ_LOCAL_QKEY		28, 0xffffffff, 0
#define REQ_LOCAL_QPN		32, 0xffffff00, 8
#define REQ_RESP_RES		32, 0x000000ff, 0
#define REQ_LOCAL_EECN		36, 0xffffff00, 8
#define REQ_INIT_DEPTH		36, 0x000000ff, 0
#define REQ_REMOTE_EECN		40, 0xffffff00, 8
#define REQ_REMOTE_CM_TIMEOUT	40, 0x000000f8, 3
#define REQ_TRANSPORT		40, 0x00000006, 1
#define REQ_E2E_FC		40, 0x00000001, 0
#define REQ_STARTING_PSN	44, 0xffffff00, 8
#define REQ_LOCAL_CM_TIMEOUT	44, 0x000000f8, 3
#define REQ_RETRY_COUNT		44, 0x00000007, 0
#define REQ_PKEY		48, 0xffff0000, 16
#define REQ_PATH_MTU		48, 0x0000f000, 12
#define REQ_RDC_EXISTS		48, 0x00000800, 11
#define REQ_RNR_RETRY		48, 0x00000700, 8
#define REQ_MAX_CM_RETRIES	48, 0x000000f0, 4
#define REQ_SRQ			48, 0x00000008, 3
#define REQ_EXT_TRANSPORT	48, 0x00000007, 0
#define REQ_PRIMARY_PATH	52
#define REQ_ALT_PATH		96
#define REQ_PRIVATE		140

/* A path of the REQ, relative to its start */
#define PATH_LOCAL_LID		0, 0xffff0000, 16
#define PATH_REMOTE_LID		0, 0x0000ffff, 0
#define PATH_LOCAL_GID		4
#define PATH_REMOTE_GID		20
#define PATH_FLOW_LABEL		36, 0xfffff000, 12
#define PATH_PACKET_RATE	36, 0x0000003f, 0
#define PATH_TRAFFIC_CLASS	40, 0xff000000, 24
#define PATH_HOP_LIMIT		40, 0x00ff0000, 16
#define PATH_SL			40, 0x0000f000, 12
#define PATH_SUBNET_LOCAL	40, 0x00000800, 11
#define PATH_LOCAL_ACK_TIMEOUT	40, 0x000000f8, 3

/* MRA (IBTA 12.6.6) */
#define MRA_MSG_MRAED		8, 0xc0000000, 30
#define MRA_SERVICE_TIMEOUT	8, 0x00f80000, 19
#define MRA_PRIVATE		10

/* REJ (IBTA 12.6.7) */
#define REJ_MSG_REJECTED	8, 0xc0000000, 30
#define REJ_ARI_LEN		8, 0x00fe0000, 17
#define REJ_REASON		8, 0x0000ffff, 0
#define REJ_ARI			12
#define REJ_PRIVATE		84

/* REP (IBTA 12.6.8) */
#define REP_LOCAL_QKEY		8, 0xffffffff, 0
#define REP_LOCAL_QPN		12, 0xffffff00, 8
#define REP_LOCAL_EECN		16, 0xffffff00, 8
#define REP_STARTING_PSN	20, 0xffffff00, 8
#define REP_RESP_RES		24, 0xff000000, 24
#define REP_INIT_DEPTH		24, 0x00ff0000, 16
#define REP_TARGET_ACK_DELAY	24, 0x0000f800, 11
#define REP_FAILOVER		24, 0x00000600, 9
#define REP_E2E_FC		24, 0x00000100, 8
#define REP_RNR_RETRY		24, 0x000000e0, 5
#define REP_SRQ			24, 0x00000010, 4
#define REP_LOCAL_CA_GUID	28
/* Vendor ID (Linux ECE): REQ bytes 5-7, REP bytes 15, 19 and 23 */
#define REQ_VENDOR_ID		4, 0x00ffffff, 0
#define REP_VENDOR_ID_H		12, 0x000000ff, 0
#define REP_VENDOR_ID_M		16, 0x000000ff, 0
#define REP_VENDOR_ID_L		20, 0x000000ff, 0
#define REP_PRIVATE		36

/* RTU, DREP (IBTA 12.6.9, 12.6.11) and DREQ (12.6.10) */
#define RTU_PRIVATE		8
#define DREP_PRIVATE		8
#define DREQ_REMOTE_QPN		8, 0xffffff00, 8
#define DREQ_PRIVATE		12

static void
path_pack(uint8_t *d, const struct roce_cm_path *p)
{
	f_put(d, PATH_LOCAL_LID, p->local_lid);
	f_put(d, PATH_REMOTE_LID, p->remote_lid);
	memcpy(d + PATH_LOCAL_GID, p->local_gid, 16);
	memcpy(d + PATH_REMOTE_GID, p->remote_gid, 16);
	f_put(d, PATH_FLOW_LABEL, p->flow_label);
	f_put(d, PATH_PACKET_RATE, p->packet_rate);
	f_put(d, PATH_TRAFFIC_CLASS, p->traffic_class);
	f_put(d, PATH_HOP_LIMIT, p->hop_limit);
	f_put(d, PATH_SL, p->sl);
	f_put(d, PATH_SUBNET_LOCAL, p->subnet_local);
	f_put(d, PATH_LOCAL_ACK_TIMEOUT, p->local_ack_timeout);
}

static void
path_unpack(const uint8_t *d, struct roce_cm_path *p)
{
	p->local_lid = (uint16_t)f_get(d, PATH_LOCAL_LID);
	p->remote_lid = (uint16_t)f_get(d, PATH_REMOTE_LID);
	memcpy(p->local_gid, d + PATH_LOCAL_GID, 16);
	memcpy(p->remote_gid, d + PATH_REMOTE_GID, 16);
	p->flow_label = f_get(d, PATH_FLOW_LABEL);
	p->packet_rate = (uint8_t)f_get(d, PATH_PACKET_RATE);
	p->traffic_class = (uint8_t)f_get(d, PATH_TRAFFIC_CLASS);
	p->hop_limit = (uint8_t)f_get(d, PATH_HOP_LIMIT);
	p->sl = (uint8_t)f_get(d, PATH_SL);
	p->subnet_local = f_get(d, PATH_SUBNET_LOCAL) != 0;
	p->local_ack_timeout = (uint8_t)f_get(d, PATH_LOCAL_ACK_TIMEOUT);
}

/* Header of a CM Send with zeroed class data; returns the class data. */
static uint8_t *
cm_mad_start(struct roce_mad *mad, uint64_t tid, uint16_t attr_id)
{
	memset(mad->b, 0, sizeof(mad->b));
	roce_mad_init_hdr(mad, ROCE_MAD_METHOD_SEND, tid, attr_id);
	return roce_mad_data(mad);
}

void
roce_cm_req_pack(struct roce_mad *mad, uint64_t tid,
		 const struct roce_cm_req *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_REQ);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	q_put(d, REQ_SERVICE_ID, r->service_id);
	q_put(d, REQ_LOCAL_CA_GUID, r->local_ca_guid);
	f_put(d, REQ_LOCAL_QKEY, r->local_qkey);
	f_put(d, REQ_LOCAL_QPN, r->local_qpn);
	f_put(d, REQ_RESP_RES, r->responder_resources);
	f_put(d, REQ_LOCAL_EECN, r->local_eecn);
	f_put(d, REQ_INIT_DEPTH, r->initiator_depth);
	f_put(d, REQ_REMOTE_EECN, r->remote_eecn);
	f_put(d, REQ_REMOTE_CM_TIMEOUT, r->remote_cm_response_timeout);
	f_put(d, REQ_TRANSPORT, r->transport);
	f_put(d, REQ_E2E_FC, r->e2e_flow_control);
	f_put(d, REQ_STARTING_PSN, r->starting_psn);
	f_put(d, REQ_LOCAL_CM_TIMEOUT, r->local_cm_response_timeout);
	f_put(d, REQ_RETRY_COUNT, r->retry_count);
	f_put(d, REQ_PKEY, r->pkey);
	f_put(d, REQ_PATH_MTU, r->path_mtu);
	f_put(d, REQ_RDC_EXISTS, r->rdc_exists);
	f_put(d, REQ_RNR_RETRY, r->rnr_retry_count);
	f_put(d, REQ_MAX_CM_RETRIES, r->max_cm_retries);
	f_put(d, REQ_SRQ, r->srq);
	f_put(d, REQ_EXT_TRANSPORT, r->ext_transport);
	path_pack(d + REQ_PRIMARY_PATH, &r->primary);
	path_pack(d + REQ_ALT_PATH, &r->alternate);
	memcpy(d + REQ_PRIVATE, r->private_data, ROCE_CM_REQ_PRIVATE);
	f_put(d, REQ_VENDOR_ID, r->vendor_id & 0xffffff);
}

void
roce_cm_req_unpack(const struct roce_mad *mad, struct roce_cm_req *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->service_id = q_get(d, REQ_SERVICE_ID);
	r->local_ca_guid = q_get(d, REQ_LOCAL_CA_GUID);
	r->local_qkey = f_get(d, REQ_LOCAL_QKEY);
	r->local_qpn = f_get(d, REQ_LOCAL_QPN);
	r->responder_resources = (uint8_t)f_get(d, REQ_RESP_RES);
	r->local_eecn = f_get(d, REQ_LOCAL_EECN);
	r->initiator_depth = (uint8_t)f_get(d, REQ_INIT_DEPTH);
	r->remote_eecn = f_get(d, REQ_REMOTE_EECN);
	r->remote_cm_response_timeout =
		(uint8_t)f_get(d, REQ_REMOTE_CM_TIMEOUT);
	r->transport = (uint8_t)f_get(d, REQ_TRANSPORT);
	r->e2e_flow_control = f_get(d, REQ_E2E_FC) != 0;
	r->starting_psn = f_get(d, REQ_STARTING_PSN);
	r->local_cm_response_timeout = (uint8_t)f_get(d, REQ_LOCAL_CM_TIMEOUT);
	r->retry_count = (uint8_t)f_get(d, REQ_RETRY_COUNT);
	r->pkey = (uint16_t)f_get(d, REQ_PKEY);
	r->path_mtu = (uint8_t)f_get(d, REQ_PATH_MTU);
	r->rdc_exists = f_get(d, REQ_RDC_EXISTS) != 0;
	r->rnr_retry_count = (uint8_t)f_get(d, REQ_RNR_RETRY);
	r->max_cm_retries = (uint8_t)f_get(d, REQ_MAX_CM_RETRIES);
	r->srq = f_get(d, REQ_SRQ) != 0;
	r->ext_transport = (uint8_t)f_get(d, REQ_EXT_TRANSPORT);
	path_unpack(d + REQ_PRIMARY_PATH, &r->primary);
	path_unpack(d + REQ_ALT_PATH, &r->alternate);
	memcpy(r->private_data, d + REQ_PRIVATE, ROCE_CM_REQ_PRIVATE);
	r->vendor_id = f_get(d, REQ_VENDOR_ID);
}

void
roce_cm_mra_pack(struct roce_mad *mad, uint64_t tid,
		 const struct roce_cm_mra *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_MRA);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	f_put(d, MRA_MSG_MRAED, r->msg_mraed);
	f_put(d, MRA_SERVICE_TIMEOUT, r->service_timeout);
	memcpy(d + MRA_PRIVATE, r->private_data, ROCE_CM_MRA_PRIVATE);
}

void
roce_cm_mra_unpack(const struct roce_mad *mad, struct roce_cm_mra *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	r->msg_mraed = (uint8_t)f_get(d, MRA_MSG_MRAED);
	r->service_timeout = (uint8_t)f_get(d, MRA_SERVICE_TIMEOUT);
	memcpy(r->private_data, d + MRA_PRIVATE, ROCE_CM_MRA_PRIVATE);
}

void
roce_cm_rej_pack(struct roce_mad *mad, uint64_t tid,
		 const struct roce_cm_rej *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_REJ);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	f_put(d, REJ_MSG_REJECTED, r->msg_rejected);
	f_put(d, REJ_ARI_LEN, RTE_MIN(r->ari_len, ROCE_CM_REJ_ARI_LEN));
	f_put(d, REJ_REASON, r->reason);
	memcpy(d + REJ_ARI, r->ari, ROCE_CM_REJ_ARI_LEN);
	memcpy(d + REJ_PRIVATE, r->private_data, ROCE_CM_REJ_PRIVATE);
}

void
roce_cm_rej_unpack(const struct roce_mad *mad, struct roce_cm_rej *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	r->msg_rejected = (uint8_t)f_get(d, REJ_MSG_REJECTED);
	r->ari_len = (uint8_t)f_get(d, REJ_ARI_LEN);
	r->reason = (uint16_t)f_get(d, REJ_REASON);
	memcpy(r->ari, d + REJ_ARI, ROCE_CM_REJ_ARI_LEN);
	memcpy(r->private_data, d + REJ_PRIVATE, ROCE_CM_REJ_PRIVATE);
}

void
roce_cm_rep_pack(struct roce_mad *mad, uint64_t tid,
		 const struct roce_cm_rep *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_REP);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	f_put(d, REP_LOCAL_QKEY, r->local_qkey);
	f_put(d, REP_LOCAL_QPN, r->local_qpn);
	f_put(d, REP_LOCAL_EECN, r->local_eecn);
	f_put(d, REP_STARTING_PSN, r->starting_psn);
	f_put(d, REP_RESP_RES, r->responder_resources);
	f_put(d, REP_INIT_DEPTH, r->initiator_depth);
	f_put(d, REP_TARGET_ACK_DELAY, r->target_ack_delay);
	f_put(d, REP_FAILOVER, r->failover_accepted);
	f_put(d, REP_E2E_FC, r->e2e_flow_control);
	f_put(d, REP_RNR_RETRY, r->rnr_retry_count);
	f_put(d, REP_SRQ, r->srq);
	q_put(d, REP_LOCAL_CA_GUID, r->local_ca_guid);
	memcpy(d + REP_PRIVATE, r->private_data, ROCE_CM_REP_PRIVATE);
	f_put(d, REP_VENDOR_ID_H, (r->vendor_id >> 16) & 0xff);
	f_put(d, REP_VENDOR_ID_M, (r->vendor_id >> 8) & 0xff);
	f_put(d, REP_VENDOR_ID_L, r->vendor_id & 0xff);
}

void
roce_cm_rep_unpack(const struct roce_mad *mad, struct roce_cm_rep *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	r->local_qkey = f_get(d, REP_LOCAL_QKEY);
	r->local_qpn = f_get(d, REP_LOCAL_QPN);
	r->local_eecn = f_get(d, REP_LOCAL_EECN);
	r->starting_psn = f_get(d, REP_STARTING_PSN);
	r->responder_resources = (uint8_t)f_get(d, REP_RESP_RES);
	r->initiator_depth = (uint8_t)f_get(d, REP_INIT_DEPTH);
	r->target_ack_delay = (uint8_t)f_get(d, REP_TARGET_ACK_DELAY);
	r->failover_accepted = (uint8_t)f_get(d, REP_FAILOVER);
	r->e2e_flow_control = f_get(d, REP_E2E_FC) != 0;
	r->rnr_retry_count = (uint8_t)f_get(d, REP_RNR_RETRY);
	r->srq = f_get(d, REP_SRQ) != 0;
	r->local_ca_guid = q_get(d, REP_LOCAL_CA_GUID);
	memcpy(r->private_data, d + REP_PRIVATE, ROCE_CM_REP_PRIVATE);
	r->vendor_id = f_get(d, REP_VENDOR_ID_H) << 16 |
		       f_get(d, REP_VENDOR_ID_M) << 8 |
		       f_get(d, REP_VENDOR_ID_L);
}

void
roce_cm_rtu_pack(struct roce_mad *mad, uint64_t tid,
		 const struct roce_cm_rtu *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_RTU);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	memcpy(d + RTU_PRIVATE, r->private_data, ROCE_CM_RTU_PRIVATE);
}

void
roce_cm_rtu_unpack(const struct roce_mad *mad, struct roce_cm_rtu *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	memcpy(r->private_data, d + RTU_PRIVATE, ROCE_CM_RTU_PRIVATE);
}

void
roce_cm_dreq_pack(struct roce_mad *mad, uint64_t tid,
		  const struct roce_cm_dreq *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_DREQ);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	f_put(d, DREQ_REMOTE_QPN, r->remote_qpn);
	memcpy(d + DREQ_PRIVATE, r->private_data, ROCE_CM_DREQ_PRIVATE);
}

void
roce_cm_dreq_unpack(const struct roce_mad *mad, struct roce_cm_dreq *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	r->remote_qpn = f_get(d, DREQ_REMOTE_QPN);
	memcpy(r->private_data, d + DREQ_PRIVATE, ROCE_CM_DREQ_PRIVATE);
}

void
roce_cm_drep_pack(struct roce_mad *mad, uint64_t tid,
		  const struct roce_cm_drep *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_DREP);

	f_put(d, CM_LOCAL_COMM_ID, r->local_comm_id);
	f_put(d, CM_REMOTE_COMM_ID, r->remote_comm_id);
	memcpy(d + DREP_PRIVATE, r->private_data, ROCE_CM_DREP_PRIVATE);
}

void
roce_cm_drep_unpack(const struct roce_mad *mad, struct roce_cm_drep *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->local_comm_id = f_get(d, CM_LOCAL_COMM_ID);
	r->remote_comm_id = f_get(d, CM_REMOTE_COMM_ID);
	memcpy(r->private_data, d + DREP_PRIVATE, ROCE_CM_DREP_PRIVATE);
}

/* ------------------------------------------------------------------ */
/* rdma_cm IP conventions                                             */
/* ------------------------------------------------------------------ */

static const uint8_t v4_mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

void
roce_cm_addr_ipv4(struct roce_cm_addr *a, rte_be32_t ip, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->ip_ver = 4;
	memcpy(a->gid.raw, v4_mapped_prefix, 12);
	memcpy(a->gid.raw + 12, &ip, 4);
	a->port = port;
}

void
roce_cm_addr_ipv6(struct roce_cm_addr *a, const uint8_t ip6[16],
		  uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->ip_ver = 6;
	memcpy(a->gid.raw, ip6, 16);
	a->port = port;
}

/*
 * rdma_cm private data header (Linux cma.c struct cma_hdr): version,
 * IP version in the high nibble, source port, then the source and
 * destination addresses; an IPv4 address sits in the last 4 bytes of
 * its 16-byte field, after 12 zero bytes.
 */
int
roce_cm_ip_hdr_pack(uint8_t *pd, const struct roce_cm_addr *src,
		    const struct roce_cm_addr *dst)
{
	rte_be16_t port;

	if (src->ip_ver != dst->ip_ver ||
	    (src->ip_ver != 4 && src->ip_ver != 6))
		return -EINVAL;
	memset(pd, 0, ROCE_CM_IP_HDR_LEN);
	pd[0] = ROCE_CM_IP_HDR_VERSION;
	pd[1] = (uint8_t)(src->ip_ver << 4);
	port = rte_cpu_to_be_16(src->port);
	memcpy(pd + 2, &port, 2);
	if (src->ip_ver == 4) {
		memcpy(pd + 4 + 12, src->gid.raw + 12, 4);
		memcpy(pd + 20 + 12, dst->gid.raw + 12, 4);
	} else {
		memcpy(pd + 4, src->gid.raw, 16);
		memcpy(pd + 20, dst->gid.raw, 16);
	}
	return 0;
}

int
roce_cm_ip_hdr_unpack(const uint8_t *pd, struct roce_cm_addr *src,
		      struct roce_cm_addr *dst)
{
	uint8_t ver = pd[1] >> 4;
	rte_be16_t port;
	rte_be32_t ip;

	if (pd[0] != ROCE_CM_IP_HDR_VERSION || (ver != 4 && ver != 6))
		return -EPROTO;
	memcpy(&port, pd + 2, 2);
	if (ver == 4) {
		memcpy(&ip, pd + 4 + 12, 4);
		roce_cm_addr_ipv4(src, ip, rte_be_to_cpu_16(port));
		memcpy(&ip, pd + 20 + 12, 4);
		roce_cm_addr_ipv4(dst, ip, 0);
	} else {
		roce_cm_addr_ipv6(src, pd + 4, rte_be_to_cpu_16(port));
		roce_cm_addr_ipv6(dst, pd + 20, 0);
	}
	return 0;
}

uint64_t
roce_cm_time_ticks(uint8_t t, uint64_t hz)
{
	double s = 4.096e-6 * (double)(1ULL << RTE_MIN(t, 31));
	uint64_t ticks = (uint64_t)(s * (double)hz);

	return ticks != 0 ? ticks : 1;
}

/* ------------------------------------------------------------------ */
/* Connection manager objects                                         */
/* ------------------------------------------------------------------ */

/** CM counters (names in cm_cnt_names). */
enum roce_cm_cnt {
	/* received, by attribute (REQ..DREP in attribute order) */
	CM_CNT_RX_REQ, CM_CNT_RX_MRA, CM_CNT_RX_REJ, CM_CNT_RX_REP,
	CM_CNT_RX_RTU, CM_CNT_RX_DREQ, CM_CNT_RX_DREP,
	/* sent, same order */
	CM_CNT_TX_REQ, CM_CNT_TX_MRA, CM_CNT_TX_REJ, CM_CNT_TX_REP,
	CM_CNT_TX_RTU, CM_CNT_TX_DREQ, CM_CNT_TX_DREP,
	CM_CNT_RX_UNSUPPORTED_ATTR,	/* LAP, APR, SIDR, ClassPortInfo... */
	CM_CNT_RX_UNKNOWN_ID,		/* no connection with that comm ID */
	CM_CNT_RX_BAD_STATE,		/* not expected in the state */
	CM_CNT_RX_BAD_SOURCE,		/* comm ID/QPN/GID of another peer */
	CM_CNT_RX_DUP,			/* retransmission, handled or ignored */
	CM_CNT_REQ_STALE,		/* REQ for a QP we still hold: STALE_CONN */
	CM_CNT_REQ_NO_LISTENER,		/* INVALID_SERVICE_ID */
	CM_CNT_REQ_INVALID,		/* transport, MTU, GID, IP header */
	CM_CNT_REQ_BACKLOG,		/* listener backlog full */
	CM_CNT_REQ_NO_ID,		/* id table or event queue full */
	CM_CNT_TIMEOUT_REQ,
	CM_CNT_TIMEOUT_REP,
	CM_CNT_TIMEOUT_DREQ,
	CM_CNT_QP_MODIFY_ERR,
	CM_CNT_ESTABLISHED,
	CM_CNT_DISCONNECTED,
	CM_CNT_TIMEWAIT_EXIT,
	CM_CNT_EV_DROPPED,
	CM_CNT_MAX,
};

static const char *const cm_cnt_names[CM_CNT_MAX] = {
	"cm_rx_req", "cm_rx_mra", "cm_rx_rej", "cm_rx_rep", "cm_rx_rtu",
	"cm_rx_dreq", "cm_rx_drep",
	"cm_tx_req", "cm_tx_mra", "cm_tx_rej", "cm_tx_rep", "cm_tx_rtu",
	"cm_tx_dreq", "cm_tx_drep",
	"cm_rx_drop_unsupported_attr", "cm_rx_drop_unknown_id",
	"cm_rx_drop_bad_state", "cm_rx_drop_bad_source", "cm_rx_dup",
	"cm_req_stale", "cm_req_no_listener", "cm_req_invalid",
	"cm_req_backlog_full", "cm_req_no_id",
	"cm_timeout_req", "cm_timeout_rep", "cm_timeout_dreq",
	"cm_qp_modify_err", "cm_established", "cm_disconnected",
	"cm_timewait_exit", "cm_event_dropped",
};

struct roce_cm_listener {
	struct roce_cm *cm;
	bool in_use;
	struct roce_cm_addr addr;
	enum roce_cm_port_space ps;
	uint32_t backlog;
	uint32_t pending;	/**< requests delivered, not yet answered */
	void *context;
};

/* keys of the connection hash */
enum {
	HK_RCID = 0,	/* (remote comm ID, peer GID): duplicate REQs (12.9.8.3.1) */
	HK_RQPN = 1,	/* (remote QPN, peer GID): stale connections (12.9.8.3.2) */
	HK_MAX,
};

struct roce_cm_id {
	struct roce_cm *cm;
	uint32_t idx;
	uint16_t gen;
	bool in_use;
	bool orphan;		/* destroyed by the application */
	bool active;
	bool pending;		/* counted in listener->pending */
	enum roce_cm_state state;
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t remote_ca_guid;
	uint64_t tid;		/* the connection's transaction ID */
	uint64_t service_id;
	struct roce_cm_listener *listener;
	struct roce_qp *qp;
	uint8_t qp_type;
	uint32_t local_qpn, remote_qpn;
	uint32_t sq_psn, rq_psn;
	uint8_t mtu;
	uint8_t resp_res;	/* our max_dest_rd_atomic */
	uint8_t init_depth;	/* our max_rd_atomic */
	uint8_t peer_resp_res, peer_init_depth;
	uint8_t retry_count;
	uint8_t rnr_retry;	/* RNR retries our QP uses */
	uint8_t peer_rnr_retry;	/* RNR retries we ask of the peer */
	uint8_t min_rnr_timer;
	uint8_t local_ack_timeout;
	uint8_t peer_cm_timeout;	/* time the peer takes to answer */
	uint8_t max_cm_retries;		/* retries of our sends */
	uint8_t traffic_class, hop_limit;
	uint32_t flow_label;
	uint8_t sgid_index;
	bool srq;
	bool sr_offer;		/* selective repeat: we offer / the peer offered */
	bool sr;		/* selective repeat negotiated on */
	int access;
	struct roce_mad_addr addr;	/* MAD addressing to the peer */
	struct roce_cm_addr local, remote;
	struct roce_mad_send *send;	/* REQ, REP or DREQ waiting */
	struct roce_timer tw_timer;
	uint32_t hslot[HK_MAX];		/* hash slot + 1, 0: not hashed */
	void *context;
};

struct roce_cm {
	struct roce_cm_config cfg;
	struct roce_mad_agent *agent;
	struct roce_timers timers;	/* timewait */
	struct roce_cm_id *ids;
	uint32_t *free_ids;
	uint32_t nb_free;
	struct roce_cm_listener *listeners;
	uint32_t *htab;			/* (idx + 1) << 1 | key kind, 0: empty */
	uint32_t hmask;
	struct roce_cm_event *ev;
	uint32_t ev_head, ev_tail, ev_mask;
	uint64_t rng;
	uint32_t salt;
	uint16_t next_port;
	uint64_t cnt[CM_CNT_MAX];
};

static const char *const cm_state_names[ROCE_CM_STATE_MAX] = {
	"IDLE", "REQ_SENT", "REQ_RCVD", "MRA_REQ_SENT", "MRA_REQ_RCVD",
	"REP_SENT", "REP_RCVD", "MRA_REP_RCVD", "ESTABLISHED", "DREQ_SENT",
	"DREQ_RCVD", "TIMEWAIT",
};

const char *
roce_cm_state_name(enum roce_cm_state s)
{
	return (unsigned int)s < ROCE_CM_STATE_MAX ? cm_state_names[s] :
		"UNKNOWN";
}

static const char *const cm_event_names[] = {
	"CONNECT_REQUEST", "ESTABLISHED", "REJECTED", "UNREACHABLE",
	"CONNECT_ERROR", "DISCONNECTED", "TIMEWAIT_EXIT",
};

const char *
roce_cm_event_name(enum roce_cm_event_type t)
{
	return (unsigned int)t < RTE_DIM(cm_event_names) ?
		cm_event_names[t] : "UNKNOWN";
}

static uint64_t
cm_rand(struct roce_cm *cm)
{
	cm->rng ^= cm->rng >> 12;
	cm->rng ^= cm->rng << 25;
	cm->rng ^= cm->rng >> 27;
	return cm->rng * 2685821657736338717ULL;
}

static uint64_t
cm_ticks(const struct roce_cm *cm, uint8_t t)
{
	return roce_cm_time_ticks(t, cm->cfg.hz);
}

/* 2 x packet life time + the responder's processing time (IBTA 12.9.2) */
static uint64_t
cm_wait_ticks(const struct roce_cm *cm, uint8_t response_timeout)
{
	return 2 * cm_ticks(cm, cm->cfg.packet_life_time) +
		cm_ticks(cm, response_timeout);
}

/* ---- connection hash (open addressing, linear probing) ---- */

static uint32_t
hk_hash(unsigned int kind, uint32_t val, const uint8_t gid[16])
{
	uint64_t h = ((uint64_t)val << 1 | kind) * 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 31));
}

static uint32_t
hk_val(const struct roce_cm_id *id, unsigned int kind)
{
	return kind == HK_RCID ? id->remote_comm_id : id->remote_qpn;
}

static struct roce_cm_id *
hk_find(struct roce_cm *cm, unsigned int kind, uint32_t val,
	const uint8_t gid[16])
{
	uint32_t i = hk_hash(kind, val, gid) & cm->hmask, e;

	while ((e = cm->htab[i]) != 0) {
		struct roce_cm_id *id = &cm->ids[(e >> 1) - 1];

		if ((e & 1) == kind && hk_val(id, kind) == val &&
		    memcmp(id->addr.remote_gid, gid, 16) == 0)
			return id;
		i = (i + 1) & cm->hmask;
	}
	return NULL;
}

static void
hk_insert(struct roce_cm *cm, struct roce_cm_id *id, unsigned int kind)
{
	uint32_t i;

	if (id->hslot[kind] != 0)
		return;
	i = hk_hash(kind, hk_val(id, kind), id->addr.remote_gid) & cm->hmask;
	while (cm->htab[i] != 0)
		i = (i + 1) & cm->hmask;
	cm->htab[i] = (id->idx + 1) << 1 | kind;
	id->hslot[kind] = i + 1;
}

static void
hk_remove(struct roce_cm *cm, struct roce_cm_id *id, unsigned int kind)
{
	uint32_t i, j, k, e;

	if (id->hslot[kind] == 0)
		return;
	i = id->hslot[kind] - 1;
	id->hslot[kind] = 0;
	cm->htab[i] = 0;
	j = i;
	for (;;) {
		struct roce_cm_id *o;

		j = (j + 1) & cm->hmask;
		e = cm->htab[j];
		if (e == 0)
			break;
		o = &cm->ids[(e >> 1) - 1];
		k = hk_hash(e & 1, hk_val(o, e & 1), o->addr.remote_gid) &
			cm->hmask;
		if ((j > i && (k <= i || k > j)) ||
		    (j < i && (k <= i && k > j))) {
			cm->htab[i] = e;
			o->hslot[e & 1] = i + 1;
			cm->htab[j] = 0;
			i = j;
		}
	}
}

/* ---- ids ---- */

static void cm_timewait_cb(struct roce_timer *t, uint64_t now);

static struct roce_cm_id *
id_by_comm_id(struct roce_cm *cm, uint32_t comm_id)
{
	uint32_t x = comm_id ^ cm->salt;
	uint32_t idx = x & 0xffff;
	struct roce_cm_id *id;

	if (idx >= cm->cfg.max_ids)
		return NULL;
	id = &cm->ids[idx];
	if (!id->in_use || id->local_comm_id != comm_id)
		return NULL;
	return id;
}

static struct roce_cm_id *
id_alloc(struct roce_cm *cm)
{
	struct roce_cm_id *id;
	uint32_t idx;
	uint16_t gen;

	if (cm->nb_free == 0)
		return NULL;
	idx = cm->free_ids[--cm->nb_free];
	id = &cm->ids[idx];
	gen = id->gen;
	memset(id, 0, sizeof(*id));
	id->cm = cm;
	id->idx = idx;
	/* a new generation per use: stale comm IDs never match (12.9.8.3) */
	gen = (uint16_t)(gen + 1);
	if (gen == 0)
		gen = 1;
	id->gen = gen;
	id->local_comm_id = ((uint32_t)gen << 16 | idx) ^ cm->salt;
	if (id->local_comm_id == 0) {	/* 0 means "none" in a REJ */
		id->gen = (uint16_t)(gen + 1 == 0 ? 1 : gen + 1);
		id->local_comm_id = ((uint32_t)id->gen << 16 | idx) ^ cm->salt;
	}
	id->in_use = true;
	id->state = ROCE_CM_IDLE;
	roce_timer_init(&id->tw_timer, cm_timewait_cb, id);
	return id;
}

static void
id_unpend(struct roce_cm_id *id)
{
	if (id->pending) {
		id->pending = false;
		if (id->listener != NULL && id->listener->pending > 0)
			id->listener->pending--;
	}
}

static void
id_free(struct roce_cm *cm, struct roce_cm_id *id)
{
	unsigned int k;

	if (!id->in_use)
		return;
	for (k = 0; k < HK_MAX; k++)
		hk_remove(cm, id, k);
	roce_timer_cancel(&cm->timers, &id->tw_timer);
	if (id->send != NULL) {
		roce_mad_send_cancel(cm->agent, id->send);
		id->send = NULL;
	}
	id_unpend(id);
	id->qp = NULL;
	id->in_use = false;
	cm->free_ids[cm->nb_free++] = id->idx;
}

static struct roce_cm_event *
ev_push(struct roce_cm *cm, struct roce_cm_id *id,
	enum roce_cm_event_type type)
{
	struct roce_cm_event *ev;

	if (id != NULL && id->orphan)
		return NULL;
	if (cm->ev_tail - cm->ev_head > cm->ev_mask) {
		cm->cnt[CM_CNT_EV_DROPPED]++;
		return NULL;
	}
	ev = &cm->ev[cm->ev_tail++ & cm->ev_mask];
	memset(ev, 0, offsetof(struct roce_cm_event, private_data));
	ev->type = type;
	ev->id = id;
	if (id != NULL) {
		ev->context = id->context;
		ev->local = id->local;
		ev->remote = id->remote;
		ev->remote_qpn = id->remote_qpn;
		ev->responder_resources = id->peer_resp_res;
		ev->initiator_depth = id->peer_init_depth;
	}
	return ev;
}

static bool
ev_room(const struct roce_cm *cm)
{
	return cm->ev_tail - cm->ev_head <= cm->ev_mask;
}

static void
ev_simple(struct roce_cm *cm, struct roce_cm_id *id,
	  enum roce_cm_event_type type, int status)
{
	struct roce_cm_event *ev = ev_push(cm, id, type);

	if (ev != NULL)
		ev->status = status;
}

static void
ev_private(struct roce_cm_event *ev, const uint8_t *pd, unsigned int len)
{
	if (ev == NULL)
		return;
	len = RTE_MIN(len, sizeof(ev->private_data));
	memcpy(ev->private_data, pd, len);
	ev->private_data_len = (uint8_t)len;
}

/* ---- sends ---- */

static void
cm_count_tx(struct roce_cm *cm, const struct roce_mad *mad)
{
	uint16_t attr = roce_mad_attr_id(roce_mad_hdr_c(mad));

	if (attr >= ROCE_CM_ATTR_REQ && attr <= ROCE_CM_ATTR_DREP)
		cm->cnt[CM_CNT_TX_REQ + (attr - ROCE_CM_ATTR_REQ)]++;
}

static void
cm_send(struct roce_cm *cm, const struct roce_mad *mad,
	const struct roce_mad_addr *addr)
{
	cm_count_tx(cm, mad);
	roce_mad_send(cm->agent, mad, addr);
}

/* Send and wait for the answer; the id's previous send is dropped. */
static int
cm_send_tracked(struct roce_cm *cm, struct roce_cm_id *id,
		const struct roce_mad *mad, uint64_t timeout, uint64_t now)
{
	if (id->send != NULL)
		roce_mad_send_cancel(cm->agent, id->send);
	cm_count_tx(cm, mad);
	id->send = roce_mad_send_tracked(cm->agent, mad, &id->addr, timeout,
					 id->max_cm_retries, id, now);
	return id->send != NULL ? 0 : -rte_errno;
}

static void
cm_cancel_send(struct roce_cm *cm, struct roce_cm_id *id)
{
	if (id->send != NULL) {
		roce_mad_send_cancel(cm->agent, id->send);
		id->send = NULL;
	}
}

/* A REJ to the sender of @p rx_mad that has no id here (IBTA 12.6.7). */
static void
cm_rej_to(struct roce_cm *cm, const struct roce_mad_addr *addr, uint64_t tid,
	  uint32_t local_comm_id, uint32_t remote_comm_id, uint8_t msg,
	  uint16_t reason)
{
	struct roce_cm_rej rej;
	struct roce_mad mad;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = local_comm_id;
	rej.remote_comm_id = remote_comm_id;
	rej.msg_rejected = msg;
	rej.reason = reason;
	roce_cm_rej_pack(&mad, tid, &rej);
	cm_send(cm, &mad, addr);
}

static void
cm_rej_id(struct roce_cm *cm, struct roce_cm_id *id, uint8_t msg,
	  uint16_t reason, const void *pd, uint8_t len)
{
	struct roce_cm_rej rej;
	struct roce_mad mad;

	memset(&rej, 0, sizeof(rej));
	rej.local_comm_id = id->local_comm_id;
	rej.remote_comm_id = id->remote_comm_id;
	rej.msg_rejected = msg;
	rej.reason = reason;
	if (reason == ROCE_CM_REJ_TIMEOUT) {
		/* IBTA 12.6.7.2 table 112: the ARI of Timeout is our CA GUID */
		rej.ari_len = 8;
		q_put(rej.ari, 0, cm->cfg.ca_guid);
	}
	if (pd != NULL && len != 0)
		memcpy(rej.private_data, pd,
		       RTE_MIN(len, (uint8_t)ROCE_CM_REJ_PRIVATE));
	roce_cm_rej_pack(&mad, id->tid, &rej);
	cm_send(cm, &mad, &id->addr);
}

static void
cm_send_rtu(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_cm_rtu rtu;
	struct roce_mad mad;

	memset(&rtu, 0, sizeof(rtu));
	rtu.local_comm_id = id->local_comm_id;
	rtu.remote_comm_id = id->remote_comm_id;
	roce_cm_rtu_pack(&mad, id->tid, &rtu);
	cm_send(cm, &mad, &id->addr);
}

static void
cm_send_mra(struct roce_cm *cm, struct roce_cm_id *id, uint8_t msg)
{
	struct roce_cm_mra mra;
	struct roce_mad mad;

	memset(&mra, 0, sizeof(mra));
	mra.local_comm_id = id->local_comm_id;
	mra.remote_comm_id = id->remote_comm_id;
	mra.msg_mraed = msg;
	mra.service_timeout = cm->cfg.mra_service_timeout;
	roce_cm_mra_pack(&mad, id->tid, &mra);
	cm_send(cm, &mad, &id->addr);
}

static void
cm_send_drep(struct roce_cm *cm, const struct roce_mad_addr *addr,
	     uint64_t tid, uint32_t local_comm_id, uint32_t remote_comm_id)
{
	struct roce_cm_drep drep;
	struct roce_mad mad;

	memset(&drep, 0, sizeof(drep));
	drep.local_comm_id = local_comm_id;
	drep.remote_comm_id = remote_comm_id;
	roce_cm_drep_pack(&mad, tid, &drep);
	cm_send(cm, &mad, addr);
}

/* ---- QP transitions driven by the CM ---- */

static int
qp_modify(struct roce_cm *cm, struct roce_qp *qp, struct roce_qp_attr *a,
	  int mask)
{
	int ret = roce_modify_qp(qp, a, mask);

	if (ret != 0) {
		cm->cnt[CM_CNT_QP_MODIFY_ERR]++;
		ROCE_LOG(NOTICE, cm, "QP %u: modify to %d failed: %d",
			 roce_qp_num(qp), a->qp_state, ret);
	}
	return ret;
}

static int
qp_to_init(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;
	int ret;

	ret = roce_query_qp(id->qp, &a, &ia);
	if (ret != 0)
		return ret;
	if (a.qp_state == ROCE_QPS_INIT)
		return 0;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = id->access;
	return qp_modify(cm, id->qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			 ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
}

/* INIT -> RTR -> RTS with the negotiated attributes (IBTA 12.7, 12.8). */
static int
qp_to_rts(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	bool rc = id->qp_type == ROCE_QPT_RC;
	int mask, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	memcpy(a.ah_attr.dgid.raw, id->addr.remote_gid, 16);
	rte_ether_addr_copy(&id->addr.remote_mac,
			    (struct rte_ether_addr *)a.ah_attr.dmac);
	a.ah_attr.sgid_index = id->sgid_index;
	a.ah_attr.hop_limit = id->hop_limit != 0 ? id->hop_limit : 64;
	a.ah_attr.traffic_class = id->traffic_class;
	a.ah_attr.flow_label = id->flow_label;
	a.ah_attr.port_num = 1;
	a.path_mtu = id->mtu;
	a.dest_qp_num = id->remote_qpn;
	a.rq_psn = id->rq_psn;
	mask = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
	       ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;
	if (rc) {
		a.max_dest_rd_atomic = id->resp_res;
		a.min_rnr_timer = id->min_rnr_timer;
		mask |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	}
	ret = qp_modify(cm, id->qp, &a, mask);
	if (ret != 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = id->sq_psn;
	mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
	if (rc) {
		a.timeout = id->local_ack_timeout;
		a.retry_cnt = id->retry_count;
		a.rnr_retry = id->rnr_retry;
		a.max_rd_atomic = id->init_depth;
		mask |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
			ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC;
		if (id->sr) {	/* both ends agreed (roce_cm_conn_param) */
			a.selective_repeat = 1;
			mask |= ROCE_QP_SELECTIVE_REPEAT;
		}
	}
	return qp_modify(cm, id->qp, &a, mask);
}

/* Disconnect, reject, timeout: the QP goes to ERR and flushes (IBTA 12.9.7). */
static void
qp_to_err(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (id->qp == NULL || roce_query_qp(id->qp, &a, &ia) != 0 ||
	    a.qp_state == ROCE_QPS_RESET || a.qp_state == ROCE_QPS_ERR)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_ERR;
	qp_modify(cm, id->qp, &a, ROCE_QP_STATE);
}

/* ---- state changes ---- */

static void
cm_set_idle(struct roce_cm *cm, struct roce_cm_id *id)
{
	unsigned int k;

	cm_cancel_send(cm, id);
	roce_timer_cancel(&cm->timers, &id->tw_timer);
	for (k = 0; k < HK_MAX; k++)
		hk_remove(cm, id, k);
	id_unpend(id);
	id->state = ROCE_CM_IDLE;
	if (id->orphan)
		id_free(cm, id);
}

/* IBTA 12.9.6 TimeWait: hold the QPN and comm ID a while, then let them go. */
static void
cm_enter_timewait(struct roce_cm *cm, struct roce_cm_id *id, uint64_t now)
{
	cm_cancel_send(cm, id);
	id_unpend(id);
	id->state = ROCE_CM_TIMEWAIT;
	roce_timer_arm(&cm->timers, &id->tw_timer,
		       now + 2 * cm_ticks(cm, cm->cfg.packet_life_time) +
		       cm_ticks(cm, id->local_ack_timeout));
}

static void
cm_timewait_cb(struct roce_timer *t, uint64_t now)
{
	struct roce_cm_id *id = t->arg;
	struct roce_cm *cm = id->cm;

	RTE_SET_USED(now);
	if (id->state != ROCE_CM_TIMEWAIT)
		return;
	cm->cnt[CM_CNT_TIMEWAIT_EXIT]++;
	ev_simple(cm, id, ROCE_CM_EVENT_TIMEWAIT_EXIT, 0);
	cm_set_idle(cm, id);
}

/* Our REQ, REP or DREQ got no answer after every retry (IBTA 12.9.2). */
static void
cm_send_timeout(void *cb_ctx, void *ctx, struct roce_mad_send *s,
		uint64_t now)
{
	struct roce_cm *cm = cb_ctx;
	struct roce_cm_id *id = ctx;

	if (id == NULL || id->send != s)
		return;
	id->send = NULL;
	switch (id->state) {
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
		cm->cnt[CM_CNT_TIMEOUT_REQ]++;
		cm_rej_id(cm, id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		qp_to_err(cm, id);
		ev_simple(cm, id, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		cm_set_idle(cm, id);
		break;
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		cm->cnt[CM_CNT_TIMEOUT_REP]++;
		cm_rej_id(cm, id, ROCE_CM_MSG_REP, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		qp_to_err(cm, id);
		ev_simple(cm, id, ROCE_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
		cm_enter_timewait(cm, id, now);
		break;
	case ROCE_CM_DREQ_SENT:
		/* IBTA 12.9.7: no DREP, go to TimeWait all the same */
		cm->cnt[CM_CNT_TIMEOUT_DREQ]++;
		cm->cnt[CM_CNT_DISCONNECTED]++;
		ev_simple(cm, id, ROCE_CM_EVENT_DISCONNECTED, -ETIMEDOUT);
		cm_enter_timewait(cm, id, now);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Create / destroy                                                   */
/* ------------------------------------------------------------------ */

static uint64_t
eui64_of(const struct rte_ether_addr *mac)
{
	const uint8_t *m = mac->addr_bytes;

	return (uint64_t)(m[0] ^ 0x02) << 56 | (uint64_t)m[1] << 48 |
		(uint64_t)m[2] << 40 | 0xfffeULL << 24 |
		(uint64_t)m[3] << 16 | (uint64_t)m[4] << 8 | m[5];
}

struct roce_cm *
roce_cm_create(const struct roce_cm_config *cfg)
{
	struct roce_mad_agent_config ac;
	struct roce_cm *cm;
	uint32_t i, hsize, evs;

	if (cfg == NULL || cfg->dev == NULL || cfg->pool == NULL ||
	    cfg->tx == NULL || cfg->hz == 0 || cfg->max_ids > 65536 ||
	    cfg->selective_repeat > ROCE_CM_SR_OFF) {
		rte_errno = EINVAL;
		return NULL;
	}
	cm = rte_zmalloc_socket("roce_cm", sizeof(*cm), RTE_CACHE_LINE_SIZE,
				cfg->socket);
	if (cm == NULL)
		goto nomem;
	cm->cfg = *cfg;
	if (cm->cfg.max_ids == 0)
		cm->cfg.max_ids = 1024;
	if (cm->cfg.max_listeners == 0)
		cm->cfg.max_listeners = 64;
	if (cm->cfg.max_events == 0)
		cm->cfg.max_events = 2 * cm->cfg.max_ids + 64;
	if (cm->cfg.cm_response_timeout == 0)
		cm->cfg.cm_response_timeout = 20;
	if (cm->cfg.max_cm_retries == 0)
		cm->cfg.max_cm_retries = 15;
	if (cm->cfg.packet_life_time == 0)
		cm->cfg.packet_life_time = 16;
	if (cm->cfg.mra_service_timeout == 0)
		cm->cfg.mra_service_timeout = 20;
	if (cm->cfg.max_mtu == 0)
		cm->cfg.max_mtu = ROCE_MTU_1024;
	if (cm->cfg.ca_guid == 0)
		cm->cfg.ca_guid = eui64_of(&cfg->mac);
	cm->cfg.cm_response_timeout &= 0x1f;
	cm->cfg.max_cm_retries &= 0xf;
	cm->rng = cfg->seed != 0 ? cfg->seed : 0x2545f4914f6cdd1dULL;
	cm->rng ^= (uint64_t)cfg->seed << 32;
	if (cm->rng == 0)
		cm->rng = 1;
	cm->salt = (uint32_t)cm_rand(cm);
	cm->next_port = (uint16_t)(49152 + cm_rand(cm) % 16384);

	memset(&ac, 0, sizeof(ac));
	ac.pool = cfg->pool;
	ac.tx = cfg->tx;
	ac.tx_ctx = cfg->tx_ctx;
	ac.timeout_cb = cm_send_timeout;
	ac.cb_ctx = cm;
	ac.hz = cfg->hz;
	ac.max_sends = cm->cfg.max_ids;
	ac.hi_tid = (uint32_t)cm_rand(cm);
	ac.socket = cfg->socket;
	cm->agent = roce_mad_agent_create(&ac);
	if (cm->agent == NULL)
		goto nomem;
	hsize = rte_align32pow2(4 * cm->cfg.max_ids);
	evs = rte_align32pow2(cm->cfg.max_events);
	cm->ids = rte_zmalloc_socket("roce_cm_ids",
				     sizeof(*cm->ids) * cm->cfg.max_ids,
				     RTE_CACHE_LINE_SIZE, cfg->socket);
	cm->free_ids = rte_zmalloc_socket("roce_cm_free",
					  sizeof(uint32_t) * cm->cfg.max_ids,
					  0, cfg->socket);
	cm->listeners = rte_zmalloc_socket("roce_cm_listen",
					   sizeof(*cm->listeners) *
					   cm->cfg.max_listeners, 0,
					   cfg->socket);
	cm->htab = rte_zmalloc_socket("roce_cm_hash", sizeof(uint32_t) * hsize,
				      0, cfg->socket);
	cm->ev = rte_zmalloc_socket("roce_cm_ev", sizeof(*cm->ev) * evs, 0,
				    cfg->socket);
	if (cm->ids == NULL || cm->free_ids == NULL ||
	    cm->listeners == NULL || cm->htab == NULL || cm->ev == NULL ||
	    roce_timers_init(&cm->timers, cm->cfg.max_ids, cfg->socket) != 0)
		goto nomem;
	cm->hmask = hsize - 1;
	cm->ev_mask = evs - 1;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		struct roce_cm_id *id = &cm->ids[i];

		id->cm = cm;
		id->idx = i;
		id->gen = (uint16_t)cm_rand(cm);
		roce_timer_init(&id->tw_timer, cm_timewait_cb, id);
		cm->free_ids[cm->cfg.max_ids - 1 - i] = i;
	}
	cm->nb_free = cm->cfg.max_ids;
	for (i = 0; i < cm->cfg.max_listeners; i++)
		cm->listeners[i].cm = cm;
	return cm;
nomem:
	roce_cm_destroy(cm);
	ROCE_LOG(ERR, cm, "no memory for a CM");
	rte_errno = ENOMEM;
	return NULL;
}

void
roce_cm_destroy(struct roce_cm *cm)
{
	if (cm == NULL)
		return;
	roce_mad_agent_destroy(cm->agent);
	roce_timers_fini(&cm->timers);
	rte_free(cm->ids);
	rte_free(cm->free_ids);
	rte_free(cm->listeners);
	rte_free(cm->htab);
	rte_free(cm->ev);
	rte_free(cm);
}

/* ------------------------------------------------------------------ */
/* Receive                                                            */
/* ------------------------------------------------------------------ */

/* Index of our GID @p gid in the device table, -1 when it is not ours. */
static int
cm_sgid_index(struct roce_cm *cm, const uint8_t gid[16])
{
	union roce_gid g;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cm->cfg.dev->cfg.gid); i++)
		if (roce_device_get_gid(cm->cfg.dev, i, &g) == 0 &&
		    memcmp(g.raw, gid, 16) == 0)
			return (int)i;
	return -1;
}

static bool
addr_is_any(const struct roce_cm_addr *a)
{
	static const uint8_t zero[16];

	return memcmp(a->gid.raw, zero, 16) == 0;
}

static struct roce_cm_listener *
cm_find_listener(struct roce_cm *cm, uint64_t sid,
		 const struct roce_cm_addr *dst)
{
	uint16_t port = (uint16_t)sid, ps = (uint16_t)(sid >> 16);
	struct roce_cm_listener *any = NULL;
	uint32_t i;

	for (i = 0; i < cm->cfg.max_listeners; i++) {
		struct roce_cm_listener *l = &cm->listeners[i];

		if (!l->in_use || l->ps != ps || l->addr.port != port)
			continue;
		if (addr_is_any(&l->addr))
			any = l;
		else if (memcmp(l->addr.gid.raw, dst->gid.raw, 16) == 0)
			return l;
	}
	return any;
}

/* Duplicate REQ (IBTA 12.9.8.3.1; Linux cm_dup_req_handler). */
static void
cm_dup_req(struct roce_cm *cm, struct roce_cm_id *id,
	   const struct roce_mad_rx *rx)
{
	cm->cnt[CM_CNT_RX_DUP]++;
	switch (id->state) {
	case ROCE_CM_REQ_RCVD:
		/* the application is slow: ask for patience once */
		id->state = ROCE_CM_MRA_REQ_SENT;
		cm_send_mra(cm, id, ROCE_CM_MSG_REQ);
		break;
	case ROCE_CM_MRA_REQ_SENT:
		cm_send_mra(cm, id, ROCE_CM_MSG_REQ);
		break;
	case ROCE_CM_TIMEWAIT:
		cm_rej_to(cm, &rx->addr, roce_mad_tid(roce_mad_hdr_c(&rx->mad)),
			  id->local_comm_id, id->remote_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_STALE_CONN);
		break;
	default:
		/* REP_SENT: our REP's own retries answer it */
		break;
	}
}

static void
cm_rx_req(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	uint64_t tid = roce_mad_tid(roce_mad_hdr_c(&rx->mad));
	struct roce_cm_addr src, dst;
	struct roce_cm_listener *l;
	struct roce_cm_event *ev;
	struct roce_cm_id *id, *old;
	struct roce_cm_req req;
	uint16_t reason;
	int sgid;

	roce_cm_req_unpack(&rx->mad, &req);
	id = hk_find(cm, HK_RCID, req.local_comm_id, rx->addr.remote_gid);
	if (id != NULL) {
		cm_dup_req(cm, id, rx);
		return;
	}
	/* IBTA 12.9.8.3.2: a REQ from a QP we are still connected to */
	old = hk_find(cm, HK_RQPN, req.local_qpn, rx->addr.remote_gid);
	if (old != NULL) {
		cm->cnt[CM_CNT_REQ_STALE]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_STALE_CONN);
		if (old->state == ROCE_CM_ESTABLISHED)
			roce_cm_disconnect(old, now);
		return;
	}
	reason = 0;
	sgid = cm_sgid_index(cm, req.primary.remote_gid);
	if (req.transport != ROCE_CM_TRANSPORT_RC &&
	    req.transport != ROCE_CM_TRANSPORT_UC)
		reason = ROCE_CM_REJ_INVALID_TRANSPORT_TYPE;
	else if (roce_mtu_bytes((enum roce_mtu)req.path_mtu) == 0)
		reason = ROCE_CM_REJ_INVALID_MTU;
	else if (sgid < 0)
		reason = ROCE_CM_REJ_INVALID_GID;
	if (reason != 0) {
		cm->cnt[CM_CNT_REQ_INVALID]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, reason);
		return;
	}
	l = NULL;
	if (roce_cm_service_is_ip(req.service_id) &&
	    roce_cm_ip_hdr_unpack(req.private_data, &src, &dst) == 0) {
		dst.port = (uint16_t)req.service_id;
		l = cm_find_listener(cm, req.service_id, &dst);
	}
	if (l == NULL) {
		cm->cnt[CM_CNT_REQ_NO_LISTENER]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (l->pending >= l->backlog) {
		cm->cnt[CM_CNT_REQ_BACKLOG]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	id = ev_room(cm) ? id_alloc(cm) : NULL;
	if (id == NULL) {
		cm->cnt[CM_CNT_REQ_NO_ID]++;
		cm_rej_to(cm, &rx->addr, tid, 0, req.local_comm_id,
			  ROCE_CM_MSG_REQ, ROCE_CM_REJ_NO_RESOURCES);
		return;
	}
	id->active = false;
	id->state = ROCE_CM_REQ_RCVD;
	id->tid = tid;
	id->service_id = req.service_id;
	id->remote_comm_id = req.local_comm_id;
	id->remote_ca_guid = req.local_ca_guid;
	id->remote_qpn = req.local_qpn;
	/*
	 * Linux's convention (ib_cm: cm_req_handler() sq_psn, ib_send_cm_req()
	 * rq_psn): a Starting PSN is the PSN its sender expects to receive,
	 * so the REQ's is our send PSN (doc/guides/cm.rst, "rdma_cm interop").
	 */
	id->sq_psn = req.starting_psn;
	id->mtu = (uint8_t)RTE_MIN(req.path_mtu, (uint8_t)cm->cfg.max_mtu);
	id->peer_resp_res = req.responder_resources;
	id->peer_init_depth = req.initiator_depth;
	id->retry_count = req.retry_count;
	id->rnr_retry = req.rnr_retry_count;
	id->local_ack_timeout = req.primary.local_ack_timeout;
	/* the active side answers our REP within its local response time */
	id->peer_cm_timeout = req.local_cm_response_timeout;
	id->max_cm_retries = req.max_cm_retries;
	id->traffic_class = req.primary.traffic_class;
	id->hop_limit = req.primary.hop_limit;
	id->flow_label = req.primary.flow_label;
	id->sgid_index = (uint8_t)sgid;
	id->qp_type = req.transport == ROCE_CM_TRANSPORT_RC ? ROCE_QPT_RC :
		ROCE_QPT_UC;
	/* a softernic peer offering selective repeat (Linux sends 0) */
	id->sr_offer = id->qp_type == ROCE_QPT_RC &&
		(req.vendor_id & ROCE_CM_VENDOR_MASK) ==
		ROCE_CM_VENDOR_SOFTERNIC &&
		(req.vendor_id & ROCE_CM_VENDOR_REP) == 0 &&
		(req.vendor_id & ROCE_CM_VENDOR_CAP_SR) != 0;
	id->sr = false;
	id->addr = rx->addr;
	/* address the connection's MADs and QP path as the REQ's path says */
	memcpy(id->addr.local_gid, req.primary.remote_gid, 16);
	memcpy(id->addr.remote_gid, rx->addr.remote_gid, 16);
	id->addr.remote_qpn = ROCE_GSI_QPN;
	id->remote = src;
	id->local = dst;
	id->listener = l;
	id->pending = true;
	id->context = l->context;
	l->pending++;
	hk_insert(cm, id, HK_RCID);
	hk_insert(cm, id, HK_RQPN);
	ev = ev_push(cm, id, ROCE_CM_EVENT_CONNECT_REQUEST);
	if (ev != NULL) {
		ev->listener = l;
		ev_private(ev, req.private_data + ROCE_CM_IP_HDR_LEN,
			   ROCE_CM_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN);
	}
}

/* The id a reply names (its remote comm ID is our local one), checked. */
static struct roce_cm_id *
cm_reply_id(struct roce_cm *cm, const struct roce_mad_rx *rx,
	    uint32_t our_id, uint32_t their_id, bool their_id_known)
{
	struct roce_cm_id *id = id_by_comm_id(cm, our_id);

	if (id == NULL || id->state == ROCE_CM_IDLE) {
		cm->cnt[rx->dup ? CM_CNT_RX_DUP : CM_CNT_RX_UNKNOWN_ID]++;
		return NULL;
	}
	if (memcmp(id->addr.remote_gid, rx->addr.remote_gid, 16) != 0 ||
	    (their_id_known && id->remote_comm_id != 0 &&
	     their_id != id->remote_comm_id)) {
		cm->cnt[CM_CNT_RX_BAD_SOURCE]++;
		return NULL;
	}
	return id;
}

static void
cm_bad_state(struct roce_cm *cm, const struct roce_mad_rx *rx)
{
	cm->cnt[rx->dup ? CM_CNT_RX_DUP : CM_CNT_RX_BAD_STATE]++;
}

static void
cm_rx_rep(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct roce_cm_event *ev;
	struct roce_cm_id *id;
	struct roce_cm_rep rep;
	int ret;

	RTE_SET_USED(now);
	roce_cm_rep_unpack(&rx->mad, &rep);
	id = cm_reply_id(cm, rx, rep.remote_comm_id, rep.local_comm_id, true);
	if (id == NULL)
		return;
	switch (id->state) {
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
		break;
	case ROCE_CM_ESTABLISHED:
		/* our RTU was lost: send it again (IBTA 12.9.8.3.1) */
		cm->cnt[CM_CNT_RX_DUP]++;
		cm_send_rtu(cm, id);
		return;
	default:
		cm_bad_state(cm, rx);
		return;
	}
	cm_cancel_send(cm, id);
	id->state = ROCE_CM_REP_RCVD;
	id->remote_comm_id = rep.local_comm_id;
	id->remote_ca_guid = rep.local_ca_guid;
	id->remote_qpn = rep.local_qpn;
	id->sq_psn = rep.starting_psn;	/* Linux: the REP's is our send PSN */
	id->peer_resp_res = rep.responder_resources;
	id->peer_init_depth = rep.initiator_depth;
	/* we issue at most what the peer grants (IBTA 12.7.29) */
	id->init_depth = RTE_MIN(id->init_depth, rep.responder_resources);
	/* the REP's RNR retry count is for the REQ sender (IBTA 12.7.37) */
	id->rnr_retry = rep.rnr_retry_count;
	/*
	 * selective repeat: we offered it and a softernic peer accepted
	 * (Linux's rdma_cm echoes our REQ's Vendor ID: no REP bit)
	 */
	id->sr = id->sr_offer &&
		(rep.vendor_id & ROCE_CM_VENDOR_MASK) ==
		ROCE_CM_VENDOR_SOFTERNIC &&
		(rep.vendor_id & ROCE_CM_VENDOR_REP) != 0 &&
		(rep.vendor_id & ROCE_CM_VENDOR_CAP_SR) != 0;
	hk_insert(cm, id, HK_RQPN);
	ret = qp_to_rts(cm, id);
	if (ret != 0) {
		cm_rej_id(cm, id, ROCE_CM_MSG_REP,
			  ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		qp_to_err(cm, id);
		ev_simple(cm, id, ROCE_CM_EVENT_CONNECT_ERROR, ret);
		cm_set_idle(cm, id);
		return;
	}
	cm_send_rtu(cm, id);
	id->state = ROCE_CM_ESTABLISHED;
	cm->cnt[CM_CNT_ESTABLISHED]++;
	ev = ev_push(cm, id, ROCE_CM_EVENT_ESTABLISHED);
	ev_private(ev, rep.private_data, ROCE_CM_REP_PRIVATE);
}

static void
cm_rx_rtu(struct roce_cm *cm, const struct roce_mad_rx *rx)
{
	struct roce_cm_id *id;
	struct roce_cm_rtu rtu;

	roce_cm_rtu_unpack(&rx->mad, &rtu);
	id = cm_reply_id(cm, rx, rtu.remote_comm_id, rtu.local_comm_id, true);
	if (id == NULL)
		return;
	switch (id->state) {
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		cm_cancel_send(cm, id);
		id->state = ROCE_CM_ESTABLISHED;
		cm->cnt[CM_CNT_ESTABLISHED]++;
		ev_simple(cm, id, ROCE_CM_EVENT_ESTABLISHED, 0);
		break;
	default:
		cm_bad_state(cm, rx);
		break;
	}
}

static void
cm_rx_mra(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct roce_cm_id *id;
	struct roce_cm_mra mra;
	uint64_t wait;

	roce_cm_mra_unpack(&rx->mad, &mra);
	id = cm_reply_id(cm, rx, mra.remote_comm_id, mra.local_comm_id, true);
	if (id == NULL)
		return;
	/* IBTA 12.6.6: wait the service timeout plus the round trip */
	wait = cm_ticks(cm, mra.service_timeout) +
		2 * cm_ticks(cm, cm->cfg.packet_life_time);
	if ((id->state == ROCE_CM_REQ_SENT ||
	     id->state == ROCE_CM_MRA_REQ_RCVD) &&
	    mra.msg_mraed == ROCE_CM_MSG_REQ) {
		id->state = ROCE_CM_MRA_REQ_RCVD;
	} else if ((id->state == ROCE_CM_REP_SENT ||
		    id->state == ROCE_CM_MRA_REP_RCVD) &&
		   mra.msg_mraed == ROCE_CM_MSG_REP) {
		id->state = ROCE_CM_MRA_REP_RCVD;
	} else {
		cm_bad_state(cm, rx);
		return;
	}
	if (id->send != NULL)
		roce_mad_send_extend(cm->agent, id->send, wait, now);
}

static void
cm_rx_rej(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct roce_cm_event *ev;
	struct roce_cm_id *id;
	struct roce_cm_rej rej;
	enum roce_cm_event_type type = ROCE_CM_EVENT_REJECTED;

	roce_cm_rej_unpack(&rx->mad, &rej);
	/* a REJ of our REQ may come before the peer has a comm ID: 0 */
	id = cm_reply_id(cm, rx, rej.remote_comm_id, rej.local_comm_id,
			 rej.local_comm_id != 0);
	if (id == NULL)
		return;
	switch (id->state) {
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		break;
	case ROCE_CM_ESTABLISHED:
		type = ROCE_CM_EVENT_DISCONNECTED;
		break;
	default:
		cm_bad_state(cm, rx);
		return;
	}
	cm_cancel_send(cm, id);
	qp_to_err(cm, id);
	if (type == ROCE_CM_EVENT_DISCONNECTED)
		cm->cnt[CM_CNT_DISCONNECTED]++;
	ev = ev_push(cm, id, type);
	if (ev != NULL) {
		ev->rej_reason = rej.reason;
		ev->status = -ECONNREFUSED;
		ev_private(ev, rej.private_data, ROCE_CM_REJ_PRIVATE);
	}
	/* Linux cm_rej_handler: idle before a REP, timewait after one */
	if ((id->state == ROCE_CM_REQ_SENT ||
	     id->state == ROCE_CM_MRA_REQ_RCVD) &&
	    rej.reason != ROCE_CM_REJ_STALE_CONN)
		cm_set_idle(cm, id);
	else
		cm_enter_timewait(cm, id, now);
}

static void
cm_rx_dreq(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	uint64_t tid = roce_mad_tid(roce_mad_hdr_c(&rx->mad));
	struct roce_cm_event *ev;
	struct roce_cm_dreq dreq;
	struct roce_cm_id *id;

	roce_cm_dreq_unpack(&rx->mad, &dreq);
	id = id_by_comm_id(cm, dreq.remote_comm_id);
	if (id == NULL || id->state == ROCE_CM_IDLE ||
	    memcmp(id->addr.remote_gid, rx->addr.remote_gid, 16) != 0 ||
	    id->remote_comm_id != dreq.local_comm_id) {
		/* Linux cm_issue_drep: answer so the peer leaves DREQ_SENT */
		cm->cnt[CM_CNT_RX_UNKNOWN_ID]++;
		cm_send_drep(cm, &rx->addr, tid, dreq.remote_comm_id,
			     dreq.local_comm_id);
		return;
	}
	/* IBTA 12.6.10: the DREQ names our QP */
	if (dreq.remote_qpn != id->local_qpn) {
		cm->cnt[CM_CNT_RX_BAD_SOURCE]++;
		return;
	}
	switch (id->state) {
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		/* the RTU was lost but the peer is established: same as ESTABLISHED */
	case ROCE_CM_ESTABLISHED:
	case ROCE_CM_DREQ_SENT:	/* both sides disconnect at once */
		cm_cancel_send(cm, id);
		id->state = ROCE_CM_DREQ_RCVD;
		qp_to_err(cm, id);
		cm_send_drep(cm, &id->addr, tid, id->local_comm_id,
			     id->remote_comm_id);
		cm->cnt[CM_CNT_DISCONNECTED]++;
		ev = ev_push(cm, id, ROCE_CM_EVENT_DISCONNECTED);
		if (ev != NULL) {
			ev->by_peer_dreq = true;
			ev_private(ev, dreq.private_data, ROCE_CM_DREQ_PRIVATE);
		}
		cm_enter_timewait(cm, id, now);
		break;
	case ROCE_CM_TIMEWAIT:
		/* our DREP was lost (IBTA 12.9.8.3.1): answer again */
		cm->cnt[CM_CNT_RX_DUP]++;
		cm_send_drep(cm, &id->addr, tid, id->local_comm_id,
			     id->remote_comm_id);
		break;
	default:
		cm_bad_state(cm, rx);
		break;
	}
}

static void
cm_rx_drep(struct roce_cm *cm, const struct roce_mad_rx *rx, uint64_t now)
{
	struct roce_cm_drep drep;
	struct roce_cm_id *id;

	roce_cm_drep_unpack(&rx->mad, &drep);
	id = cm_reply_id(cm, rx, drep.remote_comm_id, drep.local_comm_id,
			 true);
	if (id == NULL)
		return;
	if (id->state != ROCE_CM_DREQ_SENT) {
		cm_bad_state(cm, rx);
		return;
	}
	cm->cnt[CM_CNT_DISCONNECTED]++;
	ev_simple(cm, id, ROCE_CM_EVENT_DISCONNECTED, 0);
	cm_enter_timewait(cm, id, now);
}

void
roce_cm_rx(struct roce_cm *cm, struct rte_mbuf *m, uint64_t now)
{
	struct roce_mad_rx rx;
	uint16_t attr;

	if (roce_mad_recv(cm->agent, m, now, &rx) != 0)
		return;
	attr = roce_mad_attr_id(roce_mad_hdr_c(&rx.mad));
	if (attr < ROCE_CM_ATTR_REQ || attr > ROCE_CM_ATTR_DREP) {
		cm->cnt[CM_CNT_RX_UNSUPPORTED_ATTR]++;
		return;
	}
	cm->cnt[CM_CNT_RX_REQ + (attr - ROCE_CM_ATTR_REQ)]++;
	switch (attr) {
	case ROCE_CM_ATTR_REQ:
		cm_rx_req(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_MRA:
		cm_rx_mra(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_REJ:
		cm_rx_rej(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_REP:
		cm_rx_rep(cm, &rx, now);
		break;
	case ROCE_CM_ATTR_RTU:
		cm_rx_rtu(cm, &rx);
		break;
	case ROCE_CM_ATTR_DREQ:
		cm_rx_dreq(cm, &rx, now);
		break;
	default:
		cm_rx_drep(cm, &rx, now);
		break;
	}
}

unsigned int
roce_cm_poll(struct roce_cm *cm, uint64_t now)
{
	return roce_mad_agent_poll(cm->agent, now) +
		roce_timers_run(&cm->timers, now);
}

uint64_t
roce_cm_next_deadline(const struct roce_cm *cm)
{
	return RTE_MIN(roce_mad_agent_next(cm->agent),
		       roce_timers_next(&cm->timers));
}

int
roce_cm_get_event(struct roce_cm *cm, struct roce_cm_event *ev)
{
	if (cm == NULL || ev == NULL || cm->ev_head == cm->ev_tail)
		return 0;
	*ev = cm->ev[cm->ev_head++ & cm->ev_mask];
	return 1;
}

/* ------------------------------------------------------------------ */
/* Application API                                                    */
/* ------------------------------------------------------------------ */

struct roce_cm_listener *
roce_cm_listen(struct roce_cm *cm, const struct roce_cm_addr *addr,
	       enum roce_cm_port_space ps, uint32_t backlog, void *context)
{
	struct roce_cm_listener *free_l = NULL;
	uint32_t i;

	if (cm == NULL || addr == NULL || addr->port == 0 ||
	    (addr->ip_ver != 4 && addr->ip_ver != 6) ||
	    ps != ROCE_CM_PS_TCP) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < cm->cfg.max_listeners; i++) {
		struct roce_cm_listener *l = &cm->listeners[i];

		if (!l->in_use) {
			if (free_l == NULL)
				free_l = l;
			continue;
		}
		if (l->ps == ps && l->addr.port == addr->port &&
		    memcmp(l->addr.gid.raw, addr->gid.raw, 16) == 0) {
			rte_errno = EADDRINUSE;
			return NULL;
		}
	}
	if (free_l == NULL) {
		rte_errno = ENOSPC;
		return NULL;
	}
	free_l->in_use = true;
	free_l->addr = *addr;
	free_l->ps = ps;
	free_l->backlog = backlog != 0 ? backlog : 128;
	free_l->pending = 0;
	free_l->context = context;
	return free_l;
}

int
roce_cm_listen_stop(struct roce_cm_listener *l, uint64_t now)
{
	struct roce_cm *cm;
	uint32_t i;

	if (l == NULL || !l->in_use)
		return -EINVAL;
	cm = l->cm;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		struct roce_cm_id *id = &cm->ids[i];

		if (!id->in_use || id->listener != l)
			continue;
		if (id->state == ROCE_CM_REQ_RCVD ||
		    id->state == ROCE_CM_MRA_REQ_SENT)
			roce_cm_reject(id, ROCE_CM_REJ_CONSUMER_DEFINED, NULL,
				       0, now);
		id->listener = NULL;
		id->pending = false;
	}
	l->in_use = false;
	l->pending = 0;
	return 0;
}

static void
conn_param_defaults(struct roce_cm *cm, const struct roce_cm_conn_param *p,
		    struct roce_cm_conn_param *o)
{
	*o = *p;
	if (o->path_mtu == 0 || o->path_mtu > cm->cfg.max_mtu)
		o->path_mtu = cm->cfg.max_mtu;
	if (o->qp_access_flags == 0)
		o->qp_access_flags = ROCE_ACCESS_LOCAL_WRITE |
			ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
			ROCE_ACCESS_REMOTE_ATOMIC;
	if (o->local_ack_timeout == 0)
		o->local_ack_timeout = 19;
	o->retry_count &= 7;
	o->rnr_retry_count &= 7;
	o->min_rnr_timer &= 0x1f;
	o->local_ack_timeout &= 0x1f;
	/* selective repeat: ROCE_CM_SR_ON or ROCE_CM_SR_OFF from here on */
	if (o->selective_repeat != ROCE_CM_SR_ON &&
	    o->selective_repeat != ROCE_CM_SR_OFF)
		o->selective_repeat = cm->cfg.selective_repeat ==
			ROCE_CM_SR_OFF ? ROCE_CM_SR_OFF : ROCE_CM_SR_ON;
}

/* The QP must be RC or UC, in RESET or INIT. */
static int
check_qp(struct roce_qp *qp, struct roce_qp_init_attr *ia)
{
	struct roce_qp_attr a;
	int ret;

	if (qp == NULL)
		return -EINVAL;
	ret = roce_query_qp(qp, &a, ia);
	if (ret != 0)
		return ret;
	if ((ia->qp_type != ROCE_QPT_RC && ia->qp_type != ROCE_QPT_UC) ||
	    (a.qp_state != ROCE_QPS_RESET && a.qp_state != ROCE_QPS_INIT))
		return -EINVAL;
	return 0;
}

int
roce_cm_connect(struct roce_cm *cm, const struct roce_cm_addr *src,
		const struct roce_cm_addr *dst, const uint8_t dmac[6],
		struct roce_qp *qp, const struct roce_cm_conn_param *p,
		void *context, uint64_t now, struct roce_cm_id **out)
{
	struct roce_cm_conn_param cp;
	struct roce_qp_init_attr ia;
	struct roce_cm_id *id;
	struct roce_cm_req req;
	struct roce_mad mad;
	int sgid, ret;

	if (cm == NULL || src == NULL || dst == NULL || dmac == NULL ||
	    p == NULL || out == NULL || dst->port == 0 ||
	    src->ip_ver != dst->ip_ver ||
	    p->selective_repeat > ROCE_CM_SR_OFF)
		return -EINVAL;
	if (p->private_data_len > ROCE_CM_REQ_PRIVATE - ROCE_CM_IP_HDR_LEN)
		return -EMSGSIZE;
	ret = check_qp(qp, &ia);
	if (ret != 0)
		return ret;
	sgid = cm_sgid_index(cm, src->gid.raw);
	if (sgid < 0)
		return -EADDRNOTAVAIL;
	conn_param_defaults(cm, p, &cp);
	id = id_alloc(cm);
	if (id == NULL)
		return -ENOSPC;
	id->active = true;
	id->context = context;
	id->qp = qp;
	id->qp_type = (uint8_t)ia.qp_type;
	id->srq = ia.srq != NULL;
	id->local_qpn = roce_qp_num(qp);
	id->local = *src;
	if (id->local.port == 0) {
		id->local.port = cm->next_port;
		cm->next_port = cm->next_port == 65535 ? 49152 :
			(uint16_t)(cm->next_port + 1);
	}
	id->remote = *dst;
	id->service_id = roce_cm_service_id(ROCE_CM_PS_TCP, dst->port);
	id->tid = roce_mad_tid_new(cm->agent);
	id->rq_psn = (uint32_t)cm_rand(cm) & 0xffffff;
	id->mtu = (uint8_t)cp.path_mtu;
	id->resp_res = cp.responder_resources;
	id->init_depth = cp.initiator_depth;
	id->retry_count = cp.retry_count;
	id->peer_rnr_retry = cp.rnr_retry_count;
	id->min_rnr_timer = cp.min_rnr_timer;
	id->local_ack_timeout = cp.local_ack_timeout;
	id->peer_cm_timeout = cm->cfg.cm_response_timeout;
	id->max_cm_retries = cm->cfg.max_cm_retries;
	id->hop_limit = 64;
	id->sgid_index = (uint8_t)sgid;
	id->access = cp.qp_access_flags;
	memset(&id->addr, 0, sizeof(id->addr));
	rte_ether_addr_copy(&cm->cfg.mac, &id->addr.local_mac);
	memcpy(id->addr.remote_mac.addr_bytes, dmac, RTE_ETHER_ADDR_LEN);
	memcpy(id->addr.local_gid, src->gid.raw, 16);
	memcpy(id->addr.remote_gid, dst->gid.raw, 16);
	id->addr.ip_ver = src->ip_ver;
	id->addr.ttl = 64;
	id->addr.udp_sport = (uint16_t)(0xc000 | (cm_rand(cm) & 0x3fff));
	id->addr.pkey = ROCE_DEFAULT_PKEY;
	id->addr.remote_qpn = ROCE_GSI_QPN;
	ret = qp_to_init(cm, id);
	if (ret != 0)
		goto fail;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = id->local_comm_id;
	req.service_id = id->service_id;
	req.local_ca_guid = cm->cfg.ca_guid;
	req.local_qpn = id->local_qpn;
	req.responder_resources = id->resp_res;
	req.initiator_depth = id->init_depth;
	req.remote_cm_response_timeout = cm->cfg.cm_response_timeout;
	req.transport = ia.qp_type == ROCE_QPT_RC ? ROCE_CM_TRANSPORT_RC :
		ROCE_CM_TRANSPORT_UC;
	req.starting_psn = id->rq_psn;	/* what we expect to receive */
	req.local_cm_response_timeout = cm->cfg.cm_response_timeout;
	req.retry_count = id->retry_count;
	req.pkey = ROCE_DEFAULT_PKEY;
	req.path_mtu = id->mtu;
	req.rnr_retry_count = id->peer_rnr_retry;
	req.max_cm_retries = cm->cfg.max_cm_retries;
	req.srq = id->srq;
	/* RoCE: permissive LIDs, the GIDs carry the addresses (annex A16/A17) */
	req.primary.local_lid = 0xffff;
	req.primary.remote_lid = 0xffff;
	memcpy(req.primary.local_gid, src->gid.raw, 16);
	memcpy(req.primary.remote_gid, dst->gid.raw, 16);
	req.primary.hop_limit = id->hop_limit;
	req.primary.subnet_local = id->hop_limit <= 1;
	req.primary.local_ack_timeout = id->local_ack_timeout;
	id->sr_offer = cp.selective_repeat == ROCE_CM_SR_ON &&
		ia.qp_type == ROCE_QPT_RC;
	id->sr = false;
	if (id->sr_offer)
		req.vendor_id = ROCE_CM_VENDOR_SOFTERNIC | ROCE_CM_VENDOR_CAP_SR;
	ret = roce_cm_ip_hdr_pack(req.private_data, &id->local, dst);
	if (ret != 0)
		goto fail;
	if (cp.private_data != NULL && cp.private_data_len != 0)
		memcpy(req.private_data + ROCE_CM_IP_HDR_LEN, cp.private_data,
		       cp.private_data_len);
	roce_cm_req_pack(&mad, id->tid, &req);
	id->state = ROCE_CM_REQ_SENT;
	ret = cm_send_tracked(cm, id, &mad,
			      cm_wait_ticks(cm, cm->cfg.cm_response_timeout),
			      now);
	if (ret != 0)
		goto fail;
	*out = id;
	return 0;
fail:
	id->qp = NULL;
	id_free(cm, id);
	return ret;
}

int
roce_cm_accept(struct roce_cm_id *id, struct roce_qp *qp,
	       const struct roce_cm_conn_param *p, void *context,
	       uint64_t now)
{
	struct roce_cm_conn_param cp;
	struct roce_qp_init_attr ia;
	struct roce_cm_rep rep;
	struct roce_mad mad;
	struct roce_cm *cm;
	int ret;

	if (id == NULL || !id->in_use || p == NULL ||
	    p->selective_repeat > ROCE_CM_SR_OFF ||
	    (id->state != ROCE_CM_REQ_RCVD &&
	     id->state != ROCE_CM_MRA_REQ_SENT))
		return -EINVAL;
	if (p->private_data_len > ROCE_CM_REP_PRIVATE)
		return -EMSGSIZE;
	ret = check_qp(qp, &ia);
	if (ret != 0)
		return ret;
	if (ia.qp_type != id->qp_type)
		return -EINVAL;
	cm = id->cm;
	conn_param_defaults(cm, p, &cp);
	id->qp = qp;
	id->context = context;
	id->srq = ia.srq != NULL;
	id->local_qpn = roce_qp_num(qp);
	id->rq_psn = (uint32_t)cm_rand(cm) & 0xffffff;
	id->mtu = (uint8_t)RTE_MIN(id->mtu, (uint8_t)cp.path_mtu);
	/* IBTA 12.7.29/30: never more than the active side offered */
	id->resp_res = RTE_MIN(cp.responder_resources, id->peer_init_depth);
	id->init_depth = RTE_MIN(cp.initiator_depth, id->peer_resp_res);
	id->peer_rnr_retry = cp.rnr_retry_count;
	id->min_rnr_timer = cp.min_rnr_timer;
	id->access = cp.qp_access_flags;
	id->sr = id->sr_offer && cp.selective_repeat == ROCE_CM_SR_ON;
	ret = qp_to_init(cm, id);
	if (ret == 0)
		ret = qp_to_rts(cm, id);
	if (ret != 0) {
		cm_rej_id(cm, id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_CONSUMER_DEFINED,
			  NULL, 0);
		qp_to_err(cm, id);
		id->qp = NULL;
		cm_set_idle(cm, id);
		return ret;
	}
	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = id->local_comm_id;
	rep.remote_comm_id = id->remote_comm_id;
	rep.local_qpn = id->local_qpn;
	rep.starting_psn = id->rq_psn;	/* what we expect to receive */
	rep.responder_resources = id->resp_res;
	rep.initiator_depth = id->init_depth;
	rep.target_ack_delay = 15;	/* as Linux rxe: our ACKs are immediate */
	rep.rnr_retry_count = id->peer_rnr_retry;
	rep.srq = id->srq;
	rep.local_ca_guid = cm->cfg.ca_guid;
	if (id->sr)
		rep.vendor_id = ROCE_CM_VENDOR_SOFTERNIC | ROCE_CM_VENDOR_REP |
			ROCE_CM_VENDOR_CAP_SR;
	if (cp.private_data != NULL && cp.private_data_len != 0)
		memcpy(rep.private_data, cp.private_data,
		       cp.private_data_len);
	roce_cm_rep_pack(&mad, id->tid, &rep);
	id_unpend(id);
	id->state = ROCE_CM_REP_SENT;
	ret = cm_send_tracked(cm, id, &mad,
			      cm_wait_ticks(cm, id->peer_cm_timeout), now);
	if (ret != 0) {
		qp_to_err(cm, id);
		cm_set_idle(cm, id);
	}
	return ret;
}

int
roce_cm_reject(struct roce_cm_id *id, uint16_t reason,
	       const void *private_data, uint8_t len, uint64_t now)
{
	struct roce_cm *cm;

	RTE_SET_USED(now);
	if (id == NULL || !id->in_use ||
	    (id->state != ROCE_CM_REQ_RCVD &&
	     id->state != ROCE_CM_MRA_REQ_SENT))
		return -EINVAL;
	if (len > ROCE_CM_REJ_PRIVATE)
		return -EMSGSIZE;
	cm = id->cm;
	cm_rej_id(cm, id, ROCE_CM_MSG_REQ, reason, private_data, len);
	cm_set_idle(cm, id);
	return 0;
}

int
roce_cm_disconnect(struct roce_cm_id *id, uint64_t now)
{
	return roce_cm_disconnect_pd(id, NULL, 0, now);
}

int
roce_cm_disconnect_pd(struct roce_cm_id *id, const void *private_data,
		      uint8_t len, uint64_t now)
{
	struct roce_cm_dreq dreq;
	struct roce_mad mad;
	struct roce_cm *cm;

	if (id == NULL || !id->in_use)
		return -EINVAL;
	if (len > ROCE_CM_DREQ_PRIVATE || (len != 0 && private_data == NULL))
		return -EMSGSIZE;
	cm = id->cm;
	switch (id->state) {
	case ROCE_CM_ESTABLISHED:
		break;
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
		cm_rej_id(cm, id, ROCE_CM_MSG_REQ, ROCE_CM_REJ_TIMEOUT, NULL, 0);
		qp_to_err(cm, id);
		cm_set_idle(cm, id);
		return 0;
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
		return roce_cm_reject(id, ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				      now);
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		cm_rej_id(cm, id, ROCE_CM_MSG_REP,
			  ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		qp_to_err(cm, id);
		cm_enter_timewait(cm, id, now);
		return 0;
	default:
		return -EINVAL;
	}
	/* IBTA 12.9.7: the QP stops first, then the DREQ goes */
	qp_to_err(cm, id);
	memset(&dreq, 0, sizeof(dreq));
	dreq.local_comm_id = id->local_comm_id;
	dreq.remote_comm_id = id->remote_comm_id;
	dreq.remote_qpn = id->remote_qpn;
	if (len != 0)
		memcpy(dreq.private_data, private_data, len);
	roce_cm_dreq_pack(&mad, roce_mad_tid_new(cm->agent), &dreq);
	id->state = ROCE_CM_DREQ_SENT;
	if (cm_send_tracked(cm, id, &mad,
			    cm_wait_ticks(cm, id->peer_cm_timeout), now) != 0) {
		/* no send slot: nobody will answer, wait out the timewait */
		cm->cnt[CM_CNT_DISCONNECTED]++;
		ev_simple(cm, id, ROCE_CM_EVENT_DISCONNECTED, -ENOSPC);
		cm_enter_timewait(cm, id, now);
	}
	return 0;
}

int
roce_cm_destroy_id(struct roce_cm_id *id, uint64_t now)
{
	struct roce_cm *cm;

	if (id == NULL || !id->in_use || id->orphan)
		return -EINVAL;
	cm = id->cm;
	id->orphan = true;
	switch (id->state) {
	case ROCE_CM_IDLE:
		id_free(cm, id);
		return 0;
	case ROCE_CM_ESTABLISHED:
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		roce_cm_disconnect(id, now);
		break;
	default:
		/* DREQ_SENT, TIMEWAIT: finishing on its own */
		break;
	}
	/* the application may destroy its QP from now on */
	if (id->in_use) {
		qp_to_err(cm, id);
		id->qp = NULL;
	}
	return 0;
}

enum roce_cm_state
roce_cm_id_state(const struct roce_cm_id *id)
{
	return id->state;
}

struct roce_qp *
roce_cm_id_qp(const struct roce_cm_id *id)
{
	return id->qp;
}

void *
roce_cm_id_context(const struct roce_cm_id *id)
{
	return id->context;
}

void
roce_cm_id_set_context(struct roce_cm_id *id, void *context)
{
	id->context = context;
}

uint32_t
roce_cm_nb_ids(const struct roce_cm *cm)
{
	return cm->cfg.max_ids - cm->nb_free;
}

unsigned int
roce_cm_conn_list(const struct roce_cm *cm, struct roce_cm_conn_info *out,
		  unsigned int n)
{
	const struct roce_cm_id *id;
	struct roce_cm_conn_info *ci;
	unsigned int k = 0;
	uint32_t i;

	if (cm == NULL)
		return 0;
	for (i = 0; i < cm->cfg.max_ids; i++) {
		id = &cm->ids[i];
		if (!id->in_use || id->state == ROCE_CM_IDLE)
			continue;
		if (k < n && out != NULL) {
			ci = &out[k];
			memset(ci, 0, sizeof(*ci));
			ci->id = id;
			ci->state = id->state;
			ci->active = id->active;
			ci->orphan = id->orphan;
			ci->local = id->local;
			ci->remote = id->remote;
			ci->local_qpn = id->local_qpn;
			ci->remote_qpn = id->remote_qpn;
			ci->local_comm_id = id->local_comm_id;
			ci->remote_comm_id = id->remote_comm_id;
			ci->selective_repeat = id->sr;
		}
		k++;
	}
	return k;
}

int
roce_cm_counters(const struct roce_cm *cm, struct roce_counter *c,
		 unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < CM_CNT_MAX; i++, k++)
		if (c != NULL && k < n) {
			c[k].name = cm_cnt_names[i];
			c[k].value = cm->cnt[i];
		}
	for (i = 0; i < ROCE_MAD_CNT_MAX; i++, k++)
		if (c != NULL && k < n) {
			c[k].name = roce_mad_cnt_name(i);
			c[k].value = roce_mad_agent_cnt(cm->agent, i);
		}
	return (int)k;
}

int64_t
roce_cm_counter(const struct roce_cm *cm, const char *name)
{
	unsigned int i;

	for (i = 0; i < CM_CNT_MAX; i++)
		if (strcmp(cm_cnt_names[i], name) == 0)
			return (int64_t)cm->cnt[i];
	for (i = 0; i < ROCE_MAD_CNT_MAX; i++)
		if (strcmp(roce_mad_cnt_name(i), name) == 0)
			return (int64_t)roce_mad_agent_cnt(cm->agent, i);
	return -ENOENT;
}
