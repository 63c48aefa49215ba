//===- Routing.cpp - The routing pool of #ROUTING (thesis 3.3) ------------===//
#include "Routing.h"

#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <limits>
#include <queue>
#include <tuple>

using namespace llvm;

namespace wsn {
namespace sensorc {

std::optional<RoutingProtocol> lookupRoutingProtocol(StringRef Name) {
  std::string U = Name.upper();
  if (U == "AODV")
    return RoutingProtocol::Aodv;
  if (U == "SHORTEST_PATH")
    return RoutingProtocol::ShortestPath;
  return std::nullopt;
}

StringRef routingProtocolName(RoutingProtocol P) {
  return P == RoutingProtocol::Aodv ? "AODV" : "SHORTEST_PATH";
}

namespace {
/// Dijkstra with (cost, predecessor id) ordering so that equal-cost paths are
/// resolved deterministically towards lower-numbered predecessors.
std::optional<std::vector<unsigned>>
dijkstra(const topology::Topology &T, unsigned Src, unsigned Dst,
         const std::function<std::optional<long>(unsigned, unsigned)> &Cost) {
  if (!T.Nodes.count(Src) || !T.Nodes.count(Dst))
    return std::nullopt;
  const long Inf = std::numeric_limits<long>::max();
  std::map<unsigned, long> Dist;
  std::map<unsigned, unsigned> Pred;
  for (unsigned N : T.Nodes)
    Dist[N] = Inf;
  Dist[Src] = 0;
  using Item = std::tuple<long, unsigned>; // cost, node
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Q;
  Q.push({0, Src});
  std::set<unsigned> Done;
  while (!Q.empty()) {
    auto [D, U] = Q.top();
    Q.pop();
    if (Done.count(U))
      continue;
    Done.insert(U);
    for (unsigned V : T.Nodes) {
      if (V == U || Done.count(V))
        continue;
      auto C = Cost(U, V);
      if (!C)
        continue;
      long ND = D + *C;
      auto PIt = Pred.find(V);
      if (ND < Dist[V] || (ND == Dist[V] && PIt != Pred.end() &&
                           U < PIt->second)) {
        Dist[V] = ND;
        Pred[V] = U;
        Q.push({ND, V});
      }
    }
  }
  if (Dist[Dst] == Inf)
    return std::nullopt;
  std::vector<unsigned> Path{Dst};
  while (Path.back() != Src)
    Path.push_back(Pred[Path.back()]);
  std::reverse(Path.begin(), Path.end());
  return Path;
}
} // namespace

std::optional<std::vector<unsigned>>
RoutingPool::shortestPath(unsigned Src, unsigned Dst) const {
  return dijkstra(T, Src, Dst,
                  [&](unsigned U, unsigned V) -> std::optional<long> {
                    if (!topology::hasLink(T, U, V, M))
                      return std::nullopt;
                    return 1;
                  });
}

std::optional<std::vector<unsigned>>
RoutingPool::aodvDiscover(unsigned Src, unsigned Dst) const {
  return dijkstra(T, Src, Dst,
                  [&](unsigned U, unsigned V) -> std::optional<long> {
                    if (!topology::hasLink(T, U, V, M) ||
                        !topology::hasLink(T, V, U, M))
                      return std::nullopt;
                    double Snr = *topology::linkSnr(T, U, V, M);
                    long Penalty =
                        Snr >= 20 ? 0 : static_cast<long>(std::ceil(20 - Snr));
                    return 10 + Penalty;
                  });
}

std::optional<std::vector<unsigned>> RoutingPool::route(unsigned Src,
                                                        unsigned Dst) {
  auto Key = std::make_pair(Src, Dst);
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second;
  std::optional<std::vector<unsigned>> R;
  if (P == RoutingProtocol::ShortestPath) {
    R = shortestPath(Src, Dst);
  } else {
    // One discovery serves both directions; the lower-numbered end is taken
    // as its originator so that routes do not depend on query order.
    unsigned Lo = std::min(Src, Dst), Hi = std::max(Src, Dst);
    std::optional<std::vector<unsigned>> Fwd = aodvDiscover(Lo, Hi), Rev = Fwd;
    if (Rev)
      std::reverse(Rev->begin(), Rev->end());
    Cache[{Lo, Hi}] = Fwd;
    Cache[{Hi, Lo}] = Rev;
    return Src == Lo ? Fwd : Rev;
  }
  Cache[Key] = R;
  return R;
}

std::optional<std::vector<unsigned>> RoutingPool::relays(unsigned Src,
                                                         unsigned Dst) {
  auto R = route(Src, Dst);
  if (!R)
    return std::nullopt;
  if (R->size() <= 2)
    return std::vector<unsigned>();
  return std::vector<unsigned>(R->begin() + 1, R->end() - 1);
}

} // namespace sensorc
} // namespace wsn
