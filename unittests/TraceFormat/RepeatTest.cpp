//===- RepeatTest.cpp - periodic runs of control records (trace format 9) -===//
//
// spec/trace-format.md section 3.8: REPEAT, tag 0x98 + p - 1 and a count n, stands for n
// one-byte control records, the j-th the same as the (j mod p)-th of the p records written
// just before it in its segment. The traces here are written byte by byte (the writer side is
// not this file's subject): the decoder gives the n records with the REPEAT's offsets, Repeat
// set to p and the fields of their source, nesting as the literal bytes would; it refuses a
// count of 0, a REPEAT cut off by its segment's end, a source of fewer than p records in the
// segment or holding anything but one-byte control records written as their own bytes; the
// tags are reserved before format 9; a REPEAT open at a stop is dropped with the open record.
// Expected values are the spec's.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

using namespace wsn;
using namespace wsn::recordtest;
using llvm::ArrayRef;

namespace {

constexpr uint16_t Seg = 64;

/// RecordTestSupport's handTrace with this file's segment size.
std::vector<uint8_t> handTrace(ArrayRef<uint8_t> Ring, uint8_t Version = TraceVersion,
                               std::optional<uint16_t> Head = std::nullopt) {
  return recordtest::handTrace(Seg, Ring, Version, Head);
}

/// What a record stands for, without its encoding: kind and fields.
struct Rec {
  RecordKind Kind;
  uint32_t Id;
  uint32_t Count = 0; ///< IRQ only
  bool operator==(const Rec &O) const {
    return Kind == O.Kind && Id == O.Id && Count == O.Count;
  }
};
std::ostream &operator<<(std::ostream &OS, const Rec &R) {
  return OS << std::string(recordKindName(R.Kind)) << ' ' << R.Id << ' ' << R.Count;
}
Rec entry(uint32_t Fid) { return {RecordKind::Entry, Fid}; }
Rec exit(uint32_t Fid) { return {RecordKind::Exit, Fid}; }
Rec irq(uint32_t Irq, uint32_t Count) { return {RecordKind::Irq, Irq, Count}; }
Rec irqExit(uint32_t Irq) { return {RecordKind::IrqExit, Irq}; }

std::vector<Rec> meaning(ArrayRef<TraceRecord> Rs) {
  std::vector<Rec> Out;
  for (const TraceRecord &R : Rs)
    Out.push_back({R.Kind, R.id(), R.Kind == RecordKind::Irq ? R.Fields[1] : 0});
  return Out;
}

/// The one-byte tag of a control record (section 3.5).
uint8_t tagOf(const Rec &R) {
  switch (R.Kind) {
  case RecordKind::Entry:
    return uint8_t(EntryShortTag + R.Id);
  case RecordKind::Exit:
    return uint8_t(ExitShortTag + R.Id);
  case RecordKind::Irq:
    return uint8_t(IrqShortTag + 4 * (R.Id - 1) + R.Count);
  default:
    return uint8_t(IrqExitShortTag + R.Id - 1);
  }
}

/// Nesting of each record: ENTRY and IRQ open a level, EXIT and IRQ_EXIT close one (as
/// wsn-trace-dump indents and replay counts handler depth).
std::vector<unsigned> depths(ArrayRef<TraceRecord> Rs) {
  std::vector<unsigned> D;
  unsigned Depth = 0;
  for (const TraceRecord &R : Rs) {
    if (R.Kind == RecordKind::Exit || R.Kind == RecordKind::IrqExit) {
      Depth -= Depth != 0;
      D.push_back(Depth);
    } else if (R.Kind == RecordKind::Entry || R.Kind == RecordKind::Irq) {
      D.push_back(Depth++);
    } else {
      D.push_back(Depth);
    }
  }
  return D;
}

uint8_t repeatTag(unsigned P) { return uint8_t(RepeatTag + P - 1); }

// The spec's example: `A4 D4 71 90 A4 9B 07` is ENTRY_S 4, EXIT_S 4, IRQ_S (irq 1, count 1),
// IRQ_EXIT_S 1, ENTRY_S 4, then a REPEAT of period 4 whose source is `D4 71 90 A4`, standing
// for `D4 71 90 A4 D4 71 90`.
TEST(Repeat, SpecExample) {
  const std::vector<uint8_t> R = {0xA4, 0xD4, 0x71, 0x90, 0xA4, 0x9B, 0x07};
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 12u);
  const std::vector<Rec> Want = {entry(4), exit(4), irq(1, 1), irqExit(1), entry(4), exit(4),
                                 irq(1, 1), irqExit(1), entry(4), exit(4), irq(1, 1),
                                 irqExit(1)};
  EXPECT_EQ(meaning(Rs), Want);
  for (unsigned I = 0; I < 5; ++I) {
    EXPECT_EQ(Rs[I].RingOffset, I);
    EXPECT_EQ(Rs[I].Size, 1u);
    EXPECT_TRUE(Rs[I].Compact);
    EXPECT_EQ(Rs[I].Repeat, 0u);
  }
  unsigned Bytes = 0;
  for (unsigned J = 0; J < 7; ++J) {
    const TraceRecord &C = Rs[5 + J];
    EXPECT_EQ(C.RingOffset, 5u);
    EXPECT_EQ(C.LinearOffset, 5u);
    EXPECT_EQ(C.Segment, 0u);
    EXPECT_EQ(C.Repeat, 4u);
    EXPECT_EQ(C.Size, J == 0 ? 2u : 0u);
    EXPECT_FALSE(C.Compact);
    EXPECT_EQ(C.NumFields, Rs[1 + J % 4].NumFields);
    EXPECT_EQ(C.Fields[1], Rs[1 + J % 4].Fields[1]);
    EXPECT_TRUE(C.Payload.empty());
  }
  for (const TraceRecord &X : Rs)
    Bytes += X.Size;
  EXPECT_EQ(Bytes, R.size()); // the records' sizes add up to the bytes written
  // The same history written literally: the same records, the same interrupt keys.
  std::vector<uint8_t> Literal = {0xA4, 0xD4, 0x71, 0x90, 0xA4};
  for (unsigned J = 0; J < 7; ++J)
    Literal.push_back(Literal[1 + J % 4]);
  std::vector<TraceRecord> L = decodeAll(handTrace(Literal), /*NoDamage=*/true);
  EXPECT_EQ(meaning(L), meaning(Rs));
  std::vector<InterruptKey> KR = interruptKeys(Rs), KL = interruptKeys(L);
  ASSERT_EQ(KR.size(), 3u);
  ASSERT_EQ(KL.size(), KR.size());
  for (size_t I = 0; I < KR.size(); ++I) {
    EXPECT_EQ(KR[I].RecordIndex, KL[I].RecordIndex);
    EXPECT_EQ(KR[I].Irq, KL[I].Irq);
    EXPECT_EQ(KR[I].Position, KL[I].Position);
    EXPECT_EQ(KR[I].Count, KL[I].Count);
  }
  EXPECT_EQ(depths(Rs), depths(L));
}

// Every period 1..8, with a record before the source that is not part of it, a count that
// ends inside a period and a record after the REPEAT.
TEST(Repeat, EveryPeriod) {
  const Rec Pool[] = {entry(1),  exit(1),     irq(1, 0), irqExit(1),
                      entry(46), irq(8, 3),   exit(46),  irqExit(8)};
  for (unsigned P = 1; P <= RepeatMaxPeriod; ++P) {
    SCOPED_TRACE("period " + std::to_string(P));
    const unsigned N = 2 * P + 1;
    std::vector<uint8_t> R = {0x05, 0x01}; // SCHED 1
    for (unsigned K = 0; K < P; ++K)
      R.push_back(tagOf(Pool[K]));
    R.insert(R.end(), {repeatTag(P), uint8_t(N), uint8_t(ExitShortTag + 7)});
    std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), 1 + P + N + 1);
    for (unsigned J = 0; J < N; ++J) {
      const TraceRecord &C = Rs[1 + P + J];
      EXPECT_EQ(meaning(C), meaning(Rs[1 + J % P])) << "copy " << J;
      EXPECT_EQ(meaning(C)[0], Pool[J % P]) << "copy " << J;
      EXPECT_EQ(C.Repeat, P);
      EXPECT_EQ(C.RingOffset, 2 + P);
      EXPECT_EQ(C.Size, J ? 0u : 2u);
    }
    const TraceRecord &After = Rs.back();
    EXPECT_EQ(meaning(After)[0], exit(7));
    EXPECT_EQ(After.RingOffset, 2 + P + 2);
    EXPECT_EQ(After.Repeat, 0u);
  }
}

TEST(Repeat, CountOneAndCountMax) {
  for (unsigned N : {1u, 255u}) {
    SCOPED_TRACE("n = " + std::to_string(N));
    std::vector<uint8_t> R = {0xA1, 0x72, 0x91, 0xD1, 0x9B, uint8_t(N), 0xA2};
    std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), 4 + N + 1);
    const Rec Src[] = {entry(1), irq(1, 2), irqExit(2), exit(1)};
    unsigned Bytes = 0;
    for (unsigned J = 0; J < N; ++J) {
      EXPECT_EQ(meaning(Rs[4 + J])[0], Src[J % 4]);
      EXPECT_EQ(Rs[4 + J].Repeat, 4u);
      EXPECT_EQ(Rs[4 + J].RingOffset, 4u);
    }
    for (const TraceRecord &X : Rs)
      Bytes += X.Size;
    EXPECT_EQ(Bytes, R.size());
    EXPECT_EQ(meaning(Rs.back())[0], entry(2));
    EXPECT_EQ(Rs.back().RingOffset, 6u);
  }
}

// The copies nest as the literal bytes would: copies of ENTRYs go deeper, and EXITs after the
// REPEAT close the levels its copies opened; an IRQ copy opens a handler level.
TEST(Repeat, NestingOfCopies) {
  // ENTRY 1, ENTRY 2, REPEAT 2 x 4 (ENTRY 1, ENTRY 2, ENTRY 1, ENTRY 2), then six EXITs.
  std::vector<uint8_t> R = {0xA1, 0xA2, 0x99, 4, 0xD2, 0xD1, 0xD2, 0xD1, 0xD2, 0xD1};
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 12u);
  EXPECT_EQ(depths(Rs), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0}));
  // ENTRY 5, IRQ 3 (count 0), IRQ_EXIT 3, then REPEAT 3 x 5: the copies enter ENTRY 5 twice
  // more and take the handler inside each; the literal bytes after it leave them all.
  R = {0xA5, 0x78, 0x92, 0x9A, 5, 0x92, 0xD5, 0xD5, 0xD5};
  Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 12u);
  EXPECT_EQ(meaning(Rs), (std::vector<Rec>{entry(5), irq(3, 0), irqExit(3), entry(5), irq(3, 0),
                                           irqExit(3), entry(5), irq(3, 0), irqExit(3), exit(5),
                                           exit(5), exit(5)}));
  EXPECT_EQ(depths(Rs), (std::vector<unsigned>{0, 1, 1, 1, 2, 2, 2, 3, 3, 2, 1, 0}));
  std::vector<InterruptKey> K = interruptKeys(Rs);
  ASSERT_EQ(K.size(), 3u);
  EXPECT_EQ(K[1].RecordIndex, 4u);
  EXPECT_EQ(K[1].Position, 2u); // ENTRY 5, and the copy of ENTRY 5 at index 3
  EXPECT_EQ(K[2].Position, 3u);
}

std::string at(unsigned Ring, unsigned Segment = 0) {
  return " (record at ring offset " + std::to_string(Ring) + ", tail offset " +
         std::to_string(Ring) + ", segment " + std::to_string(Segment) + ")";
}

// A REPEAT whose source holds a record that another REPEAT stands for.
TEST(Repeat, SourceHoldsCopies) {
  // ENTRY_S 1, EXIT_S 1, REPEAT 2 x 1 (ENTRY 1 at ring 2), REPEAT 2 x 1 at ring 4.
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x99, 0x01, 0x99, 0x01})),
            "offset 36: REPEAT (tag 0x99, period 2): source record 1 of 2, the ENTRY at ring "
            "offset 2, is not a one-byte control record written as its own byte (it is one of "
            "the records of the REPEAT there)" +
                at(4));
  // Right after the expansion, of period 1.
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x98, 0x03, 0x98, 0x02})),
            "offset 35: REPEAT (tag 0x98, period 1): source record 0 of 1, the ENTRY at ring "
            "offset 1, is not a one-byte control record written as its own byte (it is one of "
            "the records of the REPEAT there)" +
                at(3));
  // A literal record after the expansion, and a period reaching back into it.
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x99, 0x02, 0xA1, 0x9A, 0x01})),
            "offset 37: REPEAT (tag 0x9A, period 3): source record 0 of 3, the ENTRY at ring "
            "offset 2, is not a one-byte control record written as its own byte (it is one of "
            "the records of the REPEAT there)" +
                at(5));
  // A period that stays after it is fine.
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x99, 0x02, 0xA1, 0xD1, 0x99, 0x01})), "success");
}

// A source record that is not a one-byte control record.
TEST(Repeat, SourceNotOneByteControl) {
  // SCHED 1 (2 bytes), ENTRY_S 1, REPEAT of period 2.
  EXPECT_EQ(decodeError(handTrace({0x05, 0x01, 0xA1, 0x99, 0x01})),
            "offset 35: REPEAT (tag 0x99, period 2): source record 0 of 2, the SCHED at ring "
            "offset 0, is not a one-byte control record written as its own byte (it is not a "
            "control record)" +
                at(3));
  // ENTRY 47 written plain (2 bytes: fid 47 has no ENTRY_S).
  EXPECT_EQ(decodeError(handTrace({0x01, 0x2F, 0x98, 0x01})),
            "offset 34: REPEAT (tag 0x98, period 1): source record 0 of 1, the ENTRY at ring "
            "offset 0, is not a one-byte control record written as its own byte (it takes 2 "
            "bytes)" +
                at(2));
  // IRQ 9 (plain), IRQ_EXIT_S 1.
  EXPECT_EQ(decodeError(handTrace({0x03, 0x09, 0x00, 0x90, 0x99, 0x01})),
            "offset 36: REPEAT (tag 0x99, period 2): source record 0 of 2, the IRQ at ring "
            "offset 0, is not a one-byte control record written as its own byte (it takes 3 "
            "bytes)" +
                at(4));
  // A one-byte record that is not a control record: INPUT 1 5, then INPUT_S (site + 0, recent
  // slot 0), 1 byte.
  EXPECT_EQ(decodeError(handTrace({0x07, 0x01, 0x05, 0x30, 0x98, 0x01})),
            "offset 36: REPEAT (tag 0x98, period 1): source record 0 of 1, the INPUT at ring "
            "offset 3, is not a one-byte control record written as its own byte (it is not a "
            "control record)" +
                at(4));
  // An empty skip span's record (SPAN_EFFECT site 5, len 2): the last record is its EFFECT.
  EXPECT_EQ(decodeError(handTrace({0x13, 0x05, 0x02, 0xAA, 0xBB, 0x98, 0x01})),
            "offset 37: REPEAT (tag 0x98, period 1): source record 0 of 1, the EFFECT at ring "
            "offset 0, is not a one-byte control record written as its own byte (it is part of "
            "an empty skip span's record)" +
                at(5));
}

// The source must lie in the REPEAT's segment.
TEST(Repeat, FewerThanPeriodInSegment) {
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x9A, 0x01})),
            "offset 34: REPEAT (tag 0x9A, period 3) has 2 records before it in its segment; "
            "its source is the 3 records before it there" +
                at(2));
  EXPECT_EQ(decodeError(handTrace({0x98, 0x01})),
            "offset 32: REPEAT (tag 0x98, period 1) has 0 records before it in its segment; its "
            "source is the 1 record before it there" +
                at(0));
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x9F, 0x01})),
            "offset 33: REPEAT (tag 0x9F, period 8) has 1 record before it in its segment; its "
            "source is the 8 records before it there" +
                at(1));
  // Segment 0 ends with control bytes (filled exactly, or a PAD after them); a REPEAT that
  // starts segment 1 has no source there.
  for (bool Pad : {false, true}) {
    SCOPED_TRACE(Pad ? "PAD" : "filled");
    std::vector<uint8_t> R;
    for (unsigned I = 0; I < Seg / 2; ++I)
      R.insert(R.end(), {0xA3, 0xD3});
    if (Pad)
      R[Seg - 2] = 0x00; // PAD, then a stale byte
    R.insert(R.end(), {0x99, 0x01});
    EXPECT_EQ(decodeError(handTrace(R)),
              "offset " + std::to_string(TraceHeaderSize + Seg) +
                  ": REPEAT (tag 0x99, period 2) has 0 records before it in its segment; its "
                  "source is the 2 records before it there" +
                  at(Seg, 1));
    // The same source written again in segment 1 is one.
    R.resize(Seg);
    R.insert(R.end(), {0xA3, 0xD3, 0x99, 0x01});
    std::vector<uint8_t> B = handTrace(R);
    std::vector<TraceRecord> Rs = decodeAll(B, /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), (Pad ? Seg - 2 : Seg) + 3u);
    EXPECT_EQ(meaning(Rs.back())[0], entry(3));
    EXPECT_EQ(Rs.back().RingOffset, Seg + 2u);
    EXPECT_EQ(Rs.back().Segment, 1u);
    // Segment 1 decoded on its own gives the same records.
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F));
    std::vector<TraceRecord> One;
    EXPECT_EQ(errorOf(F->decodeSegment(1, One)), "success");
    EXPECT_EQ(One.size(), 3u);
  }
}

TEST(Repeat, CountZero) {
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x98, 0x00})),
            "offset 34: REPEAT (tag 0x98, period 1) of 0 records: its count is 1 to 255" + at(1));
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x70, 0x90, 0x9B, 0x00, 0xA2})),
            "offset 37: REPEAT (tag 0x9B, period 4) of 0 records: its count is 1 to 255" + at(4));
}

// A REPEAT whose count would lie past the end of its segment: at the write head, or at the end
// of a segment that writing has left.
TEST(Repeat, CutOff) {
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x98})),
            "offset 34: REPEAT (tag 0x98, period 1) cut off by the end of its segment before its "
            "count (the write head is there)" +
                at(1));
  std::vector<uint8_t> R(Seg - 1, 0xA4);
  R.push_back(0x98);
  R.push_back(0xA5); // segment 1
  EXPECT_EQ(decodeError(handTrace(R)),
            "offset " + std::to_string(TraceHeaderSize + Seg) +
                ": REPEAT (tag 0x98, period 1) cut off by the end of its segment before its "
                "count" +
                at(Seg - 1));
  // Ending exactly at the segment's end is fine.
  R[Seg - 2] = 0x98;
  R[Seg - 1] = 0x05;
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), Seg - 2 + 5 + 1u);
  EXPECT_EQ(Rs.back().Segment, 1u);
}

// Tags 0x98-0x9F are reserved in a version 2-8 trace.
TEST(Repeat, ReservedBeforeFormat9) {
  for (unsigned P = 1; P <= RepeatMaxPeriod; ++P) {
    const uint8_t T = repeatTag(P);
    for (uint8_t V = OldestTraceVersion; V < 9; ++V) {
      SCOPED_TRACE("tag " + std::to_string(T) + ", version " + std::to_string(V));
      EXPECT_EQ(decodeError(handTrace({T, 0x01}, V)),
                "offset 32: record tag 0x" + llvm::utohexstr(T, false, 2) +
                    " is reserved in format " + std::to_string(V) + at(0));
    }
  }
  // After control records it would repeat, in format 8.
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x99, 0x01}, 8)),
            "offset 34: record tag 0x99 is reserved in format 8" + at(2));
  EXPECT_EQ(decodeError(handTrace({0xA1, 0xD1, 0x99, 0x01}, 9)), "success");
}

// The anchor flag after a record (writerArmedAfter): the writer's head after any record of a
// REPEAT is after the REPEAT, so a REPEAT ending on a segment boundary armed it for all of
// them (the writer itself never grows a REPEAT after that: entering the next segment ends the
// run, so only a hand-made trace has such copies after the first).
TEST(Repeat, AnchorFlagAfterCopies) {
  std::vector<uint8_t> R(Seg - 3, 0xA4);
  R.insert(R.end(), {0xD4, 0x99, 0x03, 0xA5}); // REPEAT at ring Seg - 2 .. Seg - 1
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), Seg - 2 + 3 + 1u);
  TraceRecord Ck;
  Ck.Kind = RecordKind::Checkpoint; // a checkpoint earlier in segment 0
  EXPECT_FALSE(writerArmedAfter(Rs[Seg - 3], Ck, Seg)); // the EXIT_S before the REPEAT
  for (unsigned J = 0; J < 3; ++J)
    EXPECT_TRUE(writerArmedAfter(Rs[Seg - 2 + J], Ck, Seg)) << "copy " << J;
  // One byte earlier, the REPEAT ends before the boundary: not armed after any copy.
  R.erase(R.begin());
  R.back() = 0xD5; // the last byte of segment 0 now
  R.push_back(0xA6);
  Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), Seg - 3 + 3 + 2u);
  for (unsigned J = 0; J < 3; ++J)
    EXPECT_FALSE(writerArmedAfter(Rs[Seg - 3 + J], Ck, Seg)) << "copy " << J;
  EXPECT_TRUE(writerArmedAfter(Rs[Seg - 3 + 3], Ck, Seg)); // EXIT_S 5 ends segment 0
}

// A node stopped while a REPEAT was written or reopened to grow (spec sections 1.1 and 3.8):
// `open` holds the REPEAT's tag offset, so the trace ends before the records it held, and the
// check value may be any the writer passes through: the one covering the REPEAT (before it
// puts the value before the tag back, or once it closed it again), that one's low byte with
// the earlier value's high byte, or the value before the tag.
TEST(Repeat, OpenAtStop) {
  const std::vector<uint8_t> R = {0xA4, 0xD4, 0x71, 0x90, 0xA4, 0x9B, 0x07};
  const size_t Check = TraceHeaderSize + 2 * Seg; // segment 0's check value, low byte first
  const std::vector<uint8_t> Before = handTrace(ArrayRef<uint8_t>(R).take_front(5));
  enum State { Covered, HighByteBack, ValueBack };
  for (State S : {Covered, HighByteBack, ValueBack}) {
    SCOPED_TRACE("state " + std::to_string(S));
    std::vector<uint8_t> B = handTrace(R); // head 7, the value over the REPEAT
    B[30] = 5;
    B[31] = 0x80;
    if (S != Covered)
      B[Check + 1] = Before[Check + 1];
    if (S == ValueBack)
      B[Check] = Before[Check];
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    EXPECT_EQ(F->header().Head, 5u);
    EXPECT_EQ(F->tornBytes(), 2u);
    EXPECT_EQ(F->droppedOpenSegment(), -1);
    std::vector<TraceRecord> Rs = decodeAll(B);
    EXPECT_EQ(meaning(Rs),
              (std::vector<Rec>{entry(4), exit(4), irq(1, 1), irqExit(1), entry(4)}));
  }
  // The count grown to 8 with the value still covering 7 is no state of the writer: damage.
  std::vector<uint8_t> B = handTrace(R);
  B[30] = 5;
  B[31] = 0x80;
  B[TraceHeaderSize + 6] = 8;
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F));
  EXPECT_EQ(F->damage().size(), 1u);
  // Closed again, the REPEAT of 8 is part of the trace.
  B = handTrace(R);
  B[TraceHeaderSize + 6] = 8;
  llvm::consumeError(resealTrace(B));
  EXPECT_EQ(decodeAll(B, /*NoDamage=*/true).size(), 13u);
}

} // namespace
