//===- TraceOpPasses.cpp - registration of the trace-op dialect (wsn-verify) ===//
#include "PassRegistry.h"

#include "llvm/Passes/PassBuilder.h"

void wsn::registerTraceOpPasses(llvm::PassBuilder &PB) {}
