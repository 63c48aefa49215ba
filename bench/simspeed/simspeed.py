#!/usr/bin/env python3
"""wsn-sim speed: simulated cycles per second of wall time, for 1 node and for 20 nodes, and
the MicaZ radio workload for 1, 10 and 100 nodes.

usage: bench/simspeed/simspeed.py [BUILD_DIR] [--quick]

Radio workload: radiosense.c here (written for this project): each MicaZ node samples its ADC
once a second (Timer0 from the 32.768 kHz crystal, power-save in between), broadcasts a frame
through its CC2420 (STXONCCA) and keeps the radio receiving, as TinyOS's default stack does;
nodes in a line hear their neighbours up to two hops away, through the 802.15.4 medium.
60 simulated seconds (6 with --quick); the table gives simulated seconds per wall second and
per CPU second of the wsn-sim process (the machine is shared: CPU time is the steadier figure).

Builds two firmwares (busy.c here: never sleeps, so every cycle is an executed instruction;
examples/radio/netsense.c: the sense-and-send network, mostly asleep) with the real trace
runtime, runs them in wsn-sim and prints a table. Simulated cycles are summed over nodes
(from each node's run.json); wall time is measured around the wsn-sim process.

The MSP430 core against mspdebug's simulator on the same ELFs: bench/simspeed/msp430.py (see
README.md here for both tables)."""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLANG = "/usr/lib/llvm-19/bin/clang"


def sh(*cmd):
    subprocess.run(cmd, check=True)


def build(tmp):
    inc = os.path.join(ROOT, "trace-runtime", "include")
    rt = os.path.join(ROOT, "trace-runtime", "src", "trace.c")
    radio = os.path.join(ROOT, "examples", "radio")
    busy = os.path.join(tmp, "busy.elf")
    sh("avr-gcc", "-mmcu=atmega128", "-Os", "-I" + inc, os.path.join(HERE, "busy.c"), rt,
       "-o", busy)
    objs = []
    for src in [os.path.join(radio, "netsense.c"), os.path.join(radio, "cc2420.c"), rt]:
        obj = os.path.join(tmp, os.path.basename(src) + ".o")
        sh(CLANG, "--target=avr", "-mmcu=atmega128", "-Os", "-Wno-unknown-attributes",
           "-I" + inc, "-I" + radio, "-c", src, "-o", obj)
        objs.append(obj)
    net = os.path.join(tmp, "netsense.elf")
    sh("avr-gcc", "-mmcu=atmega128", *objs, "-o", net)
    return busy, net


def topology(path, n):
    # A line of n nodes: each hears its neighbours and node 0 (the base station).
    with open(path, "w") as f:
        for a in range(n):
            for b in range(n):
                if a != b and (abs(a - b) == 1 or 0 in (a, b)):
                    f.write("gain %d %d -70.0\n" % (a, b))
            f.write("noise %d -98.0 4.0\n" % a)


def timed(cmd, outdir, nodes):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    cycles = 0
    for n in nodes:
        d = outdir if n is None else os.path.join(outdir, "node%d" % n)
        cycles += json.load(open(os.path.join(d, "run.json")))["cycles"]
    return cycles, wall


def build_radiosense(tmp):
    elf = os.path.join(tmp, "radiosense.elf")
    sh("avr-gcc", "-mmcu=atmega128", "-Os", os.path.join(HERE, "radiosense.c"), "-o", elf)
    return elf


def radio_line(path, n):
    # Node i hears nodes i-2 .. i+2.
    with open(path, "w") as f:
        for a in range(n):
            for b in range(n):
                if a != b and abs(a - b) <= 2:
                    f.write("gain %d %d -70.0\n" % (a, b))
            f.write("noise %d -98.0 4.0\n" % a)


def radio_workload(sim, tmp, seconds):
    elf = build_radiosense(tmp)
    rows = []
    for n in (1, 10, 100):
        topo = os.path.join(tmp, "radio%d.topo" % n)
        radio_line(topo, n)
        out = os.path.join(tmp, "radio%d" % n)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sim, "net", topo, "--node", "0-%d=%s" % (n - 1, elf), "--seed", "1",
                        "--seconds", str(seconds), "--adc", "0:1023", "--progress", "none",
                        "-o", out], check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        net = json.load(open(os.path.join(out, "net.json")))
        rows.append((n, wall, cpu, net["cc2420"]["transmissions"], net["cc2420"]["deliveries"]))
    print("\nRadio workload (radiosense.c, %g simulated s)\n" % seconds)
    print("| nodes | frames sent | deliveries | wall s | CPU s | simulated s / wall s | simulated s / CPU s |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, wall, cpu, tx, dl in rows:
        print("| %d | %d | %d | %.2f | %.2f | %.1f | %.1f |" %
              (n, tx, dl, wall, cpu, seconds / wall, seconds / max(cpu, 1e-3)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    build_dir = args[0] if args else os.path.join(ROOT, "build")
    sim = os.path.join(build_dir, "bin", "wsn-sim")
    if not os.path.exists(sim):
        sys.exit("simspeed: %s not found (build the wsn-sim target first)" % sim)
    scale = 0.1 if quick else 1.0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        busy, net = build(tmp)
        topo20 = os.path.join(tmp, "line20.topo")
        topology(topo20, 20)
        one = int(100e6 * scale)
        out = os.path.join(tmp, "one")
        c, w = timed([sim, "run", busy, "--seed", "1", "--max-cycles", str(one), "-o", out],
                     out, [None])
        rows.append(("busy (never sleeps)", 1, c, w))
        secs = 1.0 * scale
        out = os.path.join(tmp, "busy20")
        c, w = timed([sim, "net", topo20, "--node", "0-19=" + busy, "--seed", "1", "--seconds",
                      str(secs), "--progress", "none", "-o", out], out, range(20))
        rows.append(("busy (never sleeps)", 20, c, w))
        out = os.path.join(tmp, "net20")
        c, w = timed([sim, "net", topo20, "--node", "0-19=" + net, "--seed", "1", "--seconds",
                      str(10 * secs), "--adc", "0:990", "--progress", "none", "-o", out], out,
                     range(20))
        rows.append(("netsense (radio, sleeps)", 20, c, w))
    print("| firmware | nodes | simulated cycles | wall s | simulated cycles/s |")
    print("|---|---:|---:|---:|---:|")
    for name, n, c, w in rows:
        print("| %s | %d | %d | %.2f | %.1fM |" % (name, n, c, w, c / w / 1e6))
    with tempfile.TemporaryDirectory() as tmp:
        radio_workload(sim, tmp, 60.0 * scale)


if __name__ == "__main__":
    main()
