#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reads a trace of ernic-testpmd --cc-trace (app/ernic-testpmd/cc_trace.c).

  cc-trace.py summary TRACE RATE_MBPS
      one line of key=value: over the steady state (the last 80 % of the
      run) the aggregate goodput (gbps), its share of RATE_MBPS (util; 0:
      not computed), Jain's fairness index of the flows' goodput (jain),
      the highest queue sampled (queue_peak_steady_kb) and the tail drops
      (tail_drops_steady); flows and samples
  cc-trace.py plot TRACE OUT.dat
      the columns gnuplot draws (devtools/cc-plot.sh --run): time in ms,
      each flow's goodput in Mbit/s over the last WINDOW_MS, the queue in
      KiB (rx and tx summed)

Exit 0, or 1 with one line on stderr when the trace is unusable.
"""
import sys

WINDOW_MS = 50  # goodput averaged over this: messages complete in lumps


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            rows.append([int(x) for x in line.split()])
    if len(rows) < 10:
        raise ValueError('%s: %d samples, expected at least 10' % (path, len(rows)))
    n = len(rows[0]) - 5
    if n < 1 or any(len(r) != n + 5 for r in rows):
        raise ValueError('%s: the lines do not have the same columns' % path)
    return rows, n


def summary(path, rate):
    rows, n = load(path)
    t_end = rows[-1][0]
    r0 = next(r for r in rows if r[0] >= 0.2 * t_end)
    r1 = rows[-1]
    dt = (r1[0] - r0[0]) / 1e6
    if dt <= 0:
        raise ValueError('%s: no steady state to measure' % path)
    x = [r1[1 + i] - r0[1 + i] for i in range(n)]
    tot = sum(x)
    gbps = tot * 8 / dt / 1e9
    jain = tot * tot / (n * sum(v * v for v in x)) if tot else 0.0
    steady = [r for r in rows if r[0] >= r0[0]]
    qpeak = max(r[n + 1] + r[n + 2] for r in steady)
    print('gbps=%.4f util=%.3f jain=%.3f queue_peak_steady_kb=%d '
          'tail_drops_steady=%d flows=%d samples=%d seconds=%.2f' %
          (gbps, gbps * 1000 / rate if rate > 0 else 0.0, jain,
           qpeak // 1024, r1[n + 3] - r0[n + 3], n, len(rows), dt))


def plot(path, out):
    rows, n = load(path)
    with open(out, 'w') as f:
        f.write('# t_ms %s queue_kb\n' %
                ' '.join('flow%d_mbps' % (i + 1) for i in range(n)))
        j = 0
        for r in rows:
            while rows[j][0] < r[0] - WINDOW_MS * 1000:
                j += 1
            p = rows[j]
            dt = (r[0] - p[0]) / 1e6
            if dt <= 0:
                continue
            mbps = ['%.1f' % ((r[1 + i] - p[1 + i]) * 8 / dt / 1e6)
                    for i in range(n)]
            f.write('%.1f %s %.1f\n' % (r[0] / 1000, ' '.join(mbps),
                                        (r[n + 1] + r[n + 2]) / 1024))


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == 'summary':
            summary(argv[2], float(argv[3]))
        elif len(argv) == 4 and argv[1] == 'plot':
            plot(argv[2], argv[3])
        else:
            print('usage: cc-trace.py summary TRACE RATE_MBPS | plot TRACE OUT.dat',
                  file=sys.stderr)
            return 2
    except (OSError, ValueError, StopIteration) as e:
        print('cc-trace.py: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
