#!/usr/bin/env python3
"""Differential check of wsn-sim --bound-moves against the loop it replaces: one wsn-sim run
per candidate bound, judged with bench/fidelity/tracetail.py (wsn-trace-dump's records).

usage: bound_moves_check.py WSN_SRC FW OUTDIR FIRST LAST STEP MOVES END [WSN-SIM-ARGS...]
For every first bound B in range(FIRST, LAST + 1, STEP): the reference loop runs wsn-sim
--settle at B, B + 997, ... (at most MOVES moves, none to a bound whose next move reaches END)
and stops at the first bound whose trace has its violation flag set or that replay can end at
(settle not "interrupt", a header and a CHECKPOINT, not inside a skipped call, not right after
a CHECK, not inside a handler); then one `wsn-sim --bound-moves MOVES --bound-step 997
--bound-end END` run starts at B. Both must end at the same bound for the same reason, report
the same flags for the last bound passed over, and write the same trace.wtr and sram.bin (and
run.json apart from bound_search). Prints
  starts N agree A
  end KIND N           (how the searches ended)
  moved N              (searches that moved at least once)
  passed-over REASON N (the reasons of every bound passed over, reference loop)
  differ B: WHAT       (per disagreement)"""
import filecmp
import json
import os
import subprocess
import sys

STEP = 997


def sim(fw, out, bound, extra, more=()):
    subprocess.run(["wsn-sim", "run", fw + ".elf", "--seed", "1", "--max-cycles", str(bound),
                    "--settle", "-o", out] + list(more) + extra, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


def reference(tracetail, fw, out, b, moves, end, extra, reasons):
    """The harness's loop of separate runs: (end, bound, moves, last rejected flags)."""
    rejected = None
    for m in range(moves + 1):
        info = sim(fw, out, b, extra)
        trace = os.path.join(out, "trace.wtr")
        hdr = tracetail.header(trace)
        if hdr is not None and (hdr[18] | hdr[19] << 8) & 2:
            return "violation", b, m, rejected
        if end and b + STEP >= end:
            return "limit", b, m, rejected
        has_cp, in_skip, at_check, in_handler = tracetail.tail_state("wsn-trace-dump", trace, 60)
        if hdr is None:
            has_cp = False
        interrupt = info.get("settle") == "interrupt"
        if not interrupt and has_cp and not in_skip and not at_check and not in_handler:
            return "found", b, m, rejected
        rejected = {"after_check": at_check, "in_handler": in_handler,
                    "before_first_checkpoint": not has_cp, "in_skipped_call": in_skip}
        for name, why in (("interrupt", interrupt), ("no-checkpoint", not has_cp),
                          ("skipped-call", in_skip), ("after-check", at_check),
                          ("in-handler", in_handler)):
            if why:
                reasons[name] = reasons.get(name, 0) + 1
        if m == moves:
            return "moves", b, m, rejected
        b += STEP


def main():
    if len(sys.argv) < 9:
        sys.exit(__doc__)
    src, fw, out = sys.argv[1:4]
    first, last, step, moves, end = (int(a) for a in sys.argv[4:9])
    extra = sys.argv[9:]
    sys.path.insert(0, os.path.join(src, "bench", "fidelity"))
    import tracetail
    ref_dir, srch_dir = os.path.join(out, "ref"), os.path.join(out, "search")
    starts = agree = moved = 0
    ends, reasons, differ = {}, {}, []
    for b in range(first, last + 1, step):
        starts += 1
        want = reference(tracetail, fw, ref_dir, b, moves, end, extra, reasons)
        info = sim(fw, srch_dir, b, extra, ["--bound-moves", str(moves), "--bound-step",
                                            str(STEP), "--bound-end", str(end)])
        s = info.pop("bound_search", {})
        got = (s.get("end"), s.get("cycle"), s.get("moves"), s.get("last_rejected"))
        problems = []
        if got != want:
            problems.append("search %r, reference %r" % (got, want))
        for f in ("trace.wtr", "sram.bin"):
            if not filecmp.cmp(os.path.join(ref_dir, f), os.path.join(srch_dir, f),
                               shallow=False):
                problems.append(f + " differs")
        with open(os.path.join(ref_dir, "run.json")) as f:
            if json.load(f) != info:
                problems.append("run.json differs")
        if problems:
            differ.append("differ %d: %s" % (b, "; ".join(problems)))
        else:
            agree += 1
        ends[want[0]] = ends.get(want[0], 0) + 1
        moved += want[2] > 0
    print("starts", starts, "agree", agree)
    for k in sorted(ends):
        print("end", k, ends[k])
    print("moved", moved)
    for k in sorted(reasons):
        print("passed-over", k, reasons[k])
    for d in differ:
        print(d)


if __name__ == "__main__":
    main()
