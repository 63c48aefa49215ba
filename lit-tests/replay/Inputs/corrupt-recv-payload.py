"""Flip the lowest bit of one received payload byte in a receiver's trace (not resealed).

usage: corrupt-recv-payload.py IN.wtr OUT.wtr NET.json PAYLOAD_LEN INDEX

NET.json is `wsn-replay net --json`'s output: its first followed message (SENDER, SEQ) is the one.

The project's CC2420 driver reads every frame byte from SPDR (one INPUT record each, all of one
site) before it signals the receive event (the RECV record); the frame ends with the payload,
then the RSSI and CRC/correlation bytes. So payload byte INDEX is the INPUT of that site that
comes PAYLOAD_LEN + 2 - INDEX such records before the RECV (SENDER, SEQ). An INPUT record is
tag, site, value (varints); the value's first byte holds its low 7 bits.
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
assert rec["size"] >= 3, rec
data = bytearray(open(src, "rb").read())
data[32 + rec["ring_offset"] + 2] ^= 1
open(dst, "wb").write(bytes(data))
print("flipped payload byte %d: INPUT site=%d value=%d at ring offset %d" % (
    index, site, rec["value"], rec["ring_offset"]))
