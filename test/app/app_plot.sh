#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# devtools/plot.sh on real output: ernic-testpmd write_bw --loopback -a
# --json (23 sizes, few iterations), plotted to a PNG; the PNG must exist,
# be a PNG of the expected size, and plot.sh must report 23 sizes. Bad
# inputs (no JSON rows, a missing file, a non-.png name) must fail with
# the reason. Skipped (77) only when gnuplot is not installed.
#
# Usage: app_plot.sh path/to/ernic-testpmd path/to/devtools/plot.sh
set -u
bin=${1:?usage: app_plot.sh ernic-testpmd plot.sh}
plot=${2:?usage: app_plot.sh ernic-testpmd plot.sh}
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: gnuplot is not installed (gnuplot-nox)"
	exit 77
fi
eal=(-l 0-1 --no-huge -m 1024 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.ernic:warning)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# Local ACK timeout of the perftest modes (-u), and the wall-clock limit of
# a run derived from it. An ASan build (-Dsanitize=true) runs several times
# slower, and on a loaded CI machine a poll loop descheduled for longer than
# timeout x (retry_count + 1) (67 ms x 8 by default) ends a run in
# RETRY_EXC_ERR: there the QPs get -u 18 (1.07 s x 8 = 8.6 s without
# progress before that error). SOFTERNIC_QP_TIMEOUT sets the exponent.
qpt=${SOFTERNIC_QP_TIMEOUT:-}
if [ -z "$qpt" ] && ldd "$bin" 2>/dev/null | grep -q 'libasan'; then
	qpt=18
fi
perf=()
[ -n "$qpt" ] && perf=(-u "$qpt")
# limit: 300 s of work plus one whole retry budget (8 timeouts)
wall=$((300 + 8 * (4096 << ${qpt:-14}) / 1000000000))
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

timeout $wall "$bin" "${eal[@]}" -- write_bw --loopback -a -n 20 --json \
	${perf[@]+"${perf[@]}"} \
	>"$dir/wb.txt" 2>&1 || fail "write_bw -a --json: exit status $?"
rows=$(grep -c '^{"test": "write_bw"' "$dir/wb.txt")
[ "$rows" -eq 23 ] || fail "write_bw -a --json: $rows JSON rows, expected 23"
if "$plot" "$dir/wb.txt" "$dir/wb.png" >"$dir/plot.out" 2>&1; then
	grep -q "wb.png: 23 sizes of write_bw" "$dir/plot.out" ||
		fail "plot.sh said: $(cat "$dir/plot.out")"
	# a PNG signature and a 1024 x 640 IHDR
	sig=$(head -c 8 "$dir/wb.png" | od -An -tx1 | tr -d ' \n')
	dim=$(head -c 24 "$dir/wb.png" | tail -c 8 | od -An -tx1 | tr -d ' \n')
	[ "$sig" = 89504e470d0a1a0a ] || fail "wb.png is not a PNG ($sig)"
	[ "$dim" = 0000040000000280 ] || fail "wb.png is not 1024 x 640 ($dim)"
	[ "$(stat -c %s "$dir/wb.png")" -gt 10000 ] ||
		fail "wb.png is suspiciously small"
	echo "ok: plot.sh wrote a 1024 x 640 PNG of 23 sizes"
else
	fail "plot.sh exit status $?: $(cat "$dir/plot.out")"
fi

grep -v '^{' "$dir/wb.txt" >"$dir/table.txt"
"$plot" "$dir/table.txt" "$dir/t.png" >"$dir/out" 2>&1
rc=$?
{ [ $rc -eq 1 ] && grep -q 'no bandwidth rows' "$dir/out"; } ||
	fail "no JSON rows: exit $rc, $(cat "$dir/out")"
"$plot" "$dir/nonexistent" "$dir/t.png" >"$dir/out" 2>&1
rc=$?
{ [ $rc -eq 2 ] && grep -q 'cannot read' "$dir/out"; } ||
	fail "missing file: exit $rc, $(cat "$dir/out")"
"$plot" "$dir/wb.txt" "$dir/t.jpg" >"$dir/out" 2>&1
rc=$?
{ [ $rc -eq 2 ] && grep -q 'expected a .png' "$dir/out"; } ||
	fail "non-png name: exit $rc, $(cat "$dir/out")"
[ $fails -eq 0 ] && echo "ok: bad inputs fail with the reason"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all plot checks passed"
