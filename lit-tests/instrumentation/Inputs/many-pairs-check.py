"""Checks the trace of Inputs/many-pairs.c: every EFFECT of `show` and every CHECKPOINT holds
g100..g399 as the program wrote them (g<n> = v + n modulo 256, one v per record; all 0 at
boot), so tables of
more than 255 pairs list every variable. Prints one line per record kind, or exits 1."""
import json
import subprocess
import sys

dump, wmap, trace = sys.argv[1:4]
m = json.load(open(wmap))
recs = json.loads(subprocess.run([dump, "--json", trace], stdout=subprocess.PIPE, text=True,
                                 check=True).stdout)["records"]


def layout(vars_):
    """{n: offset of g<n> in the payload} for a map variable list."""
    at, off = {}, 0
    for v in vars_:
        if v["name"].startswith("g") and v["name"][1:].isdigit():
            at[int(v["name"][1:])] = off
        off += v["size"]
    return at


def consistent(kind, payload, at):
    if sorted(at) != list(range(100, 400)):
        sys.exit("%s lists %d of g100..g399" % (kind, len(at)))
    if not any(payload[at[n]] for n in at):
        return  # before the first call of show (a checkpoint at boot)
    v = (payload[at[100]] - 100) % 256
    bad = [n for n in at if payload[at[n]] != (v + n) % 256]
    if bad:
        sys.exit("%s: g%d is 0x%02x, not 0x%02x (%d of 300 wrong)" % (
            kind, bad[0], payload[at[bad[0]]], (v + bad[0]) % 256, len(bad)))


effect = next(e for e in m["effects"] if len(e["writes"]) == 300)
anchor = m["anchors"][0]
seen = {"EFFECT": 0, "CHECKPOINT": 0}
for r in recs:
    payload = bytes.fromhex(r.get("bytes", "").replace(" ", ""))
    if r["kind"] == "EFFECT" and len(payload) == 300:
        consistent("EFFECT at %d" % r["offset"], payload, layout(effect["writes"]))
        seen["EFFECT"] += 1
    elif r["kind"] == "CHECKPOINT":
        consistent("CHECKPOINT at %d" % r["offset"], payload, layout(anchor["vars"]))
        seen["CHECKPOINT"] += 1
for k, n in sorted(seen.items()):
    print("%s %s" % (k, "ok" if n else "missing"))
