#!/usr/bin/env python3
"""tracecost.py - what the trace runtime's per-segment check values (spec/trace-format.md
section 1.2) cost on the motes, in cycles per record and bytes of flash.

  tracecost.py [--build BUILD_DIR] [--baseline REV] [--iter N] --out WORK_DIR

drive.c writes a fixed mix of 7 records (ENTRY, SCHED, INPUT, SEND, an 8-byte EFFECT, CHECK,
EXIT) N times, then a VIOLATION. It is built for the atmega128 (run in wsn-sim, which stops
at the violation hook and prints the cycle count) and the msp430f1611 (run in msp430-run,
which stops when the program sleeps in LPM4), each against these runtimes:

  no-check     trace.c and wsn/trace.h of git revision REV (default main), without check values
  crc16        this tree's runtime: CRC-16/CCITT-FALSE per segment (__wsn_rt_close in assembly)
and, to compare checks on equal terms, the same built with the C writer (-DWSN_TRACE_NO_ASM=1):
  no-check/C, crc16/C, and
  fletcher16/C this tree's C runtime with the CRC step replaced by two 8-bit sums (Fletcher-16
               modulo 256), for comparison only: the cheapest 16-bit check that still finds
               every single-byte change

Cycles per record = (cycles with records - cycles of the same loop without records) / (7 N).
Flash = text + data of the linked image, and the bytes of the closing code (__wsn_rt_close
and its fold) from llvm-nm -S.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLVM = "/usr/lib/llvm-19/bin"
CLANG = os.path.join(LLVM, "clang")
RECORDS_PER_ITER = 7

CRC_LOOP = """    x = (uint8_t)(hi ^ *p++);
    x ^= (uint8_t)(x >> 4);
    hi = (uint8_t)(lo ^ (uint8_t)(x << 4) ^ (uint8_t)(x >> 3));
    lo = (uint8_t)(x ^ (uint8_t)(x << 5));
"""
FLETCHER_LOOP = """    x = *p++;
    lo = (uint8_t)(lo + x);
    hi = (uint8_t)(hi + lo);
"""


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("tracecost: %s failed (%d):\n%s%s" % (cmd[0], p.returncode, p.stdout, p.stderr))
    return p.stdout


def runtime_variant(work, name, rev):
    """A directory with src/trace.c, src/port.h and include/wsn/trace.h for the variant."""
    d = os.path.join(work, "rt-" + name)
    os.makedirs(os.path.join(d, "src"), exist_ok=True)
    os.makedirs(os.path.join(d, "include", "wsn"), exist_ok=True)
    files = ["trace-runtime/src/trace.c", "trace-runtime/src/port.h",
             "trace-runtime/include/wsn/trace.h"]
    for f in files:
        dst = os.path.join(d, f.split("trace-runtime/")[1])
        if rev:
            text = sh(["git", "-C", ROOT, "show", "%s:%s" % (rev, f)])
        else:
            text = open(os.path.join(ROOT, f)).read()
        if name == "fletcher16" and f.endswith("trace.c"):
            if CRC_LOOP not in text:
                sys.exit("tracecost: the CRC step of fold() not found in trace.c")
            text = text.replace(CRC_LOOP, FLETCHER_LOOP)
        open(dst, "w").write(text)
    return d


def build(work, rt, mcu, records, iters, c_core):
    out = os.path.join(work, "%s-%s-%d%s" % (os.path.basename(rt), mcu, records,
                                             "-c" if c_core else ""))
    os.makedirs(out, exist_ok=True)
    inc = os.path.join(rt, "include")
    defs = ["-DITER=%d" % iters, "-DRECORDS=%d" % records]
    rtdefs = ["-DWSN_TRACE_NO_ASM=1"] if c_core else []
    if mcu == "atmega128":
        cc = [CLANG, "--target=avr", "-mmcu=atmega128", "-Os", "-ffunction-sections",
              "-fdata-sections", "-I", inc]
        sh(cc + ["-std=gnu99"] + defs + ["-c", os.path.join(HERE, "drive.c"), "-o",
                                         os.path.join(out, "drive.o")])
        sh(cc + ["-std=c99"] + rtdefs + ["-c", os.path.join(rt, "src", "trace.c"), "-o",
                                          os.path.join(out, "trace.o")])
        elf = os.path.join(out, "fw.elf")
        sh(["avr-gcc", "-mmcu=atmega128", "-Wl,--gc-sections", os.path.join(out, "drive.o"),
            os.path.join(out, "trace.o"), "-o", elf])
        return elf
    plat = os.path.join(ROOT, "trace-runtime", "platform", "msp430")
    cc = [CLANG, "--target=msp430", "-mmcu=msp430f1611", "-isystem", "/usr/msp430/include", "-Os",
          "-ffunction-sections", "-fdata-sections", "-I", inc]
    objs = []
    for src, std, extra in [(os.path.join(HERE, "drive.c"), "-std=gnu99", defs),
                            (os.path.join(rt, "src", "trace.c"), "-std=c99", rtdefs),
                            (os.path.join(plat, "crt0.S"), None, []),
                            (os.path.join(plat, "mspabi.c"), None, ["-ffreestanding", "-fno-builtin"]),
                            (os.path.join(plat, "mspabi_builtin.S"), None, []),
                            (os.path.join(plat, "udivmod16.S"), None, [])]:
        o = os.path.join(out, os.path.basename(src) + ".o")
        sh(cc + ([std] if std else []) + extra + ["-c", src, "-o", o])
        objs.append(o)
    elf = os.path.join(out, "fw.elf")
    sh([os.path.join(LLVM, "ld.lld"), "--gc-sections", "-T", os.path.join(plat, "msp430x16x.ld"),
        "-L", "/usr/msp430/lib/ldscripts/msp430f1611"] + objs + ["-o", elf])
    return elf


def cycles(bindir, work, mcu, elf):
    if mcu == "atmega128":
        out = sh([os.path.join(bindir, "wsn-sim"), "run", elf, "--seed", "1", "-o",
                  os.path.join(os.path.dirname(elf), "sim")])
        m = re.search(r"stop=(\S+) cycles=(\d+)", out)
        if not m or m.group(1) != "violation":
            sys.exit("tracecost: wsn-sim did not stop at the violation:\n" + out)
        return int(m.group(2))
    out = sh([os.path.join(bindir, "msp430-run"), "--mcu=msp430f1611",
              "--instructions=5000000", elf])
    j = json.loads(out)
    if j["state"] != "asleep":
        sys.exit("tracecost: the MSP430 program did not reach LPM4:\n" + out)
    return int(j["cycles"])


def flash(elf):
    out = sh([os.path.join(LLVM, "llvm-size"), elf])
    text, data = (int(x) for x in out.splitlines()[1].split()[:2])
    nm = sh([os.path.join(LLVM, "llvm-nm"), "-S", elf])
    close = 0
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT" and (f[3] == "__wsn_rt_close" or f[3] == "fold"
                                              or f[3].startswith("fold.")):
            close += int(f[1], 16)
    return text + data, close


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline", default="main")
    ap.add_argument("--iter", type=int, default=200)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    bindir = os.path.join(a.build, "bin")
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    variants = [("no-check", a.baseline, False), ("crc16", None, False),
                ("no-check/C", a.baseline, True), ("crc16/C", None, True),
                ("fletcher16/C", None, True)]
    n = RECORDS_PER_ITER * a.iter
    print("%-10s %-12s %10s %10s %8s %8s %8s" % ("mcu", "runtime", "cyc/rec", "+cyc/rec",
                                               "flash", "+flash", "close"))
    for mcu in ["atmega128", "msp430f1611"]:
        base = {}
        for name, rev, c_core in variants:
            rt = runtime_variant(a.out, name.split("/")[0], rev)
            with_rec = build(a.out, rt, mcu, 1, a.iter, c_core)
            without = build(a.out, rt, mcu, 0, a.iter, c_core)
            per = (cycles(bindir, a.out, mcu, with_rec) - cycles(bindir, a.out, mcu, without)) / n
            fl, close = flash(with_rec)
            if c_core not in base:
                base[c_core] = (per, fl)
            b = base[c_core]
            print("%-10s %-12s %10.1f %10.1f %8d %8d %8d" % (mcu, name, per, per - b[0], fl,
                                                            fl - b[1], close))


if __name__ == "__main__":
    main()
