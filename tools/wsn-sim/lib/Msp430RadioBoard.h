//===- Msp430RadioBoard.h - an MSP430 mote with a CC2420, LEDs, a button --===//
//
// What the TelosB (TelosBBoard) and the Z1 (Z1Board) have in common: three
// LEDs that sink into their pins (lit when the pin is an output driven low),
// a user button that reads high when released, and a CC2420 on an SPI port of
// the MCU with CSn, VREG_EN and RESETn driven by the MCU and FIFOP, FIFO, CCA
// and SFD driven by the radio (SFD also a Timer_B capture input). Where each
// wire lands is the board's Wiring; which serial module carries the SPI bus
// the board says when it attaches it (attachSpi).
//
// Time: the CC2420 counts nanoseconds; the board maps MCLK cycles to them with
// the Basic Clock module (the DCO as the firmware configured it). A radio
// event at ns T is handled at the first MCLK cycle whose time reaches T.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_MSP430RADIOBOARD_H
#define WSN_SIM_MSP430RADIOBOARD_H

#include "CC2420.h"
#include "Chip.h"
#include "Msp430Board.h"

#include <memory>

namespace wsn {
namespace sim {

class Msp430RadioBoard : public Msp430Board {
public:
  /// Port (1..6) and bit of a wire.
  struct PinRef {
    unsigned Port, Bit;
  };
  /// Where the board's parts are wired (spec/telosb.md, spec/z1.md).
  struct Wiring {
    PinRef Led[3];        ///< Led0, Led1, Led2
    const char *LedNames; ///< their colours, one letter each
    PinRef UserButton;
    PinRef Fifop, Fifo, Cca, Sfd; ///< CC2420 outputs
    PinRef Csn, VregEn, ResetN;   ///< CC2420 inputs
    unsigned SfdCapture;          ///< the Timer_B channel SFD drives (input CCIxA)
  };

  ~Msp430RadioBoard() override;

  uint8_t leds() const override { return Leds; }
  const std::vector<LedChange> &ledHistory() const override { return LedHistory; }
  const char *ledNames() const override { return W.LedNames; }
  devices::CC2420 &radio() override { return *Radio; }
  const devices::CC2420 &radio() const override { return *Radio; }
  bool radioUsed() const override { return RadioUsed; }
  bool radioPowered() const override { return VregOn; }
  const SpiStats &spiStats() const override { return Spi; }
  /// The CC2420's outputs: FIFOP, FIFO, CCA, SFD.
  bool drivesPin(unsigned Port, unsigned Bit) const override;

  uint64_t nsAt(uint64_t Cycle) const { return mclkNsAt(Chip, Cycle); }
  uint64_t cycleAt(uint64_t Ns) const { return mclkCycleAt(Chip, Ns); }

protected:
  /// Wires Chip to a new CC2420, the LEDs and the button as W says. Call before the chip is
  /// powered on; the board stays valid as long as Chip.
  Msp430RadioBoard(msp430::Chip &Chip, const Wiring &W);

  /// Makes Port (the chip's USART or USCI module that carries the radio's SPI bus; null when
  /// the part has none) exchange its bytes with the CC2420.
  template <class SerialPort> void attachSpi(SerialPort *Port) {
    if (!Port)
      return;
    Port->setDevice([this](uint8_t Mosi) { return spiByte(Mosi); });
    SpiPort = Port;
  }

  msp430::Chip &Chip;

private:
  /// Brings the CC2420 up to the core's time and wakes the core at the
  /// radio's next pin edge (a device with no registers).
  class RadioWake : public msp430::Peripheral {
  public:
    explicit RadioWake(Msp430RadioBoard &B) : B(B) {}
    uint16_t read(uint32_t, bool) override { return 0; }
    void write(uint32_t, uint16_t, bool) override {}
    void advanceTo(uint64_t Cycle) override;
    uint64_t nextEvent() const override;

  private:
    Msp430RadioBoard &B;
  };

  void onPorts(unsigned Port, uint8_t Out, uint8_t Dir);
  void drivePin(devices::CC2420::Pin P, bool Level, uint64_t Ns);
  uint8_t spiByte(uint8_t Mosi);

  const Wiring &W;
  msp430::Peripheral *SpiPort = nullptr;
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
