//===- AST.cpp - SensorC syntax trees: construction, printing, equality ---===//
#include "AST.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace wsn {
namespace sensorc {

bool Expr::isFormula() const {
  switch (Kind) {
  case EK::Int:
  case EK::Node:
  case EK::NodeVar:
  case EK::Var:
  case EK::Neg:
  case EK::Arith:
    return false;
  default:
    return true;
  }
}

ExprPtr mkInt(int64_t V, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::Int);
  E->Value = V;
  E->Loc = L;
  return E;
}
ExprPtr mkNode(int64_t Id, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::Node);
  E->Value = Id;
  E->Loc = L;
  return E;
}
ExprPtr mkNodeVar(StringRef Name, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::NodeVar);
  E->Name = Name.str();
  E->Loc = L;
  return E;
}
ExprPtr mkBool(bool V, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::Bool);
  E->Value = V;
  E->Loc = L;
  return E;
}
ExprPtr mkNot(ExprPtr X, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::Not);
  E->Kids.push_back(std::move(X));
  E->Loc = L;
  return E;
}
ExprPtr mkNary(EK K, std::vector<ExprPtr> Kids, SrcLoc L) {
  if (Kids.size() == 1)
    return Kids[0];
  if (Kids.empty())
    return mkBool(K == EK::And, L);
  auto E = std::make_shared<Expr>(K);
  E->Kids = std::move(Kids);
  E->Loc = L;
  return E;
}
ExprPtr mkBinary(EK K, ExprPtr A, ExprPtr B, SrcLoc L) {
  auto E = std::make_shared<Expr>(K);
  E->Kids = {std::move(A), std::move(B)};
  E->Loc = L;
  return E;
}
ExprPtr mkCmp(CmpOp Op, ExprPtr A, ExprPtr B, SrcLoc L) {
  auto E = std::make_shared<Expr>(EK::Cmp);
  E->Cmp = Op;
  E->Kids = {std::move(A), std::move(B)};
  E->Loc = L;
  return E;
}
ExprPtr withKids(const Expr &E, std::vector<ExprPtr> Kids) {
  auto N = std::make_shared<Expr>(E);
  N->Kids = std::move(Kids);
  return N;
}

CmpOp negate(CmpOp Op) {
  switch (Op) {
  case CmpOp::EQ: return CmpOp::NE;
  case CmpOp::NE: return CmpOp::EQ;
  case CmpOp::LT: return CmpOp::GE;
  case CmpOp::LE: return CmpOp::GT;
  case CmpOp::GT: return CmpOp::LE;
  case CmpOp::GE: return CmpOp::LT;
  }
  return Op;
}

StringRef spelling(CmpOp Op) {
  switch (Op) {
  case CmpOp::EQ: return "==";
  case CmpOp::NE: return "!=";
  case CmpOp::LT: return "<";
  case CmpOp::LE: return "<=";
  case CmpOp::GT: return ">";
  case CmpOp::GE: return ">=";
  }
  return "?";
}

StringRef spelling(ArithOp Op) {
  switch (Op) {
  case ArithOp::Add: return "+";
  case ArithOp::Sub: return "-";
  case ArithOp::Mul: return "*";
  case ArithOp::Div: return "/";
  case ArithOp::Rem: return "%";
  }
  return "?";
}

StringRef ruleName(RuleKind K) {
  switch (K) {
  case RuleKind::Send: return "Send_rule";
  case RuleKind::Recv: return "Recv_rule";
  case RuleKind::Routing: return "Routing_rule";
  }
  return "?";
}

std::string formatSeconds(uint32_t Ms) {
  if (Ms % 1000 == 0)
    return std::to_string(Ms / 1000);
  std::string S = std::to_string(Ms / 1000) + ".";
  char Buf[8];
  snprintf(Buf, sizeof Buf, "%03u", Ms % 1000);
  std::string Frac = Buf;
  while (!Frac.empty() && Frac.back() == '0')
    Frac.pop_back();
  return S + Frac;
}

namespace {
// Formula precedence: Iff 1 < Implies 2 < Or 3 < And 4 < Not 5 < atom 6.
int formulaLevel(const Expr &E) {
  switch (E.Kind) {
  case EK::Iff: return 1;
  case EK::Implies: return 2;
  case EK::Or: return 3;
  case EK::And: return 4;
  case EK::Not: return 5;
  default: return 6;
  }
}
// Arithmetic precedence: + - 1 < * / % 2 < unary minus 3 < primary 4.
int arithLevel(const Expr &E) {
  if (E.Kind == EK::Arith)
    return (E.Arith == ArithOp::Add || E.Arith == ArithOp::Sub) ? 1 : 2;
  if (E.Kind == EK::Neg)
    return 3;
  return 4;
}

class Printer {
public:
  explicit Printer(raw_ostream &OS) : OS(OS) {}

  void formula(const Expr &E, int MinLevel) {
    bool Paren = formulaLevel(E) < MinLevel;
    if (Paren)
      OS << "(";
    switch (E.Kind) {
    case EK::Iff:
      formula(*E.Kids[0], 2);
      OS << " <-> ";
      formula(*E.Kids[1], 2);
      break;
    case EK::Implies:
      formula(*E.Kids[0], 3);
      OS << " -> ";
      formula(*E.Kids[1], 2);
      break;
    case EK::Or:
    case EK::And:
      for (size_t I = 0; I < E.Kids.size(); ++I) {
        if (I)
          OS << (E.Kind == EK::Or ? " OR " : " AND ");
        formula(*E.Kids[I], formulaLevel(E) + 1);
      }
      break;
    case EK::Not:
      OS << "NOT (";
      formula(*E.Kids[0], 0);
      OS << ")";
      break;
    default:
      atom(E);
    }
    if (Paren)
      OS << ")";
  }

  void atom(const Expr &E) {
    switch (E.Kind) {
    case EK::Bool:
      OS << (E.Value ? "TRUE" : "FALSE");
      break;
    case EK::Temp:
      OS << E.Name;
      break;
    case EK::Event:
      OS << E.Name;
      if (E.index()) {
        OS << "[";
        node(*E.Kids[0]);
        OS << "]";
      }
      break;
    case EK::Cmp:
      arith(*E.Kids[0], 1);
      OS << " " << spelling(E.Cmp) << " ";
      arith(*E.Kids[1], 1);
      break;
    case EK::Send:
      node(*E.Kids[0]);
      OS << " SEND " << E.Name << " TO ";
      node(*E.Kids[1]);
      time(E.Time);
      break;
    case EK::Recv:
      node(*E.Kids[0]);
      OS << " RECEIVE " << E.Name << " FROM ";
      node(*E.Kids[1]);
      time(E.Time);
      break;
    case EK::Bcast:
      node(*E.Kids[0]);
      OS << " BROADCAST " << E.Name;
      time(E.Time);
      break;
    case EK::Rule:
      OS << ruleName(E.Rule) << "(";
      node(*E.Kids[0]);
      OS << ", ";
      node(*E.Kids[1]);
      if (E.Rule != RuleKind::Routing) {
        OS << ", " << E.Name << ".type";
        if (E.Time.Kind != TimeBound::None) {
          OS << ",";
          time(E.Time);
        }
        OS << ")";
      } else {
        OS << ")";
        if (E.Kids.size() > 2) {
          OS << "[";
          node(*E.Kids[2]);
          OS << "]";
        }
      }
      break;
    default:
      // A value used as a formula cannot be built by the parser; print it
      // as a comparison with zero so the output stays parseable.
      arith(E, 1);
      OS << " != 0";
    }
  }

  void time(const TimeBound &T) {
    switch (T.Kind) {
    case TimeBound::None:
      break;
    case TimeBound::LessThan:
      OS << " LESS_THAN " << formatSeconds(T.Ms);
      break;
    case TimeBound::Every:
      if (T.AfterMs)
        OS << " AFTER " << formatSeconds(T.AfterMs);
      OS << " EVERY " << formatSeconds(T.Ms);
      break;
    }
  }

  void node(const Expr &E) {
    if (E.Kind == EK::NodeVar)
      OS << E.Name;
    else if (E.Kind == EK::Node && E.Value == BroadcastNode)
      OS << "BCAST";
    else
      OS << E.Value;
  }

  void arith(const Expr &E, int MinLevel) {
    bool Paren = arithLevel(E) < MinLevel;
    if (Paren)
      OS << "(";
    switch (E.Kind) {
    case EK::Int:
    case EK::Node:
      OS << E.Value;
      break;
    case EK::NodeVar:
      OS << E.Name;
      break;
    case EK::Var:
      OS << E.Name;
      if (E.index()) {
        OS << "[";
        node(*E.Kids[0]);
        OS << "]";
      }
      for (auto &F : E.Fields)
        OS << "." << F;
      break;
    case EK::Neg:
      OS << "-";
      arith(*E.Kids[0], 3);
      break;
    case EK::Arith: {
      int L = arithLevel(E);
      arith(*E.Kids[0], L);
      OS << " " << spelling(E.Arith) << " ";
      arith(*E.Kids[1], L + 1);
      break;
    }
    default:
      OS << "<formula>";
    }
    if (Paren)
      OS << ")";
  }

private:
  raw_ostream &OS;
};

void printNodeRanges(raw_ostream &OS, const Decl &D) {
  if (D.All) {
    OS << "ALL";
    return;
  }
  for (size_t I = 0; I < D.Ranges.size(); ++I) {
    if (I)
      OS << ", ";
    auto [Lo, Hi] = D.Ranges[I];
    if (Lo == Hi)
      OS << Lo;
    else
      OS << Lo << " ... " << Hi;
  }
}
} // namespace

std::string printExpr(const Expr &E) {
  std::string S;
  raw_string_ostream OS(S);
  Printer P(OS);
  if (E.isFormula())
    P.formula(E, 0);
  else
    P.arith(E, 0);
  return S;
}

std::string printProgram(const Program &P) {
  std::string S;
  raw_string_ostream OS(S);
  Printer Pr(OS);
  if (P.IsLocal)
    OS << "#LOCAL " << P.LocalNode << "\n";
  else
    OS << "#GLOBAL\n";
  OS << "#DEFINITION\n";
  for (const Decl &D : P.Decls) {
    switch (D.Kind) {
    case Decl::GlobalVar:
    case Decl::GlobalEvent:
      OS << "GLOBAL " << (D.Kind == Decl::GlobalVar ? "var " : "event ")
         << D.Alias << " = " << (D.Deref ? "*" : "") << D.CName << ";\n";
      break;
    case Decl::Temp:
      OS << "TEMP " << join(D.Names, ", ") << ";\n";
      break;
    case Decl::Node:
      OS << "NODE " << D.Alias << " = [";
      printNodeRanges(OS, D);
      OS << "];\n";
      break;
    }
  }
  if (P.HasNetwork) {
    OS << "#NETWORK";
    if (!P.NetworkFile.empty())
      OS << " \"" << P.NetworkFile << "\"";
    OS << "\n";
  }
  if (P.HasRouting) {
    OS << "#ROUTING";
    if (!P.RoutingName.empty())
      OS << " \"" << P.RoutingName << "\"";
    OS << "\n";
  }
  OS << "#PROPERTY\n";
  for (const Stmt &St : P.Stmts) {
    if (St.Kind == Stmt::TempAssign) {
      OS << St.Temp << " = ";
      Pr.formula(*St.Value, 0);
      OS << ";\n";
      continue;
    }
    if (St.Guard) {
      OS << "IF (";
      Pr.formula(*St.Guard, 0);
      OS << ")\n  ";
    }
    OS << "IF (";
    Pr.formula(*St.Violation, 0);
    OS << ") ERROR;\n";
  }
  return S;
}

bool equalExpr(const Expr &A, const Expr &B) {
  if (A.Kind != B.Kind || A.Value != B.Value || A.Name != B.Name ||
      A.Fields != B.Fields || A.Kids.size() != B.Kids.size() ||
      !(A.Time == B.Time))
    return false;
  if (A.Kind == EK::Cmp && A.Cmp != B.Cmp)
    return false;
  if (A.Kind == EK::Arith && A.Arith != B.Arith)
    return false;
  if (A.Kind == EK::Rule && A.Rule != B.Rule)
    return false;
  for (size_t I = 0; I < A.Kids.size(); ++I)
    if (!equalExpr(*A.Kids[I], *B.Kids[I]))
      return false;
  return true;
}

static bool equalOpt(const ExprPtr &A, const ExprPtr &B) {
  if (!A || !B)
    return !A && !B;
  return equalExpr(*A, *B);
}

bool equalProgram(const Program &A, const Program &B) {
  if (A.IsLocal != B.IsLocal || A.LocalNode != B.LocalNode ||
      A.HasNetwork != B.HasNetwork || A.HasRouting != B.HasRouting ||
      A.NetworkFile != B.NetworkFile || A.RoutingName != B.RoutingName ||
      A.Decls.size() != B.Decls.size() || A.Stmts.size() != B.Stmts.size())
    return false;
  for (size_t I = 0; I < A.Decls.size(); ++I) {
    const Decl &X = A.Decls[I], &Y = B.Decls[I];
    if (X.Kind != Y.Kind || X.Alias != Y.Alias || X.CName != Y.CName ||
        X.Deref != Y.Deref || X.Names != Y.Names || X.All != Y.All ||
        X.Ranges != Y.Ranges)
      return false;
  }
  for (size_t I = 0; I < A.Stmts.size(); ++I) {
    const Stmt &X = A.Stmts[I], &Y = B.Stmts[I];
    if (X.Kind != Y.Kind || X.Temp != Y.Temp || !equalOpt(X.Value, Y.Value) ||
        !equalOpt(X.Guard, Y.Guard) || !equalOpt(X.Violation, Y.Violation))
      return false;
  }
  return true;
}

const Decl *Program::findGlobal(StringRef Alias) const {
  for (const Decl &D : Decls)
    if ((D.Kind == Decl::GlobalVar || D.Kind == Decl::GlobalEvent) &&
        D.Alias == Alias)
      return &D;
  return nullptr;
}

const Decl *Program::findNodeVar(StringRef Name) const {
  for (const Decl &D : Decls)
    if (D.Kind == Decl::Node && D.Alias == Name)
      return &D;
  return nullptr;
}

bool Program::isTemp(StringRef Name) const {
  for (const Decl &D : Decls)
    if (D.Kind == Decl::Temp)
      for (auto &N : D.Names)
        if (N == Name)
          return true;
  return false;
}

} // namespace sensorc
} // namespace wsn
