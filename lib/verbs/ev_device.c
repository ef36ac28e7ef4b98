/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and contexts: the device list, ibv_open_device(), the queries
 * of device, port, GID and P_Key tables, and asynchronous events.
 *
 * A device is a net_ernic port: ernic<N> for the Nth port of the
 * SOFTERNIC_CONFIG file, a RoCE device (node type CA, transport IB, link
 * layer Ethernet) with one port whose GID table is the PMD's, all of them
 * RoCEv2 GIDs in Linux order (rte_pmd_ernic_gid()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "ev_priv.h"
#include "rte_pmd_ernic.h"

/* Vendor ID 0xffffff and part 0 as software RoCE devices report. */
#define EV_VENDOR_ID 0xffffff
#define EV_FW_VER "softernic 0.1.0"
/* CA ACK delay: 4.096 us * 2^15, what rxe reports */
#define EV_CA_ACK_DELAY 15

static struct ev_device ev_devices[EV_MAX_PORTS];

/* ------------------------------------------------------------------ */
/* Device list                                                        */
/* ------------------------------------------------------------------ */

void
ev_device_init(struct ev_port *p)
{
	struct ev_device *d = &ev_devices[p->index];
	uint8_t eui[8];
	uint64_t g = 0;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->port = p;
	p->dev = d;
	d->ibdev.node_type = IBV_NODE_CA;
	d->ibdev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->ibdev.name, sizeof(d->ibdev.name), "ernic%u", p->index);
	snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "uverbs-ernic%u",
		 p->index);
	/* no sysfs: reads of these paths fail (ibv_read_sysfs_file()) */
	snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path),
		 "/nonexistent/softernic/ernic%u", p->index);
	snprintf(d->ibdev.ibdev_path, sizeof(d->ibdev.ibdev_path),
		 "/nonexistent/softernic/ernic%u", p->index);
	/* EUI-64 of the port's MAC, as rxe makes its GUID */
	eui[0] = p->mac[0] ^ 2;
	eui[1] = p->mac[1];
	eui[2] = p->mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = p->mac[3];
	eui[6] = p->mac[4];
	eui[7] = p->mac[5];
	for (i = 0; i < 8; i++)
		g = g << 8 | eui[i];
	d->guid = rte_cpu_to_be_64(g);
}

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int i, n = 0;

	if (ev_env_start() == 0)
		n = ev_env.nb_ports;
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = &ev_devices[i].ibdev;
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

int
ibv_get_device_index(struct ibv_device *device)
{
	return device != NULL ?
		((struct ev_device *)(void *)device)->port->index : -1;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return device != NULL ? ((struct ev_device *)(void *)device)->guid : 0;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                           */
/* ------------------------------------------------------------------ */

static int ev_query_port(struct ibv_context *c, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t len);
static int ev_query_device_ex(struct ibv_context *c,
			      const struct ibv_query_device_ex_input *in,
			      struct ibv_device_attr_ex *attr, size_t len);
static int ev_query_rt_values(struct ibv_context *c,
			      struct ibv_values_ex *values);

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct ev_device *d = (struct ev_device *)(void *)device;
	struct ev_context *ctx;
	struct ibv_context *c;
	unsigned int k;

	if (d == NULL || d->port == NULL) {
		errno = ENODEV;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = d;
	ctx->port = d->port;
	pthread_mutex_init(&ctx->ev_lock, NULL);
	pthread_mutex_init(&ctx->obj_lock, NULL);
	for (k = 0; k < EV_K_MAX; k++)
		ctx->objs[k].prev = ctx->objs[k].next = &ctx->objs[k];
	c = &ctx->vctx.context;
	c->device = device;
	c->async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	c->cmd_fd = eventfd(0, EFD_CLOEXEC);
	if (c->async_fd < 0 || c->cmd_fd < 0) {
		int err = errno;

		if (c->async_fd >= 0)
			close(c->async_fd);
		if (c->cmd_fd >= 0)
			close(c->cmd_fd);
		free(ctx);
		errno = err;
		return NULL;
	}
	c->num_comp_vectors = 1;
	pthread_mutex_init(&c->mutex, NULL);
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	c->ops.poll_cq = ev_poll_cq;
	c->ops.req_notify_cq = ev_req_notify_cq;
	c->ops.post_send = ev_post_send;
	c->ops.post_recv = ev_post_recv;
	c->ops.post_srq_recv = ev_post_srq_recv;
	c->ops.alloc_mw = ev_alloc_mw;
	c->ops.dealloc_mw = ev_dealloc_mw;
	c->ops.bind_mw = ev_bind_mw;
	ctx->vctx.sz = sizeof(ctx->vctx);
	ctx->vctx.query_port = ev_query_port;
	ctx->vctx.query_device_ex = ev_query_device_ex;
	ctx->vctx.query_rt_values = ev_query_rt_values;
	ctx->vctx.create_cq_ex = ev_create_cq_ex;
	ctx->vctx.modify_cq = ev_modify_cq;
	ctx->vctx.create_qp_ex = ev_create_qp_ex;
	ctx->vctx.create_srq_ex = ev_create_srq_ex;
	pthread_mutex_lock(&d->port->ctx_lock);
	ctx->next = d->port->ctx_head;
	d->port->ctx_head = ctx;
	pthread_mutex_unlock(&d->port->ctx_lock);
	return c;
}

static void
ctx_unlink(struct ev_context *ctx)
{
	struct ev_port *p = ctx->port;
	struct ev_context **pp;

	pthread_mutex_lock(&p->ctx_lock);
	for (pp = &p->ctx_head; *pp != NULL; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	pthread_mutex_unlock(&p->ctx_lock);
}

void
ev_obj_add(struct ev_context *ctx, enum ev_kind k, struct ev_link *l)
{
	struct ev_link *head = &ctx->objs[k];

	pthread_mutex_lock(&ctx->obj_lock);
	l->next = head->next;
	l->prev = head;
	head->next->prev = l;
	head->next = l;
	pthread_mutex_unlock(&ctx->obj_lock);
}

void
ev_obj_del(struct ev_context *ctx, struct ev_link *l)
{
	pthread_mutex_lock(&ctx->obj_lock);
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
	pthread_mutex_unlock(&ctx->obj_lock);
}

/*
 * Destroy what the program left on @p ctx, as the kernel does when a
 * process closes its device: QPs, then SRQs, CQs, windows, regions and
 * protection domains. The count of objects that would not go.
 */
static unsigned int
ctx_teardown(struct ev_context *ctx)
{
	unsigned int k, left = 0;
	struct ev_link *l;
	int ret;

	for (k = 0; k < EV_K_MAX; k++) {
		for (;;) {
			pthread_mutex_lock(&ctx->obj_lock);
			l = ctx->objs[k].next;
			pthread_mutex_unlock(&ctx->obj_lock);
			if (l == &ctx->objs[k])
				break;
			switch ((enum ev_kind)k) {
			case EV_K_QP:
				ret = ev_qp_destroy(container_of(l,
						struct ev_qp, link));
				break;
			case EV_K_SRQ:
				ret = ev_srq_destroy(container_of(l,
						struct ev_srq, link));
				break;
			case EV_K_CQ:
				ret = ev_cq_destroy(container_of(l,
						struct ev_cq, link));
				break;
			case EV_K_MW:
				ret = ev_mw_destroy(container_of(l,
						struct ev_mw, link));
				break;
			case EV_K_MR:
				ret = ev_mr_destroy(container_of(l,
						struct ev_mr, link));
				break;
			default:
				ret = ev_pd_destroy(container_of(l,
						struct ev_pd, link));
				break;
			}
			if (ret != 0) {
				/* leave it out of the list: it stays */
				ev_obj_del(ctx, l);
				left++;
			}
		}
	}
	return left;
}

int
ibv_close_device(struct ibv_context *context)
{
	struct ev_context *ctx;
	unsigned int left;

	if (context == NULL)
		return EINVAL;
	ctx = ev_ctx(context);
	left = ctx_teardown(ctx);
	if (left != 0)
		ev_log("ibv_close_device(%s): %u objects could not be destroyed",
		       context->device->name, left);
	ctx_unlink(ctx);
	close(context->async_fd);
	close(context->cmd_fd);
	free(ctx);
	return 0;
}

void
ev_contexts_close_all(void)
{
	unsigned int i;
	struct ev_port *p;

	for (i = 0; i < ev_env.nb_ports; i++) {
		p = &ev_env.port[i];
		while (p->ctx_head != NULL)
			ibv_close_device(&p->ctx_head->vctx.context);
	}
}

struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Queries                                                            */
/* ------------------------------------------------------------------ */

static void
dev_attr_fill(const struct ev_port *p, struct ibv_device_attr *a)
{
	struct roce_device_attr r;

	memset(a, 0, sizeof(*a));
	memset(&r, 0, sizeof(r));
	roce_query_device(p->rdev, &r);
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%s", EV_FW_VER);
	a->node_guid = p->dev->guid;
	a->sys_image_guid = p->dev->guid;
	a->max_mr_size = r.max_mr_size;
	a->page_size_cap = 0xfffff000u;	/* any page of 4 KiB and up */
	a->vendor_id = EV_VENDOR_ID;
	a->vendor_part_id = 0;
	a->hw_ver = 0;
	a->max_qp = (int)r.max_qp;
	a->max_qp_wr = (int)r.max_qp_wr;
	a->device_cap_flags = IBV_DEVICE_BAD_PKEY_CNTR |
		IBV_DEVICE_BAD_QKEY_CNTR | IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_PORT_ACTIVE_EVENT |
		IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_MEM_WINDOW |
		IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_MEM_MGT_EXTENSIONS;
	a->max_sge = (int)r.max_sge;
	a->max_sge_rd = (int)r.max_sge;
	a->max_cq = (int)r.max_cq;
	a->max_cqe = (int)r.max_cqe;
	a->max_mr = (int)r.max_mr;
	a->max_pd = (int)r.max_pd;
	a->max_qp_rd_atom = (int)r.max_qp_rd_atom;
	a->max_res_rd_atom = (int)(r.max_qp_rd_atom * r.max_qp);
	a->max_qp_init_rd_atom = (int)r.max_qp_init_rd_atom;
	a->atomic_cap = r.atomic_cap ? IBV_ATOMIC_HCA : IBV_ATOMIC_NONE;
	a->max_mw = (int)r.max_mw;
	a->max_ah = (int)r.max_qp;
	a->max_srq = (int)r.max_srq;
	a->max_srq_wr = (int)r.max_srq_wr;
	a->max_srq_sge = (int)r.max_sge;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = EV_CA_ACK_DELAY;
	a->phys_port_cnt = 1;
}

int
ibv_query_device(struct ibv_context *context,
		 struct ibv_device_attr *device_attr)
{
	if (context == NULL || device_attr == NULL)
		return EINVAL;
	dev_attr_fill(ev_ctx(context)->port, device_attr);
	return 0;
}

static int
ev_query_device_ex(struct ibv_context *c,
		   const struct ibv_query_device_ex_input *in,
		   struct ibv_device_attr_ex *attr, size_t len)
{
	struct ibv_device_attr_ex a;

	if (in != NULL && in->comp_mask != 0)
		return EINVAL;
	if (len < sizeof(attr->orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	dev_attr_fill(ev_ctx(c)->port, &a.orig_attr);
	a.phys_port_cnt_ex = 1;
	/* a completion's timestamp is not kept: no clock to report */
	a.completion_timestamp_mask = 0;
	a.hca_core_clock = 0;
	memcpy(attr, &a, RTE_MIN(len, sizeof(a)));
	return 0;
}

static int
ev_query_rt_values(struct ibv_context *c, struct ibv_values_ex *values)
{
	(void)c;
	(void)values;
	return EOPNOTSUPP;
}

/* IB width and speed codes for an Ethernet speed, as Linux maps them. */
static void
port_speed(uint32_t mbps, uint8_t *width, uint8_t *speed)
{
	static const struct {
		uint32_t mbps;
		uint8_t width, speed;
	} tab[] = {
		{ 400000, 2, 128 },	/* 4X NDR */
		{ 200000, 2, 64 },	/* 4X HDR */
		{ 100000, 2, 32 },	/* 4X EDR */
		{ 50000, 2, 16 },	/* 4X FDR (approximately) */
		{ 40000, 2, 8 },	/* 4X FDR10 */
		{ 25000, 1, 32 },	/* 1X EDR */
		{ 10000, 1, 16 },	/* 1X FDR */
		{ 0, 1, 1 },		/* 1X SDR */
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(tab) - 1 && mbps < tab[i].mbps; i++)
		;
	*width = tab[i].width;
	*speed = tab[i].speed;
}

static int
ev_query_port(struct ibv_context *c, uint8_t port_num,
	      struct ibv_port_attr *attr, size_t len)
{
	struct ev_port *p = ev_ctx(c)->port;
	struct ibv_port_attr a;
	struct rte_eth_link link;
	uint32_t mbps;

	if (port_num != 1 || attr == NULL)
		return EINVAL;
	memset(&a, 0, sizeof(a));
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(p->port_id, &link);
	a.state = link.link_status == RTE_ETH_LINK_UP ||
		ev_env.set.active_when_started ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	a.phys_state = link.link_status == RTE_ETH_LINK_UP ? 5 : 3;
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = (enum ibv_mtu)p->mtu;
	a.gid_tbl_len = (int)RTE_DIM(p->gid);
	a.port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	a.max_msg_sz = (uint32_t)ROCE_MAX_MSG_SIZE;
	a.pkey_tbl_len = 1;
	a.max_vl_num = 1;
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	mbps = link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ||
		link.link_speed == RTE_ETH_SPEED_NUM_NONE ?
		10000 : link.link_speed;
	port_speed(mbps, &a.active_width, &a.active_speed);
	memcpy(attr, &a, RTE_MIN(len, sizeof(a)));
	return 0;
}

/* The symbol programs built before the extended query call. */
#undef ibv_query_port
int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	if (context == NULL)
		return EINVAL;
	/* the old struct is the new one up to link_layer */
	return ev_query_port(context, port_num,
			     (struct ibv_port_attr *)(void *)port_attr,
			     offsetof(struct ibv_port_attr, flags));
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	struct ev_port *p;

	if (context == NULL || gid == NULL || port_num != 1 || index < 0)
		return -1;
	p = ev_ctx(context)->port;
	if ((unsigned int)index >= RTE_DIM(p->gid)) {
		errno = EINVAL;
		return -1;
	}
	/* an empty entry reads as zeros, as the kernel's table does */
	memset(gid, 0, sizeof(*gid));
	if ((unsigned int)index < p->nb_gid)
		memcpy(gid->raw, p->gid[index].raw, 16);
	return 0;
}

int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		   unsigned int index, enum ev_gid_type_sysfs *type)
{
	struct ev_port *p;

	if (context == NULL || type == NULL || port_num != 1)
		return -1;
	p = ev_ctx(context)->port;
	if (index >= RTE_DIM(p->gid))
		return -1;
	/* an empty entry reads as RoCE v1, as libibverbs answers */
	*type = index < p->nb_gid ? EV_GID_TYPE_SYSFS_ROCE_V2 :
		EV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

static void
gid_entry(const struct ev_port *p, unsigned int i, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->gid.raw, p->gid[i].raw, 16);
	e->gid_index = i;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 0;	/* a DPDK port has no kernel interface */
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		  uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	struct ev_port *p;

	if (context == NULL || entry == NULL || flags != 0 || port_num != 1 ||
	    entry_size < sizeof(e))
		return EINVAL;
	p = ev_ctx(context)->port;
	if (gid_index >= p->nb_gid)
		return gid_index < RTE_DIM(p->gid) ? ENODATA : EINVAL;
	gid_entry(p, gid_index, &e);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context,
		     struct ibv_gid_entry *entries, size_t max_entries,
		     uint32_t flags, size_t entry_size)
{
	struct ev_port *p;
	unsigned int i;

	if (context == NULL || flags != 0 || entry_size < sizeof(*entries) ||
	    (entries == NULL && max_entries > 0))
		return -EINVAL;
	p = ev_ctx(context)->port;
	if (max_entries < p->nb_gid)
		return -EINVAL;
	for (i = 0; i < p->nb_gid; i++)
		gid_entry(p, i, (struct ibv_gid_entry *)(void *)
			  ((uint8_t *)entries + i * entry_size));
	return (ssize_t)p->nb_gid;
}

int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
	       __be16 *pkey)
{
	if (context == NULL || pkey == NULL || port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = rte_cpu_to_be_16(0xffff);	/* the default P_Key */
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		   __be16 pkey)
{
	if (context == NULL || port_num != 1)
		return -EINVAL;
	return (rte_be_to_cpu_16(pkey) & 0x7fff) == 0x7fff ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Asynchronous events                                                */
/* ------------------------------------------------------------------ */

static const enum ibv_event_type roce_event_ibv[] = {
	[ROCE_EVENT_CQ_ERR] = IBV_EVENT_CQ_ERR,
	[ROCE_EVENT_QP_FATAL] = IBV_EVENT_QP_FATAL,
	[ROCE_EVENT_QP_REQ_ERR] = IBV_EVENT_QP_REQ_ERR,
	[ROCE_EVENT_QP_ACCESS_ERR] = IBV_EVENT_QP_ACCESS_ERR,
	[ROCE_EVENT_COMM_EST] = IBV_EVENT_COMM_EST,
	[ROCE_EVENT_SQ_DRAINED] = IBV_EVENT_SQ_DRAINED,
	[ROCE_EVENT_PATH_MIG] = IBV_EVENT_PATH_MIG,
	[ROCE_EVENT_PATH_MIG_ERR] = IBV_EVENT_PATH_MIG_ERR,
	[ROCE_EVENT_DEVICE_FATAL] = IBV_EVENT_DEVICE_FATAL,
	[ROCE_EVENT_PORT_ACTIVE] = IBV_EVENT_PORT_ACTIVE,
	[ROCE_EVENT_PORT_ERR] = IBV_EVENT_PORT_ERR,
	[ROCE_EVENT_LID_CHANGE] = IBV_EVENT_LID_CHANGE,
	[ROCE_EVENT_PKEY_CHANGE] = IBV_EVENT_PKEY_CHANGE,
	[ROCE_EVENT_SM_CHANGE] = IBV_EVENT_SM_CHANGE,
	[ROCE_EVENT_SRQ_ERR] = IBV_EVENT_SRQ_ERR,
	[ROCE_EVENT_SRQ_LIMIT_REACHED] = IBV_EVENT_SRQ_LIMIT_REACHED,
	[ROCE_EVENT_QP_LAST_WQE_REACHED] = IBV_EVENT_QP_LAST_WQE_REACHED,
	[ROCE_EVENT_CLIENT_REREGISTER] = IBV_EVENT_CLIENT_REREGISTER,
	[ROCE_EVENT_GID_CHANGE] = IBV_EVENT_GID_CHANGE,
};

static void
ctx_push(struct ev_context *ctx, const struct ibv_async_event *e)
{
	const uint64_t one = 1;
	unsigned int cap = RTE_DIM(ctx->ev_queue);

	if (ctx->ev_count == cap) {
		ctx->ev_lost++;
		return;
	}
	ctx->ev_queue[(ctx->ev_head + ctx->ev_count) % cap] = *e;
	ctx->ev_count++;
	if (write(ctx->vctx.context.async_fd, &one, sizeof(one)) !=
	    sizeof(one))
		ctx->ev_lost++;
}

/* The context's object for a lib/roce object (takes obj_lock). */
static bool
ctx_find(struct ev_context *ctx, const struct roce_async_event *ev,
	 struct ibv_async_event *out)
{
	struct ev_link *l, *head;
	bool found = false;

	switch (ev->event_type) {
	case ROCE_EVENT_DEVICE_FATAL:
	case ROCE_EVENT_PORT_ACTIVE:
	case ROCE_EVENT_PORT_ERR:
	case ROCE_EVENT_LID_CHANGE:
	case ROCE_EVENT_PKEY_CHANGE:
	case ROCE_EVENT_SM_CHANGE:
	case ROCE_EVENT_CLIENT_REREGISTER:
	case ROCE_EVENT_GID_CHANGE:
		out->element.port_num = 1;
		return true;
	default:
		break;
	}
	pthread_mutex_lock(&ctx->obj_lock);
	switch (ev->event_type) {
	case ROCE_EVENT_CQ_ERR:
		head = &ctx->objs[EV_K_CQ];
		for (l = head->next; !found && l != head; l = l->next) {
			struct ev_cq *cq = container_of(l, struct ev_cq, link);

			if (ev_cq_part_of(cq, ev->element.cq) != NULL) {
				out->element.cq = ibv_cq_ex_to_cq(&cq->ibcq);
				found = true;
			}
		}
		break;
	case ROCE_EVENT_SRQ_ERR:
	case ROCE_EVENT_SRQ_LIMIT_REACHED:
		head = &ctx->objs[EV_K_SRQ];
		for (l = head->next; !found && l != head; l = l->next) {
			struct ev_srq *srq = container_of(l, struct ev_srq,
							  link);

			if (srq->srq == ev->element.srq) {
				out->element.srq = &srq->ibsrq;
				found = true;
			}
		}
		break;
	default:
		head = &ctx->objs[EV_K_QP];
		for (l = head->next; !found && l != head; l = l->next) {
			struct ev_qp *qp = container_of(l, struct ev_qp, link);

			if (qp->qp == ev->element.qp) {
				out->element.qp = &qp->ibqp.qp_base;
				found = true;
			}
		}
		break;
	}
	pthread_mutex_unlock(&ctx->obj_lock);
	return found;
}

void
ev_async_dispatch(struct ev_port *p, const struct roce_async_event *ev)
{
	struct ibv_async_event e;
	struct ev_context *ctx;

	if ((unsigned int)ev->event_type >= RTE_DIM(roce_event_ibv))
		return;
	memset(&e, 0, sizeof(e));
	e.event_type = roce_event_ibv[ev->event_type];
	pthread_mutex_lock(&p->ctx_lock);
	for (ctx = p->ctx_head; ctx != NULL; ctx = ctx->next) {
		if (!ctx_find(ctx, ev, &e))
			continue;
		pthread_mutex_lock(&ctx->ev_lock);
		ctx_push(ctx, &e);
		pthread_mutex_unlock(&ctx->ev_lock);
	}
	pthread_mutex_unlock(&p->ctx_lock);
}

void
ev_async_pump(struct ev_port *p)
{
	struct roce_async_event ev;
	unsigned int n = 0;

	while (n++ < 64 && roce_get_async_event(p->rdev, &ev) == 1)
		ev_async_dispatch(p, &ev);
}

int
ibv_get_async_event(struct ibv_context *context,
		    struct ibv_async_event *event)
{
	struct ev_context *ctx;
	uint64_t v;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ctx = ev_ctx(context);
	ev_env_kick(ctx->port);
	for (;;) {
		if (read(context->async_fd, &v, sizeof(v)) != sizeof(v))
			return -1;	/* errno: EAGAIN (non-blocking), EINTR */
		pthread_mutex_lock(&ctx->ev_lock);
		if (ctx->ev_count > 0) {
			*event = ctx->ev_queue[ctx->ev_head];
			ctx->ev_head = (ctx->ev_head + 1) %
				RTE_DIM(ctx->ev_queue);
			ctx->ev_count--;
			pthread_mutex_unlock(&ctx->ev_lock);
			return 0;
		}
		pthread_mutex_unlock(&ctx->ev_lock);
	}
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	/* nothing waits for acknowledgements: destroy does not block */
	(void)event;
}
