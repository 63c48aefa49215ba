#!/usr/bin/env python3
"""Checks a wsn-replay net --timeline file against the fields the Trace Event Format (the
JSON format Chrome's about:tracing and Perfetto load) documents for the phases it uses, and
prints a summary. Exit 1 naming the first event that breaks a rule.

Rules (per phase): every event has "ph", integer "pid" and "tid"; all but metadata ("M") a
numeric "ts" (microseconds); B/X/i/s/f/M a string "name"; "X" a numeric "dur" >= 0; "i" a
scope "s" in g/p/t; flow events "s"/"f" an "id" and a "cat", "f" with binding point "bp" "e"
(enclosing slice); "M" one of the documented metadata names with an "args" object. Besides:
B/E nest per (pid, tid) in file order with non-decreasing ts; every flow id has exactly one
start and one finish, the finish not before the start; each flow end is bound to a slice of
the same pid, tid, cat and ts (how viewers attach flows to slices)."""
import json
import sys

PHASES = {"B", "E", "X", "i", "s", "f", "M"}
META = {"process_name", "process_labels", "process_sort_index", "thread_name",
        "thread_sort_index"}


def fail(i, e, why):
    sys.exit("event %d %s: %s" % (i, json.dumps(e)[:200], why))


def main():
    doc = json.load(open(sys.argv[1]))
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        sys.exit("not a JSON object with a traceEvents array")
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        sys.exit("displayTimeUnit must be ms or ns")
    events = doc["traceEvents"]
    stacks, last_ts, flows, slices, tracks = {}, {}, {}, set(), set()
    counts = {}
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in PHASES:
            fail(i, e, "phase %r not one this checker knows" % ph)
        counts[ph] = counts.get(ph, 0) + 1
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail(i, e, "pid and tid must be integers")
        track = (e["pid"], e["tid"])
        tracks.add(track)
        if ph != "M" and not isinstance(e.get("ts"), (int, float)):
            fail(i, e, "ts must be a number")
        if ph != "E" and not isinstance(e.get("name"), str):
            fail(i, e, "name must be a string")
        if ph == "M":
            if e["name"] not in META or not isinstance(e.get("args"), dict):
                fail(i, e, "metadata needs a documented name and args")
            continue
        if ph in ("B", "E"):
            if e["ts"] < last_ts.get(track, e["ts"]):
                fail(i, e, "ts goes back on its track")
            last_ts[track] = e["ts"]
            st = stacks.setdefault(track, [])
            if ph == "B":
                st.append(e["name"])
            elif not st:
                fail(i, e, "E without an open B")
            else:
                st.pop()
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail(i, e, "X needs dur >= 0")
            slices.add((e["pid"], e["tid"], e.get("cat"), e["ts"]))
        if ph == "i" and e.get("s", "t") not in ("g", "p", "t"):
            fail(i, e, "instant scope must be g, p or t")
        if ph in ("s", "f"):
            if "id" not in e or not isinstance(e.get("cat"), str):
                fail(i, e, "flow events need id and cat")
            if ph == "f" and e.get("bp", "e") != "e":
                fail(i, e, "flow end binding point must be e")
            flows.setdefault(e["id"], []).append((i, e))
    for track, st in stacks.items():
        if st:
            sys.exit("track %s: %d slice(s) never ended" % (track, len(st)))
    for fid, evs in flows.items():
        kinds = sorted(e["ph"] for _, e in evs)
        if kinds != ["f", "s"]:
            sys.exit("flow %s: phases %s, expected one s and one f" % (fid, kinds))
        s = next(e for _, e in evs if e["ph"] == "s")
        f = next(e for _, e in evs if e["ph"] == "f")
        if f["ts"] < s["ts"]:
            sys.exit("flow %s finishes before it starts" % fid)
        for i, e in evs:
            if (e["pid"], e["tid"], e["cat"], e["ts"]) not in slices:
                fail(i, e, "no slice of the same pid, tid, cat and ts to bind to")
    print("ok: %d events, %d tracks, %d flows, %d slices (B), %d instants" % (
        len(events), len(tracks), len(flows), counts.get("B", 0), counts.get("i", 0)))


if __name__ == "__main__":
    main()
