//===- TelosBBoard.cpp - the TelosB mote around its msp430f1611 -----------===//
#include "TelosBBoard.h"

#include <algorithm>

namespace wsn {
namespace sim {

using devices::CC2420;

constexpr TelosBBoard::PinRef TelosBBoard::Led[3];
constexpr TelosBBoard::PinRef TelosBBoard::UserButton;
constexpr TelosBBoard::PinRef TelosBBoard::Fifop, TelosBBoard::Fifo, TelosBBoard::Cca,
    TelosBBoard::Sfd, TelosBBoard::Csn, TelosBBoard::VregEn, TelosBBoard::ResetN;

TelosBBoard::TelosBBoard(msp430::Chip &C) : Chip(C), Radio(std::make_unique<CC2420>()) {
  Chip.cpu().addDevice(&Wake);
  Chip.ports().onOutput(
      [this](unsigned Port, uint8_t Out, uint8_t Dir) { onPorts(Port, Out, Dir); });
  if (auto *U = Chip.usart(SpiUsart))
    U->setDevice([this](uint8_t Mosi) { return spiByte(Mosi); });
  Radio->setPinListener([this](CC2420::Pin P, bool Level, uint64_t) { drivePin(P, Level); });
  Radio->setWakeListener([this](uint64_t) { Chip.cpu().eventsChanged(); });
  // Levels at reset: every MCU pin an input; an undriven input is taken as low (the
  // F1611 has no pull resistors), so the CC2420 starts unpowered, in reset, selected.
  Radio->setVregEn(false, 0);
  Radio->setResetN(false, 0);
  Radio->setCsn(false, 0);
  for (CC2420::Pin P : {CC2420::Pin::Fifo, CC2420::Pin::Fifop, CC2420::Pin::Cca,
                        CC2420::Pin::Sfd})
    drivePin(P, Radio->pin(P));
  // The user button pulls P2.7 low when pressed (UserButtonP: "high when released").
  Chip.ports().setInput(UserButton.Port, UserButton.Bit, true);
}

TelosBBoard::~TelosBBoard() = default;

bool TelosBBoard::drivesPin(unsigned Port, unsigned Bit) const {
  for (PinRef P : {Fifop, Fifo, Cca, Sfd})
    if (P.Port == Port && P.Bit == Bit)
      return true;
  return false;
}


//===----------------------------------------------------------------------===//
// MCU outputs: LEDs and the CC2420's control pins
//===----------------------------------------------------------------------===//

void TelosBBoard::onPorts(unsigned Port, uint8_t Out, uint8_t Dir) {
  // A pin's level: PxOUT where it is an output; an input is taken as low.
  auto Level = [&](PinRef P) { return ((Dir & Out) >> P.Bit) & 1; };
  uint64_t Now = Chip.cpu().cycles();
  if (Port == 5) {
    // The LEDs sink into their pins: lit when the pin is an output driven low.
    uint8_t L = 0;
    for (unsigned I = 0; I < 3; ++I)
      if (((Dir >> Led[I].Bit) & 1) && !((Out >> Led[I].Bit) & 1))
        L |= 1u << I;
    if (L != Leds) {
      Leds = L;
      LedHistory.push_back({Now, L, nsAt(Now)});
    }
  }
  if (Port != 4)
    return;
  uint64_t Ns = nsAt(Now);
  bool V = Level(VregEn), R = Level(ResetN), C = Level(Csn);
  if (V != VregOn) {
    VregOn = V;
    RadioUsed |= V;
    Radio->setVregEn(V, Ns);
  }
  if (R != ResetHigh) {
    ResetHigh = R;
    Radio->setResetN(R, Ns);
  }
  if (C != CsnHigh) {
    CsnHigh = C;
    Radio->setCsn(C, Ns);
  }
  Chip.cpu().eventsChanged();
}

//===----------------------------------------------------------------------===//
// CC2420 outputs and the SPI bus
//===----------------------------------------------------------------------===//

void TelosBBoard::drivePin(CC2420::Pin P, bool Level) {
  switch (P) {
  case CC2420::Pin::Fifo:
    Chip.ports().setInput(Fifo.Port, Fifo.Bit, Level);
    return;
  case CC2420::Pin::Fifop:
    Chip.ports().setInput(Fifop.Port, Fifop.Bit, Level);
    return;
  case CC2420::Pin::Cca:
    Chip.ports().setInput(Cca.Port, Cca.Bit, Level);
    return;
  case CC2420::Pin::Sfd:
    Chip.ports().setInput(Sfd.Port, Sfd.Bit, Level);
    // Edges reach the timer when the core handles them: at the radio's event
    // cycle, or at the end of the SPI byte that caused them.
    Chip.timerB().setInput(SfdCapture, /*InputB=*/false, Level, Chip.cpu().cycles());
    return;
  }
}

uint8_t TelosBBoard::spiByte(uint8_t Mosi) {
  // Called by USART0 at the end of a byte; its pending event is that end.
  uint64_t End = Chip.usart(SpiUsart)->nextEvent();
  if (End == msp430::kNever)
    End = Chip.cpu().cycles();
  if (CsnHigh)
    return 0; // the CC2420's SO is not driven while CSn is high
  uint8_t Miso = Radio->spiExchange(Mosi, nsAt(End));
  ++Spi.Bytes;
  Chip.cpu().eventsChanged();
  return Miso;
}

void TelosBBoard::RadioWake::advanceTo(uint64_t Cycle) {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next != UINT64_MAX && B.nsAt(Cycle) >= Next)
    B.Radio->advanceTo(B.nsAt(Cycle));
}

uint64_t TelosBBoard::RadioWake::nextEvent() const {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next == UINT64_MAX)
    return msp430::kNever;
  return B.cycleAt(Next);
}

} // namespace sim
} // namespace wsn
