//===- OpenRecordTest.cpp - traces read while a record was being written --------===//
//
// spec/trace-format.md section 1.1: a node stopped inside a writer leaves `open` bit 15 set
// and the head it had before the record in bits 0-13; the decoder uses that head, so the
// incomplete record (and whatever the writer had half-updated in the header) is ignored,
// and a segment the record may have begun to overwrite is dropped. The torn states below
// are the ones the runtime's writers pass through (trace.c: open, PAD, head and wraps,
// record bytes, close).
//
//===----------------------------------------------------------------------===//
#include "TraceFormat.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace wsn;

namespace {

// As in TraceFormatTest.cpp (Debian's LLVM 19 ships no LLVMTestingSupport).
enum Want { Succeeded, Failed };
template <typename T>::testing::AssertionResult checkOk(Expected<T> &E, Want W) {
  if (bool(E) == (W == Succeeded)) {
    if (!E)
      consumeError(E.takeError());
    return ::testing::AssertionSuccess();
  }
  if (!E)
    return ::testing::AssertionFailure() << "unexpected error: " << toString(E.takeError());
  return ::testing::AssertionFailure() << "expected an error";
}
template <typename T>::testing::AssertionResult checkOk(Expected<T> &&E, Want W) {
  return checkOk(E, W);
}
#define ASSERT_THAT_EXPECTED(E, M) ASSERT_TRUE(checkOk(E, M))
#define EXPECT_THAT_EXPECTED(E, M) EXPECT_TRUE(checkOk(E, M))

TraceWriter writer(uint16_t Buf, uint16_t Seg) {
  TraceWriter::Options O;
  O.BufSize = Buf;
  O.SegSize = Seg;
  auto W = TraceWriter::create(O);
  EXPECT_THAT_EXPECTED(W, Succeeded);
  return std::move(*W);
}

std::vector<TraceRecord> records(ArrayRef<uint8_t> File) {
  auto T = TraceFile::parse(File);
  EXPECT_THAT_EXPECTED(T, Succeeded);
  if (!T)
    return {};
  auto R = T->decode();
  EXPECT_THAT_EXPECTED(R, Succeeded);
  return R ? *R : std::vector<TraceRecord>();
}

/// The file as a stop inside the writer of the record that turned Before into After leaves
/// it: After's ring and header, payload bytes from FirstTorn on not written yet (garbage),
/// and `open` holding Before's head.
std::vector<uint8_t> torn(const std::vector<uint8_t> &Before, const std::vector<uint8_t> &After,
                          size_t FirstTorn, size_t TornEnd) {
  std::vector<uint8_t> B = After;
  for (size_t I = FirstTorn; I < TornEnd; ++I)
    B[32 + I] = 0xA5;
  uint16_t Head = uint16_t(Before[16] | (Before[17] << 8));
  B[30] = uint8_t(Head);
  B[31] = uint8_t((Head >> 8) | 0x80);
  // __wsn_rt_close has not run: the check values (section 1.2) are still Before's.
  size_t Checks = 32 + size_t(Before[12] | (Before[13] << 8));
  std::copy(Before.begin() + Checks, Before.end(), B.begin() + Checks);
  return B;
}

/// After, with `open` still holding Before's head: stopped inside __wsn_rt_close after the
/// check value was stored (Half: only its low byte), before the record was closed.
std::vector<uint8_t> sealedButOpen(const std::vector<uint8_t> &Before,
                                   const std::vector<uint8_t> &After, unsigned Segment,
                                   bool Half) {
  std::vector<uint8_t> B = torn(Before, After, 0, 0);
  size_t C = 32 + size_t(Before[12] | (Before[13] << 8)) + 2 * Segment;
  B[C] = After[C];
  if (!Half)
    B[C + 1] = After[C + 1];
  return B;
}

TEST(OpenRecord, TornPayloadInTheCurrentSegmentIsDropped) {
  TraceWriter W = writer(256, 64);
  W.entry(1);
  W.input(3, 200);
  std::vector<uint8_t> Before = W.bytes();
  uint16_t At = W.header().Head;
  W.checkpoint(1, std::vector<uint8_t>(12, 0x5C));
  std::vector<uint8_t> After = W.bytes();
  // Stopped after 5 of the 12 payload bytes: tag, anchor and len (3 bytes) are written.
  std::vector<uint8_t> B = torn(Before, After, At + 3 + 5, At + 3 + 12);
  auto T = TraceFile::parse(B);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_TRUE(T->header().open());
  EXPECT_EQ(T->header().Head, At);
  EXPECT_EQ(T->header().RawHead, At + 15);
  EXPECT_EQ(T->tornBytes(), 15u);
  EXPECT_EQ(T->droppedOpenSegment(), -1);
  EXPECT_EQ(records(B), records(Before));
  // Not a PAD at the saved head: nothing went to the next segment.
  std::vector<uint8_t> Later = B;
  EXPECT_NE(Later[32 + At], 0);
  // A closed record with the same bytes would decode as a checkpoint with stale bytes: the
  // open bit is what tells them apart, and the segment's check value (section 1.2) shows
  // that these are not the bytes the runtime sealed.
  std::vector<uint8_t> Closed = B;
  Closed[31] = 0;
  Closed[16] = After[16];
  Closed[17] = After[17];
  auto TC = TraceFile::parse(Closed);
  ASSERT_THAT_EXPECTED(TC, Succeeded);
  ASSERT_EQ(TC->damage().size(), 1u);
  EXPECT_EQ(TC->damage()[0].Segment, 0u);
  EXPECT_THAT_EXPECTED(TC->decode(), Failed);
}

TEST(OpenRecord, StopInsideTheSealIsNotDamage) {
  // The record is complete and __wsn_rt_close has stored its segment's new check value
  // (or only the low byte of it) when the node stops: the open segment is intact.
  TraceWriter W = writer(256, 64);
  W.entry(1);
  W.input(3, 200);
  std::vector<uint8_t> Before = W.bytes();
  W.checkpoint(1, std::vector<uint8_t>(12, 0x5C));
  std::vector<uint8_t> After = W.bytes();
  for (bool Half : {false, true}) {
    std::vector<uint8_t> B = sealedButOpen(Before, After, 0, Half);
    auto T = TraceFile::parse(B);
    ASSERT_THAT_EXPECTED(T, Succeeded);
    EXPECT_TRUE(T->header().open());
    EXPECT_TRUE(T->damage().empty()) << (Half ? "half" : "whole");
    EXPECT_EQ(records(B), records(Before));
    // Any other value is damage.
    B[32 + 256] ^= 0x40;
    auto T2 = TraceFile::parse(B);
    ASSERT_THAT_EXPECTED(T2, Succeeded);
    EXPECT_EQ(T2->damage().size(), 1u);
  }
  // The PAD case: the record went on to segment 1; segment 0's value has the PAD folded in.
  TraceWriter P = writer(256, 64);
  for (unsigned I = 0; I < 30; ++I)
    P.sched(uint16_t(I)); // head 60
  std::vector<uint8_t> PB = P.bytes();
  P.inputBytes(2, std::vector<uint8_t>(7, 0x11)); // PAD at 60, record at 64
  std::vector<uint8_t> PA = P.bytes();
  ASSERT_EQ(PA[32 + 60], 0);
  for (bool Half : {false, true}) {
    std::vector<uint8_t> B = sealedButOpen(PB, PA, 0, Half);
    auto T = TraceFile::parse(B);
    ASSERT_THAT_EXPECTED(T, Succeeded);
    EXPECT_TRUE(T->damage().empty()) << (Half ? "half" : "whole");
    EXPECT_EQ(records(B), records(PB));
  }
}

TEST(OpenRecord, StopBeforeTheHeadMovedKeepsEverything) {
  TraceWriter W = writer(256, 64);
  W.entry(1);
  std::vector<uint8_t> Before = W.bytes();
  // Opened, nothing else written yet: the stored head is still the saved one.
  std::vector<uint8_t> B = torn(Before, Before, 0, 0);
  auto T = TraceFile::parse(B);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_EQ(T->tornBytes(), 0u);
  EXPECT_EQ(records(B), records(Before));
}

TEST(OpenRecord, AStaleByteAtTheSavedHeadKeepsTheNextSegment) {
  // Wrapped ring, stopped right after opening a record that fits: the byte at the saved head
  // is a stale non-zero byte, so segment 1 (oldest) stays in the tail.
  TraceWriter W = writer(64, 16);
  for (unsigned I = 0; I < 38; ++I)
    W.sched(uint16_t(I)); // head 12 in segment 0, wrapped; data[12] = old SCHED tag
  std::vector<uint8_t> Before = W.bytes();
  ASSERT_EQ(Before[32 + 12], uint8_t(RecordKind::Sched));
  std::vector<uint8_t> B = torn(Before, Before, 0, 0);
  auto T = TraceFile::parse(B);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_EQ(T->droppedOpenSegment(), -1);
  EXPECT_EQ(records(B), records(Before));
}

TEST(OpenRecord, ClosingLeavesOnlyTheLowByte) {
  // The runtime closes a record by clearing the high byte of `open`: what stays is the low
  // byte of the head the last record started at (the writer mirrors it byte for byte).
  TraceWriter W = writer(1024, 256);
  for (unsigned I = 0; I < 100; ++I)
    W.sched(uint16_t(I)); // 2 bytes each: head 200
  W.sched(7);
  EXPECT_EQ(W.header().Open, 200u);
  for (unsigned I = 0; I < 40; ++I)
    W.sched(uint16_t(I)); // head 282, the last record started at 280 = 0x118
  EXPECT_EQ(W.header().Open, 0x18u);
  auto T = TraceFile::parse(W.bytes());
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_FALSE(T->header().open());
}

TEST(OpenRecord, EnteringTheOldestSegmentOfAWrappedRingDropsIt) {
  // 4 segments of 16 bytes; SCHED records of 2 bytes, a 10-byte INPUT_BYTES to force a PAD.
  TraceWriter W = writer(64, 16);
  for (unsigned I = 0; I < 36; ++I) // one lap and 8 bytes: head 8 in segment 0, wrapped
    W.sched(uint16_t(I));
  W.sched(50); // head 10
  W.sched(51); // head 12
  std::vector<uint8_t> Before = W.bytes();
  ASSERT_TRUE(W.header().wrapped());
  ASSERT_EQ(W.header().Head, 12);
  W.inputBytes(2, std::vector<uint8_t>(7, 0x11)); // 10 bytes: PAD at 12, record at 16..26
  std::vector<uint8_t> After = W.bytes();
  ASSERT_EQ(W.header().Head, 26);
  // Stopped after the tag: segment 1 (the oldest retained one) is half overwritten. The PAD
  // at the saved head says the record went on to the next segment.
  std::vector<uint8_t> B = torn(Before, After, 17, 26);
  ASSERT_EQ(B[32 + 12], 0);
  auto T = TraceFile::parse(B);
  ASSERT_THAT_EXPECTED(T, Succeeded);
  EXPECT_EQ(T->droppedOpenSegment(), 1);
  ASSERT_EQ(T->tail().size(), 3u); // segments 2, 3 and the written part of 0
  EXPECT_EQ(T->tail()[0].Segment, 2u);
  // The records of Before outside segment 1, at the same ring offsets (their offsets in
  // the linearised tail move up by the 16 bytes dropped).
  auto R = records(B);
  std::vector<std::pair<uint32_t, uint32_t>> Got, Want;
  for (const TraceRecord &Rec : R)
    Got.push_back({Rec.RingOffset, Rec.Fields[0]});
  for (const TraceRecord &Rec : records(Before))
    if (Rec.Segment != 1)
      Want.push_back({Rec.RingOffset, Rec.Fields[0]});
  EXPECT_EQ(Got, Want);
  ASSERT_FALSE(R.empty());
  EXPECT_EQ(R.back().Fields[0], 51u);
}

TEST(OpenRecord, FirstWrapHalfDone) {
  // The first wrap: the writer sets the wrapped flag and counts the lap while the record is
  // open, so a stop in between shows the flag without a lap (or the reverse): not an error
  // with an open record, and both readings give the same tail.
  TraceWriter W = writer(64, 16);
  for (unsigned I = 0; I < 31; ++I)
    W.sched(uint16_t(I)); // head 62, not wrapped
  std::vector<uint8_t> Before = W.bytes();
  for (uint8_t Flags : {uint8_t(0), uint8_t(1)}) {
    std::vector<uint8_t> B = torn(Before, Before, 0, 0);
    B[32 + 62] = 0;                // the PAD: the record goes on to segment 0
    B[18] = Flags;                 // wrapped flag
    B[20] = uint8_t(1 - Flags);    // wraps, half-updated the other way round
    B[32] = 0xA5;                  // the record began to overwrite segment 0
    auto T = TraceFile::parse(B);
    ASSERT_THAT_EXPECTED(T, Succeeded);
    EXPECT_EQ(T->droppedOpenSegment(), 0);
    auto R = records(B);
    ASSERT_EQ(R.size(), 31u - 8u); // segment 0's eight records are gone
    EXPECT_EQ(R.front().Fields[0], 8u);
    EXPECT_EQ(R.back().Fields[0], 30u);
  }
  // Without the open bit, the same header is rejected.
  std::vector<uint8_t> B = Before;
  B[18] = 1;
  EXPECT_THAT_EXPECTED(TraceFile::parse(B), Failed);
}

} // namespace
