//===- MicaZBoard.h - the MicaZ mote around its atmega128 -----------------===//
//
// The board file: what is soldered to which pin of the atmega128, as TinyOS's
// micaz platform wires it (spec/micaz.md has the one table):
//   - the three LEDs on port A (tos/platforms/mica/PlatformLedsC: Led0 = PA2
//     red, Led1 = PA1 green, Led2 = PA0 yellow; lit when the pin drives low);
//   - the CC2420 (tos/platforms/micaz/chips/cc2420/HplCC2420PinsC and
//     HplCC2420InterruptsC): SPI master on port B (PB1 SCK, PB2 MOSI, PB3
//     MISO), CSn PB0, VREG_EN PA5, RESETn PA6 from the MCU; FIFO PB7, FIFOP
//     PE6 (INT6), CCA PD6, SFD PD4 (ICP1, Timer1 input capture) to the MCU.
// Timer0's 32.768 kHz crystal is AsyncTimer0 (owned by the node).
//
// Time: the CC2420 model counts nanoseconds; simulated ns = floor(cycles *
// 1e9 / F), and a radio event at ns T is handled at the first cycle whose ns is
// at least T, i.e. ceil(T * F / 1e9) (exact integer arithmetic).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MICAZBOARD_H
#define WSN_SIM_MICAZBOARD_H

#include "CC2420.h"
#include "MoteBoard.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct avr_t;
struct avr_irq_t;
struct avr_spi_t;

namespace wsn {
namespace sim {

class MicaZBoard : public MoteBoard {
public:
  explicit MicaZBoard(avr_t *Avr);
  ~MicaZBoard() override;
  llvm::Error attach();

  uint8_t leds() const override { return Leds; }
  const std::vector<LedChange> &ledHistory() const override { return LedHistory; }
  /// Led0 red, Led1 green, Led2 yellow (spec/micaz.md).
  const char *ledNames() const override { return "RGY"; }

  devices::CC2420 &radio() override { return *Radio; }
  const devices::CC2420 &radio() const override { return *Radio; }
  bool radioUsed() const override { return RadioUsed; }
  bool radioPowered() const override { return VregEn; }
  const SpiStats &spiStats() const override { return Spi; }

  uint64_t nsAt(uint64_t Cycle) const;
  uint64_t cycleAt(uint64_t Ns) const;

  /// Port A pins of the LEDs, Led0..Led2.
  static constexpr unsigned LedPin[3] = {2, 1, 0};

private:
  static void onPort(avr_irq_t *, uint32_t Value, void *P);
  static void onDdr(avr_irq_t *, uint32_t Value, void *P);
  void updateOutputs();
  void drivePin(devices::CC2420::Pin Pin, bool Level);
  void armWake();
  static uint64_t onWake(avr_t *, uint64_t When, void *P);
  static void writeSpdr(avr_t *, uint16_t Addr, uint8_t V, void *P);
  static uint8_t readSpdr(avr_t *, uint16_t Addr, void *P);
  static uint8_t readSpsr(avr_t *, uint16_t Addr, void *P);
  static uint64_t onSpiDone(avr_t *, uint64_t When, void *P);
  unsigned spiDivider() const;

  avr_t *Avr;
  avr_spi_t *SpiPort = nullptr;
  std::unique_ptr<devices::CC2420> Radio;
  // Port A and B as the MCU drives them: index 0 = A, 1 = B.
  struct PortState {
    uint8_t Port = 0, Ddr = 0;
  } Ports[2];
  struct IrqCtx {
    MicaZBoard *B;
    unsigned Index;
  } Ctx[2] = {{this, 0}, {this, 1}};
  uint8_t Leds = 0;
  std::vector<LedChange> LedHistory;
  bool Csn = true, VregEn = false, ResetN = false, RadioUsed = false;
  // External drive of the CC2420's outputs: per port (B, D, E) mask and value.
  struct Drive {
    char Port;
    uint8_t Mask = 0, Value = 0;
  } Drives[3] = {{'B'}, {'D'}, {'E'}};
  // SPI master
  bool SpiBusy = false;
  uint8_t SpiOut = 0, SpiIn = 0;
  bool SpifReadSinceDone = false;
  SpiStats Spi;
  uint64_t WakeArmedAt = 0; ///< cycle of the armed wake-up (0: none)
};

} // namespace sim
} // namespace wsn

#endif
