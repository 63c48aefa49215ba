//===- Eval.cpp - Meaning of SensorC programs on a valuation --------------===//
#include "Eval.h"
#include "Decompose.h"

#include <functional>
#include <map>

namespace wsn {
namespace sensorc {

static uint64_t mix(uint64_t H, uint64_t X) {
  H ^= X + 0x9e3779b97f4a7c15ULL + (H << 6) + (H >> 2);
  H ^= H >> 33;
  H *= 0xff51afd7ed558ccdULL;
  H ^= H >> 33;
  return H;
}

static uint64_t hashItem(uint64_t Seed, const std::string &Key, int64_t Node) {
  uint64_t H = mix(Seed, 0x51ed270b);
  for (unsigned char C : Key)
    H = mix(H, C);
  return mix(H, static_cast<uint64_t>(Node));
}

int64_t Valuation::value(const std::string &Key, int64_t Node) const {
  return static_cast<int64_t>(hashItem(Seed, Key, Node) %
                              static_cast<uint64_t>(Range));
}

bool Valuation::truth(const std::string &Key, int64_t Node) const {
  return (hashItem(Seed ^ 0xabcdef, Key, Node) >> 7) & 1;
}

namespace {
using Env = std::map<std::string, int64_t>;

class Evaluator {
public:
  Evaluator(const Program *P, const EvalContext *C, const Valuation &V,
            int64_t Local)
      : P(P), C(C), V(V), Local(Local) {}

  int64_t node(const Expr &E, const Env &En) const {
    if (E.Kind == EK::NodeVar)
      return En.at(E.Name);
    return E.Value;
  }

  int64_t value(const Expr &E, const Env &En) const {
    switch (E.Kind) {
    case EK::Int:
    case EK::Node:
      return E.Value;
    case EK::NodeVar:
      return En.at(E.Name);
    case EK::Var: {
      std::string Key = E.Name;
      for (auto &F : E.Fields)
        Key += "." + F;
      int64_t N = E.index() ? node(*E.Kids[0], En) : Local;
      return V.value(Key, N);
    }
    case EK::Neg:
      return -value(*E.Kids[0], En);
    case EK::Arith: {
      int64_t A = value(*E.Kids[0], En), B = value(*E.Kids[1], En);
      switch (E.Arith) {
      case ArithOp::Add: return A + B;
      case ArithOp::Sub: return A - B;
      case ArithOp::Mul: return A * B;
      case ArithOp::Div: return B == 0 ? 0 : A / B;
      case ArithOp::Rem: return B == 0 ? 0 : A % B;
      }
      return 0;
    }
    default:
      return 0;
    }
  }

  ExprPtr ground(const Expr &E, const Env &En) const {
    std::vector<ExprPtr> Kids;
    for (auto &K : E.Kids)
      Kids.push_back(K->Kind == EK::NodeVar ? mkNode(En.at(K->Name))
                                            : ground(*K, En));
    return withKids(E, Kids);
  }

  bool rule(const Expr &E, const Env &En) const {
    ExprPtr G = ground(E, En);
    int64_t At = G->Rule == RuleKind::Routing
                     ? (G->Kids.size() > 2 ? G->Kids[2]->Value : Local)
                     : G->Kids[0]->Value;
    return V.truth(ruleItemKey(*G, At), At);
  }

  bool rule(RuleKind K, int64_t At, int64_t Peer, const Expr &From) const {
    auto R = std::make_shared<Expr>(EK::Rule);
    R->Rule = K;
    R->Kids = {mkNode(At), mkNode(Peer)};
    R->Name = From.Name;
    R->Time = From.Time;
    return V.truth(ruleItemKey(*R, At), At);
  }

  bool routing(int64_t Src, int64_t Dst) const {
    auto Relays = C->Pool->relays(Src, Dst);
    if (!Relays)
      return true;
    for (unsigned R : *Relays) {
      auto E = std::make_shared<Expr>(EK::Rule);
      E->Rule = RuleKind::Routing;
      E->Kids = {mkNode(Src), mkNode(Dst)};
      if (!V.truth(ruleItemKey(*E, R), R))
        return false;
    }
    return true;
  }

  bool formula(const Expr &E, const Env &En) const {
    switch (E.Kind) {
    case EK::Bool:
      return E.Value;
    case EK::Temp:
      for (auto &S : P->Stmts)
        if (S.Kind == Stmt::TempAssign && S.Temp == E.Name)
          return formula(*S.Value, En);
      return false;
    case EK::Event:
      return V.truth(E.Name, E.index() ? node(*E.Kids[0], En) : Local);
    case EK::Not:
      return !formula(*E.Kids[0], En);
    case EK::And:
      for (auto &K : E.Kids)
        if (!formula(*K, En))
          return false;
      return true;
    case EK::Or:
      for (auto &K : E.Kids)
        if (formula(*K, En))
          return true;
      return false;
    case EK::Implies:
      return !formula(*E.Kids[0], En) || formula(*E.Kids[1], En);
    case EK::Iff:
      return formula(*E.Kids[0], En) == formula(*E.Kids[1], En);
    case EK::Cmp: {
      int64_t A = value(*E.Kids[0], En), B = value(*E.Kids[1], En);
      switch (E.Cmp) {
      case CmpOp::EQ: return A == B;
      case CmpOp::NE: return A != B;
      case CmpOp::LT: return A < B;
      case CmpOp::LE: return A <= B;
      case CmpOp::GT: return A > B;
      case CmpOp::GE: return A >= B;
      }
      return false;
    }
    case EK::Rule:
      if (E.Rule == RuleKind::Routing && E.Kids.size() == 2 && !P->IsLocal &&
          C->Pool)
        return routing(node(*E.Kids[0], En), node(*E.Kids[1], En));
      return rule(E, En);
    case EK::Send:
    case EK::Recv: {
      // Table 3.2: both ends' rules, plus the relays' with a routing model.
      int64_t A = node(*E.Kids[0], En), B = node(*E.Kids[1], En);
      int64_t Sender = E.Kind == EK::Send ? A : B;
      int64_t Receiver = E.Kind == EK::Send ? B : A;
      bool R = rule(RuleKind::Send, Sender, Receiver, E) &&
               rule(RuleKind::Recv, Receiver, Sender, E);
      if (C->Pool)
        R = R && routing(Sender, Receiver);
      return R;
    }
    case EK::Bcast: {
      int64_t N = node(*E.Kids[0], En);
      bool R = rule(RuleKind::Send, N, BroadcastNode, E);
      if (C->Topo)
        for (unsigned Nb : topology::neighbours(*C->Topo, N, C->Link))
          R = R && rule(RuleKind::Recv, Nb, N, E);
      return R;
    }
    default:
      return false;
    }
  }

  void vars(const Expr &E, std::vector<std::string> &Out) const {
    if (E.Kind == EK::NodeVar) {
      for (auto &S : Out)
        if (S == E.Name)
          return;
      Out.push_back(E.Name);
    }
    if (E.Kind == EK::Temp)
      for (auto &S : P->Stmts)
        if (S.Kind == Stmt::TempAssign && S.Temp == E.Name)
          vars(*S.Value, Out);
    for (auto &K : E.Kids)
      vars(*K, Out);
  }

  /// True when the check never fires.
  bool check(const Stmt &S) const {
    std::vector<std::string> Vs;
    if (S.Guard)
      vars(*S.Guard, Vs);
    vars(*S.Violation, Vs);
    Env En;
    std::function<bool(size_t)> Go = [&](size_t I) -> bool {
      if (I == Vs.size()) {
        bool Fires = (!S.Guard || formula(*S.Guard, En)) &&
                     formula(*S.Violation, En);
        return !Fires;
      }
      for (unsigned N : nodeSet(*P->findNodeVar(Vs[I]), C->Network)) {
        En[Vs[I]] = N;
        if (!Go(I + 1))
          return false;
      }
      return true;
    };
    return Go(0);
  }

  bool program() const {
    for (auto &S : P->Stmts)
      if (S.Kind == Stmt::Check && !check(S))
        return false;
    return true;
  }

private:
  const Program *P;
  const EvalContext *C;
  const Valuation &V;
  int64_t Local;
};
} // namespace

bool holdsGlobal(const Program &G, const EvalContext &C, const Valuation &V) {
  return Evaluator(&G, &C, V, -1).program();
}

bool holdsLocal(const Program &L, const EvalContext &C, const Valuation &V) {
  return Evaluator(&L, &C, V, L.LocalNode).program();
}

bool holdsGround(const Expr &E, const Valuation &V) {
  Program Empty;
  EvalContext C;
  return Evaluator(&Empty, &C, V, -1).formula(E, {});
}

} // namespace sensorc
} // namespace wsn
