//===- Invariants.cpp - invariant-checking functions and check insertion --===//
#include "Invariants.h"
#include "Slice.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<std::string> WsnCheckAt(
    "wsn-check-at", cl::init("none"),
    cl::desc("wsn-trace: where to insert invariant checks automatically: none "
             "(only WSN_CHECK sites) or writes (after every write to a global "
             "an invariant reads)"));

namespace wsn {

unsigned insertChecksAtWrites(Module &M) {
  ModuleModel MM(M);
  // Invariants and everything they call never get checks (no recursion).
  SmallPtrSet<const Function *, 16> Excluded;
  SmallVector<const Function *, 8> Work(MM.invariants().begin(),
                                        MM.invariants().end());
  for (const Function *F : Work)
    Excluded.insert(F);
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    for (const Function *C : MM.callees(F))
      if (Excluded.insert(C).second)
        Work.push_back(C);
  }
  // Inputs of each invariant: the globals it and its callees read.
  struct Inv {
    Function *F;
    DenseSet<unsigned> Inputs;
    bool AnyTaken = false;
  };
  std::vector<Inv> Invs;
  for (Function *F : MM.invariants()) {
    Inv I{F, {}, false};
    SmallVector<const Function *, 8> W{F};
    SmallPtrSet<const Function *, 8> Seen{F};
    while (!W.empty()) {
      const Function *G = W.pop_back_val();
      for (const Instruction &X : instructions(*G)) {
        ObjSet O;
        MM.reads(X, O);
        for (unsigned Id : O.Objs)
          if (MM.objectGlobal(Id)) {
            I.Inputs.insert(Id);
            I.AnyTaken |= MM.objectAddressTaken(Id);
          }
      }
      for (const Function *C : MM.callees(G))
        if (!C->isDeclaration() && Seen.insert(C).second)
          W.push_back(C);
    }
    Invs.push_back(std::move(I));
  }
  unsigned Count = 0;
  for (Function *F : MM.definedFunctions()) {
    if (Excluded.count(F))
      continue;
    std::vector<std::pair<Instruction *, Function *>> Sites;
    for (Instruction &I : instructions(*F)) {
      if (!isa<StoreInst>(I) && !isa<AtomicRMWInst>(I) &&
          !isa<AtomicCmpXchgInst>(I) && !isa<MemIntrinsic>(I))
        continue;
      ObjSet O;
      MM.writes(I, O);
      for (Inv &V : Invs) {
        bool Hit = O.Unknown && V.AnyTaken;
        for (unsigned Id : O.Objs)
          Hit |= V.Inputs.count(Id) > 0;
        if (Hit)
          Sites.push_back({&I, V.F});
      }
    }
    if (Sites.empty())
      continue;
    IRBuilder<> EB(&*F->getEntryBlock().getFirstInsertionPt());
    AllocaInst *Slot = EB.CreateAlloca(
        EB.getInt8Ty(), M.getDataLayout().getAllocaAddrSpace(), nullptr,
        "wsn.check.slot");
    for (auto [I, InvF] : Sites) {
      IRBuilder<> B(I->getNextNode());
      B.SetCurrentDebugLocation(I->getDebugLoc());
      CallInst *Call = B.CreateCall(InvF->getFunctionType(), InvF);
      Call->setCallingConv(InvF->getCallingConv());
      Call->setAttributes(InvF->getAttributes());
      Value *V = Call;
      if (V->getType()->isIntegerTy())
        V = B.CreateZExtOrTrunc(V, B.getInt8Ty());
      if (!V->getType()->isVoidTy())
        B.CreateStore(V, Slot, /*isVolatile=*/true);
      ++Count;
    }
  }
  return Count;
}

PreservedAnalyses InsertInvariantChecksPass::run(Module &M,
                                                 ModuleAnalysisManager &) {
  if (!Force && WsnCheckAt == "none")
    return PreservedAnalyses::all();
  if (!Force && WsnCheckAt != "writes") {
    M.getContext().emitError("-wsn-check-at: unknown value '" + WsnCheckAt +
                             "' (expected none or writes)");
    return PreservedAnalyses::all();
  }
  return insertChecksAtWrites(M) ? PreservedAnalyses::none()
                                 : PreservedAnalyses::all();
}

} // namespace wsn
