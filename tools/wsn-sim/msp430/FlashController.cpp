// FlashController.cpp - FCTL1-3 register values (SLAU144 §7.4 register descriptions).
#include "FlashController.h"

#include "Cpu.h"

namespace wsn::msp430 {

namespace {
constexpr uint8_t KEYV = 0x20, ACCVIFG = 0x04;
}

void FlashController::reset() {
  // Reset values: FCTL1 9600h, FCTL2 9642h (MCLK, divider 3), FCTL3 9618h (LOCK, WAIT);
  // the F2xx FCTL3 also has LOCKA set: 9658h. KEYV is reset by POR only.
  uint8_t Keyv = Fctl[2] & KEYV;
  Fctl[0] = 0x00;
  Fctl[1] = 0x42;
  Fctl[2] = uint8_t((C.mcu().VectorBase == 0xFFC0 ? 0x58 : 0x18) | Keyv);
  Sfr.setAccessViolation(false);
}

uint16_t FlashController::read(uint32_t Addr, bool IsByte) {
  unsigned I = ((Addr & ~1u) - Base) / 2;
  if (I > 2)
    return 0;
  uint16_t W = uint16_t(0x9600 | Fctl[I]);
  if (IsByte)
    return (Addr & 1) ? 0x96 : Fctl[I];
  return W;
}

void FlashController::write(uint32_t Addr, uint16_t Value, bool IsByte) {
  unsigned I = ((Addr & ~1u) - Base) / 2;
  if (IsByte || (Value >> 8) != 0xA5) {
    Fctl[2] |= KEYV; // §7.4 FCTL3.KEYV: "flash security key violation", PUC
    C.requestPuc();
    return;
  }
  if (I > 2)
    return;
  uint8_t V = uint8_t(Value);
  if (I == 2)
    V = uint8_t((V & ~0x01) | (Fctl[2] & 0x01)); // BUSY is read-only
  Fctl[I] = V;
  if (I == 2)
    Sfr.setAccessViolation(V & ACCVIFG);
}

} // namespace wsn::msp430
