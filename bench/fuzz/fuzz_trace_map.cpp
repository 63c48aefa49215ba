//===- fuzz_trace_map.cpp - libFuzzer: the trace map reader (.wmap) -------===//
//
// Input: a map file's text. The content digest is not verified (a mutated map
// would almost never pass it, and the checks behind it would go unexercised);
// a map that reads is written back and must read again, digest verified.
//
//===----------------------------------------------------------------------===//
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<wsn::TraceMap> M = wsn::TraceMap::parseJSON(
      Text, "fuzz.wmap", wsn::TraceMap::Digest::Skip);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  std::string Once = M->toJSON();
  llvm::Expected<wsn::TraceMap> Again = wsn::TraceMap::parseJSON(Once, "again.wmap");
  if (!Again) {
    llvm::errs() << "a written map does not read back: " << llvm::toString(Again.takeError())
                 << "\n";
    abort();
  }
  return 0;
}
