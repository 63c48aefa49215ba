//===- NetTimeline.cpp - a network replay as a timeline and as a graph ----===//
#include "NetTimeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace wsn {

namespace {

std::string fnName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Function *F = Map.function(Id);
  return F ? F->Name : "fid " + std::to_string(Id);
}
std::string irqName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Irq *Q = Map.irq(Id);
  return Q ? Q->Function : "irq " + std::to_string(Id);
}
std::string invName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Invariant *I = Map.invariant(Id);
  return I ? I->Function : "inv " + std::to_string(Id);
}

/// Lamport clocks: Clock[n][i] for the i-th event of node n. A node's events
/// are one unit apart; a RECV comes one unit after the SEND of its message.
/// Relaxed until nothing changes (message cycles between nodes converge
/// because every constraint points forward in happened-before).
std::vector<std::vector<uint64_t>>
lamport(const std::vector<TimelineNode> &Nodes, const std::vector<TimelineMessage> &Msgs) {
  std::map<uint16_t, size_t> Pos;
  for (size_t I = 0; I < Nodes.size(); ++I)
    Pos[Nodes[I].Node] = I;
  // The event index of each (node, record) of a message.
  std::map<std::pair<size_t, size_t>, size_t> EventAt;
  for (size_t N = 0; N < Nodes.size(); ++N)
    for (size_t I = 0; I < Nodes[N].Events.size(); ++I)
      EventAt.emplace(std::make_pair(N, Nodes[N].Events[I].Record), I);
  // RECV event -> SEND event of its message.
  std::map<std::pair<size_t, size_t>, std::pair<size_t, size_t>> From;
  for (const TimelineMessage &M : Msgs) {
    auto S = Pos.find(M.Sender), R = Pos.find(M.Receiver);
    if (S == Pos.end() || R == Pos.end())
      continue;
    auto SE = EventAt.find({S->second, M.SendRecord});
    auto RE = EventAt.find({R->second, M.RecvRecord});
    if (SE != EventAt.end() && RE != EventAt.end())
      From[{R->second, RE->second}] = {S->second, SE->second};
  }
  std::vector<std::vector<uint64_t>> Clock(Nodes.size());
  for (size_t N = 0; N < Nodes.size(); ++N)
    Clock[N].assign(Nodes[N].Events.size(), 0);
  for (size_t Round = 0; Round <= Nodes.size() + 1; ++Round) {
    bool Changed = false;
    for (size_t N = 0; N < Nodes.size(); ++N)
      for (size_t I = 0; I < Clock[N].size(); ++I) {
        uint64_t T = I ? Clock[N][I - 1] + 1 : 0;
        auto F = From.find({N, I});
        if (F != From.end())
          T = std::max(T, Clock[F->second.first][F->second.second] + 1);
        if (T > Clock[N][I]) {
          Clock[N][I] = T;
          Changed = true;
        }
      }
    if (!Changed)
      break;
  }
  return Clock;
}

} // namespace

void writeTimeline(raw_ostream &OS, const std::vector<TimelineNode> &Nodes,
                   const std::vector<TimelineMessage> &Msgs) {
  std::vector<std::vector<uint64_t>> Clock = lamport(Nodes, Msgs);
  json::Array Ev;
  std::map<uint16_t, size_t> Pos;
  for (size_t N = 0; N < Nodes.size(); ++N) {
    const TimelineNode &T = Nodes[N];
    Pos[T.Node] = N;
    int64_t Pid = T.Node;
    Ev.push_back(json::Object{{"ph", "M"}, {"name", "process_name"}, {"pid", Pid},
                              {"tid", 0}, {"args", json::Object{{"name", T.Label}}}});
    Ev.push_back(json::Object{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", Pid},
                              {"tid", 0}, {"args", json::Object{{"sort_index", int64_t(N)}}}});
    Ev.push_back(json::Object{{"ph", "M"}, {"name", "thread_name"}, {"pid", Pid},
                              {"tid", 0}, {"args", json::Object{{"name", "mote"}}}});
    // Open slices (B without E yet), closed at the end so every track is
    // balanced even when replay stopped inside a handler.
    std::vector<std::string> Open;
    uint64_t Last = 0;
    for (size_t I = 0; I < T.Events.size(); ++I) {
      const ReplayEvent &E = T.Events[I];
      uint64_t Ts = Clock[N][I];
      Last = Ts;
      auto Base = [&](StringRef Ph, const std::string &Name, StringRef Cat) {
        return json::Object{{"ph", Ph},    {"name", Name},    {"cat", Cat},
                            {"pid", Pid},  {"tid", 0},        {"ts", int64_t(Ts)},
                            {"args", json::Object{{"record", int64_t(E.Record)}}}};
      };
      switch (E.K) {
      case ReplayEvent::Entry: {
        std::string Name = fnName(*T.Map, E.Id);
        Ev.push_back(Base("B", Name, "task"));
        Open.push_back(Name);
        break;
      }
      case ReplayEvent::IrqEntry: {
        std::string Name = irqName(*T.Map, E.Id);
        Ev.push_back(Base("B", Name, "interrupt"));
        Open.push_back(Name);
        break;
      }
      case ReplayEvent::Exit:
      case ReplayEvent::IrqExit:
        if (!Open.empty()) {
          Ev.push_back(Base("E", Open.back(),
                            E.K == ReplayEvent::Exit ? "task" : "interrupt"));
          Open.pop_back();
        }
        break;
      case ReplayEvent::Check:
      case ReplayEvent::Violation: {
        json::Object O = Base("i", (E.K == ReplayEvent::Check ? "check " : "VIOLATION ") +
                                       invName(*T.Map, E.Id),
                              "check");
        O["s"] = "t";
        Ev.push_back(std::move(O));
        break;
      }
      case ReplayEvent::Checkpoint: {
        json::Object O = Base("i", "checkpoint", "checkpoint");
        O["s"] = "t";
        Ev.push_back(std::move(O));
        break;
      }
      case ReplayEvent::Send:
      case ReplayEvent::Recv: {
        bool Send = E.K == ReplayEvent::Send;
        json::Object O = Base("X", formatv("{0} seq {1}", Send ? "send" : "recv", E.Value),
                              "message");
        O["dur"] = 1;
        Ev.push_back(std::move(O));
        break;
      }
      default:
        break;
      }
    }
    while (!Open.empty()) {
      Ev.push_back(json::Object{{"ph", "E"}, {"name", Open.back()}, {"pid", Pid},
                                {"tid", 0}, {"ts", int64_t(Last + 1)}});
      Open.pop_back();
    }
  }
  // Flows: one id per followed message whose two ends were replayed.
  int64_t Id = 0;
  for (const TimelineMessage &M : Msgs) {
    auto S = Pos.find(M.Sender), R = Pos.find(M.Receiver);
    if (S == Pos.end() || R == Pos.end())
      continue;
    auto TsOf = [&](size_t N, size_t Record) -> std::optional<uint64_t> {
      const std::vector<ReplayEvent> &E = Nodes[N].Events;
      for (size_t I = 0; I < E.size(); ++I)
        if (E[I].Record == Record &&
            (E[I].K == ReplayEvent::Send || E[I].K == ReplayEvent::Recv))
          return Clock[N][I];
      return std::nullopt;
    };
    std::optional<uint64_t> Ts = TsOf(S->second, M.SendRecord);
    std::optional<uint64_t> Tr = TsOf(R->second, M.RecvRecord);
    if (!Ts || !Tr)
      continue;
    std::string Name = formatv("message {0}:{1}", M.Sender, M.Seq).str();
    ++Id;
    Ev.push_back(json::Object{{"ph", "s"}, {"name", Name}, {"cat", "message"},
                              {"id", Id}, {"pid", int64_t(M.Sender)}, {"tid", 0},
                              {"ts", int64_t(*Ts)}});
    Ev.push_back(json::Object{{"ph", "f"}, {"bp", "e"}, {"name", Name}, {"cat", "message"},
                              {"id", Id}, {"pid", int64_t(M.Receiver)}, {"tid", 0},
                              {"ts", int64_t(*Tr)}});
  }
  json::Object Top{{"traceEvents", std::move(Ev)},
                   {"displayTimeUnit", "ns"},
                   {"otherData",
                    json::Object{{"generator", "wsn-replay net"},
                                 {"clock", "Lamport clock over happened-before (no real "
                                           "time in the traces); 1 unit = 1 event"}}}};
  OS << formatv("{0:2}", json::Value(std::move(Top))) << "\n";
}

namespace {
std::string dotId(uint16_t Node, size_t Record) {
  return formatv("n{0}_r{1}", Node, Record).str();
}
std::string dotEscape(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out;
}
} // namespace

void writeHappenedBefore(raw_ostream &OS, const std::vector<TimelineNode> &Nodes,
                         const std::vector<TimelineMessage> &Msgs) {
  OS << "digraph happened_before {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n";
  for (const TimelineNode &T : Nodes) {
    OS << "  subgraph cluster_node" << T.Node << " {\n    label=\"" << dotEscape(T.Label)
       << "\";\n";
    std::vector<std::pair<size_t, std::string>> Points;
    Points.push_back({T.StartRecord, formatv("start (checkpoint, record {0})", T.StartRecord)});
    for (const ReplayEvent &E : T.Events) {
      if (E.K == ReplayEvent::Send || E.K == ReplayEvent::Recv)
        Points.push_back({E.Record, formatv("{0} seq {1} (record {2})",
                                            E.K == ReplayEvent::Send ? "SEND" : "RECV",
                                            E.Value, E.Record)});
      else if (E.K == ReplayEvent::Violation)
        Points.push_back({E.Record, formatv("VIOLATION {0} (record {1})",
                                            invName(*T.Map, E.Id), E.Record)});
    }
    // Message ends that replay passed inside a skipped call have no event.
    for (const TimelineMessage &M : Msgs) {
      size_t R = M.Sender == T.Node ? M.SendRecord : M.RecvRecord;
      if (M.Sender != T.Node && M.Receiver != T.Node)
        continue;
      if (std::none_of(Points.begin(), Points.end(), [&](auto &P) { return P.first == R; }))
        Points.push_back({R, formatv("{0} seq {1} (record {2}, inside a skipped call)",
                                     M.Sender == T.Node ? "SEND" : "RECV", M.Seq, R)});
    }
    std::sort(Points.begin(), Points.end(),
              [](auto &A, auto &B) { return A.first < B.first; });
    Points.erase(std::unique(Points.begin(), Points.end(),
                             [](auto &A, auto &B) { return A.first == B.first; }),
                 Points.end());
    for (auto &[R, Label] : Points)
      OS << "    " << dotId(T.Node, R) << " [label=\"" << dotEscape(Label) << "\"];\n";
    for (size_t I = 1; I < Points.size(); ++I)
      OS << "    " << dotId(T.Node, Points[I - 1].first) << " -> "
         << dotId(T.Node, Points[I].first) << ";\n";
    OS << "  }\n";
  }
  for (const TimelineMessage &M : Msgs)
    OS << "  " << dotId(M.Sender, M.SendRecord) << " -> " << dotId(M.Receiver, M.RecvRecord)
       << " [color=blue, label=\"" << M.Sender << ":" << M.Seq << "\"];\n";
  OS << "}\n";
}

} // namespace wsn
