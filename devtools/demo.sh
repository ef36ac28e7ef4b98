#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's main command: install what is missing, build, reserve huge
# pages (or fall back to --no-huge), then run the main job. Idempotent and
# quiet when nothing is missing; exits non-zero on any failure.
#
# Usage: devtools/demo.sh [main job options...]
#   e.g. devtools/demo.sh --time 1000     (options after EAL's `--`)
# Environment: BUILD_DIR (default build), DEMO_HUGEPAGES (2 MB pages to
# reserve, default 1024), DEMO_HUGEPAGES_MIN (free pages needed to use
# them, default 256).
#
# The main job: the ICRC self-check of the shared vectors (ernic-selfcheck,
# a fraction of a second), then a RoCEv2 benchmark between two net_ernic
# ports in one process (ernic-testpmd --loopback over an in-memory net_ring
# pair, doc/guides/ernic-testpmd.rst): RDMA WRITE bandwidth over every message
# size 2 B..8 MB, then SEND latency and RDMA READ bandwidth briefly. The
# tables are perftest's. Options given to demo.sh go to the write_bw run.
# Last, Debian's own ib_write_bw, unmodified, between two processes over
# the verbs provider (libernic_verbs.so, doc/guides/verbs.rst).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
huge_want=${DEMO_HUGEPAGES:-1024}
huge_min=${DEMO_HUGEPAGES_MIN:-256}
huge_sys=/sys/kernel/mm/hugepages/hugepages-2048kB

# EAL arguments shared by every job: one lcore, quiet EAL, no telemetry
# socket, and memory arguments filled in by setup_memory.
eal_common=(-l 0 --log-level=lib.eal:error --no-telemetry)
eal_mem=()

# Free 2 MB pages (0 when the kernel has none).
huge_free() {
	if [ -r "$huge_sys/free_hugepages" ]; then
		cat "$huge_sys/free_hugepages"
	else
		awk '/^HugePages_Free:/ { print $2; exit }' /proc/meminfo
	fi
}

# Is there a hugetlbfs mount serving 2 MB pages?
huge_mounted() {
	local def
	def=$(awk '/^Hugepagesize:/ { print $2; exit }' /proc/meminfo)
	awk -v def="$def" '$3 == "hugetlbfs" &&
		($4 ~ /pagesize=2M/ || ($4 !~ /pagesize=/ && def == 2048)) {
		found = 1 } END { exit !found }' /proc/mounts
}

# Reserve 2 MB huge pages when root; choose EAL memory arguments and say
# which in one line. Hugepage mode runs --in-memory (no shared config, no
# hugepage files left behind) so concurrent DPDK processes do not clash.
setup_memory() {
	local nr_file=/proc/sys/vm/nr_hugepages why=""

	[ -w "$huge_sys/nr_hugepages" ] && nr_file=$huge_sys/nr_hugepages
	if [ "$(id -u)" -ne 0 ]; then
		why="not root"
	else
		if [ "$(cat "$nr_file" 2>/dev/null || echo 0)" -lt "$huge_want" ]; then
			echo "$huge_want" >"$nr_file" 2>/dev/null || true
		fi
		if ! huge_mounted; then
			mkdir -p /dev/hugepages 2>/dev/null &&
				mount -t hugetlbfs -o pagesize=2M nodev \
					/dev/hugepages 2>/dev/null || true
		fi
		if [ "$(huge_free)" -lt "$huge_min" ]; then
			why="only $(huge_free) free 2 MB pages (want $huge_min)"
		elif ! huge_mounted; then
			why="no hugetlbfs mount for 2 MB pages"
		fi
	fi
	if [ -z "$why" ]; then
		eal_mem=(--in-memory -m 512)
		echo "demo: memory: $(huge_free) free 2 MB huge pages, EAL --in-memory -m 512"
	else
		eal_mem=(--no-huge -m 1024 --no-shconf)
		echo "demo: memory: $why, EAL --no-huge -m 1024"
	fi
}

# The job the demo exists for. ernic-testpmd --loopback needs two lcores:
# the client polls its port on the main lcore, the server its own on the
# second (on this 2-core machine, -l 0-1).
run_main_job() {
	local tp=("$build_dir/app/ernic-testpmd" -l 0-1
		--log-level=lib.eal:error --no-telemetry "${eal_mem[@]}" --no-pci --)

	"$build_dir/app/ernic-selfcheck" "${eal_common[@]}" "${eal_mem[@]}" \
		--no-pci -- --no-bench
	echo "demo: ib_write_bw over all sizes, in one process (ernic-testpmd write_bw --loopback -a)"
	"${tp[@]}" write_bw --loopback -a -n 100 --report_gbits "$@"
	echo "demo: ib_send_lat, 64 bytes (ernic-testpmd send_lat --loopback)"
	"${tp[@]}" send_lat --loopback -s 64 -n 2000
	echo "demo: ib_read_bw, 64 KiB (ernic-testpmd read_bw --loopback)"
	"${tp[@]}" read_bw --loopback -s 65536 -n 1000 --report_gbits
	run_stock_tool
}

# Debian's ib_write_bw over libernic_verbs.so: the server on
# conf/verbs-pair-a.ini, the client on -b.ini, a net_memif link between
# them and perftest's TCP side channel on 127.0.0.1. The server's table is
# the same as the client's: only the client's is shown.
run_stock_tool() {
	# the side channel's port lies below the ephemeral range (32768-60999)
	local lib=$build_dir/lib/verbs/libernic_verbs.so port=$((10000 + $$ % 20000))
	local out spid rc=0

	echo "demo: Debian's ib_write_bw, unmodified, between two processes over libernic_verbs.so (4 KiB)"
	out=$(mktemp)
	SOFTERNIC_CONFIG=conf/verbs-pair-a.ini LD_PRELOAD=$PWD/$lib \
		timeout 60 ib_write_bw -x 1 -s 4096 -n 100000 -N --report_gbits \
		-p "$port" >/dev/null 2>"$out.srv" &
	spid=$!
	sleep 1
	SOFTERNIC_CONFIG=conf/verbs-pair-b.ini LD_PRELOAD=$PWD/$lib \
		timeout 60 ib_write_bw -x 1 -s 4096 -n 100000 -N --report_gbits \
		-p "$port" 127.0.0.1 >"$out" 2>"$out.cli" || rc=$?
	wait "$spid" || rc=$?
	grep -v '^ *$' "$out" || true
	if [ $rc -ne 0 ]; then
		echo "demo: ib_write_bw over the verbs provider failed:" >&2
		cat "$out.srv" "$out.cli" >&2
	fi
	rm -f "$out" "$out.srv" "$out.cli"
	return $rc
}

main() {
	devtools/deps.sh build verbs
	devtools/build.sh
	setup_memory
	run_main_job "$@"
}

main "$@"
