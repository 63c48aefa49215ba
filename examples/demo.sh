#!/usr/bin/env bash
# The end-to-end demo run by `./setup.sh demo`: Blink (thesis TC1) for MicaZ, traced with
# wsn-trace, run in wsn-sim until its invariant is violated, the trace decoded, and the same
# IR replayed on the desktop under ORC JIT against the simulator's memory snapshot.
#   examples/demo.sh [BUILD_DIR] [SEED]
set -uo pipefail
BUILD=$(cd "${1:-build}" && pwd)
SEED=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$BUILD/demo
BIN=$BUILD/bin
rm -rf "$OUT" && mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "1. build Blink for atmega128 (MicaZ) with tracing: wsn-cc"
"$BIN/wsn-cc" --target=avr --mcu=atmega128 -I "$ROOT/examples/common" -o "$OUT/blink" \
  "$ROOT"/examples/blink/*.c "$ROOT/examples/common/scheduler.c" || exit 1
/usr/lib/llvm-19/bin/llvm-size "$OUT/blink.elf"
echo "replay IR: $OUT/blink.replay.bc   trace map: $OUT/blink.wmap"

step "2. the PFDG the instrumentation was selected from (level 1)"
/usr/lib/llvm-19/bin/opt -load-pass-plugin="$BUILD/lib/WSNTrace.so" -passes='print<wsn-pfdg>' \
  -disable-output "$OUT/blink.replay.bc" 2>&1 | head -25

step "3. run it in wsn-sim (seed $SEED) until the invariant is violated"
"$BIN/wsn-sim" run "$OUT/blink.elf" --mcu atmega128 --seed "$SEED" --irq int0:5000 \
  --max-cycles 50000000 -o "$OUT/run" || exit 1
cat "$OUT/run/run.json"; echo

step "4. the retrieved trace: wsn-trace-dump (last records)"
"$BIN/wsn-trace-dump" "$OUT/run/trace.wtr" --map "$OUT/blink.wmap" | tail -15

step "5. replay the same IR on the host under ORC JIT: wsn-replay"
"$BIN/wsn-replay" "$OUT/blink.replay.bc" --trace "$OUT/run/trace.wtr" --elf "$OUT/blink.elf" \
  --map "$OUT/blink.wmap" --expect-sram "$OUT/run/sram.bin"
rc=$?
case $rc in
  0) echo "demo: replay reproduced the recorded run" ;;
  *) echo "demo: wsn-replay exited $rc: replay of this trace is not reproduced yet (see the notes on the replay issue)" ;;
esac
exit 0
