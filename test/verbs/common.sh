# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the verbs suite's scripts (verbs_stock.sh, verbs_cm.sh).

# need_tools SCRIPT PACKAGES TOOL...: each on the PATH, or exit 77 (a skip),
# or 1 under CI=true, naming the packages that bring them.
need_tools() {
	local script=$1 pkgs=$2 t
	shift 2
	for t in "$@"; do
		if ! command -v "$t" >/dev/null; then
			echo "$script: $t is missing (devtools/deps.sh test installs $pkgs)"
			[ "${CI:-}" = true ] && exit 1
			exit 77
		fi
	done
}

# set_preload LIB: $preload for LD_PRELOAD ($asan_lib: the sanitizer's
# runtime when LIB has one, else empty). An ASan build of the library
# (-Dsanitize=true) needs the sanitizer's runtime first in the program: the
# stock binaries are not built with it. They do not free what they
# allocate before they exit (perftest keeps its arguments and the device
# list): leaks are checked by the API test (test_verbs_api), which frees
# all it takes.
set_preload() {
	preload=$1
	asan_lib=$(ldd "$1" 2>/dev/null | awk '/libasan/ {print $3}')
	if [ -n "$asan_lib" ]; then
		preload="$asan_lib $1"
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	fi
}
