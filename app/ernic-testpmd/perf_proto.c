/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest and ibv_rc_pingpong side-channel messages (see perf_proto.h).
 * perftest: ethernet_write_keys()/ethernet_read_keys(), exchange_versions(),
 * check_sys_data(), check_mtu(), xchg_bw_reports() of
 * src/perftest_communication.c; ibv_rc_pingpong: pp_client_exch_dest() of
 * libibverbs/examples/rc_pingpong.c with gid_to_wire_gid().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_proto.h"

int
perf_key_format(const struct perf_dest *d, char msg[PERF_KEY_MSG_LEN])
{
	int n;

	if (d->lid > 0xffff || d->out_reads > 0xffff || d->qpn > 0xffffff ||
	    d->psn > 0xffffff)
		return -EINVAL;
	n = snprintf(msg, PERF_KEY_MSG_LEN,
		     "%04x:%04x:%06x:%06x:%08x:%016llx:"
		     "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:"
		     "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x:%08x:",
		     d->lid, d->out_reads, d->qpn, d->psn, d->rkey,
		     (unsigned long long)d->vaddr,
		     d->gid[0], d->gid[1], d->gid[2], d->gid[3],
		     d->gid[4], d->gid[5], d->gid[6], d->gid[7],
		     d->gid[8], d->gid[9], d->gid[10], d->gid[11],
		     d->gid[12], d->gid[13], d->gid[14], d->gid[15],
		     d->srqn);
	return n == PERF_KEY_MSG_LEN - 1 ? 0 : -EINVAL;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

void
perf_dest_bin_format(const struct perf_dest *d, int32_t gid_index,
		     uint8_t msg[PERF_DEST_BIN_LEN])
{
	memset(msg, 0, PERF_DEST_BIN_LEN);
	put_be32(msg + 0, d->lid);
	put_be32(msg + 4, d->out_reads);
	put_be32(msg + 8, d->qpn);
	put_be32(msg + 12, d->psn);
	put_be32(msg + 16, d->rkey);
	put_be32(msg + 24, (uint32_t)(d->vaddr >> 32));
	put_be32(msg + 28, (uint32_t)d->vaddr);
	memcpy(msg + 32, d->gid, 16);
	put_be32(msg + 48, d->srqn);
	put_be32(msg + 52, (uint32_t)gid_index);
}

int
perf_dest_bin_parse(const uint8_t msg[PERF_DEST_BIN_LEN], struct perf_dest *d)
{
	struct perf_dest t;

	t.lid = get_be32(msg + 0);
	t.out_reads = get_be32(msg + 4);
	t.qpn = get_be32(msg + 8);
	t.psn = get_be32(msg + 12);
	t.rkey = get_be32(msg + 16);
	t.vaddr = (uint64_t)get_be32(msg + 24) << 32 | get_be32(msg + 28);
	memcpy(t.gid, msg + 32, 16);
	t.srqn = get_be32(msg + 48);
	if (t.qpn > 0xffffff || t.psn > 0xffffff)
		return -EINVAL;
	*d = t;
	return 0;
}

/* Parse @p width hex digits at *p followed by ':'; advance past the ':'. */
static int
hex_field(const char **p, const char *end, unsigned int width, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned int i;
	int c;

	if (s + width + 1 > end)
		return -EINVAL;
	for (i = 0; i < width; i++) {
		c = s[i];
		if (c >= '0' && c <= '9')
			x = x << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x << 4 | (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x = x << 4 | (uint64_t)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	if (s[width] != ':')
		return -EINVAL;
	*v = x;
	*p = s + width + 1;
	return 0;
}

int
perf_key_parse(const char msg[PERF_KEY_MSG_LEN], struct perf_dest *d)
{
	static const unsigned int width[6] = { 4, 4, 6, 6, 8, 16 };
	const char *p = msg, *end = msg + PERF_KEY_MSG_LEN - 1;
	struct perf_dest t;
	uint64_t v[6], x;
	unsigned int i;

	/* no uninitialised padding is copied out to *d */
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 6; i++)
		if (hex_field(&p, end, width[i], &v[i]) != 0)
			return -EINVAL;
	for (i = 0; i < 16; i++) {
		if (hex_field(&p, end, 2, &x) != 0)
			return -EINVAL;
		t.gid[i] = (uint8_t)x;
	}
	if (hex_field(&p, end, 8, &x) != 0 || p != end || *p != '\0')
		return -EINVAL;
	t.srqn = (uint32_t)x;
	t.lid = (uint32_t)v[0];
	t.out_reads = (uint32_t)v[1];
	t.qpn = (uint32_t)v[2];
	t.psn = (uint32_t)v[3];
	t.rkey = (uint32_t)v[4];
	t.vaddr = v[5];
	*d = t;
	return 0;
}

void
perf_version_format(const char *ver, char msg[PERF_VERSION_LEN])
{
	memset(msg, 0, PERF_VERSION_LEN);
	strncpy(msg, ver, PERF_VERSION_LEN - 1);
}

bool
perf_version_ok(const char msg[PERF_VERSION_LEN])
{
	char v[PERF_VERSION_LEN + 1];

	memcpy(v, msg, PERF_VERSION_LEN);
	v[PERF_VERSION_LEN] = '\0';
	/* check_version_compatibility(): atof(rem_version) < 5.70 exits */
	return atof(v) >= 5.70;
}

int
perf_mtu_format(unsigned int mtu_code, char msg[PERF_MTU_MSG_LEN])
{
	if (mtu_code < 1 || mtu_code > 5)
		return -EINVAL;
	msg[0] = (char)('0' + mtu_code);
	msg[1] = '\0';
	return 0;
}

int
perf_mtu_parse(const char msg[PERF_MTU_MSG_LEN])
{
	/* check_mtu(): strtol of the 2 bytes; valid_mtu_size() is 1..5 */
	if (msg[0] < '1' || msg[0] > '5' || msg[1] != '\0')
		return -EINVAL;
	return msg[0] - '0';
}

void
perf_be32_format(int32_t v, uint8_t msg[4])
{
	uint32_t u = (uint32_t)v;

	msg[0] = (uint8_t)(u >> 24);
	msg[1] = (uint8_t)(u >> 16);
	msg[2] = (uint8_t)(u >> 8);
	msg[3] = (uint8_t)u;
}

int32_t
perf_be32_parse(const uint8_t msg[4])
{
	return (int32_t)((uint32_t)msg[0] << 24 | (uint32_t)msg[1] << 16 |
			 (uint32_t)msg[2] << 8 | msg[3]);
}

static void
be64_put(uint64_t v, uint8_t out[8])
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t
be64_get(const uint8_t in[8])
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | in[i];
	return v;
}

static uint64_t
dbl_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double
bits_dbl(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

void
perf_report_field_format(const struct perf_bw_report *r, unsigned int idx,
			 uint8_t out[8])
{
	/* hton_long() of the u64s, hton_double() (a byte swap) of the doubles */
	uint64_t v = 0;

	switch (idx) {
	case 0:
		v = r->size;
		break;
	case 1:
		v = r->iters;
		break;
	case 2:
		v = dbl_bits(r->bw_peak);
		break;
	case 3:
		v = dbl_bits(r->bw_avg);
		break;
	case 4:
		v = dbl_bits(r->msg_rate);
		break;
	default:
		break;
	}
	be64_put(v, out);
}

void
perf_report_field_parse(struct perf_bw_report *r, unsigned int idx,
			const uint8_t in[8])
{
	uint64_t v = be64_get(in);

	switch (idx) {
	case 0:
		r->size = v;
		break;
	case 1:
		r->iters = v;
		break;
	case 2:
		r->bw_peak = bits_dbl(v);
		break;
	case 3:
		r->bw_avg = bits_dbl(v);
		break;
	case 4:
		r->msg_rate = bits_dbl(v);
		break;
	default:
		break;
	}
}

int
pp_msg_format(uint32_t lid, uint32_t qpn, uint32_t psn, const uint8_t gid[16],
	      char msg[PP_MSG_LEN])
{
	char hex[33];
	unsigned int i;
	int n;

	if (lid > 0xffff || qpn > 0xffffff || psn > 0xffffff)
		return -EINVAL;
	/* gid_to_wire_gid(): each 32-bit word through htobe32, i.e. the
	 * 16 bytes in order on any host */
	for (i = 0; i < 16; i++)
		snprintf(&hex[2 * i], 3, "%02x", gid[i]);
	n = snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:%s", lid, qpn, psn, hex);
	return n == PP_MSG_LEN - 1 ? 0 : -EINVAL;
}

int
pp_msg_parse(const char msg[PP_MSG_LEN], uint32_t *lid, uint32_t *qpn,
	     uint32_t *psn, uint8_t gid[16])
{
	const char *p = msg, *end = msg + PP_MSG_LEN - 1;
	uint64_t l, q, s;
	uint8_t g[16];
	unsigned int i;
	uint64_t b;
	char c[4];

	if (hex_field(&p, end, 4, &l) != 0 || hex_field(&p, end, 6, &q) != 0 ||
	    hex_field(&p, end, 6, &s) != 0)
		return -EINVAL;
	if (end - p != 32 || *end != '\0')
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		const char *cp = c;

		c[0] = p[2 * i];
		c[1] = p[2 * i + 1];
		c[2] = ':';
		c[3] = '\0';
		if (hex_field(&cp, c + 3, 2, &b) != 0)
			return -EINVAL;
		g[i] = (uint8_t)b;
	}
	*lid = (uint32_t)l;
	*qpn = (uint32_t)q;
	*psn = (uint32_t)s;
	memcpy(gid, g, 16);
	return 0;
}
