#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pcapcheck-selftest.sh: proves that the two capture checks of the interop
# suite pass a good capture and fail bad ones. Needs no root.
#   pcap_icrc_check (lib/roce parser + ICRC):
#     good: ../shared/vectors/rocev2-frames.pcap (every frame has a correct ICRC)
#     bad:  one payload byte flipped, a truncated capture, a missing source,
#           a frame with the selective repeat flag (--no-srx)
#   iop_tshark_check (harness.sh): the same good capture; bad: a UDP length
#     that overruns the frame (tshark: malformed), a truncated capture
set -uo pipefail
CHECK=${IOP_PCAPCHECK:?IOP_PCAPCHECK: the pcap_icrc_check program}
GOOD=${SOFTERNIC_VECTORS:?SOFTERNIC_VECTORS: the shared vectors directory}/rocev2-frames.pcap
[ -r "$GOOD" ] || { echo "FAIL: no $GOOD"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
expect() {  # want-rc pattern description command...
	local want=$1 pat=$2 what=$3 rc
	shift 3
	"$@" > "$TMP/out" 2>&1
	rc=$?
	if [ $rc = "$want" ] && grep -q -- "$pat" "$TMP/out"; then
		echo "ok   $what (rc $rc)"
	else
		echo "FAIL $what: rc $rc (want $want), output:"
		sed 's/^/     /' "$TMP/out"
		fails=$((fails + 1))
	fi
}
nframes=$(tshark -r "$GOOD" -T fields -e frame.number 2>/dev/null | wc -l)
expect 0 "ICRC verified: $nframes/$nframes match" "the vectors pcap verifies" \
	"$CHECK" --min "$nframes" --require-src 198.18.0.1 "$GOOD"
# frame 1 starts at byte 24 + 16 = 40: flip a payload byte (offset 100 of the frame)
cp "$GOOD" "$TMP/flip.pcap"
b=$(od -An -tu1 -j 140 -N1 "$GOOD" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 0x01)))" | dd of="$TMP/flip.pcap" bs=1 seek=140 conv=notrunc 2>/dev/null
expect 1 "ICRC MISMATCH" "one flipped payload bit fails the ICRC check" "$CHECK" "$TMP/flip.pcap"
expect 1 "FAIL: no RoCEv2 frame from 198.18.0.9" "a missing source fails" \
	"$CHECK" --require-src 198.18.0.9 "$GOOD"
expect 1 "expected at least" "--min above the frame count fails" "$CHECK" --min $((nframes + 1)) "$GOOD"
expect 0 "selective repeat extension: 0 frames" "--no-srx passes a capture without SR frames" \
	"$CHECK" --no-srx "$GOOD"
# frame 8 (RC_RDMA_WRITE_ONLY, IPv4): set BTH bit 30, softernic's selective
# repeat flag (BTH byte 8 at frame offset 14 + 20 + 8 + 8 = 50)
off=24
for i in 1 2 3 4 5 6 7; do
	len=$(od -An -tu4 -j $((off + 8)) -N4 "$GOOD" | tr -d ' ')
	off=$((off + 16 + len))
done
cp "$GOOD" "$TMP/srx.pcap"
b=$(od -An -tu1 -j $((off + 16 + 50)) -N1 "$GOOD" | tr -d ' ')
printf "\\$(printf '%03o' $((b | 0x40)))" | dd of="$TMP/srx.pcap" bs=1 seek=$((off + 16 + 50)) conv=notrunc 2>/dev/null
expect 1 "frames carry the selective repeat extension" "--no-srx fails a frame with the SR flag" \
	"$CHECK" --no-srx "$TMP/srx.pcap"
if command -v editcap > /dev/null; then
	editcap -s 60 "$GOOD" "$TMP/short.pcap" 2>/dev/null
	expect 1 "truncated capture" "a capture cut at 60 bytes fails" "$CHECK" "$TMP/short.pcap"
fi
if command -v tshark > /dev/null; then
	. "$(dirname "$0")/harness.sh"
	# IPv4 frames only: the vectors' IPv6 frames carry UDP checksum 0, which
	# tshark reports as an error (RFC 8200 8.1); the interop cases are IPv4
	tshark -r "$GOOD" -Y ip -F pcap -w "$TMP/v4.pcap" 2>/dev/null
	expect 0 "every frame is RRoCE/InfiniBand" "tshark decodes the vectors' IPv4 frames cleanly" \
		iop_tshark_check "$TMP/v4.pcap"
	# UDP length of frame 1 (file offset 40 + 14 + 20 + 4) -> 0xfff0
	cp "$GOOD" "$TMP/udplen.pcap"
	printf '\xff\xf0' | dd of="$TMP/udplen.pcap" bs=1 seek=78 conv=notrunc 2>/dev/null
	expect 1 "frame 1: MALFORMED" "tshark flags a UDP length beyond the frame" \
		iop_tshark_check "$TMP/udplen.pcap"
	[ -f "$TMP/short.pcap" ] && expect 1 "not decoded as InfiniBand" \
		"tshark check fails a capture cut at 60 bytes" iop_tshark_check "$TMP/short.pcap"
fi
[ $fails = 0 ] && echo PASS || echo "FAIL: $fails checks"
exit $((fails != 0))
