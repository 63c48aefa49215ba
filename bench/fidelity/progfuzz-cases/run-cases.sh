#!/bin/sh
# run-cases.sh [BIN] [WORK] - build, record and replay every progfuzz case (README.md) and print
# one line per case: "reproduced" (the bug is fixed) or the replay's exit code and first message.
# Exit status 0 only when every case replays exactly.
BIN=${1:-$(dirname "$0")/../../../build/bin}
WORK=${2:-$(mktemp -d /tmp/progfuzz-cases.XXXXXX)}
HERE=$(cd "$(dirname "$0")" && pwd)
status=0
# case | wsn-cc options | wsn-sim options | seed | K
while IFS='|' read -r name ccopt simopt seed k; do
  d="$WORK/$name"
  rm -rf "$d" && mkdir -p "$d"
  [ "$ccopt" = "-" ] && ccopt=""
  [ "$simopt" = "-" ] && simopt=""
  if ! "$BIN/wsn-cc" --target=avr --mcu=atmega128 $ccopt -I "$HERE/../../../examples/common" \
      -o "$d/fw" "$HERE/$name.c" \
      > "$d/cc.txt" 2>&1; then
    echo "$name: wsn-cc failed (see $d/cc.txt)"; status=1; continue
  fi
  "$BIN/wsn-sim" run "$d/fw.elf" --seed "$seed" $simopt -o "$d/run" --stop-after-checks "$k" \
      > "$d/sim.txt" 2>&1
  "$BIN/wsn-replay" "$d/fw.replay.bc" --trace "$d/run/trace.wtr" --elf "$d/fw.elf" \
      --map "$d/fw.wmap" --stop-after-checks "$k" --expect-sram "$d/run/sram.bin" \
      > "$d/replay.txt" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "$name: reproduced"
  else
    echo "$name: wsn-replay exit $rc: $(grep -m1 -v '^ ' "$d/replay.txt")"
    status=1
  fi
done <<CASES
skip-local-out|-|-|1|50
skip-window-ptr-write|-|--irq int0:2000|3|3000
o0-atomic-sreg-local|-O0|-|1|400
indirect-atomic-input|-|--switches C:5000|1|2000
checkpoint-rest-irq|-O0 --trace-buf=512 --trace-seg=128|--uart 26002 --irq int0:99068|1|34
CASES
exit $status
