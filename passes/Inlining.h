//===- Inlining.h - the inlining decision of thesis section 4.3 -----------===//
//
// Equation 4.1: a function called n+1 times is worth inlining when
//   (S_original + S_instr) * n < S_call
// S_original: the function's code size before instrumentation; S_instr: what
// the LOG 2/3/4 operations add to its body; S_call: what LOG 1 (entry and
// exit records) adds. Sizes come from TargetTransformInfo's code-size costs of
// the module's target (TCK_CodeSize), so they are relative units, not bytes.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_INLINING_H
#define WSN_PASSES_INLINING_H

#include <cstdint>
#include <string>

namespace llvm {
class Function;
class TargetTransformInfo;
} // namespace llvm

namespace wsn {

struct InlineInput {
  unsigned CallSites = 0;     ///< direct call sites of the function (n + 1)
  unsigned CountedRefs = 0;   ///< references that need a LOG 2 region
  unsigned Anchors = 0;       ///< LOG 4 anchor sites in the function
  bool Selected = false, Interrupt = false, Invariant = false, Main = false,
       Boundary = false, Recursive = false, AddressTaken = false;
};

struct InlineDecision {
  bool Inline = false;
  int64_t SOriginal = 0, SInstr = 0, SCall = 0;
  unsigned CallSites = 0;
  std::string Why; ///< short reason, e.g. "eq-4.1", "interrupt handler"
};

/// Cost of one trace op lowered as a call with \p NumArgs i32 operands.
int64_t traceOpCost(const llvm::Function &Context,
                    const llvm::TargetTransformInfo &TTI, unsigned NumArgs);

InlineDecision decideInlining(const llvm::Function &F,
                              const llvm::TargetTransformInfo &TTI,
                              const InlineInput &In);

} // namespace wsn

#endif
