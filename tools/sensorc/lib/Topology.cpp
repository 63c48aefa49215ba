//===- Topology.cpp - TOSSIM-format network topology files ----------------===//
#include "Topology.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace wsn {
namespace topology {

std::optional<double> Topology::gain(unsigned Src, unsigned Dst) const {
  auto It = Gains.find({Src, Dst});
  if (It == Gains.end())
    return std::nullopt;
  return It->second.Dbm;
}

std::optional<NoiseFloor> Topology::noise(unsigned Node) const {
  auto It = Noise.find(Node);
  if (It == Noise.end())
    return std::nullopt;
  return It->second;
}

namespace {
struct Field {
  StringRef Text;
  unsigned Col; // 1-based
};

class LineParser {
public:
  LineParser(StringRef Name, unsigned Line) : Name(Name), Line(Line) {}

  Error error(unsigned Col, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(), "%s:%u:%u: error: %s",
                             Name.str().c_str(), Line, Col,
                             Msg.str().c_str());
  }

  Expected<unsigned> nodeId(const Field &F) const {
    unsigned long long V;
    if (F.Text.getAsInteger(10, V) || V > 65535)
      return error(F.Col, "expected a node id (0..65535), found '" + F.Text +
                              "'");
    return static_cast<unsigned>(V);
  }

  Expected<double> number(const Field &F, StringRef What) const {
    std::string S = F.Text.str();
    char *End = nullptr;
    double V = std::strtod(S.c_str(), &End);
    if (S.empty() || *End != '\0' || !std::isfinite(V))
      return error(F.Col, "expected " + What + " (a number), found '" +
                              F.Text + "'");
    return V;
  }

private:
  StringRef Name;
  unsigned Line;
};

SmallVector<Field, 4> splitFields(StringRef L) {
  SmallVector<Field, 4> Out;
  size_t I = 0;
  while (I < L.size()) {
    while (I < L.size() && (L[I] == ' ' || L[I] == '\t' || L[I] == '\r'))
      ++I;
    if (I >= L.size())
      break;
    size_t B = I;
    while (I < L.size() && L[I] != ' ' && L[I] != '\t' && L[I] != '\r')
      ++I;
    Out.push_back({L.slice(B, I), static_cast<unsigned>(B + 1)});
  }
  return Out;
}
} // namespace

Expected<Topology> parseTopology(StringRef Text, StringRef Name) {
  Topology T;
  T.Name = Name.str();
  SmallVector<StringRef, 64> Lines;
  Text.split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = I + 1;
    LineParser P(Name, LineNo);
    // A NUL would end a field early for strtod (and hides text in editors): a
    // topology is a text file, so any NUL byte is an error, also in comments.
    size_t Nul = Lines[I].find('\0');
    if (Nul != StringRef::npos)
      return P.error(Nul + 1, "NUL byte (a topology file is text)");
    auto Fs = splitFields(Lines[I]);
    if (Fs.empty() || Fs[0].Text.starts_with("#") ||
        Fs[0].Text.starts_with("%"))
      continue;
    StringRef Kw = Fs[0].Text;
    if (Kw == "gain") {
      if (Fs.size() != 4)
        return P.error(Fs.size() > 4 ? Fs[4].Col : Fs.back().Col,
                       "a gain record has 3 fields (SRC DST DBM), found " +
                           Twine(Fs.size() - 1));
      auto Src = P.nodeId(Fs[1]);
      if (!Src)
        return Src.takeError();
      auto Dst = P.nodeId(Fs[2]);
      if (!Dst)
        return Dst.takeError();
      auto G = P.number(Fs[3], "a gain in dBm");
      if (!G)
        return G.takeError();
      if (*Src == *Dst)
        return P.error(Fs[2].Col, "gain from node " + Twine(*Src) +
                                      " to itself");
      auto It = T.Gains.find({*Src, *Dst});
      if (It != T.Gains.end())
        return P.error(Fs[1].Col, "duplicate gain " + Twine(*Src) + " -> " +
                                      Twine(*Dst) + " (first on line " +
                                      Twine(It->second.Line) + ")");
      T.Gains[{*Src, *Dst}] = {*G, LineNo};
      T.Nodes.insert(*Src);
      T.Nodes.insert(*Dst);
    } else if (Kw == "noise") {
      if (Fs.size() != 4)
        return P.error(Fs.size() > 4 ? Fs[4].Col : Fs.back().Col,
                       "a noise record has 3 fields (NODE MEAN VARIANCE), "
                       "found " +
                           Twine(Fs.size() - 1));
      auto N = P.nodeId(Fs[1]);
      if (!N)
        return N.takeError();
      auto Mean = P.number(Fs[2], "a noise mean in dBm");
      if (!Mean)
        return Mean.takeError();
      auto Var = P.number(Fs[3], "a noise variance");
      if (!Var)
        return Var.takeError();
      if (*Var < 0)
        return P.error(Fs[3].Col, "noise variance must not be negative");
      auto It = T.Noise.find(*N);
      if (It != T.Noise.end())
        return P.error(Fs[1].Col, "duplicate noise record for node " +
                                      Twine(*N) + " (first on line " +
                                      Twine(It->second.Line) + ")");
      T.Noise[*N] = {*Mean, *Var, LineNo};
      T.Nodes.insert(*N);
    } else {
      return P.error(Fs[0].Col, "unknown record '" + Kw +
                                    "' (expected 'gain' or 'noise')");
    }
  }
  if (T.Nodes.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s:1:1: error: topology has no gain or noise "
                             "records",
                             Name.str().c_str());
  return T;
}

Expected<Topology> readTopologyFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: error: cannot read: %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return parseTopology((*Buf)->getBuffer(), Path);
}

std::optional<double> linkSnr(const Topology &T, unsigned Src, unsigned Dst,
                              const LinkModel &M) {
  auto G = T.gain(Src, Dst);
  if (!G)
    return std::nullopt;
  double Floor = M.DefaultNoiseDbm;
  if (auto N = T.noise(Dst))
    Floor = N->MeanDbm;
  return *G - Floor;
}

bool hasLink(const Topology &T, unsigned Src, unsigned Dst,
             const LinkModel &M) {
  auto S = linkSnr(T, Src, Dst, M);
  return S && *S >= M.MinSnrDb;
}

std::vector<unsigned> neighbours(const Topology &T, unsigned N,
                                 const LinkModel &M) {
  std::vector<unsigned> Out;
  for (unsigned D : T.Nodes)
    if (D != N && hasLink(T, N, D, M))
      Out.push_back(D);
  return Out;
}

} // namespace topology
} // namespace wsn
