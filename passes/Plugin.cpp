//===- Plugin.cpp - opt / clang plugin entry for wsn-trace ----------------===//
//
// Registers every wsn-trace pass with the new pass manager. Each component
// (trace-op dialect, analyses, instrumentation, lowering) registers its own
// passes through a register*Passes function declared in PassRegistry.h, so that
// this file stays a thin list.
//
//===----------------------------------------------------------------------===//

#include "PassRegistry.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "WSNTrace", "0.1",
          [](PassBuilder &PB) { wsn::registerAllPasses(PB); }};
}
