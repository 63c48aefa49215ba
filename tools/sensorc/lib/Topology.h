//===- Topology.h - TOSSIM-format network topology files ------------------===//
//
// The radio model of a network as TOSSIM's LinkLayerModel writes it (thesis
// 3.3, #NETWORK): one record per line,
//
//   gain  SRC DST DBM          received power at DST of a frame sent by SRC
//   noise NODE MEAN VARIANCE   noise floor of NODE in dBm and its variance
//
// Fields are separated by blanks or tabs; blank lines and lines starting with
// '#' or '%' are ignored. spec/sensorc.md describes the format. This header
// depends only on LLVM Support so that wsn-sim can reuse it as is.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_TOPOLOGY_H
#define WSN_SENSORC_TOPOLOGY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace wsn {
namespace topology {

struct NoiseFloor {
  double MeanDbm = 0;
  double Variance = 0;
  unsigned Line = 0;
};

struct GainRecord {
  double Dbm = 0;
  unsigned Line = 0;
};

struct Topology {
  std::string Name; // file name used in diagnostics
  /// (src, dst) -> gain in dBm.
  std::map<std::pair<unsigned, unsigned>, GainRecord> Gains;
  std::map<unsigned, NoiseFloor> Noise;
  /// Every node named by a gain or noise record.
  std::set<unsigned> Nodes;

  std::optional<double> gain(unsigned Src, unsigned Dst) const;
  std::optional<NoiseFloor> noise(unsigned Node) const;
};

/// Parses topology text. Errors read "NAME:LINE:COL: error: ..." and name the
/// offending field.
llvm::Expected<Topology> parseTopology(llvm::StringRef Text,
                                       llvm::StringRef Name);

/// Reads and parses a file.
llvm::Expected<Topology> readTopologyFile(llvm::StringRef Path);

/// When a directed link is usable: its signal-to-noise margin at the receiver
/// (gain - noise mean of the receiver) is at least MinSnrDb. A receiver
/// without a noise record uses DefaultNoiseDbm. We assume no transmission
/// errors on usable links (thesis 3.3).
struct LinkModel {
  double MinSnrDb = 4.0;
  double DefaultNoiseDbm = -98.0;
};

/// SNR margin of the directed link, or nothing if there is no gain record.
std::optional<double> linkSnr(const Topology &T, unsigned Src, unsigned Dst,
                              const LinkModel &M = LinkModel());
bool hasLink(const Topology &T, unsigned Src, unsigned Dst,
             const LinkModel &M = LinkModel());
/// Nodes that hear a frame sent by N (usable out-links), ascending.
std::vector<unsigned> neighbours(const Topology &T, unsigned N,
                                 const LinkModel &M = LinkModel());

} // namespace topology
} // namespace wsn

#endif
