//===- PfdgScaleTest.cpp - fast chain finder == reference (Algorithm 3) ---===//
//
// PfdgGraph::build() uses a fast finder for the chains of Algorithm 3, rule 2
// (shared shortest-chain trees, one topological dominator pass); it must give
// exactly the edges of the straightforward per-pair algorithm
// (buildReference()). Random call graphs, seeded so failures reproduce.
//
//===----------------------------------------------------------------------===//
#include "PfdgGraph.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace wsn;

namespace {

struct Shape {
  unsigned Nodes;
  double ExtraCaller; // probability of a second caller
  double BackEdge;    // probability of a callee -> caller edge (recursion)
  unsigned Entries;   // handlers besides main
  unsigned Pairs;
  // Components of this many functions, shaped like bench/pfdg-scale's
  // modules (a component's functions are called from inside it, its first
  // one from anywhere earlier); 0: any earlier function is the caller.
  unsigned Comp = 0;
};

// Fills two graphs with the same random content.
void generate(unsigned Seed, const Shape &S, PfdgGraph &A, PfdgGraph &B) {
  std::mt19937 Rng(Seed);
  auto pick = [&](unsigned Lo, unsigned Hi) { // [Lo, Hi)
    return std::uniform_int_distribution<unsigned>(Lo, Hi - 1)(Rng);
  };
  auto coin = [&](double P) {
    return std::uniform_real_distribution<double>(0, 1)(Rng) < P;
  };
  for (PfdgGraph *G : {&A, &B})
    for (unsigned I = 0; I < S.Nodes; ++I)
      G->addNode("f" + std::to_string(I));
  auto both = [&](auto Fn) {
    Fn(A);
    Fn(B);
  };
  // Node 0 is main; the next S.Entries nodes are handlers (no callers).
  both([&](PfdgGraph &G) {
    G.markMain(0);
    G.markEntry(0);
  });
  unsigned FirstBody = 1 + S.Entries;
  for (unsigned H = 1; H < FirstBody && H < S.Nodes; ++H)
    both([&](PfdgGraph &G) {
      G.markInterrupt(H);
      G.markEntry(H);
    });
  for (unsigned V = FirstBody; V < S.Nodes; ++V) {
    unsigned Caller = V == FirstBody ? 0 : pick(0, V);
    if (S.Comp && V > FirstBody && (V - FirstBody) % S.Comp != 0)
      Caller = V - (V - FirstBody) % S.Comp + pick(0, (V - FirstBody) % S.Comp);
    if (Caller >= 1 && Caller < FirstBody && coin(0.5))
      Caller = 0;
    both([&](PfdgGraph &G) { G.addCall(Caller, V); });
    if (coin(S.ExtraCaller)) {
      unsigned Extra = pick(0, V);
      both([&](PfdgGraph &G) { G.addCall(Extra, V); });
    }
    if (coin(S.BackEdge)) {
      unsigned Up = pick(FirstBody, V + 1); // may be V itself: self-recursion
      both([&](PfdgGraph &G) { G.addCall(V, Up); });
    }
  }
  // A few invariants among the later nodes.
  for (unsigned K = 0; K < 2 && S.Nodes > FirstBody; ++K) {
    unsigned Inv = pick(FirstBody, S.Nodes);
    both([&](PfdgGraph &G) { G.markInvariant(Inv); });
  }
  for (unsigned P = 0; P < S.Pairs; ++P) {
    unsigned F1 = pick(0, S.Nodes), F2 = pick(0, S.Nodes);
    both([&](PfdgGraph &G) { G.addDependence(F1, F2); });
  }
}

std::vector<std::string> edges(const PfdgGraph &G) {
  std::vector<std::string> Out;
  for (auto [A, B] : G.dependenceEdges())
    Out.push_back(G.name(A).str() + "->" + G.name(B).str());
  return Out;
}

std::vector<int> levels(const PfdgGraph &G) {
  std::vector<int> Out;
  for (unsigned V = 0; V < G.size(); ++V)
    Out.push_back(G.level(V) ? (int)*G.level(V) : -1);
  return Out;
}

// How the fast finder drew the chains, summed over the graphs compared.
struct Ways {
  unsigned Tree = 0, Search = 0, Flow = 0;
  // Edges drawn before removing duplicates, by the fast finder and by the
  // reference (the fast one skips tree edges an earlier pair already added).
  uint64_t FastDrawn = 0, RefDrawn = 0;
  // Closest common ancestors left out as redundant (skipping on).
  uint64_t Skipped = 0;
};

// Skip: build() with setSkipRedundantChains(Skip); off, every closest common
// ancestor's chains are drawn, so each way of drawing them is compared.
void compareMany(const Shape &S, unsigned Seeds, unsigned SeedBase,
                 unsigned &Fast, unsigned &Fallback, unsigned &Rule2,
                 Ways *W = nullptr, bool Skip = true) {
  for (unsigned Seed = SeedBase; Seed < SeedBase + Seeds; ++Seed) {
    PfdgGraph Fst, Ref;
    generate(Seed, S, Fst, Ref);
    Fst.setSkipRedundantChains(Skip);
    Fst.build();
    Ref.buildReference();
    ASSERT_EQ(edges(Fst), edges(Ref)) << "seed " << Seed;
    ASSERT_EQ(levels(Fst), levels(Ref)) << "seed " << Seed;
    EXPECT_EQ(Ref.buildStats().Fast, 0u);
    EXPECT_EQ(Fst.buildStats().Pairs, Ref.buildStats().Pairs);
    for (const PfdgGraph *G : {&Fst, &Ref}) {
      const PfdgGraph::BuildStats &St = G->buildStats();
      EXPECT_EQ(St.Pairs, St.Rule1 + St.Fast + St.Fallback) << "seed " << Seed;
    }
    // At most two shortest-chain trees per visit of a pair (fewer when
    // cached).
    EXPECT_LE(Fst.buildStats().TreesBuilt,
              2 * (Fst.buildStats().Fast + Fst.buildStats().Fallback +
                   Fst.buildStats().DeferredPairs));
    EXPECT_LE(Fst.buildStats().ChainEdges, Ref.buildStats().ChainEdges)
        << "seed " << Seed;
    Fast += Fst.buildStats().Fast;
    Fallback += Fst.buildStats().Fallback;
    Rule2 += Ref.buildStats().Fallback;
    if (W) {
      W->Tree += Fst.buildStats().TreeChains;
      W->Search += Fst.buildStats().SearchChains;
      W->Flow += Fst.buildStats().FlowChains;
      W->FastDrawn += Fst.buildStats().ChainEdges;
      W->RefDrawn += Ref.buildStats().ChainEdges;
      W->Skipped += Fst.buildStats().SkippedCcas;
    }
    if (!Skip) {
      EXPECT_EQ(Fst.buildStats().SkippedCcas, 0u) << "seed " << Seed;
    }
  }
}

void compareDags(unsigned &Fast, unsigned &Fallback, unsigned &Rule2,
                 Ways &W, bool Skip) {
  compareMany({12, 0.3, 0.0, 1, 10}, 150, 1, Fast, Fallback, Rule2, &W, Skip);
  compareMany({40, 0.5, 0.0, 3, 30}, 100, 1000, Fast, Fallback, Rule2, &W,
              Skip);
  compareMany({120, 0.3, 0.0, 2, 60}, 30, 2000, Fast, Fallback, Rule2, &W,
              Skip);
  // Denser graphs: more closest common ancestors whose shortest chains
  // overlap, so the searches and the two-path flow run too.
  compareMany({60, 0.9, 0.0, 2, 40}, 150, 5000, Fast, Fallback, Rule2, &W,
              Skip);
  compareMany({200, 0.7, 0.0, 4, 80}, 40, 6000, Fast, Fallback, Rule2, &W,
              Skip);
  compareMany({400, 0.3, 0.0, 2, 400, 10}, 20, 7000, Fast, Fallback, Rule2,
              &W, Skip);
  // Over 64 entries: the virtual root has more callees than one row of bits
  // holds, so the look-ups of the edge between its two chains fall back to
  // the result set.
  compareMany({300, 0.4, 0.0, 70, 200}, 10, 8000, Fast, Fallback, Rule2, &W,
              Skip);
}

// Default build(): chains that can add no new edge are left out.
TEST(PfdgScale, SkippingRedundantChainsKeepsTheResult) {
  unsigned Fast = 0, Fallback = 0, Rule2 = 0;
  Ways W;
  compareDags(Fast, Fallback, Rule2, W, /*Skip=*/true);
  EXPECT_EQ(Fast, Rule2);
  // Some searches or flows were left out, and some still ran.
  EXPECT_GT(W.Skipped, 100u);
  EXPECT_GT(W.Search + W.Flow, 100u);
  std::printf("skipping: %llu closest common ancestors left out, %u searched, "
              "%u by the flow\n",
              (unsigned long long)W.Skipped, W.Search, W.Flow);
}

TEST(PfdgScale, FastChainsEqualReferenceOnRandomDags) {
  unsigned Fast = 0, Fallback = 0, Rule2 = 0;
  Ways W;
  compareDags(Fast, Fallback, Rule2, W, /*Skip=*/false);
  // Without call cycles every rule-2 pair goes through the fast finder.
  EXPECT_GT(Rule2, 500u);
  EXPECT_EQ(Fast, Rule2);
  EXPECT_EQ(Fallback, 0u);
  // Every way of drawing the chains was compared with the reference.
  EXPECT_GT(W.Tree, 100u);
  EXPECT_GT(W.Search, 500u);
  EXPECT_GT(W.Flow, 100u);
  // Tree edges added by an earlier pair are not drawn again.
  EXPECT_LT(W.FastDrawn, W.RefDrawn);
  std::printf("chains: %u from trees, %u from searches, %u from the flow; "
              "edges drawn: %llu (reference %llu)\n",
              W.Tree, W.Search, W.Flow, (unsigned long long)W.FastDrawn,
              (unsigned long long)W.RefDrawn);
}

TEST(PfdgScale, FastChainsEqualReferenceWithRecursion) {
  unsigned Fast = 0, Fallback = 0, Rule2 = 0;
  for (bool Skip : {false, true}) {
    compareMany({15, 0.4, 0.15, 2, 12}, 150, 3000, Fast, Fallback, Rule2,
                nullptr, Skip);
    compareMany({50, 0.4, 0.05, 2, 30}, 60, 4000, Fast, Fallback, Rule2,
                nullptr, Skip);
  }
  // Pairs with recursive ancestors go to the reference; the others do not.
  EXPECT_GT(Fast, 0u);
  EXPECT_GT(Fallback, 0u);
  EXPECT_EQ(Fast + Fallback, Rule2);
}

} // namespace
