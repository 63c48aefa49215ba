"""Writes a hand-made format 9 trace with REPEAT records (spec/trace-format.md 3.8), check
values included (section 1.2: CRC-16/CCITT-FALSE of each retained segment's bytes).

  repeat_trace.py OUT.wtr

Two 64-byte segments. Segment 0: the spec's example `A4 D4 71 90 A4 9B 07`, then ENTRY_S 1,
ENTRY_S 2 and a REPEAT of period 2 (count 2) whose copies nest deeper, the EXIT_S bytes that
close them, SCHED 3, PAD. Segment 1: ENTRY_S 3, EXIT_S 3, IRQ_S 1 0, IRQ_EXIT_S 1 and a REPEAT
of period 4 (count 9), EXIT_S 3; ENTRY_S 6 with a REPEAT of period 1, EXIT_S 6 with another;
eight control records and a REPEAT of period 8 (count 16). The head is after it. Also the
fuzz seed bench/fuzz/corpus/trace/repeat.wtr.
"""
import struct
import sys

SEG = 64
BUF = 2 * SEG


def crc16(data, crc=0xFFFF):
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def main():
    seg0 = bytes([0xA4, 0xD4, 0x71, 0x90, 0xA4, 0x9B, 0x07,
                  0xA1, 0xA2, 0x99, 0x02, 0xD2, 0xD1, 0xD2, 0xD1,
                  0x05, 0x03,
                  0x00])
    seg1 = bytes([0xA3, 0xD3, 0x70, 0x90, 0x9B, 0x09, 0xD3,
                  0xA6, 0x98, 0x01, 0xD6, 0x98, 0x01,
                  0xA1, 0xD1, 0xA2, 0xD2, 0x71, 0x90, 0xA3, 0xD3, 0x9F, 0x10])
    ring = bytearray(BUF)
    ring[0:len(seg0)] = seg0  # the rest of segment 0 after the PAD: zeros
    ring[SEG:SEG + len(seg1)] = seg1
    head = SEG + len(seg1)
    header = b"WTRB" + struct.pack("<BBHIHHHHIIHH", 9, 0, 0, 0x5EED0009, BUF, SEG, head, 0,
                                   0, 0, 0xFFFF, 0)
    checks = struct.pack("<HH", crc16(ring[0:SEG]), crc16(ring[SEG:head]))
    with open(sys.argv[1], "wb") as f:
        f.write(header + bytes(ring) + checks)


if __name__ == "__main__":
    main()
