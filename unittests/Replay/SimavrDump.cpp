//===- SimavrDump.cpp - wsn-simavr-dump: data space at a marker -----------===//
//
// wsn-simavr-dump FW.elf MCU MARKER OUT.bin
// Test helper for lit-tests/replay: runs the firmware in simavr until MARKER
// is entered and writes the data space (index = data address).
//
//===----------------------------------------------------------------------===//
#include "SimavrOracle.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 5) {
    llvm::errs() << "usage: wsn-simavr-dump FW.elf MCU MARKER OUT.bin\n";
    return 1;
  }
  auto R = wsn::runSimavrToMarker(argv[1], argv[2], argv[3]);
  if (!R) {
    llvm::errs() << "wsn-simavr-dump: " << llvm::toString(R.takeError()) << "\n";
    return 1;
  }
  FILE *F = std::fopen(argv[4], "wb");
  if (!F || std::fwrite(R->Data.data(), 1, R->Data.size(), F) != R->Data.size()) {
    llvm::errs() << "wsn-simavr-dump: cannot write " << argv[4] << "\n";
    return 1;
  }
  std::fclose(F);
  llvm::outs() << "simavr: reached " << argv[3] << " after " << R->Cycles << " cycles\n";
  return 0;
}
