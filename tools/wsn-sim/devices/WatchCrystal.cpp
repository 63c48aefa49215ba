//===- WatchCrystal.cpp - one 32.768 kHz watch crystal as a physical part -===//
#include "WatchCrystal.h"

namespace wsn {
namespace sim {

namespace {
using U128 = unsigned __int128;
constexpr U128 Giga = 1000000000;
} // namespace

WatchCrystal::WatchCrystal(uint64_t UnitsPerSecond, int64_t Ppb, uint32_t Phase32)
    : Ppb(Ppb), Phase32(Phase32) {
  // Period * 2^32 = UnitsPerSecond * 2^32 * 1e9 / (32768 * (1e9 + Ppb)), to nearest.
  // The numerator is below 2^64 * 2^32 * 2^30 = 2^126.
  U128 Num = (U128(UnitsPerSecond) << 32) * Giga;
  U128 Den = U128(NominalHz) * U128(int64_t(Giga) + Ppb);
  PeriodQ = (Num + Den / 2) / Den;
  OffsetQ = (PeriodQ * Phase32) >> 32;
}

uint64_t WatchCrystal::edgeAtOrBefore(uint64_t T) const {
  // Edge k is at ceil((k PeriodQ - OffsetQ) / 2^32) <= T  <=>  k <= (T 2^32 + OffsetQ) / PeriodQ.
  return uint64_t(((U128(T) << 32) + OffsetQ) / PeriodQ);
}

uint64_t WatchCrystal::edgeTime(uint64_t K) const {
  U128 Q = U128(K) * PeriodQ - OffsetQ; // OffsetQ < PeriodQ <= K PeriodQ
  return uint64_t((Q + ((U128(1) << 32) - 1)) >> 32);
}

} // namespace sim
} // namespace wsn
