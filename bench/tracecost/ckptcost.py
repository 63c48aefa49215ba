#!/usr/bin/env python3
"""ckptcost.py - what a checkpoint costs the motes, packed as CHECKPOINT_Z or plain
(spec/trace-format.md section 3.2), in cycles per checkpoint and bytes of flash.

  ckptcost.py [--build BUILD_DIR] [--iter N] --out WORK_DIR

ckpt.c writes one 355-byte checkpoint (94 variables, 124 bytes non-zero, as the TelosB
RadioCountToLedsWithSenderID's) per iteration after resetting the trace (1024-byte ring in
512-byte segments, as wsn-cc chooses for that application). It is built for the
atmega128 (wsn-sim) and the msp430f1611 (msp430-run) against this tree's runtime with
-DWSN_TRACE_PACK=1 (the default) and 0, each with the assembly writer core and with the C
record path (-DWSN_TRACE_NO_ASM=1), written by __wsn_rt_checkpoint_t (a table) and as an
anchor with locals does (__wsn_rt_checkpoint_begin, __wsn_rt_put_t, __wsn_rt_put of a 2-byte
local, __wsn_rt_record_end: packed in place). Cycles per checkpoint = (cycles with the checkpoint -
cycles of the same loop without it) / N: reserving, packing or copying, closing (the CRC of the
bytes written) included. Flash = text + data of the linked image.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tracecost  # noqa: E402  (build helpers, cycles, flash)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(tracecost.ROOT, "build"))
    ap.add_argument("--iter", type=int, default=50)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    bindir = os.path.join(a.build, "bin")
    os.makedirs(a.out, exist_ok=True)
    rt = tracecost.runtime_variant(a.out, "this", None)
    print("| mcu | writer | entry | checkpoint | cycles/checkpoint | flash |")
    print("|---|---|---|---|---:|---:|")
    for mcu in ("atmega128", "msp430f1611"):
        for c_core in (False, True):
          for streamed in (0, 1):
            for pack in (1, 0):
                w = os.path.join(a.out, "%s-%s-s%d-p%d" % (mcu, "c" if c_core else "asm",
                                                            streamed, pack))
                os.makedirs(w, exist_ok=True)
                extra = ["-DWSN_TRACE_PACK=%d" % pack, "-DWSN_TRACE_SEG_SIZE=512",
                         "-DWSN_TRACE_BUF_SIZE=1024"]
                base = build(w, rt, mcu, 0, a.iter, c_core, extra, streamed)
                full = build(w, rt, mcu, 1, a.iter, c_core, extra, streamed)
                c0 = tracecost.cycles(bindir, w, mcu, base)
                c1 = tracecost.cycles(bindir, w, mcu, full)
                fl, _ = tracecost.flash(full)
                print("| %s | %s | %s | %s | %.1f | %d |" % (
                    mcu, "C" if c_core else "assembly",
                    "begin/put_t/put/end" if streamed else "checkpoint_t",
                    "packed" if pack else "plain", (c1 - c0) / a.iter, fl))
                sys.stdout.flush()


def build(work, rt, mcu, records, iters, c_core, rtextra, streamed):
    """tracecost.build for ckpt.c, with extra runtime defines."""
    saved_here = tracecost.HERE
    out = os.path.join(work, "r%d" % records)
    os.makedirs(out, exist_ok=True)
    # tracecost.build reads os.path.join(HERE, "drive.c"): give it a directory holding ckpt.c
    # under that name, and the runtime defines through a wrapper variant.
    d = os.path.join(work, "drv")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "drive.c"), "w") as f:
        f.write("#define STREAMED %d\n" % streamed + open(os.path.join(HERE, "ckpt.c")).read())
    rtv = os.path.join(work, "rt-%d" % records)
    os.makedirs(os.path.join(rtv, "src"), exist_ok=True)
    os.makedirs(os.path.join(rtv, "include", "wsn"), exist_ok=True)
    defs = "".join("#define %s %s\n" % tuple(x[2:].split("=")) for x in rtextra)
    with open(os.path.join(rtv, "src", "trace.c"), "w") as f:
        f.write(defs + open(os.path.join(rt, "src", "trace.c")).read())
    for name in (os.path.join("src", "port.h"), os.path.join("include", "wsn", "trace.h")):
        with open(os.path.join(rtv, name), "w") as f:
            f.write(open(os.path.join(rt, name)).read())
    tracecost.HERE = d
    try:
        return tracecost.build(out, rtv, mcu, records, iters, c_core)
    finally:
        tracecost.HERE = saved_here


if __name__ == "__main__":
    main()
