//===- EffectCTest.cpp - EFFECT_C records (trace format 5) ----------------===//
//
// spec/trace-format.md section 3.3: the effect of a skipped call during which no handler ran
// is written as the bytes the call changed (a mask byte per 8 payload bytes, then the bytes it
// marks), compared with a snapshot taken before the call (return bytes: with 0), when that is
// smaller than the plain EFFECT. The host runtime and TraceWriter write the same bytes; the
// decoder returns an EFFECT whose Given marks the bytes it holds; every malformed or cut-off
// EFFECT_C is refused with its offsets; a node stopped inside one leaves an open record.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

using namespace wsn;
using llvm::ArrayRef;

namespace {

using namespace wsn::recordtest;

TEST(EffectCGroups, Encoding) {
  EXPECT_EQ(packChangeGroups({}, {}), std::vector<uint8_t>{});
  std::vector<uint8_t> Same(8, 0xFF);
  EXPECT_EQ(packChangeGroups(Same, Same), std::vector<uint8_t>{0});
  // Bytes 1 (to 0x00: a change to zero is given too), 7 and 10 differ.
  EXPECT_EQ(packChangeGroups({0, 5, 0, 0, 0, 0, 0, 1, 2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 9, 2, 2, 3}),
            (std::vector<uint8_t>{0x82, 0, 9, 0x04, 3}));
}

class EffectC : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

// The runtime and TraceWriter agree over several wraps on a mix of effects of changes, effects
// with a handler inside the span (whole), and effects whose changes would not be smaller
// (whole); the decoder gives the changed bytes and marks them.
TEST_F(EffectC, RuntimeAndWriterAgree) {
  TraceWriter W = writer();
  uint8_t Queue[15];
  uint16_t State = 0;
  uint8_t Flag = 0;
  for (uint8_t &B : Queue)
    B = 0xFF;
  EffTable T(2, {{Queue, 15}, {&State, 2}, {&Flag, 1}});
  auto Payload = [&](uint16_t Ret) {
    std::vector<uint8_t> P{uint8_t(Ret), uint8_t(Ret >> 8)};
    P.insert(P.end(), Queue, Queue + 15);
    P.push_back(uint8_t(State));
    P.push_back(uint8_t(State >> 8));
    P.push_back(Flag);
    return P;
  };
  unsigned NumC = 0, NumWhole = 0, NumDelta = 0;
  uint8_t Snap[64];
  for (unsigned I = 0; I < 400; ++I) {
    uint16_t Site = uint16_t(3 + I % 3 * 100); // 1- and 2-byte varints
    __wsn_rt_skip_begin(Site);
    W.skipBegin(Site);
    std::vector<uint8_t> Before = Payload(0);
    ASSERT_EQ(__wsn_rt_snap(T.addr(), Snap), 18u);
    bool Handler = I % 23 == 19;
    if (Handler) { // quiet: the span is open; the effect must then be whole
      uint16_t C = __wsn_rt_irq_enter(2);
      __wsn_rt_irq_leave(2, C);
    }
    // The call: a few bytes change; now and then all of them (not smaller).
    State = uint16_t(State + 1);
    if (I % 29 == 27)
      for (uint8_t &B : Queue)
        B = uint8_t(B + 1);
    else
      Queue[I % 15] = uint8_t(I);
    Flag = uint8_t(I & 1);
    uint16_t Ret = I % 4 ? 0 : uint16_t(I);
    __wsn_rt_skip_effect_c(Site, T.addr(), Ret, Snap);
    if (Handler)
      W.skipEffect(Site, Payload(Ret));
    else
      W.skipEffectC(Site, Before, Payload(Ret));
    // The effect just written (the last EFFECT decoded) is counted by its form.
    {
      std::vector<TraceRecord> Rs = decodeAll(W.bytes());
      for (size_t J = Rs.size(); J-- > 0;)
        if (Rs[J].Kind == RecordKind::Effect) {
          const TraceRecord &R = Rs[J];
          ASSERT_EQ(R.Payload.size(), 20u);
          if (!R.Given.empty()) {
            ++NumC;
            EXPECT_FALSE(R.given(0) && R.Payload[0] == 0 && R.given(1) && R.Payload[1] == 0);
          } else {
            ++(R.Delta ? NumDelta : NumWhole);
          }
          break;
        }
    }
    __wsn_rt_entry(uint16_t(I * 37 % 300)); // 1 to 3 bytes (format 7's ENTRY_S)
    W.entry(uint16_t(I * 37 % 300));
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "after effect " << I;
  }
  EXPECT_GT(W.header().Wraps, 2u);
  for (const TraceRecord &R : decodeAll(W.bytes())) {
    if (R.Kind != RecordKind::Effect)
      continue;
    ASSERT_EQ(R.Payload.size(), 20u);
  }
  EXPECT_GT(NumC, 0u);
  EXPECT_GT(NumWhole, 0u);
  EXPECT_GT(NumDelta, 0u);
}

// The layout: SKIP_END, then `12 site len` and the groups; a return value of 0 and bytes the
// call kept cost nothing. A table with nothing but a return value needs no snapshot.
TEST_F(EffectC, Layout) {
  uint8_t Buf[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EffTable T(2, {{Buf, 10}});
  uint8_t Snap[10];
  __wsn_rt_skip_begin(9);
  EXPECT_EQ(__wsn_rt_snap(T.addr(), Snap), 10u);
  Buf[6] = 0x70; // payload byte 8
  __wsn_rt_skip_effect_c(9, T.addr(), 0, Snap);
  std::vector<TraceRecord> Rs = decodeAll(runtimeBytes());
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[0].Kind, RecordKind::SkipBegin);
  EXPECT_EQ(Rs[1].Kind, RecordKind::SkipEnd);
  const TraceRecord &E = Rs[2];
  EXPECT_EQ(E.Kind, RecordKind::Effect);
  EXPECT_EQ(E.id(), 9u);
  // The span is empty (format 7, section 3.5): SPAN_EFFECT_C where the SKIP_BEGIN was,
  // 1a 09 0c | 00 | 01 70 : 6 bytes against 2 + 2 + 15 plain.
  EXPECT_TRUE(Rs[0].Span && Rs[1].Span && E.Span);
  EXPECT_EQ(E.RingOffset, 0u);
  EXPECT_EQ(Rs[0].RingOffset, 0u);
  EXPECT_EQ(E.Size, 6u);
  auto Ring = ArrayRef<uint8_t>(runtimeBytes()).drop_front(TraceHeaderSize);
  EXPECT_EQ(Ring.slice(E.RingOffset, 6).vec(),
            (std::vector<uint8_t>{0x1A, 9, 12, 0x00, 0x01, 0x70}));
  std::vector<uint8_t> Given(12, 0);
  Given[8] = 1;
  EXPECT_EQ(E.Given, Given);
  EXPECT_EQ(E.Payload[8], 0x70);
  EXPECT_TRUE(E.given(8));
  EXPECT_FALSE(E.given(0));

  // A return value only (no variables): compared with 0; 0x0100 gives byte 1 alone.
  EffTable R(2, {});
  EXPECT_EQ(__wsn_rt_snap(R.addr(), nullptr), 0u);
  __wsn_rt_skip_begin(4);
  __wsn_rt_skip_effect_c(4, R.addr(), 0x0100, nullptr);
  Rs = decodeAll(runtimeBytes());
  // 1 mask + 1 byte is not smaller than the 2-byte payload: the plain EFFECT.
  EXPECT_TRUE(Rs.back().Given.empty());
  EXPECT_EQ(Rs.back().Payload, (std::vector<uint8_t>{0, 1}));
}

// Above WSN_TRACE_SNAP_MAX no snapshot is taken and the effect is whole.
TEST_F(EffectC, SnapshotCap) {
  static uint8_t Big[WSN_TRACE_SNAP_MAX + 1];
  EffTable T(0, {{Big, uint8_t(WSN_TRACE_SNAP_MAX + 1)}});
  EXPECT_EQ(__wsn_rt_snap(T.addr(), nullptr), 0u);
  uint8_t Snap[8] = {};
  __wsn_rt_skip_begin(1);
  __wsn_rt_skip_effect_c(1, T.addr(), 0, Snap);
  std::vector<TraceRecord> Rs = decodeAll(runtimeBytes());
  EXPECT_TRUE(Rs.back().Given.empty());
  EXPECT_EQ(Rs.back().Payload.size(), size_t(WSN_TRACE_SNAP_MAX + 1));
}

class EffectCErrors : public ::testing::Test {
protected:
  // ENTRY 100 at ring 0 (2 bytes: a fid over 46), then a 20-byte EFFECT_C at ring 2 with
  // bytes 1, 9 and 19 changed: 12 05 14 | 02 AA | 02 BB | 08 CC (9 bytes), then EXIT 100.
  std::vector<uint8_t> base() {
    TraceWriter W = writer();
    W.entry(100);
    std::vector<uint8_t> Before(20, 0x33), P(20, 0x33);
    P[1] = 0xAA;
    P[9] = 0xBB;
    P[19] = 0xCC;
    W.effectC(5, Before, P);
    W.exit(100);
    std::vector<uint8_t> B = W.bytes();
    EXPECT_EQ(ArrayRef<uint8_t>(B).slice(C, 9).vec(),
              (std::vector<uint8_t>{0x12, 5, 20, 0x02, 0xAA, 0x02, 0xBB, 0x08, 0xCC}));
    return B;
  }
  static constexpr size_t C = TraceHeaderSize + 2; // the effect's tag in the file
};

TEST_F(EffectCErrors, IntactDecodes) {
  std::vector<TraceRecord> Rs = decodeAll(base());
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[1].Kind, RecordKind::Effect);
  EXPECT_EQ(Rs[1].Size, 9u);
  std::vector<uint8_t> P(20, 0), G(20, 0);
  P[1] = 0xAA;
  P[9] = 0xBB;
  P[19] = 0xCC;
  G[1] = G[9] = G[19] = 1;
  EXPECT_EQ(Rs[1].Payload, P);
  EXPECT_EQ(Rs[1].Given, G);
  EXPECT_EQ(Rs[2].Kind, RecordKind::Exit);
}

TEST_F(EffectCErrors, MaskPastPayload) {
  std::vector<uint8_t> B = base();
  B[C + 7] = 0x18; // the last group holds bytes 16-19: bit 4 is byte 20
  EXPECT_EQ(decodeError(B),
            "offset 41: EFFECT_C mask 0x18 of group 2 marks bytes past the 20-byte payload "
            "(record at ring offset 2, tail offset 2, segment 0)");
}

TEST_F(EffectCErrors, NotSmaller) {
  TraceWriter W = writer();
  W.entry(101);
  W.effect(5, std::vector<uint8_t>{1, 2, 3}, /*MayDelta=*/false); // 0b 05 03 01 02 03
  std::vector<uint8_t> B = W.bytes();
  // As changes: 12 05 03 07 01 02 03, 4 bytes for a 3-byte payload.
  B[C] = 0x12;
  B[C + 3] = 0x07;
  B[C + 4] = 1;
  B[C + 5] = 2;
  B[C + 6] = 3;
  B[16] = uint8_t(B[16] + 1);
  EXPECT_EQ(decodeError(B),
            "offset 34: EFFECT_C of a 3-byte payload takes 4 bytes: the writer writes the "
            "changes only when that is smaller than the whole payload (record at ring offset "
            "2, tail offset 2, segment 0)");
}

TEST_F(EffectCErrors, LengthOutOfRange) {
  std::vector<uint8_t> B = base();
  B[C + 2] = 1; // len 1: no EFFECT_C can be smaller
  EXPECT_EQ(decodeError(B),
            "offset 34: EFFECT_C of a 1-byte payload: an effect of changes holds 2 to 256 "
            "bytes (record at ring offset 2, tail offset 2, segment 0)");
}

TEST_F(EffectCErrors, Truncated) {
  std::vector<uint8_t> B = base();
  B[16] = 2 + 6; // after the second mask: its byte is cut off
  EXPECT_EQ(decodeError(B),
            "offset 40: EFFECT_C byte 9 of the payload (group 1) runs past the end of its "
            "segment (the write head is there) (record at ring offset 2, tail offset 2, "
            "segment 0)");
  B = base();
  B[16] = 2 + 5; // before the second mask
  EXPECT_EQ(decodeError(B),
            "offset 39: EFFECT_C mask of group 1 (payload bytes 8-15) cut off by the end of "
            "its segment (the write head is there) (record at ring offset 2, tail offset 2, "
            "segment 0)");
  B = base();
  B[16] = 2 + 2; // before len
  EXPECT_NE(decodeError(B).find("(the write head is there)"), std::string::npos);
}

TEST_F(EffectCErrors, PastSegmentEnd) {
  TraceWriter W = writer(1024, 256);
  W.entry(101);
  for (unsigned I = 0; I < 125; ++I)
    W.sched(1); // 2 + 250: 4 bytes left in segment 0
  W.entry(102);   // 2 left
  W.entry(103);   // fills it: the segment is left
  W.entry(104);
  std::vector<uint8_t> B = W.bytes();
  // The last 4 bytes of segment 0 become an EFFECT_C whose second group is cut off there.
  B[TraceHeaderSize + 252] = 0x12;
  B[TraceHeaderSize + 253] = 5;
  B[TraceHeaderSize + 254] = 16;
  B[TraceHeaderSize + 255] = 0;
  EXPECT_EQ(decodeError(B),
            "offset 288: EFFECT_C mask of group 1 (payload bytes 8-15) cut off by the end of "
            "its segment (record at ring offset 252, tail offset 252, segment 0)");
}

TEST_F(EffectCErrors, ReservedBeforeFormat5) {
  std::vector<uint8_t> B = base();
  for (uint8_t V : {4, 3, 2}) {
    B[4] = V;
    EXPECT_EQ(decodeError(B), "offset 34: record tag 0x12 is reserved in format " +
                                  std::to_string(V) +
                                  " (record at ring offset 2, tail offset 2, segment 0)");
  }
}

// Not a key: an EFFECT_DELTA after an EFFECT_C of its length (and no full EFFECT) has none.
TEST_F(EffectCErrors, NotAKey) {
  std::vector<uint8_t> B = base();
  // EXIT 1 (02 01) at ring 11 becomes the head of a delta: 10 05 14 00 (equal to its key).
  B[C + 9] = 0x10;
  B[C + 10] = 5;
  B[C + 11] = 20;
  B[C + 12] = 0;
  B[16] = uint8_t(2 + 9 + 4);
  EXPECT_EQ(decodeError(B),
            "offset 43: EFFECT_DELTA of a 20-byte payload has no key: no full EFFECT of that "
            "length before it in its segment (record at ring offset 11, tail offset 11, "
            "segment 0)");
}

// A node stopped inside the record (section 1.1): the decoder drops it and keeps the ENTRY.
TEST_F(EffectCErrors, StoppedInside) {
  for (unsigned RawHead : {2u + 9u, 2u + 4u, 2u}) {
    std::vector<uint8_t> B = base();
    B[16] = uint8_t(RawHead);
    B[30] = 2;    // open: saved head 2
    B[31] = 0x80; // bit 15
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
    EXPECT_TRUE(F->damage().empty());
    auto Rs = F->decode();
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
    ASSERT_EQ(Rs->size(), 1u) << RawHead;
    EXPECT_EQ((*Rs)[0].Kind, RecordKind::Entry);
  }
}

} // namespace
