//===- Invariants.h - invariant-checking functions and check insertion ----===//
//
// Invariants are written with wsn/invariant.h: WSN_INVARIANT(name) defines the
// invariant-checking function wsn_invariant_<name> (thesis 4.4.1 wraps every
// invariant in such a function), annotated "wsn.invariant"; WSN_CHECK(name)
// calls it. They may live in a separate C file merged with llvm-link.
//
// wsn-insert-checks (with -wsn-check-at=writes) adds a check of invariant I
// right after every instruction outside the invariants that may write a global
// I reads: store, atomic, memset/memcpy/memmove. The inserted check is what
// WSN_CHECK expands to: the call, its result stored to a volatile slot.
// -wsn-check-at=none (default) leaves the module alone.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INVARIANTS_H
#define WSN_PASSES_INVARIANTS_H

#include "llvm/IR/PassManager.h"

namespace wsn {

class InsertInvariantChecksPass
    : public llvm::PassInfoMixin<InsertInvariantChecksPass> {
public:
  /// AtWrites: insert regardless of the command-line option.
  explicit InsertInvariantChecksPass(bool Force = false) : Force(Force) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

private:
  bool Force;
};

/// Inserts the checks; returns the number inserted.
unsigned insertChecksAtWrites(llvm::Module &M);

} // namespace wsn

#endif
