#!/usr/bin/env python3
"""check-size.py ELF MCU: print flash (text+data) and RAM (data+bss) from llvm-size and fail
unless they fit the MCU (atmega128 128K/4K, msp430f1611 48K/10K, msp430f2617 92K/8K)."""
import subprocess
import sys

LIMITS = {"atmega128": (128 * 1024, 4096), "msp430f1611": (48 * 1024, 10 * 1024),
          "msp430f2617": (92 * 1024, 8 * 1024)}

elf, mcu = sys.argv[1], sys.argv[2]
out = subprocess.run(["llvm-size", elf], capture_output=True, text=True, check=True).stdout
text, data, bss = (int(x) for x in out.splitlines()[1].split()[:3])
flash, ram = text + data, data + bss
lf, lr = LIMITS[mcu]
print("%s: flash %d/%d ram %d/%d %s" % (mcu, flash, lf, ram, lr,
                                       "fits" if flash <= lf and ram <= lr else "DOES NOT FIT"))
sys.exit(0 if flash <= lf and ram <= lr and flash > 0 else 1)
