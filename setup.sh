#!/usr/bin/env bash
# wsn-trace setup, build and test driver (the README's two quick-start commands).
#   ./setup.sh demo   install what is missing, build, run the end-to-end demo
#   ./setup.sh test   install what is missing, build, run every test (ctest: GoogleTest + lit)
#   ./setup.sh deps   only install what is missing
# Runs as root on Debian 12 with Debian's package registry only.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
BUILD=${WSN_BUILD_DIR:-$ROOT/build}
JOBS=${WSN_JOBS:-$(nproc)}

PACKAGES=(
  build-essential cmake ninja-build python3 git
  llvm-19-dev llvm-19-tools clang-19 lld-19 libclang-19-dev libclang-rt-19-dev
  libabsl-dev libgtest-dev libgmock-dev googletest
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libelf-dev
  gcc-avr binutils-avr avr-libc libsimavr-dev simavr
  msp430mcu mspdebug
  gdb valgrind graphviz
  python3-distributed
)

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    local SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "setup: all packages present"
  fi
}

build() {
  # ccache, when present, lets several work trees share compiled objects (paths made
  # relative to the folder above the tree, so /a/wt1/build and /a/wt2/build hit the same).
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$ROOT")} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}"
  cmake --build "$BUILD" -j"$JOBS"
}

case "${1:-}" in
  deps) deps ;;
  build) deps; build ;;
  test)
    deps; build
    ctest --test-dir "$BUILD" -j"$JOBS" --output-on-failure --timeout 1500
    ;;
  demo)
    deps; build
    bash "$ROOT/examples/demo.sh" "$BUILD"
    ;;
  *) echo "usage: $0 demo|test|deps|build" >&2; exit 2 ;;
esac
