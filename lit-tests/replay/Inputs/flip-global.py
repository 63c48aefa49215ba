#!/usr/bin/env python3
"""Flip the low bit of a global's first byte in the SRAM image of the first node wsn-replay net
selected (the control that shows the network replay's state comparison can fail).

usage: flip-global.py FW.elf NETDIR NET-REPLAY.json SYMBOL"""
import json
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    elf, netdir, report, sym = sys.argv[1:]
    node = json.load(open(report))["selected"][0]
    out = subprocess.run(["llvm-nm", elf], check=True, capture_output=True, text=True).stdout
    addr = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == sym:
            addr = int(parts[0], 16) - 0x800000  # AVR data symbols carry 0x800000
    if addr is None:
        sys.exit("flip-global: no symbol %s in %s" % (sym, elf))
    path = os.path.join(netdir, "node%d" % node, "sram.bin")
    data = bytearray(open(path, "rb").read())
    data[addr] ^= 1
    open(path, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
