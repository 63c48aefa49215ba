//===- Decompose.h - Global property decomposition (thesis 3.2, 3.3) ------===//
//
// Algorithm 1 (GPD): TEMP substitution, instantiation over NODE sets,
// conversion of wsn_expressions by Tables 3.1/3.2, CNF, and assignment of
// each clause to the node where it has the fewest remote variables.
// Algorithm 2 regroups a node's clauses back into NODE-variable form, and the
// local-first guard of Figure 3.4 splits each check so that remote values are
// only needed once the local part of the violation holds.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SENSORC_DECOMPOSE_H
#define WSN_SENSORC_DECOMPOSE_H

#include "AST.h"
#include "Routing.h"
#include "Topology.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace wsn {
namespace sensorc {

/// A value (or a rule/event status) held by one node: Definition 3's
/// variables, at field granularity ("rt.seq" on node 4).
struct ItemRef {
  std::string Key;
  int64_t Node = 0;
  bool operator<(const ItemRef &O) const {
    return Node != O.Node ? Node < O.Node : Key < O.Key;
  }
  bool operator==(const ItemRef &O) const {
    return Node == O.Node && Key == O.Key;
  }
};

/// The items an expression reads, with the node that holds each. Local
/// references (no index) are attributed to LocalNode.
void collectItems(const Expr &E, int64_t LocalNode, std::set<ItemRef> &Out);
/// "Send_rule(0, 1, m.type, LESS_THAN 5)" or "Routing_rule(1, 0)@2": the
/// identity of a rule atom held by its checking node.
std::string ruleItemKey(const Expr &Rule, int64_t At);

/// Resource limits of decomposition (spec/sensorc.md section 9): ground
/// instances of all checks together, and nodes that receive a program (one
/// .sl and one .c file each). Beyond them decompose fails with the location of
/// the check that has the most instances.
constexpr uint64_t MaxInstances = 200000;
constexpr size_t MaxNodePrograms = 4096;

struct DecomposeOptions {
  /// Network size for [ALL] when there is no #NETWORK: nodes 0..N-1.
  std::optional<unsigned> NodeCount;
  /// Directory against which a relative #NETWORK file name is resolved.
  std::string BaseDir;
  topology::LinkModel Link;
};

struct GroundClause {
  std::vector<ExprPtr> Lits; // a disjunction; Cmp literals carry no NOT
  std::set<ItemRef> Items;
  unsigned Stmt = 0; // index of the originating check in Program::Stmts
};

/// The clause-assign problem of Theorem 3.2.1: each clause's items, the
/// candidate nodes. Costs count distinct remote items per node.
struct AssignmentProblem {
  std::vector<std::set<ItemRef>> ClauseItems;
  std::vector<unsigned> Nodes;
};

/// Algorithm 1 step 6: each clause goes to a node where it has the fewest
/// remote items; ties go to the node where it adds the fewest new remote
/// items, then to the lower node id.
std::vector<unsigned> greedyAssign(const AssignmentProblem &P);
/// Exact minimum by branch and bound over all assignments; nothing when more
/// than Budget partial assignments would be explored.
std::optional<std::vector<unsigned>>
exhaustiveAssign(const AssignmentProblem &P, uint64_t Budget = 50000000);
/// Sum over nodes of the number of distinct remote items.
unsigned assignmentCost(const AssignmentProblem &P,
                        const std::vector<unsigned> &Assign);

struct NodeResult {
  unsigned Node = 0;
  std::vector<unsigned> Clauses; // indices into Decomposition::Clauses
  std::set<ItemRef> Local, Remote;
  /// Items other nodes request from this node.
  std::set<ItemRef> Served;
  /// The SensorC_L program (regrouped, guard-split). Empty Stmts when the
  /// node checks nothing.
  Program Local_;
};

struct Decomposition {
  const Program *Source = nullptr;
  std::vector<unsigned> Nodes; // the network
  std::optional<topology::Topology> Topo;
  std::optional<RoutingProtocol> Routing;
  /// Instantiated, converted properties P'_i (which must all hold).
  std::vector<ExprPtr> Instances;
  std::vector<GroundClause> Clauses;
  std::vector<unsigned> Assign; // node of each clause
  std::map<unsigned, NodeResult> PerNode;
  unsigned TotalCost = 0;
  std::vector<std::string> Warnings;

  AssignmentProblem problem() const;
};

/// Runs Algorithms 1 and 2 on a SensorC_G program. The program must outlive
/// the result. Errors are located ("FILE:LINE:COL: error: ...").
llvm::Expected<std::unique_ptr<Decomposition>>
decompose(const Program &G, const DecomposeOptions &Opts);

/// Builds the network node list of a program: the topology's nodes when it
/// has #NETWORK, else 0..NodeCount-1. Used by the evaluator as well.
llvm::Expected<std::vector<unsigned>>
networkNodes(const Program &G, const DecomposeOptions &Opts,
             std::optional<topology::Topology> *TopoOut = nullptr);

/// The node ids a NODE declaration stands for.
std::vector<unsigned> nodeSet(const Decl &D,
                              const std::vector<unsigned> &Network);

} // namespace sensorc
} // namespace wsn

#endif
