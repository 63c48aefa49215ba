//===- EffectDeltaTest.cpp - EFFECT_DELTA records (trace format 3) ---------===//
//
// spec/trace-format.md section 3.1: an effect whose segment holds a full EFFECT of the same
// length (a key) is written as the changes against it. The host runtime and TraceWriter must
// write the same bytes; the decoder rebuilds the full payload; every malformed or cut-off
// EFFECT_DELTA is refused with its offsets.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <string>

using namespace wsn;
using llvm::ArrayRef;

namespace {

using namespace wsn::recordtest;

// An effect table as the lowering emits it: len u16, ret-bytes u8, n u8, (addr, size) pairs.
struct Table {
  std::vector<uint8_t> B;
  Table(uint16_t Len, uint8_t RetBytes, TablePairs V) {
    B = {uint8_t(Len), uint8_t(Len >> 8), RetBytes, uint8_t(V.size())};
    appendPairs(B, V);
  }
  uintptr_t addr() const { return reinterpret_cast<uintptr_t>(B.data()); }
};

class EffectDelta : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

// The runs encoding (section 3.1) on its own.
TEST(EffectDeltaRuns, Encoding) {
  std::vector<uint8_t> K(10, 0);
  EXPECT_TRUE(effectDeltaRuns(K, K).empty());
  std::vector<uint8_t> N = K;
  N[0] = 1;
  N[5] = 2;
  N[6] = 3;
  EXPECT_EQ(effectDeltaRuns(K, N), (std::vector<uint8_t>{0, 1, 1, 4, 2, 2, 3}));
  // Everything changed: one run.
  std::vector<uint8_t> K2(255, 0), N2(255, 7);
  std::vector<uint8_t> R2 = effectDeltaRuns(K2, N2);
  ASSERT_EQ(R2.size(), 2u + 255);
  EXPECT_EQ(R2[0], 0);
  EXPECT_EQ(R2[1], 255);
}

// The host runtime's table-driven effects: the first of a length in a segment is full (a key),
// later ones of that length are deltas against it; the writer agrees byte for byte and the
// decoder rebuilds every payload.
TEST_F(EffectDelta, RuntimeWritesDeltasTheWriterAndDecoderAgree) {
  TraceWriter W = writer();
  uint8_t G[12] = {0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 5};
  uint16_t H = 0x1234;
  Table T(2 + 12 + 2, 2, {{G, 12}, {&H, 2}});
  auto Payload = [&](uint16_t Ret) {
    std::vector<uint8_t> P = {uint8_t(Ret), uint8_t(Ret >> 8)};
    P.insert(P.end(), G, G + 12);
    P.push_back(uint8_t(H));
    P.push_back(uint8_t(H >> 8));
    return P;
  };
  std::vector<std::vector<uint8_t>> Want;
  auto Both = [&](uint16_t Site, uint16_t Ret, bool Skip) {
    if (Skip) {
      __wsn_rt_skip_begin(Site);
      W.skipBegin(Site);
      __wsn_rt_skip_effect_t(Site, T.addr(), Ret);
      W.skipEffect(Site, Payload(Ret));
    } else {
      __wsn_rt_effect_t(Site, T.addr(), Ret);
      W.effect(Site, Payload(Ret));
    }
    Want.push_back(Payload(Ret));
  };
  Both(1, 0, true);   // key
  Both(1, 0, true);   // unchanged: EFFECT_DELTA 1 16 0
  G[9] = 1;           // one byte
  Both(2, 0, false);
  G[0] = 3;           // two runs, and the return value
  H = 0x1299;
  Both(1, 7, true);
  for (unsigned I = 0; I < 12; ++I) // everything: the full record is smaller
    G[I] = uint8_t(0xA0 + I);
  H = 0;
  Both(3, 0xFFFF, false);
  Both(3, 0xFFFF, false); // against the newer key
  ASSERT_EQ(runtimeBytes(), W.bytes());

  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  std::vector<const TraceRecord *> Effects;
  for (const TraceRecord &R : Rs)
    if (R.Kind == RecordKind::Effect)
      Effects.push_back(&R);
  ASSERT_EQ(Effects.size(), Want.size());
  const bool Delta[] = {false, true, true, true, false, true};
  for (size_t I = 0; I < Effects.size(); ++I) {
    EXPECT_EQ(Effects[I]->Payload, Want[I]) << "effect " << I;
    EXPECT_EQ(Effects[I]->Delta, Delta[I]) << "effect " << I;
  }
  // Sizes: full 1+1+1+16; unchanged 4 (tag site len dlen=0); one byte 4 + 3; against the
  // key: the return value's low byte, G[0], G[9], H's low byte: runs {0,1,7} {1,1,3} {8,1,1}
  // {2,1,0x99} = 12 -> 16.
  EXPECT_EQ(Effects[0]->Size, 19u);
  EXPECT_EQ(Effects[1]->Size, 4u);
  EXPECT_EQ(Effects[2]->Size, 7u);
  EXPECT_EQ(Effects[3]->Size, 16u);
  EXPECT_EQ(Effects[4]->Size, 19u);
  EXPECT_EQ(Effects[5]->Size, 4u);
  EXPECT_EQ(Effects[1]->KeyRingOffset, Effects[0]->RingOffset);
  EXPECT_EQ(Effects[5]->KeyRingOffset, Effects[4]->RingOffset);
  const std::vector<uint8_t> File = W.bytes();
  auto Ring = ArrayRef<uint8_t>(File).drop_front(TraceHeaderSize);
  // The second effect ends an empty skip span: SPAN_EFFECT_DELTA (format 7, section 3.5).
  EXPECT_EQ(Ring.slice(Effects[1]->RingOffset, 4).vec(), (std::vector<uint8_t>{0x18, 1, 16, 0}));
  EXPECT_TRUE(Effects[1]->Span);
  EXPECT_FALSE(Effects[2]->Span);
  EXPECT_EQ(Ring.slice(Effects[2]->RingOffset, 7).vec(),
            (std::vector<uint8_t>{0x10, 2, 16, 3, 11, 1, 1}));
}

// Keys belong to their segment: entering the next one clears them, so its first effect of a
// length is full again; each length has its own key; and a delta that would not fit in the
// rest of the segment is written in full in the next one. Runtime and writer agree over
// several wraps, and every segment start decodes on its own.
TEST_F(EffectDelta, KeysAreClearedOnEnteringASegment) {
  TraceWriter W = writer();
  uint8_t A[20] = {0}, B[7] = {0};
  Table TA(20, 0, {{A, 20}}), TB(7, 0, {{B, 7}});
  for (unsigned I = 0; I < 400; ++I) {
    A[I % 20] = uint8_t(I);
    B[I % 5] = uint8_t(I * 3);
    __wsn_rt_effect_t(uint16_t(I % 3), TA.addr(), 0);
    W.effect(uint16_t(I % 3), std::vector<uint8_t>(A, A + 20));
    __wsn_rt_entry(5);
    W.entry(5);
    if (I % 4 == 0) {
      __wsn_rt_effect_t(9, TB.addr(), 0);
      W.effect(9, std::vector<uint8_t>(B, B + 7));
    }
  }
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<uint8_t> File = W.bytes();
  auto F = TraceFile::parse(File);
  ASSERT_TRUE(bool(F));
  ASSERT_TRUE(F->header().wrapped());
  for (unsigned S = 0; S < F->tail().size(); ++S) {
    auto Rs = F->decode(S);
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  }
  auto Rs = F->decode();
  ASSERT_TRUE(bool(Rs));
  unsigned Deltas = 0;
  uint32_t Seg = ~0u;
  std::map<size_t, bool> KeySeen;
  for (const TraceRecord &R : *Rs) {
    if (R.Kind != RecordKind::Effect)
      continue;
    if (R.Segment != Seg) {
      Seg = R.Segment;
      KeySeen.clear();
    }
    if (R.Delta) {
      ++Deltas;
      EXPECT_TRUE(KeySeen[R.Payload.size()]) << "delta at ring offset " << R.RingOffset;
      EXPECT_EQ(R.KeyRingOffset / WSN_TRACE_SEG_SIZE, R.Segment);
    } else {
      KeySeen[R.Payload.size()] = true;
    }
  }
  EXPECT_GT(Deltas, 20u);
  // The last effect of A is the values A holds now.
  for (auto It = Rs->rbegin(); It != Rs->rend(); ++It)
    if (It->Kind == RecordKind::Effect && It->Payload.size() == 20) {
      EXPECT_EQ(It->Payload, std::vector<uint8_t>(A, A + 20));
      break;
    }
}

// Streamed effects (__wsn_rt_effect_begin/put/record_end) are always full, and are keys.
TEST_F(EffectDelta, StreamedEffectIsAKey) {
  TraceWriter W = writer();
  uint8_t V[6] = {1, 2, 3, 4, 5, 6};
  Table T(6, 0, {{V, 6}});
  __wsn_rt_effect_begin(4, 6);
  __wsn_rt_put(V, 6);
  __wsn_rt_record_end();
  W.effect(4, std::vector<uint8_t>(V, V + 6), /*MayDelta=*/false);
  V[2] = 9;
  __wsn_rt_effect_t(4, T.addr(), 0);
  W.effect(4, std::vector<uint8_t>(V, V + 6));
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  ASSERT_EQ(Rs.size(), 2u);
  EXPECT_FALSE(Rs[0].Delta);
  EXPECT_TRUE(Rs[1].Delta);
  EXPECT_EQ(Rs[1].Payload, std::vector<uint8_t>(V, V + 6));
}

// The frozen trace writes nothing, neither key nor delta.
TEST_F(EffectDelta, FrozenWritesNothing) {
  TraceWriter W = writer();
  uint8_t V[6] = {1, 2, 3, 4, 5, 6};
  Table T(6, 0, {{V, 6}});
  __wsn_rt_effect_t(4, T.addr(), 0);
  W.effect(4, std::vector<uint8_t>(V, V + 6));
  __wsn_rt_check(1, 0, 0);
  W.check(1, false, 0);
  __wsn_rt_effect_t(4, T.addr(), 0);
  W.effect(4, std::vector<uint8_t>(V, V + 6));
  ASSERT_EQ(runtimeBytes(), W.bytes());
  EXPECT_EQ(decodeAll(W.bytes()).size(), 2u);
}

// Payloads over 255 bytes are never keys nor deltas (512-byte segments); at most 255 they are.
TEST(EffectDeltaWriter, LongPayload) {
  TraceWriter W = writer(2048, 512);
  std::vector<uint8_t> P(300, 0x55), Q(255, 0x55);
  W.effect(1, P);
  W.effect(1, P);
  W.effect(2, Q);
  Q[254] = 1;
  W.effect(2, Q);
  std::vector<TraceRecord> Rs = decodeAll(W.bytes());
  ASSERT_EQ(Rs.size(), 4u);
  EXPECT_FALSE(Rs[1].Delta);
  EXPECT_TRUE(Rs[3].Delta);
  EXPECT_EQ(Rs[3].Payload, Q);
  // runs {254, 1, 1}; tag, site, len (2 bytes), dlen.
  EXPECT_EQ(Rs[3].Size, 5u + 3u);
}

// With no keys (WSN_TRACE_EFFECT_KEYS 0) every effect is full.
TEST(EffectDeltaWriter, NoKeysNoDeltas) {
  TraceWriter W = writer(1024, 256, 0);
  std::vector<uint8_t> P(10, 1);
  W.effect(1, P);
  W.effect(1, P);
  for (const TraceRecord &R : decodeAll(W.bytes()))
    EXPECT_FALSE(R.Delta);
}

// Malformed and cut-off EFFECT_DELTA records: each is refused with the file offset of what is
// wrong and the record's ring offset. The check values are rewritten for the edited bytes, so
// the decoder sees them as the writer's own (not as damage).
class EffectDeltaErrors : public ::testing::Test {
protected:
  // A full 8-byte EFFECT at ring 0 (11 bytes), then an EFFECT_DELTA at ring 11 changing
  // bytes 2 and 3: 10 03 08 04 02 02 AA BB.
  std::vector<uint8_t> base() {
    TraceWriter W = writer();
    std::vector<uint8_t> P(8, 0);
    W.effect(3, P);
    P[2] = 0xAA;
    P[3] = 0xBB;
    W.effect(3, P);
    W.entry(1);
    std::vector<uint8_t> B = W.bytes();
    EXPECT_EQ(ArrayRef<uint8_t>(B).slice(TraceHeaderSize + 11, 8).vec(),
              (std::vector<uint8_t>{0x10, 3, 8, 4, 2, 2, 0xAA, 0xBB}));
    return B;
  }
  static constexpr size_t D = TraceHeaderSize + 11; // the delta's tag in the file
};

TEST_F(EffectDeltaErrors, IntactDecodes) {
  std::vector<uint8_t> B = base();
  EXPECT_EQ(decodeError(B), "success");
  std::vector<TraceRecord> Rs = decodeAll(B);
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[1].Payload, (std::vector<uint8_t>{0, 0, 0xAA, 0xBB, 0, 0, 0, 0}));
}

TEST_F(EffectDeltaErrors, NoKey) {
  std::vector<uint8_t> B = base();
  B[D + 2] = 9; // len 9: no full EFFECT of 9 bytes before it
  EXPECT_EQ(decodeError(B),
            "offset 43: EFFECT_DELTA of a 9-byte payload has no key: no full EFFECT of that "
            "length before it in its segment (record at ring offset 11, tail offset 11, "
            "segment 0)");
  // The key itself as a delta: no full EFFECT at all.
  B = base();
  B[TraceHeaderSize] = 0x10;
  EXPECT_NE(decodeError(B).find("offset 32: "), std::string::npos);
}

TEST_F(EffectDeltaErrors, RunPastPayload) {
  std::vector<uint8_t> B = base();
  B[D + 4] = 7; // skip 7 + 2 bytes > 8
  EXPECT_EQ(decodeError(B),
            "offset 47: EFFECT_DELTA run at payload byte 7 of 2 bytes runs past its 8-byte "
            "payload (record at ring offset 11, tail offset 11, segment 0)");
}

TEST_F(EffectDeltaErrors, ZeroByteRun) {
  std::vector<uint8_t> B = base();
  B[D + 5] = 0; // a 0-byte run after 2 unchanged bytes; the runs then hold 2 stray bytes
  EXPECT_EQ(decodeError(B),
            "offset 47: EFFECT_DELTA run of 0 bytes (after 2 unchanged ones) (record at ring "
            "offset 11, tail offset 11, segment 0)");
}

TEST_F(EffectDeltaErrors, PayloadOver255) {
  std::vector<uint8_t> B = base();
  // len 300 as a 2-byte varint in place of len 8 and dlen 4: ac 02, then the dlen is the 02
  // of the first run's header... the decoder stops at the length first.
  B[D + 2] = 0xAC;
  B[D + 3] = 0x02;
  EXPECT_EQ(decodeError(B),
            "offset 43: EFFECT_DELTA of a 300-byte payload: deltas are written only for "
            "payloads of at most 255 bytes (record at ring offset 11, tail offset 11, "
            "segment 0)");
}

TEST_F(EffectDeltaErrors, RunPastItsRuns) {
  std::vector<uint8_t> B = base();
  B[D + 3] = 3; // dlen 3: the run announces 2 bytes, 1 is left
  EXPECT_EQ(decodeError(B),
            "offset 49: EFFECT_DELTA run of 2 bytes runs past the end of its runs (1 bytes "
            "left) (record at ring offset 11, tail offset 11, segment 0)");
  B = base();
  B[D + 3] = 1; // dlen 1: not even a run header
  EXPECT_EQ(decodeError(B),
            "offset 47: EFFECT_DELTA run header cut off by the end of its runs (record at "
            "ring offset 11, tail offset 11, segment 0)");
}

TEST_F(EffectDeltaErrors, Truncated) {
  // The write head cuts the record: its runs, then its dlen, then its len.
  for (unsigned Keep : {7u, 5u, 3u, 2u}) {
    std::vector<uint8_t> B = base();
    B[16] = uint8_t(11 + Keep); // head
    std::string E = decodeError(B);
    EXPECT_NE(E.find("(the write head is there)"), std::string::npos) << Keep << ": " << E;
    EXPECT_NE(E.find("record at ring offset 11"), std::string::npos) << Keep << ": " << E;
  }
  std::vector<uint8_t> B = base();
  B[16] = 11 + 5; // inside the runs
  EXPECT_EQ(decodeError(B),
            "offset 47: EFFECT_DELTA runs of 4 bytes run past the end of its segment (1 bytes "
            "left) (the write head is there) (record at ring offset 11, tail offset 11, "
            "segment 0)");
}

TEST_F(EffectDeltaErrors, ReservedInFormat2) {
  std::vector<uint8_t> B = base();
  B[4] = 2;
  EXPECT_EQ(decodeError(B),
            "offset 43: record tag 0x10 is reserved in format 2 (record at ring offset 11, "
            "tail offset 11, segment 0)");
}

} // namespace
