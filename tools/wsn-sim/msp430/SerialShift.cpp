// SerialShift.cpp - the transmit and receive shift registers of the MSP430 serial modules
// (SLAU049 §13.2/§14.2, SLAU144 §15.3/§16.3), timed in BRCLK ticks.
#include "SerialShift.h"

#include "Cpu.h"

#include <algorithm>

namespace wsn::msp430 {

void SerialShift::shiftOut(uint8_t Byte, const ClockSource *Clk, uint64_t StartTick,
                           uint64_t Ticks) {
  Shift = Byte;
  TxFull = false;
  TxBusy = true;
  TxClock = Clk;
  TxDoneTick = StartTick + Ticks;
}

void SerialShift::shiftIn(const ClockSource *Clk, uint64_t StartTick, uint64_t Ticks) {
  RxShift = RxQueue.front();
  RxQueue.pop_front();
  RxBusy = true;
  RxClock = Clk;
  RxDoneTick = StartTick + Ticks;
}

void SerialShift::shiftEnded(uint8_t Out, bool Sync) {
  if (Sync)
    deliver(Device ? Device(Out) : uint8_t(0xFF)); // an idle MISO/SOMI line reads 1s
  else if (Host)
    Host(Out, TxClock->cycleOfTick(TxDoneTick));
}

void SerialShift::startWaitingReceive() {
  if (!RxBusy && !RxQueue.empty())
    if (const ClockSource *Clk = brclk())
      startReceive(Clk->ticksAt(Now));
}

void SerialShift::receive(uint8_t Byte) {
  advanceTo(C.cycles());
  RxQueue.push_back(Byte);
  startWaitingReceive();
}

void SerialShift::advanceTo(uint64_t Cycle) {
  Now = std::max(Now, Cycle);
  for (;;) {
    if (TxBusy && TxClock->ticksAt(Now) >= TxDoneTick)
      finishTransmit();
    else if (RxBusy && RxClock->ticksAt(Now) >= RxDoneTick)
      finishReceive();
    else
      break;
  }
}

uint64_t SerialShift::nextEvent() const {
  uint64_t Next = kNever;
  if (TxBusy)
    Next = TxClock->cycleOfTick(TxDoneTick);
  if (RxBusy)
    Next = std::min(Next, RxClock->cycleOfTick(RxDoneTick));
  return Next;
}

} // namespace wsn::msp430
