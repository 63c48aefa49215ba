"""Writes the gdb command file of gdb.test: breakpoints on source lines of the mote program,
found by their text (so the test does not depend on line numbers)."""
import sys

src = sys.argv[1]
lines = open(src).read().split("\n")


def line_of(text):
    for i, l in enumerate(lines):
        if text in l:
            return i + 1
    sys.exit("gdb-script.py: '%s' not found in %s" % (text, src))


print("set breakpoint pending on")
print("set confirm off")
print("set pagination off")
print("set width 0")
# In the ADC handler (readDone is inlined into it): reached only when replay triggers the
# recorded interrupt.
print("break SenseC.c:%d" % line_of("SenseC$period = (uint16_t)"))
print("commands\nbt 2\ncontinue\nend")
# In the sending task, the invariant check that the recorded run violated. Which of the two
# stops first depends on where the retained trace starts: every stop prints its backtrace
# and goes on, to the end of the replay.
print("break SenseC.c:%d" % line_of("WSN_CHECK(sample_period);"))
print("commands\nbt 3\ncontinue\nend")
print("run")
