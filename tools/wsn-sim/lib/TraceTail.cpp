//===- TraceTail.cpp - can replay of this trace end where the node stopped? ===//
#include "TraceTail.h"

#include "TraceFormat.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace llvm;

namespace wsn {
namespace sim {

TraceTail readTraceTail(ArrayRef<uint8_t> Trace) {
  TraceTail T;
  // Header: "WTRB", flags (u16) at byte 18, the open bit at byte 31 (spec/trace-format.md
  // sections 1 and 1.1).
  T.HasHeader = Trace.size() >= 32 && std::memcmp(Trace.data(), "WTRB", 4) == 0;
  const bool Open = T.HasHeader && (Trace[31] & 0x80);
  if (T.HasHeader)
    T.ViolationFlag = (Trace[18] | (Trace[19] << 8)) & 2;
  // What wsn-trace-dump --json lists: it fails on a file that does not parse, a decode
  // error and any damaged segment (whose records it leaves out).
  T.HasCheckpoint = true;
  Expected<TraceFile> F = TraceFile::parse(Trace);
  if (!F) {
    consumeError(F.takeError());
    return T;
  }
  std::vector<TraceRecord> R;
  if (Error E = F->decode(R, 0, /*SkipDamaged=*/true)) {
    consumeError(std::move(E));
    return T;
  }
  if (!F->damage().empty())
    return T;
  T.Readable = true;
  int Skips = 0, Handlers = 0;
  bool Checkpoint = false;
  for (const TraceRecord &Rec : R) {
    switch (Rec.Kind) {
    case RecordKind::SkipBegin:
      ++Skips;
      break;
    case RecordKind::SkipEnd:
      --Skips;
      break;
    case RecordKind::Irq:
      ++Handlers;
      break;
    case RecordKind::IrqExit:
      Handlers = std::max(0, Handlers - 1);
      break;
    case RecordKind::Checkpoint:
      Checkpoint = true;
      break;
    default:
      break;
    }
  }
  T.HasCheckpoint = Checkpoint;
  // An effect call writes SKIP_END and then the EFFECT with the callee's writes: a tail
  // ending with the SKIP_END is still inside the call.
  T.InSkippedCall = Skips > 0 || (!R.empty() && R.back().Kind == RecordKind::SkipEnd);
  T.AtCheck = !Open && !R.empty() && R.back().Kind == RecordKind::Check;
  T.InHandler = Handlers > 0;
  return T;
}

} // namespace sim
} // namespace wsn
