#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Plot the --json rows of an ernic-testpmd size sweep (-a) with gnuplot:
# average bandwidth (Gb/s, left axis) and message rate (Mpps, right axis)
# against the message size (log2 axis), one PNG.
#
# Usage: devtools/plot.sh RESULTS OUT.png [TITLE]
#   RESULTS: ernic-testpmd output with --json rows ("-" for stdin); other
#            lines (the perftest header) are ignored.
#   e.g. build/app/ernic-testpmd -l 0-1 --no-huge -- write_bw --loopback -a --json > wb.txt
#        devtools/plot.sh wb.txt wb.png
# Needs gnuplot (Debian: gnuplot-nox; devtools/deps.sh test installs it).
# Exit: 0, 1 no bandwidth rows or gnuplot failed, 2 bad arguments.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: devtools/plot.sh RESULTS OUT.png [TITLE]" >&2
	exit 2
fi
in=$1
out=$2
if [ "$in" != "-" ] && [ ! -r "$in" ]; then
	echo "plot.sh: cannot read \"$in\": expected ernic-testpmd output with --json rows" >&2
	exit 2
fi
case "$out" in
*.png) ;;
*) echo "plot.sh: bad output \"$out\": expected a .png file name" >&2; exit 2 ;;
esac
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot.sh: gnuplot is missing (apt-get install gnuplot-nox, or devtools/deps.sh test)" >&2
	exit 1
fi

data=$(mktemp)
trap 'rm -f "$data"' EXIT
# {"test": "write_bw", "bytes": 4096, ..., "bw_avg_gbps": 8.7, "mpps": 0.27}
awk '
function field(line, name,   re, m) {
	re = "\"" name "\": *\"?[^,}\"]*"
	if (!match(line, re))
		return ""
	m = substr(line, RSTART, RLENGTH)
	sub(/^"[^"]*": *"?/, "", m)
	return m
}
/^\{.*"bw_avg_gbps"/ {
	if (test == "")
		test = field($0, "test")
	print field($0, "bytes"), field($0, "bw_avg_gbps"), field($0, "mpps"), field($0, "bw_peak_gbps")
	n++
}
END {
	if (n == 0)
		exit 1
	print "# " test > "/dev/stderr"
}' "$in" >"$data" 2>"$data.test" || {
	rm -f "$data.test"
	echo "plot.sh: no bandwidth rows in \"$in\": expected --json output of a *_bw mode" >&2
	exit 1
}
test=$(sed -n 's/^# //p' "$data.test")
rm -f "$data.test"
title=${3:-"ernic-testpmd $test"}
rows=$(wc -l <"$data")

gnuplot <<GP
set terminal pngcairo size 1024,640 noenhanced
set output "$out"
set title "$title ($rows sizes)"
set xlabel "message size [bytes]"
set logscale x 2
set format x "%.0b %BB"
set ylabel "average bandwidth [Gb/s]"
set y2label "message rate [Mpps]"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set key top left
plot "$data" using 1:2 axes x1y1 with linespoints lw 2 title "BW average [Gb/s]", \
     "$data" using 1:4 axes x1y1 with lines dt 2 title "BW peak [Gb/s]", \
     "$data" using 1:3 axes x1y2 with linespoints lw 2 title "MsgRate [Mpps]"
GP
[ -s "$out" ] || { echo "plot.sh: gnuplot wrote no \"$out\"" >&2; exit 1; }
echo "plot.sh: $out: $rows sizes of $test"
