//===- PreInstrument.h - the pipeline that runs before the analysis ------===//
//
// The analysis must see the program as nesC wrote it (spec/analysis.md
// section 10). clang's -Os pipeline inlines every nesC task into the
// scheduler's dispatcher and most of the program into main before any
// extension point after it, so wsn-trace runs at the start of the pipeline,
// after this cleanup:
//
//   wsn-protect-roles   functions with a role in the method keep their identity:
//                       main, interrupt handlers, tasks (Comp$task$runTask,
//                       WSN_TASK), the scheduler's dispatcher and postTask,
//                       invariant-checking functions and every function that
//                       calls one (the check site), atomic and interrupt
//                       primitives, annotated functions. They get noinline
//                       and the marker attribute "wsn-protected-role".
//   inliner + SROA, EarlyCSE, SimplifyCFG, InstCombine (the optimisation
//                       level's inline threshold): nesC's one-line commands,
//                       events and network-type helpers (__nesc_hton_*) fold
//                       into their callers, as they would at -Os. Without this
//                       every helper that writes through a pointer would be a
//                       separate stack-writing callee (spec/instrumentation.md
//                       section 2), pulling its callers into the trace.
//   wsn-outline-polls   busy-waits on registers become input functions of
//                       their own (PollLoops.h).
//   wsn-release-roles   removes what wsn-protect-roles added, so that the
//                       optimiser after the instrumentation decides freely.
//
// The whole thing is `wsn-pre-instrument<O1|O2|O3|Os|Oz>` (wsn-cc's stage 2b)
// and runs at the PipelineStart extension point under clang -fpass-plugin.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_PREINSTRUMENT_H
#define WSN_PASSES_PREINSTRUMENT_H

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"

namespace llvm {
class Function;
}

namespace wsn {

/// The attribute that marks a noinline added by wsn-protect-roles.
inline constexpr const char *ProtectedRoleAttr = "wsn-protected-role";

/// True when \p F has a role the analysis needs to see as a function.
bool hasProtectedRole(const llvm::Function &F, bool CallsInvariant);

struct ProtectRolesPass : llvm::PassInfoMixin<ProtectRolesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

struct ReleaseRolesPass : llvm::PassInfoMixin<ReleaseRolesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Appends the pre-instrumentation pipeline for \p Level (not O0) to \p MPM.
void addPreInstrumentationPipeline(llvm::ModulePassManager &MPM,
                                   llvm::OptimizationLevel Level);

} // namespace wsn

#endif
