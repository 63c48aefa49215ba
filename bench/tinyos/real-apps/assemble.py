#!/usr/bin/env python3
"""Assembles the real nesC application directories that bench/tinyos/run.py, bench/codesize
and bench/tracesize take (--apps DIR): each app's app.c (the nesC compiler's output, never
committed here) beside the project's own invariants.c and nodes from this directory.

  assemble.py --out DIR [--mirror /work/.mirror] [--tinyos-apps TINYOS-MAIN]

sources.txt names each app's source:
  git     a public repository that commits build/<platform>/app.c: read with `git show
          COMMIT:PATH` from a local clone or mirror (MIRROR/owner+name/repo, the layout the
          workplace's fetch leaves; a plain clone at MIRROR/owner+name works too)
  tinyos  built from TinyOS sources with the nesC compiler (README.md says how): read from
          TINYOS-MAIN/PATH after `make micaz` in that app's directory
Every app.c is checked against the sha256 the measurements were taken on; an app whose
source is missing or differs is reported and left out. Writes DIR/micaz/APP and
DIR/telosb/APP (run.py takes the platform from the directory's name)."""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_git(mirror, repo, commit, path):
    base = os.path.join(mirror, repo.replace("/", "+"))
    for gitdir in (os.path.join(base, "repo"), base):
        if os.path.isdir(gitdir):
            r = subprocess.run(["git", "--git-dir" if gitdir.endswith("repo") else "-C",
                                gitdir, "show", "%s:%s" % (commit, path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode == 0:
                return r.stdout, None
            return None, "git show %s:%s in %s: %s" % (commit[:8], path, gitdir,
                                                        r.stderr.decode().strip())
    return None, "no clone of %s under %s (fetch github:%s)" % (repo, mirror, repo)


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--tinyos-apps", help="a tinyos-main tree whose apps were built for micaz")
    a = ap.parse_args()
    made, missing = [], []
    for line in open(os.path.join(HERE, "sources.txt")):
        if not line.strip() or line.startswith("#"):
            continue
        app, kind, repo, commit, path, sha = line.split()
        if kind == "git":
            data, why = read_git(a.mirror, repo, commit, path)
        elif a.tinyos_apps and os.path.exists(os.path.join(a.tinyos_apps, path)):
            data, why = open(os.path.join(a.tinyos_apps, path), "rb").read(), None
        else:
            data, why = None, "build %s from %s %s with nesC (README.md), then --tinyos-apps" % (
                path, repo, commit[:8])
        if data is not None and hashlib.sha256(data).hexdigest() != sha:
            data, why = None, "%s differs from the app.c measured (sha256 %s...)" % (path, sha[:12])
        if data is None:
            missing.append("%s: %s" % (app, why))
            continue
        dst = os.path.join(a.out, app)
        os.makedirs(dst, exist_ok=True)
        with open(os.path.join(dst, "app.c"), "wb") as f:
            f.write(data)
        for extra in ("invariants.c", "nodes", "sim-args", "topology"):
            src = os.path.join(HERE, app, extra)
            if os.path.exists(src):
                shutil.copy(src, dst)
        made.append(app)
    print("assembled %d app(s) in %s: %s" % (len(made), a.out, " ".join(made) or "none"))
    for m in missing:
        print("  left out %s" % m)
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
