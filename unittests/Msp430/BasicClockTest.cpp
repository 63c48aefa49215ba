// BasicClockTest.cpp - the Basic Clock module against SLAU049F chapter 4 (and the typical DCO
// model documented in BasicClock.h).
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t DCOCTL = 0x56, BCSCTL1 = 0x57, BCSCTL2 = 0x58, TACTL = 0x160, TAR = 0x170;

// §4.3 register reset values; §4.1: MCLK and SMCLK from the DCO at ~800 kHz after PUC.
TEST(Msp430BasicClock, PucState) {
  Rig T;
  T.start();
  EXPECT_EQ(T.C.readByte(DCOCTL), 0x60);
  EXPECT_EQ(T.C.readByte(BCSCTL1), 0x84);
  EXPECT_EQ(T.C.readByte(BCSCTL2), 0x00);
  EXPECT_DOUBLE_EQ(T.Dev.clock().dcoHz(), 800e3);
  EXPECT_DOUBLE_EQ(T.Dev.clock().mclkHz(), 800e3);
}

// RSEL and DCO steps (typical ratios 1.65 and 1.12) and the modulator (§4.2.5):
// f = 32 * fDCO * fDCO+1 / (MOD * fDCO + (32 - MOD) * fDCO+1).
TEST(Msp430BasicClock, DcoModel) {
  Rig T;
  T.start();
  T.C.writeByte(BCSCTL1, 0x85); // RSEL = 5
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 800e3 * 1.65, 1e-6);
  T.C.writeByte(BCSCTL1, 0x84);
  T.C.writeByte(DCOCTL, 0x80); // DCO = 4
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 896e3, 1e-6);
  T.C.writeByte(DCOCTL, 0x70); // DCO = 3, MOD = 16: halfway in period between 800 and 896 kHz
  double F0 = 800e3, F1 = 896e3;
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 32 * F0 * F1 / (16 * F0 + 16 * F1), 1e-6);
  T.C.writeByte(DCOCTL, 0xFF); // DCO = 7: MOD has no effect
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 800e3 * 1.12 * 1.12 * 1.12 * 1.12, 1e-6);
}

// SMCLK = DCO / DIVS (BCSCTL2 bits 2-1): a timer on SMCLK counts every second MCLK cycle at /2;
// MCLK = DCO / DIVM does not change what one MCLK cycle is to the core.
TEST(Msp430BasicClock, SmclkDivider) {
  Rig T;
  T.code({0x3FFF});
  T.start();
  T.C.writeWord(0x120, 0x5A80);
  T.C.writeByte(BCSCTL2, 0x02); // DIVS = /2
  uint64_t Start = T.C.cycles();
  T.C.writeWord(TACTL, 0x0200 | 0x0020 | 0x0004); // SMCLK, continuous, clear
  while (T.C.cycles() < Start + 100)
    T.C.step();
  EXPECT_EQ(T.C.readWord(TAR), (T.C.cycles() - Start) / 2);
}

// ACLK = 32768 Hz / DIVA (BCSCTL1 bits 5-4): at /8, 4096 ticks per second of real time.
TEST(Msp430BasicClock, AclkDividerAndRealTime) {
  Rig T;
  T.start();
  T.C.writeByte(BCSCTL1, 0x84 | 0x30); // DIVA = /8
  const ClockSource &A = T.Dev.clock().aclk();
  uint64_t C0 = T.C.cycles();
  uint64_t OneSecond = 800000; // MCLK cycles at 800 kHz
  EXPECT_EQ(A.ticksAt(C0 + OneSecond) - A.ticksAt(C0), 4096u);
  EXPECT_EQ(T.Dev.clock().picosecondsAt(C0 + OneSecond) - T.Dev.clock().picosecondsAt(C0),
            1000000000000ull);
  uint64_t At = A.cycleOfTick(A.ticksAt(C0) + 1);
  EXPECT_EQ(A.ticksAt(At), A.ticksAt(C0) + 1);
  EXPECT_EQ(A.ticksAt(At - 1), A.ticksAt(C0));
}

} // namespace
