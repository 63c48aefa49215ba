// Multiplier.h - the 16x16 hardware multiplier (SLAU049 chapter 7, SLAU144 chapter 7):
// MPY 0x130, MPYS 0x132, MAC 0x134, MACS 0x136 (operand 1, and the mode), OP2 0x138
// (writing it starts the operation), RESLO 0x13A, RESHI 0x13C, SUMEXT 0x13E.
#ifndef WSN_MSP430_MULTIPLIER_H
#define WSN_MSP430_MULTIPLIER_H

#include "Peripheral.h"

namespace wsn::msp430 {

class Multiplier : public Peripheral {
public:
  static constexpr uint32_t Base = 0x130, Last = 0x13F;
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  /// The multiplier's registers are not affected by PUC (their reset value is unchanged);
  /// nothing to do.
  void reset() override {}

private:
  uint32_t Mode = 0x130; ///< address of the last operand-1 register written
  uint16_t Op1 = 0, Op2 = 0, ResLo = 0, ResHi = 0, SumExt = 0;
};

} // namespace wsn::msp430

#endif
