//===- PreprocessorTest.cpp - the replay preprocessor (thesis 4.2) --------===//
//
// Start point after wrapping, the missing-checkpoint and wrong-hash errors, the span report,
// the data section and interrupt table, trace-map checks, and the same results on a trace
// written by the real C runtime.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "TraceMap.h"
#include "wsn/trace.h"

#include <cstdlib>

using namespace wsn;
using namespace wsn::test;

// The instrumented module's hash as the real runtime will record it.
extern "C" const uint32_t __wsn_module_hash = 0xC0FFEE42u;

namespace {

// The host runtime writes trace.wtr at a violation unless WSN_TRACE_OUT is set and empty.
struct NoAutoTraceFile {
  NoAutoTraceFile() { setenv("WSN_TRACE_OUT", "", 1); }
} NoAutoTraceFileInstance;

TEST(Preprocessor, SpanReportDataSectionAndInterruptTable) {
  TraceWriter W = writer();
  W.entry(100); // before the first checkpoint? No: the writer is armed from the start, but
                // no anchor was reached yet, so this record precedes the checkpoint.
  W.checkpoint(7, {1, 2, 3});
  W.entry(2);
  W.input(3, 42);
  W.irq(1, 0);
  W.sched(4);
  W.irqExit(1);
  W.inputBytes(5, {9, 8});
  W.skipBegin(6);
  W.skipEnd(6);
  W.effect(6, {0xAA});
  W.exit(2);
  W.irq(2, 3);
  W.irqExit(2);
  W.check(1, true, 0x1234);
  PreprocessedTrace P = preprocess(W);
  ASSERT_EQ(P.Records.size(), 15u);
  EXPECT_EQ(P.Start, 1u);
  EXPECT_EQ(P.StartAnchor, 7u);
  const TraceCoverage &C = P.Coverage;
  EXPECT_EQ(C.TotalRecords, 15u);
  EXPECT_EQ(C.DroppedRecords, 1u);
  EXPECT_EQ(C.DroppedBytes, 2u); // ENTRY 100 = tag + one varint byte (a fid over 46)
  EXPECT_EQ(C.ReplayRecords, 14u);
  EXPECT_EQ(C.ReplayBytes + C.DroppedBytes, C.TotalBytes);
  EXPECT_EQ(C.Stop, StopKind::LastCheck);
  EXPECT_EQ(C.StopRecord, 14u);
  EXPECT_FALSE(C.Wrapped);
  EXPECT_EQ(C.SegmentsRetained, 1u);
  EXPECT_EQ(C.NumSegments, 4u);
  ASSERT_EQ(P.Data.Checkpoints.size(), 1u);
  EXPECT_EQ(P.Data.Checkpoints[0].Bytes, (std::vector<uint8_t>{1, 2, 3}));
  ASSERT_EQ(P.Data.Inputs.size(), 2u);
  EXPECT_EQ(P.Data.Inputs[0].Value, 42u);
  EXPECT_EQ(P.Data.Inputs[1].Kind, RecordKind::InputBytes);
  EXPECT_EQ(P.Data.Inputs[1].Bytes, (std::vector<uint8_t>{9, 8}));
  ASSERT_EQ(P.Data.Effects.size(), 1u);
  ASSERT_EQ(P.Data.Scheds.size(), 1u);
  EXPECT_EQ(P.Data.Scheds[0].Id, 4u);
  // Positions count ENTRY/EXIT from the start checkpoint: the ENTRY 1 before it is not counted.
  ASSERT_EQ(P.Interrupts.size(), 2u);
  EXPECT_EQ(P.Interrupts[0], (InterruptEntry{4, 1, 1, 0, 0}));
  EXPECT_EQ(P.Interrupts[1], (InterruptEntry{12, 2, 2, 3, 0}));

  std::string Report;
  llvm::raw_string_ostream OS(Report);
  printPreprocessReport(OS, P);
  EXPECT_NE(Report.find("start: checkpoint of anchor 7 at record 1 (offset 34)"),
            std::string::npos)
      << Report;
  EXPECT_NE(Report.find("stop: last check at record 14"), std::string::npos) << Report;
  EXPECT_NE(Report.find("1 records (2 bytes) before it are not replayed"), std::string::npos)
      << Report;
  EXPECT_NE(Report.find("irq 2 at position 2, count 3, depth 0 (record 12)"),
            std::string::npos)
      << Report;
}

TEST(Preprocessor, NestedInterruptDepthAndViolationStop) {
  TraceWriter W = writer(1024, 256, /*BlackBox=*/false);
  W.checkpoint(1, {});
  W.entry(1);
  W.irq(1, 2);
  W.irq(2, 0); // nested in handler 1
  W.irqExit(2);
  W.irqExit(1);
  W.check(3, false, 0xBEEF);
  W.entry(4); // not black box: records after the violation are kept and ignored
  PreprocessedTrace P = preprocess(W);
  EXPECT_EQ(P.Coverage.Stop, StopKind::Violation);
  EXPECT_EQ(P.Coverage.StopRecord, 6u);
  EXPECT_EQ(P.Coverage.RecordsAfterStop, 1u);
  ASSERT_EQ(P.Interrupts.size(), 2u);
  EXPECT_EQ(P.Interrupts[1].Depth, 1u);
  EXPECT_EQ(P.Interrupts[1].Position, 1u);
}

TEST(Preprocessor, NoCheckpointIsAnError) {
  TraceWriter W = writer();
  W.entry(1);
  W.input(2, 5);
  W.exit(1);
  auto F = llvm::cantFail(TraceFile::parse(W.bytes()));
  PreprocessOptions O;
  O.TraceName = "t.wtr";
  std::string E = errText(preprocessTrace(F, O));
  EXPECT_NE(E.find("t.wtr: trace has no checkpoint (3 records"), std::string::npos) << E;
}

TEST(Preprocessor, WrongModuleHashNamesBothHashes) {
  TraceWriter W = writer(1024, 256, true, /*Hash=*/0x1234);
  W.checkpoint(1, {});
  auto F = llvm::cantFail(TraceFile::parse(W.bytes()));
  TraceMap M;
  M.ModuleHash = 0xABCD0001;
  PreprocessOptions O;
  O.Map = &M;
  O.TraceName = "t.wtr";
  O.ProgramName = "fw.replay.bc";
  std::string E = errText(preprocessTrace(F, O));
  EXPECT_NE(E.find("t.wtr: recorded by module 0x00001234, but the trace map of fw.replay.bc "
                   "has module hash 0xabcd0001"),
            std::string::npos)
      << E;
  PreprocessOptions O2;
  O2.ProgramHash = 0x99;
  E = errText(preprocessTrace(F, O2));
  EXPECT_NE(E.find("recorded by module 0x00001234, but program has module hash 0x00000099"),
            std::string::npos)
      << E;
  O2.ProgramHash = 0x1234;
  EXPECT_EQ(errText(preprocessTrace(F, O2)), "<success>");
}

TraceMap smallMap(uint32_t Hash) {
  TraceMap M;
  M.ModuleHash = Hash;
  M.Target = "host"; // as writer(): target 0, 1024-byte ring in 256-byte segments
  M.BufSize = 1024;
  M.SegSize = 256;
  M.Functions.push_back({1, "f", "", 0});
  M.Irqs.push_back({1, "h", 5, "TIMER"});
  TraceMap::Site S;
  S.Id = 2;
  S.Kind = "input";
  S.Function = "f";
  M.Sites.push_back(S);
  TraceMap::Anchor A;
  A.Id = 1;
  A.Function = "main";
  A.Vars.push_back({true, "counter", 2, "uint16_t"});
  A.Vars.push_back({false, "i", 1, "uint8_t"});
  M.Anchors.push_back(A);
  M.Invariants.push_back({1, "inv", {}});
  M.sort();
  return M;
}

TEST(Preprocessor, TraceMapChecksNameRecordAndOffset) {
  TraceMap M = smallMap(7);
  {
    TraceWriter W = writer(1024, 256, true, 7);
    W.checkpoint(1, {1, 2, 3});
    W.entry(1);
    W.input(2, 1);
    W.exit(1);
    W.check(1, true, 0);
    PreprocessOptions O;
    O.Map = &M;
    EXPECT_EQ(errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), O)),
              "<success>");
  }
  {
    TraceWriter W = writer(1024, 256, true, 7);
    W.checkpoint(1, {1, 2, 3});
    W.entry(9);
    PreprocessOptions O;
    O.Map = &M;
    std::string E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), O));
    EXPECT_NE(E.find("record 1 (offset 38): ENTRY fid=9: function 9 is not in the trace map"),
              std::string::npos)
        << E;
  }
  {
    TraceWriter W = writer(1024, 256, true, 7);
    W.checkpoint(1, {1, 2});
    PreprocessOptions O;
    O.Map = &M;
    std::string E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), O));
    EXPECT_NE(E.find("checkpoint holds 2 bytes, the trace map's anchor 1 has 3"),
              std::string::npos)
        << E;
  }
  {
    // Read from a file, the map is named with the entry (issue 21: a layout mismatch
    // names the map file and entry as well as the trace record).
    TraceWriter W = writer(1024, 256, true, 7);
    W.checkpoint(1, {1, 2});
    PreprocessOptions O;
    O.Map = &M;
    O.TraceName = "t.wtr";
    O.MapName = "fw.wmap";
    std::string E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), O));
    EXPECT_EQ(E.rfind("t.wtr: record 0 (offset 32): CHECKPOINT anchor=1 len=2: checkpoint "
                      "holds 2 bytes, fw.wmap: anchors[0] (anchor 1) has 3",
                      0),
              0u)
        << E;
  }
  {
    TraceWriter W = writer(1024, 256, true, 7);
    W.checkpoint(1, {1, 2, 3});
    W.inputBytes(2, {1});
    PreprocessOptions O;
    O.Map = &M;
    std::string E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), O));
    EXPECT_NE(E.find("site 2 is a 'input' site in the trace map"), std::string::npos) << E;
  }
}

/// The file with a header field replaced (offsets of spec/trace-format.md 1).
std::vector<uint8_t> withField(std::vector<uint8_t> B, unsigned Offset, unsigned Size,
                               uint32_t V) {
  for (unsigned I = 0; I < Size; ++I)
    B[Offset + I] = uint8_t(V >> (8 * I));
  return B;
}

/// B with its segments' check values recomputed (trace-format.md 1.2): records that disagree
/// with the header while every segment is intact, i.e. what the runtime itself wrote.
std::vector<uint8_t> sealed(std::vector<uint8_t> B) {
  llvm::cantFail(resealTrace(B));
  return B;
}

std::string preprocessBytes(const std::vector<uint8_t> &B, const TraceMap *M = nullptr) {
  auto F = TraceFile::parse(B);
  if (!F)
    return "parse: " + llvm::toString(F.takeError());
  PreprocessOptions O;
  O.Map = M;
  return errText(preprocessTrace(*F, O));
}

TEST(Preprocessor, HeaderPromisesMustBeInTheRecords) {
  // Issue 21: a header that says "violation of invariant 1, frozen" over
  // records that do not hold it replayed to "reproduced".
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.check(1, true, 0);
  W.check(1, false, 0); // the violation: 4 bytes, the last record; frozen
  std::vector<uint8_t> Good = W.bytes();
  EXPECT_EQ(preprocessBytes(Good), "<success>");
  uint16_t Head = Good[16] | Good[17] << 8;

  // Cut off (head moved back over it) or overwritten by PAD.
  std::string Cut = preprocessBytes(sealed(withField(Good, 16, 2, Head - 4)));
  EXPECT_NE(Cut.find("the header says the trace froze at the violation of invariant 1, but "
                     "its last record is record 1 (offset "),
            std::string::npos)
      << Cut;
  EXPECT_NE(Cut.find("CHECK inv=1 checksum=0x0: the violation record is cut off or "
                     "overwritten; the trace is damaged"),
            std::string::npos)
      << Cut;
  std::vector<uint8_t> Padded = Good;
  Padded[32 + Head - 4] = 0;
  EXPECT_NE(preprocessBytes(sealed(Padded)).find("the violation record is cut off"),
            std::string::npos);
  // Not resealed, the segment's check value finds the change first.
  EXPECT_NE(preprocessBytes(Padded).find("is damaged: its check value"), std::string::npos);
  EXPECT_NE(preprocessBytes(withField(Good, 16, 2, Head - 4)).find("is damaged"),
            std::string::npos);

  // Another invariant in the header than in the record.
  EXPECT_NE(preprocessBytes(withField(Good, 28, 2, 2))
                .find("VIOLATION inv=1 checksum=0x0: the first violation is of invariant 1, "
                      "but the header records invariant 2"),
            std::string::npos);
  // A violation record the header does not know (flags 0, violation 0xFFFF).
  EXPECT_NE(preprocessBytes(withField(withField(Good, 18, 2, 0), 28, 2, 0xFFFF))
                .find("VIOLATION inv=1 checksum=0x0: a violation record, but the header "
                      "records no violation (flags 0x0)"),
            std::string::npos);

  // The check counter: 2 checks; 3 or 4000000000 are damage, and so is 0.
  EXPECT_EQ(preprocessBytes(withField(Good, 24, 4, 3)),
            "trace: offset 24: the header counts 3 check(s) since reset, but the unwrapped "
            "trace holds 2 check records: the trace is damaged");
  EXPECT_NE(preprocessBytes(withField(Good, 24, 4, 4000000000u)).find("4000000000"),
            std::string::npos);
  EXPECT_EQ(preprocessBytes(withField(Good, 24, 4, 0)),
            "trace: offset 24: the header counts 0 check(s), but the retained records hold "
            "2: the trace is damaged");
}

TEST(Preprocessor, CheckCountToleratesATornReadAndBoundsWrappedTraces) {
  // The runtime writes CHECK, then counts it: a trace read in between (wsn-sim
  // at its cycle bound, interrupts off) has one record more than the count.
  TraceWriter W = writer(1024, 256, /*BlackBox=*/false);
  W.checkpoint(1, {});
  W.check(1, true, 0);
  W.check(1, true, 0);
  std::vector<uint8_t> B = W.bytes();
  EXPECT_EQ(preprocessBytes(B), "<success>");
  EXPECT_EQ(preprocessBytes(withField(B, 24, 4, 1)), "<success>");
  EXPECT_NE(preprocessBytes(withField(B, 24, 4, 0)).find("offset 24"), std::string::npos);

  // Wrapped: the counter may exceed the records (earlier laps), but not by
  // more than one check per 4 bytes of (wraps + 1) rings.
  TraceWriter R = writer(64, 32, /*BlackBox=*/false);
  for (int I = 0; I < 100; ++I) {
    if (R.anchorArmed())
      R.checkpoint(1, {});
    R.check(1, true, 0);
  }
  std::vector<uint8_t> Wr = R.bytes();
  ASSERT_TRUE(R.header().wrapped());
  EXPECT_EQ(preprocessBytes(Wr), "<success>");
  EXPECT_EQ(R.header().Checks, 100u);
  std::string E = preprocessBytes(withField(Wr, 24, 4, 4000000000u));
  EXPECT_NE(E.find("offset 24: the header counts 4000000000 check(s), more than the "),
            std::string::npos)
      << E;
}

TEST(Preprocessor, OpenRecordThatDroppedSegmentZeroLostItsChecks) {
  // First lap, head in the last segment, and a record opened that went on to segment 0
  // (PAD at the saved head) and began to overwrite it: the decoder drops segment 0
  // (spec/trace-format.md 1.1), and with it checks the header still counts. Not damage
  // (blink on msp430f1611 stopped at a cycle bound: 15 counted, 11 retained).
  TraceWriter W = writer(64, 16, /*BlackBox=*/false);
  while (W.header().Head < 48 || W.header().Head > 58) {
    if (W.anchorArmed())
      W.checkpoint(1, {});
    W.check(1, true, 0);
  }
  ASSERT_FALSE(W.header().wrapped());
  std::vector<uint8_t> B = W.bytes();
  uint16_t Head = W.header().Head;
  B[30] = uint8_t(Head);
  B[31] = uint8_t((Head >> 8) | 0x80); // open, with the head before the record
  B[32 + Head] = 0;                    // the PAD: the record goes on to segment 0
  B[32] = 0xA5;                        // and has begun to overwrite it
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(F->droppedOpenSegment(), 0);
  EXPECT_EQ(preprocessBytes(B), "<success>");
  // Without the dropped segment (the record fits: no PAD) the count is exact again.
  std::vector<uint8_t> Kept = B;
  Kept[32 + Head] = 0xA5;
  Kept[32] = W.bytes()[32];
  EXPECT_NE(preprocessBytes(withField(Kept, 24, 4, W.header().Checks + 5))
                .find("unwrapped trace holds"),
            std::string::npos);
}

TEST(Preprocessor, HeaderMustMatchTheMapsBuild) {
  TraceMap M = smallMap(7);
  TraceWriter W = writer(1024, 256, true, 7);
  W.checkpoint(1, {1, 2, 3});
  W.check(1, false, 0);
  std::vector<uint8_t> Good = W.bytes();
  EXPECT_EQ(preprocessBytes(Good, &M), "<success>");
  EXPECT_EQ(preprocessBytes(withField(Good, 5, 1, 2), &M),
            "trace: offset 5: the header's target is msp430, but the trace map of program is "
            "for host: the trace does not belong to this program");
  TraceMap Smaller = M;
  Smaller.BufSize = 512;
  EXPECT_EQ(preprocessBytes(Good, &Smaller),
            "trace: offset 12: the header's ring is 1024 bytes in 256-byte segments, but "
            "program was built with 512 in 256: the trace does not belong to this program");
  EXPECT_EQ(preprocessBytes(withField(Good, 28, 2, 777), &M),
            "trace: offset 28: the header records a violation of invariant 777, which is not "
            "in the trace map of program");
}

TEST(Preprocessor, BadNestingIsAnError) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.irq(1, 0);
  W.irqExit(2);
  std::string E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W.bytes())), {}));
  EXPECT_NE(E.find("record 2 (offset "), std::string::npos) << E;
  EXPECT_NE(E.find("IRQ_EXIT irq=2: does not close the innermost open IRQ 1 (record 1"),
            std::string::npos)
      << E;
  TraceWriter W2 = writer();
  W2.checkpoint(1, {});
  W2.skipEnd(3);
  E = errText(preprocessTrace(llvm::cantFail(TraceFile::parse(W2.bytes())), {}));
  EXPECT_NE(E.find("SKIP_END site=3: no matching SKIP_BEGIN after the start checkpoint"),
            std::string::npos)
      << E;
}

/// A program loop as the record lowering would write it: the anchor writes a checkpoint
/// when armed (the runtime's rule), then a few records.
void loopIterations(TraceWriter &W, unsigned From, unsigned To, bool Anchor = true) {
  for (unsigned I = From; I < To; ++I) {
    if (Anchor && W.anchorArmed())
      W.checkpoint(1, {uint8_t(I), uint8_t(I >> 8)});
    W.entry(1);
    W.input(2, I);
    W.exit(1);
  }
}

TEST(Preprocessor, EarliestCheckpointAfterWrap) {
  TraceWriter W = writer(128, 32);
  loopIterations(W, 0, 200);
  auto F = llvm::cantFail(TraceFile::parse(W.bytes()));
  ASSERT_TRUE(F.header().wrapped());
  PreprocessedTrace P = take(preprocessTrace(F, {}));
  // The start is the first checkpoint of the retained tail, in its first segment.
  EXPECT_EQ(P.Records[P.Start].Segment, F.tail().front().Segment);
  for (size_t I = 0; I < P.Start; ++I)
    EXPECT_NE(P.Records[I].Kind, RecordKind::Checkpoint);
  // Its iteration is the one right after the oldest retained INPUT's (if any precedes it).
  unsigned Iter = P.Records[P.Start].Payload[0] | P.Records[P.Start].Payload[1] << 8;
  for (size_t I = P.Start + 1; I < P.Records.size(); ++I)
    if (P.Records[I].Kind == RecordKind::Input) {
      EXPECT_EQ(P.Records[I].Fields[1], Iter);
      break;
    }
  EXPECT_TRUE(P.Coverage.Wrapped);
  EXPECT_EQ(P.Coverage.Wraps, F.header().Wraps);
  EXPECT_EQ(P.Coverage.StaleBytes, F.staleBytes());
  EXPECT_EQ(P.Coverage.SegmentsRetained, 4u);
  EXPECT_EQ(P.Coverage.Stop, StopKind::End);
  EXPECT_EQ(P.Coverage.StopRecord, P.Records.size() - 1);
  EXPECT_EQ(P.Data.Checkpoints.size(), size_t(std::count_if(
                                           P.Records.begin() + P.Start, P.Records.end(),
                                           [](const TraceRecord &R) {
                                             return R.Kind == RecordKind::Checkpoint;
                                           })));
}

TEST(Preprocessor, FirstRetainedSegmentWithoutAnchorStartsLater) {
  // A long stretch without anchor visits fills whole segments; the earliest checkpoint is
  // then in a later segment and everything before it is reported as dropped.
  TraceWriter W = writer(128, 32);
  loopIterations(W, 0, 40);
  loopIterations(W, 40, 50, /*Anchor=*/false); // > 1 segment of records, no checkpoint
  loopIterations(W, 50, 60);
  auto F = llvm::cantFail(TraceFile::parse(W.bytes()));
  PreprocessedTrace P = take(preprocessTrace(F, {}));
  EXPECT_NE(P.Records[P.Start].Segment, F.tail().front().Segment);
  EXPECT_EQ(P.Records[P.Start].Payload[0], 50u);
  EXPECT_GT(P.Coverage.DroppedRecords, 0u);
  EXPECT_EQ(P.Coverage.DroppedBytes, P.Records[P.Start].LinearOffset);
}

TEST(Preprocessor, RealRuntimeTrace) {
  // The same calls through the C runtime (host build) and through TraceWriter preprocess
  // to the same start, stop, data section and interrupt table.
  __wsn_rt_reset();
  TraceWriter::Options WO;
  WO.ModuleHash = __wsn_module_hash;
  TraceWriter W = llvm::cantFail(TraceWriter::create(WO));
  for (unsigned I = 0; I < 250; ++I) { // enough to wrap the 1 KiB ring (format 7's sizes)
    if (__wsn_rt_anchor_armed()) {
      uint16_t V = I;
      do {
        __wsn_rt_checkpoint_begin(1, 2);
        __wsn_rt_put(&V, 2);
      } while (__wsn_rt_record_end());
    }
    if (W.anchorArmed())
      W.checkpoint(1, {uint8_t(I), uint8_t(I >> 8)});
    __wsn_rt_entry(1);
    W.entry(1);
    __wsn_gv_reference += 2;
    if (I % 3 == 0) {
      __wsn_rt_irq_entry(4);
      W.irq(4, 2);
      __wsn_rt_irq_exit(4);
      W.irqExit(4);
    }
    __wsn_rt_input(2, I * 7);
    W.input(2, I * 7);
    __wsn_rt_exit(1);
    W.exit(1);
  }
  __wsn_rt_check(1, 0, 0x4242);
  W.check(1, false, 0x4242);
  llvm::ArrayRef<uint8_t> RtBytes(reinterpret_cast<const uint8_t *>(&__wsn_trace),
                                  WSN_TRACE_FILE_SIZE);
  ASSERT_EQ(RtBytes, llvm::ArrayRef<uint8_t>(W.bytes()));
  PreprocessOptions O;
  O.ProgramHash = 0xC0FFEE42u;
  PreprocessedTrace P = take(preprocessTrace(llvm::cantFail(TraceFile::parse(RtBytes)), O));
  EXPECT_EQ(P.Coverage.Stop, StopKind::Violation);
  EXPECT_EQ(P.Coverage.StopRecord, P.Records.size() - 1);
  EXPECT_TRUE(P.Coverage.Wrapped);
  ASSERT_FALSE(P.Interrupts.empty());
  for (const InterruptEntry &E : P.Interrupts) {
    EXPECT_EQ(E.Count, 2u);
    EXPECT_EQ(E.Position % 2, 1u); // after an ENTRY, before its EXIT
  }
  __wsn_rt_reset();
}

} // namespace

namespace {

TEST(Preprocessor, DamagedRecordNamesTraceAndOffset) {
  TraceWriter W = writer();
  W.checkpoint(1, {});
  W.entry(101); // 2 bytes each: fids over 46
  W.entry(102);
  std::vector<uint8_t> B = W.bytes();
  // The tag of the third record (ENTRY 102) becomes 0x20: damage after the write,
  // found by segment 0's check value (trace-format.md 1.2).
  B[TraceHeaderSize + 3 + 2] = 0x20;
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F));
  PreprocessOptions O;
  O.TraceName = "bad.wtr";
  std::string E = errText(preprocessTrace(*F, O));
  EXPECT_EQ(E.rfind("bad.wtr: offset 32: segment 0 (ring offset 0) is damaged", 0), 0u) << E;
  // The same bytes sealed (a writer that wrote a bad record): the decoder names the record.
  B = sealed(B);
  auto G = TraceFile::parse(B);
  ASSERT_TRUE(bool(G));
  E = errText(preprocessTrace(*G, O));
  EXPECT_EQ(E.rfind("bad.wtr: offset 37", 0), 0u) << E;
  EXPECT_NE(E.find("0x20"), std::string::npos) << E;
}

TEST(Preprocessor, FileErrorsNameThePath) {
  std::string E = errText(preprocessTraceFile("/nonexistent/t.wtr", {}));
  EXPECT_EQ(E.rfind("/nonexistent/t.wtr: ", 0), 0u) << E;
}

} // namespace
