// CpuXExtended.cpp - MSP430X extended (X) instructions: an extension word (0x1800-0x1FFF)
// followed by a format I or format II instruction (SLAU144J §4.5.2).
//
// The extension word widens the data (A/L with B/W: .B 8, .W 16, .A 20 bits), gives indexes,
// absolute addresses and immediates their bits 19:16, and in register mode carries a
// repetition count (n, or Rn's 4 LSBs) and ZC (the carry used as 0).
//
// Cycles: the MSP430 instruction's count (Tables 3-15/3-16) plus one for the extension word,
// plus one per extra word of a 20-bit memory operand read or written; a repeated register
// instruction costs one cycle per repetition plus one. This is the rule of §4.5.2's text; it is
// not yet checked against the chapter 4 tables entry by entry (see spec/msp430.md).
#include "Cpu.h"

#include "absl/strings/str_format.h"

namespace wsn::msp430 {

namespace {
constexpr uint8_t FormatICost[5][2] = {{1, 4}, {2, 5}, {2, 5}, {2, 5}, {3, 6}}; // [src][dst mem]
constexpr uint8_t ShiftCost[5] = {1, 3, 3, 3, 4};
constexpr uint8_t PushCost[5] = {3, 4, 5, 4, 5};
} // namespace

int Cpu::extended(uint16_t Ext) {
  const uint32_t ExtPc = LastPc;
  const uint16_t Ins = fetchWord();
  const bool IsFormatI = Ins >= 0x4000;
  const bool IsFormatII = Ins >= 0x1000 && Ins < 0x1200; // RRC, SWPB, RRA, SXT
  const bool IsPush = (Ins & 0xFF80) == 0x1200;
  if (!IsFormatI && !IsFormatII && !IsPush) {
    Fault = absl::StrFormat("extension word 0x%04x at 0x%05x is followed by 0x%04x, which has "
                            "no extended form",
                            Ext, ExtPc, Ins);
    R[PC] = ExtPc;
    return -1;
  }
  const unsigned Op2 = (Ins >> 7) & 7; // format II operation
  const bool Bw = Ins & 0x40, Al = Ext & 0x40;
  unsigned Width;
  if (IsFormatII && (Op2 == 1 || Op2 == 3)) // SWPBX/SXTX: B/W must be 0, A/L picks .W/.A
    Width = Bw ? 0 : (Al ? 16 : 20);
  else
    Width = Al ? (Bw ? 8 : 16) : (Bw ? 20 : 0);
  if (!Width) {
    Fault = absl::StrFormat("extension word 0x%04x at 0x%05x: reserved data length (A/L=%d, "
                            "B/W=%d)",
                            Ext, ExtPc, Al, Bw);
    R[PC] = ExtPc;
    return -1;
  }
  const uint32_t Mask = (1u << Width) - 1, Msb = 1u << (Width - 1);
  const unsigned SrcHi = (Ext >> 7) & 15, DstHi = Ext & 15;
  const unsigned Sreg = IsFormatI ? (Ins >> 8) & 15 : Ins & 15;
  const unsigned As = (Ins >> 4) & 3, Dreg = Ins & 15;
  const unsigned Ad = IsFormatI ? (Ins >> 7) & 1 : (As ? 1 : 0);
  const bool RegisterMode = As == 0 && (!IsFormatI || Ad == 0);

  // Repetition and ZC exist in register mode only.
  unsigned Repeat = 1;
  bool ZeroCarry = false;
  if (RegisterMode) {
    Repeat = ((Ext & 0x80) ? (R[Ext & 15] & 15) : (Ext & 15)) + 1;
    ZeroCarry = Ext & 0x100;
  }

  unsigned ExtraWords = 0; // 20-bit memory accesses: one more bus word each
  auto ReadMem = [&](uint32_t A) -> uint32_t {
    if (Width == 8)
      return readByte(A);
    if (Width == 16)
      return readWord(A);
    ++ExtraWords;
    return read20(A);
  };
  auto WriteMem = [&](uint32_t A, uint32_t V) {
    if (Width == 8)
      writeByte(A, uint8_t(V));
    else if (Width == 16)
      writeWord(A, uint16_t(V));
    else {
      ++ExtraWords;
      write20(A, V);
    }
  };
  auto Step = [&](unsigned Reg) {
    // @Rn+ increments: 1 for bytes (not SP), 2 for words, 4 for 20-bit data; PC moves by 2
    // over an immediate's low word.
    if (Reg == PC)
      return 2u;
    if (Width == 20)
      return 4u;
    return (Width == 8 && Reg != SP) ? 1u : 2u;
  };
  // Source (format I) or the single operand (format II): value and, in memory, the address.
  bool InMemory = false;
  uint32_t SrcAddr = 0, Src;
  const unsigned OperandHi = IsFormatI ? SrcHi : DstHi;
  unsigned Class; // 0 Rn, 1 @Rn, 2 @Rn+, 3 #N, 4 indexed (cycle-table rows)
  if (Sreg == CG2) {
    static constexpr uint32_t Cg2[4] = {0, 1, 2, 0xFFFFF};
    Src = Cg2[As] & Mask;
    Class = 0;
  } else if (Sreg == SR && As >= 2) {
    Src = As == 2 ? 4 : 8;
    Class = 0;
  } else if (As == 0) {
    Src = R[Sreg] & Mask;
    Class = 0;
  } else if (As == 3 && Sreg == PC) { // #imm20: bits 19:16 from the extension word
    Src = (uint32_t(OperandHi) << 16 | fetchWord()) & Mask;
    Class = 3;
  } else {
    if (As == 1) {
      uint32_t WordAt = R[PC];
      uint32_t X = uint32_t(OperandHi) << 16 | fetchWord();
      if (Sreg == SR)
        SrcAddr = X; // &abs20
      else if (Sreg == PC)
        SrcAddr = (WordAt + X) & 0xFFFFF; // symbolic: relative to the index word
      else
        SrcAddr = (R[Sreg] + X) & 0xFFFFF;
      Class = 4;
    } else {
      SrcAddr = R[Sreg];
      if (As == 3)
        R[Sreg] = (R[Sreg] + Step(Sreg)) & AddrMask;
      Class = As == 2 ? 1 : 2;
    }
    InMemory = true;
    Src = ReadMem(SrcAddr);
  }

  uint32_t Sr = R[SR];
  auto Flags = [&](uint32_t Res, bool C, bool V) {
    Sr &= ~uint32_t(SR_C | SR_Z | SR_N | SR_V);
    if (!(Res & Mask))
      Sr |= SR_Z;
    if (Res & Msb)
      Sr |= SR_N;
    if (C)
      Sr |= SR_C;
    if (V)
      Sr |= SR_V;
  };
  auto Carry = [&] { return (!ZeroCarry && (Sr & SR_C)) ? 1u : 0u; };
  int Cost;

  if (!IsFormatI) {
    // RRCX, RRAX, SWPBX, SXTX, PUSHX on the operand just read.
    if (IsPush) {
      R[SP] = (R[SP] - (Width == 20 ? 4 : 2)) & AddrMask;
      if (Width == 20) {
        write20(R[SP], Src);
        ++ExtraWords;
      } else if (Width == 8) {
        writeByte(R[SP], uint8_t(Src));
      } else {
        writeWord(R[SP], uint16_t(Src));
      }
      Cost = PushCost[Class] + 1 + int(ExtraWords);
      return Cost;
    }
    uint32_t V = Src, Res = V;
    for (unsigned I = 0; I < Repeat; ++I) {
      switch (Op2) {
      case 0: { // RRCX (RRUX with ZC)
        bool Vf = Mcu.RrcSetsOverflow && !(V & Msb) && Carry();
        Res = (V >> 1) | (Carry() ? Msb : 0);
        Flags(Res, V & 1, Vf);
        break;
      }
      case 1: // SWPBX: bytes 15:8 and 7:0 swapped; .A clears bits 19:16
        Res = ((V & 0xFF) << 8) | ((V >> 8) & 0xFF);
        break;
      case 2: // RRAX
        Res = (V >> 1) | (V & Msb);
        Flags(Res, V & 1, false);
        break;
      default: // SXTX: bit 7 into bits 8..MSB
        Res = (V & 0x80) ? ((V | ~0xFFu) & Mask) : (V & 0xFF);
        Flags(Res, (Res & Mask) != 0, false);
        break;
      }
      R[SR] = Sr;
      V = Res & Mask;
    }
    if (InMemory)
      WriteMem(SrcAddr, V);
    else if (Sreg != CG2 && !(Sreg == SR && As >= 2))
      R[Sreg] = (Sreg == PC || Sreg == SP) ? (V & ~1u) : V;
    Cost = RegisterMode ? int(Repeat) + 1 : ShiftCost[Class] + 1 + int(ExtraWords);
    return Cost;
  }

  // Format I destination.
  const unsigned Op = Ins >> 12;
  uint32_t DstAddr = 0, Dst = 0;
  if (Ad) {
    uint32_t WordAt = R[PC];
    uint32_t X = uint32_t(DstHi) << 16 | fetchWord();
    if (Dreg == SR)
      DstAddr = X;
    else if (Dreg == PC)
      DstAddr = (WordAt + X) & 0xFFFFF;
    else
      DstAddr = (R[Dreg] + X) & 0xFFFFF;
    if (Op != 4)
      Dst = ReadMem(DstAddr);
  } else {
    Dst = Dreg == CG2 ? 0 : (R[Dreg] & Mask);
  }

  uint32_t Res = Dst;
  bool Store = Op != 9 && Op != 11; // CMP, BIT
  for (unsigned I = 0; I < Repeat; ++I) {
    auto Arith = [&](uint32_t S, uint32_t D, uint32_t Cin) {
      uint32_t T = S + D + Cin;
      Flags(T, T > Mask, ((S ^ T) & (D ^ T) & Msb) != 0);
      return T & Mask;
    };
    switch (Op) {
    case 4: Res = Src; break;
    case 5: Res = Arith(Src, Dst, 0); break;
    case 6: Res = Arith(Src, Dst, Carry()); break;
    case 7: Res = Arith(~Src & Mask, Dst, Carry()); break;
    case 8:
    case 9: Res = Arith(~Src & Mask, Dst, 1); break;
    case 10: { // DADDX
      uint32_t C = Carry();
      Res = 0;
      for (unsigned Nib = 0; Nib < Width / 4; ++Nib) {
        uint32_t D = ((Src >> (4 * Nib)) & 15) + ((Dst >> (4 * Nib)) & 15) + C;
        C = D > 9;
        if (C)
          D += 6;
        Res |= (D & 15) << (4 * Nib);
      }
      Flags(Res, C, false);
      break;
    }
    case 11:
    case 15:
      Res = Src & Dst;
      Flags(Res, (Res & Mask) != 0, false);
      break;
    case 12: Res = Dst & ~Src & Mask; break;
    case 13: Res = (Dst | Src) & Mask; break;
    default: // 14: XORX
      Res = (Dst ^ Src) & Mask;
      Flags(Res, Res != 0, (Src & Dst & Msb) != 0);
      break;
    }
    R[SR] = Sr;
    Dst = Res & Mask;
    if (Sreg == Dreg && RegisterMode)
      Src = Dst; // a repeated RLAX Rn (ADDX Rn,Rn) doubles each time
  }
  if (Store) {
    if (Ad)
      WriteMem(DstAddr, Res);
    else if (Dreg != CG2)
      R[Dreg] = (Dreg == PC || Dreg == SP) ? (Res & ~1u) : (Res & Mask);
  }
  if (RegisterMode)
    return int(Repeat) + 1 + (Dreg == PC ? 1 : 0);
  return FormatICost[Class][Ad] + 1 + int(ExtraWords);
}

} // namespace wsn::msp430
