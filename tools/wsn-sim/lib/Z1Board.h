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
// Time as on the TelosB: the CC2420 counts nanoseconds, mapped from MCLK
// cycles by the Basic Clock module.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_Z1BOARD_H
#define WSN_SIM_Z1BOARD_H

#include "CC2420.h"
#include "Chip.h"
#include "Msp430Board.h"

#include <memory>

namespace wsn {
namespace sim {

class Z1Board : public Msp430Board {
public:
  /// Port and bit of each wire (spec/z1.md).
  struct PinRef {
    unsigned Port, Bit;
  };
  static constexpr PinRef Led[3] = {{5, 4}, {5, 6}, {5, 5}};
  static constexpr PinRef UserButton = {2, 5};
  static constexpr PinRef Fifop = {1, 2}, Fifo = {1, 3}, Cca = {1, 4}, Sfd = {4, 1};
  static constexpr PinRef Csn = {3, 0}, VregEn = {4, 5}, ResetN = {4, 6};
  static constexpr unsigned SpiUsci = 0;    ///< USCI_B0: UCB0SIMO P3.1, UCB0SOMI P3.2, UCB0CLK P3.3
  static constexpr unsigned SerialUsci = 0; ///< USCI_A0: UCA0TXD P3.4, UCA0RXD P3.5
  static constexpr unsigned SfdCapture = 1; ///< Timer_B channel 1, input CCI1A

  /// Wires Chip (an msp430f2617) to a new CC2420, the LEDs and the button. Call
  /// before the chip is powered on; the board stays valid as long as Chip.
  explicit Z1Board(msp430::Chip &Chip);
  ~Z1Board() override;

  uint8_t leds() const override { return Leds; }
  const std::vector<LedChange> &ledHistory() const override { return LedHistory; }
  /// Led0 red, Led1 green, Led2 yellow (TinyOS's z1 hardware.h).
  const char *ledNames() const override { return "RGY"; }
  devices::CC2420 &radio() override { return *Radio; }
  const devices::CC2420 &radio() const override { return *Radio; }
  bool radioUsed() const override { return RadioUsed; }
  bool radioPowered() const override { return VregOn; }
  const SpiStats &spiStats() const override { return Spi; }
  /// The CC2420's outputs: FIFOP, FIFO, CCA, SFD.
  bool drivesPin(unsigned Port, unsigned Bit) const override;

  uint64_t nsAt(uint64_t Cycle) const { return mclkNsAt(Chip, Cycle); }
  uint64_t cycleAt(uint64_t Ns) const { return mclkCycleAt(Chip, Ns); }

private:
  /// Brings the CC2420 up to the core's time and wakes the core at the radio's
  /// next pin edge (a device with no registers).
  class RadioWake : public msp430::Peripheral {
  public:
    explicit RadioWake(Z1Board &B) : B(B) {}
    uint16_t read(uint32_t, bool) override { return 0; }
    void write(uint32_t, uint16_t, bool) override {}
    void advanceTo(uint64_t Cycle) override;
    uint64_t nextEvent() const override;

  private:
    Z1Board &B;
  };

  void onPorts(unsigned Port, uint8_t Out, uint8_t Dir);
  void drivePin(devices::CC2420::Pin P, bool Level, uint64_t Ns);
  uint8_t spiByte(uint8_t Mosi);

  msp430::Chip &Chip;
  std::unique_ptr<devices::CC2420> Radio;
  RadioWake Wake{*this};
  uint8_t Leds = 0;
  std::vector<LedChange> LedHistory;
  bool CsnHigh = false, VregOn = false, ResetHigh = false, RadioUsed = false;
  SpiStats Spi;
};

} // namespace sim
} // namespace wsn

#endif
