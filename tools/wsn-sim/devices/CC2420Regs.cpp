//===- CC2420Regs.cpp - reset values and the output power table -----------===//
#include "CC2420Regs.h"

#include <array>
#include <cstddef>

namespace wsn {
namespace devices {
namespace cc2420 {

namespace {
// SWRS041B, "Configuration Registers": address 0x10 .. 0x30. The test
// registers (0x23-0x2B, 0x2D-0x2F) have no function in the model; their
// values are kept so that reads return what the chip returns after reset.
constexpr std::array<uint16_t, LastReg - FirstReg + 1> ResetValues = {
    0xF800, // 0x10 MAIN
    0x0AE2, // 0x11 MDMCTRL0
    0x0000, // 0x12 MDMCTRL1
    0xE080, // 0x13 RSSI (CCA_THR -32, RSSI_VAL -128)
    0xA70F, // 0x14 SYNCWORD
    0xA0FF, // 0x15 TXCTRL
    0x12E5, // 0x16 RXCTRL0
    0x0A56, // 0x17 RXCTRL1
    0x4165, // 0x18 FSCTRL (FREQ 357: 2405 MHz, channel 11)
    0x0384, // 0x19 SECCTRL0
    0x0000, // 0x1A SECCTRL1
    0x0000, // 0x1B BATTMON
    0x0040, // 0x1C IOCFG0 (FIFOP_THR 64)
    0x0000, // 0x1D IOCFG1
    0x233D, // 0x1E MANFIDL
    0x3000, // 0x1F MANFIDH
    0x7A94, // 0x20 FSMTC
    0xFFFF, // 0x21 MANAND
    0x0000, // 0x22 MANOR
    0x07F3, // 0x23 AGCCTRL
    0x3283, // 0x24 AGCTST0
    0x0E4A, // 0x25 AGCTST1
    0x000E, // 0x26 AGCTST2
    0x01A0, // 0x27 FSTST0
    0x1500, // 0x28 FSTST1
    0x0640, // 0x29 FSTST2
    0x347B, // 0x2A FSTST3
    0x003F, // 0x2B RXBPFTST
    0x0000, // 0x2C FSMSTATE
    0x0000, // 0x2D ADCTST
    0x0000, // 0x2E DACTST
    0x0010, // 0x2F TOPTST
    0x0000, // 0x30 RESERVED
};

struct PaPoint {
  unsigned Level;
  double Dbm;
};
// SWRS041B, "Output Power Programming": the output power table.
constexpr PaPoint PaTable[] = {{3, -25}, {7, -15}, {11, -10}, {15, -7},
                               {19, -5}, {23, -3}, {27, -1},  {31, 0}};
} // namespace

uint16_t resetValue(uint8_t Reg) {
  if (Reg < FirstReg || Reg > LastReg)
    return 0;
  return ResetValues[Reg - FirstReg];
}

bool isReadOnly(uint8_t Reg) { return Reg == MANFIDL || Reg == MANFIDH || Reg == FSMSTATE; }

double paLevelDbm(unsigned PaLevel) {
  PaLevel &= TxCtrlPaLevelMask;
  if (PaLevel <= PaTable[0].Level)
    return PaTable[0].Dbm;
  for (size_t I = 1; I < sizeof(PaTable) / sizeof(PaTable[0]); ++I) {
    const PaPoint &Lo = PaTable[I - 1], &Hi = PaTable[I];
    if (PaLevel <= Hi.Level)
      return Lo.Dbm + (Hi.Dbm - Lo.Dbm) * double(PaLevel - Lo.Level) / double(Hi.Level - Lo.Level);
  }
  return 0;
}

} // namespace cc2420
} // namespace devices
} // namespace wsn
