#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-case.sh CASE: one interop case (doc/guides/interop.rst), a `meson test`
# of suite 'interop'. Exit 0 pass, 1 fail, 77 skip (not root, no QEMU, ...;
# under CI=true those fail). The rxe VM is the persistent peer (peer.sh),
# booted by the first case that finds none and kept up for the next ones;
# a failing case stops it, so that the next one boots a fresh VM.
#
# CASE = TOOL-MTU-OPTS-ROLE
#   TOOL  pingpong (ibv_rc_pingpong), send_bw, write_bw, read_bw, atomic_bw,
#         send_lat, write_lat, read_lat (perftest), integrity (data
#         integrity: iop-integrity in the VM, ernic-testpmd's integrity mode;
#         the client WRITEs, READs and SENDs patterned messages of 1 byte to
#         1 MiB + 7, both check every byte and compare FNV-1a checksums);
#         with V only: uc_pingpong, ud_pingpong, srq_pingpong
#         (ibv_*_pingpong), atomic_lat (perftest), and the rdma_cm tools
#         rping (-V: every ping verified), ucmatose, udaddy (UD through
#         service ID resolution)
#   MTU   1024 or 4096: path MTU (tap and VM eth0 MTU 1500 or 9000)
#   OPTS  '+'-joined: sN message size, qN QPs (-q; the connections of
#         ucmatose and udaddy), b bidirectional (-b), nN iterations (the
#         messages of rping, ucmatose and udaddy), d the tool's default
#         size, R rdma_cm (-R on both
#         sides: IB CM on QP1 and the comm QP instead of the TCP side channel),
#         xdp our port is net_af_xdp with xdp_prog=IOP_XDP_OBJ on a veth that
#         is bridged to the VM's tap; the namespace's kernel holds its own
#         address (198.18.0.3) on that veth and carries the TCP side channel
#         (the VM has a single NIC), net_ernic has ip=198.18.0.1. At MTU
#         4096 the veth has MTU 3500 (veth XDP without multi-buffer) and
#         net_ernic lowers pmtu=4096 to 2048 (net_af_xdp's single-buffer
#         frames): both tools must report Mtu 2048.
#         xs like xdp, but the kernel holds net_ernic's own address
#         198.18.0.1 on the veth (the host set-up of doc/guides/xdp.rst): the
#         kernel answers ARP for it and carries the side channel to it, and
#         net_ernic resolves the VM through the kernel's neighbour table
#         V  our side is Debian's own tool (the same binary as the VM's,
#         over libernic_verbs.so with conf/verbs-rxe.ini, the tap put in)
#         instead of ernic-testpmd
#         6  (with V) IPv6: GIDs and rdma_cm addresses 2001:2::1 (ours,
#         GID index 2) and 2001:2::2 (the VM's eth0, IOP_GID6_INDEX)
#         c  (pingpongs, with V) -c: each side checks every received byte
#         cas (atomic tools, with V) CMP_AND_SWAP instead of FETCH_AND_ADD
#         iN (perftest) -I N on both sides: messages up to N bytes inline
#         wN our net_ernic port has N workers (workers=N; ernic-testpmd
#         spreads its QPs over them): each worker must have sent RoCE
#         frames (--xstats, worker<i>_tx_roce) and, the tap's port having
#         one queue, which worker 0 reads, frames for the other workers'
#         QPs must have been handed to them (rx_roce_handoff)
#         f  (integrity, with V: iop-integrity on both sides) -f, the
#         feature phases after the data checks: WRITE and SEND with
#         immediate, inline SENDs, a type 2 window and SEND with
#         invalidate, FETCH_ADD and CMP_AND_SWAP results compared, SENDs
#         before their receives (RNR) and a refused WRITE through the
#         invalidated window; the capture must show those opcodes, RNR
#         NAKs and a remote access NAK from the passive side
#         lossN (not with V, xdp) net_fault between our port and the tap,
#         N % of the frames dropped each way (go-back-N: rxe has no
#         selective repeat): the case must still pass, and our side must
#         have recovered (perftest: --xstats, qp<n>_retrans_pkts or
#         roce_resp_out_of_seq above 0; integrity: its recovery line)
#   ROLE  our role: client (ernic-testpmd connects to the VM's server) or
#         server (the VM's client connects to ernic-testpmd); rxe: both ends
#         are rxe VMs on a bridge (the harness self-test, no ernic-testpmd)
# e.g. write_bw-1024-s5000-client, pingpong-4096-s4096-server, send_bw-1024-d+q4-client,
#      ud_pingpong-1024-c+6+V-client, rping-1024-d+V-server
#
# Environment (meson sets the first three):
#   IOP_TESTPMD     ernic-testpmd            IOP_PCAPCHECK  pcap_icrc_check
#   IOP_WORK        image, accel cache, the peer (IOP_WORK/peer), per-case
#                   results [/tmp/softernic-interop]
#   IOP_TIMEOUT     hard limit of the case in seconds, a boot of the peer included [150]
#   IOP_PEER_IDLE   the peer stops after so many seconds without a case [60]
#   IOP_PEER_RESTART 1: boot a fresh peer for this case
#   IOP_STATIC_ARP  1: permanent ARP entry for us in the VM (default 0: our PMD answers ARP)
#   IOP_KEEP        1: keep the pcap of a passing case (failing ones are always kept)
#   IOP_ACCEL       kvm|tcg|auto [auto]
#   IOP_PVH         0: boot the bzImage, not the vmlinux extracted from it (harness.sh) [1]
#   IOP_FULL        1: run the extended cases too (meson sets IOP_TIER=extended on them)
#   IOP_US_EXTRA    extra ernic-testpmd arguments (diagnostics, e.g. --stats-period 1)
#   IOP_ERNIC_EXTRA extra net_ernic devargs (e.g. ack_pkts=1,ack_us=0)
#   IOP_QP_TIMEOUT  perftest -u on both sides, local ACK timeout exponent [16]
#   IOP_XDP_OBJ     ernic_roce_steer.bpf.o, for the xdp option (meson sets it)
#   IOP_VERBS_LIB   libernic_verbs.so, for the V option (meson sets it)
#   IOP_CONF        the conf/ directory with verbs-rxe.ini (meson sets it;
#                   by hand the one beside test/)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/harness.sh"

CASE=${1:?usage: run-case.sh TOOL-MTU-OPTS-ROLE}
IFS=- read -r TOOL MTU OPTS ROLE EXTRA <<< "$CASE"
[ -n "$ROLE" ] && [ -z "$EXTRA" ] || iop_fail "bad case name $CASE (TOOL-MTU-OPTS-ROLE)"
case "$TOOL" in
pingpong | send_bw | write_bw | read_bw | atomic_bw | send_lat | write_lat | read_lat | integrity) ;;
uc_pingpong | ud_pingpong | srq_pingpong | atomic_lat | rping | ucmatose | udaddy) ;;
*) iop_fail "unknown tool $TOOL in $CASE" ;;
esac
case "$MTU" in
1024) LINK_MTU=1500 ;;
4096) LINK_MTU=9000 ;;
*) iop_fail "MTU $MTU in $CASE: 1024 or 4096" ;;
esac
case "$ROLE" in client | server | rxe) ;; *) iop_fail "role $ROLE in $CASE: client, server or rxe" ;; esac
SIZE= QPS= BIDIR=0 ITERS= RDMACM=0 XDP=0 XDP_SHARED=0 VERBS=0 IPV6=0 CHECK=0 CAS=0 FEAT=0
INLINE= WORKERS=1 LOSS=
for o in ${OPTS//+/ }; do
	case "$o" in
	loss[0-9]*) LOSS=${o#loss} ;;
	s[0-9]*) SIZE=${o#s} ;;
	q[0-9]*) QPS=${o#q} ;;
	n[0-9]*) ITERS=${o#n} ;;
	i[0-9]*) INLINE=${o#i} ;;
	w[0-9]*) WORKERS=${o#w} ;;
	b) BIDIR=1 ;;
	R) RDMACM=1 ;;
	xdp) XDP=1 ;;
	xs) XDP=1 XDP_SHARED=1 ;;
	V) VERBS=1 ;;
	6) IPV6=1 ;;
	c) CHECK=1 ;;
	cas) CAS=1 ;;
	f) FEAT=1 ;;
	d) ;;
	*) iop_fail "option $o in $CASE" ;;
	esac
done
# the tools of the V option: pingpongs other than RC's, rdma_cm tools
# (which take the RoCE addresses: rdma_cm), atomic_lat
PINGPONG=0 CMTOOL=0
case "$TOOL" in
*pingpong) PINGPONG=1 ;;
rping | ucmatose | udaddy) CMTOOL=1 RDMACM=1 ;;
esac
case "$TOOL" in
pingpong | integrity | *_bw | send_lat | write_lat | read_lat) ;;
*) [ $VERBS = 1 ] || iop_fail "$CASE: $TOOL has no ernic-testpmd mode: add V (Debian's tool over libernic_verbs.so)" ;;
esac
[ $IPV6 = 0 ] || [ $VERBS = 1 ] || iop_fail "$CASE: the 6 option needs V"
[ -z "$LOSS" ] || { [ $VERBS = 0 ] && [ $XDP = 0 ] && [ "$ROLE" != rxe ]; } ||
	iop_fail "$CASE: lossN puts net_fault under ernic-testpmd's port: not with V, xdp, xs or role rxe"
[ $CHECK = 0 ] || { [ $VERBS = 1 ] && [ $PINGPONG = 1 ]; } || iop_fail "$CASE: c is -c of the pingpongs with V"
[ $CAS = 0 ] || { [ $VERBS = 1 ] && [[ $TOOL == atomic_* ]]; } || iop_fail "$CASE: cas is for the atomic tools with V"
[ $VERBS = 0 ] || [ $XDP = 0 ] || iop_fail "$CASE: V with xdp/xs is not a case"
[ $FEAT = 0 ] || { [ $VERBS = 1 ] && [ "$TOOL" = integrity ]; } || iop_fail "$CASE: f is iop-integrity's -f, with V"
[ -z "$INLINE" ] || [[ $TOOL == *_bw || $TOOL == *_lat ]] || iop_fail "$CASE: iN is perftest's -I"
# a verbs program's QPs share its CQs, and a CQ lives on one worker: the
# provider puts them all on it (doc/guides/verbs.rst); ernic-testpmd
# spreads its QPs over the workers
[ "$WORKERS" = 1 ] || { [ $VERBS = 0 ] && [ "$TOOL" != integrity ] && [ "$ROLE" != rxe ]; } ||
	iop_fail "$CASE: wN is for ernic-testpmd's perftest modes"
[ $CMTOOL = 0 ] || [ $BIDIR = 0 ] || iop_fail "$CASE: $TOOL has no bidirectional mode"
[ $VERBS = 0 ] || [ "$ROLE" != rxe ] || iop_fail "$CASE: V is our side's tool; the rxe self-test has none"
# perftest 4.5 (Debian 12) with -R: rdma_getaddrinfo() with AF_INET hints,
# so an IPv6 address fails on both sides ("Address family for hostname not
# supported"); and as client it connects its data QPs as soon as the
# handshake on the comm QP ends: a TCG Linux server, which listens again
# only after that handshake, rejects the early REQ (INVALID_SERVICE_ID;
# our CM holds such a REQ for a late listener, Linux's does not), and the
# tool's retry then calls rdma_resolve_addr() on the ids it has just
# destroyed and freed (a crash with any librdmacm; perftest fixed it
# upstream after 4.5). Our client's -R is proven with ernic-testpmd,
# which retries (the core cases ..+R-client).
if [ $VERBS = 1 ] && [ $RDMACM = 1 ] && [ $CMTOOL = 0 ]; then
	[ $IPV6 = 0 ] || iop_fail "$CASE: perftest 4.5's -R resolves IPv4 addresses only"
	[ "$ROLE" = server ] || iop_fail "$CASE: Debian's perftest -R client is not reliable against a slow Linux server (see run-case.sh)"
fi
case "$TOOL" in
pingpong | uc_pingpong | srq_pingpong) SIZE=${SIZE:-4096} ;;
ud_pingpong) SIZE=${SIZE:-$MTU} ;;	# a datagram: at most the path MTU
integrity) SIZE=1048583 ITERS=1 ;;	# fixed sizes (integrity_proto.h): the largest
*_bw) SIZE=${SIZE:-65536} ;;
*_lat) SIZE=${SIZE:-2} ;;
rping) SIZE=${SIZE:-64} ;;	# rping's own default
ucmatose | udaddy) SIZE=${SIZE:-100} QPS=${QPS:-2} ;;	# their default size; 2 connections
esac
case "$TOOL" in atomic_*) SIZE=8 ;; esac
# Iterations sized for TCG (0.1-0.3 Gb/s, ~1-2 ms per round trip): about
# 4 MiB per bw case, 100 round trips per latency case, 50 pingpongs.
if [ -z "$ITERS" ]; then
	case "$TOOL" in
	*pingpong) ITERS=50 ;;
	rping) ITERS=20 ;;
	ucmatose | udaddy) ITERS=10 ;;
	*_lat) ITERS=100 ;;
	atomic_bw) ITERS=200 ;;
	*) ITERS=$((4194304 / SIZE)); [ $ITERS -lt 20 ] && ITERS=20; [ $ITERS -gt 200 ] && ITERS=200 ;;
	esac
fi
TIMEOUT=${IOP_TIMEOUT:-150}
# Local ACK timeout of the perftest tools, both sides (-u): 4.096 us * 2^16
# = 268 ms instead of perftest's 67 ms (-u 14). A TCG guest on a loaded
# 2-core host stalls for up to 0.65 s (measured: rxe ACKed nothing for
# 650 ms, then everything at once), longer than 7 retries of 67 ms: our
# requester ended in RETRY_EXC_ERR with nothing lost.
QPTO=${IOP_QP_TIMEOUT:-16}
TESTPMD=${IOP_TESTPMD:-}
PCAPCHECK=${IOP_PCAPCHECK:-}

if [ "${IOP_TIER:-core}" = extended ] && [ "${IOP_FULL:-0}" != 1 ]; then
	iop_skip "extended interop case: run with IOP_FULL=1 (kept out of the default run for CI time)"
fi
if [ $XDP = 1 ]; then
	[ "$ROLE" != rxe ] || iop_fail "$CASE: the xdp option needs ernic-testpmd (role client or server)"
	[ -n "${IOP_XDP_OBJ:-}" ] || iop_missing "IOP_XDP_OBJ is not set: the XDP program was not built (clang, libbpf-dev)"
	[ -r "$IOP_XDP_OBJ" ] || iop_fail "IOP_XDP_OBJ=$IOP_XDP_OBJ is not readable"
fi
# V: Debian's tool on our side over the verbs provider
VBIN=
if [ $VERBS = 1 ]; then
	case "$TOOL" in
	pingpong) VBIN=ibv_rc_pingpong ;;
	*pingpong) VBIN=ibv_$TOOL ;;
	# the VM's data-integrity peer, built here against libibverbs
	integrity) VBIN=${IOP_INTEGRITY:-} ;;
	*_bw | *_lat) VBIN=ib_$TOOL ;;
	*) VBIN=$TOOL ;;
	esac
	[ -n "${IOP_VERBS_LIB:-}" ] || iop_missing "IOP_VERBS_LIB is not set: libernic_verbs.so was not built (libibverbs-dev, librdmacm-dev)"
	[ -r "$IOP_VERBS_LIB" ] || iop_fail "IOP_VERBS_LIB=$IOP_VERBS_LIB is not readable"
	IOP_CONF=${IOP_CONF:-$(cd "$HERE/../../conf" && pwd)}
	[ -r "$IOP_CONF/verbs-rxe.ini" ] || iop_fail "IOP_CONF=$IOP_CONF has no verbs-rxe.ini"
	[ -n "$VBIN" ] || iop_missing "IOP_INTEGRITY is not set: iop-integrity was not built (libibverbs-dev)"
	command -v "$VBIN" > /dev/null ||
		iop_missing "no $VBIN here (devtools/deps.sh interop: ibverbs-utils, perftest, rdmacm-utils)"
fi
iop_require
[ -x "$PCAPCHECK" ] || iop_fail "IOP_PCAPCHECK is not set to the pcap_icrc_check program"
[ "$ROLE" = rxe ] || [ -x "$TESTPMD" ] || iop_fail "IOP_TESTPMD is not set to the ernic-testpmd program"
iop_sweep
OUT=$IOP_WORK/cases/$CASE
rm -rf "$OUT"
mkdir -p "$OUT"
# One image for every case, as one VM serves them all: with the
# data-integrity peer program when it was built.
if [ -n "${IOP_INTEGRITY:-}" ]; then
	[ -x "$IOP_INTEGRITY" ] || iop_fail "IOP_INTEGRITY=$IOP_INTEGRITY is not executable"
	IOP_IMAGE=${IOP_IMAGE%.cpio.gz}-integrity.cpio.gz
	iop_image "$IOP_INTEGRITY"
else
	[ "$TOOL" = integrity ] && iop_missing "IOP_INTEGRITY is not set: iop-integrity was not built (libibverbs-dev)"
	iop_image
fi
iop_traps
T0=$SECONDS
remaining() {  # seconds left of the case's limit, at least 1
	local r=$((TIMEOUT - (SECONDS - T0)))
	echo $((r > 0 ? r : 1))
}

# ---------------------------------------------------------------- commands
PEER_IP=198.18.0.2 PEER_MAC=02:00:c6:12:00:02
US_IP=198.18.0.1 US_MAC=02:00:c6:12:00:01
OOB_US=198.19.0.1 OOB_PEER=198.19.0.2
# xdp: the side channel goes to the namespace kernel's address on the
# net_af_xdp interface, and to the VM's only address
[ $XDP = 1 ] && OOB_US=198.18.0.3 OOB_PEER=$PEER_IP
# xs: that kernel address is net_ernic's own
[ $XDP_SHARED = 1 ] && OOB_US=$US_IP
# the path MTU the tools agree on: net_af_xdp carries at most 2048
TOOL_MTU=$MTU
[ $XDP = 1 ] && [ "$MTU" = 4096 ] && TOOL_MTU=2048
# IPv6 (the 6 option): our ip6= of conf/verbs-rxe.ini and the VM's eth0
US_IP6=2001:2::1 PEER_IP6=2001:2::2
# the addresses rdma_cm tools take (rping -a, ucmatose/udaddy -s and -b)
if [ $IPV6 = 1 ]; then US_CM=$US_IP6 PEER_CM=$PEER_IP6; else US_CM=$US_IP PEER_CM=$PEER_IP; fi
# the client's server address: the side channel's, or with rdma_cm the
# RoCE address itself (rdma_resolve_addr() on the RoCE interface)
if [ $RDMACM = 1 ]; then SRV_US=$US_CM SRV_PEER=$PEER_CM; else SRV_US=$OOB_US SRV_PEER=$OOB_PEER; fi
# the port a server listens on: the side channel's TCP port, or the
# rdma_cm tools' own (rping's and udaddy's 7174, ucmatose's 7471)
case "$TOOL" in
rping | udaddy) LPORT=7174 ;;
ucmatose) LPORT=7471 ;;
*) LPORT=18515 ;;
esac
# stock_cmd vm|us server|client: the stock tool's command line on that
# side in that role, the client's with its server's address: in the VM
# (shell code; $IOP_GID_INDEX and $IOP_GID6_INDEX expand there), or ours
# over the verbs provider (V; GID index 1 = 198.18.0.1, 2 = 2001:2::1)
stock_cmd() {
	local who=$1 role=$2 dev= g self other srv c
	if [ "$who" = vm ]; then
		dev="-d rxe0 " g=\$IOP_GID_INDEX self=$PEER_CM other=$US_CM srv=$SRV_US
		[ $IPV6 = 1 ] && g=\$IOP_GID6_INDEX
	else
		g=1 self=$US_CM other=$PEER_CM srv=$SRV_PEER
		[ $IPV6 = 1 ] && g=2
	fi
	case "$TOOL" in
	*pingpong)
		c="ibv_${TOOL/#pingpong/rc_pingpong} $dev-g $g -s $SIZE -n $ITERS"
		[ "$TOOL" = ud_pingpong ] || c+=" -m $MTU"	# (UD: the port's MTU)
		[ $CHECK = 1 ] && c+=" -c"
		;;
	integrity)
		if [ "$who" = vm ]; then c=iop-integrity; else c="$VBIN" dev="-d ernic0 "; fi
		c+=" $dev-g $g -m $MTU"
		[ $FEAT = 1 ] && c+=" -f"
		;;
	rping)
		# -V: each side checks every ping; -v prints each (the rows)
		if [ "$role" = server ]; then c="rping -s -a $self"; else c="rping -c -a $other"; fi
		echo "$c -C $ITERS -S $SIZE -V -v"
		return
		;;
	ucmatose | udaddy)
		c="$TOOL -c $QPS -C $ITERS -S $SIZE"
		# a Linux listener bound to 0.0.0.0 (their default) takes no
		# IPv6 request: the server binds to its IPv6 address
		if [ "$role" = client ]; then
			c+=" -s $other"
		elif [ $IPV6 = 1 ]; then
			c+=" -b $self"
		fi
		echo "$c"
		return
		;;
	*)
		c="ib_$TOOL $dev-x $g -F -n $ITERS -u $QPTO"
		case "$TOOL" in atomic_*) ;; *) c+=" -s $SIZE" ;; esac
		case "$TOOL" in *_bw) c+=" --report_gbits" ;; esac
		[ -n "$QPS" ] && c+=" -q $QPS"
		[ -n "$INLINE" ] && c+=" -I $INLINE"
		[ $BIDIR = 1 ] && c+=" -b"
		[ $RDMACM = 1 ] && c+=" -R"
		[ $CAS = 1 ] && c+=" -A CMP_AND_SWAP"
		;;
	esac
	[ "$role" = client ] && c+=" $srv"
	echo "$c"
}
# the VM's tool as a server (the rxe self-test's client adds its address)
vm_tool() {
	stock_cmd vm server
}
# ernic-testpmd's application arguments (same flags)
us_tool() {
	local a=("$TOOL")
	if [ "$TOOL" = pingpong ]; then
		a+=(-g 1 -s "$SIZE" -n "$ITERS" -m "$MTU")
	elif [ "$TOOL" = integrity ]; then
		a+=(-g 1 -m "$MTU")
	else
		a+=(-x 1 -F -n "$ITERS" -u "$QPTO")
		[ "$TOOL" = atomic_bw ] || a+=(-s "$SIZE")
		case "$TOOL" in *_bw) a+=(--report_gbits) ;; esac
		[ -n "$QPS" ] && a+=(-q "$QPS")
		[ -n "$INLINE" ] && a+=(-I "$INLINE")
		[ $BIDIR = 1 ] && a+=(-b)
		[ $RDMACM = 1 ] && a+=(-R)
		# the per-worker and recovery counters, checked below
		[ "$WORKERS" = 1 ] && [ -z "$LOSS" ] || a+=(--xstats)
	fi
	echo "${a[@]}"
}

CONSOLE=$OUT/peer-console.log
# our side's output: ernic-testpmd's, or with V the stock tool's stdout
# (its rows) and stderr (the provider's and DPDK's lines) apart
if [ $VERBS = 1 ]; then
	US_NAME="$VBIN over libernic_verbs.so" US_OUT=$OUT/verbs-tool.out US_ERR=$OUT/verbs-tool.err
else
	US_NAME=ernic-testpmd US_OUT=$OUT/ernic-testpmd.out US_ERR=
fi
PCAP=$OUT/rocev2.pcap
SCRIPT=$OUT/peer-cmd.sh
[ $RDMACM = 1 ] && [ $PINGPONG = 1 ] && iop_fail "$CASE: the ibv_*_pingpong tools have no rdma_cm mode"
[ $RDMACM = 1 ] && [ "$TOOL" = integrity ] && iop_fail "$CASE: iop-integrity has no rdma_cm mode"
echo "case $CASE: $TOOL, path MTU $MTU, size $SIZE, $ITERS iterations${QPS:+, $QPS $([ $CMTOOL = 1 ] && echo connections || echo QPs)}$([ $BIDIR = 1 ] && echo ", bidirectional")$([ $RDMACM = 1 ] && echo ", rdma_cm")$([ $IPV6 = 1 ] && echo ", IPv6")$([ $CHECK = 1 ] && echo ", data checked")$([ $CAS = 1 ] && echo ", CMP_AND_SWAP")$([ $FEAT = 1 ] && echo ", feature phases")${INLINE:+, inline up to $INLINE B}$([ "$WORKERS" != 1 ] && echo ", $WORKERS workers")$([ $XDP = 1 ] && echo ", net_af_xdp + XDP steering"), $US_NAME as $ROLE; accel $(iop_accel); results in $OUT"

# vm_job DIR SCRIPT: the case's tool in the VM (recorded in peer-cmd.sh),
# at most the case's time limit; its id in VM_JOB
vm_job() {
	echo "$2" >> "$SCRIPT"
	iop_job "$1" "$TIMEOUT" "$2"
	VM_JOB=$IOP_JOB
	IOP_JOB_OPEN=$VM_JOB
}
# vm_lost DIR: the VM did not answer a job: LOST says why (the case fails,
# and a failed case stops the peer: the next case boots a new one)
LOST=
vm_lost() {
	if kill -0 "$(cat "$1/qemu.pid")" 2>/dev/null; then
		LOST="the VM answered nothing, not even the kill of its job: it is wedged"
	else
		LOST="the VM has gone (QEMU ended: see peer-kernel.log)"
	fi
}
# vm_end DIR SECONDS: VM_JOB's exit status in VM_RC once it ended, killed
# if still running after SECONDS; 97 when the VM did not answer even the
# kill
vm_end() {
	VM_RC=$(iop_job_end "$1" "$VM_JOB" "$2") || { VM_RC=97; vm_lost "$1"; }
	IOP_JOB_OPEN=
}
# counters DIR: rxe's counters of the case (IOP-COUNTERS in the log)
counters() {
	[ -n "$LOST" ] && return
	iop_job "$1" 20 iop-counters
	iop_job_wait "$1" "$IOP_JOB" 30 > /dev/null || vm_lost "$1"
}
: > "$SCRIPT"

if [ "$ROLE" = rxe ]; then
	# ---- harness self-test: two VMs of its own, rxe (server, .2) <-> rxe
	# (client, .3), on a bridge in a namespace of its own
	iop_netns
	BR=sfb$$
	iop_bridge "$BR" "$LINK_MTU"
	iop_tap "sfa$$" "$LINK_MTU"
	iop_tap "sfc$$" "$LINK_MTU"
	ip -n "$IOP_NS" link set "sfa$$" master "$BR"
	ip -n "$IOP_NS" link set "sfc$$" master "$BR"
	iop_capture "$BR" "$PCAP"
	IOP_TMP=$(mktemp -d "$IOP_WORK/tmp.XXXXXX")
	VA=$IOP_TMP/a VB=$IOP_TMP/b
	iop_vm "$VA" A "sfa$$" "$PEER_IP/24" "$PEER_MAC" "$LINK_MTU" "$TIMEOUT"
	iop_vm "$VB" B "sfc$$" 198.18.0.3/24 02:00:c6:12:00:03 "$LINK_MTU" "$TIMEOUT"
	iop_capture_ready
	US_RC=97 VM_RC=97 READY=
	if iop_wait_line "$VA" '^IOP-SERVING' "$(remaining)" > /dev/null &&
		iop_wait_line "$VB" '^IOP-SERVING' "$(remaining)" > /dev/null; then
		PEER_NOTE="two VMs of its own, serving after $((SECONDS - T0))s"
		iop_setup "$VB" "mtu=$LINK_MTU" && iop_setup "$VA" "mtu=$LINK_MTU" && READY=$IOP_READY
	fi
	if [ -n "$READY" ]; then
		vm_job "$VA" "iop-server $(vm_tool)"
		JOB_A=$VM_JOB
		vm_job "$VB" "iop-client 90 $(vm_tool) $PEER_IP"
		vm_end "$VB" "$(remaining)"
		US_RC=$VM_RC VM_JOB=$JOB_A
		vm_end "$VA" 30
		counters "$VA"
	fi
	cp "$VA/ctl.log" "$CONSOLE"
	cp "$VB/ctl.log" "$OUT/peer-b-console.log"
	tr -d '\r' < "$VA/console.log" > "$OUT/peer-kernel.log"
	tr -d '\r' < "$VB/console.log" > "$OUT/peer-b-kernel.log"
	US_OUT=$OUT/peer-b-console.log
	QEMU_LOG=$VA/qemu.log
	SRCS=(--require-src "$PEER_IP" --require-src 198.18.0.3)
else
	# ---- ernic-testpmd against the persistent peer, in its namespace: the
	# VM's eth0 on tap RTAP, its eth1 (the side channel) on OTAP
	iop_peer_acquire "$OUT" "$(remaining)"
	PDIR=$IOP_PEER/vm RTAP=$PEER_RTAP OTAP=$PEER_OTAP QEMU_LOG=$IOP_PEER/vm/qemu.log
	if [ $IOP_PEER_FRESH = 1 ]; then
		PEER_NOTE="booted for this case, serving after ${PEER_BOOT_S}s"
	else
		PEER_NOTE="case $((PEER_CASES + 1)) of a peer up for $(($(date +%s) - PEER_BOOTED))s"
	fi
	ip -n "$IOP_NS" link set "$RTAP" mtu "$LINK_MTU" up || iop_fail "cannot set MTU $LINK_MTU on $RTAP"
	if [ $XDP = 1 ]; then
		# VM -- tap -- bridge -- veth XA == XB: net_af_xdp with our
		# program on XB, and the kernel's own address there. Not
		# net_af_xdp on the tap itself: frames redirected to an AF_XDP
		# socket and the socket's TX skip the packet taps of that
		# interface, so tshark on it would see no RoCE. On the tap,
		# a bridge port, every frame passes the taps.
		BR=sfb$$ XA=sfxa$$ XB=sfxb$$
		# veth runs XDP programs without multi-buffer support only
		# up to about 3.5 KB MTU (its peer's)
		XMTU=$((LINK_MTU > 3500 ? 3500 : LINK_MTU))
		iop_bridge "$BR" "$LINK_MTU"
		# ARP for the namespace's addresses only from XB: the bridge's
		# own stack would answer too (Linux answers ARP for any local
		# address on any interface, arp_ignore=0), with its MAC, and the
		# VM's RoCE to the shared address would go to the kernel
		ip -n "$IOP_NS" link set "$BR" arp off
		ip netns exec "$IOP_NS" sysctl -qw net.ipv4.conf.all.arp_ignore=1
		ip -n "$IOP_NS" link set "$RTAP" master "$BR" || iop_fail "cannot bridge $RTAP"
		ip -n "$IOP_NS" link add "$XA" mtu "$XMTU" type veth peer name "$XB" \
			mtu "$XMTU" address "$US_MAC" || iop_fail "cannot create veth $XA/$XB"
		for i in "$XA" "$XB"; do
			ip netns exec "$IOP_NS" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
		done
		ip -n "$IOP_NS" link set "$XA" master "$BR" up || iop_fail "cannot bridge $XA"
		ip -n "$IOP_NS" addr add "$OOB_US/24" dev "$XB" || iop_fail "cannot address $XB"
		ip -n "$IOP_NS" link set "$XB" up
		snmp() {  # PROTO FIELD: a counter of the namespace's kernel
			ip netns exec "$IOP_NS" awk -v p="$1:" -v f="$2" '
				$1 == p && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
				$1 == p && h && c { print $c }' /proc/net/snmp
		}
		INADDR0=$(snmp Ip InAddrErrors) TCPIN0=$(snmp Tcp InSegs) NOPORTS0=$(snmp Udp NoPorts)
		# the VM has a single NIC: eth1 down
		VM_OOB=none
	else
		iop_check_addr "$OOB_US"
		ip -n "$IOP_NS" addr add "$OOB_US/24" dev "$OTAP" && ip -n "$IOP_NS" link set "$OTAP" up ||
			iop_fail "cannot put $OOB_US on $OTAP"
		VM_OOB=$OOB_PEER/24
	fi
	# the VM for this case: eth0's MTU, the side channel, empty neighbour
	# tables (each case resolves addresses as after a boot), a global
	# IPv6 address (2001:2::2, a GID of rxe0) only in the 6 cases
	SETUP=("mtu=$LINK_MTU" "oob=$VM_OOB" "ip6=$([ $IPV6 = 1 ] && echo "$PEER_IP6/64" || echo none)")
	[ "${IOP_STATIC_ARP:-0}" = 1 ] && SETUP+=("neigh=$US_IP@$US_MAC")
	# (tshark starts meanwhile: the set-up sends no RoCE)
	iop_capture "$RTAP" "$PCAP"
	iop_setup "$PDIR" "${SETUP[@]}"
	READY=$IOP_READY
	iop_capture_ready
	# host end of the RoCE tap, counted from here: TX = toward the VM
	# (drops: its queue overflowed)
	tapstats() {
		ip -n "$IOP_NS" -s link show "$RTAP" 2>/dev/null | awk '
			/RX:/ { getline; rx = $2; rxd = $4 } /TX:/ { getline; tx = $2; txd = $4 }
			END { print tx + 0, txd + 0, rx + 0, rxd + 0 }'
	}
	read -r TX0 TXD0 RX0 RXD0 <<< "$(tapstats)"
	# Our port on the tap. net_af_packet (qdisc_bypass=0: a bypassed TX
	# would hide our frames from tshark) for path MTU 1024; DPDK 22.11's
	# net_af_packet reports max_rx_pktlen 1518 whatever its framesz, so a
	# 4096 path MTU (frames of 4096 + 92 bytes of headers) uses net_pcap on
	# the same tap. IOP_PORT=af_packet|pcap overrides.
	PORTDRV=${IOP_PORT:-$([ "$MTU" = 4096 ] && echo pcap || echo af_packet)}
	[ $XDP = 1 ] && PORTDRV=af_xdp
	case "$PORTDRV" in
	# framecnt: 4096 RX frames (default 512), room for 4 MiB of rxe's
	# traffic while a loaded host does not schedule us (net_af_packet
	# counts no drops: a full ring loses frames silently and rxe retries)
	af_packet) AFP="net_af_packet0,iface=$RTAP,qdisc_bypass=0,framecnt=4096" ;;
	pcap) AFP="net_pcap0,iface=$RTAP" ;;
	af_xdp) AFP="net_af_xdp0,iface=$XB,xdp_prog=$IOP_XDP_OBJ,start_queue=0" ;;
	*) iop_fail "IOP_PORT=$PORTDRV: af_packet or pcap" ;;
	esac
	UNDER=${AFP%%,*} FAULT=()
	if [ -n "$LOSS" ]; then
		# lossN: net_fault between net_ernic and the tap's port (a
		# fixed seed: the same frames each run)
		FAULT=("--vdev=net_fault0,port=$UNDER,loss=$LOSS,dir=both,seed=7")
		UNDER=net_fault0
	fi
	ERNIC="net_ernic0,port=$UNDER,ip=$US_IP,mac=$US_MAC,pmtu=$MTU"
	[ "$WORKERS" = 1 ] || ERNIC+=",workers=$WORKERS"
	[ -z "${IOP_ERNIC_EXTRA:-}" ] || ERNIC+=",$IOP_ERNIC_EXTRA"
	EAL=(-l 0 --no-huge -m 512 --no-pci --no-shconf --no-telemetry --log-level=pmd.net.ernic:info
		"--vdev=$AFP" "${FAULT[@]}" "--vdev=$ERNIC")
	read -r -a UARGS <<< "$(us_tool) ${IOP_US_EXTRA:-}"
	# An ASan build (devtools/test.sh, sanitizer stage) checks leaks at
	# exit: with net_af_xdp, DPDK's driver leaks its XDP program's
	# bpf_object and libxdp's UMEM struct (third-party, as in
	# test/app/xdp_veth.sh; test/app/lsan-af_xdp.supp says whose). The
	# slow unwinder lets that suppression see the driver in the stacks of
	# libbpf's and libxdp's allocations. No effect on a release build.
	US_ENV=()
	[ $XDP = 1 ] && US_ENV=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
		LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$HERE/../app/lsan-af_xdp.supp")
	start_us() {  # [server address]
		echo "ernic-testpmd ${EAL[*]} -- ${UARGS[*]} $*" > "$US_OUT"
		timeout -k 3 "$TIMEOUT" env "${US_ENV[@]}" ip netns exec "$IOP_NS" "$TESTPMD" "${EAL[@]}" -- "${UARGS[@]}" "$@" \
			>> "$US_OUT" 2>&1 < /dev/null &
		US_PID=$!
		IOP_PIDS+=("$US_PID")
	}
	if [ $VERBS = 1 ]; then
		# V: the provider's file is conf/verbs-rxe.ini with this case's
		# port put in (the peer's tap; net_pcap at path MTU 4096) and
		# lib.verbs at debug level (rdma_cm's calls and events, among
		# them "rdma_listen(...): listening", which us_listening waits for)
		VCONF=$OUT/verbs-rxe.ini
		sed -e "s#^vdev = net_af_packet0,iface=rxepeer0,.*#vdev = $AFP#" \
			-e "/^vdev = net_ernic0,/ { s#port=net_af_packet0,#port=${AFP%%,*},#; s#pmtu=1024\$#pmtu=$MTU# }" \
			-e "/^args = / s#\$# --log-level=lib.verbs:debug#" "$IOP_CONF/verbs-rxe.ini" > "$VCONF"
		grep -qx "vdev = $AFP" "$VCONF" &&
			grep -qx "vdev = net_ernic0,port=${AFP%%,*},ip=$US_IP,ip6=$US_IP6,mac=$US_MAC,pmtu=$MTU" "$VCONF" &&
			grep -q "^args = .*--log-level=lib.verbs:debug\$" "$VCONF" ||
			iop_fail "$IOP_CONF/verbs-rxe.ini is not as run-case.sh expects it (the tap's and the RoCE port's vdev lines, [eal] args): see $VCONF"
		# an ASan build of the library needs the sanitizer's runtime
		# first in the stock program; the stock tools free little of
		# what they take before they exit: no leak check on them (as
		# test/verbs/common.sh's set_preload, here only in the tool's
		# environment: the capture checks keep theirs)
		VPRELOAD=$IOP_VERBS_LIB
		VASAN=$(ldd "$IOP_VERBS_LIB" 2>/dev/null | awk '/libasan/ {print $3}')
		V_ENV=(SOFTERNIC_CONFIG="$VCONF")
		if [ -n "$VASAN" ]; then
			VPRELOAD="$VASAN $IOP_VERBS_LIB"
			V_ENV+=(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
		fi
		V_ENV+=(LD_PRELOAD="$VPRELOAD")
		read -r -a VARGS <<< "$(stock_cmd us "$ROLE")"
		# glibc's getaddrinfo() (the rdma_cm tools' default hints,
		# AI_ADDRCONFIG) refuses an IPv6 literal on a host without a
		# global IPv6 address, and the namespace's taps have IPv6 off: a
		# 2001:2::/48 address on its lo, which no frame carries (deleted
		# with the case, iop_peer_reset_ns)
		if [ $IPV6 = 1 ] && [ $RDMACM = 1 ]; then
			ip -n "$IOP_NS" addr add 2001:2:0:ff::1/128 dev lo ||
				iop_fail "cannot put 2001:2:0:ff::1 on the namespace's lo"
		fi
		start_us() {  # (the server's address is in VARGS)
			{
				echo "SOFTERNIC_CONFIG=$VCONF LD_PRELOAD=\"$VPRELOAD\" ${VARGS[*]}"
				cat "$VCONF"
			} | sed 's/^/# /' > "$US_ERR"
			: > "$US_OUT"
			timeout -k 3 "$TIMEOUT" ip netns exec "$IOP_NS" env "${V_ENV[@]}" "${VARGS[@]}" \
				>> "$US_OUT" 2>> "$US_ERR" < /dev/null &
			US_PID=$!
			IOP_PIDS+=("$US_PID")
		}
	fi
	# us_listening SECONDS: until our server listens (or has ended): on
	# the side channel's TCP port, or with rdma_cm once it says so
	# (ernic-testpmd, or the provider's rdma_listen() trace; the port,
	# which answers the VM's ARP and neighbour solicitations, is up by
	# then)
	us_listening() {
		local end=$((SECONDS + $1))
		while [ $SECONDS -lt $end ] && kill -0 "$US_PID" 2>/dev/null; do
			if [ $RDMACM = 1 ] && [ $VERBS = 1 ]; then
				grep -aq '^softernic verbs: rdma_listen(.*: listening$' "$US_ERR" && return 0
			elif [ $RDMACM = 1 ]; then
				grep -aq 'Waiting for client to connect' "$US_OUT" && return 0
			else
				ip netns exec "$IOP_NS" ss -Hltn "sport = :$LPORT" | grep -q . && return 0
			fi
			sleep 0.1
		done
	}
	US_PID=
	if [ -z "$READY" ]; then
		echo "FAIL: the peer VM was not set up for the case" > "$US_OUT"
	elif [ "$ROLE" = server ]; then
		# the VM's client once we listen: its TCP client retries a
		# refused connection only after 1 s, its rdma_cm does not
		# retry an unanswered address resolution
		start_us
		us_listening 30
		vm_job "$PDIR" "iop-client 90 $(stock_cmd vm client)"
	else
		vm_job "$PDIR" "IOP_PORT=$LPORT iop-server $(stock_cmd vm server)"
		L=$(iop_wait_line "$PDIR" "^IOP-LISTENING|^IOP-DONE $VM_JOB " 90)
		if [ "${L%% *}" = IOP-LISTENING ]; then
			start_us "$SRV_PEER"
		else
			echo "FAIL: the peer's server never listened" > "$US_OUT"
		fi
	fi
	US_RC=97 VM_RC=97
	if [ -n "$US_PID" ]; then
		iop_wait_pid "$US_PID" "$(remaining)"
		US_RC=$?
	fi
	# the VM's tool ends by itself once ours is done
	if [ -n "$READY" ]; then
		vm_end "$PDIR" $((US_RC == 0 ? 60 : 20))
		counters "$PDIR"
	fi
	iop_peer_logs "$OUT"
	SRCS=(--require-src "$US_IP" --require-src "$PEER_IP")
	[ $IPV6 = 1 ] && SRCS=(--require-src "$US_IP6" --require-src "$PEER_IP6")
	read -r TX1 TXD1 RX1 RXD1 <<< "$(tapstats)"
	TAPSTATS="to VM $((TX1 - TX0)) packets ($((TXD1 - TXD0)) dropped), from VM $((RX1 - RX0)) packets ($((RXD1 - RXD0)) dropped)"
fi

iop_capture_stop
T_RUN=$((SECONDS - T0))

# ---------------------------------------------------------------- verdict
FAILS=()
[ "$US_RC" = 0 ] || FAILS+=("$([ "$ROLE" = rxe ] && echo "rxe client VM" || echo "$US_NAME") rc=$US_RC$([ "$US_RC" = 124 ] && echo " (timeout)")")
[ "$VM_RC" = 0 ] || FAILS+=("rxe $([ "$ROLE" = server ] && echo client || echo server) VM rc=$VM_RC$(
	case "$VM_RC" in 97) echo " (it never ran, or the VM did not answer)" ;; 137) echo " (still running at the end: killed)" ;; esac)")
[ -z "$LOST" ] || FAILS+=("$LOST")
CON=$(tr -d '\r' < "$CONSOLE" 2>/dev/null)
READY=$(grep -a -m1 '^IOP-READY' <<< "$CON")
[ -n "$READY" ] || FAILS+=("the peer VM never became ready")
AMTU=$(sed -n 's/.* active_mtu=\([0-9]*\).*/\1/p' <<< "$READY")
[ -z "$READY" ] || [ "$AMTU" = "$MTU" ] || FAILS+=("rxe active_mtu is $AMTU, not $MTU")
# the tools must have run at the requested path MTU and printed their results
if [ "$TOOL" = integrity ]; then
	# each side checked every byte; both print the same three checksums
	# (of the WRITE, READ and SEND data), and at the agreed path MTU
	I_US=$(grep -a '^integrity: PASS' "$US_OUT" | tail -1)
	I_VM=$(grep -a '^integrity: PASS' <<< "$CON" | tail -1)
	[ -n "$I_US" ] || FAILS+=("$US_NAME printed no 'integrity: PASS' line")
	[ -n "$I_VM" ] || FAILS+=("iop-integrity printed no 'integrity: PASS' line")
	[ -z "$I_US" ] || [ -z "$I_VM" ] || [ "$I_US" = "$I_VM" ] ||
		FAILS+=("the checksums differ: ours '$I_US', the VM's '$I_VM'")
	for f in "$US_OUT" "$CONSOLE"; do
		grep -aq "^integrity: local QPN .*path MTU $TOOL_MTU" "$f" || FAILS+=("$(basename "$f"): no path MTU $TOOL_MTU line")
	done
	if [ $FEAT = 1 ]; then
		# the same line on both sides: the passive side's buffer
		# checked byte by byte, the checksums and the atomic agree
		F_US=$(grep -a '^integrity: features PASS' "$US_OUT" | tail -1)
		F_VM=$(grep -a '^integrity: features PASS' <<< "$CON" | tail -1)
		[ -n "$F_US" ] || FAILS+=("$US_NAME printed no 'integrity: features PASS' line")
		[ -n "$F_VM" ] || FAILS+=("iop-integrity in the VM printed no 'integrity: features PASS' line")
		[ -z "$F_US" ] || [ -z "$F_VM" ] || [ "$F_US" = "$F_VM" ] ||
			FAILS+=("the feature results differ: ours '$F_US', the VM's '$F_VM'")
		# the passive side (the one without SERVER) answered the RNR
		# NAKs and the remote access NAK
		if [ "$ROLE" = client ]; then PASSIVE=$PEER_IP; else PASSIVE=$US_IP; fi
		iop_feature_check "$PCAP" "$PASSIVE" > "$OUT/pcap-features.txt" 2>&1 ||
			FAILS+=("feature opcodes/NAKs in the capture (pcap-features.txt)")
	fi
elif [ $PINGPONG = 1 ]; then
	if [ "$US_RC" = 0 ] && [ "$VM_RC" = 0 ]; then
		grep -aq "$ITERS iters in" <<< "$CON" || FAILS+=("the VM printed no '$ITERS iters in' line")
		grep -aq "$ITERS iters in" "$US_OUT" || FAILS+=("$US_NAME printed no '$ITERS iters in' line")
	fi
elif [ "$TOOL" = rping ]; then
	# -v: the client prints each ping it got back, the server each it
	# got ("server ping data: ..."); -V failed either on a wrong byte
	if [ "$US_RC" = 0 ] && [ "$VM_RC" = 0 ]; then
		if [ "$ROLE" = client ]; then C_TXT=$(cat "$US_OUT") S_TXT=$CON; else C_TXT=$CON S_TXT=$(cat "$US_OUT"); fi
		N_C=$(grep -acE '^ping data: rdma-ping-[0-9]+: ' <<< "$C_TXT")
		N_S=$(grep -acE '^server ping data: rdma-ping-[0-9]+: ' <<< "$S_TXT")
		[ "$N_C" -ge "$ITERS" ] || FAILS+=("the rping client printed $N_C of $ITERS pings")
		[ "$N_S" -ge "$ITERS" ] || FAILS+=("the rping server printed $N_S of $ITERS pings")
	fi
elif [ $CMTOOL = 1 ]; then
	# ucmatose, udaddy: every connection's messages each way, then
	# "return status 0" (both print it only when everything completed)
	if [ "$US_RC" = 0 ] && [ "$VM_RC" = 0 ]; then
		for f in "$CONSOLE" "$US_OUT"; do
			grep -aq '^data transfers complete' "$f" || FAILS+=("$(basename "$f"): no 'data transfers complete'")
			grep -aq '^return status 0' "$f" || FAILS+=("$(basename "$f"): no 'return status 0'")
		done
	fi
else
	if [ "$US_RC" = 0 ] && [ "$VM_RC" = 0 ]; then
		for f in "$CONSOLE" "$US_OUT"; do
			grep -aqE "Mtu +: $TOOL_MTU\[B\]" "$f" || FAILS+=("$(basename "$f"): no 'Mtu : $TOOL_MTU[B]' line")
			# read_lat, atomic_lat: only the client measures and prints a row
			if [ "$TOOL" = read_lat ] || [ "$TOOL" = atomic_lat ]; then
				case "$ROLE:$f" in client:"$CONSOLE" | server:"$US_OUT" | rxe:"$CONSOLE") continue ;; esac
			fi
			grep -aqE "^ *$SIZE +[0-9]+ +[0-9.]+" "$f" && continue
			# perftest in the TCG VM times with cycles calibrated by a
			# linear fit against gettimeofday; on a loaded host the fit
			# can fail (r^2 < 0.9) and the row shows "inf" times. The
			# iterations ran (the row is printed after them); only the
			# VM's timing is void, ours is checked.
			if [ "$f" = "$CONSOLE" ] &&
			   grep -aqE '^Correlation coefficient r\^2: [0-9.]+ < 0\.9' "$f" &&
			   grep -aqE "^ *$SIZE +[0-9]+ +inf " "$f"; then
				echo "note: the VM's perftest could not calibrate its clock (r^2 < 0.9): its row has no times"
				continue
			fi
			FAILS+=("$(basename "$f"): no result row for $SIZE bytes")
		done
	fi
fi
# --no-srx: Linux never negotiates selective repeat, no frame may carry it
"$PCAPCHECK" --min 4 --no-srx "${SRCS[@]}" "$PCAP" > "$OUT/pcap-icrc.txt" 2>&1 || FAILS+=("pcap ICRC/parse check")
iop_tshark_check "$PCAP" > "$OUT/pcap-tshark.txt" 2>&1 || FAILS+=("tshark decode check")
if [ $RDMACM = 1 ] && [ "$ROLE" != rxe ]; then
	# perftest: both connections (comm and test QPs) set up and torn down
	# with CM MADs; rping one, ucmatose one a QP; udaddy's resolved (SIDR)
	case "$TOOL" in
	rping) CM_N=(1) ;;
	ucmatose) CM_N=("$QPS") ;;
	udaddy) CM_N=("$QPS" sidr) ;;
	*) CM_N=($((1 + ${QPS:-1}))) ;;
	esac
	iop_cm_check "$PCAP" "${CM_N[@]}" > "$OUT/pcap-cm.txt" 2>&1 || FAILS+=("rdma_cm MAD check")
fi
if [ $XDP = 1 ]; then
	# net_ernic published its address with ARP (no kernel address), the
	# program's counters (logged at the port's stop) show RoCE and ARP
	# steered and the side channel passed, and the kernel got no frame
	# for net_ernic's address (IP InAddrErrors unchanged).
	# xs: the kernel holds the address and answers its ARP (none
	# steered), net_ernic resolved the VM through the kernel's table, and
	# the kernel saw no RoCE (Udp NoPorts unchanged: no port unreachable)
	if [ $XDP_SHARED = 1 ]; then
		grep -aq "steers RoCEv2 to $US_IP (the kernel holds it and answers ARP/ND)" "$US_OUT" ||
			FAILS+=("net_ernic did not publish $US_IP as the kernel's address to the XDP program")
		grep -aq "neighbours resolved through the kernel of $XB (neigh=auto)" "$US_OUT" ||
			FAILS+=("net_ernic does not resolve through the kernel of $XB")
		ip -n "$IOP_NS" neigh show "$PEER_IP" dev "$XB" | grep -q "lladdr $PEER_MAC" ||
			FAILS+=("the kernel's neighbour table has no $PEER_IP at $PEER_MAC")
	else
		grep -aq "steers RoCEv2 to $US_IP and its ARP/ND (not a kernel address)" "$US_OUT" ||
			FAILS+=("net_ernic did not publish $US_IP with its ARP to the XDP program")
	fi
	[ "$TOOL_MTU" = "$MTU" ] ||
		grep -aq "pmtu=$MTU lowered to path MTU $TOOL_MTU" "$US_OUT" ||
		FAILS+=("net_ernic did not say it lowered pmtu=$MTU to $TOOL_MTU")
	XDPCNT=$(grep -ao "XDP program [0-9]* on $XB: .*" "$US_OUT" | tail -1)
	xdp_cnt() { sed -n "s/.*$1 \([0-9]*\).*/\1/p" <<< "$XDPCNT"; }
	X_ROCE=$(xdp_cnt redirect_roce) X_NEIGH=$(xdp_cnt redirect_neigh) X_PASS=$(xdp_cnt pass_not_roce)
	[ "${X_ROCE:-0}" -ge 4 ] || FAILS+=("XDP: RoCE redirected ${X_ROCE:-?} (counters: ${XDPCNT:-not logged})")
	if [ $XDP_SHARED = 1 ]; then
		[ "${X_NEIGH:-1}" = 0 ] ||
			FAILS+=("XDP: ARP for the kernel's $US_IP steered away from it (counters: ${XDPCNT:-not logged})")
	else
		[ "${IOP_STATIC_ARP:-0}" = 1 ] || [ "${X_NEIGH:-0}" -ge 1 ] ||
			FAILS+=("XDP: no ARP for $US_IP steered to net_ernic (counters: ${XDPCNT:-not logged})")
	fi
	# the TCP side channel: the VM has no other NIC, so the kernel on our
	# interface carried it. The program passed the VM's segments (at
	# least its SYN before our port stopped; how many of the rest come
	# before the stop varies) and the kernel received them.
	INADDR1=$(snmp Ip InAddrErrors) TCPIN1=$(snmp Tcp InSegs) NOPORTS1=$(snmp Udp NoPorts)
	[ "$NOPORTS1" = "$NOPORTS0" ] || FAILS+=("the kernel got UDP for closed ports: RoCE? (Udp NoPorts $NOPORTS0 -> $NOPORTS1)")
	if [ $RDMACM = 0 ]; then
		[ "${X_PASS:-0}" -ge 1 ] || FAILS+=("XDP: no TCP of the side channel passed to the kernel (counters: ${XDPCNT:-not logged})")
		[ $((TCPIN1 - TCPIN0)) -ge 3 ] ||
			FAILS+=("the kernel received $((TCPIN1 - TCPIN0)) TCP segments (side channel: SYN, ACK, data at least)")
	fi
	[ "$INADDR1" = "$INADDR0" ] || FAILS+=("the kernel got frames for $US_IP (IP InAddrErrors $INADDR0 -> $INADDR1)")
fi
if [ "$WORKERS" != 1 ] && [ "$US_RC" = 0 ]; then
	# every worker of the port sent RoCE for its QPs; the one RX queue
	# (worker 0's) handed the others' frames over
	xstat() { awk -v n="$1" '$1 == "xstat" && $2 == "net_ernic0" && $3 == n { print $4 }' "$US_OUT"; }
	W_STATS=
	for ((w = 0; w < WORKERS; w++)); do
		v=$(xstat "worker${w}_tx_roce")
		W_STATS+=" worker${w}_tx_roce=${v:-0}"
		[ "${v:-0}" -gt 0 ] || FAILS+=("worker $w of net_ernic0 sent no RoCE frame (--xstats)")
	done
	v=$(xstat rx_roce_handoff)
	W_STATS+=" worker0_rx_roce=$(xstat worker0_rx_roce) rx_roce_handoff=${v:-0}"
	[ "${v:-0}" -gt 0 ] || FAILS+=("no RoCE frame was handed from worker 0 to another worker (rx_roce_handoff)")
fi
if [ -n "$LOSS" ] && [ "$US_RC" = 0 ]; then
	# frames were lost both ways: our side must have recovered some
	if [ "$TOOL" = integrity ]; then
		L_STATS=$(grep -a '^integrity: recovery' "$US_OUT" | tail -1)
		L_STATS=${L_STATS#integrity: recovery}
		[ "$ROLE" = server ] || grep -qE 'retrans_pkts=[1-9]' <<< "$L_STATS" ||
			FAILS+=("our QP resent nothing through ${LOSS} % loss (integrity: recovery)")
	else
		L_STATS=$(awk '$1 == "xstat" && $2 == "net_ernic0" &&
			($3 ~ /^qp[0-9]+_(retrans_pkts|timeouts|gbn_retx_pkts)$/ ||
			 $3 == "roce_resp_out_of_seq" || $3 == "roce_resp_psn_seq_naks") { printf " %s=%s", $3, $4 }' "$US_OUT")
		grep -qE '(retrans_pkts|roce_resp_out_of_seq)=[1-9]' <<< "$L_STATS" ||
			FAILS+=("no resend and no out-of-sequence packet on our side through ${LOSS} % loss (--xstats)")
	fi
fi
COUNTERS=$(grep -a '^IOP-COUNTERS' <<< "$CON" | sed 's/^IOP-COUNTERS *//')

{
	echo "case: $CASE"
	echo "result: $([ ${#FAILS[@]} = 0 ] && echo PASS || echo FAIL)"
	echo "seconds: $T_RUN (peer: ${PEER_NOTE:-never came up})"
	echo "$US_NAME rc: $US_RC   rxe VM rc: $VM_RC"
	echo "rxe counters: ${COUNTERS:-none}"
	[ -n "${TAPSTATS:-}" ] && echo "tap: $TAPSTATS"
	[ -n "${W_STATS:-}" ] && echo "workers:$W_STATS"
	[ -n "$LOSS" ] && echo "loss: ${LOSS} % each way (net_fault), our recovery:${L_STATS:-}"
	[ -n "${XDPCNT:-}" ] && echo "xdp: ${XDPCNT#XDP program }; kernel IP InAddrErrors $INADDR0 -> $INADDR1, TCP InSegs +$((TCPIN1 - TCPIN0))"
	ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+|iters in|bytes in|^return status'
	grep -aE "$ROWS" "$US_OUT" | sed 's/^/ours: /' | head -5
	grep -aE "$ROWS" <<< "$CON" | sed 's/^/rxe:  /' | head -5
	if [ "$TOOL" = rping ]; then
		echo "ours: $(grep -acE '^(server )?ping data: rdma-ping-' "$US_OUT") pings printed"
		echo "rxe:  $(grep -acE '^(server )?ping data: rdma-ping-' <<< "$CON") pings printed"
	fi
	if [ "$TOOL" = integrity ]; then
		grep -aE '^integrity: (PASS|FAIL|[0-9]+ |features|recovery)' "$US_OUT" | sed 's/^/ours: /'
		grep -aE '^integrity: (PASS|FAIL|[0-9]+ |features)' <<< "$CON" | sed 's/^/rxe:  /'
	fi
	sed -n 's/^/pcap: /p' "$OUT/pcap-icrc.txt" | grep -E 'from|ICRC verified|FAIL|frame' | head -8
	sed 's/^/pcap: /' "$OUT/pcap-tshark.txt" | head -3
	[ -f "$OUT/pcap-cm.txt" ] && sed 's/^/pcap: /' "$OUT/pcap-cm.txt" | head -3
	[ -f "$OUT/pcap-features.txt" ] && sed 's/^/pcap: /' "$OUT/pcap-features.txt" | head -3
} > "$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ ${#FAILS[@]} = 0 ]; then
	[ "${IOP_KEEP:-0}" = 1 ] || rm -f "$PCAP"
	echo "PASS: $CASE in ${T_RUN}s"
	exit 0
fi
echo
for f in "${FAILS[@]}"; do echo "FAIL: $f"; done
echo "==================== $US_NAME output ($US_OUT) ===================="
tail -n 80 "$US_OUT"
if [ -n "$US_ERR" ]; then
	echo "==================== its stderr ($US_ERR) ===================="
	tail -n 60 "$US_ERR"
fi
echo "==================== peer console: the case's jobs ($CONSOLE) ===================="
tail -n 120 <<< "$CON"
echo "==================== peer kernel log during the case ($OUT/peer-kernel.log) ===================="
tail -n 40 "$OUT/peer-kernel.log"
[ -s "${QEMU_LOG:-}" ] && { echo "---- qemu stderr ($QEMU_LOG) ----"; tail -n 20 "$QEMU_LOG"; }
echo "==================== capture checks ($PCAP kept) ===================="
cat "$OUT/pcap-icrc.txt" "$OUT/pcap-tshark.txt"
[ -f "$OUT/pcap-cm.txt" ] && cat "$OUT/pcap-cm.txt"
[ -f "$OUT/pcap-features.txt" ] && cat "$OUT/pcap-features.txt"
echo "FAIL: $CASE"
exit 1
