#!/usr/bin/env python3
"""Check the layout of an msp430f1611 sram.bin from wsn-sim (spec/telosb.md section 3).

usage: msp430sram.py FW.elf DIR
Prints the image size, whether the RAM mirror 0x0200-0x09FF equals RAM 0x1100-0x18FF, whether
__wsn_trace's bytes in the image are the bytes of DIR/trace.wtr, and a few register bytes."""
import subprocess
import sys


def main():
    elf, d = sys.argv[1:3]
    img = open(d + "/sram.bin", "rb").read()
    trace = open(d + "/trace.wtr", "rb").read()
    nm = subprocess.run(["llvm-nm", "-S", elf], check=True, capture_output=True, text=True).stdout
    addr = None
    for line in nm.splitlines():
        p = line.split()
        if len(p) == 4 and p[3] == "__wsn_trace":
            addr = int(p[0], 16)
    print("size", hex(len(img)))
    print("mirror", img[0x200:0xA00] == img[0x1100:0x1900])
    print("trace_at", hex(addr), img[addr:addr + len(trace)] == trace, trace[:4].decode())
    # Mapped registers are not memory (0xFF): the Basic Clock module at 0x56-0x58.
    print("bcs", img[0x56:0x59].hex())


if __name__ == "__main__":
    main()
