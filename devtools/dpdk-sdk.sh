#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Provide DPDK's driver-side headers ("driver SDK": ethdev_driver.h,
# ethdev_vdev.h, dev_driver.h, bus_driver.h, bus_vdev_driver.h) that a PMD
# needs and that Debian's libdpdk-dev does not install. They are extracted
# from Debian's own source package of the installed DPDK version, so they
# match its ABI exactly. Nothing of DPDK is kept in this repository.
#
# Usage: devtools/dpdk-sdk.sh [DEST]   (default /var/cache/softernic/dpdk-sdk-<version>)
# Prints the directory holding the headers. Quiet and instant once done.
set -euo pipefail

ver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null || true)
if [ -z "$ver" ]; then
	echo "dpdk-sdk.sh: libdpdk-dev is not installed (run devtools/deps.sh)" >&2
	exit 1
fi
upstream=${ver%%-*}
dest=${1:-/var/cache/softernic/dpdk-sdk-$upstream}
headers=(lib/ethdev/ethdev_driver.h lib/ethdev/ethdev_vdev.h
	lib/eal/include/dev_driver.h lib/eal/include/bus_driver.h
	drivers/bus/vdev/bus_vdev_driver.h)

have=1
for h in "${headers[@]}"; do
	[ -f "$dest/$(basename "$h")" ] || have=0
done
if [ $have = 1 ]; then
	echo "$dest"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/parts"
# A private deb-src list made from the machine's own apt sources (the same
# repositories, mirrors and keys, so it also works behind a local mirror),
# and private package lists: the system's apt configuration and state are
# left untouched.
apt_etc=$(apt-config shell d Dir::Etc/d | sed -n "s/^d='\(.*\)'$/\1/p")
apt_etc=${apt_etc:-/etc/apt/}
srcs=()
[ -f "$apt_etc/sources.list" ] && srcs+=("$apt_etc/sources.list")
for f in "$apt_etc"/sources.list.d/*.list "$apt_etc"/sources.list.d/*.sources; do
	[ -f "$f" ] && srcs+=("$f")
done
n=0
for f in "${srcs[@]}"; do
	n=$((n + 1))
	case "$f" in
	*.sources)
		# deb822: every stanza of type deb also as deb-src
		sed -E 's/^Types:(.*)$/Types: deb-src/' "$f" >"$work/parts/$n.sources" ;;
	*)
		# one-line format: "deb [options] uri suite components"
		sed -nE 's/^[[:space:]]*deb[[:space:]]+/deb-src /p' "$f" \
			>"$work/parts/$n.list" ;;
	esac
done
if [ $n = 0 ]; then
	echo "dpdk-sdk.sh: no apt sources configured in $apt_etc (sources.list, sources.list.d): cannot fetch Debian's dpdk source package" >&2
	exit 1
fi
apt_src=(-q -o "Dir::State::Lists=$work/lists" -o "Dir::Etc::SourceList=$work/none"
	-o "Dir::Etc::SourceParts=$work/parts" -o "APT::Sandbox::User=root")
# A repository without source indexes (a third-party one) only warns; what
# matters is that some configured repository serves dpdk's source below.
apt-get "${apt_src[@]}" update >"$work/log" 2>&1 || true
(cd "$work" && apt-get "${apt_src[@]}" source --download-only "dpdk=$ver") \
	>>"$work/log" 2>&1 || {
	cat "$work/log" >&2
	echo "dpdk-sdk.sh: none of the machine's apt sources (${srcs[*]}) serves the source package dpdk=$ver" >&2
	exit 1
}
tarball=$(ls "$work"/dpdk_"$upstream".orig.tar.* | head -n 1)
top=$( (tar -tf "$tarball" || true) | head -n 1 | cut -d/ -f1)
members=()
for h in "${headers[@]}"; do
	members+=("$top/$h")
done
tar -xf "$tarball" -C "$work" "${members[@]}"
mkdir -p "$dest"
for h in "${headers[@]}"; do
	cp "$work/$top/$h" "$dest/"
done
echo "$dest"
