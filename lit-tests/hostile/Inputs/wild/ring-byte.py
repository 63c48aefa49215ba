"""ring-byte.py ELF N: prints a C header defining WILD_ADDR as the address of byte N of the
trace ring (__wsn_trace + the 32-byte header + N, spec/trace-format.md section 1), read from
the ELF's symbol table with llvm-nm."""
import subprocess
import sys

elf, n = sys.argv[1], int(sys.argv[2])
out = subprocess.run(["llvm-nm", elf], capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    f = line.split()
    if len(f) == 3 and f[2] == "__wsn_trace":
        # AVR data addresses carry the 0x800000 data-space tag in the ELF.
        addr = (int(f[0], 16) & 0xFFFF) + 32 + n
        print("#define WILD_ADDR ((uint8_t *)0x%04x)" % addr)
        sys.exit(0)
sys.exit("ring-byte.py: no __wsn_trace in " + elf)
