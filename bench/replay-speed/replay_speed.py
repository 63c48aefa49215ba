#!/usr/bin/env python3
"""Replay speed: wsn-replay against the native program and against re-running wsn-sim.

usage: bench/replay-speed/replay_speed.py [--bin DIR] [--example sense-send|blink] [--seed S]
                                          [--ring BYTES] [--repeat N] [--no-callgrind]
                                          [--work DIR] [--check]

Method (issue 6: replay within 2x of native, at least 50x faster than the simulator).

1. The trace. The example is built traced for atmega128 with the largest ring that fits in the
   MicaZ's 4 KiB (--ring, default 3072 bytes, segments of 256). wsn-sim runs it with the seeded
   stimulus of bench/fidelity (sense-send: --adc 0:1023; blink: the seeded switch byte) to the
   violation to learn how many checks C the run makes; then K is the largest check count
   (binary search over [1, C]) whose trace has NOT wrapped, and wsn-sim stops at the K-th check
   (--stop-after-checks K). So the trace holds everything from reset to that point: the longest
   trace the mote can keep, and a native run can be fed every recorded input from reset.

2. Replay: `wsn-replay FW.replay.bc --trace T --elf FW.elf --map FW.wmap --stop-after-checks K
   --expect-sram SRAM.bin --json`: wall time of the whole process (best of --repeat), and, with
   callgrind, the instructions executed inside the replay run (callgrind --toggle-collect on
   --replay-exec-fn, default `*ReplayRunner::run*`: the JIT'd program, the inline record
   consumption and the trace callbacks; without parsing, preprocessing, lowering, JIT
   compilation and ReplayRunner::prepare, which resolves the trace map and builds the inline
   record table once per trace), besides the whole process. The stop message, formatted
   after the run (stopRecordMessage), is the report and is subtracted.

3. Native: the same C sources compiled for the host with clang -Os (the optimisation level of
   the mote build), linked with examples/host/hal_script.c instead of the simulated host HAL.
   The script is written from the trace: in recording order, every interrupt (timer, ADC) and
   every value the program read through a recorded HAL read (ADC results, switches, LED port).
   The host HAL hands out the recorded values and runs the recorded interrupts at its next HAL
   call (HAL-call granularity instead of the mote's instruction granularity), and the run stops
   at the K-th invariant check (-Wl,--wrap on the invariant function). Its end line (timer and
   ADC handler runs, values, checks) is compared with the trace: the table says whether the
   native run did the recorded work. Note what differs by design: the native program executes
   the callees the replay skips (uninstrumented spans, e.g. sense-send's serial framing, whose
   effects the replay applies from the trace), and it does not execute the records the replay
   consumes; the native run starts at reset, the replay at the first checkpoint (right after
   boot). Measured: wall time of the process (best of --repeat), and with callgrind the
   instructions inside main (--toggle-collect=main; the script is read by a constructor before
   main) less those of its end-of-run report (script_finish: an fprintf and exit, about half
   of main on the short trace), and of the whole process.

4. Simulator: wall time of `wsn-sim run ... --stop-after-checks K` (the same stop, from reset:
   re-executing is what one does without replay), best of --repeat; with callgrind the whole
   process and the instructions inside avr_run (the simulated core).

5. Late stops (--late-checks K1,K2,..., default 1000,4000; sense-send only; 0 skips). A failure in the field shows up
   after hours; without replay one re-executes the firmware from reset up to it, while replay
   starts at the earliest checkpoint the ring kept. The same firmware runs in wsn-sim with ADC
   values 0..--late-adc-hi (default 768: never above the alarm threshold, so the run is steady
   and the period invariant holds) up to its K-th check; the ring has wrapped many times.
   Measured: wall time of `wsn-sim ... --stop-after-checks K` from reset (what re-execution
   costs) and of `wsn-replay ... --stop-after-checks K --expect-sram` on that trace (best of
   --late-repeat each; the replay must reproduce the stop with identical sliced globals).
   The native baseline re-executes from reset too, on the same inputs: a second, identical
   wsn-sim run with --full-trace keeps every segment (its last records must equal the ring's),
   the native script is written from all of them as in 3, and the native program must make the
   recorded number of timer and ADC handler runs and exactly K checks (best of --late-repeat).

The replay rows: "replay" is a replay whose compiled code is in wsn-replay's object cache (the
usual case: a firmware build is replayed many times), best of --repeat; "cold" compiles it
(the first replay of a build; one run, and callgrind with --no-jit-cache). The ratios use the
cached replay.

Ratios printed: replay / native (wall, process; and instructions, execution only), and
simulator / replay (wall, process; instructions). --check exits 1 when a target is missed or the
replay does not reproduce the stop. Needs valgrind for the instruction counts (--no-callgrind
skips them).
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "fidelity"))
import fidelity  # noqa: E402  (the example table and its seeded stimuli)

CLANG = "/usr/lib/llvm-19/bin/clang"
MCU = "atmega128"
# Interrupt vectors of the examples' AVR HAL (hal_avr.h): TIMER0_COMP, ADC.
IRQ_KIND = {15: "T", 21: "A"}


def die(msg):
    print("replay_speed: error: " + msg, file=sys.stderr)
    sys.exit(2)


def run(cmd, env=None, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", env=env)
    if check and p.returncode != 0:
        die("%s exited %d: %s" % (" ".join(cmd), p.returncode,
                                  fidelity.first_line(p.stderr) or fidelity.first_line(p.stdout)))
    return p


def timed(cmd, repeat, env=None):
    best, p = None, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", env=env)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, p


def replay_cmd(tool, fw, trace, k, sram, jit_cache):
    """wsn-replay of trace up to its k-th check, compared with the simulator's SRAM."""
    return [tool["wsn-replay"], fw + ".replay.bc", "--trace", trace, "--elf", fw + ".elf",
            "--map", fw + ".wmap", "--stop-after-checks", str(k), "--expect-sram", sram,
            "--json", "--jit-cache", jit_cache]


def replay_result(p):
    """(reproduced, report) of a finished wsn-replay --json process."""
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
    return p.returncode == 0 and doc.get("status") == "reproduced", doc


def best_sim_wall(cmd, outdir, repeat):
    """Best wall time of `cmd -o outdir` (the directory is cleared before each run)."""
    best = None
    for _ in range(repeat):
        shutil.rmtree(outdir, ignore_errors=True)
        t0 = time.perf_counter()
        subprocess.run(cmd + ["-o", outdir], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best


def callgrind(cmd, out, toggle=None, env=None):
    """Instructions executed (Ir) by cmd under callgrind, inside `toggle` when given."""
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    if toggle:
        vg.append("--toggle-collect=" + toggle)
    subprocess.run(vg + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def hal_lines():
    """Source lines of the AVR HAL's recorded reads: line -> script kind."""
    kinds = {"hal_leds_set": "L", "hal_input_bits": "S", "hal_adc_result": "R"}
    out = {}
    with open(os.path.join(ROOT, "examples", "common", "hal_avr.h")) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"static inline \w+ (hal_\w+)\(", line)
            if m and m.group(1) in kinds:
                out[n] = kinds[m.group(1)]
    return out


def native_script(recs, path):
    """Writes the native HAL script of section 3 from decoded records (in recording order);
    returns the invariant the checks name and the timer/ADC interrupt counts."""
    lines = hal_lines()
    script, inv, n_irq = [], None, {"T": 0, "A": 0}
    for r in recs:
        if r["kind"] == "IRQ":
            kind = IRQ_KIND.get(r.get("vector"))
            if kind is None:
                die("record at offset %s: IRQ of vector %s, which the native HAL does not "
                    "have" % (r.get("offset"), r.get("vector")))
            script.append(kind)
            n_irq[kind] += 1
        elif r["kind"] == "INPUT" and str(r.get("file", "")).endswith("hal_avr.h") and \
                r.get("line") in lines:
            kind = lines[r["line"]]
            script.append(kind if kind == "L" else "%s %d" % (kind, r["value"]))
        elif r["kind"] in ("CHECK", "VIOLATION") and r.get("invariant"):
            inv = r["invariant"]
    if inv is None:
        die("the trace has no check record naming its invariant")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    return inv, n_irq


NATIVE_END = re.compile(r"timer (\d+), adc (\d+), values (\d+), unrecorded reads (\d+), "
                        r"dropped (\d+), checks (\d+)")


def wrapped(path):
    h = fidelity.trace_header(path)
    return h is not None and bool(h[0] & 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="directory of wsn-cc, wsn-sim, wsn-replay, wsn-trace-dump")
    ap.add_argument("--example", default="sense-send",
                    choices=[e.name for e in fidelity.EXAMPLES])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ring", type=int, default=3072, help="trace ring bytes (segments of 256)")
    ap.add_argument("--repeat", type=int, default=5, help="wall time: best of N runs")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--replay-exec-fn", default="*ReplayRunner::run*",
                    help="callgrind --toggle-collect pattern of the replay's execution")
    ap.add_argument("--work", help="work directory (kept); default: temporary")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--late-checks", default="1000,4000",
                    help="late stops: comma-separated K, the K-th check of a long steady run "
                         "(0: skip)")
    ap.add_argument("--late-adc-hi", type=int, default=768,
                    help="late stop: largest ADC value of the steady run")
    ap.add_argument("--late-repeat", type=int, default=3, help="late stop: best of N runs")
    args = ap.parse_args()

    bindir = fidelity.find_bin(args.bin)
    tool = {t: os.path.join(bindir, t) for t in ("wsn-cc", "wsn-sim", "wsn-replay",
                                                  "wsn-trace-dump")}
    for t, p in tool.items():
        if not os.access(p, os.X_OK):
            die("%s not found in %s (use --bin)" % (t, bindir))
    use_cg = not args.no_callgrind and shutil.which("valgrind") is not None
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="wsn-replay-speed-"))
    os.makedirs(work, exist_ok=True)
    ex = next(e for e in fidelity.EXAMPLES if e.name == args.example)
    srcs = []
    for pattern in ex.sources:
        import glob
        srcs += sorted(glob.glob(os.path.join(ROOT, pattern)))

    # 1. the traced firmware and the longest unwrapped trace
    fw = os.path.join(work, "fw")
    run([tool["wsn-cc"], "--target=avr", "--mcu=" + MCU, "--trace-buf=%d" % args.ring,
         "--trace-seg=256", "-I", os.path.join(ROOT, "examples", "common"), "-o", fw] + srcs)
    stim = ex.stimulus(fidelity.rng_for(ex.name, args.seed, "stimulus"))

    def sim_cmd(outdir, k=None):
        c = [tool["wsn-sim"], "run", fw + ".elf", "--mcu", MCU, "--seed", str(args.seed),
             "--max-cycles", str(ex.max_cycles)] + stim
        c += ["-o", outdir] if outdir else []
        return c + (["--stop-after-checks", str(k)] if k else [])

    def sim(outdir, k=None):
        run(sim_cmd(outdir, k))
        with open(os.path.join(outdir, "run.json")) as f:
            return json.load(f)

    full = sim(os.path.join(work, "full"))
    checks = int(full.get("checks") or 0)
    if checks < 1:
        die("the run to the end made no invariant check (stop=%s)" % full.get("stop"))
    lo, hi = 0, checks  # largest K in [1, checks] whose trace has not wrapped
    while lo < hi:
        mid = (lo + hi + 1) // 2
        d = os.path.join(work, "probe")
        shutil.rmtree(d, ignore_errors=True)
        sim(d, mid)
        if wrapped(os.path.join(d, "trace.wtr")):
            hi = mid - 1
        else:
            lo = mid
    if lo == 0:
        die("even the first check's trace wraps a %d-byte ring" % args.ring)
    k = lo
    rundir = os.path.join(work, "run")
    shutil.rmtree(rundir, ignore_errors=True)
    info = sim(rundir, k)
    trace = os.path.join(rundir, "trace.wtr")
    dump = json.loads(run([tool["wsn-trace-dump"], "--json", trace, "--map",
                           fw + ".wmap"]).stdout)
    recs = dump["records"]
    tail = dump["header"].get("tail_bytes")

    # 3a. the native script and program
    script_path = os.path.join(work, "native.script")
    inv, n_irq = native_script(recs, script_path)
    native = os.path.join(work, "native")
    run([CLANG, "-Os", "-w", "-I", os.path.join(ROOT, "examples", "common"),
         "-I", os.path.join(ROOT, "trace-runtime", "include"),
         "-DWSN_SCRIPT_INVARIANT=" + inv, "-Wl,--wrap=" + inv] + srcs +
        [os.path.join(ROOT, "examples", "host", "hal_script.c"), "-o", native])
    nenv = dict(os.environ, WSN_SCRIPT=script_path, WSN_SCRIPT_CHECKS=str(k))

    # measurements
    jc = os.path.join(work, "jit-cache")
    rcmd = replay_cmd(tool, fw, trace, k, os.path.join(rundir, "sram.bin"), jc)
    shutil.rmtree(jc, ignore_errors=True)
    t_cold, _ = timed(rcmd, 1)  # compiles and fills the cache
    t_replay, prep = timed(rcmd, args.repeat)
    reproduced, rdoc = replay_result(prep)
    t_native, pnat = timed([native], args.repeat, env=nenv)
    m = NATIVE_END.search(pnat.stderr)
    simdir = os.path.join(work, "resim")

    def resim():
        shutil.rmtree(simdir, ignore_errors=True)
        return sim_cmd(simdir, k)
    t_sim = best_sim_wall(sim_cmd(None, k), simdir, args.repeat)

    cg = {}
    if use_cg:
        # Under valgrind the host CPU reads differently, which is part of the cache key:
        # the first run fills the cache for it.
        callgrind(rcmd, os.path.join(work, "cg.replay.prime"))
        cg["replay_all"] = callgrind(rcmd, os.path.join(work, "cg.replay.all"))
        cg["replay_cold"] = callgrind(rcmd[:-2] + ["--no-jit-cache"],
                                      os.path.join(work, "cg.replay.cold"))
        cg["replay_exec"] = callgrind(rcmd, os.path.join(work, "cg.replay.exec"),
                                      args.replay_exec_fn)
        cg["native_all"] = callgrind([native], os.path.join(work, "cg.native.all"), env=nenv)
        cg["native_exec"] = callgrind([native], os.path.join(work, "cg.native.main"), "main",
                                      env=nenv)
        # The end-of-run report is not execution on either side: the native run's
        # script_finish (an fprintf of its end line, then exit) and the replay's stop
        # message (stopRecordMessage, formatted after the run).
        cg["native_report"] = callgrind([native], os.path.join(work, "cg.native.report"),
                                        "script_finish", env=nenv)
        cg["replay_report"] = callgrind(rcmd, os.path.join(work, "cg.replay.report"),
                                        "*stopRecordMessage*")
        for side in ("native", "replay"):
            if cg.get(side + "_exec") is not None and cg.get(side + "_report") is not None:
                cg[side + "_exec"] -= cg[side + "_report"]
        cg["sim_all"] = callgrind(resim(), os.path.join(work, "cg.sim.all"))
        cg["sim_exec"] = callgrind(resim(), os.path.join(work, "cg.sim.core"), "avr_run*")

    # report
    print("replay speed: %s, seed %d, ring %d bytes, stop at check %d of %d" %
          (ex.name, args.seed, args.ring, k, checks))
    print("trace: %d records, %s bytes, from reset, %d simulated cycles (%.3f s of mote time), "
          "%d timer + %d ADC interrupts" % (len(recs), tail, info["cycles"],
                                            info["cycles"] / float(info["frequency"]),
                                            n_irq["T"], n_irq["A"]))
    status = "reproduced" if reproduced else "NOT reproduced: exit %s: %s" % (
        prep.returncode, rdoc.get("message") or fidelity.first_line(prep.stderr) or
        fidelity.first_line(prep.stdout))
    print("replay: %s" % status)
    if m:
        t_, a_, v_, u_, d_, c_ = map(int, m.groups())
        same = t_ == n_irq["T"] and a_ == n_irq["A"] and c_ == k and d_ == 0
        print("native: %d timer + %d ADC handler runs, %d recorded values, %d unrecorded reads, "
              "%d dropped, %d checks: %s" % (t_, a_, v_, u_, d_, c_,
                                             "the recorded work" if same else
                                             "DIFFERS from the trace"))
    else:
        same = False
        print("native: no end line (exit %d): %s" % (pnat.returncode,
                                                      fidelity.first_line(pnat.stderr)))

    def fmt_i(x):
        return "-" if x is None else "{:,}".format(x)

    print()
    print("%-10s %12s %18s %18s" % ("", "wall (s)", "instr (process)", "instr (execution)"))
    print("%-10s %12.4f %18s %18s" % ("native", t_native, fmt_i(cg.get("native_all")),
                                      fmt_i(cg.get("native_exec"))))
    print("%-10s %12.4f %18s %18s" % ("replay", t_replay, fmt_i(cg.get("replay_all")),
                                      fmt_i(cg.get("replay_exec"))))
    print("%-10s %12.4f %18s %18s" % ("  cold", t_cold, fmt_i(cg.get("replay_cold")), ""))
    print("%-10s %12.4f %18s %18s" % ("wsn-sim", t_sim, fmt_i(cg.get("sim_all")),
                                      fmt_i(cg.get("sim_exec"))))
    if use_cg:
        print("(execution excludes the end-of-run report: native %s, replay %s instructions)" %
              (fmt_i(cg.get("native_report")), fmt_i(cg.get("replay_report"))))
    print()

    def ratio(a, b):
        return None if not a or not b else float(a) / float(b)

    def fmt_r(x):
        return "-" if x is None else "%.2fx" % x
    r_nat_wall = ratio(t_replay, t_native)
    r_nat_exec = ratio(cg.get("replay_exec"), cg.get("native_exec"))
    r_nat_all = ratio(cg.get("replay_all"), cg.get("native_all"))
    r_sim_wall = ratio(t_sim, t_replay)
    r_sim_exec = ratio(cg.get("sim_exec"), cg.get("replay_exec"))
    r_sim_all = ratio(cg.get("sim_all"), cg.get("replay_all"))
    print("replay / native:   execution %s (instructions), process %s (instructions), "
          "%s (wall)   [target <= 2x]" % (fmt_r(r_nat_exec), fmt_r(r_nat_all),
                                          fmt_r(r_nat_wall)))
    print("wsn-sim / replay:  execution %s (instructions), process %s (instructions), "
          "%s (wall)   [target >= 50x]" % (fmt_r(r_sim_exec), fmt_r(r_sim_all),
                                           fmt_r(r_sim_wall)))

    def verdict(x, ok):
        return "n/a" if x is None else ("met" if ok(x) else "MISSED")
    v_exec = (verdict(r_nat_exec, lambda x: x <= 2.0), verdict(r_sim_exec, lambda x: x >= 50.0))
    v_wall = (verdict(r_nat_wall, lambda x: x <= 2.0), verdict(r_sim_wall, lambda x: x >= 50.0))
    print("targets on execution (callgrind, without JIT compilation and process start): "
          "native %s, wsn-sim %s" % v_exec)
    print("targets on whole processes (wall, JIT compilation included):               "
          "native %s, wsn-sim %s" % v_wall)
    if not reproduced:
        print("warning: the replay did not reproduce the stop; its numbers are of a failed run")
    if not same:
        print("warning: the native run did not do the recorded work; see its line above")
    print("work dir: %s" % work)
    late = [int(x) for x in str(args.late_checks).split(",") if x.strip()]
    if ex.name == "sense-send":
        for k_late in late:
            if k_late > 0:
                late_stop(args, tool, fw, work, k_late, native)
    nat_ok, sim_ok = v_exec[0] == "met", v_exec[1] == "met"
    return 1 if args.check and not (nat_ok and sim_ok and reproduced and same) else 0


def late_stop(args, tool, fw, work, k, native):
    """Section 5 of the method: replay of a wrapped ring against re-execution from reset."""
    d = os.path.join(work, "late")
    shutil.rmtree(d, ignore_errors=True)
    sim = [tool["wsn-sim"], "run", fw + ".elf", "--mcu", MCU, "--seed", str(args.seed),
           "--adc", "0:%d" % args.late_adc_hi, "--max-cycles", str(2 ** 40),
           "--stop-after-checks", str(k)]
    run(sim + ["-o", d])
    with open(os.path.join(d, "run.json")) as f:
        info = json.load(f)
    if int(info.get("checks") or 0) != k:
        print("late stop: the steady run made %s checks, not %d (stop=%s)" %
              (info.get("checks"), k, info.get("stop")))
        return False
    trace = os.path.join(d, "trace.wtr")
    dump = json.loads(run([tool["wsn-trace-dump"], "--json", trace, "--map",
                           fw + ".wmap"]).stdout)
    hdr = dump["header"]
    t_sim = best_sim_wall(sim, os.path.join(work, "late-resim"), args.late_repeat)
    replay = replay_cmd(tool, fw, trace, k, os.path.join(d, "sram.bin"),
                        os.path.join(work, "jit-cache"))
    timed(replay, 1)  # the cache holds this build's code already (the main measurement)
    t_rep, p = timed(replay, args.late_repeat)
    ok, doc = replay_result(p)

    # Native re-execution from reset on the same inputs: the ring kept only the tail, so the
    # inputs come from a second, identical wsn-sim run that keeps every segment
    # (--full-trace, spec/wsn-sim.md); its tail must equal the ring's.
    fd = os.path.join(work, "late-full")
    shutil.rmtree(fd, ignore_errors=True)
    run(sim + ["-o", fd, "--full-trace"])
    full = []
    for name in sorted(os.listdir(os.path.join(fd, "full"))):
        full += json.loads(run([tool["wsn-trace-dump"], "--json",
                                os.path.join(fd, "full", name), "--map",
                                fw + ".wmap"]).stdout)["records"]
    strip = ("offset", "segment", "ring_offset", "tail_offset")

    def key(r):
        return {a: b for a, b in r.items() if a not in strip}
    ring = dump["records"]
    same_tail = len(full) >= len(ring) and \
        [key(r) for r in full[len(full) - len(ring):]] == [key(r) for r in ring]
    n_checks = sum(1 for r in full if r["kind"] in ("CHECK", "VIOLATION"))
    script = os.path.join(work, "late-native.script")
    _, n_irq = native_script(full, script)
    nenv = dict(os.environ, WSN_SCRIPT=script, WSN_SCRIPT_CHECKS=str(k))
    t_nat, pn = timed([native], args.late_repeat, env=nenv)
    m = NATIVE_END.search(pn.stderr)
    nat_ok = bool(m) and same_tail and n_checks == k and \
        (int(m.group(1)), int(m.group(2)), int(m.group(5)), int(m.group(6))) == \
        (n_irq["T"], n_irq["A"], 0, k)
    print()
    print("late stop: check %d of a steady run (ADC 0..%d), %d simulated cycles (%.1f s of mote "
          "time); the ring wrapped %s times, replay consumed %s records from its first "
          "checkpoint: %s" % (k, args.late_adc_hi, info["cycles"],
                              info["cycles"] / float(info["frequency"]), hdr.get("wraps"),
                              doc.get("records_consumed"),
                              "reproduced" if ok else "NOT reproduced: %s" %
                              (doc.get("message") or fidelity.first_line(p.stderr))))
    print("full capture: %d records from reset (%d checks, %d timer + %d ADC interrupts), its "
          "tail %s the ring; native from reset: %s" %
          (len(full), n_checks, n_irq["T"], n_irq["A"],
           "equals" if same_tail else "DIFFERS FROM",
           "the recorded work" if nat_ok else "DIFFERS: %s" %
           (m.group(0) if m else fidelity.first_line(pn.stderr))))
    r = t_sim / t_rep if t_rep else None
    rn = t_rep / t_nat if t_nat else None
    print("%-26s %10.3f s" % ("wsn-sim from reset", t_sim))
    print("%-26s %10.3f s" % ("native from reset", t_nat))
    print("%-26s %10.3f s" % ("wsn-replay (whole process)", t_rep))
    if not args.no_callgrind:
        # Exact counts, robust against a loaded machine: whole processes, as the wall times.
        callgrind(replay, os.path.join(work, "cg.late.prime"))  # valgrind's CPU: its own key
        i_rep = callgrind(replay, os.path.join(work, "cg.late.replay.%d" % k))
        i_nat = callgrind([native], os.path.join(work, "cg.late.native.%d" % k), env=nenv)
        print("instructions (whole process): native %s, replay %s: replay / native %s" %
              ("-" if i_nat is None else "{:,}".format(i_nat),
               "-" if i_rep is None else "{:,}".format(i_rep),
               "-" if not i_rep or not i_nat else "%.2fx" % (float(i_rep) / i_nat)))
    print("wsn-sim / replay (wall, late stop): %s   [target >= 50x]: %s" %
          ("-" if r is None else "%.1fx" % r, "met" if r and r >= 50 and ok else "MISSED"))
    print("replay / native  (wall, late stop): %s   [target <= 2x]: %s" %
          ("-" if rn is None else "%.2fx" % rn,
           "met" if rn is not None and rn <= 2 and ok and nat_ok else "MISSED"))
    return ok and r is not None and r >= 50


if __name__ == "__main__":
    sys.exit(main())
