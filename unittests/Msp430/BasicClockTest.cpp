// BasicClockTest.cpp - the Basic Clock module against SLAU049F chapter 4 (and the typical DCO
// model documented in BasicClock.h).
#include "Rig.h"

#include <gtest/gtest.h>

#include <cmath>

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

// The F2617's Basic Clock Module+ (SLAU144 §5.3 reset values; §5.1: DCOCLK ~1.1 MHz after
// PUC at RSEL 7, DCO 3); RSEL is 4 bits and a step multiplies by the datasheet's typical
// S_RSEL = 1.35, a DCO step by S_DCO = 1.08; BCSCTL3 resets to 05h (LFXT1OF read-only).
TEST(Msp430BasicClock, PlusPucStateAndSteps) {
  Rig T("msp430f2617");
  T.start();
  EXPECT_EQ(T.C.readByte(DCOCTL), 0x60);
  EXPECT_EQ(T.C.readByte(BCSCTL1), 0x87);
  EXPECT_EQ(T.C.readByte(0x53), 0x05);
  EXPECT_DOUBLE_EQ(T.Dev.clock().dcoHz(), 1.1e6);
  T.C.writeByte(BCSCTL1, 0x8F); // RSEL 15
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 1.1e6 * std::pow(1.35, 8), 1e-3);
  T.C.writeByte(DCOCTL, 0x80); // DCO 4
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 1.1e6 * std::pow(1.35, 8) * 1.08, 1e-3);
  T.C.writeByte(0x53, 0x24);
  EXPECT_EQ(T.C.readByte(0x53), 0x25);
}

// SLAU144 §24.2.2: information memory segment A holds TAG_DCO_30 (01h, 08h) at 0x10F6 and the
// calibration pairs CALDCO_xMHZ/CALBC1_xMHZ at 0x10F8 (16 MHz), 0x10FA (12), 0x10FC (8),
// 0x10FE (1). Written by the Chip, they give the nominal frequencies within 1% in this model.
TEST(Msp430BasicClock, PlusCalibrationConstants) {
  Rig T("msp430f2617");
  T.start();
  EXPECT_EQ(T.C.readByte(0x10F6), 0x01);
  EXPECT_EQ(T.C.readByte(0x10F7), 0x08);
  const double Mhz[4] = {16, 12, 8, 1};
  for (unsigned I = 0; I < 4; ++I) {
    SCOPED_TRACE(Mhz[I]);
    T.C.writeByte(BCSCTL1, T.C.readByte(0x10F9 + 2 * I));
    T.C.writeByte(DCOCTL, T.C.readByte(0x10F8 + 2 * I));
    EXPECT_NEAR(T.Dev.clock().dcoHz(), Mhz[I] * 1e6, Mhz[I] * 1e4);
    EXPECT_EQ(T.C.readByte(BCSCTL1) & 0x80, 0x80); // XT2OFF
  }
  Rig F1("msp430f1611"); // no such constants on the F1xx
  F1.start();
  EXPECT_EQ(F1.C.readByte(0x10FC), 0xFF);
}

// One chip's DCO (spec/wsn-sim.md section 4, "Clocks"): SLAS272 gives the F1xx DCO at the PUC
// setting (fDCO(43), 3 V) as 0.61 (min), 0.75 (typ), 0.90 (max) MHz; a part's factor scales
// every setting. The F2xx is used through its factory calibration (SLAU144 §24.2.2), which
// this model gives to 1% for a typical part only: a part slower than typical by the
// datasheet's range (SLAS541 fDCO(7,3) 0.80-1.50 MHz) could not reach 16 MHz here, so the F2xx
// spread is 1.
TEST(Msp430BasicClock, DcoSpreadIsTheDatasheetRange) {
  double Lo, Hi;
  BasicClock::dcoSpread(false, Lo, Hi);
  EXPECT_DOUBLE_EQ(Lo, 0.61 / 0.75);
  EXPECT_DOUBLE_EQ(Hi, 0.90 / 0.75);
  ClockParts Fast;
  Fast.DcoScale = Hi;
  Rig T("msp430f1611", Fast);
  T.start();
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 960e3, 1e-6); // 800 kHz typical * 0.90 / 0.75
  T.C.writeByte(BCSCTL1, 0x85);                    // RSEL 5: the steps are unchanged
  EXPECT_NEAR(T.Dev.clock().dcoHz(), 960e3 * 1.65, 1e-6);
  ClockParts Slow;
  Slow.DcoScale = Lo;
  Rig S("msp430f1611", Slow);
  S.start();
  EXPECT_NEAR(S.Dev.clock().dcoHz(), 800e3 * 0.61 / 0.75, 1e-6);

  BasicClock::dcoSpread(true, Lo, Hi);
  EXPECT_EQ(Lo, 1.0);
  EXPECT_EQ(Hi, 1.0);
}

// LFXT1 is a crystal of its own (SLAU049 §4.2.2): changing the DCO does not restart it, so ACLK
// ticks stay at the crystal's edges, k / 32768 s after power-up for a perfect crystal.
TEST(Msp430BasicClock, AclkStaysOnTheCrystalAcrossDcoChanges) {
  Rig T;
  T.code({0x3FFF});
  T.start();
  const ClockSource &A = T.Dev.clock().aclk();
  uint64_t Cycle = 0;
  for (uint8_t Dco : {0x80, 0x65, 0xE0, 0x33}) {
    Cycle += 1000;
    while (T.C.cycles() < Cycle)
      T.C.step();
    T.C.writeByte(DCOCTL, Dco); // a new MCLK period at a moment between two crystal edges
  }
  for (uint64_t C = T.C.cycles(); C < T.C.cycles() + 100000; C += 777) {
    uint64_t Ps = T.Dev.clock().picosecondsAt(C);
    EXPECT_EQ(A.ticksAt(C), uint64_t((unsigned __int128)Ps * 32768 / 1000000000000ull)) << C;
  }
}

// The crystal's power-up phase and frequency error (WatchCrystal): at 800 kHz an MCLK cycle is
// 1.25 us. A perfect crystal's first edge is at 30.517578 us (cycle 25); half a period into its
// oscillation at power-up, at 15.258789 us (cycle 13). At +20 ppm (the +-20 ppm tolerance of
// a standard watch crystal, CTS TF20 doc. 008-0353-0) 100 s hold 3276800 * 1.00002 =
// 3276865.5 edges.
TEST(Msp430BasicClock, AclkPhaseAndFrequencyError) {
  Rig Perfect;
  Perfect.start();
  EXPECT_EQ(Perfect.Dev.clock().aclk().cycleOfTick(1), 25u);
  ClockParts Half;
  Half.LfxtPhase32 = 0x80000000u;
  Rig H("msp430f1611", Half);
  H.start();
  EXPECT_EQ(H.Dev.clock().aclk().cycleOfTick(1), 13u);
  EXPECT_EQ(H.Dev.clock().aclk().ticksAt(12), 0u);
  EXPECT_EQ(H.Dev.clock().aclk().ticksAt(13), 1u);
  ClockParts Fast;
  Fast.LfxtPpb = 20000;
  Rig F("msp430f1611", Fast);
  F.start();
  EXPECT_EQ(F.Dev.clock().aclk().ticksAt(80000000), 3276865u);
  EXPECT_EQ(Perfect.Dev.clock().aclk().ticksAt(80000000), 3276800u);
}

} // namespace
