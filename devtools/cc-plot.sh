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
#        devtools/cc-plot.sh --run CONF.ini [OUT.png] [BUILD_DIR]
#   a real run instead: ernic-testpmd --config CONF.ini with --cc-trace
#   (conf/cc-bneck.ini: two WRITE flows through a net_fault bottleneck),
#   each flow's goodput over 50 ms and the bottleneck's queue against
#   time; the trace goes where the file's --cc-trace says, the plotted
#   columns to OUT.dat
#   (default cc-bneck-run.png; doc/guides/img/cc-bneck-run.png is made so)
# Needs gnuplot (Debian: gnuplot-nox). The figure in
# doc/guides/img/cc-convergence.png (doc/guides/congestion.rst) is made
# with it: devtools/cc-plot.sh build doc/guides/img/cc-convergence.png
# Exit: 0, 1 the test failed or gnuplot failed, 2 bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

run_conf=
if [ "${1:-}" = --run ]; then
	run_conf=${2:?usage: devtools/cc-plot.sh --run CONF.ini [OUT.png] [BUILD_DIR]}
	[ -r "$run_conf" ] || { echo "cc-plot.sh: cannot read $run_conf" >&2; exit 2; }
	out=${3:-cc-bneck-run.png}
	build=${4:-build}
else
	build=${1:-build}
	out=${2:-cc-convergence.png}
fi
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
case "$out" in
/*) ;;
*) out=$PWD/$out ;;
esac
mkdir -p "$(dirname "$out")"
dat=${out%.png}.dat
rm -f "$dat"
if [ -n "$run_conf" ]; then
	ninja -C "$build" app/ernic-testpmd >/dev/null
	# the trace where the file's [test] args put it (--cc-trace PATH)
	trace=$(sed -n 's/^args *=.*--cc-trace \([^ ]*\).*/\1/p' "$run_conf")
	[ -n "$trace" ] || { echo "cc-plot.sh: $run_conf has no --cc-trace in its [test] args" >&2; exit 2; }
	log=${out%.png}.log
	rm -f "$trace"
	"$build/app/ernic-testpmd" -- --config "$run_conf" >"$log" 2>&1 || {
		echo "cc-plot.sh: the run failed (see $log)" >&2
		exit 1
	}
	python3 devtools/cc-trace.py plot "$trace" "$dat" || exit 1
	rate=$(sed -n 's/.* rate_mbps=\([0-9]*\) .*/\1/p' "$log" | head -1)
	sum=$(python3 devtools/cc-trace.py summary "$trace" "${rate:-0}")
	flows=$(awk '!/^#/ { print NF - 2; exit }' "$dat")
	bneck=$(grep -m1 '^cc: bottleneck ' "$log" |
		sed 's/.* \(rate_mbps=[0-9]*\) \(queue_kb=[0-9]*\) \(ecn_kb=[0-9.]*\).*/\1 \2 \3/')
	plots=
	for ((i = 1; i <= flows; i++)); do
		plots+="${plots:+, }\"$dat\" using 1:$((i + 1)) with lines lw 2 title \"flow $i goodput\""
	done
	gnuplot <<EOF || { echo "cc-plot.sh: gnuplot failed" >&2; exit 1; }
set terminal pngcairo size 1100,700 noenhanced
set output "$out"
set multiplot layout 2,1 title "DCQCN, a real run: $(basename "$run_conf"), $flows flows, $bneck"
set grid
set ylabel "Mbit/s (50 ms)"
set key outside right
plot $plots
set xlabel "time (ms)"
set ylabel "queue (KiB)"
plot "$dat" using 1:$((flows + 2)) with lines lw 2 title "bottleneck queue"
unset multiplot
EOF
	echo "cc-plot.sh: $out ($(grep -c -v '^#' "$dat") samples in $dat)"
	echo "cc-plot.sh: $sum"
	exit 0
fi
ninja -C "$build" test/test_cc >/dev/null
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
