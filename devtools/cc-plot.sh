#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DCQCN convergence plot: runs the "two senders converge to a fair share"
# case of the cc unit suite (test/unit/test_cc.c: two RC flows into a
# 10 Gbit/s switch port with RED/ECN marking, simulated time) with
# CC_TRACE set, and plots each flow's DCQCN rate and measured throughput
# (Mbit/s) and the switch queue (KB) against simulated time (ms).
#
# Usage: devtools/cc-plot.sh [BUILD_DIR] [OUT.png]
#   BUILD_DIR: a configured build (default build), test/test_cc is built
#   OUT.png:   default cc-convergence.png; the samples go to OUT.dat
# Needs gnuplot (Debian: gnuplot-nox). The figure in
# doc/guides/img/cc-convergence.png (doc/guides/congestion.rst) is made
# with it: devtools/cc-plot.sh build doc/guides/img/cc-convergence.png
# Exit: 0, 1 the test failed or gnuplot failed, 2 bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
out=${2:-cc-convergence.png}
case "$out" in
*.png) ;;
*) echo "cc-plot.sh: bad output \"$out\": expected a .png file name" >&2; exit 2 ;;
esac
if [ ! -f "$build/build.ninja" ]; then
	echo "cc-plot.sh: \"$build\" is not a configured build (BUILD_DIR=$build devtools/build.sh)" >&2
	exit 2
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "cc-plot.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2
	exit 1
fi
ninja -C "$build" test/test_cc >/dev/null
case "$out" in
/*) ;;
*) out=$PWD/$out ;;
esac
mkdir -p "$(dirname "$out")"
dat=${out%.png}.dat
rm -f "$dat"
CC_TRACE=$dat "$build/test/test_cc" >"${out%.png}.log" 2>&1 || {
	echo "cc-plot.sh: test_cc failed (see ${out%.png}.log)" >&2
	exit 1
}
if [ ! -s "$dat" ]; then
	echo "cc-plot.sh: no samples in $dat" >&2
	exit 1
fi
gnuplot <<EOF || { echo "cc-plot.sh: gnuplot failed" >&2; exit 1; }
set terminal pngcairo size 1100,700 noenhanced
set output "$out"
set multiplot layout 2,1 title "DCQCN: two RC flows into one 10 Gbit/s port (simulated time, test_cc)"
set grid
set ylabel "Mbit/s"
set key outside right
plot "$dat" using (\$1/1000):4 with lines lw 2 title "flow 1 throughput", \
     "$dat" using (\$1/1000):5 with lines lw 2 title "flow 2 throughput", \
     "$dat" using (\$1/1000):(\$2 > 0 ? \$2 : 1/0) with points pt 7 ps 0.4 title "flow 1 rate Rc", \
     "$dat" using (\$1/1000):(\$3 > 0 ? \$3 : 1/0) with points pt 7 ps 0.4 title "flow 2 rate Rc"
set xlabel "simulated time (ms)"
set ylabel "queue (KB)"
plot "$dat" using (\$1/1000):(\$6/1000) with lines lw 2 title "switch queue"
unset multiplot
EOF
echo "cc-plot.sh: $out ($(grep -c -v '^#' "$dat") samples in $dat)"
grep -m1 "two flows on" "${out%.png}.log" | sed 's/^ *//' || true
