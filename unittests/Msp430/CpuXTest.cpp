// CpuXTest.cpp - the MSP430X (msp430f2617) additions: 20-bit PC and addresses, interrupt
// entry and RETI with PC bits 19:16 in the SR word, and the instructions without an
// extension word (SLAU144J chapter 4).
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

// §4.2.1: "PC bits 19:16 are stored with the SR in bits 15:12 of the first word"; RETI
// restores the 20-bit PC from both words.
TEST(Msp430X, InterruptAbove64KAndReti) {
  Rig T("msp430f2617");
  T.At = 0x12344;
  T.code({0x4303, 0x4303});        // nop, nop at 0x12344
  T.At = 0x4200;
  T.code({0x1300});                // reti
  T.word(0xFFC0 + 2 * 20, 0x4200); // slot 20
  T.start();
  T.C.setReg(PC, 0x12344);
  T.C.setReg(SP, 0x2000);
  T.C.setReg(SR, SR_GIE | SR_C);
  T.C.irq().set(20, true);
  EXPECT_EQ(T.C.step(), StepKind::Interrupt);
  EXPECT_EQ(T.C.reg(PC), 0x4200u);
  EXPECT_EQ(T.word(0x1FFE), 0x2344u);
  EXPECT_EQ(T.word(0x1FFC), 0x1000u | SR_GIE | SR_C);
  T.C.irq().set(20, false);
  EXPECT_EQ(T.stepCycles(), 5u);
  EXPECT_EQ(T.C.reg(PC), 0x12344u);
  EXPECT_EQ(T.C.sr(), SR_GIE | SR_C);
}

// §4.6.3 MOVA, ADDA, CMPA: 20-bit moves and arithmetic (N = bit 19, C = carry out of bit 19).
TEST(Msp430X, AddressInstructions) {
  Rig T("msp430f2617");
  T.code({0x0185, 0x2345}); // mova #0x12345, r5
  T.code({0x05E6});         // adda r5, r6
  T.code({0x05D6});         // cmpa r5, r6
  T.start();
  T.C.setReg(6, 0xEDCBB); // r5 + r6 = 0x100000: carry out, zero
  EXPECT_EQ(T.stepCycles(), 2u);
  EXPECT_EQ(T.C.reg(5), 0x12345u);
  EXPECT_EQ(T.stepCycles(), 1u);
  EXPECT_EQ(T.C.reg(6), 0u);
  EXPECT_EQ(T.C.sr() & (SR_C | SR_Z | SR_N | SR_V), SR_C | SR_Z);
  T.C.step(); // cmpa r5, r6: 0 - 0x12345 -> borrow (C clear), negative
  EXPECT_EQ(T.C.sr() & (SR_C | SR_Z | SR_N | SR_V), SR_N);
  EXPECT_EQ(T.C.reg(6), 0u);
}

// MOVA Rsrc,&abs20 stores 20 bits as two words; MOVA @Rsrc+ reads them back and adds 4.
TEST(Msp430X, MovaMemoryRoundTrip) {
  Rig T("msp430f2617");
  T.code({0x0561, 0x2000}); // mova r5, &0x12000  (abs19:16 = 1 in the Rdst field)
  T.start();
  T.C.setReg(5, 0xABCDE);
  EXPECT_EQ(T.stepCycles(), 4u);
  EXPECT_EQ(T.C.ignoredWrites(), 2u); // 0x12000 is flash on the F2617
  Rig U("msp430f2617");
  U.code({0x0578, 0x0000}); // mova r5, 0(r8)
  U.code({0x0819});         // mova @r8+, r9
  U.start();
  U.C.setReg(5, 0xABCDE);
  U.C.setReg(8, 0x1200);
  EXPECT_EQ(U.stepCycles(), 4u);
  EXPECT_EQ(U.word(0x1200), 0xBCDEu);
  EXPECT_EQ(U.word(0x1202), 0x000Au);
  EXPECT_EQ(U.stepCycles(), 3u);
  EXPECT_EQ(U.C.reg(9), 0xABCDEu);
  EXPECT_EQ(U.C.reg(8), 0x1204u);
}

// CALLA #imm20 pushes PC[19:16] then PC[15:0]; RETA (MOVA @SP+,PC) returns.
TEST(Msp430X, CallaAndReta) {
  Rig T("msp430f2617");
  T.code({0x13B1, 0x2000}); // calla #0x12000
  T.At = 0x12000;
  T.code({0x0110});         // reta
  T.start();
  T.C.setReg(SP, 0x2000);
  EXPECT_EQ(T.stepCycles(), 5u);
  EXPECT_EQ(T.C.reg(PC), 0x12000u);
  EXPECT_EQ(T.C.reg(SP), 0x1FFCu);
  EXPECT_EQ(T.word(0x1FFC), 0x4004u);
  EXPECT_EQ(T.word(0x1FFE), 0x0000u);
  T.C.step();
  EXPECT_EQ(T.C.reg(PC), 0x4004u);
  EXPECT_EQ(T.C.reg(SP), 0x2000u);
}

// PUSHM/POPM: 2 + n cycles for .W, 2 + 2n for .A; registers come back in order.
TEST(Msp430X, PushmPopm) {
  Rig T("msp430f2617");
  T.code({0x141B}); // pushm.a #2, r11  (r11, then r10)
  T.code({0x4C0A}); // mov r12, r10  (clobber: 16-bit move clears bits 19:16)
  T.code({0x4C0B}); // mov r12, r11
  T.code({0x161A}); // popm.a #2, r11  (field: lowest register, r10)
  T.code({0x152F}); // pushm.w #3, r15
  T.start();
  T.C.setReg(SP, 0x2000);
  T.C.setReg(10, 0x1AAAA);
  T.C.setReg(11, 0x2BBBB);
  EXPECT_EQ(T.stepCycles(), 6u);
  EXPECT_EQ(T.C.reg(SP), 0x1FF8u);
  EXPECT_EQ(T.word(0x1FF8), 0xAAAAu); // r10 on top
  EXPECT_EQ(T.word(0x1FFA), 0x0001u);
  T.C.run(2);
  EXPECT_EQ(T.stepCycles(), 6u);
  EXPECT_EQ(T.C.reg(10), 0x1AAAAu);
  EXPECT_EQ(T.C.reg(11), 0x2BBBBu);
  EXPECT_EQ(T.C.reg(SP), 0x2000u);
  EXPECT_EQ(T.stepCycles(), 5u);
  EXPECT_EQ(T.C.reg(SP), 0x1FFAu);
}

// RRAM/RLAM/RRUM (§4.6.3): n positions, n cycles; .W clears bits 19:16.
TEST(Msp430X, RotateMultiple) {
  Rig T("msp430f2617");
  T.code({0x0545}); // rram.a #2, r5
  T.code({0x0256}); // rlam.w #1, r6
  T.code({0x0B57}); // rrum.w #3, r7
  T.start();
  T.C.setReg(5, 0x80006);
  T.C.setReg(6, 0x14000);
  T.C.setReg(7, 0x0001C);
  EXPECT_EQ(T.stepCycles(), 2u);
  EXPECT_EQ(T.C.reg(5), 0xE0001u);
  EXPECT_EQ(T.C.sr() & (SR_C | SR_N), SR_C | SR_N); // last bit out was 1
  EXPECT_EQ(T.stepCycles(), 1u);
  EXPECT_EQ(T.C.reg(6), 0x8000u);
  EXPECT_EQ(T.C.sr() & (SR_N | SR_C), SR_N);
  EXPECT_EQ(T.stepCycles(), 3u);
  EXPECT_EQ(T.C.reg(7), 0x0003u);
  EXPECT_EQ(T.C.sr() & SR_C, SR_C);
}

// §4.5.2: the extension word's A/L with the instruction's B/W selects .A (20 bits); flags at
// bit 19. ADDX.A R5,R6 = extension 1800h (A/L = 0) + ADD.B-encoded 5546h.
TEST(Msp430X, ExtendedAddress20Bit) {
  Rig T("msp430f2617");
  T.code({0x1800, 0x5546}); // addx.a r5, r6
  T.start();
  T.C.setReg(5, 0x80000);
  T.C.setReg(6, 0x80000);
  EXPECT_EQ(T.stepCycles(), 2u);
  EXPECT_EQ(T.C.reg(6), 0u);
  EXPECT_EQ(T.C.sr() & (SR_C | SR_Z | SR_N | SR_V), SR_C | SR_Z | SR_V);
}

// Register-mode repetition (extension bits 3:0 = n - 1): RPT #4 RLAX.A R5 doubles R5 four
// times; ZC makes RRCX shift zeros in (RRUX).
TEST(Msp430X, RepetitionAndZeroCarry) {
  Rig T("msp430f2617");
  T.code({0x1803, 0x5545}); // rpt #4 { rlax.a r5 }  (addx.a r5, r5)
  T.code({0x1940, 0x1006}); // rrux.w r6: ZC, A/L = 1, RRC r6
  T.start();
  T.C.setReg(5, 1);
  T.C.setReg(6, 0x8001);
  T.C.setReg(SR, SR_C);
  EXPECT_EQ(T.stepCycles(), 5u);
  EXPECT_EQ(T.C.reg(5), 16u);
  T.C.setReg(SR, SR_C);
  T.C.step();
  EXPECT_EQ(T.C.reg(6), 0x4000u); // a 0 went in although C was set
  EXPECT_EQ(T.C.sr() & SR_C, SR_C);
}

// Non-register mode: the extension word carries bits 19:16 of the immediate (bits 10:7) and
// of the destination address (bits 3:0); 20-bit data take two memory words.
TEST(Msp430X, ExtendedImmediateToAbsolute) {
  Rig T("msp430f2617");
  T.code({0x1880, 0x40F2, 0x2345, 0x1200}); // movx.a #0x12345, &0x01200
  T.code({0x1800, 0x1245});                 // pushx.a r5
  T.start();
  T.C.setReg(SP, 0x2000);
  T.C.setReg(5, 0xABCDE);
  T.C.step();
  EXPECT_EQ(T.word(0x1200), 0x2345u);
  EXPECT_EQ(T.word(0x1202), 0x0001u);
  T.C.step();
  EXPECT_EQ(T.C.reg(SP), 0x1FFCu);
  EXPECT_EQ(T.word(0x1FFC), 0xBCDEu);
  EXPECT_EQ(T.word(0x1FFE), 0x000Au);
}

TEST(Msp430X, ExtensionWordErrors) {
  Rig T("msp430f2617");
  T.code({0x1800, 0x5505}); // A/L = 0 with B/W = 0: reserved
  T.start();
  EXPECT_EQ(T.C.step(), StepKind::Faulted);
  EXPECT_NE(T.C.fault().find("extension word 0x1800 at 0x04000: reserved data length"),
            std::string::npos);
  Rig J("msp430f2617");
  J.code({0x1840, 0x3C00}); // extension word before a jump
  J.start();
  EXPECT_EQ(J.C.step(), StepKind::Faulted);
  EXPECT_NE(J.C.fault().find("has no extended form"), std::string::npos);
  Rig U; // the F1611 has no MSP430X CPU: these encodings are illegal
  U.code({0x0185, 0x2345});
  U.start();
  EXPECT_EQ(U.C.step(), StepKind::Faulted);
  EXPECT_NE(U.C.fault().find("illegal instruction 0x0185"), std::string::npos);
}

} // namespace
