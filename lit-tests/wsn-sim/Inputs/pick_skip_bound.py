#!/usr/bin/env python3
"""Finds a cycle bound that stops settle-skip.c inside its skipped call and settles at a record
(spec/wsn-sim.md, --settle): wsn-sim run FW --seed 1 --max-cycles B --settle -o OUT for each B
given, until run.json says settle "record" after the skip (settle_after_skip, more than 1000
cycles run on). Which calls qualify depends on where the timer interrupt falls after the
call's EFFECT, which moves with the runtime's record timing; the bounds lie in different
calls (each call is about 373000 cycles, not a multiple of the timer's 6432), so one of them
does. Prints the bound; exit 1 when none qualifies.

usage: pick_skip_bound.py FW.elf OUT B1 [B2 ...]"""
import json
import os
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    elf, out = sys.argv[1:3]
    for b in sys.argv[3:]:
        if os.path.exists(out):
            shutil.rmtree(out)
        subprocess.run(["wsn-sim", "run", elf, "--seed", "1", "--max-cycles", b, "--settle",
                        "-o", out], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "run.json")) as f:
            d = json.load(f)
        if d["settle"] == "record" and d.get("settle_after_skip") and d["settle_cycles"] > 1000:
            print("bound", b)
            return 0
    print("no bound of", " ".join(sys.argv[3:]), "settles at a record after the skip")
    return 1


if __name__ == "__main__":
    sys.exit(main())
