//===- SettleAnchor.cpp - does replay run past the next anchor? -----------===//
//
// Follows the contexts of the retained tail exactly as the replay log consumes
// them (replay-jit/engine/ReplayLog.cpp, buildFastTable and onAnchor;
// spec/replay-log.md section 2.4): an IRQ record belongs to the handler it
// starts, IRQ_EXIT to nobody, a skipped call's records are not consumed but
// its SKIP_END is, and every consumed CHECKPOINT re-arms the reference.
// The arming rule itself is the shared writerArmedAfter (traceio). The walk is
// mirrored rather than shared: ReplayLog builds it into its fast table inside
// the replay engine library (ORC JIT, passes), which the simulator does not
// link, and keeps per-record state (positions, flags) this question does not need.
//
//===----------------------------------------------------------------------===//
#include "SettleAnchor.h"

#include "TraceFormat.h"

#include "llvm/Support/Error.h"

#include <vector>

using namespace llvm;

namespace wsn {
namespace sim {

bool replayRunsPastAnchor(ArrayRef<uint8_t> Trace) {
  Expected<TraceFile> F = TraceFile::parse(Trace);
  if (!F) {
    consumeError(F.takeError());
    return false;
  }
  std::vector<TraceRecord> R;
  if (Error E = F->decode(R)) {
    consumeError(std::move(E));
    return false;
  }
  size_t Start = 0;
  while (Start < R.size() && R[Start].Kind != RecordKind::Checkpoint)
    ++Start;
  if (Start >= R.size())
    return false; // no checkpoint: nothing replays
  const size_t N = R.size();
  // A trace ending with a check stops replay at that check (spec/replay-log.md
  // section 1, stop `last check`), never at an anchor after it.
  if (R[N - 1].Kind == RecordKind::Check || R[N - 1].Kind == RecordKind::Violation)
    return false;
  const uint32_t Seg = F->header().SegSize;
  size_t LastCk = Start;
  auto Armed = [&](size_t I) { return writerArmedAfter(R[I], R[LastCk], Seg); };
  std::vector<size_t> Own{Start};
  for (size_t I = Start + 1; I < N; ++I) {
    switch (R[I].Kind) {
    case RecordKind::Irq:
      Own.push_back(I);
      break;
    case RecordKind::IrqExit:
      if (Own.size() > 1)
        Own.pop_back();
      break;
    case RecordKind::Checkpoint:
      Own.back() = I;
      LastCk = I;
      break;
    case RecordKind::SkipBegin: {
      unsigned Depth = 1;
      size_t J = I + 1;
      for (; J < N; ++J) {
        if (R[J].Kind == RecordKind::SkipBegin)
          ++Depth;
        else if (R[J].Kind == RecordKind::SkipEnd && --Depth == 0)
          break;
      }
      if (J >= N)
        return false; // replay ends inside the skipped call
      Own.back() = J;
      I = J;
      break;
    }
    default:
      Own.back() = I;
      break;
    }
  }
  // Anchors sit in main: only the main context can visit one next.
  return Own.size() == 1 && Armed(N - 1) && !Armed(Own.back());
}

} // namespace sim
} // namespace wsn
