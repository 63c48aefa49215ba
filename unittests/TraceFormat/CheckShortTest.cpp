//===- CheckShortTest.cpp - compact CHECK records (trace format 10) -------===//
//
// spec/trace-format.md section 3.9: a passing check of inv 1..3 is CHECK_S, tag 0x19 + 2 (inv
// - 1) (0x19, 0x1B, 0x1D), then the raw 16-bit checksum as in CHECK: 3 bytes instead of 4.
// Hand-made bytes: each tag decodes to a CHECK (Compact, Size 3), inv 4 stays a plain CHECK;
// a CHECK_S cut off by its segment's end or the write head names its offset; a corrupted byte
// is caught by the segment's check value; the tags are reserved before format 10; a CHECK_S
// open at a stop is dropped with the open record. The writer side: the host runtime
// (check_locked in trace.c) and TraceWriter write the same file after every record, over
// several wraps, and a violation keeps the full form.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <optional>
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

std::string at(unsigned Ring, unsigned Segment = 0) {
  return " (record at ring offset " + std::to_string(Ring) + ", tail offset " +
         std::to_string(Ring) + ", segment " + std::to_string(Segment) + ")";
}

std::string hex(uint8_t T) { return "0x" + llvm::utohexstr(T, false, 2); }

TEST(CheckShort, TagsAndVersion) {
  EXPECT_EQ(TraceVersion, 10);
  EXPECT_EQ(WSN_TRACE_VERSION, 10);
  EXPECT_EQ(WSN_REC_CHECK_S, CheckShortTag);
  EXPECT_EQ(WSN_TRACE_INV_SHORT, int(CheckShortInvs));
  for (unsigned T = 0; T < 256; ++T)
    EXPECT_EQ(isCheckShortTag(uint8_t(T)), T == 0x19 || T == 0x1B || T == 0x1D) << T;
}

// Each of the three tags, then inv 4 (plain CHECK) and inv 1 again after it.
TEST(CheckShort, DecodesEachTag) {
  const std::vector<uint8_t> R = {0x19, 0x34, 0x12, 0x1B, 0xCD, 0xAB, 0x1D, 0x00,
                                  0x00, 0x0E, 0x04, 0xEF, 0xBE, 0x19, 0xFF, 0xFF};
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 5u);
  const uint32_t Inv[] = {1, 2, 3, 4, 1}, Crc[] = {0x1234, 0xABCD, 0, 0xBEEF, 0xFFFF},
                 Off[] = {0, 3, 6, 9, 13};
  for (unsigned I = 0; I < 5; ++I) {
    SCOPED_TRACE("record " + std::to_string(I));
    EXPECT_EQ(Rs[I].Kind, RecordKind::Check);
    EXPECT_EQ(Rs[I].NumFields, 2u);
    EXPECT_EQ(Rs[I].id(), Inv[I]);
    EXPECT_EQ(*Rs[I].field("checksum"), Crc[I]);
    EXPECT_EQ(Rs[I].RingOffset, Off[I]);
    EXPECT_EQ(Rs[I].LinearOffset, Off[I]);
    EXPECT_EQ(Rs[I].Compact, I != 3);
    EXPECT_EQ(Rs[I].Size, I != 3 ? 3u : 4u);
    EXPECT_FALSE(Rs[I].Short || Rs[I].Span || Rs[I].Repeat);
  }
  // The short form means the same record as the plain one.
  TraceRecord Plain = Rs[0];
  Plain.Compact = false;
  Plain.Size = 4;
  std::vector<TraceRecord> P =
      decodeAll(handTrace({0x0E, 0x01, 0x34, 0x12}), /*NoDamage=*/true);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0], Plain);
  // VIOLATION has no short form; a plain CHECK of inv 1..3 still decodes (the writer never
  // writes one, but it is a valid record).
  P = decodeAll(handTrace({0x0F, 0x02, 0x01, 0x00, 0x0E, 0x03, 0x02, 0x00}), true);
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Kind, RecordKind::Violation);
  EXPECT_FALSE(P[0].Compact || P[1].Compact);
  EXPECT_EQ(P[1].id(), 3u);
}

// A CHECK_S whose checksum would lie past the end of its segment: at the write head (the tag
// alone, or one checksum byte), or at the end of a segment that writing has left.
TEST(CheckShort, CutOff) {
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x19})),
            "offset 34: CHECK_S (tag 0x19, inv 1) cut off by the end of its segment in its "
            "checksum (the write head is there)" +
                at(1));
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x1D, 0x05})),
            "offset 34: CHECK_S (tag 0x1D, inv 3) cut off by the end of its segment in its "
            "checksum (the write head is there)" +
                at(1));
  for (unsigned Left : {1u, 2u}) {
    SCOPED_TRACE(std::to_string(Left) + " bytes left");
    std::vector<uint8_t> R(Seg - Left, 0xA4);
    R.push_back(0x1B);
    if (Left == 2)
      R.push_back(0x01);
    R.push_back(0xA5); // segment 1
    EXPECT_EQ(decodeError(handTrace(R)),
              "offset " + std::to_string(TraceHeaderSize + Seg - Left + 1) +
                  ": CHECK_S (tag 0x1B, inv 2) cut off by the end of its segment in its "
                  "checksum" +
                  at(Seg - Left));
  }
  // Ending exactly at the segment's end is fine.
  std::vector<uint8_t> R(Seg - 3, 0xA4);
  R.insert(R.end(), {0x1B, 0x01, 0x02, 0xA5});
  std::vector<TraceRecord> Rs = decodeAll(handTrace(R), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), Seg - 3 + 2u);
  EXPECT_EQ(Rs[Seg - 3].Kind, RecordKind::Check);
  EXPECT_EQ(*Rs[Seg - 3].field("checksum"), 0x0201u);
  EXPECT_EQ(Rs.back().Segment, 1u);
}

// Tags 0x19, 0x1B and 0x1D are reserved in a version 2-9 trace; 0xCF stays reserved.
TEST(CheckShort, ReservedBeforeFormat10) {
  for (uint8_t T : {0x19, 0x1B, 0x1D}) {
    for (uint8_t V = OldestTraceVersion; V < 10; ++V) {
      SCOPED_TRACE("tag " + std::to_string(T) + ", version " + std::to_string(V));
      EXPECT_EQ(decodeError(handTrace({T, 0x01, 0x02}, V)),
                "offset 32: record tag " + hex(T) + " is reserved in format " +
                    std::to_string(V) + at(0));
    }
    EXPECT_EQ(decodeError(handTrace({T, 0x01, 0x02}, 10)), "success");
  }
  EXPECT_EQ(decodeError(handTrace({0x19, 0x01, 0x02, 0xCF}, 10)),
            "offset 35: record tag 0xCF is reserved" + at(3));
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x1B, 0x01, 0x02}, 9)),
            "offset 33: record tag 0x1B is reserved in format 9" + at(1));
}

// A CHECK_S is no one-byte control record: no REPEAT's source.
TEST(CheckShort, NotARepeatSource) {
  EXPECT_EQ(decodeError(handTrace({0xA1, 0x19, 0x01, 0x02, 0x98, 0x01})),
            "offset 36: REPEAT (tag 0x98, period 1): source record 0 of 1, the CHECK at ring "
            "offset 1, is not a one-byte control record written as its own byte (it is not a "
            "control record)" +
                at(4));
}

// A corrupted byte of a CHECK_S (a tag turned into another short tag, CHECK's or any other
// value; a checksum byte) is caught by the segment's check value (section 1.2).
TEST(CheckShort, CorruptedByteIsDamage) {
  const std::vector<uint8_t> Good = handTrace({0xA1, 0x1B, 0x34, 0x12, 0xD1});
  ASSERT_EQ(decodeAll(Good, true).size(), 3u);
  for (unsigned Off = 1; Off <= 3; ++Off)
    for (unsigned V = 0; V < 256; ++V) {
      if (V == Good[TraceHeaderSize + Off])
        continue;
      std::vector<uint8_t> B = Good;
      B[TraceHeaderSize + Off] = uint8_t(V);
      auto F = TraceFile::parse(B);
      ASSERT_TRUE(bool(F));
      ASSERT_EQ(F->damage().size(), 1u) << "offset " << Off << " value " << V;
      EXPECT_EQ(F->damage()[0].Segment, 0u);
      auto Rs = F->decode();
      ASSERT_FALSE(bool(Rs));
      EXPECT_EQ(llvm::toString(Rs.takeError()), F->damage()[0].message(F->header()));
    }
}

// A node stopped inside check_locked (sections 1.1, 1.2): the writer core reserved the record
// as a CHECK without inv (tag 0x0E, then the checksum), the tag was replaced, and closing
// folds it into the segment's value. Every state is accepted with the saved head 1: the value
// before the record (C0, the tag replaced or not), the value covering the CHECK_S (C1), and
// C1's low byte with C0's high byte. The trace ends before the record.
TEST(CheckShort, OpenAtStop) {
  const std::vector<uint8_t> R = {0xA1, 0x1D, 0x34, 0x12};
  const size_t Check = TraceHeaderSize + 2 * Seg; // segment 0's check value, low byte first
  const std::vector<uint8_t> Before = handTrace(ArrayRef<uint8_t>(R).take_front(1));
  enum State { TagNotReplaced, Reserved, HalfClosed, Closed };
  for (State S : {TagNotReplaced, Reserved, HalfClosed, Closed}) {
    SCOPED_TRACE("state " + std::to_string(S));
    std::vector<uint8_t> B = handTrace(R); // head 4, the value over the CHECK_S
    B[30] = 1;
    B[31] = 0x80;
    if (S == TagNotReplaced)
      B[TraceHeaderSize + 1] = 0x0E;
    if (S == TagNotReplaced || S == Reserved)
      B[Check] = Before[Check];
    if (S != Closed)
      B[Check + 1] = Before[Check + 1];
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    EXPECT_EQ(F->header().Head, 1u);
    EXPECT_EQ(F->tornBytes(), 3u);
    EXPECT_EQ(F->droppedOpenSegment(), -1);
    std::vector<TraceRecord> Rs = decodeAll(B);
    ASSERT_EQ(Rs.size(), 1u);
    EXPECT_EQ(Rs[0].Kind, RecordKind::Entry);
  }
  // A checksum byte changed with the value still covering the old one is no writer state.
  std::vector<uint8_t> B = handTrace(R);
  B[30] = 1;
  B[31] = 0x80;
  B[TraceHeaderSize + 3] ^= 0x40;
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F));
  EXPECT_EQ(F->damage().size(), 1u);
}

// The writer: the host runtime and TraceWriter write the same file after every record.
class CheckShortWriter : public RuntimeWriterTest {
protected:
  CheckShortWriter() : RuntimeWriterTest(17) {}
  void check(TraceWriter &W, uint16_t Inv, bool Ok, uint16_t Crc) {
    __wsn_rt_check(Inv, Ok, Crc);
    W.check(Inv, Ok, Crc);
  }
};

std::vector<uint8_t> ringBytes(const std::vector<uint8_t> &B, size_t At, size_t N) {
  return std::vector<uint8_t>(B.begin() + TraceHeaderSize + At,
                              B.begin() + TraceHeaderSize + At + N);
}

// The bytes of each form: CHECK_S for inv 1..3, CHECK for inv 0, 4 and 200 (a two-byte varint),
// VIOLATION in full for inv 1 (and nothing after it: black-box).
TEST_F(CheckShortWriter, Bytes) {
  TraceWriter W = writer();
  const std::pair<uint16_t, uint16_t> Checks[] = {{1, 0xBEEF}, {2, 0x0102}, {3, 0xFFFF},
                                                  {0, 0x1111}, {4, 0x2222}, {200, 0x3333}};
  for (auto [Inv, Crc] : Checks) {
    check(W, Inv, true, Crc);
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "inv " << Inv;
  }
  check(W, 1, false, 0x4444);
  ASSERT_EQ(runtimeBytes(), W.bytes());
  check(W, 2, true, 0x5555); // frozen: not written, but counted
  std::vector<uint8_t> B = W.bytes();
  ASSERT_EQ(runtimeBytes(), B);
  const std::vector<uint8_t> Expect = {0x19, 0xEF, 0xBE, 0x1B, 0x02, 0x01, 0x1D, 0xFF, 0xFF,
                                       0x0E, 0x00, 0x11, 0x11, 0x0E, 0x04, 0x22, 0x22, 0x0E,
                                       0xC8, 0x01, 0x33, 0x33, 0x0F, 0x01, 0x44, 0x44};
  EXPECT_EQ(ringBytes(B, 0, Expect.size()), Expect);
  EXPECT_EQ(W.header().Head, Expect.size());
  EXPECT_EQ(W.header().Checks, 8u);
  std::vector<TraceRecord> Rs = decodeAll(B, true);
  ASSERT_EQ(Rs.size(), 7u);
  for (unsigned I = 0; I < 7; ++I) {
    EXPECT_EQ(Rs[I].Compact, I < 3) << I;
    EXPECT_EQ(Rs[I].id(), I < 6 ? Checks[I].first : 1u) << I;
  }
  EXPECT_EQ(Rs[6].Kind, RecordKind::Violation);
}

// Many checks and other records over several wraps, records ending at and crossing segment
// ends (a CHECK_S that does not fit gets a PAD and goes to the next segment); the decoder
// gives back every check in order.
TEST_F(CheckShortWriter, ManyWraps) {
  TraceWriter W = writer();
  struct Ck {
    uint16_t Inv, Crc;
  };
  std::vector<Ck> Written;
  for (unsigned I = 0; I < 3000; ++I) {
    const unsigned What = next(8);
    if (What < 5) {
      const uint16_t Inv = What < 3 ? uint16_t(1 + next(3)) : uint16_t(next(300));
      const uint16_t Crc = uint16_t(next(0x10000));
      check(W, Inv, true, Crc);
      Written.push_back({Inv, Crc});
    } else if (What == 5) {
      const uint16_t Fid = uint16_t(next(60));
      __wsn_rt_entry(Fid);
      W.entry(Fid);
    } else if (What == 6) {
      const uint16_t Site = uint16_t(next(400)), Value = uint16_t(next(0x10000));
      __wsn_rt_input(Site, Value);
      W.input(Site, Value);
    } else {
      const uint16_t Task = uint16_t(next(300));
      __wsn_rt_sched(Task);
      W.sched(Task);
    }
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "record " << I;
  }
  std::vector<uint8_t> B = W.bytes();
  ASSERT_GE(W.header().Wraps, 3u);
  std::vector<TraceRecord> Rs = decodeAll(B, true);
  std::vector<const TraceRecord *> Got;
  unsigned Short = 0;
  for (const TraceRecord &R : Rs)
    if (R.Kind == RecordKind::Check) {
      Got.push_back(&R);
      EXPECT_EQ(R.Compact, R.id() >= 1 && R.id() <= 3);
      EXPECT_EQ(R.Size, R.Compact ? 3u : 3u + (R.id() >= 128 ? 2u : 1u));
      Short += R.Compact;
    }
  ASSERT_GT(Got.size(), 100u);
  EXPECT_GT(Short, 50u);
  const size_t Skip = Written.size() - Got.size(); // the tail keeps the last checks
  for (size_t I = 0; I < Got.size(); ++I) {
    EXPECT_EQ(Got[I]->id(), Written[Skip + I].Inv) << I;
    EXPECT_EQ(*Got[I]->field("checksum"), Written[Skip + I].Crc) << I;
  }
}

} // namespace
