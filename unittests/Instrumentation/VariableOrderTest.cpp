//===- VariableOrderTest.cpp - variables ordered by the lists they are in -===//
//
// Unit tests of passes/VariableLayout.cpp's orderByLists and countListRuns
// (spec/instrumentation.md section 10, "Variables ordered by their lists").
//
//===----------------------------------------------------------------------===//
#include "VariableLayout.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>

using namespace wsn;

namespace {

std::vector<OrderVar> bytes(unsigned N) { return std::vector<OrderVar>(N, OrderVar{1, 1}); }

std::vector<unsigned> identity(unsigned N) {
  std::vector<unsigned> O(N);
  for (unsigned I = 0; I < N; ++I)
    O[I] = I;
  return O;
}

bool isPermutation(std::vector<unsigned> O, unsigned N) {
  std::sort(O.begin(), O.end());
  return O == identity(N);
}

/// Each list's members placed next to each other (one run per list).
bool contiguous(const std::vector<unsigned> &Order, const std::vector<unsigned> &List) {
  std::set<unsigned> In(List.begin(), List.end());
  unsigned Runs = 0;
  for (size_t I = 0; I < Order.size(); ++I)
    if (In.count(Order[I]) && (I == 0 || !In.count(Order[I - 1])))
      ++Runs;
  return Runs == 1;
}

TEST(VariableOrder, CountRuns) {
  // Module order 0..5; list A = {0, 2, 4}, B = {1, 2, 3}: A has three runs, B one.
  std::vector<OrderVar> V = bytes(6);
  std::vector<std::vector<unsigned>> L = {{0, 2, 4}, {1, 2, 3}};
  EXPECT_EQ(countListRuns(V, identity(6), L), 4u);
  EXPECT_EQ(countListRuns(V, {0, 4, 2, 1, 3, 5}, L), 2u);
}

TEST(VariableOrder, AlignmentBreaksARun) {
  // MSP430: a word-aligned variable after a byte (or an odd-sized one) may be padded.
  std::vector<OrderVar> V = {{1, 1}, {2, 2}, {3, 2}, {2, 2}, {2, 2}};
  std::vector<std::vector<unsigned>> L = {{0, 1, 2, 3, 4}};
  EXPECT_EQ(countListRuns(V, identity(5), L), 3u); // 0 | 1 2 | 3 4
  EXPECT_EQ(countListRuns(V, {1, 3, 4, 2, 0}, L), 1u);
  EXPECT_TRUE(mergesAfter({2, 2}, {1, 1}));
  EXPECT_FALSE(mergesAfter({1, 1}, {2, 2}));
  EXPECT_FALSE(mergesAfter({3, 2}, {2, 2}));
}

TEST(VariableOrder, InterleavedListsBecomeRuns) {
  // Three lists whose members alternate in module order (as a component's variables that
  // one effect writes and the next does not): ordering makes each one run.
  std::vector<OrderVar> V = bytes(9);
  std::vector<std::vector<unsigned>> L = {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 1, 3, 4, 6, 7}};
  EXPECT_EQ(countListRuns(V, identity(9), L), 12u);
  std::vector<unsigned> O = orderByLists(V, 9, L);
  ASSERT_TRUE(isPermutation(O, 9));
  EXPECT_EQ(countListRuns(V, O, L), 4u);
  for (auto &List : L)
    EXPECT_TRUE(contiguous(O, List));
  // Module order inside a group.
  auto Pos = [&](unsigned X) { return std::find(O.begin(), O.end(), X) - O.begin(); };
  EXPECT_LT(Pos(0), Pos(3));
  EXPECT_LT(Pos(3), Pos(6));
}

TEST(VariableOrder, FixedTailStaysLast) {
  // Variable 4 (the anchor's status, added by the instrumentation) stays last; the
  // checkpoint's other variables are put next to it.
  std::vector<OrderVar> V = bytes(5);
  std::vector<std::vector<unsigned>> L = {{1, 3, 4}, {0, 2}};
  std::vector<unsigned> O = orderByLists(V, 4, L);
  ASSERT_TRUE(isPermutation(O, 5));
  EXPECT_EQ(O.back(), 4u);
  EXPECT_EQ(countListRuns(V, O, L), 2u);
}

TEST(VariableOrder, WordAlignedFirstInAGroup) {
  std::vector<OrderVar> V = {{1, 1}, {2, 2}, {1, 1}, {4, 2}};
  std::vector<std::vector<unsigned>> L = {{0, 1, 2, 3}};
  std::vector<unsigned> O = orderByLists(V, 4, L);
  EXPECT_EQ(O, (std::vector<unsigned>{1, 3, 0, 2}));
  EXPECT_EQ(countListRuns(V, O, L), 1u);
  // Odd-sized aligned ones (byte arrays placed word-aligned) after the even ones, before the
  // bytes: only the second odd one starts a run.
  V = {{1, 1}, {5, 2}, {1, 1}, {3, 2}, {2, 2}};
  L = {{0, 1, 2, 3, 4}};
  O = orderByLists(V, 5, L);
  EXPECT_EQ(O, (std::vector<unsigned>{4, 1, 3, 0, 2}));
  EXPECT_EQ(countListRuns(V, O, L), 2u);
}

TEST(VariableOrder, NeverWorseThanModuleOrderAndDeterministic) {
  std::mt19937 Rng(17);
  for (unsigned Case = 0; Case < 200; ++Case) {
    unsigned N = 1 + Rng() % 40, NL = 1 + Rng() % 12;
    std::vector<OrderVar> V;
    for (unsigned I = 0; I < N; ++I) {
      uint64_t Size = 1 + Rng() % 5;
      V.push_back({Size, Size >= 2 && Rng() % 2 ? 2u : 1u});
    }
    std::vector<std::vector<unsigned>> L(NL);
    for (auto &List : L) {
      for (unsigned I = 0; I < N; ++I)
        if (Rng() % 3 == 0)
          List.push_back(I);
    }
    unsigned Movable = N - Rng() % 2;
    std::vector<unsigned> O = orderByLists(V, Movable, L);
    ASSERT_TRUE(isPermutation(O, N));
    for (unsigned I = Movable; I < N; ++I)
      EXPECT_EQ(O[O.size() - (N - I)], I);
    EXPECT_LE(countListRuns(V, O, L), countListRuns(V, identity(N), L));
    EXPECT_EQ(O, orderByLists(V, Movable, L));
  }
}

} // namespace
