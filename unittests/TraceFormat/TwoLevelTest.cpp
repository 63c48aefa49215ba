//===- TwoLevelTest.cpp - two-level groups (trace format 8) ---------------===//
//
// spec/trace-format.md section 3.7: CHECKPOINT_Z2, EFFECT_C2, EFFECT_Z2 and the span forms
// SPAN_EFFECT_C2 and SPAN_EFFECT_Z2 are the one-level records of sections 3.2, 3.3 and 3.6
// whose groups are written as a bitmap of the groups with a non-empty mask, then those groups
// only. The traces here are written byte by byte (not by TraceWriter): the decoder gives the
// records of the one-level forms with TwoLevel set, and refuses every malformed or cut-off
// record, naming it and its offsets; the tags are reserved before format 8.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"

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

constexpr uint16_t Seg = 128;

/// RecordTestSupport's handTrace with this file's segment size.
std::vector<uint8_t> handTrace(ArrayRef<uint8_t> Ring, uint8_t Version = TraceVersion,
                               std::optional<uint16_t> Head = std::nullopt) {
  return recordtest::handTrace(Seg, Ring, Version, Head);
}

/// One of format 8's record kinds, and the one-level record it stands for.
struct Kind {
  uint8_t Tag;
  uint8_t OneLevelTag;
  const char *Name; ///< how errors name it (a span form by its effect, as in format 7)
  RecordKind Record;
  bool Changes; ///< EFFECT_C2 and its span form: a mask bit is a given byte, which may be 0
  bool Span;
};
const Kind Kinds[] = {
    {CheckpointZ2Tag, CheckpointZTag, "CHECKPOINT_Z2", RecordKind::Checkpoint, false, false},
    {EffectC2Tag, EffectCTag, "EFFECT_C2", RecordKind::Effect, true, false},
    {EffectZ2Tag, EffectZTag, "EFFECT_Z2", RecordKind::Effect, false, false},
    {SpanEffectC2Tag, SpanEffectCTag, "EFFECT_C2", RecordKind::Effect, true, true},
    {SpanEffectZ2Tag, SpanEffectZTag, "EFFECT_Z2", RecordKind::Effect, false, true},
};

std::string hex(uint8_t Tag) { return "0x" + llvm::utohexstr(Tag, false, 2); }

/// ENTRY 1 (ENTRY_S, ring 0), the record `Tag 05 Len Groups` at ring 1, EXIT 1 (EXIT_S).
std::vector<uint8_t> ring(uint8_t Tag, std::vector<uint8_t> LenAndGroups) {
  std::vector<uint8_t> R = {uint8_t(EntryShortTag + 1), Tag, 5};
  R.insert(R.end(), LenAndGroups.begin(), LenAndGroups.end());
  R.push_back(uint8_t(ExitShortTag + 1));
  return R;
}

/// What the error of a record at ring offset 1 ends with.
const std::string At1 = " (record at ring offset 1, tail offset 1, segment 0)";

/// The records a format 8 record at ring 1 decodes into: the record, or its span's three.
std::vector<TraceRecord> middle(const std::vector<TraceRecord> &Rs) {
  if (Rs.size() < 2)
    return {};
  return std::vector<TraceRecord>(Rs.begin() + 1, Rs.end() - 1);
}

// spec section 3.7's example: a 64-byte payload whose only non-zero bytes are 1 (0xAA) and 60
// (0xBB) is one-level `02 AA 00 00 00 00 00 00 10 BB` and two-level `81 02 AA 10 BB`.
const std::vector<uint8_t> OneLevel = {64, 0x02, 0xAA, 0, 0, 0, 0, 0, 0, 0x10, 0xBB};
const std::vector<uint8_t> TwoLevel = {64, 0x81, 0x02, 0xAA, 0x10, 0xBB};

std::vector<uint8_t> examplePayload() {
  std::vector<uint8_t> P(64, 0);
  P[1] = 0xAA;
  P[60] = 0xBB;
  return P;
}

// Every tag: the record of the one-level form with TwoLevel set, sized as written.
TEST(TwoLevel, SpecExample) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    std::vector<TraceRecord> Rs = decodeAll(handTrace(ring(K.Tag, TwoLevel)), /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), K.Span ? 5u : 3u);
    EXPECT_EQ(Rs.front().Kind, RecordKind::Entry);
    EXPECT_EQ(Rs.back().Kind, RecordKind::Exit);
    EXPECT_EQ(Rs.back().RingOffset, 1u + 8u); // tag, site or anchor, len, 5 bytes of groups
    const TraceRecord &R = Rs[Rs.size() - 2];
    EXPECT_EQ(R.Kind, K.Record);
    EXPECT_EQ(R.NumFields, 1u);
    EXPECT_EQ(R.id(), 5u);
    EXPECT_EQ(R.RingOffset, 1u);
    EXPECT_EQ(R.LinearOffset, 1u);
    EXPECT_EQ(R.Segment, 0u);
    EXPECT_EQ(R.Size, 8u);
    EXPECT_TRUE(R.TwoLevel);
    EXPECT_EQ(R.Payload, examplePayload());
    EXPECT_EQ(R.Packed, !K.Changes);
    if (K.Changes) {
      std::vector<uint8_t> G(64, 0);
      G[1] = G[60] = 1;
      EXPECT_EQ(R.Given, G);
    } else {
      EXPECT_TRUE(R.Given.empty());
    }
    EXPECT_EQ(R.Span, K.Span);
    if (K.Span) {
      // SKIP_BEGIN 5 and SKIP_END 5 at the record's offsets, of size 0; the groups are the
      // effect's, so only it is marked two-level.
      for (unsigned I : {1u, 2u}) {
        EXPECT_EQ(Rs[I].Kind, I == 1 ? RecordKind::SkipBegin : RecordKind::SkipEnd);
        EXPECT_EQ(Rs[I].id(), 5u);
        EXPECT_EQ(Rs[I].NumFields, 1u);
        EXPECT_EQ(Rs[I].RingOffset, 1u);
        EXPECT_EQ(Rs[I].Size, 0u);
        EXPECT_TRUE(Rs[I].Span);
        EXPECT_FALSE(Rs[I].TwoLevel);
      }
    }

    // The one-level form of the same payload decodes into the same records, but for
    // TwoLevel and the size (3 + 10 bytes).
    std::vector<TraceRecord> One =
        decodeAll(handTrace(ring(K.OneLevelTag, OneLevel)), /*NoDamage=*/true);
    ASSERT_EQ(One.size(), Rs.size());
    EXPECT_EQ(One.back().RingOffset, 1u + 13u);
    std::vector<TraceRecord> Want = middle(Rs);
    Want.back().TwoLevel = false;
    Want.back().Size = 13;
    EXPECT_EQ(middle(One), Want);
  }
}

// A payload whose length is not a multiple of 8 and whose groups are not a multiple of 8
// either: 75 bytes, 10 groups (the last holds bytes 72-74), two bitmap bytes `01 03` for
// groups 0, 8 and 9. Bytes 3, 66 and 74 are marked; an EFFECT_C2 may give a 0x00.
TEST(TwoLevel, OddLength) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    const uint8_t B66 = K.Changes ? 0x00 : 0x5A;
    std::vector<TraceRecord> Rs =
        decodeAll(handTrace(ring(K.Tag, {75, 0x01, 0x03, 0x08, 0x11, 0x04, B66, 0x04, 0x22})),
                  /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), K.Span ? 5u : 3u);
    const TraceRecord &R = Rs[Rs.size() - 2];
    EXPECT_EQ(R.Size, 3u + 8u); // one-level: 10 masks + 3 bytes
    EXPECT_TRUE(R.TwoLevel);
    std::vector<uint8_t> P(75, 0);
    P[3] = 0x11;
    P[66] = B66;
    P[74] = 0x22;
    EXPECT_EQ(R.Payload, P);
    if (K.Changes) {
      std::vector<uint8_t> G(75, 0);
      G[3] = G[66] = G[74] = 1;
      EXPECT_EQ(R.Given, G);
    }
    EXPECT_EQ(Rs.back().RingOffset, 1u + 11u);
  }
}

// Cut off by the write head: inside the bitmap, at a written group's mask, at its byte.
TEST(TwoLevel, Truncated) {
  // 75 bytes as in OddLength: bitmap at ring 4-5, group 0 at 6-7, group 8 at 8-9, 9 at 10-11.
  const std::vector<uint8_t> G = {75, 0x01, 0x03, 0x08, 0x11, 0x04, 0x33, 0x04, 0x22};
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    const std::vector<uint8_t> R = ring(K.Tag, G);
    EXPECT_EQ(decodeError(handTrace(R, TraceVersion, 5)),
              "offset 37: " + std::string(K.Name) +
                  " bitmap byte 1 (groups 8-9) cut off by the end of its segment (the write "
                  "head is there)" +
                  At1);
    EXPECT_EQ(decodeError(handTrace(R, TraceVersion, 4)),
              "offset 36: " + std::string(K.Name) +
                  " bitmap byte 0 (groups 0-7) cut off by the end of its segment (the write "
                  "head is there)" +
                  At1);
    EXPECT_EQ(decodeError(handTrace(R, TraceVersion, 10)),
              "offset 42: " + std::string(K.Name) +
                  " mask of group 9 (payload bytes 72-74) cut off by the end of its segment "
                  "(the write head is there)" +
                  At1);
    EXPECT_EQ(decodeError(handTrace(R, TraceVersion, 9)),
              "offset 41: " + std::string(K.Name) +
                  " byte 66 of the payload (group 8) runs past the end of its segment (the "
                  "write head is there)" +
                  At1);
  }
}

// A segment that writing has left ends where it ends: a bitmap cut off there is named without
// the write head.
TEST(TwoLevel, PastSegmentEnd) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    std::vector<uint8_t> R;
    for (unsigned I = 0; I < 62; ++I) // SCHED 1, ring 0-123
      R.insert(R.end(), {0x05, 0x01});
    R.insert(R.end(), {K.Tag, 5, 75, 0x01}); // ring 124-127: bitmap byte 1 would be at 128
    R.push_back(uint8_t(EntryShortTag + 1)); // segment 1
    EXPECT_EQ(decodeError(handTrace(R)),
              "offset 160: " + std::string(K.Name) +
                  " bitmap byte 1 (groups 8-9) cut off by the end of its segment (record at "
                  "ring offset 124, tail offset 124, segment 0)");
  }
}

TEST(TwoLevel, BitmapPastGroups) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    // 75 bytes are 10 groups: bit 3 of the second bitmap byte is group 11.
    EXPECT_EQ(decodeError(handTrace(
                  ring(K.Tag, {75, 0x01, 0x0B, 0x08, 0x11, 0x04, 0x33, 0x04, 0x22, 0x01, 0x44}))),
              "offset 37: " + std::string(K.Name) +
                  " bitmap byte 1 (0x0B) marks group 11 past the 10 groups of a 75-byte "
                  "payload" +
                  At1);
    // 20 bytes are 3 groups: bit 3 of the only bitmap byte is group 3.
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {20, 0x09, 0x02, 0xAA, 0x01, 0xCC}))),
              "offset 36: " + std::string(K.Name) +
                  " bitmap byte 0 (0x09) marks group 3 past the 3 groups of a 20-byte payload" +
                  At1);
  }
}

TEST(TwoLevel, WrittenGroupWithEmptyMask) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    // The example with group 1 marked written, its mask 0x00 (at ring 7).
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {64, 0x83, 0x02, 0xAA, 0x00, 0x10, 0xBB}))),
              "offset 39: " + std::string(K.Name) +
                  ": the bitmap marks group 1 written but its mask is 0x00" + At1);
  }
}

TEST(TwoLevel, MaskPastPayload) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    // Group 9 holds bytes 72-74: bit 3 of its mask (at ring 10) is byte 75.
    EXPECT_EQ(decodeError(handTrace(
                  ring(K.Tag, {75, 0x01, 0x03, 0x08, 0x11, 0x04, 0x33, 0x0C, 0x22, 0x44}))),
              "offset 42: " + std::string(K.Name) +
                  " mask 0x0C of group 9 marks bytes past the 75-byte payload" + At1);
  }
}

// A marked byte of 0x00 is refused in the Z2 kinds (their masks mark the non-zero bytes); in
// an EFFECT_C2 it is a changed byte whose new value is 0.
TEST(TwoLevel, MarkedZero) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    std::vector<uint8_t> B = handTrace(ring(K.Tag, {64, 0x81, 0x02, 0xAA, 0x10, 0x00}));
    if (!K.Changes) {
      EXPECT_EQ(decodeError(B), "offset 40: " + std::string(K.Name) +
                                    " byte 60 of the payload is marked non-zero by its "
                                    "group's mask but is 0x00" +
                                    At1);
      continue;
    }
    std::vector<TraceRecord> Rs = decodeAll(B, /*NoDamage=*/true);
    ASSERT_EQ(Rs.size(), K.Span ? 5u : 3u);
    const TraceRecord &R = Rs[Rs.size() - 2];
    EXPECT_TRUE(R.given(60));
    EXPECT_EQ(R.Payload[60], 0u);
  }
}

// The writer writes two-level groups only when they are smaller than the one-level ones.
TEST(TwoLevel, NotSmallerThanOneLevel) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    // 16 bytes, both groups written: `03 01 11 01 22`, 5 bytes against `01 11 01 22`.
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {16, 0x03, 0x01, 0x11, 0x01, 0x22}))),
              "offset 33: " + std::string(K.Name) +
                  " of a 16-byte payload takes 5 bytes, its one-level groups 4: the writer "
                  "writes two-level groups only when they are smaller" +
                  At1);
    // As many empty masks as bitmap bytes: `01 01 11` against `01 11 00`, 3 bytes each.
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {16, 0x01, 0x01, 0x11}))),
              "offset 33: " + std::string(K.Name) +
                  " of a 16-byte payload takes 3 bytes, its one-level groups 3: the writer "
                  "writes two-level groups only when they are smaller" +
                  At1);
  }
}

// A record of len bytes or more is refused as in the one-level forms (a two-level record
// smaller than its one-level groups is always smaller than len, so this names both).
TEST(TwoLevel, NotSmallerThanPayload) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    std::vector<uint8_t> G = {8, 0x01, 0xFF};
    for (uint8_t I = 1; I <= 8; ++I)
      G.push_back(I);
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, G))),
              "offset 33: " + std::string(K.Name) + " of a 8-byte payload takes 10 bytes: " +
                  (K.Changes ? "the writer writes the changes only when that is smaller "
                               "than the whole payload"
                             : K.Record == RecordKind::Checkpoint
                                 ? "the writer packs a checkpoint only when that is smaller "
                                   "than its payload"
                                 : "the writer packs an effect only when that is smaller "
                                   "than its payload") +
                  At1);
  }
}

TEST(TwoLevel, LengthOutOfRange) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    const std::string Range = K.Changes ? "an effect of changes holds 2 to 128 bytes"
                              : K.Record == RecordKind::Checkpoint
                                  ? "a packed checkpoint holds 1 to 128 bytes"
                                  : "a packed effect holds 1 to 128 bytes";
    const unsigned Short = K.Changes ? 1 : 0;
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {uint8_t(Short), 0x00}))),
              "offset 33: " + std::string(K.Name) + " of a " + std::to_string(Short) +
                  "-byte payload: " + Range + At1);
    // 129 bytes (a two-byte varint): more than a segment.
    EXPECT_EQ(decodeError(handTrace(ring(K.Tag, {0x81, 0x01, 0x01, 0x01, 0x01, 0x11}))),
              "offset 33: " + std::string(K.Name) + " of a 129-byte payload: " + Range + At1);
  }
}

// Reserved before format 8, as the tags 0x19, 0x1B and 0x1D are before format 10
// (ControlRecordsTest, CheckShortTest).
// The record starts the ring (ENTRY_S is reserved before format 7 too).
TEST(TwoLevel, ReservedBeforeFormat8) {
  for (const Kind &K : Kinds) {
    std::vector<uint8_t> R = {K.Tag, 5};
    R.insert(R.end(), TwoLevel.begin(), TwoLevel.end());
    for (uint8_t V = OldestTraceVersion; V < 8; ++V) {
      SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : "") + ", version " +
                   std::to_string(V));
      EXPECT_EQ(decodeError(handTrace(R, V)),
                "offset 32: record tag " + hex(K.Tag) + " is reserved in format " +
                    std::to_string(V) + " (record at ring offset 0, tail offset 0, segment 0)");
    }
  }
}

// A node stopped while the record was being closed (spec sections 1.1, 1.2): the check value
// may already cover it, and the decoder sizes the record at the saved head by its two-level
// groups to accept that value; the record itself is dropped with the open record.
TEST(TwoLevel, StoppedWhileClosing) {
  for (const Kind &K : Kinds) {
    SCOPED_TRACE(K.Name + std::string(K.Span ? " (span form)" : ""));
    std::vector<uint8_t> R = ring(K.Tag, {75, 0x01, 0x03, 0x08, 0x11, 0x04, 0x33, 0x04, 0x22});
    R.pop_back(); // no EXIT: the record ends at the head
    std::vector<uint8_t> B = handTrace(R); // its value covers the record: C1 for saved head 1
    B[30] = 1;
    B[31] = 0x80;
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    std::vector<TraceRecord> Rs = decodeAll(B);
    ASSERT_EQ(Rs.size(), 1u);
    EXPECT_EQ(Rs[0].Kind, RecordKind::Entry);
    // A value over all but the record's last byte is damage: the record's size decided it.
    const size_t Check = TraceHeaderSize + 2 * Seg; // segment 0's check value
    std::vector<uint8_t> Short = handTrace(ArrayRef<uint8_t>(R).drop_back());
    B[Check] = Short[Check];
    B[Check + 1] = Short[Check + 1];
    auto G = TraceFile::parse(B);
    ASSERT_TRUE(bool(G));
    EXPECT_EQ(G->damage().size(), 1u);
  }
}

} // namespace
