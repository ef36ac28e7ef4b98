#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Selective repeat against go-back-N at the application level: ib_write_bw
# (ernic-testpmd write_bw --loopback) between two net_ernic ports joined by
# a memif pair, one side behind a net_fault port losing LOSS % of the
# frames in both directions (seeded), once with --no_sr (go-back-N) and
# once as by default (selective repeat, on with --loopback).
# Prints the average bandwidth of each run. Timing figures: judge them on
# an idle machine (doc/guides/selective-repeat.rst).
#
#   devtools/sr-bench.sh [size] [iters] [loss% ...]   default: 65536 200 0.1 1 5
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-65536}
iters=${2:-200}
shift $(( $# > 2 ? 2 : $# ))
losses=("$@")
[ ${#losses[@]} -gt 0 ] || losses=(0.1 1 5)
dir=${BUILD_DIR:-build}
if [ ! -x "$dir/app/ernic-testpmd" ]; then
	BUILD_DIR=$dir devtools/build.sh
fi
sock=$(mktemp -u /tmp/ernic-sr-bench.XXXXXX.sock)
run() {	# loss flags...
	local loss=$1
	shift
	timeout 600 "$dir/app/ernic-testpmd" -l 0-1 --no-huge -m 1024 \
		--no-shconf --no-pci --no-telemetry \
		--log-level=lib.eal:error --log-level=pmd.net.memif:error \
		--vdev=net_memif0,role=server,id=0,socket=$sock,bsize=2048 \
		--vdev=net_memif1,role=client,id=0,socket=$sock,bsize=2048 \
		--vdev=net_fault0,port=net_memif0,loss=$loss,dir=both,seed=7 \
		--vdev=net_ernic0,port=net_fault0,ip=198.18.0.1,mac=02:00:c6:12:00:01,pmtu=1024 \
		--vdev=net_ernic1,port=net_memif1,ip=198.18.0.2,mac=02:00:c6:12:00:02,pmtu=1024 \
		-- write_bw --loopback -s "$size" -n "$iters" --report_gbits \
		"$@" 2>&1 | awk -v s="$size" '$1 == s { print $4; f = 1 }
			END { if (!f) print "failed" }'
}
printf 'sr-bench: write_bw %s B x %s, MTU 1024, loss on both directions\n' \
	"$size" "$iters"
printf '%8s %14s %14s\n' "loss %" "GBN Gb/s" "SR Gb/s"
for l in "${losses[@]}"; do
	g=$(run "$l" --no_sr)
	s=$(run "$l")
	printf '%8s %14s %14s\n' "$l" "$g" "$s"
done
rm -f "$sock"
