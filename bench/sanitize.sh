#!/usr/bin/env bash
# The unit and lit suites under AddressSanitizer + UndefinedBehaviorSanitizer (issue 21), in
# one command: configure a second build folder with clang-19 and -DWSN_SANITIZE, build it,
# run ctest in it. Any sanitizer report (leaks included) fails the test that produced it.
#
#   bench/sanitize.sh [BUILD_DIR] [-- CTEST_ARGS...]
#     BUILD_DIR     default build-san (beside build/; bench/fuzz/run.sh uses the same folder)
#     CTEST_ARGS    e.g. -R 'ReplayTests|lit' to run a part
#   WSN_JOBS=N      build and test jobs (default 2)
#   WSN_FUZZ=OFF    leave out the libFuzzer targets (bench/fuzz/README.md; default ON)
#
# Not part of CI (.ci/run): it is a second full build of every library and tool.
# Measured: bench/fuzz/README.md, "The sanitizer suite".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build-san
if [ $# -gt 0 ] && [ "$1" != "--" ]; then BUILD=$(realpath -m "$1"); shift; fi
[ "${1:-}" = "--" ] && shift
JOBS=${WSN_JOBS:-2}
LLVM_BIN=/usr/lib/llvm-19/bin

launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$ROOT")} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# -O1 and line tables only: what ASan's documentation recommends for readable reports, and
# about half the compile time of RelWithDebInfo's -O2 -g.
CC=$LLVM_BIN/clang CXX=$LLVM_BIN/clang++ nice cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DWSN_SANITIZE=address,undefined -DWSN_FUZZ="${WSN_FUZZ:-ON}" "${launcher[@]}"
nice cmake --build "$BUILD" -j"$JOBS"

# Symbolized reports; a leak, a memory error or undefined behaviour makes the process fail.
# (To see where libsimavr, built without frame pointers, allocated a leaked object, rerun
# the test with ASAN_OPTIONS=fast_unwind_on_malloc=0: much slower.)
export ASAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
nice ctest --test-dir "$BUILD" -j"$JOBS" --output-on-failure --timeout 3000 "$@"
