// Sfr.h - the special function registers IE1, IE2, IFG1, IFG2, ME1, ME2 (0x0000-0x0005, and
// UC1IE/UC1IFG at 0x0006-0x0007 where a part has them;
// SLAU049 §2.4 / SLAU144 §1.6 "Special Function Registers"). Several modules keep their
// enable and flag bits here; they read and set them through this object and are told about
// CPU writes with a change callback.
#ifndef WSN_MSP430_SFR_H
#define WSN_MSP430_SFR_H

#include "Peripheral.h"

#include <functional>
#include <vector>

namespace wsn::msp430 {

class Cpu;

enum : uint8_t {
  IE1 = 0x00, IE2 = 0x01, IFG1 = 0x02, IFG2 = 0x03, ME1 = 0x04, ME2 = 0x05,
  // MSP430x2xx parts with two USCI units: USCI_A1/B1 enables and flags (SLAU144 §15.4,
  // §16.4; msp430f2617 at 0x0006/0x0007). The Chip maps them on those parts only.
  UC1IE = 0x06, UC1IFG = 0x07,
};
// IE1 / IFG1 bits shared by the F1xx and F2xx parts.
enum : uint8_t {
  WDTIE = 0x01, OFIE = 0x02, NMIIE = 0x10, ACCVIE = 0x20,
  WDTIFG = 0x01, OFIFG = 0x02, NMIIFG = 0x10,
};

class SpecialFunctionRegisters : public Peripheral {
public:
  explicit SpecialFunctionRegisters(Cpu &C);
  uint16_t read(uint32_t Addr, bool IsByte) override;
  void write(uint32_t Addr, uint16_t Value, bool IsByte) override;
  /// PUC: enables and module enables cleared; WDTIFG survives (it is reset by POR only) and
  /// OFIFG is set (the oscillator fault flag starts set after PUC).
  void reset() override;
  /// Power-on reset: every flag cleared first.
  void powerOnReset() { Regs[IFG1] = 0; }

  uint8_t get(unsigned Reg) const { return Regs[Reg]; }
  void set(unsigned Reg, uint8_t Bits) { Regs[Reg] |= Bits; changed(); }
  void clear(unsigned Reg, uint8_t Bits) { Regs[Reg] &= uint8_t(~Bits); changed(); }
  void onChange(std::function<void()> Fn) { Listeners.push_back(std::move(Fn)); }
  /// ACCVIFG lives in FCTL3 but requests the NMI like the SFR sources: the flash
  /// controller reports it here.
  void setAccessViolation(bool V) { AccessViolation = V; changed(); }

private:
  void changed();
  static void acknowledgeNmi(void *Ctx, unsigned Slot);
  Cpu &C;
  uint8_t Regs[8] = {};
  bool AccessViolation = false;
  std::vector<std::function<void()>> Listeners;
};

} // namespace wsn::msp430

#endif
