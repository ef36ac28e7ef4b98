#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every literalinclude of the guides shows code that exists.

doc_includes.py GUIDE_DIR

For each ".. literalinclude:: PATH" of GUIDE_DIR/*.rst: PATH (relative to
the guide) exists; :start-after: and :end-before: each occur exactly once
in it, the end after the start, with code between them; :dedent: N
removes only indentation from that code; :lines: ranges lie inside the
file. The examples themselves are built and run by the test
suite (meson test native_verbs): with this check, the code a guide shows
is code that compiles and runs. Exit status 0, or 1 with one line a
finding.
"""
import glob
import os
import re
import sys


def includes(rst):
    """[(line number, path, {option: value})] of the file's directives."""
    lines = open(rst).read().split("\n")
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*\.\. literalinclude::\s*(\S+)\s*$", line)
        if m is None:
            continue
        opts = {}
        for opt in lines[i + 1:]:
            o = re.match(r"\s+:([\w-]+):\s*(.*?)\s*$", opt)
            if o is None:
                break
            opts[o.group(1)] = o.group(2)
        out.append((i + 1, m.group(1), opts))
    return out


def check(rst, line, path, opts):
    where = "%s:%d" % (rst, line)
    full = os.path.normpath(os.path.join(os.path.dirname(rst), path))
    if not os.path.isfile(full):
        return ["%s: %s does not exist" % (where, path)]
    text = open(full).read().split("\n")
    bad = []
    start, end = 0, len(text)
    if "start-after" in opts:
        hits = [k for k, t in enumerate(text) if opts["start-after"] in t]
        if len(hits) != 1:
            bad.append("%s: \"%s\" is in %s %d times, expected once" %
                       (where, opts["start-after"], path, len(hits)))
        else:
            start = hits[0] + 1
    if "end-before" in opts:
        hits = [k for k, t in enumerate(text) if opts["end-before"] in t]
        if len(hits) != 1:
            bad.append("%s: \"%s\" is in %s %d times, expected once" %
                       (where, opts["end-before"], path, len(hits)))
        else:
            end = hits[0]
    if not bad and not any(t.strip() for t in text[start:end]):
        bad.append("%s: nothing between the markers in %s" % (where, path))
    dedent = int(opts.get("dedent", "0") or "0")
    if not bad and dedent > 0:
        for k in range(start, end):
            t = text[k]
            if t.strip() and t[:dedent].strip():
                bad.append("%s: :dedent: %d cuts code from %s:%d" %
                           (where, dedent, path, k + 1))
                break
    for r in opts.get("lines", "").split(","):
        if r.strip() == "":
            continue
        nums = [int(n) for n in r.split("-") if n.strip() != ""]
        if any(n < 1 or n > len(text) for n in nums):
            bad.append("%s: :lines: %s outside the %d lines of %s" %
                       (where, r, len(text), path))
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bad = []
    n = 0
    for rst in sorted(glob.glob(os.path.join(sys.argv[1], "*.rst"))):
        for line, path, opts in includes(rst):
            n += 1
            bad += check(rst, line, path, opts)
    for b in bad:
        print("FAIL: " + b)
    if n == 0:
        print("FAIL: no literalinclude in %s" % sys.argv[1])
        return 1
    if not bad:
        print("ok: %d literalinclude directives show code that exists" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
