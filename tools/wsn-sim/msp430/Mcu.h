// Mcu.h - the facts about one MSP430 part the core needs: memory map, vector table, CPU kind.
#ifndef WSN_MSP430_MCU_H
#define WSN_MSP430_MCU_H

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include <cstdint>
#include <string>

namespace wsn::msp430 {

struct McuInfo {
  std::string Name;
  bool Cpux = false;             ///< MSP430X CPU (20-bit addresses, extended instructions)
  uint32_t AddressSpace = 0;     ///< 0x10000, or 0x100000 on CPUX parts
  uint32_t PeripheralEnd = 0;    ///< SFRs and peripherals live below this address
  uint32_t VectorBase = 0;       ///< lowest vector address; the table ends at 0xFFFF
  uint32_t RamStart = 0, RamEnd = 0;         ///< [start, end)
  uint32_t MirrorStart = 0, MirrorEnd = 0;   ///< RAM alias of [RamStart, ...) (F1611: 0x200-0x9FF)
  uint32_t InfoStart = 0x1000, InfoEnd = 0x1100;
  uint32_t FlashStart = 0, FlashEnd = 0;     ///< main flash incl. vectors
  /// RRC's V flag: SLAU049 B-51 and SLAU144 §3.4.6.33 (F1xx/F2xx) define "V: set if the initial
  /// destination is positive and the initial carry is set"; the CPUX guides say "V: reset".
  bool RrcSetsOverflow = true;
  /// The MSP430x2xx Basic Clock Module+ (SLAU144 chapter 5: RSEL 0-15, BCSCTL3, DCO
  /// calibration constants in information memory) instead of SLAU049 chapter 4's.
  bool BasicClockPlus = false;

  unsigned vectorSlots() const { return (0x10000 - VectorBase) / 2; }
  unsigned resetSlot() const { return vectorSlots() - 1; }
  unsigned nmiSlot() const { return vectorSlots() - 2; }
};

/// msp430f1611 (TelosB) and msp430f2617 (Z1); an error names the known parts.
absl::StatusOr<McuInfo> lookupMcu(absl::string_view Name);

} // namespace wsn::msp430

#endif
