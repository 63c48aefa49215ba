#!/usr/bin/env python3
"""Stops check-padding's program at the first check of FIRST..LAST that is a check of invariant
INV (whose inputs hold PadC$copy) and whose PadC$copy hole holds different bytes on the mote
and in replay, so that the test exercises the hole without pinning
a check number that one runtime's code layout gave (which stale stack byte the hole holds
depends on where the runtime's code and frames lie).

usage: pick-hole-check.py FW OUTDIR FIRST LAST INV

For each K: wsn-sim run FW.elf --seed 1 --stop-after-checks K -o OUTDIR/run; when the trace's
last record (wsn-trace-dump) is a CHECK of invariant INV, wsn-replay
--stop-after-checks K --expect-sram --print-layout --dump-mem OUTDIR/mem > OUTDIR/out.txt, and
the hole is compared (hole-bytes.py). The first K whose hole differs is left in OUTDIR and
printed ("check K"); the replay's verdict is not looked at (the test judges it). None: exit 1."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    fw, out = sys.argv[1:3]
    first, last, inv = (int(a) for a in sys.argv[3:6])
    run, mem, txt = (os.path.join(out, n) for n in ("run", "mem", "out.txt"))
    seen = []
    for k in range(first, last + 1):
        shutil.rmtree(run, ignore_errors=True)
        subprocess.run(["wsn-sim", "run", fw + ".elf", "--seed", "1", "-o", run,
                        "--stop-after-checks", str(k), "--max-cycles", "20000000"],
                       check=True, stdout=subprocess.DEVNULL)
        dump = subprocess.run(["wsn-trace-dump", "--json", os.path.join(run, "trace.wtr")],
                              check=True, capture_output=True, text=True)
        last_rec = (json.loads(dump.stdout)["records"] or [{}])[-1]
        if last_rec.get("kind") != "CHECK" or last_rec.get("inv") != inv:
            seen.append("%d: not a check of invariant %d" % (k, inv))
            continue
        with open(txt, "w") as f:
            subprocess.run(["wsn-replay", fw + ".replay.bc", "--trace",
                            os.path.join(run, "trace.wtr"), "--elf", fw + ".elf", "--map",
                            fw + ".wmap", "--expect-sram", os.path.join(run, "sram.bin"),
                            "--stop-after-checks", str(k), "--print-layout", "--dump-mem", mem],
                           stdout=f)
        hole = subprocess.run([sys.executable, os.path.join(HERE, "hole-bytes.py"), txt,
                               os.path.join(run, "sram.bin"), mem],
                              capture_output=True, text=True)
        if "differ: yes" in hole.stdout:
            print("check", k)
            return
        seen.append("%d: %s" % (k, hole.stdout.strip().splitlines()[-1] if hole.stdout.strip()
                                else hole.stderr.strip()))
    sys.exit("no check in %d-%d leaves different bytes in the hole (%s)" % (
        first, last, "; ".join(seen)))


if __name__ == "__main__":
    main()
