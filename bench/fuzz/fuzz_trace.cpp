//===- fuzz_trace.cpp - libFuzzer: .wtr header, linearisation, decoding ----===//
//
// Input: a whole trace file. Everything a reader does with one: the header and
// length checks, the retained tail, decoding of the tail and of every segment
// on its own, the interrupt keys.
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::Expected<wsn::TraceFile> F = wsn::TraceFile::parse(llvm::ArrayRef<uint8_t>(Data, Size));
  if (!F) {
    llvm::consumeError(F.takeError());
    return 0;
  }
  (void)F->linearBytes();
  (void)F->staleBytes();
  std::vector<wsn::TraceRecord> Rs;
  if (llvm::Error E = F->decode(Rs))
    llvm::consumeError(std::move(E));
  (void)wsn::interruptKeys(Rs);
  for (unsigned S = 0; S < F->header().numSegments(); ++S) {
    std::vector<wsn::TraceRecord> Seg;
    if (llvm::Error E = F->decodeSegment(S, Seg))
      llvm::consumeError(std::move(E));
  }
  return 0;
}
