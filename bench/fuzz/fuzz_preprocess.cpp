//===- fuzz_preprocess.cpp - libFuzzer: the replay preprocessor -----------===//
//
// Input: a (trace map, trace) pair: the map's JSON text, one NUL byte, then the
// trace file's bytes (bench/fuzz/make-corpus.py writes the seeds so). The
// preprocessor checks the trace against the map and builds the replay's
// start, stop, data section and interrupt table (spec/replay-log.md 1). The
// map's content digest is not verified, so that mutated maps reach the
// preprocessor (the tools require it; spec/trace-map.md).
//
//===----------------------------------------------------------------------===//
#include "Preprocessor.h"
#include "TraceMap.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const void *Nul = memchr(Data, 0, Size);
  if (!Nul)
    return 0;
  size_t MapLen = static_cast<const uint8_t *>(Nul) - Data;
  llvm::Expected<wsn::TraceMap> M = wsn::TraceMap::parseJSON(
      llvm::StringRef(reinterpret_cast<const char *>(Data), MapLen), "fuzz.wmap",
      wsn::TraceMap::Digest::Skip);
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  llvm::Expected<wsn::TraceFile> F =
      wsn::TraceFile::parse(llvm::ArrayRef<uint8_t>(Data + MapLen + 1, Size - MapLen - 1));
  if (!F) {
    llvm::consumeError(F.takeError());
    return 0;
  }
  wsn::PreprocessOptions O;
  O.Map = &*M;
  O.TraceName = "fuzz.wtr";
  auto P = wsn::preprocessTrace(*F, O);
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  wsn::printPreprocessReport(OS, *P, 0);
  return 0;
}
