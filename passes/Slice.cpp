//===- Slice.cpp - module model and interprocedural backward slice --------===//
//
// Implements thesis section 4.1 ("What to Record"): the backward slice from the
// invariants decides which functions and globals matter. The rules are in
// spec/analysis.md.
//
//===----------------------------------------------------------------------===//
#include "Slice.h"
#include "PfdgGraph.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>

using namespace llvm;

namespace wsn {

bool ObjSet::merge(const ObjSet &O) {
  bool Changed = false;
  if (O.Unknown && !Unknown)
    Unknown = Changed = true;
  for (unsigned X : O.Objs)
    if (!is_contained(Objs, X)) {
      Objs.push_back(X);
      Changed = true;
    }
  return Changed;
}

static const FunctionRole NoRole;

const FunctionRole &ModuleModel::role(const Function *F) const {
  auto It = Roles.find(F);
  return It == Roles.end() ? NoRole : It->second;
}

bool ModuleModel::isTransparentCallee(const Function *F) {
  if (!F)
    return false;
  if (F->isIntrinsic())
    return true;
  StringRef N = F->getName();
  return N.starts_with("wsn.") || N.starts_with("__wsn_") ||
         N == "__nesc_atomic_start" || N == "__nesc_atomic_end" ||
         N == "__nesc_enable_interrupt" || N == "__nesc_disable_interrupt";
}

// A use of a function or memory object "takes its address" unless it is a
// direct call, a load/store address, a memory intrinsic operand, a comparison,
// or flows (through GEPs, casts, phis, selects) only into those. Uses inside
// llvm.* globals (llvm.used, annotations) do not count.
static bool addressEscapes(const Value *V, bool IsFunction) {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 8> Seen{V};
  while (!Work.empty()) {
    const Value *Cur = Work.pop_back_val();
    for (const Use &U : Cur->uses()) {
      const User *Usr = U.getUser();
      if (const auto *GV = dyn_cast<GlobalVariable>(Usr)) {
        if (GV->getName().starts_with("llvm."))
          continue;
        return true;
      }
      if (const auto *CE = dyn_cast<ConstantExpr>(Usr)) {
        if (CE->isCast() || CE->getOpcode() == Instruction::GetElementPtr) {
          if (Seen.insert(CE).second)
            Work.push_back(CE);
          continue;
        }
        return true;
      }
      if (isa<ConstantAggregate>(Usr)) {
        // Only inside llvm.* metadata arrays is it harmless.
        bool AllMeta = true;
        SmallVector<const User *, 4> Up{Usr};
        SmallPtrSet<const User *, 4> UpSeen;
        while (!Up.empty() && AllMeta) {
          const User *X = Up.pop_back_val();
          for (const User *XU : X->users()) {
            if (const auto *G = dyn_cast<GlobalVariable>(XU)) {
              if (!G->getName().starts_with("llvm."))
                AllMeta = false;
            } else if (isa<Constant>(XU)) {
              if (UpSeen.insert(XU).second)
                Up.push_back(XU);
            } else {
              AllMeta = false;
            }
          }
        }
        if (AllMeta)
          continue;
        return true;
      }
      if (const auto *CB = dyn_cast<CallBase>(Usr)) {
        if (CB->isCallee(&U))
          continue;
        if (!IsFunction) {
          if (isa<MemIntrinsic>(CB) || isa<DbgInfoIntrinsic>(CB) ||
              CB->isLifetimeStartOrEnd())
            continue;
          // Trace ops take addresses as operands without storing them.
          if (const Function *Callee = CB->getCalledFunction())
            if (Callee->getName().starts_with("wsn."))
              continue;
        }
        return true;
      }
      if (IsFunction)
        return true; // any other use of a function: taken
      if (const auto *LI = dyn_cast<LoadInst>(Usr)) {
        (void)LI;
        continue;
      }
      if (const auto *SI = dyn_cast<StoreInst>(Usr)) {
        if (SI->getPointerOperand() == Cur && SI->getValueOperand() != Cur)
          continue;
        return true;
      }
      if (isa<AtomicRMWInst>(Usr) || isa<AtomicCmpXchgInst>(Usr)) {
        if (U.getOperandNo() == 0)
          continue;
        return true;
      }
      if (isa<ICmpInst>(Usr))
        continue;
      if (isa<GetElementPtrInst>(Usr) || isa<BitCastInst>(Usr) ||
          isa<AddrSpaceCastInst>(Usr) || isa<PHINode>(Usr) ||
          isa<SelectInst>(Usr)) {
        if (Seen.insert(Usr).second)
          Work.push_back(Usr);
        continue;
      }
      return true;
    }
  }
  return false;
}

static bool compatibleCallee(const CallBase &CB, const Function &F) {
  FunctionType *CT = CB.getFunctionType(), *FT = F.getFunctionType();
  if (CT == FT)
    return true;
  if (CT->getNumParams() != FT->getNumParams() && !FT->isVarArg())
    return false;
  return CT->getReturnType()->isVoidTy() == FT->getReturnType()->isVoidTy();
}

ModuleModel::ModuleModel(Module &Mod) : M(Mod) {
  Annots = collectAnnotations(M);
  for (Function &F : M) {
    Roles[&F] = classifyFunction(F, Annots);
    if (F.isDeclaration())
      continue;
    FnIndex[&F] = Defined.size();
    Defined.push_back(&F);
    if (Roles[&F].IsInvariant)
      Invariants.push_back(&F);
    if (addressEscapes(&F, /*IsFunction=*/true))
      AddrTakenFns.insert(&F);
  }
  buildCallGraph();
  buildObjects();
  solveArgumentPointsTo();
  buildWriters();
}

void ModuleModel::buildCallGraph() {
  std::vector<Function *> Taken;
  for (Function *F : Defined)
    if (AddrTakenFns.count(F))
      Taken.push_back(F);
  FnSuccs.assign(Defined.size(), {});
  for (Function *F : Defined) {
    auto &Calls = CallsIn[F];
    SmallPtrSet<Function *, 8> SeenCallee;
    for (Instruction &I : instructions(*F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm())
        continue;
      SmallVector<Function *, 2> Ts;
      if (auto *Direct =
              dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts())) {
        if (isTransparentCallee(Direct))
          continue;
        Ts.push_back(Direct);
      } else {
        // Indirect call: every address-taken function that fits.
        for (Function *T : Taken)
          if (compatibleCallee(*CB, *T))
            Ts.push_back(T);
      }
      Calls.push_back(CB);
      for (Function *T : Ts) {
        CallSitesOf[T].push_back(CB);
        if (SeenCallee.insert(T).second) {
          Callees[F].push_back(T);
          if (!T->isDeclaration())
            FnSuccs[FnIndex[F]].push_back(FnIndex[T]);
        }
      }
      Targets[CB] = std::move(Ts);
    }
  }
  FnScc = tarjanSccs(
      Defined.size(), [&](unsigned V) { return ArrayRef<unsigned>(FnSuccs[V]); },
      SccMembersList);
}

ArrayRef<Function *> ModuleModel::targets(const CallBase *CB) const {
  auto It = Targets.find(CB);
  if (It == Targets.end())
    return {};
  return It->second;
}
ArrayRef<Function *> ModuleModel::callees(const Function *F) const {
  auto It = Callees.find(F);
  if (It == Callees.end())
    return {};
  return It->second;
}
ArrayRef<CallBase *> ModuleModel::callSites(const Function *F) const {
  auto It = CallSitesOf.find(F);
  if (It == CallSitesOf.end())
    return {};
  return It->second;
}
ArrayRef<CallBase *> ModuleModel::callsIn(const Function *F) const {
  auto It = CallsIn.find(F);
  if (It == CallsIn.end())
    return {};
  return It->second;
}

unsigned ModuleModel::globalId(const GlobalVariable *G) const {
  return ObjectIds.lookup(G);
}

const GlobalVariable *ModuleModel::objectGlobal(unsigned Id) const {
  return dyn_cast<GlobalVariable>(Objects[Id]);
}

void ModuleModel::buildObjects() {
  auto addObj = [&](const Value *V) {
    unsigned Id = Objects.size();
    Objects.push_back(V);
    ObjectIds[V] = Id;
    bool Taken = addressEscapes(V, /*IsFunction=*/false);
    ObjAddrTaken.push_back(Taken);
    if (Taken)
      AddrTakenObjs.push_back(Id);
  };
  for (GlobalVariable &G : M.globals())
    if (!G.getName().starts_with("llvm."))
      addObj(&G);
  for (Function *F : Defined)
    for (Instruction &I : instructions(*F))
      if (isa<AllocaInst>(I))
        addObj(&I);
}

void ModuleModel::addPointsTo(const Value *Ptr, ObjSet &Out) const {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Ptr, Objs, nullptr, /*MaxLookup=*/0);
  for (const Value *O : Objs) {
    if (const auto *GA = dyn_cast<GlobalAlias>(O))
      O = GA->getAliaseeObject();
    if (!O)
      continue;
    auto It = ObjectIds.find(O);
    if (It != ObjectIds.end()) {
      Out.add(It->second);
      continue;
    }
    if (const auto *A = dyn_cast<Argument>(O)) {
      auto AIt = ArgPts.find(A);
      if (AIt != ArgPts.end())
        Out.merge(AIt->second);
      continue;
    }
    if (isa<ConstantPointerNull>(O) || isa<UndefValue>(O) || isa<Function>(O))
      continue;
    // A constant address (memory-mapped register): not a program object.
    if (const auto *CE = dyn_cast<ConstantExpr>(O))
      if (CE->getOpcode() == Instruction::IntToPtr)
        continue;
    if (const auto *ITP = dyn_cast<IntToPtrInst>(O))
      if (isa<Constant>(ITP->getOperand(0)))
        continue;
    Out.Unknown = true;
  }
}

ObjSet ModuleModel::pointsTo(const Value *Ptr) const {
  ObjSet S;
  addPointsTo(Ptr, S);
  return S;
}

// Formal pointer arguments point to whatever their call sites pass; functions
// that may be called from outside the module's view (address taken) start
// with "unknown". Iterated to a fixpoint (recursion, chains of calls).
void ModuleModel::solveArgumentPointsTo() {
  for (Function *F : Defined)
    for (Argument &A : F->args())
      if (A.getType()->isPointerTy()) {
        ArgPts[&A].Unknown = AddrTakenFns.count(F);
      }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[CB, Ts] : Targets) {
      for (Function *T : Ts) {
        if (T->isDeclaration())
          continue;
        unsigned N = std::min<unsigned>(T->arg_size(), CB->arg_size());
        for (unsigned I = 0; I < N; ++I) {
          Argument *A = T->getArg(I);
          if (!A->getType()->isPointerTy())
            continue;
          ObjSet S;
          addPointsTo(CB->getArgOperand(I), S);
          if (ArgPts[A].merge(S))
            Changed = true;
        }
      }
    }
  }
}

static bool isProgramMemoryCall(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (CB.isInlineAsm())
    return false;
  if (F && ModuleModel::isTransparentCallee(F))
    return false;
  return true;
}

void ModuleModel::reads(const Instruction &I, ObjSet &Out) const {
  if (const auto *LI = dyn_cast<LoadInst>(&I))
    return addPointsTo(LI->getPointerOperand(), Out);
  if (const auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return addPointsTo(RMW->getPointerOperand(), Out);
  if (const auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return addPointsTo(CX->getPointerOperand(), Out);
  if (const auto *MT = dyn_cast<MemTransferInst>(&I))
    return addPointsTo(MT->getRawSource(), Out);
  if (const auto *CB = dyn_cast<CallBase>(&I))
    addExternalCallAccess(*CB, CB->doesNotAccessMemory(), Out);
}

void ModuleModel::writes(const Instruction &I, ObjSet &Out) const {
  if (const auto *SI = dyn_cast<StoreInst>(&I))
    return addPointsTo(SI->getPointerOperand(), Out);
  if (const auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return addPointsTo(RMW->getPointerOperand(), Out);
  if (const auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return addPointsTo(CX->getPointerOperand(), Out);
  if (const auto *MI = dyn_cast<MemIntrinsic>(&I))
    return addPointsTo(MI->getRawDest(), Out);
  if (const auto *CB = dyn_cast<CallBase>(&I))
    addExternalCallAccess(*CB, CB->onlyReadsMemory(), Out);
}

void ModuleModel::addExternalCallAccess(const CallBase &CB, bool NoAccess,
                                        ObjSet &Out) const {
  const Function *F = CB.getCalledFunction();
  if (!F || !F->isDeclaration() || !isProgramMemoryCall(CB) || isa<IntrinsicInst>(CB))
    return;
  if (NoAccess)
    return;
  for (const Value *A : CB.args())
    if (A->getType()->isPointerTy())
      addPointsTo(A, Out);
  if (!CB.onlyAccessesArgMemory())
    Out.Unknown = true;
}

void ModuleModel::buildWriters() {
  Writers.assign(Objects.size(), {});
  for (Function *F : Defined)
    for (Instruction &I : instructions(*F)) {
      if (!I.mayWriteToMemory())
        continue;
      ObjSet S;
      writes(I, S);
      for (unsigned O : S.Objs)
        Writers[O].push_back(&I);
      if (S.Unknown)
        UnknownWriters.push_back(&I);
    }
}

void ModuleModel::toGlobals(const ObjSet &S, GlobalSet &Out) const {
  if (S.Unknown)
    Out.Unknown = true;
  for (unsigned O : S.Objs)
    if (isa<GlobalVariable>(Objects[O]))
      Out.Ids.insert(O);
}

const GlobalSet &ModuleModel::directModRef(const Function *F) {
  auto [It, New] = DirectMR.try_emplace(F);
  if (!New || F->isDeclaration())
    return It->second;
  GlobalSet S;
  for (const Instruction &I : instructions(*F)) {
    if (!I.mayReadOrWriteMemory())
      continue;
    ObjSet O;
    reads(I, O);
    writes(I, O);
    toGlobals(O, S);
  }
  DirectMR[F] = std::move(S);
  return DirectMR[F];
}

// The transitive mod (ref) sets of the call graph's strongly connected
// components, as bit sets over the global ids (globals have the first object
// ids): a component's set is the union of its members' own accesses and the
// sets of the components they call. tarjanSccs numbers a component's callees
// first, so one pass in increasing order over the components reachable from
// the one asked about computes them all; each is computed once per kind and
// kept. Unions of bit sets cost a few words per call edge, where unions of
// hash sets cost the size of every callee's set (superlinear on deep call
// graphs). Only the sets handed out are converted to GlobalSet.
const GlobalSet &ModuleModel::transitive(unsigned Scc, bool Mod) {
  auto &Memo = Mod ? SccMod : SccRef;
  auto It = Memo.find(Scc);
  if (It != Memo.end())
    return It->second;
  SccBits &B = Mod ? ModBits : RefBits;
  const unsigned NumSccs = SccMembersList.size();
  if (B.Done.empty()) {
    B.Done.assign(NumSccs, false);
    B.Unknown.assign(NumSccs, false);
    B.Sets.resize(NumSccs);
    NumGlobalIds = 0;
    while (NumGlobalIds < Objects.size() &&
           isa<GlobalVariable>(Objects[NumGlobalIds]))
      ++NumGlobalIds;
  }
  // The components reachable from Scc that are not computed yet.
  SmallVector<unsigned, 16> Work{Scc}, Need;
  if (!B.Done[Scc]) {
    B.Done[Scc] = true; // reserved; filled below in callee-first order
    Need.push_back(Scc);
  }
  while (!Work.empty()) {
    unsigned C = Work.pop_back_val();
    for (unsigned FI : SccMembersList[C])
      for (unsigned Succ : FnSuccs[FI]) {
        unsigned D = FnScc[Succ];
        if (!B.Done[D]) {
          B.Done[D] = true;
          Need.push_back(D);
          Work.push_back(D);
        }
      }
  }
  llvm::sort(Need);
  for (unsigned C : Need) {
    BitVector &Set = B.Sets[C];
    Set.resize(NumGlobalIds);
    bool Unknown = false;
    for (unsigned FI : SccMembersList[C]) {
      Function *F = Defined[FI];
      for (const Instruction &I : instructions(*F)) {
        if (!I.mayReadOrWriteMemory())
          continue;
        ObjSet O;
        if (Mod)
          writes(I, O);
        else {
          reads(I, O);
          writes(I, O);
        }
        Unknown |= O.Unknown;
        for (unsigned Id : O.Objs)
          if (Id < NumGlobalIds)
            Set.set(Id);
      }
      for (unsigned Succ : FnSuccs[FI]) {
        unsigned D = FnScc[Succ];
        if (D == C)
          continue;
        Set |= B.Sets[D];
        Unknown |= B.Unknown[D];
      }
    }
    B.Unknown[C] = Unknown;
  }
  GlobalSet S;
  S.Unknown = B.Unknown[Scc];
  for (unsigned Id : B.Sets[Scc].set_bits())
    S.Ids.insert(Id);
  return Memo[Scc] = std::move(S);
}

const GlobalSet &ModuleModel::transitiveMod(const Function *F) {
  static const GlobalSet Empty;
  auto It = FnIndex.find(F);
  if (It == FnIndex.end())
    return Empty;
  return transitive(FnScc[It->second], true);
}

const GlobalSet &ModuleModel::transitiveRef(const Function *F) {
  static const GlobalSet Empty;
  auto It = FnIndex.find(F);
  if (It == FnIndex.end())
    return Empty;
  return transitive(FnScc[It->second], false);
}

std::vector<const GlobalVariable *>
ModuleModel::globals(const GlobalSet &S) const {
  std::vector<const GlobalVariable *> Out;
  if (!S.Unknown) {
    // Only the listed ids: globals have the first ids, in module order.
    std::vector<unsigned> Ids(S.Ids.begin(), S.Ids.end());
    llvm::sort(Ids);
    for (unsigned Id : Ids)
      if (const auto *G = dyn_cast<GlobalVariable>(Objects[Id]))
        Out.push_back(G);
    return Out;
  }
  for (unsigned Id = 0; Id < Objects.size(); ++Id) {
    const auto *G = dyn_cast<GlobalVariable>(Objects[Id]);
    if (!G)
      break; // globals come first
    if (S.Ids.count(Id) || (S.Unknown && ObjAddrTaken[Id]))
      Out.push_back(G);
  }
  return Out;
}

bool ModuleModel::intersects(const GlobalSet &A, const GlobalSet &B) const {
  const GlobalSet &Small = A.Ids.size() < B.Ids.size() ? A : B;
  const GlobalSet &Big = &Small == &A ? B : A;
  for (unsigned Id : Small.Ids)
    if (Big.Ids.count(Id))
      return true;
  auto anyTaken = [&](const GlobalSet &S) {
    for (unsigned Id : S.Ids)
      if (ObjAddrTaken[Id])
        return true;
    return false;
  };
  if (A.Unknown && (B.Unknown || anyTaken(B)))
    return true;
  if (B.Unknown && anyTaken(A))
    return true;
  return false;
}

//===----------------------------------------------------------------------===//
// The slice
//===----------------------------------------------------------------------===//

const char *depKindName(DepKind K) {
  switch (K) {
  case DepKind::Criterion:
    return "criterion";
  case DepKind::Data:
    return "data";
  case DepKind::Control:
    return "control";
  case DepKind::Memory:
    return "memory";
  case DepKind::Argument:
    return "argument";
  case DepKind::Return:
    return "return";
  case DepKind::Call:
    return "call";
  case DepKind::Main:
    return "main";
  }
  return "?";
}

static const Function *functionOf(const Value *V) {
  if (const auto *I = dyn_cast<Instruction>(V))
    return I->getFunction();
  if (const auto *A = dyn_cast<Argument>(V))
    return A->getParent();
  return nullptr;
}

std::string describeValue(const Value *V) {
  std::string S;
  raw_string_ostream OS(S);
  if (!V) {
    OS << "(none)";
  } else if (const auto *A = dyn_cast<Argument>(V)) {
    OS << "argument #" << A->getArgNo() << " of @" << A->getParent()->getName();
  } else if (const auto *I = dyn_cast<Instruction>(V)) {
    OS << I->getOpcodeName();
    if (const auto *CB = dyn_cast<CallBase>(I))
      if (const Function *C = CB->getCalledFunction())
        OS << " @" << C->getName();
    OS << " in @" << I->getFunction()->getName();
    if (const DebugLoc &DL = I->getDebugLoc())
      OS << " (line " << DL.getLine() << ")";
  } else if (const auto *F = dyn_cast<Function>(V)) {
    OS << "@" << F->getName();
  } else {
    V->printAsOperand(OS, false);
  }
  return S;
}

std::string SliceReason::describe() const {
  std::string S = depKindName(Kind);
  S += ": ";
  S += describeValue(What);
  if (Needed) {
    S += " <- needed by ";
    S += describeValue(Needed);
  }
  return S;
}

namespace {
/// Control dependence of one function from its post-dominator tree: block B
/// depends on the terminator of A if B post-dominates a successor of A but not
/// A itself (Ferrante, Ottenstein and Warren).
struct ControlDeps {
  DenseMap<const BasicBlock *, SmallVector<const BasicBlock *, 2>> Of;
  explicit ControlDeps(Function &F) {
    PostDominatorTree PDT(F);
    for (BasicBlock &A : F) {
      const Instruction *T = A.getTerminator();
      if (!T || T->getNumSuccessors() < 2)
        continue;
      DomTreeNode *AN = PDT.getNode(&A);
      DomTreeNode *Stop = AN ? AN->getIDom() : nullptr;
      for (const BasicBlock *S : successors(&A)) {
        for (DomTreeNode *R = PDT.getNode(S); R && R != Stop; R = R->getIDom()) {
          if (!R->getBlock())
            break;
          auto &L = Of[R->getBlock()];
          if (!is_contained(L, &A))
            L.push_back(&A);
          if (R == AN)
            break; // loop back to A itself
        }
      }
    }
  }
};

class Slicer {
public:
  Slicer(ModuleModel &MM, ModuleModel::AAGetter GetAA, bool ValuesOnly)
      : MM(MM), GetAA(GetAA), ValuesOnly(ValuesOnly) {}

  SliceResult run(const Function *Only) {
    for (Function *Inv : MM.invariants()) {
      if (Only && Inv != Only)
        continue;
      const Instruction *First = nullptr;
      for (Instruction &I : instructions(*Inv))
        if (isa<ReturnInst>(I)) {
          add(&I, DepKind::Criterion, nullptr);
          First = First ? First : &I;
        }
      // An invariant's check is the criterion: its calls always matter.
      if (First)
        makeEffectful(Inv, First);
    }
    while (!Work.empty()) {
      const Value *V = Work.front();
      Work.pop_front();
      process(V);
    }
    if (Function *Main = MM.module().getFunction("main"))
      if (!Main->isDeclaration() && !R.Functions.count(Main))
        R.Functions.insert({Main, SliceReason{DepKind::Main, Main, nullptr}});
    return std::move(R);
  }

private:
  ModuleModel &MM;
  ModuleModel::AAGetter GetAA;
  bool ValuesOnly;
  SliceResult R;
  std::deque<const Value *> Work;
  DenseMap<const Function *, std::unique_ptr<ControlDeps>> CDs;
  DenseSet<std::pair<const Function *, const Function *>> DepSeen;
  DenseSet<const Function *> ReturnsAdded;
  /// Functions with a sliced effect (isEffect): all their call sites are in
  /// the slice. Invariant-checking functions from the start.
  DenseSet<const Function *> Effectful;
  /// Sliced formal arguments by function, linked at each call site that
  /// enters the slice.
  DenseMap<const Function *, SmallVector<const Argument *, 2>> PendingArgs;

  void add(const Value *V, DepKind K, const Value *Needed) {
    if (!isa<Instruction>(V) && !isa<Argument>(V))
      return;
    if (!R.Values.insert(V).second)
      return;
    const Function *F = functionOf(V);
    if (Needed) {
      const Function *G = functionOf(Needed);
      if (G && F && G != F && DepSeen.insert({G, F}).second)
        R.Deps.push_back({G, F, K});
    }
    if (F && !R.Functions.count(F))
      R.Functions.insert({F, SliceReason{K, V, Needed}});
    Work.push_back(V);
    // A function's sliced effects happen only if one of its call sites runs;
    // a function sliced only for the value it returns matters at the call
    // sites whose value the slice uses (they enter by data dependence).
    if (F && !Effectful.count(F) && isEffect(V))
      makeEffectful(F, V);
    // A call site entering the slice: the arguments its callees' sliced
    // formals wait for.
    if (const auto *CB = dyn_cast<CallBase>(V))
      for (Function *T : MM.targets(CB))
        if (auto It = PendingArgs.find(T); It != PendingArgs.end())
          for (const Argument *A : It->second)
            linkArgument(CB, A);
  }

  /// A sliced instruction whose execution changes state the slice reads
  /// (not only a value inside its function): a write to memory, inline asm,
  /// an external call, or a call of a function with sliced effects.
  bool isEffect(const Value *V) const {
    const auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return false;
    if (const auto *CB = dyn_cast<CallBase>(I)) {
      if (CB->isInlineAsm())
        return true;
      if (isa<IntrinsicInst>(CB))
        return CB->mayWriteToMemory();
      ArrayRef<Function *> Ts = MM.targets(CB);
      if (Ts.empty())
        return true; // unknown target
      for (Function *T : Ts)
        if (T->isDeclaration() ? CB->mayWriteToMemory() : Effectful.count(T) > 0)
          return true;
      return false;
    }
    return I->mayWriteToMemory();
  }

  void makeEffectful(const Function *F, const Value *Why) {
    if (!Effectful.insert(F).second)
      return;
    for (CallBase *CS : MM.callSites(F)) {
      addFrom(CS, DepKind::Call, Why);
      // Already sliced (its value was used): now an effect of its caller.
      const Function *C = CS->getFunction();
      if (C && !Effectful.count(C))
        makeEffectful(C, CS);
    }
    if (auto It = PendingArgs.find(F); It != PendingArgs.end())
      for (const Argument *A : It->second)
        for (CallBase *CS : MM.callSites(F))
          linkArgument(CS, A);
  }

  void linkArgument(const CallBase *CS, const Argument *A) {
    if (A->getArgNo() < CS->arg_size()) {
      link(CS->getArgOperand(A->getArgNo()), DepKind::Argument, A);
      useValue(CS->getArgOperand(A->getArgNo()), A);
    }
  }
  // Like add(), but the dependent is a function's entry (call/argument rules).
  void addFrom(const Value *V, DepKind K, const Value *Needed) {
    add(V, K, Needed);
    // A second dependence of an already-sliced value still links functions.
    if (Needed) {
      const Function *F = functionOf(V), *G = functionOf(Needed);
      if (F && G && F != G && DepSeen.insert({G, F}).second)
        R.Deps.push_back({G, F, K});
    }
  }
  void link(const Value *Provider, DepKind K, const Value *Needed) {
    add(Provider, K, Needed);
    const Function *F = functionOf(Provider), *G = functionOf(Needed);
    if (F && G && F != G && DepSeen.insert({G, F}).second)
      R.Deps.push_back({G, F, K});
  }

  ControlDeps &cd(const Function *F) {
    auto &P = CDs[F];
    if (!P)
      P = std::make_unique<ControlDeps>(const_cast<Function &>(*F));
    return *P;
  }

  void useValue(const Value *Op, const Value *User) {
    if (isa<Instruction>(Op) || isa<Argument>(Op))
      link(Op, DepKind::Data, User);
    // A call's value depends on what its callees return.
    if (const auto *CB = dyn_cast<CallBase>(Op))
      for (Function *T : MM.targets(CB))
        if (!T->isDeclaration())
          for (Instruction &I : instructions(*T))
            if (isa<ReturnInst>(I))
              link(&I, DepKind::Return, CB);
  }

  void memoryReads(const Instruction &I) {
    ObjSet S;
    MM.reads(I, S);
    if (S.empty())
      return;
    SmallVector<unsigned, 8> Objs(S.Objs.begin(), S.Objs.end());
    if (S.Unknown) {
      // Every address-taken object, unless alias analysis proves otherwise.
      const Value *Ptr = getLoadStorePointerOperand(&I);
      AAResults *AA =
          Ptr ? GetAA(const_cast<Function &>(*I.getFunction())) : nullptr;
      for (unsigned O : MM.addressTakenObjects()) {
        const auto *G = MM.objectGlobal(O);
        if (AA && G &&
            AA->alias(MemoryLocation::getBeforeOrAfter(Ptr),
                      MemoryLocation::getBeforeOrAfter(G)) ==
                AliasResult::NoAlias)
          continue;
        if (!is_contained(Objs, O))
          Objs.push_back(O);
      }
    }
    for (unsigned O : Objs) {
      if (const auto *G = MM.objectGlobal(O))
        if (!R.Globals.count(G))
          R.Globals.insert({G, SliceReason{DepKind::Memory, &I, nullptr}});
      for (Instruction *W : MM.writers(O))
        link(W, DepKind::Memory, &I);
      if (MM.objectAddressTaken(O))
        for (Instruction *W : MM.unknownWriters())
          link(W, DepKind::Memory, &I);
    }
  }

  void process(const Value *V) {
    if (const auto *A = dyn_cast<Argument>(V)) {
      // At the call sites that matter: all of them once the function has
      // sliced effects, else those in the slice (and later ones as they
      // enter: PendingArgs).
      const Function *F = A->getParent();
      PendingArgs[F].push_back(A);
      for (CallBase *CS : MM.callSites(F))
        if (Effectful.count(F) || R.Values.count(CS))
          linkArgument(CS, A);
      return;
    }
    const auto *I = cast<Instruction>(V);
    // Control dependence inside the function.
    if (!ValuesOnly) {
      ControlDeps &C = cd(I->getFunction());
      auto It = C.Of.find(I->getParent());
      if (It != C.Of.end())
        for (const BasicBlock *B : It->second)
          link(B->getTerminator(), DepKind::Control, I);
      if (const auto *Phi = dyn_cast<PHINode>(I)) {
        for (const BasicBlock *B : Phi->blocks())
          link(B->getTerminator(), DepKind::Control, I);
      }
    }
    if (const auto *CB = dyn_cast<CallBase>(I)) {
      useValue(CB->getCalledOperand(), I);
      const Function *Callee = CB->getCalledFunction();
      bool External = !Callee || Callee->isDeclaration();
      if (CB->isInlineAsm() || isa<IntrinsicInst>(CB) ||
          (Callee && External)) {
        for (const Value *Op : CB->args())
          useValue(Op, I);
      }
      if (CB->mayReadFromMemory())
        memoryReads(*I);
      return;
    }
    for (const Value *Op : I->operands())
      useValue(Op, I);
    if (I->mayReadFromMemory())
      memoryReads(*I);
  }
};
} // namespace

SliceResult computeSlice(ModuleModel &MM, ModuleModel::AAGetter GetAA,
                         const Function *Only, bool ValuesOnly) {
  return Slicer(MM, GetAA, ValuesOnly).run(Only);
}

} // namespace wsn
