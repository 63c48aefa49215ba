"""Writes a damaged copy of a .wtr trace (spec/trace-format.md): the damage a wild pointer, a
torn read-out or a hand edit leaves while the file stays well formed.

  damage.py IN OUT head-back N          move `head` back N bytes (cuts off the last record)
  damage.py IN OUT pad-last N           write PAD over the tag of the N-byte record ending at head
  damage.py IN OUT set FIELD VALUE      set a header field: target, checks, violation, flags
"""
import struct
import sys

FIELDS = {"target": (5, "<B"), "head": (16, "<H"), "flags": (18, "<H"), "checks": (24, "<I"),
          "violation": (28, "<H")}


def main():
    src, dst, op = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    head = struct.unpack_from("<H", b, 16)[0]
    if op == "head-back":
        n = int(sys.argv[4])
        if head < n:
            sys.exit("damage.py: head %d is below %d" % (head, n))
        struct.pack_into("<H", b, 16, head - n)
    elif op == "pad-last":
        n = int(sys.argv[4])
        b[32 + head - n] = 0x00
    elif op == "set":
        off, fmt = FIELDS[sys.argv[4]]
        struct.pack_into(fmt, b, off, int(sys.argv[5], 0))
    else:
        sys.exit("damage.py: unknown operation " + op)
    open(dst, "wb").write(bytes(b))


main()
