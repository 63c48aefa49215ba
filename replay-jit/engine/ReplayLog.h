//===- ReplayLog.h - the lockstep cursor the replay engine consumes -------===//
//
// The replayed program executes the same trace ops as the recorded one (the
// same IR, lowered for the host). Each op calls into a ReplayLog, which checks
// that the next recorded record is the one the op would have written, hands
// back recorded values (thesis 4.2, processLOG(type 1..5)), keeps
// #gv_reference exactly as the runtime does, and says when an interrupt handler
// must run (the interrupt table of the preprocessor, keyed by log position and
// count, consumed in order). spec/replay-log.md gives the rules and argues why
// they reproduce the recorded execution (thesis Theorem 4.2.1).
//
// Protocol for the engine:
//   1. takeCheckpoint(anchor) once, at the start anchor; restore the bytes.
//   2. For every trace op call the matching method.
//   3. After EVERY successful call (count updates, resets, record ops), drain
//      interrupts: while (auto Irq = Log.pendingInterrupt()) run handler *Irq
//      (its wsn.irq.entry calls onIrqEntry, which consumes the IRQ record).
//   4. A ReplayDivergence error ends the replay as a failure. A ReplayEnd
//      error is the normal end: the stop record was consumed, or the program
//      needs a record past the last one ("end of trace at record N").
//
//===----------------------------------------------------------------------===//
#ifndef WSN_REPLAY_ENGINE_REPLAYLOG_H
#define WSN_REPLAY_ENGINE_REPLAYLOG_H

#include "Preprocessor.h"
#include "ReplayLowering.h" // replayabi::ReplayCursor, FastRecord

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wsn {

/// Replay executed something other than what the trace records next.
class ReplayDivergence : public llvm::ErrorInfo<ReplayDivergence> {
public:
  static char ID;
  ReplayDivergence(size_t Record, uint64_t FileOffset, std::string Expected,
                   std::string Executed)
      : Record(Record), FileOffset(FileOffset), Expected(std::move(Expected)),
        Executed(std::move(Executed)) {}
  /// "replay diverged at record N (offset X): expected <record>, executed <op>"
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  size_t Record;       ///< index of the record in PreprocessedTrace::Records
  uint64_t FileOffset; ///< file offset of its tag (one past the tail at the end)
  std::string Expected, Executed;
};

/// The normal end of a replay: not a failure.
class ReplayEnd : public llvm::ErrorInfo<ReplayEnd> {
public:
  enum Kind { StopReached, EndOfTrace };
  static char ID;
  ReplayEnd(Kind K, size_t Record, std::string What)
      : K(K), Record(Record), What(std::move(What)) {}
  /// "stop reached at record N: VIOLATION inv=2 checksum=0x1a2b" or
  /// "end of trace at record N".
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  Kind K;
  size_t Record;
  std::string What;
};

/// An op as messages name it ("wsn.check inv=1 ok=1 checksum=0x1a2b"),
/// formatted lazily.
struct OpText {
  const char *Name = "";
  std::pair<const char *, uint64_t> Args[3];
  unsigned N = 0;
  bool HasChecksum = false;
  uint16_t Checksum = 0;
  std::string str() const;
};

struct ReplayLogOptions {
  /// The recorder resets #gv_reference when it writes a CHECKPOINT (the
  /// proposal in spec/replay-log.md). Without it the count of the start context
  /// is unknown until its first ENTRY/EXIT, and interrupts recorded in that
  /// window are taken assuming it was 0, with a warning.
  bool CheckpointResetsCount = false;
};

/// The records as the inline code of the lowered program consumes them
/// (spec/replay-log.md section 2.7). Built once per trace.
struct ReplayFastTable {
  /// By record index, one past the last record included (the cursor may
  /// point there). Key 0 where the record must go through the callback.
  std::vector<replayabi::FastRecord> Recs;
  /// The same size, all zero: what the cursor points at when inline
  /// consumption is off (every inline test fails).
  std::vector<replayabi::FastRecord> Zero;
  /// The last record the current context consumed itself when the cursor is
  /// at record i (section 2.4's "own" record); a function of the consumed
  /// prefix, which replay consumes in recorded order.
  std::vector<uint32_t> OwnAt;
  /// ENTRY/EXIT records consumed before record i (the interrupt-table
  /// position when the cursor is at i).
  std::vector<uint32_t> PosAt;
  /// For a SKIP_BEGIN at record i whose span onSkipBegin would walk without
  /// a warning or an error: its SKIP_END, the handlers taken at the span's top
  /// level, and whether a call back reset the caller's count. End 0: walk it.
  struct SkipSpan {
    uint32_t End = 0;
    uint16_t Irqs = 0;
    bool Reset = false;
  };
  std::vector<SkipSpan> Skips;
};
ReplayFastTable buildFastTable(const PreprocessedTrace &P);

class ReplayLog {
public:
  enum class State { BeforeStart, Running, StopReached, EndOfTrace, Diverged };

  /// P must outlive the log. Cursor: where the log keeps its position and
  /// counts (the engine passes the one its inline code reads; null: the log's
  /// own). Table: buildFastTable(P), outliving the log (null: built here).
  /// Inline: let the inline code consume records (needs CheckpointResetsCount).
  explicit ReplayLog(const PreprocessedTrace &P, ReplayLogOptions Opts = {},
                     replayabi::ReplayCursor *Cursor = nullptr,
                     const ReplayFastTable *Table = nullptr, bool Inline = false);

  // --- LOG 4: the start point and later anchors ----------------------------
  /// Consumes the start checkpoint (it must be for Anchor); returns its bytes.
  llvm::Expected<llvm::ArrayRef<uint8_t>> takeCheckpoint(uint32_t Anchor);
  /// An anchor visit after the start. Returns the CHECKPOINT record consumed
  /// here (the writer was armed and the record is next), or nullptr when the
  /// recorder wrote none at this visit. A checkpoint that was due but is not
  /// next is a divergence.
  llvm::Expected<const TraceRecord *> onAnchor(uint32_t Anchor);
  /// Compares a consumed checkpoint with the replayed bytes of the anchor's
  /// variables; a difference is a divergence naming the variable (with a map).
  llvm::Error compareCheckpoint(const TraceRecord &R, llvm::ArrayRef<uint8_t> Replayed);

  // --- LOG 1 / LOG 2 --------------------------------------------------------
  llvm::Error onEntry(uint32_t Fid);
  llvm::Error onExit(uint32_t Fid);
  llvm::Error onIrqEntry(uint32_t Irq);
  llvm::Error onIrqExit(uint32_t Irq);
  /// The `+= n` at the end of an atomic region.
  llvm::Error addCount(uint32_t N);
  /// The handler to run now, if the next record is an interrupt of the current
  /// context taken at the current count.
  std::optional<uint32_t> pendingInterrupt() const;

  // --- LOG 3 / LOG 5 / LOG 6 / multi-level -----------------------------------
  llvm::Error onSched(uint32_t Task);
  llvm::Expected<uint32_t> takeInput(uint32_t Site);
  llvm::Expected<llvm::ArrayRef<uint8_t>> takeInputBytes(uint32_t Site, uint32_t Len);
  llvm::Error onSend(uint32_t Site, uint32_t Dest, uint32_t Seq);
  llvm::Error onRecv(uint32_t Site, uint32_t Sender, uint32_t Seq);
  /// Consumes SKIP_BEGIN and moves past everything the skipped call recorded
  /// (callbacks, handlers) to its SKIP_END.
  llvm::Error onSkipBegin(uint32_t Site);
  llvm::Error onSkipEnd(uint32_t Site);
  llvm::Expected<llvm::ArrayRef<uint8_t>> takeEffect(uint32_t Site);
  /// The EFFECT record itself (an EFFECT_C's Given says which payload bytes it holds).
  llvm::Expected<const TraceRecord *> takeEffectRecord(uint32_t Site);

  // --- invariant checks -------------------------------------------------------
  /// Compares with the recorded CHECK / VIOLATION and checksum. Returns true
  /// when this was the stop record (state() is then StopReached).
  llvm::Expected<bool> onCheck(uint32_t Inv, bool Ok, uint16_t Crc);

  // --- fast paths (spec/replay-log.md section 2.7) -------------------------------
  // The callbacks try these first. Each consumes the record at the cursor only
  // when the inline table keys it for exactly this op (the table keys a record
  // when consuming it needs none of the checks and no interrupt is due right
  // after it); otherwise it returns null/false, changes nothing, and the op
  // goes through its method above, which checks, reports and drains.

  /// The keyed record for an op of kind K and id Id (not consumed yet).
  const TraceRecord *peekFast(RecordKind K, uint32_t Id) const {
    const replayabi::FastRecord &F = Cur.Recs[Cur.Next];
    if (F.Key != replayabi::fastKey(uint8_t(K), Id))
      return nullptr;
    return &P.Records[Cur.Next];
  }
  /// Consumes the record peekFast returned. A checkpoint also becomes the last
  /// one and resets the count, as onAnchor does.
  void consumeFast() {
    const replayabi::FastRecord &F = Cur.Recs[Cur.Next];
    const TraceRecord &R = P.Records[Cur.Next];
    if (R.Kind == RecordKind::Checkpoint) {
      LastCheckpoint = Cur.Next;
      Cur.Count = 0;
    } else if (R.Kind == RecordKind::Check) {
      Cur.Count += 1; // the check is one counted reference
    }
    ++Cur.Next;
    Cur.IrqAt = F.IrqAt;
  }
  /// peekFast, and consumes what it found.
  const TraceRecord *takeFast(RecordKind K, uint32_t Id) {
    const TraceRecord *R = peekFast(K, Id);
    if (R)
      consumeFast();
    return R;
  }
  /// SKIP_BEGIN of Site: moves to the span's SKIP_END as onSkipBegin would.
  bool skipFast(uint32_t Site) {
    if (!peekFast(RecordKind::SkipBegin, Site))
      return false;
    const ReplayFastTable::SkipSpan &S = Table->Skips[Cur.Next];
    SkippedInterrupts += S.Irqs;
    if (S.Reset)
      Cur.Count = 0;
    Cur.Next = S.End;
    Cur.IrqAt = UINT32_MAX; // nothing runs before the SKIP_END
    return true;
  }

  // --- status -----------------------------------------------------------------
  State state() const { return St; }
  /// Index of the next record to consume.
  size_t next() const { return Cur.Next; }
  /// The program sleeps (AVR `sleep`, MSP430 low-power bits). With every record consumed
  /// nothing can wake it any more: the end of the trace (a node stopped while idle, in
  /// TinyOS's `while no task: McuSleep.sleep()` loop, which passes no trace op).
  llvm::Error onSleep();
  /// #gv_reference of the current context.
  uint32_t count() const { return Cur.Count; }
  /// Handler nesting depth (0: the main program).
  unsigned depth() const { return Cur.Depth; }
  /// ENTRY/EXIT records consumed since the start (the interrupt-table position).
  uint32_t position() const { return Table->PosAt[Cur.Next]; }
  /// Recomputes what the inline code reads besides the position and counts
  /// (the record table it may consume and the count limit of the pending
  /// interrupt). The engine calls it before JIT'd code runs again after a
  /// callback (spec/replay-log.md section 2.7).
  void refreshInline();
  /// "running at record N", "stop reached at record N: ...", "end of trace at
  /// record N", "diverged at record N".
  std::string statusMessage() const;
  /// Points where replay is not guaranteed exact (never silent).
  const std::vector<std::string> &warnings() const { return Warnings; }
  const PreprocessedTrace &trace() const { return P; }
  /// Interrupts that ran inside skipped calls (replayed through the effects).
  unsigned skippedInterrupts() const { return SkippedInterrupts; }

private:
  llvm::Error checkRunning(const OpText &Op);
  llvm::Error onEntryOrExit(RecordKind K, uint32_t Fid, const OpText &Op);
  llvm::Expected<const TraceRecord *> expect(RecordKind K, uint32_t Id, const OpText &Op);
  llvm::Error diverge(size_t At, std::string Expected, std::string Executed);
  llvm::Error endError() const;
  void consumed(size_t Index);
  bool armedAfter(size_t Index) const;
  size_t limit() const { return P.Coverage.StopRecord + 1; }

  void resetCount() {
    Cur.Count = 0;
    if (Cur.Depth == 0)
      StartUnknown = false;
  }

  const PreprocessedTrace &P;
  ReplayLogOptions Opts;
  State St = State::BeforeStart;
  /// Next record, the current context's count (unwrapped; the runtime's
  /// counter is 16 bits), the interrupted contexts' counts.
  replayabi::ReplayCursor OwnCursor{};
  replayabi::ReplayCursor &Cur;
  std::unique_ptr<ReplayFastTable> OwnTable;
  const ReplayFastTable *Table;
  bool Inline;
  /// The start context's count is relative to an unknown base until its
  /// first reset (only without CheckpointResetsCount).
  bool StartUnknown = false;
  size_t LastCheckpoint = 0;
  std::vector<std::string> Warnings;
  unsigned SkippedInterrupts = 0;
  std::string DivergedMessage;
};

} // namespace wsn

#endif
