//===- PassRegistry.cpp - one place that registers every wsn-trace pass ---===//
#include "PassRegistry.h"

#include "llvm/Passes/PassBuilder.h"

void wsn::registerAllPasses(llvm::PassBuilder &PB) {
  registerTraceOpPasses(PB);
  registerAnalysisPasses(PB);
  registerPreInstrumentPasses(PB);
  registerInstrumentationPasses(PB);
  registerReplayPasses(PB);
}
