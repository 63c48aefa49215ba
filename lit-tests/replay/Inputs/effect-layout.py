"""effect-layout.py MAP CALLEE: the globals of the callee's effect in the trace map (.wmap), in
the whole record's order and in the short form's, and how many names the whole record lists
more than once."""
import json
import sys

m = json.load(open(sys.argv[1]))
for e in m["effects"]:
    if e["callee"] != sys.argv[2]:
        continue
    names = [w["name"] for w in e["writes"]]
    short = e.get("short")
    print("whole: " + " ".join(names))
    print("short: " + (" ".join(names[i] for i in short) if short is not None else "none"))
    print("repeated: %d" % (len(names) - len(set(names))))
