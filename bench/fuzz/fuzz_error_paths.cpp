//===- fuzz_error_paths.cpp - libFuzzer: error-path files (-wsn-error-paths) ===//
#include "PfdgGraph.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto P = wsn::parseErrorPaths(Text, "fuzz.paths");
  if (!P)
    llvm::consumeError(P.takeError());
  return 0;
}
