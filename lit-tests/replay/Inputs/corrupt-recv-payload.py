"""Flip the lowest bit of one received payload byte in a receiver's trace (not resealed).

usage: corrupt-recv-payload.py IN.wtr OUT.wtr NET.json PAYLOAD_LEN INDEX

NET.json is `wsn-replay net --json`'s output: its first followed message (SENDER, SEQ) is the one.

The project's CC2420 driver reads every frame byte from SPDR (one INPUT record each, all of one
site) before it signals the receive event (the RECV record); the frame ends with the payload,
then the RSSI and CRC/correlation bytes. So payload byte INDEX is the INPUT of that site that
comes PAYLOAD_LEN + 2 - INDEX such records before the RECV (SENDER, SEQ). A plain INPUT record
is tag, site, value (varints); the value's first byte holds its low 7 bits. An INPUT_S
(format 6, spec/trace-format.md 3.4) that gives its value holds it after the tag; one that
names a recent slot is rewritten to name the slot holding the value with its low bit flipped,
or when no slot holds that, another slot's value (the segment's recent values are followed
from the segment's start, as the decoder does), so no later record's value changes with it.
The script prints the value it wrote.
"""
import json
import subprocess
import sys

src, dst, net, plen, index = sys.argv[1:6]
link = json.load(open(net))["messages"][0]
sender, seq, plen, index = link["sender"], link["seq"], int(plen), int(index)
records = json.loads(subprocess.run(["wsn-trace-dump", "--json", src], check=True, capture_output=True,
                                    text=True).stdout)["records"]
recv = [i for i, r in enumerate(records)
        if r["kind"] == "RECV" and r.get("sender") == sender and r.get("seq") == seq]
if not recv:
    sys.exit("no RECV sender=%d seq=%d" % (sender, seq))
inputs = [r for r in records[:recv[0]] if r["kind"] == "INPUT"]
site = inputs[-1]["site"]  # the SPDR read of the frame's last byte
frame = [r for r in inputs if r["site"] == site]
rec = frame[-(plen + 2 - index)]
data = bytearray(open(src, "rb").read())
at = 32 + rec["ring_offset"]
if not rec.get("short"):
    site_bytes = 1 if rec["site"] < 0x80 else 2 if rec["site"] < 0x4000 else 3
    data[at + 1 + site_bytes] ^= 1
elif "recent_slot" not in rec:
    data[at + 1] ^= 1
else:
    # The segment's recent values just before the record.
    slots, nxt = [0, 0, 0, 0], 0
    for r in records:
        if r is rec:
            break
        if r["segment"] != rec["segment"] or r["kind"] != "INPUT":
            continue
        if r["offset"] < rec["offset"] and r["value"] <= 0xFFFF and r["value"] not in slots:
            slots[nxt] = r["value"]
            nxt = (nxt + 1) % 4
    # The value with its low bit flipped when a slot holds it, else another slot's value
    # (any value that differs: the record keeps its length, and no slot changes, since the
    # value it now names is already in one).
    want = rec["value"] ^ 1
    if want not in slots:
        want = next((v for v in slots if v != rec["value"]), None)
    if want is None:
        sys.exit("no recent slot holds another value at ring offset %d (slots %s)" % (
            rec["ring_offset"], slots))
    data[at] = (data[at] & 0x0F) | ((2 + 1 + slots.index(want)) << 4)
open(dst, "wb").write(bytes(data))
new = rec["value"] ^ 1 if not rec.get("short") or "recent_slot" not in rec else want
print("changed payload byte %d: INPUT site=%d value=%d -> %d at ring offset %d" % (
    index, site, rec["value"], new, rec["ring_offset"]))
