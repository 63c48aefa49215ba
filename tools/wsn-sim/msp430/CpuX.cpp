// CpuX.cpp - the MSP430X (CPUX) instructions without an extension word: MOVA, CMPA, ADDA,
// SUBA (incl. BRA and RETA), RRCM/RRAM/RLAM/RRUM, PUSHM/POPM and CALLA (SLAU144 chapter 4,
// §4.5.2 and §4.6.3). The extension-word (X) instructions are in CpuXExtended.cpp.
//
// Cycle counts: SLAU144 chapter 4's tables for these instructions as far as they could be
// checked here; they are not yet held against a reference simulator (Debian's mspdebug 0.22
// has no MSP430X simulator), see spec/msp430.md.
#include "Cpu.h"

namespace wsn::msp430 {

namespace {
constexpr uint32_t Mask20 = 0xFFFFF, Msb20 = 0x80000;
}

int Cpu::addressInstruction(uint16_t Ins) {
  const unsigned Src = (Ins >> 8) & 15, Dst = Ins & 15, Mode = (Ins >> 4) & 15;
  const bool ToPc = Dst == PC;
  auto Word = [&] {
    uint16_t W = readWord(R[PC]);
    R[PC] = (R[PC] + 2) & AddrMask;
    return W;
  };
  auto SetReg20 = [&](unsigned N, uint32_t V) {
    if (N == CG2)
      return;
    R[N] = (N == PC || N == SP) ? (V & Mask20 & ~1u) : (V & Mask20);
  };
  // CMPA/ADDA/SUBA: 20-bit arithmetic, N = bit 19, C = carry out of bit 19 (§4.6.3 ADDA).
  auto Arith20 = [&](uint32_t S, uint32_t D, uint32_t CarryIn) {
    uint32_t T = S + D + CarryIn;
    uint32_t Sr = R[SR] & ~uint32_t(SR_C | SR_Z | SR_N | SR_V);
    if (!(T & Mask20))
      Sr |= SR_Z;
    if (T & Msb20)
      Sr |= SR_N;
    if (T > Mask20)
      Sr |= SR_C;
    if ((S ^ T) & (D ^ T) & Msb20)
      Sr |= SR_V;
    R[SR] = Sr;
    return T & Mask20;
  };
  switch (Mode) {
  case 0x0: { // MOVA @Rsrc,Rdst
    BusTime = Cycles + (ToPc ? 5 : 3);
    SetReg20(Dst, read20(R[Src]));
    return ToPc ? 5 : 3;
  }
  case 0x1: { // MOVA @Rsrc+,Rdst (RETA = MOVA @SP+,PC)
    BusTime = Cycles + (ToPc ? 5 : 3);
    uint32_t V = read20(R[Src]);
    R[Src] = (R[Src] + 4) & Mask20;
    SetReg20(Dst, V);
    return ToPc ? 5 : 3;
  }
  case 0x2: { // MOVA &abs20,Rdst
    BusTime = Cycles + (ToPc ? 6 : 4);
    uint32_t A = uint32_t(Src) << 16 | Word();
    SetReg20(Dst, read20(A));
    return ToPc ? 6 : 4;
  }
  case 0x3: { // MOVA z16(Rsrc),Rdst
    BusTime = Cycles + (ToPc ? 6 : 4);
    uint32_t A = (R[Src] + uint32_t(int32_t(int16_t(Word())))) & Mask20;
    SetReg20(Dst, read20(A));
    return ToPc ? 6 : 4;
  }
  case 0x6: { // MOVA Rsrc,&abs20
    BusTime = Cycles + 4;
    uint32_t A = uint32_t(Dst) << 16 | Word();
    write20(A, R[Src]);
    return 4;
  }
  case 0x7: { // MOVA Rsrc,z16(Rdst)
    BusTime = Cycles + 4;
    uint32_t A = (R[Dst] + uint32_t(int32_t(int16_t(Word())))) & Mask20;
    write20(A, R[Src]);
    return 4;
  }
  case 0x8: // MOVA #imm20,Rdst
    SetReg20(Dst, uint32_t(Src) << 16 | Word());
    return ToPc ? 3 : 2;
  case 0x9: // CMPA #imm20,Rdst
    Arith20(~(uint32_t(Src) << 16 | Word()) & Mask20, R[Dst], 1);
    return 3;
  case 0xA: { // ADDA #imm20,Rdst
    uint32_t Imm = uint32_t(Src) << 16 | Word();
    SetReg20(Dst, Arith20(Imm, R[Dst], 0));
    return 3;
  }
  case 0xB: { // SUBA #imm20,Rdst
    uint32_t Imm = uint32_t(Src) << 16 | Word();
    SetReg20(Dst, Arith20(~Imm & Mask20, R[Dst], 1));
    return 3;
  }
  case 0xC: // MOVA Rsrc,Rdst (BRA Rsrc)
    SetReg20(Dst, R[Src]);
    return ToPc ? 3 : 1;
  case 0xD: // CMPA Rsrc,Rdst
    Arith20(~R[Src] & Mask20, R[Dst], 1);
    return ToPc ? 3 : 1;
  case 0xE: // ADDA Rsrc,Rdst
    SetReg20(Dst, Arith20(R[Src], R[Dst], 0));
    return ToPc ? 3 : 1;
  case 0xF: // SUBA Rsrc,Rdst
    SetReg20(Dst, Arith20(~R[Src] & Mask20, R[Dst], 1));
    return ToPc ? 3 : 1;
  default:
    return illegal(Ins); // 0x4/0x5 are RxxM (dispatched before), others reserved
  }
}

int Cpu::rotateMultiple(uint16_t Ins) {
  // RRCM/RRAM/RLAM/RRUM #n,Rdst (§4.6.3): n = 1..4 positions, .A on 20 bits or .W on 16 bits
  // (the word form clears bits 19:16); n cycles.
  const unsigned N = ((Ins >> 10) & 3) + 1, Op = (Ins >> 8) & 3, Dst = Ins & 15;
  const bool Word = Ins & 0x10;
  const uint32_t Mask = Word ? 0xFFFF : Mask20, Msb = Word ? 0x8000 : Msb20;
  uint32_t V = R[Dst] & Mask, C = R[SR] & SR_C, Ovf = 0;
  for (unsigned I = 0; I < N; ++I) {
    uint32_t Out;
    switch (Op) {
    case 0: // RRCM: C -> MSB, LSB -> C
      Out = V & 1;
      V = (V >> 1) | (C ? Msb : 0);
      break;
    case 1: // RRAM: MSB kept
      Out = V & 1;
      V = (V >> 1) | (V & Msb);
      break;
    case 2: // RLAM: MSB -> C; V is undefined in the guide, set as RLA's (sign change)
      Out = (V & Msb) ? 1 : 0;
      Ovf = ((V << 1) ^ V) & Msb;
      V = (V << 1) & Mask;
      break;
    default: // RRUM: 0 -> MSB
      Out = V & 1;
      V >>= 1;
      break;
    }
    C = Out;
  }
  if (Dst != CG2)
    R[Dst] = V;
  uint32_t Sr = R[SR] & ~uint32_t(SR_C | SR_Z | SR_N | SR_V);
  if (C)
    Sr |= SR_C;
  if (!V)
    Sr |= SR_Z;
  if (V & Msb)
    Sr |= SR_N;
  if (Ovf)
    Sr |= SR_V;
  R[SR] = Sr;
  return int(N);
}

int Cpu::pushPopMultiple(uint16_t Ins) {
  // PUSHM.A 0x14xx, PUSHM.W 0x15xx, POPM.A 0x16xx, POPM.W 0x17xx; n-1 in bits 7:4.
  // PUSHM #n,Rdst pushes Rdst, Rdst-1, ..., Rdst-n+1; POPM's register field is the lowest
  // register, filled first. Cycles: 2 + n (.W), 2 + 2n (.A).
  const bool Pop = Ins & 0x0200, Word = Ins & 0x0100;
  const unsigned N = ((Ins >> 4) & 15) + 1;
  unsigned Reg = Ins & 15;
  const int Cost = int(2 + (Word ? N : 2 * N));
  BusTime = Cycles + uint64_t(Cost);
  for (unsigned I = 0; I < N; ++I) {
    if (!Pop) {
      R[SP] = (R[SP] - (Word ? 2 : 4)) & Mask20;
      if (Word)
        writeWord(R[SP], uint16_t(R[Reg & 15]));
      else
        write20(R[SP], R[Reg & 15]);
      Reg = (Reg - 1) & 15;
    } else {
      uint32_t V = Word ? readWord(R[SP]) : read20(R[SP]);
      R[SP] = (R[SP] + (Word ? 2 : 4)) & Mask20;
      unsigned D = Reg & 15;
      if (D != CG2)
        R[D] = (D == PC || D == SP) ? (V & ~1u) : V;
      Reg = (Reg + 1) & 15;
    }
  }
  return Cost;
}

int Cpu::callA(uint16_t Ins) {
  // CALLA (§4.6.3): SP - 2 -> SP, PC[19:16] -> @SP; SP - 2 -> SP, PC[15:0] -> @SP;
  // the 20-bit target -> PC.
  const unsigned Group = (Ins >> 6) & 3, As = (Ins >> 4) & 3, Reg = Ins & 15;
  uint32_t Target;
  int Cost;
  if (Group == 1) { // CALLA Rdst, x(Rdst), @Rdst, @Rdst+
    Cost = As >= 2 ? 6 : 5;
    BusTime = Cycles + uint64_t(Cost);
    switch (As) {
    case 0:
      Target = R[Reg];
      break;
    case 1: {
      uint16_t X = readWord(R[PC]);
      R[PC] = (R[PC] + 2) & AddrMask;
      Target = read20((R[Reg] + uint32_t(int32_t(int16_t(X)))) & Mask20);
      break;
    }
    case 2:
      Target = read20(R[Reg]);
      break;
    default:
      Target = read20(R[Reg]);
      R[Reg] = (R[Reg] + 4) & Mask20;
      break;
    }
  } else if (Group == 2 && As != 2) { // CALLA &abs20 (0), EDE (1), #imm20 (3)
    uint32_t Hi = uint32_t(Reg) << 16;
    uint32_t WordAt = R[PC];
    uint16_t Lo = readWord(R[PC]);
    R[PC] = (R[PC] + 2) & AddrMask;
    Cost = As == 3 ? 5 : 7;
    BusTime = Cycles + uint64_t(Cost);
    if (As == 0)
      Target = read20(Hi | Lo);
    else if (As == 1)
      Target = read20((WordAt + (Hi | Lo)) & Mask20); // symbolic: 20-bit offset from the word
    else
      Target = Hi | Lo;
  } else {
    return illegal(Ins);
  }
  R[SP] = (R[SP] - 2) & Mask20;
  writeWord(R[SP], uint16_t((R[PC] >> 16) & 15));
  R[SP] = (R[SP] - 2) & Mask20;
  writeWord(R[SP], uint16_t(R[PC]));
  R[PC] = Target & Mask20 & ~1u;
  return Cost;
}

} // namespace wsn::msp430
