//===- PfdgGraph.cpp - the invariant-based PFDG, independent of IR --------===//
#include "PfdgGraph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <deque>
#include <memory>

using namespace llvm;

namespace wsn {

Expected<std::vector<ErrorPath>> parseErrorPaths(StringRef Text,
                                                 StringRef FileName) {
  std::vector<ErrorPath> Out;
  unsigned LineNo = 0;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++LineNo;
    Line = Line.split('#').first;
    std::string Buf = Line.str();
    for (size_t I = 0; I + 1 < Buf.size(); ++I)
      if (Buf[I] == '-' && Buf[I + 1] == '>')
        Buf[I] = Buf[I + 1] = ' ';
    std::replace(Buf.begin(), Buf.end(), ',', ' ');
    SmallVector<StringRef, 8> Words;
    StringRef(Buf).split(Words, ' ', -1, /*KeepEmpty=*/false);
    ErrorPath P;
    P.Line = LineNo;
    for (StringRef W : Words) {
      W = W.trim();
      if (W.empty())
        continue;
      if (W.consume_front("@") && W.empty())
        return createStringError(
            inconvertibleErrorCode(),
            formatv("{0}:{1}: '@' without a function name", FileName, LineNo)
                .str());
      if (W.contains('-') && !W.contains('$'))
        return createStringError(
            inconvertibleErrorCode(),
            formatv("{0}:{1}: malformed path element '{2}' (expected function "
                    "names separated by '->')",
                    FileName, LineNo, W)
                .str());
      P.Functions.push_back(W.str());
    }
    if (!P.Functions.empty())
      Out.push_back(std::move(P));
  }
  return Out;
}

PfdgGraph::NodeId PfdgGraph::addNode(StringRef Name) {
  auto It = ByName.find(Name);
  if (It != ByName.end())
    return It->second;
  NodeId Id = Nodes.size();
  Nodes.emplace_back();
  Nodes.back().Name = Name.str();
  ByName[Name] = Id;
  return Id;
}

std::optional<PfdgGraph::NodeId> PfdgGraph::lookup(StringRef Name) const {
  auto It = ByName.find(Name);
  if (It == ByName.end())
    return std::nullopt;
  return It->second;
}

void PfdgGraph::addCall(NodeId Caller, NodeId Callee) {
  if (!CallSet.insert({Caller, Callee}).second)
    return;
  Nodes[Caller].Callees.push_back(Callee);
  Nodes[Callee].Callers.push_back(Caller);
  CallEdgeList.push_back({Caller, Callee});
}

void PfdgGraph::addDependence(NodeId F1, NodeId F2) {
  if (F1 == F2)
    return;
  if (DepPairSet.insert({F1, F2}).second)
    DepPairs.push_back({F1, F2});
}

bool PfdgGraph::shareCaller(NodeId A, NodeId B) const {
  const auto &CA = Nodes[A].Callers, &CB = Nodes[B].Callers;
  if (CA.size() > CB.size())
    return shareCaller(B, A);
  for (NodeId C : CA)
    if (CallSet.count({C, B}))
      return true;
  // Two entry points are both started by the hardware (the virtual root); they
  // do not count as siblings here: that case goes through the chain rule.
  return false;
}

bool PfdgGraph::hasEdge(NodeId From, NodeId To) const {
  if (CallSet.count({From, To}) || CallSet.count({To, From}))
    return true;
  return is_contained(Nodes[From].DepSuccs, To) ||
         is_contained(Nodes[To].DepSuccs, From);
}

std::vector<unsigned>
tarjanSccs(unsigned N, function_ref<ArrayRef<unsigned>(unsigned)> Succs,
           std::vector<std::vector<unsigned>> &Members) {
  std::vector<int> Index(N, -1), Low(N, 0);
  std::vector<bool> OnStack(N, false);
  std::vector<unsigned> Stack, Comp(N, 0);
  int Counter = 0;
  Members.clear();
  for (unsigned Start = 0; Start < N; ++Start) {
    if (Index[Start] != -1)
      continue;
    std::vector<std::pair<unsigned, unsigned>> Work{{Start, 0}};
    Index[Start] = Low[Start] = Counter++;
    Stack.push_back(Start);
    OnStack[Start] = true;
    while (!Work.empty()) {
      auto [V, I] = Work.back();
      ArrayRef<unsigned> S = Succs(V);
      if (I < S.size()) {
        ++Work.back().second;
        unsigned W = S[I];
        if (Index[W] == -1) {
          Index[W] = Low[W] = Counter++;
          Stack.push_back(W);
          OnStack[W] = true;
          Work.push_back({W, 0});
        } else if (OnStack[W]) {
          Low[V] = std::min(Low[V], Index[W]);
        }
        continue;
      }
      Work.pop_back();
      if (!Work.empty())
        Low[Work.back().first] = std::min(Low[Work.back().first], Low[V]);
      if (Low[V] == Index[V]) {
        unsigned Id = Members.size();
        Members.emplace_back();
        unsigned W;
        do {
          W = Stack.back();
          Stack.pop_back();
          OnStack[W] = false;
          Comp[W] = Id;
          Members.back().push_back(W);
        } while (W != V);
      }
    }
  }
  return Comp;
}

void PfdgGraph::computeSccs() {
  std::vector<unsigned> Comp = tarjanSccs(
      Nodes.size(), [&](unsigned V) { return ArrayRef<unsigned>(Nodes[V].Callees); },
      SccMembers);
  for (NodeId V = 0; V < Nodes.size(); ++V)
    Nodes[V].Scc = Comp[V];
  for (auto &M : SccMembers) {
    bool Rec = M.size() > 1 || CallSet.count({M.front(), M.front()});
    for (NodeId V : M)
      Nodes[V].Recursive = Rec;
  }
}


// Exact fallback: two node-disjoint paths from G to the sink 0 (through F1 and
// F2) by two augmenting paths in the node-split network.
template <typename SuccFn>
static bool twoDisjointPaths(unsigned G, unsigned N, SuccFn &forwardSuccs,
                             std::vector<std::vector<unsigned>> &Chains) {
  struct Arc {
    unsigned To;
    int Cap;
    unsigned Rev;
    bool Fwd;
  };
  SmallVector<unsigned, 8> Succ;
  unsigned NN = 2 * N; // in(v) = 2v, out(v) = 2v+1; the sink is in(0)
  std::vector<std::vector<Arc>> Adj(NN);
  auto addArc = [&](unsigned A, unsigned B, int Cap) {
    Adj[A].push_back({B, Cap, (unsigned)Adj[B].size(), true});
    Adj[B].push_back({A, 0, (unsigned)Adj[A].size() - 1, false});
  };
  for (unsigned V = 1; V < N; ++V) {
    addArc(2 * V, 2 * V + 1, V == G ? 2 : 1);
    forwardSuccs(V, Succ);
    for (unsigned W : Succ)
      addArc(2 * V + 1, 2 * W, 1);
  }
  unsigned Src = 2 * G, Sink = 0;
  for (int Flow = 0; Flow < 2; ++Flow) {
    std::vector<std::pair<int, int>> Parent(NN, {-1, -1});
    std::deque<unsigned> Q{Src};
    Parent[Src] = {(int)Src, -1};
    while (!Q.empty() && Parent[Sink].first == -1) {
      unsigned U = Q.front();
      Q.pop_front();
      for (unsigned I = 0; I < Adj[U].size(); ++I) {
        const Arc &A = Adj[U][I];
        if (A.Cap > 0 && Parent[A.To].first == -1) {
          Parent[A.To] = {(int)U, (int)I};
          Q.push_back(A.To);
        }
      }
    }
    if (Parent[Sink].first == -1)
      return false;
    for (unsigned V = Sink; V != Src;) {
      auto [U, I] = Parent[V];
      Arc &A = Adj[U][I];
      A.Cap -= 1;
      Adj[A.To][A.Rev].Cap += 1;
      V = U;
    }
  }
  // Decompose: follow used forward arcs from out(G) to the sink.
  for (int K = 0; K < 2; ++K) {
    std::vector<unsigned> Chain{G};
    unsigned Cur = 2 * G + 1;
    while (true) {
      bool Moved = false;
      for (Arc &A : Adj[Cur]) {
        if (A.Fwd && A.To != Cur - 1 && A.Cap == 0 &&
            Adj[A.To][A.Rev].Cap > 0) {
          Adj[A.To][A.Rev].Cap -= 1; // consume
          unsigned W = A.To / 2;
          if (W == 0)
            break;
          Chain.push_back(W);
          Cur = 2 * W + 1;
          Moved = true;
          break;
        }
      }
      if (!Moved)
        break;
    }
    Chains[K] = std::move(Chain);
  }
  return true;
}

// Algorithm 3, rule 2, for one dependence pair. The call graph is extended with
// a virtual root (the hardware) that calls every entry point (main, handlers,
// functions without callers); it can be a closest common ancestor but never
// appears in an edge. Closest common ancestors are found with dominators in the
// reverse call graph: g is one iff g is a common ancestor and no single node
// other than g separates g from {f1, f2}, i.e. the immediate dominator of g,
// seen from a sink joined to f1 and f2, is the sink itself (Menger). For every
// such g one pair of chains is drawn, found as two node-disjoint paths by a
// two-step augmenting-path flow.
void PfdgGraph::addDependenceChains(
    NodeId F1, NodeId F2, std::vector<std::pair<NodeId, NodeId>> &Out) const {
  const NodeId Root = Nodes.size(); // virtual root
  // Local numbering: 0 = sink, then the ancestors of F1 and F2 and the root.
  DenseMap<NodeId, unsigned> Local;
  std::vector<NodeId> Global{~0u};
  std::vector<uint8_t> Side{0}; // bit 0: ancestor of F1, bit 1: of F2
  auto isEntry = [&](NodeId V) {
    return Nodes[V].Entry || Nodes[V].Callers.empty();
  };
  for (unsigned S = 0; S < 2; ++S) {
    std::vector<NodeId> Work{S == 0 ? F1 : F2};
    DenseSet<NodeId> Seen{Work.front()};
    while (!Work.empty()) {
      NodeId V = Work.back();
      Work.pop_back();
      auto [It, New] = Local.insert({V, (unsigned)Global.size()});
      if (New) {
        Global.push_back(V);
        Side.push_back(0);
      }
      Side[It->second] |= 1u << S;
      if (V == Root)
        continue;
      for (NodeId C : Nodes[V].Callers)
        if (Seen.insert(C).second)
          Work.push_back(C);
      if (isEntry(V) && Seen.insert(Root).second)
        Work.push_back(Root);
    }
  }
  unsigned N = Global.size();
  // Forward (caller -> callee) successors inside the local set, and the sink.
  auto forwardSuccs = [&](unsigned L, SmallVectorImpl<unsigned> &Succ) {
    Succ.clear();
    NodeId V = Global[L];
    if (V == Root) {
      for (unsigned I = 1; I < N; ++I)
        if (Global[I] != Root && isEntry(Global[I]))
          Succ.push_back(I);
      return;
    }
    for (NodeId C : Nodes[V].Callees) {
      auto It = Local.find(C);
      if (It != Local.end())
        Succ.push_back(It->second);
    }
    if (V == F1 || V == F2)
      Succ.push_back(0);
  };
  // Reverse graph successors: callers (and the root for entries); from the
  // sink: F1 and F2.
  auto reverseSuccs = [&](unsigned L, SmallVectorImpl<unsigned> &Succ) {
    Succ.clear();
    if (L == 0) {
      Succ.push_back(Local[F1]);
      Succ.push_back(Local[F2]);
      return;
    }
    NodeId V = Global[L];
    if (V == Root)
      return;
    for (NodeId C : Nodes[V].Callers)
      Succ.push_back(Local[C]);
    if (isEntry(V))
      Succ.push_back(Local[Root]);
  };

  // Dominators of the reverse graph from the sink (Cooper, Harvey, Kennedy).
  std::vector<unsigned> Post;
  std::vector<int> PostNum(N, -1);
  {
    std::vector<bool> Vis(N, false);
    std::vector<std::pair<unsigned, unsigned>> Work{{0, 0}};
    std::vector<SmallVector<unsigned, 4>> SuccCache(N);
    Vis[0] = true;
    reverseSuccs(0, SuccCache[0]);
    while (!Work.empty()) {
      auto &[V, I] = Work.back();
      if (I < SuccCache[V].size()) {
        unsigned W = SuccCache[V][I++];
        if (!Vis[W]) {
          Vis[W] = true;
          reverseSuccs(W, SuccCache[W]);
          Work.push_back({W, 0});
        }
        continue;
      }
      PostNum[V] = Post.size();
      Post.push_back(V);
      Work.pop_back();
    }
  }
  std::vector<SmallVector<unsigned, 4>> Preds(N); // preds in the reverse graph
  {
    SmallVector<unsigned, 8> S;
    for (unsigned V = 0; V < N; ++V) {
      reverseSuccs(V, S);
      for (unsigned W : S)
        Preds[W].push_back(V);
    }
  }
  std::vector<int> IDom(N, -1);
  IDom[0] = 0;
  auto intersect = [&](int A, int B) {
    while (A != B) {
      while (PostNum[A] < PostNum[B])
        A = IDom[A];
      while (PostNum[B] < PostNum[A])
        B = IDom[B];
    }
    return A;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = Post.rbegin(); It != Post.rend(); ++It) {
      unsigned V = *It;
      if (V == 0)
        continue;
      int New = -1;
      for (unsigned P : Preds[V]) {
        if (IDom[P] == -1)
          continue;
        New = New == -1 ? (int)P : intersect(P, New);
      }
      if (New != -1 && IDom[V] != New) {
        IDom[V] = New;
        Changed = true;
      }
    }
  }

  SmallVector<unsigned, 4> Ccas;
  for (unsigned V = 1; V < N; ++V)
    if (Side[V] == 3 && IDom[V] == 0)
      Ccas.push_back(V);
  if (Ccas.empty()) {
    // Unreachable from any entry (e.g. a dead recursive cycle): keep the
    // dependence as a direct edge rather than lose it.
    Out.push_back({F1, F2});
    return;
  }

  // Two node-disjoint chains G -> F1 and G -> F2 (sharing only G). Fast path:
  // a shortest chain to one target, then one to the other avoiding it; the
  // exact two-path flow below is used only when both orders fail.
  SmallVector<unsigned, 8> Succ;
  std::vector<int> Par(N, -1);
  std::vector<unsigned> Touched;
  auto bfsPath = [&](unsigned From, unsigned To, const std::vector<bool> *Avoid,
                     std::vector<unsigned> &Path) {
    for (unsigned T : Touched)
      Par[T] = -1;
    Touched.clear();
    std::deque<unsigned> Q{From};
    Par[From] = From;
    Touched.push_back(From);
    while (!Q.empty()) {
      unsigned U = Q.front();
      Q.pop_front();
      if (U == To)
        break;
      forwardSuccs(U, Succ);
      for (unsigned W : Succ) {
        if (W == 0 || Par[W] != -1 || (Avoid && (*Avoid)[W]))
          continue;
        Par[W] = U;
        Touched.push_back(W);
        Q.push_back(W);
      }
    }
    if (Par[To] == -1)
      return false;
    Path.clear();
    for (unsigned V = To; V != From; V = Par[V])
      Path.push_back(V);
    Path.push_back(From);
    std::reverse(Path.begin(), Path.end());
    return true;
  };
  std::vector<bool> Avoid(N, false);
  unsigned L1 = Local[F1], L2 = Local[F2];
  // Shortest chains from every ancestor down to F1 and to F2: one backward
  // breadth-first search from each target gives the next hop.
  std::vector<int> Next[2] = {std::vector<int>(N, -1), std::vector<int>(N, -1)};
  for (int K = 0; K < 2; ++K) {
    unsigned T = K == 0 ? L1 : L2;
    std::vector<int> &Nx = Next[K];
    Nx[T] = T;
    std::deque<unsigned> Q{T};
    while (!Q.empty()) {
      unsigned V = Q.front();
      Q.pop_front();
      reverseSuccs(V, Succ);
      for (unsigned U : Succ)
        if (Nx[U] == -1) {
          Nx[U] = V;
          Q.push_back(U);
        }
    }
  }
  auto follow = [&](unsigned G, int K, std::vector<unsigned> &Path) {
    Path.assign(1, G);
    for (unsigned V = G; (int)V != Next[K][V];) {
      V = Next[K][V];
      Path.push_back(V);
    }
  };
  for (unsigned G : Ccas) {
    std::vector<std::vector<unsigned>> Chains(2);
    bool Found = false;
    // Cheapest: shortest chains through two different callees of G (the
    // shortest chains themselves first), if they happen to be disjoint.
    auto tryPair = [&](unsigned C0, unsigned C1) {
      std::vector<unsigned> P0, P1;
      follow(C0, 0, P0);
      follow(C1, 1, P1);
      if (C0 != G)
        P0.insert(P0.begin(), G);
      if (C1 != G)
        P1.insert(P1.begin(), G);
      bool Disjoint = true;
      for (unsigned V : P0)
        if (V != G)
          Avoid[V] = true;
      for (unsigned V : P1)
        if (V != G && Avoid[V])
          Disjoint = false;
      for (unsigned V : P0)
        Avoid[V] = false;
      if (Disjoint) {
        Chains[0] = std::move(P0);
        Chains[1] = std::move(P1);
      }
      return Disjoint;
    };
    Found = tryPair(G, G);
    if (!Found) {
      SmallVector<unsigned, 8> Kids, K0, K1;
      forwardSuccs(G, Kids);
      for (unsigned C : Kids) {
        if (C == 0)
          continue;
        if (Next[0][C] != -1)
          K0.push_back(C);
        if (Next[1][C] != -1)
          K1.push_back(C);
      }
      if (G == L1)
        K0.assign(1, G);
      if (G == L2)
        K1.assign(1, G);
      unsigned Tries = 0;
      for (unsigned A : K0) {
        for (unsigned B : K1) {
          if (A == B || ++Tries > 32)
            continue;
          if ((Found = tryPair(A, B)))
            break;
        }
        if (Found)
          break;
      }
    }
    for (int Order = 0; Order < 2 && !Found; ++Order) {
      unsigned A = Order == 0 ? L1 : L2, B = Order == 0 ? L2 : L1;
      std::vector<unsigned> PA, PB;
      if (!bfsPath(G, A, nullptr, PA))
        break;
      for (unsigned V : PA)
        if (V != G)
          Avoid[V] = true;
      bool Ok = B == G || !Avoid[B] ? bfsPath(G, B, &Avoid, PB) : false;
      for (unsigned V : PA)
        Avoid[V] = false;
      if (Ok) {
        Chains[0] = std::move(PA);
        Chains[1] = std::move(PB);
        Found = true;
      }
    }
    if (!Found && !twoDisjointPaths(G, N, forwardSuccs, Chains))
      continue;
    // Which chain ends at F1?
    auto endsAt = [&](const std::vector<unsigned> &C, NodeId F) {
      return Global[C.back()] == F;
    };
    const std::vector<unsigned> *C1 = &Chains[0], *C2 = &Chains[1];
    if (!endsAt(*C1, F1))
      std::swap(C1, C2);
    if (!endsAt(*C1, F1) || !endsAt(*C2, F2))
      continue;
    // f1 -> ... -> g1 -> g2 -> ... -> f2 (g itself only when it is f1 or f2).
    std::vector<NodeId> Seq;
    if (C1->size() == 1)
      Seq.push_back(Global[G]);
    for (size_t I = C1->size(); I-- > 1;)
      Seq.push_back(Global[(*C1)[I]]);
    for (size_t I = 1; I < C2->size(); ++I)
      Seq.push_back(Global[(*C2)[I]]);
    if (C2->size() == 1)
      Seq.push_back(Global[G]);
    for (size_t I = 0; I + 1 < Seq.size(); ++I)
      if (Seq[I] != Seq[I + 1])
        Out.push_back({Seq[I], Seq[I + 1]});
  }
}

// The fast chain finder (Algorithm 3, rule 2, for many pairs). It computes
// exactly what addDependenceChains computes, but
//  - the shortest-chain trees (one breadth-first search over the callers of
//    a target, the "next hop" towards it) depend on the target only, so they
//    are kept in a small cache and shared by every pair with the same end;
//    pairs are visited grouped by their second function, so the writer of a
//    global serves all of its readers with one search;
//  - when the ancestors of the pair contain no call cycle, each tree also
//    holds the dominators towards its target (one pass in topological order,
//    callees first), and the closest common ancestors are the common
//    ancestors whose dominator chains towards F1 and towards F2 are disjoint
//    (no union of the two ancestor sets and no per-pair dominator solution);
//    the same dominators let the search that avoids the first chain skip
//    nodes that cannot reach its end;
//  - tree edges already added to the result are marked in the tree itself
//    (per side), so a later pair whose chains run along the same tree stops
//    where an earlier one (or an earlier chain of the same pair) reached;
//  - all scratch state lives in arrays indexed by node id, reset by touching
//    only what was used, so a pair costs time linear in its ancestors with a
//    small constant (no hash maps, no allocation per pair).
// Where a tie-break of the reference depends on its internal numbering of the
// ancestors (chains drawn from the virtual root when the plain shortest
// chains overlap, and the two-path flow fallback), that numbering is rebuilt
// (linear, only for such pairs). Pairs with recursive ancestors are handed to
// the reference algorithm. Results are identical either way.
struct PfdgGraph::ChainFinder {
  using Edge = std::pair<NodeId, NodeId>;
  const PfdgGraph &G;
  BuildStats &St;
  const unsigned N;    // real nodes; the virtual root is N
  const NodeId Root;

  // Shortest-chain tree towards one target over its ancestors (and the
  // root): Next[V] is the next hop from V towards the target, -1 if V is not
  // an ancestor. Order lists the ancestors in breadth-first order.
  struct Tree {
    NodeId Target = ~0u;
    uint64_t LastUse = 0;
    bool HasRecursive = false;
    // Per node: the next hop towards the target (-1: not an ancestor) and
    // the chain length to the target (ancestors only), side by side, as the
    // chain walks read both.
    struct Hop {
      int Next;
      unsigned Dist;
    };
    std::vector<Hop> H;
    // The ancestors (and the target) as a bit set: the membership tests of
    // the closest-common-ancestor pass read it for two trees at once.
    std::vector<uint64_t> InSet;
    bool in(NodeId V) const { return (InSet[V >> 6] >> (V & 63)) & 1; }
    // The call edge V -> Next[V] by its position in CallerList (CallBits).
    std::vector<unsigned> NextCall;
    std::vector<NodeId> Order;
    // The ancestors in a topological order, callees first (the target
    // first): the reverse of a depth-first postorder over the callers. Only
    // filled (ensureTopo) when no ancestor is recursive.
    std::vector<NodeId> Topo;
    // Tree edges already in the result: Emitted[K][V] == Serial means the
    // edge at V and every one after it towards the target were added by some
    // pair that used this tree on side K (0: towards F1, drawn reversed;
    // 1: towards F2). The result is a set, so later pairs skip them. Serial
    // numbers the builds, so a rebuilt slot starts with no marks.
    unsigned Serial = 0;
    mutable std::vector<unsigned> Emitted[2];
    // Dominators towards the target (only without recursive ancestors):
    // IDom[V] is the node closest to V that every call chain from V down to
    // the target passes through (the target's is itself); DomDepth its depth
    // in that tree.
    std::vector<NodeId> IDom;
    std::vector<unsigned> DomDepth;
    bool TopoReady = false; // Topo (ensureTopo)
    bool DomsReady = false; // IDom and DomDepth (ensureDoms)
    // Redundancy test (see redundant()): Bad[K][V] == BadStamp[K] marks the
    // ancestors V from which some call edge inside this tree's ancestor set
    // is reachable whose side-K dependence edge is not yet in the result
    // (K = 0: callee -> caller, K = 1: caller -> callee). Valid while the
    // result's call-edge version is BadVersion[K].
    std::vector<unsigned> Bad[2];
    unsigned BadStamp[2] = {0, 0};
    uint64_t BadVersion[2] = {~0ull, ~0ull};
  };
  static constexpr unsigned NumTrees = 16;
  Tree Trees[NumTrees];
  uint64_t Clock = 0;
  unsigned Serials = 0;

  // Per-pair scratch, indexed by node id (root included).
  unsigned Epoch = 0; // numbers the pairs (numberLikeReference)
  std::vector<int> Par;
  std::vector<unsigned> Level; // BFS level, valid where Par != -1
  std::vector<NodeId> Touched, BfsQ;
  std::vector<bool> Avoid;
  // The reference algorithm's local numbering (depth-first, F1's ancestors
  // first), built only when a tie-break depends on it.
  std::vector<unsigned> LocalOf, SeenStamp;
  std::vector<NodeId> Global;
  unsigned NumberedEpoch = 0, SeenEpoch = 0;
  std::vector<NodeId> RootKids; // entries, in local order
  std::vector<NodeId> SeqBuf, Chains[2], PathBuf[2];
  std::vector<unsigned> Mark;
  unsigned MarkEpoch = 0;

  // Flat copies of the graph for the hot loops: callers in compressed rows
  // (the root last), the entry and recursion flags (the root has neither).
  std::vector<unsigned> CallerStart;
  std::vector<NodeId> CallerList;
  // Callees in compressed rows too (the root's are the entries).
  std::vector<unsigned> CalleeStart;
  std::vector<NodeId> CalleeList;
  std::vector<uint8_t> EntryFlag, RecursiveFlag;

  // What the result already holds, for the redundancy test (redundant()).
  // Result is the set of dependence edges kept so far (buildImpl's);
  // CallBits mirrors it for the call edges, by position in CallerList: bit 0
  // is set when callee -> caller is in the result, bit 1 when caller ->
  // callee is. CallVersion counts the bits set. Sib holds, for every node g
  // with at most 64 callees (the root's are the entries), one row per
  // callee i: bit j is set when callee i -> callee j is in the result.
  bool SkipRedundant = true;
  const DenseSet<Edge> *Result = nullptr;
  std::vector<uint8_t> CallBits;
  uint64_t CallVersion = 0;
  std::vector<NodeId> EntryList;
  std::vector<int> EntryIdx;
  std::vector<unsigned> SibStart;
  std::vector<uint64_t> Sib;
  std::vector<NodeId> BadWork;
  // Post-dominators of the common ancestors of the current pair (run());
  // index Root + 1 is the sink.
  std::vector<NodeId> Pd;
  std::vector<unsigned> PdDepth;
  std::vector<std::pair<NodeId, unsigned>> DfsStack;

  ChainFinder(const PfdgGraph &G, BuildStats &St)
      : G(G), St(St), N(G.Nodes.size()), Root(G.Nodes.size()),
        Par(N + 1, -1), Level(N + 1, 0),
        Avoid(N + 1, false),
        LocalOf(N + 1, 0), SeenStamp(N + 1, 0), Mark(N + 1, 0),
        Pd(N + 2, 0), PdDepth(N + 2, 0) {
    for (Tree &T : Trees) {
      T.H.assign(N + 1, {-1, 0});
      T.InSet.assign((N + 1 + 63) / 64, 0);
      T.NextCall.assign(N + 1, 0);
      T.Emitted[0].assign(N + 1, 0);
      T.Emitted[1].assign(N + 1, 0);
      T.IDom.assign(N + 1, ~0u);
      T.DomDepth.assign(N + 1, 0);
      T.Bad[0].assign(N + 1, 0);
      T.Bad[1].assign(N + 1, 0);
    }
    CallerStart.assign(N + 2, 0);
    EntryFlag.assign(N + 1, 0);
    RecursiveFlag.assign(N + 1, 0);
    for (NodeId V = 0; V < N; ++V) {
      EntryFlag[V] = G.isEntryNode(V);
      RecursiveFlag[V] = G.Nodes[V].Recursive;
      CallerList.insert(CallerList.end(), G.Nodes[V].Callers.begin(),
                        G.Nodes[V].Callers.end());
      if (EntryFlag[V])
        CallerList.push_back(Root);
      CallerStart[V + 1] = CallerList.size();
    }
    CallerStart[N + 1] = CallerList.size();
    CallBits.assign(CallerList.size(), 0);
    EntryIdx.assign(N + 1, -1);
    for (NodeId V = 0; V < N; ++V)
      if (EntryFlag[V]) {
        EntryIdx[V] = EntryList.size();
        EntryList.push_back(V);
      }
    CalleeStart.assign(N + 2, 0);
    for (NodeId V = 0; V <= N; ++V) {
      ArrayRef<NodeId> Cs = calleesOf(V);
      CalleeList.insert(CalleeList.end(), Cs.begin(), Cs.end());
      CalleeStart[V + 1] = CalleeList.size();
    }
    SibStart.assign(N + 2, 0);
    for (NodeId V = 0; V <= N; ++V) {
      size_t Deg = calleesOf(V).size();
      SibStart[V + 1] = SibStart[V] + (Deg <= 64 ? Deg : 0);
    }
    Sib.assign(SibStart[N + 1], 0);
  }

  // Callees of V in the extended graph (the root calls the entries).
  ArrayRef<NodeId> calleesOf(NodeId V) const {
    if (V == Root)
      return EntryList;
    return G.Nodes[V].Callees;
  }
  // Position of C among the callees of V, -1 if V has more than 64.
  int calleeIndex(NodeId V, NodeId C) const {
    if (SibStart[V + 1] == SibStart[V])
      return -1;
    if (V == Root)
      return EntryIdx[C];
    ArrayRef<NodeId> Cs = G.Nodes[V].Callees;
    return std::find(Cs.begin(), Cs.end(), C) - Cs.begin();
  }
  // Position of the call edge Caller -> Callee in CallerList, or ~0u.
  unsigned callIndex(NodeId Caller, NodeId Callee) const {
    for (unsigned I = CallerStart[Callee], E = CallerStart[Callee + 1]; I < E;
         ++I)
      if (CallerList[I] == Caller)
        return I;
    return ~0u;
  }

  // Called for every edge as it enters the result (buildImpl's keep).
  void noteEdge(NodeId A, NodeId B) {
    unsigned I = callIndex(A, B); // A calls B: caller -> callee
    if (I != ~0u && !(CallBits[I] & 2)) {
      CallBits[I] |= 2;
      ++CallVersion;
    }
    I = callIndex(B, A); // B calls A: callee -> caller
    if (I != ~0u && !(CallBits[I] & 1)) {
      CallBits[I] |= 1;
      ++CallVersion;
    }
    // Every node calling both A and B (the root if both are entries).
    for (unsigned K = CallerStart[A], E = CallerStart[A + 1]; K < E; ++K) {
      NodeId P = CallerList[K];
      if (callIndex(P, B) == ~0u)
        continue;
      int IA = calleeIndex(P, A), IB = calleeIndex(P, B);
      if (IA >= 0 && IB >= 0)
        Sib[SibStart[P] + IA] |= uint64_t(1) << IB;
    }
  }

  // Whether X -> Y, where X and Y are Gc or callees of Gc, is in the result
  // (a cheap look-up for the edge between the two chains from Gc).
  bool inResult(NodeId Gc, NodeId X, NodeId Y) const {
    if (X == Gc)
      return CallBits[callIndex(Gc, Y)] & 2;
    if (Y == Gc)
      return CallBits[callIndex(Gc, X)] & 1;
    int IX = calleeIndex(Gc, X), IY = calleeIndex(Gc, Y);
    if (IX < 0 || IY < 0)
      return Result && Result->count({X, Y});
    return (Sib[SibStart[Gc] + IX] >> IY) & 1;
  }

  // Marks in T.Bad[K] every ancestor of T's target from which a call edge
  // U -> V inside the ancestor set is reachable (U itself included) whose
  // side-K edge is missing from the result: V -> U for K = 0 (a chain
  // towards F1 is drawn callee to caller), U -> V for K = 1. A chain of
  // Algorithm 3 from a node that is not marked towards this target adds no
  // new edge but possibly its first one (from the closest common ancestor).
  void ensureBad(Tree &T, int K) {
    if (T.BadVersion[K] == CallVersion)
      return;
    T.BadVersion[K] = CallVersion;
    unsigned Stamp = ++T.BadStamp[K];
    if (Stamp == 0) {
      std::fill(T.Bad[K].begin(), T.Bad[K].end(), 0);
      Stamp = T.BadStamp[K] = 1;
    }
    std::vector<unsigned> &Bad = T.Bad[K];
    const uint8_t Need = K == 0 ? 1 : 2;
    BadWork.clear();
    for (NodeId V : T.Order) {
      if (V == Root)
        continue;
      for (unsigned I = CallerStart[V], E = CallerStart[V + 1]; I < E; ++I) {
        NodeId U = CallerList[I];
        if (U != Root && !(CallBits[I] & Need) && Bad[U] != Stamp) {
          Bad[U] = Stamp;
          BadWork.push_back(U);
        }
      }
    }
    while (!BadWork.empty()) {
      NodeId V = BadWork.back();
      BadWork.pop_back();
      forEachReverseSucc(V, [&](NodeId U) {
        if (U != Root && Bad[U] != Stamp) {
          Bad[U] = Stamp;
          BadWork.push_back(U);
        }
      });
    }
  }

  // True when every edge that Algorithm 3 could draw for the pair (F1, F2)
  // through the common ancestor Gc, whichever chains it picks, is already in
  // the result. The chains Gc, a, ..., F1 and Gc, b, ..., F2 run inside the
  // ancestors of F1 (of F2) from a callee a (b) of Gc; they add the edges
  // from F1 up to a (callee -> caller), a -> b, and from b down to F2; when
  // Gc is F1 (F2) itself, the middle edge is Gc -> b (a -> Gc). So it
  // suffices that no such a or b is marked bad (ensureBad) and that every
  // possible middle edge is present. Needs ensureBad(T1, 0), ensureBad(T2, 1).
  bool redundant(NodeId F1, NodeId F2, NodeId Gc, const Tree &T1,
                 const Tree &T2) const {
    ArrayRef<NodeId> Cs = calleesOf(Gc);
    unsigned Stamp0 = T1.BadStamp[0], Stamp1 = T2.BadStamp[1];
    uint64_t M0 = 0, M1 = 0;
    bool Wide = SibStart[Gc + 1] == SibStart[Gc]; // no Sib rows
    SmallVector<NodeId, 8> S0, S1;
    for (unsigned I = 0; I < Cs.size(); ++I) {
      NodeId C = Cs[I];
      if (T1.H[C].Next != -1) {
        if (T1.Bad[0][C] == Stamp0)
          return false;
        if (Wide)
          S0.push_back(C);
        else
          M0 |= uint64_t(1) << I;
      }
      if (T2.H[C].Next != -1) {
        if (T2.Bad[1][C] == Stamp1)
          return false;
        if (Wide)
          S1.push_back(C);
        else
          M1 |= uint64_t(1) << I;
      }
    }
    if (Gc == F1 || Gc == F2) {
      // The chain to Gc is Gc alone; the middle edge is a call edge.
      for (unsigned I = 0; I < Cs.size(); ++I) {
        bool On = Wide ? is_contained(Gc == F1 ? S1 : S0, Cs[I])
                       : ((Gc == F1 ? M1 : M0) >> I) & 1;
        if (On && !(CallBits[callIndex(Gc, Cs[I])] & (Gc == F1 ? 2 : 1)))
          return false;
      }
      return true;
    }
    if (Wide) {
      for (NodeId A : S0)
        for (NodeId B : S1)
          if (A != B && !Result->count({A, B}))
            return false;
      return true;
    }
    for (uint64_t M = M0; M; M &= M - 1) {
      unsigned I = llvm::countr_zero(M);
      if (M1 & ~Sib[SibStart[Gc] + I] & ~(uint64_t(1) << I))
        return false;
    }
    return true;
  }

  bool isEntry(NodeId V) const { return EntryFlag[V]; }
  bool recursive(NodeId V) const { return RecursiveFlag[V]; }

  // Callers of V in the reverse graph (the root for entry points), in the
  // order the reference algorithm uses.
  template <typename Fn> void forEachReverseSucc(NodeId V, Fn F) const {
    for (unsigned I = CallerStart[V], E = CallerStart[V + 1]; I < E; ++I)
      F(CallerList[I]);
  }

  Tree &tree(NodeId Target) {
    ++Clock;
    Tree *Victim = &Trees[0];
    for (Tree &T : Trees) {
      if (T.Target == Target) {
        T.LastUse = Clock;
        return T;
      }
      if (T.LastUse < Victim->LastUse)
        Victim = &T;
    }
    Tree &T = *Victim;
    ++St.TreesBuilt;
    T.Serial = ++Serials;
    // Breadth-first over the callers, through raw pointers (the hot loop of
    // every tree build); Order is the queue.
    Tree::Hop *H = T.H.data();
    uint64_t *In = T.InSet.data();
    unsigned *NextCall = T.NextCall.data();
    const unsigned *Start = CallerStart.data();
    const NodeId *Callers = CallerList.data();
    for (NodeId V : T.Order) {
      H[V].Next = -1;
      In[V >> 6] = 0;
    }
    T.Order.clear();
    T.Target = Target;
    T.LastUse = Clock;
    H[Target] = {(int)Target, 0};
    In[Target >> 6] |= uint64_t(1) << (Target & 63);
    T.Order.push_back(Target);
    bool HasRecursive = false;
    for (size_t K = 0; K < T.Order.size(); ++K) {
      NodeId V = T.Order[K];
      HasRecursive |= RecursiveFlag[V];
      const unsigned NextDist = H[V].Dist + 1;
      for (unsigned I = Start[V], E = Start[V + 1]; I < E; ++I) {
        NodeId U = Callers[I];
        if (H[U].Next == -1) {
          H[U] = {(int)V, NextDist};
          NextCall[U] = I;
          In[U >> 6] |= uint64_t(1) << (U & 63);
          T.Order.push_back(U);
        }
      }
    }
    T.HasRecursive = HasRecursive;
    T.TopoReady = T.DomsReady = false;
    T.BadVersion[0] = T.BadVersion[1] = ~0ull;
    return T;
  }

  // The topological keys and the dominators towards T's target (only for
  // trees without recursive ancestors), computed when a pair first needs
  // them: pairs whose chains are all redundant never do.
  void ensureTopo(Tree &T) {
    if (T.TopoReady)
      return;
    T.TopoReady = true;
    const NodeId Target = T.Target;
    T.Topo.clear();
    if (++SeenEpoch == 0) {
      std::fill(SeenStamp.begin(), SeenStamp.end(), 0);
      SeenEpoch = 1;
    }
    DfsStack.assign(1, {Target, CallerStart[Target]});
    SeenStamp[Target] = SeenEpoch;
    while (!DfsStack.empty()) {
      auto &[V, I] = DfsStack.back();
      if (I < CallerStart[V + 1]) {
        NodeId U = CallerList[I++];
        if (SeenStamp[U] != SeenEpoch) {
          SeenStamp[U] = SeenEpoch;
          DfsStack.push_back({U, CallerStart[U]});
        }
        continue;
      }
      T.Topo.push_back(V);
      DfsStack.pop_back();
    }
    std::reverse(T.Topo.begin(), T.Topo.end());
  }

  // Dominators towards T's target (see Tree::IDom), for the search that
  // avoids a first chain.
  void ensureDoms(Tree &T) {
    if (T.DomsReady)
      return;
    T.DomsReady = true;
    ensureTopo(T);
    const NodeId Target = T.Target;
    for (NodeId V : T.Topo)
      T.IDom[V] = ~0u;
    // Dominators towards the target in one topological pass (callees
    // first): a node's idom is the meet of its callees among the ancestors,
    // pushed forward to the callers as each node is finished.
    auto meet = [&](NodeId A, NodeId B) {
      while (A != B) {
        if (T.DomDepth[A] < T.DomDepth[B])
          std::swap(A, B);
        A = T.IDom[A];
      }
      return A;
    };
    for (NodeId V : T.Topo) {
      if (V == Target) {
        T.IDom[V] = V;
        T.DomDepth[V] = 0;
      } else {
        assert(T.IDom[V] != ~0u && "an ancestor reaches the target");
        T.DomDepth[V] = T.DomDepth[T.IDom[V]] + 1;
      }
      forEachReverseSucc(V, [&](NodeId C) {
        T.IDom[C] = T.IDom[C] == ~0u ? V : meet(V, T.IDom[C]);
      });
    }
  }

  // The two trees of the current pair; the union of the two ancestor sets
  // is read off them.
  const Tree *Cur[2] = {nullptr, nullptr};
  bool inUnion(NodeId V) const {
    return Cur[0]->H[V].Next != -1 || Cur[1]->H[V].Next != -1;
  }

  // Reproduces the order in which addDependenceChains numbers the ancestors
  // (its depth-first walks from F1, then from F2), which fixes the order of
  // the root's successors and of the arcs of the two-path flow.
  void numberLikeReference(NodeId F1, NodeId F2) {
    if (NumberedEpoch == Epoch)
      return;
    NumberedEpoch = Epoch;
    Global.assign(1, ~0u);
    RootKids.clear();
    std::vector<NodeId> Work;
    for (NodeId Start : {F1, F2}) {
      if (++SeenEpoch == 0) {
        std::fill(SeenStamp.begin(), SeenStamp.end(), 0);
        SeenEpoch = 1;
      }
      Work.assign(1, Start);
      SeenStamp[Start] = SeenEpoch;
      while (!Work.empty()) {
        NodeId V = Work.back();
        Work.pop_back();
        bool Numbered =
            LocalOf[V] < Global.size() && Global[LocalOf[V]] == V;
        if (!Numbered) {
          LocalOf[V] = Global.size();
          Global.push_back(V);
        }
        forEachReverseSucc(V, [&](NodeId C) {
          if (SeenStamp[C] != SeenEpoch) {
            SeenStamp[C] = SeenEpoch;
            Work.push_back(C);
          }
        });
      }
    }
    for (unsigned I = 1; I < Global.size(); ++I)
      if (Global[I] != Root && isEntry(Global[I]))
        RootKids.push_back(Global[I]);
  }

  // twoDisjointPaths of the reference (two augmenting paths in the
  // node-split network, breadth-first, then the decomposition), run on the
  // implicit network instead of a built one. The reference's arc lists only
  // matter through the arcs that have capacity left, and those come in an
  // order that does not depend on its node numbering:
  //  - in(v) has one usable arc: in(v) -> out(v), or, once a path runs
  //    through v (v != g), the reverse arc to out(u) of the path's u -> v;
  //  - out(v) lists the reverse arc to in(v) first (usable iff a path runs
  //    through v), then the arcs to in(w) for its successors w in forward
  //    order (callees in the union; the entries in the reference's order for
  //    the root), then the arc to the sink (v is f1 or f2).
  // So the same searches run over just the states they reach. The first
  // search (no flow yet) is a plain breadth-first search from g, restricted
  // to the nodes on shortest chains to f1 or f2 (same argument as bfsPath).
  static constexpr NodeId NoNode = ~0u;
  std::vector<int> StateParent; // by state: 2v = in(v), 2v+1 = out(v)
  std::vector<unsigned> StateStamp, StateQ, PathStamp;
  std::vector<NodeId> P1Next, P1Prev; // path 1 by node (NoNode: the sink)
  unsigned StateEpoch = 0, PathEpoch = 0;
  std::vector<std::pair<NodeId, NodeId>> FlowArcs; // (v, w), w NoNode: sink

  template <typename Fn> void forwardEach(NodeId V, Fn F) {
    if (V == Root) {
      for (NodeId E : RootKids)
        F(E);
      return;
    }
    for (NodeId C : G.Nodes[V].Callees)
      if (inUnion(C))
        F(C);
  }

  bool flowChains(NodeId F1, NodeId F2, NodeId Gc, const Tree *const Tr[2],
                  std::vector<NodeId> (&Chains)[2]) {
    if (Gc == Root)
      numberLikeReference(F1, F2);
    const unsigned NS = 2 * (N + 1), Sink = NS; // states; the sink last
    if (StateStamp.empty()) {
      StateStamp.assign(NS + 1, 0);
      StateParent.assign(NS + 1, -1);
      PathStamp.assign(N + 1, 0);
      P1Next.assign(N + 1, NoNode);
      P1Prev.assign(N + 1, NoNode);
    }
    auto dist = [&](NodeId V) {
      unsigned D = ~0u;
      for (int K = 0; K < 2; ++K)
        if (Tr[K]->H[V].Next != -1)
          D = std::min(D, Tr[K]->H[V].Dist);
      return D;
    };
    auto onPath1 = [&](NodeId V) { return PathStamp[V] == PathEpoch; };
    // One breadth-first search from in(g); Round 0 is the first augmenting
    // path (no flow), Round 1 the second (residual network of path 1).
    auto search = [&](int Round) {
      if (++StateEpoch == 0) {
        std::fill(StateStamp.begin(), StateStamp.end(), 0);
        StateEpoch = 1;
      }
      auto reach = [&](unsigned From, unsigned To) {
        if (StateStamp[To] == StateEpoch)
          return;
        StateStamp[To] = StateEpoch;
        StateParent[To] = From;
        StateQ.push_back(To);
      };
      StateQ.assign(1, 2 * Gc);
      StateStamp[2 * Gc] = StateEpoch;
      StateParent[2 * Gc] = 2 * Gc;
      for (size_t Head = 0;
           Head < StateQ.size() && StateStamp[Sink] != StateEpoch; ++Head) {
        unsigned U = StateQ[Head];
        NodeId V = U / 2;
        if ((U & 1) == 0) { // in(v)
          if (Round == 1 && V != Gc && onPath1(V))
            reach(U, 2 * P1Prev[V] + 1);
          else
            reach(U, U + 1);
          continue;
        }
        // out(v)
        if (Round == 1 && onPath1(V))
          reach(U, 2 * V);
        unsigned DV = Round == 0 ? dist(V) : 0;
        forwardEach(V, [&](NodeId W) {
          if (Round == 0 ? DV == 0 || dist(W) != DV - 1
                         : onPath1(V) && P1Next[V] == W)
            return;
          reach(U, 2 * W);
        });
        if ((V == F1 || V == F2) && !(Round == 1 && onPath1(V) &&
                                      P1Next[V] == NoNode))
          reach(U, Sink);
      }
      return StateStamp[Sink] == StateEpoch;
    };
    // The forward node arcs (out(v) -> in(w) or the sink) of the path found.
    auto arcsOfPath = [&](auto Fn) {
      for (unsigned X = Sink; X != 2 * Gc;) {
        unsigned U = StateParent[X];
        if ((U & 1) && (X == Sink || ((X & 1) == 0 && X / 2 != U / 2)))
          Fn(U / 2, X == Sink ? NoNode : X / 2, /*Forward=*/true);
        else if ((U & 1) == 0 && (X & 1) && X / 2 != U / 2)
          Fn(X / 2, U / 2, /*Forward=*/false); // cancels (x/2 -> u/2)
        X = U;
      }
    };
    if (!search(0))
      return false;
    if (++PathEpoch == 0) {
      std::fill(PathStamp.begin(), PathStamp.end(), 0);
      PathEpoch = 1;
    }
    FlowArcs.clear();
    arcsOfPath([&](NodeId V, NodeId W, bool) {
      FlowArcs.push_back({V, W});
      PathStamp[V] = PathEpoch;
      P1Next[V] = W;
      if (W != NoNode) {
        PathStamp[W] = PathEpoch;
        P1Prev[W] = V;
      }
    });
    if (!search(1))
      return false;
    arcsOfPath([&](NodeId V, NodeId W, bool Forward) {
      if (Forward) {
        FlowArcs.push_back({V, W});
        return;
      }
      auto It = llvm::find(FlowArcs, std::make_pair(V, W));
      assert(It != FlowArcs.end() && "cancelled arc carries flow");
      FlowArcs.erase(It);
    });
    // Decomposition: from g, follow the first flow arc in list order that is
    // not consumed yet (callees in call order, then the sink). Only g has
    // two flow arcs out; every other node has at most one.
    for (int K = 0; K < 2; ++K) {
      std::vector<NodeId> &Chain = Chains[K];
      Chain.assign(1, Gc);
      NodeId Cur = Gc;
      while (true) {
        size_t Pick = FlowArcs.size(), Second = FlowArcs.size();
        for (size_t I = 0; I < FlowArcs.size(); ++I)
          if (FlowArcs[I].first == Cur)
            (Pick == FlowArcs.size() ? Pick : Second) = I;
        if (Pick == FlowArcs.size())
          break;
        if (Second != FlowArcs.size()) {
          // Whichever comes first in Cur's arc list.
          NodeId WA = FlowArcs[Pick].second, WB = FlowArcs[Second].second;
          bool Decided = false;
          forwardEach(Cur, [&](NodeId W) {
            if (Decided || (W != WA && W != WB))
              return;
            Decided = true;
            if (W == WB)
              std::swap(Pick, Second);
          });
          if (!Decided && WA == NoNode) // the sink comes last
            std::swap(Pick, Second);
        }
        NodeId To = FlowArcs[Pick].second;
        FlowArcs.erase(FlowArcs.begin() + Pick);
        if (To == NoNode)
          break; // reached the sink
        Chain.push_back(To);
        Cur = To;
      }
    }
    return true;
  }

  // Returns false when the pair must go to the reference algorithm.
  //
  // With SkipRedundant, the closest common ancestors that need the searches
  // or the flow are not drawn at once but queued in Deferred; runDeferred()
  // draws them after every pair's tree chains are in the result, when most
  // of them turn out redundant (the result is a set: the order of drawing
  // does not matter). Only, when given, limits run() to those ancestors.
  struct DeferredCca {
    NodeId F1, F2, Gc;
  };
  std::vector<DeferredCca> Deferred;

  // Are the tree chains Gc, C0 ..T1.. F1 and Gc, C1 ..T2.. F2 disjoint but
  // for Gc? (Ck == Gc means the tree chain from Gc itself.) Only common
  // ancestors can be on both chains, and once a chain leaves them it does
  // not come back (a node that does not reach the other end has no
  // descendant that does). The chain towards F2 is a path of T2, so its
  // distance to F2 drops by one at each step: once it is below the smallest
  // such distance of a node of the first chain, no such node can follow;
  // when the first chain has no common ancestor but Gc, the second one is
  // not walked at all.
  bool disjointTreeChains(const Tree &T1, const Tree &T2, NodeId Gc,
                          NodeId C0, NodeId C1) {
    if (++MarkEpoch == 0) {
      std::fill(Mark.begin(), Mark.end(), 0);
      MarkEpoch = 1;
    }
    const Tree::Hop *H1 = T1.H.data(), *H2 = T2.H.data();
    unsigned *Mk = Mark.data();
    const unsigned Ep = MarkEpoch;
    unsigned MinDist = ~0u;
    for (NodeId V = C0; H2[V].Next != -1;) {
      if (V != Gc) {
        Mk[V] = Ep;
        MinDist = std::min(MinDist, H2[V].Dist);
      }
      NodeId W = H1[V].Next;
      if (W == V)
        break;
      V = W;
    }
    if (MinDist == ~0u)
      return true;
    for (NodeId V = C1; H1[V].Next != -1 && H2[V].Dist >= MinDist;) {
      if (V != Gc && Mk[V] == Ep)
        return false;
      NodeId W = H2[V].Next;
      if (W == V)
        break;
      V = W;
    }
    return true;
  }

  bool run(NodeId F1, NodeId F2, std::vector<Edge> &Out,
           ArrayRef<NodeId> Only = {}) {
    // Both trees must stay valid together: pin them by distinct slots.
    Tree &T1 = tree(F1);
    Tree &T2 = tree(F2);
    if (T1.Target != F1) // evicted by the second lookup (cannot happen with
      return false;      // more than one slot, kept as a guard)
    if (T1.HasRecursive || T2.HasRecursive)
      return false;
    const Tree *Tr[2] = {&T1, &T2};

    Cur[0] = &T1;
    Cur[1] = &T2;
    if (++Epoch == 0) {
      Epoch = 1;
      NumberedEpoch = 0;
    }
    // Closest common ancestors. The reference takes g iff g is a common
    // ancestor whose immediate dominator, in the reverse call graph over the
    // union of the two ancestor sets seen from a sink joined to F1 and F2, is
    // the sink; in the forward graph, that is g's immediate post-dominator
    // towards the sink (every chain from g to F1 or F2 continues to it). The
    // post-dominators of a common ancestor are common ancestors or the sink
    // (a node on every chain from g to F1 and on every one to F2 reaches
    // both), so they are computed over the common ancestors only, callees
    // first (Cooper, Harvey and Kennedy's meet, one pass on a DAG):
    //  - F1 and F2 (when common) reach the sink directly: closest;
    //  - g with a callee in the union that reaches only one of F1, F2: closest
    //    (a chain through that callee stays among nodes that reach only that
    //    end, so it shares nothing with any chain from g to the other end);
    //  - otherwise every callee in the union is a common ancestor, and g's
    //    immediate post-dominator is their meet in the post-dominator tree.
    SmallVector<NodeId, 4> Ccas;
    if (!Only.empty())
      Ccas.append(Only.begin(), Only.end());
    else {
      Tree &Small = T1.Order.size() <= T2.Order.size() ? T1 : T2;
      const Tree &Other = &Small == &T1 ? T2 : T1;
      ensureTopo(Small);
      const NodeId Sink = Root + 1;
      auto meet = [&](NodeId A, NodeId B) {
        while (A != B) {
          if (PdDepth[A] < PdDepth[B])
            std::swap(A, B);
          A = Pd[A];
        }
        return A;
      };
      PdDepth[Sink] = 0;
      const uint64_t *B1 = T1.InSet.data(), *B2 = T2.InSet.data();
      auto bit = [](const uint64_t *B, NodeId V) {
        return (B[V >> 6] >> (V & 63)) & 1;
      };
      for (NodeId V : Small.Topo) {
        if (!Other.in(V))
          continue;
        NodeId M = Sink;
        if (V != F1 && V != F2) {
          M = ~0u;
          for (unsigned I = CalleeStart[V], E = CalleeStart[V + 1]; I < E;
               ++I) {
            NodeId C = CalleeList[I];
            bool In1 = bit(B1, C), In2 = bit(B2, C);
            if (!In1 && !In2)
              continue;
            if (In1 != In2) {
              M = Sink;
              break;
            }
            M = M == ~0u ? C : meet(M, C);
            if (M == Sink)
              break;
          }
          assert(M != ~0u && "a common ancestor reaches F1 and F2");
        }
        Pd[V] = M;
        PdDepth[V] = PdDepth[M] + 1;
        if (M == Sink)
          Ccas.push_back(V);
      }
    }
    if (Ccas.empty()) {
      Out.push_back({F1, F2});
      return true;
    }

    auto next = [&](int Kk, NodeId V) { return Tr[Kk]->H[V].Next; };
    // Callees of V inside the union (the reference's forward successors
    // without the sink); the root's are the entries in the reference's order.
    auto forwardSuccs = [&](NodeId V, SmallVectorImpl<NodeId> &Succ) {
      Succ.clear();
      if (V == Root) {
        numberLikeReference(F1, F2);
        Succ.append(RootKids.begin(), RootKids.end());
        return;
      }
      for (NodeId C : G.Nodes[V].Callees)
        if (inUnion(C))
          Succ.push_back(C);
    };
    SmallVector<NodeId, 8> Succ;
    // Breadth-first search From -> To over the union (without the nodes in
    // Avoid if UseAvoid), as the reference does it, but expanding only nodes
    // that can matter to the path it returns: ancestors of To (ToTree), and
    // without Avoid only those on shortest chains (BFS level plus chain
    // length to To within the shortest chain From -> To). A node's BFS parent
    // is the first dequeued node that calls it; for a node that can reach To
    // (on a shortest chain) every such caller can too (is on one too), and
    // the pruned search dequeues those callers in the same relative order, so
    // the returned path is the same. (With Avoid, raising a bound step by
    // step does not pay: most of these searches find no path at all.)
    auto bfsPath = [&](NodeId From, NodeId To, bool UseAvoid,
                       const Tree &ToTree, std::vector<NodeId> &Path) {
      auto reset = [&] {
        for (NodeId T : Touched)
          Par[T] = -1;
        Touched.clear();
      };
      {
        unsigned Limit = UseAvoid ? ~0u : ToTree.H[From].Dist;
        // With Avoid: a node one of whose dominators towards To is avoided
        // cannot reach To; if From is one, there is no path, otherwise such
        // nodes are left out like the other nodes that cannot reach To
        // (checking only the immediate dominator of each).
        if (UseAvoid)
          for (NodeId D = From; D != To;) {
            D = ToTree.IDom[D];
            if (Avoid[D])
              return false;
          }
        reset();
        BfsQ.assign(1, From);
        Par[From] = From;
        Level[From] = 0;
        Touched.push_back(From);
        for (size_t Head = 0; Head < BfsQ.size(); ++Head) {
          NodeId U = BfsQ[Head];
          if (U == To)
            break;
          forwardSuccs(U, Succ);
          for (NodeId W : Succ) {
            if (Par[W] != -1 || ToTree.H[W].Next == -1 ||
                (UseAvoid && (Avoid[W] || Avoid[ToTree.IDom[W]])))
              continue;
            if (Level[U] + 1 + ToTree.H[W].Dist > Limit)
              continue;
            Par[W] = U;
            Level[W] = Level[U] + 1;
            Touched.push_back(W);
            BfsQ.push_back(W);
          }
        }
        if (Par[To] != -1) {
          Path.clear();
          for (NodeId V = To; V != From; V = Par[V])
            Path.push_back(V);
          Path.push_back(From);
          std::reverse(Path.begin(), Path.end());
          reset();
          return true;
        }
      }
      reset();
      return false;
    };

    // Edges already emitted along the shortest-chain trees, by this pair or
    // an earlier one with the same tree on the same side (Tree::Emitted).
    auto emitTreeChain = [&](int Kk, NodeId From) {
      const Tree &T = *Tr[Kk];
      for (NodeId V = From; (int)V != next(Kk, V); V = next(Kk, V)) {
        if (T.Emitted[Kk][V] == T.Serial)
          return;
        T.Emitted[Kk][V] = T.Serial;
        // Edges already in the result (drawn through another tree) are not
        // drawn again; the walk goes on, the rest of this chain may be new.
        if (CallBits[T.NextCall[V]] & (Kk == 0 ? 1 : 2))
          continue;
        if (Kk == 0)
          Out.push_back({(NodeId)next(0, V), V}); // towards F1, reversed
        else
          Out.push_back({V, (NodeId)next(1, V)});
      }
    };
    for (NodeId Gc : Ccas) {
      bool Found = false;
      NodeId Pick[2] = {Gc, Gc};
      // Are the chains Gc, C0 ..tree 0.. F1 and Gc, C1 ..tree 1.. F2 disjoint
      // but for Gc? (Ck == Gc means the tree chain from Gc itself.)
      auto tryPair = [&](NodeId C0, NodeId C1) {
        if (!disjointTreeChains(T1, T2, Gc, C0, C1))
          return false;
        Pick[0] = C0;
        Pick[1] = C1;
        return true;
      };
      Found = tryPair(Gc, Gc);
      bool TreeChains = Found;
      if (!Found) {
        SmallVector<NodeId, 8> Kids, K0, K1;
        forwardSuccs(Gc, Kids);
        for (NodeId C : Kids) {
          if (next(0, C) != -1)
            K0.push_back(C);
          if (next(1, C) != -1)
            K1.push_back(C);
        }
        if (Gc == F1)
          K0.assign(1, Gc);
        if (Gc == F2)
          K1.assign(1, Gc);
        unsigned Tries = 0;
        for (NodeId A : K0) {
          for (NodeId B : K1) {
            if (A == B || ++Tries > 32)
              continue;
            if ((Found = tryPair(A, B)))
              break;
          }
          if (Found)
            break;
        }
        TreeChains = Found;
      }
      if (TreeChains) {
        ++St.TreeChains;
        // The chains are tree paths: emit f1 <- ... <- c0, the crossing
        // edge, c1 -> ... -> f2 (as the general code below would).
        NodeId A = Pick[0] == Gc ? next(0, Gc) : Pick[0];
        NodeId B = Pick[1] == Gc ? next(1, Gc) : Pick[1];
        bool Short0 = Pick[0] == Gc && Gc == F1; // chain of one node
        bool Short1 = Pick[1] == Gc && Gc == F2;
        NodeId X = Short0 ? Gc : A, Y = Short1 ? Gc : B;
        if (X != Y && !inResult(Gc, X, Y))
          Out.push_back({X, Y});
        if (!Short0)
          emitTreeChain(0, A);
        if (!Short1)
          emitTreeChain(1, B);
        continue;
      }
      // The searches and the two-path flow below cost time linear in the
      // ancestors; most of the time every edge they could draw is already
      // in the result.
      if (SkipRedundant) {
        if (Only.empty()) {
          Deferred.push_back({F1, F2, Gc});
          continue;
        }
        ensureBad(T1, 0);
        ensureBad(T2, 1);
        if (redundant(F1, F2, Gc, T1, T2)) {
          ++St.SkippedCcas;
          continue;
        }
      }
      // The search that avoids a first chain uses the dominators.
      ensureDoms(T1);
      ensureDoms(T2);
      for (int Order = 0; Order < 2 && !Found; ++Order) {
        NodeId A = Order == 0 ? F1 : F2, B = Order == 0 ? F2 : F1;
        const Tree &TA = *Tr[Order], &TB = *Tr[1 - Order];
        std::vector<NodeId> &PA = PathBuf[0], &PB = PathBuf[1];
        if (!bfsPath(Gc, A, false, TA, PA))
          break;
        for (NodeId V : PA)
          if (V != Gc)
            Avoid[V] = true;
        bool Ok =
            B == Gc || !Avoid[B] ? bfsPath(Gc, B, true, TB, PB) : false;
        for (NodeId V : PA)
          Avoid[V] = false;
        if (Ok) {
          Chains[0].swap(PA);
          Chains[1].swap(PB);
          Found = true;
        }
      }
      if (!Found) {
        // The exact two-path flow of the reference (same arc order).
        ++St.FlowChains;
        if (!flowChains(F1, F2, Gc, Tr, Chains))
          continue;
      } else {
        ++St.SearchChains;
      }
      const std::vector<NodeId> *C1 = &Chains[0], *C2 = &Chains[1];
      if (C1->back() != F1)
        std::swap(C1, C2);
      if (C1->back() != F1 || C2->back() != F2)
        continue;
      std::vector<NodeId> &Seq = SeqBuf;
      Seq.clear();
      if (C1->size() == 1)
        Seq.push_back(Gc);
      for (size_t I = C1->size(); I-- > 1;)
        Seq.push_back((*C1)[I]);
      for (size_t I = 1; I < C2->size(); ++I)
        Seq.push_back((*C2)[I]);
      if (C2->size() == 1)
        Seq.push_back(Gc);
      for (size_t I = 0; I + 1 < Seq.size(); ++I)
        if (Seq[I] != Seq[I + 1])
          Out.push_back({Seq[I], Seq[I + 1]});
    }
    return true;
  }

  // Draws the deferred closest common ancestors (see run()), pair by pair,
  // grouped like the pairs so the trees are reused; Keep receives each
  // pair's edges before the next pair is tested.
  template <typename KeepFn> void runDeferred(KeepFn Keep) {
    std::vector<DeferredCca> Work;
    Work.swap(Deferred);
    std::stable_sort(Work.begin(), Work.end(),
                     [](const DeferredCca &A, const DeferredCca &B) {
                       return std::make_pair(A.F2, A.F1) <
                              std::make_pair(B.F2, B.F1);
                     });
    std::vector<Edge> Out;
    SmallVector<NodeId, 8> Group;
    for (size_t I = 0; I < Work.size();) {
      size_t J = I;
      Group.clear();
      for (; J < Work.size() && Work[J].F1 == Work[I].F1 &&
             Work[J].F2 == Work[I].F2;
           ++J)
        Group.push_back(Work[J].Gc);
      Out.clear();
      ++St.DeferredPairs;
      bool Done = run(Work[I].F1, Work[I].F2, Out, Group);
      (void)Done;
      assert(Done && "a deferred pair has no recursive ancestor");
      Keep(Out);
      I = J;
    }
  }
};

void PfdgGraph::build() { buildImpl(/*Reference=*/false); }
void PfdgGraph::buildReference() { buildImpl(/*Reference=*/true); }

void PfdgGraph::buildImpl(bool Reference) {
  computeSccs();
  Stats = BuildStats();
  std::vector<std::pair<NodeId, NodeId>> Edges, Chain;
  DenseSet<std::pair<NodeId, NodeId>> EdgeSet;
  std::unique_ptr<ChainFinder> Finder;
  auto keep = [&](std::pair<NodeId, NodeId> E) {
    if (EdgeSet.insert(E).second) {
      Edges.push_back(E);
      if (Finder)
        Finder->noteEdge(E.first, E.second);
    }
  };
  // The result is a set of edges, so the pairs may be visited in any order:
  // grouping them by their second function lets the chain finder reuse the
  // shortest-chain tree of that function.
  std::vector<std::pair<NodeId, NodeId>> Order(DepPairs);
  llvm::sort(Order, [](const auto &A, const auto &B) {
    return std::make_pair(A.second, A.first) <
           std::make_pair(B.second, B.first);
  });
  for (auto [F1, F2] : Order) {
    ++Stats.Pairs;
    // Algorithm 3, rule 1: caller/callee or siblings under one direct caller.
    if (CallSet.count({F1, F2}) || CallSet.count({F2, F1}) ||
        shareCaller(F1, F2)) {
      ++Stats.Rule1;
      keep({F1, F2});
      continue;
    }
    Chain.clear();
    bool Done = false;
    if (!Reference) {
      if (!Finder) {
        Finder = std::make_unique<ChainFinder>(*this, Stats);
        Finder->SkipRedundant = SkipRedundant;
        Finder->Result = &EdgeSet;
        for (auto E : Edges)
          Finder->noteEdge(E.first, E.second);
      }
      Done = Finder->run(F1, F2, Chain);
    }
    if (Done) {
      ++Stats.Fast;
    } else {
      ++Stats.Fallback;
      Chain.clear();
      addDependenceChains(F1, F2, Chain);
    }
    Stats.ChainEdges += Chain.size();
    for (auto E : Chain)
      keep(E);
  }
  if (Finder)
    Finder->runDeferred([&](const std::vector<std::pair<NodeId, NodeId>> &C) {
      Stats.ChainEdges += C.size();
      for (auto E : C)
        keep(E);
    });
  llvm::sort(Edges);
  DepEdgeList = std::move(Edges);
  for (auto [A, B] : DepEdgeList)
    Nodes[A].DepSuccs.push_back(B);
  computeLevels();
}

// Definition 6 as a breadth-first search over (node, phase) states: phase 0 is
// the call-only prefix (climbing to callers), phase 1 the dependence postfix.
void PfdgGraph::computeLevels() {
  unsigned N = Nodes.size();
  std::vector<int> Dist(2 * N, -1);
  std::deque<unsigned> Q;
  for (NodeId V = 0; V < N; ++V)
    if (Nodes[V].Invariant) {
      Dist[2 * V] = 0;
      Q.push_back(2 * V);
    }
  while (!Q.empty()) {
    unsigned S = Q.front();
    Q.pop_front();
    NodeId V = S / 2;
    bool Prefix = (S & 1) == 0;
    auto visit = [&](unsigned T) {
      if (Dist[T] == -1) {
        Dist[T] = Dist[S] + 1;
        Q.push_back(T);
      }
    };
    if (Prefix)
      for (NodeId C : Nodes[V].Callers)
        visit(2 * C);
    for (NodeId W : Nodes[V].DepSuccs)
      visit(2 * W + 1);
  }
  for (NodeId V = 0; V < N; ++V) {
    if (Nodes[V].Invariant) {
      Nodes[V].Level = 0;
      continue;
    }
    int Best = -1;
    for (int D : {Dist[2 * V], Dist[2 * V + 1]})
      if (D > 0 && (Best == -1 || D < Best))
        Best = D;
    if (Best > 0)
      Nodes[V].Level = Best;
  }
  // Recursion: one level per recursive cycle.
  for (auto &Members : SccMembers) {
    if (Members.size() < 2)
      continue;
    std::optional<unsigned> Min;
    for (NodeId M : Members)
      if (Nodes[M].Level && !Nodes[M].Invariant &&
          (!Min || *Nodes[M].Level < *Min))
        Min = Nodes[M].Level;
    if (Min)
      for (NodeId M : Members)
        if (!Nodes[M].Invariant)
          Nodes[M].Level = Min;
  }
}

bool PfdgGraph::isBoundary(NodeId N, unsigned Level) const {
  if (Level == 0)
    return false;
  if (CallDist.empty()) {
    CallDist.emplace_back();
    for (NodeId V = 0; V < Nodes.size(); ++V)
      if (Nodes[V].Invariant)
        CallDist[0].insert(V);
  }
  while (CallDist.size() <= Level) {
    DenseSet<NodeId> Next;
    for (NodeId V : CallDist.back())
      for (NodeId C : Nodes[V].Callers)
        Next.insert(C);
    CallDist.push_back(std::move(Next));
  }
  return CallDist[Level].count(N);
}

void PfdgGraph::selectWithScc(NodeId N, std::vector<bool> &Sel) const {
  for (NodeId M : SccMembers[Nodes[N].Scc])
    Sel[M] = true;
}

Expected<std::vector<bool>> PfdgGraph::select(unsigned Level,
                                              ArrayRef<ErrorPath> Paths,
                                              StringRef PathFile) const {
  std::vector<bool> Sel(Nodes.size(), false);
  if (Paths.empty()) {
    for (NodeId V = 0; V < Nodes.size(); ++V)
      if (Nodes[V].Level && *Nodes[V].Level <= Level)
        Sel[V] = true;
  } else {
    // Algorithm 4, steps 2 and 3.
    std::vector<NodeId> OnPath;
    for (const ErrorPath &P : Paths) {
      std::optional<NodeId> Prev;
      for (const std::string &Name : P.Functions) {
        std::optional<NodeId> Id = lookup(Name);
        if (!Id)
          return createStringError(
              inconvertibleErrorCode(),
              formatv("{0}:{1}: function '{2}' is not a node of the PFDG (not "
                      "defined, or it does not affect any invariant)",
                      PathFile, P.Line, Name)
                  .str());
        if (Prev && *Prev != *Id && !hasEdge(*Prev, *Id))
          return createStringError(
              inconvertibleErrorCode(),
              formatv("{0}:{1}: '{2}' -> '{3}' is not an edge of the PFDG",
                      PathFile, P.Line, Nodes[*Prev].Name, Name)
                  .str());
        Prev = Id;
        OnPath.push_back(*Id);
        Sel[*Id] = true;
      }
    }
    auto addIfLevel = [&](NodeId W) {
      if (Nodes[W].Level && *Nodes[W].Level == Level)
        Sel[W] = true;
    };
    for (NodeId V : OnPath) {
      for (NodeId C : Nodes[V].Callers) // call edge <V, C>
        addIfLevel(C);
      for (NodeId W : Nodes[V].DepSuccs) // dependence edge V -> W
        addIfLevel(W);
    }
  }
  // Algorithm 4, step 4, and main (thesis 4.1).
  for (NodeId V = 0; V < Nodes.size(); ++V)
    if (Nodes[V].Invariant || Nodes[V].Main)
      Sel[V] = true;
  for (NodeId V = 0; V < Nodes.size(); ++V)
    if (Sel[V])
      selectWithScc(V, Sel);
  return Sel;
}

} // namespace wsn
