#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdma-core's own test suite (python3-pyverbs) over softernic.

Runs every generic module of the suite that python3-pyverbs installs (the
vendor modules, mlx5, EFA and CUDA, are left out) on one device, in this
process, and sorts each test's outcome: passed, failed, or skipped for a
reason. A skip is accepted only for a feature softernic declines (the
table below, which doc/guides/verbs.rst lists too); any other reason, a
failure or an error fails the run. The process runs with LD_PRELOAD and
SOFTERNIC_CONFIG set by the caller (test/verbs/verbs_pyverbs.sh).

Usage: pyverbs_run.py TESTS_DIR DEVICE [MODULE...]
"""

import importlib.machinery
import os
import re
import sys
import unittest

# The features softernic declines, as the suite words its skips. A skip
# for any other reason is a regression.
DECLINED = [
    (r"ODP is not supported", "on-demand paging"),
    (r"Device memory is not supported", "device memory"),
    (r"Allocating dmabuf is not supported", "dma-buf regions (no GPU)"),
    (r"cuda-python .* must be installed", "dma-buf regions (no GPU)"),
    (r"Create XRCD is not supported", "XRC"),
    (r"Create QP type 8 is not supported", "raw packet QPs"),
    (r"Create Raw Packet QP .*is not supported", "raw packet QPs"),
    (r"Parent Domain is not supported", "parent domains"),
    (r"Create MW is not supported", "type 1 memory windows"),
    (r"Query device real time is not supported", "a device clock"),
    (r"Importing a device is not supported", "shared contexts (import)"),
    (r"Extended QP is not supported", "atomic write"),
    (r"Create Extended CQ is not supported", "completion timestamps"),
    (r"Extended CQ is not supported", "completion timestamps"),
    (r"Device .* doesn't have net interface",
     "rdma_cm tests (they need the device's kernel interface)"),
    (r"There are no huge pages of size 2M allocated", "huge pages (none)"),
    (r"PCI device must be passed by the user", "VFIO (no PCI device)"),
    (r"Can not run the test over non ", "vendor tests"),
    (r"Could not open mlx5 context", "vendor tests"),
]

VENDOR = re.compile(r"^test_(mlx5|efa|cuda)")


class Outcomes(unittest.TextTestResult):
    """Keeps every test's outcome besides printing the usual lines."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append((test.id(), "pass", ""))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes.append((test.id(), "skip", reason))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append((test.id(), "FAIL", str(err[1]).splitlines()[0]))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append((test.id(), "ERROR", str(err[1]).splitlines()[0]
                              if str(err[1]) else repr(err[1])))


def declined(reason):
    for pattern, feature in DECLINED:
        if re.search(pattern, reason):
            return feature
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    tests_dir, dev = sys.argv[1], sys.argv[2]
    wanted = sys.argv[3:]
    sys.path.insert(0, tests_dir)
    from args_parser import parser  # the suite's own argument parser
    sys.argv = [sys.argv[0], "--dev", dev]
    parser.parse_args()
    tests = importlib.machinery.SourceFileLoader(
        "tests", os.path.join(tests_dir, "__init__.py")).load_module()
    modules = sorted(m for m in sys.modules
                     if m.startswith("tests.test_") and
                     not VENDOR.match(m[len("tests."):]) and
                     (not wanted or m[len("tests."):] in wanted))
    loader = unittest.TestLoader()
    suite = unittest.TestSuite(loader.loadTestsFromModule(sys.modules[m])
                               for m in modules)
    runner = unittest.TextTestRunner(resultclass=Outcomes, verbosity=1,
                                     stream=sys.stdout)
    result = runner.run(suite)
    bad = 0
    per_module = {}
    for tid, what, why in result.outcomes:
        mod = tid.split(".")[1]
        per_module.setdefault(mod, {"pass": 0, "skip": 0, "bad": 0})
        if what == "pass":
            per_module[mod]["pass"] += 1
        elif what == "skip":
            per_module[mod]["skip"] += 1
            if declined(why) is None:
                print(f"pyverbs: {tid}: skipped for a reason not declined: {why}")
                per_module[mod]["bad"] += 1
                bad += 1
        else:
            print(f"pyverbs: {tid}: {what}: {why}")
            per_module[mod]["bad"] += 1
            bad += 1
    print(f"{'module':<24} {'passed':>6} {'skipped':>8} {'failed':>7}")
    for mod in sorted(per_module):
        c = per_module[mod]
        print(f"{mod:<24} {c['pass']:>6} {c['skip']:>8} {c['bad']:>7}")
    total = len(result.outcomes)
    passed = sum(c["pass"] for c in per_module.values())
    print(f"pyverbs: {len(modules)} modules, {total} tests, {passed} passed, "
          f"{total - passed - bad} skipped (declined features), {bad} failed")
    reasons = {}
    for tid, what, why in result.outcomes:
        if what == "skip" and declined(why):
            reasons.setdefault(declined(why), 0)
            reasons[declined(why)] += 1
    for feature in sorted(reasons):
        print(f"pyverbs: declined: {feature}: {reasons[feature]} tests skipped")
    return 0 if bad == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
