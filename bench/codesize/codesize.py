#!/usr/bin/env python3
"""codesize.py - code size of the examples under the instrumentation schemes (thesis Table 4.2).

For each example and MCU, flash (text+data) and RAM (data+bss) from llvm-size, for
  original      wsn-cc --no-trace
  all           --instrument=all: every function the PFDG reaches is instrumented
                (the instrument-everything baseline, S_baseline)
  no-inline     dependence-selected at level 1, without inlining (S_no-inlining)
  inline        dependence-selected at level 1, with selective inlining (S_inline, Eq. 4.1)
  wp-original   --no-trace --whole-program (app optimised as one module)
  wp-inline     inline + --whole-program (app + trace runtime optimised as one module)
Ratios are flash against the original built the same way (wp-inline against wp-original).
Then, per example and MCU, where the bytes of the inline image go: the trace runtime's own
functions and data (symbols defined by the runtime objects), the flash of the runtime's
integrity code (`check`, part of the runtime's flash: closing a record folds it into its
segment's check value, spec/trace-format.md 1.2), the record tables the lowering adds to the
program (__wsn_tbl*: effects, checks, checkpoints; on MSP430, where they keep no symbol, the
growth of .rodata less the module hash), and the rest of the growth of the
program's code (entry/exit, region, input, skip calls), the trace object (__wsn_trace: header,
ring and check values) and the rest of the runtime's RAM; and whether the
targets of issue 17 hold: level-1 selected + inlined flash at most 1.25x the original, RAM
added (traced minus original) at most 1.3 KiB (1331 bytes) including the ring, and the
selected build smaller than --instrument=all.

  codesize.py [--build BUILD_DIR | --wsn-cc WSN_CC] [--out WORK_DIR] [--examples blink,...] [--mcus m,...]
              [--apps DIR [--apps-mcu MCU]] [--schemes original,all,...]

--schemes builds only the schemes named (default: all six; the bases of the ratios, `original`
and for wp-inline `wp-original`, are always built).

--apps DIR adds applications beside the examples, in bench/tinyos/run.py's layout: every
subdirectory of DIR with an app.c (e.g. the nesC compiler's build/micaz/app.c) is built for
--apps-mcu (default atmega128) from app.c alone, plus invariants.c with --check-at=writes when
the directory has one. --examples '' leaves the examples out.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLVM = "/usr/lib/llvm-19/bin"
EXAMPLES = ["blink", "sense-send", "uart-cmd"]
TARGETS = [("avr", "atmega128"), ("msp430", "msp430f1611"), ("msp430", "msp430f2617")]
SCHEMES = [("original", ["--no-trace"]),
           ("all", ["--instrument=all"]),
           ("no-inline", ["--no-inline"]),
           ("inline", []),
           ("wp-original", ["--no-trace", "--whole-program"]),
           ("wp-inline", ["--whole-program"])]
BASE = {"all": "original", "no-inline": "original", "inline": "original",
        "wp-inline": "wp-original"}
FLASH_TARGET = 1.25
RAM_TARGET = 1331


def llvm_size(elf):
    out = subprocess.run([os.path.join(LLVM, "llvm-size"), elf], capture_output=True,
                         text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return text + data, data + bss


def symbols(path, defined_only=False):
    """name -> (type letter, size) from llvm-nm -S."""
    cmd = [os.path.join(LLVM, "llvm-nm"), "-S"] + (["--defined-only"] if defined_only else [])
    out = subprocess.run(cmd + [path], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (f[2], int(f[1], 16))
        elif len(f) == 3 and defined_only:
            syms[f[2]] = (f[1], 0)
    return syms


def runtime_objects(verbose_out):
    """The trace runtime objects on wsn-cc's link line (printed with -v)."""
    for line in verbose_out.splitlines():
        if "wsn-rt-cache/rt-" in line and not line.startswith(os.path.join(LLVM, "clang ")):
            return [w for w in line.split() if re.search(r"wsn-rt-cache/rt-[^/]+/[^/]+\.o$", w)]
    return []


def analysis_line(verbose_out):
    """(functions, tasks, handlers, selected, segment, ring, largest record) from wsn-cc -v."""
    a = re.search(r"analysis: (\d+) functions, (\d+) tasks, (\d+) interrupt handlers; "
                  r"(\d+) selected", verbose_out)
    g = re.search(r"trace geometry: segment (\d+) bytes \(([^)]*)\), ring (\d+) bytes",
                  verbose_out)
    return ((a.group(1), a.group(2), a.group(3), a.group(4)) if a else ("?",) * 4) + \
        ((g.group(1), g.group(3), g.group(2)) if g else ("?", "?", "?"))


def is_check_code(name):
    """The runtime's integrity code: closing a record folds it into its segment's check value
    (spec/trace-format.md section 1.2)."""
    return name == "__wsn_rt_close" or name == "fold" or name.startswith("fold.")


def section_size(elf, name):
    """Size of one section of the ELF (llvm-size -A), 0 when it has none."""
    out = subprocess.run([os.path.join(LLVM, "llvm-size"), "-A", elf], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == name:
            return int(f[1])
    return 0


def breakdown(elf, rt_objs):
    """Bytes of the image that belong to the runtime: (flash, ram, trace object bytes, flash
    of the check-value code (part of the runtime's flash), and the record tables the lowering
    put in the program (__wsn_tbl*, flash))."""
    rt_names = set()
    for o in rt_objs:
        rt_names.update(n for n, (t, _) in symbols(o, True).items() if t not in "Uw")
    flash = ram = 0
    trace = check = 0
    tables = 0
    handlers = 0
    for name, (t, size) in symbols(elf).items():
        if name.startswith("__wsn_tbl"):
            tables += size
        if name == "__wsn_effect_handlers":
            # The program's handler table of the short effects (the runtime has a weak
            # empty one): a table, not runtime.
            handlers = size
            continue
        if name not in rt_names:
            continue
        if name == "__wsn_trace":
            trace = size
        if is_check_code(name) and t in "Tt":
            check += size
        if t in "TtRr":
            flash += size
        elif t in "Dd":
            flash += size
            ram += size
        elif t in "Bb":
            ram += size
    # AVR: the handler table keeps its symbol beside the private __wsn_tbl* ones; on MSP430
    # (no table symbols) it is part of .rodata's growth, which main() takes instead. When the
    # lowering shares it with a __wsn_tbl* table (the same bytes at the same address: an
    # alias), it is counted once.
    if handlers and handler_is_alias(elf):
        handlers = 0
    return flash, ram, trace, check, tables + handlers if tables else 0


def handler_is_alias(elf):
    """Whether __wsn_effect_handlers starts where a __wsn_tbl* table does (llvm-nm)."""
    out = subprocess.run([os.path.join(LLVM, "llvm-nm"), "-S", elf], capture_output=True,
                         text=True, check=True).stdout
    tbl, handler = set(), None
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3].startswith("__wsn_tbl"):
            tbl.add(int(f[0], 16))
        elif len(f) == 4 and f[3] == "__wsn_effect_handlers":
            handler = int(f[0], 16)
    return handler is not None and handler in tbl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--wsn-cc", help="the wsn-cc to use (a path or a name on PATH); "
                    "default BUILD_DIR/bin/wsn-cc")
    ap.add_argument("--out")
    ap.add_argument("--examples", default=",".join(EXAMPLES))
    ap.add_argument("--mcus", default=",".join(m for _, m in TARGETS))
    ap.add_argument("--apps", help="directory of application directories (app.c, optional "
                    "invariants.c), built for --apps-mcu beside the examples")
    ap.add_argument("--apps-mcu", default="atmega128")
    ap.add_argument("--schemes", default=",".join(n for n, _ in SCHEMES),
                    help="comma-separated subset of the schemes to build")
    a = ap.parse_args()
    known_schemes = [n for n, _ in SCHEMES]
    wanted = [x for x in a.schemes.split(",") if x]
    for x in wanted:
        if x not in known_schemes:
            sys.exit("codesize: unknown scheme '%s' (known: %s)" % (x, ", ".join(known_schemes)))
    # The ratios need the base of each scheme built too.
    schemes = [(n, o) for n, o in SCHEMES
               if n in wanted or n == "original" or (n == "wp-original" and "wp-inline" in wanted)]
    wsncc = shutil.which(a.wsn_cc) if a.wsn_cc else os.path.join(a.build, "bin", "wsn-cc")
    if not wsncc or not os.path.exists(wsncc):
        sys.exit("codesize: %s not found (build the wsn-cc target)" % (wsncc or a.wsn_cc))
    examples = [e for e in a.examples.split(",") if e]
    for e in examples:
        if e not in EXAMPLES:
            sys.exit("codesize: unknown example '%s' (known: %s)" % (e, ", ".join(EXAMPLES)))
    mcus = [m for m in a.mcus.split(",") if m]
    known = [m for _, m in TARGETS]
    for m in mcus:
        if m not in known:
            sys.exit("codesize: unknown MCU '%s' (known: %s)" % (m, ", ".join(known)))
    app_target = dict((m, t) for t, m in TARGETS).get(a.apps_mcu)
    if a.apps and not app_target:
        sys.exit("codesize: unknown --apps-mcu '%s' (known: %s)" % (a.apps_mcu, ", ".join(known)))
    if a.apps and not os.path.isdir(a.apps):
        sys.exit("codesize: --apps %s is not a directory" % a.apps)
    work = a.out or tempfile.mkdtemp(prefix="wsn-codesize-")
    os.makedirs(work, exist_ok=True)
    common = os.path.join(ROOT, "examples", "common")

    # (name, sources of the original, sources and extra wsn-cc options of the traced builds,
    #  [(target, mcu)]). An example calls its invariants itself, so both builds have them; an
    # app's invariants are checked at writes (--check-at=writes) in the traced builds only.
    units = []
    for ex in examples:
        srcs = sorted(os.path.join(ROOT, "examples", ex, f)
                      for f in os.listdir(os.path.join(ROOT, "examples", ex)) if f.endswith(".c"))
        srcs += [os.path.join(common, "scheduler.c"), os.path.join(common, "hal_host.c")]
        units.append((ex, srcs, srcs, [], [(t, m) for t, m in TARGETS if m in mcus]))
    for name in sorted(os.listdir(a.apps)) if a.apps else []:
        app = os.path.join(a.apps, name, "app.c")
        if not os.path.isfile(app):
            continue
        inv = os.path.join(a.apps, name, "invariants.c")
        has_inv = os.path.isfile(inv)
        units.append((name, [app], [app] + ([inv] if has_inv else []),
                      ["--check-at=writes"] if has_inv else [], [(app_target, a.apps_mcu)]))

    results = {}
    analysis = {}
    status = 0
    for ex, orig_srcs, traced_srcs, traced_opts, targets in units:
        for target, mcu in targets:
            for scheme, opts in schemes:
                out = os.path.join(work, "%s-%s-%s" % (ex, mcu, scheme))
                if "--no-trace" in opts:
                    use = orig_srcs
                else:
                    use, opts = traced_srcs, opts + traced_opts
                cmd = [wsncc, "--target=" + target, "--mcu=" + mcu, "-I", common,
                       "-o", out, "-v"] + opts + use
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.stderr.write("codesize: FAILED: %s\n%s" % (" ".join(cmd), r.stderr))
                    results[(ex, mcu, scheme)] = None
                    status = 1
                    continue
                flash, ram = llvm_size(out + ".elf")
                rt = runtime_objects(r.stdout) if scheme == "inline" else []
                results[(ex, mcu, scheme)] = (flash, ram, out + ".elf", rt)
                if scheme == "inline":
                    analysis[(ex, mcu)] = analysis_line(r.stdout)

    print("flash / RAM bytes (flash = text+data, RAM = data+bss, llvm-size); level 1; "
          "(x.xx) = flash / original flash")
    width = max([11] + [len(u[0]) for u in units])
    head = "%-*s %-12s" % (width, "example", "mcu") + "".join(" %-19s" % s for s, _ in schemes)
    print(head)
    print("-" * len(head))
    for ex, _, _, _, targets in units:
        for _, mcu in targets:
            cells = []
            for scheme, _ in schemes:
                v = results.get((ex, mcu, scheme))
                if v is None:
                    cells.append("FAILED")
                    continue
                cell = "%d / %d" % (v[0], v[1])
                base = results.get((ex, mcu, BASE.get(scheme, "")))
                if base:
                    cell += " (%.2f)" % (v[0] / base[0])
                cells.append(cell)
            print("%-*s %-12s" % (width, ex, mcu) + "".join(" %-19s" % c for c in cells))

    print()
    print("where the bytes of the 'inline' image go (runtime = symbols defined by the trace "
          "runtime objects)")
    head = "%-*s %-12s %8s %9s %6s %9s %9s %9s %9s  %s" % (
        width, "example", "mcu", "orig", "+runtime", "check", "+tables", "+program", "RAM ring",
        "RAM rest", "targets (flash <= %.2fx, RAM added <= %d, below all)" % (
            FLASH_TARGET, RAM_TARGET))
    print(head)
    print("-" * len(head))
    for ex, _, _, _, targets in units:
        for _, mcu in targets:
            orig = results.get((ex, mcu, "original"))
            inl = results.get((ex, mcu, "inline"))
            if not orig or not inl:
                continue
            rt_flash, rt_ram, trace, check, tables = breakdown(inl[2], inl[3])
            if not tables:
                # MSP430: the tables are private constants in .rodata and keep no symbol in
                # the image; they are what .rodata grew by, less the module hash.
                tables = max(0, section_size(inl[2], ".rodata") -
                             section_size(orig[2], ".rodata") -
                             symbols(inl[2]).get("__wsn_module_hash", ("", 0))[1])
            prog_growth = inl[0] - orig[0] - rt_flash - tables
            ratio = inl[0] / orig[0]
            ok_flash = ratio <= FLASH_TARGET
            ok_ram = inl[1] - orig[1] <= RAM_TARGET
            verdict = "flash %.2fx %s, RAM +%d %s" % (
                ratio, "ok" if ok_flash else "MISSED", inl[1] - orig[1],
                "ok" if ok_ram else "MISSED")
            every = results.get((ex, mcu, "all"))
            if every:
                verdict += ", below all %s" % ("ok" if inl[0] < every[0] else "MISSED")
            if not ok_flash:
                # What flash would be with a free runtime, i.e. the instrumentation's own share.
                verdict += "; without the runtime's code %.2fx" % ((inl[0] - rt_flash) / orig[0])
            print("%-*s %-12s %8d %9d %6d %9d %9d %9d %9d  %s" % (
                width, ex, mcu, orig[0], rt_flash, check, tables, prog_growth, trace, inl[1] - trace,
                verdict))
    print()
    print("what the analysis saw in the 'inline' build (wsn-cc -v) and the trace geometry "
          "wsn-cc chose")
    head = "%-*s %-12s %9s %6s %8s %9s %8s %6s  %s" % (
        width, "example", "mcu", "functions", "tasks", "handlers", "selected", "segment",
        "ring", "largest record")
    print(head)
    print("-" * len(head))
    for ex, _, _, _, targets in units:
        for _, mcu in targets:
            v = analysis.get((ex, mcu))
            if v:
                print("%-*s %-12s %9s %6s %8s %9s %8s %6s  %s" % ((width, ex, mcu) + v))
    print()
    print("work files in %s" % work)
    return status


if __name__ == "__main__":
    sys.exit(main())
