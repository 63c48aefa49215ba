//===- CC2420TestUtil.h - a test board around the CC2420 model ------------===//
//
// What a microcontroller does with the radio, as plain calls: SPI
// transactions framed by CSn, register/RAM/FIFO helpers, time and the record
// of output pin edges. Used by CC2420Test.cpp and MediumTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_UNITTESTS_CC2420TESTUTIL_H
#define WSN_UNITTESTS_CC2420TESTUTIL_H

#include "CC2420.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace wsn {
namespace devices {
namespace test {

constexpr uint64_t Us = 1000;

struct Edge {
  CC2420::Pin P;
  bool Level;
  uint64_t Ns;
};

class Board {
public:
  CC2420 R;
  uint64_t T = 0;
  std::vector<Edge> Edges;

  Board() {
    R.setPinListener([this](CC2420::Pin P, bool L, uint64_t Ns) { Edges.push_back({P, L, Ns}); });
  }

  void at(uint64_t Ns) {
    T = Ns;
    R.advanceTo(Ns);
  }
  void after(uint64_t Ns) { at(T + Ns); }

  uint8_t strobe(uint8_t S) {
    R.setCsn(false, T);
    uint8_t St = R.spiExchange(S, T);
    R.setCsn(true, T);
    return St;
  }
  uint8_t status() { return strobe(cc2420::SNOP); }
  uint16_t readReg(uint8_t A) {
    R.setCsn(false, T);
    R.spiExchange(A | cc2420::ReadBit, T);
    uint16_t Hi = R.spiExchange(0, T);
    uint16_t Lo = R.spiExchange(0, T);
    R.setCsn(true, T);
    return static_cast<uint16_t>(Hi << 8 | Lo);
  }
  void writeReg(uint8_t A, uint16_t V) {
    R.setCsn(false, T);
    R.spiExchange(A, T);
    R.spiExchange(static_cast<uint8_t>(V >> 8), T);
    R.spiExchange(static_cast<uint8_t>(V), T);
    R.setCsn(true, T);
  }
  // RAM access: A6:0 in the first byte, the bank (A8:7) in bits 7:6 of the
  // second with bit 5 set for read-only access.
  void writeRam(uint16_t A, const std::vector<uint8_t> &Bytes) {
    R.setCsn(false, T);
    R.spiExchange(static_cast<uint8_t>(0x80 | (A & 0x7F)), T);
    R.spiExchange(static_cast<uint8_t>((A >> 7) << 6), T);
    for (uint8_t B : Bytes)
      R.spiExchange(B, T);
    R.setCsn(true, T);
  }
  std::vector<uint8_t> readRam(uint16_t A, unsigned N) {
    R.setCsn(false, T);
    R.spiExchange(static_cast<uint8_t>(0x80 | (A & 0x7F)), T);
    R.spiExchange(static_cast<uint8_t>((A >> 7) << 6 | 0x20), T);
    std::vector<uint8_t> Out;
    for (unsigned I = 0; I < N; ++I)
      Out.push_back(R.spiExchange(0, T));
    R.setCsn(true, T);
    return Out;
  }
  std::vector<uint8_t> writeTxFifo(const std::vector<uint8_t> &Bytes) {
    std::vector<uint8_t> Status;
    R.setCsn(false, T);
    Status.push_back(R.spiExchange(cc2420::TXFIFO, T));
    for (uint8_t B : Bytes)
      Status.push_back(R.spiExchange(B, T));
    R.setCsn(true, T);
    return Status;
  }
  std::vector<uint8_t> readRxFifo(unsigned N) {
    R.setCsn(false, T);
    R.spiExchange(cc2420::RXFIFO | cc2420::ReadBit, T);
    std::vector<uint8_t> Out;
    for (unsigned I = 0; I < N; ++I)
      Out.push_back(R.spiExchange(0, T));
    R.setCsn(true, T);
    return Out;
  }

  /// VREG_EN high, wait the regulator, SXOSCON, wait the oscillator.
  void powerUp() {
    R.setVregEn(true, T);
    after(600 * Us);
    strobe(cc2420::SXOSCON);
    after(860 * Us);
  }
  /// powerUp, then SRXON and wait until the receiver listens with a valid
  /// RSSI (12 + 8 symbols).
  void listen() {
    powerUp();
    strobe(cc2420::SRXON);
    after(320 * Us);
  }

  /// Time of the first edge of P to Level at or after From, or UINT64_MAX.
  uint64_t edge(CC2420::Pin P, bool Level, uint64_t From = 0) const {
    for (const Edge &E : Edges)
      if (E.P == P && E.Level == Level && E.Ns >= From)
        return E.Ns;
    return UINT64_MAX;
  }
};

/// Advances several boards together in lock-step slices of at most one
/// turnaround's worth (128 us), as a network simulator must
/// (spec/cc2420.md, "Lock-step"): a transmission decided in one board's slice
/// reaches the others before it starts.
inline void runTogether(std::initializer_list<Board *> Boards, uint64_t Until) {
  uint64_t T = UINT64_MAX;
  for (Board *B : Boards)
    T = std::min(T, B->T);
  while (T < Until) {
    T = std::min(Until, T + 128 * Us);
    for (Board *B : Boards)
      B->at(T);
  }
}

} // namespace test
} // namespace devices
} // namespace wsn

#endif
