//===- ReplayLogTest.cpp - the lockstep replay log ------------------------===//
//
// Every record kind consumed in order; every divergence kind detected with its record
// number; the interrupt triggering cases (same count, nested, before an ENTRY, right after
// a reset, in the start window); skipped calls; mid-replay checkpoints (the armed rule);
// the end of the trace. Last, a differential test: a small program with a handler racing
// on a shared global is recorded through the real C runtime with seeded interrupt timing
// and replayed through the log; the replayed state must equal the recorded one at every
// checkpoint and at the violation.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "TraceMap.h"
#include "wsn/trace.h"

#include <random>

using namespace wsn;
using namespace wsn::test;
using llvm::ArrayRef;

namespace {

#define EXPECT_OK(E) EXPECT_EQ(errText(E), "<success>")
#define ASSERT_OK(E) ASSERT_EQ(errText(E), "<success>")

TEST(ReplayLog, EveryKindInOrder) {
  TraceWriter W = writer();
  W.entry(9); // before the start: not replayed
  W.checkpoint(1, {5, 6});
  W.entry(1);
  W.input(2, 1234);
  W.inputBytes(3, {1, 2, 3});
  W.sched(4);
  W.send(5, /*Dest=*/0, /*Seq=*/17);
  W.recv(6, /*Sender=*/3, /*Seq=*/8);
  W.skipBegin(7);
  W.skipEnd(7);
  W.effect(7, {0x34, 0x12});
  W.irq(1, 0);
  W.irqExit(1);
  W.exit(1);
  W.check(1, true, 0x1111);
  W.check(2, false, 0x2222);
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  EXPECT_EQ(L.state(), ReplayLog::State::BeforeStart);
  EXPECT_NE(errText(L.onEntry(1)).find("before taking the start checkpoint (anchor 1, record "
                                       "1"),
            std::string::npos);
  EXPECT_EQ(take(L.takeCheckpoint(1)), (ArrayRef<uint8_t>{5, 6}));
  EXPECT_OK(L.onEntry(1));
  EXPECT_EQ(take(L.takeInput(2)), 1234u);
  EXPECT_EQ(take(L.takeInputBytes(3, 3)), (ArrayRef<uint8_t>{1, 2, 3}));
  EXPECT_OK(L.onSched(4));
  EXPECT_OK(L.onSend(5, 0, 17));
  EXPECT_OK(L.onRecv(6, 3, 8));
  EXPECT_OK(L.onSkipBegin(7));
  EXPECT_OK(L.onSkipEnd(7));
  EXPECT_EQ(take(L.takeEffect(7)), (ArrayRef<uint8_t>{0x34, 0x12}));
  EXPECT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
  EXPECT_OK(L.onIrqEntry(1));
  EXPECT_EQ(L.depth(), 1u);
  EXPECT_OK(L.onIrqExit(1));
  EXPECT_EQ(L.depth(), 0u);
  EXPECT_OK(L.onExit(1));
  EXPECT_EQ(L.position(), 2u);
  EXPECT_EQ(take(L.onCheck(1, true, 0x1111)), false);
  EXPECT_EQ(take(L.onCheck(2, false, 0x2222)), true);
  EXPECT_EQ(L.state(), ReplayLog::State::StopReached);
  EXPECT_EQ(L.statusMessage(), "stop reached at record 15: VIOLATION inv=2 checksum=0x2222");
  Outcome O = outcome(L.onEntry(1));
  EXPECT_TRUE(O.End);
  EXPECT_EQ(O.Text, "stop reached at record 15: VIOLATION inv=2 checksum=0x2222");
  EXPECT_TRUE(L.warnings().empty());
}

/// A trace with one record of each kind after the checkpoint, for the divergence tests.
PreprocessedTrace divergenceTrace() {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);           // 1
  W.input(2, 7);        // 2
  W.inputBytes(3, {1}); // 3
  W.send(5, 0, 17);     // 4
  W.recv(6, 3, 8);      // 5
  W.sched(4);           // 6
  W.check(1, true, 0x1111); // 7
  W.effect(7, {1});     // 8
  return preprocess(W);
}

/// Runs the ops of divergenceTrace() in order up to record Upto (exclusive), then Bad.
Outcome divergeAt(size_t Upto, std::function<llvm::Error(ReplayLog &)> Bad) {
  static PreprocessedTrace P = divergenceTrace();
  ReplayLog L(P);
  llvm::cantFail(L.takeCheckpoint(1).takeError());
  std::vector<std::function<llvm::Error(ReplayLog &)>> Good = {
      [](ReplayLog &L) { return L.onEntry(1); },
      [](ReplayLog &L) { return L.takeInput(2).takeError(); },
      [](ReplayLog &L) { return L.takeInputBytes(3, 1).takeError(); },
      [](ReplayLog &L) { return L.onSend(5, 0, 17); },
      [](ReplayLog &L) { return L.onRecv(6, 3, 8); },
      [](ReplayLog &L) { return L.onSched(4); },
      [](ReplayLog &L) { return L.onCheck(1, true, 0x1111).takeError(); },
  };
  for (size_t I = 1; I < Upto; ++I)
    EXPECT_OK(Good[I - 1](L));
  Outcome O = outcome(Bad(L));
  // Once diverged, every later op repeats the divergence.
  if (O.Divergence)
    EXPECT_NE(errText(L.onEntry(1)).find("replay diverged"), std::string::npos);
  return O;
}

TEST(ReplayLog, EveryDivergenceKindNamesTheRecord) {
  struct Case {
    size_t Record;
    std::function<llvm::Error(ReplayLog &)> Bad;
    std::string Text;
  };
  std::vector<Case> Cases = {
      {1, [](ReplayLog &L) { return L.onEntry(2); },
       "expected ENTRY fid=1, executed wsn.func.entry fid=2"},
      {1, [](ReplayLog &L) { return L.onExit(1); },
       "expected ENTRY fid=1, executed wsn.func.exit fid=1"},
      {2, [](ReplayLog &L) { return L.takeInput(3).takeError(); },
       "expected INPUT site=2 value=7, executed wsn.input site=3"},
      {3, [](ReplayLog &L) { return L.takeInputBytes(3, 2).takeError(); },
       "expected INPUT_BYTES site=3 len=1, executed wsn.input.bytes site=3 len=2"},
      {4, [](ReplayLog &L) { return L.onSend(5, 0, 18); },
       "expected SEND site=5 seq=17 dest=0, executed wsn.send site=5 seq=18 dest=0"},
      {5, [](ReplayLog &L) { return L.onRecv(6, 4, 8); },
       "expected RECV site=6 sender=3 seq=8, executed wsn.recv site=6 sender=4 seq=8"},
      {6, [](ReplayLog &L) { return L.onSched(5); },
       "expected SCHED task=4, executed wsn.sched task=5"},
      {7, [](ReplayLog &L) { return L.onCheck(1, true, 0x1112).takeError(); },
       "expected CHECK inv=1 checksum=0x1111, executed wsn.check inv=1 ok=1 checksum=0x1112"},
      {7, [](ReplayLog &L) { return L.onCheck(1, false, 0x1111).takeError(); },
       "expected CHECK inv=1 checksum=0x1111, executed wsn.check inv=1 ok=0 checksum=0x1111"},
      {8, [](ReplayLog &L) { return L.takeEffect(8).takeError(); },
       "expected EFFECT site=7 len=1, executed wsn.effect site=8"},
      {2, [](ReplayLog &L) { return L.onIrqEntry(1); },
       "expected INPUT site=2 value=7, executed wsn.irq.entry irq=1"},
      {2, [](ReplayLog &L) { return L.onIrqExit(1); },
       "expected INPUT site=2 value=7, executed wsn.irq.exit irq=1 with no handler active"},
  };
  for (const Case &C : Cases) {
    Outcome O = divergeAt(C.Record, C.Bad);
    ASSERT_TRUE(O.Divergence) << C.Text << " / got: " << O.Text;
    EXPECT_EQ(O.Record, C.Record) << O.Text;
    EXPECT_NE(O.Text.find("replay diverged at record " + std::to_string(C.Record) +
                          " (offset "),
              std::string::npos)
        << O.Text;
    EXPECT_NE(O.Text.find(C.Text), std::string::npos) << O.Text;
  }
}

TEST(ReplayLog, InterruptsAtTheSameCount) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.irq(1, 2);
  W.irqExit(1);
  W.irq(2, 2); // a second interrupt before the context counts again
  W.irqExit(2);
  W.exit(1);
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  ASSERT_OK(L.onEntry(1));
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  ASSERT_OK(L.addCount(1));
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  ASSERT_OK(L.addCount(1));
  EXPECT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
  ASSERT_OK(L.onIrqEntry(1));
  EXPECT_EQ(L.count(), 0u);
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt); // handler 1 is at count 0, next is its exit
  ASSERT_OK(L.onIrqExit(1));
  EXPECT_EQ(L.count(), 2u);
  EXPECT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(2));
  ASSERT_OK(L.onIrqEntry(2));
  ASSERT_OK(L.onIrqExit(2));
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  ASSERT_OK(L.onExit(1));
}

TEST(ReplayLog, NestedInterrupts) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.irq(1, 1);
  W.irq(2, 0); // at the very start of handler 1 (its count was reset)
  W.irqExit(2);
  W.irq(3, 2); // later in handler 1, after two counted references
  W.irqExit(3);
  W.irqExit(1);
  W.exit(1);
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  ASSERT_OK(L.onEntry(1));
  ASSERT_OK(L.addCount(1));
  ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
  ASSERT_OK(L.onIrqEntry(1));
  ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(2));
  ASSERT_OK(L.onIrqEntry(2));
  EXPECT_EQ(L.depth(), 2u);
  ASSERT_OK(L.onIrqExit(2));
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  ASSERT_OK(L.addCount(2));
  ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(3));
  ASSERT_OK(L.onIrqEntry(3));
  ASSERT_OK(L.onIrqExit(3));
  EXPECT_EQ(L.count(), 2u); // handler 1's count restored
  ASSERT_OK(L.onIrqExit(1));
  EXPECT_EQ(L.count(), 1u); // the function's count restored
  ASSERT_OK(L.onExit(1));
  EXPECT_EQ(L.state(), ReplayLog::State::Running);
  EXPECT_TRUE(outcome(L.onEntry(1)).End);
}

TEST(ReplayLog, InterruptBeforeAFunctionsFirstEntryVersusRightAfterIt) {
  // Both interrupts have key count 0 in the same function instance of the thesis's
  // <function, instance, count>: the caller's count is 0 after EXIT g and ENTRY f resets
  // it to 0. The log position tells them apart.
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(2);
  W.exit(2);
  W.irq(1, 0); // before ENTRY 3, after the caller's reset by EXIT 2
  W.irqExit(1);
  W.entry(3);
  W.irq(2, 0); // right after ENTRY 3's reset
  W.irqExit(2);
  W.exit(3);
  PreprocessedTrace P = preprocess(W);
  ASSERT_EQ(P.Interrupts.size(), 2u);
  EXPECT_EQ(P.Interrupts[0].Position, 2u);
  EXPECT_EQ(P.Interrupts[1].Position, 3u);
  {
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    ASSERT_OK(L.onEntry(2));
    EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
    ASSERT_OK(L.onExit(2));
    ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
    ASSERT_OK(L.onIrqEntry(1));
    ASSERT_OK(L.onIrqExit(1));
    EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
    ASSERT_OK(L.onEntry(3));
    ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(2));
    ASSERT_OK(L.onIrqEntry(2));
    ASSERT_OK(L.onIrqExit(2));
    ASSERT_OK(L.onExit(3));
  }
  {
    // An engine that does not deliver the pending interrupt before calling f diverges.
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    ASSERT_OK(L.onEntry(2));
    ASSERT_OK(L.onExit(2));
    Outcome O = outcome(L.onEntry(3));
    ASSERT_TRUE(O.Divergence);
    EXPECT_EQ(O.Record, 3u);
    EXPECT_NE(O.Text.find("expected IRQ irq=1 count=0, executed wsn.func.entry fid=3"),
              std::string::npos)
        << O.Text;
  }
}

TEST(ReplayLog, CountingPastTheInterruptDiverges) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.irq(1, 3);
  W.irqExit(1);
  PreprocessedTrace P = preprocess(W);
  {
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    ASSERT_OK(L.onEntry(1));
    ASSERT_OK(L.addCount(2));
    Outcome O = outcome(L.addCount(2)); // 2 -> 4 jumps over the recorded count 3
    ASSERT_TRUE(O.Divergence);
    EXPECT_EQ(O.Record, 2u);
    EXPECT_NE(O.Text.find("expected IRQ irq=1 count=3, executed wsn.region.end n=2 taking the "
                          "count from 2 to 4"),
              std::string::npos)
        << O.Text;
  }
  {
    // A handler entered at the wrong count.
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    ASSERT_OK(L.onEntry(1));
    ASSERT_OK(L.addCount(1));
    Outcome O = outcome(L.onIrqEntry(1));
    ASSERT_TRUE(O.Divergence);
    EXPECT_NE(O.Text.find("expected IRQ irq=1 count=3, executed wsn.irq.entry irq=1 at count 1"),
              std::string::npos)
        << O.Text;
  }
}

TEST(ReplayLog, InterruptBetweenRecordsOfOneCountInterval) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.input(2, 10);
  W.irq(1, 0); // after the first input, before the second: no count update in between
  W.irqExit(1);
  W.input(2, 11);
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  ASSERT_OK(L.onEntry(1));
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  EXPECT_EQ(take(L.takeInput(2)), 10u);
  ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
  ASSERT_OK(L.onIrqEntry(1));
  ASSERT_OK(L.onIrqExit(1));
  EXPECT_EQ(take(L.takeInput(2)), 11u);
}

TEST(ReplayLog, InterruptInTheStartWindow) {
  // After the checkpoint and before the start context's first ENTRY/EXIT the recorded count
  // is relative to the count at the checkpoint, which the trace does not hold.
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.irq(1, 0);
  W.irqExit(1);
  W.irq(1, 2);
  W.irqExit(1);
  W.entry(1);
  W.irq(2, 0);
  W.irqExit(2);
  PreprocessedTrace P = preprocess(W);
  for (bool Resets : {false, true}) {
    ReplayLogOptions O;
    O.CheckpointResetsCount = Resets;
    ReplayLog L(P, O);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1)); // right at the start
    ASSERT_OK(L.onIrqEntry(1));
    ASSERT_OK(L.onIrqExit(1));
    ASSERT_OK(L.addCount(2));
    ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
    ASSERT_OK(L.onIrqEntry(1));
    ASSERT_OK(L.onIrqExit(1));
    ASSERT_OK(L.onEntry(1));
    ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(2));
    ASSERT_OK(L.onIrqEntry(2));
    // Count 0 in the window is exact (the base must have been 0); count 2 is not, unless
    // the recorder resets the count at checkpoints. After the first reset all is exact.
    if (Resets) {
      EXPECT_TRUE(L.warnings().empty());
    } else {
      ASSERT_EQ(L.warnings().size(), 1u);
      EXPECT_NE(L.warnings()[0].find("interrupt 1 at record 3"), std::string::npos)
          << L.warnings()[0];
    }
  }
}

TEST(ReplayLog, SkippedCallsSkipTheirRecords) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.skipBegin(5);
  W.entry(3); // an instrumented callback called by the uninstrumented callee
  W.skipBegin(6);
  W.skipEnd(6);
  W.exit(3);
  W.irq(1, 0); // a handler interrupting the callee
  W.irqExit(1);
  W.skipEnd(5);
  W.effect(5, {7, 7});
  W.irq(2, 0); // the callback's EXIT reset the caller's count: 0 here
  W.irqExit(2);
  W.exit(1);
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  ASSERT_OK(L.onEntry(1));
  ASSERT_OK(L.addCount(4));
  ASSERT_OK(L.onSkipBegin(5));
  EXPECT_EQ(L.next(), 9u);
  EXPECT_EQ(L.count(), 0u);
  ASSERT_OK(L.onSkipEnd(5));
  EXPECT_EQ(take(L.takeEffect(5)), (ArrayRef<uint8_t>{7, 7}));
  ASSERT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(2));
  ASSERT_OK(L.onIrqEntry(2));
  ASSERT_OK(L.onIrqExit(2));
  ASSERT_OK(L.onExit(1));
  // The callback's entry is a warning; the interrupt is replayed through the
  // site's effect (the instrumentation adds the handlers' writes to it).
  ASSERT_EQ(L.warnings().size(), 1u);
  EXPECT_NE(L.warnings()[0].find("instrumented function 3"), std::string::npos);
  EXPECT_EQ(L.skippedInterrupts(), 1u);
}

TEST(ReplayLog, EndOfTrace) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(1);
  W.input(2, 3);
  PreprocessedTrace P = preprocess(W);
  EXPECT_EQ(P.Coverage.Stop, StopKind::End);
  ReplayLog L(P);
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  ASSERT_OK(L.onEntry(1));
  EXPECT_EQ(take(L.takeInput(2)), 3u);
  EXPECT_EQ(L.state(), ReplayLog::State::Running);
  ASSERT_OK(L.addCount(5)); // no record needed
  Outcome O = outcome(L.onExit(1));
  ASSERT_TRUE(O.End);
  EXPECT_FALSE(O.Divergence);
  EXPECT_EQ(O.Text, "end of trace at record 3");
  EXPECT_EQ(L.state(), ReplayLog::State::EndOfTrace);
  EXPECT_EQ(L.statusMessage(), "end of trace at record 3");
  EXPECT_TRUE(outcome(L.takeInput(2)).End);
}

/// Records the program "for i: anchor; ENTRY 1; INPUT i; EXIT 1" (the anchor writes when
/// armed) and returns the trace.
PreprocessedTrace anchoredLoop(unsigned N, uint16_t Buf = 128, uint16_t Seg = 32) {
  TraceWriter W = writer(Buf, Seg);
  uint16_t State = 0;
  for (unsigned I = 0; I < N; ++I) {
    if (W.anchorArmed())
      W.checkpoint(1, {uint8_t(State), uint8_t(State >> 8)});
    W.entry(1);
    W.input(2, I);
    State += I;
    W.exit(1);
  }
  return preprocess(W);
}

TEST(ReplayLog, CheckpointsAfterTheStartFollowTheArmedRule) {
  PreprocessedTrace P = anchoredLoop(300);
  ASSERT_TRUE(P.Header.wrapped());
  ReplayLog L(P);
  ArrayRef<uint8_t> Start = take(L.takeCheckpoint(1));
  uint16_t State = Start[0] | Start[1] << 8;
  unsigned Taken = 0;
  for (;;) {
    auto R = L.onAnchor(1);
    if (!R) {
      Outcome O = outcome(R.takeError());
      ASSERT_TRUE(O.End) << O.Text;
      break;
    }
    if (*R) {
      ++Taken;
      ASSERT_OK(L.compareCheckpoint(**R, {uint8_t(State), uint8_t(State >> 8)}));
    }
    if (Outcome O = outcome(L.onEntry(1)); !O.Ok) {
      ASSERT_TRUE(O.End) << O.Text;
      break;
    }
    State += take(L.takeInput(2));
    ASSERT_OK(L.onExit(1));
  }
  EXPECT_EQ(Taken + 1, P.Data.Checkpoints.size());
  EXPECT_EQ(L.next(), P.Records.size());
}

TEST(ReplayLog, CheckpointMismatchNamesTheVariable) {
  PreprocessedTrace P = anchoredLoop(300);
  TraceMap M;
  TraceMap::Anchor A;
  A.Id = 1;
  A.Vars.push_back({true, "lo", 1, "uint8_t"});
  A.Vars.push_back({false, "hi", 1, "uint8_t"});
  M.Anchors.push_back(A);
  P.Map = &M;
  ReplayLog L(P);
  ArrayRef<uint8_t> Start = take(L.takeCheckpoint(1));
  uint16_t State = Start[0] | Start[1] << 8;
  for (;;) {
    const TraceRecord *R = take(L.onAnchor(1));
    if (R) {
      Outcome O = outcome(L.compareCheckpoint(*R, {uint8_t(State), uint8_t((State >> 8) + 1)}));
      ASSERT_TRUE(O.Divergence);
      EXPECT_EQ(O.Record, size_t(R - P.Records.data()));
      EXPECT_NE(O.Text.find("byte 1 (local hi+0) = 0x"), std::string::npos) << O.Text;
      break;
    }
    ASSERT_OK(L.onEntry(1));
    State += take(L.takeInput(2));
    ASSERT_OK(L.onExit(1));
  }
}

TEST(ReplayLog, MissingDueCheckpointDiverges) {
  PreprocessedTrace P = anchoredLoop(300);
  {
    // A replay that never visits the anchor meets the next recorded checkpoint.
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    Outcome O;
    for (int Iter = 0; Iter < 400 && O.Ok; ++Iter) {
      O = outcome(L.onEntry(1));
      if (O.Ok) {
        ASSERT_OK(L.takeInput(2).takeError());
        ASSERT_OK(L.onExit(1));
      }
    }
    ASSERT_TRUE(O.Divergence) << O.Text;
    EXPECT_EQ(P.Records[O.Record].Kind, RecordKind::Checkpoint);
    EXPECT_NE(O.Text.find("expected CHECKPOINT anchor=1 len=2, executed wsn.func.entry fid=1"),
              std::string::npos)
        << O.Text;
  }
  {
    // Another anchor visited where the writer was armed: that anchor would have written.
    ReplayLog L(P);
    ASSERT_OK(L.takeCheckpoint(1).takeError());
    Outcome O;
    for (int Iter = 0; Iter < 400 && O.Ok; ++Iter) {
      auto R2 = L.onAnchor(2);
      if (!R2) {
        O = outcome(R2.takeError());
        break;
      }
      ASSERT_EQ(*R2, nullptr);
      ASSERT_OK(L.onAnchor(1).takeError());
      ASSERT_OK(L.onEntry(1));
      ASSERT_OK(L.takeInput(2).takeError());
      ASSERT_OK(L.onExit(1));
    }
    ASSERT_TRUE(O.Divergence) << O.Text;
    EXPECT_NE(O.Text.find("expected CHECKPOINT anchor=1 len=2, executed wsn.anchor anchor=2 "
                          "(a new segment was entered: a checkpoint was due here)"),
              std::string::npos)
        << O.Text;
  }
}

//===----------------------------------------------------------------------===//
// Differential test against the real C runtime.
//===----------------------------------------------------------------------===//

/// The program's globals.
struct ProgState {
  uint16_t Shared = 1; ///< raced on by the handlers
  uint16_t Acc = 0;
  uint16_t Iter = 0, Limit = 0; ///< the violation happens at iteration Limit - 1
  std::vector<uint8_t> bytes() const {
    return {uint8_t(Shared), uint8_t(Shared >> 8), uint8_t(Acc),  uint8_t(Acc >> 8),
            uint8_t(Iter),   uint8_t(Iter >> 8),   uint8_t(Limit), uint8_t(Limit >> 8)};
  }
  void set(ArrayRef<uint8_t> B) {
    Shared = B[0] | B[1] << 8;
    Acc = B[2] | B[3] << 8;
    Iter = B[4] | B[5] << 8;
    Limit = B[6] | B[7] << 8;
  }
};

/// What the program's trace ops do, on the mote (record) or in replay.
struct Backend {
  virtual ~Backend() = default;
  virtual void anchor(ProgState &S) = 0;
  virtual void entry(uint16_t F) = 0;
  virtual void exit(uint16_t F) = 0;
  virtual void irqEntry(uint16_t I) = 0;
  virtual void irqExit(uint16_t I) = 0;
  virtual void regionEnd(uint16_t N) = 0;
  virtual uint32_t input(uint16_t Site, uint32_t Live) = 0;
  /// Returns true when the run must stop.
  virtual bool check(uint16_t Inv, bool Ok, uint16_t Crc) = 0;
  /// Where interrupts may be taken: after every trace op.
  virtual void interruptPoint(ProgState &S) = 0;
  bool Stop = false;
};

void handler(Backend &B, ProgState &S, uint16_t Irq);

/// f: two counted regions on Shared (the second with two references and one `+= 2`),
/// an input folded into Acc.
void progF(Backend &B, ProgState &S, uint32_t LiveInput) {
  B.entry(1);
  B.interruptPoint(S);
  uint16_t X = S.Shared;
  B.regionEnd(1);
  B.interruptPoint(S);
  S.Shared = uint16_t(X * 3 + 1);
  S.Shared ^= uint16_t(S.Shared >> 3);
  B.regionEnd(2);
  B.interruptPoint(S);
  S.Acc = uint16_t(S.Acc + B.input(1, LiveInput) + S.Shared);
  B.interruptPoint(S);
  B.exit(1);
  B.interruptPoint(S);
}

void handler(Backend &B, ProgState &S, uint16_t Irq) {
  B.irqEntry(Irq);
  B.interruptPoint(S); // a nested interrupt may come right away
  S.Shared = uint16_t(S.Shared + Irq * 5);
  B.regionEnd(1);
  B.interruptPoint(S);
  B.irqExit(Irq);
}

bool runProgram(Backend &B, ProgState &S, std::mt19937 *Inputs) {
  for (;;) {
    B.anchor(S);
    if (B.Stop)
      break;
    progF(B, S, Inputs ? (*Inputs)() & 0xFF : 0);
    if (B.Stop)
      break;
    bool Last = ++S.Iter == S.Limit;
    uint8_t Buf[2] = {uint8_t(S.Shared), uint8_t(S.Shared >> 8)};
    if (B.check(1, !Last, crc16(Buf)))
      return true;
    B.interruptPoint(S);
  }
  return B.Stop;
}

/// Recording through the real runtime; interrupts at seeded points, sometimes nested.
struct RecordBackend : Backend {
  std::mt19937 Rng;
  unsigned Depth = 0;
  explicit RecordBackend(unsigned Seed) : Rng(Seed) {}
  void anchor(ProgState &S) override {
    if (__wsn_rt_anchor_armed()) {
      std::vector<uint8_t> B = S.bytes();
      do {
        __wsn_rt_checkpoint_begin(1, B.size());
        __wsn_rt_put(B.data(), B.size());
      } while (__wsn_rt_record_end());
    }
  }
  void entry(uint16_t F) override { __wsn_rt_entry(F); }
  void exit(uint16_t F) override { __wsn_rt_exit(F); }
  void irqEntry(uint16_t I) override { __wsn_rt_irq_entry(I); }
  void irqExit(uint16_t I) override { __wsn_rt_irq_exit(I); }
  void regionEnd(uint16_t N) override { __wsn_gv_reference += N; }
  uint32_t input(uint16_t Site, uint32_t Live) override {
    __wsn_rt_input(Site, Live);
    return Live;
  }
  bool check(uint16_t Inv, bool Ok, uint16_t Crc) override {
    __wsn_rt_check(Inv, Ok, Crc);
    return !Ok;
  }
  void interruptPoint(ProgState &S) override {
    // Up to two interrupts in a row at the same point; nesting up to depth 2.
    for (int K = 0; K < 2 && Depth < 2; ++K) {
      if (Rng() % 4 != 0)
        return;
      ++Depth;
      handler(*this, S, uint16_t(1 + Rng() % 2));
      --Depth;
    }
  }
};

struct ReplayBackend : Backend {
  ReplayLog &L;
  std::string Failure;
  bool Started = false;
  explicit ReplayBackend(ReplayLog &L) : L(L) {}
  void fail(llvm::Error E) {
    if (!E)
      return;
    Outcome O = outcome(std::move(E));
    if (!O.End && Failure.empty())
      Failure = O.Text;
    Stop = true;
  }
  void anchor(ProgState &S) override {
    if (!Started) {
      Started = true;
      auto B = L.takeCheckpoint(1);
      if (!B)
        return fail(B.takeError());
      if (B->size() != 8)
        return fail(llvm::createStringError(llvm::inconvertibleErrorCode(), "bad checkpoint"));
      S.set(*B);
      interruptPoint(S);
      return;
    }
    auto R = L.onAnchor(1);
    if (!R)
      return fail(R.takeError());
    if (*R)
      fail(L.compareCheckpoint(**R, S.bytes()));
    interruptPoint(S);
  }
  void entry(uint16_t F) override { fail(L.onEntry(F)); }
  void exit(uint16_t F) override { fail(L.onExit(F)); }
  void irqEntry(uint16_t I) override { fail(L.onIrqEntry(I)); }
  void irqExit(uint16_t I) override { fail(L.onIrqExit(I)); }
  void regionEnd(uint16_t N) override { fail(L.addCount(N)); }
  uint32_t input(uint16_t Site, uint32_t) override {
    auto V = L.takeInput(Site);
    if (!V) {
      fail(V.takeError());
      return 0;
    }
    return *V;
  }
  bool check(uint16_t Inv, bool Ok, uint16_t Crc) override {
    auto R = L.onCheck(Inv, Ok, Crc);
    if (!R) {
      fail(R.takeError());
      return true;
    }
    return *R;
  }
  void interruptPoint(ProgState &S) override {
    while (!Stop)
      if (std::optional<uint32_t> I = L.pendingInterrupt())
        handler(*this, S, uint16_t(*I));
      else
        break;
  }
};

TEST(ReplayLog, DifferentialAgainstTheRealRuntime) {
  unsigned Replayed = 0, Interrupts = 0, Checkpoints = 0;
  for (unsigned Seed = 1; Seed <= 25; ++Seed) {
    __wsn_rt_reset();
    ProgState Rec;
    RecordBackend RB(Seed);
    std::mt19937 Inputs(Seed * 77);
    Rec.Limit = 20 + Seed * 7; // short runs (no wrap) up to several wraps
    ASSERT_TRUE(runProgram(RB, Rec, &Inputs));
    ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(&__wsn_trace),
                            WSN_TRACE_FILE_SIZE);
    auto F = TraceFile::parse(Bytes);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    PreprocessedTrace P = take(preprocessTrace(*F, {}));
    ASSERT_EQ(P.Coverage.Stop, StopKind::Violation);
    Interrupts += P.Interrupts.size();
    Checkpoints += P.Data.Checkpoints.size();

    ReplayLog L(P);
    ReplayBackend PB(L);
    ProgState Rep;
    runProgram(PB, Rep, nullptr);
    ASSERT_EQ(PB.Failure, "") << "seed " << Seed;
    ASSERT_EQ(L.state(), ReplayLog::State::StopReached) << "seed " << Seed;
    EXPECT_EQ(L.next(), P.Records.size());
    EXPECT_EQ(Rep.Shared, Rec.Shared) << "seed " << Seed;
    EXPECT_EQ(Rep.Acc, Rec.Acc) << "seed " << Seed;
    EXPECT_EQ(Rep.Iter, Rec.Iter) << "seed " << Seed;
    EXPECT_TRUE(L.warnings().empty()) << L.warnings().front();
    ++Replayed;
  }
  EXPECT_EQ(Replayed, 25u);
  EXPECT_GT(Interrupts, 100u);
  EXPECT_GT(Checkpoints, 25u);
  __wsn_rt_reset();
}

TEST(ReplayLog, DifferentialDetectsAWrongReplay) {
  // The same recording replayed by a program whose handler adds a different amount:
  // the divergence is reported (at a checkpoint or at the checksum), never silent.
  __wsn_rt_reset();
  ProgState Rec;
  RecordBackend RB(3);
  std::mt19937 Inputs(5);
  Rec.Limit = 200;
  ASSERT_TRUE(runProgram(RB, Rec, &Inputs));
  ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(&__wsn_trace),
                          WSN_TRACE_FILE_SIZE);
  PreprocessedTrace P = take(preprocessTrace(llvm::cantFail(TraceFile::parse(Bytes)), {}));
  ReplayLog L(P);
  ReplayBackend PB(L);
  ProgState Rep;
  Rep.Shared = 0;
  // Corrupt the state right after the start checkpoint is restored.
  PB.anchor(Rep);
  Rep.Shared ^= 0x40;
  runProgram(PB, Rep, nullptr);
  EXPECT_NE(PB.Failure.find("replay diverged at record "), std::string::npos) << PB.Failure;
  __wsn_rt_reset();
}

} // namespace

namespace {

TEST(ReplayLog, StartAtAnotherAnchorDiverges) {
  TraceWriter W = writer();
  W.checkpoint(3, {1});
  PreprocessedTrace P = preprocess(W);
  ReplayLog L(P);
  Outcome O = outcome(L.takeCheckpoint(4));
  ASSERT_TRUE(O.Divergence);
  EXPECT_EQ(O.Text, "replay diverged at record 0 (offset 32): expected CHECKPOINT anchor=3 "
                    "len=1, executed wsn.anchor (start) anchor=4");
  ReplayLog L2(P);
  ASSERT_EQ(errText(L2.takeCheckpoint(3).takeError()), "<success>");
  EXPECT_NE(errText(L2.takeCheckpoint(3).takeError()).find("the start checkpoint was already "
                                                           "taken"),
            std::string::npos);
}

} // namespace

namespace {
// The inline consumption of the lowered code (spec/replay-log.md section 2.7): the table
// says which records an op may consume without calling back, and the log and the inline
// code share one cursor.
TEST(ReplayLogInline, TableKeysCountsAndFlags) {
  using namespace wsn::replayabi;
  TraceWriter W = writer();
  W.checkpoint(1, {});  // 0: the start, always through the callback
  W.entry(1);           // 1: an interrupt at count 2 follows
  W.irq(1, 2);          // 2
  W.irqExit(1);         // 3
  W.exit(1);            // 4: an interrupt at count 0 follows: call back (the drain)
  W.irq(2, 0);          // 5
  W.irqExit(2);         // 6
  W.input(3, 77);       // 7
  W.entry(2);           // 8
  W.irq(1, 1);          // 9
  W.irqExit(1);         // 10
  W.exit(2);            // 11
  W.check(1, false, 0); // 12: the stop record
  PreprocessedTrace P = preprocess(W);
  ReplayFastTable T = buildFastTable(P);
  ASSERT_EQ(T.Recs.size(), P.Records.size() + 1);
  auto Key = [&](size_t I) { return T.Recs[I].Key; };
  EXPECT_EQ(Key(0), 0u);
  EXPECT_EQ(Key(1), fastKey(uint8_t(RecordKind::Entry), 1));
  EXPECT_EQ(T.Recs[1].IrqAt, 2u);
  EXPECT_EQ(Key(2), fastKey(uint8_t(RecordKind::Irq), 1));
  EXPECT_EQ(T.Recs[2].Val, 2u);
  EXPECT_EQ(T.Recs[2].Flags & ~FastAnchorQuiet, FastIrqDispatch | 1u << 8);
  EXPECT_EQ(Key(3), fastKey(uint8_t(RecordKind::IrqExit), 1));
  EXPECT_EQ(T.Recs[3].IrqAt, UINT32_MAX);
  EXPECT_EQ(Key(4), 0u);
  EXPECT_EQ(Key(7), fastKey(uint8_t(RecordKind::Input), 3));
  EXPECT_EQ(T.Recs[7].Val, 77u);
  EXPECT_EQ(T.Recs[8].IrqAt, 1u);
  EXPECT_EQ(Key(12), 0u);
  EXPECT_EQ(Key(13), 0u);
  // One segment, no checkpoint due: every anchor visit after the start is quiet.
  for (size_t I = 1; I <= 12; ++I)
    EXPECT_TRUE(T.Recs[I].Flags & FastAnchorQuiet) << I;
  // Own records: inside handler 1 (cursor at its IRQ_EXIT) the handler's IRQ; after it,
  // the function's ENTRY again.
  EXPECT_EQ(T.OwnAt[3], 2u);
  EXPECT_EQ(T.OwnAt[4], 1u);
  for (const FastRecord &Z : T.Zero)
    EXPECT_EQ(Z.Key, 0u);

  // The shared cursor: what inline code does is seen by the log and the other way round.
  ReplayLogOptions O;
  O.CheckpointResetsCount = true;
  ReplayCursor Cur{};
  ReplayLog L(P, O, &Cur, &T, /*Inline=*/true);
  EXPECT_EQ(Cur.Recs, T.Zero.data()); // not running yet: every inline test fails
  ASSERT_OK(L.takeCheckpoint(1).takeError());
  L.refreshInline();
  ASSERT_EQ(Cur.Recs, T.Recs.data());
  // Inline ENTRY, as the lowered code does it.
  const FastRecord &R1 = Cur.Recs[Cur.Next];
  ASSERT_EQ(R1.Key, fastKey(uint8_t(RecordKind::Entry), 1));
  Cur.Next++, Cur.Count = 0, Cur.IrqAt = R1.IrqAt;
  EXPECT_EQ(L.next(), 2u);
  EXPECT_EQ(L.position(), 1u);
  // A count update below IrqAt stays inline; the one reaching it calls back.
  Cur.Count += 1;
  EXPECT_EQ(L.pendingInterrupt(), std::nullopt);
  ASSERT_OK(L.addCount(1));
  EXPECT_EQ(L.pendingInterrupt(), std::optional<uint32_t>(1));
  ASSERT_OK(L.onIrqEntry(1));
  L.refreshInline();
  EXPECT_EQ(Cur.Depth, 1u);
  EXPECT_EQ(Cur.Saved[0], 2u);
  EXPECT_EQ(Cur.IrqAt, UINT32_MAX);
  ASSERT_OK(L.onIrqExit(1));
  EXPECT_EQ(L.count(), 2u);
  ASSERT_OK(L.onExit(1));
  L.refreshInline();
  EXPECT_EQ(Cur.IrqAt, 0u); // interrupt 2 is due at once: every count update calls back
  // Without inline consumption the cursor never leaves the zero table.
  ReplayCursor Off{};
  ReplayLog L2(P, O, &Off, &T, /*Inline=*/false);
  ASSERT_OK(L2.takeCheckpoint(1).takeError());
  L2.refreshInline();
  EXPECT_EQ(Off.Recs, T.Zero.data());
  EXPECT_EQ(Off.IrqAt, 0u);
}
// The callbacks' fast paths (peekFast/consumeFast/skipFast) consume exactly what the
// log's own methods consume, leave the same counts, and refuse what needs the log.
TEST(ReplayLogInline, FastPathsAgreeWithTheLog) {
  // 140 ENTRY/EXIT pairs fill a segment one byte each (no REPEAT, section 3.8).
  TraceWriter W = writer(/*Buf=*/2048, /*Seg=*/256, true, 0, 0, /*Repeat=*/false);
  W.checkpoint(1, {1, 2});  // 0: the start
  W.entry(1);               // 1
  W.skipBegin(5);           // 2: a clean span with a handler inside
  W.irq(1, 0);              // 3
  W.irqExit(1);             // 4
  W.skipEnd(5);             // 5
  W.effect(5, {9, 9});      // 6
  W.skipBegin(6);           // 7: an instrumented callback inside: the log walks it
  W.entry(3);               // 8
  W.exit(3);                // 9
  W.skipEnd(6);             // 10
  W.effect(6, {8});         // 11
  W.check(1, true, 0x1234); // 12
  for (int I = 0; I < 140; ++I) { // past the first segment: the writer is armed
    W.entry(2);
    W.exit(2);
  }
  W.checkpoint(1, {3, 4});
  W.entry(2);
  W.check(1, false, 0x4321); // the stop
  PreprocessedTrace P = preprocess(W);
  ReplayFastTable T = buildFastTable(P);
  ReplayLogOptions O;
  O.CheckpointResetsCount = true;
  replayabi::ReplayCursor Cur{};
  ReplayLog Fast(P, O, &Cur, &T, /*Inline=*/true);
  ReplayLog Slow(P, O);
  auto Same = [&](const char *Where) {
    EXPECT_EQ(Fast.next(), Slow.next()) << Where;
    EXPECT_EQ(Fast.count(), Slow.count()) << Where;
    EXPECT_EQ(Fast.skippedInterrupts(), Slow.skippedInterrupts()) << Where;
  };
  ASSERT_OK(Fast.takeCheckpoint(1).takeError());
  ASSERT_OK(Slow.takeCheckpoint(1).takeError());
  Fast.refreshInline();
  ASSERT_OK(Fast.onEntry(1));
  ASSERT_OK(Slow.onEntry(1));
  ASSERT_OK(Fast.addCount(3));
  ASSERT_OK(Slow.addCount(3));

  EXPECT_FALSE(Fast.peekFast(RecordKind::SkipBegin, 6)); // another site: no
  ASSERT_TRUE(Fast.skipFast(5));
  ASSERT_OK(Slow.onSkipBegin(5));
  Same("span 5");
  EXPECT_EQ(Fast.next(), 5u);
  EXPECT_EQ(Fast.count(), 3u); // no call back inside: the count stands
  ASSERT_TRUE(Fast.peekFast(RecordKind::SkipEnd, 5));
  Fast.consumeFast();
  ASSERT_OK(Slow.onSkipEnd(5));
  const TraceRecord *E = Fast.peekFast(RecordKind::Effect, 5);
  ASSERT_TRUE(E);
  EXPECT_EQ(ArrayRef<uint8_t>(E->Payload), (ArrayRef<uint8_t>{9, 9}));
  Fast.consumeFast();
  EXPECT_EQ(take(Slow.takeEffect(5)), (ArrayRef<uint8_t>{9, 9}));
  Same("effect 5");

  // The callback's ENTRY needs the log's warning: no fast path.
  EXPECT_FALSE(Fast.skipFast(6));
  EXPECT_EQ(Fast.next(), 7u); // unchanged
  ASSERT_OK(Fast.onSkipBegin(6));
  ASSERT_OK(Slow.onSkipBegin(6));
  Same("span 6");
  EXPECT_EQ(Fast.count(), 0u);
  EXPECT_EQ(Fast.warnings().size(), 1u);
  ASSERT_OK(Fast.onSkipEnd(6)); // the slow path and the fast one mix freely
  ASSERT_OK(Slow.onSkipEnd(6));
  ASSERT_TRUE(Fast.peekFast(RecordKind::Effect, 6));
  Fast.consumeFast();
  ASSERT_OK(Slow.takeEffect(6).takeError());

  const TraceRecord *C = Fast.peekFast(RecordKind::Check, 1);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Fields[1], 0x1234u);
  Fast.consumeFast();
  ASSERT_TRUE(take(Slow.onCheck(1, true, 0x1234)) == false);
  ASSERT_OK(Slow.addCount(1)); // the engine counts the check's reference
  Same("check");
  EXPECT_EQ(Fast.count(), 1u);

  for (int I = 0; I < 140; ++I) {
    ASSERT_OK(Fast.onEntry(2));
    ASSERT_OK(Slow.onEntry(2));
    ASSERT_OK(Fast.onExit(2));
    ASSERT_OK(Slow.onExit(2));
  }
  // The due checkpoint: consumed as onAnchor consumes it, and it becomes the last one,
  // so the next visit writes nothing (a stale last checkpoint would make it "due").
  const TraceRecord *K = Fast.peekFast(RecordKind::Checkpoint, 1);
  ASSERT_TRUE(K);
  EXPECT_EQ(ArrayRef<uint8_t>(K->Payload), (ArrayRef<uint8_t>{3, 4}));
  Fast.consumeFast();
  const TraceRecord *KS = take(Slow.onAnchor(1));
  ASSERT_TRUE(KS);
  Same("checkpoint");
  EXPECT_EQ(take(Fast.onAnchor(1)), nullptr);
  EXPECT_EQ(take(Slow.onAnchor(1)), nullptr);
  ASSERT_OK(Fast.onEntry(2));
  ASSERT_OK(Slow.onEntry(2));
  // The stop record is never keyed.
  EXPECT_FALSE(Fast.peekFast(RecordKind::Check, 1));
  EXPECT_TRUE(take(Fast.onCheck(1, false, 0x4321)));
  EXPECT_TRUE(take(Slow.onCheck(1, false, 0x4321)));
  Same("stop");
}
} // namespace
