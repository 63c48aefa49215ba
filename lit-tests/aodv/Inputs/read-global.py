#!/usr/bin/env python3
"""Print a little-endian integer global of an AVR firmware from a wsn-sim SRAM image.

usage: read-global.py FW.elf SRAM.bin SYMBOL"""
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    elf, sram, sym = sys.argv[1:]
    out = subprocess.run(["llvm-nm", "-S", elf], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == sym:
            addr = int(parts[0], 16) - 0x800000  # AVR data symbols carry 0x800000
            size = int(parts[1], 16)
            data = open(sram, "rb").read()[addr:addr + size]
            print("%s = %d" % (sym, int.from_bytes(data, "little")))
            return
    sys.exit("read-global: no symbol %s in %s" % (sym, elf))


if __name__ == "__main__":
    main()
