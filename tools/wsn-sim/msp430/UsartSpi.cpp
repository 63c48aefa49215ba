// UsartSpi.cpp - SLAU049 §14.2 "USART Operation: SPI Mode" (master).
#include "UsartSpi.h"

#include "Cpu.h"

#include <algorithm>

namespace wsn::msp430 {

namespace {
constexpr uint8_t SWRST = 0x01, MM = 0x02, SYNC = 0x04; // UxCTL
constexpr uint8_t TXEPT = 0x01;                           // UxTCTL
enum : unsigned { CTL, TCTL, RCTL, MCTL, BR0, BR1, RXBUF, TXBUF };
} // namespace

UsartSpi::UsartSpi(Cpu &Core, SpecialFunctionRegisters &S, unsigned U, const ClockSource &A,
                   const ClockSource &Sm)
    : C(Core), Sfr(S), Unit(U), Aclk(A), Smclk(Sm) {
  uint32_t VB = C.mcu().VectorBase;
  RxSlot = ((U == 0 ? 0xFFF2 : 0xFFE6) - VB) / 2;
  TxSlot = ((U == 0 ? 0xFFF0 : 0xFFE4) - VB) / 2;
  Sfr.onChange([this] { updateLines(); });
  // §14.2.6 (SPI interrupts): UTXIFGx and URXIFGx are reset when their interrupt is served.
  C.irq().setAcknowledge(RxSlot, [](void *Ctx, unsigned) {
    auto *U = static_cast<UsartSpi *>(Ctx);
    U->Sfr.clear(U->flagReg(), U->rxFlag());
  }, this);
  C.irq().setAcknowledge(TxSlot, [](void *Ctx, unsigned) {
    auto *U = static_cast<UsartSpi *>(Ctx);
    U->Sfr.clear(U->flagReg(), U->txFlag());
  }, this);
}

void UsartSpi::map() { C.mapPeripheral(base(), base() + 7, this); }

void UsartSpi::reset() {
  // PUC: SWRST set, TXEPT set; UTXIFGx set and URXIFGx clear (§14.2.1: with SWRST set the
  // transmitter is ready).
  Now = C.cycles();
  Ctl = SWRST;
  Tctl = TXEPT;
  Rctl = Mctl = Br0 = Br1 = 0;
  TxFull = Busy = false;
  DoneAt = kNever;
  Sfr.set(flagReg(), txFlag());
  Sfr.clear(flagReg(), rxFlag());
}

const ClockSource *UsartSpi::brclk() const {
  unsigned Ssel = (Tctl >> 4) & 3; // 00 UCLKI (external), 01 ACLK, 10/11 SMCLK
  return Ssel == 1 ? &Aclk : Ssel >= 2 ? &Smclk : nullptr;
}

void UsartSpi::startTransfer() {
  const ClockSource *Clk = brclk();
  unsigned Br = std::max(2u, unsigned(Br0 | Br1 << 8)); // §14.3: UxBR must be >= 2 in SPI mode
  if (!Clk || !(Ctl & MM))
    return; // no bit clock here (external UCLK or slave mode): the byte waits
  Shift = TxBuf;
  TxFull = false;
  Busy = true;
  Tctl &= ~TXEPT;
  Sfr.set(flagReg(), txFlag()); // UxTXBUF moved to the shift register: ready for the next byte
  DoneAt = Clk->cycleOfTick(Clk->ticksAt(Now) + 8ull * Br);
  C.eventsChanged();
}

void UsartSpi::advanceTo(uint64_t Cycle) {
  Now = std::max(Now, Cycle);
  while (Busy && Now >= DoneAt) {
    uint8_t In = Device ? Device(Shift) : 0xFF; // an idle MISO line reads 1s
    RxBuf = In;
    Sfr.set(flagReg(), rxFlag());
    Busy = false;
    uint64_t End = DoneAt;
    DoneAt = kNever;
    if (TxFull) {
      uint64_t Keep = Now;
      Now = End; // the next byte starts where this one ended
      startTransfer();
      Now = Keep;
    } else {
      Tctl |= TXEPT;
    }
  }
}

uint16_t UsartSpi::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint8_t {
    switch (A - base()) {
    case CTL: return Ctl;
    case TCTL: return Tctl;
    case RCTL: return Rctl;
    case MCTL: return Mctl;
    case BR0: return Br0;
    case BR1: return Br1;
    case RXBUF:
      Sfr.clear(flagReg(), rxFlag()); // reading UxRXBUF resets URXIFGx
      return RxBuf;
    default: return TxBuf;
    }
  };
  return IsByte ? One(Addr) : uint16_t(One(Addr) | One(Addr + 1) << 8);
}

void UsartSpi::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  auto One = [&](uint32_t A, uint8_t V) {
    switch (A - base()) {
    case CTL:
      Ctl = V;
      if (V & SWRST) { // §14.2.1: SWRST resets the flags and stops a transfer
        Busy = TxFull = false;
        DoneAt = kNever;
        Tctl |= TXEPT;
        Sfr.set(flagReg(), txFlag());
        Sfr.clear(flagReg(), rxFlag());
      }
      break;
    case TCTL: Tctl = uint8_t((V & ~TXEPT) | (Tctl & TXEPT)); break;
    case RCTL: Rctl = V; break;
    case MCTL: Mctl = V; break;
    case BR0: Br0 = V; break;
    case BR1: Br1 = V; break;
    case RXBUF: break; // read-only
    default:
      TxBuf = V;
      if ((Ctl & SWRST) || !(Ctl & SYNC) || !(Sfr.get(moduleReg()) & moduleBit()))
        break; // only an enabled SPI module transmits
      TxFull = true;
      Sfr.clear(flagReg(), txFlag()); // writing UxTXBUF resets UTXIFGx
      if (!Busy)
        startTransfer();
      break;
    }
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
}

void UsartSpi::updateLines() {
  uint8_t F = Sfr.get(flagReg()), E = Sfr.get(enableReg());
  C.irq().set(RxSlot, F & E & rxFlag());
  C.irq().set(TxSlot, F & E & txFlag());
}

} // namespace wsn::msp430
