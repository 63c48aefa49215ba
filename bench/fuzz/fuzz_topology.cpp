//===- fuzz_topology.cpp - libFuzzer: topology files (spec/sensorc.md 5) ---===//
#include "Topology.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  auto T = wsn::topology::parseTopology(Text, "fuzz.topo");
  if (!T) {
    llvm::consumeError(T.takeError());
    return 0;
  }
  for (unsigned N : T->Nodes)
    (void)wsn::topology::neighbours(*T, N, wsn::topology::LinkModel());
  return 0;
}
