#!/usr/bin/env python3
"""Finds the first seed whose `wsn-sim net` run has the shape a network test needs, so the test
does not pin a seed that was right for one runtime's record timing only.

usage: pick-net-seed.py OUT FIRST LAST [conditions] -- WSN-SIM-NET-ARGS...

For each seed FIRST..LAST: `wsn-sim net WSN-SIM-NET-ARGS --seed S -o OUT`, then, when a
condition needs the trace selection, `wsn-replay net OUT --json [--deps FILE]`. The first seed
meeting every condition is kept in OUT and printed ("seed S"); none: a message naming the range,
exit 1. Conditions read the run's stop and the selection (thesis Algorithm 5), which the replay
computes from the traces before it replays anything; never whether the replay reproduced or what
it compared equal: the test judges that, strictly, on the seed chosen.
  --violation-node N     net.json: the run stopped at a violation detected by node N
  --selected K           exactly K nodes selected
  --min-selected K       at least K nodes selected
  --selects N            node N is among the selected nodes (repeatable)
  --messages K           exactly K messages followed (the selection's links)
  --payloads K           at least K of the messages checked across nodes had their payloads
                         compared (whatever the comparison found)
  --payload-bytes N      count only payloads of N bytes for --payloads (a message kind chosen
                         by its size, e.g. a reply rather than a request)
  --first-payload        the first message checked across nodes had its payload compared
  --no-checkpoint-after-recv
                         the start node's trace holds no CHECKPOINT between the first checked
                         message's RECV and the stop (its received bytes are then carried by
                         that RECV alone: no later checkpoint restates them)
  --deps FILE            passed to wsn-replay net (the R_OP used for the selection)"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def main():
    if "--" not in sys.argv:
        sys.exit(__doc__)
    cut = sys.argv.index("--")
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("out")
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--violation-node", type=int)
    ap.add_argument("--selected", type=int)
    ap.add_argument("--min-selected", type=int)
    ap.add_argument("--selects", type=int, action="append", default=[])
    ap.add_argument("--messages", type=int)
    ap.add_argument("--payloads", type=int)
    ap.add_argument("--payload-bytes", type=int)
    ap.add_argument("--first-payload", action="store_true")
    ap.add_argument("--no-checkpoint-after-recv", action="store_true")
    ap.add_argument("--deps")
    a = ap.parse_args(sys.argv[1:cut])
    sim_args = sys.argv[cut + 1:]
    needs_selection = (a.selected is not None or a.min_selected is not None or a.selects
                       or a.payloads is not None or a.first_payload
                       or a.messages is not None
                       or a.no_checkpoint_after_recv)
    why = {}
    for seed in range(a.first, a.last + 1):
        shutil.rmtree(a.out, ignore_errors=True)
        subprocess.run(["wsn-sim", "net"] + sim_args + ["--seed", str(seed), "-o", a.out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(a.out, "net.json")) as f:
            net = json.load(f)
        if a.violation_node is not None:
            v = net.get("violation") or {}
            if net.get("stop") != "violation" or v.get("node") != a.violation_node:
                why[seed] = "stop %s" % net.get("stop")
                continue
        if needs_selection:
            cmd = ["wsn-replay", "net", a.out, "--json"]
            if a.deps:
                cmd += ["--deps", a.deps]
            r = subprocess.run(cmd, capture_output=True, text=True)
            try:
                d = json.loads(r.stdout)
            except ValueError:
                sys.exit("seed %d: wsn-replay net printed no JSON (exit %d): %s"
                         % (seed, r.returncode, r.stderr.strip()))
            sel = d["selected"]
            payloads = sum(1 for m in d["messages"] if m.get("payload_checked") and
                           (a.payload_bytes is None or m.get("payload_bytes") == a.payload_bytes))
            if a.selected is not None and len(sel) != a.selected:
                why[seed] = "%d selected" % len(sel)
                continue
            if a.min_selected is not None and len(sel) < a.min_selected:
                why[seed] = "%d selected" % len(sel)
                continue
            if a.messages is not None and len(d["messages"]) != a.messages:
                why[seed] = "%d messages followed" % len(d["messages"])
                continue
            if any(n not in sel for n in a.selects):
                why[seed] = "selected %s" % sel
                continue
            if a.payloads is not None and payloads < a.payloads:
                why[seed] = "%d payloads compared" % payloads
                continue
            if a.first_payload and not (d["messages"] and d["messages"][0].get("payload_checked")):
                why[seed] = "first message's payload not compared"
                continue
            if a.no_checkpoint_after_recv and d["messages"]:
                recv = d["messages"][0]["recv_record"]
                trace = os.path.join(a.out, "node%d" % d["start_node"], "trace.wtr")
                dump = subprocess.run(["wsn-trace-dump", "--json", trace], check=True,
                                      capture_output=True, text=True)
                recs = json.loads(dump.stdout)["records"]
                cps = [i for i in range(recv, min(d["stop_record"], len(recs) - 1) + 1)
                       if recs[i]["kind"] == "CHECKPOINT"]
                if cps:
                    why[seed] = "CHECKPOINT at record %d after the RECV" % cps[0]
                    continue
        print("seed", seed)
        return
    sys.exit("no seed in %d-%d has the run this test needs (%s)" % (
        a.first, a.last, "; ".join("%d: %s" % kv for kv in sorted(why.items()))))


if __name__ == "__main__":
    main()
