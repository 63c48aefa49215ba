#!/usr/bin/env python3
"""Randomised network testing on Dask (issue 18, Deliver 6; T-Check's idea on real firmware).

The campaign is the product of examples x topologies x stimuli x seeds. Every run is one Dask
task: `wsn-sim net --settle` runs the example's firmware (built once with wsn-cc, LOG 6 from
the compiler) on every node of the topology with a seeded ADC until a node detects a
violation; a run that found one is replayed at once, in the same task, with
`wsn-replay net DIR --json` (Algorithm 5 selects the nodes, they are replayed together) and
judged by the fidelity harness's network rules (bench/fidelity/netfidelity.py: status
"reproduced", the violating node last with the simulator's invariant, sliced globals equal to
the SRAM wherever compared, every followed message checked).

Where the tasks run: --scheduler ADDRESS sends them to a running Dask scheduler (its workers
must see this tree's tools and a shared --work directory at the same paths); otherwise a
LocalCluster of --workers processes (one thread each) is started here and closed at the end.

Output: a summary table per example and topology (runs, violations found, replayed, replay
failures, runs without a violation, simulator errors), then one row per violation found (the
failure: node, invariant, nodes replayed / nodes in the network, replay result), then every
replay failure with the commands that reproduce it. --check: exit 1 when a replay failed or
the simulator failed, or fewer than --min-found violations were found.

Dask is Debian's python3-distributed (setup.sh installs it for /usr/bin/python3). When the
interpreter running this script lacks it, the script re-runs itself with /usr/bin/python3.
"""
import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIDELITY = os.path.join(ROOT, "bench", "fidelity")
SYSTEM_PYTHON = "/usr/bin/python3"


def import_dask():
    """distributed's Client and LocalCluster, or re-exec under Debian's python3 that has them."""
    try:
        from distributed import Client, LocalCluster, as_completed
        return Client, LocalCluster, as_completed
    except ImportError as e:
        here = os.path.realpath(sys.executable)
        if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(SYSTEM_PYTHON) != here and \
                not os.environ.get("WSN_NETCAMPAIGN_REEXEC"):
            os.environ["WSN_NETCAMPAIGN_REEXEC"] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        sys.exit("netcampaign: Dask distributed is not importable (%s); install Debian's "
                 "python3-distributed (./setup.sh deps)" % e)


# Topologies: the examples' own (base station 0, sensors 1-4, node 4 far from the base and
# heard by node 3) and a denser variant in this folder (every sensor hears every other, so
# CSMA defers and frames collide more; the routes netrelay uses still exist).
TOPOLOGIES = {
    "netsense": os.path.join(ROOT, "examples", "radio", "netsense.topo"),
    "dense": os.path.join(HERE, "dense.topo"),
}
# Stimuli: the ADC range every sensor reading is drawn from.
STIMULI = {"full": "0:1023", "high": "512:1023"}


class Job:
    def __init__(self, example, topology, stimulus, seed):
        self.example, self.topology, self.stimulus, self.seed = example, topology, stimulus, seed

    def name(self):
        return "%s-%s-%s-%d" % (self.example, self.topology, self.stimulus, self.seed)


def run_job(job, elf, spec, tools, work, timeout, keep):
    """One Dask task: simulate, and replay when a violation was found. Returns a plain dict."""
    if FIDELITY not in sys.path:
        sys.path.insert(0, FIDELITY)
    import netfidelity as nf
    t0 = time.perf_counter()
    res = {"example": job.example, "topology": job.topology, "stimulus": job.stimulus,
           "seed": job.seed, "outcome": "", "message": "", "commands": [], "node": None,
           "invariant": None, "selected": [], "nodes_total": 0, "links": 0,
           "replay_status": None, "replay_exit": None, "worker_pid": os.getpid()}
    outdir = os.path.join(work, "runs", job.name())
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [tools["sim"], "net", spec["topo"], "--node", "%s=%s" % (spec["nodes"], elf),
           "--seed", str(job.seed), "--seconds", str(spec["seconds"]), "--adc", spec["adc"],
           "--settle", "--progress", "none", "-o", outdir]
    res["commands"].append(nf.shell_line(cmd))
    rc, _, err = nf.run(cmd, timeout)
    if rc != 0:
        res["outcome"], res["message"] = "sim-error", "wsn-sim exit %s: %s" % (
            rc, nf.first_line(err))
        res["seconds"] = time.perf_counter() - t0
        return res
    try:
        net = json.load(open(os.path.join(outdir, "net.json")))
    except (OSError, ValueError) as e:
        res["outcome"], res["message"] = "sim-error", "net.json: %s" % e
        res["seconds"] = time.perf_counter() - t0
        return res
    res["nodes_total"] = len(net.get("nodes") or [])
    viol = net.get("violation")
    if net.get("stop") != "violation" or not viol:
        res["outcome"] = "none"
        res["message"] = "no violation within %g s" % spec["seconds"]
        if not keep:
            shutil.rmtree(outdir, ignore_errors=True)
        res["seconds"] = time.perf_counter() - t0
        return res
    res["node"], res["invariant"] = viol.get("node"), viol.get("id")
    if spec.get("flip") is not None:
        # --flip-sliced-byte: the harness's negative control; this replay must fail.
        path = os.path.join(outdir, "node%d" % viol["node"], "sram.bin")
        data = bytearray(open(path, "rb").read())
        data[spec["flip"]] ^= 1
        open(path, "wb").write(bytes(data))
    cmd = [tools["replay"], "net", outdir, "--json"]
    res["commands"].append(nf.shell_line(cmd))
    rc, out, err = nf.run(cmd, timeout)
    try:
        doc = json.loads(out)
        if not isinstance(doc, dict):
            doc = None
    except ValueError:
        doc = None
    verdict = nf.Result(job.example, "net", job.seed)
    nf.NetHarness(None, "", work).judge(verdict, rc, doc, err, viol)
    res["replay_exit"] = rc
    res["replay_status"] = (doc or {}).get("status")
    res["selected"] = list((doc or {}).get("selected") or [])
    res["links"] = verdict.links
    if verdict.ok:
        res["outcome"] = "replayed"
        if not keep:
            shutil.rmtree(outdir, ignore_errors=True)
    else:
        # The harness's verdict, then each node's own status and differing globals.
        nodes = []
        for n in (doc or {}).get("nodes") or []:
            cmp_ = n.get("compare") if isinstance(n.get("compare"), dict) else {}
            nodes.append("node %s %s%s" % (n.get("node"), n.get("status"),
                                           " (%s of %s compared globals differ)" % (
                                               cmp_.get("differ"), cmp_.get("globals"))
                                           if cmp_.get("differ") else ""))
        res["outcome"] = "replay-failed"
        res["message"] = verdict.message + ("; " + ", ".join(nodes) if nodes else "")
    res["seconds"] = time.perf_counter() - t0
    return res


def report(results, workers, wall):
    keyed = {}
    for r in results:
        keyed.setdefault((r["example"], r["topology"]), []).append(r)
    print("netcampaign: %d runs on %s, wall %.1f s, task time %.1f s" % (
        len(results), workers, wall, sum(r.get("seconds", 0) for r in results)))
    head = "%-9s %-9s %5s %6s %9s %7s %6s %8s" % ("example", "topology", "runs", "found",
                                                  "replayed", "failed", "none", "simerr")
    print(head)
    print("-" * len(head))
    tot = [0] * 6
    for (ex, topo), rs in sorted(keyed.items()):
        row = [len(rs), sum(r["outcome"] in ("replayed", "replay-failed") for r in rs),
               sum(r["outcome"] == "replayed" for r in rs),
               sum(r["outcome"] == "replay-failed" for r in rs),
               sum(r["outcome"] == "none" for r in rs),
               sum(r["outcome"] == "sim-error" for r in rs)]
        tot = [a + b for a, b in zip(tot, row)]
        print("%-9s %-9s %5d %6d %9d %7d %6d %8d" % ((ex, topo) + tuple(row)))
    print("-" * len(head))
    print("%-9s %-9s %5d %6d %9d %7d %6d %8d" % (("all", "") + tuple(tot)))

    found = [r for r in results if r["outcome"] in ("replayed", "replay-failed")]
    if found:
        print("\nviolations found (nodes replayed / nodes in the network):")
        print("%-9s %-9s %-5s %5s %5s %4s %-12s %8s %6s  %s" % (
            "example", "topology", "stim", "seed", "node", "inv", "selected", "replayed",
            "links", "result"))
        for r in found:
            sel = ",".join(str(n) for n in r["selected"]) or "-"
            print("%-9s %-9s %-5s %5d %5s %4s %-12s %8s %6d  %s" % (
                r["example"], r["topology"], r["stimulus"], r["seed"], r["node"],
                r["invariant"], sel, "%d/%d" % (len(r["selected"]), r["nodes_total"]),
                r["links"], r["replay_status"] if r["outcome"] == "replayed" else
                "FAILED (exit %s)" % r["replay_exit"]))
    bad = [r for r in results if r["outcome"] in ("replay-failed", "sim-error")]
    for r in bad:
        print("\n%s: %s %s %s seed %d: %s" % (r["outcome"], r["example"], r["topology"],
                                              r["stimulus"], r["seed"], r["message"][:400]))
        for c in r["commands"]:
            print("    " + c)
    return tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="directory of wsn-cc, wsn-sim, wsn-replay (default build/bin)")
    ap.add_argument("--examples", default="netsense,netrelay")
    ap.add_argument("--topologies", default="netsense,dense",
                    help="comma-separated subset of: " + ", ".join(TOPOLOGIES))
    ap.add_argument("--stimuli", default="full",
                    help="comma-separated subset of: " + ", ".join(
                        "%s (adc %s)" % kv for kv in STIMULI.items()))
    ap.add_argument("--seeds", type=int, default=25, help="seeds per combination")
    ap.add_argument("--start", type=int, default=1, help="first seed")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler "
                    "(default: a LocalCluster started here)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--work", help="work directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep every run's directory")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per tool run")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a replay failure, a simulator error or too few violations")
    ap.add_argument("--min-found", type=int, default=1,
                    help="with --check: violations the campaign must find")
    ap.add_argument("--json-out", help="write every run's result as JSON here")
    ap.add_argument("--flip-sliced-byte", action="store_true",
                    help="negative control: before each replay, flip one bit of a sliced "
                    "global (the example's) in the violating node's SRAM snapshot; every "
                    "replay must then be reported as failed")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    Client, LocalCluster, as_completed = import_dask()
    if FIDELITY not in sys.path:
        sys.path.insert(0, FIDELITY)
    import netfidelity as nf

    def pick(text, table, what):
        names = [x.strip() for x in text.split(",") if x.strip()]
        unknown = [n for n in names if n not in table]
        if unknown or not names:
            ap.error("unknown %s %s (known: %s)" % (what, ", ".join(unknown) or "(none)",
                                                     ", ".join(table)))
        return names

    examples = {e.name: e for e in nf.NET_EXAMPLES}
    ex_names = pick(args.examples, examples, "example")
    topo_names = pick(args.topologies, TOPOLOGIES, "topology")
    stim_names = pick(args.stimuli, STIMULI, "stimulus")
    bindir = os.path.abspath(args.bin) if args.bin else os.path.join(ROOT, "build", "bin")
    tools = {"sim": os.path.join(bindir, "wsn-sim"), "replay": os.path.join(bindir, "wsn-replay")}
    for t in list(tools.values()) + [os.path.join(bindir, "wsn-cc")]:
        if not os.access(t, os.X_OK):
            sys.exit("netcampaign: %s is missing (build the tools or pass --bin)" % t)
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="wsn-netcamp-")
    os.makedirs(work, exist_ok=True)

    # Firmware is built once, here; the tasks only simulate and replay.
    builder = nf.NetHarness(argparse.Namespace(timeout=args.timeout), bindir, work)
    elfs = {n: builder.build(examples[n]) for n in ex_names}
    flips = {}
    if args.flip_sliced_byte:
        for n in ex_names:
            flips[n] = nf.symbol_address(elfs[n], examples[n].corrupt)
            if flips[n] is None:
                sys.exit("netcampaign: %s has no symbol %s" % (elfs[n], examples[n].corrupt))
    jobs = [Job(e, t, s, seed) for e in ex_names for t in topo_names for s in stim_names
            for seed in range(args.start, args.start + args.seeds)]

    t0 = time.perf_counter()
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
        where = "scheduler %s" % args.scheduler
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        where = "a LocalCluster of %d workers" % args.workers
    results = []
    try:
        futures = []
        for j in jobs:
            ex = examples[j.example]
            spec = {"topo": TOPOLOGIES[j.topology], "nodes": ex.nodes, "seconds": ex.seconds,
                    "adc": STIMULI[j.stimulus], "flip": flips.get(j.example)}
            futures.append(client.submit(run_job, j, elfs[j.example], spec, tools, work,
                                         args.timeout, args.keep, key="netcamp-" + j.name(),
                                         pure=False))
        for i, f in enumerate(as_completed(futures)):
            results.append(f.result())
            if not args.quiet and (i + 1) % 10 == 0:
                print("netcampaign: %d of %d runs" % (i + 1, len(jobs)), file=sys.stderr)
        pids = {r["worker_pid"] for r in results}
    finally:
        # Every result is in: a nanny that times out killing its worker process on a
        # loaded machine logs a traceback at shutdown that says nothing about the runs.
        logging.getLogger("distributed.nanny").setLevel(logging.CRITICAL)
        client.close()
        if cluster is not None:
            cluster.close()
    wall = time.perf_counter() - t0
    results.sort(key=lambda r: (r["example"], r["topology"], r["stimulus"], r["seed"]))
    tot = report(results, "%s (%d worker processes ran tasks)" % (where, len(pids)), wall)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    _, found, _, failed, _, simerr = tot
    if args.check and (failed or simerr or found < args.min_found):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
