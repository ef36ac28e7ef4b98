#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of the libFuzzer targets (test/fuzz), from ../shared/vectors
and conf/: make_seeds.py SHARED_DIR CONF_DIR OUT_DIR writes OUT_DIR/{frame,
mad,config,cli}/. Record format (fuzz_common.h): kind, 16-bit BE length, bytes.
"""
import os
import shutil
import struct
import sys

# fuzz_frame.c kind bits
F_ADDR, F_BTH, F_KEYS, F_CRC, F_CHAIN = 1, 2, 4, 8, 16
# fuzz_mad.c kind bits
K_MAD, K_CRC, K_ACCEPT, K_DISCONNECT = 1, 2, 4, 8


def rec(kind, data):
    return struct.pack(">BH", kind, len(data)) + data


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, hexs = line.split()
            out.append((name, bytes.fromhex(hexs)))
    return out


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def qp_sel(name):
    if name.startswith("UC_"):
        return 1 << 5
    if name.startswith("UD_"):
        return 2 << 5
    if name.startswith("GSI_") or name.startswith("CNP"):
        return 3 << 5
    return 0


def frames(shared, out):
    d = os.path.join(out, "frame")
    os.makedirs(d, exist_ok=True)
    vec = load(os.path.join(shared, "vectors", "rocev2-frames.hex"))
    fix = F_ADDR | F_BTH | F_KEYS | F_CRC
    rc_v4 = b""
    for name, fr in vec:
        write(d, name + "_raw", rec(0, fr))
        if name.endswith("_v4"):
            k = fix | qp_sel(name)
            write(d, name + "_fixed", rec(k, fr))
            write(d, name + "_chained", rec(k | F_CHAIN, fr))
            if name.startswith("RC_"):
                rc_v4 += rec(k, fr)
    byname = dict(vec)
    write(d, "rc_all_v4", rc_v4)
    # multi-packet messages in order, and out of order
    for seq in (["RC_SEND_FIRST_v4", "RC_SEND_MIDDLE_v4", "RC_SEND_LAST_v4"],
                ["RC_RDMA_WRITE_FIRST_v4", "RC_SEND_MIDDLE_v4",
                 "RC_RDMA_WRITE_LAST_IMM_v4"],
                ["RC_RDMA_READ_RESPONSE_FIRST_v4",
                 "RC_RDMA_READ_RESPONSE_MIDDLE_v4",
                 "RC_RDMA_READ_RESPONSE_LAST_v4", "RC_ATOMIC_ACK_v4",
                 "RC_ACK_v4"],
                ["RC_SEND_LAST_v4", "RC_SEND_FIRST_v4", "RC_NAK_PSN_SEQ_ERR_v4",
                 "RC_RNR_NAK_t14_v4", "RC_NAK_REMOTE_ACCESS_v4"]):
        write(d, "seq_" + seq[0], b"".join(rec(fix, byname[n]) for n in seq))
    return len(os.listdir(d))


def mads(shared, out):
    d = os.path.join(out, "mad")
    os.makedirs(d, exist_ok=True)
    vec = load(os.path.join(shared, "vectors", "rxe-cm-mads.hex"))
    for name, fr in vec:
        mad = fr[62:62 + 256]
        write(d, name + "_raw", rec(K_CRC | K_ACCEPT, fr))
        write(d, name + "_mad", rec(K_MAD | K_ACCEPT, mad))
        write(d, name + "_mad_late", rec(K_MAD | 0xf0, mad))
    byname = {n: fr[62:62 + 256] for n, fr in vec}
    names = sorted(byname)
    # every MAD in capture order, accepting and disconnecting
    write(d, "all_accept", b"".join(rec(K_MAD | K_ACCEPT | K_DISCONNECT,
                                        byname[n]) for n in names))
    # the same with time passing between them (retries, timewait)
    write(d, "all_slow", b"".join(rec(K_MAD | K_ACCEPT | 0x40, byname[n])
                                  for n in names))
    write(d, "timers_only", rec(0xf0, b"") * 20)
    return len(os.listdir(d))


CONFIGS = {
    "minimal.ini": "[test]\nmode = write_bw\nargs = --loopback\n",
    "ports.ini": "[eal]\nargs = -l 0-1 --no-huge\n"
                 "[port.a]\nvdev = net_ring0\n"
                 "[port.b]\nvdev = net_ernic0,port=net_ring0,ip=198.18.0.1\n"
                 "[test]\nmode = read_bw\nargs = -s 65536 -n 5 -x 1\n"
                 "server = 198.18.0.2\n",
    "bad_key.ini": "[test]\nmodee = write_bw\n",
    "bad_flag.ini": "[test]\nmode = send_lat\nargs = -s -1 --nope\n",
    "empty.ini": "",
    "comments.ini": "; only a comment\n[eal]\n; args =\n",
}

CLI = {
    "show": "show port\nshow stats 0\nshow xstats 1\nclear stats 0\n",
    "show_testpmd": "show port info all\nshow port stats 0\n"
                    "show port stats 0\nshow port xstats all\n"
                    "clear port stats all\nclear port xstats 1\n"
                    "show stats all\nclear stats all\nshow port info 9\n",
    "qp_life": "create qp 0\ncreate qp 1\nshow qp 0\nmodify qp 0 rts\n"
               "modify qp 1 err\nmodify qp 1 reset\ndestroy qp 0\n"
               "destroy qp 1\n",
    "connect": "create qp 0\ncreate qp 1\n"
               "connect qp 0 2 0 198.18.0.2 1024\n"
               "connect qp 1 2 0 198.18.0.1 1024\n"
               "post 1 recv 64 0 0\npost 0 send 64 0 0\n"
               "post 0 write 4096 524289 0\npost 0 read 100 524289 4096\n",
    "bad": "create qp 9\ndestroy qp 70\npost 0 write 4294967295 0 "
           "18446744073709551615\nconnect qp 0 16777216 0 ::1 4097\n"
           "resolve 0 10.9.9.9\nresolve 1 ::ffff:198.18.0.1\n",
}


def configs(conf, out):
    d = os.path.join(out, "config")
    os.makedirs(d, exist_ok=True)
    for f in sorted(os.listdir(conf)):
        if f.endswith(".ini"):
            shutil.copy(os.path.join(conf, f), os.path.join(d, f))
    for name, text in CONFIGS.items():
        write(d, name, text.encode())
    return len(os.listdir(d))


def cli(out):
    d = os.path.join(out, "cli")
    os.makedirs(d, exist_ok=True)
    for name, text in CLI.items():
        write(d, name, text.encode())
    return len(os.listdir(d))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_seeds.py SHARED_DIR CONF_DIR OUT_DIR")
    shared, conf, out = sys.argv[1:]
    n = (frames(shared, out), mads(shared, out), configs(conf, out), cli(out))
    print("seeds: frame %d, mad %d, config %d, cli %d" % n)


if __name__ == "__main__":
    main()
