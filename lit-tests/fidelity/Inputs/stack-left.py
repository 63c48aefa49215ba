"""stack-left.py WSN-CC-OUTPUT RESERVE SEG: prints "reserve kept" when the bytes wsn-cc's
geometry line leaves for the stack are at least RESERVE and less than one more segment with
its check value (SEG + 2) above it -- what --trace-buf=max promises -- else "left N"."""
import re
import sys

text, reserve, seg = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
left = int(re.search(r"(\d+) left for the stack", text).group(1))
print("reserve kept" if reserve <= left < reserve + seg + 2 else "left %d" % left)
