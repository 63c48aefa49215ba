// Sfr.cpp - IE1/IFG1/ME1 and friends, and the NMI request they form (SLAU144 §2.2.2).
#include "Sfr.h"

#include "Cpu.h"

namespace wsn::msp430 {

SpecialFunctionRegisters::SpecialFunctionRegisters(Cpu &Core) : C(Core) {
  C.irq().setAcknowledge(C.mcu().nmiSlot(), &SpecialFunctionRegisters::acknowledgeNmi, this);
}

uint16_t SpecialFunctionRegisters::read(uint32_t Addr, bool IsByte) {
  unsigned I = Addr & 7;
  uint16_t Lo = Regs[I], Hi = I + 1 < 8 ? Regs[I + 1] : 0;
  return IsByte ? Lo : uint16_t(Lo | Hi << 8);
}

void SpecialFunctionRegisters::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  unsigned I = Addr & 7;
  Regs[I] = uint8_t(Value);
  if (!IsByte && I + 1 < 8)
    Regs[I + 1] = uint8_t(Value >> 8);
  changed();
}

void SpecialFunctionRegisters::reset() {
  uint8_t Keep = Regs[IFG1] & WDTIFG;
  for (uint8_t &R : Regs)
    R = 0;
  Regs[IFG1] = Keep | OFIFG;
  AccessViolation = false;
  changed();
}

void SpecialFunctionRegisters::changed() {
  // The (non)-maskable NMI: each source is gated by its own enable, not by GIE.
  bool Nmi = (Regs[IFG1] & Regs[IE1] & (OFIFG | NMIIFG)) || (AccessViolation && (Regs[IE1] & ACCVIE));
  C.irq().set(C.mcu().nmiSlot(), Nmi);
  for (auto &Fn : Listeners)
    Fn();
}

void SpecialFunctionRegisters::acknowledgeNmi(void *Ctx, unsigned) {
  // SLAU144 §2.2.2: accepting an NMI resets NMIIE, OFIE and ACCVIE; the flags stay for the
  // handler to inspect and clear.
  auto *S = static_cast<SpecialFunctionRegisters *>(Ctx);
  S->Regs[IE1] &= uint8_t(~(NMIIE | OFIE | ACCVIE));
  S->changed();
}

} // namespace wsn::msp430
