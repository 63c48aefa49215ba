//===- ReplayLog.cpp - the lockstep cursor the replay engine consumes -----===//
//
// Thesis section 4.2 (processLOG types 1-5) as a cursor over the recorded
// records; the rules and the exactness argument are in spec/replay-log.md.
//
//===----------------------------------------------------------------------===//
#include "ReplayLog.h"

#include "TraceMap.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace wsn {

char ReplayDivergence::ID = 0;
char ReplayEnd::ID = 0;

void ReplayDivergence::log(raw_ostream &OS) const {
  OS << "replay diverged at record " << Record << " (offset " << FileOffset
     << "): expected " << Expected << ", executed " << Executed;
}
std::error_code ReplayDivergence::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

void ReplayEnd::log(raw_ostream &OS) const {
  if (K == EndOfTrace)
    OS << "end of trace at record " << Record;
  else
    OS << "stop reached at record " << Record << ": " << What;
}
std::error_code ReplayEnd::convertToErrorCode() const { return inconvertibleErrorCode(); }

namespace {
std::string hex16(uint32_t V) { return "0x" + utohexstr(V & 0xFFFF, /*LowerCase=*/true); }
constexpr uint32_t CountMask = 0xFFFF; // __wsn_gv_reference is a uint16_t
} // namespace

std::string OpText::str() const {
  std::string S = Name;
  for (unsigned I = 0; I < N; ++I)
    S += std::string(" ") + Args[I].first + "=" + std::to_string(Args[I].second);
  if (HasChecksum)
    S += " checksum=" + hex16(Checksum);
  return S;
}

namespace {
/// The description of an op, formatted only when a message needs it (the
/// success path of every trace op must stay cheap).
OpText op(const char *Name, std::initializer_list<std::pair<const char *, uint64_t>> Args) {
  OpText T;
  T.Name = Name;
  for (auto &A : Args)
    if (T.N < 3)
      T.Args[T.N++] = A;
  return T;
}
} // namespace

ReplayLog::ReplayLog(const PreprocessedTrace &P, ReplayLogOptions Opts,
                     replayabi::ReplayCursor *Cursor, const ReplayFastTable *T, bool Inline)
    : P(P), Opts(Opts), Cur(Cursor ? *Cursor : OwnCursor), Table(T),
      Inline(Inline && Opts.CheckpointResetsCount), LastCheckpoint(P.Start) {
  if (!Table) {
    OwnTable = std::make_unique<ReplayFastTable>(buildFastTable(P));
    Table = OwnTable.get();
  }
  // The log's fields only (the engine sets the handler table).
  Cur.Next = uint32_t(P.Start);
  Cur.Count = Cur.Depth = 0;
  refreshInline();
}

void ReplayLog::refreshInline() {
  if (!Inline || St != State::Running) {
    Cur.Recs = Table->Zero.data();
    Cur.IrqAt = 0; // every count update calls back
    return;
  }
  Cur.Recs = Table->Recs.data();
  Cur.IrqAt = UINT32_MAX;
  if (Cur.Next < limit() && P.Records[Cur.Next].Kind == RecordKind::Irq) {
    // The count may grow inline while it stays below the recorded one; the
    // update that reaches it (or passes it: a divergence) calls back.
    uint32_t Want = P.Records[Cur.Next].Fields[1];
    Cur.IrqAt = Cur.Count < Want ? Want : 0;
  }
}

Error ReplayLog::diverge(size_t At, std::string Expected, std::string Executed) {
  uint64_t Off = TraceHeaderSize;
  if (At < P.Records.size())
    Off += P.Records[At].RingOffset;
  else if (!P.Records.empty())
    Off += P.Records.back().RingOffset + recordExtent(P.Records.back());
  St = State::Diverged;
  auto E = std::make_unique<ReplayDivergence>(At, Off, std::move(Expected), std::move(Executed));
  DivergedMessage = toString(Error(std::make_unique<ReplayDivergence>(*E)));
  return Error(std::move(E));
}

Error ReplayLog::endError() const {
  if (St == State::StopReached) {
    size_t S = P.Coverage.StopRecord;
    return make_error<ReplayEnd>(ReplayEnd::StopReached, S, describeRecord(P.Records[S]));
  }
  return make_error<ReplayEnd>(ReplayEnd::EndOfTrace, Cur.Next, "");
}

Error ReplayLog::checkRunning(const OpText &OpT) {
  if (St == State::Running)
    return Error::success();
  std::string Op = OpT.str();
  switch (St) {
  case State::Running:
    return Error::success();
  case State::BeforeStart:
    return createStringError(inconvertibleErrorCode(),
                             "%s: replay executed %s before taking the start checkpoint "
                             "(anchor %u, %s)",
                             P.TraceName.c_str(), Op.c_str(), P.StartAnchor,
                             recordPlace(P.Records[P.Start], P.Start).c_str());
  case State::Diverged:
    return createStringError(inconvertibleErrorCode(), "%s (then executed %s)",
                             DivergedMessage.c_str(), Op.c_str());
  case State::StopReached:
  case State::EndOfTrace:
    return endError();
  }
  return Error::success();
}

void ReplayLog::consumed(size_t Index) {
  Cur.Next = uint32_t(Index + 1);
  if (Index == P.Coverage.StopRecord && P.Coverage.Stop != StopKind::End)
    St = State::StopReached;
}

Error ReplayLog::onSleep() {
  if (St == State::Running && Cur.Next >= limit() && P.Coverage.Stop == StopKind::End) {
    St = State::EndOfTrace;
    return endError();
  }
  return Error::success();
}

Expected<const TraceRecord *> ReplayLog::expect(RecordKind K, uint32_t Id,
                                                const OpText &Op) {
  if (Error E = checkRunning(Op))
    return std::move(E);
  if (Cur.Next >= limit()) {
    St = State::EndOfTrace;
    return endError();
  }
  const TraceRecord &R = P.Records[Cur.Next];
  if (R.Kind != K || R.id() != Id)
    return diverge(Cur.Next, describeRecord(R), Op.str());
  consumed(Cur.Next);
  return &R;
}

//===----------------------------------------------------------------------===//
// LOG 4
//===----------------------------------------------------------------------===//

Expected<ArrayRef<uint8_t>> ReplayLog::takeCheckpoint(uint32_t Anchor) {
  OpText Op = ::wsn::op("wsn.anchor (start)", {{"anchor", Anchor}});
  if (St != State::BeforeStart)
    return createStringError(inconvertibleErrorCode(),
                             "%s: the start checkpoint was already taken; executed %s",
                             P.TraceName.c_str(), Op.str().c_str());
  St = State::Running;
  Cur.Next = uint32_t(P.Start);
  Cur.Count = 0;
  Cur.Depth = 0;
  StartUnknown = !Opts.CheckpointResetsCount;
  auto R = expect(RecordKind::Checkpoint, Anchor, Op);
  if (!R)
    return R.takeError();
  LastCheckpoint = P.Start;
  return ArrayRef<uint8_t>((*R)->Payload);
}

/// The runtime's anchor flag after the record at Index (writerArmedAfter).
bool ReplayLog::armedAfter(size_t Index) const {
  return writerArmedAfter(P.Records[Index], P.Records[LastCheckpoint], P.Header.SegSize);
}

Expected<const TraceRecord *> ReplayLog::onAnchor(uint32_t Anchor) {
  OpText Op = ::wsn::op("wsn.anchor", {{"anchor", Anchor}});
  if (Error E = checkRunning(Op))
    return std::move(E);
  bool ArmedNow = armedAfter(Cur.Next - 1);
  bool ArmedOwn = armedAfter(Table->OwnAt[Cur.Next]);
  if (Cur.Next < limit()) {
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::Checkpoint && R.id() == Anchor && ArmedNow) {
      size_t I = Cur.Next;
      consumed(I);
      LastCheckpoint = I;
      if (Opts.CheckpointResetsCount)
        resetCount();
      return &R;
    }
  }
  // Armed before any interrupt delivered since this context's last record:
  // the recorder checked the flag and must have written a checkpoint now.
  if (ArmedOwn) {
    if (Cur.Next >= limit()) {
      St = State::EndOfTrace;
      return endError();
    }
    return diverge(Cur.Next, describeRecord(P.Records[Cur.Next]),
                   Op.str() + " (a new segment was entered: a checkpoint was due here)");
  }
  return nullptr;
}

Error ReplayLog::compareCheckpoint(const TraceRecord &R, ArrayRef<uint8_t> Replayed) {
  size_t Index = size_t(&R - P.Records.data());
  if (Index >= P.Records.size() || R.Kind != RecordKind::Checkpoint)
    return createStringError(inconvertibleErrorCode(),
                             "compareCheckpoint: not a checkpoint record of this trace");
  std::string Exp = describeRecord(R);
  if (Replayed.size() != R.Payload.size())
    return diverge(Index, Exp,
                   "anchor variables of " + std::to_string(Replayed.size()) + " bytes");
  for (size_t B = 0; B < Replayed.size(); ++B) {
    if (Replayed[B] == R.Payload[B])
      continue;
    std::string Where = "byte " + std::to_string(B);
    if (P.Map)
      if (const TraceMap::Anchor *A = P.Map->anchor(R.id())) {
        uint32_t Off = 0;
        for (const TraceMap::Var &V : A->Vars) {
          if (B < Off + V.Size) {
            Where += " (" + std::string(V.IsGlobal ? "global " : "local ") + V.Name + "+" +
                     std::to_string(B - Off) + ")";
            break;
          }
          Off += V.Size;
        }
      }
    return diverge(Index, Exp + " with " + Where + " = " + hex16(R.Payload[B]),
                   "replay memory holding " + hex16(Replayed[B]) + " there");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// LOG 1 / LOG 2
//===----------------------------------------------------------------------===//

/// ENTRY and EXIT: one more position of the interrupt key, and the current
/// context's count starts again at 0 (section 2.1).
Error ReplayLog::onEntryOrExit(RecordKind K, uint32_t Fid, const OpText &Op) {
  auto R = expect(K, Fid, Op);
  if (!R)
    return R.takeError();
  resetCount();
  return Error::success();
}

Error ReplayLog::onEntry(uint32_t Fid) {
  return onEntryOrExit(RecordKind::Entry, Fid, ::wsn::op("wsn.func.entry", {{"fid", Fid}}));
}

Error ReplayLog::onExit(uint32_t Fid) {
  return onEntryOrExit(RecordKind::Exit, Fid, ::wsn::op("wsn.func.exit", {{"fid", Fid}}));
}

Error ReplayLog::onIrqEntry(uint32_t Irq) {
  OpText Op = ::wsn::op("wsn.irq.entry", {{"irq", Irq}});
  if (Error E = checkRunning(Op))
    return E;
  uint32_t Count = Cur.Count;
  if (Cur.Next < limit()) {
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::Irq && R.id() == Irq && R.Fields[1] != (Count & CountMask))
      return diverge(Cur.Next, describeRecord(R),
                     Op.str() + " at count " + std::to_string(Count));
  }
  if (Cur.Depth >= replayabi::FastMaxDepth)
    return createStringError(inconvertibleErrorCode(),
                             "%s: interrupt handlers nest deeper than %u at record %u",
                             P.TraceName.c_str(), replayabi::FastMaxDepth, Cur.Next);
  auto R = expect(RecordKind::Irq, Irq, Op);
  if (!R)
    return R.takeError();
  if (Cur.Depth == 0 && StartUnknown && (*R)->Fields[1] != 0)
    Warnings.push_back(
        "interrupt " + std::to_string(Irq) + " at " + recordPlace(**R, Cur.Next - 1) +
        " was taken before the start context's first ENTRY/EXIT: its count (" +
        std::to_string((*R)->Fields[1]) +
        ") is relative to the count at the checkpoint, which the trace does not hold; replay "
        "assumed 0 there");
  Cur.Saved[Cur.Depth++] = Count;
  Cur.Count = 0;
  return Error::success();
}

Error ReplayLog::onIrqExit(uint32_t Irq) {
  OpText Op = ::wsn::op("wsn.irq.exit", {{"irq", Irq}});
  if (Error E = checkRunning(Op))
    return E;
  if (Cur.Depth == 0)
    return diverge(Cur.Next,
                   Cur.Next < P.Records.size() ? describeRecord(P.Records[Cur.Next]) : "nothing",
                   Op.str() + " with no handler active");
  auto R = expect(RecordKind::IrqExit, Irq, Op);
  if (!R)
    return R.takeError();
  Cur.Count = Cur.Saved[--Cur.Depth]; // the interrupted context's count is back
  return Error::success();
}

Error ReplayLog::addCount(uint32_t N) {
  OpText Op = ::wsn::op("wsn.region.end", {{"n", N}});
  if (Error E = checkRunning(Op))
    return E;
  uint32_t Old = Cur.Count;
  Cur.Count += N;
  // An interrupt recorded next must be taken at a count this context reaches
  // before its next record: the count only grows until then, and the recorder
  // takes interrupts only between regions (so never strictly inside Old..New).
  if (Cur.Next < limit() && P.Records[Cur.Next].Kind == RecordKind::Irq) {
    uint32_t Want = P.Records[Cur.Next].Fields[1];
    if (Cur.Count <= CountMask && Want < Cur.Count)
      return diverge(Cur.Next, describeRecord(P.Records[Cur.Next]),
                     Op.str() + " taking the count from " + std::to_string(Old) + " to " +
                         std::to_string(Cur.Count));
  }
  return Error::success();
}

std::optional<uint32_t> ReplayLog::pendingInterrupt() const {
  if (St != State::Running || Cur.Next >= limit())
    return std::nullopt;
  const TraceRecord &R = P.Records[Cur.Next];
  if (R.Kind == RecordKind::Irq && R.Fields[1] == (Cur.Count & CountMask))
    return R.id();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// LOG 3 / 5 / 6, multi-level
//===----------------------------------------------------------------------===//

Error ReplayLog::onSched(uint32_t Task) {
  auto R = expect(RecordKind::Sched, Task, ::wsn::op("wsn.sched", {{"task", Task}}));
  return R ? Error::success() : R.takeError();
}

Expected<uint32_t> ReplayLog::takeInput(uint32_t Site) {
  auto R = expect(RecordKind::Input, Site, ::wsn::op("wsn.input", {{"site", Site}}));
  if (!R)
    return R.takeError();
  return (*R)->Fields[1];
}

Expected<ArrayRef<uint8_t>> ReplayLog::takeInputBytes(uint32_t Site, uint32_t Len) {
  OpText Op = ::wsn::op("wsn.input.bytes", {{"site", Site}, {"len", Len}});
  if (Error E = checkRunning(Op))
    return std::move(E);
  if (Cur.Next < limit()) {
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::InputBytes && R.id() == Site && R.Payload.size() != Len)
      return diverge(Cur.Next, describeRecord(R), Op.str());
  }
  auto R = expect(RecordKind::InputBytes, Site, Op);
  if (!R)
    return R.takeError();
  return ArrayRef<uint8_t>((*R)->Payload);
}

Error ReplayLog::onSend(uint32_t Site, uint32_t Dest, uint32_t Seq) {
  OpText Op = ::wsn::op("wsn.send", {{"site", Site}, {"seq", Seq}, {"dest", Dest}});
  if (Error E = checkRunning(Op))
    return E;
  if (Cur.Next < limit()) {
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::Send && R.id() == Site && (R.Fields[1] != Seq || R.Fields[2] != Dest))
      return diverge(Cur.Next, describeRecord(R), Op.str());
  }
  auto R = expect(RecordKind::Send, Site, Op);
  return R ? Error::success() : R.takeError();
}

Error ReplayLog::onRecv(uint32_t Site, uint32_t Sender, uint32_t Seq) {
  OpText Op = ::wsn::op("wsn.recv", {{"site", Site}, {"sender", Sender}, {"seq", Seq}});
  if (Error E = checkRunning(Op))
    return E;
  if (Cur.Next < limit()) {
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::Recv && R.id() == Site &&
        (R.Fields[1] != Sender || R.Fields[2] != Seq))
      return diverge(Cur.Next, describeRecord(R), Op.str());
  }
  auto R = expect(RecordKind::Recv, Site, Op);
  return R ? Error::success() : R.takeError();
}

Error ReplayLog::onSkipBegin(uint32_t Site) {
  auto R = expect(RecordKind::SkipBegin, Site, ::wsn::op("wsn.skip.begin", {{"site", Site}}));
  if (!R)
    return R.takeError();
  if (St != State::Running)
    return Error::success();
  // The span as buildFastTable walked it, when that walk was clean.
  size_t BeginAt = Cur.Next - 1;
  if (BeginAt < Table->Skips.size() && Table->Skips[BeginAt].End) {
    const ReplayFastTable::SkipSpan &S = Table->Skips[BeginAt];
    SkippedInterrupts += S.Irqs;
    if (S.Reset)
      resetCount();
    Cur.Next = S.End;
    return Error::success();
  }
  // Everything up to the matching SKIP_END was recorded by the skipped call
  // (instrumented callbacks) or by handlers interrupting it: replay does not
  // execute the call, so it does not consume those records. A callback's
  // ENTRY/EXIT reset the count of the skipped call's context, which is the
  // caller's context: that reset is applied.
  size_t Begin = Cur.Next - 1;
  std::vector<std::pair<RecordKind, uint32_t>> Frames;
  bool Reset = false;
  for (size_t I = Cur.Next; I < limit(); ++I) {
    const TraceRecord &X = P.Records[I];
    if (I == P.Coverage.StopRecord && X.Kind == RecordKind::Violation) {
      Warnings.push_back("the stop record (" + recordPlace(X, I) +
                         ") lies inside the call skipped at site " + std::to_string(Site) +
                         " (" + recordPlace(P.Records[Begin], Begin) +
                         "): replay cannot execute it");
      Cur.Next = uint32_t(I);
      St = State::EndOfTrace;
      return Error::success();
    }
    switch (X.Kind) {
    case RecordKind::SkipEnd:
      if (Frames.empty()) {
        if (X.id() != Site)
          return diverge(I, describeRecord(X),
                         "the end of the call skipped at site " + std::to_string(Site));
        if (Reset)
          resetCount();
        Cur.Next = uint32_t(I);
        return Error::success();
      }
      Frames.pop_back();
      break;
    case RecordKind::SkipBegin:
    case RecordKind::Irq:
      // An interrupt inside the span is skipped with it: the instrumentation
      // puts every global a handler may write that replay needs into the
      // site's effect (spec/instrumentation.md), so this is exact.
      if (Frames.empty() && X.Kind == RecordKind::Irq)
        ++SkippedInterrupts;
      Frames.push_back({X.Kind, X.id()});
      break;
    case RecordKind::IrqExit:
      if (!Frames.empty())
        Frames.pop_back();
      break;
    case RecordKind::Entry:
    case RecordKind::Exit:
      if (Frames.empty()) {
        Reset = true;
        if (X.Kind == RecordKind::Entry)
          Warnings.push_back("instrumented function " + std::to_string(X.id()) + " (" +
                             recordPlace(X, I) + ") was called back by the call skipped at "
                             "site " + std::to_string(Site) +
                             ": its writes outside the site's effect are not replayed");
      }
      break;
    default:
      break;
    }
  }
  Warnings.push_back("the call skipped at site " + std::to_string(Site) + " (" +
                     recordPlace(P.Records[Begin], Begin) +
                     ") had not returned when the trace ends");
  Cur.Next = uint32_t(limit());
  St = State::EndOfTrace;
  return Error::success();
}

Error ReplayLog::onSkipEnd(uint32_t Site) {
  auto R = expect(RecordKind::SkipEnd, Site, ::wsn::op("wsn.skip.end", {{"site", Site}}));
  return R ? Error::success() : R.takeError();
}

Expected<const TraceRecord *> ReplayLog::takeEffectRecord(uint32_t Site) {
  return expect(RecordKind::Effect, Site, ::wsn::op("wsn.effect", {{"site", Site}}));
}

Expected<ArrayRef<uint8_t>> ReplayLog::takeEffect(uint32_t Site) {
  auto R = takeEffectRecord(Site);
  if (!R)
    return R.takeError();
  return ArrayRef<uint8_t>((*R)->Payload);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

Expected<bool> ReplayLog::onCheck(uint32_t Inv, bool Ok, uint16_t Crc) {
  OpText Op = ::wsn::op("wsn.check", {{"inv", Inv}, {"ok", Ok}});
  Op.HasChecksum = true;
  Op.Checksum = Crc;
  if (Error E = checkRunning(Op))
    return std::move(E);
  if (Cur.Next >= limit()) {
    St = State::EndOfTrace;
    return endError();
  }
  const TraceRecord &R = P.Records[Cur.Next];
  bool IsCheck = R.Kind == RecordKind::Check || R.Kind == RecordKind::Violation;
  if (!IsCheck || R.id() != Inv || (R.Kind == RecordKind::Check) != Ok ||
      R.Fields[1] != Crc)
    return diverge(Cur.Next, describeRecord(R), Op.str());
  consumed(Cur.Next);
  return St == State::StopReached;
}

std::string ReplayLog::statusMessage() const {
  switch (St) {
  case State::BeforeStart:
    return "waiting for the start checkpoint (anchor " + std::to_string(P.StartAnchor) + ", " +
           recordPlace(P.Records[P.Start], P.Start) + ")";
  case State::Running:
    return "running at record " + std::to_string(Cur.Next);
  case State::Diverged:
    return DivergedMessage;
  case State::StopReached:
  case State::EndOfTrace:
    return toString(endError());
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The inline table (section 2.7)
//===----------------------------------------------------------------------===//

/// The walk of ReplayLog::onSkipBegin over the span that starts at record
/// Begin, done ahead of the run; a span that would warn, diverge or reach the
/// end of the replayed records is left to the log (End 0). Spans longer than
/// MaxWalk records are left too, which bounds this pass (the log's own walk
/// costs the same as this one).
static ReplayFastTable::SkipSpan skipSpan(const PreprocessedTrace &P, size_t Begin,
                                          size_t Limit) {
  constexpr size_t MaxWalk = 512;
  ReplayFastTable::SkipSpan S;
  uint32_t Site = P.Records[Begin].id();
  size_t Depth = 0;
  unsigned Irqs = 0;
  bool Reset = false;
  for (size_t I = Begin + 1; I < Limit && I - Begin <= MaxWalk; ++I) {
    const TraceRecord &X = P.Records[I];
    if (I == P.Coverage.StopRecord && X.Kind == RecordKind::Violation)
      return S;
    switch (X.Kind) {
    case RecordKind::SkipEnd:
      if (Depth == 0) {
        if (X.id() != Site || Irqs > UINT16_MAX)
          return S;
        S.End = uint32_t(I);
        S.Irqs = uint16_t(Irqs);
        S.Reset = Reset;
        return S;
      }
      --Depth;
      break;
    case RecordKind::SkipBegin:
    case RecordKind::Irq:
      if (Depth == 0 && X.Kind == RecordKind::Irq)
        ++Irqs;
      ++Depth;
      break;
    case RecordKind::IrqExit:
      if (Depth)
        --Depth;
      break;
    case RecordKind::Entry:
      if (Depth == 0)
        return S; // the log warns about the call back
      break;
    case RecordKind::Exit:
      if (Depth == 0)
        Reset = true;
      break;
    default:
      break;
    }
  }
  return S;
}

ReplayFastTable buildFastTable(const PreprocessedTrace &P) {
  using replayabi::FastRecord;
  ReplayFastTable T;
  size_t N = P.Records.size();
  T.Recs.assign(N + 1, FastRecord{0, 0, 0, 0});
  T.Zero.assign(N + 1, FastRecord{0, 0, 0, 0});
  T.OwnAt.assign(N + 1, uint32_t(P.Start));
  T.PosAt.assign(N + 1, 0);
  T.Skips.assign(N, {});
  if (P.Start >= N)
    return T;
  size_t SkipLimit = std::min(P.Coverage.StopRecord + 1, N);
  for (size_t I = P.Start; I < SkipLimit; ++I)
    if (P.Records[I].Kind == RecordKind::SkipBegin)
      T.Skips[I] = skipSpan(P, I, SkipLimit);
  size_t Stop = std::min(P.Coverage.StopRecord, N - 1);

  // Keys: only records strictly between the start checkpoint and the stop
  // record (those two go through the callbacks, which change the state). A
  // record after which an interrupt is due at once must call back too: the
  // callback's drain runs the handler.
  for (size_t I = P.Start + 1; I < Stop; ++I) {
    const TraceRecord &R = P.Records[I];
    const TraceRecord &Nx = P.Records[I + 1];
    bool IrqNext = Nx.Kind == RecordKind::Irq;
    FastRecord &F = T.Recs[I];
    F.IrqAt = UINT32_MAX;
    switch (R.Kind) {
    case RecordKind::Entry:
    case RecordKind::Exit:
      // The count restarts at 0, so an interrupt recorded at count c > 0
      // right after is due when the count reaches c.
      if (IrqNext && Nx.Fields[1] == 0)
        continue;
      if (IrqNext)
        F.IrqAt = Nx.Fields[1];
      F.Key = replayabi::fastKey(uint8_t(R.Kind), R.id());
      break;
    case RecordKind::Irq:
    case RecordKind::IrqExit:
    case RecordKind::Input:
    // The callbacks' fast paths (ReplayLog::peekFast) ask for these; the
    // JIT'd code never does.
    case RecordKind::SkipEnd:
    case RecordKind::Effect:
    case RecordKind::Check:
      if (IrqNext)
        continue;
      F.Key = replayabi::fastKey(uint8_t(R.Kind), R.id());
      // IRQ: its count; INPUT: the value; CHECK: the checksum.
      if (R.Kind == RecordKind::Irq || R.Kind == RecordKind::Input ||
          R.Kind == RecordKind::Check)
        F.Val = R.Fields[1];
      break;
    case RecordKind::SkipBegin:
      // The cursor moves to the span's SKIP_END, which is no interrupt.
      if (!T.Skips[I].End)
        continue;
      F.Key = replayabi::fastKey(uint8_t(R.Kind), R.id());
      F.Val = T.Skips[I].End;
      break;
    default:
      break;
    }
  }

  // Own records and quiet anchor visits, by following the contexts exactly
  // as ReplayLog consumes the records (section 2.4): an own record is one the
  // context consumed itself (an IRQ belongs to the handler it starts); a
  // skipped call's records are not consumed, its SKIP_END is.
  std::vector<uint32_t> Own{uint32_t(P.Start)};
  size_t LastCk = P.Start;
  bool CkInSkip = false; // a checkpoint the replay does not consume
  auto Armed = [&](size_t Index) {
    return writerArmedAfter(P.Records[Index], P.Records[LastCk], P.Header.SegSize);
  };
  uint32_t Pos = 0;
  for (size_t I = P.Start + 1; I <= Stop; ++I) {
    const TraceRecord &R = P.Records[I];
    T.OwnAt[I] = Own.back();
    T.PosAt[I] = Pos;
    if (R.Kind == RecordKind::Irq && R.id() < (1u << 24))
      T.Recs[I].Flags |= replayabi::FastIrqDispatch | R.id() << 8;
    if (R.Kind != RecordKind::Checkpoint && !CkInSkip && !Armed(Own.back()))
      T.Recs[I].Flags |= replayabi::FastAnchorQuiet;
    switch (R.Kind) {
    case RecordKind::Irq:
      Own.push_back(uint32_t(I));
      break;
    case RecordKind::IrqExit:
      if (Own.size() > 1)
        Own.pop_back();
      break;
    case RecordKind::Checkpoint:
      // onAnchor consumes it when the writer was armed after the record
      // before it; the count restarts at 0, so no interrupt may follow.
      if (I < Stop && Armed(I - 1) && P.Records[I + 1].Kind != RecordKind::Irq) {
        T.Recs[I].Key = replayabi::fastKey(uint8_t(R.Kind), R.id());
        T.Recs[I].IrqAt = UINT32_MAX;
      }
      Own.back() = uint32_t(I);
      LastCk = I;
      break;
    case RecordKind::SkipBegin: {
      unsigned Depth = 1;
      size_t J = I + 1;
      for (; J <= Stop; ++J) {
        RecordKind K = P.Records[J].Kind;
        if (K == RecordKind::Checkpoint)
          CkInSkip = true;
        if (K == RecordKind::SkipBegin)
          ++Depth;
        else if (K == RecordKind::SkipEnd && --Depth == 0)
          break;
      }
      if (J > Stop) { // the span reaches the stop record: replay ends in it
        for (size_t K = I + 1; K <= N; ++K)
          T.OwnAt[K] = uint32_t(I), T.PosAt[K] = Pos;
        return T;
      }
      for (size_t K = I + 1; K <= J; ++K)
        T.OwnAt[K] = uint32_t(I), T.PosAt[K] = Pos;
      Own.back() = uint32_t(J);
      I = J; // the next cursor position is the record after SKIP_END
      break;
    }
    default:
      Own.back() = uint32_t(I);
      if (R.Kind == RecordKind::Entry || R.Kind == RecordKind::Exit)
        ++Pos;
      break;
    }
  }
  for (size_t I = Stop + 1; I <= N; ++I)
    T.OwnAt[I] = Own.back(), T.PosAt[I] = Pos;
  return T;
}

} // namespace wsn
