"""Prints, for each trace map given, how many skipped call sites it has and the callees of its
effect records (sorted, '-' for none): one line per map, named by its file name."""
import json
import os
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        m = json.load(f)
    effects = sorted({e["callee"] for e in m["effects"]})
    skips = sum(1 for s in m.get("sites", []) if s["kind"] == "skip")
    print("%s: skips %d; effects %s" % (os.path.basename(path), skips, " ".join(effects) or "-"))
