#!/usr/bin/env python3
"""bench/tracesize/tracesize.py - how many bytes the trace costs, per source of records, and
how much mote time the ring covers (issue 20, Deliver 1).

  tracesize.py [--bin DIR] [--seeds N] [--start S] [--examples blink,...] [--apps DIR]...
               [--platform micaz|telosb] [--seconds S] [--work DIR] [--json-out FILE]

Every example of bench/fidelity (atmega128, wsn-cc defaults) and every application directory of
each --apps DIR (bench/tinyos layout: app.c, optional invariants.c and sim-args; traced with
wsn-cc's defaults) runs in wsn-sim with --full-trace for each seed, up to the invariant's
violation or --seconds of mote time. Every record written since reset is decoded from DIR/full/
with wsn-trace-dump and counted under its source:

  entry/exit     ENTRY, EXIT (LOG 1)
  irq            IRQ, IRQ_EXIT (LOG 2)
  sched          SCHED (LOG 3)
  checkpoint     CHECKPOINT (LOG 4)
  input@SITE     INPUT, INPUT_BYTES (LOG 5), one row per input site (file:line, function: the
                 register or buffer read there)
  send/recv      SEND, RECV (LOG 6)
  effect         EFFECT (uninstrumented callees' writes)
  skip           SKIP_BEGIN, SKIP_END
  check          CHECK (also as CHECK_S, format 10, spec/trace-format.md 3.9), VIOLATION
  pad            segment ends left unused (PAD): bytes written minus the records' bytes

Records written together count each under its own source, the bytes under one of them: an
empty skip span's record (format 7) under effect, a REPEAT (format 9, spec/trace-format.md
3.8) under the source of the first record it stands for (its JSON size is 2, the others' 0).

For each source: records, bytes (as written in today's format), bytes per mote second, the raw
log's bytes for the same events (spec/trace-size.md: every event at full width with its
position, no encoding) and the ratio written/raw. The totals add the ring's coverage: how many
mote seconds the retained tail (at least buf_size - seg_size bytes, spec/trace-format.md section
2) holds at the run's mean write rate, and the same for the raw log in a ring of the same size.
Totals are summed over the seeds of an app; rates use the summed mote time.
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import zlib
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "fidelity"))
import fidelity  # noqa: E402  (the examples, their stimuli and the tool lookup)

PLATFORMS = {"micaz": ("avr", "atmega128"), "telosb": ("msp430", "msp430f1611")}
TIMEOUT = 900

# Raw log (spec/trace-size.md): a 4-byte position and a 1-byte kind per event, then every
# field at full width: ids and counts 2 bytes, a scalar input at the width of its site (the
# whole bytes of the largest value the run read there), payloads with a 2-byte length.
RAW_EVENT = 5
RAW_FIELDS = {
    "ENTRY": 2, "EXIT": 2, "IRQ": 4, "IRQ_EXIT": 2, "SCHED": 2, "SEND": 6, "RECV": 6,
    "SKIP_BEGIN": 2, "SKIP_END": 2, "CHECK": 4, "VIOLATION": 4,
    "CHECKPOINT": 4, "EFFECT": 4, "INPUT_BYTES": 4, "INPUT": 2,
}
SOURCE_OF = {
    "ENTRY": "entry/exit", "EXIT": "entry/exit", "IRQ": "irq", "IRQ_EXIT": "irq",
    "SCHED": "sched", "CHECKPOINT": "checkpoint", "SEND": "send/recv", "RECV": "send/recv",
    "EFFECT": "effect", "SKIP_BEGIN": "skip", "SKIP_END": "skip", "CHECK": "check",
    "VIOLATION": "check",
}
ORDER = ["entry/exit", "irq", "sched", "checkpoint", "input", "send/recv", "effect", "skip",
         "check", "pad"]


def run(cmd, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", "timed out after %d s: %s" % (timeout, " ".join(cmd))


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def value_bytes(v):
    n = 1
    while v >= 1 << (8 * n):
        n *= 2
    return n


class Tally:
    """Counts for one subject (an example or an app) over its seeds."""

    def __init__(self):
        self.rows = OrderedDict()      # source -> [records, bytes, raw bytes]
        self.site_width = {}           # input site -> widest value in bytes
        self.written = 0               # bytes the runtime wrote (wraps * buf + head), PAD incl.
        self.seconds = 0.0
        self.runs = 0
        self.ring = None               # (buf_size, seg_size)
        self.stream = bytearray()      # the records' bytes in order (for the zlib reference)
        self.segments = []             # each run's ring segments, each its bytes (PAD incl.)

    def add(self, source, nbytes, raw):
        r = self.rows.setdefault(source, [0, 0, 0])
        r[0] += 1
        r[1] += nbytes
        r[2] += raw


def decode(dump, wmap, chunks, tally, errors):
    """Adds every record of the --full-trace chunks to the tally; returns bytes of records."""
    total = 0
    inputs = []
    for path in chunks:
        rc, out, err = run([dump, "--json", "--map", wmap, path])
        if rc != 0:
            errors.append("%s: %s" % (path, first_line(err)))
            return None
        doc = json.loads(out)
        with open(path, "rb") as f:
            data = f.read()[32:]
        head = doc["header"]["head"]
        tally.stream += data[:head]
        seg = doc["header"]["seg_size"]
        tally.segments += [data[o:min(o + seg, head)] for o in range(0, head, seg)]
        for r in doc["records"]:
            kind, size = r["kind"], r["size"]
            total += size
            if kind in ("INPUT", "INPUT_BYTES"):
                inputs.append(r)
                continue
            raw = RAW_EVENT + RAW_FIELDS[kind] + len(r.get("bytes", "")) // 2
            tally.add(SOURCE_OF[kind], size, raw)
    for r in inputs:
        where = "input %s:%s %s" % (os.path.basename(r.get("file", "?")), r.get("line", "?"),
                                    r.get("function", "?"))
        if r["kind"] == "INPUT":
            w = tally.site_width.get(where, 1)
            tally.site_width[where] = max(w, value_bytes(int(r["value"])))
    for r in inputs:
        where = "input %s:%s %s" % (os.path.basename(r.get("file", "?")), r.get("line", "?"),
                                    r.get("function", "?"))
        if r["kind"] == "INPUT":
            raw = RAW_EVENT + RAW_FIELDS["INPUT"] + tally.site_width[where]
        else:
            raw = RAW_EVENT + RAW_FIELDS["INPUT_BYTES"] + len(r.get("bytes", "")) // 2
        tally.add(where, r["size"], raw)
    return total


def header_of(path):
    with open(path, "rb") as f:
        h = f.read(32)
    if len(h) < 32 or h[:4] != b"WTRB":
        return None
    buf, seg, head = (int.from_bytes(h[o:o + 2], "little") for o in (12, 14, 16))
    wraps = int.from_bytes(h[20:24], "little")
    open_ = int.from_bytes(h[30:32], "little")
    if open_ & 0x8000:
        head = open_ & 0x7FFF
    return buf, seg, head, wraps


class Bench:
    def __init__(self, args):
        self.a = args
        self.bin = fidelity.find_bin(args.bin)
        self.cc, self.sim, self.dump = (os.path.join(self.bin, t) for t in
                                        ("wsn-cc", "wsn-sim", "wsn-trace-dump"))
        for t in (self.cc, self.sim, self.dump):
            if not os.access(t, os.X_OK):
                sys.exit("tracesize.py: %s not found (use --bin)" % t)

    def measure(self, name, elf, wmap, mcu, freq_hint, seeds, sim_args, max_cycles):
        tally, errors = Tally(), []
        for seed in seeds:
            out = os.path.join(self.a.work_dir, name, "seed-%d" % seed)
            cmd = [self.sim, "run", elf, "--mcu", mcu, "--seed", str(seed), "-o", out,
                   "--max-cycles", str(max_cycles), "--full-trace"] + sim_args(seed)
            rc, _, err = run(cmd)
            if rc != 0:
                errors.append("seed %d: wsn-sim exit %s: %s" % (seed, rc, first_line(err)))
                continue
            with open(os.path.join(out, "run.json")) as f:
                info = json.load(f)
            chunks = sorted(glob.glob(os.path.join(out, "full", "*.wtr")))
            hdr = header_of(os.path.join(out, "trace.wtr"))
            if not chunks or hdr is None:
                errors.append("seed %d: no full trace" % seed)
                continue
            if decode(self.dump, wmap, chunks, tally, errors) is None:
                continue
            buf, seg, head, wraps = hdr
            tally.ring = (buf, seg)
            tally.written += wraps * buf + head
            tally.seconds += info["cycles"] / float(info.get("frequency") or freq_hint)
            tally.runs += 1
        return tally, errors

    # -- subjects ---------------------------------------------------------------------------
    def examples(self):
        names = self.a.examples.split(",") if self.a.examples else [e.name for e in
                                                                     fidelity.EXAMPLES]
        for ex in fidelity.EXAMPLES:
            if ex.name not in names:
                continue
            d = os.path.join(self.a.work_dir, ex.name)
            os.makedirs(d, exist_ok=True)
            srcs = []
            for g in ex.sources:
                srcs += sorted(glob.glob(os.path.join(ROOT, g)))
            out = os.path.join(d, "fw")
            cmd = [self.cc, "--target=avr", "--mcu=" + fidelity.MCU, "-o", out] + \
                ["-I" + os.path.join(ROOT, i) for i in ["examples/common"] + ex.includes] + \
                srcs + self.a.wsn_cc_arg
            rc, _, err = run(cmd)
            if rc != 0:
                yield ex.name, None, ["build: " + first_line(err)]
                continue
            stim = ex.stimulus
            tally, errors = self.measure(
                ex.name, out + ".elf", out + ".wmap", fidelity.MCU, 7372800, self.seeds(),
                lambda s, st=stim, n=ex.name: st(fidelity.rng_for(n, s, "stimulus"),
                                                fidelity.MCUS[fidelity.MCU]),
                self.a.max_cycles or ex.max_cycles)
            yield ex.name, tally, errors

    def apps(self, appdir):
        target, mcu = PLATFORMS[self.a.platform]
        freq = 7372800 if target == "avr" else 4194304
        for name in sorted(os.listdir(appdir)):
            path = os.path.join(appdir, name)
            src = os.path.join(path, "app.c")
            if not os.path.isfile(src):
                continue
            inv = os.path.join(path, "invariants.c")
            d = os.path.join(self.a.work_dir, name)
            os.makedirs(d, exist_ok=True)
            out = os.path.join(d, "fw")
            cmd = [self.cc, "--target=" + target, "--mcu=" + mcu, "-o", out, src] + \
                self.a.wsn_cc_arg
            if os.path.exists(inv):
                cmd += ["--check-at=writes", inv]
            rc, _, err = run(cmd)
            if rc != 0:
                yield name, None, ["build: " + first_line(err)]
                continue
            extra = []
            sa = os.path.join(path, "sim-args")
            if os.path.exists(sa):
                with open(sa) as f:
                    extra = shlex.split(f.read())
            tally, errors = self.measure(name, out + ".elf", out + ".wmap", mcu, freq,
                                         self.seeds(), lambda s, e=extra: list(e),
                                         int(self.a.seconds * freq))
            yield name, tally, errors

    def seeds(self):
        return range(self.a.start, self.a.start + self.a.seeds)


def deflate_raw(data):
    """Bytes of raw deflate (no zlib header or checksum) at level 9."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return len(c.compress(bytes(data)) + c.flush())


def fmt_rate(b, s):
    return "%.0f" % (b / s) if s else "-"


def report(name, tally, errors, out):
    print("\n== %s" % name, file=out)
    for e in errors[:5]:
        print("   ! %s" % e, file=out)
    if tally is None or not tally.runs:
        return None
    recs = sum(r[1] for r in tally.rows.values())
    pad = max(0, tally.written - recs)
    if pad:
        tally.rows["pad"] = [0, pad, 0]
    s = tally.seconds
    hdr = "%-46s %8s %9s %8s %10s %7s" % ("source", "records", "bytes", "B/s", "raw bytes",
                                           "w/raw")
    print("%d run(s), %.3f mote s, ring %d B in %d-byte segments" % (
        tally.runs, s, tally.ring[0], tally.ring[1]), file=out)
    print(hdr, file=out)
    print("-" * len(hdr), file=out)

    def key(src):
        base = "input" if src.startswith("input") else src
        return (ORDER.index(base) if base in ORDER else len(ORDER), src)
    tot = [0, 0, 0]
    for src in sorted(tally.rows, key=key):
        n, b, raw = tally.rows[src]
        tot = [tot[0] + n, tot[1] + b, tot[2] + raw]
        print("%-46s %8d %9d %8s %10d %7s" % (src[:46], n, b, fmt_rate(b, s), raw,
                                             "%.2f" % (b / raw) if raw else "-"), file=out)
    print("-" * len(hdr), file=out)
    print("%-46s %8d %9d %8s %10d %7s" % ("total", tot[0], tot[1], fmt_rate(tot[1], s), tot[2],
                                         "%.2f" % (tot[1] / tot[2]) if tot[2] else "-"),
          file=out)
    keep = tally.ring[0] - tally.ring[1]
    cov = keep * s / tot[1] if tot[1] else float("inf")
    cov_raw = keep * s / tot[2] if tot[2] else float("inf")
    z = len(zlib.compress(bytes(tally.stream), 9))
    zseg = sum(deflate_raw(g) for g in tally.segments)
    saving = 100.0 * (1 - tot[1] / tot[2]) if tot[2] else 0.0
    print("bytes saved against the raw log: %.1f%%; ring coverage %.3f mote s (raw log in the "
          "same ring: %.3f s); zlib -9 of the records: %d B (%.0f%% of written)" % (
              saving, cov, cov_raw, z, 100.0 * z / len(tally.stream) if tally.stream else 0),
          file=out)
    # A ring segment must decode on its own (a wrap drops the segment before it), so no
    # encoder may refer to an earlier segment's bytes: deflate of each segment alone bounds
    # what a general-purpose coder could still save under that rule (spec/trace-size.md 13).
    print("deflate -9 of each segment alone: %d B (%.0f%% of written; %.1f%% saved against the "
          "raw log)" % (zseg, 100.0 * zseg / tot[1] if tot[1] else 0,
                        100.0 * (1 - zseg / tot[2]) if tot[2] else 0.0), file=out)
    return {"name": name, "runs": tally.runs, "mote_seconds": s, "records": tot[0],
            "bytes": tot[1], "raw_bytes": tot[2], "saving_pct": saving,
            "coverage_s": cov, "coverage_raw_s": cov_raw, "zlib_bytes": z,
            "segment_deflate_bytes": zseg,
            "ring": list(tally.ring),
            "sources": {k: {"records": v[0], "bytes": v[1], "raw_bytes": v[2]}
                        for k, v in tally.rows.items()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--examples", help="comma-separated fidelity examples (default: all)")
    ap.add_argument("--no-examples", action="store_true", help="only the --apps directories")
    ap.add_argument("--apps", action="append", default=[], help="a bench/tinyos app directory")
    ap.add_argument("--platform", choices=sorted(PLATFORMS), default="micaz")
    ap.add_argument("--seconds", type=float, default=10.0,
                    help="mote seconds per app run when no violation stops it first")
    ap.add_argument("--max-cycles", type=int, help="cycle bound of the example runs")
    ap.add_argument("--work")
    ap.add_argument("--json-out")
    ap.add_argument("--wsn-cc-arg", action="append", default=[],
                    help="one more wsn-cc argument for every build, the examples' and the "
                         "--apps ones (write it with '=' when it starts with a dash: "
                         "--wsn-cc-arg=--effect-keys=4)")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error("--seeds must be at least 1")
    for d in a.apps:
        if not os.path.isdir(d):
            ap.error("--apps %s: not a directory" % d)
    a.work_dir = os.path.abspath(a.work or tempfile.mkdtemp(prefix="tracesize-"))
    os.makedirs(a.work_dir, exist_ok=True)
    b = Bench(a)
    results, failed = [], 0
    subjects = [] if a.no_examples else [b.examples()]
    subjects += [b.apps(d) for d in a.apps]
    for gen in subjects:
        for name, tally, errors in gen:
            r = report(name, tally, errors, sys.stdout)
            sys.stdout.flush()
            if r is None:
                failed += 1
            else:
                results.append(r)
    if results:
        print("\n%-24s %6s %9s %10s %8s %11s %11s" % ("subject", "runs", "bytes", "raw bytes",
                                                        "saved", "coverage s", "raw cov s"))
        for r in results:
            print("%-24s %6d %9d %10d %7.1f%% %11.3f %11.3f" % (
                r["name"][:24], r["runs"], r["bytes"], r["raw_bytes"], r["saving_pct"],
                r["coverage_s"], r["coverage_raw_s"]))
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
