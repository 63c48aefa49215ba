//===- Z1Board.h - the Zolertia Z1 mote around its msp430f2617 ------------===//
//
// The board file: what is soldered to which pin of the msp430f2617, as
// TinyOS's z1 platform wires it (spec/z1.md has the table, with the platform
// file each row comes from):
//   - the three LEDs on port 5 (PlatformLedsC: Led0 = P5.4 red, Led1 = P5.6
//     green, Led2 = P5.5 yellow in hardware.h; lit when the pin drives low);
//   - the user button on P2.5 (HplUserButtonC; high when released);
//   - the CC2420 (HplCC2420PinsC, HplCC2420InterruptsC, HplCC2420SpiC): SPI
//     over USCI_B0 (UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3), CSn P3.0,
//     VREG_EN P4.5, RESETn P4.6 from the MCU; FIFOP P1.2, FIFO P1.3, CCA P1.4
//     and SFD P4.1 (Timer_B capture input CCI1A) to the MCU;
//   - the serial port (PlatformSerialC: USCI_A0, UCA0TXD P3.4, UCA0RXD P3.5);
//   - the 32768 Hz watch crystal on LFXT1 (ACLK).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_Z1BOARD_H
#define WSN_SIM_Z1BOARD_H

#include "Msp430RadioBoard.h"

namespace wsn {
namespace sim {

class Z1Board : public Msp430RadioBoard {
public:
  /// Port and bit of each wire (spec/z1.md).
  static constexpr Wiring Pins = {
      // Led0 red, Led1 green, Led2 yellow (TinyOS's z1 hardware.h)
      /*Led=*/{{5, 4}, {5, 6}, {5, 5}}, /*LedNames=*/"RGY",
      /*UserButton=*/{2, 5},
      /*Fifop=*/{1, 2}, /*Fifo=*/{1, 3}, /*Cca=*/{1, 4}, /*Sfd=*/{4, 1},
      /*Csn=*/{3, 0}, /*VregEn=*/{4, 5}, /*ResetN=*/{4, 6},
      /*SfdCapture=*/1, // Timer_B channel 1, input CCI1A
  };
  static constexpr unsigned SpiUsci = 0;    ///< USCI_B0: UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3
  static constexpr unsigned SerialUsci = 0; ///< USCI_A0: UCA0TXD P3.4, UCA0RXD P3.5

  /// Wires Chip (an msp430f2617) to a new CC2420, the LEDs and the button. Call
  /// before the chip is powered on; the board stays valid as long as Chip.
  explicit Z1Board(msp430::Chip &Chip);
};

} // namespace sim
} // namespace wsn

#endif
