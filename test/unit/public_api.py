#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The public API as DPDK keeps it, checked on the build.

public_api.py symbols CC SO ARCHIVE MAP HEADER... -- -IDIR...
    the loadable driver SO (librte_net_ernic.so, librte_net_fault.so)
    exports exactly what its version map lists, and the map lists exactly
    what the installed headers declare (functions and extern objects, not
    static inline ones): the rte_pmd_*.h functions in the EXPERIMENTAL
    node, libroce's (the library inside net_ernic) in the LIBROCE_0 node,
    nothing else global (local: *). In the objects of the PMD (ARCHIVE,
    libernic.a or libfault.a: the link merges the sections), the
    EXPERIMENTAL functions and only they are in .text.experimental
    (__rte_experimental), and a program that calls them without
    ALLOW_EXPERIMENTAL_API is told, function by function
    (-Werror=deprecated-declarations).

public_api.py docs CC HEADER... -- -IDIR...
    every function the headers declare has a Doxygen comment ("/** ... */"
    right above it, or "/**<" on its line).

The declarations come from the compiler (-aux-info), not from patterns on
the text. Exit status 0, or 1 with one line a finding.
"""
import os
import re
import subprocess
import sys
import tempfile


def cflags():
    return subprocess.check_output(["pkg-config", "--cflags", "libdpdk"],
                                   text=True).split()


def compile_tu(cc, text, args, aux=None):
    """Compile @text (-fsyntax-only); (returncode, diagnostics)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "tu.c")
        with open(src, "w") as f:
            f.write(text)
        cmd = [cc, "-fsyntax-only"] + args + [src]
        if aux is not None:
            cmd += ["-aux-info", aux]
        # ASCII quotes in the diagnostics, whatever the locale
        p = subprocess.run(cmd, capture_output=True, text=True,
                           env=dict(os.environ, LC_ALL="C"))
        return p.returncode, p.stderr


def declarations(cc, headers, incs):
    """{header path: [(line, name, kind)]}, kind "func" or "object"."""
    paths = [os.path.realpath(h) for h in headers]
    text = "".join('#include "%s"\n' % h for h in paths)
    with tempfile.TemporaryDirectory() as d:
        aux = os.path.join(d, "aux")
        rc, err = compile_tu(cc, text, ["-DALLOW_EXPERIMENTAL_API"] +
                             cflags() + incs, aux)
        if rc != 0:
            sys.exit("public_api: the headers do not compile:\n" + err)
        lines = open(aux).read().split("\n")
    out = {p: [] for p in paths}
    for line in lines:
        m = re.match(r"/\* (\S+):(\d+):\w+ \*/ (.*)", line)
        if m is None:
            continue
        path = os.path.realpath(m.group(1))
        if path not in out or m.group(3).startswith("static"):
            continue
        name = re.search(r"(\w+) \(", m.group(3)).group(1)
        out[path].append((int(m.group(2)), name, "func"))
    # extern objects (-aux-info lists functions only)
    for p in paths:
        for i, line in enumerate(open(p).read().split("\n")):
            m = re.match(r"extern\s+[^(]*?\b(\w+)\s*(\[[^]]*\])?\s*;", line)
            if m is not None:
                out[p].append((i + 1, m.group(1), "object"))
    return out


def read_map(path):
    """({node: [symbols]}, local_all)."""
    text = re.sub(r"#[^\n]*", "", open(path).read())
    nodes = {}
    local_all = False
    for m in re.finditer(r"(\w+)\s*\{(.*?)\}\s*(\w*)\s*;", text, re.S):
        scope = "global"
        syms = []
        for tok in re.findall(r"[\w*.]+:|[^\s;]+", m.group(2)):
            if tok.endswith(":"):
                scope = tok[:-1]
            elif scope == "local" and tok == "*":
                local_all = True
            elif scope == "global":
                syms.append(tok)
        nodes[m.group(1)] = syms
    return nodes, local_all


def symbols(argv):
    cc, so, archive, vmap = argv[0], argv[1], argv[2], argv[3]
    sep = argv.index("--")
    headers, incs = argv[4:sep], argv[sep + 1:]
    bad = []
    nodes, local_all = read_map(vmap)
    exp = set(nodes.get("EXPERIMENTAL", []))
    roce = set(nodes.get("LIBROCE_0", []))
    listed = [s for syms in nodes.values() for s in syms]
    if not local_all:
        bad.append("%s: no \"local: *;\": every symbol would be exported" % vmap)
    for n in set(nodes) - {"DPDK_23", "EXPERIMENTAL", "LIBROCE_0"}:
        bad.append("%s: unexpected node %s" % (vmap, n))
    for s in sorted({s for s in listed if listed.count(s) > 1}):
        bad.append("%s: %s listed twice" % (vmap, s))
    decl = declarations(cc, headers, incs)
    want_exp = set()
    want_roce = set()
    for path, ds in decl.items():
        for _, name, kind in ds:
            if os.path.basename(path).startswith("rte_pmd_"):
                if kind != "func" or not name.startswith("rte_pmd_"):
                    bad.append("%s: %s is not an rte_pmd_ function" %
                               (path, name))
                want_exp.add(name)
            else:
                want_roce.add(name)
    for s in sorted(want_exp - exp):
        bad.append("%s: declared in rte_pmd_*.h, not in EXPERIMENTAL" % s)
    for s in sorted(exp - want_exp):
        bad.append("%s: in EXPERIMENTAL, declared by no rte_pmd_*.h" % s)
    for s in sorted(want_roce - roce):
        bad.append("%s: declared in libroce's headers, not in LIBROCE_0" % s)
    for s in sorted(roce - want_roce):
        bad.append("%s: in LIBROCE_0, declared by no installed header" % s)

    # what the driver exports: nm -D, the version nodes' own names aside
    dyn = subprocess.check_output(["nm", "-D", "--defined-only", so],
                                  text=True).split("\n")
    exported = set()
    for line in dyn:
        f = line.split()
        if len(f) == 3 and f[1] != "A":
            exported.add(f[2].split("@")[0])
    for s in sorted(exported - set(listed)):
        bad.append("%s: exported by the driver, not in the map" % s)
    for s in sorted(set(listed) - exported):
        bad.append("%s: in the map, not exported by the driver" % s)

    # __rte_experimental puts a function in .text.experimental
    objdump = subprocess.check_output(["objdump", "-t", archive], text=True)
    in_exp = set()
    for line in objdump.split("\n"):
        f = line.split()
        if len(f) >= 6 and f[1] == "g" and f[3] == ".text.experimental":
            in_exp.add(f[-1])
    for s in sorted(exp - in_exp):
        bad.append("%s: in EXPERIMENTAL, not marked __rte_experimental" % s)
    for s in sorted(in_exp - exp):
        bad.append("%s: marked __rte_experimental, not in EXPERIMENTAL" % s)

    # a caller without ALLOW_EXPERIMENTAL_API is warned of each one
    pmd = [h for h in decl if os.path.basename(h).startswith("rte_pmd_")]
    tu = "".join('#include "%s"\n' % h for h in pmd)
    tu += "void *use[] = {\n%s};\n" % "".join(
        "\t(void *)%s,\n" % s for s in sorted(want_exp))
    args = ["-Werror=deprecated-declarations"] + \
        [f for f in cflags() if f != "-DALLOW_EXPERIMENTAL_API"] + incs
    rc, err = compile_tu(cc, tu, args)
    warned = set(re.findall(r"'(\w+)' is deprecated", err))
    if rc == 0:
        bad.append("calls without ALLOW_EXPERIMENTAL_API compile silently")
    for s in sorted(want_exp - warned):
        bad.append("%s: no warning without ALLOW_EXPERIMENTAL_API" % s)
    rc, err = compile_tu(cc, tu, ["-DALLOW_EXPERIMENTAL_API", "-Werror"] +
                         cflags() + incs)
    if rc != 0:
        bad.append("calls with ALLOW_EXPERIMENTAL_API fail:\n" + err)

    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("ok: %s exports %d functions (EXPERIMENTAL)%s, nothing else; "
              "every EXPERIMENTAL one is __rte_experimental" %
              (os.path.basename(so), len(exp),
               " and %d symbols of libroce (LIBROCE_0)" % len(roce)
               if "LIBROCE_0" in nodes else ""))
    return 1 if bad else 0


def documented(lines, line):
    """Whether the declaration on @line (1-based) has a Doxygen comment."""
    if "/**<" in lines[line - 1]:
        return True
    j = line - 2
    # lines of the declaration above its name: return type, attributes
    while j >= 0 and lines[j].strip() and \
            not lines[j].rstrip().endswith(("*/", ";", "{", "}")):
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith("*/"):
        return False
    while j >= 0 and "/*" not in lines[j]:
        j -= 1
    return j >= 0 and "/**" in lines[j]


def docs(argv):
    cc = argv[0]
    sep = argv.index("--")
    headers, incs = argv[1:sep], argv[sep + 1:]
    bad = 0
    n = 0
    for path, ds in declarations(cc, headers, incs).items():
        lines = open(path).read().split("\n")
        for line, name, kind in ds:
            if kind != "func":
                continue
            n += 1
            if not documented(lines, line):
                print("FAIL: %s:%d: %s has no Doxygen comment" %
                      (path, line, name))
                bad += 1
    if bad == 0:
        print("ok: the %d functions of %d headers are documented" %
              (n, len(headers)))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("symbols", "docs"):
        sys.exit(__doc__)
    sys.exit(symbols(sys.argv[2:]) if sys.argv[1] == "symbols"
             else docs(sys.argv[2:]))
