//===- Eval.h - Meaning of SensorC programs on a valuation ----------------===//
//
// The reference semantics used by the tests: a valuation gives every
// (item, node) a value (GLOBAL variable fields) or a truth value (events,
// property-checking functions). A SensorC_G program holds when no check's
// condition is true for any binding of its NODE variables; a SensorC_L
// program likewise on its node. wsn_expressions mean the conjunction of the
// property-checking functions of Table 3.2 (the domain model the thesis
// assumes), computed here independently of the decomposer.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_EVAL_H
#define WSN_SENSORC_EVAL_H

#include "AST.h"
#include "Routing.h"
#include "Topology.h"
#include <cstdint>
#include <string>
#include <vector>

namespace wsn {
namespace sensorc {

/// A pseudo-random valuation, a pure function of (Seed, item, node).
struct Valuation {
  uint64_t Seed = 0;
  int64_t Range = 4; // values are 0..Range-1
  int64_t value(const std::string &Key, int64_t Node) const;
  bool truth(const std::string &Key, int64_t Node) const;
};

struct EvalContext {
  std::vector<unsigned> Network;               // for [ALL]
  const topology::Topology *Topo = nullptr;    // for BROADCAST neighbours
  RoutingPool *Pool = nullptr;                 // for Routing_rule relays
  topology::LinkModel Link;
};

/// Whether the SensorC_G program's properties all hold. The program must be
/// valid for decomposition (TEMPs assigned, no cycles).
bool holdsGlobal(const Program &G, const EvalContext &C, const Valuation &V);
/// Whether the SensorC_L program's checks all pass on its node.
bool holdsLocal(const Program &L, const EvalContext &C, const Valuation &V);
/// A ground formula (no NODE variables, TEMPs or wsn_expressions).
bool holdsGround(const Expr &E, const Valuation &V);

} // namespace sensorc
} // namespace wsn

#endif
