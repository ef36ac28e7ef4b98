#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Capture of RoCE traffic with dpdk-dumpcap (Debian package dpdk):
# ernic-testpmd --loopback runs as a multi-process primary (--file-prefix,
# huge pages; it calls rte_pdump_init()), dpdk-dumpcap attaches as a
# secondary with the net_ernic driver preloaded (it loads only the PMDs of
# its own PMD directory), lists the ports, then captures
#   1. on net_ernic_lb0: the RoCE frames the workers send and receive are
#      mirrored to the port's own pdump callbacks;
#   2. on the underlying port by name (net_ring_lb_ring0): owned ports are
#      not listed but can be named.
# Both captures must hold RDMA WRITEs from 198.18.0.1 and ACKs from
# 198.18.0.2 with valid ICRCs (pcap_icrc_check) and decode as InfiniBand
# BTH in tshark. SKIP (77) without root, dumpcap, tshark or huge pages.
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

work=$(mktemp -d)
prefix=ernic_cap_$$
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	# the primary's huge page files and runtime directory stay behind
	rm -rf "$work" "/var/run/dpdk/$prefix" /dev/hugepages/"$prefix"map_*
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
dumpcap() {
	LD_PRELOAD=$preload \
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$supp" \
		timeout 30 dpdk-dumpcap --file-prefix "$prefix" "$@"
}

# --base-virtaddr: the secondary maps the primary's memory at the same
# addresses. Left to itself the primary reserves them near the top of the
# address space, among the libraries, where a secondary with the ASan
# runtime preloaded finds them taken ("Cannot get a virtual area at
# requested address"); 0x300000000000 lies in ASan's high application
# range (above its shadow, x86_64) and is free in both.
"$bin" -l 0-1 -m 200 --file-prefix "$prefix" --no-pci \
	--base-virtaddr 0x300000000000 \
	--log-level=lib.eal:error -- write_bw --loopback -D 15 -s 1024 \
	>"$work/testpmd.log" 2>&1 &
pid=$!

# the primary is up once a secondary can list its ports
for _ in $(seq 1 50); do
	dumpcap -D >"$work/list.txt" 2>&1 && grep -q net_ernic_lb0 "$work/list.txt" && break
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

# capture NAME FILE COUNT: classic pcap, whole frames
capture() {
	dumpcap -i "$1" -P -w "$2" -c "$3" -q >"$work/dumpcap-$1.log" 2>&1 ||
		{ fail "dpdk-dumpcap -i $1 failed"; cat "$work/dumpcap-$1.log"; return 1; }
}

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

# both captures while the benchmark runs, then the checks
capture net_ernic_lb0 "$work/ernic.pcap" 2000 && ok_ernic=1
capture net_ring_lb_ring0 "$work/under.pcap" 500 && ok_under=1
[ -n "${ok_ernic:-}" ] && verify "$work/ernic.pcap" 2000
[ -n "${ok_under:-}" ] && verify "$work/under.pcap" 500

wait "$pid"
rc=$?
pid=
# a loaded 2-core machine may starve the loopback while dumpcap spins
[ $rc -eq 0 ] || echo "note: ernic-testpmd exit status $rc (capture checks above decide)"
grep -E '^ [0-9]+ ' "$work/testpmd.log" | head -1
[ $fails -eq 0 ] && echo PASS || echo "FAILED: $fails"
[ $fails -eq 0 ]
