"""Writes an edited copy of a trace map (.wmap, spec/trace-map.md): the edits a hand, a script
or a damaged disk could make.

  map-edit.py IN OUT [--reseal] [--drop-digest] [PATH=VALUE ...]

PATH is a dotted JSON path (anchors.1.vars.6.name; list indices are numbers), VALUE a JSON
value (a bare word that is not JSON is taken as a string). Without edits or options the
bytes are copied. The copy is written as JSON with a two-space indent, so any edit changes
the bytes after the digest line: the content digest no longer matches unless --reseal
recomputes it (as a map written by another, buggy writer would carry: what the sanity bounds
and the preprocessor's layout checks are for). --drop-digest removes the key, as in maps
written before the digest existed.
"""
import json
import sys


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    args = sys.argv[1:]
    reseal = "--reseal" in args
    drop = "--drop-digest" in args
    args = [a for a in args if a not in ("--reseal", "--drop-digest")]
    src, dst, edits = args[0], args[1], args[2:]
    raw = open(src, "rb").read()
    if not edits and not reseal and not drop:
        open(dst, "wb").write(raw)
        return
    m = json.loads(raw)
    for e in edits:
        path, value = e.split("=", 1)
        try:
            v = json.loads(value)
        except ValueError:
            v = value
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        cur = m
        for k in keys[:-1]:
            cur = cur[k]
        cur[keys[-1]] = v
    m.pop("digest", None)
    body = json.dumps(m, indent=2).encode() + b"\n"
    assert body.startswith(b"{\n")
    body = body[2:]
    if drop:
        out = b"{\n" + body
    else:
        old = json.loads(raw).get("digest", "fnv1a64:" + "0" * 16)
        digest = "fnv1a64:%016x" % fnv1a64(body) if reseal else old
        out = b'{\n  "digest": "' + digest.encode() + b'",\n' + body
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main()
