#!/usr/bin/env bash
# Build the netsense firmware with wsn-cc (CC2420 driver, trace runtime, replay module and map)
# and run it as a 5-node network (base station 0, sensors 1-4) in wsn-sim.
#   examples/radio/run-net.sh [BUILD_DIR] [OUT_DIR] [SEED] [SECONDS]
# Then: BUILD_DIR/bin/wsn-replay net OUT_DIR (when the run stopped at a violation).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$BUILD/examples/radio/net}
SEED=${3:-1}
SECONDS_SIM=${4:-10}
OBJ=$BUILD/examples/radio/obj
mkdir -p "$OBJ"
"$BUILD/bin/wsn-cc" --target=avr --mcu=atmega128 -Wc,-Wno-unknown-attributes \
  --trace-seg=768 --trace-buf=2304 -I "$HERE" -o "$OBJ/netsense" "$HERE/netsense.c" "$HERE/cc2420.c"
"$BUILD/bin/wsn-sim" net "$HERE/netsense.topo" --node 0-4="$OBJ/netsense.elf" \
  --seed "$SEED" --seconds "$SECONDS_SIM" --adc 0:1023 --settle -o "$OUT"
cat "$OUT/net.json"
