#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two workers a port: ernic-testpmd spreads its QPs over the port's workers
# (QP i on worker i % workers). Over a net_memif pair with workers=2 on
# both net_ernic ports (--loopback, one process), write_bw and send_bw with
# 4 QPs and --check (each QP sends its own byte pattern, the receiver
# checks every byte of each QP's last message): exit 0, the check line, and
# the per-worker xstats of both workers of both ports moving. Then the
# check itself: a server with --check against a client without it (two
# processes) must report the first wrong byte and exit non-zero.
#
# Usage: app_workers.sh path/to/ernic-testpmd
set -u
bin=${1:?usage: app_workers.sh path/to/ernic-testpmd}
tmp=$(mktemp -d /tmp/app_workers.XXXXXX)
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
out=$tmp/out
fails=0
sock=$tmp/memif.sock
log='--log-level=lib.eal:error --log-level=pmd.net.memif:error'

fail() {
	echo "FAIL: $*"
	sed 's/^/    | /' "$out" | tail -40
	fails=$((fails + 1))
}

# Local ACK timeout as app_loopback.sh: longer under ASan
qpt=${SOFTERNIC_QP_TIMEOUT:-}
if [ -z "$qpt" ] && ldd "$bin" 2>/dev/null | grep -q 'libasan'; then
	qpt=18
fi
perf=()
[ -n "$qpt" ] && perf=(-u "$qpt")

cat >"$tmp/pair.ini" <<EOF
[eal]
args = -l 0-1 --no-huge -m 1024 --file-prefix=app-workers$$ --no-pci --no-telemetry $log
[port.memif-server]
vdev = net_memif0,role=server,id=0,socket=$sock,bsize=2048
[port.memif-client]
vdev = net_memif1,role=client,id=0,socket=$sock,bsize=2048
[port.ernic0]
vdev = net_ernic0,port=net_memif0,ip=198.18.0.1,mac=02:00:c6:12:00:01,pmtu=1024,workers=2
[port.ernic1]
vdev = net_ernic1,port=net_memif1,ip=198.18.0.2,mac=02:00:c6:12:00:02,pmtu=1024,workers=2
EOF

# xstat PORT NAME: its value in $out (0 when absent)
xstat() {
	awk -v p="$1" -v n="$2" '$1 == "xstat" && $2 == p && $3 == n {print $4; f=1} END {if (!f) print 0}' "$out"
}

for mode in write_bw send_bw; do
	name="$mode -q 4 --check on 2 workers"
	timeout 120 "$bin" -- --config "$tmp/pair.ini" "$mode" -s 4096 -n 200 \
		-q 4 --check --xstats --loopback ${perf[@]+"${perf[@]}"} \
		>"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: exit status $rc"
		continue
	fi
	if ! grep -q '^check: 4 QP(s) x 4096 bytes intact$' "$out"; then
		fail "$name: no check line for 4 QPs x 4096 bytes"
		continue
	fi
	bad=
	for p in net_ernic0 net_ernic1; do
		for w in 0 1; do
			for c in rx_roce tx_roce; do
				v=$(xstat $p worker${w}_$c)
				[ "$v" -gt 0 ] || bad="$bad $p:worker${w}_$c=$v"
			done
		done
	done
	if [ -n "$bad" ]; then
		fail "$name: workers without traffic:$bad"
		continue
	fi
	echo "ok: $name (client workers: $(xstat net_ernic0 worker0_tx_roce) and $(xstat net_ernic0 worker1_tx_roce) RoCE frames sent)"
done

# the check finds a wrong byte: the client sends 0x5a everywhere
# below the ephemeral range (32768-60999): no earlier client holds it
port=$((10000 + $$ % 20000))
common=(-l 0 --no-huge -m 512 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.memif:error)
timeout 60 "$bin" "${common[@]}" --file-prefix=app-workers-s$$ \
	--vdev="net_memif0,role=server,id=0,socket=$sock,bsize=2048" \
	--vdev="net_ernic0,port=net_memif0,ip=198.18.0.1,mac=02:00:c6:12:00:01,pmtu=1024" \
	-- write_bw -s 4096 -n 50 -p "$port" --check \
	${perf[@]+"${perf[@]}"} >"$out" 2>&1 &
spid=$!
sleep 1
timeout 60 "$bin" "${common[@]}" --file-prefix=app-workers-c$$ \
	--vdev="net_memif1,role=client,id=0,socket=$sock,bsize=2048" \
	--vdev="net_ernic1,port=net_memif1,ip=198.18.0.2,mac=02:00:c6:12:00:02,pmtu=1024" \
	-- write_bw -s 4096 -n 50 -p "$port" \
	${perf[@]+"${perf[@]}"} 127.0.0.1 >"$tmp/client.out" 2>&1
wait "$spid"
rc=$?
spid=
if [ $rc -eq 0 ]; then
	fail "--check against a client without it: the server exited 0"
elif ! grep -q '^check: FAIL: QP 0 (0x[0-9a-f]*) byte 0 is 0x5a, expected 0xa5$' "$out"; then
	fail "--check against a client without it: no FAIL line naming the first byte"
else
	echo "ok: --check reports the first wrong byte and exits $rc"
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all worker-spreading checks passed"
