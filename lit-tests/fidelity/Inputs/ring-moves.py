#!/usr/bin/env python3
"""Summarises the wrap-violation ring moves of a fidelity.py --json-out file by property, so
that a test does not depend on which seeds need a move under one runtime's record timing.

usage: ring-moves.py RESULTS.json FROM TO REASON

Prints
  moved FROM -> TO for REASON: N, replayed M      (seeds whose ring moved that way, and how many
                                                   of those replayed and passed)
  replay failures: F                              (seeds that got to a replay and failed it)
  setup failures: S                               (seeds no ring could serve: a wrong setup,
                                                   never a replay)"""
import json
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, src, dst, reason = sys.argv[1:]
    with open(path) as f:
        results = json.load(f)
    moved = [r for r in results
             if r["detail"].get("ring") == dst
             and ("%s: %s" % (src, reason)) in r["detail"].get("ring_moves", [])]
    setup = [r for r in results if not r["ok"] and str(r["message"]).startswith("setup:")]
    failed = [r for r in results if not r["ok"] and r not in setup]
    print("moved %s -> %s for %s: %d, replayed %d" % (src, dst, reason, len(moved),
                                                      sum(1 for r in moved if r["ok"])))
    print("replay failures: %d" % len(failed))
    for r in failed:
        print("  seed %d: %s" % (r["seed"], r["message"]))
    print("setup failures: %d" % len(setup))


if __name__ == "__main__":
    main()
