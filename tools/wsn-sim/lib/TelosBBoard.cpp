//===- TelosBBoard.cpp - the TelosB mote around its msp430f1611 -----------===//
#include "TelosBBoard.h"

namespace wsn {
namespace sim {

TelosBBoard::TelosBBoard(msp430::Chip &C) : Msp430RadioBoard(C, Pins) {
  // The radio's SPI bus is USART0: SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3.
  attachSpi(Chip.usart(SpiUsart));
}

} // namespace sim
} // namespace wsn
