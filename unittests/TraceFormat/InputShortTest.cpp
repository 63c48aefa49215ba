//===- InputShortTest.cpp - INPUT_S records (trace format 6) --------------===//
//
// spec/trace-format.md section 3.4: an input whose site is within -8..7 of the previous INPUT
// of its segment is written as one tag byte 0x20 + 16k + (d & 15), its value one of the
// segment's four recent values (k = 1..4, slot k - 1) or a varint after the tag (k = 0). The
// host runtime and TraceWriter write the same bytes; the decoder gives ordinary INPUT records
// back (site and value resolved, TraceRecord::Short set); every malformed or cut-off INPUT_S,
// and one with no earlier INPUT in its segment, is refused with its offsets.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>
#include <utility>

using namespace wsn;
using llvm::ArrayRef;

namespace {

using namespace wsn::recordtest;

class InputShort : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
  // Both writers take the same input.
  void input(TraceWriter &W, uint16_t Site, uint32_t Value) {
    __wsn_rt_input(Site, Value);
    W.input(Site, Value);
  }
};

// The record bytes, section 3.4's example: a plain INPUT starts the segment's state (four
// slots of 0, the previous site); near sites name a slot or give the value; a far site, a
// value over 16 bits or a value in no slot change the state as the spec says.
TEST_F(InputShort, Layout) {
  TraceWriter W = writer();
  input(W, 300, 5);       // 07 AC 02 05: no earlier INPUT; slots 5 0 0 0, next 1
  input(W, 301, 5);       // 31: d +1, slot 0
  input(W, 299, 0);       // 4E: d -2, slot 1 (a 0 of the fresh slots)
  input(W, 299, 1000);    // 20 E8 07: d 0, the value; slots 5 1000 0 0, next 2
  input(W, 320, 7);       // 07 C0 02 07: d 21 is too far; slots 5 1000 7 0, next 3
  input(W, 321, 0x12345); // 07 C1 02 C5 C6 04: over 16 bits, plain; the site only
  input(W, 322, 1000);    // 41: d +1, slot 1
  input(W, 315, 0x7F);    // 29 7F: d -7; slots 5 1000 7 127, next 0
  input(W, 316, 8);       // 21 08: slots 8 1000 7 127, next 1
  input(W, 317, 5);       // 21 05: 5 went out with the slot it was in
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<uint8_t> B = W.bytes();
  std::vector<uint8_t> Want = {0x07, 0xAC, 0x02, 0x05, 0x31, 0x4E, 0x20, 0xE8, 0x07,
                               0x07, 0xC0, 0x02, 0x07, 0x07, 0xC1, 0x02, 0xC5, 0xC6,
                               0x04, 0x41, 0x29, 0x7F, 0x21, 0x08, 0x21, 0x05};
  EXPECT_EQ(ArrayRef<uint8_t>(B).slice(TraceHeaderSize, Want.size()).vec(), Want);
  EXPECT_EQ(W.header().Head, Want.size());

  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F));
  auto Rs = F->decode();
  ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  std::vector<std::pair<uint32_t, uint32_t>> Got;
  for (const TraceRecord &R : *Rs) {
    ASSERT_EQ(R.Kind, RecordKind::Input);
    Got.push_back({R.Fields[0], R.Fields[1]});
  }
  EXPECT_EQ(Got, (std::vector<std::pair<uint32_t, uint32_t>>{{300, 5},
                                                             {301, 5},
                                                             {299, 0},
                                                             {299, 1000},
                                                             {320, 7},
                                                             {321, 0x12345},
                                                             {322, 1000},
                                                             {315, 0x7F},
                                                             {316, 8},
                                                             {317, 5}}));
  EXPECT_FALSE((*Rs)[0].Short);
  EXPECT_TRUE((*Rs)[1].Short);
  EXPECT_EQ((*Rs)[1].Slot, 0);
  EXPECT_EQ((*Rs)[1].Size, 1u);
  EXPECT_EQ((*Rs)[2].Slot, 1);
  EXPECT_TRUE((*Rs)[3].Short);
  EXPECT_EQ((*Rs)[3].Slot, -1);
  EXPECT_EQ((*Rs)[3].Size, 3u);
  EXPECT_FALSE((*Rs)[4].Short);
  EXPECT_FALSE((*Rs)[5].Short);
  EXPECT_EQ((*Rs)[6].Slot, 1);
}

// The state is the segment's: the first input of a segment is plain however near its site,
// an INPUT_S that does not fit in the rest of a segment is written plain at the next one's
// start, and one that ends exactly at a segment's end leaves the next segment fresh.
TEST_F(InputShort, SegmentsStartAfresh) {
  TraceWriter W = writer(1024, 256);
  input(W, 10, 1); // 07 0A 01
  for (unsigned I = 0; I < 125; ++I) {
    __wsn_rt_sched(1); // 05 01
    W.sched(1);
  }
  // Head 253: 3 bytes left. An INPUT_S with a 3-byte value (4 bytes) does not fit: plain
  // (07 0B A0 9C 01) after a PAD, the first record of segment 1.
  input(W, 11, 20000);
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<uint8_t> B = W.bytes();
  EXPECT_EQ(B[TraceHeaderSize + 253], 0x00);
  EXPECT_EQ(ArrayRef<uint8_t>(B).slice(TraceHeaderSize + 256, 5).vec(),
            (std::vector<uint8_t>{0x07, 0x0B, 0xA0, 0x9C, 0x01}));
  // Near and in a slot: 31 (d +1, slot 0 = 20000).
  input(W, 12, 20000);
  EXPECT_EQ(W.bytes()[TraceHeaderSize + 261], 0x31);
  // Fill segment 1 up to its last byte, which the next INPUT_S (1 byte) takes exactly.
  for (unsigned I = 0; I < 123; ++I) {
    __wsn_rt_sched(1);
    W.sched(1);
  }
  __wsn_rt_entry(200); // 01 C8 01: 262 + 246 + 3 = 511
  W.entry(200);
  ASSERT_EQ(W.header().Head, 511u);
  input(W, 13, 20000); // 31 at 511; the head enters segment 2
  ASSERT_EQ(W.header().Head, 512u);
  input(W, 14, 20000); // segment 2 has no earlier INPUT: plain 07 0E A0 9C 01
  ASSERT_EQ(runtimeBytes(), W.bytes());
  B = W.bytes();
  EXPECT_EQ(B[TraceHeaderSize + 511], 0x31);
  EXPECT_EQ(ArrayRef<uint8_t>(B).slice(TraceHeaderSize + 512, 5).vec(),
            (std::vector<uint8_t>{0x07, 0x0E, 0xA0, 0x9C, 0x01}));
  auto F = TraceFile::parse(B);
  ASSERT_TRUE(bool(F));
  for (unsigned S = 0; S < 3; ++S) {
    std::vector<TraceRecord> Out;
    ASSERT_EQ(errorOf(F->decodeSegment(S, Out)), "success") << "segment " << S;
  }
}

// A quiet handler (inside a skipped call) writes no INPUT and leaves the state as it was.
TEST_F(InputShort, QuietHandlersChangeNothing) {
  TraceWriter W = writer();
  input(W, 40, 3);
  __wsn_rt_skip_begin(9);
  W.skipBegin(9);
  __wsn_rt_irq_entry(2); // quiet
  __wsn_rt_input(80, 77);
  __wsn_rt_irq_exit(2);
  __wsn_rt_skip_end(9);
  W.skipEnd(9);
  input(W, 41, 3); // 31: site 40 + 1, slot 0
  ASSERT_EQ(runtimeBytes(), W.bytes());
  EXPECT_EQ(W.bytes()[TraceHeaderSize + W.header().Head - 1], 0x31);
}

// Over several wraps, with inputs among other records, near and far sites, repeated and new
// values, values over 16 bits and quiet handlers, the runtime and the writer agree; every
// segment decodes on its own and gives back exactly the inputs written.
TEST_F(InputShort, RuntimeAndWriterAgree) {
  TraceWriter W = writer();
  std::vector<std::pair<uint32_t, uint32_t>> Written;
  uint32_t Seed = 20;
  unsigned Short = 0, Slots = 0;
  uint16_t Site = 200;
  for (unsigned Step = 0; Step < 3000; ++Step) {
    Seed = Seed * 1103515245u + 12345u;
    const uint32_t R = Seed >> 8;
    switch (R % 8) {
    case 0:
      __wsn_rt_entry(uint16_t(R % 300));
      W.entry(uint16_t(R % 300));
      break;
    case 1: { // a quiet handler's input: not written
      __wsn_rt_skip_begin(7);
      W.skipBegin(7);
      __wsn_rt_irq_entry(1);
      __wsn_rt_input(uint16_t(R % 500), R % 3);
      __wsn_rt_irq_exit(1);
      __wsn_rt_skip_end(7);
      W.skipEnd(7);
      break;
    }
    default: {
      Site = uint16_t(R % 11 == 0 ? R % 400 : Site + int(R >> 4 & 7) - 3);
      uint32_t V = R % 13 == 0   ? 0x10000u + R % 1000
                   : R % 3 == 0  ? (R >> 5) % 0xFFFFu
                   : R % 5 == 0  ? (R >> 5) % 200u
                                 : (R >> 7) % 4u * 0x3F;
      input(W, Site, V);
      Written.push_back({Site, V});
      break;
    }
    }
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "step " << Step;
  }
  auto F = TraceFile::parse(W.bytes());
  ASSERT_TRUE(bool(F));
  EXPECT_GT(F->header().Wraps, 3u);
  auto Rs = F->decode();
  ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  std::vector<std::pair<uint32_t, uint32_t>> Got;
  for (const TraceRecord &R : *Rs)
    if (R.Kind == RecordKind::Input) {
      Got.push_back({R.Fields[0], R.Fields[1]});
      Short += R.Short;
      Slots += R.Slot >= 0;
    }
  ASSERT_FALSE(Got.empty());
  ASSERT_LE(Got.size(), Written.size());
  // The tail holds the last inputs written.
  using Inputs = std::vector<std::pair<uint32_t, uint32_t>>;
  EXPECT_EQ(Got, Inputs(Written.end() - Got.size(), Written.end()));
  EXPECT_GT(Short, Got.size() / 2);
  EXPECT_GT(Slots, 0u);
  for (unsigned S = 0; S < F->header().numSegments(); ++S) {
    std::vector<TraceRecord> Out;
    EXPECT_EQ(errorOf(F->decodeSegment(S, Out)), "success") << "segment " << S;
  }
}

// Malformed records: each is refused with the file offset of what is wrong and the record's
// ring offset, tail offset and segment.
class InputShortErrors : public InputShort {
protected:
  // ENTRY 101 (01 65: a fid over 46), INPUT 300 5 (07 AC 02 05), INPUT_S +1 value 1000 (21 E8
  // 07), EXIT 101.
  std::vector<uint8_t> base() {
    TraceWriter W = writer();
    W.entry(101);
    W.input(300, 5);
    W.input(301, 1000);
    W.exit(101);
    std::vector<uint8_t> B = W.bytes();
    EXPECT_EQ(ArrayRef<uint8_t>(B).slice(TraceHeaderSize, 12).vec(),
              (std::vector<uint8_t>{0x01, 0x65, 0x07, 0xAC, 0x02, 0x05, 0x21, 0xE8, 0x07, 0x02,
                                    0x65, 0x00}));
    return B;
  }
  static constexpr size_t S = TraceHeaderSize + 6; // the INPUT_S tag in the file
  static constexpr size_t HeadAt = 16;              // the header's head field
};

TEST_F(InputShortErrors, IntactDecodes) {
  auto F = TraceFile::parse(base());
  ASSERT_TRUE(bool(F));
  auto Rs = F->decode();
  ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  ASSERT_EQ(Rs->size(), 4u);
  EXPECT_EQ((*Rs)[2].Kind, RecordKind::Input);
  EXPECT_EQ((*Rs)[2].Fields[0], 301u);
  EXPECT_EQ((*Rs)[2].Fields[1], 1000u);
  EXPECT_EQ((*Rs)[2].Size, 3u);
  EXPECT_TRUE((*Rs)[2].Short);
}

// No last value to refer to: an INPUT_S before any INPUT of its segment.
TEST_F(InputShortErrors, NoEarlierInput) {
  TraceWriter W = writer();
  W.entry(101);
  W.entry(101);
  W.exit(101); // 01 65 01 65 02 65
  std::vector<uint8_t> B = W.bytes();
  B[TraceHeaderSize + 2] = 0x31; // 01 65 | 31 | 65 02 65: INPUT_S +1, slot 0
  EXPECT_EQ(decodeError(B),
            "offset 34: INPUT_S (tag 0x31, site +1, recent slot 0) has no INPUT before it in "
            "its segment to take its site from (record at ring offset 2, tail offset 2, "
            "segment 0)");
}

// Cut off by the write head and by the end of its segment.
TEST_F(InputShortErrors, Truncated) {
  std::vector<uint8_t> B = base();
  B[HeadAt] = 6 + 2; // the head after the value's first byte
  EXPECT_EQ(decodeError(B),
            "offset 40: record runs past the end of its segment while reading value (the "
            "write head is there) (record at ring offset 6, tail offset 6, segment 0)");
  B = base();
  B[HeadAt] = 6 + 1; // after the tag
  EXPECT_EQ(decodeError(B),
            "offset 39: record runs past the end of its segment while reading value (the "
            "write head is there) (record at ring offset 6, tail offset 6, segment 0)");
}

TEST_F(InputShortErrors, PastSegmentEnd) {
  TraceWriter W = writer(1024, 256);
  W.input(20, 1);   // 07 14 01
  for (unsigned I = 0; I < 126; ++I)
    W.sched(1);     // 3 + 252: 1 byte left in segment 0
  W.entry(103);       // does not fit: PAD at 255
  W.entry(104);
  std::vector<uint8_t> B = W.bytes();
  ASSERT_EQ(B[TraceHeaderSize + 255], 0x00);
  B[TraceHeaderSize + 255] = 0x22; // INPUT_S +2 whose value would follow
  EXPECT_EQ(decodeError(B),
            "offset 288: record runs past the end of its segment while reading value "
            "(record at ring offset 255, tail offset 255, segment 0)");
}

TEST_F(InputShortErrors, BadVarint) {
  std::vector<uint8_t> B = base();
  // The value's varint never ends within 5 bytes: 21 E8 87 81 81 81 ...
  B[S + 2] = 0x87;
  B[S + 3] = 0x81;
  B[S + 4] = 0x81;
  B[S + 5] = 0x81;
  B[HeadAt] = 20;
  EXPECT_EQ(decodeError(B),
            "offset 44: varint value is longer than 5 bytes (record at ring offset 6, tail "
            "offset 6, segment 0)");
  // A value over 16 bits (E8 87 04 = 0x103E8): the writer writes such values as INPUT.
  B = base();
  B[S + 2] = 0x87;
  B[S + 3] = 0x04;
  B[S + 4] = 0x02; // EXIT 1 follows
  B[S + 5] = 0x01;
  B[HeadAt] = 12;
  EXPECT_EQ(decodeError(B),
            "offset 38: INPUT_S value 66536 is over 16 bits (the writer writes such a value "
            "as INPUT) (record at ring offset 6, tail offset 6, segment 0)");
}

// The writer names the slot of a recent value: a value given that a slot holds is not its.
TEST_F(InputShortErrors, ValueInASlot) {
  std::vector<uint8_t> B = base();
  B[S + 1] = 0x05; // 21 05: the value 5, which slot 0 holds since the INPUT before
  B[S + 2] = 0x02; // EXIT 1, then ENTRY of ... : shift the EXIT one byte back
  B[S + 3] = 0x01;
  B[HeadAt] = 10;
  EXPECT_EQ(decodeError(B),
            "offset 38: INPUT_S (tag 0x21, site +1) gives the value 5, which is the segment's "
            "recent value in slot 0 (the writer names the slot) (record at ring offset 6, tail "
            "offset 6, segment 0)");
}

TEST_F(InputShortErrors, ReservedBeforeFormat6) {
  std::vector<uint8_t> B = base();
  for (uint8_t V : {5, 4, 3, 2}) {
    B[4] = V;
    EXPECT_EQ(decodeError(B), "offset 38: record tag 0x21 is reserved in format " +
                                  std::to_string(V) +
                                  " (record at ring offset 6, tail offset 6, segment 0)");
  }
  // Tags past INPUT_S's are reserved in format 6 (format 7's IRQ_S there); 0x98 stays
  // reserved in format 7 too (format 9's REPEAT).
  B = base();
  B[S] = 0x70;
  B[4] = 6;
  EXPECT_EQ(decodeError(B), "offset 38: record tag 0x70 is reserved in format 6 (record at ring "
                            "offset 6, tail offset 6, segment 0)");
  B = base();
  B[S] = 0x98;
  B[4] = 7;
  EXPECT_EQ(decodeError(B), "offset 38: record tag 0x98 is reserved in format 7 (record at ring "
                            "offset 6, tail offset 6, segment 0)");
}

// A node stopped inside the record (section 1.1): the decoder drops it and keeps the rest.
TEST_F(InputShortErrors, StoppedInside) {
  for (unsigned RawHead : {6u + 3u, 6u + 1u, 6u}) {
    std::vector<uint8_t> B = base();
    B[HeadAt] = uint8_t(RawHead);
    B[30] = 6;    // open: saved head 6
    B[31] = 0x80; // bit 15
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    auto Rs = F->decode();
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
    ASSERT_EQ(Rs->size(), 2u) << RawHead;
    EXPECT_EQ((*Rs)[1].Kind, RecordKind::Input);
    EXPECT_FALSE((*Rs)[1].Short);
  }
}

} // namespace
