#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# peer.sh: the persistent rxe peer VM of the interop suite
# (doc/guides/interop.rst, "The persistent peer").
#
#   peer.sh serve     the peer itself; run-case.sh starts it, detached, when
#                     a case finds none (harness.sh, iop_peer_acquire)
#   peer.sh status    whether one is up, since when, how many cases it served
#   peer.sh run CMD   run the sh code CMD in its VM as a job (waiting for the
#                     case that has it), e.g. 'rdma resource show qp'
#   peer.sh stop      stop it
#
# IOP_WORK selects the peer: each build directory has its own (meson sets
# build/test/interop/work), so release and ASan runs never share one.
#
# serve: makes namespace sfniop<PID> with the taps sfr<PID> (the VM's eth0,
# 198.18.0.2, rxe0) and sfo<PID> (eth1, 198.19.0.2, the side channel),
# boots the VM there (at most IOP_PEER_LIFE seconds, 3 hours), and writes
# IOP_WORK/peer/state once the VM serves requests (IOP_PEER_BOOT seconds at
# most, 120). Then, every second: it ends when the VM has gone, or, while
# no case holds the lock, when its owner (the process that ran the last
# case: meson test) has ended or no case came for IOP_PEER_IDLE seconds
# (60). Its end, also on TERM, kills the VM and deletes the namespace.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/harness.sh"

serve() {
	local idle=${IOP_PEER_IDLE:-60} boot=${IOP_PEER_BOOT:-120} t0=$SECONDS owner used
	mkdir -p "$IOP_PEER"
	echo $$ > "$IOP_PEER/pid"
	IOP_PEER_SERVING=1
	iop_traps
	iop_netns
	iop_tap "sfr$$" 1500
	iop_tap "sfo$$"
	iop_vm "$IOP_PEER/vm" peer "sfr$$" 198.18.0.2/24 02:00:c6:12:00:02 1500 \
		"${IOP_PEER_LIFE:-10800}" "sfo$$" 198.19.0.2/24
	iop_wait_line "$IOP_PEER/vm" '^IOP-SERVING' "$boot" > /dev/null ||
		iop_fail "the VM did not serve requests within ${boot}s (console: $IOP_PEER/vm/console.log)"
	touch "$IOP_PEER/used"
	cat > "$IOP_PEER/state.$$" <<-EOF
		PEER_NS=$IOP_NS PEER_RTAP=sfr$$ PEER_OTAP=sfo$$ PEER_QEMU=$IOP_VM_PID
		PEER_ID='$(iop_peer_id)' PEER_BOOTED=$(date +%s) PEER_BOOT_S=$((SECONDS - t0))
	EOF
	mv "$IOP_PEER/state.$$" "$IOP_PEER/state"
	iop_log "serving after $((SECONDS - t0))s; stops when owner $(cat "$IOP_PEER/owner") ends or after ${idle}s without a case"
	exec 6>> "$IOP_PEER/lock"
	while :; do
		# (a TERM's trap runs at once in wait, after the end of a sleep)
		sleep 1 &
		wait $!
		kill -0 "$IOP_VM_PID" 2>/dev/null || iop_fail "the VM has gone (console: $IOP_PEER/vm/console.log)"
		# a case holds the lock: it is using the peer
		flock -n 6 || continue
		owner=$(cat "$IOP_PEER/owner" 2>/dev/null)
		if [ -z "$owner" ] || ! kill -0 "$owner" 2>/dev/null; then
			iop_log "owner ${owner:-?} has ended: stopping"
			exit 0
		fi
		used=$(stat -c %Y "$IOP_PEER/used" 2>/dev/null || echo 0)
		if [ $(($(date +%s) - used)) -ge "$idle" ]; then
			iop_log "no case for ${idle}s: stopping"
			exit 0
		fi
		flock -u 6
	done
}

status() {
	local pid
	pid=$(cat "$IOP_PEER/pid" 2>/dev/null)
	if ! iop_peer_alive; then
		echo "no peer up in $IOP_PEER${pid:+ (peer.sh $pid is starting or stopping)}"
		return 1
	fi
	echo "peer.sh $pid: VM (QEMU $PEER_QEMU) in namespace $PEER_NS, taps $PEER_RTAP $PEER_OTAP," \
		"up $(($(date +%s) - PEER_BOOTED))s (booted in ${PEER_BOOT_S}s), $(cat "$IOP_PEER/cases" 2>/dev/null || echo 0) cases," \
		"owner $(cat "$IOP_PEER/owner" 2>/dev/null), last case ended $(($(date +%s) - $(stat -c %Y "$IOP_PEER/used")))s ago"
	[ -s "$IOP_PEER/busy" ] && echo "in use by: $(cat "$IOP_PEER/busy")"
	echo "files: $IOP_PEER/vm (console.log: kernel; ctl.log: every job's output)"
}

run() {
	local rc
	exec 6>> "$IOP_PEER/lock"
	flock 6
	iop_peer_alive || { echo "no peer up in $IOP_PEER"; return 1; }
	IOP_CTL_OFF=$(stat -c %s "$IOP_PEER/vm/ctl.log")
	iop_job "$IOP_PEER/vm" "${IOP_TIMEOUT:-150}" "$1"
	rc=$(iop_job_end "$IOP_PEER/vm" "$IOP_JOB" "${IOP_TIMEOUT:-150}") || rc="none (no answer)"
	iop_ctl_text "$IOP_PEER/vm" | grep -av "^IOP-DONE $IOP_JOB "
	echo "rc: $rc"
	[ "$rc" = 0 ]
}

case "${1:-}" in
serve) serve ;;
status) status ;;
run) run "${2:?usage: peer.sh run CMD}" ;;
stop) iop_peer_stop "peer.sh stop" ;;
*)
	echo "usage: peer.sh serve|status|run CMD|stop (IOP_WORK=$IOP_WORK)" >&2
	exit 2
	;;
esac
