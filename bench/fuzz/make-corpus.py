#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (bench/fuzz/corpus/TARGET/) from the project's
own examples, with the project's own tools: traces and trace maps of sense-send, blink and
uart-cmd recorded with wsn-sim (AVR), the SensorC examples, the topology files, an
error-path file, and (map, trace) pairs for the preprocessor target (map JSON, NUL, trace).

  python3 bench/fuzz/make-corpus.py --bin build/bin [--out bench/fuzz/corpus]

Seeds are kept small: the ring is built at 256 bytes in 64-byte segments.
"""
import argparse
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")

# name, sources (under examples/, or the project root when they start with lit-tests/), wsn-sim
# arguments, extra wsn-cc arguments
PROGRAMS = [
    ("sense-send", ["sense-send/SenseC.c", "sense-send/invariants.c"], ["--adc", "0:1023"], []),
    ("blink", ["blink/BlinkC.c", "blink/invariants.c"], [], []),
    ("sense-send-long", ["sense-send/SenseC.c", "sense-send/invariants.c"],
     ["--adc", "0:700", "--stop-after-checks", "40"], []),
    # EFFECT_Z (format 7, spec/trace-format.md 3.6) is written only without effect keys, as
    # wsn-cc builds real applications; the trace also holds CHECKPOINT_Z, the one-byte
    # control records and empty-span records (3.5).
    ("effect-z", ["lit-tests/replay/Inputs/effect-z.c"], ["--stop-after-checks", "300"],
     ["--effect-keys=0"]),
]


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def put(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "fuzz", "corpus"))
    a = ap.parse_args()
    # Seeds written by hand (control.wtr from testgen, effect-c.wtr, input-s.wtr,
    # two-level.wtr, repeat.wtr, check-short.wtr) stay: only the files this script makes are
    # overwritten.
    with tempfile.TemporaryDirectory() as tmp:
        for name, srcs, simargs, ccargs in PROGRAMS:
            fw = os.path.join(tmp, name)
            run([os.path.join(a.bin, "wsn-cc"), "--target=avr", "--mcu=atmega128",
                 "--trace-buf=256", "--trace-seg=64", "-I", os.path.join(EX, "common"), "-o", fw]
                + ccargs
                + [os.path.join(ROOT, s) if s.startswith("lit-tests/") else os.path.join(EX, s)
                   for s in srcs]
                + ([] if srcs[0].startswith("lit-tests/")
                   else [os.path.join(EX, "common/scheduler.c")]))
            rundir = os.path.join(tmp, name + ".run")
            subprocess.run([os.path.join(a.bin, "wsn-sim"), "run", fw + ".elf", "--seed", "1",
                            "--max-cycles", "200000000", "-o", rundir] + simargs,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            trace = open(os.path.join(rundir, "trace.wtr"), "rb").read()
            wmap = open(fw + ".wmap", "rb").read()
            put(a.out, "trace", name + ".wtr", trace)
            put(a.out, "trace_map", name + ".wmap", wmap)
            put(a.out, "preprocess", name + ".pair", wmap + b"\0" + trace)
    for f in sorted(os.listdir(os.path.join(EX, "sensorc"))):
        if f.endswith(".sg"):
            put(a.out, "sensorc", f, open(os.path.join(EX, "sensorc", f), "rb").read())
    put(a.out, "sensorc", "rich.sg",
        open(os.path.join(ROOT, "lit-tests/sensorc/Inputs/rich.sg"), "rb").read())
    put(a.out, "topology", "topology.txt",
        open(os.path.join(EX, "sensorc/topology.txt"), "rb").read())
    put(a.out, "topology", "netsense.topo",
        open(os.path.join(EX, "radio/netsense.topo"), "rb").read())
    put(a.out, "error_paths", "fig4-4.paths",
        b"# from the level-1 replay\nwsn_invariant_sum -> left\n@main, task_a right\n")
    for t in sorted(os.listdir(a.out)):
        files = os.listdir(os.path.join(a.out, t))
        size = sum(os.path.getsize(os.path.join(a.out, t, f)) for f in files)
        print("%-12s %2d seeds %7d bytes" % (t, len(files), size))


main()
