// Usart.h - USART0/USART1 of the MSP430x1xx (msp430f1611) in UART mode (SLAU049 chapter 13) and
// in SPI master mode (chapter 14): UxCTL, UxTCTL, UxRCTL, UxMCTL, UxBR0/1, UxRXBUF, UxTXBUF; the
// module enables (ME1/ME2: UTXEx and URXEx in UART mode, USPIEx in SPI mode, the same bit as
// URXEx) and the flags URXIFGx, UTXIFGx (IFG1/IFG2) with their enables (IE1/IE2). UxCTL's SYNC
// bit selects the mode.
//
// Timing is counted in ticks of BRCLK (UCLKI, ACLK or SMCLK per SSELx), so a transfer stalls
// while its clock is stopped (a low-power mode) and follows clock changes.
// - SPI: a byte takes 8 bit clocks of BRCLK / UxBR (UxBR >= 2). At its end the bus device
//   (setDevice) receives the byte and returns the byte it shifted out, which lands in UxRXBUF.
// - UART: a character is a start bit, 7 or 8 data bits (CHAR), a parity bit (PENA) and 1 or 2
//   stop bits (SPB); bit i of a frame lasts UxBR + m(i mod 8) BRCLK periods, m being UxMCTL's
//   bits from the LSB (§13.2.5; UxBR >= 3). Transmitted characters go to the host
//   (onTransmit) when their frame ends; the host's characters (receive) arrive one frame time
//   after the line is free, in UxRXBUF with URXIFGx (OE when URXIFGx was still set, §13.2.3).
//
// Not modelled: slave SPI, external UCLKI, LISTEN, the multiprocessor modes (idle-line and
// address-bit: TXWAKE/RXWAKE/URXWIE), break, framing and parity errors (the host's stream has
// none), URXSE start-edge detection.
#ifndef WSN_MSP430_USART_H
#define WSN_MSP430_USART_H

#include "SerialShift.h"
#include "Sfr.h"

namespace wsn::msp430 {

class Cpu;

class Usart : public SerialShift {
public:
  /// Unit 0 (0x70-0x77, ME1/IE1/IFG1 bits 6-7, vectors 0xFFF2 RX / 0xFFF0 TX on the F1611) or
  /// unit 1 (0x78-0x7F, ME2/IE2/IFG2 bits 4-5, vectors 0xFFE6 / 0xFFE4).
  Usart(Cpu &C, SpecialFunctionRegisters &Sfr, unsigned Unit, const ClockSource &Aclk,
        const ClockSource &Smclk);
  void map();
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  // SerialShift: setDevice (SPI mode), onTransmit and receive (UART mode). The host waits
  // while the receiver is off (URXEx clear or SWRST set), as a PC waits for the mote to
  // listen; a character on the line when the receiver is switched off is lost.

private:
  uint32_t base() const { return Unit == 0 ? 0x70 : 0x78; }
  uint8_t rxFlag() const { return Unit == 0 ? 0x40 : 0x10; }
  uint8_t txFlag() const { return Unit == 0 ? 0x80 : 0x20; }
  unsigned flagReg() const { return Unit == 0 ? IFG1 : IFG2; }
  unsigned enableReg() const { return Unit == 0 ? IE1 : IE2; }
  unsigned moduleReg() const { return Unit == 0 ? ME1 : ME2; }
  // ME bits: UTXEx is the TX flag's position, URXEx/USPIEx the RX flag's.
  bool spi() const;
  bool txEnabled() const;
  bool rxEnabled() const;
  const ClockSource *brclk() const override;
  /// BRCLK ticks one frame (UART) or one byte (SPI) takes with the current settings.
  uint64_t frameTicks() const;
  void startTransmit(uint64_t StartTick);
  void startReceive(uint64_t StartTick) override;
  void finishTransmit() override;
  void finishReceive() override;
  void deliver(uint8_t Byte) override;
  void updateLines();

  SpecialFunctionRegisters &Sfr;
  unsigned Unit;
  const ClockSource &Aclk, &Smclk;
  unsigned RxSlot, TxSlot;
  uint8_t Ctl = 0x01, Tctl = 0x01, Rctl = 0, Mctl = 0, Br0 = 0, Br1 = 0, RxBuf = 0, TxBuf = 0;
};

/// The SPI-only model's name until the boards say Usart.
using UsartSpi = Usart;

} // namespace wsn::msp430

#endif
