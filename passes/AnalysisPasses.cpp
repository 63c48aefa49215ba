//===- AnalysisPasses.cpp - registration of the dependence analyses (wsn-pfdg) ===//
#include "PassRegistry.h"

#include "llvm/Passes/PassBuilder.h"

void wsn::registerAnalysisPasses(llvm::PassBuilder &PB) {}
