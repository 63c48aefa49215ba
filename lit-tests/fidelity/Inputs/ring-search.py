#!/usr/bin/env python3
"""Finds seeds that exercise a wrap-violation ring move, instead of naming a seed range that
only one runtime's record timing serves (wrap-ring-moves.test lost its seeds on every runtime
change of sessions 10-15: which seeds need a move follows the interleaving of the interrupts
with the scheduler loop, not the geometry alone).

usage: ring-search.py FIDELITY BIN WORK --wrap EXAMPLE=RING:SEG --want moved|setup
                      [--to TO --reason REASON] [--chunk N] [--max N] [--mcu MCU]
                      [--ring-moves N] [--opt FLAG]...

Runs `fidelity.py --modes wrap-violation` over seeds 1.., CHUNK at a time, until the wanted
property has been seen at least once, or MAX seeds have run (then it says so and exits 1):
  moved  some seed's ring moved from RING/SEG to TO because of REASON, and replayed
  setup  some seed could not be served by any ring (a setup failure, never a replay)
Either way, no replay may fail. It prints, over all seeds it ran:
  searched seeds 1-N
  moved FROM -> TO for REASON: M, replayed R     (moved only)
  replay failures: F
  setup failures: S
  first setup failure: MESSAGE                    (setup only)
  check exit on seed K: RC                        (setup only: fidelity.py --check on the
                                                   first seed that failed setup)"""
import argparse
import json
import os
import subprocess
import sys


def run_chunk(a, start, n, tag, check=False):
    out = os.path.join(a.work, "%s.json" % tag)
    cmd = [sys.executable, a.fidelity, "--bin", a.bin, "--mcu", a.mcu,
           "--examples", a.wrap.split("=")[0], "--modes", "wrap-violation",
           "--wrap", a.wrap, "--start", str(start), "--seeds", str(n), "--quiet",
           "--work", os.path.join(a.work, tag), "--json-out", out]
    if check:
        cmd.append("--check")
    if a.ring_moves is not None:
        cmd += ["--ring-moves", str(a.ring_moves)]
    cmd += ["--opt=" + o for o in a.opt]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        universal_newlines=True).returncode
    if not os.path.exists(out):
        sys.exit("ring-search: fidelity.py wrote no results (exit %d): %s" % (rc, " ".join(cmd)))
    with open(out) as f:
        return rc, json.load(f)


def main():
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("fidelity")
    p.add_argument("bin")
    p.add_argument("work")
    p.add_argument("--wrap", required=True)
    p.add_argument("--want", choices=("moved", "setup"), required=True)
    p.add_argument("--to")
    p.add_argument("--reason")
    p.add_argument("--chunk", type=int, default=80)
    p.add_argument("--max", type=int, default=1200)
    p.add_argument("--mcu", default="atmega128")
    p.add_argument("--ring-moves", type=int)
    p.add_argument("--opt", action="append", default=[],
                   help="a wsn-cc option for fidelity.py's builds (repeatable)")
    a = p.parse_args()
    if a.want == "moved" and not (a.to and a.reason):
        p.error("--want moved needs --to and --reason")
    src = a.wrap.split("=", 1)[1].replace(":", "/")
    os.makedirs(a.work, exist_ok=True)
    results, start = [], 1
    while start <= a.max:
        n = min(a.chunk, a.max - start + 1)
        results += run_chunk(a, start, n, "s%d" % start)[1]
        start += n
        setup = [r for r in results if not r["ok"] and str(r["message"]).startswith("setup:")]
        moved = [r for r in results if r["detail"].get("ring") == a.to and
                 ("%s: %s" % (src, a.reason)) in r["detail"].get("ring_moves", [])]
        failed = [r for r in results if not r["ok"] and r not in setup]
        if failed or (moved if a.want == "moved" else setup):
            break
    print("searched seeds 1-%d" % (start - 1))
    if a.want == "moved":
        print("moved %s -> %s for %s: %d, replayed %d" % (
            src, a.to, a.reason, len(moved), sum(1 for r in moved if r["ok"])))
    print("replay failures: %d" % len(failed))
    for r in failed:
        print("  seed %d: %s" % (r["seed"], r["message"]))
    print("setup failures: %d" % len(setup))
    if a.want == "setup" and setup:
        first = setup[0]
        print("first setup failure: %s" % first["message"])
        rc = run_chunk(a, first["seed"], 1, "check%d" % first["seed"], check=True)[0]
        print("check exit on seed %d: %d" % (first["seed"], rc))
    found = moved if a.want == "moved" else setup
    if not found:
        print("ring-search: no seed of 1-%d showed the property" % (start - 1))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
