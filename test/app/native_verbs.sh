#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/native_verbs as doc/guides/native-verbs.rst shows it: the
# guide's "$ build/examples/native_verbs ..." line is run with its EAL
# arguments (and --no-shconf, --no-telemetry, so that it can run beside
# other tests), it must exit 0 (it checks every completion and every byte
# itself and exits 1 on the first difference) and print exactly the lines
# the guide shows under that command.
#
# Usage: native_verbs.sh path/to/native_verbs path/to/native-verbs.rst
set -u
bin=${1:?usage: native_verbs.sh native_verbs native-verbs.rst}
rst=${2:?usage: native_verbs.sh native_verbs native-verbs.rst}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# the command's arguments -> dir/args, the lines under it -> dir/expected
python3 - "$rst" "$dir" <<'PY' || exit 1
import sys
rst, out = sys.argv[1], sys.argv[2]
lines = open(rst).read().split("\n")
for i, line in enumerate(lines):
    words = line.split()
    if words[:2] == ["$", "build/examples/native_verbs"]:
        break
else:
    sys.exit("FAIL: %s shows no \"$ build/examples/native_verbs\" run" % rst)
exp = []
for line in lines[i + 1:]:
    if not line.strip():
        break
    exp.append(line.strip())
if not exp:
    sys.exit("FAIL: %s shows no output under the run" % rst)
open(out + "/args", "w").write("\n".join(words[2:]) + "\n")
open(out + "/expected", "w").write("\n".join(exp) + "\n")
PY

mapfile -t args <"$dir/args"
timeout 60 "$bin" "${args[@]}" --no-shconf --no-telemetry \
	>"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/out"
if [ $rc -ne 0 ]; then
	cat "$dir/err" >&2
	echo "FAIL: native_verbs exited $rc" >&2
	exit 1
fi
if ! diff -u "$dir/expected" "$dir/out" >&2; then
	echo "FAIL: the output differs from $rst (- the guide, + the run)" >&2
	exit 1
fi
echo "ok: native_verbs ran as $rst shows it"
