// Chip.h - an MSP430 part with the modules every program touches: the CPU and memory, the
// special function registers, the watchdog, the flash controller's registers, the hardware
// multiplier, the Basic Clock module, Timer_A3, Timer_B7, ports P1-P6, ADC12, and USART0/1
// (F1611) or USCI A0/A1/B0/B1 (F2617). Boards add the rest (the radio on the SPI bus, sensors) through
// Cpu::mapPeripheral and Cpu::irq.
#ifndef WSN_MSP430_CHIP_H
#define WSN_MSP430_CHIP_H

#include "Adc12.h"
#include "BasicClock.h"
#include "Cpu.h"
#include "FlashController.h"
#include "Multiplier.h"
#include "Ports.h"
#include "Sfr.h"
#include "Timer.h"
#include "Usart.h"
#include "Usci.h"
#include "Watchdog.h"

#include <memory>

namespace wsn::msp430 {

class Chip {
public:
  /// SMCLK and ACLK for the timers and the watchdog come from the Basic Clock module, whose
  /// DCO and LFXT1 are the part Parts describes (the typical one by default).
  explicit Chip(const McuInfo &Mcu, uint8_t MemoryFill = 0xFF, const ClockParts &Parts = {});
  Cpu &cpu() { return *Core; }
  SpecialFunctionRegisters &sfr() { return *Sfrs; }
  Watchdog &watchdog() { return *Wdt; }
  Multiplier &multiplier() { return *Mpy; }
  Timer &timerA() { return *TimerA; }
  Timer &timerB() { return *TimerB; }
  Ports &ports() { return *Io; }
  BasicClock &clock() { return *Clock; }
  /// USART0/1 in UART or SPI master mode (msp430f1611 only; the F2617 has USCI modules).
  Usart *usart(unsigned Unit) { return Unit < 2 ? Usarts[Unit].get() : nullptr; }
  /// USCI_A0/A1 (UART, SPI) and USCI_B0/B1 (SPI) on the msp430f2617; null on the F1611.
  Usci *usciA(unsigned Unit) { return Unit < 2 ? UsciA[Unit].get() : nullptr; }
  Usci *usciB(unsigned Unit) { return Unit < 2 ? UsciB[Unit].get() : nullptr; }
  Adc12 &adc() { return *Adc; }
  /// Power on: registers 0, every module at its reset value, PC from 0xFFFE.
  void powerOn();

private:
  std::unique_ptr<Cpu> Core;
  std::unique_ptr<BasicClock> Clock;
  std::unique_ptr<SpecialFunctionRegisters> Sfrs;
  std::unique_ptr<Watchdog> Wdt;
  std::unique_ptr<FlashController> Flash;
  std::unique_ptr<Multiplier> Mpy;
  std::unique_ptr<Timer> TimerA, TimerB;
  std::unique_ptr<Ports> Io;
  std::unique_ptr<Usart> Usarts[2];
  std::unique_ptr<Usci> UsciA[2], UsciB[2];
  std::unique_ptr<Adc12> Adc;
};

} // namespace wsn::msp430

#endif
