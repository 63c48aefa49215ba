"""effect-kinds.py DUMP-JSON: how many EFFECT records of a trace (wsn-trace-dump --json) were
written without their zero bytes (EFFECT_Z, spec/trace-format.md 3.6), how many of those in
their span form, and how many otherwise."""
import json
import sys

e = [r for r in json.load(open(sys.argv[1]))["records"] if r["kind"] == "EFFECT"]
z = [r for r in e if r.get("packed")]
print("packed %d, packed span %d, other %d" % (len(z), sum(1 for r in z if r.get("span")),
                                               len(e) - len(z)))
