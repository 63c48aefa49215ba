//===- SimTopology.cpp - TOSSIM-format radio topology for wsn-sim ---------===//
#include "SimTopology.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace wsn {
namespace sim {

static Error lineError(StringRef Name, unsigned Line, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           Name + ":" + Twine(Line) + ": " + Msg);
}

static bool parseNodeId(StringRef S, uint16_t &Out) {
  unsigned V;
  if (S.getAsInteger(10, V) || V > 0xFFFE)
    return false;
  Out = static_cast<uint16_t>(V);
  return true;
}

static bool parseReal(StringRef S, double &Out) {
  // StringRef::getAsDouble accepts "inf"/"nan"; a topology value must be finite.
  if (S.getAsDouble(Out, /*AllowInexact=*/true))
    return false;
  return std::isfinite(Out);
}

Expected<Topology> parseTopology(StringRef Text, StringRef Name) {
  Topology T;
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = I + 1;
    StringRef L = Lines[I].trim();
    if (L.empty() || L.starts_with("#") || L.starts_with("%"))
      continue;
    SmallVector<StringRef, 8> F;
    SplitString(L, F, " \t\r");
    if (F[0] == "gain") {
      if (F.size() != 4)
        return lineError(Name, LineNo,
                         "expected 'gain SRC DST DBM', got " + Twine(F.size() - 1) +
                             " field(s): '" + L + "'");
      uint16_t Src, Dst;
      double G;
      if (!parseNodeId(F[1], Src))
        return lineError(Name, LineNo, "bad source node id '" + F[1] + "' (0..65534)");
      if (!parseNodeId(F[2], Dst))
        return lineError(Name, LineNo, "bad destination node id '" + F[2] + "' (0..65534)");
      if (!parseReal(F[3], G))
        return lineError(Name, LineNo, "bad gain '" + F[3] + "' (a number of dB)");
      T.Gain[{Src, Dst}] = G;
    } else if (F[0] == "noise") {
      if (F.size() != 4)
        return lineError(Name, LineNo,
                         "expected 'noise NODE MEAN VARIANCE', got " + Twine(F.size() - 1) +
                             " field(s): '" + L + "'");
      uint16_t N;
      NoiseModel M;
      if (!parseNodeId(F[1], N))
        return lineError(Name, LineNo, "bad node id '" + F[1] + "' (0..65534)");
      if (!parseReal(F[2], M.Mean))
        return lineError(Name, LineNo, "bad noise mean '" + F[2] + "' (dBm)");
      if (!parseReal(F[3], M.Variance) || M.Variance < 0)
        return lineError(Name, LineNo, "bad noise variance '" + F[3] + "' (a number >= 0)");
      T.Noise[N] = M;
    } else {
      return lineError(Name, LineNo,
                       "unknown directive '" + F[0] + "' (expected 'gain' or 'noise')");
    }
  }
  return T;
}

Expected<Topology> readTopologyFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return createStringError(Buf.getError(),
                             "cannot read topology '" + Path + "': " + Buf.getError().message());
  return parseTopology((*Buf)->getBuffer(), Path);
}

} // namespace sim
} // namespace wsn
