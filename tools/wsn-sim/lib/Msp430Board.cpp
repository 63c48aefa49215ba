//===- Msp430Board.cpp - what every MSP430 board shares -------------------===//
#include "Msp430Board.h"
#include "TelosBBoard.h"
#include "Z1Board.h"

#include <algorithm>

namespace wsn {
namespace sim {

uint64_t mclkNsAt(msp430::Chip &Chip, uint64_t Cycle) {
  return Chip.clock().picosecondsAt(Cycle) / 1000;
}

uint64_t mclkCycleAt(msp430::Chip &Chip, uint64_t Ns) {
  // The Basic Clock module maps cycles to time linearly from its last
  // configuration change, which is never after the core's current cycle.
  uint64_t C0 = Chip.cpu().cycles();
  uint64_t P0 = Chip.clock().picosecondsAt(C0);
  uint64_t Per = std::max<uint64_t>(1, Chip.clock().picosecondsAt(C0 + 1) - P0);
  unsigned __int128 Ps = (unsigned __int128)Ns * 1000;
  if (Ps <= P0)
    return C0;
  return C0 + uint64_t((Ps - P0 + Per - 1) / Per);
}

std::unique_ptr<Msp430Board> makeMsp430Board(const std::string &Mcu, msp430::Chip &Chip) {
  if (Mcu == "msp430f1611")
    return std::make_unique<TelosBBoard>(Chip);
  if (Mcu == "msp430f2617")
    return std::make_unique<Z1Board>(Chip);
  return nullptr;
}

} // namespace sim
} // namespace wsn
