//===- MediumTest.cpp - the 802.15.4 medium ---------------------------------===//
//
// Airtime, sensitivity, collisions and the capture rule, channels, ACKs over
// the air, determinism (spec/cc2420.md, "Medium"). The sensitivity is the
// CC2420's -95 dBm (data sheet SWRS041B, "Electrical Specifications").
//
//===----------------------------------------------------------------------===//
#include "CC2420TestUtil.h"
#include "Medium802154.h"

#include "gtest/gtest.h"

#include <random>

using namespace wsn::devices;
using wsn::devices::test::Board;
using wsn::devices::test::Us;

namespace {

struct Heard {
  uint64_t Handle;
  double Dbm;
  bool Decodable;
};

// A listener node that only records what the medium tells it.
struct Ear {
  std::vector<Heard> Got;
  std::vector<std::pair<uint64_t, uint64_t>> Cuts;
  Medium802154::Port port() {
    Medium802154::Port P;
    P.Frame = [this](const AirFrame &, uint64_t H, double D, bool Dec) {
      Got.push_back({H, D, Dec});
    };
    P.Truncated = [this](uint64_t H, uint64_t Ns) { Cuts.push_back({H, Ns}); };
    return P;
  }
};

AirFrame frame(unsigned Channel, uint64_t Start, unsigned PsduBytes, double TxDbm = 0) {
  AirFrame F;
  F.Channel = Channel;
  F.TxPowerDbm = TxDbm;
  F.StartNs = Start;
  F.SfdNs = Start + 5 * ByteNs;
  F.EndNs = F.SfdNs + PsduBytes * ByteNs;
  F.Psdu.assign(PsduBytes, 0);
  return F;
}

// A transmission occupies its channel from its first preamble symbol to its
// last bit: 5 + 1 + 20 bytes of 32 us.
TEST(Medium, AirtimeAddsEnergyBetweenStartAndEnd) {
  Medium802154 M;
  Ear E;
  M.addNode(1, {});
  M.addNode(2, E.port());
  M.setLinkGain(1, 2, -70);
  M.setNoise(2, -98, 0);
  AirFrame F = frame(11, 1000 * Us, 21);
  M.transmit(1, F);
  EXPECT_NEAR(M.energyDbm(2, 11, F.StartNs - 1), -98.0, 1e-9);
  EXPECT_NEAR(M.energyDbm(2, 11, F.StartNs), -69.99312, 1e-4); // -70 + -98 in mW
  EXPECT_NEAR(M.energyDbm(2, 11, F.EndNs - 1), -69.99312, 1e-4);
  EXPECT_NEAR(M.energyDbm(2, 11, F.EndNs), -98.0, 1e-9);
  EXPECT_EQ(F.EndNs - F.StartNs, 26 * 32 * Us);
}

// The link gain is the received power of a 0 dBm sender: the PA level adds.
TEST(Medium, TxPowerAddsToLinkGain) {
  Medium802154 M;
  Ear E;
  M.addNode(1, {});
  M.addNode(2, E.port());
  M.setLinkGain(1, 2, -70);
  M.transmit(1, frame(11, 0, 10, -15));
  ASSERT_EQ(E.Got.size(), 1u);
  EXPECT_EQ(E.Got[0].Dbm, -85.0);
}

TEST(Medium, BelowSensitivityIsNotDecodable) {
  Medium802154 M;
  Ear E;
  M.addNode(1, {});
  M.addNode(2, E.port());
  M.setLinkGain(1, 2, -95);
  M.transmit(1, frame(11, 0, 10));
  M.transmit(1, frame(11, 10000 * Us, 10, -1)); // -96 dBm
  ASSERT_EQ(E.Got.size(), 2u);
  EXPECT_TRUE(E.Got[0].Decodable);
  EXPECT_FALSE(E.Got[1].Decodable);
  EXPECT_EQ(M.stats().BelowSensitivity, 1u);
}

TEST(Medium, NoLinkNoDelivery) {
  Medium802154 M;
  Ear E;
  M.addNode(1, {});
  M.addNode(2, E.port());
  M.transmit(1, frame(11, 0, 10));
  EXPECT_TRUE(E.Got.empty());
  EXPECT_NEAR(M.energyDbm(2, 11, 100), -98.0, 1e-9);
}

// Two equal frames overlapping at a receiver: neither is 3 dB above the
// other, both are corrupted.
TEST(Medium, EqualOverlappingFramesCollide) {
  Medium802154 M;
  M.addNode(1, {});
  M.addNode(2, {});
  M.addNode(3, {});
  M.setLinkGain(1, 3, -70);
  M.setLinkGain(2, 3, -70);
  uint64_t A = M.transmit(1, frame(11, 0, 30));
  uint64_t B = M.transmit(2, frame(11, 500 * Us, 30));
  EXPECT_TRUE(M.corrupted(A, 3));
  EXPECT_TRUE(M.corrupted(B, 3));
}

// Capture: the stronger frame survives when it is at least 3 dB above the
// sum of the others; exactly below 3 dB it does not.
TEST(Medium, CaptureRule) {
  Medium802154 M;
  for (unsigned N = 1; N <= 4; ++N)
    M.addNode(N, {});
  M.setLinkGain(1, 4, -60);
  M.setLinkGain(2, 4, -66);
  M.setLinkGain(3, 4, -66);
  uint64_t Strong = M.transmit(1, frame(11, 0, 30));
  uint64_t Weak = M.transmit(2, frame(11, 100 * Us, 30));
  EXPECT_FALSE(M.corrupted(Strong, 4)); // 6 dB above
  EXPECT_TRUE(M.corrupted(Weak, 4));
  // A third one: the two weak ones sum to -62.99 dBm, 2.99 dB below.
  M.transmit(3, frame(11, 200 * Us, 30));
  EXPECT_TRUE(M.corrupted(Strong, 4));
}

TEST(Medium, FramesThatDoNotOverlapDoNotCollide) {
  Medium802154 M;
  M.addNode(1, {});
  M.addNode(2, {});
  M.addNode(3, {});
  M.setLinkGain(1, 3, -70);
  M.setLinkGain(2, 3, -70);
  AirFrame F = frame(11, 0, 10);
  uint64_t A = M.transmit(1, F);
  M.transmit(2, frame(11, F.EndNs, 10));
  EXPECT_FALSE(M.corrupted(A, 3));
}

// Channels isolate: no energy and no collision across channels.
TEST(Medium, ChannelsIsolate) {
  Medium802154 M;
  M.addNode(1, {});
  M.addNode(2, {});
  M.addNode(3, {});
  M.setLinkGain(1, 3, -70);
  M.setLinkGain(2, 3, -60);
  uint64_t A = M.transmit(1, frame(11, 0, 30));
  M.transmit(2, frame(12, 0, 30));
  EXPECT_FALSE(M.corrupted(A, 3));
  EXPECT_NEAR(M.energyDbm(3, 11, 100 * Us), -69.99312, 1e-4);
}

TEST(Medium, TruncationShortensAndIsAnnounced) {
  Medium802154 M;
  Ear E;
  M.addNode(1, {});
  M.addNode(2, E.port());
  M.setLinkGain(1, 2, -70);
  uint64_t H = M.transmit(1, frame(11, 0, 30));
  M.truncate(H, 300 * Us);
  ASSERT_EQ(E.Cuts.size(), 1u);
  EXPECT_EQ(E.Cuts[0].second, 300 * Us);
  EXPECT_NEAR(M.energyDbm(2, 11, 300 * Us), -98.0, 1e-9);
}

TEST(Medium, ForgetBeforeDropsEndedFrames) {
  Medium802154 M;
  M.addNode(1, {});
  M.addNode(2, {});
  M.setLinkGain(1, 2, -70);
  uint64_t H = M.transmit(1, frame(11, 0, 10));
  M.forgetBefore(10000 * Us);
  EXPECT_FALSE(M.corrupted(H, 2));
  EXPECT_NEAR(M.energyDbm(2, 11, 0), -98.0, 1e-9);
}

// A short frame that overlapped the start of a long one still corrupts it
// after it ended and the medium forgot older frames.
TEST(Medium, ForgetBeforeKeepsWhatALongFrameOverlapped) {
  Medium802154 M;
  M.addNode(1, {});
  M.addNode(2, {});
  M.addNode(3, {});
  M.setLinkGain(1, 3, -70);
  M.setLinkGain(2, 3, -70);
  AirFrame Long = frame(11, 0, 127);
  uint64_t L = M.transmit(1, Long);
  AirFrame Short = frame(11, 100 * Us, 5);
  M.transmit(2, Short);
  M.forgetBefore(Short.EndNs + 1000 * Us);
  EXPECT_TRUE(M.corrupted(L, 3));
}

// With a noise variance and MinSnrDb, decodability depends on noise draws
// from the caller's seeded stream, drawn in a fixed order: the same seed
// gives the same answers.
TEST(Medium, DeterministicPerSeed) {
  auto Run = [](uint64_t Seed) {
    std::mt19937_64 G(Seed);
    Medium802154::Config C;
    C.MinSnrDb = 4.0;
    C.Normal = [&G] { return double(G() >> 11) * 0x1.0p-53 * 6 - 3; };
    Medium802154 M(C);
    Ear E2, E3;
    M.addNode(1, {});
    M.addNode(2, E2.port());
    M.addNode(3, E3.port());
    M.setLinkGain(1, 2, -93);
    M.setLinkGain(1, 3, -93);
    M.setNoise(2, -98, 4);
    M.setNoise(3, -98, 4);
    std::vector<bool> Out;
    for (int I = 0; I < 50; ++I) {
      M.transmit(1, frame(11, uint64_t(I) * 10000 * Us, 10));
      Out.push_back(E2.Got.back().Decodable);
      Out.push_back(E3.Got.back().Decodable);
    }
    return Out;
  };
  std::vector<bool> A = Run(1), B = Run(1), C = Run(2);
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
  EXPECT_NE(std::count(A.begin(), A.end(), true), 0);
  EXPECT_NE(std::count(A.begin(), A.end(), false), 0);
}

// End to end through two CC2420s: a collision at the receiver makes its
// CRC-OK bit 0; the same frame alone is received with CRC OK.
TEST(Medium, CollisionClearsCrcOkAtTheRadio) {
  Medium802154 M;
  Board A, B, C;
  M.attach(1, A.R);
  M.attach(2, B.R);
  M.attach(3, C.R);
  M.setLinkGain(1, 2, -60);
  M.setLinkGain(3, 2, -60);
  for (Board *X : {&A, &B, &C})
    X->listen();
  B.writeReg(cc2420::MDMCTRL0, 0x0AE2 & ~cc2420::Mdm0AdrDecode);
  std::vector<uint8_t> Fifo = {12, 0x41, 0x88, 1, 0x22, 0, 2, 0, 1, 0, 7, 7};
  A.writeTxFifo(Fifo);
  C.writeTxFifo(Fifo);
  A.strobe(cc2420::STXON);
  // C starts 100 us later: the two overlap at B, equal power.
  wsn::devices::test::runTogether({&A, &B, &C}, A.T + 100 * Us);
  C.strobe(cc2420::STXON);
  wsn::devices::test::runTogether({&A, &B, &C}, A.T + 3000 * Us);
  std::vector<uint8_t> Got = B.readRxFifo(B.R.rxFifoCount());
  ASSERT_EQ(Got.size(), 13u); // the first frame; the second was missed
  EXPECT_EQ(Got.back() & 0x80, 0);
  EXPECT_EQ(B.R.stats().CrcErrors, 1u);
  EXPECT_EQ(B.R.stats().FramesMissed, 1u);
}

} // namespace
