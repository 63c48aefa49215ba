//===- ReplayReport.cpp - what wsn-replay prints about a replay ------------===//
#include "ReplayReport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace wsn {

std::vector<std::string> comparedGlobals(const TraceMap &Map, uint32_t Anchor) {
  std::vector<std::string> Out;
  if (const TraceMap::Anchor *A = Map.anchor(Anchor))
    for (const TraceMap::Var &V : A->Vars)
      // The anchor status copy is the instrumentation's, not the program's;
      // checkpoints compare its interrupt-enable bit.
      if (V.IsGlobal && V.Name != AnchorStatusGlobal)
        Out.push_back(V.Name);
  return Out;
}

std::string formatValue(ArrayRef<uint8_t> Mem, uint32_t Addr, uint32_t Size,
                        StringRef CType) {
  if (uint64_t(Addr) + Size > Mem.size())
    return "<outside the data space>";
  ArrayRef<uint8_t> B = Mem.slice(Addr, Size);
  bool Scalar = Size >= 1 && Size <= 8 && !CType.contains('[') && !CType.contains('*') &&
                !CType.starts_with("struct") && !CType.starts_with("union");
  if (!Scalar) {
    std::string S = "{";
    for (size_t I = 0; I < B.size(); ++I)
      S += (I ? " " : "") + toHex(ArrayRef<uint8_t>(B[I]), /*LowerCase=*/true);
    return S + "}";
  }
  uint64_t V = 0;
  for (unsigned I = 0; I < Size; ++I)
    V |= uint64_t(B[I]) << (8 * I);
  bool Signed = !CType.contains("unsigned") && !CType.starts_with("uint") &&
                !CType.starts_with("_Bool") && !CType.starts_with("bool") &&
                CType != "" && !CType.starts_with("error_t");
  if (Signed && Size < 8 && (V >> (8 * Size - 1)) & 1)
    return std::to_string(int64_t(V | (~uint64_t(0) << (8 * Size))));
  return std::to_string(V);
}

static std::string fnName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Function *F = Map.function(Id);
  return F ? F->Name : "fid " + std::to_string(Id);
}
static std::string irqName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Irq *Q = Map.irq(Id);
  return Q ? Q->Function : "irq " + std::to_string(Id);
}
static std::string invName(const TraceMap &Map, uint32_t Id) {
  const TraceMap::Invariant *I = Map.invariant(Id);
  return I ? I->Function : "inv " + std::to_string(Id);
}

std::string describeEvent(const TraceMap &Map, const ReplayEvent &E) {
  switch (E.K) {
  case ReplayEvent::Entry:
    return "enter " + fnName(Map, E.Id) + "#" + std::to_string(E.Instance);
  case ReplayEvent::Exit:
    return "leave " + fnName(Map, E.Id);
  case ReplayEvent::IrqEntry:
    return "irq " + irqName(Map, E.Id) + "#" + std::to_string(E.Instance);
  case ReplayEvent::IrqExit:
    return "irq-exit " + irqName(Map, E.Id);
  case ReplayEvent::Check:
    return "check " + invName(Map, E.Id) + " held";
  case ReplayEvent::Violation:
    return "check " + invName(Map, E.Id) + " VIOLATED";
  case ReplayEvent::Input:
    return "input site " + std::to_string(E.Id) + " = " + std::to_string(E.Value);
  case ReplayEvent::Effect:
    return "effect of skipped call at site " + std::to_string(E.Id);
  case ReplayEvent::Checkpoint:
    return "checkpoint of anchor " + std::to_string(E.Id);
  case ReplayEvent::Sched:
    return "sched task " + std::to_string(E.Id);
  case ReplayEvent::Send:
    return "send at site " + std::to_string(E.Id) + " seq " + std::to_string(E.Value);
  case ReplayEvent::Recv:
    return "recv at site " + std::to_string(E.Id) + " seq " + std::to_string(E.Value);
  }
  return "?";
}

/// The events that make the interleaving: function and handler entries,
/// checks.
static bool interleavingEvent(const ReplayEvent &E) {
  return E.K == ReplayEvent::Entry || E.K == ReplayEvent::IrqEntry ||
         E.K == ReplayEvent::Check || E.K == ReplayEvent::Violation ||
         E.K == ReplayEvent::Checkpoint;
}

static std::vector<size_t> lastEvents(const ReplayRunner &R, unsigned Max) {
  const auto &Ev = const_cast<ReplayRunner &>(R).events();
  std::vector<size_t> Idx;
  for (size_t I = Ev.size(); I-- > 0 && Idx.size() < Max;)
    if (interleavingEvent(Ev[I]))
      Idx.push_back(I);
  std::reverse(Idx.begin(), Idx.end());
  return Idx;
}

std::string formatCValue(ArrayRef<uint8_t> Mem, uint32_t Addr, uint32_t Size,
                         StringRef CType) {
  size_t Br = CType.find('[');
  unsigned N = 0;
  if (Br != StringRef::npos && CType.count('[') == 1 && CType.ends_with("]") &&
      !CType.substr(Br + 1).drop_back().getAsInteger(10, N) && N && Size % N == 0 &&
      Size / N <= 8) {
    StringRef Elem = CType.substr(0, Br).rtrim();
    std::string S = "{";
    for (unsigned I = 0; I < N; ++I) {
      if (I == 64) { // as many as the REPL prints
        S += ", ...";
        break;
      }
      S += (I ? ", " : "") + formatValue(Mem, Addr + I * (Size / N), Size / N, Elem);
    }
    return S + "}";
  }
  return formatValue(Mem, Addr, Size, CType);
}

/// The replayed value of a global of the trace map.
static std::string varValue(ReplayRunner &R, const TraceMap::Var &V) {
  const ReplayGlobal *G = R.info().global(V.Name);
  return G ? formatCValue(R.memory(), G->Addr, V.Size, V.CType) : "<not placed>";
}

/// The number (since reset) of the check at record Idx: the header counts
/// every check of the run, so the last check record is check Header.Checks.
static uint64_t checkNumber(const PreprocessedTrace &P, size_t Idx) {
  uint64_t After = 0;
  for (size_t I = Idx + 1; I < P.Records.size(); ++I)
    if (P.Records[I].Kind == RecordKind::Check || P.Records[I].Kind == RecordKind::Violation)
      ++After;
  return P.Header.Checks >= After ? P.Header.Checks - After : 0;
}

static const TraceRecord *stopRecord(const PreprocessedTrace &P, const ReplayOutcome &Out) {
  return Out.StopRecord < P.Records.size() ? &P.Records[Out.StopRecord] : nullptr;
}

void printReport(raw_ostream &OS, raw_ostream &Err, ReplayRunner &R,
                 const PreprocessedTrace *P, const TraceMap *Map, const ReplayOutcome &Out,
                 const CompareSummary *Sum, unsigned MaxEvents, StringRef Entry) {
  if (!P) {
    switch (Out.Reason) {
    case ReplayStop::Returned:
      OS << "replay: " << Entry << " returned " << Out.ReturnValue << "\n";
      break;
    case ReplayStop::Marker:
      OS << "replay: " << Out.Message << "\n";
      break;
    default:
      Err << "wsn-replay: replay error: " << Out.Message << "\n";
      break;
    }
  } else {
    const TraceRecord *SR = stopRecord(*P, Out);
    switch (Out.Reason) {
    case ReplayStop::Stopped: {
      bool Viol = SR && SR->Kind == RecordKind::Violation;
      uint32_t Inv = SR ? SR->id() : 0;
      const TraceMap::Invariant *I = Map->invariant(Inv);
      std::string Where;
      if (I && !I->File.empty())
        Where = " (" + I->File + ":" + std::to_string(I->Line) + ")";
      else if (I)
        for (const TraceMap::Function &F : Map->Functions)
          if (F.Name == I->Function && !F.File.empty())
            Where = " (" + F.File + ":" + std::to_string(F.Line) + ")";
      OS << "replay: reproduced " << (Viol ? "the VIOLATION" : "the check") << " of invariant "
         << Inv << " " << (I ? I->Function : std::string("?")) << Where << " at record "
         << Out.StopRecord << (SR ? " (offset " + std::to_string(32 + SR->RingOffset) + ")"
                                   : std::string())
         << ", check " << checkNumber(*P, Out.StopRecord) << " of the run\n";
      if (I) {
        OS << "  invariant inputs:\n";
        for (const TraceMap::Var &V : I->Inputs)
          OS << "    " << (V.CType.empty() ? "?" : V.CType) << " " << V.Name << " = "
             << varValue(R, V) << "\n";
      }
      break;
    }
    case ReplayStop::EndOfTrace:
      OS << "replay: " << Out.Message << "\n";
      break;
    case ReplayStop::Diverged:
      Err << "wsn-replay: " << Out.Message << "\n";
      break;
    case ReplayStop::Breakpoint: // an added check failed (wsn-replay --check)
      OS << "replay: " << Out.Message << "\n";
      break;
    default:
      Err << "wsn-replay: replay error: " << Out.Message << "\n";
      break;
    }
    const TraceMap::Anchor *A = Map->anchor(P->StartAnchor);
    OS << "  replayed records " << P->Start << ".." << (Out.RecordsConsumed ? Out.RecordsConsumed - 1 : 0)
       << " of " << P->Records.size() << " (start: checkpoint of anchor " << P->StartAnchor
       << (A ? " in " + A->Function : std::string()) << "), " << Out.ChecksReplayed
       << " check(s) replayed\n";
    std::vector<size_t> Idx = lastEvents(R, MaxEvents);
    if (!Idx.empty()) {
      OS << "  interleaving (last " << Idx.size() << " events):\n";
      for (size_t I : Idx) {
        const ReplayEvent &E = const_cast<ReplayRunner &>(R).events()[I];
        OS << "    [record " << E.Record << "] " << std::string(2 * E.Depth, ' ')
           << describeEvent(*Map, E) << "\n";
      }
    }
    for (const std::string &W : P->Warnings)
      Err << "wsn-replay: warning: " << P->TraceName << ": " << W << "\n";
    for (const std::string &W : Out.Warnings)
      Err << "wsn-replay: warning: " << W << "\n";
  }
  if (Sum) {
    for (const GlobalMismatch &M : Sum->Mismatches)
      Err << "wsn-replay: mismatch: " << describeMismatch(M) << "\n";
    OS << "compare: " << Sum->Compared << " globals, " << Sum->Mismatches.size()
       << " differ, " << Sum->StackPointers << " stack pointer(s) not compared\n";
  }
}

json::Object reportJSON(ReplayRunner &R, const PreprocessedTrace *P, const TraceMap *Map,
                        const ReplayOutcome &Out, const CompareSummary *Sum,
                        unsigned MaxEvents) {
  json::Object O;
  O["message"] = Out.Message;
  O["records_consumed"] = int64_t(Out.RecordsConsumed);
  O["checks_replayed"] = int64_t(Out.ChecksReplayed);
  if (P) {
    json::Object Stop;
    const TraceRecord *SR = stopRecord(*P, Out);
    StringRef Kind = "end";
    if (Out.Reason == ReplayStop::Stopped && SR)
      Kind = SR->Kind == RecordKind::Violation ? "violation" : "check";
    else if (Out.Reason == ReplayStop::Diverged)
      Kind = "diverged";
    else if (Out.Reason == ReplayStop::Breakpoint)
      Kind = "check-failed"; // an added check (wsn-replay --check)
    else if (Out.Reason != ReplayStop::EndOfTrace)
      Kind = "error";
    Stop["kind"] = Kind;
    Stop["record"] = int64_t(Out.StopRecord);
    Stop["checks"] = int64_t(Out.Reason == ReplayStop::Stopped ? checkNumber(*P, Out.StopRecord)
                                                                : P->Header.Checks);
    if (SR && (SR->Kind == RecordKind::Check || SR->Kind == RecordKind::Violation) &&
        Out.Reason == ReplayStop::Stopped) {
      Stop["invariant"] = int64_t(SR->id());
      if (const TraceMap::Invariant *I = Map->invariant(SR->id())) {
        Stop["function"] = I->Function;
        json::Array Vars;
        for (const TraceMap::Var &V : I->Inputs)
          Vars.push_back(json::Object{
              {"name", V.Name}, {"ctype", V.CType}, {"value", varValue(R, V)}});
        Stop["variables"] = std::move(Vars);
      }
    }
    O["stop"] = std::move(Stop);
    O["start"] = json::Object{{"record", int64_t(P->Start)},
                              {"anchor", int64_t(P->StartAnchor)}};
    json::Array Ev;
    for (size_t I : lastEvents(R, MaxEvents)) {
      const ReplayEvent &E = const_cast<ReplayRunner &>(R).events()[I];
      Ev.push_back(json::Object{{"record", int64_t(E.Record)},
                                {"depth", int64_t(E.Depth)},
                                {"event", describeEvent(*Map, E)}});
    }
    O["interleaving"] = std::move(Ev);
    json::Array W;
    for (const std::string &S : P->Warnings) // the preprocessor's, then the replay's
      W.push_back(P->TraceName + ": " + S);
    for (const std::string &S : Out.Warnings)
      W.push_back(S);
    O["warnings"] = std::move(W);
  }
  if (Sum) {
    json::Array Mm;
    for (const GlobalMismatch &M : Sum->Mismatches)
      Mm.push_back(describeMismatch(M));
    O["compare"] = json::Object{{"globals", int64_t(Sum->Compared)},
                                {"differ", int64_t(Sum->Mismatches.size())},
                                {"stack_pointers", int64_t(Sum->StackPointers)},
                                {"mismatches", std::move(Mm)}};
  }
  return O;
}

} // namespace wsn
