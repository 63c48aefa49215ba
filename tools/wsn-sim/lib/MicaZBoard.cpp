//===- MicaZBoard.cpp - the MicaZ mote around its atmega128 ---------------===//
#include "MicaZBoard.h"

extern "C" {
#include <simavr/avr_ioport.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_io.h>
}

namespace wsn {
namespace sim {

constexpr unsigned MicaZBoard::LedPin[3];

std::string ledString(uint8_t Leds) {
  std::string S = "---";
  const char Name[3] = {'R', 'G', 'Y'};
  for (unsigned I = 0; I < 3; ++I)
    if (Leds & (1u << I))
      S[I] = Name[I];
  return S;
}

llvm::Error MicaZBoard::attach() {
  avr_irq_t *Port = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ('A'), IOPORT_IRQ_REG_PORT);
  avr_irq_t *Ddr = avr_io_getirq(Avr, AVR_IOCTL_IOPORT_GETIRQ('A'), IOPORT_IRQ_DIRECTION_ALL);
  if (!Port || !Ddr)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the MicaZ board needs port A (the LEDs)");
  avr_irq_register_notify(Port, onPortA, this);
  avr_irq_register_notify(Ddr, onDdrA, this);
  return llvm::Error::success();
}

void MicaZBoard::onPortA(avr_irq_t *, uint32_t Value, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  B->PortA = static_cast<uint8_t>(Value);
  B->updateLeds();
}

void MicaZBoard::onDdrA(avr_irq_t *, uint32_t Value, void *P) {
  auto *B = static_cast<MicaZBoard *>(P);
  B->DdrA = static_cast<uint8_t>(Value);
  B->updateLeds();
}

void MicaZBoard::updateLeds() {
  // A LED sinks into its pin: lit when the pin is an output driven low.
  uint8_t L = 0;
  for (unsigned I = 0; I < 3; ++I) {
    uint8_t M = 1u << LedPin[I];
    if ((DdrA & M) && !(PortA & M))
      L |= 1u << I;
  }
  if (L == Leds)
    return;
  Leds = L;
  LedHistory.push_back({Avr->cycle, L});
}

} // namespace sim
} // namespace wsn
