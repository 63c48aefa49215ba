#!/usr/bin/env python3
"""Random-program fidelity fuzzer: generate mote programs, record them in wsn-sim, replay them
with wsn-replay, require the same stop point and byte-identical sliced globals.

usage: bench/fidelity/progfuzz.py [--mcu MCU] [--programs N] [--start P | --seeds P,...] [--runs R]
                                  [-j J] [--bin DIR] [--work DIR] [--max-cycles C]
                                  [--rings default,wrap] [--without FEATURE,...]
                                  [--keep] [--check] [--emit P]

The fidelity harness (fidelity.py) replays three hand-written examples. This script writes
new programs: a program seed P gives one C program (deterministically; --emit P prints it),
written the way the examples are (nesC-style Module$name identifiers, the TinyOS FIFO
scheduler of examples/common/scheduler.c, or a plain for(;;) main loop), built at a drawn
optimisation level (-Os mostly, -O1, -O2, -O0), with a random mix of

  - globals of 8, 16 and 32 bits (unsigned and signed, a 64-bit one), an array and a shadow,
    a struct and a copy of it, a bit-field struct, a const lookup table, a volatile flag
    written by handlers, a global pointer into the array (the "cursor");
  - 1-3 interrupt handlers among the HAL timer compare, INT0 (wsn-sim --irq int0:MEAN; now
    and then declared like avr-libc's ISR_NOBLOCK, entered with interrupts on), USART0
    receive (reads UDR0 first; --uart MEAN) and the ADC (--adc LO:HI); some re-enable
    interrupts part way (__nesc_enable_interrupt), some then write a counter back
    non-atomically (a lost update a nested handler can cause: the accounting invariant can
    then fail, which exercises the violation modes);
  - tasks posted by handlers and by earlier tasks (scheduler programs; never a post cycle, which
    would keep the scheduler loop's anchor from ever writing a checkpoint), or flags polled by
    the main loop, which may sleep (hal_sleep) in an atomic section;
  - atomic sections (__nesc_atomic_start/end), in tasks and the main loop;
  - out-of-line helpers (__attribute__((noinline))): some write globals (and call earlier
    helpers), some only compute, some open an interrupt window (sei ... cli, called only
    where interrupts are off: handlers and atomic sections; or save, sei, restore, called
    anywhere); helpers writing through a pointer argument (to a global, or to a task's local
    array: "localbuf"), returning a struct, recursing, returning 8/16/32 bits;
  - reads and writes through pointers to globals, memcpy, memset and struct copies, an
    indirect call through a const function table and through a global function pointer,
    reads of the switches (PINC, wsn-sim --switches);
  - 8/16/32/64-bit arithmetic (no undefined behaviour: products and shifts in unsigned types,
    divisors forced odd) and small loops;
  - two invariants (in the program's file or in a second file): an accounting invariant
    (total == sum of the handlers' counters) and a random predicate over a few globals (its
    constants reachable, so clang cannot fold it away), checked (WSN_CHECK) from tasks or the
    main loop, a few hundred to a few thousand times per simulated second.

Kept out, because the product documents refusing them: input reads in functions reached
through an indirect call (an indirect call that may reach both instrumented and uninstrumented
functions is not skipped, and an uninstrumented function reading an input then stops the
replay, spec/replay.md section 3); indirect and struct-returning calls where interrupts may be
on (such calls are not skipped, wsn-trace warns, and replay runs the uninstrumented target
without counting, so an interrupt inside it cannot be placed).
--without FEATURE,... turns off constructs that found open replay bugs (progfuzz-cases/):
localbuf, cursor, O0, indirect (calls through the table and the hook; structret also exists);
the same seed then gives another program.

--mcu (fidelity.py's MCUS: atmega128 by default, msp430f1611, msp430f2617) picks the part the
programs are built for and simulated on. The AVR programs are exactly those of earlier sessions;
on MSP430 the window helpers close with `dint; nop` instead of `cli`, an "ISR_NOBLOCK" external
handler acknowledges its port flag and re-enables interrupts first, and no program has a UART
handler unless --msp430-uart is given (wsn-sim has modelled the MSP430 serial ports since
session 8; the default keeps the MSP430 program set of the sessions before it, whose program
numbers tests and notes refer to; with --msp430-uart the same seed may give another program).

Campaign: each program is built with wsn-cc twice, with the default ring and with a small
ring that wraps (wrap modes; as fidelity.py's wrap-*). For each run seed R (1..--runs) and
ring, a probe run in wsn-sim (--max-cycles, seeded stimulus means drawn from (P, R)) gives
the number of checks C the run makes (or the violation); if it stopped at a violation, that
trace is replayed (mode violation / wrap-violation); then K is drawn in [1, C] and wsn-sim
stops at the K-th check (--stop-after-checks K), and wsn-replay replays the trace to the same
check (mode check / wrap-check; with the small ring, a K at which the ring had not wrapped or
kept no checkpoint is drawn again among the later checks, at most 5 times, as fidelity.py's
wrap-check moves K; a violating probe whose small ring did not wrap, or kept no checkpoint,
is run again on a ring one segment smaller (down to two, then two segments of three quarters
the size) or larger, at most 4 times, and both modes of that run use the ring it settled on,
as fidelity.py's wrap-violation; a wrap-check run whose ring kept no checkpoint at any check
drawn is probed again on a ring one segment larger, within the same 4 moves). Each replay is
judged by fidelity.py's judging code (Harness.replay_and_judge, imported): status
"reproduced", the same stop, at least one global compared, none differing.

Rows of their own (not replay failures): "build failed" (wsn-cc refused the program), "no
checkpoint" (the small ring kept no CHECKPOINT at K: nothing to replay from), "not wrapped"
(the small ring had not wrapped yet at K), "sim" (wsn-sim failed or did not stop where
asked). For every replay failure the report gives the program seed, run seed, K and the exact
wsn-cc / wsn-sim / wsn-replay commands; the failing program's sources and runs stay in
WORK/prog-P/.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402  (the judging code: Harness.replay_and_judge, Result, run)

ROOT = fidelity.ROOT

# The small ring of the wrap modes (ring, segment). The checkpoint of a generated program
# (every global an instrumented function references) is about 40-90 bytes and must fit a
# segment less 8 bytes; when wsn-cc refuses the first geometry for that reason the next one
# is tried.
WRAP_RINGS = [(512, 128), (800, 200)]
MAX_CYCLES = 3000000  # about 0.4 s of simulated time at 7.3728 MHz
# wrap modes: how many times a violating run's small ring may move (see ring_runs).
WRAP_RING_MOVES = 4
# wrap-check: how many checks are drawn at most for one run, each later than the last, when
# the small ring had not wrapped at the check drawn or kept no checkpoint there (session 18:
# 27 of 80 atmega128 wrap-check runs of programs 1801-1840 ended so with one draw).
WRAP_CHECK_DRAWS = 6
MODES = ["violation", "check", "wrap-violation", "wrap-check", "negative"]

# Stimulus ranges (mean gaps in cycles), drawn per (program, run) seed.
UART_GAP = (8000, 40000)
PULSE_GAP = (15000, 150000)
SWITCH_GAP = (100000, 600000)
# MSP430 parts run the generated programs in wsn-sim at about 800 kHz (DCO at reset) on a
# 16-bit core with software 64-bit arithmetic, so a handler takes several times the AVR's cycles
# and the AVR's rates nest handlers until the stack runs through the globals: on MSP430 the HAL
# tick, the stimulus gaps and the probe's cycle bound are SLOW times the AVR's (the gaps are
# drawn as on the AVR, then scaled, so a seed gives the same program and draws on both).
SLOW = {"avr": 1, "msp430": 10}


def slow():
    return SLOW[fidelity.PROFILE.target]

TYPES = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t"}
HANDLERS = ["timer", "int0", "uart", "adc"]
# Whether MSP430 programs may have a UART receive handler (--msp430-uart; see the docstring).
MSP430_UART = False


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------
class Program:
    """One generated program: files {name: text}, the handlers it has, the wsn-sim stimulus
    options it needs (as a function of a run generator), and whether it uses the scheduler."""

    def __init__(self, seed, mcu):
        self.seed = seed
        self.mcu = mcu  # fidelity.McuProfile
        self.files = OrderedDict()
        self.handlers = []
        self.scheduler = False
        self.switches = False
        self.opt = "-Os"  # wsn-cc's optimisation level for this program

    def stimulus(self, rng):
        opts = []
        if "uart" in self.handlers:
            opts += ["--uart", str(rng.randint(*UART_GAP) * slow())]
        if "int0" in self.handlers:
            opts += ["--irq", "%s:%d" % (self.mcu.ext_irq, rng.randint(*PULSE_GAP) * slow())]
        if "adc" in self.handlers:
            lo = rng.randint(0, 900)
            opts += ["--adc", "%d:%d" % (lo, rng.randint(lo, 1023))]
        if self.switches:
            opts += ["--switches", "%s:%d" % (self.mcu.switch_port,
                                              rng.randint(*SWITCH_GAP) * slow())]
        return opts


class Gen:
    """Writes one program from a seeded generator. Everything is drawn from self.r, in a fixed
    order, so a seed always gives the same text."""

    def __init__(self, seed, without=(), mcu=None):
        self.without = set(without)
        self.mcu = mcu or fidelity.PROFILE
        self.msp430 = self.mcu.target == "msp430"
        self.r = fidelity.rng_for("progfuzz", seed)
        self.p = Program(seed, self.mcu)
        self.m = self.r.choice(["FuzzC", "ProgC", "MoteAppC", "SenseFilterP", "CountC"])

    # -- names ----------------------------------------------------------------------------
    def g(self, name):
        return "%s$%s" % (self.m, name)

    # -- expressions over the program's data -------------------------------------------------
    def scalar_lvalues(self):
        """(lvalue text, bits) of every writable scalar the statements may touch."""
        out = [(self.g(n), b) for n, b in self.vars]
        for i in range(self.arr_len):
            out.append(("%s[%d]" % (self.g("buf"), i), self.arr_bits))
        out += [(self.g("rec") + ".tag", 8), (self.g("rec") + ".val", 16),
                (self.g("rec") + ".acc", 32)]
        out += [(self.g(n), b) for n, b in self.svars]
        if self.bitfields:
            out += [(self.g("bits") + ".a", 8), (self.g("bits") + ".b", 8),
                    (self.g("bits") + ".c", 16)]
        return out

    def readable(self):
        return self.scalar_lvalues() + [(self.g("recCopy") + ".val", 16),
                                        (self.g("recCopy") + ".acc", 32)]

    def const(self, bits):
        return "%du" % self.r.randint(0, min((1 << bits) - 1, 0xFFFF if bits > 16 else 0xFFFF))

    def atom(self, bits, locals_=()):
        k = self.r.random()
        if k < 0.06 and self.lut:
            return "%s[(uint8_t)(%s) & 15u]" % (self.g("lut"), self.r.choice(self.readable())[0])
        if k < 0.1 and self.volatile_flag and not self.no_inputs:
            return self.g("vflag")
        if k < 0.13 and self.cursor:
            return "*" + self.g("cursor")
        if k < 0.55:
            return self.r.choice(self.readable())[0]
        if k < 0.7 and locals_:
            return self.r.choice(locals_)
        return self.const(bits if self.r.random() < 0.7 else 8)

    def expr(self, bits, depth=0, locals_=()):
        if depth >= 2 or self.r.random() < 0.35:
            return self.atom(bits, locals_)
        a = self.expr(bits, depth + 1, locals_)
        b = self.expr(bits, depth + 1, locals_)
        t = TYPES[bits]
        op = self.r.choice(["+", "-", "^", "|", "&", "*", "<<", ">>", "/", "%"])
        if op in ("<<", ">>"):
            return "(%s)((%s)%s %s %d)" % (t, t, a, op, self.r.randint(1, bits - 1))
        if op in ("/", "%"):
            return "(%s)((%s)%s %s (%s)((%s) | 1u))" % (t, t, a, op, t, b)
        if op == "*" and bits == 8:  # uint8 * uint8 is an int product: may overflow
            return "(%s)((uint16_t)%s * (uint16_t)%s)" % (t, a, b)
        return "(%s)((%s)%s %s (%s)%s)" % (t, t, a, op, t, b)

    def cond(self, locals_=()):
        lv, bits = self.r.choice(self.readable())
        op = self.r.choice(["<", ">", "==", "!=", "&"])
        if op == "&":
            return "(%s & %du)" % (lv, 1 << self.r.randint(0, bits - 1))
        return "%s %s %s" % (lv, op, self.atom(bits, locals_))

    # -- statements ---------------------------------------------------------------------------
    def stmts(self, ctx, n, ind, locals_=()):
        """n random statements. ctx: 'task' (interrupts on), 'atomic' (interrupts off, in a
        task or the main loop), 'irq-off' / 'irq-on' (a handler before / after it re-enabled
        interrupts), 'helper'."""
        out = []
        for _ in range(n):
            out += self.stmt(ctx, ind, locals_)
        return out

    def stmt(self, ctx, ind, locals_, depth=0):
        sp = "  " * ind
        r = self.r
        kinds = ["assign", "assign", "assign", "loop", "ptr", "struct", "copy", "call", "if"]
        # Indirect calls (the table, the hook) may reach both instrumented and uninstrumented
        # functions; such a call is not skipped (wsn-trace warns, spec/instrumentation.md
        # section 7) and replay runs the uninstrumented target uncounted, so an interrupt
        # taken inside it would be replayed before it. A struct-returning call is not skipped
        # either. The generator makes these calls only where interrupts are off.
        irq_off = ctx in ("atomic", "irq-off")
        if irq_off and "indirect" not in self.without:
            kinds.append("table")
        if ctx in ("task", "atomic", "loop"):
            kinds.append("switch-in")
        kinds += ["signed"] if self.svars else []
        kinds += ["ptrarg", "memset"]
        kinds += ["structret"] if "structret" not in self.without and irq_off else []
        kinds += ["recursion"] if self.recursion else []
        kinds += ["wide"] if self.wide else []
        kinds += ["cursor"] if self.cursor else []
        kinds += ["hook"] if self.hook and irq_off and "indirect" not in self.without else []
        if ctx in ("task", "atomic", "loop") and "localbuf" not in self.without:
            kinds += ["localbuf"]
        if ctx == "helper":  # helpers call earlier helpers only (the table comes after them)
            kinds = [x for x in kinds if x not in ("table", "hook", "localbuf", "ptrarg",
                                                   "structret", "recursion")]
            if not self.no_inputs:
                kinds.append("switch-in")
        k = r.choice(kinds)
        if k == "assign":
            lv, bits = r.choice(self.scalar_lvalues())
            op = r.choice(["=", "+=", "^=", "-=", "|="])
            if op == "=":
                return ["%s%s = %s;" % (sp, lv, self.expr(bits, 0, locals_))]
            return ["%s%s = (%s)(%s %s %s);" % (sp, lv, TYPES[bits], lv, op[0],
                                               self.expr(bits, 0, locals_))]
        if k == "loop":
            t = TYPES[self.arr_bits]
            body = r.choice([
                "%s[i] = (%s)(%s[i] + i * %du + %s);" % (self.g("buf"), t, self.g("buf"),
                                                        r.randint(1, 9), self.atom(8)),
                "%s = (%s)(%s + %s[i]);" % (self.g(self.acc), TYPES[self.acc_bits],
                                            self.g(self.acc), self.g("buf")),
                "%s[i] ^= (%s)(%s >> (i & 7u));" % (self.g("buf"), t, self.atom(16)),
            ])
            return ["%sfor (uint8_t i = 0; i < %du; ++i)" % (sp, r.randint(1, self.arr_len)),
                    "%s  %s" % (sp, body)]
        if k == "ptr":
            bits = r.choice([8, 16, 32])
            same = [n for n, b in self.vars if b == bits]
            if not same:
                return self.stmt(ctx, ind, locals_, depth)
            a, b = r.choice(same), r.choice(same)
            t = TYPES[bits]
            return ["%s{" % sp,
                    "%s  %s *p = (%s) ? &%s : &%s;" % (sp, t, self.cond(locals_), self.g(a),
                                                      self.g(b)),
                    "%s  *p = (%s)(*p + %s);" % (sp, t, self.expr(bits, 1, locals_)),
                    "%s}" % sp]
        if k == "struct":
            f = r.choice([("tag", 8), ("val", 16), ("acc", 32)])
            return ["%s{" % sp,
                    "%s  %s_t *q = &%s;" % (sp, self.g("rec"), self.g("rec")),
                    "%s  q->%s = (%s)(q->%s + %s);" % (sp, f[0], TYPES[f[1]], f[0],
                                                       self.expr(f[1], 1, locals_)),
                    "%s}" % sp]
        if k == "copy":
            c = r.randint(0, 2)
            if c == 0:
                return ["%s%s = %s;" % (sp, self.g("recCopy"), self.g("rec"))]
            if c == 1:
                return ["%smemcpy(&%s, &%s, sizeof %s);" % (sp, self.g("recCopy"),
                                                            self.g("rec"), self.g("rec"))]
            n = r.randint(1, self.arr_len)
            return ["%smemcpy(%s, %s, %du * sizeof %s[0]);" % (
                sp, self.g("shadow"), self.g("buf"), n, self.g("buf"))]
        if k == "call":
            hs = [h for h in self.helpers if self.helper_ok(h, ctx)]
            if not hs:
                return self.stmt(ctx, ind, locals_, depth)
            h = r.choice(hs)
            call = "%s(%s)" % (self.g(h["name"]), self.atom(8, locals_))
            if h["ret"]:
                lv, bits = r.choice(self.scalar_lvalues())
                return ["%s%s = (%s)(%s + %s);" % (sp, lv, TYPES[bits], lv, call)]
            return ["%s%s;" % (sp, call)]
        if k == "table":
            return ["%s%s[(uint8_t)(%s) %% %du](%s);" % (
                sp, self.g("ops"), self.atom(8, locals_), len(self.ops), self.atom(8, locals_))]
        if k == "signed":
            n, bits = r.choice(self.svars)
            t = {8: "int8_t", 16: "int16_t", 32: "int32_t"}[bits]
            u = TYPES[bits]
            c = r.randint(0, 3)
            if c == 0:
                return ["%s%s = (%s)((%s)%s * %du + (%s)%s);" % (
                    sp, self.g(n), t, u, self.g(n), r.randint(2, 9), u, self.expr(bits, 1,
                                                                                  locals_))]
            if c == 1:
                return ["%s%s = (%s)(%s / %d);" % (sp, self.g(n), t, self.g(n),
                                                   r.choice([-7, -3, 2, 5, 11]))]
            if c == 2:
                lv, b2 = r.choice(self.scalar_lvalues())
                return ["%sif (%s < 0)" % (sp, self.g(n)),
                        "%s  %s = (%s)(%s + (%s)(%s >> %d));" % (
                            sp, lv, TYPES[b2], lv, TYPES[b2], self.g(n), r.randint(1, 5))]
            return ["%s%s = (%s)(%s >> %d);" % (sp, self.g(n), t, self.g(n),
                                                r.randint(1, bits - 1))]
        if k == "ptrarg":
            svars = set(self.g(n) for n, _ in self.svars)
            lv, bits = r.choice([(l, b) for l, b in self.scalar_lvalues()
                                 if not l.startswith(self.g("bits") + ".") and l not in svars])
            self.bumps.add(bits)
            return ["%s%s(&%s, %s);" % (sp, self.g("bump%d" % bits), lv, self.atom(8, locals_))]
        if k == "memset":
            if r.random() < 0.5:
                return ["%smemset(%s, (int)(uint8_t)(%s), sizeof %s);" % (
                    sp, self.g("shadow"), self.atom(8, locals_), self.g("shadow"))]
            return ["%smemset(&%s, 0, sizeof %s);" % (sp, self.g("recCopy"), self.g("recCopy"))]
        if k == "structret":
            self.mk = True
            if r.random() < 0.5:
                return ["%s%s = %s(%s);" % (sp, self.g("recCopy"), self.g("mk"),
                                           self.atom(8, locals_))]
            lv, bits = r.choice(self.scalar_lvalues())
            return ["%s{" % sp,
                    "%s  %s_t t = %s(%s);" % (sp, self.g("rec"), self.g("mk"),
                                             self.atom(8, locals_)),
                    "%s  %s = (%s)(%s + t.val + t.tag);" % (sp, lv, TYPES[bits], lv),
                    "%s}" % sp]
        if k == "recursion":
            lv, bits = r.choice(self.scalar_lvalues())
            return ["%s%s = (%s)(%s + %s((uint8_t)(%s) & 7u));" % (
                sp, lv, TYPES[bits], lv, self.g("sumTo"), self.atom(8, locals_))]
        if k == "wide":
            lv, bits = r.choice(self.scalar_lvalues())
            return ["%s%s = %s * 0x9E3779B97F4A7C15ull + (uint64_t)%s;" % (
                sp, self.g("wide"), self.g("wide"), self.expr(32, 1, locals_)),
                    "%s%s = (%s)(%s + (%s)(%s >> %d));" % (
                sp, lv, TYPES[bits], lv, TYPES[bits], self.g("wide"), r.randint(8, 56))]
        if k == "cursor":
            t = TYPES[self.arr_bits]
            if r.random() < 0.5:
                return ["%s*%s = (%s)(*%s + %s);" % (sp, self.g("cursor"), t, self.g("cursor"),
                                                     self.expr(self.arr_bits, 1, locals_))]
            return ["%s%s = &%s[(uint8_t)(%s) %% %du];" % (
                sp, self.g("cursor"), self.g("buf"), self.atom(8, locals_), self.arr_len)]
        if k == "hook":
            if r.random() < 0.5:
                return ["%s%s = %s[(uint8_t)(%s) %% %du];" % (
                    sp, self.g("hook"), self.g("ops"), self.atom(8, locals_), len(self.ops))]
            return ["%s%s(%s);" % (sp, self.g("hook"), self.atom(8, locals_))]
        if k == "localbuf":
            lv, bits = r.choice(self.scalar_lvalues())
            n = r.randint(2, 5)
            return ["%s{" % sp,
                    "%s  uint8_t tmp[%d];" % (sp, n),
                    "%s  %s(tmp, %du, (uint8_t)(%s));" % (sp, self.g("fill"), n,
                                                         self.atom(8, locals_)),
                    "%s  %s = (%s)(%s + tmp[0] + tmp[%d]);" % (sp, lv, TYPES[bits], lv, n - 1),
                    "%s}" % sp]
        if k == "switch-in":
            self.p.switches = True
            lv, bits = r.choice(self.scalar_lvalues())
            return ["%s%s = (%s)(%s + (hal_input_bits() & %du));" % (
                sp, lv, TYPES[bits], lv, r.choice([1, 3, 7, 0x0F, 0xFF]))]
        # if
        if depth >= 1:
            return self.stmt(ctx, ind, locals_, depth + 1) if r.random() < 0.5 else \
                ["%s%s = (%s)(%s + 1u);" % (sp, self.g(self.acc), TYPES[self.acc_bits],
                                           self.g(self.acc))]
        body = []
        for _ in range(r.randint(1, 2)):
            body += self.stmt(ctx, ind + 1, locals_, depth + 1)
        out = ["%sif (%s) {" % (sp, self.cond(locals_))] + body
        if r.random() < 0.4:
            out.append("%s} else {" % sp)
            out += self.stmt(ctx, ind + 1, locals_, depth + 1)
        out.append("%s}" % sp)
        return out

    def helper_ok(self, h, ctx):
        if ctx == "helper":  # an earlier helper, no window, no recursion
            return h["index"] < self.cur_helper and h["kind"] not in ("window", "swindow")
        # A window helper ends with cli: call it only where interrupts are already off
        # (handlers; atomic sections), so that it does not leave them off behind a task.
        if h["kind"] == "window":
            return ctx in ("atomic", "irq-off", "irq-on")
        return True

    # -- the program ----------------------------------------------------------------------------
    def generate(self):
        r, p = self.r, self.p
        p.scheduler = r.random() < 0.65
        p.opt = r.choice(["-Os", "-Os", "-Os", "-O1", "-O2"] +
                         ([] if "O0" in self.without else ["-O0"]))
        self.nonblocking_int0 = r.random() < 0.15
        pool = [h for h in HANDLERS if not (h == "uart" and self.msp430 and not MSP430_UART)]
        p.handlers = sorted(r.sample(pool, r.randint(1, 3)), key=HANDLERS.index)
        if not p.scheduler and "timer" not in p.handlers and r.random() < 0.5:
            p.handlers = ["timer"] + p.handlers[:2]
        self.vars = []
        for i in range(r.randint(3, 7)):
            self.vars.append(("v%d" % i, r.choice([8, 16, 16, 32])))
        self.acc, self.acc_bits = r.choice(self.vars)
        self.svars = [("s%d" % i, r.choice([8, 16, 32])) for i in range(r.randint(0, 2))]
        self.bitfields = r.random() < 0.4
        self.lut = r.random() < 0.4
        self.volatile_flag = r.random() < 0.4
        self.cursor = r.random() < 0.4 and "cursor" not in self.without
        self.hook = r.random() < 0.4
        self.recursion = r.random() < 0.3
        self.wide = r.random() < 0.3
        self.no_inputs = False
        self.bumps, self.mk = set(), False
        self.cur_helper = 1 << 30
        self.arr_bits = r.choice([8, 16])
        self.arr_len = r.choice([4, 6, 8])
        self.helpers = []
        for i in range(r.randint(2, 4)):
            kind = r.choice(["writer", "pure", "window", "writer", "swindow"])
            self.helpers.append({"name": "helper%d" % i, "kind": kind, "index": i,
                                 "ret": r.choice([8, 16, 32]) if (kind == "pure" or
                                                                  r.random() < 0.3) else 0})
        if not any(h["kind"] == "window" for h in self.helpers) and r.random() < 0.6:
            self.helpers[-1] = {"name": "helper%d" % (len(self.helpers) - 1), "kind": "window",
                                "ret": 0, "index": len(self.helpers) - 1}
        self.ops = ["op%d" % i for i in range(r.randint(2, 3))]
        self.cur_helper = 1 << 30
        split = r.random() < 0.5
        self.inv_names = ["accounting", "shape"]
        main = self.program_text()
        inv_decls, inv_defs = self.invariants()
        name = "%s.c" % self.m
        if split:
            p.files[name] = main.replace("/*@INVARIANTS@*/", inv_decls)
            p.files["invariants.c"] = self.invariant_file(inv_defs)
        else:
            p.files[name] = main.replace("/*@INVARIANTS@*/", inv_defs)
        return p

    def decls(self):
        r = self.r
        out = []
        for n, b in self.vars:
            init = " = %s" % self.const(b) if r.random() < 0.3 else ""
            out.append("%s %s%s;" % (TYPES[b], self.g(n), init))
        t = TYPES[self.arr_bits]
        out.append("%s %s[%d];" % (t, self.g("buf"), self.arr_len))
        out.append("%s %s[%d];" % (t, self.g("shadow"), self.arr_len))
        out.append("typedef struct { uint8_t tag; uint16_t val; uint32_t acc; } %s_t;" %
                   self.g("rec"))
        out.append("%s_t %s;" % (self.g("rec"), self.g("rec")))
        out.append("%s_t %s;" % (self.g("rec"), self.g("recCopy")))
        for n, b in self.svars:
            out.append("int%d_t %s;" % (b, self.g(n)))
        if self.bitfields:
            out.append(self.bits_struct() + ";")
            out.append("struct %s_s %s;" % (self.g("bits"), self.g("bits")))
        if self.lut:
            out.append("static const uint8_t %s[16] = {%s};" % (
                self.g("lut"), ", ".join(str(r.randint(0, 255)) for _ in range(16))))
        if self.volatile_flag:
            out.append("volatile uint8_t %s; /* written by handlers */" % self.g("vflag"))
        if self.cursor:
            out.append("%s *%s = &%s[%d];" % (t, self.g("cursor"), self.g("buf"),
                                              r.randint(0, self.arr_len - 1)))
        if self.wide:
            out.append("uint64_t %s;" % self.g("wide"))
        out.append("/* accounting: every handler run counts once in its counter and in total */")
        for h in self.p.handlers:
            out.append("uint16_t %s;" % self.g("n_" + h))
        out.append("uint16_t %s;" % self.g("total"))
        out.append("uint8_t %s; /* handler -> main loop / task flags */" % self.g("flags"))
        return out

    def bits_struct(self):
        return "struct %s_s { uint8_t a : 3; uint8_t b : 5; uint16_t c : 12; uint16_t d : 4; }" % \
            self.g("bits")

    def helper_defs(self):
        r = self.r
        out = []
        out.append("__attribute__((noinline)) void %s(uint8_t *out, uint8_t n, uint8_t x) {" %
                   self.g("fill"))
        out.append("  for (uint8_t i = 0; i < n; ++i)")
        out.append("    out[i] = (uint8_t)(x + i * %du + %s);" % (
            r.randint(1, 50), r.choice(self.readable())[0]))
        out.append("}")
        for h in self.helpers:
            self.cur_helper = h["index"]
            ret = TYPES[h["ret"]] if h["ret"] else "void"
            out.append("__attribute__((noinline)) %s %s(uint8_t x) {" % (ret, self.g(h["name"])))
            if h["kind"] == "window":
                out.append("  /* opens an interrupt window: called with interrupts off */")
                out.append("  __nesc_enable_interrupt();")
                out.append("  for (volatile uint8_t i = 0; i < %du; ++i)" % r.randint(5, 60))
                out.append("    ;")
                if r.random() < 0.5:
                    out += self.stmts("helper", r.randint(1, 2), 1, ("x",))
                out.append('  __asm__ __volatile__("%s" ::: "memory");' %
                           ("dint\\n\\tnop" if self.msp430 else "cli"))
            elif h["kind"] == "swindow":
                out.append("  /* an interrupt window that restores the caller's state */")
                out.append("  __nesc_atomic_t s = __nesc_atomic_start();")
                out += self.stmts("helper", r.randint(0, 1), 1, ("x",))
                out.append("  __nesc_enable_interrupt();")
                out.append("  for (volatile uint8_t i = 0; i < %du; ++i)" % r.randint(5, 60))
                out.append("    ;")
                out += self.stmts("helper", r.randint(0, 1), 1, ("x",))
                out.append("  __nesc_atomic_end(s);")
            elif h["kind"] == "writer":
                out += self.stmts("helper", r.randint(1, 3), 1, ("x",))
            else:  # pure: reads globals, writes only locals
                out.append("  uint16_t s = x;")
                out.append("  for (uint8_t i = 0; i < (uint8_t)(x & 7u); ++i)")
                out.append("    s = (uint16_t)(s * 3u + %s + i);" % self.r.choice(
                    self.readable())[0])
            if h["ret"]:
                out.append("  return (%s)(x * %du + %s);" % (
                    TYPES[h["ret"]], r.randint(1, 200), r.choice(self.readable())[0]
                    if h["kind"] != "pure"
                    else "s"))
            out.append("}")
        # the function table (its functions may call every helper but the windows)
        self.cur_helper = len(self.helpers)
        # No input reads in them: an indirect call that may reach both instrumented and
        # uninstrumented functions is not skipped (spec/instrumentation.md section 7), and an
        # uninstrumented function that reads an input then stops the replay (documented:
        # spec/replay.md section 3, untraced I/O reads in uninstrumented functions).
        self.no_inputs = True
        for o in self.ops:
            out.append("static void %s(uint8_t x) {" % self.g(o))
            out += self.stmts("helper", r.randint(1, 2), 1, ("x",))
            out.append("}")
        self.no_inputs = False
        out.append("static void (*const %s[%d])(uint8_t) = {%s};" % (
            self.g("ops"), len(self.ops), ", ".join("&" + self.g(o) for o in self.ops)))
        if self.hook:
            out.append("void (*%s)(uint8_t) = &%s;" % (self.g("hook"), self.g(self.ops[0])))
        return out

    def handler_def(self, h, idx):
        r, p = self.r, self.p
        macro = {"timer": "HAL_TIMER_ISR", "int0": "HAL_EXT_ISR", "uart": "HAL_UART_RX_ISR",
                 "adc": "HAL_ADC_ISR"}[h]
        out = ["%s() {" % macro]
        if h == "int0" and self.nonblocking_int0 and not self.msp430:
            # avr-libc's ISR_NOBLOCK: entered with interrupts enabled (nests at once)
            out = ["void __vector_1(void) __attribute__((interrupt, used)); /* INT0 */",
                   "void __vector_1(void) {"]
        locals_ = []
        if h == "int0":
            out.append("  hal_ext_ack();")
            if self.nonblocking_int0 and self.msp430:
                # MSP430 has no ISR_NOBLOCK: clear the port flag, then enable at once
                out.append("  __nesc_enable_interrupt();")
        if h == "uart":
            out.append("  uint8_t b = hal_uart_rx_byte(); /* clears the receive flag */")
            locals_.append("b")
        if h == "adc":
            out.append("  uint16_t v = hal_adc_result();")
            locals_.append("(uint8_t)v")
        n, total = self.g("n_" + h), self.g("total")
        # timer handlers rarely re-enable (they are the most frequent source)
        reenable = r.random() < {"timer": 0.25, "uart": 0.3}.get(h, 0.55)
        lost_update = reenable and r.random() < 0.3
        if not lost_update:
            out.append("  %s++;" % n)
            out.append("  %s++;" % total)
        else:
            out.append("  %s++;" % n)
            out.append("  uint16_t t = %s; /* read with interrupts off ... */" % total)
        if self.volatile_flag and r.random() < 0.6:
            out.append("  %s = (uint8_t)(%s + %s);" % (self.g("vflag"), self.g("vflag"),
                                                       locals_[0] if locals_ else "1u"))
        out += self.stmts("irq-off", r.randint(0, 2), 1, tuple(locals_))
        if reenable:
            out.append("  __nesc_enable_interrupt();")
            out += self.stmts("irq-on", r.randint(1, 3), 1, tuple(locals_))
            if lost_update:
                out.append("  %s = (uint16_t)(t + 1u); /* ... written back with them on */" %
                           total)
        if p.scheduler and h == "timer" and "adc" in p.handlers:
            out.append("  hal_adc_start(); /* the next conversion */")
        if p.scheduler:
            for t in self.posts[h]:
                out.append("  SchedulerBasicP$TaskBasic$postTask(%d);" % t)
        else:
            if reenable:
                out.append("  {")
                out.append("    __nesc_atomic_t a = __nesc_atomic_start();")
                out.append("    %s |= %du;" % (self.g("flags"), 1 << idx))
                out.append("    __nesc_atomic_end(a);")
                out.append("  }")
            else:
                out.append("  %s |= %du;" % (self.g("flags"), 1 << idx))
        out.append("}")
        return out

    def check_block(self, ind, which, atomic):
        sp = "  " * ind
        out = []
        if atomic:
            out += ["%s{" % sp, "%s  __nesc_atomic_t a = __nesc_atomic_start();" % sp]
            for w in which:
                out.append("%s  WSN_CHECK(%s);" % (sp, w))
            out += ["%s  __nesc_atomic_end(a);" % sp, "%s}" % sp]
        else:
            for w in which:
                out.append("%sWSN_CHECK(%s);" % (sp, w))
        return out

    def atomic_block(self, ind):
        sp = "  " * ind
        out = ["%s{" % sp, "%s  __nesc_atomic_t a = __nesc_atomic_start();" % sp]
        out += self.stmts("atomic", self.r.randint(1, 3), ind + 1)
        out += ["%s  __nesc_atomic_end(a);" % sp, "%s}" % sp]
        return out

    def invariants(self):
        r = self.r
        # accounting: total == sum of the handlers' counters
        s = " + ".join(self.g("n_" + h) for h in self.p.handlers)
        acc = "WSN_INVARIANT(accounting) {\n  return %s == (uint16_t)(%s);\n}\n" % (
            self.g("total"), s)
        # a random predicate over a few globals: rarely false
        # Every constant is a value the left side can take: an invariant clang can prove
        # true is folded, its checks vanish from the IR and the firmware records none.
        def top(lv, bits):
            if lv.startswith(self.g("bits") + "."):
                bits = {".a": 3, ".b": 5, ".c": 12}[lv[-2:]]
            return (1 << min(bits, 16)) - 1

        terms = []
        for _ in range(r.randint(1, 3)):
            lv, bits = r.choice(self.readable())
            if r.random() < 0.5:
                lv2, bits2 = r.choice(self.readable())
                hi = min(0xFFFF, top(lv, bits) + top(lv2, bits2))
                terms.append("(uint16_t)(%s + %s) != %du" % (lv, lv2, r.randint(0, hi)))
            else:
                terms.append("%s != %du" % (lv, r.randint(0, top(lv, bits))))
        shape = "WSN_INVARIANT(shape) {\n  return %s;\n}\n" % " && ".join(terms)
        decls = "WSN_DECLARE_INVARIANT(accounting);\nWSN_DECLARE_INVARIANT(shape);\n"
        return decls, acc + "\n" + shape

    def invariant_file(self, defs):
        out = ["/* invariants.c - generated by bench/fidelity/progfuzz.py (program seed %d) */" %
               self.p.seed, "#include <stdint.h>", "#include <wsn/invariant.h>", ""]
        for n, b in self.vars:
            out.append("extern %s %s;" % (TYPES[b], self.g(n)))
        out.append("extern %s %s[%d];" % (TYPES[self.arr_bits], self.g("buf"), self.arr_len))
        out.append("typedef struct { uint8_t tag; uint16_t val; uint32_t acc; } %s_t;" %
                   self.g("rec"))
        out.append("extern %s_t %s;" % (self.g("rec"), self.g("rec")))
        out.append("extern %s_t %s;" % (self.g("rec"), self.g("recCopy")))
        for n, b in self.svars:
            out.append("extern int%d_t %s;" % (b, self.g(n)))
        if self.bitfields:
            out.append(self.bits_struct() + ";")
            out.append("extern struct %s_s %s;" % (self.g("bits"), self.g("bits")))
        for h in self.p.handlers:
            out.append("extern uint16_t %s;" % self.g("n_" + h))
        out.append("extern uint16_t %s;" % self.g("total"))
        out.append("")
        return "\n".join(out) + "\n" + defs

    def program_text(self):
        r, p = self.r, self.p
        out = ["/* %s.c - generated by bench/fidelity/progfuzz.py (program seed %d): %s, "
               "handlers %s, wsn-cc %s */" % (self.m, p.seed, "scheduler" if p.scheduler
                                              else "main loop", ", ".join(p.handlers), p.opt)]
        out.append('#include "scheduler.h"' if p.scheduler else '#include "hal.h"')
        if self.msp430:
            # No libc for MSP430 here: the trace runtime links memcpy and memset
            # (trace-runtime/platform/msp430/mspabi.c); declare them as string.h would.
            out += ["#include <stddef.h>", "void *memcpy(void *, const void *, size_t);",
                    "void *memset(void *, int, size_t);", "#include <wsn/invariant.h>", ""]
        else:
            out += ["#include <string.h>", "#include <wsn/invariant.h>", ""]
        out += self.decls()
        out.append("")
        out.append("/*@INVARIANTS@*/")
        out.append("")
        out.append("/*@HELPERS@*/")
        out += self.helper_defs()
        out.append("")
        if p.scheduler:
            self.ntasks = r.randint(2, 4)
            # every handler posts 1-2 tasks; task 0 always checks
            self.posts = {}
            for h in p.handlers:
                self.posts[h] = sorted(set(r.randint(0, self.ntasks - 1)
                                           for _ in range(r.randint(1, 2))))
            if not any(0 in v for v in self.posts.values()):
                self.posts[p.handlers[0]] = sorted(set(self.posts[p.handlers[0]] + [0]))
            # the first task the ADC handler posts starts the next conversion
            # (with a timer, the timer handler starts each conversion instead: a task that
            # restarts the ADC keeps the queue from ever emptying when its work outlasts a
            # conversion, so the scheduler loop's anchor is never visited again)
            self.adc_task = self.posts["adc"][0] if "adc" in self.posts and \
                "timer" not in self.posts else None
            for t in range(self.ntasks):
                out.append("void %s$t%d$runTask(void);" % (self.m, t))
            out.append("")
        for i, h in enumerate(p.handlers):
            out += self.handler_def(h, i)
            out.append("")
        if p.scheduler:
            out += self.tasks_text()
        else:
            out += self.main_loop_text()
        # helpers the statements asked for, defined before every use
        pre = []
        for b in sorted(self.bumps):
            pre += ["__attribute__((noinline)) void %s(%s *p, uint8_t x) {" % (
                        self.g("bump%d" % b), TYPES[b]),
                    "  *p = (%s)(*p * %du + x);" % (TYPES[b], self.r.randint(2, 9)), "}"]
        if self.mk:
            pre += ["__attribute__((noinline)) %s_t %s(uint8_t x) {" % (self.g("rec"),
                                                                       self.g("mk")),
                    "  %s_t r;" % self.g("rec"),
                    "  r.tag = (uint8_t)(x ^ %du);" % self.r.randint(0, 255),
                    "  r.val = (uint16_t)(x * %du);" % self.r.randint(1, 999),
                    "  r.acc = (uint32_t)x << %d;" % self.r.randint(0, 24),
                    "  return r;", "}"]
        if self.recursion:
            pre += ["__attribute__((noinline)) uint16_t %s(uint8_t n) {" % self.g("sumTo"),
                    "  if (n == 0)", "    return %s[0];" % self.g("buf"),
                    "  return (uint16_t)(%s[n %% %du] + %s((uint8_t)(n - 1u)));" % (
                        self.g("buf"), self.arr_len, self.g("sumTo")), "}"]
        text = "\n".join(out) + "\n"
        return text.replace("/*@HELPERS@*/", "\n".join(pre))

    def task_body(self, t):
        r = self.r
        body = []
        pieces = r.randint(2, 4)
        checked = False
        for _ in range(pieces):
            c = r.random()
            if c < 0.35:
                body += self.stmts("task", r.randint(1, 2), 1)
            elif c < 0.7:
                body += self.atomic_block(1)
            elif c < 0.85:
                body += self.check_block(1, r.sample(self.inv_names, r.randint(1, 2)),
                                         r.random() < 0.7)
                checked = True
            elif t + 1 < self.ntasks:
                # only later tasks: a task that posts itself (or a cycle of posts) keeps
                # runNextTask busy forever, the scheduler loop's anchor is never visited
                # again and the trace keeps no checkpoint
                body.append("  SchedulerBasicP$TaskBasic$postTask(%d);" %
                            r.randint(t + 1, self.ntasks - 1))
        if t == self.adc_task:
            body.insert(0, "  hal_adc_start(); /* the next conversion */")
        if t == 0 and not checked:
            body += self.check_block(1, self.inv_names, r.random() < 0.8)
        return body

    def tasks_text(self):
        r, p = self.r, self.p
        out = []
        for t in range(self.ntasks):
            out.append("void %s$t%d$runTask(void) {" % (self.m, t))
            out += self.task_body(t)
            out.append("}")
            out.append("")
        out.append("void SchedulerBasicP$TaskBasic$runTask(uint8_t id) {")
        out.append("  switch (id) {")
        for t in range(self.ntasks):
            out.append("  case %d:" % t)
            out.append("    %s$t%d$runTask();" % (self.m, t))
            out.append("    break;")
        out += ["  default:", "    break;", "  }", "}", ""]
        out.append("void RealMainP$SoftwareInit$init(void) {")
        out.append("  hal_leds_set(0);")
        if "uart" in p.handlers:
            out.append("  hal_uart_init();")
        out += self.stmts("atomic", r.randint(0, 2), 1)
        out.append("}")
        out.append("")
        out.append("void RealMainP$Boot$booted(void) {")
        out += self.start_lines(1)
        out.append("}")
        return out

    def start_lines(self, ind):
        sp = "  " * ind
        out = []
        for h in self.p.handlers:
            out.append(sp + {"timer": "hal_timer_start();", "int0": "hal_ext_start();",
                             "uart": "hal_uart_rx_start();", "adc": "hal_adc_start();"}[h])
        return out

    def main_loop_text(self):
        r, p = self.r, self.p
        out = ["int main(void) {", "  hal_init();"]
        if "uart" in p.handlers:
            out.append("  hal_uart_init();")
        out += self.stmts("atomic", r.randint(0, 2), 1)
        out += self.start_lines(1)
        out.append("  __nesc_enable_interrupt();")
        out.append("  for (;;) {")
        out.append("    uint8_t f;")
        out.append("    {")
        out.append("      __nesc_atomic_t a = __nesc_atomic_start();")
        out.append("      f = %s;" % self.g("flags"))
        out.append("      %s = 0;" % self.g("flags"))
        out.append("      __nesc_atomic_end(a);")
        out.append("    }")
        for i, h in enumerate(p.handlers):
            out.append("    if (f & %du) {" % (1 << i))
            if h == "adc":
                out.append("      hal_adc_start(); /* the next conversion */")
            for _ in range(r.randint(1, 2)):
                if r.random() < 0.5:
                    out += self.stmts("loop", 1, 3)
                else:
                    out += self.atomic_block(3)
            out.append("    }")
        out += self.stmts("loop", r.randint(0, 2), 2)
        out += self.check_block(2, r.sample(self.inv_names, 2), r.random() < 0.7)
        if r.random() < 0.5:
            out += self.atomic_block(2)
        sleep = r.random() < 0.6
        if sleep:
            out.append("    {")
            out.append("      __nesc_atomic_t a = __nesc_atomic_start();")
            out.append("      if (%s == 0)" % self.g("flags"))
            out.append("        hal_sleep();")
            out.append("      __nesc_atomic_end(a);")
            out.append("    }")
        out.append("  }")
        out.append("}")
        return out


# Constructs --without can turn off (each found a replay bug; see progfuzz-cases/README.md).
FEATURES = ["localbuf", "cursor", "O0", "indirect", "structret"]


def generate(seed, without=(), mcu=None):
    return Gen(seed, without, mcu).generate()


# ---------------------------------------------------------------------------------------------
# The campaign
# ---------------------------------------------------------------------------------------------
class ProgBuild:
    """One wsn-cc build of a program (duck-types fidelity.Build for replay_and_judge)."""

    def __init__(self, pdir, ring, name=None):
        self.ring = ring  # None: default ring; else (buf, seg)
        self.prefix = os.path.join(pdir, name or ("wrap" if ring else "default"), "app")
        self.elf, self.bc, self.wmap = (self.prefix + ".elf", self.prefix + ".replay.bc",
                                        self.prefix + ".wmap")
        self.error, self.command, self.toolchain = None, "", False


class Outcome:
    def __init__(self, program, run, mode):
        self.program, self.run, self.mode = program, run, mode
        self.kind = "fail"  # pass | fail | build | no-checkpoint | not-wrapped | sim
        self.message, self.k, self.commands = "", None, []
        self.redrawn = 0  # wrap-check: later checks drawn after the first
        self.ring_moves = []  # wrap modes: "RING/SEG: why" of each move of the small ring


class Campaign:
    def __init__(self, args):
        self.args = args
        self.bin = fidelity.find_bin(args.bin)
        # fidelity's harness: its replay_and_judge is the verdict (args it reads: timeout,
        # live_every)
        hargs = argparse.Namespace(bin=self.bin, timeout=args.timeout,
                                   live_every=args.live_every, max_cycles=args.max_cycles)
        self.h = fidelity.Harness(hargs)
        self.cc = os.path.join(self.bin, "wsn-cc")
        self.ring_builds, self.ring_lock = {}, threading.Lock()

    def build(self, prog, pdir, ring_list, name=None):
        """Builds with the first geometry of ring_list wsn-cc accepts (None: default ring),
        in pdir/NAME (default: "default" or "wrap")."""
        srcs = [os.path.join(pdir, n) for n in prog.files]
        if prog.scheduler:
            srcs.append(os.path.join(ROOT, "examples", "common", "scheduler.c"))
        b = None
        for ring in ring_list:
            b = ProgBuild(pdir, ring, name)
            os.makedirs(os.path.dirname(b.prefix), exist_ok=True)
            cmd = [self.cc, "--target=" + fidelity.PROFILE.target, "--mcu=" + fidelity.MCU,
                   prog.opt, "-I", os.path.join(ROOT, "examples", "common"), "-o", b.prefix]
            if fidelity.PROFILE.target == "msp430":
                cmd += ["-DHAL_TIMER_PERIOD=%d" % (4000 * slow())]
            if ring:
                cmd += ["--trace-buf=%d" % ring[0], "--trace-seg=%d" % ring[1]]
            cmd += srcs
            b.command = fidelity.shell_line(cmd)
            rc, out, err = fidelity.run(cmd, 600)
            if rc == 0:
                return b
            msg = "\n".join(l for l in (err or out).splitlines() if "error" in l.lower())
            b.error = "wsn-cc exit %s: %s" % (rc, (msg or fidelity.first_line(err))[:400])
            # Does the toolchain refuse the program itself? Then it is no product bug.
            plain = [c for c in cmd if not c.startswith("--trace-")]
            plain[1:1] = ["--no-trace"]
            plain[plain.index("-o") + 1] = b.prefix + "-notrace"
            if fidelity.run(plain, 600)[0] != 0:
                b.toolchain = True
                b.error += " (the --no-trace build fails too: the toolchain refuses the program)"
            if not ring or not ("checkpoint" in b.error or "effect record" in b.error or
                                "larger than" in b.error):
                return b
        return b

    def ring_build(self, prog, pseed, pdir, ring):
        """The build of prog with another small ring (made once per program, in
        pdir/wrap-RINGxSEG)."""
        with self.ring_lock:
            key = (pseed, ring)
            if key not in self.ring_builds:
                self.ring_builds[key] = self.build(prog, pdir, [ring],
                                                   name="wrap-%dx%d" % ring)
            return self.ring_builds[key]

    def sim(self, b, prog, pseed, rseed, outdir, stop_after=None):
        shutil.rmtree(outdir, ignore_errors=True)
        return fidelity.simulate(
            self.h.sim, b.elf, rseed, outdir, self.args.max_cycles,
            prog.stimulus(fidelity.rng_for("progfuzz", pseed, rseed, "stimulus")), stop_after,
            self.args.timeout)

    def stack_overflow(self, b, rundir):
        """A message when the mote's stack pointer at the stop (SPL/SPH, data 0x5D/0x5E of the
        snapshot) lies below the end of the firmware's data (_end): the stack ran through the
        globals and the trace ring (deeply nested handlers), so the run is no valid recording.
        Only the stop is seen: an overflow that unwound before it goes unnoticed. (AVR only: the
        MSP430's SP is a CPU register, not in the snapshot.)"""
        if fidelity.PROFILE.target != "avr":
            return None
        if not hasattr(b, "data_end"):
            b.data_end = None
            rc, out, err = fidelity.run([fidelity.LLVM_NM, b.elf], 60)
            for line in (out or "").splitlines():
                f = line.split()
                if len(f) == 3 and f[2] == "_end":
                    b.data_end = int(f[0], 16) - 0x800000
        try:
            with open(os.path.join(rundir, "sram.bin"), "rb") as f:
                img = f.read(0x60)
        except OSError:
            return None
        if b.data_end is None or len(img) < 0x5F:
            return None
        sp = img[0x5D] | img[0x5E] << 8
        if sp < b.data_end:
            return "the mote's stack overflowed into its globals and the trace ring (SP=0x%X " \
                "at the stop, data end 0x%X): no valid recording" % (sp, b.data_end)
        return None

    def judge(self, o, b, rundir, info, stop_after=None, violating=False):
        overflow = self.stack_overflow(b, rundir)
        if overflow:
            o.kind, o.message = "sim", overflow
            return o
        res = fidelity.Result("prog-%d" % o.program, o.mode, o.run)
        self.h.replay_and_judge(res, b, rundir, info, stop_after=stop_after,
                                violating=violating)
        o.commands += res.commands
        o.kind = "pass" if res.ok else "fail"
        o.message = res.message if not res.ok else ""
        if not res.ok:
            o.message = "exit %s: %s" % (res.rc, res.message)
        return o

    def ring_runs(self, prog, pseed, pdir, b, rseed, wrap):
        vmode, cmode = ("wrap-violation", "wrap-check") if wrap else ("violation", "check")
        base = os.path.join(pdir, "run-%d%s" % (rseed, "-wrap" if wrap else ""))
        outs = []
        if b.error:
            o = Outcome(pseed, rseed, cmode)
            o.kind = "toolchain" if b.toolchain else "build"
            o.message, o.commands = b.error, [b.command]
            return [o]
        ring_moves, tried = [], [b.ring]
        while True:
            pcmd, rc, info, err = self.sim(b, prog, pseed, rseed, os.path.join(base, "probe"))
            if not (wrap and rc == 0 and info.get("stop") == "violation"):
                break
            # The small ring of a violating run must have wrapped and kept a checkpoint, as
            # fidelity.py's wrap-violation asks: otherwise the run is made again on the ring
            # fidelity.next_ring gives, at most WRAP_RING_MOVES times.
            ring, seg = b.ring
            ptrace = os.path.join(base, "probe", "trace.wtr")
            hdr = fidelity.trace_header(ptrace)
            if hdr is None or not hdr[0] & 1:
                why, nxt = "did not wrap before the violation", fidelity.next_ring(b.ring, False)
            elif not self.h.has_checkpoint(ptrace):
                why, nxt = "kept no checkpoint", fidelity.next_ring(b.ring, True)
            else:
                break
            if nxt[1] < 16 or nxt in tried or len(ring_moves) >= WRAP_RING_MOVES:
                break
            nb = self.ring_build(prog, pseed, pdir, nxt)
            if nb.error:
                break
            ring_moves.append("%d/%d: %s" % (ring, seg, why))
            tried.append(nxt)
            b = nb

        def sim_fail(mode, msg, cmd):
            o = Outcome(pseed, rseed, mode)
            o.kind, o.message = "sim", msg
            o.commands = [b.command, fidelity.shell_line(cmd)]
            return o

        if rc != 0:
            return [sim_fail(cmode, "wsn-sim exit %s: %s" % (rc, fidelity.first_line(err)),
                             pcmd)]
        if info.get("stop") not in ("bound", "violation"):
            fault = info.get("fault")
            return [sim_fail(cmode, "wsn-sim stop=%s after %s cycles%s" % (
                info.get("stop"), info.get("cycles"),
                ": " + fault.split(": a handler that")[0] if fault else ""), pcmd)]
        checks = int(info.get("checks") or 0)
        if info.get("stop") == "violation":
            o = Outcome(pseed, rseed, vmode)
            o.ring_moves = list(ring_moves)
            o.commands = [b.command, fidelity.shell_line(pcmd)]
            hdr = fidelity.trace_header(os.path.join(base, "probe", "trace.wtr"))
            if wrap and (hdr is None or not hdr[0] & 1):
                o.kind, o.message = "not-wrapped", "violation before the ring wrapped"
            elif not self.h.has_checkpoint(os.path.join(base, "probe", "trace.wtr")):
                o.kind, o.message = "no-checkpoint", "the ring kept no checkpoint"
            else:
                self.judge(o, b, os.path.join(base, "probe"), info)
            outs.append(o)
        if checks < 1:
            outs.append(sim_fail(cmode, "the run made no check in %d cycles" %
                                 self.args.max_cycles, pcmd))
            return outs
        while True:
            rng = fidelity.rng_for("progfuzz", pseed, rseed, cmode)
            k = rng.randint(1, checks)
            o = Outcome(pseed, rseed, cmode)
            o.ring_moves = list(ring_moves)
            cdir = os.path.join(base, "check")
            for draw in range(WRAP_CHECK_DRAWS if wrap else 1):
                if draw:
                    # wrap-check: the small ring had not wrapped at check K, or kept no
                    # checkpoint there: a later check is drawn (the checks after the first wrap
                    # are the ones this mode is for), at most WRAP_CHECK_DRAWS - 1 times.
                    if k >= checks:
                        break
                    k = rng.randint(k + 1, checks)
                    o.redrawn = draw
                o.k = k
                shutil.rmtree(cdir, ignore_errors=True)
                ccmd, rc, cinfo, err = self.sim(b, prog, pseed, rseed, cdir, stop_after=k)
                o.commands = [b.command, fidelity.shell_line(ccmd)]
                if rc != 0 or cinfo.get("stop") != "checks" or cinfo.get("checks") != k:
                    outs.append(sim_fail(
                        cmode, "wsn-sim --stop-after-checks %d: exit %s, stop=%s checks=%s %s" % (
                            k, rc, (cinfo or {}).get("stop"), (cinfo or {}).get("checks"),
                            fidelity.first_line(err)), ccmd))
                    outs[-1].k = k
                    return outs
                trace = os.path.join(cdir, "trace.wtr")
                hdr = fidelity.trace_header(trace)
                wrapped = hdr is not None and hdr[0] & 1
                ckpt = self.h.has_checkpoint(trace)
                if (not wrap or wrapped) and ckpt:
                    break
            # wrap-check: a ring that kept no checkpoint at any check drawn (a burst of
            # records between two scheduler-loop visits overran it) grows by one segment, and
            # the run is probed again on it, within the same WRAP_RING_MOVES as above.
            if not (wrap and wrapped and not ckpt) or len(ring_moves) >= WRAP_RING_MOVES:
                break
            ring, seg = b.ring
            nxt = fidelity.next_ring(b.ring, True)
            if nxt in tried:
                break
            nb = self.ring_build(prog, pseed, pdir, nxt)
            if nb.error:
                break
            pcmd2, rc2, info2, err2 = self.sim(nb, prog, pseed, rseed,
                                               os.path.join(base, "probe-check"))
            checks2 = int((info2 or {}).get("checks") or 0)
            if rc2 != 0 or info2.get("stop") not in ("bound", "violation") or checks2 < 1:
                break
            ring_moves.append("%d/%d: kept no checkpoint at any check drawn" % (ring, seg))
            tried.append(nxt)
            b, info, checks = nb, info2, checks2
        if wrap and not wrapped:
            o.kind, o.message = "not-wrapped", "the small ring had not wrapped at check %d" % k
        elif not ckpt:
            o.kind, o.message = "no-checkpoint", "the ring kept no checkpoint at check %d" % k
        else:
            self.judge(o, b, cdir, cinfo, stop_after=k, violating=(k == checks and
                                                                   info.get("stop") ==
                                                                   "violation"))
        outs.append(o)
        if not wrap and rseed == 1 and o.kind == "pass" and self.args.negative:
            outs.append(self.negative(prog, pseed, b, cdir, k))
        return outs

    def negative(self, prog, pseed, b, cdir, k):
        """The control that shows the oracle can fail on generated programs (as fidelity.py's
        negative mode): the passing check replay is repeated against a copy of the snapshot in
        which one byte of the accounting total (read by every check) is flipped; wsn-replay
        must exit 1 with a status other than "reproduced" and at least one differing global."""
        o = Outcome(pseed, 1, "negative")
        o.k = k
        rc, out, err = fidelity.run([fidelity.LLVM_NM, b.elf], 60)
        name = "%s$total" % Gen(pseed, self.args.without).m
        addr = None
        for line in (out or "").splitlines():
            f = line.split()
            if len(f) == 3 and f[2] == name:
                addr = int(f[0], 16) - fidelity.PROFILE.data_offset
        if addr is None:
            o.kind, o.message = "sim", "no symbol %s in %s" % (name, b.elf)
            return o
        with open(os.path.join(cdir, "sram.bin"), "rb") as f:
            img = bytearray(f.read())
        img[addr] ^= 0x5A
        bad = os.path.join(cdir, "sram-corrupt.bin")
        with open(bad, "wb") as f:
            f.write(img)
        cmd = [self.h.replay, b.bc, "--stop-after-checks", str(k), "--trace",
               os.path.join(cdir, "trace.wtr"), "--elf", b.elf, "--map", b.wmap,
               "--expect-sram", bad, "--json"]
        o.commands = [fidelity.shell_line(cmd)]
        rc, out, err = fidelity.run(cmd, self.args.timeout)
        try:
            doc = json.loads(out)
            doc = doc if isinstance(doc, dict) else {}
        except ValueError:
            doc = {}
        cmp_ = doc.get("compare") if isinstance(doc.get("compare"), dict) else {}
        if rc == 1 and doc.get("status") not in (None, "reproduced") and \
                isinstance(cmp_.get("differ"), int) and cmp_["differ"] >= 1:
            o.kind = "pass"
        else:
            o.kind = "fail"
            o.message = "flipped a byte of %s in the snapshot, expected exit 1, a status other " \
                "than reproduced and differ >= 1; got exit %s, status %r, differ %r" % (
                    name, rc, doc.get("status"), cmp_.get("differ"))
        return o

    def program_job(self, pseed):
        prog = generate(pseed, self.args.without)
        pdir = os.path.join(self.args.work_dir, "prog-%d" % pseed)
        shutil.rmtree(pdir, ignore_errors=True)
        os.makedirs(pdir)
        for name, text in prog.files.items():
            with open(os.path.join(pdir, name), "w") as f:
                f.write(text)
        outs = []
        rings = [r for r in self.args.rings]
        builds = {}
        if "default" in rings:
            builds[False] = self.build(prog, pdir, [None])
        if "wrap" in rings:
            builds[True] = self.build(prog, pdir, WRAP_RINGS)
        for wrap, b in builds.items():
            if b.error:
                outs += self.ring_runs(prog, pseed, pdir, b, 0, wrap)
                continue
            for rseed in range(1, self.args.runs + 1):
                outs += self.ring_runs(prog, pseed, pdir, b, rseed, wrap)
        if not self.args.keep and all(o.kind not in ("fail", "build", "toolchain", "sim")
                                      for o in outs):
            shutil.rmtree(pdir, ignore_errors=True)
        return outs


def print_report(outs, args, out=sys.stdout):
    kinds = ["pass", "fail", "build", "toolchain", "no-checkpoint", "not-wrapped", "sim"]
    hdr = "%-15s %8s %6s %7s %7s %7s %7s %7s %7s %5s" % (
        "mode", "programs", "runs", "passed", "failed", "build", "llvm", "no-ckpt", "unwrap",
        "sim")
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    tot = {k: 0 for k in kinds}
    tot_runs = 0
    all_progs = set()
    for m in MODES:
        rs = [o for o in outs if o.mode == m]
        c = {k: sum(1 for o in rs if o.kind == k) for k in kinds}
        progs = set(o.program for o in rs)
        all_progs |= progs
        tot_runs += len(rs)
        for k in kinds:
            tot[k] += c[k]
        print("%-15s %8d %6d %7d %7d %7d %7d %7d %7d %5d" % (
            m, len(progs), len(rs), c["pass"], c["fail"], c["build"], c["toolchain"],
            c["no-checkpoint"], c["not-wrapped"], c["sim"]), file=out)
    print("-" * len(hdr), file=out)
    print("%-15s %8d %6d %7d %7d %7d %7d %7d %7d %5d" % (
        "all", len(all_progs), tot_runs, tot["pass"], tot["fail"], tot["build"],
        tot["toolchain"], tot["no-checkpoint"], tot["not-wrapped"], tot["sim"]), file=out)
    moved = [o for o in outs if o.ring_moves]
    if moved:
        print("\nwrap modes: %d run(s) on a moved small ring (it did not wrap before a "
              "violation, or kept no checkpoint); %d of them then replayed" % (
                  len(moved), sum(1 for o in moved if o.kind == "pass")), file=out)
    redrawn = [o for o in outs if o.redrawn]
    if redrawn:
        print("\nwrap-check: %d run(s) drew a later check (the small ring had not wrapped at "
              "the one drawn, or kept no checkpoint there); %d of them then replayed" % (
                  len(redrawn), sum(1 for o in redrawn if o.kind == "pass")), file=out)
    bad = [o for o in outs if o.kind in ("fail", "build", "toolchain", "sim") or
           (o.kind == "no-checkpoint" and not o.mode.startswith("wrap"))]
    for o in sorted(bad, key=lambda o: (o.kind, o.program, o.run, o.mode)):
        print("\n%s: program %d run %d mode %s%s" % (
            {"fail": "REPLAY FAILURE", "build": "build failed", "sim": "simulator",
             "toolchain": "toolchain refuses the program",
             "no-checkpoint": "no checkpoint (default ring)"}[o.kind],
            o.program, o.run, o.mode, " K=%d" % o.k if o.k else ""), file=out)
        print("  " + o.message[:600], file=out)
        if o.ring_moves:
            print("  small ring moved: " + ", ".join(o.ring_moves), file=out)
        print("  program: %s" % os.path.join(args.work_dir, "prog-%d" % o.program), file=out)
        for c in o.commands:
            print("    " + c, file=out)
    return sum(1 for o in outs if o.kind == "fail")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", type=int, default=20, help="number of program seeds")
    ap.add_argument("--start", type=int, default=1, help="first program seed")
    ap.add_argument("--seeds", metavar="P,P,...",
                    help="these program seeds (instead of --start and --programs)")
    ap.add_argument("--runs", type=int, default=3, help="run seeds per program and ring")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="parallel programs (at most 2)")
    ap.add_argument("--bin", help="directory of wsn-cc, wsn-sim, wsn-replay, wsn-trace-dump")
    ap.add_argument("--mcu", default="atmega128", choices=sorted(fidelity.MCUS),
                    help="the part programs are built for and simulated on (default atmega128)")
    ap.add_argument("--work", help="work directory (default: a temporary one)")
    ap.add_argument("--rings", default="default,wrap", help="default,wrap or one of them")
    ap.add_argument("--max-cycles", type=int,
                    help="cycles of the probe run that counts the checks (default %d, times "
                         "%d on MSP430)" % (MAX_CYCLES, SLOW["msp430"]))
    ap.add_argument("--timeout", type=float, default=120, help="seconds per tool run")
    ap.add_argument("--live-every", type=int, default=0,
                    help="replay every N-th run seed again with --live-events (fidelity.py)")
    ap.add_argument("--negative", action="store_true",
                    help="also replay each program's first check run against a snapshot with a "
                         "flipped byte of the accounting total: the replay must fail")
    ap.add_argument("--keep", action="store_true", help="keep passing programs' runs too")
    ap.add_argument("--check", action="store_true", help="exit 1 when a replay fails")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ap.add_argument("--without", default="", metavar="FEATURE,...",
                    help="do not generate these constructs (known replay bugs), of: " +
                    ",".join(FEATURES) + "; the same seed then gives another program")
    ap.add_argument("--emit", type=int, metavar="P",
                    help="print the program of seed P and exit")
    ap.add_argument("--msp430-uart", action="store_true",
                    help="MSP430 programs may have a UART receive handler (another program "
                         "set: the same seed may give another program)")
    args = ap.parse_args()
    global MSP430_UART
    MSP430_UART = args.msp430_uart
    args.without = [x.strip() for x in args.without.split(",") if x.strip()]
    fidelity.set_mcu(args.mcu)
    if args.max_cycles is None:
        args.max_cycles = MAX_CYCLES * slow()
    for w in args.without:
        if w not in FEATURES:
            ap.error("--without: unknown feature %r (known: %s)" % (w, ", ".join(FEATURES)))
    if args.emit is not None:
        prog = generate(args.emit, args.without)
        for name, text in prog.files.items():
            print("// ==== %s ====" % name)
            print(text)
        print("// stimulus of run 1: %s" % " ".join(
            prog.stimulus(fidelity.rng_for("progfuzz", args.emit, 1, "stimulus"))))
        return 0
    if args.programs < 1 or args.runs < 1 or not 1 <= args.jobs <= 2:
        ap.error("--programs and --runs must be at least 1, -j 1 or 2")
    args.rings = [x.strip() for x in args.rings.split(",") if x.strip()]
    if not args.rings or any(x not in ("default", "wrap") for x in args.rings):
        ap.error("--rings: default, wrap or both")
    c = Campaign(args)
    fidelity.require_tools(ap, c.bin)
    temp = fidelity.make_work_dir(args, "wsn-progfuzz-")
    t0 = time.perf_counter()
    seeds = list(range(args.start, args.start + args.programs))
    if args.seeds:
        try:
            seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
        except ValueError:
            ap.error("--seeds: expected comma-separated integers, got %r" % args.seeds)
    outs, lock, done = [], threading.Lock(), [0]

    def work(p):
        try:
            rs = c.program_job(p)
        except Exception as e:  # a runner bug must not hide the other programs
            o = Outcome(p, 0, "check")
            o.kind, o.message = "sim", "harness: %s: %s" % (type(e).__name__, e)
            rs = [o]
        with lock:
            outs.extend(rs)
            done[0] += 1
            if not args.quiet:
                print("progfuzz: %d/%d programs, %d failing replays, %.0fs" % (
                    done[0], len(seeds), sum(1 for o in outs if o.kind == "fail"),
                    time.perf_counter() - t0), file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, seeds))
    print("progfuzz: programs %s, %d run seeds, rings %s%s, %s, tools %s, %.1fs" % (
        args.seeds if args.seeds else "%d..%d" % (seeds[0], seeds[-1]), args.runs,
        ",".join(args.rings), ", without " + ",".join(args.without) if args.without else "",
        fidelity.MCU, c.bin, time.perf_counter() - t0))
    failed = print_report(outs, args)
    kept = any(o.kind in ("fail", "build", "toolchain", "sim") for o in outs)
    if temp and not args.keep and not kept:
        shutil.rmtree(args.work_dir, ignore_errors=True)
    elif kept:
        print("\nfailing programs and their runs are kept in %s" % args.work_dir)
    return 1 if (args.check and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
