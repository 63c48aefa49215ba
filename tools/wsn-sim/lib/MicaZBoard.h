//===- MicaZBoard.h - the MicaZ mote around its atmega128 -----------------===//
//
// The board file: what is soldered to which pin of the atmega128, as TinyOS's
// micaz platform wires it (spec/micaz.md has the one table). Today: the three
// LEDs on port A (tos/platforms/mica/PlatformLedsC: Led0 = PA2 red, Led1 =
// PA1 green, Led2 = PA0 yellow; a LED is lit when its pin drives low).
// Timer0's 32.768 kHz crystal is AsyncTimer0.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MICAZBOARD_H
#define WSN_SIM_MICAZBOARD_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

struct avr_t;
struct avr_irq_t;

namespace wsn {
namespace sim {

/// LED state as TinyOS's Leds.get() reports it: bit 0 Led0 (red), bit 1 Led1
/// (green), bit 2 Led2 (yellow).
struct LedChange {
  uint64_t Cycle = 0;
  uint8_t Leds = 0;
};

/// "R-Y": the three LEDs as letters, '-' when off.
std::string ledString(uint8_t Leds);

class MicaZBoard {
public:
  explicit MicaZBoard(avr_t *Avr) : Avr(Avr) {}
  llvm::Error attach();

  uint8_t leds() const { return Leds; }
  /// Every change of the LEDs since reset (all off at reset).
  const std::vector<LedChange> &ledHistory() const { return LedHistory; }

  /// Port A pins of the LEDs, Led0..Led2.
  static constexpr unsigned LedPin[3] = {2, 1, 0};

private:
  static void onPortA(avr_irq_t *, uint32_t Value, void *P);
  static void onDdrA(avr_irq_t *, uint32_t Value, void *P);
  void updateLeds();

  avr_t *Avr;
  uint8_t PortA = 0, DdrA = 0;
  uint8_t Leds = 0;
  std::vector<LedChange> LedHistory;
};

} // namespace sim
} // namespace wsn

#endif
