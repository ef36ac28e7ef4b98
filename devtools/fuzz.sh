#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets (test/fuzz) with clang and run each one.
# Usage: devtools/fuzz.sh [seconds per target (default 600)] [target...]
#   targets: frame mad config cli (default: all)
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (parallel
# fuzzing jobs per target, default 1).
# The corpus of each target grows in $FUZZ_BUILD_DIR/fuzz-corpus/<target>
# (seeded from ../shared/vectors, conf/ and generated MADs, configs and
# commands: test/fuzz/make_seeds.py); a crash leaves its input in
# $FUZZ_BUILD_DIR/fuzz-artifacts/<target>/ and makes the script exit 1.
# Replay one: $FUZZ_BUILD_DIR/test/fuzz/fuzz_<target> <file>.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(frame mad config cli)
dir=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-1}
if ! command -v clang >/dev/null; then
	echo "fuzz.sh: clang not found (devtools/deps.sh installs it)" >&2
	exit 77
fi
if [ ! -f "$dir/build.ninja" ]; then
	CC=clang meson setup "$dir" -Dfuzz=true >"$dir.setup.log" 2>&1 || {
		cat "$dir.setup.log" >&2
		echo "fuzz build: FAIL (meson setup)"
		exit 1
	}
	rm -f "$dir.setup.log"
fi
ninja -C "$dir" $(printf 'test/fuzz/fuzz_%s ' "${targets[@]}") >"$dir/fuzz-ninja.log" 2>&1 || {
	grep -E 'error|FAILED' -A3 "$dir/fuzz-ninja.log" | head -60 >&2
	echo "fuzz build: FAIL (ninja, log $dir/fuzz-ninja.log)"
	exit 1
}
shared=$(meson introspect "$dir" --buildoptions |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "shared_dir"))')
[ -n "$shared" ] || shared=../shared
python3 test/fuzz/make_seeds.py "$shared" conf "$dir/fuzz-seeds" >/dev/null
# leaks are checked per input by libFuzzer; the EAL's own allocations at
# exit are not ours
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# FUZZ_JOBS > 1: libFuzzer's workers write fuzz-<n>.log in the current directory
par=()
[ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
rc=0
for t in "${targets[@]}"; do
	corpus="$dir/fuzz-corpus/$t"
	art="$dir/fuzz-artifacts/$t"
	mkdir -p "$corpus" "$art"
	log="$dir/fuzz-$t.log"
	start=$(date +%s)
	st=0
	"$dir/test/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=16384 \
		-timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
		${par[@]+"${par[@]}"} \
		-artifact_prefix="$art/" "$corpus" "$dir/fuzz-seeds/$t" \
		>"$log" 2>&1 || st=$?
	runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" |
		awk '{s += $2} END {print s + 0}')
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
	if [ $st -ne 0 ]; then
		echo "fuzz $t: FAIL after $(( $(date +%s) - start )) s (log $log, inputs in $art)"
		grep -E 'ERROR|SUMMARY|invariant|runtime error' "$log" | head -5
		rc=1
	else
		echo "fuzz $t: OK $runs inputs in $(( $(date +%s) - start )) s, coverage ${cov:-?}, corpus $(ls "$corpus" | wc -l)"
	fi
done
exit $rc
