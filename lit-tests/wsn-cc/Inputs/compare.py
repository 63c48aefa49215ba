#!/usr/bin/env python3
"""compare.py WHAT A B: print "A < B" or "A >= B" for WHAT in
  flash   flash bytes (text+data, llvm-size) of two ELF images
  funcs   number of instrumented functions in two trace maps (.wmap)
  sites   number of trace sites (regions, inputs, skips, ...) in two trace maps
  checks  number of wsn.check ops in two replay modules (.replay.bc)"""
import json
import subprocess
import sys


def measure(what, path):
    if what == "flash":
        out = subprocess.run(["llvm-size", path], capture_output=True, text=True,
                             check=True).stdout
        text, data = (int(x) for x in out.splitlines()[1].split()[:2])
        return text + data
    if what == "funcs":
        with open(path) as f:
            return len(json.load(f)["functions"])
    if what == "sites":
        with open(path) as f:
            return len(json.load(f)["sites"])
    if what == "checks":
        ir = subprocess.run(["llvm-dis", path, "-o", "-"], capture_output=True, text=True,
                            check=True).stdout
        return sum(1 for l in ir.splitlines() if "call void @wsn.check(" in l)
    sys.exit("compare.py: unknown measure '%s'" % what)


what, a, b = sys.argv[1:4]
va, vb = measure(what, a), measure(what, b)
print("%s: %d %s %d" % (what, va, "<" if va < vb else ">=", vb))
