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
mkdir -p "$work/lists/partial"
# A private deb-src list and private package lists: the system's apt
# configuration and state are left untouched.
cat >"$work/src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_src=(-q -o "Dir::State::Lists=$work/lists" -o "Dir::Etc::SourceList=$work/src.sources"
	-o "Dir::Etc::SourceParts=$work/none" -o "APT::Sandbox::User=root")
apt-get "${apt_src[@]}" update >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
(cd "$work" && apt-get "${apt_src[@]}" source --download-only "dpdk=$ver") \
	>>"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
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
