//===- fuzz_trace.cpp - libFuzzer: .wtr header, linearisation, decoding ----===//
//
// Input: a whole trace file. Everything a reader does with one: the header and
// length checks, the check values, the retained tail, decoding of the tail (also
// skipping damaged segments) and of every segment on its own, the interrupt keys;
// and one property: a resealed copy has no damaged segment.
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
  // Damaged segments skipped: the rest decodes as far as it goes.
  std::vector<wsn::TraceRecord> Intact;
  if (llvm::Error E = F->decode(Intact, 0, /*SkipDamaged=*/true))
    llvm::consumeError(std::move(E));
  // The check values (trace-format.md 1.2): resealed, the same bytes have no damaged segment.
  std::vector<uint8_t> Copy(Data, Data + Size);
  if (llvm::Error E = wsn::resealTrace(Copy)) {
    llvm::consumeError(std::move(E));
    __builtin_trap(); // the header parsed above, so resealing cannot fail
  }
  llvm::Expected<wsn::TraceFile> R = wsn::TraceFile::parse(Copy);
  if (!R || !R->damage().empty())
    __builtin_trap();
  return 0;
}
