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

#include "Peripheral.h"
#include "Sfr.h"

#include <deque>
#include <functional>

namespace wsn::msp430 {

class Cpu;

class Usart : public Peripheral {
public:
  /// Unit 0 (0x70-0x77, ME1/IE1/IFG1 bits 6-7, vectors 0xFFF2 RX / 0xFFF0 TX on the F1611) or
  /// unit 1 (0x78-0x7F, ME2/IE2/IFG2 bits 4-5, vectors 0xFFE6 / 0xFFE4).
  Usart(Cpu &C, SpecialFunctionRegisters &Sfr, unsigned Unit, const ClockSource &Aclk,
        const ClockSource &Smclk);
  void map();
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override;

  /// SPI mode: the slave gets each byte sent (MOSI) and returns the byte it shifts out (MISO).
  /// Inside the call nextEvent() is the MCLK cycle at which the byte ended.
  void setDevice(std::function<uint8_t(uint8_t)> Exchange) { Device = std::move(Exchange); }
  /// UART mode: called with each character sent and the MCLK cycle at which its stop bit ends.
  void onTransmit(std::function<void(uint8_t, uint64_t)> Fn) { Host = std::move(Fn); }
  /// UART mode: the host sends a character (queued; each takes one frame time at the
  /// current baud rate, counted from now or from the end of the one before). The host waits
  /// while the receiver is off (URXEx clear or SWRST set), as a PC waits for the mote to
  /// listen; a character on the line when the receiver is switched off is lost.
  void receive(uint8_t Byte);
  /// Characters the host sent that have not arrived yet.
  size_t pendingReceive() const { return RxQueue.size() + (RxBusy ? 1 : 0); }

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
  const ClockSource *brclk() const;
  /// BRCLK ticks one frame (UART) or one byte (SPI) takes with the current settings.
  uint64_t frameTicks() const;
  void startTransmit(uint64_t StartTick);
  void startReceive(uint64_t StartTick);
  void finishTransmit();
  void finishReceive();
  void deliver(uint8_t Byte);
  void updateLines();

  Cpu &C;
  SpecialFunctionRegisters &Sfr;
  unsigned Unit;
  const ClockSource &Aclk, &Smclk;
  unsigned RxSlot, TxSlot;
  uint8_t Ctl = 0x01, Tctl = 0x01, Rctl = 0, Mctl = 0, Br0 = 0, Br1 = 0, RxBuf = 0, TxBuf = 0;
  bool TxFull = false;
  // The character in the transmit shift register, and the BRCLK tick at which it ends.
  bool TxBusy = false;
  uint8_t Shift = 0;
  const ClockSource *TxClock = nullptr;
  uint64_t TxDoneTick = 0;
  // UART receive: the host's characters, the one on the line and its end.
  std::deque<uint8_t> RxQueue;
  bool RxBusy = false;
  uint8_t RxShift = 0;
  const ClockSource *RxClock = nullptr;
  uint64_t RxDoneTick = 0;
  uint64_t Now = 0;
  std::function<uint8_t(uint8_t)> Device;
  std::function<void(uint8_t, uint64_t)> Host;
};

/// The SPI-only model's name until the boards say Usart.
using UsartSpi = Usart;

} // namespace wsn::msp430

#endif
