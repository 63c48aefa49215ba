// LowPowerTest.cpp - clocks in the low-power modes against SLAU049F §2.3 "Operating Modes" and
// §3.2.3 (the SR's CPUOFF, OSCOFF, SCG0, SCG1): LPM0/LPM1 keep SMCLK and ACLK, LPM2/LPM3 stop
// SMCLK and keep ACLK, LPM4 stops both; an interrupt restarts them and RETI restores the mode.
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

constexpr uint32_t TACTL = 0x160, TAR = 0x170, TBCTL = 0x180, TBR = 0x190, TBCCTL0 = 0x182,
                   TBCCR0 = 0x192, P1IFG = 0x23, P1IE = 0x25, BCSCTL2 = 0x58;
constexpr uint16_t TSSEL_ACLK = 0x0100, TSSEL_SMCLK = 0x0200, MC_UP = 0x0010,
                   MC_CONT = 0x0020, TCLR = 0x0004, CCIE = 0x0010;
// The SR values of §2.3's table, with GIE.
constexpr uint16_t LPM0 = 0x18, LPM1 = 0x58, LPM2 = 0x98, LPM3 = 0xD8, LPM4 = 0xF8;

/// `bis #Mode, r2` then `jmp $`; TIMERB0 (0xFFFA) and PORT1 (0xFFE8) run `reti` at 0x4100.
/// Timer_A counts SMCLK (continuous), Timer_B counts ACLK in up mode to TBCCR0 = 32 with CCIE.
struct LpmRig : Rig {
  uint64_t TaStart = 0;
  explicit LpmRig(uint16_t Mode) {
    code({0xD032, Mode, 0x3FFF});
    word(0x4100, 0x1300);
    word(0xFFFA, 0x4100);
    word(0xFFE8, 0x4100);
    start();
    C.writeWord(0x120, 0x5A80); // watchdog held
    C.writeWord(TBCCR0, 32);
    C.writeWord(TBCCTL0, CCIE);
    C.writeWord(TBCTL, TSSEL_ACLK | MC_UP | TCLR);
    TaStart = C.cycles();
    C.writeWord(TACTL, TSSEL_SMCLK | MC_CONT | TCLR);
  }
  /// TAR as the number of SMCLK ticks since Timer_A started (SMCLK = MCLK after PUC).
  uint64_t tar() { return C.readWord(TAR); }
};

// LPM0 and LPM1 keep SMCLK (Timer_A counts through the sleep); LPM2 and LPM3 stop it (Timer_A
// holds its count) while ACLK runs on (Timer_B wakes the CPU at TBCCR0). The interrupt entry
// (6 cycles) and RETI (5) run with SMCLK on; RETI restores the mode and stops it again.
TEST(Msp430LowPower, SmclkPerMode) {
  for (uint16_t Mode : {LPM0, LPM1, LPM2, LPM3}) {
    SCOPED_TRACE(Mode);
    bool SmclkOn = !(Mode & SR_SCG1);
    LpmRig T(Mode);
    ASSERT_EQ(T.C.step(), StepKind::Instruction); // bis: 2 cycles (#N, Rn)
    uint64_t Slept = T.C.cycles();
    EXPECT_EQ(T.tar(), Slept - T.TaStart);
    EXPECT_EQ(T.Dev.clock().smclkRunning(), SmclkOn);
    EXPECT_TRUE(T.Dev.clock().aclkRunning());
    ASSERT_EQ(T.C.step(), StepKind::Idle); // to Timer_B's compare: 32 ACLK ticks
    uint64_t Woke = T.C.cycles();
    // 32 ticks of 32768 Hz at 800 kHz MCLK: about 781 cycles.
    EXPECT_NEAR(double(Woke - Slept), 32 * 800e3 / 32768, 25);
    EXPECT_EQ(T.tar(), SmclkOn ? Woke - T.TaStart : Slept - T.TaStart);
    ASSERT_EQ(T.C.step(), StepKind::Interrupt);
    EXPECT_TRUE(T.Dev.clock().smclkRunning());
    ASSERT_EQ(T.C.step(), StepKind::Instruction); // reti
    EXPECT_EQ(T.C.sr() & 0xF0, Mode & 0xF0);
    EXPECT_EQ(T.Dev.clock().smclkRunning(), SmclkOn);
    uint64_t Back = T.C.cycles();
    EXPECT_EQ(Back - Woke, 11u);
    EXPECT_EQ(T.tar(), SmclkOn ? Back - T.TaStart : Slept - T.TaStart + 11);
    // Asleep again: Timer_A moves only if SMCLK runs.
    ASSERT_EQ(T.C.step(), StepKind::Idle);
    EXPECT_EQ(T.tar(), SmclkOn ? (T.C.cycles() - T.TaStart) & 0xFFFF : Slept - T.TaStart + 11);
  }
}

// LPM4 (OSCOFF too) stops ACLK: Timer_B holds its count and the core sleeps with no event to
// wait for; a port 1 edge (P1IE) wakes it, and ACLK counts again in the handler.
TEST(Msp430LowPower, Lpm4StopsAclk) {
  LpmRig T(LPM4);
  T.C.writeByte(P1IE, 0x01);
  ASSERT_EQ(T.C.step(), StepKind::Instruction);
  EXPECT_FALSE(T.Dev.clock().aclkRunning());
  EXPECT_FALSE(T.Dev.clock().smclkRunning());
  uint16_t Tbr = T.C.readWord(TBR);
  EXPECT_EQ(T.C.step(), StepKind::Asleep);
  T.Dev.ports().setInput(1, 0, true); // P1.0 rising edge (P1IES = 0)
  EXPECT_EQ(T.C.readByte(P1IFG) & 1, 1);
  ASSERT_EQ(T.C.step(), StepKind::Interrupt);
  EXPECT_TRUE(T.Dev.clock().aclkRunning());
  EXPECT_EQ(T.C.readWord(TBR), Tbr);
  T.C.writeByte(P1IFG, 0); // the handler's job; the P1 flag is multi-source
  uint64_t Clear = T.C.cycles();
  const ClockSource &Aclk = T.Dev.clock().aclk();
  T.C.setReg(PC, 0x4004); // `jmp $`, awake, until ACLK's next tick
  while (Aclk.ticksAt(T.C.cycles()) == Aclk.ticksAt(Clear))
    T.C.step();
  EXPECT_EQ(T.C.readWord(TBR), Tbr + 1);
}

// OSCOFF turns LFXT1 off only when it does not feed MCLK (§3.2.3): with SELM = LFXT1 and the
// CPU running, ACLK keeps going.
TEST(Msp430LowPower, OscoffKeepsLfxt1ForMclk) {
  Rig T;
  T.start();
  T.Dev.clock().setStatusBits(SR_OSCOFF, T.C.cycles());
  EXPECT_FALSE(T.Dev.clock().aclkRunning());
  T.C.writeByte(BCSCTL2, 0xC0); // SELM = LFXT1CLK
  EXPECT_TRUE(T.Dev.clock().aclkRunning());
  T.Dev.clock().setStatusBits(SR_OSCOFF | SR_CPUOFF, T.C.cycles());
  EXPECT_FALSE(T.Dev.clock().aclkRunning());
}

} // namespace
