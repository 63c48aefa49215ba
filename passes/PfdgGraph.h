//===- PfdgGraph.h - the invariant-based PFDG, independent of IR ----------===//
//
// The graph of thesis section 4.4.1 (Definition 4): nodes are functions, with
// call edges and dependence edges. This class knows nothing about LLVM IR so
// that the graph rules (Algorithm 3, Definitions 5-7, Algorithm 4) can be unit
// tested on synthetic call graphs; wsn::computePfdg (Pfdg.h) fills it from a
// module's slice.
//
// Edge directions follow the thesis. A call edge is stored caller -> callee.
// A canonical path climbs call edges from the invariant towards callers (the
// thesis writes <f1, f2> for "f1 is called by f2"), then follows dependence
// edges. A dependence edge f1 -> f2 means "something in f1 depends on
// something in f2".
//
//===----------------------------------------------------------------------===//
#ifndef WSN_PASSES_PFDGGRAPH_H
#define WSN_PASSES_PFDGGRAPH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wsn {

/// One error-propagation path from an earlier level (function names).
struct ErrorPath {
  std::vector<std::string> Functions;
  unsigned Line = 0; // 1-based line in the file it came from, 0 if none
};

/// Parses an error-path file: one path per line, function names separated by
/// "->", "," or white space; '#' starts a comment; blank lines are ignored.
/// Names may carry a leading '@'.
llvm::Expected<std::vector<ErrorPath>> parseErrorPaths(llvm::StringRef Text,
                                                       llvm::StringRef FileName);

/// Tarjan's strongly connected components over nodes 0..N-1. Returns the
/// component of each node; components are numbered in reverse topological
/// order (a component's callees come first). Members lists each component.
std::vector<unsigned>
tarjanSccs(unsigned N,
           llvm::function_ref<llvm::ArrayRef<unsigned>(unsigned)> Succs,
           std::vector<std::vector<unsigned>> &Members);

class PfdgGraph {
public:
  using NodeId = unsigned;

  NodeId addNode(llvm::StringRef Name);
  std::optional<NodeId> lookup(llvm::StringRef Name) const;
  unsigned size() const { return Nodes.size(); }
  llvm::StringRef name(NodeId N) const { return Nodes[N].Name; }

  /// Caller calls Callee directly (or may call it through a pointer).
  void addCall(NodeId Caller, NodeId Callee);
  /// An operation in F1 has a direct control/data dependence on an operation in
  /// F2, and that dependence is a link of a chain from an invariant.
  void addDependence(NodeId F1, NodeId F2);
  void markInvariant(NodeId N) { Nodes[N].Invariant = true; }
  /// Entry points started by the hardware (main, interrupt handlers). Every
  /// function without a caller is an entry point too.
  void markEntry(NodeId N) { Nodes[N].Entry = true; }
  void markInterrupt(NodeId N) { Nodes[N].Interrupt = true; }
  void markMain(NodeId N) { Nodes[N].Main = true; }

  /// Algorithm 3: turns every recorded dependence pair into dependence edges,
  /// then computes levels (Definition 6). Call once, after all nodes and edges.
  /// Pairs whose ancestors form no call cycle use the fast chain finder
  /// (per-target shortest-chain trees and dominator trees shared between
  /// pairs); the others use the per-pair reference algorithm. Both
  /// give the same edges (unittests/Analysis/PfdgScaleTest.cpp checks it).
  void build();
  /// The same as build(), with the straightforward per-pair algorithm for
  /// every pair: the oracle of the equivalence test.
  void buildReference();
  /// build() leaves out the chains whose every possible edge is already in
  /// the result (on by default; the result is the same either way). Off, it
  /// draws the chains of every closest common ancestor, as the reference.
  void setSkipRedundantChains(bool On) { SkipRedundant = On; }

  /// How build() treated the dependence pairs.
  struct BuildStats {
    unsigned Pairs = 0;    ///< distinct (F1, F2) pairs
    unsigned Rule1 = 0;    ///< caller/callee or siblings (Algorithm 3, rule 1)
    unsigned Fast = 0;     ///< chains found by the fast finder
    unsigned Fallback = 0; ///< handed to the reference algorithm
    /// Closest common ancestors handled by the fast finder, by how their
    /// chains were found: shortest-chain trees, two breadth-first searches,
    /// the two-path flow.
    unsigned TreeChains = 0, SearchChains = 0, FlowChains = 0;
    /// Shortest-chain trees the fast finder computed (each costs a search
    /// over the ancestors of its target; the rest were reused from its cache).
    unsigned TreesBuilt = 0;
    /// Edges drawn for rule-2 pairs before removing duplicates (the result
    /// keeps dependenceEdges().size() distinct ones).
    uint64_t ChainEdges = 0;
    /// Closest common ancestors whose chains were not drawn because every
    /// edge they could add was already in the result (see
    /// setSkipRedundantChains).
    uint64_t SkippedCcas = 0;
    /// Pairs revisited for their deferred closest common ancestors.
    unsigned DeferredPairs = 0;
  };
  const BuildStats &buildStats() const { return Stats; }

  const std::vector<std::pair<NodeId, NodeId>> &callEdges() const {
    return CallEdgeList;
  }
  /// Dependence edges, sorted and unique.
  const std::vector<std::pair<NodeId, NodeId>> &dependenceEdges() const {
    return DepEdgeList;
  }
  llvm::ArrayRef<NodeId> callers(NodeId N) const { return Nodes[N].Callers; }
  llvm::ArrayRef<NodeId> callees(NodeId N) const { return Nodes[N].Callees; }
  llvm::ArrayRef<NodeId> depSuccs(NodeId N) const { return Nodes[N].DepSuccs; }
  bool isInvariant(NodeId N) const { return Nodes[N].Invariant; }
  bool isInterrupt(NodeId N) const { return Nodes[N].Interrupt; }
  bool isMain(NodeId N) const { return Nodes[N].Main; }

  /// Definition 6. Invariant-checking functions are the origin of every
  /// canonical path and get level 0; functions no canonical path reaches have
  /// no level. Members of one recursive cycle share the smallest level among
  /// them (spec/analysis.md, "Recursion").
  std::optional<unsigned> level(NodeId N) const { return Nodes[N].Level; }

  /// Definition 7: N ends a canonical path of exactly \p Level call edges.
  bool isBoundary(NodeId N, unsigned Level) const;

  /// Recursion: the strongly connected component of N in the call graph.
  unsigned sccOf(NodeId N) const { return Nodes[N].Scc; }
  bool isRecursive(NodeId N) const { return Nodes[N].Recursive; }

  /// Algorithm 4 plus the always-selected functions. Without paths, level-n
  /// tracing selects every function of level <= n (thesis 4.4.1: a procedure
  /// may start at level m if all functions of levels <= m are included). With
  /// paths (error-propagation paths of earlier levels), S is: the functions of
  /// the paths, every level-n function one edge away from a path node, and the
  /// invariant-checking functions. In both cases main is added, and the set is
  /// closed over recursive cycles. Interrupt handlers are added by the IR layer
  /// (they depend on mod/ref sets that this graph does not know).
  /// Fails on a path naming an unknown function or two consecutive functions
  /// not joined by an edge.
  llvm::Expected<std::vector<bool>>
  select(unsigned Level, llvm::ArrayRef<ErrorPath> Paths,
         llvm::StringRef PathFile) const;

  /// Adds N and its whole recursive cycle to Sel.
  void selectWithScc(NodeId N, std::vector<bool> &Sel) const;

private:
  struct Node {
    std::string Name;
    llvm::SmallVector<NodeId, 4> Callers, DepSuccs;
    std::vector<NodeId> Callees;
    bool Invariant = false, Entry = false, Interrupt = false, Main = false;
    bool Recursive = false;
    unsigned Scc = 0;
    std::optional<unsigned> Level;
  };
  std::vector<Node> Nodes;
  llvm::StringMap<NodeId> ByName;
  llvm::DenseSet<std::pair<NodeId, NodeId>> CallSet, DepPairSet;
  std::vector<std::pair<NodeId, NodeId>> CallEdgeList, DepPairs, DepEdgeList;
  std::vector<std::vector<NodeId>> SccMembers;
  /// CallDist[k] holds the nodes that end a call-only canonical path of exactly
  /// k edges, for k up to MaxCallDist (computed lazily by isBoundary).
  mutable std::vector<llvm::DenseSet<NodeId>> CallDist;

  BuildStats Stats;
  bool SkipRedundant = true;

  struct ChainFinder;
  void buildImpl(bool Reference);
  void computeSccs();
  bool isEntryNode(NodeId V) const {
    return Nodes[V].Entry || Nodes[V].Callers.empty();
  }
  void addDependenceChains(NodeId F1, NodeId F2,
                           std::vector<std::pair<NodeId, NodeId>> &Out) const;
  void computeLevels();
  bool shareCaller(NodeId A, NodeId B) const;
  bool hasEdge(NodeId From, NodeId To) const;
};

} // namespace wsn

#endif
