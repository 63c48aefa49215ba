#!/usr/bin/env python3
"""codesize.py - code size of the examples under the instrumentation schemes (thesis Table 4.2).

For each example and MCU: flash (text+data) and RAM (data+bss) from llvm-size, for
  original      wsn-cc --no-trace
  all           every function instrumented (no dependence information)   [S_baseline]
  no-inline     dependence-selected, without inlining                     [S_no-inlining]
  inline        dependence-selected, with selective inlining              [S_inline]
The instrumented columns read "n/a" while the wsn-trace pass is not in the plugin.

  codesize.py [--build BUILD_DIR] [--out WORK_DIR]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = ["blink", "sense-send"]
TARGETS = [("avr", "atmega128"), ("msp430", "msp430f1611"), ("msp430", "msp430f2617")]
# Scheme -> extra wsn-cc options. The options selecting "instrument everything" and
# "no inlining" are not defined yet (they come with the wsn-trace pass); None marks them.
SCHEMES = [("original", ["--no-trace"]), ("all", None), ("no-inline", None), ("inline", [])]


def llvm_size(elf):
    size = os.path.join("/usr/lib/llvm-19/bin", "llvm-size")
    out = subprocess.run([size, elf], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
    return text + data, data + bss


def trace_pass_available(wsncc, work):
    probe = os.path.join(work, "probe.c")
    with open(probe, "w") as f:
        f.write("int main(void) { return 0; }\n")
    r = subprocess.run([wsncc, "--target=host", "-o", os.path.join(work, "probe"), probe],
                       capture_output=True, text=True)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out")
    a = ap.parse_args()
    wsncc = os.path.join(a.build, "bin", "wsn-cc")
    if not os.path.exists(wsncc):
        sys.exit("codesize: %s not found (build the wsn-cc target)" % wsncc)
    work = a.out or tempfile.mkdtemp(prefix="wsn-codesize-")
    os.makedirs(work, exist_ok=True)
    traced = trace_pass_available(wsncc, work)
    common = os.path.join(ROOT, "examples", "common")

    head = "%-11s %-12s" % ("example", "mcu") + "".join(
        " %-22s" % s for s, _ in SCHEMES)
    print("flash / RAM bytes (flash = text+data, RAM = data+bss, llvm-size)")
    print(head)
    print("-" * len(head))
    status = 0
    for ex in EXAMPLES:
        srcs = sorted(os.path.join(ROOT, "examples", ex, f)
                      for f in os.listdir(os.path.join(ROOT, "examples", ex)) if f.endswith(".c"))
        srcs += [os.path.join(common, "scheduler.c"), os.path.join(common, "hal_host.c")]
        for target, mcu in TARGETS:
            cells = []
            for scheme, opts in SCHEMES:
                if scheme != "original" and not traced:
                    cells.append("n/a (instr. not built)")
                    continue
                if opts is None:
                    cells.append("n/a (no option yet)")
                    continue
                out = os.path.join(work, "%s-%s-%s" % (ex, mcu, scheme))
                cmd = [wsncc, "--target=" + target, "--mcu=" + mcu, "-I", common,
                       "-o", out] + opts + srcs
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    cells.append("FAILED")
                    sys.stderr.write("codesize: %s\n%s" % (" ".join(cmd), r.stderr))
                    status = 1
                    continue
                flash, ram = llvm_size(out + ".elf")
                cells.append("%d / %d" % (flash, ram))
            print("%-11s %-12s" % (ex, mcu) + "".join(" %-22s" % c for c in cells))
    return status


if __name__ == "__main__":
    sys.exit(main())
