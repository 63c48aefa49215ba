//===- VariableLayout.cpp - the program's variables in a known order ------===//
#include "VariableLayout.h"
#include "TraceOps.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

namespace wsn {

bool placeableVariable(const GlobalVariable &G) {
  return !G.isDeclaration() && !G.isConstant() && !G.hasSection() && !G.isThreadLocal() &&
         G.getAddressSpace() == 0 && !G.hasComdat() &&
         (G.hasLocalLinkage() || G.hasExternalLinkage()) && !G.getName().starts_with("llvm.");
}

uint64_t placedAlignment(const DataLayout &DL, const GlobalVariable &G) {
  Align A = DL.getPreferredAlign(&G);
  if (DL.getTypeAllocSize(G.getValueType()) >= 2)
    A = std::max(A, DL.getABITypeAlign(Type::getInt16Ty(G.getContext())));
  return A.value();
}

VariableLayout::VariableLayout(Module &M,
                               const SmallPtrSetImpl<const GlobalVariable *> &Listed)
    : M(M) {
  const DataLayout &DL = M.getDataLayout();
  GlobalVariable *Last[2] = {nullptr, nullptr}; // bss, data
  SmallVector<GlobalValue *, 32> Placed;
  for (GlobalVariable &G : M.globals()) {
    if (!Listed.count(&G) || !placeableVariable(G))
      continue;
    // The alignment the backend would give it, made explicit: in a named section the
    // backend keeps an explicit alignment exactly (DataLayout::getPreferredAlign), and the
    // optimiser may no longer raise it (GlobalObject::canIncreaseAlignment). Without a
    // section InstCombine raised byte arrays to word alignment for word accesses where the
    // target has them (MSP430: CC2420ControlP's 8-byte address read as bytes cost +40 bytes
    // of code), so a variable of two bytes or more gets at least a 16-bit word's alignment.
    G.setAlignment(Align(placedAlignment(DL, G)));
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

//===----------------------------------------------------------------------===//
// Variables ordered by their lists
//===----------------------------------------------------------------------===//

unsigned countListRuns(ArrayRef<OrderVar> Vars, ArrayRef<unsigned> Order,
                       ArrayRef<std::vector<unsigned>> Lists) {
  std::vector<BitVector> In(Vars.size(), BitVector(Lists.size()));
  for (size_t L = 0; L < Lists.size(); ++L)
    for (unsigned V : Lists[L])
      In[V].set(L);
  unsigned Runs = 0;
  for (size_t I = 0; I < Order.size(); ++I) {
    BitVector Starts = In[Order[I]];
    if (I && mergesAfter(Vars[Order[I - 1]], Vars[Order[I]]))
      Starts.reset(In[Order[I - 1]]);
    Runs += Starts.count();
  }
  return Runs;
}

namespace {

/// Variables of one section with the same lists, placed together.
struct Group {
  BitVector Sig;                 ///< the lists its variables are in
  std::vector<unsigned> Members; ///< in placing order
  OrderVar First, Last;
};

/// The tour of the groups between a fixed start (nothing before the section's first
/// variable) and a fixed end (the variables that stay last): Cost(X, Y) is the number of
/// list runs that start at Y's first variable when Y follows X.
class GroupTour {
public:
  explicit GroupTour(std::vector<Group> &Groups) : G(Groups) {
    size_t N = G.size();
    C.assign(N * N, 0);
    for (size_t X = 0; X < N; ++X)
      for (size_t Y = 0; Y < N; ++Y) {
        BitVector New = G[Y].Sig, Both = G[Y].Sig;
        New.reset(G[X].Sig);
        Both &= G[X].Sig;
        C[X * N + Y] = New.count() + (mergesAfter(G[X].Last, G[Y].First) ? 0 : Both.count());
      }
  }
  unsigned cost(size_t X, size_t Y) const { return C[X * G.size() + Y]; }

  /// Groups 0 (start) and N-1 (end) are fixed; returns the order of all of them.
  std::vector<unsigned> solve() {
    size_t N = G.size();
    std::vector<unsigned> T{0};
    std::vector<bool> Used(N, false);
    Used[0] = Used[N - 1] = true;
    // Nearest neighbour: the group that starts the fewest runs, then the one that continues
    // the most, then module order.
    for (size_t K = 2; K < N; ++K) {
      unsigned Cur = T.back(), Best = 0;
      bool Have = false;
      int BestShared = -1;
      for (unsigned Y = 1; Y + 1 < N; ++Y) {
        if (Used[Y])
          continue;
        BitVector Both = G[Y].Sig;
        Both &= G[Cur].Sig;
        int Shared = int(Both.count());
        if (!Have || cost(Cur, Y) < cost(Cur, Best) ||
            (cost(Cur, Y) == cost(Cur, Best) && Shared > BestShared)) {
          Best = Y;
          BestShared = Shared;
          Have = true;
        }
      }
      Used[Best] = true;
      T.push_back(Best);
    }
    T.push_back(unsigned(N - 1));
    // Local search: reverse a segment, or move a segment of up to three groups (either way
    // round) elsewhere; first improvement, a bounded number of rounds.
    for (unsigned Round = 0; Round < 100; ++Round)
      if (!reverseOnce(T) && !moveOnce(T))
        break;
    return T;
  }

  unsigned total(ArrayRef<unsigned> T) const {
    unsigned S = 0;
    for (size_t I = 1; I < T.size(); ++I)
      S += cost(T[I - 1], T[I]);
    return S;
  }

private:
  /// The cost of T[I..J] walked backwards minus forwards.
  long reversedDelta(ArrayRef<unsigned> T, size_t I, size_t J) const {
    long D = 0;
    for (size_t K = I; K < J; ++K)
      D += long(cost(T[K + 1], T[K])) - long(cost(T[K], T[K + 1]));
    return D;
  }

  bool reverseOnce(std::vector<unsigned> &T) {
    size_t N = T.size();
    bool Any = false;
    for (size_t I = 1; I + 1 < N; ++I) {
      long Inner = 0; // reversedDelta(T, I, J), grown with J
      for (size_t J = I + 1; J + 1 < N; ++J) {
        Inner += long(cost(T[J], T[J - 1])) - long(cost(T[J - 1], T[J]));
        long D = long(cost(T[I - 1], T[J])) + long(cost(T[I], T[J + 1])) -
                 long(cost(T[I - 1], T[I])) - long(cost(T[J], T[J + 1])) + Inner;
        if (D < 0) {
          std::reverse(T.begin() + I, T.begin() + J + 1);
          Any = true;
          Inner = 0;
          for (size_t K = I; K < J; ++K) // T[I..J] is the new segment
            Inner += long(cost(T[K + 1], T[K])) - long(cost(T[K], T[K + 1]));
        }
      }
    }
    return Any;
  }

  bool moveOnce(std::vector<unsigned> &T) {
    size_t N = T.size();
    for (size_t Len = 1; Len <= 3; ++Len)
      for (size_t I = 1; I + Len < N; ++I) {
        size_t J = I + Len - 1; // the segment T[I..J]
        long Out = long(cost(T[I - 1], T[J + 1])) - long(cost(T[I - 1], T[I])) -
                   long(cost(T[J], T[J + 1]));
        long Rev = reversedDelta(T, I, J);
        for (size_t P = 0; P + 1 < N; ++P) {
          if (P + 1 >= I && P <= J) // an edge touching the segment
            continue;
          unsigned A = T[P], B = T[P + 1];
          long Fwd = long(cost(A, T[I])) + long(cost(T[J], B)) - long(cost(A, B));
          long Bwd = long(cost(A, T[J])) + long(cost(T[I], B)) - long(cost(A, B)) + Rev;
          bool Back = Bwd < Fwd;
          if (Out + std::min(Fwd, Bwd) >= 0)
            continue;
          std::vector<unsigned> Seg(T.begin() + I, T.begin() + J + 1);
          if (Back)
            std::reverse(Seg.begin(), Seg.end());
          T.erase(T.begin() + I, T.begin() + J + 1);
          size_t At = P < I ? P + 1 : P + 1 - Len;
          T.insert(T.begin() + At, Seg.begin(), Seg.end());
          return true;
        }
      }
    return false;
  }

  std::vector<Group> &G;
  std::vector<unsigned> C;
};

} // namespace

std::vector<unsigned> orderByLists(ArrayRef<OrderVar> Vars, unsigned Movable,
                                   ArrayRef<std::vector<unsigned>> Lists) {
  std::vector<BitVector> In(Vars.size(), BitVector(Lists.size()));
  for (size_t L = 0; L < Lists.size(); ++L)
    for (unsigned V : Lists[L])
      In[V].set(L);
  // Group 0 is the start, the last group the variables that stay at the end.
  std::vector<Group> Groups(1);
  Groups[0].Sig = BitVector(Lists.size());
  std::map<std::vector<unsigned>, unsigned> BySig; // set bits -> group
  for (unsigned V = 0; V < Movable; ++V) {
    std::vector<unsigned> Key(In[V].set_bits_begin(), In[V].set_bits_end());
    auto [It, New] = BySig.try_emplace(Key, unsigned(Groups.size()));
    if (New) {
      Groups.emplace_back();
      Groups.back().Sig = In[V];
    }
    Groups[It->second].Members.push_back(V);
  }
  Group End;
  End.Sig = BitVector(Lists.size());
  for (unsigned V = Movable; V < Vars.size(); ++V)
    End.Members.push_back(V);
  if (!End.Members.empty())
    End.Sig = In[Movable]; // the runs that continue into the first of them
  Groups.push_back(std::move(End));
  for (size_t I = 1; I + 1 < Groups.size(); ++I) {
    // Inside a group the aligned variables whose size keeps the alignment first, then the
    // other aligned ones, then the byte-aligned ones (module order within each): an aligned
    // variable after an odd end or after a byte-aligned one starts a run.
    auto Rank = [&](unsigned V) {
      return Vars[V].Align <= 1 ? 2 : Vars[V].Size % Vars[V].Align == 0 ? 0 : 1;
    };
    std::stable_sort(Groups[I].Members.begin(), Groups[I].Members.end(),
                     [&](unsigned A, unsigned B) { return Rank(A) < Rank(B); });
  }
  for (Group &Gr : Groups) {
    if (Gr.Members.empty())
      continue; // the start, or no end: nothing to continue or to break
    Gr.First = Vars[Gr.Members.front()];
    Gr.Last = Vars[Gr.Members.back()];
  }
  // An empty end breaks nothing, an empty start continues nothing: both have no lists.
  GroupTour Tour(Groups);
  std::vector<unsigned> T = Tour.solve();
  std::vector<unsigned> Order;
  for (unsigned Gi : T)
    append_range(Order, Groups[Gi].Members);
  // Never worse than module order by the measure the tour minimises.
  std::vector<unsigned> Module(Vars.size());
  for (unsigned V = 0; V < Vars.size(); ++V)
    Module[V] = V;
  if (countListRuns(Vars, Order, Lists) > countListRuns(Vars, Module, Lists))
    return Module;
  return Order;
}

VariableOrderStats
orderVariablesByLists(Module &M, Module &Instrumented,
                      const DenseMap<const GlobalVariable *, GlobalVariable *> &Original) {
  VariableOrderStats Stats;
  TraceMetadata MD(Instrumented);
  Expected<std::vector<TraceAnchorMD>> Anchors = MD.anchors();
  Expected<std::vector<TraceEffectMD>> Effects = MD.effects();
  Expected<std::vector<TraceInvariantMD>> Invariants = MD.invariants();
  if (!Anchors || !Effects || !Invariants) {
    consumeError(Anchors.takeError());
    consumeError(Effects.takeError());
    consumeError(Invariants.takeError());
    return Stats;
  }
  // The lists of the tables the record lowering makes (RecordLowering.cpp: lowerAnchor,
  // effectTable, checkInputs), as globals of the instrumented copy.
  std::vector<std::vector<const GlobalVariable *>> Lists;
  auto Globals = [](ArrayRef<TraceVarRef> Vars) {
    std::vector<const GlobalVariable *> L;
    for (const TraceVarRef &V : Vars)
      if (V.Global)
        L.push_back(V.Global);
    return L;
  };
  for (const TraceAnchorMD &A : *Anchors)
    Lists.push_back(Globals(A.Vars));
  for (const TraceEffectMD &E : *Effects) {
    if (E.ReturnSize > 4) // no table: one put per variable
      continue;
    std::vector<const GlobalVariable *> W = Globals(E.Writes);
    if (W.size() != E.Writes.size())
      continue;
    bool Split = E.Short && E.HandlerPart <= W.size();
    size_t First = Split ? W.size() - E.HandlerPart : 0, Next = 0;
    std::vector<const GlobalVariable *> Own;
    if (Split)
      for (uint32_t I : *E.Short) {
        if (I >= W.size())
          Split = false;
        else if (I >= First)
          Own.push_back(W[I]);
        else if (I != Next++)
          Split = false;
      }
    if (Split && Next == First) {
      Lists.emplace_back(W.begin(), W.begin() + First); // the callee's other writes
      Lists.push_back(Own);                            // the handler part's it writes
      Lists.emplace_back(W.begin() + First, W.end());   // the handler part
    } else {
      Lists.push_back(std::move(W));
    }
  }
  for (const TraceInvariantMD &I : *Invariants)
    Lists.push_back(Globals(I.Inputs));

  // The placeable listed globals of M, by section kind; and the instrumented copy's own
  // placeable listed globals (the anchor's status), which follow them.
  const DataLayout &DL = M.getDataLayout();
  std::vector<GlobalVariable *> Vars[2];                                 // M's: bss, data
  std::vector<const GlobalVariable *> Added[2];                          // the copy's own
  SmallPtrSet<const GlobalVariable *, 32> Listed;
  for (auto &L : Lists)
    Listed.insert(L.begin(), L.end());
  for (GlobalVariable &CG : Instrumented.globals()) {
    if (!Listed.count(&CG) || !placeableVariable(CG))
      continue;
    unsigned Kind = CG.getInitializer()->isNullValue() ? 0 : 1;
    GlobalVariable *G = Original.lookup(&CG);
    if (G && !placeableVariable(*G))
      continue;
    if (G)
      Vars[Kind].push_back(G);
    else
      Added[Kind].push_back(&CG);
  }
  DenseMap<const GlobalVariable *, const GlobalVariable *> CopyOf;
  for (auto &[CG, G] : Original)
    CopyOf[G] = CG;
  std::vector<GlobalVariable *> NewOrder;
  for (unsigned Kind = 0; Kind < 2; ++Kind) {
    std::vector<OrderVar> OV;
    DenseMap<const GlobalVariable *, unsigned> At;
    auto Add = [&](const GlobalVariable *CG, const GlobalVariable &Like) {
      At[CG] = unsigned(OV.size());
      OV.push_back({DL.getTypeAllocSize(Like.getValueType()), placedAlignment(DL, Like)});
    };
    for (GlobalVariable *G : Vars[Kind])
      Add(CopyOf.lookup(G), *G);
    unsigned Movable = unsigned(OV.size());
    for (const GlobalVariable *CG : Added[Kind])
      Add(CG, *CG);
    // Each distinct list once (records with the same list share one table).
    std::set<std::vector<unsigned>> Distinct;
    for (auto &L : Lists) {
      std::vector<unsigned> Ix;
      for (const GlobalVariable *CG : L)
        if (auto It = At.find(CG); It != At.end())
          Ix.push_back(It->second);
      llvm::sort(Ix);
      Ix.erase(std::unique(Ix.begin(), Ix.end()), Ix.end());
      if (!Ix.empty())
        Distinct.insert(std::move(Ix));
    }
    std::vector<std::vector<unsigned>> KindLists(Distinct.begin(), Distinct.end());
    std::vector<unsigned> Order = orderByLists(OV, Movable, KindLists);
    std::vector<unsigned> Module(OV.size());
    for (unsigned V = 0; V < OV.size(); ++V)
      Module[V] = V;
    Stats.Placed += Movable;
    Stats.Lists += unsigned(KindLists.size());
    Stats.RunsBefore += countListRuns(OV, Module, KindLists);
    Stats.RunsAfter += countListRuns(OV, Order, KindLists);
    for (unsigned V : Order)
      if (V < Movable)
        NewOrder.push_back(Vars[Kind][V]);
  }

  // The listed globals take the slots they had, in the new order; the rest keep theirs.
  SmallPtrSet<const GlobalVariable *, 32> Moving(NewOrder.begin(), NewOrder.end());
  std::vector<GlobalVariable *> All;
  size_t Next = 0;
  for (GlobalVariable &G : M.globals())
    All.push_back(Moving.count(&G) ? NewOrder[Next++] : &G);
  bool Same = true;
  size_t I = 0;
  for (GlobalVariable &G : M.globals())
    Same &= All[I++] == &G;
  if (Same)
    return Stats;
  for (GlobalVariable *G : All) {
    M.removeGlobalVariable(G);
    M.insertGlobalVariable(G);
  }
  return Stats;
}

} // namespace wsn
