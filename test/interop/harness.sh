# SPDX-License-Identifier: BSD-3-Clause
# harness.sh: shell library of the interop suite (sourced by run-case.sh).
#
# What it does for a case: checks the prerequisites (SKIP = exit 77), builds
# the peer image once (build-peer.sh, under a lock), picks KVM or TCG, makes
# a private network namespace with taps named after the PID, boots peer VMs
# there under a hard timeout, captures UDP/4791 with tshark, and undoes all of
# it on EXIT/INT/TERM/HUP: processes killed by PID, taps and namespace
# deleted. Namespaces left by a run that was SIGKILLed are swept by the next
# run (their name carries the dead PID).
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

IOP_NS= IOP_PIDS=() IOP_TSHARK= IOP_TMP=

iop_log() { echo "[$(date +%T.%3N)] $*" >&2; }
iop_skip() { echo "SKIP: $*"; exit 77; }
iop_fail() { echo "FAIL: $*"; exit 1; }

iop_check_addr() {  # a.b.c.d[/len]: inside 198.18.0.0/15 or die
	case "${1%/*}" in
	198.18.*.* | 198.19.*.*) ;;
	*) iop_fail "address $1 is outside 198.18.0.0/15" ;;
	esac
}

# ---------------------------------------------------------------- prerequisites
iop_require() {
	[ "$(id -u)" = 0 ] || iop_skip "needs root (network namespace, taps, QEMU)"
	[ -c /dev/net/tun ] || iop_skip "no /dev/net/tun"
	[ -r /dev/net/tun ] && [ -w /dev/net/tun ] || iop_skip "/dev/net/tun not usable"
	command -v qemu-system-x86_64 >/dev/null || iop_skip "no qemu-system-x86_64 (devtools/deps.sh interop)"
	command -v tshark >/dev/null || iop_skip "no tshark (devtools/deps.sh interop)"
	command -v ip >/dev/null || iop_skip "no ip (iproute2)"
	command -v flock >/dev/null || iop_skip "no flock (util-linux)"
	[ -r "$IOP_KERNEL" ] || iop_skip "no readable $IOP_KERNEL (linux-image-$IOP_KVER)"
	ip netns add "sfniopprobe$$" 2>/dev/null || iop_skip "cannot create a network namespace here"
	ip netns del "sfniopprobe$$"
	mkdir -p "$IOP_WORK"
}

# Sweep namespaces of earlier runs whose process is gone (SIGKILL, OOM).
iop_sweep() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^sfniop[0-9]+$'); do
		pid=${ns#sfniop}
		[ -d "/proc/$pid" ] && continue
		iop_log "removing stale namespace $ns (pid $pid is gone)"
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
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
	[ $rc = 77 ] && iop_skip "peer image: a package is missing (see above)"
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
	if [ -n "$IOP_NS" ]; then
		# anything still inside (a grandchild that escaped the kills)
		ip netns pids "$IOP_NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		for p in $(ip -n "$IOP_NS" -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
			[ "$p" = lo ] || ip -n "$IOP_NS" link del "$p" 2>/dev/null
		done
		ip netns del "$IOP_NS" 2>/dev/null
	fi
	[ -n "$IOP_TMP" ] && rm -rf "$IOP_TMP"
	exit $rc
}

iop_traps() {
	trap iop_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
}

# ---------------------------------------------------------------- network
# iop_netns: a fresh namespace "sfniop<PID>" with lo up.
iop_netns() {
	IOP_NS=sfniop$$
	ip netns add "$IOP_NS" || iop_fail "cannot create namespace $IOP_NS"
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
# iop_capture IFACE PCAP: tshark on IFACE in the namespace, UDP/4791, whole frames.
iop_capture() {
	ip netns exec "$IOP_NS" tshark -i "$1" -f "udp port 4791" -F pcap -w "$2" -q \
		> "$2.log" 2>&1 &
	IOP_TSHARK=$!
	for _ in $(seq 1 150); do
		grep -q "Capturing on" "$2.log" 2>/dev/null && return 0
		kill -0 "$IOP_TSHARK" 2>/dev/null || break
		sleep 0.1
	done
	iop_fail "tshark did not start: $(cat "$2.log")"
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
# without a malformed-packet or other warning-level expert item.
iop_tshark_check() {
	local pcap=$1 err out rc
	err=$(mktemp)
	# one pass: frame number, malformed flag, expert severities, BTH opcode,
	# protocol stack, info column
	out=$(tshark -r "$pcap" -T fields -E occurrence=a -E aggregator=/s/ -e frame.number \
		-e _ws.malformed -e _ws.expert.severity -e infiniband.bth.opcode -e frame.protocols \
		-e _ws.col.Info 2> "$err")
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
			n++; sev = 0; k = split($3, s, " ")
			for (i = 1; i <= k; i++) if (s[i] + 0 > sev) sev = s[i] + 0
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
			printf "tshark: %d frames decoded%s\n", n, (guess ? sprintf(", %d with a payload heuristic complaint (ignored)", guess) : "")
			if (n == 0) { print "tshark: FAIL: no frame"; exit 1 }
			if (bad) { printf "tshark: FAIL: %d frames malformed, with warnings, or not InfiniBand\n", bad; exit 1 }
			print "tshark: every frame is RRoCE/InfiniBand, no malformed packet, no warning"
		}' <<< "$out"
}

# iop_cm_check PCAP N: the capture holds the IB CM exchange of N rdma_cm
# connections (QP1 MADs, class 0x07): at least N of each ConnectRequest,
# ConnectReply, ReadyToUse, DisconnectRequest and DisconnectReply.
# ConnectRejects (perftest's client retrying before its server listens) are
# counted and allowed.
iop_cm_check() {
	local pcap=$1 n=$2 out
	out=$(tshark -r "$pcap" -Y 'infiniband.mad.mgmtclass == 0x07' -T fields \
		-e ip.src -e infiniband.mad.attributeid 2>/dev/null)
	awk -v n="$n" '
		NF == 2 { c[$2]++; d[$2 " " $1]++ }
		END {
			split("0x0010 REQ 0x0013 REP 0x0014 RTU 0x0015 DREQ 0x0016 DREP 0x0012 REJ 0x0011 MRA", t, " ")
			line = "rdma_cm:"
			for (i = 1; i < 14; i += 2) line = line sprintf(" %s=%d", t[i + 1], c[t[i]] + 0)
			print line " (" n " connections expected)"
			for (k in d) printf "  %s from %s: %d\n", substr(k, 1, 6), substr(k, 8), d[k]
			bad = 0
			for (i = 1; i < 10; i += 2) if (c[t[i]] + 0 < n) { printf "rdma_cm: FAIL: fewer than %d %s\n", n, t[i + 1]; bad = 1 }
			if (!bad) print "rdma_cm: every connection was set up (REQ/REP/RTU) and torn down (DREQ/DREP)"
			exit bad
		}' <<< "$out"
}

# ---------------------------------------------------------------- VMs
# iop_vm NAME TAP IP/LEN MAC MTU SCRIPT LOG TIMEOUT [OOBTAP OOBIP/LEN] [NEIGH]
# Boots a peer VM in the background (PID appended to IOP_PIDS, also in
# IOP_VM_PID); SCRIPT becomes /iop/cmd.sh in the guest.
iop_vm() {
	local name=$1 tap=$2 ip=$3 mac=$4 mtu=$5 script=$6 log=$7 tmo=$8
	local oobtap=${9:-} oobip=${10:-} neigh=${11:-} accel cpu append d o1 o2 o3 o4
	iop_check_addr "$ip"
	[ -n "$oobip" ] && iop_check_addr "$oobip"
	[ -n "$neigh" ] && iop_check_addr "${neigh%@*}"
	[ -n "$IOP_TMP" ] || IOP_TMP=$(mktemp -d "$IOP_WORK/tmp.XXXXXX")
	d=$IOP_TMP/vm-$name
	mkdir -p "$d/root/iop"
	cp "$script" "$d/root/iop/cmd.sh"
	(cd "$d/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$d/extra.cpio.gz"
	cat "$IOP_IMAGE" "$d/extra.cpio.gz" > "$d/initrd.gz"
	accel=$(iop_accel)
	if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi
	# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer
	# check fails ("IO-APIC + timer doesn't work!" panic, or a boot stuck
	# after "MP-BIOS bug: 8254 timer not connected to IO-APIC")
	append="console=ttyS0,115200 panic=-1 loglevel=4 mitigations=off no_timer_check iop.name=$name iop.ip=$ip iop.mtu=$mtu"
	[ -n "$oobip" ] && append+=" iop.ip2=$oobip"
	[ -n "$neigh" ] && append+=" iop.neigh=$neigh"
	local qemu=(qemu-system-x86_64 -accel "$accel" -machine pc -cpu "$cpu" -m 512M -smp 1
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$(iop_boot_kernel)" -initrd "$d/initrd.gz" -append "$append"
		-chardev "file,id=con,path=$log" -serial chardev:con
		-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no"
		-device "virtio-net-pci,netdev=n0,mac=$mac")
	if [ -n "$oobtap" ]; then
		IFS=. read -r o1 o2 o3 o4 <<< "${oobip%/*}"
		qemu+=(-netdev "tap,id=n1,ifname=$oobtap,script=no,downscript=no"
			-device "virtio-net-pci,netdev=n1,mac=$(printf '02:01:%02x:%02x:%02x:%02x' "$o1" "$o2" "$o3" "$o4")")
	fi
	: > "$log"
	iop_log "VM $name: $accel, eth0 $ip $mac mtu $mtu on $IOP_NS/$tap${oobtap:+, eth1 $oobip on $oobtap}, limit ${tmo}s"
	timeout -k 3 "$tmo" ip netns exec "$IOP_NS" "${qemu[@]}" < /dev/null > "$log.qemu" 2>&1 &
	IOP_VM_PID=$!
	IOP_PIDS+=("$IOP_VM_PID")
}

# iop_wait_line LOG REGEX SECONDS [PID]: wait until LOG has a line matching
# REGEX (printed on stdout); 1 on timeout or when PID ended first.
iop_wait_line() {
	local log=$1 re=$2 end=$((SECONDS + $3)) pid=${4:-} l
	while :; do
		l=$(tr -d '\r' < "$log" 2>/dev/null | grep -a -m1 -E "$re")
		[ -n "$l" ] && { echo "$l"; return 0; }
		[ $SECONDS -ge $end ] && return 1
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			l=$(tr -d '\r' < "$log" 2>/dev/null | grep -a -m1 -E "$re")
			[ -n "$l" ] && { echo "$l"; return 0; }
			return 1
		fi
		sleep 0.1
	done
}

# iop_vm_rc LOG: the guest command's rc from the IOP-EXIT marker ("" if none).
iop_vm_rc() {
	tr -d '\r' < "$1" | sed -n 's/^IOP-EXIT rc=\([0-9]*\).*/\1/p' | tail -1
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
