#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's own rdma_cm binaries, unmodified, over softernic
# (doc/guides/verbs.rst, "rdma_cm"): pairs of processes joined by a veth
# pair in a namespace of the run's own (as root; else by the files'
# net_memif link: common.sh, pair_link), the server on
# conf/verbs-pair-a.ini (198.18.0.1, 2001:2::1), the client on
# conf/verbs-pair-b.ini. No side channel: the
# connections are made by the CM on QP1.
#
#   rping with every byte verified (IPv4, IPv6), ucmatose with 8
#   connections, udaddy (UD through SIDR, IPv4, IPv6), rdma_server and
#   rdma_client, perftest -R (write_bw, send_lat, UD send_bw), a connect
#   to a port nobody listens on (REJECTED, or UNREACHABLE for UD, in
#   well under the CM timeout), a peer killed mid-run (the other end's
#   WRITEs time out and it ends on its own), and 1,000 connections of cmtime against one
#   long-lived cmtime listener whose CM ids, QPs and heap come back to
#   where they were (read over DPDK telemetry, /ernic/cm).
#
# Usage: verbs_cm.sh path/to/libernic_verbs.so [CASE-REGEX]
# A tool that is missing skips the run (exit 77), or fails it under CI=true.
set -u
lib=${1:?usage: verbs_cm.sh path/to/libernic_verbs.so [CASE-REGEX]}
filter=${2:-}
conf=${SOFTERNIC_CONF:?SOFTERNIC_CONF names the conf/ directory}
# shellcheck source=test/verbs/common.sh
. "$(dirname "$0")/common.sh"
need_tools verbs_cm "rdmacm-utils, perftest" rping ucmatose udaddy \
	rdma_server rdma_client cmtime ib_write_bw ib_send_lat ib_send_bw \
	python3
set_preload "$lib"

tmp=$(mktemp -d /tmp/verbs_cm.XXXXXX)
spid=
# kill_server: SIGKILL to the server and to timeout(1) above it
kill_server() {
	pkill -9 -P "$spid" 2>/dev/null
	kill -9 "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
cleanup() {
	[ -n "$spid" ] && kill_server
	pair_link_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
pair_link "$tmp"
# the listener of the 1,000 connections answers telemetry queries
prefix=softernic-verbs-cm$$
sed "s/ --no-telemetry//; s/--file-prefix=softernic-verbs/--file-prefix=$prefix/" \
	"$tmp/a.ini" >"$tmp/a-tel.ini"
if [ "$(id -u)" = 0 ]; then
	tel=/var/run/dpdk/$prefix/dpdk_telemetry.v2
else
	tel=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix/dpdk_telemetry.v2
fi
port=$(side_port_base)
wall=${VERBS_CASE_TIMEOUT:-60}
fails=0
cases=0

fail() {
	echo "FAIL: $*"
	for f in "$tmp"/s.out "$tmp"/c.out; do
		[ -f "$f" ] && sed "s/^/    $(basename "$f")| /" "$f" | tail -30
	done
	fails=$((fails + 1))
}

selected() {
	[ -z "$filter" ] || [[ "$1" =~ $filter ]]
}

# start_server INI CMD...: run the server in the background ($spid), wait
# for its device (the provider's start-up line) and a moment for its
# listen; a REQ that still comes first is held 100 ms for the listener
start_server() {
	local ini=$1 i
	shift
	rm -f "$tmp"/[sc].out
	"${nsx[@]}" env SOFTERNIC_CONFIG="$ini" LD_PRELOAD="$preload" \
		timeout "$wall" "$@" \
		>"$tmp/s.out" 2>&1 &
	spid=$!
	for i in $(seq 300); do
		grep -q "^softernic verbs: " "$tmp/s.out" && break
		kill -0 "$spid" 2>/dev/null || return 1
		sleep 0.1
	done
	sleep 0.3
	kill -0 "$spid" 2>/dev/null
}

# client CMD...: run the client to its end; its status in $crc
client() {
	"${nsx[@]}" env SOFTERNIC_CONFIG="$tmp/b.ini" LD_PRELOAD="$preload" \
		timeout "$wall" "$@" >"$tmp/c.out" 2>&1
	crc=$?
}

# rows FILE: a tool's output (stdout and stderr in one file) without the
# line DPDK 22.11's memif logs on stderr now and then when the other end
# goes (doc/guides/verbs.rst, "Known issues"): unbuffered, it can land
# inside the tool's last row ("... 0.054930EAL: Error: Invalid memory"),
# which then matched no row pattern
rows() {
	sed 's/EAL: Error: Invalid memory$//' "$1"
}

# pair NAME S_REGEX C_REGEX "SERVER CMD" "CLIENT CMD": both exit 0, and
# each output has a line matching its regex ("." for none needed)
pair() {
	local name=$1 sre=$2 cre=$3 src
	selected "$name" || return 0
	cases=$((cases + 1))
	port=$((port + 1))
	# shellcheck disable=SC2086
	if ! start_server "$tmp/a.ini" ${4//@P/$port}; then
		wait "$spid"
		spid=
		fail "$name: the server did not start"
		return
	fi
	# shellcheck disable=SC2086
	client ${5//@P/$port}
	wait "$spid"
	src=$?
	spid=
	if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
		fail "$name: exit status server $src, client $crc"
	elif ! rows "$tmp/s.out" | grep -qE "$sre"; then
		fail "$name: the server did not print /$sre/"
	elif ! rows "$tmp/c.out" | grep -qE "$cre"; then
		fail "$name: the client did not print /$cre/"
	else
		echo "ok: $name"
	fi
}

num='[0-9]+(\.[0-9]+)?'
bw="^ [0-9]+ +[0-9]+ +$num +$num[[:space:]]+$num\$"
lat="^ [0-9]+ +[0-9]+ +$num +$num +$num"
done_re='^return status 0$'

pair rping . . "rping -s -a 198.18.0.1 -p @P -C 100 -V" \
	"rping -c -a 198.18.0.1 -p @P -C 100 -V"
pair rping_ipv6 . . "rping -s -a 2001:2::1 -p @P -C 20 -V" \
	"rping -c -a 2001:2::1 -p @P -C 20 -V"
pair ucmatose "$done_re" "$done_re" "ucmatose -p @P -c 8" \
	"ucmatose -s 198.18.0.1 -p @P -c 8"
# udaddy's port is its own (7174; -p is its port space)
pair udaddy "$done_re" "$done_re" "udaddy -c 4 -C 20" \
	"udaddy -s 198.18.0.1 -c 4 -C 20"
pair udaddy_ipv6 "$done_re" "$done_re" "udaddy -c 2 -C 10" \
	"udaddy -s 2001:2::1 -c 2 -C 10"
pair rdma_server_client '^rdma_server: end 0$' '^rdma_client: end 0$' \
	"rdma_server -p @P" "rdma_client -s 198.18.0.1 -p @P"
pair write_bw_rdma_cm "$bw" "$bw" "ib_write_bw -R -p @P -n 1000" \
	"ib_write_bw -R -p @P -n 1000 198.18.0.1"
pair send_lat_rdma_cm . "$lat" "ib_send_lat -R -p @P -n 1000" \
	"ib_send_lat -R -p @P -n 1000 198.18.0.1"
pair send_bw_ud_rdma_cm "$bw" "$bw" "ib_send_bw -R -c UD -p @P -n 1000" \
	"ib_send_bw -R -c UD -p @P -n 1000 198.18.0.1"

# refused: a port nobody listens on (the server listens on another one)
refused() {
	local name=$1 want=$2 ms
	shift 2
	selected "$name" || return 0
	cases=$((cases + 1))
	port=$((port + 1))
	if ! start_server "$tmp/a.ini" rping -s -a 198.18.0.1 -p "$port" \
		-C 1; then
		fail "$name: the server did not start"
		return
	fi
	ms=$(date +%s%N)
	# shellcheck disable=SC2068
	client ${@//@Q/$((port + 1000))}
	ms=$((($(date +%s%N) - ms) / 1000000))
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	if [ $crc -eq 0 ]; then
		fail "$name: the client succeeded"
	elif ! grep -q "$want" "$tmp/c.out"; then
		fail "$name: no $want"
	elif [ $ms -ge 4000 ]; then
		# the CM response timeout of a REQ is 4.3 s (code 20)
		fail "$name: $want after $ms ms, not within the CM timeout"
	else
		echo "ok: $name ($want in $ms ms, process start included)"
	fi
}
refused refused_rc RDMA_CM_EVENT_REJECTED rping -c -a 198.18.0.1 -C 1 -p @Q
# (udaddy asks for its port 7174: the server listens on another)
refused refused_ud RDMA_CM_EVENT_UNREACHABLE udaddy -s 198.18.0.1

# telemetry query: prints the value of each name given, from /ernic/cm
# (counters), /ernic/qp/list (QPs), /eal/heap_info (allocations) and
# /ethdev/stats (ipackets) of the last port
tel_read() {
	python3 - "$tel" "$@" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(1024)
def q(cmd):
    s.send(cmd.encode())
    return json.loads(s.recv(1 << 20))
port = q('/ethdev/list')['/ethdev/list'][-1]
cm = q('/ernic/cm,%d' % port)['/ernic/cm']['counters']
qps = q('/ernic/qp/list,%d' % port)['/ernic/qp/list']
heap = q('/eal/heap_info,0')['/eal/heap_info']
st = q('/ethdev/stats,%d' % port)['/ethdev/stats']
val = {'qps': len(qps) if isinstance(qps, list) else len(qps.get('qps', [])),
       'heap_allocs': heap.get('Alloc_count', 0),
       'ipackets': st.get('ipackets', 0)}
val.update(cm)
print(' '.join(str(val[n]) for n in sys.argv[2:]))
EOF
}

# a peer killed mid-run: the server of ib_write_bw -R (SIGKILL, so
# nothing of it says goodbye) while the client streams 5,000,000 WRITEs; the
# client's next WRITEs go unanswered, their retries run out (the CM's ACK
# timeout, 7 retries) and it ends on its own with a completion error. (An rping server killed while the client waits for a SEND
# would leave the client waiting: no traffic, nothing to time out, with
# any RDMA stack whose peer vanishes without a DREQ.)
if selected peer_killed; then
	cases=$((cases + 1))
	port=$((port + 1))
	if ! start_server "$tmp/a-tel.ini" ib_write_bw -R -F -s 4096 \
		-n 5000000 -p "$port"; then
		fail "peer_killed: the server did not start"
	else
		# env execs the client: $! is the client itself
		"${nsx[@]}" env SOFTERNIC_CONFIG="$tmp/b.ini" \
			LD_PRELOAD="$preload" timeout "$wall" \
			ib_write_bw -R -F -s 4096 -n 5000000 -p "$port" 198.18.0.1 \
			>"$tmp/c.out" 2>&1 &
		cpid=$!
		# streaming: the connection is established and the server's
		# port received 20,000 frames, far more than the tools' own
		# exchange over the QP (a server killed during that exchange
		# leaves the client waiting for a SEND: nothing to time out);
		# the tools' output is buffered until they end
		est=0
		for i in $(seq 300); do
			read -r est rx <<<"$(tel_read cm_established ipackets 2>/dev/null)"
			[ "${est:-0}" -ge 1 ] 2>/dev/null &&
				[ "${rx:-0}" -ge 20000 ] 2>/dev/null && break
			sleep 0.1
		done
		kill_server
		ms=$(date +%s%N)
		wait "$cpid"
		crc=$?
		ms=$((($(date +%s%N) - ms) / 1000000))
		if [ "${est:-0}" -lt 1 ] || [ "${rx:-0}" -lt 20000 ]; then
			fail "peer_killed: no stream (established: ${est:-none}, frames received: ${rx:-none})"
		elif [ $crc -eq 0 ] || [ $crc -eq 124 ] || [ $ms -gt 20000 ]; then
			fail "peer_killed: the client ended $ms ms after the server, status $crc"
		else
			echo "ok: peer_killed (the client ended $ms ms after the server was killed, status $crc)"
		fi
	fi
fi

# 1,000 connections of stock programs against one long-lived listener
if selected cm_1000; then
	cases=$((cases + 1))
	port=$((port + 1))
	if ! start_server "$tmp/a-tel.ini" cmtime -b 198.18.0.1 -p "$port"; then
		fail "cm_1000: the listener did not start"
	else
		# a first run, so that what is made once (pools, tables) is made
		client cmtime -s 198.18.0.1 -p "$port" -c 100
		base=$(tel_read qps heap_allocs 2>&1)
		t0=$(date +%s%N)
		n=0
		for r in $(seq 10); do
			client cmtime -s 198.18.0.1 -p "$port" -c 100
			[ $crc -eq 0 ] || break
			grep -q REJECTED "$tmp/c.out" && break
			n=$((n + 100))
		done
		ms=$((($(date +%s%N) - t0) / 1000000))
		# an ASan build keeps each destroyed QP poisoned (lib/roce's
		# quarantine: the QP and its node, 2 allocations, up to 4096)
		if [ -n "$asan_lib" ]; then
			want="0 ${base% *} $((${base#* } + 2 * n))"
		else
			want="0 $base"
		fi
		# the last ids leave timewait within a second or two
		for i in $(seq 100); do
			now=$(tel_read cm_ids_in_use qps heap_allocs 2>&1)
			[ "$now" = "$want" ] && break
			sleep 0.1
		done
		est=$(tel_read cm_established cm_disconnected 2>&1)
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		spid=
		if [ $n -ne 1000 ]; then
			fail "cm_1000: run $r failed after $n connections"
		elif [ "$now" != "$want" ]; then
			fail "cm_1000: ids, QPs, heap allocations now \"$now\", expected \"$want\""
		else
			echo "ok: cm_1000 (1000 connections in 10 processes, $ms ms; listener: established/disconnected $est; ids in use, QPs, heap allocations: $now)"
		fi
	fi
fi

echo "verbs_cm: $cases cases, $fails failed"
[ $cases -gt 0 ] || exit 1
[ $fails -eq 0 ]
