# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the verbs suite's scripts (verbs_stock.sh, verbs_cm.sh).

# need_tools SCRIPT PACKAGES TOOL...: each on the PATH, or exit 77 (a skip),
# or 1 under CI=true, naming the packages that bring them.
need_tools() {
	local script=$1 pkgs=$2 t
	shift 2
	for t in "$@"; do
		if ! command -v "$t" >/dev/null; then
			echo "$script: $t is missing (devtools/deps.sh test installs $pkgs)"
			[ "${CI:-}" = true ] && exit 1
			exit 77
		fi
	done
}

# set_preload LIB: $preload for LD_PRELOAD ($asan_lib: the sanitizer's
# runtime when LIB has one, else empty). An ASan build of the library
# (-Dsanitize=true) needs the sanitizer's runtime first in the program: the
# stock binaries are not built with it. They do not free what they
# allocate before they exit (perftest keeps its arguments and the device
# list): leaks are checked by the API test (test_verbs_api), which frees
# all it takes.
set_preload() {
	preload=$1
	asan_lib=$(ldd "$1" 2>/dev/null | awk '/libasan/ {print $3}')
	if [ -n "$asan_lib" ]; then
		preload="$asan_lib $1"
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	fi
}

# pair_link DIR: the two processes' files DIR/a.ini and DIR/b.ini, made
# from conf/verbs-pair-a.ini and -b.ini ($conf), and $nsx, the command
# prefix (an array) that runs a program beside its peer.
#
# As root: a veth pair in a network namespace of the run's own, each
# process's port net_af_packet on one end, the tools' TCP side channel on
# the namespace's loopback. DPDK 22.11's memif unmaps the shared rings in
# its interrupt thread when the peer process goes, without waiting for the
# thread that polls them: a process polling its memif port when its peer
# exits or is killed crashes now and then (doc/guides/verbs.rst), which the
# kernel's link never does. Otherwise (not root, no ip): the files' own
# memif pair, on a socket in DIR.
pair_link() {
	local dir=$1 s end
	pair_ns=
	nsx=()
	for s in a b; do
		sed "s#socket=/tmp/softernic-verbs-pair.sock#socket=$dir/pair.sock#" \
			"$conf/verbs-pair-$s.ini" >"$dir/$s.ini"
	done
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
		echo "note: the pair is joined by memif (veth needs root and ip)"
		return 0
	fi
	pair_ns=softernic-verbs-$$
	if ! { ip netns add "$pair_ns" &&
	       ip -n "$pair_ns" link set lo up &&
	       ip -n "$pair_ns" link add va type veth peer name vb &&
	       ip netns exec "$pair_ns" sysctl -qw net.ipv6.conf.va.disable_ipv6=1 \
			net.ipv6.conf.vb.disable_ipv6=1 &&
	       ip -n "$pair_ns" link set va up &&
	       ip -n "$pair_ns" link set vb up; }; then
		echo "pair_link: cannot make the namespace $pair_ns and its veth pair"
		exit 1
	fi
	for s in a b; do
		[ $s = a ] && end=va || end=vb
		sed -i -e "s#^vdev = net_memif0,.*#vdev = net_af_packet0,iface=$end,qdisc_bypass=1,framecnt=4096#" \
			-e "s#port=net_memif0#port=net_af_packet0#" "$dir/$s.ini"
	done
	nsx=(ip netns exec "$pair_ns")
}

# side_port_base: the first of this run's TCP ports for the tools' side
# channel, 10000-29999 by the shell's pid. Below Linux's ephemeral range
# (32768-60999, a new namespace's default): a port there may be the source
# port of an earlier case's client, whose TIME_WAIT socket (no
# SO_REUSEADDR) makes the next server's bind fail ("Couldn't listen").
side_port_base() {
	echo $((10000 + $$ % 20000))
}

# pair_link_cleanup: remove what pair_link made
pair_link_cleanup() {
	[ -n "${pair_ns:-}" ] && ip netns del "$pair_ns" 2>/dev/null
	pair_ns=
}
