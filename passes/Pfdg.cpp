//===- Pfdg.cpp - wsn::PfdgAnalysis: what to record, at which level -------===//
#include "Pfdg.h"
#include "PollLoops.h"
#include "MessageSites.h"
#include "MoteAsm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static cl::opt<unsigned>
    WsnLevel("wsn-level", cl::init(1),
             cl::desc("wsn-trace: tracing level n (thesis 4.4, default 1)"));
static cl::opt<std::string> WsnErrorPaths(
    "wsn-error-paths", cl::init(""),
    cl::desc("wsn-trace: file of error-propagation paths from earlier levels "
             "(Algorithm 4)"),
    cl::value_desc("file"));
static cl::opt<std::string>
    WsnPfdgDot("wsn-pfdg-dot", cl::init(""),
               cl::desc("wsn-trace: write the PFDG as Graphviz to this file"),
               cl::value_desc("file"));
static cl::opt<bool> WsnPfdgStats(
    "wsn-pfdg-stats", cl::init(false),
    cl::desc("wsn-trace: print how the PFDG was built (dependence pairs, "
             "closest common ancestors by method, edges) to stderr"));
static cl::opt<std::string>
    WsnPfdgJson("wsn-pfdg-json", cl::init(""),
                cl::desc("wsn-trace: write the PFDG as JSON to this file"),
                cl::value_desc("file"));

namespace wsn {

AnalysisKey PfdgAnalysis::Key;

PfdgOptions pfdgOptionsFromCommandLine() {
  PfdgOptions O;
  O.Level = WsnLevel;
  O.PathsFile = WsnErrorPaths;
  return O;
}

const FunctionInfo *PfdgResult::lookup(const Function *F) const {
  auto It = Index.find(F);
  return It == Index.end() ? nullptr : &Functions[It->second];
}
FunctionInfo *PfdgResult::lookup(const Function *F) {
  auto It = Index.find(F);
  return It == Index.end() ? nullptr : &Functions[It->second];
}

bool PfdgResult::invalidate(Module &, const PreservedAnalyses &PA,
                            ModuleAnalysisManager::Invalidator &) {
  auto PAC = PA.getChecker<PfdgAnalysis>();
  return !PAC.preservedWhenStateless() &&
         !PAC.preservedSet<AllAnalysesOn<Module>>();
}

// Globals read by F and everything it calls (the inputs of an invariant).
static std::vector<const GlobalVariable *> readGlobals(ModuleModel &MM,
                                                       const Function *F) {
  GlobalSet S;
  SmallVector<const Function *, 8> Work{F};
  SmallPtrSet<const Function *, 8> Seen{F};
  while (!Work.empty()) {
    const Function *G = Work.pop_back_val();
    for (const Instruction &I : instructions(*G)) {
      if (!I.mayReadFromMemory())
        continue;
      ObjSet O;
      MM.reads(I, O);
      S.Unknown |= O.Unknown;
      for (unsigned Id : O.Objs)
        if (MM.objectGlobal(Id))
          S.Ids.insert(Id);
    }
    for (const Function *C : MM.callees(G))
      if (!C->isDeclaration() && Seen.insert(C).second)
        Work.push_back(C);
  }
  return MM.globals(S);
}

/// Error paths name functions as the replay of an earlier level saw them; a
/// function the inliner has since folded into its callers (Equation 4.1 at
/// this level, or the pre-instrumentation inliner) is no node here. Such a
/// name stands for the node its body was inlined into, found from the debug
/// info's inlined-at chains (the first such node in module order); names
/// that resolve to nothing are left for select() to report.
static void resolveInlinedPathNames(const Module &M, const PfdgGraph &G,
                                    std::vector<ErrorPath> &Paths) {
  bool Unknown = false;
  for (const ErrorPath &P : Paths)
    for (const std::string &Name : P.Functions)
      Unknown |= !G.lookup(Name);
  if (!Unknown)
    return;
  StringMap<std::string> InlinedInto;
  for (const Function &F : M) {
    if (F.isDeclaration() || !G.lookup(F.getName()))
      continue;
    for (const Instruction &I : instructions(F))
      for (const DILocation *L = I.getDebugLoc().get(); L && L->getInlinedAt();
           L = L->getInlinedAt())
        if (const DISubprogram *SP = L->getScope()->getSubprogram()) {
          InlinedInto.try_emplace(SP->getName(), F.getName().str());
          if (!SP->getLinkageName().empty())
            InlinedInto.try_emplace(SP->getLinkageName(), F.getName().str());
        }
  }
  for (ErrorPath &P : Paths)
    for (std::string &Name : P.Functions)
      if (!G.lookup(Name))
        if (auto It = InlinedInto.find(Name); It != InlinedInto.end())
          Name = It->second;
}

/// Consecutive path names that are nodes but not joined by an edge are joined
/// by a shortest walk of the PFDG (edges in either direction): a replay's
/// observation "A wrote what B read" holds whatever this build's inlining did
/// to the functions between them. Unconnected names are left for select()
/// to report.
static void joinPathGaps(const PfdgGraph &G, std::vector<ErrorPath> &Paths) {
  std::vector<std::vector<PfdgGraph::NodeId>> Adj;
  auto Adjacent = [&](PfdgGraph::NodeId A, PfdgGraph::NodeId B) {
    return llvm::is_contained(Adj[A], B);
  };
  for (ErrorPath &P : Paths) {
    if (P.Functions.size() < 2)
      continue;
    if (Adj.empty()) {
      Adj.resize(G.size());
      for (const auto *Edges : {&G.callEdges(), &G.dependenceEdges()})
        for (auto [A, B] : *Edges) {
          Adj[A].push_back(B);
          Adj[B].push_back(A);
        }
    }
    std::vector<std::string> Out{P.Functions.front()};
    for (size_t I = 1; I < P.Functions.size(); ++I) {
      std::optional<PfdgGraph::NodeId> A = G.lookup(P.Functions[I - 1]),
                                       B = G.lookup(P.Functions[I]);
      if (A && B && *A != *B && !Adjacent(*A, *B)) {
        std::vector<int> Prev(G.size(), -1);
        std::vector<bool> Seen(G.size(), false);
        std::vector<PfdgGraph::NodeId> Queue{*A};
        Seen[*A] = true;
        for (size_t Q = 0; Q < Queue.size() && !Seen[*B]; ++Q)
          for (PfdgGraph::NodeId W : Adj[Queue[Q]])
            if (!Seen[W]) {
              Seen[W] = true;
              Prev[W] = int(Queue[Q]);
              Queue.push_back(W);
            }
        if (Seen[*B]) {
          std::vector<std::string> Mid;
          for (int V = Prev[*B]; V >= 0 && PfdgGraph::NodeId(V) != *A; V = Prev[V])
            Mid.push_back(G.name(PfdgGraph::NodeId(V)).str());
          Out.insert(Out.end(), Mid.rbegin(), Mid.rend());
        }
      }
      Out.push_back(P.Functions[I]);
    }
    P.Functions = std::move(Out);
  }
}

Expected<PfdgResult> computePfdg(Module &M, ModuleAnalysisManager &MAM,
                                 const PfdgOptions &Opts) {
  PfdgResult R;
  R.Level = Opts.Level;
  if (Opts.Level == 0)
    return createStringError(inconvertibleErrorCode(),
                             "-wsn-level must be at least 1");
  std::vector<ErrorPath> Paths = Opts.Paths;
  if (!Opts.PathsFile.empty()) {
    auto Buf = MemoryBuffer::getFile(Opts.PathsFile);
    if (!Buf)
      return createStringError(Buf.getError(), "cannot read error-path file '" +
                                                   Opts.PathsFile + "': " +
                                                   Buf.getError().message());
    auto Parsed = parseErrorPaths((*Buf)->getBuffer(), Opts.PathsFile);
    if (!Parsed)
      return Parsed.takeError();
    Paths.insert(Paths.end(), Parsed->begin(), Parsed->end());
  }

  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  ModuleModel MM(M);
  auto GetAA = [&](Function &F) -> AAResults * { return &FAM.getResult<AAManager>(F); };
  SliceResult S = computeSlice(MM, GetAA);

  // The PFDG over the functions of the slice (Definition 4).
  PfdgGraph &G = R.Graph;
  // Node of each sliced function, by pointer (no name hashing per edge).
  DenseMap<const Function *, PfdgGraph::NodeId> NodeOf;
  auto nodeOf = [&](const Function *F) -> std::optional<PfdgGraph::NodeId> {
    auto It = NodeOf.find(F);
    if (It == NodeOf.end())
      return std::nullopt;
    return It->second;
  };
  for (Function *F : MM.definedFunctions())
    if (S.Functions.count(F)) {
      PfdgGraph::NodeId N = G.addNode(F->getName());
      NodeOf[F] = N;
      const FunctionRole &Role = MM.role(F);
      if (Role.IsInvariant)
        G.markInvariant(N);
      if (Role.IsMain) {
        G.markMain(N);
        G.markEntry(N);
      }
      if (Role.isInterrupt()) {
        G.markInterrupt(N);
        G.markEntry(N);
      }
    }
  for (Function *F : MM.definedFunctions()) {
    auto From = nodeOf(F);
    if (!From)
      continue;
    for (Function *C : MM.callees(F))
      if (auto To = nodeOf(C))
        G.addCall(*From, *To);
  }
  for (const CrossDep &D : S.Deps) {
    auto A = nodeOf(D.F1), B = nodeOf(D.F2);
    if (A && B)
      G.addDependence(*A, *B);
  }
  G.build();
  if (WsnPfdgStats && Opts.PrintStats) {
    // Diagnostics for bench/pfdg-scale (run.py --stats): how the dependence
    // pairs were turned into edges (Algorithm 3) and how much work that was.
    const PfdgGraph::BuildStats &St = G.buildStats();
    errs() << formatv("wsn-pfdg-stats: functions={0} call_edges={1} "
                      "pairs={2} rule1={3} fast={4} fallback={5} "
                      "cca_tree={6} cca_search={7} cca_flow={8} trees={9} "
                      "chain_edges={10} dependence_edges={11} "
                      "skipped_ccas={12} deferred_pairs={13}\n",
                      G.size(), G.callEdges().size(), St.Pairs, St.Rule1,
                      St.Fast, St.Fallback, St.TreeChains, St.SearchChains,
                      St.FlowChains, St.TreesBuilt, St.ChainEdges,
                      G.dependenceEdges().size(), St.SkippedCcas,
                      St.DeferredPairs);
  }

  resolveInlinedPathNames(M, G, Paths);
  joinPathGaps(G, Paths);
  auto SelOr = G.select(Opts.Level, Paths,
                        Opts.PathsFile.empty() ? "<paths>" : Opts.PathsFile);
  if (!SelOr)
    return SelOr.takeError();
  std::vector<bool> &GraphSel = *SelOr;

  // Function records.
  for (Function *F : MM.definedFunctions()) {
    R.Index[F] = R.Functions.size();
    R.Functions.emplace_back();
    FunctionInfo &FI = R.Functions.back();
    FI.F = F;
    FI.Role = MM.role(F);
    FI.AddressTaken = MM.isAddressTaken(F);
    auto SIt = S.Functions.find(F);
    if (SIt != S.Functions.end()) {
      FI.InSlice = true;
      FI.Reason = SIt->second;
    }
    if (auto N = nodeOf(F)) {
      FI.Level = G.level(*N);
      FI.Selected = GraphSel[*N];
      FI.Recursive = G.isRecursive(*N);
    }
    if (FI.Role.IsMain)
      FI.Selected = true;
  }

  // Interrupt handlers that may modify globals used by selected functions
  // (thesis 4.1 and 4.4.1), to a fixpoint: a new handler uses globals too.
  GlobalSet Used;
  auto addUses = [&](const Function *F) {
    const GlobalSet &D = MM.directModRef(F);
    Used.Unknown |= D.Unknown;
    Used.Ids.insert(D.Ids.begin(), D.Ids.end());
  };
  for (FunctionInfo &FI : R.Functions)
    if (FI.Selected)
      addUses(FI.F);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (FunctionInfo &FI : R.Functions) {
      if (FI.Selected || !FI.Role.isInterrupt())
        continue;
      if (MM.intersects(MM.transitiveMod(FI.F), Used)) {
        FI.Selected = true;
        addUses(FI.F);
        Changed = true;
      }
    }
  }

  // Boundary functions among the selected ones (Definition 7).
  for (FunctionInfo &FI : R.Functions)
    if (FI.Selected)
      if (auto N = nodeOf(FI.F))
        FI.Boundary = G.isBoundary(*N, Opts.Level);

  for (auto &[GV, Reason] : S.Globals)
    R.SliceGlobals.insert({GV, Reason});

  GlobalSet Shared;
  for (FunctionInfo &FI : R.Functions)
    if (FI.Selected && FI.Role.isInterrupt()) {
      const GlobalSet &T = MM.transitiveRef(FI.F);
      Shared.Unknown |= T.Unknown;
      Shared.Ids.insert(T.Ids.begin(), T.Ids.end());
    }
  for (const GlobalVariable *GV : MM.globals(Shared))
    R.InterruptShared.insert(GV);

  for (Function *Inv : MM.invariants())
    R.InvariantInputs.insert({Inv, readGlobals(MM, Inv)});

  // R_OP (thesis section 5.1; spec/analysis.md section 11): per invariant, the
  // receive functions whose received data (a formal argument: the message or
  // its fields) is in the invariant's own value slice.
  std::vector<const Function *> Receivers;
  for (Function *F : MM.definedFunctions()) {
    std::optional<Expected<MessageInterface>> MI = messageInterfaceOf(*F);
    if (!MI)
      continue;
    if (!*MI) {
      consumeError(MI->takeError()); // reported by the instrumentation
      continue;
    }
    if (!(*MI)->Send)
      Receivers.push_back(F);
  }
  if (!Receivers.empty())
    for (Function *Inv : MM.invariants()) {
      SliceResult One = computeSlice(MM, GetAA, Inv, /*ValuesOnly=*/true);
      std::vector<const Function *> &Out = R.InvariantRecvs[Inv];
      for (const Function *F : Receivers)
        if (any_of(F->args(), [&](const Argument &A) { return One.Values.count(&A) > 0; }))
          Out.push_back(F);
    }

  // Uninstrumented callees and their effects; anchors; inlining.
  for (FunctionInfo &FI : R.Functions) {
    if (!FI.Selected)
      continue;
    Function &F = const_cast<Function &>(*FI.F);
    for (Function *C : MM.callees(&F)) {
      const FunctionInfo *CI = R.lookup(C);
      if (CI && CI->Selected)
        continue;
      CalleeEffect E;
      E.Callee = C;
      if (C->isDeclaration()) {
        E.External = true;
        E.WritesUnknown = !C->onlyReadsMemory();
        if (E.WritesUnknown) {
          GlobalSet U;
          U.Unknown = true;
          E.MayWrite = MM.globals(U);
        }
      } else {
        const GlobalSet &Mod = MM.transitiveMod(C);
        E.WritesUnknown = Mod.Unknown;
        E.MayWrite = MM.globals(Mod);
      }
      FI.UninstrumentedCallees.push_back(std::move(E));
    }
    unsigned Anchors = 0;
    std::vector<BasicBlock *> Headers;
    collectAnchorHeaders(FAM.getResult<LoopAnalysis>(F), Headers);
    for (BasicBlock *H : Headers) {
      R.Anchors.push_back({FI.F, H});
      ++Anchors;
    }
    InlineInput In;
    for (CallBase *CB : MM.callSites(&F))
      if (CB->getCalledOperand()->stripPointerCasts() == &F)
        ++In.CallSites;
    for (Instruction &I : instructions(F)) {
      if (!isa<LoadInst>(I) && !isa<StoreInst>(I))
        continue;
      ObjSet O = MM.pointsTo(getLoadStorePointerOperand(&I));
      bool Counted = false;
      for (unsigned Id : O.Objs)
        if (const GlobalVariable *GV = MM.objectGlobal(Id))
          Counted |= R.InterruptShared.count(GV) > 0;
      if (O.Unknown && !R.InterruptShared.empty())
        Counted = true;
      In.CountedRefs += Counted;
    }
    In.Anchors = Anchors;
    In.Selected = true;
    In.Interrupt = FI.Role.isInterrupt();
    In.Invariant = FI.Role.IsInvariant;
    In.Main = FI.Role.IsMain;
    In.Boundary = FI.Boundary;
    In.Recursive = FI.Recursive;
    In.AddressTaken = FI.AddressTaken;
    FI.Inline = decideInlining(F, FAM.getResult<TargetIRAnalysis>(F), In);
  }
  return std::move(R);
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

void collectAnchorHeaders(const LoopInfo &LI, std::vector<BasicBlock *> &Out) {
  SmallPtrSet<const BasicBlock *, 8> Seen;
  auto Add = [&](Loop *L) {
    if (Seen.insert(L->getHeader()).second)
      Out.push_back(L->getHeader());
  };
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->hasNoExitBlocks())
      continue;
    Add(L);
    for (Loop *Sub : L->getSubLoops()) {
      bool Calls = false;
      for (BasicBlock *BB : Sub->blocks())
        for (Instruction &I : *BB)
          if (auto *CB = dyn_cast<CallBase>(&I)) {
            // An outlined polling loop only waits (PollLoops.h): the loop
            // around it is the inlined busy-wait it was, not a dispatch loop.
            const Function *C = CB->getCalledFunction();
            Calls |= !CB->isInlineAsm() &&
                     (!C || !(C->isIntrinsic() || C->hasFnAttribute(PollLoopAttr)));
          }
      if (Calls && !Sub->hasNoExitBlocks()) // an infinite one is found on its own
        Add(Sub);
    }
    // The idle loop: the innermost loop around a sleep inside the scheduler
    // loop (TinyOS's `while (popTask() == NO_TASK) sleep();`, whose sleep is
    // inline asm once McuSleep is inlined). Every wake-up passes its header,
    // so interrupts taken while idle are never more than one wake-up away
    // from an anchor.
    MoteArch Arch = Triple(L->getHeader()->getModule()->getTargetTriple()).getArch() ==
                            Triple::msp430
                        ? MoteArch::MSP430
                        : MoteArch::AVR;
    for (BasicBlock *BB : L->blocks()) {
      Loop *Inner = LI.getLoopFor(BB);
      if (Inner == L || Inner->hasNoExitBlocks())
        continue;
      for (Instruction &I : *BB)
        if (auto *CB = dyn_cast<CallBase>(&I); CB && asmMaySleep(*CB, Arch)) {
          Add(Inner);
          break;
        }
    }
  }
}

static std::string levelText(const std::optional<unsigned> &L) {
  return L ? std::to_string(*L) : std::string("-");
}

void PfdgResult::print(raw_ostream &OS) const {
  OS << "wsn-pfdg: level " << Level << "\n";
  if (!Error.empty()) {
    OS << "error: " << Error << "\n";
    return;
  }
  for (const FunctionInfo &FI : Functions) {
    OS << "function @" << FI.F->getName() << " level=" << levelText(FI.Level);
    if (FI.InSlice)
      OS << " slice";
    if (FI.Selected)
      OS << " selected";
    if (FI.Boundary)
      OS << " boundary";
    if (FI.Role.IsMain)
      OS << " main";
    if (FI.Role.IsInvariant)
      OS << " invariant";
    if (FI.Role.isInterrupt()) {
      OS << " interrupt(" << handlerKindName(FI.Role.Handler);
      if (FI.Role.Vector >= 0)
        OS << "," << FI.Role.Vector;
      OS << ")";
    }
    if (FI.Role.IsInputHandler)
      OS << " input";
    if (FI.Role.IsTask)
      OS << " task";
    if (FI.Recursive)
      OS << " recursive";
    if (FI.Selected)
      OS << " inline=" << (FI.Inline.Inline ? "yes" : "no") << "("
         << FI.Inline.Why << ")";
    OS << "\n";
    if (FI.Reason)
      OS << "  reason " << FI.Reason->describe() << "\n";
    for (const CalleeEffect &E : FI.UninstrumentedCallees) {
      OS << "  skip @" << E.Callee->getName() << " writes:";
      if (E.External)
        OS << " (external)";
      for (const GlobalVariable *GV : E.MayWrite)
        OS << " @" << GV->getName();
      OS << "\n";
    }
  }
  for (auto [A, B] : Graph.callEdges())
    OS << "call @" << Graph.name(A) << " -> @" << Graph.name(B) << "\n";
  for (auto [A, B] : Graph.dependenceEdges())
    OS << "dep @" << Graph.name(A) << " -> @" << Graph.name(B) << "\n";
  for (auto &[GV, Reason] : SliceGlobals)
    OS << "global @" << GV->getName() << " reason " << Reason.describe()
       << "\n";
  for (const GlobalVariable *GV : InterruptShared)
    OS << "interrupt-shared @" << GV->getName() << "\n";
  for (auto &[Inv, Ins] : InvariantInputs) {
    OS << "invariant-inputs @" << Inv->getName() << ":";
    for (const GlobalVariable *GV : Ins)
      OS << " @" << GV->getName();
    OS << "\n";
  }
  for (const AnchorSite &A : Anchors) {
    OS << "anchor @" << A.F->getName() << " ";
    A.Header->printAsOperand(OS, false);
    OS << "\n";
  }
}

static std::string dotEscape(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out;
}

void PfdgResult::writeDot(raw_ostream &OS) const {
  OS << "digraph pfdg {\n  node [shape=box, fontname=\"monospace\"];\n";
  // The record of each node's function, by name (one look-up per node; the
  // last record of a name wins, as names are unique that is the only one).
  StringMap<const FunctionInfo *> ByName;
  for (const FunctionInfo &X : Functions)
    ByName[X.F->getName()] = &X;
  for (unsigned N = 0; N < Graph.size(); ++N) {
    const FunctionInfo *FI = ByName.lookup(Graph.name(N));
    OS << "  n" << N << " [label=\"" << dotEscape(Graph.name(N)) << "\\nL"
       << levelText(Graph.level(N)) << "\"";
    if (FI && FI->Selected)
      OS << ", style=filled, fillcolor=lightblue";
    if (FI && FI->Boundary)
      OS << ", peripheries=2";
    if (Graph.isInvariant(N))
      OS << ", shape=ellipse";
    if (Graph.isInterrupt(N))
      OS << ", shape=hexagon";
    OS << "];\n";
  }
  // Call edges drawn callee -> caller, the way canonical paths climb them.
  for (auto [A, B] : Graph.callEdges())
    OS << "  n" << B << " -> n" << A << " [style=solid];\n";
  for (auto [A, B] : Graph.dependenceEdges())
    OS << "  n" << A << " -> n" << B << " [style=dotted];\n";
  OS << "}\n";
}

void PfdgResult::writeJson(raw_ostream &OS) const {
  json::Array Fns;
  for (const FunctionInfo &FI : Functions) {
    json::Object O;
    O["name"] = FI.F->getName();
    O["level"] = FI.Level ? json::Value((int64_t)*FI.Level) : json::Value(nullptr);
    O["boundary"] = FI.Boundary;
    O["selected"] = FI.Selected;
    O["interrupt"] = FI.Role.isInterrupt();
    if (FI.Role.isInterrupt())
      O["vector"] = FI.Role.Vector >= 0 ? json::Value((int64_t)FI.Role.Vector)
                                        : json::Value(nullptr);
    O["invariant"] = FI.Role.IsInvariant;
    O["task"] = FI.Role.IsTask;
    O["main"] = FI.Role.IsMain;
    O["in_slice"] = FI.InSlice;
    if (FI.Reason)
      O["reason"] = FI.Reason->describe();
    O["inline"] = FI.Inline.Inline;
    json::Array Skips;
    for (const CalleeEffect &E : FI.UninstrumentedCallees) {
      json::Array W;
      for (const GlobalVariable *GV : E.MayWrite)
        W.push_back(GV->getName());
      Skips.push_back(json::Object{{"callee", E.Callee->getName()},
                                   {"may_write", std::move(W)},
                                   {"external", E.External}});
    }
    O["uninstrumented_callees"] = std::move(Skips);
    Fns.push_back(std::move(O));
  }
  json::Array Globals, GlobalReasons, Shared, Calls, Deps, Anch;
  for (auto &[GV, Reason] : SliceGlobals) {
    Globals.push_back(GV->getName());
    GlobalReasons.push_back(
        json::Object{{"name", GV->getName()}, {"reason", Reason.describe()}});
  }
  for (const GlobalVariable *GV : InterruptShared)
    Shared.push_back(GV->getName());
  for (auto [A, B] : Graph.callEdges())
    Calls.push_back(json::Array{Graph.name(A), Graph.name(B)});
  for (auto [A, B] : Graph.dependenceEdges())
    Deps.push_back(json::Array{Graph.name(A), Graph.name(B)});
  for (const AnchorSite &A : Anchors) {
    std::string H;
    raw_string_ostream HS(H);
    A.Header->printAsOperand(HS, false);
    Anch.push_back(json::Object{{"function", A.F->getName()}, {"header", H}});
  }
  json::Object Inputs;
  for (auto &[Inv, Ins] : InvariantInputs) {
    json::Array L;
    for (const GlobalVariable *GV : Ins)
      L.push_back(GV->getName());
    Inputs[Inv->getName()] = std::move(L);
  }
  json::Object Root{{"level", (int64_t)Level},
                    {"functions", std::move(Fns)},
                    {"slice_globals", std::move(Globals)},
                    {"slice_global_reasons", std::move(GlobalReasons)},
                    {"interrupt_shared", std::move(Shared)},
                    {"invariant_inputs", std::move(Inputs)},
                    {"call_edges", std::move(Calls)},
                    {"dependence_edges", std::move(Deps)},
                    {"anchors", std::move(Anch)}};
  OS << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
}

static void writeFileOrError(Module &M, StringRef Path,
                             function_ref<void(raw_ostream &)> Write) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
  if (EC) {
    M.getContext().emitError("wsn-pfdg: cannot write '" + Path +
                             "': " + EC.message());
    return;
  }
  Write(OS);
}

PfdgResult PfdgAnalysis::run(Module &M, ModuleAnalysisManager &MAM) {
  Expected<PfdgResult> R = computePfdg(M, MAM, pfdgOptionsFromCommandLine());
  if (!R) {
    PfdgResult Bad;
    Bad.Error = toString(R.takeError());
    M.getContext().emitError("wsn-pfdg: " + Bad.Error);
    return Bad;
  }
  if (!WsnPfdgDot.empty())
    writeFileOrError(M, WsnPfdgDot, [&](raw_ostream &OS) { R->writeDot(OS); });
  if (!WsnPfdgJson.empty())
    writeFileOrError(M, WsnPfdgJson,
                     [&](raw_ostream &OS) { R->writeJson(OS); });
  return std::move(*R);
}

PreservedAnalyses PfdgPrinterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  MAM.getResult<PfdgAnalysis>(M).print(OS);
  return PreservedAnalyses::all();
}

} // namespace wsn
