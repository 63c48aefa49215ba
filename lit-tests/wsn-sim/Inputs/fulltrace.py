"""Checks a wsn-sim --full-trace capture against the ring of the same run.

  fulltrace.py DUMP RUNDIR MAP

Decodes RUNDIR/full/*.wtr in order with wsn-trace-dump --json and prints: the number of chunk
files, whether every chunk is an unwrapped trace, the records and CHECK/VIOLATION records in
the capture, and whether its last records equal the records of the ring (RUNDIR/trace.wtr),
field for field apart from their offsets and call depth; then the last chunk's header: its
check count and whether it says a record is open.
"""
import json
import os
import subprocess
import sys

dump, rundir, wmap = sys.argv[1:4]


def decode(path):
    p = subprocess.run([dump, "--json", path, "--map", wmap], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        sys.exit("%s: %s" % (path, p.stderr.strip()))
    return json.loads(p.stdout)


names = sorted(os.listdir(os.path.join(rundir, "full")))
recs, unwrapped = [], True
for n in names:
    d = decode(os.path.join(rundir, "full", n))
    unwrapped &= d["header"]["wraps"] == 0
    recs += d["records"]
ring = decode(os.path.join(rundir, "trace.wtr"))
# Where a record lies, and its call depth (counted from where decoding began: the capture
# starts at reset, the ring mid-run), are readings, not fields of the record.
POS = ("offset", "segment", "ring_offset", "tail_offset", "depth")


def key(r):
    return {k: v for k, v in r.items() if k not in POS}


tail = recs[len(recs) - len(ring["records"]):]
print("chunks %d, unwrapped %s, ring wraps %d" % (len(names), unwrapped, ring["header"]["wraps"]))
print("records %d, checks %d" % (len(recs), sum(r["kind"] in ("CHECK", "VIOLATION")
                                                 for r in recs)))
print("first %s, tail equals ring: %s" % (recs[0]["kind"] if recs else "-",
                                          [key(r) for r in tail] ==
                                          [key(r) for r in ring["records"]]))
print("last chunk's header: checks %d, open record %s" % (d["header"]["checks"],
                                                         d["header"]["open_record"]))
