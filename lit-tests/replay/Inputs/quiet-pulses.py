"""quiet-pulses.py DUMP: between the first and the last effect of the call skipped at
irq-window.c:38 (NestC$window, whose interrupt window the INT0 pulses fall into), prints how
much NestC$pulses grew and how many INT0 handlers the trace records in that stretch. Handlers
taken inside a skipped call are recorded quietly (spec/trace-format.md section 2.1), so the
count grows by more than the recorded handlers."""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
effects = [(i, int(m.group(1))) for i, l in enumerate(lines)
           for m in [re.search(r"EFFECT site=\d+ .*irq-window\.c:38:.*NestC\$pulses=(\d+)", l)]
           if m]
first, last = effects[0], effects[-1]
irqs = sum(1 for l in lines[first[0]:last[0]] if re.search(r"\bIRQ irq=\d+ .*__vector_1 ", l))
print("pulses grew %d, recorded INT0 handlers %d, quiet %s" %
      (last[1] - first[1], irqs, "yes" if last[1] - first[1] > irqs else "no"))
