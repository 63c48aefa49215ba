#!/usr/bin/env python3
"""Scaling benchmark of the wsn-pfdg analysis (spec/analysis.md).

Generates AVR modules shaped like nesC output (components of ~10 functions with
their own globals, a mostly tree-shaped call graph where most functions have
one caller, a scheduler loop in main, a few invariants and interrupt handlers),
then times `opt -passes=wsn-pfdg` against `opt -O2` on the same bitcode and
prints a table. Targets: the analysis no slower than -O2, near-linear growth.

usage: run.py [--build DIR] [--sizes 5000,10000,20000] [--seed N] [--keep DIR]
              [--repeat N] [--check] [--stats] [--instructions]
The last lines state whether the two targets hold: per-function time ratio
(largest/smallest size) <= 1.5, and wsn-pfdg no slower than -O2.
--instructions adds, per size, the instructions opt executes (valgrind's
callgrind, one run each: independent of machine load) for parsing and for
wsn-pfdg, and the per-function ratio of the net instructions (wsn-pfdg minus
parse) as a second, load-independent reading of the near-linear target; the
verdict lines above keep their meaning (CPU time).
--stats adds, per size, how Algorithm 3 treated the dependence pairs (one
untimed run with -wsn-pfdg-stats): rule-2 pairs, closest common ancestors per
rule-2 pair, edges drawn per rule-2 pair, the distinct dependence edges, and
how many closest common ancestors needed the searches or the two-path flow
against how many of those were left out as redundant (every edge they could
draw already in the result).
"""
import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile

LLVM = "/usr/lib/llvm-19/bin"
HERE = os.path.dirname(os.path.abspath(__file__))
# Near-linear: the per-function analysis time at the largest size is at most
# this many times the one at the smallest size.
LINEAR_LIMIT = 1.5


def generate(n, seed):
    rnd = random.Random(seed)
    comp_size = 10
    ncomp = max(1, n // comp_size)
    out = ['target datalayout = "e-P1-p:16:8-i8:8-i16:8-i32:8-i64:8-f32:8-f64:8-n8-a:8"',
           'target triple = "avr"', ""]
    for c in range(ncomp):
        for k in range(3):
            out.append(f"@C{c}$g{k} = global i16 0")
    out.append("")
    # Call tree: function i (i >= 1) gets a parent among earlier functions,
    # preferring its own component's first function; 30% get a second caller.
    callees = [[] for _ in range(n)]
    for i in range(1, n):
        comp = i // comp_size
        if i % comp_size == 0:
            parent = rnd.randrange(0, i)  # component entry: called from elsewhere
        else:
            parent = comp * comp_size + rnd.randrange(0, i % comp_size)
        callees[parent].append(i)
        if rnd.random() < 0.3:
            extra = rnd.randrange(0, i)
            if i not in callees[extra]:
                callees[extra].append(i)
    invariants = 4
    inv_callers = rnd.sample(range(n // 4, n // 2), invariants)
    for j in range(invariants):
        ca, cb = rnd.randrange(ncomp), rnd.randrange(ncomp)
        out.append(f"define zeroext i1 @wsn_invariant_{j}() {{")
        out.append(f"  %a = load i16, ptr @C{ca}$g0")
        out.append(f"  %b = load i16, ptr @C{cb}$g1")
        out.append("  %s = add i16 %a, %b")
        out.append("  %c = icmp ult i16 %s, 1000")
        out.append("  ret i1 %c")
        out.append("}")
    for i in range(n):
        comp = i // comp_size
        rc = comp if rnd.random() < 0.85 else rnd.randrange(ncomp)
        rg, wg = rnd.randrange(3), rnd.randrange(3)
        out.append(f"define void @C{comp}$f{i}(i16 %x) {{")
        out.append("entry:")
        out.append(f"  %a = load i16, ptr @C{rc}$g{rg}")
        out.append("  %b = add i16 %a, %x")
        out.append(f"  store i16 %b, ptr @C{comp}$g{wg}")
        out.append("  %c = icmp ult i16 %b, 100")
        out.append("  br i1 %c, label %then, label %done")
        out.append("then:")
        half = len(callees[i]) // 2
        for t in callees[i][:half]:
            out.append(f"  call void @C{t // comp_size}$f{t}(i16 %b)")
        out.append("  br label %done")
        out.append("done:")
        for t in callees[i][half:]:
            out.append(f"  call void @C{t // comp_size}$f{t}(i16 %a)")
        for j, c in enumerate(inv_callers):
            if c == i:
                out.append(f"  %ok{j} = call zeroext i1 @wsn_invariant_{j}()")
                out.append(f"  %z{j} = zext i1 %ok{j} to i8")
                out.append(f"  store volatile i8 %z{j}, ptr @check_slot")
        out.append("  ret void")
        out.append("}")
    out.append("@check_slot = global i8 0")
    for h in range(5):
        c = rnd.randrange(ncomp)
        out.append(f"define void @__vector_{h + 1}() #0 {{")
        out.append(f"  %v = load volatile i8, ptr inttoptr (i16 {0x30 + h} to ptr)")
        out.append("  %w = zext i8 %v to i16")
        out.append(f"  store i16 %w, ptr @C{c}$g{rnd.randrange(3)}")
        out.append("  ret void")
        out.append("}")
    out.append("define i16 @main() {")
    out.append("entry:")
    out.append("  br label %loop")
    out.append("loop:")
    out.append("  call void @C0$f0(i16 1)")
    out.append("  br label %loop")
    out.append("}")
    out.append('attributes #0 = { "signal" }')
    return "\n".join(out) + "\n"


def timed(cmd):
    # CPU time (user + sys) of the child: the machine may be shared, wall time is noisy.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return dt


def instructions(cmd):
    # Instructions executed by cmd under callgrind (its "Collected" total).
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                       + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = next((l for l in r.stderr.splitlines() if "Collected :" in l), None)
    if r.returncode != 0 or line is None:
        sys.exit(f"callgrind failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return int(line.split(":")[-1].strip())


def stats(plugin, bc):
    r = subprocess.run([f"{LLVM}/opt", f"-load-pass-plugin={plugin}", "-passes=wsn-pfdg",
                        "-wsn-pfdg-stats", "-disable-output", bc],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = next((l for l in r.stderr.splitlines() if l.startswith("wsn-pfdg-stats:")), None)
    if r.returncode != 0 or line is None:
        sys.exit(f"wsn-pfdg -wsn-pfdg-stats failed on {bc} ({r.returncode}):\n{r.stderr}")
    return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"),
                    help="build directory holding lib/WSNTrace.so")
    ap.add_argument("--sizes", default="5000,10000,20000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep generated modules in this directory")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each measurement N times and keep the fastest")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless both targets hold")
    ap.add_argument("--stats", action="store_true",
                    help="also print how the PFDG was built at each size")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions with callgrind (needs valgrind)")
    args = ap.parse_args()
    plugin = os.path.join(args.build, "lib", "WSNTrace.so")
    if not os.path.exists(plugin):
        sys.exit(f"error: {plugin} not found (build the WSNTrace target, or pass --build)")
    sizes = [int(s) for s in args.sizes.split(",")]
    work = args.keep or tempfile.mkdtemp(prefix="pfdg-scale-")
    os.makedirs(work, exist_ok=True)
    print("CPU seconds (user+sys) of opt on the same bitcode; 'parse' is -passes=verify;")
    print("'net' is wsn-pfdg minus parse; per-function times are net / functions")
    print(f"{'functions':>9} {'parse s':>8} {'wsn-pfdg s':>10} {'net s':>7} {'-O2 s':>8} "
          f"{'pfdg/O2':>8} {'ms/1k fn':>9}")
    rows = []
    for n in sizes:
        ll = os.path.join(work, f"m{n}.ll")
        bc = os.path.join(work, f"m{n}.bc")
        with open(ll, "w") as f:
            f.write(generate(n, args.seed))
        subprocess.run([f"{LLVM}/llvm-as", ll, "-o", bc], check=True)
        base = [f"{LLVM}/opt", "-disable-output", bc]
        # Best of --repeat runs: the machine may be shared, the minimum is
        # the least disturbed measurement.
        parse = min(timed(base + ["-passes=verify"]) for _ in range(args.repeat))
        pfdg = min(timed([f"{LLVM}/opt", f"-load-pass-plugin={plugin}",
                          "-passes=wsn-pfdg", "-disable-output", bc])
                   for _ in range(args.repeat))
        o2 = min(timed(base + ["-passes=default<O2>"]) for _ in range(args.repeat))
        net = max(pfdg - parse, 0.0)
        per_fn = 1000 * net / (n / 1000)
        rows.append((n, pfdg, o2, per_fn))
        print(f"{n:>9} {parse:>8.2f} {pfdg:>10.2f} {net:>7.2f} {o2:>8.2f} "
              f"{pfdg / o2:>8.2f} {per_fn:>9.1f}", flush=True)
    if args.instructions:
        print("Instructions (callgrind, millions) of opt on the same bitcode; 'net' is "
              "wsn-pfdg minus parse")
        print(f"{'functions':>9} {'parse M':>9} {'wsn-pfdg M':>11} {'net M':>9} "
              f"{'M/1k fn':>9}")
        irows = []
        for n in sizes:
            bc = os.path.join(work, f"m{n}.bc")
            parse = instructions([f"{LLVM}/opt", "-disable-output", "-passes=verify", bc])
            pfdg = instructions([f"{LLVM}/opt", f"-load-pass-plugin={plugin}",
                                 "-passes=wsn-pfdg", "-disable-output", bc])
            net = max(pfdg - parse, 0)
            irows.append((n, net / n))
            print(f"{n:>9} {parse / 1e6:>9.1f} {pfdg / 1e6:>11.1f} {net / 1e6:>9.1f} "
                  f"{net / 1e6 / (n / 1000):>9.2f}", flush=True)
        if len(irows) >= 2:
            (n0, f0), (n1, f1) = irows[0], irows[-1]
            ratio = f1 / f0 if f0 > 0 else float("inf")
            print(f"per-function instructions {n1}/{n0}: {ratio:.2f} (near-linear means <= "
                  f"{LINEAR_LIMIT}): {'yes' if ratio <= LINEAR_LIMIT else 'NO'}")
    if args.stats:
        print("Algorithm 3 work (-wsn-pfdg-stats): rule-2 pairs, closest common ancestors "
              "and edges drawn per rule-2 pair, distinct dependence edges; closest common "
              "ancestors drawn by searches or the flow, and left out as redundant")
        print(f"{'functions':>9} {'rule-2':>8} {'CCA/pair':>9} {'drawn/pair':>11} {'dep edges':>10} "
              f"{'search+flow':>12} {'skipped':>8}")
        for n in sizes:
            st = stats(plugin, os.path.join(work, f"m{n}.bc"))
            r2 = max(st["fast"] + st["fallback"], 1)
            skipped = st.get("skipped_ccas", 0)
            cca = st["cca_tree"] + st["cca_search"] + st["cca_flow"] + skipped
            print(f"{n:>9} {r2:>8} {cca / r2:>9.1f} {st['chain_edges'] / r2:>11.1f} "
                  f"{st['dependence_edges']:>10} {st['cca_search'] + st['cca_flow']:>12} "
                  f"{skipped:>8}", flush=True)
    ok = True
    if len(rows) >= 2:
        (n0, _, _, f0), (n1, _, _, f1) = rows[0], rows[-1]
        ratio = f1 / f0 if f0 > 0 else float("inf")
        linear = ratio <= LINEAR_LIMIT
        ok &= linear
        print(f"per-function time {n1}/{n0}: {ratio:.2f} (near-linear means <= "
              f"{LINEAR_LIMIT}): {'yes' if linear else 'NO'}")
    slower = [n for (n, p, o, _) in rows if p > o]
    ok &= not slower
    print("wsn-pfdg no slower than -O2 at every size: " +
          ("yes" if not slower else "NO (" + ", ".join(map(str, slower)) + ")"))
    if not args.keep:
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        os.rmdir(work)
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
