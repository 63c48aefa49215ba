//===- TwoLevelWriterTest.cpp - two-level groups written (trace format 8) -===//
//
// spec/trace-format.md section 3.7: CHECKPOINT_Z and EFFECT_C records whose groups have more
// empty masks than the bitmap has bytes are written two-level (CHECKPOINT_Z2, EFFECT_C2 and
// the span form). The host runtime (z2 in trace.c) and TraceWriter (twoLevelInPlace) write the
// same bytes, stale ones included, over many wraps and at every place in a segment; the
// decoder gives the full payload back. (The decoder's own tests, malformed forms included,
// are in TwoLevelTest.cpp.)
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace wsn;
using namespace wsn::recordtest;
using llvm::ArrayRef;

namespace {

// The spec's example, the "only when smaller" rule and the size limit.
TEST(TwoLevelGroups, InPlace) {
  std::vector<uint8_t> P(64, 0);
  P[1] = 0xAA;
  P[60] = 0xBB;
  std::vector<uint8_t> G = packZeroGroups(P);
  ASSERT_EQ(G, (std::vector<uint8_t>{0x02, 0xAA, 0, 0, 0, 0, 0, 0, 0x10, 0xBB}));
  EXPECT_EQ(twoLevelGroups(G, 64), (std::vector<uint8_t>{0x81, 0x02, 0xAA, 0x10, 0xBB}));
  // In place: what the moves leave after the new end stays.
  std::vector<uint8_t> B = G;
  ASSERT_EQ(twoLevelInPlace(B.data(), 64), 5u);
  EXPECT_EQ(B, (std::vector<uint8_t>{0x81, 0x02, 0xAA, 0x10, 0xBB, 0, 0, 0, 0x10, 0xBB}));
  // 16 bytes, one empty mask: a bitmap byte would not save anything.
  std::vector<uint8_t> Q(16, 0);
  Q[3] = 7;
  EXPECT_FALSE(twoLevelGroups(packZeroGroups(Q), 16));
  // 24 bytes, two empty masks: one byte smaller.
  std::vector<uint8_t> R(24, 0);
  R[20] = 9;
  EXPECT_EQ(twoLevelGroups(packZeroGroups(R), 24), (std::vector<uint8_t>{0x04, 0x10, 9}));
  // Over 1024 bytes (more than 16 bitmap bytes): one-level.
  std::vector<uint8_t> Big(1025, 0);
  EXPECT_FALSE(twoLevelGroups(packZeroGroups(Big), 1025));
  std::vector<uint8_t> Max(1024, 0);
  EXPECT_TRUE(twoLevelGroups(packZeroGroups(Max), 1024));
}

class TwoLevelWriter : public RuntimeWriterTest {
protected:
  TwoLevelWriter() : RuntimeWriterTest(7) {}
};

// Checkpoints of 120 bytes, sparse (two-level), now and then dense (one-level) or empty,
// after a random number of ENTRY records: packed where the plain record was reserved, packed
// into the rest of a segment, and after a PAD. Runtime and writer agree after every step.
TEST_F(TwoLevelWriter, CheckpointRuntimeAndWriterAgree) {
  TraceWriter W = writer();
  uint8_t Buf[120] = {};
  CkTable T(9, {{Buf, 120}});
  unsigned Two = 0, One = 0, Plain = 0;
  for (unsigned I = 0; I < 300; ++I) {
    for (uint8_t &B : Buf)
      B = 0;
    const unsigned Kind = I % 11;
    for (unsigned J = 0, N = Kind == 5 ? 120 : 1 + next(12); J < N; ++J)
      Buf[Kind == 5 ? J : next(120)] = uint8_t(1 + next(255));
    std::vector<uint8_t> P(Buf, Buf + 120);
    for (unsigned J = 0, N = next(60); J < N; ++J) {
      uint16_t F = uint16_t(next(90)); // 1 or 2 bytes
      __wsn_rt_entry(F);
      W.entry(F);
    }
    if (!__wsn_rt_anchor_armed()) { // one per segment: move on to the next
      for (unsigned J = 0; J < 130 && !__wsn_rt_anchor_armed(); ++J) {
        __wsn_rt_entry(60);
        W.entry(60);
      }
    }
    ASSERT_TRUE(__wsn_rt_anchor_armed());
    __wsn_rt_checkpoint_t(T.addr());
    W.checkpoint(9, P);
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "after checkpoint " << I;
    std::vector<TraceRecord> Rs = decodeAll(W.bytes());
    for (size_t J = Rs.size(); J-- > 0;)
      if (Rs[J].Kind == RecordKind::Checkpoint) {
        ASSERT_EQ(Rs[J].Payload, P) << "checkpoint " << I;
        ++(Rs[J].TwoLevel ? Two : Rs[J].Packed ? One : Plain);
        break;
      }
  }
  EXPECT_GT(W.header().Wraps, 5u);
  EXPECT_GT(Two, 100u);
  EXPECT_GT(One + Plain, 0u);
}

// Effects of changes over a 100-byte payload (a 2-byte return value, a 96-byte buffer, a
// 2-byte counter): a few bytes change per call (two-level), now and then most of them
// (one-level EFFECT_C or plain); as span records and not; ending at every place of a segment,
// exactly at its end included (one-level there).
TEST_F(TwoLevelWriter, EffectCRuntimeAndWriterAgree) {
  TraceWriter W = writer();
  uint8_t Buf[96] = {};
  uint16_t Count = 0;
  EffTable T(2, {{Buf, 96}, {&Count, 2}});
  auto Payload = [&](uint16_t Ret) {
    std::vector<uint8_t> P{uint8_t(Ret), uint8_t(Ret >> 8)};
    P.insert(P.end(), Buf, Buf + 96);
    P.push_back(uint8_t(Count));
    P.push_back(uint8_t(Count >> 8));
    return P;
  };
  uint8_t Snap[128];
  unsigned Two = 0, OneC = 0, Other = 0, TwoSpan = 0;
  for (unsigned I = 0; I < 600; ++I) {
    for (unsigned J = 0, N = next(8); J < N; ++J) {
      uint16_t F = uint16_t(next(90));
      __wsn_rt_entry(F);
      W.entry(F);
    }
    const uint16_t Site = uint16_t(I % 2 ? 7 : 300);
    const bool Span = I % 3 != 0;
    __wsn_rt_skip_begin(Site);
    W.skipBegin(Site);
    if (!Span) { // a record between: not an empty span
      __wsn_rt_entry(3);
      W.entry(3);
    }
    std::vector<uint8_t> Before = Payload(0);
    ASSERT_EQ(__wsn_rt_snap(T.addr(), Snap), 98u);
    ++Count;
    if (I % 17 == 9)
      for (uint8_t &B : Buf)
        B = uint8_t(B + 1 + next(3));
    else
      for (unsigned J = 0, N = 1 + next(3); J < N; ++J)
        Buf[next(96)] = uint8_t(next(256));
    const uint16_t Ret = I % 5 ? 0 : uint16_t(I);
    __wsn_rt_skip_effect_c(Site, T.addr(), Ret, Snap);
    W.skipEffectC(Site, Before, Payload(Ret));
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "after effect " << I;
    std::vector<TraceRecord> Rs = decodeAll(W.bytes());
    for (size_t J = Rs.size(); J-- > 0;)
      if (Rs[J].Kind == RecordKind::Effect) {
        const TraceRecord &R = Rs[J];
        ASSERT_EQ(R.Payload.size(), 100u);
        std::vector<uint8_t> Now = Payload(Ret);
        for (size_t K = 0; K < Now.size(); ++K)
          if (R.given(K))
            ASSERT_EQ(R.Payload[K], Now[K]) << "effect " << I << " byte " << K;
        if (R.TwoLevel) {
          ++Two;
          TwoSpan += R.Span;
        } else {
          ++(R.Given.empty() ? Other : OneC);
        }
        break;
      }
  }
  EXPECT_GT(W.header().Wraps, 5u);
  // (The host runtime keeps effect keys: an effect with a key of its length in the segment is
  // an EFFECT_DELTA, counted in Other.)
  EXPECT_GT(Two, 100u);
  EXPECT_GT(TwoSpan, 50u);
  EXPECT_GT(OneC + Other, 0u);
}

} // namespace
