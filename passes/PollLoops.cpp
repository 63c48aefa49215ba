//===- PollLoops.cpp - polling loops become input functions ---------------===//
//
// See PollLoops.h and spec/instrumentation.md section 6 ("Polling loops").
//
//===----------------------------------------------------------------------===//
#include "PollLoops.h"
#include "InputFunctions.h"
#include "InterruptInfo.h"
#include "MoteMemoryModel.h"
#include "PassRegistry.h"
#include "PreInstrument.h"
#include "TraceOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

using namespace llvm;

namespace wsn {
namespace {

/// A load of a register: volatile, or from a constant address in the MCU's
/// I/O range.
bool readsRegister(const LoadInst &LI, const MoteTarget *T) {
  if (LI.isVolatile())
    return true;
  const Value *P = LI.getPointerOperand()->stripPointerCasts();
  if (const auto *CE = dyn_cast<ConstantExpr>(P))
    if (CE->getOpcode() == Instruction::IntToPtr)
      if (const auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0)))
        return T && T->isIOAddress(CI->getZExtValue());
  return false;
}

/// The values a loop hands to the code after it: instructions of the loop
/// used outside it, and each phi of the exit block that merges several edges
/// out of the loop (CodeExtractor computes it inside the outlined function).
/// std::nullopt when the loop is not a polling loop.
std::optional<SmallVector<Value *, 2>> pollLoopOutputs(const Loop &L,
                                                       const MoteTarget *T) {
  BasicBlock *Exit = L.getUniqueExitBlock();
  if (!Exit)
    return std::nullopt;
  bool Reads = false;
  SmallSetVector<Value *, 2> Out;
  for (BasicBlock *BB : L.blocks()) {
    if (BB->hasAddressTaken() || BB->isEHPad())
      return std::nullopt;
    for (Instruction &I : *BB) {
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        if (LI->isAtomic())
          return std::nullopt;
        Reads |= readsRegister(*LI, T) &&
                 !isa<AllocaInst>(getUnderlyingObject(LI->getPointerOperand()));
      } else if (auto *CB = dyn_cast<CallBase>(&I)) {
        // No calls: an intrinsic that touches no memory (and debug info) is
        // the only exception. Inline asm may write registers.
        auto *II = dyn_cast<IntrinsicInst>(CB);
        if (!II || !(isa<DbgInfoIntrinsic>(II) || II->doesNotAccessMemory()))
          return std::nullopt;
      } else if (isa<AllocaInst>(I) || I.mayWriteToMemory() || I.mayThrow()) {
        return std::nullopt;
      }
      for (const User *U : I.users())
        if (!L.contains(cast<Instruction>(U)->getParent()))
          Out.insert(&I);
    }
  }
  if (!Reads)
    return std::nullopt;
  for (PHINode &P : Exit->phis()) {
    unsigned FromLoop = 0;
    for (BasicBlock *In : P.blocks())
      FromLoop += L.contains(In);
    if (FromLoop > 1)
      Out.insert(&P);
  }
  if (Out.size() > 1)
    return std::nullopt;
  for (Value *V : Out) {
    auto *IT = dyn_cast<IntegerType>(V->getType());
    if (!IT || !is_contained(traceValueWidths(), IT->getBitWidth()))
      return std::nullopt;
  }
  return SmallVector<Value *, 2>(Out.begin(), Out.end());
}

/// The outermost polling loop of \p Loops and their subloops.
Loop *findPollLoop(ArrayRef<Loop *> Loops, const MoteTarget *T) {
  for (Loop *L : Loops) {
    if (pollLoopOutputs(*L, T))
      return L;
    if (Loop *Inner = findPollLoop(L->getSubLoops(), T))
      return Inner;
  }
  return nullptr;
}

/// CodeExtractor hands a live-out value back through a pointer argument (a
/// store in the outlined function, a stack slot and a reload in the caller).
/// An input function has no effect but on its own stack, so the value becomes
/// the result instead. Returns the new function, or nullptr (nothing changed)
/// when the outlined code does not have that shape.
Function *returnOutput(Function *NF, Value *Out) {
  if (NF->arg_empty() || !NF->hasOneUse())
    return nullptr;
  auto *Call = dyn_cast<CallInst>(NF->user_back());
  Argument *OutArg = NF->getArg(NF->arg_size() - 1);
  if (!Call || Call->getCalledFunction() != NF || !OutArg->hasOneUse())
    return nullptr;
  auto *St = dyn_cast<StoreInst>(OutArg->user_back());
  auto *Slot = dyn_cast<AllocaInst>(Call->getArgOperand(NF->arg_size() - 1));
  if (!St || St->getPointerOperand() != OutArg || !Slot)
    return nullptr;
  auto *V = dyn_cast<Instruction>(St->getValueOperand());
  if (!V || V->getType() != Out->getType())
    return nullptr;
  DominatorTree DT(*NF);
  SmallVector<ReturnInst *, 2> Rets;
  for (BasicBlock &BB : *NF)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
      if (!DT.dominates(V, R))
        return nullptr;
      Rets.push_back(R);
    }
  SmallVector<Instruction *, 4> SlotUsers;
  for (User *U : Slot->users()) {
    auto *I = dyn_cast<Instruction>(U);
    if (!I)
      return nullptr;
    if (I == Call || I->isLifetimeStartOrEnd())
      SlotUsers.push_back(I);
    else if (auto *LI = dyn_cast<LoadInst>(I); LI && LI->getType() == V->getType())
      SlotUsers.push_back(I);
    else
      return nullptr;
  }

  // The function with the value as its result and without the pointer.
  SmallVector<Type *, 4> Params;
  for (unsigned A = 0; A + 1 < NF->arg_size(); ++A)
    Params.push_back(NF->getArg(A)->getType());
  Function *New = Function::Create(FunctionType::get(V->getType(), Params, false),
                                   NF->getLinkage(), NF->getAddressSpace(), "");
  NF->getParent()->getFunctionList().insert(NF->getIterator(), New);
  New->takeName(NF);
  New->setAttributes(AttributeList::get(NF->getContext(), AttributeList::FunctionIndex,
                                        NF->getAttributes().getFnAttrs()));
  New->setDSOLocal(NF->isDSOLocal());
  New->setSubprogram(NF->getSubprogram());
  NF->setSubprogram(nullptr);
  New->splice(New->end(), NF);
  for (unsigned A = 0; A + 1 < NF->arg_size(); ++A) {
    New->getArg(A)->takeName(NF->getArg(A));
    NF->getArg(A)->replaceAllUsesWith(New->getArg(A));
  }
  St->eraseFromParent();
  for (ReturnInst *R : Rets) {
    ReturnInst::Create(NF->getContext(), V, R->getIterator())->setDebugLoc(R->getDebugLoc());
    R->eraseFromParent();
  }

  // The caller: the call returns the value; the slot goes.
  SmallVector<Value *, 4> Args(Call->arg_begin(), Call->arg_end() - 1);
  CallInst *NewCall = CallInst::Create(New, Args, "", Call->getIterator());
  NewCall->setDebugLoc(Call->getDebugLoc());
  NewCall->takeName(Call);
  for (Instruction *I : SlotUsers) {
    if (isa<LoadInst>(I))
      I->replaceAllUsesWith(NewCall);
    I->eraseFromParent();
  }
  Slot->eraseFromParent();
  NF->eraseFromParent();
  return New;
}

/// Outlines the polling loops of F; returns how many.
unsigned outlinePollLoops(Function &F, const MoteTarget *T) {
  unsigned N = 0;
  // One loop at a time: outlining changes F's CFG, so the loops are found
  // again. Each round removes a loop, so this ends.
  for (;;) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallVector<Loop *, 8> Top(LI.begin(), LI.end());
    // Program order for stable names.
    std::reverse(Top.begin(), Top.end());
    Loop *L = findPollLoop(Top, T);
    if (!L)
      return N;
    SmallVector<Value *, 2> Out = *pollLoopOutputs(*L, T);
    // The call takes the loop's location: its INPUT site (if any) names the
    // loop in the trace map.
    DebugLoc Loc = L->getStartLoc();
    CodeExtractor CE(DT, *L, /*AggregateArgs=*/false, nullptr, nullptr, nullptr,
                     "wsn.poll");
    if (!CE.isEligible())
      return N;
    CodeExtractorAnalysisCache CEAC(F);
    SetVector<Value *> Inputs, Outputs;
    Function *NF = CE.extractCodeRegion(CEAC, Inputs, Outputs);
    if (!NF)
      return N;
    ++N;
    if (Outputs.size() == 1 && Out.size() == 1) {
      if (Function *New = returnOutput(NF, Outputs[0]))
        NF = New;
    }
    // CodeExtractor copies F's string attributes and some others: an
    // interrupt handler's "signal"/"interrupt" (the outlined loop would return
    // with reti) and wsn-protect-roles' marks must not follow. The optimiser
    // after the instrumentation may inline the loop back.
    for (StringRef A : {"signal", "interrupt", ProtectedRoleAttr})
      NF->removeFnAttr(A);
    NF->removeFnAttr(Attribute::NoInline);
    NF->removeFnAttr(Attribute::AlwaysInline);
    NF->removeFnAttr(Attribute::Naked);
    if (NF->getCallingConv() != CallingConv::C) {
      NF->setCallingConv(CallingConv::C);
      for (User *U : NF->users())
        if (auto *CB = dyn_cast<CallBase>(U))
          CB->setCallingConv(CallingConv::C);
    }
    NF->addFnAttr(PollLoopAttr);
    if (Loc)
      for (User *U : NF->users())
        if (auto *CB = dyn_cast<CallBase>(U))
          CB->setDebugLoc(Loc);
  }
}

} // namespace

PreservedAnalyses OutlinePollLoopsPass::run(Module &M, ModuleAnalysisManager &) {
  if (traceTargetOf(M) == "host")
    return PreservedAnalyses::all();
  std::optional<MoteTarget> Target;
  if (Expected<MoteTarget> MT = moteTargetForModule(M, ""))
    Target = *MT;
  else
    consumeError(MT.takeError());
  AnnotationMap Annotations = collectAnnotations(M);
  SmallVector<Function *, 64> Work;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasFnAttribute(PollLoopAttr) &&
        !isInputFunction(F, classifyFunction(F, Annotations), Target ? &*Target : nullptr,
                         Annotations))
      Work.push_back(&F);
  unsigned N = 0;
  for (Function *F : Work)
    N += outlinePollLoops(*F, Target ? &*Target : nullptr);
  return N ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace wsn
