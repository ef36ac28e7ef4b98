#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DCQCN end to end with the real binary (doc/guides/congestion.rst):
# ernic-testpmd --loopback between two net_ernic ports over a memif pair,
# the server's port behind a net_fault bottleneck (a 500 Mbit/s switch
# port, 2 MiB queue, RED/ECN marking from 32 to 256 KiB). Two flows
# (write_bw -q 2, the bottleneck on what the server receives) must make it
# mark CE, the server send CNPs, the client's QPs receive them and cut
# their DCQCN rate below the line rate and their ECN window, the queue
# peak stay within its limit and every message complete. Then read_bw
# with the bottleneck on the READ responses (what the server sends): the
# server, the responder, receives the CNPs and paces its READ responses,
# and the client's window takes the marks. Nothing is timed: only
# counters are checked. The bottleneck is under the server's port, the
# memif client. A crash at exit fails the run (exit status): ernic-testpmd
# stops every port before closing any, which a memif pair in one process
# needs (doc/guides/pmd.rst, memif).
#
# Usage: app_cc_bneck.sh path/to/ernic-testpmd
set -u
bin=${1:?usage: app_cc_bneck.sh path/to/ernic-testpmd}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# Local ACK timeout (-u) and wall-clock limit: 1.07 s ACK timeouts here
# (-u 18). With a 512 KiB queue the bottleneck tail-drops while the first
# CNPs are on their way (two windows at memory speed), and go-back-N
# recovers a lost tail by the ACK timer: perftest's 67 ms default (-u 14)
# on a loaded machine then ran out of retries (RETRY_EXC_ERR) in about 1
# run of 10. The 2 MiB queue here holds the windows (peak ~550 KB
# measured); SOFTERNIC_QP_TIMEOUT sets the exponent.
qpt=${SOFTERNIC_QP_TIMEOUT:-18}
perf=(-u "$qpt")
wall=$((300 + 8 * (4096 << qpt) / 1000000000))

fail() {
	echo "FAIL: $*"
	sed 's/^/    | /' "$dir/out"
	fails=$((fails + 1))
}

# The DCQCN paper's reaction point (conf/dcqcn.ini), a 10 Gbit/s line rate.
cc=np_min_time_between_cnps=50,rp_rate_reduce_monitor_period=50,rp_time_reset=55,rp_dce_tcp_rtt=55,rp_dce_tcp_g=1020,rp_ai_rate=40,rp_hai_rate=400,line_rate=10000
line=10000
qkb=2048

# run NAME FAULT_DIR MODE FLAGS...: the loopback through the bottleneck
run() {
	local name=$1 fdir=$2
	shift 2
	timeout $wall "$bin" -l 0-1 --no-huge -m 1024 --no-pci --no-telemetry \
		--file-prefix="ernic-ccb$$" --log-level=lib.eal:error \
		--vdev="net_memif0,role=server,id=0,socket=$dir/m.sock,bsize=2048" \
		--vdev="net_memif1,role=client,id=0,socket=$dir/m.sock,bsize=2048" \
		--vdev="net_fault0,port=net_memif1,dir=$fdir,rate_mbps=500,queue_kb=$qkb,ecn_kmin_kb=32,ecn_kmax_kb=256,ecn_pmax=10,seed=7" \
		--vdev="net_ernic0,port=net_memif0,ip=198.18.0.1,mac=02:00:c6:12:00:01,pmtu=1024,$cc" \
		--vdev="net_ernic1,port=net_fault0,ip=198.18.0.2,mac=02:00:c6:12:00:02,pmtu=1024,$cc" \
		-- "$@" --loopback ${perf[@]+"${perf[@]}"} >"$dir/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: exit status $rc"
		return 1
	fi
	if ! grep -qE '^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+' "$dir/out"; then
		fail "$name: no result row (the messages did not complete)"
		return 1
	fi
	return 0
}

# field LINE_REGEX KEY: the value of KEY= on the first line matching
field() {
	grep -E "$1" "$dir/out" | head -1 | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

check_common() {
	local name=$1 np=$2 rp=$3 bdir=$4 v
	v=$(field "^cc: port [0-9]+ \\($np\\)" rx_ce)
	[ "${v:-0}" -gt 0 ] || fail "$name: the $np saw no CE mark (rx_ce=$v)"
	v=$(field "^cc: port [0-9]+ \\($np\\)" tx_cnp)
	[ "${v:-0}" -gt 0 ] || fail "$name: the $np sent no CNP (tx_cnp=$v)"
	v=$(field "^cc: port [0-9]+ \\($rp\\)" rx_cnp)
	[ "${v:-0}" -gt 0 ] || fail "$name: the $rp received no CNP (rx_cnp=$v)"
	v=$(field "^cc: bottleneck net_fault0 shaping=$bdir " ecn_marked)
	[ "${v:-0}" -gt 0 ] || fail "$name: the bottleneck marked nothing"
	v=$(field "^cc: bottleneck net_fault0 shaping=$bdir " queue_peak)
	{ [ -n "$v" ] && [ "$v" -gt 0 ] && [ "$v" -le $((qkb * 1024)) ]; } ||
		fail "$name: queue peak $v outside (0, $((qkb * 1024))]"
	[ "${v:-0}" -lt $((qkb * 1024)) ] ||
		fail "$name: the queue filled up ($v B): DCQCN did not hold it"
}

# two flows, WRITE: the client's QPs are the reaction points
if run "write_bw -q 2" rx write_bw -q 2 -s 65536 -n 300; then
	check_common "write_bw -q 2" server client rx
	n=$(grep -cE '^cc: flow [12] client ' "$dir/out")
	[ "$n" -eq 2 ] || fail "write_bw -q 2: $n client flow lines, expected 2"
	for f in 1 2; do
		c=$(field "^cc: flow $f client " cnp_rx)
		k=$(field "^cc: flow $f client " rate_cuts)
		m=$(field "^cc: flow $f client " min_rate_mbps)
		{ [ "${c:-0}" -gt 0 ] && [ "${k:-0}" -gt 0 ] &&
		  [ "${m:-$line}" -lt $line ]; } ||
			fail "write_bw flow $f: cnp_rx=$c rate_cuts=$k min_rate_mbps=$m (expected CNPs, cuts, a rate below $line)"
		w=$(field "^cc: flow $f client " window)
		k=$(field "^cc: flow $f client " window_cuts)
		{ [ "${w:-0}" -eq 1 ] && [ "${k:-0}" -gt 0 ]; } ||
			fail "write_bw flow $f: window=$w window_cuts=$k (expected the ECN window to run and cut)"
	done
	[ $fails -eq 0 ] && { echo "ok: write_bw -q 2 through the bottleneck"; grep '^cc: ' "$dir/out"; }
fi

# READ: the responses cross the bottleneck; the server's QP paces them
f0=$fails
if run "read_bw" tx read_bw -s 65536 -n 300; then
	check_common "read_bw" client server tx
	c=$(field "^cc: flow 1 server " cnp_rx)
	k=$(field "^cc: flow 1 server " rate_cuts)
	s=$(field "^cc: flow 1 server " resp_pace_stalls)
	{ [ "${c:-0}" -gt 0 ] && [ "${k:-0}" -gt 0 ] && [ "${s:-0}" -gt 0 ]; } ||
		fail "read_bw: responder cnp_rx=$c rate_cuts=$k resp_pace_stalls=$s (expected CNPs, cuts, paced responses)"
	k=$(field "^cc: flow 1 client " rate_cuts)
	[ "${k:-1}" -eq 0 ] ||
		fail "read_bw: the requester cut its own rate ($k): the responder reacts"
	# the requester's window takes the marks on the data it asked for;
	# the responder has nothing of its own in flight
	w=$(field "^cc: flow 1 client " window)
	k=$(field "^cc: flow 1 client " window_cuts)
	{ [ "${w:-0}" -eq 1 ] && [ "${k:-0}" -gt 0 ]; } ||
		fail "read_bw: requester window=$w window_cuts=$k (expected its ECN window to cut)"
	w=$(field "^cc: flow 1 server " window)
	[ "${w:-1}" -eq 0 ] || fail "read_bw: the responder's window runs ($w)"
	[ $fails -eq $f0 ] && { echo "ok: read_bw, READ responses paced by the responder"; grep '^cc: ' "$dir/out"; }
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all congestion checks passed"
