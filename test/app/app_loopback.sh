#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ernic-testpmd --loopback, the real binary: every traffic mode between two
# net_ernic ports in one process (the built-in net_ring pair), --no-huge,
# small iteration counts. Checks exit status 0 and a well-formed perftest
# table (the column titles, then one row per size with numbers in every
# column), the JSON rows, -R (rdma_cm), exit status 2 for a bad flag and 1
# for buffers beyond the machine's memory. Then the same
# through --config conf/loopback.ini ($SOFTERNIC_CONF): its [eal] args
# and [test], -n overridden on the command line; a missing file exits 2.
#
# Usage: app_loopback.sh path/to/ernic-testpmd
set -u
bin=${1:?usage: app_loopback.sh path/to/ernic-testpmd}
eal=(-l 0-1 --no-huge -m 1024 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.ernic:warning)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0

# Local ACK timeout of the perftest modes (-u), and the wall-clock limit of
# a run derived from it. An ASan build (-Dsanitize=true) runs several times
# slower, and on a loaded CI machine a poll loop descheduled for longer than
# timeout x (retry_count + 1) (67 ms x 8 by default) ends a run in
# RETRY_EXC_ERR: there the QPs get -u 18 (1.07 s x 8 = 8.6 s without
# progress before that error). SOFTERNIC_QP_TIMEOUT sets the exponent.
qpt=${SOFTERNIC_QP_TIMEOUT:-}
if [ -z "$qpt" ] && ldd "$bin" 2>/dev/null | grep -q 'libasan'; then
	qpt=18
fi
perf=()
[ -n "$qpt" ] && perf=(-u "$qpt")
# limit: 120 s of work plus one whole retry budget (8 timeouts)
wall=$((120 + 8 * (4096 << ${qpt:-14}) / 1000000000))

fail() {
	echo "FAIL: $*"
	sed 's/^/    | /' "$out"
	fails=$((fails + 1))
}

# run NAME ROWS_EXPECTED ROW_REGEX MODE FLAGS...
run() {
	local name=$1 rows=$2 re=$3 got rc extra=()
	shift 3
	case $1 in
	pingpong|integrity) ;;	# ibv_rc_pingpong's flags: no -u
	*) extra=("${perf[@]}") ;;
	esac
	timeout $wall "$bin" "${eal[@]}" -- "$@" ${extra[@]+"${extra[@]}"} --loopback >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: exit status $rc"
		return
	fi
	got=$(grep -cE "$re" "$out")
	if [ "$got" -ne "$rows" ]; then
		fail "$name: $got result rows, expected $rows"
		return
	fi
	echo "ok: $name ($rows row(s))"
}

num='[0-9]+(\.[0-9]+)?'
bw_row="^ [0-9]+ +[0-9]+ +$num +$num[[:space:]]+$num\$"
lat_row="^ [0-9]+ +[0-9]+ +$num +$num +$num[[:space:]]+$num[[:space:]]+$num[[:space:]]+$num[[:space:]]+$num[[:space:]]*\$"

run "write_bw -a" 23 "$bw_row" write_bw -a -n 20
grep -q ' #bytes     #iterations    BW peak\[MB/sec\]    BW average\[MB/sec\]   MsgRate\[Mpps\]' "$out" ||
	fail "write_bw -a: no column titles"
grep -q '^ local address: LID 0000 QPN 0x[0-9a-f]* PSN 0x[0-9a-f]* RKey 0x[0-9a-f]* VAddr 0x[0-9a-f]*$' "$out" ||
	fail "write_bw -a: no local address line"
grep -q '^ GID: 00:00:00:00:00:00:00:00:00:00:255:255:198:18:00:02$' "$out" ||
	fail "write_bw -a: no remote GID line"
run "write_bw --report_gbits -q 2" 1 "$bw_row" write_bw -s 65536 -n 200 -q 2 --report_gbits
grep -q 'BW peak\[Gb/sec\]' "$out" || fail "--report_gbits: no Gb/sec titles"
run "read_bw" 1 "$bw_row" read_bw -s 65536 -n 200
run "send_bw" 1 "$bw_row" send_bw -s 4096 -n 500
run "send_bw -b" 1 "$bw_row" send_bw -s 1024 -n 200 -b
# -D with 16 receives per QP (and 128 SENDs in flight): the server's clock
# ends while the client still sends; it must keep reposting receives until
# the closing handshake (before: RNR for ever, the 64-QP bench rows hung)
run "send_bw -D 2 -r 16 -q 4" 1 "$bw_row" send_bw -s 64 -q 4 -D 2 -r 16
# 64 QPs of SENDs, 512 receives each against 128 in flight: with the port
# polled inline by the server, its receive CQ must be drained as fast as
# receives complete (before: 16 a poll against up to 64 received, the
# reposts fell behind, the RQs ran dry, RNR NAKs and 40 % of the packets
# resent). --xstats: no RNR NAK, no out-of-sequence drop on either port.
run "send_bw -q 64 --xstats" 1 "$bw_row" send_bw -s 4096 -q 64 -n 2000 --xstats
grep -q '^xstat net_ernic_lb1 roce_rx_accepted [0-9]' "$out" ||
	fail "send_bw --xstats: no xstat lines"
if grep -E '^xstat net_ernic_lb[01] (roce_resp_rnr_naks|roce_resp_out_of_seq|roce_resp_drop_out_of_seq|qp[0-9]+_rnr_naks_rx) ' "$out"; then
	fail "send_bw -q 64: RNR NAKs or out-of-sequence drops with receives posted"
fi
# --cycles: one line a port; the client sent the data, the server received
# it, and both worked a positive number of cycles a frame
run "write_bw --cycles" 1 "$bw_row" write_bw -s 4096 -n 2000 --cycles
for side in 'lb0 .*\(rx [0-9]+ \+ tx [1-9][0-9]{3,}\)' 'lb1 .*\(rx [1-9][0-9]{3,} \+ tx [0-9]+\)'; do
	grep -Eq "^cycles: net_ernic_$side cycles_a_frame_one_way=[1-9][0-9]* = [0-9.]+ M/s a busy worker lcore" "$out" ||
		fail "write_bw --cycles: no cycles line matching '$side'"
done
run "atomic_bw" 1 "$bw_row" atomic_bw -n 200
# -R: rdma_cm between the two ports (IB CM on QP1, comm QP, DREQ/DREP and
# timewait before the exit)
run "write_bw -R -q 2" 1 "$bw_row" write_bw -R -s 65536 -n 200 -q 2
grep -q 'Data ex. method : rdma_cm' "$out" || fail "write_bw -R: no 'Data ex. method : rdma_cm' line"
run "read_bw -R" 1 "$bw_row" read_bw -R -s 65536 -n 200
run "send_lat -R" 1 "$lat_row" send_lat -R -n 200
run "atomic_bw CMP_AND_SWAP" 1 "$bw_row" atomic_bw -n 200 -A CMP_AND_SWAP
run "write_bw --write_with_imm" 1 "$bw_row" write_bw -s 4096 -n 200 --write_with_imm
run "write_lat" 1 "$lat_row" write_lat -s 64 -n 200
grep -q 't_typical\[usec\]' "$out" || fail "write_lat: no latency titles"
run "read_lat" 1 "$lat_row" read_lat -s 64 -n 200
run "send_lat -a" 23 "$lat_row" send_lat -a -n 5
run "pingpong" 1 '^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' pingpong -n 100
# data integrity: WRITE/READ/SEND of patterned data, every byte checked
run "integrity" 1 '^integrity: PASS write=0x[0-9a-f]{16} read=0x[0-9a-f]{16} send=0x[0-9a-f]{16}$' integrity -m 4096
run "write_bw --json" 1 '^\{"test": "write_bw", "bytes": 4096, "iterations": 100, "qps": 1, "bw_peak_gbps": [0-9.]+, "bw_avg_gbps": [0-9.]+, "mpps": [0-9.]+\}$' \
	write_bw -s 4096 -n 100 --json

"$bin" "${eal[@]}" -- write_bw -s 0 --loopback >"$out" 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'bad value "0" for -s/--size' "$out"; then
	fail "bad flag: exit status $rc (expected 2 and the flag named)"
else
	echo "ok: bad flag exits 2"
fi

# buffers beyond the machine's memory (2 x 4096 QPs x 1 GiB a side): a
# clear error at once, not the OOM killer after zeroing what fits
timeout 60 "$bin" "${eal[@]}" -- write_bw -q 4096 -s 1024M -n 5 --loopback >"$out" 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q 'bytes of memory available; lower -q or the size' "$out" ||
		grep -q 'busy' "$out"; then
	fail "buffers beyond memory: exit status $rc (expected 1, the sizes named, the ports closed)"
else
	echo "ok: buffers beyond memory exit 1 at once"
fi

conf=${SOFTERNIC_CONF:-$(dirname "$0")/../../conf}
timeout $wall "$bin" -- --config "$conf/loopback.ini" -n 20 ${perf[@]+"${perf[@]}"} >"$out" 2>&1
rc=$?
got=$(grep -cE "$bw_row" "$out")
if [ $rc -ne 0 ]; then
	fail "--config loopback.ini: exit status $rc"
elif [ "$got" -ne 23 ] || ! grep -qE '^ 8388608 +20 ' "$out" ||
		! grep -q 'BW peak\[Gb/sec\]' "$out"; then
	fail "--config loopback.ini -n 20: $got rows (expected 23 of 20 iterations, Gb/sec)"
else
	echo "ok: --config loopback.ini -n 20 (23 row(s))"
fi

"$bin" -- --config "$conf/no-such-file.ini" >"$out" 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'no-such-file.ini: cannot read the configuration file' "$out"; then
	fail "--config missing file: exit status $rc (expected 2 and the file named)"
else
	echo "ok: --config missing file exits 2"
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all ernic-testpmd loopback checks passed"
