#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Soak: RDMA WRITE, READ and SEND over 64 RC QPs between two net_ernic
# ports joined through net_fault ports, 1 % loss, 1 % reordering, 0.1 %
# duplication and 0.1 % corruption in each direction, every byte verified
# (test/unit/test_soak.c; doc/guides/testing.rst). Prints the throughput
# against the clean link and exits non-zero on any failure.
#
#   devtools/soak.sh [GB] [seed]     default: 10 GB, seed 1
set -euo pipefail
cd "$(dirname "$0")/.."
gb=${1:-10}
seed=${2:-1}
if ! [[ "$gb" =~ ^[0-9]+$ ]] || [ "$gb" -lt 1 ]; then
	echo "usage: $0 [GB (integer >= 1)] [seed]" >&2
	exit 2
fi
if ! [[ "$seed" =~ ^[0-9]+$ ]]; then
	echo "usage: $0 [GB] [seed (unsigned integer)]" >&2
	exit 2
fi
dir=${BUILD_DIR:-build}
# configure (and build everything) once; then only the soak program
if [ ! -f "$dir/build.ninja" ]; then
	BUILD_DIR=$dir devtools/build.sh
fi
ninja -C "$dir" test/test_soak >"$dir/soak-ninja.log" 2>&1 || {
	grep -E 'error|FAILED' -A3 "$dir/soak-ninja.log" | head -40 >&2
	exit 1
}
echo "soak: $gb GiB through the impaired link (seed $seed), $dir/test/test_soak"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
SOFTERNIC_SOAK_MB=$((gb * 1024)) SOFTERNIC_SOAK_SEED=$seed \
	"$dir/test/test_soak" >"$log" 2>&1 || rc=$?
sed -n '/^soak:/,/verified/p' "$log"
if [ "$rc" -ne 0 ]; then
	grep -E 'soak: QP|no progress|FAILED|[0-9]+\. ' "$log" | head -40 >&2
	echo "soak: FAILED" >&2
	exit "$rc"
fi
echo "soak: PASS"
