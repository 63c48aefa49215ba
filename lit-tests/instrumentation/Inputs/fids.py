"""Prints, for each trace map given, the functions that have a fid (ENTRY/EXIT records), sorted:
one line per map, named by its file name."""
import json
import os
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        m = json.load(f)
    print("%s: %s" % (os.path.basename(path), " ".join(sorted(f["name"] for f in m["functions"]))))
