#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pcapcheck-selftest.sh: proves that the two capture checks of the interop
# suite pass a good capture and fail bad ones. Needs no root.
#   pcap_icrc_check (lib/roce parser + ICRC):
#     good: ../shared/vectors/rocev2-frames.pcap (every frame has a correct ICRC)
#     bad:  one payload byte flipped, a truncated capture, a missing source
#           (IPv4 or IPv6), a frame with the selective repeat flag (--no-srx)
#   iop_tshark_check (harness.sh): the same good capture (its IPv6 frames
#     with UDP checksum 0, as RoCEv2 sends them); bad: a UDP length that
#     overruns the frame (tshark: malformed), on an IPv4 and on an IPv6
#     frame, a truncated capture
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
# the vectors' IPv6 frames come from 2001:db8::1
expect 0 "from 2001:db8::1 " "an IPv6 source is found" \
	"$CHECK" --require-src 2001:db8::1 --require-src 198.18.0.1 "$GOOD"
expect 1 "FAIL: no RoCEv2 frame from 2001:2::2" "a missing IPv6 source fails" \
	"$CHECK" --require-src 2001:db8::1 --require-src 2001:2::2 "$GOOD"
expect 2 "expected an IPv4 or IPv6 address" "a bad --require-src is refused" \
	"$CHECK" --require-src 2001:db8::1::1 "$GOOD"
expect 1 "expected at least" "--min above the frame count fails" "$CHECK" --min $((nframes + 1)) "$GOOD"
expect 0 "selective repeat extension: 0 frames" "--no-srx passes a capture without SR frames" \
	"$CHECK" --no-srx "$GOOD"
# frame_off N: file offset of frame N's record header (the 24-byte file
# header, then a 16-byte header and the data for each record)
frame_off() {
	local off=24 i len
	for ((i = 1; i < $1; i++)); do
		len=$(od -An -tu4 -j $((off + 8)) -N4 "$GOOD" | tr -d ' ')
		off=$((off + 16 + len))
	done
	echo $off
}
# frame 8 (RC_RDMA_WRITE_ONLY, IPv4): set BTH bit 30, softernic's selective
# repeat flag (BTH byte 8 at frame offset 14 + 20 + 8 + 8 = 50)
off=$(frame_off 8)
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
	# the vectors' IPv6 frames carry UDP checksum 0, which tshark reports
	# as an error (RFC 8200 8.1): allowed there, and only there
	v6=$(tshark -r "$GOOD" -Y ipv6 -T fields -e frame.number 2>/dev/null | wc -l)
	expect 0 "every frame is RRoCE/InfiniBand" "tshark decodes the vectors' frames cleanly" \
		iop_tshark_check "$GOOD"
	expect 0 "$v6 IPv6 with UDP checksum 0" "tshark: the IPv6 frames' UDP checksum 0 is counted, not failed" \
		iop_tshark_check "$GOOD"
	# UDP length of frame 1 (file offset 40 + 14 + 20 + 4) -> 0xfff0
	cp "$GOOD" "$TMP/udplen.pcap"
	printf '\xff\xf0' | dd of="$TMP/udplen.pcap" bs=1 seek=78 conv=notrunc 2>/dev/null
	expect 1 "frame 1: MALFORMED" "tshark flags a UDP length beyond the frame" \
		iop_tshark_check "$TMP/udplen.pcap"
	# the same in the first IPv6 frame (UDP length at 14 + 40 + 4): its
	# checksum 0 does not hide another error
	f6=$(tshark -r "$GOOD" -Y ipv6 -T fields -e frame.number 2>/dev/null | head -1)
	cp "$GOOD" "$TMP/udplen6.pcap"
	printf '\xff\xf0' | dd of="$TMP/udplen6.pcap" bs=1 seek=$(($(frame_off "$f6") + 16 + 58)) conv=notrunc 2>/dev/null
	expect 1 "frame $f6: MALFORMED" "tshark flags a UDP length beyond an IPv6 frame" \
		iop_tshark_check "$TMP/udplen6.pcap"
	[ -f "$TMP/short.pcap" ] && expect 1 "not decoded as InfiniBand" \
		"tshark check fails a capture cut at 60 bytes" iop_tshark_check "$TMP/short.pcap"
fi
[ $fails = 0 ] && echo PASS || echo "FAIL: $fails checks"
exit $((fails != 0))
