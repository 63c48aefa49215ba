#!/usr/bin/env python3
"""Fidelity harness: record in wsn-sim, replay with wsn-replay, require the same stop point and
byte-identical sliced globals (issue 6, item 5; DESIGN-BRIEF section 6).

usage: bench/fidelity/fidelity.py [--bin DIR] [--mcu MCU] [--seeds N] [--start S] [-j J]
                                  [--examples blink,sense-send] [--modes violation,check,...]
                                  [--work DIR] [--keep] [--check] [--json-out FILE]
       bench/fidelity/fidelity.py --merge A.json B.json ... [--check]

For every example of EXAMPLES (one line each), the firmware is built once per ring geometry with
wsn-cc for --mcu (atmega128, the MicaZ, by default; msp430f1611, the TelosB; msp430f2617, the
Z1's part: see MCUS for what differs), then for every seed S in [start, start+N):

  violation       wsn-sim runs the firmware with the example's seeded stimulus until the
                  invariant is violated; wsn-replay replays the trace with --expect-sram.
  check           K is drawn (from a generator seeded with the example, the seed and the mode)
                  in [1, checks of the violation run]; wsn-sim stops at the K-th invariant check
                  (--stop-after-checks K); the replay stops there too (--stop-after-checks K).
  wrap-violation  as violation, with a small ring (the example's WRAP geometry: wsn-cc
                  --trace-buf/--trace-seg), so the retained tail has lost its beginning and the
                  replay must start from a checkpoint. The harness checks the trace's header
                  says it wrapped and that the retained tail holds a CHECKPOINT. When the ring
                  did not wrap before the violation (an early violation), the seed is run
                  again with one segment less (down to two segments, then with two segments
                  of three quarters the size, while the build takes them); when it wrapped
                  but kept no checkpoint (a burst of interrupts and a long task overran the ring
                  between two visits of the scheduler loop: wsn-replay refuses such a trace
                  with exit 2, tested in lit replay/trace-errors.test), with one segment more
                  (at most 4 moves, --ring-moves; no geometry twice). wrap-check of that
                  seed uses the geometry its violation run settled on. The report lists the
                  moved seeds.
  wrap-check      as check, with the small ring. A K whose trace has not wrapped yet (early
                  checks) is moved to the next check until the trace has wrapped; so is a K
                  whose wrapped trace kept no checkpoint (wsn-trace-dump shows no CHECKPOINT:
                  a burst of interrupts and a long task overran the ring between two visits
                  of the scheduler loop, and there is no state to replay from). The report
                  lists the seeds where that happened.
  bound           a stop at an arbitrary moment (issue 17): the cycle bound B is drawn (seeded
                  with the example, the seed and the mode) in [C/10, C), C the cycles of the
                  violation run; wsn-sim stops at B (--max-cycles B), wherever the program is,
                  also inside the runtime half-way through a record (the trace's open record,
                  spec/trace-format.md section 1.1), and reads the trace there. The replay
                  must reach the end of the trace ("end") with the sliced globals equal to
                  the SRAM where replay ends: wsn-sim --settle runs on to the next record the
                  program opens (or to its sleep) before taking the snapshot. When an
                  interrupt comes first, the point where it struck is not one the trace can
                  name; B then moves on by 997 cycles (at most 50 times; then B is drawn
                  again, at most 9 more times; one wsn-sim process tries the moves of a
                  draw, each a run of its own from reset: wsn-sim --bound-moves), as it
                  does when the
                  stop comes before the first checkpoint or before the runtime has written
                  the trace header (nothing to replay from), or right after a CHECK record
                  with no record open (the trace reads as one stopped at that check), or
                  inside a
                  skipped (uninstrumented) call, whose writes the trace only gives in the
                  EFFECT record at its end (also when that EFFECT is the open record), or
                  inside an interrupt handler (an IRQ with no IRQ_EXIT: the trace does not
                  name where the handler interrupted, spec/replay-log.md 2.2). A bound that
                  finds the header's violation flag set (the stop fell in the VIOLATION
                  record's write, before the hook where the violation run stops) is drawn
                  again: that stop is the violation mode's. A draw after one whose moves
                  all fell before the first checkpoint is drawn after the last of them (a
                  long boot: the MSP430's crt0 clears a --trace-buf=max ring byte by byte).
                  When no draw finds a snapshot point the seed is a setup failure naming
                  the last reason, never a replay. The report
                  counts the stops that fell inside a record and the moved bounds.
  negative        the control that shows the oracle can fail: the violation run's trace is
                  replayed against a copy of its SRAM snapshot in which one byte of a sliced
                  global (the example's `corrupt`) is flipped; wsn-replay must exit 1, with a
                  status other than "reproduced", and report at least one differing global. Runs on the first --negative-seeds seeds.

A replay passes when all of these hold (the harness checks them itself, it does not only trust
the exit code):
  - wsn-replay exits 0 and prints one JSON object (--json) with status "reproduced";
  - its stop is of the expected kind ("violation" / "check") and, when it reports one, its
    check count equals the simulator's (run.json "checks"), and a reported invariant id equals
    the simulator's violated invariant;
  - the comparison with the simulator's SRAM snapshot covered at least one global and found no
    difference.
Anything else is a failure, reported with the seed, the exit code and the first line of the
tool's message. A simulator run that does not reach the expected stop (no violation within
--max-cycles, ring not wrapped) is a failure of the setup, reported the same way.

Output: a table (example, mode, seeds, passed, failed, pass rate); for each row with failures,
the distinct messages with their counts, the first failing seeds with exit code and message, and
the commands that reproduce the first failure. --check: exit 1 when any seed fails.
--json-out writes every result (with the MCU); --merge prints the table of several such files,
the shards of one campaign run with --start/--seeds ranges, as one run's (refusing files that
hold the same example, mode and seed, or results of two MCUs) and names (example, mode) rows
that lack seeds the example's other rows have.

The tools are taken from --bin, else from the directory of `wsn-cc` on PATH, else build/bin.

--network: the network mode (bench/fidelity/netfidelity.py, issue 18): 5-node networks in
`wsn-sim net --settle` replayed with `wsn-replay net`; the other options go to it.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import OrderedDict

from tracetail import trace_open  # noqa: F401  (also fidelity.trace_open for the other harnesses)
import tracetail

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class McuProfile:
    """What the harness needs to know about one MCU: wsn-cc's target, the offset of data symbols
    in the ELF, the examples' stimulus spelled for wsn-sim on that part, extra build flags, and
    which examples the simulated board can run (missing: why not)."""

    def __init__(self, name, target, data_offset, adc_max, switch_port, ext_irq, cflags=(),
                 missing=None):
        self.name, self.target, self.data_offset = name, target, data_offset
        self.adc_max = adc_max          # full scale of the ADC (10 or 12 bits)
        self.switch_port = switch_port  # the port hal_input_bits() reads (wsn-sim --switches)
        self.ext_irq = ext_irq          # the pin of HAL_EXT_ISR (wsn-sim --irq NAME:MEAN)
        self.cflags = list(cflags)      # extra wsn-cc options for every example
        self.example_cflags = {}         # example -> options replacing cflags
        self.wrap = {}                   # example -> (ring, segment) replacing its small ring
        self.missing = dict(missing or {})  # example -> why this MCU cannot run it yet

    def cflags_for(self, example):
        return list(self.example_cflags.get(example, self.cflags))


# The MSP430 HAL's Timer_A tick is 1000 SMCLK cycles by default (untraced builds); the DCO runs
# at about 800 kHz from reset, and a traced tick handler with its records takes about 2000
# cycles, so at 1000 the tasks never ran (every tick posted to a full queue). 4000 cycles
# (200 Hz) leaves the main loop about half of the CPU, as the AVR's 1 kHz tick at 7.37 MHz does
# (blink: 6000, below).
# The examples' external line is P1.7 on MSP430 (P1.0 is the TelosB CC2420's FIFOP).
MCUS = {
    "atmega128": McuProfile("atmega128", "avr", 0x800000, 1023, "C", "int0"),
    "msp430f1611": McuProfile(
        "msp430f1611", "msp430", 0, 4095, "2", "p1.7", ["-DHAL_TIMER_PERIOD=4000"]),
    "msp430f2617": McuProfile(
        "msp430f2617", "msp430", 0, 4095, "2", "p1.7", ["-DHAL_TIMER_PERIOD=4000"]),
}
# Blink's tick handler writes the most records: at 4000 cycles, since session 8's segment
# check values (a record costs about twice the cycles), the handlers starved the loop and the
# small ring kept no checkpoint on 4 of 6 seeds; 6000 leaves the loop time. Sense-send keeps
# 4000 (at 6000 its period never exceeds the invariant's bound within the run).
# uart-cmd's small ring on MSP430: 512 bytes in segments of 128. With a segment size that is not
# a power of two (the AVR's 400/80) the runtime's C writer core (trace-runtime/src/trace.c; the
# assembly core serves 256-byte segments only) divides by the segment size in reserve, fold and
# __wsn_rt_close, and the MSP430 has no divider: __mspabi_divu/remu made each record so slow
# that the tick handler (two records) outlasted the 4000-cycle tick at the reset DCO (800 kHz),
# the CPU ran nothing but tick handlers after boot, and no check ever ran (seeds 1-4: no
# violation in 50 M cycles; 383 ticks and 0 checks in the first 3 M cycles). 128-byte segments
# divide by shifting; 384/128 left one of 100 seeds (52) unwrapped at its violation.
# radio-sense's: the AVR's 400/200 (the C core; two segments, so no division). It was 512/256
# (two segments of the assembly core's size) while the C core divided (with 300/150 the slow
# records let samples pile up and the violation came before the ring wrapped, seeds 1-6 on the
# F1611); since checkpoints pack into the rest of a segment (spec/trace-format.md 3.2) fewer
# PAD bytes are written, and 512/256 no longer wrapped before seed 1's early violation on the
# F2617. 400/200: seeds 1-30 of wrap-violation and wrap-check pass on both MSP430s.
# blink's on MSP430: 160/32. Since format 4 (CHECKPOINT_Z, spec/trace-format.md 3.2) its
# 23-byte checkpoints take 19, and its early violations came before 192/64 or 128/64 wrapped
# (20 of 20 seeds on the F1611); 96/32 and 128/32 kept no checkpoint on some seeds (moved),
# 160/32 wrapped and kept one on seeds 1-40.
# Session 22 (format 10's compact checks, functions without ENTRY/EXIT: fewer bytes before the
# violation): radio-sense's 400/200 did not wrap before the violation on 120 of 200 seeds on
# each MSP430 (the harness moved them to 300/150); 300/150 wrapped and kept a checkpoint on
# seeds 280001-280100 of both wrap modes, on both.
for _m in ("msp430f1611", "msp430f2617"):
    MCUS[_m].example_cflags["blink"] = ["-DHAL_TIMER_PERIOD=6000"]
    MCUS[_m].wrap["blink"] = (160, 32)
    MCUS[_m].wrap["uart-cmd"] = (512, 128)
    MCUS[_m].wrap["radio-sense"] = (300, 150)
PROFILE = MCUS["atmega128"]


def set_mcu(name):
    """Selects the MCU every build and simulator run of this process uses (and the examples'
    small rings for that MCU)."""
    global PROFILE, MCU
    PROFILE = MCUS[name]
    MCU = name
    for ex in EXAMPLES:
        ex.wrap = PROFILE.wrap.get(ex.name, ex.default_wrap)


# uart-cmd's stimulus: ranges of the mean gaps (cycles) between received bytes and between
# INT0 pulses, one mean of each drawn per seed.
UART_GAP = (15000, 40000)
PULSE_GAP = (100000, 300000)


class Example:
    """One firmware under test.

    sources: globs relative to the repository root; stimulus(rng, mcu): extra wsn-sim options
    drawn from a generator seeded with the seed (the seed itself is passed as --seed too),
    spelled for the McuProfile mcu; wrap:
    (ring bytes, segment bytes) of the small ring of the wrap-* modes: small enough that every
    run wraps, large enough that a segment holds a checkpoint; corrupt: a global of the
    invariant's slice, whose byte the negative control flips in the snapshot."""

    def __init__(self, name, sources, stimulus, wrap, corrupt, max_cycles=50000000,
                 includes=(), wrap_flags=()):
        self.name, self.sources, self.stimulus = name, sources, stimulus
        self.wrap_flags = list(wrap_flags)  # wsn-cc flags of the small-ring builds only
        self.wrap, self.corrupt, self.max_cycles = wrap, corrupt, max_cycles
        self.default_wrap = wrap  # McuProfile.wrap may replace it for one MCU (set_mcu)
        self.includes = list(includes)  # extra -I folders, relative to the repository root


# Blink's small ring: 3 segments of 64 since the pre-instrument pipeline (passes): with 2 x 64,
# seeds 18 and 50 of 50 kept no checkpoint at the violation. Session 22: with 11 bytes a tick
# instead of 16, 192/64 did not wrap before the violation on 178 of 200 seeds (moved to
# 128/64); 128/64 wrapped and kept a checkpoint on seeds 280001-280100 of both wrap modes.
# Sense-send's 256/128 likewise on 106 of 200 (moved to 192/96, then 144/72); 144/72 served
# seeds 280001-280100.
# The examples. Blink reads its switches (port C) at every counter wrap; wsn-sim flips them to
# seeded random levels at random times (--switches), which changes the fade lengths and hence
# where ticks are lost. Sense-and-send gets a seeded random ADC value per conversion.
# The serial command interpreter (uart-cmd) gets random bytes on USART0 and pulses on INT0,
# each with a mean gap drawn per seed, and switches that lengthen its pulse handler: the three
# interrupt sources nest inside the pulse handler in a different pattern for every seed.
# Its small ring has four 80-byte segments (the checkpoint takes 67): the ring keeps at least
# three segments, so a checkpoint survives unless a pulse handler plus one task run write more
# than 240 bytes with no scheduler-loop visit. With two 128-byte segments about one wrap-check
# seed in a thousand kept no checkpoint at all (wsn-replay exits 2 saying so), and 384/128
# left early violations before the first wrap. 320/80 (session 6, seeds 1-3000, 20001-21000,
# 40001-41000, 60001-61000): every wrap-violation run kept a checkpoint, and one wrap-check K
# in 6000 did not (the harness then moves K; see wrap-check above). Session 8 (format 2 check
# values, quiet handlers): 320/80 kept no checkpoint on seeds 9 and 46; 400/80 passes 100/100.
EXAMPLES = [
    Example("blink", ["examples/blink/*.c", "examples/common/scheduler.c"],
            lambda rng, mcu: ["--switches", "%s:300000" % mcu.switch_port], wrap=(128, 64),
            corrupt="BlinkC$ticks"),
    Example("sense-send", ["examples/sense-send/*.c", "examples/common/scheduler.c"],
            lambda rng, mcu: ["--adc", "0:%d" % mcu.adc_max], wrap=(144, 72),
            corrupt="SenseC$period"),
    Example("uart-cmd", ["examples/uart-cmd/*.c", "examples/common/scheduler.c"],
            lambda rng, mcu: ["--uart", str(rng.randint(UART_GAP[0], UART_GAP[1])),
                              "--irq", "%s:%d" % (mcu.ext_irq,
                                                  rng.randint(PULSE_GAP[0], PULSE_GAP[1])),
                              "--switches", "%s:400000" % mcu.switch_port],
            wrap=(400, 80), corrupt="UartCmdC$events"),
    # Sense and send over the CC2420 (examples/radio/cc2420.c on wsn-sim's CC2420 model, with
    # the MicaZ's, TelosB's or Z1's wiring from cc2420_avr.h / cc2420_msp430.h): the replay
    # feeds every SPI status byte and pin level the driver polls, and the seeded ADC values
    # decide which samples raise an alarm report long enough to lose one.
    # Small ring 400/200 (RadioC$send's effect is 181 B: short effects list the handler part
    # whole; session 8: 300/150; MSP430: 512/256, see MCUS). The small-ring builds keep the
    # effect keys (--effect-keys=4, wsn-cc's default before session 17): with wsn-cc's default
    # (no keys, EFFECT_Z) radio-sense writes so few bytes before its early violation that no
    # ring of two segments large enough for its checkpoint (153 B) wraps first (atmega128,
    # seeds 1-50: 16 of 50 wrapped at 400/200, 38 at 320/160; 43 at 400/200 with the ADC
    # capped at 800 of 1023, which makes alarms rarer); the wrap modes test the retained tail,
    # and the other modes test the default encoding.
    Example("radio-sense", ["examples/radio-sense/*.c", "examples/radio/cc2420.c",
                            "examples/common/scheduler.c"],
            lambda rng, mcu: ["--adc", "0:%d" % mcu.adc_max], wrap=(400, 200),  # RadioC$send effect 181 B (short effects list the handler part whole)
            corrupt="RadioSenseC$sent",
            includes=["examples/radio"], wrap_flags=["--effect-keys=4"]),
]

# Draws of the bound mode's cycle (see bound above). radio-sense on the atmega128 can spend
# 300,000 of a 516,000-cycle run (seed 2) where every stop meets an interrupt before the next
# record (no snapshot point; the 50 moves cover 50,000 cycles): with 4 draws 2 of 100 seeds
# (1060, 1088) found no point, so 10 draws (each miss costs 51 short simulator runs, in one
# wsn-sim process since --bound-moves).
BOUND_DRAWS = 10
# A drawn bound moves on by BOUND_STEP cycles at most BOUND_MOVES times (see bound above).
BOUND_MOVES = 50
BOUND_STEP = 997
MODES = ["violation", "check", "wrap-violation", "wrap-check", "bound", "negative"]
# The modes run without --modes. "bound" passes on every example (lit harness.test and
# bound-stop.test) but stays opt-in here: the -O2/-O0 builds of opt-levels.test do not run it.
DEFAULT_MODES = ["violation", "check", "wrap-violation", "wrap-check", "negative"]
LLVM_NM = "/usr/lib/llvm-19/bin/llvm-nm"
MCU = "atmega128"


def rng_for(*parts):
    """A generator seeded from the parts (stable across Python versions and runs)."""
    return random.Random(zlib.crc32("/".join(str(p) for p in parts).encode()))


def next_ring(geometry, wrapped):
    """The small ring (ring, segment) a wrap-violation run moves to (see wrap-violation above):
    one segment more when the ring wrapped but kept no checkpoint; one segment less when it did
    not wrap, and from two segments, two of three quarters the size (even), which the build
    takes while the program's largest record still fits one. progfuzz moves its rings the
    same way."""
    ring, seg = geometry
    if wrapped:
        return ring + seg, seg
    if ring >= 3 * seg:
        return ring - seg, seg
    small = seg * 3 // 4 & ~1
    return 2 * small, small


# Why wsn-sim's --bound-moves passed a bound over (run.json bound_search.last_rejected).
BOUND_REJECTIONS = ("before_first_checkpoint", "in_handler", "after_check", "in_skipped_call")


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def find_bin(arg):
    if arg:
        return os.path.abspath(arg)
    cc = shutil.which("wsn-cc")
    if cc:
        return os.path.dirname(os.path.abspath(cc))
    return os.path.join(ROOT, "build", "bin")


def run(cmd, timeout):
    """Runs cmd; returns (exit code, stdout, stderr). A timeout is exit code 'timeout'."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
        return "timeout", out or "", (err or "") + "\ntimed out after %ss" % timeout
    except OSError as e:
        return "exec", "", "%s: %s" % (cmd[0], e)


def shell_line(cmd):
    return " ".join("'%s'" % c if any(ch in c for ch in " $*") else c for c in cmd)


def trace_header(path):
    """(flags, wraps, checks) from a .wtr header (spec/trace-format.md section 1), or None."""
    h = tracetail.header(path)
    if h is None:
        return None
    flags, wraps, checks = struct.unpack_from("<HII", h, 18)
    return flags, wraps, checks


class Build:
    def __init__(self, example, geometry, outdir, suffix=""):
        self.example, self.geometry = example, geometry
        self.outdir = outdir
        self.prefix = os.path.join(outdir, example.name + ("-wrap" if geometry else "") + suffix,
                                   "app")
        self.elf = self.prefix + ".elf"
        self.bc = self.prefix + ".replay.bc"
        self.wmap = self.prefix + ".wmap"
        self.error = None

    def make(self, bindir, extra=()):
        os.makedirs(os.path.dirname(self.prefix), exist_ok=True)
        srcs = []
        for pattern in self.example.sources:
            found = sorted(glob.glob(os.path.join(ROOT, pattern)))
            if not found:
                self.error = "no source matches %s" % pattern
                return self
            srcs += found
        cmd = [os.path.join(bindir, "wsn-cc"), "--target=" + PROFILE.target, "--mcu=" + MCU,
               "-I", os.path.join(ROOT, "examples", "common"), "-o", self.prefix]
        cmd += PROFILE.cflags_for(self.example.name)
        for inc in self.example.includes:
            cmd += ["-I", os.path.join(ROOT, inc)]
        if self.geometry:
            cmd += ["--trace-buf=%d" % self.geometry[0], "--trace-seg=%d" % self.geometry[1]]
            cmd += self.example.wrap_flags  # before --opt's flags, which win
        rc, out, err = run(cmd + list(extra) + srcs, 600)
        if rc != 0:
            self.error = "wsn-cc exit %s: %s" % (rc, first_line(err) or first_line(out))
            return self
        self.corrupt_addr = None
        rc, out, err = run([LLVM_NM, self.elf], 60)
        for line in (out or "").splitlines():
            f = line.split()
            if len(f) == 3 and f[2] == self.example.corrupt:
                self.corrupt_addr = int(f[0], 16) - PROFILE.data_offset  # AVR: 0x800000
        return self


class Result:
    def __init__(self, example, mode, seed):
        self.example, self.mode, self.seed = example, mode, seed
        self.ok, self.rc, self.message, self.commands, self.detail = False, None, "", [], {}


class Harness:
    def __init__(self, args):
        self.args = args
        self.bin = find_bin(args.bin)
        self.sim = os.path.join(self.bin, "wsn-sim")
        self.replay = os.path.join(self.bin, "wsn-replay")
        self.dump = os.path.join(self.bin, "wsn-trace-dump")
        self.geo_builds, self.geo_lock = {}, threading.Lock()

    def build_for(self, build, geometry):
        """The build of build's example with another small ring (made once, on first use)."""
        if geometry == build.geometry:
            return build
        key = (build.example.name, geometry)
        with self.geo_lock:
            b = self.geo_builds.get(key)
            if b is None:
                b = Build(build.example, geometry, build.outdir,
                          suffix="-%dx%d" % geometry).make(self.bin, self.args.opt)
                self.geo_builds[key] = b
        return b

    def tail_state(self, trace):
        """tracetail.tail_state of a trace: (has a CHECKPOINT, ends inside a skipped call, a
        closed trace ends with a CHECK, ends inside an interrupt handler)."""
        return tracetail.tail_state(self.dump, trace, self.args.timeout)

    def has_checkpoint(self, trace):
        """Whether the retained tail of a trace holds a CHECKPOINT record (wsn-trace-dump)."""
        return self.tail_state(trace)[0]

    # -- one simulator run --------------------------------------------------------------
    def simulate(self, build, seed, outdir, stop_after=None):
        ex = build.example
        return simulate(self.sim, build.elf, seed, outdir,
                        self.args.max_cycles or ex.max_cycles,
                        ex.stimulus(rng_for(ex.name, seed, "stimulus"), PROFILE), stop_after,
                        self.args.timeout)

    # -- one replay and its verdict -------------------------------------------------------
    def replay_and_judge(self, res, build, rundir, info, stop_after=None, violating=False,
                         bound=False):
        cmd = [self.replay, build.bc, "--trace", os.path.join(rundir, "trace.wtr"),
               "--elf", build.elf, "--map", build.wmap,
               "--expect-sram", os.path.join(rundir, "sram.bin"), "--json"]
        if stop_after is not None:
            cmd[2:2] = ["--stop-after-checks", str(stop_after)]
        res.commands.append(shell_line(cmd))
        t0 = time.perf_counter()
        rc, out, err = run(cmd, self.args.timeout)
        res.detail["replay_wall"] = time.perf_counter() - t0
        res.rc = rc
        doc = None
        try:
            doc = json.loads(out)
            if not isinstance(doc, dict):
                doc = None
        except ValueError:
            pass
        tool_msg = (doc.get("message") if doc else None) or first_line(err) or first_line(out)
        if rc != 0:
            status = doc.get("status") if doc else None
            res.message = ("%s: %s" % (status, tool_msg)) if status else (tool_msg or
                                                                          "(no message)")
            return res
        if doc is None:
            res.message = "exit 0 but stdout is not one JSON object: %s" % first_line(out)
            return res
        problems = []
        if doc.get("status") != "reproduced":
            problems.append("status %r" % doc.get("status"))
        stop = doc.get("stop") if isinstance(doc.get("stop"), dict) else {}
        want_kind = "end" if bound else "check" if stop_after is not None else "violation"
        # The K-th check may be the violating one (wsn-sim then stops with "checks", before
        # its violation hook); the replay may report that same record as the violation.
        kinds = (want_kind, "violation") if violating else (want_kind,)
        if bound:
            # A trace read right after a CHECK record (the node stopped in the check hook or
            # just after it) ends at that check: wsn-replay reports the stop as the check,
            # with the same state as the end of the trace.
            kinds = ("end", "check")
        if stop.get("kind") not in kinds:
            problems.append("stop kind %r, expected %s" % (stop.get("kind"),
                                                           " or ".join(map(repr, kinds))))
        if "checks" in stop and stop["checks"] != info.get("checks"):
            problems.append("stopped after %s checks, the simulator after %s" %
                            (stop["checks"], info.get("checks")))
        viol = info.get("violation") or {}
        for key in ("invariant", "inv", "invariant_id"):
            if want_kind == "violation" and isinstance(stop.get(key), int) and viol and \
                    stop[key] != viol.get("id"):
                problems.append("invariant %s, the simulator %s" % (stop[key], viol.get("id")))
        cmp_ = doc.get("compare") if isinstance(doc.get("compare"), dict) else None
        if cmp_ is None:
            problems.append("no SRAM comparison reported")
        else:
            if not cmp_.get("globals"):
                problems.append("compared %r globals" % cmp_.get("globals"))
            if cmp_.get("differ") != 0:
                problems.append("%r globals differ" % cmp_.get("differ"))
        res.detail["stop_record"] = stop.get("record")
        if isinstance(doc.get("wall_seconds"), (int, float)):
            res.detail["replay_seconds"] = doc["wall_seconds"]
        if problems:
            res.message = "exit 0 but " + "; ".join(problems)
            return res
        if self.args.live_every and res.seed % self.args.live_every == 0:
            # The inline consumption of the lowered code (spec/replay-log.md section 2.7)
            # must give exactly what the callback path gives: the same report, with every
            # event of the interleaving.
            full = cmd + ["--events", "1000000"]
            docs = []
            for extra in ([], ["--live-events"]):
                rc2, out2, err2 = run(full + extra, self.args.timeout)
                res.commands.append(shell_line(full + extra))
                try:
                    d = json.loads(out2)
                except ValueError:
                    d = None
                if rc2 != rc or not isinstance(d, dict):
                    res.message = "replay %s exited %d: %s" % (
                        " ".join(extra) or "(inline)", rc2, first_line(err2) or first_line(out2))
                    return res
                d.pop("wall_seconds", None)
                d.pop("jit_cached", None)
                d.pop("start_cached", None)
                docs.append(d)
            if docs[0] != docs[1]:
                keys = sorted(k for k in set(docs[0]) | set(docs[1])
                              if docs[0].get(k) != docs[1].get(k))
                res.message = "inline and --live-events replays differ in: " + ", ".join(keys)
                return res
            res.detail["live_checked"] = True
        res.ok = True
        return res

    # -- all modes of one (example, ring geometry, seed) ------------------------------------
    def seed_job(self, build, seed, modes, wrap):
        ex = build.example
        vmode, cmode = ("wrap-violation", "wrap-check") if wrap else ("violation", "check")
        # the modes that need this (example, geometry, seed)'s violation run
        run_modes = (vmode, cmode) if wrap else (vmode, cmode, "bound")
        base = os.path.join(self.args.work_dir, "runs", "%s-%d%s" % (ex.name, seed,
                                                                      "-wrap" if wrap else ""))
        shutil.rmtree(base, ignore_errors=True)
        results = []

        def setup_failure(mode, rc, msg, cmd):
            r = Result(ex.name, mode, seed)
            r.rc, r.message = rc, "setup: " + msg
            r.commands.append(shell_line(cmd))
            return r

        if build.error:
            for m in run_modes:
                if m in modes:
                    r = Result(ex.name, m, seed)
                    r.rc, r.message = "build", build.error
                    results.append(r)
            return results

        vdir = os.path.join(base, "violation")
        tried, ring_moves = [], []
        while True:
            cmd, rc, info, err = self.simulate(build, seed, vdir)
            failure = None
            if rc != 0:
                failure = (rc, "wsn-sim exit %s: %s" % (rc, first_line(err)))
            elif info.get("stop") != "violation":
                failure = ("sim", "wsn-sim stop=%s after %s cycles, no violation" %
                           (info.get("stop"), info.get("cycles")))
            elif wrap:
                # The small ring must have wrapped and kept a checkpoint (see wrap-violation
                # in the module doc): otherwise the seed is run with one segment less / more.
                ring, seg = build.geometry
                tried.append(build.geometry)
                hdr = trace_header(os.path.join(vdir, "trace.wtr"))
                if hdr is None or not hdr[0] & 1:
                    why = "the %d-byte ring did not wrap before the violation" % ring
                    nxt = next_ring(build.geometry, wrapped=False)
                elif not self.has_checkpoint(os.path.join(vdir, "trace.wtr")):
                    why = "the %d-byte ring kept no checkpoint" % ring
                    nxt = next_ring(build.geometry, wrapped=True)
                else:
                    why = nxt = None
                shrink = bool(nxt) and nxt[1] < seg
                if why:
                    if nxt[1] < 16 or nxt in tried or len(ring_moves) >= self.args.ring_moves:
                        failure = ("sim", why + ("; ring moves before: " +
                                                 ", ".join(ring_moves) if ring_moves else ""))
                    else:
                        ring_moves.append("%d/%d: %s" % (ring, seg, why.split(" ring ")[1]))
                        nb = self.build_for(build, nxt)
                        if nb.error and shrink:
                            failure = ("sim", "%s; ring moves before: %s; a ring of two "
                                       "%d-byte segments does not build: %s" % (
                                           why, ", ".join(ring_moves[:-1]) or "none",
                                           nxt[1], first_line(nb.error)))
                        elif nb.error:
                            failure = ("build", "%s; the %d/%d build failed: %s" %
                                       (why, nxt[0], nxt[1], nb.error))
                        else:
                            build = nb
                            shutil.rmtree(vdir, ignore_errors=True)
                            continue
            break
        if failure:
            for m in run_modes:
                if m in modes:
                    results.append(setup_failure(m, failure[0], failure[1], cmd))
            return results

        if vmode in modes:
            r = Result(ex.name, vmode, seed)
            if ring_moves:
                r.detail["ring_moves"] = ring_moves
                r.detail["ring"] = "%d/%d" % build.geometry
            r.commands.append(shell_line(cmd))
            results.append(self.replay_and_judge(r, build, vdir, info))

        if not wrap and "negative" in modes and seed < self.args.start + \
                self.args.negative_seeds:
            results.append(self.negative(build, seed, vdir, info))

        if not wrap and "bound" in modes:
            results.append(self.bound_stop(build, seed, base, info))

        if cmode in modes:
            checks = int(info.get("checks") or 0)
            if checks < 1:
                results.append(setup_failure(cmode, "sim", "the violation run made no check",
                                             cmd))
                return self.cleanup(base, results)
            k = rng_for(ex.name, seed, cmode).randint(1, checks)
            cdir = os.path.join(base, "check")
            no_checkpoint = 0
            while True:
                shutil.rmtree(cdir, ignore_errors=True)
                ccmd, rc, cinfo, err = self.simulate(build, seed, cdir, stop_after=k)
                if rc != 0:
                    results.append(setup_failure(cmode, rc, "wsn-sim exit %s: %s" %
                                                 (rc, first_line(err)), ccmd))
                    return self.cleanup(base, results)
                if cinfo.get("stop") != "checks" or cinfo.get("checks") != k:
                    results.append(setup_failure(
                        cmode, "sim", "wsn-sim --stop-after-checks %d stopped with stop=%s "
                        "checks=%s" % (k, cinfo.get("stop"), cinfo.get("checks")), ccmd))
                    return self.cleanup(base, results)
                if not wrap:
                    break
                hdr = trace_header(os.path.join(cdir, "trace.wtr"))
                wrapped = hdr is not None and hdr[0] & 1
                if wrapped and self.has_checkpoint(os.path.join(cdir, "trace.wtr")):
                    break
                if wrapped:
                    # The small ring lost every checkpoint (a burst of handlers and a long
                    # task wrote more than the ring keeps between two scheduler-loop
                    # visits): nothing to replay from. wsn-replay's answer to such a trace,
                    # exit 2 naming the cause, is tested in lit replay/trace-errors.test.
                    no_checkpoint += 1
                if k >= checks:
                    results.append(setup_failure(
                        cmode, "sim", "the ring never wrapped" if not wrapped else
                        "no check from K on has a checkpoint in the ring", ccmd))
                    return self.cleanup(base, results)
                k += 1
            r = Result(ex.name, cmode, seed)
            r.detail["k"] = k
            if no_checkpoint:
                r.detail["k_moved_no_checkpoint"] = no_checkpoint
            r.commands.append(shell_line(ccmd))
            results.append(self.replay_and_judge(r, build, cdir, cinfo, stop_after=k,
                                                 violating=(k == checks)))
        return self.cleanup(base, results)

    def bound_stop(self, build, seed, base, vinfo):
        """Stops the same run at a seeded random cycle before the violation and replays."""
        ex = build.example
        r = Result(ex.name, "bound", seed)
        cycles = int(vinfo.get("cycles") or 0)
        if cycles < 20:
            r.rc, r.message = "sim", "setup: the violation run took %d cycles" % cycles
            return r
        bdir = os.path.join(base, "bound")
        lo = cycles // 10
        for draw in range(self.args.bound_draws):
            # A bound whose 50 moves all find no snapshot point (an interrupt-dense stretch:
            # radio-sense's instrumented tick and radio handlers) is drawn again elsewhere.
            key = "bound" if draw == 0 else "bound-%d" % draw
            b = rng_for(ex.name, seed, key).randint(min(lo, cycles - 1), cycles - 1)
            cmd, rc, info, err, moves = self.bound_moves(build, seed, bdir, b, cycles, r)
            b = r.detail.get("cycle_tried", b)
            if rc != 0 or r.detail.get("search_end") == "found":
                break
            # Every bound up to the last one tried was still before the first checkpoint (a
            # long boot: the MSP430's crt0 clears a --trace-buf=max ring byte by byte), so
            # the next draw starts after it.
            if r.detail.get("before_first_checkpoint"):
                lo = max(lo, b + 1)
        r.detail.pop("cycle_tried", None)
        if draw:
            r.detail["bound_redrawn"] = draw
        return self.finish_bound(r, build, bdir, cmd, rc, info, err, moves, b)

    def bound_moves(self, build, seed, bdir, b, cycles, r):
        """Moves the bound b on by BOUND_STEP cycles until wsn-sim finds a snapshot point (at
        most BOUND_MOVES times): (command, exit code, run.json, stderr, moves).

        One wsn-sim process tries the bounds (`--bound-moves`, spec/wsn-sim.md): each one a
        run of its own from reset, judged by the rules of the module doc (settle "interrupt";
        no trace header or no CHECKPOINT; a tail ending inside a skipped call, right after a
        CHECK or inside a handler: move on; the violation flag or a next bound at or past the
        violation run's cycles: stop moving), with tracetail.tail_state's reading of the trace
        (wsn-sim's TraceTail; lit wsn-sim/bound-moves.test keeps the two equal)."""
        ex = build.example
        cmd, rc, info, err = simulate(self.sim, build.elf, seed, bdir, b,
                                      ex.stimulus(rng_for(ex.name, seed, "stimulus"), PROFILE),
                                      None, self.args.timeout, settle=True,
                                      extra=["--bound-moves", str(self.args.bound_moves),
                                             "--bound-step", str(BOUND_STEP),
                                             "--bound-end", str(cycles)])
        if rc != 0:
            return cmd, rc, info, err, 0
        search = info.get("bound_search")
        if not isinstance(search, dict) or not isinstance(search.get("cycle"), int):
            return cmd, "json", info, "run.json has no bound_search (wsn-sim too old for " \
                "--bound-moves?)", 0
        # The header's violation flag (bit 1) is set when the runtime opens the VIOLATION
        # record, before the hook where the violation run stops: a bound there fell in that
        # record's write (radio-sense on msp430f2617 seed 1043: the open record dropped,
        # wsn-replay reaches the end with equal globals and reports "not-reproduced", the
        # header promising a violation the tail does not hold). That stop is the violation
        # run's own; moving on passes the hook, so the bound is drawn again (bound_stop).
        r.detail["at_violation"] = bool(search.get("at_violation"))
        rejected = search.get("last_rejected")
        for key in BOUND_REJECTIONS:
            r.detail.pop(key, None)  # an earlier draw's reasons
        if isinstance(rejected, dict):
            for key in BOUND_REJECTIONS:
                r.detail[key] = bool(rejected.get(key))
        r.detail["cycle_tried"] = search["cycle"]
        r.detail["search_end"] = str(search.get("end"))
        return cmd, rc, info, err, int(search.get("moves") or 0)

    def finish_bound(self, r, build, bdir, cmd, rc, info, err, moves, b):
        r.commands.append(shell_line(cmd))
        r.detail["cycle"] = b
        if moves:
            r.detail["bound_moved"] = moves
        if rc != 0:
            r.rc, r.message = rc, "setup: wsn-sim exit %s: %s" % (rc, first_line(err))
            return r
        if info.get("stop") != "bound":
            r.rc, r.message = "sim", "setup: wsn-sim stop=%s before the bound %d" % (
                info.get("stop"), b)
            return r
        if r.detail.get("at_violation"):
            r.rc, r.message = "sim", "setup: every bound drawn fell in the violation's record"
            return r
        if r.detail.get("search_end") != "found":
            # wsn-sim's search judged the last bound unreplayable (its reasons are in the
            # detail): replaying that trace would only repeat wsn-replay's refusal.
            why = [k.replace("_", " ") for k in BOUND_REJECTIONS if r.detail.get(k)]
            if info.get("settle") == "interrupt":
                why.append("an interrupt struck before the next record")
            r.rc, r.message = "sim", "setup: no bound drawn found a snapshot point (the " \
                "last, %d, ended the search with %s%s)" % (
                    b, r.detail.get("search_end"), ": " + ", ".join(why) if why else "")
            return r
        if info.get("settle") not in ("record", "sleep"):
            r.rc, r.message = "sim", "setup: no snapshot point after the bound %d (settle " \
                "%s)" % (b, info.get("settle"))
            return r
        r.detail["open_record"] = bool(trace_open(os.path.join(bdir, "trace.wtr")))
        return self.replay_and_judge(r, build, bdir, info, bound=True)

    def negative(self, build, seed, vdir, info):
        """Replays against a snapshot with one flipped byte: the replay must not pass."""
        r = Result(build.example.name, "negative", seed)
        if build.corrupt_addr is None:
            r.rc, r.message = "setup", "setup: no symbol %s in %s" % (build.example.corrupt,
                                                                      build.elf)
            return r
        bad = os.path.join(vdir, "sram-corrupt.bin")
        with open(os.path.join(vdir, "sram.bin"), "rb") as f:
            img = bytearray(f.read())
        if build.corrupt_addr >= len(img):
            r.rc, r.message = "setup", "setup: %s at 0x%x is outside the %d-byte snapshot" % (
                build.example.corrupt, build.corrupt_addr, len(img))
            return r
        img[build.corrupt_addr] ^= 0x5A
        with open(bad, "wb") as f:
            f.write(img)
        cmd = [self.replay, build.bc, "--trace", os.path.join(vdir, "trace.wtr"), "--elf",
               build.elf, "--map", build.wmap, "--expect-sram", bad, "--json"]
        r.commands.append(shell_line(cmd))
        rc, out, err = run(cmd, self.args.timeout)
        r.rc = rc
        try:
            doc = json.loads(out)
            doc = doc if isinstance(doc, dict) else {}
        except ValueError:
            doc = {}
        cmp_ = doc.get("compare") if isinstance(doc.get("compare"), dict) else {}
        if rc == 1 and doc.get("status") not in (None, "reproduced") and \
                isinstance(cmp_.get("differ"), int) and cmp_["differ"] >= 1:
            r.ok = True
        else:
            r.message = "flipped a byte of %s in the snapshot, expected exit 1, a status " \
                "other than reproduced and differ >= 1; got exit %s, status %r, differ %r: %s" % (
                    build.example.corrupt, rc, doc.get("status"), cmp_.get("differ"),
                    doc.get("message") or first_line(err) or first_line(out))
        return r

    def cleanup(self, base, results):
        if not self.args.keep and all(r.ok for r in results):
            shutil.rmtree(base, ignore_errors=True)
        return results


TOOLS = ("wsn-cc", "wsn-sim", "wsn-replay", "wsn-trace-dump")


def simulate(sim, elf, seed, outdir, max_cycles, stimulus, stop_after, timeout, settle=False,
             extra=()):
    """One wsn-sim run of elf: (command, exit code or "json", run.json or None, stderr)."""
    cmd = [sim, "run", elf, "--mcu", MCU, "--seed", str(seed), "-o", outdir,
           "--max-cycles", str(max_cycles)] + list(stimulus) + (["--settle"] if settle else []) \
        + list(extra)
    if stop_after is not None:
        cmd += ["--stop-after-checks", str(stop_after)]
    rc, out, err = run(cmd, timeout)
    info = None
    if rc == 0:
        try:
            with open(os.path.join(outdir, "run.json")) as f:
                info = json.load(f)
        except (OSError, ValueError) as e:
            rc, err = "json", "run.json: %s" % e
    return cmd, rc, info, err


def require_tools(ap, bindir):
    """Stops with a usage error unless bindir has every tool a campaign runs."""
    for tool in TOOLS:
        if not os.access(os.path.join(bindir, tool), os.X_OK):
            ap.error("%s not found in %s (use --bin)" % (tool, bindir))


def make_work_dir(args, prefix):
    """Sets args.work_dir (--work, else a new temporary directory); True when temporary."""
    args.work_dir = os.path.abspath(args.work or tempfile.mkdtemp(prefix=prefix))
    os.makedirs(args.work_dir, exist_ok=True)
    return args.work is None


def pct(ok, n):
    """Pass rate rounded down: 1999 of 2000 is 99.9%, not 100.0%."""
    return "%.1f%%" % (math.floor(1000.0 * ok / n) / 10) if n else "-"


def print_report(results, args, examples, modes, out=sys.stdout):
    rows = OrderedDict()
    for ex in examples:
        for m in modes:
            rows[(ex.name, m)] = []
    for r in results:
        rows[(r.example, r.mode)].append(r)
    hdr = "%-12s %-15s %6s %7s %7s %10s" % ("example", "mode", "seeds", "passed", "failed",
                                              "pass rate")
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    total = failed_total = 0
    for (name, mode), rs in rows.items():
        n = len(rs)
        ok = sum(1 for r in rs if r.ok)
        total += n
        failed_total += n - ok
        rate = pct(ok, n)
        print("%-12s %-15s %6d %7d %7d %10s" % (name, mode, n, ok, n - ok, rate), file=out)
    print("-" * len(hdr), file=out)
    print("%-12s %-15s %6d %7d %7d %10s" % ("all", "", total, total - failed_total,
                                            failed_total, pct(total - failed_total, total)),
          file=out)
    bounds = [r for r in results if r.mode == "bound" and "open_record" in r.detail]
    if bounds:
        inside = [r for r in bounds if r.detail["open_record"]]
        moved = [r for r in bounds if r.detail.get("bound_moved")]
        print("\nbound: %d of %d stops fell inside a record write (the open record was "
              "dropped); of those, %d replayed; %d bound(s) moved past an interrupt" % (
                  len(inside), len(bounds), sum(1 for r in inside if r.ok), len(moved)),
              file=out)
    moved = [r for r in results if r.detail.get("ring_moves")]
    if moved:
        print("\nwrap-violation: %d seed(s) ran with another small ring (the example's did not "
              "wrap before the violation, or kept no checkpoint): %s" % (
                  len(moved), ", ".join("%s %d (%s -> %s)" % (
                      r.example, r.seed, "; ".join(r.detail["ring_moves"]), r.detail["ring"])
                                        for r in moved[:args.show_seeds])), file=out)
    moved = [r for r in results if r.detail.get("k_moved_no_checkpoint")]
    if moved:
        print("\nwrap-check: in %d seed(s) the ring kept no checkpoint at the drawn K; K moved "
              "to the next check whose trace has one: %s" % (
                  len(moved), ", ".join("%s %d (+%d)" % (r.example, r.seed,
                                                        r.detail["k_moved_no_checkpoint"])
                                        for r in moved[:args.show_seeds])), file=out)
    for (name, mode), rs in rows.items():
        bad = sorted((r for r in rs if not r.ok), key=lambda r: r.seed)
        if not bad:
            continue
        print("\nfailures: %s / %s (%d of %d seeds)" % (name, mode, len(bad), len(rs)),
              file=out)
        groups = OrderedDict()
        for r in bad:
            # one group per message shape: paths of runs and numbers (records, offsets) vary
            key = re.sub(r"\d+", "N", re.sub(r"\S*/runs/[^/\s]+/", "<run>/", r.message))
            groups.setdefault((str(r.rc), key), []).append(r)
        order = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        for (rc, _), rs_ in order[:args.show_messages]:
            msg = re.sub(r"\S*/runs/[^/\s]+/", "<run>/", rs_[0].message)
            print("  %5d x exit %s: %s%s" % (len(rs_), rc, msg[:240],
                                             "  (first seed's message)" if len(rs_) > 1 else ""),
                  file=out)
            seeds = ["%d%s" % (r.seed, " (K=%d)" % r.detail["k"] if "k" in r.detail else "")
                     for r in rs_[:args.show_seeds]]
            more = " ... (+%d)" % (len(rs_) - args.show_seeds) if len(rs_) > args.show_seeds \
                else ""
            print("          seeds %s%s" % (", ".join(seeds), more), file=out)
        if len(order) > args.show_messages:
            print("  ... %d more distinct messages (--show-messages, --json-out)" %
                  (len(order) - args.show_messages), file=out)
        print("  reproduce seed %d:" % bad[0].seed, file=out)
        for c in bad[0].commands:
            print("    " + c, file=out)
    return failed_total


def seed_ranges(seeds):
    """'1-3, 7' for [1, 2, 3, 7]."""
    out, seeds = [], sorted(seeds)
    i = 0
    while i < len(seeds):
        j = i
        while j + 1 < len(seeds) and seeds[j + 1] == seeds[j] + 1:
            j += 1
        out.append("%d" % seeds[i] if i == j else "%d-%d" % (seeds[i], seeds[j]))
        i = j + 1
    return ", ".join(out)


def merge_reports(ap, args):
    """--merge: the results of several --json-out files printed as one run's table. The files
    must be of one MCU and share no (example, mode, seed)."""
    results, seen, mcus = [], {}, set()
    for path in args.merge:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            ap.error("--merge: %s: %s" % (path, e))
        if not isinstance(doc, list):
            ap.error("--merge: %s: not a fidelity.py --json-out file (a list of results)" % path)
        for i, d in enumerate(doc):
            if not isinstance(d, dict) or not all(k in d for k in ("example", "mode", "seed",
                                                                   "ok")):
                ap.error("--merge: %s: result %d has no example, mode, seed and ok" % (path, i))
            if d["mode"] not in MODES:
                ap.error("--merge: %s: result %d: unknown mode %r" % (path, i, d["mode"]))
            key = (d["example"], d["mode"], d["seed"])
            if key in seen:
                ap.error("--merge: %s and %s both hold %s / %s seed %d (overlapping shards)" %
                         (seen[key], path, key[0], key[1], key[2]))
            seen[key] = path
            mcus.add(d.get("mcu"))
            r = Result(d["example"], d["mode"], d["seed"])
            r.ok, r.rc, r.message = bool(d["ok"]), d.get("rc"), d.get("message") or ""
            r.commands, r.detail = list(d.get("commands") or []), dict(d.get("detail") or {})
            results.append(r)
    if len(mcus) > 1:
        ap.error("--merge: the files are of different MCUs: %s" %
                 ", ".join(sorted(str(m) for m in mcus)))
    names = [e.name for e in EXAMPLES]
    present = {r.example for r in results}
    unknown = sorted(present - set(names))
    examples = [e for e in EXAMPLES if e.name in present] + [
        Example(n, [], None, None, None) for n in unknown]
    modes = [m for m in MODES if any(r.mode == m for r in results)]
    mcu = next(iter(mcus)) if mcus else None
    print("fidelity: merged %d file(s), %d results, %s, seeds %s" % (
        len(args.merge), len(results), mcu or "MCU not recorded",
        seed_ranges({r.seed for r in results}) or "none"))
    for ex in examples:
        for m in modes:
            got = {r.seed for r in results if r.example == ex.name and r.mode == m}
            want = {r.seed for r in results if r.example == ex.name and r.mode in
                    ("violation", "check", "bound", "wrap-violation", "wrap-check")}
            if m != "negative" and got != want and got:
                print("fidelity: %s / %s: seeds %s only" % (ex.name, m, seed_ranges(got)))
    failed = print_report(results, args, examples, modes)
    return 1 if (args.check and failed) else 0


def main():
    if "--network" in sys.argv[1:]:
        # Network mode (issue 18): wsn-sim net runs replayed with wsn-replay net.
        sys.path.insert(0, HERE)
        import netfidelity
        return netfidelity.main([a for a in sys.argv[1:] if a != "--network"])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="directory of wsn-cc, wsn-sim, wsn-replay")
    ap.add_argument("--mcu", default="atmega128", choices=sorted(MCUS),
                    help="the part every example is built for and simulated on "
                         "(default atmega128)")
    ap.add_argument("--seeds", type=int, default=1000, help="seeds per example and mode")
    ap.add_argument("--start", type=int, default=1, help="first seed")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--examples", help="comma-separated subset of: " +
                    ",".join(e.name for e in EXAMPLES))
    ap.add_argument("--modes", default=",".join(DEFAULT_MODES),
                    help="comma-separated subset of: " + ",".join(MODES) +
                    " (default: all but bound)")
    ap.add_argument("--negative-seeds", type=int, default=10,
                    help="seeds of the negative control per example (mode negative)")
    ap.add_argument("--work", help="work directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the runs of passing seeds too")
    ap.add_argument("--max-cycles", type=int, help="wsn-sim cycle bound (default: per example)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool run")
    ap.add_argument("--check", action="store_true", help="exit 1 when any seed fails")
    ap.add_argument("--json-out", help="write every result as JSON here")
    ap.add_argument("--show-seeds", type=int, default=8, help="seeds listed per message")
    ap.add_argument("--show-messages", type=int, default=4,
                    help="distinct failure messages listed per row")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ap.add_argument("--live-every", type=int, default=10,
                    help="every N-th seed is replayed again with --live-events (every record "
                         "through its callback) and must give the identical report with all "
                         "events; 0: never")
    ap.add_argument("--opt", action="append", default=[], metavar="FLAG",
                    help="extra wsn-cc option for every build, e.g. --opt=-O2 (default: "
                         "wsn-cc's -Os); repeatable")
    ap.add_argument("--bound-draws", type=int, default=BOUND_DRAWS, metavar="N",
                    help="bound mode: how many cycles are drawn at most (see bound above; "
                         "default %(default)s)")
    ap.add_argument("--bound-moves", type=int, default=BOUND_MOVES, metavar="N",
                    help="bound mode: how many times a drawn bound moves on at most "
                         "(default %(default)s)")
    ap.add_argument("--ring-moves", type=int, default=4, metavar="N",
                    help="how many times a wrap-violation seed's small ring may move (see "
                         "wrap-violation above; default 4, 0: never)")
    ap.add_argument("--wrap", action="append", default=[], metavar="EXAMPLE=RING:SEG",
                    help="override an example's small ring of the wrap-* modes (bytes of the "
                         "ring and of a segment); repeatable")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="print the table of the --json-out files of several runs (shards of "
                         "one campaign: --start/--seeds ranges) as one run, and run nothing")
    args = ap.parse_args()

    if args.merge:
        return merge_reports(ap, args)
    set_mcu(args.mcu)
    names = [e.name for e in EXAMPLES]
    if args.examples:
        want = [x.strip() for x in args.examples.split(",") if x.strip()]
        for w in want:
            if w not in names:
                ap.error("unknown example %r (known: %s)" % (w, ", ".join(names)))
            if w in PROFILE.missing:
                ap.error("example %r cannot run on %s: %s" % (w, MCU, PROFILE.missing[w]))
        examples = [e for e in EXAMPLES if e.name in want]
    else:
        examples = [e for e in EXAMPLES if e.name not in PROFILE.missing]
    for w in args.wrap:
        m = re.fullmatch(r"([\w-]+)=(\d+):(\d+)", w)
        if not m or m.group(1) not in names:
            ap.error("--wrap %r: expected EXAMPLE=RING:SEG with EXAMPLE one of %s" %
                     (w, ", ".join(names)))
        ring, seg = int(m.group(2)), int(m.group(3))
        if seg < 16 or ring < 2 * seg or ring % seg:
            ap.error("--wrap %r: the ring must be a multiple of the segment, with at least "
                     "two segments of at least 16 bytes" % w)
        for e in EXAMPLES:
            if e.name == m.group(1):
                e.wrap = (ring, seg)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            ap.error("unknown mode %r (known: %s)" % (m, ", ".join(MODES)))
    if args.seeds < 1 or args.jobs < 1:
        ap.error("--seeds and -j must be at least 1")

    h = Harness(args)
    require_tools(ap, h.bin)
    temp = make_work_dir(args, "wsn-fidelity-")

    t0 = time.perf_counter()
    want_plain = any(m in modes for m in ("violation", "check", "negative", "bound"))
    want_wrap = any(m in modes for m in ("wrap-violation", "wrap-check"))
    builds = []
    for ex in examples:
        if want_plain:
            builds.append((Build(ex, None, os.path.join(args.work_dir, "build")), False))
        if want_wrap:
            builds.append((Build(ex, ex.wrap, os.path.join(args.work_dir, "build")), True))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda b: b[0].make(h.bin, args.opt), builds))
    for b, _ in builds:
        if b.error:
            print("fidelity: build of %s%s failed: %s" % (b.example.name,
                                                          " (wrap ring)" if b.geometry else "",
                                                          b.error), file=sys.stderr)
    t_build = time.perf_counter() - t0

    jobs = [(b, s, wrap) for b, wrap in builds
            for s in range(args.start, args.start + args.seeds)]
    results, lock, done = [], threading.Lock(), [0]

    def work(job):
        b, s, wrap = job
        try:
            rs = h.seed_job(b, s, modes, wrap)
        except Exception as e:  # a harness bug must not hide the other seeds
            rs = []
            for m in (("wrap-violation", "wrap-check") if wrap else
                      ("violation", "check", "bound")):
                if m in modes:
                    r = Result(b.example.name, m, s)
                    r.rc, r.message = "harness", "%s: %s" % (type(e).__name__, e)
                    rs.append(r)
        with lock:
            results.extend(rs)
            done[0] += 1
            step = max(1, len(jobs) // 10)
            if not args.quiet and (done[0] % step == 0 or done[0] == len(jobs)):
                bad = sum(1 for r in results if not r.ok)
                print("fidelity: %d/%d seed jobs, %d failing replays, %.0fs" %
                      (done[0], len(jobs), bad, time.perf_counter() - t0), file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, jobs))

    print("fidelity: %s, %d seeds from %d, tools %s, %d jobs, build %.1fs, total %.1fs" %
          (MCU, args.seeds, args.start, h.bin, args.jobs, t_build, time.perf_counter() - t0))
    for name, why in sorted(PROFILE.missing.items()):
        if not args.examples:
            print("fidelity: %s skipped on %s: %s" % (name, MCU, why))
    failed = print_report(results, args, examples, modes)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump([{"mcu": MCU, "example": r.example, "mode": r.mode, "seed": r.seed,
                        "ok": r.ok,
                        "rc": r.rc, "message": r.message, "detail": r.detail,
                        "commands": r.commands}
                       for r in sorted(results, key=lambda r: (r.example, r.mode, r.seed))],
                      f, indent=1)
    if failed and (temp or not args.keep):
        print("\nruns of failing seeds kept in %s" % os.path.join(args.work_dir, "runs"))
    elif temp and not args.keep:
        shutil.rmtree(args.work_dir, ignore_errors=True)
    return 1 if (args.check and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
