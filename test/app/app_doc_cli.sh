#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The ernic> examples of doc/guides/ernic-testpmd.rst, run as written:
# every ".. code-block:: console" block whose lines start with "ernic> "
# is one session of ernic-testpmd -i --loopback (the crossed net_ring pair
# with a net_ernic port on each); its commands are piped in and each other
# line of the block must be in the output, in order ("..." skips output, a
# line ending in "..." is matched up to there). Then the prompt's own
# checks: bad commands name the word and what was expected, tab completion
# of register names, start with a bad flag, background traffic with
# show stats while it runs and --stats-period lines, stop mid-run, and
# testpmd's show port / clear port forms around traffic.
#
# Usage: app_doc_cli.sh path/to/ernic-testpmd path/to/ernic-testpmd.rst
set -u
bin=${1:?usage: app_doc_cli.sh ernic-testpmd ernic-testpmd.rst}
rst=${2:?usage: app_doc_cli.sh ernic-testpmd ernic-testpmd.rst}
# 3 lcores for background --loopback traffic, on the CPUs there are
if [ "$(nproc)" -ge 3 ]; then lc=(-l 0-2); else lc=(--lcores 0@0,1@1,2@0); fi
eal=("${lc[@]}" --no-huge -m 1024 --no-shconf --no-pci --no-telemetry
	--log-level=lib.eal:error --log-level=pmd.net.ernic:warning)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# blocks -> dir/block.N.cmd (commands) and dir/block.N.exp (expected lines)
python3 - "$rst" "$dir" <<'PY' || exit 1
import sys
rst, out = sys.argv[1], sys.argv[2]
lines = open(rst).read().split("\n")
n = 0
i = 0
while i < len(lines):
    if lines[i].strip() == ".. code-block:: console":
        i += 1
        block = []
        while i < len(lines) and (lines[i] == "" or lines[i].startswith("   ")):
            block.append(lines[i][3:])
            i += 1
        while block and block[0] == "":
            block.pop(0)
        while block and block[-1] == "":
            block.pop()
        if block and block[0].startswith("ernic> "):
            n += 1
            with open(f"{out}/block.{n}.cmd", "w") as c, \
                 open(f"{out}/block.{n}.exp", "w") as e:
                for l in block:
                    if l.startswith("ernic> "):
                        c.write(l[len("ernic> "):] + "\n")
                    e.write(l + "\n")
        continue
    i += 1
if n == 0:
    print("FAIL: no ernic> example blocks in " + rst)
    sys.exit(1)
PY

# check EXPECTED OUTPUT: the expected lines, in order
check() {
	python3 - "$1" "$2" <<'PY'
import sys
exp = open(sys.argv[1]).read().split("\n")
out = open(sys.argv[2]).read().replace("\r", "").split("\n")
pos = 0
for l in exp:
    if l == "" or l == "...":
        continue
    # the prompt echoes commands: "ernic> cmd"
    prefix = l.endswith("...")
    want = l[:-3].rstrip() if prefix else l.rstrip()
    k = pos
    while k < len(out):
        got = out[k].rstrip()
        if (got.startswith(want) if prefix else got == want) or \
           (l.startswith("ernic> ") and want in got):
            break
        k += 1
    if k == len(out):
        print("    missing (in order): " + l)
        sys.exit(1)
    pos = k + 1
PY
}

fail() {
	echo "FAIL: $*"
	sed 's/^/    | /' "$out" | head -80
	fails=$((fails + 1))
}

for cmd in "$dir"/block.*.cmd; do
	n=${cmd%.cmd}
	n=${n##*.}
	out=$dir/block.$n.out
	{ cat "$cmd"; echo quit; } |
		timeout 120 "$bin" "${eal[@]}" -- -i --loopback >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "example block $n: exit status $rc"
	elif ! check "$dir/block.$n.exp" "$out"; then
		fail "example block $n: output differs from the documentation"
	else
		echo "ok: example block $n ($(wc -l <"$cmd") commands)"
	fi
done

# ---- beyond the documented blocks ----------------------------------------

out=$dir/extra.out
# background traffic: show stats while it runs, stats lines, stop mid-run
# (a stats line of the traffic thread may follow a prompt on its line)
{
	echo "start write_bw --loopback -s 4096 --run_infinitely -D 1 --stats-period 1"
	sleep 2
	echo "show traffic"
	echo "show stats 2"
	echo "start send_lat --loopback"
	sleep 1
	echo "stop"
	echo "show traffic"
	echo "quit"
} | timeout 120 "$bin" "${eal[@]}" -- -i --loopback >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	fail "background traffic: exit status $rc"
elif ! grep -q '^write_bw running for [0-9.]* s on lcore' "$out" ||
     ! grep -qE '^port 2: RX [0-9]+ packets' "$out" ||
     ! grep -q '^write_bw is running: stop first' "$out" ||
     ! grep -qE '^(ernic> )?\[write_bw client [0-9.]+s\] size 4096 posted [1-9]' "$out" ||
     [ "$(grep -cE '^ 4096 +[0-9]+ +[0-9.]+ +[0-9.]+' "$out")" -lt 1 ] ||
     ! grep -q '^write_bw stopped after' "$out" ||
     ! grep -q '^no traffic$' "$out"; then
	fail "background traffic: running state, show stats, stats lines, rows or stop missing"
else
	echo "ok: background traffic, show stats meanwhile, --stats-period, stop"
fi

# testpmd's forms: show port info|stats|xstats <port>|all and clear port
# stats|xstats <port>|all; rates between two shows while traffic runs,
# then what the clears reset
out=$dir/testpmd.out
{
	echo "show port info all"
	echo "start write_bw --loopback -s 4096 --run_infinitely -D 1"
	sleep 2
	echo "show port stats 2"
	sleep 1
	echo "show port stats 2"
	echo "stop"
	echo "show port xstats all"
	echo "clear port stats all"
	echo "show port stats 2"
	echo "clear port xstats 3"
	echo "show port xstats 3"
	echo "show stats all"
	echo "show xstats all"
	echo "quit"
} | timeout 120 "$bin" "${eal[@]}" -- -i --loopback >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	fail "testpmd forms: exit status $rc"
elif ! python3 - "$out" <<'PY'
import re, sys
out = open(sys.argv[1]).read().replace("\r", "")

def die(why):
    print("    " + why)
    sys.exit(1)

def blocks(title):
    # the lines after each header "<title> <port>", up to the next prompt
    res = []
    for m in re.finditer(re.escape(title) + r" (\d+)", out):
        end = out.find("ernic> ", m.end())
        nxt = out.find(title, m.end())
        stop = min(x for x in (end, nxt, len(out)) if x >= 0)
        res.append((int(m.group(1)), out[m.end():stop]))
    return res

def num(text, key):
    m = re.search(r"\b" + re.escape(key) + r":\s+(\d+)", text)
    if m is None:
        die("no %s in %r" % (key, text[:300]))
    return int(m.group(1))

info = blocks("Infos for port")
if [p for p, _ in info] != [2, 3]:
    die("show port info all: ports %s, expected 2 and 3" % [p for p, _ in info])
for p, b in info:
    for want in ("Driver name: net_ernic", "Link status: up",
                 "Underlying port: %d (net_ring_lb_ring%d)" % (p - 2, p - 2),
                 "Path MTU: up to 4096", "GID[1] ::ffff:198.18.0.%d" % (p - 1)):
        if want not in b:
            die("show port info %d: no %r" % (p, want))
st = [b for p, b in blocks("# NIC statistics for port") if p == 2]
if len(st) != 3:
    die("show port stats 2: %d blocks, expected 3" % len(st))
if num(st[0], "RX-packets") == 0 or num(st[0], "TX-packets") == 0:
    die("show port stats 2 under traffic: no packets")
# (net_ring counts no bytes: the bit rates stay 0 on the loopback pair)
if num(st[1], "Tx-pps") == 0 or num(st[1], "Rx-pps") == 0:
    die("show port stats 2: no rate since the last show under traffic")
if num(st[1], "TX-packets") <= num(st[0], "TX-packets"):
    die("show port stats 2: TX-packets did not grow under traffic")
for p in (2, 3):
    if "NIC statistics for port %d cleared" % p not in out:
        die("clear port stats all: port %d not cleared" % p)
if num(st[2], "TX-packets") >= num(st[1], "TX-packets"):
    die("clear port stats all: TX-packets not reset")
xs = blocks("###### NIC extended statistics for port")
if [p for p, _ in xs] != [2, 3, 3]:
    die("show port xstats: ports %s, expected 2, 3, 3" % [p for p, _ in xs])
if num(xs[0][1], "roce_tx_pkts") == 0 or num(xs[1][1], "roce_rx_pkts") == 0:
    die("show port xstats all: no RoCE packets counted")
if "roce_rx_icrc_err: 0" not in xs[1][1]:
    die("show port xstats: zeros are not shown")
if "NIC extended statistics for port 3 cleared" not in out:
    die("clear port xstats 3: no confirmation")
if num(xs[2][1], "roce_rx_pkts") >= num(xs[1][1], "roce_rx_pkts"):
    die("clear port xstats 3: roce_rx_pkts not reset")
if not re.search(r"^port 2: RX \d+ packets.*\n.*\nport 3: RX \d+ packets", out, re.M):
    die("show stats all: not one line pair a port")
if not re.search(r"^port 2:\n(  \S+ +\d+\n)+port 3:\n", out, re.M):
    die("show xstats all: not the non-zero counters under each port")
PY
then
	fail "testpmd forms: output"
else
	echo "ok: show port info|stats|xstats all, rates under traffic, clear port stats|xstats"
fi

# tab completion of register names (Tab = \t in the input)
out=$dir/tab.out
printf 'reg read XRNICC\t\nreg read STATR\t\t\nquit\n' |
	timeout 60 "$bin" "${eal[@]}" -- -i --loopback >"$out" 2>&1
if ! grep -q 'XRNICCONF              0x100000' "$out" ||
   ! grep -q 'STATRESPSN' "$out" || ! grep -q 'STATRQPIDB' "$out"; then
	fail "tab completion of register names"
else
	echo "ok: tab completes register names (unique prefix, and the choices)"
fi

# bad commands and arguments: each names the token and what was expected
out=$dir/bad.out
printf '%s\n' "reg dump 5000" "reg read STATQP 3000" "reg read INTEN 5" \
	"reg frob" "post 1 fly 10 0 0" "connect qp 0 1 2" \
	"hs post 2 2 jump 10" "ernic qp 2 1 3 198.18.0.2" \
	"ernic qp 2 5 3 not-an-ip" "start write_bw --loopback -q 0" \
	"start nosuchmode" "start write_bw --loopback --bogus" \
	"reg write INTEN" "show port stats 9" "show port xstats 1" \
	"clear port info 2" "quit" |
	timeout 60 "$bin" "${eal[@]}" -- -i --loopback >"$out" 2>&1
for want in \
	'bad qpn 5000: expected a QPN 1..2048' \
	'bad index 3000 for STATQP: expected a QPN 1..2048' \
	'bad index 5: INTEN is a global register, it takes no index' \
	'bad word "frob" after "reg": expected port, list, read, write, dump' \
	'bad word "fly" after "post 1": expected send, recv, write, read' \
	'missing <peer-ip> after "connect qp 0 1 2": expected a word (usage: connect qp' \
	'bad word "jump" after "hs post 2 2": expected write, send, read' \
	'bad QPN: expected qpn 2..16 (QP1 is the GSI QP)' \
	'bad peer-ip "not-an-ip": expected the peer'"'"'s IPv4 address' \
	'bad value "0" for -q/--qp: expected a QP count 1..16384' \
	'unknown mode "nosuchmode": expected one of' \
	'unknown flag --bogus: see --help' \
	'missing word after "reg write INTEN": expected a number' \
	'bad port 9: expected a port id (2, 3) or all' \
	'bad port 1: the port under net_ernic_lb1 (owned by it): expected a port id (2, 3) or all' \
	'bad word "info" after "clear port": expected stats, xstats'; do
	grep -qF -- "$want" "$out" || { fail "bad input: no \"$want\""; bad=1; }
done
[ "${bad:-0}" = 1 ] || echo "ok: bad commands name the token"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all ernic> documentation and prompt checks passed"
