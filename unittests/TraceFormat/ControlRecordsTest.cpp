//===- ControlRecordsTest.cpp - compact control records (trace format 7) --===//
//
// spec/trace-format.md section 3.5: ENTRY/EXIT of fids 0..46, IRQ of irq 1..8 with a count of
// 0..3 and IRQ_EXIT of irq 1..8 are one tag byte; an empty skip span (its SKIP_BEGIN followed
// by the span's merged SKIP_END and effect, nothing written between) is one SPAN_EFFECT,
// SPAN_EFFECT_DELTA or SPAN_EFFECT_C record written where the SKIP_BEGIN was. The host runtime
// and TraceWriter write the same bytes; the decoder resolves the new forms into the old
// records; every fallback to the old form, a node stopped while the SKIP_BEGIN is taken back,
// cut-off and corrupted records and the version gating are covered.
//
//===----------------------------------------------------------------------===//
#include "RecordTestSupport.h"
#include "TraceFormat.h"
#include "wsn/trace.h"

#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

using namespace wsn;
using llvm::ArrayRef;

namespace {

using namespace wsn::recordtest;

std::vector<uint8_t> ringBytes(ArrayRef<uint8_t> File, uint32_t At, uint32_t N) {
  return ArrayRef<uint8_t>(File).slice(TraceHeaderSize + At, N).vec();
}

class ControlRecords : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("WSN_NODE_ID");
    __wsn_node_id = 0;
    __wsn_rt_reset();
  }
};

// The one-byte forms at the ends of their ranges, and the plain forms just past them.
TEST_F(ControlRecords, OneByteForms) {
  TraceWriter W = writer();
  const uint16_t Fids[] = {0, 46, 47, 300};
  for (uint16_t F : Fids) {
    __wsn_rt_entry(F);
    W.entry(F);
    __wsn_rt_exit(F);
    W.exit(F);
  }
  const std::pair<uint16_t, uint16_t> Irqs[] = {{1, 0}, {8, 3}, {0, 0}, {9, 0}, {1, 4}, {4, 2}};
  for (auto [Irq, Count] : Irqs) {
    __wsn_gv_reference = Count;
    __wsn_rt_irq_entry(Irq);
    W.irq(Irq, Count);
    __wsn_rt_irq_exit(Irq);
    W.irqExit(Irq);
  }
  // The entry points the lowering uses (the handler keeps the count) write the same records.
  __wsn_gv_reference = 2;
  uint16_t C = __wsn_rt_irq_enter(3);
  W.irq(3, 2);
  __wsn_rt_irq_leave(3, C);
  W.irqExit(3);
  ASSERT_EQ(runtimeBytes(), W.bytes());
  EXPECT_EQ(ringBytes(W.bytes(), 0, 14),
            (std::vector<uint8_t>{0xA0, 0xD0, 0xCE, 0xFE, 0x01, 47, 0x02, 47, 0x01, 0xAC, 0x02,
                                  0x02, 0xAC, 0x02}));
  // IRQ 1 0, IRQ_EXIT 1, IRQ 8 3, IRQ_EXIT 8, then irq 0 and 9 and a count of 4 plain.
  EXPECT_EQ(ringBytes(W.bytes(), 14, 18),
            (std::vector<uint8_t>{0x70, 0x90, 0x8F, 0x97, 0x03, 0, 0, 0x04, 0, 0x03, 9, 0, 0x04,
                                  9, 0x03, 1, 4, 0x90}));
  std::vector<TraceRecord> Rs = decodeAll(W.bytes(), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 22u);
  for (unsigned I = 0; I < 8; ++I) {
    EXPECT_EQ(Rs[I].Kind, I % 2 ? RecordKind::Exit : RecordKind::Entry);
    EXPECT_EQ(Rs[I].id(), Fids[I / 2]);
    EXPECT_EQ(Rs[I].Compact, I < 4);
    EXPECT_EQ(Rs[I].Size, I < 4 ? 1u : Fids[I / 2] < 128 ? 2u : 3u);
  }
  for (unsigned I = 0; I < 6; ++I) {
    const TraceRecord &In = Rs[8 + 2 * I], &Out = Rs[9 + 2 * I];
    const bool Short = I < 2 || I == 5;
    EXPECT_EQ(In.Kind, RecordKind::Irq);
    EXPECT_EQ(In.id(), Irqs[I].first);
    EXPECT_EQ(*In.field("count"), Irqs[I].second);
    EXPECT_EQ(In.NumFields, 2u);
    EXPECT_EQ(In.Compact, Short);
    EXPECT_EQ(Out.Kind, RecordKind::IrqExit);
    EXPECT_EQ(Out.id(), Irqs[I].first);
    EXPECT_EQ(Out.Compact, Irqs[I].first >= 1 && Irqs[I].first <= 8);
  }
  EXPECT_EQ(Rs[20].Kind, RecordKind::Irq);
  EXPECT_EQ(*Rs[20].field("count"), 2u);
  EXPECT_EQ(ringBytes(W.bytes(), Rs[20].RingOffset, 2), (std::vector<uint8_t>{0x7A, 0x92}));
}

// Every tag of the one-byte forms decodes to its record; 0xCF stays reserved, and 0x98-0x9F are
// format 9's REPEAT (RepeatTest.cpp), here without its count.
TEST_F(ControlRecords, TagMap) {
  for (unsigned T = 0x70; T <= 0xFE; ++T) {
    TraceWriter W = writer();
    W.entry(100);
    std::vector<uint8_t> B = W.bytes();
    B[TraceHeaderSize] = uint8_t(T); // 01 64 becomes <T> 64: T, then INPUT_S (0x64: k = 4)
    B[TraceHeaderSize + 1] = 0x00;   // ... or rather T, then a PAD
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F));
    auto Rs = F->decode();
    if (T >= RepeatTag && T <= RepeatLastTag) {
      ASSERT_FALSE(bool(Rs)) << "tag " << T;
      EXPECT_EQ(llvm::toString(Rs.takeError()),
                "offset 33: REPEAT (tag 0x" + llvm::utohexstr(T, false, 2) + ", period " +
                    std::to_string(T - RepeatTag + 1) +
                    ") of 0 records: its count is 1 to 255 (record at ring offset 0, tail "
                    "offset 0, segment 0)");
      continue;
    }
    if (T == 0xCF) {
      ASSERT_FALSE(bool(Rs)) << "tag " << T;
      EXPECT_EQ(llvm::toString(Rs.takeError()),
                "offset 32: record tag 0x" + llvm::utohexstr(T, false, 2) +
                    " is reserved (record at ring offset 0, tail offset 0, segment 0)");
      continue;
    }
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
    ASSERT_EQ(Rs->size(), 1u);
    const TraceRecord &R = (*Rs)[0];
    EXPECT_TRUE(R.Compact);
    EXPECT_EQ(R.Size, 1u);
    if (T < 0x90) {
      EXPECT_EQ(R.Kind, RecordKind::Irq);
      EXPECT_EQ(R.id(), 1 + (T - 0x70) / 4);
      EXPECT_EQ(R.Fields[1], (T - 0x70) % 4);
    } else if (T < 0x98) {
      EXPECT_EQ(R.Kind, RecordKind::IrqExit);
      EXPECT_EQ(R.id(), T - 0x8F);
    } else if (T < 0xCF) {
      EXPECT_EQ(R.Kind, RecordKind::Entry);
      EXPECT_EQ(R.id(), T - 0xA0);
    } else {
      EXPECT_EQ(R.Kind, RecordKind::Exit);
      EXPECT_EQ(R.id(), T - 0xD0);
    }
  }
}

// Format 7's tags are reserved in a version 2-6 trace (older traces keep decoding).
TEST_F(ControlRecords, ReservedBeforeFormat7) {
  for (uint8_t T : {0x13, 0x14, 0x18, 0x1A, 0x1C, 0x70, 0x97, 0xA0, 0xFE}) {
    TraceWriter W = writer();
    W.entry(100);
    std::vector<uint8_t> B = W.bytes();
    B[4] = 6;
    B[TraceHeaderSize] = T;
    B[TraceHeaderSize + 1] = 0x00;
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    ASSERT_TRUE(bool(F));
    EXPECT_EQ(errorOf(F->decode().takeError()),
              "offset 32: record tag 0x" + llvm::utohexstr(T, false, 2) +
                  " is reserved in format 6 (record at ring offset 0, tail offset 0, segment 0)");
  }
  // 0x15-0x17, 0x19, 0x1B, 0x1D-0x1F stay reserved in format 7 (0x14 and 0x1C: EFFECT_Z, 3.6),
  // named as format 8's (the two-level forms, 3.7) where they are; 0x19, 0x1B and 0x1D stay
  // reserved in format 8 too (format 10's CHECK_S, 3.9: named with the trace's version).
  for (uint8_t V : {7, 8}) {
    for (uint8_t T : {0x15, 0x16, 0x17, 0x19, 0x1B, 0x1D, 0x1E, 0x1F}) {
      const bool Format8 = T != 0x19 && T != 0x1B && T != 0x1D;
      if (Format8 && V == 8)
        continue; // TwoLevelTest.cpp
      TraceWriter W = writer();
      W.entry(100);
      std::vector<uint8_t> B = W.bytes();
      B[4] = V;
      B[TraceHeaderSize] = T;
      llvm::consumeError(resealTrace(B));
      auto F = TraceFile::parse(B);
      ASSERT_TRUE(bool(F));
      EXPECT_EQ(errorOf(F->decode().takeError()),
                "offset 32: record tag 0x" + llvm::utohexstr(T, false, 2) + " is reserved" +
                    (Format8 ? " in format 7" : " in format " + std::to_string(V)) +
                    " (record at ring offset 0, tail offset 0, segment 0)");
    }
  }
  // A version 6 trace of the old forms still decodes.
  TraceWriter W = writer();
  W.entry(100);
  W.skipBegin(9);
  W.skipEnd(9);
  std::vector<uint8_t> B = W.bytes();
  B[4] = 6;
  llvm::consumeError(resealTrace(B));
  EXPECT_EQ(decodeAll(B, /*NoDamage=*/true).size(), 3u);
}

// The fixture of the span tests: a 10-byte effect (a 16-bit return value and three variables).
class Span : public ControlRecords {
protected:
  uint8_t A = 1, Bv = 2, Z[6] = {};
  EffTable T{2, {{&A, 1}, {&Bv, 1}, {Z, 6}}};
  std::vector<uint8_t> payload(uint16_t Ret) const {
    std::vector<uint8_t> P = {uint8_t(Ret), uint8_t(Ret >> 8), A, Bv};
    P.insert(P.end(), Z, Z + 6);
    return P;
  }
  // The runtime's and the writer's whole skipped call: SKIP_BEGIN, the call (A changes), the
  // merged SKIP_END and effect (with a snapshot: __wsn_rt_skip_effect_c).
  void call(TraceWriter &W, uint16_t Site, uint16_t Ret, bool Snap) {
    __wsn_rt_skip_begin(Site);
    W.skipBegin(Site);
    std::vector<uint8_t> Before = payload(0);
    uint8_t S[8] = {A, Bv};
    ++A;
    if (Snap) {
      __wsn_rt_skip_effect_c(Site, T.addr(), Ret, S);
      W.skipEffectC(Site, Before, payload(Ret));
    } else {
      __wsn_rt_skip_effect_t(Site, T.addr(), Ret);
      W.skipEffect(Site, payload(Ret));
    }
  }
};

// The three span records, byte for byte, and what the decoder makes of them.
TEST_F(Span, Layout) {
  TraceWriter W = writer();
  W.entry(100);
  __wsn_rt_entry(100);
  call(W, 9, 0x0102, /*Snap=*/false); // full: 13 09 0a | 02 01 02 02 00 00 00 00 00 00
  call(W, 9, 0x0102, false);          // against that key: 18 09 0a 03 | 02 01 03
  call(W, 300, 0, true);              // a key of its length: 18 ac 02 0a 05 | 00 03 00 00 04
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<uint8_t> B = W.bytes();
  EXPECT_EQ(ringBytes(B, 2, 13),
            (std::vector<uint8_t>{0x13, 9, 10, 0x02, 0x01, 2, 2, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(ringBytes(B, 15, 7), (std::vector<uint8_t>{0x18, 9, 10, 3, 2, 1, 3}));
  EXPECT_EQ(ringBytes(B, 22, 10),
            (std::vector<uint8_t>{0x18, 0xAC, 0x02, 10, 5, 0, 3, 0, 0, 4}));
  std::vector<TraceRecord> Rs = decodeAll(B, /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 10u);
  for (unsigned I = 1; I < 10; ++I)
    EXPECT_TRUE(Rs[I].Span) << I;
  EXPECT_EQ(Rs[1].Kind, RecordKind::SkipBegin);
  EXPECT_EQ(Rs[2].Kind, RecordKind::SkipEnd);
  EXPECT_EQ(Rs[3].Kind, RecordKind::Effect);
  EXPECT_EQ(Rs[1].id(), 9u);
  EXPECT_EQ(Rs[2].id(), 9u);
  EXPECT_EQ(Rs[1].Size, 0u);
  EXPECT_EQ(Rs[2].Size, 0u);
  EXPECT_EQ(Rs[3].Size, 13u);
  EXPECT_EQ(Rs[1].RingOffset, 2u);
  EXPECT_EQ(Rs[3].RingOffset, 2u);
  EXPECT_EQ(Rs[3].Payload, (std::vector<uint8_t>{2, 1, 2, 2, 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(Rs[6].Delta);
  EXPECT_EQ(Rs[6].KeyRingOffset, 2u);
  EXPECT_EQ(Rs[7].id(), 300u);
  EXPECT_EQ(Rs[9].id(), 300u);

  // With no key of its length in the segment, the effect of changes: SPAN_EFFECT_C.
  __wsn_rt_reset();
  TraceWriter W2 = writer();
  call(W2, 9, 0, true); // A changed: 1a 09 0a | 04 A | 00
  ASSERT_EQ(runtimeBytes(), W2.bytes());
  EXPECT_EQ(ringBytes(W2.bytes(), 0, 6), (std::vector<uint8_t>{0x1A, 9, 10, 0x04, A, 0}));
  Rs = decodeAll(W2.bytes(), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 3u);
  EXPECT_EQ(Rs[2].Given, (std::vector<uint8_t>{0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Rs[0].RingOffset, 0u);
  // It started its segment: the check value restarted there (the decoder found no damage).
}

// The old form where the span is not empty or the record does not fit where it began.
TEST_F(Span, FallsBackToTheOldForm) {
  TraceWriter W = writer();
  // A quiet handler's CHECK inside the span: written, so the span is not empty.
  __wsn_rt_skip_begin(9);
  W.skipBegin(9);
  uint16_t C = __wsn_rt_irq_enter(2);
  __wsn_rt_check(4, 1, 0x1111);
  __wsn_rt_irq_leave(2, C);
  W.check(4, true, 0x1111);
  __wsn_rt_skip_effect_t(9, T.addr(), 0);
  W.skipEffect(9, payload(0));
  // A separate SKIP_END (__wsn_rt_skip_end), then an effect: the old records.
  __wsn_rt_skip_begin(10);
  W.skipBegin(10);
  __wsn_rt_skip_end(10);
  W.skipEnd(10);
  // Another site's effect after a SKIP_BEGIN: not its span's.
  __wsn_rt_skip_begin(11);
  W.skipBegin(11);
  __wsn_rt_skip_effect_t(12, T.addr(), 0);
  W.skipEffect(12, payload(0));
  ASSERT_EQ(runtimeBytes(), W.bytes());
  std::vector<TraceRecord> Rs = decodeAll(W.bytes(), /*NoDamage=*/true);
  ASSERT_EQ(Rs.size(), 9u);
  for (const TraceRecord &R : Rs)
    EXPECT_FALSE(R.Span);
  EXPECT_EQ(Rs[1].Kind, RecordKind::Check);
  EXPECT_EQ(Rs[2].Kind, RecordKind::SkipEnd);

  // A SKIP_BEGIN whose record would not fit in the rest of its segment from there: it stays,
  // and the effect goes to the next segment after a PAD.
  __wsn_rt_reset();
  TraceWriter W2 = writer();
  while (WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head % WSN_TRACE_SEG_SIZE > 8) {
    __wsn_rt_sched(5);
    W2.sched(5);
  }
  ASSERT_EQ(WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head % WSN_TRACE_SEG_SIZE, 8u);
  __wsn_rt_sched(300); // 3 bytes: 5 left, SKIP_BEGIN 2 (3 left), SKIP_END 2 (1 left)
  W2.sched(300);
  call(W2, 9, 0x0102, false); // the span record takes 13 > 5
  ASSERT_EQ(runtimeBytes(), W2.bytes());
  Rs = decodeAll(W2.bytes(), /*NoDamage=*/true);
  ASSERT_GE(Rs.size(), 3u);
  const TraceRecord &E = Rs.back(), &End = Rs[Rs.size() - 2], &Begin = Rs[Rs.size() - 3];
  EXPECT_EQ(Begin.Kind, RecordKind::SkipBegin);
  EXPECT_EQ(End.Kind, RecordKind::SkipEnd);
  EXPECT_EQ(E.Kind, RecordKind::Effect);
  EXPECT_FALSE(E.Span);
  EXPECT_EQ(Begin.Segment, 0u);
  EXPECT_EQ(E.Segment, 1u);
  EXPECT_EQ(E.RingOffset, uint32_t(WSN_TRACE_SEG_SIZE));

  // A SKIP_BEGIN that went to the next segment after a PAD, then a span record there: merged
  // (it is the SKIP_BEGIN's own segment); one ending its segment exactly cannot be taken back.
  __wsn_rt_reset();
  TraceWriter W3 = writer();
  while (WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head % WSN_TRACE_SEG_SIZE > 3) {
    __wsn_rt_sched(5);
    W3.sched(5);
  }
  __wsn_rt_sched(5); // 2 bytes: fills the segment exactly
  W3.sched(5);
  ASSERT_EQ(__wsn_trace.hdr.head, uint16_t(WSN_TRACE_SEG_SIZE));
  call(W3, 9, 0, false); // SKIP_BEGIN at the next segment's start: merged there
  while (WSN_TRACE_SEG_SIZE - __wsn_trace.hdr.head % WSN_TRACE_SEG_SIZE > 2) {
    __wsn_rt_sched(5);
    W3.sched(5);
  }
  call(W3, 9, 0, false); // SKIP_BEGIN ends segment 1 exactly: SKIP_END, the effect in 2
  ASSERT_EQ(runtimeBytes(), W3.bytes());
  Rs = decodeAll(W3.bytes(), /*NoDamage=*/true);
  unsigned Spans = 0;
  for (const TraceRecord &R : Rs)
    Spans += R.Span && R.Kind == RecordKind::Effect;
  EXPECT_EQ(Spans, 1u);
  EXPECT_EQ(Rs.back().Kind, RecordKind::Effect);
  EXPECT_EQ(Rs.back().Segment, 2u);
  EXPECT_FALSE(Rs.back().Span);
}

// A node stopped while the SKIP_BEGIN is taken back (section 1.1 and 3.5): each state between
// the runtime's stores decodes without damage, and the tail ends before the SKIP_BEGIN (the
// record opened there) or, closed, holds the span record.
TEST_F(Span, StoppedWhileTakingBack) {
  TraceWriter W = writer();
  W.entry(100);
  W.input(7, 1000);
  W.skipBegin(9); // 0c 09 at ring 6
  const std::vector<uint8_t> Before = W.bytes();
  W.skipEffect(9, payload(0x0102)); // 13 09 0a 02 01 01 02 00 ... at ring 6: 13 bytes
  const std::vector<uint8_t> After = W.bytes();
  const uint32_t At = 6, Check0 = TraceHeaderSize + 1024;
  ASSERT_EQ(ringBytes(After, At, 1), std::vector<uint8_t>{0x13});
  const uint16_t C1 = uint16_t(Before[Check0] | Before[Check0 + 1] << 8);
  const uint16_t C0 = crc16(ArrayRef<uint8_t>(Before).slice(TraceHeaderSize, At));
  auto Open = [&](std::vector<uint8_t> B) {
    B[30] = uint8_t(At);
    B[31] = 0x80;
    return B;
  };
  auto SetCheck = [&](std::vector<uint8_t> &B, uint16_t V) {
    B[Check0] = uint8_t(V);
    B[Check0 + 1] = uint8_t(V >> 8);
  };
  auto Tail = [&](const std::vector<uint8_t> &B) {
    auto F = TraceFile::parse(B);
    EXPECT_TRUE(bool(F)) << (F ? "" : llvm::toString(F.takeError()));
    if (!F)
      return std::vector<TraceRecord>{};
    EXPECT_TRUE(F->damage().empty());
    auto Rs = F->decode();
    EXPECT_TRUE(bool(Rs));
    return Rs ? *Rs : std::vector<TraceRecord>{};
  };
  // 1. Opened at the SKIP_BEGIN's start: the stored value still covers it (C1).
  std::vector<uint8_t> B = Open(Before);
  EXPECT_EQ(Tail(B).size(), 2u);
  // 2. The high byte of C0 stored, the low byte still C1's.
  SetCheck(B, uint16_t((C0 & 0xFF00) | (C1 & 0x00FF)));
  EXPECT_EQ(Tail(B).size(), 2u);
  // 3. C0, and the head moved back to the SKIP_BEGIN's start.
  SetCheck(B, C0);
  B[16] = uint8_t(At);
  EXPECT_EQ(Tail(B).size(), 2u);
  // 4. The record being written over the SKIP_BEGIN (torn), head past it.
  for (uint32_t N = 1; N <= 13; ++N) {
    std::vector<uint8_t> T4 = B;
    for (uint32_t I = 0; I < N; ++I)
      T4[TraceHeaderSize + At + I] = After[TraceHeaderSize + At + I];
    T4[16] = uint8_t(At + 13);
    EXPECT_EQ(Tail(T4).size(), 2u) << N;
  }
  // 5. Closing folded the record in (C1 of the span record), then the low byte only.
  std::vector<uint8_t> T5 = Open(After);
  EXPECT_EQ(Tail(T5).size(), 2u);
  const uint16_t CS = uint16_t(After[Check0] | After[Check0 + 1] << 8);
  SetCheck(T5, uint16_t((C0 & 0xFF00) | (CS & 0x00FF)));
  EXPECT_EQ(Tail(T5).size(), 2u);
  // 6. Closed.
  std::vector<TraceRecord> Rs = Tail(After);
  ASSERT_EQ(Rs.size(), 5u);
  EXPECT_TRUE(Rs[4].Span);
  // The runtime stops at none of these, but writes the same final bytes.
  __wsn_rt_entry(100);
  __wsn_rt_input(7, 1000);
  __wsn_rt_skip_begin(9);
  EXPECT_EQ(runtimeBytes(), Before);
  __wsn_rt_skip_effect_t(9, T.addr(), 0x0102);
  EXPECT_EQ(runtimeBytes(), After);
}

// Cut-off and corrupted span records are refused with their offsets.
TEST_F(Span, Malformed) {
  TraceWriter W = writer();
  W.entry(100);
  W.skipBegin(9);
  W.skipEffect(9, payload(0x0102)); // 13 09 0a 02 01 01 02 00 ... at ring 2
  const std::vector<uint8_t> Good = W.bytes();
  auto Err = [&](std::vector<uint8_t> B) {
    llvm::consumeError(resealTrace(B));
    auto F = TraceFile::parse(B);
    if (!F)
      return llvm::toString(F.takeError());
    std::vector<TraceRecord> Out;
    return errorOf(F->decode(Out));
  };
  std::vector<uint8_t> B = Good;
  B[16] = 2 + 5; // the head cuts the payload
  EXPECT_EQ(Err(B), "offset 37: payload of 10 bytes runs past the end of its segment (2 bytes "
                    "left) (record at ring offset 2, tail offset 2, segment 0)");
  B = Good;
  B[16] = 2 + 2; // before len
  EXPECT_EQ(Err(B), "offset 36: record runs past the end of its segment while reading len (the "
                    "write head is there) (record at ring offset 2, tail offset 2, segment 0)");
  B = Good;
  B[TraceHeaderSize + 2] = 0x18; // SPAN_EFFECT_DELTA with no key
  EXPECT_EQ(Err(B), "offset 34: EFFECT_DELTA of a 10-byte payload has no key: no full EFFECT of "
                    "that length before it in its segment (record at ring offset 2, tail offset "
                    "2, segment 0)");
  B = Good;
  B[TraceHeaderSize + 2] = 0x1A; // SPAN_EFFECT_C of 4 bytes whose mask marks bytes 4 and 5
  B[TraceHeaderSize + 4] = 4;
  B[TraceHeaderSize + 5] = 0x30;
  EXPECT_EQ(Err(B), "offset 37: EFFECT_C mask 0x30 of group 0 marks bytes past the 4-byte "
                    "payload (record at ring offset 2, tail offset 2, segment 0)");
  // The records before a bad one decode (the ENTRY); the reseal keeps the decoder's own error.
}

// Over several wraps, a mix of everything format 7 changes (short and long ENTRY/EXIT and
// IRQ/IRQ_EXIT, empty spans of each effect kind, spans with a quiet CHECK inside, separate
// SKIP_ENDs) in the runtime and the writer: the same bytes, and every segment decodes.
TEST_F(Span, RuntimeAndWriterAgree) {
  TraceWriter W = writer();
  uint32_t Seed = 7;
  unsigned Spans = 0, Kinds[3] = {0, 0, 0};
  for (unsigned Step = 0; Step < 4000; ++Step) {
    Seed = Seed * 1103515245u + 12345u;
    const uint32_t R = Seed >> 8;
    switch (R % 7) {
    case 0:
      __wsn_rt_entry(uint16_t(R % 60));
      W.entry(uint16_t(R % 60));
      break;
    case 1:
      __wsn_rt_exit(uint16_t(R % 200));
      W.exit(uint16_t(R % 200));
      break;
    case 2: {
      __wsn_gv_reference = uint16_t(R >> 4 & 7);
      __wsn_rt_irq_entry(uint16_t(R % 11));
      W.irq(uint16_t(R % 11), uint16_t(R >> 4 & 7));
      __wsn_rt_irq_exit(uint16_t(R % 11));
      W.irqExit(uint16_t(R % 11));
      break;
    }
    case 3: { // a quiet CHECK inside the span: old form
      __wsn_rt_skip_begin(uint16_t(R % 150));
      W.skipBegin(uint16_t(R % 150));
      uint16_t C = __wsn_rt_irq_enter(1);
      __wsn_rt_check(3, 1, uint16_t(R));
      W.check(3, true, uint16_t(R));
      __wsn_rt_irq_leave(1, C);
      __wsn_rt_skip_effect_t(uint16_t(R % 150), T.addr(), uint16_t(R));
      W.skipEffect(uint16_t(R % 150), payload(uint16_t(R)));
      break;
    }
    default: {
      call(W, uint16_t(R % 150), R % 3 ? 0 : uint16_t(R), R % 2);
      // Which form the span took (its tag: where the head went back to, or the old form).
      std::vector<TraceRecord> Rs = decodeAll(W.bytes(), /*NoDamage=*/true);
      ASSERT_FALSE(Rs.empty());
      const TraceRecord &E = Rs.back();
      ASSERT_EQ(E.Kind, RecordKind::Effect);
      if (E.Span)
        ++Kinds[E.Delta ? 1 : E.Given.empty() ? 0 : 2];
      break;
    }
    }
    ASSERT_EQ(runtimeBytes(), W.bytes()) << "step " << Step;
  }
  EXPECT_GT(W.header().Wraps, 3u);
  auto F = TraceFile::parse(W.bytes());
  ASSERT_TRUE(bool(F));
  for (unsigned S = 0; S < W.header().numSegments(); ++S) {
    std::vector<TraceRecord> Out;
    ASSERT_FALSE(bool(F->decodeSegment(S, Out)));
    for (size_t I = 0; I < Out.size(); ++I) {
      const TraceRecord &R = Out[I];
      if (R.Span && R.Kind == RecordKind::Effect) {
        ++Spans;
        ASSERT_GE(I, 2u);
        EXPECT_EQ(Out[I - 2].Kind, RecordKind::SkipBegin);
        EXPECT_EQ(Out[I - 1].Kind, RecordKind::SkipEnd);
        EXPECT_EQ(Out[I - 2].id(), R.id());
        ++Kinds[R.Delta ? 1 : R.Given.empty() ? 0 : 2];
      }
    }
  }
  EXPECT_GT(Spans, 0u);
  EXPECT_GT(Kinds[0], 0u);
  EXPECT_GT(Kinds[1], 0u);
  EXPECT_GT(Kinds[2], 0u);
}

} // namespace
