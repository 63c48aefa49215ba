//===- DecomposeTest.cpp - Algorithms 1 and 2 preserve meaning ------------===//
//
// Meaning, not text: local properties are compared with the global property
// (and with the thesis's published local properties) by evaluating both on
// pseudo-random valuations of every variable and property-checking function.
//
//===----------------------------------------------------------------------===//
#include "CodeGen.h"
#include "Decompose.h"
#include "Eval.h"
#include "Parser.h"
#include "gtest/gtest.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <chrono>
#include <random>

using namespace wsn;
using namespace wsn::sensorc;

namespace {

Program parseOk(llvm::StringRef Text, llvm::StringRef Name = "t.sg") {
  auto P = parseProgram(Text, Name);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError()) << "\n" << Text.str();
    return Program();
  }
  return std::move(*P);
}

Program parseExample(llvm::StringRef File) {
  auto P = parseFile(std::string(SENSORC_EXAMPLES_DIR "/") + File.str());
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return Program();
  }
  return std::move(*P);
}

std::unique_ptr<Decomposition> decomposeOk(const Program &G,
                                           std::optional<unsigned> Nodes) {
  DecomposeOptions O;
  O.NodeCount = Nodes;
  O.BaseDir = SENSORC_EXAMPLES_DIR;
  auto D = decompose(G, O);
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return nullptr;
  }
  return std::move(*D);
}

/// The local programs as the tool writes them: printed, then parsed back.
std::map<unsigned, Program> reparsedLocals(const Decomposition &D) {
  std::map<unsigned, Program> Out;
  for (auto &[N, NR] : D.PerNode) {
    std::string Text = printProgram(NR.Local_);
    Out[N] = parseOk(Text, "node.sl");
  }
  return Out;
}

struct Model {
  EvalContext Ctx;
  std::optional<RoutingPool> Pool;
  explicit Model(const Decomposition &D) {
    Ctx.Network = D.Nodes;
    if (D.Topo) {
      Ctx.Topo = &*D.Topo;
      if (D.Routing) {
        Pool.emplace(*D.Topo, *D.Routing);
        Ctx.Pool = &*Pool;
      }
    }
  }
};

/// The core property of Algorithm 1: P holds iff every L_i holds.
unsigned expectConjunctionEqualsGlobal(const Program &G,
                                       const Decomposition &D,
                                       unsigned Valuations, int64_t Range,
                                       uint64_t Seed0 = 1) {
  Model M(D);
  auto Locals = reparsedLocals(D);
  unsigned Violations = 0;
  for (unsigned S = 0; S < Valuations; ++S) {
    Valuation V{Seed0 * 7919 + S, Range};
    bool Global = holdsGlobal(G, M.Ctx, V);
    bool AllLocal = true;
    for (auto &[N, L] : Locals)
      AllLocal = AllLocal && holdsLocal(L, M.Ctx, V);
    EXPECT_EQ(Global, AllLocal) << "valuation seed " << V.Seed << "\n"
                                << printProgram(G);
    if (Global != AllLocal)
      return Violations;
    // The instantiated properties of step 2-3 mean the same as well.
    bool Inst = true;
    for (auto &I : D.Instances)
      Inst = Inst && holdsGround(*I, V);
    EXPECT_EQ(Global, Inst) << "valuation seed " << V.Seed;
    Violations += !Global;
  }
  return Violations;
}

/// Each node's decomposed program means what the expected one means.
void expectLocalEquivalent(const Decomposition &D, unsigned Node,
                           const Program &Expected, unsigned Valuations,
                           int64_t Range) {
  Model M(D);
  Program Mine = parseOk(printProgram(D.PerNode.at(Node).Local_), "node.sl");
  unsigned Differ = 0, Fires = 0;
  for (unsigned S = 0; S < Valuations; ++S) {
    Valuation V{1000 + S, Range};
    bool A = holdsLocal(Mine, M.Ctx, V), B = holdsLocal(Expected, M.Ctx, V);
    Differ += A != B;
    Fires += !B;
  }
  EXPECT_EQ(Differ, 0u) << "node " << Node << ":\n"
                        << printProgram(Mine) << "expected:\n"
                        << printProgram(Expected);
  // Guard against a vacuous comparison.
  EXPECT_GT(Fires, 0u) << "node " << Node << ": the expected property never "
                       << "fired; the test would not see a difference";
}

// Figure 3.2(b), generalized from node 7 to node K, with its two misprints
// fixed: "rt <= rt[m].hop" is read as rt.hop, and the violation of P2 is
// written in full (rt.seq > rt[m].seq also violates, whatever the hops).
std::string publishedFig32b(unsigned K) {
  return llvm::formatv(R"(#LOCAL {0}
#DEFINITION
GLOBAL var rt = AODV_M__route_table_;
NODE m = [ALL];
#PROPERTY
IF ((rt.dest==0) AND (rt.next==m))
  IF ((rt.seq >= rt[m].seq) AND
       (rt.seq != rt[m].seq OR
        rt.hop <= rt[m].hop))
    ERROR;
)",
                       K)
      .str();
}

TEST(SensorCDecompose, Figure32LoopFreeMatchesPublishedLocalProperty) {
  Program G = parseExample("fig3_2_loop_free.sg");
  for (unsigned N : {3u, 5u}) {
    auto D = decomposeOk(G, N);
    ASSERT_TRUE(D);
    // Every node checks its own routing entry against its next hop's.
    for (unsigned K = 0; K < N; ++K) {
      const NodeResult &NR = D->PerNode.at(K);
      EXPECT_EQ(NR.Clauses.size(), 2u * N) << "node " << K;
      // Remote: seq and hop of every other node (Definition 3).
      EXPECT_EQ(NR.Remote.size(), 2u * (N - 1)) << "node " << K;
      ASSERT_EQ(NR.Local_.Stmts.size(), 1u);
      EXPECT_TRUE(NR.Local_.Stmts[0].Guard) << "Figure 3.4 guard expected";
      expectLocalEquivalent(*D, K, parseOk(publishedFig32b(K)), 400, N + 1);
    }
    expectConjunctionEqualsGlobal(G, *D, 300, N + 1);
  }
}

TEST(SensorCDecompose, Figure32bAsPrintedMissesAViolation) {
  // The figure's inner condition, read literally, is seq >= seq' AND
  // hop <= hop'; it does not fire for seq > seq' AND hop > hop', which
  // violates P2. We implement the global property, not the misprint.
  Program G = parseExample("fig3_2_loop_free.sg");
  auto D = decomposeOk(G, 3);
  ASSERT_TRUE(D);
  Program Literal = parseOk(R"(#LOCAL 1
#DEFINITION
GLOBAL var rt = AODV_M__route_table_;
NODE m = [ALL];
#PROPERTY
IF ((rt.dest==0) AND (rt.next==m))
  IF ((rt.seq >= rt[m].seq) AND (rt.seq < rt[m].seq OR rt.hop <= rt[m].hop))
    ERROR;
)");
  Model M(*D);
  Program Mine = parseOk(printProgram(D->PerNode.at(1).Local_));
  bool FoundDifference = false;
  for (unsigned S = 0; S < 2000 && !FoundDifference; ++S) {
    Valuation V{S, 4};
    FoundDifference = holdsLocal(Literal, M.Ctx, V) && !holdsLocal(Mine, M.Ctx, V);
  }
  EXPECT_TRUE(FoundDifference);
}

Program fig35Local(unsigned Node, bool WithTypes, llvm::StringRef Body) {
  std::string Text = "#LOCAL " + std::to_string(Node) + "\n#DEFINITION\n";
  if (WithTypes)
    Text += "GLOBAL var rreq = p_rreq_msg_;\nGLOBAL var rrep = p_rrep_msg_;\n";
  Text += "#PROPERTY\n" + Body.str();
  return parseOk(Text);
}

TEST(SensorCDecompose, Figure35LinkCreationWithTopologyAndAodv) {
  Program G = parseExample("fig3_5_link_creation.sg");
  auto D = decomposeOk(G, std::nullopt);
  ASSERT_TRUE(D);
  EXPECT_EQ(D->TotalCost, 0u); // every clause is checked where its data is
  // The published local properties (Figure 3.5, right column).
  std::map<unsigned, Program> Expected;
  Expected[0] = fig35Local(0, true, R"(
IF (NOT (Recv_rule(0,1, rreq.type, LESS_THAN 20))) ERROR;
IF (NOT (Send_rule(0,1, rrep.type, LESS_THAN 20))) ERROR;
)");
  Expected[1] = fig35Local(1, true, R"(
IF (NOT (Send_rule(1,0, rreq.type, LESS_THAN 20))) ERROR;
IF (NOT (Recv_rule(1, 0, rrep.type, LESS_THAN 20))) ERROR;
)");
  // Our topology's AODV route between 1 and 0 relays through 2 and 3.
  for (unsigned R : {2u, 3u})
    Expected[R] = fig35Local(R, false, R"(
IF (NOT (Routing_rule(1,0))) ERROR;
IF (NOT (Routing_rule(0,1) )) ERROR;
)");
  for (auto &[N, NR] : D->PerNode) {
    if (!Expected.count(N)) {
      EXPECT_TRUE(NR.Local_.Stmts.empty()) << "node " << N << " off the route";
      continue;
    }
    expectLocalEquivalent(*D, N, Expected[N], 200, 2);
  }
  expectConjunctionEqualsGlobal(G, *D, 200, 2);
}

TEST(SensorCDecompose, Figure35WithoutNetworkOnlyTheEnds) {
  Program G = parseExample("fig3_5_link_creation_nonet.sg");
  auto D = decomposeOk(G, 30);
  ASSERT_TRUE(D);
  std::set<unsigned> Checking;
  for (auto &[N, NR] : D->PerNode)
    if (!NR.Local_.Stmts.empty())
      Checking.insert(N);
  EXPECT_EQ(Checking, (std::set<unsigned>{0, 1}));
  expectLocalEquivalent(*D, 0,
                        fig35Local(0, true, R"(
IF (NOT (Recv_rule(0,1, rreq.type, LESS_THAN 20))) ERROR;
IF (NOT (Send_rule(0,1, rrep.type, LESS_THAN 20))) ERROR;
)"),
                        200, 2);
  expectLocalEquivalent(*D, 1,
                        fig35Local(1, true, R"(
IF (NOT (Send_rule(1,0, rreq.type, LESS_THAN 20))) ERROR;
IF (NOT (Recv_rule(1, 0, rrep.type, LESS_THAN 20))) ERROR;
)"),
                        200, 2);
  expectConjunctionEqualsGlobal(G, *D, 200, 2);
}

TEST(SensorCDecompose, BroadcastUsesNeighboursWithNetwork) {
  Program G = parseOk(R"(#GLOBAL
#DEFINITION
GLOBAL var beacon = app_beacon;
NODE s = [2];
#NETWORK "topology.txt"
#PROPERTY
IF (NOT (s BROADCAST beacon EVERY 5)) ERROR;
)");
  auto D = decomposeOk(G, std::nullopt);
  ASSERT_TRUE(D);
  // Node 2 hears from 1, 3 and 5: each must receive the beacon.
  std::set<unsigned> Checking;
  for (auto &[N, NR] : D->PerNode)
    if (!NR.Local_.Stmts.empty())
      Checking.insert(N);
  EXPECT_EQ(Checking, (std::set<unsigned>{1, 2, 3, 5}));
  expectConjunctionEqualsGlobal(G, *D, 200, 2);
}

TEST(SensorCDecompose, RegroupingKeepsIndependentVariablesApart) {
  // Both checks give clauses of one shape; the positions that came from the
  // same NODE variable `a` in the first are independent in the second, so
  // Algorithm 2 needs two variables over {1, 2}, not one.
  Program G = parseOk(R"(#GLOBAL
#DEFINITION
GLOBAL var x = app_x;
NODE a = [1, 2];
NODE b = [1, 2];
#PROPERTY
IF (x[0].f == a AND x[0].g == a) ERROR;
IF (x[0].f == a AND x[0].g == b) ERROR;
)");
  auto D = decomposeOk(G, 3);
  ASSERT_TRUE(D);
  const Program &L = D->PerNode.at(0).Local_;
  unsigned NodeDecls = 0;
  for (auto &Dc : L.Decls)
    NodeDecls += Dc.Kind == Decl::Node;
  EXPECT_EQ(NodeDecls, 2u) << printProgram(L);
  expectConjunctionEqualsGlobal(G, *D, 200, 3);
}

//===----------------------------------------------------------------------===//
// Property test: random global properties and node sets.
//===----------------------------------------------------------------------===//

class RandomSpec {
public:
  RandomSpec(uint64_t Seed, unsigned Nodes) : R(Seed), N(Nodes) {}

  std::string program(bool WithNetwork) {
    std::string S = "#GLOBAL\n#DEFINITION\nGLOBAL var x = app_x;\n"
                    "GLOBAL var y = app_y;\nGLOBAL event e = app_e;\n"
                    "GLOBAL var msg = app_msg;\nTEMP T;\n";
    Vars = {"a", "b", "c"};
    for (auto &V : Vars)
      S += "NODE " + V + " = [" + nodeList() + "];\n";
    if (WithNetwork)
      S += "#NETWORK \"topology.txt\"\n#ROUTING \"AODV\"\n";
    S += "#PROPERTY\n";
    HaveTemp = false;
    S += "T = " + formula(2) + ";\n";
    HaveTemp = true;
    unsigned Checks = 1 + pick(2);
    for (unsigned I = 0; I < Checks; ++I) {
      if (pick(3) == 0)
        S += "IF (" + formula(1) + ") IF (" + formula(2) + ") ERROR;\n";
      else
        S += "IF (" + formula(3) + ") ERROR;\n";
    }
    return S;
  }

private:
  unsigned pick(unsigned K) { return R() % K; }
  std::string node() {
    return pick(4) == 0 ? std::to_string(pick(N)) : Vars[pick(Vars.size())];
  }
  std::string nodeList() {
    if (pick(3) == 0)
      return "ALL";
    std::vector<std::string> Ids;
    for (unsigned I = 0; I < N; ++I)
      if (pick(2) == 0)
        Ids.push_back(std::to_string(I));
    if (Ids.empty())
      Ids.push_back(std::to_string(pick(N)));
    std::string S;
    for (size_t I = 0; I < Ids.size(); ++I)
      S += (I ? ", " : "") + Ids[I];
    return S;
  }
  std::string value() {
    switch (pick(5)) {
    case 0:
      return std::to_string(pick(3));
    case 1:
      return node(); // a node id as a value
    case 2:
      return "x[" + node() + "].f + " + std::to_string(pick(2));
    default:
      return std::string(pick(2) ? "x" : "y") + "[" + node() + "]." +
             (pick(2) ? "f" : "g");
    }
  }
  std::string atom() {
    static const char *Ops[] = {"==", "!=", "<", "<=", ">", ">="};
    switch (pick(9)) {
    case 0:
      return "e[" + node() + "]";
    case 1:
      return "Send_rule(" + node() + ", " + node() +
             ", msg.type, LESS_THAN 5)";
    case 2:
      return node() + " SEND msg TO " + node() + " LESS_THAN 3";
    case 3:
      return node() + " RECEIVE msg FROM " + node() + " EVERY 2";
    case 4:
      if (HaveTemp)
        return "T";
      [[fallthrough]];
    default:
      return value() + " " + Ops[pick(6)] + " " + value();
    }
  }
  std::string formula(unsigned Depth) {
    if (Depth == 0 || pick(3) == 0)
      return atom();
    switch (pick(5)) {
    case 0:
      return "NOT (" + formula(Depth - 1) + ")";
    case 1:
      return "(" + formula(Depth - 1) + " AND " + formula(Depth - 1) + ")";
    case 2:
      return "(" + formula(Depth - 1) + " OR " + formula(Depth - 1) + ")";
    case 3:
      return "(" + formula(Depth - 1) + " -> " + formula(Depth - 1) + ")";
    default:
      return "(" + formula(Depth - 1) + " <-> " + formula(Depth - 1) + ")";
    }
  }
  std::mt19937_64 R;
  unsigned N;
  std::vector<std::string> Vars;
  bool HaveTemp = false;
};

TEST(SensorCDecompose, RandomPropertiesConjunctionOfLocalsEqualsGlobal) {
  unsigned Checked = 0, Violated = 0, Held = 0;
  for (uint64_t Seed = 1; Seed <= 60; ++Seed) {
    unsigned N = 2 + Seed % 3;
    bool Net = Seed % 5 == 0; // with #NETWORK/#ROUTING: the 8-node example
    RandomSpec Gen(Seed, Net ? 8 : N);
    std::string Text = Gen.program(Net);
    Program G = parseOk(Text, "random.sg");
    auto D = decomposeOk(G, Net ? std::nullopt : std::optional<unsigned>(N));
    ASSERT_TRUE(D) << Text;
    SCOPED_TRACE(Text);
    unsigned V = expectConjunctionEqualsGlobal(G, *D, 40, Net ? 8 : N + 1, Seed);
    Violated += V;
    Held += 40 - V;
    // Code generation succeeds for every node of every random decomposition.
    CodeGenerator CG(*D, CodeGenOptions());
    for (auto &[N, NR] : D->PerNode) {
      auto C = CG.node(N);
      ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
      EXPECT_NE(C->find("void sensorc_check_all(void)"), std::string::npos);
    }
    ++Checked;
  }
  EXPECT_EQ(Checked, 60u);
  // Both outcomes occur often, so a wrong decomposition would be seen.
  EXPECT_GT(Violated, 200u);
  EXPECT_GT(Held, 200u);
}

TEST(SensorCDecompose, MutatedInputsNeverCrash) {
  // Random edits of valid specs must give a result or a located error.
  std::vector<std::string> Seeds;
  for (const char *F : {"fig3_2_loop_free.sg", "fig3_5_link_creation.sg"}) {
    auto P = parseExample(F);
    Seeds.push_back(printProgram(P));
  }
  static const char *Tokens[] = {"(", ")", "[", "]", ";", "AND", "NOT", "->",
                                 "IF", "ERROR", "n", "m", "0", "...", "#PROPERTY",
                                 "TEMP", "=", ".", "SEND", "LESS_THAN", "\"",
                                 "/*", "99999999999", "-"};
  std::mt19937_64 R(11);
  unsigned Errors = 0;
  for (unsigned I = 0; I < 1500; ++I) {
    std::string T = Seeds[I % Seeds.size()];
    for (unsigned K = 0, E = 1 + R() % 3; K < E; ++K) {
      size_t Pos = R() % (T.size() + 1);
      switch (R() % 3) {
      case 0:
        T.insert(Pos, std::string(" ") + Tokens[R() % 24] + " ");
        break;
      case 1:
        T.erase(Pos, 1 + R() % 6);
        break;
      default:
        if (Pos < T.size())
          T[Pos] = static_cast<char>(R() % 128);
      }
    }
    auto P = parseProgram(T, "mut.sg");
    if (!P) {
      std::string Msg = llvm::toString(P.takeError());
      EXPECT_EQ(Msg.rfind("mut.sg:", 0), 0u) << Msg;
      EXPECT_NE(Msg.find(": error: "), std::string::npos) << Msg;
      ++Errors;
      continue;
    }
    DecomposeOptions O;
    O.NodeCount = 3;
    O.BaseDir = SENSORC_EXAMPLES_DIR;
    auto D = decompose(*P, O);
    if (!D) {
      std::string Msg = llvm::toString(D.takeError());
      EXPECT_NE(Msg.find("mut.sg:"), std::string::npos) << Msg;
      ++Errors;
      continue;
    }
    CodeGenerator Gen(**D, CodeGenOptions());
    for (auto &[N, NR] : (*D)->PerNode) {
      auto C = Gen.node(N);
      EXPECT_TRUE(bool(C)) << llvm::toString(C.takeError());
    }
  }
  EXPECT_GT(Errors, 300u);
}

//===----------------------------------------------------------------------===//
// Greedy clause assignment vs the exact optimum (Theorem 3.2.1).
//===----------------------------------------------------------------------===//

AssignmentProblem randomProblem(std::mt19937_64 &R, unsigned Clauses,
                                unsigned Nodes, unsigned Keys) {
  AssignmentProblem P;
  for (unsigned N = 0; N < Nodes; ++N)
    P.Nodes.push_back(N);
  for (unsigned C = 0; C < Clauses; ++C) {
    std::set<ItemRef> Items;
    unsigned K = 1 + R() % 4;
    for (unsigned I = 0; I < K; ++I)
      Items.insert({"v" + std::to_string(R() % Keys), int64_t(R() % Nodes)});
    P.ClauseItems.push_back(Items);
  }
  return P;
}

unsigned bruteForceOptimum(const AssignmentProblem &P) {
  unsigned NC = P.ClauseItems.size(), NN = P.Nodes.size(), Best = ~0u;
  std::vector<unsigned> A(NC, 0);
  while (true) {
    std::vector<unsigned> Assign;
    for (unsigned I : A)
      Assign.push_back(P.Nodes[I]);
    Best = std::min(Best, assignmentCost(P, Assign));
    unsigned I = 0;
    while (I < NC && ++A[I] == NN)
      A[I++] = 0;
    if (I == NC)
      break;
  }
  return Best;
}

TEST(SensorCAssign, ExhaustiveIsExactOnTinyInstances) {
  std::mt19937_64 R(42);
  for (unsigned T = 0; T < 40; ++T) {
    AssignmentProblem P = randomProblem(R, 2 + T % 6, 2 + T % 3, 4);
    auto Best = exhaustiveAssign(P);
    ASSERT_TRUE(Best);
    EXPECT_EQ(assignmentCost(P, *Best), bruteForceOptimum(P)) << "case " << T;
  }
}

TEST(SensorCAssign, GreedyVersusOptimumOnSmallInstances) {
  // Up to 12 clauses x 6 nodes, as the issue asks; the table is printed so
  // the gap is visible in the test log.
  std::mt19937_64 R(7);
  unsigned Worse = 0, Total = 0, GreedySum = 0, OptSum = 0;
  std::printf("%-6s %-8s %-6s %-7s %-7s\n", "case", "clauses", "nodes",
              "greedy", "optimum");
  for (unsigned T = 0; T < 24; ++T) {
    unsigned C = 4 + T % 9, N = 3 + T % 4;
    AssignmentProblem P = randomProblem(R, C, N, 5);
    auto Greedy = greedyAssign(P);
    auto Best = exhaustiveAssign(P);
    ASSERT_TRUE(Best) << "search budget exceeded on case " << T;
    unsigned G = assignmentCost(P, Greedy), O = assignmentCost(P, *Best);
    std::printf("%-6u %-8u %-6u %-7u %-7u\n", T, C, N, G, O);
    EXPECT_LE(O, G);
    // Every clause is assigned to exactly one node of the network.
    ASSERT_EQ(Greedy.size(), C);
    for (unsigned X : Greedy)
      EXPECT_LT(X, N);
    Worse += G > O;
    GreedySum += G;
    OptSum += O;
    ++Total;
  }
  std::printf("greedy above optimum in %u of %u cases; total %u vs %u\n",
              Worse, Total, GreedySum, OptSum);
  RecordProperty("greedy_total", GreedySum);
  RecordProperty("optimum_total", OptSum);
}

TEST(SensorCAssign, GreedyCanMissTheOptimum) {
  // Each clause alone has one remote item on node 1 or node 2; greedy takes
  // node 1 twice and pays y@2 and z@2, while node 2 could check both and
  // pay for x@1 once. This is why the exact search exists.
  AssignmentProblem P;
  P.Nodes = {0, 1, 2};
  P.ClauseItems = {{{"x", 1}, {"y", 2}}, {{"z", 2}, {"x", 1}}};
  auto G = greedyAssign(P);
  auto O = exhaustiveAssign(P);
  ASSERT_TRUE(O);
  EXPECT_EQ(G, (std::vector<unsigned>{1, 1}));
  EXPECT_EQ(assignmentCost(P, G), 2u);
  EXPECT_EQ(*O, (std::vector<unsigned>{2, 2}));
  EXPECT_EQ(assignmentCost(P, *O), 1u);
}

/// Algorithm 1 step 6 as its rule reads: every node scored for every clause
/// (clauses x nodes; the library scores only the nodes that can win).
std::vector<unsigned> greedyByTheRule(const AssignmentProblem &P) {
  std::set<std::pair<unsigned, ItemRef>> Paid;
  std::vector<unsigned> Out;
  for (const auto &Items : P.ClauseItems) {
    unsigned Best = P.Nodes.empty() ? 0 : P.Nodes[0], BestRemote = ~0u, BestNew = ~0u;
    for (unsigned N : P.Nodes) {
      unsigned Remote = 0, New = 0;
      for (const ItemRef &I : Items)
        if (I.Node != int64_t(N)) {
          ++Remote;
          New += !Paid.count({N, I});
        }
      if (Remote < BestRemote || (Remote == BestRemote && New < BestNew)) {
        Best = N;
        BestRemote = Remote;
        BestNew = New;
      }
    }
    for (const ItemRef &I : Items)
      if (I.Node != int64_t(Best))
        Paid.insert({Best, I});
    Out.push_back(Best);
  }
  return Out;
}

TEST(SensorCAssign, GreedyScoresOnlyWinnersButChoosesAsTheRule) {
  // Random problems, with items no node holds (node -1: every node reads them
  // remotely) and nodes that hold nothing, so all three candidate cases occur.
  std::mt19937_64 R(21);
  for (unsigned T = 0; T < 300; ++T) {
    AssignmentProblem P = randomProblem(R, 1 + T % 17, 1 + T % 7, 1 + T % 5);
    for (auto &Items : P.ClauseItems) {
      std::set<ItemRef> Moved;
      for (ItemRef I : Items) {
        if (R() % 3 == 0)
          I.Node = -1;
        Moved.insert(I);
      }
      Items = Moved;
    }
    for (unsigned Extra = 0; Extra < T % 3; ++Extra)
      P.Nodes.push_back(100 + Extra);
    EXPECT_EQ(greedyAssign(P), greedyByTheRule(P)) << "case " << T;
  }
}

TEST(SensorCAssign, GreedyIsLinearInTheNodes) {
  // 20000 clauses over 20000 nodes, each with an item of its own node and one
  // of node 0 (a NODE range of 20000 instances): scoring every node for every
  // clause took minutes (issue 21); the winners alone are a few per clause.
  AssignmentProblem P;
  for (unsigned N = 0; N < 20000; ++N) {
    P.Nodes.push_back(N);
    P.ClauseItems.push_back({{"x", int64_t(N)}, {"y", 0}});
  }
  auto T0 = std::chrono::steady_clock::now();
  std::vector<unsigned> A = greedyAssign(P);
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  ASSERT_EQ(A.size(), 20000u);
  // Node 0 holds y and, on ties, comes first: it checks every clause.
  EXPECT_EQ(A[1], 0u);
  EXPECT_EQ(A[19999], 0u);
  EXPECT_LT(Seconds, 10.0); // under 0.1 s; scoring every node took minutes
}

TEST(SensorCAssign, BudgetStopsTheSearch) {
  std::mt19937_64 R(3);
  AssignmentProblem P = randomProblem(R, 12, 6, 8);
  EXPECT_FALSE(exhaustiveAssign(P, /*Budget=*/10));
}

} // namespace
