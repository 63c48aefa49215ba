//===- NetReplay.cpp - wsn-replay net: several nodes of a network run -----===//
#include "NetReplay.h"
#include "NetTimeline.h"
#include "Repl.h"
#include "ReplayReport.h"

#include "JsonNesting.h"
#include "NetworkTraces.h"
#include "Preprocessor.h"
#include "ReplayEngine.h"
#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

using namespace llvm;

namespace wsn {

namespace {

enum ExitCode { Reproduced = 0, NotReproduced = 1, BadInput = 2, Diverged = 3 };

struct NetOptions {
  std::string Dir;
  std::optional<uint16_t> StartNode;
  std::string DepsPath;
  bool SegmentOnly = false;
  bool Json = false;
  unsigned Timeout = 60;
  std::string JitCache;
  bool NoJitCache = false;
  unsigned MaxEvents = 16;
  std::string TimelinePath, HbPath;
  bool Interactive = false; ///< -i: the REPL over the selected nodes
};

struct BadInputError {
  std::string Msg;
};

[[noreturn]] void fail(const Twine &Msg) { throw BadInputError{Msg.str()}; }

const char *const Usage =
    "usage: wsn-replay net DIR [--start-node N] [--deps FILE] [--segment-only] [--json]\n"
    "                          [--timeout S] [--events N] [--jit-cache DIR | --no-jit-cache]\n"
    "                          [--timeline FILE.json] [--hb FILE.dot] [-i]\n"
    "  DIR: a `wsn-sim net` output (net.json, node<ID>/{trace.wtr,sram.bin})\n"
    "  --deps FILE: R_OP to use instead of the compiler's (the start node's FW.wmap)\n";

NetOptions parseArgs(int argc, char **argv) {
  NetOptions O;
  for (int I = 1; I < argc; ++I) {
    StringRef A = argv[I];
    auto Value = [&](StringRef Name) -> StringRef {
      if (A.consume_front(Name)) {
        if (A.consume_front("="))
          return A;
        if (A.empty() && I + 1 < argc)
          return argv[++I];
      }
      fail(Name + " needs a value\n" + Usage);
    };
    auto Number = [&](StringRef Name, uint64_t Max) {
      uint64_t V;
      if (Value(Name).getAsInteger(10, V) || V > Max)
        fail(Name + ": expected a number up to " + Twine(Max));
      return V;
    };
    if (A == "--json" || A == "-json")
      O.Json = true;
    else if (A == "-i")
      O.Interactive = true;
    else if (A == "--segment-only")
      O.SegmentOnly = true;
    else if (A == "--no-jit-cache")
      O.NoJitCache = true;
    else if (A.starts_with("--start-node"))
      O.StartNode = uint16_t(Number("--start-node", 0xFFFE));
    else if (A.starts_with("--deps"))
      O.DepsPath = Value("--deps").str();
    else if (A.starts_with("--timeout"))
      O.Timeout = unsigned(Number("--timeout", 86400));
    else if (A.starts_with("--events"))
      O.MaxEvents = unsigned(Number("--events", 1u << 30));
    else if (A.starts_with("--timeline"))
      O.TimelinePath = Value("--timeline").str();
    else if (A.starts_with("--hb"))
      O.HbPath = Value("--hb").str();
    else if (A.starts_with("--jit-cache"))
      O.JitCache = Value("--jit-cache").str();
    else if (A == "-h" || A == "--help")
      fail(Usage);
    else if (A.starts_with("-"))
      fail("unknown option '" + A + "' for 'net'\n" + Usage);
    else if (O.Dir.empty())
      O.Dir = A.str();
    else
      fail("unexpected argument '" + A + "' (one network directory)\n" + Usage);
  }
  if (O.Dir.empty())
    fail(Twine("net: no directory given\n") + Usage);
  return O;
}

/// What net.json says about the run.
struct NetRun {
  std::map<uint16_t, std::string> Firmware; ///< node -> ELF path
  std::vector<uint16_t> Nodes;
  bool Settled = false; ///< non-violating nodes' snapshots are where replay ends
  std::optional<uint16_t> Violation; ///< the node net.json says detected it
};

NetRun readNetJson(StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, "net.json");
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    fail(Path + ": " + Buf.getError().message() + " (not a `wsn-sim net` output?)");
  if (Error E = checkJsonNesting((*Buf)->getBuffer()))
    fail(Path + ": invalid JSON: " + toString(std::move(E)));
  Expected<json::Value> Root = json::parse((*Buf)->getBuffer());
  if (!Root)
    fail(Path + ": invalid JSON: " + toString(Root.takeError()));
  const json::Object *O = Root->getAsObject();
  if (!O)
    fail(Path + ": not a JSON object");
  NetRun R;
  if (const json::Array *A = O->getArray("nodes"))
    for (const json::Value &V : *A)
      if (std::optional<int64_t> N = V.getAsInteger(); N && *N >= 0 && *N <= 0xFFFF)
        R.Nodes.push_back(uint16_t(*N));
  const json::Object *FW = O->getObject("firmware");
  if (!FW)
    fail(Path + ": no \"firmware\" object naming each node's ELF (written by wsn-sim net "
                "since LOG 6; rerun the network)");
  for (const auto &KV : *FW) {
    unsigned Id;
    std::optional<StringRef> P = KV.second.getAsString();
    if (StringRef(KV.first).getAsInteger(10, Id) || Id > 0xFFFF || !P)
      fail(Path + ": \"firmware\": bad entry \"" + StringRef(KV.first) + "\"");
    R.Firmware[uint16_t(Id)] = P->str();
  }
  R.Settled = O->getBoolean("settle").value_or(false);
  if (const json::Object *V = O->getObject("violation"))
    if (std::optional<int64_t> N = V->getInteger("node"); N && *N >= 0 && *N <= 0xFFFF)
      R.Violation = uint16_t(*N);
  return R;
}

/// FW.elf -> FW.replay.bc / FW.wmap (wsn-cc's outputs beside the image).
std::string besideElf(StringRef Elf, StringRef Ext) {
  StringRef Base = Elf;
  Base.consume_back(".elf");
  return (Base + Ext).str();
}

/// The compiler's R_OP (spec/replay.md, `wsn-replay net`): the invariants'
/// `recvs` from the trace map of the start node's firmware. Sets \p Note to
/// where R_OP came from, for the selection reasons.
MessageDependences compilerDeps(const NetRun &Run, std::optional<uint16_t> Start,
                                std::string &Note) {
  MessageDependences D;
  Note = "conservative (every RECV since the checkpoint)";
  if (!Start || !Run.Firmware.count(*Start))
    return D;
  std::string Wmap = besideElf(Run.Firmware.at(*Start), ".wmap");
  Expected<TraceMap> M = TraceMap::readFile(Wmap);
  if (!M) {
    Note += "; the compiler's R_OP could not be read: " + toString(M.takeError());
    return D;
  }
  bool Any = false;
  for (const TraceMap::Invariant &I : M->Invariants)
    if (I.Recvs) {
      Any = true;
      std::vector<RecvDependence> &L = D.Invariants[I.Id];
      for (uint32_t Site : *I.Recvs)
        L.push_back({Site, 0});
    }
  if (Any)
    Note = "from the compiler (" + sys::path::filename(Wmap).str() +
           ": the RECV sites whose received data is in the invariant's value slice)";
  else
    Note += " (" + sys::path::filename(Wmap).str() + " has no receive site)";
  return D;
}

std::vector<uint8_t> readBytes(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!Buf)
    fail(Path + ": " + Buf.getError().message());
  return std::vector<uint8_t>((*Buf)->getBufferStart(), (*Buf)->getBufferEnd());
}

/// One selected node: its programs, its trace, its replay.
struct NodeReplay {
  uint16_t Node = 0;
  NodeSegment Seg;
  bool IsStart = false;
  std::string Elf, Bc, Wmap, TracePath, SramPath;
  std::optional<TraceMap> Map;
  std::optional<PreprocessedTrace> P;
  std::unique_ptr<ReplayRunner> Runner;
  ReplayOutcome Out;
  std::optional<CompareSummary> Sum;
  std::string Why;      ///< why the node was selected
  std::string Status;   ///< reproduced / diverged / not-reproduced / mismatch
  int RC = NotReproduced;
  std::string StopWhat; ///< "violation" / "segment end" / "end of trace"
  /// Why the node could not be replayed at all (no checkpoint, ...); empty
  /// when it was.
  std::string NotReplayable;
  /// Why its state was not compared with its snapshot (empty: compared, or
  /// no snapshot is taken where its replay ends).
  std::string NoCompare;
  /// The records the run consumed (events): kind by record index.
  std::set<size_t> SendsReplayed, RecvsReplayed;
  size_t Reach = 0; ///< the last record the run consumed
};

/// A followed message, checked across the two replays.
struct LinkCheck {
  MessageLink L;
  bool SenderSent = false, ReceiverGot = false, Ordered = false;
  /// The SEND / RECV record lies inside a call replay skipped (a handler
  /// that ran during it): replay took the call's effect from its EFFECT
  /// record instead of executing the op.
  bool SendInSkip = false, RecvInSkip = false;
  /// The payloads both replays saw (wsn.msg.payload) were compared.
  bool PayloadChecked = false;
  size_t PayloadBytes = 0;
  /// The first difference: offset, the byte sent, the byte received.
  std::optional<std::tuple<size_t, int, int>> PayloadDiff;
  std::string PayloadNote; ///< why the payload was not compared
  std::string Problem;
};

/// The cross-node divergence check (DESIGN-BRIEF section 8): the payload the
/// receiver's replay got against the bytes the sender's replay sent.
void comparePayloads(LinkCheck &C, NodeReplay &Snd, NodeReplay &Rcv) {
  const auto &SP = Snd.Runner->machine().MsgPayloads;
  const auto &RP = Rcv.Runner->machine().MsgPayloads;
  auto S = SP.find(C.L.SendRecord), R = RP.find(C.L.RecvRecord);
  if (S == SP.end() || R == RP.end()) {
    bool Skipped = (S == SP.end() && C.SendInSkip) || (R == RP.end() && C.RecvInSkip);
    C.PayloadNote = Skipped ? "its SEND or RECV lies inside a skipped call"
                            : "no payload named at the message's send or receive "
                              "(wsn/net.h's WSN_MSG_*_PAYLOAD)";
    return;
  }
  const std::vector<uint8_t> &Sent = S->second, &Got = R->second;
  C.PayloadChecked = true;
  C.PayloadBytes = Got.size();
  size_t N = std::min(Sent.size(), Got.size());
  for (size_t I = 0; I < N; ++I)
    if (Sent[I] != Got[I]) {
      C.PayloadDiff = std::make_tuple(I, int(Sent[I]), int(Got[I]));
      C.Problem = formatv("payload byte {0} differs: node {1}'s replay sent 0x{2:x-2}, node "
                          "{3}'s replay received 0x{4:x-2} (message seq {5})",
                          I, C.L.Sender, unsigned(Sent[I]), C.L.Receiver, unsigned(Got[I]),
                          C.L.Seq)
                      .str();
      return;
    }
  if (Sent.size() != Got.size()) {
    C.PayloadDiff = std::make_tuple(N, N < Sent.size() ? int(Sent[N]) : -1,
                                    N < Got.size() ? int(Got[N]) : -1);
    C.Problem = formatv("payload length differs: node {0}'s replay sent {1} bytes, node {2}'s "
                        "replay received {3} (message seq {4})",
                        C.L.Sender, Sent.size(), C.L.Receiver, Got.size(), C.L.Seq)
                    .str();
  }
}

/// Whether record Idx lies inside a skipped call whose span the replay
/// passed (SKIP_BEGIN .. SKIP_END, the end at or before Reach).
bool insidePassedSkip(const PreprocessedTrace &P, size_t Idx, size_t Reach) {
  std::vector<size_t> Open;
  for (size_t I = P.Start; I < P.Records.size() && I <= Reach; ++I) {
    RecordKind K = P.Records[I].Kind;
    if (K == RecordKind::SkipBegin) {
      Open.push_back(I);
    } else if (K == RecordKind::SkipEnd && !Open.empty()) {
      size_t Begin = Open.back();
      Open.pop_back();
      if (Begin < Idx && Idx < I)
        return true;
    }
  }
  return false;
}

void loadNode(NodeReplay &N, const NetRun &Run, const NetOptions &O) {
  auto FW = Run.Firmware.find(N.Node);
  if (FW == Run.Firmware.end())
    fail(O.Dir + "/net.json: no firmware named for node " + Twine(N.Node));
  N.Elf = FW->second;
  N.Bc = besideElf(N.Elf, ".replay.bc");
  N.Wmap = besideElf(N.Elf, ".wmap");
  for (const std::string *F : {&N.Bc, &N.Wmap})
    if (!sys::fs::exists(*F))
      fail("node " + Twine(N.Node) + ": " + *F + " does not exist (the firmware " + N.Elf +
           " must be a traced wsn-cc build: its replay module and map sit beside it)");
  SmallString<256> T(O.Dir);
  sys::path::append(T, "node" + std::to_string(N.Node), "trace.wtr");
  N.TracePath = T.str().str();
  SmallString<256> S(O.Dir);
  sys::path::append(S, "node" + std::to_string(N.Node), "sram.bin");
  N.SramPath = S.str().str();

  Expected<TraceMap> M = TraceMap::readFile(N.Wmap);
  if (!M)
    fail("node " + Twine(N.Node) + ": " + toString(M.takeError()));
  // The map beside the firmware must be the replay module's own (single-trace replay checks
  // a --map file the same way): an edited, resealed map would move checkpoint bytes.
  Expected<ParsedProgram> Program = parseProgramIR(N.Bc);
  if (!Program)
    fail("node " + Twine(N.Node) + ": " + toString(Program.takeError()));
  {
    Expected<TraceMap> Own = traceMapOfProgram(*Program);
    if (!Own)
      fail("node " + Twine(N.Node) + ": " + N.Bc + ": " + toString(Own.takeError()));
    if (std::optional<std::string> D = M->differenceFrom(*Own))
      fail("node " + Twine(N.Node) + ": " + N.Wmap + ": " + *D + " (" + N.Bc +
           "'s own trace map): the map was edited or is of another build");
  }
  N.Map = std::move(*M);
  PreprocessOptions PO;
  PO.Map = &*N.Map;
  PO.ProgramHash = N.Map->ModuleHash;
  PO.TraceName = N.TracePath;
  PO.ProgramName = N.Bc;
  PO.MapName = N.Wmap;
  Expected<PreprocessedTrace> P = preprocessTraceFile(N.TracePath, PO);
  if (!P) {
    // Reported, never skipped silently (DESIGN-BRIEF section 8): e.g. a relay
    // so busy that its ring kept no checkpoint.
    N.NotReplayable = toString(P.takeError());
    N.Status = "not-replayable";
    return;
  }
  N.P = std::move(*P);
  // The replay's stop. The violating node: its stop record (the selection's).
  // Another node: the end of its retained trace, where a settled run took its
  // snapshot (the segment Algorithm 5 asks for is a prefix of it), or with
  // --segment-only / an unsettled run, the segment's last SEND.
  TraceCoverage &C = N.P->Coverage;
  if (N.IsStart) {
    N.StopWhat = stopKindName(C.Stop).str();
    if (C.StopRecord != N.Seg.Last)
      fail("node " + Twine(N.Node) + ": the preprocessor stops at record " +
           Twine(C.StopRecord) + ", the selection at record " + Twine(N.Seg.Last));
  } else if (O.SegmentOnly || !Run.Settled) {
    if (N.Seg.Last >= N.P->Records.size() || N.Seg.Last < N.P->Start)
      fail("node " + Twine(N.Node) + ": segment end " + Twine(N.Seg.Last) +
           " is outside the replayable records " + Twine(N.P->Start) + ".." +
           Twine(N.P->Records.size()));
    C.StopRecord = N.Seg.Last;
    C.Stop = StopKind::LastCheck; // any stop but End: replay ends at this record
    N.StopWhat = "segment end";
  } else {
    N.StopWhat = C.Stop == StopKind::End ? "end of trace" : stopKindName(C.Stop).str();
  }

  ReplayLoweringOptions LO;
  LO.ElfPath = N.Elf;
  LO.WatchStores = O.Interactive; // the REPL's `why`
  ReplayRunOptions RO;
  RO.TimeoutSeconds = O.Timeout;
  if (!O.NoJitCache)
    RO.JitCacheDir = O.JitCache.empty() ? defaultJitCacheDir() : O.JitCache;
  auto R = loadForReplay(std::move(*Program), N.Bc, LO, RO);
  if (!R)
    fail("node " + Twine(N.Node) + ": " + toString(R.takeError()));
  N.Runner = std::move(*R);
  if (N.Runner->info().Target.MCU.empty())
    fail("node " + Twine(N.Node) + ": no target");
  N.Runner->setTrace(&*N.P, &*N.Map);
  N.Runner->machine().Watch.KeepHistory = O.Interactive; // `why` across messages
}

/// The skipped call still open at the end of the replayed records (the trace
/// was read while the node was inside it), if any: its effect is not in the
/// trace, so the state where replay ends is not the node's state anywhere.
std::optional<std::string> openSkipAtEnd(const PreprocessedTrace &P) {
  // A span closes with the EFFECT record after its SKIP_END: a trace read
  // between the two (the EFFECT being written) still lacks the call's writes.
  std::vector<size_t> Open;
  size_t End = std::min(P.Coverage.StopRecord + 1, P.Records.size());
  for (size_t I = P.Start; I < End; ++I) {
    if (P.Records[I].Kind == RecordKind::SkipBegin)
      Open.push_back(I);
    else if (P.Records[I].Kind == RecordKind::Effect && !Open.empty())
      Open.pop_back();
  }
  if (Open.empty())
    return std::nullopt;
  return formatv("its trace ends inside the call skipped at site {0} (record {1}), whose "
                 "effect the trace does not hold yet",
                 P.Records[Open.front()].id(), Open.front())
      .str();
}

void replayNode(NodeReplay &N, const NetRun &Run, const NetOptions &O) {
  if (!N.NotReplayable.empty())
    return;
  if (Error E = N.Runner->prepare()) // its messages name entries of the node's map
    fail("node " + Twine(N.Node) + ": " + N.Wmap + ": " + toString(std::move(E)));
  auto Out = N.Runner->run();
  if (!Out)
    fail("node " + Twine(N.Node) + ": " + toString(Out.takeError()));
  N.Out = std::move(*Out);
  switch (N.Out.Reason) {
  case ReplayStop::Stopped:
    N.RC = Reproduced, N.Status = "reproduced";
    break;
  case ReplayStop::EndOfTrace:
    // The end of the trace is the stop asked for: a node other than the
    // violating one, or a --start-node whose trace has no violation.
    if (N.P->Coverage.Stop == StopKind::End && !(N.P->Header.Flags & TF_Violation))
      N.RC = Reproduced, N.Status = "reproduced";
    else
      N.Status = "not-reproduced";
    break;
  case ReplayStop::Diverged:
    N.RC = Diverged, N.Status = "diverged";
    break;
  default:
    N.Status = "not-reproduced";
    break;
  }
  for (const ReplayEvent &E : N.Runner->events()) {
    N.Reach = std::max(N.Reach, E.Record);
    if (E.K == ReplayEvent::Send)
      N.SendsReplayed.insert(E.Record);
    else if (E.K == ReplayEvent::Recv)
      N.RecvsReplayed.insert(E.Record);
  }
  // The sliced state against the simulator's snapshot, where one was taken at
  // the point replay ends.
  bool Comparable = N.IsStart || (Run.Settled && !O.SegmentOnly);
  if (Comparable && N.P->Coverage.Stop == StopKind::End)
    if (std::optional<std::string> Why = openSkipAtEnd(*N.P)) {
      N.NoCompare = *Why;
      Comparable = false;
    }
  if (Comparable && sys::fs::exists(N.SramPath)) {
    std::vector<uint8_t> Snap = readBytes(N.SramPath);
    if (Snap.empty())
      fail(N.SramPath + ": empty file");
    std::vector<std::string> Names = comparedGlobals(*N.Map, N.P->StartAnchor);
    N.Sum = compareGlobals(N.Runner->info(), N.Runner->memory(), Snap, false, &Names);
    if (!N.Sum->Mismatches.empty() && N.RC == Reproduced) {
      N.RC = NotReproduced;
      N.Status = "mismatch";
    }
  }
}

/// Why Algorithm 5 selected each node: the first followed message that
/// reached it, and why that message's RECV was marked.
void explainSelection(const NetworkSelection &S, std::vector<NodeReplay> &Nodes,
                      const MessageDependences &Deps, StringRef RopNote) {
  std::map<uint16_t, const MessageLink *> FirstLink;
  for (const MessageLink &L : S.Links)
    FirstLink.emplace(L.Sender, &L);
  for (NodeReplay &N : Nodes) {
    if (N.IsStart && S.Stop == StopKind::End) {
      N.Why = formatv("the selection starts here (--start-node; its trace ends at record {0} "
                      "without a violation)",
                      S.StopRecord)
                  .str();
      continue;
    }
    if (N.IsStart) {
      N.Why = formatv("the violation was detected here ({0} at record {1}{2})",
                      stopKindName(S.Stop), S.StopRecord,
                      S.Invariant ? formatv(", invariant {0}", *S.Invariant).str() : "")
                  .str();
      if (S.Invariant) {
        auto It = Deps.Invariants.find(*S.Invariant);
        std::string Rop;
        if (It == Deps.Invariants.end()) {
          Rop = "every RECV since the checkpoint";
        } else if (It->second.empty()) {
          Rop = "no RECV (no received byte reaches its values: the node originates it)";
        } else {
          Rop = "RECV site";
          for (const RecvDependence &D : It->second)
            Rop += formatv(" {0}{1}", D.RecvSite,
                           D.Count ? formatv(" (last {0})", D.Count).str() : "")
                       .str();
        }
        N.Why += formatv("; R_OP of invariant {0}: {1}; R_OP {2}", *S.Invariant, Rop, RopNote)
                     .str();
      }
      continue;
    }
    auto It = FirstLink.find(N.Node);
    if (It == FirstLink.end()) {
      N.Why = "reached by the search";
      continue;
    }
    const MessageLink &L = *It->second;
    std::string Marked =
        L.Receiver == S.ViolationNode
            ? "it may affect the violated invariant"
            : formatv("it may have shaped a message node {0} sent on", L.Receiver).str();
    N.Why = formatv("node {0} received its message seq {1} (RECV site {2}, record {3}; "
                    "marked because {4}); the message is its SEND site {5}, record {6}",
                    L.Receiver, L.Seq, L.RecvSite, L.RecvRecord, Marked, L.SendSite,
                    L.SendRecord)
                .str();
  }
}

std::vector<LinkCheck> checkLinks(const NetworkSelection &S, std::vector<NodeReplay> &Nodes) {
  std::map<uint16_t, size_t> Pos;
  for (size_t I = 0; I < Nodes.size(); ++I)
    Pos[Nodes[I].Node] = I;
  std::vector<LinkCheck> Out;
  for (const MessageLink &L : S.Links) {
    LinkCheck C;
    C.L = L;
    NodeReplay &Snd = Nodes[Pos.at(L.Sender)], &Rcv = Nodes[Pos.at(L.Receiver)];
    C.Ordered = Pos.at(L.Sender) <= Pos.at(L.Receiver);
    if (!Snd.P || !Rcv.P) {
      C.Problem = formatv("node {0} could not be replayed", !Snd.P ? L.Sender : L.Receiver);
      Out.push_back(C);
      continue;
    }
    C.SenderSent = Snd.SendsReplayed.count(L.SendRecord);
    C.ReceiverGot = Rcv.RecvsReplayed.count(L.RecvRecord);
    if (!C.SenderSent && insidePassedSkip(*Snd.P, L.SendRecord, Snd.Reach))
      C.SenderSent = C.SendInSkip = true;
    if (!C.ReceiverGot && insidePassedSkip(*Rcv.P, L.RecvRecord, Rcv.Reach))
      C.ReceiverGot = C.RecvInSkip = true;
    C.Ordered = Pos.at(L.Sender) <= Pos.at(L.Receiver);
    // Both replays compared the op's operands with their records; the records
    // name the same message when (sender, seq) and the destination agree.
    const TraceRecord &SR = Snd.P->Records[L.SendRecord];
    const TraceRecord &RR = Rcv.P->Records[L.RecvRecord];
    bool Same = SR.Kind == RecordKind::Send && RR.Kind == RecordKind::Recv &&
                SR.Fields[1] == RR.Fields[2] && RR.Fields[1] == L.Sender &&
                (SR.Fields[2] == L.Receiver || SR.Fields[2] == 0xFFFF);
    if (!Same)
      C.Problem = "the records do not name the same message";
    else if (!C.SenderSent)
      C.Problem = formatv("node {0}'s replay did not send it (stopped: {1})", L.Sender,
                          Snd.Status)
                      .str();
    else if (!C.ReceiverGot)
      C.Problem = formatv("node {0}'s replay did not receive it (stopped: {1})", L.Receiver,
                          Rcv.Status)
                      .str();
    else
      comparePayloads(C, Snd, Rcv);
    Out.push_back(C);
  }
  return Out;
}

/// --timeline / --hb (NetTimeline.h).
void writeGraphs(const NetOptions &O, const NetworkSelection &S,
                 std::vector<NodeReplay> &Nodes) {
  std::vector<TimelineNode> TN;
  for (NodeReplay &N : Nodes) {
    if (!N.Runner)
      continue;
    TimelineNode T;
    T.Node = N.Node;
    T.Map = &*N.Map;
    T.Events = N.Runner->events();
    T.Label = formatv("node {0} ({1})", N.Node, sys::path::filename(N.Elf)).str();
    T.StartRecord = N.P->Start;
    T.StopWhat = N.StopWhat;
    TN.push_back(std::move(T));
  }
  std::vector<TimelineMessage> TM;
  for (const MessageLink &L : S.Links)
    TM.push_back({L.Sender, L.Receiver, L.Seq, L.SendRecord, L.RecvRecord});
  auto Write = [&](const std::string &Path, auto Fn) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    if (EC)
      fail(Path + ": " + EC.message());
    Fn(OS);
  };
  if (!O.TimelinePath.empty())
    Write(O.TimelinePath, [&](raw_ostream &OS) { writeTimeline(OS, TN, TM); });
  if (!O.HbPath.empty())
    Write(O.HbPath, [&](raw_ostream &OS) { writeHappenedBefore(OS, TN, TM); });
}

/// -i: the single-trace REPL (Repl.h) on one selected node at a time. Commands
/// are read up to the end of input; `node N` switches to node N (replayed
/// from its start again), `node` lists the nodes; every other command goes
/// to the current node's REPL. Starts on the violating node.
int netRepl(std::vector<NodeReplay> &Nodes, raw_ostream &OS) {
  std::map<uint16_t, NodeReplay *> ById;
  for (NodeReplay &N : Nodes)
    if (N.Runner)
      ById[N.Node] = &N;
  NodeReplay *Cur = Nodes.empty() || !Nodes.back().Runner ? nullptr : &Nodes.back();
  std::string Block;
  int RC = 0;
  // Nodes whose runner holds a whole run with its store history (re-run by
  // `why` when it crosses a message to them; the current node's REPL moves it).
  std::set<uint16_t> FullRun;
  OriginWalkOptions Origin;
  Origin.FindSender = [&](uint16_t Sender, uint32_t Seq,
                          uint16_t Receiver) -> std::variant<OriginSender, std::string> {
    auto It = ById.find(Sender);
    if (It == ById.end())
      return formatv("node {0} is not one of the replayed nodes (Algorithm 5 did not select "
                     "it: `node` lists the selection)",
                     Sender)
          .str();
    NodeReplay &S = *It->second;
    if (&S == Cur)
      return formatv("the message comes from node {0}, the node being inspected", Sender).str();
    std::optional<size_t> Send;
    for (size_t I = S.P->Start; I < S.P->Records.size() && !Send; ++I) {
      const TraceRecord &R = S.P->Records[I];
      if (R.Kind == RecordKind::Send && R.Fields[1] == Seq &&
          (R.Fields[2] == Receiver || R.Fields[2] == 0xFFFF))
        Send = I;
    }
    if (!Send)
      return formatv("node {0}'s replayed records hold no SEND of seq {1} (sent before its "
                     "start checkpoint)",
                     Sender, Seq)
          .str();
    if (!FullRun.count(Sender)) {
      S.Runner->setBreakAt([](const ReplayEvent &, size_t) { return false; }); // live events
      auto Out = S.Runner->run();
      S.Runner->setBreakAt(nullptr);
      if (!Out)
        return formatv("node {0}'s replay failed: {1}", Sender, toString(Out.takeError())).str();
      FullRun.insert(Sender);
    }
    return OriginSender{OriginView{S.Node, S.Runner.get(), &*S.P, &*S.Map}, *Send};
  };
  auto Flush = [&] {
    if (Cur && !Block.empty()) {
      std::istringstream In(Block);
      ReplOptions RO;
      RO.IRPath = Cur->Bc;
      RO.Origin = Origin;
      RO.Node = Cur->Node;
      FullRun.erase(Cur->Node);
      int R = runRepl(*Cur->Runner, *Cur->P, *Cur->Map, In, OS, RO);
      RC = std::max(RC, R);
    }
    Block.clear();
  };
  std::string Line;
  while (std::getline(std::cin, Line)) {
    StringRef L = StringRef(Line).trim();
    if (L != "node" && !L.starts_with("node "))  {
      Block += Line + "\n";
      continue;
    }
    Flush();
    OS << "(wsn) " << L << "\n";
    StringRef Arg = L.drop_front(4).trim();
    unsigned Id;
    if (Arg.empty()) {
      for (NodeReplay &N : Nodes)
        OS << (Cur == &N ? "* " : "  ") << "node " << N.Node << ": " << N.Status << "; "
           << N.Why << "\n";
    } else if (Arg.getAsInteger(10, Id) || !ById.count(Id)) {
      OS << "node " << Arg << ": not one of the replayed nodes (`node` lists them)\n";
    } else {
      Cur = ById[Id];
      OS << "node " << Id << " (" << Cur->Status << "): " << Cur->Why << "\n";
    }
  }
  Flush();
  return RC;
}

json::Object linkJSON(const MessageLink &L) {
  return json::Object{{"sender", L.Sender},         {"receiver", L.Receiver},
                      {"seq", L.Seq},               {"send_record", int64_t(L.SendRecord)},
                      {"recv_record", int64_t(L.RecvRecord)}, {"send_site", L.SendSite},
                      {"recv_site", L.RecvSite}};
}

int run(const NetOptions &O) {
  auto T0 = std::chrono::steady_clock::now();
  NetRun Run = readNetJson(O.Dir);
  NetworkOptions NO;
  NO.StartNode = O.StartNode;
  std::string RopNote;
  if (!O.DepsPath.empty()) {
    auto D = MessageDependences::readFile(O.DepsPath);
    if (!D)
      fail(toString(D.takeError()));
    NO.Deps = std::move(*D);
    RopNote = "from --deps " + O.DepsPath;
  } else {
    NO.Deps = compilerDeps(Run, O.StartNode ? O.StartNode : Run.Violation, RopNote);
  }
  Expected<NetworkSelection> SelOr = selectNetworkTraces(O.Dir, NO);
  if (!SelOr)
    fail(toString(SelOr.takeError()));
  NetworkSelection &S = *SelOr;

  std::vector<NodeReplay> Nodes;
  for (const NodeSegment &G : S.ReplayOrder) {
    NodeReplay N;
    N.Node = G.Node;
    N.Seg = G;
    N.IsStart = G.Node == S.ViolationNode;
    Nodes.push_back(std::move(N));
  }
  explainSelection(S, Nodes, NO.Deps, RopNote);
  for (NodeReplay &N : Nodes)
    loadNode(N, Run, O);
  // One process, one JIT and one mote memory per node; the order is the
  // selection's (Theorem 5.2.1: a message's sender before its receiver).
  for (NodeReplay &N : Nodes)
    replayNode(N, Run, O);
  std::vector<LinkCheck> Links = checkLinks(S, Nodes);
  if (!O.TimelinePath.empty() || !O.HbPath.empty())
    writeGraphs(O, S, Nodes);
  if (O.Interactive) {
    printNetworkSelection(outs(), S);
    return netRepl(Nodes, outs());
  }

  int RC = Reproduced;
  for (const NodeReplay &N : Nodes)
    if (N.RC == Diverged)
      RC = Diverged;
    else if (N.RC != Reproduced && RC == Reproduced)
      RC = NotReproduced;
  unsigned BadLinks = 0;
  for (const LinkCheck &C : Links)
    BadLinks += !C.Problem.empty();
  if (BadLinks && RC == Reproduced)
    RC = NotReproduced;
  bool AllCompared = true;
  unsigned Compared = 0;
  for (const NodeReplay &N : Nodes) {
    AllCompared &= N.Sum.has_value();
    Compared += N.Sum.has_value();
  }
  bool Partial = false;
  for (const NodeReplay &N : Nodes)
    Partial |= !N.NotReplayable.empty();
  std::string Status = RC == Reproduced ? "reproduced" : RC == Diverged ? "diverged"
                       : Partial        ? "partial"
                       : BadLinks       ? "message-mismatch"
                                        : "not-reproduced";
  size_t Total = Run.Nodes.empty() ? S.ReplayOrder.size() + S.NotSelected.size()
                                   : Run.Nodes.size();
  double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();

  if (O.Json) {
    json::Array Sel, Replayed, Msgs, Unres, NotSel;
    for (const NodeReplay &N : Nodes) {
      Sel.push_back(N.Node);
      json::Object R = N.Runner ? reportJSON(*N.Runner, &*N.P, &*N.Map, N.Out,
                                             N.Sum ? &*N.Sum : nullptr, O.MaxEvents)
                                : json::Object{{"message", N.NotReplayable}};
      if (!N.NoCompare.empty())
        R["not_compared"] = N.NoCompare;
      R["node"] = N.Node;
      R["status"] = N.Status;
      R["exit_code"] = N.RC;
      R["why"] = N.Why;
      R["replay_stop"] = N.StopWhat;
      R["segment"] = json::Object{{"first", int64_t(N.Seg.First)},
                                  {"last", int64_t(N.Seg.Last)},
                                  {"has_checkpoint", N.Seg.HasCheckpoint}};
      R["elf"] = N.Elf;
      Replayed.push_back(std::move(R));
    }
    for (const LinkCheck &C : Links) {
      json::Object M = linkJSON(C.L);
      M["checked"] = C.Problem.empty();
      M["hb_ordered"] = C.Ordered;
      M["send_in_skipped_call"] = C.SendInSkip;
      M["recv_in_skipped_call"] = C.RecvInSkip;
      M["payload_checked"] = C.PayloadChecked;
      if (C.PayloadChecked)
        M["payload_bytes"] = int64_t(C.PayloadBytes);
      else if (!C.PayloadNote.empty())
        M["payload_not_checked"] = C.PayloadNote;
      if (C.PayloadDiff)
        M["payload_difference"] =
            json::Object{{"offset", int64_t(std::get<0>(*C.PayloadDiff))},
                         {"sent", std::get<1>(*C.PayloadDiff)},
                         {"received", std::get<2>(*C.PayloadDiff)}};
      if (!C.Problem.empty())
        M["problem"] = C.Problem;
      Msgs.push_back(std::move(M));
    }
    for (const UnresolvedMessage &U : S.Unresolved)
      Unres.push_back(json::Object{{"receiver", U.Receiver}, {"sender", U.Sender},
                                   {"seq", U.Seq}, {"recv_record", int64_t(U.RecvRecord)},
                                   {"reason", U.Reason}});
    for (uint16_t N : S.NotSelected)
      NotSel.push_back(N);
    json::Object Top{{"status", Status},
                     {"exit_code", RC},
                     {"dir", O.Dir},
                     {"start_node", S.ViolationNode},
                     {"stop", stopKindName(S.Stop)},
                     {"stop_record", int64_t(S.StopRecord)},
                     {"selected", std::move(Sel)},
                     {"selected_count", int64_t(Nodes.size())},
                     {"total_nodes", int64_t(Total)},
                     {"all_compared", AllCompared},
                     {"compared_count", int64_t(Compared)},
                     {"nodes", std::move(Replayed)},
                     {"messages", std::move(Msgs)},
                     {"unresolved", std::move(Unres)},
                     {"not_selected", std::move(NotSel)},
                     {"wall_seconds", Wall}};
    if (S.Invariant)
      Top["invariant"] = *S.Invariant;
    Top["rop"] = RopNote;
    json::Array W;
    for (const std::string &X : S.Warnings)
      W.push_back(X);
    Top["warnings"] = std::move(W);
    outs() << formatv("{0:2}", json::Value(std::move(Top))) << "\n";
    return RC;
  }

  raw_ostream &OS = outs();
  printNetworkSelection(OS, S);
  OS << "selected " << Nodes.size() << " of " << Total << " nodes:\n";
  for (const NodeReplay &N : Nodes)
    OS << "  node " << N.Node << ": " << N.Why << "\n";
  OS << "replay (one process, in this order):\n";
  for (const NodeReplay &N : Nodes) {
    if (!N.NotReplayable.empty()) {
      OS << "  node " << N.Node << ": not replayable: " << N.NotReplayable << "\n";
      continue;
    }
    OS << "  node " << N.Node << ": " << N.Status << " (" << N.StopWhat << "): "
       << N.Out.Message << "\n";
    if (!N.NoCompare.empty()) {
      OS << "    sliced state: not compared: " << N.NoCompare << "\n";
    } else if (N.Sum) {
      OS << "    sliced state: " << N.Sum->Compared << " globals compared with "
         << N.SramPath << ", " << N.Sum->Mismatches.size() << " differ\n";
      for (const GlobalMismatch &M : N.Sum->Mismatches)
        OS << "      " << describeMismatch(M) << "\n";
    } else {
      OS << "    sliced state: not compared (no snapshot where this replay ends)\n";
    }
    for (const std::string &W : N.Out.Warnings)
      OS << "    warning: " << W << "\n";
  }
  OS << "messages checked across nodes (" << Links.size() << "):\n";
  for (const LinkCheck &C : Links)
    OS << "  node " << C.L.Sender << " seq " << C.L.Seq << " -> node " << C.L.Receiver
       << ": "
       << (!C.Problem.empty() ? C.Problem
           : C.PayloadChecked
               ? formatv("sent by the sender's replay, received by the receiver's replay, "
                         "payload {0} bytes equal",
                         C.PayloadBytes)
                     .str()
               : "sent by the sender's replay, received by the receiver's replay (payload "
                 "not compared: " +
                     C.PayloadNote + ")")
       << (C.SendInSkip ? " (the SEND lies inside a skipped call: its effect replayed)" : "")
       << (C.RecvInSkip ? " (the RECV lies inside a skipped call: its effect replayed)" : "")
       << (C.Ordered ? "" : " (cycle: the receiver was replayed first)") << "\n";
  OS << "result: " << Status << " (" << Nodes.size() << " of " << Total
     << " nodes replayed, " << Compared << " with their sliced state compared)\n";
  return RC;
}

} // namespace

int netReplayMain(int argc, char **argv) {
  bool Json = false;
  for (int I = 1; I < argc; ++I)
    Json |= StringRef(argv[I]) == "--json" || StringRef(argv[I]) == "-json";
  try {
    return run(parseArgs(argc, argv));
  } catch (const BadInputError &E) {
    if (Json) {
      json::Object O{{"status", "error"}, {"message", E.Msg}, {"exit_code", int(BadInput)}};
      outs() << formatv("{0:2}", json::Value(std::move(O))) << "\n";
    }
    errs() << "wsn-replay net: " << E.Msg << "\n";
    return BadInput;
  }
}

} // namespace wsn
