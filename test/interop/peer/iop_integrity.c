/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iop-integrity: the data-integrity peer of the interop suite, run in the
 * soft-RoCE VM against ernic-testpmd's `integrity` mode (the exchange, the
 * sizes and the patterns are in app/ernic-testpmd/integrity_proto.h; the
 * key message is perftest's, from app/ernic-testpmd/perf_proto.c).
 *
 *   iop-integrity -d DEV -g GID_INDEX [-m MTU] [-p PORT] [-t SECONDS] [-f] [SERVER]
 *
 * Without SERVER it listens on PORT (18515) and is the passive side; with
 * it, it connects there and WRITEs, READs and SENDs. Prints
 * "integrity: PASS write=0x.. read=0x.. send=0x.." and exits 0 when every
 * byte of its buffer is as expected and the peer's checksums agree; a
 * "FAIL" line and exit 1 otherwise. "Couldn't connect" marks a server that
 * does not listen yet (test/interop/guest/bin/iop-client retries on it).
 *
 * -f (both sides; iop-integrity against iop-integrity, e.g. over
 * libernic_verbs.so against the VM's) adds the feature phases of
 * iop_features.c after the PASS: WRITE with immediate (zero-length too),
 * SEND with immediate, inline SENDs, a type 2 memory window bound by the
 * passive side, WRITE through it and SEND with invalidate of it, FETCH_ADD
 * and CMP_AND_SWAP with every returned value compared, SENDs that meet no
 * receive (RNR NAKs, retried until the passive side posts them) and a
 * WRITE through the invalidated window (a remote access error, the window
 * left untouched). Prints "integrity: features PASS ..." on both sides.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "iop_integrity.h"

static void
on_alarm(int sig)
{
	static const char m[] = "iop-integrity: FAIL: time limit reached\n";

	(void)sig;
	if (write(STDOUT_FILENO, m, sizeof(m) - 1) < 0)
		_exit(2);
	_exit(1);
}

int
die(const char *what)
{
	printf("iop-integrity: FAIL: %s\n", what);
	fflush(stdout);
	return 1;
}

static int
xfer(int fd, void *p, size_t n, bool out)
{
	uint8_t *c = p;
	ssize_t k;

	while (n > 0) {
		k = out ? write(fd, c, n) : read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* perftest's order: the client writes first */
static int
xchg(struct peer *p, const void *mine, void *theirs, size_t n)
{
	if (p->server != NULL)
		return xfer(p->fd, (void *)(uintptr_t)mine, n, true) ||
			xfer(p->fd, theirs, n, false) ? -1 : 0;
	return xfer(p->fd, theirs, n, false) ||
		xfer(p->fd, (void *)(uintptr_t)mine, n, true) ? -1 : 0;
}

int
xchg_text(struct peer *p, const char *mine, char theirs[INTEG_MSG_LEN])
{
	char out[INTEG_MSG_LEN];

	memset(out, 0, sizeof(out));
	snprintf(out, sizeof(out), "%s", mine);
	if (xchg(p, out, theirs, INTEG_MSG_LEN) != 0)
		return -1;
	theirs[INTEG_MSG_LEN - 1] = '\0';
	return 0;
}

static int
tcp_open(struct peer *p)
{
	struct sockaddr_in a;
	int one = 1, l;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)p->port);
	if (p->server != NULL) {
		if (inet_pton(AF_INET, p->server, &a.sin_addr) != 1)
			return die("SERVER must be an IPv4 address");
		p->fd = socket(AF_INET, SOCK_STREAM, 0);
		if (p->fd < 0 ||
		    connect(p->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
			printf("Couldn't connect to %s:%u\n", p->server,
			       p->port);
			fflush(stdout);
			return 1;
		}
		return 0;
	}
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0)
		return die("cannot listen on the side-channel port");
	p->fd = accept(l, NULL, NULL);
	close(l);
	return p->fd < 0 ? die("accept failed") : 0;
}

static int
verbs_open(struct peer *p)
{
	struct ibv_device **list;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	union ibv_gid gid;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), p->dev_name) == 0)
			p->ctx = ibv_open_device(list[i]);
	if (list != NULL)
		ibv_free_device_list(list);
	if (p->ctx == NULL)
		return die("cannot open the RDMA device");
	if (ibv_query_gid(p->ctx, 1, p->gid_index, &gid) != 0)
		return die("cannot read the GID");
	p->pd = ibv_alloc_pd(p->ctx);
	p->cq = ibv_create_cq(p->ctx, p->features ? 64 : 16, NULL, NULL, 0);
	if (posix_memalign((void **)&p->buf, 4096, INTEG_BUF) != 0)
		p->buf = NULL;
	if (p->pd == NULL || p->cq == NULL || p->buf == NULL)
		return die("cannot allocate a PD, CQ or buffer");
	memset(p->buf, INTEG_FILL, INTEG_BUF);
	if (p->server != NULL) {
		integ_fill(p->buf + INTEG_OFF_W, INTEG_TOTAL, INTEG_SEED_W);
		integ_fill(p->buf + INTEG_OFF_S, INTEG_TOTAL, INTEG_SEED_S);
	} else {
		integ_fill(p->buf + INTEG_OFF_R, INTEG_TOTAL, INTEG_SEED_R);
	}
	p->mr = ibv_reg_mr(p->pd, p->buf, INTEG_BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (p->features && feat_open(p) != 0)
		return 1;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p->cq;
	ia.recv_cq = p->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = p->features ? 8 : 2;
	ia.cap.max_recv_wr = p->features ? 16 : INTEG_NMSG;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = p->features ? 64 : 0;
	p->qp = p->mr != NULL ? ibv_create_qp(p->pd, &ia) : NULL;
	if (p->qp == NULL)
		return die("cannot register the buffer or create the QP");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ |
		(p->features ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0)
		return die("QP to INIT failed");
	memset(&p->my, 0, sizeof(p->my));
	p->my.out_reads = 1;
	p->my.qpn = p->qp->qp_num;
	p->my.psn = (uint32_t)(getpid() * 2654435761u) & 0xffffff;
	p->my.rkey = p->mr->rkey;
	p->my.vaddr = (uintptr_t)p->buf;
	memcpy(p->my.gid, gid.raw, 16);
	return 0;
}

/*
 * Release what verbs_open() and tcp_open() made, on every path: the
 * interop cases of the sanitizer build (test.sh) run an ASan build of this
 * program in the VM, and its leak check at exit fails the case.
 */
static void
peer_close(struct peer *p)
{
	feat_close(p);
	if (p->qp != NULL && ibv_destroy_qp(p->qp) != 0)
		printf("iop-integrity: cannot destroy the QP\n");
	if (p->mr != NULL && ibv_dereg_mr(p->mr) != 0)
		printf("iop-integrity: cannot deregister the buffer\n");
	if (p->cq != NULL && ibv_destroy_cq(p->cq) != 0)
		printf("iop-integrity: cannot destroy the CQ\n");
	if (p->pd != NULL && ibv_dealloc_pd(p->pd) != 0)
		printf("iop-integrity: cannot free the PD\n");
	if (p->ctx != NULL && ibv_close_device(p->ctx) != 0)
		printf("iop-integrity: cannot close the RDMA device\n");
	free(p->buf);
	if (p->fd >= 0)
		close(p->fd);
	p->qp = NULL;
	p->mr = NULL;
	p->cq = NULL;
	p->pd = NULL;
	p->ctx = NULL;
	p->buf = NULL;
	p->fd = -1;
}

static int
connect_qp(struct peer *p)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu == 4096 ? IBV_MTU_4096 : p->mtu == 2048 ?
		IBV_MTU_2048 : p->mtu == 512 ? IBV_MTU_512 :
		p->mtu == 256 ? IBV_MTU_256 : IBV_MTU_1024;
	a.dest_qp_num = p->rem.qpn;
	a.rq_psn = p->rem.psn;
	a.max_dest_rd_atomic = 1;
	/* 0.64 ms; 10.24 ms with -f: its RNR phase waits 300 ms */
	a.min_rnr_timer = p->features ? 20 : 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, p->rem.gid, 16);
	a.ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0)
		return die("QP to RTR failed");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p->my.psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
		return die("QP to RTS failed");
	return 0;
}

static int
wait_wc(struct peer *p, uint64_t wr_id, uint32_t len, const char *what)
{
	struct ibv_wc wc;
	int n;

	do
		n = ibv_poll_cq(p->cq, 1, &wc);
	while (n == 0);
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		printf("iop-integrity: FAIL: %s %" PRIu64 ": %s\n", what, wr_id,
		       n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return 1;
	}
	if (wc.wr_id != wr_id ||
	    (len != 0 && wc.byte_len != len)) {
		printf("iop-integrity: FAIL: %s: wr_id %" PRIu64 " (expected %" PRIu64 "), %u bytes (expected %u)\n",
		       what, (uint64_t)wc.wr_id, wr_id, wc.byte_len, len);
		return 1;
	}
	return 0;
}

static int
post_recvs(struct peer *p)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t k, off = 0;

	for (k = 0; k < INTEG_NMSG; k++) {
		sge.addr = (uintptr_t)(p->buf + INTEG_OFF_S + off);
		sge.length = integ_sizes[k];
		sge.lkey = p->mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(p->qp, &wr, &bad) != 0)
			return die("cannot post a receive");
		off += integ_sizes[k];
	}
	return 0;
}

static int
client_ops(struct peer *p, enum ibv_wr_opcode op, uint32_t area,
	   const char *what)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t k, off = 0;

	for (k = 0; k < INTEG_NMSG; k++) {
		sge.addr = (uintptr_t)(p->buf + area + off);
		sge.length = integ_sizes[k];
		sge.lkey = p->mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = k;
		wr.opcode = op;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = p->rem.vaddr + area + off;
		wr.wr.rdma.rkey = p->rem.rkey;
		if (ibv_post_send(p->qp, &wr, &bad) != 0)
			return die("cannot post a work request");
		if (wait_wc(p, k, op == IBV_WR_RDMA_READ ? integ_sizes[k] : 0,
			    what) != 0)
			return 1;
		off += integ_sizes[k];
	}
	printf("integrity: %u %s messages done (%u bytes)\n",
	       (unsigned int)INTEG_NMSG, what, (unsigned int)INTEG_TOTAL);
	return 0;
}

static int
run(struct peer *p)
{
	static const char *const names[] = { "WRITE", "READ", "SEND" };
	static const uint32_t seeds[] = {
		INTEG_SEED_W, INTEG_SEED_R, INTEG_SEED_S,
	};
	char mine[PERF_KEY_MSG_LEN], theirs[PERF_KEY_MSG_LEN];
	char txt[INTEG_MSG_LEN], rtxt[INTEG_MSG_LEN];
	uint64_t h[3], rh[3];
	int bad = 0, rbad;
	unsigned int a;
	int64_t at;
	uint32_t k;

	if (verbs_open(p) != 0)
		return 1;
	if (p->server == NULL && post_recvs(p) != 0)
		return 1;
	if (tcp_open(p) != 0)
		return 1;
	if (perf_key_format(&p->my, mine) != 0 ||
	    xchg(p, mine, theirs, sizeof(mine)) != 0)
		return die("key exchange on the side channel");
	if (perf_key_parse(theirs, &p->rem) != 0)
		return die("cannot parse the peer's key message");
	if (connect_qp(p) != 0 ||
	    xchg_text(p, p->features ? "ready -f" : "ready", rtxt) != 0)
		return 1;
	if (strcmp(rtxt, p->features ? "ready -f" : "ready") != 0) {
		printf("iop-integrity: FAIL: the peer is '%s', this side '%s': -f on both sides or on none\n",
		       rtxt, p->features ? "ready -f" : "ready");
		return 1;
	}
	printf("integrity: local QPN 0x%06x, remote QPN 0x%06x rkey 0x%08x vaddr 0x%016" PRIx64 ", path MTU %u\n",
	       p->my.qpn, p->rem.qpn, p->rem.rkey, p->rem.vaddr, p->mtu);
	fflush(stdout);
	if (p->server != NULL) {
		if (client_ops(p, IBV_WR_RDMA_WRITE, INTEG_OFF_W, "WRITE") ||
		    client_ops(p, IBV_WR_RDMA_READ, INTEG_OFF_R, "READ") ||
		    client_ops(p, IBV_WR_SEND, INTEG_OFF_S, "SEND"))
			return 1;
	} else {
		for (k = 0; k < INTEG_NMSG; k++)
			if (wait_wc(p, k, integ_sizes[k], "receive") != 0)
				return 1;
		printf("integrity: %u SEND messages received (%u bytes)\n",
		       (unsigned int)INTEG_NMSG, (unsigned int)INTEG_TOTAL);
	}
	for (a = 0; a < 3; a++) {
		at = integ_check(p->buf + a * INTEG_AREA, seeds[a]);
		if (at >= 0) {
			printf("integrity: FAIL: %s area byte %" PRId64 " is 0x%02x, expected 0x%02x\n",
			       names[a], at, p->buf[a * INTEG_AREA + at],
			       at < INTEG_TOTAL ?
			       integ_pattern(seeds[a], (uint32_t)at) :
			       INTEG_FILL);
			bad++;
		}
		h[a] = integ_fnv1a64(p->buf + a * INTEG_AREA, INTEG_TOTAL);
	}
	printf("integrity: local fnv1a64 write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 " bad=%d\n",
	       h[0], h[1], h[2], bad);
	snprintf(txt, sizeof(txt), "fnv W=%016" PRIx64 " R=%016" PRIx64 " S=%016" PRIx64 " bad=%d",
		 h[0], h[1], h[2], bad);
	if (xchg_text(p, txt, rtxt) != 0)
		return die("checksum exchange on the side channel");
	if (sscanf(rtxt, "fnv W=%" SCNx64 " R=%" SCNx64 " S=%" SCNx64 " bad=%d",
		   &rh[0], &rh[1], &rh[2], &rbad) != 4)
		return die("bad checksum message from the peer");
	printf("integrity: peer  fnv1a64 write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 " bad=%d\n",
	       rh[0], rh[1], rh[2], rbad);
	if (bad != 0 || rbad != 0 || h[0] != rh[0] || h[1] != rh[1] ||
	    h[2] != rh[2]) {
		printf("integrity: FAIL: %d bad areas here, %d at the peer, checksums %s\n",
		       bad, rbad, h[0] == rh[0] && h[1] == rh[1] &&
		       h[2] == rh[2] ? "agree" : "differ");
		return 1;
	}
	printf("integrity: PASS write=0x%016" PRIx64 " read=0x%016" PRIx64 " send=0x%016" PRIx64 "\n",
	       h[0], h[1], h[2]);
	return p->features ? feat_run(p) : 0;
}

static int
usage(void)
{
	fprintf(stderr, "usage: iop-integrity -d DEV -g GID_INDEX [-m MTU] [-p PORT] [-t SECONDS] [-f] [SERVER]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct peer p;
	unsigned int limit = 100;
	int c, rc;

	memset(&p, 0, sizeof(p));
	p.gid_index = -1;
	p.mtu = 1024;
	p.port = PERF_DEF_PORT;
	p.fd = -1;
	while ((c = getopt(argc, argv, "d:g:m:p:t:f")) != -1) {
		switch (c) {
		case 'f':
			p.features = true;
			break;
		case 'd':
			p.dev_name = optarg;
			break;
		case 'g':
			p.gid_index = atoi(optarg);
			break;
		case 'm':
			p.mtu = (unsigned int)atoi(optarg);
			break;
		case 'p':
			p.port = (unsigned int)atoi(optarg);
			break;
		case 't':
			limit = (unsigned int)atoi(optarg);
			break;
		default:
			return usage();
		}
	}
	if (p.dev_name == NULL || p.gid_index < 0 || optind < argc - 1 ||
	    (p.mtu != 256 && p.mtu != 512 && p.mtu != 1024 && p.mtu != 2048 &&
	     p.mtu != 4096) || p.port == 0 || p.port > 65535 || limit == 0)
		return usage();
	if (optind == argc - 1)
		p.server = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(limit);
	rc = run(&p);
	peer_close(&p);
	fflush(stdout);
	return rc;
}
