//===- VariableLayout.cpp - the program's variables in a known order ------===//
#include "VariableLayout.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <optional>

using namespace llvm;

namespace wsn {

static bool placeable(const GlobalVariable &G) {
  return !G.isDeclaration() && !G.isConstant() && !G.hasSection() && !G.isThreadLocal() &&
         G.getAddressSpace() == 0 && !G.hasComdat() &&
         (G.hasLocalLinkage() || G.hasExternalLinkage()) && !G.getName().starts_with("llvm.");
}

VariableLayout::VariableLayout(Module &M,
                               const SmallPtrSetImpl<const GlobalVariable *> &Listed)
    : M(M) {
  const DataLayout &DL = M.getDataLayout();
  GlobalVariable *Last[2] = {nullptr, nullptr}; // bss, data
  SmallVector<GlobalValue *, 32> Placed;
  for (GlobalVariable &G : M.globals()) {
    if (!Listed.count(&G) || !placeable(G))
      continue;
    // The alignment the backend would give it, made explicit: in a named section the
    // backend keeps an explicit alignment exactly (DataLayout::getPreferredAlign), and the
    // optimiser may no longer raise it (GlobalObject::canIncreaseAlignment). Without a
    // section InstCombine raised byte arrays to word alignment for word accesses where the
    // target has them (MSP430: CC2420ControlP's 8-byte address read as bytes cost +40 bytes
    // of code), so a variable of two bytes or more gets at least a 16-bit word's alignment.
    Align A = DL.getPreferredAlign(&G);
    if (DL.getTypeAllocSize(G.getValueType()) >= 2)
      A = std::max(A, DL.getABITypeAlign(Type::getInt16Ty(M.getContext())));
    G.setAlignment(A);
    bool Zero = G.getInitializer()->isNullValue();
    G.setSection(Zero ? BssSection : DataSection);
    Order[&G];
    Placed.push_back(&G);
    if (GlobalVariable *Prev = Last[Zero ? 0 : 1])
      Order[Prev].Next = &G;
    Last[Zero ? 0 : 1] = &G;
  }
  // A merged pair names only its first variable: the others must not be deleted or changed
  // by the optimiser after the lowering (a variable the program only writes would go, and
  // the ones after it would move up).
  appendToCompilerUsed(M, Placed);
}

/// A placed global and an offset into it, or a constant address (G null).
struct Position {
  const GlobalVariable *G = nullptr;
  uint64_t Offset = 0;
};

static std::optional<Position> positionOf(const DataLayout &DL, Constant *C) {
  if (auto *CE = dyn_cast<ConstantExpr>(C))
    if (CE->getOpcode() == Instruction::IntToPtr)
      if (auto *Addr = dyn_cast<ConstantInt>(CE->getOperand(0)))
        return Position{nullptr, Addr->getZExtValue()};
  APInt Off(DL.getIndexTypeSizeInBits(C->getType()), 0);
  const Value *Base = C->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
  auto *G = dyn_cast<GlobalVariable>(Base);
  if (!G || Off.isNegative())
    return std::nullopt;
  return Position{G, Off.getZExtValue()};
}

bool VariableLayout::follows(Constant *A, uint32_t SizeA, Constant *B) const {
  const DataLayout &DL = M.getDataLayout();
  std::optional<Position> PA = positionOf(DL, A), PB = positionOf(DL, B);
  if (!PA || !PB || !SizeA)
    return false;
  if (PA->G == PB->G) // the same global, or two constant addresses
    return PA->Offset + SizeA == PB->Offset;
  if (!PA->G || !PB->G || PB->Offset != 0)
    return false;
  auto It = Order.find(PA->G);
  if (It == Order.end() || It->second.Next != PB->G ||
      PA->Offset + SizeA != DL.getTypeAllocSize(PA->G->getValueType()))
    return false;
  // No padding between them, wherever the section puts the first: B needs no alignment, or
  // A starts at a multiple of B's and its size is one too.
  uint64_t AlignA = PA->G->getAlign().valueOrOne().value();
  uint64_t AlignB = PB->G->getAlign().valueOrOne().value();
  return AlignB == 1 || (AlignA >= AlignB && (PA->Offset + SizeA) % AlignB == 0);
}

} // namespace wsn
