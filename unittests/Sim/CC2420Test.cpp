//===- CC2420Test.cpp - the CC2420 model against its data sheet -----------===//
//
// One behaviour per test; expected values come from the CC2420 data sheet
// (TI/Chipcon SWRS041B), cited by section title (and number where the data
// sheet numbers it so: 14.2 Receive mode, 17.1 Buffered transmit mode,
// 25 Clear Channel Assessment, 26 Frequency and Channel Programming).
// spec/cc2420.md is the model's contract.
//
//===----------------------------------------------------------------------===//
#include "CC2420TestUtil.h"
#include "Medium802154.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace wsn::devices;
using namespace wsn::devices::cc2420;
using wsn::devices::test::Board;
using wsn::devices::test::Us;
using Pin = CC2420::Pin;

namespace {

// --- Frames ------------------------------------------------------------------

// A data frame, intra-PAN, short addresses: FCF, sequence number, destination
// PAN and address, source address, payload (IEEE 802.15.4 MHR layout). The
// TXFIFO image: the length byte (MPDU length, FCS included) and the MPDU
// without its FCS (AUTOCRC appends it).
std::vector<uint8_t> dataFrame(uint16_t Pan, uint16_t Dst, uint16_t Src, uint8_t Seq,
                               std::vector<uint8_t> Payload, bool AckRequest = false) {
  uint16_t Fcf = 0x0001 | 0x0040 | (2u << 10) | (2u << 14);
  if (AckRequest)
    Fcf |= 0x0020;
  std::vector<uint8_t> M = {uint8_t(Fcf),      uint8_t(Fcf >> 8), Seq,
                            uint8_t(Pan),      uint8_t(Pan >> 8), uint8_t(Dst),
                            uint8_t(Dst >> 8), uint8_t(Src),      uint8_t(Src >> 8)};
  M.insert(M.end(), Payload.begin(), Payload.end());
  std::vector<uint8_t> Fifo = {uint8_t(M.size() + 2)};
  Fifo.insert(Fifo.end(), M.begin(), M.end());
  return Fifo;
}

// Two radios (node 1 and node 2) on a medium, 60 dB apart both ways, both
// listening on channel 11 with their addresses in RAM (PAN 0x0022).
struct Pair {
  Medium802154 M;
  Board A, B;
  explicit Pair(double GainDb = -60.0) {
    M.attach(1, A.R);
    M.attach(2, B.R);
    M.setLinkGain(1, 2, GainDb);
    M.setLinkGain(2, 1, GainDb);
    A.listen();
    B.listen();
    A.writeRam(RamPanId, {0x22, 0x00, 0x01, 0x00});
    B.writeRam(RamPanId, {0x22, 0x00, 0x02, 0x00});
  }
  void at(uint64_t Ns) { wsn::devices::test::runTogether({&A, &B}, Ns); }
  void after(uint64_t Ns) { at(A.T + Ns); }
  /// Node 1 loads Fifo and strobes STXON; returns the strobe time.
  uint64_t send(const std::vector<uint8_t> &Fifo) {
    A.writeTxFifo(Fifo);
    A.strobe(STXON);
    return A.T;
  }
};

// --- Power, oscillator, reset --------------------------------------------

// "Voltage Regulator": the SPI interface is dead without supply; the
// model answers 600 us after VREG_EN rises (the start-up time it uses).
TEST(CC2420Power, SpiAnswersOnlyAfterRegulatorStartup) {
  Board B;
  EXPECT_EQ(B.R.state(), CC2420::State::VregOff);
  B.R.setVregEn(true, 0);
  B.at(599999);
  B.writeReg(MDMCTRL0, 0x1234);
  EXPECT_EQ(B.R.state(), CC2420::State::VregStarting);
  B.at(600 * Us);
  EXPECT_EQ(B.R.state(), CC2420::State::PowerDown);
  EXPECT_EQ(B.readReg(MDMCTRL0), 0x0AE2); // the write before was lost
}

// "Configuration Registers": reset values of the functional registers.
TEST(CC2420Registers, ResetValues) {
  Board B;
  B.R.setVregEn(true, 0);
  B.at(600 * Us);
  EXPECT_EQ(B.readReg(MAIN), 0xF800);
  EXPECT_EQ(B.readReg(MDMCTRL0), 0x0AE2);
  EXPECT_EQ(B.readReg(MDMCTRL1), 0x0000);
  EXPECT_EQ(B.readReg(RSSI), 0xE080); // CCA_THR -32, RSSI_VAL -128 (invalid)
  EXPECT_EQ(B.readReg(SYNCWORD), 0xA70F);
  EXPECT_EQ(B.readReg(TXCTRL), 0xA0FF);
  EXPECT_EQ(B.readReg(RXCTRL0), 0x12E5);
  EXPECT_EQ(B.readReg(RXCTRL1), 0x0A56);
  EXPECT_EQ(B.readReg(FSCTRL), 0x4165);
  EXPECT_EQ(B.readReg(SECCTRL0), 0x0384);
  EXPECT_EQ(B.readReg(IOCFG0), 0x0040);
  EXPECT_EQ(B.readReg(IOCFG1), 0x0000);
  EXPECT_EQ(B.readReg(MANFIDL), 0x233D);
  EXPECT_EQ(B.readReg(MANFIDH), 0x3000);
}

TEST(CC2420Registers, WritesReadBackAndReadOnlyRegistersKeepTheirValue) {
  Board B;
  B.powerUp();
  B.writeReg(MDMCTRL0, 0x0AF2);
  B.writeReg(FSCTRL, 0x4000 | 382);
  B.writeReg(SECCTRL1, 0xBEEF);
  B.writeReg(MANFIDL, 0x0000);
  B.writeReg(MANFIDH, 0x0000);
  EXPECT_EQ(B.readReg(MDMCTRL0), 0x0AF2);
  EXPECT_EQ(B.readReg(FSCTRL), 0x4000 | 382);
  EXPECT_EQ(B.readReg(SECCTRL1), 0xBEEF);
  EXPECT_EQ(B.readReg(MANFIDL), 0x233D);
  EXPECT_EQ(B.readReg(MANFIDH), 0x3000);
}

// "Register access": several registers in one CSn-low period, each an
// address byte and two data bytes, MSB first.
TEST(CC2420Registers, SeveralRegistersInOneTransaction) {
  Board B;
  B.powerUp();
  B.R.setCsn(false, B.T);
  for (uint8_t Byte : {uint8_t(IOCFG0), uint8_t(0x00), uint8_t(0x7F), uint8_t(MDMCTRL1),
                       uint8_t(0x05), uint8_t(0x00)})
    B.R.spiExchange(Byte, B.T);
  B.R.setCsn(true, B.T);
  EXPECT_EQ(B.readReg(IOCFG0), 0x007F);
  EXPECT_EQ(B.readReg(MDMCTRL1), 0x0500);
}

// Addresses 0x31-0x3D are no registers: two data bytes are taken (and lost),
// so a byte written there is never mistaken for a strobe.
TEST(CC2420Registers, UndefinedAddressesTakeTwoDataBytes) {
  Board B;
  B.powerUp();
  B.R.setCsn(false, B.T);
  for (uint8_t Byte : {uint8_t(0x31), uint8_t(SXOSCOFF), uint8_t(SXOSCOFF)})
    B.R.spiExchange(Byte, B.T);
  B.R.setCsn(true, B.T);
  EXPECT_EQ(B.status() & StXosc16mStable, StXosc16mStable);
  EXPECT_EQ(B.readReg(0x31), 0);
}

// Table 5: XOSC16M_STABLE (bit 6) after SXOSCON and the oscillator start-up
// time; the model uses 860 us.
TEST(CC2420Power, OscillatorStableAfterStartupTime) {
  Board B;
  B.R.setVregEn(true, 0);
  B.at(600 * Us);
  EXPECT_EQ(B.strobe(SXOSCON) & StXosc16mStable, 0);
  B.after(859999);
  EXPECT_EQ(B.status() & StXosc16mStable, 0);
  B.after(1);
  EXPECT_EQ(B.status(), StXosc16mStable);
  EXPECT_EQ(B.R.state(), CC2420::State::Idle);
}

// IOCFG1.CCAMUX = 24 routes XOSC16M_STABLE to the CCA pin: it rises at the
// exact nanosecond the oscillator is stable (TinyOS waits on this edge).
TEST(CC2420Pins, CcaPinShowsOscillatorWithCcaMux24) {
  Board B;
  B.R.setVregEn(true, 0);
  B.at(600 * Us);
  B.writeReg(IOCFG1, CcaMuxXosc16mStable);
  B.strobe(SXOSCON);
  uint64_t T0 = B.T;
  EXPECT_FALSE(B.R.pin(Pin::Cca));
  EXPECT_EQ(B.R.nextEventNs(), T0 + 860 * Us);
  B.after(2000 * Us);
  EXPECT_EQ(B.edge(Pin::Cca, true), T0 + 860 * Us);
}

TEST(CC2420Power, SxoscoffStopsTheOscillator) {
  Board B;
  B.powerUp();
  B.strobe(SXOSCOFF);
  EXPECT_EQ(B.status() & StXosc16mStable, 0);
  EXPECT_EQ(B.R.state(), CC2420::State::PowerDown);
}

// RESETn low resets registers and state; RAM keeps its contents.
TEST(CC2420Power, ResetPinRestoresRegistersKeepsRam) {
  Board B;
  B.powerUp();
  B.writeReg(MDMCTRL0, 0x0AF2);
  B.writeRam(RamShortAdr, {0x34, 0x12});
  B.R.setResetN(false, B.T);
  EXPECT_EQ(B.R.spiExchange(0, B.T), 0); // held in reset: no answer
  B.R.setResetN(true, B.T);
  EXPECT_EQ(B.readReg(MDMCTRL0), 0x0AE2);
  EXPECT_EQ(B.status() & StXosc16mStable, 0);
  EXPECT_EQ(B.readRam(RamShortAdr, 2), (std::vector<uint8_t>{0x34, 0x12}));
}

// MAIN.RESETn = 0 is the RESETn pin in a register.
TEST(CC2420Power, MainResetBitResetsTheChip) {
  Board B;
  B.powerUp();
  B.writeReg(IOCFG0, 0x007F);
  B.writeReg(MAIN, 0x7800);
  EXPECT_EQ(B.readReg(IOCFG0), 0x0040);
  EXPECT_EQ(B.status() & StXosc16mStable, 0);
}

// VREG_EN low: "data stored in RAM will be retained during power down mode,
// but not when the power-supply is turned off".
TEST(CC2420Power, RegulatorOffLosesRam) {
  Board B;
  B.powerUp();
  B.writeRam(RamIeeeAdr, {1, 2, 3});
  B.R.setVregEn(false, B.T);
  B.powerUp();
  EXPECT_EQ(B.readRam(RamIeeeAdr, 3), (std::vector<uint8_t>{0, 0, 0}));
}

// --- Status byte and strobes ---------------------------------------------

// Table 5 with SRXON ("Radio control state machine"): 12 symbol periods of
// calibration (LOCK), then RSSI_VALID 8 symbol periods later.
TEST(CC2420Status, LockAndRssiValidAfterSrxon) {
  Board B;
  B.powerUp();
  B.strobe(SRXON);
  EXPECT_EQ(B.status(), StXosc16mStable);
  B.after(192 * Us - 1);
  EXPECT_EQ(B.status() & StLock, 0);
  B.after(1);
  EXPECT_EQ(B.status(), StXosc16mStable | StLock);
  B.after(128 * Us);
  EXPECT_EQ(B.status(), StXosc16mStable | StLock | StRssiValid);
}

TEST(CC2420Strobes, SrfoffReturnsToIdle) {
  Board B;
  B.listen();
  B.strobe(SRFOFF);
  EXPECT_EQ(B.R.state(), CC2420::State::Idle);
  EXPECT_EQ(B.status(), StXosc16mStable);
}

TEST(CC2420Strobes, StxcalLocksWithoutTransmitting) {
  Board B;
  B.powerUp();
  B.strobe(STXCAL);
  EXPECT_EQ(B.R.state(), CC2420::State::TxCalWait);
  B.after(192 * Us);
  EXPECT_EQ(B.status(), StXosc16mStable | StLock);
}

TEST(CC2420Strobes, StrobesNeedTheOscillator) {
  Board B;
  B.R.setVregEn(true, 0);
  B.at(600 * Us);
  B.strobe(SRXON);
  B.strobe(STXON);
  EXPECT_EQ(B.R.state(), CC2420::State::PowerDown);
}

// --- RAM ("RAM access", Table 6) -------------------------------------------

TEST(CC2420Ram, AddressesPanAndShortAddressReadBack) {
  Board B;
  B.powerUp();
  std::vector<uint8_t> Ieee = {1, 2, 3, 4, 5, 6, 7, 8};
  B.writeRam(RamIeeeAdr, Ieee);
  B.writeRam(RamPanId, {0x22, 0x00, 0x05, 0x00});
  EXPECT_EQ(B.readRam(RamIeeeAdr, 8), Ieee);
  EXPECT_EQ(B.R.ram(0x168), 0x22);
  EXPECT_EQ(B.R.ram(0x16A), 0x05);
  // The security bank is plain memory.
  B.writeRam(RamKey0, {0xAA, 0xBB});
  EXPECT_EQ(B.readRam(RamKey0, 2), (std::vector<uint8_t>{0xAA, 0xBB}));
}

// "For RAM write ... RAM data read is output on the SO pin simultaneously";
// read-only access (bit 5 of the second byte) leaves RAM unchanged.
TEST(CC2420Ram, WriteReturnsOldDataAndReadOnlyDoesNotWrite) {
  Board B;
  B.powerUp();
  B.writeRam(RamKey1, {0x11});
  B.R.setCsn(false, B.T);
  B.R.spiExchange(0x80 | (RamKey1 & 0x7F), B.T);
  B.R.spiExchange((RamKey1 >> 7) << 6, B.T);
  EXPECT_EQ(B.R.spiExchange(0x22, B.T), 0x11);
  B.R.setCsn(true, B.T);
  B.R.setCsn(false, B.T);
  B.R.spiExchange(0x80 | (RamKey1 & 0x7F), B.T);
  B.R.spiExchange((RamKey1 >> 7) << 6 | 0x20, B.T);
  EXPECT_EQ(B.R.spiExchange(0x33, B.T), 0x22);
  B.R.setCsn(true, B.T);
  EXPECT_EQ(B.R.ram(RamKey1), 0x22);
}

// --- FIFOs -------------------------------------------------------------------

// TXFIFO writes land at RAM 0x000 ("RAM access"), and "the TX_UNDERFLOW
// status bit ... is returned during each address byte and each byte written
// to the TXFIFO" (17.1).
TEST(CC2420Fifo, TxFifoBytesAppearInRamWithStatusPerByte) {
  Board B;
  B.powerUp();
  std::vector<uint8_t> St = B.writeTxFifo({5, 0xA1, 0xA2});
  EXPECT_EQ(St, (std::vector<uint8_t>(4, StXosc16mStable)));
  EXPECT_EQ(B.R.txFifoCount(), 3u);
  EXPECT_EQ(B.readRam(RamTxFifo, 3), (std::vector<uint8_t>{5, 0xA1, 0xA2}));
}

TEST(CC2420Fifo, SflushtxEmptiesTheTxFifo) {
  Board B;
  B.powerUp();
  B.writeTxFifo({5, 1, 2});
  B.strobe(SFLUSHTX);
  EXPECT_EQ(B.R.txFifoCount(), 0u);
}

// --- Transmit ----------------------------------------------------------------

struct Recorder {
  std::vector<AirFrame> Frames;
  CC2420::AirPort port() {
    CC2420::AirPort P;
    P.Transmit = [this](const AirFrame &F) {
      Frames.push_back(F);
      return uint64_t(Frames.size());
    };
    return P;
  }
};

// 17.1: "The preamble sequence is started 12 symbol periods after the command
// strobe"; "Frame Format": 4 preamble bytes and the SFD, then the PSDU at
// 250 kbit/s; "Transmit mode": the SFD pin is active from the end of the SFD
// field to the end of the frame.
TEST(CC2420Tx, FrameTimesAndSfdPin) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.listen();
  B.writeTxFifo(dataFrame(0x22, 2, 1, 7, {0xAB, 0xCD}));
  uint64_t T0 = B.T;
  B.strobe(STXON);
  EXPECT_TRUE(B.status() & StTxActive);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  const AirFrame &F = Rec.Frames[0];
  EXPECT_EQ(F.StartNs, T0 + 192 * Us);
  EXPECT_EQ(F.SfdNs, T0 + 352 * Us);
  // Length 13 (9 MHR + 2 payload + 2 FCS): 14 PSDU bytes of 32 us.
  EXPECT_EQ(F.EndNs, T0 + 352 * Us + 14 * 32 * Us);
  EXPECT_EQ(F.Channel, 11u);
  EXPECT_EQ(F.TxPowerDbm, 0.0);
  B.after(1000 * Us);
  EXPECT_EQ(B.edge(Pin::Sfd, true), T0 + 352 * Us);
  EXPECT_EQ(B.edge(Pin::Sfd, false), T0 + 800 * Us);
  EXPECT_EQ(B.status() & StTxActive, 0);
  EXPECT_EQ(B.R.stats().FramesSent, 1u);
}

// MDMCTRL0.PREAMBLE_LENGTH counts the leading zero bytes minus one; the
// reset value 2 is the IEEE 802.15.4 header because the fourth zero byte is
// part of the SYNCWORD ("Frame Format"). With 5: 6 zero bytes + 2 sync bytes.
TEST(CC2420Tx, PreambleLengthMovesTheSfd) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.powerUp();
  B.writeReg(MDMCTRL0, (0x0AE2 & ~Mdm0PreambleMask) | 5);
  B.writeTxFifo(dataFrame(0x22, 2, 1, 7, {}));
  uint64_t T0 = B.T;
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  EXPECT_EQ(Rec.Frames[0].SfdNs, T0 + 192 * Us + 8 * 32 * Us);
  B.after(2000 * Us);
  EXPECT_EQ(B.edge(Pin::Sfd, true), T0 + 192 * Us + 8 * 32 * Us);
}

// TXCTRL.TX_TURNAROUND = 0: 8 symbol periods instead of 12.
TEST(CC2420Tx, ShortTurnaround) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.listen();
  B.writeReg(TXCTRL, 0xA0FF & ~TxCtrlTurnaround);
  B.writeTxFifo(dataFrame(0x22, 2, 1, 7, {}));
  uint64_t T0 = B.T;
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  EXPECT_EQ(Rec.Frames[0].StartNs, T0 + 128 * Us);
}

// "Frame check sequence": with AUTOCRC the last two MPDU bytes sent are the
// CRC-16 (ITU-T, x^16+x^12+x^5+1), low byte first; without it the TXFIFO
// bytes go out as written.
TEST(CC2420Tx, AutoCrcAppendsTheFcs) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.powerUp();
  std::vector<uint8_t> Fifo = dataFrame(0x22, 2, 1, 7, {0x10});
  B.writeTxFifo(Fifo);
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  const std::vector<uint8_t> &P = Rec.Frames[0].Psdu;
  ASSERT_EQ(P.size(), Fifo.size() + 2);
  uint16_t Fcs = fcs16(Fifo.data() + 1, Fifo.size() - 1);
  EXPECT_EQ(P[P.size() - 2], uint8_t(Fcs));
  EXPECT_EQ(P[P.size() - 1], uint8_t(Fcs >> 8));
  EXPECT_TRUE(std::equal(Fifo.begin(), Fifo.end(), P.begin()));
}

TEST(CC2420Tx, WithoutAutoCrcTheFifoIsSentAsIs) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.powerUp();
  B.writeReg(MDMCTRL0, 0x0AE2 & ~Mdm0AutoCrc);
  B.writeTxFifo({4, 1, 2, 3, 4});
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  EXPECT_EQ(Rec.Frames[0].Psdu, (std::vector<uint8_t>{4, 1, 2, 3, 4}));
}

// The CRC-16 of 802.15.4 is the reflected CCITT polynomial with initial value
// 0 (CRC-16/KERMIT): check value 0x2189 for "123456789".
TEST(CC2420Tx, FcsCheckValue) {
  const char *S = "123456789";
  EXPECT_EQ(fcs16(reinterpret_cast<const uint8_t *>(S), std::strlen(S)), 0x2189);
}

// 17.1: too few bytes in the TXFIFO: the transmission stops when the first
// missing byte is due, TX_UNDERFLOW is set and only SFLUSHTX clears it.
TEST(CC2420Tx, UnderflowStopsTheFrame) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.powerUp();
  B.writeTxFifo({20, 1, 2, 3, 4, 5}); // 20 announced, 5 MPDU bytes present
  uint64_t T0 = B.T;
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 1u);
  uint64_t Stop = T0 + 352 * Us + 6 * 32 * Us; // length byte + 5 bytes sent
  EXPECT_EQ(Rec.Frames[0].EndNs, Stop);
  EXPECT_EQ(Rec.Frames[0].Psdu.size(), 6u);
  B.at(Stop - 1);
  EXPECT_EQ(B.status() & StTxUnderflow, 0);
  B.at(Stop);
  EXPECT_TRUE(B.status() & StTxUnderflow);
  EXPECT_EQ(B.edge(Pin::Sfd, false), Stop);
  B.after(1000 * Us);
  EXPECT_TRUE(B.status() & StTxUnderflow);
  B.strobe(SFLUSHTX);
  EXPECT_EQ(B.status() & StTxUnderflow, 0);
}

// 17.1: "After complete transmission of a data frame, the TXFIFO is
// automatically refilled with the last transmitted frame"; a new write
// flushes it first.
TEST(CC2420Tx, FrameIsKeptForRetransmission) {
  Board B;
  Recorder Rec;
  B.R.setAirPort(Rec.port());
  B.powerUp();
  B.writeTxFifo(dataFrame(0x22, 2, 1, 7, {9}));
  B.strobe(STXON);
  B.after(2000 * Us);
  B.strobe(STXON);
  ASSERT_EQ(Rec.Frames.size(), 2u);
  EXPECT_EQ(Rec.Frames[0].Psdu, Rec.Frames[1].Psdu);
  B.after(2000 * Us);
  B.writeTxFifo({3});
  EXPECT_EQ(B.R.txFifoCount(), 1u);
}

// Output power table ("Output Power Programming"): PA_LEVEL 31 -> 0 dBm,
// 27 -> -1, 23 -> -3, 19 -> -5, 15 -> -7, 11 -> -10, 7 -> -15, 3 -> -25.
TEST(CC2420Tx, PaLevelTable) {
  const std::pair<unsigned, double> Table[] = {{31, 0},  {27, -1},  {23, -3}, {19, -5},
                                               {15, -7}, {11, -10}, {7, -15}, {3, -25}};
  for (auto [Level, Dbm] : Table)
    EXPECT_EQ(paLevelDbm(Level), Dbm) << Level;
  Board B;
  B.powerUp();
  B.writeReg(TXCTRL, 0xA0E0 | 7);
  EXPECT_EQ(B.R.txPowerDbm(), -15.0);
}

// 26: Fc = 2048 + FREQ MHz; channel k at 2405 + 5 (k - 11) MHz.
TEST(CC2420Tx, ChannelFromFsctrl) {
  Board B;
  B.powerUp();
  EXPECT_EQ(B.R.channel(), 11u); // FREQ 357 after reset
  B.writeReg(FSCTRL, 0x4000 | (357 + 5 * (26 - 11)));
  EXPECT_EQ(B.R.channel(), 26u);
  B.writeReg(FSCTRL, 0x4000 | 358);
  EXPECT_EQ(B.R.channel(), 0u);
}

// --- Receive -----------------------------------------------------------------

// 14.2: SFD active after the SFD field, inactive after the last byte; FIFO
// active from the length byte; FIFOP at the frame's last byte when the
// threshold (64) is not reached.
TEST(CC2420Rx, SfdFifoFifopPins) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {0xAB, 0xCD}));
  P.after(1000 * Us);
  EXPECT_EQ(P.B.edge(Pin::Sfd, true), T0 + 352 * Us);
  EXPECT_EQ(P.B.edge(Pin::Fifo, true), T0 + 384 * Us);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true), T0 + 800 * Us);
  EXPECT_EQ(P.B.edge(Pin::Sfd, false), T0 + 800 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 14u);
}

// 14.2: FIFOP when the unread bytes exceed IOCFG0.FIFOP_THR.
TEST(CC2420Rx, FifopThreshold) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 & ~Mdm0AdrDecode);
  P.B.writeReg(IOCFG0, 5);
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {1, 2, 3, 4, 5, 6}));
  P.after(1000 * Us);
  // The 6th byte arrives 6 byte times after the SFD.
  EXPECT_EQ(P.B.edge(Pin::Fifop, true), T0 + 352 * Us + 6 * 32 * Us);
}

// 14.2: "When address recognition is enabled the FIFOP pin will remain
// inactive until the incoming frame passes address recognition, even if the
// number of bytes in the RXFIFO exceeds the programmed threshold": here when
// the destination address is in, 8 bytes after the SFD.
TEST(CC2420Rx, FifopWaitsForAddressRecognition) {
  Pair P;
  P.B.writeReg(IOCFG0, 5);
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {1, 2, 3, 4, 5, 6}));
  P.after(1000 * Us);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true), T0 + 352 * Us + 8 * 32 * Us);
}

// IOCFG0 polarity bits invert the pins, at once.
TEST(CC2420Rx, FifopPolarity) {
  Pair P;
  EXPECT_FALSE(P.B.R.pin(Pin::Fifop));
  P.B.writeReg(IOCFG0, 0x0040 | Iocfg0FifopPolarity);
  EXPECT_TRUE(P.B.R.pin(Pin::Fifop));
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {}));
  P.after(1000 * Us);
  EXPECT_EQ(P.B.edge(Pin::Fifop, false), T0 + 352 * Us + 12 * 32 * Us);
}

// 14.2: "If so, the FIFOP pin will go inactive once one byte has been read
// out of the RXFIFO"; FIFO stays active until the RXFIFO is empty.
TEST(CC2420Rx, FifopDropsAfterFirstReadFifoAfterLast) {
  Pair P;
  P.send(dataFrame(0x22, 2, 1, 7, {}));
  P.after(1000 * Us);
  ASSERT_TRUE(P.B.R.pin(Pin::Fifop));
  std::vector<uint8_t> Len = P.B.readRxFifo(1);
  EXPECT_EQ(Len[0], 11);
  EXPECT_FALSE(P.B.R.pin(Pin::Fifop));
  EXPECT_TRUE(P.B.R.pin(Pin::Fifo));
  P.B.readRxFifo(11);
  EXPECT_FALSE(P.B.R.pin(Pin::Fifo));
}

// "Data in RXFIFO when MDMCTRL0.AUTOCRC is set": the FCS is replaced by the
// RSSI (signed, dB above the -45 dB offset) and CRC-OK | correlation.
TEST(CC2420Rx, RssiAndCrcBytesReplaceTheFcs) {
  Pair P; // -60 dB link, 0 dBm sender: -60 dBm over a -98 dBm noise floor
  std::vector<uint8_t> Fifo = dataFrame(0x22, 2, 1, 7, {0xAB});
  P.send(Fifo);
  P.after(1000 * Us);
  std::vector<uint8_t> Got = P.B.readRxFifo(P.B.R.rxFifoCount());
  ASSERT_EQ(Got.size(), Fifo.size() + 2);
  EXPECT_TRUE(std::equal(Fifo.begin(), Fifo.end(), Got.begin()));
  EXPECT_EQ(int8_t(Got[Got.size() - 2]), -15); // -60 dBm - (-45)
  EXPECT_EQ(Got.back() & 0x80, 0x80);          // CRC OK
  EXPECT_EQ(Got.back() & 0x7F, 110);           // the best correlation
}

// "Address Recognition": a frame for another short address is flushed from
// the RXFIFO, and the SFD pin goes inactive at once (when the destination
// address has been received, 8 bytes after the SFD).
TEST(CC2420Rx, AddressRecognitionRejects) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 3, 1, 7, {1, 2}));
  P.after(1000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  EXPECT_EQ(P.B.edge(Pin::Sfd, false), T0 + 352 * Us + 8 * 32 * Us);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true), UINT64_MAX);
  EXPECT_EQ(P.B.R.stats().AddressRejected, 1u);
}

TEST(CC2420Rx, AddressRecognitionAcceptsBroadcastAndRejectsOtherPan) {
  Pair P;
  P.send(dataFrame(0x22, 0xFFFF, 1, 7, {1}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 13u);
  P.B.strobe(SFLUSHRX);
  P.send(dataFrame(0x23, 2, 1, 8, {1}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
}

// A frame that ends before the address fields its FCF announces cannot pass
// address recognition (here FCF, sequence number and FCS only).
TEST(CC2420Rx, FrameTooShortForItsAddressesIsRejected) {
  Pair P;
  P.send({5, 0x41, 0x88, 1});
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  EXPECT_EQ(P.B.R.stats().AddressRejected, 1u);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true), UINT64_MAX);
}

TEST(CC2420Rx, WithoutAddressDecodeEverythingIsReceived) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 & ~Mdm0AdrDecode);
  P.send(dataFrame(0x23, 9, 1, 7, {1}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 13u);
}

// The receiver only hears its channel (26: FSCTRL.FREQ).
TEST(CC2420Rx, OtherChannelIsNotReceived) {
  Pair P;
  P.B.writeReg(FSCTRL, 0x4000 | 362); // channel 12
  P.send(dataFrame(0x22, 2, 1, 7, {1}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  EXPECT_EQ(P.B.edge(Pin::Sfd, true), UINT64_MAX);
}

// "Acknowledge Frames": with AUTOACK an accepted frame with the ack request
// bit and a good CRC is acknowledged 12 symbol periods after its last
// symbol: length 5, FCF 0x0002, the sequence number, the FCS.
TEST(CC2420Rx, AutoAckTimingAndFormat) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 | Mdm0AutoAck);
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 0x5A, {1}, /*AckRequest=*/true));
  uint64_t End = T0 + 352 * Us + 13 * 32 * Us;
  P.at(End + 191 * Us);
  EXPECT_EQ(P.B.status() & StTxActive, StTxActive); // turnaround counts as TX
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().AcksSent, 1u);
  // The ACK's SFD reaches node 1 5 bytes after its start.
  EXPECT_EQ(P.A.edge(Pin::Sfd, true, End), End + 192 * Us + 160 * Us);
  std::vector<uint8_t> Ack = P.A.readRxFifo(P.A.R.rxFifoCount());
  ASSERT_EQ(Ack.size(), 6u);
  EXPECT_EQ(Ack[0], 5);
  EXPECT_EQ(Ack[1], 0x02);
  EXPECT_EQ(Ack[2], 0x00);
  EXPECT_EQ(Ack[3], 0x5A);
  EXPECT_EQ(Ack[5] & 0x80, 0x80); // its CRC was good
}

TEST(CC2420Rx, NoAutoAckWithoutRequest) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 | Mdm0AutoAck);
  P.send(dataFrame(0x22, 2, 1, 1, {1}));
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.stats().AcksSent, 0u);
}

// SACKPEND during reception: the acknowledgement has the frame pending bit.
TEST(CC2420Rx, SackpendSetsPendingBit) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 0x33, {1}));
  P.at(T0 + 352 * Us + 5 * 32 * Us); // mid-frame
  P.B.strobe(SACKPEND);
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.stats().AcksSent, 1u);
  std::vector<uint8_t> Ack = P.A.readRxFifo(P.A.R.rxFifoCount());
  ASSERT_EQ(Ack.size(), 6u);
  EXPECT_EQ(Ack[1], 0x12);
  EXPECT_EQ(Ack[3], 0x33);
}

// "RXFIFO overflow": FIFOP active and FIFO inactive; SFLUSHRX twice returns
// the SFD pin to idle.
TEST(CC2420Rx, OverflowAndDoubleFlush) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 & ~Mdm0AdrDecode);
  std::vector<uint8_t> Big(100, 0x55);
  P.send(dataFrame(0x22, 2, 1, 1, Big)); // 112 bytes in the RXFIFO
  P.after(5000 * Us);
  ASSERT_EQ(P.B.R.rxFifoCount(), 112u);
  P.A.writeTxFifo(dataFrame(0x22, 2, 1, 2, Big));
  uint64_t T1 = P.A.T;
  P.A.strobe(STXON);
  P.after(5000 * Us);
  EXPECT_EQ(P.B.R.stats().RxOverflows, 1u);
  EXPECT_EQ(P.B.R.state(), CC2420::State::RxOverflow);
  EXPECT_TRUE(P.B.R.pin(Pin::Fifop));
  EXPECT_FALSE(P.B.R.pin(Pin::Fifo));
  // The 17th byte of the second frame did not fit.
  EXPECT_EQ(P.B.edge(Pin::Fifo, false, T1), T1 + 352 * Us + 17 * 32 * Us);
  EXPECT_TRUE(P.B.R.pin(Pin::Sfd));
  P.B.strobe(SFLUSHRX);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  EXPECT_FALSE(P.B.R.pin(Pin::Fifop));
  EXPECT_TRUE(P.B.R.pin(Pin::Sfd));
  P.B.strobe(SFLUSHRX);
  EXPECT_FALSE(P.B.R.pin(Pin::Sfd));
}

// spec/cc2420.md section 5: SFLUSHRX abandons a frame being received (its
// bytes leave with the RXFIFO) and the receiver goes on searching for an SFD:
// the next frame is received whole (14.2: FIFOP at its last byte, its length
// byte first in the RXFIFO).
TEST(CC2420Rx, SflushrxDuringAFrameAbandonsItAndTheNextFrameIsReceived) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {1, 2, 3}));
  P.at(T0 + 352 * Us + 10 * 32 * Us); // ten bytes of the first frame are in
  ASSERT_EQ(P.B.R.state(), CC2420::State::RxFrame);
  P.B.strobe(SFLUSHRX);
  EXPECT_EQ(P.B.R.state(), CC2420::State::RxSfdSearch);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  EXPECT_FALSE(P.B.R.pin(Pin::Sfd));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().FramesReceived, 0u);
  uint64_t T1 = P.send(dataFrame(0x22, 2, 1, 8, {4, 5}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().FramesReceived, 1u);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true, T1), T1 + 352 * Us + 14 * 32 * Us);
  std::vector<uint8_t> Got = P.B.readRxFifo(4);
  EXPECT_EQ(Got[0], 13); // the length byte: 9 MHR + 2 payload + 2 FCS
  EXPECT_EQ(Got[3], 8);  // its sequence number
}

// "RXFIFO overflow" asks for SFLUSHRX twice. A frame whose SFD arrives
// between the two strobes (a driver flushes with two SPI transactions) is
// abandoned by the second, and the radio keeps receiving: the frame after it
// arrives whole. This is the netsense base station that never received
// again after its first overflow (issue 18).
TEST(CC2420Rx, FrameBetweenTheTwoFlushesOfAnOverflowDoesNotSilenceTheRadio) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 & ~Mdm0AdrDecode);
  std::vector<uint8_t> Big(100, 0x55);
  P.send(dataFrame(0x22, 2, 1, 1, Big)); // 112 bytes in the RXFIFO
  P.after(5000 * Us);
  P.send(dataFrame(0x22, 2, 1, 2, Big)); // overflows at its 17th byte
  P.after(5000 * Us);
  ASSERT_EQ(P.B.R.state(), CC2420::State::RxOverflow);
  P.B.strobe(SFLUSHRX);
  EXPECT_EQ(P.B.R.state(), CC2420::State::RxSfdSearch);
  uint64_t T2 = P.send(dataFrame(0x22, 2, 1, 3, {9, 9, 9}));
  P.at(T2 + 352 * Us + 4 * 32 * Us); // the third frame's SFD came: receiving
  ASSERT_EQ(P.B.R.state(), CC2420::State::RxFrame);
  P.B.strobe(SFLUSHRX);
  EXPECT_EQ(P.B.R.state(), CC2420::State::RxSfdSearch);
  EXPECT_FALSE(P.B.R.pin(Pin::Sfd));
  P.after(2000 * Us);
  uint64_t Before = P.B.R.stats().FramesReceived;
  uint64_t T3 = P.send(dataFrame(0x22, 2, 1, 4, {7}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().FramesReceived, Before + 1);
  EXPECT_EQ(P.B.edge(Pin::Fifop, true, T3), T3 + 352 * Us + 13 * 32 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 13u); // length byte + 12-byte MPDU
}

// --- RSSI and CCA (25) -------------------------------------------------------

// "CCA is valid when the receiver has been enabled for at least 8 symbol
// periods"; the CCA pin is active high when the channel is clear.
TEST(CC2420Cca, PinGoesHighWhenRssiValidOnAQuietChannel) {
  Board B;
  B.powerUp();
  B.strobe(SRXON);
  uint64_t T0 = B.T;
  B.after(1000 * Us);
  EXPECT_EQ(B.edge(Pin::Cca, true), T0 + 320 * Us);
}

// STXONCCA "is ignored if the channel is busy" (17.1, 25): a strong sender on
// the channel, RSSI above CCA_THR (-32 + -45 = -77 dBm).
TEST(CC2420Cca, StxonccaRefusedOnBusyChannel) {
  Pair P;
  // Node 1 transmits a long frame; node 2 hears it at -60 dBm.
  P.send(dataFrame(0x22, 9, 1, 1, std::vector<uint8_t>(60, 0)));
  P.at(P.A.T + 400 * Us);
  EXPECT_FALSE(P.B.R.pin(Pin::Cca));
  P.B.writeTxFifo(dataFrame(0x22, 1, 2, 1, {}));
  P.B.strobe(STXONCCA);
  EXPECT_EQ(P.B.status() & StTxActive, 0);
  EXPECT_EQ(P.B.R.stats().CcaRefused, 1u);
  // Once the channel is quiet again for 8 symbols, it is accepted.
  P.after(3000 * Us);
  EXPECT_TRUE(P.B.R.pin(Pin::Cca));
  P.B.strobe(STXONCCA);
  EXPECT_EQ(P.B.status() & StTxActive, StTxActive);
}

TEST(CC2420Cca, StxonccaRefusedBeforeRssiValid) {
  Board B;
  B.powerUp();
  B.strobe(SRXON);
  B.writeTxFifo(dataFrame(0x22, 1, 2, 1, {}));
  B.after(300 * Us);
  B.strobe(STXONCCA);
  EXPECT_EQ(B.status() & StTxActive, 0);
}

// The RSSI register: RSSI_VAL = P - (-45) while valid.
TEST(CC2420Cca, RssiRegisterReadsTheNoiseFloor) {
  Medium802154 M;
  Board B;
  M.attach(1, B.R);
  M.setNoise(1, -90.0, 0);
  B.listen();
  EXPECT_EQ(int8_t(B.readReg(RSSI) & 0xFF), -45);
}

// --- More strobes ------------------------------------------------------------

TEST(CC2420Strobes, SnopOnlyReturnsTheStatus) {
  Board B;
  B.listen();
  CC2420::State Before = B.R.state();
  EXPECT_EQ(B.strobe(SNOP), StXosc16mStable | StLock | StRssiValid);
  EXPECT_EQ(B.R.state(), Before);
}

TEST(CC2420Strobes, SxoscoffKeepsRegisters) {
  Board B;
  B.powerUp();
  B.writeReg(IOCFG0, 0x0011);
  B.strobe(SXOSCOFF);
  EXPECT_EQ(B.readReg(IOCFG0), 0x0011);
}

// SRFOFF during the turnaround: the frame never goes on the air; during the
// frame: the medium shortens it and the receiver gets a bad CRC.
TEST(CC2420Strobes, SrfoffCutsATransmission) {
  Pair P;
  P.send(dataFrame(0x22, 2, 1, 7, {1, 2, 3}));
  P.after(100 * Us);
  P.A.strobe(SRFOFF);
  P.after(2000 * Us);
  EXPECT_EQ(P.B.edge(Pin::Sfd, true), UINT64_MAX);
  EXPECT_EQ(P.A.R.stats().FramesSent, 0u);
  P.A.strobe(SRXON);
  P.after(400 * Us);
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 8, {1, 2, 3}));
  P.at(T0 + 352 * Us + 10 * 32 * Us);
  P.A.strobe(SRFOFF);
  P.after(2000 * Us);
  std::vector<uint8_t> Got = P.B.readRxFifo(P.B.R.rxFifoCount());
  ASSERT_EQ(Got.size(), 15u);
  EXPECT_EQ(Got.back() & 0x80, 0);
}

// SRXON restarts the receiver: a frame being received is abandoned.
TEST(CC2420Strobes, SrxonAbandonsAReception) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {1, 2, 3}));
  P.at(T0 + 352 * Us + 10 * 32 * Us);
  P.B.strobe(SRXON);
  EXPECT_FALSE(P.B.R.pin(Pin::Sfd));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().FramesReceived, 0u);
  EXPECT_FALSE(P.B.R.pin(Pin::Fifop));
}

// SACK clears the pending flag that SACKPEND set for automatic
// acknowledgements ("Acknowledge Frames").
TEST(CC2420Strobes, SackClearsThePendingFlag) {
  Pair P;
  P.B.writeReg(MDMCTRL0, 0x0AE2 | Mdm0AutoAck);
  P.B.strobe(SACKPEND);
  P.send(dataFrame(0x22, 2, 1, 1, {1}, true));
  P.after(3000 * Us);
  std::vector<uint8_t> Ack1 = P.A.readRxFifo(P.A.R.rxFifoCount());
  P.B.strobe(SACK);
  P.send(dataFrame(0x22, 2, 1, 2, {1}, true));
  P.after(3000 * Us);
  std::vector<uint8_t> Ack2 = P.A.readRxFifo(P.A.R.rxFifoCount());
  ASSERT_EQ(Ack1.size(), 6u);
  ASSERT_EQ(Ack2.size(), 6u);
  EXPECT_EQ(Ack1[1], 0x12);
  EXPECT_EQ(Ack2[1], 0x02);
  EXPECT_EQ(Ack2[3], 2);
}

// SACK after the frame (beacon-network timing): the acknowledgement starts
// 12 symbol periods after the strobe.
TEST(CC2420Strobes, SackAfterTheFrameAcknowledgesIt) {
  Pair P;
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 0x44, {1}));
  P.at(T0 + 2000 * Us);
  uint64_t S = P.B.T;
  P.B.strobe(SACK);
  P.after(2000 * Us);
  EXPECT_EQ(P.B.R.stats().AcksSent, 1u);
  EXPECT_EQ(P.A.edge(Pin::Sfd, true, S), S + 192 * Us + 160 * Us);
}

TEST(CC2420Tx, EmptyTxFifoUnderflowsAtTheSfd) {
  Board B;
  B.powerUp();
  uint64_t T0 = B.T;
  B.strobe(STXON);
  B.after(1000 * Us);
  EXPECT_TRUE(B.status() & StTxUnderflow);
  EXPECT_EQ(B.edge(Pin::Sfd, true), UINT64_MAX);
  EXPECT_EQ(B.R.stats().TxUnderflows, 1u);
  (void)T0;
}

// VREG_EN low during a transmission: the medium is told it stopped.
TEST(CC2420Power, RegulatorOffCutsATransmission) {
  Medium802154 M;
  Board A;
  M.attach(1, A.R);
  M.addNode(2, {});
  M.setLinkGain(1, 2, -60);
  A.powerUp();
  A.writeTxFifo(dataFrame(0x22, 2, 1, 7, {1, 2, 3}));
  A.strobe(STXON);
  A.after(400 * Us);
  EXPECT_LT(M.energyDbm(2, 11, A.T), -59.0);
  A.R.setVregEn(false, A.T);
  EXPECT_NEAR(M.energyDbm(2, 11, A.T), -98.0, 1e-9);
  EXPECT_FALSE(A.R.pin(Pin::Sfd));
}

// --- More address recognition ---------------------------------------------

TEST(CC2420Rx, ExtendedDestinationMustMatchIeeeAddress) {
  Pair P;
  std::vector<uint8_t> Ieee = {1, 2, 3, 4, 5, 6, 7, 8};
  P.B.writeRam(RamIeeeAdr, Ieee);
  auto Frame = [&](uint8_t Last) {
    // Data, intra-PAN, extended destination, short source.
    uint16_t Fcf = 0x0001 | 0x0040 | (3u << 10) | (2u << 14);
    std::vector<uint8_t> F = {0, uint8_t(Fcf), uint8_t(Fcf >> 8), 9, 0x22, 0x00};
    F.insert(F.end(), Ieee.begin(), Ieee.end() - 1);
    F.push_back(Last);
    F.insert(F.end(), {0x01, 0x00, 0x77});
    F[0] = uint8_t(F.size() - 1 + 2);
    return F;
  };
  P.send(Frame(9));
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  P.send(Frame(8));
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 19u);
}

// Beacons: accepted when the source PAN matches, or with IOCFG0.BCN_ACCEPT.
TEST(CC2420Rx, BeaconsNeedTheirPanOrBcnAccept) {
  Pair P;
  // Beacon: FCF type 0, no destination, short source with its PAN id.
  uint16_t Fcf = 0x0000 | (2u << 14);
  std::vector<uint8_t> Beacon = {9, uint8_t(Fcf), uint8_t(Fcf >> 8), 1, 0x55, 0x00, 0x01, 0x00};
  P.send(Beacon);
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
  P.B.writeReg(IOCFG0, 0x0040 | Iocfg0BcnAccept);
  P.send(Beacon);
  P.after(3000 * Us);
  EXPECT_EQ(P.B.R.rxFifoCount(), 10u);
}

// --- More CCA ------------------------------------------------------------------

// CCA_MODE 2: "Clear channel when not receiving valid IEEE 802.15.4 data":
// the CCA pin is inactive from the SFD to the frame's end.
TEST(CC2420Cca, Mode2IsBusyWhileReceiving) {
  Pair P;
  P.B.writeReg(MDMCTRL0, (0x0AE2 & ~(3u << Mdm0CcaModeShift)) | (2u << Mdm0CcaModeShift));
  P.B.Edges.clear();
  uint64_t T0 = P.send(dataFrame(0x22, 2, 1, 7, {1}));
  P.after(2000 * Us);
  EXPECT_EQ(P.B.edge(Pin::Cca, false), T0 + 352 * Us);
  EXPECT_EQ(P.B.edge(Pin::Cca, true, T0), T0 + 352 * Us + 13 * 32 * Us);
}

// MDMCTRL0.CCA_HYST: between CCA_THR - CCA_HYST and CCA_THR the CCA keeps its
// previous value. After a frame the RSSI falls to the -98 dBm floor (-53):
// with CCA_THR = -52 and a 2 dB hysteresis the channel stays busy; with
// CCA_THR = -50 it is clear.
TEST(CC2420Cca, Hysteresis) {
  Pair P;
  P.B.writeReg(RSSI, uint16_t(uint8_t(-52)) << 8);
  P.B.writeReg(MDMCTRL0, (0x0AE2 & ~(7u << Mdm0CcaHystShift)) | (2u << Mdm0CcaHystShift));
  P.send(dataFrame(0x22, 9, 1, 7, {1}));
  P.after(3000 * Us);
  EXPECT_EQ(int8_t(P.B.readReg(RSSI) & 0xFF), -53);
  EXPECT_FALSE(P.B.R.pin(Pin::Cca));
  P.B.writeReg(RSSI, uint16_t(uint8_t(-50)) << 8);
  P.B.status(); // any SPI activity re-evaluates the pins
  EXPECT_TRUE(P.B.R.pin(Pin::Cca));
}

// "RAM access": the RXFIFO can be read through RAM (bank 1) without removing
// bytes ("Reading data from the TXFIFO is possible with RAM access, but this
// does not remove the byte", likewise for the RXFIFO area).
TEST(CC2420Fifo, RxFifoThroughRamDoesNotConsume) {
  Pair P;
  std::vector<uint8_t> Fifo = dataFrame(0x22, 2, 1, 7, {0x5A});
  P.send(Fifo);
  P.after(2000 * Us);
  unsigned N = P.B.R.rxFifoCount();
  std::vector<uint8_t> ViaRam = P.B.readRam(RamRxFifo, Fifo.size());
  EXPECT_EQ(ViaRam, Fifo);
  EXPECT_EQ(P.B.R.rxFifoCount(), N);
  EXPECT_TRUE(P.B.R.pin(Pin::Fifop));
}

// The lock-step rule (spec/cc2420.md, "Lock-step"): a receiver that ran more
// than a turnaround ahead of the sender learns of the frame after its SFD
// time; the frame then cannot be received and is counted.
TEST(CC2420Rx, LateAnnouncementIsCountedNotReceived) {
  Pair P;
  P.B.at(P.B.T + 1000 * Us); // B runs ahead of A by 1 ms
  P.send(dataFrame(0x22, 2, 1, 7, {1}));
  P.A.after(2000 * Us);
  P.B.at(P.A.T);
  EXPECT_EQ(P.B.R.stats().LateAnnouncements, 1u);
  EXPECT_EQ(P.B.R.rxFifoCount(), 0u);
}

} // namespace
