#!/usr/bin/env python3
"""Mutation campaign against wsn-replay (issue 21, "Done when"): records a program with
wsn-sim, damages copies of its trace, replays each and prints a table of outcomes by kind of
damage. A "wrong success" is exit 0 ("reproduced") from a trace whose decoded records or
header promises differ from the original's; exit 0 with every record intact (e.g. a bit
flipped in stale bytes after a PAD) is counted apart.

  python3 bench/fuzz/mutate_replay.py --bin build/bin [--n 100] [--seed 1]
"""
import argparse
import json
import os
import random
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")


def records(binr, path):
    r = subprocess.run([os.path.join(binr, "wsn-trace-dump"), "--json", path],
                       capture_output=True, text=True)
    if r.returncode:
        return None
    d = json.loads(r.stdout)
    for rec in d["records"]:
        rec.pop("depth", None)
    h = d["header"]
    return json.dumps([h.get("flags"), h.get("checks"), h.get("violation"), h.get("target"),
                       d["records"]], sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--n", type=int, default=100, help="mutants per kind")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as tmp:
        fw = os.path.join(tmp, "ss")
        subprocess.run([os.path.join(a.bin, "wsn-cc"), "--target=avr", "--mcu=atmega128", "-I",
                        os.path.join(EX, "common"), "-o", fw,
                        os.path.join(EX, "sense-send/SenseC.c"),
                        os.path.join(EX, "sense-send/invariants.c"),
                        os.path.join(EX, "common/scheduler.c")], check=True)
        run = os.path.join(tmp, "run")
        subprocess.run([os.path.join(a.bin, "wsn-sim"), "run", fw + ".elf", "--seed", "1",
                        "--adc", "0:1023", "-o", run], check=True, capture_output=True)
        orig = open(os.path.join(run, "trace.wtr"), "rb").read()
        want = records(a.bin, os.path.join(run, "trace.wtr"))
        head = struct.unpack_from("<H", orig, 16)[0]

        def bitflip(b):
            i = rnd.randrange(32, len(b))
            b[i] ^= 1 << rnd.randrange(8)

        def byteset(b):
            i = rnd.randrange(32, len(b))
            b[i] = (b[i] + rnd.randrange(1, 256)) % 256

        def word_store(b):
            # A stray 16-bit store (a wild pointer on an 8/16-bit mote) anywhere in the ring.
            i = rnd.randrange(32, len(b) - 1)
            v = rnd.randrange(65536)
            b[i], b[i + 1] = v & 0xFF, v >> 8

        def tail_cut(b):
            struct.pack_into("<H", b, 16, max(0, head - rnd.randrange(1, 9)))

        def header_field(b):
            off, fmt = rnd.choice([(5, "<B"), (18, "<H"), (24, "<I"), (28, "<H")])
            struct.pack_into(fmt, b, off, rnd.randrange(256 ** struct.calcsize(fmt)))

        kinds = [("bit flip in ring", bitflip), ("byte set in ring", byteset),
                 ("16-bit store", word_store), ("head moved back 1-8", tail_cut),
                 ("header field", header_field)]
        print("%-20s %6s %9s %8s %6s %6s %6s %6s" % ("damage", "runs", "wrong-ok", "intact-ok",
                                                    "1", "2", "3", "crash"))
        wrong = []
        for name, mutate in kinds:
            counts = {"wrong": 0, "intact": 0, 1: 0, 2: 0, 3: 0, "crash": 0}
            for k in range(a.n):
                b = bytearray(orig)
                mutate(b)
                p = os.path.join(tmp, "m.wtr")
                open(p, "wb").write(b)
                r = subprocess.run([os.path.join(a.bin, "wsn-replay"), fw + ".replay.bc",
                                    "--trace", p, "--elf", fw + ".elf", "--timeout", "20"],
                                   capture_output=True)
                if r.returncode == 0:
                    intact = records(a.bin, p) == want
                    counts["intact" if intact else "wrong"] += 1
                    if not intact:
                        diff = [i for i in range(len(b)) if b[i] != orig[i]]
                        wrong.append("%s: file offset(s) %s: %s -> %s" % (
                            name, diff, [orig[i] for i in diff], [b[i] for i in diff]))
                elif r.returncode in (1, 2, 3):
                    counts[r.returncode] += 1
                else:
                    counts["crash"] += 1
            print("%-20s %6d %9d %8d %6d %6d %6d %6d" % (name, a.n, counts["wrong"],
                                                        counts["intact"], counts[1], counts[2],
                                                        counts[3], counts["crash"]))
    for w in wrong:
        print("wrong success:", w)


main()
