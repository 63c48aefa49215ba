#!/usr/bin/env python3
"""Print a global of an AVR or MSP430 firmware as it is in a wsn-sim sram.bin image.

usage: sramsym.py FW.elf sram.bin SYMBOL [u8|u16|u32] [COUNT] [OFFSET]
Prints COUNT little-endian values (decimal, space separated) starting OFFSET
bytes into SYMBOL. The symbol address comes from llvm-nm (data symbols carry
the 0x800000 offset in AVR ELF files; MSP430 ones are plain addresses)."""
import struct
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    elf, image, sym = sys.argv[1:4]
    kind = sys.argv[4] if len(sys.argv) > 4 else "u8"
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    offset = int(sys.argv[6], 0) if len(sys.argv) > 6 else 0
    out = subprocess.run(["llvm-nm", elf], check=True, capture_output=True, text=True).stdout
    addr = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == sym:
            addr = int(parts[0], 16)
    if addr is None:
        sys.exit("sramsym: no symbol %s in %s" % (sym, elf))
    if addr >= 0x800000:
        addr -= 0x800000
    addr += offset
    fmt, size = {"u8": ("<B", 1), "u16": ("<H", 2), "u32": ("<I", 4)}[kind]
    data = open(image, "rb").read()
    vals = [struct.unpack_from(fmt, data, addr + i * size)[0] for i in range(count)]
    print(" ".join(str(v) for v in vals))


if __name__ == "__main__":
    main()
