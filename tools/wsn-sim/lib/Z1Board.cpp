//===- Z1Board.cpp - the Zolertia Z1 mote around its msp430f2617 ----------===//
#include "Z1Board.h"

#include <algorithm>

namespace wsn {
namespace sim {

using devices::CC2420;

constexpr Z1Board::PinRef Z1Board::Led[3];
constexpr Z1Board::PinRef Z1Board::UserButton;
constexpr Z1Board::PinRef Z1Board::Fifop, Z1Board::Fifo, Z1Board::Cca, Z1Board::Sfd,
    Z1Board::Csn, Z1Board::VregEn, Z1Board::ResetN;

Z1Board::Z1Board(msp430::Chip &C) : Chip(C), Radio(std::make_unique<CC2420>()) {
  Chip.cpu().addDevice(&Wake);
  Chip.ports().onOutput(
      [this](unsigned Port, uint8_t Out, uint8_t Dir) { onPorts(Port, Out, Dir); });
  if (msp430::Usci *U = Chip.usciB(SpiUsci))
    U->setDevice([this](uint8_t Mosi) { return spiByte(Mosi); });
  Radio->setPinListener([this](CC2420::Pin P, bool Level, uint64_t Ns) { drivePin(P, Level, Ns); });
  Radio->setWakeListener([this](uint64_t) { Chip.cpu().eventsChanged(); });
  // Levels at reset: every MCU pin an input, taken as low (pull resistors are not
  // modelled), so the CC2420 starts unpowered, in reset, selected.
  Radio->setVregEn(false, 0);
  Radio->setResetN(false, 0);
  Radio->setCsn(false, 0);
  for (CC2420::Pin P : {CC2420::Pin::Fifo, CC2420::Pin::Fifop, CC2420::Pin::Cca,
                        CC2420::Pin::Sfd})
    drivePin(P, Radio->pin(P), 0);
  // The user button pulls P2.5 low when pressed (UserButtonP: "high when released"); the
  // pin is left to the stimuli.
  Chip.ports().setInput(UserButton.Port, UserButton.Bit, true);
}

Z1Board::~Z1Board() = default;

bool Z1Board::drivesPin(unsigned Port, unsigned Bit) const {
  for (PinRef P : {Fifop, Fifo, Cca, Sfd})
    if (P.Port == Port && P.Bit == Bit)
      return true;
  return false;
}

void Z1Board::onPorts(unsigned Port, uint8_t Out, uint8_t Dir) {
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
    return;
  }
  uint64_t Ns = nsAt(Now);
  if (Port == Csn.Port) {
    bool C = Level(Csn);
    if (C != CsnHigh) {
      CsnHigh = C;
      Radio->setCsn(C, Ns);
    }
  }
  if (Port == VregEn.Port) {
    bool V = Level(VregEn), R = Level(ResetN);
    if (V != VregOn) {
      VregOn = V;
      RadioUsed |= V;
      Radio->setVregEn(V, Ns);
    }
    if (R != ResetHigh) {
      ResetHigh = R;
      Radio->setResetN(R, Ns);
    }
  }
  Chip.cpu().eventsChanged();
}

void Z1Board::drivePin(CC2420::Pin P, bool Level, uint64_t Ns) {
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
    // The core hears the edge at an instruction boundary; Timer_B captures the count of
    // the edge's own cycle.
    Chip.timerB().setInput(SfdCapture, /*InputB=*/false, Level, mclkPastCycleAt(Chip, Ns));
    return;
  }
}

uint8_t Z1Board::spiByte(uint8_t Mosi) {
  // Called by USCI_B0 at the end of a byte; its pending event is that end.
  uint64_t End = Chip.usciB(SpiUsci)->nextEvent();
  if (End == msp430::kNever)
    End = Chip.cpu().cycles();
  if (CsnHigh)
    return 0; // the CC2420's SO is not driven while CSn is high
  uint8_t Miso = Radio->spiExchange(Mosi, nsAt(End));
  ++Spi.Bytes;
  Chip.cpu().eventsChanged();
  return Miso;
}

void Z1Board::RadioWake::advanceTo(uint64_t Cycle) {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next != UINT64_MAX && B.nsAt(Cycle) >= Next)
    B.Radio->advanceTo(B.nsAt(Cycle));
}

uint64_t Z1Board::RadioWake::nextEvent() const {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next == UINT64_MAX)
    return msp430::kNever;
  return B.cycleAt(Next);
}

} // namespace sim
} // namespace wsn
