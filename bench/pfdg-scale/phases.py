#!/usr/bin/env python3
"""Inclusive instructions per phase of the wsn-pfdg analysis, at two sizes.

Reads two callgrind output files of `opt -load-pass-plugin=... -passes=wsn-pfdg`
on the bench's modules (run.py --keep DIR writes them; run opt under
`valgrind --tool=callgrind --callgrind-out-file=FILE`) and prints, per phase,
the inclusive instructions at each size and the per-function ratio
(cost at the larger size / cost at the smaller / size ratio): above 1 a phase
grows faster than the program.

usage: phases.py SMALL.out N_SMALL LARGE.out N_LARGE

Inclusive cost of a function = its own instructions plus those of the calls it
makes to other functions, summed over every file its code was inlined from
(callgrind_annotate splits a function by source file).
"""
import collections
import re
import sys

PHASES = [
    ("computePfdg (whole analysis)", "wsn::computePfdg("),
    ("ModuleModel ctor", "wsn::ModuleModel::ModuleModel("),
    ("computeSlice", "wsn::computeSlice("),
    ("  PostDominatorTree (slice)",
     "void llvm::DomTreeBuilder::Calculate<llvm::DominatorTreeBase<llvm::BasicBlock, true>"),
    ("transitiveMod", "wsn::ModuleModel::transitiveMod("),
    ("transitiveRef", "wsn::ModuleModel::transitiveRef("),
    ("DominatorTree (LoopInfo, AA)",
     "void llvm::DomTreeBuilder::Calculate<llvm::DominatorTreeBase<llvm::BasicBlock, false>"),
    ("decideInlining", "wsn::decideInlining("),
    ("PfdgGraph::buildImpl", "wsn::PfdgGraph::buildImpl("),
    ("  ChainFinder::run", "wsn::PfdgGraph::ChainFinder::run("),
    ("    tree()", "wsn::PfdgGraph::ChainFinder::tree("),
    ("    ensureTopo", "wsn::PfdgGraph::ChainFinder::ensureTopo("),
    ("    ensureBad", "wsn::PfdgGraph::ChainFinder::ensureBad("),
    ("    ensureDoms", "wsn::PfdgGraph::ChainFinder::ensureDoms("),
    ("    flowChains", "wsn::PfdgGraph::ChainFinder::flowChains("),
    ("    redundant", "wsn::PfdgGraph::ChainFinder::redundant("),
    ("  computeLevels", "wsn::PfdgGraph::computeLevels("),
    ("select", "wsn::PfdgGraph::select("),
    ("isBoundary", "wsn::PfdgGraph::isBoundary("),
]


def inclusive(path):
    """Inclusive cost per function name (file-independent)."""
    names = {}
    own = collections.Counter()
    calls = collections.Counter()
    fn = cfn = None
    pending = False

    def name(s):
        m = re.match(r"\((\d+)\)(?: (.*))?", s)
        if not m:
            return s
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                cfn = name(line[4:])
            elif line.startswith("calls="):
                pending = True
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if len(parts) < 2:
                    continue
                cost = int(parts[1])
                if pending:
                    if cfn != fn:
                        calls[fn] += cost
                    pending = False
                else:
                    own[fn] += cost
    incl = collections.Counter(own)
    for f, c in calls.items():
        incl[f] += c
    return incl


def phase_cost(incl, prefix):
    # The outermost instance: recursion levels ('2) and lambdas are inside it.
    return max((c for k, c in incl.items() if k.startswith(prefix)), default=0)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    small, n_small, large, n_large = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    a, b = inclusive(small), inclusive(large)
    print(f"| phase | {n_small} (M instr.) | {n_large} (M instr.) | per-function ratio |")
    print("|---|---|---|---|")
    for label, prefix in PHASES:
        x, y = phase_cost(a, prefix), phase_cost(b, prefix)
        ratio = f"{(y / x) / (n_large / n_small):.2f}" if x else "-"
        print(f"| {label} | {x / 1e6:,.1f} | {y / 1e6:,.1f} | {ratio} |")


if __name__ == "__main__":
    main()
