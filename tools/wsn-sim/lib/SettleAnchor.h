//===- SettleAnchor.h - does replay run past the next anchor? -------------===//
//
// wsn-sim --settle takes the snapshot where replay of the trace read at the
// bound ends. When the next record the node opens is a CHECKPOINT, replay may
// not stop there: at the end of the trace it cannot tell whether the recorder
// wrote one at that anchor visit unless the context's own records armed the
// writer (spec/replay-log.md section 2.4), so it runs on to the next record.
//
//===----------------------------------------------------------------------===//
#ifndef WSN_SIM_SETTLEANCHOR_H
#define WSN_SIM_SETTLEANCHOR_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace wsn {
namespace sim {

/// True when replay of Trace (a .wtr image) reaches the end of the trace in the
/// main context with the writer armed only by interrupt records since main's own
/// last record: ReplayLog::onAnchor then returns no checkpoint and replay goes on
/// past the anchor, so a CHECKPOINT the node writes next is not where replay ends.
/// False (replay ends at the anchor, or the case does not arise) for anything
/// else, including a trace that does not parse or holds no checkpoint.
bool replayRunsPastAnchor(llvm::ArrayRef<uint8_t> Trace);

} // namespace sim
} // namespace wsn

#endif
