//===- WatchCrystalTest.cpp - a 32.768 kHz crystal as a physical part -----===//
//
// Edges of devices/WatchCrystal in a time base of whole units. A perfect
// crystal puts edge k at k / 32768 s (the MicaZ's 7372800 Hz CPU clock makes
// that exactly 225 k cycles, spec/micaz.md "Timer0"). The frequency errors
// used are the tolerance of a standard tuning-fork watch crystal, +-20 ppm at
// 25 C (CTS TF20 series, document 008-0353-0 rev. C, "Frequency Tolerance");
// the phase is the crystal's position in its period at power-up.
//
//===----------------------------------------------------------------------===//
#include "WatchCrystal.h"

#include "gtest/gtest.h"

using wsn::sim::WatchCrystal;

namespace {
constexpr uint64_t MicaZHz = 7372800, PsPerSecond = 1000000000000ull;
} // namespace

TEST(WatchCrystal, PerfectCrystalEdgesAt225CyclesOnMicaZ) {
  WatchCrystal X(MicaZHz);
  EXPECT_EQ(X.edgeTime(1), 225u);
  EXPECT_EQ(X.edgeTime(32768), MicaZHz); // one second
  EXPECT_EQ(X.edgeAtOrBefore(0), 0u);
  EXPECT_EQ(X.edgeAtOrBefore(224), 0u);
  EXPECT_EQ(X.edgeAtOrBefore(225), 1u);
  EXPECT_EQ(X.edgeAtOrBefore(449), 1u);
  EXPECT_EQ(X.edgeAtOrBefore(450), 2u);
}

TEST(WatchCrystal, PerfectCrystalInPicoseconds) {
  // 1 / 32768 s = 30517578.125 ps: the first picosecond at or after edge 1 is 30517579.
  WatchCrystal X(PsPerSecond);
  EXPECT_EQ(X.edgeTime(1), 30517579u);
  EXPECT_EQ(X.edgeAtOrBefore(30517578), 0u);
  EXPECT_EQ(X.edgeAtOrBefore(30517579), 1u);
  EXPECT_EQ(X.edgeTime(32768), PsPerSecond);
}

TEST(WatchCrystal, PhaseMovesEveryEdgeEarlier) {
  // Half a period into its oscillation at power-up: edge k at (k - 1/2) * 225 cycles.
  WatchCrystal X(MicaZHz, 0, 0x80000000u);
  EXPECT_EQ(X.edgeTime(1), 113u); // 112.5
  EXPECT_EQ(X.edgeTime(2), 338u); // 337.5
  EXPECT_EQ(X.edgeAtOrBefore(112), 0u);
  EXPECT_EQ(X.edgeAtOrBefore(113), 1u);
  EXPECT_EQ(X.edgeAtOrBefore(337), 1u);
  EXPECT_EQ(X.edgeAtOrBefore(338), 2u);
}

TEST(WatchCrystal, TwentyPpmFastAndSlowOverOneThousandSeconds) {
  // 32768000 edges are 1000 s of a perfect crystal. At +20 ppm they take
  // 7372800000 / 1.00002 = 7372652546.95 cycles, at -20 ppm 7372800000 / 0.99998 =
  // 7372947458.95: 147453 cycles (20.0 ms) either way.
  WatchCrystal Fast(MicaZHz, 20000, 0), Slow(MicaZHz, -20000, 0);
  EXPECT_EQ(Fast.edgeTime(32768000), 7372652547u);
  EXPECT_EQ(Slow.edgeTime(32768000), 7372947459u);
  EXPECT_EQ(Fast.edgeAtOrBefore(7372800000u), 32768655u); // 32768000 * 1.00002 = 32768655.36
  EXPECT_DOUBLE_EQ(Fast.hz(), 32768 * 1.00002);
}

TEST(WatchCrystal, EdgeTimeAndEdgeCountAgree) {
  // edgeAtOrBefore(T) is the last edge whose time is at most T, for any error and phase.
  const int64_t Ppbs[] = {-20000, -1, 0, 7, 19999};
  const uint32_t Phases[] = {0, 1, 0x12345678, 0xFFFFFFFF};
  for (int64_t Ppb : Ppbs)
    for (uint32_t Ph : Phases) {
      WatchCrystal X(MicaZHz, Ppb, Ph);
      for (uint64_t T = 0; T < 5000000; T += 9973) {
        uint64_t K = X.edgeAtOrBefore(T);
        if (K)
          EXPECT_LE(X.edgeTime(K), T) << Ppb << " " << Ph << " " << T;
        EXPECT_GT(X.edgeTime(K + 1), T) << Ppb << " " << Ph << " " << T;
      }
    }
}
