//===- TraceTailTest.cpp - the bound-stop questions of wsn-sim's TraceTail ===//
//
// tools/wsn-sim/lib/TraceTail.h answers, for the trace read at a cycle bound,
// what bench/fidelity/tracetail.py answers from wsn-trace-dump's records: a
// header and a CHECKPOINT to start from, and whether the tail ends inside a
// skipped call, right after a CHECK (no record open) or inside a handler. lit
// wsn-sim/bound-moves.test compares the two on simulated traces; these are the
// cases one at a time, on traces from TraceWriter.
//
//===----------------------------------------------------------------------===//
#include "TraceTail.h"
#include "TestUtil.h"

using namespace llvm;
using namespace wsn;
using namespace wsn::sim;
using namespace wsn::test;

namespace {

TraceWriter started() {
  TraceWriter W = writer(256, 64);
  W.checkpoint(1, {0, 0});
  W.entry(1);
  W.exit(1);
  return W;
}

TEST(TraceTail, PlainTailIsReplayable) {
  TraceTail T = readTraceTail(started().bytes());
  EXPECT_TRUE(T.HasHeader);
  EXPECT_TRUE(T.Readable);
  EXPECT_TRUE(T.HasCheckpoint);
  EXPECT_FALSE(T.InSkippedCall || T.AtCheck || T.InHandler || T.ViolationFlag);
  EXPECT_TRUE(T.replayable());
}

TEST(TraceTail, NoCheckpoint) {
  TraceWriter W = writer(256, 64);
  W.entry(1);
  W.exit(1);
  TraceTail T = readTraceTail(W.bytes());
  EXPECT_TRUE(T.Readable);
  EXPECT_FALSE(T.HasCheckpoint);
  EXPECT_FALSE(T.replayable());
}

TEST(TraceTail, NoHeaderYet) {
  // What wsn-sim writes before the runtime's first record: the raw object, no "WTRB".
  std::vector<uint8_t> Raw(256 + 32 + 8, 0);
  TraceTail T = readTraceTail(Raw);
  EXPECT_FALSE(T.HasHeader);
  EXPECT_FALSE(T.Readable);
  EXPECT_TRUE(T.HasCheckpoint); // unreadable: left for replay to judge
  EXPECT_FALSE(T.replayable()); // but no header means nothing to start from
}

TEST(TraceTail, DamagedSegmentIsLeftToReplay) {
  std::vector<uint8_t> B = started().bytes();
  B[32 + 3] ^= 0x40; // inside the checkpoint's bytes: the segment's check value fails
  TraceTail T = readTraceTail(B);
  EXPECT_TRUE(T.HasHeader);
  EXPECT_FALSE(T.Readable);
  EXPECT_TRUE(T.HasCheckpoint);
  EXPECT_FALSE(T.InSkippedCall || T.AtCheck || T.InHandler);
}

TEST(TraceTail, InsideHandler) {
  TraceWriter W = started();
  W.irq(1, 0);
  W.input(1, 7);
  EXPECT_TRUE(readTraceTail(W.bytes()).InHandler);
  W.irqExit(1);
  EXPECT_FALSE(readTraceTail(W.bytes()).InHandler);
  W.irq(1, 0);
  W.irq(2, 0); // nested
  W.irqExit(2);
  EXPECT_TRUE(readTraceTail(W.bytes()).InHandler);
}

TEST(TraceTail, HandlerCountNeverBelowZero) {
  // A wrapped tail can keep an IRQ_EXIT whose IRQ was overwritten: that exit does not cancel
  // a later handler's IRQ.
  TraceWriter W = writer(256, 64);
  W.checkpoint(1, {0, 0});
  W.irqExit(1);
  W.irq(1, 0);
  EXPECT_TRUE(readTraceTail(W.bytes()).InHandler);
}

TEST(TraceTail, InsideSkippedCall) {
  TraceWriter W = started();
  W.skipBegin(3);
  W.entry(2);
  EXPECT_TRUE(readTraceTail(W.bytes()).InSkippedCall);
  // SKIP_END last: the EFFECT that follows it is torn or not begun.
  W.skipEnd(3);
  EXPECT_TRUE(readTraceTail(W.bytes()).InSkippedCall);
  W.effect(3, {1, 2, 3});
  EXPECT_FALSE(readTraceTail(W.bytes()).InSkippedCall);
}

TEST(TraceTail, RightAfterCheck) {
  TraceWriter W = started();
  W.check(1, true, 0x1234);
  std::vector<uint8_t> B = W.bytes();
  EXPECT_TRUE(readTraceTail(B).AtCheck);
  B[31] |= 0x80; // a record open after it (spec/trace-format.md section 1.1)
  EXPECT_FALSE(readTraceTail(B).AtCheck);
  W.entry(1);
  EXPECT_FALSE(readTraceTail(W.bytes()).AtCheck);
}

TEST(TraceTail, ViolationFlag) {
  TraceWriter W = started();
  W.check(1, false, 0x1234);
  EXPECT_TRUE(readTraceTail(W.bytes()).ViolationFlag);
}

} // namespace
