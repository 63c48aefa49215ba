// Rig.h - a chip with hand-encoded instruction words at 0x4000 (the encodings are those of
// SLAU144 §3.4 "Instruction Set"; comments give the assembly).
#ifndef WSN_MSP430_TEST_RIG_H
#define WSN_MSP430_TEST_RIG_H

#include "Chip.h"

#include <initializer_list>

namespace wsn::msp430::test {

struct Rig {
  explicit Rig(const char *Part = "msp430f1611", const ClockParts &P = {})
      : Mcu(*lookupMcu(Part)), Parts(P) {}
  McuInfo Mcu;
  ClockParts Parts;
  Chip Dev{Mcu, 0xFF, Parts};
  Cpu &C = Dev.cpu();
  uint32_t At = 0x4000;

  void code(std::initializer_list<uint16_t> Words) {
    for (uint16_t W : Words) {
      C.memory()[At] = uint8_t(W);
      C.memory()[At + 1] = uint8_t(W >> 8);
      At += 2;
    }
  }
  void word(uint32_t A, uint16_t W) {
    C.memory()[A] = uint8_t(W);
    C.memory()[A + 1] = uint8_t(W >> 8);
  }
  uint16_t word(uint32_t A) const { return uint16_t(C.memory()[A] | C.memory()[A + 1] << 8); }
  /// Reset vector -> 0x4000, power on, stack at the top of RAM.
  void start() {
    word(0xFFFE, 0x4000);
    Dev.powerOn();
    C.setReg(SP, 0x3900);
  }
  /// Cycles of the next step.
  uint64_t stepCycles() {
    uint64_t Before = C.cycles();
    C.step();
    return C.cycles() - Before;
  }
};

} // namespace wsn::msp430::test

#endif
