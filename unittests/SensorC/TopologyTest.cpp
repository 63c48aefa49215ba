//===- TopologyTest.cpp - TOSSIM topology reader and the routing pool -----===//
#include "Routing.h"
#include "Topology.h"
#include "gtest/gtest.h"
#include "llvm/Support/Error.h"

using namespace wsn;
using namespace wsn::sensorc;
using namespace wsn::topology;

namespace {

Topology parseOk(llvm::StringRef Text) {
  auto T = parseTopology(Text, "t.txt");
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return Topology();
  }
  return std::move(*T);
}

TEST(SensorCTopology, ReadsLinkLayerModelOutput) {
  Topology T = parseOk("gain\t0\t1\t-60.5\n"
                       "gain  1 0 -61\n"
                       "\n"
                       "# a comment\n"
                       "noise\t0\t-98.0\t4.0\r\n"
                       "noise 1 -97 3.5\n");
  EXPECT_EQ(T.Nodes, (std::set<unsigned>{0, 1}));
  EXPECT_DOUBLE_EQ(*T.gain(0, 1), -60.5);
  EXPECT_FALSE(T.gain(0, 2));
  EXPECT_DOUBLE_EQ(T.noise(1)->MeanDbm, -97);
  EXPECT_DOUBLE_EQ(T.noise(1)->Variance, 3.5);
  EXPECT_DOUBLE_EQ(*linkSnr(T, 0, 1), -60.5 + 97);
  EXPECT_TRUE(hasLink(T, 0, 1));
}

TEST(SensorCTopology, LinkNeedsTheSnrMargin) {
  Topology T = parseOk("gain 0 1 -95\nnoise 1 -98 1\ngain 1 0 -80\n");
  LinkModel M; // 4 dB
  EXPECT_FALSE(hasLink(T, 0, 1, M)); // 3 dB margin
  EXPECT_TRUE(hasLink(T, 1, 0, M));  // default noise floor -98: 18 dB
  M.MinSnrDb = 2;
  EXPECT_TRUE(hasLink(T, 0, 1, M));
  EXPECT_EQ(neighbours(T, 1, M), std::vector<unsigned>{0});
}

struct BadTopo {
  const char *Name, *Text, *Where, *Message;
};

const BadTopo BadTopos[] = {
    {"Empty", "", "1:1", "no gain or noise records"},
    {"UnknownRecord", "gain 0 1 -50\nlink 0 1\n", "2:1", "unknown record 'link'"},
    {"TooFewFields", "gain 0 1\n", "1:8", "3 fields (SRC DST DBM), found 2"},
    {"TooManyFields", "noise 1 -98 4 7\n", "1:15", "found 4"},
    {"BadNode", "gain 0 x -50\n", "1:8", "expected a node id"},
    {"NegativeNode", "gain -1 0 -50\n", "1:6", "expected a node id"},
    {"BadGain", "gain 0 1 loud\n", "1:10", "a gain in dBm"},
    {"SelfLink", "gain 3 3 -50\n", "1:8", "to itself"},
    {"DuplicateGain", "gain 0 1 -50\ngain 0 1 -51\n", "2:6",
     "duplicate gain 0 -> 1 (first on line 1)"},
    {"DuplicateNoise", "noise 0 -98 4\nnoise 0 -97 4\n", "2:7",
     "duplicate noise record"},
    {"NegativeVariance", "noise 0 -98 -4\n", "1:13", "must not be negative"},
    {"NanGain", "gain 0 1 nan\n", "1:10", "a gain in dBm"},
    {"NodeTooLarge", "gain 70000 2 -3\n", "1:6", "expected a node id (0..65535)"},
    {"NanNoiseMean", "noise 1 nan 1\n", "1:9", "(a number), found 'nan'"},
};

class SensorCBadTopology : public ::testing::TestWithParam<BadTopo> {};

TEST_P(SensorCBadTopology, GivesLineNumberedError) {
  auto T = parseTopology(GetParam().Text, "topo.txt");
  ASSERT_FALSE(bool(T));
  std::string Msg = llvm::toString(T.takeError());
  EXPECT_NE(Msg.find(std::string("topo.txt:") + GetParam().Where + ": error:"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find(GetParam().Message), std::string::npos) << Msg;
}

INSTANTIATE_TEST_SUITE_P(Table, SensorCBadTopology,
                         ::testing::ValuesIn(BadTopos),
                         [](const auto &I) { return I.param.Name; });

TEST(SensorCTopology, MissingFileIsAnError) {
  auto T = readTopologyFile("/nonexistent/topo.txt");
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError()).find("/nonexistent/topo.txt"),
            std::string::npos);
}

Topology exampleTopology() {
  auto T = readTopologyFile(SENSORC_EXAMPLES_DIR "/topology.txt");
  EXPECT_TRUE(bool(T));
  return T ? std::move(*T) : Topology();
}

TEST(SensorCRouting, ShortestPathCountsHops) {
  Topology T = exampleTopology();
  RoutingPool P(T, RoutingProtocol::ShortestPath);
  // Two-hop routes exist through 4 (weak links) and 5 (1 -> 5 is one-way);
  // the lower-numbered predecessor wins the tie.
  EXPECT_EQ(*P.route(1, 0), (std::vector<unsigned>{1, 4, 0}));
  EXPECT_EQ(*P.relays(1, 0), std::vector<unsigned>{4});
  EXPECT_EQ(*P.route(0, 1), (std::vector<unsigned>{0, 4, 1}));
  EXPECT_EQ(*P.route(2, 3), (std::vector<unsigned>{2, 3}));
  EXPECT_TRUE(P.relays(2, 3)->empty());
}

TEST(SensorCRouting, AodvPrefersStrongBidirectionalLinks) {
  Topology T = exampleTopology();
  RoutingPool P(T, RoutingProtocol::Aodv);
  // The RREQ arrives first over the strong 3-hop chain; the weak 2-hop path
  // through 4 costs more retries, and 1 -> 5 -> 0 is not bidirectional.
  EXPECT_EQ(*P.route(1, 0), (std::vector<unsigned>{1, 2, 3, 0}));
  EXPECT_EQ(*P.route(0, 1), (std::vector<unsigned>{0, 3, 2, 1}));
  EXPECT_EQ(*P.relays(1, 0), (std::vector<unsigned>{2, 3}));
}

TEST(SensorCRouting, AodvDoesNotDependOnQueryOrder) {
  Topology T = exampleTopology();
  RoutingPool A(T, RoutingProtocol::Aodv), B(T, RoutingProtocol::Aodv);
  auto A10 = A.route(1, 0), A01 = A.route(0, 1);
  auto B01 = B.route(0, 1), B10 = B.route(1, 0);
  EXPECT_EQ(A10, B10);
  EXPECT_EQ(A01, B01);
}

TEST(SensorCRouting, UnreachableHasNoRoute) {
  Topology T = parseOk("gain 0 1 -50\ngain 1 0 -50\ngain 2 3 -50\n");
  RoutingPool P(T, RoutingProtocol::ShortestPath), Q(T, RoutingProtocol::Aodv);
  EXPECT_FALSE(P.route(0, 3));
  EXPECT_FALSE(Q.route(0, 3));
  EXPECT_FALSE(Q.route(2, 3)); // one-way: no RREP path back
  EXPECT_TRUE(P.route(2, 3));
  EXPECT_FALSE(P.route(0, 9)); // not in the topology
}

TEST(SensorCRouting, ProtocolNames) {
  EXPECT_EQ(lookupRoutingProtocol("aodv"), RoutingProtocol::Aodv);
  EXPECT_EQ(lookupRoutingProtocol("SHORTEST_PATH"),
            RoutingProtocol::ShortestPath);
  EXPECT_FALSE(lookupRoutingProtocol("OLSR"));
}

} // namespace
