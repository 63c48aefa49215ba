//===- Inlining.cpp - the inlining decision of thesis section 4.3 ---------===//
#include "Inlining.h"
#include "MessageSites.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace wsn {

int64_t traceOpCost(const Function &Context, const TargetTransformInfo &TTI,
                    unsigned NumArgs) {
  LLVMContext &Ctx = Context.getContext();
  SmallVector<Type *, 4> Tys(NumArgs, Type::getInt32Ty(Ctx));
  InstructionCost C = TTI.getCallInstrCost(
      nullptr, Type::getVoidTy(Ctx), Tys, TargetTransformInfo::TCK_CodeSize);
  // Each i32 operand is materialized before the call.
  int64_t Args = NumArgs;
  return C.getValue().value_or(1) + Args;
}

InlineDecision decideInlining(const Function &F, const TargetTransformInfo &TTI,
                              const InlineInput &In) {
  InlineDecision D;
  D.CallSites = In.CallSites;
  if (F.isDeclaration()) {
    D.Why = "declaration";
    return D;
  }
  for (const Instruction &I : instructions(F))
    D.SOriginal += TTI.getInstructionCost(&I, TargetTransformInfo::TCK_CodeSize)
                       .getValue()
                       .value_or(1);
  unsigned Rets = 0;
  for (const Instruction &I : instructions(F))
    if (isa<ReturnInst>(I))
      ++Rets;
  // LOG 1: one entry op and one exit op per return.
  D.SCall = (1 + Rets) * traceOpCost(F, TTI, 1);
  // LOG 2: a region (begin + end) per counted reference; LOG 4: anchors.
  D.SInstr = In.CountedRefs * (traceOpCost(F, TTI, 1) + traceOpCost(F, TTI, 2)) +
             In.Anchors * traceOpCost(F, TTI, 1);
  if (!In.Selected)
    D.Why = "not instrumented";
  else if (In.Interrupt)
    D.Why = "interrupt handler";
  else if (In.Invariant)
    D.Why = "invariant-checking function";
  else if (In.Main)
    D.Why = "main";
  else if (hasMessageRole(F))
    D.Why = "message send/receive";
  else if (In.Boundary)
    D.Why = "boundary function";
  else if (In.Recursive)
    D.Why = "recursive";
  else if (In.AddressTaken)
    D.Why = "address taken";
  else if (F.hasFnAttribute(Attribute::NoInline))
    D.Why = "noinline";
  else if (In.CallSites == 0)
    D.Why = "no direct call site";
  else {
    int64_t N = In.CallSites - 1;
    D.Inline = (D.SOriginal + D.SInstr) * N < D.SCall;
    D.Why = "eq-4.1";
  }
  return D;
}

} // namespace wsn
