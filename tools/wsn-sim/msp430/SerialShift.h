// SerialShift.h - the byte shifting the MSP430's serial modules share: the x1xx USART
// (Usart.h, SLAU049 chapters 13-14) and the x2xx USCI (Usci.h, SLAU144 chapters 15-16).
//
// A transfer is counted in ticks of the module's BRCLK, so it stalls while its clock is
// stopped and follows clock changes. The transmit shift register holds one byte (SPI) or
// character (UART) from its start tick to its done tick; at its end the SPI bus device
// (setDevice) gets the byte and returns the one it shifted out, or the UART host (onTransmit)
// hears the character. The UART receiver takes the host's characters (receive) one frame at a
// time. What a module's registers make of this (its frame length, flags, enables, which
// conditions start a transfer) is the module's: it says when a transfer starts (shiftOut,
// shiftIn) and what to do at its end (finishTransmit, finishReceive, deliver).
#ifndef WSN_MSP430_SERIALSHIFT_H
#define WSN_MSP430_SERIALSHIFT_H

#include "Peripheral.h"

#include <deque>
#include <functional>

namespace wsn::msp430 {

class Cpu;

class SerialShift : public Peripheral {
public:
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override;

  /// SPI master: the slave gets each byte sent (MOSI) and returns the byte it shifts out
  /// (MISO). Inside the call nextEvent() is the MCLK cycle at which the byte ended.
  void setDevice(std::function<uint8_t(uint8_t)> Exchange) { Device = std::move(Exchange); }
  /// UART: called with each character sent and the MCLK cycle at which its stop bit ends.
  void onTransmit(std::function<void(uint8_t, uint64_t)> Fn) { Host = std::move(Fn); }
  /// UART: the host sends a character (queued; each takes one frame time at the current baud
  /// rate, counted from now or from the end of the one before). When the module's receiver
  /// cannot take it yet, the host waits (startReceive says).
  void receive(uint8_t Byte);
  /// Characters the host sent that have not arrived yet.
  size_t pendingReceive() const { return RxQueue.size() + (RxBusy ? 1 : 0); }

protected:
  explicit SerialShift(Cpu &C) : C(C) {}

  /// The bit clock the module's registers select, or null (an external clock: nothing moves).
  virtual const ClockSource *brclk() const = 0;
  /// Starts the host's next character at StartTick if the receiver can take it (shiftIn).
  virtual void startReceive(uint64_t StartTick) = 0;
  /// The end of the byte in the transmit shift register (shiftEnded, then the module's flags).
  virtual void finishTransmit() = 0;
  /// The end of the character on the receive line.
  virtual void finishReceive() = 0;

  /// Byte goes into the transmit shift register at StartTick for Ticks ticks of Clk.
  void shiftOut(uint8_t Byte, const ClockSource *Clk, uint64_t StartTick, uint64_t Ticks);
  /// The host's next character goes on the receive line at StartTick for Ticks ticks of Clk.
  void shiftIn(const ClockSource *Clk, uint64_t StartTick, uint64_t Ticks);
  /// Starts the next of the host's characters now if none is on the line and the module's
  /// registers select a bit clock (startReceive decides whether the receiver takes it).
  void startWaitingReceive();
  /// The received byte lands in the module's receive buffer (with its flags).
  virtual void deliver(uint8_t Byte) = 0;
  /// The transmitted byte Out has ended: in SPI mode (Sync) the device's answer (0xFF, an
  /// idle line, without one) is delivered, in UART mode the host hears Out. TxBusy is still
  /// set, so that nextEvent() is the byte's end during the calls.
  void shiftEnded(uint8_t Out, bool Sync);

  Cpu &C;
  bool TxFull = false, TxBusy = false, RxBusy = false;
  uint8_t Shift = 0, RxShift = 0;
  const ClockSource *TxClock = nullptr, *RxClock = nullptr;
  uint64_t TxDoneTick = 0, RxDoneTick = 0, Now = 0;
  std::deque<uint8_t> RxQueue;

private:
  std::function<uint8_t(uint8_t)> Device;
  std::function<void(uint8_t, uint64_t)> Host;
};

} // namespace wsn::msp430

#endif
