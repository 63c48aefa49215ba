//===- SimTopology.h - TOSSIM-format radio topology for wsn-sim -----------===//
//
// The topology format is the one TOSSIM's LinkLayerModel writes (and that
// sensorc reads): one directive a line,
//   gain SRC DST DBM          link gain in dB from SRC to DST (directed)
//   noise NODE MEAN VARIANCE  noise floor of NODE in dBm and its variance
// Blank lines and lines starting with '#' or '%' are ignored. Anything else
// is an error naming the file and line. (tools/sensorc/lib/Topology.h did not
// exist when this was written; this parser accepts the same format.)
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SIMTOPOLOGY_H
#define WSN_SIM_SIMTOPOLOGY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <utility>

namespace wsn {
namespace sim {

struct NoiseModel {
  double Mean = 0;
  double Variance = 0;
};

struct Topology {
  /// (src, dst) -> gain in dB.
  std::map<std::pair<uint16_t, uint16_t>, double> Gain;
  std::map<uint16_t, NoiseModel> Noise;

  const double *gain(uint16_t Src, uint16_t Dst) const {
    auto It = Gain.find({Src, Dst});
    return It == Gain.end() ? nullptr : &It->second;
  }
};

/// Parses topology text; Name is used in error messages ("NAME:LINE: ...").
llvm::Expected<Topology> parseTopology(llvm::StringRef Text, llvm::StringRef Name);
/// Reads and parses a topology file.
llvm::Expected<Topology> readTopologyFile(llvm::StringRef Path);

} // namespace sim
} // namespace wsn

#endif
