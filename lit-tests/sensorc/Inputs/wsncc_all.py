"""Builds every node_*.c of a sensorc output directory into traced firmware with wsn-cc,
together with the application driver APP, for atmega128 and msp430f1611; fails on the
first build that fails and prints one line per firmware built."""
import glob
import os
import subprocess
import sys

wsncc, out_dir, app_dir, app = sys.argv[1:5]
files = sorted(glob.glob(os.path.join(out_dir, "node_*.c")))
if not files:
    sys.exit("no generated C in " + out_dir)
for f in files:
    node = os.path.splitext(os.path.basename(f))[0]
    for target, mcu in (("avr", "atmega128"), ("msp430", "msp430f1611")):
        out = os.path.join(out_dir, "%s-%s" % (node, mcu))
        cmd = [wsncc, "--target=" + target, "--mcu=" + mcu, "-I", app_dir, "-o", out, f,
               os.path.join(app_dir, app)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
        for ext in (".elf", ".replay.bc", ".wmap"):
            if not os.path.exists(out + ext):
                sys.exit("missing " + out + ext)
        print("built %s for %s" % (node, mcu))
