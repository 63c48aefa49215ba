//===- SimRng.h - the seeded randomness of wsn-sim ------------------------===//
//
// Every nondeterministic input of a simulated run (interrupt edges, UART bytes,
// ADC results, radio noise and loss) is drawn from here, so that a seed means
// the same run on every machine. The generator is std::mt19937_64 (its output
// sequence is fixed by the C++ standard); the distributions are implemented
// below with integer arithmetic or correctly rounded IEEE-754 operations only,
// never with std::uniform_*_distribution, whose output is implementation
// defined. spec/wsn-sim.md section "Nondeterminism model" documents them.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMRNG_H
#define WSN_SIM_SIMRNG_H

#include <cstdint>
#include <random>

namespace wsn {
namespace sim {

/// One step of SplitMix64, used to derive independent stream seeds.
uint64_t splitMix64(uint64_t &State);

/// The independent random streams of a run. Each (seed, node, stream) triple
/// has its own generator, so enabling one stimulus never shifts another.
enum class Stream : uint64_t {
  ExtIrq = 1,
  Uart = 2,
  Adc = 3,
  Radio = 4, // network-wide: the 802.15.4 medium's noise samples (pseudo node 0xFFFE)
  Switches = 5,
  Clocks = 6, // the node's clock parts: watch crystal error and phase, DCO spread
};

/// Seed of the generator of one stream: three SplitMix64 steps over the run
/// seed, the node id and the stream number.
uint64_t streamSeed(uint64_t Seed, uint64_t Node, Stream S);

class SimRng {
public:
  SimRng(uint64_t Seed, uint64_t Node, Stream S) : Gen(streamSeed(Seed, Node, S)) {}
  explicit SimRng(uint64_t RawSeed) : Gen(RawSeed) {}

  uint64_t next() { return Gen(); }
  /// Uniform integer in [Lo, Hi] (inclusive) by rejection sampling, unbiased.
  uint64_t uniform(uint64_t Lo, uint64_t Hi);
  /// Uniform double in [0, 1): the top 53 bits of one draw times 2^-53.
  double unit();
  /// Approximately standard normal: the sum of 12 unit() draws minus 6
  /// (Irwin-Hall). Uses additions only, so it is bit-exact everywhere.
  double normal12();
  /// true with probability P (P outside [0,1] is clamped).
  bool bernoulli(double P) { return P > 0 && unit() < P; }

private:
  std::mt19937_64 Gen;
};

} // namespace sim
} // namespace wsn

#endif
