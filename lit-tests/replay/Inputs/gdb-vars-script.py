"""Writes the gdb command file of gdb-variables.test: a breakpoint where the scheduler runs a
task (found by its text, so the test does not depend on line numbers), then prints a local
and globals of the mote program."""
import re
import sys

src = sys.argv[1]
lines = open(src).read().split("\n")
line = next((i + 1 for i, l in enumerate(lines) if "SchedulerBasicP$TaskBasic$runTask(id);" in l),
            None)
if line is None:
    sys.exit("gdb-vars-script.py: the runTask call is not in %s" % src)
# With the plain report (argv[2]): stop only at the task that sees the report's sample count
# (the trace may start before an earlier send task).
cond = ""
if len(sys.argv) > 2:
    m = re.search(r"uint16_t SenseC\$samples = (\d+)", open(sys.argv[2]).read())
    if not m:
        sys.exit("gdb-vars-script.py: no SenseC$samples in %s" % sys.argv[2])
    cond = " if SenseC$samples == %s" % m.group(1)
for cmd in ["set breakpoint pending on", "set confirm off", "set pagination off", "set width 0",
            "break scheduler.c:%d%s" % (line, cond), "run", "print id", "info locals",
            "print SenseC$period", "print SenseC$samples", "print SchedulerBasicP$m_head",
            "print SenseC$history", "print &SenseC$period", "kill"]:
    print(cmd)
