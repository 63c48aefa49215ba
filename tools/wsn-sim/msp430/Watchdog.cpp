// Watchdog.cpp - SLAU144 §10.2 "Watchdog Timer+ Operation" / SLAU049 §10.2.
#include "Watchdog.h"

#include "Cpu.h"

namespace wsn::msp430 {

namespace {
constexpr uint8_t WDTHOLD = 0x80, WDTTMSEL = 0x10, WDTCNTCL = 0x08;
}

Watchdog::Watchdog(Cpu &Core, SpecialFunctionRegisters &S, const ClockSource &Sm,
                   const ClockSource &A, unsigned VectorSlot)
    : C(Core), Sfr(S), Smclk(Sm), Aclk(A), Slot(VectorSlot) {
  C.irq().setAcknowledge(Slot, &Watchdog::acknowledge, this);
  Sfr.onChange([this] { updateLine(); });
}

uint32_t Watchdog::interval() const {
  static constexpr uint32_t Taps[4] = {32768, 8192, 512, 64}; // WDTISx (§10.3 WDTCTL)
  return Taps[Ctl & 3];
}

uint32_t Watchdog::counter() const {
  if (Ctl & WDTHOLD)
    return BaseCount;
  return BaseCount + uint32_t(clock().ticksAt(Now) - BaseTick);
}

void Watchdog::restart(uint32_t Count) {
  BaseCount = Count;
  BaseTick = clock().ticksAt(Now);
}

void Watchdog::reset() {
  Now = C.cycles();
  Ctl = 0x00;
  restart(0);
  updateLine();
}

uint16_t Watchdog::read(uint32_t Addr, bool IsByte) {
  // WDTCTL reads 069h in the upper byte; WDTCNTCL always reads 0.
  uint16_t W = uint16_t(0x6900 | (Ctl & ~WDTCNTCL));
  if (IsByte)
    return (Addr & 1) ? 0x69 : (W & 0xFF);
  return W;
}

void Watchdog::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  (void)Addr;
  if (IsByte || (Value >> 8) != 0x5A) {
    // §10.2.3: a write with an incorrect password (a byte write cannot carry it) causes a PUC.
    Sfr.set(IFG1, WDTIFG);
    C.requestPuc();
    return;
  }
  uint32_t Count = counter();
  uint8_t Old = Ctl;
  Ctl = uint8_t(Value);
  if (Value & WDTCNTCL)
    Count = 0;
  else if ((Old & 0x04) != (Ctl & 0x04))
    Count = Count % interval(); // a clock switch keeps the count on the new clock
  BaseCount = Count;
  BaseTick = clock().ticksAt(Now);
  updateLine();
}

void Watchdog::advanceTo(uint64_t Cycle) {
  Now = Cycle;
  if (Ctl & WDTHOLD)
    return;
  uint32_t Iv = interval();
  while (counter() >= Iv) {
    // The selected tap went high at tick BaseTick + (Iv - BaseCount); the counter runs on
    // from 0 there.
    BaseTick += Iv - BaseCount;
    BaseCount = 0;
    Sfr.set(IFG1, WDTIFG);
    if (!(Ctl & WDTTMSEL)) {
      C.requestPuc(); // watchdog mode: PUC
      return;
    }
    // interval mode: only the flag, and an interrupt when WDTIE is set (updateLine)
  }
}

uint64_t Watchdog::nextEvent() const {
  if (Ctl & WDTHOLD)
    return kNever;
  uint32_t Count = BaseCount;
  return clock().cycleOfTick(BaseTick + (interval() - Count));
}

void Watchdog::updateLine() {
  bool Req = (Ctl & WDTTMSEL) && (Sfr.get(IFG1) & WDTIFG) && (Sfr.get(IE1) & WDTIE);
  C.irq().set(Slot, Req);
}

void Watchdog::acknowledge(void *Ctx, unsigned) {
  // Interval mode: WDTIFG is a single-source flag, reset when the interrupt is serviced.
  auto *W = static_cast<Watchdog *>(Ctx);
  W->Sfr.clear(IFG1, WDTIFG);
}

} // namespace wsn::msp430
