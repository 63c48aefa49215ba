#!/usr/bin/env python3
"""vector-slots.py ELF: print "slot N (0xADDR) -> SYMBOL" for every MSP430 vector slot, from
the .vectors section contents and the symbol table (slot N lives at 0xFF80 + 2*N)."""
import re
import subprocess
import sys

elf = sys.argv[1]
dump = subprocess.run(["llvm-objdump", "-s", "-j", ".vectors", elf], capture_output=True,
                      text=True, check=True).stdout
data = bytearray()
base = None
for m in re.finditer(r"^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ?){1,4})", dump, re.M):
    if base is None:
        base = int(m.group(1), 16)
    data += bytes.fromhex(m.group(2).replace(" ", ""))
if base is None:
    sys.exit("vector-slots: no .vectors section in %s" % elf)
names = {}
for line in subprocess.run(["llvm-nm", elf], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "Tt":
        names.setdefault(int(parts[0], 16), parts[2])
for off in range(0, len(data) - 1, 2):
    target = data[off] | (data[off + 1] << 8)
    addr = base + off
    print("slot %d (0x%04x) -> %s" % ((addr - 0xFF80) // 2, addr, names.get(target, "0x%04x" % target)))
