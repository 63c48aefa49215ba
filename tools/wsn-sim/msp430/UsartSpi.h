// UsartSpi.h - USART0/USART1 in SPI master mode (SLAU049 chapter 14): UxCTL, UxTCTL, UxRCTL,
// UxMCTL, UxBR0/1, UxRXBUF, UxTXBUF; the module enable USPIEx (ME1/ME2) and the flags URXIFGx,
// UTXIFGx (IFG1/IFG2) with their enables (IE1/IE2).
//
// A transfer starts when UxTXBUF is written (the shift register empty) and takes 8 bit clocks
// of BRCLK / UxBR (UxBR >= 2); at its end the device on the bus (setDevice) receives the byte
// and returns the byte shifted in, which lands in UxRXBUF with URXIFGx. UTXIFGx is set when
// UxTXBUF moves into the shift register; TXEPT when both are empty. Not modelled: UART mode,
// slave mode, 7-bit characters, LISTEN, clock phase/polarity (they do not change the bytes).
#ifndef WSN_MSP430_USARTSPI_H
#define WSN_MSP430_USARTSPI_H

#include "Peripheral.h"
#include "Sfr.h"

#include <functional>

namespace wsn::msp430 {

class Cpu;

class UsartSpi : public Peripheral {
public:
  /// Unit 0 (0x70-0x77, ME1/IE1/IFG1 bits 6-7, vectors 0xFFF2 RX / 0xFFF0 TX on the F1611) or
  /// unit 1 (0x78-0x7F, ME2/IE2/IFG2 bits 4-5, vectors 0xFFE6 / 0xFFE4).
  UsartSpi(Cpu &C, SpecialFunctionRegisters &Sfr, unsigned Unit, const ClockSource &Aclk,
           const ClockSource &Smclk);
  void map();
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override { return Busy ? DoneAt : kNever; }

  /// The SPI slave: gets each byte sent (MOSI) and returns the byte it shifts out (MISO).
  void setDevice(std::function<uint8_t(uint8_t)> Exchange) { Device = std::move(Exchange); }

private:
  uint32_t base() const { return Unit == 0 ? 0x70 : 0x78; }
  uint8_t rxFlag() const { return Unit == 0 ? 0x40 : 0x10; }
  uint8_t txFlag() const { return Unit == 0 ? 0x80 : 0x20; }
  unsigned flagReg() const { return Unit == 0 ? IFG1 : IFG2; }
  unsigned enableReg() const { return Unit == 0 ? IE1 : IE2; }
  unsigned moduleReg() const { return Unit == 0 ? ME1 : ME2; }
  uint8_t moduleBit() const { return Unit == 0 ? 0x40 : 0x10; } // USPIE0 / USPIE1
  const ClockSource *brclk() const;
  void startTransfer();
  void updateLines();

  Cpu &C;
  SpecialFunctionRegisters &Sfr;
  unsigned Unit;
  const ClockSource &Aclk, &Smclk;
  unsigned RxSlot, TxSlot;
  uint8_t Ctl = 0x01, Tctl = 0x01, Rctl = 0, Mctl = 0, Br0 = 0, Br1 = 0, RxBuf = 0, TxBuf = 0;
  bool TxFull = false, Busy = false;
  uint8_t Shift = 0;
  uint64_t DoneAt = kNever, Now = 0;
  std::function<uint8_t(uint8_t)> Device;
};

} // namespace wsn::msp430

#endif
