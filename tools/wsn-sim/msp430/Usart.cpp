// Usart.cpp - SLAU049 §13.2 "USART Operation: UART Mode" and §14.2 "USART Operation: SPI
// Mode" (master).
#include "Usart.h"

#include "Cpu.h"

#include <algorithm>

namespace wsn::msp430 {

namespace {
constexpr uint8_t SWRST = 0x01, MM = 0x02, SYNC = 0x04, CHAR = 0x10, SPB = 0x20,
                  PENA = 0x80;                                    // UxCTL
constexpr uint8_t TXEPT = 0x01;                                   // UxTCTL
constexpr uint8_t RXERR = 0x01, BRK = 0x10, OE = 0x20, PE = 0x40, FE = 0x80; // UxRCTL
enum : unsigned { CTL, TCTL, RCTL, MCTL, BR0, BR1, RXBUF, TXBUF };
} // namespace

Usart::Usart(Cpu &Core, SpecialFunctionRegisters &S, unsigned U, const ClockSource &A,
             const ClockSource &Sm)
    : SerialShift(Core), Sfr(S), Unit(U), Aclk(A), Smclk(Sm) {
  uint32_t VB = C.mcu().VectorBase;
  RxSlot = ((U == 0 ? 0xFFF2 : 0xFFE6) - VB) / 2;
  TxSlot = ((U == 0 ? 0xFFF0 : 0xFFE4) - VB) / 2;
  Sfr.onChange([this] {
    updateLines();
    // A character written while the transmitter was disabled leaves once UTXEx/USPIEx is set.
    if (TxFull && !TxBusy && txEnabled() && brclk()) {
      Now = std::max(Now, C.cycles());
      startTransmit(brclk()->ticksAt(Now));
    }
    // Likewise the host's characters start once URXEx is set.
    if (!RxBusy && !RxQueue.empty() && rxEnabled() && brclk()) {
      Now = std::max(Now, C.cycles());
      startReceive(brclk()->ticksAt(Now));
    }
  });
  // §13.2.6 / §14.2.6: UTXIFGx and URXIFGx are reset when their interrupt is served.
  C.irq().setAcknowledge(RxSlot, [](void *Ctx, unsigned) {
    auto *U = static_cast<Usart *>(Ctx);
    U->Sfr.clear(U->flagReg(), U->rxFlag());
  }, this);
  C.irq().setAcknowledge(TxSlot, [](void *Ctx, unsigned) {
    auto *U = static_cast<Usart *>(Ctx);
    U->Sfr.clear(U->flagReg(), U->txFlag());
  }, this);
}

void Usart::map() { C.mapPeripheral(base(), base() + 7, this); }

bool Usart::spi() const { return Ctl & SYNC; }

bool Usart::txEnabled() const {
  if (Ctl & SWRST)
    return false;
  // SPI: USPIEx (the URXEx position); UART: UTXEx (the UTXIFGx position).
  return Sfr.get(moduleReg()) & (spi() ? rxFlag() : txFlag());
}

bool Usart::rxEnabled() const { return !(Ctl & SWRST) && (Sfr.get(moduleReg()) & rxFlag()); }

void Usart::reset() {
  // PUC: SWRST and TXEPT set, UTXIFGx set, URXIFGx clear (§13.2.1, §14.2.1).
  Now = C.cycles();
  Ctl = SWRST;
  Tctl = TXEPT;
  Rctl = Mctl = Br0 = Br1 = 0;
  TxFull = TxBusy = RxBusy = false;
  RxQueue.clear();
  Sfr.set(flagReg(), txFlag());
  Sfr.clear(flagReg(), rxFlag());
  C.eventsChanged();
}

const ClockSource *Usart::brclk() const {
  unsigned Ssel = (Tctl >> 4) & 3; // 00 UCLKI (external), 01 ACLK, 10/11 SMCLK
  return Ssel == 1 ? &Aclk : Ssel >= 2 ? &Smclk : nullptr;
}

uint64_t Usart::frameTicks() const {
  unsigned Br = Br0 | Br1 << 8;
  if (spi())
    return 8ull * std::max(2u, Br); // §14.2.4: UxBR >= 2 in SPI mode
  // §13.2.2 character format; §13.2.5: bit i lasts UxBR + m(i mod 8) BRCLK periods, m0 (the
  // LSB of UxMCTL) applying to the start bit. UxBR must be >= 3.
  unsigned Bits = 1 + ((Ctl & CHAR) ? 8 : 7) + ((Ctl & PENA) ? 1 : 0) + ((Ctl & SPB) ? 2 : 1);
  uint64_t Ticks = 0;
  for (unsigned I = 0; I < Bits; ++I)
    Ticks += std::max(3u, Br) + ((Mctl >> (I % 8)) & 1);
  return Ticks;
}

void Usart::startTransmit(uint64_t StartTick) {
  const ClockSource *Clk = brclk();
  if (!Clk || (spi() && !(Ctl & MM)))
    return; // no bit clock here (external UCLK, or an SPI slave): the byte waits
  shiftOut(TxBuf, Clk, StartTick, frameTicks());
  Tctl &= ~TXEPT;
  Sfr.set(flagReg(), txFlag()); // UxTXBUF moved to the shift register: ready for the next
  C.eventsChanged();
}

void Usart::startReceive(uint64_t StartTick) {
  const ClockSource *Clk = brclk();
  // The host starts a character only while the receiver is on (URXEx, SWRST clear).
  if (RxBusy || RxQueue.empty() || spi() || !Clk || !rxEnabled())
    return;
  shiftIn(Clk, StartTick, frameTicks());
  C.eventsChanged();
}

void Usart::deliver(uint8_t Byte) {
  if (Sfr.get(flagReg()) & rxFlag())
    Rctl |= OE; // §13.2.3 / §14.2.4: overwritten before UxRXBUF was read
  RxBuf = (Ctl & CHAR) ? Byte : uint8_t(Byte & 0x7F);
  Sfr.set(flagReg(), rxFlag());
}

void Usart::finishTransmit() {
  // TxBusy stays set while the device and the host hear the byte: nextEvent() is then the
  // cycle at which the byte ended (boards time the radio's SPI with it).
  shiftEnded((Ctl & CHAR) ? Shift : uint8_t(Shift & 0x7F), spi());
  TxBusy = false;
  if (TxFull && txEnabled())
    startTransmit(TxDoneTick); // the next character starts where this one ended
  if (!TxBusy)
    Tctl |= TXEPT;
}

void Usart::finishReceive() {
  RxBusy = false;
  if (rxEnabled() && !spi())
    deliver(RxShift); // a receiver disabled during the character loses it (§13.2.4)
  startReceive(RxDoneTick);
}

uint16_t Usart::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint8_t {
    switch (A - base()) {
    case CTL: return Ctl;
    case TCTL: return Tctl;
    case RCTL: return Rctl;
    case MCTL: return Mctl;
    case BR0: return Br0;
    case BR1: return Br1;
    case RXBUF: {
      // Reading UxRXBUF resets URXIFGx and the receive-error bits (§13.2.3).
      uint8_t V = RxBuf;
      Rctl &= uint8_t(~(FE | PE | OE | BRK | RXERR));
      Sfr.clear(flagReg(), rxFlag());
      return V;
    }
    default: return TxBuf;
    }
  };
  return IsByte ? One(Addr) : uint16_t(One(Addr) | One(Addr + 1) << 8);
}

void Usart::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  auto One = [&](uint32_t A, uint8_t V) {
    switch (A - base()) {
    case CTL:
      Ctl = V;
      if (V & SWRST) {
        // §13.2.1 / §14.2.1: SWRST resets URXIEx, UTXIEx, URXIFGx and the receive-error
        // bits, sets UTXIFGx and TXEPT, and stops a transfer; UTXEx/URXEx stay.
        TxBusy = TxFull = RxBusy = false;
        Tctl |= TXEPT;
        Rctl &= uint8_t(~(FE | PE | OE | BRK | RXERR));
        Sfr.clear(enableReg(), uint8_t(rxFlag() | txFlag()));
        Sfr.set(flagReg(), txFlag());
        Sfr.clear(flagReg(), rxFlag());
        C.eventsChanged();
      }
      break;
    case TCTL: Tctl = uint8_t((V & ~TXEPT) | (Tctl & TXEPT)); break;
    case RCTL: Rctl = uint8_t((Rctl & (FE | PE | OE | BRK | RXERR)) | (V & 0x0E)); break;
    case MCTL: Mctl = V; break;
    case BR0: Br0 = V; break;
    case BR1: Br1 = V; break;
    case RXBUF: break; // read-only
    default:
      TxBuf = V;
      if (Ctl & SWRST)
        break; // a module held in reset transmits nothing
      TxFull = true;
      Sfr.clear(flagReg(), txFlag()); // writing UxTXBUF resets UTXIFGx
      if (!TxBusy && txEnabled())
        if (const ClockSource *Clk = brclk())
          startTransmit(Clk->ticksAt(Now));
      break;
    }
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
  // Characters the host sent while the receiver could not count wait for a bit clock.
  startWaitingReceive();
}

void Usart::updateLines() {
  uint8_t F = Sfr.get(flagReg()), E = Sfr.get(enableReg());
  C.irq().set(RxSlot, F & E & rxFlag());
  C.irq().set(TxSlot, F & E & txFlag());
}

} // namespace wsn::msp430
