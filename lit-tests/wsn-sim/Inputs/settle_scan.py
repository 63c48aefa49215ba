#!/usr/bin/env python3
"""Stops one firmware at every cycle bound of a range with wsn-sim --settle and replays each
trace with wsn-replay --expect-sram; prints how the snapshots were found and how many replays
passed.

usage: settle_scan.py FW OUTDIR FIRST LAST STEP [WSN-SIM-ARGS...]
FW is wsn-cc's output name (FW.elf, FW.replay.bc, FW.wmap). Prints
  settle KIND AFTER N  (run.json "settle" of the bound stops, AFTER: "ran" when the node ran
                       on past the bound, "at" when the snapshot is from the bound or before)
  replays N passed P
  failed BOUND: MESSAGE   (per failing bound)"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    fw, out = sys.argv[1:3]
    first, last, step = (int(a) for a in sys.argv[3:6])
    extra = sys.argv[6:]
    kinds, passed, tried, failed = {}, 0, 0, []
    d = os.path.join(out, "b")
    for b in range(first, last + 1, step):
        subprocess.run(["wsn-sim", "run", fw + ".elf", "--seed", "1", "--max-cycles", str(b),
                        "--settle", "-o", d] + extra, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(d, "run.json")) as f:
            info = json.load(f)
        k = info["settle"]
        key = "%s %s" % (k, "ran" if info["settle_cycles"] else "at")
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
