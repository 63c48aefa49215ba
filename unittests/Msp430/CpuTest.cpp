// CpuTest.cpp - instruction cycles, flags and addressing of the WSNMsp430 core against the
// numbers of the MSP430 family user's guides: SLAU144J (MSP430x2xx) and SLAU049F (MSP430x1xx).
#include "Rig.h"

#include <gtest/gtest.h>

using namespace wsn::msp430;
using wsn::msp430::test::Rig;

namespace {

struct CycleCase {
  const char *Asm;
  std::vector<uint16_t> Words;
  uint64_t Cycles;
};

uint64_t cyclesOf(const CycleCase &K) {
  Rig T;
  for (uint16_t W : K.Words)
    T.code({W});
  T.start();
  T.C.setReg(5, 0x1100);
  T.C.setReg(6, 0x1200);
  T.word(0x1100, 0x4100); // a code address for the indirect branches
  T.word(0x1102, 0x4100);
  return T.stepCycles();
}

// SLAU144J §3.4.4.2, Table 3-16 "Format I Instruction Cycles and Lengths" (the same table is
// SLAU049F Table 3-16). Constant-generator sources cost what register mode costs (§3.2.4).
TEST(Msp430Cycles, FormatITable) {
  const CycleCase Cases[] = {
      {"mov r5, r6", {0x4506}, 1},
      {"mov r5, pc", {0x4500}, 2},
      {"mov r5, 2(r6)", {0x4586, 2}, 4},
      {"mov r5, &0x1200", {0x4582, 0x1200}, 4},
      {"mov @r5, r6", {0x4526}, 2},
      {"mov @r5, pc", {0x4520}, 2},
      {"mov @r5, 2(r6)", {0x45A6, 2}, 5},
      {"mov @r5+, r6", {0x4536}, 2},
      {"mov @r5+, pc", {0x4530}, 3},
      {"mov @r5+, 2(r6)", {0x45B6, 2}, 5},
      {"mov #0x1234, r6", {0x4036, 0x1234}, 2},
      {"mov #0x4100, pc", {0x4030, 0x4100}, 3},
      {"mov #0x1234, 2(r6)", {0x40B6, 0x1234, 2}, 5},
      {"mov 2(r5), r6", {0x4516, 2}, 3},
      {"mov 2(r5), pc", {0x4510, 2}, 3},
      {"mov 2(r5), 4(r6)", {0x4596, 2, 4}, 6},
      {"mov &0x1100, r6", {0x4216, 0x1100}, 3},
      {"mov &0x1100, &0x1200", {0x4292, 0x1100, 0x1200}, 6},
      {"add r5, r6", {0x5506}, 1},
      {"cmp @r5+, 2(r6)", {0x95B6, 2}, 5},
      {"mov #1, r6 (R3, As=01)", {0x4316}, 1},
      {"mov #4, r6 (R2, As=10)", {0x4226}, 1},
      {"mov #8, r6 (R2, As=11)", {0x4236}, 1},
      {"mov #-1, 0(r6) (R3, As=11)", {0x43B6, 0}, 4},
      {"add #2, pc (R3, As=10)", {0x5320}, 2},
  };
  for (const CycleCase &K : Cases)
    EXPECT_EQ(cyclesOf(K), K.Cycles) << K.Asm;
}

// SLAU144J Table 3-15 "Format II Instruction Cycles and Lengths".
TEST(Msp430Cycles, FormatIITable) {
  const CycleCase Cases[] = {
      {"rra r5", {0x1105}, 1},         {"rra @r5", {0x1125}, 3},
      {"rra @r5+", {0x1135}, 3},       {"rra 2(r5)", {0x1115, 2}, 4},
      {"rra &0x1100", {0x1112, 0x1100}, 4},
      {"swpb r5", {0x1085}, 1},        {"sxt @r5", {0x11A5}, 3},
      {"rrc 2(r5)", {0x1015, 2}, 4},
      {"push r5", {0x1205}, 3},        {"push @r5", {0x1225}, 4},
      {"push @r5+", {0x1235}, 5},      {"push #0x1234", {0x1230, 0x1234}, 4},
      {"push 2(r5)", {0x1215, 2}, 5},  {"push &0x1100", {0x1212, 0x1100}, 5},
      {"push #1 (R3 constant)", {0x1213}, 3},
      {"call r5", {0x1285}, 4},        {"call @r5", {0x12A5}, 4},
      {"call @r5+", {0x12B5}, 5},      {"call #0x4100", {0x12B0, 0x4100}, 5},
      {"call 2(r5)", {0x1295, 0}, 5},  {"call &0x1100", {0x1292, 0x1100}, 5},
  };
  for (const CycleCase &K : Cases)
    EXPECT_EQ(cyclesOf(K), K.Cycles) << K.Asm;
}

// §3.4.4.3: "all jump instructions require one code word and take two CPU cycles", taken or
// not; the offset is a signed word count relative to PC+2.
TEST(Msp430Cycles, JumpsTakeTwoCycles) {
  Rig T;
  T.code({0x2003, 0x2403}); // jnz $+8 (Z clear after reset: taken) ; jz (not reached)
  T.start();
  EXPECT_EQ(T.stepCycles(), 2u);
  EXPECT_EQ(T.C.reg(PC), 0x4008u);
  Rig U;
  U.code({0x2403}); // jz $+8, Z clear: not taken
  U.start();
  EXPECT_EQ(U.stepCycles(), 2u);
  EXPECT_EQ(U.C.reg(PC), 0x4002u);
  Rig V;
  V.code({0x3FFF}); // jmp $ (offset -1 word)
  V.start();
  V.C.step();
  EXPECT_EQ(V.C.reg(PC), 0x4000u);
}

// Table 3-14 "Interrupt and Reset Cycles": RETI 5 cycles; reset 4 cycles.
TEST(Msp430Cycles, RetiAndReset) {
  Rig T;
  T.code({0x1300}); // reti
  T.start();
  EXPECT_EQ(T.C.cycles(), 4u); // power-on reset
  T.C.setReg(SP, 0x1200);
  T.word(0x1200, 0x0105); // SR: V, N, C
  T.word(0x1202, 0x4400); // PC
  EXPECT_EQ(T.stepCycles(), 5u);
  EXPECT_EQ(T.C.reg(PC), 0x4400u);
  EXPECT_EQ(T.C.sr(), 0x0105u);
  EXPECT_EQ(T.C.reg(SP), 0x1204u);
}

struct Alu {
  uint16_t Result;
  uint16_t Sr;
};

// Run one register-to-register instruction word with r5 = Src, r6 = Dst, SR = SrIn.
Alu run(uint16_t Ins, uint16_t Src, uint16_t Dst, uint16_t SrIn = 0) {
  Rig T;
  T.code({Ins});
  T.start();
  T.C.setReg(5, Src);
  T.C.setReg(6, Dst);
  T.C.setReg(SR, SrIn);
  T.C.step();
  return {uint16_t(T.C.reg(6)), uint16_t(T.C.sr() & (SR_C | SR_Z | SR_N | SR_V))};
}

// SLAU144J §3.4.6 / SLAU049F appendix B: ADD, SUB, CMP status bits at the word and byte
// boundaries.
TEST(Msp430Flags, AddSubOverflowAndCarry) {
  Alu A = run(0x5506, 1, 0x7FFF); // add r5, r6: 7FFFh + 1 = 8000h, signed overflow
  EXPECT_EQ(A.Result, 0x8000);
  EXPECT_EQ(A.Sr, SR_N | SR_V);
  A = run(0x5506, 1, 0xFFFF); // FFFFh + 1 = 0 with carry, no overflow
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = run(0x5506, 0x8000, 0x8000); // two negatives: 0, carry and overflow
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z | SR_C | SR_V);
  A = run(0x8506, 1, 0x8000); // sub r5, r6: 8000h - 1 = 7FFFh: overflow, C = no borrow
  EXPECT_EQ(A.Result, 0x7FFF);
  EXPECT_EQ(A.Sr, SR_C | SR_V);
  A = run(0x8506, 1, 0); // 0 - 1 = FFFFh: borrow (C clear), negative
  EXPECT_EQ(A.Result, 0xFFFF);
  EXPECT_EQ(A.Sr, SR_N);
  A = run(0x9506, 0x1234, 0x1234); // cmp: equal -> Z and C, destination unchanged
  EXPECT_EQ(A.Result, 0x1234);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = run(0x6506, 0, 0xFFFF, SR_C); // addc: FFFFh + 0 + C = 0, carry
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = run(0x7506, 0, 0, 0); // subc: 0 - 0 - 1 (C clear = borrow) = FFFFh
  EXPECT_EQ(A.Result, 0xFFFF);
  EXPECT_EQ(A.Sr, SR_N);
  A = run(0x5546, 1, 0xAB7F); // add.b r5, r6: 7Fh + 1 = 80h; high byte of r6 cleared
  EXPECT_EQ(A.Result, 0x0080);
  EXPECT_EQ(A.Sr, SR_N | SR_V);
  A = run(0x5546, 1, 0x00FF); // add.b: FFh + 1 = 0 with carry
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
}

// B.4 AND, BIT, XOR: "C: set if result is not zero"; XOR "V: set if both operands are
// negative"; BIC, BIS and MOV leave the status bits alone.
TEST(Msp430Flags, Logic) {
  Alu A = run(0xF506, 0x00F0, 0x0F0F); // and r5, r6 = 0
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z);
  A = run(0xB506, 0x8000, 0x8001); // bit: 8000h, N and C, r6 unchanged
  EXPECT_EQ(A.Result, 0x8001);
  EXPECT_EQ(A.Sr, SR_N | SR_C);
  A = run(0xE506, 0x8000, 0x8001); // xor: 0001h, both negative -> V
  EXPECT_EQ(A.Result, 0x0001);
  EXPECT_EQ(A.Sr, SR_C | SR_V);
  A = run(0xC506, 0x00FF, 0x1234, SR_C | SR_V); // bic: flags untouched
  EXPECT_EQ(A.Result, 0x1200);
  EXPECT_EQ(A.Sr, SR_C | SR_V);
  A = run(0xD506, 0x0001, 0x1234, SR_Z); // bis
  EXPECT_EQ(A.Result, 0x1235);
  EXPECT_EQ(A.Sr, SR_Z);
}

// B.4 DADD: decimal addition with carry; C set when the result exceeds 9999 (99 for bytes).
TEST(Msp430Flags, DecimalAdd) {
  Alu A = run(0xA506, 0x0001, 0x0099); // dadd r5, r6: 99 + 1 = 100
  EXPECT_EQ(A.Result, 0x0100);
  EXPECT_EQ(A.Sr, 0);
  A = run(0xA506, 0x0001, 0x9999); // 9999 + 1 = 10000: 0000h, carry
  EXPECT_EQ(A.Result, 0x0000);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = run(0xA506, 0x1234, 0x5678, SR_C); // 1234 + 5678 + 1 = 6913
  EXPECT_EQ(A.Result, 0x6913);
  A = run(0xA546, 0x0001, 0x0099); // dadd.b: 99 + 1 = 00, carry
  EXPECT_EQ(A.Result, 0x0000);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = run(0xA546, 0x0045, 0x0045); // dadd.b: 45 + 45 = 90, N (bit 7)
  EXPECT_EQ(A.Result, 0x0090);
  EXPECT_EQ(A.Sr, SR_N);
}

Alu runOne(uint16_t Ins, uint16_t R5, uint16_t SrIn) {
  Rig T;
  T.code({Ins});
  T.start();
  T.C.setReg(5, R5);
  T.C.setReg(SR, SrIn);
  T.C.step();
  return {uint16_t(T.C.reg(5)), uint16_t(T.C.sr() & (SR_C | SR_Z | SR_N | SR_V))};
}

// SLAU049F B-51 (RRC): "V: set if initial destination is positive and initial carry is set";
// B-49 (RRA) "V: reset"; SXT "C: set if result is not zero, V: reset"; SWPB no flags.
TEST(Msp430Flags, ShiftsAndSignExtend) {
  Alu A = runOne(0x1005, 0x0002, SR_C); // rrc r5: C -> MSB
  EXPECT_EQ(A.Result, 0x8001);
  EXPECT_EQ(A.Sr, SR_N | SR_V);
  A = runOne(0x1005, 0x8003, SR_C); // negative initial destination: no V; LSB -> C
  EXPECT_EQ(A.Result, 0xC001);
  EXPECT_EQ(A.Sr, SR_N | SR_C);
  A = runOne(0x1045, 0x1201, 0); // rrc.b r5: 01h -> 00h, C; high byte cleared
  EXPECT_EQ(A.Result, 0x0000);
  EXPECT_EQ(A.Sr, SR_Z | SR_C);
  A = runOne(0x1105, 0x8001, 0); // rra r5: sign kept
  EXPECT_EQ(A.Result, 0xC000);
  EXPECT_EQ(A.Sr, SR_N | SR_C);
  A = runOne(0x1145, 0x0080, SR_V); // rra.b: 80h -> C0h, V reset
  EXPECT_EQ(A.Result, 0x00C0);
  EXPECT_EQ(A.Sr, SR_N);
  A = runOne(0x1185, 0x1280, 0); // sxt r5
  EXPECT_EQ(A.Result, 0xFF80);
  EXPECT_EQ(A.Sr, SR_N | SR_C);
  A = runOne(0x1185, 0xFF00, SR_V); // sxt: 00h -> 0000h
  EXPECT_EQ(A.Result, 0);
  EXPECT_EQ(A.Sr, SR_Z);
  A = runOne(0x1085, 0x1234, SR_C | SR_N); // swpb
  EXPECT_EQ(A.Result, 0x3412);
  EXPECT_EQ(A.Sr, SR_C | SR_N);
}

// §3.3 addressing modes: symbolic (PC-relative, PC = address of the index word), absolute,
// indirect autoincrement by 1 for bytes and 2 for words, immediate (@PC+).
TEST(Msp430Addressing, Modes) {
  Rig T;
  T.code({0x4016, uint16_t(0x1100 - 0x4002)}); // mov EDE, r6 with EDE = 0x1100 (symbolic)
  T.code({0x4217, 0x1102});          // mov &0x1102, r7
  T.code({0x4578});                  // mov.b @r5+, r8
  T.code({0x4539});                  // mov @r5+, r9  (r5 is odd now: the word is at r5 & ~1)
  T.code({0x403A, 0xBEEF});          // mov #0xBEEF, r10
  T.start();
  T.word(0x1100, 0x1111);
  T.word(0x1102, 0x2222);
  T.C.setReg(5, 0x1100);
  T.C.run(5);
  EXPECT_EQ(T.C.reg(6), 0x1111u);
  EXPECT_EQ(T.C.reg(7), 0x2222u);
  EXPECT_EQ(T.C.reg(8), 0x11u);
  EXPECT_EQ(T.C.reg(9), 0x1111u); // word access at 0x1101 reads 0x1100 (address bit 0 ignored)
  EXPECT_EQ(T.C.reg(5), 0x1103u);
  EXPECT_EQ(T.C.reg(10), 0xBEEFu);
  EXPECT_FALSE(T.C.faulted());
}

// POP.B (emulated MOV.B @SP+,dst, §3.4.6.33 / B.4): "SP + 2 -> SP" although one byte moves;
// PUSH.B writes the byte at the new top of stack only.
TEST(Msp430Addressing, StackByteAccessKeepsSpEven) {
  Rig T;
  T.code({0x4178}); // mov.b @sp+, r8   (pop.b r8)
  T.code({0x1248}); // push.b r8
  T.start();
  T.C.setReg(SP, 0x1200);
  T.word(0x1200, 0xA5C3);
  T.C.step();
  EXPECT_EQ(T.C.reg(8), 0xC3u);
  EXPECT_EQ(T.C.reg(SP), 0x1202u);
  T.word(0x1200, 0x7777);
  T.C.setReg(8, 0x1234);
  T.C.step();
  EXPECT_EQ(T.C.reg(SP), 0x1200u);
  EXPECT_EQ(T.word(0x1200), 0x7734u);
}

// §3.2.4: R3 as destination is a no-op; the constant generators give 0, 1, 2, -1, 4, 8.
TEST(Msp430Addressing, ConstantGenerators) {
  Rig T;
  T.code({0x4305, 0x4316, 0x4327, 0x4338, 0x4229, 0x423A, 0x4503}); // mov #0/#1/#2/#-1/#4/#8; mov r5, r3
  T.start();
  T.C.run(7);
  EXPECT_EQ(T.C.reg(5), 0u);
  EXPECT_EQ(T.C.reg(6), 1u);
  EXPECT_EQ(T.C.reg(7), 2u);
  EXPECT_EQ(T.C.reg(8), 0xFFFFu);
  EXPECT_EQ(T.C.reg(9), 4u);
  EXPECT_EQ(T.C.reg(10), 8u);
  EXPECT_EQ(T.C.reg(3), 0u);
}

// The F1611 datasheet's memory organisation: RAM 0x1100-0x38FF with 0x1100-0x18FF mirrored
// at 0x0200-0x09FF; flash and information memory ignore CPU writes and read their contents.
TEST(Msp430Memory, MirrorFlashAndInfo) {
  Rig T;
  T.code({0x40B2, 0xABCD, 0x0200}); // mov #0xABCD, &0x0200
  T.code({0x4292, 0x1000, 0x1102}); // mov &0x1000, &0x1102 (information memory)
  T.code({0x4382, 0x5000});         // mov #0, &0x5000 (flash)
  T.start();
  T.word(0x1000, 0x5AA5);
  T.word(0x5000, 0x1357);
  T.C.run(3);
  EXPECT_EQ(T.word(0x1100), 0xABCDu);
  EXPECT_EQ(T.word(0x1102), 0x5AA5u);
  EXPECT_EQ(T.word(0x5000), 0x1357u);
  EXPECT_EQ(T.C.ignoredWrites(), 1u);
  EXPECT_EQ(T.C.lastIgnoredWrite(), 0x5000u);
}

TEST(Msp430Decode, IllegalInstructionFaults) {
  Rig T;
  T.code({0x0000}); // MSP430X MOVA space: illegal on the F1611
  T.start();
  EXPECT_EQ(T.C.step(), StepKind::Faulted);
  EXPECT_NE(T.C.fault().find("illegal instruction 0x0000 at 0x4000"), std::string::npos);
  EXPECT_EQ(T.C.reg(PC), 0x4000u);
}

} // namespace
