//===- Routing.h - The routing pool of #ROUTING (thesis 3.3) --------------===//
//
// Compile-time route computation over a #NETWORK topology, used to expand
// Routing_rule(src, dst) onto the relay nodes of the route (Table 3.2, third
// column). Assumption 3-2 of the thesis: once established, routes are
// stationary, so one computed route stands for the run.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_ROUTING_H
#define WSN_SENSORC_ROUTING_H

#include "Topology.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wsn {
namespace sensorc {

enum class RoutingProtocol { ShortestPath, Aodv };

/// Names accepted in #ROUTING: "AODV", "SHORTEST_PATH" (case-insensitive).
std::optional<RoutingProtocol> lookupRoutingProtocol(llvm::StringRef Name);
llvm::StringRef routingProtocolName(RoutingProtocol P);

/// A routing pool bound to one topology. Routes are full node paths
/// [src, relay..., dst].
///
/// SHORTEST_PATH: minimum hop count over usable directed links; ties go to
/// the lower-numbered predecessor. Each direction is computed on its own.
///
/// AODV: models route discovery. The source floods a RREQ; a node rebroadcasts
/// the first copy it hears and remembers the sender as its reverse hop. Only
/// links usable in both directions carry the discovery (the RREP travels the
/// reverse path). A hop costs 10 time units plus one per dB of SNR margin
/// below 20 dB (weak links need retries), so the RREQ's first arrival is the
/// minimum-delay path; ties go to the lower-numbered predecessor. The RREP
/// installs the reverse route too, so one discovery yields both directions
/// (the route back is the reversed path, as AODV's reverse routes are). The
/// lower-numbered end of a pair is taken as the originator, which keeps the
/// result independent of the order of queries.
class RoutingPool {
public:
  RoutingPool(const topology::Topology &T, RoutingProtocol P,
              topology::LinkModel M = topology::LinkModel())
      : T(T), P(P), M(M) {}

  /// The route, or nothing if DST is unreachable from SRC.
  std::optional<std::vector<unsigned>> route(unsigned Src, unsigned Dst);
  /// The relay nodes (route without its ends).
  std::optional<std::vector<unsigned>> relays(unsigned Src, unsigned Dst);

  RoutingProtocol protocol() const { return P; }
  const topology::Topology &topology() const { return T; }

private:
  std::optional<std::vector<unsigned>> shortestPath(unsigned Src,
                                                    unsigned Dst) const;
  std::optional<std::vector<unsigned>> aodvDiscover(unsigned Src,
                                                    unsigned Dst) const;
  const topology::Topology &T;
  RoutingProtocol P;
  topology::LinkModel M;
  std::map<std::pair<unsigned, unsigned>, std::optional<std::vector<unsigned>>>
      Cache;
};

} // namespace sensorc
} // namespace wsn

#endif
