#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# XDP steering end to end (doc/guides/xdp.rst): a veth pair between two
# network namespaces made here (198.18.10.0/24):
#   A: h5x0 198.18.10.1 (kernel) -- net_af_xdp with xdp_prog=OBJ, net_ernic
#      ip=198.18.10.11, ernic-testpmd write_bw server (its TCP side channel
#      through the kernel of the same interface)
#   B: h5x1 198.18.10.2 (kernel) -- net_af_packet, net_ernic ip=198.18.10.12,
#      ernic-testpmd write_bw client of 198.18.10.1
# While RoCE runs: B's kernel pings A's kernel and holds a TCP echo
# exchange with a listener on A's kernel address. Checks: both benchmarks
# exit 0 with a result row, no ping lost, the TCP data echoed intact, the
# program's counters (logged by net_ernic at stop) show the RoCE
# redirected and the rest passed, and A's kernel saw no RoCE (IP
# InAddrErrors unchanged: .11 is not a kernel address).
# Exit 77 when not root or without ip/ping/python3/AF_XDP.
#
# Usage: xdp_veth.sh path/to/ernic-testpmd path/to/ernic_roce_steer.bpf.o
set -u
bin=${1:?usage: xdp_veth.sh ernic-testpmd ernic_roce_steer.bpf.o}
obj=${2:?usage: xdp_veth.sh ernic-testpmd ernic_roce_steer.bpf.o}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (namespaces, XDP)"
for t in ip ping python3 timeout; do
	command -v $t >/dev/null || skip "no $t"
done
nsa=ernic-xdp-a-$$ nsb=ernic-xdp-b-$$
work=$(mktemp -d)
cleanup() {
	ip netns del $nsa 2>/dev/null
	ip netns del $nsb 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

ip netns add $nsa && ip netns add $nsb || skip "cannot create namespaces"
ip link add h5x0 netns $nsa type veth peer name h5x1 netns $nsb ||
	skip "cannot create a veth pair"
ip -n $nsa addr add 198.18.10.1/24 dev h5x0
ip -n $nsb addr add 198.18.10.2/24 dev h5x1
for n in $nsa $nsb; do ip -n $n link set lo up; done
ip -n $nsa link set h5x0 up
ip -n $nsb link set h5x1 up

eal=(-l 0 --no-huge -m 512 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.ernic:info)
inaddr() {
	ip netns exec $nsa awk '/^Ip: [0-9]/ { print $6 }' /proc/net/snmp
}
err0=$(inaddr)

# TCP echo listener on A's kernel address
cat >"$work/echo.py" <<'PY'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.10.1", 18600)); s.listen(1); s.settimeout(30)
c, _ = s.accept(); c.settimeout(10)
while True:
    d = c.recv(65536)
    if not d:
        break
    c.sendall(d)
PY
cat >"$work/client.py" <<'PY'
import os, socket, sys
data = bytes((i * 7 + 3) & 0xff for i in range(256 * 1024))
c = socket.create_connection(("198.18.10.1", 18600), timeout=10)
c.sendall(data); c.shutdown(socket.SHUT_WR)
got = b""
while True:
    d = c.recv(65536)
    if not d:
        break
    got += d
print("tcp: %d bytes sent, %d echoed, %s" % (len(data), len(got),
      "equal" if got == data else "DIFFERENT"))
sys.exit(0 if got == data else 1)
PY
ip netns exec $nsa timeout 40 python3 "$work/echo.py" &
echo_pid=$!

ip netns exec $nsa timeout 60 "$bin" "${eal[@]}" --file-prefix xdpa$$ \
	--vdev=net_af_xdp0,iface=h5x0,xdp_prog=$obj,start_queue=0 \
	--vdev=net_ernic0,port=net_af_xdp0,ip=198.18.10.11 \
	-- write_bw -s 1024 -D 4 >"$work/a.log" 2>&1 &
a_pid=$!
for _ in $(seq 50); do
	ip netns exec $nsa ss -ltn 2>/dev/null | grep -q ':18515 ' && break
	sleep 0.2
done
if grep -q "Failed to load\|cannot\|Failed to create xsk" "$work/a.log"; then
	cat "$work/a.log"
	kill $a_pid $echo_pid 2>/dev/null
	skip "net_af_xdp with an XDP program cannot run here"
fi
ip netns exec $nsb timeout 60 "$bin" "${eal[@]}" --file-prefix xdpb$$ \
	--vdev=net_af_packet0,iface=h5x1 \
	--vdev=net_ernic0,port=net_af_packet0,ip=198.18.10.12 \
	-- write_bw -s 1024 -D 4 198.18.10.1 >"$work/b.log" 2>&1 &
b_pid=$!
sleep 1.5
# the kernel of the same interface, while the benchmark runs
ip netns exec $nsb ping -c 6 -i 0.3 -W 2 198.18.10.1 >"$work/ping.log" 2>&1
ping_rc=$?
ip netns exec $nsb timeout 20 python3 "$work/client.py" >"$work/tcp.log" 2>&1
tcp_rc=$?
running=0
kill -0 $a_pid 2>/dev/null && kill -0 $b_pid 2>/dev/null && running=1
wait $a_pid; a_rc=$?
wait $b_pid; b_rc=$?
wait $echo_pid 2>/dev/null

row='^ 1024[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'
[ $a_rc -eq 0 ] && grep -qE "$row" "$work/a.log" ||
	fail "XDP side (server): exit $a_rc or no result row"
[ $b_rc -eq 0 ] && grep -qE "$row" "$work/b.log" ||
	fail "af_packet side (client): exit $b_rc or no result row"
[ $running -eq 1 ] || fail "the benchmark ended before ping and TCP were done"
tail -2 "$work/ping.log"
[ $ping_rc -eq 0 ] && grep -q ' 0% packet loss' "$work/ping.log" ||
	fail "ping of A's kernel lost packets"
cat "$work/tcp.log"
[ $tcp_rc -eq 0 ] || fail "TCP echo through A's kernel failed"
cnt=$(grep -o 'XDP program [0-9]* on h5x0: .*' "$work/a.log")
echo "${cnt:-no XDP counters logged}"
redir=$(sed -n 's/.*redirect_roce \([0-9]*\).*/\1/p' <<<"$cnt")
pass=$(sed -n 's/.*pass_not_roce \([0-9]*\).*/\1/p' <<<"$cnt")
neigh=$(sed -n 's/.*redirect_neigh \([0-9]*\).*/\1/p' <<<"$cnt")
[ "${redir:-0}" -gt 1000 ] || fail "RoCE redirected: ${redir:-none}"
# ping (6 + replies' ARP), TCP handshake and data, ARP for 198.18.10.1
[ "${pass:-0}" -ge 10 ] || fail "frames passed to the kernel: ${pass:-none}"
[ "${neigh:-0}" -ge 1 ] || fail "ARP for 198.18.10.11 not steered: ${neigh:-none}"
grep -q 'steers RoCEv2 to 198.18.10.11 and its ARP/ND' "$work/a.log" ||
	fail "net_ernic did not publish 198.18.10.11"
err1=$(inaddr)
echo "A's kernel IP InAddrErrors: $err0 -> $err1"
[ "$err1" = "$err0" ] || fail "frames for 198.18.10.11 reached A's kernel"
if [ $fails -ne 0 ]; then
	echo "--- A (net_af_xdp) ---"; cat "$work/a.log"
	echo "--- B (net_af_packet) ---"; cat "$work/b.log"
	echo "xdp_veth: $fails check(s) failed"
	exit 1
fi
grep -E "$row" "$work/a.log" | sed 's/^/server: /'
echo "xdp_veth: 1 passed, 0 failed"
exit 0
