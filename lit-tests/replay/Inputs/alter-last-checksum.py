"""alter-last-checksum.py IN.wtr OUT.wtr: changes the checksum of the trace's last CHECK /
VIOLATION record (found with wsn-trace-dump --json) and keeps the file well formed: the
checksum is the record's last field, so bit 0 of its last byte is a value bit, whatever its
encoding."""
import json
import subprocess
import sys

src, dst = sys.argv[1:3]
dump = json.loads(subprocess.run(["wsn-trace-dump", "--json", src], capture_output=True,
                                 text=True, check=True).stdout)
last = [r for r in dump["records"] if r["kind"] in ("CHECK", "VIOLATION")][-1]
data = bytearray(open(src, "rb").read())
data[32 + last["ring_offset"] + last["size"] - 1] ^= 0x01
open(dst, "wb").write(bytes(data))
