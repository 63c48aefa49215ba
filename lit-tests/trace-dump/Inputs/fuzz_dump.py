"""Feeds wsn-trace-dump bad input and checks it fails cleanly.

  fuzz_dump.py truncate DUMP GOOD.wtr WORKDIR
      cuts GOOD at several points; every cut must be rejected.
  fuzz_dump.py random DUMP GOOD.wtr WORKDIR COUNT SEED
      COUNT seeded files: pure random bytes (must be rejected), a valid header over a random
      ring, and GOOD with a few bytes changed (may decode, or be rejected).

"Rejected cleanly" = exit code in 1..127 (a crash is a signal: negative here, or >= 128
through a shell) and a one-line message "wsn-trace-dump: FILE: offset N: reason" (one such
line per damaged segment when segments fail their check values).
Exit 0 is allowed only where noted. Prints a summary; exits 1 on the first bad outcome.
"""
import os
import random
import re
import struct
import subprocess
import sys

MSG = re.compile(r"^wsn-trace-dump: .+: offset \d+: \S.*$")


def run(dump, path, must_fail, what, json_too=True):
    for extra in ([], ["--json"]) if json_too else ([],):
        p = subprocess.run([dump, path] + extra, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode("utf-8", "replace").strip()
        if p.returncode == 0:
            if must_fail:
                sys.exit("FAIL %s %s: accepted, expected an error" % (what, extra))
            continue
        if not (1 <= p.returncode <= 127):
            sys.exit("FAIL %s %s: exit code %d (crash?)\n%s" % (what, extra, p.returncode, err))
        lines = err.splitlines()
        if not lines or not all(MSG.match(l) for l in lines):
            sys.exit("FAIL %s %s: bad error message:\n%s" % (what, extra, err))
    return p.returncode != 0


def header(buf_size, seg_size, head, flags=0, wraps=0, violation=0xFFFF):
    return struct.pack("<4sBBHIHHHHIIHH", b"WTRB", 2, 0, 0, 0, buf_size, seg_size, head,
                       flags, wraps, 0, violation, 0)


def main():
    mode, dump, good, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    data = open(good, "rb").read()
    rejected = accepted = 0
    if mode == "truncate":
        cuts = sorted({0, 1, 4, 5, 16, 31, 32, 33, 64, len(data) // 2, len(data) - 1})
        for c in cuts:
            path = os.path.join(work, "cut%d.wtr" % c)
            open(path, "wb").write(data[:c])
            run(dump, path, True, "cut at %d" % c)
            rejected += 1
    else:
        count, seed = int(sys.argv[5]), int(sys.argv[6])
        rng = random.Random(seed)
        for i in range(count):
            kind = i % 3
            if kind == 0:
                n = rng.choice([0, 3, 31, 32, 33, rng.randrange(1, 3000)])
                blob = bytes(rng.randrange(256) for _ in range(n))
            elif kind == 1:
                seg = rng.choice([16, 32, 64, 256])
                nseg = rng.randrange(2, 9)
                buf = seg * nseg
                wraps = rng.choice([0, 0, 1, 7])
                hdr = header(buf, seg, rng.randrange(buf), 1 if wraps else 0, wraps)
                ring = bytearray(rng.randrange(256) for _ in range(buf))
                # Bias towards valid tags so the record decoder is exercised.
                for j in range(buf):
                    if rng.random() < 0.6:
                        ring[j] = rng.randrange(0x10)
                checks = bytes(rng.randrange(256) for _ in range(2 * nseg))
                blob = hdr + bytes(ring) + checks
            else:
                b = bytearray(data)
                for _ in range(rng.randrange(1, 9)):
                    pos = rng.randrange(len(b)) if rng.random() < 0.8 else rng.randrange(32)
                    b[pos] = rng.randrange(256)
                blob = bytes(b)
            path = os.path.join(work, "rand%03d.wtr" % i)
            open(path, "wb").write(blob)
            # --json on every fourth file keeps the test fast (each run loads libLLVM).
            if run(dump, path, kind == 0, "file %s" % path, i % 4 == 0):
                rejected += 1
            else:
                accepted += 1
    print("ok: %d rejected, %d accepted" % (rejected, accepted))


main()
