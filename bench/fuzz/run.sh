#!/usr/bin/env bash
# Runs every libFuzzer target of bench/fuzz for SECONDS under ASan+UBSan, one after the other
# (nice: the machine is shared), and prints a table: executions, coverage (edges), corpus
# size, findings (crash/leak/timeout/oom inputs saved). README.md says how to build them.
#
#   bench/fuzz/run.sh SECONDS [BUILD_DIR] [TARGET...]     (BUILD_DIR default: build-san)
#
# The growing corpus and the findings go to BUILD_DIR/fuzz-work/TARGET/ (not committed); the
# committed seeds in bench/fuzz/corpus/TARGET are read, never written.
set -euo pipefail
SECS=${1:?usage: run.sh SECONDS [BUILD_DIR] [TARGET...]}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${2:-$HERE/../../build-san}" && pwd)
shift $(($# < 2 ? $# : 2))
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(trace trace_map sensorc topology error_paths preprocess)
WORK=${WSN_FUZZ_WORK:-$BUILD/fuzz-work}

declare -A DICT=([trace]=trace [trace_map]=trace_map [sensorc]=sensorc [topology]=topology
                 [error_paths]=error_paths [preprocess]=trace_map)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

printf '%-12s %8s %12s %9s %7s %7s %9s\n' target seconds executions exec/s cov corpus findings
for t in "${TARGETS[@]}"; do
  bin=$BUILD/fuzz/fuzz-$t
  [ -x "$bin" ] || { echo "run.sh: $bin not built (see bench/fuzz/README.md)" >&2; exit 2; }
  mkdir -p "$WORK/$t/corpus" "$WORK/$t/findings"
  args=(-max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$WORK/$t/findings/")
  [ -f "$HERE/dict/${DICT[$t]}.dict" ] && args+=(-dict="$HERE/dict/${DICT[$t]}.dict")
  start=$(date +%s)
  nice -n 19 "$bin" "${args[@]}" "$WORK/$t/corpus" "$HERE/corpus/$t" > "$WORK/$t/log" 2>&1 || true
  secs=$(($(date +%s) - start))
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$WORK/$t/log" | tail -1)
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$WORK/$t/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$WORK/$t/log" | tail -1 | awk '{print $2}')
  corpus=$(find "$WORK/$t/corpus" -type f | wc -l)
  findings=$(find "$WORK/$t/findings" -type f | wc -l)
  printf '%-12s %8s %12s %9s %7s %7s %9s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "$corpus" "$findings"
  if ((findings)); then
    find "$WORK/$t/findings" -type f | sed 's/^/    finding: /'
    grep -m3 -E 'ERROR: |SUMMARY: |runtime error' "$WORK/$t/log" | sed 's/^/    /' || true
  fi
done
