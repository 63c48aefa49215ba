//===- TelosBBoard.h - the TelosB mote around its msp430f1611 -------------===//
//
// The board file: what is soldered to which pin of the msp430f1611, as
// TinyOS's telosb platform wires it (spec/telosb.md has the table, with the
// platform file each row comes from):
//   - the three LEDs on port 5 (PlatformLedsC: Led0 = P5.4 red, Led1 = P5.5
//     green, Led2 = P5.6 blue; lit when the pin drives low);
//   - the user button on P2.7 (high when released);
//   - the CC2420 (HplCC2420PinsC, HplCC2420InterruptsC, HplCC2420SpiC): SPI
//     over USART0 (SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3), CSn P4.2, VREG_EN
//     P4.5, RESETn P4.6 from the MCU; FIFOP P1.0, FIFO P1.3, CCA P1.4 and SFD
//     P4.1 (also Timer_B capture input CCI1A) to the MCU;
//   - the 32768 Hz watch crystal on LFXT1 (ACLK), which the Chip's Basic Clock
//     module already assumes.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_TELOSBBOARD_H
#define WSN_SIM_TELOSBBOARD_H

#include "Msp430RadioBoard.h"

namespace wsn {
namespace sim {

class TelosBBoard : public Msp430RadioBoard {
public:
  /// Port and bit of each wire (spec/telosb.md).
  static constexpr Wiring Pins = {
      /*Led=*/{{5, 4}, {5, 5}, {5, 6}}, /*LedNames=*/"RGB", // Led0 red, Led1 green, Led2 blue
      /*UserButton=*/{2, 7},
      /*Fifop=*/{1, 0}, /*Fifo=*/{1, 3}, /*Cca=*/{1, 4}, /*Sfd=*/{4, 1},
      /*Csn=*/{4, 2}, /*VregEn=*/{4, 5}, /*ResetN=*/{4, 6},
      /*SfdCapture=*/1, // Timer_B channel 1, input CCI1A
  };
  static constexpr unsigned SpiUsart = 0; ///< USART0: SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3

  /// Wires Chip (an msp430f1611) to a new CC2420, the LEDs and the button. Call
  /// before the chip is powered on; the board stays valid as long as Chip.
  explicit TelosBBoard(msp430::Chip &Chip);
};

} // namespace sim
} // namespace wsn

#endif
