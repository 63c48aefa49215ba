#!/usr/bin/env python3
"""smaller.py SMALL.elf BIG.elf MIN: print both images' flash (text+data, llvm-size) and fail
unless SMALL's is at least MIN bytes below BIG's."""
import subprocess
import sys


def flash(elf):
    out = subprocess.run(["llvm-size", elf], capture_output=True, text=True, check=True).stdout
    text, data = (int(x) for x in out.splitlines()[1].split()[:2])
    return text + data


small, big, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
a, b = flash(small), flash(big)
print("flash %d and %d: %d bytes less" % (a, b, b - a))
sys.exit(0 if b - a >= least else 1)
