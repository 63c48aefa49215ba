// PeripheralTest.cpp - interrupts, low-power modes, the hardware multiplier, the watchdog and
// the flash controller's registers, against SLAU144J (MSP430x2xx) / SLAU049F (MSP430x1xx).
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

/// An event source for the tests: raises its request line at a given cycle; the CPU's
/// acceptance resets it (a single-source flag).
class Alarm : public Peripheral {
public:
  Alarm(Cpu &C, unsigned Slot, uint64_t At) : C(C), Slot(Slot), At(At) {
    C.irq().setAcknowledge(Slot, [](void *Ctx, unsigned S) {
      static_cast<Alarm *>(Ctx)->C.irq().set(S, false);
    }, this);
  }
  uint16_t read(uint32_t, bool) override { return 0; }
  void write(uint32_t, uint16_t, bool) override {}
  void advanceTo(uint64_t Cycle) override {
    if (At != kNever && Cycle >= At) {
      C.irq().set(Slot, true);
      At = kNever;
    }
  }
  uint64_t nextEvent() const override { return At; }

private:
  Cpu &C;
  unsigned Slot;
  uint64_t At;
};

// §2.2.3 "Interrupt acceptance": PC and SR pushed, SR cleared except SCG0 (ending the LPM),
// vector to PC, 6 cycles; §2.3 low-power modes: with CPUOFF set no instruction is fetched;
// a handler's BIC on the saved SR keeps the CPU active after RETI (Table 3-14: RETI 5).
TEST(Msp430Interrupts, WakeFromLpmByClearingSavedSr) {
  Rig T;
  T.code({0xD032, 0x00D8}); // bis #GIE|CPUOFF|SCG0|SCG1, sr  (LPM3 with interrupts)
  T.code({0x431A});         // mov #1, r10 (runs after the wake-up)
  T.code({0x3FFF});         // jmp $
  T.At = 0x4100;
  T.code({0xC0B1, 0x0010, 0x0000}); // bic #CPUOFF, 0(sp)
  T.code({0x1300});                 // reti
  T.word(0xFFE0 + 2 * 11, 0x4100);  // slot 11 (Comparator_A: no model drives it)
  Alarm A(T.C, 11, 1000);
  T.C.addDevice(&A);
  T.start();
  T.C.setReg(SP, 0x1200);
  EXPECT_EQ(T.C.step(), StepKind::Instruction);
  EXPECT_EQ(T.C.sr(), 0x00D8u);
  uint64_t Before = T.C.cycles();
  EXPECT_EQ(T.C.step(), StepKind::Idle); // asleep until the alarm
  EXPECT_EQ(T.C.cycles(), 1000u);
  EXPECT_GT(T.C.cycles(), Before);
  EXPECT_EQ(T.C.instructions(), 1u);
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);
  EXPECT_EQ(T.C.cycles(), 1006u);
  EXPECT_EQ(T.C.reg(PC), 0x4100u);
  EXPECT_EQ(T.C.sr(), SR_SCG0); // cleared except SCG0
  EXPECT_EQ(T.C.reg(SP), 0x11FCu);
  EXPECT_EQ(T.word(0x11FE), 0x4004u); // return address
  EXPECT_EQ(T.word(0x11FC), 0x00D8u); // saved SR
  T.C.step();                          // bic: 5 cycles (#N -> x(Rm), Table 3-16)
  EXPECT_EQ(T.word(0x11FC), 0x00C8u);
  uint64_t AtReti = T.C.cycles();
  T.C.step();
  EXPECT_EQ(T.C.cycles() - AtReti, 5u);
  EXPECT_EQ(T.C.sr(), 0x00C8u); // GIE, SCG0, SCG1 back; CPUOFF gone
  EXPECT_EQ(T.C.step(), StepKind::Instruction);
  EXPECT_EQ(T.C.reg(10), 1u);
}

// Without the BIC the RETI restores CPUOFF and the CPU sleeps again; with nothing left to
// wake it, step reports Asleep and time stands still.
TEST(Msp430Interrupts, RetiBackToSleep) {
  Rig T;
  T.code({0xD032, 0x0018}); // bis #GIE|CPUOFF, sr
  T.code({0x431A});
  T.At = 0x4100;
  T.code({0x1300}); // reti
  T.word(0xFFE0 + 2 * 0, 0x4100);
  Alarm A(T.C, 0, 500); // slot 0 (DAC/DMA: no model drives it)
  T.C.addDevice(&A);
  T.start();
  T.C.writeWord(0x120, 0x5A80); // hold the watchdog: it would wake the CPU with a PUC
  T.C.setReg(SP, 0x1200);
  T.C.step();
  EXPECT_EQ(T.C.step(), StepKind::Idle);
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // reti
  EXPECT_TRUE(T.C.sr() & SR_CPUOFF);
  uint64_t Now = T.C.cycles();
  EXPECT_EQ(T.C.step(), StepKind::Asleep);
  EXPECT_EQ(T.C.cycles(), Now);
  EXPECT_EQ(T.C.reg(10), 0u);
}

// The handlers running (accepted, not yet left by RETI) nest when one sets GIE again
// (§2.2.3: acceptance clears GIE; an EINT in the handler re-enables it): the core keeps their
// slots, outermost first, for wsn-sim's stack-overflow report; each RETI drops the innermost.
TEST(Msp430Interrupts, RunningInterruptsNest) {
  Rig T;
  T.code({0xD232});         // eint (bis #GIE, sr)
  T.code({0x3FFF});         // jmp $
  T.At = 0x4100;            // slot 11's handler: eint, then reti
  T.code({0xD232, 0x1300});
  T.At = 0x4200;            // slot 0's handler: reti
  T.code({0x1300});
  T.word(0xFFE0 + 2 * 11, 0x4100);
  T.word(0xFFE0 + 2 * 0, 0x4200);
  T.start();
  T.C.writeWord(0x120, 0x5A80); // hold the watchdog
  T.C.setReg(SP, 0x1200);
  EXPECT_TRUE(T.C.runningInterrupts().empty());
  T.C.irq().set(11, true);
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // eint
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);   // slot 11
  T.C.irq().set(11, false);
  EXPECT_EQ(T.C.runningInterrupts(), std::vector<uint8_t>({11}));
  T.C.irq().set(0, true);
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // eint in the handler
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);   // slot 0 inside slot 11's handler
  T.C.irq().set(0, false);
  EXPECT_EQ(T.C.runningInterrupts(), std::vector<uint8_t>({11, 0}));
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // slot 0's reti
  EXPECT_EQ(T.C.runningInterrupts(), std::vector<uint8_t>({11}));
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // slot 11's reti
  EXPECT_TRUE(T.C.runningInterrupts().empty());
  EXPECT_EQ(T.C.reg(PC), 0x4002u);              // back at the jmp
}

// §2.2 "the higher the vector address, the higher the priority"; maskable requests wait for
// GIE; the NMI vector is taken with GIE clear when its own enable is set (§2.2.2).
TEST(Msp430Interrupts, PriorityGieAndNmi) {
  Rig T;
  T.code({0x4303, 0x4303, 0x4303}); // nop x3
  T.word(0xFFE0 + 2 * 0, 0x4200);
  T.word(0xFFE0 + 2 * 11, 0x4300);
  T.word(0xFFFC, 0x4400); // NMI
  T.start();
  T.C.irq().set(0, true); // slots no on-chip model drives (DAC/DMA, Comparator_A)
  T.C.irq().set(11, true);
  EXPECT_EQ(T.C.step(), StepKind::Instruction); // GIE clear: not accepted
  T.C.setReg(SR, SR_GIE);
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);
  EXPECT_EQ(T.C.reg(PC), 0x4300u); // slot 11 (0xFFF6) before slot 0 (0xFFE0)

  Rig N;
  N.code({0x4303, 0x4303});
  N.word(0xFFFC, 0x4400);
  N.start();
  N.C.writeByte(0x0000, NMIIE);             // IE1.NMIIE
  N.C.writeByte(0x0002, NMIIFG | OFIFG);    // IFG1
  EXPECT_EQ(N.C.step(), StepKind::Interrupt); // GIE clear, still taken
  EXPECT_EQ(N.C.reg(PC), 0x4400u);
  EXPECT_EQ(N.C.readByte(0x0000) & NMIIE, 0); // NMIIE reset on acceptance
  EXPECT_EQ(N.C.readByte(0x0002) & NMIIFG, NMIIFG); // the flag stays for the handler
}

// SLAU144J §7.2 "Hardware Multiplier Operation", Table 7-2 (SUMEXT), §7.2.3 (byte operands).
TEST(Msp430Multiplier, ModesAndSumExt) {
  Rig T;
  T.start();
  Cpu &C = T.C;
  auto Res = [&] { return uint32_t(C.readWord(0x13C)) << 16 | C.readWord(0x13A); };
  C.writeWord(0x130, 0xFFFF); // MPY
  C.writeWord(0x138, 0xFFFF);
  EXPECT_EQ(Res(), 0xFFFE0001u);
  EXPECT_EQ(C.readWord(0x13E), 0x0000);
  C.writeWord(0x132, 0xFFFE); // MPYS: -2 * 3
  C.writeWord(0x138, 3);
  EXPECT_EQ(Res(), 0xFFFFFFFAu);
  EXPECT_EQ(C.readWord(0x13E), 0xFFFF);
  C.writeWord(0x132, 0xFFFF); // MPYS: -1 * -1
  C.writeWord(0x138, 0xFFFF);
  EXPECT_EQ(Res(), 1u);
  EXPECT_EQ(C.readWord(0x13E), 0x0000);
  C.writeWord(0x13A, 0xFFFF); // preload FFFFFFFFh, MAC 1 * 1: carry out
  C.writeWord(0x13C, 0xFFFF);
  C.writeWord(0x134, 1);
  C.writeWord(0x138, 1);
  EXPECT_EQ(Res(), 0u);
  EXPECT_EQ(C.readWord(0x13E), 0x0001);
  C.writeWord(0x138, 1); // again: 1, no carry
  EXPECT_EQ(Res(), 1u);
  EXPECT_EQ(C.readWord(0x13E), 0x0000);
  C.writeWord(0x13A, 5); // MACS: 5 + (-1 * 10) = -5
  C.writeWord(0x13C, 0);
  C.writeWord(0x136, 0xFFFF);
  C.writeWord(0x138, 10);
  EXPECT_EQ(Res(), 0xFFFFFFFBu);
  EXPECT_EQ(C.readWord(0x13E), 0xFFFF);
  C.writeByte(0x132, 0xFF); // byte operand: upper byte cleared, not sign-extended
  C.writeWord(0x138, 2);
  EXPECT_EQ(C.readWord(0x132), 0x00FF);
  EXPECT_EQ(Res(), 0x1FEu);
}

// SLAU144J §10.2: after PUC the WDT runs in watchdog mode from SMCLK with the /32768 tap;
// expiry causes a PUC and sets WDTIFG; WDTCTL reads 069h in the upper byte.
TEST(Msp430Watchdog, ExpiryAfterPucCausesPuc) {
  Rig T;
  T.code({0x531A, 0x3FFF}); // inc r10 ; jmp $
  T.start();
  EXPECT_EQ(T.C.readWord(0x120), 0x6900);
  uint64_t Start = T.C.cycles();
  while (T.C.cycles() < Start + 32760)
    T.C.step();
  EXPECT_EQ(T.C.reg(10), 1u);
  while (T.C.cycles() < Start + 32800)
    T.C.step();
  EXPECT_EQ(T.C.reg(10), 2u); // the reset vector ran again
  EXPECT_EQ(T.C.readByte(0x0002) & WDTIFG, WDTIFG);
}

TEST(Msp430Watchdog, HoldAndPasswordViolation) {
  Rig T;
  T.code({0x40B2, 0x5A80, 0x0120}); // mov #WDTPW|WDTHOLD, &WDTCTL
  T.code({0x531A, 0x3FFF});         // inc r10 ; jmp $
  T.start();
  T.C.run(100000);
  EXPECT_EQ(T.C.reg(10), 1u);
  EXPECT_EQ(T.C.readWord(0x120), 0x6980);
  T.C.writeWord(0x120, 0x1280); // wrong password: PUC, WDTIFG
  T.C.run(3);
  EXPECT_EQ(T.C.reg(10), 2u); // the reset vector ran again
  EXPECT_EQ(T.C.readByte(0x0002) & WDTIFG, WDTIFG);
}

// Interval-timer mode (WDTTMSEL) with the /64 tap: WDTIFG after 64 clocks, an interrupt when
// WDTIE and GIE are set, WDTIFG reset when the interrupt is accepted.
TEST(Msp430Watchdog, IntervalModeInterrupt) {
  Rig T;
  T.code({0x40B2, 0x5A1B, 0x0120}); // mov #WDTPW|WDTTMSEL|WDTCNTCL|WDTIS1|WDTIS0, &WDTCTL
  T.code({0xD3D2, 0x0000});         // bis.b #1, &IE1 (WDTIE)
  T.code({0xD232});                 // bis #GIE, sr
  T.code({0x3FFF});                 // jmp $
  T.word(0xFFF4, 0x4200);
  T.start();
  T.C.setReg(SP, 0x1200);
  T.C.run(3);
  uint64_t Cleared = 4 + 5; // the WDTCTL write is the last cycle of a 5-cycle MOV after reset
  while (T.C.step() != StepKind::Interrupt)
    ASSERT_LT(T.C.cycles(), 1000u);
  EXPECT_EQ(T.C.reg(PC), 0x4200u);
  EXPECT_GE(T.C.cycles() - 6, Cleared + 64);
  EXPECT_LE(T.C.cycles() - 6, Cleared + 64 + 2); // accepted after the current instruction
  EXPECT_EQ(T.C.readByte(0x0002) & WDTIFG, 0);
}

// SLAU144J §7.4 flash controller registers: reset values 9600h, 9642h, 9618h (F1xx; F2xx has
// LOCKA: 9658h); the password is 0A5h, anything else sets KEYV and causes a PUC.
TEST(Msp430FlashController, RegistersAndKeyViolation) {
  Rig T;
  T.code({0x531A, 0x3FFF});
  T.start();
  EXPECT_EQ(T.C.readWord(0x128), 0x9600);
  EXPECT_EQ(T.C.readWord(0x12A), 0x9642);
  EXPECT_EQ(T.C.readWord(0x12C), 0x9618);
  T.C.writeWord(0x12A, 0xA540 | 0x15); // FSSELx = MCLK, FN = 0x15
  EXPECT_EQ(T.C.readWord(0x12A), 0x9655);
  T.C.run(1);
  T.C.writeWord(0x128, 0x1240); // no password
  T.C.run(2);
  EXPECT_EQ(T.C.reg(10), 2u); // PUC ran the reset vector again
  EXPECT_EQ(T.C.readWord(0x12C) & 0x20, 0x20); // KEYV
}

TEST(Msp430Mcu, UnknownPartNamesTheKnownOnes) {
  auto M = lookupMcu("msp430f149");
  ASSERT_FALSE(M.ok());
  EXPECT_NE(M.status().message().find("known: msp430f1611, msp430f2617"), std::string::npos);
}

} // namespace
