"""Writes the gdb command file of gdb-variables.test: a breakpoint where the scheduler runs a
task (found by its text, so the test does not depend on line numbers), then prints a local
and globals of the mote program."""
import sys

src = sys.argv[1]
lines = open(src).read().split("\n")
line = next((i + 1 for i, l in enumerate(lines) if "SchedulerBasicP$TaskBasic$runTask(id);" in l),
            None)
if line is None:
    sys.exit("gdb-vars-script.py: the runTask call is not in %s" % src)
for cmd in ["set breakpoint pending on", "set confirm off", "set pagination off", "set width 0",
            "break scheduler.c:%d" % line, "run", "print id", "info locals",
            "print SenseC$period", "print SenseC$samples", "print SchedulerBasicP$m_head",
            "print SenseC$history", "print &SenseC$period", "kill"]:
    print(cmd)
