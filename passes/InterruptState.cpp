//===- InterruptState.cpp - where interrupts are certainly disabled -------===//
//
// See InterruptState.h and spec/instrumentation.md section 7.1.
//
//===----------------------------------------------------------------------===//
#include "InterruptState.h"
#include "MoteAsm.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace wsn {

InterruptState::InterruptState(const Module &M,
                               std::function<bool(const Function &)> EntryOff)
    : M(M), EntryOff(std::move(EntryOff)) {
  Triple T(M.getTargetTriple());
  AVR = T.getArch() == Triple::avr;
  MSP430 = T.getArch() == Triple::msp430;
  FlagBit = AVR ? 0x80 : 0x08;
}

/// C library routines that never touch the interrupt flag.
static bool isFlagNeutralLibcall(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases("memcpy", "memmove", "memset", "memcmp", "strlen", true)
      .Cases("strcpy", "strncpy", "strcmp", "strncmp", "memchr", true)
      .Default(false);
}

/// The state a status value carries when written back: the state where it
/// was read (through casts and phis), else On.
uint8_t InterruptState::savedState(const Value *V,
                                   const DenseMap<const Value *, uint8_t> &Saved,
                                   unsigned Depth) const {
  if (Depth > 8)
    return On;
  if (auto *C = dyn_cast<CastInst>(V))
    return savedState(C->getOperand(0), Saved, Depth + 1);
  if (auto *PN = dyn_cast<PHINode>(V)) {
    uint8_t S = Unreached;
    for (const Value *In : PN->incoming_values())
      S = std::max(S, savedState(In, Saved, Depth + 1));
    return S == Unreached ? On : S;
  }
  auto It = Saved.find(V);
  return It == Saved.end() || It->second == Unreached ? uint8_t(On) : It->second;
}

/// V is (a cast of) `saved & C`, with C holding no bit but the flag, of a
/// status value read while interrupts were off: V is zero. This is how
/// nesC's MSP430 atomic end decides whether to run eint.
bool InterruptState::flagKnownClear(
    const Value *V, const DenseMap<const Value *, uint8_t> &Saved) const {
  while (auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  auto *BO = dyn_cast<BinaryOperator>(V);
  if (!BO || BO->getOpcode() != Instruction::And)
    return false;
  for (unsigned K = 0; K < 2; ++K)
    if (auto *Mask = dyn_cast<ConstantInt>(BO->getOperand(K)))
      if ((Mask->getZExtValue() & ~FlagBit) == 0) {
        const Value *Src = BO->getOperand(1 - K);
        auto It = Saved.find(Src);
        return It != Saved.end() && It->second == Off;
      }
  return false;
}

const InterruptState::Result &InterruptState::analyze(const Function &F,
                                                      bool EntryIsOff) {
  auto Key = std::make_pair(&F, EntryIsOff);
  if (auto It = Cache.find(Key); It != Cache.end())
    return It->second;
  InProgress.insert(Key);

  DenseMap<const BasicBlock *, uint8_t> In;
  DenseMap<const Value *, uint8_t> Saved;
  Result R;
  ReversePostOrderTraversal<const Function *> RPOT(&F);

  // One pass over a block from its entry state; Final records the result.
  auto RunBlock = [&](const BasicBlock &BB, bool Final) -> uint8_t {
    uint8_t S = In.lookup(&BB);
    auto Set = [&](uint8_t NewS) {
      S = NewS;
      if (S == On)
        R.EverOn = true;
    };
    auto Save = [&](const Value *V) {
      uint8_t &Slot = Saved[V];
      Slot = std::max(Slot, S);
    };
    for (const Instruction &I : BB) {
      if (Final && S == Off)
        R.OffBefore.insert(&I);
      if (auto *LI = dyn_cast<LoadInst>(&I)) {
        if (AVR && isStatusAddress(LI->getPointerOperand(), MoteArch::AVR))
          Save(LI);
        continue;
      }
      if (auto *SI = dyn_cast<StoreInst>(&I)) {
        if (AVR && isStatusAddress(SI->getPointerOperand(), MoteArch::AVR))
          Set(savedState(SI->getValueOperand(), Saved));
        continue;
      }
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (CB->isInlineAsm()) {
        std::vector<AsmStmt> Stmts;
        if ((!AVR && !MSP430) ||
            !parseMoteAsm(*CB, AVR ? MoteArch::AVR : MoteArch::MSP430, Stmts,
                          nullptr)) {
          Set(On);
          continue;
        }
        std::vector<int> Args = asmOperandArgs(*CB);
        auto ArgState = [&](int K) -> uint8_t {
          if (K < 0 || size_t(K) >= Args.size() || Args[K] < 0)
            return On;
          return savedState(CB->getArgOperand(Args[K]), Saved);
        };
        for (const AsmStmt &St : Stmts)
          switch (St.Op) {
          case AsmOp::Nothing:
          case AsmOp::Sleep:
          case AsmOp::LoadProgram:
            break;
          case AsmOp::IrqEnable:
            Set(On);
            break;
          case AsmOp::IrqDisable:
            Set(Off);
            break;
          case AsmOp::ReadStatus:
            if (!CB->getType()->isVoidTy() && !CB->getType()->isStructTy())
              Save(CB);
            break;
          case AsmOp::WriteStatus:
            Set(ArgState(St.Operand));
            break;
          case AsmOp::OrStatus:
            if (St.Operand < 0 ? (St.Imm & FlagBit) != 0 : true)
              Set(St.Operand < 0 ? uint8_t(On)
                                 : std::max(S, ArgState(St.Operand)));
            break;
          case AsmOp::AndNotStatus:
            if (St.Operand < 0 && (St.Imm & FlagBit))
              Set(Off);
            break;
          }
        continue;
      }
      const Function *Callee = CB->getCalledFunction();
      if (!Callee) {
        Set(On); // indirect: anything may run
        continue;
      }
      if (Callee->isIntrinsic() || Callee->getName().starts_with("wsn."))
        continue;
      StringRef Name = Callee->getName();
      if (Name == "__nesc_enable_interrupt") {
        Set(On);
        continue;
      }
      if (Name == "__nesc_disable_interrupt") {
        Set(Off);
        continue;
      }
      if (Callee->isDeclaration()) {
        if (!isFlagNeutralLibcall(Name))
          Set(On);
        continue;
      }
      if (Name == "__nesc_atomic_start" && !CB->getType()->isVoidTy())
        Save(CB); // its result is the status before its cli
      // After the call: off when every return of the callee, entered in
      // this state, is off (an out-of-line atomic start, a sleep that ends
      // in cli); an interrupt may still arrive inside it.
      bool Enters = S == Off;
      // The nesC atomic end restores the status its start saved: saved while Off, it
      // leaves interrupts off whatever its body looks like (a status write of a value).
      bool RestoresOff = Name == "__nesc_atomic_end" && CB->arg_size() == 1 &&
                         savedState(CB->getArgOperand(0), Saved) == Off;
      if (Enters && RestoresOff) {
        Set(Off);
        continue;
      }
      if (Enters && !keepsOff(*Callee))
        R.EverOn = true;
      bool ExitOff = !InProgress.count({Callee, Enters}) &&
                     analyze(*Callee, Enters).EndsOff;
      Set(ExitOff ? uint8_t(Off) : uint8_t(On));
      if (Name == "__nesc_atomic_end" && CB->arg_size() == 1)
        Set(savedState(CB->getArgOperand(0), Saved));
    }
    return S;
  };

  const BasicBlock &Entry = F.getEntryBlock();
  In[&Entry] = EntryIsOff ? Off : On;
  if (!EntryIsOff)
    R.EverOn = true;
  // States only grow (Unreached < Off < On), so this reaches a fixpoint.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const BasicBlock *BB : RPOT) {
      if (In.lookup(BB) == Unreached)
        continue;
      uint8_t Out = RunBlock(*BB, false);
      const Instruction *T = BB->getTerminator();
      SmallVector<const BasicBlock *, 2> Succs(successors(BB));
      if (auto *Br = dyn_cast<BranchInst>(T); Br && Br->isConditional())
        if (auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
            Cmp && Cmp->isEquality())
          if (auto *Z = dyn_cast<ConstantInt>(Cmp->getOperand(1));
              Z && Z->isZero() && flagKnownClear(Cmp->getOperand(0), Saved))
            // The flag was clear where it was saved: only one edge is taken.
            Succs = {Br->getSuccessor(
                Cmp->getPredicate() == ICmpInst::ICMP_EQ ? 0 : 1)};
      for (const BasicBlock *Succ : Succs) {
        uint8_t &SI = In[Succ];
        if (Out > SI) {
          SI = Out;
          Changed = true;
        }
      }
    }
  }
  for (const BasicBlock *BB : RPOT) {
    if (In.lookup(BB) == Unreached)
      continue;
    uint8_t Out = RunBlock(*BB, true);
    if (isa<ReturnInst>(BB->getTerminator()) && Out != Off)
      R.EndsOff = false;
  }
  InProgress.erase(Key);
  return Cache[Key] = std::move(R);
}

bool InterruptState::offBefore(const Instruction &I) {
  const Function &F = *I.getFunction();
  return analyze(F, EntryOff(F)).OffBefore.count(&I) > 0;
}

bool InterruptState::keepsOff(const Function &F) {
  if (F.isDeclaration())
    return F.isIntrinsic() || isFlagNeutralLibcall(F.getName());
  if (InProgress.count({&F, true}))
    return false; // recursion: assume it may enable them
  const Result &R = analyze(F, true);
  return !R.EverOn && R.EndsOff;
}

bool InterruptState::mayRunEnabled(const Function &F) {
  if (F.isDeclaration())
    return true;
  return analyze(F, EntryOff(F)).EverOn;
}

} // namespace wsn
