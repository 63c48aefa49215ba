"""effect-forms.py MAP DUMP-JSON: for every effect of the trace map (.wmap), its line, callee,
how many globals the short form holds (or 'whole' without one), and how many EFFECT records
of the trace (wsn-trace-dump --json) have the short and the whole length."""
import json
import sys

m = json.load(open(sys.argv[1]))
recs = json.load(open(sys.argv[2]))["records"]
sites = {s["id"]: s for s in m["sites"]}
for e in m["effects"]:
    whole = e["return_size"] + sum(w["size"] for w in e["writes"])
    k = e.get("short")
    short = e["return_size"] + sum(e["writes"][i]["size"] for i in k) if k is not None else None
    sizes = [r["size"] for r in recs if r["kind"] == "EFFECT" and r["site"] == e["site"]]
    # a record's size counts its tag, site and length fields: compare payload lengths
    lens = [r.get("len", len(bytes.fromhex(r.get("bytes", "")))) for r in recs
            if r["kind"] == "EFFECT" and r["site"] == e["site"]]
    other = [n for n in lens if n not in (whole, short)]
    print("effect line %d %s: short %s, %d short records, %d whole records, %d other" % (
        sites[e["site"]]["line"], e["callee"], len(k) if k is not None else "none",
        sum(1 for n in lens if short is not None and n == short and n != whole),
        sum(1 for n in lens if n == whole), len(other)))
