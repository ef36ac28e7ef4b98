#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build-peer.sh OUT.cpio.gz [EXTRA_PROGRAM...]
#
# Builds the initramfs of the interop peer VM from this machine's Debian
# packages: busybox-static, iproute2 (ip, rdma), rdma-core + ibverbs-providers
# (rxe provider), ibverbs-utils (ibv_*_pingpong, ibv_devinfo), rdmacm-utils
# (rping, ucmatose, udaddy), perftest, the
# modules of linux-image-$IOP_KVER (virtio-net, rdma_rxe and what they need,
# resolved by modprobe), test/interop/guest/init as /init and the helpers of
# test/interop/guest/bin. EXTRA_PROGRAMs (e.g. the data-integrity peer) are
# copied to /usr/bin with their libraries.
#
# Exit 77 (and a reason on stderr) when a needed package is missing, so that
# the calling test can SKIP; 1 on any other error.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KVER=${IOP_KVER:?IOP_KVER: the guest kernel version (harness.sh sets it)}
OUT=${1:?usage: build-peer.sh OUT.cpio.gz [EXTRA_PROGRAM...]}
shift
EXTRA=("$@")
MODDIR=/lib/modules/$KVER
RXE_PROVIDER=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so 2>/dev/null | head -1 || true)

missing=()
[ -d "$MODDIR/kernel/drivers/infiniband/sw/rxe" ] || missing+=("linux-image-$KVER (rdma_rxe module in $MODDIR)")
for t in busybox:busybox-static ibv_devinfo:ibverbs-utils ibv_rc_pingpong:ibverbs-utils \
	rping:rdmacm-utils ucmatose:rdmacm-utils udaddy:rdmacm-utils \
	ib_write_bw:perftest rdma:iproute2 cpio:cpio gzip:gzip modprobe:kmod depmod:kmod ldd:libc-bin; do
	command -v "${t%%:*}" >/dev/null || missing+=("${t#*:} (${t%%:*})")
done
[ -n "$RXE_PROVIDER" ] && [ -f /etc/libibverbs.d/rxe.driver ] || missing+=("ibverbs-providers (librxe)")
if [ ${#missing[@]} -gt 0 ]; then
	echo "build-peer.sh: missing: ${missing[*]} (devtools/deps.sh interop)" >&2
	exit 77
fi

mkdir -p "$(dirname "$OUT")"
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/iop-stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# Debian 12 layout: merged /usr
mkdir -p "$STAGE"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,proc,sys,dev,tmp,run,root}
ln -s usr/bin "$STAGE/bin"
ln -s usr/sbin "$STAGE/sbin"
ln -s usr/lib "$STAGE/lib"
ln -s usr/lib64 "$STAGE/lib64"

BUSYBOX=$(command -v busybox)
cp "$BUSYBOX" "$STAGE/usr/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$STAGE/usr/bin/$a"
done

declare -A copied=()
copy1() {  # copy $1 (symlinks followed) to the same path in the image
	[ -n "${copied[$1]:-}" ] && return 0
	copied[$1]=1
	mkdir -p "$STAGE$(dirname "$1")"
	rm -f "$STAGE$1"
	cp -L "$1" "$STAGE$1"
}
copy_prog() {  # a program or library and every library ldd lists for it
	local f=$1 lib
	copy1 "$f"
	while read -r lib; do
		[ -n "$lib" ] && copy1 "$lib"
	done < <(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3; next} $1 ~ /^\// {print $1}')
}
PROGS=(ibv_devinfo ibv_devices ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat
	rping ucmatose udaddy rdma)
for p in "${PROGS[@]}"; do copy_prog "$(command -v "$p")"; done
# iproute2's ip (busybox has one too, but rdma-core-era options need the real one)
copy_prog "$(command -v ip)"
# (/init calls /usr/bin/ip; never cp onto the busybox symlink: it would follow it)
rm -f "$STAGE/usr/bin/ip"
cp -L "$(command -v ip)" "$STAGE/usr/bin/ip"
copy_prog "$RXE_PROVIDER"
# glibc loads libgcc_s.so.1 (dlopen, so ldd does not list it) to unwind a
# thread in pthread_exit() and pthread_cancel(): rping's server ends its
# threads so, and aborted without it ("libgcc_s.so.1 must be installed")
LIBGCC=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !f { f = $NF } END { print f }')
[ -n "$LIBGCC" ] || { echo "build-peer.sh: no libgcc_s.so.1 (libgcc-s1)" >&2; exit 77; }
copy1 "$LIBGCC"
mkdir -p "$STAGE/etc/libibverbs.d" "$STAGE/etc/iproute2"
cp /etc/libibverbs.d/rxe.driver "$STAGE/etc/libibverbs.d/"
for p in "${EXTRA[@]}"; do
	copy_prog "$p"
	rm -f "$STAGE/usr/bin/$(basename "$p")"
	cp -L "$p" "$STAGE/usr/bin/$(basename "$p")"
done

# Kernel modules in dependency order (modules.dep through modprobe).
# crc32_generic: rxe computes the ICRC through crypto_alloc_shash("crc32").
# rdma_ucm (with rdma_cm, ib_cm, iw_cm): librdmacm for perftest -R.
: > "$STAGE/etc/iop-modules"
declare -A mseen=()
for m in crc32_generic virtio_pci virtio_net ib_core ib_uverbs rdma_rxe rdma_ucm; do
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		[ -n "${mseen[$path]:-}" ] && continue
		mseen[$path]=1
		mkdir -p "$STAGE$(dirname "$path")"
		cp "$path" "$STAGE$path"
		echo "$path" >> "$STAGE/etc/iop-modules"
	done < <(modprobe -S "$KVER" --show-depends "$m")
done

echo 'root:x:0:0:root:/root:/bin/sh' > "$STAGE/etc/passwd"
echo 'root:x:0:' > "$STAGE/etc/group"
echo '127.0.0.1 localhost' > "$STAGE/etc/hosts"
install -m 0755 "$HERE/guest/init" "$STAGE/init"
for h in "$HERE"/guest/bin/*; do
	install -m 0755 "$h" "$STAGE/usr/bin/$(basename "$h")"
done
echo "softernic interop peer, kernel $KVER, built $(date -u +%FT%TZ)" > "$STAGE/etc/iop-build"

(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) |
	gzip -1 > "$OUT.tmp.$$"
mv "$OUT.tmp.$$" "$OUT"
echo "build-peer.sh: $OUT ($(du -h "$OUT" | cut -f1), $(wc -l < "$STAGE/etc/iop-modules") modules)" >&2
