#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core's own test suite, as python3-pyverbs installs it under
# /usr/share/doc/rdma-core/tests (some files gzipped), run over softernic
# on conf/verbs-loopback.ini: every generic module, two QPs of one device
# talking to each other, as the suite does on any device. pyverbs_run.py
# sorts the outcomes: no failure, and a skip only for a feature softernic
# declines (doc/guides/verbs.rst has the list).
#
# Usage: verbs_pyverbs.sh path/to/libernic_verbs.so [MODULE...]
# python3-pyverbs missing: the run is skipped (exit 77), or fails under
# CI=true.
set -u
lib=${1:?usage: verbs_pyverbs.sh path/to/libernic_verbs.so [MODULE...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
conf=${SOFTERNIC_CONF:?SOFTERNIC_CONF names the conf/ directory}
src=/usr/share/doc/rdma-core/tests
# Debian's interpreter: pyverbs is a module of the system's python3
py=/usr/bin/python3
if [ ! -f "$src/run_tests.py" ] || ! $py -c 'import pyverbs' 2>/dev/null; then
	echo "verbs_pyverbs: python3-pyverbs is missing (devtools/deps.sh test installs it)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
# An ASan build of the library needs the sanitizer's runtime first; the
# interpreter's own allocations at exit are not ours to check for leaks.
preload=$lib
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ {print $3}')
if [ -n "$asan" ]; then
	preload="$asan $lib"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
tmp=$(mktemp -d /tmp/verbs_pyverbs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/tests"
gunzip -f "$tmp"/tests/*.gz
SOFTERNIC_CONFIG=$conf/verbs-loopback.ini LD_PRELOAD="$preload" \
	timeout "${VERBS_PYVERBS_TIMEOUT:-900}" \
	$py "$here/pyverbs_run.py" "$tmp/tests" ernic0 "$@"
