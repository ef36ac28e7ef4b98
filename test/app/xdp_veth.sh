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
#
# MODE shared: A's net_ernic has A's kernel address itself (ip=198.18.10.1,
# the documented host set-up): the kernel answers ARP for it and net_ernic
# resolves B through the kernel's neighbour table (neigh=auto); the side
# channel, ping and TCP go to that same address. Checks as above, plus no
# ARP steered, A's kernel saw no RoCE (Udp NoPorts unchanged: it would
# answer port unreachable) and its neighbour table holds B's net_ernic.
# MODE shared6: the same over IPv6 only (fd00:198:18::/64 on the veth,
# ip6= on both net_ernic ports, GID index 1): ND by the kernel.
# Exit 77 when not root or without ip/ping/python3/AF_XDP.
#
# Usage: xdp_veth.sh path/to/ernic-testpmd path/to/ernic_roce_steer.bpf.o [own|shared|shared6]
set -u
bin=${1:?usage: xdp_veth.sh ernic-testpmd ernic_roce_steer.bpf.o [own|shared|shared6]}
obj=${2:?usage: xdp_veth.sh ernic-testpmd ernic_roce_steer.bpf.o [own|shared|shared6]}
mode=${3:-own}
case $mode in
own) ka=198.18.10.1 kb=198.18.10.2 ea=198.18.10.11 eb=198.18.10.12
	a_ip="ip=$ea" b_ip="ip=$eb" gidx=() ;;
shared) ka=198.18.10.1 kb=198.18.10.2 ea=$ka eb=198.18.10.12
	a_ip="ip=$ea" b_ip="ip=$eb" gidx=() ;;
shared6) ka=fd00:198:18::1 kb=fd00:198:18::2 ea=$ka eb=fd00:198:18::12
	a_ip="ip6=$ea" b_ip="ip6=$eb" gidx=(-x 1) ;;
*) echo "mode $mode: own, shared or shared6"; exit 1 ;;
esac
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
if [ $mode = shared6 ]; then
	ip -n $nsa addr add $ka/64 dev h5x0 nodad
	ip -n $nsb addr add $kb/64 dev h5x1 nodad
else
	ip -n $nsa addr add $ka/24 dev h5x0
	ip -n $nsb addr add $kb/24 dev h5x1
fi
for n in $nsa $nsb; do ip -n $n link set lo up; done
ip -n $nsa link set h5x0 up
ip -n $nsb link set h5x1 up

eal=(-l 0 --no-huge -m 512 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.ernic:info)
inaddr() {
	ip netns exec $nsa awk '/^Ip: [0-9]/ { print $6 }' /proc/net/snmp
}
noports() {  # UDP datagrams to a closed port (IPv4 and IPv6)
	ip netns exec $nsa awk '/^Udp: [0-9]/ { n += $3 } /^Udp6NoPorts/ { n += $2 }
		END { print n + 0 }' /proc/net/snmp /proc/net/snmp6
}
err0=$(inaddr) nop0=$(noports)

# TCP echo listener on A's kernel address
cat >"$work/echo.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 18600)); s.listen(1); s.settimeout(30)
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
c = socket.create_connection((sys.argv[1], 18600), timeout=10)
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
ip netns exec $nsa timeout 40 python3 "$work/echo.py" $ka &
echo_pid=$!

# Under ASan (-Dsanitize=true) leaks are checked at exit: DPDK's net_af_xdp
# leaks its XDP program's bpf_object and its UMEM struct (third-party,
# lsan-af_xdp.supp says whose); the slow unwinder lets the suppression see
# the driver in the stacks of libbpf's and libxdp's allocations.
a_env=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan-af_xdp.supp")
ip netns exec $nsa env "${a_env[@]}" timeout 60 "$bin" "${eal[@]}" --file-prefix xdpa$$ \
	--vdev=net_af_xdp0,iface=h5x0,xdp_prog=$obj,start_queue=0 \
	--vdev=net_ernic0,port=net_af_xdp0,$a_ip \
	-- write_bw "${gidx[@]}" -s 1024 -D 10 >"$work/a.log" 2>&1 &
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
	--vdev=net_ernic0,port=net_af_packet0,$b_ip \
	-- write_bw "${gidx[@]}" -s 1024 -D 10 $ka >"$work/b.log" 2>&1 &
# -D 10: the RoCE run must outlast the 1.5 s wait, ping (6 x 0.3 s) and
# the TCP echo even on a loaded machine (running check below)
b_pid=$!
sleep 1.5
# the kernel of the same interface, while the benchmark runs
ip netns exec $nsb ping -c 6 -i 0.3 -W 2 $ka >"$work/ping.log" 2>&1
ping_rc=$?
ip netns exec $nsb timeout 20 python3 "$work/client.py" $ka >"$work/tcp.log" 2>&1
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
err1=$(inaddr) nop1=$(noports)
if [ $mode = own ]; then
	[ "${neigh:-0}" -ge 1 ] || fail "ARP for $ea not steered: ${neigh:-none}"
	grep -q "steers RoCEv2 to $ea and its ARP/ND" "$work/a.log" ||
		fail "net_ernic did not publish $ea"
	echo "A's kernel IP InAddrErrors: $err0 -> $err1"
	[ "$err1" = "$err0" ] || fail "frames for $ea reached A's kernel"
else
	# the kernel answers ARP/ND for the shared address, and resolves B
	[ "${neigh:-0}" -eq 0 ] || fail "ARP/ND steered away from the kernel: $neigh"
	grep -q "steers RoCEv2 to $ea (the kernel holds it" "$work/a.log" ||
		fail "net_ernic did not publish $ea as the kernel's"
	grep -q "neighbours resolved through the kernel of h5x0 (neigh=auto)" "$work/a.log" ||
		fail "net_ernic does not resolve through the kernel"
	kn=$(ip -n $nsa neigh show $eb dev h5x0)
	echo "A's kernel neighbour: ${kn:-none}"
	grep -q lladdr <<<"$kn" || fail "A's kernel did not resolve $eb"
	echo "A's kernel UDP NoPorts: $nop0 -> $nop1"
	[ "$nop1" = "$nop0" ] || fail "RoCE to $ea reached A's kernel"
fi
if [ $fails -ne 0 ]; then
	echo "--- A (net_af_xdp) ---"; cat "$work/a.log"
	echo "--- B (net_af_packet) ---"; cat "$work/b.log"
	echo "xdp_veth: $fails check(s) failed"
	exit 1
fi
grep -E "$row" "$work/a.log" | sed 's/^/server: /'
echo "xdp_veth: 1 passed, 0 failed"
exit 0
