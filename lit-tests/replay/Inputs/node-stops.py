"""node-stops.py NETDIR: prints how each node of a `wsn-sim net` run stopped (its run.json's
"stop", node 0 first), so that a control network's test can require every node to have run
its time: a node stopped by a fault (a stack overflow, say) leaves the network quiet, which
a "no violation" check alone takes for success."""
import json
import os
import sys

net = sys.argv[1]
with open(os.path.join(net, "net.json")) as f:
    nodes = json.load(f)["nodes"]  # the node ids
stops = []
for n in nodes:
    with open(os.path.join(net, "node%d" % n, "run.json")) as f:
        stops.append(json.load(f)["stop"])
print(" ".join(stops))
