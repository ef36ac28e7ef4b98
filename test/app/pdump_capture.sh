#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Capture of RoCE traffic with dpdk-dumpcap (Debian package dpdk):
# ernic-testpmd -i --loopback runs as a multi-process primary (--file-prefix,
# huge pages; it calls rte_pdump_init()), dpdk-dumpcap attaches as a
# secondary with the net_ernic driver preloaded (it loads only the PMDs of
# its own PMD directory), lists the ports, then two captures run at once:
#   1. on net_ernic_lb0: the RoCE frames the workers send and receive are
#      mirrored to the port's own pdump callbacks;
#   2. on the underlying port by name (net_ring_lb_ring0): owned ports are
#      not listed but can be named.
# The traffic (write_bw -n) starts once both capture, through the primary's
# command line on a FIFO; the captures are stopped (SIGINT) only after it
# ended. DPDK 22.11's rte_pdump removes its callbacks without waiting for
# lcores inside them and dumpcap frees its mempool right after: stopping a
# capture under traffic on CPUs the lcores share (this 2-CPU machine) can
# crash the primary, with any ethdev port (doc/guides/pmd.rst, "Capture").
# The primary must exit 0. Both captures must hold RDMA WRITEs from
# 198.18.0.1 and ACKs from 198.18.0.2 with valid ICRCs (pcap_icrc_check)
# and decode as InfiniBand BTH in tshark. SKIP (77) without root, dumpcap,
# tshark or huge pages.
#
# Usage: pdump_capture.sh ernic-testpmd librte_net_ernic.so pcap_icrc_check
set -u
bin=${1:?usage: pdump_capture.sh ernic-testpmd librte_net_ernic.so pcap_icrc_check}
so=${2:?} check=${3:?}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (huge pages, multi-process)"
command -v dpdk-dumpcap >/dev/null || skip "no dpdk-dumpcap (apt-get install dpdk)"
command -v tshark >/dev/null || skip "no tshark"
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
[ "${free:-0}" -ge 128 ] || skip "fewer than 128 free 2 MB huge pages"
# the pages are usable only through a hugetlbfs mount: make one for the run
# when the machine has none (removed again at exit)
mounted=
if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
	mounted=$(mktemp -d /tmp/pdump_huge.XXXXXX)
	mount -t hugetlbfs -o pagesize=2M nodev "$mounted" ||
		skip "no hugetlbfs mount and none can be made"
fi

work=$(mktemp -d)
prefix=ernic_cap_$$
pid=
cap_pids=()
cleanup() {
	local c
	for c in "${cap_pids[@]}"; do
		kill "$c" 2>/dev/null && wait "$c" 2>/dev/null
	done
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	# the primary's huge page files and runtime directory stay behind
	rm -rf "$work" "/var/run/dpdk/$prefix" /dev/hugepages/"$prefix"map_*
	if [ -n "$mounted" ]; then
		umount "$mounted" && rmdir "$mounted"
	fi
}
trap cleanup EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# An instrumented driver (-Dsanitize=true) needs the sanitizer runtimes
# before everything else in the process, and dpdk-dumpcap (Debian's, not
# instrumented) does not link them: preload them ahead of the driver, in
# the order the driver names them.
preload=
for lib in $(ldd "$so" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ { print $3 }'); do
	preload="$preload $lib"
done
preload="${preload# }${preload:+ }$so"
[ "$preload" = "$so" ] || echo "note: preloading $preload"
supp=$(cd "$(dirname "$0")" && pwd)/lsan-dumpcap.supp
# dpdk-dumpcap as a secondary of the primary: env execs timeout, which
# forwards SIGINT, so "${dumpcap[@]} ... &" leaves in $! the process to
# stop; the port listing gets a shorter limit
dumpcap_env=(env LD_PRELOAD="$preload"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$supp")
dumpcap=("${dumpcap_env[@]}" timeout 90 dpdk-dumpcap --file-prefix "$prefix")

# wait_for FILE PATTERN SECONDS: until FILE holds a line matching PATTERN
wait_for() {
	local i
	for i in $(seq 1 $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# --base-virtaddr: the secondary maps the primary's memory at the same
# addresses. Left to itself the primary reserves them near the top of the
# address space, among the libraries, where a secondary with the ASan
# runtime preloaded finds them taken ("Cannot get a virtual area at
# requested address"); 0x300000000000 lies in ASan's high application
# range (above its shadow, x86_64) and is free in both.
mkfifo "$work/cmd"
"$bin" -l 0-1 -m 200 --file-prefix "$prefix" --no-pci \
	--base-virtaddr 0x300000000000 \
	--log-level=lib.eal:error -- -i --loopback \
	<"$work/cmd" >"$work/testpmd.log" 2>&1 &
pid=$!
# the primary's command line: held open here until "quit"
exec 3>"$work/cmd"

# the primary is up once it prompts; a secondary started before that, or
# after the primary failed, waits for it without end
if ! wait_for "$work/testpmd.log" "ernic> " 30 || ! kill -0 "$pid" 2>/dev/null; then
	echo "FAIL: ernic-testpmd did not come up:"
	tail -20 "$work/testpmd.log"
	exit 1
fi
for _ in $(seq 1 10); do
	"${dumpcap_env[@]}" timeout 20 dpdk-dumpcap --file-prefix "$prefix" \
		-D >"$work/list.txt" 2>&1 &&
		grep -q net_ernic_lb0 "$work/list.txt" && break
	sleep 0.2
done
if grep -q '^[0-9]*\. net_ernic_lb0$' "$work/list.txt" &&
   grep -q '^[0-9]*\. net_ernic_lb1$' "$work/list.txt"; then
	echo "ok: dpdk-dumpcap -D lists net_ernic_lb0 and net_ernic_lb1"
else
	fail "dpdk-dumpcap -D does not list the net_ernic ports"
	cat "$work/list.txt"
fi
grep -q 'net_ring_lb_ring0' "$work/list.txt" &&
	fail "the owned underlying port is listed"

# the captures: classic pcap, whole frames, until SIGINT
for spec in net_ernic_lb0:ernic net_ring_lb_ring0:under; do
	"${dumpcap[@]}" -i "${spec%%:*}" -P -w "$work/${spec#*:}.pcap" \
		>"$work/dumpcap-${spec#*:}.log" 2>&1 &
	cap_pids+=($!)
done
# dumpcap says "File: ..." (stderr) when its output is open, just before it
# asks the primary for the callbacks; its "Capturing on" is on stdout,
# buffered until it exits
for f in ernic under; do
	wait_for "$work/dumpcap-$f.log" "^File: " 20 ||
		fail "dpdk-dumpcap ($f) did not start"
done
sleep 1

echo "start write_bw -n 5000 -s 1024 --loopback" >&3
wait_for "$work/testpmd.log" "^write_bw \(done\|stopped\|failed\)" 60 ||
	fail "write_bw did not end within 60 s"
grep -q "^write_bw done" "$work/testpmd.log" || fail "write_bw did not complete"
# traffic over: no lcore runs a pdump callback while the captures stop
i=0
for f in ernic under; do
	kill -INT "${cap_pids[$i]}" 2>/dev/null
	if wait "${cap_pids[$i]}"; then
		grep "^Packets received/dropped" "$work/dumpcap-$f.log"
	else
		fail "dpdk-dumpcap ($f) exit status $?"
		cat "$work/dumpcap-$f.log"
	fi
	i=$((i + 1))
done
cap_pids=()

echo quit >&3
exec 3>&-
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || { fail "ernic-testpmd exit status $rc"; tail -20 "$work/testpmd.log"; }
grep -E '^ [0-9]+ ' "$work/testpmd.log" | head -1

# verify FILE MIN
verify() {
	local f=$1 min=$2 n
	if "$check" --min "$min" --require-src 198.18.0.1 --require-src 198.18.0.2 \
		"$f" >"$work/check.txt" 2>&1; then
		echo "ok: $(basename "$f"): $(grep '^ICRC verified' "$work/check.txt")"
	else
		fail "pcap_icrc_check $(basename "$f")"
		cat "$work/check.txt"
	fi
	n=$(tshark -r "$f" -Y 'infiniband.bth.opcode == 10 && ip.src == 198.18.0.1' 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || fail "tshark: no RDMA WRITE Only from 198.18.0.1 in $(basename "$f")"
	n=$(tshark -r "$f" -Y 'infiniband.bth.opcode == 17 && ip.src == 198.18.0.2' 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || fail "tshark: no ACK from 198.18.0.2 in $(basename "$f")"
	echo "ok: tshark decodes $(tshark -r "$f" -Y infiniband.bth 2>/dev/null | wc -l) BTH frames in $(basename "$f")"
}
verify "$work/ernic.pcap" 500
verify "$work/under.pcap" 500

[ $fails -eq 0 ] && echo PASS || echo "FAILED: $fails"
[ $fails -eq 0 ]
