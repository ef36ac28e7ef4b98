#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run every softernic test suite: install what is missing, build, `meson test`.
# Exits non-zero on any failure. Usage: devtools/test.sh [meson test args...]
# Then two extra stages (doc/guides/testing.rst), skipped when meson test
# arguments are given:
# - sanitizers: the unit, app and verbs suites again in an ASan + UBSan build
#   ($dir-san, -Dsanitize=true), leaks checked, then the interop suite
#   there: SAN_INTEROP=all (default) runs all of it, a list of test names
#   only those, "" none (SKIP_SAN=1 skips the stage;
#   doc/guides/testing.rst, sanitizer stage);
# - fuzzing: each libFuzzer target for FUZZ_SECONDS (default 30) when clang
#   is installed (devtools/fuzz.sh, build $dir-fuzz; SKIP_FUZZ=1 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
devtools/deps.sh test
# the interop suite's VM peer; without it those cases SKIP (exit 77)
devtools/deps.sh interop || echo "test.sh: interop packages missing: the interop suite will skip" >&2
devtools/build.sh
dir=${BUILD_DIR:-build}
rc=0
meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" >"$dir/test.log" 2>&1 || rc=$?
# Per-test lines and the summary; the full log stays in $dir/meson-logs.
grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test.log" || true
logs=("$dir/meson-logs/testlog.json")
fuzz_log=
if [ $# -eq 0 ] && [ "${SKIP_SAN:-0}" != 1 ]; then
	san=$dir-san
	echo "test.sh: sanitizer stage (ASan + UBSan, leaks checked) in $san"
	srk=0
	BUILD_DIR=$san devtools/build.sh -Dsanitize=true || srk=$?
	if [ $srk -eq 0 ]; then
		export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
		export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
		meson test -C "$san" --print-errorlogs --num-processes 2 \
			--suite unit --suite app --suite verbs \
			>"$san/test.log" 2>&1 || srk=$?
		logs+=("$san/meson-logs/testlog.json")
		# the interop suite: the datapath against rxe under ASan, leaks
		# checked (QEMU TCG dominates its time, doc/guides/testing.rst);
		# SAN_INTEROP: all, or test names (a subset), or "" for none.
		# Time limits x1.5 (meson's and run-case.sh's IOP_TIMEOUT): an
		# ASan case took 1.14 times as long (0.8-1.5, testing.rst).
		iop=${SAN_INTEROP-all}
		[ "$iop" != all ] || iop="--suite interop"
		if [ -n "$iop" ]; then
			# shellcheck disable=SC2086 # a list of test names
			IOP_TIMEOUT=${IOP_TIMEOUT:-225} \
				meson test -C "$san" --print-errorlogs --num-processes 1 \
				--timeout-multiplier 1.5 \
				--logbase san-interop $iop >>"$san/test.log" 2>&1 ||
				srk=1
			logs+=("$san/meson-logs/san-interop.json")
		fi
		grep -E '^ *[0-9]+/[0-9]+ ' "$san/test.log" | sed 's/^/san /' || true
	fi
	[ $srk -eq 0 ] || rc=$srk
fi
if [ $# -eq 0 ] && [ "${SKIP_FUZZ:-0}" != 1 ] && command -v clang >/dev/null; then
	fuzz_log=$dir/fuzz.log
	echo "test.sh: fuzz stage, ${FUZZ_SECONDS:-30} s per target (devtools/fuzz.sh)"
	FUZZ_BUILD_DIR=$dir-fuzz devtools/fuzz.sh "${FUZZ_SECONDS:-30}" \
		>"$fuzz_log" 2>&1 || rc=1
	cat "$fuzz_log"
fi
# The summary, last (CI shows the end of the output): each failed test's
# name, result and the end of its output, then the counts.
python3 - "$fuzz_log" "${logs[@]}" <<'PY'
import json, os, sys
res = []
for path in sys.argv[2:]:
    if not os.path.exists(path):
        print(f"test.sh: no test log {path}")
        continue
    res += [json.loads(l) for l in open(path) if l.strip()]
for r in res:
    if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
        continue
    out = (r.get("stdout") or "") + (r.get("stderr") or "")
    lines = out.splitlines()
    print(f"=== {r['name']}: {r['result']} (exit {r.get('returncode')}, "
          f"{r.get('duration', 0):.1f} s), the last {min(len(lines), 60)} "
          f"of {len(lines)} output lines:")
    print("\n".join(lines[-60:]))
ok = sum(r["result"] in ("OK", "EXPECTEDFAIL") for r in res)
skip = sum(r["result"] == "SKIP" for r in res)
bad = len(res) - ok - skip
if sys.argv[1]:
    # one line per fuzz target: "fuzz <t>: OK ..." or "fuzz <t>: FAIL ..."
    for line in open(sys.argv[1]):
        if line.startswith("fuzz "):
            if ": OK " in line:
                ok += 1
            else:
                bad += 1
print(f"tests: {ok} passed, {bad} failed, {skip} skipped")
PY
exit $rc
