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
// Time: the CC2420 counts nanoseconds; the board maps MCLK cycles to them with
// the Basic Clock module (the DCO as the firmware configured it). A radio
// event at ns T is handled at the first MCLK cycle whose time reaches T.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_TELOSBBOARD_H
#define WSN_SIM_TELOSBBOARD_H

#include "CC2420.h"
#include "Chip.h"
#include "Msp430Board.h"

#include <memory>

namespace wsn {
namespace sim {

class TelosBBoard : public Msp430Board {
public:
  /// Port and bit of each wire (spec/telosb.md).
  struct PinRef {
    unsigned Port, Bit;
  };
  static constexpr PinRef Led[3] = {{5, 4}, {5, 5}, {5, 6}};
  static constexpr PinRef UserButton = {2, 7};
  static constexpr PinRef Fifop = {1, 0}, Fifo = {1, 3}, Cca = {1, 4}, Sfd = {4, 1};
  static constexpr PinRef Csn = {4, 2}, VregEn = {4, 5}, ResetN = {4, 6};
  static constexpr unsigned SpiUsart = 0;  ///< USART0: SIMO0 P3.1, SOMI0 P3.2, UCLK0 P3.3
  static constexpr unsigned SfdCapture = 1; ///< Timer_B channel 1, input CCI1A

  /// Wires Chip (an msp430f1611) to a new CC2420 and the LEDs. Call before the
  /// chip is powered on; the board stays valid as long as Chip.
  explicit TelosBBoard(msp430::Chip &Chip);
  ~TelosBBoard() override;

  uint8_t leds() const override { return Leds; }
  const std::vector<LedChange> &ledHistory() const override { return LedHistory; }
  /// Led0 red, Led1 green, Led2 blue.
  const char *ledNames() const override { return "RGB"; }
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
  /// Brings the CC2420 up to the core's time and wakes the core at the
  /// radio's next pin edge (a device with no registers).
  class RadioWake : public msp430::Peripheral {
  public:
    explicit RadioWake(TelosBBoard &B) : B(B) {}
    uint16_t read(uint32_t, bool) override { return 0; }
    void write(uint32_t, uint16_t, bool) override {}
    void advanceTo(uint64_t Cycle) override;
    uint64_t nextEvent() const override;

  private:
    TelosBBoard &B;
  };

  void onPorts(unsigned Port, uint8_t Out, uint8_t Dir);
  void drivePin(devices::CC2420::Pin P, bool Level);
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
