//===- AST.h - SensorC_G / SensorC_L syntax trees -------------------------===//
//
// One expression node type covers formulas, arithmetic, node references,
// wsn_expressions and the property-checking functions of Table 3.1. Nodes are
// immutable once built; transformations build new trees (sharing subtrees).
// The grammar is in spec/sensorc.md.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_AST_H
#define WSN_SENSORC_AST_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wsn {
namespace sensorc {

struct SrcLoc {
  unsigned Line = 0, Col = 0;
};

/// The time bound of a wsn_expression or rule: LESS_THAN t (must happen
/// within the first t seconds), or [AFTER a] EVERY p (from second a on, must
/// happen with gaps shorter than p seconds).
struct TimeBound {
  enum KindTy { None, LessThan, Every } Kind = None;
  uint32_t Ms = 0;      // t or p, in milliseconds
  uint32_t AfterMs = 0; // a, in milliseconds (Every only)
  bool operator==(const TimeBound &O) const {
    return Kind == O.Kind && Ms == O.Ms && AfterMs == O.AfterMs;
  }
};

enum class CmpOp { EQ, NE, LT, LE, GT, GE };
enum class ArithOp { Add, Sub, Mul, Div, Rem };
enum class RuleKind { Send, Recv, Routing };

/// Node id used for the broadcast address in Send_rule.
constexpr int64_t BroadcastNode = -1;

enum class EK {
  // Values.
  Int,     // integer literal: Value
  Node,    // node id (from a NODE variable or an index): Value, BroadcastNode
  NodeVar, // NODE variable: Name
  Var,     // GLOBAL var: Name = alias, Fields; Kids[0] = index, none = local
  Neg,     // -Kids[0]
  Arith,   // Kids[0] Arith Kids[1]
  // Formulas.
  Bool,    // TRUE / FALSE: Value
  Temp,    // TEMP variable: Name
  Event,   // GLOBAL event: Name = alias; Kids[0] = index, none = local
  Not,     // NOT Kids[0]
  And,     // Kids[0] AND Kids[1] AND ...
  Or,      // Kids[0] OR Kids[1] OR ...
  Implies, // Kids[0] -> Kids[1]
  Iff,     // Kids[0] <-> Kids[1]
  Cmp,     // Kids[0] Cmp Kids[1]
  Send,    // Kids[0] SEND Name TO Kids[1] Time
  Recv,    // Kids[0] RECEIVE Name FROM Kids[1] Time
  Bcast,   // Kids[0] BROADCAST Name Time
  Rule,    // Rule(Kids[0], Kids[1], Name.type, Time) for Send/Recv;
           // Routing_rule(Kids[0], Kids[1])[Kids[2]] (Kids[2] optional)
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  EK Kind;
  SrcLoc Loc;
  int64_t Value = 0;
  std::string Name;
  std::vector<std::string> Fields;
  std::vector<ExprPtr> Kids;
  CmpOp Cmp = CmpOp::EQ;
  ArithOp Arith = ArithOp::Add;
  RuleKind Rule = RuleKind::Send;
  TimeBound Time;

  explicit Expr(EK K) : Kind(K) {}
  bool isFormula() const;
  /// The node a Var/Event reference or a Send/Recv rule is attached to
  /// (Kids[0] for those), or null for local references.
  const Expr *index() const {
    return Kids.empty() ? nullptr : Kids[0].get();
  }
};

// Constructors.
ExprPtr mkInt(int64_t V, SrcLoc L = {});
ExprPtr mkNode(int64_t Id, SrcLoc L = {});
ExprPtr mkNodeVar(llvm::StringRef Name, SrcLoc L = {});
ExprPtr mkBool(bool V, SrcLoc L = {});
ExprPtr mkNot(ExprPtr E, SrcLoc L = {});
ExprPtr mkNary(EK K, std::vector<ExprPtr> Kids, SrcLoc L = {});
ExprPtr mkBinary(EK K, ExprPtr A, ExprPtr B, SrcLoc L = {});
ExprPtr mkCmp(CmpOp Op, ExprPtr A, ExprPtr B, SrcLoc L = {});
/// A copy of E with new children.
ExprPtr withKids(const Expr &E, std::vector<ExprPtr> Kids);

CmpOp negate(CmpOp Op);
llvm::StringRef spelling(CmpOp Op);
llvm::StringRef spelling(ArithOp Op);
llvm::StringRef ruleName(RuleKind K);

struct Decl {
  enum KindTy { GlobalVar, GlobalEvent, Temp, Node } Kind;
  SrcLoc Loc;
  // GlobalVar / GlobalEvent: alias = C name (Deref: alias = *C name).
  std::string Alias, CName;
  bool Deref = false;
  // Temp: the names declared together.
  std::vector<std::string> Names;
  // Node: Alias = variable; All or explicit ranges [lo, hi].
  bool All = false;
  std::vector<std::pair<unsigned, unsigned>> Ranges;
};

struct Stmt {
  enum KindTy { TempAssign, Check } Kind;
  SrcLoc Loc;
  std::string Temp;  // TempAssign
  ExprPtr Value;     // TempAssign
  ExprPtr Guard;     // Check: optional outer IF (Figure 3.4)
  ExprPtr Violation; // Check: the IF condition that raises ERROR
};

struct Program {
  std::string FileName;
  bool IsLocal = false;
  unsigned LocalNode = 0;
  std::vector<Decl> Decls;
  bool HasNetwork = false, HasRouting = false;
  std::string NetworkFile, RoutingName; // empty when the segment is bare
  SrcLoc NetworkLoc, RoutingLoc;
  std::vector<Stmt> Stmts;

  const Decl *findGlobal(llvm::StringRef Alias) const;
  const Decl *findNodeVar(llvm::StringRef Name) const;
  bool isTemp(llvm::StringRef Name) const;
};

/// Prints an expression in concrete syntax that parses back to an equal tree.
std::string printExpr(const Expr &E);
/// Prints a whole program (SensorC_G or SensorC_L).
std::string printProgram(const Program &P);

/// Structural equality, ignoring source locations.
bool equalExpr(const Expr &A, const Expr &B);
bool equalProgram(const Program &A, const Program &B);

std::string formatSeconds(uint32_t Ms);

} // namespace sensorc
} // namespace wsn

#endif
