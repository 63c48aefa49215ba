"""Prints the effects of a trace map (.wmap), one line each: the skipped call's function and
line, the callee and the variables the effect record holds."""
import json
import sys

m = json.load(open(sys.argv[1]))
sites = {s["id"]: s for s in m["sites"]}
for e in m["effects"]:
    s = sites[e["site"]]
    print("effect in %s line %d: %s writes %s" % (s["function"], s["line"], e["callee"],
                                                   " ".join(w["name"] for w in e["writes"])))
