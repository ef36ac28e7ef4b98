# SPDX-License-Identifier: BSD-3-Clause
# harness.sh: shell library of the interop suite (sourced by run-case.sh and
# peer.sh).
#
# What it does for a case: checks the prerequisites (SKIP = exit 77; under
# CI=true a missing one fails), builds the peer image once (build-peer.sh,
# under a lock), picks KVM or TCG, takes the persistent peer VM (peer.sh:
# booted by the first case, kept up across cases, one case at a time under
# a lock, doc/guides/interop.rst "The persistent peer") or boots private
# VMs in a namespace of its own (the rxe self-test), runs the guest's side
# as jobs through the VM's control port, captures UDP/4791 with tshark, and
# undoes all of it on EXIT/INT/TERM/HUP: processes killed by PID, what the
# case added to the peer's namespace deleted, its own namespace deleted.
# Namespaces left by a process that was SIGKILLed are swept by the next run
# (their name carries the dead PID).
#
# Addresses: 198.18.0.0/15 only (RFC 2544 benchmarking range), nothing is
# routed, no uplink: the namespace holds only lo and the taps/bridge made here.

IOP_DIR=${IOP_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
IOP_WORK=${IOP_WORK:-/tmp/softernic-interop}
# The guest kernel: the newest installed Debian kernel that has rdma_rxe
# (6.1.0-56-amd64 on the reference machine). IOP_KVER overrides.
iop_find_kver() {
	local k v
	for k in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -rV); do
		v=${k#/boot/vmlinuz-}
		[ -d "/lib/modules/$v/kernel/drivers/infiniband/sw/rxe" ] && { echo "$v"; return; }
	done
	uname -r
}
IOP_KVER=${IOP_KVER:-$(iop_find_kver)}
IOP_KERNEL=${IOP_KERNEL:-/boot/vmlinuz-$IOP_KVER}
IOP_IMAGE=${IOP_IMAGE:-$IOP_WORK/peer-$IOP_KVER.cpio.gz}
export IOP_KVER

IOP_NS= IOP_NS_MINE=0 IOP_PIDS=() IOP_TSHARK= IOP_TMP=

iop_log() { echo "[$(date +%T.%3N)] $*" >&2; }
iop_skip() { echo "SKIP: $*"; exit 77; }
iop_fail() { echo "FAIL: $*"; exit 1; }
# A prerequisite that is missing (root, a package, a program not built):
# SKIP, but under CI=true a FAIL: CI must run every case, not skip it.
iop_missing() {
	[ "${CI:-}" = true ] && iop_fail "$* (CI=true: a missing prerequisite fails the case)"
	iop_skip "$*"
}

iop_check_addr() {  # a.b.c.d[/len]: inside 198.18.0.0/15 or die
	case "${1%/*}" in
	198.18.*.* | 198.19.*.*) ;;
	*) iop_fail "address $1 is outside 198.18.0.0/15" ;;
	esac
}

# ---------------------------------------------------------------- prerequisites
iop_require() {
	[ "$(id -u)" = 0 ] || iop_missing "needs root (network namespace, taps, QEMU)"
	[ -c /dev/net/tun ] || iop_missing "no /dev/net/tun"
	[ -r /dev/net/tun ] && [ -w /dev/net/tun ] || iop_missing "/dev/net/tun not usable"
	command -v qemu-system-x86_64 >/dev/null || iop_missing "no qemu-system-x86_64 (devtools/deps.sh interop)"
	command -v tshark >/dev/null || iop_missing "no tshark (devtools/deps.sh interop)"
	command -v ip >/dev/null || iop_missing "no ip (iproute2)"
	command -v flock >/dev/null || iop_missing "no flock (util-linux)"
	[ -r "$IOP_KERNEL" ] || iop_missing "no readable $IOP_KERNEL (linux-image-$IOP_KVER)"
	ip netns add "sfniopprobe$$" 2>/dev/null || iop_missing "cannot create a network namespace here"
	ip netns del "sfniopprobe$$"
	mkdir -p "$IOP_WORK"
}

# iop_ns_destroy NS: kill whatever runs in NS, delete its links, then NS.
iop_ns_destroy() {
	local l
	ip netns pids "$1" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	for l in $(ip -n "$1" -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
		[ "$l" = lo ] || ip -n "$1" link del "$l" 2>/dev/null
	done
	ip netns del "$1" 2>/dev/null
}

# Sweep namespaces of earlier runs whose process is gone (SIGKILL, OOM):
# a case's, or a persistent peer's (peer.sh, named after its PID too).
iop_sweep() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^sfniop[0-9]+$'); do
		pid=${ns#sfniop}
		[ -d "/proc/$pid" ] && continue
		iop_log "removing stale namespace $ns (pid $pid is gone)"
		iop_ns_destroy "$ns"
	done
}

# KVM only when it can run the stock Debian kernel: VT-x/AMD-V present,
# not PVM (kvm_pvm runs only PVM-enabled guest kernels: the Debian kernel
# hangs in its decompressor there), and a probe boot that panics at once on
# an empty initramfs ends within 15 s. Cached; IOP_ACCEL=kvm|tcg overrides.
iop_accel() {
	if [ -n "${IOP_ACCEL:-}" ] && [ "$IOP_ACCEL" != auto ]; then
		echo "$IOP_ACCEL"
		return
	fi
	local cache=$IOP_WORK/accel a=tcg empty
	if [ -s "$cache" ]; then
		cat "$cache"
		return
	fi
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo &&
		[ ! -d /sys/module/kvm_pvm ]; then
		empty=$(mktemp "$IOP_WORK/empty.XXXXXX")
		if timeout -k 2 15 qemu-system-x86_64 -accel kvm -machine pc -cpu host -m 128M \
			-nodefaults -no-user-config -display none -no-reboot \
			-kernel "$IOP_KERNEL" -initrd "$empty" -append "panic=-1" >/dev/null 2>&1; then
			a=kvm
		fi
		rm -f "$empty"
	fi
	echo "$a" > "$cache.$$" && mv "$cache.$$" "$cache"
	echo "$a"
}

# Build the peer image unless it is newer than its sources (once, locked).
iop_image() {
	local extra=("$@") src newer rc=0
	exec 8>"$IOP_WORK/.image.lock"
	flock 8
	if [ -f "$IOP_IMAGE" ]; then
		newer=$(find "$IOP_DIR/build-peer.sh" "$IOP_DIR/guest" "${extra[@]}" -newer "$IOP_IMAGE" -type f 2>/dev/null | head -1)
		[ -z "$newer" ] && { flock -u 8; return 0; }
	fi
	"$IOP_DIR/build-peer.sh" "$IOP_IMAGE" "${extra[@]}" >&2 || rc=$?
	flock -u 8
	[ $rc = 77 ] && iop_missing "peer image: a package is missing (see above)"
	[ $rc = 0 ] || iop_fail "peer image build failed (rc=$rc)"
}

# The kernel QEMU boots. Debian's bzImage is XZ-compressed, and under TCG
# its decompressor runs emulated: 35-50 s of a case's 60-110 s on a loaded
# 2-core host, about 5 s idle. With CONFIG_PVH the uncompressed vmlinux
# boots directly through its PVH entry (QEMU >= 4.0), so it is extracted
# once into IOP_WORK (locked, atomic) and used when it has the PVH note;
# otherwise, or with IOP_PVH=0, the bzImage boots as before.
iop_boot_kernel() {
	local v=$IOP_WORK/vmlinux-$IOP_KVER
	if [ "${IOP_PVH:-1}" = 1 ] && [ ! -s "$v" ] && [ ! -e "$v.nopvh" ] &&
		command -v readelf >/dev/null && command -v python3 >/dev/null; then
		exec 7>"$IOP_WORK/.vmlinux.lock"
		flock 7
		if [ ! -s "$v" ]; then
			python3 - "$IOP_KERNEL" "$v.$$" <<'PY' && mv "$v.$$" "$v"
import lzma, sys, zlib
d = open(sys.argv[1], 'rb').read()
for magic, dec in ((b'\xfd7zXZ\x00', lambda b: lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(b)),
                   (b'\x1f\x8b\x08', lambda b: zlib.decompressobj(31).decompress(b))):
    i = d.find(magic)
    if i < 0:
        continue
    try:
        out = dec(d[i:])
    except Exception:
        continue
    if out[:4] == b'\x7fELF':
        open(sys.argv[2], 'wb').write(out)
        sys.exit(0)
sys.exit(1)
PY
			# the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY, type 18)
			if [ -s "$v" ] && ! readelf -n "$v" 2>/dev/null | grep -q 'Xen .*0x00000012'; then
				rm -f "$v"
				: > "$v.nopvh"
			fi
			rm -f "$v.$$"
		fi
		flock -u 7
	fi
	if [ "${IOP_PVH:-1}" = 1 ] && [ -s "$v" ]; then
		echo "$v"
	else
		echo "$IOP_KERNEL"
	fi
}

# ---------------------------------------------------------------- clean-up
iop_cleanup() {
	local rc=$? p
	trap - EXIT INT TERM HUP
	# peer.sh ending: no case may take it for alive from here on
	[ "${IOP_PEER_SERVING:-0}" = 1 ] && rm -f "$IOP_PEER/state" "$IOP_PEER/pid"
	if [ -n "$IOP_TSHARK" ] && kill -0 "$IOP_TSHARK" 2>/dev/null; then
		kill -INT "$IOP_TSHARK" 2>/dev/null
	fi
	for p in "${IOP_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for _ in $(seq 1 30); do
		local alive=0
		for p in "${IOP_PIDS[@]}" $IOP_TSHARK; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.1
	done
	for p in "${IOP_PIDS[@]}" $IOP_TSHARK; do kill -KILL "$p" 2>/dev/null; done
	for p in "${IOP_PIDS[@]}" $IOP_TSHARK; do wait "$p" 2>/dev/null; done
	# a case on the persistent peer: its job in the VM stopped, its links
	# deleted from the peer's namespace, the peer stopped if the case
	# failed, the lock given back
	iop_peer_release "$rc"
	# our own namespace, with anything still inside (a grandchild that
	# escaped the kills)
	[ "$IOP_NS_MINE" = 1 ] && iop_ns_destroy "$IOP_NS"
	[ -n "$IOP_TMP" ] && rm -rf "$IOP_TMP"
	exit $rc
}

iop_traps() {
	trap iop_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
}

# ---------------------------------------------------------------- network
# iop_netns: a fresh namespace "sfniop<PID>" with lo up, deleted at exit.
iop_netns() {
	IOP_NS=sfniop$$
	ip netns add "$IOP_NS" || iop_fail "cannot create namespace $IOP_NS"
	IOP_NS_MINE=1
	ip -n "$IOP_NS" link set lo up
	# never forward, never answer for the taps' traffic
	ip netns exec "$IOP_NS" sysctl -qw net.ipv4.ip_forward=0
}

# iop_tap NAME [MTU] [HOSTADDR/LEN]: a tap in the namespace, IPv6 off, up.
iop_tap() {
	local t=$1 mtu=${2:-} addr=${3:-}
	[ ${#t} -le 15 ] || iop_fail "interface name too long: $t"
	ip -n "$IOP_NS" tuntap add dev "$t" mode tap || iop_fail "cannot create tap $t"
	ip netns exec "$IOP_NS" sysctl -qw "net.ipv6.conf.$t.disable_ipv6=1"
	[ -n "$mtu" ] && { ip -n "$IOP_NS" link set "$t" mtu "$mtu" || iop_fail "cannot set MTU $mtu on $t"; }
	if [ -n "$addr" ]; then
		iop_check_addr "$addr"
		ip -n "$IOP_NS" addr add "$addr" dev "$t" || iop_fail "cannot address $t"
	fi
	ip -n "$IOP_NS" link set "$t" up
}

# iop_bridge NAME [MTU]: a bridge without address (VM-to-VM cases).
iop_bridge() {
	ip -n "$IOP_NS" link add "$1" type bridge stp_state 0 forward_delay 0 ||
		iop_fail "cannot create bridge $1"
	ip netns exec "$IOP_NS" sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1"
	[ -n "${2:-}" ] && ip -n "$IOP_NS" link set "$1" mtu "$2"
	ip -n "$IOP_NS" link set "$1" up
}

# ---------------------------------------------------------------- capture
# iop_capture IFACE PCAP: tshark on IFACE in the namespace, UDP/4791, whole
# frames. It takes a while to start (0.3 s idle): iop_capture_ready waits
# for it, so that the case can do something else meanwhile.
iop_capture() {
	ip netns exec "$IOP_NS" tshark -i "$1" -f "udp port 4791" -F pcap -w "$2" -q \
		> "$2.log" 2>&1 &
	IOP_TSHARK=$! IOP_TSHARK_LOG=$2.log
}

iop_capture_ready() {
	for _ in $(seq 1 150); do
		grep -q "Capturing on" "$IOP_TSHARK_LOG" 2>/dev/null && return 0
		kill -0 "$IOP_TSHARK" 2>/dev/null || break
		sleep 0.1
	done
	iop_fail "tshark did not start: $(cat "$IOP_TSHARK_LOG")"
}

# iop_capture_stop: let tshark write out the last frames and exit.
iop_capture_stop() {
	[ -n "$IOP_TSHARK" ] || return 0
	sleep 0.5
	kill -INT "$IOP_TSHARK" 2>/dev/null
	wait "$IOP_TSHARK" 2>/dev/null
	IOP_TSHARK=
}

# iop_tshark_check PCAP: tshark must decode every frame as InfiniBand (BTH)
# without a malformed-packet or other warning-level expert item. One is
# allowed: UDP checksum 0 on an IPv6 frame (tshark: "Illegal checksum value
# (0)", RFC 8200 8.1): RoCEv2 senders leave it 0 over IPv6 as over IPv4,
# rxe (rxe_net.c, prepare_udp_hdr()) as softernic, and the ICRC, which
# pcap_icrc_check verifies, covers the packet instead.
iop_tshark_check() {
	local pcap=$1 err out rc
	err=$(mktemp)
	# one pass: frame number, malformed flag, expert severities, BTH opcode,
	# protocol stack, info column, IPv6 source, UDP checksum, expert
	# messages (several occurrences joined by "|", in the same order)
	out=$(tshark -r "$pcap" -T fields -E occurrence=a -E aggregator='|' -e frame.number \
		-e _ws.malformed -e _ws.expert.severity -e infiniband.bth.opcode -e frame.protocols \
		-e _ws.col.Info -e ipv6.src -e udp.checksum -e _ws.expert.message 2> "$err")
	rc=$?
	# tshark warns about running as root on stderr: only real errors count
	if [ $rc != 0 ] || grep -v -e 'Running as user "root"' -e '^ *$' "$err" | grep -q .; then
		echo "tshark: FAIL: tshark rc=$rc:"
		grep -v -e 'Running as user "root"' "$err" | head -10 | sed 's/^/  /'
		rm -f "$err"
		return 1
	fi
	rm -f "$err"
	# Expert severities (decimal): 6291456 = 0x00600000 warning, 8388608 error.
	# tshark's payload heuristics (RPC-over-RDMA, CRTP through "ethertype",
	# SMB Direct, ...) guess an upper-layer protocol in perftest's arbitrary
	# payload and call a 1- or 2-byte payload "Malformed", for rxe's frames
	# as for ours: a complaint raised in such a guessed layer (anything after
	# "infiniband" in frame.protocols other than "data") is listed, not
	# counted. Everything up to and including the BTH and its extension
	# headers must decode cleanly.
	awk -F'\t' '
		{
			n++; sev = 0; k = split($3, s, "|"); split($9, m, "|")
			# IPv6 with UDP checksum 0: that complaint, and only it, is not counted
			z = $7 != "" && $8 == "0x0000"
			if (z) zero6++
			for (i = 1; i <= k; i++) {
				if (z && m[i] == "Illegal checksum value (0)") continue
				if (s[i] + 0 > sev) sev = s[i] + 0
			}
			ulp = $5; sub(/^.*:infiniband:?/, "", ulp); if (ulp == "data") ulp = ""
		}
		($2 != "" || sev >= 6291456) && $4 != "" && ulp != "" {
			if (guess++ < 5) printf "  frame %s: tshark guessed \"%s\" in the payload and calls it malformed (ignored): %s\n", $1, ulp, $6
			next
		}
		$2 != "" || sev >= 6291456 || $4 == "" {
			if (bad++ < 20) printf "  frame %s: %s%s%s%s\n", $1, ($2 != "" ? "MALFORMED " : ""),
				(sev >= 6291456 ? "expert warning/error " : ""),
				($4 == "" ? "not decoded as InfiniBand BTH " : ""), $6
		}
		END {
			printf "tshark: %d frames decoded%s%s\n", n, (guess ? sprintf(", %d with a payload heuristic complaint (ignored)", guess) : ""),
				(zero6 ? sprintf(", %d IPv6 with UDP checksum 0 (as RoCEv2 sends it)", zero6) : "")
			if (n == 0) { print "tshark: FAIL: no frame"; exit 1 }
			if (bad) { printf "tshark: FAIL: %d frames malformed, with warnings, or not InfiniBand\n", bad; exit 1 }
			print "tshark: every frame is RRoCE/InfiniBand, no malformed packet, no warning"
		}' <<< "$out"
}

# iop_cm_check PCAP N [sidr]: the capture holds the IB CM exchange of N
# rdma_cm connections (QP1 MADs, class 0x07): at least N of each
# ConnectRequest, ConnectReply, ReadyToUse, DisconnectRequest and
# DisconnectReply. ConnectRejects (perftest's client retrying before its
# server listens) are counted and allowed. With "sidr", N UD service ID
# resolutions instead (udaddy): at least N ServiceIDResReq and N
# ServiceIDResReqResp, each reply with status 0 (the QPN and Q_Key given:
# byte 4 of the MAD data; tshark does not dissect SIDR messages).
iop_cm_check() {
	local pcap=$1 n=$2 mode=${3:-rc} out
	out=$(tshark -r "$pcap" -Y 'infiniband.mad.mgmtclass == 0x07' -T fields \
		-e ip.src -e ipv6.src -e infiniband.mad.attributeid -e infiniband.mad.data 2>/dev/null)
	awk -F'\t' -v n="$n" -v mode="$mode" '
		NF >= 3 {
			src = $1 != "" ? $1 : $2; c[$3]++; d[$3 " " src]++
			if ($3 == "0x0018" && substr($4, 9, 2) != "00") { sidr_bad++; st = st " " substr($4, 9, 2) }
		}
		END {
			if (mode == "sidr")
				nt = split("0x0017 SIDR_REQ 0x0018 SIDR_REP 0x0010 REQ 0x0012 REJ", t, " ")
			else
				nt = split("0x0010 REQ 0x0013 REP 0x0014 RTU 0x0015 DREQ 0x0016 DREP 0x0012 REJ 0x0011 MRA", t, " ")
			need = mode == "sidr" ? 4 : 10
			line = "rdma_cm:"
			for (i = 1; i < nt; i += 2) line = line sprintf(" %s=%d", t[i + 1], c[t[i]] + 0)
			print line " (" n (mode == "sidr" ? " UD service ID resolutions" : " connections") " expected)"
			for (k in d) printf "  %s from %s: %d\n", substr(k, 1, 6), substr(k, 8), d[k]
			bad = 0
			for (i = 1; i < need; i += 2) if (c[t[i]] + 0 < n) { printf "rdma_cm: FAIL: fewer than %d %s\n", n, t[i + 1]; bad = 1 }
			if (mode == "sidr" && sidr_bad) { printf "rdma_cm: FAIL: %d SIDR_REP with a status other than 0:%s\n", sidr_bad, st; bad = 1 }
			if (!bad) print (mode == "sidr" ? "rdma_cm: every UD service ID was resolved (SIDR_REQ, SIDR_REP status 0)" \
				: "rdma_cm: every connection was set up (REQ/REP/RTU) and torn down (DREQ/DREP)")
			exit bad
		}' <<< "$out"
}

# iop_feature_check PCAP PASSIVE_IP: the capture of an iop-integrity -f
# case (run-case.sh, option f) holds each feature's opcode (BTH, hex):
# 0b RDMA WRITE Only with Immediate, 09 RDMA WRITE Last with Immediate,
# 05 SEND Only with Immediate, 03 SEND Last with Immediate, 17 SEND Only
# with Invalidate, 13 CmpSwap, 14 FetchAdd, 12 Atomic Acknowledge; and,
# from the passive side, at least one RNR NAK (AETH syndrome 001xxxxx) and
# a remote access error NAK (syndrome 0x62).
iop_feature_check() {
	local pcap=$1 passive=$2 out
	out=$(tshark -r "$pcap" -Y 'infiniband.bth.opcode' -T fields \
		-e ip.src -e infiniband.bth.opcode -e infiniband.aeth.syndrome 2>/dev/null)
	# tshark prints both fields in decimal
	awk -F'\t' -v passive="$passive" '
		NF >= 2 {
			op[$2]++
			if ($1 == passive && $3 != "") {
				syn = $3 + 0
				if (int(syn / 32) == 1) rnr++
				if (syn == 98) acc++
			}
		}
		END {
			nt = split("11 WRITE_ONLY_IMM 9 WRITE_LAST_IMM 5 SEND_ONLY_IMM 3 SEND_LAST_IMM 23 SEND_ONLY_INV 19 CMP_SWAP 20 FETCH_ADD 18 ATOMIC_ACK", t, " ")
			line = "features:"
			bad = 0
			for (i = 1; i < nt; i += 2) {
				line = line sprintf(" %s=%d", t[i + 1], op[t[i]] + 0)
				if (op[t[i]] + 0 == 0) { miss = miss " " t[i + 1]; bad = 1 }
			}
			print line sprintf(" rnr_nak=%d access_nak=%d (from %s)", rnr + 0, acc + 0, passive)
			if (miss != "") print "features: FAIL: no frame of" miss
			if (rnr + 0 == 0) { print "features: FAIL: no RNR NAK from " passive; bad = 1 }
			if (acc + 0 == 0) { print "features: FAIL: no remote access NAK from " passive; bad = 1 }
			if (!bad) print "features: every opcode seen, RNR NAKs and the remote access NAK from the passive side"
			exit bad
		}' <<< "$out"
}

# ---------------------------------------------------------------- VMs
# iop_vm DIR NAME TAP IP/LEN MAC MTU SECONDS [OOBTAP OOBIP/LEN]
# Boots a peer VM in IOP_NS in the background, killed after SECONDS. Its
# files in DIR: console.log (ttyS0: the kernel and /init), ctl.in and
# ctl.out (QEMU's pipe chardev, two FIFOs, on ttyS1: the guest's iop-serve
# reads requests from ctl.in and writes what its jobs print to ctl.out),
# ctl.log (ctl.out copied by a cat that ends with QEMU), qemu.log (QEMU's
# stderr) and qemu.pid. PIDs appended to IOP_PIDS, QEMU's also in
# IOP_VM_PID. The VM prints IOP-SERVING on ttyS1 once it takes requests.
iop_vm() {
	local dir=$1 name=$2 tap=$3 ip=$4 mac=$5 mtu=$6 tmo=$7
	local oobtap=${8:-} oobip=${9:-} accel cpu append o1 o2 o3 o4
	iop_check_addr "$ip"
	[ -n "$oobip" ] && iop_check_addr "$oobip"
	mkdir -p "$dir"
	rm -f "$dir/ctl.in" "$dir/ctl.out"
	mkfifo "$dir/ctl.in" "$dir/ctl.out" || iop_fail "cannot make the control FIFOs in $dir"
	: > "$dir/console.log"
	: > "$dir/ctl.log"
	accel=$(iop_accel)
	if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi
	# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer
	# check fails ("IO-APIC + timer doesn't work!" panic, or a boot stuck
	# after "MP-BIOS bug: 8254 timer not connected to IO-APIC")
	append="console=ttyS0,115200 panic=-1 loglevel=4 mitigations=off no_timer_check iop.name=$name iop.ip=$ip iop.mtu=$mtu"
	[ -n "$oobip" ] && append+=" iop.ip2=$oobip"
	local qemu=(qemu-system-x86_64 -accel "$accel" -machine pc -cpu "$cpu" -m 512M -smp 1
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$(iop_boot_kernel)" -initrd "$IOP_IMAGE" -append "$append"
		-chardev "file,id=con,path=$dir/console.log" -serial chardev:con
		-chardev "pipe,id=ctl,path=$dir/ctl" -serial chardev:ctl
		-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no"
		-device "virtio-net-pci,netdev=n0,mac=$mac")
	if [ -n "$oobtap" ]; then
		IFS=. read -r o1 o2 o3 o4 <<< "${oobip%/*}"
		qemu+=(-netdev "tap,id=n1,ifname=$oobtap,script=no,downscript=no"
			-device "virtio-net-pci,netdev=n1,mac=$(printf '02:01:%02x:%02x:%02x:%02x' "$o1" "$o2" "$o3" "$o4")")
	fi
	iop_log "VM $name: $accel, eth0 $ip $mac mtu $mtu on $IOP_NS/$tap${oobtap:+, eth1 $oobip on $oobtap}, limit ${tmo}s, files in $dir"
	# QEMU opens both FIFOs read-write, so the cat's open returns once
	# QEMU runs, and the cat sees the end when QEMU has gone
	cat "$dir/ctl.out" >> "$dir/ctl.log" &
	IOP_PIDS+=("$!")
	timeout -k 3 "$tmo" ip netns exec "$IOP_NS" "${qemu[@]}" < /dev/null > "$dir/qemu.log" 2>&1 &
	IOP_VM_PID=$!
	IOP_PIDS+=("$IOP_VM_PID")
	echo "$IOP_VM_PID" > "$dir/qemu.pid"
}

# ---------------------------------------------------------------- jobs in a VM
# A VM's ttyS1 carries requests to its iop-serve (guest/bin/iop-serve) and
# the output of its jobs back, each job ending with "IOP-DONE ID rc=N".
# IOP_CTL_OFF: where the current case's part of ctl.log begins (a private
# VM's log is the case's from 0; the persistent peer's holds every case's).
IOP_CTL_OFF=0 IOP_JOBS=0

# iop_ctl_text DIR: the case's part of DIR's ctl.log.
iop_ctl_text() {
	tail -c "+$((IOP_CTL_OFF + 1))" "$1/ctl.log" 2>/dev/null | tr -d '\r'
}

# iop_ctl_lines DIR: the complete lines of the case's part of DIR's
# ctl.log: the cat copies what the port gives, so the last line may be
# half there ("IOP-DONE 1.2 rc=1" of "... rc=137").
iop_ctl_lines() {
	local t
	t=$(iop_ctl_text "$1"; echo .)
	t=${t%.}
	case "$t" in
	*$'\n') printf '%s' "$t" ;;
	*$'\n'*) printf '%s\n' "${t%$'\n'*}" ;;
	esac
}

# iop_ctl DIR REQUEST: send one request line. The FIFO is opened read-write:
# that never blocks, even when QEMU has gone.
iop_ctl() {
	printf '%s\n' "$2" 1<> "$1/ctl.in"
}

# iop_job DIR SECONDS SCRIPT: start SCRIPT (sh code; $IOP_GID_INDEX etc.
# expand in the guest) as a job in the VM, killed there after SECONDS. Its
# id (unique in the case, which the offset makes unique in the log) is in
# IOP_JOB: call it in the case's shell, not in a $(...) subshell, or the
# next job gets the same id.
iop_job() {
	IOP_JOBS=$((IOP_JOBS + 1))
	IOP_JOB=$$.$IOP_JOBS
	iop_ctl "$1" "run $IOP_JOB $2 $(printf '%s\n' "$3" | base64 -w0)"
}

# iop_wait_line DIR REGEX SECONDS: wait until the case's part of DIR's
# ctl.log has a complete line matching REGEX (printed on stdout); 1 on
# timeout or when the VM has gone.
iop_wait_line() {
	local dir=$1 re=$2 end=$((SECONDS + $3)) qemu l
	qemu=$(cat "$dir/qemu.pid" 2>/dev/null)
	while :; do
		l=$(iop_ctl_lines "$dir" | grep -a -m1 -E "$re")
		[ -n "$l" ] && { echo "$l"; return 0; }
		[ $SECONDS -ge $end ] && return 1
		if [ -z "$qemu" ] || ! kill -0 "$qemu" 2>/dev/null; then
			l=$(iop_ctl_lines "$dir" | grep -a -m1 -E "$re")
			[ -n "$l" ] && { echo "$l"; return 0; }
			return 1
		fi
		sleep 0.1
	done
}

# iop_job_wait DIR ID SECONDS: job ID's exit status on stdout once its
# IOP-DONE came; 1 when it did not come within SECONDS (or the VM went).
iop_job_wait() {
	local l
	l=$(iop_wait_line "$1" "^IOP-DONE $2 rc=" "$3") || return 1
	echo "${l##*rc=}"
}

# iop_job_end DIR ID SECONDS: like iop_job_wait, but a job still running
# after SECONDS is killed (its whole session); 1 when even the kill got no
# answer within 15 s: the guest is wedged.
iop_job_end() {
	iop_job_wait "$1" "$2" "$3" && return 0
	iop_log "VM job $2 still running after ${3}s: killing it"
	iop_ctl "$1" "kill $2"
	iop_job_wait "$1" "$2" 15
}

# iop_setup DIR ARGS...: the case's configuration of the VM (iop-setup
# ARGS), its IOP-READY line in IOP_READY; 1 (and what the guest said on
# stderr) when it failed or did not answer within 40 s.
iop_setup() {
	local dir=$1 rc
	shift
	IOP_READY=
	iop_job "$dir" 30 "iop-setup $*"
	rc=$(iop_job_wait "$dir" "$IOP_JOB" 40) || { iop_log "no answer from the VM to iop-setup $*"; return 1; }
	if [ "$rc" != 0 ]; then
		iop_log "iop-setup $* failed (rc=$rc): $(iop_ctl_text "$dir" | grep -a 'iop-setup' | tail -3)"
		return 1
	fi
	IOP_READY=$(iop_ctl_text "$dir" | grep -a '^IOP-READY' | tail -1)
}

# ---------------------------------------------------------------- the persistent peer
# One VM serves the cases one after another (doc/guides/interop.rst, "The
# persistent peer"). peer.sh runs it, detached, in namespace sfniop<its
# PID> with the taps sfr<PID> (eth0, RoCE) and sfo<PID> (eth1, the side
# channel); its files are in IOP_PEER:
#   lock    flock: the case that holds it owns the peer
#   pid     peer.sh's PID;   state: what a case needs (PEER_* below), once
#           the VM serves requests
#   owner   the PID whose end stops the peer (the parent of the last case:
#           meson test), used  touched when a case ends (the idle time)
#   busy    "PID CASE" of the case using it; left behind by a case that was
#           killed, and then the next case restarts the peer
#   vm/     the VM's files (iop_vm), peer.log peer.sh's own log
IOP_PEER=$IOP_WORK/peer
IOP_PEER_HELD=0
# the identity of the VM a case needs: a peer booted otherwise is replaced
iop_peer_id() {
	echo "$IOP_IMAGE@$(stat -c %Y "$IOP_IMAGE") $(iop_boot_kernel) $(iop_accel)"
}

# iop_peer_alive: the peer is up and serving (its state sourced).
iop_peer_alive() {
	local pid
	pid=$(cat "$IOP_PEER/pid" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
		[ -s "$IOP_PEER/state" ] || return 1
	. "$IOP_PEER/state"
	kill -0 "$PEER_QEMU" 2>/dev/null
}

# iop_peer_ping: the running peer answers a job within 20 s (a guest that
# wedged while idle is replaced before a case starts on it).
iop_peer_ping() {
	local IOP_CTL_OFF rc
	IOP_CTL_OFF=$(stat -c %s "$IOP_PEER/vm/ctl.log")
	iop_job "$IOP_PEER/vm" 10 true
	rc=$(iop_job_wait "$IOP_PEER/vm" "$IOP_JOB" 20) && [ "$rc" = 0 ]
}

# iop_peer_stop [REASON]: stop the peer and wait for it: peer.sh kills the
# VM and deletes its namespace; a peer.sh that does not end within 10 s
# (or was SIGKILLed) is killed, and its VM and namespace removed here.
iop_peer_stop() {
	local pid ns
	pid=$(cat "$IOP_PEER/pid" 2>/dev/null)
	[ -n "$pid" ] || return 0
	iop_log "stopping the peer (peer.sh $pid)${1:+: $1}"
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		iop_log "peer.sh $pid did not end: killing it"
		kill -KILL "$pid" 2>/dev/null
	fi
	ns=sfniop$pid
	ip netns list 2>/dev/null | grep -qw "^$ns" && iop_ns_destroy "$ns"
	rm -f "$IOP_PEER/pid" "$IOP_PEER/state"
}

# iop_peer_start SECONDS: start peer.sh (detached: its own session, no fd
# of ours but the log) and wait at most SECONDS until its VM serves.
iop_peer_start() {
	local end=$((SECONDS + $1)) pid
	rm -rf "$IOP_PEER/vm" "$IOP_PEER/state" "$IOP_PEER/pid"
	echo "$PPID" > "$IOP_PEER/owner"
	IOP_IMAGE=$IOP_IMAGE setsid "$IOP_DIR/peer.sh" serve < /dev/null > "$IOP_PEER/peer.log" 2>&1 6>&- 7>&- 8>&- &
	pid=$!
	while [ ! -s "$IOP_PEER/state" ]; do
		if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $end ]; then
			echo "FAIL: the peer VM did not come up within ${1}s; peer.sh's log:"
			sed 's/^/  /' "$IOP_PEER/peer.log"
			[ -s "$IOP_PEER/vm/console.log" ] && { echo "its console:"; tr -d '\r' < "$IOP_PEER/vm/console.log" | tail -40 | sed 's/^/  /'; }
			iop_peer_stop "it did not come up"
			return 1
		fi
		sleep 0.1
	done
}

# iop_peer_acquire OUT SECONDS: take the peer for this case (waiting for
# the lock while another case has it), starting it, within SECONDS, when it
# is not up, runs another image or kernel, its last case did not end
# cleanly, or it does not answer (IOP_PEER_RESTART=1: always). The case's parts of the VM's logs
# go to OUT when it ends (iop_peer_logs). Sets IOP_NS, IOP_CTL_OFF and
# IOP_PEER_CON_OFF (where the case's parts begin) and PEER_*:
#   PEER_NS PEER_RTAP PEER_OTAP  the namespace and the taps
#   PEER_QEMU PEER_ID PEER_BOOTED  QEMU's PID, iop_peer_id, boot time (epoch)
#   PEER_BOOT_S  seconds from QEMU's start to IOP-SERVING
# IOP_PEER_FRESH is 1 when this case booted it, PEER_CASES the number of
# cases it served before this one.
iop_peer_acquire() {
	local why=
	IOP_PEER_OUT=$1
	mkdir -p "$IOP_PEER"
	exec 6>> "$IOP_PEER/lock"
	flock 6
	IOP_PEER_HELD=1
	if [ -s "$IOP_PEER/busy" ]; then
		why="its last case ($(cat "$IOP_PEER/busy")) did not end cleanly"
	elif ! iop_peer_alive; then
		why="it is not up"
	elif [ "$PEER_ID" != "$(iop_peer_id)" ]; then
		why="it runs another image, kernel or accelerator"
	elif [ "${IOP_PEER_RESTART:-0}" = 1 ]; then
		why="IOP_PEER_RESTART=1"
	elif ! iop_peer_ping; then
		why="it did not answer a request within 20 s"
	fi
	echo "$$ ${CASE:-?}" > "$IOP_PEER/busy"
	IOP_PEER_FRESH=0
	if [ -n "$why" ]; then
		iop_peer_stop "$why"
		iop_log "starting the peer: $why"
		iop_peer_start "$2" || exit 1
		IOP_PEER_FRESH=1
		echo 0 > "$IOP_PEER/cases"
		iop_peer_alive || iop_fail "the peer died as it came up"
	fi
	# adopt it: the peer lives as long as the run of this case
	echo "$PPID" > "$IOP_PEER/owner"
	PEER_CASES=$(cat "$IOP_PEER/cases" 2>/dev/null || echo 0)
	echo $((PEER_CASES + 1)) > "$IOP_PEER/cases"
	IOP_NS=$PEER_NS
	IOP_CTL_OFF=$(stat -c %s "$IOP_PEER/vm/ctl.log")
	IOP_PEER_CON_OFF=$(stat -c %s "$IOP_PEER/vm/console.log")
	[ $IOP_PEER_FRESH = 1 ] && IOP_CTL_OFF=0 IOP_PEER_CON_OFF=0
	iop_peer_reset_ns
}

# iop_peer_reset_ns: the peer's namespace as peer.sh made it: only lo and
# the two taps (whatever a case added deleted), the RoCE tap out of any
# bridge and unaddressed, the side-channel tap down and unaddressed, lo
# without a global address (the IPv6 cases of the stock rdma_cm tools add
# one), the sysctls cases change back to their defaults, no neighbour
# entries.
iop_peer_reset_ns() {
	local l
	for l in $(ip -n "$IOP_NS" -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
		case "$l" in lo | "$PEER_RTAP" | "$PEER_OTAP") ;; *) ip -n "$IOP_NS" link del "$l" 2>/dev/null ;; esac
	done
	{
		ip -n "$IOP_NS" link set "$PEER_RTAP" nomaster
		ip -n "$IOP_NS" addr flush dev "$PEER_RTAP"
		ip -n "$IOP_NS" addr flush dev "$PEER_OTAP"
		ip -n "$IOP_NS" link set "$PEER_OTAP" down
		ip -n "$IOP_NS" addr flush dev lo scope global
		ip netns exec "$IOP_NS" sysctl -qw net.ipv4.conf.all.arp_ignore=0
		ip -n "$IOP_NS" neigh flush dev "$PEER_RTAP"
		ip -n "$IOP_NS" neigh flush dev "$PEER_OTAP"
	} 2>/dev/null
}

# iop_peer_logs OUT: the case's parts of the peer's logs: OUT/peer-console.log
# (what its jobs printed, ttyS1) and OUT/peer-kernel.log (ttyS0: the
# kernel's messages, and the boot when the case booted it).
iop_peer_logs() {
	iop_ctl_text "$IOP_PEER/vm" > "$1/peer-console.log"
	tail -c "+$((IOP_PEER_CON_OFF + 1))" "$IOP_PEER/vm/console.log" 2>/dev/null | tr -d '\r' > "$1/peer-kernel.log"
}

# iop_peer_release RC (from iop_cleanup): give the peer back. A job still
# running in the VM is killed, the namespace reset; after a failed case
# (RC not 0 or 77) the peer is stopped, so that the next case boots a
# fresh one and a failure cannot follow into it.
iop_peer_release() {
	[ "$IOP_PEER_HELD" = 1 ] || return 0
	IOP_PEER_HELD=0
	[ -n "${IOP_JOB_OPEN:-}" ] && iop_ctl "$IOP_PEER/vm" "kill $IOP_JOB_OPEN"
	iop_peer_logs "$IOP_PEER_OUT"
	if [ "$1" = 0 ] || [ "$1" = 77 ]; then
		iop_peer_reset_ns
		touch "$IOP_PEER/used"
	else
		iop_peer_stop "the case failed (rc=$1)"
	fi
	rm -f "$IOP_PEER/busy"
	flock -u 6
	exec 6>&-
}

# iop_wait_pid PID SECONDS: wait for PID; its rc, or 124 after SECONDS (then killed).
iop_wait_pid() {
	local pid=$1 end=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			kill -TERM "$pid" 2>/dev/null
			sleep 1
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.1
	done
	wait "$pid"
}
