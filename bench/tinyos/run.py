#!/usr/bin/env python3
"""bench/tinyos/run.py - nesC applications (TinyOS's build/<platform>/app.c) through wsn-trace.

  run.py --bin build/bin --apps DIR [--platform auto|micaz|telosb] [--seeds N] [--first-seed F]
         [--seconds S] [--warmup S]
         [--only App,...] [--wsn-cc-arg ARG]... [--work DIR] [--interleave]
         [--time-limit MINUTES] [--json-out FILE] [--check]

--platform auto (the default) takes the platform from DIR's name when it is one (e.g.
/work/scratch/apps/telosb), else micaz. wsn-sim runs both: MicaZ images on libsimavr, TelosB
(msp430f1611) images on its MSP430 core with the TelosB board (spec/telosb.md).

DIR holds one subdirectory per application:
  app.c         the nesC compiler's output (what `make micaz` leaves in build/micaz/app.c)
  invariants.c  optional: invariants (wsn/invariant.h) over the app's globals; the traced build
                adds it with --check-at=writes, so the app itself stays unchanged
  topology      optional: a wsn-sim net topology (spec/wsn-sim.md section 5) -> network run
  nodes         optional: the node count (ids 0..N-1); without a topology every pair of nodes
                gets a -60 dBm link and every node a -98 dBm noise floor
  sim-args      optional: extra wsn-sim arguments, one line (e.g. `--adc 0:1023`)

For each application:
  1. builds the original (`wsn-cc --no-trace`) and the traced firmware (defaults: level 1, the
     default ring) for the platform's MCU; flash = text+data and RAM = data+bss (llvm-size),
     with traced/original ratios;
  2. runs each image alone in wsn-sim for --seconds (seed 1) and, when a topology or node count
     is given, the original as a network; reads run.json / net.json: boots and timer fires
     (`--count-pc` on the scheduler's task dispatcher and the timer component, when wsn-sim
     offers it), LED changes, frames sent and received (network), invariant checks (traced),
     and the active (not sleeping) cycles of each run alone, printed as traced/original over
     the same simulated time (a traced run that stopped at a violation is compared with a
     second original run to that cycle), and the same after a warm-up (--warmup seconds of
     boot left out: "steady"; `bench/tinyos/profile.py` breaks them down by function, wsn-sim --profile);
  3. with invariants.c, records and replays over --seeds seeds, three stops per seed:
       violation  wsn-sim until the invariant is violated (at most --violation-seconds);
                  wsn-replay --expect-sram
       check      the K-th check, K drawn in [1, checks of the violation run]; both stop there.
                  When the ring kept no checkpoint at the K-th check, K moves on (counted)
       bound      a cycle bound drawn in [1/4, 1) of the violation run's cycles (a node stopped
                  at an arbitrary moment); wsn-replay replays to the end of the trace. When
                  wsn-sim offers --settle, the snapshot is taken where replay ends; bounds
                  that no replay can end at are moved on or drawn again (see bound_stop; both
                  counted under the table)
     Every replay's outcome is appended to WORK/APP/seeds.jsonl (with its setup adjustments;
     the violation line also with its recording: trace.wtr's sha256 and the violation cycle).
     Each seed is another physical run (wsn-sim's seeded clocks, spec/wsn-sim.md section 4):
     the notes count the distinct violation traces and violation cycles.
     A replay passes when wsn-replay exits 0 and its --json report says the SRAM comparison
     covered at least one global and found no difference (and, for violation/check, that it
     stopped at a record of that kind).
A column the tools cannot produce prints "n/a" and the reason is listed under the table.
--check: exit 1 unless every build and replay succeeded.
--wsn-cc-arg passes one argument to both builds; write it with '=' when it starts with a dash
(--wsn-cc-arg=--trace-seg=512).
"""
import argparse
import hashlib
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "fidelity"))
import tracetail  # noqa: E402  (the trace-tail rules bench/fidelity uses too)

LLVM = "/usr/lib/llvm-19/bin"
PLATFORMS = {
    # platform: (wsn-cc target, MCU, CPU clock in Hz)
    "micaz": ("avr", "atmega128", 7372800),
    "telosb": ("msp430", "msp430f1611", 4194304),
}
# Functions that mark progress, in both of nescc's separators ($ and __). Any that clang kept
# out of line are counted with wsn-sim --count-pc.
BOOT_SYMBOLS = ["SchedulerBasicP{s}TaskBasic{s}runTask", "McuSleepC{s}McuSleep{s}sleep"]
TIMER_SYMBOLS = ["VirtualizeTimerC{s}0{s}fireTimers"]
SEPARATORS = ("__", "$")
DEFAULT_LINK_DBM = -60.0
DEFAULT_NOISE_DBM = -98.0
TIMEOUT = 600
MODES = ("violation", "check", "bound")
DRAWS = 10   # bounds drawn per bound stop at most (bound_stop)


def run(cmd, timeout=TIMEOUT):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", "timed out after %d s" % timeout


def first_error(text):
    """The most telling line of a tool's stderr: a located compiler or linker error
    (FILE:LINE:COL: error: ..., ld.lld: error: ...) with the wsn-cc stage that printed it,
    else the first line saying 'error', else the first line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    stage = None
    for l in lines:
        m = re.match(r"wsn-cc: error: stage '(\S+)", l)
        if m:
            stage = m.group(1)
            continue
        if "error:" in l:
            return l + (" (wsn-cc stage '%s')" % stage if stage else "")
    for l in lines:
        if "error" in l.lower():
            return l
    return lines[0] if lines else "(no message)"


def llvm_size(elf):
    out = subprocess.run([os.path.join(LLVM, "llvm-size"), elf], capture_output=True,
                         text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return text + data, data + bss


def function_symbols(elf):
    out = subprocess.run([os.path.join(LLVM, "llvm-nm"), "--defined-only", elf],
                         capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines()) if len(f) == 3 and f[1] in "Tt"}


def pick_symbol(patterns, syms):
    for p in patterns:
        for sep in SEPARATORS:
            name = p.format(s=sep)
            if name in syms:
                return name
    return None


class Tools:
    def __init__(self, bindir):
        self.cc = os.path.join(bindir, "wsn-cc")
        self.sim = os.path.join(bindir, "wsn-sim")
        self.replay = os.path.join(bindir, "wsn-replay")
        self.dump = os.path.join(bindir, "wsn-trace-dump")
        for t in (self.cc, self.sim, self.replay, self.dump):
            if not os.access(t, os.X_OK):
                sys.exit("run.py: %s not found (build the project first)" % t)
        # wsn-sim prints its usage on an unknown option; options it lists are supported.
        _, out, err = run([self.sim, "run", "--usage-probe"], 30)
        self.sim_usage = out + err
        self.count_pc = "--count-pc" in self.sim_usage
        self.settle = "--settle" in self.sim_usage


class App:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.src = os.path.join(path, "app.c")
        inv = os.path.join(path, "invariants.c")
        self.invariants = inv if os.path.exists(inv) else None
        topo = os.path.join(path, "topology")
        self.topology = topo if os.path.exists(topo) else None
        self.nodes = None
        npath = os.path.join(path, "nodes")
        if os.path.exists(npath):
            with open(npath) as f:
                text = f.read().strip()
            if not re.fullmatch(r"[0-9]+", text) or not 1 <= int(text) <= 1000:
                sys.exit("run.py: %s: expected a node count 1..1000, got %r" % (npath, text))
            self.nodes = int(text)
        self.sim_args = []
        spath = os.path.join(path, "sim-args")
        if os.path.exists(spath):
            with open(spath) as f:
                self.sim_args = shlex.split(f.read())
        self.row = {}
        self.notes = []   # reasons for n/a cells and failures

    def note(self, text):
        text = " ".join(text.split())   # tools' messages may span lines
        if text not in self.notes:
            self.notes.append(text)


class Runner:
    def __init__(self, args, tools):
        self.a, self.t = args, tools
        self.target, self.mcu, self.freq = PLATFORMS[args.platform]
        self.failures = 0
        self.start, self.stopped_early = time.time(), False
        self.modes = [m for m in MODES if m in args.modes.split(",")]

    # -- builds -----------------------------------------------------------------------------
    def build(self, app, work):
        base = [self.t.cc, "--target=" + self.target, "--mcu=" + self.mcu] + self.a.wsn_cc_arg
        builds = {}
        for kind, extra, srcs in (
                ("original", ["--no-trace"], [app.src]),
                ("traced", ["--check-at=writes"] if app.invariants else [],
                 [app.src] + ([app.invariants] if app.invariants else []))):
            out = os.path.join(work, kind)
            rc, _, err = run(base + extra + ["-o", out] + srcs)
            if rc != 0:
                app.note("%s build: %s" % (kind, first_error(err)))
                self.failures += 1
                builds[kind] = None
                continue
            elf = out + ".elf"
            builds[kind] = {"elf": elf, "size": llvm_size(elf), "out": out}
        return builds

    # -- wsn-sim ----------------------------------------------------------------------------
    def counters(self, app, elf):
        """--count-pc arguments and the symbols they count: (args, {role: symbol})."""
        if not self.t.count_pc:
            app.note("this wsn-sim has no --count-pc: boots counted by a sign of life (an LED "
                     "change or the CC2420 powered), timers n/a")
            return [], {}
        syms = function_symbols(elf)
        roles = {}
        for role, pats in (("boot", BOOT_SYMBOLS), ("timer", TIMER_SYMBOLS)):
            s = pick_symbol(pats, syms)
            if s:
                roles[role] = s
            else:
                app.note("%s: none of %s is an out-of-line function in %s (inlined or "
                         "absent)%s" % (role, ", ".join(p.format(s="__") for p in pats),
                                        os.path.basename(elf),
                                        "; counted by a sign of life" if role == "boot" else
                                        ": n/a"))
        args = []
        for s in sorted(set(roles.values())):
            args += ["--count-pc", s]
        return args, roles

    def sim_alone(self, app, kind, build, work, cycles=None, name=None):
        d = os.path.join(work, "run-" + (name or kind))
        cargs, roles = self.counters(app, build["elf"])
        cycles = cycles or int(self.a.seconds * self.freq)
        cmd = [self.t.sim, "run", build["elf"], "--mcu", self.mcu, "--seed", "1", "-o", d,
               "--max-cycles", str(cycles)] + cargs + app.sim_args
        rc, _, err = run(cmd)
        if rc != 0:
            app.note("%s alone: %s" % (kind, first_error(err)))
            return None
        with open(os.path.join(d, "run.json")) as f:
            info = json.load(f)
        return self.summarise([info], roles, app, kind)

    def summarise(self, infos, roles, app, kind):
        s = {"stop": ",".join(sorted({i.get("stop", "?") for i in infos}))}
        pcs = [i.get("pc_counts") for i in infos]
        for role in ("boot", "timer"):
            sym = roles.get(role)
            if sym and all(isinstance(p, dict) and sym in p for p in pcs):
                counts = [p[sym]["count"] if isinstance(p[sym], dict) else p[sym] for p in pcs]
                s[role] = counts
            elif sym:
                app.note("%s (%s): n/a: run.json has no pc_counts for %s" % (role, kind, sym))
        if "boot" not in s and not roles.get("boot") and all(
                isinstance(i.get("leds"), dict) or "cc2420" in i for i in infos):
            # Without a PC count: a node that changed an LED or powered its radio has booted
            # (TinyOS starts both from Boot.booted or the init before it).
            s["boot"] = [int(bool((i.get("leds") or {}).get("changes")) or
                             isinstance(i.get("cc2420"), dict)) for i in infos]
        if all(isinstance(i.get("leds"), dict) for i in infos):
            s["leds"] = sum(i["leds"].get("changes", 0) for i in infos)
        else:
            app.note("LEDs: n/a: run.json has no 'leds' (wsn-sim without a board for this MCU)")
        # Active (not sleeping) cycles and all cycles, for the cycle overhead (issue 17).
        if all(isinstance(i.get("active_cycles"), int) for i in infos):
            s["active"] = sum(i["active_cycles"] for i in infos)
            s["cycles"] = sum(i.get("cycles", 0) for i in infos)
        checks = [i.get("checks") for i in infos]
        if all(isinstance(c, int) for c in checks):
            s["checks"] = sum(checks)
        # Frames: the CC2420's counters (run.json "cc2420", null when the radio was never
        # powered) plus the UART radio's ("radio", network nodes) when a node has them.
        if all("cc2420" in i or isinstance(i.get("radio"), dict) for i in infos):
            s["tx"] = s["rx"] = 0
            for i in infos:
                for key in ("cc2420", "radio"):
                    r = i.get(key)
                    if isinstance(r, dict):
                        s["tx"] += r.get("frames_sent", 0)
                        s["rx"] += r.get("frames_received", 0)
        return s

    def topology(self, app, work):
        """(topology path, node ids) for the network run, or None."""
        if app.topology:
            ids = set()
            with open(app.topology) as f:
                for line in f:
                    # node ids only; wsn-sim reads (and checks) the file itself
                    w = line.split()
                    if w and w[0] == "gain" and len(w) >= 3 and w[1].isdigit() and \
                            w[2].isdigit():
                        ids.update((int(w[1]), int(w[2])))
                    elif w and w[0] == "noise" and len(w) >= 2 and w[1].isdigit():
                        ids.add(int(w[1]))
            if not ids:
                app.note("network: no node id in %s" % app.topology)
                return None
            if app.nodes:
                ids = {i for i in ids if i < app.nodes} or set(range(app.nodes))
            return app.topology, sorted(ids)
        if not app.nodes:
            return None
        path = os.path.join(work, "mesh.topo")
        with open(path, "w") as f:
            f.write("# written by bench/tinyos/run.py: every pair linked\n")
            for i in range(app.nodes):
                for j in range(app.nodes):
                    if i != j:
                        f.write("gain %d %d %.1f\n" % (i, j, DEFAULT_LINK_DBM))
                f.write("noise %d %.1f 0.0\n" % (i, DEFAULT_NOISE_DBM))
        return path, list(range(app.nodes))

    def sim_net(self, app, build, work):
        topo = self.topology(app, work)
        if not topo:
            return None
        path, ids = topo
        d = os.path.join(work, "net")
        cargs, roles = self.counters(app, build["elf"])
        cmd = [self.t.sim, "net", path, "--seed", "1", "-o", d, "--mcu", self.mcu,
               "--seconds", str(self.a.seconds), "--progress", "none"] + cargs + app.sim_args
        for i in ids:
            cmd += ["--node", "%d=%s" % (i, build["elf"])]
        rc, _, err = run(cmd)
        if rc != 0:
            app.note("network (%d nodes): %s" % (len(ids), first_error(err)))
            return {"nodes": len(ids)}
        infos = []
        for i in ids:
            with open(os.path.join(d, "node%d" % i, "run.json")) as f:
                infos.append(json.load(f))
        s = self.summarise(infos, roles, app, "network")
        s["nodes"] = len(ids)
        return s

    # -- record and replay ------------------------------------------------------------------
    def replay_one(self, build, rundir, stop_after, want):
        cmd = [self.t.replay, build["out"] + ".replay.bc", "--trace",
               os.path.join(rundir, "trace.wtr"), "--elf", build["elf"], "--map",
               build["out"] + ".wmap", "--expect-sram", os.path.join(rundir, "sram.bin"),
               "--json"]
        if stop_after is not None:
            cmd += ["--stop-after-checks", str(stop_after)]
        cmd += ["--timeout", str(self.a.replay_timeout)]
        rc, out, err = run(cmd)
        try:
            doc = json.loads(out)
        except ValueError:
            doc = None
        if rc != 0 or not isinstance(doc, dict):
            msg = (doc or {}).get("message") if isinstance(doc, dict) else None
            return "wsn-replay exit %s: %s" % (rc, msg or first_error(err or out))
        cmp_ = doc.get("compare") or {}
        kind = (doc.get("stop") or {}).get("kind")
        if not cmp_.get("globals"):
            return "no global compared"
        if cmp_.get("differ"):
            return "%d globals differ from the simulator's SRAM" % cmp_["differ"]
        if kind not in want:
            return "stopped at %r, expected %s" % (kind, "/".join(want))
        return None

    def sim_traced(self, app, build, seed, d, extra):
        cmd = [self.t.sim, "run", build["elf"], "--mcu", self.mcu, "--seed", str(seed),
               "-o", d] + app.sim_args + extra
        rc, _, err = run(cmd)
        if rc != 0:
            return None, first_error(err)
        with open(os.path.join(d, "run.json")) as f:
            return json.load(f), None

    def tail_state(self, trace):
        """tracetail.tail_state of a trace (bench/fidelity/tracetail.py, as
        bench/fidelity/fidelity.py reads it): (holds a CHECKPOINT, ends inside a skipped call,
        a closed trace ends with a CHECK, ends inside an interrupt handler)."""
        return tracetail.tail_state(self.t.dump, trace, TIMEOUT)

    def bound_stop(self, app, build, seed, d, cycles, rng, setup):
        """Stops the violation run's seed at a cycle drawn in [cycles/4, cycles): (info, error).
        With wsn-sim --settle (the SRAM snapshot taken where replay ends: the next record or
        the sleep), a bound where an interrupt came first, where the ring kept no checkpoint,
        inside a skipped call (whose writes only its EFFECT record carries), right after a
        CHECK or inside an interrupt handler moves on by 997 cycles, at most 50 times, as bench/fidelity does; a bound whose
        moves find no such point (an interrupt-dense stretch), or whose ring holds no
        checkpoint (the records since the last anchor visit fill it), is drawn again, at most
        DRAWS times in all. Moves and redraws are counted in setup, by reason."""
        extra = ["--settle"] if self.t.settle else []
        why = None
        for draw in range(DRAWS):
            b = rng.randint(max(1, cycles // 4), max(1, cycles - 1))
            for moves in range(51):
                info, err = self.sim_traced(app, build, seed, d,
                                            ["--max-cycles", str(b)] + extra)
                if err:
                    return None, err
                if info.get("stop") != "bound":
                    return None, "sim stop %s before the bound %d" % (info.get("stop"), b)
                if not self.t.settle:
                    return info, None
                has_cp, in_skip, at_check, in_handler = self.tail_state(
                    os.path.join(d, "trace.wtr"))
                with open(os.path.join(d, "trace.wtr"), "rb") as f:
                    head = f.read(32)
                # The header's violation flag (bit 1) is set once the VIOLATION record opens,
                # before the hook where the violation run stops: a bound there is that run's
                # own stop, and moving on passes the hook (bench/fidelity does the same).
                at_violation = len(head) == 32 and head[:4] == b"WTRB" and bool(head[18] & 2)
                reasons = [r for r, flag in (
                    ("no snapshot point (settle %s)" % info.get("settle"),
                     info.get("settle") not in ("record", "sleep")),
                    ("no checkpoint in the ring", not has_cp),
                    ("inside a skipped call", in_skip),
                    ("right after a check", at_check),
                    ("inside an interrupt handler", in_handler),
                    ("in the violation's record", at_violation)) if flag]
                if not reasons:
                    break
                for r in reasons:
                    setup["bound moves: " + r] = setup.get("bound moves: " + r, 0) + 1
                why = reasons[0]
                if not has_cp or at_violation:
                    # The records since the last anchor visit fill the ring (a stretch that
                    # can last many thousands of cycles: a task's skipped calls and the radio
                    # handlers' effects): moving on by 997 cycles rarely leaves it; another
                    # bound is drawn instead.
                    break
                if b + 997 >= cycles:
                    break
                b += 997
            if not reasons:
                if draw:
                    setup["bounds drawn again"] = setup.get("bounds drawn again", 0) + draw
                return info, None
        return None, "%d bounds and their moves found no point to replay to (last: %s)" % (
            DRAWS, why)

    def has_checkpoint(self, trace):
        return self.tail_state(trace)[0]

    def replay_campaign(self, app, build, work):
        state = self.campaign_state(work)
        first = self.a.first_seed
        for seed in range(first, first + self.a.seeds):
            if self.out_of_time():
                break
            self.replay_seed(app, build, work, seed, state)
        return self.campaign_result(app, state)

    def out_of_time(self):
        """--time-limit: no new seed starts once the limit has passed (noted once)."""
        if self.a.time_limit is None or time.time() < self.start + self.a.time_limit * 60:
            return False
        if not self.stopped_early:
            self.stopped_early = True
            sys.stderr.write("run.py: --time-limit %g min reached: no further seeds\n" %
                             self.a.time_limit)
        return True

    def campaign_state(self, work):
        """Counters of one application's campaign: res (mode: [passed, tried]), msgs
        ((message, mode): seeds), setup (setup adjustments: moved K, moved or redrawn bounds,
        and their counts) and log (WORK/APP/seeds.jsonl, one line per replay)."""
        return {"res": {m: [0, 0] for m in MODES}, "msgs": {}, "setup": {},
                "log": open(os.path.join(work, "seeds.jsonl"), "a"),
                "recordings": set(), "violation_cycles": set()}   # trace sha256s, cycles

    def replay_seed(self, app, build, work, seed, st):
        """Records one seed until its violation and replays the three stops."""
        res, msgs, setup, log = st["res"], st["msgs"], st["setup"], st["log"]
        bound = str(int(self.a.violation_seconds * self.freq))
        rng = random.Random("%s/%d" % (app.name, seed))
        vdir = os.path.join(work, "seed%d-violation" % seed)

        recorded = {}   # the violation recording: its trace's sha256 and cycle

        def outcome(mode, why, k=None, adj=None):
            line = {"seed": seed, "mode": mode, "k": k, "error": why}
            if mode == "violation" and recorded:
                line.update(recorded)
            if adj:
                line["setup"] = adj
                for what, n in adj.items():
                    setup[what] = setup.get(what, 0) + n
            log.write(json.dumps(line) + "\n")
            if why:
                msgs.setdefault((why, mode), []).append(seed)
            else:
                res[mode][0] += 1

        info, err = self.sim_traced(app, build, seed, vdir, ["--max-cycles", bound])
        if info is None or info.get("stop") != "violation":
            # Every stop kind needs the violation run (K and the bound are drawn from it).
            why = err or "no violation within %s s (stop %s)" % (
                self.a.violation_seconds, info.get("stop"))
            for mode in self.modes:
                res[mode][1] += 1
                outcome(mode, why)
            log.flush()
            return
        # Each seed is a physical run (wsn-sim's seeded clocks, spec/wsn-sim.md section 4):
        # count the distinct violation recordings.
        with open(os.path.join(vdir, "trace.wtr"), "rb") as f:
            recorded = {"trace_sha256": hashlib.sha256(f.read()).hexdigest(),
                        "violation_cycle": info["cycles"]}
        st["recordings"].add(recorded["trace_sha256"])
        st["violation_cycles"].add(info["cycles"])
        st.setdefault("recorded", 0)
        st["recorded"] += 1
        for mode in self.modes:
            res[mode][1] += 1
            adj = {}   # this stop's setup adjustments
            if mode == "violation":
                rdir, k, want = vdir, None, ("violation",)
            elif mode == "check":
                k = rng.randint(1, max(1, info["checks"]))
                rdir, want = os.path.join(work, "seed%d-check" % seed), ("check", "violation")
                while True:
                    i2, err = self.sim_traced(app, build, seed, rdir, [
                        "--max-cycles", bound, "--stop-after-checks", str(k)])
                    if i2 is None or i2.get("stop") != "checks" or k >= info["checks"] \
                            or self.has_checkpoint(os.path.join(rdir, "trace.wtr")):
                        break
                    # The ring kept no checkpoint at the K-th check (the records since the
                    # last anchor visit filled it): nothing to replay from; K moves on, as in
                    # bench/fidelity's wrap modes.
                    adj["K moved: no checkpoint"] = adj.get("K moved: no checkpoint", 0) + 1
                    k += 1
                if i2 is None or i2.get("stop") != "checks":
                    outcome(mode, err or "sim stop %s" % i2.get("stop"), k, adj)
                    continue
            else:
                # a trace that ends right after a CHECK record replays to that check
                rdir, k, want = (os.path.join(work, "seed%d-bound" % seed), None,
                                 ("end", "check"))
                i2, err = self.bound_stop(app, build, seed, rdir, info["cycles"], rng, adj)
                if err:
                    outcome(mode, err, None, adj)
                    continue
            outcome(mode, self.replay_one(build, rdir, k, want), k, adj)
        log.flush()

    def campaign_result(self, app, st):
        res, msgs, setup = st["res"], st["msgs"], st["setup"]
        recordings = {"runs": st.get("recorded", 0), "distinct_traces": len(st["recordings"]),
                      "distinct_cycles": len(st["violation_cycles"])}
        st["log"].close()
        if st.get("recorded"):
            app.note("recordings: %d violation runs, %d distinct traces (sha256 of trace.wtr), "
                     "%d distinct violation cycles" % (st["recorded"], len(st["recordings"]),
                                                      len(st["violation_cycles"])))
        for what, n in sorted(setup.items()):
            app.note("replay setup: %s: %d" % (what, n))
        # one note per distinct message, naming the stop kinds and seeds that gave it
        for why in sorted({w for w, _ in msgs}):
            parts = []
            for mode in MODES:
                seeds = msgs.get((why, mode))
                if seeds:
                    self.failures += len(seeds)
                    parts.append("%s seeds %s%s" % (mode, ",".join(map(str, seeds[:8])),
                                                    ",..." if len(seeds) > 8 else ""))
            app.note("replay (%s): %s" % ("; ".join(parts), why))
        out = dict(res)
        out["setup"] = dict(setup)
        out["recordings"] = recordings
        return out

    # -- one application --------------------------------------------------------------------
    def app(self, app, campaign=True):
        """Builds, runs alone and as a network; with campaign, the replay campaign too."""
        work = os.path.join(self.a.work, app.name)
        os.makedirs(work, exist_ok=True)
        r = app.row
        b = self.build(app, work)
        r["builds"] = b
        for kind in ("original", "traced"):
            if b.get(kind):
                r["alone-" + kind] = self.sim_alone(app, kind, b[kind], work)
        # The active-cycle overhead compares the same stretch of simulated time: a traced run
        # that stopped at a violation before the bound is compared with the original run to
        # that cycle (window). Shares of two runs of different lengths are not comparable:
        # a TinyOS node is busiest right after boot (radio start-up), so a shorter run has a
        # larger active share whether traced or not (MicaZ Oscilloscope: 1.46 as shares of
        # 26.5 M against 36.9 M cycles; +4% over the same 26.5 M).
        ao, at = r.get("alone-original"), r.get("alone-traced")
        if ao and at and at.get("cycles") and ao.get("cycles") and at["cycles"] < 0.99 * ao["cycles"]:
            r["alone-original-window"] = self.sim_alone(app, "original", b["original"], work,
                                                        cycles=at["cycles"],
                                                        name="original-window")
        # The traced image must behave as the original: the network run (below) runs the
        # originals, so the radio is compared here, on the runs alone over the same window.
        # A traced node that sends less than half the original's frames is a probe effect
        # (session 18: RadioCountToLeds built with --instrument=all sent 0 of 7 frames in
        # 3 s, its CSMA backoff alarm never firing again after the first send).
        ow = r.get("alone-original-window") or ao
        if ow and at and "tx" in ow and "tx" in at and ow["tx"] >= 2 and 2 * at["tx"] < ow["tx"]:
            app.note("probe effect: the traced node alone sent %d frames, the original %d over "
                     "the same time" % (at["tx"], ow["tx"]))
            self.failures += 1
        # Steady state: the active cycles after --warmup seconds (boot and radio start-up)
        # to the end of the same window, from a second run of each image to the warm-up's
        # end. A TinyOS node's boot is most of its active cycles in a few seconds (MicaZ
        # RadioCountToLeds: active for its first 8.0 M cycles, 1.09 s, then about 30 K a
        # second), and tracing costs little there, so the ratio from reset hides what the
        # trace costs per second (that app: 1.16 from reset over 5 s, 11.5 from 2 s to 4 s).
        warm = int(self.a.warmup * self.freq)
        if ao and at and at.get("cycles", 0) > warm > 0:
            for kind in ("original", "traced"):
                r["alone-%s-warm" % kind] = self.sim_alone(app, kind, b[kind], work,
                                                           cycles=warm, name=kind + "-warm")
        if b.get("original"):
            r["net"] = self.sim_net(app, b["original"], work)
        if campaign and app.invariants and b.get("traced"):
            r["replay"] = self.replay_campaign(app, b["traced"], work)

    def interleaved(self, apps):
        """--interleave: every app built and run first, then the replay campaigns seed by
        seed over all apps (seed s of every app before seed s+1), so that a campaign stopped
        early has the same seeds for every app."""
        todo = []
        for app in apps:
            sys.stderr.write("run.py: %s\n" % app.name)
            self.app(app, campaign=False)
            build = app.row["builds"].get("traced")
            if app.invariants and build:
                work = os.path.join(self.a.work, app.name)
                todo.append((app, build, work, self.campaign_state(work)))
        first = self.a.first_seed
        for seed in range(first, first + self.a.seeds):
            if self.out_of_time():
                break
            for app, build, work, st in todo:
                self.replay_seed(app, build, work, seed, st)
            sys.stderr.write("run.py: seed %d done\n" % seed)
        for app, build, work, st in todo:
            app.row["replay"] = self.campaign_result(app, st)


def cell_sizes(b, idx):
    o, t = b.get("original"), b.get("traced")
    if not o and not t:
        return "-"
    if o and t:
        return "%d/%d (%.2f)" % (o["size"][idx], t["size"][idx], t["size"][idx] / o["size"][idx])
    return "%s/%s" % (o["size"][idx] if o else "-", t["size"][idx] if t else "-")


def cell_active(ao, at, aow=None):
    """Active cycles traced/original over the same simulated time: when the traced run
    stopped at a violation before the bound, against the original's run to that cycle (aow,
    the window run); else both runs lasted the bound."""
    if aow and aow.get("active") and aow.get("cycles"):
        ao = aow
    if not ao or not at or not ao.get("active") or not at.get("cycles") or not ao.get("cycles"):
        return "n/a"
    # Shares of each run's cycles (a bound stops at the first instruction boundary past it,
    # so equal windows differ by a few cycles); '*' when the windows differ by over 1 %.
    r = (at["active"] / at["cycles"]) / (ao["active"] / ao["cycles"])
    return "%.2f%s" % (r, "*" if abs(ao["cycles"] - at["cycles"]) > at["cycles"] / 100 else "")


def cell_steady(r):
    """Active cycles after the warm-up, traced over original, over the same window: the
    window ends where the traced run stopped (the original's window run when it stopped
    early)."""
    at, ao = r.get("alone-traced"), r.get("alone-original-window") or r.get("alone-original")
    wt, wo = r.get("alone-traced-warm"), r.get("alone-original-warm")
    if not all(x and x.get("active") is not None and x.get("cycles") for x in (at, ao, wt, wo)):
        return "n/a"
    dt, do = at["active"] - wt["active"], ao["active"] - wo["active"]
    lt, lo = at["cycles"] - wt["cycles"], ao["cycles"] - wo["cycles"]
    if do <= 0 or lt <= 0 or lo <= 0:
        return "n/a"
    return "%.2f" % ((dt / lt) / (do / lo))


def cell(summary, key, fmt=str):
    if not summary or key not in summary:
        return "n/a"
    return fmt(summary[key])


def boots(counts):
    return "%d/%d" % (sum(1 for c in counts if c > 0), len(counts))


def print_table(apps, args, out=sys.stdout):
    target, mcu, _ = PLATFORMS[args.platform]
    out.write("TinyOS applications on %s (%s), %.3g simulated s, seed 1; flash = text+data, "
              "RAM = data+bss, original/traced (ratio)\n" % (args.platform, mcu, args.seconds))
    head = ("%-22s %-7s %-20s %-18s %-6s %-6s %-6s %-8s %-9s %-9s %-6s %-8s %-7s %-22s" % (
        "app", "builds", "flash", "RAM", "active", "steady", "boots", "timers", "LEDs", "net", "nLEDs",
        "frames", "checks", "replay viol/check/bound"))
    out.write(head + "\n" + "-" * len(head) + "\n")
    for app in apps:
        r = app.row
        b = r.get("builds", {})
        built = "".join("y" if b.get(k) else "n" for k in ("original", "traced"))
        ao, at, net = r.get("alone-original"), r.get("alone-traced"), r.get("net")
        leds = "%s/%s" % (cell(ao, "leds"), cell(at, "leds"))
        netc = ("%d nodes" % net["nodes"]) if net else "-"
        fsrc = net if net else ao
        frames = ("%s/%s" % (fsrc["tx"], fsrc["rx"]) if "tx" in fsrc else "n/a") if fsrc else "-"
        if fsrc and "stop" in fsrc and "tx" not in fsrc:
            app.note("frames: n/a: run.json has no 'cc2420' or 'radio' counters")
        boot_src = net if net and "boot" in net else ao
        rep = r.get("replay")
        if rep:
            repc = " ".join("%d/%d" % tuple(rep[m]) if rep[m][1] else "-" for m in MODES)
        else:
            repc = "-" if not app.invariants else "n/a"
        out.write(("%-22s %-7s %-20s %-18s %-6s %-6s %-6s %-8s %-9s %-9s %-6s %-8s %-7s %-22s" % (
            app.name[:22], built, cell_sizes(b, 0), cell_sizes(b, 1),
            cell_active(ao, at, r.get("alone-original-window")), cell_steady(r),
            cell(boot_src, "boot", boots), cell(boot_src, "timer", lambda c: str(sum(c))),
            leds, netc, cell(net, "leds") if net else "-", frames, cell(at, "checks"),
            repc)).rstrip() + "\n")
    out.write("\nbuilds: original, traced (y/n); active: active (not sleeping) cycles of the "
              "traced run alone over the original's over the same simulated time (run.json "
              "active_cycles; a traced run that stopped at a violation is compared with the "
              "original run to that cycle; * marks a ratio of active shares of runs whose "
              "lengths differ by over 1 %, when that second run failed; the overhead target "
              "is at most 1.05); steady: the same after the first --warmup seconds (boot and "
              "radio start-up), from second runs to the warm-up's end; boots: nodes whose scheduler ran a task "
              "(Boot.booted returned), or without --count-pc nodes that changed an LED or "
              "powered the CC2420; timers: entries of the timer component's fireTimers; boots "
              "and timers count the network run's nodes, else the original alone; LEDs: "
              "changes, original/traced alone (the traced run stops at a violation); nLEDs: "
              "LED changes of all nodes in the network run; frames: sent/received by the nodes "
              "of the network run (else by the original alone); checks: invariant checks in "
              "the traced run alone; replay: passed/tried per stop kind.\n")
    for app in apps:
        for n in app.notes:
            out.write("  %s: %s\n" % (app.name, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/bin", help="directory of wsn-cc, wsn-sim, wsn-replay")
    ap.add_argument("--apps", required=True, help="directory of application directories")
    ap.add_argument("--platform", choices=["auto"] + sorted(PLATFORMS), default="auto",
                    help="the apps' platform (default auto: DIR's name when it is a platform, "
                    "else micaz)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds recorded and replayed per app "
                    "with invariants.c (default 5)")
    ap.add_argument("--first-seed", type=int, default=1,
                    help="first seed of the replay campaign (default 1; seeds FIRST.."
                    "FIRST+SEEDS-1)")
    ap.add_argument("--warmup", type=float, default=2.0,
                    help="seconds of boot left out of the steady-state active-cycle ratio "
                         "(default 2: a MicaZ node is active for its first 1.1 s; 0: no "
                         "steady column)")
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="simulated seconds of the runs alone and of the network "
                    "(default 5; TinyOS boots on a MicaZ after about 1 s)")
    ap.add_argument("--violation-seconds", type=float, default=30.0,
                    help="bound of the recording runs that wait for a violation (default 30)")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="stop kinds to replay (default violation,check,bound)")
    ap.add_argument("--replay-timeout", type=int, default=20,
                    help="wsn-replay --timeout in seconds (default 20)")
    ap.add_argument("--only", help="comma-separated application names")
    ap.add_argument("--wsn-cc-arg", action="append", default=[],
                    help="extra wsn-cc argument for both builds (repeatable)")
    ap.add_argument("--work", help="work directory (default: a new temporary one)")
    ap.add_argument("--time-limit", type=float, metavar="MINUTES",
                    help="start no further seed once MINUTES have passed since run.py started "
                    "(the table counts the seeds that ran)")
    ap.add_argument("--interleave", action="store_true",
                    help="build and run every app first, then replay seed by seed over all "
                    "apps (a campaign stopped early has the same seeds for every app)")
    ap.add_argument("--json-out", help="write the results as JSON")
    ap.add_argument("--check", action="store_true", help="exit 1 unless everything succeeded")
    a = ap.parse_args()
    if a.seeds < 0 or a.seconds <= 0 or a.violation_seconds <= 0:
        ap.error("--seeds must be >= 0, --seconds and --violation-seconds > 0")
    bad = [m for m in a.modes.split(",") if m not in MODES]
    if bad:
        ap.error("unknown mode(s) %s (known: %s)" % (", ".join(bad), ", ".join(MODES)))
    if not os.path.isdir(a.apps):
        ap.error("--apps %s is not a directory" % a.apps)
    if a.platform == "auto":
        base = os.path.basename(os.path.normpath(a.apps))
        a.platform = base if base in PLATFORMS else "micaz"
    tools = Tools(a.bin)
    names = sorted(n for n in os.listdir(a.apps)
                   if os.path.isfile(os.path.join(a.apps, n, "app.c")))
    if a.only:
        want = a.only.split(",")
        missing = [n for n in want if n not in names]
        if missing:
            ap.error("no app.c for: %s" % ", ".join(missing))
        names = [n for n in names if n in want]
    if not names:
        ap.error("no application directory (with app.c) in %s" % a.apps)
    a.work = a.work or tempfile.mkdtemp(prefix="wsn-tinyos-")
    runner = Runner(a, tools)
    apps = [App(n, os.path.join(a.apps, n)) for n in names]
    if a.interleave:
        runner.interleaved(apps)
    else:
        for app in apps:
            sys.stderr.write("run.py: %s\n" % app.name)
            runner.app(app)
    print_table(apps, a)
    print("work files in %s" % a.work)
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({app.name: {"row": app.row, "notes": app.notes} for app in apps}, f,
                      indent=1, default=str)
    return 1 if a.check and runner.failures else 0


if __name__ == "__main__":
    sys.exit(main())
