"""size_budget.py OBJ MAX [OBJ MAX ...]: fails when an object's flash (text + data) is over
MAX bytes; prints each size."""
import subprocess
import sys

args = sys.argv[1:]
bad = False
for obj, limit in zip(args[::2], args[1::2]):
    out = subprocess.run(["llvm-size", obj], stdout=subprocess.PIPE, check=True).stdout.decode()
    text, data = (int(x) for x in out.splitlines()[1].split()[:2])
    print("%s: text %d data %d (budget %s)" % (obj, text, data, limit))
    if text + data > int(limit):
        print("over budget: %s" % obj)
        bad = True
sys.exit(1 if bad else 0)
