#!/usr/bin/env python3
"""Mutation campaign against the built tools for the text inputs (issue 21, "Done when":
mutated maps, SensorC and topology files). Each seed file is damaged by one kind of mutation
(one to three times), handed to the tools that read it, and every run is classified:

  ok         exit 0 (the mutant is still a valid input; for maps: "same" if the JSON is
             unchanged, e.g. a space added, else "changed")
  located    exit 1 or 2 with an error that names the file and where in it (line:column,
             a JSON path such as functions[3].name, or a byte offset)
  unlocated  exit 1 or 2 with an error that does not say where
  crash      a signal, another exit code, or a sanitizer / LLVM crash report on stderr
  hang       no exit within --timeout seconds

Maps carry a content digest (spec/trace-map.md): every edit of a map wsn-cc wrote is refused
at line 2 unless the error before it (JSON, keys, sanity bounds) says more. --reseal-maps
recomputes the digest of every map mutant that still parses as JSON, as another (buggy)
writer would have left it, to test what stands behind the digest: the sanity bounds and the
preprocessor's layout checks. A resealed map can rename a global to another global of the
program; replay then diverges (exit 3), counted in its own column.

Readers and commands:
  map       wsn-replay FW.replay.bc --trace T.wtr --elf FW.elf --map MUTANT (sense-send)
  sensorc   sensorc check MUTANT; sensorc decompose MUTANT --nodes 4 -o DIR
  topology  sensorc routes MUTANT --protocol AODV 1 0;
            wsn-sim net MUTANT --node 0-7=FW.elf --seed 1 --seconds 0.01 -o DIR

  python3 bench/fuzz/mutate_inputs.py --bin build-asan/bin [--n 100] [--seed 1] [--only map]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")
DICT = os.path.join(ROOT, "bench", "fuzz", "dict")

CRASH_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
               "Stack dump:", "PLEASE submit a bug report", "Segmentation fault", "Aborted")
EXTREMES = ["0", "-1", "65535", "65536", "4294967295", "4294967296", "-2147483649",
            "18446744073709551616", "1e309", "-0.0", "nan", "99999999999999999999999"]


def dict_tokens(name):
    toks = []
    for line in open(os.path.join(DICT, name + ".dict")):
        line = line.strip()
        if line.startswith('"') and line.endswith('"'):
            toks.append(line[1:-1].encode().decode("unicode_escape").encode("latin-1"))
    return toks


# --- text mutators (bytes in, bytes out) -------------------------------------------------
def m_bitflip(r, b, toks):
    i = r.randrange(len(b))
    b[i] ^= 1 << r.randrange(8)


def m_byteset(r, b, toks):
    b[r.randrange(len(b))] = r.choice([0, 0x7F, 0xFF, r.randrange(256)])


def m_delete(r, b, toks):
    i = r.randrange(len(b))
    del b[i:i + r.randrange(1, 17)]


def m_duplicate(r, b, toks):
    i = r.randrange(len(b))
    chunk = b[i:i + r.randrange(1, 65)]
    j = r.randrange(len(b) + 1)
    b[j:j] = chunk


def m_token(r, b, toks):
    j = r.randrange(len(b) + 1)
    b[j:j] = r.choice(toks)


def m_lines(r, b, toks):
    lines = bytes(b).split(b"\n")
    i, j = r.randrange(len(lines)), r.randrange(len(lines))
    op = r.randrange(3)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    b[:] = b"\n".join(lines)


def m_number(r, b, toks):
    nums = list(re.finditer(rb"-?\d+(\.\d+)?", bytes(b)))
    if not nums:
        return m_token(r, b, toks)
    m = r.choice(nums)
    b[m.start():m.end()] = r.choice(EXTREMES).encode()


TEXT_MUTATORS = [("bit flip", m_bitflip), ("byte set", m_byteset), ("span deleted", m_delete),
                 ("span duplicated", m_duplicate), ("token inserted", m_token),
                 ("line deleted/copied/swapped", m_lines), ("number made extreme", m_number)]


# --- JSON-aware mutators for maps -------------------------------------------------------
def json_leaves(v, path=()):
    if isinstance(v, dict):
        yield path, v
        for k, x in v.items():
            yield from json_leaves(x, path + (k,))
    elif isinstance(v, list):
        yield path, v
        for i, x in enumerate(v):
            yield from json_leaves(x, path + (i,))
    else:
        yield path, v


def json_set(root, path, value):
    cur = root
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value


def m_json_value(r, b, toks):
    """One scalar anywhere in the map replaced: an extreme number, another type, another
    string, or the value of another scalar of the map."""
    d = json.loads(bytes(b))
    scalars = [(p, v) for p, v in json_leaves(d) if p and not isinstance(v, (dict, list))]
    p, v = r.choice(scalars)
    choice = r.randrange(4)
    if choice == 0:
        new = r.choice([0, -1, 65535, 65536, 2 ** 32, 2 ** 64, 1.5, -2 ** 31 - 1])
    elif choice == 1:
        new = r.choice([None, True, "", "x" * 300, [], {}])
    elif choice == 2:
        new = r.choice(scalars)[1]
    else:
        new = (v + r.choice([-1, 1])) if isinstance(v, int) and not isinstance(v, bool) \
            else (v[:-1] if isinstance(v, str) and v else 1)
    json_set(d, p, new)
    b[:] = json.dumps(d, indent=1).encode()


def m_json_structure(r, b, toks):
    """A key removed, a list entry removed or duplicated, or two entries of a list swapped."""
    d = json.loads(bytes(b))
    conts = [(p, v) for p, v in json_leaves(d) if isinstance(v, (dict, list)) and v]
    p, v = r.choice(conts)
    if isinstance(v, dict):
        del v[r.choice(list(v))]
    else:
        op = r.randrange(3)
        i = r.randrange(len(v))
        if op == 0:
            del v[i]
        elif op == 1:
            v.insert(r.randrange(len(v) + 1), json.loads(json.dumps(v[i])))
        else:
            j = r.randrange(len(v))
            v[i], v[j] = v[j], v[i]
    b[:] = json.dumps(d, indent=1).encode()


MAP_MUTATORS = [("JSON value changed", m_json_value),
                ("JSON key/entry removed, copied, swapped", m_json_structure)] + TEXT_MUTATORS

LOCATED = re.compile(r":\d+:\d+|:\d+: |\[\d+:\d+, byte=\d+\]|line \d+|offset \d+|"
                     r"\w+\[\d+\]|top level|missing key|key '|"
                     r"(anchor|effect site|site|function|irq|invariant|task) \d+")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def reseal_map(b):
    """The map re-written with a matching digest (spec/trace-map.md, "Content digest"), if
    it parses as a JSON object; else unchanged."""
    try:
        d = json.loads(bytes(b))
    except ValueError:
        return
    if not isinstance(d, dict):
        return
    d.pop("digest", None)
    body = json.dumps(d, indent=2).encode()[2:] + b"\n"
    b[:] = b'{\n  "digest": "fnv1a64:%016x",\n' % fnv1a64(body) + body


def run(cmd, timeout, cwd=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return "hang", ""
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode == 3 and "replay diverged" in err and not any(m in err for m in CRASH_MARKS):
        return "diverged", err
    if p.returncode < 0 or p.returncode not in (0, 1, 2) or any(m in err for m in CRASH_MARKS):
        return "crash", err
    if p.returncode == 0:
        return "ok", err
    # `sensorc routes` answers "no route" with exit 1 (a damaged gain or noise can cut the
    # path): an answer about a valid topology, not an error.
    if p.returncode == 1 and p.stdout.strip() == b"no route" and not err.strip():
        return "ok", err
    return "err", err


def classify(kind, err, mutant_name):
    if kind != "err":
        return kind
    # The reader's error names the damaged file and where in it.
    for line in err.splitlines():
        if mutant_name in line and LOCATED.search(line.split(mutant_name, 1)[1]):
            return "located"
    return "unlocated"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--n", type=int, default=100, help="mutants per kind and seed group")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", default="map,sensorc,topology")
    ap.add_argument("--show", type=int, default=5, help="examples shown per bad outcome")
    ap.add_argument("--reseal-maps", action="store_true",
                    help="give every map mutant a matching content digest")
    ap.add_argument("--keep", help="write every unlocated/crash/hang mutant (and every changed "
                    "map that replayed) to this folder")
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    r = random.Random(a.seed)
    only = a.only.split(",")
    B = lambda t: os.path.join(a.bin, t)
    bad = []  # (reader, kind, command, first stderr lines)
    rows = []
    with tempfile.TemporaryDirectory(prefix="wsn-mutate-") as tmp:
        fw = os.path.join(tmp, "ss")
        subprocess.run([B("wsn-cc"), "--target=avr", "--mcu=atmega128", "-I",
                        os.path.join(EX, "common"), "-o", fw,
                        os.path.join(EX, "sense-send/SenseC.c"),
                        os.path.join(EX, "sense-send/invariants.c"),
                        os.path.join(EX, "common/scheduler.c")], check=True)
        runDir = os.path.join(tmp, "run")
        subprocess.run([B("wsn-sim"), "run", fw + ".elf", "--seed", "1", "--adc", "0:1023",
                        "-o", runDir], check=True, capture_output=True)
        trace = os.path.join(runDir, "trace.wtr")
        shutil.copy(os.path.join(EX, "sensorc", "topology.txt"), tmp)
        for h in ("link_creation_app.h", "loop_free_app.h", "app_common.h"):
            shutil.copy(os.path.join(EX, "sensorc", h), tmp)

        def readers(name):
            if name == "map":
                return [("wsn-replay --map", lambda f: [
                    B("wsn-replay"), fw + ".replay.bc", "--trace", trace, "--elf", fw + ".elf",
                    "--map", f, "--timeout", "20"])]
            if name == "sensorc":
                return [("sensorc check", lambda f: [B("sensorc"), "check", f]),
                        ("sensorc decompose", lambda f: [
                            B("sensorc"), "decompose", f, "--nodes", "4", "-o",
                            os.path.join(tmp, "dec")])]
            return [("sensorc routes", lambda f: [B("sensorc"), "routes", f, "--protocol",
                                                  "AODV", "1", "0"]),
                    ("wsn-sim net", lambda f: [B("wsn-sim"), "net", f, "--node",
                                               "0-7=" + fw + ".elf", "--seed", "1",
                                               "--seconds", "0.01", "-o",
                                               os.path.join(tmp, "net")])]

        seeds = {
            "map": [open(fw + ".wmap", "rb").read()],
            "sensorc": [open(os.path.join(EX, "sensorc", f), "rb").read() for f in
                        ("fig3_5_link_creation.sg", "fig3_2_loop_free.sg",
                         "fig3_5_link_creation_nonet.sg")] +
                       [open(os.path.join(ROOT, "bench/fuzz/corpus/sensorc/rich.sg"), "rb")
                        .read().replace(b"../../../examples/sensorc/topology.txt",
                                        b"topology.txt")],
            "topology": [open(os.path.join(EX, "sensorc", "topology.txt"), "rb").read(),
                         open(os.path.join(EX, "radio", "netsense.topo"), "rb").read()],
        }
        dicts = {"map": dict_tokens("trace_map"), "sensorc": dict_tokens("sensorc"),
                 "topology": dict_tokens("topology")}
        ext = {"map": ".wmap", "sensorc": ".sg", "topology": ".topo"}
        print("%-9s %-40s %-18s %5s %5s %5s %7s %9s %8s %5s %4s" % (
            "input", "mutation", "reader", "runs", "ok", "ok*", "located", "unlocated",
            "diverged", "crash", "hang"))
        for name in ("map", "sensorc", "topology"):
            if name not in only:
                continue
            muts = MAP_MUTATORS if name == "map" else TEXT_MUTATORS
            for mname, mut in muts:
                counts = {}
                for k in range(a.n):
                    orig = r.choice(seeds[name])
                    b = bytearray(orig)
                    for _ in range(r.randrange(1, 4)):
                        if not b:
                            break
                        try:
                            mut(r, b, dicts[name])
                        except ValueError:  # a JSON mutator on text damaged before
                            m_bitflip(r, b, dicts[name])
                    if name == "map" and a.reseal_maps:
                        reseal_map(b)
                    if bytes(b) == orig:
                        continue
                    mname_file = "mutant%s" % ext[name]
                    f = os.path.join(tmp, mname_file)
                    open(f, "wb").write(b)
                    for rname, cmd in readers(name):
                        c = cmd(f)
                        kind, err = run(c, a.timeout, cwd=tmp)
                        cls = classify(kind, err, mname_file)
                        if cls == "ok" and name == "map":
                            try:
                                same = json.loads(bytes(b)) == json.loads(orig)
                            except ValueError:
                                same = False
                            cls = "ok" if same else "ok*"
                        elif cls == "ok":
                            cls = "ok*" if bytes(b) != orig else "ok"
                        key = rname
                        counts.setdefault(key, {}).setdefault(cls, 0)
                        counts[key][cls] += 1
                        if cls in ("unlocated", "diverged", "crash", "hang") or (
                                cls == "ok*" and name == "map"):
                            bad.append((name, mname, rname, cls, " ".join(c),
                                        "\n      ".join(err.strip().splitlines()[:4]),
                                        bytes(b)))
                for rname, c in counts.items():
                    row = (name, mname, rname, sum(c.values()), c.get("ok", 0), c.get("ok*", 0),
                           c.get("located", 0), c.get("unlocated", 0), c.get("diverged", 0),
                           c.get("crash", 0), c.get("hang", 0))
                    rows.append(row)
                    print("%-9s %-40s %-18s %5d %5d %5d %7d %9d %8d %5d %4d" % row, flush=True)
    tot = [sum(x[i] for x in rows) for i in range(3, 11)]
    print("%-9s %-40s %-18s %5d %5d %5d %7d %9d %8d %5d %4d" % (("all", "", "") + tuple(tot)))
    print("ok: exit 0 with the same input (maps: the same JSON); ok*: exit 0, the mutant is "
          "another valid input")
    shown = {}
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    for i, (name, mname, rname, cls, cmd, err, data) in enumerate(bad):
        if a.keep:
            open(os.path.join(a.keep, "%s-%d-%s" % (cls, i, name)), "wb").write(data)
        k = (rname, cls)
        shown[k] = shown.get(k, 0) + 1
        if shown[k] > a.show:
            continue
        print("%s: %s (%s): %s\n   $ %s\n      %s" % (cls, rname, name, mname, cmd, err))
    return 1 if any(b[3] in ("crash", "hang") for b in bad) else 0


if __name__ == "__main__":
    raise SystemExit(main())
