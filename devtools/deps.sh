#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages softernic needs, only those missing.
# Usage: devtools/deps.sh [build|verbs|test|interop|bench|all]...   (default: build)
# Quiet when nothing is missing; runs apt-get update once before installing.
set -euo pipefail

build_pkgs=(gcc pkg-config meson ninja-build python3-pyelftools
	libdpdk-dev dpdk libnuma-dev libbpf-dev libxdp-dev libcunit1-dev
	libisal-dev libpcap-dev clang llvm libibverbs-dev librdmacm-dev)
# Debian's own verbs and rdma_cm binaries, run over the verbs provider
# (the demo runs one)
verbs_pkgs=(ibverbs-utils perftest rdmacm-utils librdmacm-dev iproute2)
# the verbs provider's tests run those and rdma-core's test suite
# (python3-pyverbs) over it
test_pkgs=(tshark python3-scapy iproute2 iputils-ping gnuplot-nox
	"${verbs_pkgs[@]}" python3-pyverbs)
# test/interop: the rxe peer VM (kernel, QEMU, verbs and rdma_cm tools,
# busybox, cpio, modprobe), the taps/namespace (iproute2), the captures
# (tshark, editcap); the capture verifier needs libpcap-dev (build_pkgs);
# the data-integrity peer iop-integrity is built against libibverbs-dev.
# The same verbs and rdma_cm tools run on our side over the verbs
# provider in the +V cases.
interop_pkgs=(qemu-system-x86 linux-image-amd64 rdma-core ibverbs-utils
	ibverbs-providers perftest rdmacm-utils busybox-static cpio kmod
	iproute2 tshark libibverbs-dev)
# devtools/bench.sh: dpdk-testpmd (dpdk-dev), callgrind, the plot.
bench_pkgs=(dpdk-dev valgrind gnuplot-nox)

want=()
[ $# -eq 0 ] && set -- build
for group in "$@"; do
	case "$group" in
	build) want+=("${build_pkgs[@]}") ;;
	verbs) want+=("${verbs_pkgs[@]}") ;;
	test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
	interop) want+=("${interop_pkgs[@]}") ;;
	bench) want+=("${bench_pkgs[@]}") ;;
	all) want+=("${build_pkgs[@]}" "${test_pkgs[@]}" "${interop_pkgs[@]}") ;;
	*) echo "deps.sh: unknown group '$group' (build|verbs|test|interop|bench|all)" >&2; exit 2 ;;
	esac
done

# DPDK's driver-side headers for the PMD, from Debian's dpdk source package.
need_sdk=0
for group in "$@"; do
	case "$group" in build|test|all) need_sdk=1 ;; esac
done
sdk() {
	[ $need_sdk = 1 ] || return 0
	"$(dirname "$0")/dpdk-sdk.sh" >/dev/null
}

missing=()
for p in "${want[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	sdk
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
sdk
