//===- ParserTest.cpp - SensorC grammar, printer, located errors ----------===//
#include "AST.h"
#include "Decompose.h"
#include "Parser.h"
#include "gtest/gtest.h"
#include "llvm/Support/Error.h"

using namespace wsn::sensorc;

namespace {

Program parseOk(llvm::StringRef Text) {
  auto P = parseProgram(Text, "t.sg");
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return Program();
  }
  return std::move(*P);
}

void expectRoundTrip(llvm::StringRef Text) {
  Program A = parseOk(Text);
  std::string Printed = printProgram(A);
  auto B = parseProgram(Printed, "printed.sg");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError()) << "\n" << Printed;
  EXPECT_TRUE(equalProgram(A, *B)) << Printed;
  // Printing is a fixed point after one round.
  EXPECT_EQ(Printed, printProgram(*B));
}

const char *Fig32 = R"(#GLOBAL
#DEFINITION
GLOBAL var rt = AODV_M__route_table_;
TEMP P1,P2;
NODE n = [ALL];
NODE d = [0];
NODE m = [ALL];
#NETWORK
#ROUTING
#PROPERTY
P1 = (rt[n].dest == d) AND (rt[n].next == m) ;
P2 = (rt[n].seq < rt[m].seq) OR
      (rt[n].seq == rt[m].seq AND
       rt[n].hop > rt[m].hop);
IF ( NOT (P1->P2)) ERROR ;
)";

TEST(SensorCParser, ParsesFigure32Global) {
  Program P = parseOk(Fig32);
  EXPECT_FALSE(P.IsLocal);
  ASSERT_EQ(P.Decls.size(), 5u);
  EXPECT_EQ(P.Decls[0].CName, "AODV_M__route_table_");
  EXPECT_TRUE(P.Decls[2].All);
  EXPECT_TRUE(P.HasNetwork);
  EXPECT_TRUE(P.NetworkFile.empty());
  ASSERT_EQ(P.Stmts.size(), 3u);
  EXPECT_EQ(P.Stmts[2].Violation->Kind, EK::Not);
  EXPECT_EQ(P.Stmts[2].Violation->Kids[0]->Kind, EK::Implies);
  // P2: OR of a comparison and an AND.
  const Expr &P2 = *P.Stmts[1].Value;
  ASSERT_EQ(P2.Kind, EK::Or);
  EXPECT_EQ(P2.Kids[0]->Kind, EK::Cmp);
  EXPECT_EQ(P2.Kids[1]->Kind, EK::And);
}

TEST(SensorCParser, ParsesNestedGuardOfFigure34) {
  Program P = parseOk(R"(#LOCAL 7
#DEFINITION
GLOBAL var rt = AODV_M__route_table_;
NODE m = [ALL];
#PROPERTY
IF ((rt.dest==0) AND (rt.next==m))
  IF ((rt.seq >= rt[m].seq) AND
       (rt.seq < rt[m].seq OR
        rt.hop <= rt[m].hop))
    ERROR;
)");
  EXPECT_TRUE(P.IsLocal);
  EXPECT_EQ(P.LocalNode, 7u);
  ASSERT_EQ(P.Stmts.size(), 1u);
  ASSERT_TRUE(P.Stmts[0].Guard);
  EXPECT_EQ(P.Stmts[0].Violation->Kind, EK::And);
  // rt.dest is local (no index), rt[m] is indexed.
  const Expr &Cmp0 = *P.Stmts[0].Guard->Kids[0];
  EXPECT_EQ(Cmp0.Kids[0]->index(), nullptr);
}

TEST(SensorCParser, RoundTripsFigures) {
  expectRoundTrip(Fig32);
  expectRoundTrip(R"(#GLOBAL
#DEFINITION
GLOBAL var rreq = p_rreq_msg_;
GLOBAL var rrep = p_rrep_msg_;
TEMP P1,P2;
NODE n = [1];
NODE m = [0];
#NETWORK "topology.txt"
#ROUTING "AODV"
#PROPERTY
P1 = m RECEIVE rreq FROM n LESS_THAN 20;
P2 = m SEND rrep TO n LESS_THAN 20;
IF ( NOT (P1)) ERROR ;
IF ( NOT (P2)) ERROR;
)");
  expectRoundTrip(R"(#LOCAL 2
#DEFINITION
#PROPERTY
IF (NOT (Routing_rule(1,0))) ERROR;
IF (NOT (Routing_rule(0,1) )) ERROR;
)");
}

TEST(SensorCParser, RoundTripsEveryConstruct) {
  expectRoundTrip(R"(#GLOBAL
#DEFINITION
GLOBAL var x = app_x;
GLOBAL var p = *app_ptr;
GLOBAL event boot = App__booted;
TEMP A, B;
NODE n = [0 ... 3, 7, 9 ... 10];
NODE k = [2];
#PROPERTY
A = (x[n].a + 2 * (x[k].b - 1)) % 5 >= -x[n].c / 2 OR boot[n];
B = (A <-> TRUE) -> (A -> FALSE) AND NOT NOT (x[0].v != 3);
IF (NOT (A AND B) OR (x[n].z)) ERROR;
IF (n BROADCAST p AFTER 10 EVERY 2.5 AND NOT (k SEND p TO n EVERY 4))
  IF (Send_rule(n, BCAST, p.type, LESS_THAN 1.25) OR Routing_rule(n, k)[3])
    ERROR;
IF ((x[n].a) + 1 > 2 AND ((x[n].b) == 1)) ERROR;
)");
}

TEST(SensorCParser, ParenthesizedArithmeticBeforeAnOperator) {
  Program P = parseOk(R"(#GLOBAL
#DEFINITION
GLOBAL var x = app_x;
NODE n = [0];
#PROPERTY
IF ((x[n].a + 1) * 2 > 3) ERROR;
)");
  const Expr &V = *P.Stmts[0].Violation;
  ASSERT_EQ(V.Kind, EK::Cmp);
  EXPECT_EQ(V.Cmp, CmpOp::GT);
  EXPECT_EQ(V.Kids[0]->Kind, EK::Arith);
  EXPECT_EQ(V.Kids[0]->Arith, ArithOp::Mul);
}

// Malformed inputs: each gives one located error, never a crash.
struct BadCase {
  const char *Name;
  const char *Text;
  const char *Where;   // "line:col"
  const char *Message; // substring
};

const char *Head = "#GLOBAL\n#DEFINITION\nGLOBAL var x = app_x;\nTEMP T;\n"
                   "NODE n = [0 ... 2];\n#PROPERTY\n";

const BadCase BadCases[] = {
    {"Empty", "", "1:1", "starts with #GLOBAL or #LOCAL"},
    {"NoDefinition", "#GLOBAL\n#PROPERTY\n", "2:1", "expected #DEFINITION"},
    {"BadLocalId", "#LOCAL x\n", "1:8", "node id after #LOCAL"},
    {"LocalIdRange", "#LOCAL 70000\n", "1:8", "out of range"},
    {"GlobalNoKind", "#GLOBAL\n#DEFINITION\nGLOBAL rt = a;\n", "3:8",
     "'var' or 'event'"},
    {"MissingSemi", "#GLOBAL\n#DEFINITION\nGLOBAL var rt = a\n#PROPERTY\n",
     "4:1", "expected ';'"},
    {"Redeclared", "#GLOBAL\n#DEFINITION\nGLOBAL var a = b;\nNODE a = [1];\n",
     "4:6", "already declared"},
    {"EmptyRange", "#GLOBAL\n#DEFINITION\nNODE n = [5 ... 2];\n", "3:11",
     "empty node range"},
    {"NodeListJunk", "#GLOBAL\n#DEFINITION\nNODE n = [x];\n", "3:11",
     "node id or ALL"},
    {"BadChar", "#GLOBAL\n#DEFINITION\nGLOBAL var x = $y;\n", "3:16",
     "unexpected character '$'"},
    {"UnterminatedString", "#GLOBAL\n#DEFINITION\n#NETWORK \"topo\n", "3:10",
     "unterminated string"},
    {"UnterminatedComment", "#GLOBAL /* oops\n", "1:9",
     "unterminated comment"},
    {"NetworkInLocal", "#LOCAL 1\n#DEFINITION\n#NETWORK \"t\"\n", "3:1",
     "belong to SensorC_G"},
    {"AssignNonTemp", "IF (x[n].a == 1) ERROR;\nx = TRUE;\n", "8:1",
     "not a TEMP"},
    {"AssignTwice", "T = TRUE;\nT = FALSE;\n", "8:1", "assigned twice"},
    {"UnknownName", "IF (y[n].a == 1) ERROR;\n", "7:5", "unknown name 'y'"},
    {"MissingIndex", "IF (x.a == 1) ERROR;\n", "7:5", "needs a node index"},
    {"NotANodeVar", "IF (x[q].a == 1) ERROR;\n", "7:7",
     "'q' is not a NODE variable"},
    {"MissingError", "IF (x[n].a == 1);\n", "7:17", "expected 'ERROR'"},
    {"MissingParen", "IF (x[n].a == 1 ERROR;\n", "7:17", "expected ')'"},
    {"ChainedCmp", "IF (x[n].a < x[n].b < 3) ERROR;\n", "7:21",
     "do not chain"},
    {"TempAsValue", "IF (T + 1 > 2) ERROR;\n", "7:5", "is a formula"},
    {"DanglingAnd", "IF (x[n].a == 1 AND) ERROR;\n", "7:20",
     "expected a value or a condition"},
    {"SendNoBound", "IF (NOT (n SEND x TO 0)) ERROR;\n", "7:23",
     "expected a time bound"},
    {"SendNotMessage", "IF (NOT (n SEND n TO 0 LESS_THAN 1)) ERROR;\n",
     "7:17", "expected a message"},
    {"ZeroTime", "IF (NOT (n SEND x TO 0 LESS_THAN 0)) ERROR;\n", "7:34",
     "must be positive"},
    {"RuleNoType", "IF (NOT (Send_rule(n, 0, x.kind, LESS_THAN 1))) ERROR;\n",
     "7:28", "expected 'type'"},
    {"BcastAsIndex", "IF (x[BCAST].a == 0) ERROR;\n", "7:7",
     "only a Send_rule destination"},
    {"DecimalValue", "IF (x[n].a == 1.5) ERROR;\n", "7:15",
     "only allowed in time bounds"},
    {"ChainedIff", "IF (TRUE <-> TRUE <-> TRUE) ERROR;\n", "7:19",
     "does not chain"},
    {"TrailingJunk", "IF (TRUE) ERROR;\n)\n", "8:1",
     "expected a TEMP assignment"},
};

class SensorCBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(SensorCBadInput, GivesLocatedError) {
  const BadCase &C = GetParam();
  std::string Text = C.Text;
  if (Text.rfind("#", 0) != 0 && !Text.empty())
    Text = std::string(Head) + Text;
  auto P = parseProgram(Text, "bad.sg");
  ASSERT_FALSE(bool(P)) << "accepted:\n" << Text;
  std::string Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find(std::string("bad.sg:") + C.Where + ": error: "),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find(C.Message), std::string::npos) << Msg;
}

INSTANTIATE_TEST_SUITE_P(Table, SensorCBadInput, ::testing::ValuesIn(BadCases),
                         [](const auto &I) { return I.param.Name; });

// Errors only decomposition can see, still located in the spec.
const BadCase BadSemantics[] = {
    {"TempCycle", "T = NOT T;\nIF (T) ERROR;\n", "7:9",
     "defined in terms of itself (T -> T)"},
    {"TempUnassigned", "IF (T) ERROR;\n", "7:5", "never assigned"},
    {"UnknownRouting",
     "#GLOBAL\n#DEFINITION\n#NETWORK \"topology.txt\"\n#ROUTING \"OLSR\"\n"
     "#PROPERTY\n",
     "4:10", "unknown routing protocol \"OLSR\""},
    {"RoutingWithoutNetwork",
     "#GLOBAL\n#DEFINITION\n#ROUTING \"AODV\"\n#PROPERTY\n", "3:10",
     "needs a #NETWORK topology"},
    {"MissingTopology",
     "#GLOBAL\n#DEFINITION\n#NETWORK \"no-such-file.txt\"\n#PROPERTY\n", "3:10",
     "cannot read"},
    {"AllWithoutSize",
     "#GLOBAL\n#DEFINITION\nNODE a = [ALL];\n#PROPERTY\nIF (TRUE) ERROR;\n",
     "3:1", "needs the network size"},
    {"RoutingRuleWithoutNetwork", "IF (NOT (Routing_rule(0, 1))) ERROR;\n",
     "7:10", "needs #NETWORK"},
};

class SensorCBadSemantics : public ::testing::TestWithParam<BadCase> {};

TEST_P(SensorCBadSemantics, GivesLocatedError) {
  const BadCase &C = GetParam();
  std::string Text = C.Text;
  if (Text.rfind("#", 0) != 0)
    Text = std::string(Head) + Text;
  auto P = parseProgram(Text, "bad.sg");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  DecomposeOptions O;
  O.BaseDir = SENSORC_EXAMPLES_DIR;
  auto D = decompose(*P, O);
  ASSERT_FALSE(bool(D));
  std::string Msg = llvm::toString(D.takeError());
  EXPECT_NE(Msg.find(std::string("bad.sg:") + C.Where + ": error: "),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find(C.Message), std::string::npos) << Msg;
}

INSTANTIATE_TEST_SUITE_P(Table, SensorCBadSemantics,
                         ::testing::ValuesIn(BadSemantics),
                         [](const auto &I) { return I.param.Name; });

} // namespace
