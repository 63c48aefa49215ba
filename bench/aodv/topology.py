#!/usr/bin/env python3
"""Grid topologies for the AODV case studies (TOSSIM LinkLayerModel format, spec/wsn-sim.md 5).

    topology.py --cols C --rows R [--source-at X,Y] [--seed N] -o FILE.topo

Nodes sit on a C x R grid, numbered row by row from the corner (0, 0), except that node 1 (the
AODV source) is swapped to --source-at (default: next to node 0, one hop away). Only the four
grid neighbours hear each other (gain about -68 dBm, spread +-4 dB by the seed so that links
are not all alike); everything else is out of range. The hop distance between nodes 0 and 1 is
therefore the Manhattan distance of their grid positions, which the header comment states.
"""
import argparse
import random
import sys


def build(cols, rows, source_at, seed):
    rnd = random.Random(seed)
    ids = {}
    n = 0
    for y in range(rows):
        for x in range(cols):
            ids[(x, y)] = n
            n += 1
    src = source_at
    if src not in ids:
        raise SystemExit(f"topology.py: --source-at {src} is outside the {cols}x{rows} grid")
    # swap node 1 with the node at source_at
    old = ids[src]
    for pos, i in ids.items():
        if i == 1:
            ids[pos] = old
            break
    ids[src] = 1
    hops = abs(src[0]) + abs(src[1])
    lines = [
        f"# AODV grid {cols}x{rows} ({cols * rows} nodes), written by bench/aodv/topology.py",
        f"# node 0 (destination) at (0,0), node 1 (source) at {src[0]},{src[1]}: {hops} hop(s)",
        "# gain SRC DST DBM (4-neighbour links only); noise NODE MEAN_DBM VARIANCE",
    ]
    for (x, y), a in sorted(ids.items(), key=lambda kv: kv[1]):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            b = ids.get((x + dx, y + dy))
            if b is not None:
                lines.append(f"gain {a} {b} {-68.0 + rnd.uniform(-4, 4):.1f}")
    for i in range(cols * rows):
        lines.append(f"noise {i} -98.0 4.0")
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--source-at", default="1,0")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", required=True)
    a = ap.parse_args(argv)
    x, y = (int(v) for v in a.source_at.split(","))
    with open(a.o, "w") as f:
        f.write(build(a.cols, a.rows, (x, y), a.seed))


if __name__ == "__main__":
    main(sys.argv[1:])
