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

ReplayLog::ReplayLog(const PreprocessedTrace &P, ReplayLogOptions Opts)
    : P(P), Opts(Opts), Next(P.Start), LastCheckpoint(P.Start) {}

Error ReplayLog::diverge(size_t At, std::string Expected, std::string Executed) {
  uint64_t Off = TraceHeaderSize;
  if (At < P.Records.size())
    Off += P.Records[At].RingOffset;
  else if (!P.Records.empty())
    Off += P.Records.back().RingOffset + P.Records.back().Size;
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
  return make_error<ReplayEnd>(ReplayEnd::EndOfTrace, Next, "");
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
  Next = Index + 1;
  if (Index == P.Coverage.StopRecord && P.Coverage.Stop != StopKind::End)
    St = State::StopReached;
}

Expected<const TraceRecord *> ReplayLog::expect(RecordKind K, uint32_t Id,
                                                const OpText &Op) {
  if (Error E = checkRunning(Op))
    return std::move(E);
  if (Next >= limit()) {
    St = State::EndOfTrace;
    return endError();
  }
  const TraceRecord &R = P.Records[Next];
  if (R.Kind != K || R.id() != Id)
    return diverge(Next, describeRecord(R), Op.str());
  size_t I = Next;
  if (K != RecordKind::Irq && !Ctx.empty())
    Ctx.back().LastOwn = I;
  consumed(I);
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
  Next = P.Start;
  Ctx.assign(1, Context());
  Ctx[0].UnknownBase = !Opts.CheckpointResetsCount;
  Ctx[0].LastOwn = P.Start;
  auto R = expect(RecordKind::Checkpoint, Anchor, Op);
  if (!R)
    return R.takeError();
  LastCheckpoint = P.Start;
  return ArrayRef<uint8_t>((*R)->Payload);
}

/// The runtime arms the anchor flag whenever head reaches a segment boundary
/// (trace-format.md section 2), including the boundary the checkpoint itself
/// may end on and the PAD that moves a record to the next segment. After the
/// record at Index, the flag is set iff such a boundary was reached since the
/// last checkpoint: the record lies in another segment, or ends on a boundary.
bool ReplayLog::armedAfter(size_t Index) const {
  const TraceRecord &L = P.Records[Index];
  const TraceRecord &C = P.Records[LastCheckpoint];
  if (L.Segment != C.Segment)
    return true;
  return P.Header.SegSize && (L.RingOffset + L.Size) % P.Header.SegSize == 0;
}

Expected<const TraceRecord *> ReplayLog::onAnchor(uint32_t Anchor) {
  OpText Op = ::wsn::op("wsn.anchor", {{"anchor", Anchor}});
  if (Error E = checkRunning(Op))
    return std::move(E);
  bool ArmedNow = armedAfter(Next - 1);
  bool ArmedOwn = armedAfter(Ctx.back().LastOwn);
  if (Next < limit()) {
    const TraceRecord &R = P.Records[Next];
    if (R.Kind == RecordKind::Checkpoint && R.id() == Anchor && ArmedNow) {
      size_t I = Next;
      Ctx.back().LastOwn = I;
      consumed(I);
      LastCheckpoint = I;
      if (Opts.CheckpointResetsCount) {
        Ctx.back().Count = 0;
        Ctx.back().UnknownBase = false;
      }
      return &R;
    }
  }
  // Armed before any interrupt delivered since this context's last record:
  // the recorder checked the flag and must have written a checkpoint now.
  if (ArmedOwn) {
    if (Next >= limit()) {
      St = State::EndOfTrace;
      return endError();
    }
    return diverge(Next, describeRecord(P.Records[Next]),
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
  ++Position;
  Ctx.back().Count = 0;
  Ctx.back().UnknownBase = false;
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
  uint32_t Cur = Ctx.back().Count;
  if (Next < limit()) {
    const TraceRecord &R = P.Records[Next];
    if (R.Kind == RecordKind::Irq && R.id() == Irq && R.Fields[1] != (Cur & CountMask))
      return diverge(Next, describeRecord(R), Op.str() + " at count " + std::to_string(Cur));
  }
  auto R = expect(RecordKind::Irq, Irq, Op);
  if (!R)
    return R.takeError();
  if (Ctx.back().UnknownBase && (*R)->Fields[1] != 0)
    Warnings.push_back(
        "interrupt " + std::to_string(Irq) + " at " + recordPlace(**R, Next - 1) +
        " was taken before the start context's first ENTRY/EXIT: its count (" +
        std::to_string((*R)->Fields[1]) +
        ") is relative to the count at the checkpoint, which the trace does not hold; replay "
        "assumed 0 there");
  Context H;
  H.LastOwn = Next - 1;
  Ctx.push_back(H);
  return Error::success();
}

Error ReplayLog::onIrqExit(uint32_t Irq) {
  OpText Op = ::wsn::op("wsn.irq.exit", {{"irq", Irq}});
  if (Error E = checkRunning(Op))
    return E;
  if (Ctx.size() < 2)
    return diverge(Next, Next < P.Records.size() ? describeRecord(P.Records[Next]) : "nothing",
                   Op.str() + " with no handler active");
  auto R = expect(RecordKind::IrqExit, Irq, Op);
  if (!R)
    return R.takeError();
  Ctx.pop_back(); // the interrupted context's count is back
  return Error::success();
}

Error ReplayLog::addCount(uint32_t N) {
  OpText Op = ::wsn::op("wsn.region.end", {{"n", N}});
  if (Error E = checkRunning(Op))
    return E;
  Context &C = Ctx.back();
  uint32_t Old = C.Count;
  C.Count += N;
  // An interrupt recorded next must be taken at a count this context reaches
  // before its next record: the count only grows until then, and the recorder
  // takes interrupts only between regions (so never strictly inside Old..New).
  if (Next < limit() && P.Records[Next].Kind == RecordKind::Irq) {
    uint32_t Want = P.Records[Next].Fields[1];
    if (C.Count <= CountMask && Want < C.Count)
      return diverge(Next, describeRecord(P.Records[Next]),
                     Op.str() + " taking the count from " + std::to_string(Old) + " to " +
                         std::to_string(C.Count));
  }
  return Error::success();
}

std::optional<uint32_t> ReplayLog::pendingInterrupt() const {
  if (St != State::Running || Next >= limit())
    return std::nullopt;
  const TraceRecord &R = P.Records[Next];
  if (R.Kind == RecordKind::Irq && R.Fields[1] == (Ctx.back().Count & CountMask))
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
  if (Next < limit()) {
    const TraceRecord &R = P.Records[Next];
    if (R.Kind == RecordKind::InputBytes && R.id() == Site && R.Payload.size() != Len)
      return diverge(Next, describeRecord(R), Op.str());
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
  if (Next < limit()) {
    const TraceRecord &R = P.Records[Next];
    if (R.Kind == RecordKind::Send && R.id() == Site && (R.Fields[1] != Seq || R.Fields[2] != Dest))
      return diverge(Next, describeRecord(R), Op.str());
  }
  auto R = expect(RecordKind::Send, Site, Op);
  return R ? Error::success() : R.takeError();
}

Error ReplayLog::onRecv(uint32_t Site, uint32_t Sender, uint32_t Seq) {
  OpText Op = ::wsn::op("wsn.recv", {{"site", Site}, {"sender", Sender}, {"seq", Seq}});
  if (Error E = checkRunning(Op))
    return E;
  if (Next < limit()) {
    const TraceRecord &R = P.Records[Next];
    if (R.Kind == RecordKind::Recv && R.id() == Site &&
        (R.Fields[1] != Sender || R.Fields[2] != Seq))
      return diverge(Next, describeRecord(R), Op.str());
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
  // Everything up to the matching SKIP_END was recorded by the skipped call
  // (instrumented callbacks) or by handlers interrupting it: replay does not
  // execute the call, so it does not consume those records. A callback's
  // ENTRY/EXIT reset the count of the skipped call's context, which is the
  // caller's context: that reset is applied.
  size_t Begin = Next - 1;
  std::vector<std::pair<RecordKind, uint32_t>> Frames;
  bool Reset = false;
  for (size_t I = Next; I < limit(); ++I) {
    const TraceRecord &X = P.Records[I];
    if (I == P.Coverage.StopRecord && X.Kind == RecordKind::Violation) {
      Warnings.push_back("the stop record (" + recordPlace(X, I) +
                         ") lies inside the call skipped at site " + std::to_string(Site) +
                         " (" + recordPlace(P.Records[Begin], Begin) +
                         "): replay cannot execute it");
      Next = I;
      St = State::EndOfTrace;
      return Error::success();
    }
    switch (X.Kind) {
    case RecordKind::SkipEnd:
      if (Frames.empty()) {
        if (X.id() != Site)
          return diverge(I, describeRecord(X),
                         "the end of the call skipped at site " + std::to_string(Site));
        if (Reset) {
          Ctx.back().Count = 0;
          Ctx.back().UnknownBase = false;
        }
        Next = I;
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
  Next = limit();
  St = State::EndOfTrace;
  return Error::success();
}

Error ReplayLog::onSkipEnd(uint32_t Site) {
  auto R = expect(RecordKind::SkipEnd, Site, ::wsn::op("wsn.skip.end", {{"site", Site}}));
  return R ? Error::success() : R.takeError();
}

Expected<ArrayRef<uint8_t>> ReplayLog::takeEffect(uint32_t Site) {
  auto R = expect(RecordKind::Effect, Site, ::wsn::op("wsn.effect", {{"site", Site}}));
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
  if (Next >= limit()) {
    St = State::EndOfTrace;
    return endError();
  }
  const TraceRecord &R = P.Records[Next];
  bool IsCheck = R.Kind == RecordKind::Check || R.Kind == RecordKind::Violation;
  if (!IsCheck || R.id() != Inv || (R.Kind == RecordKind::Check) != Ok ||
      R.Fields[1] != Crc)
    return diverge(Next, describeRecord(R), Op.str());
  size_t I = Next;
  Ctx.back().LastOwn = I;
  consumed(I);
  return St == State::StopReached;
}

std::string ReplayLog::statusMessage() const {
  switch (St) {
  case State::BeforeStart:
    return "waiting for the start checkpoint (anchor " + std::to_string(P.StartAnchor) + ", " +
           recordPlace(P.Records[P.Start], P.Start) + ")";
  case State::Running:
    return "running at record " + std::to_string(Next);
  case State::Diverged:
    return DivergedMessage;
  case State::StopReached:
  case State::EndOfTrace:
    return toString(endError());
  }
  return "";
}

} // namespace wsn
