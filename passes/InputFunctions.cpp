//===- InputFunctions.cpp - functions recorded as one input ---------------===//
//
// See InputFunctions.h and spec/instrumentation.md section 6.
//
//===----------------------------------------------------------------------===//
#include "InputFunctions.h"
#include "TraceOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace wsn {

/// A store target that is the function's own stack (an alloca of F).
static bool isOwnStack(const Value *Ptr, const Function &F) {
  const auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
  return AI && AI->getFunction() == &F;
}

/// Whether some edge of F goes back to a block visited before it on a
/// depth-first walk from the entry (a cycle: a loop).
static bool hasCycle(const Function &F) {
  DenseMap<const BasicBlock *, int> State; // 1 on the DFS stack, 2 done
  SmallVector<std::pair<const BasicBlock *, const_succ_iterator>, 16> Stack;
  const BasicBlock *Entry = &F.getEntryBlock();
  State[Entry] = 1;
  Stack.push_back({Entry, succ_begin(Entry)});
  while (!Stack.empty()) {
    auto &[BB, It] = Stack.back();
    if (It == succ_end(BB)) {
      State[BB] = 2;
      Stack.pop_back();
      continue;
    }
    const BasicBlock *S = *It++;
    int &St = State[S];
    if (St == 1)
      return true;
    if (St == 0) {
      St = 1;
      Stack.push_back({S, succ_begin(S)});
    }
  }
  return false;
}

bool isInputFunction(const Function &F, const FunctionRole &Role,
                     const MoteTarget *T, const AnnotationMap &Annotations) {
  if (F.isDeclaration() || F.hasAddressTaken() || Role.IsMain ||
      Role.isInterrupt() || Role.IsTask || Role.IsInvariant || Role.IsNescAtomic)
    return false;
  // A void one waits and returns nothing (an outlined polling loop,
  // PollLoops.h): its calls need no record at all.
  auto *RT = dyn_cast<IntegerType>(F.getReturnType());
  if (!F.getReturnType()->isVoidTy() &&
      (!RT || !is_contained(traceValueWidths(), RT->getBitWidth())))
    return false;
  if (!hasCycle(F))
    return false;
  bool Reads = false;
  for (const Instruction &I : instructions(F)) {
    if (const auto *LI = dyn_cast<LoadInst>(&I)) {
      const Value *P = LI->getPointerOperand()->stripPointerCasts();
      bool IO = false;
      if (const auto *CE = dyn_cast<ConstantExpr>(P))
        if (CE->getOpcode() == Instruction::IntToPtr)
          if (const auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0)))
            IO = T && T->isIOAddress(CI->getZExtValue());
      if ((LI->isVolatile() || IO) && !isOwnStack(P, F))
        Reads = true;
      continue;
    }
    if (const auto *SI = dyn_cast<StoreInst>(&I)) {
      if (!isOwnStack(SI->getPointerOperand(), F))
        return false;
      continue;
    }
    if (const auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      if (!isOwnStack(MI->getRawDest(), F))
        return false;
      continue;
    }
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (CB->isInlineAsm())
        return false;
      const Function *C = CB->getCalledFunction();
      if (!C)
        return false;
      if (C->isIntrinsic()) {
        if (isa<DbgInfoIntrinsic>(CB) || CB->isLifetimeStartOrEnd() ||
            !CB->mayWriteToMemory())
          continue;
        return false;
      }
      if (classifyFunction(*C, Annotations).IsNescAtomic)
        continue;
      return false;
    }
    if (I.mayWriteToMemory())
      return false;
  }
  return Reads;
}

} // namespace wsn
