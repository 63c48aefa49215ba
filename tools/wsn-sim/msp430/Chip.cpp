// Chip.cpp - module addresses from the F1611 and F2617 datasheets' peripheral file maps.
#include "Chip.h"

namespace wsn::msp430 {

Chip::Chip(const McuInfo &Mcu, uint8_t MemoryFill, const ClockParts &Parts)
    : Core(std::make_unique<Cpu>(Mcu, MemoryFill)) {
  Sfrs = std::make_unique<SpecialFunctionRegisters>(*Core);
  Clock = std::make_unique<BasicClock>(*Core, Parts);
  Core->mapPeripheral(BasicClock::Base, BasicClock::Last, Clock.get());
  if (Mcu.BasicClockPlus)
    Clock->writeDcoCalibration(); // the factory constants in information memory
  Core->setClockBitsHook([](void *Ctx, uint16_t Sr, uint64_t Cycle) {
    static_cast<BasicClock *>(Ctx)->setStatusBits(Sr, Cycle);
  }, Clock.get());
  const ClockSource &Smclk = Clock->smclk(), &Aclk = Clock->aclk();
  // The WDT vector is at 0xFFF4 on both families.
  Wdt = std::make_unique<Watchdog>(*Core, *Sfrs, Smclk, Aclk, (0xFFF4 - Mcu.VectorBase) / 2);
  Flash = std::make_unique<FlashController>(*Core, *Sfrs);
  Mpy = std::make_unique<Multiplier>();
  Core->mapPeripheral(0x0000, Mcu.Cpux ? 0x0007 : 0x0005, Sfrs.get()); // UC1IE/UC1IFG on F2617
  Core->mapPeripheral(Watchdog::Address, Watchdog::Address + 1, Wdt.get());
  Core->mapPeripheral(FlashController::Base, FlashController::Last, Flash.get());
  Core->mapPeripheral(Multiplier::Base, Multiplier::Last, Mpy.get());
  TimerA = std::make_unique<Timer>(*Core, timerA3Layout(Mcu.VectorBase), Aclk, Smclk);
  TimerB = std::make_unique<Timer>(*Core, timerB7Layout(Mcu.VectorBase), Aclk, Smclk);
  TimerA->map();
  TimerB->map();
  Io = std::make_unique<Ports>(*Core);
  Io->map();
  Adc = std::make_unique<Adc12>(*Core, Aclk, Smclk, [this] { return Clock->mclkHz(); });
  Adc->map();
  for (unsigned U = 0; U < 2; ++U) {
    if (!Mcu.Cpux) {
      Usarts[U] = std::make_unique<Usart>(*Core, *Sfrs, U, Aclk, Smclk);
      Usarts[U]->map();
    } else {
      UsciA[U] = std::make_unique<Usci>(*Core, *Sfrs, Usci::A, U, Aclk, Smclk);
      UsciB[U] = std::make_unique<Usci>(*Core, *Sfrs, Usci::B, U, Aclk, Smclk);
      UsciA[U]->map();
      UsciB[U]->map();
    }
  }
}

void Chip::powerOn() {
  Sfrs->powerOnReset();
  Core->powerOn();
}

} // namespace wsn::msp430
