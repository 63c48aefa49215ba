//===- ValueOrigin.cpp - `why` across nodes: a value's writes back to its source -===//
//
// The walk works on one node's store history (StoreWatch::History): every
// write of the run in order, each program store with the sources of its value
// (the loads in the value's computation, from the replay lowering). Walking
// bytes [A, A+S) back from history position Pos:
//   - the newest received payload buffer (MsgBuffers of a RECV record) that
//     overlaps them, captured at or before Pos, whose bytes nothing rewrote
//     since: the bytes are that message's payload. The walk continues on the
//     sender, at the same payload offsets in its buffer when wsn.msg.payload
//     captured it at the send's start;
//   - else the newest write before Pos: printed (node, source line, task or
//     handler instance), and the walk continues from each of its sources
//     (a copy maps byte for byte; a computed value from the whole source);
//   - no write: the bytes hold what the start checkpoint or the program's
//     image gave them, or an I/O register's value; the chain ends.
// spec/replay.md section 9.1.
//
//===----------------------------------------------------------------------===//
#include "ValueOrigin.h"

#include "ReplayLowering.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <set>
#include <vector>

using namespace llvm;

namespace wsn {
namespace {

struct Range {
  uint32_t Addr = 0, Size = 0;
  uint32_t end() const { return Addr + Size; }
};

std::string hex4(uint32_t V) {
  std::string S = utohexstr(V, /*LowerCase=*/true);
  return "0x" + std::string(S.size() < 4 ? 4 - S.size() : 0, '0') + S;
}

/// One byte of a node's data space at a point of its run: the bytes written
/// by the first Pos entries of its store history are in place.
struct Item {
  uint16_t Node = 0;
  uint32_t Addr = 0;
  size_t Pos = 0;
  bool operator<(const Item &O) const {
    return std::tie(Node, Addr, Pos) < std::tie(O.Node, O.Addr, O.Pos);
  }
};

/// "0..3" or "2" or "0, 2..3".
std::string spans(const std::vector<uint32_t> &Sorted) {
  std::string S;
  for (size_t I = 0; I < Sorted.size();) {
    size_t J = I;
    while (J + 1 < Sorted.size() && Sorted[J + 1] == Sorted[J] + 1)
      ++J;
    S += (S.empty() ? "" : ", ") + std::to_string(Sorted[I]);
    if (J > I)
      S += ".." + std::to_string(Sorted[J]);
    I = J + 1;
  }
  return S;
}

std::optional<size_t> recvOfSkippedCall(const OriginView &V, const StoreEvent &E);

class Walk {
public:
  Walk(raw_ostream &OS, const OriginWalkOptions &O) : OS(OS), O(O) {}
  void run(const OriginView &V, Range R);

private:
  raw_ostream &OS;
  const OriginWalkOptions &O;
  std::map<uint16_t, OriginView> Views;
  std::vector<uint16_t> Path;                  ///< nodes of the messages crossed
  unsigned Messages = 0;
  unsigned SkippedReceives = 0; ///< chains ended in skipped calls that received a message
  unsigned SkippedCalls = 0;    ///< chains ended in any skipped call's effect
  bool Linear = true; ///< each message crossed was sent to the previous one's sender
  /// A run of levels that each are one write at the same source location
  /// (x = x + 1 ...): counted, printed once.
  std::string RepeatLoc;
  uint16_t RepeatNode = 0;
  unsigned Repeats = 0;

  /// Prints one level and returns the bytes its writes were computed from.
  std::vector<Item> level(const std::vector<Item> &Items);
  std::string where(const OriginView &V, const std::vector<uint32_t> &Addrs);
  std::string context(const OriginView &V, size_t EventsBefore);
  void flushRepeats() {
    if (Repeats)
      OS << formatv("  node {0}: ... and {1} earlier write{2} at the same location\n",
                    RepeatNode, Repeats, Repeats == 1 ? "" : "s");
    Repeats = 0;
  }
};

/// "G", "G+4 (2 bytes)", "stack 0x10f2..0x10f3" or "0x0024" for sorted
/// addresses of one node.
std::string Walk::where(const OriginView &V, const std::vector<uint32_t> &Addrs) {
  uint32_t Lo = Addrs.front(), Hi = Addrs.back() + 1;
  bool Contiguous = Hi - Lo == Addrs.size();
  for (const ReplayGlobal &G : V.R->info().Globals)
    if (Lo >= G.Addr && Hi <= G.Addr + G.Size) {
      if (Lo == G.Addr && Hi == G.Addr + G.Size && Contiguous)
        return G.Name;
      std::vector<uint32_t> Offs;
      for (uint32_t A : Addrs)
        Offs.push_back(A - G.Addr);
      return formatv("{0} byte{1} {2}", G.Name, Addrs.size() == 1 ? "" : "s", spans(Offs))
          .str();
    }
  std::string Span = Hi - Lo <= 1 ? hex4(Lo) : hex4(Lo) + ".." + hex4(Hi - 1);
  if (!Contiguous)
    Span += formatv(" ({0} bytes)", Addrs.size()).str();
  if (Lo >= V.R->info().StackLimit)
    return "stack " + Span;
  return Span;
}

/// The RECV record of the message a skipped call received (spec/
/// instrumentation.md: right before the call's skip.begin), for the effect
/// write E; none when the call received no message.
std::optional<size_t> recvOfSkippedCall(const OriginView &V, const StoreEvent &E) {
  const std::vector<ReplayEvent> &Ev = V.R->events();
  if (E.EventsBefore >= Ev.size() || Ev[E.EventsBefore].K != ReplayEvent::Effect)
    return std::nullopt;
  size_t EffRec = Ev[E.EventsBefore].Record;
  unsigned Depth = 0;
  for (size_t I = EffRec; I-- > V.P->Start;) {
    const TraceRecord &R = V.P->Records[I];
    if (R.Kind == RecordKind::Effect && R.id() == uint32_t(E.EffectSite))
      ++Depth;
    if (R.Kind != RecordKind::SkipBegin || R.id() != uint32_t(E.EffectSite))
      continue;
    if (Depth--)
      continue;
    if (I > 0 && V.P->Records[I - 1].Kind == RecordKind::Recv)
      return I - 1;
    return std::nullopt;
  }
  return std::nullopt;
}

/// The innermost task / handler / function instance running after the
/// first EventsBefore events of V's run.
std::string Walk::context(const OriginView &V, size_t EventsBefore) {
  struct Frame {
    bool Irq;
    uint32_t Id, Instance;
  };
  std::vector<Frame> S;
  const std::vector<ReplayEvent> &Ev = V.R->events();
  for (size_t I = 0; I < EventsBefore && I < Ev.size(); ++I) {
    const ReplayEvent &E = Ev[I];
    if (E.K == ReplayEvent::Entry || E.K == ReplayEvent::IrqEntry) {
      S.push_back({E.K == ReplayEvent::IrqEntry, E.Id, E.Instance});
    } else if (E.K == ReplayEvent::Exit || E.K == ReplayEvent::IrqExit) {
      bool Irq = E.K == ReplayEvent::IrqExit;
      for (size_t K = S.size(); K-- > 0;)
        if (S[K].Irq == Irq && S[K].Id == E.Id) {
          S.resize(K);
          break;
        }
    }
  }
  auto Name = [&](const Frame &F) {
    std::string Inst = "#" + std::to_string(F.Instance);
    if (F.Irq) {
      const TraceMap::Irq *Q = V.Map->irq(F.Id);
      return "handler " + (Q ? Q->Function : "of irq " + std::to_string(F.Id)) + Inst;
    }
    const TraceMap::Function *Fn = V.Map->function(F.Id);
    std::string N = Fn ? Fn->Name : "fid " + std::to_string(F.Id);
    bool Task = llvm::any_of(V.Map->Tasks,
                             [&](const TraceMap::Task &T) { return T.Function == N; }) ||
                StringRef(N).ends_with("$runTask");
    return (Task ? "task " : "function ") + N + Inst;
  };
  if (S.empty()) {
    const TraceMap::Anchor *A = V.Map->anchor(V.P->StartAnchor);
    return (A ? A->Function : std::string("the anchor's function")) +
           " (resumed at the start checkpoint)";
  }
  // The innermost frame, and the handler instance it runs in, if any.
  std::string Out = Name(S.back());
  for (size_t K = S.size() - 1; K-- > 0;)
    if (S[K].Irq) {
      Out += ", in " + Name(S[K]);
      break;
    }
  return Out;
}

std::vector<Item> Walk::level(const std::vector<Item> &Items) {
  // Each byte's origin: a received payload still in place, a write, or none.
  struct MsgKey {
    uint16_t Node;
    size_t Record;
    bool operator<(const MsgKey &O) const {
      return std::tie(Node, Record) < std::tie(O.Node, O.Record);
    }
  };
  std::map<MsgKey, std::vector<uint32_t>> Msgs; // -> payload offsets
  std::map<MsgKey, const MsgBuffer *> MsgBuf;
  // Writes, grouped by node, location and context: (history index, address).
  std::vector<std::pair<std::tuple<uint16_t, std::string, std::string>,
                        std::vector<std::pair<size_t, uint32_t>>>>
      Writes;
  std::map<uint16_t, std::vector<uint32_t>> None;
  for (const Item &I : Items) {
    const OriginView &V = Views.at(I.Node);
    const StoreWatch &W = V.R->machine().Watch;
    const ReplayMachine &M = V.R->machine();
    size_t Pos = std::min(I.Pos, W.History.size());
    long Last = -1;
    for (size_t K = Pos; K-- > 0;)
      if (I.Addr >= W.History[K].Addr && I.Addr - W.History[K].Addr < W.History[K].Size) {
        Last = long(K);
        break;
      }
    const MsgBuffer *Buf = nullptr;
    size_t BufRecord = 0;
    for (const auto &[Rec, B] : M.MsgBuffers) {
      if (Rec >= V.P->Records.size() || V.P->Records[Rec].Kind != RecordKind::Recv)
        continue;
      if (B.HistoryBefore > Pos || I.Addr < B.Buf || I.Addr - B.Buf >= B.Len)
        continue;
      if (!Buf || B.HistoryBefore >= Buf->HistoryBefore)
        Buf = &B, BufRecord = Rec;
    }
    if (Buf && (Last < 0 || size_t(Last) < Buf->HistoryBefore)) {
      Msgs[{I.Node, BufRecord}].push_back(I.Addr - Buf->Buf);
      MsgBuf[{I.Node, BufRecord}] = Buf;
      continue;
    }
    if (Last < 0) {
      None[I.Node].push_back(I.Addr);
      continue;
    }
    const StoreEvent &E = W.History[size_t(Last)];
    std::string Loc = E.Loc ? E.Loc : "effect " + std::to_string(E.EffectSite);
    auto Key = std::make_tuple(I.Node, Loc, context(V, E.EventsBefore));
    auto It = llvm::find_if(Writes, [&](const auto &G) { return G.first == Key; });
    if (It == Writes.end()) {
      Writes.push_back({Key, {}});
      It = std::prev(Writes.end());
    }
    It->second.push_back({size_t(Last), I.Addr});
  }

  std::set<Item> Next;
  // A loop-carried update (x = x + 1, one write per level at one location):
  // counted instead of printed.
  bool Repeat = false;
  if (Msgs.empty() && None.empty() && Writes.size() == 1) {
    const auto &[Node, Loc, Ctx] = Writes.front().first;
    Repeat = Node == RepeatNode && Loc == RepeatLoc && !RepeatLoc.empty();
  }
  if (Repeat) {
    ++Repeats;
  } else {
    flushRepeats();
    RepeatLoc.clear();
    for (auto &[N, Addrs] : None) {
      const OriginView &V = Views.at(N);
      llvm::sort(Addrs);
      Addrs.erase(std::unique(Addrs.begin(), Addrs.end()), Addrs.end());
      const TraceMap::Anchor *A = V.Map->anchor(V.P->StartAnchor);
      bool InCheckpoint = false;
      if (A)
        for (const TraceMap::Var &Var : A->Vars)
          if (Var.IsGlobal)
            if (const ReplayGlobal *G = V.R->info().global(Var.Name))
              for (uint32_t X : Addrs)
                InCheckpoint |= X >= G->Addr && X < G->Addr + G->Size;
      bool Io = Addrs.back() < 0x100 && StringRef(V.R->info().Target.MCU).starts_with("atmega");
      OS << formatv("  node {0}: {1}: not written since the replay started; {2}\n", N,
                    where(V, Addrs),
                    InCheckpoint ? "restored from the start checkpoint (record " +
                                       std::to_string(V.P->Start) + ")"
                    : Io         ? std::string("an I/O register")
                                 : std::string("its value before the start checkpoint"));
    }
    for (auto &[Key, Offs] : Msgs) {
      const OriginView &V = Views.at(Key.Node);
      llvm::sort(Offs);
      Offs.erase(std::unique(Offs.begin(), Offs.end()), Offs.end());
      const MsgBuffer &B = *MsgBuf[Key];
      const TraceRecord &RR = V.P->Records[Key.Record];
      uint16_t Sender = uint16_t(RR.Fields[1]);
      uint32_t Seq = RR.Fields[2];
      OS << formatv("  node {0}: payload byte{1} {2} of message seq {3} from node {4} (RECV "
                    "record {5}, received while running {6})\n",
                    Key.Node, Offs.size() == 1 ? "" : "s", spans(Offs), Seq, Sender, Key.Record,
                    context(V, B.EventsBefore + 1));
      if (!O.FindSender) {
        OS << "  (the sender is not replayed here)\n";
        continue;
      }
      auto Found = O.FindSender(Sender, Seq, Key.Node);
      if (auto *Why = std::get_if<std::string>(&Found)) {
        OS << "  node " << Key.Node << ": the chain ends here: " << *Why << "\n";
        continue;
      }
      OriginSender &S = std::get<OriginSender>(Found);
      Views[S.View.Node] = S.View;
      const ReplayMachine &SM = S.View.R->machine();
      auto SB = SM.MsgBuffers.find(S.SendRecord);
      if (SB == SM.MsgBuffers.end() || Offs.back() >= SB->second.Len) {
        OS << formatv("  node {0}: the chain ends here: its replay holds no payload bytes {1} "
                      "for SEND record {2}\n",
                      Sender, spans(Offs), S.SendRecord);
        continue;
      }
      ++Messages;
      Linear &= Key.Node == Path.back();
      if (llvm::find(Path, Sender) == Path.end())
        Path.push_back(Sender);
      const MsgBuffer &SBuf = SB->second;
      std::vector<uint32_t> SAddrs;
      for (uint32_t K : Offs) {
        SAddrs.push_back(SBuf.Buf + K);
        Next.insert({Sender, SBuf.Buf + K, SBuf.HistoryBefore});
      }
      OS << formatv("  node {0}: sent them as {1} in message seq {2} to node {3} (SEND record "
                    "{4}, while running {5})\n",
                    Sender, where(S.View, SAddrs), Seq, Key.Node, S.SendRecord,
                    context(S.View, SBuf.EventsBefore + 1));
    }
    for (auto &[Key, Group] : Writes) {
      const auto &[N, Loc, Ctx] = Key;
      const OriginView &V = Views.at(N);
      std::vector<uint32_t> Addrs;
      std::set<size_t> Stores;
      for (auto &[Idx, A] : Group) {
        Addrs.push_back(A);
        Stores.insert(Idx);
      }
      llvm::sort(Addrs);
      Addrs.erase(std::unique(Addrs.begin(), Addrs.end()), Addrs.end());
      const StoreEvent &E0 = V.R->machine().Watch.History[*Stores.begin()];
      if (E0.EffectSite >= 0) {
        const TraceMap::Effect *Ef = V.Map->effect(uint32_t(E0.EffectSite));
        std::string Callee = Ef && !Ef->Callee.empty() ? Ef->Callee : std::string("<indirect>");
        OS << formatv("  node {0}: {1} <- the recorded effect of the skipped call to {2}, while "
                      "running {3} (its code is not replayed: the chain ends here)\n",
                      N, where(V, Addrs), Callee, Ctx);
        ++SkippedCalls;
        if (std::optional<size_t> Recv = recvOfSkippedCall(V, E0)) {
          ++SkippedReceives;
          OS << formatv("      (that call received message seq {0} from node {1}, RECV "
                        "record {2}; which of its payload bytes the call wrote here is "
                        "known only when {3} is traced: rebuild with a higher --level)\n",
                        V.P->Records[*Recv].Fields[2], V.P->Records[*Recv].Fields[1], *Recv,
                        Callee);
        }
        continue;
      }
      OS << formatv("  node {0}: {1} <- {2}, while running {3}{4}\n", N, where(V, Addrs), Loc,
                    Ctx,
                    Stores.size() > 1 ? formatv(" ({0} stores)", Stores.size()).str() : "");
      if (O.SourceLine)
        if (std::string Src = O.SourceLine(Loc); !Src.empty())
          OS << Src << "\n";
      bool Input = false, Partial = false, Any = false;
      for (size_t Idx : Stores) {
        const StoreWatch &W = V.R->machine().Watch;
        const StoreEvent &E = W.History[Idx];
        for (uint32_t K = 0; K < E.SrcCount; ++K) {
          const StoreSource &S = W.Sources[E.SrcBegin + K];
          Input |= S.Flags & replayabi::SrcInput;
          Partial |= S.Flags & replayabi::SrcPartial;
          Any = true;
        }
      }
      if (Input)
        OS << "      (the value is an input read from the trace)\n";
      if (Partial)
        OS << "      (part of the value comes from a call's result, an argument or a phi: not "
              "followed)\n";
      if (!Any)
        OS << "      (the value is a constant)\n";
    }
    if (Writes.size() == 1 && Msgs.empty() && None.empty()) {
      RepeatNode = std::get<0>(Writes.front().first);
      RepeatLoc = std::get<1>(Writes.front().first);
    }

  }
  // The bytes the writes' values were computed from, at the time of each write.
  for (auto &[Key, Group] : Writes) {
    uint16_t N = std::get<0>(Key);
    const StoreWatch &W = Views.at(N).R->machine().Watch;
    for (auto &[Idx, A] : Group) {
      const StoreEvent &E = W.History[Idx];
      if (E.EffectSite >= 0)
        continue;
      for (uint32_t K = 0; K < E.SrcCount; ++K) {
        const StoreSource &S = W.Sources[E.SrcBegin + K];
        if ((S.Flags & replayabi::SrcCopy) && S.Size == E.Size) {
          Next.insert({N, S.Addr + (A - E.Addr), Idx}); // byte for byte
        } else {
          for (uint32_t B = 0; B < S.Size; ++B)
            Next.insert({N, S.Addr + B, Idx});
        }
      }
    }
  }
  return std::vector<Item>(Next.begin(), Next.end());
}

void Walk::run(const OriginView &V, Range R) {
  OS << "  origin (the writes behind the value, across messages):\n";
  Views[V.Node] = V;
  Path.push_back(V.Node);
  std::vector<Item> Items;
  for (uint32_t A = R.Addr; A < R.end(); ++A)
    Items.push_back({V.Node, A, V.R->machine().Watch.History.size()});
  unsigned Levels = 0;
  while (!Items.empty()) {
    if (++Levels > O.MaxSteps) {
      flushRepeats();
      OS << "  (stopped after " << O.MaxSteps << " steps)\n";
      break;
    }
    Items = level(Items);
    if (Items.size() > 256) {
      flushRepeats();
      OS << "  (the value depends on " << Items.size() << " bytes here; not followed further)\n";
      break;
    }
  }
  flushRepeats();
  if (!Messages && SkippedCalls) {
    OS << "  not known whether the value came from a received message: the chain ends in "
       << (SkippedReceives ? "a skipped call that received one" : "the effect of a skipped call")
       << "\n";
    return;
  }
  if (!Messages) {
    OS << "  no message received since node " << V.Node
       << "'s start checkpoint carried the value: its writes stay on node " << V.Node << "\n";
    return;
  }
  OS << (Linear ? "  chain: node " : "  nodes reached: node ") << Path.front();
  for (size_t I = 1; I < Path.size(); ++I)
    OS << (Linear ? " <- node " : ", node ") << Path[I];
  OS << " (" << Messages << " message" << (Messages == 1 ? "" : "s") << ")\n";
}

} // namespace

void printValueOrigin(raw_ostream &OS, const OriginView &V, uint32_t Addr, uint32_t Size,
                      const OriginWalkOptions &O) {
  Walk W(OS, O);
  W.run(V, Range{Addr, Size});
}

} // namespace wsn
