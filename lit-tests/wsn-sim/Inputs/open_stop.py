#!/usr/bin/env python3
"""Runs wsn-sim run ... --full-trace at bounds FIRST, FIRST+STEP, ... until one stops inside a
record (the ring trace read there has its open field set: wsn-trace-dump --json header
open_record), and leaves that run in OUT.

usage: open_stop.py FW.elf OUT FIRST STEP TRIES [--need TEXT] [WSN-SIM-ARGS...]

With --need, a stop inside a record counts only when wsn-sim's stderr holds TEXT. Prints "open
record at the stop: yes" and wsn-sim's stderr lines for the run kept; none of the TRIES bounds
inside such a record: exit 1. wsn-sim failing at a bound is an error (exit 1, with its
message): any moment is a valid stop."""
import argparse
import json
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    for name in ("elf", "out"):
        ap.add_argument(name)
    for name in ("first", "step", "tries"):
        ap.add_argument(name, type=int)
    ap.add_argument("--need", default="")
    a, extra = ap.parse_known_args()
    out = a.out
    for bound in range(a.first, a.first + a.tries * a.step, a.step):
        shutil.rmtree(out, ignore_errors=True)
        r = subprocess.run(["wsn-sim", "run", a.elf, "--max-cycles", str(bound), "--full-trace",
                            "-o", out] + extra, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("bound %d: wsn-sim exit %d: %s" % (bound, r.returncode, r.stderr.strip()))
        d = subprocess.run(["wsn-trace-dump", "--json", os.path.join(out, "trace.wtr")],
                           check=True, capture_output=True, text=True)
        if json.loads(d.stdout)["header"].get("open_record") and a.need in r.stderr:
            print("open record at the stop: yes")
            sys.stdout.write(r.stderr)
            return
    sys.exit("none of %d bounds from %d (step %d) stopped inside a record" % (
        a.tries, a.first, a.step))


if __name__ == "__main__":
    main()
