// Usci.cpp - SLAU144 §15.3 "USCI Operation: UART Mode" and §16.3 "USCI Operation: SPI Mode"
// (master).
#include "Usci.h"

#include "Cpu.h"

#include "absl/strings/str_format.h"

#include <algorithm>

namespace wsn::msp430 {

namespace {
// UCxCTL0
constexpr uint8_t UCSYNC = 0x01, UCSPB = 0x08, UC7BIT = 0x10, UCMST = 0x08, UCPEN = 0x80;
// UCAxMCTL
constexpr uint8_t UCOS16 = 0x01;
// UCxSTAT
constexpr uint8_t UCBUSY = 0x01, UCRXERR = 0x04, UCBRK = 0x08, UCPE = 0x10, UCOE = 0x20,
                  UCFE = 0x40;
constexpr uint8_t ErrorBits = UCRXERR | UCBRK | UCPE | UCOE | UCFE;
enum : unsigned { CTL0, CTL1, BR0, BR1, MCTL, STAT, RXBUF, TXBUF };
// Table 15-2 "BITCLK Modulation Pattern": bit i (0 = the start bit) of row UCBRSx.
constexpr uint8_t UcbrsPattern[8] = {0x00, 0x02, 0x22, 0x2A, 0xAA, 0xAE, 0xEE, 0xFE};
} // namespace

Usci::Usci(Cpu &Core, SpecialFunctionRegisters &S, Kind Which, unsigned U,
           const ClockSource &Ac, const ClockSource &Sm)
    : SerialShift(Core), Sfr(S), K(Which), Unit(U), Aclk(Ac), Smclk(Sm) {
  uint32_t VB = C.mcu().VectorBase;
  RxSlot = ((U == 0 ? 0xFFEE : 0xFFE2) - VB) / 2;
  TxSlot = ((U == 0 ? 0xFFEC : 0xFFE0) - VB) / 2;
  IeReg = U == 0 ? IE2 : UC1IE;
  IfgReg = U == 0 ? IFG2 : UC1IFG;
  Sfr.onChange([this] { updateLines(); });
}

uint32_t Usci::base() const {
  return (Unit == 0 ? 0x60 : 0xD0) + (K == B ? 8 : 0);
}

void Usci::map() { C.mapPeripheral(base(), base() + 7, this); }

void Usci::setFlags(uint8_t Set, uint8_t Clear) {
  if (Clear)
    Sfr.clear(IfgReg, Clear);
  if (Set)
    Sfr.set(IfgReg, Set);
}

void Usci::clearEnables(uint8_t Bits) { Sfr.clear(IeReg, Bits); }

void Usci::reset() {
  // PUC (§15.4, §16.4 register reset values): UCSWRST set, UCSYNC set on USCI_B; the
  // transmit flag set and the receive flag reset (§15.3.1: UCSWRST sets UCAxTXIFG).
  Now = C.cycles();
  Ctl0 = K == B ? UCSYNC : 0;
  Ctl1 = 0x01;
  Br0 = Br1 = Mctl = Stat = 0;
  TxFull = TxBusy = RxBusy = false;
  RxQueue.clear();
  clearEnables(uint8_t(rxBit() | txBit()));
  setFlags(txBit(), rxBit());
  C.eventsChanged();
}

const ClockSource *Usci::brclk() const {
  unsigned Ssel = Ctl1 >> 6; // 00 UCLK/UCAxCLK (external), 01 ACLK, 10/11 SMCLK
  return Ssel == 1 ? &Aclk : Ssel >= 2 ? &Smclk : nullptr;
}

uint64_t Usci::frameTicks() const {
  unsigned Br = Br0 | Br1 << 8;
  if (sync()) // §16.3.6: fBitClock = fBRCLK / UCBRx (UCBRx = 0 gives fBRCLK)
    return uint64_t((Ctl0 & UC7BIT) ? 7 : 8) * std::max(1u, Br);
  // §15.3.2 character format; §15.3.11 transmit bit timing.
  unsigned Bits = 1 + ((Ctl0 & UC7BIT) ? 7 : 8) + ((Ctl0 & UCPEN) ? 1 : 0) +
                  ((Ctl0 & UCSPB) ? 2 : 1);
  uint8_t S = UcbrsPattern[(Mctl >> 1) & 7];
  unsigned Brf = Mctl >> 4; // Table 15-3: row UCBRFx has UCBRFx ones
  uint64_t Ticks = 0;
  for (unsigned I = 0; I < Bits; ++I) {
    unsigned M = (S >> (I % 8)) & 1;
    if (Mctl & UCOS16)
      Ticks += uint64_t(16 + M) * std::max(1u, Br) + Brf;
    else
      Ticks += std::max(1u, Br) + M;
  }
  return Ticks;
}

void Usci::updateBusy() {
  Stat = uint8_t((Stat & ~UCBUSY) | ((TxBusy || RxBusy) ? UCBUSY : 0));
}

void Usci::startTransmit(uint64_t StartTick) {
  const ClockSource *Clk = brclk();
  if (!Clk || (sync() && !(Ctl0 & UCMST)))
    return; // no bit clock here (external clock, or an SPI slave): the byte waits
  shiftOut(TxBuf, Clk, StartTick, frameTicks());
  updateBusy();
  setFlags(txBit(), 0); // UCxTXBUF moved to the shift register: ready for the next byte
  C.eventsChanged();
}

void Usci::startReceive(uint64_t StartTick) {
  const ClockSource *Clk = brclk();
  // The host starts a character only while the module is released (UCSWRST clear).
  if (RxBusy || RxQueue.empty() || sync() || K == B || !Clk || held())
    return;
  shiftIn(Clk, StartTick, frameTicks());
  updateBusy();
  C.eventsChanged();
}

void Usci::deliver(uint8_t Byte) {
  if (Sfr.get(IfgReg) & rxBit())
    Stat |= UCOE; // §15.3.6 / §16.3.7: overwritten before UCxRXBUF was read
  RxBuf = (Ctl0 & UC7BIT) ? uint8_t(Byte & 0x7F) : Byte;
  setFlags(rxBit(), 0);
}

void Usci::finishTransmit() {
  // TxBusy stays set while the device and the host hear the byte: nextEvent() is then the
  // cycle at which the byte ended (boards time the radio's SPI with it).
  shiftEnded((Ctl0 & UC7BIT) ? uint8_t(Shift & 0x7F) : Shift, sync());
  TxBusy = false;
  if (TxFull && !held())
    startTransmit(TxDoneTick); // the next byte starts where this one ended
  updateBusy();
}

void Usci::finishReceive() {
  RxBusy = false;
  if (!held() && !sync())
    deliver(RxShift);
  startReceive(RxDoneTick);
  updateBusy();
}

uint16_t Usci::read(uint32_t Addr, bool IsByte) {
  auto One = [&](uint32_t A) -> uint8_t {
    switch (A - base()) {
    case CTL0: return Ctl0;
    case CTL1: return Ctl1;
    case BR0: return Br0;
    case BR1: return Br1;
    case MCTL: return Mctl;
    case STAT: return Stat;
    case RXBUF: {
      // Reading UCxRXBUF resets UCxRXIFG and the error bits (§15.3.6, §16.3.7).
      uint8_t V = RxBuf;
      Stat &= uint8_t(~ErrorBits);
      setFlags(0, rxBit());
      return V;
    }
    default: return TxBuf;
    }
  };
  return IsByte ? One(Addr) : uint16_t(One(Addr) | One(Addr + 1) << 8);
}

void Usci::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  auto One = [&](uint32_t A, uint8_t V) {
    switch (A - base()) {
    case CTL0:
      Ctl0 = K == B ? uint8_t(V | UCSYNC) : V; // USCI_B is always synchronous
      break;
    case CTL1:
      Ctl1 = V;
      if (V & 0x01) {
        // §15.3.1 / §16.3.1: UCSWRST resets UCxRXIE, UCxTXIE, UCxRXIFG and the error bits,
        // sets UCxTXIFG, and stops a transfer.
        TxBusy = TxFull = RxBusy = false;
        Stat &= uint8_t(~(ErrorBits | UCBUSY));
        clearEnables(uint8_t(rxBit() | txBit()));
        setFlags(txBit(), rxBit());
        C.eventsChanged();
      } else if (i2c()) {
        C.stop(absl::StrFormat("USCI_B%u: I2C mode (UCMODEx = 11) is not modelled; "
                               "SPI (UCMODEx 00-10) and UART are",
                               Unit));
      }
      break;
    case BR0: Br0 = V; break;
    case BR1: Br1 = V; break;
    case MCTL: Mctl = V; break;
    case STAT: Stat = uint8_t((Stat & (ErrorBits | UCBUSY)) | (V & 0x80)); break; // UCLISTEN
    case RXBUF: break; // read-only
    default:
      TxBuf = V;
      if (held())
        break; // a module held in reset transmits nothing
      TxFull = true;
      setFlags(0, txBit()); // writing UCxTXBUF resets UCxTXIFG
      if (!TxBusy)
        if (const ClockSource *Clk = brclk())
          startTransmit(Clk->ticksAt(Now));
      break;
    }
  };
  One(Addr, uint8_t(Value));
  if (!IsByte)
    One(Addr + 1, uint8_t(Value >> 8));
  startWaitingReceive(); // startReceive waits while UCSWRST is set
}

void Usci::updateLines() {
  // A0 and B0 (A1 and B1) share their RX and TX vectors: each line is the OR of both modules'
  // enabled flags, which live in the same IE/IFG registers.
  uint8_t F = Sfr.get(IfgReg) & Sfr.get(IeReg);
  C.irq().set(RxSlot, F & 0x05);
  C.irq().set(TxSlot, F & 0x0A);
}

} // namespace wsn::msp430
