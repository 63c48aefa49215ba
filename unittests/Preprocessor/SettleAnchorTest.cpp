//===- SettleAnchorTest.cpp - wsn-sim --settle's anchor rule vs ReplayLog -===//
//
// wsn-sim --settle passes a CHECKPOINT the node writes after the bound when
// replay of the trace read at the bound runs past that anchor
// (tools/wsn-sim/lib/SettleAnchor.h). The rule must say what ReplayLog::onAnchor
// does at the end of the trace (spec/replay-log.md section 2.4): no checkpoint
// and go on when only a handler's records armed the writer since main's own
// last record; end at the anchor when main's own records armed it.
//
//===----------------------------------------------------------------------===//
#include "SettleAnchor.h"
#include "TestUtil.h"

using namespace llvm;
using namespace wsn;
using namespace wsn::test;

namespace {

/// A checkpoint, K ENTRY/EXIT pairs of main, then (with Irq) one handler with four
/// INPUT records.
TraceWriter build(unsigned K, bool Irq) {
  // ENTRY/EXIT pairs fill the segments one byte each (no REPEAT): K moves the boundary.
  TraceWriter W = writer(128, 32, true, 0, 0, /*Repeat=*/false);
  W.checkpoint(1, {0, 0});
  for (unsigned I = 0; I < K; ++I) {
    W.entry(1);
    W.exit(1);
  }
  if (Irq) {
    W.irq(1, 0);
    for (unsigned I = 0; I < 4; ++I)
      W.input(2, 1000 + I);
    W.irqExit(1);
  }
  return W;
}

/// Replays the records of build(K, Irq) and returns what onAnchor says at the end.
Outcome anchorAtEnd(const TraceWriter &W, unsigned K, bool Irq, bool &NoCheckpoint) {
  PreprocessedTrace P = preprocess(W);
  ReplayLogOptions O;
  O.CheckpointResetsCount = true;
  ReplayLog L(P, O);
  EXPECT_TRUE(bool(L.takeCheckpoint(1)));
  for (unsigned I = 0; I < K; ++I) {
    EXPECT_FALSE(bool(L.onEntry(1)));
    EXPECT_FALSE(bool(L.onExit(1)));
  }
  if (Irq) {
    EXPECT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
    EXPECT_FALSE(bool(L.onIrqEntry(1)));
    for (unsigned I = 0; I < 4; ++I)
      EXPECT_EQ(take(L.takeInput(2)), 1000 + I);
    EXPECT_FALSE(bool(L.onIrqExit(1)));
  }
  auto R = L.onAnchor(1);
  NoCheckpoint = R && *R == nullptr;
  return outcome(R ? Error::success() : R.takeError());
}

TEST(SettleAnchor, HandlerArmedWriterReplayRunsPast) {
  // The handler's records cross the segment boundary after main's last record.
  unsigned K = 0;
  for (; K < 16; ++K)
    if (!build(K + 1, false).anchorArmed() && build(K, true).anchorArmed() &&
        !build(K, false).anchorArmed())
      break;
  ASSERT_LT(K, 16u);
  TraceWriter W = build(K, true);
  bool NoCheckpoint = false;
  Outcome O = anchorAtEnd(W, K, true, NoCheckpoint);
  ASSERT_TRUE(O.Ok) << O.Text;
  EXPECT_TRUE(NoCheckpoint); // replay goes on past the anchor
  EXPECT_TRUE(sim::replayRunsPastAnchor(W.bytes()));
}

TEST(SettleAnchor, MainArmedWriterReplayEndsAtTheAnchor) {
  // Main's own records cross the boundary: the recorder wrote a checkpoint at the next
  // anchor for sure, and replay ends there.
  unsigned K = 1;
  while (!build(K, false).anchorArmed())
    ++K;
  TraceWriter W = build(K, false);
  bool NoCheckpoint = false;
  Outcome O = anchorAtEnd(W, K, false, NoCheckpoint);
  EXPECT_TRUE(O.End) << O.Text;
  EXPECT_FALSE(sim::replayRunsPastAnchor(W.bytes()));
}

TEST(SettleAnchor, UnarmedWriterWritesNoCheckpoint) {
  TraceWriter W = build(1, true);
  ASSERT_FALSE(W.anchorArmed());
  bool NoCheckpoint = false;
  Outcome O = anchorAtEnd(W, 1, true, NoCheckpoint);
  ASSERT_TRUE(O.Ok) << O.Text;
  EXPECT_TRUE(NoCheckpoint);
  // No checkpoint can open next, and the rule does not claim one would be passed.
  EXPECT_FALSE(sim::replayRunsPastAnchor(W.bytes()));
}

TEST(SettleAnchor, NotATraceIsNoClaim) {
  EXPECT_FALSE(sim::replayRunsPastAnchor({}));
  std::vector<uint8_t> Junk(64, 0xAB);
  EXPECT_FALSE(sim::replayRunsPastAnchor(Junk));
}

} // namespace
