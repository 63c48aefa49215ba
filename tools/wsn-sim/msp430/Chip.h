// Chip.h - an MSP430 part with the modules every program touches: the CPU and memory, the
// special function registers, the watchdog, the flash controller's registers, the hardware
// multiplier, Timer_A3 and Timer_B7. Boards add the rest (Basic Clock, USARTs, ports) through
// Cpu::mapPeripheral and Cpu::irq.
#ifndef WSN_MSP430_CHIP_H
#define WSN_MSP430_CHIP_H

#include "Cpu.h"
#include "FlashController.h"
#include "Multiplier.h"
#include "Sfr.h"
#include "Timer.h"
#include "Watchdog.h"

#include <memory>

namespace wsn::msp430 {

class Chip {
public:
  /// Smclk/Aclk default to SMCLK = MCLK and ACLK = 32768 Hz under a 1,048,576 Hz MCLK (the
  /// order of the DCO's frequency after PUC) until a Basic Clock model replaces them.
  explicit Chip(const McuInfo &Mcu, uint8_t MemoryFill = 0xFF);
  Cpu &cpu() { return *Core; }
  SpecialFunctionRegisters &sfr() { return *Sfrs; }
  Watchdog &watchdog() { return *Wdt; }
  Multiplier &multiplier() { return *Mpy; }
  Timer &timerA() { return *TimerA; }
  Timer &timerB() { return *TimerB; }
  /// Power on: registers 0, every module at its reset value, PC from 0xFFFE.
  void powerOn();

private:
  std::unique_ptr<Cpu> Core;
  RatioClock Smclk{1, 1}, Aclk{32768, 1048576};
  std::unique_ptr<SpecialFunctionRegisters> Sfrs;
  std::unique_ptr<Watchdog> Wdt;
  std::unique_ptr<FlashController> Flash;
  std::unique_ptr<Multiplier> Mpy;
  std::unique_ptr<Timer> TimerA, TimerB;
};

} // namespace wsn::msp430

#endif
