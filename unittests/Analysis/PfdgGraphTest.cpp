//===- PfdgGraphTest.cpp - levels, boundaries and selection (thesis 4.4) --===//
#include "PfdgGraph.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>

using namespace wsn;

namespace {

struct G {
  PfdgGraph P;
  unsigned n(const char *Name) { return P.addNode(Name); }
  void call(const char *A, const char *B) { P.addCall(n(A), n(B)); }
  void dep(const char *A, const char *B) { P.addDependence(n(A), n(B)); }
  std::optional<unsigned> level(const char *Name) {
    return P.level(*P.lookup(Name));
  }
  bool boundary(const char *Name, unsigned L) {
    return P.isBoundary(*P.lookup(Name), L);
  }
  bool hasDep(const char *A, const char *B) {
    auto &E = P.dependenceEdges();
    return std::find(E.begin(), E.end(),
                     std::make_pair(*P.lookup(A), *P.lookup(B))) != E.end();
  }
  std::vector<std::string> selected(unsigned L,
                                    std::vector<ErrorPath> Paths = {}) {
    auto S = P.select(L, Paths, "paths.txt");
    EXPECT_TRUE(!!S);
    std::vector<std::string> Out;
    if (!S) {
      llvm::consumeError(S.takeError());
      return Out;
    }
    for (unsigned I = 0; I < P.size(); ++I)
      if ((*S)[I])
        Out.push_back(P.name(I).str());
    std::sort(Out.begin(), Out.end());
    return Out;
  }
};

using Names = std::vector<std::string>;

// The shape of thesis Figure 4.4: main calls f1, f2 and the invariant; f1
// calls f3, f2 calls f4; f3 and f4 modify variables the invariant reads.
G figure44() {
  G g;
  g.P.markMain(g.n("main"));
  g.P.markEntry(g.n("main"));
  g.P.markInvariant(g.n("Inv_fun"));
  g.call("main", "f1");
  g.call("main", "f2");
  g.call("main", "Inv_fun");
  g.call("f1", "f3");
  g.call("f2", "f4");
  g.dep("Inv_fun", "f3");
  g.dep("Inv_fun", "f4");
  g.P.build();
  return g;
}

TEST(PfdgGraph, Figure44Levels) {
  G g = figure44();
  // Dependences through the closest common ancestor main:
  // Inv_fun -> f1 -> f3 and Inv_fun -> f2 -> f4.
  EXPECT_TRUE(g.hasDep("Inv_fun", "f1"));
  EXPECT_TRUE(g.hasDep("f1", "f3"));
  EXPECT_TRUE(g.hasDep("Inv_fun", "f2"));
  EXPECT_TRUE(g.hasDep("f2", "f4"));
  EXPECT_FALSE(g.hasDep("Inv_fun", "f3"));
  EXPECT_EQ(g.P.dependenceEdges().size(), 4u);
  EXPECT_EQ(g.level("Inv_fun"), 0u);
  EXPECT_EQ(g.level("main"), 1u);
  EXPECT_EQ(g.level("f1"), 1u);
  EXPECT_EQ(g.level("f2"), 1u);
  EXPECT_EQ(g.level("f3"), 2u);
  EXPECT_EQ(g.level("f4"), 2u);
}

TEST(PfdgGraph, Figure44Boundaries) {
  G g = figure44();
  // Level 1: the immediate callers of the invariant.
  EXPECT_TRUE(g.boundary("main", 1));
  EXPECT_FALSE(g.boundary("f1", 1));
  EXPECT_FALSE(g.boundary("Inv_fun", 1));
  // Nothing ends a call-only canonical path of length 2.
  for (const char *F : {"main", "f1", "f2", "f3", "f4"})
    EXPECT_FALSE(g.boundary(F, 2)) << F;
}

TEST(PfdgGraph, Figure44Selection) {
  G g = figure44();
  EXPECT_EQ(g.selected(1), (Names{"Inv_fun", "f1", "f2", "main"}));
  EXPECT_EQ(g.selected(2),
            (Names{"Inv_fun", "f1", "f2", "f3", "f4", "main"}));
  // Level 2 after level 1 showed the error propagating along Inv_fun -> f1:
  // f3 is the only level-2 function one edge away from that path.
  ErrorPath P;
  P.Functions = {"Inv_fun", "f1"};
  P.Line = 1;
  EXPECT_EQ(g.selected(2, {P}), (Names{"Inv_fun", "f1", "f3", "main"}));
  P.Functions = {"Inv_fun", "f2"};
  EXPECT_EQ(g.selected(2, {P}), (Names{"Inv_fun", "f2", "f4", "main"}));
}

// Invariant and writer meet only at main, two calls down on each side.
TEST(PfdgGraph, ChainThroughClosestCommonAncestor) {
  G g;
  g.P.markMain(g.n("main"));
  g.P.markInvariant(g.n("inv"));
  g.call("main", "a");
  g.call("a", "b");
  g.call("b", "inv");
  g.call("main", "c");
  g.call("c", "d");
  g.call("d", "w");
  g.dep("inv", "w");
  g.P.build();
  for (auto [A, B] : std::initializer_list<std::pair<const char *, const char *>>{
           {"inv", "b"}, {"b", "a"}, {"a", "c"}, {"c", "d"}, {"d", "w"}})
    EXPECT_TRUE(g.hasDep(A, B)) << A << " -> " << B;
  EXPECT_EQ(g.P.dependenceEdges().size(), 5u);
  EXPECT_EQ(g.level("b"), 1u);
  EXPECT_EQ(g.level("a"), 2u);
  EXPECT_EQ(g.level("main"), 3u);
  EXPECT_EQ(g.level("c"), 3u);
  EXPECT_EQ(g.level("d"), 4u);
  EXPECT_EQ(g.level("w"), 5u);
  EXPECT_TRUE(g.boundary("b", 1));
  EXPECT_TRUE(g.boundary("a", 2));
  EXPECT_TRUE(g.boundary("main", 3));
  EXPECT_FALSE(g.boundary("a", 1));
  EXPECT_EQ(g.selected(1), (Names{"b", "inv", "main"}));
  EXPECT_EQ(g.selected(2), (Names{"a", "b", "inv", "main"}));
  EXPECT_EQ(g.selected(3), (Names{"a", "b", "c", "inv", "main"}));
  ErrorPath P;
  P.Functions = {"inv", "b", "a"};
  // Level 3 from that path: main (caller of a) and c (a -> c) are level 3.
  EXPECT_EQ(g.selected(3, {P}), (Names{"a", "b", "c", "inv", "main"}));
}

// Two closest common ancestors: x (x->f1, x->h->f2) and top (top->x->f1,
// top->y->h->f2); a is not one (every path from it to f2 goes through x).
TEST(PfdgGraph, AllClosestCommonAncestors) {
  G g;
  g.call("a", "top");
  g.call("top", "x");
  g.call("top", "y");
  g.call("x", "f1");
  g.call("x", "h");
  g.call("y", "h");
  g.call("h", "f2");
  g.P.markInvariant(g.n("f1"));
  g.dep("f1", "f2");
  g.P.build();
  // From x: f1 -> h -> f2. From top: f1 -> x -> y -> h -> f2.
  EXPECT_TRUE(g.hasDep("f1", "h"));
  EXPECT_TRUE(g.hasDep("h", "f2"));
  EXPECT_TRUE(g.hasDep("f1", "x"));
  EXPECT_TRUE(g.hasDep("x", "y"));
  EXPECT_TRUE(g.hasDep("y", "h"));
  EXPECT_EQ(g.P.dependenceEdges().size(), 5u);
  EXPECT_FALSE(g.hasDep("top", "y"));
}

TEST(PfdgGraph, NotACommonAncestorWhenOneNodeSeparates) {
  G g;
  g.call("top", "a");
  g.call("a", "p");
  g.call("a", "q");
  g.call("p", "f1");
  g.call("q", "f2");
  g.P.markInvariant(g.n("f1"));
  g.dep("f1", "f2");
  g.P.build();
  EXPECT_TRUE(g.hasDep("f1", "p"));
  EXPECT_TRUE(g.hasDep("p", "q"));
  EXPECT_TRUE(g.hasDep("q", "f2"));
  EXPECT_EQ(g.P.dependenceEdges().size(), 3u);
  EXPECT_EQ(g.level("q"), 2u);
  EXPECT_EQ(g.level("a"), 2u);
}

// A handler has no caller: the hardware (a virtual root above main and the
// handlers) is the closest common ancestor.
TEST(PfdgGraph, HandlerThroughVirtualRoot) {
  G g;
  g.P.markMain(g.n("main"));
  g.P.markEntry(g.n("main"));
  g.P.markInvariant(g.n("inv"));
  g.P.markInterrupt(g.n("isr"));
  g.P.markEntry(g.n("isr"));
  g.call("main", "inv");
  g.call("isr", "update");
  g.dep("inv", "update");
  g.P.build();
  EXPECT_TRUE(g.hasDep("inv", "main"));
  EXPECT_TRUE(g.hasDep("main", "isr"));
  EXPECT_TRUE(g.hasDep("isr", "update"));
  EXPECT_EQ(g.level("isr"), 2u);
  EXPECT_EQ(g.level("update"), 3u);
}

// Members of a recursive cycle share one level and are selected together.
TEST(PfdgGraph, RecursionSharesLevelAndSelection) {
  G g;
  g.P.markMain(g.n("main"));
  g.P.markInvariant(g.n("inv"));
  g.call("main", "inv");
  g.call("main", "r1");
  g.call("r1", "r2");
  g.call("r2", "r1");
  g.call("r2", "leaf");
  g.dep("inv", "r1");
  g.dep("r2", "leaf");
  g.P.build();
  EXPECT_TRUE(g.P.isRecursive(*g.P.lookup("r1")));
  EXPECT_FALSE(g.P.isRecursive(*g.P.lookup("leaf")));
  EXPECT_EQ(g.level("r1"), 1u);
  EXPECT_EQ(g.level("r2"), 1u);
  EXPECT_EQ(g.selected(1), (Names{"inv", "main", "r1", "r2"}));
}

TEST(PfdgGraph, ErrorPathsFileErrors) {
  G g = figure44();
  auto Paths = parseErrorPaths("# comment\n\n@Inv_fun -> f1\nInv_fun, nosuch\n",
                               "p.txt");
  ASSERT_TRUE(!!Paths);
  ASSERT_EQ(Paths->size(), 2u);
  EXPECT_EQ((*Paths)[0].Functions, (Names{"Inv_fun", "f1"}));
  EXPECT_EQ((*Paths)[1].Line, 4u);
  auto S = g.P.select(2, *Paths, "p.txt");
  ASSERT_FALSE(!!S);
  EXPECT_EQ(llvm::toString(S.takeError()),
            "p.txt:4: function 'nosuch' is not a node of the PFDG (not "
            "defined, or it does not affect any invariant)");
  auto P2 = parseErrorPaths("f3 -> f4\n", "q.txt");
  ASSERT_TRUE(!!P2);
  auto S2 = g.P.select(2, *P2, "q.txt");
  ASSERT_FALSE(!!S2);
  EXPECT_EQ(llvm::toString(S2.takeError()),
            "q.txt:1: 'f3' -> 'f4' is not an edge of the PFDG");
}

} // namespace
