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

# The project's examples that build for msp430f1611 (radio/ is AVR-only; plain/recursion_locals
# needs strcpy, which no msp430 libc here provides): name -> (wsn-cc options, sources).
COMMON = ["examples/common/scheduler.c", "examples/common/hal_host.c"]
EXAMPLES = {
    "blink": ([], ["examples/blink/BlinkC.c", "examples/blink/invariants.c"] + COMMON),
    "blink-notrace": (["--no-trace"], ["examples/blink/BlinkC.c", "examples/blink/invariants.c"] + COMMON),
    "sense-send": ([], ["examples/sense-send/SenseC.c", "examples/sense-send/invariants.c"] + COMMON),
    "sort_search": (["-I", "examples/plain"], ["examples/plain/sort_search.c"]),
    "structs_ptrs": (["-I", "examples/plain"], ["examples/plain/structs_ptrs.c"]),
    "task_queue": (["-I", "examples/plain"], ["examples/plain/task_queue.c"]),
}
RAM_F1611 = (0x1100, 0x2800)


def expected_classes():
    """Opcode classes (msp430-diff's names) the generator is meant to cover: every format I
    opcode x width x source mode x destination mode, every format II opcode in every mode it
    has (PUSH.B is left out: see gen.py), RETI and the eight jumps."""
    src = ["Rn", "x(Rn)", "EDE", "&EDE", "@Rn", "@Rn+", "#N", "#CG"]
    dst = ["Rm", "x(Rm)", "EDE", "&EDE"]
    out = set()
    for op in gen.FORMAT_I:
        for w in (".w", ".b"):
            for s_ in src:
                for d in dst:
                    out.add("%s%s %s,%s" % (op, w, s_, d))
    one = ["Rn", "x(Rn)", "EDE", "&EDE", "@Rn", "@Rn+"]
    for op, widths, modes in (("rrc", (".w", ".b"), one), ("rra", (".w", ".b"), one),
                              ("swpb", (".w",), one), ("sxt", (".w",), one),
                              ("push", (".w",), one + ["#N", "#CG"]), ("call", (".w",), one + ["#N"])):
        for w in widths:
            for m in modes:
                out.add("%s%s %s" % (op, w, m))
    out.add("reti.w Rn")
    out.update(gen.JUMPS)
    return out


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
    ap.add_argument("--per-program", type=int, default=20000, help="instructions run per program")
    ap.add_argument("--every", type=int, default=1000, help="compare every N instructions")
    ap.add_argument("--length", type=int, default=400, help="generated body length (lines)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--diff-tool", default=os.path.join(ROOT, "build", "bin", "msp430-diff"))
    ap.add_argument("--keep", help="keep the generated programs in this folder")
    ap.add_argument("--irq-every", type=int, default=3,
                    help="request the generated handler's interrupt every N comparisons")
    ap.add_argument("--examples", type=int, default=20000,
                    help="instructions to run each example for (0: none)")
    ap.add_argument("--example-set", default=",".join(EXAMPLES), help="comma-separated example names")
    ap.add_argument("--wsn-cc", default=os.path.join(ROOT, "build", "bin", "wsn-cc"))
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
    covered = collections.Counter()
    examples = {}
    programs = instructions = cycles = interrupts = 0
    start = time.time()
    seed = args.seed
    left = args.instructions
    errors = 0
    while left > 0:
        n = min(args.per_program, left)
        name = "p%d" % seed
        elf = build(workdir, name, gen.program(seed, args.length))
        cov = os.path.join(workdir, name + ".cov")
        r = subprocess.run([args.diff_tool, "--every=%d" % args.every, "--count=%d" % n, "--hwmult",
                            "--coverage=" + cov, "--mem=0x%x:%d" % gen.COMPARE,
                            "--irq=%d:%d" % (gen.IRQ_SLOT, args.irq_every), elf],
                           capture_output=True, text=True)
        if os.path.exists(cov):
            with open(cov) as f:
                for line in f:
                    count, cls = line.rstrip("\n").split(" ", 1)
                    covered[cls] += int(count)
        out = r.stdout.strip()
        programs += 1
        if r.returncode == 0 and out.startswith("OK"):
            f = out.split()
            instructions += int(f[1])
            cycles += int(f[2])
            interrupts += int(f[3])
        elif r.returncode == 1 and out.startswith("MISMATCH"):
            f = out.split()
            instructions += int(f[1])
            opclass = " ".join(f[2:f.index("at")]) if "at" in f else "checkpoint"
            mismatches[opclass] += 1
            examples.setdefault(opclass, "%s: %s" % (elf, out))
        else:
            errors += 1
            print("run.py: %s: msp430-diff failed (%d): %s %s" % (elf, r.returncode, out, r.stderr.strip()),
                  file=sys.stderr)
        left -= n
        seed += 1
    elapsed = time.time() - start

    example_rows = []
    if args.examples > 0:
        for name in args.example_set.split(","):
            opts, srcs = EXAMPLES[name]
            out = os.path.join(workdir, "ex-" + name)
            b = subprocess.run([args.wsn_cc, "--target=msp430", "--mcu=msp430f1611", "-I", "examples/common"]
                               + opts + ["-o", out] + srcs, cwd=ROOT, capture_output=True, text=True)
            if b.returncode != 0:
                errors += 1
                print("run.py: wsn-cc failed for example %s:\n%s" % (name, b.stderr), file=sys.stderr)
                continue
            r = subprocess.run([args.diff_tool, "--every=%d" % args.every, "--count=%d" % args.examples,
                                "--mem=0x%x:%d" % RAM_F1611, out + ".elf"], capture_output=True, text=True)
            res = r.stdout.strip() or r.stderr.strip()
            if r.returncode == 1:
                f = res.split()
                opclass = " ".join(f[2:f.index("at")]) if "at" in f else "checkpoint"
                mismatches[opclass] += 1
                examples.setdefault(opclass, "%s: %s" % (name, res))
            elif r.returncode != 0:
                errors += 1
            example_rows.append((name, res))

    print("| programs | instructions (incl. interrupt entries) | cycles | interrupts | mismatching programs | tool errors | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %d | %d | %d | %d | %d | %.1f |" % (programs, instructions, cycles, interrupts,
                                                    sum(mismatches.values()), errors, elapsed))
    want = expected_classes()
    seen = {c.replace(",PC", ",Rm") for c in covered}
    missing = sorted(want - seen)
    print()
    print("opcode classes executed: %d; of the %d the generator targets, %d covered%s" % (
        len(covered), len(want), len(want) - len(missing),
        (" (missing: %s%s)" % (", ".join(missing[:12]), " ..." if len(missing) > 12 else "")) if missing else ""))
    if example_rows:
        print()
        print("| example (msp430f1611, all RAM compared) | result: OK instructions cycles interrupts |")
        print("|---|---|")
        for name, res in example_rows:
            print("| %s | %s |" % (name, res))
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
