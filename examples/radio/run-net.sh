#!/usr/bin/env bash
# Build the netsense firmware (CC2420 driver + trace runtime) and run it as a 5-node network
# (base station 0, sensors 1-4) in wsn-sim.
#   examples/radio/run-net.sh [BUILD_DIR] [OUT_DIR] [SEED] [SECONDS]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$BUILD/examples/radio/net}
SEED=${3:-1}
SECONDS_SIM=${4:-10}
CLANG=/usr/lib/llvm-19/bin/clang
OBJ=$BUILD/examples/radio/obj
mkdir -p "$OBJ"
CFLAGS=(--target=avr -mmcu=atmega128 -Os -Wno-unknown-attributes -I"$ROOT/trace-runtime/include" -I"$HERE")
"$CLANG" "${CFLAGS[@]}" -c "$HERE/netsense.c" -o "$OBJ/netsense.o"
"$CLANG" "${CFLAGS[@]}" -c "$HERE/cc2420.c" -o "$OBJ/cc2420.o"
"$CLANG" "${CFLAGS[@]}" -c "$ROOT/trace-runtime/src/trace.c" -o "$OBJ/trace.o"
avr-gcc -mmcu=atmega128 "$OBJ/netsense.o" "$OBJ/cc2420.o" "$OBJ/trace.o" -o "$OBJ/netsense.elf"
"$BUILD/bin/wsn-sim" net "$HERE/netsense.topo" --node 0-4="$OBJ/netsense.elf" \
  --seed "$SEED" --seconds "$SECONDS_SIM" --adc 0:1023 -o "$OUT"
cat "$OUT/net.json"
