//===- AsyncTimer0Test.cpp - Timer/Counter0 from the watch crystal --------===//
//
// The counter of AsyncTimer0 one TOSC1 edge at a time. Expected values from
// the ATmega128 datasheet (2467S): Table 52 (modes), Table 56 (prescaler), the
// timing diagrams of "Timer/Counter Timing Diagrams" (OCF0 at the clock after
// TCNT0 == OCR0; CTC clears at that clock; TOV0 at MAX -> BOTTOM), "TCNT0"
// (a write blocks the next compare match) and "Asynchronous Operation of
// Timer/Counter0" (writes latched at the second TOSC1 edge; compare disabled
// while OCR0 or TCNT0 is being written).
//
//===----------------------------------------------------------------------===//
#include "AsyncTimer0.h"

#include "gtest/gtest.h"

using wsn::sim::AsyncTimer0;

namespace {
constexpr uint8_t WGM00 = 0x40, WGM01 = 0x08;
constexpr unsigned TOV = 1, OCF = 2;

AsyncTimer0::State counter(uint8_t Tccr, uint8_t Ocr, uint8_t Tcnt = 0) {
  AsyncTimer0::State S;
  S.Tccr = Tccr;
  S.Ocr = S.OcrBuf = Ocr;
  S.Tcnt = Tcnt;
  return S;
}
} // namespace

TEST(AsyncTimer0, PrescalerIsTable56) {
  const uint32_t Want[8] = {0, 1, 8, 32, 64, 128, 256, 1024};
  for (uint8_t Cs = 0; Cs < 8; ++Cs)
    EXPECT_EQ(counter(Cs, 0).prescale(), Want[Cs]) << "CS02:0 = " << int(Cs);
}

TEST(AsyncTimer0, PrescaledClockCountsEveryNthEdge) {
  // clk_T0S/32: the counter advances at edges 32, 64, ... from the prescaler's start.
  AsyncTimer0::State S = counter(/*CS=3*/ 3, 0xFF);
  EXPECT_EQ(S.nextActiveEdge(), 32u);
  for (int I = 0; I < 31; ++I)
    S.step();
  EXPECT_EQ(S.Tcnt, 0);
  S.step();
  EXPECT_EQ(S.Tcnt, 1);
  EXPECT_EQ(S.nextActiveEdge(), 64u);
}

TEST(AsyncTimer0, CtcSetsOcfAndClearsAtTheClockAfterTheMatch) {
  AsyncTimer0::State S = counter(WGM01 | 1, /*OCR0*/ 3);
  EXPECT_EQ(S.step(), 0u); // 0 -> 1
  EXPECT_EQ(S.step(), 0u); // 1 -> 2
  EXPECT_EQ(S.step(), 0u); // 2 -> 3
  EXPECT_EQ(S.Tcnt, 3);
  EXPECT_EQ(S.step(), OCF); // TCNT0 == OCR0: flag, counter to BOTTOM
  EXPECT_EQ(S.Tcnt, 0);
  // Period OCR0 + 1 clocks.
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(S.step(), 0u);
  EXPECT_EQ(S.step(), OCF);
}

TEST(AsyncTimer0, CtcWithOcrBelowCounterWrapsThroughMax) {
  AsyncTimer0::State S = counter(WGM01 | 1, /*OCR0*/ 10, /*TCNT0*/ 20);
  unsigned Clocks = 0, Flags = 0;
  while (!(Flags & OCF)) {
    Flags |= S.step();
    ++Clocks;
  }
  // 20 -> 255 (235 clocks), wrap with TOV0 (1), 0 -> 10 (10), match (1).
  EXPECT_EQ(Clocks, 247u);
  EXPECT_TRUE(Flags & TOV);
}

TEST(AsyncTimer0, NormalModeOverflowsAtMax) {
  AsyncTimer0::State S = counter(1, 0x80, 0xFE);
  EXPECT_EQ(S.step(), 0u);
  EXPECT_EQ(S.Tcnt, 0xFF);
  EXPECT_EQ(S.step(), TOV);
  EXPECT_EQ(S.Tcnt, 0);
}

TEST(AsyncTimer0, WritesLatchAtTheSecondEdgeAndDisableCompare) {
  AsyncTimer0::State S = counter(WGM01 | 1, /*OCR0*/ 2, /*TCNT0*/ 1);
  // OCR0 written at edge 0: pending until edge 2; no match while pending.
  S.PendValue[AsyncTimer0::POcr] = 5;
  S.PendEdge[AsyncTimer0::POcr] = 2;
  EXPECT_EQ(S.step(), 0u); // edge 1: 1 -> 2
  // Edge 2: TCNT0 == old OCR0 but the write is pending: no OCF0 (the CTC clear at
  // TOP still happens, spec/micaz.md); then the new value is latched.
  EXPECT_EQ(S.step(), 0u);
  EXPECT_EQ(S.Ocr, 5);
  EXPECT_EQ(S.PendEdge[AsyncTimer0::POcr], 0u);
  EXPECT_EQ(S.Tcnt, 0);
  for (int I = 0; I < 5; ++I)
    EXPECT_EQ(S.step(), 0u); // 0 -> 5
  EXPECT_EQ(S.step(), OCF);
}

TEST(AsyncTimer0, TcntWriteBlocksTheNextCompareMatch) {
  AsyncTimer0::State S = counter(1, /*OCR0*/ 7, /*TCNT0*/ 0);
  S.PendValue[AsyncTimer0::PTcnt] = 7;
  S.PendEdge[AsyncTimer0::PTcnt] = 1;
  S.step(); // edge 1: count 0 -> 1, then TCNT0 = 7 latched
  EXPECT_EQ(S.Tcnt, 7);
  EXPECT_EQ(S.step(), 0u); // TCNT0 == OCR0, but the match is blocked
  EXPECT_EQ(S.Tcnt, 8);
}

TEST(AsyncTimer0, PhaseCorrectOverflowsAtBottom) {
  AsyncTimer0::State S = counter(WGM00 | 1, 0xF0, 0xFE);
  EXPECT_EQ(S.step(), 0u); // up to 0xFF
  EXPECT_EQ(S.step(), 0u); // TOP: turn down
  EXPECT_TRUE(S.Down);
  EXPECT_EQ(S.Tcnt, 0xFE);
  S.Tcnt = 1;
  EXPECT_EQ(S.step(), 0u); // 1 -> 0
  EXPECT_EQ(S.step(), TOV); // BOTTOM
  EXPECT_FALSE(S.Down);
}
