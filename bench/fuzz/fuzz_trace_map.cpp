//===- fuzz_trace_map.cpp - libFuzzer: the trace map reader (.wmap) -------===//
//
// Input: a map file's text. A map that reads is written back and must read
// again to the same JSON (the writer is deterministic, spec/trace-map.md).
//
//===----------------------------------------------------------------------===//
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<wsn::TraceMap> M = wsn::TraceMap::parseJSON(Text, "fuzz.wmap");
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
