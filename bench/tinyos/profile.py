#!/usr/bin/env python3
"""bench/tinyos/profile.py - where a traced firmware's active cycles go, by function.

  profile.py TRACED.elf TRACED-RUN-DIR [--original ORIG.elf ORIG-RUN-DIR] [--top N]
             [--from-cycles-of RUN-DIR...]

RUN-DIR is a `wsn-sim run --profile` output directory (profile.txt: "0xPC CYCLES" lines, the
active cycles of each instruction address; run.json). The script assigns each address to the
function symbol of the ELF that contains it (llvm-nm -S) and prints, per function, the active
cycles of the traced run and, with --original, of the original run (same name), largest
difference first, then the totals by kind:
  runtime     functions of the trace runtime (__wsn_*, and its CRC fold helpers)
  program     every other function (the application, with the instrumentation's inline code:
              region counter updates, the calls' argument set-up, inlined tables' callers)
  (unknown)   addresses no function symbol covers
Both runs should cover the same simulated time (same --max-cycles; a traced run that stopped
at a violation earlier is scaled to the original's cycles, and the script says so).
"""
import argparse
import bisect
import json
import os
import subprocess
import sys

LLVM = "/usr/lib/llvm-19/bin"


def functions(elf):
    """Sorted [(start, end, name)] of the ELF's function symbols (flash byte addresses)."""
    out = subprocess.run([os.path.join(LLVM, "llvm-nm"), "-S", "--defined-only", elf],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "Tt":
            start, size = int(f[0], 16), int(f[1], 16)
            if size:
                syms.append((start, start + size, f[3]))
    syms.sort()
    return syms


def load(run_dir):
    prof = {}
    path = os.path.join(run_dir, "profile.txt")
    if not os.path.exists(path):
        sys.exit("profile.py: %s: no profile.txt (run wsn-sim with --profile)" % run_dir)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if len(w) != 2:
                sys.exit("profile.py: %s:%d: expected '0xPC CYCLES'" % (path, n))
            prof[int(w[0], 16)] = int(w[1])
    with open(os.path.join(run_dir, "run.json")) as f:
        info = json.load(f)
    return prof, info


def by_function(elf, prof):
    syms = functions(elf)
    starts = [s[0] for s in syms]
    out = {}
    for pc, cyc in prof.items():
        i = bisect.bisect_right(starts, pc) - 1
        name = syms[i][2] if i >= 0 and pc < syms[i][1] else "(unknown)"
        out[name] = out.get(name, 0) + cyc
    return out


def kind(name):
    if name == "(unknown)":
        return name
    if name.startswith("__wsn") or name == "fold" or name.startswith("fold."):
        return "runtime"
    return "program"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf")
    ap.add_argument("run")
    ap.add_argument("--original", nargs=2, metavar=("ELF", "RUN"))
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    prof, info = load(a.run)
    traced = by_function(a.elf, prof)
    total = sum(traced.values())
    if total != info.get("active_cycles"):
        print("note: profile sums to %d, run.json active_cycles %s" % (
            total, info.get("active_cycles")))
    orig, scale = {}, 1.0
    if a.original:
        oprof, oinfo = load(a.original[1])
        orig = by_function(a.original[0], oprof)
        if info["cycles"] != oinfo["cycles"]:
            scale = oinfo["cycles"] / info["cycles"]
            print("note: traced run stopped at cycle %d (%s), original at %d: traced cycles "
                  "scaled by %.3f" % (info["cycles"], info.get("stop"), oinfo["cycles"], scale))
    t_scaled = {k: v * scale for k, v in traced.items()}
    names = set(t_scaled) | set(orig)
    rows = sorted(names, key=lambda n: -(t_scaled.get(n, 0) - orig.get(n, 0)))
    otot = sum(orig.values())
    ttot = sum(t_scaled.values())
    print("active cycles by function (traced%s)" % (" vs original" if orig else ""))
    print("%-52s %12s %12s %12s %7s" % ("function", "original", "traced", "added", "share"))
    print("-" * 99)
    added_all = ttot - otot
    for n in rows[:a.top]:
        o, t = orig.get(n, 0), t_scaled.get(n, 0)
        print("%-52s %12d %12d %12d %6.1f%%" % (n[:52], o, t, t - o,
                                                100.0 * (t - o) / added_all if added_all else 0))
    print("-" * 99)
    for k in ("runtime", "program", "(unknown)"):
        o = sum(v for n, v in orig.items() if kind(n) == k)
        t = sum(v for n, v in t_scaled.items() if kind(n) == k)
        if o or t:
            print("%-52s %12d %12d %12d %6.1f%%" % ("total " + k, o, t, t - o,
                                                    100.0 * (t - o) / added_all if added_all else 0))
    print("%-52s %12d %12d %12d" % ("total", otot, ttot, ttot - otot))
    if otot:
        print("active cycles traced/original: %.3f (%+.1f%%)" % (ttot / otot,
                                                                 100.0 * (ttot - otot) / otot))


if __name__ == "__main__":
    main()
