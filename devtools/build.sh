#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build softernic into ${BUILD_DIR:-build}.
# Extra arguments go to `meson setup` on the first configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build}
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || {
		cat "$dir.setup.log" >&2
		exit 1
	}
	rm -f "$dir.setup.log"
fi
ninja -C "$dir" >"$dir/ninja.log" 2>&1 || {
	grep -E 'error|FAILED' -A3 "$dir/ninja.log" | head -60 >&2
	exit 1
}
# Our code builds without warnings: show any that appeared.
if grep -q 'warning:' "$dir/ninja.log"; then
	grep 'warning:' "$dir/ninja.log" | sort -u >&2
fi
