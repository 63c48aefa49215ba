//===- Msp430Board.h - a board around an MSP430 chip ----------------------===//
//
// What Msp430Node needs from the board of its part beyond MoteBoard: which
// input pins the board drives (the stimuli leave them alone), and the MCLK to
// nanosecond mapping every MSP430 board shares. TelosBBoard (msp430f1611) and
// Z1Board (msp430f2617), both an Msp430RadioBoard, are the two (makeMsp430Board).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MSP430BOARD_H
#define WSN_SIM_MSP430BOARD_H

#include "Chip.h"
#include "MoteBoard.h"

#include <memory>
#include <string>

namespace wsn {
namespace sim {

/// Real time of MCLK cycle Cycle (at or after the core's current one) and the
/// first MCLK cycle whose time is at least Ns, from the chip's Basic Clock
/// module (the DCO as the firmware configured it).
uint64_t mclkNsAt(msp430::Chip &C, uint64_t Cycle);
uint64_t mclkCycleAt(msp430::Chip &C, uint64_t Ns);
/// The first MCLK cycle whose time reaches Ns, for a time at or before the core's current
/// cycle (an edge the core handles after it happened), within the clock's configuration.
uint64_t mclkPastCycleAt(msp430::Chip &C, uint64_t Ns);

class Msp430Board : public MoteBoard {
public:
  /// Whether the board drives input pin Port.Bit (Port 1..6).
  virtual bool drivesPin(unsigned Port, unsigned Bit) const = 0;
};

/// The board of part Mcu wired to Chip (before power-on), or null when wsn-sim has none for
/// that part (the node runs board-less: no LEDs, no radio).
std::unique_ptr<Msp430Board> makeMsp430Board(const std::string &Mcu, msp430::Chip &Chip);

} // namespace sim
} // namespace wsn

#endif
