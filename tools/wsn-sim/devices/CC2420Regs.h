//===- CC2420Regs.h - CC2420 command strobes, registers, RAM map ----------===//
//
// Addresses, reset values and bit fields of the Chipcon/TI CC2420 as its data
// sheet (SWRS041B) lists them: the command strobes and configuration
// registers ("Configuration Registers"), the RAM map (Table 6, "RAM access")
// and the status byte (Table 5, "Status byte"). spec/cc2420.md has the same
// table with the model's behaviour for each entry.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_DEVICES_CC2420REGS_H
#define WSN_DEVICES_CC2420REGS_H

#include <cstdint>

namespace wsn {
namespace devices {
namespace cc2420 {

// --- The first SPI byte ("4-wire Serial Configuration and Data Interface"): bit 7 selects RAM, bit
// 6 a register read; addresses 0x00-0x0E are command strobes, 0x10-0x30 16-bit registers, 0x3E/0x3F
// the FIFOs.
constexpr uint8_t RamBit = 0x80;
constexpr uint8_t ReadBit = 0x40;
constexpr uint8_t AddrMask = 0x3F;
// RAM access second byte: bits 7:6 the bank (address bits 8:7), bit 5 set for
// read-only access.
constexpr uint8_t RamReadBit = 0x20;

enum Strobe : uint8_t {
  SNOP = 0x00,
  SXOSCON = 0x01,
  STXCAL = 0x02,
  SRXON = 0x03,
  STXON = 0x04,
  STXONCCA = 0x05,
  SRFOFF = 0x06,
  SXOSCOFF = 0x07,
  SFLUSHRX = 0x08,
  SFLUSHTX = 0x09,
  SACK = 0x0A,
  SACKPEND = 0x0B,
  SRXDEC = 0x0C,
  STXENC = 0x0D,
  SAES = 0x0E,
};

enum Reg : uint8_t {
  MAIN = 0x10,
  MDMCTRL0 = 0x11,
  MDMCTRL1 = 0x12,
  RSSI = 0x13,
  SYNCWORD = 0x14,
  TXCTRL = 0x15,
  RXCTRL0 = 0x16,
  RXCTRL1 = 0x17,
  FSCTRL = 0x18,
  SECCTRL0 = 0x19,
  SECCTRL1 = 0x1A,
  BATTMON = 0x1B,
  IOCFG0 = 0x1C,
  IOCFG1 = 0x1D,
  MANFIDL = 0x1E,
  MANFIDH = 0x1F,
  FSMTC = 0x20,
  MANAND = 0x21,
  MANOR = 0x22,
  AGCCTRL = 0x23,
  AGCTST0 = 0x24,
  AGCTST1 = 0x25,
  AGCTST2 = 0x26,
  FSTST0 = 0x27,
  FSTST1 = 0x28,
  FSTST2 = 0x29,
  FSTST3 = 0x2A,
  RXBPFTST = 0x2B,
  FSMSTATE = 0x2C,
  ADCTST = 0x2D,
  DACTST = 0x2E,
  TOPTST = 0x2F,
  RESERVED = 0x30,
  TXFIFO = 0x3E,
  RXFIFO = 0x3F,
};
constexpr uint8_t FirstReg = MAIN;
constexpr uint8_t LastReg = RESERVED;

/// Reset value of a configuration register (section 29), indexed by
/// address - FirstReg.
uint16_t resetValue(uint8_t Reg);
/// Registers the data sheet marks read-only (writes are ignored).
bool isReadOnly(uint8_t Reg);

// --- Status byte (Table 5).
constexpr uint8_t StRssiValid = 1u << 1;
constexpr uint8_t StLock = 1u << 2;
constexpr uint8_t StTxActive = 1u << 3;
constexpr uint8_t StEncBusy = 1u << 4;
constexpr uint8_t StTxUnderflow = 1u << 5;
constexpr uint8_t StXosc16mStable = 1u << 6;

// --- MDMCTRL0 fields.
constexpr uint16_t Mdm0PanCoordinator = 1u << 12;
constexpr uint16_t Mdm0AdrDecode = 1u << 11;
constexpr unsigned Mdm0CcaHystShift = 8; // 3 bits
constexpr unsigned Mdm0CcaModeShift = 6; // 2 bits
constexpr uint16_t Mdm0AutoCrc = 1u << 5;
constexpr uint16_t Mdm0AutoAck = 1u << 4;
constexpr uint16_t Mdm0PreambleMask = 0xF; // leading zero bytes - 1
constexpr uint16_t Mdm0ReservedFrameMode = 1u << 13;

// --- TXCTRL / FSCTRL / RSSI / IOCFG fields.
constexpr uint16_t TxCtrlTurnaround = 1u << 13; // 1: 12 symbols, 0: 8 symbols
constexpr uint16_t TxCtrlPaLevelMask = 0x1F;
constexpr uint16_t FsCtrlFreqMask = 0x3FF; // Fc = 2048 + FREQ MHz
constexpr uint16_t Iocfg0BcnAccept = 1u << 11;
constexpr uint16_t Iocfg0FifoPolarity = 1u << 10;
constexpr uint16_t Iocfg0FifopPolarity = 1u << 9;
constexpr uint16_t Iocfg0SfdPolarity = 1u << 8;
constexpr uint16_t Iocfg0CcaPolarity = 1u << 7;
constexpr uint16_t Iocfg0FifopThrMask = 0x7F;
constexpr unsigned Iocfg1SfdMuxShift = 5; // 5 bits
constexpr uint16_t Iocfg1CcaMuxMask = 0x1F;
/// IOCFG1.CCAMUX value that routes XOSC16M_STABLE to the CCA pin (TinyOS waits
/// for the oscillator this way).
constexpr uint16_t CcaMuxXosc16mStable = 24;
/// RSSI register offset: P [dBm] = RSSI_VAL + RssiOffsetDb ("RSSI / Energy Detection").
constexpr int RssiOffsetDb = -45;

// --- RAM map (Table 6): 368 bytes in banks of 128 (TXFIFO, RXFIFO, security).
constexpr uint16_t RamSize = 0x170;
constexpr uint16_t RamTxFifo = 0x000; // 128 bytes
constexpr uint16_t RamRxFifo = 0x080; // 128 bytes
constexpr uint16_t RamKey0 = 0x100;
constexpr uint16_t RamRxNonce = 0x110;
constexpr uint16_t RamSaBuf = 0x120;
constexpr uint16_t RamKey1 = 0x130;
constexpr uint16_t RamTxNonce = 0x140;
constexpr uint16_t RamCbcState = 0x150;
constexpr uint16_t RamIeeeAdr = 0x160;  // 8 bytes, little-endian
constexpr uint16_t RamPanId = 0x168;    // 2 bytes, little-endian
constexpr uint16_t RamShortAdr = 0x16A; // 2 bytes, little-endian
constexpr unsigned FifoBytes = 128;

/// Output power (dBm) for TXCTRL.PA_LEVEL, from the data sheet's output
/// power table ("Output Power Programming"): 31 -> 0, 27 -> -1, 23 -> -3, 19 -> -5,
/// 15 -> -7, 11 -> -10, 7 -> -15, 3 -> -25; other settings interpolate
/// linearly between neighbouring entries (0..2 extrapolate -25 dBm flat).
double paLevelDbm(unsigned PaLevel);

} // namespace cc2420
} // namespace devices
} // namespace wsn

#endif
