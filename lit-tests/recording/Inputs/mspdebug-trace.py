#!/usr/bin/env python3
"""Run an MSP430 ELF in mspdebug's simulator and save its trace object as a .wtr file.

  mspdebug-trace.py ELF --steps N [--timer-irq K] [--poke ADDR=BYTE ...] [--size BYTES] -o OUT

The trace object `__wsn_trace` (32-byte header + ring, spec/trace-format.md) is read with
`md __wsn_trace SIZE` after `step N`; SIZE defaults to the symbol's size in the ELF
(llvm-nm -S), which is 32 + the ring size the runtime was built with. Only dump lines whose
addresses fall inside the object are kept, so other output cannot leak into the file.
K is the Timer_A CCR0 vector as mspdebug counts it: (vector address - 0xFFE0) / 2.
Prints "ADDR SIZE" of the object read; exits non-zero with a message on any problem.
"""
import argparse
import re
import subprocess
import sys


def symbol(elf, name):
    out = subprocess.run(["llvm-nm", "-S", elf], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("mspdebug-trace: llvm-nm %s failed:\n%s" % (elf, out.stderr))
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == name:
            return int(f[0], 16), int(f[1], 16)
    sys.exit("mspdebug-trace: %s has no symbol %s (not a traced build?)" % (elf, name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--timer-irq", type=int)
    ap.add_argument("--poke", action="append", default=[])
    ap.add_argument("--size", type=int)
    ap.add_argument("-o", dest="out", required=True)
    a = ap.parse_args()

    addr, size = symbol(a.elf, "__wsn_trace")
    if a.size is not None:
        if a.size > size:
            sys.exit("mspdebug-trace: --size %d is larger than __wsn_trace (%d bytes)"
                     % (a.size, size))
        size = a.size
    cmds = ["prog " + a.elf]
    if a.timer_irq is not None:
        cmds += ["simio add timer ta", "simio config ta irq0 %d" % a.timer_irq]
    for p in a.poke:
        where, val = p.split("=")
        cmds.append("mw %s %s" % (where, val))
    cmds += ["step %d" % a.steps, "md __wsn_trace %d" % size]
    try:
        r = subprocess.run(["mspdebug", "-n", "sim"] + cmds, capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        sys.exit("mspdebug-trace: mspdebug did not finish within 120 s")
    if r.returncode != 0:
        sys.exit("mspdebug-trace: mspdebug failed (%d):\n%s%s" % (r.returncode, r.stdout,
                                                                   r.stderr))
    # md prints "    ADDR: b0 b1 ... |ascii|", 16 bytes a line.
    data = {}
    for a_hex, d in re.findall(r"^\s+([0-9a-f]{5}):((?: [0-9a-f]{2})+)\s+\|", r.stdout, re.M):
        base = int(a_hex, 16)
        for i, b in enumerate(d.split()):
            if addr <= base + i < addr + size:
                data[base + i] = int(b, 16)
    missing = [x for x in range(addr, addr + size) if x not in data]
    if missing:
        sys.exit("mspdebug-trace: %d of %d trace bytes missing from mspdebug's dump (first at "
                 "0x%04x):\n%s" % (len(missing), size, missing[0], r.stdout[-2000:]))
    with open(a.out, "wb") as f:
        f.write(bytes(data[x] for x in range(addr, addr + size)))
    print("0x%04x %d" % (addr, size))


if __name__ == "__main__":
    main()
