//===- Medium802154.h - the 2.4 GHz 802.15.4 channel shared by the radios -===//
//
// The medium of `wsn-sim net` (spec/cc2420.md, "Medium"): radios register
// under a node id; links carry a gain in dBm (the topology file's `gain SRC DST
// DBM`, the received power of a 0 dBm transmission) and receivers have a noise
// floor (`noise NODE MEAN VARIANCE`). A transmission occupies its channel from
// its first preamble symbol to its last bit. A receiver on the same channel
// hears a frame whose received power is at least the sensitivity; frames that
// overlap at a receiver collide, and the capture rule decides which survive.
// Channels do not interfere with each other.
//
// Deterministic: the medium draws no randomness except through the noise
// sampler the caller passes (a seeded stream, e.g. SimRng::normal12), in a
// fixed order (transmissions in announcement order, receivers by ascending
// node id).
//
// Lock-step: a radio announces a transmission one turnaround (12 symbols,
// 192 us) before it starts (CC2420::AirPort::Transmit), so if every node runs
// in slices of at most 192 us (128 us when a radio uses TXCTRL.TX_TURNAROUND =
// 0) in a round where all nodes start at the same time, every node learns of a
// transmission before it starts at its antenna: CCA, RSSI, SFD and collisions
// are then exact whatever order the nodes run in within the round.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_DEVICES_MEDIUM802154_H
#define WSN_DEVICES_MEDIUM802154_H

#include "Air802154.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace wsn {
namespace devices {

class CC2420;

class Medium802154 {
public:
  using NodeId = uint32_t;

  struct Config {
    /// The receiver's sensitivity (CC2420: -95 dBm, data sheet section 6).
    double SensitivityDbm = -95.0;
    /// Capture: a frame survives overlapping transmissions at a receiver if
    /// its power is at least this much above the sum of the others' powers.
    double CaptureDb = 3.0;
    /// Noise floor of a receiver without setNoise (dBm).
    double DefaultNoiseDbm = -98.0;
    /// When set, a receiver also needs this signal-to-noise margin over a
    /// noise sample (mean + sqrt(variance) * Normal(), drawn per frame and
    /// receiver at announcement) to hear a frame (wsn-sim's --snr-threshold).
    std::optional<double> MinSnrDb;
    /// Standard-normal sampler for noise floors with a variance (e.g. a
    /// seeded SimRng's normal12). Empty: noise is its mean.
    std::function<double()> Normal;
  };

  /// How the medium reaches a receiver: it is told about every transmission
  /// of another node it has a link from (whatever the channel, and whether or
  /// not it can be decoded: its energy still counts for RSSI and CCA), and
  /// about transmissions that stop early.
  struct Port {
    std::function<void(const AirFrame &, uint64_t Handle, double RxDbm, bool Decodable)> Frame;
    std::function<void(uint64_t Handle, uint64_t EndNs)> Truncated;
  };

  Medium802154() = default;
  explicit Medium802154(Config C) : Cfg(std::move(C)) {}

  /// Registers a radio. A node id may be registered once (a second call
  /// replaces the port).
  void addNode(NodeId Id, Port P);
  /// Registers a CC2420 and connects its AirPort to this medium.
  void attach(NodeId Id, CC2420 &Radio);

  /// Directed link: received power at Dst of a 0 dBm transmission by Src.
  /// Without a link, Dst does not hear Src at all.
  void setLinkGain(NodeId Src, NodeId Dst, double GainDb);
  void setNoise(NodeId Node, double MeanDbm, double Variance);

  // --- Called by the radios (through CC2420::AirPort).
  uint64_t transmit(NodeId Src, const AirFrame &F);
  void truncate(uint64_t Handle, uint64_t Ns);
  /// Power on Channel at Node's antenna at Ns: the noise floor plus every
  /// transmission of another node on that channel in the air at Ns
  /// (StartNs <= Ns < EndNs), summed in milliwatts.
  double energyDbm(NodeId Node, unsigned Channel, uint64_t Ns) const;
  /// Whether transmission Handle is corrupted at Node by overlapping
  /// transmissions on its channel (the capture rule).
  bool corrupted(uint64_t Handle, NodeId Node) const;

  /// Forgets transmissions that ended before Ns, except those that overlap a
  /// transmission still in the air at Ns (collision verdicts stay exact).
  /// Memory bound: call it with the lock-step round start minus one slice and
  /// 128 us (energyDbm looks back one RSSI window).
  void forgetBefore(uint64_t Ns);

  struct Stats {
    uint64_t Transmissions = 0;
    uint64_t Acks = 0;
    uint64_t Deliveries = 0;       // (frame, receiver) pairs announced
    uint64_t BelowSensitivity = 0; // (frame, receiver) pairs too weak to hear
    uint64_t Collisions = 0;       // corrupted() answers that were true
  };
  const Stats &stats() const { return Counters; }

private:
  struct Tx {
    NodeId Src;
    AirFrame F;
  };
  struct Node {
    Port P;
    double NoiseMean = -98.0;
    double NoiseVar = 0;
  };
  std::optional<double> rxPowerDbm(NodeId Src, NodeId Dst, double TxDbm) const;
  double noiseDbm(NodeId Node) const;

  Config Cfg;
  std::map<NodeId, Node> Nodes;
  std::set<NodeId> HasNoise;
  std::map<std::pair<NodeId, NodeId>, double> Gains;
  std::map<uint64_t, Tx> Air; // by handle (announcement order)
  uint64_t NextHandle = 1;
  mutable Stats Counters;
};

} // namespace devices
} // namespace wsn

#endif
