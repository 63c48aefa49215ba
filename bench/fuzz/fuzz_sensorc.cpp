//===- fuzz_sensorc.cpp - libFuzzer: SensorC parse, print, decompose ------===//
//
// Input: a SensorC program. A program that parses is printed (the canonical
// form must parse back) and, when it is SensorC_G, decomposed over 4 nodes
// (a #NETWORK file name resolves against a folder that does not exist).
//
//===----------------------------------------------------------------------===//
#include "AST.h"
#include "Decompose.h"
#include "Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace wsn::sensorc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<Program> P = parseProgram(Text, "fuzz.sg");
  if (!P) {
    llvm::consumeError(P.takeError());
    return 0;
  }
  std::string Printed = printProgram(*P);
  llvm::Expected<Program> Again = parseProgram(Printed, "printed.sg");
  if (!Again) {
    llvm::errs() << "the printed program does not parse: " << llvm::toString(Again.takeError())
                 << "\n"
                 << Printed;
    abort();
  }
  if (P->IsLocal)
    return 0;
  DecomposeOptions O;
  O.NodeCount = 4;
  O.BaseDir = "/nonexistent-wsn-fuzz";
  auto D = decompose(*P, O);
  if (!D)
    llvm::consumeError(D.takeError());
  return 0;
}
