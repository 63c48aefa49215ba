//===- NetworkTraces.cpp - which node traces to replay (thesis Algorithm 5) ===//
#include "NetworkTraces.h"

#include "JsonNesting.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <set>

using namespace llvm;

namespace wsn {

namespace {
Error err(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

Expected<std::vector<RecvDependence>> parseDepList(const json::Value &V, StringRef File,
                                                   StringRef Where) {
  const json::Array *A = V.getAsArray();
  if (!A)
    return err(File + ": " + Where + ": expected an array of {\"recv\": R, \"x\": N}");
  std::vector<RecvDependence> Out;
  for (size_t I = 0; I < A->size(); ++I) {
    const json::Object *O = (*A)[I].getAsObject();
    std::optional<int64_t> R = O ? O->getInteger("recv") : std::nullopt;
    std::optional<int64_t> X =
        O && O->get("x") ? O->getInteger("x") : std::optional<int64_t>(0);
    if (!O || !R || !X || *R < 0 || *R > 0xFFFFFFFFll || *X < 0 || *X > 0xFFFFFFFFll)
      return err(File + ": " + Where + "[" + Twine(I) +
                 "]: expected {\"recv\": SITE, \"x\": COUNT} with non-negative integers");
    Out.push_back({uint32_t(*R), uint32_t(*X)});
  }
  return Out;
}

Error parseDepMap(const json::Object &Top, StringRef Key, StringRef File,
                  std::map<uint32_t, std::vector<RecvDependence>> &Out) {
  const json::Value *V = Top.get(Key);
  if (!V)
    return Error::success();
  const json::Object *O = V->getAsObject();
  if (!O)
    return err(File + ": \"" + Key + "\" is not an object");
  for (const auto &KV : *O) {
    uint32_t Id;
    if (!to_integer(StringRef(KV.first), Id, 10))
      return err(File + ": \"" + Key + "\": key '" + StringRef(KV.first) +
                 "' is not a decimal id");
    auto L = parseDepList(KV.second, File, (Key + "." + StringRef(KV.first)).str());
    if (!L)
      return L.takeError();
    Out[Id] = std::move(*L);
  }
  return Error::success();
}

/// The stop record of a node's trace (same rule as the preprocessor).
size_t stopRecord(const NodeTrace &T, StopKind &Kind) {
  size_t From = T.Checkpoint.value_or(0);
  for (size_t I = From; I < T.Records.size(); ++I)
    if (T.Records[I].Kind == RecordKind::Violation) {
      Kind = StopKind::Violation;
      return I;
    }
  Kind = T.Records.back().Kind == RecordKind::Check ? StopKind::LastCheck : StopKind::End;
  return T.Records.size() - 1;
}

/// Thesis Algorithm 5, steps 2 and 11: the RECV records in [From, To) that
/// may affect a message sent (or an invariant checked) at To, per R_OP. Deps
/// null: every RECV in the range.
std::vector<size_t> markedRecvs(const NodeTrace &T, size_t From, size_t To,
                                const std::vector<RecvDependence> *Deps) {
  std::vector<size_t> Out;
  if (!Deps) {
    for (size_t I = From; I < To; ++I)
      if (T.Records[I].Kind == RecordKind::Recv)
        Out.push_back(I);
    return Out;
  }
  std::set<size_t> Set;
  for (const RecvDependence &D : *Deps) {
    uint32_t Taken = 0;
    for (size_t I = To; I-- > From;) {
      const TraceRecord &R = T.Records[I];
      if (R.Kind != RecordKind::Recv || R.id() != D.RecvSite)
        continue;
      Set.insert(I);
      if (D.Count && ++Taken == D.Count)
        break;
    }
  }
  return std::vector<size_t>(Set.begin(), Set.end());
}

uint64_t fileOffset(const TraceRecord &R) { return TraceHeaderSize + R.RingOffset; }
} // namespace

Expected<MessageDependences> MessageDependences::parseJSON(StringRef Text, StringRef File) {
  if (Error E = checkJsonNesting(Text))
    return err(File + ": invalid JSON: " + toString(std::move(E)));
  Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    return err(File + ": invalid JSON: " + toString(Root.takeError()));
  const json::Object *O = Root->getAsObject();
  if (!O)
    return err(File + ": top level is not a JSON object");
  for (const auto &KV : *O)
    if (KV.first != "sends" && KV.first != "invariants")
      return err(File + ": unknown key '" + StringRef(KV.first) +
                 "' (expected \"sends\" and \"invariants\")");
  MessageDependences D;
  if (Error E = parseDepMap(*O, "sends", File, D.Sends))
    return std::move(E);
  if (Error E = parseDepMap(*O, "invariants", File, D.Invariants))
    return std::move(E);
  return D;
}

Expected<MessageDependences> MessageDependences::readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return err(Path + ": " + Buf.getError().message());
  return parseJSON((*Buf)->getBuffer(), Path);
}

Expected<NodeTrace> NodeTrace::fromFile(const TraceFile &F, std::string Path) {
  NodeTrace T;
  T.Node = F.header().NodeId;
  T.Path = std::move(Path);
  T.Header = F.header();
  if (Error E = F.decode(T.Records))
    return err(T.Path + ": " + toString(std::move(E)));
  if (T.Records.empty())
    return err(T.Path + ": the trace holds no record");
  for (size_t I = 0; I < T.Records.size(); ++I)
    if (T.Records[I].Kind == RecordKind::Checkpoint) {
      T.Checkpoint = I;
      break;
    }
  return std::move(T);
}

Expected<NodeTrace> NodeTrace::load(StringRef Path) {
  Expected<TraceFile> F = TraceFile::load(Path);
  if (!F)
    return err(Path + ": " + toString(F.takeError()));
  return fromFile(*F, Path.str());
}

Expected<NetworkSelection> selectNetworkTraces(const std::map<uint16_t, NodeTrace> &Traces,
                                               uint16_t StartNode,
                                               const MessageDependences &Deps) {
  auto StartIt = Traces.find(StartNode);
  if (StartIt == Traces.end())
    return err("node " + Twine(StartNode) + " has no trace");
  NetworkSelection S;
  S.ViolationNode = StartNode;
  const NodeTrace &E = StartIt->second;

  // The segment chosen so far per node (thesis: trace'_i), and the order in
  // which the search reached the nodes.
  std::map<uint16_t, NodeSegment> Segs;
  std::vector<uint16_t> Reached;
  auto Extend = [&](const NodeTrace &T, size_t Last) {
    auto It = Segs.find(T.Node);
    if (It == Segs.end()) {
      NodeSegment G;
      G.Node = T.Node;
      G.Path = T.Path;
      G.HasCheckpoint = T.Checkpoint.has_value();
      G.First = T.Checkpoint.value_or(0);
      G.Last = Last;
      It = Segs.emplace(T.Node, G).first;
      Reached.push_back(T.Node);
      if (!G.HasCheckpoint)
        S.Warnings.push_back("node " + std::to_string(T.Node) +
                             ": the trace has no checkpoint; its segment starts at the "
                             "oldest retained record and cannot be replayed from a known "
                             "state");
    }
    It->second.Last = std::max(It->second.Last, Last);
  };

  // Steps 1-3: the violating node, from its earliest checkpoint to the stop
  // record; the RECVs that may affect the invariant are marked.
  StopKind Kind;
  S.StopRecord = stopRecord(E, Kind);
  S.Stop = Kind;
  const TraceRecord &Stop = E.Records[S.StopRecord];
  const std::vector<RecvDependence> *InvDeps = nullptr;
  if (Stop.Kind == RecordKind::Violation || Stop.Kind == RecordKind::Check) {
    S.Invariant = Stop.id();
    auto It = Deps.Invariants.find(Stop.id());
    if (It != Deps.Invariants.end())
      InvDeps = &It->second;
  }
  Extend(E, S.StopRecord);

  // Worklist of (node, RECV record). Each RECV is followed at most once, so
  // cycles in message paths end the search (the node's segment is merged).
  std::deque<std::pair<uint16_t, size_t>> Work;
  std::set<std::pair<uint16_t, size_t>> Seen;
  auto Mark = [&](const NodeTrace &T, size_t To, const std::vector<RecvDependence> *D) {
    for (size_t I : markedRecvs(T, T.Checkpoint.value_or(0), To, D))
      if (Seen.insert({T.Node, I}).second)
        Work.push_back({T.Node, I});
  };
  Mark(E, S.StopRecord + 1, InvDeps);

  // Steps 4-17.
  while (!Work.empty()) {
    auto [K, RecvIdx] = Work.front();
    Work.pop_front();
    const TraceRecord &Recv = Traces.at(K).Records[RecvIdx];
    uint32_t Sender = Recv.Fields[1], Seq = Recv.Fields[2];
    UnresolvedMessage U{K, uint16_t(Sender), Seq, RecvIdx, ""};
    auto SIt = Sender <= 0xFFFF ? Traces.find(uint16_t(Sender)) : Traces.end();
    if (SIt == Traces.end()) {
      U.Reason = "node " + std::to_string(Sender) + " has no trace";
      S.Unresolved.push_back(U);
      continue;
    }
    const NodeTrace &T = SIt->second;
    // Step 8: the SEND of message Seq to node K (or broadcast); the latest
    // one if the 16-bit sequence number wrapped within the retained tail.
    std::optional<size_t> SendIdx;
    std::optional<uint32_t> OldestSeq, NewestSeq;
    for (size_t I = 0; I < T.Records.size(); ++I) {
      const TraceRecord &R = T.Records[I];
      if (R.Kind != RecordKind::Send)
        continue;
      if (!OldestSeq)
        OldestSeq = R.Fields[1];
      NewestSeq = R.Fields[1];
      if (R.Fields[1] == Seq && (R.Fields[2] == K || R.Fields[2] == 0xFFFF))
        SendIdx = I;
    }
    // Later than the newest SEND (16-bit sequence numbers, modulo): the record
    // was not written yet. A SEND is written when the send returns, so the
    // sender's trace was read while it was still inside that send.
    uint16_t Ahead = NewestSeq ? uint16_t(Seq - *NewestSeq) : 0;
    if (!SendIdx && NewestSeq && Ahead != 0 && Ahead < 0x8000) {
      U.Reason = "the SEND of seq " + std::to_string(Seq) + " to node " + std::to_string(K) +
                 " is not in node " + std::to_string(Sender) +
                 "'s trace yet: its newest SEND has seq " + std::to_string(*NewestSeq) +
                 " (a SEND is written when the send returns: that node's trace was read "
                 "before it did)";
      S.Unresolved.push_back(U);
      continue;
    }
    if (!SendIdx) {
      U.Reason = "the SEND of seq " + std::to_string(Seq) + " to node " + std::to_string(K) +
                 " is not in node " + std::to_string(Sender) +
                 "'s retained trace (it fell off the ring";
      if (OldestSeq)
        U.Reason += "; the oldest retained SEND has seq " + std::to_string(*OldestSeq);
      if (T.Header.Flags & TF_Dropped)
        U.Reason += "; the trace is flagged DROPPED";
      U.Reason += ")";
      S.Unresolved.push_back(U);
      continue;
    }
    if (T.Checkpoint && *SendIdx < *T.Checkpoint) {
      U.Reason = "the SEND (node " + std::to_string(Sender) + " record " +
                 std::to_string(*SendIdx) + ") precedes that node's earliest checkpoint (" +
                 recordPlace(T.Records[*T.Checkpoint], *T.Checkpoint) +
                 "): it cannot be replayed";
      S.Unresolved.push_back(U);
      continue;
    }
    const TraceRecord &Send = T.Records[*SendIdx];
    S.Links.push_back({uint16_t(Sender), K, Seq, *SendIdx, RecvIdx, Send.id(), Recv.id()});
    // Steps 9-14: the sender's segment reaches the SEND; the RECVs R_OP says
    // may have shaped the message are followed in turn.
    Extend(T, *SendIdx);
    auto DIt = Deps.Sends.find(Send.id());
    Mark(T, *SendIdx, DIt == Deps.Sends.end() ? nullptr : &DIt->second);
  }

  // Step 18 and Theorem 5.2.1: the replay order is the reverse of the search.
  for (auto It = Reached.rbegin(); It != Reached.rend(); ++It) {
    NodeSegment G = Segs.at(*It);
    const NodeTrace &T = Traces.at(*It);
    G.LastWhat = describeRecord(T.Records[G.Last]);
    G.FirstOffset = fileOffset(T.Records[G.First]);
    G.LastOffset = fileOffset(T.Records[G.Last]);
    S.ReplayOrder.push_back(G);
  }
  for (const auto &KV : Traces)
    if (!Segs.count(KV.first))
      S.NotSelected.push_back(KV.first);
  return std::move(S);
}

Expected<NetworkSelection> selectNetworkTraces(StringRef Dir, const NetworkOptions &Opts) {
  std::map<uint16_t, NodeTrace> Traces;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    unsigned Id;
    if (!Name.consume_front("node") || Name.getAsInteger(10, Id))
      continue;
    SmallString<256> P(It->path());
    sys::path::append(P, "trace.wtr");
    if (!sys::fs::exists(P))
      continue;
    if (Id > 0xFFFF)
      return err(It->path() + ": node id " + Twine(Id) + " does not fit 16 bits");
    auto T = NodeTrace::load(P);
    if (!T)
      return T.takeError();
    if (T->Node != Id)
      return err(P + ": header node_id " + Twine(T->Node) + " but the directory is node " +
                 Twine(Id));
    Traces.emplace(uint16_t(Id), std::move(*T));
  }
  if (EC)
    return err(Dir + ": " + EC.message());
  if (Traces.empty())
    return err(Dir + ": no node<ID>/trace.wtr in this directory");

  uint16_t Start;
  if (Opts.StartNode) {
    Start = *Opts.StartNode;
  } else {
    SmallString<256> NetJson(Dir);
    sys::path::append(NetJson, "net.json");
    auto Buf = MemoryBuffer::getFile(NetJson);
    if (!Buf)
      return err(NetJson + ": " + Buf.getError().message() +
                 " (give the node to start from instead)");
    if (Error E = checkJsonNesting((*Buf)->getBuffer()))
      return err(NetJson + ": invalid JSON: " + toString(std::move(E)));
    Expected<json::Value> Root = json::parse((*Buf)->getBuffer());
    if (!Root)
      return err(NetJson + ": invalid JSON: " + toString(Root.takeError()));
    const json::Object *O = Root->getAsObject();
    const json::Value *V = O ? O->get("violation") : nullptr;
    if (!V)
      return err(NetJson + ": no \"violation\" key");
    if (V->kind() == json::Value::Null)
      return err(NetJson + ": the run recorded no violation (stop: time); give the node to "
                           "start from");
    const json::Object *VO = V->getAsObject();
    std::optional<int64_t> N = VO ? VO->getInteger("node") : std::nullopt;
    if (!N || *N < 0 || *N > 0xFFFF)
      return err(NetJson + ": \"violation\" has no valid \"node\"");
    Start = uint16_t(*N);
  }
  if (!Traces.count(Start))
    return err(Dir + ": node " + Twine(Start) + " has no trace.wtr");
  return selectNetworkTraces(Traces, Start, Opts.Deps);
}

void printNetworkSelection(raw_ostream &OS, const NetworkSelection &S) {
  OS << "network trace selection (thesis Algorithm 5): start at node " << S.ViolationNode
     << ", " << stopKindName(S.Stop) << " at record " << S.StopRecord;
  if (S.Invariant)
    OS << " (invariant " << *S.Invariant << ")";
  OS << "\nreplay order (" << S.ReplayOrder.size() << " node"
     << (S.ReplayOrder.size() == 1 ? "" : "s") << "):\n";
  unsigned N = 0;
  for (const NodeSegment &G : S.ReplayOrder) {
    OS << "  " << ++N << ". node " << G.Node << ": records " << G.First << ".." << G.Last
       << " (offsets " << G.FirstOffset << ".." << G.LastOffset << "), from "
       << (G.HasCheckpoint ? "its earliest checkpoint" : "its oldest record (NO checkpoint)")
       << " to " << G.LastWhat << "; " << G.Path << "\n";
  }
  OS << "messages followed (" << S.Links.size() << "):\n";
  for (const MessageLink &L : S.Links)
    OS << "  node " << L.Sender << " SEND seq " << L.Seq << " (record " << L.SendRecord
       << ", site " << L.SendSite << ") -> node " << L.Receiver << " RECV (record "
       << L.RecvRecord << ", site " << L.RecvSite << ")\n";
  OS << "unresolved messages (" << S.Unresolved.size() << "):\n";
  for (const UnresolvedMessage &U : S.Unresolved)
    OS << "  node " << U.Receiver << " RECV from node " << U.Sender << " seq " << U.Seq
       << " (record " << U.RecvRecord << "): " << U.Reason << "\n";
  if (!S.NotSelected.empty()) {
    OS << "not selected:";
    for (uint16_t Nd : S.NotSelected)
      OS << " node " << Nd;
    OS << "\n";
  }
  for (const std::string &W : S.Warnings)
    OS << "warning: " << W << "\n";
}

} // namespace wsn
