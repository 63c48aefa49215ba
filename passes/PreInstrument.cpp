//===- PreInstrument.cpp - the pipeline that runs before the analysis ----===//
//
// See PreInstrument.h and spec/analysis.md section 10.
//
//===----------------------------------------------------------------------===//
#include "PreInstrument.h"
#include "InputFunctions.h"
#include "TraceOps.h"
#include "InterruptInfo.h"
#include "MessageSites.h"
#include "PollLoops.h"
#include "PassRegistry.h"

#include "llvm/Analysis/InlineCost.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/IPO/InferFunctionAttrs.h"
#include "llvm/Transforms/IPO/Inliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

using namespace llvm;

namespace wsn {

bool hasProtectedRole(const Function &F, bool CallsInvariant) {
  static const AnnotationMap NoAnnotations;
  FunctionRole R = classifyFunction(F, NoAnnotations);
  if (R.IsMain || R.isInterrupt() || R.IsTask || R.IsInvariant || R.IsNescAtomic ||
      CallsInvariant)
    return true;
  StringRef N = F.getName();
  if (N == "__nesc_enable_interrupt" || N == "__nesc_disable_interrupt")
    return true;
  // TinyOS's scheduler: the dispatcher SchedulerBasicP$TaskBasic$runTask(id)
  // (whose switch calls the tasks) and postTask.
  SmallVector<StringRef, 4> Parts = splitNescName(N);
  return Parts.size() >= 3 && (Parts.back() == "runTask" || Parts.back() == "postTask");
}

PreservedAnalyses ProtectRolesPass::run(Module &M, ModuleAnalysisManager &) {
  AnnotationMap Annotations = collectAnnotations(M);
  // Input functions stay out of line: their calls are recorded as one input
  // (InputFunctions.h), which needs the call.
  std::optional<MoteTarget> Target;
  if (traceTargetOf(M) != "host") {
    if (Expected<MoteTarget> MT = moteTargetForModule(M, ""))
      Target = *MT;
    else
      consumeError(MT.takeError());
  }
  auto IsInvariant = [&](const Function *F) {
    return F && classifyFunction(*F, Annotations).IsInvariant;
  };
  bool Changed = false;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    bool Annotated = false;
    auto It = Annotations.find(&F);
    if (It != Annotations.end())
      for (const std::string &A : It->second)
        Annotated |= StringRef(A).starts_with("wsn.");
    bool CallsInvariant = false;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        CallsInvariant |= IsInvariant(CB->getCalledFunction());
    if (!Annotated && !hasProtectedRole(F, CallsInvariant) && !hasMessageRole(F) &&
        !isInputFunction(F, classifyFunction(F, Annotations),
                         Target ? &*Target : nullptr, Annotations))
      continue;
    if (F.hasFnAttribute(Attribute::NoInline) || F.hasFnAttribute(Attribute::AlwaysInline))
      continue; // the program's own choice stays
    F.addFnAttr(Attribute::NoInline);
    F.addFnAttr(ProtectedRoleAttr);
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses ReleaseRolesPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  for (Function &F : M) {
    if (!F.hasFnAttribute(ProtectedRoleAttr))
      continue;
    F.removeFnAttr(ProtectedRoleAttr);
    F.removeFnAttr(Attribute::NoInline);
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

static FunctionPassManager simplification() {
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  return FPM;
}

void addPreInstrumentationPipeline(ModulePassManager &MPM, OptimizationLevel Level) {
  MPM.addPass(ProtectRolesPass());
  // C library declarations get their attributes (memcmp does not capture its
  // arguments, ...), as in clang's own pipeline.
  MPM.addPass(InferFunctionAttrsPass());
  MPM.addPass(createModuleToFunctionPassAdaptor(simplification()));
  ModuleInlinerWrapperPass Inliner(
      getInlineParams(Level.getSpeedupLevel(), Level.getSizeLevel()),
      /*MandatoryFirst=*/true);
  Inliner.getPM().addPass(createCGSCCToFunctionPassAdaptor(simplification()));
  MPM.addPass(std::move(Inliner));
  // After the inliner, which brings the SPI helpers' busy-waits into their
  // callers (PollLoops.h).
  MPM.addPass(OutlinePollLoopsPass());
  MPM.addPass(ReleaseRolesPass());
  MPM.addPass(GlobalDCEPass());
}

static std::optional<OptimizationLevel> parseLevel(StringRef S) {
  return StringSwitch<std::optional<OptimizationLevel>>(S)
      .Case("O1", OptimizationLevel::O1)
      .Case("O2", OptimizationLevel::O2)
      .Case("O3", OptimizationLevel::O3)
      .Case("Os", OptimizationLevel::Os)
      .Case("Oz", OptimizationLevel::Oz)
      .Default(std::nullopt);
}

void registerPreInstrumentPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "wsn-protect-roles") {
          MPM.addPass(ProtectRolesPass());
          return true;
        }
        if (Name == "wsn-outline-polls") {
          MPM.addPass(OutlinePollLoopsPass());
          return true;
        }
        if (Name == "wsn-release-roles") {
          MPM.addPass(ReleaseRolesPass());
          return true;
        }
        if (Name.consume_front("wsn-pre-instrument")) {
          std::optional<OptimizationLevel> L = OptimizationLevel::Os;
          if (Name.consume_front("<") && Name.consume_back(">"))
            L = parseLevel(Name);
          else if (!Name.empty())
            return false;
          if (!L)
            return false;
          addPreInstrumentationPipeline(MPM, *L);
          return true;
        }
        return false;
      });
}

} // namespace wsn
