#!/usr/bin/env python3
"""Runs one firmware under wsn-sim for seeds 1..N and prints how many of the runs differ.

usage: seed_clocks.py FW.elf OUTDIR N SYMBOL[:u8|u16],... -- WSN-SIM-ARGS...
Per run: wsn-sim run FW.elf --seed S -o OUTDIR/sS WSN-SIM-ARGS. Prints
  runs N
  distinct sram K          (different sram.bin images)
  distinct SYMBOL K min MAX  (per symbol: different values, their range)
  crystal_ppb MIN MAX, crystal_phase MIN MAX, dco_scale MIN MAX   (run.json "clocks")
Symbols are read from sram.bin with sramsym.py (beside this file)."""
import hashlib
import json
import os
import subprocess
import sys


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    cut = sys.argv.index("--")
    elf, out, n, syms = sys.argv[1:cut]
    extra = sys.argv[cut + 1:]
    n = int(n)
    here = os.path.dirname(os.path.abspath(__file__))
    images, values, clocks = set(), {}, {}
    for seed in range(1, n + 1):
        d = os.path.join(out, "s%d" % seed)
        subprocess.run(["wsn-sim", "run", elf, "--seed", str(seed), "-o", d] + extra,
                       check=True, stdout=subprocess.DEVNULL)
        sram = os.path.join(d, "sram.bin")
        with open(sram, "rb") as f:
            images.add(hashlib.sha256(f.read()).hexdigest())
        for spec in syms.split(","):
            name, _, kind = spec.partition(":")
            v = int(subprocess.check_output([sys.executable, os.path.join(here, "sramsym.py"),
                                             elf, sram, name, kind or "u8"]).split()[0])
            values.setdefault(name, []).append(v)
        with open(os.path.join(d, "run.json")) as f:
            for k, v in json.load(f)["clocks"].items():
                clocks.setdefault(k, []).append(v)
    print("runs", n)
    print("distinct sram", len(images))
    for name, vs in values.items():
        print("distinct", name, len(set(vs)), min(vs), max(vs))
    for k in ("crystal_ppb", "crystal_phase", "dco_scale"):
        print(k, min(clocks[k]), max(clocks[k]))


if __name__ == "__main__":
    main()
