//===- Preprocessor.cpp - the replay preprocessor (thesis section 4.2) ----===//
#include "Preprocessor.h"

#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace wsn {

StringRef stopKindName(StopKind K) {
  switch (K) {
  case StopKind::Violation:
    return "violation";
  case StopKind::LastCheck:
    return "last check";
  case StopKind::End:
    return "end of trace";
  }
  return "?";
}

std::string recordPlace(const TraceRecord &R, size_t Index) {
  return "record " + std::to_string(Index) + " (offset " +
         std::to_string(TraceHeaderSize + R.RingOffset) + ")";
}

std::string describeRecord(const TraceRecord &R) {
  std::string S = recordKindName(R.Kind).str();
  ArrayRef<const char *> Names = recordFieldNames(R.Kind);
  for (unsigned I = 0; I < R.NumFields && I < Names.size(); ++I) {
    S += " ";
    S += Names[I];
    S += "=";
    bool Crc = (R.Kind == RecordKind::Check || R.Kind == RecordKind::Violation) && I == 1;
    S += Crc ? "0x" + utohexstr(R.Fields[I], /*LowerCase=*/true) : std::to_string(R.Fields[I]);
  }
  if (recordHasPayload(R.Kind))
    S += " len=" + std::to_string(R.Payload.size());
  return S;
}

namespace {

Error fail(const PreprocessOptions &O, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), O.TraceName + ": " + Msg);
}

Error failAt(const PreprocessOptions &O, const TraceRecord &R, size_t I, const Twine &Msg) {
  return fail(O, recordPlace(R, I) + ": " + describeRecord(R) + ": " + Msg);
}

/// A map entry in a message: "fw.wmap: anchors[2] (anchor 5)" when the map came from a
/// file, else "the trace map's anchor 5".
std::string mapEntry(const PreprocessOptions &O, StringRef Array, uint32_t Index,
                     StringRef What, uint32_t Id) {
  if (O.MapName.empty())
    return ("the trace map's " + What + " " + Twine(Id)).str();
  return (O.MapName + ": " + Array + "[" + Twine(Index) + "] (" + What + " " + Twine(Id) +
          ")")
      .str();
}

/// Checks a record's ids and payload size against the trace map.
Error checkAgainstMap(const PreprocessOptions &O, const TraceMap &M, const TraceRecord &R,
                      size_t I) {
  auto SiteOfKind = [&](std::initializer_list<StringRef> Kinds) -> Error {
    const TraceMap::Site *S = M.site(R.id());
    if (!S)
      return failAt(O, R, I, "site " + Twine(R.id()) + " is not in the trace map of " +
                                 O.ProgramName);
    for (StringRef K : Kinds)
      if (S->Kind == K)
        return Error::success();
    return failAt(O, R, I,
                  "site " + Twine(R.id()) + " is a '" + S->Kind + "' site in the trace map");
  };
  auto Missing = [&](StringRef What) {
    return failAt(O, R, I,
                  What + " " + Twine(R.id()) + " is not in the trace map of " + O.ProgramName);
  };
  switch (R.Kind) {
  case RecordKind::Entry:
  case RecordKind::Exit:
    return M.function(R.id()) ? Error::success() : Missing("function");
  case RecordKind::Irq:
  case RecordKind::IrqExit:
    return M.irq(R.id()) ? Error::success() : Missing("interrupt");
  case RecordKind::Sched:
    return M.task(R.id()) ? Error::success() : Missing("task");
  case RecordKind::Checkpoint: {
    const TraceMap::Anchor *A = M.anchor(R.id());
    if (!A)
      return Missing("anchor");
    if (A->recordSize() != R.Payload.size())
      return failAt(O, R, I,
                    "checkpoint holds " + Twine(R.Payload.size()) + " bytes, " +
                        mapEntry(O, "anchors", A->Index, "anchor", R.id()) + " has " +
                        Twine(A->recordSize()));
    return Error::success();
  }
  case RecordKind::Input:
    return SiteOfKind({"input"});
  case RecordKind::InputBytes:
    return SiteOfKind({"input.bytes"});
  case RecordKind::Send:
    return SiteOfKind({"send"});
  case RecordKind::Recv:
    return SiteOfKind({"recv"});
  case RecordKind::SkipBegin:
  case RecordKind::SkipEnd:
    return SiteOfKind({"skip"});
  case RecordKind::Effect: {
    const TraceMap::Effect *E = M.effect(R.id());
    if (!E)
      return Missing("effect site");
    if (!E->acceptsSize(R.Payload.size()))
      return failAt(O, R, I,
                    "effect holds " + Twine(R.Payload.size()) + " bytes, " +
                        mapEntry(O, "effects", E->Index, "site", R.id()) + " has " +
                        Twine(E->recordSize()) +
                    (E->Short ? " (short form " + Twine(E->shortRecordSize()) + ")"
                                    : Twine("")));
    return Error::success();
  }
  case RecordKind::Check:
  case RecordKind::Violation:
    return M.invariant(R.id()) ? Error::success() : Missing("invariant");
  case RecordKind::Pad:
    break;
  }
  return Error::success();
}

/// The header's build parameters against the map's (spec/replay-log.md,
/// "Header and records"): a trace of another target or ring layout cannot be
/// this program's, whatever its module hash says.
Error checkHeaderAgainstMap(const PreprocessOptions &O, const TraceMap &M,
                            const TraceHeader &H) {
  StringRef Target = traceTargetName(H.Target);
  if (Target != M.Target)
    return fail(O, "offset 5: the header's target is " + Target + ", but the trace map of " +
                       O.ProgramName + " is for " + M.Target +
                       ": the trace does not belong to this program");
  if (H.BufSize != M.BufSize || H.SegSize != M.SegSize)
    return fail(O, "offset 12: the header's ring is " + Twine(H.BufSize) + " bytes in " +
                       Twine(H.SegSize) + "-byte segments, but " + O.ProgramName +
                       " was built with " + Twine(M.BufSize) + " in " + Twine(M.SegSize) +
                       ": the trace does not belong to this program");
  if ((H.Flags & TF_Violation) && !M.invariant(H.Violation))
    return fail(O, "offset 28: the header records a violation of invariant " +
                       Twine(H.Violation) + ", which is not in the trace map of " +
                       O.ProgramName);
  return Error::success();
}

/// What the header promises (a violation, the number of checks) against the
/// records that are there (spec/replay-log.md, "Header and records"). A trace
/// that fails here is damaged: replaying it could report a violation
/// reproduced that the records do not hold.
Error checkHeaderAgainstRecords(const PreprocessOptions &O, const TraceHeader &H,
                                const std::vector<TraceRecord> &Rs, bool DroppedSegment) {
  uint64_t NumChecks = 0;
  size_t FirstViolation = Rs.size();
  for (size_t I = 0; I < Rs.size(); ++I) {
    if (Rs[I].Kind != RecordKind::Check && Rs[I].Kind != RecordKind::Violation)
      continue;
    ++NumChecks;
    if (Rs[I].Kind == RecordKind::Violation && FirstViolation == Rs.size())
      FirstViolation = I;
  }
  const bool Violated = H.Flags & TF_Violation, Frozen = H.Flags & TF_Frozen;
  // An open record (spec/trace-format.md section 1.1): the node stopped inside a writer, so
  // the dropped record may be the VIOLATION that the flags, `violation` and `checks` already
  // count. Only what the torn writer cannot explain is checked.
  const bool Open = H.open();
  if (!Violated && FirstViolation != Rs.size())
    return failAt(O, Rs[FirstViolation], FirstViolation,
                  "a violation record, but the header records no violation (flags 0x" +
                      utohexstr(H.Flags, true) + ")");
  if (Frozen && !Open) {
    // Black-box mode: the runtime writes nothing after the first violation,
    // so its record ends the trace.
    const TraceRecord *Last = Rs.empty() ? nullptr : &Rs.back();
    if (!Last || Last->Kind != RecordKind::Violation)
      return fail(O, "the header says the trace froze at the violation of invariant " +
                         Twine(H.Violation) + ", but its last record is " +
                         (Last ? recordPlace(*Last, Rs.size() - 1) + ": " +
                                     describeRecord(*Last)
                               : std::string("missing (no records)")) +
                         ": the violation record is cut off or overwritten; the trace is "
                         "damaged");
    if (FirstViolation != Rs.size() - 1)
      return failAt(O, Rs[FirstViolation], FirstViolation,
                    "a violation before the one that froze the trace (" +
                        recordPlace(*Last, Rs.size() - 1) +
                        "): the runtime writes nothing after the first violation");
  }
  if (!Open && Violated && FirstViolation != Rs.size() && (Frozen || !H.wrapped()) &&
      Rs[FirstViolation].id() != H.Violation)
    return failAt(O, Rs[FirstViolation], FirstViolation,
                  "the first violation is of invariant " + Twine(Rs[FirstViolation].id()) +
                      ", but the header records invariant " + Twine(H.Violation));
  if (!Open && Violated && FirstViolation == Rs.size() && !H.wrapped())
    return fail(O, "the header records a violation of invariant " + Twine(H.Violation) +
                       ", but no record of the unwrapped trace is a violation: the trace "
                       "is damaged");
  // The counter: each check writes its record, then counts it (a trace read
  // in between, with interrupts off, has one record more than the count).
  if (NumChecks > H.Checks + uint64_t(!Rs.empty() && Rs.back().Kind == RecordKind::Check))
    return fail(O, "offset 24: the header counts " + Twine(H.Checks) +
                       " check(s), but the retained records hold " + Twine(NumChecks) +
                       ": the trace is damaged");
  // Unwrapped, every check since reset is retained, unless the open record's segment rule
  // dropped segment 0 (spec/trace-format.md 1.1: first lap, head in the last segment; blink on
  // msp430f1611 stopped at a cycle bound lost 4 of 15 checks so).
  if (!H.wrapped() && !DroppedSegment && NumChecks + uint64_t(Open) < H.Checks)
    return fail(O, "offset 24: the header counts " + Twine(H.Checks) +
                       " check(s) since reset, but the unwrapped trace holds " +
                       Twine(NumChecks) + " check records: the trace is damaged");
  // Wrapped: at most one check per 4 ring bytes ever written (a CHECK record
  // is at least 4 bytes: tag, id, 16-bit checksum).
  uint64_t Written = (uint64_t(H.Wraps) + 1) * H.BufSize;
  if (H.wrapped() && H.Checks > NumChecks + Written / 4)
    return fail(O, "offset 24: the header counts " + Twine(H.Checks) +
                       " check(s), more than the " + Twine(H.Wraps) + " wrap(s) of a " +
                       Twine(H.BufSize) + "-byte ring can have held (" +
                       Twine(NumChecks + Written / 4) + "): the trace is damaged");
  return Error::success();
}

std::string hashText(uint32_t V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << format("0x%08x", V);
  return S;
}

} // namespace

Expected<PreprocessedTrace> preprocessTrace(const TraceFile &File,
                                            const PreprocessOptions &O) {
  PreprocessedTrace P;
  P.TraceName = O.TraceName;
  P.MapName = O.MapName;
  P.Header = File.header();
  P.Map = O.Map;
  const TraceHeader &H = P.Header;

  // 1. The trace must belong to the program (trace-format.md: module_hash).
  if (O.Map && O.Map->ModuleHash != H.ModuleHash)
    return fail(O, "recorded by module " + hashText(H.ModuleHash) + ", but the trace map of " +
                       O.ProgramName + " has module hash " + hashText(O.Map->ModuleHash) +
                       ": the trace does not belong to this program");
  if (O.ProgramHash && *O.ProgramHash != H.ModuleHash)
    return fail(O, "recorded by module " + hashText(H.ModuleHash) + ", but " + O.ProgramName +
                       " has module hash " + hashText(*O.ProgramHash) +
                       ": the trace does not belong to this program");

  if (O.Map) {
    if (Error E = checkHeaderAgainstMap(O, *O.Map, H))
      return std::move(E);
  }

  if (Error E = File.decode(P.Records))
    return fail(O, toString(std::move(E)));
  const std::vector<TraceRecord> &Rs = P.Records;

  if (O.Map)
    for (size_t I = 0; I < Rs.size(); ++I)
      if (Error E = checkAgainstMap(O, *O.Map, Rs[I], I))
        return std::move(E);
  if (Error E = checkHeaderAgainstRecords(O, H, Rs, File.droppedOpenSegment() >= 0))
    return std::move(E);

  // 2. The start point: the earliest checkpoint of the retained tail (thesis
  // 4.2, processLOG(type 4); trace-format.md section 2 guarantees one in the
  // first segment whenever an anchor was reached there).
  size_t Start = Rs.size();
  for (size_t I = 0; I < Rs.size(); ++I)
    if (Rs[I].Kind == RecordKind::Checkpoint) {
      Start = I;
      break;
    }
  if (Start == Rs.size())
    return fail(O, "trace has no checkpoint (" + Twine(Rs.size()) +
                       " records in the retained tail; no anchor site wrote one, so replay "
                       "has no known state to start from). The " +
                       Twine(File.header().BufSize) +
                       "-byte ring held less than one pass of the main loop: rebuild with a "
                       "larger ring (wsn-cc --trace-buf) or fewer traced events per pass");
  P.Start = Start;
  P.StartAnchor = Rs[Start].id();

  // 3. The stop record.
  TraceCoverage &C = P.Coverage;
  C.Stop = StopKind::End;
  C.StopRecord = Rs.size() - 1;
  bool SawViolation = false;
  for (size_t I = 0; I < Rs.size(); ++I)
    if (Rs[I].Kind == RecordKind::Violation) {
      if (I < Start) {
        P.Warnings.push_back("the violation at " + recordPlace(Rs[I], I) +
                             " precedes the earliest checkpoint: replay cannot reach it");
        continue;
      }
      C.Stop = StopKind::Violation;
      C.StopRecord = I;
      SawViolation = true;
      break;
    }
  // A trace that ends with a CHECK stopped at that check (wsn-sim stops at the check hook,
  // after the record closed), unless a record was open when it was read: then the node was
  // writing the next record, past the check, and replay runs on to the end of the trace.
  if (!SawViolation && !H.open() && Rs.back().Kind == RecordKind::Check &&
      Rs.size() - 1 >= Start)
    C.Stop = StopKind::LastCheck;
  if ((H.Flags & TF_Violation) && !SawViolation)
    P.Warnings.push_back("the header records violation of invariant " +
                         std::to_string(H.Violation) +
                         " but its VIOLATION record is not in the replayable tail");
  if (H.Flags & TF_Dropped)
    P.Warnings.push_back("the trace is flagged DROPPED: the runtime lost or zero-filled a "
                         "record; replay may diverge where it happened");

  // 4. Structure of the replayed part: handlers and skipped calls nest. The
  // interrupt table and the data section are built on the way.
  struct Frame {
    RecordKind Kind;
    uint32_t Id;
    size_t Index;
  };
  std::vector<Frame> Frames;
  unsigned IrqDepth = 0;
  uint32_t Position = 0;
  for (size_t I = Start; I <= C.StopRecord; ++I) {
    const TraceRecord &R = Rs[I];
    switch (R.Kind) {
    case RecordKind::Entry:
    case RecordKind::Exit:
      ++Position;
      break;
    case RecordKind::Irq:
      P.Interrupts.push_back({I, R.id(), Position, R.Fields[1], IrqDepth});
      Frames.push_back({R.Kind, R.id(), I});
      ++IrqDepth;
      break;
    case RecordKind::SkipBegin:
      Frames.push_back({R.Kind, R.id(), I});
      break;
    case RecordKind::IrqExit:
    case RecordKind::SkipEnd: {
      RecordKind Open =
          R.Kind == RecordKind::IrqExit ? RecordKind::Irq : RecordKind::SkipBegin;
      if (Frames.empty())
        return failAt(O, R, I,
                      "no matching " + recordKindName(Open) + " after the start checkpoint");
      const Frame &F = Frames.back();
      if (F.Kind != Open || F.Id != R.id())
        return failAt(O, R, I,
                      "does not close the innermost open " + recordKindName(F.Kind) + " " +
                          Twine(F.Id) + " (" + recordPlace(Rs[F.Index], F.Index) + ")");
      if (R.Kind == RecordKind::IrqExit)
        --IrqDepth;
      Frames.pop_back();
      break;
    }
    case RecordKind::Checkpoint:
      P.Data.Checkpoints.push_back({I, R.Kind, R.id(), 0, R.Payload});
      break;
    case RecordKind::Input:
      P.Data.Inputs.push_back({I, R.Kind, R.id(), R.Fields[1], {}});
      break;
    case RecordKind::InputBytes:
      P.Data.Inputs.push_back({I, R.Kind, R.id(), 0, R.Payload});
      break;
    case RecordKind::Effect:
      P.Data.Effects.push_back({I, R.Kind, R.id(), 0, R.Payload});
      break;
    case RecordKind::Sched:
      P.Data.Scheds.push_back({I, R.Kind, R.id(), 0, {}});
      break;
    default:
      break;
    }
  }

  // 5. Coverage.
  C.TotalRecords = Rs.size();
  for (const TraceSpan &S : File.tail())
    C.TotalBytes += S.Length;
  C.SegmentsRetained = File.tail().size();
  C.NumSegments = H.numSegments();
  C.Wrapped = H.wrapped();
  C.Wraps = H.Wraps;
  C.StaleBytes = File.staleBytes();
  C.DroppedFlag = H.Flags & TF_Dropped;
  C.DroppedRecords = Start;
  C.DroppedBytes = Rs[Start].LinearOffset;
  C.ReplayRecords = C.StopRecord - Start + 1;
  C.ReplayBytes =
      Rs[C.StopRecord].LinearOffset + recordExtent(Rs[C.StopRecord]) - Rs[Start].LinearOffset;
  C.RecordsAfterStop = Rs.size() - 1 - C.StopRecord;
  return std::move(P);
}

Expected<PreprocessedTrace> preprocessTraceFile(StringRef Path, PreprocessOptions Opts) {
  if (Opts.TraceName == "trace")
    Opts.TraceName = Path.str();
  Expected<TraceFile> F = TraceFile::load(Path);
  if (!F)
    return createStringError(inconvertibleErrorCode(),
                             Path + ": " + toString(F.takeError()));
  return preprocessTrace(*F, Opts);
}

void printPreprocessReport(raw_ostream &OS, const PreprocessedTrace &P,
                           unsigned MaxInterrupts) {
  const TraceCoverage &C = P.Coverage;
  const TraceHeader &H = P.Header;
  OS << "trace " << P.TraceName << ": node " << H.NodeId << ", target "
     << traceTargetName(H.Target) << ", module " << hashText(H.ModuleHash) << "\n";
  OS << "  retained: " << C.TotalRecords << " records, " << C.TotalBytes << " bytes in "
     << C.SegmentsRetained << " of " << C.NumSegments << " segments, "
     << (C.Wrapped ? "wrapped " + std::to_string(C.Wraps) + " time(s), " +
                         std::to_string(C.StaleBytes) + " stale bytes dropped"
                   : std::string("not wrapped"))
     << (C.DroppedFlag ? ", DROPPED flag set" : "") << "\n";
  const TraceRecord &S = P.Records[P.Start];
  OS << "  start: checkpoint of anchor " << P.StartAnchor << " at "
     << recordPlace(S, P.Start) << ", " << S.Payload.size() << " bytes; "
     << C.DroppedRecords << " records (" << C.DroppedBytes
     << " bytes) before it are not replayed\n";
  const TraceRecord &E = P.Records[C.StopRecord];
  OS << "  stop: " << stopKindName(C.Stop) << " at " << recordPlace(E, C.StopRecord) << ": "
     << describeRecord(E);
  if (C.RecordsAfterStop)
    OS << " (" << C.RecordsAfterStop << " records after it are ignored)";
  OS << "\n  replayed: " << C.ReplayRecords << " records, " << C.ReplayBytes << " bytes\n";
  OS << "  data section: " << P.Data.Checkpoints.size() << " checkpoint(s), "
     << P.Data.Inputs.size() << " input(s), " << P.Data.Effects.size() << " effect(s), "
     << P.Data.Scheds.size() << " scheduling decision(s)\n";
  OS << "  interrupt table: " << P.Interrupts.size() << " entr"
     << (P.Interrupts.size() == 1 ? "y" : "ies") << " (position = ENTRY/EXIT records since "
     << "the start, count = #gv_reference)\n";
  unsigned N = 0;
  for (const InterruptEntry &I : P.Interrupts) {
    if (MaxInterrupts && N++ == MaxInterrupts) {
      OS << "    ... " << (P.Interrupts.size() - MaxInterrupts) << " more\n";
      break;
    }
    OS << "    irq " << I.Irq << " at position " << I.Position << ", count " << I.Count
       << ", depth " << I.Depth << " (record " << I.RecordIndex << ")\n";
  }
  for (const std::string &W : P.Warnings)
    OS << "  warning: " << W << "\n";
}

} // namespace wsn
