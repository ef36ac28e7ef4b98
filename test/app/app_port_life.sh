#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ernic-testpmd's ports from the first to the last moment, the real binary:
#
# - a net_ernic vdev that fails to probe (a bad devarg, an underlying port
#   that does not exist, a bad value in a --config file, the second of
#   two ports) ends the program with exit status 1 and one line with the
#   PMD's reason, in every run mode, before a prompt or a benchmark starts;
#   with the PMD's error lines hidden (--log-level) the line still names
#   the port;
# - a run prints no "Device with port_id=N already stopped" line (ethdev's
#   notice of a second stop) on its way out: a prompt left at once (its
#   port never started), the prompt with the loopback pair, a loopback
#   benchmark, a net_ernic port over a net_fault port (two owners give
#   their ports back at exit), a memif pair beside a port nothing used,
#   and every failed probe above.
#
# Usage: app_port_life.sh path/to/ernic-testpmd
set -u
bin=${1:?usage: app_port_life.sh path/to/ernic-testpmd}
eal=(-l 0-1 --no-huge -m 1024 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error)
dir=$(mktemp -d)
prefix="ernic-plife$$"
trap 'rm -rf "$dir" "/var/run/dpdk/$prefix"' EXIT
out=$dir/out
fails=0

fail() {
	echo "FAIL: $*"
	sed 's/^/    | /' "$out" | tail -40
	fails=$((fails + 1))
}

# probe_fails NAME REASON ARGS...: exit status 1, no prompt, no benchmark
# header, the last line "ernic-testpmd: cannot create port REASON" (REASON
# ending in "...": up to there), and no port stopped twice on the way out
probe_fails() {
	local name=$1 want="ernic-testpmd: cannot create port $2" rc last
	shift 2
	printf 'show port\nquit\n' | timeout 60 "$bin" "$@" >"$out" 2>&1
	rc=$?
	last=$(grep -v '^EAL: ' "$out" | tail -1)
	case $want in
	*...) want=${want%...}; last=${last:0:${#want}} ;;
	esac
	if [ $rc -ne 1 ]; then
		fail "$name: exit status $rc, expected 1"
	elif grep -qE 'already stopped|Device with port_id' "$out"; then
		fail "$name: a port was stopped twice"
	elif [ "$last" != "$want" ]; then
		fail "$name: last line \"$last\", expected \"$want\""
	elif grep -q 'ernic>' "$out"; then
		fail "$name: a prompt was opened"
	elif grep -qE 'RDMA_Write BW Test|bad value .* for -d' "$out"; then
		fail "$name: the run went on without the port"
	else
		echo "ok: $name"
	fi
}

ring=(--vdev=net_ring0)
pmtu_why='net_ernic0: bad devarg pmtu=100: expected one of 256, 512, 1024, 2048, 4096'
probe_fails "prompt, bad devarg" "$pmtu_why" \
	"${eal[@]}" "${ring[@]}" --vdev=net_ernic0,port=net_ring0,pmtu=100 -- -i
probe_fails "benchmark, bad devarg" "$pmtu_why" \
	"${eal[@]}" "${ring[@]}" --vdev=net_ernic0,port=net_ring0,pmtu=100 \
	-- write_bw -n 10
probe_fails "prompt, no such underlying port" \
	'net_ernic0: bad devarg port=net_nope0: no such ethdev (expected the name of an existing port, e.g. net_ring0)' \
	"${eal[@]}" --vdev=net_ernic0,port=net_nope0,ip=198.18.0.1 -- -i
probe_fails "loopback, the second port fails" \
	'net_ernic1: bad devarg workers=99: expected an integer in 1..16' \
	"${eal[@]}" --vdev=net_ring0 --vdev=net_ring1 \
	--vdev=net_ernic0,port=net_ring0,ip=198.18.0.1 \
	--vdev=net_ernic1,port=net_ring1,ip=198.18.0.2,workers=99 \
	-- write_bw --loopback -n 10
cat >"$dir/bad.ini" <<EOF
[eal]
args = ${eal[*]}
[port.wire]
vdev = net_ring0
[port.roce]
vdev = net_ernic0,port=net_ring0,ip=198.18.0.1,bogus=1
[test]
mode = write_bw
args = -n 10
EOF
probe_fails "--config, bad vdev in the file" \
	'net_ernic0: unknown devarg "bogus": expected one of port=<ethdev name> ip=...' \
	-- --config "$dir/bad.ini"
probe_fails "error lines hidden" \
	'net_ernic0: the probe failed (its reason is logged by pmd.net.ernic at level error)' \
	"${eal[@]}" --log-level=pmd.net.ernic:critical "${ring[@]}" \
	--vdev=net_ernic0,port=net_ring0,pmtu=100 -- -i

# quiet_exit NAME STDIN ARGS...: exit status 0, no second stop of a port
quiet_exit() {
	local name=$1 input=$2 rc
	shift 2
	printf '%b' "$input" | timeout 120 "$bin" "$@" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: exit status $rc"
	elif grep -qE 'already stopped|Device with port_id' "$out"; then
		fail "$name: a port was stopped twice"
	else
		echo "ok: $name exits without a second stop"
	fi
}

quiet_exit "prompt left at once" 'quit\n' \
	"${eal[@]}" "${ring[@]}" --vdev=net_ernic0,port=net_ring0,ip=198.18.0.1 \
	-- -i
quiet_exit "prompt, loopback pair" 'show stats all\nquit\n' \
	"${eal[@]}" -- -i --loopback
grep -q '^port 3: RX' "$out" || fail "prompt, loopback pair: ports not started"
quiet_exit "loopback benchmark" '' \
	"${eal[@]}" -- write_bw --loopback -n 100 -s 1024
grep -qE '^ 1024 +100 ' "$out" || fail "loopback benchmark: no result row"
quiet_exit "net_ernic over net_fault" 'show stats all\nquit\n' \
	"${eal[@]}" --vdev=net_ring0 --vdev=net_fault0,port=net_ring0,loss=1 \
	--vdev=net_ernic0,port=net_fault0,ip=198.18.0.1 -- -i
grep -qE '^port [0-9]+: RX' "$out" ||
	fail "net_ernic over net_fault: port not started"
# the third net_ernic port is never used, so never started
quiet_exit "memif pair and an idle port" '' \
	-l 0-1 --no-huge -m 1024 --no-pci --no-telemetry \
	--file-prefix="$prefix" --log-level=lib.eal:error \
	--vdev="net_memif0,role=server,id=0,socket=$dir/m.sock,bsize=2048" \
	--vdev="net_memif1,role=client,id=0,socket=$dir/m.sock,bsize=2048" \
	--vdev=net_ernic0,port=net_memif0,ip=198.18.0.1,pmtu=1024 \
	--vdev=net_ernic1,port=net_memif1,ip=198.18.0.2,pmtu=1024 \
	--vdev=net_ring0 --vdev=net_ernic2,port=net_ring0,ip=198.18.1.1 \
	-- write_bw --loopback -n 100 -s 1024
grep -qE '^ 1024 +100 ' "$out" || fail "memif pair: no result row"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all port life checks passed"
