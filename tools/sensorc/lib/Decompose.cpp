//===- Decompose.cpp - Global property decomposition (thesis 3.2, 3.3) ----===//
#include "Decompose.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <functional>
#include <numeric>

using namespace llvm;

namespace wsn {
namespace sensorc {

static Error errorAt(const Program &P, SrcLoc L, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "%s:%u:%u: error: %s",
                           P.FileName.c_str(), L.Line, L.Col,
                           Msg.str().c_str());
}

//===----------------------------------------------------------------------===//
// Items (Definition 3)
//===----------------------------------------------------------------------===//

std::string ruleItemKey(const Expr &Rule, int64_t At) {
  if (Rule.Rule != RuleKind::Routing)
    return printExpr(Rule);
  // The checking node is part of a Routing_rule's identity.
  auto Copy = withKids(Rule, {Rule.Kids[0], Rule.Kids[1]});
  return printExpr(*Copy) + "@" + std::to_string(At);
}

static int64_t nodeOf(const Expr *Index, int64_t LocalNode) {
  if (!Index)
    return LocalNode;
  return Index->Value;
}

void collectItems(const Expr &E, int64_t LocalNode, std::set<ItemRef> &Out) {
  switch (E.Kind) {
  case EK::Var: {
    std::string Key = E.Name;
    for (auto &F : E.Fields)
      Key += "." + F;
    Out.insert({Key, nodeOf(E.index(), LocalNode)});
    return;
  }
  case EK::Event:
    Out.insert({E.Name, nodeOf(E.index(), LocalNode)});
    return;
  case EK::Rule: {
    int64_t At = E.Rule == RuleKind::Routing
                     ? (E.Kids.size() > 2 ? E.Kids[2]->Value : LocalNode)
                     : E.Kids[0]->Value;
    Out.insert({ruleItemKey(E, At), At});
    return;
  }
  default:
    for (auto &K : E.Kids)
      collectItems(*K, LocalNode, Out);
  }
}

//===----------------------------------------------------------------------===//
// Clause assignment (Algorithm 1 step 6, Theorem 3.2.1)
//===----------------------------------------------------------------------===//

namespace {
/// The problem with items numbered, clause items as (item id, holder).
struct IndexedProblem {
  std::vector<std::vector<std::pair<unsigned, int64_t>>> Clauses;
  std::vector<unsigned> Nodes;
  unsigned NumItems = 0;

  explicit IndexedProblem(const AssignmentProblem &P) : Nodes(P.Nodes) {
    std::map<ItemRef, unsigned> Ids;
    for (auto &Items : P.ClauseItems) {
      Clauses.emplace_back();
      for (auto &I : Items) {
        auto It = Ids.emplace(I, Ids.size()).first;
        Clauses.back().push_back({It->second, I.Node});
      }
    }
    NumItems = Ids.size();
  }
  unsigned remoteCount(unsigned C, unsigned Node) const {
    unsigned N = 0;
    for (auto &[Id, Holder] : Clauses[C])
      N += Holder != (int64_t)Node;
    return N;
  }
};
} // namespace

std::vector<unsigned> greedyAssign(const AssignmentProblem &P) {
  // Each clause goes to the node with the fewest remote items, then the fewest
  // new remote items, then the first in P.Nodes. Only a few nodes can win, so
  // they are the only ones scored (linear, not clauses x nodes): a node that
  // holds an item of the clause has fewer remote items than any node that holds
  // none; without holders, every node has all items remote and only the nodes
  // that already pay some of them, or else the first node, can win.
  IndexedProblem IP(P);
  std::map<unsigned, size_t> Position; // node -> index in P.Nodes
  for (size_t I = 0; I < IP.Nodes.size(); ++I)
    Position.emplace(IP.Nodes[I], I);
  std::set<std::pair<unsigned, unsigned>> Paid;           // (node, remote item id)
  std::vector<std::vector<unsigned>> PaidBy(IP.NumItems); // item id -> nodes paying it
  std::vector<unsigned> Out;
  for (unsigned C = 0; C < IP.Clauses.size(); ++C) {
    if (IP.Nodes.empty()) {
      Out.push_back(0);
      continue;
    }
    const auto &Items = IP.Clauses[C];
    std::set<size_t> Cand; // positions in IP.Nodes
    for (auto &[Id, Holder] : Items)
      if (Holder >= 0)
        if (auto It = Position.find(unsigned(Holder)); It != Position.end())
          Cand.insert(It->second);
    if (Cand.empty()) {
      for (auto &[Id, Holder] : Items)
        for (unsigned N : PaidBy[Id])
          Cand.insert(Position.at(N));
      size_t First = 0;
      while (First < IP.Nodes.size() && Cand.count(First))
        ++First;
      if (First < IP.Nodes.size())
        Cand.insert(First);
    }
    size_t Best = 0;
    unsigned BestRemote = ~0u, BestNew = ~0u;
    for (size_t Pos : Cand) { // ascending: ties keep the first node
      unsigned N = IP.Nodes[Pos];
      unsigned Remote = IP.remoteCount(C, N), New = 0;
      for (auto &[Id, Holder] : Items)
        if (Holder != (int64_t)N && !Paid.count({N, Id}))
          ++New;
      if (Remote < BestRemote || (Remote == BestRemote && New < BestNew)) {
        Best = Pos;
        BestRemote = Remote;
        BestNew = New;
      }
    }
    unsigned B = IP.Nodes[Best];
    for (auto &[Id, Holder] : Items)
      if (Holder != (int64_t)B && Paid.insert({B, Id}).second)
        PaidBy[Id].push_back(B);
    Out.push_back(B);
  }
  return Out;
}

unsigned assignmentCost(const AssignmentProblem &P,
                        const std::vector<unsigned> &Assign) {
  std::map<unsigned, std::set<ItemRef>> Paid;
  for (unsigned C = 0; C < P.ClauseItems.size(); ++C)
    for (auto &I : P.ClauseItems[C])
      if (I.Node != (int64_t)Assign[C])
        Paid[Assign[C]].insert(I);
  unsigned Cost = 0;
  for (auto &[N, S] : Paid)
    Cost += S.size();
  return Cost;
}

std::optional<std::vector<unsigned>>
exhaustiveAssign(const AssignmentProblem &P, uint64_t Budget) {
  IndexedProblem IP(P);
  unsigned NC = IP.Clauses.size(), NN = IP.Nodes.size();
  if (NN == 0)
    return std::vector<unsigned>(NC, 0);
  std::vector<unsigned> Cur(NC), Best = greedyAssign(P);
  unsigned BestCost = assignmentCost(P, Best);
  // Count[n][item]: how many assigned clauses make item remote on node n.
  std::vector<std::vector<unsigned>> Count(NN,
                                           std::vector<unsigned>(IP.NumItems));
  uint64_t Visited = 0;
  bool OutOfBudget = false;
  std::function<void(unsigned, unsigned)> Go = [&](unsigned C, unsigned Cost) {
    if (OutOfBudget || Cost >= BestCost)
      return; // cost never decreases as clauses are added
    if (++Visited > Budget) {
      OutOfBudget = true;
      return;
    }
    if (C == NC) {
      BestCost = Cost;
      for (unsigned I = 0; I < NC; ++I)
        Best[I] = IP.Nodes[Cur[I]];
      return;
    }
    // Try the cheapest extensions first so good bounds come early.
    std::vector<std::pair<unsigned, unsigned>> Order;
    for (unsigned N = 0; N < NN; ++N) {
      unsigned New = 0;
      for (auto &[Id, Holder] : IP.Clauses[C])
        if (Holder != (int64_t)IP.Nodes[N] && Count[N][Id] == 0)
          ++New;
      Order.push_back({New, N});
    }
    std::sort(Order.begin(), Order.end());
    for (auto [New, N] : Order) {
      for (auto &[Id, Holder] : IP.Clauses[C])
        if (Holder != (int64_t)IP.Nodes[N])
          ++Count[N][Id];
      Cur[C] = N;
      Go(C + 1, Cost + New);
      for (auto &[Id, Holder] : IP.Clauses[C])
        if (Holder != (int64_t)IP.Nodes[N])
          --Count[N][Id];
    }
  };
  Go(0, 0);
  if (OutOfBudget)
    return std::nullopt;
  return Best;
}

AssignmentProblem Decomposition::problem() const {
  AssignmentProblem P;
  std::set<unsigned> Cand(Nodes.begin(), Nodes.end());
  for (auto &C : Clauses) {
    P.ClauseItems.push_back(C.Items);
    for (auto &I : C.Items)
      if (I.Node >= 0)
        Cand.insert(I.Node);
  }
  P.Nodes.assign(Cand.begin(), Cand.end());
  return P;
}

//===----------------------------------------------------------------------===//
// Network
//===----------------------------------------------------------------------===//

std::vector<unsigned> nodeSet(const Decl &D,
                              const std::vector<unsigned> &Network) {
  if (D.All)
    return Network;
  std::set<unsigned> S;
  for (auto [Lo, Hi] : D.Ranges)
    for (unsigned I = Lo; I <= Hi; ++I)
      S.insert(I);
  return std::vector<unsigned>(S.begin(), S.end());
}

Expected<std::vector<unsigned>>
networkNodes(const Program &G, const DecomposeOptions &Opts,
             std::optional<topology::Topology> *TopoOut) {
  std::set<unsigned> Nodes;
  if (G.HasRouting && !G.RoutingName.empty() && G.NetworkFile.empty())
    return errorAt(G, G.RoutingLoc,
                   "#ROUTING needs a #NETWORK topology file to compute "
                   "routes on");
  if (G.HasNetwork && !G.NetworkFile.empty()) {
    SmallString<256> Path(G.NetworkFile);
    if (!sys::path::is_absolute(Path) && !Opts.BaseDir.empty()) {
      Path = Opts.BaseDir;
      sys::path::append(Path, G.NetworkFile);
    }
    auto T = topology::readTopologyFile(Path);
    if (!T)
      return errorAt(G, G.NetworkLoc,
                     "cannot use the #NETWORK topology: " +
                         toString(T.takeError()));
    Nodes.insert(T->Nodes.begin(), T->Nodes.end());
    if (TopoOut)
      *TopoOut = std::move(*T);
  }
  if (Opts.NodeCount)
    for (unsigned I = 0; I < *Opts.NodeCount; ++I)
      Nodes.insert(I);
  return std::vector<unsigned>(Nodes.begin(), Nodes.end());
}

//===----------------------------------------------------------------------===//
// Algorithm 1
//===----------------------------------------------------------------------===//

namespace {

using Clause = std::vector<ExprPtr>;

ExprPtr negateLiteral(const ExprPtr &L) {
  if (L->Kind == EK::Cmp)
    return mkCmp(negate(L->Cmp), L->Kids[0], L->Kids[1], L->Loc);
  if (L->Kind == EK::Not)
    return L->Kids[0];
  if (L->Kind == EK::Bool)
    return mkBool(!L->Value, L->Loc);
  return mkNot(L, L->Loc);
}

/// Negation normal form; Cmp negations are folded into the operator.
ExprPtr nnf(const ExprPtr &E, bool Neg) {
  switch (E->Kind) {
  case EK::Bool:
    return mkBool(E->Value != Neg, E->Loc);
  case EK::Not:
    return nnf(E->Kids[0], !Neg);
  case EK::And:
  case EK::Or: {
    std::vector<ExprPtr> Kids;
    for (auto &K : E->Kids)
      Kids.push_back(nnf(K, Neg));
    bool IsAnd = (E->Kind == EK::And) != Neg;
    return mkNary(IsAnd ? EK::And : EK::Or, Kids, E->Loc);
  }
  case EK::Implies: // a -> b == NOT a OR b
    if (Neg)
      return mkNary(EK::And, {nnf(E->Kids[0], false), nnf(E->Kids[1], true)},
                    E->Loc);
    return mkNary(EK::Or, {nnf(E->Kids[0], true), nnf(E->Kids[1], false)},
                  E->Loc);
  case EK::Iff: {
    const ExprPtr &A = E->Kids[0], &B = E->Kids[1];
    if (Neg) // (a AND NOT b) OR (NOT a AND b)
      return mkNary(
          EK::Or,
          {mkNary(EK::And, {nnf(A, false), nnf(B, true)}, E->Loc),
           mkNary(EK::And, {nnf(A, true), nnf(B, false)}, E->Loc)},
          E->Loc);
    return mkNary(EK::And,
                  {mkNary(EK::Or, {nnf(A, true), nnf(B, false)}, E->Loc),
                   mkNary(EK::Or, {nnf(A, false), nnf(B, true)}, E->Loc)},
                  E->Loc);
  }
  case EK::Cmp:
    return Neg ? negateLiteral(E) : E;
  default:
    return Neg ? mkNot(E, E->Loc) : E;
  }
}

constexpr size_t MaxClauses = 200000;

/// CNF of an NNF formula by distribution. Returns false when it grows past
/// MaxClauses.
bool cnf(const ExprPtr &E, std::vector<Clause> &Out) {
  switch (E->Kind) {
  case EK::Bool:
    if (!E->Value)
      Out.push_back({}); // the empty clause
    return true;
  case EK::And:
    for (auto &K : E->Kids)
      if (!cnf(K, Out))
        return false;
    return Out.size() <= MaxClauses;
  case EK::Or: {
    std::vector<Clause> Acc{{}};
    for (auto &K : E->Kids) {
      std::vector<Clause> Sub;
      if (!cnf(K, Sub))
        return false;
      std::vector<Clause> Next;
      for (auto &A : Acc)
        for (auto &B : Sub) {
          Clause C = A;
          C.insert(C.end(), B.begin(), B.end());
          Next.push_back(std::move(C));
          if (Next.size() > MaxClauses)
            return false;
        }
      Acc = std::move(Next);
    }
    Out.insert(Out.end(), Acc.begin(), Acc.end());
    return Out.size() <= MaxClauses;
  }
  default:
    Out.push_back({E});
    return true;
  }
}

/// Drops repeated literals; returns false for a tautology (l OR NOT l).
bool simplifyClause(Clause &C) {
  std::set<std::string> Seen;
  Clause Out;
  for (auto &L : C) {
    std::string K = printExpr(*L);
    if (Seen.count(K))
      continue;
    Seen.insert(K);
    Out.push_back(L);
  }
  for (auto &L : Out)
    if (Seen.count(printExpr(*negateLiteral(L))))
      return false;
  C = std::move(Out);
  return true;
}

void collectNodeVars(const Expr &E, std::vector<std::string> &Out) {
  if (E.Kind == EK::NodeVar && !is_contained(Out, E.Name))
    Out.push_back(E.Name);
  for (auto &K : E.Kids)
    collectNodeVars(*K, Out);
}

ExprPtr instantiate(const ExprPtr &E,
                    const std::map<std::string, unsigned> &Binding) {
  if (E->Kind == EK::NodeVar) {
    auto N = std::make_shared<Expr>(EK::Node);
    N->Value = Binding.at(E->Name);
    N->Name = E->Name; // remembered for Algorithm 2's variable names
    N->Loc = E->Loc;
    return N;
  }
  if (E->Kids.empty())
    return E;
  std::vector<ExprPtr> Kids;
  for (auto &K : E->Kids)
    Kids.push_back(instantiate(K, Binding));
  return withKids(*E, Kids);
}

class Decomposer {
public:
  Decomposer(const Program &G, const DecomposeOptions &Opts, Decomposition &D)
      : G(G), Opts(Opts), D(D) {}

  Error run();

private:
  Expected<ExprPtr> substituteTemps(const ExprPtr &E,
                                    std::vector<std::string> &Stack);
  Expected<ExprPtr> convert(const ExprPtr &E);
  ExprPtr rule(RuleKind K, ExprPtr At, ExprPtr Peer, const Expr &From);
  Expected<ExprPtr> routingRule(const ExprPtr &Src, const ExprPtr &Dst,
                                const Expr &From);
  void buildLocalPrograms();

  const Program &G;
  const DecomposeOptions &Opts;
  Decomposition &D;
  std::map<std::string, const Stmt *> TempDefs;
  std::optional<RoutingPool> Pool;
};

Expected<ExprPtr> Decomposer::substituteTemps(const ExprPtr &E,
                                              std::vector<std::string> &Stack) {
  if (E->Kind == EK::Temp) {
    if (is_contained(Stack, E->Name)) {
      Stack.push_back(E->Name);
      return errorAt(G, E->Loc,
                     "TEMP '" + E->Name + "' is defined in terms of itself (" +
                         join(Stack, " -> ") + ")");
    }
    auto It = TempDefs.find(E->Name);
    if (It == TempDefs.end())
      return errorAt(G, E->Loc,
                     "TEMP '" + E->Name + "' is used but never assigned");
    Stack.push_back(E->Name);
    auto R = substituteTemps(It->second->Value, Stack);
    Stack.pop_back();
    return R;
  }
  if (E->Kids.empty())
    return E;
  std::vector<ExprPtr> Kids;
  for (auto &K : E->Kids) {
    auto S = substituteTemps(K, Stack);
    if (!S)
      return S.takeError();
    Kids.push_back(*S);
  }
  return withKids(*E, Kids);
}

ExprPtr Decomposer::rule(RuleKind K, ExprPtr At, ExprPtr Peer,
                         const Expr &From) {
  auto R = std::make_shared<Expr>(EK::Rule);
  R->Rule = K;
  R->Kids = {std::move(At), std::move(Peer)};
  R->Name = From.Name;
  R->Time = From.Time;
  R->Loc = From.Loc;
  return R;
}

Expected<ExprPtr> Decomposer::routingRule(const ExprPtr &Src,
                                          const ExprPtr &Dst,
                                          const Expr &From) {
  if (!Pool)
    return errorAt(G, From.Loc,
                   "Routing_rule needs #NETWORK \"file\" and #ROUTING "
                   "\"protocol\" to find the relay nodes");
  auto Relays = Pool->relays(Src->Value, Dst->Value);
  if (!Relays) {
    D.Warnings.push_back(formatv("{0}:{1}:{2}: warning: no {3} route from "
                                 "node {4} to node {5} in '{6}'; no relay "
                                 "checks for it",
                                 G.FileName, From.Loc.Line, From.Loc.Col,
                                 routingProtocolName(Pool->protocol()),
                                 Src->Value, Dst->Value, G.NetworkFile));
    return mkBool(true, From.Loc);
  }
  std::vector<ExprPtr> Parts;
  for (unsigned R : *Relays) {
    auto E = std::make_shared<Expr>(EK::Rule);
    E->Rule = RuleKind::Routing;
    E->Kids = {Src, Dst, mkNode(R, From.Loc)};
    E->Loc = From.Loc;
    Parts.push_back(E);
  }
  return mkNary(EK::And, Parts, From.Loc);
}

/// Algorithm 1 step 3: wsn_expressions become property-checking functions
/// (Table 3.2; the third column when #NETWORK and #ROUTING are given).
Expected<ExprPtr> Decomposer::convert(const ExprPtr &E) {
  switch (E->Kind) {
  case EK::Send:
  case EK::Recv: {
    // n SEND d TO m: the sender is n. n RECEIVE d FROM m: the sender is m.
    ExprPtr Sender = E->Kind == EK::Send ? E->Kids[0] : E->Kids[1];
    ExprPtr Receiver = E->Kind == EK::Send ? E->Kids[1] : E->Kids[0];
    std::vector<ExprPtr> Parts;
    if (E->Kind == EK::Send) {
      Parts.push_back(rule(RuleKind::Send, Sender, Receiver, *E));
      Parts.push_back(rule(RuleKind::Recv, Receiver, Sender, *E));
    } else {
      Parts.push_back(rule(RuleKind::Recv, Receiver, Sender, *E));
      Parts.push_back(rule(RuleKind::Send, Sender, Receiver, *E));
    }
    if (Pool) {
      auto R = routingRule(Sender, Receiver, *E);
      if (!R)
        return R.takeError();
      Parts.push_back(*R);
    }
    return mkNary(EK::And, Parts, E->Loc);
  }
  case EK::Bcast: {
    std::vector<ExprPtr> Parts{
        rule(RuleKind::Send, E->Kids[0], mkNode(BroadcastNode, E->Loc), *E)};
    if (D.Topo)
      for (unsigned Nb : topology::neighbours(*D.Topo, E->Kids[0]->Value,
                                              Opts.Link))
        Parts.push_back(
            rule(RuleKind::Recv, mkNode(Nb, E->Loc), E->Kids[0], *E));
    return mkNary(EK::And, Parts, E->Loc);
  }
  case EK::Rule:
    if (E->Rule == RuleKind::Routing && E->Kids.size() == 2)
      return routingRule(E->Kids[0], E->Kids[1], *E);
    return E;
  default: {
    if (E->Kids.empty())
      return E;
    std::vector<ExprPtr> Kids;
    for (auto &K : E->Kids) {
      auto C = convert(K);
      if (!C)
        return C.takeError();
      Kids.push_back(*C);
    }
    return withKids(*E, Kids);
  }
  }
}

Error Decomposer::run() {
  if (G.IsLocal)
    return errorAt(G, {1, 1},
                   "decompose needs a SensorC_G (#GLOBAL) program; this is "
                   "a SensorC_L program");
  auto Nodes = networkNodes(G, Opts, &D.Topo);
  if (!Nodes)
    return Nodes.takeError();
  D.Nodes = *Nodes;
  if (G.HasRouting && !G.RoutingName.empty()) {
    auto P = lookupRoutingProtocol(G.RoutingName);
    if (!P)
      return errorAt(G, G.RoutingLoc,
                     "unknown routing protocol \"" + G.RoutingName +
                         "\" (the routing pool has \"AODV\" and "
                         "\"SHORTEST_PATH\")");
    D.Routing = *P;
    Pool.emplace(*D.Topo, *P, Opts.Link);
  }
  for (const Decl &Dc : G.Decls)
    if (Dc.Kind == Decl::Node && Dc.All && D.Nodes.empty())
      return errorAt(G, Dc.Loc,
                     "NODE " + Dc.Alias +
                         " = [ALL] needs the network size: give --nodes N "
                         "or a #NETWORK topology file");
  for (const Stmt &S : G.Stmts)
    if (S.Kind == Stmt::TempAssign)
      TempDefs[S.Temp] = &S;

  std::set<std::string> SeenClauses;
  uint64_t TotalInstances = 0, MostInstances = 0;
  SrcLoc Biggest = {1, 1}; // the check with the most instances
  for (unsigned SI = 0; SI < G.Stmts.size(); ++SI) {
    const Stmt &S = G.Stmts[SI];
    if (S.Kind != Stmt::Check)
      continue;
    // The property is NOT (guard AND violation).
    ExprPtr Viol = S.Guard ? mkNary(EK::And, {S.Guard, S.Violation}, S.Loc)
                           : S.Violation;
    std::vector<std::string> Stack;
    auto Sub = substituteTemps(Viol, Stack); // step 1
    if (!Sub)
      return Sub.takeError();
    ExprPtr Prop = mkNot(*Sub, S.Loc);
    // Step 2: instantiate over the NODE sets.
    std::vector<std::string> Vars;
    collectNodeVars(*Prop, Vars);
    std::vector<std::vector<unsigned>> Sets;
    uint64_t Count = 1;
    for (auto &V : Vars) {
      Sets.push_back(nodeSet(*G.findNodeVar(V), D.Nodes));
      Count *= Sets.back().size();
      if (TotalInstances + Count > MaxInstances)
        return errorAt(G, S.Loc,
                       "too many instantiated properties (over " + Twine(MaxInstances) +
                           " in all checks); narrow the NODE sets");
    }
    TotalInstances += Count;
    if (Count > MostInstances) {
      MostInstances = Count;
      Biggest = S.Loc;
    }
    std::vector<size_t> Idx(Vars.size(), 0);
    for (uint64_t N = 0; N < Count; ++N) {
      std::map<std::string, unsigned> Binding;
      for (size_t I = 0; I < Vars.size(); ++I)
        Binding[Vars[I]] = Sets[I][Idx[I]];
      for (size_t I = Vars.size(); I-- > 0;) {
        if (++Idx[I] < Sets[I].size())
          break;
        Idx[I] = 0;
      }
      auto Conv = convert(instantiate(Prop, Binding)); // step 3
      if (!Conv)
        return Conv.takeError();
      D.Instances.push_back(*Conv);
      std::vector<Clause> Cls; // step 5
      if (!cnf(nnf(*Conv, false), Cls))
        return errorAt(G, S.Loc, "the CNF of this property has more than " +
                                     Twine(MaxClauses) + " clauses");
      for (auto &C : Cls) {
        if (!simplifyClause(C))
          continue;
        std::vector<std::string> Keys;
        for (auto &L : C)
          Keys.push_back(printExpr(*L));
        llvm::sort(Keys);
        if (!SeenClauses.insert(join(Keys, " | ")).second)
          continue;
        GroundClause GC;
        GC.Lits = C;
        GC.Stmt = SI;
        for (auto &L : C)
          collectItems(*L, -1, GC.Items);
        D.Clauses.push_back(std::move(GC));
      }
    }
  }
  // Step 6: assignment.
  AssignmentProblem AP = D.problem();
  D.Assign = greedyAssign(AP);
  D.TotalCost = assignmentCost(AP, D.Assign);
  for (unsigned N : AP.Nodes)
    D.PerNode[N].Node = N;
  for (unsigned C = 0; C < D.Clauses.size(); ++C) {
    NodeResult &NR = D.PerNode[D.Assign[C]];
    NR.Clauses.push_back(C);
    for (auto &I : D.Clauses[C].Items)
      (I.Node == (int64_t)NR.Node ? NR.Local : NR.Remote).insert(I);
  }
  for (auto &[N, NR] : D.PerNode)
    for (auto &I : NR.Remote)
      if (I.Node >= 0 && D.PerNode.count(I.Node))
        D.PerNode[I.Node].Served.insert(I);
  size_t Programs = 0;
  for (auto &[N, NR] : D.PerNode)
    Programs += !NR.Clauses.empty() || !NR.Served.empty();
  if (Programs > MaxNodePrograms)
    return errorAt(G, Biggest,
                   "the decomposition gives checks or served values to " + Twine(Programs) +
                       " nodes, more than " + Twine(MaxNodePrograms) +
                       " (one program each); narrow the NODE sets");
  buildLocalPrograms();
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Algorithm 2 and the local-first guard (Figure 3.4)
//===----------------------------------------------------------------------===//

enum class PosKind { Value, VarIndex, RuleAt, RoutingAt };

struct Position {
  PosKind Kind;
  std::string Origin; // NODE variable the id came from, if any
};

/// Replaces every node id by a placeholder "$k" (k = position), recording
/// what the position is.
ExprPtr abstractNodes(const ExprPtr &E, std::vector<Position> &Pos,
                      std::vector<int64_t> &Vals, PosKind Ctx) {
  if (E->Kind == EK::Node) {
    if (E->Value == BroadcastNode)
      return E;
    unsigned K = Pos.size();
    Pos.push_back({Ctx, E->Name});
    Vals.push_back(E->Value);
    return mkNodeVar("$" + std::to_string(K), E->Loc);
  }
  if (E->Kids.empty())
    return E;
  std::vector<ExprPtr> Kids;
  for (size_t I = 0; I < E->Kids.size(); ++I) {
    PosKind K = PosKind::Value;
    if ((E->Kind == EK::Var || E->Kind == EK::Event) && I == 0)
      K = PosKind::VarIndex;
    else if (E->Kind == EK::Rule && E->Rule != RuleKind::Routing && I == 0)
      K = PosKind::RuleAt;
    else if (E->Kind == EK::Rule && E->Rule == RuleKind::Routing && I == 2)
      K = PosKind::RoutingAt;
    Kids.push_back(abstractNodes(E->Kids[I], Pos, Vals, K));
  }
  return withKids(*E, Kids);
}

struct Group {
  std::vector<ExprPtr> AbsLits;
  std::vector<Position> Pos;
  std::vector<std::vector<int64_t>> Tuples;
};

struct LocalCheck {
  ExprPtr Guard; // may be null
  ExprPtr Violation;
  std::set<std::string> Vars;
};

class LocalBuilder {
public:
  LocalBuilder(const Decomposition &D, unsigned Self) : D(D), Self(Self) {}

  void addGroup(const Group &Gr) { emit(Gr, Gr.Tuples); }
  Program finish(const Program &Source);

private:
  void emit(const Group &Gr, std::vector<std::vector<int64_t>> Tuples);
  std::string nodeVarFor(const std::string &Origin,
                         const std::vector<unsigned> &Set,
                         const std::set<std::string> &Taken);
  ExprPtr fill(const ExprPtr &E, const std::vector<ExprPtr> &Subst,
               const std::vector<bool> &Local);
  bool isLocal(const Expr &E) const;

  const Decomposition &D;
  unsigned Self;
  std::vector<std::pair<std::string, std::vector<unsigned>>> NodeVars;
  std::vector<LocalCheck> Checks;
};

std::string LocalBuilder::nodeVarFor(const std::string &Origin,
                                     const std::vector<unsigned> &Set,
                                     const std::set<std::string> &Taken) {
  std::string Base = Origin.empty() ? "k" : Origin;
  for (unsigned I = 1;; ++I) {
    std::string Name = I == 1 ? Base : Base + std::to_string(I);
    if (Taken.count(Name))
      continue; // another class of the same check
    if (D.Source && (D.Source->findGlobal(Name) || D.Source->isTemp(Name)))
      continue; // would clash with a declaration
    auto It = llvm::find_if(NodeVars,
                            [&](auto &P) { return P.first == Name; });
    if (It == NodeVars.end()) {
      NodeVars.push_back({Name, Set});
      return Name;
    }
    if (It->second == Set)
      return Name;
  }
}

ExprPtr LocalBuilder::fill(const ExprPtr &E, const std::vector<ExprPtr> &Subst,
                           const std::vector<bool> &Local) {
  if (E->Kind == EK::NodeVar && E->Name[0] == '$')
    return Subst[std::stoul(E->Name.substr(1))];
  if (E->Kids.empty())
    return E;
  std::vector<ExprPtr> Kids;
  for (size_t I = 0; I < E->Kids.size(); ++I) {
    const ExprPtr &K = E->Kids[I];
    bool IsIndex = ((E->Kind == EK::Var || E->Kind == EK::Event) && I == 0) ||
                   (E->Kind == EK::Rule && E->Rule == RuleKind::Routing &&
                    I == 2);
    if (IsIndex && K->Kind == EK::NodeVar && K->Name[0] == '$' &&
        Local[std::stoul(K->Name.substr(1))])
      continue; // an index naming this node: a local reference
    Kids.push_back(fill(K, Subst, Local));
  }
  return withKids(*E, Kids);
}

bool LocalBuilder::isLocal(const Expr &E) const {
  switch (E.Kind) {
  case EK::Var:
  case EK::Event:
    return !E.index();
  case EK::Rule:
    if (E.Rule == RuleKind::Routing)
      return E.Kids.size() < 3;
    return E.Kids[0]->Kind == EK::Node && E.Kids[0]->Value == Self;
  default:
    return llvm::all_of(E.Kids, [&](const ExprPtr &K) { return isLocal(*K); });
  }
}

static void collectVarNames(const Expr &E, std::set<std::string> &Out) {
  if (E.Kind == EK::NodeVar)
    Out.insert(E.Name);
  for (auto &K : E.Kids)
    collectVarNames(*K, Out);
}

void LocalBuilder::emit(const Group &Gr,
                        std::vector<std::vector<int64_t>> Tuples) {
  llvm::sort(Tuples);
  Tuples.erase(std::unique(Tuples.begin(), Tuples.end()), Tuples.end());
  size_t NP = Gr.Pos.size();
  // Positions that agree in every tuple form one class (one NODE variable).
  std::vector<int> Class(NP, -1);
  std::vector<std::vector<size_t>> Classes;
  for (size_t P = 0; P < NP; ++P) {
    if (Class[P] >= 0)
      continue;
    Class[P] = Classes.size();
    Classes.push_back({P});
    for (size_t Q = P + 1; Q < NP; ++Q)
      if (Class[Q] < 0 && llvm::all_of(Tuples, [&](auto &T) {
            return T[P] == T[Q];
          })) {
        Class[Q] = Class[P];
        Classes.back().push_back(Q);
      }
  }
  std::vector<std::vector<unsigned>> Vals(Classes.size());
  uint64_t Product = 1;
  for (size_t C = 0; C < Classes.size(); ++C) {
    std::set<unsigned> S;
    for (auto &T : Tuples)
      S.insert(T[Classes[C][0]]);
    Vals[C].assign(S.begin(), S.end());
    Product *= Vals[C].size();
  }
  if (Product != Tuples.size()) {
    // Not a product of independent sets: split on the first varying class.
    for (size_t C = 0; C < Classes.size(); ++C) {
      if (Vals[C].size() < 2)
        continue;
      for (unsigned V : Vals[C]) {
        std::vector<std::vector<int64_t>> Part;
        for (auto &T : Tuples)
          if (T[Classes[C][0]] == V)
            Part.push_back(T);
        emit(Gr, Part);
      }
      return;
    }
  }
  std::vector<ExprPtr> Subst(NP);
  std::vector<bool> Local(NP, false);
  std::set<std::string> Taken;
  for (size_t C = 0; C < Classes.size(); ++C) {
    ExprPtr Rep;
    if (Vals[C].size() == 1) {
      Rep = mkNode(Vals[C][0]);
    } else {
      std::string Origin = Gr.Pos[Classes[C][0]].Origin;
      std::string Name = nodeVarFor(Origin, Vals[C], Taken);
      Taken.insert(Name);
      Rep = mkNodeVar(Name);
    }
    for (size_t P : Classes[C]) {
      Subst[P] = Rep;
      bool IsIndex = Gr.Pos[P].Kind == PosKind::VarIndex ||
                     Gr.Pos[P].Kind == PosKind::RoutingAt;
      Local[P] = IsIndex && Vals[C].size() == 1 && Vals[C][0] == Self;
    }
  }
  // Figure 3.4: the violation of a clause is the conjunction of its negated
  // literals; the local ones form the outer guard.
  std::vector<ExprPtr> LocalPart, RemotePart;
  for (auto &L : Gr.AbsLits) {
    ExprPtr F = negateLiteral(fill(L, Subst, Local));
    (isLocal(*F) ? LocalPart : RemotePart).push_back(F);
  }
  LocalCheck Ch;
  if (LocalPart.empty() || RemotePart.empty()) {
    LocalPart.insert(LocalPart.end(), RemotePart.begin(), RemotePart.end());
    Ch.Violation = LocalPart.empty() ? mkBool(true)
                                     : mkNary(EK::And, LocalPart);
  } else {
    Ch.Guard = mkNary(EK::And, LocalPart);
    Ch.Violation = mkNary(EK::And, RemotePart);
  }
  if (Ch.Guard)
    collectVarNames(*Ch.Guard, Ch.Vars);
  collectVarNames(*Ch.Violation, Ch.Vars);
  // Checks that share a guard (and its variables) share the remote fetch:
  // their violations are alternatives under one guard.
  if (Ch.Guard) {
    std::string GK = printExpr(*Ch.Guard);
    for (auto &Old : Checks)
      if (Old.Guard && printExpr(*Old.Guard) == GK) {
        std::set<std::string> OldGuardVars, NewGuardVars;
        collectVarNames(*Old.Guard, OldGuardVars);
        if (Old.Vars == Ch.Vars) {
          std::vector<ExprPtr> Alts;
          if (Old.Violation->Kind == EK::Or)
            Alts = Old.Violation->Kids;
          else
            Alts.push_back(Old.Violation);
          Alts.push_back(Ch.Violation);
          Old.Violation = mkNary(EK::Or, Alts);
          return;
        }
      }
  }
  Checks.push_back(std::move(Ch));
}

Program LocalBuilder::finish(const Program &Source) {
  Program L;
  L.FileName = Source.FileName;
  L.IsLocal = true;
  L.LocalNode = Self;
  std::set<std::string> Aliases;
  std::function<void(const Expr &)> Walk = [&](const Expr &E) {
    if (E.Kind == EK::Var || E.Kind == EK::Event ||
        (E.Kind == EK::Rule && E.Rule != RuleKind::Routing))
      Aliases.insert(E.Name);
    for (auto &K : E.Kids)
      Walk(*K);
  };
  std::set<std::string> UsedVars;
  for (auto &C : Checks) {
    if (C.Guard)
      Walk(*C.Guard);
    Walk(*C.Violation);
    UsedVars.insert(C.Vars.begin(), C.Vars.end());
  }
  for (const Decl &Dc : Source.Decls)
    if ((Dc.Kind == Decl::GlobalVar || Dc.Kind == Decl::GlobalEvent) &&
        Aliases.count(Dc.Alias))
      L.Decls.push_back(Dc);
  for (auto &[Name, Set] : NodeVars) {
    if (!UsedVars.count(Name))
      continue;
    Decl Dc;
    Dc.Kind = Decl::Node;
    Dc.Alias = Name;
    if (!D.Nodes.empty() && Set == D.Nodes) {
      Dc.All = true;
    } else {
      for (unsigned V : Set) {
        if (!Dc.Ranges.empty() && Dc.Ranges.back().second + 1 == V)
          Dc.Ranges.back().second = V;
        else
          Dc.Ranges.push_back({V, V});
      }
    }
    L.Decls.push_back(Dc);
  }
  for (auto &C : Checks) {
    Stmt S;
    S.Kind = Stmt::Check;
    S.Guard = C.Guard;
    S.Violation = C.Violation;
    L.Stmts.push_back(S);
  }
  return L;
}

void Decomposer::buildLocalPrograms() {
  for (auto &[N, NR] : D.PerNode) {
    // Group the node's clauses by shape (Algorithm 2 steps 1-2).
    std::vector<Group> Groups;
    std::map<std::string, size_t> ByShape;
    for (unsigned C : NR.Clauses) {
      std::vector<Position> Pos;
      std::vector<int64_t> Vals;
      std::vector<ExprPtr> Abs;
      std::string Shape;
      for (auto &L : D.Clauses[C].Lits) {
        Abs.push_back(abstractNodes(L, Pos, Vals, PosKind::Value));
        Shape += printExpr(*Abs.back()) + " | ";
      }
      auto [It, New] = ByShape.emplace(Shape, Groups.size());
      if (New)
        Groups.push_back({Abs, Pos, {}});
      Groups[It->second].Tuples.push_back(Vals);
    }
    LocalBuilder B(D, N); // steps 3-4, then Figure 3.4
    for (auto &Gr : Groups)
      B.addGroup(Gr);
    NR.Local_ = B.finish(G);
  }
}

} // namespace

Expected<std::unique_ptr<Decomposition>>
decompose(const Program &G, const DecomposeOptions &Opts) {
  auto D = std::make_unique<Decomposition>();
  D->Source = &G;
  Decomposer Dc(G, Opts, *D);
  if (Error E = Dc.run())
    return std::move(E);
  return std::move(D);
}

} // namespace sensorc
} // namespace wsn
