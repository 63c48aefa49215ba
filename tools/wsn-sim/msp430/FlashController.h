// FlashController.h - the flash memory controller's registers FCTL1 0x0128, FCTL2 0x012A,
// FCTL3 0x012C (SLAU049 §5.4, SLAU144 §7.4): read as 096h in the upper byte; writes need
// the password 0A5h, anything else sets KEYV and causes a PUC. The registers are modelled as
// values only: no segment erase or word programming yet.
#ifndef WSN_MSP430_FLASHCONTROLLER_H
#define WSN_MSP430_FLASHCONTROLLER_H

#include "Peripheral.h"
#include "Sfr.h"

namespace wsn::msp430 {

class Cpu;

class FlashController : public Peripheral {
public:
  static constexpr uint32_t Base = 0x128, Last = 0x12D;
  FlashController(Cpu &C, SpecialFunctionRegisters &Sfr) : C(C), Sfr(Sfr) {}
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  void reset() override;

private:
  Cpu &C;
  SpecialFunctionRegisters &Sfr;
  uint8_t Fctl[3] = {};
};

} // namespace wsn::msp430

#endif
