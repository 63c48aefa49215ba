//===- InstrumentationPasses.cpp - registration of instrumentation and lowering (wsn-trace, wsn-lower) ===//
#include "PassRegistry.h"

#include "llvm/Passes/PassBuilder.h"

void wsn::registerInstrumentationPasses(llvm::PassBuilder &PB) {}
