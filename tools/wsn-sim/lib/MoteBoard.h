//===- MoteBoard.h - what a node's board shows the run and the network ----===//
//
// A board is everything soldered around the MCU: the LEDs and the CC2420 on
// its SPI bus. MicaZBoard (atmega128 on libsimavr) and TelosBBoard
// (msp430f1611 on the WSNMsp430 core) implement this interface; SimRun and the
// Network see only it (spec/wsn-sim.md). Time: the radio and the medium count
// nanoseconds; each board maps its MCU's cycles to them.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MOTEBOARD_H
#define WSN_SIM_MOTEBOARD_H

#include "CC2420.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wsn {
namespace sim {

/// LED state as TinyOS's Leds.get() reports it: bit 0 Led0, bit 1 Led1, bit 2 Led2.
struct LedChange {
  uint64_t Cycle = 0; ///< the node's own CPU cycle
  uint8_t Leds = 0;
  uint64_t Ns = 0;    ///< simulated time of the change (orders a mixed network's LED log)
};

/// "R-Y": the three LEDs as letters (Names, one per LED: "RGY" on the MicaZ,
/// "RGB" on the TelosB), '-' when off.
std::string ledString(uint8_t Leds, const char *Names = "RGY");

/// Counters of the board's SPI master (run.json "cc2420").
struct SpiStats {
  uint64_t Bytes = 0;      ///< bytes exchanged with the CC2420 (CSn low)
  uint64_t Collisions = 0; ///< data register written during a transfer (AVR WCOL)
};

class MoteBoard {
public:
  virtual ~MoteBoard() = default;

  virtual uint8_t leds() const = 0;
  /// Every change of the LEDs since reset (all off at reset).
  virtual const std::vector<LedChange> &ledHistory() const = 0;
  /// The colour letters of Led0..Led2 for ledString.
  virtual const char *ledNames() const = 0;

  virtual devices::CC2420 &radio() = 0;
  virtual const devices::CC2420 &radio() const = 0;
  /// Whether the firmware ever powered the CC2420 (VREG_EN high).
  virtual bool radioUsed() const = 0;
  /// Whether VREG_EN is high now.
  virtual bool radioPowered() const = 0;
  virtual const SpiStats &spiStats() const = 0;
};

} // namespace sim
} // namespace wsn

#endif
