//===- Msp430RadioBoard.cpp - an MSP430 mote with a CC2420, LEDs, a button ===//
#include "Msp430RadioBoard.h"

namespace wsn {
namespace sim {

using devices::CC2420;

Msp430RadioBoard::Msp430RadioBoard(msp430::Chip &C, const Wiring &W)
    : Chip(C), W(W), Radio(std::make_unique<CC2420>()) {
  Chip.cpu().addDevice(&Wake);
  Chip.ports().onOutput(
      [this](unsigned Port, uint8_t Out, uint8_t Dir) { onPorts(Port, Out, Dir); });
  Radio->setPinListener(
      [this](CC2420::Pin P, bool Level, uint64_t Ns) { drivePin(P, Level, Ns); });
  Radio->setWakeListener([this](uint64_t) { Chip.cpu().eventsChanged(); });
  // Levels at reset: every MCU pin an input; an undriven input is taken as low (the F1611
  // has no pull resistors; the F2617's are not modelled), so the CC2420 starts unpowered,
  // in reset, selected.
  Radio->setVregEn(false, 0);
  Radio->setResetN(false, 0);
  Radio->setCsn(false, 0);
  for (CC2420::Pin P : {CC2420::Pin::Fifo, CC2420::Pin::Fifop, CC2420::Pin::Cca,
                        CC2420::Pin::Sfd})
    drivePin(P, Radio->pin(P), 0);
  // The user button pulls its pin low when pressed (UserButtonP: "high when released");
  // the pin is left to the stimuli.
  Chip.ports().setInput(W.UserButton.Port, W.UserButton.Bit, true);
}

Msp430RadioBoard::~Msp430RadioBoard() = default;

bool Msp430RadioBoard::drivesPin(unsigned Port, unsigned Bit) const {
  for (PinRef P : {W.Fifop, W.Fifo, W.Cca, W.Sfd})
    if (P.Port == Port && P.Bit == Bit)
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// MCU outputs: LEDs and the CC2420's control pins
//===----------------------------------------------------------------------===//

void Msp430RadioBoard::onPorts(unsigned Port, uint8_t Out, uint8_t Dir) {
  // A pin's level: PxOUT where it is an output; an input is taken as low.
  auto Level = [&](PinRef P) { return ((Dir & Out) >> P.Bit) & 1; };
  uint64_t Now = Chip.cpu().cycles();
  if (Port == W.Led[0].Port) {
    // The LEDs (all on one port) sink into their pins: lit when the pin is an output
    // driven low.
    uint8_t L = 0;
    for (unsigned I = 0; I < 3; ++I)
      if (((Dir >> W.Led[I].Bit) & 1) && !((Out >> W.Led[I].Bit) & 1))
        L |= 1u << I;
    if (L != Leds) {
      Leds = L;
      LedHistory.push_back({Now, L, nsAt(Now)});
    }
    return;
  }
  if (Port != W.VregEn.Port && Port != W.ResetN.Port && Port != W.Csn.Port)
    return;
  uint64_t Ns = nsAt(Now);
  if (Port == W.VregEn.Port) {
    bool V = Level(W.VregEn);
    if (V != VregOn) {
      VregOn = V;
      RadioUsed |= V;
      Radio->setVregEn(V, Ns);
    }
  }
  if (Port == W.ResetN.Port) {
    bool R = Level(W.ResetN);
    if (R != ResetHigh) {
      ResetHigh = R;
      Radio->setResetN(R, Ns);
    }
  }
  if (Port == W.Csn.Port) {
    bool C = Level(W.Csn);
    if (C != CsnHigh) {
      CsnHigh = C;
      Radio->setCsn(C, Ns);
    }
  }
  Chip.cpu().eventsChanged();
}

//===----------------------------------------------------------------------===//
// CC2420 outputs and the SPI bus
//===----------------------------------------------------------------------===//

void Msp430RadioBoard::drivePin(CC2420::Pin P, bool Level, uint64_t Ns) {
  switch (P) {
  case CC2420::Pin::Fifo:
    Chip.ports().setInput(W.Fifo.Port, W.Fifo.Bit, Level);
    return;
  case CC2420::Pin::Fifop:
    Chip.ports().setInput(W.Fifop.Port, W.Fifop.Bit, Level);
    return;
  case CC2420::Pin::Cca:
    Chip.ports().setInput(W.Cca.Port, W.Cca.Bit, Level);
    return;
  case CC2420::Pin::Sfd:
    Chip.ports().setInput(W.Sfd.Port, W.Sfd.Bit, Level);
    // The core hears the edge at an instruction boundary; Timer_B captures the count of
    // the edge's own cycle (the first whose time reaches Ns), also when the core handles
    // the edge a few cycles later.
    Chip.timerB().setInput(W.SfdCapture, /*InputB=*/false, Level, mclkPastCycleAt(Chip, Ns));
    return;
  }
}

uint8_t Msp430RadioBoard::spiByte(uint8_t Mosi) {
  // Called by the SPI port at the end of a byte; its pending event is that end.
  uint64_t End = SpiPort->nextEvent();
  if (End == msp430::kNever)
    End = Chip.cpu().cycles();
  if (CsnHigh)
    return 0; // the CC2420's SO is not driven while CSn is high
  uint8_t Miso = Radio->spiExchange(Mosi, nsAt(End));
  ++Spi.Bytes;
  Chip.cpu().eventsChanged();
  return Miso;
}

void Msp430RadioBoard::RadioWake::advanceTo(uint64_t Cycle) {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next != UINT64_MAX && B.nsAt(Cycle) >= Next)
    B.Radio->advanceTo(B.nsAt(Cycle));
}

uint64_t Msp430RadioBoard::RadioWake::nextEvent() const {
  uint64_t Next = B.Radio->nextEventNs();
  if (Next == UINT64_MAX)
    return msp430::kNever;
  return B.cycleAt(Next);
}

} // namespace sim
} // namespace wsn
