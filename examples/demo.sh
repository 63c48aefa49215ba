#!/usr/bin/env bash
# The end-to-end demo run by `./setup.sh demo`: sense-and-send (thesis TC2 style) for MicaZ, traced with
# wsn-trace, run in wsn-sim until its invariant is violated, the trace decoded, and the same
# IR replayed on the desktop under ORC JIT against the simulator's memory snapshot.
#   examples/demo.sh [BUILD_DIR] [SEED]
set -uo pipefail
BUILD=$(cd "${1:-build}" && pwd)
SEED=${2:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$BUILD/demo
BIN=$BUILD/bin
rm -rf "$OUT" && mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "1. build sense-and-send for atmega128 (MicaZ) with tracing: wsn-cc"
"$BIN/wsn-cc" --target=avr --mcu=atmega128 -I "$ROOT/examples/common" -o "$OUT/app" \
  "$ROOT"/examples/sense-send/*.c "$ROOT/examples/common/scheduler.c" || exit 1
/usr/lib/llvm-19/bin/llvm-size "$OUT/app.elf"
echo "replay IR: $OUT/app.replay.bc   trace map: $OUT/app.wmap"

step "2. the PFDG the instrumentation was selected from (level 1)"
/usr/lib/llvm-19/bin/opt -load-pass-plugin="$BUILD/lib/WSNTrace.so" -passes='print<wsn-pfdg>' \
  -disable-output "$OUT/app.replay.bc" 2>&1 | head -25

step "3. run it in wsn-sim (seed $SEED) until the invariant is violated"
"$BIN/wsn-sim" run "$OUT/app.elf" --mcu atmega128 --seed "$SEED" --adc 0:1023 \
  --max-cycles 50000000 -o "$OUT/run" || exit 1
cat "$OUT/run/run.json"; echo

step "4. the retrieved trace: wsn-trace-dump (last records)"
"$BIN/wsn-trace-dump" "$OUT/run/trace.wtr" --map "$OUT/app.wmap" | tail -15

step "5. replay the same IR on the host under ORC JIT from the trace: wsn-replay"
"$BIN/wsn-replay" "$OUT/app.replay.bc" --trace "$OUT/run/trace.wtr" --elf "$OUT/app.elf" \
  --map "$OUT/app.wmap" --expect-sram "$OUT/run/sram.bin"
rc=$?
case $rc in
  0) echo "demo: replay reproduced the recorded violation; the sliced globals equal the mote's SRAM" ;;
  *) echo "demo: wsn-replay exited $rc: the recorded violation was NOT reproduced"; exit 1 ;;
esac

step "6. walk back from the violation in the replay REPL: where did SenseC\$period come from?"
printf 'continue\nprint SenseC$period\nwhy SenseC$period\nwhere\nquit\n' | \
  "$BIN/wsn-replay" "$OUT/app.replay.bc" --trace "$OUT/run/trace.wtr" --elf "$OUT/app.elf" -i
exit 0
