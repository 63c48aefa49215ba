"""Builds one firmware per node of a network checked by sensorc's generated code: for every
GEN/node_<id>.c, wsn-cc compiles the application, the node's checks and the CC2420 stack
(examples/radio/cc2420.c) into OUT_PREFIX<id>.elf (+ .replay.bc, .wmap).
usage: build_sensorc_net.py WSN_CC SRC_ROOT GEN_DIR OUT_PREFIX --app REL.c [--inc REL_DIR]...
                            [--ring BUF:SEG] [-DX=V ...]
(REL paths are relative to SRC_ROOT; examples/radio is always on the include path.)"""
import argparse
import glob
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("cc")
ap.add_argument("root")
ap.add_argument("gen")
ap.add_argument("out")
ap.add_argument("--app", required=True)
ap.add_argument("--inc", action="append", default=[])
ap.add_argument("--ring", default="3072:768")
args, defines = ap.parse_known_args()
bad = [d for d in defines if not d.startswith("-D")]
if bad:
    sys.exit("unknown arguments: " + " ".join(bad))
buf, seg = args.ring.split(":")
radio = os.path.join(args.root, "examples", "radio")
incs = ["-I", radio]
for d in args.inc:
    incs += ["-I", os.path.join(args.root, d)]
nodes = sorted(int(re.search(r"node_(\d+)\.c$", p).group(1))
               for p in glob.glob(os.path.join(args.gen, "node_*.c")))
if not nodes:
    sys.exit("no node_<id>.c in " + args.gen)
for n in nodes:
    cmd = [args.cc, "--target=avr", "--mcu=atmega128", "-Wc,-Wno-unknown-attributes",
           "--trace-buf=" + buf, "--trace-seg=" + seg] + incs + defines + \
          ["-o", "%s%d" % (args.out, n), os.path.join(args.root, args.app),
           os.path.join(args.gen, "node_%d.c" % n), os.path.join(radio, "cc2420.c")]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.stderr.write(p.stdout)
        sys.exit("wsn-cc failed for node %d" % n)
print("built", " ".join("node_%d" % n for n in nodes))
