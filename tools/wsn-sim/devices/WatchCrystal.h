//===- WatchCrystal.h - one 32.768 kHz watch crystal as a physical part ---===//
//
// The 32.768 kHz crystal of a mote (MicaZ: on the ATmega128's TOSC1/TOSC2 pins
// for the asynchronous Timer0; TelosB and Z1: LFXT1 of the MSP430, ACLK) runs
// independently of the CPU clock. Two things about it differ from one physical
// run to the next, and wsn-sim draws both from the seed (spec/wsn-sim.md
// section 4, "Clocks"):
//   - its frequency: a tuning-fork watch crystal is made to a frequency
//     tolerance, typically +-20 ppm at 25 C (e.g. CTS TF20 series, document
//     008-0353-0 rev. C, "Frequency Tolerance, +-20 ppm Standard"), so each
//     node's crystal is off by its own few ppm and the timers of a network
//     drift apart;
//   - its phase at power-up against the CPU clock: the two oscillators are
//     unrelated, so the first crystal edge falls anywhere in the first crystal
//     period after reset.
//
// This class maps crystal edges to a time base counted in whole units (the
// AVR's CPU cycles at F, or picoseconds on the MSP430) exactly, in integer
// arithmetic: edge k (k >= 1) is at real time (k - Phase) * Period, Phase in
// [0, 1) of a period, Period = UnitsPerSecond / (32768 Hz * (1 + Ppb * 1e-9)).
// The period is kept in units of 2^-32 time units, rounded to nearest; with
// Ppb = 0 and Phase = 0 every edge is where a perfect crystal puts it:
// edge k at ceil(k * UnitsPerSecond / 32768).
//
//===----------------------------------------------------------------------===//
#ifndef WSN_DEVICES_WATCHCRYSTAL_H
#define WSN_DEVICES_WATCHCRYSTAL_H

#include <cstdint>

namespace wsn {
namespace sim {

class WatchCrystal {
public:
  static constexpr uint32_t NominalHz = 32768;
  /// The tolerance wsn-sim draws a crystal's frequency error from: +-20 ppm.
  static constexpr int64_t TolerancePpb = 20000;

  /// A perfect crystal (no frequency error, edge k at exactly k periods).
  explicit WatchCrystal(uint64_t UnitsPerSecond) : WatchCrystal(UnitsPerSecond, 0, 0) {}
  /// Ppb: frequency error in parts per 10^9 (|Ppb| < 10^8). Phase32: the
  /// power-up phase as a fraction of a period, in units of 2^-32.
  WatchCrystal(uint64_t UnitsPerSecond, int64_t Ppb, uint32_t Phase32);

  /// The number of edges (k >= 1) whose real time is at or before unit T.
  uint64_t edgeAtOrBefore(uint64_t T) const;
  /// The first unit at or after the real time of edge K (K >= 1).
  uint64_t edgeTime(uint64_t K) const;

  int64_t ppb() const { return Ppb; }
  uint32_t phase32() const { return Phase32; }
  /// The crystal's frequency in Hz (for reports).
  double hz() const { return NominalHz * (1.0 + double(Ppb) * 1e-9); }

private:
  int64_t Ppb;
  uint32_t Phase32;
  unsigned __int128 PeriodQ; ///< time units per edge, times 2^32
  unsigned __int128 OffsetQ; ///< Phase * PeriodQ: edge k at k * PeriodQ - OffsetQ
};

} // namespace sim
} // namespace wsn

#endif
