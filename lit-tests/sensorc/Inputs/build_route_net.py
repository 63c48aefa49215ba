"""Builds one firmware per node of examples/sensorc/radio/route_app.c with the node's
generated checks (sensorc decompose -> GEN/node_<id>.c) and the CC2420 stack, with wsn-cc.
usage: build_route_net.py WSN_CC SRC_ROOT GEN_DIR OUT_PREFIX [-DX=V ...]
writes OUT_PREFIX<id>.elf (+ .replay.bc, .wmap) for every node_<id>.c in GEN_DIR."""
import glob
import os
import re
import subprocess
import sys

cc, root, gen, out = sys.argv[1:5]
defines = sys.argv[5:]
radio = os.path.join(root, "examples", "radio")
app = os.path.join(root, "examples", "sensorc", "radio")
nodes = sorted(int(re.search(r"node_(\d+)\.c$", p).group(1))
               for p in glob.glob(os.path.join(gen, "node_*.c")))
if not nodes:
    sys.exit("no node_<id>.c in " + gen)
for n in nodes:
    cmd = [cc, "--target=avr", "--mcu=atmega128", "-Wc,-Wno-unknown-attributes",
           "--trace-buf=3072", "--trace-seg=768", "-I", radio, "-I", app] + defines + \
          ["-o", "%s%d" % (out, n), os.path.join(app, "route_app.c"),
           os.path.join(gen, "node_%d.c" % n), os.path.join(radio, "cc2420.c")]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.stderr.write(p.stdout)
        sys.exit("wsn-cc failed for node %d" % n)
print("built", " ".join("node_%d" % n for n in nodes))
