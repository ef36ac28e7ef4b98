/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM messages (roce_cm.h): pack and unpack of the MADs of IBTA 12.6 and
 * 12.11 (REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP) by mask
 * and shift on big-endian words, the rdma_cm IP private data header and
 * the CM time codes. No state: the connection manager is roce_cm.c.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "roce_cm.h"

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

/* SIDR_REQ (IBTA 12.11.1): the request ID in the local comm ID's place */
#define SIDR_REQ_PKEY		4, 0xffff0000, 16
#define SIDR_REQ_SERVICE_ID	8
#define SIDR_REQ_PRIVATE	16

/* SIDR_REP (IBTA 12.11.2) */
#define SIDR_REP_STATUS		4, 0xff000000, 24
#define SIDR_REP_INFO_LEN	4, 0x00ff0000, 16
#define SIDR_REP_QPN		8, 0xffffff00, 8
#define SIDR_REP_SERVICE_ID	12
#define SIDR_REP_QKEY		20, 0xffffffff, 0
#define SIDR_REP_INFO		24
#define SIDR_REP_PRIVATE	96

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

void
roce_cm_sidr_req_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_sidr_req *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_SIDR_REQ);

	f_put(d, CM_LOCAL_COMM_ID, r->request_id);
	f_put(d, SIDR_REQ_PKEY, r->pkey);
	q_put(d, SIDR_REQ_SERVICE_ID, r->service_id);
	memcpy(d + SIDR_REQ_PRIVATE, r->private_data,
	       ROCE_CM_SIDR_REQ_PRIVATE);
}

void
roce_cm_sidr_req_unpack(const struct roce_mad *mad,
			struct roce_cm_sidr_req *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->request_id = f_get(d, CM_LOCAL_COMM_ID);
	r->pkey = (uint16_t)f_get(d, SIDR_REQ_PKEY);
	r->service_id = q_get(d, SIDR_REQ_SERVICE_ID);
	memcpy(r->private_data, d + SIDR_REQ_PRIVATE,
	       ROCE_CM_SIDR_REQ_PRIVATE);
}

void
roce_cm_sidr_rep_pack(struct roce_mad *mad, uint64_t tid,
		      const struct roce_cm_sidr_rep *r)
{
	uint8_t *d = cm_mad_start(mad, tid, ROCE_CM_ATTR_SIDR_REP);
	uint8_t info_len = RTE_MIN(r->info_len,
				   (uint8_t)ROCE_CM_SIDR_REP_INFO);

	f_put(d, CM_LOCAL_COMM_ID, r->request_id);
	f_put(d, SIDR_REP_STATUS, r->status);
	f_put(d, SIDR_REP_INFO_LEN, info_len);
	f_put(d, SIDR_REP_QPN, r->qpn);
	q_put(d, SIDR_REP_SERVICE_ID, r->service_id);
	f_put(d, SIDR_REP_QKEY, r->qkey);
	memcpy(d + SIDR_REP_INFO, r->info, info_len);
	memcpy(d + SIDR_REP_PRIVATE, r->private_data,
	       ROCE_CM_SIDR_REP_PRIVATE);
}

void
roce_cm_sidr_rep_unpack(const struct roce_mad *mad,
			struct roce_cm_sidr_rep *r)
{
	const uint8_t *d = roce_mad_data_c(mad);

	r->request_id = f_get(d, CM_LOCAL_COMM_ID);
	r->status = (uint8_t)f_get(d, SIDR_REP_STATUS);
	r->info_len = RTE_MIN((uint8_t)f_get(d, SIDR_REP_INFO_LEN),
			      (uint8_t)ROCE_CM_SIDR_REP_INFO);
	r->qpn = f_get(d, SIDR_REP_QPN);
	r->service_id = q_get(d, SIDR_REP_SERVICE_ID);
	r->qkey = f_get(d, SIDR_REP_QKEY);
	memset(r->info, 0, sizeof(r->info));
	memcpy(r->info, d + SIDR_REP_INFO, r->info_len);
	memcpy(r->private_data, d + SIDR_REP_PRIVATE,
	       ROCE_CM_SIDR_REP_PRIVATE);
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
