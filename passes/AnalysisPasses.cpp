//===- AnalysisPasses.cpp - registration of the dependence analyses (wsn-pfdg) ===//
//
//   wsn-pfdg            computes wsn::PfdgAnalysis (writes -wsn-pfdg-dot/-json)
//   print<wsn-pfdg>     prints it (stable text, used by the lit tests)
//   wsn-insert-checks   inserts invariant checks (-wsn-check-at=writes)
//
//===----------------------------------------------------------------------===//
#include "Invariants.h"
#include "PassRegistry.h"
#include "Pfdg.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
struct RequirePfdgPass : PassInfoMixin<RequirePfdgPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    MAM.getResult<wsn::PfdgAnalysis>(M);
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

void wsn::registerAnalysisPasses(llvm::PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
    MAM.registerPass([] { return wsn::PfdgAnalysis(); });
  });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "wsn-pfdg" || Name == "require<wsn-pfdg>") {
          MPM.addPass(RequirePfdgPass());
          return true;
        }
        if (Name == "print<wsn-pfdg>") {
          MPM.addPass(wsn::PfdgPrinterPass(outs()));
          return true;
        }
        if (Name == "wsn-insert-checks") {
          MPM.addPass(wsn::InsertInvariantChecksPass());
          return true;
        }
        return false;
      });
}
