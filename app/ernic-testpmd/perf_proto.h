/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ERNIC_TESTPMD_PERF_PROTO_H
#define ERNIC_TESTPMD_PERF_PROTO_H

/**
 * @file
 * Byte formats of the TCP side channels of perftest (ib_*_bw, ib_*_lat)
 * and of rdma-core's ibv_rc_pingpong, as documented in
 * ../shared/tools/rxe-peer/README.md ("Side-channel formats") and checked
 * against perftest v4.5-0.17 (version string "6.06") and rdma-core v44.
 * Pure functions: no I/O, no EAL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** perftest version we announce (configure.ac AC_INIT of v4.5-0.17). */
#define PERF_VERSION "6.06"

enum {
	PERF_VERSION_LEN = 16,		/**< MAX_VERSION: NUL-padded string */
	PERF_KEY_MSG_LEN = 108,		/**< KEY_MSG_SIZE_GID */
	PERF_MTU_MSG_LEN = 2,		/**< "%d" of the ibv_mtu enum + NUL */
	PERF_REPORT_FIELDS = 5,		/**< size, iters, peak, avg, msgRate */
	PERF_DONE_LEN = 5,		/**< "done" + NUL */
	PERF_DEF_PORT = 18515,		/**< DEF_PORT of both tools */
	PERF_CYCLE_BUFFER = 4096,	/**< sysconf(_SC_PAGESIZE) */
	PERF_CACHE_LINE = 64,		/**< DEF_CACHE_LINE_SIZE */
	PP_MSG_LEN = 52,		/**< ibv_rc_pingpong "%04x:%06x:%06x:%s" */
	PERF_DEST_BIN_LEN = 56,		/**< sizeof(struct pingpong_dest) on x86-64 */
};

/** One side's QP description (perftest struct pingpong_dest, text part). */
struct perf_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
};

/** The bandwidth report the client sends to the server (struct bw_report_data). */
struct perf_bw_report {
	uint64_t size;
	uint64_t iters;
	double bw_peak;
	double bw_avg;
	double msg_rate;
};

/**
 * Format the 108-byte key message
 * "%04x:%04x:%06x:%06x:%08x:%016llx:" + 16 x "%02x:" + "%08x:" + NUL.
 * @return 0, or -EINVAL when a field does not fit its width.
 */
int perf_key_format(const struct perf_dest *d, char msg[PERF_KEY_MSG_LEN]);

/** Parse a key message; -EINVAL (and *d unchanged) when malformed. */
int perf_key_parse(const char msg[PERF_KEY_MSG_LEN], struct perf_dest *d);

/**
 * The binary key message of perftest's rdma_cm side channel (-R/-z:
 * rdma_write_keys(), HAVE_ENDIAN): struct pingpong_dest with every field
 * big-endian, x86-64 layout: lid, out_reads, qpn, psn, rkey (4 bytes each
 * at 0..19), 4 bytes of padding, vaddr (8 at 24), gid (16 at 32), srqn (4 at
 * 48), gid_index (4 at 52). Padding is written as zeros.
 */
void perf_dest_bin_format(const struct perf_dest *d, int32_t gid_index,
			  uint8_t msg[PERF_DEST_BIN_LEN]);

/**
 * Parse a binary key message (rdma_read_keys() reads lid, out_reads, qpn,
 * psn, rkey, vaddr and gid; srqn is taken too).
 * @return 0, or -EINVAL when qpn or psn do not fit 24 bits.
 */
int perf_dest_bin_parse(const uint8_t msg[PERF_DEST_BIN_LEN],
			struct perf_dest *d);

/** The 16-byte version message: @p ver NUL-padded. */
void perf_version_format(const char *ver, char msg[PERF_VERSION_LEN]);

/**
 * True when the peer's version is one we can talk to: perftest's
 * check_version_compatibility() refuses anything below 5.70.
 */
bool perf_version_ok(const char msg[PERF_VERSION_LEN]);

/** The 2-byte MTU message: the ibv_mtu enum (1..5) as text + NUL. */
int perf_mtu_format(unsigned int mtu_code, char msg[PERF_MTU_MSG_LEN]);

/** Parse an MTU message; returns the code 1..5 or -EINVAL. */
int perf_mtu_parse(const char msg[PERF_MTU_MSG_LEN]);

/** A 4-byte big-endian int (cycle_buffer, cache_line_size). */
void perf_be32_format(int32_t v, uint8_t msg[4]);
int32_t perf_be32_parse(const uint8_t msg[4]);

/**
 * Encode field @p idx (0..4) of a report as the 8 big-endian bytes that
 * xchg_bw_reports() writes (u64 size, u64 iters, then three doubles).
 */
void perf_report_field_format(const struct perf_bw_report *r, unsigned int idx,
			      uint8_t out[8]);
/** Decode field @p idx into @p r. */
void perf_report_field_parse(struct perf_bw_report *r, unsigned int idx,
			     const uint8_t in[8]);

/** ibv_rc_pingpong message: "%04x:%06x:%06x:%s" + 32 hex GID digits + NUL. */
int pp_msg_format(uint32_t lid, uint32_t qpn, uint32_t psn,
		  const uint8_t gid[16], char msg[PP_MSG_LEN]);
/** Parse an ibv_rc_pingpong message; -EINVAL when malformed. */
int pp_msg_parse(const char msg[PP_MSG_LEN], uint32_t *lid, uint32_t *qpn,
		 uint32_t *psn, uint8_t gid[16]);

#endif /* ERNIC_TESTPMD_PERF_PROTO_H */
