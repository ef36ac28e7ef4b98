#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run test_txbuf_pa (IOVA as PA over huge pages) with enough free 2 MiB
# pages: as root, raise vm.nr_hugepages by what is missing for the run and
# put the old count back after; otherwise the binary skips (exit 77) when
# EAL cannot have them.
set -u
bin=$1
need=16		# 32 MiB: the 12 MiB span and EAL's own
nr=/proc/sys/vm/nr_hugepages
free_pages() { awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo; }
orig=""
if [ "$(id -u)" = 0 ] && [ -w "$nr" ]; then
	have=$(free_pages)
	if [ "${have:-0}" -lt "$need" ]; then
		orig=$(cat "$nr")
		echo $((orig + need - have)) >"$nr" 2>/dev/null ||
			echo "txbuf_pa.sh: could not reserve huge pages" >&2
	fi
fi
"$bin"
rc=$?
[ -z "$orig" ] || echo "$orig" >"$nr" 2>/dev/null
exit $rc
