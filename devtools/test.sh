#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run every softernic test suite: install what is missing, build, `meson test`.
# Exits non-zero on any failure. Usage: devtools/test.sh [meson test args...]
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
if [ $rc -ne 0 ]; then
	sed -n '/^--- command ---/,$p' "$dir/test.log" | tail -150
fi
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
res = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = sum(r["result"] in ("OK", "EXPECTEDFAIL") for r in res)
skip = sum(r["result"] == "SKIP" for r in res)
bad = len(res) - ok - skip
print(f"tests: {ok} passed, {bad} failed, {skip} skipped")
PY
exit $rc
