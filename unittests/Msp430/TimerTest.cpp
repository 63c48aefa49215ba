// TimerTest.cpp - Timer_A3 and Timer_B7 against SLAU049F chapter 11 (Timer_A) and 12
// (Timer_B). After PUC the chip's SMCLK equals MCLK (both DCO, undivided) and ACLK is the
// 32768 Hz crystal.
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t TACTL = 0x160, TAR = 0x170, TACCTL0 = 0x162, TACCTL1 = 0x164,
                   TACCR0 = 0x172, TACCR1 = 0x174, TAIV = 0x12E;
constexpr uint32_t TBCTL = 0x180, TBIV = 0x11E;
constexpr uint16_t TASSEL_ACLK = 0x0100, TASSEL_SMCLK = 0x0200, ID_8 = 0x00C0, MC_UP = 0x0010,
                   MC_CONT = 0x0020, MC_UPDOWN = 0x0030, TACLR = 0x0004, TAIE = 0x0002,
                   TAIFG = 0x0001, CCIE = 0x0010, CCIFG = 0x0001, COV = 0x0002, CAP = 0x0100,
                   CM_RISING = 0x4000;

/// A chip running `jmp $` (2 cycles a step) with the watchdog held.
struct TimerRig : Rig {
  TimerRig() {
    code({0x3FFF});
    start();
    C.writeWord(0x120, 0x5A80);
  }
  /// Run until the cycle count reaches At (steps of 2 cycles).
  void until(uint64_t At) {
    while (C.cycles() < At)
      C.step();
  }
};

// §11.2.3 up mode: the timer counts to TACCR0 and restarts from 0; CCIFG of TACCR0 is set
// when it counts to TACCR0, TAIFG when it counts from TACCR0 to 0.
TEST(Msp430Timer, UpModeFlags) {
  TimerRig T;
  T.C.writeWord(TACCR0, 100); // a period of 101 counts
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_UP | TACLR);
  T.until(Start + 98);
  EXPECT_EQ(T.C.readWord(TACCTL0) & CCIFG, 0);
  T.until(Start + 100);
  EXPECT_EQ(T.C.readWord(TACCTL0) & CCIFG, CCIFG);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, 0);
  T.until(Start + 102);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, TAIFG);
  EXPECT_EQ(T.C.readWord(TAR), (T.C.cycles() - Start) % 101);
  EXPECT_EQ(T.C.readWord(TACTL) & TACLR, 0); // TACLR reads 0
}

// §11.2.3 continuous mode: 0 to 0FFFFh, TAIFG at the wrap; §11.3 TAIV: the highest-priority
// enabled flag (TACCR1 = 02h before TAIFG = 0Ah), reset by reading TAIV.
TEST(Msp430Timer, ContinuousModeAndTaiv) {
  TimerRig T;
  T.C.writeWord(TACCR1, 1000);
  T.C.writeWord(TACCTL1, CCIE);
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_CONT | TACLR | TAIE);
  T.until(Start + 1000);
  EXPECT_EQ(T.C.readWord(TACCTL1) & CCIFG, CCIFG);
  T.until(Start + 65536);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, TAIFG);
  EXPECT_TRUE(T.C.irq().isSet(5)); // TIMERA1 vector (0xFFEA)
  EXPECT_EQ(T.C.readWord(TAIV), 0x02);
  EXPECT_EQ(T.C.readWord(TACCTL1) & CCIFG, 0);
  EXPECT_EQ(T.C.readWord(TAIV), 0x0A);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, 0);
  EXPECT_EQ(T.C.readWord(TAIV), 0x00);
  EXPECT_FALSE(T.C.irq().isSet(5));
}

// §11.2.3 up/down mode: up to TACCR0 and down to 0; CCIFG at TACCR0, TAIFG at 0; the period is
// twice TACCR0. The input divider (IDx = /8) slows the count.
TEST(Msp430Timer, UpDownModeAndDivider) {
  TimerRig T;
  T.C.writeWord(TACCR0, 10);
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_UPDOWN | TACLR);
  T.until(Start + 10);
  EXPECT_EQ(T.C.readWord(TACCTL0) & CCIFG, CCIFG);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, 0);
  T.until(Start + 14);
  EXPECT_EQ(T.C.readWord(TAR), 6); // on the way down
  T.until(Start + 20);
  EXPECT_EQ(T.C.readWord(TACTL) & TAIFG, TAIFG);

  TimerRig D;
  uint64_t S2 = D.C.cycles();
  D.C.writeWord(TACTL, TASSEL_SMCLK | ID_8 | MC_CONT | TACLR);
  D.until(S2 + 80);
  EXPECT_EQ(D.C.readWord(TAR), (D.C.cycles() - S2) / 8);
}

// ACLK as the source: 32768 Hz while MCLK runs from the DCO at ~800 kHz after PUC (1.25 us a
// cycle, BasicClock.h): ACLK tick k falls at cycle ceil(k * 1e12 / 32768 / 1.25e6).
TEST(Msp430Timer, AclkSource) {
  TimerRig T;
  T.C.writeWord(TACTL, TASSEL_ACLK | MC_CONT | TACLR);
  uint64_t Base = T.C.cycles();
  T.until(Base + 2441);
  auto AclkTicks = [](uint64_t Cycle) { return Cycle * 1250000 * 32768 / 1000000000000ull; };
  EXPECT_EQ(T.C.readWord(TAR), AclkTicks(T.C.cycles()) - AclkTicks(Base));
  EXPECT_GE(T.C.readWord(TAR), 99);
  EXPECT_LE(T.C.readWord(TAR), 100);
}

// §11.2.4 capture mode: the counter is copied to TACCRx on the selected edge of CCIxA and CCIFG
// set; a second capture before CCIFG is cleared sets COV. CCI reads the input.
TEST(Msp430Timer, Capture) {
  TimerRig T;
  T.C.writeWord(TACCTL1, CM_RISING | CAP); // CCIS = 0: CCI1A
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_CONT | TACLR);
  T.until(Start + 300);
  T.Dev.timerA().setInput(1, false, true, Start + 250);
  EXPECT_EQ(T.C.readWord(TACCR1), 250);
  EXPECT_EQ(T.C.readWord(TACCTL1) & (CCIFG | COV), CCIFG);
  EXPECT_EQ(T.C.readWord(TACCTL1) & 0x0008, 0x0008); // CCI
  T.Dev.timerA().setInput(1, false, false, T.C.cycles()); // falling edge: no capture
  EXPECT_EQ(T.C.readWord(TACCR1), 250);
  T.Dev.timerA().setInput(1, false, true, T.C.cycles());
  EXPECT_EQ(T.C.readWord(TACCTL1) & (CCIFG | COV), CCIFG | COV);
}

// An edge reported after the timer ran past it (boards hear the radio at instruction
// boundaries) captures the count of the edge's cycle (§11.2.4: TxR is copied "when the
// capture occurs"), also across a wrap in up mode (period TACCR0 + 1 = 100).
TEST(Msp430Timer, LateEdgeCapturesItsCycle) {
  TimerRig T;
  T.C.writeWord(TACCTL1, CM_RISING | CAP);
  T.C.writeWord(TACCR0, 99);
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_UP | TACLR);
  T.until(Start + 130);
  EXPECT_EQ(T.C.readWord(TAR), (T.C.cycles() - Start) % 100);
  T.Dev.timerA().setInput(1, false, true, Start + 95);
  EXPECT_EQ(T.C.readWord(TACCR1), 95);
  EXPECT_EQ(T.C.readWord(TAR), (T.C.cycles() - Start) % 100);
}

// TACCR0's interrupt (vector 0xFFEC) is single-source: accepting it resets CCIFG (§11.2.6).
TEST(Msp430Timer, Ccr0InterruptClearsItsFlag) {
  TimerRig T;
  T.word(0xFFEC, 0x4200);
  T.C.setReg(SP, 0x2000);
  T.C.writeWord(TACCR0, 50);
  T.C.writeWord(TACCTL0, CCIE);
  T.C.writeWord(TACTL, TASSEL_SMCLK | MC_UP | TACLR);
  T.C.setReg(SR, SR_GIE);
  StepKind K;
  while ((K = T.C.step()) != StepKind::Interrupt)
    ASSERT_LT(T.C.cycles(), 1000u);
  EXPECT_EQ(T.C.reg(PC), 0x4200u);
  EXPECT_EQ(T.C.readWord(TACCTL0) & CCIFG, 0);
}

// §12.2.1 Timer_B counter length (CNTLx = 8 bits): continuous mode wraps at 0FFh; TBIV reports
// TBIFG as 0Eh.
TEST(Msp430Timer, TimerBCounterLength) {
  TimerRig T;
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TBCTL, 0x1800 | TASSEL_SMCLK | MC_CONT | TACLR | TAIE);
  T.until(Start + 256);
  EXPECT_EQ(T.C.readWord(TBCTL) & TAIFG, TAIFG);
  EXPECT_TRUE(T.C.irq().isSet(12)); // TIMERB1 vector (0xFFF8)
  EXPECT_EQ(T.C.readWord(TBIV), 0x0E);
}

} // namespace
