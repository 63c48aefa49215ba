// Usci.h - the Universal Serial Communication Interface of the MSP430x2xx (msp430f2617):
// USCI_Ax in UART mode (SLAU144 chapter 15) and SPI mode (chapter 16), USCI_Bx in SPI mode.
// I2C mode (chapter 17: USCI_Bx with UCMODEx = 11 and UCSYNC) is not modelled: selecting it
// stops the core with a message naming the module.
//
// Registers at base + 0..7: UCxCTL0, UCxCTL1, UCxBR0, UCxBR1, UCAxMCTL (UCBxI2CIE on B),
// UCxSTAT, UCxRXBUF, UCxTXBUF. USCI_A0/B0 keep their enables and flags in IE2/IFG2 (UCA0RXIE
// bit 0, UCA0TXIE bit 1, UCB0RXIE bit 2, UCB0TXIE bit 3), USCI_A1/B1 in UC1IE/UC1IFG (0x06,
// 0x07) with the same bits. A0 and B0 share the USCIAB0RX (0xFFEE) and USCIAB0TX (0xFFEC)
// vectors, A1 and B1 USCIAB1RX (0xFFE2) and USCIAB1TX (0xFFE0); the flags are not reset by
// the interrupt (reading UCxRXBUF resets UCxRXIFG, writing UCxTXBUF resets UCxTXIFG).
//
// Timing is counted in ticks of BRCLK (UCSSELx: ACLK or SMCLK; UCLK, external, holds the
// transfer), so a transfer stalls while its clock is stopped.
// - SPI master: 8 (or 7, UC7BIT) bit clocks of BRCLK / UCBRx (UCBRx = 0 counts as 1); at the
//   end the bus device (setDevice) gets the byte and returns the byte shifted in.
// - UART: start, 7/8 data, parity, 1/2 stop bits; bit i lasts UCBRx + m(i) BRCLK periods with
//   m from Table 15-2 (UCBRSx), or with UCOS16 (16 + m(i)) * UCBRx + UCBRFx periods (§15.3.11).
//
// Not modelled: SPI slave mode and STE, UART multiprocessor modes (UCMODEx 01, 10 count as
// 00), automatic baud-rate detection, IrDA, break and receive errors (the host's stream has
// none), UCLISTEN.
#ifndef WSN_MSP430_USCI_H
#define WSN_MSP430_USCI_H

#include "SerialShift.h"
#include "Sfr.h"

namespace wsn::msp430 {

class Cpu;

class Usci : public SerialShift {
public:
  enum Kind { A, B };
  /// Unit 0 (A0 at 0x60, B0 at 0x68) or unit 1 (A1 at 0xD0, B1 at 0xD8) of kind K.
  Usci(Cpu &C, SpecialFunctionRegisters &Sfr, Kind K, unsigned Unit, const ClockSource &Aclk,
       const ClockSource &Smclk);
  void map();
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  // SerialShift: setDevice (SPI master), onTransmit and receive (UART, USCI_A). The host
  // waits while UCSWRST is set.

private:
  uint32_t base() const;
  uint8_t rxBit() const { return K == A ? 0x01 : 0x04; }
  uint8_t txBit() const { return K == A ? 0x02 : 0x08; }
  uint8_t flag() const;                 ///< IFG2 or UC1IFG
  void setFlags(uint8_t Set, uint8_t Clear);
  void clearEnables(uint8_t Bits);
  bool sync() const { return Ctl0 & 0x01; }
  bool i2c() const { return sync() && ((Ctl0 >> 1) & 3) == 3; }
  bool held() const { return Ctl1 & 0x01; } ///< UCSWRST
  const ClockSource *brclk() const override;
  uint64_t frameTicks() const;
  void startTransmit(uint64_t StartTick);
  void startReceive(uint64_t StartTick) override;
  void finishTransmit() override;
  void finishReceive() override;
  void deliver(uint8_t Byte) override;
  void updateBusy();
  void updateLines();

  SpecialFunctionRegisters &Sfr;
  Kind K;
  unsigned Unit;
  const ClockSource &Aclk, &Smclk;
  unsigned RxSlot, TxSlot;
  unsigned IeReg, IfgReg; ///< SFR indices: IE2/IFG2 (unit 0) or UC1IE/UC1IFG (unit 1)
  uint8_t Ctl0 = 0, Ctl1 = 0x01, Br0 = 0, Br1 = 0, Mctl = 0, Stat = 0, RxBuf = 0, TxBuf = 0;
};

} // namespace wsn::msp430

#endif
