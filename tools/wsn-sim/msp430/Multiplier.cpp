// Multiplier.cpp - SLAU144 §7.2 "Hardware Multiplier Operation".
#include "Multiplier.h"

namespace wsn::msp430 {

uint16_t Multiplier::read(uint32_t Addr, bool IsByte) {
  uint16_t W;
  switch (Addr & ~1u) {
  case 0x130: case 0x132: case 0x134: case 0x136: W = Op1; break;
  case 0x138: W = Op2; break;
  case 0x13A: W = ResLo; break;
  case 0x13C: W = ResHi; break;
  default: W = SumExt; break;
  }
  if (IsByte)
    return (Addr & 1) ? W >> 8 : W & 0xFF;
  return W;
}

void Multiplier::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  // §7.2.3 "Operand registers": byte writes clear the upper byte, with no sign extension.
  uint16_t V = IsByte ? (Value & 0xFF) : Value;
  switch (Addr & ~1u) {
  case 0x130: case 0x132: case 0x134: case 0x136:
    Op1 = V;
    Mode = Addr & ~1u;
    return;
  case 0x13A: ResLo = V; return; // RESLO/RESHI are writable (preload for MAC)
  case 0x13C: ResHi = V; return;
  case 0x13E: return;            // SUMEXT is read-only
  default: break;                // OP2: start the operation
  }
  Op2 = V;
  bool Signed = Mode == 0x132 || Mode == 0x136;
  bool Accumulate = Mode == 0x134 || Mode == 0x136;
  uint32_t Product = Signed ? uint32_t(int32_t(int16_t(Op1)) * int32_t(int16_t(Op2)))
                            : uint32_t(Op1) * uint32_t(Op2);
  uint32_t Old = uint32_t(ResHi) << 16 | ResLo;
  uint64_t Sum = Accumulate ? uint64_t(Old) + Product : Product;
  uint32_t Res = uint32_t(Sum);
  ResLo = uint16_t(Res);
  ResHi = uint16_t(Res >> 16);
  // §7.2.2 Table 7-2 "SUMEXT": MPY 0000h; MPYS and MACS: FFFFh if the result is negative,
  // else 0000h; MAC: 0001h on a carry out of the 32-bit accumulation, else 0000h.
  if (Signed)
    SumExt = (Res & 0x80000000u) ? 0xFFFF : 0;
  else if (Accumulate)
    SumExt = (Sum >> 32) ? 1 : 0;
  else
    SumExt = 0;
}

} // namespace wsn::msp430
