#!/usr/bin/env bash
# The end-to-end demo run by `./setup.sh demo`. It runs the pipeline stages that exist and
# says which are not there yet.
set -euo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
OPT=/usr/lib/llvm-19/bin/opt
echo "== wsn-trace demo (build: $BUILD)"
echo "-- plugin: $BUILD/lib/WSNTrace.so"
"$OPT" -load-pass-plugin="$BUILD/lib/WSNTrace.so" -passes=verify -disable-output /dev/null 2>/dev/null \
  || echo '; empty' | "$OPT" -load-pass-plugin="$BUILD/lib/WSNTrace.so" -passes=verify -disable-output
echo "   loads into LLVM 19 opt"
echo "-- not there yet: recording (wsn-cc), simulation (wsn-sim), replay (wsn-replay)"
