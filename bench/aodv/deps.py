#!/usr/bin/env python3
"""R_OP for examples/aodv/aodv.c's invariants, as wsn-replay net --deps takes it.

    deps.py FW.wmap -o DEPS.json

Thesis section 5.1: an invariant's R_OP lists the receive statements whose messages' bytes
may reach the variables the invariant reads (<R_ID, x>: at most x consecutive messages
received there). Read from aodv.c's data flow: link_creation, data_interval, data_delivery
and rreq_arrival read counters and clock values that no byte of a message reaches (messages
only decide whether they change), so their R_OP is NULL; rreq_hop_count reads the hop byte of
the RREQ just received (x = 1). Send sites are left out: aodv.c has one, and the frames it
sends (RREQ, RREP, DATA, forwarded or not) depend on different receptions, so the
conservative rule (every RECV since the checkpoint) applies to them. The ids come from the
build's trace map (spec/trace-map.md); the format is spec/replay-log.md section 3's.
"""
import argparse
import json
import sys

INVARIANT_ROP = {
    "wsn_invariant_link_creation": [],
    "wsn_invariant_data_interval": [],
    "wsn_invariant_data_delivery": [],
    "wsn_invariant_rreq_arrival": [],
    "wsn_invariant_rreq_hop_count": [1],
}


def dependences(wmap_path):
    wmap = json.load(open(wmap_path))
    recv = [s["id"] for s in wmap["sites"] if s["kind"] == "recv"]
    if len(recv) != 1:
        raise SystemExit("deps.py: %s: expected one RECV site, found %d" % (wmap_path, len(recv)))
    invs = {}
    for inv in wmap["invariants"]:
        rop = INVARIANT_ROP.get(inv["function"])
        if rop is None:
            raise SystemExit("deps.py: %s: no R_OP known for %s" % (wmap_path, inv["function"]))
        invs[str(inv["id"])] = [{"recv": recv[0], "x": x} for x in rop]
    return {"sends": {}, "invariants": invs}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmap")
    ap.add_argument("-o", required=True)
    a = ap.parse_args(argv)
    with open(a.o, "w") as f:
        json.dump(dependences(a.wmap), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
