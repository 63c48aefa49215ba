"""Compiles every node_*.c in a directory for AVR (atmega128) and MSP430
(msp430f1611) with -Wall -Werror; fails if there are not exactly N files."""
import glob
import os
import subprocess
import sys

clang, out_dir, include, app_dir, expected = sys.argv[1:6]
files = sorted(glob.glob(os.path.join(out_dir, "node_*.c")))
if len(files) != int(expected):
    sys.exit("expected %s generated C files, found %d: %s" % (expected, len(files), files))
targets = [
    ["--target=avr", "-mmcu=atmega128"],
    ["--target=msp430", "-mmcu=msp430f1611", "-I/usr/msp430/include"],
]
for f in files:
    for t in targets:
        obj = f + "." + t[0].split("=")[1] + ".o"
        cmd = [clang] + t + ["-Os", "-Wall", "-Wextra", "-Werror", "-I" + include,
                             "-I" + app_dir, "-c", f, "-o", obj]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("FAILED: %s\n%s" % (" ".join(cmd), r.stderr))
        print("built %s for %s" % (os.path.basename(f), t[0].split("=")[1]))
