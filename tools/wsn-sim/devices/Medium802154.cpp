//===- Medium802154.cpp - the shared 2.4 GHz channel ------------------------===//
#include "Medium802154.h"

#include "CC2420.h"

#include <algorithm>
#include <cmath>

namespace wsn {
namespace devices {

namespace {
double toMw(double Dbm) { return std::pow(10.0, Dbm / 10.0); }
double toDbm(double Mw) { return 10.0 * std::log10(Mw); }
bool overlaps(const AirFrame &A, const AirFrame &B) {
  return A.StartNs < B.EndNs && B.StartNs < A.EndNs;
}
} // namespace

void Medium802154::addNode(NodeId Id, Port P) {
  Node &N = Nodes[Id];
  N.P = std::move(P);
  if (!HasNoise.count(Id)) {
    N.NoiseMean = Cfg.DefaultNoiseDbm;
    N.NoiseVar = 0;
  }
}

void Medium802154::attach(NodeId Id, CC2420 &Radio) {
  Port P;
  P.Frame = [&Radio](const AirFrame &F, uint64_t H, double Dbm, bool Dec) {
    Radio.airFrame(F, H, Dbm, Dec);
  };
  P.Truncated = [&Radio](uint64_t H, uint64_t Ns) { Radio.airTruncated(H, Ns); };
  addNode(Id, std::move(P));
  CC2420::AirPort A;
  A.Transmit = [this, Id](const AirFrame &F) { return transmit(Id, F); };
  A.Truncate = [this](uint64_t H, uint64_t Ns) { truncate(H, Ns); };
  A.EnergyDbm = [this, Id](unsigned Ch, uint64_t Ns) { return energyDbm(Id, Ch, Ns); };
  A.Corrupted = [this, Id](uint64_t H) { return corrupted(H, Id); };
  A.NoiseDbm = [this, Id] { return noiseDbm(Id); };
  Radio.setAirPort(std::move(A));
}

void Medium802154::setLinkGain(NodeId Src, NodeId Dst, double GainDb) {
  Gains[{Src, Dst}] = GainDb;
}

void Medium802154::setNoise(NodeId Id, double MeanDbm, double Variance) {
  Node &N = Nodes[Id];
  N.NoiseMean = MeanDbm;
  N.NoiseVar = Variance;
  HasNoise.insert(Id);
}

double Medium802154::noiseDbm(NodeId Id) const {
  auto It = Nodes.find(Id);
  return It == Nodes.end() ? Cfg.DefaultNoiseDbm : It->second.NoiseMean;
}

// Received power at Dst: the link gain is the received power of a 0 dBm
// transmission, so the sender's output power adds to it (spec/cc2420.md).
std::optional<double> Medium802154::rxPowerDbm(NodeId Src, NodeId Dst, double TxDbm) const {
  auto It = Gains.find({Src, Dst});
  if (It == Gains.end())
    return std::nullopt;
  return It->second + TxDbm;
}

uint64_t Medium802154::transmit(NodeId Src, const AirFrame &F) {
  uint64_t H = NextHandle++;
  Air.emplace(H, Tx{Src, F});
  ++Counters.Transmissions;
  if (F.IsAck)
    ++Counters.Acks;
  // Receivers in ascending node id (std::map order): the noise draws happen
  // in a fixed order.
  for (auto &[Id, N] : Nodes) {
    if (Id == Src)
      continue;
    std::optional<double> Rx = rxPowerDbm(Src, Id, F.TxPowerDbm);
    if (!Rx)
      continue;
    bool Decodable = *Rx >= Cfg.SensitivityDbm;
    if (Cfg.MinSnrDb) {
      double Noise = N.NoiseMean;
      if (N.NoiseVar > 0 && Cfg.Normal)
        Noise += std::sqrt(N.NoiseVar) * Cfg.Normal();
      if (*Rx - Noise < *Cfg.MinSnrDb)
        Decodable = false;
    }
    if (Decodable)
      ++Counters.Deliveries;
    else
      ++Counters.BelowSensitivity;
    if (N.P.Frame)
      N.P.Frame(F, H, *Rx, Decodable);
  }
  return H;
}

void Medium802154::truncate(uint64_t Handle, uint64_t Ns) {
  auto It = Air.find(Handle);
  if (It == Air.end() || Ns >= It->second.F.EndNs)
    return;
  It->second.F.EndNs = std::max(Ns, It->second.F.StartNs);
  NodeId Src = It->second.Src;
  for (auto &[Id, N] : Nodes)
    if (Id != Src && N.P.Truncated && Gains.count({Src, Id}))
      N.P.Truncated(Handle, It->second.F.EndNs);
}

double Medium802154::energyDbm(NodeId Id, unsigned Channel, uint64_t Ns) const {
  double Mw = toMw(noiseDbm(Id));
  for (const auto &[H, T] : Air) {
    if (T.Src == Id || T.F.Channel != Channel || Ns < T.F.StartNs || Ns >= T.F.EndNs)
      continue;
    if (std::optional<double> Rx = rxPowerDbm(T.Src, Id, T.F.TxPowerDbm))
      Mw += toMw(*Rx);
  }
  return toDbm(Mw);
}

// Capture rule: a frame survives at a receiver if its power there is at
// least CaptureDb above the sum of the powers of every other transmission on
// its channel that overlaps it in time; otherwise it is corrupted. The rule
// is applied to each frame on its own, so of two equal frames both are
// corrupted, and of two frames 3 dB apart the stronger survives whichever
// started first.
bool Medium802154::corrupted(uint64_t Handle, NodeId Id) const {
  auto It = Air.find(Handle);
  if (It == Air.end())
    return false;
  const Tx &F = It->second;
  std::optional<double> Own = rxPowerDbm(F.Src, Id, F.F.TxPowerDbm);
  if (!Own)
    return false;
  double Others = 0;
  for (const auto &[H, T] : Air) {
    if (H == Handle || T.Src == Id || T.F.Channel != F.F.Channel || !overlaps(T.F, F.F))
      continue;
    if (std::optional<double> Rx = rxPowerDbm(T.Src, Id, T.F.TxPowerDbm))
      Others += toMw(*Rx);
  }
  bool Bad = Others > 0 && *Own - toDbm(Others) < Cfg.CaptureDb;
  if (Bad)
    ++Counters.Collisions;
  return Bad;
}

// A transmission that ended before Ns may still decide the fate of a longer
// one that overlapped it and is still in the air: keep everything that ended
// after the earliest start among those.
void Medium802154::forgetBefore(uint64_t Ns) {
  uint64_t Keep = Ns;
  for (const auto &[H, T] : Air)
    if (T.F.EndNs >= Ns)
      Keep = std::min(Keep, T.F.StartNs);
  for (auto It = Air.begin(); It != Air.end();) {
    if (It->second.F.EndNs < Keep)
      It = Air.erase(It);
    else
      ++It;
  }
}

} // namespace devices
} // namespace wsn
