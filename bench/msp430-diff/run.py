#!/usr/bin/env python3
"""Differential test of the WSNMsp430 core against `mspdebug sim`.

Generates programs (gen.py), assembles them with clang --target=msp430 and ld.lld, runs each
in both simulators through build/bin/msp430-diff (registers, the RAM the program touches and
MCLK cycles compared every --every instructions; a divergence is narrowed to one
instruction), and prints a table: programs, instructions, mismatches by opcode class.

  bench/msp430-diff/run.py --instructions 10000000
  bench/msp430-diff/run.py --instructions 20000 --per-program 5000   (the ctest run)

Exit status 0 when no program mismatched. Needs mspdebug (Debian package, setup.sh).
"""

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

LLVM = "/usr/lib/llvm-19/bin"


def build(workdir, name, text):
    s = os.path.join(workdir, name + ".s")
    o = os.path.join(workdir, name + ".o")
    elf = os.path.join(workdir, name + ".elf")
    ld = os.path.join(workdir, "gen.ld")
    if not os.path.exists(ld):
        with open(ld, "w") as f:
            f.write(gen.LINKER_SCRIPT)
    with open(s, "w") as f:
        f.write(text)
    subprocess.run([os.path.join(LLVM, "clang"), "--target=msp430", "-c", s, "-o", o], check=True)
    subprocess.run([os.path.join(LLVM, "ld.lld"), "-T", ld, o, "-o", elf], check=True)
    return elf


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instructions", type=int, default=1000000, help="total instructions over all programs")
    ap.add_argument("--per-program", type=int, default=200000, help="instructions run per program")
    ap.add_argument("--every", type=int, default=1000, help="compare every N instructions")
    ap.add_argument("--length", type=int, default=400, help="generated body length (lines)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--diff-tool", default=os.path.join(ROOT, "build", "bin", "msp430-diff"))
    ap.add_argument("--keep", help="keep the generated programs in this folder")
    args = ap.parse_args()

    if not shutil.which("mspdebug"):
        print("run.py: mspdebug is not installed (setup.sh installs it)", file=sys.stderr)
        return 2
    if not os.path.exists(args.diff_tool):
        print("run.py: %s not built (ninja -C build msp430-diff)" % args.diff_tool, file=sys.stderr)
        return 2

    workdir = args.keep or tempfile.mkdtemp(prefix="msp430-diff-")
    os.makedirs(workdir, exist_ok=True)
    mismatches = collections.Counter()
    examples = {}
    programs = instructions = cycles = 0
    start = time.time()
    seed = args.seed
    left = args.instructions
    errors = 0
    while left > 0:
        n = min(args.per_program, left)
        name = "p%d" % seed
        elf = build(workdir, name, gen.program(seed, args.length))
        r = subprocess.run([args.diff_tool, "--every=%d" % args.every, "--count=%d" % n, "--hwmult",
                            "--mem=0x%x:%d" % gen.COMPARE, elf], capture_output=True, text=True)
        out = r.stdout.strip()
        programs += 1
        if r.returncode == 0 and out.startswith("OK"):
            f = out.split()
            instructions += int(f[1])
            cycles += int(f[2])
        elif r.returncode == 1 and out.startswith("MISMATCH"):
            f = out.split()
            instructions += int(f[1])
            opclass = " ".join(f[2:4]) if not f[2].startswith("checkpoint") else "checkpoint"
            mismatches[opclass] += 1
            examples.setdefault(opclass, "%s: %s" % (elf, out))
        else:
            errors += 1
            print("run.py: %s: msp430-diff failed (%d): %s %s" % (elf, r.returncode, out, r.stderr.strip()),
                  file=sys.stderr)
        left -= n
        seed += 1
    elapsed = time.time() - start

    print("| programs | instructions | cycles | mismatching programs | tool errors | seconds |")
    print("|---:|---:|---:|---:|---:|---:|")
    print("| %d | %d | %d | %d | %d | %.1f |" % (programs, instructions, cycles, sum(mismatches.values()),
                                               errors, elapsed))
    if mismatches:
        print()
        print("| opcode class (first divergent instruction) | programs |")
        print("|---|---:|")
        for k, v in mismatches.most_common():
            print("| %s | %d |" % (k, v))
        print()
        for k, e in examples.items():
            print("example %s -> %s" % (k, e))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if not mismatches and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
