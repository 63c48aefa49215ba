//===- CodeGen.cpp - C for a node's local checks --------------------------===//
#include "CodeGen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>

using namespace llvm;

namespace wsn {
namespace sensorc {

static void walkItems(const Expr &E, std::map<std::string, ExprPtr> &Out,
                      const ExprPtr &Self) {
  if (E.Kind == EK::Var || E.Kind == EK::Event || E.Kind == EK::Rule) {
    std::set<ItemRef> S;
    collectItems(E, -1, S);
    for (auto &I : S)
      Out.emplace(I.Key, Self);
    return;
  }
  for (auto &K : E.Kids)
    walkItems(*K, Out, K);
}

/// Every item key of the decomposition with one ground expression naming it.
static std::map<std::string, ExprPtr> itemExprs(const Decomposition &D) {
  std::map<std::string, ExprPtr> Out;
  for (auto &C : D.Clauses)
    for (auto &L : C.Lits)
      walkItems(*L, Out, L);
  return Out;
}

std::map<std::string, unsigned> itemIds(const Decomposition &D) {
  std::map<std::string, unsigned> Ids;
  for (auto &[K, E] : itemExprs(D))
    Ids.emplace(K, Ids.size());
  return Ids;
}

namespace {

std::string cId(const std::string &S) {
  std::string R;
  for (char C : S)
    R += isAlnum(C) ? C : '_';
  return R;
}

/// One reference to an item inside a check, resolved for every binding of
/// the NODE variables it mentions.
struct Occurrence {
  std::vector<std::string> Vars; // sorted
  std::vector<unsigned> Items;   // per flattened binding
  std::vector<int64_t> Holders;
};

class NodeEmitter {
public:
  NodeEmitter(const Decomposition &D, unsigned Self, const CodeGenOptions &O,
              const std::map<std::string, unsigned> &Ids,
              const std::map<std::string, ExprPtr> &Exprs)
      : D(D), Self(Self), O(O), NR(D.PerNode.at(Self)), L(NR.Local_),
        Ids(Ids), Exprs(Exprs) {}

  Expected<std::string> run();

private:
  std::vector<unsigned> setOf(const std::string &Var) const {
    return nodeSet(*L.findNodeVar(Var), D.Nodes);
  }
  Expected<std::string> cValue(const Expr &E);
  Expected<std::string> cFormula(const Expr &E);
  Expected<std::string> reference(const Expr &E);
  Expected<std::string> localItemExpr(const std::string &Key);
  std::string cVarPath(const Expr &E) const;
  std::string flatIndex(const std::vector<std::string> &Vars) const;
  ExprPtr groundRef(const Expr &E, const std::map<std::string, int64_t> &B);
  void loops(raw_ostream &OS, const std::set<std::string> &Vars,
             const std::string &Indent);

  const Decomposition &D;
  unsigned Self;
  const CodeGenOptions &O;
  const NodeResult &NR;
  const Program &L;
  const std::map<std::string, unsigned> &Ids;
  const std::map<std::string, ExprPtr> &Exprs;
  std::vector<Occurrence> Occs;
  std::set<std::pair<unsigned, int64_t>> Slots; // remote (item, holder)
  std::set<unsigned> LocalItems;                // read with holder == Self
  std::vector<std::string> Errors;
  std::vector<std::pair<unsigned, int64_t>> Wants; // per check, filled late
};

std::string NodeEmitter::cVarPath(const Expr &E) const {
  const Decl *Dc = D.Source->findGlobal(E.Name);
  std::string S = "(" + std::string(Dc && Dc->Deref ? "*" : "") +
                  (Dc ? Dc->CName : E.Name) + ")";
  for (auto &F : E.Fields)
    S += "." + F;
  return S;
}

std::string NodeEmitter::flatIndex(const std::vector<std::string> &Vars) const {
  if (Vars.empty())
    return "0";
  std::string S = "i_" + Vars[0];
  for (size_t I = 1; I < Vars.size(); ++I)
    S = "(" + S + ") * " + std::to_string(setOf(Vars[I]).size()) + "u + i_" +
        Vars[I];
  return S;
}

ExprPtr NodeEmitter::groundRef(const Expr &E,
                               const std::map<std::string, int64_t> &B) {
  std::vector<ExprPtr> Kids;
  for (auto &K : E.Kids)
    Kids.push_back(K->Kind == EK::NodeVar ? mkNode(B.at(K->Name))
                                          : groundRef(*K, B));
  return withKids(E, Kids);
}

Expected<std::string> NodeEmitter::reference(const Expr &E) {
  // A local GLOBAL var or event is read directly.
  if (E.Kind == EK::Var && !E.index())
    return "((int32_t)" + cVarPath(E) + ")";
  if (E.Kind == EK::Event && !E.index())
    return "((int32_t)sensorc_ev_" + cId(E.Name) + "_)";
  std::set<std::string> VarSet;
  std::function<void(const Expr &)> Walk = [&](const Expr &X) {
    if (X.Kind == EK::NodeVar)
      VarSet.insert(X.Name);
    for (auto &K : X.Kids)
      Walk(*K);
  };
  Walk(E);
  Occurrence Oc;
  Oc.Vars.assign(VarSet.begin(), VarSet.end());
  std::map<std::string, int64_t> B;
  std::function<Error(size_t)> Enum = [&](size_t I) -> Error {
    if (I == Oc.Vars.size()) {
      std::set<ItemRef> S;
      collectItems(*groundRef(E, B), Self, S);
      const ItemRef &It = *S.begin();
      auto Id = Ids.find(It.Key);
      if (Id == Ids.end())
        return createStringError(inconvertibleErrorCode(),
                                 "node %u: item '%s' is not in the "
                                 "decomposition",
                                 Self, It.Key.c_str());
      Oc.Items.push_back(Id->second);
      Oc.Holders.push_back(It.Node);
      if (It.Node == (int64_t)Self)
        LocalItems.insert(Id->second);
      else
        Slots.insert({Id->second, It.Node});
      return Error::success();
    }
    for (unsigned V : setOf(Oc.Vars[I])) {
      B[Oc.Vars[I]] = V;
      if (Error Err = Enum(I + 1))
        return Err;
    }
    return Error::success();
  };
  if (Error Err = Enum(0))
    return std::move(Err);
  unsigned K = Occs.size();
  Occs.push_back(Oc);
  if (Oc.Vars.empty())
    return formatv("sensorc_value_({0}u, {1}u, &ok)", Oc.Items[0],
                   Oc.Holders[0])
        .str();
  std::string Idx = flatIndex(Oc.Vars);
  return formatv("sensorc_value_(sensorc_occ{0}_item_[{1}], "
                 "sensorc_occ{0}_node_[{1}], &ok)",
                 K, Idx)
      .str();
}

Expected<std::string> NodeEmitter::cValue(const Expr &E) {
  switch (E.Kind) {
  case EK::Int:
    return "((int32_t)" + std::to_string(E.Value) + "L)";
  case EK::Node:
    return "((int32_t)" +
           std::to_string(E.Value == BroadcastNode ? 0xFFFF : E.Value) + "L)";
  case EK::NodeVar:
    return "((int32_t)" + E.Name + ")";
  case EK::Var:
    return reference(E);
  case EK::Neg: {
    auto A = cValue(*E.Kids[0]);
    if (!A)
      return A.takeError();
    return "(-" + *A + ")";
  }
  case EK::Arith: {
    auto A = cValue(*E.Kids[0]);
    if (!A)
      return A.takeError();
    auto B = cValue(*E.Kids[1]);
    if (!B)
      return B.takeError();
    if (E.Arith == ArithOp::Div)
      return "sensorc_div_(" + *A + ", " + *B + ")";
    if (E.Arith == ArithOp::Rem)
      return "sensorc_rem_(" + *A + ", " + *B + ")";
    return "(" + *A + " " + spelling(E.Arith).str() + " " + *B + ")";
  }
  default:
    return createStringError(inconvertibleErrorCode(),
                             "node %u: cannot generate C for '%s'", Self,
                             printExpr(E).c_str());
  }
}

Expected<std::string> NodeEmitter::cFormula(const Expr &E) {
  auto Kids = [&](StringRef Sep) -> Expected<std::string> {
    std::vector<std::string> Parts;
    for (auto &K : E.Kids) {
      auto S = cFormula(*K);
      if (!S)
        return S.takeError();
      Parts.push_back(*S);
    }
    return "(" + join(Parts, Sep) + ")";
  };
  switch (E.Kind) {
  case EK::Bool:
    return std::string(E.Value ? "1" : "0");
  case EK::Not: {
    auto A = cFormula(*E.Kids[0]);
    if (!A)
      return A.takeError();
    return "(!" + *A + ")";
  }
  case EK::And:
    return Kids(" && ");
  case EK::Or:
    return Kids(" || ");
  case EK::Implies:
  case EK::Iff: {
    auto A = cFormula(*E.Kids[0]);
    if (!A)
      return A.takeError();
    auto B = cFormula(*E.Kids[1]);
    if (!B)
      return B.takeError();
    if (E.Kind == EK::Implies)
      return "(!" + *A + " || " + *B + ")";
    return "(!" + *A + " == !" + *B + ")";
  }
  case EK::Cmp: {
    auto A = cValue(*E.Kids[0]);
    if (!A)
      return A.takeError();
    auto B = cValue(*E.Kids[1]);
    if (!B)
      return B.takeError();
    return "(" + *A + " " + spelling(E.Cmp).str() + " " + *B + ")";
  }
  case EK::Event:
  case EK::Rule: {
    auto R = reference(E);
    if (!R)
      return R.takeError();
    return "(" + *R + " != 0)";
  }
  default:
    return createStringError(inconvertibleErrorCode(),
                             "node %u: cannot generate C for '%s'", Self,
                             printExpr(E).c_str());
  }
}

Expected<std::string> NodeEmitter::localItemExpr(const std::string &Key) {
  auto It = Exprs.find(Key);
  if (It == Exprs.end())
    return createStringError(inconvertibleErrorCode(), "unknown item '%s'",
                             Key.c_str());
  const Expr &E = *It->second;
  if (E.Kind == EK::Var) {
    auto Copy = withKids(E, {});
    return "(int32_t)" + cVarPath(*Copy);
  }
  if (E.Kind == EK::Event)
    return "(int32_t)sensorc_ev_" + cId(E.Name) + "_";
  return "(int32_t)sensorc_rule_ok_(" + std::to_string(Ids.at(Key)) + "u)";
}

void NodeEmitter::loops(raw_ostream &OS, const std::set<std::string> &Vars,
                        const std::string &Indent) {
  std::string In = Indent;
  for (auto &V : Vars) {
    OS << In << "for (uint16_t i_" << V << " = 0; i_" << V << " < "
       << setOf(V).size() << "u; ++i_" << V << ") {\n";
    In += "  ";
    OS << In << "const uint16_t " << V << " = sensorc_set_" << V << "_[i_"
       << V << "];\n"
       << In << "(void)" << V << ";\n";
  }
}

Expected<std::string> NodeEmitter::run() {
  // Translate the checks first: that discovers occurrences, slots, monitors.
  struct CheckC {
    std::set<std::string> Vars;
    std::string Guard, Violation;
    std::vector<std::string> Wants; // remote fetches of the violation part
  };
  std::vector<CheckC> Checks;
  for (auto &S : L.Stmts) {
    CheckC C;
    std::function<void(const Expr &)> Walk = [&](const Expr &X) {
      if (X.Kind == EK::NodeVar)
        C.Vars.insert(X.Name);
      for (auto &K : X.Kids)
        Walk(*K);
    };
    if (S.Guard)
      Walk(*S.Guard);
    Walk(*S.Violation);
    if (S.Guard) {
      auto G = cFormula(*S.Guard);
      if (!G)
        return G.takeError();
      C.Guard = *G;
    }
    size_t FirstOcc = Occs.size();
    auto V = cFormula(*S.Violation);
    if (!V)
      return V.takeError();
    C.Violation = *V;
    for (size_t K = FirstOcc; K < Occs.size(); ++K) {
      std::string Idx = flatIndex(Occs[K].Vars);
      if (Occs[K].Vars.empty())
        C.Wants.push_back(formatv("sensorc_want_({0}u, {1}u);",
                                  Occs[K].Items[0], Occs[K].Holders[0]));
      else
        C.Wants.push_back(formatv("sensorc_want_(sensorc_occ{0}_item_[{1}], "
                                  "sensorc_occ{0}_node_[{1}]);",
                                  K, Idx));
    }
    Checks.push_back(std::move(C));
  }
  // Monitors: rule items this node holds, read locally or served.
  std::set<unsigned> Monitors;
  std::set<unsigned> Served;
  for (auto &I : NR.Served)
    Served.insert(Ids.at(I.Key));
  for (unsigned Id : LocalItems)
    Monitors.insert(Id);
  for (unsigned Id : Served)
    Monitors.insert(Id);
  std::map<unsigned, std::string> KeyOf;
  for (auto &[K, Id] : Ids)
    KeyOf[Id] = K;
  std::vector<std::pair<unsigned, const Expr *>> Rules; // monitor k -> rule
  std::vector<std::pair<unsigned, const Expr *>> Events;
  for (unsigned Id : Monitors) {
    const Expr *E = Exprs.at(KeyOf[Id]).get();
    if (E->Kind == EK::Rule)
      Rules.push_back({Id, E});
    else if (E->Kind == EK::Event)
      Events.push_back({Id, E});
  }
  // Events read locally through their flag need the flag too.
  std::set<std::string> EventNames;
  for (auto &[Id, E] : Events)
    EventNames.insert(E->Name);
  std::function<void(const Expr &)> FindEvents = [&](const Expr &X) {
    if (X.Kind == EK::Event)
      EventNames.insert(X.Name);
    for (auto &K : X.Kids)
      FindEvents(*K);
  };
  for (auto &S : L.Stmts) {
    if (S.Guard)
      FindEvents(*S.Guard);
    FindEvents(*S.Violation);
  }

  std::string Out;
  raw_string_ostream OS(Out);
  OS << "/* node_" << Self << ".c - generated by sensorc from "
     << O.SpecName << ": the local checks of node " << Self
     << "\n * (SensorC_L in node_" << Self
     << ".sl). Do not edit; see spec/sensorc.md, \"Generated C\". */\n"
     << "#include <stdint.h>\n#include <wsn/invariant.h>\n#include \""
     << O.AppHeader << "\"\n\n"
     << "#define SENSORC_NODE_ID " << Self << "u\n"
     << "#ifndef SENSORC_REMOTE_MAX_AGE_MS\n"
        "#define SENSORC_REMOTE_MAX_AGE_MS 5000u /* a remote value older than "
        "this is fetched again */\n#endif\n"
        "#ifndef SENSORC_REQUEST_RETRY_MS\n"
        "#define SENSORC_REQUEST_RETRY_MS 500u /* at most one request per "
        "value in this time */\n#endif\n"
        "#ifndef SENSORC_FORWARD_DEADLINE_MS\n"
        "#define SENSORC_FORWARD_DEADLINE_MS 1000u /* Routing_rule: a relay "
        "forwards within this time */\n#endif\n\n";
  OS << "/* Remote-value messages (the same layout on every node). */\n"
        "#ifndef SENSORC_MSG_DEFINED\n#define SENSORC_MSG_DEFINED\n"
        "#define SENSORC_MSG_REQUEST 1u\n#define SENSORC_MSG_REPLY 2u\n"
        "typedef struct sensorc_msg {\n"
        "  uint16_t origin; /* sender of this message */\n"
        "  uint16_t target; /* node it is for */\n"
        "  uint8_t kind;    /* SENSORC_MSG_REQUEST or SENSORC_MSG_REPLY */\n"
        "  uint8_t item_hi, item_lo; /* item id, see the table below */\n"
        "  uint8_t value[4]; /* reply: the value as int32, little endian */\n"
        "} sensorc_msg_t;\n#endif\n\n";
  OS << "/* Items of this decomposition (id: item):\n";
  for (auto &[Id, K] : KeyOf)
    OS << " *   " << Id << ": " << K << "\n";
  OS << " */\n\n";
  OS << "/* Provided by the application. */\n"
        "extern uint32_t sensorc_now_ms(void);\n"
        "extern void sensorc_send(const sensorc_msg_t *msg);\n\n";
  OS << "/* Entry points the application calls. */\n"
        "void sensorc_check_all(void);\n"
        "void sensorc_poll(void);\n"
        "void sensorc_on_reply(const sensorc_msg_t *msg);\n"
        "uint8_t sensorc_serve(const sensorc_msg_t *req, sensorc_msg_t "
        "*reply);\n"
        "void sensorc_note_send(uint16_t dest, uint8_t type);\n"
        "void sensorc_note_receive(uint16_t src, uint8_t type);\n"
        "void sensorc_note_relay_in(uint16_t origin, uint16_t dest);\n"
        "void sensorc_note_relay_out(uint16_t origin, uint16_t dest);\n";
  for (auto &N : EventNames)
    OS << "void sensorc_note_event_" << cId(N) << "(void);\n";
  OS << "\n__attribute__((unused)) static int32_t sensorc_div_(int32_t a, int32_t b) { return b ? a / "
        "b : 0; }\n"
        "__attribute__((unused)) static int32_t sensorc_rem_(int32_t a, int32_t b) { return b ? a % "
        "b : 0; }\n";
  OS << "__attribute__((unused)) static uint8_t sensorc_rule_ok_(uint16_t item);\n\n";

  // Event flags.
  for (auto &N : EventNames)
    OS << "static volatile uint8_t sensorc_ev_" << cId(N) << "_;\n"
       << "void sensorc_note_event_" << cId(N) << "(void) { sensorc_ev_"
       << cId(N) << "_ = 1; }\n";

  // NODE sets.
  for (auto &Dc : L.Decls) {
    if (Dc.Kind != Decl::Node)
      continue;
    auto S = setOf(Dc.Alias);
    std::vector<std::string> Vs;
    for (unsigned V : S)
      Vs.push_back(std::to_string(V) + "u");
    OS << "static const uint16_t sensorc_set_" << Dc.Alias << "_["
       << S.size() << "] = {" << join(Vs, ", ") << "};\n";
  }
  // Occurrence tables.
  for (size_t K = 0; K < Occs.size(); ++K) {
    if (Occs[K].Vars.empty())
      continue;
    std::vector<std::string> Is, Hs;
    for (size_t I = 0; I < Occs[K].Items.size(); ++I) {
      Is.push_back(std::to_string(Occs[K].Items[I]) + "u");
      Hs.push_back(std::to_string(Occs[K].Holders[I]) + "u");
    }
    OS << "static const uint16_t sensorc_occ" << K << "_item_["
       << Is.size() << "] = {" << join(Is, ", ") << "};\n"
       << "static const uint16_t sensorc_occ" << K << "_node_["
       << Hs.size() << "] = {" << join(Hs, ", ") << "};\n";
  }

  // Remote cache.
  OS << "\n/* Remote values: one slot per (item, holder). */\n";
  size_t NS = Slots.size();
  OS << "#define SENSORC_SLOTS " << NS << "u\n";
  if (NS) {
    std::vector<std::string> SI, SH;
    for (auto &[Id, H] : Slots) {
      SI.push_back(std::to_string(Id) + "u");
      SH.push_back(std::to_string(H) + "u");
    }
    OS << "static const uint16_t sensorc_slot_item_[" << NS << "] = {"
       << join(SI, ", ") << "};\n"
       << "static const uint16_t sensorc_slot_node_[" << NS << "] = {"
       << join(SH, ", ") << "};\n"
       << "static int32_t sensorc_slot_value_[" << NS << "];\n"
       << "static uint32_t sensorc_slot_at_[" << NS << "];\n"
       << "static uint32_t sensorc_slot_asked_[" << NS << "];\n"
       << "static uint8_t sensorc_slot_state_[" << NS
       << "]; /* bit0 valid, bit1 asked */\n"
       << "static int16_t sensorc_slot_(uint16_t item, uint16_t node) {\n"
          "  for (uint16_t i = 0; i < SENSORC_SLOTS; ++i)\n"
          "    if (sensorc_slot_item_[i] == item && sensorc_slot_node_[i] == "
          "node)\n      return (int16_t)i;\n  return -1;\n}\n";
  }
  // The value of any item on any node.
  OS << "\n/* The value of ITEM held by NODE; *ok becomes 0 when it is remote "
        "and not yet known. */\n"
        "__attribute__((unused)) static int32_t sensorc_value_(uint16_t item, uint16_t node, uint8_t "
        "*ok) {\n"
        "  if (node == SENSORC_NODE_ID) {\n    switch (item) {\n";
  std::set<unsigned> Readable = LocalItems;
  Readable.insert(Served.begin(), Served.end());
  for (unsigned Id : Readable) {
    auto X = localItemExpr(KeyOf[Id]);
    if (!X)
      return X.takeError();
    OS << "    case " << Id << "u: return " << *X << ";\n";
  }
  OS << "    default: break;\n    }\n    *ok = 0;\n    return 0;\n  }\n";
  if (NS)
    OS << "  int16_t s = sensorc_slot_(item, node);\n"
          "  if (s < 0 || !(sensorc_slot_state_[s] & 1u)) {\n"
          "    *ok = 0;\n    return 0;\n  }\n"
          "  return sensorc_slot_value_[s];\n";
  else
    OS << "  *ok = 0;\n  return 0;\n";
  OS << "}\n\n";
  // Requests.
  OS << "/* Asks NODE for ITEM when the cached copy is missing or stale. */\n"
        "__attribute__((unused)) static void sensorc_want_(uint16_t item, uint16_t node) {\n";
  if (NS)
    OS << "  if (node == SENSORC_NODE_ID)\n    return;\n"
          "  int16_t s = sensorc_slot_(item, node);\n"
          "  if (s < 0)\n    return;\n"
          "  uint32_t now = sensorc_now_ms();\n"
          "  if ((sensorc_slot_state_[s] & 1u) && now - sensorc_slot_at_[s] "
          "< SENSORC_REMOTE_MAX_AGE_MS)\n    return;\n"
          "  if ((sensorc_slot_state_[s] & 2u) && now - "
          "sensorc_slot_asked_[s] < SENSORC_REQUEST_RETRY_MS)\n    return;\n"
          "  sensorc_msg_t m;\n"
          "  m.origin = SENSORC_NODE_ID;\n  m.target = node;\n"
          "  m.kind = SENSORC_MSG_REQUEST;\n"
          "  m.item_hi = (uint8_t)(item >> 8);\n"
          "  m.item_lo = (uint8_t)item;\n"
          "  m.value[0] = m.value[1] = m.value[2] = m.value[3] = 0;\n"
          "  sensorc_slot_state_[s] |= 2u;\n"
          "  sensorc_slot_asked_[s] = now;\n"
          "  sensorc_send(&m);\n";
  else
    OS << "  (void)item;\n  (void)node;\n";
  OS << "}\n\n";
  OS << "void sensorc_on_reply(const sensorc_msg_t *msg) {\n";
  if (NS)
    OS << "  if (msg->kind != SENSORC_MSG_REPLY || msg->target != "
          "SENSORC_NODE_ID)\n    return;\n"
          "  uint16_t item = (uint16_t)((msg->item_hi << 8) | "
          "msg->item_lo);\n"
          "  int16_t s = sensorc_slot_(item, msg->origin);\n"
          "  if (s < 0)\n    return;\n"
          "  sensorc_slot_value_[s] = (int32_t)((uint32_t)msg->value[0] | "
          "((uint32_t)msg->value[1] << 8) |\n"
          "                                     ((uint32_t)msg->value[2] << "
          "16) | ((uint32_t)msg->value[3] << 24));\n"
          "  sensorc_slot_at_[s] = sensorc_now_ms();\n"
          "  sensorc_slot_state_[s] = 1u;\n";
  else
    OS << "  (void)msg;\n";
  OS << "}\n\n";
  OS << "uint8_t sensorc_serve(const sensorc_msg_t *req, sensorc_msg_t "
        "*reply) {\n"
        "  if (req->kind != SENSORC_MSG_REQUEST || req->target != "
        "SENSORC_NODE_ID)\n    return 0;\n"
        "  uint16_t item = (uint16_t)((req->item_hi << 8) | req->item_lo);\n"
        "  uint8_t ok = 1;\n  int32_t v;\n  switch (item) {\n";
  for (unsigned Id : Served)
    OS << "  case " << Id << "u:\n";
  if (!Served.empty())
    OS << "    v = sensorc_value_(item, SENSORC_NODE_ID, &ok);\n    break;\n";
  OS << "  default:\n    return 0;\n  }\n"
        "  if (!ok)\n    return 0;\n"
        "  reply->origin = SENSORC_NODE_ID;\n  reply->target = req->origin;\n"
        "  reply->kind = SENSORC_MSG_REPLY;\n"
        "  reply->item_hi = req->item_hi;\n  reply->item_lo = req->item_lo;\n"
        "  reply->value[0] = (uint8_t)v;\n"
        "  reply->value[1] = (uint8_t)((uint32_t)v >> 8);\n"
        "  reply->value[2] = (uint8_t)((uint32_t)v >> 16);\n"
        "  reply->value[3] = (uint8_t)((uint32_t)v >> 24);\n"
        "  return 1;\n}\n\n";

  // Rule monitors (Table 3.1).
  OS << "/* Monitors of the property-checking functions this node holds. */\n"
        "typedef struct {\n  uint8_t seen;\n  uint32_t first, last;\n"
        "  uint16_t pending;\n  uint32_t since;\n} sensorc_monitor_t;\n";
  size_t NM = Rules.size();
  OS << "__attribute__((unused)) static sensorc_monitor_t sensorc_mon_[" << (NM ? NM : 1) << "];\n"
     << "__attribute__((unused)) static void sensorc_hit_(sensorc_monitor_t *m, uint32_t now) {\n"
        "  if (!m->seen)\n    m->first = now;\n  m->seen = 1;\n"
        "  m->last = now;\n}\n";
  auto Cond = [&](const Expr &R, size_t K) {
    std::string M = "sensorc_mon_[" + std::to_string(K) + "]";
    const TimeBound &T = R.Time;
    if (T.Kind == TimeBound::LessThan)
      return formatv("({0}.seen && {0}.first < {1}UL) || now < {1}UL", M,
                     T.Ms)
          .str();
    if (T.Kind == TimeBound::Every)
      return formatv("now < {1}UL || now - ({0}.seen && {0}.last > {1}UL ? "
                     "{0}.last : {1}UL) < {2}UL",
                     M, T.AfterMs, T.Ms)
          .str();
    return std::string("1");
  };
  auto TypeOf = [&](const Expr &R) {
    const Decl *Dc = D.Source->findGlobal(R.Name);
    return "(uint8_t)(" + std::string(Dc && Dc->Deref ? "*" : "") +
           (Dc ? Dc->CName : R.Name) + ").type";
  };
  auto NodeC = [](const Expr &N) {
    return std::to_string(N.Value == BroadcastNode ? 0xFFFF : N.Value) + "u";
  };
  OS << "void sensorc_note_send(uint16_t dest, uint8_t type) {\n"
        "  uint32_t now = sensorc_now_ms();\n  (void)dest;\n  (void)type;\n"
        "  (void)now;\n";
  for (size_t K = 0; K < NM; ++K)
    if (Rules[K].second->Rule == RuleKind::Send)
      OS << "  if (dest == " << NodeC(*Rules[K].second->Kids[1])
         << " && type == " << TypeOf(*Rules[K].second)
         << ")\n    sensorc_hit_(&sensorc_mon_[" << K << "], now);\n";
  OS << "}\n";
  OS << "void sensorc_note_receive(uint16_t src, uint8_t type) {\n"
        "  uint32_t now = sensorc_now_ms();\n  (void)src;\n  (void)type;\n"
        "  (void)now;\n";
  for (size_t K = 0; K < NM; ++K)
    if (Rules[K].second->Rule == RuleKind::Recv)
      OS << "  if (src == " << NodeC(*Rules[K].second->Kids[1])
         << " && type == " << TypeOf(*Rules[K].second)
         << ")\n    sensorc_hit_(&sensorc_mon_[" << K << "], now);\n";
  OS << "}\n";
  for (int In = 1; In >= 0; --In) {
    OS << "void sensorc_note_relay_" << (In ? "in" : "out")
       << "(uint16_t origin, uint16_t dest) {\n"
          "  uint32_t now = sensorc_now_ms();\n  (void)origin;\n  (void)dest;\n"
          "  (void)now;\n";
    for (size_t K = 0; K < NM; ++K)
      if (Rules[K].second->Rule == RuleKind::Routing) {
        std::string M = "sensorc_mon_[" + std::to_string(K) + "]";
        OS << "  if (origin == " << NodeC(*Rules[K].second->Kids[0])
           << " && dest == " << NodeC(*Rules[K].second->Kids[1]) << ") {\n";
        if (In)
          OS << "    if (" << M << ".pending++ == 0)\n      " << M
             << ".since = now;\n";
        else
          OS << "    if (" << M << ".pending)\n      --" << M
             << ".pending;\n    " << M << ".since = now;\n";
        OS << "  }\n";
      }
    OS << "}\n";
  }
  OS << "static uint8_t sensorc_rule_ok_(uint16_t item) {\n"
        "  uint32_t now = sensorc_now_ms();\n  (void)now;\n"
        "  switch (item) {\n";
  for (size_t K = 0; K < NM; ++K) {
    const Expr &R = *Rules[K].second;
    OS << "  case " << Rules[K].first << "u: /* " << KeyOf[Rules[K].first]
       << " */\n";
    if (R.Rule == RuleKind::Routing)
      OS << "    return sensorc_mon_[" << K
         << "].pending == 0 || now - sensorc_mon_[" << K
         << "].since < SENSORC_FORWARD_DEADLINE_MS;\n";
    else
      OS << "    return " << Cond(R, K) << ";\n";
  }
  OS << "  default:\n    return 1;\n  }\n}\n\n";

  // The checks.
  for (size_t C = 0; C < Checks.size(); ++C) {
    const CheckC &Ch = Checks[C];
    OS << "/* " << (L.Stmts[C].Guard ? "IF (" + printExpr(*L.Stmts[C].Guard) +
                                           ") "
                                     : std::string())
       << "IF (" << printExpr(*L.Stmts[C].Violation) << ") ERROR; */\n";
    OS << "WSN_INVARIANT(sensorc_node" << Self << "_check" << C << ") {\n";
    loops(OS, Ch.Vars, "  ");
    std::string In(2 + 2 * Ch.Vars.size(), ' ');
    OS << In << "uint8_t ok = 1;\n";
    if (!Ch.Guard.empty())
      OS << In << "if (" << Ch.Guard << ") {\n";
    std::string In2 = Ch.Guard.empty() ? In : In + "  ";
    OS << In2 << "uint8_t violated = " << Ch.Violation << ";\n"
       << In2 << "if (ok && violated)\n"
       << In2 << "  return 0;\n";
    if (!Ch.Guard.empty())
      OS << In << "}\n";
    for (size_t I = Ch.Vars.size(); I > 0; --I)
      OS << std::string(2 * I, ' ') << "}\n";
    OS << "  return 1;\n}\n\n";
  }
  OS << "void sensorc_check_all(void) {\n";
  for (size_t C = 0; C < Checks.size(); ++C)
    OS << "  WSN_CHECK(sensorc_node" << Self << "_check" << C << ");\n";
  OS << "}\n\n";
  OS << "/* Requests the remote values of the checks whose local guard holds "
        "(Figure 3.4). */\n"
        "void sensorc_poll(void) {\n";
  for (size_t C = 0; C < Checks.size(); ++C) {
    const CheckC &Ch = Checks[C];
    bool HasRemote = false;
    for (auto &W : Ch.Wants)
      HasRemote |= !W.empty();
    if (Ch.Wants.empty())
      continue;
    OS << "  {\n";
    loops(OS, Ch.Vars, "    ");
    std::string In(4 + 2 * Ch.Vars.size(), ' ');
    OS << In << "uint8_t ok = 1;\n" << In << "(void)ok;\n";
    if (!Ch.Guard.empty())
      OS << In << "if (" << Ch.Guard << ") {\n";
    std::string In2 = Ch.Guard.empty() ? In : In + "  ";
    for (auto &W : Ch.Wants)
      OS << In2 << W << "\n";
    if (!Ch.Guard.empty())
      OS << In << "}\n";
    for (size_t I = Ch.Vars.size(); I > 0; --I)
      OS << std::string(2 + 2 * I, ' ') << "}\n";
    OS << "  }\n";
  }
  OS << "}\n";
  return Out;
}

} // namespace

CodeGenerator::CodeGenerator(const Decomposition &D, CodeGenOptions Opts)
    : D(D), Opts(std::move(Opts)), Exprs(itemExprs(D)) {
  for (auto &[K, E] : Exprs)
    Ids.emplace(K, Ids.size());
}

Expected<std::string> CodeGenerator::node(unsigned Node) const {
  if (!D.PerNode.count(Node))
    return createStringError(inconvertibleErrorCode(),
                             "node %u has no decomposition result", Node);
  NodeEmitter E(D, Node, Opts, Ids, Exprs);
  return E.run();
}

Expected<std::string> generateNodeC(const Decomposition &D, unsigned Node,
                                    const CodeGenOptions &Opts) {
  return CodeGenerator(D, Opts).node(Node);
}

} // namespace sensorc
} // namespace wsn
