//===- ErrorPaths.cpp - wsn-replay --emit-error-paths ----------------------===//
#include "ErrorPaths.h"
#include "ReplayReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include <deque>
#include <set>

using namespace llvm;

namespace wsn {

PfdgView readPfdg(const Module &M) {
  PfdgView G;
  const NamedMDNode *NMD = M.getNamedMetadata("wsn.pfdg");
  if (!NMD || NMD->getNumOperands() == 0)
    return G;
  auto Int = [](const Metadata *MD) -> std::optional<int64_t> {
    if (auto *C = mdconst::dyn_extract_or_null<ConstantInt>(MD))
      return C->getSExtValue();
    return std::nullopt;
  };
  const MDNode *Head = NMD->getOperand(0);
  if (Head->getNumOperands() != 1 || !Int(Head->getOperand(0)))
    return G;
  G.Level = unsigned(*Int(Head->getOperand(0)));
  std::vector<std::pair<unsigned, unsigned>> Edges;
  for (unsigned I = 1; I < NMD->getNumOperands(); ++I) {
    const MDNode *N = NMD->getOperand(I);
    auto *Kind = N->getNumOperands() == 3 ? dyn_cast<MDString>(N->getOperand(0)) : nullptr;
    if (!Kind)
      return PfdgView();
    if (Kind->getString() == "node") {
      auto *Name = dyn_cast<MDString>(N->getOperand(1));
      std::optional<int64_t> L = Int(N->getOperand(2));
      if (!Name || !L)
        return PfdgView();
      G.Index[Name->getString().str()] = unsigned(G.Names.size());
      G.Names.push_back(Name->getString().str());
      G.Levels.push_back(int(*L));
    } else if (Kind->getString() == "edge") {
      std::optional<int64_t> A = Int(N->getOperand(1)), B = Int(N->getOperand(2));
      if (!A || !B)
        return PfdgView();
      Edges.emplace_back(unsigned(*A), unsigned(*B));
    }
  }
  G.Adj.resize(G.Names.size());
  for (auto [A, B] : Edges) {
    if (A >= G.Names.size() || B >= G.Names.size())
      return PfdgView();
    G.Adj[A].push_back(B);
    G.Adj[B].push_back(A);
  }
  for (std::vector<unsigned> &V : G.Adj) {
    llvm::sort(V);
    V.erase(std::unique(V.begin(), V.end()), V.end());
  }
  G.Present = true;
  return G;
}

std::vector<std::string> PfdgView::path(unsigned From, unsigned To) const {
  std::vector<int> Prev(Names.size(), -1);
  std::vector<bool> Seen(Names.size(), false);
  std::deque<unsigned> Q{From};
  Seen[From] = true;
  while (!Q.empty() && !Seen[To]) {
    unsigned V = Q.front();
    Q.pop_front();
    for (unsigned W : Adj[V])
      if (!Seen[W]) {
        Seen[W] = true;
        Prev[W] = int(V);
        Q.push_back(W);
      }
  }
  if (!Seen[To])
    return {};
  std::vector<std::string> Out;
  for (int V = int(To); V >= 0; V = Prev[V]) {
    Out.push_back(Names[V]);
    if (unsigned(V) == From)
      break;
  }
  std::reverse(Out.begin(), Out.end());
  return Out;
}

namespace {

/// The function names a store location "file:l:c in f (inlined into g)"
/// names: f, then g.
std::vector<std::string> locFunctions(StringRef Loc) {
  std::vector<std::string> Out;
  size_t In = Loc.rfind(" in ");
  if (In == StringRef::npos)
    return Out;
  StringRef Rest = Loc.drop_front(In + 4);
  auto [F, Host] = Rest.split(" (inlined into ");
  Out.push_back(F.trim().str());
  if (!Host.empty())
    Out.push_back(Host.rtrim(")").trim().str());
  return Out;
}

/// The innermost instrumented function active after the first N events.
std::string innermostFunction(ReplayRunner &R, const TraceMap &Map, size_t N) {
  std::vector<std::pair<bool, uint32_t>> S;
  const std::vector<ReplayEvent> &Ev = R.events();
  for (size_t I = 0; I < N && I < Ev.size(); ++I) {
    const ReplayEvent &E = Ev[I];
    if (E.K == ReplayEvent::Entry || E.K == ReplayEvent::IrqEntry)
      S.emplace_back(E.K == ReplayEvent::IrqEntry, E.Id);
    else if (E.K == ReplayEvent::Exit || E.K == ReplayEvent::IrqExit)
      for (size_t K = S.size(); K-- > 0;)
        if (S[K].first == (E.K == ReplayEvent::IrqExit) && S[K].second == E.Id) {
          S.resize(K);
          break;
        }
  }
  if (S.empty())
    return "";
  if (S.back().first) {
    const TraceMap::Irq *Q = Map.irq(S.back().second);
    return Q ? Q->Function : "";
  }
  const TraceMap::Function *F = Map.function(S.back().second);
  return F ? F->Name : "";
}

struct Writer {
  std::string Where;                ///< for the comment
  std::vector<std::string> Names;   ///< candidate writer functions, best first
  bool BeforeTrace = false;         ///< restored from the start checkpoint
};

/// The last write to G within the first N events (as the REPL's `why`).
std::optional<Writer> lastWriter(ReplayRunner &R, const TraceMap &Map, const ReplayGlobal &G,
                                 size_t N) {
  const StoreWatch &W = R.machine().Watch;
  const StoreWriter *Best = nullptr;
  for (uint32_t A = G.Addr; A < G.Addr + G.Size; ++A)
    if (const StoreWriter *SW = W.lastWriter(A))
      if (SW->EventsBefore <= N && (!Best || SW->Seq > Best->Seq))
        Best = SW;
  auto Writes = [&](const std::vector<TraceMap::Var> &Vars) {
    return any_of(Vars, [&](const TraceMap::Var &V) { return V.IsGlobal && V.Name == G.Name; });
  };
  long Engine = -1;
  bool Restore = false;
  const std::vector<ReplayEvent> &Ev = R.events();
  for (size_t I = 0; I < N && I < Ev.size(); ++I) {
    const ReplayEvent &E = Ev[I];
    if (E.K == ReplayEvent::Checkpoint && I == 0) {
      const TraceMap::Anchor *A = Map.anchor(E.Id);
      if (A && Writes(A->Vars))
        Engine = long(I), Restore = true;
    } else if (E.K == ReplayEvent::Effect) {
      const TraceMap::Effect *Ef = Map.effect(E.Id);
      if (Ef && Writes(Ef->Writes))
        Engine = long(I), Restore = false;
    }
  }
  bool EngineLast = Engine >= 0 && (!Best || 2 * uint64_t(Engine) + 1 > 2 * uint64_t(Best->EventsBefore));
  Writer Out;
  if (EngineLast) {
    if (Restore) {
      Out.BeforeTrace = true;
      Out.Where = "restored from the start checkpoint (written before the replayed span)";
      return Out;
    }
    const ReplayEvent &E = Ev[size_t(Engine)];
    const TraceMap::Effect *Ef = Map.effect(E.Id);
    std::string Callee = Ef && !Ef->Callee.empty() ? Ef->Callee : "";
    // The function the call is in: its skip site's, which the map names; the innermost
    // function with events is only a fallback (a function without ENTRY/EXIT records,
    // spec/instrumentation.md 7.3, is no frame of its own).
    const TraceMap::Site *S = Map.site(E.Id);
    std::string Caller = S && !S->Function.empty() ? S->Function
                                                   : innermostFunction(R, Map, size_t(Engine) + 1);
    Out.Where = "written by the skipped call to " +
                (Callee.empty() ? std::string("<indirect>") : Callee) +
                (Caller.empty() ? std::string() : " in " + Caller) + " (its recorded effect), event " +
                std::to_string(Engine);
    if (!Callee.empty())
      Out.Names.push_back(Callee);
    if (!Caller.empty())
      Out.Names.push_back(Caller);
    return Out;
  }
  if (!Best)
    return std::nullopt;
  Out.Where = std::string(Best->Loc) + ", after event " +
              std::to_string(Best->EventsBefore ? Best->EventsBefore - 1 : 0);
  Out.Names = locFunctions(Best->Loc);
  return Out;
}

} // namespace

std::string errorPathsText(ReplayRunner &R, const PreprocessedTrace &P, const TraceMap &Map,
                           const PfdgView &G, const ErrorOrigin &O, StringRef ProgramName,
                           unsigned *NumPaths) {
  std::string Head = "# wsn-replay --emit-error-paths: error-propagation paths observed in the "
                     "replay\n# (spec/analysis.md section 5; build the next level with "
                     "wsn-cc --next-level=THIS_FILE ...)\n";
  Head += "# program: " + ProgramName.str() + ", trace: " + P.TraceName + "\n";
  Head += "# wsn-level: " + std::to_string(G.Level) + "\n";
  Head += "# from: " + O.What + "\n";
  std::string Body;
  std::set<std::string> Lines;
  std::optional<unsigned> Sink;
  if (!O.Sink.empty())
    if (auto It = G.Index.find(O.Sink); It != G.Index.end())
      Sink = It->second;
  for (const std::string &Name : O.Globals) {
    const ReplayGlobal *RG = R.info().global(Name);
    if (!RG)
      continue;
    std::optional<Writer> W = lastWriter(R, Map, *RG, O.Events);
    if (!W) {
      Body += "# " + Name + ": not written in the replayed span\n";
      continue;
    }
    Body += "# " + Name + ": " + W->Where + "\n";
    if (W->BeforeTrace)
      continue;
    std::optional<unsigned> From;
    for (const std::string &N : W->Names)
      if (auto It = G.Index.find(N); It != G.Index.end()) {
        From = It->second;
        break;
      }
    if (!From) {
      Body += "#   (no function of the PFDG wrote it)\n";
      continue;
    }
    std::vector<std::string> Path{G.Names[*From]};
    if (Sink && *Sink != *From) {
      Path = G.path(*From, *Sink);
      if (Path.empty()) {
        Body += "#   (" + G.Names[*From] + " and " + O.Sink + " are not connected in the PFDG)\n";
        continue;
      }
    }
    std::string Line = llvm::join(Path, " -> ");
    if (Lines.insert(Line).second)
      Body += Line + "\n";
  }
  *NumPaths = unsigned(Lines.size());
  return Head + Body;
}

} // namespace wsn
