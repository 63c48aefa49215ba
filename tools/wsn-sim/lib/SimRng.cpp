//===- SimRng.cpp - the seeded randomness of wsn-sim ----------------------===//
#include "SimRng.h"

namespace wsn {
namespace sim {

uint64_t splitMix64(uint64_t &State) {
  uint64_t Z = (State += 0x9E3779B97F4A7C15ULL);
  Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBULL;
  return Z ^ (Z >> 31);
}

uint64_t streamSeed(uint64_t Seed, uint64_t Node, Stream S) {
  uint64_t State = Seed;
  uint64_t A = splitMix64(State);
  State = A ^ Node;
  uint64_t B = splitMix64(State);
  State = B ^ static_cast<uint64_t>(S);
  return splitMix64(State);
}

uint64_t SimRng::uniform(uint64_t Lo, uint64_t Hi) {
  if (Hi <= Lo)
    return Lo;
  uint64_t Span = Hi - Lo; // number of values minus one
  if (Span == UINT64_MAX)
    return Gen();
  uint64_t N = Span + 1;
  // Reject the draws in the incomplete last block so every residue is equally
  // likely.
  uint64_t Limit = UINT64_MAX - (UINT64_MAX % N + 1) % N;
  uint64_t X;
  do
    X = Gen();
  while (X > Limit);
  return Lo + X % N;
}

double SimRng::unit() {
  return static_cast<double>(Gen() >> 11) * (1.0 / 9007199254740992.0);
}

double SimRng::normal12() {
  double Sum = 0;
  for (int I = 0; I < 12; ++I)
    Sum += unit();
  return Sum - 6.0;
}

} // namespace sim
} // namespace wsn
