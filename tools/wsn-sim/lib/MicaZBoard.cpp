//===- MicaZBoard.cpp - the MicaZ mote around its atmega128 ---------------===//
#include "MicaZBoard.h"

extern "C" {
#include <simavr/avr_extint.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_spi.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_cycle_timers.h>
#include <simavr/sim_interrupts.h>
#include <simavr/sim_io.h>
}

#include <cstring>

namespace wsn {
namespace sim {

using devices::CC2420;

constexpr unsigned MicaZBoard::LedPin[3];

namespace {
// Port A: LEDs, VREG_EN, RESETn. Port B: CSn.
constexpr unsigned PinVregEn = 5, PinResetN = 6; // PA5, PA6
constexpr unsigned PinCsn = 0;                   // PB0
// ATmega128 SPI registers (data space) and bits (datasheet, "SPI").
constexpr uint16_t SPCR = 0x2D, SPSR = 0x2E, SPDR = 0x2F;
constexpr uint8_t SPIE = 7, SPE = 6, DORD = 5, MSTR = 4, SPR1 = 1, SPR0 = 0;
constexpr uint8_t SPIF = 7, WCOL = 6, SPI2X = 0;

avr_spi_t *findSpi(avr_t *Avr) {
  for (avr_io_t *Io = Avr->io_port; Io; Io = Io->next)
    if (Io->kind && !strcmp(Io->kind, "spi"))
      return reinterpret_cast<avr_spi_t *>(Io);
  return nullptr;
}

uint8_t reverseBits(uint8_t B) {
  uint8_t R = 0;
  for (int I = 0; I < 8; ++I)
    if (B & (1u << I))
      R |= 1u << (7 - I);
  return R;
}

/// Where each CC2420 output is wired: port letter, pin.
struct OutPin {
  char Port;
  unsigned Bit;
};
OutPin outPin(CC2420::Pin P) {
  switch (P) {
  case CC2420::Pin::Fifo:
    return {'B', 7};
  case CC2420::Pin::Fifop:
    return {'E', 6}; // INT6
  case CC2420::Pin::Cca:
    return {'D', 6};
  case CC2420::Pin::Sfd:
    return {'D', 4}; // ICP1
  }
  return {'B', 7};
}
} // namespace

std::string ledString(uint8_t Leds, const char *Names) {
  std::string S = "---";
  for (unsigned I = 0; I < 3; ++I)
    if (Leds & (1u << I))
      S[I] = Names[I];
  return S;
}

MicaZBoard::MicaZBoard(avr_t *Avr) : Avr(Avr), Radio(std::make_unique<CC2420>()) {}

MicaZBoard::~MicaZBoard() {
  avr_cycle_timer_cancel(Avr, onWake, this);
  avr_cycle_timer_cancel(Avr, onSpiDone, this);
}

uint64_t MicaZBoard::nsAt(uint64_t Cycle) const {
  return uint64_t((unsigned __int128)Cycle * 1000000000u / Avr->frequency);
}

uint64_t MicaZBoard::cycleAt(uint64_t Ns) const {
  unsigned __int128 N = (unsigned __int128)Ns * Avr->frequency;
  return uint64_t((N + 999999999u) / 1000000000u);
}

llvm::Error MicaZBoard::attach() {
  auto Fail = [](const char *What) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   std::string("the MicaZ board needs ") + What);
  };
  for (unsigned I = 0; I < 2; ++I) {
    char Name = I == 0 ? 'A' : 'B';
    avr_irq_t *Port = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(Name), IOPORT_IRQ_REG_PORT);
    avr_irq_t *Ddr = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(Name), IOPORT_IRQ_DIRECTION_ALL);
    if (!Port || !Ddr)
      return Fail(I == 0 ? "port A (LEDs, VREG_EN, RESETn)" : "port B (SPI, CSn, FIFO)");
    avr_irq_register_notify(Port, onPort, &Ctx[I]);
    avr_irq_register_notify(Ddr, onDdr, &Ctx[I]);
  }
  for (char P : {'D', 'E'})
    if (!avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(P), 0))
      return Fail("ports D and E (CCA, SFD, FIFOP)");
  SpiPort = findSpi(Avr);
  if (!SpiPort || SpiPort->r_spdr != SPDR || SpiPort->r_spsr != SPSR)
    return Fail("the atmega128 SPI");
  // The SPI master is the board's: libsimavr 1.6 takes 100 us per byte
  // whatever the clock divider, and has no WCOL.
  auto &DIo = Avr->io[AVR_DATA_TO_IO(SPDR)];
  DIo.w.c = writeSpdr;
  DIo.w.param = this;
  DIo.r.c = readSpdr;
  DIo.r.param = this;
  auto &SIo = Avr->io[AVR_DATA_TO_IO(SPSR)];
  SIo.r.c = readSpsr;
  SIo.r.param = this;

  // FIFOP drives INT6. libsimavr repeats a low-level external interrupt with
  // a cycle timer every cycle while the pin is low, and keeps doing so after
  // the firmware switched INT6 to an edge mode or masked it: with FIFOP idle
  // low that is a storm of INT6 requests and a timer per cycle. INT6 in
  // low-level mode therefore requests the interrupt at the falling edge only
  // (spec/micaz.md); TinyOS uses edge modes.
  avr_extint_set_strict_lvl_trig(Avr, 6, 0);
  Radio->setPinListener([this](CC2420::Pin P, bool Level, uint64_t) { drivePin(P, Level); });
  Radio->setWakeListener([this](uint64_t) { armWake(); });
  // Levels at reset: every pin an input without pull-up (read as low).
  Radio->setVregEn(false, 0);
  Radio->setResetN(false, 0);
  Radio->setCsn(false, 0);
  Csn = false;
  for (CC2420::Pin P : {CC2420::Pin::Fifo, CC2420::Pin::Fifop, CC2420::Pin::Cca,
                        CC2420::Pin::Sfd})
    drivePin(P, Radio->pin(P));
  armWake();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// MCU outputs: LEDs and the CC2420's control pins
//===----------------------------------------------------------------------===//

void MicaZBoard::onPort(avr_irq_t *, uint32_t Value, void *P) {
  auto *C = static_cast<IrqCtx *>(P);
  C->B->Ports[C->Index].Port = static_cast<uint8_t>(Value);
  C->B->updateOutputs();
}

void MicaZBoard::onDdr(avr_irq_t *, uint32_t Value, void *P) {
  auto *C = static_cast<IrqCtx *>(P);
  C->B->Ports[C->Index].Ddr = static_cast<uint8_t>(Value);
  C->B->updateOutputs();
}

void MicaZBoard::updateOutputs() {
  // A pin's level: its PORT bit when an output; an input reads high only with
  // the pull-up on (PORT bit set), else it is taken as low.
  auto Level = [&](unsigned Port, unsigned Bit) {
    return ((Ports[Port].Port >> Bit) & 1) != 0;
  };
  auto Output = [&](unsigned Port, unsigned Bit) { return ((Ports[Port].Ddr >> Bit) & 1) != 0; };

  // LEDs sink into their pins: lit when the pin is an output driven low.
  uint8_t L = 0;
  for (unsigned I = 0; I < 3; ++I)
    if (Output(0, LedPin[I]) && !Level(0, LedPin[I]))
      L |= 1u << I;
  if (L != Leds) {
    Leds = L;
    LedHistory.push_back({Avr->cycle, L, nsAt(Avr->cycle)});
  }

  uint64_t Ns = nsAt(Avr->cycle);
  bool V = Level(0, PinVregEn), R = Level(0, PinResetN), C = Level(1, PinCsn);
  bool Changed = false;
  if (V != VregEn) {
    VregEn = V;
    RadioUsed |= V;
    Radio->setVregEn(V, Ns);
    Changed = true;
  }
  if (R != ResetN) {
    ResetN = R;
    Radio->setResetN(R, Ns);
    Changed = true;
  }
  if (C != Csn) {
    Csn = C;
    Radio->setCsn(C, Ns);
    Changed = true;
  }
  if (Changed)
    armWake();
}

//===----------------------------------------------------------------------===//
// CC2420 outputs
//===----------------------------------------------------------------------===//

void MicaZBoard::drivePin(CC2420::Pin P, bool Level) {
  OutPin O = outPin(P);
  // Held as an external drive so that PORT writes (pull-ups) on that port do
  // not override it, and raised now for the PIN register, INT6 and ICP1.
  for (Drive &D : Drives) {
    if (D.Port != O.Port)
      continue;
    D.Mask |= 1u << O.Bit;
    D.Value = Level ? (D.Value | (1u << O.Bit)) : (D.Value & ~(1u << O.Bit));
    avr_ioport_external_t E;
    memset(&E, 0, sizeof(E));
    E.name = O.Port;
    E.mask = D.Mask;
    E.value = D.Value;
    avr_ioctl(Avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(O.Port), &E);
  }
  avr_raise_irq(avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ(O.Port), O.Bit), Level ? 1 : 0);
}

void MicaZBoard::armWake() {
  avr_cycle_timer_cancel(Avr, onWake, this);
  uint64_t Next = Radio->nextEventNs();
  if (Next == UINT64_MAX)
    return;
  uint64_t C = cycleAt(Next);
  avr_cycle_timer_register(Avr, C > Avr->cycle ? C - Avr->cycle : 1, onWake, this);
}

uint64_t MicaZBoard::onWake(avr_t *, uint64_t When, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  B->Radio->advanceTo(B->nsAt(When));
  uint64_t Next = B->Radio->nextEventNs();
  if (Next == UINT64_MAX)
    return 0;
  uint64_t C = B->cycleAt(Next);
  return C > When ? C : When + 1;
}

//===----------------------------------------------------------------------===//
// SPI master (datasheet, "SPI - Serial Peripheral Interface")
//===----------------------------------------------------------------------===//

unsigned MicaZBoard::spiDivider() const {
  // Table 72: SPI2X, SPR1, SPR0 -> fosc / 4, 16, 64, 128, 2, 8, 32, 64.
  static const unsigned Div[8] = {4, 16, 64, 128, 2, 8, 32, 64};
  unsigned Sel = ((Avr->data[SPSR] >> SPI2X) & 1) << 2 | ((Avr->data[SPCR] >> SPR1) & 1) << 1 |
                 ((Avr->data[SPCR] >> SPR0) & 1);
  return Div[Sel];
}

void MicaZBoard::writeSpdr(avr_t *Avr, uint16_t Addr, uint8_t V, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  if (B->SpifReadSinceDone) {
    // SPSR read with SPIF set, then SPDR accessed: SPIF and WCOL clear.
    B->SpifReadSinceDone = false;
    avr_clear_interrupt(Avr, &B->SpiPort->spi);
    Avr->data[SPSR] &= ~(1u << WCOL);
  }
  if (B->SpiBusy) {
    Avr->data[SPSR] |= 1u << WCOL; // write collision: the byte is ignored
    ++B->Spi.Collisions;
    return;
  }
  Avr->data[Addr] = V;
  uint8_t Spcr = Avr->data[SPCR];
  if (!(Spcr & (1u << SPE)) || !(Spcr & (1u << MSTR)))
    return; // no transfer without SPI enabled as master (slave mode is not modelled)
  B->SpiBusy = true;
  B->SpiOut = V;
  avr_cycle_timer_register(Avr, 8 * B->spiDivider(), onSpiDone, B);
}

uint64_t MicaZBoard::onSpiDone(avr_t *Avr, uint64_t When, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  B->SpiBusy = false;
  bool Lsb = Avr->data[SPCR] & (1u << DORD);
  uint8_t Mosi = Lsb ? reverseBits(B->SpiOut) : B->SpiOut;
  uint8_t Miso = 0;
  if (!B->Csn) {
    Miso = B->Radio->spiExchange(Mosi, B->nsAt(When));
    ++B->Spi.Bytes;
    B->armWake();
  }
  B->SpiIn = Lsb ? reverseBits(Miso) : Miso;
  avr_raise_interrupt(Avr, &B->SpiPort->spi); // SPIF (and the interrupt when SPIE)
  return 0;
}

uint8_t MicaZBoard::readSpdr(avr_t *Avr, uint16_t, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  if (B->SpifReadSinceDone) {
    B->SpifReadSinceDone = false;
    avr_clear_interrupt(Avr, &B->SpiPort->spi);
    Avr->data[SPSR] &= ~(1u << WCOL);
  }
  return B->SpiIn;
}

uint8_t MicaZBoard::readSpsr(avr_t *Avr, uint16_t, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  if (Avr->data[SPSR] & (1u << SPIF))
    B->SpifReadSinceDone = true;
  return Avr->data[SPSR];
}

} // namespace sim
} // namespace wsn
