"""hole-bytes.py OUT SRAM MEM: PadC$copy (uint8_t tag, hole, uint16_t val) in the mote's SRAM
and in replay's memory at the stop. Its address comes from wsn-replay --print-layout (OUT)."""
import re
import sys

out, sram, mem = sys.argv[1:4]
m = re.search(r"^global PadC\$copy (0x[0-9A-Fa-f]+) 4 ", open(out).read(), re.M)
if not m:
    sys.exit("hole-bytes.py: no 'global PadC$copy' line in " + out)
a = int(m.group(1), 16)
mote = open(sram, "rb").read()[a:a + 4]
rep = open(mem, "rb").read()[a:a + 4]
print("members equal:", "yes" if mote[0] == rep[0] and mote[2:4] == rep[2:4] else "no")
print("hole: mote 0x%02x replay 0x%02x, differ: %s" % (mote[1], rep[1], "yes" if mote[1] != rep[1] else "no"))
