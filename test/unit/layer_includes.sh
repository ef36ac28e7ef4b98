#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The layers above lib/roce (the PMD, the verbs provider, the shared
# environment, net_fault, the apps) include only lib/roce's installed
# headers, the roce_headers list of lib/roce/meson.build
# (doc/guides/architecture.rst, "The driver boundary"): a private header
# (roce_priv.h, roce_qp.h, roce_worker.h, ...) included above the transport
# fails this test, naming the file and the header.
#
# Usage: layer_includes.sh SOURCE_ROOT
set -u
root=${1:?usage: layer_includes.sh SOURCE_ROOT}
cd "$root" || exit 1
# the installed headers: the quoted names of the roce_headers = files(...)
public=$(awk '/^roce_headers = files\(/ { on = 1 } on { print } on && /\)/ { exit }' \
	lib/roce/meson.build | grep -o "'roce_[a-z0-9_]*\.h'" | tr -d "'")
[ -n "$public" ] || { echo "FAIL: no roce_headers list in lib/roce/meson.build"; exit 1; }
bad=0
checked=0
for f in $(git ls-files 'lib/ernic_pmd/*.[ch]' 'lib/verbs/*.[ch]' \
		'lib/ernic_env/*.[ch]' 'lib/fault_pmd/*.[ch]' 'app/*.[ch]' \
		2>/dev/null || find lib/ernic_pmd lib/verbs lib/ernic_env \
		lib/fault_pmd app -name '*.[ch]'); do
	checked=$((checked + 1))
	for h in $(grep -o '#include "roce_[a-z0-9_]*\.h"' "$f" |
		   grep -o 'roce_[a-z0-9_]*\.h'); do
		if ! grep -qx "$h" <<<"$public"; then
			echo "FAIL: $f includes $h, a private header of lib/roce"
			bad=$((bad + 1))
		fi
	done
done
echo "layer_includes: $checked files above lib/roce, $(wc -w <<<"$public") public headers, $bad private includes"
[ $checked -gt 0 ] && [ $bad -eq 0 ]
