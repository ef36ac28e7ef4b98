#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The performance suite (doc/guides/performance.rst). Not part of the tests:
# it builds with release flags in its own build directory, reserves huge
# pages (and gives the old count back), and measures on this machine, in one
# run, the bounds and the product side by side:
#
#   1. bound    the receive path's per-byte work on one core (ISA-L ICRC over
#               the frame + one copy into a registered buffer), and memcpy;
#               in cache, over 4 + 4 MiB (rows *_4m, the buffers of 64
#               QPs of 64 KiB), and (rows *_16k) into 64 MiB of target
#               buffers, as large as the 16384-QP row's
#   2. io       dpdk-testpmd io forwarding on the embedded link (net_ring
#               pair, and net_memif), 64 B and 4 KB frames; and the
#               link's floor: what a 4 KB frame costs the receiving lcore
#               of the net_ring loopback before any transport work (take
#               it, read its headers and ICRC slot, free it; zero-copy
#               shape and one segment, test/roce-linkfloor)
#   3. loopback ernic-testpmd --loopback (two net_ernic ports on a net_ring
#               pair, one lcore polling each): write/read/send bandwidth over
#               5 sizes with 1 and 64 QPs, and 1 QP of 4 MiB messages (the
#               64-QP 64 KiB row's buffers), write/send latency, 64 B message
#               rate with post lists (also over a net_memif pair, whose
#               io forwarding moves frames); the 4 KB 1-QP row again with
#               a window deeper than the workers' pipeline (-t 512 -Q 16);
#               the ICRC+copy bound beside each judged 4 KB run; the
#               latency floor of the same two cores (shared-memory
#               ping-pong, test/roce-pingpong)
#   4. qps      aggregate 4 KB WRITE bandwidth with 1, 64, 1024, 16384 QPs
#   5. workers  1 and 2 workers per port (net_memif pair, workers=N)
#   6. cost     instructions per message and per packet from callgrind over
#               the deterministic fake link (build/test/roce-cost), and over
#               two net_ernic ports on net_ring (test/roce-cost-pmd), printed;
#               built for x86-64-v3 in build-bench-cost (valgrind decodes
#               no AVX-512, counts compare across hosts); 4 KB WRITE with
#               1, 64, 1024 and 16384 QPs with simulated LL cache misses;
#               *_w2: two workers a port on the one-queue ring, every
#               frame handed over to the QPs' worker; *_q2_w2mq: two QPs,
#               two workers a port and two link queues, each worker reading
#               its own (no hand-over), beside *_q2 (one worker) and
#               *_q2_w2 (one queue)
#
# Output (BENCH_OUT, default build/bench): results.json (one object per
# row: name, bytes, qps, lcores, gbps, mpps, lat_typical_us, lat_99_us,
# lat_999_us, and a few more), results.md (the rows, the targets as ratios
# against the bounds of the same run, the instruction counts), bw.png (the
# bandwidth plot, when gnuplot is installed), raw.jsonl and logs/.
#
#   7. verbs    Debian's ib_write_bw, unmodified, over the verbs provider
#               (libernic_verbs.so) against ernic-testpmd write_bw: two
#               processes each, on conf/verbs-pair-a.ini and -b.ini (a
#               net_memif link), each end on its own core, 64 B and 4 KB,
#               BENCH_REPEAT pairs of runs; results.md judges the median of
#               the pairs' ratios (doc/guides/verbs.rst)
#
#   9. cc       congestion control and loss recovery (doc/guides/congestion.rst):
#               ernic-testpmd --loopback over a net_memif pair through a
#               net_fault bottleneck on the data sender's transmit side
#               (RED/ECN marking from 32 to 256 KiB, DCQCN at the ports'
#               defaults), WRITE and READ, 2 and 8 flows (QPs), 500 and
#               5000 Mbit/s, 512 KiB and 2 MiB queues: rows
#               cc_<write|read>_<N>f_<rate>m_q<KiB> with util (steady
#               goodput over the rate), jain, queue_peak_kb, tail_drops,
#               ecn_marked, cnps (--cc-trace, devtools/cc-trace.py); and
#               1 % loss both ways with 50 us of delay, selective repeat
#               and go-back-N against the clean link (cc_loss_*_2f)
#
#   8. numa     (--numa-wrong only) WRITE/READ bandwidth with the MR
#               buffers on the worker's node and on another node
#               (ERNIC_MR_NODE=wrong): the cost of remote memory. On a
#               machine with one NUMA node it says so and is skipped.
#
# Usage: devtools/bench.sh [--numa-wrong] [STEP...]   (default: every step)
# Environment:
#   BENCH_BUILD_DIR   build directory (build-bench)
#   BENCH_OUT         output directory (build/bench)
#   BENCH_SECONDS     seconds per bandwidth row (-D) (4)
#   BENCH_LAT_ITERS   iterations per latency row (20000)
#   BENCH_HUGEPAGES   2 MB pages to reserve while running (1536)
#   BENCH_QUICK=1     fewer rows and shorter runs (a smoke run)
#   BENCH_QP_TIMEOUT  local ACK timeout exponent of the loopback QPs (-u)
#                     (18: 1.07 s; the default 14 ends rows in RETRY_EXC
#                     when a loaded machine deschedules a poll loop)
#   BENCH_CC_QP_TIMEOUT  the same for the cc step (14: 67 ms, perftest's)
#   BENCH_APPEND=1    keep raw.jsonl: the rows of this run replace those
#                     of the same name (re-run a few steps of a full run)
#   BENCH_REPEAT      runs of each row a target is judged on (3; 1 with
#                     BENCH_QUICK): the first in its step's order, the
#                     others again at the step's end; results.md takes
#                     each figure's median and prints the runs' range
# "devtools/bench.sh report" only rewrites results.* and the plot from
# raw.jsonl.
# A row that fails is recorded with its error and the run goes on; the exit
# status is 1 when any row failed.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BENCH_BUILD_DIR:-build-bench}
out=${BENCH_OUT:-build/bench}
secs=${BENCH_SECONDS:-4}
lat_iters=${BENCH_LAT_ITERS:-20000}
huge_want=${BENCH_HUGEPAGES:-1536}
quick=${BENCH_QUICK:-0}
qp_timeout=${BENCH_QP_TIMEOUT:-18}
# the cc step's local ACK timeout exponent: perftest's 14 (67 ms), which
# decides how long a lost tail waits
cc_qpt=${BENCH_CC_QP_TIMEOUT:-14}
append=${BENCH_APPEND:-0}
repeat=${BENCH_REPEAT:-3}
numa_wrong=0
steps=()
for a in "$@"; do
	if [ "$a" = --numa-wrong ]; then numa_wrong=1; else steps+=("$a"); fi
done
[ ${#steps[@]} -eq 0 ] && steps=(bound io loopback qps workers verbs cost cc)
[ $numa_wrong = 1 ] && steps+=(numa)

if [ "$quick" = 1 ]; then
	secs=${BENCH_SECONDS:-1}
	lat_iters=${BENCH_LAT_ITERS:-2000}
	repeat=${BENCH_REPEAT:-1}
fi
case $repeat in
[1-9]) ;;
*) echo "bench.sh: BENCH_REPEAT must be 1..9, not '$repeat'" >&2; exit 2 ;;
esac

raw=$out/raw.jsonl
logs=$out/logs
failed=0
eal_mem=()
nr_file=/proc/sys/vm/nr_hugepages
huge_orig=""

say() { echo "bench: $*"; }

# ---------------------------------------------------------------- set-up

want_step() {
	local s
	for s in "${steps[@]}"; do
		[ "$s" = "$1" ] && return 0
	done
	return 1
}

check_steps() {
	local s
	for s in "${steps[@]}"; do
		case "$s" in
		bound|io|loopback|qps|workers|verbs|cost|cc|numa|report) ;;
		*) echo "bench.sh: unknown step '$s' (bound io loopback qps workers verbs cost cc numa report)" >&2
		   exit 2 ;;
		esac
	done
}

build() {
	devtools/deps.sh build bench verbs
	BUILD_DIR=$build_dir devtools/build.sh -Dbuildtype=release \
		-Db_ndebug=true
	mkdir -p "$out" "$logs"
	[ "$append" = 1 ] && [ -f "$raw" ] || : >"$raw"
}

restore_hugepages() {
	if [ -n "$huge_orig" ]; then
		echo "$huge_orig" >"$nr_file" 2>/dev/null || true
		say "huge pages: back to $huge_orig"
	fi
}

free_hugepages() {
	awk '/^HugePages_Free:/ { print $2; exit }' /proc/meminfo
}

# Reserve huge pages for the run; --in-memory so that nothing is left in
# hugetlbfs and concurrent DPDK processes do not clash.
setup_memory() {
	if [ "$(id -u)" -eq 0 ] && [ -w "$nr_file" ]; then
		huge_orig=$(cat "$nr_file")
		trap restore_hugepages EXIT
		if [ "$huge_orig" -lt "$huge_want" ]; then
			echo "$huge_want" >"$nr_file" 2>/dev/null || true
		fi
		if ! grep -q hugetlbfs /proc/mounts; then
			mkdir -p /dev/hugepages
			mount -t hugetlbfs nodev /dev/hugepages || true
		fi
	fi
	if [ "$(free_hugepages)" -ge 768 ] && grep -q hugetlbfs /proc/mounts; then
		eal_mem=(--in-memory -m 1400)
		say "memory: $(free_hugepages) free 2 MB huge pages (was $huge_orig reserved), EAL --in-memory -m 1400"
	else
		eal_mem=(--no-huge -m 2048 --no-shconf)
		say "memory: not enough huge pages, EAL --no-huge -m 2048 (slower)"
	fi
}

# Append one JSON object (a Python dict literal built from key=value
# arguments) to raw.jsonl.
record() {
	python3 - "$raw" "$@" <<'EOF'
import json, sys
row = {}
for kv in sys.argv[2:]:
    k, v = kv.split('=', 1)
    try:
        row[k] = json.loads(v)
    except ValueError:
        row[k] = v
with open(sys.argv[1], 'a') as f:
    f.write(json.dumps(row) + '\n')
EOF
}

# ---------------------------------------------------------------- 1. bound

step_bound() {
	local log=$logs/bound.log wide=$logs/bound_16k.log mid=$logs/bound_4m.log
	say "1. physical bound: ICRC + copy per byte on one core (test/roce-bound)"
	# hot: the default source set and target (both in cache); _4m: 4 MiB
	# of frames into 4 MiB of slots, the buffers of 64 QPs of 64 KiB
	# (performance.rst, "Many QPs"); _16k: the payloads land in 16384
	# slots (64 MiB, the receive buffers of the 16384-QP row) from 8192
	# frames (a pool's worth): out of cache
	if ! "$build_dir/test/roce-bound" --seconds "$secs" --cpu 1 \
		>"$log" 2>&1 ||
		! "$build_dir/test/roce-bound" --seconds "$secs" --cpu 1 \
		--frames 1024 --slots 1024 >"$mid" 2>&1 ||
		! "$build_dir/test/roce-bound" --seconds "$secs" --cpu 1 \
		--frames 8192 --slots 16384 >"$wide" 2>&1; then
		say "   FAILED (see $log, $mid, $wide)"
		failed=1
		return
	fi
	python3 - "$raw" "$log" "" "$mid" "_4m" "$wide" "_16k" <<'EOF'
import json, sys
with open(sys.argv[1], 'a') as out:
    for log, suffix in zip(sys.argv[2::2], sys.argv[3::2]):
        for line in open(log):
            if not line.startswith('{'):
                continue
            r = json.loads(line)
            row = {'name': r['name'] + suffix, 'bytes': r['payload'],
                   'qps': 0, 'lcores': 1, 'gbps': r['gbps'],
                   'mpps': r['mpps'], 'gbytes_per_s': r['gbytes_per_s'],
                   'step': 'bound'}
            out.write(json.dumps(row) + '\n')
            print('   %-20s %6d B  %8.2f GB/s  %8.2f Gb/s  %7.3f Mpps'
                  % (row['name'], r['payload'], r['gbytes_per_s'],
                     r['gbps'], r['mpps']))
EOF
}

# The ICRC+copy bound again, on the receiving worker's CPU right before a
# judged run (NAME, NAME@2...): a host's per-byte speed can change by up
# to 3x within minutes (performance.rst, "What each row means"), so the
# 4 KB and the 64 x 1 MiB targets are judged on the ratio of each run to
# the bound measured beside it, not on two figures taken minutes apart.
# 1 s a measurement; further arguments go to roce-bound (its memory).
pair_bound_row() {
	local name=$1 log=$logs/$1.log
	shift
	if ! "$build_dir/test/roce-bound" --seconds 1 --cpu 1 "$@" >"$log" 2>&1; then
		say "   $name: FAILED (see $log)"
		record name="$name" step=pair error='"roce-bound failed"'
		failed=1
		return
	fi
	python3 - "$raw" "$log" "$name" <<'EOF'
import json, sys
raw, log, name = sys.argv[1:4]
r = [json.loads(l) for l in open(log) if l.startswith('{')]
r = next(x for x in r if x['name'] == 'bound_icrc_copy')
row = {'name': name, 'bytes': r['payload'], 'qps': 0, 'lcores': 1,
       'gbps': r['gbps'], 'mpps': r['mpps'], 'step': 'pair'}
with open(raw, 'a') as f:
    f.write(json.dumps(row) + '\n')
print('   %-28s %8d B  %8.2f Gb/s  (ICRC+copy bound beside the next row)'
      % (name, r['payload'], r['gbps']))
EOF
}

# The latency floor of the two loopback cores (test/roce-pingpong): the
# same number of round trips as write_lat_64 between two threads on CPUs
# 0 and 1 through shared memory, each side spinning as long as write_lat's
# typical half round trip so that the run lasts as long (tail events come
# per second). Its 99.9 % is what no stack on these cores can beat.
pingpong_row() {
	local log=$logs/bound_pingpong.log typ work
	typ=$(python3 - "$raw" <<'EOF'
import json, sys
t = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get('name') == 'write_lat_64' and r.get('lat_typical_us'):
        t = r['lat_typical_us']
print(t if t is not None else '')
EOF
)
	[ -n "$typ" ] || { say "   bound_pingpong: no write_lat_64 row, skipped"; return; }
	work=$(python3 -c "print(max(0, int($typ * 1000) - 50))")
	if ! "$build_dir/test/roce-pingpong" --iters "$lat_iters" \
		--work-ns "$work" >"$log" 2>&1; then
		say "   bound_pingpong: FAILED (see $log)"
		failed=1
		return
	fi
	python3 - "$log" "$raw" <<'EOF'
import json, sys
r = json.loads([l for l in open(sys.argv[1]) if l.startswith('{')][-1])
row = {'name': 'bound_pingpong', 'bytes': 0, 'qps': 0, 'lcores': 2,
       'step': 'bound', 'work_ns': r['work_ns'],
       'lat_typical_us': r['lat_typical_us'], 'lat_99_us': r['lat_99_us'],
       'lat_999_us': r['lat_999_us']}
with open(sys.argv[2], 'a') as f:
    f.write(json.dumps(row) + '\n')
print('   %-28s %8s    t_typ %7.2f us  99%% %7.2f us  99.9%% %7.2f us'
      % ('bound_pingpong', '-', r['lat_typical_us'], r['lat_99_us'],
         r['lat_999_us']))
EOF
}

# ---------------------------------------------------------------- 2. io

# testpmd io forwarding between two ports; the packets injected by
# --tx-first circulate. Prints the median of the summed Rx-pps samples.
testpmd_pps() {
	local size=$1 log=$2
	shift 2
	local mbuf=$((size + 256))
	[ $mbuf -lt 2176 ] && mbuf=2176
	timeout -s INT $((secs + 10)) dpdk-testpmd -l 0-1 "${eal_mem[@]}" \
		--no-pci --log-level=lib.eal:error --no-telemetry "$@" -- \
		--forward-mode=io --tx-first --nb-cores=1 --stats-period=1 \
		--txpkts="$size" --mbuf-size="$mbuf" --total-num-mbufs=8192 \
		--burst=32 --no-lsc-interrupt >"$log" 2>&1 </dev/null || true
	python3 - "$log" <<'EOF'
import re, statistics, sys
samples, cur, seen = [], 0, 0
for line in open(sys.argv[1], errors='replace'):
    m = re.search(r'Rx-pps:\s+(\d+)', line)
    if m:
        cur += int(m.group(1))
        seen += 1
        if seen == 2:           # one sample = both ports
            samples.append(cur)
            cur, seen = 0, 0
samples = [x for x in samples if x > 0]
if len(samples) > 1:
    samples = samples[1:]   # the first partial second (kept when alone: a loaded machine)
print(int(statistics.median(samples)) if samples else 0)
EOF
}

step_io() {
	local link size pps sock=/tmp/bench-memif-$$.sock
	say "2. packet I/O bound: dpdk-testpmd io forwarding"
	if ! command -v dpdk-testpmd >/dev/null; then
		say "   dpdk-testpmd missing (Debian package dpdk-dev)"
		failed=1
		return
	fi
	for link in ring memif; do
		for size in 64 4096; do
			local args=()
			if [ $link = ring ]; then
				args=(--vdev=net_ring0 --vdev=net_ring1)
			else
				args=(--vdev=net_memif0,role=server,socket=$sock,bsize=$((size < 2048 ? 2048 : 8192)),rsize=11
				      --vdev=net_memif1,role=client,socket=$sock,bsize=$((size < 2048 ? 2048 : 8192)),rsize=11)
			fi
			pps=$(testpmd_pps $size "$logs/io-$link-$size.log" "${args[@]}")
			rm -f "$sock"
			if [ "$pps" = 0 ]; then
				say "   io $link $size B: no samples (see $logs/io-$link-$size.log)"
				failed=1
				continue
			fi
			python3 -c "print('   io %-5s %5d B  %8.3f Mpps  %8.2f Gb/s' % ('$link', $size, $pps / 1e6, $pps * $size * 8 / 1e9))"
			record name="testpmd_io_$link" bytes=$size qps=0 lcores=1 \
				mpps="$(python3 -c "print($pps / 1e6)")" \
				gbps="$(python3 -c "print($pps * $size * 8 / 1e9)")" \
				step=io link=$link
		done
	done
	link_floor_rows
}

# What a frame costs the receiving lcore of the net_ring loopback before any
# transport work (test/roce-linkfloor): take it from the ring, read its
# headers and ICRC slot, free its mbufs back to the sender's pools. zc: the
# PMD's zero-copy 4 KB WRITE (three segments); flat: the same in one mbuf.
# results.md sets it beside the bound: the 4 KB per-worker ratio that a
# receiver with no transport work would reach on this link.
link_floor_rows() {
	local shape log r name
	for shape in zc flat $(for ((r = 2; r <= repeat; r++)); do echo zc@$r; done); do
		name=link_floor_$shape
		shape=${shape%@*}
		log=$logs/$name.log
		if ! "$build_dir/test/roce-linkfloor" -l 0-1 "${eal_mem[@]}" \
			--no-pci --log-level=lib.eal:error --no-telemetry -- \
			--shape $shape --seconds "$secs" >"$log" 2>&1; then
			say "   $name: FAILED (see $log)"
			failed=1
			continue
		fi
		python3 - "$log" "$raw" "$name" <<'EOF'
import json, sys
r = json.loads([l for l in open(sys.argv[1]) if l.startswith('{')][-1])
row = {'name': sys.argv[3], 'bytes': r['payload'], 'qps': 0, 'lcores': 2,
       'step': 'io', 'link': 'ring', 'segs': r['segs'], 'mpps': r['mpps'],
       'worker_cycles': r['rx_cycles_a_frame'],
       'worker_mps': r['rx_busy_mps'],
       'tx_cycles_a_frame': r['tx_cycles_a_frame'], 'tsc_mhz': r['tsc_mhz']}
with open(sys.argv[2], 'a') as f:
    f.write(json.dumps(row) + '\n')
print('   %-16s %5d B  %d segment(s)  receiver %6.1f cycles a frame (%6.2f M/s a busy lcore), sender %6.1f'
      % (sys.argv[3], r['payload'], r['segs'], r['rx_cycles_a_frame'],
         r['rx_busy_mps'], r['tx_cycles_a_frame']))
EOF
	done
}

# ---------------------------------------------------------------- 3-5

# One ernic-testpmd --loopback row: NAME LINK WORKERS MODE [flags...]
# LINK: ring (the built-in net_ring pair) or memif (a net_memif pair with
# WORKERS workers per port). Records what the --json line says.
ernic_row() {
	local name=$1 link=$2 workers=$3 mode=$4
	shift 4
	local log=$logs/$name.log vdevs=() sock=/tmp/bench-ernic-$$.sock
	local tmo=$((secs * 3 + 120)) mem=("${eal_mem[@]}") flags=()
	# Gb/s figures: the bandwidth modes only (the others refuse it)
	case $mode in *_bw) flags=(--report_gbits) ;; esac
	if [ "$link" = memif ]; then
		# memif needs the multi-process channel (no --in-memory) and
		# caps frames at 1518 B: pmtu 1024, as conf/memif-pair.ini
		mem=(--no-huge -m 2048 --file-prefix=bench-memif-$$)
		vdevs=(--vdev=net_memif0,role=server,socket=$sock,bsize=2048
		       --vdev=net_memif1,role=client,socket=$sock,bsize=2048
		       --vdev=net_ernic0,port=net_memif0,ip=198.18.0.1,pmtu=1024,workers=$workers
		       --vdev=net_ernic1,port=net_memif1,ip=198.18.0.2,pmtu=1024,workers=$workers)
	fi
	if ! timeout $tmo "$build_dir/app/ernic-testpmd" -l 0-1 "${mem[@]}" \
		--no-pci --log-level=lib.eal:error --no-telemetry "${vdevs[@]}" \
		-- "$mode" --loopback --json --cycles "${flags[@]}" \
		-u "$qp_timeout" "$@" \
		>"$log" 2>&1; then
		rm -f "$sock"
		say "   $name: FAILED (see $log)"
		record name="$name" step=ernic link=$link workers=$workers \
			error="\"$(tail -1 "$log" | tr -d '"\\' | cut -c1-200)\""
		failed=1
		return
	fi
	rm -f "$sock"
	python3 - "$log" "$raw" "$name" "$link" "$workers" <<'EOF'
import json, re, sys
log, raw, name, link, workers = sys.argv[1:6]
lines = list(open(log, errors='replace'))
rows = [json.loads(l) for l in lines if l.startswith('{') and '"test"' in l]
if not rows:
    sys.exit('no result row')
r = rows[-1]
# --cycles: each port's busy worker cycles a frame of its busier direction
cyc = [m.groups() for m in (re.search(
    r'^cycles: \S+ .*cycles_a_frame_one_way=(\d+) = ([\d.]+) M/s', l)
    for l in lines) if m]
lat = r.get('lat_typical_usec') is not None
row = {'name': name, 'test': r['test'], 'bytes': r['bytes'],
       'qps': r.get('qps', 1), 'lcores': 1, 'workers': int(workers),
       'link': link, 'step': 'ernic',
       'gbps': None if lat else r.get('bw_avg_gbps'),
       'mpps': None if lat else r.get('mpps'),
       'lat_typical_us': r.get('lat_typical_usec'),
       'lat_99_us': r.get('lat_p99_usec'),
       'lat_999_us': r.get('lat_p999_usec')}
if len(cyc) == 2:
    # the slower port bounds what one worker lcore a side would carry
    row['worker_cycles'] = max(int(c) for c, _ in cyc)
    row['worker_mps'] = min(float(m) for _, m in cyc)
if lat:
    row['mpps'] = 1 / r['lat_typical_usec'] if r['lat_typical_usec'] else None
    print('   %-28s %8d B  t_typ %7.2f us  99%% %7.2f us  99.9%% %7.2f us'
          % (name, row['bytes'], row['lat_typical_us'], row['lat_99_us'],
             row['lat_999_us']))
    row['mpps'] = None
else:
    print('   %-28s %8d B %5d QPs %8.2f Gb/s %8.3f Mpps  worker %s cycles'
          % (name, row['bytes'], row['qps'], row['gbps'], row['mpps'],
             row.get('worker_cycles', '-')))
with open(raw, 'a') as f:
    f.write(json.dumps(row) + '\n')
EOF
}

step_loopback() {
	local op size q sizes=(64 512 4096 65536 1048576) qps=(1 64)
	[ "$quick" = 1 ] && sizes=(64 4096 65536) && qps=(1)
	say "3. ernic loopback (net_ring pair, 1 lcore per port)"
	for op in write_bw read_bw send_bw; do
		# the rows a ratio compares (1 and 64 QPs of a size) run one
		# after the other
		for size in "${sizes[@]}"; do
			for q in "${qps[@]}"; do
				local extra=()
				# 64 QPs x 1 MiB x tx depth: keep the buffers in memory
				[ "$size" -ge 65536 ] && [ "$q" -gt 1 ] && extra=(-t 16)
				[ "$op/$size/$q" = write_bw/4096/1 ] &&
					pair_bound_row pair_bound_4096
				# 64 x 1 MiB: the bound over as much memory beside it
				[ "$size/$q" = 1048576/64 ] &&
					pair_bound_row "pair_bound_16k_${op%_bw}" \
						--frames 8192 --slots 16384
				ernic_row "${op}_${size}_q$q" ring 1 $op -s $size \
					-q $q -D "$secs" "${extra[@]}"
			done
		done
		# 1 QP with the buffers of the 64-QP 64 KiB row (a 4 MiB
		# message: 4 MiB read, 4 MiB written): the same bytes split
		# otherwise (performance.rst, "Many QPs")
		[ "$quick" = 1 ] ||
			ernic_row "${op}_4194304_q1" ring 1 $op -s 4194304 -q 1 \
				-t 16 -D "$secs"
	done
	# the 4 KB 1-QP row with a window deeper than the two workers'
	# pipeline: at perftest's defaults (-t 128 -Q 100) only 28 WRs are
	# out when the signalled one completes (performance.rst, "What each
	# row means")
	ernic_row write_bw_4096_q1_deep ring 1 write_bw -s 4096 -t 512 -Q 16 \
		-D "$secs"
	for op in write_lat send_lat; do
		for size in 64 4096; do
			ernic_row "${op}_$size" ring 1 $op -s $size -n "$lat_iters"
		done
	done
	pingpong_row
	# message rate: 64 B WRITEs in post lists of 32, one CQE per list
	# (-Q must divide -l); for a duration like the other rows (a fixed
	# 1280000 lasted 0.15-0.2 s, mostly start-up: performance.rst, "What
	# was tried and what it gave")
	ernic_row msgrate_write_64_pl32 ring 1 write_bw -s 64 -l 32 -t 256 \
		-Q 32 -D "$secs"
	# the same over a link that moves frames (net_memif copies each into
	# its shared rings, as a NIC's DMA would): its testpmd io rate is a
	# packet I/O bound, net_ring's (pointers passed) is not
	ernic_row msgrate_write_64_pl32_memif memif 1 write_bw -s 64 -l 32 \
		-t 256 -Q 32 -D "$secs"
	# the rows a target is judged on, again: one run of each a pass, so
	# that a row's runs are minutes apart (the host's speed changes by up to 2x
	# within minutes; performance.rst, "Targets")
	local r
	for ((r = 2; r <= repeat; r++)); do
		pair_bound_row "pair_bound_4096@$r"
		ernic_row "write_bw_4096_q1@$r" ring 1 write_bw -s 4096 -q 1 \
			-D "$secs"
		ernic_row "msgrate_write_64_pl32@$r" ring 1 write_bw -s 64 \
			-l 32 -t 256 -Q 32 -D "$secs"
		ernic_row "write_lat_64@$r" ring 1 write_lat -s 64 \
			-n "$lat_iters"
	done
}

# Memory on the wrong node: the same rows with the MR buffers of
# ernic-testpmd on the worker's node and on another one (numa_buf.c).
numa_nodes() {
	ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l
}

numa_skip_msg() {
	say "7. NUMA: this machine has $(numa_nodes) NUMA node(s): there is no wrong node to put memory on; --numa-wrong skipped (it needs a machine with more than one)"
}

step_numa() {
	local op size
	say "7. NUMA: MR buffers on the worker's node and on another node"
	for op in write_bw read_bw; do
		for size in 4096 65536; do
			ernic_row "numa_right_${op}_$size" ring 1 $op -s $size -D "$secs"
			export ERNIC_MR_NODE=wrong
			ernic_row "numa_wrong_${op}_$size" ring 1 $op -s $size -D "$secs"
			unset ERNIC_MR_NODE
		done
	done
}

step_qps() {
	local q list=(1 64 1024 16384)
	[ "$quick" = 1 ] && list=(1 1024)
	say "4. QP scaling: aggregate 4 KB WRITE bandwidth"
	for q in "${list[@]}"; do
		# 16384 QPs x 128 WRs would need 2 M CQEs a side: -t 8
		local t=128
		[ "$q" -ge 1024 ] && t=8
		ernic_row "qps_write_4096_q$q" ring 1 write_bw -s 4096 -q $q \
			-t $t -D "$secs"
	done
	# the two rows of the 16384-QP target, again (as in step_loopback)
	local r
	for ((r = 2; r <= repeat; r++)); do
		ernic_row "qps_write_4096_q1@$r" ring 1 write_bw -s 4096 -q 1 \
			-t 128 -D "$secs"
		[ "$quick" = 1 ] && continue
		ernic_row "qps_write_4096_q16384@$r" ring 1 write_bw -s 4096 \
			-q 16384 -t 8 -D "$secs"
	done
}

step_workers() {
	local w
	say "5. worker scaling (net_memif pair, workers=N per port, 64 QPs)"
	for w in 1 2; do
		ernic_row "workers_write_4096_w$w" memif $w write_bw -s 4096 \
			-q 64 -D "$secs"
	done
}

# ---------------------------------------------------------------- 7. verbs

# One row of two processes on the verbs pair files (private copies with a
# socket of their own): NAME KIND SIZE, KIND tp (ernic-testpmd write_bw) or
# ib (Debian's ib_write_bw over libernic_verbs.so). The server on core 0,
# the client on core 1; -n iterations without peak (-N: its computation
# grows with the square of -n in both tools). Records the client's row.
verbs_row() {
	local name=$1 kind=$2 size=$3 log=$logs/$1.log
	local lib=$PWD/$build_dir/lib/verbs/libernic_verbs.so dir
	local port=$((19000 + RANDOM % 1000)) n spid rc=0 s
	local eal=(--no-huge -m 1024 --no-shconf --no-pci --no-telemetry
		--log-level=lib.eal:error --log-level=pmd.net.memif:error)
	local bw=(write_bw -s "$size" -N --report_gbits -p "$port")
	n=$((size >= 4096 ? 1000000 : 5000000))
	[ "$quick" = 1 ] && n=$((n / 10))
	bw+=(-n "$n")
	dir=$(mktemp -d)
	for s in a b; do
		sed "s#socket=/tmp/softernic-verbs-pair.sock#socket=$dir/pair.sock#" \
			"conf/verbs-pair-$s.ini" >"$dir/$s.ini"
	done
	if [ "$kind" = tp ]; then
		timeout 120 "$build_dir/app/ernic-testpmd" -l 0 "${eal[@]}" \
			--file-prefix="bench-va-$$" -- --config "$dir/a.ini" \
			"${bw[@]}" >"$log.srv" 2>&1 &
		spid=$!
		sleep 1.5
		timeout 120 "$build_dir/app/ernic-testpmd" -l 1 "${eal[@]}" \
			--file-prefix="bench-vb-$$" -- --config "$dir/b.ini" \
			"${bw[@]}" 127.0.0.1 >"$log" 2>&1 || rc=$?
	else
		SOFTERNIC_CONFIG=$dir/a.ini LD_PRELOAD=$lib taskset -c 0 \
			timeout 120 ib_write_bw -x 1 "${bw[@]:1}" \
			>"$log.srv" 2>&1 &
		spid=$!
		sleep 1.5
		SOFTERNIC_CONFIG=$dir/b.ini LD_PRELOAD=$lib taskset -c 1 \
			timeout 120 ib_write_bw -x 1 "${bw[@]:1}" 127.0.0.1 \
			>"$log" 2>&1 || rc=$?
	fi
	wait "$spid" || rc=$?
	rm -rf "$dir"
	# the perftest row: bytes, iterations, peak, average Gb/s, M messages/s
	s=$(awk -v b="$size" '$1 == b && NF == 5 { print $4, $5; exit }' "$log")
	if [ $rc -ne 0 ] || [ -z "$s" ]; then
		say "   $name: FAILED (see $log, $log.srv)"
		record name="$name" step=verbs error="\"exit $rc or no row\""
		failed=1
		return
	fi
	printf 'bench:    %-28s %8d B %8.2f Gb/s %8.3f Mpps\n' "$name" "$size" $s
	record name="$name" step=verbs kind="$kind" bytes="$size" qps=1 \
		lcores=2 link=memif gbps="${s% *}" mpps="${s#* }"
}

step_verbs() {
	local r size tag
	say "7. verbs: Debian's ib_write_bw over libernic_verbs.so vs ernic-testpmd write_bw, two processes over net_memif"
	if ! command -v ib_write_bw >/dev/null ||
		[ ! -f "$build_dir/lib/verbs/libernic_verbs.so" ]; then
		say "   perftest or libernic_verbs.so missing: no verbs rows"
		failed=1
		return
	fi
	for ((r = 1; r <= repeat; r++)); do
		tag=""
		[ $r -gt 1 ] && tag="@$r"
		for size in 64 4096; do
			verbs_row "verbs_tp_write_$size$tag" tp $size
			verbs_row "verbs_ib_write_$size$tag" ib $size
		done
	done
}

# ---------------------------------------------------------------- 9. cc

# cc_row NAME MODE FLOWS RATE QKB [FAULT...] [-- ARGS...]: MODE (write_bw
# or read_bw) --loopback with FLOWS QPs of 64 KiB messages over a net_memif
# pair, the data sender's port on net_fault (dir=tx: frames join the queue
# when they are sent, whatever the receiver's scheduling): a RATE Mbit/s
# bottleneck with a QKB KiB queue (RATE 0: none), or the FAULT devargs
# given; ARGS go to ernic-testpmd. Records the trace's summary
# (devtools/cc-trace.py) and the run's counters.
cc_row() {
	local name=$1 mode=$2 flows=$3 rate=$4 qkb=$5 log=$logs/$1.log
	local dir fault e0=net_memif0 e1=net_memif1 fport sum rc=0 v
	shift 5
	fault=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do fault+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	[ "$rate" -gt 0 ] && fault+=(dir=tx "rate_mbps=$rate" "queue_kb=$qkb"
		ecn_kmin_kb=32 ecn_kmax_kb=256 ecn_pmax=10)
	# WRITE: the client sends the data (port 0); READ: the server's responses
	if [ "$mode" = write_bw ]; then fport=net_memif0 e0=net_fault0; else fport=net_memif1 e1=net_fault0; fi
	local f
	f=$(IFS=,; echo "${fault[*]}")
	dir=$(mktemp -d)
	timeout 120 "$build_dir/app/ernic-testpmd" -l 0-1 "${eal_mem[@]}" \
		--no-pci --no-telemetry --file-prefix="bench-cc-$$" \
		--log-level=lib.eal:error --log-level=pmd.net.memif:error \
		--vdev="net_memif0,role=server,id=0,socket=$dir/m.sock,bsize=2048" \
		--vdev="net_memif1,role=client,id=0,socket=$dir/m.sock,bsize=2048" \
		--vdev="net_fault0,port=$fport,seed=7${f:+,$f}" \
		--vdev="net_ernic0,port=$e0,ip=198.18.0.1,mac=02:00:c6:12:00:01,pmtu=1024" \
		--vdev="net_ernic1,port=$e1,ip=198.18.0.2,mac=02:00:c6:12:00:02,pmtu=1024" \
		-- "$mode" -q "$flows" -s 65536 -D "$secs" --loopback \
		-u "$cc_qpt" --cc-trace "$logs/$name.trace" "$@" >"$log" 2>&1 || rc=$?
	rm -rf "$dir"
	sum=$(python3 devtools/cc-trace.py summary "$logs/$name.trace" "$rate" 2>&1) || rc=1
	if [ $rc -ne 0 ] || ! grep -qE '^ 65536 +[0-9]+' "$log"; then
		say "   $name: FAILED (exit $rc; see $log${sum:+: $sum})"
		record name="$name" step=cc error="\"exit $rc or no trace\""
		failed=1
		return
	fi
	# the run's counters: the bottleneck's (whole run) and the CNPs sent
	v=$(grep -m1 '^cc: bottleneck ' "$log" | tr ' ' '\n' || true)
	local peak drops marked cnps
	peak=$(sed -n 's/^queue_peak=//p' <<<"$v")
	drops=$(sed -n 's/^tail_drop=//p' <<<"$v")
	marked=$(sed -n 's/^ecn_marked=//p' <<<"$v")
	cnps=$( (grep '^cc: port ' "$log" || true) | tr ' ' '\n' |
		sed -n 's/^tx_cnp=//p' | awk '{ s += $1 } END { print s + 0 }')
	printf 'bench:    %-28s %s queue_peak_kb %s tail_drops %s ecn_marked %s cnps %s\n' \
		"$name" "$sum" "$(( ${peak:-0} / 1024 ))" "${drops:-0}" "${marked:-0}" "$cnps"
	# shellcheck disable=SC2046 # the summary's key=value words
	record name="$name" step=cc mode="\"$mode\"" flows="$flows" \
		rate_mbps="$rate" queue_kb="$qkb" bytes=65536 qps="$flows" \
		lcores=2 link=memif queue_peak_kb="$(( ${peak:-0} / 1024 ))" \
		tail_drops="${drops:-0}" ecn_marked="${marked:-0}" cnps="$cnps" \
		$(sed 's/flows=[0-9]* //' <<<"$sum")
}

step_cc() {
	local mode f rate q
	say "9. congestion and loss: ernic-testpmd --loopback through a net_fault bottleneck (DCQCN defaults), then 1 % loss both ways"
	for mode in write read; do
		for f in 2 8; do
			for rate in 500 5000; do
				for q in 512 2048; do
					[ "$quick" = 1 ] && [ "$q" = 2048 ] && continue
					cc_row "cc_${mode}_${f}f_${rate}m_q$q" \
						"${mode}_bw" "$f" "$rate" "$q"
				done
			done
		done
	done
	# 1 % of the frames lost each way, 50 us each way; the clean link
	# with the same delay is the reference
	cc_row cc_loss_clean_2f write_bw 2 0 0 dir=both delay_us=50
	cc_row cc_loss_sr_2f write_bw 2 0 0 dir=both delay_us=50 loss=1
	cc_row cc_loss_gbn_2f write_bw 2 0 0 dir=both delay_us=50 loss=1 \
		-- --no_sr
}

# ---------------------------------------------------------------- 6. cost

step_cost() {
	local spec name args ir
	say "6. CPU cost: instructions from callgrind over the fake link (test/roce-cost) and the PMD over net_ring (test/roce-cost-pmd)"
	if ! command -v valgrind >/dev/null; then
		say "   valgrind missing: no instruction counts"
		failed=1
		return
	fi
	# Its own build for a fixed instruction set, x86-64-v3 (AVX2): counts
	# then compare across hosts, and valgrind (3.19 in Debian 12) decodes
	# no AVX-512, which -march=native emits on AVX-512 hosts (SIGILL).
	local cost_dir=$build_dir-cost
	if [ ! -f "$cost_dir/build.ninja" ] &&
		! meson setup "$cost_dir" -Dbuildtype=release -Db_ndebug=true \
			-Dmachine=x86-64-v3 >"$logs/cost-setup.log" 2>&1; then
		say "   cost: meson setup of $cost_dir FAILED (see $logs/cost-setup.log)"
		failed=1
		return
	fi
	if ! ninja -C "$cost_dir" test/roce-cost test/roce-cost-pmd \
		>"$logs/cost-build.log" 2>&1; then
		say "   cost: build in $cost_dir FAILED (see $logs/cost-build.log)"
		failed=1
		return
	fi
	for spec in \
		"write_4096:--op write --size 4096 --msgs 2000" \
		"write_4096_zc:--op write --size 4096 --msgs 2000 --zero-copy" \
		"write_65536:--op write --size 65536 --msgs 300" \
		"read_65536:--op read --size 65536 --msgs 300" \
		"write_64_pl32:--op write --size 64 --post-list 32 --msgs 5000" \
		"write_64:--op write --size 64 --msgs 5000" \
		"send_64:--op send --size 64 --msgs 5000" \
		"pmd_write_4096:--op write --size 4096 --msgs 2000" \
		"pmd_write_4096_zc:--op write --size 4096 --msgs 2000 --zero-copy" \
		"pmd_write_64:--op write --size 64 --msgs 5000" \
		"pmd_write_64_w2:--op write --size 64 --msgs 5000 --workers 2" \
		"pmd_write_4096_w2:--op write --size 4096 --msgs 2000 --workers 2" \
		"pmd_write_64_q2:--op write --size 64 --msgs 5000 --qps 2" \
		"pmd_write_64_q2_w2:--op write --size 64 --msgs 5000 --qps 2 --workers 2" \
		"pmd_write_64_q2_w2mq:--op write --size 64 --msgs 5000 --qps 2 --workers 2 --queues 2" \
		"pmd_write_4096_q2:--op write --size 4096 --msgs 2000 --qps 2" \
		"pmd_write_4096_q2_w2mq:--op write --size 4096 --msgs 2000 --qps 2 --workers 2 --queues 2" \
		"pmd_send_64:--op send --size 64 --msgs 5000" \
		"pmd_write_4096_q1_cm1:--op write --size 4096 --msgs 16384 --qps 1 --cq-mod 1" \
		"pmd_write_4096_q64:--op write --size 4096 --msgs 16384 --qps 64" \
		"pmd_write_4096_q1024:--op write --size 4096 --msgs 16384 --qps 1024" \
		"pmd_write_4096_q16384:--op write --size 4096 --msgs 16384 --qps 16384" \
		"pmd_write_4096_q16384_zc_pa:--op write --size 4096 --msgs 16384 --qps 16384 --zero-copy --iova-pa"; do
		name=${spec%%:*}
		args=${spec#*:}
		# pmd_*: the whole net_ernic datapath over net_ring (roce-cost-pmd)
		local prog=roce-cost cache=no
		case $name in pmd_*) prog=roce-cost-pmd ;; esac
		# *_pa: IOVA as PA needs huge pages (and root): skipped without
		case $name in *_pa)
			if [ "${eal_mem[0]:-}" != --in-memory ]; then
				say "   cost $name: skipped (no free huge pages for --iova-pa)"
				continue
			fi ;;
		esac
		# QP scaling (every WR signaled): also callgrind's simulated
		# last-level cache misses, the part that grows with the QPs. The
		# last level is fixed at 32 MiB, 16-way (one CCX's L3 on the
		# EPYCs here), not taken from CPUID: a VM may report the whole
		# socket's (valgrind made it 256 MiB direct-mapped here)
		local ll=
		case $name in *_q[0-9]*) cache=yes ll=--LL=33554432,16,64 ;; esac
		# shellcheck disable=SC2086
		if ! valgrind --tool=callgrind --collect-atstart=no \
			--cache-sim=$cache $ll \
			--callgrind-out-file="$logs/cost-$name.callgrind" \
			"$cost_dir/test/$prog" $args --warmup 200 \
			>"$logs/cost-$name.json" 2>"$logs/cost-$name.log"; then
			say "   cost $name: FAILED (see $logs/cost-$name.log)"
			failed=1
			continue
		fi
		# Collected: Ir, and with the cache simulation Dr Dw I1mr D1mr
		# D1mw ILmr DLmr DLmw after it
		collected=$(sed -n 's/.*Collected : \([0-9 ]*\).*/\1/p' "$logs/cost-$name.log")
		callgrind_annotate "$logs/cost-$name.callgrind" 2>/dev/null |
			grep -E '^ *[0-9,]+ \(' | head -25 >"$logs/cost-$name.top" || true
		python3 - "$logs/cost-$name.json" "$raw" "$name" "$collected" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
name, ev = sys.argv[3], [int(x) for x in sys.argv[4].split()]
ir = ev[0]
row = {'name': 'cost_' + name, 'step': 'cost', 'bytes': r['bytes'],
       'qps': r['qps'], 'lcores': 1, 'instructions': ir,
       'msgs': r['msgs'], 'pkts': r['pkts'], 'data_pkts': r['data_pkts'],
       'instr_per_msg': ir / r['msgs'], 'instr_per_pkt': ir / r['pkts'],
       'instr_per_data_pkt': ir / r['data_pkts'],
       'zero_copy': r['zero_copy'], 'post_list': r['post_list'],
       'iova_pa': r.get('iova_pa', False),
       'mr_iova_cached': r.get('mr_iova_cached', True),
       'cq_mod': r.get('cq_mod'), 'workers': r.get('workers', 1),
       'link_queues': r.get('queues', 1),
       'handoffs_per_pkt': r.get('handoffs', 0) / r['pkts']}
ll = ''
if len(ev) >= 9:
    row['ll_read_miss_per_msg'] = ev[7] / r['msgs']
    row['ll_write_miss_per_msg'] = ev[8] / r['msgs']
    ll = '  LL misses %.1f read + %.1f write /message' % (
        row['ll_read_miss_per_msg'], row['ll_write_miss_per_msg'])
print('   %-16s %8.0f instructions/message  %7.0f /data packet  %7.0f /packet (ACKs included)%s'
      % (name, row['instr_per_msg'], row['instr_per_data_pkt'],
         row['instr_per_pkt'], ll))
with open(sys.argv[2], 'a') as f:
    f.write(json.dumps(row) + '\n')
EOF
	done
	say "   (both ends, per message; profiles: $logs/cost-*.top, callgrind_annotate $logs/cost-*.callgrind)"
}

# ---------------------------------------------------------------- report

report() {
	python3 - "$raw" "$out" <<'EOF'
import json, os, sys
raw, out = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(raw)]
# BENCH_APPEND: a row of a later run replaces the one of the same name
# (the io rows are named by link only: their size tells them apart)
def key(r):
    return (r['name'], r.get('bytes') if r.get('step') == 'io' else None)
last = {key(r): i for i, r in enumerate(rows)}
rows = [r for i, r in enumerate(rows) if last[key(r)] == i]
# BENCH_REPEAT: NAME@2, NAME@3... are further runs of NAME; the row keeps
# each figure's median over its runs ('runs': how many, 'range': min and
# max of each), and the runs themselves under 'repeats'
import statistics
# each run of a row by its index (NAME: 1, NAME@2: 2...), for the pairs
runs_of = {}
for r in rows:
    n, _, i = r['name'].partition('@')
    if not r.get('error'):
        runs_of.setdefault(n, {})[int(i or 1)] = dict(r)  # before the medians
figs = ['gbps', 'mpps', 'lat_typical_us', 'lat_99_us', 'lat_999_us',
        'worker_cycles', 'worker_mps']
base = {r['name']: r for r in rows if '@' not in r['name']}
for r in [r for r in rows if '@' in r['name']]:
    b = base.get(r['name'].split('@')[0])
    if b is not None and not r.get('error'):
        b.setdefault('repeats', []).append(r)
rows = [r for r in rows if '@' not in r['name']]
for b in rows:
    runs = ([] if b.get('error') else [dict(b)]) + b.get('repeats', [])
    if 'repeats' not in b or not runs:
        continue
    b['runs'] = len(runs)
    b['range'] = {}
    for k in figs:
        v = [x[k] for x in runs if x.get(k) is not None]
        if v:
            b[k] = statistics.median(v)
            b['range'][k] = [min(v), max(v)]
    b.pop('error', None)
cols = ['name', 'bytes', 'qps', 'lcores', 'gbps', 'mpps', 'lat_typical_us',
        'lat_99_us', 'lat_999_us', 'worker_cycles', 'worker_mps']
for r in rows:
    for c in cols:
        r.setdefault(c, None)
# the loss rows' util: over the clean link of the same run (step cc)
clean = next((r.get('gbps') for r in rows
              if r['name'] == 'cc_loss_clean_2f' and not r.get('error')), None)
for r in rows:
    if r['name'].startswith('cc_loss_') and r.get('gbps') is not None \
            and clean:
        r['util'] = r['gbps'] / clean	# the clean row itself: 1
with open(os.path.join(out, 'results.json'), 'w') as f:
    json.dump(rows, f, indent=1)
by = {r['name']: r for r in rows}

def val(name, key):
    r = by.get(name)
    return None if r is None else r.get(key)

def ratio(a, b):
    return None if a is None or not b else a / b

def fmt(v, nd=2):
    return '-' if v is None else ('%.*f' % (nd, v) if isinstance(v, float) else str(v))

md = ['# softernic performance run', '',
      'Figures of one run on one machine; bounds measured in the same run.',
      'Wall-clock figures depend on the machine load; instruction counts do not.',
      'A row run more than once (BENCH_REPEAT) shows the median of its runs; their range is listed below the targets.', '',
      '## Targets (ratios against the bounds of this run)', '',
      '| target | measured | bound / goal | ratio | goal | met |',
      '|---|---|---|---|---|---|']
def target(label, meas, ref, goal, unit_m, unit_r, higher=True, absolute=False,
           r=None):
    # absolute: meas against goal; else the ratio meas / ref against goal
    # (no reference row in this run: not judged), or r where given (the
    # median of paired ratios)
    r = None if absolute else (r if r is not None else ratio(meas, ref))
    if absolute:
        met = None if meas is None else (meas >= goal if higher else meas <= goal)
    else:
        met = None if r is None else r >= goal
    md.append('| %s | %s %s | %s %s | %s | %s%s | %s |' % (
        label, fmt(meas), unit_m, fmt(ref), unit_r, fmt(r),
        '>= ' if higher else '<= ', goal,
        '-' if met is None else ('yes' if met else '**no**')))
bound = val('bound_icrc_copy', 'gbps')
# the 4 KB rows against the bound measured right before each of their runs
# (pair_bound_4096): the median of the runs' ratios; the step's bound only
# where no pair was run
# run index -> (the row's figure, in Gb/s, the bound beside it)
def paired(name, fig, scale=1.0):
    a, b = runs_of.get(name, {}), runs_of.get('pair_bound_4096', {})
    return {i: (a[i][fig] * scale, b[i]['gbps']) for i in sorted(a)
            if i in b and a[i].get(fig) is not None and b[i].get('gbps')}
def median_or_none(p):
    return statistics.median(x / y for x, y in p.values()) if p else None
pb = val('pair_bound_4096', 'gbps')
pairs_bw = paired('write_bw_4096_q1', 'gbps')
pairs_w = paired('write_bw_4096_q1', 'worker_mps', 4096 * 8 / 1000)
target('4 KB WRITE, 1 QP vs ICRC+copy bound' +
       (' (paired runs)' if pairs_bw else ''), val('write_bw_4096_q1', 'gbps'),
       pb if pairs_bw else bound, 0.8, 'Gb/s', 'Gb/s',
       r=median_or_none(pairs_bw))
def io_mpps(link, size):
    return next((r['mpps'] for r in rows
                 if r['name'] == 'testpmd_io_' + link and r['bytes'] == size), None)
target('64 B WRITE msg rate vs testpmd io (ring, 64 B)',
       val('msgrate_write_64_pl32', 'mpps'), io_mpps('ring', 64),
       0.5, 'Mpps', 'Mpps')
# the same on net_memif, whose io forwarding moves frames (a copy each way
# through its shared rings) where net_ring's passes pointers
target('64 B WRITE msg rate over net_memif vs testpmd io (memif, 64 B)',
       val('msgrate_write_64_pl32_memif', 'mpps'), io_mpps('memif', 64),
       0.5, 'Mpps', 'Mpps')
target('64 B WRITE msg rate', val('msgrate_write_64_pl32', 'mpps'), None, 10,
       'Mpps', '', absolute=True)
# per worker lcore: the transport's own busy cycles in the same run (the
# loopback lcores also run the benchmark); the slower of both ports
target('64 B WRITE msg rate, one busy worker lcore (--cycles)',
       val('msgrate_write_64_pl32', 'worker_mps'), None, 10, 'M/s', '',
       absolute=True)
# context: the same with a window that covers both workers' pipeline
md.append('| 4 KB WRITE, 1 QP, -t 512 -Q 16, vs ICRC+copy bound | %s Gb/s | %s Gb/s | %s | (context) | - |' % (
    fmt(val('write_bw_4096_q1_deep', 'gbps')), fmt(bound),
    fmt(ratio(val('write_bw_4096_q1_deep', 'gbps'), bound))))
w4 = val('write_bw_4096_q1', 'worker_mps')
target('4 KB WRITE, one busy worker lcore (--cycles) vs bound' +
       (' (paired runs)' if pairs_w else ''),
       None if w4 is None else w4 * 4096 * 8 / 1000,
       pb if pairs_w else bound, 0.8, 'Gb/s', 'Gb/s',
       r=median_or_none(pairs_w))
# what that ratio would be on this link with no transport cost at all: the
# bound's per-byte work and the link's per-frame floor (link_floor_zc),
# bound / (bound + floor) in time a frame (an estimate of the ceiling: it
# prices the receiver's bytes at the bound's)
fl, hz = val('link_floor_zc', 'worker_cycles'), val('link_floor_zc', 'tsc_mhz')
bmpps = val('bound_icrc_copy', 'mpps')
ceil = None
if fl is not None and hz and bmpps:
    bcyc = hz / bmpps
    ceil = bcyc / (bcyc + fl)
md.append('| 4 KB: that ratio with no transport cost on this link (bound / (bound + link floor)) | %s cycles a frame (floor) | %s cycles a frame (bound) | %s | (context) | - |' % (
    fmt(fl, 1), fmt(None if not (hz and bmpps) else hz / bmpps, 1), fmt(ceil)))
target('64 B write_lat t_typical (us)', val('write_lat_64', 'lat_typical_us'),
       None, 2, 'us', '', higher=False, absolute=True)
target('64 B write_lat 99.9 % (us)', val('write_lat_64', 'lat_999_us'),
       None, 10, 'us', '', higher=False, absolute=True)
# the machine's own tail for the same run length (bound_pingpong): a goal
# below it cannot be met on these cores by any stack
md.append('| 64 B write_lat 99.9 %% vs the cores\' ping-pong floor | %s us | %s us | %s | (floor) | - |' % (
    fmt(val('write_lat_64', 'lat_999_us')), fmt(val('bound_pingpong', 'lat_999_us')),
    fmt(ratio(val('write_lat_64', 'lat_999_us'), val('bound_pingpong', 'lat_999_us')))))
# the verbs provider: each ib_write_bw run against the ernic-testpmd run
# right before it (the same files, link and cores), the median of the ratios
for size, unit, fig in ((64, 'Mpps', 'mpps'), (4096, 'Gb/s', 'gbps')):
    a = runs_of.get('verbs_ib_write_%d' % size, {})
    b = runs_of.get('verbs_tp_write_%d' % size, {})
    vp = {i: (a[i][fig], b[i][fig]) for i in sorted(a)
          if i in b and a[i].get(fig) is not None and b[i].get(fig)}
    target('%s: Debian\'s ib_write_bw over libernic_verbs.so vs ernic-testpmd write_bw (memif, two processes)'
           % ('64 B' if size == 64 else '4 KB'),
           val('verbs_ib_write_%d' % size, fig),
           val('verbs_tp_write_%d' % size, fig), 0.8, unit, unit,
           r=median_or_none(vp))
target('16384 QPs vs 1 QP, 4 KB WRITE', val('qps_write_4096_q16384', 'gbps'),
       val('qps_write_4096_q1', 'gbps'), 0.8, 'Gb/s', 'Gb/s')
# many QPs and large messages: 64 QPs against 1 QP as asked, against 1
# QP carrying the same buffers (one 4 MiB message: what the 64-QP row's
# 64 x 64 KiB read and write), and against the ICRC+copy bound over as
# much memory (performance.rst, "Many QPs")
for op in ('write', 'send', 'read'):
    q64 = val('%s_bw_65536_q64' % op, 'gbps')
    target('64 QPs vs 1 QP, 64 KiB %s' % op.upper(), q64,
           val('%s_bw_65536_q1' % op, 'gbps'), 0.9, 'Gb/s', 'Gb/s')
    target('64 QPs x 64 KiB vs 1 QP x 4 MiB (the same 8 MiB of buffers), %s'
           % op.upper(), q64, val('%s_bw_4194304_q1' % op, 'gbps'), 0.9,
           'Gb/s', 'Gb/s')
    target('64 QPs x 64 KiB vs the ICRC+copy bound over 4+4 MiB, %s' % op.upper(),
           q64, val('bound_icrc_copy_4m', 'gbps'), 0.9, 'Gb/s', 'Gb/s')
    # against the same bound measured right before the row when it was
    # (pair_bound_16k_<op>), else the bound step's
    pb16 = val('pair_bound_16k_%s' % op, 'gbps')
    target('64 QPs x 1 MiB vs the ICRC+copy bound over 32+64 MiB, %s%s'
           % (op.upper(), ' (paired)' if pb16 else ''),
           val('%s_bw_1048576_q64' % op, 'gbps'),
           pb16 or val('bound_icrc_copy_16k', 'gbps'), 0.9, 'Gb/s', 'Gb/s')
# 16384 QPs' buffers do not fit the caches: the same row against the
# bound whose target is as large (bound_icrc_copy_16k), for context
md.append('| 16384 QPs, 4 KB WRITE vs the ICRC+copy bound over 64 MiB | %s Gb/s | %s Gb/s | %s | (context) | - |' % (
    fmt(val('qps_write_4096_q16384', 'gbps')), fmt(val('bound_icrc_copy_16k', 'gbps')),
    fmt(ratio(val('qps_write_4096_q16384', 'gbps'), val('bound_icrc_copy_16k', 'gbps')))))

# congestion control and loss (step cc): each bottleneck row against the
# issue's goals, the loss rows against the clean link of the same run
ccr = [r for r in rows if r.get('step') == 'cc' and not r.get('error')]
if ccr:
    md += ['', '## Congestion control and loss (step cc)', '',
           'util: steady goodput (last 80 % of the run) over the bottleneck, or over the clean link for the loss rows; '
           'goals: util >= 0.90, jain >= 0.95, no tail drop in the steady state, queue peak below 2 x Kmax (512 KiB); '
           'selective repeat >= 0.5 of the clean link.', '',
           '| row | Gb/s | util | jain | queue peak KiB (steady) | tail drops (steady) | ECN marked | CNPs | goals met |',
           '|---|---|---|---|---|---|---|---|---|']
    for r in ccr:
        n = r['name']
        if n == 'cc_loss_clean_2f':
            met = '(reference)'
        elif n.startswith('cc_loss_'):
            met = '(go-back-N: context)' if 'gbn' in n else (
                'yes' if r.get('util', 0) >= 0.5 else '**no**')
        else:
            ok = (r.get('util', 0) >= 0.9 and r.get('jain', 0) >= 0.95 and
                  r.get('tail_drops_steady', 1) == 0 and
                  r.get('queue_peak_steady_kb', 1 << 30) < 512)
            met = 'yes' if ok else '**no**'
        md.append('| %s | %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s |' % (
            n, fmt(r.get('gbps'), 3), fmt(r.get('util')), fmt(r.get('jain')),
            fmt(r.get('queue_peak_kb')), fmt(r.get('queue_peak_steady_kb')),
            fmt(r.get('tail_drops')), fmt(r.get('tail_drops_steady')),
            fmt(r.get('ecn_marked')), fmt(r.get('cnps')), met))

rep = [r for r in rows if r.get('runs', 1) > 1]
if rep:
    md += ['', '## Rows run more than once (median, then min - max of the runs)', '',
           '| name | runs | gbps | mpps | lat_typical_us | lat_999_us | worker_cycles | worker_mps |',
           '|---|---|---|---|---|---|---|---|']
    for r in rep:
        def cell(k):
            g = r['range'].get(k)
            return '-' if g is None else '%s (%s - %s)' % (fmt(r[k]), fmt(g[0]), fmt(g[1]))
        md.append('| %s | %d | %s |' % (r['name'], r['runs'], ' | '.join(
            cell(k) for k in ('gbps', 'mpps', 'lat_typical_us', 'lat_999_us',
                              'worker_cycles', 'worker_mps'))))
if pairs_bw:
    md += ['', '## 4 KB WRITE runs and the bound measured beside each', '',
           '| run | write_bw_4096_q1 Gb/s | bound Gb/s | ratio | one busy worker lcore, Gb/s | ratio |',
           '|---|---|---|---|---|---|']
    for i, (g, b) in pairs_bw.items():
        wg = pairs_w.get(i, (None, b))[0]
        md.append('| %d | %s | %s | %s | %s | %s |' % (
            i, fmt(g), fmt(b), fmt(ratio(g, b)), fmt(wg), fmt(ratio(wg, b))))
md += ['', '## Rows', '', '| ' + ' | '.join(cols + ['vs bound']) + ' |',
       '|' + '---|' * (len(cols) + 1)]
for r in rows:
    if r.get('step') == 'cost':
        continue
    vs = ratio(r['gbps'], bound) if r.get('step') == 'ernic' else None
    cells = [fmt(r[c]) for c in cols] + [fmt(vs)]
    if r.get('error'):
        cells[4] = 'failed: ' + str(r['error'])[:60]
    md.append('| ' + ' | '.join(cells) + ' |')
cost = [r for r in rows if r.get('step') == 'cost']
if cost:
    md += ['', '## CPU cost (callgrind, both ends; cost_pmd_* over net_ring, the others over the fake link)', '',
           '| run | bytes | QPs | workers a port | link queues | post list | zero-copy | instr/message | instr/data packet | instr/packet | LL misses/message (read + write, simulated) |',
           '|---|---|---|---|---|---|---|---|---|---|---|']
    for r in cost:
        ll = r.get('ll_read_miss_per_msg')
        md.append('| %s | %d | %d | %d | %d | %d | %s | %.0f | %.0f | %.0f | %s |' % (
            r['name'], r['bytes'], r['qps'], r.get('workers', 1),
            r.get('link_queues', 1), r['post_list'], r['zero_copy'],
            r['instr_per_msg'], r['instr_per_data_pkt'], r['instr_per_pkt'],
            '-' if ll is None else '%.1f + %.1f' % (ll, r['ll_write_miss_per_msg'])))
with open(os.path.join(out, 'results.md'), 'w') as f:
    f.write('\n'.join(md) + '\n')
# plot data: bytes, then one column per series
series = [('write_bw', 1), ('read_bw', 1), ('send_bw', 1), ('write_bw', 64),
          ('read_bw', 64), ('send_bw', 64)]
sizes = sorted({r['bytes'] for r in rows if r.get('step') == 'ernic'
                and r.get('gbps') is not None and r['name'].endswith(('_q1', '_q64'))
                and not r['name'].startswith('qps_')})
with open(os.path.join(out, 'bw.dat'), 'w') as f:
    f.write('bytes ' + ' '.join('%s_q%d' % s for s in series) + '\n')
    for b in sizes:
        vals = []
        for op, q in series:
            v = val('%s_%d_q%d' % (op, b, q), 'gbps')
            vals.append('NaN' if v is None else '%.3f' % v)
        f.write('%d %s\n' % (b, ' '.join(vals)))
with open(os.path.join(out, 'bound.txt'), 'w') as f:
    f.write('%s\n' % (bound if bound is not None else 'NaN'))
EOF
	if [ "$(grep -c . "$out/bw.dat")" -lt 2 ]; then
		say "no bandwidth rows: no plot"
	elif command -v gnuplot >/dev/null; then
		local bound
		bound=$(cat "$out/bound.txt")
		gnuplot <<EOF || say "gnuplot failed"
set terminal pngcairo size 900,560 noenhanced
set output '$out/bw.png'
set title 'ernic loopback bandwidth (net_ring pair, 1 lcore per port)'
set logscale x 2
set xlabel 'message size [B]'
set ylabel 'Gb/s'
set key left top
set grid
plot for [i=2:7] '$out/bw.dat' using 1:i with linespoints title columnhead(i), \
     $bound with lines dt 2 lw 2 title 'bound: ICRC + copy, 1 core'
EOF
		[ -f "$out/bw.png" ] && say "plot: $out/bw.png"
	else
		say "gnuplot not installed: no plot (bw.dat has the data)"
	fi
	say "results: $out/results.json, $out/results.md"
	sed -n '/## Targets/,/## Rows/p' "$out/results.md" | head -n -1
}

main() {
	check_steps
	if [ "${steps[*]}" = report ]; then
		# only results.md, results.json and the plot from raw.jsonl
		[ -f "$raw" ] || { echo "bench.sh: no $raw to report" >&2; exit 2; }
		report
		exit 0
	fi
	if want_step numa && [ "$(numa_nodes)" -le 1 ]; then
		numa_skip_msg
		local s rest=()
		for s in "${steps[@]}"; do [ "$s" = numa ] || rest+=("$s"); done
		steps=("${rest[@]}")
		[ ${#steps[@]} -eq 0 ] && exit 0
	fi
	build
	if want_step io || want_step loopback || want_step qps ||
		want_step workers || want_step numa || want_step cost ||
		want_step cc; then
		setup_memory
	fi
	want_step bound && step_bound
	want_step io && step_io
	want_step loopback && step_loopback
	want_step qps && step_qps
	want_step workers && step_workers
	want_step verbs && step_verbs
	want_step cost && step_cost
	want_step cc && step_cc
	want_step numa && step_numa
	report
	exit $failed
}

main
