import glob, json, os, sys
res = json.load(open(sys.argv[1]))
for r in res:
    src = r["sources"]
    assert sum(v["records"] for v in src.values()) == r["records"], r["name"]
    assert sum(v["bytes"] for v in src.values()) == r["bytes"], r["name"]
    assert sum(v["raw_bytes"] for v in src.values()) == r["raw_bytes"], r["name"]
    assert r["raw_bytes"] > r["bytes"] - src.get("pad", {"bytes": 0})["bytes"], r["name"]
    # Independently of the script's decoding: the final header's bytes written since reset.
    tr = glob.glob(os.path.join(sys.argv[2], r["name"], "seed-*", "trace.wtr"))
    assert len(tr) == 1, tr
    h = open(tr[0], "rb").read(32)
    buf, head = int.from_bytes(h[12:14], "little"), int.from_bytes(h[16:18], "little")
    wraps = int.from_bytes(h[20:24], "little")
    if int.from_bytes(h[30:32], "little") & 0x8000:
        head = int.from_bytes(h[30:32], "little") & 0x7FFF
    assert r["bytes"] == wraps * buf + head, (r["name"], r["bytes"], wraps * buf + head)
    keep = r["ring"][0] - r["ring"][1]
    assert abs(r["coverage_s"] - keep * r["mote_seconds"] / r["bytes"]) < 1e-9
    print(r["name"], "consistent")
