#!/usr/bin/env python3
"""The AODV case studies of the thesis's Table 5.1, run on wsn-sim and wsn-replay net.

    bench/aodv/aodv.py --bin build/bin [--work DIR] [--only ERROR1,ERROR2,ERROR3,ERROR3-C5]
                       [--seed N] [--seconds S] [--small]

For each injected fault of examples/aodv/aodv.c (thesis section 5.3.1):
  1. build the firmware with wsn-cc (-DERRORk; MicaZ, atmega128);
  2. run the network in `wsn-sim net` until a node's local check fails (30-node grid for
     ERROR1/ERROR2 with the source one hop from the destination, 150-node grid for ERROR3 with
     the source 7 hops away; --small: 6 nodes for every row, for CI);
  3. `wsn-replay net` on the violating run: Algorithm 5 picks the nodes, first with the
     conservative R_OP (--deps of an empty file: every RECV of the segment may matter), then
     with the compiler's R_OP (wsn-replay net's default: the trace map's `recvs`, the receive
     sites whose data is in the invariant's value slice; spec/analysis.md section 11);
  4. a scripted REPL session on the violating node; the fault counts as localised when the
     session prints the faulty statement's source line (for ERROR1 the next instrumentation
     level and gdb are needed: at level 1 add_route_table is a skipped call).
ERROR3-C5 is the thesis's own ERROR#3 setting (no relay rule, -DAODV_NO_ROUTING_RULE): node 0's
Recv_rule fails with no message to follow back (condition C5), so the script looks from the
sending side (the nodes where the RREQ flood stopped, from the retained SEND/RECV records) and
runs Algorithm 5 again from the one nearest node 0 (wsn-replay net --start-node).
Prints one table row per fault next to the thesis's numbers. Exit 1 if a row fails to
reproduce, to localise, or replays more nodes (with the compiler's R_OP, the counterpart of the
thesis's statically computed R_OP) than the thesis did. bench/aodv/deps.py (the same R_OP
written by hand from aodv.c's data flow) is kept as a cross-check: a row whose compiler R_OP
differs from it says so.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(ROOT, "examples", "aodv", "aodv.c")
RADIO = os.path.join(ROOT, "examples", "radio")

# Thesis Table 5.1: nodes recorded, node detected on, hops to trace, max replayed, actual.
THESIS = {
    "ERROR1": (30, 1, 1, 4, 2),
    "ERROR2": (30, 0, 0, 1, 1),
    "ERROR3": (150, 0, 5, 69, 7),
    "ERROR3-C5": (150, 0, 5, 69, 7),
}
# Compile-time switches per row: ERROR3-C5 is the thesis's ERROR#3 setting (no relay rule:
# node 0's Recv_rule fails and no message leads back from it, condition C5).
FLAGS = {
    "ERROR1": ["-DERROR1"],
    "ERROR2": ["-DERROR2"],
    "ERROR3": ["-DERROR3"],
    "ERROR3-C5": ["-DERROR3", "-DAODV_NO_ROUTING_RULE"],
}
# Where each fault lives in aodv.c (the statement the REPL must show).
FAULT_TEXT = {
    "ERROR1": "if (r->seq < seq || r->hop > hop) {",
    "ERROR2": "AodvC$rxPkt = AppC$Receive$receive(&AodvC$appMsg, n);",
    "ERROR3": "++pkt->hdr.hop;",
    "ERROR3-C5": "++pkt->hdr.hop;",
}
# The local check each fault trips (examples/aodv/aodv.c's header lists them).
EXPECTED_INVARIANT = {
    "ERROR1": "wsn_invariant_link_creation",
    "ERROR2": "wsn_invariant_data_delivery",
    "ERROR3": "wsn_invariant_rreq_hop_count",
    "ERROR3-C5": "wsn_invariant_rreq_arrival",
}
TRACE_GEOMETRY = ["--trace-seg=1024", "--trace-buf=3072"]
REPL_SESSIONS = {
    "ERROR1": ["continue", "where", "print AodvC$route_table_", "why AodvC$route_table_",
               "events 12", "quit"],
    "ERROR2": ["print AodvC$rxPkt", "watch AodvC$rxPkt", "continue", "continue", "where",
               "quit"],
    "ERROR3": ["continue", "where", "print AodvC$rxHop", "print AodvC$fwdHop",
               "why AodvC$fwdHop", "why AodvC$rxBuf", "quit"],
}


def run(cmd, log, check=True, stdin=None, timeout=900):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=timeout)
    with open(log, "a") as f:
        f.write(p.stdout + p.stderr)
    if check and p.returncode != 0:
        sys.exit("aodv.py: failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                      (p.stdout + p.stderr)[-2000:]))
    return p


def source_line(text):
    with open(SRC) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    sys.exit("aodv.py: '%s' not found in %s" % (text, SRC))


def topology(work, cols, rows, source_at, log):
    path = os.path.join(work, "grid%dx%d.topo" % (cols, rows))
    run([sys.executable, os.path.join(HERE, "topology.py"), "--cols", str(cols), "--rows",
         str(rows), "--source-at", "%d,%d" % source_at, "-o", path], log)
    return path


def build(binx, work, err, level, log):
    out = os.path.join(work, "aodv-%s-l%d" % (err, level))
    run([os.path.join(binx, "wsn-cc"), "--target=avr", "--mcu=atmega128", "--level=%d" % level,
         "-Wc,-Wno-unknown-attributes"] + TRACE_GEOMETRY + FLAGS[err] + ["-I", RADIO, "-o", out, SRC, os.path.join(RADIO, "cc2420.c")], log)
    return out


def all_recvs_file(path):
    """The conservative R_OP: no entry, so every RECV since the checkpoint is followed."""
    with open(path, "w") as f:
        json.dump({"sends": {}, "invariants": {}}, f)
    return path


def compiler_rop(fw):
    """The compiler's R_OP from the trace map, in MessageDependences' invariant form."""
    wmap = json.load(open(fw + ".wmap"))
    return {str(i["id"]): [{"recv": r, "x": 0} for r in i["recvs"]]
            for i in wmap["invariants"] if "recvs" in i}


def deps_file(fw, path):
    """MessageDependences (spec/replay-log.md section 3) from the trace map's ids (deps.py)."""
    with open(path, "w") as f:
        json.dump(deps.dependences(fw + ".wmap"), f, indent=1)
    return path


def replay_json(binx, net, log, deps=None, start=None):
    cmd = [os.path.join(binx, "wsn-replay"), "net", net, "--json"]
    if deps:
        cmd += ["--deps", deps]
    if start is not None:
        cmd += ["--start-node", str(start)]
    p = run(cmd, log, check=False)
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.exit("aodv.py: wsn-replay net printed no JSON (exit %d):\n%s" %
                 (p.returncode, (p.stdout + p.stderr)[-2000:]))


def invariant_name(fw, inv_id):
    for inv in json.load(open(fw + ".wmap"))["invariants"]:
        if inv["id"] == inv_id:
            return inv["function"]
    return "?"


def gdb_localise(binx, fw, net, node, line, work, log):
    """ERROR1 at the next level: gdb on the single-node replay stops in add_route_table at the
    faulty condition and shows the values that make it fail."""
    if not shutil.which("gdb"):
        return None, "gdb not installed"
    cmds = os.path.join(work, "error1.gdb")
    # The neighbour route of the RREQ's sender is a new entry and does not reach the condition;
    # the reverse route does: gdb shows its arguments, the entry (slot 0) and where it goes.
    with open(cmds, "w") as f:
        f.write("set breakpoint pending on\nset pagination off\n"
                "break aodv.c:%d\nrun\nbt 3\nprint AodvC$route_table_[0]\nnext\nnext\n"
                "continue\n" % line)
    p = run(["gdb", "-batch", "-nx", "-x", cmds, "--args", os.path.join(binx, "wsn-replay"),
             fw + ".replay.bc", "--trace", os.path.join(net, "node%d" % node, "trace.wtr"),
             "--elf", fw + ".elf", "--gdb"], log, check=False, timeout=300)
    return p.stdout + p.stderr, None


def hops_from(topo, origin):
    """Hop distances over the topology's links (breadth first)."""
    links = {}
    for line in open(topo):
        p = line.split()
        if len(p) == 4 and p[0] == "gain":
            links.setdefault(int(p[1]), set()).add(int(p[2]))
    dist, todo = {origin: 0}, [origin]
    while todo:
        a = todo.pop(0)
        for b in sorted(links.get(a, ())):
            if b not in dist:
                dist[b] = dist[a] + 1
                todo.append(b)
    return dist


def messages(binx, net, nodes):
    """Each node's retained SEND and RECV records, in record order (wsn-trace-dump)."""
    out = {}
    for n in nodes:
        p = subprocess.run([os.path.join(binx, "wsn-trace-dump"),
                            os.path.join(net, "node%d" % n, "trace.wtr")],
                           capture_output=True, text=True)
        recs = []
        for line in p.stdout.splitlines():
            m = re.search(r"\bSEND site=\d+ seq=(\d+) dest=(\d+)", line)
            if m:
                recs.append(("S", int(m.group(1)), int(m.group(2))))
            m = re.search(r"\bRECV site=\d+ sender=(\d+) seq=(\d+)", line)
            if m:
                recs.append(("R", int(m.group(1)), int(m.group(2))))
        out[n] = recs
    return out


def flood_frontier(binx, net, nodes, topo, detector):
    """Condition C5 (thesis 5.2.2): the violating node received nothing to follow, so look
    from the sending side: the nodes that received a broadcast (an RREQ: aodv.c broadcasts
    nothing else) and broadcast nothing after it are where the flood stopped. The one nearest
    the violating node is where the backward search (Algorithm 5) starts again."""
    msgs = messages(binx, net, nodes)
    bcast = {(n, seq) for n, recs in msgs.items() for k, seq, dest in recs
             if k == "S" and dest == 0xFFFF}
    dist = hops_from(topo, detector)
    frontier = []
    for n, recs in msgs.items():
        last_rx = max((i for i, r in enumerate(recs) if r[0] == "R" and (r[1], r[2]) in bcast),
                      default=None)
        if last_rx is None:
            continue
        if not any(r[0] == "S" and r[2] == 0xFFFF for r in recs[last_rx + 1:]):
            frontier.append((dist.get(n, 1 << 20), n))
    return sorted(frontier)


def one(args, err, log):
    work = os.path.join(args.work, err)
    os.makedirs(work, exist_ok=True)
    if args.small:
        topo = topology(work, 3, 2, (1, 0), log)
        n = 6
    elif err.startswith("ERROR3"):
        topo = topology(work, 15, 10, (7, 0), log)
        n = 150
    else:
        topo = topology(work, 6, 5, (1, 0), log)
        n = 30
    fw = build(args.bin, work, err, 1, log)
    net = os.path.join(work, "net")
    if os.path.isdir(net):
        shutil.rmtree(net)
    run(["nice", "-n", "19", os.path.join(args.bin, "wsn-sim"), "net", topo,
         "--node", "0-%d=%s.elf" % (n - 1, fw), "--seed", str(args.seed), "--seconds",
         str(args.seconds), "--settle", "--progress", "none", "-o", net], log)
    netj = json.load(open(os.path.join(net, "net.json")))
    row = {"error": err, "nodes": n, "thesis": THESIS[err]}
    if netj["stop"] != "violation":
        row["problem"] = "no violation in %s s" % args.seconds
        return row
    v = netj["violation"]
    row["detected_on"] = v["node"]
    row["invariant"] = invariant_name(fw, v["id"])
    row["sim_seconds"] = netj["cycles"] / 7372800.0
    allr = all_recvs_file(os.path.join(work, "all.json"))
    cons = replay_json(args.bin, net, log, allr)
    flow = replay_json(args.bin, net, log)
    sites = lambda rop: {k: sorted({d["recv"] for d in v}) for k, v in rop.items()}
    if sites(compiler_rop(fw)) != sites(deps.dependences(fw + ".wmap")["invariants"]):
        row["rop_differs"] = "the compiler's R_OP (receive sites) differs from deps.py's"
    row["conservative"] = (cons["selected_count"], cons["status"], cons["selected"])
    row["dataflow"] = (flow["selected_count"], flow["status"], flow["selected"])
    if err == "ERROR3-C5":
        return c5_row(args, row, fw, net, topo, allr, v["node"], n, work, log, flow)
    # The REPL session on the violating node (the data-flow selection's replay).
    p = run([os.path.join(args.bin, "wsn-replay"), "net", net, "-i"], log,
            check=False, stdin="\n".join(REPL_SESSIONS[err]) + "\n")
    repl = p.stdout
    with open(os.path.join(work, "repl.txt"), "w") as f:
        f.write(repl)
    line = source_line(FAULT_TEXT[err])
    shown = re.search(r"aodv\.c:%d\b" % line, repl) is not None
    row["fault_line"] = line
    row["localised"] = "yes (REPL)" if shown else "no"
    if err == "ERROR1" and not shown:
        # Level 1 stops at the skipped call of add_route_table; the next level instruments it.
        fw2 = build(args.bin, work, err, 2, log)
        net2 = os.path.join(work, "net-level2")
        if os.path.isdir(net2):
            shutil.rmtree(net2)
        run(["nice", "-n", "19", os.path.join(args.bin, "wsn-sim"), "net", topo,
             "--node", "0-%d=%s.elf" % (n - 1, fw2), "--seed", str(args.seed), "--seconds",
             str(args.seconds), "--settle", "--progress", "none", "-o", net2], log)
        v2 = json.load(open(os.path.join(net2, "net.json")))["violation"]
        if v2:
            out, why = gdb_localise(args.bin, fw2, net2, v2["node"], line, work, log)
            if out is not None:
                with open(os.path.join(work, "gdb.txt"), "w") as f:
                    f.write(out)
                if re.search(r"aodv\.c:%d\b" % line, out) and "reproduced" in out:
                    row["localised"] = "yes (level 2, gdb)"
            else:
                row["localised"] = "no (%s)" % why
    return row


def c5_row(args, row, fw, net, topo, allr, detector, n, work, log, first):
    """Algorithm 5 from node 0 followed no message: search again from where the flood died."""
    row["c5_first"] = (first["selected_count"], first["status"],
                       sum(1 for m in first["messages"]))
    frontier = flood_frontier(args.bin, net, range(n), topo, detector)
    if not frontier:
        row["problem"] = "C5: no node received the RREQ flood in its retained trace"
        return row
    start = frontier[0][1]
    row["c5_start"] = (start, frontier[0][0], len(frontier))
    cons = replay_json(args.bin, net, log, allr, start=start)
    flow = replay_json(args.bin, net, log, start=start)
    total = lambda j: len(set(j["selected"]) | {detector})
    nodes_ok = lambda j: all(nd["status"] == "reproduced" or nd["node"] == start
                             for nd in j["nodes"]) and all(m["checked"] for m in j["messages"])
    # The start node did not stop itself: its replay runs to its trace's end.
    row["conservative"] = (total(cons), cons["status"] if not nodes_ok(cons) else "reproduced*",
                           [detector] + cons["selected"])
    row["dataflow"] = (total(flow), flow["status"] if not nodes_ok(flow) else "reproduced*",
                       [detector] + flow["selected"])
    row["c5_status"] = (cons["status"], flow["status"])
    # The relay that sent the RREQ on to the start node: its replay shows the hop count it
    # received and the one it forwarded.
    relay = flow["selected"][-2] if len(flow["selected"]) >= 2 else None
    row["fault_line"] = source_line(FAULT_TEXT["ERROR3-C5"])
    row["localised"] = "no"
    if relay is not None:
        p = run([os.path.join(args.bin, "wsn-replay"), "net", net,
                 "--start-node", str(start), "-i"], log, check=False,
                stdin="node %d\nwatch AodvC$fwdHop\ncontinue\nprint AodvC$rxHop\n"
                      "print AodvC$fwdHop\nquit\n" % relay)
        with open(os.path.join(work, "repl.txt"), "w") as f:
            f.write(p.stdout)
        rx = re.search(r"uint8_t AodvC\$rxHop = (\d+)", p.stdout)
        fwd = re.findall(r"uint8_t AodvC\$fwdHop = (\d+)", p.stdout)
        if rx and fwd and int(fwd[-1]) == int(rx.group(1)) + 2:
            row["localised"] = "values only (node %d got hop %s, sent %s)" % (
                relay, rx.group(1), fwd[-1])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the build's bin directory")
    ap.add_argument("--work", default="/tmp/wsn-aodv")
    ap.add_argument("--only", default="ERROR1,ERROR2,ERROR3,ERROR3-C5")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--small", action="store_true", help="6 nodes for every row (CI)")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    os.makedirs(args.work, exist_ok=True)
    log = os.path.join(args.work, "aodv.log")
    open(log, "w").close()
    rows = [one(args, e, log) for e in args.only.split(",")]

    hdr = ("error", "nodes", "detected on", "check", "replayed (R_OP all)",
           "replayed (R_OP compiler)", "thesis max", "thesis actual", "localised")
    print("AODV case studies (thesis Table 5.1), wsn-sim net seed %d, MicaZ nodes" % args.seed)
    lines = []
    bad = False
    for r in rows:
        t = r["thesis"]
        if "problem" in r:
            lines.append((r["error"], str(r["nodes"]), r["problem"], "", "", "", str(t[3]),
                          str(t[4]), "no"))
            bad = True
            continue
        c, f = r["conservative"], r["dataflow"]
        lines.append((r["error"], "%d (thesis %d)" % (r["nodes"], t[0]),
                      "node %d (thesis node %d)" % (r["detected_on"], t[1]),
                      r["invariant"].replace("wsn_invariant_", ""),
                      "%d %s %s" % (c[0], c[1], c[2]), "%d %s %s" % (f[0], f[1], f[2]),
                      str(t[3]), str(t[4]), "%s, aodv.c:%d" % (r["localised"], r["fault_line"])))
        # The thesis's R_OP came from its static dependence analysis: the compiler column is
        # the one to compare; the conservative one is shown as the bound without R_OP.
        localised = r["localised"].startswith("yes") or (
            r["error"] == "ERROR3-C5" and r["localised"].startswith("values"))
        if not c[1].startswith("reproduced") or not f[1].startswith("reproduced") or not localised \
                or f[0] > t[4] or r["invariant"] != EXPECTED_INVARIANT[r["error"]]:
            bad = True
    widths = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(hdr)]
    print("  ".join(h.ljust(w) for h, w in zip(hdr, widths)))
    for l in lines:
        print("  ".join(x.ljust(w) for x, w in zip(l, widths)))
    print("(replayed: nodes Algorithm 5 selected, replay status, node ids in replay order; "
          "work files and REPL sessions in %s)" % args.work)
    for r in rows:
        if "rop_differs" in r:
            print("%s: %s" % (r["error"], r["rop_differs"]))
            bad = True
        if "c5_start" in r:
            st, d, k = r["c5_start"]
            print("%s: Algorithm 5 from node %d selected %d node(s) and followed %d message(s) "
                  "(condition C5); the RREQ flood stopped at %d node(s), the nearest to node %d "
                  "is node %d (%d hops); Algorithm 5 from it (--start-node %d): %s; the "
                  "replayed nodes are node %d and those (reproduced*: every node but the start "
                  "node reproduced and every message checked; wsn-replay net says %s / %s "
                  "because the start node did not stop itself and its replay runs to its "
                  "trace's end)" % (
                      r["error"], r["detected_on"], r["c5_first"][0], r["c5_first"][2], k,
                      r["detected_on"], st, d, st, r["dataflow"][2][1:], r["detected_on"],
                      r["c5_status"][0], r["c5_status"][1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
