//===- Z1Board.cpp - the Zolertia Z1 mote around its msp430f2617 ----------===//
#include "Z1Board.h"

namespace wsn {
namespace sim {

Z1Board::Z1Board(msp430::Chip &C) : Msp430RadioBoard(C, Pins) {
  // The radio's SPI bus is USCI_B0: UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3.
  attachSpi(Chip.usciB(SpiUsci));
}

} // namespace sim
} // namespace wsn
