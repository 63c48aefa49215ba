#!/usr/bin/env python3
"""Stops one firmware at every cycle bound of a range with wsn-sim --settle and replays each
trace with wsn-replay --expect-sram; prints how the snapshots were found and how many replays
passed.

usage: settle_scan.py FW OUTDIR FIRST LAST STEP [--around KEY:COARSE:BEFORE:AFTER]
                      [WSN-SIM-ARGS...]
FW is wsn-cc's output name (FW.elf, FW.replay.bc, FW.wmap). Prints
  settle KIND AFTER N  (run.json "settle" of the bound stops, AFTER: "ran" when the node ran
                       on past the bound, "at" when the snapshot is from the bound or before;
                       "ran past-checkpoint" when it ran on past a CHECKPOINT replay runs past,
                       run.json settle_past_checkpoint)
  replays N passed P
  failed BOUND: MESSAGE   (per failing bound)
--around KEY:COARSE:BEFORE:AFTER locates the stretch to scan by what happens there rather than
by cycle numbers, which move with every change to the runtime's record timing: bounds FIRST,
FIRST+COARSE, ... up to LAST are run (not replayed) until the first whose stop has the key KEY
(as printed above, e.g. "check at"; "K1>K2": the first K2 stop after a K1 stop); the scan is
then that bound -BEFORE .. +AFTER in steps of STEP ("located KEY at B" is printed; none found:
exit 1)."""
import json
import os
import subprocess
import sys


def stop(fw, d, bound, extra):
    """One --settle run stopped at the bound: run.json and the stop's key."""
    subprocess.run(["wsn-sim", "run", fw + ".elf", "--seed", "1", "--max-cycles", str(bound),
                    "--settle", "-o", d] + extra, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "run.json")) as f:
        info = json.load(f)
    key = "%s %s" % (info["settle"], "ran" if info["settle_cycles"] else "at")
    if info.get("settle_past_checkpoint"):
        key += " past-checkpoint"
    return info, key


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    fw, out = sys.argv[1:3]
    first, last, step = (int(a) for a in sys.argv[3:6])
    extra = sys.argv[6:]
    d = os.path.join(out, "b")
    if extra[:1] == ["--around"]:
        want, coarse, before, after = extra[1].rsplit(":", 3)
        extra = extra[2:]
        seq, at = want.split(">"), None
        for b in range(first, last + 1, int(coarse)):
            if stop(fw, d, b, extra)[1] == seq[0]:
                seq.pop(0)
                if not seq:
                    at = b
                    break
        if at is None:
            sys.exit("no stop '%s' in bounds %d-%d (step %s)" % (want, first, last, coarse))
        print("located", want, "at", at)
        first, last = at - int(before), at + int(after)
    kinds, passed, tried, failed = {}, 0, 0, []
    for b in range(first, last + 1, step):
        info, key = stop(fw, d, b, extra)
        k = info["settle"]
        kinds[key] = kinds.get(key, 0) + 1
        if k not in ("record", "sleep", "check"):
            continue  # no point replay can name: the harnesses move such a bound
        tried += 1
        r = subprocess.run(["wsn-replay", fw + ".replay.bc", "--trace",
                            os.path.join(d, "trace.wtr"), "--elf", fw + ".elf", "--map",
                            fw + ".wmap", "--expect-sram", os.path.join(d, "sram.bin"),
                            "--json"], capture_output=True, text=True)
        doc = json.loads(r.stdout)
        if r.returncode == 0 and doc["compare"]["globals"] and not doc["compare"]["differ"]:
            passed += 1
        else:
            failed.append("failed %d: %s %s" % (b, doc.get("message"),
                                                "; ".join(doc["compare"]["mismatches"])))
    for k in sorted(kinds):
        print("settle", k, kinds[k])
    print("replays", tried, "passed", passed)
    for f in failed:
        print(f)


if __name__ == "__main__":
    main()
