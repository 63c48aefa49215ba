// Watchdog.h - the watchdog timer WDT (SLAU049 chapter 10, SLAU144 chapter 10): WDTCTL at
// 0x0120, password 0x5A on writes (0x69 on reads), watchdog or interval-timer mode, SMCLK or
// ACLK, intervals of 32768/8192/512/64 clocks; expiry in watchdog mode and any write with a
// wrong password cause a PUC and set WDTIFG.
#ifndef WSN_MSP430_WATCHDOG_H
#define WSN_MSP430_WATCHDOG_H

#include "Peripheral.h"
#include "Sfr.h"

namespace wsn::msp430 {

class Cpu;

class Watchdog : public Peripheral {
public:
  static constexpr uint32_t Address = 0x120;
  /// Slot is the WDT vector's slot (0xFFF4: slot 10 on F1xx, 26 on F2617).
  Watchdog(Cpu &C, SpecialFunctionRegisters &Sfr, const ClockSource &Smclk,
           const ClockSource &Aclk, unsigned Slot);
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override; ///< PUC: WDTCTL = 0x6900 (watchdog mode, SMCLK, /32768, running)
  void advanceTo(uint64_t Cycle) override;
  uint64_t nextEvent() const override;

  uint8_t control() const { return Ctl; }
  /// Counter value (clocks since the last clear) at the last advanceTo.
  uint32_t counter() const;

private:
  const ClockSource &clock() const { return (Ctl & 0x04) ? Aclk : Smclk; }
  uint32_t interval() const;
  void restart(uint32_t Count); ///< the counter holds Count at the current time
  void updateLine();
  static void acknowledge(void *Ctx, unsigned Slot);

  Cpu &C;
  SpecialFunctionRegisters &Sfr;
  const ClockSource &Smclk, &Aclk;
  unsigned Slot;
  uint8_t Ctl = 0;
  uint64_t Now = 0;       ///< MCLK cycle of the last advanceTo
  uint64_t BaseTick = 0;  ///< clock tick at which the counter held BaseCount
  uint32_t BaseCount = 0;
};

} // namespace wsn::msp430

#endif
