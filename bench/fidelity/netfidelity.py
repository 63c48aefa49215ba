#!/usr/bin/env python3
"""Network fidelity: seeded wsn-sim network runs replayed with `wsn-replay net` (issue 18).

Also reached as `fidelity.py --network ...`. For every network example and seed: the firmware
(built once with wsn-cc, no trace call by hand: LOG 6 comes from the compiler) runs on every
node of the topology in `wsn-sim net --settle` with a seeded ADC, until a node detects a
violation; then `wsn-replay net DIR --json` selects the nodes with Algorithm 5, replays them in
one process and checks each followed message across the replays. A seed passes when (the
harness checks each point itself):
  - the simulator stopped at a violation (else a setup failure: no violation in --seconds);
  - wsn-replay net exits 0 with status "reproduced" and one JSON object;
  - the violating node comes last, reproduced its violation (stop kind "violation") with the
    simulator's invariant, and its sliced globals equal its SRAM (at least one compared);
  - every other selected node reproduced its part (stop kind "end" or its segment end), and
    its sliced globals equal its SRAM wherever they were compared (a node whose trace was read
    while it was inside a skipped call cannot be compared: counted, with the reason);
  - every followed message checked (the sender's replay sent it, the receiver's got it).
The negative control (--negative-seeds, on the first seeds): one byte of a sliced global of the
violating node is flipped in its SRAM; the network replay must exit 1 and name a difference.

Output: a table per example (seeds, passed, failed, pass rate, multi-node selections, nodes
replayed, nodes compared), the distinct failure messages with seeds, and the commands that
reproduce the first failure. --check: exit 1 when any seed fails.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class NetExample:
    """sources relative to the repository root; defines for wsn-cc; corrupt: a sliced global of
    the violating node flipped by the negative control."""

    def __init__(self, name, sources, defines, topo, nodes, corrupt, seconds=10.0,
                 adc="0:1023", ring=(3072, 768)):
        self.name, self.sources, self.defines, self.topo = name, sources, defines, topo
        self.nodes, self.corrupt, self.seconds, self.adc, self.ring = (nodes, corrupt, seconds,
                                                                       adc, ring)


# The ring: 4 segments of 768 bytes. A base station's receive interrupt reads each frame byte
# by byte over SPI (about ten trace bytes per frame byte) and its skipped receive event's
# EFFECT holds the message queue: with 3 segments, a burst of frames left one base station in
# 120 seeds without a checkpoint (netsense seed 90), which "wsn-replay net" reports as partial.
# Both run on netsense.topo (base station 0, sensors 1-4, node 4 far from the base). The
# violation is detected at the base station and caused by a sensor's reading carried by a
# message: netsense sends straight to the base station (SENSE_LIMIT above any reading, so the
# sensors never stop first), netrelay routes node 4 through node 3.
NET_EXAMPLES = [
    NetExample("netsense", ["examples/radio/netsense.c", "examples/radio/cc2420.c"],
               ["-DSENSE_LIMIT=1024", "-DBASE_LIMIT=1000"], "examples/radio/netsense.topo",
               "0-4", corrupt="BaseC$maxReading"),
    NetExample("netrelay", ["examples/radio/netrelay.c", "examples/radio/cc2420.c"],
               ["-DSENSE_PERIOD=200", "-DBASE_LIMIT=980"], "examples/radio/netsense.topo", "0-4",
               corrupt="BaseC$worst", seconds=20.0),
]


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", "timed out after %ss" % timeout
    except OSError as e:
        return "exec", "", "%s: %s" % (cmd[0], e)


def shell_line(cmd):
    return " ".join("'%s'" % c if any(ch in c for ch in " $*") else c for c in cmd)


class Result:
    def __init__(self, example, mode, seed):
        self.example, self.mode, self.seed = example, mode, seed
        self.ok, self.message, self.commands = False, "", []
        self.selected = self.compared = self.links = 0
        self.not_compared = []


def symbol_address(elf, sym):
    out = subprocess.run(["/usr/lib/llvm-19/bin/llvm-nm", elf], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == sym:
            return int(parts[0], 16) - 0x800000  # AVR data symbols carry 0x800000
    return None


class NetHarness:
    def __init__(self, args, bindir, work):
        self.args, self.work = args, work
        self.cc = os.path.join(bindir, "wsn-cc")
        self.sim = os.path.join(bindir, "wsn-sim")
        self.replay = os.path.join(bindir, "wsn-replay")

    def build(self, ex):
        out = os.path.join(self.work, "build", ex.name)
        os.makedirs(out, exist_ok=True)
        cmd = [self.cc, "--target=avr", "--mcu=atmega128", "-Wc,-Wno-unknown-attributes",
               "--trace-buf=%d" % ex.ring[0], "--trace-seg=%d" % ex.ring[1],
               "-I", os.path.join(ROOT, "examples/radio")] + ex.defines + \
              ["-o", os.path.join(out, "app")] + [os.path.join(ROOT, s) for s in ex.sources]
        rc, _, err = run(cmd, self.args.timeout)
        if rc != 0:
            sys.exit("netfidelity: building %s failed (%s): %s\n%s" % (ex.name, rc,
                                                                      first_line(err),
                                                                      shell_line(cmd)))
        return os.path.join(out, "app.elf")

    def simulate(self, ex, elf, seed, outdir):
        cmd = [self.sim, "net", os.path.join(ROOT, ex.topo), "--node", "%s=%s" % (ex.nodes, elf),
               "--seed", str(seed), "--seconds", str(ex.seconds), "--adc", ex.adc, "--settle",
               "--progress", "none", "-o", outdir]
        rc, _, err = run(cmd, self.args.timeout)
        return cmd, rc, err

    def replay_net(self, outdir):
        cmd = [self.replay, "net", outdir, "--json"]
        rc, out, err = run(cmd, self.args.timeout)
        try:
            doc = json.loads(out)
            if not isinstance(doc, dict):
                doc = None
        except ValueError:
            doc = None
        return cmd, rc, doc, err

    def seed_job(self, ex, elf, seed):
        results = []
        r = Result(ex.name, "net", seed)
        results.append(r)
        outdir = os.path.join(self.work, "runs", "%s-%d" % (ex.name, seed))
        shutil.rmtree(outdir, ignore_errors=True)
        cmd, rc, err = self.simulate(ex, elf, seed, outdir)
        r.commands.append(shell_line(cmd))
        if rc != 0:
            r.message = "setup: wsn-sim exit %s: %s" % (rc, first_line(err))
            return results
        try:
            net = json.load(open(os.path.join(outdir, "net.json")))
        except (OSError, ValueError) as e:
            r.message = "setup: net.json: %s" % e
            return results
        viol = net.get("violation")
        if net.get("stop") != "violation" or not viol:
            r.message = "setup: no violation within %g s" % ex.seconds
            return results
        cmd, rc, doc, err = self.replay_net(outdir)
        r.commands.append(shell_line(cmd))
        self.judge(r, rc, doc, err, viol)
        if r.ok and seed < self.args.start + self.args.negative_seeds:
            results.append(self.negative(ex, elf, seed, outdir, viol))
        if r.ok and not self.args.keep:
            shutil.rmtree(outdir, ignore_errors=True)
        return results

    def judge(self, r, rc, doc, err, viol):
        msg = (doc or {}).get("message") or first_line(err)
        if rc != 0:
            r.message = "exit %s: %s: %s" % (rc, (doc or {}).get("status"), msg)
            return
        if doc is None:
            r.message = "exit 0 but stdout is not one JSON object"
            return
        problems = []
        if doc.get("status") != "reproduced":
            problems.append("status %r" % doc.get("status"))
        nodes = doc.get("nodes") or []
        if not nodes or doc.get("selected", [None])[-1] != viol.get("node"):
            problems.append("the violating node %s is not replayed last" % viol.get("node"))
        for n in nodes:
            stop = n.get("stop") or {}
            cmp_ = n.get("compare")
            last = n is nodes[-1]
            if n.get("status") != "reproduced":
                problems.append("node %s: %s" % (n.get("node"), n.get("status")))
            if last:
                if stop.get("kind") != "violation":
                    problems.append("node %s stop %r" % (n.get("node"), stop.get("kind")))
                for key in ("invariant", "inv"):
                    if isinstance(stop.get(key), int) and stop[key] != viol.get("id"):
                        problems.append("invariant %s, the simulator %s" % (stop[key],
                                                                             viol.get("id")))
                if not isinstance(cmp_, dict):
                    problems.append("violating node: no SRAM comparison")
            if isinstance(cmp_, dict):
                if not cmp_.get("globals"):
                    problems.append("node %s: compared %r globals" % (n.get("node"),
                                                                     cmp_.get("globals")))
                if cmp_.get("differ") != 0:
                    problems.append("node %s: %r globals differ" % (n.get("node"),
                                                                   cmp_.get("differ")))
                r.compared += 1
            else:
                r.not_compared.append(n.get("not_compared") or "no snapshot")
        for m in doc.get("messages") or []:
            if not m.get("checked"):
                problems.append("message %s:%s -> %s: %s" % (m.get("sender"), m.get("seq"),
                                                             m.get("receiver"),
                                                             m.get("problem")))
        r.selected = len(nodes)
        r.links = len(doc.get("messages") or [])
        if problems:
            r.message = "exit 0 but " + "; ".join(problems)
            return
        r.ok = True

    def negative(self, ex, elf, seed, outdir, viol):
        r = Result(ex.name, "negative", seed)
        bad = outdir + "-corrupt"
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(outdir, bad)
        addr = symbol_address(elf, ex.corrupt)
        path = os.path.join(bad, "node%d" % viol["node"], "sram.bin")
        data = bytearray(open(path, "rb").read())
        data[addr] ^= 1
        open(path, "wb").write(bytes(data))
        cmd, rc, doc, err = self.replay_net(bad)
        r.commands.append(shell_line(cmd))
        last = ((doc or {}).get("nodes") or [{}])[-1]
        differ = (last.get("compare") or {}).get("differ")
        if rc == 1 and (doc or {}).get("status") != "reproduced" and differ and differ >= 1:
            r.ok = True
        else:
            r.message = "flipped a byte of %s: expected exit 1 and a difference, got exit %s, " \
                        "status %r, differ %r" % (ex.corrupt, rc, (doc or {}).get("status"),
                                                  differ)
        if not self.args.keep:
            shutil.rmtree(bad, ignore_errors=True)
        return r


def report(results, args):
    rows = {}
    for r in results:
        rows.setdefault((r.example, r.mode), []).append(r)
    print("%-10s %-9s %6s %7s %7s %9s %6s %9s %9s %6s" % (
        "example", "mode", "seeds", "passed", "failed", "pass rate", "multi", "replayed",
        "compared", "links"))
    print("-" * 88)
    total = failed = 0
    for (ex, mode), rs in rows.items():
        ok = sum(1 for r in rs if r.ok)
        total += len(rs)
        failed += len(rs) - ok
        if mode == "net":
            multi = sum(1 for r in rs if r.selected > 1)
            replayed = sum(r.selected for r in rs)
            compared = sum(r.compared for r in rs)
            links = sum(r.links for r in rs)
            print("%-10s %-9s %6d %7d %7d %8.1f%% %6d %9d %9d %6d" % (
                ex, mode, len(rs), ok, len(rs) - ok, 100.0 * ok / len(rs), multi, replayed,
                compared, links))
        else:
            print("%-10s %-9s %6d %7d %7d %8.1f%%" % (ex, mode, len(rs), ok, len(rs) - ok,
                                                      100.0 * ok / len(rs)))
    print("-" * 88)
    print("%-10s %-9s %6d %7d %7d %8.1f%%" % ("all", "", total, total - failed, failed,
                                              100.0 * (total - failed) / max(total, 1)))
    reasons = {}
    for r in results:
        for why in r.not_compared:
            key = why.split(" (record")[0] if "skipped at site" not in why else \
                "trace read inside a skipped call"
            reasons[key] = reasons.get(key, 0) + 1
    if reasons:
        print("\nnodes replayed but not compared with their SRAM:")
        for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print("  %5d x %s" % (n, why))
    for (ex, mode), rs in rows.items():
        bad = [r for r in rs if not r.ok]
        if not bad:
            continue
        print("\nfailures: %s / %s (%d of %d seeds)" % (ex, mode, len(bad), len(rs)))
        msgs = {}
        for r in bad:
            msgs.setdefault(r.message, []).append(r.seed)
        for m, seeds in sorted(msgs.items(), key=lambda kv: -len(kv[1]))[:4]:
            print("  %4d x %s\n         seeds %s" % (len(seeds), m[:300],
                                                   ", ".join(map(str, seeds[:8]))))
        print("  reproduce seed %d:" % bad[0].seed)
        for c in bad[0].commands:
            print("    " + c)
    return failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="directory of wsn-cc, wsn-sim, wsn-replay")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per example")
    ap.add_argument("--start", type=int, default=1, help="first seed")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--examples", help="comma-separated subset of: " +
                    ", ".join(e.name for e in NET_EXAMPLES))
    ap.add_argument("--negative-seeds", type=int, default=5)
    ap.add_argument("--work", help="work directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the runs of passing seeds too")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool run")
    ap.add_argument("--check", action="store_true", help="exit 1 when any seed fails")
    ap.add_argument("--json-out", help="write every result as JSON here")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    bindir = os.path.abspath(args.bin) if args.bin else os.path.join(ROOT, "build", "bin")
    examples = NET_EXAMPLES
    if args.examples:
        want = [x.strip() for x in args.examples.split(",") if x.strip()]
        unknown = [w for w in want if w not in [e.name for e in NET_EXAMPLES]]
        if unknown:
            ap.error("unknown example(s) %s" % ", ".join(unknown))
        examples = [e for e in NET_EXAMPLES if e.name in want]
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="wsn-netfid-")
    os.makedirs(work, exist_ok=True)
    h = NetHarness(args, bindir, work)
    t0 = time.perf_counter()
    elfs = {ex.name: h.build(ex) for ex in examples}
    jobs = [(ex, s) for ex in examples for s in range(args.start, args.start + args.seeds)]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(h.seed_job, ex, elfs[ex.name], s) for ex, s in jobs]
        for i, f in enumerate(concurrent.futures.as_completed(futs)):
            results.extend(f.result())
            if not args.quiet and (i + 1) % 25 == 0:
                print("netfidelity: %d of %d seeds" % (i + 1, len(jobs)), file=sys.stderr)
    results.sort(key=lambda r: (r.example, r.mode, r.seed))
    print("netfidelity: %d seeds from %d per example, %d jobs, total %.1fs" % (
        args.seeds, args.start, args.jobs, time.perf_counter() - t0))
    failed = report(results, args)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump([r.__dict__ for r in results], f, indent=1)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
