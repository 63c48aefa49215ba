// Mcu.cpp - memory maps from the msp430f1611 (SLAS368) and msp430f2617 (SLAS541) datasheets.
#include "Mcu.h"

#include "absl/strings/str_format.h"

namespace wsn::msp430 {

absl::StatusOr<McuInfo> lookupMcu(absl::string_view Name) {
  McuInfo M;
  M.Name = std::string(Name);
  if (Name == "msp430f1611") {
    // SLAS368 memory organisation: 10 KB RAM 0x1100-0x38FF, its first 2 KB mirrored at
    // 0x0200-0x09FF; 48 KB flash 0x4000-0xFFFF; vectors 0xFFE0-0xFFFF.
    M.AddressSpace = 0x10000;
    M.PeripheralEnd = 0x200;
    M.VectorBase = 0xFFE0;
    M.RamStart = 0x1100;
    M.RamEnd = 0x3900;
    M.MirrorStart = 0x200;
    M.MirrorEnd = 0xA00;
    M.FlashStart = 0x4000;
    M.FlashEnd = 0x10000;
    return M;
  }
  if (Name == "msp430f2617") {
    // SLAS541 memory organisation: 8 KB RAM 0x1100-0x30FF (first 2 KB mirrored at
    // 0x0200-0x09FF), 92 KB flash 0x3100-0x1FFFF, vectors 0xFFC0-0xFFFF, MSP430X CPU.
    M.Cpux = true;
    M.RrcSetsOverflow = false; // the MSP430X CPU's RRC: "V: reset" (SLAU144 chapter 4)
    M.BasicClockPlus = true;
    M.AddressSpace = 0x100000;
    M.PeripheralEnd = 0x200;
    M.VectorBase = 0xFFC0;
    M.RamStart = 0x1100;
    M.RamEnd = 0x3100;
    M.MirrorStart = 0x200;
    M.MirrorEnd = 0xA00;
    M.FlashStart = 0x3100;
    M.FlashEnd = 0x20000;
    return M;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown MSP430 part '%s' (known: msp430f1611, msp430f2617)", Name));
}

} // namespace wsn::msp430
