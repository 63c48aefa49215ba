#!/usr/bin/env python3
"""Run an MSP430 ELF in mspdebug's simulator for a bounded number of instructions and print
the values of global variables, one "NAME = VALUE" line each (decimal, little-endian).

  mspdebug-read.py ELF --steps N [--timer-irq K] [--poke ADDR=BYTE ...] SYM[:SIZE] ...

mspdebug is driven non-interactively: `mspdebug -n sim "prog ELF" "simio add timer ta"
"simio config ta irq0 K" "mw ADDR BYTE" "step N" "md SYM SIZE" ...` (see spec/wsn-cc.md).
K is the Timer_A CCR0 vector as mspdebug counts it: (vector address - 0xFFE0) / 2.
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--timer-irq", type=int)
    ap.add_argument("--poke", action="append", default=[])
    ap.add_argument("symbols", nargs="+")
    a = ap.parse_args()

    cmds = ["prog " + a.elf]
    if a.timer_irq is not None:
        cmds += ["simio add timer ta", "simio config ta irq0 %d" % a.timer_irq]
    for p in a.poke:
        addr, val = p.split("=")
        cmds.append("mw %s %s" % (addr, val))
    cmds.append("step %d" % a.steps)
    syms = []
    for s in a.symbols:
        name, _, size = s.partition(":")
        syms.append((name, int(size or 2)))
        cmds.append("md %s %d" % (name, int(size or 2)))
    try:
        r = subprocess.run(["mspdebug", "-n", "sim"] + cmds, capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        sys.exit("mspdebug-read: mspdebug did not finish within 120 s")
    if r.returncode != 0:
        sys.exit("mspdebug-read: mspdebug failed (%d):\n%s%s" % (r.returncode, r.stdout, r.stderr))
    # md prints "    ADDR: b0 b1 ... |ascii|"; the last len(syms) such lines are ours.
    dumps = re.findall(r"^\s+[0-9a-f]{5}:((?: [0-9a-f]{2})+)\s+\|", r.stdout, re.M)
    if len(dumps) < len(syms):
        sys.exit("mspdebug-read: expected %d memory dumps, got %d:\n%s"
                 % (len(syms), len(dumps), r.stdout))
    for (name, size), d in zip(syms, dumps[-len(syms):]):
        b = [int(x, 16) for x in d.split()][:size]
        print("%s = %d" % (name, int.from_bytes(bytes(b), "little")))


if __name__ == "__main__":
    main()
