#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's own verbs binaries, unmodified, over softernic
# (doc/guides/verbs.rst): ibv_devinfo on conf/verbs-loopback.ini, then
# pairs of processes, one on conf/verbs-pair-a.ini (198.18.0.1, the
# server) and one on conf/verbs-pair-b.ini (198.18.0.2), joined by a veth
# pair in a namespace of the run's own (as root; else by the files' memif
# link: common.sh, pair_link), their TCP side channel on 127.0.0.1 there:
# the ibv_*_pingpong tools with data checks (-c), events (-e)
# and the new post send API (-N), and perftest's bw and lat tools over RC,
# UC and UD, SRQ, inline, 16 QPs, every size, atomics, IPv6. Each case
# checks that both ends exit 0 and print their result rows.
#
# Usage: verbs_stock.sh path/to/libernic_verbs.so [CASE-REGEX [IOP_INTEGRITY]]
# (with the path of iop-integrity: also the case integrity_features)
# The pair files are copied with a socket (or namespace) of this run's
# own, so that runs can go side by side. A tool that is missing skips the run (exit 77), or
# fails it under CI=true.
set -u
lib=${1:?usage: verbs_stock.sh path/to/libernic_verbs.so [CASE-REGEX]}
filter=${2:-}
integrity=${3:-}
conf=${SOFTERNIC_CONF:?SOFTERNIC_CONF names the conf/ directory}
# shellcheck source=test/verbs/common.sh
. "$(dirname "$0")/common.sh"
need_tools verbs_stock "ibverbs-utils, perftest, iproute2" ibv_devinfo \
	ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong \
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat \
	ib_write_lat ib_read_lat ib_atomic_lat ss
set_preload "$lib"

tmp=$(mktemp -d /tmp/verbs_stock.XXXXXX)
spid=
cleanup() {
	# timeout(1) passes SIGTERM on to the tool under it
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	pair_link_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
pair_link "$tmp"
# the same files with two workers a port, their counters logged at exit
for s in a b; do
	sed -e '/^vdev = net_ernic0,/s/$/,workers=2/' \
		-e 's/^\[verbs\]$/[verbs]\nexit_stats = 1/' \
		"$tmp/$s.ini" >"$tmp/$s-w2.ini"
done
ini_sfx=
pair_check=
# the side channel's TCP port: one of this run's own a case
port=$(side_port_base)
wall=${VERBS_CASE_TIMEOUT:-60}
fails=0
cases=0

fail() {
	echo "FAIL: $*"
	for f in "$tmp"/s.out "$tmp"/s.err "$tmp"/c.out "$tmp"/c.err; do
		[ -f "$f" ] && sed "s/^/    $(basename "$f")| /" "$f" | tail -30
	done
	fails=$((fails + 1))
}

selected() {
	[ -z "$filter" ] || [[ "$1" =~ $filter ]]
}

# Wait until the server listens on $port (or has died): at most 30 s.
wait_listen() {
	local i
	for i in $(seq 300); do
		"${nsx[@]}" ss -Hltn "sport = :$port" | grep -q . && return 0
		kill -0 "$spid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pair NAME S_REGEX S_ROWS C_REGEX C_ROWS TOOL ARGS...
#   the server runs TOOL ARGS -p PORT, the client the same with 127.0.0.1;
#   each must exit 0 and print at least *_ROWS lines matching *_REGEX
pair() {
	local name=$1 sre=$2 srows=$3 cre=$4 crows=$5 got src crc
	shift 5
	selected "$name" || return 0
	cases=$((cases + 1))
	port=$((port + 1))
	rm -f "$tmp"/[sc].out "$tmp"/[sc].err
	# the rows on stdout, apart from the libraries' messages on stderr
	"${nsx[@]}" env SOFTERNIC_CONFIG="$tmp/a$ini_sfx.ini" LD_PRELOAD="$preload" \
		timeout "$wall" "$@" -p "$port" >"$tmp/s.out" 2>"$tmp/s.err" &
	spid=$!
	if ! wait_listen; then
		wait "$spid"
		spid=
		fail "$name: the server never listened on port $port"
		return
	fi
	"${nsx[@]}" env SOFTERNIC_CONFIG="$tmp/b$ini_sfx.ini" LD_PRELOAD="$preload" \
		timeout "$wall" "$@" -p "$port" 127.0.0.1 >"$tmp/c.out" \
		2>"$tmp/c.err"
	crc=$?
	wait "$spid"
	src=$?
	spid=
	if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
		fail "$name: exit status server $src, client $crc"
		return
	fi
	got=$(grep -cE "$sre" "$tmp/s.out")
	if [ "$got" -lt "$srows" ]; then
		fail "$name: server printed $got result rows, expected $srows"
		return
	fi
	got=$(grep -cE "$cre" "$tmp/c.out")
	if [ "$got" -lt "$crows" ]; then
		fail "$name: client printed $got result rows, expected $crows"
		return
	fi
	[ -z "$pair_check" ] || $pair_check "$name" || return
	echo "ok: $name"
}

# pair_check of the two-worker cases: each worker of each end sent RoCE
# frames (the counters [verbs] exit_stats logs at exit)
both_workers_sent() {
	local f w end
	for f in s c; do
		[ $f = s ] && end=server || end=client
		for w in 0 1; do
			if ! grep -qE "worker${w}_tx_roce=[1-9]" "$tmp/$f.err"; then
				fail "$1: worker $w of the $end sent no RoCE frame"
				return 1
			fi
		done
	done
}

# pair_workers NAME TOOL...: a bandwidth pair on the files with two
# workers a port (a-w2.ini, b-w2.ini), both workers of both ends moving
pair_workers() {
	ini_sfx=-w2 pair_check=both_workers_sent pair "$1" "$bw" 1 "$bw" 1 \
		"${@:2}"
}

num='[0-9]+(\.[0-9]+)?'
pp='^[0-9]+ iters in [0-9.]+ seconds = [0-9.]+ usec/iter$'
bw="^ [0-9]+ +[0-9]+ +$num +$num[[:space:]]+$num\$"
lat="^ [0-9]+ +[0-9]+ +$num +$num +$num"

# the device as ibv_devinfo shows it, on the loopback file
if selected devinfo; then
	cases=$((cases + 1))
	SOFTERNIC_CONFIG=$conf/verbs-loopback.ini LD_PRELOAD=$preload \
		timeout "$wall" ibv_devinfo -v >"$tmp/c.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "devinfo: exit status $rc"
	elif ! grep -qE '^hca_id:[[:space:]]+ernic0$' "$tmp/c.out" ||
		! grep -qE 'state:[[:space:]]+PORT_ACTIVE' "$tmp/c.out" ||
		! grep -qE 'link_layer:[[:space:]]+Ethernet' "$tmp/c.out" ||
		! grep -qE 'GID\[  1\]:[[:space:]]+::ffff:198\.18\.0\.1, RoCE v2' "$tmp/c.out" ||
		! grep -qE 'max_qp_wr:[[:space:]]+[1-9]' "$tmp/c.out"; then
		fail "devinfo: ernic0, PORT_ACTIVE, Ethernet, GID 1 or max_qp_wr missing"
	else
		echo "ok: devinfo"
	fi
fi

# the ibv_*_pingpong tools: -c checks every received byte
pair rc_pingpong "$pp" 1 "$pp" 1 ibv_rc_pingpong -g 1 -n 500 -c
pair rc_pingpong_events "$pp" 1 "$pp" 1 ibv_rc_pingpong -g 1 -n 500 -c -e
pair rc_pingpong_new_send "$pp" 1 "$pp" 1 ibv_rc_pingpong -g 1 -n 500 -c -N
pair rc_pingpong_ipv6 "$pp" 1 "$pp" 1 ibv_rc_pingpong -g 2 -n 200 -c
pair uc_pingpong "$pp" 1 "$pp" 1 ibv_uc_pingpong -g 1 -n 500 -c
pair ud_pingpong "$pp" 1 "$pp" 1 ibv_ud_pingpong -g 1 -n 500 -c
pair srq_pingpong "$pp" 1 "$pp" 1 ibv_srq_pingpong -g 1 -n 500 -c

# perftest: the server prints the bw row too, the lat tools on one side
pair send_bw "$bw" 1 "$bw" 1 ib_send_bw -x 1 -n 1000
pair write_bw "$bw" 1 "$bw" 1 ib_write_bw -x 1 -n 1000
pair read_bw "$bw" 1 "$bw" 1 ib_read_bw -x 1 -n 1000
pair atomic_bw_faa "$bw" 1 "$bw" 1 ib_atomic_bw -x 1 -n 1000 -A FETCH_AND_ADD
pair atomic_bw_cas "$bw" 1 "$bw" 1 ib_atomic_bw -x 1 -n 1000 -A CMP_AND_SWAP
pair send_lat "$lat" 1 "$lat" 1 ib_send_lat -x 1 -n 1000
pair write_lat "." 0 "$lat" 1 ib_write_lat -x 1 -n 500
pair read_lat "." 0 "$lat" 1 ib_read_lat -x 1 -n 1000
pair atomic_lat "." 0 "$lat" 1 ib_atomic_lat -x 1 -n 1000
# UC: a message the receiver has no receive for, or of which a frame was
# lost, is gone (no ACK holds the sender back): count for 2 s instead
pair send_bw_uc "$bw" 1 "$bw" 1 ib_send_bw -x 1 -D 2 -c UC
pair write_bw_uc "$bw" 1 "$bw" 1 ib_write_bw -x 1 -n 1000 -c UC
pair send_lat_uc "$lat" 1 "$lat" 1 ib_send_lat -x 1 -n 1000 -c UC
pair send_bw_ud "$bw" 1 "$bw" 1 ib_send_bw -x 1 -n 1000 -c UD -s 1024
pair send_lat_ud "$lat" 1 "$lat" 1 ib_send_lat -x 1 -n 1000 -c UD -s 64
pair send_bw_srq "$bw" 1 "$bw" 1 ib_send_bw -x 1 -n 1000 --use-srq
pair send_lat_inline "$lat" 1 "$lat" 1 ib_send_lat -x 1 -n 1000 -s 64 -I 128
pair write_lat_inline "." 0 "$lat" 1 ib_write_lat -x 1 -n 500 -s 64 -I 128
pair write_bw_q16 "$bw" 1 "$bw" 1 ib_write_bw -x 1 -n 500 -q 16
# two workers a port: perftest's QPs share one CQ pair and still spread
# over both (lib/verbs/ev_cq.c)
pair_workers write_bw_q4_w2 ib_write_bw -x 1 -n 1000 -q 4
pair_workers send_bw_q4_w2 ib_send_bw -x 1 -n 1000 -q 4
pair_workers read_bw_q4_w2 ib_read_bw -x 1 -n 1000 -q 4
pair write_bw_all "$bw" 1 "$bw" 23 ib_write_bw -x 1 -n 50 -a
pair send_bw_ipv6 "$bw" 1 "$bw" 1 ib_send_bw -x 2 -n 1000
# the interop suite's data-integrity peer with its feature phases (-f:
# immediate, inline, a type 2 window and SEND with invalidate, atomics
# compared, RNR, a refused access) on both ends: the test verbs_features
# (test/interop/meson.build, where the program is built) gives its path
# and selects this case
if [ -n "$integrity" ]; then
	feat='^integrity: features PASS '
	pair integrity_features "$feat" 1 "$feat" 1 "$integrity" \
		-d ernic0 -g 1 -f
fi

echo "verbs_stock: $cases cases, $fails failed"
[ $cases -gt 0 ] || exit 1
[ $fails -eq 0 ]
