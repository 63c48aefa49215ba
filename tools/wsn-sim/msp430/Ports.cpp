// Ports.cpp - SLAU049 §9.2 "Digital I/O Operation".
#include "Ports.h"

#include "Cpu.h"

namespace wsn::msp430 {

namespace {
// Register offsets inside a port's block: P1/P2 IN, OUT, DIR, IFG, IES, IE, SEL; P3-P6 IN,
// OUT, DIR, SEL.
enum Reg : unsigned { In, Out, Dir, Ifg, Ies, Ie, Sel };
} // namespace

Ports::Ports(Cpu &Core) : C(Core) {
  bool F2 = C.mcu().VectorBase == 0xFFC0;
  Slot1 = ((F2 ? 0xFFE4 : 0xFFE8) - C.mcu().VectorBase) / 2;
  Slot2 = ((F2 ? 0xFFE6 : 0xFFE2) - C.mcu().VectorBase) / 2;
}

void Ports::map() {
  C.mapPeripheral(0x18, 0x1F, this);
  C.mapPeripheral(0x20, 0x26, this);
  C.mapPeripheral(0x28, 0x2E, this);
  C.mapPeripheral(0x30, 0x37, this);
}

bool Ports::decode(uint32_t A, unsigned &Index, unsigned &R) const {
  static constexpr unsigned Small[4] = {In, Out, Dir, Sel};
  if (A >= 0x20 && A <= 0x26) {
    Index = 0;
    R = A - 0x20;
  } else if (A >= 0x28 && A <= 0x2E) {
    Index = 1;
    R = A - 0x28;
  } else if (A >= 0x18 && A <= 0x1F) {
    Index = 2 + (A - 0x18) / 4;
    R = Small[(A - 0x18) % 4];
  } else if (A >= 0x30 && A <= 0x37) {
    Index = 4 + (A - 0x30) / 4;
    R = Small[(A - 0x30) % 4];
  } else {
    return false;
  }
  return true;
}

void Ports::reset() {
  for (Port &X : P)
    X.Dir = X.Sel = X.Ifg = X.Ie = 0;
  updateLines();
}

uint16_t Ports::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint8_t {
    unsigned I, R;
    if (!decode(A, I, R))
      return 0;
    const Port &X = P[I];
    switch (R) {
    case In: return level(X);
    case Out: return X.Out;
    case Dir: return X.Dir;
    case Ifg: return X.Ifg;
    case Ies: return X.Ies;
    case Ie: return X.Ie;
    default: return X.Sel;
    }
  };
  if (IsByte)
    return One(Addr);
  return uint16_t(One(Addr) | One(Addr + 1) << 8);
}

void Ports::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  auto One = [&](uint32_t A, uint8_t V) {
    unsigned I, R;
    if (!decode(A, I, R))
      return;
    Port &X = P[I];
    uint8_t Before = level(X);
    switch (R) {
    case In: return; // read-only
    case Out: X.Out = V; break;
    case Dir: X.Dir = V; break;
    case Ifg: X.Ifg = V; break; // software can set flags (§9.2.6)
    case Ies: X.Ies = V; break; // an IES change alone sets no flag here (the guide: "may")
    case Ie: X.Ie = V; break;
    default: X.Sel = V; break;
    }
    edges(I, Before, level(X));
    if (R == Out || R == Dir)
      for (auto &Fn : Watchers)
        Fn(I + 1, X.Out, X.Dir);
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
  updateLines();
}

void Ports::setInput(unsigned PortNo, unsigned Bit, bool Level) {
  Port &X = P[PortNo - 1];
  uint8_t Before = level(X);
  if (Level)
    X.External |= uint8_t(1u << Bit);
  else
    X.External &= uint8_t(~(1u << Bit));
  edges(PortNo - 1, Before, level(X));
  updateLines();
}

void Ports::edges(unsigned Index, uint8_t Before, uint8_t After) {
  if (Index > 1)
    return; // only P1 and P2 have interrupt flags
  // §9.2.6: PxIESx = 0 sets PxIFGx on a low-to-high transition, 1 on high-to-low.
  uint8_t Rising = uint8_t(~Before & After), Falling = uint8_t(Before & ~After);
  Port &X = P[Index];
  X.Ifg |= uint8_t((Rising & ~X.Ies) | (Falling & X.Ies));
}

void Ports::updateLines() {
  // Each PxIFG bit with its PxIE bit requests the port's vector; the flags are not reset by
  // the interrupt (software resets them).
  C.irq().set(Slot1, P[0].Ifg & P[0].Ie);
  C.irq().set(Slot2, P[1].Ifg & P[1].Ie);
}

} // namespace wsn::msp430
